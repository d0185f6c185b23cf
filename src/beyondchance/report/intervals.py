"""Intervals shared by the task modules: a bootstrap result as a :class:`MetricCI`, and the
percentile interval of the grouped Poisson bootstrap's replicates
(:mod:`beyondchance.inference.poisson_bootstrap`: intervals from per-group sums, the same on every engine
for one seed); the number of score bins of the bootstrap, ``MAX_SCORE_BINS``."""

from __future__ import annotations

from typing import Any

import numpy as np

from .._warnings import InvalidInputError
from ..inference.poisson_bootstrap import GroupTotals
from .evaluation_context import _Context
from .metric_rows import MetricCI

#: the score bootstrap pools adjacent scores into at most this many bins
MAX_SCORE_BINS = 1000


def _ci_from_bootstrap(res: Any, resampling: str) -> MetricCI:
    try:  # the one-sided bounds: the interval at level 2L - 1, same method and resamples
        lower, upper = (float(v) for v in res.confidence_interval(2 * res.confidence_level - 1))
        bounds: tuple[float, float] | None = (lower, upper)
    except InvalidInputError:  # a level below 1/2: no one-sided bound at it
        bounds = None
    return MetricCI(float(res.low), float(res.high), res.confidence_level, res.method, res.n_resamples, resampling,
                    bounds=bounds)


def one_sided_bounds(values: np.ndarray, level: float) -> tuple[float, float]:
    """Percentile one-sided bounds at ``level``: the (1 − level) and level quantiles."""
    lo, hi = np.quantile(values, [1 - level, level])
    return float(lo), float(hi)


#: how a replicate interval was resampled (the MetricCI's ``resampling``)
GROUPED_RESAMPLING = ("grouped Poisson bootstrap of the rows (replicate weights per group of rows, "
                      "the group a hash of the row's position; rows keep their weights)")


def replicate_totals(totals: GroupTotals, ctx: _Context) -> np.ndarray:
    """(B, m) replicate totals of the report's seed: Poisson(1) weights of ``default_rng(seed)``
    per group (:meth:`GroupTotals.replicate_totals`)."""
    return totals.replicate_totals(ctx.n_resamples, ctx.seed)


def replicate_interval(values: np.ndarray, ctx: _Context) -> MetricCI | None:
    """Percentile interval of a measure's replicate values (undefined replicates left out;
    None when no replicate is defined)."""
    v = values[np.isfinite(values)]
    if not ctx.ci or v.size == 0:
        return None
    half = (1 - ctx.level) / 2
    low, high = np.quantile(v, [half, 1 - half])
    return MetricCI(float(low), float(high), ctx.level, "percentile", int(values.shape[0]), GROUPED_RESAMPLING,
                    bounds=one_sided_bounds(v, ctx.level))
