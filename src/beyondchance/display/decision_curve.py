"""The decision-curve display: net benefit against threshold probability with treat-all and
treat-none, and optionally the prediction advantage of the cost-weighted 0/1 loss
(:mod:`beyondchance.measures.decision_curve`)."""

from __future__ import annotations

from typing import Any

import numpy as np

from ..measures.decision_curve import DecisionCurve, decision_curve

__all__ = ["DecisionCurveDisplay"]


class DecisionCurveDisplay:
    """Decision curve visualisation (scikit-learn's display API).

    Parameters
    ----------
    curve : :class:`~beyondchance.measures.decision_curve.DecisionCurve`
    name : str, optional, the model's name in the legend

    Attributes
    ----------
    line_, treat_all_line_, treat_none_line_, pa_line_ : matplotlib artists (after ``plot``)
    ax_, figure_ : the axes (the first when ``advantage=True``) and the figure

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> d = DecisionCurveDisplay.from_predictions([0, 1, 1, 0, 1, 0], [.1, .9, .4, .6, .5, .2], name="model")
    >>> d.line_.get_label(), bool(np.allclose(d.line_.get_ydata(), d.curve.net_benefit))
    ('model', True)
    """

    def __init__(self, curve: DecisionCurve, *, name: str | None = None) -> None:
        self.curve = curve
        self.name = name

    def plot(self, ax: Any = None, *, name: str | None = None, advantage: bool = False) -> "DecisionCurveDisplay":
        """Plot on ``ax`` (a new figure when None); with ``advantage`` a second panel (a list
        of two axes when given) shows the prediction advantage of each threshold probability."""
        if ax is None:
            import matplotlib.pyplot as plt

            _, ax = plt.subplots(1, 2 if advantage else 1, figsize=(10 if advantage else 5.5, 4.2),
                                 layout="constrained")
        axes = list(np.atleast_1d(ax))
        if advantage and len(axes) < 2:
            raise ValueError("advantage=True needs two axes")
        c = self.curve
        a = axes[0]
        name = name or self.name or "model"
        (self.line_,) = a.plot(c.threshold, c.net_benefit, color="#1f5fa8", lw=2, label=name)
        (self.treat_all_line_,) = a.plot(c.threshold, c.treat_all, color="#7f7f7f", ls="--", label="treat all")
        (self.treat_none_line_,) = a.plot(c.threshold, c.treat_none, color="black", lw=1, label="treat none")
        top = max(c.prevalence, float(np.nanmax(c.net_benefit)))
        a.set(xlabel="threshold probability", ylabel="net benefit", xlim=(0, 1),
              ylim=(-0.05 * max(top, 1e-3), 1.1 * max(top, 1e-3)), title="Decision curve")
        a.legend(loc="upper right", fontsize=8)
        a.grid(alpha=0.3)
        self.pa_line_ = None
        if advantage:
            b = axes[1]
            (self.pa_line_,) = b.plot(c.threshold, c.prediction_advantage, color="#2e8b57", lw=2, label=name)
            b.axhline(0.0, color="#7f7f7f", ls="--", label="best of treat all / treat none")
            finite = c.prediction_advantage[np.isfinite(c.prediction_advantage)]
            low = min(-0.1, float(finite.min()) - 0.05) if finite.size else -0.1
            b.set(xlabel="threshold probability", ylabel="prediction advantage (cost-weighted 0/1 loss)",
                  xlim=(0, 1), ylim=(max(low, -1.5), 1.02), title="Decision curve as a prediction advantage")
            b.legend(loc="lower left", fontsize=8)
            b.grid(alpha=0.3)
        self.ax_ = a
        self.figure_ = a.figure
        return self

    @classmethod
    def from_predictions(cls, y_true: Any, y_score: Any, *, thresholds: Any = None, sample_weight: Any = None,
                         pos_label: Any = None, name: str | None = None, ax: Any = None,
                         advantage: bool = False) -> "DecisionCurveDisplay":
        """Compute the decision curve (:func:`beyondchance.measures.decision_curve`) and plot it."""
        curve = decision_curve(y_true, y_score, thresholds=thresholds, sample_weight=sample_weight,
                               pos_label=pos_label)
        return cls(curve, name=name).plot(ax, advantage=advantage)

    @classmethod
    def from_estimator(cls, estimator: Any, X: Any, y: Any, *, thresholds: Any = None, sample_weight: Any = None,
                       pos_label: Any = None, name: str | None = None, ax: Any = None,
                       advantage: bool = False) -> "DecisionCurveDisplay":
        """The decision curve of ``estimator.predict_proba(X)`` (the positive class's column)."""
        proba = estimator.predict_proba(X)
        classes = list(estimator.classes_)
        pos = pos_label if pos_label is not None else classes[-1]
        return cls.from_predictions(y, proba[:, classes.index(pos)], thresholds=thresholds,
                                    sample_weight=sample_weight, pos_label=pos, ax=ax, advantage=advantage,
                                    name=name or type(estimator).__name__)
