"""Multi-class and regression monitoring: the decomposition on the class distribution, the
per-class tests of the classifier, the regression tests, and compare's verdict."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats as sps

from beyondchance import InvalidInputError, compare
from beyondchance.measures.confusion import ConfusionMatrix
from beyondchance.monitoring.decomposition_multiclass import (ClassStatistics, class_change_tests, compare_class_classifiers,
                                           decompose_classes, metrics_at_classes)

ROOT = Path(__file__).resolve().parents[1]
LABELS = ["a", "b", "c"]
NAMES = ["accuracy", "balanced_accuracy", "precision", "recall", "f1", "mcc", "kappa"]


@pytest.fixture(scope="module")
def sim():
    path = ROOT / "benchmarks" / "sim_monitoring_multiclass.py"
    spec = importlib.util.spec_from_file_location("sim_monitoring_multiclass", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def pool(sim):
    return sim.make_pool()


def _rows(matrix, labels=LABELS):
    """y_true, y_pred holding exactly the integer counts of ``matrix``."""
    y, p = [], []
    for i, row in enumerate(np.asarray(matrix, int)):
        for j, c in enumerate(row):
            y += [labels[i]] * c
            p += [labels[j]] * c
    return np.array(y), np.array(p)


def _stats(matrix, labels=LABELS):
    return ClassStatistics.from_confusion(ConfusionMatrix(np.asarray(matrix, float), labels))


# --- the decomposition ---------------------------------------------------------------------


def test_expected_value_is_the_reference_rates_at_the_new_distribution_as_scikit_learn_computes_it():
    ref = [[80, 10, 10], [30, 60, 10], [5, 5, 40]]  # rates of rows: tenths, halves ...
    new_counts = [10, 50, 200]  # rows of the new set per true class
    expected = np.array(ref, float) / np.sum(ref, 1, keepdims=True) * np.array(new_counts)[:, None]
    assert np.allclose(expected, np.round(expected))  # integer cells: rows scikit-learn can score
    ye, pe = _rows(np.round(expected))
    observed = [[2, 4, 4], [10, 30, 10], [20, 20, 160]]
    yo, po = _rows(observed)
    got = metrics_at_classes(_stats(ref), np.array(new_counts) / sum(new_counts), NAMES)
    d = decompose_classes(_stats(ref), _stats(observed), NAMES, n_resamples=0)
    sk = {"accuracy": skm.accuracy_score, "balanced_accuracy": skm.balanced_accuracy_score,
          "precision": lambda a, b: skm.precision_score(a, b, average="macro"),
          "recall": lambda a, b: skm.recall_score(a, b, average="macro"),
          "f1": lambda a, b: skm.f1_score(a, b, average="macro"),
          "mcc": skm.matthews_corrcoef, "kappa": skm.cohen_kappa_score}
    yr, pr = _rows(ref)
    for m, f in sk.items():
        assert float(got[m]) == pytest.approx(f(ye, pe), abs=1e-12), m
        assert d[m].expected_value == pytest.approx(f(ye, pe), abs=1e-12), m
        assert d[m].value == pytest.approx(f(yo, po), abs=1e-12), m
        assert d[m].reference_value == pytest.approx(f(yr, pr), abs=1e-12), m
        assert d[m].prevalence_effect == pytest.approx(f(ye, pe) - f(yr, pr), abs=1e-12)
        assert d[m].classifier_effect == pytest.approx(f(yo, po) - f(ye, pe), abs=1e-12)


@settings(max_examples=40)
@given(st.lists(st.integers(0, 60), min_size=9, max_size=9), st.lists(st.integers(1, 50), min_size=3, max_size=3))
def test_a_set_with_the_reference_rates_has_no_classifier_effect(cells, scale):
    """Any reference and any class distribution: a test set whose rows follow the reference's
    rates exactly has classifier effect 0, and the reference at its own distribution is itself."""
    m = np.array(cells, float).reshape(3, 3) + np.eye(3)  # every class present
    new = m / m.sum(1, keepdims=True) * np.array(scale, float)[:, None] * 7
    d = decompose_classes(_stats(m), _stats(new), NAMES, n_resamples=0)
    own = metrics_at_classes(_stats(m), _stats(m).prevalences, NAMES)
    cm = ConfusionMatrix(m, LABELS)
    for name in NAMES:
        assert abs(d[name].classifier_effect) <= 1e-9 or not np.isfinite(d[name].classifier_effect), name
        report_rule = cm.metric(name, average="macro", zero_division=0.0) if name in ("precision", "recall", "f1") \
            else cm.metric(name)
        assert float(own[name]) == pytest.approx(report_rule, abs=1e-12), name


def test_classes_in_one_set_only_are_aligned():
    ref = ClassStatistics.from_confusion(ConfusionMatrix(np.array([[50., 10], [5, 40]]), ["a", "b"]))
    new = ClassStatistics.from_confusion(ConfusionMatrix(np.array([[30., 5, 5], [2, 20, 3], [4, 4, 30]]),
                                                         ["b", "a", "c"]))
    d = decompose_classes(ref, new, ["accuracy"], n_resamples=50)["accuracy"]
    assert np.isnan(d.expected_value)  # class c has no reference rows: undefined, not invented
    assert d.expected_ci is None
    # a class only ever predicted (never a true class) is no obstacle
    only_predicted = ClassStatistics.from_confusion(ConfusionMatrix(np.array([[40., 5, 5], [5, 40, 5], [0, 0, 0]]),
                                                                    ["a", "b", "z"]))
    d = decompose_classes(only_predicted, ref, ["accuracy", "f1"], n_resamples=50)
    assert d["accuracy"].expected_value == pytest.approx(0.8, abs=1e-12)  # recall 0.8 in both classes
    assert d["f1"].expected_ci is not None


# --- the tests of the classifier -----------------------------------------------------------


def test_per_class_test_is_pearsons_chi_square_when_every_cell_is_large():
    ref, new = [[300, 60, 40], [50, 200, 50], [30, 30, 240]], [[250, 100, 50], [40, 220, 40], [20, 40, 240]]
    tests = class_change_tests(_stats(ref), _stats(new))
    for k, t in enumerate(tests):
        assert t.pvalue == pytest.approx(sps.chi2_contingency(np.array([ref[k], new[k]]), correction=False).pvalue,
                                          abs=1e-12)
        assert t.reference_value == pytest.approx(ref[k][k] / sum(ref[k]))


def test_small_predicted_classes_are_pooled_and_a_tiny_class_gets_fishers_test():
    ref, new = [[300, 2, 40], [50, 200, 50], [1, 1, 6]], [[250, 3, 50], [40, 220, 40], [2, 0, 5]]
    a, b, c = class_change_tests(_stats(ref), _stats(new))
    pooled = np.array([[300, 42], [250, 53]])  # b (expected < 5) pooled into the smallest other column
    assert a.pvalue == pytest.approx(sps.chi2_contingency(pooled, correction=False).pvalue, abs=1e-12)
    assert c.method.startswith("Fisher") and c.pvalue == pytest.approx(
        sps.fisher_exact([[6, 2], [5, 2]]).pvalue, abs=1e-12)


def test_holm_over_classes_and_sets():
    ref = [[300, 60, 40], [50, 200, 50], [30, 30, 240]]
    same = [[150, 30, 20], [25, 100, 25], [15, 15, 120]]
    moved = [[200, 150, 50], [50, 200, 50], [30, 30, 240]]
    out = compare_class_classifiers(_stats(ref), {"same": _stats(same), "moved": _stats(moved)})
    assert [c.changed for c in out] == [False, True]
    raw = [t.pvalue for c in out for t in c.tests]
    adj = [t.pvalue_adjusted for c in out for t in c.tests]
    assert all(a >= r for a, r in zip(adj, raw)) and out[0].n_sets == 2
    assert next(t for t in out[1].tests if t.quantity == "class:a").pvalue_adjusted < 0.05


# --- simulations on the bundled credit data (quick versions of the benchmark) --------------


def test_pure_class_distribution_shift_rarely_declares_a_change(sim, pool):
    # 150 replicates per distribution; a test of the nominal metrics would reject in all
    rates = [sim.rejection_rate(pool, pi, 150, 5000, seed=21) for pi in ((0.8, 0.1, 0.1), (0.1, 0.1, 0.8))]
    assert max(rates) <= 0.1, rates


def test_a_real_change_is_detected(sim, pool):
    # 10% of the predictions replaced by a random class, n = 5000, 40 replicates (full run: 1.000)
    assert sim.rejection_rate(pool, pool.distribution, 40, 5000, noise=0.1, seed=22) >= 0.8


def test_expected_value_intervals_cover(sim, pool):
    # 60 replicates, 200 resamples: 0.95 nominal, accepted 0.85–1.0 (full run: 0.923–0.966)
    cov = sim.coverage(pool, (0.1, 0.8, 0.1), 60, 5000, 200, seed=23, metrics=("accuracy", "f1", "mcc"))
    for metric, (c_exp, c_clf) in cov.items():
        assert 0.85 <= c_exp <= 1.0 and 0.85 <= c_clf <= 1.0, (metric, c_exp, c_clf)


# --- compare -------------------------------------------------------------------------------


def _draw(rng, pi, n, rates=None):
    rates = RATES if rates is None else rates
    y = rng.choice(3, n, p=pi)
    u = rng.random(n)[:, None]
    p = (u > np.cumsum(rates[y], axis=1)).sum(1)
    return np.array(LABELS)[y], np.array(LABELS)[p]


RATES = np.array([[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]])


def test_compare_multiclass_verdict_follows_the_tests_and_never_the_ops_intervals():
    rng = np.random.default_rng(5)
    changed = RATES.copy()
    changed[1] = [0.45, 0.45, 0.1]
    c = compare({"ref": _draw(rng, [.5, .3, .2], 3000), "shift": _draw(rng, [.2, .3, .5], 3000),
                 "changed": _draw(rng, [.5, .3, .2], 3000, changed)}, n_resamples=200)
    shift, moved = c.classifier_change("shift"), c.classifier_change("changed")
    assert not shift.changed and moved.changed
    line = next(v for v in c.verdict if v.startswith("changed ("))
    assert "the classifier changed" in line and "true class b" in line
    line = next(v for v in c.verdict if v.startswith("shift ("))
    assert "no significant change of the classifier" in line and "cannot tell" in line
    assert not any("OPS" in v for v in c.verdict)
    for ch in c.changes:  # flags only where the set's test rejects and the effect's interval excludes 0
        if ch.direction in ("worse", "better"):
            assert ch.test_set == "changed"
            lo, hi = ch.classifier_effect_ci
            assert (lo > 0 or hi < 0)
        if ch.test_set == "shift":
            assert ch.direction == "no significant change"
    data = json.loads(c.to_json())
    row = next(r for r in data["changes"] if r["test_set"] == "shift" and r["metric"] == "accuracy")
    assert set(row) >= {"expected_value", "expected_ci", "prevalence_effect", "classifier_effect",
                        "classifier_effect_ci"}
    assert row["value"] == pytest.approx(c.report("shift")["accuracy"].value, abs=1e-12)
    assert "P(predicted | true class)" in c.details()


def test_compare_multiclass_probabilities_decomposes_the_labels_and_leaves_average_precision_unclear():
    rng = np.random.default_rng(6)

    def probs(pi, n):
        y, p = _draw(rng, pi, n, RATES)
        proba = np.full((n, 3), 0.15)
        proba[np.arange(n), np.searchsorted(LABELS, p)] = 0.7
        return y, proba

    c = compare({"ref": probs([.5, .3, .2], 2000), "new": probs([.2, .3, .5], 2000)}, n_resamples=100)
    assert c.change("new", "accuracy").decomposition is not None
    assert c.change("new", "pr_auc").direction == "not decomposed"
    # the losses and one-vs-rest ROC AUCs: decomposed from the rows (test_shift_probabilities)
    assert c.change("new", "log_loss").direction == "no significant change"
    assert not c.classifier_change("new").changed


def test_compare_multiclass_refuses_a_single_class_reference():
    y = np.array(["a"] * 50)
    with pytest.warns(UserWarning), pytest.raises(InvalidInputError, match="single class"):
        compare({"ref": (y, np.where(np.arange(50) % 2, "a", "b")), "new": _draw(np.random.default_rng(0),
                                                                                 [.5, .3, .2], 100, RATES)},
                task="multiclass-labels", n_resamples=50)


def test_compare_regression_tests_each_error_measure_and_states_a_target_shift():
    rng = np.random.default_rng(7)
    y0, e0 = rng.normal(0, 1, 3000), rng.normal(0, 1, 3000)
    y1 = rng.normal(0.6, 1, 3000)  # a shifted target, the same errors
    y2 = rng.permutation(y0)  # the same target distribution, larger errors
    c = compare({"ref": (y0, y0 + e0), "shifted": (y1, y1 + e0),
                 "worse": (y2, y2 + rng.normal(0, 1.3, 3000))}, n_resamples=300)
    assert not c.classifier_change("shifted").changed and c.classifier_change("worse").changed
    assert c.change("worse", "mse").direction == "worse" and c.change("shifted", "mse").direction != "worse"
    shifted = next(v for v in c.verdict if v.startswith("shifted:"))
    assert "target's distribution differs significantly" in shifted and "no significant change of any error measure" in shifted
    worse = next(v for v in c.verdict if v.startswith("worse:"))
    assert "error measures changed" in worse and "no significant shift" in worse
    assert not any("prevalence effect" in v or "explained by the prevalence" in v for v in c.verdict)
    ks = sps.ks_2samp(y0, y1, method="asymp")  # Holm over the two sets: adjusted = min(1, 2p) for the smaller p
    t = next(t for t in c.target_shifts if t.test_set == "shifted")
    assert t.statistic == pytest.approx(ks.statistic, abs=1e-12) and t.pvalue == pytest.approx(ks.pvalue, abs=1e-12)
    mse = c.change("worse", "mse")
    assert mse.classifier_effect == pytest.approx(mse.value - mse.reference_value, abs=1e-12)
    assert np.isnan(mse.prevalence_effect) and mse.to_dict()["prevalence_effect"] is None  # no prevalence
    assert json.loads(c.to_json())["target_shifts"][0]["method"] == "two-sample Kolmogorov-Smirnov"


def test_compare_without_intervals_tests_nothing_and_says_so():
    rng = np.random.default_rng(8)
    y = rng.normal(size=500)
    c = compare({"ref": (y, y + rng.normal(size=500)), "new": (y, y + rng.normal(0, 2, size=500))}, ci=False)
    line = next(v for v in c.verdict if v.startswith("new:"))
    assert "nothing is tested" in line and all(ch.direction == "no interval" for ch in c.changes)


@settings(max_examples=12)
@given(st.integers(0, 2**31 - 1), st.floats(0.0, 0.5), st.sampled_from([[.5, .3, .2], [.2, .3, .5], [.1, .1, .8]]))
def test_multiclass_verdict_never_contradicts_the_table(seed, damage, pi):
    """Any sample: a set's line says "changed" exactly when its test rejects, and a metric is
    flagged only on such a set with its classifier-effect interval excluding 0 on that side."""
    rng = np.random.default_rng(seed)
    changed = RATES.copy()
    changed[0] = (1 - damage) * RATES[0] + damage * np.array([0.1, 0.45, 0.45])
    c = compare({"ref": _draw(rng, [.4, .3, .3], 600), "new": _draw(rng, pi, 600, changed)}, n_resamples=50)
    cc = c.classifier_change("new")
    line = next(v for v in c.verdict if v.startswith("new ("))
    assert ("the classifier changed" in line) == cc.changed
    assert cc.changed == any(t.pvalue_adjusted <= cc.level for t in cc.tests)
    for ch in c.changes:
        flag = c.flag("new", ch.metric)
        if flag:
            lo, hi = ch.classifier_effect_ci
            assert cc.changed and (lo > 0 or hi < 0)
            assert (flag == "▲") == ((lo > 0) == c.report("new")[ch.metric].greater_is_better)


def test_compare_with_a_class_unknown_to_the_reference_says_the_expectation_is_undefined():
    rng = np.random.default_rng(9)
    y, p = _draw(rng, [.4, .3, .3], 600)
    y2, p2 = _draw(rng, [.4, .3, .3], 600)
    y2, p2 = np.where(y2 == "c", "d", y2), np.where(p2 == "c", "d", p2)
    c = compare({"ref": (y, p), "new": (y2, p2)}, n_resamples=50)
    assert any("no rows of true class d" in n for n in c.notes)
    assert all(ch.expected_ci is None and ch.direction == "no interval" for ch in c.changes)
    assert not any("Confidence intervals are off" in v for v in c.verdict)


def test_decomposition_intervals_are_scipys_bca_on_the_same_resamples():
    # the cells of a confusion matrix hold whole rows: the jackknife of the cells (one row out of
    # each non-empty cell, times its rows) is the jackknife of the rows, so the intervals equal
    # scipy's two-sample BCa given the same bootstrap distribution
    from types import SimpleNamespace

    rng = np.random.default_rng(12)
    labels = [0, 1, 2]
    rates = np.array([[0.8, 0.15, 0.05], [0.2, 0.7, 0.1], [0.1, 0.2, 0.7]])

    def rows(n, pi):
        y = rng.choice(3, size=n, p=pi)
        return y, np.array([rng.choice(3, p=rates[k]) for k in y])

    yr, pr = rows(300, [0.5, 0.3, 0.2])
    yt, pt = rows(250, [0.2, 0.3, 0.5])
    ref = ClassStatistics.from_confusion(ConfusionMatrix.from_predictions(yr, pr, labels=labels))
    new = ClassStatistics.from_confusion(ConfusionMatrix.from_predictions(yt, pt, labels=labels))
    d = decompose_classes(ref, new, ["accuracy", "mcc"], n_resamples=999, random_state=4)
    gen = np.random.default_rng(4)  # decompose_classes draws the reference's resamples first
    r_star, t_star = ref.resample(999, gen), new.resample(999, gen)

    def at(y, p, pi):  # the metric of the confusion rates of (y, p) at the class distribution pi
        cm = np.array([[np.sum((y == k) & (p == j)) for j in range(3)] for k in range(3)], float)
        return cm / cm.sum(1, keepdims=True) * np.asarray(pi)[:, None]

    def dist(y):
        return np.bincount(y, minlength=3) / y.size

    def expected_accuracy(i, j):
        return np.trace(at(yr[i], pr[i], dist(yt[j])))

    def mcc_classifier_effect(i, j):
        def mcc(c):
            return skm.matthews_corrcoef(np.repeat([0, 1, 2], 3), np.tile([0, 1, 2], 3), sample_weight=c.ravel())
        return mcc(at(yt[j], pt[j], dist(yt[j]))) - mcc(at(yr[i], pr[i], dist(yt[j])))

    draws_exp = metrics_at_classes(r_star, t_star.prevalences, ["accuracy"])["accuracy"]
    draws_clf = (metrics_at_classes(t_star, t_star.prevalences, ["mcc"])["mcc"]
                 - metrics_at_classes(r_star, t_star.prevalences, ["mcc"])["mcc"])
    for statistic, draws, ours in ((expected_accuracy, draws_exp, d["accuracy"].expected_ci),
                                   (mcc_classifier_effect, draws_clf, d["mcc"].classifier_effect_ci)):
        prior = SimpleNamespace(bootstrap_distribution=np.asarray(draws, float))
        res = sps.bootstrap((np.arange(yr.size), np.arange(yt.size)), statistic, n_resamples=0, vectorized=False,
                            method="BCa", confidence_level=0.95, bootstrap_result=prior)
        assert ours == pytest.approx(tuple(res.confidence_interval), abs=1e-12)
        assert ours != pytest.approx(tuple(np.percentile(draws, [2.5, 97.5])), abs=1e-6)
