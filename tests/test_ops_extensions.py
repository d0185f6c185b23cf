"""Tests of beyondchance.outperformance.interval and .multiclass: OPS confidence intervals over the
test set, multi-class and multi-label OPS."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.metrics import average_precision_score, f1_score, roc_auc_score

from beyondchance import (
    ConfusionMatrix,
    InvalidInputError,
    UndefinedMeasureWarning,
    multiclass_outperformance_score,
    outperformance_score,
    outperformance_score_ci,
)
from beyondchance.measures import get_metric
from beyondchance.measures.curves import gain_auc, lift_auc, precision_at_k, precision_at_recall
from beyondchance.outperformance import MulticlassOPSResult, OPSInterval


def _binary_data(n, pi, a, b, seed):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pi).astype(int)
    p = np.where(y == 1, rng.random(n) >= b, rng.random(n) < a).astype(int)
    return y, p


def _brute_force_ops(metric, y, p, w, B, seed):
    """Row bootstrap the slow, obvious way: resample row indices, count, score."""
    rng = np.random.default_rng(seed)
    idx = rng.integers(0, y.size, size=(B, y.size))
    yt, yp, ww = y[idx], p[idx], w[idx]
    tp = (ww * (yt == 1) * (yp == 1)).sum(1)
    fp = (ww * (yt == 0) * (yp == 1)).sum(1)
    fn = (ww * (yt == 1) * (yp == 0)).sum(1)
    tn = (ww * (yt == 0) * (yp == 0)).sum(1)
    with np.errstate(all="ignore"):
        mu = get_metric(metric).compute(tp, fp, fn, tn)
    pi = (tp + fn) / (tp + fp + fn + tn)
    ok = np.isfinite(mu) & (pi > 0) & (pi < 1)
    return np.asarray(outperformance_score(metric, mu[ok], pi[ok]).score)


# --- confidence interval ------------------------------------------------------------------


@pytest.mark.parametrize("metric", ["f1", "mcc", "accuracy", "kappa", "precision", "g_mean"])
def test_ci_contains_point_and_point_is_ops_of_data(metric):
    y, p = _binary_data(400, 0.25, 0.15, 0.25, seed=3)
    ci = outperformance_score_ci(metric, y, p, n_resamples=1000, random_state=0)
    cm = ConfusionMatrix.from_predictions(y, p)
    assert ci.value == pytest.approx(cm.metric(metric))
    assert ci.prevalence == pytest.approx(y.mean())
    assert ci.estimate == pytest.approx(outperformance_score(metric, cm.metric(metric), y.mean()).score)
    assert ci.low < ci.estimate < ci.high
    assert 0 <= ci.low and ci.high <= 1
    assert ci.method == "percentile" and ci.n_resamples == 1000 and ci.n_undefined == 0
    assert ci.standard_error == pytest.approx(np.std(ci.distribution, ddof=1))
    assert isinstance(ci, OPSInterval)
    d = json.loads(json.dumps(ci.to_dict(distribution=True)))
    assert d["estimate"] == ci.estimate and len(d["distribution"]) == 1000


def test_ci_reproducible_with_seed():
    y, p = _binary_data(150, 0.3, 0.2, 0.3, seed=5)
    a = outperformance_score_ci("mcc", y, p, n_resamples=300, random_state=42)
    b = outperformance_score_ci("mcc", y, p, n_resamples=300, random_state=42)
    c = outperformance_score_ci("mcc", y, p, n_resamples=300, random_state=43)
    np.testing.assert_array_equal(a.distribution, b.distribution)
    assert (a.low, a.high) == (b.low, b.high)
    assert not np.array_equal(a.distribution, c.distribution)
    with pytest.raises(ValueError):
        a.distribution[0] = 0.0  # read-only


@pytest.mark.parametrize("weighted", [False, True])
def test_multinomial_path_matches_row_bootstrap_in_distribution(weighted):
    y, p = _binary_data(120, 0.3, 0.2, 0.3, seed=11)
    w = np.random.default_rng(1).uniform(0.2, 2.0, y.size) if weighted else np.ones(y.size)
    B = 4000
    ci = outperformance_score_ci("f1", y, p, sample_weight=w if weighted else None, n_resamples=B, random_state=7)
    brute = _brute_force_ops("f1", y, p, w, B, seed=8)
    fast = np.asarray(ci.distribution)
    # same distribution: two-sample KS test, and loose agreement of mean and the interval ends
    assert stats.ks_2samp(fast, brute).pvalue > 1e-3
    se = np.std(brute, ddof=1)
    assert abs(fast.mean() - brute.mean()) < 4 * se * np.sqrt(2 / B)
    lo, hi = np.percentile(brute, [2.5, 97.5])
    assert abs(ci.low - lo) < 0.3 * se and abs(ci.high - hi) < 0.3 * se


def test_prevalence_is_re_estimated():
    """Precision's OPS falls with π at fixed precision and resampled precision rises
    with resampled π, so re-estimating π narrows the distribution.  The OPS distribution
    must match a row bootstrap that re-estimates π (KS) and differ from OPS of
    bootstrap_ci's precision values at the fixed π̂ (measured: KS p ≈ 3e-12, sd 0.035
    vs 0.044 at n = 120, B = 4000)."""
    from beyondchance import bootstrap_ci

    y, p = _binary_data(120, 0.3, 0.2, 0.3, seed=11)
    ci = outperformance_score_ci("precision", y, p, n_resamples=4000, random_state=7)
    brute = _brute_force_ops("precision", y, p, np.ones(y.size), 4000, seed=3)
    metric_ci = bootstrap_ci("precision", y, p, method="percentile", n_resamples=4000, random_state=8)
    frozen = np.asarray(outperformance_score("precision", metric_ci.distribution, y.mean()).score)
    # fixed-π ends of the metric interval map to the OPS of those ends (OPS monotone in μ)
    lo_f, hi_f = outperformance_score("precision", [metric_ci.low, metric_ci.high], y.mean()).score
    assert lo_f == pytest.approx(np.percentile(frozen, 2.5)) and hi_f == pytest.approx(np.percentile(frozen, 97.5))
    assert stats.ks_2samp(ci.distribution, brute).pvalue > 1e-3
    assert stats.ks_2samp(ci.distribution, frozen).pvalue < 1e-6
    assert ci.standard_error < 0.9 * np.std(frozen, ddof=1)
    # both intervals bracket the same point estimate
    assert lo_f < ci.estimate < hi_f and ci.low < ci.estimate < ci.high


def test_ci_coverage_of_population_ops():
    """Coverage of the population OPS, OPS_M(M(π, α, β); π), by the 95% interval at
    n = 200 over 200 simulated test sets.  Measured with 1000 test sets: 0.936 (F1),
    0.935 (MCC), 0.937 (accuracy) -- the percentile bootstrap undercovers a little at
    this n.  With 200 test sets the binomial sd is about 0.017, so [0.88, 0.99] is
    more than 3 sd around the measured rate.  (For MCC the prevalence's own
    uncertainty barely matters -- an interval from bootstrap_ci's MCC ends at π̂ also
    covered 0.935 of 400 sets -- so the re-estimation of π is checked separately, on
    precision, in test_prevalence_is_re_estimated.)"""
    warnings.simplefilter("ignore", UndefinedMeasureWarning)
    n, pi, a, b = 200, 0.3, 0.2, 0.3
    rng = np.random.default_rng(1)
    target = outperformance_score("mcc", get_metric("mcc").from_rates(pi, a, b), pi).score
    hits = 0
    widths = []
    for _ in range(200):
        y = (rng.random(n) < pi).astype(int)
        p = np.where(y == 1, rng.random(n) >= b, rng.random(n) < a).astype(int)
        ci = outperformance_score_ci("mcc", y, p, n_resamples=400, random_state=rng)
        hits += ci.low <= target <= ci.high
        widths.append(ci.high - ci.low)
    assert 0.88 <= hits / 200 <= 0.99
    # an interval of half the width would cover far less often
    assert np.median(widths) > 0.03


def test_weighted_integer_weights_equal_repeated_rows_in_distribution():
    y, p = _binary_data(80, 0.4, 0.2, 0.3, seed=4)
    w = np.random.default_rng(0).integers(1, 4, y.size)
    ci_w = outperformance_score_ci("mcc", y, p, sample_weight=w, n_resamples=3000, random_state=0)
    ci_r = outperformance_score_ci("mcc", np.repeat(y, w), np.repeat(p, w), n_resamples=3000, random_state=0)
    assert ci_w.estimate == pytest.approx(ci_r.estimate)
    # importance weights resample rows (80 units), repeated rows resample observations
    # (sum(w) units): the weighted bootstrap is wider
    assert ci_w.standard_error > ci_r.standard_error


def test_ci_undefined_resamples_warn_and_are_counted():
    y = np.array([1, 0, 0, 0, 0, 0, 0, 1])
    p = np.array([1, 0, 1, 0, 0, 0, 0, 0])
    with pytest.warns(UndefinedMeasureWarning, match="undefined in"):
        ci = outperformance_score_ci("f1", y, p, n_resamples=500, random_state=0)
    assert ci.n_undefined > 0
    assert np.isnan(ci.distribution).sum() == ci.n_undefined
    with pytest.warns(UndefinedMeasureWarning, match="undefined on the data"):
        ci = outperformance_score_ci("f1", np.zeros(10, int), np.zeros(10, int), n_resamples=50, random_state=0)
    assert np.isnan(ci.estimate) and np.isnan(ci.low)


def test_ci_string_labels_and_pos_label():
    y, p = _binary_data(200, 0.3, 0.2, 0.3, seed=9)
    names = np.array(["neg", "pos"])
    a = outperformance_score_ci("f1", y, p, n_resamples=200, random_state=0)
    b = outperformance_score_ci("f1", names[y], names[p], pos_label="pos", n_resamples=200, random_state=0)
    assert a.estimate == pytest.approx(b.estimate)
    np.testing.assert_allclose(a.distribution, b.distribution)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        (dict(metric="nope"), "unknown metric"),
        (dict(metric="precision_at_recall"), "needs at="),
        (dict(metric="roc_auc", at=0.5), "point metrics only"),
        (dict(metric="roc_auc", score_bins=0), "score_bins"),
        (dict(metric="roc_auc", y_pred=[0.1, 0.2, np.nan, 0.3]), "NaN"),
        (dict(n_resamples=0), "n_resamples"),
        (dict(confidence_level=1.5), "confidence_level"),
        (dict(average="macro"), "binary"),
        (dict(y_true=[0, 1, 2, 1], y_pred=[0, 1, 2, 2]), "3 classes"),
        (dict(y_true=[0, 1, 1], y_pred=[0, 1]), "different lengths"),
        (dict(sample_weight=[1.0, 2.0]), "sample_weight"),
        (dict(pos_label=7), "pos_label"),
    ],
)
def test_ci_bad_input(kwargs, match):
    args = dict(metric="f1", y_true=[0, 1, 1, 0], y_pred=[0, 1, 0, 0])
    args.update(kwargs)
    with pytest.raises(InvalidInputError, match=match):
        outperformance_score_ci(args.pop("metric"), args.pop("y_true"), args.pop("y_pred"), **args)


# --- confidence interval of scoring metrics ----------------------------------------------------

G = 4096  # reference curves in these tests (standard error <= 0.008)


@pytest.fixture(scope="module")
def private_cache(tmp_path_factory):
    """The scoring tests read and write a private on-disk reference cache."""
    from beyondchance.outperformance import dbt

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("BEYONDCHANCE_CACHE_DIR", str(tmp_path_factory.mktemp("bc-cache")))
        dbt.clear_reference_cache(disk=False)
        yield
    dbt.clear_reference_cache(disk=False)


def _scored(n, pi, shift, seed, distinct=None):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < pi).astype(int)
    s = rng.normal(size=n) + shift * y
    if distinct is not None:
        s = np.digitize(s, np.quantile(s, np.linspace(0, 1, distinct + 1)[1:-1])).astype(float)
    return y, s


@pytest.mark.parametrize(
    "metric, opts, reference",
    [
        ("roc_auc", {}, lambda y, s: roc_auc_score(y, s)),
        ("pr_auc", {}, lambda y, s: average_precision_score(y, s)),
        ("lift_auc", {}, lambda y, s: lift_auc(y, s)),
        ("gain_nauc", {}, lambda y, s: gain_auc(y, s) / (1 - y.mean() / 2)),
        ("precision_at_recall", {"at": 0.5}, lambda y, s: precision_at_recall(y, s, 0.5)),
        ("precision_at_rate", {"at": 0.2}, lambda y, s: precision_at_k(y, s, rate=0.2)),
    ],
)
def test_scoring_ci_point_is_ops_of_the_data(private_cache, metric, opts, reference):
    y, s = _scored(300, 0.25, 1.0, seed=2)
    ci = outperformance_score_ci(metric, y, s, n_resamples=1000, random_state=0, mc_samples=G, **opts)
    assert ci.value == pytest.approx(reference(y, s), abs=1e-12)
    assert ci.prevalence == pytest.approx(y.mean())
    point = outperformance_score(metric, ci.value, ci.prevalence, mc_samples=G, **opts).score
    assert ci.estimate == pytest.approx(point)
    assert ci.low < ci.estimate < ci.high and 0 <= ci.low and ci.high <= 1
    assert ci.metric == metric and ci.n_undefined == 0
    assert ci.options == dict(mc_samples=G, **opts)


def test_scoring_ci_matches_a_row_bootstrap_in_distribution(private_cache):
    # 6 distinct scores: every (score, class) cell is a pool, no binning -> the draws
    # are exactly a row bootstrap; compare with resampling rows the obvious way
    y, s = _scored(150, 0.3, 1.0, seed=4, distinct=6)
    B = 3000
    ci = outperformance_score_ci("pr_auc", y, s, n_resamples=B, random_state=1, mc_samples=G)
    rng = np.random.default_rng(2)
    mu, pi = [], []
    for idx in rng.integers(0, y.size, size=(B, y.size)):
        if 0 < y[idx].sum() < y.size:
            mu.append(average_precision_score(y[idx], s[idx]))
            pi.append(y[idx].mean())
    brute = np.asarray(outperformance_score("pr_auc", mu, pi, mc_samples=G).score)
    fast = ci.distribution[np.isfinite(ci.distribution)]
    assert stats.ks_2samp(fast, brute).pvalue > 1e-3
    se = np.std(brute, ddof=1)
    assert abs(fast.mean() - brute.mean()) < 4 * se * np.sqrt(2 / B)
    # and the prevalence is re-estimated: the OPS at the fixed pi-hat differs in law
    frozen = np.asarray(outperformance_score("pr_auc", mu, np.full(len(mu), y.mean()), mc_samples=G).score)
    assert stats.ks_2samp(fast, frozen).pvalue < 1e-4  # measured 7e-6 (seeded)


def test_scoring_ci_binned_cells_are_shifted_by_the_binning_error(private_cache):
    y, s = _scored(4000, 0.2, 1.0, seed=6)
    exact = outperformance_score_ci("roc_auc", y, s, n_resamples=2000, random_state=3, mc_samples=G, score_bins=4000)
    binned = outperformance_score_ci("roc_auc", y, s, n_resamples=2000, random_state=3, mc_samples=G, score_bins=50)
    assert exact.estimate == binned.estimate  # the point estimate never uses the bins
    # 50 bins change the resampled AUC by about 1e-3 (the shift corrects its centre)
    assert abs(exact.low - binned.low) < 0.01 and abs(exact.high - binned.high) < 0.01
    assert binned.low < binned.estimate < binned.high


def test_scoring_ci_coverage_of_population_ops(private_cache):
    """Coverage of OPS(AUC of the population) by the 95% interval, binormal scores at
    n = 200 over 300 test sets.  Measured with 1000 sets (B = 1000): 0.946 for roc_auc
    and 0.936 for pr_auc (its population value from 4e6 rows); binomial sd at 300 sets
    is about 0.013, so [0.90, 0.99] is more than 3 sd around both."""
    from scipy.stats import norm

    n, pi, d = 200, 0.3, 1.0
    target = outperformance_score("roc_auc", norm.cdf(d / np.sqrt(2)), pi, mc_samples=G).score
    rng = np.random.default_rng(1)
    hits = 0
    for _ in range(300):
        y = (rng.random(n) < pi).astype(int)
        s = rng.normal(size=n) + d * y
        ci = outperformance_score_ci("roc_auc", y, s, n_resamples=400, random_state=rng, mc_samples=G)
        hits += ci.low <= target <= ci.high
    assert 0.90 <= hits / 300 <= 0.99


def test_scoring_ci_weights_and_labels(private_cache):
    y, s = _scored(300, 0.3, 0.8, seed=8)
    w = np.random.default_rng(0).uniform(0.0, 2.0, y.size)
    w[:20] = 0.0  # rows of zero weight are not units of the resampling
    ci = outperformance_score_ci("roc_auc", y, s, sample_weight=w, n_resamples=500, random_state=0, mc_samples=G)
    assert ci.value == pytest.approx(roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    assert ci.prevalence == pytest.approx(np.average(y, weights=w))
    assert ci.low < ci.estimate < ci.high
    labels = np.where(y == 1, "churn", "stay")
    ci_l = outperformance_score_ci("roc_auc", labels, s, pos_label="churn", n_resamples=500, random_state=0, mc_samples=G)
    ci_n = outperformance_score_ci("roc_auc", y, s, n_resamples=500, random_state=0, mc_samples=G)
    np.testing.assert_array_equal(ci_l.distribution, ci_n.distribution)


def test_scoring_ci_one_class_is_undefined(private_cache):
    with pytest.warns(UndefinedMeasureWarning, match="undefined on the data"):
        ci = outperformance_score_ci("roc_auc", [1, 1, 1], [0.2, 0.5, 0.9], n_resamples=50, mc_samples=G)
    assert np.isnan(ci.estimate) and np.isnan(ci.low) and np.isnan(ci.high)


# --- multi-class and multi-label -------------------------------------------------------------


def _binary_ops(metric, yt, yp, w=None):
    cm = ConfusionMatrix.from_counts(
        tp=float(np.sum((w if w is not None else 1) * (yt & yp))),
        fp=float(np.sum((w if w is not None else 1) * (~yt & yp))),
        fn=float(np.sum((w if w is not None else 1) * (yt & ~yp))),
        tn=float(np.sum((w if w is not None else 1) * (~yt & ~yp))),
    )
    return cm.metric(metric), cm.prevalence, outperformance_score(metric, cm.metric(metric), cm.prevalence).score


@pytest.mark.parametrize("metric", ["f1", "mcc", "accuracy", "precision"])
@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_equals_loop_over_binary(metric, weighted):
    rng = np.random.default_rng(0)
    y = rng.choice(["a", "b", "c", "d"], size=300, p=[0.4, 0.3, 0.2, 0.1])
    p = np.where(rng.random(300) < 0.7, y, rng.choice(["a", "b", "c", "d"], size=300))
    w = rng.uniform(0.5, 2, 300) if weighted else None
    r = multiclass_outperformance_score(metric, y, p, sample_weight=w, average=None)
    assert r.labels.tolist() == ["a", "b", "c", "d"]
    for i, c in enumerate(r.labels):
        v, pi, s = _binary_ops(metric, y == c, p == c, w)
        assert r.values[i] == pytest.approx(v)
        assert r.prevalences[i] == pytest.approx(pi)
        assert r.scores[i] == pytest.approx(s, abs=1e-12)
    if metric == "f1":  # values against scikit-learn
        np.testing.assert_allclose(r.values, f1_score(y, p, average=None, sample_weight=w, labels=r.labels))
    macro = multiclass_outperformance_score(metric, y, p, sample_weight=w)
    weighted_avg = multiclass_outperformance_score(metric, y, p, sample_weight=w, average="weighted")
    assert macro.score == pytest.approx(np.mean(r.scores))
    support = np.array([np.sum(w[y == c]) if w is not None else np.sum(y == c) for c in r.labels])
    assert weighted_avg.score == pytest.approx(np.sum(support * r.scores) / support.sum())
    assert isinstance(macro, MulticlassOPSResult)
    json.dumps(macro.to_dict())


def test_multilabel_equals_per_column_binary():
    rng = np.random.default_rng(1)
    Y = (rng.random((250, 5)) < [0.1, 0.2, 0.3, 0.5, 0.7]).astype(int)
    P = np.where(rng.random(Y.shape) < 0.8, Y, 1 - Y)
    r = multiclass_outperformance_score("mcc", Y, P, average=None, labels=list("vwxyz"))
    assert r.multilabel and r.labels.tolist() == list("vwxyz")
    for j in range(5):
        v, pi, s = _binary_ops("mcc", Y[:, j] == 1, P[:, j] == 1)
        assert r.values[j] == pytest.approx(v)
        assert r.prevalences[j] == pytest.approx(pi)
        assert r.scores[j] == pytest.approx(s, abs=1e-12)
    w = multiclass_outperformance_score("mcc", Y.astype(bool), P.astype(bool), average="weighted")
    assert w.score == pytest.approx(np.average(r.scores, weights=Y.mean(0)))


def test_multiclass_undefined_class_is_left_out():
    y = np.array([0, 0, 1, 1, 1, 0])
    p = np.array([0, 2, 1, 1, 0, 0])  # class 2 never true: OPS undefined
    with pytest.warns(UndefinedMeasureWarning, match=r"\[2\]"):
        r = multiclass_outperformance_score("f1", y, p)
    assert np.isnan(r.scores[2]) and np.isfinite(r.scores[:2]).all()
    assert r.score == pytest.approx(r.scores[:2].mean())


@pytest.mark.parametrize("weighted", [False, True])
def test_multiclass_scoring_metrics_equal_sklearn_one_vs_rest(private_cache, weighted):
    rng = np.random.default_rng(3)
    n, K = 400, 3
    y = rng.choice(["a", "b", "c"], size=n, p=[0.5, 0.3, 0.2])
    logits = rng.normal(size=(n, K)) + 1.2 * (y[:, None] == np.array(["a", "b", "c"]))
    P = np.exp(logits) / np.exp(logits).sum(1, keepdims=True)
    w = rng.uniform(0.5, 2.0, n) if weighted else None
    r = multiclass_outperformance_score("roc_auc", y, P, sample_weight=w, mc_samples=G)
    assert r.labels.tolist() == ["a", "b", "c"]
    for k, c in enumerate("abc"):
        assert r.values[k] == pytest.approx(roc_auc_score(y == c, P[:, k], sample_weight=w), abs=1e-12)
        assert r.prevalences[k] == pytest.approx(np.average(y == c, weights=w))
        assert r.scores[k] == outperformance_score("roc_auc", r.values[k], r.prevalences[k], mc_samples=G).score
    assert r.score == pytest.approx(r.scores.mean())
    if not weighted:  # scikit-learn's one-vs-rest macro AUC is the mean of the values
        assert r.values.mean() == pytest.approx(roc_auc_score(y, P, multi_class="ovr"), abs=1e-12)
    rw = multiclass_outperformance_score("pr_auc", y, P, sample_weight=w, average="weighted", mc_samples=G)
    for k, c in enumerate("abc"):
        assert rw.values[k] == pytest.approx(average_precision_score(y == c, P[:, k], sample_weight=w), abs=1e-12)
    assert rw.score == pytest.approx(np.average(rw.scores, weights=rw.prevalences))


def test_multilabel_scoring_metrics_equal_sklearn_per_column(private_cache):
    rng = np.random.default_rng(5)
    Y = (rng.random((300, 4)) < [0.1, 0.3, 0.5, 0.0]).astype(int)  # the last label never occurs
    S = rng.normal(size=Y.shape) + Y
    with pytest.warns(UndefinedMeasureWarning, match=r"\[3\]"):
        r = multiclass_outperformance_score("pr_auc", Y, S, mc_samples=G)
    assert r.multilabel
    np.testing.assert_allclose(r.values[:3], average_precision_score(Y[:, :3], S[:, :3], average=None), atol=1e-12)
    assert np.isnan(r.values[3]) and np.isnan(r.scores[3])
    assert r.score == pytest.approx(r.scores[:3].mean())
    r2 = multiclass_outperformance_score("precision_at_recall", Y[:, :3], S[:, :3], at=0.5, mc_samples=G)
    for j in range(3):
        assert r2.values[j] == pytest.approx(precision_at_recall(Y[:, j], S[:, j], 0.5), abs=1e-12)


@pytest.mark.parametrize(
    "args, kwargs, match",
    [
        (("nope", [0, 1, 2], [0, 1, 2]), {}, "unknown metric"),
        (("roc_auc", [0, 1, 2], [0, 1, 2]), {}, r"\(n, K\) score matrix"),
        (("roc_auc", [0, 1, 2, 1], np.ones((4, 2))), {}, "2 columns but there are 3 classes"),
        (("roc_auc", [[0, 1], [1, 0]], np.ones((2, 3))), {}, "shape"),
        (("pr_auc", [0, 1, 2], np.ones((3, 3))), {"labels": [0, 1]}, "3 columns but there are 2"),
        (("precision_at_recall", [0, 1, 2], np.ones((3, 3))), {}, "needs at="),
        (("f1", [0, 1, 2], [0, 1, 2]), dict(average="micro"), "average"),
        (("f1", [0, 1, 2], [0, 1, 2]), dict(average="bogus"), "average"),
        (("f1", [0, 1, 2], [0, 1]), {}, "different lengths"),
        (("f1", [[0, 1], [1, 0]], [[0, 1, 0], [1, 0, 0]]), {}, "shape"),
        (("f1", [[0, 2], [1, 0]], [[0, 1], [1, 0]]), {}, "0/1"),
        (("f1", [[0, 1], [1, 0]], [[0, 1], [1, 0]]), dict(labels=["a"]), "labels"),
        (("f1", [[0, 1], [1, 0]], [[0, 1], [1, 0]]), dict(sample_weight=[1.0]), "sample_weight"),
    ],
)
def test_multiclass_bad_input(args, kwargs, match):
    with pytest.raises(InvalidInputError, match=match):
        multiclass_outperformance_score(*args, **kwargs)
