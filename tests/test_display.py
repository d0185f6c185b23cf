"""Results show themselves (issue 14, item 1): ``print``, notebooks (HTML, Markdown), files,
and conversion of array-valued results with ``float`` / ``np.asarray``."""

from __future__ import annotations

import json
import warnings

import numpy as np
import pytest

import beyondchance as bc
from beyondchance import InvalidInputError
from beyondchance.report import compare, evaluate

FAST = dict(n_resamples=200, mc_samples=1024)


@pytest.fixture(scope="module")
def scores():
    rng = np.random.default_rng(0)
    y = rng.integers(0, 2, 400)
    return y, np.clip(0.3 * y + 0.7 * rng.random(400), 0, 1)


@pytest.fixture(scope="module")
def report(scores):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(*scores, name="holdout | May", **FAST)


def test_report_repr_is_short_and_str_is_the_terminal_table(report, monkeypatch):
    monkeypatch.setenv("COLUMNS", "100")  # str() fits the terminal: this one is 100 columns wide
    assert len(repr(report)) < 200 and "binary-scores" in repr(report)
    text = str(report)
    assert "\x1b[" not in text  # no colour codes
    assert text.startswith("Verdict (holdout | May)")
    for m in report.metrics.values():
        assert m.title in text


def test_report_in_a_notebook(report):
    fragment = report._repr_html_()
    assert "<table id='metrics'>" in fragment and "<img" not in fragment  # no plots unless asked
    assert "<html" not in fragment
    md = report._repr_markdown_()
    lines = md.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("| metric |"))
    table = lines[start:start + next(j for j, line in enumerate(lines[start:]) if not line.startswith("|"))]
    assert len(table) == 2 + len(report.metrics)  # header, alignment, one row per metric
    assert "holdout \\| May" in md  # a pipe in a name does not break the table
    assert all(line.count(" | ") == table[0].count(" | ") for line in table if not line.startswith("|:"))


def test_report_files_by_suffix(report, tmp_path):
    for suffix in (".html", ".htm", ".json", ".md", ".txt"):
        report.save(tmp_path / f"r{suffix}")
    assert json.loads((tmp_path / "r.json").read_text()) == json.loads(report.to_json())
    assert json.loads(report.to_json()) == json.loads(json.dumps(report.to_dict()))
    page = (tmp_path / "r.html").read_text()
    assert page.startswith("<!DOCTYPE html>") and "<img" in page
    assert "<img" not in report.to_html(plots=False)
    assert (tmp_path / "r.md").read_text() == report.to_markdown()
    assert (tmp_path / "r.txt").read_text() == str(report)
    assert report.to_json(tmp_path / "x.json") is None and (tmp_path / "x.json").exists()
    with pytest.raises(InvalidInputError, match="cannot tell the format"):
        report.save(tmp_path / "r.pdf")


def test_comparison_shows_itself(scores, tmp_path):
    y, s = scores
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare({"jan": (y[:200], s[:200]), "feb": (y[200:], s[200:])}, **FAST)
    assert "2 test sets" in repr(c) and len(repr(c)) < 200
    assert "jan" in str(c) and "feb" in str(c)
    assert "<table id='comparison'>" in c._repr_html_() and "<img" not in c._repr_html_()
    md = c._repr_markdown_()
    assert "| metric | jan | feb |" in md
    c.save(tmp_path / "c.json")
    assert json.loads((tmp_path / "c.json").read_text())["reference"] == "jan"


def test_ops_result_converts_to_numbers():
    r = bc.outperformance_score("f1", [0.5, 0.6], [0.1, 0.2])
    a = np.asarray(r)
    assert a.dtype == np.float64 and a.shape == (2,)
    np.testing.assert_array_equal(a, r.score)
    one = bc.outperformance_score("f1", 0.5, 0.1)
    assert float(one) == float(np.asarray(one)) == pytest.approx(one.score)
    assert "Outperformance score of f1" in str(r) and "<table>" in r._repr_html_()
    assert "| OPS |" in r._repr_markdown_()


def test_bootstrap_and_advantage_results_show_themselves():
    y, p = [0, 1, 1, 0, 1] * 20, [0, 1, 0, 0, 1] * 20
    b = bc.bootstrap_ci("f1", y, p, random_state=0, n_resamples=300)
    assert float(b) == b.estimate
    assert str(b).startswith(f"f1 = {b.estimate:.4g}, 95% CI")
    pa = bc.PredictionAdvantageResult.from_predictions(y, p)
    assert float(pa) == float(np.asarray(pa)) == pa.value
    assert "best constant" in str(pa) and "| prediction advantage |" in pa._repr_markdown_()


def test_multiclass_ops_result_converts_and_shows_its_classes():
    y = np.array([0, 1, 2, 2, 1, 0, 2, 1, 0, 2] * 10)
    p = np.array([0, 1, 2, 1, 1, 0, 2, 2, 0, 2] * 10)
    r = bc.multiclass_outperformance_score("f1", y, p)
    assert float(r) == float(np.asarray(r)) == pytest.approx(r.score)
    per_class = bc.multiclass_outperformance_score("f1", y, p, average=None)
    np.testing.assert_array_equal(np.asarray(per_class), per_class.scores)
    assert all(f"class {c}" in str(r) for c in (0, 1, 2))
