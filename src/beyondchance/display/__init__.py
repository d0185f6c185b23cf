"""Plots in scikit-learn's display style: ``Display.from_predictions(...)`` or
``Display(...).plot(ax=...)``, the computed values kept on the object."""

from .decision_curve import DecisionCurveDisplay

__all__ = ["DecisionCurveDisplay"]
