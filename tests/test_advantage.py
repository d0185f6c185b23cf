"""Prediction advantage (beyondchance.measures.advantage): scikit-learn agreement, the PA paper's
worked examples, baseline sources, undefined cases, bad input and the PA–coverage curve.
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st
from sklearn import metrics as skm

from beyondchance import (
    CallableLoss,
    ConfusionMatrix,
    CostMatrixLoss,
    InvalidInputError,
    PinballLoss,
    UndefinedMeasureError,
    UndefinedMeasureWarning,
    bayes_marginal_prediction,
    get_loss,
    loss_names,
    pa_coverage_curve,
    prediction_advantage,
    PredictionAdvantageResult,
)
from beyondchance.measures import get_metric
from beyondchance.measures.losses import baseline_risk_is_zero
from beyondchance.datasets import load_keel

SK = settings(max_examples=60, deadline=None)
PROP = settings(max_examples=30, deadline=None)
TOL = dict(rel=1e-12, abs=1e-12)

FLOAT = st.floats(-100, 100, allow_nan=False, allow_subnormal=False)
WEIGHT = st.floats(0, 10, allow_nan=False, allow_subnormal=False)


# ------------------------------------------------------------------------------------
# strategies
# ------------------------------------------------------------------------------------


@st.composite
def regression(draw, max_outputs: int = 1):
    n = draw(st.integers(2, 30))
    m = draw(st.integers(1, max_outputs))
    y = np.array(draw(st.lists(FLOAT, min_size=n * m, max_size=n * m))).reshape(n, m)
    f = np.array(draw(st.lists(FLOAT, min_size=n * m, max_size=n * m))).reshape(n, m)
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(WEIGHT, min_size=n, max_size=n)))
        assume(w.sum() > 1e-2)
    keep = np.ones(n, bool) if w is None else w > 1e-3
    for j in range(m):  # a non-degenerate baseline in every output
        assume(keep.sum() >= 2 and np.ptp(y[keep, j]) > 1e-2)
    if m == 1:
        y, f = y[:, 0], f[:, 0]
    return y, f, w


@st.composite
def classification_proba(draw, binary_1d: bool = False):
    n = draw(st.integers(4, 40))
    k = 2 if binary_1d else draw(st.integers(2, 5))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    assume(len(np.unique(y)) == k)  # scikit-learn infers the classes from y_true
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(WEIGHT, min_size=n, max_size=n)))
        present = np.bincount(y, weights=w, minlength=k) > 1e-2
        assume(present.sum() >= 2)
    if binary_1d:
        proba = np.array(draw(st.lists(st.floats(0, 1), min_size=n, max_size=n)))
    else:
        raw = np.array(draw(st.lists(st.floats(0, 1), min_size=n * k, max_size=n * k))).reshape(n, k)
        sums = raw.sum(axis=1)
        assume((sums > 1e-3).all())
        proba = raw / sums[:, None]
    return y, proba, w


@st.composite
def labels_and_predictions(draw):
    n = draw(st.integers(2, 50))
    k = draw(st.integers(2, 4))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    pred = np.array(draw(st.lists(st.integers(0, k), min_size=n, max_size=n)))  # may hold k
    w = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float)
    present = np.bincount(y, weights=w) > 0
    assume(present.sum() >= 2)
    return y, pred, w


# ------------------------------------------------------------------------------------
# agreement with scikit-learn
# ------------------------------------------------------------------------------------


@SK
@given(regression())
def test_squared_is_r2_score(data):
    y, f, w = data
    assert prediction_advantage(y, f, loss="squared", sample_weight=w) == pytest.approx(
        skm.r2_score(y, f, sample_weight=w), **TOL
    )


@SK
@given(regression(max_outputs=3))
def test_squared_multi_output_is_r2_score(data):
    y, f, w = data
    for mo in ("raw_values", "uniform_average"):
        ours = prediction_advantage(y, f, loss="squared", sample_weight=w, multioutput=mo)
        np.testing.assert_allclose(ours, skm.r2_score(y, f, sample_weight=w, multioutput=mo),
                                   rtol=1e-12, atol=1e-12)
    if y.ndim == 2:
        weights = np.arange(1, y.shape[1] + 1, dtype=float)
        ours = prediction_advantage(y, f, loss="squared", sample_weight=w, multioutput=weights)
        assert ours == pytest.approx(skm.r2_score(y, f, sample_weight=w, multioutput=weights), **TOL)


@SK
@given(regression(max_outputs=2))
def test_absolute_is_d2_absolute_error_score(data):
    y, f, w = data
    ours = prediction_advantage(y, f, loss="absolute", sample_weight=w, multioutput="raw_values")
    theirs = skm.d2_absolute_error_score(y, f, sample_weight=w, multioutput="raw_values")
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


@SK
@given(regression(max_outputs=2), st.sampled_from([0.05, 0.1, 0.25, 0.5, 0.75, 0.9, 0.99]))
def test_pinball_is_d2_pinball_score(data, alpha):
    y, f, w = data
    ours = prediction_advantage(y, f, loss=PinballLoss(alpha), sample_weight=w)
    theirs = skm.d2_pinball_score(y, f, alpha=alpha, sample_weight=w)
    assume(np.isfinite(ours))  # the α-quantile baseline can be exact (risk 0) for extreme α
    assert ours == pytest.approx(theirs, **TOL)


@SK
@given(st.one_of(classification_proba(), classification_proba(binary_1d=True)))
def test_log_loss_is_d2_log_loss_score(data):
    y, proba, w = data
    ours = prediction_advantage(y, proba, loss="log_loss", sample_weight=w)
    assert ours == pytest.approx(skm.d2_log_loss_score(y, proba, sample_weight=w), **TOL)
    assert prediction_advantage(y, proba, loss="cross_entropy", sample_weight=w) == ours


@SK
@given(st.one_of(classification_proba(), classification_proba(binary_1d=True)))
def test_brier_is_d2_brier_score(data):
    y, proba, w = data
    ours = prediction_advantage(y, proba, loss="brier", sample_weight=w)
    assert ours == pytest.approx(skm.d2_brier_score(y, proba, sample_weight=w), **TOL)


def test_string_labels_and_column_order_follow_scikit_learn():
    y = np.array(["spam", "ham", "ham", "spam", "eggs"])
    proba = np.array([[0.1, 0.2, 0.7], [0.1, 0.8, 0.1], [0.3, 0.6, 0.1], [0.2, 0.2, 0.6], [0.5, 0.3, 0.2]])
    ours = prediction_advantage(y, proba, loss="log_loss")
    assert ours == pytest.approx(skm.d2_log_loss_score(y, proba), **TOL)
    # an explicit label order permutes the columns
    perm = [2, 0, 1]
    ours_perm = prediction_advantage(y, proba[:, perm], loss="log_loss", labels=["spam", "eggs", "ham"])
    assert ours_perm == pytest.approx(ours, **TOL)


# ------------------------------------------------------------------------------------
# 0/1 loss: the confusion-matrix path and the metrics registry
# ------------------------------------------------------------------------------------


@SK
@given(labels_and_predictions())
def test_zero_one_agrees_with_definition_and_registry(data):
    y, pred, w = data
    ours = prediction_advantage(y, pred, sample_weight=w)
    # the definition, by brute force
    err = w[y != pred].sum() / w.sum()
    p_max = max(w[y == c].sum() for c in np.unique(y)) / w.sum()
    assert ours == pytest.approx(1 - err / (1 - p_max), **TOL)
    # the registry entry of metrics.py (binary counts) or its native multi-class form
    cm = ConfusionMatrix.from_predictions(y, pred, sample_weight=w, pos_label=None)
    if cm.n_classes > 2:
        registry = cm.metric("prediction_advantage")
    else:
        registry = get_metric("prediction_advantage").compute(
            *ConfusionMatrix.from_predictions(y, pred, sample_weight=w, pos_label=cm.labels[-1]).binary_counts()
        )
    assert ours == pytest.approx(registry, **TOL)


def test_predicted_labels_absent_from_y_true_are_allowed():
    y = ["a", "a", "a", "b"]
    pred = ["a", "a", "zzz", "b"]  # one error, with a label that never occurs
    assert prediction_advantage(y, pred) == pytest.approx(1 - 0.25 / 0.25)
    assert prediction_advantage(y, ["a", "zzz", "zzz", "b"]) == pytest.approx(1 - 0.5 / 0.25)


# ------------------------------------------------------------------------------------
# the PA paper's worked examples
# ------------------------------------------------------------------------------------


def _graded(n_options: int, n_questions: int, grade: float):
    answers = np.arange(n_questions) % n_options
    n_right = round(grade * n_questions)
    marks = answers.copy()
    marks[n_right:] = (answers[n_right:] + 1) % n_options
    return answers, marks


def test_exam_example_section_5():
    # Bob: 3-option exam, 60% → loss 0.4, R(f0) = 2/3, PA = 0.4
    answers, marks = _graded(3, 300, 0.6)
    r = PredictionAdvantageResult.from_predictions(answers, marks)
    assert r.risk == pytest.approx(0.4, abs=1e-15)
    assert r.baseline_risk == pytest.approx(2 / 3, abs=1e-15)
    assert r.value == pytest.approx(0.4, abs=1e-15)
    # Alice: 4-option exam, 60% → R(f0) = 0.75, PA = 7/15
    answers, marks = _graded(4, 100, 0.6)
    r = PredictionAdvantageResult.from_predictions(answers, marks)
    assert r.baseline_risk == pytest.approx(0.75, abs=1e-15)
    assert r.value == pytest.approx(7 / 15, abs=1e-15)
    # grade 30: Bob is below the trivial 1/3, Alice above the trivial 1/4 (section 1)
    assert prediction_advantage(*_graded(3, 300, 0.3)) < 0 < prediction_advantage(*_graded(4, 100, 0.3))


def _with_error_rate(y: np.ndarray, rate: float):
    """Weighted sample with the class totals of y and a 0/1 error of exactly ``rate``."""
    n = y.shape[0]
    target = rate * n
    errors = math.floor(target)
    frac = target - errors
    pred = y.copy()
    pred[:errors] = 1 - y[:errors]
    i = errors  # split sample i: weight 1 − frac right, frac wrong
    yt = np.r_[y, y[i]]
    yp = np.r_[pred, 1 - y[i]]
    w = np.r_[np.ones(n), frac]
    w[i] = 1 - frac
    return yt, yp, w


# Appendix A: (reported 0/1 error, the paper's PA, decimals the paper printed)
HABERMAN = [(0.27, -0.02, 2), (0.30, -0.13, 2), (0.273, -0.0313, 4)]
HABERMAN_NEGATIVE = [0.2742, 0.266, 1 - 0.717]


def test_haberman_appendix():
    y = load_keel("haberman").y
    assert (int(y.sum()), y.shape[0]) == (81, 306)  # minority share 26.47%
    bmp = bayes_marginal_prediction(y)
    assert bmp.prediction == 0 and bmp.risk == pytest.approx(81 / 306, abs=1e-15)
    for error, paper, decimals in HABERMAN:
        yt, yp, w = _with_error_rate(y, error)
        pa = prediction_advantage(yt, yp, sample_weight=w)
        assert pa == pytest.approx(1 - error / (81 / 306), abs=1e-12)
        assert round(pa, decimals) == paper
    for error in HABERMAN_NEGATIVE:
        yt, yp, w = _with_error_rate(y, error)
        assert prediction_advantage(yt, yp, sample_weight=w) < 0


def test_haberman_rounding_of_the_paper():
    # the paper's −0.0313 for error 0.273 needs R(f0) = 81/306 unrounded: with the
    # printed 26.47% it would be −0.0314; an integer error count (83 or 84 of 306)
    # cannot give it either, so the paper divided the reported rates
    assert round(1 - 0.273 / (81 / 306), 4) == -0.0313
    assert round(1 - 0.273 / 0.2647, 4) == -0.0314
    # 0.30 → −0.13 only from the rate: the nearest count, 92 errors, gives −0.14
    y = load_keel("haberman").y
    pred = y.copy()
    pred[:92] = 1 - y[:92]
    assert round(prediction_advantage(y, pred), 2) == -0.14


# ------------------------------------------------------------------------------------
# properties
# ------------------------------------------------------------------------------------


def _bmp_prediction(loss, y, w):
    """Predictions of the BMP constant for every sample."""
    bmp = bayes_marginal_prediction(y, loss=loss, sample_weight=w)
    if loss in ("log_loss", "brier"):
        return np.tile(bmp.prediction, (len(y), 1))
    return np.full(len(y), bmp.prediction)


@PROP
@given(labels_and_predictions(), st.sampled_from(["zero_one", "log_loss", "brier", "cost"]))
def test_the_bmp_scores_zero_and_perfect_scores_one_classification(data, loss):
    y, _, w = data
    if loss == "cost":
        loss = CostMatrixLoss(np.array([[0, 3, 1, 2], [1, 0, 2, 1], [2, 2, 0, 1], [1, 1, 1, 0]]), labels=[0, 1, 2, 3])
    k = len(np.unique(y))
    y = np.searchsorted(np.unique(y), y)  # classes 0..k-1, all present
    assert prediction_advantage(y, _bmp_prediction(loss, y, w), loss=loss, sample_weight=w) == pytest.approx(0, abs=1e-12)
    perfect = np.eye(k)[y] if loss in ("log_loss", "brier") else y
    assert prediction_advantage(y, perfect, loss=loss, sample_weight=w) == pytest.approx(1, abs=1e-12)


@PROP
@given(regression(), st.sampled_from(["squared", "absolute", "pinball"]))
def test_the_bmp_scores_zero_and_perfect_scores_one_regression(data, loss):
    y, _, w = data
    lo = PinballLoss(0.8) if loss == "pinball" else loss
    pa0 = prediction_advantage(y, _bmp_prediction(lo, y, w), loss=lo, sample_weight=w)
    assume(np.isfinite(pa0))
    assert pa0 == pytest.approx(0, abs=1e-9)
    assert prediction_advantage(y, y, loss=lo, sample_weight=w) == 1.0


@PROP
@given(st.data(), st.sampled_from(["zero_one", "log_loss", "squared", "absolute", "brier"]))
def test_weight_invariances(data, loss):
    """Order invariance; integer weights = repeated rows; zero weights = removed rows."""
    if loss in ("log_loss", "brier"):
        y, f, _ = data.draw(classification_proba())
    elif loss == "zero_one":
        y, f, _ = data.draw(labels_and_predictions())
    else:
        y, f, _ = data.draw(regression())
    n = len(y)
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    kept = w > 0
    labels = np.unique(y) if loss in ("log_loss", "brier") else None
    assume(len(np.unique(y[kept])) >= 2)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        weighted = prediction_advantage(y, f, loss=loss, sample_weight=w, labels=labels)
        rep = w.astype(int)
        repeated = prediction_advantage(np.repeat(y, rep, axis=0), np.repeat(f, rep, axis=0), loss=loss, labels=labels)
        removed = prediction_advantage(y[kept], f[kept], loss=loss, sample_weight=w[kept], labels=labels)
        perm = np.random.default_rng(0).permutation(n)
        shuffled = prediction_advantage(y[perm], f[perm], loss=loss, sample_weight=w[perm], labels=labels)
    assert repeated == pytest.approx(weighted, rel=1e-9, abs=1e-9)
    assert removed == pytest.approx(weighted, rel=1e-12, abs=1e-12)
    assert shuffled == pytest.approx(weighted, rel=1e-12, abs=1e-12)
    ones = prediction_advantage(y, f, loss=loss, sample_weight=np.ones(n), labels=labels)
    assert ones == pytest.approx(prediction_advantage(y, f, loss=loss, labels=labels), rel=1e-12, abs=1e-12)


def test_order_preservation():
    rng = np.random.default_rng(5)
    y = rng.normal(size=200)
    preds = [y + s * rng.normal(size=200) for s in (0.1, 0.5, 1.0, 3.0)]
    for loss in ("squared", "absolute", PinballLoss(0.2)):
        pas = [prediction_advantage(y, p, loss=loss) for p in preds]
        risks = [np.mean(get_loss(loss)(p, y)) for p in preds]
        assert np.argsort(pas).tolist() == np.argsort(risks)[::-1].tolist()
        # PA is the risk rescaled: 1 − R(f) / R(f0)
        r0 = bayes_marginal_prediction(y, loss=loss).risk
        np.testing.assert_allclose(pas, 1 - np.array(risks) / r0, rtol=1e-12)


def test_callable_loss_gives_the_same_pa_as_the_builtin():
    rng = np.random.default_rng(11)
    y = rng.integers(0, 3, 80)
    pred = np.where(rng.uniform(size=80) < 0.4, rng.integers(0, 3, 80), y)
    miss = CallableLoss(lambda p, t: (p != t).astype(float), prediction="label")
    assert prediction_advantage(y, pred, loss=miss) == pytest.approx(prediction_advantage(y, pred), **TOL)
    t = rng.normal(size=80)
    f = t + rng.normal(size=80)
    absolute = CallableLoss(lambda p, yy: np.abs(p - yy), prediction="real")
    assert prediction_advantage(t, f, loss=absolute) == pytest.approx(
        skm.d2_absolute_error_score(t, f), rel=1e-9
    )
    proba = rng.dirichlet(np.ones(3), 80)
    log = CallableLoss(lambda q, onehot: -np.log(np.sum(q * onehot, axis=1)), prediction="probability")
    assert prediction_advantage(y, proba, loss=log) == pytest.approx(skm.d2_log_loss_score(y, proba), rel=1e-9)


def test_cost_matrix_pa_by_hand():
    # b_ij: predicting i when truth is j; missing a positive costs 5
    loss = CostMatrixLoss([[0, 5], [1, 0]], labels=[0, 1])
    y = np.array([0] * 7 + [1] * 3)
    pred = np.array([0] * 6 + [1] + [1, 1, 0])  # one false positive, one false negative
    # R(f) = (1 + 5) / 10; BMP: predict 0 → 5·0.3 = 1.5, predict 1 → 1·0.7 = 0.7
    r = PredictionAdvantageResult.from_predictions(y, pred, loss=loss)
    assert r.risk == pytest.approx(0.6) and r.baseline_risk == pytest.approx(0.7)
    assert r.baseline.prediction == 1
    assert r.value == pytest.approx(1 - 0.6 / 0.7)


# ------------------------------------------------------------------------------------
# the baseline source (prior)
# ------------------------------------------------------------------------------------


def test_prior_from_a_known_distribution():
    y = [0] * 6 + [1] * 4
    pred = [0] * 6 + [1, 1, 0, 0]  # error 0.2
    # own sample: f0 = 0, R = 0.4 → PA 0.5
    assert prediction_advantage(y, pred) == pytest.approx(0.5)
    # known prior with 1 the majority: f0 = 1, its risk here is 0.6 → PA = 2/3
    r = PredictionAdvantageResult.from_predictions(y, pred, prior={0: 0.3, 1: 0.7})
    assert r.baseline.prediction == 1 and r.baseline.source == "distribution"
    assert r.baseline.risk == pytest.approx(0.3)  # on the prior itself
    assert r.baseline_risk == pytest.approx(0.6)  # on the evaluated sample
    assert r.value == pytest.approx(1 - 0.2 / 0.6)


def test_prior_from_training_labels_and_a_given_bmp():
    train = ["b"] * 9 + ["a"]
    y = ["a", "a", "b", "b", "c"]
    pred = ["a", "b", "b", "b", "c"]
    r = PredictionAdvantageResult.from_predictions(y, pred, prior=train)
    assert r.baseline.prediction == "b" and r.baseline.source == "training labels"
    assert r.baseline_risk == pytest.approx(3 / 5)
    assert r.value == pytest.approx(1 - (1 / 5) / (3 / 5))
    # a precomputed BMP (here weighted, so that 'a' wins) is used as is
    bmp = bayes_marginal_prediction(train, sample_weight=[1] * 9 + [20])
    r = PredictionAdvantageResult.from_predictions(y, pred, prior=bmp)
    assert r.baseline.prediction == "a" and r.baseline_risk == pytest.approx(3 / 5)
    # the trivial learner's prediction scores exactly 0 against its own baseline
    assert prediction_advantage(y, ["b"] * 5, prior=train) == 0.0


def test_prior_equal_to_the_sample_gives_the_default():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 3, 100)
    proba = rng.dirichlet(np.ones(3), 100)
    pred = rng.integers(0, 3, 100)
    t = rng.normal(size=100)
    f = t + rng.normal(size=100)
    assert prediction_advantage(y, pred, prior=y) == pytest.approx(prediction_advantage(y, pred), **TOL)
    for loss in ("log_loss", "brier"):
        assert prediction_advantage(y, proba, loss=loss, prior=y) == pytest.approx(
            prediction_advantage(y, proba, loss=loss), **TOL
        )
    for loss in ("squared", "absolute"):
        assert prediction_advantage(t, f, loss=loss, prior=t) == pytest.approx(
            prediction_advantage(t, f, loss=loss), **TOL
        )


def test_prior_for_probability_and_regression_losses_by_hand():
    y = np.array([0, 0, 1, 1])
    proba = np.array([0.2, 0.4, 0.6, 0.9])
    q = np.array([0.8, 0.2])  # known prior
    r = PredictionAdvantageResult.from_predictions(y, proba, loss="log_loss", prior={0: 0.8, 1: 0.2})
    assert r.baseline_risk == pytest.approx(-(0.5 * np.log(0.8) + 0.5 * np.log(0.2)))
    np.testing.assert_allclose(r.baseline.prediction, q)
    r = PredictionAdvantageResult.from_predictions(y, proba, loss="brier", prior={0: 0.8, 1: 0.2})
    assert r.baseline_risk == pytest.approx(0.5 * 2 * 0.2**2 + 0.5 * 2 * 0.8**2)
    # regression: the training mean as baseline, its MSE on the test targets
    t = np.array([1.0, 2.0, 3.0, 4.0])
    f = np.array([1.5, 2.0, 3.0, 4.0])
    r = PredictionAdvantageResult.from_predictions(t, f, loss="squared", prior=[0.0, 2.0])
    assert r.baseline.prediction == 1.0
    assert r.baseline_risk == pytest.approx(np.mean((t - 1.0) ** 2))
    r = PredictionAdvantageResult.from_predictions(t, f, loss="absolute", prior={0.0: 0.5, 10.0: 0.25, 20.0: 0.25})
    assert r.baseline.prediction == 5.0  # averaged inverted CDF at exactly 1/2
    assert r.baseline_risk == pytest.approx(np.mean(np.abs(t - 5.0)))


def test_prior_zero_probability_class_is_clipped_like_scikit_learn():
    y = np.array([0, 1, 1])
    r = PredictionAdvantageResult.from_predictions(y, [0.5, 0.5, 0.5], loss="log_loss", prior={1: 1.0})
    eps = np.finfo(float).eps
    assert r.baseline_risk == pytest.approx(-(np.log(eps) + 2 * np.log(1 - eps)) / 3)


# ------------------------------------------------------------------------------------
# undefined cases
# ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y, pred, loss",
    [
        ([1, 1, 1], [1, 0, 1], "zero_one"),
        (["x"] * 3, ["x"] * 3, "zero_one"),
        ([1, 1, 1], [0.2, 0.5, 0.9], "log_loss"),
        ([1, 1, 1], [[0.2, 0.8]] * 3, "brier"),
        ([2.0, 2.0, 2.0], [1.0, 2.0, 3.0], "squared"),
        ([2.0, 2.0, 2.0], [1.0, 2.0, 3.0], "absolute"),
        ([2.0], [1.0], "squared"),
    ],
)
def test_one_class_is_undefined(y, pred, loss):
    with pytest.warns(UndefinedMeasureWarning, match="undefined"):
        assert math.isnan(prediction_advantage(y, pred, loss=loss))
    with pytest.raises(UndefinedMeasureError):
        prediction_advantage(y, pred, loss=loss, strict=True)


def test_undefined_by_weights_and_by_prior():
    with pytest.warns(UndefinedMeasureWarning):
        assert math.isnan(prediction_advantage([0, 1, 1], [1, 1, 0], sample_weight=[0, 1, 1]))
    with pytest.warns(UndefinedMeasureWarning, match="no error"):
        assert math.isnan(prediction_advantage([1, 1], [1, 0], prior={0: 0.4, 1: 0.6}))


def test_multi_output_with_one_constant_output():
    y = np.array([[1.0, 5.0], [2.0, 5.0], [3.0, 5.0]])
    f = np.array([[1.0, 4.0], [2.5, 5.0], [3.0, 6.0]])
    with pytest.warns(UndefinedMeasureWarning, match=r"output\(s\) \[1\]"):
        raw = prediction_advantage(y, f, loss="squared", multioutput="raw_values")
    assert raw[0] == pytest.approx(skm.r2_score(y[:, 0], f[:, 0])) and math.isnan(raw[1])


# ------------------------------------------------------------------------------------
# bad input (SPEC §6)
# ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "y, pred, kwargs, message",
    [
        ([0, 1, 1], [0, 1], {}, "different lengths"),
        ([0.0, 1.0, 1.0], [0.0, 1.0], {"loss": "squared"}, "different lengths"),
        ([0, 1, 1], [0.1, 0.2], {"loss": "log_loss"}, "different lengths"),
        ([0, 1], [0, 1], {"sample_weight": [1, 1, 1]}, "length"),
        ([], [], {}, "empty"),
        ([], [], {"loss": "squared"}, "empty"),
        ([0.0, np.nan], [0.0, 1.0], {}, "NaN"),
        ([0.0, 1.0], [0.0, np.inf], {"loss": "squared"}, "non-finite value"),
        ([0.0, 1.0], [0.0, 1.0], {"loss": "squared", "sample_weight": [1, np.nan]}, "NaN"),
        ([0, 1], [0, 1], {"sample_weight": [1, -1]}, "negative"),
        ([0, 1], [0.5, np.nan], {"loss": "log_loss"}, "NaN"),
        ([0, 1], [0.5, 1.2], {"loss": "log_loss"}, "above 1"),
        ([0, 1], [0.5, -0.2], {"loss": "brier"}, "negative"),
        ([0, 1], [[0.5, 0.6], [0.2, 0.8]], {"loss": "log_loss"}, "normalize=True"),
        ([0, 1, 2], [0.5, 0.2, 0.1], {"loss": "log_loss"}, "3 classes"),
        ([0, 1, 2], [[0.5, 0.5]] * 3, {"loss": "log_loss"}, "2 columns but there are 3 classes"),
        ([0, 1], [["a", "b"]] * 2, {"loss": "log_loss"}, "numeric"),
        ([0, 1, 2], [0, 1, 2], {"labels": [0, 1]}, "not in `labels`"),
        ([0, 1], ["a", "b"], {}, "mix string and numeric"),
        ([0, 1], [0, 1], {"loss": "hinge"}, "known losses: zero_one"),
        ([0, 1], [0, 1], {"loss": CostMatrixLoss(np.ones((3, 3)))}, "3 x 3 but the data have 2"),
        ([0.0, 1.0], [[0.0, 1.0], [1.0, 0.0]], {"loss": "squared"}, "shape"),
        ([0.0, 1.0], [0.0, 1.0], {"loss": "squared", "labels": [0, 1]}, "labels= applies"),
        ([0.0, 1.0], [0.0, 1.0], {"loss": "squared", "multioutput": "variance"}, "multioutput"),
        ([0.0, 1.0], [0.0, 1.0], {"loss": "squared", "multioutput": [1, 2]}, "2 weights"),
        ([0, 1], [0, 1], {"prior": {0: 0.5, 1: 0.6}}, "sum to 1"),
        ([0, 1], [0, 1], {"prior": {0: -0.5, 1: 1.5}}, "negative"),
        ([0, 1], [0, 1], {"prior": "train.csv"}, "prior must be"),
        ([0, 1], [0, 1], {"prior": 0.3}, "prior must be"),
        ([0, 1], [0, 1], {"prior": {}}, "empty"),
        ([0, 1], [0, 1], {"prior": ["a", "b"]}, "mixed"),
        ([0.0, 1.0], [0.0, 1.0], {"loss": "squared", "prior": [[0.0, 1.0]] * 2}, "output"),
    ],
)
def test_bad_input(y, pred, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        prediction_advantage(y, pred, **kwargs)


def test_cost_matrix_errors_surface_at_construction():
    with pytest.raises(InvalidInputError, match="negative"):
        prediction_advantage([0, 1], [0, 1], loss=CostMatrixLoss([[0, -1], [1, 0]]))
    with pytest.raises(InvalidInputError, match="square"):
        prediction_advantage([0, 1], [0, 1], loss=CostMatrixLoss([[0, 1]]))


def test_prior_bmp_of_another_loss_is_refused():
    bmp = bayes_marginal_prediction([0, 1, 1], loss="log_loss")
    with pytest.raises(InvalidInputError, match="BMP of loss 'cross_entropy'"):
        prediction_advantage([0, 1], [0, 1], prior=bmp)


def test_normalize_rescales_probability_rows():
    y = [0, 1, 2, 1]
    raw = np.array([[2.0, 1.0, 1.0], [1.0, 3.0, 0.0], [0.5, 0.5, 1.0], [1.0, 1.0, 1.0]])
    expected = prediction_advantage(y, raw / raw.sum(axis=1, keepdims=True), loss="log_loss")
    assert prediction_advantage(y, raw, loss="log_loss", normalize=True) == pytest.approx(expected, **TOL)


def test_unknown_loss_message_lists_every_known_loss():
    with pytest.raises(InvalidInputError) as err:
        prediction_advantage([0, 1], [0, 1], loss="hinge")
    assert all(name in str(err.value) for name in loss_names())


def test_label_losses_ignore_multioutput_and_result_serialises():
    assert isinstance(prediction_advantage([0, 1, 1], [0, 1, 0], multioutput="raw_values"), float)
    r = PredictionAdvantageResult.from_predictions([0.0, 1.0, 3.0], [0.0, 1.0, 2.0], loss="squared")
    d = json.loads(json.dumps(r.to_dict()))
    assert d["loss"] == "squared" and d["baseline"]["source"] == "sample"
    assert d["value"] == pytest.approx(skm.r2_score([0.0, 1.0, 3.0], [0.0, 1.0, 2.0]))


# ------------------------------------------------------------------------------------
# the PA–coverage curve
# ------------------------------------------------------------------------------------


def _brute_force_curve(y, pred, conf, curve, **kwargs):
    """PA recomputed from scratch on each covered subset."""
    out = []
    for t in curve.threshold:
        mask = conf >= t
        w = kwargs.get("sample_weight")
        kw = dict(kwargs)
        if w is not None:
            kw["sample_weight"] = np.asarray(w)[mask]
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UndefinedMeasureWarning)
            out.append(prediction_advantage(np.asarray(y)[mask], np.asarray(pred)[mask], **kw))
    return np.array(out)


@PROP
@given(st.data(), st.sampled_from(["zero_one", "cost", "log_loss", "brier", "squared", "absolute", "pinball"]))
def test_coverage_curve_equals_brute_force(data, loss):
    if loss in ("log_loss", "brier"):
        y, f, _ = data.draw(classification_proba())
        extra = {"labels": np.unique(y)}
    elif loss in ("zero_one", "cost"):
        y, f, _ = data.draw(labels_and_predictions())
        extra = {}
        if loss == "cost":
            loss = CostMatrixLoss(np.array([[0, 2, 1, 1, 3], [1, 0, 4, 1, 1], [1, 2, 0, 1, 2], [2, 1, 1, 0, 1], [1, 1, 1, 1, 0]]),
                                  labels=[0, 1, 2, 3, 4])
    else:
        y, f, _ = data.draw(regression())
        extra = {}
        if loss == "pinball":
            loss = PinballLoss(0.3)
    n = len(y)
    conf = np.array(data.draw(st.lists(st.integers(0, 6), min_size=n, max_size=n)), dtype=float)
    w = np.array(data.draw(st.lists(st.integers(0, 3), min_size=n, max_size=n)), dtype=float)
    assume(w.sum() > 0)
    curve = pa_coverage_curve(y, f, conf, loss=loss, sample_weight=w, **extra)
    expected = _brute_force_curve(y, f, conf, curve, loss=loss, sample_weight=w, **extra)
    np.testing.assert_allclose(curve.pa, expected, rtol=1e-9, atol=1e-9)
    # coverage = covered weight share, increasing to 1; thresholds decreasing
    cov = np.array([w[conf >= t].sum() for t in curve.threshold]) / w.sum()
    np.testing.assert_allclose(curve.coverage, cov, rtol=1e-12)
    assert curve.coverage[-1] == pytest.approx(1.0) and (np.diff(curve.coverage) > 0).all()
    assert (np.diff(curve.threshold) < 0).all()
    # the last point is the PA of the whole sample
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UndefinedMeasureWarning)
        full = prediction_advantage(y, f, loss=loss, sample_weight=w, **extra)
    np.testing.assert_allclose(curve.pa[-1], full, rtol=1e-9, atol=1e-9)


@pytest.mark.parametrize(
    "y, f, conf, w",
    [
        # hypothesis' case: the covered subset {2.2e-16, 0} has variance 1.2e-32 > 0
        ([0, 0, 0, 0, 1, 2.220446049250313e-16, 0, 0], [0.0] * 8, [0, 0, 0, 0, 0, 1, 0, 1],
         [0, 0, 0, 0, 1, 1, 0, 1]),
        # a subset far from the others with variance 3e-15
        ([-100.0, 100.0, 37.1, 37.1 + 1.1e-7], [0.0, 0.0, 37.1, 37.1], [0, 0, 1, 1], None),
    ],
)
def test_coverage_curve_tiny_spread_equals_brute_force(y, f, conf, w):
    # issue 11: the closed form centred every subset at the overall mean, so a tiny
    # subset variance cancelled to 0 (nan) where the subset's own PA is defined
    y, f, conf = np.asarray(y, float), np.asarray(f, float), np.asarray(conf, float)
    curve = pa_coverage_curve(y, f, conf, loss="squared", sample_weight=w)
    expected = _brute_force_curve(y, f, conf, curve, loss="squared", sample_weight=w)
    assert np.isfinite(expected).all()
    np.testing.assert_allclose(curve.pa, expected, rtol=1e-9, atol=1e-9)


def test_zero_baseline_rule_is_shared_by_pa_and_the_coverage_curve():
    # hypothesis' case: a covered subset {-100, -100 + 1 ulp}; its variance is 5e-29, which
    # the two-pass formula gets as 1e-28 (the mean rounds to an end): noise, not data
    y = np.array([0.0, -100.0, np.nextafter(-100.0, 0.0), 0.0])
    f = np.zeros(4)
    conf = np.array([0.0, 1.0, 1.0, 0.0])
    sub = conf >= 1
    ys = y[sub]
    variance = np.var(ys)
    squared = get_loss("squared")
    assert variance > 0 and baseline_risk_is_zero(variance, squared, np.abs(ys).max())
    with pytest.warns(UndefinedMeasureWarning, match="the best constant prediction.s risk is 0"):
        assert math.isnan(prediction_advantage(ys, f[sub], loss="squared"))
    assert bayes_marginal_prediction(ys, loss="squared").risk == 0.0
    curve = pa_coverage_curve(y, f, conf, loss="squared")
    assert math.isnan(curve.pa[0]) and curve.baseline_risk[0] == 0.0
    # the same subset through the curve's generic path (absolute loss, re-solved per point)
    absolute = min(np.mean(np.abs(ys - c)) for c in ys)  # the BMP sits at a data point
    assert absolute > 0 and baseline_risk_is_zero(absolute, get_loss("absolute"), np.abs(ys).max())
    curve = pa_coverage_curve(y, f, conf, loss="absolute")
    assert math.isnan(curve.pa[0]) and curve.baseline_risk[0] == 0.0
    # a subset 1e-9 apart (relative) is data: PA is defined, the same on both sides
    y[2] = -100.0 * (1 - 1e-9)
    curve = pa_coverage_curve(y, f, conf, loss="squared")
    assert not baseline_risk_is_zero(np.var(y[sub]), squared, 100.0)
    expected = _brute_force_curve(y, f, conf, curve, loss="squared")
    assert np.isfinite(expected).all()
    np.testing.assert_allclose(curve.pa, expected, rtol=1e-9)


def test_selective_prediction_example_of_section_6():
    # 20% minority; two selective classifiers both cover 70% with 5% risk.  A rejects
    # almost all of the minority and answers 'majority': trivial on what it covers.
    n_min, n_maj = 40, 160
    y = np.r_[np.ones(n_min, int), np.zeros(n_maj, int)]
    # A covers 133 majority + 7 minority, predicts 0 everywhere
    conf_a = np.r_[np.ones(7), np.zeros(n_min - 7), np.ones(133), np.zeros(n_maj - 133)]
    pred_a = np.zeros(n_min + n_maj, int)
    # B covers 112 majority + 28 minority (still 20% minority) with 7 errors
    conf_b = np.r_[np.ones(28), np.zeros(n_min - 28), np.ones(112), np.zeros(n_maj - 112)]
    pred_b = y.copy()
    pred_b[:7] = 0
    a = pa_coverage_curve(y, pred_a, conf_a)
    b = pa_coverage_curve(y, pred_b, conf_b)
    assert a.coverage[0] == b.coverage[0] == pytest.approx(0.7)
    assert a.risk[0] == b.risk[0] == pytest.approx(0.05)
    assert a.pa[0] == pytest.approx(0.0)
    assert b.pa[0] == pytest.approx(1 - 0.05 / 0.2)


def test_coverage_levels_and_area():
    y = np.array([0, 1, 0, 1, 0, 1, 0, 0])
    pred = np.array([0, 1, 0, 1, 1, 0, 1, 0])
    conf = np.array([0.9, 0.8, 0.7, 0.6, 0.5, 0.4, 0.3, 0.2])
    full = pa_coverage_curve(y, pred, conf)
    assert full.coverage.tolist() == [k / 8 for k in range(1, 9)]
    ok = np.isfinite(full.pa)
    assert full.area == pytest.approx(np.trapezoid(full.pa[ok], full.coverage[ok]))
    four = pa_coverage_curve(y, pred, conf, coverages=4)
    np.testing.assert_allclose(four.coverage, [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(four.pa, full.pa[[1, 3, 5, 7]])
    # requested levels are rounded up to an achievable coverage; ties are not split
    tied = pa_coverage_curve(y, pred, np.array([1, 1, 1, 0.5, 0.5, 0.5, 0, 0]), coverages=[0.1, 0.4, 0.5, 1.0])
    np.testing.assert_allclose(tied.coverage, [3 / 8, 6 / 8, 1.0])
    assert json.loads(json.dumps(full.to_dict()))["pa"][0] is None  # nan → null


def test_coverage_curve_for_log_loss_is_vectorised_and_matches_on_large_input():
    rng = np.random.default_rng(0)
    n = 20000
    y = rng.integers(0, 3, n)
    proba = rng.dirichlet(np.ones(3), n)
    conf = proba.max(axis=1)
    curve = pa_coverage_curve(y, proba, conf, loss="log_loss", coverages=[0.25, 0.5, 1.0])
    for cov, pa in zip(curve.coverage, curve.pa):
        k = int(round(cov * n))
        top = np.argsort(-conf, kind="stable")[:k]
        assert pa == pytest.approx(skm.d2_log_loss_score(y[top], proba[top]), rel=1e-9)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"confidence": [0.1, 0.2]}, "different lengths"),
        ({"confidence": [0.1, np.nan, 0.3]}, "NaN"),
        ({"confidence": [0.1, 0.2, 0.3], "coverages": [0.0, 0.5]}, r"\(0, 1\]"),
        ({"confidence": [0.1, 0.2, 0.3], "coverages": [0.5, 1.2]}, r"\(0, 1\]"),
        ({"confidence": [0.1, 0.2, 0.3], "coverages": 0}, "positive number"),
        ({"confidence": [0.1, 0.2, 0.3], "sample_weight": [1, -1, 1]}, "negative"),
    ],
)
def test_coverage_curve_bad_input(kwargs, message):
    conf = kwargs.pop("confidence")
    with pytest.raises(InvalidInputError, match=message):
        pa_coverage_curve([0, 1, 1], [0, 1, 0], conf, **kwargs)


def test_coverage_curve_takes_one_output():
    y = np.zeros((3, 2))
    with pytest.raises(InvalidInputError, match="one output"):
        pa_coverage_curve(y, y, [1, 2, 3], loss="squared")


def test_coverage_default_points_per_loss():
    rng = np.random.default_rng(4)
    y = rng.normal(size=500)
    f = y + rng.normal(size=500)
    conf = rng.uniform(size=500)
    assert len(pa_coverage_curve(y, f, conf, loss="squared").coverage) == 500  # every threshold
    curve = pa_coverage_curve(y, f, conf, loss="absolute")  # re-solved per point: 100 levels
    np.testing.assert_allclose(curve.coverage, np.arange(1, 101) / 100)
    expected = [skm.d2_absolute_error_score(y[conf >= t], f[conf >= t]) for t in curve.threshold[::20]]
    np.testing.assert_allclose(curve.pa[::20], expected, rtol=1e-12, atol=1e-12)


def test_coverage_curve_of_a_probability_callable_matches_log_loss():
    rng = np.random.default_rng(6)
    y = rng.integers(0, 3, 300)
    proba = rng.dirichlet(np.ones(3), 300)
    conf = proba.max(axis=1)
    log = CallableLoss(lambda q, onehot: -np.log(np.sum(q * onehot, axis=1)), prediction="probability")
    a = pa_coverage_curve(y, proba, conf, loss=log, coverages=5)
    b = pa_coverage_curve(y, proba, conf, loss="log_loss", coverages=5)
    np.testing.assert_allclose(a.coverage, b.coverage)
    np.testing.assert_allclose(a.pa, b.pa, rtol=1e-7)
