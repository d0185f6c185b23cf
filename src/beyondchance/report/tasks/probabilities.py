"""The multi-class probabilities report: the labeling metrics of the arg-max class and the
log loss and Brier score against the class frequencies (the BMP of each loss).

From the statistics of the ``"probabilities"`` task (any engine): the
:class:`~beyondchance.confusion.ConfusionMatrix` of the arg-max class, the
:class:`~beyondchance.stats.LabelCounts` (the baseline: always predicting the class
frequencies) and the :class:`~beyondchance.stats.LossSums` (the model's risk).
Intervals: the labeling metrics of unweighted data resample the confusion-matrix cells;
the losses (and weighted labeling metrics) need the rows, :func:`_row_intervals`, which
only the memory path has — the other engines give the values and a note.
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ...advantage import prediction_advantage_result
from ...stats import SufficientStatistics
from .._core import _Context
from .._intervals import _row_ci
from .._results import _PROBA_LOSSES, MetricCI
from .labels import labels_rows

#: report name -> loss of :mod:`beyondchance.baselines`
_LOSSES = {"log_loss": "cross_entropy", "brier": "brier"}


def probabilities_rows(
    stats: SufficientStatistics, ctx: _Context, *, n_rows: int, weighted: bool, rows: tuple | None = None,
) -> dict[str, Any]:
    """The rows of a probabilities report from its statistics.

    ``rows`` = (codes, probabilities, weights) in memory, for :func:`_row_intervals`.
    """
    cm = stats.confusion
    classes = np.asarray(cm.labels)
    counts0 = stats.label_counts.counts if not weighted or rows is None else \
        np.bincount(rows[0], minlength=classes.size).astype(np.float64)
    label_rows = None
    if weighted and rows is not None:
        codes, proba, w = rows
        label_rows = (codes, np.argmax(proba, axis=1), w)
    out = labels_rows(cm, counts0, ctx, binary=False, pos_label=None, n_rows=n_rows, weighted=weighted,
                      rows=label_rows)
    ctx.step("computing the probability losses")
    results = {name: stats.prediction_advantage(loss) for name, loss in _LOSSES.items()}
    intervals = _row_intervals(rows, {k: float(r.risk) for k, r in results.items()}, ctx) if rows is not None else {}
    for name, res in results.items():
        out["metrics"][name] = dict(
            kind="loss", value=float(res.risk), baseline=float(res.baseline_risk), ideal=0.0,
            baseline_prediction="always predicting the class frequencies", greater_is_better=False,
            ci=intervals.get(name),
        )
    if rows is not None:
        out["ci_description"] += "; log loss and Brier score: percentile row bootstrap"
    elif ctx.ci:
        out["notes"].append("intervals of the log loss and Brier score resample the rows: not computed by this "
                            "engine (use engine 'memory' for them)")
    return out


def _row_intervals(rows: tuple, values: dict[str, float], ctx: _Context) -> dict[str, MetricCI | None]:
    """Percentile row bootstrap of each loss (memory: the rows are at hand)."""
    codes, proba, w = rows
    k = proba.shape[1]
    return {name: _row_ci(_loss_func(_LOSSES[name], k), codes, proba, w, values[name], ctx) for name in _PROBA_LOSSES}


def _loss_func(loss: str, k: int) -> Callable[..., float]:
    def func(codes: np.ndarray, proba: np.ndarray, sample_weight: Any = None) -> float:
        return float(prediction_advantage_result(codes, proba, loss=loss, sample_weight=sample_weight,
                                                 labels=np.arange(k)).risk)

    func.__name__ = "log_loss" if loss == "cross_entropy" else loss
    return func
