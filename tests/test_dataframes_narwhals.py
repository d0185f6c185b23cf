"""Data frames through narwhals (issue 36, item 2): the columns and tables of every library
narwhals knows — pandas, polars, pyarrow, a polars LazyFrame, a DuckDB relation — give the
report of the same numpy arrays, as arrays and as ``data=`` on the memory and DuckDB engines;
a lazy frame's plan runs once with only the needed columns; what an engine cannot scan is
refused in one line."""

from __future__ import annotations


import duckdb
import numpy as np
import pandas as pd
import polars as pl
import pyarrow as pa
import pytest

import beyondchance as bc
from conftest import quiet
from beyondchance import InvalidInputError
from beyondchance.engines import detect_engine

FAST = dict(n_resamples=200, mc_samples=1024, random_state=0)
N = 150


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(36)
    y = rng.integers(0, 2, N)
    s = np.round(np.clip(0.3 * y + 0.7 * rng.random(N), 0, 1), 3)
    return y, s, quiet(bc.evaluate, y, s, **FAST).to_dict()["metrics"]


def _frames(y: np.ndarray, s: np.ndarray) -> dict[str, object]:
    frame = pd.DataFrame({"y": y, "s": s})
    return {
        "pandas": frame,
        "polars": pl.from_pandas(frame),
        "pyarrow": pa.Table.from_pandas(frame, preserve_index=False),
        "polars-lazy": pl.from_pandas(frame).lazy(),
        "duckdb-relation": duckdb.connect().from_arrow(pa.Table.from_pandas(frame, preserve_index=False)),
    }


def _columns(kind: str, y: np.ndarray, s: np.ndarray) -> tuple[object, object]:
    frames = _frames(y, s)
    if kind == "pyarrow-array":
        return pa.array(y), pa.array(s)
    if kind == "pyarrow-record-batch":  # one-column tables that narwhals does not know: Arrow's interface
        return pa.record_batch({"y": y}), pa.record_batch({"s": s})
    table = frames[kind]
    if kind in ("polars-lazy", "duckdb-relation"):  # one-column lazy tables: collected
        return table.select("y"), table.select("s")
    return table["y"], table["s"]  # pandas / polars Series, pyarrow ChunkedArray


def _same(got: dict, expected: dict) -> None:
    assert got.keys() == expected.keys()
    for name, m in got.items():
        for key in ("value", "baseline", "ops"):
            assert (m[key] is None and expected[name][key] is None) or m[key] == pytest.approx(
                expected[name][key], rel=1e-12, abs=1e-15), (name, key)


@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow", "pyarrow-array", "pyarrow-record-batch",
                                  "polars-lazy", "duckdb-relation"])
def test_columns_of_every_library_give_the_numpy_report(data, kind):
    y, s, expected = data
    yt, ys = _columns(kind, y, s)
    _same(quiet(bc.evaluate, yt, ys, **FAST).to_dict()["metrics"], expected)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
@pytest.mark.parametrize("kind", ["pandas", "polars", "pyarrow", "polars-lazy", "duckdb-relation"])
def test_tables_as_data_give_the_numpy_report_on_every_engine(data, kind, engine):
    y, s, expected = data
    source = _frames(y, s)[kind]
    _same(quiet(bc.evaluate, "y", "s", data=source, engine=engine, **FAST).to_dict()["metrics"], expected)
    profiled = quiet(bc.profile, "y", "s", data=source, engine=engine, ci=False)
    reference = quiet(bc.profile, y, s, ci=False)
    assert (profiled.task, profiled.n_rows) == (reference.task, reference.n_rows) == ("binary-scores", N)
    assert profiled.stats.auc("roc") == pytest.approx(reference.stats.auc("roc"), abs=1e-12)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_lazy_frame_runs_its_plan_once_with_only_the_needed_columns(engine):
    """The projection is pushed into the polars plan (the column that would fail is never
    computed), and the plan runs once for the whole report (DuckDB copies the needed columns)."""
    runs: list[int] = []

    def counted(col: pl.Series) -> pl.Series:
        runs.append(len(col))
        return col

    lazy = pl.LazyFrame({"i": np.arange(N)}).with_columns(
        y=pl.col("i") % 2, s=((pl.col("i") * 37 % 100) / 100).map_batches(counted, return_dtype=pl.Float64),
        never=pl.col("i").map_batches(lambda c: 1 / 0, return_dtype=pl.Float64))
    assert detect_engine(lazy) == "duckdb"  # the default of compute_statistics(engine="auto")
    report = quiet(bc.evaluate, "y", "s", data=lazy, engine=engine, **FAST)
    assert report.task == "binary-scores" and sum(runs) == N


def test_a_null_in_a_dictionary_column_is_refused_with_its_row():
    """pyarrow's ChunkedArray.to_numpy reads the null of a dictionary column as another row's
    value: it was counted as a label on the memory engine and through the arrays."""
    y = pa.chunked_array([pa.array(["a", None, "b", "a", "b", "b"]).dictionary_encode()])
    table = pa.table({"y": y, "s": [0.1, 0.2, 0.9, 0.3, 0.8, 0.7]})
    with pytest.raises(InvalidInputError, match=r"^y_true has 1 missing value\(s\) \(first in data row 2\)"):
        bc.evaluate("y", "s", data=table, engine="memory", ci=False)
    with pytest.raises(InvalidInputError, match=r"^y_true has 1 missing value\(s\) \(first in data row 2\)"):
        bc.evaluate(y, table["s"], ci=False)


def test_duckdb_says_in_one_line_what_it_cannot_read():
    with pytest.raises(InvalidInputError, match=r"^engine 'duckdb' reads files, data frames and lazy frames, "
                                                r"got a dict$"):
        bc.evaluate("y", "s", data={"y": [0, 1], "s": [0.2, 0.7]}, engine="duckdb", ci=False)
