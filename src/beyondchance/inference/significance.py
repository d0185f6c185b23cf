"""The package's one significance rule, and its one rule for reading an interval.

A test *rejects* at confidence level L when its p-value is **at most** α = 1 − L.  α is
rounded to 12 decimals, because 1 − 0.95 is 0.050000000000000044 in floating point: without
the rounding a p-value of 0.05000000000000002 would reject at level 0.95 while reports print
"p ≤ 5%".  Every verdict built on a p-value uses these two functions: :func:`compare_models`
(a significant difference), the classifier-change and target-shift tests of ``compare``
and the monitoring decomposition, the label-shift test of the label-free estimate, and the
report's note on p-values against chance.  A family of tests is adjusted by one function,
:func:`holm_adjust` (Holm 1979; Bonferroni or none on request).

Whether a value beats a constant's is read from its confidence interval, never from the
point estimate alone (:func:`beats_by_interval`): *yes* when the whole interval is on the
better side of the constant, *no* when none of it is, *unclear* when it reaches across.

>>> significance_level(0.95)
0.05
>>> rejects(0.05, significance_level(0.95)), rejects(0.0500001, 0.05), rejects(float("nan"), 0.05)
(True, False, False)
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

__all__ = ["beats_by_interval", "holm_adjust", "rejects", "significance_level"]


def significance_level(confidence_level: float) -> float:
    """α = 1 − ``confidence_level``, rounded to 12 decimals (1 − 0.95 gives 0.05 exactly)."""
    return round(1.0 - float(confidence_level), 12)


def rejects(pvalue: float | None, alpha: float) -> bool:
    """Whether a p-value rejects at significance level ``alpha``: p ≤ α (a missing or nan
    p-value never rejects)."""
    return pvalue is not None and math.isfinite(pvalue) and pvalue <= alpha


def beats_by_interval(low: float, high: float, constant: float = 0.0, *, greater_is_better: bool = True) -> str:
    """Whether an interval [``low``, ``high``] shows a value beating ``constant``.

    Higher is better: ``"yes"`` when low > constant (the interval lies above it), ``"no"``
    when high ≤ constant (none of it lies above), ``"unclear"`` otherwise (it contains the
    constant, or an end is not finite).  Lower is better (losses): the mirror image,
    ``"yes"`` when high < constant, ``"no"`` when low ≥ constant.

    >>> beats_by_interval(0.02, 0.30), beats_by_interval(-0.40, -0.01), beats_by_interval(-0.09, 0.26)
    ('yes', 'no', 'unclear')
    >>> beats_by_interval(0.05, 0.07, 0.10, greater_is_better=False)   # a loss below the constant's
    'yes'
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return "unclear"
    if not greater_is_better:
        low, high, constant = -high, -low, -constant
    if low > constant:
        return "yes"
    return "no" if high <= constant else "unclear"


def holm_adjust(pvalues: Sequence[float], method: str = "holm") -> np.ndarray:
    """Family-wise adjusted p-values: Holm's step-down (Holm 1979), the largest of
    (m − j)·p₍ⱼ₎ over the j-th smallest and those before it, capped at 1; ``"bonferroni"``
    m·p; ``"none"`` the p-values as given.  Reject where the adjusted p-value is at most the
    level (:func:`rejects`): the family-wise error rate is then at most the level for any
    dependence between the tests.  nan entries stay nan and are left out of the family (m
    counts the others).

    >>> holm_adjust([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    >>> holm_adjust([0.01, float("nan"), 0.04], "bonferroni").round(2).tolist()
    [0.02, nan, 0.08]
    """
    p = np.asarray(pvalues, dtype=np.float64).reshape(-1)
    out = np.full(p.shape, np.nan)
    ok = np.flatnonzero(np.isfinite(p))
    m = ok.size
    if method == "none" or m == 0:
        out[ok] = p[ok]
    elif method == "bonferroni":
        out[ok] = np.minimum(1.0, p[ok] * m)
    elif method == "holm":
        order = ok[np.argsort(p[ok], kind="stable")]
        out[order] = np.minimum(1.0, np.maximum.accumulate(p[order] * (m - np.arange(m))))
    else:
        raise ValueError(f"method must be 'holm', 'bonferroni' or 'none', got {method!r}")
    return out
