"""The permutation CLT of the absolute-error and pinball loss sums (permutation_absolute):
exact moments, agreement with the row Monte Carlo, the report beyond the row budget in
memory and on DuckDB/Spark, and a quick type-I check."""

from __future__ import annotations

import itertools
import warnings

import numpy as np
import pandas as pd
import pytest

import beyondchance as bc
from beyondchance.inference.permutation import absolute_error as pa
from beyondchance.inference.permutation import rows as rows
from beyondchance.measures.losses import PinballLoss
from beyondchance.inference.permutation.absolute_error import AbsoluteErrorHistograms, absolute_loss_moments, absolute_loss_test
from beyondchance.report import evaluate

OPTIONS = dict(n_resamples=300, mc_samples=256, random_state=5)


def _loss(u, alpha):
    a, b = pa.loss_weights(alpha)
    return np.where(u >= 0, a * u, -b * u)


def _enumerated(y, f, w, alpha):
    """Mean and variance of T over every permutation of the (target, weight) rows."""
    vals = np.array([np.dot(w[list(p)], _loss(y[list(p)] - f, alpha)) for p in itertools.permutations(range(len(y)))])
    return vals.mean(), vals.var()


@pytest.mark.parametrize("n", [2, 3, 5, 7])
@pytest.mark.parametrize("alpha", [None, 0.5, 0.1, 0.8])
@pytest.mark.parametrize("weighted", [True, False])
def test_moments_equal_the_enumeration(n, alpha, weighted):
    """E T and Var T of Hoeffding's formula equal those of all n! permutations — ties in y and
    in f, a zero weight, τ ≠ 0.5."""
    rng = np.random.default_rng(100 * n + (0 if alpha is None else int(10 * alpha)) + weighted)
    y = rng.integers(0, 4, n).astype(float) * 1.3 + 100.0  # ties, an offset
    f = rng.integers(0, 3, n).astype(float) + 101.0
    w = rng.exponential(size=n) if weighted else np.ones(n)
    if weighted:
        w[0] = 0.0
    mean, var = _enumerated(y, f, w, alpha)
    m, v = AbsoluteErrorHistograms.of_rows(y, f, w if weighted else None).moments(alpha)
    assert m == pytest.approx(mean, rel=1e-12)
    assert v == pytest.approx(var, rel=1e-9, abs=1e-9 * mean ** 2)


def test_histograms_need_not_be_sorted_nor_distinct():
    rng = np.random.default_rng(1)
    y, f, w = rng.integers(0, 5, 60).astype(float), rng.normal(size=60).round(1), rng.exponential(size=60)
    h = AbsoluteErrorHistograms.of_rows(y, f, w)
    order = rng.permutation(60)  # one "histogram" row per data row, shuffled
    for alpha in (None, 0.3):
        a = absolute_loss_moments(y[order], w[order], (w * w)[order], f, np.ones(60), alpha=alpha)
        assert a == pytest.approx(h.moments(alpha), rel=1e-10)


def test_degenerate_cases_give_p_one():
    """Constant predictions; unweighted targets all above every prediction (T = Σy − Σf for
    every permutation): the permutation law is a point, p = 1."""
    rng = np.random.default_rng(2)
    y = rng.lognormal(size=50)
    assert absolute_loss_test(y, np.full(50, 0.5)).pvalue == 1.0
    assert absolute_loss_test(y + 10, rng.random(50)).pvalue == 1.0
    assert absolute_loss_test(y + 10, rng.random(50), rng.exponential(size=50)).pvalue < 1.0  # weights move it
    with pytest.raises(bc.InvalidInputError):
        absolute_loss_test(y[:2], y[:2])
    with pytest.raises(bc.InvalidInputError):
        absolute_loss_test(y, y, alpha=1.0)


def test_unweighted_pinball_and_absolute_tests_coincide():
    """Unweighted, ρ_τ(u) = (|u| + (2τ − 1) u) / 2 and Σ u is the same for every permutation:
    the pinball test of any level is the absolute error's."""
    rng = np.random.default_rng(3)
    y, f = rng.lognormal(size=300), rng.normal(size=300)
    f = f + 0.05 * y
    assert absolute_loss_test(y, f, alpha=0.9).pvalue == pytest.approx(absolute_loss_test(y, f).pvalue, rel=1e-9)


@pytest.mark.parametrize("alpha, weighted", [(None, True), (0.9, True), (None, False)])
def test_pvalue_agrees_with_the_row_monte_carlo(alpha, weighted):
    """n = 2,000, 4,000 Monte Carlo permutations of the rows: the CLT p-value within Monte Carlo
    error (4 s.e.) plus 0.01 of the Monte Carlo one; the null mean and sd within 5%."""
    n = 2000
    rng = np.random.default_rng(11 + weighted + (0 if alpha is None else 1))
    y = rng.lognormal(size=n)
    f = 0.012 * np.log(y) + rng.normal(1.0, 1.0, size=n)  # a weak signal: p in (0.01, 0.5)
    w = rng.exponential(size=n) if weighted else None
    loss = "absolute" if alpha is None else PinballLoss(alpha)
    mc = rows.row_permutation_tests(rows.regression_statistic(y, f, w, {"l": loss}), n, {"l": False},
                                    n_resamples=4000, random_state=7)["l"]
    clt = absolute_loss_test(y, f, w, alpha=alpha)
    print(f"alpha={alpha} weighted={weighted}: CLT p {clt.pvalue:.4f}, Monte Carlo p {mc.pvalue:.4f} "
          f"(s.e. {mc.pvalue_standard_error:.4f})")
    assert 0.01 < mc.pvalue < 0.6
    assert abs(clt.pvalue - mc.pvalue) < 4 * mc.pvalue_standard_error + 0.01
    assert clt.statistic == pytest.approx(mc.statistic, rel=1e-12)
    assert clt.null_mean == pytest.approx(mc.null_mean, rel=0.01)
    assert clt.null_std == pytest.approx(mc.null_std, rel=0.05)


QUICK_SEED = 20261


@pytest.mark.parametrize("case", ["mae", "pinball weighted"])
def test_type_one_error_quick(case):
    """300 null replicates (log-normal targets independent of normal predictions, n = 200;
    exponential weights for the weighted case), level 0.05: rejection rate in [0.02, 0.09]."""
    seed = QUICK_SEED + ("mae", "pinball weighted").index(case)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(300):
        y, f = rng.lognormal(size=200), rng.normal(1.0, 1.0, size=200)
        w = rng.exponential(size=200) if "weighted" in case else None
        rejected += absolute_loss_test(y, f, w, alpha=0.9 if "pinball" in case else None).pvalue <= 0.05
    print(f"{case}: rejection rate {rejected / 300:.4f} of 300 (seed {seed})")
    assert 0.02 <= rejected / 300 <= 0.09, rejected / 300


def _frame(n, seed, signal=0.05):
    rng = np.random.default_rng(seed)
    y = rng.lognormal(size=n)
    return pd.DataFrame({"y": y, "f": signal * y + rng.normal(size=n), "w": rng.exponential(size=n)})


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


REGRESSION_ROWS = ("mae", "d2_absolute_error", "pinball_loss", "d2_pinball_score")


@pytest.mark.parametrize("weighted", [True, False])
def test_memory_report_beyond_the_budget(weighted, monkeypatch):
    """Beyond ROW_BUDGET the report's MAE, pinball and D² rows get the CLT (no Monte Carlo)."""
    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 500)
    frame = _frame(500, 1)
    w = frame["w"].to_numpy() if weighted else None
    r = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["f"].to_numpy(), sample_weight=w, quantile=0.8, **OPTIONS)
    y, f = frame["y"].to_numpy(), frame["f"].to_numpy()
    for nm in REGRESSION_ROWS:
        ref = absolute_loss_test(y, f, w, alpha=None if "absolute" in nm or nm == "mae" else 0.8)
        assert r[nm].pvalue == pytest.approx(ref.pvalue, rel=1e-12), nm
        assert "CLT of the loss sum" in r[nm].pvalue_method and "asymptotic" in r[nm].pvalue_method, nm


@pytest.mark.parametrize("weighted", [True, False])
def test_duckdb_gives_the_memory_pvalue_beyond_the_budget(weighted, monkeypatch, tmp_path):
    """DuckDB (a CSV file) beyond the budget: the histograms from GROUP BY y / GROUP BY f give
    memory's p-value; the memory engine too."""
    pytest.importorskip("duckdb")

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 600)
    frame = _frame(600, 2)
    frame["f"] = frame["f"].round(2)  # ties among the predictions
    frame.to_csv(tmp_path / "r.csv", index=False)
    w = frame["w"].to_numpy() if weighted else None
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["f"].to_numpy(), sample_weight=w, quantile=0.2, **OPTIONS)
    for engine, src in (("duckdb", str(tmp_path / "r.csv")), ("memory", frame)):
        eng = _quiet(evaluate, data=src, y_true="y", y_pred="f", engine=engine, quantile=0.2,
                     sample_weight="w" if weighted else None, **OPTIONS)
        for nm in (*REGRESSION_ROWS, "mse", "r2"):
            assert mem[nm].pvalue is not None, nm
            assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), (engine, nm)
            assert eng[nm].pvalue_method == mem[nm].pvalue_method, (engine, nm)
    # only the MAE asked for (no MSE row)
    eng = _quiet(evaluate, data=str(tmp_path / "r.csv"), y_true="y", y_pred="f", engine="duckdb",
                 sample_weight="w" if weighted else None, metrics=["mae"], **OPTIONS)
    assert eng["mae"].pvalue == pytest.approx(mem["mae"].pvalue, rel=1e-9)


def test_duckdb_says_why_when_the_histograms_are_too_large(monkeypatch):
    pytest.importorskip("duckdb")

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 400)
    monkeypatch.setattr(pa, "MAX_HISTOGRAM_VALUES", 100)
    frame = _frame(400, 3)
    for metrics in (None, ["mae", "pinball_loss"]):
        eng = _quiet(evaluate, data=frame, y_true="y", y_pred="f", engine="duckdb", sample_weight="w", quantile=0.5,
                     metrics=metrics, **OPTIONS)
        for nm in ("mae", "pinball_loss"):
            assert eng[nm].pvalue is None
            assert "exceed the 100 brought back" in eng[nm].pvalue_method, eng[nm].pvalue_method
        if metrics is None:
            assert eng["mse"].pvalue is not None


def test_spark_gives_the_memory_pvalue_beyond_the_budget(spark, monkeypatch):

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 400)
    frame = _frame(400, 4)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["f"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                 quantile=0.9, **OPTIONS)
    eng = _quiet(evaluate, data=spark.createDataFrame(frame), y_true="y", y_pred="f", engine="spark", session=spark,
                 sample_weight="w", quantile=0.9, **OPTIONS)
    for nm in REGRESSION_ROWS:
        assert "CLT of the loss sum" in mem[nm].pvalue_method
        assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), nm


def test_compare_by_groups_on_duckdb_give_the_memory_pvalues(monkeypatch, tmp_path):
    """compare --by on DuckDB beyond the budget: each group's histograms from its rows, the
    memory engine's p-values."""
    pytest.importorskip("duckdb")
    import json

    from click.testing import CliRunner

    from beyondchance.cli import main

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 300)
    frame = _frame(900, 5, signal=0.1)
    frame["g"] = np.where(np.arange(900) % 3 == 0, "a", "b")
    frame.to_parquet(tmp_path / "by.parquet")
    out = {}
    for engine in ("memory", "duckdb"):
        res = CliRunner().invoke(main, ["compare", str(tmp_path / "by.parquet"), "--by", "g", "--y-true", "y",
                                        "--y-pred", "f", "--weight", "w", "--n-resamples", "300", "--mc-samples",
                                        "256", "--format", "json", "--engine", engine])
        assert res.exit_code == 0, res.output[-2000:]
        out[engine] = [s["metrics"]["mae"] for s in json.loads(res.output)["test_sets"]]
    assert len(out["duckdb"]) == 2
    for m, e in zip(out["memory"], out["duckdb"]):
        assert "CLT of the loss sum" in e["pvalue_method"] and e["pvalue_method"] == m["pvalue_method"]
        assert e["pvalue"] == pytest.approx(m["pvalue"], rel=1e-9)
