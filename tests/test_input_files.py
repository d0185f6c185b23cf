"""Input files read alike by every engine, or refused with one line (issue 11, items 1-3, 5-7).

Each test builds a file that trapped one engine: rows lost after an unclosed quote,
column types guessed from the first rows, doubled quotes, delimiters, integer scores,
integers beyond 64 bits, ``[ ]`` in a file name, remote paths.  The expected values
come from numpy on the generated columns, never from our own output.
"""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.engines import compute_statistics
from beyondchance import InvalidInputError
from conftest import spark_unavailable

FAST = ["--mc-samples", "256", "--no-ci", "--format", "json"]
SQL_ENGINES = ["duckdb", "spark"]
ALL_ENGINES = ["memory", *SQL_ENGINES]


def _cli(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("BEYONDCHANCE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=600)


def _json(*args: str) -> dict:
    r = _cli(*args, *FAST)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _one_line_error(r: subprocess.CompletedProcess) -> str:
    assert r.returncode == 2, (r.returncode, r.stdout[-500:], r.stderr[-2000:])
    assert r.stdout == ""
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("beyondchance: error: "), r.stderr[-2000:]
    return lines[0]


def _same_report(a: dict, b: dict) -> None:
    for d in (a, b):
        for key in ("engine", "name", "task_reason"):
            d.pop(key, None)
    assert a == b


def _stats(path, engine: str, spark=None, **kwargs):
    extra = {"spark": spark} if engine == "spark" else {}
    return compute_statistics(str(path), engine=engine, **extra, **kwargs)


def _engine(request, engine: str):
    """The spark fixture for engine 'spark' (skips without Java / pyspark), else None."""
    return request.getfixturevalue("spark") if engine == "spark" else None


# ======================================================================================
# item 1: an unclosed quote loses every later row -> an error naming the row
# ======================================================================================


def _unclosed_quote_csv(path: Path, n: int, bad_row: int) -> np.ndarray:
    rng = np.random.default_rng(0)
    y = (rng.random(n) < 0.3).astype(int)
    s = rng.random(n).round(4)
    lines = ["y,s"] + [f"{a},{b}" for a, b in zip(y, s)]
    lines[bad_row] = '1,"0.5'
    text = "\n".join(lines) + "\n"
    if path.suffix == ".gz":
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return y


@pytest.mark.parametrize("suffix", [".csv", ".csv.gz"])
def test_memory_cli_unclosed_quote_names_the_row(tmp_path, suffix):
    """Was: '"n": 109349', exit 0, on 200,000 rows; pyarrow swallowed the rows after the quote."""
    path = tmp_path / f"unclosed{suffix}"
    _unclosed_quote_csv(path, 200_000, 100_000)
    before = path.read_bytes()
    line = _one_line_error(_cli("report", path, "--y-true", "y", "--y-score", "s", *FAST))
    assert "data row 100000" in line and "never closed" in line
    assert path.read_bytes() == before


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_every_engine_refuses_an_unclosed_quote(tmp_path, request, engine):
    spark = _engine(request, engine)
    path = tmp_path / "unclosed.csv"
    _unclosed_quote_csv(path, 3_000, 1_500)
    with pytest.raises(InvalidInputError, match="data row 1500 .*never closed"):
        _stats(path, engine, spark, y_true="y", y_score="s")


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_a_quote_closed_rows_later_by_another_stray_quote_is_refused(tmp_path, request, engine):
    """Review: with an even number of quotes the memory engine read 600 of 2,000 rows, exit 0."""
    spark = _engine(request, engine)
    rng = np.random.default_rng(0)
    notes = ["x"] * 2_000
    notes[99], notes[1_499] = '"oops', '12" tv'
    path = tmp_path / "even.csv"
    path.write_text("y,s,note\n" + "".join(f"{int(rng.random() < 0.3)},{rng.random():.3f},{t}\n" for t in notes))
    with pytest.raises(InvalidInputError, match="data row 100 .*not closed where its field ends"):
        _stats(path, engine, spark, y_true="y", y_score="s")


def test_quoted_fields_spanning_lines_are_read(tmp_path):
    path = tmp_path / "multiline.csv"
    path.write_text('y,s,t\n1,0.5,"multi\nline"\n0,0.2,"a ""q"""\n1,0.7,x\n0,0.1,"b\r\nc"\n')
    for engine in ("memory", "duckdb"):
        assert _stats(path, engine, y_true="y", y_score="s").n == 4


def test_unclosed_quote_in_a_label_column_is_refused_too(tmp_path):
    """A label column swallows the rest of the file without a conversion error."""
    path = tmp_path / "label.csv"
    path.write_text("y,s\n" + "".join(f"{i % 2},0.{i % 9}\n" for i in range(50)) + '"1,0.3\n0,0.2\n1,0.4\n')
    for engine in ("memory", "duckdb"):
        with pytest.raises(InvalidInputError, match="data row 51 .*never closed"):
            _stats(path, engine, y_true="y", y_score="s")


# ======================================================================================
# item 2: DuckDB typed columns from the first rows; one call made two scans
# ======================================================================================


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_invalid_utf8_in_a_column_read_is_one_line(tmp_path, engine):
    """Found by the CLI fuzzer: the memory engine ended with exit 1 (ArrowInvalid)."""
    path = tmp_path / "latin1.csv"
    path.write_bytes(b"y,s\n\xe9,0.2\n1,0.9\n")
    line = _one_line_error(_cli("report", path, "--y-true", "y", "--y-score", "s", "--engine", engine, *FAST))
    assert "UTF-8" in line or "utf-8" in line


def test_invalid_utf8_in_a_column_not_read_is_harmless(tmp_path):
    path = tmp_path / "latin1_other.csv"
    path.write_bytes(b"y,s,x\n1,0.2,a\n0,0.9,\xe9\n")
    assert _json("report", path, "--y-true", "y", "--y-score", "s", "--format", "json")["n"] == 2


@pytest.fixture(scope="module")
def late_fractions(tmp_path_factory) -> dict:
    """30,000 rows of integral weights and scores, then 2,000 fractional (DuckDB samples 20,480 rows)."""
    rng = np.random.default_rng(11)
    head, tail = 30_000, 2_000
    n = head + tail
    y = (rng.random(n) < 0.4).astype(np.int64)
    w = np.concatenate([np.ones(head), rng.integers(1, 1000, tail) / 1000])
    s = np.concatenate([rng.integers(0, 2, head).astype(float), rng.integers(0, 1000, tail) / 1000])
    path = tmp_path_factory.mktemp("late") / "late.csv"
    with path.open("w") as fh:
        fh.write("y,s,w\n")
        for a, b, c in zip(y, s, w):
            fh.write(f"{a},{b:g},{c:g}\n")
    return {"path": path, "y": y, "s": s, "w": w}


def test_duckdb_weights_typed_from_every_row(late_fractions):
    """Was: total weight 30,000 + 2,000 (rounded) instead of the true sum; AUC off."""
    d = late_fractions
    stats = _stats(d["path"], "duckdb", y_true="y", y_score="s", sample_weight="w")
    assert stats.label_counts.counts.sum() == pytest.approx(d["w"].sum(), rel=1e-12)
    from sklearn.metrics import roc_auc_score

    assert stats.auc("roc") == pytest.approx(roc_auc_score(d["y"], d["s"], sample_weight=d["w"]), abs=1e-12)


def test_one_call_is_one_consistent_scan(late_fractions, tmp_path, monkeypatch):
    """The file is replaced after the first query: every statistic still comes from one read."""
    from beyondchance.engines.duckdb import DuckDBRunner

    d = late_fractions
    path = tmp_path / "moving.csv"
    shutil.copy(d["path"], path)
    run = DuckDBRunner.run
    calls = []

    def run_then_replace(self, sql):
        out = run(self, sql)
        if not calls:
            path.write_text("y,s,w\n1,0.5,7\n0,0.25,3\n")
        calls.append(sql)
        return out

    monkeypatch.setattr(DuckDBRunner, "run", run_then_replace)
    stats = _stats(path, "duckdb", y_true="y", y_score="s", sample_weight="w")
    assert len(calls) == 2
    assert stats.confusion.n == pytest.approx(d["w"].sum(), rel=1e-12)
    assert stats.scores.n == pytest.approx(d["w"].sum(), rel=1e-12)


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_a_rare_fractional_label_deep_in_the_file(tmp_path, request, engine):
    """Was (duckdb): the label 0.5 in row 25,000 read as 1."""
    spark = _engine(request, engine)
    n = 25_000
    y = np.tile([0.0, 1.0], n // 2)
    y[-3] = 0.5
    path = tmp_path / "labels.csv"
    path.write_text("y\n" + "\n".join(f"{v:g}" for v in y) + "\n")
    lc = _stats(path, engine, spark, y_true="y", y_pred="y", task="multiclass-labels", statistics=("label_counts",)).label_counts
    values, counts = np.unique(y, return_counts=True)
    assert lc.labels.tolist() == values.tolist() and lc.counts.tolist() == counts.tolist()


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_non_number_deep_in_a_score_column_names_its_row(tmp_path, engine):
    path = tmp_path / "bad.csv"
    rows = [f"{i % 2},0.{i % 7}" for i in range(25_000)]
    rows[24_000] = "1,abc"
    path.write_text("y,s\n" + "\n".join(rows) + "\n")
    line = _one_line_error(_cli("report", path, "--y-true", "y", "--y-score", "s", "--engine", engine, *FAST))
    assert "'abc'" in line and ("data row 24001" in line or "line 24002" in line)


# ======================================================================================
# item 3: the engines agree on quoting, delimiters, integer scores, huge integers
# ======================================================================================


def _binary_file(path: Path, delimiter: str = ",", n: int = 400, quoted: bool = False) -> None:
    rng = np.random.default_rng(3)
    y = (rng.random(n) < 0.35).astype(int)
    s = np.clip(rng.normal(0.4 + 0.2 * y, 0.2), 0, 1).round(3)
    text = [f'"he said ""q{i}"", {delimiter}ok"' if quoted else f"t{i}" for i in range(n)]
    path.write_text(delimiter.join(["y", "note", "s"]) + "\n"
                    + "".join(delimiter.join([str(a), t, str(b)]) + "\n" for a, t, b in zip(y, text, s)))


@pytest.mark.parametrize("engine", SQL_ENGINES)
def test_doubled_quotes_rfc4180(tmp_path, request, engine):
    """Was (spark): the note read as 'q""' and the row's later cells shifted."""
    spark = _engine(request, engine)
    path = tmp_path / "quoted.csv"
    _binary_file(path, quoted=True)
    args = dict(y_true="y", y_score="s")
    mem, other = _stats(path, "memory", **args), _stats(path, engine, spark, **args)
    assert mem.confusion.matrix.tolist() == other.confusion.matrix.tolist()
    assert mem.auc("roc") == other.auc("roc")
    notes = compute_statistics(str(path), engine=engine, **({"spark": spark} if spark else {}),
                                  y_true="note", y_pred="note", task="multiclass-labels", statistics=("label_counts",))
    assert 'he said "q0", ,ok' in notes.label_counts.labels.tolist()


@pytest.mark.parametrize("name, delimiter", [("t.tsv", None), ("semi.csv", ";"), ("pipe.txt", "|")])
def test_delimiters_memory_equals_duckdb(tmp_path, name, delimiter):
    """Was: duckdb guessed the delimiter, memory refused the file."""
    path = tmp_path / name
    _binary_file(path, delimiter or "\t")
    extra = [] if delimiter is None else ["--delimiter", delimiter]
    args = ["--y-true", "y", "--y-score", "s", *extra]
    _same_report(_json("report", path, *args, "--engine", "memory"), _json("report", path, *args, "--engine", "duckdb"))


def test_without_delimiter_both_engines_refuse_a_semicolon_file(tmp_path):
    path = tmp_path / "semi.csv"
    _binary_file(path, ";")
    for engine in ("memory", "duckdb"):
        line = _one_line_error(_cli("report", path, "--y-true", "y", "--y-score", "s", "--engine", engine, *FAST))
        assert "looks like ';'" in line


def test_spark_reads_delimiters(tmp_path, spark):
    for name, delimiter in (("t.tsv", None), ("semi.csv", ";")):
        path = tmp_path / name
        _binary_file(path, delimiter or "\t")
        args = dict(y_true="y", y_score="s", delimiter=delimiter)
        assert _stats(path, "spark", spark, **args).auc("roc") == _stats(path, "memory", **args).auc("roc")


def test_spark_infers_the_csv_types_of_the_other_engines(tmp_path, spark):
    """Spark's default read "2024-02" as the timestamp 2024-02-01 00:00:00, so a ``--by month``
    group was named unlike on memory and DuckDB; ISO timestamps stay timestamps."""
    from beyondchance.engines.duckdb import DuckDBRunner
    from beyondchance.engines.spark import SparkRunner

    path = tmp_path / "months.csv"
    path.write_text("m,d,t,u,f\n2024-02,2024-02-01,2024-02-01T10:00:00,2024-02-01 10:00:00.5,1.5\n"
                    "2024-03,2024-03-05,2024-03-05T11:30:00Z,2024-03-05 11:30,2.5\n")
    runners = [DuckDBRunner(str(path)), SparkRunner(str(path), spark=spark)]
    try:
        kinds = []
        for r in runners:
            r.load(["m", "d", "t", "u", "f"], ["f"])
            kinds.append(r.column_kinds())
        types = dict(runners[1]._read.dtypes)  # the types the CSV reader inferred
    finally:
        for r in runners:
            r.close()
    assert kinds[0] == kinds[1] and kinds[1]["m"] == "string" and kinds[1]["f"] == "float", kinds
    assert types["m"] == "string" and types["d"] == "date" and types["t"] == types["u"] == "timestamp", types


def test_integer_score_column(tmp_path):
    """Was (duckdb): 'give exactly one of y_score ... got none'; memory read the integers as labels."""
    path = tmp_path / "ints.csv"
    rng = np.random.default_rng(1)
    y = (rng.random(300) < 0.4).astype(int)
    s = rng.integers(0, 6, 300)
    path.write_text("y,s\n" + "".join(f"{a},{b}\n" for a, b in zip(y, s)))
    args = ["--y-true", "y", "--y-score", "s"]
    _same_report(_json("report", path, *args, "--engine", "memory"), _json("report", path, *args, "--engine", "duckdb"))


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_labels_beyond_int64_are_refused_not_merged(tmp_path, request, engine):
    """Was: DuckDB crashed on HUGEINT labels; then (review) every engine read them as floats,
    so 2**63 + 1 and 2**63 + 2 became one class: accuracy 0.75 where it is 0.375."""
    spark = _engine(request, engine)
    path = tmp_path / "big.csv"
    big = [2**63 + 1, 2**63 + 2, 0]
    path.write_text("y,s\n" + "".join(f"{big[i % 3]},{(i % 10) / 10}\n" for i in range(60)))
    with pytest.raises(InvalidInputError, match=r"floating-point label beyond 2\*\*53"):
        _stats(path, engine, spark, y_true="y", y_score="s")


# ======================================================================================
# item 5: a file name with [ ] is that file
# ======================================================================================


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_literal_brackets_in_a_file_name(tmp_path, request, engine):
    """Was: 'a[1].csv' globbed to a1.csv (a different file) in duckdb and spark."""
    spark = _engine(request, engine)
    (tmp_path / "a[1].csv").write_text("y,s\n1,0.9\n0,0.1\n1,0.8\n")
    (tmp_path / "a1.csv").write_text("y,s\n1,0.1\n0,0.9\n1,0.2\n")
    stats = _stats(tmp_path / "a[1].csv", engine, spark, y_true="y", y_score="s")
    assert stats.auc("roc") == 1.0


def test_cli_literal_brackets(tmp_path):
    (tmp_path / "a[1].csv").write_text("y,s\n1,0.9\n0,0.1\n1,0.8\n0,0.3\n")
    (tmp_path / "a1.csv").write_text("y,s\n1,0.1\n0,0.9\n1,0.2\n0,0.8\n")
    out = _json("report", tmp_path / "a[1].csv", "--y-true", "y", "--y-score", "s", "--engine", "duckdb")
    assert out["metrics"]["roc_auc"]["value"] == 1.0


# ======================================================================================
# item 6: no extension downloads
# ======================================================================================


def test_duckdb_never_downloads_extensions(tmp_path):
    from beyondchance.engines.duckdb import DuckDBRunner

    path = tmp_path / "x.csv"
    path.write_text("y,s\n1,0.5\n")
    runner = DuckDBRunner(str(path))
    try:
        settings_ = runner.con.execute(
            "SELECT current_setting('autoinstall_known_extensions'), current_setting('autoload_known_extensions')"
        ).fetchall()[0]
    finally:
        runner.close()
    assert settings_ == (False, False)
    with pytest.raises(InvalidInputError, match="remote path.*connection"):
        compute_statistics("https://example.invalid/scores.csv", y_true="y", y_score="s", engine="duckdb")


def test_cli_remote_path_one_line(tmp_path):
    line = _one_line_error(_cli("report", "s3://bucket/scores*.csv", "--y-true", "y", "--y-score", "s",
                                "--engine", "duckdb", *FAST))
    assert "remote path" in line and "httpfs" in line


# ======================================================================================
# item 7: the size of exact statistics is stated, and how to bound it
# ======================================================================================


def test_help_states_the_size_of_exact_statistics():
    r = _cli("report", "--help")
    text = " ".join(r.stdout.split())
    assert "one row per distinct score in memory whatever the engine" in text
    assert "--score-bins 10000" in text


# ======================================================================================
# engine equivalence over files built to trap type inference
# ======================================================================================


@st.composite
def trap_files(draw):
    """Parameters of a CSV file: integral first rows then fractional, rare labels deep in it,
    quoted text with doubled quotes and delimiters, weights, a delimiter."""
    return dict(
        seed=draw(st.integers(0, 2**32 - 1)),
        head=draw(st.sampled_from([10, 21_000])),  # DuckDB used to sniff 20,480 rows
        tail=draw(st.integers(1, 300)),
        delimiter=draw(st.sampled_from([",", ";", "\t"])),
        labels=draw(st.sampled_from(["int", "text", "rare_half", "bool"])),
        weights=draw(st.booleans()),
        quoted=draw(st.booleans()),
        integral_scores=draw(st.booleans()),
    )


def _write_trap(path: Path, p: dict) -> None:
    rng = np.random.default_rng(p["seed"])
    n = p["head"] + p["tail"]
    y = (rng.random(n) < 0.4).astype(int)
    if p["labels"] == "text":
        labels = np.where(y == 1, "yes", "no").astype(object)
    elif p["labels"] == "bool":
        labels = np.where(y == 1, "true", "false").astype(object)
    else:
        labels = y.astype(str).astype(object)
        if p["labels"] == "rare_half":
            labels[n - 1 - rng.integers(0, p["tail"])] = "0.5"
    head_s = rng.integers(0, 2, p["head"]).astype(str)
    tail_s = rng.integers(0, 10_000, p["tail"]).astype(str) if p["integral_scores"] else \
        np.char.mod("%.4f", rng.random(p["tail"]))
    s = np.concatenate([head_s, tail_s])
    w = np.concatenate([np.ones(p["head"], dtype=int).astype(str), np.char.mod("%.3f", rng.random(p["tail"]) + 0.01)])
    d = p["delimiter"]
    cols = [labels, s] + ([w] if p["weights"] else [])
    names = ["y", "s"] + (["w"] if p["weights"] else [])
    if p["quoted"]:
        cols.append(np.array([f'"a""{i}""{d}b"' for i in range(n)], dtype=object))
        names.append("note")
    with path.open("w", newline="") as fh:
        fh.write(d.join(names) + "\n")
        for row in zip(*cols):
            fh.write(d.join(map(str, row)) + "\n")


def _outcome(path: Path, p: dict, engine: str, spark=None):
    """What an engine makes of the file: its statistics' counts and measures, or its error."""
    kwargs = dict(y_true="y", y_score="s", sample_weight="w" if p["weights"] else None,
                  delimiter=p["delimiter"], pos_label={"text": "yes", "bool": True}.get(p["labels"], 1))
    try:
        st_ = _stats(path, engine, spark, **kwargs)
    except InvalidInputError as exc:
        return ("error", str(exc).split(":")[0] if "classes" not in str(exc) else "classes")
    return ("ok", st_.label_counts.labels.tolist(), st_.label_counts.counts, st_.confusion.matrix, st_.scores.n,
            st_.auc("roc"), st_.auc("pr"))


def _assert_same(a, b) -> None:
    assert a[0] == b[0], (a, b)
    if a[0] == "error":
        return
    assert a[1] == b[1]
    for x, y in zip(a[2:], b[2:]):
        np.testing.assert_allclose(x, y, rtol=1e-9, atol=1e-9)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(p=trap_files())
def test_property_memory_equals_duckdb_on_trap_files(tmp_path, p):
    path = tmp_path / ("trap.tsv" if p["delimiter"] == "\t" else "trap.csv")
    _write_trap(path, p)
    _assert_same(_outcome(path, p, "memory"), _outcome(path, p, "duckdb"))


@settings(max_examples=4, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(p=trap_files())
def test_property_memory_equals_spark_on_trap_files(tmp_path, spark, p):
    path = tmp_path / ("trap.tsv" if p["delimiter"] == "\t" else "trap.csv")
    _write_trap(path, p)
    _assert_same(_outcome(path, p, "memory"), _outcome(path, p, "spark", spark))


def test_spark_cli_error_is_one_line_on_stderr(tmp_path):
    """The JVM's start-up lines (log4j profile, host name, native-hadoop warnings) and
    pyspark's FutureWarning stood before the error line; a fresh process shows them."""
    reason = spark_unavailable()
    if reason:
        pytest.skip(reason)
    path = tmp_path / "short.csv"
    path.write_text("y,s,t\n1,0.5,a\n0,0.2\n1,0.3,b\n")
    line = _one_line_error(_cli("report", path, "--y-true", "y", "--y-score", "s", "--engine", "spark", *FAST))
    assert "Malformed CSV record" in line


@pytest.mark.parametrize("engine", ALL_ENGINES)
def test_a_column_named_twice_in_the_header_is_refused(tmp_path, request, engine):
    """Found by the CLI fuzzer: `y,s,y` was read with one of the two `y` columns, silently."""
    _engine(request, engine)  # skips Spark where it cannot run; the CLI reuses the session
    path = tmp_path / "dup.csv"
    path.write_text("y,s,y\n0,0.1,1\n1,0.9,0\n0,0.3,1\n1,0.7,0\n")
    from click.testing import CliRunner

    from beyondchance.cli import main

    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-score", "s", "--engine", engine,
                                       *FAST])
    assert result.exit_code == 2, result.output
    assert result.stderr.strip() == (f"beyondchance: error: column 'y' appears 2 times in the header of {path}; "
                                     "rename the copies so that the one meant is unambiguous")


def test_a_recursive_glob_reads_the_same_files_in_memory_and_duckdb_spark_refuses_it(tmp_path, spark):
    """Review: 'g/**/*.csv' gave 3 rows in memory (no recursion) and 9 in DuckDB."""
    for sub in ("", "a", "a/b"):
        (tmp_path / "g" / sub).mkdir(parents=True, exist_ok=True)
        (tmp_path / "g" / sub / "part.csv").write_text("y,s\n0,0.1\n1,0.8\n1,0.6\n")
    pattern = str(tmp_path / "g" / "**" / "*.csv")
    assert _stats(pattern, "memory", y_true="y", y_score="s").n == 9
    assert _stats(pattern, "duckdb", y_true="y", y_score="s").n == 9
    with pytest.raises(InvalidInputError, match=r"do not recurse into folders with \*\*"):
        _stats(pattern, "spark", spark, y_true="y", y_score="s")


# ======================================================================================
# issue 29: Decimal128 columns are the nearest doubles on every engine
# ======================================================================================


def test_decimal_columns_are_the_nearest_doubles(tmp_path):
    """Was: memory refused a Decimal128 column that DuckDB and Spark read as DOUBLE.  Memory
    now reads it through its text: pyarrow's own decimal cast is not correctly rounded (seed
    11: some of 2,000 random decimal(10, 4) values land one unit in the last place off)."""
    import decimal
    import random

    import pyarrow as pa
    import pyarrow.parquet as pq

    from beyondchance.engines.duckdb import DuckDBRunner
    from beyondchance.engines.files import read_file_columns as read_columns

    rng = random.Random(11)
    values = [decimal.Decimal(rng.randrange(10**10)).scaleb(-4) for _ in range(2000)]
    column = pa.array(values, pa.decimal128(10, 4))
    path = tmp_path / "d.parquet"
    pq.write_table(pa.table({"d": column}), path)
    nearest = np.array([float(v) for v in values])
    assert not np.array_equal(column.cast(pa.float64()).to_numpy(), nearest)  # why not pyarrow's cast
    assert np.array_equal(read_columns(path, ["d"], numeric=["d"]).columns["d"], nearest)
    runner = DuckDBRunner(str(path))
    try:
        runner.load(["d"], ["d"])
        ddb = runner.run(f"SELECT CAST(d AS DOUBLE) AS d FROM {runner.relation}")["d"]  # in no set order
        assert np.array_equal(np.sort(ddb), np.sort(nearest))
    finally:
        runner.close()
