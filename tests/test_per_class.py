"""The per-class view of the reports (issue 14, item 4): the per-class table against
scikit-learn's per-class precision / recall / F1, the baselines against brute force, the
OPS against the binary OPS, the intervals' coverage by simulation, and the confusion
matrix in every rendering."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.metrics import f1_score, precision_recall_fscore_support, precision_score, recall_score

import beyondchance as bc
from beyondchance.measures.confusion import ConfusionMatrix
from beyondchance.report import evaluate
from beyondchance.report.per_class import confusion_rates, per_class_table

FAST = dict(n_resamples=200, mc_samples=1024)
NAMES = np.array(["alpha", "beta", "gamma", "delta"])


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 4), st.integers(5, 80), st.booleans())
def test_per_class_values_equal_scikit_learn(seed, k, n, weighted):
    rng = np.random.default_rng(seed)
    y = NAMES[rng.integers(0, k, n)]
    p = np.where(rng.random(n) < 0.5, y, NAMES[rng.integers(0, k, n)])
    w = rng.random(n) * 3 if weighted else None
    cm = ConfusionMatrix.from_predictions(y, p, sample_weight=w, pos_label=None)
    t = per_class_table(cm, level=0.9, replicates=None, seed=0, n_resamples=0)
    labels = list(t.classes)
    ref = _quiet(precision_recall_fscore_support, y, p, labels=labels, sample_weight=w, zero_division=np.nan)
    for name, values in zip(("precision", "recall", "f1"), ref[:3]):
        np.testing.assert_allclose(t.columns[name].value, values, rtol=1e-12, atol=1e-12, equal_nan=True)
    # support: scikit-learn counts rows; the table the (weighted) true class totals
    expected = ref[3] if w is None else np.array([w[y == c].sum() for c in labels])
    np.testing.assert_allclose(t.support, expected, rtol=1e-12)
    assert t.ci_method is None and t.columns["f1"].ci_low is None


@settings(max_examples=20, deadline=None)
@given(st.integers(0, 2**31 - 1), st.integers(2, 4))
def test_baselines_are_the_better_constant_of_each_class(seed, k):
    """Brute force with scikit-learn: always / never predicting the class, 0/0 counted as 0."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, k, 60)
    cm = ConfusionMatrix.from_predictions(y, rng.integers(0, k, 60), labels=np.arange(k), pos_label=None)
    t = per_class_table(cm, level=0.95, replicates=None, seed=0, n_resamples=0)
    for name, f in (("precision", precision_score), ("recall", recall_score), ("f1", f1_score)):
        col = t.columns[name]
        for i in range(k):
            yt = (y == i).astype(int)
            if yt.sum() == 0:
                continue
            always = f(yt, np.ones_like(yt), zero_division=0)
            never = f(yt, np.zeros_like(yt), zero_division=0)
            assert col.baseline[i] == pytest.approx(max(always, never), abs=1e-12)
            assert col.baseline_prediction[i].startswith("always" if always >= never else "never")
            ideal_gap = col.ideal[i] - col.baseline[i]
            if ideal_gap > 0:
                assert col.advantage[i] == pytest.approx((col.value[i] - col.baseline[i]) / ideal_gap, abs=1e-12)
            else:  # recall: always predicting the class is already perfect
                assert np.isnan(col.advantage[i])


def test_ops_is_the_binary_ops_at_each_class_prevalence():
    rng = np.random.default_rng(4)
    y = NAMES[rng.integers(0, 3, 300)]
    p = np.where(rng.random(300) < 0.7, y, NAMES[rng.integers(0, 3, 300)])
    r = _quiet(evaluate, y, p, ci=False)
    t = r.per_class
    for name, col in t.columns.items():
        for i in range(3):
            ref = bc.outperformance_score(name, col.value[i], t.prevalence[i])
            assert col.ops[i] == pytest.approx(float(ref), abs=1e-12)
    # the table's macro average is the report's macro row
    assert np.mean(t.columns["f1"].value) == pytest.approx(r["f1"].value, abs=1e-12)


def _coverage(n_sets: int, n: int, n_resamples: int, seed: int) -> dict[str, float]:
    """Share of intervals (every class, every metric) holding the true one-vs-rest value,
    for multinomial test sets of a known 3 x 3 confusion distribution."""
    probs = np.array([[0.30, 0.06, 0.04], [0.05, 0.20, 0.05], [0.03, 0.07, 0.20]])
    labels = np.array([0, 1, 2])
    truth = per_class_table(ConfusionMatrix(probs, labels, pos_label=None), level=0.95, replicates=None, seed=0,
                            n_resamples=0)
    rng = np.random.default_rng(seed)
    hits = {name: 0 for name in truth.columns}
    for _ in range(n_sets):
        cells = rng.multinomial(n, probs.ravel()).reshape(3, 3).astype(float)
        t = per_class_table(ConfusionMatrix(cells, labels, pos_label=None), level=0.95, replicates=None,
                            seed=int(rng.integers(2**31)), n_resamples=n_resamples)
        for name, col in t.columns.items():
            hits[name] += int(np.sum((col.ci_low <= truth.columns[name].value)
                                     & (truth.columns[name].value <= col.ci_high)))
    return {name: h / (3 * n_sets) for name, h in hits.items()}


def test_per_class_intervals_cover_the_true_value():
    """Quick mode of benchmarks/per_class_coverage.py: 200 test sets of 400 rows, 500
    resamples each; 600 intervals per metric, nominal 95%."""
    cov = _coverage(200, 400, 500, seed=11)
    for name, c in cov.items():
        assert 0.91 <= c <= 0.985, (name, c)


@pytest.fixture(scope="module")
def multiclass_report():
    rng = np.random.default_rng(0)
    y = NAMES[rng.integers(0, 3, 500)]
    p = np.where(rng.random(500) < 0.6, y, NAMES[rng.integers(0, 3, 500)])
    return _quiet(evaluate, y, p, name="seven", **FAST), y, p


def test_renderings_show_the_per_class_table_and_the_confusion_matrix(multiclass_report):
    r, y, p = multiclass_report
    text = r.details()
    assert "Per class" in text and "Confusion matrix" in text
    assert "Per class" not in str(r) and "report.details()" in str(r)  # print(r): the verdict and one table
    for c in ("'alpha'", "'beta'", "'gamma'"):
        assert c in text
    d = json.loads(r.to_json())
    counts = np.array(d["confusion_matrix"]["matrix"])
    assert counts.sum() == 500 and counts[0, 0] == np.sum((y == "alpha") & (p == "alpha"))
    np.testing.assert_allclose(d["confusion_matrix"]["rates"], counts / counts.sum(axis=1, keepdims=True))
    per = d["per_class"]
    assert [c["label"] for c in per["classes"]] == ["alpha", "beta", "gamma"]
    first = per["classes"][0]["precision"]
    assert set(first) == {"value", "baseline", "baseline_prediction", "ideal", "advantage", "ops", "ci"}
    assert first["ci"][0] <= first["value"] <= first["ci"][1]
    html = r._repr_html_()
    assert "id='per-class'" in html and "id='confusion'" in html and "data-class='gamma'" in html
    md = r._repr_markdown_()
    assert "| true \\\\ predicted | alpha | beta | gamma |" in md  # a backslash escaped in Markdown
    assert md.count("| alpha | ") == 5  # 3 metric rows, the matrix's header and its row
    frame = r.per_class.to_frame()
    assert frame.shape == (9, 8) and frame.loc[("beta", "recall"), "value"] == pytest.approx(
        recall_score(y, p, labels=["beta"], average=None)[0])


def test_binary_reports_have_both_classes_and_weighted_ones_their_replicates():
    rng = np.random.default_rng(2)
    y = rng.integers(0, 2, 300)
    s = np.clip(0.3 * y + 0.7 * rng.random(300), 0, 1)
    w = rng.integers(1, 4, 300).astype(float)
    r = _quiet(evaluate, y, s, sample_weight=w, **FAST)
    assert r.per_class.classes == (0, 1)
    pred = (s >= 0.5).astype(int)
    np.testing.assert_allclose(r.per_class.columns["f1"].value, f1_score(y, pred, average=None, sample_weight=w),
                               rtol=1e-12)
    assert "grouped Poisson" in r.per_class.ci_method
    np.testing.assert_allclose(r.per_class.support, [w[y == 0].sum(), w[y == 1].sum()])
    # the positive class's F1 row is the report's F1, and its OPS the report's OPS
    assert r.per_class.columns["f1"].value[1] == pytest.approx(r["f1"].value, abs=1e-12)
    assert r.per_class.columns["f1"].ops[1] == pytest.approx(r["f1"].ops, abs=1e-12)


def test_confusion_rates_of_an_absent_class_are_undefined():
    rates = confusion_rates(ConfusionMatrix(np.array([[2.0, 2.0], [0.0, 0.0]]), np.array(["a", "b"])))
    assert rates[0].tolist() == [0.5, 0.5] and np.isnan(rates[1]).all()


def test_print_fits_100_columns():
    """``print(report)`` and ``report.details()`` fit 100 columns: every task, long labels, seven classes."""
    rng = np.random.default_rng(5)
    long_names = np.array([f"a rather long class name number {i}" for i in range(7)])
    y = long_names[rng.integers(0, 7, 400)]
    p = np.where(rng.random(400) < 0.5, y, long_names[rng.integers(0, 7, 400)])
    yb = rng.integers(0, 2, 300)
    reports = [
        _quiet(evaluate, y, p, ci=False, name="x" * 80),
        _quiet(evaluate, yb, np.clip(0.4 * yb + 0.6 * rng.random(300), 0, 1), ci=False, mc_samples=1024),
        _quiet(evaluate, rng.random(50), rng.random(50), ci=False),
    ]
    for r in reports:
        for text in (str(r), r.details()):
            lines = text.splitlines()
            assert max(map(len, lines)) <= 100, max(lines, key=len)


def test_score_histogram_of_each_class_from_the_counts():
    """The binary-scores HTML's histogram (from the score counts): each class's share per bin."""
    from beyondchance.report.render.plots import score_histogram_data

    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 500)
    s = np.clip(0.3 * y + 0.7 * rng.random(500), 0, 1)
    w = rng.random(500)
    r = _quiet(evaluate, y, s, sample_weight=w, ci=False, mc_samples=1024)
    h = score_histogram_data(r, bins=20)
    edges = np.linspace(0, 1, 21)
    np.testing.assert_allclose(h["edges"], edges)
    for key, cls in (("positive", 1), ("negative", 0)):
        ref = np.histogram(s[y == cls], bins=edges, weights=w[y == cls])[0]
        np.testing.assert_allclose(h[key], ref / ref.sum(), rtol=1e-10, atol=1e-15)
    assert h["threshold"] == 0.5


def test_probability_reports_add_each_class_one_vs_rest_aucs():
    """ROC AUC and average precision per class = scikit-learn's; OPS = the scoring OPS at the
    class's prevalence; no interval (said in the notes)."""
    from sklearn.metrics import average_precision_score, roc_auc_score

    rng = np.random.default_rng(6)
    P = rng.dirichlet([1, 1, 1], 400)
    y = np.array([rng.choice(3, p=p) for p in P])
    r = _quiet(evaluate, NAMES[y], P, **FAST)
    t = r.per_class
    assert list(t.columns) == ["precision", "recall", "f1", "roc_auc", "pr_auc"]
    np.testing.assert_allclose(t.columns["roc_auc"].value, roc_auc_score(y, P, multi_class="ovr", average=None),
                               rtol=1e-12)
    np.testing.assert_allclose(t.columns["pr_auc"].value,
                               [average_precision_score(y == k, P[:, k]) for k in range(3)], rtol=1e-12)
    np.testing.assert_allclose(t.columns["pr_auc"].baseline, t.prevalence)
    for name in ("roc_auc", "pr_auc"):
        ref = bc.outperformance_score(name, t.columns[name].value, t.prevalence, mc_samples=1024)
        np.testing.assert_allclose(t.columns[name].ops, np.asarray(ref), atol=1e-12)
        assert t.columns[name].ci_low is None
        # the report's macro row is the mean of the classes
        assert r[name].value == pytest.approx(np.mean(t.columns[name].value), abs=1e-12)
    assert any("one-vs-rest AUCs have no interval" in n for n in r.notes)
