r"""Is the predictor better than the trivial one? The permutation test, from the statistics.

The null hypothesis "the predictions carry no information about the labels" is the
permutation null of the test set: every assignment of the observed predictions to the
observed labels is equally likely.  Its distribution is a function of the sufficient
statistics, so no rows are shuffled:

* **labels** (binary): with the margins fixed — n rows, P positives, Q predicted
  positives — a permutation changes only the true-positive count, which is
  hypergeometric, :math:`TP \sim \mathrm{Hypergeom}(n, P, Q)`; every other cell follows
  (FP = Q − TP, FN = P − TP, TN = n − P − Q + TP).  The exact p-value is a sum over at
  most min(P, Q) + 1 values, for every n.
* **scores**: rows sharing a score form a cell of :math:`c_k` rows; a permutation draws
  the positives of each cell from a multivariate hypergeometric distribution,
  :math:`P(x) = \prod_k \binom{c_k}{x_k} / \binom{n}{P}`.  Exact by enumerating the
  vectors x (when :math:`\binom{n}{P}` ≤ ``max_exact``), else Monte Carlo over
  ``n_resamples`` draws (numpy's ``multivariate_hypergeometric``) with p-value
  (1 + #{M* at least as good}) / (B + 1) and its standard error.
* **accuracy and the prediction advantage (0/1 loss) against the best constant**, the exact
  binomial forms.  ``method="mcnemar"``: the model against the best constant (always the
  majority class; PA paper, section 2.4) on the same rows — McNemar's exact test, the
  rows where they differ split Binomial(m, 1/2) under "no better than the constant": with
  a negative majority, TP (model right, constant wrong) against FP (model wrong,
  constant right), :math:`p = P(\mathrm{Binom}(TP + FP, 1/2) \ge TP)`; PA > 0 exactly
  when TP > FP.  ``method="binomial"``: caret's ``confusionMatrix`` test, correct
  predictions against :math:`\mathrm{Binomial}(n, \max(\hat\pi, 1 - \hat\pi))`, the
  no-information rate taken as known although it is estimated from the same labels: at
  the boundary of the null its rejection rate at 5% was 0.1110 (n = 300,
  benchmarks/sim_tests.py), so the report uses McNemar's form.

The one-sided p-value is :math:`P(M^* \ge M_{obs})` (≤ for losses).  The null
distribution's mean is the *chance value* of the measure on this test set: for the
average precision with few positives it lies well above the prevalence (a random
ranker's AP is not π at small P).

Weights: whole-number weights are frequencies (a row of weight w counts as w rows);
other non-negative weights travel with their row's label, and the rows are permuted
(``beyondchance.inference.permutation.rows``, ``beyondchance.inference.permutation.clt``).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import Any, Literal

import numpy as np
from scipy import special as _special
from scipy import stats as _sps

from ..._validation import (
    as_1d,
    as_float,
    as_float_1d,
    binary_target,
    check_consistent_length,
    check_label_pair,
    check_sample_weight,
    check_option,
    check_positive_int,
    check_random_state,
)
from ..._warnings import InvalidInputError
from ...measures.curves import ThresholdCounts, threshold_counts
from ...measures.confusion import CELL_METRICS, MatrixTotals, metric_from_matrices, metric_from_totals
from ...measures.registry import METRICS, get_metric
from ...measures.binary_scores import ScoreCells, bin_loss_terms, loss_terms
from .result import PermutationTestResult, _exact_pvalues, _monte_carlo, _result

__all__ = ["PermutationTestResult", "permutation_test", "permutation_test_of_counts", "permutation_test_of_scores",
           "permutation_tests_of_scores", "permutation_test_of_matrix",
           "permutation_tests_of_matrix", "SCORE_MEASURES", "permutation_null_of_counts", "mcnemar_exact"]

#: measures of scores the permutation test knows (besides every labeling metric of ``METRICS``)
SCORE_MEASURES = ("roc_auc", "pr_auc", "lift_auc", "log_loss", "brier")
_LOSSES = ("log_loss", "brier")
_METHODS: tuple[Literal["auto", "exact", "monte-carlo", "mcnemar", "binomial", "clt"], ...] = (
    "auto", "exact", "monte-carlo", "mcnemar", "binomial", "clt")
#: the CLT of weighted scores: one cell per distinct score up to this many, else CLT_SCORE_BINS bins
CLT_SCORE_CELLS = 1000
CLT_SCORE_BINS = 200
#: the measures the tests against the constant (``"mcnemar"``, ``"binomial"``) apply to
_AGAINST_CONSTANT = ("accuracy", "prediction_advantage")


def _log_comb(a: Any, b: Any) -> Any:
    return _special.gammaln(np.add(a, 1)) - _special.gammaln(np.add(b, 1)) - _special.gammaln(np.subtract(a, b) + 1)


def _support(lo: int, hi: int, mean: float, draws: int) -> np.ndarray:
    """The integers of [lo, hi] within 20·√draws + 1 of the mean: beyond, a hypergeometric or
    binomial law of ``draws`` draws has mass below exp(−800) (Hoeffding 1963, which holds for
    sampling without replacement), which is 0 in float64 — the exact law as computed."""
    t = 20.0 * math.sqrt(max(draws, 0)) + 1.0
    return np.arange(max(lo, math.floor(mean - t)), min(hi, math.ceil(mean + t)) + 1)


@functools.lru_cache(maxsize=8)
def _tp_null(n: int, n_pos: int, n_pred: int) -> tuple[np.ndarray, np.ndarray]:
    """(TP, P(TP)) of the permutation null given the margins, on its representable support
    (one law for every labeling metric of a report)."""
    tp = _support(max(0, n_pos + n_pred - n), min(n_pos, n_pred), n_pos * n_pred / n if n else 0.0,
                  min(n_pos, n_pred))
    prob = _hypergeom_pmf(tp, n, n_pos, n_pred)
    tp.setflags(write=False)
    prob.setflags(write=False)
    return tp, prob


def _hypergeom_pmf(k: np.ndarray, n: int, n_pos: int, n_pred: int) -> np.ndarray:
    """P(TP = k) = C(P, k) C(n − P, Q − k) / C(n, Q), in log space (scipy's pmf is slow for large n)."""
    return np.exp(_log_comb(n_pos, k) + _log_comb(n - n_pos, n_pred - k) - _log_comb(n, n_pred))


def permutation_null_of_counts(measure: str, n: int, n_pos: int, n_pred: int) -> tuple[np.ndarray, np.ndarray]:
    """The exact permutation null of a labeling metric: (values, probabilities) over TP.

    >>> v, p = permutation_null_of_counts("accuracy", 10, 4, 5)
    >>> v.tolist()[:2], round(float(p.sum()), 12)
    ([0.1, 0.3], 1.0)
    """
    tp, prob = _tp_null(int(n), int(n_pos), int(n_pred))
    fp, fn = n_pred - tp, n_pos - tp
    tn = n - n_pos - n_pred + tp
    with np.errstate(all="ignore"):
        values = np.asarray(get_metric(measure).compute(tp, fp, fn, tn), dtype=np.float64) * np.ones(tp.shape)
    return values, prob


def _compositions(c: np.ndarray, total: int, limit: int) -> np.ndarray:
    """Every vector x with 0 ≤ x_k ≤ c_k and Σ x = total (rows), built cell by cell.

    Each step keeps, per partial vector that can still reach ``total``, its last entry and
    the index of its prefix; the rows are read back once at the end, so the work is
    O(rows · cells) (copying the prefixes at every step was O(rows · cells²)).

    >>> _compositions(np.array([1, 2, 1]), 2, 100).tolist()
    [[0, 1, 1], [0, 2, 0], [1, 0, 1], [1, 1, 0]]
    """
    c = np.asarray(c, dtype=np.int64)
    sums = np.zeros(1, dtype=np.int64)
    after = np.r_[np.cumsum(c[::-1])[::-1][1:], 0]  # capacity of the cells after k
    prefixes, entries = [], []
    for k, ck in enumerate(c):
        x = np.arange(ck + 1)
        new_sums = sums[:, None] + x[None, :]
        ok = (new_sums <= total) & (new_sums + after[k] >= total)
        rows, cols = np.nonzero(ok)
        if rows.size > limit:
            raise InvalidInputError(f"too many permutation classes to enumerate (more than {limit})")
        prefixes.append(rows)
        entries.append(x[cols])
        sums = new_sums[rows, cols]
    states = np.empty((sums.size, c.size), dtype=np.int64)
    at = np.arange(sums.size)
    for k in range(c.size - 1, -1, -1):
        states[:, k] = entries[k][at]
        at = prefixes[k][at]
    return states


def permutation_test(
    measure: str,
    y_true: Any,
    y_score: Any = None,
    *,
    y_pred: Any = None,
    sample_weight: Any = None,
    pos_label: Any = None,
    threshold: float | None = None,
    method: Literal["auto", "exact", "monte-carlo", "mcnemar", "binomial", "clt"] = "auto",
    n_resamples: int = 10_000,
    max_exact: int = 200_000,
    random_state: Any = 0,
    mid_p: bool = True,
) -> PermutationTestResult:
    r"""One-sided test that a predictor is better than chance (the permutation null).

    .. math::

        p = P_{\sigma}\bigl(M(y_{\sigma}, \hat y) \ge M(y, \hat y)\bigr)

    over the permutations σ of the labels (≤ for losses), computed from the sufficient
    statistics: the hypergeometric law of TP given the margins for labeling metrics, the
    multivariate hypergeometric law of the positives per distinct score for scores (see
    the module docstring).

    Parameters
    ----------
    measure : str
        A labeling metric of :data:`beyondchance.measures.METRICS` (on labels, or on scores at
        ``threshold``) or a score measure: ``roc_auc``, ``pr_auc`` (average precision),
        ``lift_auc``, ``log_loss``, ``brier``.
    y_true : array-like (n,)
        Binary labels.
    y_score : array-like (n,), optional
        Scores (the AUCs; a labeling metric of labels score ≥ ``threshold``).  Given
        positionally, predicted labels are read as labels.
    y_pred : array-like (n,), optional
        Predicted labels (labeling metrics), instead of ``y_score``: continuous values
        (scores, not whole numbers) are refused with an
        :class:`~beyondchance.InvalidInputError` naming ``y_pred`` — pass them as
        ``y_score`` to have them thresholded.
    sample_weight : array-like (n,), optional
        Non-negative weights.  Whole numbers are frequencies: a row of weight 3 stands for
        three rows, and the tests above apply to the rows they stand for.  Other weights are
        attached to their row's label: the (label, weight) pairs are permuted against the
        predictions or scores (each row stays one unit), by Monte Carlo permutations of the
        rows (``method="auto"`` or ``"monte-carlo"``, ``beyondchance.inference.permutation.rows``;
        B·n within ``ROW_BUDGET``, else at least 200 draws) and beyond that budget — or with
        ``method="clt"`` — by the permutation CLT of the weighted cells
        (``beyondchance.inference.permutation.clt``, asymptotic: normal draws of the weighted table
        with its exact permutation mean and covariance; scores on one cell per distinct
        score up to 1,000 of them, else 200 bins of equal row count).  Negative, NaN or
        infinite weights are an error.
    pos_label : optional
        Positive class (default 1 / True).
    threshold : float, optional
        Scores and a labeling metric: a score ≥ threshold is predicted positive (default
        0.5 for scores in [0, 1], else 0).
    method : ``"auto"``, ``"exact"``, ``"monte-carlo"``, ``"mcnemar"``, ``"binomial"`` or ``"clt"``
        ``"auto"``: exact for labeling metrics; for scores exact when
        :math:`\binom{n}{P}` ≤ ``max_exact``, else Monte Carlo.  ``"mcnemar"`` and
        ``"binomial"`` (accuracy and prediction advantage only) test "no better than the
        best constant" instead of "no better than chance" (module docstring).  ``"clt"``:
        the permutation CLT of the (weighted) cells, ``n_resamples`` normal draws
        (asymptotic; see ``sample_weight``).  It is for large n: at n = 200 with weighted
        rows it rejected a true null at 5% in 0.0175 (exponential weights) and 0.0015
        (log-normal) of 2,000 replicates for the average precision (conservative; F1
        0.0635, ROC AUC 0.0500, ``benchmarks/sim_tests.py``), within [0.03, 0.07] for every
        measure at n = 20,000; ``"auto"`` permutes the rows while they fit ``ROW_BUDGET``.
    n_resamples : int
        Monte Carlo draws.
    max_exact : int
        Largest number of label arrangements enumerated for scores.
    random_state : int or Generator
        Seed of the Monte Carlo draws.
    mid_p : bool, default True
        Exact tests (enumeration and McNemar's): the mid-p-value
        :math:`P(M^* \text{ better}) + \tfrac12 P(M^* = M_{obs})` (Lancaster 1961; the
        form Agresti recommends for discrete tests), the default; ``False``:
        :math:`P(M^* \text{ at least as good})`, kept in the result as
        ``pvalue_conservative`` either way.  The latter is valid but conservative when the
        null is coarse — few values of TP: its rejection rate at 5% was 0.0225 for the MCC
        at n = 60 and 0.0295 for the ROC AUC at n = 12 (benchmarks/sim_tests.py, 2,000
        replicates) — while the mid-p-value's rate was 0.0435 and 0.0565 there, and within
        [0.03, 0.07] in every cell of that study.  Monte Carlo p-values are
        (1 + #{M* at least as good}) / (B + 1) either way.

    Returns
    -------
    PermutationTestResult

    References
    ----------
    Good (2005), Permutation, Parametric, and Bootstrap Tests of Hypotheses, ch. 3;
    Kuhn (2008), caret, J. Stat. Softw. 28(5) (accuracy against the no-information rate);
    El-Yaniv, Geifman & Wiener, the prediction advantage, section 2.4.

    Examples
    --------
    >>> y = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
    >>> r = permutation_test("accuracy", y, [0, 0, 0, 0, 0, 1, 1, 1, 1, 0])
    >>> r.statistic, r.method, round(r.pvalue_conservative, 4)   # P(TP >= 3) = 25/210, TP ~ Hypergeom(10, 4, 4)
    (0.8, 'exact mid-p', 0.119)
    >>> round(r.pvalue, 4)                             # P(TP = 4) + P(TP = 3) / 2 = (1 + 24 / 2) / 210
    0.0619
    >>> round(permutation_test("pr_auc", y, [.1, .2, .3, .4, .5, .6, .7, .8, .9, .95]).null_mean, 4)
    0.5286
    >>> w = [0.5, 1.2, 0.8, 2.0, 1.0, 0.3, 1.5, 0.7, 1.1, 0.9]      # not frequencies: the rows are permuted
    >>> r = permutation_test("roc_auc", y, [.1, .2, .3, .4, .5, .6, .7, .8, .9, .95], sample_weight=w, n_resamples=2000)
    >>> r.method, r.n_resamples, round(r.statistic, 4), r.pvalue < 0.05
    ('monte-carlo', 2000, 1.0, True)
    >>> permutation_test("roc_auc", y, [.1, .2, .3, .4, .5, .6, .7, .8, .9, .95], sample_weight=w, method="clt").method
    'permutation CLT monte-carlo'
    """
    method = check_option(method, "method", _METHODS)
    name = str(measure).strip().lower().replace("-", "_")
    if name not in METRICS and name not in SCORE_MEASURES:
        raise InvalidInputError(
            f"unknown measure {measure!r}; known: {', '.join(list(METRICS) + list(SCORE_MEASURES))}"
        )
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    max_exact = check_positive_int(max_exact, "max_exact")
    is_pos, pos = binary_target(y_true, pos_label=pos_label)
    if (y_score is None) == (y_pred is None):
        raise InvalidInputError("permutation_test needs one of y_score (scores) or y_pred (predicted labels)")
    if y_pred is not None:  # labels: a score is refused (continuous_label), not thresholded
        y_name, yv = "y_pred", check_label_pair(y_true, y_pred)[1]
    else:
        y_name, yv = "y_score", as_1d(y_score, "y_score")
    n = check_consistent_length(**{"y_true": is_pos, y_name: yv})
    w = check_sample_weight(sample_weight, n)
    if w is not None and _are_frequencies(w):  # a row of weight 3 is three rows
        w = w.astype(np.int64)
        is_pos, yv = np.repeat(is_pos, w), np.repeat(yv, w)
        n, w = int(is_pos.size), None
    active = is_pos if w is None else is_pos[w > 0]
    if active.all() or not active.any():
        raise InvalidInputError("y_true holds a single class: every permutation gives the same value")
    pred = None
    if name in METRICS:
        if is_labels(np.asarray(as_1d(y_true, "y_true")), yv):
            pred = equals_label(yv, pos)
        else:
            s = as_float_1d(yv, y_name)
            if threshold is None:
                threshold = 0.5 if s.min() >= 0 and s.max() <= 1 else 0.0
            pred = s >= float(as_float(threshold, "threshold"))
    if w is not None or method == "clt":
        return _weighted_test(name, is_pos, w, pred, None if pred is not None else as_float_1d(yv, y_name),
                              method=method, n_resamples=n_resamples, random_state=random_state)
    P = int(is_pos.sum())
    if name in METRICS:
        assert pred is not None  # set above for a labeling metric
        Q = int(pred.sum())
        tp = int((pred & is_pos).sum())
        return permutation_test_of_counts(name, n, P, Q, tp, method=method, n_resamples=n_resamples,
                                          random_state=random_state, mid_p=mid_p)
    if method in ("mcnemar", "binomial"):
        raise InvalidInputError(f"method={method!r} tests accuracy and the prediction advantage only")
    tc = threshold_counts(is_pos, as_float_1d(yv, y_name))
    return permutation_test_of_scores(name, tc, method=method, n_resamples=n_resamples, max_exact=max_exact,
                                      random_state=random_state, mid_p=mid_p)


def _are_frequencies(w: np.ndarray) -> bool:
    """Whether every weight is a whole number (then a frequency: the row stands for that many)."""
    return bool((w == np.round(w)).all() and w.max() < 2.0**53)


def _weighted_test(name: str, is_pos: np.ndarray, w: np.ndarray | None, pred: np.ndarray | None,
                   scores: np.ndarray | None, *, method: str, n_resamples: int, random_state: Any
                   ) -> PermutationTestResult:
    """:func:`permutation_test` of rows whose (label, weight) pairs are permuted against the
    predictions ``pred`` or the ``scores``: the row permutation Monte Carlo test
    (``beyondchance.inference.permutation.rows``) within its draw budget, else (or with
    ``method="clt"``) the permutation CLT of the weighted cells
    (``beyondchance.inference.permutation.clt``)."""
    from .clt import PermutationCells, clt_tests_of_labels, clt_tests_of_scores
    from .rows import binary_statistic, permutation_draws, row_permutation_tests

    if method not in ("auto", "monte-carlo", "clt"):
        raise InvalidInputError(f"method={method!r} needs integer (frequency) weights; with other weights the "
                                "rows are permuted: method='auto', 'monte-carlo' or 'clt'")
    if name in _LOSSES:
        assert scores is not None  # a loss is tested on the scores
        if scores.min() < 0 or scores.max() > 1:
            raise InvalidInputError(f"{name} needs probabilities in [0, 1]; the scores range over "
                                    f"[{scores.min():.4g}, {scores.max():.4g}]")
    n = is_pos.shape[0]
    if method != "clt":
        try:
            draws = permutation_draws(n, n_resamples, cost=1 if pred is not None else 4)
        except InvalidInputError:
            if method == "monte-carlo":
                raise
        else:
            greater = name not in _LOSSES and (name not in METRICS or bool(get_metric(name).greater_is_better))
            return row_permutation_tests(binary_statistic(is_pos, w, pred=pred, scores=scores, names=(name,)), n,
                                         {name: greater}, n_resamples=draws, random_state=random_state)[name]
    if pred is not None:
        cells = PermutationCells.from_codes(pred.astype(np.intp), is_pos.astype(np.intp), w, keys=[False, True],
                                            classes=[False, True])
        return clt_tests_of_labels(cells, (name,), pos=1, n_resamples=n_resamples, random_state=random_state)[name]
    cells = PermutationCells.of_scores(is_pos, scores, w)
    bins = cells.keys.size if cells.keys.size <= CLT_SCORE_CELLS else CLT_SCORE_BINS
    return clt_tests_of_scores(cells, (name,), max_bins=bins, n_resamples=n_resamples,
                               random_state=random_state)[name]


def is_labels(y_true: np.ndarray, pred: np.ndarray) -> bool:
    """Whether every prediction is one of y_true's labels (then they are labels, not scores).

    >>> is_labels(np.array([0, 1, 1]), np.array([1.0, 0.0, 1.0])), is_labels(np.array([0, 1]), np.array([.2, .7]))
    (True, False)
    """
    if pred.dtype.kind == "f" and y_true.dtype.kind in "iub" and not np.all(pred == np.round(pred)):
        return False
    try:
        return bool(np.isin(pred, np.unique(y_true)).all())
    except TypeError:
        return False


def equals_label(pred: np.ndarray, pos: Any) -> np.ndarray:
    """Boolean: the prediction is the positive class."""
    if pred.dtype.kind == "b":
        return pred == bool(pos)
    return np.asarray(pred == pos, dtype=bool)


def _binomial(name: str, n: int, P: int, Q: int, tp: int) -> PermutationTestResult:
    """Correct predictions against Binomial(n, no-information rate) (caret's test)."""
    correct = n - P - Q + 2 * tp
    observed = float(get_metric(name).compute(tp, Q - tp, P - tp, n - P - Q + tp))
    nir = max(P, n - P) / n
    k = _support(0, n, n * nir, n)
    prob = _sps.binom.pmf(k, n, nir)
    values = k / n if name == "accuracy" else (k / n - nir) / (1 - nir)
    return _result(name, observed, float(_sps.binom.sf(correct - 1, n, nir)), "binomial", 0.0, None, values, prob,
                   True)


def mcnemar_exact(b: int, c: int, alternative: str = "two-sided", mid_p: bool = False) -> float:
    """McNemar's exact test (McNemar 1947) of ``b`` discordant pairs of one kind against ``c``
    of the other: under "no difference" B ~ Bin(b + c, ½) given b + c.  ``"greater"``:
    P(B ≥ b) (``mid_p``: P(B > b) + ½ P(B = b)); ``"two-sided"``: the sum of the probabilities
    at most P(B = b) (scipy's ``binomtest``).  1 (½ mid-p) without a discordant pair.

    >>> round(mcnemar_exact(9, 2, "greater"), 4), round(mcnemar_exact(9, 2), 4)
    (0.0327, 0.0654)
    """
    m = int(b) + int(c)
    if m == 0:
        return 0.5 if mid_p and alternative == "greater" else 1.0
    if alternative == "two-sided":
        return float(_sps.binomtest(int(b), m, 0.5).pvalue)
    if alternative != "greater":
        raise ValueError(f"alternative must be 'greater' or 'two-sided', got {alternative!r}")
    if mid_p:
        return float(_sps.binom.sf(b, m, 0.5) + 0.5 * _sps.binom.pmf(b, m, 0.5))
    return float(_sps.binom.sf(b - 1, m, 0.5))


def _mcnemar(name: str, matrix: np.ndarray, mid_p: bool = True) -> PermutationTestResult:
    """The model against the best constant (always the majority class) on the rows where they
    differ, McNemar's exact test; ``matrix`` (k, k) row counts, rows true, columns predicted."""
    m_ = np.rint(np.asarray(matrix, dtype=np.float64)).astype(np.int64)
    n, diag, true_counts = int(m_.sum()), np.diag(m_), m_.sum(axis=1)
    observed = float(metric_from_matrices(m_, name))
    # per majority class c: (model right & constant wrong, model wrong & constant right); a tie
    # has several best constants: the largest p-value (every one gives the same PA)
    pairs = [(int(diag.sum() - diag[c]), int(true_counts[c] - diag[c]))
             for c in np.flatnonzero(true_counts == true_counts.max())]
    (p, mid), (b, c) = max(((mcnemar_exact(b, c, "greater"), mcnemar_exact(b, c, "greater", mid_p=True)), (b, c))
                           for b, c in pairs)
    m = b + c
    k = _support(0, m, m / 2, m)
    others = n - int(true_counts.max())  # the constant's errors
    values = 1 - others / n + (2 * k - m) / n if name == "accuracy" else (2 * k - m) / others
    return _result(name, observed, mid if mid_p else p, "mcnemar mid-p" if mid_p else "mcnemar", 0.0, None, values,
                   _sps.binom.pmf(k, m, 0.5), True, conservative=p)


def permutation_test_of_matrix(
    measure: str, matrix: Any, *, method: str = "monte-carlo", n_resamples: int = 10_000, random_state: Any = 0,
    mid_p: bool = True,
) -> PermutationTestResult:
    """The permutation test of a multi-class labeling metric from its (k, k) confusion matrix of
    row counts (rows true, columns predicted), as the multi-class report defines it (a macro
    average for precision, recall, F1 and specificity, a class whose value is 0/0 counting 0).

    Monte Carlo over tables with the observed margins (the permutation null: every table of
    the margins has its hypergeometric probability; :func:`permutation_tests_of_matrix`).
    ``method="mcnemar"``: accuracy and PA against always predicting the majority class (its
    mid-p-value unless ``mid_p=False``).

    >>> r = permutation_test_of_matrix("accuracy", [[30, 5, 5], [4, 20, 6], [3, 2, 25]], n_resamples=500)
    >>> r.method, round(r.statistic, 4), r.pvalue < 0.01
    ('monte-carlo', 0.75, True)
    """
    name = str(measure)
    if method == "mcnemar":
        m_ = _count_matrix(matrix)
        if name not in _AGAINST_CONSTANT:
            raise InvalidInputError("method='mcnemar' tests accuracy and the prediction advantage only")
        return _mcnemar(name, m_, mid_p)
    return permutation_tests_of_matrix((name,), matrix, n_resamples=n_resamples, random_state=random_state)[name]


def _count_matrix(matrix: Any) -> np.ndarray:
    m_ = np.rint(np.asarray(matrix, dtype=np.float64)).astype(np.int64)
    if m_.ndim != 2 or m_.shape[0] != m_.shape[1] or (m_ < 0).any():
        raise InvalidInputError(f"matrix must be a square matrix of non-negative counts, got shape {m_.shape}")
    return m_


#: largest number of table cells (Patefield) or shuffled rows held at once
_NULL_ELEMENTS = 1 << 22


def permutation_tests_of_matrix(
    measures: tuple[str, ...], matrix: Any, *, n_resamples: int = 10_000, random_state: Any = 0,
) -> dict[str, PermutationTestResult]:
    """:func:`permutation_test_of_matrix` (Monte Carlo) of several metrics from the same
    draws (each result equals its own call with the same seed).

    The null tables are drawn as :func:`scipy.stats.random_table` would choose: Patefield's
    algorithm (O(k²) per table) when n > ln(n + 1)·k², in chunks; else the predictions of
    the n rows shuffled against their labels (Boyett's algorithm, O(n) per table), only the
    diagonal kept: with the margins fixed, every metric but the weighted κ is a function of
    the diagonal (:class:`~beyondchance.measures.confusion.MatrixTotals`), so many classes
    cost O(n + k) per table, never k² (the weighted κ: whole tables, in chunks).  This
    second case draws other tables than scipy's Boyett (the same law).
    """
    m_ = _count_matrix(matrix)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    metrics = {str(name): get_metric(str(name)) for name in measures}  # keyed as asked (aliases too)
    options: dict[str, dict[str, Any]] = {
        name: {"average": "macro", "zero_division": 0.0} if m.multiclass == "per-class" else {}
        for name, m in metrics.items()}
    rows, cols = m_.sum(axis=1), m_.sum(axis=0)
    cells = any(m.name in CELL_METRICS for m in metrics.values())
    rng = check_random_state(random_state)
    values: dict[str, list[np.ndarray]] = {name: [] for name in metrics}
    with np.errstate(all="ignore"):
        observed = {name: float(metric_from_matrices(m_[None], m, **options[name])[0]) for name, m in metrics.items()}
        for tables in _null_tables(rows, cols, n_resamples, rng, cells):
            of = metric_from_matrices if isinstance(tables, np.ndarray) else metric_from_totals
            for name, m in metrics.items():
                values[name].append(np.asarray(of(tables, m, **options[name]), dtype=np.float64))
    return {name: _monte_carlo(name, observed[name], np.concatenate(values[name]), bool(m.greater_is_better))
            for name, m in metrics.items()}


def _null_tables(rows: np.ndarray, cols: np.ndarray, n_resamples: int, rng: np.random.Generator,
                 cells: bool) -> Any:
    """Chunks of tables of the margins ``rows``, ``cols`` under the permutation null: (b, k, k)
    tables, or their :class:`MatrixTotals` when the predictions are shuffled against the
    labels and the metrics need no cells (``cells`` False)."""
    n, k = int(rows.sum()), rows.size
    if n > np.log(n + 1) * k * k:  # scipy's choice of Patefield's algorithm
        dist = _sps.random_table(rows, cols)
        chunk = max(1, _NULL_ELEMENTS // (k * k))
        for start in range(0, n_resamples, chunk):
            yield dist.rvs(size=min(chunk, n_resamples - start), random_state=rng)
        return
    truth, predicted = np.repeat(np.arange(k), rows), np.repeat(np.arange(k), cols)
    present = np.flatnonzero(rows)
    starts = np.r_[0, np.cumsum(rows[present])[:-1]]
    chunk = max(1, _NULL_ELEMENTS // max(n, k * k if cells else 1))
    for start in range(0, n_resamples, chunk):
        b = min(chunk, n_resamples - start)
        shuffled = rng.permuted(np.broadcast_to(predicted, (b, n)), axis=1)
        if cells:  # the weighted κ: the whole tables
            flat = (np.arange(b)[:, None] * k + truth) * k + shuffled
            yield np.bincount(flat.ravel(), minlength=b * k * k).reshape(b, k, k).astype(np.float64)
            continue
        diag = np.zeros((b, k))
        diag[:, present] = np.add.reduceat(shuffled == truth, starts, axis=1, dtype=np.float64)
        t, p = (np.broadcast_to(np.asarray(a, dtype=np.float64), (b, k)) for a in (rows, cols))
        yield MatrixTotals(np.full(b, float(n)), t, p, diag)


def permutation_test_of_counts(
    measure: str, n: int, n_pos: int, n_pred: int, tp: int, *, method: str = "auto", n_resamples: int = 10_000,
    random_state: Any = 0, mid_p: bool = True,
) -> PermutationTestResult:
    """The permutation test of a labeling metric from the binary confusion counts (row counts).

    >>> permutation_test_of_counts("f1", 10, 4, 4, 3).pvalue == permutation_test(
    ...     "f1", [0] * 6 + [1] * 4, [0] * 5 + [1] * 4 + [0]).pvalue
    True
    """
    name = str(measure)
    greater = bool(get_metric(name).greater_is_better)
    observed = float(get_metric(name).compute(tp, n_pred - tp, n_pos - tp, n - n_pos - n_pred + tp))
    if method in ("mcnemar", "binomial"):
        if name not in _AGAINST_CONSTANT:
            raise InvalidInputError(f"method={method!r} tests accuracy and the prediction advantage only")
        if method == "mcnemar":
            return _mcnemar(name, np.array([[n - n_pos - n_pred + tp, n_pred - tp], [n_pos - tp, tp]]), mid_p)
        return _binomial(name, n, n_pos, n_pred, tp)
    if method == "monte-carlo":
        rng = check_random_state(random_state)
        t = rng.hypergeometric(n_pos, n - n_pos, n_pred, size=check_positive_int(n_resamples, "n_resamples"))
        with np.errstate(all="ignore"):
            vals = np.asarray(get_metric(name).compute(t, n_pred - t, n_pos - t, n - n_pos - n_pred + t),
                              dtype=np.float64)
        return _monte_carlo(name, observed, vals, greater)
    values, prob = permutation_null_of_counts(name, n, n_pos, n_pred)
    p, mid = _exact_pvalues(values, prob, observed, greater)
    return _result(name, observed, mid if mid_p else p, "exact mid-p" if mid_p else "exact", 0.0, None, values, prob,
                   greater, conservative=p)


def permutation_test_of_scores(
    measure: str, tc: ThresholdCounts, *, method: str = "auto", n_resamples: int = 10_000,
    max_exact: int = 200_000, random_state: Any = 0, max_bins: int | None = None, mid_p: bool = True,
) -> PermutationTestResult:
    """The permutation test of a score measure from :class:`~beyondchance.ThresholdCounts` of row counts.

    ``max_bins``: pool adjacent distinct scores into at most this many bins of equal row
    count (as the report's score bootstrap does) and test the measure of the binned
    scores — still an exact permutation test, since the bins do not depend on the labels;
    a loss is then the loss of the binned scores, every row of a bin scored with the bin's
    middle distinct score — the ``statistic`` of the result, close to the loss, and a
    function of the positives per bin.

    >>> from beyondchance.measures.curves import threshold_counts
    >>> tc = threshold_counts([0, 0, 1, 1, 0, 1], [.1, .3, .3, .8, .2, .9])
    >>> r = permutation_test_of_scores("roc_auc", tc); r.method, round(r.statistic, 4)
    ('exact mid-p', 0.9444)
    """
    return permutation_tests_of_scores((str(measure),), tc, method=method, n_resamples=n_resamples,
                                       max_exact=max_exact, random_state=random_state, max_bins=max_bins,
                                       mid_p=mid_p)[str(measure)]


def _score_loss_terms(
    measures: tuple[str, ...], tc: ThresholdCounts, cells: ScoreCells
) -> tuple[dict[str, Any], list[str]]:
    """The per-cell loss terms of the losses asked for, and the names of the measures that can be tested."""
    terms: dict[str, Any] = {}
    names = []
    for name in measures:
        if name in _LOSSES:
            lo, hi = float(tc.thresholds[-1]), float(tc.thresholds[0])
            if lo < 0 or hi > 1:
                problem = f"{name} needs probabilities in [0, 1]; the scores range over [{lo:.4g}, {hi:.4g}]"
                if len(measures) == 1:
                    raise InvalidInputError(problem)
                continue
            if cells.exact:
                terms[name] = loss_terms(np.asarray(tc.thresholds, dtype=np.float64).copy(), name)
            else:  # the loss of the binned scores: each bin's rows scored with its middle distinct score
                if cells.starts is None:
                    raise InvalidInputError(f"the permutation test of {name} on binned scores needs the bins' edges")
                terms[name] = bin_loss_terms(tc.thresholds, cells.starts, name)
        names.append(name)
    return terms, names


def _exact_score_tests(
    null: Callable[[np.ndarray], dict[str, np.ndarray]], observed: dict[str, float], counts: np.ndarray,
    n: int, P: int, arrangements: float, max_exact: int, mid_p: bool,
) -> dict[str, PermutationTestResult]:
    """The exact score tests: every arrangement of the positives over the cells, with its probability."""
    if arrangements > max_exact:
        raise InvalidInputError(f"exact enumeration needs C({n}, {P}) = {arrangements:.4g} arrangements, above "
                                f"max_exact={max_exact}; use method='monte-carlo'")
    xs = _compositions(counts, P, max_exact)
    prob = np.exp((_log_comb(counts[None], xs)).sum(axis=1) - _log_comb(n, P))
    out = {}
    for name, values in null(xs).items():
        greater = name not in _LOSSES
        p, mid = _exact_pvalues(values, prob, observed[name], greater)
        out[name] = _result(name, observed[name], mid if mid_p else p, "exact mid-p" if mid_p else "exact", 0.0,
                            None, values, prob, greater, conservative=p)
    return out


def _monte_carlo_score_tests(
    null: Callable[[np.ndarray], dict[str, np.ndarray]], observed: dict[str, float], names: list[str],
    counts: np.ndarray, n: int, P: int, n_resamples: int, random_state: Any,
) -> dict[str, PermutationTestResult]:
    """The Monte Carlo score tests: the measures of random draws of positives per cell."""
    rng = check_random_state(random_state)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    vals: dict[str, list[np.ndarray]] = {name: [] for name in names}
    chunk = max(1, min(500, 2_000_000 // counts.size))  # (chunk, K) draws at a time
    # the rarer class is drawn: item by item ("count", O(drawn) per variate) when it has fewer
    # rows than there are cells, else cell by cell ("marginals", O(K)); the same law
    rare = min(P, n - P)
    how: Literal["count", "marginals"] = "count" if rare < counts.size and n <= 10_000_000 else "marginals"
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        drawn = rng.multivariate_hypergeometric(counts, rare, size=size, method=how)
        for name, v in null(drawn if rare == P else counts[None, :] - drawn).items():
            vals[name].append(v)
    return {name: _monte_carlo(name, observed[name], np.concatenate(v), name not in _LOSSES)
            for name, v in vals.items()}


def permutation_tests_of_scores(
    measures: tuple[str, ...], tc: ThresholdCounts, *, method: str = "auto", n_resamples: int = 10_000,
    max_exact: int = 200_000, random_state: Any = 0, max_bins: int | None = None, mid_p: bool = True,
    cells: ScoreCells | None = None,
) -> dict[str, PermutationTestResult]:
    """:func:`permutation_test_of_scores` of several measures from the same enumeration or
    the same Monte Carlo draws (each result equals its own call with the same seed); a loss
    that binned scores cannot test is left out when other measures are asked for.
    ``cells``: the unweighted ``ScoreCells.from_counts(tc, max_bins=max_bins)`` when the
    caller has them (the report's bootstrap pools)."""
    n, P = int(round(tc.n)), int(round(tc.n_pos))
    if P == 0 or P == n:
        raise InvalidInputError("y_true holds a single class: every permutation gives the same value")
    if cells is None:
        cells = ScoreCells.from_counts(tc, max_bins=max(tc.thresholds.size, 1) if max_bins is None else max_bins)
    counts = np.rint(cells.pos_units + cells.neg_units).astype(np.int64)
    terms, names = _score_loss_terms(measures, tc, cells)
    pos_obs = np.rint(cells.pos_units).astype(np.int64)

    def null(xs: np.ndarray) -> dict[str, np.ndarray]:
        """The measures for each row of positives per cell ``xs`` (B, K), all from one curve."""
        neg = counts[None, :] - xs
        pl = {k: xs * t[0][None] for k, t in terms.items()}
        nl = {k: neg * t[1][None] for k, t in terms.items()}
        out = cells.measures(xs.astype(np.float64), neg.astype(np.float64), pl, nl, tuple(names))
        return {name: out[name] for name in names}

    observed = {name: float(v[0]) for name, v in null(pos_obs[None]).items()}
    arrangements = _special.comb(n, P)  # a float (inf when huge): no big-integer arithmetic
    if method == "exact" or (method == "auto" and arrangements <= max_exact):
        return _exact_score_tests(null, observed, counts, n, P, arrangements, max_exact, mid_p)
    return _monte_carlo_score_tests(null, observed, names, counts, n, P, n_resamples, random_state)
