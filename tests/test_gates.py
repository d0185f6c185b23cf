"""Gates: the requirement grammar, every registry name accepted, the measured quantities
against the report, undefined quantities failing, and `beyondchance check` exit codes 0/1/2."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import beyondchance as bc
from beyondchance.report.gates import FUNCTIONS, Requirement


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    s = np.clip(0.5 + 0.2 * (2 * y - 1) + rng.normal(0, 0.25, 400), 0, 1)
    return y, s


@pytest.fixture(scope="module")
def report(scores):
    y, s = scores
    return bc.evaluate(y, s, n_resamples=400)


def test_grammar():
    r = Requirement.parse("  ops( f1 )>=0.9 ")
    assert (r.function, r.metric, r.operator, r.bound) == ("ops", "f1", ">=", 0.9)
    assert Requirement.parse("prediction_advantage > 0").function == "value"
    assert Requirement.parse("pvalue(pure-accuracy) < 1e-2").metric == "pure_accuracy"
    assert Requirement.parse("lower(roc_auc) > -.5").bound == -0.5
    for bad in ("f1 >> 2", "f1 > ", "> 0.3", "ops(f1 > 0.3", "f1 = 0.5", "ops(f1, 2) > 1", ""):
        with pytest.raises(bc.InvalidInputError, match="cannot read the requirement"):
            Requirement.parse(bad)
    with pytest.raises(bc.InvalidInputError, match="known: " + ", ".join(FUNCTIONS)):
        Requirement.parse("median(f1) > 0.5")
    assert [Requirement.parse(f"x {op} 1").holds(1.0) for op in (">", ">=", "<", "<=")] == [False, True, False, True]


def test_quantities_are_the_reports(report, scores):
    y, s = scores
    res = report.check("f1 > 0", "lower(roc_auc) > 0", "upper(roc_auc) < 1", "ops(f1) > 0", "advantage(f1) > -1",
                       "baseline(accuracy) > 0", "pvalue(pure_accuracy) < 1")
    got = [r.measured for r in res.requirements]
    f1, auc = report["f1"], report["roc_auc"]
    assert got[:6] == [f1.value, auc.ci.low, auc.ci.high, f1.ops, f1.advantage, report["accuracy"].baseline]
    assert got[6] == bc.permutation_test("pure_accuracy", y, s).pvalue == report["pure_accuracy"].pvalue
    assert report.check("pvalue(roc_auc) < 1").requirements[0].measured == report["roc_auc"].pvalue  # the table's
    assert res.passed and bool(res)
    fail = report.check(["prediction_advantage > 0.99", "roc_auc > 0.5"])
    assert [r.passed for r in fail.requirements] == [False, True] and not fail.passed
    assert fail.failed[0].reason.startswith("value(prediction_advantage) = ")
    assert json.loads(json.dumps(fail.to_dict(), allow_nan=False))["passed"] is False


def test_every_registry_name_is_accepted(report, scores):
    res = report.check(*(f"value({name}) > -1e300" for name in bc.measures.METRICS))
    assert len(res.requirements) == len(bc.measures.METRICS)
    for r in res.requirements:
        expected = report.confusion.metric(r.metric, zero_division="nan")
        assert r.measured == pytest.approx(float(expected), abs=1e-12) or not np.isfinite(expected)
    extra = report.check("lower(npv) > 0", "ops(jaccard) > 0", "advantage(npv) > -10", "pvalue(lift) < 1")
    assert all(r.measured is not None for r in extra.requirements)
    assert extra.requirements[0].measured < report.confusion.metric("npv")
    # a registry metric the report left out gets the report's own interval, value, OPS and advantage
    y, s = scores
    small = bc.evaluate(y, s, n_resamples=400, metrics=["f1"])
    got = small.check("lower(precision) > 0", "upper(precision) < 1", "ops(precision) > 0", "advantage(precision) > -1")
    p = report["precision"]
    assert [r.measured for r in got.requirements] == pytest.approx([p.ci.low, p.ci.high, p.ops, p.advantage], abs=1e-12)


def test_undefined_fails_and_unknown_is_an_error(report):
    r = bc.evaluate([0, 0, 1, 1, 0], [0, 0, 0, 0, 0], ci=False)  # never predicts positive: precision 0/0
    res = r.check("precision > 0.5")
    assert not res.passed and res.requirements[0].measured is None and "undefined" in res.requirements[0].reason
    with pytest.raises(bc.InvalidInputError, match="this report knows accuracy"):
        report.check("roc_auk > 0.5")
    with pytest.raises(bc.InvalidInputError, match="no outperformance score"):
        report.check("ops(log_loss) < 1")
    with pytest.raises(bc.InvalidInputError, match="without confidence intervals"):
        r.check("lower(accuracy) > 0")
    with pytest.raises(bc.InvalidInputError, match="no requirement"):
        report.check()


def run(*args):
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *args], capture_output=True, text=True,
                          timeout=900)


def test_cli_exit_codes(tmp_path, scores):
    y, s = scores
    path = tmp_path / "scores.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(path, index=False)
    base = ["check", str(path), "--y-true", "y", "--y-score", "s", "--n-resamples", "200"]
    ok = run(*base, "--require", "prediction_advantage > 0", "--require", "lower(roc_auc) > 0.75",
             "--require", "pvalue(pure_accuracy) < 0.01", "--require", "ops(f1) >= 0.5")
    assert ok.returncode == 0, ok.stderr
    assert "PASS: 4 of 4" in ok.stdout and "lower(roc_auc) > 0.75" in ok.stdout
    bad = run(*base, "--require", "prediction_advantage > 0", "--require", "roc_auc > 0.999", "--format", "json")
    assert bad.returncode == 1, bad.stderr
    out = json.loads(bad.stdout)
    assert out["passed"] is False and [r["passed"] for r in out["requirements"]] == [True, False]
    for args, says in ((["--require", "f1 >> 2"], "cannot read"), (["--require", "fx > 2"], "this report knows"),
                       (["--require", "lower(f1) > 0", "--no-ci"], "without confidence intervals")):
        r = run(*base, *args)
        assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("beyondchance: error:"), args
        assert says in r.stderr
