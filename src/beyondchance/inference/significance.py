"""The package's one significance rule, and its one rule for reading an interval.

A test *rejects* at confidence level L when its p-value is **at most** α = 1 − L.  α is
rounded to 12 decimals, because 1 − 0.95 is 0.050000000000000044 in floating point: without
the rounding a p-value of 0.05000000000000002 would reject at level 0.95 while reports print
"p ≤ 5%".  Every verdict built on a p-value uses these two functions: :func:`compare_models`
(a significant difference), the classifier-change and target-shift tests of ``compare``
and the monitoring decomposition, the label-shift test of the label-free estimate, and the
report's note on p-values against chance.

Whether a value beats a constant's is read from its confidence interval, never from the
point estimate alone (:func:`beats_by_interval`): *yes* when the whole interval is on the
better side of the constant, *no* when none of it is, *undecided* when it reaches across.

>>> significance_level(0.95)
0.05
>>> rejects(0.05, significance_level(0.95)), rejects(0.0500001, 0.05), rejects(float("nan"), 0.05)
(True, False, False)
"""

from __future__ import annotations

import math

__all__ = ["beats_by_interval", "rejects", "significance_level"]


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
    when high ≤ constant (none of it lies above), ``"undecided"`` otherwise (it contains the
    constant, or an end is not finite).  Lower is better (losses): the mirror image,
    ``"yes"`` when high < constant, ``"no"`` when low ≥ constant.

    >>> beats_by_interval(0.02, 0.30), beats_by_interval(-0.40, -0.01), beats_by_interval(-0.09, 0.26)
    ('yes', 'no', 'undecided')
    >>> beats_by_interval(0.05, 0.07, 0.10, greater_is_better=False)   # a loss below the constant's
    'yes'
    """
    if not (math.isfinite(low) and math.isfinite(high)):
        return "undecided"
    if not greater_is_better:
        low, high, constant = -high, -low, -constant
    if low > constant:
        return "yes"
    return "no" if high <= constant else "undecided"
