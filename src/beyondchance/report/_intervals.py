"""Bootstrap intervals shared by the task modules: labeling metrics (confusion-matrix cells
or weighted rows) and the percentile row bootstrap of a function of the rows."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..confusion import ConfusionMatrix
from ..uncertainty import bootstrap_ci
from ._core import _Context
from ._results import MetricCI

#: bootstrap on rows (callables) is run on at most this many rows; beyond, on a random
#: subsample of this size with the interval rescaled by sqrt(m / n)
MAX_BOOTSTRAP_ROWS = 20_000

#: weighted labeling metrics: bootstrap on all rows while (cell, weight) pools are at most this many
_MAX_WEIGHT_POOLS = 4096

#: ... beyond, the rows of a random subsample of this size
_WEIGHTED_SUBSAMPLE = 5000



def _ci_from_bootstrap(res: Any, resampling: str) -> MetricCI:
    return MetricCI(float(res.low), float(res.high), res.method, res.confidence_level, res.n_resamples, resampling)


def _labeling_ci(name: str, cm: ConfusionMatrix, rows: tuple | None, ctx: _Context, **options: Any) -> MetricCI | None:
    """BCa bootstrap of a labeling metric; on the cells (unweighted) or the rows (weighted)."""
    if not ctx.ci:
        return None
    k = cm.n_classes
    common = dict(n_resamples=ctx.n_resamples, confidence_level=ctx.level, random_state=ctx.seed, **options)
    if rows is None:
        classes = np.arange(k)
        res = bootstrap_ci(
            name, np.repeat(classes, k), np.tile(classes, k),
            sample_weight=np.rint(cm.matrix.ravel()), weight_type="frequency", labels=classes, **common,
        )
        resampling = "multinomial resamples of the confusion-matrix cells (= the row bootstrap)"
    else:
        yt, yp, w = rows
        n = yt.shape[0]
        if n <= MAX_BOOTSTRAP_ROWS or np.unique(w).size * k * k <= _MAX_WEIGHT_POOLS:
            # pools = (cell, weight) pairs: cheap while they are few
            res = bootstrap_ci(name, yt, yp, sample_weight=w, **common)
            return _ci_from_bootstrap(res, "row bootstrap (rows keep their weights)")
        # many distinct weights on many rows: a random subsample, interval rescaled
        rng = np.random.default_rng(ctx.seed)
        idx = np.sort(rng.choice(n, _WEIGHTED_SUBSAMPLE, replace=False))
        ws = w[idx]
        res = bootstrap_ci(name, yt[idx], yp[idx], sample_weight=ws, **{**common, "method": "percentile"})
        estimate = float(cm.metric(name, **{k_: v for k_, v in options.items()
                                            if k_ in ("average", "zero_division")}))
        scale = math.sqrt((ws.sum() ** 2 / np.dot(ws, ws)) / (w.sum() ** 2 / np.dot(w, w)))
        return MetricCI(
            float(estimate + (res.low - res.estimate) * scale), float(estimate + (res.high - res.estimate) * scale),
            "percentile", res.confidence_level, res.n_resamples,
            f"row bootstrap of a random subsample of {_WEIGHTED_SUBSAMPLE} weighted rows, interval rescaled "
            f"by sqrt(m/n) (Kish effective sizes) = {scale:.3g}",
        )
    return _ci_from_bootstrap(res, resampling)


def _row_ci(
    func: Callable[..., float], a: np.ndarray, b: np.ndarray, w: np.ndarray | None, estimate: float, ctx: _Context
) -> MetricCI | None:
    """Percentile row bootstrap; beyond MAX_BOOTSTRAP_ROWS on a subsample, rescaled."""
    if not ctx.ci or not math.isfinite(estimate):
        return None
    n = a.shape[0]
    common = dict(n_resamples=ctx.n_resamples, confidence_level=ctx.level, method="percentile", random_state=ctx.seed)
    if n <= MAX_BOOTSTRAP_ROWS:
        res = bootstrap_ci(func, a, b, sample_weight=w, **common)
        return _ci_from_bootstrap(res, "row bootstrap")
    rng = np.random.default_rng(ctx.seed)
    idx = np.sort(rng.choice(n, MAX_BOOTSTRAP_ROWS, replace=False))
    ws = None if w is None else w[idx]
    res = bootstrap_ci(func, a[idx], b[idx], sample_weight=ws, **common)
    if w is None:
        scale = math.sqrt(MAX_BOOTSTRAP_ROWS / n)
    else:  # Kish effective sizes
        n_eff = w.sum() ** 2 / np.dot(w, w)
        m_eff = ws.sum() ** 2 / np.dot(ws, ws)
        scale = math.sqrt(m_eff / n_eff)
    low = estimate + (res.low - res.estimate) * scale
    high = estimate + (res.high - res.estimate) * scale
    return MetricCI(float(low), float(high), "percentile", res.confidence_level, res.n_resamples,
                    f"row bootstrap of a random subsample of {MAX_BOOTSTRAP_ROWS} rows, "
                    f"interval rescaled by sqrt(m/n) = {scale:.3g}")
