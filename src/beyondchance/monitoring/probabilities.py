r"""Multi-class probabilities: the one-vs-rest ROC AUCs and the losses under a change of the class distribution.

Under label shift the class-conditional distributions of the probability vector
:math:`s(X) = (s_1(X), \dots, s_K(X))` stay fixed and only the class distribution
:math:`\pi` moves (Saerens et al. 2002; Lipton et al. 2018).  What the *reference*
classifier would score at a test set's class distribution :math:`\pi'` then follows from
statistics of the reference alone:

* a loss (log loss, Brier score) is a mixture of its class-conditional means
  :math:`L_k = E[\ell(s(X), k) \mid y = k]` (the reference's weighted mean loss over its
  class-k rows):

  .. math:: L(\pi') = \sum_k \pi'_k L_k ;

* the one-vs-rest ROC AUC of class k keeps its positives (the class-k rows) and gets
  negatives that are the mixture of the other classes with weights :math:`\propto \pi'_j`;
  with the pairwise AUCs of the reference

  .. math:: A_{kj} = P\big(s_k(X) > s_k(X')\big) + \tfrac12 P\big(s_k(X) = s_k(X')\big),
            \quad X \sim \text{class } k,\ X' \sim \text{class } j,

  .. math:: \mathrm{AUC}_k(\pi') = \frac{\sum_{j \ne k} \pi'_j A_{kj}}{\sum_{j \ne k} \pi'_j},\qquad
            \mathrm{macro} = \frac1K \sum_k \mathrm{AUC}_k(\pi'),\qquad
            \mathrm{weighted} = \sum_k \pi'_k\, \mathrm{AUC}_k(\pi').

Both follow from the law of total probability.  At :math:`\pi'` a row is of class k with
probability :math:`\pi'_k`, and given its class its scores (and so its loss) are distributed
as in the reference, so the expected loss is :math:`\sum_k \pi'_k L_k`.  The negatives of
class k's one-vs-rest problem are the rows of the other classes, of class j with
probability :math:`\pi'_j / \sum_{i \ne k} \pi'_i`; the probability that a positive
outranks a negative (ties ½) is the same mixture of the pairwise :math:`A_{kj}`.  With
sample weights every reference quantity is weighted (:math:`L_k` a weighted mean,
:math:`A_{kj}` over weighted pairs), as scikit-learn weighs them.

At the reference's own :math:`\pi` these are its own values (scikit-learn's
``log_loss``, ``roc_auc_score(multi_class="ovr", average="macro" | "weighted")``), and on a
test set made by resampling the reference's rows class by class they are the test set's
values.  The change of each metric splits into the prevalence effect and the classifier
effect as in :mod:`beyondchance.monitoring.decomposition_multiclass` (whose decomposition and BCa intervals
this module reuses).

The bootstrap: the rows are independent, but one row holds every class's score, so the
K one-vs-rest problems must be resampled *jointly*.  The statistic keeps, per group of rows
(:func:`beyondchance.inference.poisson_bootstrap.row_groups`, 1,024 groups), each column's weights per (score
bin, true class) and the loss sums per true class; a replicate weighs the groups by
Poisson(1) draws (the grouped Poisson bootstrap of :mod:`beyondchance.inference.poisson_bootstrap`) and the
jackknife for BCa's acceleration leaves out one group at a time.  Each column's scores are
pooled into at most :data:`MAX_BINS` bins of nearly equal weight for the resampling only
(ties inside a bin count ½); the intervals are shifted onto the exact estimates.

>>> import numpy as np
>>> from sklearn.metrics import roc_auc_score
>>> rng = np.random.default_rng(0)
>>> y = rng.integers(0, 3, 600)
>>> P = rng.dirichlet(np.ones(3), 600); P[np.arange(600), y] += 1; P /= P.sum(1, keepdims=True)
>>> s = ProbabilityStatistics.from_rows(y, P, [0, 1, 2])
>>> own = metrics_at_probabilities(s, s.prevalences, ["roc_auc", "roc_auc_weighted"])
>>> bool(abs(own["roc_auc"] - roc_auc_score(y, P, multi_class="ovr")) < 1e-12)
True
>>> keep = np.r_[np.flatnonzero(y == 0), np.repeat(np.flatnonzero(y != 0), 3)]  # classes 1 and 2 three times
>>> at = metrics_at_probabilities(s, ProbabilityStatistics.from_rows(y[keep], P[keep], [0, 1, 2]).prevalences,
...                               ["roc_auc_weighted"])["roc_auc_weighted"]
>>> bool(abs(at - roc_auc_score(y[keep], P[keep], multi_class="ovr", average="weighted")) < 1e-12)
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._validation import as_1d, check_sample_weight, encode_labels
from .._warnings import InvalidInputError
from ..measures.losses import get_loss
from ..inference.poisson_bootstrap import DEFAULT_GROUPS, row_groups

__all__ = ["ProbabilityStatistics", "metrics_at_probabilities", "bootstrap_bins", "DECOMPOSABLE_PROBABILITIES"]

#: report metric -> loss of :mod:`beyondchance.measures.losses`
_LOSSES = {"log_loss": "cross_entropy", "brier": "brier"}
#: report metric -> average of the one-vs-rest ROC AUCs
_AUCS = {"roc_auc": "macro", "roc_auc_weighted": "weighted"}
#: the rows of a multi-class probabilities report that this module decomposes
DECOMPOSABLE_PROBABILITIES = tuple(_AUCS) + tuple(_LOSSES)
#: at most this many score bins per column in the bootstrap (fewer with many classes, see ``_bins``)
MAX_BINS = 200
#: at most this many (group, bin, class) cells over all the columns in the bootstrap (memory: a
#: replicate stack holds n_resamples / groups times as many)
_MAX_CELLS = 2 ** 22


@dataclass(frozen=True, eq=False)
class ProbabilityStatistics:
    """A test set's statistic for the decomposition of the probability metrics.

    Attributes
    ----------
    hists : K arrays (…, M_k, K): per column k, the weight of the rows of true class j
        (last axis) whose class-k probability falls in bin b (bins by increasing score);
        one bin per distinct score when exact
    losses : loss name -> (…, K) weighted loss sums per true class
    labels : the K classes (the columns, in order)
    groups : the same statistic per group of rows, leading axis G, scores pooled in bins
        (None in a replicate): the bootstrap and the jackknife draw from it
    """

    hists: tuple
    losses: dict
    labels: tuple
    groups: "ProbabilityStatistics | None" = None

    @classmethod
    def from_rows(cls, y_true: Any, y_proba: Any, labels: Sequence[Any], sample_weight: Any = None, *,
                  seed: int = 0, groups: int = DEFAULT_GROUPS) -> "ProbabilityStatistics":
        """From the rows: ``y_proba`` (n, K) valid probability rows whose columns are ``labels``;
        ``seed`` and ``groups``: the groups of rows of the bootstrap
        (:func:`~beyondchance.inference.poisson_bootstrap.row_groups`)."""
        codes = encode_labels(as_1d(y_true, "y_true"), labels=labels)[0]
        proba = np.asarray(y_proba, dtype=np.float64)
        if proba.ndim != 2 or proba.shape != (codes.shape[0], len(labels)):
            raise InvalidInputError(f"y_proba must be ({codes.shape[0]}, {len(labels)}): one column per class, got "
                                    f"{proba.shape}")
        return cls.from_codes(codes, proba, labels, check_sample_weight(sample_weight, codes.shape[0]), seed=seed,
                              groups=groups)

    @classmethod
    def from_codes(cls, codes: np.ndarray, proba: np.ndarray, labels: Sequence[Any], w: np.ndarray | None, *,
                   seed: int = 0, groups: int = DEFAULT_GROUPS, score_bins: int | None = None) -> "ProbabilityStatistics":
        """From checked arrays: class codes (n,) in 0 … K−1, probabilities (n, K), weights or None;
        ``score_bins``: the scores in the bins ``floor(score · score_bins)`` of a report of binned
        class scores (the AUCs it shows; the loss sums stay exact), as an engine bins them."""
        k = len(labels)
        w = np.ones(codes.shape[0]) if w is None else w
        losses = {m: np.bincount(codes, weights=w * get_loss(loss).sample_losses_proba(proba, codes), minlength=k)
                  for m, loss in _LOSSES.items()}
        g = row_groups(np.arange(codes.shape[0]), seed, groups)
        hists, grouped = [], []
        for col in proba.T:
            values, inv = np.unique(col if score_bins is None else np.floor(col * score_bins), return_inverse=True)
            hists.append(np.bincount(inv * k + codes, weights=w, minlength=values.shape[0] * k).reshape(-1, k))
            b = bootstrap_bins(hists[-1], groups)[inv]
            m = int(b.max()) + 1 if b.size else 1
            grouped.append(np.bincount((g * m + b) * k + codes, weights=w, minlength=groups * m * k)
                           .reshape(groups, m, k))
        loss_g = {m: np.bincount(g * k + codes, weights=w * get_loss(loss).sample_losses_proba(proba, codes),
                                 minlength=groups * k).reshape(groups, k) for m, loss in _LOSSES.items()}
        return cls(tuple(hists), losses, tuple(labels), cls(tuple(grouped), loss_g, tuple(labels)))

    @property
    def class_weights(self) -> np.ndarray:
        """The weight of each true class (along the last axis)."""
        return self.hists[0].sum(-2)

    @property
    def prevalences(self) -> np.ndarray:
        """The class distribution π (along the last axis)."""
        t = self.class_weights
        return t / t.sum(-1, keepdims=True)

    @property
    def binned(self) -> "ProbabilityStatistics":
        """The statistic with the scores pooled in the bootstrap's bins (the groups summed), and its groups."""
        g = self.groups
        assert g is not None  # not a replicate
        return ProbabilityStatistics(tuple(h.sum(0) for h in g.hists), {m: x.sum(0) for m, x in g.losses.items()},
                                     self.labels, g)

    def _weighted(self, groups: np.ndarray) -> "ProbabilityStatistics":
        """A stack (first axis) of the statistic with the groups weighted by the rows of ``groups`` (S, G)."""
        g = self.groups
        assert g is not None  # not a replicate
        return ProbabilityStatistics(tuple((groups @ h.reshape(h.shape[0], -1)).reshape(-1, *h.shape[1:])
                                           for h in g.hists),
                                     {m: groups @ x for m, x in g.losses.items()}, self.labels)

    def resample(self, n_resamples: int, rng: np.random.Generator) -> "ProbabilityStatistics":
        """A stack of ``n_resamples`` replicates: the groups of rows weighed by Poisson(1) draws."""
        assert self.groups is not None  # not a replicate
        return self._weighted(rng.poisson(1.0, (n_resamples, self.groups.hists[0].shape[0])).astype(np.float64))

    def leave_one_out(self) -> tuple["ProbabilityStatistics", np.ndarray]:
        """The jackknife of the groups: a stack with each non-empty group left out, and the
        multiplicity (1) of each."""
        assert self.groups is not None  # not a replicate
        nonempty = np.flatnonzero(self.groups.hists[0].sum((1, 2)) > 0)
        keep = np.ones((nonempty.shape[0], self.groups.hists[0].shape[0]))
        keep[np.arange(nonempty.shape[0]), nonempty] = 0.0
        return self._weighted(keep), np.ones(nonempty.shape[0])

    def pairwise_auc(self) -> np.ndarray:
        r"""(…, K, K): :math:`A_{kj}`, the probability that class k's score of a class-k row
        exceeds that of a class-j row (ties ½); nan where class k or j has no weight."""
        cw = self.class_weights[..., None, :]
        out = []
        with np.errstate(invalid="ignore", divide="ignore"):
            for k, h in enumerate(self.hists):
                f = h / cw  # (…, M, K): each class's distribution over the bins
                below = np.cumsum(f, axis=-2) - f
                out.append(np.einsum("...m,...mj->...j", f[..., k], below + 0.5 * f))
        return np.stack(out, axis=-2)


def bootstrap_bins(hist: np.ndarray, groups: int = DEFAULT_GROUPS) -> np.ndarray:
    """The bootstrap's bin (0, 1, …) of each distinct score of a column whose (M, K)
    histogram is ``hist``: adjacent scores pooled into bins of nearly equal weight, as many
    as the number of classes and ``groups`` allow (:data:`MAX_BINS` up to 4 classes)."""
    return _pooled(hist.sum(1), _bins(groups, hist.shape[1]))


def _bins(groups: int, k: int) -> int:
    """Bins per column: :data:`MAX_BINS` up to 4 classes (1,024 groups), fewer beyond."""
    return max(2, min(MAX_BINS, _MAX_CELLS // (groups * k * k)))


def _pooled(weights: np.ndarray, bins: int) -> np.ndarray:
    """The bin (0 …) of each of the ``weights.size`` adjacent values: at most ``bins`` bins of
    nearly equal weight."""
    m = weights.shape[0]
    if m <= bins:
        return np.arange(m)
    cum = np.cumsum(weights)
    edges = np.unique(np.searchsorted(cum, cum[-1] * np.arange(1, bins) / bins, side="left") + 1)
    return np.searchsorted(edges[edges < m], np.arange(m), side="right")


def metrics_at_probabilities(s: ProbabilityStatistics, prevalences: Any, names: Sequence[str]) -> dict[str, Any]:
    r"""metric -> the value of ``s``'s classifier at the class distribution ``prevalences``
    (…, K) (see the module docstring for the formulas); along the first axis of a stack.
    Names outside :data:`DECOMPOSABLE_PROBABILITIES` are skipped.

    Four rows whose Brier losses are 0.06 and 0.62 (class 0), 0.26 (class 1), 0.24 (class 2):
    at π' = (0.2, 0.4, 0.4) the Brier score is 0.2 · 0.34 + 0.4 · 0.26 + 0.4 · 0.24 = 0.268.

    >>> s = ProbabilityStatistics.from_rows([0, 0, 1, 2], [[.8, .1, .1], [.4, .5, .1], [.3, .6, .1], [.2, .2, .6]],
    ...                                     [0, 1, 2])
    >>> v = metrics_at_probabilities(s, [0.2, 0.4, 0.4], ["roc_auc", "brier"])
    >>> round(float(v["brier"]), 12), float(v["roc_auc"])
    (0.268, 1.0)
    """
    pi = np.asarray(prevalences, dtype=np.float64)
    out: dict[str, Any] = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        cw = s.class_weights
        for name, loss in ((n, s.losses[n]) for n in names if n in _LOSSES):
            out[name] = np.sum(np.where(pi > 0, pi * loss / cw, 0.0), axis=-1)
        aucs = [n for n in names if n in _AUCS]
        if aucs:
            others = pi[..., None, :] * (1 - np.eye(pi.shape[-1]))  # (…, K, K): π'_j for j ≠ k
            a = np.sum(np.where(others > 0, others * s.pairwise_auc(), 0.0), axis=-1) / others.sum(-1)
            for name in aucs:
                out[name] = a.mean(-1) if _AUCS[name] == "macro" else np.sum(np.where(pi > 0, pi * a, 0.0), axis=-1)
    return out
