"""The command line is a thin shell over the library (issue 36, items 1 and 7): every command
calls ``evaluate`` / ``compare`` / ``profile`` with ``data=FILE`` on ``--engine``, so the memory
engine and DuckDB read the same file, glob pattern or stdin into the same report — the same
task, the same labels, the same numbers, the same refusal."""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from beyondchance.cli import main

FAST = ["--mc-samples", "1024", "--n-resamples", "200", "--format", "json"]


def _cli(*args: str, input: str | None = None):
    return CliRunner().invoke(main, [str(a) for a in args], input=input)


def _json(*args: str, input: str | None = None) -> dict:
    result = _cli(*args, *FAST, input=input)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def _same(a, b, path="") -> None:
    """Equal JSON but for the engine's name, floats to rounding (the order of summation)."""
    if isinstance(a, dict):
        assert set(a) == set(b), (path, set(a) ^ set(b))
        for k in a:
            if k != "engine":
                _same(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _same(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (path, a, b)
    elif path.endswith(".pvalue_method"):  # where the rows of the permutation test came from
        rows = r"the ([\d,]+) rows (fetched from \w+|taken from the columns)"
        assert re.sub(rows, r"the \1 rows", a) == re.sub(rows, r"the \1 rows", b), (path, a, b)
    else:
        assert a == b, (path, a, b)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("one_road")
    rng = np.random.default_rng(36)
    n = 600
    y = (rng.random(n) < 0.3).astype(np.int64)
    k = rng.integers(0, 3, n)
    logits = rng.normal(size=(n, 3)) + 2.0 * np.eye(3)[k]
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    target = rng.normal(size=n)
    df = pd.DataFrame({
        "y": y, "s": np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1).round(3),
        "lab": np.where(rng.random(n) < 0.8, y, 1 - y),
        "k": k, "k_hat": np.where(rng.random(n) < 0.7, k, rng.integers(0, 3, n)),
        "p0": proba[:, 0].round(4), "p1": proba[:, 1].round(4), "p2": 0.0,
        "t": target, "t_hat": (target + rng.normal(scale=0.5, size=n)).round(3),
        "zero_one": np.where(rng.random(n) < 0.75, y, 1 - y).astype(np.float64),  # 0.0 / 1.0 scores
    })
    df["p2"] = (1.0 - df["p0"] - df["p1"]).round(4)
    parts = tmp / "parts"
    parts.mkdir()
    for i, part in enumerate([df.iloc[:200], df.iloc[200:400], df.iloc[400:]]):
        part.to_parquet(parts / f"part{i}.parquet", index=False)
        part.to_csv(parts / f"part{i}.csv", index=False)
    df.to_csv(tmp / "all.csv", index=False)
    return {"dir": parts, "csv": tmp / "all.csv", "text": df.to_csv(index=False)}


@pytest.mark.parametrize("pattern", ["*.parquet", "*.csv"])
def test_a_glob_pattern_is_read_by_the_memory_engine_as_by_duckdb(files, pattern):
    """The production how-to's ``report 'dir/*.parquet'``: "file not found" on memory before."""
    args = ["report", str(files["dir"] / pattern), "--y-true", "y", "--y-score", "s"]
    memory, duckdb = _json(*args, "--engine", "memory"), _json(*args, "--engine", "duckdb")
    assert memory["engine"] == "memory" and memory["n"] == 600
    _same(memory, duckdb)


def test_compare_of_glob_patterns_on_memory(files):
    args = ["compare", str(files["dir"] / "*.parquet"), str(files["dir"] / "*.csv"), "--y-true", "y",
            "--y-score", "s"]
    _same(_json(*args, "--engine", "memory"), _json(*args, "--engine", "duckdb"))


@pytest.mark.parametrize("task, columns", [
    ("binary-scores", ["--y-true", "y", "--y-score", "s"]),
    (None, ["--y-true", "y", "--y-score", "zero_one"]),  # the 0/1-float edge: one task on every engine
    ("binary-labels", ["--y-true", "y", "--y-pred", "lab"]),
    ("multiclass-labels", ["--y-true", "k", "--y-pred", "k_hat"]),
    ("multiclass-probabilities", ["--y-true", "k", "--y-score", "p0", "--y-score", "p1", "--y-score", "p2"]),
    ("regression", ["--y-true", "t", "--y-pred", "t_hat"]),
])
def test_each_task_of_one_file_gives_the_same_report_on_memory_and_duckdb(files, task, columns):
    """One reader, one detector: the memory engine's report of a file is DuckDB's, task and all."""
    memory = _json("report", files["csv"], *columns, "--engine", "memory")
    duckdb = _json("report", files["csv"], *columns, "--engine", "duckdb")
    assert memory["task"] == duckdb["task"] == (task or duckdb["task"])
    _same(memory, duckdb)


def test_labels_are_typed_like_y_true_on_every_engine(files):
    """``--labels`` as text becomes y_true's integers on memory as on DuckDB (the scan's
    ``typed_labels``), in their order; a label that is no integer is refused alike."""
    args = ["report", files["csv"], "--y-true", "k", "--y-score", "p2", "--y-score", "p0", "--y-score", "p1",
            "--labels", "2,0,1"]
    memory, duckdb = _json(*args, "--engine", "memory"), _json(*args, "--engine", "duckdb")
    assert memory["task"] == "multiclass-probabilities"
    _same(memory, duckdb)
    errors = []
    for engine in ("memory", "duckdb"):
        result = _cli("report", files["csv"], "--y-true", "k", "--y-score", "p0", "--y-score", "p1", "--y-score", "p2",
                      "--labels", "0,1.5,2", "--engine", engine, *FAST)
        assert result.exit_code == 2, result.output  # memory truncated 1.5 to 1 before, without a word
        errors.append(result.stderr.strip())
    assert errors[0] == errors[1] and "are not integers" in errors[0]


def test_stdin_is_read_by_the_memory_engine(files):
    """``cat f.csv | beyondchance report -``: the memory engine reads stdin itself."""
    args = ["--y-true", "y", "--y-score", "s", "--engine", "memory"]
    piped = _json("report", "-", *args, input=files["text"])
    from_file = _json("report", files["csv"], *args)
    assert piped["name"] == "<stdin>"
    piped["name"] = from_file["name"]
    _same(piped, from_file)
