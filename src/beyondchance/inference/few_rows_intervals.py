"""Intervals of the curve areas for test sets with few positives or negatives, in closed form
from the class counts: the report uses them below :data:`FEW_ROWS` rows of the rarer class
(the bootstrap of the rows above), and gives the average precision none below
:data:`TOO_FEW_FOR_AP` positives.

With five positives the bootstrap of the (score, label) rows covers a ROC AUC in 73–80% of
test sets (nominal 95%): a resample holds a handful of positives, some none, and the
percentile interval is too narrow.  **Newcombe (2006), method 5**, the score-type
(Wilson-like) interval, covers there.  With m positives, n negatives and N* = (m + n)/2 − 1,
the Hanley–McNeil variance at θ is

.. math:: V(θ) = \\frac{θ(1 − θ)}{mn}\\Big[1 + N^*\\Big(\\frac{1 − θ}{2 − θ} + \\frac{θ}{1 + θ}\\Big)\\Big],

and the interval is every θ with (θ̂ − θ)² ≤ z² V(θ): its two roots, found by Brent's
method.  R. G. Newcombe, "Confidence intervals for an effect size measure based on the
Mann–Whitney statistic. Part 2: Asymptotic methods and evaluation", *Statistics in
Medicine* 25 (2006) 559–573.

Measured (``benchmarks/few_rows_intervals.py``: n = 100, prevalence 0.05, binormal scores,
297 test sets, seed 37): Newcombe 0.939 ± 0.014 at ROC AUC 0.75 and 0.929 ± 0.015 at 0.9,
against the row bootstrap's 0.795 ± 0.023 and 0.731 ± 0.026.  For the average precision no
interval studied covers at both (the row bootstrap 0.848 and 0.838, Boyd, Eng and Page's
binomial interval 0.946 and 0.842, their logit interval 0.919 and 1.000): the report gives it
none there.  With 30 positives (n = 100, prevalence 0.3, ROC AUC 0.75, 300 test sets) the
row bootstrap still covers too little (ROC AUC 0.907 ± 0.017, average precision
0.913 ± 0.016) where Newcombe's covers 0.933 ± 0.014 and **Boyd, Eng and Page's logit
interval** of the average precision 0.947 ± 0.013:

.. math:: \\operatorname{logit}^{-1}\\big(\\operatorname{logit}(\\hat{AP}) ± z\\,τ\\big),\\qquad τ = 1/\\sqrt{m\\,\\hat{AP}(1 − \\hat{AP})}

with m positives.  K. Boyd, K. H. Eng, C. D. Page, "Area under the precision-recall curve:
point estimates and confidence intervals", ECML PKDD 2013, LNCS 8190, 451–466.

>>> low, high = roc_auc_interval(0.8, 5, 95, 0.95)
>>> round(low, 3), round(high, 3)
(0.54, 0.925)
>>> low, high = roc_auc_interval(1.0, 5, 95, 0.95)   # a perfect ranking: no zero-width interval
>>> round(low, 3), high
(0.8, 1.0)
>>> low, high = average_precision_interval(0.6, 40, 0.95)
>>> round(low, 3), round(high, 3)
(0.443, 0.738)
"""

from __future__ import annotations

import math

from scipy import optimize, stats

__all__ = ["FEW_ROWS", "TOO_FEW_FOR_AP", "average_precision_interval", "roc_auc_interval"]

#: below this many rows of the rarer class the curve areas take the closed-form intervals
FEW_ROWS = 100
#: below this many positive rows the average precision has no interval
TOO_FEW_FOR_AP = 30


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


def average_precision_interval(ap: float, m: int, level: float) -> tuple[float, float] | None:
    """Boyd, Eng and Page's logit interval of an average precision ``ap`` of ``m`` positives
    at confidence ``level`` (two-sided): logit⁻¹(logit(AP) ± z / √(m AP (1 − AP))); None at
    AP = 0 or 1, where it has no width."""
    if not 0 < ap < 1:
        return None
    z = float(stats.norm.ppf(0.5 + level / 2))
    centre, tau = math.log(ap / (1 - ap)), 1 / math.sqrt(m * ap * (1 - ap))
    return float(stats.logistic.cdf(centre - z * tau)), float(stats.logistic.cdf(centre + z * tau))
