"""The labels report (binary and multi-class): every labeling metric of the confusion matrix,
its best constant prediction (the BMP of the metric) and its interval.

Everything is a function of the :class:`~beyondchance.confusion.ConfusionMatrix` (from
any engine); the intervals of unweighted data resample its cells (a multinomial draw of
the k² counts, exactly the row bootstrap).  Weighted data: :func:`_weighted_interval`
resamples the rows (memory only; the other engines give the values and a note).
"""

from __future__ import annotations

import math
import warnings
from typing import Any

import numpy as np

from ..._warnings import BeyondChanceWarning, InvalidInputError
from ...confusion import ConfusionMatrix
from ...metrics import get_metric
from ...uncertainty import bootstrap_ci
from .._core import _Context, _single_class
from .._intervals import MAX_BOOTSTRAP_ROWS, _ci_from_bootstrap
from .._results import _BINARY_LABELING, _MULTICLASS_LABELING, _PER_CLASS, MetricCI, _fmt_label, _label
from ..detect import _resolve_positive

#: weighted labeling metrics: bootstrap on all rows while (cell, weight) pools are at most this many
_MAX_WEIGHT_POOLS = 4096
#: ... beyond, the rows of a random subsample of this size
_WEIGHTED_SUBSAMPLE = 5000


def labels_rows(
    cm: ConfusionMatrix, counts0: np.ndarray, ctx: _Context, *, binary: bool, pos_label: Any, n_rows: int,
    weighted: bool, rows: tuple | None = None,
) -> dict[str, Any]:
    """The rows of a labels report from its confusion matrix.

    ``cm`` over the classes of y_true and y (any order), ``counts0`` the unweighted row
    count of y_true per class (the default positive class is the minority by rows),
    ``rows`` = (true codes, predicted codes, weights) of weighted data in memory.
    A binary report collapses the classes into (negative, positive).
    """
    classes = np.asarray(cm.labels)
    present = classes[counts0 > 0]
    if present.size < 2:
        _single_class(present, ctx)
    if binary:
        if classes.size > 2:
            raise InvalidInputError(
                f"a binary report needs two classes; y_true and y hold {classes.size} "
                f"({', '.join(map(_fmt_label, classes[:5]))}); use task='multiclass-labels'"
            )
        pos, neg, reason = _resolve_positive(classes, counts0, pos_label)
        if neg is None:  # one label in the data: the other is unknown
            neg = "negative" if not isinstance(pos, (int, float)) else (0 if pos != 0 else 1)
        is_pos = np.array([_label(c) == pos for c in classes.tolist()], dtype=np.intp)
        m = np.zeros((2, 2))
        np.add.at(m, (is_pos[:, None].repeat(is_pos.size, 1), is_pos[None, :].repeat(is_pos.size, 0)), cm.matrix)
        cm2 = ConfusionMatrix(m, np.array([neg, pos], dtype=object), pos_label=pos)
        if rows is not None:
            t, p, w = rows
            rows = (is_pos.astype(bool)[t], is_pos.astype(bool)[p], w)
        out = _labeling_rows(cm2, ctx, binary=True, rows=rows)
        out.update(positive_label=pos, negative_label=neg, positive_reason=reason,
                   prevalence=cm2.prevalence, classes=(neg, pos))
    else:
        cm2 = ConfusionMatrix(np.asarray(cm.matrix, dtype=np.float64), classes, pos_label=None)
        out = _labeling_rows(cm2, ctx, binary=False, rows=rows)
        out.update(classes=tuple(_label(c) for c in classes.tolist()))
    out.update(n=n_rows, total_weight=float(cm.n) if weighted else None)
    return out


def _labeling_rows(cm: ConfusionMatrix, ctx: _Context, *, binary: bool, rows: tuple | None) -> dict[str, Any]:
    """Rows of every labeling metric of a confusion matrix (binary or multi-class).

    ``rows``: the (true, predicted, weight) rows of weighted data for
    :func:`_weighted_interval` (binary: booleans "is positive"); None: the intervals
    resample the cells.
    """
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
                ci_obj = _cell_interval(name, cm, ctx, pos_label=1, zero_division="nan")
            elif rows is None:
                ci_obj = _cell_interval(name, cm, ctx, zero_division=zero_division,
                                        **({"average": average} if m.multiclass == "per-class" else {}))
            else:
                ci_obj = _weighted_interval(name, cm, rows, ctx, zero_division=zero_division,
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


def _cell_interval(name: str, cm: ConfusionMatrix, ctx: _Context, **options: Any) -> MetricCI | None:
    """BCa bootstrap of a labeling metric on the confusion-matrix cells (unweighted data)."""
    if not ctx.ci:
        return None
    k = cm.n_classes
    classes = np.arange(k)
    res = bootstrap_ci(
        name, np.repeat(classes, k), np.tile(classes, k), sample_weight=np.rint(cm.matrix.ravel()),
        weight_type="frequency", labels=classes, n_resamples=ctx.n_resamples, confidence_level=ctx.level,
        random_state=ctx.seed, **options,
    )
    return _ci_from_bootstrap(res, "multinomial resamples of the confusion-matrix cells (= the row bootstrap)")


def _weighted_interval(name: str, cm: ConfusionMatrix, rows: tuple, ctx: _Context, **options: Any) -> MetricCI | None:
    """The interval of a labeling metric on weighted data: BCa row bootstrap (rows keep
    their weights); many distinct weights on many rows: a random subsample, rescaled."""
    if not ctx.ci:
        return None
    k = cm.n_classes
    common = dict(n_resamples=ctx.n_resamples, confidence_level=ctx.level, random_state=ctx.seed, **options)
    yt, yp, w = rows
    n = yt.shape[0]
    if n <= MAX_BOOTSTRAP_ROWS or np.unique(w).size * k * k <= _MAX_WEIGHT_POOLS:
        # pools = (cell, weight) pairs: cheap while they are few
        res = bootstrap_ci(name, yt, yp, sample_weight=w, **common)
        return _ci_from_bootstrap(res, "row bootstrap (rows keep their weights)")
    rng = np.random.default_rng(ctx.seed)
    idx = np.sort(rng.choice(n, _WEIGHTED_SUBSAMPLE, replace=False))
    ws = w[idx]
    res = bootstrap_ci(name, yt[idx], yp[idx], sample_weight=ws, **{**common, "method": "percentile"})
    estimate = float(cm.metric(name, **{k_: v for k_, v in options.items() if k_ in ("average", "zero_division")}))
    scale = math.sqrt((ws.sum() ** 2 / np.dot(ws, ws)) / (w.sum() ** 2 / np.dot(w, w)))
    return MetricCI(
        float(estimate + (res.low - res.estimate) * scale), float(estimate + (res.high - res.estimate) * scale),
        "percentile", res.confidence_level, res.n_resamples,
        f"row bootstrap of a random subsample of {_WEIGHTED_SUBSAMPLE} weighted rows, interval rescaled "
        f"by sqrt(m/n) (Kish effective sizes) = {scale:.3g}",
    )
