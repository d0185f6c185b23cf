"""``compare`` fits one screen: one table with a row per window, three lines at most per
flagged window, a legend and a line saying what ``--details`` adds (issue "One screen", item 2).

The six monthly files of ``beyondchance example`` are compared at 80 columns: the default
output stays within 45 lines, no line is wider than the console, every window is named
whole, the degraded month carries ▼; ``--details`` (and ``Comparison.details()``) give the
full account of before. A run in tmux at 80×24 prints its captured pane into the test log.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

SRC = str(Path(__file__).resolve().parents[1] / "src")
FAST = ["--n-resamples", "200", "--mc-samples", "1024"]
MONTHS = [f"credit_default_2024-0{i}" for i in range(1, 7)]


def _env(columns: int = 80) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = SRC + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env["COLUMNS"] = str(columns)
    env["LINES"] = "24"
    env.pop("FORCE_COLOR", None)
    env["NO_COLOR"] = "1"
    return env


def _cli(*args: str, columns: int = 80) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *args], capture_output=True, text=True,
                          env=_env(columns), timeout=600)


@pytest.fixture(scope="module")
def months(tmp_path_factory) -> list[str]:
    d = tmp_path_factory.mktemp("example")
    result = _cli("example", str(d))
    assert result.returncode == 0, result.stderr
    files = [str(d / f"{m}.csv") for m in MONTHS]
    assert all(Path(f).exists() for f in files)
    return files


@pytest.fixture(scope="module")
def screens(months) -> dict[str, str]:
    args = ["compare", *months, "--y-true", "default", "--y-score", "score", *FAST]
    short, full = _cli(*args), _cli(*args, "--details")
    assert short.returncode == 0, short.stderr
    assert full.returncode == 0, full.stderr
    return {"short": short.stdout, "details": full.stdout}


def test_six_months_fit_one_screen_at_80_columns(screens):
    text = screens["short"]
    print(text)
    lines = text.splitlines()
    assert len(lines) <= 45, f"{len(lines)} lines"
    assert max(len(line) for line in lines) <= 80
    assert lines[0].startswith("beyondchance compare")
    # the headline metric is named in the table's title; every window whole, on its own row
    assert any(line.startswith("Precision by window") for line in lines)
    for name in MONTHS:
        assert any(line.startswith(name) for line in lines), name
    row = next(line for line in lines if line.startswith("credit_default_2024-05"))
    assert "▼" in row
    # an interval is never broken inside: at 80 columns each stands whole under its value
    broken = [line for line in lines if line.count("[") != line.count("]")]
    assert not broken, text
    assert len(re.findall(r"\[\d\.\d+, \d\.\d+\]", text)) == 5  # the five windows' intervals, whole
    assert "reference" in next(line for line in lines if line.startswith("credit_default_2024-01"))
    # at most three lines for the flagged month, then the legend and the details' line
    flagged = [i for i, line in enumerate(lines) if line.startswith("▼ credit_default_2024-05")]
    assert len(flagged) == 1
    joined = " ".join(text.split())
    assert "▼ evidence that the classifier changed for the worse (Holm-adjusted p ≤ 5%)" in joined
    assert "--details:" in lines[-1] or "--details:" in lines[-2]
    # the long account is not here
    assert "Verdict" not in text and "┃metric" not in text


def test_details_give_the_full_account(screens):
    full = screens["details"]
    assert full.lstrip().startswith("Verdict")
    for section in ("beyondchance compare:", "┃metric", "Each cell:", "Confidence intervals:", "adv ", "OPS ",
                    "exp ", "clf "):
        assert section in full, section
    assert len(full.splitlines()) > 3 * len(screens["short"].splitlines())


def test_the_python_api_short_and_details(months):
    from beyondchance.report.compare import compare
    from beyondchance.report.render.terminal_comparison import render_comparison_text

    sets = {}
    for f in months[:3]:
        frame = pd.read_csv(f)
        sets[Path(f).stem] = ((frame["default"] == "Yes").astype(int).to_numpy(), frame["score"].to_numpy())
    c = compare(sets, metrics=["precision", "f1"], n_resamples=200, mc_samples=1024)
    short = str(c)
    assert "comparison.details()" in short and "Verdict" not in short
    assert all(name in short for name in sets)
    assert c.details() == render_comparison_text(c, details=True)
    assert c.details().lstrip().startswith("Verdict") and "┃metric" in c.details()
    for width in (80, 120, 200):
        text = render_comparison_text(c, width=width)
        assert max(len(line) for line in text.splitlines()) <= width
        assert all(any(line.startswith(name) for line in text.splitlines()) for name in sets)


def test_a_window_without_labels_shows_estimated(months, tmp_path):
    frame = pd.read_csv(months[5]).drop(columns=["default"])
    july = tmp_path / "credit_default_2024-07.csv"
    frame.to_csv(july, index=False)
    result = _cli("compare", *months[:3], str(july), "--y-true", "default", "--y-score", "score", *FAST)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    print(result.stdout)
    assert max(len(line) for line in lines) <= 80
    row = next(line for line in lines if line.startswith("credit_default_2024-07"))
    assert "estimated" in row and "est." in row and "no labels" in row
    assert "estimated: a window without labels" in " ".join(result.stdout.split())


def test_a_window_without_labels_in_python():
    from beyondchance.report.compare import compare

    rng = np.random.default_rng(3)

    def window(pi: float, n: int = 1500):
        y = (rng.random(n) < pi).astype(int)
        return y, np.clip(0.3 + 0.4 * y + rng.normal(0, 0.15, n), 0, 1)

    jan, feb = window(0.2), window(0.3)
    c = compare({"jan": jan, "feb": feb, "mar": (None, window(0.4)[1])}, metrics=["f1"], n_resamples=200,
                mc_samples=1024)
    text = str(c)
    row = next(line for line in text.splitlines() if line.startswith("mar"))
    assert "estimated" in row
    assert "F1 by window" in text


@pytest.mark.skipif(shutil.which("tmux") is None, reason="tmux is not installed")
def test_in_tmux_at_80_by_24(months, tmp_path):
    """The default output in a real terminal of 80×24; the captured pane goes to the log."""
    session = f"bc-{uuid.uuid4().hex[:8]}"
    done = tmp_path / "done"
    script = tmp_path / "run.sh"
    env = _env()
    script.write_text(
        "#!/bin/sh\n"
        f"export PYTHONPATH='{env['PYTHONPATH']}'\n"
        "unset COLUMNS LINES NO_COLOR\n"
        f"'{sys.executable}' -m beyondchance.cli compare {' '.join(repr(m) for m in months)} "
        f"--y-true default --y-score score {' '.join(FAST)}\n"
        f"echo $? > '{done}'\n")
    script.chmod(0o755)
    subprocess.run(["tmux", "new-session", "-d", "-s", session, "-x", "80", "-y", "24"], check=True)
    try:
        subprocess.run(["tmux", "set-option", "-t", session, "history-limit", "5000"], check=True)
        subprocess.run(["tmux", "send-keys", "-t", session, f"sh '{script}'", "Enter"], check=True)
        deadline = time.time() + 300
        while not done.exists() and time.time() < deadline:
            time.sleep(0.5)
        assert done.exists(), "the command did not finish in tmux"
        time.sleep(0.3)
        pane = subprocess.run(["tmux", "capture-pane", "-p", "-J", "-S", "-", "-t", session], check=True,
                              capture_output=True, text=True).stdout
        width = subprocess.run(["tmux", "display-message", "-p", "-t", session, "#{pane_width}"], check=True,
                               capture_output=True, text=True).stdout.strip()
    finally:
        subprocess.run(["tmux", "kill-session", "-t", session], check=False)
    print(f"--- tmux pane {width} columns wide ---")
    print(pane)
    assert done.read_text().strip() == "0"
    lines = pane[pane.index("beyondchance compare"):].splitlines()
    end = next(i for i, line in enumerate(lines) if line.startswith("--details:"))
    out = lines[:end + 3]  # the details' line wraps to two or three lines at 80 columns
    assert len(out) <= 45
    assert max(len(line.rstrip()) for line in out) <= 80
    for name in MONTHS:
        assert any(line.startswith(name) for line in out), name
