r"""One set's sufficient statistic for monitoring: weights per (score bin, class), with the
exact counts, the threshold's cell and the class-conditional loss sums
(:class:`SetStatistics`), its bootstrap replicates and jackknife; the reference's check.

The decomposition (:mod:`beyondchance.monitoring.decomposition`) and the classifier-change
tests (:mod:`beyondchance.monitoring.classifier_change`) both read it.

>>> import numpy as np
>>> from beyondchance.measures.curves import threshold_counts
>>> s = SetStatistics.from_counts(threshold_counts([0, 0, 1, 1], [0.1, 0.4, 0.35, 0.8]), threshold=0.5)
>>> s.prevalence, s.exact_rates
(0.5, (1.0, 0.0, 1.0, 2.0))
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._warnings import InvalidInputError
from ..inference.bootstrap_resampling import _draw_counts
from ..measures.binary_scores import class_loss_sums, per_threshold
from ..measures.curves import ThresholdCounts

__all__ = ["SetStatistics", "check_reference", "MAX_BINS"]

#: losses decomposed through the class-conditional mean losses (scores in [0, 1])
_LOSSES = ("log_loss", "brier")


#: at most this many cells (score bins) per class in the bootstrap
MAX_BINS = 1000


@dataclass(frozen=True, eq=False)
class SetStatistics:
    """One test set's sufficient statistic for the decomposition: weights per (score bin, class).

    Attributes
    ----------
    counts : the exact :class:`~beyondchance.measures.curves.ThresholdCounts` (None for labels only)
    pos, neg : (K,) weights of positives / negatives per bin, bins by decreasing score
    n_rows : number of rows the bootstrap draws (the rows of the set)
    cut : number of leading bins predicted positive (score ≥ threshold)
    pos_loss, neg_loss : loss name -> (K,) weighted loss sums (scores in [0, 1])
    exact_rates : (tp, fp, fn, tn) at the threshold, exact
    threshold : the threshold (scores)
    bin_scores : (K, 2) highest and lowest distinct score of each bin (scores)
    """

    counts: ThresholdCounts | None
    pos: np.ndarray
    neg: np.ndarray
    n_rows: int
    cut: int
    pos_loss: dict
    neg_loss: dict
    exact_rates: tuple[float, float, float, float]
    threshold: float = float("nan")
    bin_scores: np.ndarray | None = None

    @classmethod
    def from_confusion(cls, tp: float, fp: float, fn: float, tn: float, *, n_rows: int | None = None) -> "SetStatistics":
        """Predicted labels: two bins (predicted positive, predicted negative)."""
        n = int(round(tp + fp + fn + tn)) if n_rows is None else int(n_rows)
        return cls(None, np.array([tp, fn], float), np.array([fp, tn], float), n, 1, {}, {},
                   (float(tp), float(fp), float(fn), float(tn)))

    @classmethod
    def from_counts(cls, tc: ThresholdCounts, *, threshold: float, n_rows: int | None = None,
                    max_bins: int = MAX_BINS) -> "SetStatistics":
        """Scores: adjacent distinct scores pooled into at most ``max_bins`` bins of nearly
        equal weight, with a bin edge at the threshold (so the labels at the threshold are exact)."""
        v, dp, dn = per_threshold(tc)
        k = v.shape[0]
        cut_exact = int(np.searchsorted(-v, -threshold, side="right"))  # scores >= threshold
        if k <= max_bins:
            starts = np.arange(k)
            cut = cut_exact
        else:
            cum = np.cumsum(dp + dn)
            edges = np.searchsorted(cum, cum[-1] * np.arange(1, max_bins) / max_bins, side="left") + 1
            starts = np.unique(np.r_[0, edges[edges < k], [cut_exact] if 0 < cut_exact < k else []]).astype(int)
            cut = int(np.searchsorted(starts, cut_exact))

        def pool(x: np.ndarray) -> np.ndarray:
            return np.add.reduceat(x, starts) if k > max_bins else np.asarray(x, float).copy()

        pos_loss, neg_loss = {}, {}
        if v.size and v.min() >= 0 and v.max() <= 1:
            for loss, (lp, ln) in class_loss_sums((v, dp, dn), _LOSSES, starts).items():
                pos_loss[loss], neg_loss[loss] = lp, ln
        tp, fp = float(dp[:cut_exact].sum()), float(dn[:cut_exact].sum())
        n = int(round(tc.n)) if n_rows is None else int(n_rows)
        ends = np.r_[starts[1:], k] - 1
        return cls(tc, pool(dp), pool(dn), n, cut, pos_loss, neg_loss, (tp, fp, tc.n_pos - tp, tc.n_neg - fp),
                   float(threshold), np.column_stack([v[starts], v[ends]]))

    @property
    def prevalence(self) -> float:
        p, n = self.pos.sum(), self.neg.sum()
        return float(p / (p + n))

    def resample(self, n_resamples: int, rng: np.random.Generator) -> "SetStatistics":
        """A stack of bootstrap replicates (arrays (B, K)): ``n_rows`` rows drawn from the
        non-empty cells (the row bootstrap; with weights, every row carries the mean weight)."""
        w = np.concatenate([self.pos, self.neg])
        total = w.sum()
        cells = np.flatnonzero(w > 0)
        rows = w[cells] * (self.n_rows / total)
        draws = np.zeros((n_resamples, w.shape[0]))
        if np.array_equal(rows, np.round(rows)):  # rows per cell: draw row indices or a multinomial
            draws[:, cells] = _draw_counts(rng, np.round(rows).astype(np.int64), self.n_rows, n_resamples)
        else:
            draws[:, cells] = rng.multinomial(self.n_rows, w[cells] / total, size=n_resamples)
        draws *= total / self.n_rows
        k = self.pos.shape[0]
        return self._with_cells(draws[:, :k], draws[:, k:])

    def _with_cells(self, pos: np.ndarray, neg: np.ndarray) -> "SetStatistics":
        """A stack (arrays (B, K)) of this set's cells with new weights; each cell's loss sum
        keeps the cell's mean loss."""
        k = self.pos.shape[0]
        scale_p = np.divide(1.0, self.pos, out=np.zeros(k), where=self.pos > 0)
        scale_n = np.divide(1.0, self.neg, out=np.zeros(k), where=self.neg > 0)
        return SetStatistics(None, pos, neg, self.n_rows, self.cut,
                             {m: pos * (s * scale_p) for m, s in self.pos_loss.items()},
                             {m: neg * (s * scale_n) for m, s in self.neg_loss.items()}, (np.nan,) * 4)

    def pooled(self, starts: Any) -> "SetStatistics":
        """The set with adjacent bins pooled into groups beginning at ``starts`` (sorted, from
        0); the threshold falls on a group boundary when one of ``starts`` is ``cut``."""
        starts = np.asarray(starts, dtype=np.intp)
        return SetStatistics(None, np.add.reduceat(self.pos, starts), np.add.reduceat(self.neg, starts),
                             self.n_rows, int(np.searchsorted(starts, self.cut)),
                             {m: np.add.reduceat(x, starts) for m, x in self.pos_loss.items()},
                             {m: np.add.reduceat(x, starts) for m, x in self.neg_loss.items()}, self.exact_rates,
                             self.threshold)

    def coarse_starts(self, bins: int) -> np.ndarray:
        """Starts of at most ``bins`` groups of adjacent bins of nearly equal weight, one of
        them at the threshold (``bins=2``: predicted positive / negative)."""
        k = self.pos.shape[0]
        if k <= bins:
            return np.arange(k)
        cum = np.cumsum(self.pos + self.neg)
        edges = np.searchsorted(cum, cum[-1] * np.arange(1, bins - 1) / (bins - 1), side="left") + 1
        cut = [self.cut] if 0 < self.cut < k else []
        return np.unique(np.r_[0, edges[edges < k], cut]).astype(np.intp)

    def coarse(self, bins: int) -> "SetStatistics":
        """:meth:`pooled` into the groups of :meth:`coarse_starts`."""
        return self if self.pos.shape[0] <= bins else self.pooled(self.coarse_starts(bins))

    def leave_one_out(self) -> tuple["SetStatistics", np.ndarray]:
        """The jackknife from the cells: a stack (J, K) with one row left out of each of the J
        non-empty cells, and each cell's number of rows (the multiplicity of its value)."""
        stack, rows = _leave_one_out_cells(np.concatenate([self.pos, self.neg]), self.n_rows)
        k = self.pos.shape[0]
        return self._with_cells(stack[:, :k], stack[:, k:]), rows

    @functools.cached_property
    def roc(self) -> tuple[np.ndarray, np.ndarray]:
        """ROC rates (α, β) by decreasing score with both end points, shape (B, K + 1)."""
        pos, neg = np.atleast_2d(self.pos), np.atleast_2d(self.neg)
        b, k = pos.shape
        tps = np.zeros((b, k + 1))
        fps = np.zeros((b, k + 1))
        np.cumsum(pos, axis=1, out=tps[:, 1:])
        np.cumsum(neg, axis=1, out=fps[:, 1:])
        with np.errstate(invalid="ignore", divide="ignore"):
            return fps / fps[:, -1:], 1 - tps / tps[:, -1:]


def _leave_one_out_cells(w: np.ndarray, n_rows: int) -> tuple[np.ndarray, np.ndarray]:
    """The jackknife of ``n_rows`` rows in cells of weights ``w`` (C,): a stack (J, C), one row
    (the mean weight) left out of each of the J non-empty cells, and their numbers of rows."""
    cells = np.flatnonzero(w > 0)
    row = w.sum() / n_rows
    stack = np.broadcast_to(w, (cells.shape[0], w.shape[0])).copy()
    stack[np.arange(cells.shape[0]), cells] -= np.minimum(row, w[cells])
    return stack, w[cells] / row


def _row_counts(s: SetStatistics) -> tuple[int, int, int, int]:
    """(tp, fp, fn, tn) in rows (weighted counts rescaled to the number of rows)."""
    tp, fp, fn, tn = s.exact_rates
    scale = s.n_rows / (tp + fp + fn + tn)
    return tuple(int(round(x * scale)) for x in (tp, fp, fn, tn))  # type: ignore[return-value]


def _pairs(s: SetStatistics) -> float:
    """P·N: the set's pairs of a positive and a negative row."""
    tp, fp, fn, tn = _row_counts(s)
    return float((tp + fn) * (fp + tn))


def check_reference(reference: SetStatistics, name: str = "the reference set") -> None:
    """Refuse a reference without both classes: its (α, β) are undefined."""
    if not (reference.pos.sum() > 0 and reference.neg.sum() > 0):
        raise InvalidInputError(f"{name} holds a single class: its error rates (α, β) are undefined, so it cannot "
                                "tell a prevalence shift from a changed classifier; choose a reference with both classes")
