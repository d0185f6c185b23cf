r"""The prediction advantage in :func:`~beyondchance.inference.bootstrap.bootstrap_ci`: the fast exact
routes for its loss.  By name, the label losses (cost matrices, label callables) are functions of
the confusion matrix, drawn over its cells; with a closed-form loss (squared, log loss, Brier,
absolute, pinball, label losses on rows) the resamples are those of any callable, and each value
comes from a few sums per resample — one (chunk × n) @ (n × d) product — with the weighted
quantile of the absolute and pinball losses read from the cumulative resampled weights, and the
jackknife values are the full-sample sums minus one row's contribution (module docstring of
:mod:`beyondchance.inference.bootstrap`).
"""

from __future__ import annotations

import functools
from typing import Any, Callable

import numpy as np

from .._validation import as_1d, as_samples, check_frequency_weights, encode_labels, union_labels
from .._warnings import InvalidInputError
from ..measures.advantage import _read_proba, prediction_advantage
from ..measures.losses import (
    _EPS,
    weighted_quantile,
    AbsoluteLoss,
    BrierLoss,
    CallableLoss,
    CostMatrixLoss,
    CrossEntropyLoss,
    Loss,
    PinballLoss,
    SquaredLoss,
    ZeroOneLoss,
    _as_targets,
    _losses,
    get_loss,
)
from ..measures.registry import get_metric
from .bootstrap_resampling import _CallableStatistic, _ConfusionStatistic, _Statistic, _chunk_size, _confusion_pools

# --- the prediction advantage of any closed-form loss: per-resample sums -------------------------
#
# A resample is a vector of counts c over the pools (rows), exactly as for any callable, and
# ``prediction_advantage(y_true, y_pred, sample_weight=c * v, loss=...)`` is a function of a few
# sums over the rows weighted by c * v (v: the importance weights, or 1).  The sums of a chunk of
# resamples are one matrix product (chunk × n counts) @ (n × d design); the leave-one-out values
# of the jackknife are the full-sample sums minus one row's contribution.  The absolute and
# pinball losses also need a weighted quantile per resample: y is sorted once and the quantile
# is found in the cumulative resampled weights, by the convention of
# :func:`beyondchance.measures.weighted_quantile`.

#: Options of :func:`beyondchance.prediction_advantage` that bootstrap_ci passes on.
_PA_OPTIONS = ("loss", "labels", "prior", "multioutput", "normalize", "strict")
#: Options that need the loss-aware route even with the 0/1 loss.
_PA_LOSS_ROUTE = ("prior", "multioutput", "normalize", "strict")
#: A variance computed from moments is trusted to ~1e-12 when it is at least this share of
#: the (centred) second moment; below, the resample is recomputed by the two-pass formula.
_MOMENT_TRUST = 1.0 / 4096.0
#: Next positive row after a position: steps tried one at a time before a full scan.
_NEXT_STEPS = 16


def _pa_function_options(measure: Any) -> dict | None:
    """The fixed keyword options if ``measure`` is :func:`prediction_advantage` (or a
    ``functools.partial`` of it with keywords only), else None."""
    if measure is prediction_advantage:
        return {}
    if (isinstance(measure, functools.partial) and measure.func is prediction_advantage
            and not measure.args):
        return dict(measure.keywords)
    return None


def _pa_statistic(y_true: Any, y_pred: Any, sample_weight: Any, weight_type: str, options: dict,
                  *, by_name: bool) -> _Statistic:
    """The prediction advantage with ``options``: the fastest exact route for its loss.

    By name: the 0/1 loss and the other label losses (cost matrices, label callables)
    are functions of the confusion matrix, drawn directly over its cells.  By function
    (or any real / probability closed-form loss): pools are the rows, with the same
    count draws as any callable, and the sums route when the loss has a closed form.
    """
    options = dict(options)
    lo = get_loss(options.get("loss", "zero_one"))
    if by_name and type(lo) is ZeroOneLoss and not any(k in options for k in _PA_LOSS_ROUTE):
        options.pop("loss", None)
        return _ConfusionStatistic.build(
            get_metric("prediction_advantage"), y_true, y_pred, sample_weight, weight_type, options
        )
    unknown = sorted(set(options) - set(_PA_OPTIONS))
    if unknown:
        raise InvalidInputError(
            f"prediction_advantage with loss={lo.name!r} takes no option(s) {unknown}; "
            f"known options: {', '.join(_PA_OPTIONS)}"
        )
    name = f"prediction_advantage (loss={lo.name})"
    # label losses: the PA is a function of the confusion matrix through the k x k loss table
    label_table = lo.prediction == "label" and type(lo) in (ZeroOneLoss, CostMatrixLoss, CallableLoss)
    if by_name and label_table and options.get("prior") is None:
        return _PALabelCells.build(lo, y_true, y_pred, sample_weight, weight_type, options, name)
    base = _CallableStatistic.build(
        prediction_advantage, y_true, y_pred, sample_weight, weight_type, options
    )
    base.name = name
    if options.get("prior") is not None or not np.isfinite(base.estimate):
        return base
    if label_table:
        return _PALabelRows(base, lo, options)
    kind = type(lo)
    if kind in (CrossEntropyLoss, BrierLoss):
        return _PAProbaRows(base, lo, options)
    if kind is SquaredLoss:
        return _PASquaredRows(base, lo, options)
    if kind in (AbsoluteLoss, PinballLoss):
        return _PAQuantileRows(base, lo, options)
    return base  # callable real / probability losses: numerical BMP, generic path


# --- label losses by name: resampled confusion matrices -------------------------------------------


class _PALabelEvaluator:
    """PA of a label loss on a stack of (k, k) confusion matrices (rows: true labels).

    The formulas of :func:`beyondchance.prediction_advantage` for label losses:
    R(f) = Σ_tp M_tp L[p, t] / n, R(f₀) = min_i Σ_t L[i, t] N_t / n (0/1 loss:
    (n − trace M) / n and (n − max_t N_t) / n), ties of the minimum resolved as there.
    """

    def __init__(self, table: np.ndarray | None) -> None:
        self.table = table  # None: the 0/1 loss

    def reference(self, matrix: np.ndarray) -> float:
        return float(self(matrix[None])[0])

    def __call__(self, mats: np.ndarray) -> np.ndarray:
        n = mats.sum(axis=(1, 2))
        true_counts = mats.sum(axis=2)
        with np.errstate(all="ignore"):
            if self.table is None:
                risk = (n - np.trace(mats, axis1=1, axis2=2)) / n
                base = (n - true_counts.max(axis=1)) / n
            else:
                risk = np.sum(mats * self.table.T, axis=(1, 2)) / n
                base = _label_bmp_risk(true_counts, n, self.table)
            return np.where(base > 0, 1.0 - risk / base, np.nan)


def _label_bmp_risk(true_counts: np.ndarray, total: np.ndarray, table: np.ndarray) -> np.ndarray:
    """min_i Σ_t L[i, t] N_t / n per row, with the tie rule of the BMP solver (first class
    within 1e-12 of the minimum)."""
    expected = (true_counts @ table.T) / total[:, None]
    best = expected.min(axis=1)
    close = expected <= (best + 1e-12 * np.maximum(1.0, np.abs(best)))[:, None]
    return expected[np.arange(expected.shape[0]), np.argmax(close, axis=1)]


class _PALabelCells(_ConfusionStatistic):
    """The PA of a cost matrix (or any label loss) by name: cells of the confusion matrix."""

    @classmethod
    def build(cls, lo: Loss, y_true: Any, y_pred: Any, sample_weight: Any,  # type: ignore[override]
              weight_type: str, options: dict, name: str) -> "_PALabelCells":
        w_call = sample_weight
        if weight_type == "frequency" and sample_weight is not None:
            w_call = check_frequency_weights(sample_weight, len(as_samples(y_true, "y_true")))
        # validates every option and gives the estimate exactly as the function does
        estimate = prediction_advantage(y_true, y_pred, sample_weight=w_call, **options)
        labels = options.get("labels")
        extra = lo.extra_labels()
        if labels is None and extra is not None:
            labels = union_labels(y_true, y_pred, extra, names=("y_true", "y_pred", "the loss's labels"))
        cm, cells, v, m = _confusion_pools(y_true, y_pred, sample_weight, weight_type, labels, None)
        table = None if type(lo) is ZeroOneLoss else lo.loss_matrix(cm.labels)
        return cls(cm, cells, v, m, _PALabelEvaluator(table), name, estimate=float(estimate))


# --- closed-form losses on rows: sums per resample ------------------------------------------------


class _PARows(_Statistic):
    """The PA from per-resample sums ``S = counts @ X`` (pools are the rows).

    ``X`` holds one row per data row, already multiplied by the row's unit weight u
    (the importance weight, or 1), so that a resample's sums are ``counts @ X`` and
    removing one unit of row i subtracts ``X[i]``.
    """

    thin_products = True

    def __init__(self, base: _CallableStatistic, lo: Loss, options: dict) -> None:
        self.m, self.estimate, self.name = base.m, base.estimate, base.name
        self.u = None if base.v is None else np.asarray(base.v, dtype=np.float64)
        self.lo, self.options = lo, options
        self.X = self._design(base)
        if self.u is not None:
            self.X *= self.u[:, None]

    def _design(self, base: _CallableStatistic) -> np.ndarray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _from_sums(self, sums: np.ndarray, counts_of: Callable[[np.ndarray], np.ndarray]) -> np.ndarray:
        raise NotImplementedError  # pragma: no cover - abstract

    def _weights(self, counts: np.ndarray) -> np.ndarray:
        """The sample weights a resample passes to the function: counts × u."""
        return counts * self.u if self.u is not None else np.asarray(counts, dtype=np.float64)

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        sums = np.asarray(counts, dtype=np.float64) @ self.X
        with np.errstate(all="ignore"):
            return self._from_sums(sums, lambda rows: counts[rows])

    def _loo_counts(self, present: np.ndarray) -> Callable[[np.ndarray], np.ndarray]:
        def counts_of(rows: np.ndarray) -> np.ndarray:
            out = np.broadcast_to(self.m, (rows.size, self.m.size)).copy()
            out[np.arange(rows.size), present[rows]] -= 1
            return out
        return counts_of

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        present = np.flatnonzero(self.m > 0)
        full = self.m.astype(np.float64) @ self.X
        values = np.empty(present.size)
        chunk = _chunk_size(self.X.shape[1], present.size)
        counts_of = self._loo_counts(present)
        for start in range(0, present.size, chunk):
            rows = np.arange(start, min(start + chunk, present.size))
            sums = full[None, :] - self.X[present[rows]]
            def counts_of_rows(r: np.ndarray, rows: np.ndarray = rows) -> np.ndarray:
                return counts_of(rows[r])

            with np.errstate(all="ignore"):
                values[rows] = self._from_sums(sums, counts_of_rows)
        return values, self.m[present]


def _pa_from_risks(risk: np.ndarray, base: np.ndarray) -> np.ndarray:
    return np.where(base > 0, 1.0 - risk / base, np.nan)


def _aggregate_outputs(pa: np.ndarray, multioutput: Any) -> np.ndarray:
    """``prediction_advantage``'s ``multioutput`` averaging on a (b, outputs) array."""
    if pa.shape[1] == 1:
        return pa[:, 0]
    if isinstance(multioutput, str):  # "uniform_average" ("raw_values" is refused upstream)
        return pa.mean(axis=1)
    weights = np.asarray(multioutput, dtype=np.float64)
    return (pa * weights).sum(axis=1) / weights.sum()


class _PALabelRows(_PARows):
    """Label losses (0/1, cost matrices, label callables): true-class sums N and the loss sum."""

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        lo = self.lo
        labels = self.options.get("labels")
        extra = lo.extra_labels()
        if labels is None and extra is not None:
            labels = union_labels(base.y_true, base.y_pred, extra,
                                  names=("y_true", "y_pred", "the loss's labels"))
        ct, cp, classes = encode_labels(base.y_true, base.y_pred, labels=labels)
        k = classes.shape[0]
        self.table = None if type(lo) is ZeroOneLoss else lo.loss_matrix(classes)
        X = np.zeros((ct.shape[0], k + 1))
        X[np.arange(ct.shape[0]), ct] = 1.0
        # 0/1 loss: the correct predictions (R(f) = (n − Σ correct) / n, as the function)
        X[:, k] = (ct == cp) if self.table is None else self.table[cp, ct]
        return X

    def _from_sums(self, sums: np.ndarray, counts_of: Callable) -> np.ndarray:
        true_counts, loss = sums[:, :-1], sums[:, -1]
        total = true_counts.sum(axis=1)
        if self.table is None:
            risk = (total - loss) / total
            base = (total - true_counts.max(axis=1)) / total
        else:
            risk = loss / total
            base = _label_bmp_risk(true_counts, total, self.table)
        return _pa_from_risks(risk, base)


class _PAProbaRows(_PARows):
    """Log loss and Brier score: class sums (BMP = resampled prior, risk H(p) or
    1 − Σ p²) and the loss sum."""

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        yt = as_1d(base.y_true, "y_true")
        labels = self.options.get("labels")
        codes, _, classes = encode_labels(yt, labels=labels)
        k = classes.shape[0]
        proba = _read_proba(base.y_pred, k, bool(self.options.get("normalize", False)), classes)
        X = np.zeros((codes.shape[0], k + 1))
        X[np.arange(codes.shape[0]), codes] = 1.0
        X[:, k] = self.lo.sample_losses_proba(proba, codes)
        return X

    def _from_sums(self, sums: np.ndarray, counts_of: Callable) -> np.ndarray:
        class_sums, loss = sums[:, :-1], sums[:, -1]
        total = class_sums.sum(axis=1)
        base = np.asarray(self.lo.bmp_risk_proba(class_sums / total[:, None]), dtype=np.float64)
        return _pa_from_risks(loss / total, base)


class _PASquaredRows(_PARows):
    """Squared loss (R²): per output Σw, Σw·y, Σw·y², Σw·(y − ŷ)², y centred on its
    full-sample mean; resamples where the moment formula could lose precision (variance
    below 1/4096 of the second moment, including every one-valued resample) are
    recomputed by the two-pass formula of the function."""

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        y = _as_targets(base.y_true, "y_true")
        f = _as_targets(base.y_pred, "y_pred")
        self.y = y
        n, k = y.shape
        wf = self.m * (self.u if self.u is not None else 1.0)
        z = y - (wf @ y) / wf.sum()  # centred on the full-sample mean: moments lose less
        self.outputs = k
        X = np.empty((n, 1 + 3 * k))
        X[:, 0] = 1.0
        X[:, 1::3] = z
        X[:, 2::3] = z * z
        X[:, 3::3] = (f - y) ** 2
        return X

    def _from_sums(self, sums: np.ndarray, counts_of: Callable) -> np.ndarray:
        s0 = sums[:, :1]
        s1, s2, sr = sums[:, 1::3], sums[:, 2::3], sums[:, 3::3]
        second = s2 / s0
        var = second - (s1 / s0) ** 2
        risk = sr / s0
        suspect = ~(var > _MOMENT_TRUST * second)
        rows = np.flatnonzero(suspect.any(axis=1))
        chunk = _chunk_size(self.m.size, rows.size)
        for start in range(0, rows.size, chunk):  # usually none, or a few
            sub = rows[start : start + chunk]
            var[sub] = self._two_pass(counts_of(sub))
        pa = _pa_from_risks(risk, var)
        return _aggregate_outputs(pa, self.options.get("multioutput", "uniform_average"))

    def _two_pass(self, counts: np.ndarray) -> np.ndarray:
        """Var(Y) of each output for a few resamples, as the function computes it."""
        w = self._weights(counts)
        pos = w > 0
        total = w.sum(axis=1, keepdims=True)
        out = np.empty((counts.shape[0], self.outputs))
        for j in range(self.outputs):  # a loop over outputs, vectorised over resamples and rows
            yj = self.y[:, j]
            mean = (w * yj).sum(axis=1, keepdims=True) / total
            d = yj - mean
            var = (w * d * d).sum(axis=1) / total[:, 0]
            smallest = np.where(pos, yj, np.inf).min(axis=1)
            largest = np.where(pos, yj, -np.inf).max(axis=1)
            out[:, j] = np.where(smallest == largest, 0.0, var)  # one value: exactly 0
        return out


class _PAQuantileRows(_PARows):
    """Absolute and pinball losses: the BMP is the resample's weighted α-quantile.

    y is sorted once per output; a resample's quantile is read from the cumulative
    resampled weights in that order, by the convention of
    :func:`beyondchance.measures.weighted_quantile` (smallest y whose cumulative weight reaches
    α·W, averaged with the next drawn value on an exact hit).  Rows a resample does not
    draw add 0, so the cumulative weights equal the function's sums over the drawn rows
    bit for bit and the quantile is the same: with integer-valued weights (no weights,
    frequency weights, integer importance weights) every partial sum is an exact
    integer, so block sums locate the quantile's block and one cumulative sum inside
    it finds the position; other weights take the full row-wise cumulative sum.  The
    BMP risk Σ w ρ(y − q) / W comes from block prefix sums of w and w·(y − c) (c the
    full-sample quantile); resamples where that could lose precision (risk below
    1/256 of Σ w |y − c| + |q − c| W, including every one-valued resample) are
    recomputed term by term.
    """

    def _design(self, base: _CallableStatistic) -> np.ndarray:
        y = _as_targets(base.y_true, "y_true")
        f = _as_targets(base.y_pred, "y_pred")
        lo = self.lo
        assert isinstance(lo, (AbsoluteLoss, PinballLoss))  # the losses this class is chosen for
        self.alpha = 0.5 if isinstance(lo, AbsoluteLoss) else float(lo.alpha)
        # ρ(d) = up·d for d ≥ 0, −low·d for d < 0 (d = y − q)
        self.up, self.low = (1.0, 1.0) if isinstance(lo, AbsoluteLoss) else (self.alpha, 1 - self.alpha)
        self.target_share = (self.alpha * 100) / 100  # weighted_quantile's arithmetic
        self.y = y
        self.outputs = y.shape[1]
        self.order = [np.argsort(y[:, j], kind="stable") for j in range(self.outputs)]
        u = self.u
        units = float(self.m.sum()) * (1.0 if u is None else float(u.max()))
        self.integer_weights = (u is None or bool(np.all(u == np.rint(u)))) and units < 2.0**53
        wf = self.m * (1.0 if u is None else u)
        self.sorted = []  # per output: sorted y, y centred on the full-sample quantile, |that|
        for j, order in enumerate(self.order):
            ys = y[order, j]
            centre = weighted_quantile(y[:, j], self.alpha, wf)
            z = ys - centre
            self.sorted.append((ys, z, np.abs(z), centre))
        X = np.empty((y.shape[0], 1 + self.outputs))
        X[:, 0] = 1.0
        X[:, 1:] = np.column_stack([_losses(lo, f[:, j], y[:, j]) for j in range(self.outputs)])
        return X

    def _rho_sum(self, w: np.ndarray, ys: np.ndarray, q: np.ndarray) -> np.ndarray:
        """Σ_j w_j ρ(y_j − q) per row, term by term (as the function computes it)."""
        d = ys[None, :] - q[:, None]
        if self.up == self.low == 1.0:
            np.abs(d, out=d)
        else:
            d = np.where(d >= 0, self.up * d, -self.low * d)
        d *= w
        return d.sum(axis=1)

    def _position(self, ws: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(pos, cumulative weight at pos, target, total) of each row of sorted weights."""
        b, n = ws.shape
        rows = np.arange(b)
        if self.integer_weights:
            blocks = _block_sums(ws)
            cum_blocks = np.cumsum(blocks, axis=1)
            total = cum_blocks[:, -1]
            target = _quantile_target(self.target_share, total)
            blk = np.minimum(_row_searchsorted(cum_blocks, target), blocks.shape[1] - 1)
            first = blk * _BLOCK
            cols = first[:, None] + np.arange(_BLOCK)
            inside = cols < n
            local = np.where(inside, ws[rows[:, None], np.minimum(cols, n - 1)], 0.0)
            before = np.where(blk > 0, cum_blocks[rows, np.maximum(blk - 1, 0)], 0.0)
            cum_local = before[:, None] + np.cumsum(local, axis=1)
            offset = np.minimum(_row_searchsorted(cum_local, target), _BLOCK - 1)
            pos = first + offset
            value = cum_local[rows, offset]
        else:
            cum = np.cumsum(ws, axis=1)
            total = cum[:, -1]
            target = _quantile_target(self.target_share, total)
            pos = _row_searchsorted(cum, target)
            value = cum[rows, np.minimum(pos, n - 1)]
        over = ~(value >= target) | (pos >= n)  # rounding put the target past the last drawn row
        if over.any():
            pos[over] = n - 1 - np.argmax(ws[over, ::-1] > 0, axis=1)
            value[over] = total[over]
        return pos, value, target, total

    def _base_risks(self, counts: np.ndarray) -> np.ndarray:
        w = self._weights(counts)
        out = np.empty((counts.shape[0], self.outputs))
        for j, order in enumerate(self.order):  # a loop over outputs
            ys, z, abs_z, centre = self.sorted[j]
            ws = np.take(w, order, axis=1)
            pos, value, target, total = self._position(ws)
            q = ys[pos]
            hit = np.flatnonzero(~(value - target > _EPS))
            if hit.size:
                q[hit] = (ys[pos[hit]] + ys[_next_positive(ws, hit, pos[hit])]) / 2
            # Σ w ρ(y − q) = up·Σ_{y ≥ q} w (z − qz) + low·Σ_{y < q} w (qz − z), from prefix sums
            qz = q - centre
            t = np.searchsorted(ys, q, side="left")
            below_w, below_z = _prefix_sums(ws, z, t)
            sum_z = _block_sums(ws, z).sum(axis=1)
            above = (sum_z - below_z) - qz * (total - below_w)
            below = qz * below_w - below_z
            risk = self.up * above + self.low * below
            scale = np.einsum("ij,j->i", ws, abs_z) + np.abs(qz) * total
            exact = np.flatnonzero(~(risk > scale / 256.0))
            if exact.size:
                risk[exact] = self._rho_sum(ws[exact], ys, q[exact])
            out[:, j] = risk / total
        return out

    def evaluate(self, counts: np.ndarray) -> np.ndarray:
        sums = np.asarray(counts, dtype=np.float64) @ self.X
        with np.errstate(all="ignore"):
            risk = sums[:, 1:] / sums[:, :1]
            pa = _pa_from_risks(risk, self._base_risks(counts))
        return _aggregate_outputs(pa, self.options.get("multioutput", "uniform_average"))

    def exact_jackknife(self) -> tuple[np.ndarray, np.ndarray] | None:
        present = np.flatnonzero(self.m > 0)
        full = self.m.astype(np.float64) @ self.X
        loo = full[None, :] - self.X[present]
        with np.errstate(all="ignore"):
            risk = loo[:, 1:] / loo[:, :1]
            base = np.column_stack([self._loo_base_risk(j, present) for j in range(self.outputs)])
            pa = _pa_from_risks(risk, base)
        return _aggregate_outputs(pa, self.options.get("multioutput", "uniform_average")), self.m[present]

    def _loo_base_risk(self, j: int, present: np.ndarray) -> np.ndarray:
        """R(f₀) of output j with one unit of each present row removed, in O(n log n).

        Removing a unit of weight δ from the row at sorted position s lowers the
        cumulative weights from s on by δ; the quantile is found by two searches in the
        full-sample cumulative weights, and Σ w ρ(y − q) for every leave-one-out q from
        prefix sums (y centred on the full-sample quantile).
        """
        order = present[np.argsort(self.y[present, j], kind="stable")]
        ys = self.y[order, j]
        units = self.m[order].astype(np.float64)
        delta = self.u[order] if self.u is not None else np.ones(order.size)
        uw = units * delta  # the full-sample weights passed to the function
        n_p = order.size
        cum = np.cumsum(uw)
        total = cum[-1]
        left = delta == uw  # the row leaves the sample with its unit
        pos_s = np.arange(n_p)
        total_l = total - delta
        target = self.target_share * total_l
        a = np.searchsorted(cum, target, side="left")
        b = np.searchsorted(cum, target + delta, side="left")
        pos = np.where(a < pos_s, a, b)
        pos = np.where(left & (pos == pos_s), pos_s + 1, pos)
        last = np.where(left & (pos_s == n_p - 1), n_p - 2, n_p - 1)
        pos = np.minimum(pos, last)
        value = cum[pos] - np.where(pos >= pos_s, delta, 0.0)
        hit = ~(value - target > _EPS)
        nxt = pos + 1
        nxt = np.where(left & (nxt == pos_s), nxt + 1, nxt)
        nxt = np.minimum(nxt, last)
        q = np.where(hit, (ys[pos] + ys[np.maximum(nxt, 0)]) / 2, ys[pos])
        # Σ_j uw_j ρ(ys_j − q) from prefix sums, then minus the removed unit's term
        centre = ys[pos].mean() if n_p else 0.0
        z = ys - centre
        qz = q - centre
        cw = np.r_[0.0, cum]
        cz = np.r_[0.0, np.cumsum(uw * z)]
        t = np.searchsorted(ys, q, side="left")
        below_w, below_z = cw[t], cz[t]
        above = (cz[-1] - below_z) - qz * (total - below_w)
        below = qz * below_w - below_z
        full = self.up * above + self.low * below
        d = ys - q
        removed = delta * np.where(d >= 0, self.up * d, -self.low * d)
        risk0 = np.maximum(full - removed, 0.0) / total_l
        # one value left: the function's BMP risk is exactly 0
        values, inverse = np.unique(ys, return_inverse=True)
        group_units = np.bincount(inverse, weights=units)
        if values.size == 1:
            single = np.ones(n_p, dtype=bool)
        else:
            single = (values.size == 2) & (group_units[inverse] == 1)
        risk0 = np.where(single, 0.0, risk0)
        out = np.empty(present.size)
        where = np.empty(self.m.size, dtype=np.int64)
        where[present] = np.arange(present.size)
        out[where[order]] = risk0
        return out


#: Block width of the quantile search and of the prefix sums (columns).
_BLOCK = 512


def _quantile_target(share: float, total: np.ndarray) -> np.ndarray:
    """α·W as :func:`beyondchance.measures.weighted_quantile` computes it."""
    target = share * total
    return np.where(target == 0, np.nextafter(0.0, 1.0), target)


def _block_sums(ws: np.ndarray, vec: np.ndarray | None = None) -> np.ndarray:
    """Per row, the sums of ``ws`` (times ``vec``) over consecutive blocks of columns."""
    b, n = ws.shape
    full = n - n % _BLOCK
    parts = []
    if full:
        w3 = ws[:, :full].reshape(b, -1, _BLOCK)  # a view: only the last axis is split
        parts.append(w3.sum(axis=2) if vec is None
                     else np.einsum("rkb,kb->rk", w3, vec[:full].reshape(-1, _BLOCK)))
    if full < n:
        tail = ws[:, full:]
        parts.append((tail.sum(axis=1) if vec is None else tail @ vec[full:])[:, None])
    return parts[0] if len(parts) == 1 else np.concatenate(parts, axis=1)


def _prefix_sums(ws: np.ndarray, vec: np.ndarray, t: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per row r, (Σ_{j<t_r} ws[r, j], Σ_{j<t_r} ws[r, j]·vec[j]) from block sums."""
    b, n = ws.shape
    rows = np.arange(b)
    cw = np.cumsum(_block_sums(ws), axis=1)
    cv = np.cumsum(_block_sums(ws, vec), axis=1)
    blk = t // _BLOCK
    prev = np.maximum(blk - 1, 0)
    sum_w = np.where(blk > 0, cw[rows, prev], 0.0)
    sum_v = np.where(blk > 0, cv[rows, prev], 0.0)
    cols = blk[:, None] * _BLOCK + np.arange(_BLOCK)
    take = cols < t[:, None]
    cols = np.minimum(cols, n - 1)
    local = np.where(take, ws[rows[:, None], cols], 0.0)
    return sum_w + local.sum(axis=1), sum_v + (local * vec[cols]).sum(axis=1)


def _row_searchsorted(cum: np.ndarray, target: np.ndarray) -> np.ndarray:
    """Per row r, the first column with ``cum[r, col] >= target[r]`` (rows non-decreasing):
    a binary search vectorised over the rows (``n`` if there is none)."""
    b, n = cum.shape
    lo = np.zeros(b, dtype=np.int64)
    hi = np.full(b, n, dtype=np.int64)
    rows = np.arange(b)
    while True:
        active = lo < hi
        if not active.any():
            return lo
        mid = (lo + hi) // 2
        below = cum[rows, np.minimum(mid, n - 1)] < target
        lo = np.where(active & below, mid + 1, lo)
        hi = np.where(active & ~below, mid, hi)


def _next_positive(ws: np.ndarray, rows: np.ndarray, pos: np.ndarray) -> np.ndarray:
    """For each row r of ``rows``, the first column after ``pos`` with a positive weight
    (``pos`` itself when there is none)."""
    n = ws.shape[1]
    out = pos.copy()
    todo = np.arange(rows.size)
    for step in range(1, _NEXT_STEPS + 1):  # usually found within a step or two
        col = pos[todo] + step
        inside = col < n
        found = np.zeros(todo.size, dtype=bool)
        found[inside] = ws[rows[todo[inside]], col[inside]] > 0
        out[todo[found]] = col[found]
        todo = todo[~found & inside]
        if todo.size == 0:
            return out
    later = np.arange(n)[None, :] > pos[todo][:, None]
    mask = (ws[rows[todo]] > 0) & later
    has = mask.any(axis=1)
    out[todo[has]] = np.argmax(mask, axis=1)[has]
    return out
