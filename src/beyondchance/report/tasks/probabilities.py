"""The multi-class probabilities report: the labeling metrics of the arg-max class and the
log loss and Brier score against the class frequencies (the BMP of each loss), and the
one-vs-rest ROC AUC and average precision of the class probabilities.

From the statistics of the ``"multiclass-probabilities"`` task (any engine): the
:class:`~beyondchance.measures.confusion.ConfusionMatrix` of the arg-max class, the
:class:`~beyondchance.statistics.labels.LabelCounts` (the baseline: always predicting the class
frequencies) the :class:`~beyondchance.statistics.values.LossSums` (the model's risk) and the
:class:`~beyondchance.statistics.scores.ClassScoreCounts` (the AUCs).
Intervals: the labeling metrics of unweighted data resample the confusion-matrix cells;
the losses (and the labeling metrics of weighted data) come from the replicates of the
grouped Poisson bootstrap (:mod:`beyondchance.inference.poisson_bootstrap`), whose per-group sums every
engine computes: the seeded intervals agree across engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...inference.poisson_bootstrap import GroupTotals
from ...statistics.sufficient import SufficientStatistics
from ...statistics.scores import ClassScoreCounts
from ..evaluation_context import _Context
from ..intervals import replicate_interval, replicate_totals
from ..formatting import _label
from ..metric_rows import MetricCI
from ..per_class import with_scoring_columns
from .labels import labels_rows, replicate_matrices

#: report name -> loss of :mod:`beyondchance.measures.losses`
_LOSSES = {"log_loss": "cross_entropy", "brier": "brier"}


def probabilities_rows(
    stats: SufficientStatistics, ctx: _Context, *, n_rows: int, weighted: bool, totals: GroupTotals | None = None,
    counts0: np.ndarray | None = None,
) -> dict[str, Any]:
    """The rows of a probabilities report from its statistics.

    ``totals``: the group totals of the task (:func:`~beyondchance.inference.poisson_bootstrap.probability_columns`)
    for the intervals (None: no intervals of the losses); ``counts0``: the unweighted row
    count of y_true per class (default: the statistics' label counts).
    """
    cm = stats.confusion
    assert cm is not None and stats.label_counts is not None  # the statistics of class probabilities hold both
    classes = np.asarray(cm.labels)
    counts0 = stats.label_counts.counts if counts0 is None else counts0
    reps = label_reps = None
    if totals is not None and ctx.ci:
        ctx.step("bootstrapping the probability losses")
        reps = replicate_totals(totals, ctx)
        if weighted:
            label_reps = replicate_matrices(totals, ctx, classes, first=classes.size + 2, replicates=reps)
    out = labels_rows(cm, counts0, ctx, binary=False, pos_label=None, n_rows=n_rows, weighted=weighted,
                      replicates=label_reps)
    ctx.step("computing the probability losses")
    results = {name: stats.prediction_advantage(loss) for name, loss in _LOSSES.items()}
    intervals = _loss_intervals(reps, classes.size, ctx) if reps is not None else {}
    for name, res in results.items():
        out["metrics"][name] = dict(
            kind="loss", value=float(res.risk), baseline=float(res.baseline_risk), ideal=0.0,
            baseline_prediction="always predicting the class frequencies", greater_is_better=False,
            ci=intervals.get(name),
        )
    if stats.class_scores is not None:
        out["metrics"].update(_auc_rows(stats.class_scores, out["notes"], ci=ctx.ci))
        _per_class_aucs(out, stats.class_scores, ctx)
    if reps is not None:
        out["ci_description"] += "; log loss and Brier score: percentile grouped Poisson bootstrap of the rows"
    elif ctx.ci:
        out["notes"].append("intervals of the log loss and Brier score need the row order (files or a data "
                            "frame): not computed for a DuckDB relation")
    return out


#: report name -> (curve, title) of the one-vs-rest AUCs, macro averages
_AUCS = {"roc_auc": ("roc", "ROC AUC (one-vs-rest, macro)"), "pr_auc": ("pr", "Avg. precision (one-vs-rest, macro)")}
#: report name -> (macro row, title) of their averages weighted by the classes' supports
_WEIGHTED_AUCS = {"roc_auc_weighted": ("roc_auc", "ROC AUC (one-vs-rest, weighted)"),
                  "pr_auc_weighted": ("pr_auc", "Avg. precision (one-vs-rest, weighted)")}


def _auc_rows(scores: ClassScoreCounts, notes: list[str], *, ci: bool) -> dict[str, dict[str, Any]]:
    """The one-vs-rest ROC AUC and average precision, macro and weighted by the classes'
    supports (scikit-learn's ``roc_auc_score(multi_class="ovr", average=...)`` and
    ``average_precision_score`` of the binarized labels), with each class's value and
    prevalence for the OPS per class (averaged the same way).

    Baselines: a constant score has ROC AUC 0.5 and average precision π_j for class j,
    so their macro averages are 0.5 and 1/K, their weighted averages 0.5 and Σ π_j².
    """
    prev = scores.prevalences
    defined = bool(((prev > 0) & (prev < 1)).all())
    if not defined:
        absent = [str(c) for c, p in zip(scores.classes.tolist(), prev) if p <= 0]
        notes.append("one-vs-rest AUCs undefined: no rows of class " + ", ".join(absent))
    rows: dict[str, dict[str, Any]] = {}
    for name, (kind, title) in _AUCS.items():
        values = scores.auc(kind, average=None) if defined else np.full(prev.shape, np.nan)
        rows[name] = dict(
            kind="scoring", value=float(np.mean(values)), baseline=0.5 if kind == "roc" else float(np.mean(prev)),
            ideal=1.0, baseline_prediction="a constant score", greater_is_better=True, ci=None, title=title,
            per_class=values if defined else None, prevalences=prev,
        )
    for name, (macro, title) in _WEIGHTED_AUCS.items():
        m = rows[macro]
        rows[name] = dict(m, title=title, value=float(np.average(m["per_class"], weights=prev)) if defined else np.nan,
                          baseline=0.5 if macro == "roc_auc" else float(np.sum(prev * prev)), ops_of=macro,
                          class_weights=prev)
    bound = scores.auc_error_bound("roc")
    if bound > 0:
        notes.append(f"one-vs-rest AUCs of binned probabilities: within {bound:.2g} (ROC AUC, macro) "
                     f"and {scores.auc_error_bound('pr'):.2g} (average precision) of the exact values")
    if ci:
        notes.append("the one-vs-rest AUCs have no interval: the classes share their rows, and the "
                     "statistics hold no joint resampling of every class's scores")
    return rows


def _per_class_aucs(out: dict[str, Any], scores: ClassScoreCounts, ctx: _Context) -> None:
    """Each class's one-vs-rest ROC AUC and average precision in the per-class table (in the
    table's class order: the confusion matrix's, which may hold classes only predicted)."""
    table = out.get("per_class")
    rows = {name: out["metrics"][name].get("per_class") for name in _AUCS}
    if table is None or any(v is None for v in rows.values()):
        return
    index = {_label(c): i for i, c in enumerate(scores.classes.tolist())}
    where = [index.get(c) for c in table.classes]
    values = {name: np.array([np.nan if i is None else v[i] for i in where]) for name, v in rows.items()}
    out["per_class"] = with_scoring_columns(table, values, mc_samples=ctx.mc_samples)


def _loss_intervals(reps: np.ndarray, k: int, ctx: _Context) -> dict[str, MetricCI | None]:
    """Σw·loss / Σw of each replicate (columns: k class weights, log loss, Brier, cells)."""
    w = reps[:, :k].sum(axis=1)
    with np.errstate(all="ignore"):
        return {"log_loss": replicate_interval(reps[:, k] / w, ctx), "brier": replicate_interval(reps[:, k + 1] / w, ctx)}
