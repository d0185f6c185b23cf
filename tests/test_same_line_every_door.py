"""One behaviour at every door (issue 36, item 5): the positive class when none is given,
the width of ``str(result)``, and the line of a missing value are the same whichever door —
function, command, engine, arrays, frames or files — the data come through."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

import beyondchance as bc
from beyondchance.engines import compute_statistics
from beyondchance.cli import main
from conftest import one_line_error

# --- (a) the positive class when none is given ----------------------------------------------


def _churn(n: int = 400, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """'churn' (sorted first) is the minority class: scikit-learn's last class is 'stay'."""
    rng = np.random.default_rng(seed)
    y = np.where(rng.random(n) < 0.3, "churn", "stay")
    s = np.clip(0.3 * (y == "churn") + rng.random(n) * 0.7, 0, 1).round(3)
    return y, s


def test_every_function_takes_the_minority_class_as_evaluate_does():
    y, s = _churn()
    report = bc.evaluate(y, s, ci=False)
    assert (report.positive_label, report.positive_reason) == ("churn", "the minority class")
    models = bc.compare_models(y, {"a": s, "b": s[::-1]}, n_resamples=50, random_state=0)
    assert (models.positive_label, models.positive_reason) == ("churn", "the minority class")
    assert "positive class    'churn' (the minority class)" in str(models)
    assert compute_statistics(y_true=y, y_score=s).pos_label == "churn"
    acc = bc.StatisticsAccumulator()
    assert acc.update(y_true=y[:200], y_score=s[:200]).update(y_true=y[200:], y_score=s[200:]).compute().positive[0] == "churn"
    est = bc.estimate_performance(y, s, s[::-1], random_state=0, n_resamples=50)
    assert est.prevalence < 0.5  # the share of 'churn', not of 'stay'


def test_a_tie_goes_to_the_last_class_everywhere():
    y = np.array(["a", "b"] * 50)
    s = np.linspace(0, 1, 100)
    assert bc.evaluate(y, s, ci=False).positive_label == "b"
    assert bc.compare_models(y, {"x": s, "z": s[::-1]}, n_resamples=50, random_state=0).positive_label == "b"
    assert compute_statistics(y_true=y, y_score=s).pos_label == "b"


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_files_take_the_minority_class_on_every_engine(tmp_path, engine):
    """The SQL engines see the labels grouped: the minority class is counted in rows."""
    y, s = _churn()
    path = tmp_path / "churn.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(path, index=False)
    assert compute_statistics(str(path), y_true="y", y_score="s", engine=engine).pos_label == "churn"


def test_compare_models_command_states_the_positive_class_and_spells_the_option(tmp_path):
    y, s = _churn()
    path = tmp_path / "churn.csv"
    pd.DataFrame({"y": y, "a": s, "b": s[::-1]}).to_csv(path, index=False)
    args = ["compare-models", str(path), "--y-true", "y", "--y-score", "a", "--y-score", "b", "--n-resamples", "50"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "positive class    'churn' (the minority class)" in result.output
    one_line_error(CliRunner().invoke(main, [*args, "--pos-label", "maybe"]), "(--pos-label maybe)")


# --- (b) str(result) fits the terminal ----------------------------------------------------------


def _results() -> dict:
    rng = np.random.default_rng(0)
    n = 300
    y = rng.integers(0, 2, n)
    s = np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1)
    k = rng.integers(0, 3, n)
    return {
        "binary-scores": lambda: bc.evaluate(y, s, ci=False),
        "binary-labels": lambda: bc.evaluate(y, (s > 0.5).astype(int), ci=False),
        "multiclass-labels": lambda: bc.evaluate(k, rng.integers(0, 3, n), ci=False),
        "multiclass-probabilities": lambda: bc.evaluate(k, rng.dirichlet([1, 1, 1], n), ci=False),
        "regression": lambda: bc.evaluate(rng.random(n), rng.random(n), task="regression", ci=False),
        "compare": lambda: bc.compare({"t1": (y, s), "t2": (y[::-1], s)}),
        "compare_models": lambda: bc.compare_models(y, {"a": s, "b": rng.random(n)}, n_resamples=50),
    }


@pytest.mark.parametrize("kind", list(_results()))
def test_str_fits_the_terminal(monkeypatch, kind):
    """COLUMNS=60, 80, 120: every line within that many columns (as rich reads it)."""
    texts = {}
    for columns in (60, 80, 120):
        monkeypatch.setenv("COLUMNS", str(columns))
        texts[columns] = str(_results()[kind]())
        widest = max(len(line) for line in texts[columns].splitlines())
        assert widest <= columns, (kind, columns, widest)
    if kind != "compare_models":  # a summary: within 80 columns on any terminal
        assert max(len(line) for line in texts[120].splitlines()) > 100  # the room is used


# --- (c) a missing value: one line, naming the row, at every door ---------------------------


ROLES = {"y": "y_true", "s": "y_score", "w": "sample_weight"}


def _frame(missing: str) -> pd.DataFrame:
    frame = pd.DataFrame({"y": [1.0, 0.0, 1.0, 1.0, 0.0], "s": [0.9, 0.2, 0.5, 0.7, 0.1], "w": [1.0] * 5})
    frame.loc[2, missing] = np.nan  # data row 3
    return frame


def _file(tmp_path, missing: str, fmt: str):
    path = tmp_path / f"miss_{missing}.{fmt}"
    frame = _frame(missing)
    if fmt == "csv":
        frame.to_csv(path, index=False, na_rep="")
    else:
        frame.to_parquet(path)
    return path


def _error(call) -> str:
    with pytest.raises(bc.InvalidInputError) as err:
        call()
    return str(err.value)


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
@pytest.mark.parametrize("missing", list(ROLES))
def test_a_missing_value_in_a_file_is_one_line_on_every_engine(tmp_path, missing, fmt):
    path = _file(tmp_path, missing, fmt)
    expected = f"column {missing!r} of {path} has 1 missing value(s) (first in data row 3)"
    for engine in ("memory", "duckdb"):
        line = _error(lambda: bc.evaluate("y", "s", data=str(path), sample_weight="w", engine=engine))
        assert line == expected, engine
        result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-score", "s", "--weight", "w",
                                           "--engine", engine])
        assert one_line_error(result) == f"beyondchance: error: {expected}", engine


@pytest.mark.parametrize("missing", list(ROLES))
def test_a_missing_value_in_arrays_and_frames_is_the_same_line(missing):
    frame = _frame(missing)
    expected = f"{ROLES[missing]} has 1 missing value(s) (first in data row 3: NaN)"
    assert _error(lambda: bc.evaluate(frame.y.to_numpy(), frame.s.to_numpy(), sample_weight=frame.w.to_numpy())) \
        == expected
    for engine in ("memory", "duckdb"):
        assert _error(lambda: bc.evaluate("y", "s", data=frame, sample_weight="w", engine=engine)) == expected, engine


def test_an_infinite_score_is_one_line_on_every_engine(tmp_path):
    frame = _frame("s")
    frame.loc[2, "s"] = np.inf
    path = tmp_path / "inf.parquet"
    frame.to_parquet(path)
    expected = f"column 's' of {path} holds a non-finite value (inf in data row 3)"
    for engine in ("memory", "duckdb"):
        result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-score", "s", "--engine", engine])
        assert one_line_error(result) == f"beyondchance: error: {expected}", engine
    assert _error(lambda: bc.evaluate("y", "s", data=str(path), engine="duckdb")) == expected
    assert _error(lambda: bc.evaluate(frame.y, frame.s)) == "y_score holds a non-finite value (inf in data row 3)"


@pytest.mark.parametrize("missing, fmt", [("s", "csv"), ("y", "parquet")])
def test_a_missing_value_on_spark_is_memorys_line(tmp_path, spark, missing, fmt):
    path = _file(tmp_path, missing, fmt)
    line = _error(lambda: bc.evaluate("y", "s", data=str(path), engine="spark", session=spark))
    assert line == f"column {missing!r} of {path} has 1 missing value(s) (first in data row 3)"
