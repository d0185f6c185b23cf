"""The report says what it assumed, its verdicts never contradict its table, and no OPS is
dropped because a bootstrap interval's end lies beyond the metric's range."""

from __future__ import annotations

import io
import json
import re
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from beyondchance.report import compare, evaluate
from beyondchance.report.example import scored_holdout
from beyondchance.report.render.html import comparison_html, report_html
from beyondchance.report.render.terminal import render_report_text
from beyondchance.report.render.terminal_comparison import render_comparison_text

DBT = 1024


def _evaluate(*args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(*args, mc_samples=DBT, **kwargs)


@pytest.fixture(scope="module")
def holdout():
    h = scored_holdout()
    return (h["default"] == "Yes").to_numpy().astype(int), h["score"].to_numpy()


# --- item 8: scores outside [0, 1] ------------------------------------------------------------


def test_scores_outside_the_unit_interval_are_said_loudly(holdout):
    y, s = holdout
    r = _evaluate(y, 3 * s, n_resamples=100)
    assert r.threshold == 0.0 and "assumed" in r.threshold_reason
    assumed = [n for n in r.notes if "outside [0, 1]" in n and "threshold 0 assumed" in n]
    everyone = [n for n in r.notes if "every row is predicted positive" in n]
    assert assumed and everyone
    text = " ".join(render_report_text(r, width=120, details=True).split())
    page = report_html(r)
    for note in assumed + everyone:
        assert note in text and note in page and note in r.to_dict()["notes"]
    assert "threshold 0 (assumed" in text and "threshold 0 (assumed" in page
    short = " ".join(render_report_text(r, width=120).split())  # the default: the threshold and the count
    assert "threshold 0 (assumed" in short and f"the {len(r.notes)} notes" in short

    given_ = _evaluate(y, 3 * s, threshold=1.5, ci=False)
    assert given_.threshold == 1.5 and given_.threshold_reason == "given"
    assert not any("assumed" in n or "every row" in n for n in given_.notes)
    tp = int(((3 * s >= 1.5) & (y == 1)).sum())
    assert given_.confusion.tp == tp


def test_compare_states_the_assumed_threshold(holdout):
    y, s = holdout
    c = compare({"a": (y[:2500], 3 * s[:2500]), "b": (y[2500:], s[2500:])}, ci=False, mc_samples=DBT,
                metrics=["f1"])
    assert [r.threshold for r in c.reports] == [0.0, 0.0]
    assert all("assumed" in r.threshold_reason for r in c.reports)
    assert any("threshold 0 assumed" in n for n in c.notes)
    text = " ".join(render_comparison_text(c).split())
    assert "threshold 0 (assumed" in text and "threshold 0 (assumed" in comparison_html(c)
    given_ = compare({"a": (y[:2500], 3 * s[:2500]), "b": (y[2500:], s[2500:])}, ci=False, mc_samples=DBT,
                     metrics=["f1"], threshold=0.9)
    assert all(r.threshold_reason == "given" for r in given_.reports)
    assert not any("assumed" in n for n in given_.notes)


def test_cli_threshold_is_honoured_and_shown_in_every_format(tmp_path, holdout):
    import pandas as pd
    from click.testing import CliRunner

    from beyondchance.cli import main

    y, s = holdout[0][:1500], 3 * holdout[1][:1500]
    path = tmp_path / "x3.csv"
    pd.DataFrame({"y": y, "s": s}).to_csv(path, index=False)
    base = ["report", str(path), "--y-true", "y", "--y-score", "s", "--no-ci", "--mc-samples", str(DBT)]
    runner = CliRunner()
    for threshold in (None, 1.5):
        args = base + ([] if threshold is None else ["--threshold", str(threshold)])
        shown = f"threshold {threshold or 0:g} ("
        js = runner.invoke(main, args + ["--format", "json"])
        assert js.exit_code == 0, js.stderr
        d = json.loads(js.stdout)
        assert d["threshold"] == (threshold or 0.0)
        assert d["confusion_matrix"]["matrix"][1][1] == int(((s >= (threshold or 0.0)) & (y == 1)).sum())
        assert any("threshold 0 assumed" in n for n in d["notes"]) == (threshold is None)
        table = runner.invoke(main, args)
        assert shown in " ".join(table.stdout.split())
        runner.invoke(main, args + ["--format", "html", "--out", str(tmp_path / "r.html")])
        assert shown in (tmp_path / "r.html").read_text()


# --- item 8: no verdict line contradicts the table ------------------------------------------------


def _claim(text: str) -> bool | None:
    """True: the text says "better than" (the constant); False: "no better than"; None: neither."""
    if "no better than" in text.lower():
        return False
    if "better than" in text.lower():
        return True
    return None


def _pct(x: float) -> str:  # the report's own rounding of a share, re-derived
    return "more than 99.99%" if x >= 0.9999 else (f"{100 * x:.2f}%" if x >= 0.99 else f"{100 * x:.0f}%")


_SHARE = r"better than ((?:more than )?[\d.]+%) of "


def contradictions(r) -> list[str]:
    """Every verdict — a row's, and every headline line about a metric — against the row's numbers."""
    found = []
    rows = list(r.metrics.values())
    for m in rows:
        claim = _claim(m.verdict)
        if claim is not None and claim != m.beats_baseline:
            found.append(f"row {m.name}: {m.verdict!r} with value {m.value} vs constant {m.baseline}")
        for share in re.findall(_SHARE, m.verdict):
            if m.ops is None or share != _pct(m.ops):
                found.append(f"row {m.name}: {share} of ... with OPS {m.ops}")
    short = {m.title.split(" (")[0]: m for m in rows}
    pattern = "|".join(re.escape(t) for t in sorted(short, key=len, reverse=True))
    for line in r.verdict:
        if "prediction advantage" in line and "prediction_advantage" in r.metrics:
            m, claim = r.metrics["prediction_advantage"], _claim(line)
            if claim is not None and claim != m.beats_baseline:  # None: "too few rows ... for a verdict"
                found.append(f"headline {line!r} with PA {m.value}")
            continue
        hits = list(re.finditer(rf"(?<![\w(])({pattern}) (-?\d+\.\d+)", line))
        for i, hit in enumerate(hits):
            m = short[hit.group(1)]
            segment = line[hit.start(): hits[i + 1].start() if i + 1 < len(hits) else len(line)]
            if float(hit.group(2)) != float(f"{m.value:.3f}"):
                found.append(f"headline {segment!r}: value {m.value}")
            claim = _claim(segment)
            if claim is not None and claim != m.beats_baseline:
                found.append(f"headline {segment!r}: value {m.value} vs constant {m.baseline}")
            for share in re.findall(_SHARE, segment):
                if m.ops is None or share != _pct(m.ops):
                    found.append(f"headline {segment!r}: OPS {m.ops}")
    return found


def test_the_contradiction_of_the_issue_is_gone(holdout):
    y, s = holdout
    r = _evaluate(y, 3 * s, n_resamples=100)  # every row positive: F1 = the constant's F1
    assert r["f1"].beats_baseline is False
    assert contradictions(r) == [], r.verdict


@st.composite
def binary_cases(draw):
    n = draw(st.integers(20, 300))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    pi = draw(st.sampled_from([0.05, 0.2, 0.5, 0.8]))
    y = (rng.random(n) < pi).astype(int)
    y[:2] = [0, 1]
    quality = draw(st.sampled_from([-1.5, -0.3, 0.0, 0.4, 2.0]))  # negative: worse than a constant
    s = 1 / (1 + np.exp(-(quality * (2 * y - 1) + rng.normal(0, 1, n))))
    scale, shift = draw(st.sampled_from([(1, 0), (3, 0), (1, -0.5), (0.2, 0.4)]))
    s = np.round(scale * s + shift, draw(st.sampled_from([1, 3])))
    threshold = draw(st.sampled_from([None, None, 0.3, 0.7]))
    labels = draw(st.booleans())
    return y, s, threshold, labels


@settings(max_examples=40, deadline=None)
@given(binary_cases())
def test_no_verdict_line_contradicts_the_table(case):
    y, s, threshold, labels = case
    if labels:
        r = _evaluate(y, (s >= (threshold or 0.5)).astype(int), n_resamples=60)
    else:
        r = _evaluate(y, s, threshold=threshold, n_resamples=60)
    assert contradictions(r) == [], (r.verdict, {m.name: m.verdict for m in r.metrics.values()})


# --- item 12: an interval end beyond the metric's range does not drop the OPS --------------------


def test_interval_ends_beyond_the_range_keep_the_ops(holdout):
    y, s = holdout
    r = _evaluate(y, 3 * s, n_resamples=300)
    pa = r["prediction_advantage"]
    lowest = 1 - 1 / min(r.prevalence, 1 - r.prevalence)  # the range of PA at π is [1 - 1/min(π, 1-π), 1]
    assert pa.ci.low < lowest <= pa.value
    assert pa.ops is not None and pa.ops_ci[0] == 0.0 and pa.ops_ci[1] >= pa.ops
    assert not any("not computed" in n for n in r.notes)


def test_the_demo_drops_no_ops(tmp_path):
    from rich.console import Console

    from beyondchance.report.demo import run_demo

    buf = io.StringIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = run_demo(folds=3, out=tmp_path / "demo.html", mc_samples=DBT,
                          console=Console(file=buf, width=120, force_terminal=False))
    page = (tmp_path / "demo.html").read_text()
    assert "not computed" not in page and "not computed" not in buf.getvalue()
    for report in (result.report, *result.comparison.reports):
        for m in report.metrics.values():
            assert (m.ops is None) == (m.ops_ci is None), (report.name, m.name)
            if m.name in ("roc_auc", "pr_auc", "lift_auc", "f1", "precision"):
                assert m.ops is not None and m.ops_ci[0] <= m.ops <= m.ops_ci[1], (report.name, m.name)
    lift = result.comparison.report("2024-06")["lift_auc"]
    assert lift.ops_ci is not None


# --- scores of the other class ----------------------------------------------------------------


def test_scores_of_the_other_class_are_named_in_the_notes_and_the_ranking():
    from sklearn.datasets import load_breast_cancer

    data = load_breast_cancer()
    y = np.where(data.target == 1, "benign", "malignant")
    p_benign = 0.1 + 0.8 * (data.target == 1) + 0.1 * np.sin(np.arange(y.size))  # P(benign), nearly perfect
    r = _evaluate(y, p_benign, pos_label="malignant", n_resamples=200)
    assert r.metrics["roc_auc"].ci.high < 0.5
    hint = "pass pos_label='benign' / --pos-label benign"
    assert any("rank the classes backwards" in n and hint in n for n in r.notes)
    ranking = next(line for line in r.verdict if line.startswith("Ranking:"))
    assert "backwards" in ranking and hint in ranking
    # the right class: no note
    ok = _evaluate(y, p_benign, pos_label="benign", n_resamples=200)
    assert not any("backwards" in n for n in ok.notes)
    assert not any("backwards" in line for line in ok.verdict)


def test_an_auc_below_one_half_without_an_interval_is_noted_and_one_whose_interval_reaches_it_is_not():
    rng = np.random.default_rng(1)
    y = rng.integers(0, 2, 400)
    s = rng.random(400)
    r = _evaluate(y, 1 - (y + s) / 2, ci=False)
    assert any("backwards" in n and "pos_label=0 / --pos-label 0" in n for n in r.notes)
    noise = _evaluate(y, s, n_resamples=200)
    assert noise.metrics["roc_auc"].ci.high > 0.5
    assert not any("backwards" in n for n in noise.notes)


# --- words that claim only what was shown -----------------------------------------------------


def test_the_fallback_compare_verdict_compares_ops_intervals_and_claims_no_change_of_the_model(holdout):
    """Without a decomposition the verdict compares OPS intervals: it says whether they
    overlap, never "the model got worse" (OPS(F1) moves with the prevalence too)."""
    from beyondchance.report.compare import Change, _verdict

    y, s = holdout
    ref = _evaluate(y, s, name="ref", n_resamples=200)
    new = _evaluate(y[: y.size // 2], s[: y.size // 2], name="new", n_resamples=200)
    f1, f1_ref = new.metrics["f1"], ref.metrics["f1"]
    lower = Change("new", "f1", f1.value, f1_ref.value, 0.40, 0.80, (0.30, 0.50), (0.70, 0.90), "worse")
    lines = " ".join(_verdict([ref, new], ref, "f1", [lower]))
    assert "got worse" not in lines and "the model" not in lines
    assert "OPS(F1) is lower" in lines and "the OPS intervals do not overlap" in lines
    assert "not a test that the classifier changed" in lines
    same = Change("new", "f1", f1.value, f1_ref.value, 0.75, 0.80, (0.65, 0.85), (0.70, 0.90), "no significant change")
    lines = " ".join(_verdict([ref, new], ref, "f1", [same]))
    assert "the OPS(F1) intervals overlap: no significant change on this sample" in lines
    assert "stayed within" not in lines
