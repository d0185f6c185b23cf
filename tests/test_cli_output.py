"""What a user meets in the first minutes: where the output goes (never over an input, never
into a directory made up on the spot), a closed pipe, an 80-column terminal, long labels,
the order and the header of ``compare --by``, and names that are not markup."""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from beyondchance.cli import main
from beyondchance.report import evaluate

#: reference curves of the AUCs' OPS in the tests (fast on a cold cache)
DBT = "1024"
FAST = ["--no-ci", "--mc-samples", DBT]


def run(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *args], capture_output=True, text=True,
                          timeout=300, cwd=cwd)


def digest(path: Path) -> str:
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def scores_frame(n: int = 400, seed: int = 0, **extra) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.3).astype(int)
    s = np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, n), 0, 1).round(4)
    return pd.DataFrame({"y": y, "s": s, **{k: v(rng, n) for k, v in extra.items()}})


def assert_one_line_error(result, message: str) -> None:
    assert result.exit_code == 2, result.output
    err = result.stderr.strip()
    assert err.startswith("beyondchance: error:") and "\n" not in err, err
    assert message in err, err


# --- item 4: --out never overwrites an input, never creates directories -----------------------


def test_out_that_is_a_hard_link_of_the_input_is_refused(tmp_path):
    src = tmp_path / "in.csv"
    scores_frame().to_csv(src, index=False)
    link = tmp_path / "link.csv"
    os.link(src, link)
    before = digest(src)
    result = CliRunner().invoke(main, ["report", str(src), "--y-true", "y", "--y-score", "s", "--format", "json",
                                       "--out", str(link), *FAST])
    assert_one_line_error(result, "is an input file")
    assert digest(src) == before and digest(link) == before


def test_out_matched_by_an_input_glob_is_refused(tmp_path):
    pytest.importorskip("duckdb")
    g = tmp_path / "g"
    g.mkdir()
    scores_frame(seed=1).to_csv(g / "a.csv", index=False)
    scores_frame(seed=2).to_csv(g / "b.csv", index=False)
    before = digest(g / "b.csv")
    runner = CliRunner()
    result = runner.invoke(main, ["report", str(g / "*.csv"), "--engine", "duckdb", "--y-true", "y", "--y-score",
                                  "s", "--format", "json", "--out", str(g / "b.csv"), *FAST])
    assert_one_line_error(result, "is an input file")
    result = runner.invoke(main, ["compare", str(g / "a*.csv"), str(g / "[b].csv"), "--engine", "duckdb",
                                  "--y-true", "y", "--y-score", "s", "--out", str(g / "b.csv"), *FAST])
    assert_one_line_error(result, "is an input file")
    assert digest(g / "b.csv") == before


def test_out_into_a_missing_directory_is_an_error(tmp_path):
    src = tmp_path / "in.csv"
    scores_frame().to_csv(src, index=False)
    for fmt in ("json", "html", "table"):
        target = tmp_path / "nope" / "deeper" / f"r.{fmt}"
        result = CliRunner().invoke(main, ["report", str(src), "--y-true", "y", "--y-score", "s", "--format", fmt,
                                           "--out", str(target), *FAST])
        assert_one_line_error(result, "does not exist")
    result = CliRunner().invoke(main, ["demo", "--out", str(tmp_path / "nope" / "demo.html")])
    assert_one_line_error(result, "does not exist")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.csv"]


# --- item 15: a closed pipe, 80 columns, long labels, compare --by --------------------------------


@pytest.mark.parametrize("fmt", ["table", "json"])
def test_a_reader_that_closes_early_ends_the_run_quietly(tmp_path, fmt):
    src = tmp_path / "in.csv"
    scores_frame().to_csv(src, index=False)
    proc = subprocess.Popen([sys.executable, "-m", "beyondchance.cli", "report", str(src), "--y-true", "y",
                             "--y-score", "s", "--format", fmt, *FAST],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    proc.stdout.close()  # like `| head -c 0`: the reader is gone before the first line
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=300) == 0 and err == ""


def _title_words_shown(text: str, titles) -> None:
    assert "…" not in text, text
    words = set(re.sub("[\u2500-\u257f]", " ", text).split())  # box-drawing characters are not words
    for title in titles:
        assert set(title.split()) <= words, (title, text)


def test_the_report_fits_80_columns_without_truncating(tmp_path):
    from beyondchance.report.example import scored_holdout
    from beyondchance.report.render.terminal import render_report_text

    h = scored_holdout()
    y, s = h["default"].to_numpy(), h["score"].to_numpy()
    for scores in (s, 3 * s):  # 3 * s: every row positive, advantages below -8
        r = evaluate(y, scores, n_resamples=200, mc_samples=1024)
        text = render_report_text(r, width=80)
        _title_words_shown(text, [m.title for m in r.metrics.values()])
        assert max(len(line) for line in text.splitlines()) <= 80
        for m in r.metrics.values():  # every number in full
            assert f"{m.value:.3f}" in text or f"{m.value:.4g}" in text or not np.isfinite(m.value)


def test_the_demo_table_fits_80_columns():
    from rich.console import Console

    from beyondchance.report.demo import haberman_demo, render_haberman_demo

    result = haberman_demo(folds=3)
    buf = io.StringIO()
    render_haberman_demo(result, console=Console(file=buf, width=80, force_terminal=False))
    text = buf.getvalue()
    _title_words_shown(text, ["classifier", "beats the best constant", *(m.model for m in result.models)])
    assert max(len(line) for line in text.splitlines()) <= 80 and "beats BMP" not in text


def test_a_long_label_is_shortened_in_the_table_and_the_page(tmp_path):
    label = "L" * 100_000
    frame = scores_frame(200)
    frame["y"] = np.where(frame["y"] == 1, label, "no")
    src = tmp_path / "long.csv"
    frame.to_csv(src, index=False)
    args = ["report", str(src), "--y-true", "y", "--y-score", "s", *FAST]
    table = run(*args)
    assert table.returncode == 0, table.stderr
    assert len(table.stdout) < 20_000 and "LLLL…" in table.stdout
    page = run(*args, "--format", "html", "--out", str(tmp_path / "r.html"))
    assert page.returncode == 0, page.stderr
    html = (tmp_path / "r.html").read_text()
    assert "L" * 1000 not in html and "LLLL…" in html
    js = run(*args, "--format", "json")
    d = json.loads(js.stdout)
    assert d["positive_label"] == label  # the data keeps the full value, the text does not
    data = {"positive_label", "negative_label", "classes", "confusion_matrix", "per_class"}
    assert max(len(t) for t in _strings({k: v for k, v in d.items() if k not in data})) < 1000
    assert [c["label"] for c in d["per_class"]["classes"]] == ["no", label]
    assert max(len(c[m]["baseline_prediction"]) for c in d["per_class"]["classes"] for m in d["per_class"]["metrics"]) < 100


def _strings(x):
    if isinstance(x, str):
        yield x
    elif isinstance(x, dict):
        for v in x.values():
            yield from _strings(v)
    elif isinstance(x, list):
        for v in x:
            yield from _strings(v)


def _compare_by(src: Path, by: str, *extra: str) -> list[str]:
    result = run("compare", str(src), "--by", by, "--y-true", "y", "--y-score", "s", "--format", "json",
                 "--metrics", "f1", *FAST, *extra)
    assert result.returncode == 0, result.stderr
    return [t["name"] for t in json.loads(result.stdout)["test_sets"]]


def test_compare_by_lists_groups_in_natural_order(tmp_path):
    dates = ["2024-10-2", "2024-1-5", "2023-12-31", "2024-2-1"]
    numbers = [10, 9, 1.5, -2]
    words = ["b10", "b9", "a", "B"]
    frame = scores_frame(
        800, date=lambda rng, n: rng.choice(dates, n), num=lambda rng, n: rng.choice(numbers, n),
        word=lambda rng, n: rng.choice(words, n),
    )
    src = tmp_path / "groups.csv"
    frame.to_csv(src, index=False)
    assert _compare_by(src, "date") == ["2023-12-31", "2024-1-5", "2024-2-1", "2024-10-2"]
    assert _compare_by(src, "num") == ["-2.0", "1.5", "9.0", "10.0"]
    assert _compare_by(src, "word") == sorted(words)


def test_compare_header_says_detected_unless_the_task_is_given(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    scores_frame(seed=1).to_csv(a, index=False)
    scores_frame(seed=2).to_csv(b, index=False)
    args = ["compare", str(a), str(b), "--y-true", "y", "--y-score", "s", "--metrics", "f1", *FAST]
    detected = run(*args)
    assert detected.returncode == 0, detected.stderr
    header = next(line for line in detected.stdout.splitlines() if "beyondchance compare" in line)
    assert "(detected" in header and "given" not in header
    given = run(*args, "--task", "binary-scores")
    header = next(line for line in given.stdout.splitlines() if "beyondchance compare" in line)
    assert "(given)" in header
    d = json.loads(run(*args, "--format", "json").stdout)
    assert {t["task_source"] for t in d["test_sets"]} == {"detected"}


# --- item 14: names are text, never markup -----------------------------------------------------

NAMES = ["$x^2$", "a_b", r"\frac{1}{2}", "$", "$x^$", r"$\frac{1}$", "[/bold]", "[red]x"]


def test_names_are_never_interpreted_in_plots_and_terminal(tmp_path):
    from beyondchance.report.compare import compare
    from beyondchance.report.render.plots import compare_figure, figure_png_base64
    from beyondchance.report.render.terminal_comparison import render_comparison_text

    sets = {}
    for i, name in enumerate(NAMES):
        f = scores_frame(200, seed=i)
        sets[name] = (f["y"].to_numpy(), f["s"].to_numpy())
    c = compare(sets, ci=False, mc_samples=1024, metrics=["f1", "precision"])
    fig = compare_figure(c)
    assert figure_png_base64(fig)  # draws
    for ax in fig.axes:
        labels = ax.get_xticklabels()
        assert [t.get_text() for t in labels] == NAMES
        assert not any(t.get_parse_math() for t in labels)
    text = render_comparison_text(c, width=400)
    for name in NAMES:
        assert name in text


def test_compare_html_with_markup_in_the_names(tmp_path):
    frame = scores_frame(800, name=lambda rng, n: rng.choice(NAMES, n))
    src = tmp_path / "names.csv"
    frame.to_csv(src, index=False)
    out = tmp_path / "c.html"
    result = run("compare", str(src), "--by", "name", "--y-true", "y", "--y-score", "s", "--format", "html",
                 "--out", str(out), "--metrics", "f1", *FAST)
    assert result.returncode == 0, result.stderr
    page = out.read_text()
    for name in NAMES:
        assert f"<th>{name.replace('&', '&amp;')}" in page  # the reference's header adds ' (ref)'
    table = run("compare", str(src), "--by", "name", "--y-true", "y", "--y-score", "s", "--metrics", "f1", *FAST)
    assert table.returncode == 0, table.stderr


# --- found by the CLI fuzzer (tests/test_cli_fuzz.py): compare's own checks -------------------


def test_compare_names_test_sets_whose_labels_differ_in_kind(tmp_path):
    (tmp_path / "s1.csv").write_text("y,p\nyes,yes\nno,no\n")
    (tmp_path / "s2.csv").write_text("y,p\n0,0\n1,1\n")
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "s1.csv"), str(tmp_path / "s2.csv"),
                                       "--y-true", "y", "--y-pred", "p", *FAST])
    assert_one_line_error(result, "the test sets' labels are not of one kind ('s1': string, 's2': number)")


def test_compare_by_with_text_scores_is_a_clear_error(tmp_path):
    (tmp_path / "by.csv").write_text("y,p,g\n0,yes,a\n1,no,a\n0,no,b\n1,yes,b\n")
    result = CliRunner().invoke(main, ["compare", str(tmp_path / "by.csv"), "--by", "g", "--y-true", "y",
                                       "--y-pred", "p", "--task", "binary-scores", *FAST])
    assert_one_line_error(result, "test set 'a': a: column 'p' is not numeric (string)")


@pytest.mark.parametrize("width", [80, 120, 200])
def test_comparison_tables_fit_the_terminal_and_cut_no_value(width):
    """Sets that do not fit side by side are split over tables that repeat the reference;
    every line fits the width and every set's value appears whole."""
    from beyondchance.report.compare import compare
    from beyondchance.report.render.terminal_comparison import render_comparison_text

    sets = {}
    for i, pi in enumerate([0.3, 0.1, 0.2, 0.4, 0.5, 0.25]):
        rng = np.random.default_rng(i)
        y = (rng.random(600) < pi).astype(int)
        sets[f"2024-0{i + 1}"] = (y, np.clip(0.3 + 0.3 * y + rng.normal(0, 0.2, 600), 0, 1))
    c = compare(sets, metrics=["f1", "precision"], n_resamples=200, random_state=0)
    text = render_comparison_text(c, width=width, details=True)
    lines = text.splitlines()
    assert max(len(line) for line in lines) <= width
    headers = [line for line in lines if line.startswith("┃metric")]
    assert all("2024-01 (ref)" in h for h in headers)  # the reference in every table
    shown = {name for h in headers for name in sets if f" {name} " in h or f" {name}┃" in h}
    assert shown == set(sets)
    assert (len(headers) == 1) if width >= 200 else (len(headers) > 1)
    for r in c.reports[1:]:
        f1 = r.metrics["f1"].value
        assert f"{f1:.3f}" in text
        exp = c.change(r.name, "f1").expected_value
        assert f"exp {exp:.3f} [" in text
    assert not [line for line in lines if line[:1] in "│┃" and "…" in line]  # nothing cut


@pytest.mark.parametrize("engine", ["memory", "duckdb"])
def test_compare_with_a_label_column_in_no_file_names_the_columns(tmp_path, engine):
    """A misspelt --y-true makes every file a window without labels: the error names the
    column and the columns the file has, not only 'needs a reference'."""
    paths = []
    for i in range(2):
        p = tmp_path / f"m{i}.csv"
        scores_frame(300, seed=i).to_csv(p, index=False)
        paths.append(str(p))
    result = CliRunner().invoke(main, ["compare", *paths, "--y-true", "label", "--y-score", "s", "--engine", engine])
    assert_one_line_error(result, "column 'label' not found in")
    assert "'y'" in result.stderr and "'s'" in result.stderr
