"""The permutation CLT of weighted cells (issue 15, item 1): its moments equal the full
enumeration of the permutations, its draws have those moments, its p-values agree with the
row permutation Monte Carlo test within their errors, every engine gives the same p-value
with the same seed, and its type-I error (quick version of benchmarks/sim_tests.py)."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pandas as pd
import pytest

import beyondchance as bc
import beyondchance.inference.permutation.rows as rows
from beyondchance.inference.permutation.clt import CLT_METHOD, PermutationCells, clt_tests_of_labels, clt_tests_of_scores
from beyondchance.inference.permutation.rows import binary_statistic, multiclass_statistic, row_permutation_tests
from beyondchance.report import evaluate

LOSSES = ("log_loss", "brier")


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_moments_equal_full_enumeration(seed):
    """E T and Cov T of Hoeffding's formula = the mean and covariance over all n! permutations
    of the (label, weight) rows against the predicted classes (n = 7, a zero weight, a class
    never predicted)."""
    rng = np.random.default_rng(seed)
    n, k = 7, 3
    codes, pred = rng.integers(0, k, n), rng.integers(0, k - 1, n)  # class 2 is never predicted
    w = rng.exponential(size=n)
    w[0] = 0.0
    a = np.zeros((n, k))
    a[np.arange(n), codes] = w
    onehot = np.eye(k)[pred]  # (n, C)
    tables = np.array([onehot.T @ a[list(p)] for p in itertools.permutations(range(n))])  # (n!, C, K)
    flat = tables.reshape(len(tables), -1)
    cells = PermutationCells.from_codes(pred, codes, w, keys=np.arange(k), classes=np.arange(k))
    mean, cov = cells.moments()
    np.testing.assert_allclose(mean, tables.mean(axis=0), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(cov.reshape(k * k, k * k), np.cov(flat.T, bias=True), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(cells.weights, onehot.T @ a, rtol=1e-15)  # the observed table


def test_draws_have_the_permutation_moments():
    rng = np.random.default_rng(3)
    n = 40
    codes, pred, w = rng.integers(0, 3, n), rng.integers(0, 3, n), rng.exponential(size=n)
    cells = PermutationCells.from_codes(pred, codes, w, keys=np.arange(3), classes=np.arange(3))
    mean, cov = cells.moments()
    t = cells.draw(200_000, np.random.default_rng(0)).reshape(200_000, -1)
    sd = np.sqrt(np.diag(cov.reshape(9, 9)))
    assert np.all(np.abs(t.mean(axis=0) - mean.ravel()) < 5 * sd / math.sqrt(200_000))
    np.testing.assert_allclose(np.cov(t.T), cov.reshape(9, 9), atol=0.02 * sd.max() ** 2)
    np.testing.assert_allclose(t.reshape(-1, 3, 3).sum(axis=1), np.broadcast_to(cells.weights.sum(0), (200_000, 3)),
                               rtol=1e-10)  # every draw keeps each class's total weight


def test_merge_and_groups_equal_one_shot():
    rng = np.random.default_rng(4)
    n = 300
    y, s, w = rng.integers(0, 2, n), np.round(rng.random(n), 2), rng.exponential(size=n)
    whole = PermutationCells.of_scores(y == 1, s, w)
    parts = [PermutationCells.of_scores(y[i::3] == 1, s[i::3], w[i::3]) for i in range(3)]
    merged = parts[2] + parts[0] + parts[1]
    for f in ("keys", "rows", "weights", "squares"):
        np.testing.assert_allclose(getattr(merged, f), getattr(whole, f), rtol=1e-12)
    assert (np.diff(whole.keys) < 0).all()
    frame = pd.DataFrame({"y": y, "s": s, "w": w, "w2": w * w, "n": 1})
    g = frame.groupby(["y", "s"], as_index=False).sum()
    grouped = PermutationCells.of_scores(g.y == 1, g.s, g.w, rows=g.n, squares=g.w2)
    for f in ("keys", "rows", "weights", "squares"):
        np.testing.assert_allclose(getattr(grouped, f), getattr(whole, f), rtol=1e-12)


def _agree(a, b, slack=0.01):
    """Two Monte Carlo p-values within 4 standard errors (plus the CLT's approximation error)."""
    return abs(a.pvalue - b.pvalue) <= 4 * math.hypot(a.pvalue_standard_error, b.pvalue_standard_error) + slack


def test_clt_agrees_with_the_row_permutation_test():
    """At n = 2,000 (exponential weights, weak signal) the CLT's p-values and null moments are
    the row permutation Monte Carlo test's, within their errors."""
    rng = np.random.default_rng(5)
    n = 2000
    y, w = (rng.random(n) < 0.3).astype(int), rng.exponential(size=n)
    s = np.clip(rng.random(n) + 0.04 * y, 0, 1)
    names = ("f1", "mcc", "accuracy", "roc_auc", "pr_auc", "brier", "log_loss")
    mc = row_permutation_tests(binary_statistic(y == 1, w, pred=s >= 0.5, scores=s, names=names), n,
                               {k: k not in LOSSES for k in names}, n_resamples=4000, random_state=1)
    clt = clt_tests_of_scores(PermutationCells.of_scores(y == 1, s, w), names, threshold=0.5, n_resamples=4000,
                              random_state=2)
    for k in names:
        assert clt[k].method == CLT_METHOD and clt[k].statistic == pytest.approx(mc[k].statistic, rel=1e-12), k
        assert _agree(clt[k], mc[k]), (k, clt[k].pvalue, mc[k].pvalue)
        assert clt[k].null_std == pytest.approx(mc[k].null_std, rel=0.1), k
        assert abs(clt[k].null_mean - mc[k].null_mean) < 0.1 * mc[k].null_std, k
    c, pred = rng.integers(0, 3, n), np.where(rng.random(n) < 0.05, 0, rng.integers(0, 3, n))
    names = ("f1", "mcc", "kappa")
    mc = row_permutation_tests(multiclass_statistic(c, pred, 3, w, names), n, dict.fromkeys(names, True),
                               n_resamples=4000, random_state=1)
    cells = PermutationCells.from_codes(pred, c, w, keys=np.arange(3), classes=np.arange(3))
    clt = clt_tests_of_labels(cells, names, n_resamples=4000, random_state=2)
    for k in names:
        assert _agree(clt[k], mc[k]), (k, clt[k].pvalue, mc[k].pvalue)


def test_permutation_test_with_general_weights(monkeypatch):
    rng = np.random.default_rng(6)
    n = 400
    y, s, w = rng.integers(0, 2, n), rng.random(n), rng.exponential(size=n)
    mc = bc.permutation_test("pr_auc", y, s, sample_weight=w, n_resamples=1000)
    assert mc.method == "monte-carlo" and mc.n_resamples == 1000
    assert mc.statistic == pytest.approx(
        __import__("sklearn.metrics").metrics.average_precision_score(y, s, sample_weight=w), rel=1e-12)
    clt = bc.permutation_test("pr_auc", y, s, sample_weight=w, method="clt", n_resamples=1000)
    assert clt.method == CLT_METHOD and _agree(clt, mc, slack=0.02)
    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * n)  # below MIN_DRAWS permutations: the CLT
    auto = bc.permutation_test("pr_auc", y, s, sample_weight=w, n_resamples=1000)
    assert auto.method == CLT_METHOD and auto.pvalue == clt.pvalue
    with pytest.raises(bc.InvalidInputError, match="budget"):
        bc.permutation_test("pr_auc", y, s, sample_weight=w, method="monte-carlo")
    f1 = bc.permutation_test("f1", y, s >= 0.5, sample_weight=w, n_resamples=1000)  # labels
    assert f1.method == CLT_METHOD and 0 < f1.pvalue < 1
    freq = bc.permutation_test("f1", y, (s >= 0.5).astype(int), sample_weight=np.ones(n) * 2)  # frequencies
    assert freq.method == "exact mid-p"


def _frame(n, seed, signal=0.0):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    frame = pd.DataFrame({"y": y, "s": np.round(np.clip(rng.random(n) + signal * y, 0, 1), 5),
                          "w": rng.exponential(size=n), "c": rng.integers(0, 3, n)})
    frame["p"] = np.where(rng.random(n) < signal, frame.c, rng.integers(0, 3, n))
    frame["yl"] = np.where(rng.random(n) < signal, frame.y, rng.integers(0, 2, n))
    return frame


CASES = {"binary-scores": (dict(y_true="y", y_score="s"), ("y", "s")),
         "binary-labels": (dict(y_true="y", y_pred="yl"), ("y", "yl")),
         "multiclass-labels": (dict(y_true="c", y_pred="p"), ("c", "p"))}


def _reports(frame, engine, task, spark=None, **options):
    import warnings

    cols, arrays = CASES[task]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        eng = evaluate(data=frame if spark is None else spark.createDataFrame(frame), sample_weight="w", engine=engine,
                              n_resamples=300, mc_samples=256, random_state=7, session=spark, **cols, **options)
        mem = evaluate(*(frame[c].to_numpy() for c in arrays), sample_weight=frame["w"].to_numpy(),
                       n_resamples=300, mc_samples=256, random_state=7, **options)
    return eng, mem


@pytest.mark.parametrize("task", list(CASES))
def test_engines_give_the_memory_clt_pvalue(task, monkeypatch):
    """Weighted rows: DuckDB's p-values (the CLT of the cells of its scan) equal the memory
    report's beyond the row-draw budget (the CLT of the same cells) with the same seed —
    3,000 rows, more than 1,000 distinct scores (200 bins)."""
    pytest.importorskip("duckdb")
    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 3000)
    eng, mem = _reports(_frame(3000, 8, signal=0.05), "duckdb", task)
    assert eng.metrics.keys() == mem.metrics.keys()
    for name, m in mem.metrics.items():
        e = eng[name]
        assert m.pvalue is not None and "asymptotic" in m.pvalue_method, name
        assert e.pvalue == pytest.approx(m.pvalue, rel=1e-12) and e.pvalue_method == m.pvalue_method, name
    assert 0.001 < max(m.pvalue for m in mem.metrics.values())  # not every row at the smallest p-value


def test_spark_gives_the_memory_clt_pvalue(spark, monkeypatch):
    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 1000)
    eng, mem = _reports(_frame(1000, 9, signal=0.05), "spark", "binary-scores", spark=spark)
    for name, m in mem.metrics.items():
        assert eng[name].pvalue == pytest.approx(m.pvalue, rel=1e-12) and "asymptotic" in m.pvalue_method, name


QUICK_SEED = 20150


@pytest.mark.parametrize("kind, n", [("labels", 200), ("scores", 200), ("labels", 20_000), ("scores", 20_000)])
def test_type_one_error_quick(kind, n):
    """300 null replicates (labels independent of the predictions / scores, exponential
    weights), level 0.05: the CLT's rejection rate within [0.02, 0.09]."""
    seed = QUICK_SEED + n + (kind == "scores")
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(300):
        y, w, s = (rng.random(n) < 0.3).astype(int), rng.exponential(size=n), rng.random(n)
        if kind == "labels":
            cells = PermutationCells.from_codes(s < 0.4, y, w, keys=[False, True], classes=[0, 1])
            p = clt_tests_of_labels(cells, ("f1",), pos=1, n_resamples=300, random_state=rng)["f1"].pvalue
        else:
            cells = PermutationCells.of_scores(y == 1, s, w)
            p = clt_tests_of_scores(cells, ("roc_auc",), max_bins=200, n_resamples=300, random_state=rng)[
                "roc_auc"].pvalue
        rejected += p <= 0.05
    assert 0.02 <= rejected / 300 <= 0.09, rejected / 300


def test_squared_error_sums_merge_and_equal_the_rows():
    """Weighted regression: the squared error's CLT from SquaredErrorSums (what an engine sums)
    equals squared_loss_test on the rows; chunks summed around other shifts merge exactly."""
    from beyondchance.inference.permutation.rows import SquaredErrorSums, squared_loss_test

    rng = np.random.default_rng(10)
    n = 500
    y = 1e3 + rng.normal(size=n)
    pred, w = 1e3 + 0.2 * (y - 1e3) + rng.normal(size=n), rng.exponential(size=n)
    whole = SquaredErrorSums.of_rows(y, pred, w)
    parts = [SquaredErrorSums.of_rows(y[i::3], pred[i::3], w[i::3], shift=1e3 + i) for i in range(3)]
    merged = parts[1] + parts[0] + parts[2]
    ref = squared_loss_test(y, pred, w)
    for t in (whole.test(), merged.test()):
        assert t.pvalue == pytest.approx(ref.pvalue, rel=1e-8) and t.statistic == pytest.approx(ref.statistic, rel=1e-12)
        assert t.null_std == pytest.approx(ref.null_std, rel=1e-8)


def test_ratio_measures_get_no_pvalue_where_the_normal_tables_are_no_tables():
    """1,000 rows weighted by their score, one cell per distinct score: the normal tables' weights
    fall below 0, and their average precision averaged 4.7 by chance (p 0.051 where the rows'
    test gives 0.0005); such a measure now gets no p-value and says why, the linear ones keep
    theirs. Pooled into cells of 500 rows the average precision is valid again."""
    rng = np.random.default_rng(20261127)
    print("seed 20261127")
    y = (rng.random(1000) < 0.03).astype(int)  # as the example's credit defaults: 3% positives, scored higher
    s = np.clip(rng.beta(1, 12, 1000) + 0.5 * y * rng.random(1000), 0, 1).round(6)
    cells = PermutationCells.of_scores(y == 1, s, s)
    r = clt_tests_of_scores(cells, ("pr_auc", "lift_auc", "roc_auc"), n_resamples=200)
    for name in ("pr_auc", "lift_auc"):  # the lift: judged by the average precision's draws of the same tables
        assert np.isnan(r[name].pvalue) and r[name].method.startswith("permutation CLT not valid here"), r
    assert r["lift_auc"].statistic > 1 and clt_tests_of_scores(cells, ("lift_auc",), n_resamples=200)[
        "lift_auc"].method == r["lift_auc"].method
    assert 0 < r["roc_auc"].pvalue < 1 and r["roc_auc"].method == CLT_METHOD
    pooled = clt_tests_of_scores(cells, ("pr_auc",), max_bins=2, n_resamples=200)["pr_auc"]
    assert pooled.method == CLT_METHOD and 0 <= pooled.null_mean <= 1
