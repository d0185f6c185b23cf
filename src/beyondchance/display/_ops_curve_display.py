"""What the two OPS curve displays (OPRC, OPS(lift)) share."""

from __future__ import annotations

from typing import Any, ClassVar

import numpy as np

from ._display_api import CurveDisplay, check_defined

#: options of the OPS curve functions accepted by ``from_predictions`` / ``from_estimator``
OPS_OPTIONS = ("reference", "depth", "mc_samples", "random_state", "cache")


class OPSCurveDisplay(CurveDisplay):
    """An :class:`~beyondchance.outperformance.OPSCurve` drawn: OPS against the levels; chance at 0.5."""

    _ylabel = "Outperformance score (OPS)"
    _line_defaults = {"marker": "o", "markersize": 3}
    _limits = {"xlim": (-0.01, 1.01), "ylim": (-0.01, 1.01)}
    _function: ClassVar[Any]
    _level_option: ClassVar[str]
    _what: ClassVar[str]

    def __init__(self, *, levels: Any, values: Any, ops: Any, standard_error: Any = None,
                 prevalence: float | None = None, reference: str | None = None, name: str | None = None,
                 pos_label: Any = None) -> None:
        self.levels, self.values, self.ops = np.asarray(levels), np.asarray(values), np.asarray(ops)
        self.standard_error, self.prevalence, self.reference = standard_error, prevalence, reference
        self.name, self.pos_label = name, pos_label

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label, **options):
        c = cls._function(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label, **options)
        check_defined(c.ops, cls._what)
        return dict(levels=c.x, values=c.y, ops=c.ops, standard_error=c.standard_error, prevalence=c.prevalence,
                    reference=c.reference)

    def _chance(self):
        return (0.0, 1.0), (0.5, 0.5), "Random ranking (OPS ≈ 0.5)"
