r"""Statistics of scores: the cumulative (positive, negative) weight per score bin of binary
scores (:class:`BinnedScoreCounts`: every curve, with a stated AUC error bound) and the
one-vs-rest score counts of each class's probability (:class:`ClassScoreCounts`).

Binned scores: the bin of a score s is ``floor(s · bins)`` and the bin's threshold
is its smallest score, so every point of the binned curve is a point of the exact
curve (the cumulative counts at that threshold are exact); only the path between
consecutive points is lost.  Bounds (all computed from the binned counts alone):

* ROC AUC (trapezoid): inside a bin with P_b positives and N_b negatives the exact
  path is a monotone staircase between the same two corners, the binned curve is the
  diagonal, so |AUC_binned − AUC_exact| ≤ Σ_b P_b N_b / (2 P N) (ties within a bin
  count one half, the pairs of different bins are ordered exactly);
* gain AUC = π/2 + (1 − π)·ROC AUC: the ROC bound times (1 − π);
* average precision: inside bin b every exact step has precision between
  TP_{b−1}/(TP_{b−1} + FP_b) and TP_b/(TP_b + FP_{b−1}), and the binned step uses a
  precision in the same range, so |AP_binned − AP_exact| ≤
  Σ_b (P_b/P)·[TP_b/(TP_b + FP_{b−1}) − TP_{b−1}/(TP_{b−1} + FP_b)].
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_float_1d, binary_target, check_consistent_length, check_sample_weight, merge_from_zero
from .._warnings import InvalidInputError
from ..measures.curves import ThresholdCounts
from .._summary_display import SummaryDisplay
from .._json import jsonable as _jsonable
from ._checks import _nonneg_counts, _readonly

__all__ = ["BinnedScoreCounts", "ClassScoreCounts"]


# =====================================================================================
# binned score counts
# =====================================================================================


def _check_bins(bins: Any) -> int:
    if isinstance(bins, bool) or not isinstance(bins, (int, np.integer)) or bins < 1:
        raise InvalidInputError(f"bins must be a positive integer (bins per unit score), got {bins!r}")
    return int(bins)


def _scores_from_groups(
    scores: np.ndarray, is_pos: np.ndarray, weight: np.ndarray, pos_label: Any
) -> ThresholdCounts:
    """Exact ThresholdCounts from (score, is_positive, weight) groups in any order."""
    s = np.asarray(scores, dtype=np.float64) + 0.0
    w = np.asarray(weight, dtype=np.float64)
    pos = np.asarray(is_pos, dtype=bool)
    uniq, inv = np.unique(s, return_inverse=True)
    m = uniq.shape[0]
    p = np.bincount(inv, weights=np.where(pos, w, 0.0), minlength=m)
    n = np.bincount(inv, weights=np.where(pos, 0.0, w), minlength=m)
    return _threshold_counts_desc(uniq, p, n, pos_label)


def _threshold_counts_desc(
    thresholds_asc: np.ndarray, pos: np.ndarray, neg: np.ndarray, pos_label: Any
) -> ThresholdCounts:
    keep = (pos + neg) > 0  # zero-weight thresholds are dropped, as threshold_counts does
    if not keep.any():
        raise InvalidInputError("the scores carry no weight: there is nothing to evaluate")
    thr = thresholds_asc[keep][::-1]
    return ThresholdCounts(thr, np.cumsum(pos[keep][::-1]), np.cumsum(neg[keep][::-1]), pos_label)


@dataclass(frozen=True, eq=False)
class BinnedScoreCounts(SummaryDisplay):
    r"""Weighted positives and negatives per score bin ``floor(score · bins)``: fixed size.

    The binned variant of :class:`~beyondchance.ThresholdCounts`.  Each bin keeps its
    smallest score as its threshold, so the binned curve's points are exact points of
    the exact curve; :meth:`auc_error_bound` states how far any AUC can be from the
    exact one (module docstring).  Bins of any two chunks with the same ``bins``
    line up, so the merge is exact.

    Attributes
    ----------
    keys : (m,) integer bin keys, increasing
    smin : (m,) smallest score of each bin
    pos, neg : (m,) weight of the positives / negatives of each bin
    bins : bins per unit of score (1000: bins of width 0.001)
    pos_label : the positive label

    >>> b = BinnedScoreCounts.from_scores([0, 1, 0, 1], [0.12, 0.14, 0.5, 0.9], bins=10)
    >>> b.keys.tolist(), b.pos.tolist(), b.neg.tolist()
    ([1, 5, 9], [1.0, 0.0, 1.0], [1.0, 1.0, 0.0])
    >>> b.auc("roc"), b.auc_error_bound("roc")
    (0.625, 0.125)
    """

    keys: np.ndarray
    smin: np.ndarray
    pos: np.ndarray
    neg: np.ndarray
    bins: int = 1000
    pos_label: Any = 1

    def __post_init__(self) -> None:
        keys = np.array(self.keys)
        if keys.ndim != 1 or keys.dtype.kind not in "iuf" or (keys.dtype.kind == "f" and not np.all(keys == np.floor(keys))):
            raise InvalidInputError("keys must be a 1-D array of integers")
        keys = keys.astype(np.int64)
        if (np.diff(keys) <= 0).any():
            raise InvalidInputError("keys must be strictly increasing")
        smin = np.array(self.smin, dtype=np.float64)
        if smin.shape != keys.shape or not np.isfinite(smin).all():
            raise InvalidInputError("smin must be finite, one per key")
        bins = _check_bins(self.bins)
        if not np.array_equal(np.floor(smin * bins), keys):
            raise InvalidInputError(f"keys must be the bins floor(smin * {bins}) of their smallest scores")
        object.__setattr__(self, "keys", _readonly(keys))
        object.__setattr__(self, "smin", _readonly(smin))
        object.__setattr__(self, "pos", _nonneg_counts(self.pos, "pos", keys.shape))
        object.__setattr__(self, "neg", _nonneg_counts(self.neg, "neg", keys.shape))
        object.__setattr__(self, "bins", bins)

    @classmethod
    def from_scores(
        cls, y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None, bins: int = 1000
    ) -> "BinnedScoreCounts":
        """Bin the scores (one ``floor``, one grouping pass)."""
        yb, pos_label = binary_target(y_true, pos_label=pos_label)
        s = as_float_1d(y_score, "y_score")
        n = check_consistent_length(y_true=yb, y_score=s)
        w = check_sample_weight(sample_weight, n)
        bins = _check_bins(bins)
        key = np.floor(s * bins)
        return cls.from_groups(key, s, yb, np.ones(n) if w is None else w, bins=bins, pos_label=pos_label)

    @classmethod
    def from_groups(
        cls, keys: Any, smin: Any, is_pos: Any, weight: Any, *, bins: int, pos_label: Any
    ) -> "BinnedScoreCounts":
        """From (key, min score, is positive, weight) rows in any order, keys repeated.

        Rows of zero weight are dropped (their min score is not used).
        """
        k: np.ndarray = np.asarray(keys, dtype=np.float64)  # then int64
        w = np.asarray(weight, dtype=np.float64)
        pos = np.asarray(is_pos, dtype=bool)
        smin = np.asarray(smin, dtype=np.float64)
        keep = w > 0  # zero-weight samples are dropped (as threshold_counts does)
        if not keep.all():
            k, w, pos, smin = k[keep], w[keep], pos[keep], smin[keep]
        if not np.isfinite(k).all() or np.abs(k).max(initial=0) >= 2.0**62:
            raise InvalidInputError("score bins out of range: scores * bins must stay below 2**62 in magnitude")
        k = k.astype(np.int64)
        lo, hi = (int(k.min()), int(k.max())) if k.size else (0, -1)
        if k.size and hi - lo < 4 * k.size + (1 << 16):  # dense keys: bincount, no sort
            idx = k - lo
            m = hi - lo + 1
            p = np.bincount(idx, weights=np.where(pos, w, 0.0), minlength=m)
            ng = np.bincount(idx, weights=np.where(pos, 0.0, w), minlength=m)
            sm = np.full(m, np.inf)
            np.minimum.at(sm, idx, np.asarray(smin, dtype=np.float64))
            used = np.isfinite(sm)
            return cls(np.arange(lo, hi + 1)[used], sm[used], p[used], ng[used], bins, pos_label)
        uniq, inv = np.unique(k, return_inverse=True)
        m = uniq.shape[0]
        sm = np.full(m, np.inf)
        np.minimum.at(sm, inv, np.asarray(smin, dtype=np.float64))
        return cls(
            uniq,
            sm,
            np.bincount(inv, weights=np.where(pos, w, 0.0), minlength=m),
            np.bincount(inv, weights=np.where(pos, 0.0, w), minlength=m),
            bins,
            pos_label,
        )

    @classmethod
    def from_threshold_counts(cls, counts: ThresholdCounts, bins: int) -> "BinnedScoreCounts":
        """The bins whose :meth:`threshold_counts` are ``counts`` — the curve of binned scores
        (one threshold per occupied bin, its smallest score), as a binned report keeps it.

        >>> b = BinnedScoreCounts.from_scores([0, 1, 1, 0, 1], [0.12, 0.18, 0.55, 0.31, 0.9], bins=10)
        >>> back = BinnedScoreCounts.from_threshold_counts(b.threshold_counts(), 10)
        >>> back.keys.tolist() == b.keys.tolist() and back.pos.tolist() == b.pos.tolist()
        True
        """
        smin = counts.thresholds[::-1]
        binned = cls(np.floor(smin * _check_bins(bins)), smin, np.diff(counts.tps, prepend=0.0)[::-1],
                     np.diff(counts.fps, prepend=0.0)[::-1], bins, counts.pos_label)
        binned.__dict__["_tc"] = counts  # its curve is the one given, to the last bit
        return binned

    def merge(self, other: "BinnedScoreCounts") -> "BinnedScoreCounts":
        """The binned counts of the concatenated data (same ``bins`` and positive label)."""
        if not isinstance(other, BinnedScoreCounts):
            raise InvalidInputError(f"cannot merge BinnedScoreCounts with {type(other).__name__}")
        if self.bins != other.bins:
            raise InvalidInputError(f"cannot merge score bins of different sizes ({self.bins} and {other.bins})")
        if self.pos_label != other.pos_label:
            raise InvalidInputError(
                f"cannot merge statistics of different positive labels ({self.pos_label!r} and {other.pos_label!r})"
            )
        k = np.concatenate([self.keys, other.keys])
        sm = np.concatenate([self.smin, other.smin])
        w = np.concatenate([self.pos, other.pos, self.neg, other.neg])
        isp = np.r_[np.ones(k.size, bool), np.zeros(k.size, bool)]
        return BinnedScoreCounts.from_groups(np.r_[k, k], np.r_[sm, sm], isp, w, bins=self.bins, pos_label=self.pos_label)

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    @property
    def n_pos(self) -> float:
        return float(self.pos.sum())

    @property
    def n_neg(self) -> float:
        return float(self.neg.sum())

    @property
    def n(self) -> float:
        return self.n_pos + self.n_neg

    @property
    def prevalence(self) -> float:
        return self.n_pos / self.n

    def threshold_counts(self) -> ThresholdCounts:
        """The curve statistic of the binned scores (one threshold per occupied bin)."""
        cached = self.__dict__.get("_tc")
        if cached is None:
            cached = _threshold_counts_desc(self.smin, self.pos, self.neg, self.pos_label)
            self.__dict__["_tc"] = cached
        return cached

    def auc_error_bound(self, kind: str = "roc") -> float:
        """Largest possible ``|AUC_binned − AUC_exact|`` for the ROC, gain or PR (average precision) AUC.

        ``kind``: ``"roc"`` (trapezoid), ``"gain"`` (trapezoid) or ``"pr"`` (average
        precision); the formulas are in the module docstring.  nan when a class is absent.
        """
        P, N = self.n_pos, self.n_neg
        if not (P > 0 and N > 0):
            return float("nan")
        if kind in ("roc", "gain"):
            roc = float(np.sum(self.pos * self.neg)) / (2.0 * P * N)
            return roc if kind == "roc" else roc * (1.0 - P / (P + N))
        if kind == "pr":
            p, ng = self.pos[::-1], self.neg[::-1]  # decreasing threshold
            tp = np.cumsum(p)
            fp = np.cumsum(ng)
            tp0 = tp - p
            fp0 = fp - ng
            with np.errstate(divide="ignore", invalid="ignore"):
                hi = np.where(tp + fp0 > 0, tp / (tp + fp0), 0.0)
                lo = np.where(tp0 + fp > 0, tp0 / (tp0 + fp), 0.0)
            return float(np.sum((p / P) * (hi - lo)))
        raise InvalidInputError(f"an AUC error bound is stated for kind 'roc', 'gain' or 'pr', not {kind!r}")

    # curve measures: those of the ThresholdCounts of the binned scores
    def curve(self, kind: str = "roc", *, strict: bool = False):
        return self.threshold_counts().curve(kind, strict=strict)  # type: ignore[arg-type]

    def auc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        return self.threshold_counts().auc(kind, method=method, strict=strict)  # type: ignore[arg-type]

    def nauc(self, kind: str = "roc", *, method: str = "default", strict: bool = False) -> float:
        return self.threshold_counts().nauc(kind, method=method, strict=strict)  # type: ignore[arg-type]

    def value_at(self, kind: str, at: Any, *, strict: bool = False) -> Any:
        return self.threshold_counts().value_at(kind, at, strict=strict)  # type: ignore[arg-type]

    def recall_at_precision(self, precision: Any, *, strict: bool = False) -> Any:
        return self.threshold_counts().recall_at_precision(precision, strict=strict)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "bins": self.bins,
            "keys": self.keys.tolist(),
            "smin": self.smin.tolist(),
            "pos": self.pos.tolist(),
            "neg": self.neg.tolist(),
            "pos_label": _jsonable(self.pos_label),
        }

    def __repr__(self) -> str:
        return (
            f"BinnedScoreCounts(n_bins={self.keys.shape[0]}, bins={self.bins}, n_pos={self.n_pos:g}, "
            f"n_neg={self.n_neg:g}, pos_label={self.pos_label!r})"
        )

    def _summary_title(self) -> str:
        return f"Binned score counts: floor(score * {self.bins}) (positive class {self.pos_label!r})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        rows: list[tuple[str, Any]] = [("occupied bins", self.keys.shape[0]), ("positives", self.n_pos),
                                       ("negatives", self.n_neg), ("prevalence", self.prevalence)]
        if self.n_pos > 0 and self.n_neg > 0:
            rows += [("ROC AUC", self.auc("roc")), ("|ROC AUC - exact| at most", self.auc_error_bound("roc"))]
        return rows


@dataclass(frozen=True, eq=False)
class ClassScoreCounts(SummaryDisplay):
    r"""One-vs-rest score counts of (n, K) class probabilities: the AUCs of every class.

    ``counts[j]`` holds the counts of column j of the probabilities with the rows of
    class j as positives (:class:`~beyondchance.ThresholdCounts`, exact, or
    :class:`BinnedScoreCounts`), so that

    .. math::

        \mathrm{AUC}_{\text{macro}} = \frac1K\sum_j \mathrm{AUC}_j,\qquad
        \mathrm{AUC}_{\text{weighted}} = \sum_j \frac{P_j}{\sum_k P_k}\,\mathrm{AUC}_j,

    P_j the weight of class j: scikit-learn's ``roc_auc_score(multi_class="ovr")`` and
    ``average_precision_score`` of the binarized labels.  Mergeable (class by class).

    >>> from beyondchance.measures.curves import threshold_counts
    >>> y, P = [0, 1, 2, 2], [[.6, .3, .1], [.2, .5, .3], [.1, .3, .6], [.3, .2, .5]]
    >>> c = ClassScoreCounts([0, 1, 2], [threshold_counts([t == j for t in y], [r[j] for r in P])
    ...                                  for j in range(3)])
    >>> c.auc("roc"), c.auc("roc", average=None).tolist()
    (1.0, [1.0, 1.0, 1.0])
    """

    classes: np.ndarray
    counts: tuple

    def __post_init__(self) -> None:
        classes = np.asarray(self.classes)
        counts = tuple(self.counts)
        if classes.ndim != 1 or classes.shape[0] != len(counts) or len(counts) < 2:
            raise InvalidInputError("ClassScoreCounts needs one score statistic per class, and two classes or more")
        kinds = {type(c) for c in counts}
        if len(kinds) != 1 or not kinds <= {ThresholdCounts, BinnedScoreCounts}:
            raise InvalidInputError("the score statistics of the classes must all be exact or all binned")
        if len({c.item() if isinstance(c, np.generic) else c for c in classes.tolist()}) != len(counts):
            raise InvalidInputError("ClassScoreCounts' classes hold duplicates")
        totals = np.array([c.n for c in counts])
        if not np.allclose(totals, totals[0], rtol=1e-9, atol=0):  # one-vs-rest of the same rows
            raise InvalidInputError("the score statistics of the classes count different rows")
        object.__setattr__(self, "classes", _readonly(classes))
        object.__setattr__(self, "counts", counts)

    @property
    def n(self) -> float:
        return float(self.counts[0].n)

    @property
    def support(self) -> np.ndarray:
        """Weight of each class (the positives of its one-vs-rest problem)."""
        return np.array([c.n_pos for c in self.counts])

    @property
    def prevalences(self) -> np.ndarray:
        """Share of each class in the total weight."""
        return self.support / self.n

    @property
    def exact(self) -> bool:
        return isinstance(self.counts[0], ThresholdCounts)

    def merge(self, other: "ClassScoreCounts") -> "ClassScoreCounts":
        """The counts of the concatenated data (same classes, in the same order)."""
        if not isinstance(other, ClassScoreCounts):
            raise InvalidInputError(f"cannot merge ClassScoreCounts with {type(other).__name__}")
        if self.classes.shape != other.classes.shape or not np.array_equal(self.classes, other.classes):
            raise InvalidInputError("cannot merge class score counts of different classes")
        return ClassScoreCounts(self.classes, tuple(a.merge(b) for a, b in zip(self.counts, other.counts)))

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    def auc(self, kind: str = "roc", *, average: Any = "macro", method: str = "default") -> Any:
        """The one-vs-rest AUC of ``kind`` per class (``average=None``), its mean
        (``"macro"``) or its support-weighted mean (``"weighted"``); ``kind="pr"`` with
        ``method="default"`` is the average precision.  Every class must occur, and not alone."""
        if average not in ("macro", "weighted", None):
            raise InvalidInputError(f"average must be 'macro', 'weighted' or None, got {average!r}")
        support = self.support
        if (support <= 0).any() or (support >= self.n).any():
            raise InvalidInputError("the one-vs-rest AUCs need every class among the rows, and more than one class")
        if kind == "pr" and method == "default":
            method = "ap"
        values = np.array([c.auc(kind, method=method) for c in self.counts])
        if average is None:
            return values
        return float(np.mean(values) if average == "macro" else np.average(values, weights=support))

    def auc_error_bound(self, kind: str = "roc", *, average: Any = "macro") -> float:
        """0 for exact counts; for binned ones the (average of the) classes' bounds."""
        if self.exact:
            return 0.0
        bounds = np.array([c.auc_error_bound(kind) for c in self.counts])
        return float(np.mean(bounds) if average == "macro" else np.average(bounds, weights=self.support))

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {"classes": [_jsonable(c) for c in self.classes.tolist()],
                "counts": [c.to_dict() for c in self.counts]}

    def __repr__(self) -> str:
        kind = "exact" if self.exact else "binned"
        return f"ClassScoreCounts(n_classes={self.classes.shape[0]}, {kind}, n={self.n:g})"

    def _summary_title(self) -> str:
        return (f"One-vs-rest score counts of {self.classes.shape[0]} classes "
                f"({'exact' if self.exact else 'binned'}; total weight {self.n:,.6g})")

    def _summary_rows(self) -> list[tuple[str, Any]]:
        prev = self.prevalences
        defined = bool(((prev > 0) & (prev < 1)).all())
        roc = self.auc("roc", average=None) if defined else np.full(prev.shape, np.nan)
        return [(f"class {str(_jsonable(c))[:40]}", f"prevalence {p:.4g}, ROC AUC {a:.4g}")
                for c, p, a in zip(self.classes.tolist(), prev, roc)]
