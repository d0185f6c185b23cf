"""Adversarial input for the command line: random, often broken, CSV files and random
option combinations given to ``beyondchance report`` and ``compare`` (memory and DuckDB
engines), run in-process.

The contract checked on every example (issue 11, "Nothing silently wrong"):

* exit status 0 with valid output: ``--format json`` parses, its row count ``n`` equals
  the number of data rows written to the file (per test set for ``compare``; their sum
  for ``compare --by``), its ``total_weight`` equals the sum of the weights written, its
  classes are the distinct labels written; a table is printed;
* or exit status 2 with exactly one line on stderr, ``beyondchance: error: ...``;
* never a traceback, never exit status 3 (an internal error) nor 1 (kept for a failed gate).

The files: mixed types in a column, blank cells, NaN/NA/null strings, unicode (in cells
and column names), very long cells, ragged rows, an unterminated quote (in the last row
or in the middle), a byte-order mark, CRLF line ends, gzip, a header without rows,
duplicate column names, ``;`` and tab separators, invalid UTF-8, weights equal to 1 in
the first rows and fractional after, and (rarely) thousands of clean rows before a
late odd value (type inference of the readers).  The options: ``--y-score`` or
``--y-pred``, ``--weight``, ``--pos-label``, ``--threshold``, ``--task``, ``--labels``,
``--score-bins``, ``--format table|json``, ``--engine memory|duckdb``, ``compare --by``.

Bounded: ``BEYONDCHANCE_FUZZ_EXAMPLES`` examples per test (default 100: about 10 s of CPU when it passes) with no deadline;
a longer local run::

    BEYONDCHANCE_FUZZ_EXAMPLES=2000 pytest tests/test_cli_fuzz.py
"""

from __future__ import annotations

import gzip
import json
import math
import os
import shutil
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from beyondchance.cli import main

EXAMPLES = int(os.environ.get("BEYONDCHANCE_FUZZ_EXAMPLES", "100"))

#: rows written before the interesting ones in the rare "long file" examples: more than
#: DuckDB's type-sniffing sample (20,480 rows)
LONG_PAD = 21_000

#: cells that are not what the column's other cells are
NASTY = [
    "", " ", "NA", "N/A", "NaN", "nan", "null", "NULL", "None", "-", "?", "inf", "-inf", "Infinity",
    "0.5", "1.0", "2", "-1", "0", "1", "1e308", "1e-320", "1e400", "9223372036854775808",
    "18446744073709551615", "-9223372036854775809", "true", "false", "TRUE", "yes", "é", "日本語",
    "\u00a0", "a,b", 'q"x', '""', "x\ny", "x\r\ny", "\t", "1,5", "$x^2$", "<b>", "x" * 300, "\u202e1",
    "0x1", "1 ", " 0",
]

#: names of the columns, some of them awkward; the options name them exactly
NAMES = ["y", "label", "s", "score", "p", "w", "g", "é", "日本", "a b", "a,b", 'q"t', "$y$", "1", "NA", "Ω"]


# ======================================================================================
# the generated case
# ======================================================================================


def _short(data, limit: int = 600) -> str:
    text = repr(data)
    return text if len(text) <= limit else f"{text[:limit // 2]} ... ({len(data)} in all) ... {text[-limit // 4:]}"


class _ShortRepr:
    def _repr_pretty_(self, p, cycle):  # hypothesis prints the failing example with this
        p.text(repr(self))


@dataclass(repr=False)
class File(_ShortRepr):
    name: str
    content: bytes
    rows: int  # data records written (every record, the broken ones included)
    cells: dict[str, list[str]]  # role (y, s, p, w, g, x) -> the cells written
    broken: str  # "" or what is wrong with the file as a whole

    def __repr__(self) -> str:
        return f"File({self.name!r}, rows={self.rows}, broken={self.broken!r}, content={_short(self.content)})"


@dataclass(repr=False)
class Case(_ShortRepr):
    command: str  # report | compare
    files: list[File]
    options: list[str]
    fmt: str
    weight: bool
    by: bool
    roles: dict[str, str] = field(default_factory=dict)  # column name -> role

    def __repr__(self) -> str:
        return f"Case({self.command!r}, files={self.files!r}, options={self.options!r})"

    def args(self, directory: Path) -> list[str]:
        paths = [str(directory / f.name) for f in self.files]
        return [self.command, *paths, *self.options]


def _number(text: str) -> float | None:
    """The value of a numeric cell as every reader should see it, or None."""
    t = text.strip()
    if t.lower() in {"nan", "inf", "-inf", "infinity", "-infinity", "+inf"} or not t:
        return None
    try:
        v = float(t)
    except ValueError:
        return None
    return v if math.isfinite(v) else None


def _class_key(value) -> object:
    """Labels compared loosely: 1, 1.0, "1", true and "true" are the same class."""
    if isinstance(value, bool):
        return float(value)
    if isinstance(value, (int, float)):
        return float(value)
    t = str(value).strip()
    if t.lower() in {"true", "false"}:
        return 1.0 if t.lower() == "true" else 0.0
    v = _number(t)
    return v if v is not None else t


# ======================================================================================
# strategies
# ======================================================================================


def _rare(draw, k: int) -> bool:
    """True once in k + 1 draws; shrinks to False."""
    return draw(st.integers(0, k)) == k


def _column_cells(draw, kind: str, n: int) -> list[str]:
    if kind == "binary01":
        return [draw(st.sampled_from(["0", "1"])) for _ in range(n)]
    if kind == "yesno":
        return [draw(st.sampled_from(["yes", "no"])) for _ in range(n)]
    if kind == "multiclass":
        return [draw(st.sampled_from(["0", "1", "2"])) for _ in range(n)]
    if kind == "unicode":
        return [draw(st.sampled_from(["é", "日本", "ü x", "Ω"])) for _ in range(n)]
    if kind == "bool":
        return [draw(st.sampled_from(["true", "false"])) for _ in range(n)]
    if kind == "prob":
        return [repr(draw(st.floats(0, 1, allow_nan=False))) for _ in range(n)]
    if kind == "wide":
        return [repr(draw(st.floats(-1e6, 1e6, allow_nan=False))) for _ in range(n)]
    if kind == "int":
        return [str(draw(st.integers(-5, 5))) for _ in range(n)]
    if kind == "count":
        return [str(draw(st.integers(0, 5))) for _ in range(n)]
    if kind == "posweight":
        return [draw(st.sampled_from(["1", "2", "0.5", "1.25", "3"])) for _ in range(n)]
    if kind == "ones":
        return ["1"] * n
    if kind == "group":
        return [draw(st.sampled_from(["a", "b", "10", "9", "2024-02", "2024-10"])) for _ in range(n)]
    if kind == "text":
        return [draw(st.text(max_size=8)) for _ in range(n)]
    raise AssertionError(kind)


def _corrupt(draw, cells: list[str]) -> list[str]:
    cells = list(cells)
    if cells and _rare(draw, 5):
        for _ in range(draw(st.integers(1, 2))):
            i = draw(st.integers(0, len(cells) - 1))
            cells[i] = draw(st.sampled_from(NASTY) | st.text(max_size=4))
    return cells


def _needs_quotes(cell: str, delimiter: str) -> bool:
    return any(c in cell for c in (delimiter, '"', "\n", "\r")) or cell != cell.strip()


def _quote(cell: str) -> str:
    return '"' + cell.replace('"', '""') + '"'


@st.composite
def csv_file(draw, name: str, columns: dict[str, str], weight: str | None, by: str | None, long_odds: int = 14):
    """One CSV file with the given columns {name: role} (roles: y, s, p, w, g, x)."""
    n = draw(st.integers(0, 3)) if _rare(draw, 9) else draw(st.integers(4, 30))
    long_file = _rare(draw, long_odds)
    pad = LONG_PAD if long_file else 0
    kinds = {
        "y": draw(st.sampled_from(["binary01", "binary01", "yesno", "multiclass", "unicode", "bool", "prob", "int"])),
        "s": draw(st.sampled_from(["prob", "prob", "wide", "int", "binary01"])),
        "p": draw(st.sampled_from(["binary01", "yesno", "multiclass", "prob", "int"])),
        "w": draw(st.sampled_from(["posweight", "posweight", "ones", "prob", "count"])),
        "g": "group",
        "x": "text",
    }
    body: dict[str, list[str]] = {}
    for cname, role in columns.items():
        cells = _corrupt(draw, _column_cells(draw, kinds[role], n))
        if role == "x" and cells and draw(st.booleans()):
            cells[draw(st.integers(0, len(cells) - 1))] = draw(st.sampled_from(["é" * 40_000, "z" * 200_000]))
        body[cname] = cells
    if pad and n and draw(st.booleans()):
        # one odd value late in the file, where no type sniffing looks: a fractional label or weight, text
        targets = [c for c, role in columns.items() if role in ("y", "w")]
        cname = draw(st.sampled_from(targets if draw(st.booleans()) else list(columns)))
        body[cname][draw(st.integers(0, n - 1))] = draw(st.sampled_from(["0.5", "1.5", "x", ""]))
    if pad:
        # many clean rows first: integral weights, 0/1 labels, [0, 1] scores; the drawn rows after
        clean = {"y": ["0", "1"], "s": ["0.25", "0.75"], "p": ["1", "0"], "w": ["1", "2"], "g": ["a", "b"],
                 "x": ["t", "u"]}
        for cname, role in columns.items():
            body[cname] = clean[role] * (pad // 2) + body[cname]
        n += pad
    header = list(columns)
    duplicate = _rare(draw, 9) and header
    if duplicate:
        dup = draw(st.sampled_from(header))
        header = header + [dup]
        body_cols = [body[c] for c in columns] + [_column_cells(draw, "int", n)]
    else:
        body_cols = [body[c] for c in columns]
    delimiter = draw(st.sampled_from([";", "\t"])) if _rare(draw, 9) else ","
    quote_all = _rare(draw, 4)
    eol = draw(st.sampled_from(["\n", "\n", "\r\n"]))

    def line(cells: list[str]) -> str:
        return delimiter.join(_quote(c) if quote_all or _needs_quotes(c, delimiter) else c for c in cells)

    lines = [line(header)]
    rows = [[col[i] for col in body_cols] for i in range(n)]
    broken = ""
    if rows:
        damage = draw(st.sampled_from(["unterminated-last", "unterminated-mid", "short-row", "long-row"])) \
            if _rare(draw, 4) else ""
        i = len(rows) - 1 if damage == "unterminated-last" else draw(st.integers(min(pad, len(rows) - 1), len(rows) - 1)) if damage \
            else None
        for k, r in enumerate(rows):
            text = line(r)
            if k == i and damage.startswith("unterminated"):
                # an opening quote never closed
                text = line(r[:-1]) + (delimiter if len(r) > 1 else "") + '"' + r[-1].replace('"', "")
                broken = damage
            elif k == i and damage == "short-row" and len(r) > 1:
                text = line(r[:-1])
                broken = damage
            elif k == i and damage == "long-row":
                text = line(r + ["extra"])
                broken = damage
            lines.append(text)
    text = eol.join(lines) + draw(st.sampled_from(["", eol, eol, eol + eol]))
    if _rare(draw, 5):
        text = "\ufeff" + text
    data = text.encode("utf-8")
    if _rare(draw, 30) and rows:
        data = data.replace(b"\n", b"\n\xe9", 1)  # invalid UTF-8 in the first data row
        broken = broken or "invalid-utf8"
    suffix = draw(st.sampled_from([".csv", ".csv", ".csv", ".csv.gz", ".tsv", ".txt"]))
    if suffix == ".csv.gz":
        data = gzip.compress(data, mtime=0)
    return File(
        name=name + suffix, content=data, rows=n, cells={role: body[c] for c, role in columns.items()},
        broken=("duplicate-column" if duplicate else "") + broken,
    )


@st.composite
def cases(draw):
    names = draw(st.lists(st.sampled_from(NAMES), min_size=6, max_size=6, unique=True))
    y, s, p, w, g, x = names
    command = draw(st.sampled_from(["report", "report", "compare"]))
    by = command == "compare" and draw(st.booleans())
    weight = _rare(draw, 2)
    use_score = draw(st.booleans())
    columns = {y: "y", s: "s", p: "p"}
    if weight:
        columns[w] = "w"
    if by:
        columns[g] = "g"
    if draw(st.booleans()):
        columns[x] = "x"
    order = draw(st.permutations(list(columns)))
    columns = {c: columns[c] for c in order}
    n_files = 1 if command == "report" or by else 2
    engine = draw(st.sampled_from(["memory", "memory", "duckdb"]))
    long_odds = 3 if engine == "duckdb" else 14  # long files trap DuckDB's type sniffing
    files = [draw(csv_file(f"f{i}", columns, w if weight else None, g if by else None, long_odds))
             for i in range(n_files)]

    fmt = draw(st.sampled_from(["json", "json", "table"]))
    options = ["--y-true", y]
    options += ["--y-score", s] if use_score else ["--y-pred", draw(st.sampled_from([p, s]))]
    if weight:
        options += ["--weight", w]
    if by:
        options += ["--by", g]
    if _rare(draw, 3):
        options += ["--pos-label", draw(st.sampled_from(["1", "0", "yes", "é", "2", "true", "7"]))]
    if _rare(draw, 3):
        options += ["--threshold", draw(st.sampled_from(["0.5", "0", "1", "-1", "0.3", "nan", "inf", "1e308"]))]
    if _rare(draw, 4):
        options += ["--task", draw(st.sampled_from(["binary-scores", "binary-labels", "multiclass-labels",
                                                    "multiclass-probabilities", "regression"]))]
    if _rare(draw, 9):
        options += ["--labels", draw(st.sampled_from(["0,1", "no,yes", "0,1,2", "a"]))]
    if _rare(draw, 9):
        options += ["--score-bins", draw(st.sampled_from(["1", "10", "1000"]))]
    if _rare(draw, 9):
        options += ["--n-resamples", "20"]  # a few bootstrap intervals
    else:
        options += ["--no-ci"]
    options += ["--format", fmt, "--engine", engine, "--mc-samples", "64"]
    return Case(command, files, options, fmt, weight, by, columns)


# ======================================================================================
# the contract
# ======================================================================================


@pytest.fixture(scope="module", autouse=True)
def _private_reference_cache():
    """The OPS reference cache of these runs in a temporary directory, not the user's."""
    d = tempfile.mkdtemp(prefix="bc-fuzz-cache-")
    old = os.environ.get("BEYONDCHANCE_CACHE_DIR")
    os.environ["BEYONDCHANCE_CACHE_DIR"] = d
    yield
    if old is None:
        os.environ.pop("BEYONDCHANCE_CACHE_DIR", None)
    else:
        os.environ["BEYONDCHANCE_CACHE_DIR"] = old
    shutil.rmtree(d, ignore_errors=True)


def run_case(case: Case) -> tuple[int, str, str, BaseException | None, list[str]]:
    """Write the files, run the command in-process: (status, stdout, stderr, exception, args)."""
    with tempfile.TemporaryDirectory(prefix="bc-fuzz-") as tmp:
        d = Path(tmp)
        for f in case.files:
            (d / f.name).write_bytes(f.content)
        args = case.args(d)
        result = CliRunner().invoke(main, args)
        for f in case.files:  # inputs are only read
            assert (d / f.name).read_bytes() == f.content, f"{f.name} was modified"
        shown = [a.replace(tmp + os.sep, "") for a in args]
        exc = result.exception if not isinstance(result.exception, SystemExit) else None
        return result.exit_code, result.stdout, result.stderr, exc, shown


def _report_sets(case: Case, out: dict) -> list[dict]:
    return [out] if case.command == "report" else out["test_sets"]


def check(case: Case) -> int:
    """Run the case and check the contract; the exit status."""
    status, stdout, stderr, exc, args = run_case(case)
    where = f"\n  args: {args}\n  exit {status}\n  stderr: {stderr[:2000]!r}\n  stdout: {stdout[:500]!r}"
    assert exc is None, f"uncaught {type(exc).__name__}: {exc}{where}"
    assert "Traceback" not in stdout + stderr, f"a traceback{where}"
    assert status in (0, 2), f"exit status {status}{where}"
    if status == 2:
        assert stderr.startswith("beyondchance: error: ") and stderr.count("\n") == 1 \
            and stderr.endswith("\n"), f"not one error line{where}"
        assert len(stderr) <= 2000, f"an error line of {len(stderr)} characters{where}"
        return status
    if case.fmt == "table":
        assert stdout.strip(), f"exit 0 and no table{where}"
        return status
    try:
        out = json.loads(stdout)
    except ValueError as e:
        raise AssertionError(f"exit 0 and invalid JSON ({e}){where}") from None
    sets = _report_sets(case, out)
    if case.by:
        f = case.files[0]
        assert sum(r["n"] for r in sets) == f.rows, f"n {[r['n'] for r in sets]} != {f.rows} data rows{where}"
        groups = set(f.cells["g"])
        assert len(sets) == len(groups), f"{len(sets)} test sets != {len(groups)} groups{where}"
    else:
        assert len(sets) == len(case.files), f"{len(sets)} test sets for {len(case.files)} files{where}"
        for r, f in zip(sets, case.files):
            assert r["n"] == f.rows, f"n = {r['n']} != {f.rows} data rows of {f.name}{where}"
    for r, f in zip(sets, case.files) if not case.by else []:
        if "classes" in r:  # every label written is a class; every class was written (or given)
            got = {_class_key(c) for c in r["classes"]}
            written = {_class_key(c) for c in f.cells["y"]}
            # the prediction column's values are classes too (--y-pred, or one --y-score column of labels)
            pred = case.options[case.options.index("--y-pred" if "--y-pred" in case.options else "--y-score") + 1]
            given_ = [v for o in ("--pos-label", "--labels") if o in case.options
                      for v in case.options[case.options.index(o) + 1].split(",")]
            allowed = written | {_class_key(c) for c in given_} | (
                {_class_key(c) for c in f.cells[case.roles[pred]]})
            assert written <= got <= allowed, \
                f"classes {r['classes']} for the labels written {sorted(map(str, written))}{where}"
    if case.weight:
        written = [_number(c) for f in case.files for c in f.cells["w"]]
        assert all(v is not None and v >= 0 for v in written), \
            f"exit 0 with weights {sorted({c for f in case.files for c in f.cells['w']})!r}{where}"
        expected = math.fsum(written)
        got = sum(r.get("total_weight", math.nan) for r in sets)
        assert math.isclose(got, expected, rel_tol=1e-9), f"total weight {got} != {expected} written{where}"
    return status


@settings(max_examples=EXAMPLES, deadline=None, suppress_health_check=list(HealthCheck))
@given(case=cases())
def test_cli_answers_every_file_or_says_why(case):
    check(case)
