"""The binary-scores report: labeling metrics at the threshold, AUCs and probability losses,
all from the :class:`~beyondchance.measures.curves.ThresholdCounts` (exact, or of binned scores).

Intervals: the labeling metrics resample the confusion-matrix cells, the AUCs and
losses the (score, label) cells (:class:`~beyondchance.measures.binary_scores.ScoreCells`);
weighted data carry the counts of rows with positive weight (``units``), and the
labeling metrics of weighted data take the replicates of the grouped Poisson bootstrap
of the labels at the threshold (``label_totals``, from any engine).
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from ..._warnings import InvalidInputError
from ...measures.confusion import ConfusionMatrix
from ...measures.curves import ThresholdCounts
from ...inference.poisson_bootstrap import GroupTotals
from ...measures.binary_scores import ScoreCells, compress_counts, confusion_at_threshold, loss_baseline, loss_sums, per_threshold
from ...measures.task_metrics import _PROBA_LOSSES, _SCORING
from ...measures.threshold_counts import _threshold_choice  # noqa: F401  (the report's name)
from ...inference.bootstrap import bca_interval
from ...inference.few_rows_intervals import FEW_ROWS, TOO_FEW_FOR_AP, average_precision_interval, roc_auc_interval
from ..evaluation_context import _Context
from ..formatting import _label, shorten
from ..intervals import MAX_SCORE_BINS, one_sided_bounds
from ..metric_rows import MetricCI
from .labels import NO_ROW_ORDER, _labeling_rows, replicate_matrices

#: the threshold reason of a report whose predicted labels were given with the scores
GIVEN_LABELS = "no threshold: the predicted labels were given (y_pred); the scores make the curves, AUCs and losses"


def _backwards_note(roc: dict[str, Any] | None, other: Any) -> str | None:
    """The note of scores that rank the classes backwards: the ROC AUC's interval lies
    entirely below 0.5 (without an interval: the AUC is below 0.5), as when the scores of
    the other class (``other``) were passed; None otherwise.

    >>> _backwards_note({"value": 0.003, "ci": None}, "benign")
    "the scores rank the classes backwards (ROC AUC 0.003): they may be scores of the other class; pass pos_label='benign' / --pos-label benign"
    >>> _backwards_note({"value": 0.45, "ci": MetricCI(0.38, 0.52, 0.95, "percentile", 100, "cells")}, 0) is None
    True
    """
    if roc is None or other is None or not math.isfinite(roc["value"]):
        return None
    ci = roc.get("ci")
    if ci is not None and math.isfinite(ci.high):
        below = ci.high < 0.5
    else:
        below = roc["value"] < 0.5
    if not below:
        return None
    label = _label(other)
    return (f"the scores rank the classes backwards (ROC AUC {roc['value']:.3f}): they may be scores of the other "
            f"class; pass pos_label={shorten(repr(label))} / --pos-label {shorten(label)}")


#: the curve measures whose percentile interval is too short below ``FEW_ROWS`` rows of the
#: rarer class and which take the BCa interval there: the lift AUC is the mean over the
#: positives of −ln Q(score) (Q the predicted-positive rate), right-skewed; with about 20
#: positives (n = 1000, prevalence 0.02) the percentile interval covered 0.923
#: [0.906, 0.937] of 1,000 test sets, lying below the population value in 6–7% of them,
#: the BCa interval 0.933 [0.910, 0.951] of 600
SKEWED_WITH_FEW_ROWS = ("lift_auc",)


def _fewest(tc: ThresholdCounts) -> int:
    """The rows of the rarer class of unweighted counts."""
    return int(round(min(tc.n_pos, tc.n_neg)))


def _bca_interval(name: str, theta: np.ndarray, binned: float, shift: float, cells: ScoreCells, ctx: _Context,
                  cells_text: str) -> MetricCI:
    """The BCa interval of a curve measure from its resample values ``theta`` around the
    binned sample's value, its acceleration from the jackknife of the rows
    (:meth:`ScoreCells.jackknife`), shifted by the binning error ``shift``; one-sided bounds
    the BCa interval at 2 · level − 1."""
    jack, multiplicity = cells.jackknife((name,))
    low, high = bca_interval(theta, binned, ctx.level, jack[name], multiplicity)
    bounds = bca_interval(theta, binned, 2 * ctx.level - 1, jack[name], multiplicity) if ctx.level > 0.5 else None
    return MetricCI(low + shift, high + shift, ctx.level, "bca", ctx.n_resamples,
                    f"resamples of the (score, label) cells: {cells_text}; acceleration from the jackknife of the rows",
                    bounds=None if bounds is None else (bounds[0] + shift, bounds[1] + shift))


def _few_rows_intervals(rows: dict[str, dict[str, Any]], tc: ThresholdCounts, units: ThresholdCounts | None,
                        ctx: _Context) -> str | None:
    """The curve areas' intervals below :data:`~beyondchance.inference.few_rows_intervals.FEW_ROWS`
    rows of the rarer class, where the row bootstrap covers too little
    (:mod:`~beyondchance.inference.few_rows_intervals`): unweighted rows take Newcombe's
    interval of the ROC AUC and Boyd, Eng and Page's logit interval of the PR AUC; below
    ``TOO_FEW_FOR_AP`` rows of the rarer class the PR AUC — and a weighted ROC AUC — has none
    and no verdict.  Returns the note saying so, or None."""
    rows_of = tc if units is None else units  # weighted: the rows, not their weights
    m, n = int(round(rows_of.n_pos)), int(round(rows_of.n_neg))
    fewest, which = min(m, n), "positive" if m <= n else "negative"
    if fewest >= FEW_ROWS:
        return None
    declined = []
    if fewest < TOO_FEW_FOR_AP:
        declined = ["pr_auc"] if units is None else ["roc_auc", "pr_auc"]
        why = f"too few rows for an interval and a verdict: {fewest} {which} rows (at least {TOO_FEW_FOR_AP})"
        for k in declined:
            rows[k]["ci"], rows[k]["too_few"] = None, why
    if units is not None:
        return None
    closed = {"roc_auc": (lambda v, lv: roc_auc_interval(v, m, n, lv), "Newcombe score-type (method 5)"),
              "pr_auc": (lambda v, lv: average_precision_interval(v, m, lv), "logit (Boyd, Eng and Page)")}
    done = []
    for k, (interval, method) in closed.items():
        value = rows[k]["value"]
        ends = interval(value, ctx.level) if k not in declined and math.isfinite(value) else None
        if ends is None:
            continue
        bounds = interval(value, 2 * ctx.level - 1) if ctx.level > 0.5 else None
        rows[k]["ci"] = MetricCI(*ends, ctx.level, method, 0, f"closed form from {m} positive and {n} negative rows",
                                 bounds=bounds)
        done.append(k)
    titles = {"roc_auc": "the ROC AUC's is Newcombe's", "pr_auc": "the PR AUC's Boyd, Eng and Page's logit one"}
    return (f"{fewest} {which} rows, below {FEW_ROWS} the row bootstrap of the curves covers too little: "
            + ", ".join(titles[k] for k in done) + " interval" + ("; the PR AUC has none" if declined else ""))


def _binary_scores_from_counts(
    tc: ThresholdCounts, units: ThresholdCounts | None, threshold: Any, pos: Any, neg: Any,
    pos_reason: str, ctx: _Context, *, n_rows: int,
    label_totals: Callable[[float], GroupTotals | None] | None = None, given_labels: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The binary-scores report from the sufficient statistic.

    ``label_totals(threshold)``: weighted data, the group totals of kind "labels" of
    (is positive, score ≥ threshold) with classes (negative, positive), for the
    intervals of the labeling metrics (None: no intervals for them).
    ``given_labels``: the rows of the labeling metrics of predicted labels given with the
    scores (:func:`~.labels.labels_rows` of their confusion matrix); the scores then make
    the curves, AUCs and losses only, and there is no threshold.
    """
    smax, smin = float(tc.thresholds[0]), float(tc.thresholds[-1])
    probabilities = smin >= 0.0 and smax <= 1.0
    out, thr, thr_reason = _labels_at_threshold(tc, threshold, pos, neg, ctx, label_totals=label_totals,
                                                given_labels=given_labels)
    pi = tc.prevalence if tc.n > 0 else float("nan")
    names = _SCORING + (_PROBA_LOSSES if probabilities else ())
    if not probabilities:
        out["notes"].append(
            f"scores range over [{smin:.4g}, {smax:.4g}], outside [0, 1]: log loss and Brier score "
            "need probabilities and are left out"
        )
    scores = _score_values(tc, units, names, ctx)
    out["notes"] += scores.notes
    if scores.cells is not None:
        out["score_cells"] = scores.cells  # the permutation test's cells too (unweighted: the same pools)
    rows_out = {k: _score_row(k, scores.exact[k], _score_interval(k, scores, tc, units, ctx), pi) for k in names}
    few = _few_rows_intervals(rows_out, tc, units, ctx) if ctx.ci and tc.is_defined else None
    if few:
        out["notes"].append(few)
    backwards = _backwards_note(rows_out.get("roc_auc"), neg)
    if backwards:
        out["notes"].append(backwards)
        rows_out["roc_auc"]["verdict_note"] = backwards
    out["metrics"].update(rows_out)
    out.update(
        n=n_rows, counts=tc, threshold=thr, threshold_reason=thr_reason,
        positive_label=pos, negative_label=neg, positive_reason=pos_reason,
        prevalence=pi, classes=(neg, pos) if neg is not None else (pos,),
        total_weight=None if units is None else tc.n,
    )
    desc = out.get("ci_description", "")
    if ctx.ci:
        desc += (
            f"; AUCs and losses: percentile intervals from {ctx.n_resamples} resamples of the "
            f"(score, label) cells ({scores.cells_text or 'not computed'})"
        )
    out["ci_description"] = desc
    return out


def _labels_at_threshold(
    tc: ThresholdCounts, threshold: Any, pos: Any, neg: Any, ctx: _Context, *,
    label_totals: Callable[[float], GroupTotals | None] | None, given_labels: dict[str, Any] | None,
) -> tuple[dict[str, Any], float | None, str]:
    """(the labeling metrics' rows, the threshold, why that threshold): of the predicted labels
    given with the scores, or of the scores at the threshold (chosen by ``_threshold_choice``),
    with the notes of the threshold."""
    smax, smin = float(tc.thresholds[0]), float(tc.thresholds[-1])
    if given_labels is not None:
        if threshold is not None:
            raise InvalidInputError("give either a threshold or predicted labels (y_pred) with the scores, not both: "
                                    "the labels are the predictions at the model's own cut-off")
        return given_labels, None, GIVEN_LABELS
    thr, thr_reason, thr_note = _threshold_choice(threshold, smin, smax)
    tp, fp, fn, tn = confusion_at_threshold(tc, thr)
    cm = ConfusionMatrix(np.array([[tn, fp], [fn, tp]]), np.array([neg, pos], dtype=object), pos_label=pos)
    replicates = None
    label_ctx = ctx
    if label_totals is not None and ctx.ci:  # weighted: the grouped bootstrap, or no interval
        totals = label_totals(thr)
        if totals is not None:
            replicates = replicate_matrices(totals, ctx, np.array([neg, pos], dtype=object))
        else:
            label_ctx = dataclasses.replace(ctx, ci=False)
    out = _labeling_rows(cm, label_ctx, binary=True, replicates=replicates)
    if label_ctx is not ctx:
        out["notes"].append(NO_ROW_ORDER)
    if thr_note:
        out["notes"].append(thr_note)
    if tp + fp == 0 or tn + fn == 0:
        out["notes"].append(f"at threshold {thr:g} every row is predicted "
                            f"{'negative' if tp + fp == 0 else 'positive'} (scores range over [{smin:.4g}, {smax:.4g}])")
    return out, thr, thr_reason


@dataclasses.dataclass
class _ScoreValues:
    """The score measures' values and resamples: ``exact`` the values of the sample,
    ``dists`` their resample values, ``shifts`` exact − binned, ``cells`` the bootstrap's
    (score, label) cells (None without intervals), ``cells_text`` their description."""

    exact: dict[str, float]
    dists: dict[str, np.ndarray]
    shifts: dict[str, float]
    cells: ScoreCells | None
    cells_text: str
    notes: list[str]


def _score_values(tc: ThresholdCounts, units: ThresholdCounts | None, names: tuple[str, ...],
                  ctx: _Context) -> _ScoreValues:
    """The AUCs and losses of the sample (exact) and, with intervals, their resamples of the
    (score, label) cells, shifted by the binning error where the scores were binned."""
    ctx.step("computing the curves")
    losses = tuple(k for k in names if k in _PROBA_LOSSES)
    defined = tc.is_defined
    per = per_threshold(tc) if losses or (ctx.ci and defined) else None
    exact: dict[str, float] = {}
    if defined:
        small = compress_counts(tc, pos_weights=None if per is None else per[1])  # the same curves on fewer points
        exact["roc_auc"] = small.auc("roc")
        exact["pr_auc"] = small.auc("pr", method="ap")
        exact["lift_auc"] = small.auc("lift", method="interpolated")
    else:
        exact.update({k: float("nan") for k in _SCORING})
    if not (ctx.ci and defined):
        for loss in losses:
            ssum, wsum = loss_sums(tc, loss, per=per)
            exact[loss] = ssum / wsum
        return _ScoreValues(exact, {}, {}, None, "", [])
    ctx.step("bootstrapping the curves")
    cells = ScoreCells.from_counts(tc, units, max_bins=MAX_SCORE_BINS, losses=losses, per=per)
    del per  # the weights per distinct score (two arrays of up to n) are in the cells: not kept through the bootstrap
    exact.update({loss: cells.loss_total(loss) / tc.n for loss in losses})
    binned = cells.point_measures(names)
    dists = cells.bootstrap(names, n_resamples=ctx.n_resamples, rng=np.random.default_rng(ctx.seed))
    shifts = {k: exact[k] - binned[k] for k in names}
    notes = []
    if not cells.exact:
        worst = max(abs(v) for v in shifts.values())
        notes.append(f"score bootstrap on {cells.n_bins} bins of adjacent scores; intervals are shifted by the "
                     f"binning error (largest {worst:.2g})")
    return _ScoreValues(exact, dists, shifts, cells, cells.describe(), notes)


def _score_interval(k: str, scores: _ScoreValues, tc: ThresholdCounts, units: ThresholdCounts | None,
                    ctx: _Context) -> MetricCI | None:
    """A score measure's interval from its resamples: percentile, or BCa for a skewed one
    (:data:`SKEWED_WITH_FEW_ROWS`) of unweighted rows below ``FEW_ROWS`` of the rarer class;
    None without two defined resample values."""
    if k not in scores.dists or scores.cells is None:
        return None
    theta = scores.dists[k]
    theta = theta[np.isfinite(theta)]
    if theta.size < 2:
        return None
    shift = scores.shifts[k]
    if k in SKEWED_WITH_FEW_ROWS and units is None and _fewest(tc) < FEW_ROWS:
        return _bca_interval(k, theta, scores.exact[k] - shift, shift, scores.cells, ctx, scores.cells_text)
    alpha = 1 - ctx.level
    lo_q, hi_q = np.quantile(theta, [alpha / 2, 1 - alpha / 2])
    b_lo, b_hi = one_sided_bounds(theta, ctx.level)
    return MetricCI(float(lo_q + shift), float(hi_q + shift), ctx.level, "percentile", ctx.n_resamples,
                    f"resamples of the (score, label) cells: {scores.cells_text}", bounds=(b_lo + shift, b_hi + shift))


def _score_row(k: str, value: float, ci: MetricCI | None, pi: float) -> dict[str, Any]:
    """The row of an AUC (best constant: a constant score) or a loss (best constant: always
    predicting the prevalence) at prevalence ``pi``."""
    if k in _SCORING:
        base = {"roc_auc": 0.5, "pr_auc": pi, "lift_auc": 1.0}[k]
        ideal = 1.0 if k != "lift_auc" else (1.0 - math.log(pi) if 0 < pi < 1 else float("nan"))
        return dict(kind="scoring", value=value, baseline=base, ideal=ideal,
                    baseline_prediction="a constant score", greater_is_better=True, ci=ci)
    what = f"always predicting the prevalence {pi:.3g}" if math.isfinite(pi) else "the prior"
    return dict(kind="loss", value=value, baseline=float(loss_baseline(pi, k)), ideal=0.0,
                baseline_prediction=what, greater_is_better=False, ci=ci)
