r"""The resampled statistics of :func:`~beyondchance.inference.bootstrap.bootstrap_ci`: a measure as a
function of the counts of units drawn from each pool (:class:`_Statistic`), the count draws
(``Multinomial(U, m / U)`` over the pools, in chunks), the bootstrap distribution, the jackknife
of BCa's acceleration (exact, or grouped over random blocks), and the two general statistics —
a labeling metric of the resampled confusion matrix (pools: its cells) and any callable with
count weights (pools: the rows).  The resampling model is described in
:mod:`beyondchance.inference.bootstrap`.
"""

from __future__ import annotations

import contextlib
import inspect
import warnings
from typing import Any, Callable

import numpy as np

from .._validation import (
    as_samples,
    check_consistent_length,
    check_frequency_weights,
    check_sample_weight,
    encode_labels,
)
from .._warnings import InvalidInputError
from ..measures.confusion import (
    CELL_METRICS,
    Average,
    CellTotals,
    ConfusionMatrix,
    MatrixTotals,
    _warn_zero_division,
    metric_from_matrices,
    metric_from_totals,
    zero_division_value,
)
from ..measures.registry import LabelingMetric

#: an option not given (``average``)
_UNSET: Any = type("_Unset", (), {"__repr__": lambda self: "<default>"})()

#: Largest number of array elements materialised at once (counts of a chunk of resamples).
_CHUNK_ELEMENTS = 1 << 22
#: Callables: exact leave-one-out jackknife up to this many pools, grouped beyond.
_JACKKNIFE_EXACT_MAX = 2000
#: Number of blocks of the grouped (delete-m) jackknife.
_JACKKNIFE_BLOCKS = 500
#: Confusion statistics from totals: exact jackknife up to this many pools × classes (its
#: cost), grouped beyond (a random partition of the units into _JACKKNIFE_BLOCKS blocks)
_JACKKNIFE_TOTALS_MAX = 1 << 26
#: Up to this many pools, resample counts come from numpy's multinomial sampler
#: (cost O(pools) per resample); beyond, from U uniform draws + bincount (O(U)).
_MULTINOMIAL_MAX_POOLS = 256


# --- resampling ------------------------------------------------------------------------------


class _Statistic:
    """A measure as a function of the counts of units drawn from each pool.

    ``m[g]`` is the number of units in pool g (U = m.sum()); ``evaluate(counts)`` takes
    a (b, G) array of resample counts and returns the b values.
    """

    name: str
    estimate: float
    m: np.ndarray

    def evaluate(self, counts: np.ndarray) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        """Leave-one-unit-out values and multiplicities, if a direct route exists."""
        return None


def _kernel_threads(stat: _Statistic) -> contextlib.AbstractContextManager:
    """One BLAS thread for statistics whose products are thin (chunk × n) @ (n × few):
    they are memory-bound, so a second thread gains little, and OpenBLAS's spinning
    threads made them erratic on a busy machine (a (20 × 10^5) @ (10^5 × 4) product:
    median 0.64 ms per resample with 2 threads, 0.12 ms with 1, same 2-core machine
    under load)."""
    if not getattr(stat, "thin_products", False):
        return contextlib.nullcontext()
    try:
        from threadpoolctl import threadpool_limits  # a dependency of scikit-learn
    except ImportError:  # pragma: no cover - scikit-learn always brings it
        return contextlib.nullcontext()
    return threadpool_limits(limits=1, user_api="blas")


def _chunk_size(n_per_resample: int, total: int) -> int:
    return int(max(1, min(total, _CHUNK_ELEMENTS // max(1, n_per_resample))))


def _uses_multinomial(m: np.ndarray, total: int) -> bool:
    return m.size <= _MULTINOMIAL_MAX_POOLS or total > 8 * m.size


def _draw_counts(rng: np.random.Generator, m: np.ndarray, total: int, size: int) -> np.ndarray:
    """``size`` draws of Multinomial(total, m / total), as a (size, G) float64 array
    (integer-valued; float because every consumer multiplies the counts by weights)."""
    g = m.size
    if _uses_multinomial(m, total):
        return rng.multinomial(total, m / total, size=size).astype(np.float64)
    idx = rng.integers(0, total, size=(size, total), dtype=np.int32 if total < 2**31 else np.int64)
    if (m <= 1).all():
        if total < g:  # rows of weight zero are not units
            idx = np.flatnonzero(m)[idx]
    else:  # unit -> its pool: a table lookup (= searchsorted(cumsum(m), idx, side="right"))
        idx = np.repeat(np.arange(g, dtype=idx.dtype), m.astype(np.int64))[idx]
    out = np.empty((size, g), dtype=np.float64)
    for i in range(size):  # one bincount per resample: cache-friendlier than one big one
        out[i] = np.bincount(idx[i], minlength=g)
    return out


def _bootstrap_distribution(stat: _Statistic, n_resamples: int, rng: np.random.Generator) -> np.ndarray:
    return _shared_distributions([stat], n_resamples, rng)[0]


def _shared_distributions(stats: list[_Statistic], n_resamples: int, rng: np.random.Generator) -> list[np.ndarray]:
    """The bootstrap distributions of statistics of the same pools from one set of draws
    (each the distribution of its own call with the same generator); confusion statistics
    of the same cells also share each resample's totals."""
    first = stats[0]
    if any(s.m.shape != first.m.shape or not np.array_equal(s.m, first.m) for s in stats[1:]):
        raise AssertionError("statistics of different pools")  # pragma: no cover - callers share pools
    total = int(first.m.sum())
    per = first.m.size if _uses_multinomial(first.m, total) else total + first.m.size
    chunk = _chunk_size(per, n_resamples)
    out = [np.empty(n_resamples, dtype=np.float64) for _ in stats]
    for start in range(0, n_resamples, chunk):
        size = min(chunk, n_resamples - start)
        counts = _draw_counts(rng, first.m, total, size)
        shared: dict[Any, MatrixTotals] = {}
        for o, stat in zip(out, stats):
            if isinstance(stat, _ConfusionStatistic) and stat._by_totals:
                key = (stat.cells.tobytes(), stat.v.tobytes())
                if key not in shared:
                    shared[key] = stat._cell_totals(counts * stat.v)
                o[start : start + size] = stat.evaluator.of_totals(shared[key])
            else:
                o[start : start + size] = stat.evaluate(counts)
    return out


def _jackknife(stat: _Statistic, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray, str]:
    """Jackknife values for BCa's acceleration: exact when affordable, else grouped."""
    direct = stat.exact_jackknife()
    if direct is not None:
        values, weights = direct
        what = "leave-one-out values" if getattr(stat, "thin_products", False) else "distinct leave-one-out values"
        return values, weights, f"exact ({values.size} {what})"
    m = stat.m
    present = np.flatnonzero(m > 0)
    g = m.size
    if present.size <= _JACKKNIFE_EXACT_MAX:
        values = np.empty(present.size)
        chunk = _chunk_size(g, present.size)
        for start in range(0, present.size, chunk):
            rows = present[start : start + chunk]
            counts = np.broadcast_to(m, (rows.size, g)).copy()
            counts[np.arange(rows.size), rows] -= 1
            values[start : start + rows.size] = stat.evaluate(counts)
        return values, m[present], f"exact ({present.size} leave-one-out values)"

    total = int(m.sum())
    n_blocks = min(_JACKKNIFE_BLOCKS, total)
    sizes = np.full(n_blocks, total // n_blocks, dtype=np.int64)
    sizes[: total % n_blocks] += 1
    values = np.empty(n_blocks)
    chunk = _chunk_size(g, n_blocks)
    if (m <= 1).all():  # units are rows: a random partition of the rows into blocks
        block_of = np.full(g, -1, dtype=np.int64)
        block_of[rng.permutation(present)] = np.repeat(np.arange(n_blocks), sizes)
        for start in range(0, n_blocks, chunk):
            blocks = np.arange(start, min(start + chunk, n_blocks))
            counts = m[None, :] - (block_of[None, :] == blocks[:, None])
            values[start : start + blocks.size] = stat.evaluate(counts)
    elif getattr(stat, "_by_totals", False):  # many cells of a large matrix: one permutation of the units
        block_of_unit = np.repeat(np.arange(n_blocks), sizes)[rng.permutation(total)]
        pool_of_unit = np.repeat(np.arange(g), m.astype(np.int64))
        for start in range(0, n_blocks, chunk):
            stop = min(start + chunk, n_blocks)
            mine = (block_of_unit >= start) & (block_of_unit < stop)
            removed = np.bincount((block_of_unit[mine] - start) * g + pool_of_unit[mine], minlength=(stop - start) * g)
            values[start:stop] = stat.evaluate(m[None, :] - removed.reshape(stop - start, g))
    else:  # units are observations: blocks drawn without replacement, one after the other
        remaining = m.astype(np.int64).copy()
        for start in range(0, n_blocks, chunk):
            stop = min(start + chunk, n_blocks)
            counts = np.empty((stop - start, g), dtype=np.int64)
            for j in range(start, stop):
                removed = rng.multivariate_hypergeometric(remaining, int(sizes[j]))
                remaining -= removed
                counts[j - start] = m - removed
            values[start:stop] = stat.evaluate(counts)
    mean_size = total / n_blocks
    return values, np.ones(n_blocks), f"grouped ({n_blocks} blocks of about {mean_size:.3g} units)"


# --- labeling metrics: resampled confusion matrices ---------------------------------------------


class _ConfusionStatistic(_Statistic):
    """A labeling metric of the resampled confusion matrix.

    Pools are the cells (or (cell, weight) pairs with importance weights); ``v[g]`` is
    the weight a unit of pool g adds to its cell.
    """

    def __init__(self, cm: ConfusionMatrix, cells: np.ndarray, v: np.ndarray, m: np.ndarray,
                 evaluator: Any, name: str, estimate: float | None = None) -> None:
        order = np.argsort(cells, kind="stable")
        self.cells, self.v, self.m = cells[order], v[order], m[order]
        seg = np.flatnonzero(np.r_[True, self.cells[1:] != self.cells[:-1]])
        self._seg_starts, self._seg_cells = seg, self.cells[seg]
        self.cm, self.k = cm, cm.n_classes
        self.evaluator = evaluator
        self.name = name
        # whole weights per unit (rows, frequency weights): every resampled matrix is a
        # function of its totals (MatrixTotals), summed from the G ≤ n non-empty cells in
        # O(G + k) per resample instead of O(k²); fractional weights keep the full matrices
        self._by_totals = (isinstance(evaluator, _MatrixEvaluator) and evaluator.metric.name not in CELL_METRICS
                           and bool(np.array_equal(self.v, np.rint(self.v))) and float(self.m @ self.v) < 2.0**53)
        self._cell_totals = CellTotals(self.cells, self.k)
        if estimate is None:
            estimate = self.evaluator.reference(cm.matrix)
        self.estimate = float(estimate)

    @classmethod
    def build(cls, metric: LabelingMetric, y_true: Any, y_pred: Any, sample_weight: Any,
              weight_type: str, options: dict, pools: dict | None = None) -> "_ConfusionStatistic":
        """``pools``: a dict shared by several metrics of the same data, so that the
        confusion matrix and its pools are built once per (labels, pos_label)."""
        options = dict(options)
        labels = options.pop("labels", None)
        pos_label = options.pop("pos_label", 1)
        average = options.pop("average", _UNSET)
        zero_division = options.pop("zero_division", "warn")
        key = (repr(None if labels is None else np.asarray(labels).tolist()), repr(pos_label))
        if pools is None or key not in pools:
            built = _confusion_pools(y_true, y_pred, sample_weight, weight_type, labels, pos_label)
            if pools is None:
                pools = {}
            pools[key] = built
        cm, cells, v, m = pools[key]
        evaluator = _MatrixEvaluator(cm, metric, average, options, zero_division)
        name = metric.name if average in (_UNSET, "binary") else f"{metric.name} (average={average})"
        return cls(cm, cells, v, m, evaluator, name)

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        if self._by_totals:
            return self.evaluator.of_totals(self._cell_totals(counts * self.v))
        mats = np.zeros((counts.shape[0], self.k * self.k))
        mats[:, self._seg_cells] = np.add.reduceat(counts * self.v, self._seg_starts, axis=1)
        return self.evaluator(mats.reshape(-1, self.k, self.k))

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        g = self.m.size
        values = np.empty(g)
        if self._by_totals and g * self.k > _JACKKNIFE_TOTALS_MAX:
            return None  # O(k) per pool left out: too many; the generic (grouped) jackknife instead
        if self._by_totals:  # one unit of pool g out: its weight off its row, column, diagonal and total
            base = MatrixTotals.of(self.cm.matrix)
            chunk = _chunk_size(self.k, g)
            for start in range(0, g, chunk):
                sl = slice(start, min(start + chunk, g))
                at = np.arange(sl.stop - start)
                v, rows, cols = self.v[sl], self._cell_totals.rows[sl], self._cell_totals.cols[sl]
                t, p, diag = (np.broadcast_to(a, (at.size, self.k)).copy() for a in base[1:])
                t[at, rows] -= v
                p[at, cols] -= v
                diag[at, rows] -= np.where(rows == cols, v, 0.0)
                values[sl] = self.evaluator.of_totals(MatrixTotals(base.n - v, t, p, diag))
            return values, self.m
        flat = self.cm.matrix.ravel()
        chunk = _chunk_size(self.k * self.k, g)
        for start in range(0, g, chunk):
            sl = slice(start, min(start + chunk, g))
            mats = np.broadcast_to(flat, (sl.stop - start, flat.size)).copy()
            mats[np.arange(sl.stop - start), self.cells[sl]] -= self.v[sl]
            np.maximum(mats, 0.0, out=mats)
            values[sl] = self.evaluator(mats.reshape(-1, self.k, self.k))
        return values, self.m


def _confusion_pools(y_true: Any, y_pred: Any, sample_weight: Any, weight_type: str, labels: Any,
                     pos_label: Any) -> tuple[ConfusionMatrix, np.ndarray, np.ndarray, np.ndarray]:
    """The confusion matrix and its pools: (cm, cells, v, m), ``v`` the weight a unit
    of a pool adds to its cell and ``m`` the number of units in the pool."""
    w = None
    if sample_weight is not None:
        codes_true, codes_pred, classes = encode_labels(y_true, y_pred, labels=labels)
        n = codes_true.shape[0]
        if weight_type == "frequency":
            w = check_frequency_weights(sample_weight, n)
        else:
            w = check_sample_weight(sample_weight, n)
    cm = ConfusionMatrix.from_predictions(
        y_true, y_pred, sample_weight=w, labels=labels, pos_label=pos_label
    )
    k = cm.n_classes
    if w is None or weight_type == "frequency":
        # pools = cells; a unit (row, or observation) adds 1 to its cell
        cells = np.flatnonzero(cm.matrix)  # the non-empty cells, without k² temporaries (10^4 classes: 10^8)
        counts = np.rint(cm.matrix.ravel()[cells]).astype(np.int64)
        cells, m = cells[counts > 0], counts[counts > 0]
        v = np.ones(cells.size)
    else:
        # pools = (cell, weight) pairs of the rows of positive weight
        if classes.shape[0] != k:  # pragma: no cover - both use encode_labels
            raise AssertionError("label sets differ")
        cell = codes_true * k + codes_pred
        keep = w > 0
        cell, wk = cell[keep], w[keep]
        order = np.lexsort((wk, cell))
        cs, ws = cell[order], wk[order]
        new = np.r_[True, (cs[1:] != cs[:-1]) | (ws[1:] != ws[:-1])]
        starts = np.flatnonzero(new)
        m = np.diff(np.r_[starts, cs.size]).astype(np.int64)
        cells, v = cs[starts], ws[starts]
    return cm, cells, v, m


class _MatrixEvaluator:
    """:func:`~beyondchance.measures.confusion.metric_from_matrices` — the definition behind
    ``ConfusionMatrix.metric`` — on a stack of resampled (k, k) matrices."""

    def __init__(self, cm: ConfusionMatrix, metric: LabelingMetric, average: Any, options: dict,
                 zero_division: Any) -> None:
        self.metric, self.options = metric, options
        self.average: Average = "binary" if average is _UNSET else average
        needs_pos = metric.multiclass != "native" and self.average == "binary"
        self.pos_index = cm._pos_index() if needs_pos else None
        # the policy of ConfusionMatrix.metric, in every resample: an undefined class of
        # a per-class average counts as zero_division's value; an undefined single value
        # stays nan (nan_policy) unless zero_division is a number
        self.zero_division = zero_division_value(zero_division, metric, self.average)
        value = self(cm.matrix[None])  # raises on bad options / average here
        if value.ndim != 1:
            raise InvalidInputError(
                f"{metric.name} gives one value per class here (average={average!r}); "
                "bootstrap_ci needs a single number: pass average='macro', 'weighted' or 'micro'"
            )
        if zero_division == "warn" and self.zero_division == 0:
            _warn_zero_division(cm, metric, self.average, value, options)

    def reference(self, matrix: np.ndarray) -> float:
        return float(self(matrix[None])[0])

    def __call__(self, mats: np.ndarray) -> np.ndarray:
        with np.errstate(all="ignore"):
            out = metric_from_matrices(
                mats, self.metric, average=self.average, pos_index=self.pos_index,
                zero_division=self.zero_division, **self.options
            )
        return np.asarray(out, dtype=np.float64)

    def of_totals(self, totals: MatrixTotals) -> np.ndarray:
        """The metric of matrices of whole counts from their totals (:func:`metric_from_totals`)."""
        with np.errstate(all="ignore"):
            out = metric_from_totals(
                totals, self.metric, average=self.average, pos_index=self.pos_index,
                zero_division=self.zero_division, **self.options
            )
        return np.asarray(out, dtype=np.float64)


# --- any callable: count weights -----------------------------------------------------------------


def _accepts_sample_weight(func: Callable[..., Any]) -> bool:
    try:
        params = inspect.signature(func).parameters.values()
    except (TypeError, ValueError):  # builtins without a signature: assume it does
        return True
    return any(p.name == "sample_weight" or p.kind is inspect.Parameter.VAR_KEYWORD for p in params)


class _CallableStatistic(_Statistic):
    """A callable evaluated with count weights (pools are the rows)."""

    def __init__(self, func: Callable[..., Any], y_true: np.ndarray, y_pred: np.ndarray,
                 v: np.ndarray | None, m: np.ndarray, options: dict, weighted_call: bool,
                 estimate_weight: np.ndarray | None) -> None:
        self.func, self.y_true, self.y_pred = func, y_true, y_pred
        self.v, self.m, self.options = v, m, options
        self.weighted_call = weighted_call
        self.name = getattr(func, "__name__", None) or type(func).__name__
        if weighted_call:
            value = func(y_true, y_pred, sample_weight=estimate_weight, **options)
        else:
            rows = np.repeat(np.arange(m.size), m)
            value = func(y_true[rows], y_pred[rows], **options)
        self.estimate = self._scalar(value)

    @classmethod
    def build(cls, func: Callable[..., Any], y_true: Any, y_pred: Any, sample_weight: Any,
              weight_type: str, options: dict) -> "_CallableStatistic":
        yt = as_samples(y_true, "y_true")
        yp = as_samples(y_pred, "y_pred")
        n = check_consistent_length(y_true=yt, y_pred=yp)
        weighted_call = _accepts_sample_weight(func)
        if weight_type == "frequency":
            w = check_frequency_weights(sample_weight, n)
            m = np.ones(n, dtype=np.int64) if w is None else w
            v = None  # the call gets the counts of observations
            estimate_weight = None if w is None else w.astype(np.float64)
        else:
            w = check_sample_weight(sample_weight, n)
            m = np.ones(n, dtype=np.int64) if w is None else (w > 0).astype(np.int64)
            v = w
            estimate_weight = w
            if w is not None and not weighted_call:
                raise InvalidInputError(
                    f"measure {getattr(func, '__name__', func)!r} takes no sample_weight, "
                    "so importance weights cannot be passed to it"
                )
        return cls(func, yt, yp, v, m, dict(options), weighted_call, estimate_weight)

    def _scalar(self, value: Any) -> float:
        arr = np.asarray(value)
        if arr.ndim != 0 or arr.dtype.kind not in "biuf":
            raise InvalidInputError(
                f"measure {self.name!r} must return one number, got {type(value).__name__} "
                f"of shape {arr.shape}"
            )
        return float(arr)

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        out = np.empty(counts.shape[0])
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            # resample-level warnings (ours, numpy's, scikit-learn's) would repeat B times;
            # undefined values are counted and reported once instead
            warnings.simplefilter("ignore")
            for i, c in enumerate(counts):
                try:
                    if self.weighted_call:
                        w = c * self.v if self.v is not None else c.astype(np.float64)
                        value = self.func(self.y_true, self.y_pred, sample_weight=w, **self.options)
                    else:
                        rows = np.repeat(np.arange(c.size), c.astype(np.int64))
                        value = self.func(self.y_true[rows], self.y_pred[rows], **self.options)
                except (ValueError, ZeroDivisionError):
                    # the measure worked on the full sample, so this is a degenerate
                    # resample (e.g. scikit-learn's "only one class present"): undefined
                    out[i] = np.nan
                    continue
                out[i] = self._scalar(value)
        return out
