"""The report's p-values of "no better than chance", from its statistics (classification
reports of unweighted data):

* accuracy and the prediction advantage (0/1 loss): McNemar's exact test of the model
  against the best constant (always the majority class) on the rows where they differ —
  exactly "better than the best constant prediction", since PA > 0 ⟺ the model is right
  on more of those rows;
* the other labeling metrics: the exact permutation test from the confusion counts
  (hypergeometric TP given the margins; :mod:`beyondchance.inference.permutation.permutation_test`); multi-class, the
  Monte Carlo permutation test over the tables of the observed margins;
* AUCs and losses: the permutation test over the (score, label) counts, Monte Carlo with
  the report's number of resamples and seed, one cell per distinct score up to
  ``MAX_SCORE_BINS`` distinct scores (the bootstrap's cells); beyond, the scores pooled into
  ``PERMUTATION_BINS`` bins of equal row count — an exact permutation test of the binned
  measure (for the log loss and Brier score, the loss of the binned scores: every row of a
  bin scored with the bin's middle distinct score),
  whose draws stay cheap at 10⁷ rows.

Exact tests report the mid-p-value (``PermutationTestResult.pvalue_conservative`` keeps
P(at least as good)): the conservative one rejected 0.0225 of 2,000 null replicates at 5%
for the MCC at n = 60 and 0.0295 for the ROC AUC at n = 12, the mid-p-value 0.0435 and
0.0565, and within [0.03, 0.07] in every cell of benchmarks/sim_tests.py.

Weighted data, class probabilities and regression
(:mod:`beyondchance.inference.permutation.rows`): Monte Carlo permutations of the rows with each
row's weight attached to its label, with the report's number of resamples and seed (fewer
when the rows times the draws exceed ``ROW_BUDGET``, none below ``MIN_DRAWS``); the squared
error of a regression (MSE, R²) by the permutation central limit theorem from the moments
(asymptotic).  The rows are ``report["inputs"]`` in memory; a report from an engine
(DuckDB, Spark, or the memory engine of ``evaluate(data=...)``) holds a
:class:`~beyondchance.engines.row_source.RowSource` instead (``report["row_source"]``),
which fetches the columns of the test from the still open source — one query, in the rows'
order — when the rows fit the budget by the rule of memory (:func:`_row_cost`,
:func:`_regression_losses`, ``permutation_draws``); the test then runs on them as in
memory, so the engine gives memory's p-value with the same seed (a DuckDB relation has no
row order: its rows come in their scan order), and ``pvalue_method`` says the rows were
fetched.  A report from statistics alone (kept by :func:`~beyondchance.profile`, read from a
file) has neither: it takes the tests below, and one note (:data:`WITHOUT_ROWS_NOTE`) names its
rows whose p-value is not the rows' (the permutation CLT instead of the rows' Monte Carlo
permutations, or none) and says to report on the rows.  Beyond ``ROW_BUDGET`` (in memory and
on every engine, where nothing is fetched):

* weighted labels and binary scores by the permutation CLT of their weighted cells
  (:mod:`beyondchance.inference.permutation.clt`, asymptotic; the cells come from the engine's scan,
  or from the rows in memory — the same cells, so the same p-value with the same seed);
* the log loss and Brier score where those give no test — class probabilities (weighted or
  not), weighted binary scores binned on an engine — by the permutation CLT of the loss sum
  (:mod:`beyondchance.inference.permutation.loss`: the loss sum is a linear permutation statistic whose
  exact mean and variance come from sums over the rows,
  :class:`~beyondchance.inference.permutation.loss.PermutationLossSums`, the engine's scan or the rows
  in memory; a normal p-value, asymptotic, no draws; type-I error at 5% in [0.032, 0.0535]
  in benchmarks/sim_tests.py, n = 50 to 20,000);
* the one-vs-rest ROC AUCs of class probabilities (macro and prevalence-weighted, weighted
  or not) by the permutation CLT of the AUC (:mod:`beyondchance.inference.permutation.auc`: exact
  mean ½, the variance of its Hájek projection — a linear permutation statistic in the
  mid-rank fractions of each column — from Σw, Σw² per class and the K × K cross moments of
  the ranks; memory ranks the rows, DuckDB/Spark run one rank query on the still open source
  (:meth:`~beyondchance.engines.row_source.RowSource.auc_sums`), binned as the row's AUC
  with ``score_bins``; asymptotic, type-I error at 5% in [0.0445, 0.0595] in
  benchmarks/sim_tests.py, n = 200 and 20,000);
* the one-vs-rest average precisions of class probabilities (macro and prevalence-weighted,
  weighted or not) by the joint permutation CLT of the K one-vs-rest tables
  (:mod:`beyondchance.inference.permutation.average_precision`: each probability column pooled into at most
  ``AP_BINS`` = 100 bins of adjacent scores of nearly equal row count; the D × K tables
  T = Σ_i A_i a_π(i)ᵀ of the rows' bin indicators against the (label, weight) pairs are one
  linear permutation statistic, Cov vec T = S_a ⊗ S_A / (n − 1) from the bins' crosstabs and
  Σw, Σw² per class; seeded normal draws of the tables, the AP of each draw, a Monte Carlo
  p-value with the report's resamples and seed — a test of the binned AP, the observed AP
  being that of the same bins; memory bins the rows, DuckDB/Spark run two queries of the
  still open source, :meth:`~beyondchance.engines.row_source.RowSource.ap_tables`, the
  same bins and draws; asymptotic, type-I error at 5% in [0.0435, 0.0530] in
  benchmarks/sim_tests.py, n = 2,000 and 20,000);
* the MSE and R² from the statistics (unweighted: the Moments of y and of the predictions,
  the squared-error sum; weighted: :class:`~beyondchance.inference.permutation.rows.SquaredErrorSums`);
* the MAE, the pinball loss and their D² by the permutation CLT of the absolute-error or
  pinball loss sum (:mod:`beyondchance.inference.permutation.absolute_error`: exact mean and variance from
  the histograms of y — Σw, Σw² per distinct value — and of the predictions — rows per
  distinct value —, :class:`~beyondchance.inference.permutation.absolute_error.AbsoluteErrorHistograms`;
  in memory from the rows, on an engine a ``COUNT(DISTINCT)`` check and two ``GROUP BY`` queries, up to
  ``MAX_HISTOGRAM_VALUES`` distinct values each, else the reason; asymptotic, type-I error
  at 5% in [0.0395, 0.0585] in benchmarks/sim_tests.py, n = 50 to 20,000);
* the other row tests no p-value, ``pvalue_method`` naming the size limit."""

from __future__ import annotations

import math
from typing import Any, cast

import numpy as np

from .._warnings import InvalidInputError
from ..measures.losses import PinballLoss, get_loss
from ..measures.registry import METRICS, get_metric
from ..inference.permutation.clt import CLT_METHOD, PermutationCells, clt_tests_of_labels, clt_tests_of_scores
from ..inference.permutation.absolute_error import AbsoluteErrorHistograms
from ..inference.permutation.average_precision import AP_BINS, AP_CLT_METHOD, AP_NAMES, PermutationAPTables, ap_clt_tests
from ..inference.permutation.auc import AUC_CLT_METHOD, AUC_NAMES, PermutationAUCSums
from ..inference.permutation.loss import LOSS_CLT_METHOD, LOSS_NAMES, MAX_LOSS_CLASSES, PermutationLossSums
from ..inference.permutation.rows import (
    binary_statistic,
    multiclass_statistic,
    permutation_draws,
    probabilities_statistic,
    regression_statistic,
    row_permutation_tests,
    squared_loss_test,
    squared_loss_test_of_moments,
)
from ..inference.permutation.permutation_test import (
    SCORE_MEASURES,
    permutation_test_of_counts,
    permutation_test_of_matrix,
    permutation_tests_of_matrix,
    permutation_test_of_scores,
    permutation_tests_of_scores,
)
from ..inference.permutation.result import PermutationTestResult
from ..inference.significance import rejects, significance_level
from .formatting import _label
from .intervals import MAX_SCORE_BINS

__all__ = ["chance_test", "chance_pvalues", "describe_test", "AGAINST_CONSTANT"]

#: the scores of the Monte Carlo permutation test, when they must be pooled, go into this many bins
PERMUTATION_BINS = 200

#: the report enumerates the arrangements of the positives among the scores (an exact
#: p-value) when there are at most this many times its Monte Carlo draws; beyond, the
#: enumeration costs more than the draws (C(100, 3) = 161,700 arrangements of 100 cells took
#: 4.7 s, 2,000 draws 0.1 s) and the draws' p-value is exact up to their Monte Carlo error
EXACT_PER_DRAW = 10

#: the measures tested against the best constant (McNemar) rather than against chance
AGAINST_CONSTANT = ("accuracy", "prediction_advantage")


def describe_test(r: PermutationTestResult) -> str:
    """How a p-value was computed, in a few words."""
    mid = f", mid-p (conservative p {r.pvalue_conservative:.3g})" if r.method.endswith("mid-p") else ""
    if r.method in ("exact", "exact mid-p"):
        return "exact permutation" + mid
    if r.method in ("mcnemar", "mcnemar mid-p"):
        return f"McNemar exact{mid}, against always predicting the majority class"
    if r.method == "binomial":
        return "binomial, against the no-information rate"
    if r.method == "permutation CLT":
        return "permutation, normal approximation from the moments (asymptotic)"
    if r.method == LOSS_CLT_METHOD:
        return "permutation CLT of the loss sum, normal approximation from its exact mean and variance (asymptotic)"
    if r.method == AUC_CLT_METHOD:
        return ("permutation CLT of the one-vs-rest AUC, normal approximation from its exact mean 0.5 and the variance "
                "of its Hájek projection (asymptotic)")
    if r.method == AP_CLT_METHOD:
        return (f"permutation, normal approximation of the one-vs-rest tables of the probabilities binned into at most "
                f"{AP_BINS} bins per column (the binned average precision; asymptotic), {r.n_resamples} Monte "
                f"Carlo draws (s.e. {r.pvalue_standard_error:.2g})")
    if r.method == CLT_METHOD:
        return (f"permutation, normal approximation of the weighted cells (asymptotic), {r.n_resamples} Monte Carlo "
                f"draws (s.e. {r.pvalue_standard_error:.2g})")
    return f"permutation, {r.n_resamples} Monte Carlo draws (s.e. {r.pvalue_standard_error:.2g})"


def chance_test(name: str, *, task: str, confusion: Any, counts: Any, weighted: bool, binary: bool,
                n_resamples: int, seed: int) -> PermutationTestResult:
    """The test of ``name`` against chance from a report's statistics; InvalidInputError
    saying why when they do not give one."""
    if weighted:
        raise InvalidInputError("the p-value against chance of weighted data permutes the rows: the report gives it "
                                "with its intervals (ci=True) when the rows are in memory")
    if name in METRICS and confusion is not None and confusion.n_classes > 2:
        return permutation_test_of_matrix(name, confusion.matrix, n_resamples=n_resamples, random_state=seed,
                                          method="mcnemar" if name in AGAINST_CONSTANT else "monte-carlo")
    if not binary:
        raise InvalidInputError(f"no p-value against chance for {name} in a {task} report from its statistics: the "
                                "report gives it with its intervals (ci=True) when the rows are in memory")
    if name in METRICS and confusion is not None and confusion.n_classes == 2:
        tp, fp, fn, tn = (int(round(v)) for v in confusion.binary_counts())
        return permutation_test_of_counts(name, tp + fp + fn + tn, tp + fn, tp + fp, tp,
                                          method="mcnemar" if name in AGAINST_CONSTANT else "exact")
    if name in SCORE_MEASURES and counts is not None:
        if not counts.is_defined:
            raise InvalidInputError("y_true holds a single class: every permutation gives the same value")
        return permutation_test_of_scores(name, counts, n_resamples=n_resamples, random_state=seed,
                                          max_bins=_permutation_bins(counts.thresholds.size),
                                          max_exact=EXACT_PER_DRAW * n_resamples)
    raise InvalidInputError(f"no p-value against chance for {name}; it applies to the labeling metrics and the "
                            "AUCs and losses of binary scores")


def _permutation_bins(n_distinct: int) -> int:
    """Cells of the permutation test of ``n_distinct`` scores: one per distinct score when the
    bootstrap has them, else ``PERMUTATION_BINS`` bins."""
    return MAX_SCORE_BINS if n_distinct <= MAX_SCORE_BINS else PERMUTATION_BINS


def chance_pvalues(report: dict[str, Any], names: list[str], *, n_resamples: int, seed: int,
                   confidence_level: float = 0.95) -> dict[str, tuple[float | None, str]]:
    """name -> (p-value, method) for the metrics whose test the statistics give (others left
    out); adds to ``report["notes"]`` the chance value of the average precision when it lies
    well above the prevalence (few positives).  The score measures share one set of draws."""
    cm = report.get("confusion")
    results: dict[str, PermutationTestResult] = {}
    out: dict[str, tuple[float | None, str]] = {}
    if report.get("total_weight") is None and cm is not None:
        results.update(_from_statistics(report, names, n_resamples=n_resamples, seed=seed))
    missing = [name for name in names if name not in results and (name in METRICS or name in ROW_TESTED)]
    from_rows: dict[str, PermutationTestResult] = {}
    if missing:
        from_rows, why = _tests_of_rows(report, missing, n_resamples=n_resamples, seed=seed)
        results.update(from_rows)
        out.update({name: (None, f"no p-value: {why.get(name, 'no permutation test of this measure')}")
                    for name in missing if name not in results})
    for name, r in results.items():
        if math.isfinite(r.pvalue):
            out[name] = _described_pvalue(report, name, r, name in from_rows)
            _note_chance_of_average_precision(report, name, r)
        elif r.method.startswith("permutation CLT not valid"):
            out[name] = (None, f"no p-value: the {r.method}")
    if missing and report.get("inputs") is None and report.get("row_source") is None:
        _note_without_rows(report, missing, results)
    _note_chance_below_constant(report, out, significance_level(confidence_level))
    return out


def _tests_of_rows(report: dict[str, Any], missing: list[str], *, n_resamples: int, seed: int
                   ) -> tuple[dict[str, PermutationTestResult], dict[str, str]]:
    """(the row tests of the rows ``missing``, why the others have none)."""
    why: dict[str, str] = {}
    try:
        return _from_rows(report, missing, n_resamples=n_resamples, seed=seed, why=why), why
    except InvalidInputError as exc:
        return {}, dict.fromkeys(missing, str(exc))


def _described_pvalue(report: dict[str, Any], name: str, r: PermutationTestResult, from_rows: bool
                      ) -> tuple[float | None, str]:
    """(p-value, method) of a finite test ``r``, the method naming the fetched rows of a Monte
    Carlo test of an engine's rows."""
    fetched = (report.get("row_source") is not None and report["row_source"].fetched and from_rows
               and r.method != "permutation CLT")  # a Monte Carlo test of the fetched rows
    return (r.pvalue, describe_test(r) + (report["row_source"].described if fetched else ""))


def _note_chance_of_average_precision(report: dict[str, Any], name: str, r: PermutationTestResult) -> None:
    """The note of the average precision's chance value when it lies well above the prevalence."""
    pi, tc = report.get("prevalence"), report.get("counts")
    if name == "pr_auc" and pi and tc is not None and r.null_mean > CHANCE_NOTE_ABOVE * pi \
            and r.method != CLT_METHOD:  # a normal approximation's mean is no random ranker's
        report.setdefault("notes", []).append(
            f"a random ranker's average precision on this test set is {r.null_mean:.4f} on average (its chance "
            f"value, the mean of the permutation null), above the prevalence {pi:.4f}: with "
            f"{int(round(tc.n_pos))} positives the constant score's value understates chance"
        )


#: the one note of a report from statistics whose rows are gone (what to keep instead)
WITHOUT_ROWS_NOTE = ("p-values from statistics without the rows (the rows' test permutes them): {found} — for the "
                     "rows' p-values report on the rows (keep them, not only their statistics)")


def _note_without_rows(report: dict[str, Any], names: list[str], results: dict[str, PermutationTestResult]) -> None:
    """The one note of a report from statistics alone (no rows in memory, no source to fetch
    them from) naming the rows ``names`` whose test permutes the rows: those given the
    permutation CLT of the statistics instead, and those left without a p-value.  The
    squared error's test (the CLT from the moments) is the rows' own and is not named."""
    clt = [nm for nm in names if nm in results and math.isfinite(results[nm].pvalue)
           and results[nm].method != "permutation CLT"]
    none = [nm for nm in names if nm not in results or not math.isfinite(results[nm].pvalue)]
    found = ([f"{', '.join(clt)} by the permutation CLT of the statistics instead (asymptotic)"] if clt else []) \
        + ([f"{', '.join(none)} none"] if none else [])
    if found:
        report.setdefault("notes", []).append(WITHOUT_ROWS_NOTE.format(found="; ".join(found)))


def _note_chance_below_constant(report: dict[str, Any], pvalues: dict[str, tuple[float | None, str]],
                                alpha: float = 0.05) -> None:
    """A note naming the rows whose p-value against chance is small (p ≤ ``alpha``, the
    package's rule: :mod:`beyondchance.inference.significance`) although the value does
    not beat the best constant's: chance (shuffled predictions) can lie below the constant —
    an R² < 0 of predictions correlated with y, an F1 below always predicting positive."""
    rows = []
    for name, (p, _) in pvalues.items():
        spec = report["metrics"].get(name, {})
        value, base = float(spec.get("value", np.nan)), float(spec.get("baseline", np.nan))
        if rejects(p, alpha) and math.isfinite(value) and math.isfinite(base) and (
                value <= base if spec.get("greater_is_better") else value >= base):
            rows.append(name)
    if rows:
        report.setdefault("notes", []).append(
            f"{', '.join(rows)}: better than chance (small p-value: the predictions are associated with the labels) "
            "but not better than the best constant prediction — the p-value tests against shuffled predictions, "
            "whose value lies below the constant's")


def _from_statistics(report: dict[str, Any], names: list[str], *, n_resamples: int, seed: int
                     ) -> dict[str, PermutationTestResult]:
    """The tests the statistics of unweighted classification data give."""
    cm, tc = report["confusion"], report.get("counts")
    results: dict[str, PermutationTestResult] = {}
    labeling = [name for name in names if name in METRICS and (cm.n_classes > 2 or report.get("positive_label")
                                                                 is not None)]
    drawn = [name for name in labeling if cm.n_classes > 2 and name not in AGAINST_CONSTANT]
    # one set of Monte Carlo tables for all (each result as its own chance_test's)
    tested = permutation_tests_of_matrix(tuple(drawn), cm.matrix, n_resamples=n_resamples,
                                         random_state=seed) if drawn else {}
    for name in labeling:
        results[name] = tested[name] if name in tested else chance_test(
            name, task="", confusion=cm, counts=None, weighted=False, binary=True, n_resamples=n_resamples, seed=seed)
    scored = tuple(name for name in names if name in SCORE_MEASURES)
    if scored and tc is not None and tc.is_defined:
        try:
            bins = _permutation_bins(tc.thresholds.size)
            results.update(permutation_tests_of_scores(
                scored, tc, n_resamples=n_resamples, random_state=seed, max_bins=bins,
                max_exact=EXACT_PER_DRAW * n_resamples,
                cells=report.get("score_cells") if bins == MAX_SCORE_BINS else None))
        except InvalidInputError:  # a single loss of scores outside [0, 1]
            pass
    return results


#: the report's rows besides the labeling metrics that the row permutation tests cover
#: (weighted data, class probabilities, regression) when the statistics give no test; the
#: labeling metrics are read from the registry when the report is built (a metric
#: registered after this module's import is tested too)
ROW_TESTED = frozenset(SCORE_MEASURES) | frozenset(
    ("roc_auc_weighted", "pr_auc_weighted", "mse", "r2", "mae", "d2_absolute_error", "pinball_loss",
     "d2_pinball_score"))
#: regression rows -> (loss, the row whose test it shares)
_REGRESSION = {"mae": "absolute", "d2_absolute_error": "absolute", "pinball_loss": "pinball",
               "d2_pinball_score": "pinball"}


#: why a row has no p-value when others of the report have one, in a report from statistics
#: alone (no rows in memory, no source to fetch them from: an engine's ``report["row_source"]``
#: replaces this reason by its own)
_NEEDS_ROWS = ("the Monte Carlo permutation test shuffles the rows, which statistics do not hold: report on the "
               "rows (keep them, not only their statistics)")


def _row_cost(task: str, k: int) -> int:
    """Row-draws of one permutation of a classification task's rows (k classes), per row."""
    return {"binary-labels": 1, "binary-scores": 4, "multiclass-labels": k}.get(task, 4 * k)


def _regression_losses(names: Any, quantile: float | None) -> dict[str, Any]:
    """The losses whose row permutation test the regression rows ``names`` need."""
    # a pinball row is kept only with its quantile
    return {_REGRESSION[name]: ("absolute" if _REGRESSION[name] == "absolute" else PinballLoss(cast(float, quantile)))
            for name in names if name in _REGRESSION and (quantile is not None or "pinball" not in name)}


def _fetch_cost(source: Any, names: list[str]) -> int | None:
    """Row-draws per row of the permutation tests of ``names`` on the rows of an engine's
    ``source`` (:class:`~beyondchance.engines.row_source.RowSource`); None when no row of
    ``names`` needs them (a regression's squared error is tested from its statistics)."""
    p = source.p
    if p.task == "regression":
        losses = _regression_losses(names, p.quantile)
        return 2 * len(losses) if losses else None
    k = len(source.y_score) if p.task == "multiclass-probabilities" else int(np.asarray(p.classes).size)
    return _row_cost(p.task, k)


def _from_rows(report: dict[str, Any], names: list[str], *, n_resamples: int, seed: int, why: dict[str, str]
               ) -> dict[str, PermutationTestResult]:
    """The row permutation tests of :mod:`beyondchance.inference.permutation.rows` (the rows in
    memory, ``report["inputs"]``); InvalidInputError saying why there is none (``why``:
    the reasons of the rows left out when others have a test)."""
    inp, reason = _rows_of_report(report, names, n_resamples)
    if inp is None:
        return _tests_without_rows(report, names, reason, n_resamples=n_resamples, seed=seed, why=why)
    if inp.task == "regression":
        return _regression_tests(inp, names, report.get("quantile"), n_resamples=n_resamples, seed=seed, why=why,
                                 stats=report.get("statistics"))
    return _classification_row_tests(report, inp, names, n_resamples=n_resamples, seed=seed, why=why)


def _rows_of_report(report: dict[str, Any], names: list[str], n_resamples: int) -> tuple[Any, str]:
    """(the rows of the test — in memory, or an engine's fetched within ``ROW_BUDGET`` — or
    None, the reason a row has no test when they are None)."""
    inp = report.get("inputs")
    reason = _NEEDS_ROWS
    if inp is None and report.get("row_source") is not None:  # an engine's rows, fetched within ROW_BUDGET
        cost = _fetch_cost(report["row_source"], names)
        if cost is not None:
            inp, reason = report["row_source"].fetch(cost, n_resamples)
    return inp, reason


def _tests_without_rows(report: dict[str, Any], names: list[str], reason: str, *, n_resamples: int, seed: int,
                        why: dict[str, str]) -> dict[str, PermutationTestResult]:
    """The tests of ``names`` when the rows are not at hand: a regression's from its statistics,
    else the permutation CLTs of the cells and sums; InvalidInputError when none applies."""
    stats = report.get("statistics")
    if stats is not None and stats.task == "regression":
        out = _regression_tests_of_statistics(report, stats, names, reason, why)
        if out is not None:
            return out
    return _clt_tests_without_rows(report, names, reason, n_resamples=n_resamples, seed=seed, why=why)


def _squared_error_test_of_statistics(report: dict[str, Any], stats: Any) -> PermutationTestResult | None:
    """The squared error's permutation CLT from a regression's statistics (None without their sums)."""
    if report.get("total_weight") is None and stats.prediction_moments is not None:
        return squared_loss_test_of_moments(int(report["n"]), stats.moments, stats.prediction_moments,
                                            stats.loss_sums.risk("squared") * stats.loss_sums.weight)
    if stats.squared_error_sums is not None:  # weighted
        return stats.squared_error_sums.test()
    return None


def _regression_tests_of_statistics(report: dict[str, Any], stats: Any, names: list[str], reason: str,
                                    why: dict[str, str]) -> dict[str, PermutationTestResult] | None:
    """The tests of a regression's rows ``names`` from its statistics (the squared error's CLT,
    the absolute and pinball losses' from the source); None when they give none of them."""
    if "mse" in names or "r2" in names:
        t = _squared_error_test_of_statistics(report, stats)
        if t is not None:
            why.update(dict.fromkeys(names, reason))
            return {**{name: t for name in ("mse", "r2") if name in names},
                    **_absolute_tests_of_source(report, names, why)}
    if _regression_losses(names, report.get("quantile")):
        why.update(dict.fromkeys(names, reason))
        out = _absolute_tests_of_source(report, names, why)
        if not out:
            raise InvalidInputError(why[names[0]])
        return out
    return None


def _ap_tables_of_source(report: dict[str, Any], names: list[str]) -> Any:
    """The callable giving an engine's one-vs-rest tables of class probabilities for the
    average precision rows of ``names``, None where they do not apply."""
    rs = report.get("row_source")
    return (rs.ap_tables if rs is not None and rs.p.task == "multiclass-probabilities"
            and any(nm in AP_NAMES for nm in names) else None)


def _clt_tests_without_rows(report: dict[str, Any], names: list[str], reason: str, *, n_resamples: int, seed: int,
                            why: dict[str, str]) -> dict[str, PermutationTestResult]:
    """The permutation CLTs of ``names`` from the report's cells and sums (no rows at hand);
    InvalidInputError when neither cells nor sums apply."""
    sums = report.get("permutation_loss_sums")
    auc_why: dict[str, str] = {}  # why the AUC rows have no test, when the rank query is refused
    auc = _auc_sums_of_source(report, names, auc_why)  # an engine's class probabilities beyond the budget
    ap = _ap_tables_of_source(report, names)
    if report.get("permutation_cells") is not None or report.get("score_permutation_cells") is not None:
        out = _clt_tests(report, names, report.get("permutation_cells"), report.get("score_permutation_cells"),
                         n_resamples=n_resamples, seed=seed, why=why, reason=reason)
    elif (sums is not None and any(nm in LOSS_NAMES for nm in names)) or auc is not None or ap is not None:
        out = {}
        why.update(dict.fromkeys(names, reason if report.get("row_source") is not None else _NO_ROWS))
    elif report.get("row_source") is not None:
        raise InvalidInputError(reason)
    else:
        raise InvalidInputError(_NO_ROWS)
    why.update(auc_why)
    out.update(_loss_clt_tests(sums, names, out, why))  # where the cells give the losses no test
    out.update(_auc_clt_tests(auc, names, out, why, report))
    if ap is not None:
        out.update(_ap_clt_tests(ap, names, out, why, n_resamples=n_resamples, seed=seed))
    return out


def _classification_row_tests(report: dict[str, Any], inp: Any, names: list[str], *, n_resamples: int, seed: int,
                              why: dict[str, str]) -> dict[str, PermutationTestResult]:
    """The Monte Carlo row permutation tests of a classification's rows in memory; beyond the
    budget their permutation CLTs (InvalidInputError when unweighted rows have none)."""
    cost = _row_cost(inp.task, inp.classes.size)
    try:
        draws = permutation_draws(inp.n, n_resamples, cost=cost)  # before building anything: a clear refusal
    except InvalidInputError as exc:  # beyond the budget: the permutation CLTs
        out = _clt_tests_beyond_budget(report, inp, names, str(exc), n_resamples=n_resamples, seed=seed, why=why)
        if not out and inp.weight is None:  # unweighted rows (class probabilities): no CLT form of their other tests
            raise
        return out
    greater = {name: name not in ("log_loss", "brier") and
               (name not in METRICS or bool(get_metric(name).greater_is_better)) for name in names}
    return row_permutation_tests(_row_statistic(report, inp, names), inp.n, greater, n_resamples=draws,
                                 random_state=seed)


def _clt_tests_beyond_budget(report: dict[str, Any], inp: Any, names: list[str], reason: str, *, n_resamples: int,
                             seed: int, why: dict[str, str]) -> dict[str, PermutationTestResult]:
    """The permutation CLTs of a classification's rows in memory too many to permute
    (``reason``: the refusal of their draws)."""
    w, task = inp.weight, inp.task
    out: dict[str, PermutationTestResult] = {}
    if w is not None:  # weighted: the cells of the labels and scores
        out = _clt_tests(report, names, *_cells_of_inputs(inp, report), n_resamples=n_resamples, seed=seed,
                         why=why, reason=reason)
    if any(nm in LOSS_NAMES and nm not in out for nm in names):  # the losses, weighted or not
        why.update({nm: reason for nm in names if nm not in why})
        out.update(_loss_clt_tests(_loss_sums_of_inputs(inp, report), names, out, why))
    if task == "multiclass-probabilities":
        _add_proba_clt_tests(report, inp, names, reason, out, n_resamples=n_resamples, seed=seed, why=why)
    return out


def _add_proba_clt_tests(report: dict[str, Any], inp: Any, names: list[str], reason: str,
                         out: dict[str, PermutationTestResult], *, n_resamples: int, seed: int,
                         why: dict[str, str]) -> None:
    """Adds to ``out`` the permutation CLTs of the AUCs and average precisions of class
    probabilities in memory that have no test in ``out``."""
    w = inp.weight
    if any(nm in AUC_NAMES and nm not in out for nm in names):
        why.update({nm: reason for nm in names if nm not in why})
        out.update(_auc_clt_tests(PermutationAUCSums.of_proba(inp.codes, inp.proba, w, inp.classes), names,
                                  out, why, report))
    if any(nm in AP_NAMES and nm not in out for nm in names):
        why.update({nm: reason for nm in names if nm not in why})
        out.update(_ap_clt_tests(lambda: PermutationAPTables.of_proba(inp.codes, inp.proba, w, inp.classes),
                                 names, out, why, n_resamples=n_resamples, seed=seed))


def _row_statistic(report: dict[str, Any], inp: Any, names: list[str]) -> Any:
    """The statistic of the row permutation tests of a classification's rows in memory: the
    rows ``names`` of a permutation of the rows (its indices)."""
    w, task, k = inp.weight, inp.task, inp.classes.size
    if task in ("binary-labels", "binary-scores"):
        return _binary_row_statistic(report, inp, names)
    if task == "multiclass-labels":
        return multiclass_statistic(inp.codes, inp.pred_codes, k, w, tuple(names))
    # multi-class probabilities: the labeling metrics of the arg-max class and the scoring rows
    labeling = multiclass_statistic(inp.codes, np.argmax(inp.proba, axis=1), k, w, tuple(names))
    scoring = probabilities_statistic(inp.codes, inp.proba, w, tuple(names))

    def statistic(idx: np.ndarray) -> dict[str, np.ndarray]:
        return {**labeling(idx), **scoring(idx)}

    return statistic


def _binary_row_statistic(report: dict[str, Any], inp: Any, names: list[str]) -> Any:
    """The row permutation statistic of binary labels or scores (the predictions at the
    report's threshold when only scores are given)."""
    pos = report.get("positive_label")
    codes, pred_codes, classes = (inp.codes, inp.pred_codes, inp.classes) if inp.given is None else inp.given
    is_pos = codes == _index(classes, pos)
    pred = None if pred_codes is None else pred_codes == _index(classes, pos)
    scores = None
    if inp.task == "binary-scores":
        scores = inp.scores if inp.scores.ndim == 1 else inp.scores[:, _index(inp.classes, pos)]
        if inp.given is None:
            pred = scores >= float(report["threshold"])
    return binary_statistic(is_pos, inp.weight, pred=pred, scores=scores, names=tuple(names))


def _cells_of_inputs(inp: Any, report: dict[str, Any]) -> tuple[Any, Any]:
    """(the cells of the predicted labels, the cells of the distinct scores) of weighted rows in
    memory, as the engines compute them (:class:`~beyondchance.inference.permutation.clt.PermutationCells`)."""
    w, task = inp.weight, inp.task
    if task == "binary-scores":
        pos = _index(inp.classes, report.get("positive_label"))
        scores = inp.scores if inp.scores.ndim == 1 else inp.scores[:, pos]
        labels = None
        if inp.given is not None:
            codes, pred_codes, classes = inp.given
            labels = PermutationCells.from_codes(pred_codes, codes, w, keys=classes, classes=classes)
        return labels, PermutationCells.of_scores(inp.codes == pos, scores, w)
    pred = np.argmax(inp.proba, axis=1) if task == "multiclass-probabilities" else inp.pred_codes
    return PermutationCells.from_codes(pred, inp.codes, w, keys=inp.classes, classes=inp.classes), None


#: why a report from statistics alone has no row permutation test
_NO_ROWS = ("the permutation test of weighted rows, class probabilities or a regression shuffles the rows, which "
            "statistics do not hold (of regression rows they give the squared error's, of the log loss and Brier "
            f"score of up to {MAX_LOSS_CLASSES} classes their permutation CLT): report on the rows (keep them, not "
            "only their statistics)")


def _loss_clt_tests(sums: Any, names: list[str], done: dict[str, PermutationTestResult], why: dict[str, str]
                    ) -> dict[str, PermutationTestResult]:
    """The permutation CLT of the log loss and Brier score
    (:class:`~beyondchance.inference.permutation.loss.PermutationLossSums`) of the rows ``names`` that
    have no test in ``done`` — the fallback where no row or cell test exists."""
    out: dict[str, PermutationTestResult] = {}
    if sums is None:
        return out
    for nm in names:
        if nm in LOSS_NAMES and nm not in done and nm in sums.first:
            try:
                out[nm] = sums.test(nm)
            except InvalidInputError as exc:
                why[nm] = str(exc)
    return out


def _auc_clt_tests(sums: Any, names: list[str], done: dict[str, PermutationTestResult], why: dict[str, str],
                   report: dict[str, Any]) -> dict[str, PermutationTestResult]:
    """The permutation CLT of the one-vs-rest ROC AUCs of class probabilities
    (:class:`~beyondchance.inference.permutation.auc.PermutationAUCSums`) of the rows ``names`` that
    have no test in ``done``, at the report's values."""
    out: dict[str, PermutationTestResult] = {}
    if sums is None:
        return out
    for nm in names:
        if nm in AUC_NAMES and nm not in done:
            value = report.get("metrics", {}).get(nm, {}).get("value")
            try:
                out[nm] = sums.test(nm, None if value is None else float(value))
            except InvalidInputError as exc:
                why[nm] = str(exc)
    return out


def _ap_clt_tests(tables: Any, names: list[str], done: dict[str, PermutationTestResult], why: dict[str, str], *,
                  n_resamples: int, seed: int) -> dict[str, PermutationTestResult]:
    """The joint permutation CLT of the one-vs-rest tables of class probabilities
    (:mod:`beyondchance.inference.permutation.average_precision`: the binned average precisions) of the rows ``names``
    that have no test in ``done``; ``tables``: a callable giving the
    :class:`~beyondchance.inference.permutation.average_precision.PermutationAPTables` (or raising InvalidInputError)."""
    todo = tuple(nm for nm in names if nm in AP_NAMES and nm not in done)
    if not todo:
        return {}
    try:
        return ap_clt_tests(tables(), todo, n_resamples=n_resamples, random_state=seed)
    except InvalidInputError as exc:
        why.update(dict.fromkeys(todo, str(exc)))
        return {}


def _auc_sums_of_source(report: dict[str, Any], names: list[str], why: dict[str, str]) -> PermutationAUCSums | None:
    """The PermutationAUCSums of an engine's class probabilities (one query of the still open
    source, :meth:`~beyondchance.engines.row_source.RowSource.auc_sums`), None where they do
    not apply."""
    rs = report.get("row_source")
    if rs is None or rs.p.task != "multiclass-probabilities" or not any(nm in AUC_NAMES for nm in names):
        return None
    try:
        return rs.auc_sums()
    except InvalidInputError as exc:  # the rows keep their reason
        why.update({nm: str(exc) for nm in names if nm in AUC_NAMES})
        return None


def _loss_sums_of_inputs(inp: Any, report: dict[str, Any]) -> PermutationLossSums | None:
    """The PermutationLossSums of the rows in memory, as the engines compute them (None where
    they do not apply: scores outside [0, 1], more than ``MAX_LOSS_CLASSES`` classes)."""
    if inp.task == "binary-scores":
        pos = _index(inp.classes, report.get("positive_label"))
        scores = inp.scores if inp.scores.ndim == 1 else inp.scores[:, pos]
        if scores.size == 0 or scores.min() < 0 or scores.max() > 1:
            return None
        return PermutationLossSums.of_scores(inp.codes == pos, scores, inp.weight)
    if inp.task == "multiclass-probabilities" and inp.classes.size <= MAX_LOSS_CLASSES:
        return PermutationLossSums.of_proba(inp.codes, inp.proba, inp.weight, inp.classes)
    return None


def _clt_tests(report: dict[str, Any], names: list[str], labels: Any, scores: Any, *, n_resamples: int, seed: int,
               why: dict[str, str], reason: str) -> dict[str, PermutationTestResult]:
    """The permutation CLT tests (:mod:`beyondchance.inference.permutation.clt`) of the labeling metrics
    (from the cells of the predicted labels, or of the scores at the threshold) and of the
    AUCs and losses of binary scores (the cells of the distinct scores, pooled into
    ``PERMUTATION_BINS`` bins beyond ``MAX_SCORE_BINS``); ``why``: ``reason`` for the others."""
    labeling = tuple(nm for nm in names if nm in METRICS)
    scored = tuple(nm for nm in names if nm in SCORE_MEASURES)
    out: dict[str, PermutationTestResult] = {}
    if labeling and labels is not None:
        binary = report.get("positive_label") is not None and labels.classes.size == 2
        out.update(clt_tests_of_labels(labels, labeling, pos=_index(labels.classes, report["positive_label"])
                                       if binary else None, n_resamples=n_resamples, random_state=seed))
    if scores is not None and (scored or (labeling and labels is None)):
        measures = scored + (labeling if labels is None else ())
        out.update(clt_tests_of_scores(scores, measures, threshold=report.get("threshold"),
                                       max_bins=_permutation_bins(scores.keys.size), n_resamples=n_resamples,
                                       random_state=seed))
    why.update(dict.fromkeys(names, reason))
    return out


def _index(classes: np.ndarray, label: Any) -> int:
    """Position of the report's (positive) label among the classes."""
    values = [_label(c) for c in classes.tolist()]
    if label not in values:
        raise InvalidInputError(f"the positive label {label!r} is not among the classes {values}")
    return values.index(label)


def _regression_tests(inp: Any, names: list[str], quantile: float | None, *, n_resamples: int, seed: int,
                      why: dict[str, str], stats: Any = None) -> dict[str, PermutationTestResult]:
    """MSE and R²: the permutation CLT from the moments; MAE, D² and the pinball rows: Monte
    Carlo permutations of the predictions against the (target, weight) rows (a test of the
    loss is one of its D², the baseline being fixed); beyond ``ROW_BUDGET`` the permutation
    CLT of their loss sums (:mod:`beyondchance.inference.permutation.absolute_error`), the sums those of the
    report's statistics ``stats`` when it holds them."""
    out: dict[str, PermutationTestResult] = {}
    if "mse" in names or "r2" in names:
        t = squared_loss_test(inp.target, inp.prediction, inp.weight)
        out.update({name: t for name in ("mse", "r2") if name in names})
    losses = _regression_losses(names, quantile)
    if losses:
        try:
            draws = permutation_draws(inp.n, n_resamples, cost=2 * len(losses))
        except InvalidInputError as exc:  # too many rows: Hoeffding's CLT of the loss sums (permutation_absolute)
            why.update(dict.fromkeys(names, str(exc)))
            hist = AbsoluteErrorHistograms.of_rows(inp.target, inp.prediction, inp.weight)
            sums = _loss_sums_of_statistics(stats, losses)
            if sums is None:
                w = np.ones(inp.n) if inp.weight is None else inp.weight
                sums = {loss: float(np.dot(w, get_loss(lo).pointwise(inp.prediction, inp.target)))
                        for loss, lo in losses.items()}
            out.update(_absolute_tests(hist, sums, names, quantile, why))
            return out
        tests = row_permutation_tests(regression_statistic(inp.target, inp.prediction, inp.weight, losses), inp.n,
                                      dict.fromkeys(losses, False), n_resamples=draws, random_state=seed)
        out.update({name: tests[_REGRESSION[name]] for name in names if _REGRESSION.get(name) in tests})
    return out


def _absolute_tests(hist: Any, sums: dict[str, float], names: list[str], quantile: float | None,
                    why: dict[str, str]) -> dict[str, PermutationTestResult]:
    """The permutation CLT of the absolute-error and pinball loss sums
    (:class:`~beyondchance.inference.permutation.absolute_error.AbsoluteErrorHistograms`; ``sums``: loss ->
    the observed weighted sum) of the regression rows ``names`` — beyond ``ROW_BUDGET``."""
    tests: dict[str, PermutationTestResult] = {}
    for loss, total in sums.items():
        try:
            tests[loss] = hist.test(total, None if loss == "absolute" else quantile,
                                    name="mae" if loss == "absolute" else "pinball_loss")
        except InvalidInputError as exc:
            why.update({nm: str(exc) for nm in names if _REGRESSION.get(nm) == loss})
    return {nm: tests[_REGRESSION[nm]] for nm in names if _REGRESSION.get(nm) in tests}


def _absolute_tests_of_source(report: dict[str, Any], names: list[str], why: dict[str, str]
                              ) -> dict[str, PermutationTestResult]:
    """An engine's regression beyond the budget: the permutation CLT of the absolute and
    pinball loss sums from the exact histograms of y and of the predictions
    (:meth:`~beyondchance.engines.row_source.RowSource.absolute_histograms`) and the
    engine's loss sums; ``why``: the reason when there is none."""
    losses, rs = _regression_losses(names, report.get("quantile")), report.get("row_source")
    sums = _loss_sums_of_statistics(report["statistics"], losses)
    if not losses or rs is None or sums is None:
        return {}
    try:
        hist = rs.absolute_histograms()
    except InvalidInputError as exc:
        why.update({nm: str(exc) for nm in names if nm in _REGRESSION})
        return {}
    return _absolute_tests(hist, sums, names, report.get("quantile"), why)


def _loss_sums_of_statistics(stats: Any, losses: dict[str, Any]) -> dict[str, float] | None:
    """loss -> the observed weighted loss sum Σ w ℓ of the regression's statistics (the
    absolute error and the pinball loss of the report's quantile), None when they lack one."""
    sums = getattr(getattr(stats, "loss_sums", None), "sums", None)
    keys = {loss: "absolute" if loss == "absolute" else lo.name for loss, lo in losses.items()}
    if sums is None or any(k not in sums for k in keys.values()):
        return None
    return {loss: float(sums[k]) for loss, k in keys.items()}


#: the report notes the chance value of the average precision when it exceeds π by this factor
CHANCE_NOTE_ABOVE = 1.1
