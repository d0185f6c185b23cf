"""Cumulative gain curve display: recall against the predicted-positive rate."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measures.curves import gain_curve
from ._display_api import CurveDisplay, check_defined

__all__ = ["GainDisplay"]


class GainDisplay(CurveDisplay):
    r"""Cumulative gain curve: recall 1 − β against the predicted-positive rate q.

    OPS paper, Table 3 (ideal AUC 1 − π/2).  The constant predictor's gain curve is the
    diagonal recall = q (AUC 1/2): the chance line.  Build it with
    ``from_predictions`` or ``from_estimator`` (the data from
    :func:`beyondchance.gain_curve`).

    Parameters
    ----------
    rate, recall : ndarray
        The curve's points by decreasing threshold.
    prevalence : float
    gain_auc : float, optional
        Area under the gain curve (shown in the legend).
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
    >>> from beyondchance.display import GainDisplay
    >>> d = GainDisplay.from_predictions([0, 1, 0, 1], [0.2, 0.9, 0.6, 0.6])
    >>> d.line_.get_xydata().tolist()
    [[0.0, 0.0], [0.25, 0.5], [0.75, 1.0], [1.0, 1.0]]
    """

    _x, _y = "rate", "recall"
    _xlabel, _ylabel = "Predicted-positive rate", "Recall (gain)"
    _summary, _summary_label = "gain_auc", "AUC"
    _limits = {"xlim": (-0.01, 1.01), "ylim": (-0.01, 1.01)}

    def __init__(self, *, rate: Any, recall: Any, prevalence: float, gain_auc: float | None = None,
                 thresholds: Any = None, name: str | None = None, pos_label: Any = None) -> None:
        self.rate, self.recall, self.prevalence = np.asarray(rate), np.asarray(recall), prevalence
        self.gain_auc, self.thresholds, self.name, self.pos_label = gain_auc, thresholds, name, pos_label

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label):
        c = gain_curve(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
        check_defined(c.x, "gain curve")
        return dict(rate=c.x, recall=c.y, prevalence=c.prevalence, gain_auc=c.auc(), thresholds=c.thresholds,
                    pos_label=c.pos_label)

    def _chance(self):
        return (0.0, 1.0), (0.0, 1.0), "Constant score (AUC = 0.50)"
