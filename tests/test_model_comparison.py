"""compare_models: values against scikit-learn, McNemar and DeLong by hand, Holm's correction,
the verdict against the table, weights, type-I error of the paired tests, and the CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from scipy import stats

import beyondchance as bc
from beyondchance.inference.significance import holm_adjust


def data(seed=0, n=400):
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    a = np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.3, n), 0, 1)
    b = np.clip(0.5 + 0.15 * (2 * y - 1) + rng.normal(0, 0.3, n), 0, 1)
    return y, a, b


def test_values_agree_with_scikit_learn():
    y, a, b = data()
    names = ["roc_auc", "pr_auc", "log_loss", "brier", "accuracy", "f1", "mcc", "prediction_advantage"]
    c = bc.compare_models(y, {"a": a, "b": b}, metrics=names, n_resamples=200)
    for name, s in (("a", a), ("b", b)):
        v = c.values[name]
        pred = (s >= 0.5).astype(int)
        assert abs(v["roc_auc"] - skm.roc_auc_score(y, s)) < 1e-12
        assert abs(v["pr_auc"] - skm.average_precision_score(y, s)) < 1e-12
        assert abs(v["log_loss"] - skm.log_loss(y, s)) < 1e-12
        assert abs(v["brier"] - skm.brier_score_loss(y, s)) < 1e-12
        assert abs(v["accuracy"] - skm.accuracy_score(y, pred)) < 1e-12
        assert abs(v["f1"] - skm.f1_score(y, pred)) < 1e-12
        assert abs(v["mcc"] - skm.matthews_corrcoef(y, pred)) < 1e-12
        assert abs(v["prediction_advantage"] - bc.prediction_advantage(y, pred)) < 1e-12
    d = c.difference("a", "b", "f1")
    assert d.difference == c.values["b"]["f1"] - c.values["a"]["f1"]


def test_tests_by_hand():
    y, a, b = data(1)
    c = bc.compare_models(y, {"a": a, "b": b}, metrics=["roc_auc", "accuracy", "prediction_advantage", "f1"],
                          n_resamples=300, correction="none")
    dl = bc.delong_test(y, a, b)
    r = c.difference("a", "b", "roc_auc")
    assert r.test == "DeLong" and abs(r.pvalue - dl.pvalue) < 1e-12 and np.allclose(r.ci, dl.ci, atol=1e-12)
    ra, rb = (a >= 0.5) == y, (b >= 0.5) == y
    n01, n10 = int(np.sum(ra & ~rb)), int(np.sum(~ra & rb))
    p = stats.binomtest(n10, n01 + n10, 0.5).pvalue
    for name in ("accuracy", "prediction_advantage"):
        d = c.difference("a", "b", name)
        assert d.test == "McNemar exact" and abs(d.pvalue - p) < 1e-12 and d.pvalue_adjusted == d.pvalue
    assert c.difference("a", "b", "f1").test == "paired bootstrap"


def test_paired_bootstrap_uses_the_same_rows():
    """Identical models: every paired resample differs by exactly 0."""
    y, a, _ = data(2)
    c = bc.compare_models(y, {"a": a, "copy": a.copy()}, metrics=["f1", "pr_auc", "roc_auc"], n_resamples=200)
    for d in c.differences:
        assert d.difference == 0 and tuple(d.ci) == (0.0, 0.0) and d.pvalue == 1.0 and not d.significant
    assert "no significant difference" in c.verdict[0]


def test_holm_and_bonferroni():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.005])
    holm = holm_adjust(p, "holm")
    # sorted 0.005, 0.01, 0.03, 0.04 with factors 4, 3, 2, 1: 0.02, 0.03, 0.06, 0.06 (monotone)
    np.testing.assert_allclose(holm[[4, 0, 2, 1]], [0.02, 0.03, 0.06, 0.06])
    assert np.isnan(holm[3])
    np.testing.assert_allclose(holm_adjust(p, "bonferroni")[[0, 1, 2, 4]], [0.04, 0.16, 0.12, 0.02])


def test_one_significance_rule_p_at_most_alpha(monkeypatch):
    """p ≤ α = 1 − level, α rounded (1 − 0.95 is 0.050000000000000044): an adjusted p of
    exactly 0.05 is significant at level 0.95, one a hair above it is not, in compare_models
    and the monitoring decomposition alike."""
    from beyondchance.inference.significance import rejects, significance_level
    from beyondchance.measures.curves import threshold_counts
    from beyondchance.monitoring import classifier_change, set_statistics

    assert significance_level(0.95) == 0.05 and significance_level(0.99) == 0.01
    assert rejects(0.05, 0.05) and not rejects(0.05000000000000002, 0.05) and not rejects(float("nan"), 0.05)
    y, a, _ = data(1)
    good = np.clip(0.5 + 0.45 * (2 * y - 1), 0, 1)
    for p, expected in ((0.05, True), (0.05000000000000002, False)):
        monkeypatch.setattr("beyondchance.report.model_comparison.holm_adjust", lambda ps, how, p=p: np.full(len(ps), p))
        c = bc.compare_models(y, {"a": a, "good": good}, metrics=["roc_auc"], n_resamples=200)
        assert c.difference("a", "good", "roc_auc").significant is expected
        monkeypatch.setattr(classifier_change, "holm_adjust", lambda ps, p=p: np.full(len(ps), p))
        ref = set_statistics.SetStatistics.from_counts(threshold_counts(y, a), threshold=0.5)
        test = set_statistics.SetStatistics.from_counts(threshold_counts(y, good), threshold=0.5)
        (change,) = classifier_change.compare_classifiers(ref, {"t": test})
        assert change.changed is expected and change.level == 0.05


def test_verdict_never_says_more_than_the_table():
    rng = np.random.default_rng(4)
    n = 600
    y = rng.integers(0, 2, n)
    good = y + rng.normal(0, 0.7, n)
    weak = y + rng.normal(0, 2.0, n)
    mid = y + rng.normal(0, 1.0, n)
    c = bc.compare_models(y, {"weak": weak, "good": good, "mid": mid}, threshold=0.5, n_resamples=400)
    assert c.difference("weak", "good", "roc_auc").significant
    assert c.verdict[0].startswith("good is significantly better than weak on prediction advantage by") and "on ROC AUC by" in c.verdict[0]
    assert "corrected for 24 comparisons (Holm)" in c.verdict[-1]
    for d in c.differences:
        excludes = d.ci[0] > 0 or d.ci[1] < 0
        assert d.significant == (d.pvalue_adjusted <= 0.05 and excludes)
        line = next(v for v in c.verdict if (d.model_a in v and d.model_b in v))
        if d.significant:
            assert f"{d.better} is significantly better than" in line
    assert len(c.to_frame()) == 24 and json.dumps(c.to_dict(), allow_nan=False)


def test_losses_compare_the_right_way():
    y, a, b = data(5, n=800)
    c = bc.compare_models(y, {"b": b, "a": a}, metrics=["log_loss"], n_resamples=300)
    d = c.differences[0]
    assert d.difference < 0 and d.better == "a"  # a has the lower log loss
    if d.significant:
        assert c.verdict[0].startswith("a is significantly better than b on log loss by")


def test_labels_and_weights():
    rng = np.random.default_rng(6)
    y = rng.choice(["no", "yes"], 300)
    pa = np.where(rng.random(300) < 0.8, y, np.where(y == "yes", "no", "yes"))
    pb = np.where(rng.random(300) < 0.7, y, np.where(y == "yes", "no", "yes"))
    c = bc.compare_models(y, {"a": pa, "b": pb}, pos_label="yes", metrics=["accuracy", "f1"], n_resamples=200)
    assert c.kind == "labels" and abs(c.values["a"]["f1"] - skm.f1_score(y, pa, pos_label="yes")) < 1e-12
    w = rng.integers(1, 4, 300)
    cw = bc.compare_models(y, {"a": pa, "b": pb}, pos_label="yes", metrics=["accuracy"], sample_weight=w,
                           n_resamples=200)
    rep = bc.compare_models(np.repeat(y, w), {"a": np.repeat(pa, w), "b": np.repeat(pb, w)}, pos_label="yes",
                            metrics=["accuracy"], n_resamples=200)
    assert abs(cw.differences[0].pvalue - rep.differences[0].pvalue) < 1e-12  # McNemar on repeated rows
    assert abs(cw.values["a"]["accuracy"] - rep.values["a"]["accuracy"]) < 1e-12
    ys, sa, sb = data(7)
    cf = bc.compare_models(ys, {"a": sa, "b": sb}, metrics=["roc_auc", "accuracy"], sample_weight=rng.random(400),
                           n_resamples=200)
    assert {d.test for d in cf.differences} == {"paired bootstrap"} and "non-integer" in cf.notes[-1]


def test_bad_input():
    y, a, b = data(8, n=50)
    with pytest.raises(bc.InvalidInputError, match="at least two"):
        bc.compare_models(y, {"a": a})
    with pytest.raises(bc.InvalidInputError, match="unknown measure"):
        bc.compare_models(y, {"a": a, "b": b}, metrics=["roc_auk"])
    with pytest.raises(bc.InvalidInputError, match="different lengths"):
        bc.compare_models(y, {"a": a, "b": b[:-1]})
    with pytest.raises(bc.InvalidInputError, match="single class"):
        bc.compare_models(np.ones(50, int), {"a": a, "b": b})
    with pytest.raises(bc.InvalidInputError, match="roc_auc"):  # labels have no AUC here
        bc.compare_models(y, {"a": (a > .5).astype(int), "b": (b > .5).astype(int)}, metrics=["roc_auc"])


@pytest.mark.parametrize("metric", ["f1", "pr_auc", "accuracy"])
def test_type_one_error_equal_performance(metric):
    """Two models of equal population performance (independent noise of the same size)."""
    rng = np.random.default_rng({"f1": 1, "pr_auc": 2, "accuracy": 3}[metric])
    reps, n = 300, 150
    rejected = 0
    for _ in range(reps):
        y = rng.integers(0, 2, n)
        a = y + rng.normal(0, 1.2, n)
        b = y + rng.normal(0, 1.2, n)
        c = bc.compare_models(y, {"a": a, "b": b}, metrics=[metric], threshold=0.5, n_resamples=200,
                              random_state=rng)
        rejected += c.differences[0].pvalue < 0.05
    assert 0.02 <= rejected / reps <= 0.09


def run(*args):
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *args], capture_output=True, text=True,
                          timeout=900)


def test_cli(tmp_path):
    y, a, b = data(9, n=300)
    path = tmp_path / "models.csv"
    pd.DataFrame({"y": y, "a": a, "b": b}).to_csv(path, index=False)
    before = path.read_bytes()
    r = run("compare-models", str(path), "--y-true", "y", "--y-score", "a", "--y-score", "b", "--metrics",
            "roc_auc,accuracy", "--n-resamples", "300", "--format", "json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    lib = bc.compare_models(y, {"a": a, "b": b}, metrics=["roc_auc", "accuracy"], n_resamples=300)
    assert out["differences"] == [d.to_dict() for d in lib.differences] and out["verdict"] == list(lib.verdict)
    r = run("compare-models", str(path), "--y-true", "y", "--y-score", "a")
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "two or more" in r.stderr
    r = run("compare-models", str(path), "--y-true", "y", "--y-score", "a", "--y-score", "nope")
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert path.read_bytes() == before
