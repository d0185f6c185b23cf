"""The row permutation tests of an engine's report: within the row-draw budget the engine
fetches the rows the test needs (report._engine_rows, engines.sql_rows) and the p-value is
memory's with the same seed; beyond it, the weighted cells' CLT or the size limit."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pandas as pd
import pytest

import beyondchance as bc
from beyondchance.inference.permutation import rows as rows
from beyondchance.report import evaluate

pytest.importorskip("duckdb")

FETCHED = "rows fetched from {} for the permutation test"
OPTIONS = dict(n_resamples=300, mc_samples=256, random_state=5)


def _probabilities(n, seed, signal=0.03):
    rng = np.random.default_rng(seed)
    c = rng.integers(0, 3, n)
    P = rng.dirichlet(np.ones(3), n)
    P[np.arange(n), c] += signal
    P /= P.sum(1, keepdims=True)
    return pd.DataFrame({"y": c, **{f"p{j}": P[:, j] for j in range(3)}, "w": rng.exponential(size=n)})


def _regression(n, seed):
    rng = np.random.default_rng(seed)
    y = rng.normal(size=n)
    return pd.DataFrame({"y": y, "f": 0.1 * y + rng.normal(size=n), "w": rng.lognormal(size=n)})


def _binary(n, seed, signal=0.05):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.round(np.clip(rng.random(n) * 0.9 + signal * y, 0, 1), 3)
    return pd.DataFrame({"y": y, "s": s, "w": rng.exponential(size=n), "ln": rng.lognormal(size=n)})


def _same(eng, mem, engine="duckdb", fetched=None):
    """Every row's p-value is memory's (to rounding); the rows of the fetched rows' tests say so."""
    assert eng.metrics.keys() == mem.metrics.keys()
    said = []
    for name, m in mem.metrics.items():
        e = eng[name]
        assert m.pvalue is not None, name
        assert e.pvalue == pytest.approx(m.pvalue, rel=1e-12, abs=0), (name, e.pvalue, m.pvalue, e.pvalue_method)
        if e.pvalue_method != m.pvalue_method:
            assert e.pvalue_method.startswith(m.pvalue_method + "; the ") and \
                e.pvalue_method.endswith(FETCHED.format(engine)), (name, e.pvalue_method)
            said.append(name)
    assert said == [nm for nm in mem.metrics if fetched is None or nm in fetched], said
    assert 0.01 < max(m.pvalue for m in mem.metrics.values())  # not every row at the smallest p-value
    return said


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.mark.parametrize("weighted", [False, True])
def test_duckdb_probabilities_have_the_memory_pvalues(tmp_path, weighted):
    frame = _probabilities(250, 1)
    frame.to_parquet(tmp_path / "p.parquet")
    cols = ["p0", "p1", "p2"]
    eng = _quiet(evaluate, data=str(tmp_path / "p.parquet"), y_true="y", y_score=cols, engine="duckdb",
                 sample_weight="w" if weighted else None, **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame[cols].to_numpy(),
                 sample_weight=frame["w"].to_numpy() if weighted else None, **OPTIONS)
    said = _same(eng, mem, fetched=None if weighted else
                 ("log_loss", "brier", "roc_auc", "pr_auc", "roc_auc_weighted", "pr_auc_weighted"))
    assert "log_loss" in said and "Monte Carlo" in eng["log_loss"].pvalue_method


@pytest.mark.parametrize("weighted", [False, True])
def test_duckdb_regression_losses_have_the_memory_pvalues(tmp_path, weighted):
    frame = _regression(300, 2)
    frame.to_csv(tmp_path / "r.csv", index=False)
    w = frame["w"].to_numpy() if weighted else None
    eng = _quiet(evaluate, data=str(tmp_path / "r.csv"), y_true="y", y_pred="f", engine="duckdb", quantile=0.3,
                 sample_weight="w" if weighted else None, **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["f"].to_numpy(), sample_weight=w, quantile=0.3,
                 **OPTIONS)
    _same(eng, mem, fetched=("mae", "d2_absolute_error", "pinball_loss", "d2_pinball_score"))
    assert "asymptotic" in eng["mse"].pvalue_method  # the squared error: the CLT of the moments, as in memory
    # only the squared error asked for: nothing fetched, its test from the statistics
    eng = _quiet(evaluate, data=str(tmp_path / "r.csv"), y_true="y", y_pred="f", engine="duckdb",
                 sample_weight="w" if weighted else None, metrics=["mse"], **OPTIONS)
    assert eng["mse"].pvalue == pytest.approx(mem["mse"].pvalue, rel=1e-9) and "fetched" not in \
        eng["mse"].pvalue_method


def test_duckdb_weighted_binned_scores_have_the_memory_pvalues(tmp_path):
    """--score-bins: the statistics bin the scores, the permutation test of the fetched rows
    tests the rows' own scores — memory's p-values (of the unbinned measures)."""
    frame = _binary(300, 3)
    frame.to_parquet(tmp_path / "b.parquet")
    eng = _quiet(evaluate, data=str(tmp_path / "b.parquet"), y_true="y", y_score="s", sample_weight="w",
                 engine="duckdb", score_bins=20, **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["s"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                 **OPTIONS)
    _same(eng, mem)
    assert eng.score_statistic["kind"] == "binned"


@pytest.mark.parametrize("weight", ["w", "ln"])
def test_duckdb_weighted_average_precision_at_200_rows_is_the_row_test(weight):
    """The weighted AP at n = 200 (the CLT of the cells is conservative there): the engine runs
    memory's Monte Carlo permutations of the rows, not the CLT."""
    frame = _binary(200, 4)
    eng = _quiet(evaluate, data=frame, y_true="y", y_score="s", sample_weight=weight, engine="duckdb", **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["s"].to_numpy(), sample_weight=frame[weight].to_numpy(),
                 **OPTIONS)
    _same(eng, mem)
    assert "weighted cells" not in eng["pr_auc"].pvalue_method
    assert eng["pr_auc"].pvalue_method.startswith("permutation, 300 Monte Carlo draws")


def test_duckdb_weighted_labels_have_the_memory_pvalues():
    frame = _probabilities(300, 5)
    frame["p"] = np.where(np.random.default_rng(0).random(300) < 0.1, frame["y"], frame["p0"].rank() % 3)
    frame["p"] = frame["p"].astype(int)
    eng = _quiet(evaluate, data=frame, y_true="y", y_pred="p", sample_weight="w", engine="duckdb", **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["p"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                 **OPTIONS)
    assert eng.task == mem.task == "multiclass-labels"
    _same(eng, mem)


def test_beyond_the_budget_the_engine_keeps_the_clt_or_says_the_size_limit(monkeypatch):
    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 400)  # fewer than MIN_DRAWS permutations of 400 rows
    frame = _binary(400, 6)
    eng = _quiet(evaluate, data=frame, y_true="y", y_score="s", sample_weight="w", engine="duckdb", **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["s"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                 **OPTIONS)
    for name, m in mem.metrics.items():  # weighted labels and scores: the CLT of the same cells
        assert "weighted cells" in m.pvalue_method and eng[name].pvalue_method == m.pvalue_method, name
        assert eng[name].pvalue == pytest.approx(m.pvalue, rel=1e-12), name
    probs = _probabilities(400, 7)
    eng = _quiet(evaluate, data=probs, y_true="y", y_score=["p0", "p1", "p2"], engine="duckdb", **OPTIONS)
    assert eng["f1"].pvalue is not None  # the labeling metrics: from the statistics
    assert "CLT of the loss" in eng["log_loss"].pvalue_method  # the losses: from the engine's loss sums
    assert "CLT of the one-vs-rest AUC" in eng["roc_auc"].pvalue_method  # the ROC AUCs: the rank query
    assert "one-vs-rest tables" in eng["pr_auc"].pvalue_method  # the APs: the bins' crosstabs (permutation_ap)
    assert eng["pr_auc"].pvalue is not None


def test_a_duckdb_relation_is_fetched_in_its_scan_order():
    """A DuckDB relation (a runner on its own connection, as compute_statistics(connection=)
    makes one) has no row order: its rows are fetched in their scan order, and the method says so."""
    import duckdb

    from beyondchance.engines import get_runner
    from beyondchance.engines.duckdb import DuckDBRunner

    frame = _probabilities(200, 8)
    con = duckdb.connect()
    con.register("t", frame)
    src = get_runner("duckdb").scan_of(DuckDBRunner(con.sql("SELECT * FROM t"), connection=con))
    eng = _quiet(evaluate, data=src, y_true="y", y_score=["p0", "p1", "p2"], sample_weight="w", **OPTIONS)
    method = eng["log_loss"].pvalue_method
    assert 0 < eng["log_loss"].pvalue <= 1 and "Monte Carlo" in method and "no row order" in method, method
    con.close()


def test_a_duckdb_relation_without_its_connection_is_read():
    """evaluate_source of a relation (no connection= to give): its view in a new connection did
    not exist ("Table bc_source_… does not exist"); its rows are now read once, the values
    those of the same rows as a data frame."""
    import duckdb

    frame = _probabilities(300, 10)
    con = duckdb.connect()
    try:
        rel = con.from_df(frame)
        eng = _quiet(evaluate, data=rel, y_true="y", y_score=["p0", "p1", "p2"], sample_weight="w", **OPTIONS)
    finally:
        con.close()
    same = _quiet(evaluate, data=frame, y_true="y", y_score=["p0", "p1", "p2"], sample_weight="w", **OPTIONS)
    for name, m in same.metrics.items():
        assert eng[name].value == pytest.approx(m.value, rel=1e-12), name
        assert eng[name].pvalue is not None, name


def test_memory_engine_sources_get_the_row_tests():
    """evaluate(data=engine='memory') (the CLI's --engine memory --score-bins): the rows are
    taken from the columns, memory's p-values."""
    frame = _binary(200, 9)
    eng = _quiet(evaluate, data=frame, y_true="y", y_score="s", sample_weight="w", engine="memory", score_bins=20,
                 **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["s"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                 **OPTIONS)
    for name, m in mem.metrics.items():
        assert eng[name].pvalue == pytest.approx(m.pvalue, rel=1e-12), name
        assert eng[name].pvalue_method.endswith("rows taken from the columns for the permutation test"), name


def test_compare_by_groups_and_globs_fetch_each_sets_rows(tmp_path):
    """compare --by on DuckDB: each group's rows in their order in the file, memory's p-values;
    a glob of two CSV files read in sorted order."""
    from click.testing import CliRunner

    from beyondchance.cli import main

    frame = _binary(400, 10)
    frame["g"] = np.where(np.arange(400) % 3 == 0, "a", "b")
    frame.to_parquet(tmp_path / "by.parquet")
    args = ["--by", "g", "--y-true", "y", "--y-score", "s", "--weight", "w", "--n-resamples", "300",
            "--mc-samples", "256", "--format", "json"]
    out = {}
    for engine in ("memory", "duckdb"):
        result = _quiet(CliRunner().invoke, main, ["compare", str(tmp_path / "by.parquet"), *args, "--engine", engine])
        assert result.exit_code == 0, result.output
        out[engine] = json.loads(result.stdout)
    for mem, ddb in zip(out["memory"]["test_sets"], out["duckdb"]["test_sets"]):
        for name, m in mem["metrics"].items():
            d = ddb["metrics"][name]
            assert d["pvalue"] == pytest.approx(m["pvalue"], rel=1e-12), name
            assert d["pvalue_method"].endswith(FETCHED.format("duckdb")), d["pvalue_method"]
    frame.iloc[:150].to_csv(tmp_path / "part1.csv", index=False)
    frame.iloc[150:].to_csv(tmp_path / "part2.csv", index=False)
    eng = _quiet(evaluate, data=str(tmp_path / "part*.csv"), y_true="y", y_score="s", sample_weight="w",
                 engine="duckdb", **OPTIONS)
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame["s"].to_numpy(), sample_weight=frame["w"].to_numpy(),
                 **OPTIONS)
    _same(eng, mem)


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark_probabilities_have_the_memory_pvalues(spark, tmp_path):
    frame = _probabilities(200, 11)
    frame.to_parquet(tmp_path / "p.parquet")
    cols = ["p0", "p1", "p2"]
    mem = _quiet(bc.evaluate, frame["y"].to_numpy(), frame[cols].to_numpy(), sample_weight=frame["w"].to_numpy(),
                 **OPTIONS)
    eng = _quiet(evaluate, data=str(tmp_path / "p.parquet"), y_true="y", y_score=cols, sample_weight="w",
                 engine="spark", session=spark, **OPTIONS)
    _same(eng, mem, engine="spark")
    eng = _quiet(evaluate, data=spark.createDataFrame(frame), y_true="y", y_score=cols, sample_weight="w",
                 engine="spark", session=spark, **OPTIONS)
    _same(eng, mem, engine="spark")
