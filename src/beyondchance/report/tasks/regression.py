"""The regression report: squared and absolute error against the best constants, the mean
and the median (R² and D², the prediction advantages of the two losses), and for a
quantile model the pinball loss of its level τ against the best constant, the τ-quantile
of y (scikit-learn's ``mean_pinball_loss`` and ``d2_pinball_score``).

From the statistics of the ``"regression"`` task (any engine): the
:class:`~beyondchance.statistics.values.LossSums` (the model's risks), the
:class:`~beyondchance.statistics.values.Moments` (the mean and Var(Y), the squared-loss baseline)
and the exact :class:`~beyondchance.statistics.values.ValueHistogram` of y (its weighted median and
quantiles, the absolute- and pinball-loss baselines).  Intervals: the replicates of the grouped Poisson bootstrap
(:mod:`beyondchance.inference.poisson_bootstrap`, :func:`~beyondchance.inference.poisson_bootstrap.regression_intervals`),
whose per-group sums every engine computes: the seeded intervals agree across engines.
"""

from __future__ import annotations

from typing import Any, cast

import numpy as np

from ...measures.losses import PinballLoss
from ...inference.poisson_bootstrap import GroupTotals, regression_replicate_values
from ...statistics.sufficient import SufficientStatistics
from ..evaluation_context import _Context
from ..intervals import replicate_interval, replicate_totals
from ..metric_rows import MetricCI


def regression_rows(
    stats: SufficientStatistics, ctx: _Context, *, n_rows: int, weighted: bool, totals: GroupTotals | None = None,
    quantile: float | None = None,
) -> dict[str, Any]:
    """The rows of a regression report from its statistics (``totals``: the task's group
    totals, :data:`~beyondchance.inference.poisson_bootstrap.REGRESSION_COLUMNS`, for the intervals;
    ``quantile``: the level τ the predictions estimate, which adds the pinball rows — the
    statistics then hold the pinball loss sums of τ)."""
    ctx.step("computing the regression losses")
    sq = stats.prediction_advantage("squared")
    ab = stats.prediction_advantage("absolute")
    values = {"mse": float(sq.risk), "mae": float(ab.risk), "r2": float(sq.value), "d2_absolute_error": float(ab.value)}
    pb = None
    if quantile is not None:
        pb = stats.prediction_advantage(PinballLoss(quantile))
        values.update(pinball_loss=float(pb.risk), d2_pinball_score=float(pb.value))
    intervals: dict[str, MetricCI | None] = {}
    notes: list[str] = []
    if totals is not None and ctx.ci:
        ctx.step("bootstrapping the regression measures")
        # regression totals carry their quantile in the info (None there fails as before)
        replicates = regression_replicate_values(replicate_totals(totals, ctx), cast(dict, totals.info)["quantile"])
        intervals = {name: replicate_interval(v, ctx) for name, v in replicates.items()
                     if name in values and np.isfinite(values[name])}
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
    if pb is not None:
        level = f"{quantile:g}"
        quantile_text = f"always predicting the {level}-quantile {pb.baseline.prediction:.4g}"
        metrics["pinball_loss"] = dict(kind="loss", value=values["pinball_loss"], baseline=float(pb.baseline_risk),
                                       ideal=0.0, baseline_prediction=quantile_text, greater_is_better=False,
                                       title=f"Pinball loss (τ = {level})")
        metrics["d2_pinball_score"] = dict(kind="advantage", value=values["d2_pinball_score"], baseline=0.0,
                                           ideal=1.0, baseline_prediction=quantile_text, greater_is_better=True,
                                           title=f"D² (PA, pinball loss τ = {level})")
    for name, spec in metrics.items():
        spec["ci"] = intervals.get(name)
    out: dict[str, Any] = {"metrics": metrics, "notes": notes, "n": n_rows,
                           "total_weight": float(stats.n) if weighted else None, "statistics": stats}
    out["ci_description"] = (
        f"{int(round(ctx.level * 100))}% intervals: percentile grouped Poisson bootstrap of the rows, "
        f"{ctx.n_resamples} replicates (the mean re-estimated in every replicate; the median of D² "
        f"{'and the quantile of the pinball D² ' if pb is not None else ''}kept at the sample's, a first-order "
        "approximation: the risk is flat at its minimum)"
    ) if intervals else "not computed"
    return out
