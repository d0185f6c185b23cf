"""Bootstrap confidence intervals: checked against exact bootstrap distributions,
scipy.stats.bootstrap, brute-force jackknives, closed forms and simulated coverage."""

from __future__ import annotations

import itertools
import json
import warnings

import numpy as np
import pytest
import scipy.stats as sps
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance import (
    BeyondChanceWarning,
    BootstrapResult,
    ConfusionMatrix,
    InvalidInputError,
    UndefinedMeasureError,
    UndefinedMeasureWarning,
    bootstrap_ci,
)
from beyondchance.measures.registry import METRICS, get_metric
from beyondchance.inference.bootstrap_resampling import _ConfusionStatistic


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _noisy_labels(rng, n, prevalence, accuracy):
    y = (rng.random(n) < prevalence).astype(int)
    p = np.where(rng.random(n) < accuracy, y, 1 - y)
    return y, p


# --- measures written here, independently of the package ---------------------------


def pa01_bruteforce(y_true, y_pred, sample_weight=None):
    """PA for the 0/1 loss with the BMP (majority class) of the weighted sample."""
    y_true, y_pred = np.asarray(y_true), np.asarray(y_pred)
    w = np.ones(y_true.shape[0]) if sample_weight is None else np.asarray(sample_weight, float)
    classes = np.unique(np.concatenate([y_true, y_pred]))
    mass = np.array([w[y_true == c].sum() for c in classes])
    majority = classes[np.argmax(mass)]
    risk = np.sum(w * (y_true != y_pred)) / w.sum()
    risk0 = np.sum(w * (y_true != majority)) / w.sum()
    return 1 - risk / risk0 if risk0 > 0 else float("nan")


def pa_squared(y_true, y_pred, sample_weight=None):
    """PA for the squared loss: the BMP is the (weighted) mean of y_true."""
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, float)
    mean = np.sum(w * y_true) / w.sum()
    return 1 - np.sum(w * (y_true - y_pred) ** 2) / np.sum(w * (y_true - mean) ** 2)


def weighted_accuracy(y_true, y_pred, sample_weight=None):
    w = np.ones(len(y_true)) if sample_weight is None else np.asarray(sample_weight, float)
    return float(np.sum(w * (np.asarray(y_true) == np.asarray(y_pred))) / w.sum())


def acceleration_bruteforce(values):
    d = values.mean() - values
    return np.sum(d**3) / (6 * np.sum(d**2) ** 1.5)


# --- the vectorised evaluation is ConfusionMatrix.metric -----------------------------


@settings(max_examples=25, deadline=None)
@given(
    k=st.integers(1, 3),
    average=st.sampled_from(["default", "macro", "weighted", "micro"]),
    seed=st.integers(0, 2**32 - 1),
    zero_division=st.sampled_from(["warn", "nan", 0.0, 1.0, np.nan]),
)
def test_evaluation_on_stacks_equals_confusion_matrix_metric(k, average, seed, zero_division):
    """The bootstrap's batched path is ConfusionMatrix.metric, undefined classes included."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, 40)
    p = np.where(rng.random(40) < 0.6, y, rng.integers(0, k, 40))
    if k > 1:  # make sure every class is present so that pos_label=1 exists for k = 2
        y[:k] = np.arange(k)
    labels = np.arange(k)
    # resampled-like matrices, many with empty rows/columns
    mats = rng.multinomial(rng.integers(1, 8), rng.dirichlet(np.ones(k * k) * 0.3), size=25)
    mats = mats.reshape(-1, k, k).astype(float)
    for name, metric in METRICS.items():
        opts = {"beta": 0.5} if name == "fbeta" else {}
        if average != "default":
            opts["average"] = average
        if k > 2 and average == "default" and metric.multiclass != "native":
            continue  # binary average on 3 classes is an error (tested below)
        stat = _quiet(_ConfusionStatistic.build, metric, y, p, None, "importance",
                      dict(opts, labels=labels, zero_division=zero_division))
        got = stat.evaluator(mats)
        kw = {key: v for key, v in opts.items()}
        want = np.array(
            [
                _quiet(ConfusionMatrix(m, labels, pos_label=1).metric, metric, zero_division=zero_division, **kw)
                for m in mats
            ],
            dtype=float,
        )
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, equal_nan=True, err_msg=name)


# --- the resampling model: exact bootstrap distribution by enumeration ----------------


def _exact_bootstrap_pmf(y_true, y_pred, statistic):
    """Exact distribution of statistic(resample): the rows fall in the 4 cells as
    Multinomial(n, cell shares); enumerate every composition of n."""
    n = len(y_true)
    cells = [(t, q) for t in (0, 1) for q in (0, 1)]
    shares = np.array([np.mean((y_true == t) & (y_pred == q)) for t, q in cells])
    pmf: dict[float | str, float] = {}
    for counts in itertools.product(range(n + 1), repeat=3):
        if sum(counts) > n:
            continue
        c = np.array([*counts, n - sum(counts)])
        prob = sps.multinomial.pmf(c, n, shares)
        if prob == 0:
            continue
        yt = np.repeat([t for t, _ in cells], c)
        yp = np.repeat([q for _, q in cells], c)
        value = statistic(yt, yp)
        key = round(value, 10) if np.isfinite(value) else "undefined"
        pmf[key] = pmf.get(key, 0.0) + prob
    return pmf


def _chisquare_pvalue(sample, pmf):
    keys = list(pmf)
    expected = np.array([pmf[k] for k in keys]) * sample.size
    rounded = np.where(np.isfinite(sample), np.round(sample, 10), np.nan)
    observed = np.array(
        [np.count_nonzero(np.isnan(rounded)) if k == "undefined" else np.count_nonzero(rounded == k) for k in keys]
    )
    assert observed.sum() == sample.size, "a resample value outside the exact support"
    big = expected >= 5
    obs = np.r_[observed[big], observed[~big].sum()]
    exp = np.r_[expected[big], expected[~big].sum()]
    if exp[-1] == 0:
        obs, exp = obs[:-1], exp[:-1]
    return sps.chisquare(obs, exp * obs.sum() / exp.sum()).pvalue


@pytest.mark.parametrize("path", ["metric name", "callable"])
def test_pa_bootstrap_distribution_is_the_exact_one_with_bmp_reestimated(path):
    # 6 positives, 4 negatives: in ~17% of the resamples the negatives are the majority,
    # so the BMP flips; a fixed BMP (always "positive") gives another distribution.
    y_true = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
    y_pred = np.array([1, 1, 1, 1, 0, 0, 0, 0, 1, 0])
    measure = "prediction_advantage" if path == "metric name" else pa01_bruteforce
    res = _quiet(bootstrap_ci, measure, y_true, y_pred, n_resamples=20000, random_state=11, method="percentile")
    sample = np.asarray(res.distribution)

    exact = _exact_bootstrap_pmf(y_true, y_pred, pa01_bruteforce)
    assert _chisquare_pvalue(sample, exact) > 1e-4

    def pa_fixed_bmp(yt, yp):  # the BMP of the full sample kept in every resample
        r0 = np.mean(yt != 1)
        return 1 - np.mean(yt != yp) / r0 if r0 > 0 else float("nan")

    fixed = _exact_bootstrap_pmf(y_true, y_pred, pa_fixed_bmp)
    rounded = np.where(np.isfinite(sample), np.round(sample, 10), np.nan)
    outside = ~np.isin(rounded, [k for k in fixed if k != "undefined"]) & np.isfinite(rounded)
    # the fixed-BMP model cannot produce these values, or is rejected by the same test
    assert outside.any() or _chisquare_pvalue(sample, fixed) < 1e-8
    assert res.n_undefined == np.count_nonzero(np.isnan(sample))


def test_pa_interval_differs_from_fixed_bmp_interval():
    # near-balanced data: re-estimating the majority class in each resample matters
    rng = np.random.default_rng(5)
    y, p = _noisy_labels(rng, 60, 0.5, 0.75)

    def pa_fixed(yt, yp, sample_weight=None):
        w = np.ones(len(yt)) if sample_weight is None else sample_weight
        majority = 1 if np.mean(y) >= 0.5 else 0  # from the FULL sample
        return 1 - np.sum(w * (yt != yp)) / np.sum(w * (yt != majority))

    ours = bootstrap_ci("prediction_advantage", y, p, random_state=1, n_resamples=4000, method="percentile")
    other = bootstrap_ci(pa_fixed, y, p, random_state=1, n_resamples=4000, method="percentile")
    brute = bootstrap_ci(pa01_bruteforce, y, p, random_state=1, n_resamples=4000, method="percentile")
    assert ours.estimate == pytest.approx(brute.estimate) == pytest.approx(other.estimate)
    # the re-estimated BMP never does worse than the fixed one: PA* <= PA*_fixed
    assert np.all(brute.distribution <= other.distribution + 1e-12)
    assert ours.high < other.high - 0.02
    assert sps.ks_2samp(ours.distribution, brute.distribution).pvalue > 1e-3


# --- agreement with scipy.stats.bootstrap ------------------------------------------------


def _mcc_vectorized(yt, yp, axis=-1):
    tp = np.sum(yt * yp, axis=axis)
    fp = np.sum((1 - yt) * yp, axis=axis)
    fn = np.sum(yt * (1 - yp), axis=axis)
    tn = np.sum((1 - yt) * (1 - yp), axis=axis)
    return (tp * tn - fp * fn) / np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))


def _pa_squared_vectorized(y, f, axis=-1):
    mean = np.mean(y, axis=axis, keepdims=True)
    return 1 - np.sum((y - f) ** 2, axis=axis) / np.sum((y - mean) ** 2, axis=axis)


@pytest.mark.parametrize("method", ["percentile", "basic", "bca"])
@pytest.mark.parametrize("case", ["mcc (confusion path)", "PA squared loss (callable)"])
def test_agrees_with_scipy_bootstrap(method, case):
    rng = np.random.default_rng(3)
    if case.startswith("mcc"):
        y, p = _noisy_labels(rng, 120, 0.35, 0.8)
        ours = bootstrap_ci("mcc", y, p, n_resamples=10000, method=method, random_state=0)
        stat = _mcc_vectorized
    else:
        y = rng.normal(size=60) ** 2  # skewed target
        p = y + rng.normal(scale=0.8, size=60)
        ours = bootstrap_ci(pa_squared, y, p, n_resamples=10000, method=method, random_state=0)
        stat = _pa_squared_vectorized
    ref = sps.bootstrap(
        (y, p), stat, paired=True, vectorized=True, n_resamples=10000, method=method,
        rng=np.random.default_rng(1), batch=2000,
    )
    assert ours.estimate == pytest.approx(stat(y, p))
    se = ref.standard_error
    dist = ref.bootstrap_distribution
    for mine, theirs in ((ours.low, ref.confidence_interval.low), (ours.high, ref.confidence_interval.high)):
        # a basic-interval end is 2 * estimate - a quantile: locate that quantile
        quantile = 2 * ours.estimate - theirs if method == "basic" else theirs
        assert mine == pytest.approx(theirs, abs=_mc_tolerance(dist, quantile, se))
    # sd of a bootstrap SE from B resamples: SE / sqrt(2B) = 0.7% per run
    assert ours.standard_error == pytest.approx(se, rel=0.05)


def _mc_tolerance(dist, endpoint, se):
    """Tolerance for comparing two independent bootstrap runs at one interval end.

    The Monte Carlo sd of the q-quantile of B resamples is about half the distance
    between the quantiles at q -+ sqrt(q(1-q)/B) (order-statistic argument); it is large
    in a long tail (PA with a skewed target) and small elsewhere.  The difference of two
    runs has sqrt(2) times that sd; BCa adds the noise of z0 (measured: up to 1.6x the
    local sd).  6 x sqrt(2) x local sd is therefore 4-5 sd of the difference; the floor
    covers ties of a discrete statistic.  A wrong level (90% instead of 95%) moves an end
    by about 0.3 SE, far more than the tolerance where the distribution is not long-tailed.
    """
    b = dist.size
    q = float(np.clip(np.mean(dist <= endpoint), 1 / b, 1 - 1 / b))
    s = np.sqrt(q * (1 - q) / b)
    local = (np.quantile(dist, min(q + s, 1.0)) - np.quantile(dist, max(q - s, 0.0))) / 2
    return max(6 * np.sqrt(2) * local, 0.02 * se)


def test_bca_formula_on_a_discrete_statistic():
    # accuracy at n = 25: many resamples tie with the estimate, so the tie rule of z0
    # matters; z0 via scipy.stats.percentileofscore(kind="mean") (Efron & Tibshirani 14.14)
    from scipy.special import ndtr, ndtri

    rng = np.random.default_rng(13)
    y, p = _noisy_labels(rng, 25, 0.4, 0.7)
    res = bootstrap_ci("accuracy", y, p, random_state=2, n_resamples=3000, confidence_level=0.9)
    d = res.distribution
    assert np.mean(d == res.estimate) > 0.1
    z0 = ndtri(sps.percentileofscore(d, res.estimate, kind="mean") / 100)
    assert res.bias_correction == pytest.approx(z0, rel=1e-12)
    loo = np.array([np.mean(np.delete(y, i) == np.delete(p, i)) for i in range(25)])
    a = acceleration_bruteforce(loo)
    z = sps.norm.ppf([0.05, 0.95])
    levels = ndtr(z0 + (z0 + z) / (1 - a * (z0 + z)))
    want = np.quantile(d, levels)
    assert (res.low, res.high) == pytest.approx(tuple(want), rel=1e-12)


# --- the jackknife -------------------------------------------------------------------


def test_acceleration_is_the_exact_jackknife_one():
    rng = np.random.default_rng(8)
    y, p = _noisy_labels(rng, 90, 0.3, 0.8)
    loo = np.array([skm.f1_score(np.delete(y, i), np.delete(p, i)) for i in range(y.size)])
    want = acceleration_bruteforce(loo)
    by_name = bootstrap_ci("f1", y, p, n_resamples=50, random_state=0)
    by_callable = bootstrap_ci(skm.f1_score, y, p, n_resamples=50, random_state=0)
    assert by_name.acceleration == pytest.approx(want, rel=1e-9, abs=1e-15)
    assert by_callable.acceleration == pytest.approx(want, rel=1e-9, abs=1e-15)
    assert by_name.jackknife.startswith("exact") and by_callable.jackknife.startswith("exact")


def test_acceleration_with_importance_weights_is_leave_one_row_out():
    rng = np.random.default_rng(9)
    y, p = _noisy_labels(rng, 70, 0.4, 0.7)
    w = rng.choice([0.5, 1.0, 3.0], size=70)
    loo = np.array(
        [skm.f1_score(np.delete(y, i), np.delete(p, i), sample_weight=np.delete(w, i)) for i in range(70)]
    )
    res = bootstrap_ci("f1", y, p, sample_weight=w, n_resamples=50, random_state=0)
    assert res.acceleration == pytest.approx(acceleration_bruteforce(loo), rel=1e-9)


def test_grouped_jackknife_on_large_n_estimates_the_exact_acceleration():
    rng = np.random.default_rng(10)
    n = 6000  # above the exact limit for callables
    y, p = _noisy_labels(rng, n, 0.5, 0.96)  # a skewed statistic: accuracy near 1
    exact = bootstrap_ci("accuracy", y, p, n_resamples=20, confidence_level=0.9, random_state=0)
    grouped = bootstrap_ci(weighted_accuracy, y, p, n_resamples=20, confidence_level=0.9, random_state=0)
    assert grouped.jackknife.startswith("grouped")
    # closed form of the exact jackknife acceleration of a proportion q:
    # theta_bar - theta_(i) = (x_i - q) / (n - 1), so a = (1 - 2q) / (6 sqrt(n q (1 - q)))
    q = np.mean(y == p)
    assert exact.acceleration == pytest.approx((1 - 2 * q) / (6 * np.sqrt(n * q * (1 - q))), rel=1e-6)
    # Monte Carlo sd of the grouped estimate: at most 0.65 / 500 blocks = 0.0013 (normal
    # block sums; 0.0008 measured over 20 seeds here), so 0.004 is 3-5 sd
    assert grouped.acceleration == pytest.approx(exact.acceleration, abs=0.004)


# --- coverage and scale ----------------------------------------------------------------


def test_coverage_of_percentile_and_bca_for_a_proportion():
    rng = np.random.default_rng(2024)
    n, q, reps = 80, 0.75, 800
    hits = {"percentile": 0, "bca": 0}
    for r in range(reps):
        y_true = np.ones(n, dtype=int)
        y_pred = (rng.random(n) < q).astype(int)
        res = _quiet(bootstrap_ci, "accuracy", y_true, y_pred, n_resamples=999, random_state=r)
        for method in hits:
            low, high = res.confidence_interval(method=method)
            hits[method] += low <= q <= high
    # binomial sd of the empirical coverage at 800 repetitions: 0.0077; the lattice of a
    # proportion at n = 80 moves the true coverage of these intervals by about +-0.01
    for method, h in hits.items():
        assert abs(h / reps - 0.95) < 0.035, (method, h / reps)


def test_standard_error_of_accuracy_is_the_binomial_one():
    rng = np.random.default_rng(4)
    y, p = _noisy_labels(rng, 2000, 0.2, 0.9)
    res = bootstrap_ci("accuracy", y, p, n_resamples=8000, random_state=0, method="percentile")
    q = np.mean(y == p)
    # plug-in bootstrap variance of a mean is q(1-q)/n exactly; MC error sd ~ 1/sqrt(2B) = 0.8%
    assert res.standard_error == pytest.approx(np.sqrt(q * (1 - q) / y.size), rel=0.04)


def test_importance_weights_standard_error_is_the_ratio_estimator_one():
    rng = np.random.default_rng(6)
    n = 3000
    y, p = _noisy_labels(rng, n, 0.3, 0.8)
    w = rng.gamma(0.5, 2.0, size=n)
    correct = (y == p).astype(float)
    t = np.sum(w * correct) / w.sum()
    # linearisation of sum(c w x) / sum(c w) under c ~ Multinomial(n, 1/n)
    se = np.sqrt(np.sum(w**2 * (correct - t) ** 2)) / w.sum()
    for measure in ("accuracy", weighted_accuracy):
        res = bootstrap_ci(measure, y, p, sample_weight=w, n_resamples=6000, random_state=0, method="percentile")
        assert res.estimate == pytest.approx(t)
        assert res.standard_error == pytest.approx(se, rel=0.05)


# --- weights ------------------------------------------------------------------------------


@pytest.mark.parametrize("measure", ["f1", "mcc", weighted_accuracy])
@pytest.mark.parametrize("weight_type", ["importance", "frequency"])
def test_weights_of_ones_are_no_weights(measure, weight_type):
    rng = np.random.default_rng(1)
    y, p = _noisy_labels(rng, 150, 0.4, 0.8)
    a = bootstrap_ci(measure, y, p, random_state=3, n_resamples=500)
    b = bootstrap_ci(measure, y, p, sample_weight=np.ones(150), weight_type=weight_type, random_state=3, n_resamples=500)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert (a.low, a.high, a.acceleration) == (b.low, b.high, b.acceleration)


def test_integer_frequency_weights_are_repeated_rows():
    rng = np.random.default_rng(2)
    y, p = _noisy_labels(rng, 200, 0.3, 0.8)
    w = rng.integers(0, 4, 200)
    yr, pr = np.repeat(y, w), np.repeat(p, w)
    # labeling metrics: the same multinomial over the cells -> identical draws
    a = bootstrap_ci("f1", y, p, sample_weight=w, weight_type="frequency", random_state=5)
    b = bootstrap_ci("f1", yr, pr, random_state=5)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert (a.estimate, a.low, a.high, a.acceleration) == (b.estimate, b.low, b.high, b.acceleration)
    # callables: rows vs observations are different pools, same distribution
    c = bootstrap_ci(weighted_accuracy, y, p, sample_weight=w, weight_type="frequency", random_state=5, method="percentile")
    d = bootstrap_ci(weighted_accuracy, yr, pr, random_state=6, method="percentile")
    assert c.estimate == pytest.approx(d.estimate)
    assert sps.ks_2samp(c.distribution, d.distribution).pvalue > 1e-3
    assert c.standard_error == pytest.approx(d.standard_error, rel=0.1)
    # importance weights resample the 200 rows, not the observations: a wider interval
    e = bootstrap_ci(weighted_accuracy, y, p, sample_weight=w, random_state=5, method="percentile")
    assert e.standard_error > 1.1 * c.standard_error


def test_zero_weights_are_removed_rows():
    rng = np.random.default_rng(3)
    y, p = _noisy_labels(rng, 120, 0.4, 0.8)
    w = rng.choice([0.0, 1.0, 2.5], size=120)
    keep = w > 0
    for measure in ("f1", weighted_accuracy):
        a = bootstrap_ci(measure, y, p, sample_weight=w, random_state=4, n_resamples=3000, method="percentile")
        b = bootstrap_ci(measure, y[keep], p[keep], sample_weight=w[keep], random_state=4, n_resamples=3000, method="percentile")
        assert a.estimate == pytest.approx(b.estimate)
        assert a.standard_error == pytest.approx(b.standard_error, rel=0.08)


def test_callable_without_sample_weight_gets_repeated_rows():
    rng = np.random.default_rng(4)
    y, p = _noisy_labels(rng, 100, 0.4, 0.8)

    def acc(yt, yp):
        return float(np.mean(yt == yp))

    a = bootstrap_ci(acc, y, p, random_state=9, n_resamples=300)
    b = bootstrap_ci(weighted_accuracy, y, p, random_state=9, n_resamples=300)
    np.testing.assert_allclose(a.distribution, b.distribution, rtol=1e-12)
    assert a.acceleration == pytest.approx(b.acceleration, rel=1e-9)
    with pytest.raises(InvalidInputError, match="sample_weight"):
        bootstrap_ci(acc, y, p, sample_weight=np.ones(100))


# --- reproducibility and the result object ----------------------------------------------


def test_same_seed_same_interval_and_generators():
    rng = np.random.default_rng(0)
    y, p = _noisy_labels(rng, 5000, 0.3, 0.8)
    for measure in ("mcc", weighted_accuracy):
        a = bootstrap_ci(measure, y, p, random_state=42, n_resamples=200)
        b = bootstrap_ci(measure, y, p, random_state=42, n_resamples=200)
        c = bootstrap_ci(measure, y, p, random_state=np.random.default_rng(42), n_resamples=200)
        d = bootstrap_ci(measure, y, p, random_state=43, n_resamples=200)
        assert (a.low, a.high) == (b.low, b.high) == (c.low, c.high)
        np.testing.assert_array_equal(a.distribution, b.distribution)
        assert not np.array_equal(a.distribution, d.distribution)
    legacy = bootstrap_ci("f1", y, p, random_state=np.random.RandomState(0), n_resamples=50)
    assert np.isfinite(legacy.low)


def test_result_recomputes_intervals_from_its_resamples():
    rng = np.random.default_rng(1)
    y, p = _noisy_labels(rng, 300, 0.3, 0.8)
    res = bootstrap_ci("f1", y, p, random_state=7)
    for level in (0.8, 0.99):
        for method in ("percentile", "basic", "bca"):
            again = bootstrap_ci("f1", y, p, random_state=7, confidence_level=level, method=method)
            assert tuple(res.confidence_interval(level, method=method)) == (again.low, again.high)
    pct = bootstrap_ci("f1", y, p, random_state=7, method="percentile")
    assert pct.acceleration is None
    with pytest.raises(InvalidInputError, match="bca"):
        pct.confidence_interval(method="bca")
    d = res.to_dict(distribution=True)
    json.dumps(d)
    assert d["low"] == res.low and len(d["distribution"]) == res.n_resamples
    assert "distribution" not in res.to_dict()
    assert res.bias == pytest.approx(np.mean(res.distribution) - res.estimate)
    assert isinstance(res, BootstrapResult) and "f1" in repr(res)


@settings(max_examples=30, deadline=None)
@given(
    name=st.sampled_from(["accuracy", "f1", "mcc", "precision", "recall", "kappa", "balanced_accuracy"]),
    method=st.sampled_from(["percentile", "bca", "basic"]),
    weighted=st.booleans(),
    seed=st.integers(0, 2**32 - 1),
)
def test_estimate_is_scikit_learn_and_interval_is_ordered(name, method, weighted, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(20, 200))
    y, p = _noisy_labels(rng, n, rng.uniform(0.2, 0.8), rng.uniform(0.6, 0.95))
    y[:2], p[:2] = [0, 1], [0, 1]  # both classes present
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    sk = {
        "accuracy": skm.accuracy_score, "f1": skm.f1_score, "mcc": skm.matthews_corrcoef,
        "precision": skm.precision_score, "recall": skm.recall_score,
        "kappa": skm.cohen_kappa_score, "balanced_accuracy": skm.balanced_accuracy_score,
    }[name]
    res = _quiet(bootstrap_ci, name, y, p, sample_weight=w, method=method, n_resamples=200, random_state=seed)
    assert res.estimate == pytest.approx(sk(y, p, sample_weight=w), abs=1e-12)
    assert res.low <= res.high
    theta = res.distribution[np.isfinite(res.distribution)]
    metric = get_metric(name)
    assert np.all((theta >= metric.lower - 1e-12) & (theta <= metric.upper + 1e-12))
    if method != "basic":  # percentile and BCa ends are resample values (interpolated)
        assert theta.min() <= res.low and res.high <= theta.max()


# --- undefined resamples -------------------------------------------------------------


def test_undefined_resamples_are_dropped_with_a_warning():
    # 2 positives in 40: a resample has no positive with probability (38/40)^40 = 0.129
    y = np.zeros(40, dtype=int)
    y[:2] = 1
    p = y.copy()
    p[5] = 1
    with pytest.warns(UndefinedMeasureWarning, match=r"undefined in \d+ of 4000"):
        res = bootstrap_ci("recall", y, p, n_resamples=4000, random_state=0)
    n_nan = np.count_nonzero(np.isnan(res.distribution))
    assert res.n_undefined == n_nan
    expected = 4000 * (38 / 40) ** 40
    assert abs(n_nan - expected) < 4 * np.sqrt(expected)
    assert np.isfinite(res.low) and np.isfinite(res.high)
    theta = res.distribution[np.isfinite(res.distribution)]
    assert res.standard_error == pytest.approx(np.std(theta, ddof=1))

    with pytest.warns(UndefinedMeasureWarning, match="nan"):
        prop = bootstrap_ci("recall", y, p, n_resamples=4000, random_state=0, nan_policy="propagate")
    assert np.isnan(prop.low) and np.isnan(prop.high)
    with pytest.raises(UndefinedMeasureError):
        bootstrap_ci("recall", y, p, n_resamples=4000, random_state=0, nan_policy="raise")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        zero = bootstrap_ci("recall", y, p, n_resamples=4000, random_state=0, zero_division=0)
    assert zero.n_undefined == 0 and np.count_nonzero(zero.distribution == 0) == n_nan


def test_callable_raising_on_a_degenerate_resample_counts_as_undefined():
    rng = np.random.default_rng(0)
    y = np.zeros(30, dtype=int)
    y[:2] = 1
    score = rng.random(30) + y
    with pytest.warns(UndefinedMeasureWarning, match="undefined in"):
        res = bootstrap_ci(skm.roc_auc_score, y, score, n_resamples=500, random_state=0)
    assert 0 < res.n_undefined < 500 and np.isfinite(res.low)


def test_undefined_estimate_gives_a_nan_interval():
    y = np.ones(20, dtype=int)
    p = np.r_[np.ones(10, dtype=int), np.zeros(10, dtype=int)]
    with pytest.warns(UndefinedMeasureWarning, match="undefined on the data"):
        res = bootstrap_ci("prediction_advantage", y, p, n_resamples=100, random_state=0)
    assert np.isnan(res.estimate) and np.isnan(res.low) and np.isnan(res.high)
    with pytest.raises(UndefinedMeasureError):
        bootstrap_ci("prediction_advantage", y, p, nan_policy="raise")


def test_perfect_predictions_give_a_point_interval():
    y = np.r_[np.zeros(30, dtype=int), np.ones(20, dtype=int)]
    for method in ("percentile", "bca", "basic"):
        res = bootstrap_ci("accuracy", y, y, method=method, random_state=0, n_resamples=200)
        assert (res.low, res.high) == (1.0, 1.0)


def test_infinite_bias_correction_warns():
    # a statistic whose every resample value lies above the estimate -> z0 = -inf
    rng = np.random.default_rng(0)
    y = rng.normal(size=30)

    def shifted_min(yt, yp, sample_weight=None):
        if sample_weight is None:  # the full sample
            return float(np.min(yt)) - 1.0
        return float(np.min(yt[sample_weight > 0]))

    with pytest.warns(BeyondChanceWarning, match="bias correction is infinite"):
        res = bootstrap_ci(shifted_min, y, y, n_resamples=300, random_state=0)
    assert res.low == pytest.approx(np.min(res.distribution))


# --- multi-class ----------------------------------------------------------------------


def test_multiclass_averages_and_native_metrics():
    rng = np.random.default_rng(12)
    y = rng.integers(0, 3, 400)
    p = np.where(rng.random(400) < 0.7, y, rng.integers(0, 3, 400))
    macro = bootstrap_ci("f1", y, p, average="macro", random_state=0, n_resamples=4000, method="percentile")
    assert macro.estimate == pytest.approx(skm.f1_score(y, p, average="macro"))
    sk_macro = bootstrap_ci(skm.f1_score, y, p, average="macro", random_state=1, n_resamples=400, method="percentile")
    assert sps.ks_2samp(macro.distribution, sk_macro.distribution).pvalue > 1e-3
    mcc = bootstrap_ci("mcc", y, p, random_state=0, n_resamples=4000, method="percentile")
    sk_mcc = bootstrap_ci(skm.matthews_corrcoef, y, p, random_state=1, n_resamples=400, method="percentile")
    assert mcc.estimate == pytest.approx(skm.matthews_corrcoef(y, p))
    assert sps.ks_2samp(mcc.distribution, sk_mcc.distribution).pvalue > 1e-3
    with pytest.raises(InvalidInputError, match="one value per class"):
        bootstrap_ci("f1", y, p, average=None)
    with pytest.raises(InvalidInputError, match="binary"):
        bootstrap_ci("f1", y, p)


def test_string_labels_and_pos_label():
    rng = np.random.default_rng(0)
    y, p = _noisy_labels(rng, 200, 0.3, 0.8)
    names = np.array(["neg", "pos"])
    res = bootstrap_ci("f1", names[y], names[p], pos_label="pos", random_state=0, n_resamples=300)
    ref = bootstrap_ci("f1", y, p, random_state=0, n_resamples=300)
    np.testing.assert_array_equal(res.distribution, ref.distribution)
    with pytest.raises(InvalidInputError, match="pos_label"):
        bootstrap_ci("f1", names[y], names[p])


def test_prediction_advantage_of_the_package_if_present():
    pa = getattr(bc, "prediction_advantage", None)
    if pa is None:
        pytest.skip("beyondchance.prediction_advantage is not available yet")
    rng = np.random.default_rng(0)
    # near balance, so the majority class (the BMP of the 0/1 loss) flips between resamples
    y, p = _noisy_labels(rng, 300, 0.48, 0.75)
    a = bootstrap_ci(pa, y, p, random_state=0, n_resamples=2000, method="percentile")
    b = bootstrap_ci(pa01_bruteforce, y, p, random_state=0, n_resamples=2000, method="percentile")
    np.testing.assert_allclose(a.distribution, b.distribution, rtol=1e-9, equal_nan=True)
    # squared loss: the BMP is the mean of the resample
    yr = rng.gamma(2.0, 1.0, 200)
    fr = yr + rng.normal(0, 0.7, 200)
    c = bootstrap_ci(pa, yr, fr, loss="squared", random_state=1, n_resamples=1000)
    d = bootstrap_ci(pa_squared, yr, fr, random_state=1, n_resamples=1000)
    np.testing.assert_allclose(c.distribution, d.distribution, rtol=1e-9)
    assert (c.low, c.high) == pytest.approx((d.low, d.high), rel=1e-9)


# --- bad input ----------------------------------------------------------------------------

_Y = np.array([0, 1, 1, 0, 1, 0])
_P = np.array([0, 1, 0, 0, 1, 1])


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(confidence_level=0.0), "confidence_level"),
        (dict(confidence_level=1.0), "confidence_level"),
        (dict(confidence_level=1.5), "confidence_level"),
        (dict(confidence_level=float("nan")), "confidence_level"),
        (dict(confidence_level="95%"), "confidence_level"),
        (dict(n_resamples=0), "n_resamples"),
        (dict(n_resamples=-5), "n_resamples"),
        (dict(n_resamples=10.5), "n_resamples"),
        (dict(n_resamples=True), "n_resamples"),
        (dict(method="studentized"), "method"),
        (dict(nan_policy="ignore"), "nan_policy"),
        (dict(weight_type="analytic"), "weight_type"),
        (dict(random_state="seed"), "random_state"),
        (dict(random_state=-1), "random_state"),
        (dict(sample_weight=[1, 1, 1]), "sample_weight"),
        (dict(sample_weight=[1, 1, -1, 1, 1, 1]), "negative"),
        (dict(sample_weight=[1, 1, np.nan, 1, 1, 1]), "NaN"),
        (dict(sample_weight=[0, 0, 0, 0, 0, 0]), "sums to zero"),
        (dict(sample_weight=[1, 2, 1.5, 1, 1, 1], weight_type="frequency"), "integer"),
    ],
)
@pytest.mark.parametrize("measure", ["f1", weighted_accuracy])
def test_bad_input_raises(kwargs, match, measure):
    with pytest.raises(InvalidInputError, match=match):
        bootstrap_ci(measure, _Y, _P, **kwargs)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(zero_division="zero"), "zero_division"),
        (dict(zero_division=None), "zero_division"),
        (dict(beta=2.0), "option"),
        (dict(average="mean"), "average"),
    ],
)
def test_bad_metric_option_raises(kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        bootstrap_ci("f1", _Y, _P, **kwargs)


@pytest.mark.parametrize("measure", ["accuracy", weighted_accuracy])
def test_bad_data_raises(measure):
    with pytest.raises(InvalidInputError, match="length"):
        bootstrap_ci(measure, _Y, _P[:-1])
    with pytest.raises(InvalidInputError, match="empty"):
        bootstrap_ci(measure, [], [])
    with pytest.raises(InvalidInputError, match="NaN"):
        bootstrap_ci(measure, [0.0, 1.0, np.nan], [0.0, 1.0, 1.0])


def test_bad_measure_raises():
    with pytest.raises(InvalidInputError, match="known metrics"):
        bootstrap_ci("accuracyy", _Y, _P)
    with pytest.raises(InvalidInputError, match="metric name or a callable"):
        bootstrap_ci(3, _Y, _P)
    with pytest.raises(InvalidInputError, match="one number"):
        bootstrap_ci(lambda yt, yp, sample_weight=None: np.array([1.0, 2.0]), _Y, _P)


# --- too few resamples (issue 11) -----------------------------------------------------------


@pytest.mark.parametrize("level, minimum", [(0.95, 40), (0.99, 200), (0.8, 10)])
def test_too_few_resamples_for_the_level_are_refused(level, minimum):
    # B >= 2 / (1 - level): at least one resample beyond each end of the interval
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 200)
    p = np.where(rng.random(200) < 0.8, y, 1 - y)
    s = np.clip(y * 0.3 + rng.random(200), 0, 1)
    for b in (1, minimum - 1):
        with pytest.raises(InvalidInputError, match=f"need at least {minimum}"):
            bootstrap_ci("f1", y, p, n_resamples=b, confidence_level=level, random_state=0)
        with pytest.raises(InvalidInputError, match=f"need at least {minimum}"):
            bc.outperformance_score_ci("f1", y, p, n_resamples=b, confidence_level=level, random_state=0)
        with pytest.raises(InvalidInputError, match=f"need at least {minimum}"):
            bc.evaluate(y, s, n_resamples=b, confidence_level=level, mc_samples=256)
    res = bootstrap_ci("f1", y, p, n_resamples=minimum, confidence_level=level, random_state=0)
    assert res.low < res.high
    assert bc.outperformance_score_ci("f1", y, p, n_resamples=minimum, confidence_level=level,
                                      random_state=0).n_resamples == minimum
    # the same rule for another level from stored resamples
    with pytest.raises(InvalidInputError, match="need at least 400"):
        bootstrap_ci("f1", y, p, n_resamples=200, random_state=0).confidence_interval(0.995)


def test_cli_too_few_resamples_is_one_line_exit_2(tmp_path):
    from click.testing import CliRunner

    from beyondchance.cli import main

    path = tmp_path / "d.csv"
    path.write_text("y,s\n" + "".join(f"{i % 2},{(i % 7) / 7}\n" for i in range(40)))
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-score", "s",
                                       "--n-resamples", "1"])
    assert result.exit_code == 2, result.output
    assert result.stderr.startswith("beyondchance: error: n_resamples=1 is too few")
    assert len(result.stderr.strip().splitlines()) == 1 and "Traceback" not in result.output
