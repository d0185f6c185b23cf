"""The engines behind one seam (:mod:`beyondchance.engines.runner`).

Adding an engine is one module implementing the runner protocol: here a toy engine,
written in this file and registered at test time, that reads files with pyarrow itself
(not through the memory engine's reader) and computes in numpy.  It passes the
engine-equivalence checks of the built-in engines: the same statistics as memory, the
same report as ``evaluate()`` on the rows (values, p-values, intervals), and through the
command line the same JSON as ``--engine memory``.  And nothing outside ``engines/``
names an engine: a scan of the source text fails on an engine name or an
``engine ==`` comparison there.
"""

from __future__ import annotations

import ast
import json
import os
import warnings
from pathlib import Path
from typing import Any, Mapping, Sequence

import numpy as np
import pytest
from click.testing import CliRunner

from beyondchance import InvalidInputError
from beyondchance.engines import compute_statistics
from beyondchance.cli import main
from beyondchance.engines import (
    ENGINES, Runner, Scan, compute_group_totals, engine_names, get_runner, register, unregister,
)
from beyondchance.engines.memory import MemoryScan, read_columns

from test_cli_engines import FAST, _strip, data  # noqa: F401  (data: the CLI tests' files, a fixture)
from test_engines import CASES, REPORT_CASES, assert_report_equals_rows, assert_same, make_frame

TOY = "toy"


def _read_table(source: Any, delimiter: str | None) -> Any:
    """The toy engine's reader: a CSV or Parquet file (or a glob of them) read whole with
    pyarrow; anything else (a data frame, a mapping of columns) is taken as it is."""
    import glob

    import pyarrow as pa
    import pyarrow.csv as pcsv
    import pyarrow.parquet as pq

    if not isinstance(source, (str, os.PathLike)):
        return source
    path = os.fspath(source)
    files = sorted(glob.glob(path)) if any(ch in path for ch in "*?[") and not os.path.exists(path) else [path]
    if not files or not all(os.path.isfile(f) for f in files):
        raise InvalidInputError(f"toy: cannot read {path!r}")
    if path.lower().endswith((".csv", ".tsv")):
        sep = delimiter or ("\t" if path.lower().endswith(".tsv") else ",")
        tables = [pcsv.read_csv(f, parse_options=pcsv.ParseOptions(delimiter=sep)) for f in files]
    else:
        tables = [pq.read_table(f) for f in files]
    return pa.concat_tables(tables)


class ToyEngine:
    """A toy engine: one class implementing the runner protocol (and nothing else)."""

    name = TOY
    reads_files = True  # the command line hands it the path
    reads_directories = False
    splits_by_column = False

    def session(self, options: Mapping[str, Any]) -> Any:
        return None

    def _columns(self, source: Any, delimiter: str | None, names: Sequence[str]) -> dict[str, np.ndarray]:
        table = _read_table(source, delimiter)
        return read_columns(table, [n for n in dict.fromkeys(names) if n is not None])

    def statistics(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                   **kwargs: Any) -> Any:
        proba = kwargs.get("y_proba") or []
        names = [kwargs.get(k) for k in ("y_true", "y_score", "y_pred", "weight")] + list(proba)
        return get_runner("memory").statistics(self._columns(source, delimiter, names), **kwargs)

    def group_totals(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                     **kwargs: Any) -> Any:
        names = [kwargs.get(k) for k in ("y_true", "y_pred", "y_score", "weight")] + list(kwargs.get("proba") or [])
        return get_runner("memory").group_totals(self._columns(source, delimiter, names), **kwargs)

    def open(self, source: Any, *, session: Any = None, name: str | None = None,
             delimiter: str | None = None) -> Scan:
        return MemoryScan(_read_table(source, delimiter), engine=TOY, name=name, delimiter=delimiter)

    def split_by(self, source: Any, by: str, **kwargs: Any) -> Any:
        raise InvalidInputError("the toy engine does not split a source")


@pytest.fixture
def toy():
    runner = register(ToyEngine())
    try:
        yield runner
    finally:
        unregister(TOY)


@pytest.fixture(scope="module")
def frame():
    return make_frame()


# ======================================================================================
# the registry
# ======================================================================================


def test_registry_holds_the_builtin_engines_and_a_registered_one(toy):
    assert ENGINES == ("memory", "duckdb", "spark")
    assert engine_names() == (*ENGINES, TOY)
    for name in engine_names():
        runner = get_runner(name)
        assert isinstance(runner, Runner) and runner.name == name
    assert get_runner(TOY) is toy
    with pytest.raises(InvalidInputError, match="unknown engine 'nope'; available: memory, duckdb, spark, toy"):
        get_runner("nope")


def test_unregister_restores_the_builtin_engines():
    register(ToyEngine())
    unregister(TOY)
    assert engine_names() == ENGINES
    with pytest.raises(InvalidInputError, match="unknown engine 'toy'"):
        get_runner(TOY)
    with pytest.raises(TypeError, match="runner protocol"):
        register(object())  # type: ignore[arg-type]


# ======================================================================================
# the toy engine passes the engine-equivalence checks
# ======================================================================================


@pytest.mark.parametrize("case", CASES, ids=lambda c: "-".join(f"{k}={v}" for k, v in c.items()))
def test_toy_statistics_identical_to_memory(case, frame, toy, tmp_path):
    path = tmp_path / "f.parquet"
    frame.to_parquet(path)
    mem = compute_statistics(frame, **case)
    assert_same(mem, compute_statistics(frame, engine=TOY, **case))
    assert_same(mem, compute_statistics(path, engine=TOY, **case))


def test_toy_group_totals_identical_to_memory(frame, toy):
    kwargs = dict(kind="labels", y_true="label", y_pred="pred", sample_weight="w", random_state=4)
    mem = compute_group_totals(frame, engine="memory", **kwargs)
    t = compute_group_totals(frame, engine=TOY, **kwargs)
    np.testing.assert_allclose(t.totals, mem.totals, rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("task", list(REPORT_CASES))
def test_toy_report_equals_rows(frame, task, weighted, toy):
    frame = frame.assign(bl=(frame["score"] >= 0.5).astype(np.int64))
    assert_report_equals_rows(frame, frame, task, weighted, TOY)


def test_toy_report_of_a_file_equals_rows(frame, toy, tmp_path):
    path = tmp_path / "f.parquet"
    frame.to_parquet(path)
    assert_report_equals_rows(str(path), frame, "multiclass-probabilities", True, TOY)


def _cli_json(*args: str) -> dict:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = CliRunner().invoke(main, [*map(str, args), *FAST])
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


@pytest.mark.parametrize("fmt, args", [
    ("parquet", ["--y-true", "y", "--y-score", "s"]),                          # binary scores
    ("csv", ["--y-true", "ys", "--y-score", "s"]),                             # text labels
    ("parquet", ["--y-true", "cls", "--y-pred", "pc"]),                        # multi-class labels
    ("parquet", ["--y-true", "y", "--y-score", "s", "--score-bins", "20"]),    # binned scores
    ("parquet", ["--y-true", "t", "--y-pred", "f", "--weight", "w"]),          # weighted regression
])
def test_cli_toy_equals_memory(data, fmt, args, toy):  # noqa: F811
    mem = _cli_json("report", data[fmt], *args, "--engine", "memory")
    eng = _cli_json("report", data[fmt], *args, "--engine", TOY)
    assert mem["engine"] == "memory" and eng["engine"] == TOY
    assert _close(_strip(mem), _strip(eng))


def test_cli_compare_toy_equals_memory(data, toy):  # noqa: F811
    args = ["--y-true", "y", "--y-score", "s"]
    mem = _cli_json("compare", *data["parts"], *args)
    eng = _cli_json("compare", *data["parts"], *args, "--engine", TOY)
    assert mem["engine"] == "memory" and eng["engine"] == TOY
    assert _close(_strip(mem), _strip(eng))


def test_cli_toy_refuses_stdin_and_by_with_bins(data, toy):  # noqa: F811
    result = CliRunner().invoke(main, ["report", "-", "--y-true", "y", "--y-score", "s", "--engine", TOY])
    assert result.exit_code == 2
    assert "--engine toy reads files, not stdin; use --engine memory for '-'" in result.stderr
    result = CliRunner().invoke(main, ["compare", str(data["parquet"]), "--by", "cls", "--y-true", "y",
                                       "--y-score", "s", "--score-bins", "10", "--engine", TOY])
    assert result.exit_code == 2
    assert "--by needs --engine memory, duckdb or spark (the toy engine does not split a file" in result.stderr


def test_cli_unknown_engine_is_a_usage_error():
    result = CliRunner().invoke(main, ["report", "x.csv", "--y-true", "y", "--y-score", "s", "--engine", TOY])
    assert result.exit_code == 2 and "'toy' is not one of 'memory', 'duckdb', 'spark'" in result.stderr


def _close(a: Any, b: Any, path: str = "") -> bool:
    """Equal JSON (``b`` the engine's), numbers to rounding; a p-value method of ``b`` may add
    where the rows of its permutation test came from."""
    if isinstance(a, dict) and isinstance(b, dict):
        assert a.keys() == b.keys(), (path, set(a) ^ set(b))
        return all(_close(a[k], b[k], f"{path}.{k}") for k in a)
    if isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        return all(_close(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b)))
    if isinstance(a, float) and isinstance(b, float):
        assert a == pytest.approx(b, rel=1e-9, abs=1e-12, nan_ok=True), path
        return True
    if path.endswith(".pvalue_method"):  # an engine's row test says where its rows came from
        assert isinstance(b, str) and b.startswith(a), path
        return True
    assert a == b, path
    return True


# ======================================================================================
# nothing outside engines/ names an engine
# ======================================================================================

SRC = Path(__file__).resolve().parents[1] / "src" / "beyondchance"

#: string constants equal to an engine name that are not engine names: (file, value)
NOT_ENGINES = {
    ("outperformance/scoring.py", "memory"),  # the DBT reference cache in memory (not on disk)
    ("outperformance/dbt.py", "memory"),      # the cache's hit counters
}


def _engine_mentions(text: str, rel: str, names: set[str]) -> list[str]:
    """``file:line what`` of each string constant equal to an engine name and of each
    comparison of something called ``engine`` (``engine == …``, ``x.engine in …``; not
    ``is None``) in the
    source ``text`` of file ``rel`` (docstrings and messages in prose are not engine names)."""
    found = []

    def called_engine(node: ast.AST) -> bool:
        return (isinstance(node, ast.Name) and node.id.endswith("engine")) or (
            isinstance(node, ast.Attribute) and node.attr.endswith("engine"))

    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in names:
            if (rel, node.value) not in NOT_ENGINES:
                found.append(f"{rel}:{node.lineno} the string {node.value!r}")
        elif isinstance(node, ast.Compare) and any(called_engine(x) for x in [node.left, *node.comparators]):
            others = [x for x in [node.left, *node.comparators] if not called_engine(x)]
            if not all(isinstance(x, ast.Constant) and x.value is None for x in others):  # "is None": allowed
                found.append(f"{rel}:{node.lineno} a comparison of the engine")
    return sorted(found, key=lambda f: int(f.split(":")[1].split(" ")[0]))


def test_nothing_outside_engines_names_an_engine():
    names = {n.lower() for n in ENGINES}
    files = [p for p in sorted(SRC.rglob("*.py")) if "engines" not in p.relative_to(SRC).parts]
    assert len(files) > 50
    found = [m for p in files for m in _engine_mentions(p.read_text(encoding="utf-8"), p.relative_to(SRC).as_posix(),
                                                        names)]
    assert not found, "engine names outside engines/ (put the difference behind a runner):\n" + "\n".join(found)


def test_the_scan_finds_what_it_looks_for():
    """The scan is not vacuous: it finds the forms it forbids, and passes prose and other names."""
    text = ('if engine == "memory":\n    pass\nok = src.engine in names\nx = {"spark": 1}\n'
            'msg = "use --engine duckdb"\ncache = "disk"\ncache2 = "memory"\nif self.engine is not None:\n    pass\n')
    found = _engine_mentions(text, "outperformance/dbt.py", {"memory", "duckdb", "spark"})
    assert [f.split(" ", 1)[1] for f in found] == [
        "a comparison of the engine", "a comparison of the engine", "the string 'spark'"]
    assert len(_engine_mentions(text, "report/x.py", {"memory", "duckdb", "spark"})) == 5
