"""bootstrap_ci of the prediction advantage: the sums fast path for closed-form losses.

The fast path and the generic callable path draw the same resamples (pools = rows,
same seed), so their bootstrap distributions must agree resample by resample; each
resample is also checked against scikit-learn's D² scores and brute-force BMPs
computed here from the recorded count weights, which shows that the BMP is
re-estimated in every resample.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import scipy.stats as sps
import sklearn.metrics as skm

from beyondchance import (
    AbsoluteLoss,
    CallableLoss,
    CostMatrixLoss,
    InvalidInputError,
    PinballLoss,
    UndefinedMeasureWarning,
    bootstrap_ci,
    prediction_advantage,
)
from beyondchance.inference import bootstrap_advantage as advantage
from beyondchance.inference import bootstrap_resampling as resampling


def generic(y_true, y_pred, sample_weight=None, **options):
    """The prediction advantage as an opaque callable: always the generic path."""
    return prediction_advantage(y_true, y_pred, sample_weight=sample_weight, **options)


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def recorded_weights(y_true, y_pred, n_resamples, seed, sample_weight=None, weight_type="importance"):
    """The count weights every resample passes to a callable, in resample order."""
    seen = []

    def spy(yt, yp, sample_weight=None):
        if sample_weight is not None:
            seen.append(np.array(sample_weight, dtype=float))
        return 0.0

    bootstrap_ci(spy, y_true, y_pred, sample_weight=sample_weight, weight_type=weight_type,
                 n_resamples=n_resamples, random_state=seed, method="percentile")
    first = 1 if sample_weight is not None else 0  # the estimate's own call
    return np.array(seen[first:])


# --- data ---------------------------------------------------------------------------------------

RNG = np.random.default_rng(2024)
N = 700  # above the 512-column block of the quantile search
Y_REAL = np.round(RNG.gamma(2.0, 1.0, N), 1)  # ties: exact quantile hits happen
F_REAL = Y_REAL + RNG.normal(0, 0.8, N)
Y_MULTI = np.column_stack([Y_REAL, RNG.normal(size=N)])
F_MULTI = Y_MULTI + RNG.normal(0, 0.6, (N, 2))
Y_CLASS = RNG.choice(3, N, p=[0.5, 0.3, 0.2])
PROBA = RNG.dirichlet(np.ones(3), N)
PROBA[np.arange(N), Y_CLASS] += 0.8
PROBA /= PROBA.sum(axis=1, keepdims=True)
Y_LABEL = RNG.choice(3, N, p=[0.45, 0.35, 0.2])
P_LABEL = np.where(RNG.random(N) < 0.6, Y_LABEL, RNG.integers(0, 3, N))
COSTS = CostMatrixLoss([[0, 1, 4], [2, 0, 1], [1, 3, 0]], labels=[0, 1, 2])
LABEL_CALLABLE = CallableLoss(lambda p, t: np.abs(np.asarray(p) - np.asarray(t)) ** 1.5, prediction="label",
                              name="l1.5")

CASES = {
    "squared": (Y_REAL, F_REAL, {"loss": "squared"}),
    "absolute": (Y_REAL, F_REAL, {"loss": "absolute"}),
    "pinball(0.9)": (Y_REAL, F_REAL, {"loss": PinballLoss(0.9)}),
    "pinball(0.25)": (Y_REAL, F_REAL, {"loss": PinballLoss(0.25)}),
    "log_loss": (Y_CLASS, PROBA, {"loss": "log_loss"}),
    "brier": (Y_CLASS, PROBA, {"loss": "brier"}),
    "cost_matrix": (Y_LABEL, P_LABEL, {"loss": COSTS}),
    "zero_one": (Y_LABEL, P_LABEL, {"loss": "zero_one"}),
    "label callable": (Y_LABEL, P_LABEL, {"loss": LABEL_CALLABLE}),
    "squared, 2 outputs": (Y_MULTI, F_MULTI, {"loss": "squared"}),
    "absolute, 2 outputs, weighted": (Y_MULTI, F_MULTI, {"loss": "absolute", "multioutput": [1.0, 3.0]}),
}

WEIGHTS = {
    "none": (None, "importance"),
    "importance": (RNG.gamma(1.0, 1.0, N) * (RNG.random(N) > 0.1), "importance"),  # with zeros
    "integer importance": (RNG.choice([0.0, 1.0, 2.0, 5.0], N), "importance"),
    "frequency": (RNG.choice([0, 1, 2, 3], N), "frequency"),
}


def _fast_statistic(y, p, options, sample_weight=None, weight_type="importance"):
    return advantage._pa_statistic(y, p, sample_weight, weight_type, options, by_name=False)


# --- the fast path is the generic path, resample by resample -------------------------------------


@pytest.mark.parametrize("weights", list(WEIGHTS))
@pytest.mark.parametrize("case", list(CASES))
def test_fast_path_draws_the_generic_resamples(case, weights):
    y, p, options = CASES[case]
    w, weight_type = WEIGHTS[weights]
    stat = _fast_statistic(y, p, options, w, weight_type)
    assert isinstance(stat, advantage._PARows), type(stat)
    kw = dict(sample_weight=w, weight_type=weight_type, n_resamples=150, random_state=7, **options)
    fast = bootstrap_ci(prediction_advantage, y, p, method="bca", **kw)
    slow = bootstrap_ci(generic, y, p, method="bca", **kw)
    assert fast.estimate == slow.estimate
    np.testing.assert_array_equal(np.isnan(fast.distribution), np.isnan(slow.distribution))
    np.testing.assert_allclose(fast.distribution, slow.distribution, rtol=1e-12, atol=1e-12, equal_nan=True)
    # exact jackknife on both sides (n <= 2000): the same acceleration, the same interval
    assert slow.jackknife.startswith("exact") and fast.jackknife == slow.jackknife
    assert fast.acceleration == pytest.approx(slow.acceleration, rel=1e-8, abs=1e-12)
    assert (fast.low, fast.high) == pytest.approx((slow.low, slow.high), rel=1e-10, abs=1e-12)
    for method in ("percentile", "basic"):
        assert fast.confidence_interval(method=method) == pytest.approx(
            slow.confidence_interval(method=method), rel=1e-10, abs=1e-12
        )


@pytest.mark.parametrize("case", ["squared", "absolute", "pinball(0.9)", "log_loss", "zero_one"])
def test_degenerate_resamples_are_undefined_on_both_paths(case):
    # 9 rows, 2 values / classes: some resamples hold one value, where the BMP risk is 0
    rng = np.random.default_rng(3)
    if case in ("log_loss",):
        y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1])
        p = np.clip(np.where(y == 1, 0.7, 0.3) + rng.normal(0, 0.1, 9), 0.01, 0.99)
    elif case == "zero_one":
        y = np.array([0, 0, 0, 0, 0, 0, 0, 1, 1])
        p = np.array([0, 0, 0, 1, 0, 0, 0, 1, 0])
    else:
        y = np.array([2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 2.0, 5.0, 5.0])
        p = y + rng.normal(0, 0.5, 9)
    options = {"loss": PinballLoss(0.9)} if case == "pinball(0.9)" else {"loss": case}
    fast = _quiet(bootstrap_ci, prediction_advantage, y, p, n_resamples=3000, random_state=1, **options)
    slow = _quiet(bootstrap_ci, generic, y, p, n_resamples=3000, random_state=1, **options)
    # P(no minority value in 9 draws) = (7/9)^9 = 10.5%
    assert 200 < fast.n_undefined == slow.n_undefined < 450
    np.testing.assert_allclose(fast.distribution, slow.distribution, rtol=1e-12, atol=1e-12, equal_nan=True)
    assert fast.acceleration == pytest.approx(slow.acceleration, rel=1e-8, abs=1e-12)
    with pytest.warns(UndefinedMeasureWarning, match="undefined in"):
        bootstrap_ci(prediction_advantage, y, p, n_resamples=3000, random_state=1, **options)


def test_moment_formula_is_replaced_where_it_would_lose_precision():
    # a huge offset: var / (second moment about the full-sample mean) is tiny in the
    # resamples that miss the outlier; the two-pass recomputation keeps them exact
    rng = np.random.default_rng(5)
    y = np.r_[1e7 + rng.normal(0, 1, 60), 1e13]
    f = y + rng.normal(0, 0.5, 61)
    fast = _quiet(bootstrap_ci, prediction_advantage, y, f, loss="squared", n_resamples=400, random_state=2)
    slow = _quiet(bootstrap_ci, generic, y, f, loss="squared", n_resamples=400, random_state=2)
    np.testing.assert_allclose(fast.distribution, slow.distribution, rtol=1e-10, atol=1e-12, equal_nan=True)


# --- each resample checked against scikit-learn and brute force ----------------------------------


def _brute_pinball_pa(y, f, w, alpha):
    """PA of the pinball loss; the BMP is the best constant among the observed values
    (the risk is piecewise linear in the constant), found by trying every one."""
    keep = w > 0
    y, f, w = y[keep], f[keep], w[keep]

    def risk(c):
        d = y - c
        return np.sum(w * np.where(d >= 0, alpha * d, (alpha - 1) * d)) / w.sum()

    base = min(risk(c) for c in np.unique(y))
    d = y - f
    return 1 - np.sum(w * np.where(d >= 0, alpha * d, (alpha - 1) * d)) / w.sum() / base


@pytest.mark.parametrize(
    "case, reference",
    [
        ("squared", lambda y, p, w: skm.r2_score(y, p, sample_weight=w)),
        ("absolute", lambda y, p, w: skm.d2_absolute_error_score(y, p, sample_weight=w)),
        ("pinball(0.9)", lambda y, p, w: skm.d2_pinball_score(y, p, sample_weight=w, alpha=0.9)),
        ("pinball(0.9)", lambda y, p, w: _brute_pinball_pa(y, p, w, 0.9)),
        ("pinball(0.25)", lambda y, p, w: _brute_pinball_pa(y, p, w, 0.25)),
        ("log_loss", lambda y, p, w: skm.d2_log_loss_score(y, p, sample_weight=w, labels=[0, 1, 2])),
        ("brier", lambda y, p, w: skm.d2_brier_score(y, p, sample_weight=w, labels=[0, 1, 2])),
    ],
)
@pytest.mark.parametrize("weights", ["none", "importance"])
def test_every_resample_is_the_reference_on_that_resample(case, reference, weights):
    y, p, options = CASES[case]
    w, weight_type = WEIGHTS[weights]
    res = bootstrap_ci(prediction_advantage, y, p, sample_weight=w, n_resamples=40, random_state=11,
                       method="percentile", **options)
    counts = recorded_weights(y, p, 40, 11, sample_weight=w)
    want = np.array([reference(y, p, c) for c in counts])
    np.testing.assert_allclose(res.distribution, want, rtol=1e-9, atol=1e-12)


def test_cost_matrix_resample_is_the_brute_force_bmp():
    y, p, options = CASES["cost_matrix"]
    res = bootstrap_ci(prediction_advantage, y, p, n_resamples=60, random_state=4, method="percentile", **options)
    b = COSTS.matrix  # b[predicted, true]
    for value, c in zip(res.distribution, recorded_weights(y, p, 60, 4)):
        risk = np.sum(c * b[p, y]) / c.sum()
        base = min(np.sum(c * b[i, y]) / c.sum() for i in range(3))
        assert value == pytest.approx(1 - risk / base, rel=1e-12)


def test_bmp_is_re_estimated_in_every_resample():
    # the median of the resample moves; a BMP fixed at the full-sample median is worse on
    # the resample, so its PA is higher (R(f0) can only shrink when re-estimated)
    rng = np.random.default_rng(8)
    y = rng.exponential(1.0, 300)
    f = y + rng.normal(0, 0.4, 300)
    res = bootstrap_ci(prediction_advantage, y, f, loss="absolute", n_resamples=300, random_state=0,
                       method="percentile")
    counts = recorded_weights(y, f, 300, 0)
    med = np.median(y)
    fixed = np.array([1 - np.sum(c * np.abs(y - f)) / np.sum(c * np.abs(y - med)) for c in counts])
    moved = np.array([np.sum(c * np.abs(y - med)) - np.sum(c * np.abs(y - np.quantile(np.repeat(y, c.astype(int)),
                      0.5, method="averaged_inverted_cdf"))) for c in counts])
    assert np.all(res.distribution <= fixed + 1e-12)
    assert np.mean(moved > 1e-9) > 0.9  # the median moved in (almost) every resample
    assert np.mean(res.distribution < fixed - 1e-9) > 0.9
    # the 0/1 loss by function: near balance, the majority class flips between resamples
    yl = (rng.random(400) < 0.49).astype(int)
    pl = np.where(rng.random(400) < 0.7, yl, 1 - yl)
    res01 = bootstrap_ci(prediction_advantage, yl, pl, n_resamples=400, random_state=1, method="percentile")
    counts01 = recorded_weights(yl, pl, 400, 1)
    majority = (counts01 @ yl) > counts01.sum(axis=1) / 2
    assert 0.1 < majority.mean() < 0.9
    err = counts01 @ (yl != pl) / counts01.sum(axis=1)
    base = np.minimum(counts01 @ yl, counts01 @ (1 - yl)) / counts01.sum(axis=1)
    np.testing.assert_allclose(res01.distribution, 1 - err / base, rtol=1e-12)


# --- the jackknife: exact leave-one-out values from the sums ------------------------------------


@pytest.mark.parametrize("case", ["squared", "absolute", "pinball(0.9)", "log_loss", "brier", "cost_matrix"])
@pytest.mark.parametrize("weights", ["none", "importance", "frequency"])
def test_leave_one_out_values_are_brute_force(case, weights):
    y, p, options = CASES[case]
    w, weight_type = WEIGHTS[weights]
    sub = slice(0, 90)  # brute force: one call per row
    y, p = y[sub], p[sub]
    w = None if w is None else w[sub]
    stat = _fast_statistic(y, p, options, w, weight_type)
    values, mult = stat.exact_jackknife()
    present = np.flatnonzero(stat.m > 0)
    want = []
    for i in present:
        if weight_type == "frequency":  # one observation of row i leaves
            wi = w.copy()
            wi[i] -= 1
            want.append(prediction_advantage(y, p, sample_weight=wi, **options))
        else:
            keep = np.arange(len(y)) != i
            want.append(prediction_advantage(y[keep], p[keep], sample_weight=None if w is None else w[keep],
                                             labels=[0, 1, 2] if case in ("log_loss", "brier") else None,
                                             **options))
    np.testing.assert_allclose(values, want, rtol=1e-10, atol=1e-12)
    np.testing.assert_array_equal(mult, stat.m[present])


@pytest.mark.parametrize(
    "loss", ["squared", "absolute", PinballLoss(0.8), PinballLoss(0.99), "log_loss", "brier", "zero_one"]
)
@pytest.mark.parametrize("weights", ["none", "importance", "frequency"])
def test_leave_one_out_of_a_singleton_is_undefined(loss, weights):
    # one row holds the only other value / class: without it the BMP risk is exactly 0
    rng = np.random.default_rng(12)
    n = 25
    if loss in ("log_loss", "brier"):
        y = np.r_[np.zeros(n - 1, dtype=int), 1]
        p = np.clip(0.2 + 0.6 * y + rng.normal(0, 0.1, n), 0.01, 0.99)
    elif loss == "zero_one":
        y = np.r_[np.zeros(n - 1, dtype=int), 1]
        p = (rng.random(n) < 0.2).astype(int)
    else:  # with the 0.99-quantile the centre is 0.7: the leftover 0.3s are off-centre
        y = np.r_[np.full(n - 1, 0.3), 0.7]
        p = y + rng.normal(0, 0.1, n)
    w = {"none": None, "importance": np.r_[rng.uniform(0.2, 3.0, n - 1), 3.5],
         "frequency": np.r_[rng.integers(1, 4, n - 1), 1]}[weights]
    weight_type = "frequency" if weights == "frequency" else "importance"
    stat = _fast_statistic(y, p, {"loss": loss}, w, weight_type)
    values, _ = stat.exact_jackknife()
    assert np.isnan(values[-1]) and np.isfinite(values[:-1]).all()
    fast = _quiet(bootstrap_ci, prediction_advantage, y, p, loss=loss, sample_weight=w,
                  weight_type=weight_type, n_resamples=100, random_state=0)
    slow = _quiet(bootstrap_ci, generic, y, p, loss=loss, sample_weight=w,
                  weight_type=weight_type, n_resamples=100, random_state=0)
    assert fast.acceleration == pytest.approx(slow.acceleration, rel=1e-8, abs=1e-12)


def test_leave_one_out_bmp_risk_is_exactly_zero_whatever_the_rounding():
    # the prefix sums are centred on the full-sample quantile (0.7 here, the singleton);
    # without the singleton, every y is 0.3 and the risk must be 0, not rounding noise
    rng = np.random.default_rng(21)
    y = np.r_[np.full(30, 0.3), 0.7]
    p = y + rng.normal(0, 0.1, 31)
    for _ in range(25):
        w = np.r_[rng.uniform(0.1, 1.0, 30), 40.0]
        values, _ = _fast_statistic(y, p, {"loss": PinballLoss(0.99)}, w).exact_jackknife()
        assert np.isnan(values[-1]) and np.isfinite(values[:-1]).all()


@pytest.mark.parametrize("loss", ["absolute", PinballLoss(0.3), "squared"])
def test_one_valued_resamples_away_from_the_centre_are_undefined(loss):
    # resamples drawing a single value have BMP risk exactly 0, also when that value is
    # not the centre of the prefix sums (the full-sample quantile), where y - centre and
    # the sums are inexact
    rng = np.random.default_rng(4)
    y = np.array([0.1, 0.1, 0.1, 0.7, 0.7, 0.7])
    p = y + rng.normal(0, 0.2, 6)
    w = np.array([2.9, 1.7, 2.2, 0.3, 0.65, 0.45])  # the centre is 0.1
    fast = _quiet(bootstrap_ci, prediction_advantage, y, p, loss=loss, sample_weight=w,
                  n_resamples=4000, random_state=5)
    slow = _quiet(bootstrap_ci, generic, y, p, loss=loss, sample_weight=w,
                  n_resamples=4000, random_state=5)
    counts = recorded_weights(y, p, 4000, 5, sample_weight=w)
    drawn = counts > 0
    one_value = np.array([np.unique(y[d]).size == 1 for d in drawn])
    away = one_value & ~drawn[:, :3].any(axis=1)  # only 0.7, drawn from several rows
    assert away.sum() >= 30  # expected (1/2)^6 = 1.6% of the resamples
    assert np.isnan(fast.distribution[one_value]).all()
    np.testing.assert_allclose(fast.distribution, slow.distribution, rtol=1e-10, atol=1e-12, equal_nan=True)


# --- routes ----------------------------------------------------------------------------------------


def test_name_function_and_partial_give_the_same_fast_resamples():
    y, p, _ = CASES["absolute"]
    by_function = bootstrap_ci(prediction_advantage, y, p, loss="absolute", random_state=3, n_resamples=200)
    by_name = bootstrap_ci("prediction_advantage", y, p, loss="absolute", random_state=3, n_resamples=200)
    by_alias = bootstrap_ci("pa", y, p, loss="mae", random_state=3, n_resamples=200)
    partial = bootstrap_ci(functools.partial(prediction_advantage, loss=AbsoluteLoss()), y, p,
                           random_state=3, n_resamples=200)
    for other in (by_name, by_alias, partial):
        np.testing.assert_array_equal(other.distribution, by_function.distribution)
        assert (other.low, other.high) == (by_function.low, by_function.high)
    assert by_function.measure == "prediction_advantage (loss=absolute)"


def test_zero_one_by_name_keeps_the_confusion_route():
    y, p, _ = CASES["zero_one"]
    plain = bootstrap_ci("prediction_advantage", y, p, random_state=2, n_resamples=300)
    explicit = bootstrap_ci("prediction_advantage", y, p, loss="zero_one", random_state=2, n_resamples=300)
    np.testing.assert_array_equal(plain.distribution, explicit.distribution)
    stat = advantage._pa_statistic(y, p, None, "importance", {"loss": "0_1"}, by_name=True)
    assert type(stat) is resampling._ConfusionStatistic


@pytest.mark.parametrize("case", ["cost_matrix", "label callable"])
def test_label_losses_by_name_resample_the_confusion_cells(case):
    y, p, options = CASES[case]
    stat = advantage._pa_statistic(y, p, None, "importance", options, by_name=True)
    assert isinstance(stat, advantage._PALabelCells) and stat.m.size <= 9
    # any vector of cell counts: the PA of the data those counts describe
    rng = np.random.default_rng(0)
    counts = rng.multinomial(50, np.full(stat.m.size, 1 / stat.m.size), size=30).astype(float)
    got = stat.evaluate(counts)
    k = 3
    for value, c in zip(got, counts):
        reps = np.repeat(stat.cells, c.astype(int))
        yt, yp = reps // k, reps % k
        want = _quiet(prediction_advantage, yt, yp, labels=[0, 1, 2], **options)
        np.testing.assert_allclose(value, want, rtol=1e-12, equal_nan=True)
    # same estimate, acceleration and (in law) distribution as the rows route
    cells = bootstrap_ci("prediction_advantage", y, p, random_state=0, n_resamples=3000, **options)
    rows = bootstrap_ci(generic, y, p, random_state=1, n_resamples=600, **options)
    assert cells.estimate == rows.estimate
    assert cells.acceleration == pytest.approx(rows.acceleration, rel=1e-9)
    assert sps.ks_2samp(cells.distribution, rows.distribution).pvalue > 1e-3
    # importance weights: pools are (cell, weight) pairs; the jackknife is leave-one-row-out
    w, _ = WEIGHTS["integer importance"]
    a = bootstrap_ci("prediction_advantage", y, p, sample_weight=w, random_state=0, n_resamples=50, **options)
    b = bootstrap_ci(generic, y, p, sample_weight=w, random_state=0, n_resamples=50, **options)
    assert a.estimate == b.estimate and a.acceleration == pytest.approx(b.acceleration, rel=1e-9)


def test_other_options_and_losses_take_the_generic_path():
    y, p, _ = CASES["squared"]
    train = Y_REAL[::-1][:300]
    with_prior = advantage._pa_statistic(y, p, None, "importance", {"loss": "squared", "prior": train}, by_name=False)
    assert type(with_prior) is resampling._CallableStatistic
    a = bootstrap_ci(prediction_advantage, y, p, loss="squared", prior=train, random_state=0, n_resamples=40)
    b = bootstrap_ci(generic, y, p, loss="squared", prior=train, random_state=0, n_resamples=40)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    real_callable = CallableLoss(lambda q, t: np.abs(q - t) ** 1.5, prediction="real")
    stat = advantage._pa_statistic(y[:50], p[:50], None, "importance", {"loss": real_callable}, by_name=False)
    assert type(stat) is resampling._CallableStatistic


# --- bad input ------------------------------------------------------------------------------------


@pytest.mark.parametrize("measure", ["prediction_advantage", prediction_advantage])
@pytest.mark.parametrize(
    "y, p, kwargs, match",
    [
        (Y_REAL, F_REAL[:-1], {"loss": "squared"}, "length|samples"),
        (np.r_[Y_REAL[:-1], np.nan], F_REAL, {"loss": "absolute"}, "NaN"),
        (Y_REAL, F_REAL, {"loss": "squared", "sample_weight": -np.ones(N)}, "negative"),
        (Y_REAL, F_REAL, {"loss": "squared", "sample_weight": np.full(N, 0.5), "weight_type": "frequency"},
         "integer"),
        (Y_REAL, F_REAL, {"loss": "no_such_loss"}, "unknown loss"),
        (Y_REAL, F_REAL, {"loss": "absolute", "labels": [0, 1]}, "labels"),
        (Y_MULTI, F_MULTI, {"loss": "squared", "multioutput": "raw_values"}, "one number"),
        (Y_MULTI, F_MULTI, {"loss": "absolute", "multioutput": [1.0, 2.0, 3.0]}, "multioutput"),
        (Y_MULTI, F_REAL, {"loss": "squared"}, "shape"),
        (Y_CLASS, PROBA * 0.9, {"loss": "log_loss"}, "sum"),
        (Y_CLASS, PROBA[:, :2], {"loss": "brier"}, "column|classes|shape"),
        (Y_LABEL, P_LABEL, {"loss": CostMatrixLoss(np.ones((2, 2)))}, "classes"),
    ],
)
def test_bad_input_raises(measure, y, p, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        bootstrap_ci(measure, y, p, n_resamples=40, random_state=0, **kwargs)


def test_options_the_measure_does_not_take_raise():
    with pytest.raises(InvalidInputError, match="zero_division"):
        bootstrap_ci("prediction_advantage", Y_REAL, F_REAL, loss="squared", zero_division=0)
    with pytest.raises(InvalidInputError, match="average"):
        bootstrap_ci("prediction_advantage", Y_LABEL, P_LABEL, loss=COSTS, average="macro")
