"""The report's p-values of "no better than chance", from its statistics (classification
reports of unweighted data):

* accuracy and the prediction advantage (0/1 loss): McNemar's exact test of the model
  against the best constant (always the majority class) on the rows where they differ —
  exactly "better than the best constant prediction", since PA > 0 ⟺ the model is right
  on more of those rows;
* the other labeling metrics: the exact permutation test from the confusion counts
  (hypergeometric TP given the margins; :mod:`beyondchance.permutation`); multi-class, the
  Monte Carlo permutation test over the tables of the observed margins;
* AUCs and losses: the permutation test over the (score, label) counts, Monte Carlo with
  the report's number of resamples and seed, one cell per distinct score up to
  ``MAX_SCORE_BINS`` distinct scores (the bootstrap's cells); beyond, the scores pooled into
  ``PERMUTATION_BINS`` bins of equal row count — an exact permutation test of the binned
  measure, whose draws stay cheap at 10⁷ rows (the losses need one cell per distinct score)."""

from __future__ import annotations

import math
from typing import Any

from .._warnings import InvalidInputError
from ..metrics import METRICS
from ..permutation import (
    SCORE_MEASURES,
    PermutationTestResult,
    permutation_test_of_counts,
    permutation_test_of_matrix,
    permutation_test_of_scores,
    permutation_tests_of_scores,
)
from ._results import MAX_SCORE_BINS

__all__ = ["chance_test", "chance_pvalues", "describe_test", "AGAINST_CONSTANT"]

#: the scores of the Monte Carlo permutation test, when they must be pooled, go into this many bins
PERMUTATION_BINS = 200

#: the measures tested against the best constant (McNemar) rather than against chance
AGAINST_CONSTANT = ("accuracy", "prediction_advantage")


def describe_test(r: PermutationTestResult) -> str:
    """How a p-value was computed, in a few words."""
    if r.method in ("exact", "exact mid-p"):
        return "exact permutation" + (f", mid-p (conservative p {r.pvalue_conservative:.3g})"
                                      if r.method == "exact mid-p" else "")
    if r.method in ("mcnemar", "mcnemar mid-p"):
        return "McNemar exact" + (f", mid-p (conservative p {r.pvalue_conservative:.3g})"
                                  if r.method == "mcnemar mid-p" else "") + ", against always predicting the majority class"
    if r.method == "binomial":
        return "binomial, against the no-information rate"
    return f"permutation, {r.n_resamples} Monte Carlo draws (s.e. {r.pvalue_standard_error:.2g})"


def chance_test(name: str, *, task: str, confusion: Any, counts: Any, weighted: bool, binary: bool,
                n_resamples: int, seed: int) -> PermutationTestResult:
    """The test of ``name`` against chance from a report's statistics; InvalidInputError
    saying why when they do not give one."""
    if weighted:
        raise InvalidInputError("the p-value against chance needs row counts; this report is of weighted data")
    if name in METRICS and confusion is not None and confusion.n_classes > 2:
        return permutation_test_of_matrix(name, confusion.matrix, n_resamples=n_resamples, random_state=seed,
                                          method="mcnemar" if name in AGAINST_CONSTANT else "monte-carlo")
    if not binary:
        raise InvalidInputError(f"no p-value against chance for {name} in a {task} report: it applies to the "
                                "labeling metrics of classification reports and the AUCs and losses of binary scores")
    if name in METRICS and confusion is not None and confusion.n_classes == 2:
        tp, fp, fn, tn = (int(round(v)) for v in confusion.binary_counts())
        return permutation_test_of_counts(name, tp + fp + fn + tn, tp + fn, tp + fp, tp,
                                          method="mcnemar" if name in AGAINST_CONSTANT else "exact")
    if name in SCORE_MEASURES and counts is not None:
        if not counts.is_defined:
            raise InvalidInputError("y_true holds a single class: every permutation gives the same value")
        return permutation_test_of_scores(name, counts, n_resamples=n_resamples, random_state=seed,
                                          max_bins=_permutation_bins(counts))
    raise InvalidInputError(f"no p-value against chance for {name}; it applies to the labeling metrics and the "
                            "AUCs and losses of binary scores")


def _permutation_bins(tc: Any) -> int:
    """Cells of the permutation test: one per distinct score when the bootstrap has them,
    else ``PERMUTATION_BINS`` bins."""
    return MAX_SCORE_BINS if tc.thresholds.size <= MAX_SCORE_BINS else PERMUTATION_BINS


def chance_pvalues(report: dict[str, Any], names: list[str], *, n_resamples: int, seed: int
                   ) -> dict[str, tuple[float, str]]:
    """name -> (p-value, method) for the metrics whose test the statistics give (others left
    out); adds to ``report["notes"]`` the chance value of the average precision when it lies
    well above the prevalence (few positives).  The score measures share one set of draws."""
    cm, tc = report.get("confusion"), report.get("counts")
    if report.get("total_weight") is not None or cm is None:
        return {}
    results: dict[str, PermutationTestResult] = {}
    for name in names:
        if name in METRICS and (cm.n_classes > 2 or report.get("positive_label") is not None):
            results[name] = chance_test(name, task="", confusion=cm, counts=None, weighted=False, binary=True,
                                        n_resamples=n_resamples, seed=seed)
    scored = tuple(name for name in names if name in SCORE_MEASURES)
    if scored and tc is not None and tc.is_defined:
        try:
            bins = _permutation_bins(tc)
            results.update(permutation_tests_of_scores(
                scored, tc, n_resamples=n_resamples, random_state=seed, max_bins=bins,
                cells=report.get("score_cells") if bins == MAX_SCORE_BINS else None))
        except InvalidInputError:  # a single loss that binned scores cannot test
            pass
    out: dict[str, tuple[float, str]] = {}
    for name, r in results.items():
        if not math.isfinite(r.pvalue):
            continue
        out[name] = (r.pvalue, describe_test(r))
        pi = report.get("prevalence")
        if name == "pr_auc" and pi and r.null_mean > CHANCE_NOTE_ABOVE * pi:
            report.setdefault("notes", []).append(
                f"a random ranker's average precision on this test set is {r.null_mean:.4f} on average (its chance "
                f"value, the mean of the permutation null), above the prevalence {pi:.4f}: with "
                f"{int(round(tc.n_pos))} positives the constant score's value understates chance"
            )
    return out


#: the report notes the chance value of the average precision when it exceeds π by this factor
CHANCE_NOTE_ABOVE = 1.1
