"""The grouped Poisson bootstrap (beyondchance.inference.poisson_bootstrap): one hash and equal totals on every engine."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from beyondchance._warnings import InvalidInputError
from beyondchance.engines import compute_group_totals
from beyondchance.inference.poisson_bootstrap import (
    DEFAULT_GROUPS, GroupTotals, group_totals_from_arrays, hash_sql, labeling_intervals, probability_intervals,
    regression_intervals, row_groups,
)

KINDS = {
    "binary": dict(kind="labels", y_true="yb", y_pred="fb"),
    "multiclass": dict(kind="labels", y_true="y", y_pred="f"),
    "regression": dict(kind="regression", y_true="yr", y_pred="fr"),
    "probabilities": dict(kind="probabilities", y_true="y", proba=["p0", "p1", "p2"]),
    # the labels of binary scores at a threshold: kind "labels" with y_score (not a task of its own)
    "scores at a threshold": dict(kind="labels", y_true="yb", y_score="p1", threshold=0.4, pos_label=1, labels=(0, 1)),
}


def _frame(n: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    yr = rng.normal(size=n)
    p = rng.dirichlet([1.0, 1.0, 1.0], n)
    return pd.DataFrame({
        "yb": rng.integers(0, 2, n), "fb": rng.integers(0, 2, n), "y": y,
        "f": np.where(rng.random(n) < 0.7, y, rng.integers(0, 3, n)), "yr": yr, "fr": yr + rng.normal(size=n),
        "p0": p[:, 0], "p1": p[:, 1], "p2": p[:, 2], "w": rng.gamma(2.0, 1.0, n),
    })


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """The same rows as one CSV, one Parquet file and globs of two files of each."""
    d = tmp_path_factory.mktemp("replicates")
    df = _frame(3000, 1)
    df.to_csv(d / "one.csv", index=False)
    df.to_parquet(d / "one.parquet", row_group_size=500)
    for i, part in enumerate((df.iloc[:1800], df.iloc[1800:])):
        part.to_csv(d / f"part{i}.csv", index=False)
        part.to_parquet(d / f"part{i}.parquet", row_group_size=400)
    return {"csv": str(d / "one.csv"), "parquet": str(d / "one.parquet"),
            "csv glob": str(d / "part*.csv"), "parquet glob": str(d / "part*.parquet")}


def _intervals(t: GroupTotals, kind: str) -> dict:
    if kind == "regression":
        return regression_intervals(t, n_resamples=300, seed=5).intervals
    if kind == "probabilities":
        return probability_intervals(t, n_resamples=300, seed=5).intervals
    return labeling_intervals(t, ["f1", "mcc", "accuracy"], n_resamples=300, seed=5).intervals


def _assert_same(a: GroupTotals, b: GroupTotals, kind: str) -> None:
    assert a.columns == b.columns and a.groups == b.groups and a.seed == b.seed
    scale = np.abs(a.totals).max(axis=0)  # relative to each column's largest total (Σw·y may cancel to ~0)
    error = np.abs(a.totals - b.totals) / scale
    assert error.max() <= 1e-12, error.max()
    ia, ib = _intervals(a, kind), _intervals(b, kind)
    assert ia.keys() == ib.keys()
    for name in ia:
        np.testing.assert_allclose(ia[name], ib[name], rtol=1e-9, err_msg=name)


# --- the hash ---------------------------------------------------------------------------------------


def test_hash_sql_equals_numpy():
    import duckdb

    index = np.concatenate([np.arange(5000), 2**31 - 2 + np.arange(4), [2**40 + 7, 2**50 + 3]]).astype(np.int64)
    con = duckdb.connect()
    con.register("idx", pd.DataFrame({"i": index}))
    for seed, groups in ((0, DEFAULT_GROUPS), (12345, 7), (2**40, 1000)):
        got = con.sql(f"SELECT {hash_sql('i', seed, groups)} AS g FROM idx").fetchnumpy()["g"]
        np.testing.assert_array_equal(got, row_groups(index, seed, groups))


def test_groups_balanced_and_uncorrelated_with_sorted_blocks():
    n, groups = 1024 * 200, DEFAULT_GROUPS
    g = row_groups(np.arange(n), seed=7, groups=groups)
    counts = np.bincount(g, minlength=groups)
    chi2 = ((counts - 200) ** 2 / 200).sum()
    assert chi2 < groups + 5 * np.sqrt(2 * groups)  # df ≈ 1023: mean 1023, sd ≈ 45
    # a sorted block of 1000 consecutive rows spreads over the groups as random rows do
    expected = groups * (1 - (1 - 1 / groups) ** 1000)  # ≈ 643
    distinct = [np.unique(g[s:s + 1000]).size for s in range(0, n - 999, 1000)]
    assert min(distinct) > expected - 60
    assert abs(np.corrcoef(g[:-1], g[1:])[0, 1]) < 0.01
    assert abs(np.corrcoef(np.arange(n), g)[0, 1]) < 0.01
    assert np.mean(row_groups(np.arange(n), seed=8) == g) < 0.01  # another seed, other groups


def test_invalid_inputs():
    with pytest.raises(InvalidInputError, match="seed"):
        row_groups([0, 1], seed=-1)
    with pytest.raises(InvalidInputError, match="groups"):
        row_groups([0, 1], groups=0)
    with pytest.raises(InvalidInputError, match="n_resamples"):
        GroupTotals(np.zeros((2, 1)), ("x",), 2, 0).replicate_totals(0)
    t = group_totals_from_arrays("regression", [1.0, 2.0, 3.0], y_pred=[1.0, 2.5, 2.0])
    with pytest.raises(InvalidInputError, match="kind 'labels'"):
        labeling_intervals(t)
    with pytest.raises(InvalidInputError, match="negative"):
        group_totals_from_arrays("labels", [0, 1], y_pred=[0, 1], weight=[1.0, -1.0])
    with pytest.raises(InvalidInputError, match="sum to 1"):
        group_totals_from_arrays("probabilities", [0, 1], proba=[[0.5, 0.6], [0.5, 0.5]])
    # an unknown keyword (here the old name of sample_weight) is one clear error, not a TypeError
    from beyondchance.engines import compute_group_totals

    with pytest.raises(InvalidInputError, match=r"no option\(s\) \['weight'\]"):
        compute_group_totals({"y": [0, 1], "f": [0, 1], "w": [1.0, 1.0]}, kind="labels", y_true="y", y_pred="f",
                             weight="w", engine="memory")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_the_kind_of_totals_is_not_a_task(engine):
    """``kind=`` says what is summed; the old ``task=`` keyword and a task name are one clear error,
    and the labels of scores at a threshold are ``kind="labels"`` with ``y_score``."""
    df = pd.DataFrame({"y": [0, 1, 1, 0], "f": [0, 1, 0, 0], "s": [0.1, 0.8, 0.3, 0.4]})
    with pytest.raises(InvalidInputError, match=r"task=\) is now kind="):
        compute_group_totals(df, task="labels", y_true="y", y_pred="f", engine=engine)
    with pytest.raises(InvalidInputError, match="needs kind="):
        compute_group_totals(df, y_true="y", y_pred="f", engine=engine)
    for kind in ("threshold", "binary-labels"):
        with pytest.raises(InvalidInputError, match="kind must be one of 'labels', 'probabilities', 'regression'"):
            compute_group_totals(df, kind=kind, y_true="y", y_pred="f", engine=engine)
    with pytest.raises(InvalidInputError, match="y_pred .* or y_score with threshold"):
        compute_group_totals(df, kind="labels", y_true="y", y_pred="f", y_score="s", engine=engine)
    with pytest.raises(InvalidInputError, match="needs threshold and labels"):
        compute_group_totals(df, kind="labels", y_true="y", y_score="s", engine=engine)
    at = compute_group_totals(df, kind="labels", y_true="y", y_score="s", threshold=0.35, pos_label=1, labels=(0, 1),
                              engine=engine, groups=4)
    given = compute_group_totals(df.assign(f=[0, 1, 0, 1]), kind="labels", y_true="y", y_pred="f", engine=engine,
                                 groups=4)
    np.testing.assert_array_equal(at.totals, given.totals)


def test_duckdb_refuses_bad_rows_and_relations_and_orders_frames(tmp_path):
    import duckdb

    df = _frame(50, 2)
    bad = df.copy()
    bad.loc[3, "w"] = -1.0
    bad.to_csv(tmp_path / "bad.csv", index=False)
    with pytest.raises(InvalidInputError, match="negative"):
        compute_group_totals(str(tmp_path / "bad.csv"), engine="duckdb", sample_weight="w", **KINDS["regression"])
    con = duckdb.connect()
    with pytest.raises(InvalidInputError, match="no row order"):
        compute_group_totals(con.from_df(df), engine="duckdb", connection=con, **KINDS["binary"])
    # a data frame has a row order: DuckDB's totals are the memory engine's
    a = compute_group_totals(df, engine="duckdb", sample_weight="w", **KINDS["binary"])
    b = compute_group_totals(df, engine="memory", sample_weight="w", **KINDS["binary"])
    np.testing.assert_allclose(a.totals, b.totals, rtol=1e-12)


# --- memory == DuckDB == Spark ----------------------------------------------------------------------


@pytest.mark.parametrize("source", ["csv", "parquet", "csv glob", "parquet glob"])
@pytest.mark.parametrize("case", list(KINDS))
def test_memory_equals_duckdb(files, source, case):
    spec = dict(KINDS[case])
    kind = spec["kind"]
    mem = compute_group_totals(files[source], engine="memory", sample_weight="w", random_state=11, **spec)
    ddb = compute_group_totals(files[source], engine="duckdb", sample_weight="w", random_state=11, **spec)
    _assert_same(mem, ddb, kind)
    one = compute_group_totals(files["parquet"], engine="memory", sample_weight="w", random_state=11, **spec)
    _assert_same(mem, one, kind)  # a glob of the parts numbers the rows as the whole file
    arrays = _frame(3000, 1)
    direct = group_totals_from_arrays(
        kind, arrays[spec["y_true"]], y_pred=arrays[spec["y_pred"]] if "y_pred" in spec else None,
        proba=arrays[spec["proba"]].to_numpy() if "proba" in spec else None, weight=arrays["w"], seed=11,
        y_score=arrays[spec["y_score"]] if "y_score" in spec else None, threshold=spec.get("threshold"),
        pos_label=spec.get("pos_label"), labels=spec.get("labels"),
    )
    _assert_same(mem, direct, kind)


def test_memory_equals_spark(files, spark):
    for source, case in (("csv glob", "binary"), ("parquet glob", "probabilities"), ("parquet", "regression"),
                         ("csv", "scores at a threshold")):
        spec = KINDS[case]
        mem = compute_group_totals(files[source], engine="memory", sample_weight="w", random_state=3, **spec)
        spk = compute_group_totals(files[source], engine="spark", spark=spark, sample_weight="w", random_state=3, **spec)
        _assert_same(mem, spk, spec["kind"])


# --- intervals --------------------------------------------------------------------------------------


def test_intervals_contain_the_estimate_and_method():
    df = _frame(2000, 4)
    t = group_totals_from_arrays("labels", df["y"], y_pred=df["f"], weight=df["w"], seed=1)
    result = labeling_intervals(t, ["accuracy", "f1", "kappa"], n_resamples=400)
    full = t.full().reshape(3, 3)
    accuracy = np.trace(full) / full.sum()
    low, high = result.intervals["accuracy"]
    assert low < accuracy < high and high - low < 0.1
    assert set(result.intervals) == {"accuracy", "f1", "kappa"}
    assert "400 replicates" in result.method and "1024 row groups" in result.method


def _coverage(groups: int, n_sim: int = 200) -> tuple[float, float]:
    """Coverage of 95% intervals of weighted F1 and R² over samples of a fixed population."""
    rng = np.random.default_rng(2024)
    big = 200_000
    y = (rng.random(big) < 0.3).astype(int)
    f = np.where(rng.random(big) < 0.8, y, 1 - y)
    w = rng.gamma(1.5, 1.0, big) * (1 + y)
    yr = rng.normal(size=big)
    fr = 0.7 * yr + rng.normal(scale=0.6, size=big)
    tp, fp, fn = (w * (y & f)).sum(), (w * ((1 - y) & f)).sum(), (w * (y & (1 - f))).sum()
    f1_true = 2 * tp / (2 * tp + fp + fn)
    mean = np.average(yr, weights=w)
    r2_true = 1 - np.sum(w * (yr - fr) ** 2) / np.sum(w * (yr - mean) ** 2)
    hits = np.zeros(2)
    for s in range(n_sim):
        rows = rng.integers(0, big, 400)
        t = group_totals_from_arrays("labels", y[rows], y_pred=f[rows], weight=w[rows], seed=s, groups=groups)
        lo, hi = labeling_intervals(t, ["f1"], n_resamples=400, seed=s).intervals["f1"]
        hits[0] += lo <= f1_true <= hi
        t = group_totals_from_arrays("regression", yr[rows], y_pred=fr[rows], weight=w[rows], seed=s, groups=groups)
        lo, hi = regression_intervals(t, n_resamples=400, seed=s).intervals["r2"]
        hits[1] += lo <= r2_true <= hi
    return tuple(hits / n_sim)


def test_coverage_of_weighted_f1_and_r2():
    f1, r2 = _coverage(DEFAULT_GROUPS)
    assert 0.88 <= f1 <= 0.99 and 0.88 <= r2 <= 0.99, (f1, r2)


def test_coverage_check_fails_with_one_group():
    f1, r2 = _coverage(1, n_sim=30)  # one group: every replicate is a multiple of the sample
    assert f1 < 0.5 and r2 < 0.5


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_duckdb_row_index_is_file_order_with_threads(tmp_path, fmt):
    """Multi-threaded scans of a glob reorder rows unless the snapshot preserves insertion
    order: the row index must be the position in the sorted files (and the connection's
    own setting is restored)."""
    import duckdb
    import pyarrow as pa
    import pyarrow.csv as pacsv
    import pyarrow.parquet as pq

    from beyondchance.engines.duckdb import DuckDBRunner

    n = 400_000
    for j in range(2):
        table = pa.table({"v": np.arange(j * n, (j + 1) * n, dtype=np.int64)})
        if fmt == "csv":
            pacsv.write_csv(table, tmp_path / f"part{j}.csv")
        else:
            pq.write_table(table, tmp_path / f"part{j}.parquet", row_group_size=50_000)
    con = duckdb.connect()
    con.execute("SET threads = 4")
    con.execute("SET preserve_insertion_order = false")
    runner = DuckDBRunner(str(tmp_path / f"part*.{fmt}"), connection=con)
    runner.load(["v"], row_index=True)
    wrong = con.sql(f"SELECT SUM(CASE WHEN v = {runner.row_index} THEN 0 ELSE 1 END) FROM {runner.relation}")
    assert wrong.fetchall()[0][0] == 0
    assert con.sql("SELECT current_setting('preserve_insertion_order')").fetchall()[0][0] is False
    runner.close()
