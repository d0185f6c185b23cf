"""Learning with pure accuracy (Pure Accuracy paper, section 6).

* :class:`KernelLogisticRegression` — the posterior estimator η̂ (eq. 34–35), exact
  L-BFGS solution with an RBF kernel, optional Nyström approximation.
* :class:`PluginThresholdClassifier` — a scikit-learn meta-estimator: fit any
  probabilistic classifier on S₁, choose the threshold δ of h(x) = 1{η̂(x) > δ} on S₂
  (τ-interval search of Algorithm 2, bisection, grid, S₂ search, p-cut, 0.5).
* :func:`choose_threshold` — the threshold strategies as a function of (y, η̂) on S₂.
* :func:`make_scorer`, :func:`get_scorer` — scikit-learn scorers of the measures against
  chance (:mod:`.scorers`).
"""

from ._strategies import (
    BISECTION_OBJECTIVES,
    STRATEGIES,
    ThresholdChoice,
    choose_threshold,
    tau_interval_iterations,
)
from .klr import KernelLogisticRegression
from .scorers import get_scorer, make_scorer, scorer_names
from .threshold import PluginThresholdClassifier

__all__ = [
    "BISECTION_OBJECTIVES",
    "KernelLogisticRegression",
    "PluginThresholdClassifier",
    "STRATEGIES",
    "ThresholdChoice",
    "choose_threshold",
    "tau_interval_iterations",
    "get_scorer",
    "make_scorer",
    "scorer_names",
]
