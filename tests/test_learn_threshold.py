"""The plug-in threshold strategies and the PluginThresholdClassifier meta-estimator."""

from __future__ import annotations

import math
import sys
import time
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn.base import BaseEstimator, ClassifierMixin, clone
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import (
    accuracy_score,
    balanced_accuracy_score,
    cohen_kappa_score,
    f1_score,
    make_scorer,
)
from sklearn.model_selection import (
    GridSearchCV,
    TunedThresholdClassifierCV,
    cross_validate,
    train_test_split,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import MinMaxScaler, StandardScaler
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from beyondchance import InvalidInputError, pure_accuracy
from beyondchance.datasets import KEEL_DATASETS, load_keel
from beyondchance.learn import (
    STRATEGIES,
    KernelLogisticRegression,
    PluginThresholdClassifier,
    choose_threshold,
    tau_interval_iterations,
)
from beyondchance.measures.pure_accuracy import pure_accuracy_optimal_threshold

sys.path.insert(0, str(Path(__file__).parent))
from test_theorem1 import gaussian_model  # noqa: E402


def kappa(y, pred, w=None):
    """Pure accuracy of binary labels = Cohen's κ (scikit-learn, independent code)."""
    return cohen_kappa_score(y, pred, sample_weight=w)


# --- scikit-learn's estimator checks ------------------------------------------------------

_THRESHOLD_NOT_HALF = (
    "predict applies the tuned threshold, so it need not equal argmax(predict_proba) "
    "(scikit-learn marks the same check xfail for TunedThresholdClassifierCV)"
)


def _expected_failures(est):
    """The checks that fail for ``est``: marked xfail, each is run and fails. (Were also
    marked: check_classifiers_train of the logistic regression's default strategy and
    check_methods_subset_invariance of s2; both pass, so they run as plain checks.)"""
    if est.strategy == "s2":
        return {"check_classifiers_train": _THRESHOLD_NOT_HALF}
    return {}


@parametrize_with_checks(
    [
        # (check_sample_weight_equivalence sets ``cv`` to explicit splits, so the
        # cross-fitting path is checked too)
        PluginThresholdClassifier(LogisticRegression()),
        PluginThresholdClassifier(LinearSVC(), strategy="s2"),
    ],
    expected_failed_checks=_expected_failures,
)
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(estimator)


# --- the strategies against brute force ----------------------------------------------------

@st.composite
def validation_splits(draw):
    n = draw(st.integers(4, 60))
    y = np.array(draw(st.lists(st.integers(0, 1), min_size=n, max_size=n)))
    assume(0 < y.sum() < n)
    levels = draw(st.integers(2, 12))
    s = np.array(draw(st.lists(st.integers(0, levels), min_size=n, max_size=n))) / levels
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0.1, 4), min_size=n, max_size=n)))
    return y, s, w


@settings(max_examples=30, deadline=None)
@given(validation_splits())
def test_s2_and_grid_are_exhaustive(split):
    y, s, w = split
    lowest = 0.0 if s.min() > 0 else np.nextafter(0.0, -1.0)
    s2_candidates = np.concatenate(([lowest], np.unique(s)))  # every distinct classifier
    for strategy, candidates in (("s2", s2_candidates), ("grid", np.linspace(0, 1, 11))):
        r = choose_threshold(y, s, strategy=strategy, n_thresholds=11, sample_weight=w)
        values = np.array([kappa(y, (s > t).astype(int), w) for t in candidates])
        assert r.objective_value == pytest.approx(values.max(), abs=1e-12)
        assert r.threshold == candidates[int(np.argmax(values >= values.max() - 1e-12))]
        assert r.n_evaluations == candidates.size and r.n_iter is None
        # F1 with scikit-learn's f1_score
        rf = choose_threshold(y, s, strategy=strategy, objective="f1", n_thresholds=11, sample_weight=w)
        f1s = np.array([f1_score(y, (s > t).astype(int), sample_weight=w, zero_division=0) for t in candidates])
        assert rf.objective_value == pytest.approx(f1s.max(), abs=1e-12)


@settings(max_examples=40, deadline=None)
@given(validation_splits())
def test_fixed_and_p_cut(split):
    y, s, w = split
    ww = np.ones(y.size) if w is None else w
    r = choose_threshold(y, s, strategy="p-cut", sample_weight=w)
    assert r.threshold == pytest.approx(np.sum(ww * y) / ww.sum(), abs=1e-12)
    assert r.objective_value == pytest.approx(kappa(y, (s > r.threshold).astype(int), w), abs=1e-12)
    r = choose_threshold(y, s, strategy="fixed-0.5", objective="accuracy", sample_weight=w)
    assert r.threshold == 0.5
    assert r.objective_value == pytest.approx(accuracy_score(y, s > 0.5, sample_weight=w), abs=1e-12)


def algorithm2_transcribed(y, s, tau, eps):
    """The paper's Algorithm 2 box, line by line; PL = (1 − A)/(1 − RA) (Definition 3)."""
    p = np.mean(y)

    def pl(r):
        h = s > 0.5 - (0.5 - p) * r
        q = h.mean()
        return (1 - np.mean(h == y)) / (1 - (p * q + (1 - p) * (1 - q)))

    alpha, beta, t = 0.0, 1.0, 0
    lam, mu = alpha + tau * (beta - alpha), beta - tau * (beta - alpha)
    pl_lam, pl_mu = pl(lam), pl(mu)
    delta = None
    while beta - alpha > eps:
        if pl_lam <= pl_mu:
            beta = mu
        else:
            alpha = lam
        lam, mu = alpha + tau * (beta - alpha), beta - tau * (beta - alpha)
        pl_lam, pl_mu = pl(lam), pl(mu)
        t += 1
        delta = 0.5 - (0.5 - p) * lam
    return delta, t


@settings(max_examples=30, deadline=None)
@given(validation_splits(), st.sampled_from([0.1, 0.2, 0.3, 0.382, 0.4, 0.49]), st.sampled_from([1e-2, 1e-4]))
def test_tau_interval_is_algorithm2(split, tau, eps):
    y, s, _ = split
    r = choose_threshold(y, s, strategy="tau-interval", tau=tau, eps=eps)
    delta, t = algorithm2_transcribed(y, s, tau, eps)
    assert r.threshold == pytest.approx(delta, abs=1e-12)
    assert r.n_iter == t


@settings(max_examples=200, deadline=None)
@given(st.floats(0.01, 0.499), st.floats(1e-7, 0.5))
def test_tau_interval_iteration_count(tau, eps):
    """Each step keeps a fraction 1 − τ of the interval: ⌈log ε / log(1 − τ)⌉ steps."""
    ratio = math.log(eps) / math.log1p(-tau)
    assume(abs(ratio - round(ratio)) > 1e-9)  # rounding of (1 − τ)^t at an exact integer
    r = choose_threshold([0, 1, 0, 1, 0], [0.1, 0.9, 0.3, 0.6, 0.2], strategy="tau-interval", tau=tau, eps=eps)
    assert r.n_iter == math.ceil(ratio) == tau_interval_iterations(tau, eps)


def calibrated_split(rng, k):
    """A weighted S₂ on which η̂ is perfectly calibrated: at each score s, positive
    weight m·s and negative weight m·(1 − s)."""
    s = np.unique(np.round(rng.uniform(0, 1, size=k), 3))
    m = rng.uniform(0.2, 3, size=s.size)
    scores = np.concatenate([s, s])
    y = np.concatenate([np.ones(s.size, int), np.zeros(s.size, int)])
    w = np.concatenate([m * s, m * (1 - s)])
    keep = w > 0
    return y[keep], scores[keep], w[keep]


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 10**6), st.integers(3, 40), st.sampled_from(["bisection-pa", "bisection-f1"]))
def test_bisection_matches_exhaustive_search_when_calibrated(seed, k, strategy):
    """Narasimhan et al.'s bisection assumes the plug-in rule at ρ(v) minimises the
    linearised loss — true when η̂ is calibrated on S₂.  Then it finds the S₂ optimum
    to within ε in value."""
    y, s, w = calibrated_split(np.random.default_rng(seed), k)
    assume(0 < np.sum(w * y) < np.sum(w))
    objective = "pure_accuracy" if strategy == "bisection-pa" else "f1"
    eps = 1e-6
    b = choose_threshold(y, s, strategy=strategy, objective=objective, sample_weight=w, eps=eps)
    e = choose_threshold(y, s, strategy="s2", objective=objective, sample_weight=w)
    assert -1e-12 <= e.objective_value - b.objective_value <= eps
    assert b.n_iter == math.ceil(math.log2(1 / eps))


def test_bisection_generic_objectives():
    rng = np.random.default_rng(3)
    y, s, w = calibrated_split(rng, 30)
    for objective in ("balanced_accuracy", "accuracy", "prediction_advantage", "informedness", "kappa"):
        b = choose_threshold(y, s, strategy="bisection", objective=objective, sample_weight=w, eps=1e-8)
        e = choose_threshold(y, s, strategy="s2", objective=objective, sample_weight=w)
        assert 0 <= e.objective_value - b.objective_value <= 1e-8
    # ρ(v) = p for balanced accuracy (Menon et al.: the p-cut)
    p = np.sum(w * y) / w.sum()
    assert choose_threshold(y, s, strategy="bisection", objective="balanced_accuracy",
                            sample_weight=w).threshold == pytest.approx(p)


# --- Theorem 1: plug-in thresholds converge to δ* ---------------------------------------------

def test_plugin_threshold_converges_to_theorem1_delta():
    """True η of SPEC §2's Gaussian model as the "estimator": the S₂ threshold of s2 and
    tau-interval approaches δ* as n grows.  The pure accuracy is flat around its
    maximum, so the threshold converges slowly (≈ n^(−1/3)); measured mean |δ̂ − δ*|
    over 6-10 seeds ≈ 0.045 at n = 10³ and ≈ 0.006 at n = 10⁶.  Tolerances: mean error
    ≤ 0.015 and max ≤ 0.035 at n = 10⁶, at least 3× smaller than at n = 10³, and
    population regret PA* − PA(δ̂) ≤ 1e-3."""
    p, mu1, mu2 = 0.2, -1.0, 1.0
    eta, density = gaussian_model(p, mu1, mu2)
    x = np.linspace(-12, 12, 200_001)
    wq = density(x) * (x[1] - x[0])
    ex = eta(x)
    star = pure_accuracy_optimal_threshold(ex, sample_weight=wq)

    def population_pa(delta):
        pos = ex > delta
        tp, fp = np.sum(wq * ex * pos), np.sum(wq * (1 - ex) * pos)
        fn, tn = np.sum(wq * ex * ~pos), np.sum(wq * (1 - ex) * ~pos)
        q, pp = tp + fp, tp + fn
        ra = pp * q + (1 - pp) * (1 - q)
        return (tp + tn - ra) / (1 - ra)

    strategies = ("s2", "tau-interval")
    errors = {(st_, n): [] for st_ in strategies for n in (1_000, 1_000_000)}
    regret = {st_: [] for st_ in strategies}
    for n in (1_000, 1_000_000):
        for seed in range(6):
            rng = np.random.default_rng(seed)
            y = rng.random(n) < p
            xs = rng.standard_normal(n) + np.where(y, mu1, mu2)
            eta_s = eta(xs)
            for strategy in strategies:
                r = choose_threshold(y.astype(np.int8), eta_s, strategy=strategy)
                errors[strategy, n].append(abs(r.threshold - star.threshold))
                if n == 1_000_000:
                    regret[strategy].append(star.pure_accuracy - population_pa(r.threshold))
    for strategy in strategies:
        big, small = np.array(errors[strategy, 1_000_000]), np.array(errors[strategy, 1_000])
        assert big.mean() <= 0.015, strategy
        assert big.max() <= 0.035, strategy
        assert big.mean() * 3 <= small.mean(), strategy
        assert max(regret[strategy]) <= 1e-3, strategy


# --- the meta-estimator ---------------------------------------------------------------------

@pytest.fixture(scope="module")
def data():
    X, y = make_classification(800, n_features=6, weights=[0.8], flip_y=0.05, random_state=0)
    return X, y


def test_fit_uses_s1_and_chooses_on_s2(data):
    X, y = data
    clf = PluginThresholdClassifier(LogisticRegression(), strategy="s2", random_state=1).fit(X, y)
    idx1, idx2 = train_test_split(np.arange(len(y)), test_size=0.2, stratify=y, random_state=1)
    est = LogisticRegression().fit(X[idx1], y[idx1])
    np.testing.assert_allclose(clf.predict_proba(X), est.predict_proba(X))
    r = choose_threshold(y[idx2], est.predict_proba(X[idx2])[:, 1], strategy="s2")
    assert clf.threshold_ == r.threshold and clf.objective_value_ == r.objective_value
    assert clf.prevalence_ == pytest.approx(y[idx2].mean())
    np.testing.assert_array_equal(clf.predict(X), (est.predict_proba(X)[:, 1] > r.threshold).astype(int))
    np.testing.assert_allclose(clf.decision_function(X), est.predict_proba(X)[:, 1] - r.threshold)
    assert clf.n_iter_ is None
    assert list(clf.classes_) == [0, 1]


def test_explicit_validation_set_and_prefit(data):
    X, y = data
    X1, X2, y1, y2 = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    a = PluginThresholdClassifier(LogisticRegression()).fit(X1, y1, X_val=X2, y_val=y2)
    est = LogisticRegression().fit(X1, y1)
    b = PluginThresholdClassifier(est, cv="prefit").fit(X2, y2)
    assert a.threshold_ == pytest.approx(b.threshold_, abs=1e-12)
    assert a.n_iter_ == b.n_iter_ == tau_interval_iterations(0.382, 1e-4)
    assert b.estimator_ is est


def test_cross_fitting_cv(data):
    X, y = data
    clf = PluginThresholdClassifier(LogisticRegression(), cv=4, strategy="grid").fit(X, y)
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    oof = cross_val_predict(LogisticRegression(), X, y, cv=StratifiedKFold(4), method="predict_proba")[:, 1]
    r = choose_threshold(y, oof, strategy="grid")
    assert clf.threshold_ == pytest.approx(r.threshold)
    np.testing.assert_allclose(clf.predict_proba(X), LogisticRegression().fit(X, y).predict_proba(X))
    with pytest.raises(InvalidInputError, match="refit"):
        PluginThresholdClassifier(LogisticRegression(), cv=3, refit=False).fit(X, y)


def test_refit_on_all_data(data):
    X, y = data
    clf = PluginThresholdClassifier(LogisticRegression(), refit=True, random_state=0).fit(X, y)
    np.testing.assert_allclose(clf.predict_proba(X), LogisticRegression().fit(X, y).predict_proba(X))


def test_against_tuned_threshold_classifier_cv(data):
    """Same fitted estimator, same S₂, same scorer => the same best value.  Thresholds:
    scikit-learn predicts positive iff score ≥ t, we iff score > t; on a grid that no
    score hits the two rules coincide, so best values agree to 1e-12 and the thresholds
    exactly.  On the S₂ scores as candidates the two families of classifiers are the
    same up to the two constant ones (κ = 0), so the best values agree to 1e-12."""
    X, y = data
    X1, X2, y1, y2 = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    est = LogisticRegression().fit(X1, y1)
    scores = est.predict_proba(X2)[:, 1]
    grid = np.linspace(0, 1, 101)
    assert not np.isin(scores, grid).any()
    scorer = make_scorer(cohen_kappa_score)
    tuned = TunedThresholdClassifierCV(est, scoring=scorer, cv="prefit", refit=False,
                                       thresholds=grid).fit(X2, y2)
    for objective in (scorer, "pure_accuracy", "kappa"):
        ours = PluginThresholdClassifier(est, strategy="grid", objective=objective, cv="prefit").fit(X2, y2)
        assert ours.objective_value_ == pytest.approx(tuned.best_score_, abs=1e-12)
        assert ours.threshold_ == pytest.approx(tuned.best_threshold_, abs=1e-12)
    tuned_s2 = TunedThresholdClassifierCV(est, scoring=scorer, cv="prefit", refit=False,
                                          thresholds=np.unique(scores)).fit(X2, y2)
    ours = PluginThresholdClassifier(est, strategy="s2", cv="prefit").fit(X2, y2)
    assert ours.objective_value_ == pytest.approx(tuned_s2.best_score_, abs=1e-12)
    # F1 with scikit-learn's scorer name
    tuned_f1 = TunedThresholdClassifierCV(est, scoring="f1", cv="prefit", refit=False,
                                          thresholds=grid).fit(X2, y2)
    ours = PluginThresholdClassifier(est, strategy="grid", objective="f1", cv="prefit").fit(X2, y2)
    assert ours.objective_value_ == pytest.approx(tuned_f1.best_score_, abs=1e-12)


def test_objectives_scorers_and_callables(data):
    X, y = data
    X1, X2, y1, y2 = train_test_split(X, y, test_size=0.3, random_state=0, stratify=y)
    est = LogisticRegression().fit(X1, y1)
    w = np.random.default_rng(0).uniform(0.5, 2, size=y2.size)

    def fit(objective, strategy="s2"):
        return PluginThresholdClassifier(est, strategy=strategy, objective=objective,
                                         cv="prefit").fit(X2, y2, sample_weight=w)

    a = fit("balanced_accuracy")
    b = fit(make_scorer(balanced_accuracy_score))
    c = fit(balanced_accuracy_score)  # metric callable, gets sample_weight
    assert a.objective_value_ == pytest.approx(b.objective_value_, abs=1e-12)
    assert a.objective_value_ == pytest.approx(c.objective_value_, abs=1e-12)
    assert a.threshold_ == b.threshold_ == c.threshold_
    # lower-is-better metrics are minimised
    err, acc = fit("error"), fit("accuracy")
    assert err.threshold_ == acc.threshold_
    assert err.objective_value_ == pytest.approx(1 - acc.objective_value_)
    # any strategy reports the objective's value at its threshold
    t = fit("prediction_advantage", strategy="tau-interval")
    labels = (est.predict_proba(X2)[:, 1] > t.threshold_).astype(int)
    err_rate = np.sum(w * (labels != y2)) / w.sum()
    p = np.sum(w * y2) / w.sum()
    assert t.objective_value_ == pytest.approx(1 - err_rate / min(p, 1 - p), abs=1e-12)


def test_decision_function_estimators(data):
    X, y = data
    clf = PluginThresholdClassifier(LinearSVC(), random_state=0).fit(X, y)
    assert clf.score_method_ == "sigmoid(decision_function)"
    s = 1 / (1 + np.exp(-clf.estimator_.decision_function(X)))
    np.testing.assert_array_equal(clf.predict(X), (s > clf.threshold_).astype(int))
    np.testing.assert_allclose(clf.predict_proba(X)[:, 1], s)
    fixed = PluginThresholdClassifier(LinearSVC(), strategy="fixed-0.5", random_state=0).fit(X, y)
    np.testing.assert_array_equal(fixed.predict(X), fixed.estimator_.predict(X))


def test_string_labels_and_pos_label(data):
    X, y = data
    ys = np.where(y == 1, "rare", "common")
    a = PluginThresholdClassifier(LogisticRegression(), pos_label="rare", random_state=0).fit(X, ys)
    b = PluginThresholdClassifier(LogisticRegression(), random_state=0).fit(X, y)
    assert a.threshold_ == pytest.approx(b.threshold_)
    np.testing.assert_array_equal(a.predict(X) == "rare", b.predict(X) == 1)
    # pos_label = classes_[0]: decision_function > 0 still means classes_[1]
    c = PluginThresholdClassifier(LogisticRegression(), pos_label="common", random_state=0).fit(X, ys)
    np.testing.assert_array_equal(c.predict(X) == c.classes_[1], c.decision_function(X) > 0)


def test_pipeline_gridsearch_cross_validate_clone(data):
    X, y = data
    pipe = make_pipeline(StandardScaler(), PluginThresholdClassifier(KernelLogisticRegression(gamma=0.1), random_state=0))
    scorer = make_scorer(cohen_kappa_score)
    search = GridSearchCV(
        pipe,
        {"pluginthresholdclassifier__tau": [0.2, 0.382],
         "pluginthresholdclassifier__estimator__C": [0.1, 10.0]},
        scoring=scorer, cv=3,
    ).fit(X, y)
    assert search.best_estimator_[-1].threshold_ > 0
    res = cross_validate(pipe, X, y, cv=3, scoring=scorer)
    assert np.all(res["test_score"] > 0.2)
    c = clone(pipe[-1])
    assert not hasattr(c, "threshold_") and c.get_params()["tau"] == 0.382


# --- bad input ------------------------------------------------------------------------------

class _LabelsOnly(ClassifierMixin, BaseEstimator):
    def fit(self, X, y):
        self.classes_ = np.unique(y)
        return self

    def predict(self, X):
        return np.full(len(X), self.classes_[0])


def test_bad_input(data):
    X, y = data
    with pytest.raises(InvalidInputError, match="neither predict_proba nor decision_function"):
        PluginThresholdClassifier(_LabelsOnly()).fit(X, y)
    for tau in (0.0, 0.5, -0.1, 0.7):
        with pytest.raises(InvalidInputError, match="tau"):
            PluginThresholdClassifier(LogisticRegression(), tau=tau).fit(X, y)
        with pytest.raises(InvalidInputError, match="tau"):
            choose_threshold([0, 1], [0.2, 0.8], tau=tau)
    with pytest.raises(InvalidInputError, match="eps"):
        choose_threshold([0, 1], [0.2, 0.8], eps=0)
    y3 = np.arange(len(y)) % 3
    with pytest.raises(InvalidInputError, match="binary"):
        PluginThresholdClassifier(LogisticRegression()).fit(X, y3)
    with pytest.raises(InvalidInputError, match="binary"):
        choose_threshold([0, 1, 2], [0.1, 0.5, 0.9])
    # a single-class S₂
    X1, y1 = X[:400], y[:400]
    with pytest.raises(InvalidInputError, match="only one class"):
        PluginThresholdClassifier(LogisticRegression()).fit(X1, y1, X_val=X[y == 0][:50], y_val=np.zeros(50, int))
    with pytest.raises(InvalidInputError, match="only one class"):
        choose_threshold([1, 1, 1], [0.2, 0.5, 0.9])
    with pytest.raises(InvalidInputError, match="only one class"):
        choose_threshold([1, 0, 1], [0.2, 0.5, 0.9], sample_weight=[1, 0, 1])
    with pytest.raises(InvalidInputError, match="only one class"):
        PluginThresholdClassifier(LogisticRegression()).fit(X, np.zeros(len(y), int))
    with pytest.raises(InvalidInputError, match="unknown strategy"):
        choose_threshold([0, 1], [0.2, 0.8], strategy="golden")
    with pytest.raises(InvalidInputError, match="objective"):
        choose_threshold([0, 1], [0.2, 0.8], strategy="s2", objective="no_such_metric")
    with pytest.raises(InvalidInputError, match="bisection"):
        choose_threshold([0, 1], [0.2, 0.8], strategy="bisection", objective="mcc")
    with pytest.raises(InvalidInputError, match="bisection"):
        choose_threshold([0, 1], [0.2, 0.8], strategy="bisection", objective=accuracy_score)
    with pytest.raises(InvalidInputError, match=r"\[0, 1\]"):
        choose_threshold([0, 1], [-0.2, 0.8])
    with pytest.raises(InvalidInputError, match="lengths"):
        choose_threshold([0, 1, 1], [0.2, 0.8])
    with pytest.raises(InvalidInputError, match="y_val"):
        PluginThresholdClassifier(LogisticRegression()).fit(X, y, X_val=X)
    with pytest.raises(InvalidInputError, match="predict"):
        choose_threshold([0, 1, 0], [0.2, 0.8, 0.4], strategy="s2", objective="neg_log_loss")


# --- the KEEL check (SPEC §2, Tables 3–8 protocol, one split, γ = 1) ---------------------------

IMBALANCED = ("segment0", "dermatology-6", "flare-F", "winequality-red-4")


def _keel_split_scores(name, seed, C=10.0):
    d = load_keel(name)
    X_tv, X_te, y_tv, y_te = train_test_split(d.X, d.y, test_size=0.2, stratify=d.y, random_state=seed)
    est = make_pipeline(MinMaxScaler(), KernelLogisticRegression(gamma=1.0, C=C))
    # validation_size 0.25 of the 80% => train : validation : test = 3 : 1 : 1; the
    # scaler is fitted on S1 (the training split) only
    clf = PluginThresholdClassifier(est, strategy="tau-interval", validation_size=0.25, random_state=seed)
    clf.fit(X_tv, y_tv)
    # fixed-0.5 on the same KLR fit (the fit is shared by all strategies)
    eta_te = clf.predict_proba(X_te)[:, 1]
    return {
        "tau-interval": pure_accuracy(y_te, clf.predict(X_te)),
        "tau-interval δ": clf.threshold_,
        "fixed-0.5": pure_accuracy(y_te, (eta_te > 0.5).astype(int)),
    }


def test_keel_tau_interval_vs_fixed_half():
    """One 3:1:1 split (seed 0) of every bundled KEEL set but haberman; KLR with γ = 1,
    C = 10, features min–max scaled on the training split.  Prints the test pure
    accuracy of tau-interval and fixed-0.5 (run pytest -s to see it) and asserts that
    tau-interval is not worse on the four imbalanced sets."""
    t0 = time.perf_counter()
    names = [n for n in KEEL_DATASETS if n != "haberman"]
    assert len(names) == 14
    rows = {name: _keel_split_scores(name, seed=0) for name in names}
    print("\nKEEL, one 3:1:1 split (seed 0), KLR(γ=1, C=10): test pure accuracy")
    print(f"{'data set':20s} {'tau-interval':>12s} {'δ':>6s} {'fixed-0.5':>10s}")
    for name, r in rows.items():
        print(f"{name:20s} {r['tau-interval']:12.3f} {r['tau-interval δ']:6.3f} {r['fixed-0.5']:10.3f}")
    print(f"({time.perf_counter() - t0:.1f} s)")
    for name in IMBALANCED:
        assert rows[name]["tau-interval"] >= rows[name]["fixed-0.5"], name


def test_keel_imbalanced_mean_over_splits():
    """The single-split comparison above can go either way by chance (measured over 12
    seeds: tau-interval lower on 6 of 48 set-splits, by at most 0.027).  Over 5 splits
    the mean test pure accuracy of tau-interval is not below fixed-0.5's on each
    imbalanced set."""
    for name in IMBALANCED:
        scores = [_keel_split_scores(name, seed) for seed in range(5)]
        tau = np.mean([s["tau-interval"] for s in scores])
        fixed = np.mean([s["fixed-0.5"] for s in scores])
        assert tau >= fixed, (name, tau, fixed)


def test_strategies_constant():
    assert set(STRATEGIES) == {"fixed-0.5", "p-cut", "grid", "s2", "bisection", "bisection-f1",
                               "bisection-pa", "tau-interval"}
