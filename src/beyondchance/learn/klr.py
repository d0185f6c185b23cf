r"""Kernel logistic regression (KLR) with an RBF kernel, solved exactly by L-BFGS.

The posterior estimator of the Pure Accuracy paper (section 6.1, eq. 34–35):

.. math::

    f(x) = \sum_i a_i\, k(x_i, x) + b, \qquad k(x, x') = \exp(-\gamma \lVert x - x' \rVert^2),
    \qquad \hat\eta(x) = \frac{1}{1 + e^{-f(x)}},

with the coefficients minimising the L2-penalised (weighted) logistic loss

.. math::

    J(a, b) = C \sum_i w_i \log\bigl(1 + e^{-s_i f(x_i)}\bigr) + \tfrac12 \lVert f \rVert_{\mathcal H}^2,
    \qquad \lVert f \rVert_{\mathcal H}^2 = a^\top K a, \quad s_i = \pm 1.

**How C maps to the paper.** Eq. (34) maximises the log-likelihood
:math:`\sum_i [y_i f(x_i) - \log(1 + e^{f(x_i)})]` of
:math:`f(x) = \sum_j \alpha_j y_j K(x_j, x)` with *no* penalty and no intercept,
"by gradient descent" (so regularised only implicitly by early stopping).  Here
:math:`a_j = \alpha_j y_j`, an unpenalised intercept b is added (``fit_intercept``)
and C is the inverse strength of an explicit RKHS-norm penalty, in scikit-learn's
convention (``LogisticRegression``: C multiplies the data term); C → ∞ is the
paper's objective.  (As printed, eq. (34) writes :math:`\sum_i f(x_i) y_i` with
y ∈ {+1, −1}; the log-likelihood needs y ∈ {0, 1} there — a typo.)  Several
classes: the multinomial (softmax) version with one function per class.

**How it is solved exactly and fast.** The kernel matrix is factored once by
LAPACK's pivoted Cholesky (``dpstrf``) until the largest remaining pivot is below
``rank_tol``: :math:`K = \Phi\Phi^\top` to that tolerance, :math:`\Phi = K_{:,I}
L_{II}^{-\top}` with r = |I| pivot points (r < n for smooth kernels and duplicated
rows).  With f = Φβ + b the penalty is ½‖β‖², so L-BFGS (analytic gradient) runs on a
well-conditioned r-dimensional problem — optimising the n coefficients a directly
takes 100–1000× more iterations at small γ because K is ill-conditioned — and the
result is mapped back to the reduced representer form
:math:`f(x) = \sum_{i \in I} a_i k(x_i, x) + b`, :math:`a_I = L_{II}^{-\top}\beta`.
For large n, ``nystroem=m`` replaces the exact factor by scikit-learn's
:class:`~sklearn.kernel_approximation.Nystroem` features (m random landmarks) and
fits the same penalised logistic model in that feature space.
"""

from __future__ import annotations

import contextlib
import warnings
from numbers import Integral, Real
from typing import Any

import numpy as np
from scipy import sparse
from scipy.linalg import lapack, solve_triangular
from scipy.optimize import minimize
from scipy.special import expit, log_expit, logsumexp, softmax
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.kernel_approximation import Nystroem
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data
from threadpoolctl import ThreadpoolController

from .._validation import check_sample_weight
from .._warnings import InvalidInputError

__all__ = ["KernelLogisticRegression"]

#: Rows of the test-by-support kernel block computed at once in predictions.
_CHUNK_ELEMENTS = 1 << 22

#: Below this many multiply-adds a BLAS call runs single-threaded: on small matrices
#: OpenBLAS threads cost more than they save (and 10–50x more on a busy machine).
_SMALL_WORK = 1 << 26

_CONTROLLER: ThreadpoolController | None = None


def _single_threaded_blas():
    """A context running BLAS on one thread (the controller is built once: ~5 ms)."""
    global _CONTROLLER
    if _CONTROLLER is None:
        _CONTROLLER = ThreadpoolController()
    return _CONTROLLER.limit(limits=1, user_api="blas")


def _blas_for(work: float):
    """Single-threaded BLAS for small products, the default threading for large ones."""
    return _single_threaded_blas() if work < _SMALL_WORK else contextlib.nullcontext()


def _resolve_gamma(gamma: Any, X: Any, sw: np.ndarray) -> float:
    """γ, with "scale" = 1 / (n_features · Var(X)) as in ``sklearn.svm.SVC``.

    The variance (over all entries, as ``X.var()``) is weighted by the sample
    weights, so that integer weights and repeated rows give the same γ.
    """
    if not isinstance(gamma, str):
        return float(gamma)
    w = sw / sw.sum()
    if sparse.issparse(X):
        mean = float(w @ np.asarray(X.sum(axis=1)).ravel()) / X.shape[1]
        second = float(w @ np.asarray(X.multiply(X).sum(axis=1)).ravel()) / X.shape[1]
    else:
        mean = float(w @ X.sum(axis=1)) / X.shape[1]
        second = float(w @ np.einsum("ij,ij->i", X, X)) / X.shape[1]
    var = second - mean**2
    return 1.0 / (X.shape[1] * var) if var > 0 else 1.0


def _pivoted_cholesky_features(K: np.ndarray, rank_tol: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Φ (n × r), pivot indices I and L_II with K = ΦΦᵀ up to ``rank_tol``.

    ``K`` is overwritten (LAPACK ``dpstrf`` works in place on the Fortran view of
    the symmetric matrix).
    """
    c, piv, rank, info = lapack.dpstrf(K.T, tol=rank_tol, lower=1, overwrite_a=1)
    if info < 0:  # pragma: no cover - LAPACK argument error
        raise RuntimeError(f"dpstrf failed with info={info}")
    rank = max(int(rank), 1)
    piv = piv - 1  # 1-based -> 0-based
    L = np.tril(c[:, :rank])  # rows in pivot order
    phi = np.empty((K.shape[0], rank))
    phi[piv] = L
    return phi, piv[:rank].copy(), np.ascontiguousarray(L[:rank])


def _fit_penalised_logistic(
    phi: np.ndarray,
    codes: np.ndarray,
    n_classes: int,
    sw: np.ndarray,
    C: float,
    fit_intercept: bool,
    tol: float,
    max_iter: int,
) -> tuple[np.ndarray, np.ndarray, Any]:
    r"""Minimise Σ w_i ℓ_i / W + ‖β‖² / (2 C W) (same minimiser as C·Σ w ℓ + ½‖β‖²).

    Binary: one logit column, ℓ = log(1 + exp(−s f)).  Several classes: softmax with
    one column per class.  Returns (β of shape (r, m), intercept (m,), scipy result).
    """
    n, r = phi.shape
    total = float(sw.sum())
    wn = sw / total
    lam = 1.0 / (C * total)
    m = 1 if n_classes == 2 else n_classes
    if m == 1:
        y = (codes == 1).astype(np.float64)
        s = 2.0 * y - 1.0
        prior = float(np.dot(wn, y))
        b0 = np.array([np.log(prior / (1.0 - prior))]) if fit_intercept else np.zeros(1)
    else:
        Y = np.zeros((n, m))
        Y[np.arange(n), codes] = 1.0
        class_prior = np.clip(wn @ Y, 1e-300, None)
        logp = np.log(class_prior)
        b0 = logp - logp.mean() if fit_intercept else np.zeros(m)

    nb = r * m

    def objective(theta: np.ndarray) -> tuple[float, np.ndarray]:
        beta = theta[:nb].reshape(r, m)
        b = theta[nb:] if fit_intercept else b0
        F = phi @ beta + b
        if m == 1:
            f = F[:, 0]
            loss = -np.dot(wn, log_expit(s * f))
            R = (wn * (expit(f) - y))[:, None]
        else:
            lse = logsumexp(F, axis=1)
            loss = np.dot(wn, lse - np.einsum("ij,ij->i", F, Y))
            R = wn[:, None] * (np.exp(F - lse[:, None]) - Y)
        value = loss + 0.5 * lam * np.vdot(beta, beta)
        grad_beta = phi.T @ R + lam * beta
        if fit_intercept:
            return value, np.concatenate((grad_beta.ravel(), R.sum(axis=0)))
        return value, grad_beta.ravel()

    theta0 = np.zeros(nb + (m if fit_intercept else 0))
    if fit_intercept:
        theta0[nb:] = b0
    res = minimize(
        objective,
        theta0,
        jac=True,
        method="L-BFGS-B",
        options={"maxiter": max_iter, "gtol": tol, "ftol": 0.0, "maxcor": 30},
    )
    beta = res.x[:nb].reshape(r, m)
    intercept = res.x[nb:] if fit_intercept else np.zeros(m)
    return beta, intercept, res


class KernelLogisticRegression(ClassifierMixin, BaseEstimator):
    r"""Kernel logistic regression with an RBF kernel (Pure Accuracy paper, eq. 34–35).

    Minimises :math:`C\sum_i w_i \log(1 + e^{-s_i f(x_i)}) + \tfrac12\lVert f\rVert_{\mathcal H}^2`
    over :math:`f(x) = \sum_i a_i \exp(-\gamma\lVert x_i - x\rVert^2) + b` exactly (to
    ``tol``) with L-BFGS on the pivoted-Cholesky factor of the kernel matrix (see the
    module docstring).  Several classes: multinomial (softmax) KLR.

    Parameters
    ----------
    gamma : float or "scale", default="scale"
        RBF width γ in exp(−γ‖x − x′‖²).  "scale" = 1 / (n_features · Var(X)) as in
        :class:`sklearn.svm.SVC`.  The paper min–max scales the features to [0, 1]
        and picks γ ∈ {2⁻⁴, 2⁻², 2⁰, 2², 2⁴, 2⁶} on a validation split.
    C : float, default=1.0
        Inverse penalty strength (multiplies the data term); C → ∞ is the paper's
        unpenalised eq. (34).
    fit_intercept : bool, default=True
        Add an unpenalised intercept b (the paper has none).
    tol : float, default=1e-9
        L-BFGS stops when every gradient component of the objective *divided by*
        C·Σw (i.e. of the mean loss + penalty / (C·Σw)) is below ``tol``.
    max_iter : int, default=1000
        Maximum L-BFGS iterations (a :class:`~sklearn.exceptions.ConvergenceWarning`
        is issued when reached).
    nystroem : int or None, default=None
        None: the exact kernel (the n × n kernel matrix is formed; fine up to n of a
        few thousand).  An integer m: :class:`~sklearn.kernel_approximation.Nystroem`
        with m components (random landmarks) and the same penalised logistic model on
        those features — O(n·m) memory.
    rank_tol : float, default=1e-10
        Pivoted-Cholesky tolerance: the factor stops when the largest remaining
        diagonal pivot of K is ≤ ``rank_tol`` (so ‖K − ΦΦᵀ‖_max ≤ rank_tol).
    random_state : int, RandomState or None
        Only used by the Nyström landmarks.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    gamma_ : float
        The γ used.
    X_fit_ : ndarray of shape (r, n_features)
        The pivot (support) points I of the reduced representer form (exact mode).
    support_ : ndarray of shape (r,)
        Their indices in the training data (exact mode).
    dual_coef_ : ndarray of shape (r,) or (r, n_classes)
        The representer coefficients a_I (exact mode).
    coef_ : ndarray of shape (m,) or (m, n_classes)
        Weights on the Nyström features (``nystroem`` mode).
    nystroem_ : Nystroem
        The fitted feature map (``nystroem`` mode).
    intercept_ : float or ndarray of shape (n_classes,)
    rank_ : int
        r, the number of basis functions used.
    n_iter_ : int
        L-BFGS iterations.

    Examples
    --------
    >>> from sklearn.datasets import make_moons
    >>> X, y = make_moons(200, noise=0.2, random_state=0)
    >>> clf = KernelLogisticRegression(gamma=2.0, C=10.0).fit(X, y)
    >>> clf.score(X, y) > 0.95
    True
    >>> clf.predict_proba(X[:2]).round(3)
    array([[0.987, 0.013],
           [0.013, 0.987]])
    """

    _parameter_constraints: dict = {
        "gamma": [Interval(Real, 0, None, closed="neither"), StrOptions({"scale"})],
        "C": [Interval(Real, 0, None, closed="neither")],
        "fit_intercept": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "nystroem": [Interval(Integral, 1, None, closed="left"), None],
        "rank_tol": [Interval(Real, 0, None, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        *,
        gamma: float | str = "scale",
        C: float = 1.0,
        fit_intercept: bool = True,
        tol: float = 1e-9,
        max_iter: int = 1000,
        nystroem: int | None = None,
        rank_tol: float = 1e-10,
        random_state: Any = None,
    ) -> None:
        self.gamma = gamma
        self.C = C
        self.fit_intercept = fit_intercept
        self.tol = tol
        self.max_iter = max_iter
        self.nystroem = nystroem
        self.rank_tol = rank_tol
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X: Any, y: Any, sample_weight: Any = None) -> "KernelLogisticRegression":
        """Fit on (X, y) with optional sample weights (zero weights drop the rows)."""
        self._validate_params()
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64)
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        n_classes = self.classes_.size
        if n_classes < 2:
            raise InvalidInputError(
                f"y has only one class ({self.classes_[0]!r}); kernel logistic "
                "regression needs samples of at least 2 classes"
            )
        sw = check_sample_weight(sample_weight, X.shape[0])
        if sw is None:
            sw = np.ones(X.shape[0])
        keep = np.flatnonzero(sw > 0)
        if keep.size < X.shape[0]:
            X, codes, sw = X[keep], codes[keep], sw[keep]
        if np.unique(codes).size < 2:
            raise InvalidInputError("the samples with positive weight have only one class")
        self.gamma_ = _resolve_gamma(self.gamma, X, sw)

        for attr in ("X_fit_", "support_", "dual_coef_", "coef_", "nystroem_"):
            self.__dict__.pop(attr, None)
        if self.nystroem is None:
            with _blas_for(float(X.shape[0]) ** 2 * X.shape[1]):
                K = rbf_kernel(X, gamma=self.gamma_)
            with _single_threaded_blas():
                phi, pivots, L_II = _pivoted_cholesky_features(K, self.rank_tol)
            del K
        else:
            self.nystroem_ = Nystroem(
                gamma=self.gamma_,
                n_components=min(int(self.nystroem), X.shape[0]),
                random_state=self.random_state,
            ).fit(X)
            phi = self.nystroem_.transform(X)

        # matrix-vector products are memory-bound: single-threaded BLAS is as fast on an
        # idle machine and 10-50x faster than 2 threads on a busy one (measured with
        # benchmarks/bench_learn.py on the shared 2-core machine)
        with _single_threaded_blas():
            beta, intercept, res = _fit_penalised_logistic(
                phi, codes, n_classes, sw, float(self.C), self.fit_intercept, float(self.tol),
                int(self.max_iter),
            )
        if res.status == 1:  # iteration limit
            warnings.warn(
                f"L-BFGS did not converge in {self.max_iter} iterations; increase max_iter",
                ConvergenceWarning,
                stacklevel=2,
            )
        self.n_iter_ = int(res.nit)
        self.rank_ = int(phi.shape[1])
        squeeze = n_classes == 2
        if self.nystroem is None:
            a = solve_triangular(L_II, beta, trans="T", lower=True, check_finite=False)
            self.support_ = keep[pivots]
            self.X_fit_ = X[pivots]
            self.dual_coef_ = a[:, 0] if squeeze else a
        else:
            self.coef_ = beta[:, 0] if squeeze else beta
        self.intercept_ = float(intercept[0]) if squeeze else intercept
        return self

    def _raw(self, X: np.ndarray) -> np.ndarray:
        if hasattr(self, "nystroem_"):
            return self.nystroem_.transform(X) @ self.coef_ + self.intercept_
        r = max(self.X_fit_.shape[0], 1)
        rows = max(1, _CHUNK_ELEMENTS // r)
        out = np.empty((X.shape[0],) + np.shape(self.dual_coef_)[1:])
        with _blas_for(float(min(rows, X.shape[0])) * r * X.shape[1]):
            for start in range(0, X.shape[0], rows):
                block = rbf_kernel(X[start:start + rows], self.X_fit_, gamma=self.gamma_)
                out[start:start + rows] = block @ self.dual_coef_
        return out + self.intercept_

    def decision_function(self, X: Any) -> np.ndarray:
        """f(x): the logit of the positive class (binary), or one score per class."""
        check_is_fitted(self, "classes_")
        X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, reset=False)
        return self._raw(X)

    def predict_proba(self, X: Any) -> np.ndarray:
        """η̂(x) = 1 / (1 + exp(−f(x))) (eq. 35); softmax for several classes."""
        f = self.decision_function(X)
        if f.ndim == 1:
            pos = expit(f)
            return np.column_stack((1.0 - pos, pos))
        return softmax(f, axis=1)

    def predict_log_proba(self, X: Any) -> np.ndarray:
        f = self.decision_function(X)
        if f.ndim == 1:
            return np.column_stack((log_expit(-f), log_expit(f)))
        return f - logsumexp(f, axis=1, keepdims=True)

    def predict(self, X: Any) -> np.ndarray:
        """The class of largest posterior (threshold 1/2 in the binary case)."""
        f = self.decision_function(X)
        idx = (f > 0).astype(np.intp) if f.ndim == 1 else np.argmax(f, axis=1)
        return self.classes_[idx]
