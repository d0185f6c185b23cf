"""The regression report: squared and absolute error against the best constants, the mean
and the median (R² and D², the prediction advantages of the two losses).

From the statistics of the ``"regression"`` task (any engine): the
:class:`~beyondchance.stats.LossSums` (the model's risks), the
:class:`~beyondchance.stats.Moments` (the mean and Var(Y), the squared-loss baseline)
and the exact :class:`~beyondchance.stats.ValueHistogram` of y (its weighted median,
the absolute-loss baseline).  Intervals need the rows (:func:`_row_intervals`, memory
only); the other engines give the values and a note.
"""

from __future__ import annotations

import warnings
from typing import Any, Callable

import numpy as np

from ..._warnings import BeyondChanceWarning
from ...advantage import prediction_advantage_result
from ...stats import SufficientStatistics
from .._core import _Context
from .._intervals import MAX_BOOTSTRAP_ROWS, _row_ci
from .._results import MetricCI


def regression_rows(
    stats: SufficientStatistics, ctx: _Context, *, n_rows: int, weighted: bool, rows: tuple | None = None,
) -> dict[str, Any]:
    """The rows of a regression report from its statistics (``rows`` = (y, prediction,
    weights) in memory, for :func:`_row_intervals`)."""
    ctx.step("computing the regression losses")
    sq = stats.prediction_advantage("squared")
    ab = stats.prediction_advantage("absolute")
    values = {"mse": float(sq.risk), "mae": float(ab.risk), "r2": float(sq.value), "d2_absolute_error": float(ab.value)}
    intervals: dict[str, MetricCI | None] = {}
    notes: list[str] = []
    if rows is not None:
        ctx.step("bootstrapping the regression measures")
        intervals = _row_intervals(rows, values, ctx)
    elif ctx.ci:
        notes.append("intervals of the regression measures resample the rows: not computed by this engine "
                     "(use engine 'memory' for them)")
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
        f"{int(round(ctx.level * 100))}% intervals: percentile row bootstrap, {ctx.n_resamples} resamples "
        f"(the BMP re-estimated in every resample; beyond {MAX_BOOTSTRAP_ROWS} rows on a random subsample "
        "of that size, rescaled by sqrt(m/n))"
    ) if rows is not None else "not computed (they resample the rows)"
    return out


def _row_intervals(rows: tuple, values: dict[str, float], ctx: _Context) -> dict[str, MetricCI | None]:
    """Percentile row bootstrap of each measure, the BMP re-estimated in every resample."""
    y, f, w = rows
    funcs = {"mse": _risk("squared"), "mae": _risk("absolute"), "r2": _advantage("squared"),
             "d2_absolute_error": _advantage("absolute")}
    return {name: _row_ci(func, y, f, w, values[name], ctx) for name, func in funcs.items()}


def _risk(loss: str) -> Callable[..., float]:
    def f(a: np.ndarray, b: np.ndarray, sample_weight: Any = None) -> float:
        return float(prediction_advantage_result(a, b, loss=loss, sample_weight=sample_weight).risk)
    f.__name__ = f"{loss} risk"
    return f


def _advantage(loss: str) -> Callable[..., float]:
    def f(a: np.ndarray, b: np.ndarray, sample_weight: Any = None) -> float:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", BeyondChanceWarning)
            return float(prediction_advantage_result(a, b, loss=loss, sample_weight=sample_weight).value)
    f.__name__ = f"PA ({loss})"
    return f
