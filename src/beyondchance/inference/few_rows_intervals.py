"""Intervals of the curve areas for test sets with few positives or negatives, in closed form
from the class counts (the report uses them below :data:`FEW_ROWS`; the bootstrap of the
rows above).

With five positives the bootstrap of the (score, label) rows covers a ROC AUC in about 79%
of test sets and an average precision in about 85% (nominal 95%; ``benchmarks/few_rows_intervals.py``):
a resample holds a handful of positives, some none, and the percentile interval is too
narrow and off-centre.  Two score-type constructions from the literature cover there:

* **ROC AUC — Newcombe (2006), method 5**: the score-type (Wilson-like) interval.  With
  m positives, n negatives and N* = (m + n)/2 − 1, the Hanley–McNeil variance at θ is

  .. math:: V(θ) = \\frac{θ(1 − θ)}{mn}\\Big[1 + N^*\\Big(\\frac{1 − θ}{2 − θ} + \\frac{θ}{1 + θ}\\Big)\\Big],

  and the interval is every θ with (θ̂ − θ)² ≤ z² V(θ) (its two roots, found by bisection).
  R. G. Newcombe, "Confidence intervals for an effect size measure based on the
  Mann–Whitney statistic. Part 2: Asymptotic methods and evaluation", *Statistics in
  Medicine* 25 (2006) 559–573.
* **Average precision — Boyd, Eng and Page (2013), the binomial interval**: with m
  positives, AP ± z √(AP(1 − AP)/m), clipped to [0, 1].  K. Boyd, K. H. Eng, C. D. Page,
  "Area under the precision-recall curve: point estimates and confidence intervals",
  ECML PKDD 2013, LNCS 8190, 451–466.

Measured (n = 100, prevalence 0.05, binormal scores with ROC AUC 0.75, 297 test sets, seed
37): Newcombe 0.939 ± 0.014 against the row bootstrap's 0.795 ± 0.023; the binomial AP
interval 0.946 ± 0.013 against 0.848 ± 0.021.

>>> low, high = roc_auc_interval(0.8, 5, 95, 0.95)
>>> round(low, 3), round(high, 3)
(0.54, 0.925)
>>> low, high = roc_auc_interval(1.0, 5, 95, 0.95)   # a perfect ranking: no zero-width interval
>>> round(low, 3), high
(0.8, 1.0)
>>> low, high = average_precision_interval(0.3, 5, 0.95)   # 0.3 ± 1.96 √(0.3 · 0.7 / 5), clipped
>>> low, round(high, 4)
(0.0, 0.7017)
"""

from __future__ import annotations

import math

from scipy import optimize, stats

__all__ = ["FEW_ROWS", "average_precision_interval", "roc_auc_interval"]

#: below this many rows of the rarer class the curve areas take these intervals
FEW_ROWS = 30


def _hanley_mcneil_variance(theta: float, m: int, n: int) -> float:
    """Hanley–McNeil's variance of the AUC at θ with N* = (m + n)/2 − 1 (Newcombe's method 5)."""
    n_star = (m + n) / 2 - 1
    return theta * (1 - theta) / (m * n) * (1 + n_star * ((1 - theta) / (2 - theta) + theta / (1 + theta)))


def roc_auc_interval(auc: float, m: int, n: int, level: float) -> tuple[float, float]:
    """Newcombe's score-type interval of a ROC AUC ``auc`` of ``m`` positives and ``n``
    negatives at confidence ``level`` (two-sided): the θ with (θ̂ − θ)² ≤ z² V(θ)."""
    z = float(stats.norm.ppf(0.5 + level / 2))

    def gap(theta: float) -> float:
        return (auc - theta) ** 2 - z * z * _hanley_mcneil_variance(theta, m, n)

    inside = 1e-12  # V vanishes at 0 and 1: bracket the roots just inside the observed value
    low = 0.0 if auc <= 0 else optimize.brentq(gap, 0.0, min(auc, 1 - inside))
    high = 1.0 if auc >= 1 else optimize.brentq(gap, max(auc, inside), 1.0)
    return float(low), float(high)


def average_precision_interval(ap: float, m: int, level: float) -> tuple[float, float]:
    """Boyd, Eng and Page's binomial interval of an average precision ``ap`` of ``m``
    positives at confidence ``level`` (two-sided), clipped to [0, 1]."""
    z = float(stats.norm.ppf(0.5 + level / 2))
    half = z * math.sqrt(ap * (1 - ap) / m)
    return max(0.0, ap - half), min(1.0, ap + half)
