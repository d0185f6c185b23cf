"""The multi-class probabilities report: the labeling metrics of the arg-max class and the
log loss and Brier score against the class frequencies."""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..._validation import as_1d, as_float_2d, check_consistent_length, check_probabilities, check_sample_weight, encode_labels
from ..._warnings import InvalidInputError
from ...advantage import prediction_advantage_result
from ...confusion import ConfusionMatrix
from .._core import _Context, _single_class
from .._intervals import _row_ci
from .._results import _fmt_label, _label
from .labels import _labeling_rows

def _multiclass_proba(
    y_true: Any, y: Any, sample_weight: Any, labels: Any, normalize: bool, ctx: _Context
) -> dict[str, Any]:
    yt = as_1d(y_true, "y_true")
    codes, _, classes = encode_labels(yt, labels=labels)
    k = classes.size
    p = as_float_2d(y, "y")
    if p.ndim != 2 or p.shape[1] != k:
        cols = 1 if p.ndim == 1 else p.shape[1]
        raise InvalidInputError(
            f"y has {cols} probability column(s) but y_true has {k} classes "
            f"({', '.join(map(_fmt_label, classes[:6]))}); pass labels= naming the class of each column"
        )
    proba = check_probabilities(p, "y", n_classes=k, normalize=normalize)
    n = check_consistent_length(y_true=yt, y=proba)
    w = check_sample_weight(sample_weight, n)
    if np.unique(codes).size < 2:
        _single_class(classes[np.unique(codes)], ctx)
    pred = np.argmax(proba, axis=1)
    mat = np.bincount(codes * k + pred, weights=w, minlength=k * k).reshape(k, k).astype(np.float64)
    cm = ConfusionMatrix(mat, classes, pos_label=None)
    out = _labeling_rows(cm, ctx, binary=False, rows=None if w is None else (codes, pred, w))
    ctx.step("computing the probability losses")
    for loss, lib_loss in (("log_loss", "log_loss"), ("brier", "brier")):
        res = prediction_advantage_result(codes, proba, loss=lib_loss, sample_weight=w, labels=np.arange(k))
        func = _proba_loss_func(lib_loss, k)
        ci_obj = _row_ci(func, codes, proba, w, float(res.risk), ctx)
        out["metrics"][loss] = dict(
            kind="loss", value=float(res.risk), baseline=float(res.baseline_risk), ideal=0.0,
            baseline_prediction="always predicting the class frequencies", greater_is_better=False, ci=ci_obj,
        )
    out.update(n=n, total_weight=None if w is None else float(w.sum()),
               classes=tuple(_label(c) for c in classes.tolist()))
    out["ci_description"] += "; log loss and Brier score: percentile row bootstrap"
    return out


def _proba_loss_func(loss: str, k: int) -> Callable[..., float]:
    def func(codes: np.ndarray, proba: np.ndarray, sample_weight: Any = None) -> float:
        return float(prediction_advantage_result(codes, proba, loss=loss, sample_weight=sample_weight,
                                                 labels=np.arange(k)).risk)

    func.__name__ = loss
    return func
