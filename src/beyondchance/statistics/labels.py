"""The weighted count of each true label (:class:`LabelCounts`): the BMP of every label and
probability loss.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._validation import as_1d, check_sample_weight, encode_labels, merge_from_zero
from .._warnings import InvalidInputError
from ..measures.losses import BayesMarginalPrediction, Loss, bayes_marginal_prediction
from .._summary_display import SummaryDisplay
from .._json import jsonable as _jsonable
from ._checks import _get_loss, _nonneg_counts, _readonly, _union_index

__all__ = ["LabelCounts"]


# =====================================================================================
# label counts
# =====================================================================================


@dataclass(frozen=True, eq=False)
class LabelCounts(SummaryDisplay):
    r"""Weighted count of each true label: the label distribution P(Y).

    The Bayesian marginal prediction (BMP) of every label or probability loss is a
    function of these counts alone (PA paper, section 2; :func:`baseline`).

    Attributes
    ----------
    labels : (k,) the distinct labels (stored sorted)
    counts : (k,) total weight of each label

    Examples
    --------
    >>> lc = LabelCounts.from_labels(["a", "b", "b", "b"])
    >>> lc.labels.tolist(), lc.counts.tolist()
    (['a', 'b'], [1.0, 3.0])
    >>> lc.baseline("zero_one").prediction, lc.baseline("zero_one").risk
    ('b', 0.25)
    >>> (lc + LabelCounts.from_labels(["c"])).counts.tolist()
    [1.0, 3.0, 1.0]
    """

    labels: np.ndarray
    counts: np.ndarray

    def __post_init__(self) -> None:
        labels = as_1d(self.labels, "labels", allow_empty=True)
        counts = _nonneg_counts(self.counts, "counts", labels.shape)
        try:
            order = np.argsort(labels, kind="stable")
        except TypeError as exc:
            raise InvalidInputError(f"labels of incompatible types: {exc}") from exc
        labels, counts = labels[order], counts[order]
        if labels.size > 1 and (labels[1:] == labels[:-1]).any():
            raise InvalidInputError("labels contains duplicates")
        object.__setattr__(self, "labels", _readonly(labels))
        object.__setattr__(self, "counts", _readonly(counts))

    @classmethod
    def from_labels(cls, y_true: Any, *, sample_weight: Any = None) -> "LabelCounts":
        """Count the (weighted) labels in one pass (``numpy.bincount``)."""
        codes, _, classes = encode_labels(y_true)
        w = check_sample_weight(sample_weight, codes.shape[0])
        return cls(classes, np.bincount(codes, weights=w, minlength=classes.shape[0]).astype(np.float64))

    def merge(self, other: "LabelCounts") -> "LabelCounts":
        """The label counts of the concatenated data."""
        if not isinstance(other, LabelCounts):
            raise InvalidInputError(f"cannot merge LabelCounts with {type(other).__name__}")
        if self.labels.shape == other.labels.shape and np.array_equal(self.labels, other.labels):
            return LabelCounts(self.labels, self.counts + other.counts)
        union, ia, ib = _union_index(self.labels, other.labels)
        out = np.zeros(union.shape[0])
        np.add.at(out, ia, self.counts)
        np.add.at(out, ib, other.counts)
        return LabelCounts(union, out)

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    @property
    def n(self) -> float:
        """Total weight."""
        return float(self.counts.sum())

    @property
    def prior(self) -> np.ndarray:
        """The empirical label distribution p_k."""
        return self.counts / self.n

    def baseline(self, loss: str | Loss = "zero_one") -> BayesMarginalPrediction:
        """The BMP of a label or probability loss for this label distribution.

        :func:`~beyondchance.bayes_marginal_prediction` on the labels weighted by their
        counts (the same code as for the raw labels).
        """
        lo = _get_loss(loss)
        if lo.prediction == "real":
            raise InvalidInputError(f"loss {lo.name!r} takes real targets; use Moments or ValueHistogram")
        return bayes_marginal_prediction(self.labels, loss=lo, sample_weight=self.counts)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {"labels": _jsonable(self.labels), "counts": self.counts.tolist()}

    def __repr__(self) -> str:
        return f"LabelCounts(labels={self.labels.tolist()}, counts={self.counts.tolist()})"

    def _summary_title(self) -> str:
        return f"Label counts (total weight {self.n:,.6g})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [(str(_jsonable(c))[:40], f"{v:,.6g} ({100 * p:.2f}%)")
                for c, v, p in zip(self.labels.tolist(), self.counts, self.prior)]
