r"""Prevalence shift or a changed classifier: the decomposition of a metric's change.

A binary classifier is characterised, free of the prevalence π, by its class-conditional
score distributions — for predicted labels by its Type-I and Type-II errors (α, β) (OPS
paper, section 2).  Every metric on a test set is a function of π and of those:

.. math::

    m_{obs} = m(\pi_t, \alpha_t, \beta_t), \qquad
    m_{exp} = m(\pi_t, \alpha_r, \beta_r)

(for scoring metrics, (α, β) are the whole ROC curve: e.g. the PR AUC at π_t from the
reference's ROC curve; for the log loss and the Brier score, the class-conditional mean
losses).  ``m_exp`` is what the *reference* classifier would score at the test set's
prevalence, so

.. math::

    m_{obs} - m_{ref} = \underbrace{(m_{exp} - m_{ref})}_{\text{prevalence effect}}
                      + \underbrace{(m_{obs} - m_{exp})}_{\text{classifier effect}}.

Intervals come from a bootstrap of both sets' sufficient statistics (the cells
(score bin, class) of each set resampled, never the rows): BCa intervals, the
acceleration from the jackknife of the cells (one row left out of each non-empty cell),
shifted onto the exact estimates as in :mod:`beyondchance.measures.binary_scores`; the
classifier effect of the ROC and PR AUCs on the logit scale, where their intervals near 1
cover (:mod:`beyondchance.monitoring.decomposition_intervals`).

Whether the classifier changed is tested on the prevalence-free quantities only:
Fisher's exact test of the false-positive rate and of the false-negative rate at the
threshold, and (scores) a test of the ROC AUC: the within-class permutation test where a
class of either set has fewer than ``PERMUTATION_BELOW`` rows (exact; Besag & Clifford
1991's sequential p-value), else the unpaired DeLong z-test (DeLong et al. 1988; variance
from the placement values).  The p-values of all the test sets are adjusted together
(Holm 1979), which bounds the family-wise error over the sets compared by the level when
each test is valid.  Measured (``benchmarks/sim_monitoring.py --parts familywise``, one
reference, six test sets, one classifier, 2,000 replicates): 0.030–0.046 at 1000 rows per
set (DeLong's test everywhere: 0.048–0.070), 0.026–0.047 at 5000; docs/monitoring.md.

>>> import numpy as np
>>> from beyondchance.measures.curves import threshold_counts
>>> from beyondchance.monitoring.decomposition import SetStatistics, decompose
>>> rng = np.random.default_rng(0)
>>> def sample(pi, n=4000):
...     y = (rng.random(n) < pi).astype(int)
...     return threshold_counts(y, np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.2, n), 0, 1))
>>> ref = SetStatistics.from_counts(sample(0.3), threshold=0.5)
>>> new = SetStatistics.from_counts(sample(0.05), threshold=0.5)
>>> d = decompose(ref, new, ["precision"], n_resamples=200, random_state=0)["precision"]
>>> bool(d.value < d.reference_value - 0.3), bool(abs(d.classifier_effect) < 0.05)
(True, True)
"""

from __future__ import annotations

import collections.abc
import functools
import math
import weakref
from dataclasses import dataclass, replace
from typing import Any, Callable, Sequence

import numpy as np
from scipy import stats as sps

from .._summary_display import SummaryDisplay, display_name, format_interval, format_number
from .._validation import check_random_state
from .._warnings import InvalidInputError
from ..measures.curves import ThresholdCounts, auc_from_rates
from ..measures.registry import METRICS
from ..inference.delong import delong_variance_of_counts
from ..measures.binary_scores import _CURVE_OF, class_loss_sums, per_threshold
from ..inference.bootstrap_resampling import _draw_counts
from ..inference.confidence_interval import ConfidenceInterval
from ..inference.significance import rejects, significance_level
from .decomposition_intervals import LOGIT_SCALE, _interval, bca_pvalue, logit_difference_interval

__all__ = ["SetStatistics", "Decomposition", "ClassifierTest", "ClassifierChange", "decompose", "roc_auc_test",
           "classifier_change_tests", "compare_classifiers", "auc_permutation_pvalue", "newcombe_interval",
           "bearing_on", "metrics_at",
           "holm_adjust", "check_reference", "bca_pvalue", "near_degenerate", "NEAR_DEGENERATE", "DECOMPOSABLE"]

#: losses decomposed through the class-conditional mean losses (scores in [0, 1])
_LOSSES = ("log_loss", "brier")


class _Decomposable(collections.abc.Sequence):
    """The names the decomposition covers: the labeling registry as it is now (a metric
    registered after this module's import included), then the curve AUCs and the losses."""

    def _names(self) -> tuple[str, ...]:
        return tuple(METRICS) + tuple(_CURVE_OF) + _LOSSES

    def __getitem__(self, i: Any) -> Any:
        return self._names()[i]

    def __len__(self) -> int:
        return len(self._names())

    def __contains__(self, name: object) -> bool:
        return name in METRICS or name in _CURVE_OF or name in _LOSSES

    def __repr__(self) -> str:
        return repr(self._names())


#: every metric the decomposition covers: the labeling registry (read on use), the curve AUCs, the losses
DECOMPOSABLE: Sequence[str] = _Decomposable()
#: at most this many cells (score bins) per class in the bootstrap
MAX_BINS = 1000
#: the jackknife (BCa's acceleration) of the curve AUCs and losses pools the cells into this many bins
JACKKNIFE_BINS = 200


@dataclass(frozen=True, eq=False)
class SetStatistics:
    """One test set's sufficient statistic for the decomposition: weights per (score bin, class).

    Attributes
    ----------
    counts : the exact :class:`~beyondchance.measures.curves.ThresholdCounts` (None for labels only)
    pos, neg : (K,) weights of positives / negatives per bin, bins by decreasing score
    n_rows : number of rows the bootstrap draws (the rows of the set)
    cut : number of leading bins predicted positive (score ≥ threshold)
    pos_loss, neg_loss : loss name -> (K,) weighted loss sums (scores in [0, 1])
    exact_rates : (tp, fp, fn, tn) at the threshold, exact
    threshold : the threshold (scores)
    bin_scores : (K, 2) highest and lowest distinct score of each bin (scores)
    """

    counts: ThresholdCounts | None
    pos: np.ndarray
    neg: np.ndarray
    n_rows: int
    cut: int
    pos_loss: dict
    neg_loss: dict
    exact_rates: tuple[float, float, float, float]
    threshold: float = float("nan")
    bin_scores: np.ndarray | None = None

    @classmethod
    def from_confusion(cls, tp: float, fp: float, fn: float, tn: float, *, n_rows: int | None = None) -> "SetStatistics":
        """Predicted labels: two bins (predicted positive, predicted negative)."""
        n = int(round(tp + fp + fn + tn)) if n_rows is None else int(n_rows)
        return cls(None, np.array([tp, fn], float), np.array([fp, tn], float), n, 1, {}, {},
                   (float(tp), float(fp), float(fn), float(tn)))

    @classmethod
    def from_counts(cls, tc: ThresholdCounts, *, threshold: float, n_rows: int | None = None,
                    max_bins: int = MAX_BINS) -> "SetStatistics":
        """Scores: adjacent distinct scores pooled into at most ``max_bins`` bins of nearly
        equal weight, with a bin edge at the threshold (so the labels at the threshold are exact)."""
        v, dp, dn = per_threshold(tc)
        k = v.shape[0]
        cut_exact = int(np.searchsorted(-v, -threshold, side="right"))  # scores >= threshold
        if k <= max_bins:
            starts = np.arange(k)
            cut = cut_exact
        else:
            cum = np.cumsum(dp + dn)
            edges = np.searchsorted(cum, cum[-1] * np.arange(1, max_bins) / max_bins, side="left") + 1
            starts = np.unique(np.r_[0, edges[edges < k], [cut_exact] if 0 < cut_exact < k else []]).astype(int)
            cut = int(np.searchsorted(starts, cut_exact))

        def pool(x: np.ndarray) -> np.ndarray:
            return np.add.reduceat(x, starts) if k > max_bins else np.asarray(x, float).copy()

        pos_loss, neg_loss = {}, {}
        if v.size and v.min() >= 0 and v.max() <= 1:
            for loss, (lp, ln) in class_loss_sums((v, dp, dn), _LOSSES, starts).items():
                pos_loss[loss], neg_loss[loss] = lp, ln
        tp, fp = float(dp[:cut_exact].sum()), float(dn[:cut_exact].sum())
        n = int(round(tc.n)) if n_rows is None else int(n_rows)
        ends = np.r_[starts[1:], k] - 1
        return cls(tc, pool(dp), pool(dn), n, cut, pos_loss, neg_loss, (tp, fp, tc.n_pos - tp, tc.n_neg - fp),
                   float(threshold), np.column_stack([v[starts], v[ends]]))

    @property
    def prevalence(self) -> float:
        p, n = self.pos.sum(), self.neg.sum()
        return float(p / (p + n))

    def resample(self, n_resamples: int, rng: np.random.Generator) -> "SetStatistics":
        """A stack of bootstrap replicates (arrays (B, K)): ``n_rows`` rows drawn from the
        non-empty cells (the row bootstrap; with weights, every row carries the mean weight)."""
        w = np.concatenate([self.pos, self.neg])
        total = w.sum()
        cells = np.flatnonzero(w > 0)
        rows = w[cells] * (self.n_rows / total)
        draws = np.zeros((n_resamples, w.shape[0]))
        if np.array_equal(rows, np.round(rows)):  # rows per cell: draw row indices or a multinomial
            draws[:, cells] = _draw_counts(rng, np.round(rows).astype(np.int64), self.n_rows, n_resamples)
        else:
            draws[:, cells] = rng.multinomial(self.n_rows, w[cells] / total, size=n_resamples)
        draws *= total / self.n_rows
        k = self.pos.shape[0]
        return self._with_cells(draws[:, :k], draws[:, k:])

    def _with_cells(self, pos: np.ndarray, neg: np.ndarray) -> "SetStatistics":
        """A stack (arrays (B, K)) of this set's cells with new weights; each cell's loss sum
        keeps the cell's mean loss."""
        k = self.pos.shape[0]
        scale_p = np.divide(1.0, self.pos, out=np.zeros(k), where=self.pos > 0)
        scale_n = np.divide(1.0, self.neg, out=np.zeros(k), where=self.neg > 0)
        return SetStatistics(None, pos, neg, self.n_rows, self.cut,
                             {m: pos * (s * scale_p) for m, s in self.pos_loss.items()},
                             {m: neg * (s * scale_n) for m, s in self.neg_loss.items()}, (np.nan,) * 4)

    def pooled(self, starts: Any) -> "SetStatistics":
        """The set with adjacent bins pooled into groups beginning at ``starts`` (sorted, from
        0); the threshold falls on a group boundary when one of ``starts`` is ``cut``."""
        starts = np.asarray(starts, dtype=np.intp)
        return SetStatistics(None, np.add.reduceat(self.pos, starts), np.add.reduceat(self.neg, starts),
                             self.n_rows, int(np.searchsorted(starts, self.cut)),
                             {m: np.add.reduceat(x, starts) for m, x in self.pos_loss.items()},
                             {m: np.add.reduceat(x, starts) for m, x in self.neg_loss.items()}, self.exact_rates,
                             self.threshold)

    def coarse_starts(self, bins: int) -> np.ndarray:
        """Starts of at most ``bins`` groups of adjacent bins of nearly equal weight, one of
        them at the threshold (``bins=2``: predicted positive / negative)."""
        k = self.pos.shape[0]
        if k <= bins:
            return np.arange(k)
        cum = np.cumsum(self.pos + self.neg)
        edges = np.searchsorted(cum, cum[-1] * np.arange(1, bins - 1) / (bins - 1), side="left") + 1
        cut = [self.cut] if 0 < self.cut < k else []
        return np.unique(np.r_[0, edges[edges < k], cut]).astype(np.intp)

    def coarse(self, bins: int) -> "SetStatistics":
        """:meth:`pooled` into the groups of :meth:`coarse_starts`."""
        return self if self.pos.shape[0] <= bins else self.pooled(self.coarse_starts(bins))

    def leave_one_out(self) -> tuple["SetStatistics", np.ndarray]:
        """The jackknife from the cells: a stack (J, K) with one row left out of each of the J
        non-empty cells, and each cell's number of rows (the multiplicity of its value)."""
        stack, rows = _leave_one_out_cells(np.concatenate([self.pos, self.neg]), self.n_rows)
        k = self.pos.shape[0]
        return self._with_cells(stack[:, :k], stack[:, k:]), rows

    @functools.cached_property
    def roc(self) -> tuple[np.ndarray, np.ndarray]:
        """ROC rates (α, β) by decreasing score with both end points, shape (B, K + 1)."""
        pos, neg = np.atleast_2d(self.pos), np.atleast_2d(self.neg)
        b, k = pos.shape
        tps = np.zeros((b, k + 1))
        fps = np.zeros((b, k + 1))
        np.cumsum(pos, axis=1, out=tps[:, 1:])
        np.cumsum(neg, axis=1, out=fps[:, 1:])
        with np.errstate(invalid="ignore", divide="ignore"):
            return fps / fps[:, -1:], 1 - tps / tps[:, -1:]


def _leave_one_out_cells(w: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The jackknife of ``n_rows`` rows in cells of weights ``w`` (C,): a stack (J, C), one row
    (the mean weight) left out of each of the J non-empty cells, and their numbers of rows."""
    cells = np.flatnonzero(w > 0)
    row = w.sum() / n_rows
    stack = np.broadcast_to(w, (cells.shape[0], w.shape[0])).copy()
    stack[np.arange(cells.shape[0]), cells] -= np.minimum(row, w[cells])
    return stack, w[cells] / row


def _rates(s: SetStatistics) -> tuple[Any, Any, Any]:
    """(π, α, β) at the threshold, along the last axis of the cells."""
    P, N = s.pos.sum(-1), s.neg.sum(-1)
    tp, fp = s.pos[..., : s.cut].sum(-1), s.neg[..., : s.cut].sum(-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return P / (P + N), fp / N, 1 - tp / P


def metrics_at(s: SetStatistics, prevalence: Any, names: Sequence[str]) -> dict[str, Any]:
    """metric -> the value of ``s``'s classifier (its (α, β) at the threshold, its ROC curve, its
    class-conditional mean losses) at ``prevalence``; along the first axis of a stack of cells.

    At the set's own prevalence this is the set's own value (OPS paper, section 2:
    TP = π(1 − β), FP = (1 − π)α, ...).
    """
    out: dict[str, Any] = {}
    pi = np.asarray(prevalence, dtype=np.float64)
    _, a, b = _rates(s)
    with np.errstate(invalid="ignore", divide="ignore"):  # undefined values (π = 0 ...) come back nan
        for name in names:
            if name in METRICS:
                out[name] = METRICS[name].from_rates(pi, a, b)
            elif name in _CURVE_OF:
                roc = s.roc
                kind, method = _CURVE_OF[name]
                out[name] = auc_from_rates(*roc, np.atleast_1d(pi), curve=kind, method=method, validate=False)
            elif name in _LOSSES and name in s.pos_loss:
                out[name] = (pi * s.pos_loss[name].sum(-1) / s.pos.sum(-1)
                             + (1 - pi) * s.neg_loss[name].sum(-1) / s.neg.sum(-1))
    return out


def _values(ref: SetStatistics, new: SetStatistics, names: Sequence[str]) -> dict[str, tuple[Any, Any]]:
    """metric -> (observed on ``new``, expected of ``ref``'s classifier at ``new``'s prevalence)."""
    pi_t = _rates(new)[0]
    obs, exp = metrics_at(new, pi_t, names), metrics_at(ref, pi_t, names)
    return {m: (obs[m], exp[m]) for m in obs if m in exp}


@dataclass(frozen=True)
class Decomposition(SummaryDisplay):
    r"""How one metric moved from the reference set to a test set, split in two.

    ``value − reference_value = prevalence_effect + classifier_effect`` where
    ``prevalence_effect = expected_value − reference_value`` and ``expected_value`` is what
    the reference classifier (its (α, β), or its ROC curve) scores at this set's prevalence.

    Attributes
    ----------
    metric : the metric's name
    value, reference_value : on the test set and on the reference set
    expected_value, expected_ci : the reference classifier at this prevalence, and its interval
    prevalence_effect, prevalence_effect_ci
    classifier_effect, classifier_effect_ci : the rest, and its interval (each interval a
        :class:`~beyondchance.ConfidenceInterval`, BCa or percentile, or None; the ROC AUC's
        classifier effect: DeLong's Wald interval, :func:`roc_auc_test`)
    confidence_level, n_resamples
    classifier_effect_pvalue : where computed, the two-sided p-value of "the classifier
        effect is 0" that inverts its interval (``beyondchance.monitoring.decomposition.bca_pvalue``); nan elsewhere
    """

    metric: str
    value: float
    reference_value: float
    expected_value: float
    expected_ci: ConfidenceInterval | None
    prevalence_effect: float
    prevalence_effect_ci: ConfidenceInterval | None
    classifier_effect: float
    classifier_effect_ci: ConfidenceInterval | None
    confidence_level: float
    n_resamples: int
    classifier_effect_pvalue: float = float("nan")

    def to_dict(self) -> dict[str, Any]:
        def num(x: Any) -> Any:
            return None if x is None or not math.isfinite(x) else float(x)

        def pair(ci: Any) -> Any:
            return None if ci is None else [num(ci[0]), num(ci[1])]

        return {
            "metric": self.metric,
            "value": num(self.value),
            "reference_value": num(self.reference_value),
            "expected_value": num(self.expected_value),
            "expected_ci": pair(self.expected_ci),
            "prevalence_effect": num(self.prevalence_effect),
            "prevalence_effect_ci": pair(self.prevalence_effect_ci),
            "classifier_effect": num(self.classifier_effect),
            "classifier_effect_ci": pair(self.classifier_effect_ci),
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
        }

    def _summary_title(self) -> str:
        return (f"{display_name(self.metric)} moved from {format_number(self.reference_value)} to "
                f"{format_number(self.value)}: prevalence effect {self.prevalence_effect:+.3f}, classifier effect "
                f"{self.classifier_effect:+.3f}")

    def _summary_rows(self) -> list[tuple[str, Any]]:
        level = f"{self.confidence_level:.0%}"
        rows = [("value", self.value), ("reference value", self.reference_value),
                ("expected value", f"{format_number(self.expected_value)} ({level} CI "
                                   f"{format_interval(self.expected_ci)})"),
                ("prevalence effect", f"{format_number(self.prevalence_effect)} ({level} CI "
                                      f"{format_interval(self.prevalence_effect_ci)})"),
                ("classifier effect", f"{format_number(self.classifier_effect)} ({level} CI "
                                      f"{format_interval(self.classifier_effect_ci)})")]
        if math.isfinite(self.classifier_effect_pvalue):
            rows.append(("classifier effect: p", self.classifier_effect_pvalue))
        return rows + [("resamples", self.n_resamples)]


def _exact(s: SetStatistics) -> SetStatistics:
    """The set with one bin per distinct score (exact point estimates)."""
    if s.counts is None or s.counts.thresholds.shape[0] == s.pos.shape[0]:
        return s
    return SetStatistics.from_counts(s.counts, threshold=s.threshold, n_rows=s.n_rows,
                                     max_bins=s.counts.thresholds.shape[0])


#: reference -> {(n_resamples, seed): its replicates}; an entry lives as long as its reference
_REFERENCE_DRAWS: "weakref.WeakKeyDictionary[SetStatistics, dict]" = weakref.WeakKeyDictionary()


def _reference_draws(reference: SetStatistics, n_resamples: int, seed: int) -> tuple[SetStatistics, dict, dict]:
    """The reference's replicates from ``seed`` (drawn first), the generator's state after
    them, and a memo of the replicates' own metric values: shared by every test set compared
    to the same reference with the same seed (one joint draw of the reference)."""
    memo = _REFERENCE_DRAWS.setdefault(reference, {})
    if (n_resamples, seed) not in memo:
        memo.clear()  # one set of replicates per reference
        rng = check_random_state(seed)
        memo[n_resamples, seed] = (reference.resample(n_resamples, rng), rng.bit_generator.state, {})
    return memo[n_resamples, seed]


def _jackknife_of_decomposition(ref: Any, new: Any, names: Sequence[str], at: Callable[..., dict[str, Any]],
                               prevalence: Callable[[Any], Any]) -> dict[str, dict[str, list]]:
    """metric -> {"exp", "clf", "prev"} -> [(values, multiplicities) over the reference's
    cells, (...) over the test set's cells]: the jackknife of each sample, the other fixed.

    ``ref`` and ``new`` have ``leave_one_out()``; ``at(s, prevalence, names)`` is the metrics
    of ``s``'s classifier at a prevalence (or class distribution), ``prevalence(s)`` the set's
    own — two classes here, several in :mod:`beyondchance.monitoring.decomposition_multiclass`."""
    pi_t = prevalence(new)
    obs, own = at(new, pi_t, names), at(ref, prevalence(ref), names)
    r_jk, w_r = ref.leave_one_out()
    exp_r, own_r = at(r_jk, pi_t, names), at(r_jk, prevalence(r_jk), names)
    t_jk, w_t = new.leave_one_out()
    pi_jk = prevalence(t_jk)
    obs_t, exp_t = at(t_jk, pi_jk, names), at(ref, pi_jk, names)
    return {m: {"exp": [(exp_r[m], w_r), (exp_t[m], w_t)],
                "clf": [(obs[m] - exp_r[m], w_r), (obs_t[m] - exp_t[m], w_t)],
                "prev": [(exp_r[m] - own_r[m], w_r), (exp_t[m] - own[m], w_t)]} for m in names}


#: a set whose smaller count of a rate at the threshold (errors or correct, of either class) is below
#: this is near-degenerate: its rates are drawn by a Jeffreys-smoothed bootstrap (:func:`_jeffreys_draws`)
NEAR_DEGENERATE = 10


def near_degenerate(*sets: SetStatistics) -> bool:
    """Whether a set's error rate at the threshold is 0, 1 or a few errors (or correct
    decisions) from 0: fewer than :data:`NEAR_DEGENERATE` rows in a cell (tp, fp, fn, tn)."""
    return any(min(_row_counts(s)) < NEAR_DEGENERATE for s in sets)


def _jeffreys_draws(s: SetStatistics, boot: SetStatistics, rng: np.random.Generator) -> SetStatistics:
    r"""Replicates (arrays (B, 2)) of ``s``'s cells at the threshold, a Jeffreys-smoothed
    bootstrap: each replicate's class totals (in rows, :math:`P^*`, :math:`N^*`) from the
    bootstrap replicates ``boot``, its errors drawn from binomials at the Jeffreys-smoothed
    rates (the means of the rates' Jeffreys posteriors),

    .. math::

        FP^* \sim \mathrm{Bin}\!\left(N^*, \tfrac{FP + 1/2}{FP + TN + 1}\right), \qquad
        FN^* \sim \mathrm{Bin}\!\left(P^*, \tfrac{FN + 1/2}{FN + TP + 1}\right).

    A bootstrap of a cell with no row never draws one: with 0 errors of 178 every replicate
    has β* = 0, the reference's rate looks exact, and the interval of a rate-driven metric's
    classifier effect excludes 0 as soon as the test set has an error (even 1 of 30, where
    Fisher's exact test gives p = 0.14).  Half an error added to each cell (Jeffreys' prior;
    Agresti & Caffo 2000 add one for the interval of a difference of proportions) gives a
    zero count its binomial spread, so such an interval includes 0; far from 0 the draws are
    the ordinary bootstrap's.  The draws' own posterior (β* ~ Beta(FN + ½, TP + ½)) was
    rejected: at 0 errors against 1 it is too narrow near 0, and the interval of the
    difference excluded 0 in 5.1% of windows with no change (the study in docs/monitoring.md)."""
    tp, fp, fn, tn = _row_counts(s)
    scale = s.n_rows / (s.pos.sum() + s.neg.sum())
    n_pos, n_neg = boot.pos.sum(-1), boot.neg.sum(-1)
    rows_pos, rows_neg = np.round(n_pos * scale).astype(np.int64), np.round(n_neg * scale).astype(np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):  # a class with no row: its rate is nan
        beta = rng.binomial(rows_pos, (fn + 0.5) / (fn + tp + 1)) / rows_pos
        alpha = rng.binomial(rows_neg, (fp + 0.5) / (fp + tn + 1)) / rows_neg
    return SetStatistics(None, np.column_stack([n_pos * (1 - beta), n_pos * beta]),
                         np.column_stack([n_neg * alpha, n_neg * (1 - alpha)]), s.n_rows, 1, {}, {},
                         (np.nan,) * 4)


def _decomposition_jackknife(reference: SetStatistics, test_set: SetStatistics,
                             names: Sequence[str]) -> dict[str, dict[str, list]]:
    """``_jackknife_of_decomposition`` of two sets' cells."""
    out: dict[str, dict[str, list]] = {}
    # the metrics at the threshold read (α, β) only: two bins per class are exact
    at_threshold = [m for m in names if m in METRICS]
    for group, bins in ((at_threshold, 2), ([m for m in names if m not in at_threshold], JACKKNIFE_BINS)):
        if group:
            out.update(_jackknife_of_decomposition(reference.coarse(bins), test_set.coarse(bins), group, metrics_at,
                                                  lambda s: _rates(s)[0]))
    return out


def decompose(
    reference: SetStatistics,
    test_set: SetStatistics,
    metrics: Sequence[str],
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    random_state: Any = 0,
) -> dict[str, Decomposition]:
    r"""Split each metric's change from ``reference`` to ``test_set`` into the prevalence
    effect and the classifier effect, with bootstrap intervals (both sets resampled).

    Intervals are BCa (Efron & Tibshirani 1993, ch. 14.3): percentiles of the bootstrap
    distribution at levels :math:`\Phi(\hat z_0 + (\hat z_0 + z)/(1 - \hat a(\hat z_0 + z)))`,
    :math:`\hat z_0` from the share of resamples below the estimate, the acceleration
    :math:`\hat a` from the jackknife of both sets' cells (one row left out of each
    non-empty cell, counted with the cell's rows; the scoring metrics' cells pooled into
    :data:`JACKKNIFE_BINS` bins).  With an integer ``random_state`` the reference's
    replicates are drawn first and are the same for every test set compared to it.

    Near-degenerate error rates (:func:`near_degenerate`: a cell tp, fp, fn or tn of either
    set with fewer than :data:`NEAR_DEGENERATE` rows — a rate with 0, 1 or a few errors):
    the bootstrap of a cell with no row has no variance, so for the metrics at the threshold
    the replicates' errors are drawn at the Jeffreys-smoothed rates (x + ½) / (n + 1) instead
    (:func:`_jeffreys_draws`; class totals still from the bootstrap) and the intervals are the
    percentiles of those draws: the interval of such a metric's classifier effect then holds
    the reference's binomial uncertainty and includes 0 when the data are consistent with
    no change.

    The ROC AUC's classifier effect is :math:`A_{test} - A_{reference}` (the ROC AUC does not
    depend on the prevalence): its interval is the one of the ROC AUC's test of
    :func:`classifier_change_tests` (:func:`roc_auc_test`: DeLong's Wald interval, or the one
    the within-class permutation test implies), so the two never disagree.  The PR AUC's is
    the BCa interval of :math:`\operatorname{logit} A_{obs} - \operatorname{logit} A_{exp}`,
    carried back to the difference scale at the expected value
    (:func:`~beyondchance.monitoring.decomposition_intervals.logit_difference_interval`, method
    ``"bca-logit"``).  Near an AUC of 1 the difference's own BCa interval held 0 in only
    0.815–0.943 of windows with no change; the ROC AUC's Wald interval 0.97–1.00, the PR AUC's
    logit interval 0.93–0.98 (docs/monitoring.md).

    >>> from beyondchance.measures.curves import threshold_counts
    >>> rng = np.random.default_rng(0)
    >>> def near_one(n=1000):  # binormal scores 4.58 apart: a ROC AUC of 0.9994
    ...     y = (rng.random(n) < 0.2).astype(int)
    ...     return SetStatistics.from_counts(threshold_counts(y, rng.normal(0, 1, n) + 4.58 * y), threshold=2.29)
    >>> ci = decompose(near_one(), near_one(), ["roc_auc"], n_resamples=200)["roc_auc"].classifier_effect_ci
    >>> ci.method, bool(ci.low < 0 < ci.high)
    ('wald', True)

    Parameters
    ----------
    reference, test_set : :class:`SetStatistics`
    metrics : names among :data:`DECOMPOSABLE` (others are skipped)
    confidence_level, n_resamples, random_state : the bootstrap (``n_resamples=0``: no intervals)

    Returns
    -------
    dict metric -> :class:`Decomposition`
    """
    names = [m for m in metrics if m in DECOMPOSABLE]
    ref_x, new_x = _exact(reference), _exact(test_set)
    exact = _values(ref_x, new_x, names)
    ref_exact = _values(ref_x, ref_x, names)
    binned = _values(reference, test_set, names)
    ref_binned = _values(reference, reference, names)
    boot: dict[str, tuple] = {}
    if n_resamples:
        if isinstance(random_state, (int, np.integer)) and not isinstance(random_state, (bool, np.bool_)):
            check_random_state(random_state)  # refuses a negative seed
            r_star, state, own = _reference_draws(reference, int(n_resamples), int(random_state))
            rng = np.random.Generator(np.random.PCG64())
            rng.bit_generator.state = state
        else:
            rng = check_random_state(random_state)
            r_star, own = reference.resample(n_resamples, rng), {}
        t_star = test_set.resample(n_resamples, rng)
        obs_star = _values(r_star, t_star, names)
        missing = [m for m in names if m not in own]
        if missing:
            own.update(metrics_at(r_star, _rates(r_star)[0], missing))
        boot = {m: (obs_star[m][0], obs_star[m][1], own[m]) for m in obs_star}
        jack = _decomposition_jackknife(reference, test_set, list(boot))
        at_threshold = [m for m in boot if m in METRICS]
        if at_threshold and near_degenerate(reference, test_set):
            # the metrics at the threshold: a Jeffreys-smoothed bootstrap of the rates, percentile intervals
            r_j, t_j = _jeffreys_draws(reference, r_star, rng), _jeffreys_draws(test_set, t_star, rng)
            pi_star = _rates(t_j)[0]
            obs_j, exp_j = metrics_at(t_j, pi_star, at_threshold), metrics_at(r_j, pi_star, at_threshold)
            own_j = metrics_at(r_j, _rates(r_j)[0], at_threshold)
            boot.update({m: (obs_j[m], exp_j[m], own_j[m]) for m in at_threshold})
            jack.update({m: None for m in at_threshold})
    out = {}
    for m in exact:
        value, expected = (float(np.squeeze(x)) for x in exact[m])
        ref_value = float(np.squeeze(ref_exact[m][0]))
        ci = {}
        if m in boot:
            obs_b, exp_b, ref_b = (np.asarray(x, float).reshape(-1) for x in boot[m])
            bv, be = (float(np.squeeze(x)) for x in binned[m])
            br = float(np.squeeze(ref_binned[m][0]))
            jk = jack[m] or {}  # None: Jeffreys draws, percentile intervals
            ci = {
                "exp": _interval(expected, be, exp_b, confidence_level, jk.get("exp")),
                "prev": _interval(expected - ref_value, be - br, exp_b - ref_b, confidence_level, jk.get("prev")),
                "clf": _interval(value - expected, bv - be, obs_b - exp_b, confidence_level, jk.get("clf")),
            }
            auc_test = roc_auc_test(reference, test_set, float(confidence_level), random_state) \
                if m == "roc_auc" else None
            if auc_test is not None:  # near 1 the bootstrap's intervals undercover: DeLong's, as the test's
                ci["clf"] = auc_test.difference_ci
            elif m in LOGIT_SCALE:  # likewise: on the logit scale
                ci["clf"] = logit_difference_interval(value, expected, bv, be, obs_b, exp_b, confidence_level,
                                                      jack[m], (_pairs(reference), _pairs(test_set)))
        out[m] = Decomposition(
            m, value, ref_value, expected, ci.get("exp"), expected - ref_value, ci.get("prev"),
            value - expected, ci.get("clf"), float(confidence_level), int(n_resamples),
        )
    return out


# ==========================================================================================
# Tests of "the classifier changed"
# ==========================================================================================


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


def _row_counts(s: SetStatistics) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) in rows (weighted counts rescaled to the number of rows)."""
    tp, fp, fn, tn = s.exact_rates
    scale = s.n_rows / (tp + fp + fn + tn)
    return tuple(int(round(x * scale)) for x in (tp, fp, fn, tn))  # type: ignore[return-value]


def _pairs(s: SetStatistics) -> float:
    """P·N: the set's pairs of a positive and a negative row."""
    tp, fp, fn, tn = _row_counts(s)
    return float((tp + fn) * (fp + tn))


def _wilson(x: float, n: float, z: float) -> tuple[float, float]:
    """Wilson's score interval of a proportion x / n (Wilson 1927)."""
    p = x / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return max(0.0, centre - half), min(1.0, centre + half)


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
    z = float(sps.norm.ppf((1 + level) / 2))
    p_r, p_t = x_r / n_r, x_t / n_t
    (l_r, u_r), (l_t, u_t) = _wilson(x_r, n_r, z), _wilson(x_t, n_t, z)
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
    methods = ["count" if c.sum() <= 20 * c.shape[0] else "marginals" for c in pooled]
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
    test set compared (``beyondchance.monitoring.decomposition.holm_adjust``).
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

    def _summary_tables(self) -> list[tuple[str, list[str], list[list[str]]]]:
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


def holm_adjust(pvalues: Sequence[float]) -> np.ndarray:
    """Holm's step-down adjusted p-values (Holm 1979): reject where adjusted ≤ level; the
    family-wise error rate is at most the level for any dependence between the tests.

    >>> holm_adjust([0.01, 0.04, 0.03]).round(2).tolist()
    [0.03, 0.06, 0.06]
    """
    p = np.asarray(pvalues, dtype=np.float64)
    m = p.size
    if m == 0:
        return p
    order = np.argsort(p)
    adj = np.maximum.accumulate((m - np.arange(m)) * p[order])
    out = np.empty(m)
    out[order] = np.minimum(adj, 1.0)
    return out


def check_reference(reference: SetStatistics, name: str = "the reference set") -> None:
    """Refuse a reference without both classes: its (α, β) are undefined."""
    if not (reference.pos.sum() > 0 and reference.neg.sum() > 0):
        raise InvalidInputError(f"{name} holds a single class: its error rates (α, β) are undefined, so it cannot "
                                "tell a prevalence shift from a changed classifier; choose a reference with both classes")
