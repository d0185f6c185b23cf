"""Precision–recall–gain curve display (Flach & Kull 2015)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measures.precision_recall_gain import precision_recall_gain_curve
from ._display_api import CurveDisplay, check_defined

__all__ = ["PrecisionRecallGainDisplay"]


class PrecisionRecallGainDisplay(CurveDisplay):
    r"""Precision gain against recall gain (Flach & Kull 2015).

    precG = (prec − π)/((1 − π) prec), recG = (rec − π)/((1 − π) rec), from recall gain 0
    on (:func:`beyondchance.precision_recall_gain_curve`); the legend shows AUPRG
    (:func:`beyondchance.prg_auc`).  The always-positive classifier, and every constant
    score, has precision π, i.e. precision gain 0: the chance line.

    Parameters
    ----------
    recall_gain, precision_gain : ndarray
    prevalence : float
    auprg : float, optional
    name : str, optional
    pos_label : optional

    Attributes
    ----------
    line_, chance_level_, ax_, figure_ : the matplotlib objects, after ``plot``

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from beyondchance.display import PrecisionRecallGainDisplay
    >>> d = PrecisionRecallGainDisplay.from_predictions([0, 1, 1, 0, 1], [0.1, 0.9, 0.8, 0.7, 0.3])
    >>> d.auprg, d.line_.get_label()
    (0.53125, 'Classifier (AUPRG = 0.53)')
    """

    _x, _y = "recall_gain", "precision_gain"
    _xlabel, _ylabel = "Recall gain", "Precision gain"
    _summary, _summary_label = "auprg", "AUPRG"
    _line_defaults = {"marker": "."}

    def __init__(self, *, recall_gain: Any, precision_gain: Any, prevalence: float, auprg: float | None = None,
                 name: str | None = None, pos_label: Any = None) -> None:
        self.recall_gain, self.precision_gain = np.asarray(recall_gain), np.asarray(precision_gain)
        self.prevalence, self.auprg, self.name, self.pos_label = prevalence, auprg, name, pos_label

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label):
        c = precision_recall_gain_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
        check_defined(c.recall_gain, "precision-recall-gain curve")
        return dict(recall_gain=c.recall_gain, precision_gain=c.precision_gain, prevalence=c.prevalence,
                    auprg=c.auc(), pos_label=c.pos_label)

    def _chance(self):
        return (0.0, 1.0), (0.0, 0.0), "Constant score (AUPRG = 0)"
