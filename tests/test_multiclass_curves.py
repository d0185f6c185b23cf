"""ROC AUC and average precision of (n, K) class scores and the partial ROC AUC (issue 14,
items 4 and 5) equal scikit-learn's roc_auc_score / average_precision_score, weighted or
not, for every average."""

from __future__ import annotations

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance import InvalidInputError


def _problem(seed: int, n: int = 300, k: int = 4):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, n)
    logits = rng.normal(size=(n, k)) + 1.5 * np.eye(k)[y]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, np.round(p, 2) / np.round(p, 2).sum(axis=1, keepdims=True), rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("multi_class,average", [("ovr", "macro"), ("ovr", "weighted"), ("ovr", None),
                                                 ("ovo", "macro"), ("ovo", "weighted")])
def test_multiclass_roc_auc_is_sklearns(multi_class, average, weighted):
    y, p, w = _problem(1)
    sw = w if weighted else None
    if multi_class == "ovo" and weighted:
        with pytest.raises(ValueError):  # scikit-learn: no sample weights for ovo
            skm.roc_auc_score(y, p, multi_class="ovo", average=average, sample_weight=sw)
        return
    ours = bc.roc_auc(y, p, multi_class=multi_class, average=average, sample_weight=sw)
    if average is None:
        theirs = [skm.roc_auc_score(y == j, p[:, j], sample_weight=sw) for j in range(p.shape[1])]
    else:
        theirs = skm.roc_auc_score(y, p, multi_class=multi_class, average=average, sample_weight=sw)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("average", ["macro", "weighted", "micro", None])
def test_multiclass_average_precision_is_sklearns(average, weighted):
    y, p, w = _problem(2)
    sw = w if weighted else None
    ours = bc.average_precision(y, p, average=average, sample_weight=sw)
    theirs = skm.average_precision_score(y, p, average=average, sample_weight=sw)
    np.testing.assert_allclose(ours, theirs, atol=1e-12)


def test_string_labels_follow_the_columns():
    y, p, _ = _problem(3, k=3)
    names = np.array(["cat", "dog", "eel"])[y]
    assert bc.roc_auc(names, p) == pytest.approx(skm.roc_auc_score(y, p, multi_class="ovr"), abs=1e-12)
    order = ["eel", "dog", "cat"]  # columns given in another order
    assert bc.roc_auc(names, p[:, ::-1], labels=order) == pytest.approx(bc.roc_auc(names, p), abs=1e-12)
    with pytest.raises(InvalidInputError, match="give labels= in the order of the columns"):
        bc.roc_auc(names, p[:, :2])


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), max_fpr=st.floats(0.01, 1.0), weighted=st.booleans())
def test_partial_roc_auc_is_sklearns(seed, max_fpr, weighted):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(10, 200))
    y = rng.integers(0, 2, n)
    if y.min() == y.max():
        y[0] = 1 - y[0]
    s = np.round(rng.random(n) + 0.5 * y, int(rng.integers(1, 4)))  # ties included
    w = rng.uniform(0.1, 3.0, n) if weighted else None
    assert bc.roc_auc(y, s, max_fpr=max_fpr, sample_weight=w) == pytest.approx(
        skm.roc_auc_score(y, s, max_fpr=max_fpr, sample_weight=w), abs=1e-12)


def test_bad_options_are_refused():
    y, p, _ = _problem(4, k=3)
    with pytest.raises(InvalidInputError, match="multi_class"):
        bc.roc_auc(y, p, multi_class="raise")
    with pytest.raises(InvalidInputError, match="max_fpr applies to binary"):
        bc.roc_auc(y, p, max_fpr=0.5)
    with pytest.raises(InvalidInputError, match="max_fpr"):
        bc.roc_auc(y == 0, p[:, 0], max_fpr=1.5)
