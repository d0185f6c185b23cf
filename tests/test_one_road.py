"""One road (issue 36, items 1 and 4a): every input becomes one scan, one TaskStatistics and
one report, by one task detector; class-probability columns are matched to the classes by name.

Each test here failed on the commit before this road (84bdd83): the columns were taken in
the sorted classes' order whatever their names (the wine cultivars' accuracy a few percent),
and ``evaluate(arrays)`` had a detector and a statistics builder of its own, which read two
probability columns and 3–20 integer classes with real-valued predictions differently from
``evaluate(profile(arrays))`` and from the engines.
"""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import beyondchance as bc
from conftest import quiet
from beyondchance._warnings import InvalidInputError
from beyondchance.report import detect_task

FAST = {"n_resamples": 200, "mc_samples": 1024, "random_state": 3}
CULTIVARS = ["barbera", "barolo", "grignolino"]
COLUMNS = ["p_barolo", "p_grignolino", "p_barbera"]  # not the classes' sorted order


@pytest.fixture(scope="module")
def wine() -> pd.DataFrame:
    """Three cultivars and a model about 90% accurate, its probabilities named after them."""
    rng = np.random.default_rng(7)
    n = 240
    y = np.array(CULTIVARS)[rng.integers(0, 3, n)]
    right = rng.random(n) < 0.9
    guess = np.where(right, y, np.array(CULTIVARS)[rng.integers(0, 3, n)])
    p = rng.dirichlet([1, 1, 1], n) * 0.4
    p[np.arange(n), [CULTIVARS.index(g) for g in guess]] += 0.6
    return pd.DataFrame({"y": y, **{f"p_{c}": p[:, j] for j, c in enumerate(CULTIVARS)}})


def _values(report) -> dict:
    return {name: (m.value, m.ci) for name, m in report.metrics.items()}


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_probability_columns_are_read_by_their_names_in_any_order(wine, engine):
    ordered = quiet(bc.evaluate, "y", [f"p_{c}" for c in CULTIVARS], data=wine, engine=engine, **FAST)
    shuffled = quiet(bc.evaluate, "y", COLUMNS, data=wine, engine=engine, **FAST)
    assert ordered["accuracy"].value > 0.85
    assert _values(shuffled) == _values(ordered)


def test_a_table_of_probabilities_is_read_by_its_column_names(wine):
    ordered = quiet(bc.evaluate, wine["y"], wine[[f"p_{c}" for c in CULTIVARS]], **FAST)
    renamed = wine[COLUMNS].rename(columns={"p_barolo": "Barolo_proba", "p_grignolino": "proba_grignolino"})
    assert _values(quiet(bc.evaluate, wine["y"], renamed, **FAST)) == _values(ordered)
    assert ordered["accuracy"].value > 0.85


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_the_file_on_each_engine_and_the_command_line_read_the_names(wine, engine, tmp_path):
    path = tmp_path / "wine.csv"
    wine.to_csv(path, index=False)
    ordered = quiet(bc.evaluate, "y", [f"p_{c}" for c in CULTIVARS], data=wine, engine=engine, ci=False)
    from_file = quiet(bc.evaluate, "y", COLUMNS, data=str(path), engine=engine, ci=False)
    assert from_file["accuracy"].value == ordered["accuracy"].value > 0.85
    if engine == "duckdb":  # the command line's memory engine reads its own columns (cli.py)
        args = [str(path), "--y-true", "y", *sum((["--y-score", c] for c in COLUMNS), []), "--no-ci",
                "--engine", engine, "--format", "json"]
        out = subprocess.run([sys.executable, "-m", "beyondchance.cli", "report", *args], capture_output=True,
                             text=True, check=True).stdout
        assert json.loads(out)["metrics"]["accuracy"]["value"] == pytest.approx(ordered["accuracy"].value)


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_columns_that_do_not_name_the_classes_are_refused_in_one_line(wine, engine):
    frame = wine.rename(columns=dict(zip(COLUMNS, ["a1", "a2", "a3"])))
    line = ("y_score columns a1, a2, a3 do not name the classes (barbera, barolo, grignolino): name them after the "
            "classes (p_barbera, ...) or give labels= (--labels) in their order")
    with pytest.raises(InvalidInputError) as exc:
        bc.evaluate("y", ["a1", "a2", "a3"], data=frame, engine=engine, ci=False)
    assert str(exc.value) == line
    with pytest.raises(InvalidInputError) as exc:
        bc.evaluate(frame["y"], frame[["a1", "a2", "a3"]], ci=False)
    assert str(exc.value) == line
    by_labels = quiet(bc.evaluate, "y", ["a1", "a2", "a3"], data=frame, engine=engine, ci=False,
                       labels=["barolo", "grignolino", "barbera"])
    assert by_labels["accuracy"].value > 0.85


def _cases():
    rng = np.random.default_rng(0)
    n = 150
    y = rng.integers(0, 2, n)
    y3 = rng.integers(0, 3, n)
    w = rng.exponential(size=n)
    return {
        "scores": (y, np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1), None),
        "weighted scores": (y, np.clip(0.3 * y + rng.random(n) * 0.7, 0, 1), w),
        "0/1 floats": (y, np.where(rng.random(n) < 0.8, y, 1 - y).astype(float), None),
        "integer scores": (y, rng.integers(300, 850, n) + 100 * y, None),
        "labels": (y, np.where(rng.random(n) < 0.8, y, 1 - y), w),
        "multiclass labels": (y3, np.where(rng.random(n) < 0.7, y3, rng.integers(0, 3, n)), None),
        "probabilities": (y3, rng.dirichlet([1, 1, 1], n), None),
        "two probability columns": (y, np.column_stack([1 - (s := rng.random(n)), s]), None),
        "regression": (rng.normal(size=n), rng.normal(size=n), None),
    }


def _same(a, b, pvalues: bool = True) -> None:
    assert a.task == b.task and list(a.metrics) == list(b.metrics)
    for name, m in a.metrics.items():
        other = b.metrics[name]
        ci, other_ci = ((c.low, c.high) if c is not None else (None, None) for c in (m.ci, other.ci))
        got, want = (m.value, *ci), (other.value, *other_ci)
        if pvalues:
            got, want = (*got, m.pvalue), (*want, other.pvalue)
        got, want = ([np.nan if v is None else v for v in t] for t in (got, want))
        assert got == pytest.approx(want, rel=1e-9, abs=1e-12, nan_ok=True), name


@pytest.mark.parametrize("case", list(_cases()))
def test_arrays_their_profile_and_their_table_make_one_report(case):
    """The same values and intervals (same seed) from the arrays and from their statistics — the
    p-values too where those come from the statistics (a row permutation test needs the rows:
    those are compared with the table's, whose rows the engine fetches)."""
    y, s, w = _cases()[case]
    direct = quiet(bc.evaluate, y, s, sample_weight=w, **FAST)
    assert direct.task == detect_task(y, s)[0]
    profiled = quiet(bc.evaluate, quiet(bc.profile, y, s, sample_weight=w, random_state=FAST["random_state"]),
                      **FAST)
    _same(direct, profiled, pvalues=w is None and case not in ("probabilities", "regression"))
    if np.ndim(s) == 1:
        frame = pd.DataFrame({"y": y, "s": s, "w": np.ones(len(y)) if w is None else w})
        for engine in ("memory", "duckdb"):
            table = quiet(bc.evaluate, "y", "s", sample_weight="w" if w is not None else None, data=frame,
                           engine=engine, **FAST)
            _same(direct, table)


def test_two_probability_columns_of_two_classes_are_binary_scores_on_every_road(tmp_path):
    y, p, _ = _cases()["two probability columns"]
    frame = pd.DataFrame({"y": y, "p_0": p[:, 0], "p_1": p[:, 1]})
    tasks = {quiet(bc.evaluate, y, p, ci=False).task, quiet(bc.profile, y, p, ci=False).task,
             quiet(bc.evaluate, "y", ["p_1", "p_0"], data=frame, ci=False).task}
    assert tasks == {"binary-scores"}


@pytest.mark.parametrize("k", [3, 12, 20])
def test_integer_classes_with_real_predictions_are_refused_naming_the_task_everywhere(k):
    rng = np.random.default_rng(k)
    y = rng.integers(0, k, 300)
    pred = y + rng.normal(size=300)
    frame = pd.DataFrame({"y": y, "p": pred})
    calls = [lambda: bc.evaluate(y, pred), lambda: detect_task(y, pred), lambda: bc.profile(y, pred),
             lambda: bc.evaluate("y", "p", data=frame, engine="duckdb"),
             lambda: bc.evaluate("y", "p", data=frame, engine="memory")]
    for call in calls:
        with pytest.raises(InvalidInputError, match=rf"^y_true has {k} classes .*task='regression'"):
            call()
    assert quiet(bc.evaluate, y, pred, task="regression", ci=False).task == "regression"
