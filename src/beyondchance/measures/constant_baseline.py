r"""The best constant prediction of a labeling metric: the value of "always predict class c"
for every class c, from the class totals alone.

The confusion matrix of the constant c has one non-zero column, c, equal to the true class
totals :math:`t`.  Its one-vs-rest counts follow from :math:`t` and
:math:`S_j = \sum_{i \ne j} t_i`:

* class c: :math:`(TP, FP, FN, TN) = (t_c, S_c, 0, 0)`;
* every other class j: :math:`(0, 0, t_j, S_j)`;

so a per-class metric of the constant c is the vector ``never`` (the values of
:math:`(0, 0, t_j, S_j)`) with entry c replaced by ``always[c]`` (the value of
:math:`(t_c, S_c, 0, 0)`), and the native multi-class metrics (accuracy, κ, MCC, …) have
closed forms in :math:`t_c` and :math:`n`.  The work is O(k) per constant (O(k²) in all,
never a k × k matrix per constant): the micro averages, the binary view and the native
metrics are closed forms for all k constants at once; the macro and weighted averages of
the built-in metrics are first bounded in O(1) per constant, and only the constants that can
still be the best are evaluated exactly (O(k) each, in blocks of bounded memory).

The values are those of building each constant's matrix and calling
:func:`~beyondchance.measures.confusion.metric_from_matrices` on it, bit for bit when the
counts are whole numbers (unweighted data, whole weights: every sum is then exact in any
order); with fractional weights the sums :math:`S_j` and :math:`n` are correctly rounded,
which the matrix's pairwise sums are not always (a difference in the last bits).

>>> import numpy as np
>>> best_constant("f1", np.array([50.0, 30.0, 20.0]), average="macro", zero_division=0.0)
(0.2222222222222222, 0)
>>> best_constant("accuracy", np.array([50.0, 30.0, 20.0]), average="binary", zero_division=np.nan)
(0.5, 0)
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from .._warnings import InvalidInputError
from .confusion import _fill, average_per_class, metric_from_matrices
from .registry import _REGISTRY, LabelingMetric, _div, get_metric

__all__ = ["FULL_MATRIX_MAX_CLASSES", "best_constant", "constant_values"]

#: the cells of one block of constants evaluated at once (8 MiB per array of float64)
BLOCK_CELLS = 2**20

#: a metric known only from full matrices (a native multi-class definition without a closed
#: form here) has its constants evaluated on their k × k matrices up to this many classes
#: (k³ cells in all)
FULL_MATRIX_MAX_CLASSES = 256

#: the native multi-class metrics whose constants have a closed form here
_NATIVE_CLOSED = frozenset({
    "accuracy", "error", "balanced_accuracy", "kappa", "pure_accuracy", "kappa_linear", "kappa_quadratic", "mcc",
    "prediction_advantage",
})


def _builtin(m: LabelingMetric) -> bool:
    """A metric of the package's own registry: its function is elementwise in the counts."""
    return any(m is r for r in _REGISTRY)


def _whole(x: np.ndarray) -> bool:
    return bool(np.array_equal(x, np.floor(x)) and x.sum() < 2.0**53)


def _partials(values: list[float]) -> list[float]:
    """Non-overlapping floats whose exact sum is that of ``values`` (Shewchuk's algorithm,
    as ``math.fsum`` keeps them)."""
    partials: list[float] = []
    for x in values:
        i = 0
        for y in partials:
            if abs(x) < abs(y):
                x, y = y, x
            hi = x + y
            lo = y - (hi - x)
            if lo:
                partials[i] = lo
                i += 1
            x = hi
        partials[i:] = [x]
    return partials


def totals_without(x: np.ndarray) -> tuple[float, np.ndarray]:
    """(Σ x, Σ_{i≠j} x_i for every j): exact for whole numbers below 2⁵³ (so equal to
    ``np.delete(x, j).sum()``), else correctly rounded (no difference of totals cancels)."""
    x = np.asarray(x, dtype=np.float64)
    if _whole(x):
        n = float(x.sum())
        return n, n - x
    parts = _partials(x.tolist())
    return math.fsum(parts), np.array([math.fsum(parts + [-v]) for v in x.tolist()], dtype=np.float64)


def _binary_counts_of(t: np.ndarray, s: np.ndarray, p: int) -> tuple[np.ndarray, ...]:
    """The one-vs-rest counts of class ``p`` under each constant c: (t_p, S_p, 0, 0) when
    c = p, (0, 0, t_p, S_p) otherwise."""
    k = t.shape[0]
    always = np.arange(k) == p
    zero = np.zeros(k)
    return (np.where(always, t[p], zero), np.where(always, s[p], zero), np.where(always, zero, t[p]),
            np.where(always, zero, s[p]))


def _native_values(name: str, t: np.ndarray, n: float) -> np.ndarray:
    """A native multi-class metric (k ≠ 2) of every constant, as ``_native_multiclass``
    computes it on the constant's matrix (correct = t_c, predicted counts n at c)."""
    k = t.shape[0]
    with np.errstate(all="ignore"):
        if name == "accuracy":
            return np.asarray(_div(t, n), dtype=np.float64)
        if name == "error":
            return np.asarray(_div(n - t, n), dtype=np.float64)
        if name == "balanced_accuracy":  # recall 1 for c (when present), 0 elsewhere
            present = t > 0
            return np.asarray(_div(present.astype(np.float64), present.sum()), dtype=np.float64)
        if name in ("kappa", "pure_accuracy"):
            chance = t * n
            scale = n * n
            den = n * n - chance
            return np.asarray(_div(n * t - chance, np.where(den > 1e-12 * scale, den, 0.0)), dtype=np.float64)
        if name in ("kappa_linear", "kappa_quadratic"):
            observed, expected = np.empty(k), np.empty(k)
            i = np.arange(k, dtype=np.float64)
            tn = t * n
            step = max(1, BLOCK_CELLS // max(k, 1))
            for lo in range(0, k, step):
                d = np.abs(np.subtract.outer(np.arange(lo, min(k, lo + step), dtype=np.float64), i))
                w = d if name == "kappa_linear" else d * d  # w[c, i] = w_ic
                observed[lo:lo + step] = n * (w * t).sum(axis=-1)
                expected[lo:lo + step] = (w * tn).sum(axis=-1)
            return np.asarray(1 - _div(observed, expected), dtype=np.float64)
        if name == "mcc":
            cov_ytyp = t * n - t * n
            var_yp = n**2 - n * n
            cov_ypyp = np.where(var_yp > 1e-12 * n**2, var_yp, 0.0)
            cov_ytyt = n**2 - (t * t).sum()
            cov_ytyt = cov_ytyt if cov_ytyt > 1e-12 * n**2 else 0.0
            return np.asarray(_div(cov_ytyp, np.sqrt(cov_ytyt * cov_ypyp)), dtype=np.float64) * np.ones(k)
        if name == "prediction_advantage":
            return np.asarray(1 - _div(n - t, n - t.max()), dtype=np.float64)
    raise AssertionError(name)  # pragma: no cover


def _values_from_counts(m: LabelingMetric, t: np.ndarray, s: np.ndarray, which: np.ndarray, *, average: Any,
                        zero_division: float) -> np.ndarray:
    """The exact per-class average of the constants ``which``: each constant's k one-vs-rest
    counts built in O(k), in blocks of at most ``BLOCK_CELLS`` cells."""
    k = t.shape[0]
    out = np.empty(which.shape[0])
    step = max(1, BLOCK_CELLS // max(k, 1))
    for lo in range(0, which.shape[0], step):
        cs = which[lo:lo + step]
        r = np.arange(cs.shape[0])
        tp = np.zeros((cs.shape[0], k))
        tp[r, cs] = t[cs]
        fp = np.zeros((cs.shape[0], k))
        fp[r, cs] = s[cs]
        fn = np.repeat(t[None, :], cs.shape[0], axis=0)
        fn[r, cs] = 0.0
        tn = np.repeat(s[None, :], cs.shape[0], axis=0)
        tn[r, cs] = 0.0
        with np.errstate(all="ignore"):
            out[lo:lo + step] = average_per_class(m, tp, fp, fn, tn, average=average, zero_division=zero_division)
    return out


def _values_from_matrices(m: LabelingMetric, t: np.ndarray, which: np.ndarray, *, average: Any,
                          pos_index: int | None, zero_division: float) -> np.ndarray:
    """The generic fallback: each constant's k × k matrix, built once, evaluated by
    :func:`metric_from_matrices` (blocks of at most ``BLOCK_CELLS`` cells; k³ cells in all,
    so refused beyond ``FULL_MATRIX_MAX_CLASSES`` classes)."""
    k = t.shape[0]
    if k > FULL_MATRIX_MAX_CLASSES:
        raise InvalidInputError(
            f"the best constant of {m.name!r} over {k:,} classes is computed from full matrices "
            f"(no per-class counts form), which is limited to {FULL_MATRIX_MAX_CLASSES:,} classes"
        )
    out = np.empty(which.shape[0])
    step = max(1, BLOCK_CELLS // max(k * k, 1))
    for lo in range(0, which.shape[0], step):
        cs = which[lo:lo + step]
        mats = np.zeros((cs.shape[0], k, k))
        mats[np.arange(cs.shape[0]), :, cs] = t
        with np.errstate(all="ignore"):
            out[lo:lo + step] = metric_from_matrices(mats, m, average=average, pos_index=pos_index,
                                                     zero_division=zero_division)
    return out


def constant_values(metric: str | LabelingMetric, true_counts: Any, *, average: Any = "binary",
                    pos_index: int | None = None, zero_division: float = np.nan,
                    which: Any = None) -> np.ndarray:
    """The value of "always predict class c" for each class c of ``which`` (default every
    class), as :func:`~beyondchance.measures.confusion.metric_from_matrices` computes it on
    that constant's confusion matrix (``zero_division`` a number, as there).

    >>> constant_values("recall", np.array([3.0, 1.0]), average="macro")
    array([0.5, 0.5])
    """
    m = get_metric(metric)
    t = np.asarray(true_counts, dtype=np.float64)
    k = t.shape[0]
    which = np.arange(k) if which is None else np.asarray(which, dtype=np.intp)
    n, s = totals_without(t)
    if m.multiclass == "native":
        if k == 2:  # the counts of class 1 (either class may play the positive one)
            with np.errstate(all="ignore"):
                return _fill(np.asarray(m.compute(*_binary_counts_of(t, s, 1)), dtype=np.float64),
                             zero_division)[which]
        if m.name not in _NATIVE_CLOSED or not _builtin(m):
            return _values_from_matrices(m, t, which, average=average, pos_index=pos_index,
                                         zero_division=zero_division)
        return _fill(_native_values(m.name, t, n), zero_division)[which]
    if average == "binary":
        if k > 2:
            raise InvalidInputError(
                f"average='binary' needs two classes, found {k}; "
                "pass average='macro', 'weighted', 'micro' or None"
            )
        with np.errstate(all="ignore"):
            if pos_index is None:
                zero = np.zeros(k)
                values = m.compute(zero, zero, zero, np.full(k, n))
            else:
                values = m.compute(*_binary_counts_of(t, s, pos_index))
        return _fill(np.asarray(values, dtype=np.float64) * np.ones(k), zero_division)[which]
    if average == "micro":  # summed over the classes: (t_c, S_c, S_c, Σ_{j≠c} S_j)
        _, tn = totals_without(s)
        with np.errstate(all="ignore"):
            values = m.compute(t, s, s, tn)
        return _fill(np.asarray(values, dtype=np.float64) * np.ones(k), zero_division)[which]
    if average not in ("macro", "weighted"):
        raise InvalidInputError(f"the value of a constant prediction needs average='binary', 'micro', 'macro' or "
                                f"'weighted'; got {average!r}")
    if _builtin(m):
        always, never = _always_never(m, t, s, zero_division)
        if np.all(never == 0.0):
            return _single_entry_average(always, t, average)[which]
    return _values_from_counts(m, t, s, which, average=average, zero_division=zero_division)


def _always_never(m: LabelingMetric, t: np.ndarray, s: np.ndarray, zero_division: float
                  ) -> tuple[np.ndarray, np.ndarray]:
    """The value of class j when it is always predicted, (t_j, S_j, 0, 0), and when it is
    never predicted, (0, 0, t_j, S_j), undefined values filled with ``zero_division``."""
    k = t.shape[0]
    zero = np.zeros(k)
    with np.errstate(all="ignore"):
        always = _fill(np.asarray(m.compute(t, s, zero, zero), dtype=np.float64) * np.ones(k), zero_division)
        never = _fill(np.asarray(m.compute(zero, zero, t, s), dtype=np.float64) * np.ones(k), zero_division)
    return always, never


def _single_entry_average(always: np.ndarray, t: np.ndarray, average: str) -> np.ndarray:
    """The macro or weighted average of every constant when each never-predicted class
    scores exactly 0 (precision, recall, F1, …): the vector of the constant c is 0 but for
    ``always[c]``, so its sums are exact, and the averages are those of ``_nanaverage`` on
    that vector, bit for bit (the sum of zeros and one value v is v + 0.0)."""
    k = t.shape[0]
    defined = ~np.isnan(always)
    v = np.where(defined, always, 0.0) + 0.0
    with np.errstate(all="ignore"):
        if average == "macro":  # weights 1 on the defined classes: all but c when always[c] is undefined
            count = np.where(defined, float(k), float(k - 1))
            return np.where(count > 0, v / count, np.nan)
        # weights t (= TP + FN of every class); without c's weight when always[c] is undefined
        _, without = totals_without(t)
        wsum = np.where(defined, float(t.sum()), without)
        count = np.where(defined, float(k), float(k - 1))
        return np.where(wsum > 0, (v * np.where(defined, t, 0.0) + 0.0) / np.where(wsum > 0, wsum, 1.0),
                        np.where(count > 0, v / np.where(count > 0, count, 1.0), np.nan))


def _candidates(m: LabelingMetric, t: np.ndarray, s: np.ndarray, *, average: str,
                zero_division: float) -> np.ndarray | None:
    """The constants whose macro or weighted average may be the best (a mask), from an O(1)
    bound per constant: the average of ``never`` with entry c replaced by ``always[c]``, and
    its rounding error bounded generously; None when no bound holds (a non-finite value)."""
    k = t.shape[0]
    always, never = _always_never(m, t, s, zero_division)
    def_a, def_n = ~np.isnan(always), ~np.isnan(never)
    a0, n0 = np.where(def_a, always, 0.0), np.where(def_n, never, 0.0)
    if not (np.isfinite(a0).all() and np.isfinite(n0).all()):
        return None
    weight = np.ones(k) if average == "macro" else t
    w_a, w_n = def_a * weight, def_n * weight
    full = float(np.maximum(w_a, w_n).sum())
    if full <= 0:
        return None
    with np.errstate(all="ignore"):
        den = w_n.sum() - w_n + w_a
        approx = ((n0 * w_n).sum() - n0 * w_n + a0 * w_a) / den
    largest = float(max(np.abs(a0).max(initial=0.0), np.abs(n0).max(initial=0.0)))
    eps = np.finfo(np.float64).eps
    certain = den > 1e-3 * full
    err = np.where(certain, 64 * (k + 3) * eps * largest * full / np.where(certain, den, 1.0)
                   + 8 * eps * np.abs(np.where(certain, approx, 0.0)), np.inf)
    g = approx if m.greater_is_better else -approx
    if not certain.any():
        return None
    floor = float(np.max(np.where(certain, g - err, -np.inf)))
    return ~certain | (g + err >= floor)


def best_constant(metric: str | LabelingMetric, true_counts: Any, *, average: Any = "binary",
                  pos_index: int | None = None, zero_division: float = np.nan) -> tuple[float, int]:
    """(value, class index) of the best "always predict class c": the classes tried from the
    largest total down (ties in class order), the first one strictly better than every
    earlier one kept; when the largest class's value is undefined (nan), that class and nan.

    >>> best_constant("precision", np.array([2.0, 6.0, 2.0]), average="macro", zero_division=0.0)
    (0.2, 1)
    """
    m = get_metric(metric)
    t = np.asarray(true_counts, dtype=np.float64)
    k = t.shape[0]
    order = np.argsort(-t, kind="stable")
    if k == 0:
        return float("nan"), -1
    if m.multiclass != "native" and average in ("macro", "weighted") and _builtin(m) and k > 2:
        _, s = totals_without(t)
        mask = _candidates(m, t, s, average=average, zero_division=zero_division)
        if mask is not None:
            mask[order[0]] = True
            which = order[mask[order]]
            values = constant_values(m, t, average=average, pos_index=pos_index, zero_division=zero_division,
                                     which=which)
            return _first_best(m, which, values)
    values = constant_values(m, t, average=average, pos_index=pos_index, zero_division=zero_division)
    return _first_best(m, order, values[order])


def _first_best(m: LabelingMetric, order: np.ndarray, values: np.ndarray) -> tuple[float, int]:
    """The first of ``order`` strictly better than every earlier one (``values`` in that order)."""
    best_v, best_i = float(values[0]), int(order[0])
    if math.isnan(best_v):
        return best_v, best_i
    g = values if m.greater_is_better else -values
    finite = ~np.isnan(g)
    if not finite.any():  # pragma: no cover - values[0] is defined
        return best_v, best_i
    top = np.max(g[finite])
    j = int(np.flatnonzero(finite & (g == top))[0])
    return float(values[j]), int(order[j])

