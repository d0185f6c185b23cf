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
classifier effect of the ROC AUC has the interval of its classifier-change test
(:func:`~beyondchance.monitoring.classifier_change.roc_auc_test`), the PR AUC's is on the logit
scale (:mod:`beyondchance.monitoring.decomposition_intervals`): near 1 both cover.

Whether the classifier changed is tested in :mod:`beyondchance.monitoring.classifier_change`.

>>> import numpy as np
>>> from beyondchance.measures.curves import threshold_counts
>>> from beyondchance.monitoring.set_statistics import SetStatistics
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
import math
import weakref
from dataclasses import dataclass
from typing import Any, Callable, Sequence

import numpy as np

from .._summary_display import SummaryDisplay, display_name, format_interval, format_number
from .._validation import check_random_state
from ..measures.curves import auc_from_rates
from ..measures.registry import METRICS
from ..measures.binary_scores import _CURVE_OF
from ..inference.confidence_interval import ConfidenceInterval
from .classifier_change import roc_auc_test
from .decomposition_intervals import LOGIT_SCALE, _interval, bca_pvalue, logit_difference_interval
from .set_statistics import _LOSSES, SetStatistics, _pairs, _row_counts

__all__ = ["Decomposition", "decompose", "metrics_at", "bca_pvalue", "near_degenerate", "NEAR_DEGENERATE",
           "DECOMPOSABLE"]


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
#: the jackknife (BCa's acceleration) of the curve AUCs and losses pools the cells into this many bins
JACKKNIFE_BINS = 200


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
        classifier effect: DeLong's Wald interval,
        ``beyondchance.monitoring.classifier_change.roc_auc_test``)
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
                             names: Sequence[str]) -> dict[str, dict[str, list] | None]:
    """``_jackknife_of_decomposition`` of two sets' cells."""
    out: dict[str, dict[str, list] | None] = {}
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
    :func:`~beyondchance.monitoring.classifier_change.classifier_change_tests`
    (:func:`~beyondchance.monitoring.classifier_change.roc_auc_test`: DeLong's Wald interval, or the one
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


