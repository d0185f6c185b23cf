"""``evaluate`` / ``compare``: every number against scikit-learn, closed forms and the
library's own measures; the sufficient-statistic shortcuts against brute force."""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pytest
import sklearn.metrics as skm
from hypothesis import given, settings
from hypothesis import strategies as st

from beyondchance.inference.poisson_bootstrap import group_totals_from_arrays, labeling_intervals
from beyondchance import (
    InvalidInputError,
    UndefinedMeasureError,
    UndefinedMeasureWarning,
    bootstrap_ci,
    outperformance_score,
    pa_coverage_curve,
    prediction_advantage,
)
from beyondchance.measures import weighted_quantile
from beyondchance.measures.curves import threshold_counts
from beyondchance.datasets import load_keel
from beyondchance.report import compare, detect_task, evaluate
from beyondchance.measures.binary_scores import (
    ScoreCells,
    compress_counts,
    confusion_at_threshold,
    loss_sums,
    pa_coverage_from_counts,
)
from beyondchance.report.example import MONTHS, credit_default_example, scored_holdout

#: reference curves of the AUCs' OPS in the tests (fast on a cold cache)
DBT = 2048
LABELING = ("accuracy", "balanced_accuracy", "precision", "recall", "f1", "mcc", "kappa")
SKLEARN = {
    "accuracy": skm.accuracy_score,
    "balanced_accuracy": skm.balanced_accuracy_score,
    "precision": skm.precision_score,
    "recall": skm.recall_score,
    "f1": skm.f1_score,
    "mcc": skm.matthews_corrcoef,
    "kappa": skm.cohen_kappa_score,
}


@pytest.fixture(scope="module")
def credit():
    """The bundled credit-default model's scores on its held-out half (real data)."""
    h = scored_holdout()
    return h["default"].to_numpy(), h["score"].to_numpy()


@pytest.fixture(scope="module")
def credit_report(credit):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(*credit, random_state=3, mc_samples=DBT)


@pytest.fixture(scope="module")
def haberman_scores():
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    d = load_keel("haberman")
    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    s = cross_val_predict(LogisticRegression(), d.X, d.y, cv=cv, method="predict_proba")[:, 1]
    return d.y, s


# --- binary scores on real data: every value against scikit-learn -------------------------


def test_binary_scores_values_match_sklearn(credit, credit_report):
    y, s = credit
    r = credit_report
    yb = (y == "Yes").astype(int)
    pred = (s >= 0.5).astype(int)
    assert r.task == "binary-scores" and r.task_source == "detected"
    assert r.positive_label == "Yes" and r.positive_reason == "the minority class"
    assert r.n == y.size and r.prevalence == pytest.approx(yb.mean())
    assert r.threshold == 0.5
    for name, func in SKLEARN.items():
        assert r[name].value == pytest.approx(func(yb, pred), abs=1e-12), name
    assert r["specificity"].value == pytest.approx(skm.recall_score(yb, pred, pos_label=0))
    assert r["roc_auc"].value == pytest.approx(skm.roc_auc_score(yb, s), abs=1e-12)
    assert r["pr_auc"].value == pytest.approx(skm.average_precision_score(yb, s), abs=1e-12)
    assert r["log_loss"].value == pytest.approx(skm.log_loss(yb, s), abs=1e-12)
    assert r["brier"].value == pytest.approx(skm.brier_score_loss(yb, s), abs=1e-12)
    # advantages of the probability losses are scikit-learn's D² scores
    assert r["log_loss"].advantage == pytest.approx(skm.d2_log_loss_score(yb, s), abs=1e-10)
    assert r["brier"].advantage == pytest.approx(skm.d2_brier_score(yb, s), abs=1e-10)
    # prediction advantage (0/1): the library and its closed form 1 - err / min(π, 1 - π)
    err = np.mean(yb != pred)
    pa = 1 - err / min(yb.mean(), 1 - yb.mean())
    assert r["prediction_advantage"].value == pytest.approx(pa, abs=1e-12)
    assert r["prediction_advantage"].value == pytest.approx(prediction_advantage(yb, pred), abs=1e-12)
    assert r["accuracy"].advantage == pytest.approx(pa, abs=1e-12)  # accuracy's advantage is the PA
    assert r["pure_accuracy"].value == pytest.approx(skm.cohen_kappa_score(yb, pred), abs=1e-12)
    # ROC AUC's advantage is the Gini coefficient 2 AUC - 1
    assert r["roc_auc"].advantage == pytest.approx(2 * skm.roc_auc_score(yb, s) - 1, abs=1e-12)


def test_baselines_are_the_best_constant_predictions(credit_report):
    r = credit_report
    pi = r.prevalence
    assert r["accuracy"].baseline == pytest.approx(1 - pi)
    assert r["accuracy"].baseline_prediction == "always predicting 'No'"
    assert r["f1"].baseline == pytest.approx(2 * pi / (1 + pi))  # always 'Yes'
    assert r["f1"].baseline_prediction == "always predicting 'Yes'"
    assert r["precision"].baseline == pytest.approx(pi)
    assert r["balanced_accuracy"].baseline == 0.5
    for name in ("mcc", "kappa", "pure_accuracy", "prediction_advantage"):
        assert r[name].baseline == 0.0
    assert r["recall"].baseline == 1.0 and math.isnan(r["recall"].advantage)
    assert r["pr_auc"].baseline == pytest.approx(pi)  # AP of a constant score
    assert r["roc_auc"].baseline == 0.5
    assert r["log_loss"].baseline == pytest.approx(-(pi * math.log(pi) + (1 - pi) * math.log(1 - pi)))
    assert r["brier"].baseline == pytest.approx(pi * (1 - pi))
    # a constant score gets exactly these values
    n = r.n
    y = np.r_[np.ones(round(pi * n)), np.zeros(n - round(pi * n))]
    assert skm.average_precision_score(y, np.full(n, 0.3)) == pytest.approx(y.mean())


def test_ops_and_ci_are_the_library_functions(credit, credit_report):
    y, s = credit
    r = credit_report
    yb = (y == "Yes").astype(int)
    pred = (s >= 0.5).astype(int)
    for name in LABELING + ("pure_accuracy", "prediction_advantage", "specificity"):
        m = r[name]
        assert m.ops == pytest.approx(outperformance_score(name, m.value, r.prevalence).score, abs=1e-12), name
        ref = bootstrap_ci(name, yb, pred, random_state=3, zero_division="nan")
        assert (m.ci.low, m.ci.high) == pytest.approx((ref.low, ref.high), abs=1e-12), name
        assert m.ci.method == "bca" and m.ci.n_resamples == 2000
        lo, hi = m.ops_ci
        assert lo == pytest.approx(outperformance_score(name, m.ci.low, r.prevalence).score, abs=1e-12)
        assert hi == pytest.approx(outperformance_score(name, m.ci.high, r.prevalence).score, abs=1e-12)
    for name in ("roc_auc", "pr_auc", "lift_auc", "log_loss", "brier"):
        m = r[name]
        assert m.ci.low < m.value < m.ci.high, name
    for name in ("roc_auc", "pr_auc", "lift_auc"):  # DBT reference (OPS paper, eq. 8)
        m = r[name]
        ref = outperformance_score(name, [m.value, m.ci.low, m.ci.high], r.prevalence, mc_samples=DBT).score
        assert (m.ops, *m.ops_ci) == pytest.approx(tuple(ref), abs=1e-12), name
        assert "dbt" in m.ops_method and m.verdict.startswith("better than")


def test_verdicts(credit_report, haberman_scores):
    r = credit_report
    assert r["accuracy"].verdict.startswith("better than")
    assert "reaches the best value" in r["recall"].verdict
    assert r.verdict[0].startswith("Better than always predicting 'No'")
    y, s = haberman_scores
    h = evaluate(np.where(y == 1, "died", "survived"), s, ci=False, mc_samples=DBT)
    assert h.positive_label == "died"
    acc = h["accuracy"]
    assert acc.baseline == pytest.approx(225 / 306)
    if h["prediction_advantage"].value <= 0:
        assert acc.verdict.startswith("no better than always predicting 'survived'")
        assert "no better than always predicting 'survived'" in h.verdict[0]


def test_report_is_json_safe_and_a_frame(credit_report):
    d = credit_report.to_dict()
    text = json.dumps(d, allow_nan=False)
    back = json.loads(text)
    assert back["task"] == "binary-scores" and back["n"] == credit_report.n
    for name in ("accuracy", "balanced_accuracy", "f1", "mcc", "kappa", "pure_accuracy",
                 "prediction_advantage", "roc_auc", "pr_auc"):
        entry = back["metrics"][name]
        assert {"value", "baseline", "ops", "ci"} <= set(entry)
    assert back["metrics"]["recall"]["advantage"] is None  # nan -> null
    f = credit_report.to_frame()
    assert list(f.index) == list(credit_report.metrics)
    assert f.loc["f1", "value"] == credit_report["f1"].value


# --- the statistics shortcuts against brute force -------------------------------------------


def _scores(draw, n_min=2, n_max=60):
    n = draw(st.integers(n_min, n_max))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    s = draw(st.lists(st.sampled_from([0.0, 0.1, 0.25, 0.5, 0.5, 0.7, 0.9, 1.0, 0.33]), min_size=n, max_size=n))
    return np.array(y), np.array(s)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_threshold_statistics_equal_brute_force(data):
    y, s = _scores(data.draw)
    w = np.array(data.draw(st.lists(st.sampled_from([0.5, 1.0, 2.0, 3.0]), min_size=y.size, max_size=y.size)))
    t = data.draw(st.sampled_from([0.0, 0.25, 0.3, 0.5, 0.95]))
    tc = threshold_counts(y, s, sample_weight=w)
    tp, fp, fn, tn = confusion_at_threshold(tc, t)
    p = s >= t
    assert (tp, fp, fn, tn) == pytest.approx((w[(y == 1) & p].sum(), w[(y == 0) & p].sum(),
                                              w[(y == 1) & ~p].sum(), w[(y == 0) & ~p].sum()))
    total, weight = loss_sums(tc, "brier")
    assert total / weight == pytest.approx(np.average((s - y) ** 2, weights=w))
    if 0 < y.sum() < y.size:
        total, weight = loss_sums(tc, "log_loss")
        assert total / weight == pytest.approx(skm.log_loss(y, s, sample_weight=w), rel=1e-10)
        small = compress_counts(tc)
        for curve, method in (("roc", "trapezoid"), ("pr", "ap"), ("lift", "interpolated"), ("gain", "trapezoid")):
            assert small.auc(curve, method=method) == pytest.approx(tc.auc(curve, method=method), abs=1e-12)
        at = np.linspace(0.05, 1, 7)
        assert small.value_at("pr", at) == pytest.approx(tc.value_at("pr", at), abs=1e-12, nan_ok=True)
        assert small.value_at("lift", at) == pytest.approx(tc.value_at("lift", at), abs=1e-12, nan_ok=True)


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_pa_coverage_from_counts_is_the_library_curve(data):
    y, s = _scores(data.draw, 1, 50)
    w = None
    if data.draw(st.booleans()):
        w = np.array(data.draw(st.lists(st.sampled_from([0.0, 0.5, 1.0, 2.0]), min_size=y.size, max_size=y.size)))
        if w.sum() == 0:
            w[0] = 1.0
    t = data.draw(st.sampled_from([0.3, 0.5, 0.6]))
    tc = threshold_counts(y, s, sample_weight=w)
    pred = (s >= t).astype(int)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lib = pa_coverage_curve(y, pred, np.abs(s - t), sample_weight=w)
        lib10 = pa_coverage_curve(y, pred, np.abs(s - t), sample_weight=w, coverages=10)
    ours = pa_coverage_from_counts(tc, t)
    np.testing.assert_allclose(ours.coverage, lib.coverage, atol=1e-12)
    np.testing.assert_allclose(ours.pa, lib.pa, atol=1e-12)
    np.testing.assert_allclose(ours.risk, lib.risk, atol=1e-12)
    assert (math.isnan(ours.area) and math.isnan(lib.area)) or ours.area == pytest.approx(lib.area, abs=1e-12)
    thin = pa_coverage_from_counts(tc, t, levels=10)
    np.testing.assert_allclose(thin.coverage, lib10.coverage, atol=1e-12)
    np.testing.assert_allclose(thin.pa, lib10.pa, atol=1e-12)


def test_score_bootstrap_resamples_are_row_resamples():
    """Each resample of the (score, label) cells is a row resample: recompute its AUCs and
    losses with scikit-learn on the rows weighted by the drawn counts."""
    rng = np.random.default_rng(5)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.round(np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 300), 0, 1), 2)
    tc = threshold_counts(y, s)
    cells = ScoreCells.from_counts(tc, losses=("log_loss", "brier"))
    assert cells.exact
    names = ("roc_auc", "pr_auc", "log_loss", "brier")
    dist = cells.bootstrap(names, n_resamples=25, rng=np.random.default_rng(11))
    # the same draws, by hand
    m = np.concatenate([cells.pos_units, cells.neg_units])
    nz = np.flatnonzero(m > 0)
    draws = np.zeros((25, m.size))
    draws[:, nz] = np.random.default_rng(11).multinomial(300, m[nz] / 300, size=25)
    v = tc.thresholds
    k = v.size
    yy = np.r_[np.ones(k), np.zeros(k)]
    ss = np.r_[v, v]
    for b in range(25):
        keep = draws[b] > 0
        yk, sk, wk = yy[keep], ss[keep], draws[b][keep]
        assert dist["roc_auc"][b] == pytest.approx(skm.roc_auc_score(yk, sk, sample_weight=wk), abs=1e-12)
        assert dist["pr_auc"][b] == pytest.approx(skm.average_precision_score(yk, sk, sample_weight=wk), abs=1e-12)
        assert dist["log_loss"][b] == pytest.approx(skm.log_loss(yk, sk, sample_weight=wk), abs=1e-12)
        assert dist["brier"][b] == pytest.approx(skm.brier_score_loss(yk, sk, sample_weight=wk), abs=1e-12)


def test_binned_score_bootstrap_is_centred_on_the_exact_value():
    rng = np.random.default_rng(2)
    n = 20000
    y = (rng.random(n) < 0.1).astype(int)
    s = 1 / (1 + np.exp(-(rng.normal(size=n) + 2 * y - 2)))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(y, s, metrics=["roc_auc", "pr_auc"], random_state=0, mc_samples=DBT)
    for name, func in (("roc_auc", skm.roc_auc_score), ("pr_auc", skm.average_precision_score)):
        m = r[name]
        assert m.value == pytest.approx(func(y, s), abs=1e-12)
        assert "bins" in m.ci.resampling
        # close to the normal-theory width of a bootstrap on the rows
        boot = [func(y[i], s[i]) for i in (rng.integers(0, n, n) for _ in range(60))]
        assert m.ci.high - m.ci.low == pytest.approx(2 * 1.96 * np.std(boot, ddof=1), rel=0.35)
        assert m.ci.low < m.value < m.ci.high


# --- weights ---------------------------------------------------------------------------------


def test_weighted_binary_scores(credit):
    y, s = credit
    yb = (y == "Yes").astype(int)
    w = np.random.default_rng(0).choice([0.5, 1.0, 2.0], size=y.size)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(y, s, sample_weight=w, n_resamples=300, mc_samples=DBT)
    pred = (s >= 0.5).astype(int)
    assert r.prevalence == pytest.approx(np.average(yb, weights=w))
    for name, func in SKLEARN.items():
        assert r[name].value == pytest.approx(func(yb, pred, sample_weight=w), abs=1e-12), name
    assert r["roc_auc"].value == pytest.approx(skm.roc_auc_score(yb, s, sample_weight=w), abs=1e-12)
    assert r["pr_auc"].value == pytest.approx(skm.average_precision_score(yb, s, sample_weight=w), abs=1e-12)
    assert r["log_loss"].value == pytest.approx(skm.log_loss(yb, s, sample_weight=w), abs=1e-12)
    # the labeling metrics' interval: the grouped bootstrap of the rows, as the public
    # replicates API computes it from the (y, prediction, weight) rows
    totals = group_totals_from_arrays("labels", yb, y_pred=pred, weight=w, seed=0)
    ref = labeling_intervals(totals, ["f1"], n_resamples=300, seed=0, pos_label=1).intervals["f1"]
    assert (r["f1"].ci.low, r["f1"].ci.high) == pytest.approx(ref, abs=1e-12)
    assert "grouped Poisson" in r["f1"].ci.resampling
    assert r.total_weight == pytest.approx(w.sum())


# --- other tasks -------------------------------------------------------------------------------


def test_binary_labels_on_haberman():
    d = load_keel("haberman")
    rng = np.random.default_rng(0)
    pred = np.where(rng.random(d.y.size) < 0.85, d.y, 1 - d.y)
    r = evaluate(d.y, pred, ci=False)
    assert r.task == "binary-labels" and r.threshold is None
    for name, func in SKLEARN.items():
        assert r[name].value == pytest.approx(func(d.y, pred), abs=1e-12)
    assert r["accuracy"].baseline == pytest.approx(225 / 306)
    assert r["prediction_advantage"].value == pytest.approx(prediction_advantage(d.y, pred))


def test_multiclass_labels_against_sklearn():
    rng = np.random.default_rng(1)
    y = rng.choice(["a", "b", "c", "d"], size=400, p=[0.5, 0.25, 0.15, 0.1])
    pred = np.where(rng.random(400) < 0.7, y, rng.choice(["a", "b", "c", "d"], size=400))
    r = evaluate(y, pred, n_resamples=200)
    assert r.task == "multiclass-labels"
    assert r["accuracy"].value == pytest.approx(skm.accuracy_score(y, pred))
    assert r["balanced_accuracy"].value == pytest.approx(skm.balanced_accuracy_score(y, pred))
    for name in ("precision", "recall", "f1"):
        func = getattr(skm, f"{name}_score")
        assert r[name].value == pytest.approx(func(y, pred, average="macro"))
    assert r["mcc"].value == pytest.approx(skm.matthews_corrcoef(y, pred))
    assert r["kappa"].value == pytest.approx(skm.cohen_kappa_score(y, pred))
    assert r["prediction_advantage"].value == pytest.approx(prediction_advantage(y, pred))
    assert r["accuracy"].baseline == pytest.approx(np.mean(y == "a"))
    # macro F1 of a constant: only its class scores, 2p/(1+p), divided by 4
    p = np.mean(y == "a")
    assert r["f1"].baseline == pytest.approx(2 * p / (1 + p) / 4)
    ref = bootstrap_ci("f1", y, pred, average="macro", n_resamples=200, random_state=0, zero_division=0)
    assert (r["f1"].ci.low, r["f1"].ci.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    # one-vs-rest OPS, macro-averaged
    per_class = skm.f1_score(y, pred, average=None)
    prev = np.array([np.mean(y == c) for c in "abcd"])
    assert r["f1"].ops == pytest.approx(np.mean(outperformance_score("f1", per_class, prev).score))


def test_mcc_baseline_is_one_rule_for_two_or_more_classes():
    """A constant prediction's MCC is 0/0, defined as 0 (scikit-learn): the best constant's
    MCC is 0.000 in binary and multi-class reports alike, never "no baseline"."""
    rng = np.random.default_rng(1)
    for classes in (["a", "b"], ["a", "b", "c"], ["a", "b", "c", "d"]):
        y = rng.choice(classes, size=300)
        pred = np.where(rng.random(300) < 0.7, y, rng.choice(classes, size=300))
        r = evaluate(y, pred, n_resamples=100)
        const = np.full(300, r["accuracy"].baseline_prediction.split("'")[1])
        assert r["mcc"].baseline == 0.0 == _quiet(skm.matthews_corrcoef, y, const)
        assert r["mcc"].verdict != "no baseline to compare with"
        assert r["mcc"].advantage == pytest.approx(r["mcc"].value)


def test_macro_average_with_a_class_never_predicted_is_sklearns_and_says_so():
    """Seven classes, one never predicted: macro precision counts it as 0, as scikit-learn
    does, in the value, the baseline and the interval, and a note says so (issue 11)."""
    rng = np.random.default_rng(0)
    y = rng.integers(0, 7, 300)
    pred = np.where(rng.random(300) < 0.7, y, rng.integers(0, 7, 300))
    pred[pred == 6] = 5
    r = evaluate(y, pred, n_resamples=200)
    for name in ("precision", "recall", "f1"):
        func = getattr(skm, f"{name}_score")
        assert r[name].value == pytest.approx(_quiet(func, y, pred, average="macro", zero_division=0), abs=1e-12)
        assert r[name].ci.low <= r[name].value <= r[name].ci.high
    # the best constant prediction, "always 0": its class's precision p_0, every other class 0
    assert r["precision"].baseline == pytest.approx(max(np.bincount(y) / 300) / 7, abs=1e-12)
    ref = bootstrap_ci("precision", y, pred, average="macro", n_resamples=200, random_state=0, zero_division=0)
    assert (r["precision"].ci.low, r["precision"].ci.high) == pytest.approx((ref.low, ref.high), abs=1e-12)
    assert [n for n in r.notes if "precision is undefined (0/0) for class 6: counted as 0" in n]


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def test_multiclass_probabilities_against_sklearn():
    rng = np.random.default_rng(3)
    y = rng.choice([0, 1, 2], size=300, p=[0.6, 0.3, 0.1])
    logits = rng.normal(size=(300, 3)) + 2.0 * np.eye(3)[y]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    r = evaluate(y, proba, n_resamples=100)
    assert r.task == "multiclass-probabilities"
    assert r["accuracy"].value == pytest.approx(skm.accuracy_score(y, proba.argmax(axis=1)))
    assert r["log_loss"].value == pytest.approx(skm.log_loss(y, proba))
    assert r["log_loss"].advantage == pytest.approx(skm.d2_log_loss_score(y, proba))
    assert r["brier"].value == pytest.approx(skm.brier_score_loss(y, proba))
    assert r["log_loss"].ci.low < r["log_loss"].value < r["log_loss"].ci.high
    # one-vs-rest AUCs, macro and weighted by the classes' supports
    onehot = np.eye(3)[y]
    for average in ("macro", "weighted"):
        name = "" if average == "macro" else "_weighted"
        assert r["roc_auc" + name].value == pytest.approx(
            skm.roc_auc_score(y, proba, multi_class="ovr", average=average), abs=1e-12)
        assert r["pr_auc" + name].value == pytest.approx(
            skm.average_precision_score(onehot, proba, average=average), abs=1e-12)
    prev = np.bincount(y) / y.size
    assert r["pr_auc_weighted"].baseline == pytest.approx(float(np.sum(prev**2)))
    assert r["roc_auc_weighted"].ops is not None and "weighted by support" in r["roc_auc_weighted"].ops_method


def test_regression_against_sklearn():
    rng = np.random.default_rng(4)
    y = rng.normal(10, 3, 500)
    f = y + rng.normal(0, 2, 500)
    w = rng.uniform(0.5, 2, 500)
    r = evaluate(y, f, sample_weight=w, n_resamples=200)
    assert r.task == "regression"
    assert r["mse"].value == pytest.approx(skm.mean_squared_error(y, f, sample_weight=w))
    assert r["mae"].value == pytest.approx(skm.mean_absolute_error(y, f, sample_weight=w))
    assert r["r2"].value == pytest.approx(skm.r2_score(y, f, sample_weight=w))
    assert r["mse"].advantage == pytest.approx(skm.r2_score(y, f, sample_weight=w))
    assert r["d2_absolute_error"].value == pytest.approx(skm.d2_absolute_error_score(y, f, sample_weight=w))
    assert r["mse"].baseline == pytest.approx(np.cov(y, aweights=w, ddof=0))
    assert r["r2"].ci.low < r["r2"].value < r["r2"].ci.high
    assert r.verdict[0].startswith("The model removes")


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1), st.sampled_from([0.05, 0.25, 0.5, 0.9]), st.booleans(), st.booleans())
def test_quantile_regression_against_sklearn(seed, tau, weighted, ties):
    """The pinball rows of a quantile model = scikit-learn's mean_pinball_loss and
    d2_pinball_score (weights, tied targets); the baseline is the τ-quantile's risk."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 300))
    y = rng.gamma(2.0, 1.0, n)
    if ties:
        y = np.round(y)
    f = y * rng.uniform(0.5, 1.5) + rng.normal(0, 0.5, n)
    w = rng.uniform(0.0, 2.0, n) if weighted else None
    r = evaluate(y, f, sample_weight=w, quantile=tau, n_resamples=50, task="regression")
    loss = skm.mean_pinball_loss(y, f, alpha=tau, sample_weight=w)
    assert r["pinball_loss"].value == pytest.approx(loss, rel=1e-12, abs=1e-12)
    d2 = skm.d2_pinball_score(y, f, alpha=tau, sample_weight=w)
    assert r["d2_pinball_score"].value == pytest.approx(d2, rel=1e-10, abs=1e-12, nan_ok=True)
    q = weighted_quantile(y, tau, w)
    assert r["pinball_loss"].baseline == pytest.approx(
        skm.mean_pinball_loss(y, np.full(n, q), alpha=tau, sample_weight=w), rel=1e-12, abs=1e-12)
    assert r["pinball_loss"].advantage == pytest.approx(r["d2_pinball_score"].value, rel=1e-9, abs=1e-12, nan_ok=True)


def test_quantile_option_rows_intervals_and_errors():
    rng = np.random.default_rng(7)
    y = rng.gamma(2.0, 1.0, 2000)
    f = np.quantile(y, 0.9) * 0.5 + 0.6 * y
    r = evaluate(y, f, quantile=0.9, n_resamples=300)
    assert list(r.metrics)[-2:] == ["pinball_loss", "d2_pinball_score"]
    for name in ("pinball_loss", "d2_pinball_score"):
        ci = r[name].ci
        assert ci is not None and ci.low < r[name].value < ci.high and "grouped Poisson" in ci.resampling
    assert "0.9-quantile" in r["pinball_loss"].baseline_prediction
    assert set(evaluate(y, f, ci=False).metrics) == {"mse", "mae", "r2", "d2_absolute_error"}
    assert list(evaluate(y, f, quantile=0.9, metrics=["d2_pinball_score"], ci=False).metrics) == ["d2_pinball_score"]
    with pytest.raises(InvalidInputError, match="applies to regression"):
        evaluate([0, 1, 1, 0], [0.2, 0.8, 0.6, 0.1], quantile=0.9)
    for bad in (0.0, 1.0, 1.5, float("nan")):
        with pytest.raises(InvalidInputError, match="quantile"):
            evaluate(y, f, quantile=bad)
    with pytest.raises(InvalidInputError, match="pinball_loss"):  # the rows exist only with a quantile
        evaluate(y, f, metrics=["pinball_loss"])


def test_any_registry_metric_on_request():
    """``metrics=`` takes any labeling metric of the registry by name or alias: its value
    (= scikit-learn's), best constant, a perfect predictor's value by direction, OPS and
    interval; in memory and on DuckDB alike."""
    rng = np.random.default_rng(12)
    y = (rng.random(800) < 0.3).astype(int)
    p = np.where(rng.random(800) < 0.8, y, 1 - y)
    r = evaluate(y, p, metrics=["csi", "fdr", "kappa_quadratic", "lr_plus"], n_resamples=200)
    assert list(r.metrics) == ["jaccard", "fdr", "kappa_quadratic", "lr_plus"]
    assert r["jaccard"].value == pytest.approx(skm.jaccard_score(y, p), abs=1e-12)
    assert r["kappa_quadratic"].value == pytest.approx(skm.cohen_kappa_score(y, p, weights="quadratic"), abs=1e-12)
    lr_plus, _ = skm.class_likelihood_ratios(y, p)
    assert r["lr_plus"].value == pytest.approx(lr_plus, rel=1e-12)
    assert r["fdr"].value == pytest.approx(1 - skm.precision_score(y, p), abs=1e-12)
    assert r["fdr"].ideal == 0.0 and not r["fdr"].greater_is_better and r["jaccard"].ideal == 1.0
    assert math.isnan(r["lr_plus"].advantage)  # a perfect predictor's LR+ is infinite
    for m in r.metrics.values():
        assert m.ops is not None and m.ci is not None and m.ci.low <= m.value <= m.ci.high, m.name
    y3 = rng.integers(0, 3, 800)
    p3 = np.where(rng.random(800) < 0.7, y3, rng.integers(0, 3, 800))
    r3 = evaluate(y3, p3, metrics=["jaccard", "kappa_linear", "fdr"], n_resamples=200)
    assert r3["jaccard"].value == pytest.approx(skm.jaccard_score(y3, p3, average="macro"), abs=1e-12)
    assert r3["kappa_linear"].value == pytest.approx(skm.cohen_kappa_score(y3, p3, weights="linear"), abs=1e-12)
    # FDR's undefined classes (never predicted) are left out of the macro average, not counted as 0 (the best)
    assert r3["fdr"].baseline == pytest.approx(1 - np.bincount(y3).max() / 800)
    assert any("left out of the macro average" in note for note in r3.notes)

    frame = {"y": y, "p": p}
    e = evaluate(data=frame, y_true="y", y_pred="p", engine="duckdb", metrics=["jaccard", "fdr"], n_resamples=200)
    for name in ("jaccard", "fdr"):
        assert e[name].value == pytest.approx(r[name].value, abs=1e-12)
        assert (e[name].ci.low, e[name].ci.high) == pytest.approx((r[name].ci.low, r[name].ci.high), abs=1e-12)
    with pytest.raises(InvalidInputError, match="unknown metric 'jacard'"):
        evaluate(y, p, metrics=["jacard"])


# --- detection, options, bad input ---------------------------------------------------------


@pytest.mark.parametrize("y_true, y, task", [
    ([0, 1, 1, 0], [0.1, 0.9, 0.6, 0.3], "binary-scores"),
    (["n", "p", "p"], [0.2, 0.7, 1.0], "binary-scores"),
    ([0, 1, 1, 0], [0, 1, 0, 0], "binary-labels"),
    ([0, 1, 2, 0], [0, 1, 1, 2], "multiclass-labels"),
    ([0, 1, 1, 0], [0, 1, 2, 0], "binary-scores"),  # integers given as scores, not all classes of y_true
    ([0, 1, 2], [[0.8, 0.1, 0.1], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]], "multiclass-probabilities"),
    ([0, 1, 1], [[0.8, 0.2], [0.3, 0.7], [0.5, 0.5]], "binary-scores"),
    ([0.5, 1.2, 3.3], [0.4, 1.0, 3.0], "regression"),
    (list(range(25)), [v + 0.4 for v in range(25)], "regression"),  # > 20 integer targets, real predictions
])
def test_task_detection(y_true, y, task):
    assert detect_task(y_true, y)[0] == task


def test_predicted_labels_absent_from_y_true_are_labels_as_y_pred():
    # given as y_pred, a label that y_true lacks is a predicted label (as y_score: a score)
    assert evaluate([0, 1, 1, 0], y_pred=[0, 1, 2, 0], ci=False, mc_samples=DBT).task == "multiclass-labels"


def test_task_override_and_threshold():
    y = [0, 1, 1, 0, 1, 0]
    s = [0.2, 0.8, 0.4, 0.3, 0.9, 0.6]
    r = evaluate(y, s, threshold=0.35, ci=False, mc_samples=DBT)
    assert r.threshold == 0.35 and r.threshold_reason == "given"
    assert r["accuracy"].value == pytest.approx(skm.accuracy_score(y, np.array(s) >= 0.35))
    margins = np.array(s) * 4 - 2
    assert evaluate(y, margins, ci=False, mc_samples=DBT).threshold == 0.0
    forced = evaluate([0, 1, 2, 3], [0, 1, 2, 2], task="regression", ci=False)
    assert forced.task == "regression" and forced.task_source == "given"
    r = evaluate(["no", "yes", "yes"], [0.1, 0.7, 0.4], pos_label="no", ci=False, mc_samples=DBT)
    assert r.positive_label == "no"
    # scores rank the positive class: "no" (score 0.1) is missed at threshold 0.5
    yb = np.array(["no", "yes", "yes"]) == "no"
    assert r["recall"].value == skm.recall_score(yb, np.array([0.1, 0.7, 0.4]) >= 0.5) == 0.0


@pytest.mark.parametrize("kwargs, message", [
    (dict(y_true=[0, 1, 1], y=[0.2, 0.5]), "different lengths"),
    (dict(y_true=[], y=[]), "empty"),
    (dict(y_true=[0, 1, 1], y=[0.2, np.nan, 0.5]), "NaN"),
    (dict(y_true=[0, 1, 1], y=[0.2, 0.3, 0.5], sample_weight=[1, -1, 1]), "negative"),
    (dict(y_true=[0, 1, 2], y=[[0.5, 0.5, 0.5], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]), "sum to 1"),
    (dict(y_true=[0, 1, 2], y=[[1.5, -0.5, 0.0], [0.2, 0.7, 0.1], [0.1, 0.1, 0.8]]), "[0, 1]"),
    (dict(y_true=[0, 1, 1], y=[0.2, 0.3, 0.5], metrics=["f1", "bogus"]), "unknown metric 'bogus'"),
    (dict(y_true=[0, 1, 1], y=[0.2, 0.3, 0.5], pos_label=7), "pos_label"),
    (dict(y_true=[0, 1, 1], y=[0.2, 0.3, 0.5], task="nonsense"), "task"),
    (dict(y_true=["a", "b", "c"], y=[0.2, 0.3, 0.5]), "probabilities"),
])
def test_bad_input_raises_one_line(kwargs, message):
    y_true, y = kwargs.pop("y_true"), kwargs.pop("y")
    with pytest.raises(InvalidInputError) as info:
        evaluate(y_true, y, ci=False, **kwargs)
    assert message in str(info.value) and "\n" not in str(info.value)


def test_single_class_is_undefined_or_strict():
    with pytest.raises(UndefinedMeasureError):
        evaluate([1, 1, 1], [0.2, 0.8, 0.9], strict=True)
    with pytest.warns(UndefinedMeasureWarning):
        r = evaluate([1, 1, 1], [0.2, 0.8, 0.9], ci=False, mc_samples=DBT)
    assert math.isnan(r["prediction_advantage"].value)
    assert any("single class" in note for note in r.notes)
    assert json.dumps(r.to_dict(), allow_nan=False)


def test_normalize_rescales_probability_rows():
    y = [0, 1, 2]
    p = np.array([[2.0, 1.0, 1.0], [1.0, 2.0, 1.0], [1.0, 1.0, 2.0]])
    r = evaluate(y, p, normalize=True, ci=False)
    assert r["log_loss"].value == pytest.approx(-np.log(0.5))


# --- compare ---------------------------------------------------------------------------------


def test_ops_of_precision_is_invariant_to_prevalence():
    """Class-wise resampling moves nominal precision, not OPS(precision): the same (α, β)
    at π = 0.05 and 0.5 (closed form, OPS paper eq. 6 with the counts of SPEC §3)."""
    alpha, beta = 0.1, 0.3
    values = {}
    for pi in (0.05, 0.5):
        n = 20000
        tp, fn = n * pi * (1 - beta), n * pi * beta
        fp, tn = n * (1 - pi) * alpha, n * (1 - pi) * (1 - alpha)
        y = np.r_[np.ones(int(tp + fn)), np.zeros(int(fp + tn))]
        pred = np.r_[np.ones(int(tp)), np.zeros(int(fn)), np.ones(int(fp)), np.zeros(int(tn))]
        values[pi] = evaluate(y, pred, ci=False, metrics=["precision"])["precision"]
    assert values[0.5].value - values[0.05].value > 0.4
    assert values[0.05].ops == pytest.approx(values[0.5].ops, abs=1e-9)


def test_compare_flags_the_degraded_month():
    frame = credit_default_example()
    sets = {m: (g["default"].to_numpy(), g["score"].to_numpy()) for m, g in frame.groupby("month")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare(sets, metrics=["precision", "accuracy"], n_resamples=500)
    assert [r.name for r in c.reports] == list(MONTHS)
    assert c.reference == "2024-01" and c.focus == "precision"
    prec = {r.name: r["precision"] for r in c.reports}
    # nominal precision rises with the prevalence; the degraded month still beats January nominally
    assert prec["2024-06"].value > prec["2024-01"].value + 0.2
    for month, (pi, degraded) in MONTHS.items():
        if month == "2024-01":
            continue
        change = c.change(month, "precision")
        assert change.direction == ("worse" if degraded else "no significant change"), month
    assert any(line.startswith(("2024-05 (20.0% prevalence): evidence that the classifier changed "
                                "(Holm-adjusted p ≤ 5%)")) for line in c.verdict)
    assert c.flag("2024-05", "precision") == "▼"
    d = json.loads(json.dumps(c.to_dict(), allow_nan=False))
    assert len(d["test_sets"]) == 6 and d["focus_metric"] == "precision"
    assert len(c.to_frame()) == 12


def test_compare_needs_consistent_sets():
    with pytest.raises(InvalidInputError, match="reference"):
        compare({"a": ([0, 1], [0.1, 0.9])}, reference="b")
    with pytest.raises(InvalidInputError, match="test set 'b'"):
        compare({"a": ([0, 1, 1], [0.1, 0.9, 0.3]), "b": ([0, 1], [0.1, np.nan])}, ci=False, metrics=["f1"])


def test_weighted_labeling_ci_uses_every_row_and_matches_the_row_bootstrap():
    """Many distinct weights on many rows: the grouped bootstrap uses every row (no
    subsample), and its width agrees with the row bootstrap of the same data."""
    rng = np.random.default_rng(9)
    n = 40000
    y = (rng.random(n) < 0.3).astype(int)
    pred = np.where(rng.random(n) < 0.8, y, 1 - y)
    w = rng.uniform(0.5, 2.0, n)  # all distinct
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(y, pred, sample_weight=w, metrics=["accuracy", "f1"], n_resamples=400, random_state=1)
        full = bootstrap_ci("f1", y.astype(bool), pred.astype(bool), sample_weight=w, n_resamples=200,
                            random_state=2, pos_label=True, method="percentile")
    m = r["f1"]
    assert m.value == pytest.approx(skm.f1_score(y, pred, sample_weight=w))
    assert "grouped Poisson" in m.ci.resampling and "subsample" not in m.ci.resampling
    assert m.ci.low < m.value < m.ci.high
    assert m.ci.high - m.ci.low == pytest.approx(full.high - full.low, rel=0.3)


def test_report_from_merged_counts_equals_report_from_rows(credit):
    """The report is a function of the sufficient statistic: counts computed in chunks and
    merged (as an out-of-core engine would) give the same report, intervals included."""
    y, s = credit
    yb = y == "Yes"
    chunks = np.array_split(np.arange(y.size), 4)
    merged = threshold_counts(yb[chunks[0]], s[chunks[0]])
    for c in chunks[1:]:
        merged = merged + threshold_counts(yb[c], s[c])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = evaluate(data=merged, labels=("No", "Yes"), n_resamples=300, mc_samples=DBT)
        b = evaluate(y, s, n_resamples=300, mc_samples=DBT)
    assert list(a.metrics) == list(b.metrics)
    for name in b.metrics:
        ma, mb = a[name], b[name]
        assert ma.value == pytest.approx(mb.value, abs=1e-12), name
        assert ma.ops == pytest.approx(mb.ops, abs=1e-12) if mb.ops is not None else ma.ops is None
        assert (ma.ci.low, ma.ci.high) == pytest.approx((mb.ci.low, mb.ci.high), abs=1e-9), name
    assert a.verdict == b.verdict


def test_one_door_for_every_input():
    """``evaluate`` is the one door: arrays, a table aggregated by an engine (``data=``), the
    ThresholdCounts of the rows — the same report; options that belong to another input are
    refused with one line naming them."""
    import pandas as pd

    from beyondchance.measures.curves import threshold_counts

    rng = np.random.default_rng(5)
    y = (rng.random(300) < 0.3).astype(int)
    s = np.clip(0.3 * y + rng.random(300) * 0.8, 0, 1)
    frame = pd.DataFrame({"y": y, "s": s})
    opts = dict(n_resamples=200, mc_samples=1024, random_state=2)
    rows = evaluate(y, s, **opts)
    table = evaluate("y", "s", data=frame, **opts)
    counts = evaluate(data=threshold_counts(y, s), **opts)
    assert table.engine == "duckdb" and rows.engine is None and counts.engine is None
    for name in ("f1", "accuracy", "roc_auc", "pr_auc", "log_loss"):
        assert table[name].value == pytest.approx(rows[name].value, abs=1e-12)
        assert counts[name].value == rows[name].value
        assert counts[name].ci.low == rows[name].ci.low and counts[name].ci.high == rows[name].ci.high
    with pytest.raises(InvalidInputError, match="engine applies to data="):
        evaluate(y, s, engine="duckdb")
    with pytest.raises(InvalidInputError, match="y_true names a column"):
        evaluate(y, "s", data=frame)
    with pytest.raises(InvalidInputError, match="y_true does not apply to data=ThresholdCounts"):
        evaluate("y", data=threshold_counts(y, s))
    with pytest.raises(InvalidInputError, match="binary-labels"):
        evaluate(data=threshold_counts(y, s), task="binary-labels")
    with pytest.raises(InvalidInputError, match="evaluate needs y_true"):
        evaluate(y_score=s)
    with pytest.raises(InvalidInputError, match="applies to test sets that are tables or files"):
        compare({"a": (y, s)}, engine="duckdb")
    both = compare({"a": frame, "b": frame.iloc[::-1]}, y_true="y", y_score="s", ci=False, mc_samples=1024)
    assert [r.name for r in both.reports] == ["a", "b"]
