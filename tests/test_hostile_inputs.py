"""Hostile inputs to the command line: pipes and devices, a header without end, a cell of
megabytes, broken CSV, a file larger than the memory.  Each ends with the report or one
line on stderr and exit status 2 — never a hang, an unbounded read, or an internal error (3)."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest
from click.testing import CliRunner

from beyondchance.cli import main
from beyondchance.engines import files
from conftest import one_line_error

pytestmark = pytest.mark.hostile

ARGS = ["--y-true", "y", "--y-score", "s", "--no-ci"]


def _csv(path, n=200, extra=None):
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + rng.uniform(0, 0.7, n), 0, 1)
    lines = ["id,note,y,s"] + [f"{i},n{i},{y[i]},{s[i]:.4f}" for i in range(n)]
    if extra:
        extra(lines)
    path.write_text("\n".join(lines) + "\n")
    return path


def _report(*args):
    return CliRunner().invoke(main, ["report", *map(str, args), *ARGS])


@pytest.fixture
def fifo(tmp_path):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no mkfifo on this platform")
    path = tmp_path / "f.csv"
    os.mkfifo(path)
    return path


def _feed(fifo, data: bytes) -> threading.Thread:
    def write():
        try:
            with open(fifo, "wb") as fh:
                fh.write(data)
        except BrokenPipeError:
            pass

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    return thread


def _unblock(fifo, thread):
    """A writer still waiting for a reader is let through (the test failed before reading)."""
    if thread.is_alive():
        fd = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        os.close(fd)
    thread.join(5)


def _report_through(fifo, data: bytes):
    """The CLI's report of ``data`` written into the pipe by another thread."""
    thread = _feed(fifo, data)
    try:
        return _report(fifo)
    finally:
        _unblock(fifo, thread)


def test_fifo_read_once_by_the_memory_engine(tmp_path, fifo):
    data = _csv(tmp_path / "g.csv").read_bytes()  # a name as long as the pipe's: the same line wrapping
    result = _report_through(fifo, data)
    assert result.exit_code == 0, result.output
    assert "f.csv" in result.stdout
    assert result.stdout == _report(tmp_path / "g.csv").stdout.replace("g.csv", "f.csv")


@pytest.mark.parametrize("engine", ["duckdb", "spark"])
def test_fifo_refused_by_the_file_engines(fifo, engine):
    pytest.importorskip("duckdb" if engine == "duckdb" else "pyspark")
    result = _report(fifo, "--engine", engine)  # refused before opening: no writer needed
    one_line_error(result, "f.csv is not a regular file (a pipe)", "--engine memory")


def test_device_read_is_bounded(monkeypatch):
    if not os.path.exists("/dev/zero"):
        pytest.skip("no /dev/zero")
    monkeypatch.setattr(files, "available_memory", lambda: 8 << 20)
    one_line_error(_report("/dev/zero"), "/dev/zero", "more than", "--engine duckdb")


def test_header_without_newline(tmp_path):
    path = tmp_path / "oneline.csv"
    path.write_bytes(b"a" * (2 << 20))
    one_line_error(_report(path), "oneline.csv", "header line is longer than 1 MB")


def test_header_field_over_the_csv_module_limit(tmp_path):
    path = _csv(tmp_path / "wide.csv", extra=lambda lines: lines.__setitem__(0, lines[0].replace("note", "n" * 200_000)))
    result = _report(path)
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_cell_of_3_mb_in_an_unused_column(tmp_path, engine):
    if engine == "duckdb":
        pytest.importorskip("duckdb")

    def big(lines):
        i, note, y, s = lines[6].split(",")
        lines[6] = ",".join([i, "x" * 3_000_000, y, s])

    result = _report(_csv(tmp_path / "big.csv", extra=big), "--engine", engine)
    assert result.exit_code in (0, 2), result.output
    if result.exit_code == 2:
        one_line_error(result, "big.csv")
    else:
        assert "big.csv" in result.stdout


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_unbalanced_quote(tmp_path, engine):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    path = _csv(tmp_path / "quote.csv", extra=lambda lines: lines.__setitem__(6, lines[6].replace(",n", ',"n', 1)))
    one_line_error(_report(path, "--engine", engine), "quote.csv", "line 7")


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_row_with_an_extra_field(tmp_path, engine):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    path = _csv(tmp_path / "ragged.csv", extra=lambda lines: lines.__setitem__(6, lines[6] + ",9"))
    one_line_error(_report(path, "--engine", engine), "ragged.csv")


def test_memory_estimate_refusal(tmp_path, monkeypatch):
    path = _csv(tmp_path / "bin.csv")
    monkeypatch.setattr(files, "available_memory", lambda: 1000)
    one_line_error(_report(path), "bin.csv", "--engine duckdb")


def test_available_memory_is_a_positive_number_or_none():
    available = files.available_memory()
    assert available is None or available > 0


def test_compressed_read_is_bounded(tmp_path, monkeypatch):
    import gzip

    path = tmp_path / "bomb.csv.gz"
    path.write_bytes(gzip.compress(b"y,s\n" + b"0,0.5\n" * 2_000_000))  # 12 MB of text in a small file
    monkeypatch.setattr(files, "available_memory", lambda: 16 << 20)
    one_line_error(_report(path), "bomb.csv.gz", "--engine duckdb")


def test_fifo_read_once_by_the_python_memory_engine(tmp_path, fifo):
    from beyondchance.engines.memory import read_columns

    data = _csv(tmp_path / "g.csv").read_bytes()
    thread = _feed(fifo, data)
    try:
        columns = read_columns(str(fifo), ["y", "s"])
    finally:
        _unblock(fifo, thread)
    assert len(columns["y"]) == 200


def test_gzip_through_a_pipe(tmp_path, fifo):
    import gzip

    data = gzip.compress(_csv(tmp_path / "g.csv").read_bytes())
    result = _report_through(fifo, data)
    assert result.exit_code == 0, result.output


# --- requirements of check -------------------------------------------------------------------


def _check(path, requirement):
    return CliRunner().invoke(main, ["check", str(path), *ARGS, "--mc-samples", "2048", "--require", requirement])


@pytest.mark.parametrize("requirement,words", [
    ("roc_auc < 1e999", ["1e999 overflows to infinity"]),
    ("roc_auc > -1e400", ["-1e400 overflows to infinity"]),
    ("roc_auc > \u0660.\u0665", ["cannot read the requirement"]),  # Arabic-Indic digits ٠.٥
    ("roc_auc >\u00a00.5", ["cannot read the requirement"]),  # a no-break space
    ("roc_auc > \uff10.5", ["cannot read the requirement"]),  # a full-width digit
])
def test_requirement_with_an_infinite_bound_or_non_ascii_digits_refused(tmp_path, requirement, words):
    one_line_error(_check(_csv(tmp_path / "gate.csv"), requirement), *words)


def test_huge_unknown_metric_name_not_echoed(tmp_path):
    name = "x" * 120_000
    err = one_line_error(_check(_csv(tmp_path / "gate.csv"), f"{name} > 0.5"), "at most 200 characters",
                          "120,006")
    assert len(err) < 300, len(err)


def test_requirement_in_ascii_still_read(tmp_path):
    result = _check(_csv(tmp_path / "gate.csv"), "  roc_auc\t>=  5e-1 ")
    assert result.exit_code in (0, 1), result.output


# --- nested Parquet columns --------------------------------------------------------------------


@pytest.fixture(scope="module")
def nested_parquet(tmp_path_factory):
    """A list column of labels and a struct column of scores beside plain ones (seed 0)."""
    pa = pytest.importorskip("pyarrow")
    import pyarrow.parquet as pq

    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 100)
    table = pa.table({"ylist": pa.array([[int(v)] for v in y]), "sstruct": pa.array([{"v": float(v)} for v in
                                                                                       rng.random(100)]),
                      "y": y, "s": rng.random(100)})
    path = tmp_path_factory.mktemp("nested") / "nested.parquet"
    pq.write_table(table, path)
    return path


@pytest.mark.parametrize("engine", ["memory", "spark"])
@pytest.mark.parametrize("columns,bad", [(["--y-true", "ylist", "--y-score", "s"], "ylist"),
                                         (["--y-true", "y", "--y-score", "sstruct"], "sstruct")])
def test_nested_parquet_columns_refused_in_one_line(request, nested_parquet, engine, columns, bad):
    if engine == "spark":
        request.getfixturevalue("spark")  # the session's one SparkSession, or skipped
    result = CliRunner().invoke(main, ["report", str(nested_parquet), *columns, "--no-ci", "--mc-samples", "2048",
                                       "--engine", engine])
    err = one_line_error(result, repr(bad))
    assert "nested values" in err or "must be numeric" in err, err
