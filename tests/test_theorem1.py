"""Theorem 1 of the Pure Accuracy paper: the PA-optimal classifier thresholds η at
δ* = (1/2 − p)·PA* + p.  Checked against brute force (every threshold on a fine grid,
every subset of a small sample) and against a closed-form Gaussian model."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize_scalar
from scipy.stats import norm

import beyondchance as bc
from beyondchance import InvalidInputError, UndefinedMeasureError, UndefinedMeasureWarning
from beyondchance.measures.pure_accuracy import PureAccuracyOptimalThreshold, pure_accuracy_optimal_threshold


def expected_pa(eta, w, positive):
    """Expected pure accuracy of the classifier ``positive`` (boolean mask, or one
    mask per row), written out from Definition 2 with independent code (no sweep, no
    registry)."""
    tp = np.sum(w * eta * positive, axis=-1)
    fp = np.sum(w * (1 - eta) * positive, axis=-1)
    fn = np.sum(w * eta * ~positive, axis=-1)
    tn = np.sum(w * (1 - eta) * ~positive, axis=-1)
    n = tp + fp + fn + tn
    a = (tp + tn) / n
    p, q = (tp + fn) / n, (tp + fp) / n
    ra = p * q + (1 - p) * (1 - q)
    return (a - ra) / (1 - ra)


@st.composite
def eta_samples(draw):
    n = draw(st.integers(2, 40))
    # a few distinct values, repeated, so that ties are exercised
    levels = draw(st.lists(st.floats(0, 1), min_size=1, max_size=8))
    idx = draw(st.lists(st.integers(0, len(levels) - 1), min_size=n, max_size=n))
    eta = np.array([levels[i] for i in idx])
    w = None
    if draw(st.booleans()):
        w = np.array(draw(st.lists(st.floats(0.1, 5), min_size=n, max_size=n)))
    return eta, w


@settings(max_examples=150, deadline=None)
@given(eta_samples())
def test_threshold_beats_every_grid_threshold(sample):
    eta, w = sample
    ww = np.ones_like(eta) if w is None else w
    p = np.sum(ww * eta) / np.sum(ww)
    if not 1e-9 < p < 1 - 1e-9:
        return
    r = pure_accuracy_optimal_threshold(eta, sample_weight=w)
    grid = np.concatenate([np.linspace(0, 1, 2001), eta, np.nextafter(eta, -1), [-1.0]])
    values = expected_pa(eta, ww, eta[None, :] > grid[:, None])
    assert np.nanmax(values) <= r.pure_accuracy + 1e-12
    assert np.isclose(np.nanmax(values), r.pure_accuracy, rtol=0, atol=1e-12)
    # Theorem 1's fixed point: thresholding at δ* = (1/2 − p)PA* + p attains PA*
    assert r.threshold == pytest.approx((0.5 - p) * r.pure_accuracy + p, abs=1e-12)
    assert expected_pa(eta, ww, eta > r.threshold) == pytest.approx(r.pure_accuracy, abs=1e-12)
    assert abs(r.fixed_point_residual) <= 1e-12
    assert r.pure_accuracy >= -1e-15  # constants score 0
    if p < 0.5:
        assert p - 1e-12 <= r.threshold <= 0.5 + 1e-12
    elif p > 0.5:
        assert 0.5 - 1e-12 <= r.threshold <= p + 1e-12
    # the sweep's interval holds the classifier found
    lo, hi = r.threshold_interval
    mid = lo + (hi - lo) / 2 if np.isfinite(lo) and np.isfinite(hi) else (hi - 1 if np.isfinite(hi) else lo + 1)
    assert expected_pa(eta, ww, eta > mid) == pytest.approx(r.pure_accuracy, abs=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.floats(0.01, 0.99), min_size=2, max_size=9, unique=True),
       st.lists(st.floats(0.1, 3), min_size=9, max_size=9))
def test_threshold_rule_is_optimal_among_all_classifiers(values, weights):
    """Theorem 1 over *all* deterministic classifiers of a small sample (2^n subsets)."""
    eta = np.array(values)
    w = np.array(weights[: eta.size])
    best = max(
        expected_pa(eta, w, np.array(mask, dtype=bool))
        for mask in itertools.product([False, True], repeat=eta.size)
        if 0 < sum(mask) < eta.size
    )
    r = pure_accuracy_optimal_threshold(eta, sample_weight=w)
    assert r.pure_accuracy == pytest.approx(max(best, 0.0), abs=1e-12)


def gaussian_model(p, mu1=-1.0, mu2=1.0, s1=0.0):
    """SPEC §2 Example 2 in one dimension: positives (the minority, share p) ~ N(μ1, 1),
    negatives ~ N(μ2, 1); minority labels flipped with probability s1."""

    def eta(x):
        f1 = p * norm.pdf(x, mu1)
        f2 = (1 - p) * norm.pdf(x, mu2)
        return (1 - s1) * f1 / (f1 + f2)

    def density(x):
        return p * norm.pdf(x, mu1) + (1 - p) * norm.pdf(x, mu2)

    return eta, density


@pytest.mark.parametrize("p,mu2,s1", [(0.2, 1.0, 0.0), (0.1, 0.5, 0.0), (0.3, 2.0, 0.2), (0.05, 1.5, 0.1)])
def test_gaussian_model_closed_form(p, mu2, s1):
    """η(x) is decreasing (μ1 < μ2), so {η > δ} = {x < c}; the expected PA of the cut c
    is a closed form in Φ.  Its maximiser c* must satisfy Theorem 1:
    η(c*) = (1/2 − p̃)·PA* + p̃ (p̃ = (1 − s1)p, the observed positive share), and the
    discretised η-sample must give the same δ* and PA*."""
    mu1 = -1.0
    eta, density = gaussian_model(p, mu1, mu2, s1)
    pt = (1 - s1) * p  # observed positive share

    def pa_of_cut(c):
        tp = (1 - s1) * p * norm.cdf(c - mu1)
        q = p * norm.cdf(c - mu1) + (1 - p) * norm.cdf(c - mu2)
        fp = q - tp
        fn = pt - tp
        a = 1 - fp - fn
        ra = pt * q + (1 - pt) * (1 - q)
        return (a - ra) / (1 - ra)

    res = minimize_scalar(lambda c: -pa_of_cut(c), bounds=(-8, 8), method="bounded",
                          options={"xatol": 1e-12})
    c_star, pa_star = res.x, -res.fun
    delta_closed = (0.5 - pt) * pa_star + pt
    assert eta(c_star) == pytest.approx(delta_closed, abs=1e-6)  # Theorem 1, numerically
    assert pt <= delta_closed <= 0.5

    x = np.linspace(-12, 12, 400_001)
    w = density(x) * (x[1] - x[0])
    r = pure_accuracy_optimal_threshold(eta(x), sample_weight=w)
    assert r.prevalence == pytest.approx(pt, abs=1e-9)
    assert r.pure_accuracy == pytest.approx(pa_star, abs=1e-7)
    assert r.threshold == pytest.approx(delta_closed, abs=1e-7)
    assert abs(r.fixed_point_residual) < 1e-12


def test_result_object_and_export():
    r = bc.pure_accuracy_optimal_threshold([0.1, 0.6], sample_weight=[0.7, 0.3])
    assert isinstance(r, PureAccuracyOptimalThreshold)
    d = r.to_dict()
    assert d["threshold"] == pytest.approx(0.38125) and d["threshold_interval"] == [0.1, 0.6]
    with pytest.raises(Exception):
        r.threshold = 0.2  # frozen
    assert "pure_accuracy_optimal_threshold" in bc.__all__


def test_weights_equal_repetition():
    rng = np.random.default_rng(0)
    eta = rng.uniform(size=30)
    k = rng.integers(0, 4, size=30)
    a = pure_accuracy_optimal_threshold(eta, sample_weight=k)
    b = pure_accuracy_optimal_threshold(np.repeat(eta, k))
    assert a.threshold == pytest.approx(b.threshold, abs=1e-12)
    assert a.pure_accuracy == pytest.approx(b.pure_accuracy, abs=1e-12)


def test_bad_input():
    with pytest.raises(InvalidInputError, match="eta"):
        pure_accuracy_optimal_threshold([0.2, 1.5])
    with pytest.raises(InvalidInputError, match="eta"):
        pure_accuracy_optimal_threshold([0.2, np.nan])
    with pytest.raises(InvalidInputError, match="empty"):
        pure_accuracy_optimal_threshold([])
    with pytest.raises(InvalidInputError, match="sample_weight"):
        pure_accuracy_optimal_threshold([0.2, 0.4], sample_weight=[1, -1])
    with pytest.raises(InvalidInputError, match="length"):
        pure_accuracy_optimal_threshold([0.2, 0.4], sample_weight=[1, 1, 1])


def test_one_class_posterior_is_undefined():
    with pytest.warns(UndefinedMeasureWarning):
        r = pure_accuracy_optimal_threshold([0.0, 0.0, 0.0])
    assert np.isnan(r.threshold) and np.isnan(r.pure_accuracy)
    with pytest.raises(UndefinedMeasureError):
        pure_accuracy_optimal_threshold([1.0, 1.0], strict=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pure_accuracy_optimal_threshold([0.0, 1.0])  # defined: no warning
