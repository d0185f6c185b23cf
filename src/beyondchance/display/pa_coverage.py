"""PA–coverage display: the prediction advantage of a selective predictor against its coverage."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measures.advantage import pa_coverage_curve
from ..measures.losses import get_loss
from ._display_api import CurveDisplay

__all__ = ["PACoverageDisplay"]


class PACoverageDisplay(CurveDisplay):
    r"""Prediction advantage on the covered subset against the coverage (PA paper, section 6).

    At each coverage level the most confident samples are kept and the PA is computed
    with the BMP re-estimated on them (:func:`beyondchance.pa_coverage_curve`); the
    legend shows the area under the curve.  PA = 0 is the covered subset's own best
    constant prediction: the chance line.

    Unlike the curve displays of scores it takes predictions and a confidence:
    ``from_predictions(y_true, y_pred, confidence, *, loss="zero_one", coverages=None,
    labels=None, sample_weight=None, ...)``; ``from_estimator(estimator, X, y, *,
    loss="zero_one", ...)`` predicts with ``predict`` (label losses) or
    ``predict_proba`` (log loss, Brier) and takes the confidence from the largest
    ``predict_proba`` column, else ``decision_function`` (its absolute value for
    binary problems, its largest column otherwise).

    Parameters
    ----------
    coverage, pa : ndarray, the curve's points (``pa`` nan where the covered labels are
        of one class; those points are not drawn)
    area : float, optional
    loss : str, optional
    name : str, optional

    Attributes
    ----------
    line_, chance_level_, ax_, figure_ : after ``plot``

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> from beyondchance.display import PACoverageDisplay
    >>> d = PACoverageDisplay.from_predictions(
    ...     [0, 0, 0, 0, 1, 1, 1, 0], [0, 0, 0, 0, 1, 1, 0, 1], [.9, .9, .8, .8, .7, .7, .6, .5])
    >>> d.line_.get_ydata().round(4).tolist()    # nan: only class 0 covered
    [nan, nan, 1.0, 0.6667, 0.3333]
    """

    _x, _y = "coverage", "pa"
    _xlabel, _ylabel = "Coverage", "Prediction advantage on the covered subset"
    _summary, _summary_label = "area", "area"
    _line_defaults = {"marker": "."}

    def __init__(self, *, coverage: Any, pa: Any, area: float | None = None, loss: str | None = None,
                 name: str | None = None) -> None:
        self.coverage, self.pa, self.area, self.loss, self.name = np.asarray(coverage), np.asarray(pa), area, loss, name
        self.pos_label = None

    def _chance(self):
        return (0.0, 1.0), (0.0, 0.0), "Best constant prediction (PA = 0)"

    @classmethod
    def from_predictions(  # type: ignore[override]
        cls,
        y_true: Any,
        y_pred: Any,
        confidence: Any,
        *,
        loss: Any = "zero_one",
        sample_weight: Any = None,
        coverages: Any = None,
        labels: Any = None,
        name: str | None = None,
        ax: Any = None,
        plot_chance_level: bool = True,
        chance_level_kw: dict | None = None,
        **kwargs: Any,
    ) -> "PACoverageDisplay":
        """Compute :func:`~beyondchance.pa_coverage_curve`, then plot (``kwargs``: matplotlib keywords)."""
        c = pa_coverage_curve(y_true, y_pred, confidence, loss=loss, sample_weight=sample_weight,
                              coverages=coverages, labels=labels)
        display = cls(coverage=c.coverage, pa=c.pa, area=c.area, loss=c.loss,
                      name="Classifier" if name is None else name)
        return display.plot(ax=ax, plot_chance_level=plot_chance_level, chance_level_kw=chance_level_kw, **kwargs)

    @classmethod
    def from_estimator(
        cls,
        estimator: Any,
        X: Any,
        y: Any,
        *,
        loss: Any = "zero_one",
        sample_weight: Any = None,
        coverages: Any = None,
        name: str | None = None,
        ax: Any = None,
        plot_chance_level: bool = True,
        chance_level_kw: dict | None = None,
        **kwargs: Any,
    ) -> "PACoverageDisplay":
        """Predictions and confidence of a fitted classifier on ``X``, then ``from_predictions``."""
        if hasattr(estimator, "predict_proba"):
            proba = np.asarray(estimator.predict_proba(X))
            confidence = proba.max(axis=1)
        else:
            proba = None
            df = np.asarray(estimator.decision_function(X))
            confidence = np.abs(df) if df.ndim == 1 else df.max(axis=1)
        if get_loss(loss).prediction == "probability":
            if proba is None:
                proba = np.asarray(estimator.predict_proba(X))  # raises scikit-learn's clear error
            y_pred, labels = proba, getattr(estimator, "classes_", None)
        else:
            y_pred, labels = estimator.predict(X), None
        return cls.from_predictions(
            y, y_pred, confidence, loss=loss, sample_weight=sample_weight, coverages=coverages, labels=labels,
            name=type(estimator).__name__ if name is None else name, ax=ax, plot_chance_level=plot_chance_level,
            chance_level_kw=chance_level_kw, **kwargs,
        )
