"""Kernel logistic regression: exactness, optimality conditions, scikit-learn API."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy.special import expit, log_expit, logsumexp
from sklearn.datasets import make_classification
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LogisticRegression
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler
from sklearn.utils.estimator_checks import parametrize_with_checks

from beyondchance import InvalidInputError
from beyondchance.learn import KernelLogisticRegression


@parametrize_with_checks(
    [KernelLogisticRegression(), KernelLogisticRegression(gamma=0.5, C=10.0, nystroem=40, random_state=0)]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


def eigen_features(X, gamma):
    """An independent exact factor of K: Φ = V Λ^½ from the eigendecomposition."""
    lam, V = np.linalg.eigh(rbf_kernel(X, gamma=gamma))
    keep = lam > lam.max() * 1e-12
    return V[:, keep] * np.sqrt(lam[keep])


def objective(model, X, y, w, C):
    """C Σ w ℓ + ½ aᵀ K a of a fitted model, from its reduced representer form."""
    F = model.decision_function(X)
    Ks = rbf_kernel(model.X_fit_, gamma=model.gamma_)
    a = model.dual_coef_
    penalty = float(np.sum(a * (Ks @ a)))
    if F.ndim == 1:
        loss = -np.sum(w * log_expit(np.where(y == model.classes_[1], 1.0, -1.0) * F))
    else:
        codes = np.searchsorted(model.classes_, y)
        loss = np.sum(w * (logsumexp(F, axis=1) - F[np.arange(len(y)), codes]))
    return C * loss + 0.5 * penalty


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("gamma,C", [(0.05, 1.0), (0.5, 10.0), (5.0, 0.3)])
def test_matches_sklearn_logistic_regression_on_exact_features(n_classes, gamma, C):
    """With K = ΦΦᵀ (any exact factor) KLR is L2 logistic regression on Φ — scikit-learn's
    LogisticRegression minimises the same C·Σwℓ + ½‖β‖².  Probabilities agree to 1e-5
    (both solvers stop at a gradient tolerance; the function is flat in the directions
    of K's tiny eigenvalues), and our objective is not larger than scikit-learn's."""
    X, y = make_classification(250, 5, n_informative=3, n_classes=n_classes, random_state=1)
    w = np.random.default_rng(0).uniform(0.2, 2.0, size=y.size)
    phi = eigen_features(X, gamma)
    ref = LogisticRegression(C=C, tol=1e-12, max_iter=100_000).fit(phi, y, sample_weight=w)
    klr = KernelLogisticRegression(gamma=gamma, C=C).fit(X, y, sample_weight=w)
    np.testing.assert_allclose(klr.predict_proba(X), ref.predict_proba(phi), atol=1e-5)
    B = ref.coef_
    F_ref = ref.decision_function(phi)
    if n_classes == 2:
        j_ref = C * -np.sum(w * log_expit(np.where(y == 1, 1.0, -1.0) * F_ref)) + 0.5 * np.sum(B**2)
    else:
        j_ref = C * np.sum(w * (logsumexp(F_ref, axis=1) - F_ref[np.arange(y.size), y])) + 0.5 * np.sum(B**2)
    assert objective(klr, X, y, w, C) <= j_ref * (1 + 1e-9)


def test_representer_optimality_conditions():
    """At the optimum of C Σ w ℓ(f(x_i)) + ½‖f‖²_H the full representer coefficients are
    a_i = −C w_i (σ(f(x_i)) − y_i) and Σ w_i (σ(f(x_i)) − y_i) = 0 (intercept):
    f(x) = Σ_i a_i k(x_i, x) + b must hold at every point, training or not."""
    X, y = make_classification(300, 4, random_state=3)
    w = np.random.default_rng(1).uniform(0.5, 1.5, size=y.size)
    C = 2.0
    klr = KernelLogisticRegression(gamma=0.7, C=C, tol=1e-12).fit(X, y, sample_weight=w)
    f = klr.decision_function(X)
    r = w * (expit(f) - y)
    a_full = -C * r
    assert abs(r.sum()) < 1e-8 * w.sum()
    X_new = np.random.default_rng(2).normal(size=(50, 4))
    for Z in (X, X_new):
        rhs = rbf_kernel(Z, X, gamma=0.7) @ a_full + klr.intercept_
        np.testing.assert_allclose(klr.decision_function(Z), rhs, atol=1e-6)


def test_reduced_rank_for_duplicates_and_smooth_kernels():
    X, y = make_classification(200, 3, n_redundant=0, random_state=0)
    Xd, yd = np.vstack([X, X]), np.concatenate([y, y])
    a = KernelLogisticRegression(gamma=1.0, C=1.0).fit(Xd, yd)
    b = KernelLogisticRegression(gamma=1.0, C=1.0).fit(X, y, sample_weight=np.full(200, 2.0))
    assert a.rank_ <= 200
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(X), atol=1e-7)
    small = KernelLogisticRegression(gamma=1e-3).fit(X, y)
    assert small.rank_ < 50  # a very smooth kernel is numerically low-rank


def test_nystroem_with_all_landmarks_is_exact():
    X, y = make_classification(150, 4, random_state=5)
    exact = KernelLogisticRegression(gamma=0.3, C=5.0).fit(X, y)
    ny = KernelLogisticRegression(gamma=0.3, C=5.0, nystroem=150, random_state=0).fit(X, y)
    np.testing.assert_allclose(ny.predict_proba(X), exact.predict_proba(X), atol=1e-5)
    assert hasattr(ny, "nystroem_") and not hasattr(ny, "dual_coef_")
    approx = KernelLogisticRegression(gamma=0.3, C=5.0, nystroem=30, random_state=0).fit(X, y)
    assert approx.coef_.shape == (30,)
    assert np.mean(approx.predict(X) == exact.predict(X)) > 0.9


def test_large_C_approaches_the_papers_unpenalised_likelihood():
    """C → ∞ is eq. (34) (no penalty): on separable data the training log-likelihood
    keeps improving as C grows."""
    X, y = make_classification(120, 2, n_redundant=0, class_sep=2.0, random_state=0)
    losses = []
    for C in (0.1, 1.0, 10.0, 100.0):
        m = KernelLogisticRegression(gamma=1.0, C=C, max_iter=5000).fit(X, y)
        losses.append(-np.sum(log_expit(np.where(y == 1, 1.0, -1.0) * m.decision_function(X))))
    assert all(b < a for a, b in zip(losses, losses[1:]))


def test_probabilities_and_predictions():
    X, y = make_classification(200, 5, n_informative=3, n_classes=3, random_state=0)
    labels = np.array(["a", "b", "c"])[y]
    m = KernelLogisticRegression(gamma=0.5).fit(X, labels)
    P = m.predict_proba(X)
    np.testing.assert_allclose(P.sum(axis=1), 1.0)
    np.testing.assert_array_equal(m.predict(X), m.classes_[np.argmax(P, axis=1)])
    np.testing.assert_allclose(np.exp(m.predict_log_proba(X)), P)
    Xb, yb = make_classification(200, 4, random_state=0)
    mb = KernelLogisticRegression(gamma=0.5).fit(Xb, yb)
    np.testing.assert_array_equal(mb.predict(Xb), (mb.predict_proba(Xb)[:, 1] > 0.5).astype(int))
    np.testing.assert_allclose(mb.predict_proba(Xb)[:, 1], expit(mb.decision_function(Xb)))


def test_gamma_scale_is_weighted_like_svc():
    X, y = make_classification(100, 4, random_state=0)
    m = KernelLogisticRegression().fit(X, y)
    assert m.gamma_ == pytest.approx(1 / (X.shape[1] * X.var()))
    k = np.random.default_rng(0).integers(1, 4, size=100)
    mw = KernelLogisticRegression().fit(X, y, sample_weight=k)
    assert mw.gamma_ == pytest.approx(1 / (X.shape[1] * np.repeat(X, k, axis=0).var()))


def test_in_pipeline_and_grid_search():
    X, y = make_classification(300, 5, random_state=0)
    search = GridSearchCV(make_pipeline(MinMaxScaler(), KernelLogisticRegression()),
                          {"kernellogisticregression__gamma": [0.25, 1.0, 4.0]}, cv=3).fit(X, y)
    assert search.best_score_ > 0.8


def test_convergence_warning():
    X, y = make_classification(200, 4, random_state=0)
    with pytest.warns(ConvergenceWarning):
        KernelLogisticRegression(gamma=0.5, C=100.0, max_iter=2).fit(X, y)


def test_bad_input():
    X, y = make_classification(50, 3, n_informative=2, n_redundant=0, random_state=0)
    with pytest.raises(InvalidInputError, match="only one class"):
        KernelLogisticRegression().fit(X, np.zeros(50, int))
    with pytest.raises(InvalidInputError, match="one class"):
        w = (y == 1).astype(float)
        KernelLogisticRegression().fit(X, y, sample_weight=w)
    with pytest.raises(InvalidInputError, match="negative"):
        KernelLogisticRegression().fit(X, y, sample_weight=-np.ones(50))
    with pytest.raises(ValueError, match="gamma"):
        KernelLogisticRegression(gamma=0.0).fit(X, y)
    with pytest.raises(ValueError, match="C"):
        KernelLogisticRegression(C=-1.0).fit(X, y)
    Xn = X.copy()
    Xn[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        KernelLogisticRegression().fit(Xn, y)
    with pytest.raises(ValueError, match="continuous"):
        KernelLogisticRegression().fit(X, np.linspace(0, 1, 50))
    m = KernelLogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        m.predict(X[:, :2])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        KernelLogisticRegression().fit(X, y)  # converges silently
