r"""The per-class view of a classification report: precision, recall and F1 of every class
against the rest (scikit-learn's ``classification_report``), each with its best constant
prediction, its advantage, its OPS at the class's prevalence and its interval; and the
confusion matrix as counts and rates.

Everything is a function of the confusion matrix, so every engine (memory, DuckDB,
Spark) gives the same table.  For class :math:`c` with one-vs-rest counts
:math:`(TP_c, FP_c, FN_c, TN_c)` and prevalence :math:`\pi_c`:

* the **baseline** is the better of "always predict c" and "never predict c" in that
  binary problem (precision :math:`\pi_c`, recall 1 — a constant is then already
  perfect and the advantage is undefined — F1 :math:`2\pi_c / (1 + \pi_c)`);
* the **advantage** is :math:`(M - M_0) / (M^\star - M_0)`;
* the **OPS** is the binary outperformance score of the value at :math:`\pi_c` (OPS
  paper, eq. 6);
* the **interval** is the percentile interval over the report's resampled confusion
  matrices: multinomial draws of the cells (unweighted data, the row bootstrap) or the
  grouped Poisson bootstrap's replicate matrices (weighted data).

>>> import numpy as np
>>> from beyondchance.measures.confusion import ConfusionMatrix
>>> cm = ConfusionMatrix(np.array([[50, 5, 5], [10, 20, 0], [0, 2, 8]]), np.array(["a", "b", "c"]), pos_label=None)
>>> t = per_class_table(cm, level=0.95, replicates=None, seed=0, n_resamples=0)
>>> t.classes, t.support.tolist()
(('a', 'b', 'c'), [60.0, 30.0, 10.0])
>>> np.round(t.columns["precision"].value, 4).tolist()
[0.8333, 0.7407, 0.6154]
"""

from __future__ import annotations

import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._summary_display import TITLES
from ..measures.confusion import CellTotals, ConfusionMatrix, MatrixTotals, metric_from_matrices, metric_from_totals
from ..measures.registry import get_metric
from .formatting import _fmt_label, _label, _num
from .metric_rows import _advantage, _ops_of

__all__ = ["PER_CLASS_METRICS", "ClassMetricColumn", "PerClassTable", "per_class_table", "with_scoring_columns",
           "confusion_rates", "confusion_json", "MAX_DENSE_CLASSES", "MAX_SHOWN_CLASSES"]

#: the metrics of the per-class table
PER_CLASS_METRICS = ("precision", "recall", "f1")


def confusion_rates(cm: ConfusionMatrix) -> np.ndarray:
    """Row-normalised confusion matrix: the share of each true class predicted as each
    class (nan for a class absent from y_true).

    >>> import numpy as np
    >>> confusion_rates(ConfusionMatrix(np.array([[3, 1], [0, 0]]), np.array([0, 1]))).tolist()
    [[0.75, 0.25], [nan, nan]]
    """
    m = np.asarray(cm.matrix, dtype=np.float64)
    rows = m.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(rows > 0, m / np.where(rows > 0, rows, 1.0), np.nan)


#: the JSON gives the confusion matrix of at most this many classes as a k × k matrix (with its
#: rates); beyond, as its non-empty cells (at most one per row of data): 10^4 classes are
#: 10^8 cells, gigabytes of JSON, where the cells are bounded by the rows
MAX_DENSE_CLASSES = 1000
#: the HTML and Markdown reports show the confusion matrix of at most this many classes (a
#: table of k² cells); beyond, a note points to the JSON, and the per-class rows are kept
MAX_SHOWN_CLASSES = 50


def confusion_json(cm: ConfusionMatrix) -> dict[str, Any]:
    """The JSON-safe confusion matrix of a report: ``labels``, ``pos_label`` and the k × k
    ``matrix`` with its row-normalised ``rates`` (:func:`confusion_rates`) for at most
    :data:`MAX_DENSE_CLASSES` classes; beyond, ``cells``: [true index, predicted index,
    count, share of the row] of each non-empty cell, with a ``note`` saying so.

    >>> import numpy as np
    >>> confusion_json(ConfusionMatrix(np.array([[3, 1], [0, 0]]), np.array([0, 1])))["rates"]
    [[0.75, 0.25], [None, None]]
    """
    if cm.n_classes <= MAX_DENSE_CLASSES:
        rates = confusion_rates(cm)
        return {**cm.to_dict(), "rates": [[_num(v) for v in row] for row in rates.tolist()]}
    true, predicted = np.nonzero(cm.matrix)  # no k × k temporary
    counts = np.asarray(cm.matrix[true, predicted], dtype=np.float64)
    rates = counts / np.asarray(cm.matrix.sum(axis=1), dtype=np.float64)[true]
    pos = cm.pos_label.item() if hasattr(cm.pos_label, "item") else cm.pos_label
    return {
        "labels": cm.labels.tolist(), "pos_label": pos,
        "cells": [[int(i), int(j), _num(c), _num(r)] for i, j, c, r in zip(true, predicted, counts, rates)],
        "note": f"the confusion matrix of {cm.n_classes} classes as its {true.size} non-empty cells "
                "[true class index, predicted class index, count, share of the row]; the k x k matrix and "
                f"its rates only up to {MAX_DENSE_CLASSES} classes",
    }


@dataclass(frozen=True, eq=False)
class ClassMetricColumn:
    """One metric of the per-class table: arrays with one entry per class."""

    name: str
    title: str
    value: np.ndarray
    baseline: np.ndarray
    baseline_prediction: tuple[str, ...]
    ideal: np.ndarray
    advantage: np.ndarray
    ops: np.ndarray
    ci_low: np.ndarray | None = None
    ci_high: np.ndarray | None = None

    def entry(self, i: int) -> dict[str, Any]:
        """The JSON-safe entry of class ``i``."""
        return {
            "value": _num(self.value[i]),
            "baseline": _num(self.baseline[i]),
            "baseline_prediction": self.baseline_prediction[i],
            "ideal": _num(self.ideal[i]),
            "advantage": _num(self.advantage[i]),
            "ops": _num(self.ops[i]),
            "ci": None if self.ci_low is None or self.ci_high is None else [_num(self.ci_low[i]), _num(self.ci_high[i])],
        }


@dataclass(frozen=True, eq=False)
class PerClassTable:
    """Precision, recall and F1 of every class against the rest (module docstring).

    Attributes
    ----------
    classes : the class labels
    support : weight of each class in y_true (rows when unweighted)
    prevalence : share of each class in y_true
    columns : metric name -> ``ClassMetricColumn``
    confidence_level : the intervals' level
    ci_method : how the intervals were obtained (None: not computed)
    ops_method : how the OPS was computed
    """

    classes: tuple
    support: np.ndarray
    prevalence: np.ndarray
    columns: dict[str, ClassMetricColumn]
    confidence_level: float
    ci_method: str | None
    ops_method: str | None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict: ``classes`` and, per class, ``support``, ``prevalence`` and each
        metric's value, baseline, advantage, OPS and interval."""
        return {
            "metrics": list(self.columns),
            "confidence_level": self.confidence_level,
            "ci_method": self.ci_method,
            "ops_method": self.ops_method,
            "classes": [
                {"label": _label(c), "support": _num(self.support[i]), "prevalence": _num(self.prevalence[i]),
                 **{name: col.entry(i) for name, col in self.columns.items()}}
                for i, c in enumerate(self.classes)
            ],
        }

    def to_frame(self):
        """A :class:`pandas.DataFrame` indexed by (class, metric)."""
        import pandas as pd

        rows = []
        for i, c in enumerate(self.classes):
            for name, col in self.columns.items():
                rows.append({
                    "class": _label(c), "metric": name, "support": self.support[i], "value": col.value[i],
                    "baseline": col.baseline[i], "baseline_prediction": col.baseline_prediction[i],
                    "advantage": col.advantage[i], "ops": col.ops[i],
                    "ci_low": np.nan if col.ci_low is None else col.ci_low[i],
                    "ci_high": np.nan if col.ci_high is None else col.ci_high[i],
                })
        return pd.DataFrame(rows).set_index(["class", "metric"])


_AUC_TITLES = {"roc_auc": "ROC AUC", "pr_auc": "Avg. precision"}


def with_scoring_columns(table: PerClassTable, values: dict[str, np.ndarray], *,
                         mc_samples: int | None = None) -> PerClassTable:
    """The table with one-vs-rest AUC columns of class probabilities (``"roc_auc"``,
    ``"pr_auc"``: one value per class, in the table's class order): baseline a constant
    score (ROC AUC 0.5, average precision π_c), the OPS against random score curves at the
    class's prevalence (DBT reference), no interval (the statistics hold no joint
    resampling of every class's scores)."""
    columns = dict(table.columns)
    prevalence = table.prevalence
    for name, value in values.items():
        value = np.asarray(value, dtype=np.float64)
        baseline = np.full(value.shape, 0.5) if name == "roc_auc" else prevalence.copy()
        ideal = np.ones_like(value)
        ops = np.full(value.shape, np.nan)
        ok = np.isfinite(value) & (prevalence > 0) & (prevalence < 1)
        if ok.any():
            scores, _, _ = _ops_of(name, value[ok], prevalence[ok], mc_samples=mc_samples)
            if scores is not None:
                ops[ok] = scores
        columns[name] = ClassMetricColumn(
            name, _AUC_TITLES[name], value, baseline, ("a constant score",) * value.size, ideal,
            np.array([_advantage(v, b, h) for v, b, h in zip(value, baseline, ideal)]), ops)
    return PerClassTable(table.classes, table.support, table.prevalence, columns, table.confidence_level,
                         table.ci_method, table.ops_method)


def _constant_baselines(name: str, prevalence: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(value, always) of the better constant of each class's one-vs-rest problem:
    ``always`` True for "always predict c", False for "never predict c"."""
    m = get_metric(name)
    one = np.ones_like(prevalence)
    zero = np.zeros_like(prevalence)
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        # always c: tp = π, fp = 1 − π; never c: fn = π, tn = 1 − π (0/0 counts as 0, as in the report)
        always = np.nan_to_num(np.asarray(m.compute(prevalence, one - prevalence, zero, zero), dtype=float), nan=0.0)
        never = np.nan_to_num(np.asarray(m.compute(zero, zero, prevalence, one - prevalence), dtype=float), nan=0.0)
    better = always >= never if m.greater_is_better else always <= never
    return np.where(better, always, never), better


#: largest number of drawn cell counts held at once (a chunk of resamples × non-empty cells)
_DRAW_ELEMENTS = 1 << 22
#: classes evaluated at once from the resamples' totals (bounds the (B, classes) temporaries)
_CLASS_BLOCK = 512


def _resampled_matrices(cm: ConfusionMatrix, replicates: np.ndarray | None, seed: int,
                        n_resamples: int) -> np.ndarray | MatrixTotals | None:
    """The B matrices to take intervals over: the (B, k, k) replicates, or the totals
    (:class:`MatrixTotals`, (B, k) each) of B multinomial draws of the cells (row counts),
    None when the cells are not whole counts.

    numpy draws a multinomial cell after cell, an empty cell without a random number, so
    the draws over the non-empty cells and the last one are those over all k² cells: the
    same resamples in O(n + k) each (at most n cells are non-empty), in chunks."""
    if replicates is not None:
        return np.asarray(replicates, dtype=np.float64)
    m = np.asarray(cm.matrix, dtype=np.float64).ravel()
    n = float(m.sum())
    if n_resamples <= 0 or n <= 0 or not np.allclose(m, np.rint(m)):
        return None
    cells = np.union1d(np.flatnonzero(m), [m.size - 1])
    totals_of, p = CellTotals(cells, cm.n_classes), m[cells] / n
    rng = np.random.default_rng(seed)
    chunk = max(1, _DRAW_ELEMENTS // cells.size)
    parts = [totals_of(rng.multinomial(int(round(n)), p, size=min(chunk, n_resamples - start)))
             for start in range(0, n_resamples, chunk)]
    return MatrixTotals(*(np.concatenate(part) for part in zip(*parts)))


def _per_class_resamples(stack: np.ndarray | MatrixTotals, name: str) -> np.ndarray:
    """(B, k) values of a per-class metric over the resampled matrices or their totals."""
    with np.errstate(all="ignore"):
        if not isinstance(stack, MatrixTotals):
            return np.asarray(metric_from_matrices(stack, name, average=None), dtype=np.float64)
        k = stack.t.shape[-1]
        return np.concatenate([  # a class's value reads its own totals only: blocks of classes
            np.asarray(metric_from_totals(MatrixTotals(stack.n, *(a[:, i:i + _CLASS_BLOCK] for a in stack[1:])),
                                          name, average=None), dtype=np.float64)
            for i in range(0, k, _CLASS_BLOCK)], axis=1)


def per_class_table(cm: ConfusionMatrix, *, level: float, replicates: np.ndarray | None, seed: int,
                    n_resamples: int) -> PerClassTable:
    """The per-class table of a confusion matrix (module docstring).

    ``replicates``: the (B, k, k) replicate matrices of weighted data (None: ``n_resamples``
    multinomial draws of the cells with ``default_rng(seed)``; 0: no intervals).
    """
    k = cm.n_classes
    support = np.asarray(cm.true_counts, dtype=np.float64)
    total = float(support.sum())
    prevalence = support / total if total > 0 else np.full(k, np.nan)
    stack = _resampled_matrices(cm, replicates, seed, n_resamples)
    half = (1 - level) / 2
    columns: dict[str, ClassMetricColumn] = {}
    ops_method = None
    for name in PER_CLASS_METRICS:
        m = get_metric(name)
        with np.errstate(all="ignore"):
            value = np.asarray(cm.metric(name, average=None, zero_division=np.nan), dtype=np.float64)
        baseline, always = _constant_baselines(name, prevalence)
        ideal = np.array([m.range_at(p)[1] if 0 < p < 1 else m.upper for p in prevalence], dtype=np.float64)
        advantage = np.array([_advantage(v, b, h) for v, b, h in zip(value, baseline, ideal)])
        ops = np.full(k, np.nan)
        ok = np.isfinite(value) & (prevalence > 0) & (prevalence < 1)
        if ok.any():
            scores, method, _ = _ops_of(name, value[ok], prevalence[ok])
            if scores is not None:
                ops[ok] = scores
                ops_method = f"binary OPS of each class against the rest at its prevalence ({method})"
        low = high = None
        if stack is not None:
            reps = _per_class_resamples(stack, name)
            low, high = np.full(k, np.nan), np.full(k, np.nan)
            for i in range(k):
                v = reps[:, i][np.isfinite(reps[:, i])]
                if v.size >= 2 and math.isfinite(value[i]):
                    low[i], high[i] = np.quantile(v, [half, 1 - half])
        labels = [_label(c) for c in np.asarray(cm.labels).tolist()]
        what = tuple(f"{'always' if a else 'never'} predicting {_fmt_label(c)}" for a, c in zip(always, labels))
        columns[name] = ClassMetricColumn(name, TITLES.get(name, name), value, baseline, what, ideal, advantage,
                                          ops, low, high)
    if stack is None:
        ci_method = None
    elif replicates is not None:
        assert isinstance(stack, np.ndarray)  # replicate matrices
        ci_method = (f"percentile, {stack.shape[0]} replicate confusion matrices of the grouped Poisson bootstrap "
                     "of the rows")
    else:
        assert isinstance(stack, MatrixTotals)  # the totals of resampled cells
        ci_method = f"percentile, {stack.n.shape[0]} multinomial resamples of the confusion-matrix cells"
    return PerClassTable(tuple(_label(c) for c in np.asarray(cm.labels).tolist()), support, prevalence, columns,
                         float(level), ci_method, ops_method)
