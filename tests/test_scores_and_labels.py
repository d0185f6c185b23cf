"""Scores and predicted labels together (issue 14, item 6): curves, AUCs and losses from the
scores, labeling metrics from the given labels; ``--threshold`` sets the cut-off and the
report states it."""

from __future__ import annotations

import json
import subprocess
import sys
import warnings

import numpy as np
import pandas as pd
import pytest

from beyondchance import InvalidInputError
from beyondchance.report import evaluate

FAST = dict(n_resamples=200, mc_samples=1024, random_state=1)
SCORING = ("roc_auc", "pr_auc", "lift_auc", "log_loss", "brier")


def _quiet(f, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(7)
    y = rng.integers(0, 2, 400)
    s = np.clip(0.3 * y + 0.7 * rng.random(400), 0, 1)
    # labels of another cut-off, with some flipped: not a threshold of the scores
    p = np.where(rng.random(400) < 0.85, (s >= 0.55).astype(int), 1 - y)
    w = rng.integers(1, 4, 400).astype(float)
    return y, s, p, w


def _same(a, b, names):
    for name in names:
        assert a[name].value == pytest.approx(b[name].value, rel=1e-12, abs=1e-12, nan_ok=True), name
        assert a[name].baseline == pytest.approx(b[name].baseline, rel=1e-12, abs=1e-12), name
        assert (a[name].ops is None) == (b[name].ops is None), name
        if a[name].ops is not None:
            assert a[name].ops == pytest.approx(b[name].ops, abs=1e-12), name
        assert (a[name].ci is None) == (b[name].ci is None), name
        if a[name].ci is not None:
            assert (a[name].ci.low, a[name].ci.high) == pytest.approx((b[name].ci.low, b[name].ci.high), abs=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_labels_from_y_pred_and_curves_from_the_scores(data, weighted):
    y, s, p, w = data
    sw = w if weighted else None
    both = _quiet(evaluate, y, s, y_pred=p, sample_weight=sw, **FAST)
    labels = _quiet(evaluate, y, p, sample_weight=sw, **FAST)
    scores = _quiet(evaluate, y, s, sample_weight=sw, **FAST)
    assert both.task == "binary-scores" and both.threshold is None
    assert "predicted labels were given" in both.threshold_reason
    _same(both, labels, [k for k in labels.metrics])
    _same(both, scores, SCORING)
    np.testing.assert_array_equal(both.confusion.matrix, labels.confusion.matrix)
    pd.testing.assert_frame_equal(both.per_class.to_frame(), labels.per_class.to_frame())
    assert "no threshold: the predicted labels were given" in " ".join(str(both).split())
    assert both.to_dict()["threshold"] is None and both.to_dict()["threshold_reason"] == both.threshold_reason


def test_labels_that_are_a_threshold_give_the_threshold_report(data):
    y, s, _, _ = data
    both = _quiet(evaluate, y, s, y_pred=(s >= 0.3).astype(int), **FAST)
    at = _quiet(evaluate, y, s, threshold=0.3, **FAST)
    assert at.threshold == 0.3 and at.threshold_reason == "given"
    assert "threshold 0.3 (given" in " ".join(str(at).split())
    _same(both, at, list(at.metrics))


def test_html_of_given_labels_marks_them_and_has_no_pa_coverage(data):
    y, s, p, _ = data
    r = _quiet(evaluate, y, s, y_pred=p, **FAST)
    page = r.to_html()
    assert page.count('<img class="plot"') == 6 and "plot-pa_coverage" not in page  # no PA-coverage without a threshold
    with pytest.raises(InvalidInputError, match="labels were given"):
        r.pa_coverage()


def test_bad_combinations_are_refused(data):
    y, s, p, _ = data
    with pytest.raises(InvalidInputError, match="either a threshold or predicted labels"):
        evaluate(y, s, y_pred=p, threshold=0.5, ci=False)
    with pytest.raises(InvalidInputError, match="go with the scores of a binary task"):
        evaluate(y, p, y_pred=p, ci=False)
    with pytest.raises(InvalidInputError, match="y_pred"):
        evaluate(y, s, y_pred=p[:-1], ci=False)
    with pytest.raises(InvalidInputError, match="binary report needs two classes"):
        evaluate(y, s, y_pred=np.where(p == 1, 1, 2), ci=False)


@pytest.mark.parametrize("weighted", [False, True])
def test_every_engine_gives_the_same_report(data, weighted):
    y, s, p, w = data
    frame = pd.DataFrame({"y": y, "s": s, "p": p, "w": w})
    mem = _quiet(evaluate, y, s, y_pred=p, sample_weight=w if weighted else None, **FAST)
    for engine, source in (("duckdb", frame), ("memory", {c: frame[c].to_numpy() for c in frame})):
        e = _quiet(evaluate, data=source, y_true="y", y_score="s", y_pred="p", sample_weight="w" if weighted else None,
                   engine=engine, **FAST)
        assert e.task == "binary-scores" and e.threshold is None and e.threshold_reason == mem.threshold_reason
        _same(e, mem, list(mem.metrics))
        pd.testing.assert_frame_equal(e.per_class.to_frame(), mem.per_class.to_frame())
    with pytest.raises(InvalidInputError, match="one score column"):
        evaluate(data=frame, y_true="y", y_score=["s", "w"], y_pred="p", engine="duckdb")


def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *args], capture_output=True, text=True,
                          timeout=600)


def test_command_line(data, tmp_path):
    y, s, p, _ = data
    path = tmp_path / "scored.csv"
    pd.DataFrame({"y": y, "s": s, "p": p}).to_csv(path, index=False)
    before = path.read_bytes()
    common = ["--y-true", "y", "--format", "json", "--n-resamples", "200", "--mc-samples", "1024", "--seed", "1"]
    res = _cli("report", str(path), "--y-score", "s", "--y-pred", "p", *common)
    assert res.returncode == 0, res.stderr
    d = json.loads(res.stdout)
    api = _quiet(evaluate, y, s, y_pred=p, **FAST).to_dict()
    assert d["threshold"] is None and d["threshold_reason"] == api["threshold_reason"]
    for name in ("f1", "roc_auc", "log_loss"):
        assert d["metrics"][name]["value"] == pytest.approx(api["metrics"][name]["value"], abs=1e-12)
        assert d["metrics"][name]["ci"]["low"] == pytest.approx(api["metrics"][name]["ci"]["low"], abs=1e-12)
    res = _cli("report", str(path), "--y-score", "s", "--threshold", "0.3", *common)
    assert res.returncode == 0 and json.loads(res.stdout)["threshold"] == 0.3
    assert json.loads(res.stdout)["threshold_reason"] == "given"
    for bad in (["report", str(path), "--y-score", "s", "--y-pred", "p", "--threshold", "0.3"],
                ["report", str(path), "--y-score", "s", "--y-score", "s", "--y-pred", "p"],
                ["compare", str(path), str(path), "--y-score", "s", "--y-pred", "p"]):
        res = _cli(*bad, "--y-true", "y")
        assert res.returncode == 2 and "Traceback" not in res.stderr, res.stderr
        assert len(res.stderr.strip().splitlines()) == 1, res.stderr
    assert path.read_bytes() == before


@pytest.mark.filterwarnings("ignore:PySpark does not yet fully support pandas")
def test_spark_gives_the_same_report(spark, data):
    y, s, p, w = data
    frame = pd.DataFrame({"y": y, "s": s, "p": p, "w": w})
    sdf = spark.createDataFrame(frame)
    # weighted: the labels' grouped bootstrap and the score units too (unweighted runs on DuckDB above)
    mem = _quiet(evaluate, y, s, y_pred=p, sample_weight=w, **FAST)
    e = _quiet(evaluate, data=sdf, y_true="y", y_score="s", y_pred="p", sample_weight="w", engine="spark", session=spark,
               **FAST)
    assert e.task == "binary-scores" and e.threshold is None
    _same(e, mem, list(mem.metrics))
    pd.testing.assert_frame_equal(e.per_class.to_frame(), mem.per_class.to_frame())
