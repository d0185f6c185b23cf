"""The regression report: squared and absolute error against the mean and the median
(R² and D², the prediction advantages of the two losses)."""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from ..._validation import as_float_1d, check_consistent_length, check_sample_weight
from ..._warnings import BeyondChanceWarning
from ...advantage import prediction_advantage_result
from .._core import _Context
from .._intervals import MAX_BOOTSTRAP_ROWS, _row_ci

def _regression(y_true: Any, y: Any, sample_weight: Any, ctx: _Context) -> dict[str, Any]:
    yt = as_float_1d(y_true, "y_true")
    yp = as_float_1d(y, "y")
    n = check_consistent_length(y_true=yt, y=yp)
    w = check_sample_weight(sample_weight, n)
    out: dict[str, Any] = {"metrics": {}, "notes": []}
    ctx.step("computing the regression losses")
    sq = prediction_advantage_result(yt, yp, loss="squared", sample_weight=w)
    ab = prediction_advantage_result(yt, yp, loss="absolute", sample_weight=w)

    def risk_of(loss: str) -> Callable[..., float]:
        def f(a: np.ndarray, b: np.ndarray, sample_weight: Any = None) -> float:
            return float(prediction_advantage_result(a, b, loss=loss, sample_weight=sample_weight).risk)
        f.__name__ = f"{loss} risk"
        return f

    def pa_of(loss: str) -> Callable[..., float]:
        def f(a: np.ndarray, b: np.ndarray, sample_weight: Any = None) -> float:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", BeyondChanceWarning)
                return float(prediction_advantage_result(a, b, loss=loss, sample_weight=sample_weight).value)
        f.__name__ = f"PA ({loss})"
        return f

    ctx.step("bootstrapping the regression measures")
    mean = sq.baseline.prediction
    median = ab.baseline.prediction
    out["metrics"]["mse"] = dict(
        kind="loss", value=float(sq.risk), baseline=float(sq.baseline_risk), ideal=0.0,
        baseline_prediction=f"always predicting the mean {mean:.4g}", greater_is_better=False,
        ci=_row_ci(risk_of("squared"), yt, yp, w, float(sq.risk), ctx),
    )
    out["metrics"]["mae"] = dict(
        kind="loss", value=float(ab.risk), baseline=float(ab.baseline_risk), ideal=0.0,
        baseline_prediction=f"always predicting the median {median:.4g}", greater_is_better=False,
        ci=_row_ci(risk_of("absolute"), yt, yp, w, float(ab.risk), ctx),
    )
    out["metrics"]["r2"] = dict(
        kind="advantage", value=float(sq.value), baseline=0.0, ideal=1.0,
        baseline_prediction=f"always predicting the mean {mean:.4g}", greater_is_better=True,
        ci=_row_ci(pa_of("squared"), yt, yp, w, float(sq.value), ctx),
    )
    out["metrics"]["d2_absolute_error"] = dict(
        kind="advantage", value=float(ab.value), baseline=0.0, ideal=1.0,
        baseline_prediction=f"always predicting the median {median:.4g}", greater_is_better=True,
        ci=_row_ci(pa_of("absolute"), yt, yp, w, float(ab.value), ctx),
    )
    out.update(n=n, total_weight=None if w is None else float(w.sum()))
    out["ci_description"] = (
        f"{int(round(ctx.level * 100))}% intervals: percentile row bootstrap, {ctx.n_resamples} resamples "
        f"(the BMP re-estimated in every resample; beyond {MAX_BOOTSTRAP_ROWS} rows on a random subsample "
        "of that size, rescaled by sqrt(m/n))"
    )
    return out
