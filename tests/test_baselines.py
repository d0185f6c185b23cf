"""Losses and their Bayesian marginal predictions (beyondchance.measures.losses).

The closed forms are checked against independent computations (scipy's entropy,
numpy's weighted averages and quantiles, brute force over candidate constants),
and the generic numerical solver must reproduce every closed form to 1e-9.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import assume, example, given, settings
from hypothesis import strategies as st
from scipy.stats import entropy

from beyondchance import (
    AbsoluteLoss,
    BayesMarginalPrediction,
    BrierLoss,
    CallableLoss,
    CostMatrixLoss,
    CrossEntropyLoss,
    InvalidInputError,
    PinballLoss,
    SquaredLoss,
    ZeroOneLoss,
    bayes_marginal_prediction,
    get_loss,
    loss_names,
)
from beyondchance.measures import weighted_quantile
from beyondchance.measures.losses import baseline_risk_is_zero

FAST = settings(max_examples=40, deadline=None)
SLOW = settings(max_examples=15, deadline=None)


# ------------------------------------------------------------------------------------
# strategies
# ------------------------------------------------------------------------------------


@st.composite
def labelled(draw, max_classes: int = 5, min_size: int = 2, max_size: int = 40):
    """(labels, weights): integer labels with at least one positive weight."""
    n = draw(st.integers(min_size, max_size))
    k = draw(st.integers(1, max_classes))
    y = np.array(draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n)))
    w = np.array(draw(st.lists(st.integers(0, 5), min_size=n, max_size=n)), dtype=float)
    assume(w.sum() > 0)
    return y, w


@st.composite
def real_sample(draw, min_size: int = 2, max_size: int = 40):
    n = draw(st.integers(min_size, max_size))
    y = np.array(draw(st.lists(st.floats(-100, 100, allow_subnormal=False), min_size=n, max_size=n)))
    w = np.array(
        draw(st.lists(st.floats(0, 10, allow_subnormal=False), min_size=n, max_size=n))
    )
    assume(w.sum() > 1e-3)
    return y, w


def _weighted_prior(y, w, k):
    return np.bincount(y, weights=w, minlength=k) / w.sum()


# ------------------------------------------------------------------------------------
# closed forms against independent computations
# ------------------------------------------------------------------------------------


@FAST
@given(labelled())
def test_zero_one_bmp_is_the_weighted_majority(data):
    y, w = data
    bmp = bayes_marginal_prediction(y, sample_weight=w)
    classes = np.unique(y)
    p = np.array([w[y == c].sum() for c in classes]) / w.sum()
    assert bmp.risk == pytest.approx(1 - p.max(), abs=1e-12)
    assert p[np.searchsorted(classes, bmp.prediction)] == p.max()
    assert bmp.prediction == classes[np.argmax(p)]  # ties: the first label in sorted order


@FAST
@given(labelled())
def test_log_loss_bmp_is_the_prior_with_entropy_risk(data):
    y, w = data
    bmp = bayes_marginal_prediction(y, loss="log_loss", sample_weight=w)
    p = np.array([w[y == c].sum() for c in bmp.classes]) / w.sum()
    np.testing.assert_allclose(bmp.prediction, p, atol=1e-15)
    assert bmp.risk == pytest.approx(entropy(p), abs=1e-12)
    assert bmp.loss == "cross_entropy"


@FAST
@given(labelled())
def test_brier_bmp_is_the_prior(data):
    y, w = data
    bmp = bayes_marginal_prediction(y, loss="brier", sample_weight=w)
    p = np.array([w[y == c].sum() for c in bmp.classes]) / w.sum()
    np.testing.assert_allclose(bmp.prediction, p, atol=1e-15)
    # brute force: mean over samples of Σ_k (p_k − 1{y = k})²
    onehot = (y[:, None] == bmp.classes[None, :]).astype(float)
    direct = np.average(((p[None, :] - onehot) ** 2).sum(axis=1), weights=w)
    assert bmp.risk == pytest.approx(direct, abs=1e-12)


@FAST
@given(real_sample())
def test_squared_bmp_is_the_weighted_mean_with_variance_risk(data):
    y, w = data
    bmp = bayes_marginal_prediction(y, loss="squared", sample_weight=w)
    mean = np.average(y, weights=w)
    assert bmp.prediction == pytest.approx(mean, abs=1e-9)
    assert bmp.risk == pytest.approx(np.average((y - mean) ** 2, weights=w), rel=1e-9, abs=1e-9)


@FAST
@given(real_sample(), st.sampled_from([0.5, 0.1, 0.25, 0.75, 0.9]))
@example((np.array([0.0] * 32 + [1.0, 0.0]), np.array([0.0] * 31 + [1e-9, 2.0, 0.0])), 0.9)  # risk 5e-11 counts as 0
def test_quantile_bmps_beat_every_observed_value(data, alpha):
    # piecewise-linear losses have their minimum at an observed value: brute force
    y, w = data
    loss = AbsoluteLoss() if alpha == 0.5 else PinballLoss(alpha)
    bmp = bayes_marginal_prediction(y, loss=loss, sample_weight=w)
    risks = [np.average(loss(np.full_like(y, c), y), weights=w) for c in y[w > 0]]
    expected = min(risks)
    if baseline_risk_is_zero(expected, loss, np.abs(y[w > 0]).max()):  # the library's one rule
        expected = 0.0
    assert bmp.risk == pytest.approx(expected, rel=1e-12, abs=1e-12)


def test_absolute_bmp_is_the_median():
    assert bayes_marginal_prediction([3.0, 1.0, 2.0], loss="absolute").prediction == 2.0
    bmp = bayes_marginal_prediction([1.0, 2.0, 3.0, 10.0], loss="absolute")
    assert bmp.prediction == 2.5
    assert bmp.risk == pytest.approx((1.5 + 0.5 + 0.5 + 7.5) / 4)


def test_cost_matrix_bmp_formula_and_orientation():
    # b_ij: cost of predicting i when the truth is j (PA paper, section 2.7)
    b = np.array([[0.0, 10.0], [1.0, 0.0]])
    y = ["neg"] * 8 + ["pos"] * 2
    loss = CostMatrixLoss(b, labels=["neg", "pos"])
    bmp = bayes_marginal_prediction(y, loss=loss)
    # expected costs: predict neg → 10·0.2 = 2; predict pos → 1·0.8 = 0.8
    assert bmp.prediction == "pos"
    assert bmp.risk == pytest.approx(0.8)
    # the same matrix written with rows = true labels
    loss_t = CostMatrixLoss(b.T, rows="true", columns="predicted", labels=["neg", "pos"])
    assert bayes_marginal_prediction(y, loss=loss_t).risk == pytest.approx(0.8)
    np.testing.assert_array_equal(loss_t.matrix, b)
    # per-sample costs follow the orientation
    np.testing.assert_array_equal(loss(["neg", "pos"], ["pos", "neg"]), [10.0, 1.0])


def test_cost_matrix_without_labels_applies_to_sorted_classes():
    loss = CostMatrixLoss([[0, 1, 1], [1, 0, 1], [1, 1, 0]])  # = 0/1 loss on 3 classes
    y = [2, 2, 1, 0, 2]
    a = bayes_marginal_prediction(y, loss=loss)
    b = bayes_marginal_prediction(y, loss="zero_one")
    assert (a.prediction, a.risk) == (b.prediction, b.risk)
    with pytest.raises(InvalidInputError, match="3 x 3 but the data have 2 classes"):
        bayes_marginal_prediction([0, 1, 1], loss=loss)


def test_bmp_of_a_single_class_has_zero_risk():
    for loss in ("zero_one", "log_loss", "brier"):
        assert bayes_marginal_prediction(["a"] * 4, loss=loss).risk == 0.0
    for loss in ("squared", "absolute", PinballLoss(0.3)):
        assert bayes_marginal_prediction([0.1] * 7, loss=loss).risk == 0.0


def test_multi_output_bmp():
    y = np.array([[1.0, 10.0], [2.0, 20.0], [6.0, 60.0]])
    bmp = bayes_marginal_prediction(y, loss="squared")
    np.testing.assert_allclose(bmp.prediction, [3.0, 30.0])
    np.testing.assert_allclose(bmp.risk, [14 / 3, 1400 / 3])


# ------------------------------------------------------------------------------------
# weighted quantile = numpy / scikit-learn
# ------------------------------------------------------------------------------------


@FAST
@given(st.lists(st.floats(-1e3, 1e3, allow_subnormal=False), min_size=1, max_size=30),
       st.floats(0.0, 1.0))
@example([0.0, 0.0, 0.0, 0.0, -1.0, -1.0], 1 / 3)  # found on a fresh clone: numpy −0.5, scikit-learn −1.0
def test_weighted_quantile_unit_weights_is_numpy_averaged_inverted_cdf(values, alpha):
    expected = np.quantile(values, alpha, method="averaged_inverted_cdf")
    ours = weighted_quantile(values, alpha)
    position = alpha * len(values)
    if abs(position - round(position)) < 1e-9:
        # α·n is (up to rounding) an integer: numpy takes it as a hit and averages; our
        # arithmetic is scikit-learn's, which may round below it; both minimise the risk.
        def risk(q: float) -> float:
            return float(np.mean(PinballLoss(alpha)(np.full(len(values), q), np.asarray(values)))) if 0 < alpha < 1 else 0.0

        assert risk(ours) == pytest.approx(risk(float(expected)), rel=1e-9, abs=1e-9)
    else:
        assert ours == pytest.approx(expected, abs=1e-12)


@FAST
@given(st.lists(st.tuples(st.integers(-20, 20), st.integers(0, 4)), min_size=1, max_size=25),
       st.sampled_from([0.1, 0.25, 0.5, 0.75, 0.9]))
def test_weighted_quantile_integer_weights_equal_repetition(pairs, alpha):
    y = np.array([p[0] for p in pairs], dtype=float)
    w = np.array([p[1] for p in pairs], dtype=float)
    assume(w.sum() > 0)
    repeated = np.repeat(y, w.astype(int))
    expected = np.quantile(repeated, alpha, method="averaged_inverted_cdf")
    assert weighted_quantile(y, alpha, w) == pytest.approx(expected, abs=1e-12)


@FAST
@given(real_sample(min_size=1), st.sampled_from([0.05, 0.1, 0.25, 0.5, 0.75, 0.9]), st.booleans())
def test_weighted_quantile_matches_scikit_learn(data, alpha, integer_weights):
    from sklearn.utils.stats import _weighted_percentile  # the quantile of d2_pinball_score

    y, w = data
    if integer_weights:  # cumulative weights then hit α·W exactly: the averaged case
        w = np.round(w / 2)
        assume(w.sum() > 0)
    expected = _weighted_percentile(y, w, percentile_rank=alpha * 100, average=True)
    assert weighted_quantile(y, alpha, w) == pytest.approx(float(expected), abs=1e-12)


# ------------------------------------------------------------------------------------
# the generic solver reproduces every closed form
# ------------------------------------------------------------------------------------


def _both(y, loss, w):
    closed = bayes_marginal_prediction(y, loss=loss, sample_weight=w)
    numeric = bayes_marginal_prediction(y, loss=loss, sample_weight=w, method="numeric")
    assert closed.method == "closed_form" and numeric.method == "numeric"
    return closed, numeric


@FAST
@given(labelled())
def test_numeric_solver_zero_one(data):
    y, w = data
    closed, numeric = _both(y, "zero_one", w)
    assert numeric.risk == pytest.approx(closed.risk, abs=1e-9)
    assert numeric.prediction == closed.prediction


COSTS = st.lists(st.floats(0, 10, allow_subnormal=False), min_size=16, max_size=16).map(
    lambda v: np.array(v).reshape(4, 4)
)


@FAST
@given(labelled(max_classes=4), COSTS)
def test_numeric_solver_cost_matrix(data, costs):
    y, w = data
    loss = CostMatrixLoss(costs, labels=[0, 1, 2, 3])
    closed, numeric = _both(y, loss, w)
    assert numeric.risk == pytest.approx(closed.risk, abs=1e-9)
    # brute force over the four candidate labels
    p = _weighted_prior(y, w, 4)
    assert closed.risk == pytest.approx((costs @ p).min(), abs=1e-12)


@SLOW
@given(labelled(), st.sampled_from(["log_loss", "brier"]))
def test_numeric_solver_probability_losses(data, loss):
    y, w = data
    closed, numeric = _both(y, loss, w)
    assert numeric.risk == pytest.approx(closed.risk, abs=1e-9)
    np.testing.assert_allclose(numeric.prediction, closed.prediction, atol=1e-6)


@SLOW
@given(real_sample())
def test_numeric_solver_squared(data):
    y, w = data
    closed, numeric = _both(y, "squared", w)
    assert numeric.risk == pytest.approx(closed.risk, rel=1e-9, abs=1e-9)
    assert numeric.prediction == pytest.approx(closed.prediction, abs=1e-6 * (1 + np.ptp(y)))


@SLOW
@given(real_sample(), st.sampled_from([0.5, 0.1, 0.3, 0.9]))
def test_numeric_solver_absolute_and_pinball(data, alpha):
    y, w = data
    loss = "absolute" if alpha == 0.5 else PinballLoss(alpha)
    closed, numeric = _both(y, loss, w)
    assert numeric.risk == pytest.approx(closed.risk, rel=1e-9, abs=1e-9)


def test_numeric_solver_multiclass_log_loss_with_an_absent_class():
    # class 'c' is named but never observed: its BMP probability is 0
    y = ["a"] * 5 + ["b"] * 3
    closed = bayes_marginal_prediction(y, loss="log_loss", labels=["a", "b", "c"])
    numeric = bayes_marginal_prediction(y, loss="log_loss", labels=["a", "b", "c"], method="numeric")
    np.testing.assert_allclose(closed.prediction, [5 / 8, 3 / 8, 0.0])
    assert numeric.risk == pytest.approx(closed.risk, abs=1e-9)
    np.testing.assert_allclose(numeric.prediction, closed.prediction, atol=1e-6)


# ------------------------------------------------------------------------------------
# callable losses
# ------------------------------------------------------------------------------------


def test_callable_losses_reproduce_builtin_ones():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 3, 60)
    w = rng.uniform(0, 2, 60)
    miss = CallableLoss(lambda p, t: (p != t).astype(float), prediction="label", name="miss")
    a = bayes_marginal_prediction(y, loss=miss, sample_weight=w)
    b = bayes_marginal_prediction(y, loss="zero_one", sample_weight=w)
    assert a.method == "numeric" and a.loss == "miss"
    assert a.prediction == b.prediction and a.risk == pytest.approx(b.risk, abs=1e-12)

    log = CallableLoss(lambda q, onehot: -(onehot * np.log(q)).sum(axis=1), prediction="probability")
    a = bayes_marginal_prediction(y, loss=log, sample_weight=w)
    b = bayes_marginal_prediction(y, loss="log_loss", sample_weight=w)
    assert a.risk == pytest.approx(b.risk, abs=1e-9)

    t = rng.normal(size=60)
    sq = CallableLoss(lambda f, yy: (f - yy) ** 2, prediction="real")
    a = bayes_marginal_prediction(t, loss=sq, sample_weight=w)
    b = bayes_marginal_prediction(t, loss="squared", sample_weight=w)
    assert a.risk == pytest.approx(b.risk, rel=1e-9)


def test_callable_loss_for_a_non_standard_loss():
    # |f − y|^1.5: no closed form; the minimiser satisfies Σ sign(c − y)|c − y|^0.5 = 0
    from scipy.optimize import brentq

    y = np.array([0.0, 1.0, 5.0, 6.0, 20.0])
    loss = CallableLoss(lambda f, t: np.abs(f - t) ** 1.5, prediction="real")
    bmp = bayes_marginal_prediction(y, loss=loss)
    c = brentq(lambda c: np.sum(np.sign(c - y) * np.abs(c - y) ** 0.5), 0, 20, xtol=1e-14)
    assert bmp.prediction == pytest.approx(c, abs=1e-6)
    assert bmp.risk == pytest.approx(np.mean(np.abs(c - y) ** 1.5), rel=1e-10)


def test_callable_loss_validation():
    with pytest.raises(InvalidInputError, match="prediction must be one of"):
        CallableLoss(lambda p, t: p, prediction="ordinal")
    with pytest.raises(InvalidInputError, match="callable"):
        CallableLoss(3, prediction="real")
    neg = CallableLoss(lambda p, t: p - t, prediction="real")
    with pytest.raises(InvalidInputError, match="negative"):
        bayes_marginal_prediction([0.0, 1.0, 2.0], loss=neg)
    short = CallableLoss(lambda p, t: np.zeros(1), prediction="real")
    with pytest.raises(InvalidInputError, match="one value per sample"):
        bayes_marginal_prediction([0.0, 1.0, 2.0], loss=short)
    nan = CallableLoss(lambda p, t: np.full(len(p), np.nan), prediction="label")
    with pytest.raises(InvalidInputError, match="NaN"):
        bayes_marginal_prediction([0, 1], loss=nan)
    with pytest.raises(InvalidInputError, match="no closed-form"):
        bayes_marginal_prediction([0, 1], loss=CallableLoss(lambda p, t: p != t, prediction="label"),
                                  method="closed_form")
    with pytest.raises(InvalidInputError, match="CallableLoss"):
        get_loss(lambda p, t: p != t)


# ------------------------------------------------------------------------------------
# loss objects and names
# ------------------------------------------------------------------------------------


def test_loss_names_and_aliases():
    assert set(loss_names()) >= {"zero_one", "cross_entropy", "squared", "absolute", "brier"}
    assert isinstance(get_loss("log_loss"), CrossEntropyLoss)
    assert isinstance(get_loss("Log-Loss"), CrossEntropyLoss)
    assert isinstance(get_loss("mse"), SquaredLoss)
    assert isinstance(get_loss("zero_one"), ZeroOneLoss)
    assert isinstance(get_loss("brier"), BrierLoss)
    assert get_loss("quantile") == PinballLoss(0.5)
    loss = PinballLoss(0.9)
    assert get_loss(loss) is loss


def test_unknown_loss_lists_the_known_ones():
    with pytest.raises(InvalidInputError) as err:
        get_loss("hinge")
    for name in loss_names():
        assert name in str(err.value)
    with pytest.raises(InvalidInputError, match="unknown loss 'hinge'"):
        bayes_marginal_prediction([0, 1], loss="hinge")
    with pytest.raises(InvalidInputError, match="must be a name or a Loss"):
        get_loss(3.0)


@pytest.mark.parametrize(
    "costs, kwargs, message",
    [
        ([[0, -1], [1, 0]], {}, "negative"),
        ([[0, 1, 2], [1, 0, 2]], {}, "square"),
        ([1, 2, 3], {}, "square"),
        ([[0, np.nan], [1, 0]], {}, "NaN"),
        ([[0, 1], [1, 0]], {"labels": [0, 1, 2]}, "3 labels"),
        ([[0, 1], [1, 0]], {"labels": [0, 0]}, "duplicates"),
        ([[0, 1], [1, 0]], {"rows": "true", "columns": "true"}, "rows and columns"),
        ([["a", "b"], ["c", "d"]], {}, "numeric"),
    ],
)
def test_cost_matrix_validation(costs, kwargs, message):
    with pytest.raises(InvalidInputError, match=message):
        CostMatrixLoss(costs, **kwargs)


def test_cost_matrix_rejects_labels_it_does_not_know():
    loss = CostMatrixLoss([[0, 1], [1, 0]], labels=["a", "b"])
    with pytest.raises(InvalidInputError):
        bayes_marginal_prediction(["a", "c"], loss=loss)


@pytest.mark.parametrize("alpha", [0, 1, -0.1, 1.5, np.nan, "0.5", True])
def test_pinball_alpha_validation(alpha):
    with pytest.raises(InvalidInputError, match="alpha"):
        PinballLoss(alpha)


def test_method_validation():
    with pytest.raises(InvalidInputError, match="method must be"):
        bayes_marginal_prediction([0, 1], method="exact")


def test_bmp_bad_input():
    with pytest.raises(InvalidInputError, match="empty"):
        bayes_marginal_prediction([])
    with pytest.raises(InvalidInputError, match="NaN"):
        bayes_marginal_prediction([1.0, np.nan], loss="squared")
    with pytest.raises(InvalidInputError, match=r"infinite value: inf in row 2 \(index 1\)"):
        bayes_marginal_prediction([1.0, np.inf, 2.0])
    with pytest.raises(InvalidInputError, match="negative"):
        bayes_marginal_prediction([0, 1], sample_weight=[1, -1])
    with pytest.raises(InvalidInputError, match="length"):
        bayes_marginal_prediction([0, 1], sample_weight=[1, 1, 1])


def test_bmp_result_is_frozen_and_serialisable():
    bmp = bayes_marginal_prediction(np.array([0, 1, 1]), loss="log_loss")
    assert isinstance(bmp, BayesMarginalPrediction)
    with pytest.raises(AttributeError):
        bmp.risk = 0.0  # type: ignore[misc]
    d = json.loads(json.dumps(bmp.to_dict()))
    assert d["loss"] == "cross_entropy" and d["classes"] == [0, 1] and d["source"] == "sample"
    assert d["prediction"] == pytest.approx([1 / 3, 2 / 3])
    d = json.loads(json.dumps(bayes_marginal_prediction(np.array(["x", "y", "y"])).to_dict()))
    assert d["prediction"] == "y"
