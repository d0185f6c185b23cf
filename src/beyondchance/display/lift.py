"""Lift curve display: lift = precision / π against the predicted-positive rate."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measures.curves import lift_curve
from ._display_api import CurveDisplay, check_defined

__all__ = ["LiftDisplay"]


class LiftDisplay(CurveDisplay):
    r"""Lift curve: lift (1 − β)/q = precision/π against the predicted-positive rate q.

    OPS paper, Table 3 and Figs. 6(a), 7(a).  The constant predictor (a constant score)
    has lift 1 at every rate: the chance line.  Build it with ``from_predictions``
    or ``from_estimator`` (the data from :func:`beyondchance.lift_curve`).

    Parameters
    ----------
    rate, lift : ndarray
        The curve's points by decreasing threshold.
    prevalence : float
        π of the labels.
    lift_auc : float, optional
        Area under the lift curve (shown in the legend).
    thresholds : ndarray, optional
    name : str, optional
    pos_label : optional

    Attributes
    ----------
    line_, chance_level_, ax_, figure_ : the matplotlib objects, after ``plot``

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from beyondchance.display import LiftDisplay
    >>> d = LiftDisplay.from_predictions([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> d.line_.get_ydata().tolist(), d.chance_level_.get_ydata().tolist()
    ([2.0, 2.0, 1.3333333333333333, 1.0], [1.0, 1.0])
    """

    _x, _y = "rate", "lift"
    _xlabel, _ylabel = "Predicted-positive rate", "Lift"
    _summary, _summary_label = "lift_auc", "AUC"

    def __init__(self, *, rate: Any, lift: Any, prevalence: float, lift_auc: float | None = None,
                 thresholds: Any = None, name: str | None = None, pos_label: Any = None) -> None:
        self.rate, self.lift, self.prevalence = np.asarray(rate), np.asarray(lift), prevalence
        self.lift_auc, self.thresholds, self.name, self.pos_label = lift_auc, thresholds, name, pos_label

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label):
        c = lift_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
        check_defined(c.x, "lift curve")
        return dict(rate=c.x, lift=c.y, prevalence=c.prevalence, lift_auc=c.auc(), thresholds=c.thresholds,
                    pos_label=c.pos_label)

    def _chance(self):
        return (0.0, 1.0), (1.0, 1.0), "Constant score (lift = 1)"
