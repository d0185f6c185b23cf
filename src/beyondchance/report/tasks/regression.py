"""The regression report: squared and absolute error against the best constants, the mean
and the median (R² and D², the prediction advantages of the two losses).

From the statistics of the ``"regression"`` task (any engine): the
:class:`~beyondchance.stats.LossSums` (the model's risks), the
:class:`~beyondchance.stats.Moments` (the mean and Var(Y), the squared-loss baseline)
and the exact :class:`~beyondchance.stats.ValueHistogram` of y (its weighted median,
the absolute-loss baseline).  Intervals: the replicates of the grouped Poisson bootstrap
(:mod:`beyondchance.replicates`, :func:`~beyondchance.replicates.regression_intervals`),
whose per-group sums every engine computes: the seeded intervals agree across engines.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...replicates import GroupTotals, regression_replicate_values
from ...stats import SufficientStatistics
from .._core import _Context
from .._intervals import replicate_interval, replicate_totals
from .._results import MetricCI


def regression_rows(
    stats: SufficientStatistics, ctx: _Context, *, n_rows: int, weighted: bool, totals: GroupTotals | None = None,
) -> dict[str, Any]:
    """The rows of a regression report from its statistics (``totals``: the task's group
    totals, :data:`~beyondchance.replicates.REGRESSION_COLUMNS`, for the intervals)."""
    ctx.step("computing the regression losses")
    sq = stats.prediction_advantage("squared")
    ab = stats.prediction_advantage("absolute")
    values = {"mse": float(sq.risk), "mae": float(ab.risk), "r2": float(sq.value), "d2_absolute_error": float(ab.value)}
    intervals: dict[str, MetricCI | None] = {}
    notes: list[str] = []
    if totals is not None and ctx.ci:
        ctx.step("bootstrapping the regression measures")
        replicates = regression_replicate_values(replicate_totals(totals, ctx))
        intervals = {name: replicate_interval(v, ctx) for name, v in replicates.items()
                     if np.isfinite(values[name])}
    elif ctx.ci:
        notes.append("intervals of the regression measures need the row order (files or a data frame): not "
                     "computed for a DuckDB relation")
    mean = f"always predicting the mean {sq.baseline.prediction:.4g}"
    median = f"always predicting the median {ab.baseline.prediction:.4g}"
    metrics = {
        "mse": dict(kind="loss", value=values["mse"], baseline=float(sq.baseline_risk), ideal=0.0,
                    baseline_prediction=mean, greater_is_better=False),
        "mae": dict(kind="loss", value=values["mae"], baseline=float(ab.baseline_risk), ideal=0.0,
                    baseline_prediction=median, greater_is_better=False),
        "r2": dict(kind="advantage", value=values["r2"], baseline=0.0, ideal=1.0,
                   baseline_prediction=mean, greater_is_better=True),
        "d2_absolute_error": dict(kind="advantage", value=values["d2_absolute_error"], baseline=0.0, ideal=1.0,
                                  baseline_prediction=median, greater_is_better=True),
    }
    for name, spec in metrics.items():
        spec["ci"] = intervals.get(name)
    out: dict[str, Any] = {"metrics": metrics, "notes": notes, "n": n_rows,
                           "total_weight": float(stats.n) if weighted else None}
    out["ci_description"] = (
        f"{int(round(ctx.level * 100))}% intervals: percentile grouped Poisson bootstrap of the rows, "
        f"{ctx.n_resamples} replicates (the mean re-estimated in every replicate; the median of D² kept at the "
        "sample's, a first-order approximation: the absolute-loss risk is flat at its minimum)"
    ) if intervals else "not computed"
    return out
