"""Reliability diagram display: fraction of positives against mean predicted probability."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measures.calibration import reliability_table
from ._display_api import CurveDisplay

__all__ = ["ReliabilityDisplay"]


class ReliabilityDisplay(CurveDisplay):
    r"""Reliability diagram of binary probabilities, with the expected calibration error.

    Per bin of the predicted probability: the fraction of positives against the mean
    predicted probability (:func:`beyondchance.reliability_table`; weighted, equal-width
    bins as scikit-learn's ``CalibrationDisplay``); the legend shows the ECE.  The
    diagonal is perfect calibration; the constant prediction π is one point on it
    (calibrated but without skill, see :func:`beyondchance.brier_score_decomposition`).

    ``from_predictions(y_true, y_proba, *, n_bins=10, ...)``; ``from_estimator`` uses
    ``predict_proba``.

    Parameters
    ----------
    mean_predicted, fraction_positive, weight : ndarray, per non-empty bin
    expected_calibration_error : float, optional
    prevalence : float, optional
    name : str, optional
    pos_label : optional

    Attributes
    ----------
    line_, chance_level_, ax_, figure_ : the matplotlib objects, after ``plot``

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from beyondchance.display import ReliabilityDisplay
    >>> d = ReliabilityDisplay.from_predictions([0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9], n_bins=2)
    >>> d.line_.get_xydata().tolist(), d.expected_calibration_error
    ([[0.2, 0.0], [0.75, 1.0]], 0.225)
    """

    _x, _y = "mean_predicted", "fraction_positive"
    _xlabel, _ylabel = "Mean predicted probability", "Fraction of positives"
    _summary, _summary_label = "expected_calibration_error", "ECE"
    _options = ("n_bins",)
    _line_defaults = {"marker": "s"}
    _limits = {"xlim": (-0.01, 1.01), "ylim": (-0.01, 1.01)}

    def __init__(self, *, mean_predicted: Any, fraction_positive: Any, weight: Any = None,
                 expected_calibration_error: float | None = None, prevalence: float | None = None,
                 name: str | None = None, pos_label: Any = None) -> None:
        self.mean_predicted, self.fraction_positive = np.asarray(mean_predicted), np.asarray(fraction_positive)
        self.weight, self.expected_calibration_error = weight, expected_calibration_error
        self.prevalence, self.name, self.pos_label = prevalence, name, pos_label

    @classmethod
    def _compute(cls, y_true, y_score, *, sample_weight, pos_label, n_bins=10):
        t = reliability_table(y_true, y_score, n_bins=n_bins, sample_weight=sample_weight, pos_label=pos_label)
        return dict(mean_predicted=t.mean_predicted, fraction_positive=t.fraction_positive, weight=t.weight,
                    expected_calibration_error=t.expected_calibration_error,
                    prevalence=float(np.sum(t.fraction_positive * t.weight) / t.weight.sum()), pos_label=pos_label)

    @classmethod
    def from_estimator(cls, estimator, X, y, *, response_method="predict_proba", **kwargs):
        """As ``from_estimator``, with the probabilities of ``predict_proba``."""
        return super().from_estimator(estimator, X, y, response_method=response_method, **kwargs)

    def _chance(self):
        return (0.0, 1.0), (0.0, 1.0), "Perfectly calibrated"
