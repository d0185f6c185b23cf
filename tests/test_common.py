"""Invariances every registered labeling metric must satisfy (DESIGN.md, habit 7),
and the public API's integrity.

Each invariance is a plain function ``check_*(metric, kind)`` of a
:class:`~beyondchance.measures.registry.LabelingMetric`: the tests below run it on every
metric of the registry, and tests/test_registry_extension.py on a metric registered at
run time."""

from __future__ import annotations

import importlib

import numpy as np
import pytest

import beyondchance as bc
from beyondchance import ConfusionMatrix
from beyondchance.measures.registry import METRICS

RNG = np.random.default_rng(20261121)
N = 400
Y_TRUE = RNG.integers(0, 2, N)
Y_PRED = np.where(RNG.uniform(size=N) < 0.7, Y_TRUE, 1 - Y_TRUE)
Y_TRUE_MC = RNG.integers(0, 4, N)
Y_PRED_MC = np.where(RNG.uniform(size=N) < 0.6, Y_TRUE_MC, RNG.integers(0, 4, N))


def _value(y_true, y_pred, metric, sample_weight=None, average="binary"):
    options = {"beta": 0.5} if metric.options else {}
    cm = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=sample_weight)
    if metric.multiclass == "native" or np.unique(np.r_[y_true, y_pred]).size <= 2:
        return cm.metric(metric, **options)
    return cm.metric(metric, average=average, **options)


CASES = [(name, data) for name in METRICS for data in ("binary", "multiclass")]


def _data(kind):
    return (Y_TRUE, Y_PRED) if kind == "binary" else (Y_TRUE_MC, Y_PRED_MC)


def check_sample_order_invariance(m, kind):
    y_true, y_pred = _data(kind)
    perm = RNG.permutation(N)
    assert _value(y_true[perm], y_pred[perm], m, average="macro") == pytest.approx(
        _value(y_true, y_pred, m, average="macro"), abs=1e-12)


def check_unit_weights_equal_no_weights(m, kind):
    y_true, y_pred = _data(kind)
    assert _value(y_true, y_pred, m, np.ones(N), average="weighted") == pytest.approx(
        _value(y_true, y_pred, m, average="weighted"), abs=1e-12)


def check_integer_weights_equal_repeated_rows(m, kind):
    y_true, y_pred = _data(kind)
    w = RNG.integers(0, 4, N)
    repeated = _value(np.repeat(y_true, w), np.repeat(y_pred, w), m, average="macro")
    assert _value(y_true, y_pred, m, w, average="macro") == pytest.approx(repeated, abs=1e-12)


def check_zero_weights_equal_removed_rows(m, kind):
    y_true, y_pred = _data(kind)
    w = (RNG.uniform(size=N) < 0.8).astype(float)
    keep = w > 0
    removed = _value(y_true[keep], y_pred[keep], m, average="micro")
    assert _value(y_true, y_pred, m, w, average="micro") == pytest.approx(removed, abs=1e-12)


def check_merge_of_random_chunks_in_any_order_equals_one_shot(m, kind):
    y_true, y_pred = _data(kind)
    w = RNG.uniform(0, 3, N)
    cuts = np.sort(RNG.choice(np.arange(1, N), size=5, replace=False))
    chunks = [ConfusionMatrix.from_predictions(t, p, sample_weight=s)
              for t, p, s in zip(np.split(y_true, cuts), np.split(y_pred, cuts), np.split(w, cuts))]
    merged = chunks[0]
    for i in RNG.permutation(len(chunks))[::-1]:
        if i:
            merged = chunks[i] + merged
    one_shot = ConfusionMatrix.from_predictions(y_true, y_pred, sample_weight=w)
    options = {"beta": 0.5} if m.options else {}
    average = "binary" if kind == "binary" else "macro"
    assert merged.metric(m, average=average, **options) == pytest.approx(
        one_shot.metric(m, average=average, **options), abs=1e-12)


#: every invariance, as a function of (metric, kind)
CHECKS = (check_sample_order_invariance, check_unit_weights_equal_no_weights,
          check_integer_weights_equal_repeated_rows, check_zero_weights_equal_removed_rows,
          check_merge_of_random_chunks_in_any_order_equals_one_shot)


@pytest.mark.parametrize("name, kind", CASES)
def test_sample_order_invariance(name, kind):
    check_sample_order_invariance(METRICS[name], kind)


@pytest.mark.parametrize("name, kind", CASES)
def test_unit_weights_equal_no_weights(name, kind):
    check_unit_weights_equal_no_weights(METRICS[name], kind)


@pytest.mark.parametrize("name, kind", CASES)
def test_integer_weights_equal_repeated_rows(name, kind):
    check_integer_weights_equal_repeated_rows(METRICS[name], kind)


@pytest.mark.parametrize("name, kind", CASES)
def test_zero_weights_equal_removed_rows(name, kind):
    check_zero_weights_equal_removed_rows(METRICS[name], kind)


@pytest.mark.parametrize("name, kind", CASES)
def test_merge_of_random_chunks_in_any_order_equals_one_shot(name, kind):
    check_merge_of_random_chunks_in_any_order_equals_one_shot(METRICS[name], kind)


def test_public_api_is_unique_and_importable():
    assert len(bc.__all__) == len(set(bc.__all__))
    for name in bc.__all__:
        assert hasattr(bc, name), name
    importlib.import_module("beyondchance.datasets")


def test_registry_names_and_aliases_do_not_collide():
    from beyondchance.measures.registry import ALIASES

    assert not set(ALIASES) & set(METRICS)
