"""Inference on the measures: is a value real, and how precise is it?

* :mod:`.confidence_interval` — :class:`ConfidenceInterval` ``(low, high, level, method)``, the
  one shape of an interval across the package;
* :mod:`.bootstrap` — :func:`bootstrap_ci`, percentile / BCa / basic intervals of any measure;
* :mod:`.poisson_bootstrap` — the grouped Poisson bootstrap from per-group sums (intervals
  without the rows, on every engine);
* :mod:`.delong` — DeLong's test of two correlated ROC AUCs;
* :mod:`.permutation` — the permutation tests of "no better than chance".
"""

from .bootstrap import BootstrapResult, bootstrap_ci
from .confidence_interval import ConfidenceInterval
from .delong import DeLongResult, delong_test
from .permutation.permutation_test import PermutationTestResult, permutation_test

__all__ = [
    "BootstrapResult",
    "ConfidenceInterval",
    "DeLongResult",
    "PermutationTestResult",
    "bootstrap_ci",
    "delong_test",
    "permutation_test",
]
