r"""Calibration of binary probabilities: reliability table, ECE and the Brier decomposition.

Every quantity here is a function of the per-score sufficient statistic
:class:`~beyondchance.measures.curves.ThresholdCounts` (the weighted number of positives and
negatives at each distinct predicted probability), so it merges across chunks and
engines like the curves do.  With bins b of the predicted probability s, W_b the
weight in bin b, f̄_b its mean predicted probability, ō_b its fraction of positives
and ō = π the overall fraction of positives:

.. math::

    \mathrm{ECE} = \sum_b \frac{W_b}{W}\,\lvert \bar o_b - \bar f_b\rvert, \qquad
    \mathrm{BS} = \mathrm{REL} - \mathrm{RES} + \mathrm{UNC},

    \mathrm{REL} = \sum_b \frac{W_b}{W}(\bar f_b - \bar o_b)^2,\quad
    \mathrm{RES} = \sum_b \frac{W_b}{W}(\bar o_b - \bar o)^2,\quad
    \mathrm{UNC} = \bar o(1 - \bar o)

(Murphy 1973, "A new vector partition of the probability score", J. Appl. Meteor.
12: 595–600; ECE: Naeini, Cooper & Hauskrecht 2015, AAAI, with scikit-learn's
``calibration_curve`` bins).  Murphy's identity is exact when every bin holds one
predicted value (``n_bins=None``: one bin per distinct probability, the default of
:func:`brier_score_decomposition`); with wider bins the within-bin spread of the
forecasts is left over and reported as ``BrierDecomposition.residual``.

The trivial predictor, the constant π, has ECE = REL = RES = 0 and Brier score UNC:
the Brier skill score 1 − BS/UNC is the prediction advantage under the Brier loss
(El-Yaniv et al.: the BMP of the Brier loss is the prior, with risk π(1 − π)), and
equals (RES − REL)/UNC under the exact decomposition.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from .._json import jsonable
from .._validation import check_positive_int, check_unit_interval
from .._warnings import InvalidInputError, warn_undefined
from .curves import ThresholdCounts, threshold_counts

__all__ = [
    "ReliabilityTable",
    "BrierDecomposition",
    "reliability_table",
    "expected_calibration_error",
    "brier_score_decomposition",
]


def _counts(y_true: Any, y_proba: Any, sample_weight: Any, pos_label: Any) -> ThresholdCounts:
    check_unit_interval(y_proba, "y_proba")
    return threshold_counts(y_true, y_proba, sample_weight=sample_weight, pos_label=pos_label)


def _n_bins(n_bins: Any) -> int | None:
    return None if n_bins is None else check_positive_int(n_bins, "n_bins")


def _bin_sums(counts: ThresholdCounts, n_bins: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(weight, weighted positives, weighted sum of s) per non-empty bin, increasing s.

    ``n_bins`` equal-width bins on [0, 1] numbered as scikit-learn's ``calibration_curve``
    (``searchsorted`` of the inner edges: a value on an edge belongs to the lower bin);
    None: one bin per distinct score.
    """
    s, pos, neg = counts.score_table()
    s, pos, neg = s[::-1], pos[::-1], neg[::-1]
    if s[0] < 0 or s[-1] > 1:
        raise InvalidInputError("predicted probabilities must lie in [0, 1]")
    weight = pos + neg
    if n_bins is None:
        return weight, pos, s * weight
    ids = np.searchsorted(np.linspace(0.0, 1.0, n_bins + 1)[1:-1], s)
    sums = [np.bincount(ids, weights=x, minlength=n_bins) for x in (weight, pos, s * weight)]
    keep = sums[0] > 0
    return sums[0][keep], sums[1][keep], sums[2][keep]


@dataclass(frozen=True, eq=False)
class ReliabilityTable:
    """Mean predicted probability and fraction of positives per bin (a reliability diagram).

    Attributes
    ----------
    mean_predicted : ndarray, the weighted mean predicted probability f̄_b of each
        non-empty bin (increasing); scikit-learn's ``prob_pred``
    fraction_positive : ndarray, the weighted fraction of positives ō_b; ``prob_true``
    weight : ndarray, the total sample weight W_b in each bin
    n_bins : number of equal-width bins on [0, 1], or None (one bin per distinct value)
    """

    mean_predicted: np.ndarray
    fraction_positive: np.ndarray
    weight: np.ndarray
    n_bins: int | None

    @classmethod
    def from_counts(cls, counts: ThresholdCounts, *, n_bins: int | None = 10) -> "ReliabilityTable":
        """The table from the per-score statistic (scores = predicted probabilities)."""
        n_bins = _n_bins(n_bins)
        w, pos, fs = _bin_sums(counts, n_bins)
        return cls(fs / w, pos / w, w, n_bins)

    @property
    def expected_calibration_error(self) -> float:
        r"""Σ_b (W_b / W) \|ō_b − f̄_b\|."""
        return float(np.sum(self.weight * np.abs(self.fraction_positive - self.mean_predicted)) / self.weight.sum())

    def to_dict(self) -> dict[str, Any]:
        return {
            "mean_predicted": jsonable(self.mean_predicted),
            "fraction_positive": jsonable(self.fraction_positive),
            "weight": jsonable(self.weight),
            "n_bins": self.n_bins,
            "expected_calibration_error": self.expected_calibration_error,
        }


def reliability_table(
    y_true: Any, y_proba: Any, *, n_bins: int | None = 10, sample_weight: Any = None, pos_label: Any = None
) -> ReliabilityTable:
    """The reliability table of binary probabilities (weighted ``calibration_curve``).

    Parameters
    ----------
    y_true : array-like (n,), binary labels
    y_proba : array-like (n,), predicted probabilities of the positive class, in [0, 1]
    n_bins : int or None, default 10
        Equal-width bins on [0, 1] (scikit-learn's ``strategy="uniform"``); None: one
        bin per distinct predicted value.
    sample_weight : array-like (n,), optional
    pos_label : the positive label (default 1 for {0, 1} or {-1, 1} labels)

    Returns
    -------
    ReliabilityTable
        Empty bins are left out, as in scikit-learn.

    Examples
    --------
    >>> t = reliability_table([0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9], n_bins=2)
    >>> t.mean_predicted, t.fraction_positive, t.weight
    (array([0.2 , 0.75]), array([0., 1.]), array([2., 2.]))
    """
    return ReliabilityTable.from_counts(_counts(y_true, y_proba, sample_weight, pos_label), n_bins=n_bins)


def expected_calibration_error(
    y_true: Any, y_proba: Any, *, n_bins: int | None = 10, sample_weight: Any = None, pos_label: Any = None
) -> float:
    r"""Expected calibration error of binary probabilities.

    .. math:: \mathrm{ECE} = \sum_b \frac{W_b}{W}\,\lvert \bar o_b - \bar f_b\rvert

    over ``n_bins`` equal-width bins of the predicted probability (Naeini, Cooper &
    Hauskrecht 2015, "Obtaining well calibrated probabilities using Bayesian
    binning", AAAI), the bins and per-bin means of scikit-learn's
    ``calibration_curve(strategy="uniform")``, weighted by ``sample_weight``.
    0 is perfect calibration; the constant prediction π (the trivial predictor) has
    ECE 0 too: calibration is not skill (see :func:`brier_score_decomposition`).

    Parameters
    ----------
    y_true, y_proba, sample_weight, pos_label : as :func:`reliability_table`
    n_bins : int or None, default 10
        None: one bin per distinct predicted value.

    Examples
    --------
    >>> expected_calibration_error([0, 0, 1, 1], [0.1, 0.3, 0.6, 0.9], n_bins=2)
    0.225
    """
    return reliability_table(
        y_true, y_proba, n_bins=n_bins, sample_weight=sample_weight, pos_label=pos_label
    ).expected_calibration_error


@dataclass(frozen=True)
class BrierDecomposition:
    """Murphy's partition of the Brier score: BS = REL − RES + UNC (+ residual).

    Attributes
    ----------
    brier_score : mean (weighted) squared error (s − y)², scikit-learn's ``brier_score_loss``
    reliability : REL = Σ_b (W_b/W)(f̄_b − ō_b)² (lower is better)
    resolution : RES = Σ_b (W_b/W)(ō_b − ō)² (higher is better)
    uncertainty : UNC = ō(1 − ō), the Brier score of the constant prediction ō = π
    residual : BS − (REL − RES + UNC): 0 (to rounding) with ``n_bins=None``, the
        within-bin spread of the forecasts otherwise
    n_bins : the bins used (None: one per distinct predicted value)
    """

    brier_score: float
    reliability: float
    resolution: float
    uncertainty: float
    residual: float
    n_bins: int | None

    @property
    def skill_score(self) -> float:
        """Brier skill score 1 − BS/UNC: the prediction advantage under the Brier loss.

        Undefined (nan, :class:`~beyondchance.UndefinedMeasureWarning`) when one class
        is absent (UNC = 0: the constant prediction is perfect).
        """
        if self.uncertainty <= 0:
            warn_undefined("the Brier skill score is undefined: y_true holds a single class (uncertainty 0)")
            return float("nan")
        return 1.0 - self.brier_score / self.uncertainty

    def to_dict(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in ("brier_score", "reliability", "resolution", "uncertainty", "residual", "n_bins")}
        out["skill_score"] = self.skill_score if self.uncertainty > 0 else None
        return out

    @classmethod
    def from_counts(cls, counts: ThresholdCounts, *, n_bins: int | None = None) -> "BrierDecomposition":
        """The decomposition from the per-score statistic (scores = predicted probabilities)."""
        n_bins = _n_bins(n_bins)
        w, o, fs = _bin_sums(counts, n_bins)  # checks s in [0, 1]
        s, pos, neg = counts.score_table()
        total = w.sum()
        brier = float(np.sum(pos * (1 - s) ** 2 + neg * s**2) / total)
        pi = o.sum() / total
        rel = float(np.sum((fs - o) ** 2 / w) / total)  # W_b (f̄_b − ō_b)² = (Σf − Σo)²/W_b
        res = float(np.sum((o - pi * w) ** 2 / w) / total)
        unc = float(pi * (1 - pi))
        return cls(brier, rel, res, unc, brier - (rel - res + unc), n_bins)


def brier_score_decomposition(
    y_true: Any, y_proba: Any, *, n_bins: int | None = None, sample_weight: Any = None, pos_label: Any = None
) -> BrierDecomposition:
    r"""The Brier score and its decomposition into reliability, resolution and uncertainty.

    .. math::

        \mathrm{BS} = \frac1W\sum_i w_i (s_i - y_i)^2
        = \underbrace{\sum_b \tfrac{W_b}{W}(\bar f_b - \bar o_b)^2}_{\mathrm{REL}}
        - \underbrace{\sum_b \tfrac{W_b}{W}(\bar o_b - \bar o)^2}_{\mathrm{RES}}
        + \underbrace{\bar o(1 - \bar o)}_{\mathrm{UNC}}

    (Murphy 1973; exact with one bin per distinct predicted value, ``n_bins=None``).
    The Brier skill score ``result.skill_score`` = 1 − BS/UNC = (RES − REL)/UNC is the
    prediction advantage of the probabilities under the Brier loss: 0 for the constant
    prediction π, 1 for a perfect one.

    Parameters
    ----------
    y_true, y_proba, sample_weight, pos_label : as :func:`reliability_table`
    n_bins : None or int, default None
        None: one bin per distinct predicted value (exact identity); an int: that many
        equal-width bins (as :func:`expected_calibration_error`), the within-bin
        spread then in ``residual``.

    Returns
    -------
    BrierDecomposition

    Examples
    --------
    >>> d = brier_score_decomposition([0, 0, 1, 1, 1], [0.2, 0.2, 0.2, 0.8, 0.8])
    >>> round(d.brier_score, 12), round(d.reliability - d.resolution + d.uncertainty, 12)
    (0.16, 0.16)
    >>> round(d.skill_score, 12)      # (RES − REL) / UNC = (0.32/3 − 0.08/3) / 0.24
    0.333333333333
    """
    return BrierDecomposition.from_counts(_counts(y_true, y_proba, sample_weight, pos_label), n_bins=n_bins)
