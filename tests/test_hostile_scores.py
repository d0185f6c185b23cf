"""Hostile inputs of issue 41 (items 7 and 8): integer scores given as scores, targets beyond
2**53 without ``--task``, and a statistics file that is not there.  Each is read the same way
on every engine (memory, DuckDB, Spark) and in Python, or refused in one line on stderr with
exit status 2 that names the way out."""

from __future__ import annotations

import json
import os

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import beyondchance as bc
from beyondchance._warnings import InvalidInputError
from beyondchance.cli import main
from beyondchance.report import detect_task
from conftest import one_line_error

pytestmark = pytest.mark.hostile

ENGINES = ["memory", "duckdb", pytest.param("spark", id="spark")]


def _engine(request, engine):
    """The Spark session of the ``spark`` case (started once, reused by ``--engine spark``)."""
    if engine == "spark":
        request.getfixturevalue("spark")
    return engine


def _credit(n=400, classes=2, seed=41):
    """y_true of ``classes`` classes and integer credit scores 300–850 that rise with it."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, classes, n)
    s = np.clip(np.round(500 + 120 * y + rng.normal(0, 80, n)), 300, 850).astype(int)
    return y, s


def _write(path, **columns):
    pd.DataFrame(columns).to_csv(path, index=False)
    return path


def _run(*args):
    return CliRunner().invoke(main, [*map(str, args)])


def _json(result):
    assert result.exit_code == 0, (result.exit_code, result.output)
    return json.loads(result.stdout)


# --- item 7: --y-score means scores ------------------------------------------------------


@pytest.mark.parametrize("engine", ENGINES)
def test_integer_credit_scores_are_scores_on_every_engine(tmp_path, request, engine):
    y, s = _credit()
    f = _write(tmp_path / "credit.csv", y=y, s=s)
    out = _json(_run("report", f, "--y-true", "y", "--y-score", "s", "--no-ci", "--format", "json",
                     "--engine", _engine(request, engine)))
    rows = bc.evaluate(y, s.astype(float), ci=False)  # the same scores as floats
    assert out["task"] == "binary-scores", out["task_reason"]
    assert out["metrics"]["roc_auc"]["value"] == pytest.approx(rows["roc_auc"].value, abs=1e-12)


def test_integer_scores_are_scores_in_python(tmp_path):
    y, s = _credit()
    floats = bc.evaluate(y, s.astype(float), ci=False)["roc_auc"].value
    for report in (bc.evaluate(y, s, ci=False), bc.evaluate(y, y_score=s, ci=False),
                   bc.evaluate("y", "s", data=pd.DataFrame({"y": y, "s": s}), ci=False)):
        assert report.task == "binary-scores" and report["roc_auc"].value == pytest.approx(floats, abs=1e-12)
    assert detect_task(y, s)[0] == "binary-scores"
    assert bc.evaluate(y, y_pred=np.where(s > 560, 1, 0), ci=False).task == "binary-labels"  # y_pred: labels


@pytest.mark.parametrize("engine", ENGINES)
def test_integer_scores_of_three_classes_refused_naming_task(tmp_path, request, engine):
    y, s = _credit(classes=3)
    f = _write(tmp_path / "credit3.csv", y=y, s=s)
    one_line_error(_run("report", f, "--y-true", "y", "--y-score", "s", "--no-ci", "--engine",
                         _engine(request, engine)), "--task multiclass-labels", "--task regression")
    with pytest.raises(InvalidInputError, match="task='multiclass-labels'"):
        bc.evaluate(y, s, ci=False)


def test_whole_number_scores_of_the_classes_are_labels_on_every_engine(tmp_path):
    # 0.0/1.0 predictions given as scores: predicted labels on every door (each value is a class)
    y, s = _credit()
    f = _write(tmp_path / "hard.csv", y=y, s=(s > 560).astype(float))
    tasks = {engine: _json(_run("report", f, "--y-true", "y", "--y-score", "s", "--no-ci", "--format", "json",
                                "--engine", engine))["task"] for engine in ("memory", "duckdb")}
    assert tasks == {"memory": "binary-labels", "duckdb": "binary-labels"}


# --- item 8: targets beyond 2**53 without --task -------------------------------------------


def _targets(tmp_path, integers):
    rng = np.random.default_rng(16)
    t = 10**16 + 2 * rng.integers(0, 1000, 60)
    p = (t + 2 * rng.integers(-50, 50, 60)).astype(float)
    return _write(tmp_path / "targets.csv", y=t if integers else t.astype(float), p=p)


@pytest.mark.parametrize("integers", [False, True], ids=["float-targets", "int64-targets"])
@pytest.mark.parametrize("engine", ENGINES)
def test_targets_near_1e16_without_task_name_task_regression(tmp_path, request, engine, integers):
    f = _targets(tmp_path, integers)
    engine = _engine(request, engine)
    one_line_error(_run("report", f, "--y-true", "y", "--y-score", "p", "--no-ci", "--engine", engine),
                    "beyond 2**53", "--task regression")
    out = _json(_run("report", f, "--y-true", "y", "--y-pred", "p", "--task", "regression", "--no-ci", "--format",
                     "json", "--engine", engine))
    assert out["task"] == "regression"


# --- item 8: a statistics file that is not one ------------------------------------------------


def test_report_of_a_missing_statistics_file(tmp_path):
    err = one_line_error(_run("report", tmp_path / "missing.bcstats"), "file not found")
    assert "--y-true" not in err


def test_report_of_a_broken_link(tmp_path):
    link = tmp_path / "ref.bcstats"
    link.symlink_to(tmp_path / "gone.bcstats")
    one_line_error(_run("report", link), "is a broken link", "gone.bcstats")


@pytest.mark.parametrize("command", [["report"], ["compare"], ["profile", "--out", "x.bcstats"]])
def test_a_folder_is_not_a_statistics_file(tmp_path, command):
    err = one_line_error(_run(command[0], tmp_path, *command[1:]), "is a directory")
    assert "--y-true" not in err


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_a_pipe_without_y_true(tmp_path, engine):
    if not hasattr(os, "mkfifo"):
        pytest.skip("no mkfifo on this platform")
    fifo = tmp_path / "stats.bcstats"
    os.mkfifo(fifo)
    # memory reads a pipe as CSV rows (so --y-true is missing); DuckDB refuses a pipe, as for rows
    words = ["--y-true", "a pipe", "read as CSV rows"] if engine == "memory" else ["not a regular file (a pipe)"]
    one_line_error(_run("report", fifo, "--engine", engine), *words)
