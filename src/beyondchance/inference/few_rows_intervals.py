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

The labeling metrics that are a proportion of one class's rows (recall of the positives,
specificity of the negatives) or of one predicted class's rows (precision, NPV) take
**Wilson's score interval** below ``FEW_ROWS`` rows of the rarer class, and their sums
(balanced accuracy, informedness, markedness) **Newcombe's hybrid score interval**
(MOVER: the sum's distance to each end from the parts' Wilson ends, squared and added).
Given the class counts (or the predicted counts) the parts are independent binomials, so
both hold conditionally on them — and a proportion whose own denominator has fewer than
``TOO_FEW_ROWS`` rows gets none, a rule that selects test sets by that count only and so
leaves the coverage of the others intact.  With about 15 positives (n = 50, prevalence 0.3) the
bootstrap of the confusion-matrix cells covered recall in 0.909 [0.889, 0.926] of 1,000
test sets (``benchmarks/validity_table.py --cells binary:50:0.3 --replicates 1000
--seed 38``).  E. B. Wilson, "Probable inference, the law of succession, and statistical
inference", *JASA* 22 (1927) 209–212; R. G. Newcombe, "Interval estimation for the
difference between independent proportions: comparison of eleven methods", *Statistics in
Medicine* 17 (1998) 873–890, method 10; G. Y. Zou and A. Donner, "Construction of confidence
limits about effect measures: a general approach", *Statistics in Medicine* 27 (2008)
1693–1702.

>>> low, high = labeling_interval("recall", tp=12, fp=5, fn=3, tn=30, level=0.95)
>>> round(low, 3), round(high, 3)
(0.548, 0.93)
>>> low, high = labeling_interval("balanced_accuracy", tp=12, fp=5, fn=3, tn=30, level=0.95)
>>> round(low, 3), round(high, 3)
(0.682, 0.905)
>>> labeling_interval("mcc", tp=12, fp=5, fn=3, tn=30, level=0.95) is None   # not a proportion
True
"""

from __future__ import annotations

import functools
import math

from scipy import optimize, stats

__all__ = ["FEW_ROWS", "TOO_FEW_FOR_AP", "TOO_FEW_ROWS", "average_precision_interval", "labeling_interval",
           "proportion_interval", "proportion_rows", "roc_auc_interval"]

#: below this many rows of the rarer class the curve areas take the closed-form intervals
FEW_ROWS = 100
#: below this many positive rows the average precision has no interval
TOO_FEW_FOR_AP = 30
#: below this many rows of the rarer class, the rows that rest on it give no interval and no
#: verdict (their bootstrap intervals cover a recall in 16–42% and an MCC in 38–82% of test
#: sets with 1–3 positives, ``benchmarks/validity_table.py``, 50 test sets per cell); a
#: proportion, below this many rows of its own denominator (Wilson's interval of a recall
#: of one positive covers 0.83 at a recall of 0.83)
TOO_FEW_ROWS = 10


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


#: the labeling metrics that are one proportion of the binary confusion cells
#: (tp, fp, fn, tn): name -> (the counted cell, the cells of its denominator)
PROPORTIONS: dict[str, tuple[str, tuple[str, str]]] = {
    "recall": ("tp", ("tp", "fn")), "fnr": ("fn", ("tp", "fn")),
    "specificity": ("tn", ("tn", "fp")), "fpr": ("fp", ("tn", "fp")),
    "precision": ("tp", ("tp", "fp")), "fdr": ("fp", ("tp", "fp")),
    "npv": ("tn", ("tn", "fn")), "false_omission_rate": ("fn", ("tn", "fn")),
}
#: the labeling metrics that are (a + b) · scale + shift of two independent proportions
SUMS: dict[str, tuple[str, str, float, float]] = {
    "balanced_accuracy": ("recall", "specificity", 0.5, 0.0),
    "informedness": ("recall", "specificity", 1.0, -1.0),
    "markedness": ("precision", "npv", 1.0, -1.0),
}


@functools.lru_cache(maxsize=4096)
def proportion_interval(successes: float, trials: float, level: float) -> tuple[float, float]:
    """Wilson's score interval of ``successes`` of ``trials`` at confidence ``level``
    (two-sided; Wilson 1927): the p with (p̂ − p)² ≤ z² p(1 − p)/n,

    .. math:: \\frac{\\hat p + z^2/2n ± z\\sqrt{\\hat p(1 − \\hat p)/n + z^2/4n^2}}{1 + z^2/n},

    clipped to [0, 1] against rounding (scipy's ``binomtest(k, n).proportion_ci(level,
    method="wilson")`` for whole counts; the package's one Wilson interval, also of the
    monitoring's error-rate differences).

    >>> low, high = proportion_interval(0, 178, 0.95)
    >>> low, round(high, 4)
    (0.0, 0.0211)
    """
    z = float(stats.norm.ppf(0.5 + level / 2))
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    return max(0.0, centre - half), min(1.0, centre + half)


def proportion_rows(name: str, *, tp: float, fp: float, fn: float, tn: float) -> tuple[int, ...]:
    """The rows of the denominators a closed-form interval of ``name`` rests on: one for a
    proportion (:data:`PROPORTIONS`), two for a sum (:data:`SUMS`), none for other metrics.

    >>> proportion_rows("precision", tp=3, fp=9, fn=2, tn=36), proportion_rows("balanced_accuracy", tp=3, fp=9, fn=2, tn=36)
    ((12,), (5, 45))
    """
    cells = {"tp": int(round(tp)), "fp": int(round(fp)), "fn": int(round(fn)), "tn": int(round(tn))}
    parts = SUMS[name][:2] if name in SUMS else (name,) if name in PROPORTIONS else ()
    return tuple(sum(cells[c] for c in PROPORTIONS[part][1]) for part in parts)


def labeling_interval(name: str, *, tp: float, fp: float, fn: float, tn: float,
                      level: float) -> tuple[float, float] | None:
    """The closed-form interval of a binary labeling metric ``name`` from unweighted counts:
    Wilson's for a proportion (:data:`PROPORTIONS`), Newcombe's hybrid (MOVER) for the sum of
    two (:data:`SUMS`); None for any other metric, or one whose denominator is 0."""
    cells = {"tp": int(round(tp)), "fp": int(round(fp)), "fn": int(round(fn)), "tn": int(round(tn))}
    if name in PROPORTIONS:
        counted, (a, b) = PROPORTIONS[name]
        trials = cells[a] + cells[b]
        return proportion_interval(cells[counted], trials, level) if trials > 0 else None
    if name not in SUMS:
        return None
    first, second, scale, shift = SUMS[name]
    parts = []
    for part in (first, second):
        counted, (a, b) = PROPORTIONS[part]
        trials = cells[a] + cells[b]
        if trials == 0:
            return None
        parts.append((cells[counted] / trials, *proportion_interval(cells[counted], trials, level)))
    (p1, l1, u1), (p2, l2, u2) = parts
    low = p1 + p2 - math.hypot(p1 - l1, p2 - l2)
    high = p1 + p2 + math.hypot(u1 - p1, u2 - p2)
    return low * scale + shift, high * scale + shift
