r"""Precision–recall–gain curve and its area (Flach & Kull 2015).

Flach & Kull, "Precision-Recall-Gain Curves: PR Analysis Done Right", NIPS 2015:
precision and recall are rescaled harmonically so that the always-positive
classifier (precision π) sits at gain 0 and a perfect one at gain 1,

.. math::

    \mathrm{precG} = \frac{\mathrm{prec} - \pi}{(1 - \pi)\,\mathrm{prec}}
                   = 1 - \frac{\pi}{1-\pi}\frac{FP}{TP}, \qquad
    \mathrm{recG} = \frac{\mathrm{rec} - \pi}{(1 - \pi)\,\mathrm{rec}}
                  = 1 - \frac{\pi}{1-\pi}\frac{FN}{TP}.

In the (α, β) parametrisation of the OPS paper (TP = π(1 − β), FP = (1 − π)α,
t = 1 − β): precG = 1 − α/t (free of π) and recG = 1 − π(1 − t)/((1 − π)t).
The curve is traced by lowering the threshold; only recall gains in [0, 1]
(recall ≥ π) count.  Its area AUPRG is the trapezoid rule in (recG, precG) over the
points with recG ≥ 0 after inserting the point where the curve crosses recG = 0 (the
counts interpolated linearly between its two neighbouring thresholds, eq. 9 of the OPS
paper), exactly as the authors' reference implementation (``prg.calc_auprg`` of
github.com/meeliskull/prg).  AUPRG lies in [1 − 1/π, 1]; the always-positive
classifier and a random ranking have AUPRG 0 in expectation, a perfect ranking 1.

Two layers, as :mod:`beyondchance.measures.curves`: :func:`prg_auc_from_rates` on batches of
(α, β) curves (the Directed Binary Tree reference of the outperformance score uses it,
see ``outperformance_score("prg_auc", ...)``), and :func:`precision_recall_gain_curve`
/ :func:`prg_auc` on labels and scores through :class:`~beyondchance.measures.curves.ThresholdCounts`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._json import jsonable
from .._validation import check_prevalence, check_rate_curves
from .._warnings import warn_undefined
from .curves import ThresholdCounts, threshold_counts

__all__ = ["PRGCurve", "precision_recall_gain_curve", "prg_auc", "prg_auc_from_rates", "prg_auc_lower"]


def _gains(tp: np.ndarray, fp: np.ndarray, n_pos: Any, n_neg: Any) -> tuple[np.ndarray, np.ndarray]:
    """(recall gain, precision gain) from cumulative counts, as the reference implementation
    computes them: 1 − (P/N)·FN/TP and 1 − (P/N)·FP/TP (−inf / nan where TP = 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        rg = 1.0 - (n_pos / n_neg) * ((n_pos - tp) / tp)
        pg = 1.0 - (n_pos / n_neg) * (fp / tp)
    return rg, pg


def _crossing(tp: np.ndarray, fp: np.ndarray, n_pos: Any, n_neg: Any, rg: np.ndarray) -> tuple[np.ndarray, ...]:
    """Index j of the first point with recG ≥ 0, and the precision gain of the point on
    the segment (j − 1, j) where recall = π (recG = 0), the counts interpolated linearly."""
    j = np.argmax(rg >= 0, axis=-1)[..., None]
    jm = np.maximum(j - 1, 0)
    tp0, tp1 = np.take_along_axis(tp, jm, -1), np.take_along_axis(tp, j, -1)
    fp0, fp1 = np.take_along_axis(fp, jm, -1), np.take_along_axis(fp, j, -1)
    with np.errstate(divide="ignore", invalid="ignore"):
        frac = np.where(tp1 > tp0, (n_pos * n_pos / (n_pos + n_neg) - tp0) / (tp1 - tp0), 0.5)
        pg_cross = 1.0 - (n_pos / n_neg) * ((fp0 + frac * (fp1 - fp0)) / (tp0 + frac * (tp1 - tp0)))
    return j[..., 0], pg_cross[..., 0], np.take_along_axis(rg, j, -1)[..., 0]


def _auprg(tp: np.ndarray, fp: np.ndarray, n_pos: Any, n_neg: Any) -> np.ndarray:
    """AUPRG of curves of cumulative counts (..., m) by decreasing threshold, the first
    point (0, 0); ``n_pos``, ``n_neg`` of shape (..., 1)."""
    rg, pg = _gains(tp, fp, n_pos, n_neg)
    start = rg[..., :-1] >= 0
    with np.errstate(invalid="ignore"):
        seg = np.where(start, (rg[..., 1:] - rg[..., :-1]) * (pg[..., 1:] + pg[..., :-1]) / 2, 0.0)
    area = seg.sum(axis=-1)
    j, pg_cross, rg_j = _crossing(tp, fp, n_pos, n_neg, rg)
    pg_j = np.take_along_axis(pg, j[..., None], -1)[..., 0]
    extra = np.where((j > 0) & (rg_j > 0), rg_j * (pg_j + pg_cross) / 2, 0.0)
    return area + extra


def prg_auc_lower(prevalence: Any) -> Any:
    """The smallest AUPRG at π: 1 − 1/π (precision gain ≥ 1 − α/π ≥ 1 − 1/π where recall ≥ π).

    >>> float(prg_auc_lower(0.25))
    -3.0
    """
    return 1.0 - 1.0 / np.asarray(prevalence, dtype=np.float64)


def prg_auc_from_rates(alpha: Any, beta: Any, prevalence: Any, *, validate: bool = True) -> Any:
    r"""Area under the precision–recall–gain curve of curves given by their (α, β) points.

    Batched over curves of shape ``(..., m)`` (points by decreasing threshold, α
    non-decreasing, β non-increasing, end points included), ``prevalence`` π
    broadcastable to the batch shape.  See the module docstring for the formula.

    >>> import numpy as np
    >>> a = np.array([0.0, 0.0, 1.0]); b = np.array([1.0, 0.0, 0.0])   # a perfect ranking
    >>> float(prg_auc_from_rates(a, b, 0.3))
    1.0
    >>> float(prg_auc_from_rates(np.array([0.0, 1.0]), np.array([1.0, 0.0]), 0.3))  # constant score
    0.0
    """
    if validate:
        a, b = check_rate_curves(alpha, beta)
        pi = check_prevalence(prevalence)
    else:
        a, b = np.asarray(alpha, dtype=np.float64), np.asarray(beta, dtype=np.float64)
        pi = np.asarray(prevalence, dtype=np.float64)
    pi = np.asarray(pi)[..., None]
    out = _auprg(pi * (1.0 - b), (1.0 - pi) * a, pi, 1.0 - pi)  # the counts with n = 1
    return float(out) if np.ndim(out) == 0 else out


@dataclass(frozen=True, eq=False)
class PRGCurve:
    """The precision–recall–gain curve from recall gain 0 on (the part its area integrates).

    Attributes
    ----------
    recall_gain, precision_gain : ndarray, the points by decreasing threshold, the first
        one the crossing of recall gain 0 (recall = π) when no threshold lands on it
    thresholds : ndarray, the score threshold of each point (the crossing point carries
        the threshold of the point after it: the segment it lies on ends there)
    is_crossing : ndarray of bool, True for the inserted crossing point
    prevalence : π
    pos_label : the positive label
    """

    recall_gain: np.ndarray
    precision_gain: np.ndarray
    thresholds: np.ndarray
    is_crossing: np.ndarray
    prevalence: float
    pos_label: Any = 1

    @classmethod
    def from_counts(cls, counts: ThresholdCounts) -> "PRGCurve":
        """The curve of the per-threshold statistic (nan curve, with a warning, if a class is absent)."""
        thr = np.r_[np.inf, counts.thresholds]
        if not counts.is_defined:
            _warn_one_class(counts, "the precision-recall-gain curve")
            nan = np.full(1, np.nan)
            return cls(nan, nan, thr[:1], np.zeros(1, bool), counts.prevalence, counts.pos_label)
        tp, fp = np.r_[0.0, counts.tps], np.r_[0.0, counts.fps]
        rg, pg = _gains(tp, fp, counts.n_pos, counts.n_neg)
        j_arr, pg_cross_arr, rg_j_arr = _crossing(tp, fp, counts.n_pos, counts.n_neg, rg)
        j, pg_cross, rg_j = int(j_arr), float(pg_cross_arr), float(rg_j_arr)
        keep = slice(j, None)
        cross = j > 0 and rg_j > 0
        head = 1 if cross else 0
        return cls(
            np.r_[[0.0] * head, rg[keep]],
            np.r_[[pg_cross] * head, pg[keep]],
            np.r_[thr[j : j + head], thr[keep]],
            np.r_[[True] * head, np.zeros(rg[keep].shape[0], bool)],
            counts.prevalence,
            counts.pos_label,
        )

    def auc(self) -> float:
        """AUPRG: the trapezoid rule over the points (all have recall gain ≥ 0)."""
        x, y = self.recall_gain, self.precision_gain
        return float(np.sum(np.diff(x) * (y[1:] + y[:-1]) / 2)) if x.size > 1 else float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "recall_gain": jsonable(self.recall_gain),
            "precision_gain": jsonable(self.precision_gain),
            "thresholds": jsonable(self.thresholds),
            "is_crossing": jsonable(self.is_crossing),
            "prevalence": self.prevalence,
            "pos_label": jsonable(self.pos_label),
            "auc": self.auc(),
        }


def _warn_one_class(counts: ThresholdCounts, what: str) -> None:
    missing = "negative" if counts.n_neg <= 0 else "positive"
    warn_undefined(f"{what} is undefined: y_true has no {missing} samples (prevalence must lie in (0, 1))", stacklevel=4)


def precision_recall_gain_curve(
    y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None
) -> PRGCurve:
    r"""The precision–recall–gain curve of binary scores (Flach & Kull 2015).

    Parameters
    ----------
    y_true : array-like (n,), binary labels
    y_score : array-like (n,), scores (higher = more positive)
    sample_weight : array-like (n,), optional
    pos_label : the positive label (default 1 for {0, 1} or {-1, 1} labels)

    Returns
    -------
    PRGCurve
        The points with recall gain ≥ 0, precG = 1 − (π/(1−π))·FP/TP against
        recG = 1 − (π/(1−π))·FN/TP, by decreasing threshold.

    Examples
    --------
    >>> c = precision_recall_gain_curve([0, 1, 1, 0, 1], [0.1, 0.9, 0.8, 0.7, 0.3])
    >>> c.recall_gain.tolist(), c.precision_gain.tolist()   # π = 0.6, π/(1−π) = 1.5
    ([0.0, 0.25, 0.25, 1.0, 1.0], [1.0, 1.0, 0.25, 0.5, 0.0])
    """
    return PRGCurve.from_counts(threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label))


def prg_auc(y_true: Any, y_score: Any, *, sample_weight: Any = None, pos_label: Any = None) -> float:
    r"""Area under the precision–recall–gain curve, AUPRG (Flach & Kull 2015).

    .. math::

        \mathrm{AUPRG} = \int_0^1 \mathrm{precG}\; d\,\mathrm{recG}

    by the trapezoid rule over the thresholds with recall gain ≥ 0, as the authors'
    reference implementation.  1 for a perfect ranking, 0 for the always-positive
    classifier (a constant score), about 0 for a random ranking, at least 1 − 1/π.
    Undefined (nan and :class:`~beyondchance.UndefinedMeasureWarning`) when a class is
    absent.  Its outperformance score: ``outperformance_score("prg_auc", value, π)``.

    Examples
    --------
    >>> prg_auc([0, 1, 1, 0, 1], [0.1, 0.9, 0.8, 0.7, 0.3])   # 0.25·1 + 0.75·(0.25 + 0.5)/2
    0.53125
    """
    counts = threshold_counts(y_true, y_score, sample_weight=sample_weight, pos_label=pos_label)
    if not counts.is_defined:
        _warn_one_class(counts, "the area under the precision-recall-gain curve")
        return float("nan")
    return float(_auprg(np.r_[0.0, counts.tps], np.r_[0.0, counts.fps], counts.n_pos, counts.n_neg))
