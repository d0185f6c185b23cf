"""Sufficient statistics: every measure from the statistics equals the measure of the raw
data (scikit-learn, brute force, the array functions); merging in any order and any
chunking gives the statistics of the concatenated data; the binned variants stay within
their stated bounds."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.engines import compute_statistics
from beyondchance.engines.memory import statistics_from_arrays
from beyondchance import (
    CostMatrixLoss,
    InvalidInputError,
    PinballLoss,
    bayes_marginal_prediction,
    prediction_advantage,
    threshold_counts,
)
from beyondchance.statistics.sufficient import SufficientStatistics
from beyondchance.statistics.labels import LabelCounts
from beyondchance.statistics.values import LossSums, Moments, ValueHistogram
from beyondchance.statistics.scores import BinnedScoreCounts

REL = 1e-12
FAST = settings(max_examples=40, deadline=None)


def close(a, b, rel=REL):
    return np.allclose(a, b, rtol=rel, atol=rel, equal_nan=True)


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


@st.composite
def binary_scored(draw, min_n=2, max_n=60):
    n = draw(st.integers(min_n, max_n))
    seed = draw(st.integers(0, 2**31 - 1))
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    decimals = draw(st.sampled_from([1, 2, 3, 6]))
    s = np.round(rng.random(n), decimals)
    w = None
    if draw(st.booleans()):
        w = rng.integers(0, 4, n).astype(float)  # integer weights: float sums are exact
        w[0] += 1
    return y, s, w, rng


def _chunks(rng, n, k):
    """A random partition of range(n) into k chunks (possibly empty), in random order."""
    cuts = np.sort(rng.integers(0, n + 1, k - 1))
    perm = rng.permutation(n)
    parts = np.split(perm, cuts)
    rng.shuffle(parts)
    return [p for p in parts if p.size]


# =====================================================================================
# LabelCounts
# =====================================================================================


def test_label_counts_against_unique_and_bmp():
    y = np.array(["b", "a", "c", "b", "b", "a"])
    w = np.array([1.0, 2.0, 0.5, 1.0, 0.0, 3.0])
    lc = LabelCounts.from_labels(y, sample_weight=w)
    assert lc.labels.tolist() == ["a", "b", "c"]
    assert lc.counts.tolist() == [5.0, 2.0, 0.5]
    for loss in ("zero_one", "log_loss", "brier", CostMatrixLoss([[0, 1, 4], [2, 0, 1], [1, 1, 0]], labels=["a", "b", "c"])):
        ref = bayes_marginal_prediction(y, loss=loss, sample_weight=w)
        got = lc.baseline(loss)
        assert close(got.risk, ref.risk)
        assert np.all(np.asarray(got.prediction) == np.asarray(ref.prediction))


@FAST
@given(st.integers(0, 2**31 - 1), st.integers(1, 6))
def test_label_counts_merge_any_chunking(seed, k):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    y = rng.integers(0, 5, n)
    w = rng.integers(0, 5, n).astype(float)
    w[0] += 1
    one = LabelCounts.from_labels(y, sample_weight=w)
    parts = [LabelCounts.from_labels(y[c], sample_weight=w[c]) for c in _chunks(rng, n, k) if w[c].sum() > 0]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged + p
    keep = one.counts > 0
    mk = merged.counts > 0
    assert np.array_equal(one.labels[keep], merged.labels[mk])
    assert np.array_equal(one.counts[keep], merged.counts[mk])


def test_label_counts_bad_input():
    with pytest.raises(InvalidInputError, match="non-negative"):
        LabelCounts([0, 1], [1.0, -1.0])
    with pytest.raises(InvalidInputError, match="duplicates"):
        LabelCounts([0, 0], [1.0, 1.0])
    with pytest.raises(InvalidInputError, match="shape"):
        LabelCounts([0, 1], [1.0])
    with pytest.raises(InvalidInputError, match="cannot merge"):
        LabelCounts([0], [1.0]).merge(LossSums(1.0, {}))
    with pytest.raises(InvalidInputError, match="real targets"):
        LabelCounts([0], [1.0]).baseline("squared")


# =====================================================================================
# LossSums and Moments
# =====================================================================================


def test_loss_sums_merge_and_errors():
    a = LossSums(2.0, {"squared": 1.0, "absolute": 2.0})
    b = LossSums(3.0, {"squared": 4.0, "absolute": 1.0})
    m = a + b
    assert m.weight == 5.0 and m.risk("mse") == 1.0 and m.risk("absolute") == 0.6
    with pytest.raises(InvalidInputError, match="different losses"):
        a + LossSums(1.0, {"squared": 1.0})
    with pytest.raises(InvalidInputError, match="no loss sum"):
        a.risk("brier")
    with pytest.raises(InvalidInputError, match="non-negative"):
        LossSums(-1.0, {})
    with pytest.raises(InvalidInputError, match="finite"):
        LossSums(1.0, {"squared": float("nan")})
    with pytest.raises(InvalidInputError, match="weight is 0"):
        LossSums(0.0, {"squared": 0.0}).risk("squared")


@FAST
@given(st.integers(0, 2**31 - 1), st.integers(1, 7), st.floats(-1e6, 1e6))
def test_moments_merge_any_chunking(seed, k, shift):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 80))
    y = shift + rng.normal(size=n) * rng.choice([1e-3, 1.0, 100.0])
    w = rng.random(n) * 3
    one = Moments.from_values(y, sample_weight=w)
    merged = Moments(0.0, 0.0, 0.0)
    for c in _chunks(rng, n, k):
        merged = merged + Moments.from_values(y[c], sample_weight=w[c])
    # the two-pass definition on the concatenated data (numpy)
    mean = np.average(y, weights=w)
    m2 = np.sum(w * (y - mean) ** 2)
    assert np.isclose(merged.weight, w.sum(), rtol=1e-12)
    assert np.isclose(merged.mean, mean, rtol=1e-9, atol=1e-9 * (abs(shift) + 1))
    assert np.isclose(merged.m2, m2, rtol=1e-7, atol=1e-9 * max(1.0, abs(shift)) ** 2 * 1e-6)
    assert np.isclose(one.m2, m2, rtol=1e-9, atol=1e-12)


def test_moments_bad_input():
    with pytest.raises(InvalidInputError):
        Moments(-1.0, 0.0, 0.0)
    with pytest.raises(InvalidInputError):
        Moments(1.0, float("inf"), 0.0)
    with pytest.raises(InvalidInputError, match="cannot merge"):
        Moments(1.0, 0.0, 0.0).merge(LabelCounts([0], [1.0]))


# =====================================================================================
# ValueHistogram: exact and binned absolute / pinball baselines
# =====================================================================================


@FAST
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.1, 0.25, 0.5, 0.9]))
def test_value_histogram_exact_equals_raw_bmp(seed, alpha):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    y = np.round(rng.normal(size=n) * 10, int(rng.integers(0, 3)))
    w = rng.integers(0, 4, n).astype(float)
    w[0] += 1
    loss = "absolute" if alpha == 0.5 and seed % 2 else PinballLoss(alpha)
    h = ValueHistogram.from_values(y, sample_weight=w)
    ref = bayes_marginal_prediction(y, loss=loss, sample_weight=w)
    assert h.is_exact
    assert close(h.baseline(loss).risk, ref.risk)
    lo, hi = h.baseline_risk_bounds(loss)
    assert lo == hi == h.baseline(loss).risk


@settings(max_examples=80, deadline=None)
@given(st.integers(0, 2**31 - 1), st.sampled_from([0.1, 0.5, 0.75]), st.sampled_from([0.01, 0.3, 2.0, 50.0]))
def test_value_histogram_binned_bounds(seed, alpha, width):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    y = rng.normal(size=n) * rng.choice([0.1, 1.0, 10.0])
    w = rng.integers(0, 4, n).astype(float)
    w[0] += 1
    loss = PinballLoss(alpha) if alpha != 0.5 else "absolute"
    scale = 2.0 if alpha == 0.5 else 1.0
    exact = bayes_marginal_prediction(y, loss=loss, sample_weight=w).risk
    h = ValueHistogram.from_values(y, sample_weight=w, bin_width=width)
    lo, hi = h.baseline_risk_bounds(loss)
    tol = 1e-9 * (1 + abs(exact))
    assert lo - tol <= exact <= hi + tol
    # the stated gap: at most w_b h_b / (4 W) (times 2 for the absolute loss)
    gap = scale * np.max(h.weight * (h.vmax - h.vmin)) / (4 * h.n)
    assert hi - lo <= gap + tol
    # the baseline constant is achievable: its risk on the raw data is the upper bound
    c = h.baseline(loss).prediction
    raw = np.sum(w * PinballLoss(alpha)(np.full(n, c), y)) * scale / w.sum()
    assert np.isclose(raw, hi, rtol=1e-9, atol=1e-12)


@FAST
@given(st.integers(0, 2**31 - 1), st.integers(1, 6), st.sampled_from([None, 0.5]))
def test_value_histogram_merge_any_chunking(seed, k, width):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    y = np.round(rng.normal(size=n) * 4, 1)
    w = rng.integers(1, 4, n).astype(float)
    one = ValueHistogram.from_values(y, sample_weight=w, bin_width=width)
    parts = [ValueHistogram.from_values(y[c], sample_weight=w[c], bin_width=width) for c in _chunks(rng, n, k)]
    merged = parts[0]
    for p in parts[1:]:
        merged = merged + p
    for name in ("keys", "weight", "vmin", "vmax"):
        assert np.array_equal(getattr(one, name), getattr(merged, name)), name
    assert close(one.wsum, merged.wsum, 1e-12)


def test_value_histogram_errors():
    with pytest.raises(InvalidInputError, match="bin_width"):
        ValueHistogram.from_values([1.0], bin_width=0)
    with pytest.raises(InvalidInputError, match="different bin widths"):
        ValueHistogram.from_values([1.0]) + ValueHistogram.from_values([1.0], bin_width=1.0)
    with pytest.raises(InvalidInputError, match="absolute and pinball"):
        ValueHistogram.from_values([1.0]).baseline("squared")
    with pytest.raises(InvalidInputError, match="increasing"):
        ValueHistogram([2.0, 1.0], [1, 1], [2, 1], [2, 1], [2, 1])


# =====================================================================================
# BinnedScoreCounts
# =====================================================================================


@settings(max_examples=80, deadline=None)
@given(binary_scored(), st.sampled_from([1, 3, 10, 100]))
def test_binned_auc_within_stated_bound(data, bins):
    y, s, w, _ = data
    ww = np.ones_like(s) if w is None else w
    if not (ww[y == 1].sum() > 0 and ww[y == 0].sum() > 0):
        return
    exact = threshold_counts(y, s, sample_weight=w)
    binned = BinnedScoreCounts.from_scores(y, s, sample_weight=w, bins=bins)
    for kind in ("roc", "gain", "pr"):
        bound = binned.auc_error_bound(kind)
        assert abs(binned.auc(kind) - exact.auc(kind)) <= bound + 1e-12, kind
    # the ROC bound is Σ P_b N_b / (2PN), by brute force over the bins
    key = np.floor(s * bins)
    brute = sum(ww[(key == k) & (y == 1)].sum() * ww[(key == k) & (y == 0)].sum() for k in np.unique(key))
    assert np.isclose(binned.auc_error_bound("roc"), brute / (2 * ww[y == 1].sum() * ww[y == 0].sum()), rtol=1e-12)
    # every binned point is a point of the exact curve
    tb = binned.threshold_counts()
    idx = np.searchsorted(-exact.thresholds, -tb.thresholds)
    assert np.array_equal(exact.thresholds[idx], tb.thresholds)
    assert np.array_equal(exact.tps[idx], tb.tps) and np.array_equal(exact.fps[idx], tb.fps)


def test_binned_bound_zero_without_ties_and_scikit_learn():
    y = np.array([0, 0, 1, 1, 0, 1])
    s = np.array([0.05, 0.15, 0.25, 0.35, 0.45, 0.95])
    b = BinnedScoreCounts.from_scores(y, s, bins=10)  # one sample per bin
    assert b.auc_error_bound("roc") == 0.0
    assert np.isclose(b.auc("roc"), skm.roc_auc_score(y, s), rtol=1e-12)
    assert np.isclose(b.auc("pr"), skm.average_precision_score(y, s), rtol=1e-12)


@FAST
@given(binary_scored(), st.integers(1, 6), st.sampled_from([None, 7]))
def test_score_counts_merge_any_chunking(data, k, bins):
    y, s, w, rng = data
    ww = np.ones_like(s) if w is None else w

    def build(idx):
        if bins is None:
            return threshold_counts(y[idx], s[idx], sample_weight=ww[idx], pos_label=1)
        return BinnedScoreCounts.from_scores(y[idx], s[idx], sample_weight=ww[idx], pos_label=1, bins=bins)

    parts = [c for c in _chunks(rng, len(y), k) if ww[c].sum() > 0]
    one = build(np.arange(len(y)))
    merged = build(parts[0])
    for c in parts[1:]:
        merged = merged + build(c)
    names = ("thresholds", "tps", "fps") if bins is None else ("keys", "smin", "pos", "neg")
    for name in names:
        assert np.array_equal(getattr(one, name), getattr(merged, name)), name


def test_binned_errors():
    with pytest.raises(InvalidInputError, match="bins"):
        BinnedScoreCounts.from_scores([0, 1], [0.1, 0.2], bins=0)
    a = BinnedScoreCounts.from_scores([0, 1], [0.1, 0.2], bins=10)
    with pytest.raises(InvalidInputError, match="different sizes"):
        a + BinnedScoreCounts.from_scores([0, 1], [0.1, 0.2], bins=100)
    with pytest.raises(InvalidInputError, match="positive labels"):
        a + BinnedScoreCounts.from_scores([0, 2], [0.1, 0.2], bins=10, pos_label=2)
    with pytest.raises(InvalidInputError, match="stated"):
        a.auc_error_bound("lift")
    with pytest.raises(InvalidInputError, match="2\\*\\*62"):
        BinnedScoreCounts.from_scores([0, 1], [0.1, 1e300], bins=10)
    assert np.isnan(BinnedScoreCounts.from_scores([1, 1], [0.1, 0.2], bins=10).auc_error_bound())


# =====================================================================================
# SufficientStatistics: measures equal those of the raw data
# =====================================================================================


@FAST
@given(binary_scored(min_n=4))
def test_binary_measures_equal_raw(data):
    y, s, w, _ = data
    ww = np.ones_like(s) if w is None else w
    if not (ww[y == 1].sum() > 0 and ww[y == 0].sum() > 0):
        return
    st_ = statistics_from_arrays(y, y_score=s, sample_weight=w, threshold=0.5)
    pred = (s >= 0.5).astype(int)
    assert close(st_.metric("accuracy"), skm.accuracy_score(y, pred, sample_weight=w))
    assert close(st_.prediction_advantage().value, prediction_advantage(y, pred, sample_weight=w))
    assert close(st_.auc("roc"), skm.roc_auc_score(y, s, sample_weight=w))
    assert close(st_.auc("pr"), skm.average_precision_score(y, s, sample_weight=w))
    p = np.clip(s, 1e-3, 1 - 1e-3)
    st2 = statistics_from_arrays(y, y_score=p, sample_weight=w)
    assert close(st2.prediction_advantage("log_loss").value, skm.d2_log_loss_score(y, p, sample_weight=w), 1e-10)
    assert close(st2.prediction_advantage("brier").value, skm.d2_brier_score(y, p, sample_weight=w), 1e-10)
    assert close(st2.loss_sums.risk("log_loss"), skm.log_loss(y, p, sample_weight=w), 1e-10)


def test_scores_outside_unit_interval_have_no_loss_sums():
    st_ = statistics_from_arrays([0, 1, 1], y_score=[-2.0, 3.0, 0.5])
    assert st_.loss_sums is None and st_.auc("roc") == 1.0
    with pytest.raises(InvalidInputError, match="loss_sums"):
        st_.prediction_advantage("log_loss")


def test_labels_and_probabilities_measures():
    rng = np.random.default_rng(3)
    y = rng.choice(["a", "b", "c"], 200)
    yp = rng.choice(["a", "b", "c", "d"], 200)
    w = rng.random(200)
    st_ = statistics_from_arrays(y, y_pred=yp, sample_weight=w)
    assert st_.task == "multiclass-labels"  # detected: the labels' bundle of any number of classes
    assert close(st_.metric("accuracy"), skm.accuracy_score(y, yp, sample_weight=w))
    assert close(st_.metric("kappa"), skm.cohen_kappa_score(y, yp, sample_weight=w))
    assert close(st_.prediction_advantage().value, prediction_advantage(y, yp, sample_weight=w))
    costs = CostMatrixLoss(rng.random((4, 4)) * 3, labels=["a", "b", "c", "d"])
    assert close(st_.prediction_advantage(costs).value, prediction_advantage(y, yp, loss=costs, sample_weight=w))
    P = rng.dirichlet(np.ones(3), 200)
    sp = statistics_from_arrays(y, y_proba=P, sample_weight=w)
    assert sp.task == "multiclass-probabilities"
    assert close(sp.prediction_advantage("log_loss").value, skm.d2_log_loss_score(y, P, sample_weight=w), 1e-10)
    assert close(sp.metric("accuracy"), skm.accuracy_score(y, np.array(["a", "b", "c"])[P.argmax(1)], sample_weight=w))


def test_the_two_label_tasks_share_one_bundle():
    """binary-labels and multiclass-labels compute the same statistics; binary-labels checks that
    there are at most two classes (every engine: in the bundle, also when merging)."""
    y, f, w = [0, 1, 1, 0, 1], [0, 1, 0, 0, 1], [1.0, 2.0, 0.5, 1.0, 3.0]
    two = statistics_from_arrays(y, y_pred=f, sample_weight=w, task="binary-labels")
    many = statistics_from_arrays(y, y_pred=f, sample_weight=w, task="multiclass-labels")
    assert (two.task, many.task) == ("binary-labels", "multiclass-labels")
    assert np.array_equal(two.confusion.matrix, many.confusion.matrix)
    assert np.array_equal(two.label_counts.counts, many.label_counts.counts)
    assert two.metric("f1") == many.metric("f1") and two.summary()["f1"] == many.summary()["f1"]
    with pytest.raises(InvalidInputError, match="at most two classes, got 3 .*multiclass-labels"):
        statistics_from_arrays([0, 1, 2], y_pred=[0, 1, 1], task="binary-labels")
    with pytest.raises(InvalidInputError, match="at most two classes"):
        statistics_from_arrays([0, 1, 2], y_pred=[0, 1, 1], task="binary-labels", statistics=["label_counts"])
    with pytest.raises(InvalidInputError, match="at most two classes"):
        two + statistics_from_arrays([2, 1], y_pred=[2, 1], sample_weight=[1.0, 1.0], task="binary-labels")
    with pytest.raises(InvalidInputError, match="tasks 'binary-labels' and 'multiclass-labels'"):
        two + many


def test_regression_measures_equal_scikit_learn():
    rng = np.random.default_rng(4)
    y = rng.normal(size=300)
    f = y + rng.normal(size=300)
    w = rng.random(300)
    st_ = statistics_from_arrays(y, y_pred=f, sample_weight=w, pinball_alphas=[0.9])
    assert st_.task == "regression"
    assert close(st_.prediction_advantage().value, skm.r2_score(y, f, sample_weight=w))
    assert close(st_.prediction_advantage("absolute").value, skm.d2_absolute_error_score(y, f, sample_weight=w))
    assert close(st_.prediction_advantage(PinballLoss(0.9)).value, skm.d2_pinball_score(y, f, sample_weight=w, alpha=0.9))
    assert close(st_.prediction_advantage("pinball(alpha=0.9)").value, skm.d2_pinball_score(y, f, sample_weight=w, alpha=0.9))
    binned = statistics_from_arrays(y, y_pred=f, sample_weight=w, target_bin_width=0.05)
    lo, hi = binned.prediction_advantage_bounds("absolute")
    exact = skm.d2_absolute_error_score(y, f, sample_weight=w)
    assert lo - 1e-12 <= exact <= hi + 1e-12 and hi - lo < 0.01


@FAST
@given(binary_scored(), st.integers(1, 5), st.sampled_from([None, 20]))
def test_bundle_merge_any_chunking(data, k, bins):
    y, s, w, rng = data
    ww = np.ones_like(s) if w is None else w
    parts = [c for c in _chunks(rng, len(y), k) if ww[c].sum() > 0]

    def build(idx):
        return statistics_from_arrays(y[idx], y_score=s[idx], sample_weight=ww[idx], score_bins=bins)

    one = build(np.arange(len(y)))
    merged = build(parts[0])
    for c in parts[1:]:
        merged = merged + build(c)
    assert np.array_equal(one.confusion.matrix, merged.confusion.matrix)
    assert np.array_equal(one.label_counts.counts[one.label_counts.counts > 0],
                          merged.label_counts.counts[merged.label_counts.counts > 0])
    assert close(one.loss_sums.sums["cross_entropy"], merged.loss_sums.sums["cross_entropy"])
    a, b = one.scores.threshold_counts() if bins else one.scores, merged.scores.threshold_counts() if bins else merged.scores
    assert np.array_equal(a.tps, b.tps) and np.array_equal(a.fps, b.fps)
    if len(np.unique(y)) == 2:
        assert _quiet(one.summary) == _quiet(merged.summary) or close(
            list(_quiet(one.summary).values())[1:], list(_quiet(merged.summary).values())[1:]
        )


def test_bundle_errors_and_outputs():
    a = statistics_from_arrays([0, 1, 1], y_score=[0.2, 0.6, 0.9])
    with pytest.raises(InvalidInputError, match="tasks"):
        a + statistics_from_arrays([0, 1], y_pred=[0, 1])
    with pytest.raises(InvalidInputError, match="thresholds"):
        a + statistics_from_arrays([0, 1], y_score=[0.2, 0.6], threshold=0.3)
    with pytest.raises(InvalidInputError, match="one side only"):
        a + statistics_from_arrays([0, 1], y_score=[0.2, 0.6], statistics=["confusion"])
    with pytest.raises(InvalidInputError, match="not computed"):
        statistics_from_arrays([0, 1], y_score=[0.2, 0.6], statistics=["scores"]).metric("f1")
    with pytest.raises(InvalidInputError, match="statistics for task"):
        statistics_from_arrays([0, 1], y_score=[0.2, 0.6], statistics=["moments"])
    with pytest.raises(InvalidInputError, match="exactly one"):
        statistics_from_arrays([0, 1], y_score=[0.2, 0.6], y_pred=[0, 1])
    with pytest.raises(InvalidInputError, match="takes y_score"):
        statistics_from_arrays([0, 1], y_pred=[0, 1], task="binary-scores")
    with pytest.raises(InvalidInputError, match="task must be"):
        SufficientStatistics("nonsense")
    costs = CostMatrixLoss([[0, 5], [1, 0]], labels=[False, True])
    assert close(a.prediction_advantage(costs).value, prediction_advantage([0, 1, 1], [0, 1, 1], loss=CostMatrixLoss([[0, 5], [1, 0]], labels=[0, 1])))
    with pytest.raises(InvalidInputError, match="False, True"):
        a.prediction_advantage(CostMatrixLoss([[0, 5], [1, 0]], labels=[0, 1]))
    d = a.to_dict()
    assert d["task"] == "binary-scores" and d["scores"]["kind"] == "exact" and d["confusion"]["matrix"] == [[1.0, 0.0], [0.0, 2.0]]
    ops = a.outperformance_score("f1")
    assert 0 <= ops.score <= 1


@pytest.mark.parametrize("y", [
    [-100.0, float(np.nextafter(-100.0, 0.0))],  # two floats 1 ulp apart: spread is rounding noise
    [3.0, 3.0 + 3e-12, 3.0 - 1e-12],
    [1.0, 2.0, 3.0],
])
def test_statistics_follow_the_zero_baseline_rule_of_the_rows(y):
    """The moments apply baselines.baseline_risk_is_zero as prediction_advantage does on
    the rows (before: -9.9e31 from the statistics against nan from the rows)."""
    import pandas as pd

    y = np.asarray(y)
    f = np.zeros_like(y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        rows = bc.prediction_advantage(y, f, loss="squared")
        stats = compute_statistics(pd.DataFrame({"y": y, "f": f}), y_true="y", y_pred="f")
        value = stats.prediction_advantage("squared").value
    assert (np.isnan(rows) and np.isnan(value)) or value == pytest.approx(rows, rel=1e-12)


def test_statistics_do_not_import_the_engines_or_the_report():
    """The layers run inputs -> statistics -> measures -> report: the statistics module
    imports neither an engine (which builds statistics) nor the report (built on them),
    not even lazily inside a function."""
    import ast
    import inspect

    import beyondchance.statistics.sufficient as stats_module

    tree = ast.parse(inspect.getsource(stats_module))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.add(("." * node.level) + (node.module or ""))
        elif isinstance(node, ast.Import):
            imported.update(alias.name for alias in node.names)
    upward = {m for m in imported if m.lstrip(".").split(".")[0] in ("engines", "report", "streaming", "cli")
              or m.startswith("beyondchance.engines") or m.startswith("beyondchance.report")}
    assert not upward, upward
