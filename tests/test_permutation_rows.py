"""Permutation tests on the rows (weighted data, class probabilities, regression) and the
binned losses of many distinct scores: the statistics equal scikit-learn's, the mechanics
equal the exact tests, the moments of the permutation CLT are exact, type-I error (quick
versions of benchmarks/sim_tests.py), and the report's rows."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm

import beyondchance as bc
from beyondchance.measures.losses import PinballLoss
from beyondchance.inference.permutation import rows as rows
from beyondchance.measures.curves import threshold_counts
from beyondchance.inference.permutation.permutation_test import permutation_tests_of_scores
from beyondchance.inference.permutation.rows import (
    binary_statistic,
    multiclass_statistic,
    permutation_draws,
    probabilities_statistic,
    regression_statistic,
    row_permutation_tests,
    squared_loss_test,
    squared_loss_test_of_moments,
)
from beyondchance.report import evaluate


def observed(statistic, n):
    return {k: float(v[0]) for k, v in statistic(np.arange(n)[None]).items()}


def test_statistics_equal_sklearn_with_weights():
    rng = np.random.default_rng(0)
    n = 120
    y, w = rng.integers(0, 2, n), rng.random(n)
    s = np.round(rng.random(n), 2)  # ties
    got = observed(binary_statistic(y == 1, w, pred=s >= 0.5, scores=s,
                                    names=("f1", "mcc", "accuracy", "roc_auc", "pr_auc", "log_loss", "brier")), n)
    want = {"f1": skm.f1_score(y, s >= .5, sample_weight=w), "mcc": skm.matthews_corrcoef(y, s >= .5, sample_weight=w),
            "accuracy": skm.accuracy_score(y, s >= .5, sample_weight=w),
            "roc_auc": skm.roc_auc_score(y, s, sample_weight=w),
            "pr_auc": skm.average_precision_score(y, s, sample_weight=w),
            "log_loss": skm.log_loss(y, s, sample_weight=w), "brier": skm.brier_score_loss(y, s, sample_weight=w)}
    for k, v in want.items():
        assert abs(got[k] - v) < 1e-12, k
    c = rng.integers(0, 3, n)
    P = rng.dirichlet(np.ones(3), n)
    got = observed(multiclass_statistic(c, P.argmax(1), 3, w, ("f1", "mcc")), n)
    assert abs(got["f1"] - skm.f1_score(c, P.argmax(1), average="macro", sample_weight=w)) < 1e-12
    assert abs(got["mcc"] - skm.matthews_corrcoef(c, P.argmax(1), sample_weight=w)) < 1e-12
    got = observed(probabilities_statistic(c, P, w, ("roc_auc", "roc_auc_weighted", "pr_auc", "log_loss")), n)
    assert abs(got["roc_auc"] - skm.roc_auc_score(c, P, multi_class="ovr", sample_weight=w)) < 1e-12
    onehot = np.eye(3)[c]
    ap = [skm.average_precision_score(onehot[:, j], P[:, j], sample_weight=w) for j in range(3)]
    assert abs(got["pr_auc"] - np.mean(ap)) < 1e-12
    prev = np.array([w[c == j].sum() for j in range(3)]) / w.sum()
    auc = [skm.roc_auc_score(onehot[:, j], P[:, j], sample_weight=w) for j in range(3)]
    assert abs(got["roc_auc_weighted"] - np.dot(auc, prev)) < 1e-12
    assert abs(got["log_loss"] - skm.log_loss(c, P, sample_weight=w)) < 1e-12
    yr = rng.normal(size=n)
    pr = yr + rng.normal(size=n)
    got = observed(regression_statistic(yr, pr, w, {"mae": "absolute", "pin": PinballLoss(0.8)}), n)
    assert abs(got["mae"] - skm.mean_absolute_error(yr, pr, sample_weight=w)) < 1e-12
    assert abs(got["pin"] - skm.mean_pinball_loss(yr, pr, alpha=0.8, sample_weight=w)) < 1e-12


def test_unit_weights_match_the_exact_test():
    """With weight 1 on every row the Monte Carlo over row permutations estimates the
    exact permutation p-value of the statistics (within its error)."""
    rng = np.random.default_rng(1)
    y = np.r_[np.ones(5, int), np.zeros(7, int)]
    s = np.round(rng.random(12) + 0.2 * y, 1)
    pred = s >= 0.6
    stat = binary_statistic(y == 1, np.ones(12), pred=pred, scores=np.clip(s, 0, 1), names=("f1", "roc_auc", "brier"))
    mc = row_permutation_tests(stat, 12, {"f1": True, "roc_auc": True, "brier": False}, n_resamples=4000,
                               random_state=2)
    for name, arr in (("f1", pred.astype(int)), ("roc_auc", s), ("brier", np.clip(s, 0, 1))):
        exact = bc.permutation_test(name, y, arr)
        assert abs(mc[name].statistic - exact.statistic) < 1e-12
        assert abs(mc[name].pvalue - exact.pvalue_conservative) < 4 * mc[name].pvalue_standard_error + 1 / 4001


def test_squared_loss_moments_equal_enumeration():
    """E T and Var T of the permutation CLT equal the moments over all 7! permutations."""
    rng = np.random.default_rng(2)
    y, p, w = rng.normal(size=7), rng.normal(size=7), rng.random(7)
    sums = np.array([np.dot(w, (y - p[list(q)]) ** 2) for q in itertools.permutations(range(7))])
    r = squared_loss_test(y, p, w)
    assert abs(r.null_mean * w.sum() - sums.mean()) < 1e-9
    assert abs(r.null_std * w.sum() - sums.std()) < 1e-9
    assert abs(r.statistic - np.average((y - p) ** 2, weights=w)) < 1e-12
    # unweighted: Z = sqrt(n - 1) * Pearson's r (Wald-Wolfowitz)
    y, p = rng.normal(size=50), rng.normal(size=50)
    z = np.sqrt(49) * np.corrcoef(y, p)[0, 1]
    from scipy.stats import norm

    assert abs(squared_loss_test(y, p).pvalue - norm.sf(z)) < 1e-12
    # from the statistics (every engine): the moments of y and of the predictions, the squared-error sum
    from beyondchance.statistics.values import Moments

    t = squared_loss_test_of_moments(50, Moments.from_values(y), Moments.from_values(p), np.sum((y - p) ** 2))
    r0 = squared_loss_test(y, p)
    assert abs(t.pvalue - r0.pvalue) < 1e-9 and abs(t.null_mean - r0.null_mean) < 1e-9
    assert abs(t.null_std - r0.null_std) < 1e-9
    # constant predictions: every permutation gives the same loss
    assert squared_loss_test(y, np.full(50, 0.3)).pvalue == 1.0
    assert squared_loss_test_of_moments(50, Moments.from_values(y), Moments.from_values(np.full(50, 0.3)),
                                        np.sum((y - 0.3) ** 2)).pvalue == 1.0


def test_draw_budget():
    assert permutation_draws(10_000, 2000) == 2000
    with pytest.raises(bc.InvalidInputError, match="budget"):
        permutation_draws(10_000_000, 2000)


def _rate(pvalues):
    return float(np.mean(np.asarray(pvalues) <= 0.05))


# --- type-I error, 300 replicates (the full study: benchmarks/sim_tests.py) ------------


def test_type_one_error_weighted_scores_and_labels():
    rng = np.random.default_rng(40)
    p = {"roc_auc": [], "f1": [], "log_loss": []}
    for _ in range(300):
        n = 80
        y, s, w = (rng.random(n) < 0.3).astype(int), rng.random(n), rng.exponential(size=n)
        y[0], y[1] = 0, 1
        stat = binary_statistic(y == 1, w, pred=s >= 0.5, scores=s, names=tuple(p))
        r = row_permutation_tests(stat, n, {"roc_auc": True, "f1": True, "log_loss": False}, n_resamples=200,
                                  random_state=rng)
        for k in p:
            p[k].append(r[k].pvalue)
    for k, v in p.items():
        assert 0.02 <= _rate(v) <= 0.09, (k, _rate(v))


def test_type_one_error_probabilities_and_multiclass_weighted():
    rng = np.random.default_rng(41)
    p = {"roc_auc": [], "log_loss": [], "f1": []}
    for _ in range(300):
        n = 60
        c, P, w = rng.integers(0, 3, n), rng.dirichlet(np.ones(3), n), rng.exponential(size=n)
        c[:3] = [0, 1, 2]
        scoring = probabilities_statistic(c, P, w, ("roc_auc", "log_loss"))
        labeling = multiclass_statistic(c, P.argmax(1), 3, w, ("f1",))
        r = row_permutation_tests(lambda idx: {**scoring(idx), **labeling(idx)}, n,
                                  {"roc_auc": True, "log_loss": False, "f1": True}, n_resamples=200, random_state=rng)
        for k in p:
            p[k].append(r[k].pvalue)
    for k, v in p.items():
        assert 0.02 <= _rate(v) <= 0.09, (k, _rate(v))


def test_type_one_error_regression():
    rng = np.random.default_rng(42)
    clt, mae = [], []
    for _ in range(300):
        n = 100
        y, pred = rng.exponential(size=n), rng.normal(size=n)  # skewed targets, independent predictions
        clt.append(squared_loss_test(y, pred).pvalue)
        r = row_permutation_tests(regression_statistic(y, pred, None, {"mae": "absolute"}), n, {"mae": False},
                                  n_resamples=200, random_state=rng)
        mae.append(r["mae"].pvalue)
    assert 0.02 <= _rate(clt) <= 0.09, _rate(clt)
    assert 0.02 <= _rate(mae) <= 0.09, _rate(mae)


def test_type_one_error_binned_losses():
    rng = np.random.default_rng(43)
    p = []
    for _ in range(300):
        n = 400
        y, s = (rng.random(n) < 0.3).astype(int), rng.random(n)
        r = permutation_tests_of_scores(("brier",), threshold_counts(y, s), n_resamples=200, random_state=rng,
                                        max_bins=20)
        p.append(r["brier"].pvalue)
    assert 0.02 <= _rate(p) <= 0.09, _rate(p)


# --- the report -------------------------------------------------------------------------


def test_report_rows_have_p_values_in_memory():
    rng = np.random.default_rng(5)
    n = 200
    c = rng.integers(0, 3, n)
    P = rng.dirichlet(np.ones(3), n)
    P[np.arange(n), c] += 0.5
    P /= P.sum(1, keepdims=True)
    r = bc.evaluate(c, P, n_resamples=300)
    for name in ("roc_auc", "roc_auc_weighted", "pr_auc", "log_loss", "brier"):
        assert r[name].pvalue is not None and r[name].pvalue < 0.01 and "300 Monte Carlo" in r[name].pvalue_method
        t = row_permutation_tests(probabilities_statistic(c, P, None, (name,)), n, {name: name not in (
            "log_loss", "brier")}, n_resamples=300, random_state=0)[name]
        assert abs(t.statistic - r[name].value) < 1e-12 and t.pvalue == r[name].pvalue
    y = rng.normal(size=n)
    reg = bc.evaluate(y, 0.5 * y + rng.normal(size=n), n_resamples=300, sample_weight=rng.random(n))
    assert reg["mse"].pvalue == reg["r2"].pvalue < 1e-3 and "asymptotic" in reg["mse"].pvalue_method
    assert reg["mae"].pvalue == reg["d2_absolute_error"].pvalue
    assert reg.to_dict()["metrics"]["r2"]["pvalue"] == reg["r2"].pvalue


def test_engine_rows_say_why_there_is_no_p_value(monkeypatch):
    """Beyond the row-draw budget an engine fetches no rows: the rows whose test permutes them
    say the size limit (within it they have memory's p-value: tests/test_engine_row_tests.py)."""
    pytest.importorskip("duckdb")

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 200)  # fewer than MIN_DRAWS permutations of 200 rows
    rng = np.random.default_rng(6)
    n = 200
    frame = pd.DataFrame({"y": rng.normal(size=n), "p": rng.normal(size=n)})
    r = evaluate(data=frame, y_true="y", y_score="p", engine="duckdb", n_resamples=200, task="regression")
    mem = bc.evaluate(frame["y"], frame["p"], n_resamples=200)
    for name in ("mse", "r2"):  # unweighted: the squared error's test from the moments, as in memory
        assert abs(r[name].pvalue - mem[name].pvalue) < 1e-9 and "asymptotic" in r[name].pvalue_method
    for name in ("mae", "d2_absolute_error"):  # the CLT of the loss sum from the histograms, as in memory
        assert r[name].pvalue == pytest.approx(mem[name].pvalue, rel=1e-9) and "CLT of the loss sum" in \
            r[name].pvalue_method
        assert r[name].pvalue_method == mem[name].pvalue_method
    frame["w"] = rng.exponential(size=n)
    r = evaluate(data=frame, y_true="y", y_score="p", sample_weight="w", engine="duckdb", n_resamples=200,
                        task="regression")
    mem = bc.evaluate(frame["y"], frame["p"], sample_weight=frame["w"], n_resamples=200)
    for name in ("mse", "r2"):  # weighted: the squared error's CLT from the engine's sums (SquaredErrorSums)
        assert r[name].pvalue == pytest.approx(mem[name].pvalue, rel=1e-9) and "asymptotic" in r[name].pvalue_method
    assert r["mae"].pvalue == pytest.approx(mem["mae"].pvalue, rel=1e-9)  # weighted: the same
    P = rng.dirichlet(np.ones(3), n)
    c = pd.DataFrame({"y": rng.integers(0, 3, n), **{f"p{j}": P[:, j] for j in range(3)}})
    r = evaluate(data=c, y_true="y", y_score=["p0", "p1", "p2"], engine="duckdb", n_resamples=200)
    assert r["f1"].pvalue is not None  # the labeling metrics from the statistics
    assert "CLT of the one-vs-rest AUC" in r["roc_auc"].pvalue_method  # the AUCs' CLT (tests/test_permutation_auc.py)
    assert "one-vs-rest tables" in r["pr_auc"].pvalue_method  # the APs' CLT (tests/test_permutation_ap.py)


def test_weighted_report_rows_test_the_rows_own_values():
    """Every row of weighted binary-score, binary-label (given with the scores) and
    multi-class label reports has a Monte Carlo p-value whose statistic is the row's value."""
    rng = np.random.default_rng(7)
    n = 150
    y, w = rng.integers(0, 2, n), rng.exponential(size=n)
    s = np.clip(rng.random(n) * 0.8 + 0.2 * y, 0, 1)
    given = (rng.random(n) < 0.4).astype(int)
    r = bc.evaluate(y, s, y_pred=given, sample_weight=w, n_resamples=200)
    stat = binary_statistic(y == 1, w, pred=given == 1, scores=s, names=tuple(r.metrics))
    values = observed(stat, n)
    for name, m in r.metrics.items():
        assert m.pvalue is not None and "200 Monte Carlo" in m.pvalue_method, name
        assert abs(values[name] - m.value) < 1e-9, name
    c, pred = rng.integers(0, 3, n), rng.integers(0, 3, n)
    r = bc.evaluate(c, pred, sample_weight=w, n_resamples=200)
    values = observed(multiclass_statistic(c, pred, 3, w, tuple(r.metrics)), n)
    for name, m in r.metrics.items():
        assert m.pvalue is not None and abs(values[name] - m.value) < 1e-9, name


def test_beyond_the_draw_budget_the_rows_say_why(monkeypatch):
    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 150)  # 100 draws of 150 rows: below MIN_DRAWS
    rng = np.random.default_rng(8)
    y = rng.normal(size=150)
    r = bc.evaluate(y, y + rng.normal(size=150), n_resamples=300)
    assert r["mse"].pvalue is not None and r["r2"].pvalue == r["mse"].pvalue  # no draws: the moments
    for name in ("mae", "d2_absolute_error"):  # the CLT of the loss sum (tests/test_permutation_absolute.py)
        assert r[name].pvalue < 1e-6 and "CLT of the loss sum" in r[name].pvalue_method
    # weighted labels and scores: the permutation CLT of their cells (tests/test_permutation_clt.py)
    w = bc.evaluate(rng.integers(0, 2, 150), rng.random(150), sample_weight=rng.random(150), n_resamples=300)
    assert all(m.pvalue is not None and "asymptotic" in m.pvalue_method for m in w.metrics.values())
    c = rng.integers(0, 3, 150)
    P = rng.dirichlet(np.ones(3), 150)
    w = bc.evaluate(c, P, sample_weight=rng.random(150), n_resamples=300)
    for name, m in w.metrics.items():  # the arg-max labels have cells, the losses and ROC AUCs their sums, the APs
        if name in bc.measures.METRICS or name in ("log_loss", "brier", "roc_auc", "roc_auc_weighted", "pr_auc",
                                          "pr_auc_weighted"):  # the one-vs-rest tables (test_permutation_ap.py)
            assert m.pvalue is not None and "asymptotic" in m.pvalue_method, name
        else:
            assert m.pvalue is None and "budget" in m.pvalue_method, name
    u = bc.evaluate(c, P, n_resamples=300)  # unweighted: the losses', ROC AUCs' and APs' CLTs
    assert "CLT of the loss" in u["log_loss"].pvalue_method and "CLT of the loss" in u["brier"].pvalue_method
    assert "CLT of the one-vs-rest AUC" in u["roc_auc"].pvalue_method
    assert u["pr_auc"].pvalue is not None and "one-vs-rest tables" in u["pr_auc"].pvalue_method


def test_weighted_probability_report_rows_test_their_own_values():
    rng = np.random.default_rng(9)
    n = 120
    c, w = rng.integers(0, 3, n), rng.exponential(size=n)
    P = rng.dirichlet(np.ones(3), n)
    r = bc.evaluate(c, P, sample_weight=w, n_resamples=200)
    names = tuple(r.metrics)
    values = {**observed(multiclass_statistic(c, P.argmax(1), 3, w, names), n),
              **observed(probabilities_statistic(c, P, w, names), n)}
    for name, m in r.metrics.items():
        assert m.pvalue is not None and "200 Monte Carlo" in m.pvalue_method, name
        assert abs(values[name] - m.value) < 1e-9, name


def test_squared_loss_test_is_shift_invariant():
    """A common offset of y and the predictions (1e6) changes nothing: no cancellation."""
    rng = np.random.default_rng(11)
    y, w = rng.normal(size=80), rng.exponential(size=80)
    p = 0.3 * y + rng.normal(size=80)
    a, b = squared_loss_test(y, p, w), squared_loss_test(y + 1e6, p + 1e6, w)
    assert abs(a.pvalue - b.pvalue) < 1e-9 and abs(a.null_std - b.null_std) < 1e-9 * a.null_std
