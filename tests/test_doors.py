"""Every door gives the same answer (issue 36, item 6): a door-equivalence harness in the
spirit of torchmetrics' ``MetricTester``.

A grid of cases — every task × unweighted/weighted × labels as ints, strings and bools ×
the 0/1-float edge × a missing label × class-probability columns in a shuffled order — runs
through every door of the public API: arrays (the reference), pandas on the memory and
DuckDB engines, polars, pyarrow, a polars ``LazyFrame``, a DuckDB relation, CSV and
Parquet files on the memory and DuckDB engines, Spark (a few cells, where it runs),
``profile`` → ``save`` → ``read_statistics`` → ``evaluate``, two halves profiled and merged,
and the command line's JSON.  Each cell asserts against the arrays door: the same task,
the same metrics in the same order, the same values to 1e-9 (value, baseline, advantage,
OPS, p-value), the same intervals with the same seed — or, for a missing label, the same
one-line refusal naming the row.  A door may lack an interval only where its report says it
was not computed (a DuckDB relation has no row order), and a p-value only where the row says
why (statistics do not hold the rows that a permutation test shuffles).

Only the public API is used (``beyondchance`` and its command line), so the harness holds
while the modules behind it move.

Where a door cannot give the arrays' answer it says why: a p-value from statistics by another
test is accepted where the report's note names it and it gives the same decision at 5%
(:func:`_says_other_pvalue`); a door's own refusal only where :data:`SAYS_IT_CANNOT` holds
its line.  Every other difference fails.
"""

from __future__ import annotations

import functools
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner
from conftest import one_line_error

import beyondchance as bc
from beyondchance.cli import main

#: the seed of every case's data (each cell prints it, shown with a failure)
SEED = 36
N_ROWS = 120
#: the row of the missing label (0-based; the messages name row MISSING_ROW + 1)
MISSING_ROW = 5
#: the bootstrap and OPS options of every door: small, seeded, fast
N_RESAMPLES, MC_SAMPLES, RANDOM_STATE = 200, 1024, 0
TOL = 1e-9

#: the doors whose rows are aggregated by DuckDB (polars, pyarrow and lazy frames by default)
_DUCKDB = ("pandas-duckdb", "polars", "pyarrow", "polars-lazy", "duckdb-relation", "csv-duckdb", "parquet-duckdb")
#: the doors that read a table's columns by name (every door but arrays and statistics of arrays)
_TABLES = ("pandas-memory", "csv-memory", "parquet-memory", "cli-json", *_DUCKDB)
_MISSING = ("binary-scores-int-unweighted-missing", "binary-scores-str-weighted-missing",
            "multiclass-labels-str-unweighted-missing", "multiclass-probabilities-int-unweighted-missing")
_PROBABILITIES = [f"multiclass-probabilities-{kind}-{w}{edge}" for kind in ("int", "str")
                  for w in ("unweighted", "weighted") for edge in ("", "-shuffled")]

#: cell id -> the line with which the door refuses where arrays report or name the row, because
#: it cannot give that answer (a door that cannot must say why, in one line)
SAYS_IT_CANNOT: dict[str, str] = {
    **{f"{case}-duckdb-relation": r"\(1 rows\): a DuckDB relation has no row order, so no row can be named"
       for case in _MISSING},
    **{f"regression-float-{w}-merged-halves": r"cannot merge a regression's grouped bootstrap sums: .*median of "
       r"all its rows.*profile the parts with ci=False" for w in ("unweighted", "weighted")},
}


# ----------------------------------------------------------------------------- the cases

@dataclass(frozen=True)
class Case:
    """One set of rows: ``table`` (column name -> values, the rows every door reads), which
    columns play which role, and the arrays door's inputs (the reference)."""

    name: str
    table: dict[str, np.ndarray]
    y_true: str
    y_score: tuple[str, ...] = ()
    y_pred: str | None = None
    weight: str | None = None
    #: class-probability columns: the classes in sorted order (the arrays door's matrix)
    classes: tuple = ()
    refuses: bool = False

    def frame(self) -> pd.DataFrame:
        """The table as pandas: a numeric label column with a missing value is a nullable
        integer column (as a file or a database holds it); the arrays door has NaN there."""
        frame = pd.DataFrame(self.table)
        if self.refuses and frame[self.y_true].dtype.kind == "f":
            frame[self.y_true] = frame[self.y_true].astype("Int64")
        return frame

    def columns(self) -> dict[str, Any]:
        """evaluate / profile keywords naming the columns (data= doors)."""
        out: dict[str, Any] = {"y_true": self.y_true}
        if self.y_score:
            out["y_score"] = self.y_score[0] if len(self.y_score) == 1 else list(self.y_score)
        if self.y_pred:
            out["y_pred"] = self.y_pred
        if self.weight:
            out["sample_weight"] = self.weight
        return out

    def arrays(self, rows: slice = slice(None)) -> dict[str, Any]:
        """evaluate / profile keywords holding the arrays (probabilities: one (n, k) matrix in
        the sorted classes' order, whatever the columns' order in the table)."""
        out: dict[str, Any] = {"y_true": self.table[self.y_true][rows]}
        if self.classes:
            out["y_score"] = np.column_stack([self.table[f"p_{c}"][rows] for c in self.classes])
        elif self.y_score:
            out["y_score"] = self.table[self.y_score[0]][rows]
        if self.y_pred:
            out["y_pred"] = self.table[self.y_pred][rows]
        if self.weight:
            out["sample_weight"] = self.table[self.weight][rows]
        return out

    def cli_args(self) -> list[str]:
        args = ["--y-true", self.y_true]
        for col in self.y_score:
            args += ["--y-score", col]
        if self.y_pred:
            args += ["--y-pred", self.y_pred]
        if self.weight:
            args += ["--weight", self.weight]
        return args


LABELS = {  # labels kind -> the classes (binary: negative, positive; the positive the minority)
    "int": {2: (0, 1), 3: (0, 1, 2)},
    "str": {2: ("no", "yes"), 3: ("barbera", "barolo", "grignolino")},
    "bool": {2: (False, True)},
}


def _labels(codes: np.ndarray, kind: str, k: int) -> np.ndarray:
    classes = LABELS[kind][k]
    return np.array([classes[c] for c in codes], dtype=object if kind == "str" else type(classes[0]))


def _case(task: str, kind: str, weighted: bool, *, edge: str | None = None) -> Case:
    """The rows of one cell of the grid, from the fixed seed :data:`SEED`."""
    rng = np.random.default_rng(SEED)
    n = N_ROWS
    table: dict[str, np.ndarray] = {}
    roles: dict[str, Any] = {}
    if task == "regression":
        y = np.round(rng.normal(10, 3, n), 3)
        table["y"], table["yhat"] = y, np.round(y + rng.normal(0, 2, n), 3)
        roles["y_pred"] = "yhat"
    else:
        k = 3 if task.startswith("multiclass") else 2
        codes = rng.choice(k, size=n, p=[0.62, 0.38] if k == 2 else [0.45, 0.33, 0.22])
        table["y"] = _labels(codes, kind, k)
        if task == "binary-scores":
            table["s"] = np.round(np.clip(0.35 * codes + rng.random(n) * 0.65, 0, 1), 2)
            roles["y_score"] = ("s",)
        elif task.endswith("labels"):
            pred = np.where(rng.random(n) < 0.7, codes, rng.choice(k, size=n))
            table["pred"] = _labels(pred, kind, k)
            roles["y_pred"] = "pred"
        else:  # class probabilities, one column p_<class> per class
            logits = rng.normal(0, 1, (n, k)) + 1.5 * np.eye(k)[codes]
            proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
            classes = LABELS[kind][k]
            order = [2, 0, 1] if edge == "shuffled" else [0, 1, 2]  # the columns' order in the table
            for j in order:
                table[f"p_{classes[j]}"] = proba[:, j]
            roles["y_score"] = tuple(f"p_{classes[j]}" for j in order)
            roles["classes"] = classes
    if edge == "float01":  # scores that hold only 0.0 and 1.0
        table["s"] = np.where(rng.random(n) < 0.75, table["y"], 1 - table["y"]).astype(float)
    if weighted:
        table["w"] = np.round(rng.uniform(0.5, 2.0, n), 2)
        roles["weight"] = "w"
    if edge == "missing":
        y = table["y"].astype(object if kind == "str" else float)
        y[MISSING_ROW] = None if kind == "str" else np.nan
        table["y"] = y
        roles["refuses"] = True
    name = "-".join([task, kind, "weighted" if weighted else "unweighted", *([edge] if edge else [])])
    return Case(name=name, table=table, y_true="y", **roles)


CASES: dict[str, Case] = {c.name: c for c in [
    *(_case("binary-scores", kind, w) for kind in ("int", "str", "bool") for w in (False, True)),
    *(_case("binary-labels", kind, w) for kind in ("int", "str", "bool") for w in (False, True)),
    *(_case("multiclass-labels", kind, w) for kind in ("int", "str") for w in (False, True)),
    *(_case("multiclass-probabilities", kind, w) for kind in ("int", "str") for w in (False, True)),
    *(_case("regression", "float", w) for w in (False, True)),
    *(_case("binary-scores", "int", w, edge="float01") for w in (False, True)),
    *(_case("multiclass-probabilities", kind, w, edge="shuffled") for kind in ("int", "str") for w in (False, True)),
    _case("binary-scores", "int", False, edge="missing"),
    _case("binary-scores", "str", True, edge="missing"),
    _case("multiclass-labels", "str", False, edge="missing"),
    _case("multiclass-probabilities", "int", False, edge="missing"),
]}


# ----------------------------------------------------------------------------- the doors

#: the options of every door: the same seed, few resamples, a small OPS reference
OPTIONS = {"n_resamples": N_RESAMPLES, "mc_samples": MC_SAMPLES, "random_state": RANDOM_STATE}
CLI_OPTIONS = ["--format", "json", "--n-resamples", str(N_RESAMPLES), "--mc-samples", str(MC_SAMPLES),
               "--seed", str(RANDOM_STATE)]


@dataclass(frozen=True)
class Outcome:
    """What a door answered: the report as JSON-safe dict, or the one line of its refusal."""

    report: dict | None = None
    error: str | None = None


def _python(run: Callable[[], Any]) -> Outcome:
    try:
        return Outcome(report=run().to_dict())
    except bc.InvalidInputError as exc:
        return Outcome(error=str(exc))


def arrays_door(case: Case, tmp_path: Path) -> Outcome:
    return _python(lambda: bc.evaluate(**case.arrays(), **OPTIONS))


def _table_door(convert: Callable[[pd.DataFrame], Any], engine: str | None = None):
    def door(case: Case, tmp_path: Path) -> Outcome:
        source = convert(case.frame())
        return _python(lambda: bc.evaluate(**case.columns(), data=source, engine=engine, **OPTIONS))
    return door


def _polars(frame: pd.DataFrame):
    import polars as pl

    return pl.from_pandas(frame)


def _arrow(frame: pd.DataFrame):
    import pyarrow as pa

    return pa.Table.from_pandas(frame, preserve_index=False)


def _duckdb_relation(frame: pd.DataFrame):
    import duckdb

    return duckdb.connect().from_arrow(_arrow(frame))


def _csv(case: Case, tmp_path: Path) -> Path:
    path = tmp_path / "rows.csv"
    case.frame().to_csv(path, index=False)
    return path


def _parquet(case: Case, tmp_path: Path) -> Path:
    path = tmp_path / "rows.parquet"
    case.frame().to_parquet(path, index=False)
    return path


def _file_door(write: Callable[[Case, Path], Path], engine: str):
    def door(case: Case, tmp_path: Path) -> Outcome:
        path = write(case, tmp_path)
        return _python(lambda: bc.evaluate(**case.columns(), data=str(path), engine=engine, **OPTIONS))
    return door


def statistics_file_door(case: Case, tmp_path: Path) -> Outcome:
    """profile -> save -> read_statistics -> evaluate."""
    def run():
        path = bc.profile(**case.arrays(), random_state=RANDOM_STATE).save(tmp_path / "rows.bcstats")
        return bc.evaluate(bc.read_statistics(path), **OPTIONS)
    return _python(run)


def merged_halves_door(case: Case, tmp_path: Path) -> Outcome:
    """Two halves profiled (the second at its row offset) and merged."""
    half = N_ROWS // 2

    def run():
        first = bc.profile(**case.arrays(slice(0, half)), random_state=RANDOM_STATE)
        second = bc.profile(**case.arrays(slice(half, None)), random_state=RANDOM_STATE, row_offset=half)
        return bc.evaluate(first.merge(second), **OPTIONS)
    return _python(run)


def cli_door(case: Case, tmp_path: Path) -> Outcome:
    """``beyondchance report rows.csv ... --format json`` (the default engine)."""
    result = CliRunner().invoke(main, ["report", str(_csv(case, tmp_path)), *case.cli_args(), *CLI_OPTIONS])
    if result.exit_code != 0:
        return Outcome(error=one_line_error(result).removeprefix("beyondchance: error:").strip())
    return Outcome(report=json.loads(result.stdout))


DOORS: dict[str, Callable[[Case, Path], Outcome]] = {
    "pandas-memory": _table_door(lambda f: f, "memory"),
    "pandas-duckdb": _table_door(lambda f: f, "duckdb"),
    "polars": _table_door(_polars),
    "pyarrow": _table_door(_arrow),
    "polars-lazy": _table_door(lambda f: _polars(f).lazy()),
    "duckdb-relation": _table_door(_duckdb_relation),
    "csv-memory": _file_door(_csv, "memory"),
    "csv-duckdb": _file_door(_csv, "duckdb"),
    "parquet-memory": _file_door(_parquet, "memory"),
    "parquet-duckdb": _file_door(_parquet, "duckdb"),
    "statistics-file": statistics_file_door,
    "merged-halves": merged_halves_door,
    "cli-json": cli_door,
}


@functools.cache
def reference(case_name: str) -> Outcome:
    """The arrays door's answer, once per case (and per worker)."""
    return arrays_door(CASES[case_name], Path("."))


# ----------------------------------------------------------------------------- the comparison

#: the numbers of a report row that every door must give alike
ROW_NUMBERS = ("value", "baseline", "advantage", "ops", "pvalue")


def _close(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is b
    return math.isclose(float(a), float(b), rel_tol=TOL, abs_tol=TOL)


def _says_no_interval(report: dict) -> bool:
    """The report states that some interval was not computed (a DuckDB relation has no row
    order for the grouped bootstrap)."""
    return any("interval" in note and "not computed" in note for note in report["notes"])


def _says_no_pvalue(row: dict) -> bool:
    """The row has no p-value and says why (statistics do not hold the rows a permutation
    test shuffles)."""
    return row["pvalue"] is None and (row["pvalue_method"] or "").startswith("no p-value")


def _says_other_pvalue(report: dict, name: str, ref_row: dict, row: dict) -> bool:
    """The row's p-value is another test's, the report's note says so, and it decides alike at
    5% (from statistics the log loss and Brier score are tested by the permutation CLT of
    the loss sum, asymptotic; the rows by Monte Carlo permutations, whose floor is 1/201)."""
    named = any(re.search(rf"\b{name}\b[^;]*by the permutation CLT of the statistics instead", note)
                for note in report["notes"])
    return (named and row["pvalue_method"] != ref_row["pvalue_method"] and row["pvalue"] is not None
            and (row["pvalue"] < 0.05) == (ref_row["pvalue"] < 0.05))


def normalized_error(line: str) -> str:
    """A refusal's line without what names the door: a file's path and the word "data" of
    "data row"."""
    line = re.sub(r"(?:'[^']*[/\\][^']*'|\S+[/\\]\S+?)(?=[:\s,)]|$)", "<path>", line)
    line = line.replace("data row", "row")
    # a file's line names its column and file where arrays name the argument, and a file's
    # missing value is a null where an array holds a NaN
    line = re.sub(r"^column '[^']*' of <path>", "<column>", line)
    line = re.sub(r"^(?:y_true|y_score|y_pred|sample_weight)\b", "<column>", line)
    return re.sub(r"(first in row \d+): NaN\)", r"\1)", line)


def assert_same_outcome(ref: Outcome, got: Outcome) -> None:
    """``got`` is the reference's answer: the same refusal (normalized, naming the row of the
    missing value), or the same task, metrics in the same order, values and intervals."""
    if ref.error is not None or got.error is not None:
        assert got.error is not None, f"the door reports where arrays refuse: {ref.error!r}"
        assert ref.error is not None, f"the door refuses where arrays report: {got.error!r}"
        assert normalized_error(got.error) == normalized_error(ref.error), (got.error, ref.error)
        assert re.search(rf"\brow {MISSING_ROW + 1}\b", got.error), got.error
        return
    a, b = ref.report, got.report
    for key in ("task", "n", "total_weight", "prevalence", "positive_label", "threshold"):
        assert _close(a.get(key), b.get(key)) if isinstance(a.get(key), float) else a.get(key) == b.get(key), (
            key, a.get(key), b.get(key))
    assert [str(c) for c in a.get("classes") or ()] == [str(c) for c in b.get("classes") or ()]
    assert list(a["metrics"]) == list(b["metrics"]), (list(a["metrics"]), list(b["metrics"]))
    wrong = []
    for name, row in a["metrics"].items():
        other = b["metrics"][name]
        for key in ROW_NUMBERS:
            if not (_close(row[key], other[key]) or key == "pvalue" and (
                    _says_no_pvalue(other) or _says_other_pvalue(b, name, row, other))):
                wrong.append((name, key, row[key], other[key]))
        if row["ci"] is None or other["ci"] is None:
            if not (row["ci"] is other["ci"] or other["ci"] is None and _says_no_interval(b)):
                wrong.append((name, "ci", row["ci"], other["ci"]))
            continue
        wrong += [(name, f"ci.{key}", row["ci"][key], other["ci"][key]) for key in ("low", "high")
                  if not _close(row["ci"][key], other["ci"][key])]
    assert not wrong, wrong


# ----------------------------------------------------------------------------- the grid

def _cells(doors):
    for case in CASES:
        for door in doors:
            yield pytest.param(case, door, id=f"{case}-{door}")


@pytest.mark.parametrize(("case", "door"), list(_cells(DOORS)))
def test_door_gives_the_arrays_answer(case: str, door: str, tmp_path: Path) -> None:
    print(f"case {case}: {N_ROWS} rows drawn with seed {SEED}")  # shown with a failure
    ref = reference(case)
    assert (ref.error is not None) == CASES[case].refuses, ref
    got = DOORS[door](CASES[case], tmp_path)
    if f"{case}-{door}" in SAYS_IT_CANNOT:
        assert got.error is not None and re.search(SAYS_IT_CANNOT[f"{case}-{door}"], got.error), got
        return
    assert_same_outcome(ref, got)


#: the Spark cells, few (each Spark query costs seconds, the session's first one minutes on a busy
#: machine): one per task, weights on the labels and the regression, a shuffled and a missing case
SPARK_CASES = ("binary-scores-str-unweighted", "binary-labels-bool-unweighted", "multiclass-labels-int-weighted",
               "multiclass-probabilities-str-unweighted-shuffled", "regression-float-weighted",
               "binary-scores-str-weighted-missing")


def _spark_cells():
    for case in SPARK_CASES:
        yield pytest.param(case, id=f"{case}-spark")


@pytest.mark.parametrize("case", list(_spark_cells()))
def test_spark_door_gives_the_arrays_answer(case: str, spark) -> None:
    """A Spark DataFrame on the ``spark`` engine, in the session of conftest's ``spark`` fixture."""
    pytest.importorskip("pyspark")
    print(f"case {case}: {N_ROWS} rows drawn with seed {SEED}")
    c = CASES[case]
    source = spark.createDataFrame(c.frame())
    got = _python(lambda: bc.evaluate(**c.columns(), data=source, engine="spark", session=spark, **OPTIONS))
    assert_same_outcome(reference(case), got)


def test_a_refusal_is_compared_without_its_path_and_data_wording() -> None:
    line = "column 'y' of /tmp/x/rows.csv has 1 missing value(s) (first in data row 6)"
    assert normalized_error(line) == "<column> has 1 missing value(s) (first in row 6)"
    assert normalized_error("y_true has 1 missing value(s) (first in data row 6: NaN)") == normalized_error(line)
    assert normalized_error("'/tmp/a b/rows.csv': y_true holds") == "<path>: y_true holds"
    assert normalized_error("y_score has 1 missing value(s) (first in data row 7)") != normalized_error(line)


def test_says_it_cannot_names_cells_of_the_grid() -> None:
    """Every entry of SAYS_IT_CANNOT is a cell of the grid (a stale entry would hide nothing
    and mislead the reader)."""
    cells = {f"{case}-{door}" for case in CASES for door in DOORS} | {f"{case}-spark" for case in SPARK_CASES}
    assert set(SAYS_IT_CANNOT) <= cells, sorted(set(SAYS_IT_CANNOT) - cells)


def test_another_pvalue_is_accepted_only_where_the_note_names_it_and_it_decides_alike() -> None:
    note = "p-values from statistics without the rows: log_loss, brier by the permutation CLT of the statistics instead"
    ref = {"pvalue": 0.005, "pvalue_method": "permutation, 200 Monte Carlo draws"}
    row = {"pvalue": 1e-22, "pvalue_method": "permutation CLT of the loss sum"}
    assert _says_other_pvalue({"notes": [note]}, "brier", ref, row)
    assert not _says_other_pvalue({"notes": [note]}, "mcc", ref, row)  # the note does not name it
    assert not _says_other_pvalue({"notes": []}, "brier", ref, row)
    assert not _says_other_pvalue({"notes": [note]}, "brier", ref, {**row, "pvalue": 0.2})  # decides otherwise
