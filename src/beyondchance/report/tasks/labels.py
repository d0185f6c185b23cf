"""The labels report (binary and multi-class): every labeling metric of the confusion matrix,
its best constant prediction and its interval."""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..._validation import as_1d, check_consistent_length, check_sample_weight, encode_labels
from ..._warnings import BeyondChanceWarning, InvalidInputError
from ...confusion import ConfusionMatrix
from ...metrics import get_metric
from .._core import _Context, _single_class
from .._intervals import _labeling_ci
from .._results import _BINARY_LABELING, _MULTICLASS_LABELING, _PER_CLASS, _fmt_label, _label
from ..detect import _resolve_positive

def _constant_baseline(
    name: str, true_counts: np.ndarray, classes: np.ndarray, pos_label: Any, average: Any
) -> tuple[float, Any]:
    """(value, class) of the best "always predict class c"; the majority class first."""
    m = get_metric(name)
    order = np.argsort(-true_counts, kind="stable")
    best_v, best_c = float("nan"), None
    k = classes.shape[0]
    for i in order:
        mat = np.zeros((k, k))
        mat[:, i] = true_counts
        cm = ConfusionMatrix(mat, classes, pos_label=pos_label)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            v = float(cm.metric(name, average=average, zero_division=0.0))
        if best_c is None or (v > best_v if m.greater_is_better else v < best_v):
            best_v, best_c = v, classes[i]
    return best_v, best_c


def _labeling_rows(cm: ConfusionMatrix, ctx: _Context, *, binary: bool, rows: tuple | None) -> dict[str, Any]:
    """Rows of every labeling metric of a confusion matrix (binary or multi-class)."""
    names = _BINARY_LABELING if binary else _MULTICLASS_LABELING
    classes = cm.labels
    true_counts = cm.true_counts
    n = cm.n
    pi = cm.prevalence if binary and n > 0 else None
    out: dict[str, Any] = {"metrics": {}, "notes": [], "confusion": cm}
    ctx.step("bootstrapping the labeling metrics")
    for name in names:
        m = get_metric(name)
        average = "binary" if binary else ("macro" if name in _PER_CLASS else "binary")
        options: dict[str, Any] = {}
        if m.multiclass == "per-class":
            options["average"] = average
        # a macro average counts a class whose value is 0/0 as 0 (scikit-learn's policy), and
        # its note says so; an undefined single value stays n/a
        averaged = not binary and m.multiclass == "per-class"
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always", BeyondChanceWarning)
            value = float(cm.metric(name, zero_division="warn" if averaged else "nan", **options))
        zero_division = 0.0 if averaged else "nan"
        for w in caught:
            ctx.collector.add(str(w.message))
        if binary:
            base, cls = _constant_baseline(name, true_counts, classes, cm.pos_label, "binary")
            lo, hi = m.range_at(pi) if pi is not None and 0 < pi < 1 else (m.lower, m.upper)
            ideal = float(hi)
        else:
            base, cls = _constant_baseline(name, true_counts, classes, cm.pos_label, average)
            ideal = 1.0
        ci_obj = None
        if math.isfinite(value):
            if rows is None and binary:
                # cells in the order (negative, positive) = codes (0, 1)
                ci_obj = _labeling_ci(name, cm, None, ctx, pos_label=1, zero_division="nan")
            elif rows is None:
                ci_obj = _labeling_ci(name, cm, None, ctx, zero_division=zero_division,
                                      **({"average": average} if m.multiclass == "per-class" else {}))
            else:
                yt, yp, w = rows
                ci_obj = _labeling_ci(name, cm, (yt, yp, w), ctx, zero_division=zero_division,
                                      **({"pos_label": True} if binary else
                                         ({"average": average} if m.multiclass == "per-class" else {})))
        out["metrics"][name] = dict(
            kind="advantage" if name == "prediction_advantage" else "labeling",
            value=value, baseline=base, ideal=ideal,
            baseline_prediction=f"always predicting {_fmt_label(cls)}",
            greater_is_better=m.greater_is_better, ci=ci_obj, average=None if binary else average,
        )
    label_text = "weighted rows (BCa, row bootstrap)" if rows is not None else "confusion-matrix cells"
    out["ci_description"] = (
        f"{int(round(ctx.level * 100))}% intervals. Labeling metrics: BCa bootstrap, {ctx.n_resamples} "
        f"resamples of the {label_text} (a resample of the cells is a multinomial draw, exactly the "
        "row bootstrap; baselines and prevalence re-estimated in every resample)"
    )
    return out


def _labels(
    y_true: Any, y: Any, sample_weight: Any, pos_label: Any, labels: Any, ctx: _Context, *, binary: bool
) -> dict[str, Any]:
    yt = as_1d(y_true, "y_true")
    yp = as_1d(y, "y")
    n = check_consistent_length(y_true=yt, y=yp)
    w = check_sample_weight(sample_weight, n)
    ct, cp, classes = encode_labels(yt, yp, labels=labels, names=("y_true", "y"))
    true_classes = np.unique(ct)
    if true_classes.size < 2:
        _single_class(classes[true_classes], ctx)
    if binary:
        if classes.size > 2:
            raise InvalidInputError(
                f"a binary report needs two classes; y_true and y hold {classes.size} "
                f"({', '.join(map(_fmt_label, classes[:5]))}); use task='multiclass-labels'"
            )
        counts0 = np.bincount(ct, minlength=classes.size)
        pos, neg, pos_reason = _resolve_positive(classes, counts0, pos_label)
        values = [_label(c) for c in classes.tolist()]
        if neg is None:  # one label in the data: the other is unknown
            neg = "negative" if not isinstance(pos, (int, float)) else (0 if pos != 0 else 1)
        pos_idx = values.index(pos) if pos in values else -1
        is_pos_t = ct == pos_idx
        is_pos_p = cp == pos_idx
        ctx.step("counting")
        mat = np.bincount(2 * is_pos_t.astype(np.intp) + is_pos_p, weights=w, minlength=4).reshape(2, 2)
        cm = ConfusionMatrix(mat.astype(np.float64), np.array([neg, pos], dtype=object), pos_label=pos)
        out = _labeling_rows(cm, ctx, binary=True, rows=None if w is None else (is_pos_t, is_pos_p, w))
        out.update(positive_label=pos, negative_label=neg, positive_reason=pos_reason,
                   prevalence=cm.prevalence, classes=(neg, pos))
    else:
        k = classes.size
        mat = np.bincount(ct * k + cp, weights=w, minlength=k * k).reshape(k, k).astype(np.float64)
        cm = ConfusionMatrix(mat, classes, pos_label=None)
        out = _labeling_rows(cm, ctx, binary=False, rows=None if w is None else (ct, cp, w))
        out.update(classes=tuple(_label(c) for c in classes.tolist()))
    out.update(n=n, total_weight=None if w is None else float(w.sum()))
    return out
