"""Honest signals (issue 28, item 4): what a rendering says is what its numbers show.

* a regression report speaks no class language (accuracy, majority class, McNemar,
  prevalence, OPS) in the terminal, Markdown and HTML, and draws no empty plot;
* the demo explains what it abbreviates and reads each classifier's interval ("beats the
  best constant": yes / no / unclear);
* the colours: green only for an advantage the interval shows, red only for a shortfall it
  shows, neutral otherwise;
* one label-shift test, one p-value: the same draws wherever it is computed, their number shown;
* one form of an interval, ``[low, high]``, in every rendering.

Data: scikit-learn's diabetes, the bundled Haberman (KEEL) and credit-default examples;
seeds fixed (printed in the tests' names and arguments).
"""

from __future__ import annotations

import inspect
import re
import warnings

import pytest
from click.testing import CliRunner

from beyondchance import estimate_performance
from beyondchance.cli import main
from beyondchance.datasets import load_keel
from beyondchance.report import compare, evaluate
from beyondchance.report.demo import HabermanDemo, ModelResult, haberman_html, render_haberman_demo
from beyondchance.report.render.plots import report_figures
from beyondchance.report.render.html import report_html
from beyondchance.report.render.terminal import render_report_text

#: words of a classification report that have no place in a regression report
CLASS_WORDS = re.compile(r"accuracy|majority|mcnemar|prevalence|\bOPS\b|outperformance", re.IGNORECASE)
SEED = 0


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


# --- (a) a regression report ------------------------------------------------------------------


@pytest.fixture(scope="module")
def diabetes():
    """scikit-learn's diabetes data: a linear model fitted on the first 300 rows, predicting all 442."""
    from sklearn.datasets import load_diabetes
    from sklearn.linear_model import LinearRegression

    X, y = load_diabetes(return_X_y=True)
    return y, LinearRegression().fit(X[:300], y[:300]).predict(X)


@pytest.fixture(scope="module")
def regression_report(diabetes):
    return _quiet(evaluate, *diabetes, task="regression", n_resamples=200, random_state=SEED)


def test_a_regression_report_speaks_no_class_language(regression_report):
    r = regression_report
    texts = {
        "terminal": render_report_text(r, width=140),
        "terminal --details": render_report_text(r, width=140, details=True),
        "terminal --details, narrow": render_report_text(r, width=80, details=True),
        "markdown": r._repr_markdown_(),
        "html": report_html(r, plots=False),
    }
    for where, text in texts.items():
        found = CLASS_WORDS.findall(text)
        assert not found, (where, found)
    assert "<th>OPS</th>" not in texts["html"] and "| OPS |" not in texts["markdown"]


def test_the_command_line_regression_report_speaks_no_class_language(tmp_path, diabetes):
    import pandas as pd

    path = tmp_path / "diabetes.csv"
    pd.DataFrame({"y": diabetes[0], "pred": diabetes[1]}).to_csv(path, index=False)
    args = ["report", str(path), "--y-true", "y", "--y-score", "pred", "--task", "regression", "--n-resamples", "200"]
    for extra in ([], ["--details"]):
        result = CliRunner().invoke(main, [*args, *extra], env={"COLUMNS": "120"})
        assert result.exit_code == 0, result.output
        assert not CLASS_WORDS.findall(result.stdout), (extra, CLASS_WORDS.findall(result.stdout))


def test_a_regression_page_has_no_empty_plot(regression_report):
    """No OPS panel of four 'n/a' labels: every panel drawn holds a value."""
    figures = report_figures(regression_report)
    assert [key for key, _, _ in figures] == ["metrics"]
    for key, caption, fig in figures:
        assert not CLASS_WORDS.findall(caption), caption
        assert len(fig.axes) == 1, [ax.get_title() for ax in fig.axes]
        words = [t.get_text() for ax in fig.axes for t in (*ax.texts, ax.title, ax.xaxis.label)]
        assert "n/a" not in words and not any(CLASS_WORDS.search(w) for w in words), words


def test_a_regression_comparison_has_no_ops_or_prevalence_and_no_empty_panel(diabetes):
    """Two halves of the diabetes predictions compared: no OPS line, no prevalence row or plot
    panel; the verdict's one mention says there is no prevalence to adjust for."""
    from beyondchance.report.render.plots import compare_figure
    from beyondchance.report.render.html import comparison_html
    from beyondchance.report.render.terminal_comparison import render_comparison_text

    y, p = diabetes
    c = _quiet(compare, {"first half": (y[:221], p[:221]), "second half": (y[221:], p[221:])}, n_resamples=200,
               random_state=SEED)
    texts = {"terminal": render_comparison_text(c, width=120),
             "terminal --details": render_comparison_text(c, width=120, details=True),
             "markdown": c._repr_markdown_(), "html": comparison_html(c, plots=False)}
    for where, text in texts.items():
        text = " ".join(text.split()).replace("there is no prevalence to adjust for", "")
        assert not CLASS_WORDS.findall(text), (where, CLASS_WORDS.findall(text))
    fig = compare_figure(c)
    assert "Prevalence" not in [ax.get_title() for ax in fig.axes]


# --- (b, c) the demo --------------------------------------------------------------------------


def _model(name: str, pa: float, ci: tuple[float, float], beats: str) -> ModelResult:
    return ModelResult(name, 0.74, 0.56, 0.27, pa, 0.16, {"tp": 1, "fp": 1, "fn": 1, "tn": 1}, ci, beats)


@pytest.fixture()
def demo_result():
    """The demo's numbers of logistic regression (PA > 0, interval across 0), random forest
    (interval below 0) and a classifier whose interval lies above 0 (the demo's seed 0)."""
    models = (_model("logistic reg.", 0.0494, (-0.073, 0.167), "unclear"),
              _model("random forest", -0.2222, (-0.460, -0.021), "no"),
              _model("good model", 0.30, (0.12, 0.45), "yes"))
    return HabermanDemo(folds=10, seed=0, n=306, n_positive=81, majority_accuracy=225 / 306, models=models)


def test_the_demo_explains_the_constant_and_reads_the_intervals(demo_result):
    import io

    from rich.console import Console

    buf = io.StringIO()
    render_haberman_demo(demo_result, console=Console(file=buf, width=80, force_terminal=False))
    text = buf.getvalue()
    page = haberman_html(demo_result)
    for shown in (text, page):
        assert "BMP" not in shown
        assert "best constant prediction" in shown
    assert "always" in text.split("──")[-1] and "'survived'" in text
    rows = {line.split()[0] + (" " + line.split()[1] if line.split()[0] in ("logistic", "random", "good") else ""):
            line.split()[-1] for line in text.splitlines() if line.split() and line.split()[0] in
            ("logistic", "random", "good")}
    assert rows == {"logistic reg.": "unclear", "random forest": "no", "good model": "yes"}, rows
    assert "[-0.073, 0.167]" in text and "[-0.460, -0.021]" in text
    assert "1 of 3 classifiers beat" in " ".join(text.split())
    for m in demo_result.models:
        row = re.search(rf"<tr data-model='{m.model}'>.*?</tr>", page).group(0)
        assert row.endswith(f">{m.beats_constant}</td></tr>"), row
        assert ("class='good'" in row) == (m.beats_constant == "yes")
        assert ("class='bad'" in row) == (m.beats_constant == "no")


# --- (e) the colours --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def haberman_rules():
    """Haberman: 'died' predicted when more than k positive nodes were found; the report of
    each k (seed 0, 400 resamples).  k = 4: PA +0.025, interval across 0; k = 2: PA −0.136,
    interval across 0; k = 0: PA −0.568, interval below 0; k = 8: PA +0.086 [-0.086, 0.263]."""
    d = load_keel("haberman")
    return {k: _quiet(evaluate, d.y, (d.X[:, 2] > k).astype(int), n_resamples=400, mc_samples=1024,
                      random_state=SEED) for k in (0, 2, 4, 8)}


def _row(page: str, name: str) -> str:
    return re.search(rf"<tr data-metric='{name}'>.*?</tr>", page).group(0)


def test_green_only_for_a_shown_advantage_red_only_for_a_shown_shortfall(haberman_rules):
    for k, expected in ((4, "neutral"), (2, "neutral"), (0, "bad")):
        r = haberman_rules[k]
        pa = r.metrics["prediction_advantage"]
        row = _row(report_html(r, plots=False), "prediction_advantage")
        assert f"verdict-cell {expected}'" in row, (k, pa.value, pa.ci, row)
        assert "class='good'" not in row
    # the terminal: the one-word verdict and no green on an interval that reaches the constant
    import io

    from rich.console import Console

    from beyondchance.report.render.terminal import render_report

    buf = io.StringIO()
    render_report(haberman_rules[4], console=Console(file=buf, width=120, force_terminal=True,
                                                     color_system="standard"))
    line = next(x for x in buf.getvalue().splitlines() if x.startswith("Prediction advantage"))
    assert "\x1b[32m" not in line and "unclear" in line, repr(line)


# --- (d) one label-shift test, one p-value ------------------------------------------------------


def test_the_label_shift_test_gives_one_pvalue_and_says_its_draws():
    """The credit-default example (seed 0): the reference month 2024-01 with labels, 2024-05's
    scores without.  compare and estimate_performance give the same p-value with the same
    draws, the default number of draws is compare's (and evaluate's), and the p-value is shown
    with its number of draws."""
    from beyondchance.report.example import credit_default_example

    frame = credit_default_example(random_state=SEED)
    months = {m: g for m, g in frame.groupby("month", sort=True)}
    ref, window = months["2024-01"], months["2024-05"]
    y, s, s_window = (ref["default"] == "Yes").to_numpy().astype(int), ref["score"].to_numpy(), window["score"].to_numpy()
    defaults = {f.__name__: inspect.signature(f).parameters["n_resamples"].default
                for f in (estimate_performance, evaluate)}
    assert defaults["estimate_performance"] == defaults["evaluate"], defaults
    c = _quiet(compare, {"2024-01": (y, s), "2024-05": (None, s_window)}, metrics=["precision"], n_resamples=400,
               mc_samples=1024, random_state=SEED)
    e = estimate_performance(y, s, s_window, metrics=["precision"], n_resamples=400, random_state=SEED)
    from_compare = c.label_free[0][1]
    assert from_compare.assumption_pvalue == e.assumption_pvalue
    line = next(v for v in c.verdict if "(no labels): Estimated prevalence" in v or "label-shift fit" in v)
    assert f"p = {e.assumption_pvalue:.2g}, 400 draws" in line, line
    from beyondchance.report.render.html import comparison_html

    assert "(p from 400 draws)" in comparison_html(c, plots=False)


# --- (f) one form of an interval ----------------------------------------------------------------


def test_an_interval_reads_low_comma_high_in_every_rendering(haberman_rules):
    r = haberman_rules[8]
    pa = r.metrics["prediction_advantage"]
    assert pa.ci.low < 0 < pa.ci.high
    shown = f"[{pa.ci.low:.3f}, {pa.ci.high:.3f}]"
    texts = {"terminal": render_report_text(r, width=140), "details": render_report_text(r, width=140, details=True),
             "markdown": r._repr_markdown_(), "html": report_html(r, plots=False)}
    for where, text in texts.items():
        if where == "markdown":  # Markdown's brackets escaped: a table cell shows them as text
            text = text.replace("\\[", "[").replace("\\]", "]")
        assert shown in text, (where, shown)
        assert not re.search(r"-?\d\.\d+ ?– ?-?\d\.\d+", text), (where, re.search(r"-?\d\.\d+ ?– ?-?\d\.\d+", text))
