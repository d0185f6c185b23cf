"""Weighted Cohen's kappa (linear, quadratic) from the confusion matrix = scikit-learn's
``cohen_kappa_score(weights=...)``, including the undefined cases."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.measures.confusion import metric_from_matrices

WEIGHTS = ("linear", "quadratic")


@st.composite
def ordinal_data(draw):
    k = draw(st.integers(1, 6))
    n = draw(st.integers(1, 40))
    y_true = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    y_pred = draw(st.lists(st.integers(0, k - 1), min_size=n, max_size=n))
    w = draw(st.lists(st.sampled_from([0.0, 0.25, 1.0, 3.5]) | st.floats(0.0, 5.0), min_size=n, max_size=n))
    return np.array(y_true), np.array(y_pred), np.array(w)


@settings(max_examples=200, deadline=None)
@given(ordinal_data(), st.sampled_from(WEIGHTS), st.booleans())
def test_weighted_kappa_equals_sklearn(data, weights, weighted):
    y_true, y_pred, w = data
    sw = w if weighted else None
    if sw is not None and sw.sum() == 0:  # both refuse: nothing to evaluate
        with pytest.raises(ValueError):
            skm.cohen_kappa_score(y_true, y_pred, weights=weights, sample_weight=sw)
        with pytest.raises(bc.InvalidInputError):
            bc.ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=sw)
        return
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        expected = skm.cohen_kappa_score(y_true, y_pred, weights=weights, sample_weight=sw)
        got = bc.ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=sw).metric(
            f"kappa_{weights}", zero_division="nan")
    if np.isnan(expected):
        assert np.isnan(got)
    else:
        assert got == pytest.approx(expected, abs=1e-12)


def test_two_classes_weighted_kappa_is_kappa_and_its_ops():
    rng = np.random.default_rng(14)
    y, p, w = rng.integers(0, 2, 300), rng.integers(0, 2, 300), rng.uniform(0, 2, 300)
    cm = bc.ConfusionMatrix.from_predictions(y, p, sample_weight=w)
    for name in ("kappa_linear", "kappa_quadratic"):
        assert cm.metric(name) == pytest.approx(cm.metric("kappa"), abs=1e-15)
        ops = bc.outperformance_score(name, 0.3, 0.2)
        assert ops.score == bc.outperformance_score("kappa", 0.3, 0.2).score
        assert ops.method == "exact"


def test_ordinal_order_and_labels_argument():
    # classes in label order: a one-step miss costs less than a two-step miss
    near = bc.ConfusionMatrix.from_predictions([0, 1, 2, 2], [0, 1, 1, 2]).metric("kappa_linear")
    far = bc.ConfusionMatrix.from_predictions([0, 1, 2, 2], [0, 1, 0, 2]).metric("kappa_linear")
    assert near > far
    y, p = ["low", "mid", "high", "high"], ["low", "mid", "mid", "high"]
    order = ["low", "mid", "high"]
    got = bc.ConfusionMatrix.from_predictions(y, p, labels=order).metric("kappa_quadratic")
    assert got == pytest.approx(skm.cohen_kappa_score(y, p, labels=order, weights="quadratic"), abs=1e-12)


def test_stacks_of_matrices_match_one_by_one():
    rng = np.random.default_rng(3)
    stack = rng.integers(0, 9, size=(5, 4, 4)).astype(float)
    stack[2] = 0.0
    stack[2, 1, 1] = 4.0  # one class only: undefined
    for name in ("kappa_linear", "kappa_quadratic"):
        batch = metric_from_matrices(stack, name)
        single = [metric_from_matrices(m, name) for m in stack]
        np.testing.assert_allclose(batch, single, rtol=0, atol=1e-15)
        assert np.isnan(batch[2])


def test_undefined_warns_under_warn_policy():
    cm = bc.ConfusionMatrix.from_predictions([1, 1, 1], [1, 1, 1])
    with pytest.warns(bc.UndefinedMeasureWarning):
        assert np.isnan(cm.metric("kappa_quadratic"))
    assert cm.metric("kappa_quadratic", zero_division=0.0) == 0.0
