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

from .scorers import get_scorer, make_scorer, scorer_names

#: the estimators and threshold strategies, imported on first use: they subclass
#: scikit-learn's estimators, and ``import beyondchance`` (which takes the scorers from here)
#: should not pay for importing scikit-learn
_LAZY = {
    "BISECTION_OBJECTIVES": "_strategies", "STRATEGIES": "_strategies", "ThresholdChoice": "_strategies",
    "choose_threshold": "_strategies", "tau_interval_iterations": "_strategies",
    "KernelLogisticRegression": "klr", "PluginThresholdClassifier": "threshold",
}


def __getattr__(name: str):
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)


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
