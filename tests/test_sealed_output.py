"""Sealed output: text from the data (labels, test-set, file and column names) never
reaches a terminal raw — control characters (C0, DEL, C1) are shown as escapes such as
``\\x1b`` — and never reads as markup: rich markup prints literally, Markdown and HTML
markup shows as text in the Markdown rendering, and HTML escapes it."""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from click.testing import CliRunner

from beyondchance import ConfusionMatrix
from beyondchance._summary_display import html_text, markdown_text, printable
from beyondchance.cli import main
from beyondchance.report import compare, evaluate
from beyondchance.report.render.terminal import render_report_text
from beyondchance.report.render.terminal_comparison import render_comparison_text

pytestmark = pytest.mark.hostile

CLEAR = "\x1b[2J\x1b[31mRED"
TITLE = "\x1b]0;PWNED\x07"
CSI8 = "a\x9bb"
MARKUP = "[bold red]x[/]"
IMG = "<img src=x onerror=alert(1)>"
#: a right-to-left override and a left-to-right isolate: the text after them shown reordered
BIDI = "gnp.\u202eexe\u2066x"

#: a raw control character other than the layout's newline and tab, or a bidi control
RAW = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _sealed(text: str) -> None:
    assert not RAW.search(text), repr(RAW.search(text).group())


@pytest.fixture(scope="module")
def labels_report():
    rng = np.random.default_rng(3)
    classes = np.array([CLEAR, TITLE, CSI8, MARKUP, IMG, BIDI], dtype=object)
    y = classes[rng.integers(0, 6, 300)]
    p = np.where(rng.random(300) < 0.7, y, classes[rng.integers(0, 6, 300)])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return evaluate(y, p, ci=False, name=TITLE + MARKUP)


def test_printable_escapes_every_control_character():
    text = "".join(map(chr, range(0x00, 0xA0)))
    shown = printable(text)
    _sealed(shown)
    assert "\n" not in shown and "\t" not in shown
    assert printable("a\tb\nc", layout=True) == "a\tb\nc"
    _sealed(printable(text, layout=True))
    assert printable(CLEAR) == "\\x1b[2J\\x1b[31mRED" and printable("\x9b") == "\\x9b"
    assert printable("é 日本語 ✔ – ≥") == "é 日本語 ✔ – ≥"  # printable text is left alone


def test_printable_escapes_the_format_characters():
    """Every format character (Unicode category Cf: bidi controls, zero-width spaces, tags …)
    but the joiners, and the line and paragraph separators, shown as an escape."""
    import unicodedata

    hidden = [chr(c) for c in range(0x110000) if unicodedata.category(chr(c)) in ("Cf", "Zl", "Zp")
              and chr(c) not in "\u200c\u200d"]
    assert len(hidden) > 150
    shown = printable("".join(hidden))
    assert not any(c in shown for c in hidden), [f"U+{ord(c):04X}" for c in hidden if c in shown][:5]
    assert printable(BIDI) == "gnp.\\u202eexe\\u2066x" and printable("\U000e0041") == "\\U000e0041"
    assert printable("\u0645\u06cc\u200c\u0634\u0648\u062f 👨\u200d👩") == "\u0645\u06cc\u200c\u0634\u0648\u062f 👨\u200d👩"
    assert markdown_text(BIDI) == "gnp.\\\\u202eexe\\\\u2066x"
    assert html_text(BIDI) == "gnp.\\u202eexe\\u2066x"


def test_markdown_text_shows_markup_as_text():
    md = markdown_text(IMG + " | `code` *b* _i_ [l](u) ~s~ $x$ \\ &amp; " + CLEAR)
    assert "<" not in md and ">" not in md and "&amp;amp;" in md
    assert "\\|" in md and "\\`code\\`" in md and "\\*b\\*" in md and "\\[l\\]" in md and "\\$x\\$" in md
    _sealed(md)


def test_terminal_rendering_of_a_report(labels_report):
    for width in (80, 160):
        text = render_report_text(labels_report, width=width)
        _sealed(text)
        assert "\\x1b]0;PWNED\\x07" + MARKUP in text  # escapes shown; rich markup from the data literal
    assert "\x1b" not in str(labels_report)


def test_markdown_rendering_of_a_report(labels_report):
    md = labels_report._repr_markdown_()
    _sealed(md)
    assert "<img" not in md and "&lt;img src=x onerror=alert(1)&gt;" in md
    assert labels_report.to_markdown() == md


def test_html_escapes_the_data(labels_report):
    page = labels_report.to_html(plots=False)
    assert "<img src=x" not in page and "&lt;img src=x onerror=alert(1)&gt;" in page
    assert "<img" not in labels_report._repr_html_()
    _sealed(page)
    assert "gnp.\\u202eexe\\u2066x" in page


def test_terminal_and_markdown_of_a_comparison():
    rng = np.random.default_rng(5)
    y = rng.integers(0, 2, 400)
    s = np.clip(0.3 * y + 0.7 * rng.random(400), 0, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare({CLEAR: (y[:130], s[:130]), MARKUP: (y[130:260], s[130:260]), IMG: (y[260:], s[260:])},
                    ci=False, mc_samples=2048)
    text = render_comparison_text(c)
    _sealed(text)
    assert "\\x1b[2J" in text and MARKUP in text
    md = c._repr_markdown_()
    _sealed(md)
    assert "<img" not in md


def test_small_results_show_their_labels_sealed():
    cm = ConfusionMatrix(np.array([[5, 1], [2, 2]]), np.array([CLEAR, IMG], dtype=object), pos_label=IMG)
    _sealed(str(cm))
    md = cm._repr_markdown_()
    _sealed(md)
    assert "<img" not in md
    assert "<img" not in cm._repr_html_()


# --- the command line ----------------------------------------------------------------------


@pytest.fixture(scope="module")
def nasty_csv(tmp_path_factory):
    """Labels with escapes and markup; a file name and a column name with escapes."""
    d = tmp_path_factory.mktemp("sealed")
    rng = np.random.default_rng(7)
    classes = [MARKUP, MARKUP, CLEAR, TITLE, IMG]  # the markup the majority class: named in the verdict
    rows = []
    for i in range(120):
        y = classes[i % 5]
        pred = y if rng.random() < 0.7 else classes[(i + 2) % 5]
        rows.append(f'"{y}","{pred}",{rng.random():.3f},{rng.random():.3f},{i % 2}')
    col = "\x1b[2Jmodel\x9b"
    text = f'y,pred,"{col}",other,y01\n' + "\n".join(rows) + "\n"
    path = d / "scores\x1b]0;PWNED\x07.csv"
    path.write_text(text, encoding="utf-8")
    return path, col


def _all_output(result) -> str:
    return result.stdout + result.stderr


def test_cli_report_table_and_markdown_free_of_escapes(nasty_csv):
    path, _ = nasty_csv
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", "pred", "--no-ci"])
    assert result.exit_code == 0, result.output
    _sealed(_all_output(result))
    assert f"'{MARKUP}'" in result.stdout and "\\x1b]0;PWNED\\x07.csv" in result.stdout


def test_cli_check_free_of_escapes(nasty_csv):
    path, _ = nasty_csv
    result = CliRunner().invoke(main, ["check", str(path), "--y-true", "y", "--y-pred", "pred", "--no-ci",
                                       "--require", "prediction_advantage > 0"])
    assert result.exit_code in (0, 1), result.output
    _sealed(_all_output(result))


def test_cli_compare_models_column_names_sealed(nasty_csv):
    path, col = nasty_csv
    result = CliRunner().invoke(main, ["compare-models", str(path), "--y-true", "y01", "--y-score", col,
                                       "--y-score", "other", "--n-resamples", "50"])
    assert result.exit_code == 0, result.output
    _sealed(_all_output(result))
    assert "\\x1b[2Jmodel\\x9b" in result.stdout


def test_cli_error_messages_sealed(nasty_csv, tmp_path):
    path, col = nasty_csv
    missing = CliRunner().invoke(main, ["report", str(path), "--y-true", TITLE, "--y-score", col])
    assert missing.exit_code == 2
    _sealed(_all_output(missing))
    assert missing.stderr.count("\n") == 1 and "\\x1b]0;PWNED" in missing.stderr
    absent = CliRunner().invoke(main, ["report", str(tmp_path / ("no" + CLEAR + ".csv")), "--y-true", "y",
                                       "--y-score", "s"])
    # a name with "[" reads as a glob pattern on every engine: "no file matches" it
    assert absent.exit_code == 2 and ("file not found" in absent.stderr or "no file matches" in absent.stderr)
    _sealed(_all_output(absent))
    usage = CliRunner().invoke(main, ["report", "--" + CLEAR])
    assert usage.exit_code == 2
    _sealed(_all_output(usage))


def test_cli_written_to_message_sealed(nasty_csv, tmp_path):
    path, _ = nasty_csv
    out = tmp_path / ("out" + TITLE + ".json")
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", "pred", "--no-ci",
                                       "--format", "json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert out.exists() and "written to" in result.stderr
    _sealed(_all_output(result))


def test_cli_bidi_file_column_and_label_names_sealed(tmp_path):
    """A right-to-left override in a file name, a column name and a label: escaped in the
    table, the HTML page, the messages."""
    rng = np.random.default_rng(11)
    col = "pred\u202ederp"
    rows = [f"{BIDI if i % 3 else 'b'},{BIDI if rng.random() < 0.7 else 'b'}" for i in range(90)]
    path = tmp_path / ("scores\u202evsc.csv")
    path.write_text(f"y,{col}\n" + "\n".join(rows) + "\n", encoding="utf-8")
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", col, "--no-ci"])
    assert result.exit_code == 0, result.output
    _sealed(_all_output(result))
    assert "scores\\u202evsc.csv" in result.stdout
    out = tmp_path / "page.html"
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", col, "--no-ci",
                                       "--format", "html", "--out", str(out)])
    assert result.exit_code == 0, result.output
    _sealed(_all_output(result) + out.read_text(encoding="utf-8"))
    missing = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", "no\u202eone"])
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1
    _sealed(_all_output(missing))
