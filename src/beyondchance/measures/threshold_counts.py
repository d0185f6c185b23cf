r"""The sufficient statistic of every binary curve: :class:`ThresholdCounts` (the distinct
thresholds with cumulative weighted positive and negative counts, one sort) and the
counting kernel :func:`threshold_counts` that builds it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import (
    merge_from_zero,
    as_1d,
    as_float_1d,
    binary_target,
    check_aligned,
    check_consistent_length,
    check_sample_weight,
    check_unit_interval,
    column_at,
    class_column_order,
    score_column_names,
)
from .._warnings import InvalidInputError, warn_undefined
from .._summary_display import SummaryDisplay, _label
from .._json import jsonable as _jsonable
from .curve_rates import (
    AucMethod,
    Curve,
    CurveKind,
    _auc_rates,
    _check_curve,
    _recall_at_precision_rates,
    _resolve_method,
    _value_at_rates,
    _xy,
    ideal_auc,
)


def _readonly(*arrays: np.ndarray) -> None:
    for arr in arrays:
        arr.setflags(write=False)


@dataclass(frozen=True, eq=False)
class ThresholdCounts(SummaryDisplay):
    r"""Distinct thresholds with cumulative weighted counts: every curve, exactly.

    For each distinct score t (decreasing), ``tps`` and ``fps`` are the weighted
    numbers of positives and negatives with score ≥ t — the sufficient statistic of
    every curve in this module (scikit-learn's ``_binary_clf_curve``).  Mergeable:
    ``a.merge(b)`` (or ``a + b``) is the statistic of the concatenated data.

    Attributes
    ----------
    thresholds : ndarray (k,), strictly decreasing distinct scores (of positive weight)
    tps, fps : ndarray (k,), cumulative weighted positives / negatives with score ≥ threshold
    pos_label : the label counted as positive

    Examples
    --------
    >>> c = ThresholdCounts.from_scores([0, 1, 1, 0], [0.2, 0.9, 0.2, 0.5])
    >>> c.thresholds, c.tps, c.fps
    (array([0.9, 0.5, 0.2]), array([1., 1., 2.]), array([0., 1., 2.]))
    >>> c.prevalence
    0.5
    >>> c.auc("roc")
    0.625
    """

    thresholds: np.ndarray
    tps: np.ndarray
    fps: np.ndarray
    pos_label: Any = 1

    def __post_init__(self) -> None:
        thr = np.asarray(self.thresholds, dtype=np.float64)
        tps = np.asarray(self.tps, dtype=np.float64)
        fps = np.asarray(self.fps, dtype=np.float64)
        if not (thr.ndim == tps.ndim == fps.ndim == 1 and thr.shape == tps.shape == fps.shape):
            raise InvalidInputError("thresholds, tps and fps must be 1-D arrays of one length")
        if thr.size == 0:
            raise InvalidInputError("thresholds is empty")
        if np.isnan(thr).any() or not (np.diff(thr) < 0).all():  # inf - inf is nan: twice inf is refused too
            raise InvalidInputError("thresholds must be strictly decreasing")
        for arr, name in ((tps, "tps"), (fps, "fps")):
            if not np.isfinite(arr).all() or arr[0] < 0 or (np.diff(arr) < 0).any():
                raise InvalidInputError(f"{name} must be finite, non-negative and non-decreasing")
        if not tps[-1] + fps[-1] > 0:
            raise InvalidInputError("tps and fps count no weight: there is nothing to evaluate")
        padded = []
        for arr, first in ((thr, np.inf), (tps, 0.0), (fps, 0.0)):
            out = np.empty(arr.shape[0] + 1)
            out[0] = first
            out[1:] = arr
            padded.append(out)
        _set_padded(self, *padded)

    # --- construction -----------------------------------------------------------

    @classmethod
    def from_scores(
        cls, y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None
    ) -> "ThresholdCounts":
        """Build the statistic from labels and scores (one sort); see :func:`threshold_counts`."""
        return threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)

    @classmethod
    def from_score_table(
        cls, scores: Any, pos_weight: Any, neg_weight: Any, *, pos_label: Any = 1
    ) -> "ThresholdCounts":
        """Build the statistic from per-score weights, e.g. a ``GROUP BY score`` of an engine.

        ``scores`` need not be sorted nor distinct (duplicates are summed); scores whose
        total weight is zero are dropped, as samples of zero weight are.

        >>> c = ThresholdCounts.from_score_table([0.2, 0.9, 0.5], [1, 1, 0], [1, 0, 1])
        >>> c.thresholds, c.tps, c.fps
        (array([0.9, 0.5, 0.2]), array([1., 1., 2.]), array([0., 1., 2.]))
        """
        sc = as_float_1d(scores, "scores")
        pw = as_float_1d(pos_weight, "pos_weight")
        nw = as_float_1d(neg_weight, "neg_weight")
        check_consistent_length(scores=sc, pos_weight=pw, neg_weight=nw)
        if (pw < 0).any() or (nw < 0).any():
            raise InvalidInputError("pos_weight and neg_weight must be non-negative")
        uniq, inv = np.unique(-sc, return_inverse=True)  # decreasing scores
        p = np.bincount(inv, weights=pw, minlength=uniq.size)
        q = np.bincount(inv, weights=nw, minlength=uniq.size)
        keep = (p + q) > 0
        if not keep.any():
            raise InvalidInputError("the score table has zero total weight: there is nothing to evaluate")
        return cls(-uniq[keep], np.cumsum(p[keep]), np.cumsum(q[keep]), pos_label)

    def score_table(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(scores, positive weight, negative weight) per distinct score, decreasing.

        The inverse of :meth:`from_score_table`.
        """
        _, tps, fps = self.__dict__["_padded"]
        return self.thresholds.copy(), np.diff(tps), np.diff(fps)

    def merge(self, other: "ThresholdCounts") -> "ThresholdCounts":
        """The statistic of the concatenated data.

        >>> a = ThresholdCounts.from_scores([0, 1], [0.3, 0.8])
        >>> b = ThresholdCounts.from_scores([1, 0], [0.3, 0.1])
        >>> (a + b).tps, (a + b).fps
        (array([1., 2., 2.]), array([0., 1., 2.]))
        """
        if not isinstance(other, ThresholdCounts):
            raise InvalidInputError(f"cannot merge ThresholdCounts with {type(other).__name__}")
        if other.pos_label != self.pos_label:
            raise InvalidInputError(
                f"cannot merge statistics of different positive labels "
                f"({self.pos_label!r} and {other.pos_label!r})"
            )
        thr = np.concatenate([self.thresholds, other.thresholds])
        dp = np.concatenate([np.diff(self.tps, prepend=0.0), np.diff(other.tps, prepend=0.0)])
        dn = np.concatenate([np.diff(self.fps, prepend=0.0), np.diff(other.fps, prepend=0.0)])
        uniq, inv = np.unique(-thr, return_inverse=True)  # decreasing thresholds
        tps = np.cumsum(np.bincount(inv, weights=dp, minlength=uniq.size))
        fps = np.cumsum(np.bincount(inv, weights=dn, minlength=uniq.size))
        return ThresholdCounts(-uniq, tps, fps, self.pos_label)

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    # --- totals -----------------------------------------------------------------

    @property
    def n_pos(self) -> float:
        """Total weight of the positives."""
        return float(self.tps[-1])

    @property
    def n_neg(self) -> float:
        """Total weight of the negatives."""
        return float(self.fps[-1])

    @property
    def n(self) -> float:
        """Total weight."""
        return self.n_pos + self.n_neg

    @property
    def prevalence(self) -> float:
        """π = weight of positives / total weight."""
        return self.n_pos / self.n

    @property
    def is_defined(self) -> bool:
        """Both classes present (π in (0, 1)); otherwise no curve is defined."""
        return self.n_pos > 0 and self.n_neg > 0

    # --- rates ------------------------------------------------------------------

    def rates(self) -> tuple[np.ndarray, np.ndarray]:
        """(α, β) of the k + 1 curve points, the end point (0, 1) first.

        α = fps / n_neg, β = 1 − tps / n_pos (nan when a class is absent).
        """
        cached = self.__dict__.get("_rates")
        if cached is None:
            alpha, tpr = self._alpha_tpr()
            beta = np.subtract(1.0, tpr)
            _readonly(beta)
            cached = self.__dict__["_rates"] = (alpha, beta)
        return cached

    def _alpha_tpr(self) -> tuple[np.ndarray, np.ndarray]:
        """(α, 1 − β) = (fps / n_neg, tps / n_pos), computed once: the ROC curve itself."""
        cached = self.__dict__.get("_alpha_tpr_cache")
        if cached is None:
            _, tps, fps = self.__dict__["_padded"]
            with np.errstate(divide="ignore", invalid="ignore"):
                cached = (np.divide(fps, fps[-1]), np.divide(tps, tps[-1]))
            _readonly(*cached)
            self.__dict__["_alpha_tpr_cache"] = cached
        return cached

    def _check_defined(self, what: str, strict: bool) -> bool:
        if self.is_defined:
            return True
        missing = "negative" if self.n_neg <= 0 else "positive"
        warn_undefined(
            f"{what} is undefined: y_true has no {missing} samples (prevalence must lie in (0, 1))",
            strict=strict,
            stacklevel=4,
        )
        return False

    # --- curves and their summaries ---------------------------------------------

    def curve(self, kind: CurveKind = "roc", *, strict: bool = False) -> "Curve":
        """The ROC, precision–recall, lift or gain curve (points by decreasing threshold)."""
        kind = _check_curve(kind)
        thr, tps, fps = self.__dict__["_padded"]
        if self._check_defined(f"the {kind} curve", strict):
            a, tpr = self._alpha_tpr()
            x, y = _xy(a, tpr, np.asarray(self.prevalence)[None], kind)
        else:
            x = np.full(thr.shape[0], np.nan)
            y = np.full(thr.shape[0], np.nan)
        return Curve(kind, thr, x, y, tps, fps, self.prevalence, self.pos_label)

    def auc(self, kind: CurveKind = "roc", *, method: AucMethod = "default", strict: bool = False) -> float:
        """Area under the curve, computed by :func:`auc_from_rates` on :meth:`rates`."""
        kind = _check_curve(kind)
        method = _resolve_method(kind, method)
        if not self._check_defined(f"the area under the {kind} curve", strict):
            return float("nan")
        a, tpr = self._alpha_tpr()
        return float(_auc_rates(a, tpr, np.asarray(self.prevalence)[None], kind, method))

    def nauc(self, kind: CurveKind = "roc", *, method: AucMethod = "default", strict: bool = False) -> float:
        """Normalised AUC = AUC / ideal AUC (OPS paper eq. 3)."""
        value = self.auc(kind, method=method, strict=strict)
        if np.isnan(value):
            return value
        return value / float(ideal_auc(self.prevalence, curve=kind))

    def value_at(self, kind: CurveKind, at: Any, *, strict: bool = False) -> Any:
        """y at x = ``at`` by eq. 9 (see :func:`value_at_from_rates`); ``at`` may be an array."""
        kind = _check_curve(kind)
        u = check_unit_interval(at, "at")
        if not self._check_defined(f"the {kind} curve", strict):
            out = np.full(u.shape, np.nan)
        else:
            a, tpr = self._alpha_tpr()
            out = _value_at_rates(a, tpr, np.asarray(self.prevalence)[None], kind, u)
        return float(out) if np.ndim(out) == 0 else out

    def recall_at_precision(self, precision: Any, *, strict: bool = False) -> Any:
        """Largest recall with precision ≥ ``precision`` (see :func:`recall_at_precision_from_rates`)."""
        p = check_unit_interval(precision, "precision")
        if not self._check_defined("recall at precision", strict):
            return float("nan") if p.ndim == 0 else np.full(p.shape, np.nan)
        a, tpr = self._alpha_tpr()
        if p.ndim == 0:
            out = _recall_at_precision_rates(a, tpr, np.asarray(self.prevalence)[None], p)
        else:
            out = _recall_at_precision_rates(a[None], tpr[None], np.asarray(self.prevalence)[None], p.ravel())
            out = np.asarray(out).reshape(p.shape)
        if np.any(np.isnan(out)):
            warn_undefined(
                "no threshold reaches the requested precision; recall at precision is nan",
                strict=strict,
                stacklevel=3,
            )
        return float(out) if np.ndim(out) == 0 else out

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "thresholds": _jsonable(self.thresholds),
            "tps": _jsonable(self.tps),
            "fps": _jsonable(self.fps),
            "pos_label": _jsonable(self.pos_label),
            "n_pos": self.n_pos,
            "n_neg": self.n_neg,
        }

    def __repr__(self) -> str:
        return (
            f"ThresholdCounts(n_thresholds={self.thresholds.shape[0]}, n_pos={self.n_pos:g}, "
            f"n_neg={self.n_neg:g}, pos_label={self.pos_label!r})"
        )

    def _summary_title(self) -> str:
        return f"Threshold counts of binary scores (positive class {self.pos_label!r})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("distinct scores", self.thresholds.shape[0]), ("positives", self.n_pos),
                                       ("negatives", self.n_neg), ("prevalence", self.prevalence)]
        if self.thresholds.size:
            rows.append(("score range", f"{self.thresholds[-1]:.4g} to {self.thresholds[0]:.4g}"))
        if self.is_defined:
            rows += [("ROC AUC", self.auc("roc")), ("average precision", self.auc("pr", method="ap"))]
        return rows


def _set_padded(obj: ThresholdCounts, thr0: np.ndarray, tps0: np.ndarray, fps0: np.ndarray) -> None:
    """Store the arrays with the end point (+inf, 0, 0) prepended; the fields are views."""
    _readonly(thr0, tps0, fps0)
    obj.__dict__["_padded"] = (thr0, tps0, fps0)
    object.__setattr__(obj, "thresholds", thr0[1:])
    object.__setattr__(obj, "tps", tps0[1:])
    object.__setattr__(obj, "fps", fps0[1:])


def _new_counts(thr0: np.ndarray, tps0: np.ndarray, fps0: np.ndarray, pos_label: Any) -> ThresholdCounts:
    """A ThresholdCounts around padded arrays known to be valid (no copy, no checks)."""
    obj = object.__new__(ThresholdCounts)
    object.__setattr__(obj, "pos_label", pos_label)
    _set_padded(obj, thr0, tps0, fps0)
    return obj


def _padded_outputs(k: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Empty padded arrays for k thresholds, the end point (+inf, 0, 0) filled in."""
    thr0, tps0, fps0 = np.empty(k + 1), np.empty(k + 1), np.empty(k + 1)
    thr0[0], tps0[0], fps0[0] = np.inf, 0.0, 0.0
    return thr0, tps0, fps0


def _first_of_runs(v: np.ndarray) -> np.ndarray:
    """Mask of the first element of each run of equal values in a sorted array."""
    first = np.empty(v.shape[0], dtype=bool)
    first[:1] = True
    np.not_equal(v[1:], v[:-1], out=first[1:])
    return first


def _counts_one_class(v: np.ndarray, positive: bool, pos_label: Any) -> ThresholdCounts:
    """Counts when every sample belongs to one class (``v``: its scores, sorted)."""
    starts = np.flatnonzero(_first_of_runs(v))
    thr0, tps0, fps0 = _padded_outputs(starts.shape[0])
    np.take(v, starts[::-1], out=thr0[1:], mode="clip")  # valid indices: no bounds buffer
    ones, zeros = (tps0, fps0) if positive else (fps0, tps0)
    np.subtract(v.shape[0], starts[::-1], out=ones[1:], casting="unsafe")
    zeros[1:] = 0.0
    return _new_counts(thr0, tps0, fps0, pos_label)


_SIGN_BIT = np.uint64(1) << np.uint64(63)


def _sorted_by_class(pos: np.ndarray, s: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The negatives' and the positives' scores, each sorted ascending.

    Non-negative float64 scores order as their bit patterns (unsigned integers) and
    leave the sign bit free: with the class written into it, one integer sort puts
    the sorted negatives first and the sorted positives after them, with no
    extraction pass per class.  A negative sample scored −0.0 would land among the
    positives: detected (the positives' block is then too long) and sorted the usual
    way, as are scores below zero.
    """
    n = s.shape[0]
    n_pos = int(np.count_nonzero(pos))
    n_neg = n - n_pos
    if 0 < n_pos < n and s.dtype == np.float64 and s.flags.c_contiguous and s.min() >= 0.0:
        keys = pos.astype(np.uint64)
        np.left_shift(keys, np.uint64(63), out=keys)
        np.bitwise_or(keys, s.view(np.uint64), out=keys)
        keys.sort()
        if keys[n_neg - 1] < _SIGN_BIT:  # exactly the positives carry the class bit
            p = keys[n_neg:]
            np.bitwise_and(p, ~_SIGN_BIT, out=p)  # a positive's −0.0 becomes 0.0: the same score
            return keys[:n_neg].view(np.float64), p.view(np.float64)
    neg = s[~pos]
    neg.sort()
    p = s[pos]
    p.sort()
    return neg, p


def _counts_unweighted(pos: np.ndarray, s: np.ndarray, pos_label: Any) -> ThresholdCounts:
    """Sort the scores of each class, then merge their distinct values by position.

    With the negatives' scores sorted (``neg``) and the positives' (``p``): every
    distinct negative score t has ``start`` = #negatives < t; every distinct positive
    score u has #negatives < u by a binary search in ``neg`` and its rank among the
    distinct negative scores by a second one, which places it in the merged ascending
    order of all distinct scores.  Thresholds, tps and fps are written straight into
    the (decreasing) output arrays; only the two class sorts touch all n scores.
    """
    neg, p = _sorted_by_class(pos, s)
    n_neg, n_pos = neg.shape[0], p.shape[0]
    if n_pos == 0 or n_neg == 0:
        return _counts_one_class(p if n_neg == 0 else neg, n_neg == 0, pos_label)
    first_neg = _first_of_runs(neg)
    distinct_neg = bool(first_neg.all())  # continuous scores: no ties among the negatives
    # #negatives below each distinct negative score (its index when they are distinct)
    starts_neg: Any = None if distinct_neg else np.flatnonzero(first_neg)  # read only when not distinct_neg
    k_neg = n_neg if distinct_neg else starts_neg.shape[0]
    starts_pos = np.flatnonzero(_first_of_runs(p))
    u_pos = p[starts_pos]  # distinct positive scores, ascending
    count_pos = np.diff(starts_pos, append=n_pos)
    neg_below = np.searchsorted(neg, u_pos, side="left")  # #negatives below u
    # #distinct negative scores below u
    rank = neg_below if distinct_neg else np.searchsorted(starts_neg, neg_below, side="left")
    shared = rank < k_neg
    shared[shared] = neg[rank[shared] if distinct_neg else starts_neg[rank[shared]]] == u_pos[shared]
    added = ~shared  # positive scores that no negative has
    added_before = np.cumsum(added) - added
    merged_pos = rank + added_before  # ascending position of u among all distinct scores
    k = k_neg + int(added_before[-1] + added[-1])
    at_added = merged_pos[added]
    is_neg_score = np.ones(k, dtype=bool)
    is_neg_score[at_added] = False
    thr0, tps0, fps0 = _padded_outputs(k)
    thr_up, tps_up, fps_up = thr0[:0:-1], tps0[:0:-1], fps0[:0:-1]  # ascending views
    thr_up[is_neg_score] = neg if distinct_neg else neg[first_neg]
    thr_up[at_added] = u_pos[added]
    fps_up[is_neg_score] = np.arange(n_neg, dtype=np.float64) if distinct_neg else starts_neg
    fps_up[at_added] = neg_below[added]
    np.subtract(n_neg, fps0[1:], out=fps0[1:])  # negatives with score >= threshold
    if k == n_neg + n_pos:  # every score distinct: the j-th highest has j scores >= it
        tps0[1:] = np.arange(1, k + 1, dtype=np.float64)
        np.subtract(tps0[1:], fps0[1:], out=tps0[1:])
    else:
        tps0[1:] = 0.0
        tps_up[merged_pos] = count_pos
        np.cumsum(tps0[1:], out=tps0[1:])  # positives with score >= threshold
    return _new_counts(thr0, tps0, fps0, pos_label)


def _counts_weighted(pos: np.ndarray, s: np.ndarray, w: np.ndarray, pos_label: Any) -> ThresholdCounts:
    keep = w != 0
    if not keep.all():
        pos, s, w = pos[keep], s[keep], w[keep]
    order = np.argsort(s, kind="stable")
    v = s[order]
    wv = w[order]
    pv = pos[order]
    starts = np.flatnonzero(_first_of_runs(v))
    pos_runs = np.add.reduceat(np.where(pv, wv, 0.0), starts)
    neg_runs = np.add.reduceat(np.where(pv, 0.0, wv), starts)
    thr0, tps0, fps0 = _padded_outputs(starts.shape[0])
    np.take(v, starts[::-1], out=thr0[1:], mode="clip")  # valid indices: no bounds buffer
    np.cumsum(pos_runs[::-1], out=tps0[1:])
    np.cumsum(neg_runs[::-1], out=fps0[1:])
    return _new_counts(thr0, tps0, fps0, pos_label)


def _positive_column(y_score: Any, y_true: Any, pos_label: Any) -> Any:
    """The positive class's column of a two-column table of binary scores whose columns name the
    two classes (:func:`~beyondchance._validation.class_column_order`'s rule); anything else unchanged."""
    names = score_column_names(y_score)
    if names is None or len(names) != 2:
        return y_score
    classes = np.unique(as_1d(y_true, "y_true")).tolist()
    order = class_column_order(names, classes)
    assert order is not None  # names given and no labels: the order of the columns, or an error
    return column_at(y_score, order[[_label(c) for c in classes].index(_label(pos_label))])


def threshold_counts(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None
) -> ThresholdCounts:
    r"""The sufficient statistic of every curve: distinct thresholds and cumulative counts.

    Unweighted: the scores of each class are sorted (values only, no argsort) and
    their distinct values merged by binary search; with weights: one stable argsort
    and the weights summed per distinct score.  Tied scores form one threshold;
    zero-weight samples are dropped.

    Parameters
    ----------
    y_true : array-like (n,), binary labels
    y_score : array-like (n,), finite scores (higher = more positive); or a table of two
        columns named by the classes, of which the positive class's column is read
    sample_weight : array-like (n,), optional, non-negative
    pos_label : the positive label; default 1 for labels in {0, 1} or {-1, 1}

    pandas inputs must share their index (the rows are paired by position).

    Returns
    -------
    ThresholdCounts

    Examples
    --------
    >>> c = threshold_counts(["n", "p", "p"], [0.1, 0.7, 0.7], pos_label="p")
    >>> c.thresholds, c.tps, c.fps
    (array([0.7, 0.1]), array([2., 2.]), array([0., 1.]))
    """
    check_aligned(y_true=y_true, y_score=y_score, sample_weight=sample_weight)
    yb, pos_label = binary_target(y_true, pos_label=pos_label)
    s = as_float_1d(_positive_column(y_score, y_true, pos_label), "y_score")
    n = check_consistent_length(y_true=yb, y_score=s)
    w = check_sample_weight(sample_weight, n)
    if w is None:
        return _counts_unweighted(yb, s, pos_label)
    return _counts_weighted(yb, s, w, pos_label)


def _threshold_choice(threshold: Any, smin: float, smax: float) -> tuple[float, str, str | None]:
    """(threshold, why, note) for binary scores in [smin, smax]; the note says loudly what
    was assumed when no threshold is given and the scores are not probabilities."""
    if threshold is not None:
        try:
            thr = float(threshold)
        except (TypeError, ValueError):
            raise InvalidInputError(f"threshold must be a number, got {threshold!r}") from None
        if not math.isfinite(thr):
            raise InvalidInputError(f"threshold must be finite, got {threshold!r}")
        return thr, "given", None
    if smin >= 0.0 and smax <= 1.0:
        return 0.5, "the default for probabilities", None
    return 0.0, "assumed: scores outside [0, 1] are taken as real-valued margins", (
        f"scores lie outside [0, 1] (range [{smin:.4g}, {smax:.4g}]): treated as real-valued scores, "
        "threshold 0 assumed; give the threshold (--threshold) that the model uses"
    )
