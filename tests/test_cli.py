"""The command line, run as a user runs it: a subprocess, on bundled real data and on
generated files; every number of the JSON output checked against scikit-learn and the
library; bad input answered with one line and exit status 2; input files untouched."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import sklearn.metrics as skm
from click.testing import CliRunner

from beyondchance import bootstrap_ci, outperformance_score
from beyondchance.cli import main
from beyondchance.report.demo import haberman_demo


#: reference curves of the AUCs' OPS in the tests (fast on a cold cache)
DBT = 2048


def run(*args, stdin=None, cwd=None):
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *args], capture_output=True, text=True,
                          timeout=900, input=stdin, cwd=cwd)  # a hang guard only, generous under load


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


@pytest.fixture(scope="module")
def example_dir(tmp_path_factory):
    """The bundled example, written by the CLI itself."""
    d = tmp_path_factory.mktemp("example")
    result = run("example", str(d))
    assert result.returncode == 0, result.stderr
    assert "beyondchance compare" in result.stdout
    return d


@pytest.fixture(scope="module")
def parquet_file(tmp_path_factory):
    """A generated Parquet file: 0/1 labels, scores, weights, a segment column."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = np.random.default_rng(7)
    n = 3000
    y = (rng.random(n) < 0.2).astype(np.int64)
    score = 1 / (1 + np.exp(-(rng.normal(size=n) + 1.8 * y - 1.5)))
    w = rng.choice([0.5, 1.0, 2.0], size=n)
    seg = np.where(rng.random(n) < 0.5, "north", "south")
    path = tmp_path_factory.mktemp("pq") / "scores.parquet"
    pq.write_table(pa.table({"label": y, "score": score, "w": w, "segment": seg}), path)
    return path


# --- the demo ------------------------------------------------------------------------------


def test_demo_prints_the_verdicts_and_writes_the_html(tmp_path):
    out = tmp_path / "demo.html"
    result = run("demo", "--folds", "5", "--out", str(out), "--mc-samples", "1024", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "Haberman survival" in result.stdout
    assert "Verdict" in result.stdout
    assert "73.53%" in result.stdout  # the majority-class accuracy 225/306
    assert ("2024-05 (20.0% prevalence): evidence that the classifier changed "
            "(Holm-adjusted p ≤ 5%)") in " ".join(result.stdout.split())
    assert "HTML report written to" in result.stdout and str(out.resolve()) in result.stdout.replace("\n", "")
    page = out.read_text()
    assert page.count("data:image/png;base64,") >= 6 and "http://" not in page.replace("http://www.w3.org", "")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["demo.html"]  # nothing else written


def test_demo_numbers_are_the_library_numbers():
    from sklearn.metrics import accuracy_score

    demo = haberman_demo(folds=5)
    assert demo.n == 306 and demo.n_positive == 81
    for m in demo.models:
        c = m.confusion
        n = c["tp"] + c["fp"] + c["fn"] + c["tn"]
        assert n == 306
        assert m.accuracy == pytest.approx((c["tp"] + c["tn"]) / n)
        # PA for the 0/1 loss: 1 − error / error of the majority class (81/306)
        assert m.prediction_advantage == pytest.approx(1 - (c["fp"] + c["fn"]) / 81)
        # "beats the best constant" reads the interval of the PA, not its point estimate
        lo, hi = m.prediction_advantage_ci
        assert lo <= m.prediction_advantage <= hi
        assert m.beats_constant == ("yes" if lo > 0 else "no" if hi <= 0 else "unclear")
    assert demo.majority_accuracy == pytest.approx(accuracy_score([0] * 306, [0] * 225 + [1] * 81))


# --- report: every JSON number against scikit-learn and the library -------------------------


def test_report_json_on_bundled_data(example_dir):
    path = example_dir / "credit_default_2024-03.csv"
    before = digest(path)
    result = run("report", str(path), "--y-true", "default", "--y-score", "score", "--format", "json", "--seed", "4",
                 "--mc-samples", str(DBT))
    assert result.returncode == 0, result.stderr
    assert digest(path) == before
    d = json.loads(result.stdout)
    frame = pd.read_csv(path)
    y = (frame["default"] == "Yes").to_numpy().astype(int)
    s = frame["score"].to_numpy()
    pred = (s >= 0.5).astype(int)
    assert d["task"] == "binary-scores" and d["n"] == len(frame)
    assert d["prevalence"] == pytest.approx(y.mean())
    assert d["positive_label"] == "Yes" and d["threshold"] == 0.5
    m = d["metrics"]
    expected = {
        "accuracy": skm.accuracy_score(y, pred),
        "balanced_accuracy": skm.balanced_accuracy_score(y, pred),
        "f1": skm.f1_score(y, pred),
        "mcc": skm.matthews_corrcoef(y, pred),
        "kappa": skm.cohen_kappa_score(y, pred),
        "pure_accuracy": skm.cohen_kappa_score(y, pred),
        "precision": skm.precision_score(y, pred),
        "recall": skm.recall_score(y, pred),
        "prediction_advantage": 1 - np.mean(y != pred) / min(y.mean(), 1 - y.mean()),
        "roc_auc": skm.roc_auc_score(y, s),
        "pr_auc": skm.average_precision_score(y, s),
        "log_loss": skm.log_loss(y, s),
        "brier": skm.brier_score_loss(y, s),
    }
    for name, value in expected.items():
        assert set(m[name]) >= {"value", "baseline", "ops", "ci"}
        assert m[name]["value"] == pytest.approx(value, abs=1e-12), name
    pi = y.mean()
    assert m["accuracy"]["baseline"] == pytest.approx(1 - pi)
    assert m["f1"]["baseline"] == pytest.approx(2 * pi / (1 + pi))
    assert m["pr_auc"]["baseline"] == pytest.approx(pi)
    assert m["log_loss"]["advantage"] == pytest.approx(skm.d2_log_loss_score(y, s), abs=1e-10)
    for name in ("accuracy", "balanced_accuracy", "f1", "mcc", "kappa", "pure_accuracy", "prediction_advantage"):
        assert m[name]["ops"] == pytest.approx(outperformance_score(name, m[name]["value"], pi).score, abs=1e-12)
        ref = bootstrap_ci(name, y, pred, random_state=4, zero_division="nan")
        assert m[name]["ci"]["low"] == pytest.approx(ref.low, abs=1e-12), name
        assert m[name]["ci"]["high"] == pytest.approx(ref.high, abs=1e-12), name
    for name in ("roc_auc", "pr_auc"):
        assert m[name]["ci"]["low"] < m[name]["value"] < m[name]["ci"]["high"]
        assert "cells" in m[name]["ci"]["resampling"]
        ref = outperformance_score(name, m[name]["value"], pi, mc_samples=DBT).score
        assert m[name]["ops"] == pytest.approx(ref, abs=1e-12)
    assert d["verdict"] and "ci_method" in d


def test_report_parquet_with_weights(parquet_file):
    before = digest(parquet_file)
    result = run("report", str(parquet_file), "--y-true", "label", "--y-score", "score", "--weight", "w",
                 "--threshold", "0.4", "--format", "json", "--n-resamples", "300", "--mc-samples", str(DBT))
    assert result.returncode == 0, result.stderr
    assert digest(parquet_file) == before
    d = json.loads(result.stdout)
    t = pd.read_parquet(parquet_file)
    y, s, w = t["label"].to_numpy(), t["score"].to_numpy(), t["w"].to_numpy()
    pred = (s >= 0.4).astype(int)
    m = d["metrics"]
    assert d["total_weight"] == pytest.approx(w.sum()) and d["threshold"] == 0.4
    assert d["prevalence"] == pytest.approx(np.average(y, weights=w))
    assert m["f1"]["value"] == pytest.approx(skm.f1_score(y, pred, sample_weight=w), abs=1e-12)
    assert m["mcc"]["value"] == pytest.approx(skm.matthews_corrcoef(y, pred, sample_weight=w), abs=1e-12)
    assert m["roc_auc"]["value"] == pytest.approx(skm.roc_auc_score(y, s, sample_weight=w), abs=1e-12)
    assert m["pr_auc"]["value"] == pytest.approx(skm.average_precision_score(y, s, sample_weight=w), abs=1e-12)
    assert m["log_loss"]["value"] == pytest.approx(skm.log_loss(y, s, sample_weight=w), abs=1e-12)


def test_report_table_from_stdin_and_pos_label(example_dir):
    text = (example_dir / "credit_default_2024-06.csv").read_text()
    result = run("report", "-", "--y-true", "default", "--y-score", "score", "--pos-label", "Yes", "--no-ci",
                 "--mc-samples", str(DBT), stdin=text)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert out.lstrip().startswith("Verdict")
    assert "positive class 'Yes' (given)" in " ".join(out.split())
    assert "prevalence 30.00%" in out


def test_report_multiclass_probabilities_and_regression(tmp_path):
    rng = np.random.default_rng(3)
    y = rng.choice(["setosa", "versicolor", "virginica"], size=200)
    codes = np.searchsorted(["setosa", "versicolor", "virginica"], y)
    logits = rng.normal(size=(200, 3)) + 2 * np.eye(3)[codes]
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    path = tmp_path / "probs.csv"
    pd.DataFrame({"species": y, "pa": p[:, 0], "pb": p[:, 1], "pc": p[:, 2]}).to_csv(path, index=False)
    # columns that do not name the classes are taken in the order of --labels (else refused)
    result = run("report", str(path), "--y-true", "species", "--y-score", "pa", "--y-score", "pb", "--y-score", "pc",
                 "--labels", "setosa,versicolor,virginica", "--format", "json", "--n-resamples", "100")
    assert result.returncode == 0, result.stderr
    d = json.loads(result.stdout)
    read = pd.read_csv(path)[["pa", "pb", "pc"]].to_numpy()
    assert d["task"] == "multiclass-probabilities"
    assert d["metrics"]["log_loss"]["value"] == pytest.approx(skm.log_loss(y, read), abs=1e-12)
    assert d["metrics"]["f1"]["value"] == pytest.approx(skm.f1_score(y, read.argmax(1).choose(
        ["setosa", "versicolor", "virginica"]), average="macro"), abs=1e-12)

    target = rng.normal(5, 2, 300)
    reg = tmp_path / "reg.csv"
    pd.DataFrame({"y": target, "yhat": target + rng.normal(0, 1, 300)}).to_csv(reg, index=False)
    result = run("report", str(reg), "--y-true", "y", "--y-pred", "yhat", "--format", "json", "--n-resamples", "100")
    assert result.returncode == 0, result.stderr
    d = json.loads(result.stdout)
    f = pd.read_csv(reg)
    assert d["task"] == "regression"
    assert d["metrics"]["r2"]["value"] == pytest.approx(skm.r2_score(f["y"], f["yhat"]), abs=1e-12)
    assert d["metrics"]["mae"]["value"] == pytest.approx(skm.mean_absolute_error(f["y"], f["yhat"]), abs=1e-12)


def test_report_html(example_dir, tmp_path):
    out = tmp_path / "r.html"
    result = run("report", str(example_dir / "credit_default_2024-02.csv"), "--y-true", "default",
                 "--y-score", "score", "--format", "html", "--out", str(out), "--n-resamples", "200",
                 "--mc-samples", str(DBT))
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    assert "id='verdict'" in page and "id='metrics'" in page
    assert page.count("<img class=\"plot\"") == 7  # the score histogram and the decision curve too
    assert "written to" in result.stderr


# --- compare ---------------------------------------------------------------------------------


def test_compare_by_month_shows_the_point_of_the_ops_paper(example_dir):
    path = example_dir / "credit_default_monthly.csv"
    before = digest(path)
    result = run("compare", str(path), "--by", "month", "--y-true", "default", "--y-score", "score",
                 "--format", "json", "--metrics", "precision,f1,prediction_advantage", "--n-resamples", "500")
    assert result.returncode == 0, result.stderr
    assert digest(path) == before
    d = json.loads(result.stdout)
    names = [t["name"] for t in d["test_sets"]]
    assert names == ["2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06"]
    frame = pd.read_csv(path)
    for t in d["test_sets"]:
        g = frame[frame["month"] == t["name"]]
        y = (g["default"] == "Yes").to_numpy()
        pred = g["score"].to_numpy() >= 0.5
        assert t["prevalence"] == pytest.approx(y.mean())
        assert t["metrics"]["precision"]["value"] == pytest.approx(skm.precision_score(y, pred), abs=1e-12)
        assert t["metrics"]["precision"]["ops"] == pytest.approx(
            outperformance_score("precision", t["metrics"]["precision"]["value"], y.mean()).score, abs=1e-12)
    precision = {t["name"]: t["metrics"]["precision"] for t in d["test_sets"]}
    # nominal precision moves with the prevalence (and is higher in the degraded month than in
    # January), the OPS of precision does not — except where the model degraded
    assert precision["2024-06"]["value"] - precision["2024-01"]["value"] > 0.2
    directions = {c["test_set"]: c["direction"] for c in d["changes"] if c["metric"] == "precision"}
    assert directions == {"2024-02": "no significant change", "2024-03": "no significant change",
                          "2024-04": "no significant change", "2024-05": "worse",
                          "2024-06": "no significant change"}
    assert any(line.startswith(("2024-05 (20.0% prevalence): evidence that the classifier changed "
                                "(Holm-adjusted p ≤ 5%)")) for line in d["verdict"])


def test_compare_files_table(example_dir):
    files = [str(example_dir / f"credit_default_2024-0{i}.csv") for i in (1, 4, 5)]
    result = run("compare", *files, "--y-true", "default", "--y-score", "score", "--metrics", "precision,recall",
                 "--n-resamples", "300")
    assert result.returncode == 0, result.stderr
    # one screen: the table of the windows first, the flagged window under it
    assert result.stdout.lstrip().startswith("beyondchance compare")
    assert "credit_default_2024-05" in result.stdout and "▼" in result.stdout
    detailed = run("compare", *files, "--y-true", "default", "--y-score", "score", "--metrics", "precision,recall",
                   "--n-resamples", "300", "--details")
    assert detailed.returncode == 0, detailed.stderr
    assert detailed.stdout.lstrip().startswith("Verdict")


# --- bad input: one line on stderr, exit status 2, no traceback, files untouched -------------


@pytest.fixture(scope="module")
def bad_files(tmp_path_factory):
    d = tmp_path_factory.mktemp("bad")
    (d / "ok.csv").write_text("y,s,w,p1,p2,lab\n0,0.2,1,0.3,0.7,a\n1,0.8,1,0.6,0.4,b\n0,0.4,1,0.5,0.5,a\n1,0.7,2,0.1,0.9,b\n")
    (d / "empty.csv").write_text("y,s\n")
    (d / "blank.csv").write_text("")
    (d / "nan.csv").write_text("y,s\n0,0.2\n1,\n0,0.4\n")
    (d / "text_score.csv").write_text("y,s\n0,0.2\n1,high\n0,0.4\n")
    (d / "negw.csv").write_text("y,s,w\n0,0.2,1\n1,0.8,-1\n0,0.4,1\n")
    (d / "one_class.csv").write_text("y,s\n1,0.2\n1,0.8\n1,0.4\n")
    (d / "rows.csv").write_text("y,p_a,p_b,p_c\na,0.5,0.5,0.5\nb,0.2,0.7,0.1\nc,0.1,0.1,0.8\n")
    (d / "range.csv").write_text("y,p_a,p_b,p_c\na,1.5,-0.5,0.0\nb,0.2,0.7,0.1\nc,0.1,0.1,0.8\n")
    (d / "bad.parquet").write_bytes(b"PAR1 this is not parquet PAR1")
    return d


def _cases(d: Path) -> list[tuple[list[str], str]]:
    ok = str(d / "ok.csv")
    return [
        ([str(d / "missing.csv"), "--y-true", "y", "--y-score", "s"], "file not found"),
        ([ok, "--y-true", "nope", "--y-score", "s"], "column 'nope' not found"),
        ([ok, "--y-true", "y", "--y-score", "lab"], "must be numeric"),
        ([str(d / "text_score.csv"), "--y-true", "y", "--y-score", "s"], "text_score.csv"),
        ([str(d / "bad.parquet"), "--y-true", "y", "--y-score", "s"], "cannot read"),
        ([str(d / "empty.csv"), "--y-true", "y", "--y-score", "s"], "no data rows"),
        ([str(d / "blank.csv"), "--y-true", "y", "--y-score", "s"], "empty"),
        ([str(d / "nan.csv"), "--y-true", "y", "--y-score", "s"], "missing value"),
        ([str(d / "negw.csv"), "--y-true", "y", "--y-score", "s", "--weight", "w"], "negative"),
        ([str(d / "one_class.csv"), "--y-true", "y", "--y-score", "s"], "single class"),
        ([str(d / "rows.csv"), "--y-true", "y", "--y-score", "p_a", "--y-score", "p_b", "--y-score", "p_c"], "sum to 1"),
        ([str(d / "range.csv"), "--y-true", "y", "--y-score", "p_a", "--y-score", "p_b", "--y-score", "p_c"], "[0, 1]"),
        ([ok, "--y-true", "y", "--y-score", "s", "--metrics", "f1,bogus"], "unknown metric 'bogus'"),
        ([ok, "--y-true", "y", "--y-score", "s", "--pos-label", "7"], "pos_label"),
        ([ok, "--y-true", "y"], "give --y-score"),
        # scores with labels (issue 14, item 6): the labels a, b are not of the type of y's 0, 1
        ([ok, "--y-true", "y", "--y-score", "s", "--y-pred", "lab"], "y_true and y_pred mix string and numeric"),
        ([ok, "--y-true", "y", "--y-score", "s", "--format", "xml"], "xml"),
        ([ok, "--y-true", "y", "--y-score", "s", "--out", ok], "never overwritten"),
        ([ok, "--y-true", "lab", "--y-score", "p1", "--y-score", "p2", "--y-score", "s"], "3 probability column"),
    ]


def test_bad_input_one_line_exit_2(bad_files):
    before = {p.name: digest(p) for p in bad_files.iterdir()}
    runner = CliRunner()
    for args, message in _cases(bad_files):
        result = runner.invoke(main, ["report", *args])
        assert result.exit_code == 2, (args, result.output)
        err = result.stderr.strip()
        assert err.startswith("beyondchance: error:") and "\n" not in err, (args, err)
        assert message in err, (args, err)
        assert "Traceback" not in result.output
    assert {p.name: digest(p) for p in bad_files.iterdir() if p.name in before} == before


def test_compare_bad_input(bad_files):
    runner = CliRunner()
    ok = str(bad_files / "ok.csv")
    for args, message in [
        ([ok, "--y-true", "y", "--y-score", "s"], "two or more FILEs"),
        ([ok, ok, "--y-true", "y", "--y-score", "s", "--by", "lab"], "exactly one FILE"),
        ([ok, "--y-true", "y", "--y-score", "s", "--by", "nope"], "column 'nope' not found"),
        ([ok, str(bad_files / "nan.csv"), "--y-true", "y", "--y-score", "s"], "missing value"),
    ]:
        result = runner.invoke(main, ["compare", *args])
        assert result.exit_code == 2, (args, result.output)
        assert message in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.parametrize("case", [0, 3, 9])
def test_bad_input_in_a_real_process(bad_files, case):
    args, message = _cases(bad_files)[case]
    result = run("report", *args)
    assert result.returncode == 2
    assert result.stderr.startswith("beyondchance: error:") and result.stderr.count("\n") == 1
    assert message in result.stderr and "Traceback" not in result.stderr


def test_bad_option_exits_with_status_2_and_one_line():
    result = run("demo", "--folds", "1")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr and result.stderr.count("\n") == 1


# --- help ------------------------------------------------------------------------------------


def test_top_level_help_has_an_example():
    result = run("--help")
    assert result.returncode == 0
    assert "Example" in result.stdout


@pytest.mark.parametrize("command", ["report", "compare", "demo", "example"])
def test_command_help_has_an_example(command):
    result = CliRunner().invoke(main, [command, "--help"])
    assert result.exit_code == 0
    assert "Example" in result.output
    assert f"beyondchance {command}" in result.output
