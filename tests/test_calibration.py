"""Reliability table, expected calibration error and Murphy's Brier decomposition:
against scikit-learn (calibration_curve, brier_score_loss, d2_brier_score) and a
per-sample computation, with weights, and the undefined cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.calibration import calibration_curve
from sklearn.metrics import brier_score_loss, d2_brier_score

import beyondchance as bc
from beyondchance.measures.curves import ThresholdCounts


@st.composite
def prob_data(draw, min_size=1):
    n = draw(st.integers(min_size, 60))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    # a grid of 20ths puts values on the bin edges; free floats elsewhere
    p = draw(st.lists(st.integers(0, 20).map(lambda i: i / 20) | st.floats(0.0, 1.0), min_size=n, max_size=n))
    w = draw(st.lists(st.integers(0, 4), min_size=n, max_size=n))
    return np.array(y), np.array(p, dtype=float), np.array(w)


@settings(max_examples=150, deadline=None)
@given(prob_data(), st.integers(1, 15))
def test_reliability_table_and_ece_equal_sklearn_calibration_curve(data, n_bins):
    y, p, w = data
    if w.sum() == 0 or len(np.unique(np.repeat(y, w))) < 2:
        return  # calibration_curve needs both classes
    # integer weights = repeated rows, which scikit-learn's calibration_curve accepts
    yr, pr = np.repeat(y, w), np.repeat(p, w)
    prob_true, prob_pred = calibration_curve(yr, pr, n_bins=n_bins, strategy="uniform")
    t = bc.reliability_table(y, p, n_bins=n_bins, sample_weight=w)
    np.testing.assert_allclose(t.fraction_positive, prob_true, rtol=0, atol=1e-12)
    np.testing.assert_allclose(t.mean_predicted, prob_pred, rtol=0, atol=1e-12)
    # ECE = Σ (n_b / n) |prob_true − prob_pred|, n_b the per-bin counts of the repeated rows
    n_b = np.bincount(np.searchsorted(np.linspace(0, 1, n_bins + 1)[1:-1], pr), minlength=n_bins)
    n_b = n_b[n_b > 0]
    expected = float(np.sum(n_b * np.abs(prob_true - prob_pred)) / n_b.sum())
    assert bc.expected_calibration_error(y, p, n_bins=n_bins, sample_weight=w) == pytest.approx(expected, abs=1e-12)
    # fractional weights: the per-sample sums over scikit-learn's bins
    wf = w * 0.37 + 0.01
    ids = np.searchsorted(np.linspace(0, 1, n_bins + 1)[1:-1], p)
    W, O, F = (np.bincount(ids, weights=x, minlength=n_bins) for x in (wf, wf * y, wf * p))
    assert bc.expected_calibration_error(y, p, n_bins=n_bins, sample_weight=wf) == pytest.approx(
        np.sum(np.abs(O - F)) / W.sum(), abs=1e-12)


@settings(max_examples=150, deadline=None)
@given(prob_data(), st.booleans())
def test_brier_decomposition_against_sklearn_and_per_sample_sums(data, weighted):
    y, p, w_int = data
    w = (w_int * 0.75 + 0.1) if weighted else None
    ws = np.ones(y.size) if w is None else w
    d = bc.brier_score_decomposition(y, p, sample_weight=w)
    assert d.brier_score == pytest.approx(brier_score_loss(y, p, sample_weight=w, pos_label=1), abs=1e-12)
    # Murphy's partition over the distinct forecasts, from the samples directly
    values, inv = np.unique(p, return_inverse=True)
    W = np.bincount(inv, weights=ws)
    obar = np.bincount(inv, weights=ws * y) / W
    pi = np.sum(ws * y) / ws.sum()
    rel = np.sum(W * (values - obar) ** 2) / ws.sum()
    res = np.sum(W * (obar - pi) ** 2) / ws.sum()
    assert d.reliability == pytest.approx(rel, abs=1e-12)
    assert d.resolution == pytest.approx(res, abs=1e-12)
    assert d.uncertainty == pytest.approx(pi * (1 - pi), abs=1e-12)
    assert d.reliability - d.resolution + d.uncertainty == pytest.approx(d.brier_score, abs=1e-12)
    assert d.residual == pytest.approx(0.0, abs=1e-12)
    if 0 < pi < 1:
        # the Brier skill score is the prediction advantage under the Brier loss (= D² Brier)
        # (relative 1e-12 as well: with a rare class the score can be far below 0)
        pa = bc.prediction_advantage(y, p, loss="brier", sample_weight=w)
        assert d.skill_score == pytest.approx(pa, rel=1e-12, abs=1e-12)
        assert d.skill_score == pytest.approx(d2_brier_score(y, p, sample_weight=w), rel=1e-12, abs=1e-12)
        assert d.skill_score == pytest.approx((d.resolution - d.reliability) / d.uncertainty, rel=1e-9, abs=1e-9)


def test_binned_decomposition_uses_bin_means():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 500)
    p = np.clip(0.5 * y + rng.uniform(0, 0.5, 500), 0, 1)
    d = bc.brier_score_decomposition(y, p, n_bins=5)
    prob_true, prob_pred = calibration_curve(y, p, n_bins=5)
    n_b = np.bincount(np.searchsorted(np.linspace(0, 1, 6)[1:-1], p), minlength=5)
    n_b = n_b[n_b > 0]
    assert d.reliability == pytest.approx(np.sum(n_b * (prob_pred - prob_true) ** 2) / 500, abs=1e-12)
    assert d.resolution == pytest.approx(np.sum(n_b * (prob_true - y.mean()) ** 2) / 500, abs=1e-12)
    assert d.residual == pytest.approx(d.brier_score - (d.reliability - d.resolution + d.uncertainty), abs=1e-15)
    assert d.n_bins == 5 and d.to_dict()["n_bins"] == 5


def test_trivial_and_perfect_predictors():
    y = np.array([0, 0, 0, 1, 1])
    const = np.full(5, 0.4)
    d = bc.brier_score_decomposition(y, const)
    assert (d.reliability, d.resolution) == (0.0, 0.0)
    assert d.skill_score == pytest.approx(0.0, abs=1e-15)
    assert bc.expected_calibration_error(y, const) == pytest.approx(0.0, abs=1e-15)
    perfect = bc.brier_score_decomposition(y, y.astype(float))
    assert perfect.brier_score == 0.0 and perfect.skill_score == 1.0


def test_one_class_skill_is_undefined():
    d = bc.brier_score_decomposition([1, 1, 1], [0.2, 0.9, 0.9])
    assert d.uncertainty == 0.0
    with pytest.warns(bc.UndefinedMeasureWarning):
        assert np.isnan(d.skill_score)
    assert d.to_dict()["skill_score"] is None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert np.isnan(bc.prediction_advantage([1, 1, 1], [0.2, 0.9, 0.9], loss="brier"))
    # ECE stays defined: bins (0.1, 0.2] and (0.8, 0.9] → (1/3)·0.8 + (2/3)·0.1
    assert bc.expected_calibration_error([1, 1, 1], [0.2, 0.9, 0.9]) == pytest.approx(1 / 3, abs=1e-12)


@pytest.mark.parametrize("kwargs, message", [
    ({"y_proba": [0.2, 1.2]}, "y_proba must lie in"),
    ({"y_proba": [0.2, np.nan]}, "NaN"),
    ({"n_bins": 0}, "n_bins"),
    ({"n_bins": 2.5}, "n_bins"),
    ({"n_bins": True}, "n_bins"),
])
def test_bad_input(kwargs, message):
    args = {"y_true": [0, 1], "y_proba": [0.2, 0.8], "n_bins": 10} | kwargs
    with pytest.raises(bc.InvalidInputError, match=message):
        bc.expected_calibration_error(args["y_true"], args["y_proba"], n_bins=args["n_bins"])


def test_merged_statistics_equal_one_shot():
    rng = np.random.default_rng(11)
    y, p, w = rng.integers(0, 2, 300), rng.uniform(size=300).round(2), rng.uniform(0, 2, 300)
    parts = [ThresholdCounts.from_scores(y[s], p[s], sample_weight=w[s]) for s in (slice(0, 120), slice(120, 300))]
    merged = parts[1] + parts[0]
    one = bc.brier_score_decomposition(y, p, sample_weight=w)
    two = bc.measures.BrierDecomposition.from_counts(merged)
    for k in ("brier_score", "reliability", "resolution", "uncertainty"):
        assert getattr(two, k) == pytest.approx(getattr(one, k), abs=1e-12)
    assert bc.measures.ReliabilityTable.from_counts(merged).expected_calibration_error == pytest.approx(
        bc.expected_calibration_error(y, p, sample_weight=w), abs=1e-12)
