"""Row-bootstrap intervals shared by the task modules: a bootstrap result as a
:class:`MetricCI`, and the percentile row bootstrap of a function of the rows."""

from __future__ import annotations

import math
from typing import Any, Callable

import numpy as np

from ..uncertainty import bootstrap_ci
from ._core import _Context
from ._results import MetricCI

#: bootstrap on rows (callables) is run on at most this many rows; beyond, on a random
#: subsample of this size with the interval rescaled by sqrt(m / n)
MAX_BOOTSTRAP_ROWS = 20_000


def _ci_from_bootstrap(res: Any, resampling: str) -> MetricCI:
    return MetricCI(float(res.low), float(res.high), res.method, res.confidence_level, res.n_resamples, resampling)


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
