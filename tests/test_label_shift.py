"""Before the labels arrive: estimate_performance and compare's windows without labels."""

from __future__ import annotations

import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

from beyondchance import InvalidInputError, compare, estimate_performance
from beyondchance.measures.registry import METRICS

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def sim():
    spec = importlib.util.spec_from_file_location("sim_monitoring", ROOT / "benchmarks" / "sim_monitoring.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def default_pool(sim):
    return sim.make_pool("default")


def _reference(rng, pi=0.3, n=4000):
    y = (rng.random(n) < pi).astype(int)
    s = 1 / (1 + np.exp(-(2.0 * (2 * y - 1) + rng.normal(0, 1.5, n))))
    return y, np.round(s, 4)


def test_an_exact_mixture_gives_back_its_prevalence_with_both_estimators():
    rng = np.random.default_rng(1)
    y, s = _reference(rng)
    pi = 0.08
    # the window is exactly π F1 + (1 − π) F0 of the reference (as weights)
    w = np.where(y == 1, pi / y.sum(), (1 - pi) / (y.size - y.sum()))
    for method in ("acc", "em"):
        est = estimate_performance(y, s, s, sample_weight_window=w, method=method, n_resamples=200,
                                   metrics=["precision", "f1", "pr_auc", "brier"])
        assert est.prevalence == pytest.approx(pi, abs=1e-6), method
        assert est.estimates["acc"] == pytest.approx(pi, abs=1e-9)
        assert est.assumption_holds and est.assumption_statistic == pytest.approx(0, abs=1e-6)
        # every metric is the reference's rows reweighted to the estimated prevalence
        p = est.prevalence
        rw = np.where(y == 1, p / y.mean(), (1 - p) / (1 - y.mean()))
        assert est.metrics["precision"].value == pytest.approx(skm.precision_score(y, s >= 0.5, sample_weight=rw),
                                                               abs=1e-9)
        assert est.metrics["pr_auc"].value == pytest.approx(skm.average_precision_score(y, s, sample_weight=rw),
                                                            abs=1e-9)
        assert est.metrics["brier"].value == pytest.approx(skm.brier_score_loss(y, s, sample_weight=rw), abs=1e-9)


def test_adjusted_classify_and_count_is_the_closed_form():
    rng = np.random.default_rng(2)
    y, s = _reference(rng)
    _, s_new = _reference(rng, pi=0.15, n=3000)
    est = estimate_performance(y, s, s_new, threshold=0.6, n_resamples=200, metrics=["f1"])
    tn, fp, fn, tp = skm.confusion_matrix(y, s >= 0.6).ravel()
    tpr, fpr = tp / (tp + fn), fp / (fp + tn)
    q = np.mean(s_new >= 0.6)
    assert est.estimates["acc"] == pytest.approx((q - fpr) / (tpr - fpr), abs=1e-12)
    assert est.metrics["f1"].value == pytest.approx(
        METRICS["f1"].from_rates(est.prevalence, fpr, 1 - tpr), abs=1e-12)
    json.dumps(est.to_dict(), allow_nan=False)


def test_label_free_intervals_cover(sim, default_pool):
    # 20 windows at 10% prevalence, 200 resamples: nominal 0.95, accepted 0.8–1.0
    for method in ("acc", "em"):
        cov = sim.label_free_coverage(default_pool, 0.1, 20, 5000, 200, method=method, seed=31,
                                      metrics=("precision", "f1", "pr_auc"))
        assert cov["prevalence"] >= 0.8 and cov["f1"] >= 0.8 and cov["pr_auc"] >= 0.8, (method, cov)
        assert cov["flagged"] <= 0.2, (method, cov)


def test_a_covariate_shift_is_flagged(sim, default_pool):
    assert sim.covariate_shift_flag_rate(default_pool, 12, 5000, 200, gamma=2.0, seed=32) >= 0.8


def test_bad_windows():
    rng = np.random.default_rng(3)
    y, s = _reference(rng)
    with pytest.raises(InvalidInputError, match="at least 50"):
        estimate_performance(y, s, s[:20])
    with pytest.raises(InvalidInputError, match="single class"):
        estimate_performance(np.zeros(y.size, int), s, s)
    est = estimate_performance(y, s, np.r_[s[:500], np.full(20, 5.0)], threshold=0.5, n_resamples=200,
                               metrics=["f1"])
    assert any("outside the reference's range" in c for c in est.caveats)


def test_compare_with_windows_without_labels():
    rng = np.random.default_rng(4)
    jan = _reference(rng, 0.3)
    feb = _reference(rng, 0.1)[1]
    shifted = np.clip(_reference(rng, 0.2)[1] + 0.15, 0, 1)  # not a label shift
    c = compare({"jan": jan, "feb": (None, feb), "mar": (None, shifted)}, metrics=["precision", "f1"],
                n_resamples=300)
    assert [r.name for r in c.reports] == ["jan"]
    (n1, e1), (n2, e2) = c.label_free
    assert (n1, n2) == ("feb", "mar") and e1.assumption_holds and not e2.assumption_holds
    assert e1.prevalence_ci[0] < 0.1 < e1.prevalence_ci[1]
    assert any(v.startswith("mar (no labels): The window's scores changed") and "not to be trusted" in v
               for v in c.verdict)
    d = json.loads(json.dumps(c.to_dict(), allow_nan=False))
    assert d["label_free"][0]["test_set"] == "feb" and "f1" in d["label_free"][0]["metrics"]
    assert "Windows without labels" in c.details() and "label-free" in c.to_html()
    with pytest.raises(InvalidInputError, match="with labels"):
        compare({"a": (None, feb), "b": (None, shifted)})


def test_cli_compare_a_file_without_labels(tmp_path):
    rng = np.random.default_rng(5)
    y, s = _reference(rng, 0.3, 2000)
    pd.DataFrame({"label": y, "score": s}).to_csv(tmp_path / "jan.csv", index=False)
    pd.DataFrame({"score": _reference(rng, 0.1, 2000)[1]}).to_csv(tmp_path / "feb.csv", index=False)
    cmd = [sys.executable, "-m", "beyondchance.cli", "compare", str(tmp_path / "jan.csv"), str(tmp_path / "feb.csv"),
           "--y-true", "label", "--y-score", "score", "--metrics", "precision", "--n-resamples", "200",
           "--format", "json"]
    out = subprocess.run(cmd, capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    d = json.loads(out.stdout)
    assert d["label_free"][0]["test_set"] == "feb" and d["label_free"][0]["n_window"] == 2000
    bad = subprocess.run(cmd[:4] + [str(tmp_path / "feb.csv"), str(tmp_path / "feb.csv")] + cmd[6:],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and len(bad.stderr.strip().splitlines()) == 1


def test_label_free_intervals_em_bca_and_acc_percentile_on_the_same_resamples():
    # EM: scipy's BCa on the same resamples; scores on a grid of 0.1, so every cell is exact and
    # the jackknife of the cells (one row out of each non-empty cell, times its rows) is scipy's
    # jackknife of the rows.  ACC: the percentile interval of the same resamples.
    from types import SimpleNamespace

    from scipy import stats as sps

    from beyondchance.measures.curves import threshold_counts
    from beyondchance.monitoring.label_free import EM_BINS, _acc, _coarse, _em, _em_variance, _variance_bias_scale, _window_bins
    from beyondchance.monitoring.decomposition import _rates
    from beyondchance.monitoring.set_statistics import SetStatistics

    rng = np.random.default_rng(9)
    y = (rng.random(400) < 0.3).astype(int)
    s = np.round(np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.25, y.size), 0, 1), 1)
    y_new = (rng.random(300) < 0.15).astype(int)
    s_new = np.round(np.clip(0.5 + 0.25 * (2 * y_new - 1) + rng.normal(0, 0.25, y_new.size), 0, 1), 1)
    ref = SetStatistics.from_counts(threshold_counts(y, s), threshold=0.5)
    groups = _coarse(ref, EM_BINS)
    window = np.bincount(_window_bins(ref, s_new), minlength=ref.pos.shape[0]).astype(float)

    gen = np.random.default_rng(6)  # estimate_performance's resamples: the reference's cells, the window's bins
    r_star = ref.resample(999, gen)
    w_star = gen.multinomial(s_new.size, window / window.sum(), size=999)
    acc_star = _acc(r_star, w_star[:, : ref.cut].sum(1) / w_star.sum(1))
    est = estimate_performance(y, s, s_new, threshold=0.5, method="acc", n_resamples=999, random_state=6,
                               metrics=["precision"])
    percentile = np.clip(np.percentile(acc_star, [2.5, 97.5]), 0, 1)
    assert est.prevalence_ci == pytest.approx(tuple(percentile), abs=1e-12)

    em_star = _em(*(np.add.reduceat(x, groups, axis=1) for x in (r_star.pos, r_star.neg, w_star)))
    # EM's deviations widened by the bootstrap's estimate of its plug-in variance's bias
    cells = [np.add.reduceat(x, groups, axis=-1) for x in (ref.pos, ref.neg, window)]
    em_hat = float(_em(*cells)[0])
    v_star = _em_variance(*(np.add.reduceat(x, groups, axis=1) for x in (r_star.pos, r_star.neg, w_star)), em_star,
                          ref.n_rows, s_new.size)
    scale = _variance_bias_scale(float(_em_variance(*cells, em_hat, ref.n_rows, s_new.size)[0]), v_star)
    em_star = em_hat + scale * (em_star - em_hat)
    precision_star = METRICS["precision"].from_rates(np.clip(em_star, 1e-9, 1 - 1e-9), *_rates(r_star)[1:])
    est = estimate_performance(y, s, s_new, threshold=0.5, method="em", n_resamples=999, random_state=6,
                               metrics=["precision"])
    # rows -> EM's groups (of the whole reference's bins)
    g_ref = np.searchsorted(groups, _window_bins(ref, s), side="right") - 1
    g_new = np.searchsorted(groups, _window_bins(ref, s_new), side="right") - 1

    def em(i, j):
        cells = (np.bincount(g_ref[i][y[i] == 1], minlength=groups.size),
                 np.bincount(g_ref[i][y[i] == 0], minlength=groups.size), np.bincount(g_new[j], minlength=groups.size))
        return float(_em(*(c.astype(float) for c in cells))[0])

    def precision(i, j):
        fpr, tpr = np.mean(s[i][y[i] == 0] >= 0.5), np.mean(s[i][y[i] == 1] >= 0.5)
        return METRICS["precision"].from_rates(np.clip(em(i, j), 1e-9, 1 - 1e-9), fpr, 1 - tpr)

    for statistic, draws, ours in ((em, em_star, est.prevalence_ci), (precision, precision_star,
                                                                       est.metrics["precision"].ci)):
        res = sps.bootstrap((np.arange(y.size), np.arange(s_new.size)), statistic, n_resamples=0, vectorized=False,
                            method="BCa", bootstrap_result=SimpleNamespace(bootstrap_distribution=draws))
        # EM stops when π moves less than 1e-8 (a batch of jackknife values iterates until all do)
        assert ours == pytest.approx(tuple(res.confidence_interval), abs=1e-8)
        assert ours != pytest.approx(tuple(np.percentile(draws, [2.5, 97.5])), abs=1e-4)  # not the percentile


def test_the_bootstrap_sd_matches_the_sampling_sd_of_the_estimate():
    # The label-free intervals resample both sets: the reference's cells (its rows) and the
    # window's bins (its rows).  Over fresh (reference, window) pairs (seed 11; 200 pairs, a
    # reference of 1,000 rows at 30%, a window of 2,000 rows at 10%) the mean bootstrap sd of the
    # prevalence (30 pairs, 300 resamples) matches its sampling sd; resampling only the window
    # (as if the reference were known) falls well short, the reference contributing at least
    # as much as the window (docs/monitoring.md, "Why the label-free intervals fell short").
    from beyondchance.measures.curves import threshold_counts
    from beyondchance.monitoring.label_free import EM_BINS, _bootstrap, _coarse, _estimator, _window_counts
    from beyondchance.monitoring.set_statistics import SetStatistics

    rng = np.random.default_rng(11)
    n_ref, n = 1000, 2000

    def draw(pi, n):
        y = (rng.random(n) < pi).astype(int)
        return y, np.round(1 / (1 + np.exp(-(1.5 * (2 * y - 1) + rng.normal(0, 1.5, n)))), 3)

    for method in ("acc", "em"):
        estimates, boot_sd, window_only_sd = [], [], []
        for r in range(200):
            ref = SetStatistics.from_counts(threshold_counts(*draw(0.3, n_ref)), threshold=0.5)
            window = _window_counts(ref, draw(0.1, n)[1], np.ones(n))
            groups = _coarse(ref, EM_BINS)
            estimate = _estimator(method, groups)
            estimates.append(float(estimate(ref, window)[0]))
            if r < 30:
                boot = _bootstrap(ref, window, n, method, groups, [], 300, np.random.default_rng(r))
                boot_sd.append(np.std(boot.pi_star))
                w_star = np.random.default_rng(r).multinomial(n, window / window.sum(), size=300)
                window_only_sd.append(np.std(estimate(ref, w_star)))
        sd = np.std(estimates, ddof=1)
        ratio, window_only = np.mean(boot_sd) / sd, np.mean(window_only_sd) / sd
        print(f"{method}: bootstrap sd / sampling sd {ratio:.3f}, window only {window_only:.3f}")
        assert 0.85 <= ratio <= 1.15, (method, ratio, window_only)
        assert window_only < 0.8, (method, ratio, window_only)


def test_em_intervals_correct_the_bias_of_the_plug_in_variance():
    # Issue 13: with a reference of few positives EM's bootstrap was a few percent too narrow.
    # The reference's noisy bin frequencies make the classes look more separable than they
    # are, so the delta-method variance at the estimate (what the bootstrap reproduces to first
    # order) is biased low; the bootstrap estimates that bias one level down
    # (label_shift._variance_bias_scale) and widens EM's resampled deviations by it.  Known
    # cells (10 bins, weakly separated, 300 positives in the reference, a window of 5,000 at
    # 30%), cell-level draws: the delta-method variance is the sampling variance, its plug-in
    # is biased low, and the mean scale is sqrt(V(θ) / E V(θ̂)) within 0.004.
    from beyondchance.monitoring.label_free import _em, _em_variance, _variance_bias_scale

    seed = 5
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    x = np.linspace(-2, 2, 10)
    f1, f0 = np.exp(0.8 * x), np.exp(-0.3 * x)
    f1, f0 = f1 / f1.sum(), f0 / f0.sum()
    pi, m, n1, n0 = 0.3, 5000, 300, 4700
    g = pi * f1 + (1 - pi) * f0
    rp, rn = rng.multinomial(n1, f1, size=4000).astype(float), rng.multinomial(n0, f0, size=4000).astype(float)
    w = rng.multinomial(m, g, size=4000).astype(float)
    est = _em(rp, rn, w)
    v_true = _em_variance(n1 * f1, n0 * f0, m * g, pi, n1 + n0, m)[0]
    v_hat = _em_variance(rp, rn, w, est, n1 + n0, m)
    print(f"sampling variance {est.var():.3e}, delta method {v_true:.3e}, mean plug-in {v_hat.mean():.3e}")
    assert abs(est.var() / v_true - 1) < 0.06
    assert v_hat.mean() / v_true < 0.99  # the plug-in's bias (0.980 with this seed)
    scales = []
    for r in range(40):
        rps = rng.multinomial(n1, rp[r] / n1, size=500).astype(float)
        rns = rng.multinomial(n0, rn[r] / n0, size=500).astype(float)
        ws = rng.multinomial(m, w[r] / m, size=500).astype(float)
        scales.append(_variance_bias_scale(v_hat[r], _em_variance(rps, rns, ws, _em(rps, rns, ws), n1 + n0, m)))
    target = np.sqrt(v_true / v_hat.mean())
    print(f"mean scale {np.mean(scales):.4f}, sqrt(V(θ) / E V(θ̂)) {target:.4f}")
    assert abs(np.mean(scales) - target) < 0.004 and np.mean(scales) > 1


def test_em_bootstrap_draws_carry_the_variance_bias_scale():
    # The library's EM bootstrap multiplies the resampled deviations by that scale (and ACC's
    # are left alone): same resamples, with and without (seed 3).
    from beyondchance.measures.curves import threshold_counts
    from beyondchance.monitoring.label_free import EM_BINS, _bootstrap, _coarse, _window_counts
    from beyondchance.monitoring.set_statistics import SetStatistics

    seed = 3
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)

    def draw(pi):  # weakly separated classes, 6% positives in the reference (as caravan)
        y = (rng.random(3000) < pi).astype(int)
        return y, np.round(1 / (1 + np.exp(-(0.6 * (2 * y - 1) + rng.normal(0, 1.5, 3000)))), 4)

    ref = SetStatistics.from_counts(threshold_counts(*draw(0.06)), threshold=0.5)
    window = _window_counts(ref, draw(0.3)[1], np.ones(3000))
    groups = _coarse(ref, EM_BINS)
    new, old = (_bootstrap(ref, window, 3000, "em", groups, ["accuracy"], 300, np.random.default_rng(seed),
                           correct_scale=c) for c in (True, False))
    print(f"scale {new.scale:.4f}")
    assert new.scale > 1
    np.testing.assert_allclose(new.pi_star - new.binned_pi, new.scale * (old.pi_star - old.binned_pi))
    assert np.std(new.m_star["accuracy"]) > np.std(old.m_star["accuracy"])
    acc = _bootstrap(ref, window, 3000, "acc", groups, [], 300, np.random.default_rng(seed))
    assert acc.scale == 1.0
