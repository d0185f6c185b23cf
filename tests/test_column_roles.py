"""One column in several roles: ``--weight s --y-score s``, ``--y-pred y --y-true y``, ``--by y`` …

Each combination gives either the numbers of the arrays given to ``evaluate`` (the same column
as several arrays), the same on the memory and DuckDB engines, on every command that reads
rows and through the API, or one line naming the two roles (exit 2) where it makes no sense.
Never an internal error (exit 3), never a silently wrong number.  (Spark: one spot check by
a script, it is slow.)  Data: 120 rows of seed 11.
"""

from __future__ import annotations

import json
import math
import re

import numpy as np
import pytest
from click.testing import CliRunner

import beyondchance as bc
from beyondchance._warnings import InvalidInputError
from beyondchance.cli import main

pytestmark = pytest.mark.hostile

pd = pytest.importorskip("pandas")
ENGINES = ["memory", "duckdb"]
FLAGS = {"y_true": "--y-true", "y_score": "--y-score", "y_pred": "--y-pred", "sample_weight": "--weight"}

#: the combinations that make sense, as the API's column names (y_score: a tuple for classes)
ALLOWED = {
    "weight = score": dict(y_true="y", y_score="s", sample_weight="s"),
    "weight = labels (scores)": dict(y_true="y", y_score="s", sample_weight="y"),
    "weight = predicted labels": dict(y_true="y", y_pred="p", sample_weight="p"),
    "weight = labels (labels)": dict(y_true="y", y_pred="p", sample_weight="y"),
    "predicted = labels": dict(y_true="y", y_pred="y"),
    "scores = labels": dict(y_true="y", y_score="y"),
    "scores = weight = labels": dict(y_true="y", y_score="y", sample_weight="y"),
    "multi-class predicted = weight = labels": dict(y_true="m", y_pred="m", sample_weight="m"),
    "weight = a class probability": dict(y_true="m", y_score=("p_0", "p_1", "p_2"), sample_weight="p_0"),
    "weight = multi-class labels": dict(y_true="m", y_score=("p_0", "p_1", "p_2"), sample_weight="m"),
    "regression predicted = weight = targets": dict(y_true="t", y_pred="t", sample_weight="t"),
}

#: the combinations refused: (the API's columns, the command line's message)
REFUSED = {
    "a class column twice": (dict(y_true="m", y_score=("p_0", "p_0", "p_2")),
                             "--y-score names the column 'p_0' twice; give each class's column once"),
    "labels among the class columns": (dict(y_true="m", y_score=("p_0", "m", "p_2")),
                                       "--y-true and --y-score name the same column 'm'"),
}


def _frame() -> pd.DataFrame:
    rng = np.random.default_rng(11)
    n = 120
    y = rng.integers(0, 2, n)
    s = np.round(np.clip(0.3 * y + rng.uniform(0, 0.7, n), 0, 1), 3)
    m = rng.integers(0, 3, n)
    q = rng.dirichlet([1, 1, 1], n)
    q[np.arange(n), m] += 0.5
    q = np.round(q / q.sum(1, keepdims=True), 3)
    q[:, 2] = np.round(1 - q[:, 0] - q[:, 1], 3)
    t = np.round(rng.uniform(0.5, 3, n), 3)
    return pd.DataFrame({"y": y, "s": s, "p": (s >= 0.5).astype(int), "g": rng.integers(0, 2, n), "m": m,
                         "p_0": q[:, 0], "p_1": q[:, 1], "p_2": q[:, 2], "t": t})


@pytest.fixture(scope="module")
def rows(tmp_path_factory):
    """(the frame, its CSV, a copy of the CSV under another name)."""
    frame = _frame()
    folder = tmp_path_factory.mktemp("roles")
    frame.to_csv(folder / "rows.csv", index=False)
    frame.to_csv(folder / "again.csv", index=False)
    return frame, folder / "rows.csv", folder / "again.csv"


def _arrays(frame, roles):
    """The roles' columns as the arrays of ``evaluate`` (a tuple of columns: one 2-d array)."""
    out = {}
    for role, col in roles.items():
        out[role] = frame[list(col)].to_numpy() if isinstance(col, tuple) else frame[col].to_numpy()
    return out


def _args(roles):
    args = []
    for role, col in roles.items():
        for c in (col if isinstance(col, tuple) else (col,)):
            args += [FLAGS[role], c]
    return args


def _cli(*args):
    return CliRunner().invoke(main, [str(a) for a in args])


def _values(metrics):
    """Each metric's value (NaN for JSON's null)."""
    values = {k: (m.value if hasattr(m, "value") else m["value"]) for k, m in metrics.items()}
    return {k: math.nan if v is None else float(v) for k, v in values.items()}


def _same(a, b, rel=1e-9, abs_tol=1e-12):
    """The same numbers under the same names (NaN equal to NaN; ``rel``, ``abs_tol``: the tolerances)."""
    assert a.keys() == b.keys(), set(a) ^ set(b)
    bad = {k: (a[k], b[k]) for k in a
           if not (math.isclose(a[k], b[k], rel_tol=rel, abs_tol=abs_tol) or math.isnan(a[k]) and math.isnan(b[k]))}
    assert not bad, bad


def _numbers(text):
    """Every number of a JSON output, by its path."""
    def walk(x, path):
        if isinstance(x, dict):
            for k, v in x.items():
                yield from walk(v, f"{path}/{k}")
        elif isinstance(x, list):
            for i, v in enumerate(x):
                yield from walk(v, f"{path}[{i}]")
        elif isinstance(x, (int, float)) and not isinstance(x, bool):
            yield path, float(x)
    return dict(walk(json.loads(text), ""))


def _ok(result):
    assert result.exit_code == 0, (result.exit_code, result.output)
    return result.stdout


@pytest.mark.parametrize("case", list(ALLOWED))
def test_one_column_in_two_roles_gives_the_arrays_numbers(case, rows, tmp_path):
    """The report (API data=, CLI report, profile then report of the file, check) on memory and
    DuckDB is the report of the arrays, the column given as each of its arrays."""
    frame, csv, _ = rows
    roles = ALLOWED[case]
    arrays = _arrays(frame, roles)
    y_true = arrays.pop("y_true")
    expected = _values(bc.evaluate(y_true, arrays.pop("y_score", None), ci=False, **arrays).metrics)
    for engine in ENGINES:
        _same(_values(bc.evaluate(data=frame, engine=engine, ci=False, **roles).metrics), expected)
        kept = bc.profile(data=frame, engine=engine, **roles)  # with the bootstrap's sums
        _same(_values(bc.evaluate(kept, ci=False).metrics), expected)
        report = _ok(_cli("report", csv, *_args(roles), "--engine", engine, "--format", "json", "--no-ci"))
        _same(_values(json.loads(report)["metrics"]), expected)
        out = tmp_path / f"{engine}.bcstats"
        _ok(_cli("profile", csv, *_args(roles), "--engine", engine, "--out", out))
        _same(_values(json.loads(_ok(_cli("report", out, "--format", "json", "--no-ci")))["metrics"]), expected)
        metric = next(k for k, v in expected.items() if not math.isnan(v))
        checked = _ok(_cli("check", csv, *_args(roles), "--engine", engine, "--no-ci", "--format", "json",
                           "--require", f"{metric} > -1000"))
        assert json.loads(checked)["requirements"][0]["measured"] == pytest.approx(expected[metric], rel=1e-9)


@pytest.mark.parametrize("case", ["weight = score", "scores = labels", "predicted = labels",
                                  "multi-class predicted = weight = labels"])
def test_one_column_in_two_roles_is_the_same_on_every_engine_with_intervals(case, rows, tmp_path):
    """report (intervals included), the report of the file profile writes, and compare of two
    files and of --by groups: memory's numbers are DuckDB's (to the rounding of sums)."""
    frame, csv, again = rows
    args = [*_args(ALLOWED[case]), "--n-resamples", "100", "--format", "json"]
    for engine in ENGINES:
        _ok(_cli("profile", csv, *_args(ALLOWED[case]), "--engine", engine, "--out", tmp_path / f"{engine}.bcstats"))
    kept = [_numbers(_ok(_cli("report", tmp_path / f"{e}.bcstats", "--n-resamples", "100", "--format", "json")))
            for e in ENGINES]
    _same(*kept, rel=1e-7, abs_tol=1e-9)
    for command in (["report", csv], ["compare", csv, again], ["compare", csv, "--by", "g"]):
        _same(*(_numbers(_ok(_cli(*command, *args, "--engine", e))) for e in ENGINES), rel=1e-7, abs_tol=1e-9)


@pytest.mark.parametrize("case", ["weight = score", "weight = predicted labels", "scores = labels"])
@pytest.mark.parametrize("engine", ENGINES)
def test_compare_of_frames_gives_each_sets_arrays_numbers(case, engine, rows):
    """``compare`` of data frames (one column in two roles) is the comparison of the arrays."""
    frame, _, _ = rows
    roles = ALLOWED[case]
    halves = {"a": frame.iloc[:60], "b": frame.iloc[60:]}
    by_frames = bc.compare(halves, engine=engine, ci=False, **roles)
    by_arrays = bc.compare({k: tuple(_arrays(f, roles).values()) for k, f in halves.items()}, ci=False)
    assert len(by_frames.reports) == len(by_arrays.reports) == 2
    for got, want in zip(by_frames.reports, by_arrays.reports):
        _same(_values(got.metrics), _values(want.metrics))


@pytest.mark.parametrize("case", list(REFUSED))
@pytest.mark.parametrize("engine", ENGINES)
def test_a_combination_without_sense_is_one_line_naming_the_roles(case, engine, rows, tmp_path):
    """Class columns listed twice or holding the labels' column: one line naming the roles on
    every command and through the API (they were a check of the rows' sums or range)."""
    frame, csv, again = rows
    roles, message = REFUSED[case]
    for command in (["report", csv], ["check", csv, "--require", "accuracy > 0"], ["compare", csv, again],
                    ["compare", csv, "--by", "g"], ["profile", csv, "--out", tmp_path / "x.bcstats"]):
        result = _cli(*command, *_args(roles), "--engine", engine, "--no-ci")
        assert result.exit_code == 2, (command, result.exit_code, result.output)
        assert result.stderr.strip() == f"beyondchance: error: {message}", result.stderr
    api = re.escape(message.replace("--y-true", "y_true").replace("--y-score", "y_score"))
    for call in (lambda: bc.evaluate(data=frame, engine=engine, ci=False, **roles),
                 lambda: bc.profile(data=frame, engine=engine, ci=False, **roles),
                 lambda: bc.compare({"a": frame, "b": frame}, engine=engine, ci=False, **roles)):
        with pytest.raises(InvalidInputError, match=api):
            call()


@pytest.mark.parametrize("role", ["y_true", "y_score", "sample_weight"])
@pytest.mark.parametrize("engine", ENGINES)
def test_by_a_column_of_another_role_is_refused(role, engine, rows, tmp_path):
    """--by the labels', scores' or weights' column: each group would hold one of its values
    (memory said "column 'y' not found" or "a single class", DuckDB a message of its own)."""
    _, csv, _ = rows
    roles = dict(y_true="y", y_score="s", sample_weight="p")
    col = roles[role]
    for command in (["compare", csv], ["profile", csv, "--out", tmp_path / "x.bcstats"]):
        result = _cli(*command, *_args(roles), "--by", col, "--engine", engine, "--no-ci")
        assert result.exit_code == 2, (command, result.exit_code, result.output)
        assert result.stderr.strip() == (f"beyondchance: error: --by and {FLAGS[role]} name the same column {col!r}; "
                                         "split by another column")


def test_compare_models_of_one_column_twice_is_refused(rows):
    """compare-models --y-score s --y-score s: one model, nothing to compare."""
    _, csv, _ = rows
    result = _cli("compare-models", csv, "--y-true", "y", "--y-score", "s", "--y-score", "s")
    assert result.exit_code == 2 and result.stderr.strip() == (
        "beyondchance: error: compare-models needs two or more distinct model columns, got s, s")
