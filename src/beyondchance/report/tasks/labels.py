"""The labels report (binary and multi-class): every labeling metric of the confusion matrix,
its best constant prediction (the BMP of the metric) and its interval.

Everything is a function of the :class:`~beyondchance.measures.confusion.ConfusionMatrix` (from
any engine); the intervals of unweighted data resample its cells (a multinomial draw of
the k² counts, exactly the row bootstrap).  Weighted data: the replicate confusion
matrices of the grouped Poisson bootstrap (:mod:`beyondchance.inference.poisson_bootstrap`), which every
engine computes from per-group sums, so that the seeded intervals agree across engines.
"""

from __future__ import annotations

import dataclasses
import math
import warnings
from typing import Any, cast

import numpy as np

from ..._warnings import BeyondChanceWarning, InvalidInputError
from ...measures.confusion import ConfusionMatrix, pos_index_of, zero_division_value
from ...measures.constant_baseline import best_constant
from ...measures.registry import get_metric, undefined_case
from ...inference.poisson_bootstrap import GroupTotals
from ...inference.bootstrap import bootstrap_cis
from ...inference.bootstrap_resampling import _UNSET, _MatrixEvaluator
from ...inference.few_rows_intervals import (FEW_ROWS, PROPORTIONS, SUMS, TOO_FEW_ROWS, labeling_interval,
                                              proportion_rows)
from ...measures.task_metrics import _BINARY_LABELING, _MULTICLASS_LABELING
from ..evaluation_context import _Context, _single_class
from ..intervals import _ci_from_bootstrap, replicate_interval, replicate_totals
from ..formatting import _fmt_label, _label
from ..metric_rows import MetricCI
from ...statistics.task_statistics import _resolve_positive
from ..per_class import per_class_table

#: the note of a weighted report whose engine has no row order for the grouped bootstrap
NO_ROW_ORDER = ("intervals of the labeling metrics of weighted data need the row order (files or a data frame): "
                "not computed for a DuckDB relation")


def labels_rows(
    cm: ConfusionMatrix, counts0: np.ndarray, ctx: _Context, *, binary: bool, pos_label: Any, n_rows: int,
    weighted: bool, replicates: np.ndarray | None = None,
) -> dict[str, Any]:
    """The rows of a labels report from its confusion matrix.

    ``cm`` over the classes of y_true and y (any order), ``counts0`` the unweighted row
    count of y_true per class (the default positive class is the minority by rows),
    ``replicates`` the (B, k, k) replicate confusion matrices of weighted data
    (:func:`replicate_matrices`), in the order of ``cm``'s classes; None: the intervals
    resample the cells.  A binary report collapses the classes into (negative, positive).
    """
    classes = np.asarray(cm.labels)
    notes = []
    if weighted and replicates is None and ctx.ci:  # weighted cells are not counts: no cell bootstrap
        ctx = dataclasses.replace(ctx, ci=False)
        notes.append(NO_ROW_ORDER)
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
        if replicates is not None:
            onehot = np.eye(2)[is_pos]  # class -> (negative, positive)
            replicates = np.einsum("bij,ia,jc->bac", replicates, onehot, onehot)
        out = _labeling_rows(cm2, ctx, binary=True, replicates=replicates)
        out.update(positive_label=pos, negative_label=neg, positive_reason=reason,
                   prevalence=cm2.prevalence, classes=(neg, pos))
    else:
        cm2 = ConfusionMatrix(np.asarray(cm.matrix, dtype=np.float64), classes, pos_label=None)
        out = _labeling_rows(cm2, ctx, binary=False, replicates=replicates)
        out.update(classes=tuple(_label(c) for c in classes.tolist()))
    out.update(n=n_rows, total_weight=float(cm.n) if weighted else None)
    out["notes"] = notes + out["notes"]
    return out


def _labeling_rows(cm: ConfusionMatrix, ctx: _Context, *, binary: bool,
                   replicates: np.ndarray | None = None) -> dict[str, Any]:
    """Rows of every labeling metric of a confusion matrix (binary or multi-class).

    ``replicates``: the (B, k, k) replicate matrices of weighted data, in the order of
    ``cm``'s classes (:func:`_replicate_interval`); None: the intervals resample the cells,
    or, below ``FEW_ROWS`` rows of the rarer binary class, the proportions take closed forms.
    """
    defaults = _BINARY_LABELING if binary else _MULTICLASS_LABELING
    names = defaults + tuple(k for k in ctx.extra_metrics if k not in defaults)  # asked for by name
    out: dict[str, Any] = {"metrics": {}, "notes": [], "confusion": cm}
    ctx.step("bootstrapping the labeling metrics")
    cell_intervals: dict[str, dict[str, Any]] = {}  # name -> options of its cell bootstrap
    fewest = _fewest_rows(cm) if binary and replicates is None and ctx.ci else None
    closed_form = []  # the rows whose interval is Wilson's or Newcombe's hybrid
    for name in names:
        m = get_metric(name)
        value, average, zero_division = _metric_value(name, cm, ctx, binary=binary, notes=out["notes"])
        base, cls, ideal = _baseline_and_ideal(name, cm, binary=binary, average=average, zero_division=zero_division)
        row = dict(kind="advantage" if name == "prediction_advantage" else "labeling",
                   value=value, baseline=base, ideal=ideal, baseline_prediction=f"always predicting {_fmt_label(cls)}",
                   greater_is_better=m.greater_is_better, ci=None, average=None if binary else average)
        out["metrics"][name] = row
        if not (math.isfinite(value) and ctx.ci):
            continue
        if replicates is not None:
            row["ci"] = _replicate_interval(name, cm, replicates, ctx, zero_division=zero_division,
                                            average=average if m.multiclass == "per-class" else _UNSET)
        elif _takes_closed_form(m.name, fewest):
            row["ci"], too_few = _closed_form_interval(m.name, cm, ctx)
            closed_form += [name] if row["ci"] is not None else []
            row.update({"too_few": too_few} if too_few else {})
        else:
            cell_intervals[name] = _cell_options(name, binary=binary, average=average, zero_division=zero_division)
    for name, ci_obj in _cell_intervals(cell_intervals, cm, ctx).items():
        out["metrics"][name]["ci"] = ci_obj
    if closed_form and fewest is not None:
        out["notes"].append(
            f"{fewest[0]} {fewest[1]} rows, below {FEW_ROWS} the bootstrap of the cells covers the proportions too "
            f"little: {', '.join(closed_form)} take Wilson's score interval (a sum of two: Newcombe's hybrid)")
    out["per_class"] = per_class_table(cm, level=ctx.level, replicates=replicates if ctx.ci else None,
                                       seed=ctx.seed, n_resamples=ctx.n_resamples if ctx.ci else 0)
    out["ci_description"] = _ci_description(ctx, weighted=replicates is not None, closed_form=closed_form)
    return out


def _takes_closed_form(name: str, fewest: tuple[int, str] | None) -> bool:
    """Whether a binary metric takes a closed-form interval: a proportion or a sum of two,
    below ``FEW_ROWS`` rows of the rarer class (``fewest``; None: not binary, weighted, or
    without intervals)."""
    return fewest is not None and fewest[0] < FEW_ROWS and name in {**PROPORTIONS, **SUMS}


def _cell_options(name: str, *, binary: bool, average: Any, zero_division: Any) -> dict[str, Any]:
    """The options of a metric's cell bootstrap (:func:`_cell_intervals`): binary cells in the
    order (negative, positive) = codes (0, 1)."""
    if binary:
        return dict(pos_label=1, zero_division="nan")
    per_class = get_metric(name).multiclass == "per-class"
    return dict(zero_division=zero_division, **({"average": average} if per_class else {}))


def _metric_value(name: str, cm: ConfusionMatrix, ctx: _Context, *, binary: bool,
                  notes: list[str]) -> tuple[float, Any, Any]:
    """(value, average, zero_division) of a labeling metric of ``cm``; its notes (an undefined
    binary value's case, a class left out of a macro average) appended to ``notes``, its
    warnings to the report's collector.

    A macro average counts a class whose value is 0/0 as 0 (scikit-learn's policy), and its
    note says so; an undefined single value stays n/a.  For a lower-is-better metric (FDR, …)
    0 is the best value, which would flatter a predictor that never predicts some classes:
    such classes are left out of its macro average instead, said in a note."""
    m = get_metric(name)
    average = "binary" if binary else ("macro" if m.multiclass == "per-class" else "binary")
    options: dict[str, Any] = {"average": average} if m.multiclass == "per-class" else {}
    averaged = not binary and m.multiclass == "per-class"
    leave_out = averaged and not m.greater_is_better
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BeyondChanceWarning)
        value = float(cm.metric(name, zero_division="warn" if averaged and not leave_out else "nan", **options))
    if binary and not math.isfinite(value) and m.multiclass != "native":
        case = undefined_case(name, *cm.binary_counts())
        if case != "0/0":  # say which case (LR+ without false positives is x/0, not 0/0)
            notes.append(f"{name} is undefined: {case}")
    for w in caught:
        ctx.collector.add(str(w.message))
    if leave_out:
        notes.append(f"{name}: a class whose value is undefined (0/0) is left out of the macro average "
                     "(counting it as 0, the best value, would flatter the predictor)")
    return value, average, 0.0 if averaged and not leave_out else "nan"


def _baseline_and_ideal(name: str, cm: ConfusionMatrix, *, binary: bool, average: Any,
                        zero_division: Any) -> tuple[float, Any, float]:
    """(the best constant's value, its class, a perfect predictor's value) of a labeling
    metric of ``cm``: binary, at the prevalence (the metric's range there); multi-class, one
    rule for two or more classes — a constant's undefined native value (MCC's 0/0: a constant
    prediction has no variance) is 0, as in the binary report and scikit-learn."""
    m = get_metric(name)
    pi = cm.prevalence if binary and cm.n > 0 else None
    if binary:
        base, cls = _constant_baseline(name, cm.true_counts, cm.labels, cm.pos_label, "binary")
        lo, hi = m.range_at(pi) if pi is not None and 0 < pi < 1 else (m.lower, m.upper)
    else:
        base, cls = _constant_baseline(name, cm.true_counts, cm.labels, cm.pos_label, average,
                                       0.0 if m.multiclass == "native" else zero_division)
        lo, hi = m.lower, m.upper
    return base, cls, float(hi if m.greater_is_better else lo)


def _ci_description(ctx: _Context, *, weighted: bool, closed_form: list[str]) -> str:
    """The method text of the labeling metrics' intervals."""
    level = int(round(ctx.level * 100))
    if weighted:
        return (f"{level}% intervals. Labeling metrics of weighted data: percentile grouped Poisson bootstrap, "
                f"{ctx.n_resamples} replicates of the rows (rows keep their weights; baselines and prevalence "
                "re-estimated in every replicate)")
    text = (f"{level}% intervals. Labeling metrics: BCa bootstrap, {ctx.n_resamples} resamples of the "
            "confusion-matrix cells (a resample of the cells is a multinomial draw, exactly the row bootstrap; "
            "baselines and prevalence re-estimated in every resample)")
    if closed_form:
        text += (f"; below {FEW_ROWS} rows of the rarer class {', '.join(closed_form)}: Wilson's score interval "
                 "from the counts (a sum of two proportions: Newcombe's hybrid score interval)")
    return text


def _fewest_rows(cm: ConfusionMatrix) -> tuple[int, str]:
    """(rows, "positive" or "negative") of the rarer class of a binary confusion matrix."""
    tp, fp, fn, tn = cm.binary_counts()
    positives, negatives = int(round(tp + fn)), int(round(tn + fp))
    return (positives, "positive") if positives <= negatives else (negatives, "negative")


#: the rows of a proportion's denominator, in words
_DENOMINATORS = {("tp", "fn"): "positive", ("tn", "fp"): "negative", ("tp", "fp"): "predicted positive",
                 ("tn", "fn"): "predicted negative"}


def _closed_form_interval(name: str, cm: ConfusionMatrix, ctx: _Context) -> tuple[MetricCI | None, str | None]:
    """(interval, None) of a proportion (Wilson's) or a sum of two (Newcombe's hybrid;
    :func:`~beyondchance.inference.few_rows_intervals.labeling_interval`) from the counts of an
    unweighted binary confusion matrix, one-sided bounds the interval at 2 · level − 1; or
    (None, why) when a denominator has fewer than ``TOO_FEW_ROWS`` rows."""
    tp, fp, fn, tn = cm.binary_counts()
    rows = proportion_rows(name, tp=tp, fp=fp, fn=fn, tn=tn)
    parts = SUMS[name][:2] if name in SUMS else (name,)
    fewest, part = min(zip(rows, parts))
    if fewest < TOO_FEW_ROWS:
        what = _DENOMINATORS[PROPORTIONS[part][1]]
        return None, f"too few rows for an interval and a verdict: {fewest} {what} rows (at least {TOO_FEW_ROWS})"
    ends = labeling_interval(name, tp=tp, fp=fp, fn=fn, tn=tn, level=ctx.level)
    if ends is None:
        return None, None
    bounds = (labeling_interval(name, tp=tp, fp=fp, fn=fn, tn=tn, level=2 * ctx.level - 1)
              if ctx.level > 0.5 else None)
    method = "Wilson score" if name in PROPORTIONS else "Newcombe hybrid score (MOVER)"
    positives, negatives = int(round(tp + fn)), int(round(tn + fp))
    return MetricCI(*ends, ctx.level, method, 0,
                    f"closed form from the counts ({positives} positive and {negatives} negative rows; "
                    f"below {FEW_ROWS} rows of the rarer class)", bounds=bounds), None


def _constant_baseline(
    name: str, true_counts: np.ndarray, classes: np.ndarray, pos_label: Any, average: Any,
    zero_division: Any = 0.0,
) -> tuple[float, Any]:
    """(value, class) of the best "always predict class c"; the majority class first
    (``zero_division``: the report's policy for the metric's undefined class values).

    From the class totals alone (:func:`~beyondchance.measures.constant_baseline.best_constant`:
    O(k) per constant, no k × k matrix per constant), the value of each constant's confusion
    matrix under :meth:`ConfusionMatrix.metric`."""
    m = get_metric(name)
    classes = np.asarray(classes)
    pos_index = pos_index_of(classes, pos_label) if m.multiclass != "native" and average == "binary" else None
    value, i = best_constant(m, np.asarray(true_counts, dtype=np.float64), average=average, pos_index=pos_index,
                             zero_division=zero_division_value(zero_division, m, average))
    return value, classes[i]


def _cell_intervals(measures: dict[str, dict[str, Any]], cm: ConfusionMatrix, ctx: _Context
                    ) -> dict[str, MetricCI | None]:
    """BCa bootstrap of labeling metrics (name -> options) on the confusion-matrix cells
    (unweighted data), one set of resamples for all."""
    if not ctx.ci or not measures:
        return {}
    k = cm.n_classes
    cells = np.flatnonzero(cm.matrix)  # the non-empty cells only: at most n of the k² (no k² copy)
    counts = np.rint(cm.matrix.ravel()[cells])
    cells, counts = cells[counts > 0], counts[counts > 0]
    results = bootstrap_cis(
        {name: dict(options, labels=np.arange(k)) for name, options in measures.items()}, cells // k, cells % k,
        sample_weight=counts, weight_type="frequency", n_resamples=ctx.n_resamples,
        confidence_level=ctx.level, random_state=ctx.seed,
    )
    return {name: _ci_from_bootstrap(res, "multinomial resamples of the confusion-matrix cells (= the row bootstrap)")
            for name, res in results.items()}


def replicate_matrices(totals: GroupTotals, ctx: _Context, classes: np.ndarray, *, first: int = 0,
                       replicates: np.ndarray | None = None) -> np.ndarray:
    """(B, k, k) replicate confusion matrices from group totals whose columns ``first`` …
    ``first + k² − 1`` are the cells ``cell[i,j]`` over ``totals.info["classes"]``,
    reordered to ``classes`` (the report's order).  ``replicates``: the (B, m) replicate
    totals when already drawn (:func:`replicate_totals`)."""
    k = classes.shape[0]
    reps = replicate_totals(totals, ctx) if replicates is None else replicates
    reps = reps[:, first:first + k * k].reshape(-1, k, k)
    order = [_label(c) for c in np.asarray(cast(dict, totals.info)["classes"]).tolist()]  # cells name their classes
    wanted = [_label(c) for c in classes.tolist()]
    if order != wanted:
        idx = np.array([order.index(c) for c in wanted], dtype=np.intp)
        reps = reps[:, idx][:, :, idx]
    return reps


def _replicate_interval(name: str, cm: ConfusionMatrix, replicates: np.ndarray, ctx: _Context, *,
                        zero_division: Any, average: Any) -> MetricCI | None:
    """Percentile interval of a labeling metric over replicate confusion matrices (the
    definition of ``ConfusionMatrix.metric`` on each, baselines re-estimated in each)."""
    if not ctx.ci:
        return None
    evaluator = _MatrixEvaluator(cm, get_metric(name), average, {}, zero_division)
    return replicate_interval(evaluator(replicates), ctx)
