"""Prevalence shift or a changed classifier: the decomposition, the tests, compare's verdict."""

from __future__ import annotations

import importlib.util
import json
import sys
import warnings
from pathlib import Path
from types import SimpleNamespace

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given
from hypothesis import strategies as st
from scipy import stats as sps

from beyondchance import InvalidInputError, compare
from beyondchance.measures.curves import threshold_counts
from beyondchance.measures.registry import METRICS
from beyondchance.inference.delong import delong_variance_of_counts
from beyondchance.monitoring.decomposition import DECOMPOSABLE, decompose
from beyondchance.monitoring.set_statistics import SetStatistics
from beyondchance.inference.significance import holm_adjust
from beyondchance.monitoring.classifier_change import auc_permutation_pvalue, classifier_change_tests

ROOT = Path(__file__).resolve().parents[1]


def _sim():
    spec = importlib.util.spec_from_file_location("sim_monitoring", ROOT / "benchmarks" / "sim_monitoring.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def sim():
    return _sim()


@pytest.fixture(scope="module")
def default_pool(sim):
    return sim.make_pool("default")


def _scored(rng, pi, n, noise=0.25):
    y = (rng.random(n) < pi).astype(int)
    s = np.round(np.clip(0.5 + 0.2 * (2 * y - 1) + rng.normal(0, noise, n), 0, 1), 4)
    return y, s


# --- the decomposition -------------------------------------------------------------------


def test_observed_values_equal_scikit_learn_and_expected_is_the_reweighted_reference():
    rng = np.random.default_rng(3)
    yr, sr = _scored(rng, 0.3, 3000)
    yt, st_ = _scored(rng, 0.07, 3000)
    ref = SetStatistics.from_counts(threshold_counts(yr, sr), threshold=0.5, max_bins=300)  # binned bootstrap
    new = SetStatistics.from_counts(threshold_counts(yt, st_), threshold=0.5, max_bins=300)
    names = ["f1", "precision", "mcc", "accuracy", "roc_auc", "pr_auc", "brier", "log_loss"]
    d = decompose(ref, new, names, n_resamples=0)
    pred = st_ >= 0.5
    assert d["f1"].value == pytest.approx(skm.f1_score(yt, pred), abs=1e-12)
    assert d["mcc"].value == pytest.approx(skm.matthews_corrcoef(yt, pred), abs=1e-12)
    assert d["roc_auc"].value == pytest.approx(skm.roc_auc_score(yt, st_), abs=1e-12)
    assert d["pr_auc"].value == pytest.approx(skm.average_precision_score(yt, st_), abs=1e-12)
    assert d["brier"].value == pytest.approx(skm.brier_score_loss(yt, st_), abs=1e-12)
    assert d["log_loss"].value == pytest.approx(skm.log_loss(yt, st_), abs=1e-12)
    assert d["precision"].reference_value == pytest.approx(skm.precision_score(yr, sr >= 0.5), abs=1e-12)
    # the reference classifier at the test set's prevalence = the reference's rows reweighted to it
    pi_t, pi_r = yt.mean(), yr.mean()
    w = np.where(yr == 1, pi_t / pi_r, (1 - pi_t) / (1 - pi_r))
    assert d["precision"].expected_value == pytest.approx(skm.precision_score(yr, sr >= 0.5, sample_weight=w), abs=1e-12)
    assert d["f1"].expected_value == pytest.approx(skm.f1_score(yr, sr >= 0.5, sample_weight=w), abs=1e-12)
    assert d["pr_auc"].expected_value == pytest.approx(skm.average_precision_score(yr, sr, sample_weight=w), abs=1e-12)
    assert d["brier"].expected_value == pytest.approx(skm.brier_score_loss(yr, sr, sample_weight=w), abs=1e-12)
    assert d["roc_auc"].expected_value == pytest.approx(skm.roc_auc_score(yr, sr), abs=1e-12)


@given(st.lists(st.integers(1, 500), min_size=8, max_size=8))
def test_the_two_effects_add_up_to_the_change(c):
    ref = SetStatistics.from_confusion(*c[:4])
    new = SetStatistics.from_confusion(*c[4:])
    d = decompose(ref, new, [m for m in METRICS if m != "fbeta"], n_resamples=0)
    for m in d.values():
        if np.isfinite([m.value, m.reference_value, m.expected_value]).all():
            assert m.prevalence_effect + m.classifier_effect == pytest.approx(m.value - m.reference_value, abs=1e-9)
    same = decompose(ref, ref, ["f1", "mcc", "kappa"], n_resamples=0)
    for m in same.values():
        assert m.expected_value == pytest.approx(m.value, abs=1e-12) and m.classifier_effect == pytest.approx(0, abs=1e-12)


def test_decomposable_covers_the_registry_and_the_scores():
    assert set(METRICS) <= set(DECOMPOSABLE)
    assert {"roc_auc", "pr_auc", "lift_auc", "log_loss", "brier"} <= set(DECOMPOSABLE)


def test_holm():
    assert holm_adjust([0.01, 0.04, 0.03]).tolist() == pytest.approx([0.03, 0.06, 0.06])
    assert holm_adjust([]).size == 0


def test_delong_test_agrees_with_a_bootstrap_of_the_auc_difference():
    rng = np.random.default_rng(5)
    a = SetStatistics.from_counts(threshold_counts(*_scored(rng, 0.3, 2000)), threshold=0.5)
    b = SetStatistics.from_counts(threshold_counts(*_scored(rng, 0.1, 2000, noise=0.3)), threshold=0.5)
    auc = next(t for t in classifier_change_tests(a, b) if t.quantity == "roc_auc")
    d = decompose(a, b, ["roc_auc"], n_resamples=2000, random_state=1)["roc_auc"]
    # the AUC does not depend on the prevalence: its classifier effect is the AUC difference
    assert d.classifier_effect == pytest.approx(auc.value - auc.reference_value, abs=1e-12)
    width_boot = d.classifier_effect_ci[1] - d.classifier_effect_ci[0]
    width_delong = auc.difference_ci[1] - auc.difference_ci[0]
    assert width_delong == pytest.approx(width_boot, rel=0.15)


def _beta_set(rng, n_pos, n_neg):
    y = np.r_[np.ones(n_pos, int), np.zeros(n_neg, int)]
    return SetStatistics.from_counts(threshold_counts(y, np.round(np.r_[rng.beta(4, 1, n_pos), rng.beta(1, 4, n_neg)], 2)),
                                     threshold=0.5)


def _delong_pvalue(a, b):  # the z-test the permutation test replaced at small sizes
    (a_r, v_r), (a_t, v_t) = delong_variance_of_counts(a.counts), delong_variance_of_counts(b.counts)
    return 2 * sps.norm.sf(abs(a_t - a_r) / np.sqrt(v_r + v_t))


def test_the_auc_test_keeps_its_level_with_few_positives():
    # the same classifier: 150 / 150 reference rows against 8 positives and 100 negatives, 200
    # replicates, seed 7; DeLong's z-test rejects in 0.265 at 5%, the permutation test (at most
    # 199 permutations) in 0.075, within 0.05 + 2.33 standard errors (0.086)
    rng = np.random.default_rng(7)
    old = new = 0
    for _ in range(200):
        a, b = _beta_set(rng, 150, 150), _beta_set(rng, 8, 100)
        new += auc_permutation_pvalue(a.counts, b.counts, 199, rng) <= 0.05
        old += _delong_pvalue(a, b) <= 0.05
    assert new / 200 <= 0.086 < 0.15 <= old / 200, (new, old)


def test_the_auc_test_is_the_permutation_test_only_where_a_class_is_small():
    rng = np.random.default_rng(8)
    big, small = _beta_set(rng, 300, 300), _beta_set(rng, 10, 300)
    tested = {k: classifier_change_tests(big, s, random_state=3)[-1] for k, s in (("big", _beta_set(rng, 300, 300)),
                                                                                   ("small", small))}
    assert tested["big"].method == "unpaired DeLong z-test" and tested["small"].method == "within-class permutation test"
    assert classifier_change_tests(big, small, random_state=3)[-1] == tested["small"]  # seeded: the same p-value
    # weighted counts (not whole rows): DeLong's test, rows of unequal weights are not exchangeable
    halved = SetStatistics.from_counts(threshold_counts(np.r_[np.ones(10, int), np.zeros(300, int)],
                                                        np.linspace(0, 1, 310), sample_weight=np.full(310, 0.5)),
                                       threshold=0.5, n_rows=310)
    assert classifier_change_tests(big, halved)[-1].method == "unpaired DeLong z-test"


def test_the_auc_interval_excludes_zero_exactly_when_the_test_rejects():
    # seed 12: 60 draws of small sets; where Wald's interval and the permutation p-value
    # disagree, the interval is the one the p-value implies
    rng = np.random.default_rng(12)
    kinds = set()
    for _ in range(60):
        auc = classifier_change_tests(_beta_set(rng, 150, 150), _beta_set(rng, 6, 100), random_state=rng,
                                      n_permutations=199)[-1]
        kinds.add(auc.difference_ci.method)
        assert (auc.difference_ci.low > 0 or auc.difference_ci.high < 0) == (auc.pvalue <= 0.05), auc
    assert kinds == {"wald", "test-based"}


# --- simulations on real data (quick versions of benchmarks/sim_monitoring.py) --------------


def test_pure_prevalence_shift_rarely_declares_a_change(sim, default_pool):
    # 60 replicates per prevalence; a broken test (e.g. on precision) rejects in nearly all
    rates = [sim.rejection_rate(default_pool, pi, 60, 5000, seed=11) for pi in (0.02, 0.2, 0.5)]
    assert max(rates) <= 0.15, rates


def test_six_test_sets_share_one_family(sim, default_pool):
    # one reference, a test set at each of six prevalences, 60 replicates, seed 6: Holm over the
    # 18 tests keeps the family-wise rate near 5% (here 0.000); tested one by one it is 0.383
    assert sim.rejection_rate(default_pool, sim.PREVALENCES, 60, 5000, seed=6) <= 0.15


def test_a_real_change_is_detected(sim, default_pool):
    # 20% of the scores replaced by noise, n = 5000, 40 replicates
    assert sim.rejection_rate(default_pool, 0.2, 40, 5000, noise=0.2, seed=12) >= 0.8


def test_decomposition_intervals_cover(sim, default_pool):
    # 40 replicates at 10% prevalence, 200 resamples: 0.95 nominal, accepted 0.8–1.0; an
    # expected value taken at the reference's prevalence instead covers in none
    cov = sim.decomposition_coverage(default_pool, 0.1, 40, 5000, 200, seed=13,
                                     metrics=("precision", "f1", "pr_auc", "roc_auc"))
    for metric, (c_exp, c_clf) in cov.items():
        assert 0.8 <= c_exp <= 1.0 and 0.8 <= c_clf <= 1.0, (metric, c_exp, c_clf)


# --- compare's verdict never contradicts its table ----------------------------------------


def _labels(tp, fp, fn, tn):
    y = np.r_[np.ones(tp + fn, int), np.zeros(fp + tn, int)]
    p = np.r_[np.ones(tp, int), np.zeros(fn, int), np.ones(fp, int), np.zeros(tn, int)]
    return y, p


def _consistent(c):
    """Every flag in the table is in a set the verdict says changed, and the reverse."""
    for cc in c.classifier_changes:
        line = next(v for v in c.verdict if v.startswith(cc.test_set + " ("))
        flagged = [ch for ch in c.changes if ch.test_set == cc.test_set and ch.direction in ("worse", "better")]
        if cc.changed:
            assert "the classifier changed" in line
            for ch in flagged:
                assert c.reports[0].metrics[ch.metric].title.split(" (")[0] in line
        else:
            assert not flagged and "no significant change" in line
            assert "follows the prevalence" not in line and "explained by the prevalence" not in line.replace(
                "not explained by the prevalence", "")


def test_churn_like_case_says_the_sample_cannot_tell():
    # prevalence 13.0% -> 14.9%, false positives 12 -> 2: precision far above what the reference
    # classifier would score at 14.9%
    ref = _labels(60, 12, 22, 536)
    new = _labels(68, 2, 27, 540)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare({"408": ref, "415": new, "510": _labels(61, 11, 21, 537)}, n_resamples=1000)
    _consistent(c)
    ch = c.change("415", "precision")
    assert ch.expected_value == pytest.approx(
        METRICS["precision"].from_rates(95 / 637, 12 / 548, 22 / 82), abs=1e-12)
    assert ch.value > ch.expected_ci[1]  # the observed precision is not what the prevalence explains
    line = next(v for v in c.verdict if v.startswith("415"))
    assert "false-positive rate 2.19% → 0.37%" in line
    if not c.classifier_change("415").changed:  # an uncorrected remark, no claim of a change
        assert "the sample cannot tell" in line and "not explained by the prevalence" not in line
        assert "Uncorrected" not in line or "the test of the false-positive rate (p = " in line


def test_a_changed_ranking_reaches_the_verdict():
    # the AUC drops (half the scores become noise) while the threshold's error rates stay close
    rng = np.random.default_rng(21)
    y1, s1 = _scored(rng, 0.3, 5000)
    y2, s2 = _scored(rng, 0.3, 5000)
    below = s2 < 0.5
    s2[below] = rng.uniform(0, 0.4999, below.sum())  # re-ranks everything below the threshold
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare({"jan": (y1, s1), "feb": (y2, s2)}, metrics=["precision", "f1", "roc_auc"], n_resamples=500)
    _consistent(c)
    assert c.classifier_change("feb").changed
    assert c.flag("feb", "roc_auc") == "▼"
    line = next(v for v in c.verdict if v.startswith("feb"))
    assert "ROC AUC" in line
    d = json.loads(json.dumps(c.to_dict(), allow_nan=False))
    row = next(x for x in d["changes"] if x["test_set"] == "feb" and x["metric"] == "roc_auc")
    for key in ("expected_value", "expected_ci", "prevalence_effect", "classifier_effect", "classifier_effect_ci"):
        assert key in row
    assert d["classifier_changes"][0]["tests"][2]["quantity"] == "roc_auc"
    html = c.to_html()
    assert "flag-worse" in html and "exp " in html and "(ref)" in html


def test_a_reference_with_one_class_is_refused():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(InvalidInputError, match="single class"):
            compare({"a": (np.zeros(50, int), np.r_[np.ones(5), np.zeros(45)].astype(int)),
                     "b": _labels(5, 5, 5, 35)}, ci=False)


def test_the_same_classifier_at_two_prevalences_is_not_flagged():
    rng = np.random.default_rng(4)
    sets = {f"{pi:.0%}": _scored(rng, pi, 3000) for pi in (0.3, 0.05, 0.5)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare(sets, metrics=["precision", "f1", "pr_auc"], n_resamples=300)
    _consistent(c)
    assert not any(cc.changed for cc in c.classifier_changes)
    assert c.change("5%", "precision").value < c.change("5%", "precision").reference_value - 0.3


# --- BCa intervals: the same as scipy's on the same resamples -------------------------------


def test_decomposition_intervals_are_scipys_bca_on_the_same_resamples(monkeypatch):
    # few distinct scores, so the cells are exact (no binning) and the jackknife of the
    # cells (one row out of each non-empty cell, times its rows) is the jackknife of the rows;
    # the test set's few positives would make its rates near-degenerate (Jeffreys draws): the
    # bootstrap's path is checked here
    from scipy import stats as sps

    from beyondchance.monitoring import decomposition
    from beyondchance.monitoring.decomposition import _reference_draws, _values

    monkeypatch.setattr(decomposition, "NEAR_DEGENERATE", 0)

    rng = np.random.default_rng(8)
    yr = (rng.random(300) < 0.2).astype(int)
    yt = (rng.random(250) < 0.08).astype(int)
    sr = np.round(np.clip(0.5 + 0.25 * (2 * yr - 1) + rng.normal(0, 0.3, yr.size), 0, 1), 1)
    st_ = np.round(np.clip(0.5 + 0.2 * (2 * yt - 1) + rng.normal(0, 0.3, yt.size), 0, 1), 1)
    ref = SetStatistics.from_counts(threshold_counts(yr, sr), threshold=0.5)
    new = SetStatistics.from_counts(threshold_counts(yt, st_), threshold=0.5)
    names = ["precision", "roc_auc"]
    d = decompose(ref, new, names, n_resamples=999, random_state=4)
    # decompose's resamples: the reference's first, then the test set's, from the seed
    gen = np.random.default_rng(4)
    r_star = ref.resample(999, gen)
    t_star = new.resample(999, gen)
    assert np.array_equal(r_star.pos, _reference_draws(ref, 999, 4)[0].pos)
    boot = _values(r_star, t_star, names)

    def expected_precision(i, j):
        a_r = np.mean(sr[i][yr[i] == 0] >= 0.5)
        tpr = np.mean(sr[i][yr[i] == 1] >= 0.5)
        pi = yt[j].mean()
        return pi * tpr / (pi * tpr + (1 - pi) * a_r)

    # the ROC AUC's classifier effect: the interval of the ROC AUC's test (DeLong's, or the one its
    # permutation test implies), the same object as classifier_change_tests gives
    auc_test = [t for t in classifier_change_tests(ref, new, random_state=4) if t.quantity == "roc_auc"][0]
    assert d["roc_auc"].classifier_effect_ci == auc_test.difference_ci
    assert d["roc_auc"].classifier_effect == pytest.approx(
        skm.roc_auc_score(yt, st_) - skm.roc_auc_score(yr, sr), abs=1e-12)
    cases = [(expected_precision, boot["precision"][1], d["precision"].expected_ci, tuple)]
    for statistic, draws, ours, back in cases:
        prior = SimpleNamespace(bootstrap_distribution=np.asarray(draws, float).reshape(-1))  # our resamples
        res = sps.bootstrap((np.arange(yr.size), np.arange(yt.size)), statistic, n_resamples=0, vectorized=False,
                            method="BCa", confidence_level=0.95, bootstrap_result=prior)
        assert ours == pytest.approx(back(res.confidence_interval), abs=1e-12)
        # and it is not the percentile interval
        assert ours != pytest.approx(back(np.percentile(draws, [2.5, 97.5])), abs=1e-6)


def test_the_reference_replicates_are_shared_and_change_nothing():
    # an integer seed draws the reference's replicates once for every test set compared to it;
    # the intervals are those of the same seed as a fresh generator (no sharing)
    rng = np.random.default_rng(10)
    ref = SetStatistics.from_counts(threshold_counts(*_scored(rng, 0.3, 1500)), threshold=0.5)
    names = ["precision", "roc_auc", "pr_auc", "brier"]
    for pi in (0.05, 0.2):
        new = SetStatistics.from_counts(threshold_counts(*_scored(rng, pi, 1500)), threshold=0.5)
        shared = decompose(ref, new, names, n_resamples=300, random_state=7)
        fresh = decompose(ref, new, names, n_resamples=300, random_state=np.random.default_rng(7))
        assert {m: d.to_dict() for m, d in shared.items()} == {m: d.to_dict() for m, d in fresh.items()}


# --- a near-degenerate reference rate (issue 28) -----------------------------------------


def test_no_false_claim_of_change_with_no_false_negative_in_the_reference():
    # the breast-cancer case: 0 false negatives of 178 in the reference; a window of the same
    # classifier at 35.7% prevalence with 3 of 107 (Fisher's p = 0.05): main said "the 95%
    # interval of the classifier effect excludes 0 for Recall … not explained by the
    # prevalence alone" while the false-negative rate's own interval included 0
    ref, new = _labels(178, 4, 0, 103), _labels(104, 9, 3, 184)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare({"ref": ref, "w": new}, n_resamples=1000, random_state=0)
    cc = c.classifier_change("w")
    fnr = next(t for t in cc.tests if t.quantity == "fnr")
    assert fnr.pvalue > 0.05 and fnr.difference_ci[0] < 0 < fnr.difference_ci[1]
    line = next(v for v in c.verdict if v.startswith("w ("))
    assert not cc.changed and "not explained by the prevalence" not in line and "excludes 0" not in line
    # every metric flagged has a rejected test of what it reads
    from beyondchance.monitoring.classifier_change import bearing_on

    for ch in c.changes:
        if ch.direction in ("worse", "better"):
            assert any(t.pvalue_adjusted <= cc.level for t in bearing_on(ch.metric, cc.tests))


def test_a_zero_count_rate_keeps_its_binomial_uncertainty():
    # a bootstrap of 0 errors of 178 always draws 0 errors: recall's classifier effect against
    # 2 errors of 100 had an interval excluding 0; the Jeffreys draws include it, as Fisher does
    print("seed 0")
    ref = SetStatistics.from_confusion(178, 5, 0, 102)
    new = SetStatistics.from_confusion(98, 10, 2, 190)
    d = decompose(ref, new, ["recall", "precision"], n_resamples=1000, random_state=0)
    fnr = next(t for t in classifier_change_tests(ref, new) if t.quantity == "fnr")
    assert fnr.pvalue > 0.05
    ci = d["recall"].classifier_effect_ci
    assert ci[0] < 0 < ci[1]
    assert d["recall"].expected_ci[0] < 0.99 < d["recall"].expected_ci[1]  # not the point 1


def test_false_claim_study_quick(sim):
    # the study's worst cell before issue 28 (0 false negatives in the reference, windows at
    # 90% prevalence: a metric's interval excluded 0 in 28% of windows with no change, and the
    # verdict then said the change was not explained by the prevalence); 30 windows, seed 500
    print("seed 500")
    [(errors, pi, c)] = sim.false_claim_table(30, 200, seed=0, errors=(0,), prevalences=(0.9,))
    assert c["claim"] <= c["old rule"] and c["recall"] <= c["interval"]
    assert c["claim"] <= 5  # 1.3% in the full study; 6 of 30 has probability 0.003 at 5%
    assert c["interval"] <= 4  # 2.5% in the full study (28% before): 5 of 30 has probability 0.0008 at 2.5%


def test_compare_gives_the_roc_auc_effect_the_interval_of_its_test():
    """In a comparison the ROC AUC's classifier-effect interval is the interval of the ROC AUC
    test shown beside it (the Holm family's permutations): the two never disagree, also with a
    class below PERMUTATION_BELOW rows, where the test permutes."""
    rng = np.random.default_rng(11)
    sets = {}
    for name, shift in (("ref", 1.2), ("a", 1.2), ("b", 0.6)):
        y = (rng.random(400) < 0.1).astype(int)
        sets[name] = (y, 1 / (1 + np.exp(-(rng.normal(0, 1, 400) + shift * y))))
    c = compare(sets, metrics=["roc_auc"])
    for name in ("a", "b"):
        test = next(t for t in c.classifier_change(name).tests if t.quantity == "roc_auc")
        assert test.method == "within-class permutation test"
        change = next(ch for ch in c.changes if ch.test_set == name and ch.metric == "roc_auc")
        assert change.classifier_effect_ci == test.difference_ci
