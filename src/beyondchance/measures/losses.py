r"""Losses and their Bayesian marginal predictions (BMP).

The **Bayesian marginal prediction** f₀ of a loss ℓ is the best prediction that
ignores the features: the constant minimising the risk under the label
distribution P(Y),

.. math::

    f_0 = \operatorname*{arg\,min}_{c} \; \mathbb{E}_{Y}\, \ell(c, Y),
    \qquad R_\ell(f_0) = \min_c \mathbb{E}_{Y}\, \ell(c, Y)

(Prediction Advantage paper, El-Yaniv, Geifman & Wiener, section 2.1; Lemma 2.1: for a
loss convex in the prediction a constant is optimal among all randomised predictors
that ignore X).  Its risk is the baseline of the prediction advantage
(:func:`beyondchance.prediction_advantage`).

Closed forms (empirical version: P(Y) is the weighted distribution of the labels):

=====================  =========================================  ==============================
loss                   BMP f₀                                     R(f₀)
=====================  =========================================  ==============================
0/1 (Lemma 2.3)        majority class argmax_k p_k                1 − max_k p_k
cross-entropy (L 2.2)  the prior vector (p_1, …, p_k)             Shannon entropy H(p)
Brier                  the prior vector                           1 − Σ_k p_k²
squared (Lemma 2.4)    weighted mean E[Y]                         Var(Y)
absolute (Lemma 2.5)   weighted median                            mean absolute deviation
pinball(α)             weighted α-quantile                        mean pinball loss
cost matrix (§2.7)     argmin_i Σ_j b_ij p_j                      min_i Σ_j b_ij p_j
=====================  =========================================  ==============================

Every loss also has a generic numerical solver (``method="numeric"``), used for
user-defined losses (:class:`CallableLoss`) and to cross-check the closed forms:

* label-valued predictions: every class is tried (the k × k table of losses);
* real-valued predictions: bounded scalar minimisation over [min y, max y]
  (:func:`scipy.optimize.minimize_scalar`), polished by trying the observed values
  next to the optimum (piecewise-linear losses have their minimum at a data point);
* probability-valued predictions: SLSQP over the probability simplex
  (:func:`scipy.optimize.minimize`), started from the uniform vector.

>>> from beyondchance import bayes_marginal_prediction
>>> bmp = bayes_marginal_prediction(["a", "b", "b", "b"])
>>> bmp.prediction, bmp.risk
('b', 0.25)
>>> bayes_marginal_prediction([1.0, 2.0, 6.0], loss="squared").prediction
3.0
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, ClassVar, Literal

import numpy as np

if TYPE_CHECKING:
    import numpy.typing as npt

from .._validation import (
    as_1d,
    as_float_2d,
    check_sample_weight,
    encode_labels,
    union_labels,
)
from .._warnings import InvalidInputError
from .._json import jsonable as _jsonable

__all__ = [
    "Loss",
    "ZeroOneLoss",
    "CostMatrixLoss",
    "CrossEntropyLoss",
    "BrierLoss",
    "SquaredLoss",
    "AbsoluteLoss",
    "PinballLoss",
    "CallableLoss",
    "LOSSES",
    "get_loss",
    "loss_names",
    "weighted_quantile",
    "BayesMarginalPrediction",
    "bayes_marginal_prediction",
]

PredictionKind = Literal["label", "real", "probability"]
_KINDS = ("label", "real", "probability")
_EPS = float(np.finfo(np.float64).eps)




# =====================================================================================
# losses
# =====================================================================================


class Loss:
    """Base class of the losses ℓ(prediction, label).

    A loss is called as ``loss(y_pred, y_true)`` and returns the per-sample losses,
    non-negative.  What a prediction is depends on ``prediction``:

    * ``"label"`` — ``y_pred`` and ``y_true`` are arrays of class labels;
    * ``"real"`` — both are 1-D float arrays (one output);
    * ``"probability"`` — ``y_pred`` is an (n, k) matrix of class probabilities and
      ``y_true`` the (n, k) one-hot ("unary", PA paper section 2.3) encoding of the
      labels, columns in the order of the classes.

    Subclasses with a closed-form BMP override the ``_closed_*`` hooks; the generic
    solver only ever calls the loss itself.
    """

    prediction: ClassVar[str] = "label"
    #: whether the BMP has a closed form (otherwise the numerical solver is used)
    closed_form: ClassVar[bool] = True

    @property
    def name(self) -> str:  # pragma: no cover - overridden
        return type(self).__name__

    def __call__(self, y_pred: Any, y_true: Any) -> np.ndarray:
        y_pred = np.asarray(y_pred)
        return _checked_losses(self.pointwise(y_pred, np.asarray(y_true)), y_pred.shape[0], self.name)

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    # --- label-valued hooks --------------------------------------------------------

    def extra_labels(self) -> np.ndarray | None:
        """Labels the loss itself knows about (e.g. the rows of a cost matrix)."""
        return None

    def loss_matrix(self, classes: np.ndarray) -> np.ndarray:
        """``L[i, j]`` = loss of predicting ``classes[i]`` when the truth is ``classes[j]``.

        The default enumerates every pair of classes through the loss itself.
        """
        k = classes.shape[0]
        pred = np.repeat(classes, k)
        true = np.tile(classes, k)
        return _checked_losses(self.pointwise(pred, true), k * k, self.name).reshape(k, k)

    # --- probability-valued hooks ---------------------------------------------------

    def sample_losses_proba(self, proba: np.ndarray, codes: np.ndarray) -> np.ndarray:
        """Per-sample losses of probability rows ``proba`` for true class indices ``codes``."""
        onehot = np.zeros_like(proba)
        onehot[np.arange(codes.shape[0]), codes] = 1.0
        return _checked_losses(self.pointwise(proba, onehot), codes.shape[0], self.name)

    def constant_risk_proba(self, q: np.ndarray, p: np.ndarray) -> np.ndarray:
        """Risk Σ_c p_c ℓ(q, e_c) of the constant probability vector ``q``.

        ``q`` and ``p`` are (k,) or (m, k) (rows are separate problems).  The default
        evaluates the loss on the k one-hot labels.
        """
        q2 = np.atleast_2d(q)
        p2 = np.atleast_2d(p)
        m, k = p2.shape
        q2 = np.broadcast_to(q2, (m, k))
        rows = np.repeat(q2, k, axis=0)  # for each problem, q repeated once per class
        onehot = np.tile(np.eye(k), (m, 1))
        with np.errstate(all="ignore"):
            raw = self.pointwise(rows, onehot)
        table = _probed_losses(raw, m * k, self.name).reshape(m, k)
        out = np.sum(np.where(p2 > 0, table * p2, 0.0), axis=1)  # absent classes weigh 0
        return out if np.ndim(p) == 2 else out[0]

    def _closed_proba(self, p: np.ndarray) -> tuple[np.ndarray, float]:
        """Closed-form BMP (probability vector, risk) for the class distribution p."""
        raise NotImplementedError

    def bmp_risk_proba(self, p: np.ndarray) -> np.ndarray:
        """Closed-form BMP risk for each row of class distributions p (m, k)."""
        raise NotImplementedError

    # --- real-valued hooks -----------------------------------------------------------

    def _closed_real(self, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
        """Closed-form BMP (constant, risk) of a weighted sample (positive weights)."""
        raise NotImplementedError

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


def _checked_losses(values: Any, n: int, name: str, *, trusted: bool = False) -> np.ndarray:
    """One non-negative, non-NaN loss per sample (``trusted``: built-in loss, shape only)."""
    out = np.asarray(values, dtype=np.float64)
    if out.shape != (n,) and out.size == n:
        out = out.reshape(n)
    if out.shape != (n,):
        raise InvalidInputError(
            f"loss {name!r} must return one value per sample ({n}), got shape {np.shape(values)}"
        )
    if trusted:
        return out
    if np.isnan(out).any():
        raise InvalidInputError(f"loss {name!r} returned NaN")
    if (out < 0).any():
        raise InvalidInputError(f"loss {name!r} returned negative values; losses must be >= 0")
    return out


@dataclass(frozen=True, repr=False)
class ZeroOneLoss(Loss):
    """The 0/1 loss 1{ŷ ≠ y} (PA paper, section 2.4).

    BMP: the majority class; R(f₀) = 1 − max_k p_k (Lemma 2.3).

    >>> ZeroOneLoss()(["a", "b"], ["a", "a"])
    array([0., 1.])
    """

    prediction: ClassVar[str] = "label"

    @property
    def name(self) -> str:
        return "zero_one"

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
        return (np.asarray(y_pred) != np.asarray(y_true)).astype(np.float64)

    def loss_matrix(self, classes: np.ndarray) -> np.ndarray:
        k = classes.shape[0]
        return 1.0 - np.eye(k)


@dataclass(frozen=True, eq=False, repr=False)
class CostMatrixLoss(Loss):
    """Cost-sensitive loss: ``b[i, j]`` = cost of predicting label i when the truth is j.

    PA paper, section 2.7: BMP f₀ = argmin_i Σ_j b_ij p_j, R(f₀) = min_i Σ_j b_ij p_j.

    Parameters
    ----------
    costs : (k, k) array of non-negative costs
    rows, columns : what the rows and the columns of ``costs`` index — ``"predicted"``
        and ``"true"`` (the default, the paper's b_ij) or the other way round
        (``rows="true", columns="predicted"``: scikit-learn's confusion-matrix
        orientation).
    labels : the k labels, in the order of the rows/columns.  Without it, the matrix
        applies to the sorted labels found in the data, which must then be exactly k.

    >>> loss = CostMatrixLoss([[0, 5], [1, 0]], labels=[0, 1])   # a missed 1 costs 5
    >>> loss([0, 0, 1], [0, 1, 0])
    array([0., 5., 1.])
    """

    costs: Any
    rows: Literal["predicted", "true"] = "predicted"
    columns: Literal["predicted", "true"] = "true"
    labels: Any = None
    matrix: np.ndarray = field(init=False, repr=False)

    prediction: ClassVar[str] = "label"

    def __post_init__(self) -> None:
        if {self.rows, self.columns} != {"predicted", "true"}:
            raise InvalidInputError(
                "rows and columns must be 'predicted' and 'true' (one each), "
                f"got rows={self.rows!r}, columns={self.columns!r}"
            )
        try:
            b = np.asarray(self.costs, dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"costs must be a numeric matrix: {exc}") from exc
        if b.ndim != 2 or b.shape[0] != b.shape[1] or b.shape[0] < 1:
            raise InvalidInputError(f"costs must be a square (k, k) matrix, got shape {b.shape}")
        if not np.isfinite(b).all():
            raise InvalidInputError("costs contains NaN or infinite values")
        if (b < 0).any():
            raise InvalidInputError("costs contains negative entries; costs must be >= 0")
        if self.rows == "true":
            b = b.T
        b = b.copy()
        b.setflags(write=False)
        object.__setattr__(self, "matrix", b)
        if self.labels is not None:
            labels = as_1d(self.labels, "labels")
            if labels.shape[0] != b.shape[0]:
                raise InvalidInputError(
                    f"costs is {b.shape[0]} x {b.shape[0]} but {labels.shape[0]} labels were given"
                )
            if np.unique(labels).shape[0] != labels.shape[0]:
                raise InvalidInputError("labels of the cost matrix contains duplicates")
            object.__setattr__(self, "labels", labels)

    @property
    def name(self) -> str:
        return "cost_matrix"

    def extra_labels(self) -> np.ndarray | None:
        return self.labels

    def _indices(self, values: np.ndarray, classes: np.ndarray | None = None) -> np.ndarray:
        """Row/column index of each label in the cost matrix."""
        ref = self.labels if self.labels is not None else classes
        if ref is None:
            raise InvalidInputError("CostMatrixLoss without labels= cannot map labels to rows")
        if ref.shape[0] != self.matrix.shape[0]:
            raise InvalidInputError(
                f"costs is {self.matrix.shape[0]} x {self.matrix.shape[0]} but the data have "
                f"{ref.shape[0]} classes {ref.tolist()}; pass CostMatrixLoss(..., labels=...)"
            )
        order = np.argsort(ref, kind="stable")
        sorted_ref = ref[order]
        try:
            pos = np.searchsorted(sorted_ref, values)
        except TypeError as exc:
            raise InvalidInputError(f"labels of incompatible types: {exc}") from exc
        pos = np.minimum(pos, sorted_ref.shape[0] - 1)
        bad = sorted_ref[pos] != values
        if np.any(bad):
            raise InvalidInputError(
                f"labels {np.unique(np.asarray(values)[bad])[:5].tolist()} are not rows of the "
                f"cost matrix (its labels: {ref.tolist()})"
            )
        return order[pos]

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray, classes: np.ndarray | None = None) -> np.ndarray:
        if self.labels is None and classes is None:
            classes = np.unique(np.concatenate([np.asarray(y_true).ravel(), np.asarray(y_pred).ravel()]))
        return self.matrix[self._indices(np.asarray(y_pred), classes), self._indices(np.asarray(y_true), classes)]

    def loss_matrix(self, classes: np.ndarray) -> np.ndarray:
        idx = self._indices(classes, classes)
        return self.matrix[np.ix_(idx, idx)]

    def __repr__(self) -> str:
        labels = None if self.labels is None else self.labels.tolist()
        return f"CostMatrixLoss({self.matrix.tolist()}, rows='predicted', columns='true', labels={labels})"


def _clip_proba(q: np.ndarray) -> np.ndarray:
    # scikit-learn's log_loss clips to [eps, 1 - eps]; so do we, to agree with it
    return np.clip(q, _EPS, 1 - _EPS)


@dataclass(frozen=True, repr=False)
class CrossEntropyLoss(Loss):
    """Cross-entropy (log) loss −Σ_k y_k log q_k of probability predictions.

    PA paper, section 2.3, Lemma 2.2: the BMP is the prior vector p and its risk the
    Shannon entropy H(p) (natural logarithm).  Probabilities are clipped to
    [eps, 1 − eps] as scikit-learn's ``log_loss`` does, so a zero probability on the
    true class costs −log(eps) ≈ 36.0 rather than infinity.

    >>> import numpy as np
    >>> CrossEntropyLoss()(np.array([[0.5, 0.5], [0.9, 0.1]]), np.array([[1, 0], [0, 1]]))
    array([0.69314718, 2.30258509])
    """

    prediction: ClassVar[str] = "probability"

    @property
    def name(self) -> str:
        return "cross_entropy"

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
        q = _clip_proba(np.asarray(y_pred, dtype=np.float64))
        y = np.asarray(y_true, dtype=np.float64)
        return -np.sum(np.where(y > 0, y * np.log(q), 0.0), axis=-1)

    def sample_losses_proba(self, proba: np.ndarray, codes: np.ndarray) -> np.ndarray:
        return -np.log(_clip_proba(proba[np.arange(codes.shape[0]), codes]))

    def constant_risk_proba(self, q: np.ndarray, p: np.ndarray) -> np.ndarray:
        logq = np.log(_clip_proba(np.asarray(q, dtype=np.float64)))
        p = np.asarray(p, dtype=np.float64)
        return -np.sum(np.where(p > 0, p * logq, 0.0), axis=-1)

    def bmp_risk_proba(self, p: np.ndarray) -> np.ndarray:
        """The Shannon entropy H(p) per row (exactly 0 for a single class)."""
        p = np.asarray(p, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            terms = np.where(p > 0, p * np.log(np.where(p > 0, p, 1.0)), 0.0)
        return -np.sum(terms, axis=-1)

    def _closed_proba(self, p: np.ndarray) -> tuple[np.ndarray, float]:
        return p.copy(), float(self.bmp_risk_proba(p))


@dataclass(frozen=True, repr=False)
class BrierLoss(Loss):
    """Multi-class Brier score Σ_k (q_k − y_k)² (Brier, 1950).

    A proper scoring rule: the BMP is the prior vector p, with risk 1 − Σ_k p_k².
    For binary problems this is twice scikit-learn's ``brier_score_loss``; the
    prediction advantage (a ratio) equals ``sklearn.metrics.d2_brier_score``.

    >>> import numpy as np
    >>> BrierLoss()(np.array([[0.5, 0.5]]), np.array([[1, 0]]))
    array([0.5])
    """

    prediction: ClassVar[str] = "probability"

    @property
    def name(self) -> str:
        return "brier"

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
        d = np.asarray(y_pred, dtype=np.float64) - np.asarray(y_true, dtype=np.float64)
        return np.sum(d * d, axis=-1)

    def sample_losses_proba(self, proba: np.ndarray, codes: np.ndarray) -> np.ndarray:
        n = codes.shape[0]
        q_true = proba[np.arange(n), codes]
        return np.einsum("ij,ij->i", proba, proba) - 2 * q_true + 1

    def constant_risk_proba(self, q: np.ndarray, p: np.ndarray) -> np.ndarray:
        q = np.asarray(q, dtype=np.float64)
        p = np.asarray(p, dtype=np.float64)
        # E_p Σ_k (q_k − y_k)² = Σ_k q_k² − 2 Σ_k p_k q_k + 1   (Σ p_k = 1)
        return np.sum(q * q, axis=-1) - 2 * np.sum(p * q, axis=-1) + np.sum(p, axis=-1)

    def bmp_risk_proba(self, p: np.ndarray) -> np.ndarray:
        """1 − Σ_k p_k² per row (exactly 0 for a single class)."""
        p = np.asarray(p, dtype=np.float64)
        return np.maximum(np.sum(p, axis=-1) - np.sum(p * p, axis=-1), 0.0)

    def _closed_proba(self, p: np.ndarray) -> tuple[np.ndarray, float]:
        return p.copy(), float(self.bmp_risk_proba(p))


def _wsum(w: np.ndarray, values: np.ndarray) -> float:
    """Σ w_i v_i (multiply-and-sum, as numpy.average: no BLAS call on one long vector)."""
    return float(np.sum(np.multiply(w, values)))


def _wmean(values: np.ndarray, w: np.ndarray) -> float:
    return _wsum(w, values) / float(np.sum(w))


@dataclass(frozen=True, repr=False)
class SquaredLoss(Loss):
    """Squared loss (ŷ − y)² (PA paper, section 2.5, Lemma 2.4).

    BMP: the (weighted) mean; R(f₀) = Var(Y); the PA is the coefficient of
    determination R² (``sklearn.metrics.r2_score``).

    >>> SquaredLoss()([1.0, 2.0], [0.0, 4.0])
    array([1., 4.])
    """

    prediction: ClassVar[str] = "real"

    @property
    def name(self) -> str:
        return "squared"

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
        d = np.asarray(y_pred, dtype=np.float64) - np.asarray(y_true, dtype=np.float64)
        return d * d

    def _closed_real(self, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
        mean = _wmean(y, w)
        d = y - mean
        return mean, _wmean(d * d, w)


def weighted_quantile(values: Any, alpha: float, sample_weight: Any = None) -> float:
    """Weighted α-quantile, the "averaged inverted CDF" (Hyndman & Fan).

    With unit weights this is ``numpy.quantile(values, alpha,
    method="averaged_inverted_cdf")`` (the median for α = 1/2); with weights it is
    scikit-learn's ``_weighted_percentile(..., average=True)``, the quantile used by
    ``d2_pinball_score`` and ``d2_absolute_error_score``: the smallest value whose
    cumulative weight reaches α·W, averaged with the next value when the
    cumulative weight hits α·W exactly.  Any value between the two minimises the
    expected pinball loss, so the BMP risk does not depend on the choice.

    >>> weighted_quantile([1.0, 2.0, 3.0, 4.0], 0.5)
    2.5
    >>> weighted_quantile([1.0, 2.0, 3.0, 4.0], 0.5, sample_weight=[1, 1, 1, 3])
    3.5
    """
    arr = np.asarray(values, dtype=np.float64).ravel()
    w = np.ones_like(arr) if sample_weight is None else np.asarray(sample_weight, dtype=np.float64).ravel()
    if arr.shape != w.shape or arr.size == 0:
        raise InvalidInputError("weighted_quantile needs non-empty values and one weight per value")
    if not 0.0 <= alpha <= 1.0:
        raise InvalidInputError(f"alpha must lie in [0, 1], got {alpha!r}")
    keep = w > 0
    if not keep.any():
        raise InvalidInputError("sample_weight sums to zero")
    arr, w = arr[keep], w[keep]
    order = np.argsort(arr, kind="stable")
    ys, ws = arr[order], w[order]
    cdf = np.cumsum(ws)
    target = (alpha * 100) / 100 * cdf[-1]  # the same arithmetic as scikit-learn
    if target == 0:
        target = np.nextafter(target, 1.0)
    i = min(int(np.searchsorted(cdf, target, side="left")), ys.shape[0] - 1)
    if cdf[i] - target > _EPS:
        return float(ys[i])
    return float((ys[i] + ys[min(i + 1, ys.shape[0] - 1)]) / 2)


@dataclass(frozen=True, repr=False)
class PinballLoss(Loss):
    """Pinball (quantile) loss: α·(y − ŷ) if y ≥ ŷ else (1 − α)·(ŷ − y).

    BMP: the weighted α-quantile (:func:`weighted_quantile`); the PA equals
    ``sklearn.metrics.d2_pinball_score``.  ``alpha = 0.5`` is half the absolute loss.

    >>> PinballLoss(0.9)([0.0, 0.0], [1.0, -1.0])
    array([0.9, 0.1])
    """

    alpha: float = 0.5

    prediction: ClassVar[str] = "real"

    def __post_init__(self) -> None:
        a = self.alpha
        if isinstance(a, bool) or not isinstance(a, (int, float, np.integer, np.floating)) or not 0 < float(a) < 1:
            raise InvalidInputError(f"alpha of the pinball loss must lie in (0, 1), got {a!r}")
        object.__setattr__(self, "alpha", float(a))

    @property
    def name(self) -> str:
        return f"pinball(alpha={self.alpha:g})"

    def pointwise(self, y_pred: npt.ArrayLike, y_true: npt.ArrayLike) -> np.ndarray:
        diff = np.asarray(y_true, dtype=np.float64) - np.asarray(y_pred, dtype=np.float64)
        return np.where(diff >= 0, self.alpha * diff, (self.alpha - 1) * diff)

    def _closed_real(self, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
        q = weighted_quantile(y, self.alpha, w)
        return q, _wmean(self.pointwise(q, y), w)

    def __repr__(self) -> str:
        return f"PinballLoss(alpha={self.alpha!r})"


#: the quantile loss is the pinball loss


@dataclass(frozen=True, repr=False)
class AbsoluteLoss(Loss):
    """Absolute loss ``|ŷ − y|`` (PA paper, section 2.6, Lemma 2.5).

    BMP: the weighted median; R(f₀) = mean absolute deviation around the median
    D_med; the PA equals ``sklearn.metrics.d2_absolute_error_score``.

    >>> AbsoluteLoss()([1.0, 2.0], [0.0, 4.0])
    array([1., 2.])
    """

    prediction: ClassVar[str] = "real"

    @property
    def name(self) -> str:
        return "absolute"

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
        return np.abs(np.asarray(y_pred, dtype=np.float64) - np.asarray(y_true, dtype=np.float64))

    def _closed_real(self, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
        med = weighted_quantile(y, 0.5, w)
        return med, _wmean(np.abs(y - med), w)


class CallableLoss(Loss):
    """A user loss ``func(y_pred, y_true) -> per-sample losses``; BMP found numerically.

    Parameters
    ----------
    func : vectorised callable returning one non-negative loss per sample
    prediction : what the predictions are, which decides the solver (SPEC §1):

        * ``"label"`` — class labels; the BMP is found by trying every class
          (``func`` receives arrays of labels);
        * ``"real"`` — real numbers; bounded scalar minimisation over
          [min y, max y] (``func`` receives 1-D float arrays, one output at a time);
        * ``"probability"`` — class-probability rows; minimisation over the
          probability simplex (``func`` receives the (n, k) probabilities and the
          (n, k) one-hot labels, columns in class order).
    name : a name for reports (default: the function's name)

    >>> import numpy as np
    >>> loss = CallableLoss(lambda p, y: np.abs(p - y) ** 1.5, prediction="real", name="l1.5")
    >>> loss([0.0], [4.0])
    array([8.])
    """

    closed_form: ClassVar[bool] = False

    def __init__(self, func: Callable[[Any, Any], Any], *, prediction: PredictionKind, name: str | None = None):
        if not callable(func):
            raise InvalidInputError(f"func must be callable, got {type(func).__name__}")
        if prediction not in _KINDS:
            raise InvalidInputError(
                f"prediction must be one of {', '.join(map(repr, _KINDS))}, got {prediction!r}"
            )
        self.func = func
        self.prediction = prediction  # type: ignore[misc]  # instance attribute overrides ClassVar
        self._name: str = name if name else getattr(func, "__name__", "callable")

    @property
    def name(self) -> str:
        return self._name

    def pointwise(self, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
        # checked (shape, NaN, sign) by the callers, which know what to do with NaN
        return np.asarray(self.func(y_pred, y_true))

    def __repr__(self) -> str:
        return f"CallableLoss({self._name}, prediction={self.prediction!r})"


#: registered loss names → factory of the loss object
LOSSES: dict[str, Callable[[], Loss]] = {
    "zero_one": ZeroOneLoss,
    "cross_entropy": CrossEntropyLoss,
    "squared": SquaredLoss,
    "absolute": AbsoluteLoss,
    "brier": BrierLoss,
    "pinball": PinballLoss,
}
_LOSS_ALIASES: dict[str, str] = {
    "0_1": "zero_one", "01": "zero_one", "zero_one_loss": "zero_one", "misclassification": "zero_one",
    "log_loss": "cross_entropy", "logloss": "cross_entropy", "log": "cross_entropy",
    "crossentropy": "cross_entropy", "logistic": "cross_entropy",
    "squared_error": "squared", "mse": "squared", "l2": "squared",
    "absolute_error": "absolute", "mae": "absolute", "l1": "absolute",
    "brier_score": "brier",
    "quantile": "pinball",
}


def loss_names() -> list[str]:
    """The registered loss names (aliases: ``log_loss`` → ``cross_entropy`` …)."""
    return list(LOSSES)


def get_loss(loss: str | Loss) -> Loss:
    """A loss object from a name, an alias or a :class:`Loss` (returned as is).

    >>> get_loss("log_loss").name
    'cross_entropy'
    """
    if isinstance(loss, Loss):
        return loss
    if isinstance(loss, str):
        key = loss.strip().lower().replace("-", "_").replace(" ", "_").replace("/", "_")
        key = _LOSS_ALIASES.get(key, key)
        if key in LOSSES:
            return LOSSES[key]()
        raise InvalidInputError(
            f"unknown loss {loss!r}; known losses: {', '.join(LOSSES)} "
            "(or a Loss object such as PinballLoss(alpha), CostMatrixLoss(costs), CallableLoss(func, prediction=...))"
        )
    if callable(loss):
        raise InvalidInputError(
            "a plain function is ambiguous as a loss; wrap it as "
            "CallableLoss(func, prediction='label' | 'real' | 'probability')"
        )
    raise InvalidInputError(f"loss must be a name or a Loss object, got {type(loss).__name__}")


# =====================================================================================
# the BMP result
# =====================================================================================


@dataclass(frozen=True, eq=False)
class BayesMarginalPrediction:
    """The Bayesian marginal prediction f₀ of a loss and its risk.

    Attributes
    ----------
    loss : the loss name
    prediction : the constant f₀ — a class label (label losses), a float or an array
        of one float per output (real-valued losses), or a probability vector over
        ``classes`` (probability losses)
    risk : R(f₀), the risk of f₀ on the label distribution it was computed from
        (a float, or one per output)
    classes : the class labels (label and probability losses), else ``None``
    source : where P(Y) came from: ``"sample"`` (the labels passed in),
        ``"training labels"`` or ``"distribution"`` (a given prior)
    method : ``"closed_form"`` or ``"numeric"``
    """

    loss: str
    prediction: Any
    risk: Any
    classes: np.ndarray | None = None
    source: str = "sample"
    method: str = "closed_form"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "loss": self.loss,
            "prediction": _jsonable(self.prediction),
            "risk": _jsonable(self.risk),
            "classes": None if self.classes is None else _jsonable(self.classes),
            "source": self.source,
            "method": self.method,
        }


# =====================================================================================
# solvers
# =====================================================================================


def _solve_label(loss: Loss, counts: np.ndarray, classes: np.ndarray, method: str) -> tuple[int, float]:
    """Index of the BMP class and its risk, for (weighted) class counts over ``classes``.

    Risks are computed from the counts, as the risks of predictions are, so that the
    two agree to the last bit when they should (the BMP itself has PA exactly 0).
    """
    total = float(np.sum(counts))
    if method == "numeric":
        # classes enumerated through the loss itself (SPEC §1, last row)
        table = Loss.loss_matrix(loss, classes)
    else:
        if isinstance(loss, ZeroOneLoss):
            i = int(np.argmax(counts))
            # (n − max_k N_k) / n = 1 − max_k p_k, exactly 0 for a single class
            return i, (total - float(counts[i])) / total
        table = loss.loss_matrix(classes)
    expected = (table @ counts) / total
    # ties (up to rounding) go to the first label in class order, as for the 0/1 loss
    best = float(expected.min())
    i = int(np.flatnonzero(expected <= best + 1e-12 * max(1.0, abs(best)))[0])
    return i, float(expected[i])


def _solve_simplex(loss: Loss, p: np.ndarray) -> tuple[np.ndarray, float]:
    """Numerical BMP over the probability simplex: SLSQP from the uniform vector."""
    k = p.shape[0]

    eye = np.eye(k)
    present = p > 0

    def risk(q: np.ndarray) -> float:
        # Σ_c p_c ℓ(q, e_c); a loss that is undefined at q (NaN, e.g. 0·log 0 in a
        # user's formula) counts as +inf there
        rows = np.tile(np.clip(q, 0.0, 1.0), (k, 1))
        with np.errstate(all="ignore"):  # probing the boundary of the simplex
            table = _probed_losses(loss.pointwise(rows, eye), k, loss.name)
        value = float(np.sum(p[present] * table[present]))
        return value if np.isfinite(value) else 1e300

    candidates = [np.full(k, 1.0 / k)] + list(np.eye(k))
    if k > 1:
        from scipy import optimize  # imported on use: importing it takes ~0.3 s

        res = optimize.minimize(
            risk,
            np.full(k, 1.0 / k),
            method="SLSQP",
            bounds=[(0.0, 1.0)] * k,
            constraints=[{"type": "eq", "fun": lambda q: np.sum(q) - 1.0}],
            options={"ftol": 1e-16, "maxiter": 2000},
        )
        q = np.clip(res.x, 0.0, 1.0)
        if q.sum() > 0:
            candidates.insert(0, q / q.sum())
    values = [risk(q) for q in candidates]
    best = int(np.argmin(values))
    return candidates[best], float(values[best])


def _solve_real(loss: Loss, y: np.ndarray, w: np.ndarray) -> tuple[float, float]:
    """Numerical BMP of one real output: bounded scalar minimisation over [min y, max y]."""
    total = float(np.sum(w))

    def risk(c: float) -> float:
        return _wsum(w, _losses(loss, np.full(y.shape[0], c), y)) / total

    lo, hi = float(np.min(y)), float(np.max(y))
    if lo == hi:
        return lo, risk(lo)
    from scipy import optimize

    res = optimize.minimize_scalar(
        risk, bounds=(lo, hi), method="bounded", options={"xatol": 1e-12 * (hi - lo), "maxiter": 2000}
    )
    x = float(res.x)
    # polish: losses that are piecewise linear in the prediction have their minimum at
    # an observed value; try the observed values next to the solver's optimum
    values = np.unique(y)
    pos = int(np.searchsorted(values, x))
    near = values[max(pos - 2, 0): pos + 2]
    candidates = [x, lo, hi, *near.tolist()]
    risks = [risk(c) for c in candidates]
    best = int(np.argmin(risks))
    return float(candidates[best]), float(risks[best])


# =====================================================================================
# data preparation (used here and by advantage.py)
# =====================================================================================


def _check_method(method: str) -> str:
    if method not in ("auto", "closed_form", "numeric"):
        raise InvalidInputError(f"method must be 'auto', 'closed_form' or 'numeric', got {method!r}")
    return method


def _resolve_method(loss: Loss, method: str) -> str:
    method = _check_method(method)
    if method == "auto":
        return "closed_form" if loss.closed_form else "numeric"
    if method == "closed_form" and not loss.closed_form:
        raise InvalidInputError(f"loss {loss.name!r} has no closed-form BMP; use method='numeric'")
    return method


def _class_counts(codes: np.ndarray, w: np.ndarray | None, k: int) -> np.ndarray:
    return np.bincount(codes, weights=w, minlength=k).astype(np.float64, copy=False)


def _probed_losses(values: Any, n: int, name: str) -> np.ndarray:
    """Losses of candidate constants: NaN (a formula undefined there, e.g. 0·log 0)
    counts as +inf; negative values are still an error."""
    out = np.asarray(values, dtype=np.float64)
    if out.shape != (n,) and out.size == n:
        out = out.reshape(n)
    out = np.where(np.isnan(out), np.inf, out) if out.shape == (n,) else out
    return _checked_losses(out, n, name)


def _losses(loss: Loss, y_pred: np.ndarray, y_true: np.ndarray) -> np.ndarray:
    """Per-sample losses, checked unless the loss is a built-in one."""
    return _checked_losses(
        loss.pointwise(y_pred, y_true), np.shape(y_pred)[0], loss.name, trusted=loss.closed_form
    )


def _as_targets(y: Any, name: str) -> np.ndarray:
    """Real targets as a finite (n, m) float array."""
    arr = as_float_2d(y, name)
    return arr.reshape(-1, 1) if arr.ndim == 1 else arr


#: Relative resolution of real targets in :func:`baseline_risk_is_zero`.
ZERO_RISK_RTOL = 1e-10


def baseline_risk_is_zero(risk: Any, loss: Loss, target_scale: Any) -> Any:
    r"""The one rule for "the baseline (BMP) risk is zero" of real targets (PA undefined).

    With the targets' scale s = max |y| (over the samples of positive weight) and
    τ = 10⁻¹⁰ s, the baseline risk counts as zero when it is at most the loss of a
    single error of size τ:

    .. math::

        R(f_0) \le \max\big(\ell(\tau, 0), \ell(-\tau, 0)\big)

    (squared loss: the standard deviation is at most τ; absolute loss: the mean
    absolute deviation is at most τ).  Targets that agree to 10 significant digits
    are equal as far as the computation can tell: their spread is at the level of
    the rounding of sums of such values (two floats 1 ulp apart have a variance that
    the two-pass formula gets wrong by a factor of 2), so a PA relative to it would be
    noise.  :func:`bayes_marginal_prediction`, the prediction advantage and the
    PA–coverage curve all apply this rule: the risk is reported as 0 and the PA as
    nan, with a warning.  Exact zero always counts.

    >>> sq = get_loss("squared")
    >>> baseline_risk_is_zero([0.0, 1e-17, 1e-15], sq, [1.0, 100.0, 100.0]).tolist()  # τ² = 1e-16
    [True, True, False]
    """
    tau = ZERO_RISK_RTOL * np.asarray(target_scale, dtype=np.float64).ravel()
    zero = np.zeros_like(tau)
    noise = np.maximum(_losses(loss, tau, zero), _losses(loss, -tau, zero))
    return np.asarray(risk) <= noise.reshape(np.shape(target_scale))


def _bmp_real_outputs(
    loss: Loss, y: np.ndarray, w: np.ndarray | None, method: str
) -> tuple[np.ndarray, np.ndarray]:
    """(constants, risks) per output column of y (n, m); risks follow :func:`baseline_risk_is_zero`."""
    n, m = y.shape
    ww = np.ones(n) if w is None else w
    keep = None if w is None or (w > 0).all() else w > 0  # zero weights: not candidates
    consts = np.empty(m)
    risks = np.empty(m)
    for j in range(m):  # one solve per output, each vectorised over the samples
        col, wj = (y[:, j], ww) if keep is None else (y[keep, j], ww[keep])
        if col.min() == col.max():  # a single value: the BMP is that value, exactly
            consts[j] = col[0]
            risks[j] = _wmean(_losses(loss, np.full(col.shape[0], col[0]), col), wj)
            continue
        if method == "numeric":
            consts[j], risks[j] = _solve_real(loss, col, wj)
        else:
            consts[j], risks[j] = loss._closed_real(col, wj)
        if baseline_risk_is_zero(risks[j], loss, np.abs(col).max()):
            risks[j] = 0.0
    return consts, risks


def bmp_from_distribution(
    loss: Loss, p: np.ndarray, classes: np.ndarray, method: str
) -> tuple[Any, float]:
    """BMP (constant, risk) of a label or probability loss for class weights ``p``.

    For label losses the constant is the class *index*; for probability losses the
    probability vector.
    """
    p = np.asarray(p, dtype=np.float64)
    if loss.prediction == "label":
        return _solve_label(loss, p, classes, method)
    p = p / p.sum()
    if method == "numeric":
        return _solve_simplex(loss, p)
    return loss._closed_proba(p)


def bayes_marginal_prediction(
    y_true: Any,
    *,
    loss: str | Loss = "zero_one",
    sample_weight: Any = None,
    labels: Any = None,
    method: Literal["auto", "closed_form", "numeric"] = "auto",
) -> BayesMarginalPrediction:
    r"""The Bayesian marginal prediction f₀ of a loss for the labels ``y_true``.

    f₀ = argmin_c Σ_i w_i ℓ(c, y_i) / Σ_i w_i — the best constant prediction under the
    (weighted) empirical label distribution (PA paper, section 2.1, Lemma 2.1; the
    closed forms are Lemmas 2.2–2.5 and section 2.7, see the module docstring).

    Parameters
    ----------
    y_true : labels (label and probability losses, 1-D) or real targets
        (real-valued losses, (n,) or (n, m) for m outputs)
    loss : a loss name (``"zero_one"``, ``"cross_entropy"``/``"log_loss"``,
        ``"squared"``, ``"absolute"``, ``"brier"``, ``"pinball"``) or a :class:`Loss`
    sample_weight : optional non-negative weights
    labels : the class set, in order (label/probability losses): the candidates of a
        label BMP and the order of a probability vector.  Default: the sorted labels
        of ``y_true`` (and of a cost matrix's ``labels``).
    method : ``"auto"`` (closed form when there is one), ``"closed_form"`` or
        ``"numeric"`` (the generic solver, whatever the loss)

    Returns
    -------
    BayesMarginalPrediction

    Examples
    --------
    >>> bayes_marginal_prediction([0, 0, 0, 1], loss="log_loss").prediction
    array([0.75, 0.25])
    >>> round(bayes_marginal_prediction([0, 0, 0, 1], loss="log_loss").risk, 6)  # H(0.75, 0.25)
    0.562335
    >>> bayes_marginal_prediction([1.0, 2.0, 10.0], loss="absolute").prediction
    2.0
    >>> costs = CostMatrixLoss([[0, 10], [1, 0]], labels=["ok", "fraud"])
    >>> bayes_marginal_prediction(["ok"] * 8 + ["fraud"] * 2, loss=costs).prediction
    'fraud'
    """
    lo = get_loss(loss)
    how = _resolve_method(lo, method)
    if lo.prediction == "real":
        y = _as_targets(y_true, "y_true")
        w = check_sample_weight(sample_weight, y.shape[0])
        consts, risks = _bmp_real_outputs(lo, y, w, how)
        single = np.ndim(y_true) == 1 or (np.ndim(y_true) == 2 and np.shape(y_true)[1] == 1)
        if single:
            return BayesMarginalPrediction(lo.name, float(consts[0]), float(risks[0]), None, "sample", how)
        return BayesMarginalPrediction(lo.name, consts, risks, None, "sample", how)

    extra = lo.extra_labels() if labels is None else None
    yt = as_1d(y_true, "y_true")
    if labels is None and extra is not None:
        labels = union_labels(yt, extra, names=("y_true", "the loss's labels"))
    codes, _, classes = encode_labels(yt, labels=labels)
    w = check_sample_weight(sample_weight, codes.shape[0])
    counts = _class_counts(codes, w, classes.shape[0])
    const, risk = bmp_from_distribution(lo, counts, classes, how)
    if lo.prediction == "label":
        value = classes[const]
        value = value.item() if isinstance(value, np.generic) else value
        return BayesMarginalPrediction(lo.name, value, float(risk), classes, "sample", how)
    return BayesMarginalPrediction(lo.name, np.asarray(const), float(risk), classes, "sample", how)

