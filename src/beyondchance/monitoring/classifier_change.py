r"""Whether the classifier changed between the reference and a test set, tested on the
prevalence-free quantities only: Fisher's exact test of the false-positive rate and of the
false-negative rate at the threshold, and (scores) a test of the ROC AUC: the within-class
permutation test where a class of either set has fewer than ``PERMUTATION_BELOW`` rows (exact;
Besag & Clifford 1991's sequential p-value), else the unpaired DeLong z-test (DeLong et al.
1988; variance from the placement values).  The p-values of all the test sets are adjusted
together (Holm 1979), which bounds the family-wise error over the sets compared by the level
when each test is valid.  Measured (``benchmarks/sim_monitoring.py --parts familywise``, one
reference, six test sets, one classifier, 2,000 replicates): 0.030–0.046 at 1000 rows per set
(DeLong's test everywhere: 0.048–0.070), 0.026–0.047 at 5000; docs/monitoring.md.

The decomposition of a metric's change (:mod:`beyondchance.monitoring.decomposition`) takes
the ROC AUC's test interval as the ROC AUC's classifier-effect interval (:func:`roc_auc_test`).

>>> import numpy as np
>>> from beyondchance.measures.curves import threshold_counts
>>> from beyondchance.monitoring.set_statistics import SetStatistics
>>> rng = np.random.default_rng(0)
>>> def sample(shift, n=2000):
...     y = (rng.random(n) < 0.3).astype(int)
...     return SetStatistics.from_counts(threshold_counts(y, rng.normal(0, 1, n) + shift * y), threshold=0.5)
>>> (change,) = compare_classifiers(sample(1.5), {"window": sample(0.5)})
>>> change.changed, [t.quantity for t in change.tests]
(True, ['fpr', 'fnr', 'roc_auc'])
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass, replace
from typing import Any, Literal, Sequence

import numpy as np
from scipy import stats as sps

from .._summary_display import SummaryDisplay, Table, format_interval
from .._validation import check_random_state
from ..inference.confidence_interval import ConfidenceInterval
from ..inference.few_rows_intervals import proportion_interval
from ..inference.delong import delong_variance_of_counts
from ..inference.significance import holm_adjust, rejects, significance_level
from ..measures.binary_scores import per_threshold
from ..measures.curves import ThresholdCounts
from ..measures.registry import METRICS
from .set_statistics import SetStatistics, _row_counts

__all__ = ["ClassifierTest", "ClassifierChange", "classifier_change_tests", "roc_auc_test", "compare_classifiers",
           "auc_permutation_pvalue", "newcombe_interval", "bearing_on", "PERMUTATION_BELOW",
           "PERMUTATIONS"]


@dataclass(frozen=True)
class ClassifierTest:
    """One test of a prevalence-free quantity between the reference and a test set.

    Attributes
    ----------
    quantity : ``"fpr"``, ``"fnr"`` or ``"roc_auc"``
    reference_value, value : the quantity on the reference and on the test set
    difference_ci : a :class:`~beyondchance.ConfidenceInterval` of value − reference_value (at
        the report's level; the error rates: Newcombe's hybrid score interval
        (``newcombe_interval``); the ROC AUC: Wald's or the permutation test's ("test-based",
        ``classifier_change_tests``); or the classifier effect's bootstrap interval)
    pvalue : the test's own p-value; pvalue_adjusted : Holm-adjusted over the family
    method : the test
    """

    quantity: str
    reference_value: float
    value: float
    difference_ci: ConfidenceInterval
    pvalue: float
    method: str
    pvalue_adjusted: float = float("nan")

    def to_dict(self) -> dict[str, Any]:
        def num(x: Any) -> Any:
            return None if x is None or not math.isfinite(x) else float(x)

        return {"quantity": self.quantity, "reference_value": num(self.reference_value), "value": num(self.value),
                "difference_ci": [num(v) for v in self.difference_ci], "pvalue": num(self.pvalue),
                "pvalue_adjusted": num(self.pvalue_adjusted), "method": self.method}


def newcombe_interval(x_r: float, n_r: float, x_t: float, n_t: float, level: float = 0.95) -> ConfidenceInterval:
    r"""Newcombe's hybrid score interval of the difference of two proportions
    :math:`d = p_t - p_r` (Newcombe 1998, method 10): from Wilson's intervals
    :math:`[l_r, u_r]`, :math:`[l_t, u_t]` of each proportion,

    .. math::

        \left[\, d - \sqrt{(p_t - l_t)^2 + (u_r - p_r)^2},\;
                d + \sqrt{(u_t - p_t)^2 + (p_r - l_r)^2} \,\right].

    Unlike the Wald interval it does not collapse where a count is 0 or n (a rate with no
    error still has a Wilson interval of positive width), so the interval of the difference
    of 0 / 178 and 2 / 100 errors includes 0, as Fisher's exact test (p ≈ 0.13) says.

    >>> ci = newcombe_interval(0, 178, 2, 100)
    >>> bool(ci.low < 0 < ci.high), ci.method
    (True, 'newcombe')
    """
    p_r, p_t = x_r / n_r, x_t / n_t
    (l_r, u_r), (l_t, u_t) = proportion_interval(x_r, n_r, level), proportion_interval(x_t, n_t, level)
    d = p_t - p_r
    return ConfidenceInterval(d - math.hypot(p_t - l_t, u_r - p_r), d + math.hypot(u_t - p_t, p_r - l_r),
                              float(level), "newcombe")


def _rate_test(name: str, x_r: int, n_r: int, x_t: int, n_t: int, level: float) -> ClassifierTest | None:
    if n_r == 0 or n_t == 0:
        return None
    p = float(sps.fisher_exact([[x_r, n_r - x_r], [x_t, n_t - x_t]]).pvalue)
    return ClassifierTest(name, x_r / n_r, x_t / n_t, newcombe_interval(x_r, n_r, x_t, n_t, level), min(1.0, p),
                          "Fisher's exact test")


#: the ROC AUC's permutation test replaces DeLong's where a class of a set has fewer rows (docs/monitoring.md)
PERMUTATION_BELOW = 200
#: the permutation test's cells: at most this many bins of the pooled scores
PERMUTATION_BINS = 200
#: the permutation test's least number of permutations (more when many tests share the level)
PERMUTATIONS = 1999
#: the permutation test stops at this many permutations with a statistic as far from 0 as the observed one
PERMUTATION_STOP = 20


def _common_cells(reference: ThresholdCounts, test_set: ThresholdCounts, bins: int) -> np.ndarray:
    """The (4, K) weights (reference positives, reference negatives, test positives, test
    negatives) on the distinct scores of both sets (decreasing), pooled into at most ``bins``
    bins of nearly equal class-balanced weight of the two sets together (each class's pooled
    share), so that the bins do not depend on which set a row is in."""
    parts = [per_threshold(tc) for tc in (reference, test_set)]
    v = np.unique(np.concatenate([p[0] for p in parts]))[::-1]
    cells = np.zeros((4, v.shape[0]))
    for j, (s, dp, dn) in enumerate(parts):
        at = np.searchsorted(-v, -s)
        np.add.at(cells[2 * j], at, dp)
        np.add.at(cells[2 * j + 1], at, dn)
    if v.shape[0] <= bins:
        return cells
    pos, neg = cells[0] + cells[2], cells[1] + cells[3]
    cum = np.cumsum(pos / pos.sum() + neg / neg.sum())
    edges = np.searchsorted(cum, cum[-1] * np.arange(1, bins) / bins, side="left") + 1
    return np.add.reduceat(cells, np.unique(np.r_[0, edges[edges < v.shape[0]]]), axis=1)


def _studentized_difference(cells: Any) -> np.ndarray:
    r"""DeLong's z of the AUC difference, :math:`(A_t - A_r) / \sqrt{V_r + V_t}`, from cells
    (reference positives, negatives, test positives, negatives) by decreasing score (last
    axis; leading axes broadcast): :math:`V = S^{10}/P + S^{01}/N` from the placement values,
    ties counting one half (``beyondchance.inference.delong.delong_variance_of_counts``)."""
    aucs, variances = [], []
    for pos, neg in ((cells[0], cells[1]), (cells[2], cells[3])):
        p, n = pos.sum(-1, keepdims=True), neg.sum(-1, keepdims=True)
        v10 = (n - np.cumsum(neg, -1) + 0.5 * neg) / n  # a positive's share of negatives below
        v01 = (np.cumsum(pos, -1) - 0.5 * pos) / p  # a negative's share of positives above
        auc = (pos * v10).sum(-1, keepdims=True) / p
        s10 = (pos * (v10 - auc) ** 2).sum(-1, keepdims=True) / np.maximum(p - 1, 1)
        s01 = (neg * (v01 - auc) ** 2).sum(-1, keepdims=True) / np.maximum(n - 1, 1)
        aucs.append(auc[..., 0])
        variances.append((s10 / p + s01 / n)[..., 0])
    d, se = aucs[1] - aucs[0], np.sqrt(variances[0] + variances[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(se > 0, d / se, np.where(d == 0, 0.0, np.copysign(np.inf, d)))


def auc_permutation_pvalue(reference: ThresholdCounts, test_set: ThresholdCounts, n_permutations: int,
                           rng: np.random.Generator, bins: int = PERMUTATION_BINS,
                           stop_after: int = PERMUTATION_STOP) -> float:
    r"""Two-sided p-value of the within-class permutation test of the studentized ROC AUC
    difference :math:`T = (\mathrm{AUC}_t - \mathrm{AUC}_r) / \sqrt{V_r + V_t}` (DeLong's z)
    of two independent sets of rows (unweighted).

    H0: each class's score distribution is the same in both sets.  Under H0 the rows of a
    class are exchangeable between the sets, so with the pooled cells of each class fixed,
    the test set's cells of the class are multivariate hypergeometric (its class total
    fixed); T is recomputed from the cells of each draw :math:`b`, and draws stop
    at the ``stop_after``-th (h-th) draw with :math:`|T^*_b| \ge |T|`, at draw L, or after
    B = ``n_permutations`` draws with G < h of them (Besag & Clifford 1991's sequential
    Monte Carlo p-value):

    .. math::

        p = h / L \quad\text{(stopped)}, \qquad p = \frac{1 + G}{1 + B} \quad\text{(not stopped)},

    at most the level under H0 (P(p ≤ u) ≤ u); no mid-p, which would not be.  Under H0
    it stops after about h / p draws, so all B are drawn only where p is small.  The cells
    are the distinct scores pooled into at most ``bins`` bins of the two sets together (a
    function of the pooled rows, so the test stays exact; T is computed on them).  T, not
    the raw difference, whose permutation law gives both sets the pooled spread (it lost most
    of the power with a small reference against a large changed set; docs/monitoring.md), as
    Neubert & Brunner (2007) studentize the permutation test of one AUC.

    >>> from beyondchance.measures.curves import threshold_counts
    >>> ref = threshold_counts([1, 1, 1, 0, 0, 0, 0, 0], [.9, .8, .7, .6, .5, .4, .3, .2])
    >>> new = threshold_counts([1, 1, 1, 0, 0, 0, 0, 0], [.2, .3, .4, .5, .6, .7, .8, .9])
    >>> p = auc_permutation_pvalue(ref, new, 999, np.random.default_rng(0))
    >>> bool(p < 0.05), auc_permutation_pvalue(ref, ref, 999, np.random.default_rng(0)) == 1.0
    (True, True)
    """
    cells = np.rint(_common_cells(reference, test_set, bins)).astype(np.int64)
    t = abs(float(_studentized_difference(cells))) * (1 - 1e-12)
    pooled = [cells[0] + cells[2], cells[1] + cells[3]]
    # the count method costs about the class's rows per draw, the marginals one its cells
    methods: list[Literal["count", "marginals"]] = [
        "count" if c.sum() <= 20 * c.shape[0] else "marginals" for c in pooled]
    drawn, hits, size = 0, 0, 2 * stop_after
    while drawn < n_permutations:
        size = min(size, n_permutations - drawn)
        pos, neg = (rng.multivariate_hypergeometric(c, int(cells[j + 2].sum()), size=size, method=m)
                    for j, (c, m) in enumerate(zip(pooled, methods)))
        t_star = _studentized_difference((pooled[0] - pos, pooled[1] - neg, pos, neg))
        cum = hits + np.cumsum(np.abs(t_star) >= t)
        if cum[-1] >= stop_after:
            return stop_after / (drawn + 1 + int(np.argmax(cum >= stop_after)))
        hits, drawn, size = int(cum[-1]), drawn + size, 2 * size
    return (1 + hits) / (1 + n_permutations)


def _whole_rows(s: SetStatistics) -> bool:
    """True when the set's counts are its rows (unweighted: whole numbers adding up to ``n_rows``)."""
    tc = s.counts
    return tc is not None and bool(np.all(np.r_[tc.tps, tc.fps] % 1 == 0)) and float(tc.n) == s.n_rows


def classifier_change_tests(reference: SetStatistics, test_set: SetStatistics, *, confidence_level: float = 0.95,
                            random_state: Any = 0, n_permutations: int = PERMUTATIONS) -> tuple[ClassifierTest, ...]:
    r"""Tests that the classifier is the same on both sets, on prevalence-free quantities only:
    Fisher's exact test of the false-positive and of the false-negative rate at the threshold,
    and (scores) a test of the ROC AUC.  Unadjusted p-values (see ``holm_adjust``).

    The ROC AUC's test: the within-class permutation test (``auc_permutation_pvalue``,
    ``n_permutations`` draws from ``random_state``) when a class of either set has fewer than
    ``PERMUTATION_BELOW`` rows, where the unpaired DeLong z-test
    :math:`z = d / \sqrt{V_r + V_t}` (DeLong et al. 1988; :math:`V` from the placement values)
    over-rejects (e.g. 0.084 at 5% for 20 test positives against 282; docs/monitoring.md);
    else DeLong's z-test.  Weighted counts keep DeLong's test: rows of unequal weights are
    not exchangeable between the sets.  The interval of the difference is Wald's
    :math:`d \pm z_{1-\alpha/2}\sqrt{V_r + V_t}`; where it and the permutation p-value
    disagree on whether 0 is excluded, the interval is the one the p-value implies
    (:math:`d \pm z_{1-\alpha/2}\,|d| / z_{1-p/2}`, Altman & Bland 2011), so that it
    excludes 0 exactly when :math:`p \le \alpha`."""
    tp_r, fp_r, fn_r, tn_r = _row_counts(reference)
    tp_t, fp_t, fn_t, tn_t = _row_counts(test_set)
    level = float(confidence_level)
    tests = [_rate_test("fpr", fp_r, fp_r + tn_r, fp_t, fp_t + tn_t, level),
             _rate_test("fnr", fn_r, fn_r + tp_r, fn_t, fn_t + tp_t, level)]
    auc_test = roc_auc_test(reference, test_set, level, random_state, n_permutations)
    return tuple(t for t in (*tests, auc_test) if t is not None)


def roc_auc_test(reference: SetStatistics, test_set: SetStatistics, level: float, random_state: Any,
                 n_permutations: int = PERMUTATIONS) -> ClassifierTest | None:
    """The ROC AUC's test of :func:`classifier_change_tests` with its interval of the difference
    A_test − A_reference, which is also the ROC AUC's classifier-effect interval in
    :func:`decompose` (the ROC AUC does not depend on the prevalence); None without scores."""
    if reference.counts is None or test_set.counts is None or not reference.counts.is_defined \
            or not test_set.counts.is_defined or reference.pos.shape[0] <= 2:
        return None
    z = float(sps.norm.ppf((1 + level) / 2))
    a_r, v_r = delong_variance_of_counts(reference.counts)
    a_t, v_t = delong_variance_of_counts(test_set.counts)
    # the counts are weights; the variance is that of n_rows rows
    v_r *= reference.counts.n / reference.n_rows
    v_t *= test_set.counts.n / test_set.n_rows
    se = math.sqrt(v_r + v_t)
    d = a_t - a_r
    p = float(2 * sps.norm.sf(abs(d) / se)) if se > 0 else (0.0 if d != 0 else 1.0)
    method, kind = "unpaired DeLong z-test", "wald"
    tp_r, fp_r, fn_r, tn_r = _row_counts(reference)
    tp_t, fp_t, fn_t, tn_t = _row_counts(test_set)
    if _whole_rows(reference) and _whole_rows(test_set) and min(
            tp_r + fn_r, fp_r + tn_r, tp_t + fn_t, fp_t + tn_t) < PERMUTATION_BELOW:
        p = auc_permutation_pvalue(reference.counts, test_set.counts, n_permutations,
                                   check_random_state(random_state))
        method = "within-class permutation test"
        if d != 0 and (abs(d) > z * se) != rejects(p, significance_level(level)):  # the interval p implies
            se, kind = abs(d) / max(float(sps.norm.isf(p / 2)), 1e-12), "test-based"
    ci = ConfidenceInterval(max(d - z * se, -1.0), min(d + z * se, 1.0), level, kind)
    return ClassifierTest("roc_auc", a_r, a_t, ci, p, method)


@dataclass(frozen=True)
class ClassifierChange(SummaryDisplay):
    """The test that the classifier is the same on a test set as on the reference.

    ``changed`` when one of ``tests`` (false-positive rate, false-negative rate, ROC AUC)
    rejects at α = ``1 − confidence_level`` (adjusted p ≤ α) after Holm's adjustment over every test of every
    test set compared (``beyondchance.inference.significance.holm_adjust``).
    """

    test_set: str
    tests: tuple[ClassifierTest, ...]
    changed: bool
    level: float
    n_sets: int

    def to_dict(self) -> dict[str, Any]:
        return {"test_set": self.test_set, "changed": self.changed, "significance_level": self.level,
                "test_sets_compared": self.n_sets, "tests": [t.to_dict() for t in self.tests]}

    def _summary_title(self) -> str:
        changed = [_QUANTITIES.get(t.quantity, t.quantity) for t in self.tests if rejects(t.pvalue_adjusted, self.level)]
        if changed:
            return (f"{self.test_set}: evidence that the classifier changed ({', '.join(changed)}; Holm-adjusted "
                    f"p ≤ {self.level:g}).")
        return f"{self.test_set}: no evidence that the classifier changed (every Holm-adjusted p > {self.level:g})."

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("significance level", self.level), ("test sets compared", self.n_sets)]

    def _summary_tables(self) -> list[Table]:
        rows = [[_QUANTITIES.get(t.quantity, t.quantity), f"{t.reference_value:.3f}", f"{t.value:.3f}",
                 format_interval(t.difference_ci, lambda x: f"{x:+.3f}"), f"{t.pvalue:.3g}", f"{t.pvalue_adjusted:.3g}",
                 t.method] for t in self.tests]
        return [("Tests", ["quantity", "reference", "value", "difference CI", "p", "p (Holm)", "test"], rows)]


#: the display names of the quantities of :class:`ClassifierTest`
_QUANTITIES = {"fpr": "false-positive rate", "fnr": "false-negative rate", "roc_auc": "ROC AUC"}


def bearing_on(metric: str, tests: Sequence[ClassifierTest]) -> list[ClassifierTest]:
    """The tests of ``classifier_change_tests`` whose quantity ``metric``'s classifier effect
    moves with: a metric at the threshold, the false-positive rate's test if it moves with α,
    the false-negative rate's if it moves with β (recall reads β only, specificity α only);
    a curve AUC or a loss, every test (they read the whole score distributions).

    >>> ts = [ClassifierTest(q, 0.0, 0.0, ConfidenceInterval(0, 0, 0.95, "wald"), 1.0, "") for q in ("fpr", "fnr")]
    >>> [t.quantity for t in bearing_on("recall", ts)], [t.quantity for t in bearing_on("f1", ts)]
    (['fnr'], ['fpr', 'fnr'])
    """
    if metric not in METRICS:
        return list(tests)
    moves = _rates_read(metric)
    return [t for t in tests if t.quantity in moves]


@functools.lru_cache(maxsize=None)
def _rates_read(metric: str) -> frozenset[str]:
    """The error rates ("fpr" = α, "fnr" = β) a metric at the threshold moves with (checked at a
    generic point and a step in each)."""
    f = METRICS[metric].from_rates
    with np.errstate(invalid="ignore", divide="ignore"):
        base = float(np.squeeze(f(0.3, 0.2, 0.3)))
        out = {q for q, (a, b) in (("fpr", (0.25, 0.3)), ("fnr", (0.2, 0.35)))
               if not np.isclose(float(np.squeeze(f(0.3, a, b))), base, rtol=0, atol=1e-12)}
    return frozenset(out) if math.isfinite(base) else frozenset({"fpr", "fnr"})


def compare_classifiers(reference: SetStatistics, test_sets: dict[str, SetStatistics], *,
                        confidence_level: float = 0.95, random_state: Any = 0) -> tuple[ClassifierChange, ...]:
    """``classifier_change_tests`` of each test set against ``reference``, Holm-adjusted
    over every test of every set; a set ``changed`` when one of its adjusted p-values is at
    most α = ``1 − confidence_level`` (p ≤ α, :mod:`beyondchance.inference.significance`).
    The ROC AUC's permutation tests draw from ``random_state`` (the sets in order), at least
    ``PERMUTATIONS`` permutations and enough for Holm's smallest threshold α / (3m) to
    be five times the least p-value 1 / (B + 1) (m test sets)."""
    alpha = significance_level(confidence_level)
    rng = check_random_state(random_state)
    n_permutations = max(PERMUTATIONS, math.ceil(5 * 3 * len(test_sets) / alpha) - 1)
    tested = [(name, classifier_change_tests(reference, s, confidence_level=confidence_level, random_state=rng,
                                             n_permutations=n_permutations))
              for name, s in test_sets.items()]
    adjusted = iter(holm_adjust([t.pvalue for _, ts in tested for t in ts]))
    out = []
    for name, ts in tested:
        ts = tuple(replace(t, pvalue_adjusted=float(next(adjusted))) for t in ts)
        out.append(ClassifierChange(name, ts, any(rejects(t.pvalue_adjusted, alpha) for t in ts), alpha, len(tested)))
    return tuple(out)
