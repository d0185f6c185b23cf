"""The package's one significance rule.

A test *rejects* at confidence level L when its p-value is **at most** α = 1 − L.  α is
rounded to 12 decimals, because 1 − 0.95 is 0.050000000000000044 in floating point: without
the rounding a p-value of 0.05000000000000002 would reject at level 0.95 while reports print
"p ≤ 5%".  Every verdict built on a p-value uses these two functions: :func:`compare_models`
(a significant difference), the classifier-change and target-shift tests of ``compare``
and the monitoring decomposition, the label-shift test of the label-free estimate, and the
report's note on p-values against chance.

>>> significance_level(0.95)
0.05
>>> rejects(0.05, significance_level(0.95)), rejects(0.0500001, 0.05), rejects(float("nan"), 0.05)
(True, False, False)
"""

from __future__ import annotations

import math

__all__ = ["rejects", "significance_level"]


def significance_level(confidence_level: float) -> float:
    """α = 1 − ``confidence_level``, rounded to 12 decimals (1 − 0.95 gives 0.05 exactly)."""
    return round(1.0 - float(confidence_level), 12)


def rejects(pvalue: float | None, alpha: float) -> bool:
    """Whether a p-value rejects at significance level ``alpha``: p ≤ α (a missing or nan
    p-value never rejects)."""
    return pvalue is not None and math.isfinite(pvalue) and pvalue <= alpha
