"""The multi-class probabilities report: the labeling metrics of the arg-max class and the
log loss and Brier score against the class frequencies (the BMP of each loss).

From the statistics of the ``"probabilities"`` task (any engine): the
:class:`~beyondchance.confusion.ConfusionMatrix` of the arg-max class, the
:class:`~beyondchance.stats.LabelCounts` (the baseline: always predicting the class
frequencies) and the :class:`~beyondchance.stats.LossSums` (the model's risk).
Intervals: the labeling metrics of unweighted data resample the confusion-matrix cells;
the losses (and the labeling metrics of weighted data) come from the replicates of the
grouped Poisson bootstrap (:mod:`beyondchance.replicates`), whose per-group sums every
engine computes: the seeded intervals agree across engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...replicates import GroupTotals
from ...stats import SufficientStatistics
from .._core import _Context
from .._intervals import replicate_interval, replicate_totals
from .._results import MetricCI
from .labels import labels_rows, replicate_matrices

#: report name -> loss of :mod:`beyondchance.baselines`
_LOSSES = {"log_loss": "cross_entropy", "brier": "brier"}


def probabilities_rows(
    stats: SufficientStatistics, ctx: _Context, *, n_rows: int, weighted: bool, totals: GroupTotals | None = None,
    counts0: np.ndarray | None = None,
) -> dict[str, Any]:
    """The rows of a probabilities report from its statistics.

    ``totals``: the group totals of the task (:func:`~beyondchance.replicates.probability_columns`)
    for the intervals (None: no intervals of the losses); ``counts0``: the unweighted row
    count of y_true per class (default: the statistics' label counts).
    """
    cm = stats.confusion
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
    if reps is not None:
        out["ci_description"] += "; log loss and Brier score: percentile grouped Poisson bootstrap of the rows"
    elif ctx.ci:
        out["notes"].append("intervals of the log loss and Brier score need the row order (files or a data "
                            "frame): not computed for a DuckDB relation")
    return out


def _loss_intervals(reps: np.ndarray, k: int, ctx: _Context) -> dict[str, MetricCI | None]:
    """Σw·loss / Σw of each replicate (columns: k class weights, log loss, Brier, cells)."""
    w = reps[:, :k].sum(axis=1)
    with np.errstate(all="ignore"):
        return {"log_loss": replicate_interval(reps[:, k] / w, ctx), "brier": replicate_interval(reps[:, k + 1] / w, ctx)}
