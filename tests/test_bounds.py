"""The proven order of the PA paper, section 4 (Lemmas 4.1–4.3), on random confusion matrices.

Binary problems with label 1 the minority class (b + c ≤ a + d in the paper's areas
a = FP, b = TP, c = FN, d = TN):

    PA ≤ TPR, PA ≤ TNR, PA ≤ BA, PA ≤ precision, PA ≤ recall, PA ≤ F1, PA ≤ κ,

with PA = κ when the classes are balanced.  Every metric comes from the
:mod:`beyondchance.measures.registry` registry; the PA is computed twice — from the registry
and by :func:`beyondchance.prediction_advantage` on a weighted four-row sample — and
both must agree.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from beyondchance import ConfusionMatrix, prediction_advantage

from beyondchance.measures import get_metric
SETTINGS = settings(max_examples=300, deadline=None)

BOUNDED_BY = ["recall", "specificity", "balanced_accuracy", "precision", "f1", "kappa"]


@st.composite
def minority_positive_counts(draw, *, integer: bool = True):
    """(tp, fp, fn, tn) with P = tp + fn ≤ N = fp + tn and both classes present."""
    if integer:
        count = st.integers(min_value=0, max_value=1000)
    else:
        count = st.floats(min_value=0.0, max_value=1.0, allow_nan=False, allow_subnormal=False)
    tp, fp, fn, tn = (draw(count) for _ in range(4))
    assume(tp + fn > 0 and fp + tn > 0)
    if tp + fn > fp + tn:  # relabel so that 1 is the minority class
        tp, fp, fn, tn = tn, fn, fp, tp
    return float(tp), float(fp), float(fn), float(tn)


def _pa_from_sample(tp: float, fp: float, fn: float, tn: float) -> float:
    """PA of the four-row sample whose weights are the counts."""
    return prediction_advantage(
        [1, 1, 0, 0], [1, 0, 1, 0], sample_weight=[tp, fn, fp, tn]
    )


@SETTINGS
@given(minority_positive_counts())
def test_registry_pa_equals_prediction_advantage(counts):
    registry = get_metric("prediction_advantage").compute(*counts)
    assert _pa_from_sample(*counts) == pytest.approx(registry, rel=1e-12, abs=1e-12)
    # and the paper's form in areas: PA = (b − a) / (b + c)
    tp, fp, fn, tn = counts
    assert registry == pytest.approx((tp - fp) / (tp + fn), rel=1e-12, abs=1e-12)


@SETTINGS
@given(minority_positive_counts(), st.sampled_from(BOUNDED_BY))
def test_pa_lower_bounds_the_other_measures(counts, name):
    pa = get_metric("prediction_advantage").compute(*counts)
    other = get_metric(name).compute(*counts)
    assume(np.isfinite(other))  # precision / F1 / κ are undefined for some matrices
    assert pa <= other + 1e-12


@SETTINGS
@given(minority_positive_counts(integer=False), st.sampled_from(BOUNDED_BY))
def test_pa_lower_bounds_the_other_measures_on_fractions(counts, name):
    # the paper's areas are fractions of the unit square
    pa = get_metric("prediction_advantage").compute(*counts)
    other = get_metric(name).compute(*counts)
    assume(np.isfinite(other) and np.isfinite(pa))
    assert pa <= other + 1e-9


@SETTINGS
@given(minority_positive_counts())
def test_strict_inequalities_of_the_lemmas(counts):
    tp, fp, fn, tn = counts
    m = {name: get_metric(name).compute(*counts) for name in BOUNDED_BY + ["prediction_advantage"]}
    pa = m["prediction_advantage"]
    if fp > 0:  # Lemma 4.1 (1), Lemma 4.2 (4)-(5): strict when a > 0
        assert pa < m["recall"]
        assert pa < m["precision"]
    if fn > 0:  # Lemma 4.1 (2)
        assert pa < m["specificity"]
    if fp + fn > 0:  # (3): strict when the error is not zero
        assert pa < m["balanced_accuracy"]
    if np.isfinite(m["precision"]) and m["precision"] < 1:  # Lemma 4.2 (6)
        assert pa < m["f1"]
    # Lemma 4.3 says "strict whenever the problem is imbalanced"; its proof uses
    # (a + b)(b + c) < (a + b)(a + d), which also needs a + b > 0: a classifier that
    # never predicts the minority class has κ = PA = 0 (see the next test)
    if tp + fn < fp + tn and fp + fn > 0 and tp + fp > 0 and np.isfinite(m["kappa"]):
        assert pa < m["kappa"]


def test_lemma_4_3_is_not_strict_for_the_all_majority_classifier():
    # imbalanced (1 positive, 2 negatives), nothing predicted positive: κ = PA = 0
    counts = (0.0, 0.0, 1.0, 2.0)
    assert get_metric("kappa").compute(*counts) == 0.0
    assert get_metric("prediction_advantage").compute(*counts) == 0.0


@st.composite
def balanced_counts(draw):
    tp = draw(st.integers(0, 500))
    fn = draw(st.integers(0, 500))
    assume(tp + fn > 0)
    fp = draw(st.integers(0, tp + fn))
    return float(tp), float(fp), float(fn), float(tp + fn - fp)


@SETTINGS
@given(balanced_counts())
def test_pa_equals_kappa_when_balanced(counts):
    kappa = get_metric("kappa").compute(*counts)
    assume(np.isfinite(kappa))
    assert get_metric("prediction_advantage").compute(*counts) == pytest.approx(kappa, abs=1e-12)
    assert _pa_from_sample(*counts) == pytest.approx(kappa, abs=1e-12)


@SETTINGS
@given(minority_positive_counts())
def test_kappa_is_strictly_above_pa_only_off_balance(counts):
    tp, fp, fn, tn = counts
    kappa = get_metric("kappa").compute(*counts)
    pa = get_metric("prediction_advantage").compute(*counts)
    assume(np.isfinite(kappa))
    if tp + fn == fp + tn:
        assert pa == pytest.approx(kappa, abs=1e-12)
    else:
        assert pa <= kappa + 1e-12


def test_bounds_on_a_realised_confusion_matrix():
    # one concrete matrix through ConfusionMatrix, to tie the registry to real labels
    rng = np.random.default_rng(7)
    y = (rng.uniform(size=2000) < 0.2).astype(int)
    pred = np.where(rng.uniform(size=2000) < 0.25, 1 - y, y)
    cm = ConfusionMatrix.from_predictions(y, pred)
    pa = cm.metric("prediction_advantage")
    assert pa == pytest.approx(prediction_advantage(y, pred), abs=1e-12)
    for name in BOUNDED_BY:
        assert pa < cm.metric(name)
    assert pa < 0 < cm.metric("kappa")  # the trap of the paper: κ > 0, PA < 0
