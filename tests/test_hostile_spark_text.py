"""Every engine reads text the same way (issue 41, item 3): Spark refuses bytes that are not
UTF-8 in the line of the memory and DuckDB engines, where it read a Latin-1 ``café`` and
``cafè`` as the one class ``caf�`` (exit 0), and reads any column name the other engines
read (a backtick, a dot, a space, a quote), where a used one was a syntax error.

One Spark session (the ``spark`` fixture) for the module; tiny CSV files.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest
from click.testing import CliRunner

import beyondchance as bc
from beyondchance.engines import compute_statistics
from beyondchance._warnings import InvalidInputError
from beyondchance.cli import main
from conftest import one_line_error, spark_unavailable

pytestmark = [
    pytest.mark.hostile,
    pytest.mark.skipif(spark_unavailable() is not None, reason=str(spark_unavailable())),
    pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas"),
]

ENGINES = ("memory", "duckdb", "spark")
#: awkward column names: each role's column, and an unused one
LABELS, SCORES, WEIGHTS, GROUPS, PREDICTED, UNUSED = "lab`el", "sco.re", "we ight", "gr'oup", 'pre"d', "`x`.y"


def _csv_field(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    """The files of the tests: Latin-1 labels of three classes, a Latin-1 score, a Latin-1
    label after a missing one, Latin-1 bytes in a column not read, a U+FFFD in UTF-8, a
    file of awkward column names, and Parquet files whose strings are not UTF-8."""
    tmp = tmp_path_factory.mktemp("spark_text")
    rng = np.random.default_rng(41)
    n = 120
    classes = np.array(["café", "cafè", "tea"])
    y = classes[rng.integers(0, 3, n)]
    p = np.where(rng.random(n) < 0.8, y, classes[rng.integers(0, 3, n)])
    out = {"latin1": tmp / "latin1.csv", "latin1_score": tmp / "latin1_score.csv",
           "latin1_unused": tmp / "latin1_unused.csv", "replacement": tmp / "replacement.csv",
           "awkward": tmp / "awkward.csv"}
    out["latin1"].write_bytes(("y,p\n" + "".join(f"{a},{b}\n" for a, b in zip(y, p))).encode("latin-1"))
    out["latin1_score"].write_bytes(b"y,s\n1,0.2\n0,0.9\n1,0.3\xe9\n0,0.1\n")
    out["latin1_missing"] = tmp / "latin1_missing.csv"
    out["latin1_missing"].write_bytes(b"y,s,g\n,0.2,A\n0,0.9,A\n1,0.3,B\ncaf\xe9,0.1,B\n1,0.5,A\n")
    out["latin1_unused"].write_bytes(b"y,s,note\n1,0.2,a\n0,0.9,caf\xe9\n1,0.7,b\n0,0.4,c\n")
    out["replacement"].write_text("y,p\ncafé,café\n\ufffd,café\ntea,tea\n", encoding="utf-8")
    labels = rng.integers(0, 2, n)
    scores = np.round(np.clip(0.3 * labels + rng.uniform(0, 0.7, n), 0, 1), 3)
    header = ",".join(map(_csv_field, [LABELS, SCORES, WEIGHTS, GROUPS, PREDICTED, UNUSED]))
    rows = [f"{labels[i]},{scores[i]},{rng.integers(1, 4)},{'AB'[rng.integers(0, 2)]},{int(scores[i] > 0.5)},{i}"
            for i in range(n)]
    out["awkward"].write_text(header + "\n" + "\n".join(rows) + "\n")
    out["parquet"] = _parquet_breaking_utf8(tmp / "parquet", n)
    return out


def _parquet_breaking_utf8(folder, n: int):
    """Two Parquet files whose string columns hold Latin-1 bytes (a writer that broke the
    format's rule of UTF-8): ``p`` first in data row 2 of the first file."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir()
    cycle = [b"tea", b"caf\xe8", b"tea", b"caf\xe9"]
    for i in range(2):
        y = pa.array([b"tea", b"tea", b"caf\xe9", b"tea"] * (n // 4), pa.binary()).view(pa.string())
        p = pa.array(cycle[i:] + cycle * (n // 4 - 1) + cycle[:i], pa.binary()).view(pa.string())
        pq.write_table(pa.table({"y": y, "p": p}), folder / f"part{i}.parquet")
    return folder


def _run(*args: str):
    """The CLI in-process (``--engine spark`` reuses the fixture's session: ``getOrCreate``)."""
    return CliRunner().invoke(main, [str(a) for a in args])


def _json(*args: str) -> dict:
    result = _run(*args, "--format", "json")
    assert result.exit_code == 0, (result.exit_code, result.output)
    return json.loads(result.stdout)


def _same_numbers(a, b, path: str = "") -> None:
    """Equal JSON but for the engine's name, numbers to 1e-9 relative."""
    if isinstance(a, dict) and isinstance(b, dict):
        keys = set(a) | set(b)
        for key in keys - {"engine", "task_reason"}:
            assert key in a and key in b, f"{path}.{key}"
            _same_numbers(a[key], b[key], f"{path}.{key}")
    elif isinstance(a, list) and isinstance(b, list):
        assert len(a) == len(b), path
        for i, (x, z) in enumerate(zip(a, b)):
            _same_numbers(x, z, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, (int, float)):
        assert math.isclose(a, b, rel_tol=1e-9, abs_tol=1e-12), (path, a, b)
    else:
        assert a == b, (path, a, b)


@pytest.mark.parametrize("case, args", [
    ("latin1", ["report", "--y-true", "y", "--y-pred", "p"]),
    ("latin1_score", ["report", "--y-true", "y", "--y-score", "s"]),
    ("latin1_missing", ["compare", "--by", "g", "--y-true", "y", "--y-score", "s"]),
], ids=["labels", "scores", "labels-missing"])
def test_spark_refuses_latin1_in_the_line_of_memory_and_duckdb(spark, files, case, args):
    """Spark read café and cafè as caf� (a 3-class problem reported as binary, exit 0), and
    a Latin-1 score as text; memory said "must be numeric" of the score, and counted the
    row of a label among the labels present only (``compare --by``: labels may be missing)."""
    command, options = args[0], args[1:]
    lines = {engine: one_line_error(_run(command, files[case], *options, "--engine", engine, "--no-ci"))
             for engine in ENGINES}
    assert lines["spark"] == lines["memory"] == lines["duckdb"], lines
    assert f"of {files[case]} is not UTF-8 text: data row " in lines["spark"]
    assert "holds the bytes b'" in lines["spark"] and "\\xe" in lines["spark"]  # é or è in Latin-1
    # Latin-1 bytes in a column not read are harmless, as they are on the memory engine
    args = ["--y-true", "y", "--y-score", "s", "--no-ci"]
    assert _json("report", files["latin1_unused"], *args, "--engine", "spark")["n"] == 4


@pytest.mark.parametrize("part, args", [
    ("part0.parquet", ["--y-true", "p", "--y-pred", "y"]),
    ("part1.parquet", ["--y-true", "y", "--y-pred", "p"]),
], ids=["labels", "predicted"])
def test_spark_refuses_latin1_parquet_strings_in_the_line_of_memory(spark, files, part, args):
    """Parquet strings that are not UTF-8: Spark failed converting the labels ("Wrapping caf�
    failed") and memory with an internal error (exit 3); now both name the column, the
    file, the row and its bytes (DuckDB refuses the file in its own line, naming the file)."""
    path = files["parquet"] / part
    lines = {engine: one_line_error(_run("report", path, *args, "--engine", engine, "--no-ci"))
             for engine in ("memory", "spark")}
    assert lines["spark"] == lines["memory"], lines
    assert f"of {path} is not UTF-8 text: data row " in lines["spark"]
    assert path.name in one_line_error(_run("report", path, *args, "--engine", "duckdb", "--no-ci"))


def test_spark_refuses_replacement_characters_of_a_remote_csv(spark, files):
    """A remote file's bytes are Spark's to read: a U+FFFD in a column read is refused."""
    url = files["latin1"].as_uri()  # file://, read by Spark, not checked byte by byte here
    with pytest.raises(InvalidInputError, match=r"column 'y' of file://.* is not UTF-8 text: .*U\+FFFD"):
        compute_statistics(url, y_true="y", y_pred="p", engine="spark", spark=spark)
    with pytest.raises(InvalidInputError, match="U\\+FFFD"):
        compute_statistics(files["replacement"].as_uri(), y_true="y", y_pred="p", engine="spark", spark=spark)
    # a local file with a genuine U+FFFD is text like any other, on every engine
    reports = [_json("report", files["replacement"], "--y-true", "y", "--y-pred", "p", "--engine", engine, "--no-ci")
               for engine in ENGINES]
    assert reports[0]["n"] == 3
    _same_numbers(reports[0], reports[2])


@pytest.mark.parametrize("args", [
    ["report", "--y-true", LABELS, "--y-score", SCORES, "--weight", WEIGHTS, "--no-ci"],
    ["report", "--y-true", LABELS, "--y-pred", PREDICTED, "--no-ci"],
    ["compare", "--by", GROUPS, "--y-true", LABELS, "--y-score", SCORES, "--no-ci"],
], ids=["weighted-scores", "predicted", "compare-by"])
def test_spark_reads_awkward_column_names_as_memory(spark, files, args):
    """Backticks, dots, spaces and quotes in the names of the columns used and unused: the
    numbers of the memory engine on DuckDB and Spark (Spark: a syntax error, exit 2).
    ``compare --by`` reads the rows with their file-order index (``_with_row_index``)."""
    command, options = args[0], args[1:]
    reports = {engine: _json(command, files["awkward"], *options, "--engine", engine) for engine in ENGINES}
    _same_numbers(reports["memory"], reports["spark"])
    _same_numbers(reports["memory"], reports["duckdb"])
