"""The terminal report fits one screen: the verdict first, one table, a few lines, and
``--details`` (``Report.details()``) for the rest; at 80 columns no line is wider than the
terminal and no word of a table is cut into pieces (metric names, class labels, headers).

Run as a user runs it: click's CliRunner with ``COLUMNS`` and the terminal forced (colours
stripped), and the real command in a tmux pane of 80×24 and 120×40 (skipped without tmux)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from click.testing import CliRunner

from beyondchance.cli import main
from beyondchance.report import evaluate
from beyondchance.report.render.terminal import render_report_text

#: what the default report may take at 80 columns
MAX_LINES = 50
#: the main table's column headers (two-line headers: each line's words)
HEADERS = ("metric", "value", "95% CI", "best", "constant", "advantage", "OPS", "verdict")
#: the one-word verdicts
WORDS = ("better", "unclear", "worse", "equal", "moot", "undefined", "n/a")
#: escape sequences of a forced terminal: colours (SGR), cursor moves, hyperlinks
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\]8;[^\x1b]*\x1b\\")
BOX = re.compile("[\u2500-\u257f]")  # box-drawing characters are not words


def plain(text: str) -> str:
    return ANSI.sub("", text)


def cli(*args: str, columns: int = 80) -> str:
    """The command's standard output on a forced terminal of ``columns`` columns, uncoloured."""
    result = CliRunner().invoke(main, list(args), env={"COLUMNS": str(columns), "FORCE_COLOR": "1",
                                                       "NO_COLOR": None, "LINES": None})
    assert result.exit_code == 0, (result.output, result.exception)
    assert "\x1b[" in result.stdout, "the terminal was not forced"
    return plain(result.stdout)


def tokens(line: str) -> list[str]:
    return BOX.sub(" ", line).split()


def table_lines(text: str) -> list[str]:
    """The main table: from the header (the line starting with 'metric') to the last row."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("metric "))
    end = next(i for i in range(start + 2, len(lines)) if not lines[i].strip() or lines[i].startswith("best constant:")
               or lines[i].startswith("("))
    return lines[start - 1:end]  # with the header's first line ("best")


def assert_one_screen(text: str, width: int, titles: list[str]) -> None:
    """At most MAX_LINES lines (80 columns), none wider than the terminal, the verdict on the
    first line, every header and every word of every metric name whole in the table."""
    lines = text.rstrip("\n").splitlines()
    assert max(len(line) for line in lines) <= width, max(lines, key=len)
    if width <= 80:
        assert len(lines) <= MAX_LINES, len(lines)
    assert lines[0].startswith("Verdict"), lines[:3]
    assert lines[1].startswith("  • "), lines[:3]
    table = table_lines(text)
    head = " ".join(table[:2])
    for header in HEADERS:
        assert header in head, (header, head)
    words = {t for line in table for t in tokens(line)}
    for title in titles:
        assert set(title.split()) <= words, (title, table)  # a name wraps between words, never inside one
    assert any(line.split()[-1] in WORDS for line in table[3:])
    assert "BMP" not in text and "…" not in "\n".join(table)
    assert "--details" in lines[-1] or "--details" in lines[-2]


@pytest.fixture(scope="module")
def example_month(tmp_path_factory) -> Path:
    """One month of the bundled example, written by ``beyondchance example``."""
    d = tmp_path_factory.mktemp("example")
    result = CliRunner().invoke(main, ["example", str(d)])
    assert result.exit_code == 0, result.output
    path = d / "credit_default_2024-01.csv"
    assert f"beyondchance report {path} --y-true default --y-score score" in result.output
    return path


EXAMPLE_ARGS = ("--y-true", "default", "--y-score", "score")


def test_the_default_report_of_the_example_fits_one_screen(example_month):
    text = cli("report", str(example_month), *EXAMPLE_ARGS)
    print(text)
    r = evaluate(*_example_arrays(example_month), ci=False)
    assert_one_screen(text, 80, [m.title for m in r.metrics.values()])
    assert "Per class" not in text and "Confusion matrix" not in text and "Confidence intervals:" not in text
    # every abbreviation on the screen is spelt out under the table
    for term in ("best constant:", "advantage:", "OPS: outperformance score", "95% CI: 95% confidence interval",
                 "moot (a constant reaches the best value"):
        assert term in " ".join(text.split()), term


def _example_arrays(path: Path):
    frame = pd.read_csv(path)
    return frame["default"].to_numpy(), frame["score"].to_numpy()


def test_details_give_the_full_account(example_month):
    text = cli("report", str(example_month), *EXAMPLE_ARGS, "--details")
    flat = " ".join(text.split())
    for part in ("Per class", "Confusion matrix", "Confidence intervals: 95% intervals. Labeling metrics: BCa bootstrap",
                 "p (chance) = one-sided p-value", "note: "):
        assert part in flat, part
    assert max(len(line) for line in text.splitlines()) <= 80
    # the per-class table names each class on a line of its own; the matrix's headers are whole
    assert any(line.startswith("'No' (support") for line in text.splitlines())
    assert any(line.startswith("'Yes' (support") for line in text.splitlines())
    matrix = text[text.index("Confusion matrix"):]
    assert re.search(r"predicted\s+'No'\s+'Yes'", matrix), matrix


def test_details_at_120_columns_put_the_bound_and_p_in_the_table(example_month):
    wide = cli("report", str(example_month), *EXAMPLE_ARGS, "--details", columns=140)
    assert re.search(r"bound\s+\(chance\)", wide) and max(len(line) for line in wide.splitlines()) <= 140


# --- multi-class labels: long class names, ten classes --------------------------------------------

LONG = np.array(["cultivar of the first kind", "second_cultivar_long_name", "class_2"])
TEN = np.array([f"class_with_a_long_name_{k}" for k in range(10)])


def _labels_file(path: Path, names: np.ndarray, n: int = 600, seed: int = 0) -> Path:
    rng = np.random.default_rng(seed)
    y = names[rng.integers(0, names.size, n)]
    pred = np.where(rng.random(n) < 0.7, y, names[rng.integers(0, names.size, n)])
    pd.DataFrame({"truth": y, "guess": pred}).to_csv(path, index=False)
    return path


@pytest.mark.parametrize("names", [LONG, TEN], ids=["long-names", "ten-classes"])
def test_multiclass_labels_fit_and_name_every_class_whole(tmp_path, names):
    src = _labels_file(tmp_path / "labels.csv", names)
    args = ("report", str(src), "--y-true", "truth", "--y-pred", "guess", "--n-resamples", "200")
    text = cli(*args)
    print(text)
    frame = pd.read_csv(src)
    r = evaluate(frame["truth"].to_numpy(), frame["guess"].to_numpy(), ci=False)
    assert_one_screen(text, 80, [m.title for m in r.metrics.values()])

    details = cli(*args, "--details")
    print(details)
    lines = details.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    per_class = details[details.index("Per class"):details.index("Confusion matrix")]
    for name in names:  # each class names its block, whole, on one line
        assert any(line.startswith(f"'{name}' (support") or line.rstrip() == f"'{name}'"
                   for line in per_class.splitlines()), name
    # the matrix: no label word cut into pieces (a shortened word ends with the ellipsis)
    start = details.index("Confusion matrix")
    matrix = details[start:details.index("\nbest constant = ", start)]
    label_words = {w for name in names for w in f"'{name}'".split()}
    for line in matrix.splitlines()[2:]:
        for t in tokens(line):
            if t not in label_words and not t.endswith("…"):
                assert not any(t in w for w in label_words if len(t) >= 3), (t, line)
    headers = [line for line in matrix.splitlines() if line.startswith("predicted")]
    assert headers and all(len(h) <= 80 for h in headers)
    shown = {t.rstrip("…") for h in headers for t in tokens(h)}
    for name in names:  # every predicted class heads a column: whole, or shortened with an ellipsis
        assert any(f"'{name}'".startswith(t) or t in f"'{name}'" for t in shown if len(t) >= 3), name


def test_str_is_the_short_report_and_details_the_full_one():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 400)
    s = np.clip(0.3 * y + 0.7 * rng.random(400), 0, 1)
    r = evaluate(y, s, n_resamples=200, mc_samples=1024, random_state=0)
    short, full = str(r), r.details(width=80)
    assert short.startswith("Verdict") and full.startswith("Verdict")
    assert "report.details()" in short and "Per class" not in short
    assert "Per class" in full and "Confusion matrix" in full and r.ci_description in " ".join(full.split())
    for note in r.notes:
        assert note in " ".join(full.split())
    assert len(render_report_text(r, width=80).splitlines()) <= MAX_LINES


def test_a_narrow_terminal_leaves_columns_out_and_names_them(example_month):
    text = cli("report", str(example_month), *EXAMPLE_ARGS, columns=50)
    assert max(len(line) for line in text.splitlines()) <= 50
    flat = " ".join(text.split())
    assert "left out of the table at this width" in flat and "95% CI" in flat
    table = table_lines(text)
    assert "advantage" in " ".join(table[:2]) and "verdict" in " ".join(table[:2])


# --- a real terminal: tmux -------------------------------------------------------------------------


def _tmux_capture(tmp_path: Path, command: list[str], width: int, height: int) -> str:
    """Run ``command`` in a detached tmux pane of width × height on a private server and
    return the whole pane (scrollback included, wrapped lines joined)."""
    sock = str(tmp_path / f"tmux-{width}x{height}")
    env = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "FORCE_COLOR", "NO_COLOR", "TMUX")}
    shell = " ".join(_quote(c) for c in command) + "; echo __END__; sleep 300"
    subprocess.run(["tmux", "-S", sock, "-f", "/dev/null", "new-session", "-d", "-s", "screen", "-x", str(width),
                    "-y", str(height), "sh", "-c", shell], check=True, env=env, timeout=60)
    try:
        subprocess.run(["tmux", "-S", sock, "set-option", "-t", "screen", "history-limit", "5000"],
                       check=True, env=env, timeout=60)
        deadline = time.monotonic() + 600
        while True:
            pane = subprocess.run(["tmux", "-S", sock, "capture-pane", "-p", "-J", "-S", "-", "-t", "screen"],
                                  capture_output=True, text=True, env=env, timeout=60).stdout
            if "__END__" in pane or time.monotonic() > deadline:
                break
            time.sleep(0.5)
    finally:
        subprocess.run(["tmux", "-S", sock, "kill-server"], env=env, timeout=60)
    assert "__END__" in pane, pane
    lines = pane.split("__END__")[0].rstrip("\n").splitlines()
    return "\n".join(line.rstrip() for line in lines) + "\n"


def _quote(arg: str) -> str:
    return "'" + arg.replace("'", "'\\''") + "'"


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
@pytest.mark.parametrize("width,height", [(80, 24), (120, 40)])
def test_the_report_in_a_real_terminal(tmp_path, example_month, width, height):
    pane = _tmux_capture(tmp_path, [sys.executable, "-m", "beyondchance.cli", "report", str(example_month),
                                    *EXAMPLE_ARGS], width, height)
    print(f"--- tmux pane {width}x{height} ---\n{pane}--- end of pane ---")
    r = evaluate(*_example_arrays(example_month), ci=False)
    assert_one_screen(pane, width, [m.title for m in r.metrics.values()])


def test_cannot_show_an_advantage_is_neutral_not_a_warning():
    """'moot' (a constant reaches the best value: recall of "always positive") is printed in a
    neutral style in the terminal, as the HTML shows it in grey: not in the warning colour of
    'unclear', nor in the failure colour of 'worse'."""
    import io

    import numpy as np
    from rich.console import Console

    from beyondchance.report import evaluate
    from beyondchance.report.render.terminal import render_report

    rng = np.random.default_rng(3)
    y = (rng.random(400) < 0.3).astype(int)
    s = np.clip(0.35 * y + 0.65 * rng.random(400), 0, 1)
    r = evaluate(y, s, ci=False, mc_samples=1024)
    buf = io.StringIO()
    render_report(r, console=Console(file=buf, width=120, force_terminal=True, color_system="standard"))
    lines = [line for line in buf.getvalue().splitlines() if "moot" in line and "Recall" in line]
    assert lines, buf.getvalue()
    yellow, red = "\x1b[33m", "\x1b[31m"
    cell = lines[0][lines[0].rindex("moot") - 12:]
    assert yellow not in cell and red not in cell, repr(cell)
