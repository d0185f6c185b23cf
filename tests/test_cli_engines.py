"""``beyondchance report / compare --engine memory|duckdb|spark``: the same JSON from every engine.

The memory engine evaluates the rows read with pyarrow (``evaluate``); duckdb and spark
aggregate the files in SQL and build the report from the sufficient statistics alone —
two independent code paths, compared number for number.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from beyondchance.cli import main

FAST = ["--mc-samples", "1024", "--n-resamples", "200", "--format", "json"]
#: a guard against a hung subprocess only, generous on a loaded machine (seconds each when idle)
TIMEOUT = 900


def _run(*args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    env.pop("BEYONDCHANCE_DEBUG", None)
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *map(str, args)], capture_output=True,
                          text=True, env=env, timeout=TIMEOUT)


def _json(*args: str) -> dict:
    r = _run(*args, *FAST)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def _strip(d: dict) -> dict:
    """Drop what legitimately differs between engines: the engine, the file name, the wording
    of the detection reason (memory looks at the values, the engines at the column types)."""
    d = dict(d)
    for key in ("engine", "name", "task_reason"):
        d.pop(key, None)
    if "test_sets" in d:
        d["test_sets"] = [_strip(t) for t in d["test_sets"]]
    return d


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> dict:
    tmp = tmp_path_factory.mktemp("engines")
    rng = np.random.default_rng(7)
    n = 1500
    y = (rng.random(n) < 0.3).astype(np.int64)
    s = np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1).round(3)
    cls = rng.choice(["a", "b", "c"], n)
    df = pd.DataFrame({
        "y": y, "s": s, "lab": np.where(rng.random(n) < 0.8, y, 1 - y),
        "cls": cls, "pc": np.where(rng.random(n) < 0.6, cls, rng.choice(["a", "b", "c"], n)),
        "w": rng.random(n) + 0.5, "ys": np.where(y == 1, "yes", "no"), "t": rng.normal(size=n),
    })
    P = rng.dirichlet(np.ones(3), n)
    df = df.assign(p_a=P[:, 0], p_b=P[:, 1], p_c=P[:, 2], f=df["t"] + rng.normal(size=n))
    paths = {"csv": tmp / "d.csv", "parquet": tmp / "d.parquet"}
    df.to_csv(paths["csv"], index=False)
    df.to_parquet(paths["parquet"])
    for i in range(3):
        df.iloc[i * 500:(i + 1) * 500].to_parquet(tmp / f"part-{i}.parquet")
    paths["glob"] = str(tmp / "part-*.parquet")
    paths["parts"] = [tmp / f"part-{i}.parquet" for i in range(3)]
    paths["tmp"] = tmp
    return paths


@pytest.mark.parametrize("fmt, args", [
    ("parquet", ["--y-true", "y", "--y-score", "s"]),                          # binary scores
    ("csv", ["--y-true", "ys", "--y-score", "s"]),                             # text labels, minority positive
    ("csv", ["--y-true", "y", "--y-pred", "lab"]),                             # binary labels
    ("parquet", ["--y-true", "cls", "--y-pred", "pc"]),                        # multi-class labels
    ("parquet", ["--y-true", "y", "--y-score", "s", "--score-bins", "20"]),    # binned scores
])
def test_duckdb_equals_memory(data, fmt, args):
    mem = _json("report", data[fmt], *args, "--engine", "memory")
    ddb = _json("report", data[fmt], *args, "--engine", "duckdb")
    assert mem["engine"] == "memory" and ddb["engine"] == "duckdb"
    assert _strip(mem) == _strip(ddb)  # every count, value, OPS and CI (same seed, same cells)
    assert ddb["metrics"]["accuracy"]["ci"] is not None


def test_binned_scores_state_the_bound(data):
    exact = _json("report", data["parquet"], "--y-true", "y", "--y-score", "s", "--no-ci", "--engine", "duckdb")
    binned = _json("report", data["parquet"], "--y-true", "y", "--y-score", "s", "--no-ci", "--engine", "duckdb",
                   "--score-bins", "10")
    stat = binned["score_statistic"]
    assert stat["bins"] == 10 and "score_statistic" not in exact
    for m in ("roc_auc", "pr_auc"):  # the stated bound holds against the exact AUC
        err = abs(binned["metrics"][m]["value"] - exact["metrics"][m]["value"])
        assert err <= stat["auc_error_bound"][m] + 1e-12
    assert abs(binned["metrics"]["roc_auc"]["value"] - exact["metrics"]["roc_auc"]["value"]) > 0
    assert any("ROC AUC - exact| <=" in note for note in binned["notes"])
    # labeling metrics at threshold 0.5 = a bin edge of floor(s * 10): exact
    assert binned["metrics"]["f1"]["value"] == exact["metrics"]["f1"]["value"]


def test_glob_of_parquet_parts_equals_the_whole_file(data):
    whole = _json("report", data["parquet"], "--y-true", "y", "--y-score", "s", "--engine", "memory")
    parts = _json("report", data["glob"], "--y-true", "y", "--y-score", "s", "--engine", "duckdb")
    assert parts["n"] == 1500
    assert _strip(whole) == _strip(parts)


def test_weighted_values_and_intervals_equal(data):
    """Weighted data: DuckDB's values and seeded intervals (the grouped bootstrap of the
    rows for the labeling metrics, unit counts for the AUCs) are the memory engine's."""
    args = ["--y-true", "y", "--y-score", "s", "--weight", "w"]
    mem = _json("report", data["parquet"], *args)
    ddb = _json("report", data["parquet"], *args, "--engine", "duckdb")
    assert ddb["total_weight"] == pytest.approx(mem["total_weight"], rel=1e-12)
    assert ddb["n"] == mem["n"] == 1500
    for name, m in mem["metrics"].items():
        v = ddb["metrics"][name]["value"]
        assert v == pytest.approx(m["value"], rel=1e-9, abs=1e-12), name
        lo, hi = ddb["metrics"][name]["ci"]["low"], ddb["metrics"][name]["ci"]["high"]
        assert (lo, hi) == pytest.approx((m["ci"]["low"], m["ci"]["high"]), rel=1e-9, abs=1e-12), name
    assert not any("not computed" in note for note in ddb["notes"])


@pytest.mark.parametrize("args", [
    ["--y-true", "cls", "--y-score", "p_a", "--y-score", "p_b", "--y-score", "p_c"],   # multi-class probabilities
    ["--y-true", "t", "--y-pred", "f"],                                              # regression
])
@pytest.mark.parametrize("weighted", [False, True])
def test_probabilities_and_regression_from_duckdb(data, args, weighted):
    """The statistics' values and intervals equal the rows' (to rounding): the cell
    intervals of unweighted labeling metrics, the grouped bootstrap of the rows (same seed,
    same replicates) for the losses and for weighted data."""
    args = [*args, *(["--weight", "w"] if weighted else [])]
    mem = _json("report", data["parquet"], *args)
    ddb = _json("report", data["parquet"], *args, "--engine", "duckdb")
    assert ddb["task"] == mem["task"] and ddb["n"] == mem["n"] == 1500
    for name, m in mem["metrics"].items():
        d = ddb["metrics"][name]
        for key in ("value", "baseline", "advantage", "ops"):
            assert d[key] == m[key] or d[key] == pytest.approx(m[key], rel=1e-9, abs=1e-12), (name, key)
        if name.startswith(("roc_auc", "pr_auc")) and mem["task"] == "multiclass-probabilities":
            assert m["ci"] is None and d["ci"] is None, name  # one-vs-rest AUCs: no interval
            continue
        assert m["ci"] is not None and d["ci"] is not None, name
        assert (d["ci"]["low"], d["ci"]["high"]) == pytest.approx((m["ci"]["low"], m["ci"]["high"]), rel=1e-9,
                                                                 abs=1e-12), name
        assert d["ci"]["resampling"] == m["ci"]["resampling"], name
    assert not any("not computed" in note for note in ddb["notes"])


def test_compare_duckdb_equals_memory(data):
    args = ["--y-true", "y", "--y-score", "s"]
    mem = _json("compare", *data["parts"], *args)
    ddb = _json("compare", *data["parts"], *args, "--engine", "duckdb")
    assert ddb["engine"] == "duckdb" and all(t["engine"] == "duckdb" for t in ddb["test_sets"])
    assert _strip(mem) == _strip(ddb)


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark_equals_memory_on_a_glob(data, spark):
    # in-process, so that --engine spark reuses the session's SparkSession (getOrCreate)
    # instead of starting a JVM of its own
    mem = _json("report", data["parquet"], "--y-true", "y", "--y-score", "s")
    result = CliRunner().invoke(main, ["report", str(data["glob"]), "--y-true", "y", "--y-score", "s",
                                       "--engine", "spark", *FAST])
    assert result.exit_code == 0, result.output
    spk = json.loads(result.stdout)
    assert spk["engine"] == "spark"
    assert _strip(mem) == _strip(spk)


def _error(*args: str) -> str:
    r = _run(*args)
    assert r.returncode == 2, (r.returncode, r.stdout, r.stderr)
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("beyondchance: error: "), r.stderr
    return lines[0]


@pytest.fixture(scope="module")
def bad(data) -> dict:
    tmp = data["tmp"]
    out = {}
    frame = pd.DataFrame({"y": [0, 1, 0, 1], "s": [0.1, 0.9, 0.4, 0.6], "w": [1.0, -1.0, 1.0, 1.0]})
    frame.to_parquet(tmp / "negw.parquet")
    frame.assign(s=[0.1, np.nan, 0.4, 0.6]).to_parquet(tmp / "nan.parquet")
    (tmp / "null.csv").write_text("y,s\n0,0.1\n1,\n0,0.4\n1,0.6\n")
    (tmp / "text.csv").write_text("y,s\n0,low\n1,high\n0,low\n1,high\n")
    for name in ("negw.parquet", "nan.parquet", "null.csv", "text.csv"):
        out[name] = tmp / name
    return out


@pytest.mark.parametrize("case, args, expected", [
    ("missing file", ["nope.parquet", "--y-true", "y", "--y-score", "s"], "file not found"),
    ("missing column", ["{parquet}", "--y-true", "label", "--y-score", "s"], "'label' not found"),
    ("text scores", ["{text.csv}", "--y-true", "y", "--y-score", "s"], "numeric"),
    ("NULL score", ["{null.csv}", "--y-true", "y", "--y-score", "s"], "missing value(s) (first in data row 2)"),
    ("NaN score", ["{nan.parquet}", "--y-true", "y", "--y-score", "s"], "missing value(s) (first in data row 2)"),
    ("negative weight", ["{negw.parquet}", "--y-true", "y", "--y-score", "s", "--weight", "w"], "negative"),
    ("no match", ["{tmp}/zz-*.parquet", "--y-true", "y", "--y-score", "s"], "No files found"),
    ("stdin", ["-", "--y-true", "y", "--y-score", "s"], "stdin"),
])
def test_bad_input_one_line_exit_2(data, bad, case, args, expected):
    names = {**{k: str(v) for k, v in data.items() if k in ("csv", "parquet", "tmp")},
             **{k: str(v) for k, v in bad.items()}}
    for key, value in names.items():
        args = [a.replace("{" + key + "}", value) for a in args]
    line = _error("report", *args, "--engine", "duckdb")
    assert expected in line, line


# --- compare --by COL on every engine: labelled groups and windows without labels ----------


@pytest.fixture(scope="module")
def by_data(tmp_path_factory) -> dict:
    """Rows of four months (as text dates, out of time order in the file), one of them without
    labels (empty CSV fields / Parquet nulls), and the same file with 3 labels missing in one
    labelled month; Parquet and CSV."""
    tmp = tmp_path_factory.mktemp("by")
    rng = np.random.default_rng(3)
    n = 1600
    month = rng.choice(["2024-10-01", "2024-02-01", "2024-01-01", "2024-09-01"], n)
    y = (rng.random(n) < np.where(month == "2024-09-01", 0.1, 0.3)).astype(np.int64)
    s = np.clip(rng.normal(0.35 + 0.3 * y, 0.2), 0, 1).round(3)
    cls = rng.choice(["a", "b", "c"], n)
    frame = pd.DataFrame({"month": month, "y": pd.array(y, dtype="Int64"), "s": s, "w": rng.random(n) + 0.5,
                          "cls": cls, "pc": np.where(rng.random(n) < 0.6, cls, rng.choice(["a", "b", "c"], n))})
    q = rng.dirichlet(np.ones(3), n)  # class probabilities of cls (columns a, b, c)
    q[np.arange(n), np.searchsorted(["a", "b", "c"], cls)] += 0.5
    q = (q / q.sum(1, keepdims=True)).round(2)
    q[:, 2] = 1 - q[:, :2].sum(1)
    frame["p_a"], frame["p_b"], frame["p_c"] = q[:, 0], q[:, 1], q[:, 2]
    frame.loc[month == "2024-10-01", "y"] = pd.NA
    partial = frame.copy()
    partial.loc[partial.index[partial["month"] == "2024-02-01"][:3], "y"] = pd.NA
    out = {}
    for name, df in (("by", frame), ("partial", partial)):
        for fmt in ("parquet", "csv"):
            path = tmp / f"{name}.{fmt}"
            df.to_parquet(path) if fmt == "parquet" else df.to_csv(path, index=False)
            out[name, fmt] = str(path)
    return out


def _same(mem: dict, other: dict, weighted: bool) -> None:
    if weighted:  # sums of floats in another order
        _close(_strip(mem), _strip(other))
    else:
        assert _strip(mem) == _strip(other)


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
@pytest.mark.parametrize("weighted", [False, True])
def test_compare_by_duckdb_equals_memory(by_data, fmt, weighted):
    """Groups in time order, the reference the first, the month without labels estimated under
    label shift from its exact score histogram: the memory engine's JSON."""
    args = ["--by", "month", "--y-true", "y", "--y-score", "s", *(["--weight", "w"] if weighted else [])]
    mem = _json("compare", by_data["by", fmt], *args)
    ddb = _json("compare", by_data["by", fmt], *args, "--engine", "duckdb")
    assert [t["name"] for t in mem["test_sets"]] == ["2024-01-01", "2024-02-01", "2024-09-01"]
    assert mem["reference"] == "2024-01-01" and [e["test_set"] for e in mem["label_free"]] == ["2024-10-01"]
    assert ddb["engine"] == "duckdb" and [t["name"] for t in ddb["test_sets"]] == [t["name"] for t in mem["test_sets"]]
    _same(mem, ddb, weighted)


def test_compare_by_duckdb_multiclass_and_reference(by_data):
    args = ["--by", "month", "--y-true", "cls", "--y-pred", "pc", "--reference", "2024-09-01"]
    mem = _json("compare", by_data["by", "parquet"], *args)
    ddb = _json("compare", by_data["by", "parquet"], *args, "--engine", "duckdb")
    assert mem["reference"] == ddb["reference"] == "2024-09-01" and len(mem["test_sets"]) == 4
    _close(_strip(mem), _strip(ddb))


@pytest.mark.parametrize("fmt", ["parquet", "csv"])
def test_compare_by_partially_labelled_group_duckdb(by_data, fmt):
    for engine in ("memory", "duckdb"):
        line = _error("compare", by_data["partial", fmt], "--by", "month", "--y-true", "y", "--y-score", "s",
                      "--engine", engine)
        assert "--by month = 2024-02-01: 3 of" in line and "have no label in column 'y'" in line, line


def test_compare_by_score_bins_on_the_memory_engine(by_data):
    """The memory engine splits a file --by a column too (it needed duckdb or spark before)."""
    result = _run("compare", by_data["by", "parquet"], "--by", "month", "--y-true", "y", "--y-score", "s",
                  "--score-bins", "10", *FAST)
    assert result.returncode == 0, result.stderr


PROBABILITIES = ["--by", "month", "--y-true", "cls", "--y-score", "p_a", "--y-score", "p_b", "--y-score", "p_c",
                 "--weight", "w", "--seed", "4"]


def _decomposed(d: dict) -> list[dict]:
    """The rows of the decomposition of the one-vs-rest AUCs and losses of probabilities."""
    rows = [c for c in d["changes"] if c["metric"] in ("roc_auc", "roc_auc_weighted", "log_loss", "brier")]
    assert rows and all(c["expected_ci"] is not None and c["classifier_effect_ci"] is not None for c in rows)
    return rows


def test_compare_by_duckdb_decomposes_probabilities_as_memory(by_data):
    """The one-vs-rest AUCs and losses of class probabilities: DuckDB's decomposition and
    intervals (the bootstrap's groups of rows summed in SQL) are memory's, with the seed."""
    mem = _json("compare", by_data["by", "csv"], *PROBABILITIES)
    ddb = _json("compare", by_data["by", "csv"], *PROBABILITIES, "--engine", "duckdb")
    assert not any("not decomposed" in note for note in ddb["notes"])
    _close(_decomposed(mem), _decomposed(ddb))
    _close(_strip(mem), _strip(ddb))


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_compare_by_spark_decomposes_probabilities_as_memory(by_data, spark):
    mem = _json("compare", by_data["by", "parquet"], *PROBABILITIES)
    result = CliRunner().invoke(main, ["compare", by_data["by", "parquet"], *PROBABILITIES, "--engine", "spark",
                                       *FAST])
    assert result.exit_code == 0, result.output
    _close(_decomposed(mem), _decomposed(json.loads(result.stdout)))


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
@pytest.mark.parametrize("fmt, weighted", [("parquet", False), ("csv", True)])
def test_compare_by_spark_equals_memory(by_data, fmt, weighted, spark):
    args = ["--by", "month", "--y-true", "y", "--y-score", "s", *(["--weight", "w"] if weighted else [])]
    mem = _json("compare", by_data["by", fmt], *args)
    result = CliRunner().invoke(main, ["compare", by_data["by", fmt], *args, "--engine", "spark", *FAST])
    assert result.exit_code == 0, result.output
    spk = json.loads(result.stdout)
    assert spk["engine"] == "spark" and [e["test_set"] for e in spk["label_free"]] == ["2024-10-01"]
    _same(mem, spk, weighted)
    result = CliRunner().invoke(main, ["compare", by_data["partial", fmt], *args[:6], "--engine", "spark"])
    assert result.exit_code == 2, result.output
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "--by month = 2024-02-01: 3 of" in lines[0], result.stderr


# --- compare: windows without labels, multi-class and regression, on every engine ----------


def _close(a, b, path=""):
    """Equal JSON, numbers to 1e-9 relative (sums of floats in another order).

    A metric whose p-value permutes the rows (weighted data, class probabilities, the
    absolute and pinball losses of a regression) has memory's on an engine, which fetches
    the rows for it (within the row-draw budget; memory takes them from its columns), and
    its method says where from; beyond the
    budget, weighted labels and scores have the permutation CLT's on an engine, the log loss
    and Brier score the CLT of the loss sum."""
    if isinstance(a, dict) and isinstance(b, dict) and str(b.get("pvalue_method")).endswith(
            " for the permutation test"):
        a, b = ({**d, "pvalue_method": re.sub(r"; the [\d,]+ rows (fetched from \w+|taken from the columns) for "
                                              r"the permutation test$", "", str(d.get("pvalue_method")))}
                for d in (a, b))
    clt = ("weighted cells", "CLT of the loss")
    if isinstance(a, dict) and isinstance(b, dict) and any(c in str(b.get("pvalue_method")) for c in clt) \
            and not any(c in str(a.get("pvalue_method")) for c in clt):
        # weighted rows: the engine's permutation CLT of the cells of its scan, the rows' Monte
        # Carlo permutations in memory (tests/test_permutation_clt.py: the same CLT p-value);
        # the log loss and Brier score of probabilities: the CLT of the loss sum from the
        # engine's sums (tests/test_permutation_loss.py)
        assert "asymptotic" in b["pvalue_method"] and 0 < b["pvalue"] <= 1, path
        a, b = ({k: v for k, v in d.items() if k not in ("pvalue", "pvalue_method")} for d in (a, b))
    if path.endswith(".notes") and isinstance(a, list):  # the note names the rows with a p-value
        a, b = ([n for n in d if "the p-value tests against shuffled predictions" not in n
                 and "the mean of the permutation null" not in n] for d in (a, b))
    if isinstance(a, dict):
        assert isinstance(b, dict) and set(a) == set(b), (path, set(a) ^ set(b))
        for k in a:
            _close(a[k], b[k], f"{path}.{k}")
    elif isinstance(a, list):
        assert isinstance(b, list) and len(a) == len(b), path
        for i, (x, y) in enumerate(zip(a, b)):
            _close(x, y, f"{path}[{i}]")
    elif isinstance(a, float) and isinstance(b, float):
        assert b == pytest.approx(a, rel=1e-9, abs=1e-12), path
    else:
        assert a == b, path


@pytest.fixture(scope="module")
def unlabeled(data):
    """part-2 without its label column: a window whose labels have not arrived."""
    path = data["tmp"] / "window.parquet"
    pd.read_parquet(data["parts"][2]).drop(columns=["y"]).to_parquet(path)
    return path


@pytest.mark.parametrize("weighted", [False, True])
def test_compare_window_without_labels_duckdb_equals_memory(data, unlabeled, weighted):
    args = ["--y-true", "y", "--y-score", "s", *(["--weight", "w"] if weighted else [])]
    files = [data["parts"][0], data["parts"][1], unlabeled]
    mem = _json("compare", *files, *args)
    ddb = _json("compare", *files, *args, "--engine", "duckdb")
    assert [e["test_set"] for e in ddb["label_free"]] == ["window"] and ddb["label_free"][0]["n_window"] == 500
    if weighted:  # Σw per score summed in another order
        _close(_strip(mem), _strip(ddb))
    else:
        assert _strip(mem) == _strip(ddb)


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_compare_window_without_labels_spark_equals_memory(data, unlabeled, spark):
    args = ["--y-true", "y", "--y-score", "s"]
    files = [str(data["parts"][0]), str(unlabeled)]
    mem = _json("compare", *files, *args)
    result = CliRunner().invoke(main, ["compare", *files, *args, "--engine", "spark", *FAST])
    assert result.exit_code == 0, result.output
    assert _strip(mem) == _strip(json.loads(result.stdout))


@pytest.mark.parametrize("args", [["--y-true", "cls", "--y-pred", "pc"], ["--y-true", "t", "--y-pred", "f"]])
def test_compare_multiclass_and_regression_duckdb_equals_memory(data, args):
    mem = _json("compare", *data["parts"], *args)
    ddb = _json("compare", *data["parts"], *args, "--engine", "duckdb")
    assert mem["classifier_changes"] and all("expected_value" in c for c in mem["changes"])
    if args[1] == "t":
        assert len(mem["target_shifts"]) == 2
    _close(_strip(mem), _strip(ddb))


def test_compare_engine_window_errors(data, tmp_path):
    few = tmp_path / "few.parquet"
    pd.DataFrame({"s": [0.1, 0.5, 0.9]}).to_parquet(few)
    line = _error("compare", data["parts"][0], few, "--y-true", "y", "--y-score", "s", "--engine", "duckdb")
    assert "few" in line and "no labels" in line and "at least 50" in line
    other = tmp_path / "other.parquet"
    pd.DataFrame({"s": np.linspace(0, 1, 60)}).to_parquet(other)
    line = _error("compare", few, other, "--y-true", "y", "--y-score", "s", "--engine", "duckdb")
    assert "needs a test set with labels" in line


# --- edge files: every engine gives memory's report, or memory's one-line refusal ------------


@pytest.fixture(scope="module")
def edge(tmp_path_factory) -> dict:
    """The edge files of issue 29 (seed 29): scores all beyond 2**53 (floats, every one a
    whole number), regression targets near 1e16, ±inf in y_true, Decimal128 columns."""
    import decimal

    import pyarrow as pa
    import pyarrow.parquet as pq

    tmp = tmp_path_factory.mktemp("edge")
    rng = np.random.default_rng(29)
    n = 40
    y = rng.integers(0, 2, n)
    out = {}
    scores = 2.0**60 + rng.integers(0, 1000, n) * 2.0**8 * (1 + y)
    out["beyond 2**53"] = tmp / "big_scores.csv"
    out["beyond 2**53"].write_text("y,s\n" + "".join(f"{a},{b!r}\n" for a, b in zip(y, scores.tolist())))
    t = 1e16 + rng.integers(0, 100, n) * 2.0
    out["targets 1e16"] = tmp / "big_targets.csv"
    rows = zip(t.tolist(), (t + rng.normal(0, 1e3, n)).tolist(), (rng.random(n) + 0.5).tolist())
    out["targets 1e16"].write_text("y,p,w\n" + "".join(f"{a!r},{b!r},{c!r}\n" for a, b, c in rows))
    labels = [str(a) for a in y]
    labels[3], labels[5] = "-inf", "inf"
    out["inf"] = tmp / "inf_true.csv"
    out["inf"].write_text("y,s\n" + "".join(f"{a},{b!r}\n" for a, b in zip(labels, rng.random(n).tolist())))
    out["decimal"] = tmp / "decimals.parquet"
    pq.write_table(pa.table({
        "y": pa.array([decimal.Decimal(int(a)) for a in y], pa.decimal128(3, 0)),
        "s": pa.array([decimal.Decimal(f"{v:.4f}") for v in rng.random(n)], pa.decimal128(10, 4)),
        "w": pa.array([decimal.Decimal(f"{v:.2f}") for v in rng.random(n) + 0.5], pa.decimal128(5, 2)),
    }), out["decimal"])
    return out


#: (edge file, its columns, what every engine gives: a report's task or memory's refusal, its start)
EDGE_CASES = [
    ("beyond 2**53", ["--y-true", "y", "--y-score", "s"], "binary-scores"),  # floats there are numbers
    ("targets 1e16", ["--y-true", "y", "--y-pred", "p", "--task", "regression"], "regression"),
    ("targets 1e16", ["--y-true", "y", "--y-pred", "p"],  # without the task: labels, refused (never merged)
     "beyondchance: error: y_true holds a floating-point label beyond 2**53, where distinct integers share one "
     "float (labels beyond the 64-bit range are read as floats): 1.0000000000000"),
    ("inf", ["--y-true", "y", "--y-score", "s"],
     "beyondchance: error: y_true holds an infinite value: -inf in row 4 (index 3); labels must be finite"),
    ("decimal", ["--y-true", "y", "--y-score", "s", "--weight", "w"], "binary-scores"),  # the nearest doubles
    ("targets 1e16", ["--y-true", "y", "--y-pred", "p", "--weight", "w", "--task", "regression"], "regression"),
]
EDGE_IDS = ["scores-beyond-2**53", "regression-given", "labels-beyond-2**53", "inf-label", "decimal128",
            "weighted-regression-given"]
#: the four edge files of the issue, on Spark
SPARK_EDGE = [(case, eid) for case, eid in zip(EDGE_CASES, EDGE_IDS) if eid in (
    "scores-beyond-2**53", "regression-given", "inf-label", "decimal128")]


def _edge_run(path, args, engine: str, *options: str) -> dict | str:
    """The JSON report of one engine (in-process, so that spark reuses the test session),
    or its one line on stderr when it refuses (exit 2)."""
    result = CliRunner().invoke(main, ["report", str(path), *args, "--engine", engine, *FAST, *options])
    if result.exit_code == 2:
        lines = result.stderr.strip().splitlines()
        assert len(lines) == 1, result.stderr
        return lines[0]
    assert result.exit_code == 0, (result.exit_code, result.output, result.exception)
    return json.loads(result.stdout)


def _same_outcome(mem: dict | str, other: dict | str, expected: str) -> None:
    if expected.startswith("beyondchance: error:"):
        assert mem == other and mem.startswith(expected), (mem, other)
        assert "in row " in mem
    else:
        assert isinstance(mem, dict) and isinstance(other, dict), (mem, other)
        assert mem["task"] == other["task"] == expected
        _close(_strip(mem), _strip(other))


@pytest.mark.parametrize("case, args, expected", EDGE_CASES, ids=EDGE_IDS)
def test_edge_files_duckdb_gives_memory_report(edge, case, args, expected):
    _same_outcome(_edge_run(edge[case], args, "memory"), _edge_run(edge[case], args, "duckdb"), expected)


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
@pytest.mark.parametrize("case, args, expected", [c for c, _ in SPARK_EDGE], ids=[i for _, i in SPARK_EDGE])
def test_edge_files_spark_gives_memory_report(edge, case, args, expected, spark):
    # without intervals: the grouped bootstrap's Spark jobs cost seconds, and DuckDB's test checks them
    _same_outcome(_edge_run(edge[case], args, "memory", "--no-ci"), _edge_run(edge[case], args, "spark", "--no-ci"),
                  expected)
