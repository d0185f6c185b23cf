"""The HTML report: self-contained, and rendered by a real browser (headless Chromium).

The browser test is skipped — with the reason shown by ``pytest -ra`` — where Chromium
is not installed (Debian: ``apt-get install -y chromium chromium-driver``).  It opens
the page from a ``file://`` URL with networking disabled, checks that every plot was
decoded and that the verdict and the table are in the rendered DOM, and saves a
screenshot in the test's output folder.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import warnings
from pathlib import Path

import numpy as np
import pytest

from beyondchance.report import compare, evaluate
from beyondchance.report.example import credit_default_example, scored_holdout
from beyondchance.report.render.html import comparison_html, report_html


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    return "/usr/bin/chromium" if Path("/usr/bin/chromium").exists() else None


CHROMIUM = _chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="Chromium is not installed (Debian: apt-get install -y chromium chromium-driver); "
           "the HTML report is not opened in a browser",
)
_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
          "--disable-background-networking", "--disable-component-update", "--disable-sync",
          "--disable-extensions", "--hide-scrollbars"]


@pytest.fixture(scope="module")
def report_page(tmp_path_factory):
    h = scored_holdout()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(h["default"].to_numpy(), h["score"].to_numpy(), n_resamples=300, name="held-out half",
                     mc_samples=2048)
    path = tmp_path_factory.mktemp("html") / "report.html"
    path.write_text(report_html(r), encoding="utf-8")
    return r, path


def test_page_is_self_contained(report_page):
    r, path = report_page
    page = path.read_text()
    assert page.startswith("<!DOCTYPE html>")
    # no resource is fetched: no external scripts, styles, images or fonts
    assert not re.search(r"""(src|href)\s*=\s*["']?(https?:)?//""", page)
    assert "<link" not in page and "@import" not in page
    assert page.count('<img class="plot"') == 7  # metrics, ROC, PR, lift, PA-coverage, score histogram, decision curve
    assert page.count('src="data:image/png;base64,') == 7  # metrics, ROC, PR, lift, PA-coverage, score histogram, decision curve
    for line in r.verdict:
        assert line.replace("'", "&#x27;") in page
    assert "id='metrics'" in page


def test_a_metric_that_cannot_show_an_advantage_is_grey_not_red(report_page):
    """Recall and specificity: a constant reaches their best value, so a value below it is no
    fault of the classifier: the neutral colour (moot, grey), never the colour of "worse"."""
    r, path = report_page
    page = path.read_text()
    assert ".moot { color: #777; }" in page
    for name in ("recall", "specificity"):
        m = r.metrics[name]
        assert m.ideal == m.baseline and not m.beats_baseline
        row = re.search(rf"<tr data-metric='{name}'>.*?</tr>", page).group(0)
        assert "class='moot'" in row and "verdict-cell moot" in row
        assert "class='bad'" not in row and "verdict-cell bad" not in row
    worse = [m for m in r.metrics.values() if m.beats_baseline is False and m.ideal != m.baseline]
    for m in worse:  # a metric that can show an advantage and does not: still red
        assert "verdict-cell bad" in re.search(rf"<tr data-metric='{m.name}'>.*?</tr>", page).group(0)


def _browser(args: list[str], user_dir: Path) -> subprocess.CompletedProcess:
    return subprocess.run([CHROMIUM, *_FLAGS, f"--user-data-dir={user_dir}", *args],
                          capture_output=True, text=True, timeout=900)  # a hang guard only, generous under load


@needs_chromium
def test_report_renders_in_chromium(report_page, tmp_path):
    r, path = report_page
    url = path.resolve().as_uri()
    dom = _browser(["--virtual-time-budget=5000", "--dump-dom", url], tmp_path / "profile1")
    assert dom.returncode == 0, dom.stderr[-2000:]
    html = dom.stdout
    # the page's script counted the decoded plots (naturalWidth > 0) after the load event
    rendered = re.search(r'data-plots-rendered="(\d+)/(\d+)"', html)
    assert rendered is not None, "the page's script did not run"
    assert rendered.group(1) == rendered.group(2) == "7"  # metrics, ROC, PR, lift, PA-coverage, histogram, decision curve
    assert "Verdict" in html and r.verdict[0].split(":")[0] in html.replace("&#x27;", "'")
    assert html.count("data-metric=") == len(r.metrics)
    # the per-class view (issue 14, item 4): a row per class, the confusion matrix's counts
    assert 'id="per-class"' in html and html.count("data-class=") == 2
    assert 'id="confusion"' in html and 'id="plot-score_histogram"' in html
    for count in r.confusion.matrix.ravel():
        assert "<td style=" in html and f">{count:,.6g}<br>" in html
    shot = tmp_path / "report.png"
    result = _browser(["--window-size=1280,4000", f"--screenshot={shot}", url], tmp_path / "profile2")
    assert result.returncode == 0 and shot.exists(), result.stderr[-2000:]
    import matplotlib.image as mpimg

    pixels = mpimg.imread(shot)
    assert pixels.shape[0] == 4000 and pixels.shape[1] == 1280
    assert float(np.std(pixels[..., :3])) > 0.05  # not a blank page: text, tables and plots
    print(f"screenshot saved to {shot}")


@needs_chromium
def test_comparison_renders_in_chromium(tmp_path):
    frame = credit_default_example()
    sets = {m: (g["default"].to_numpy(), g["score"].to_numpy()) for m, g in frame.groupby("month")}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        c = compare(sets, metrics=["precision", "f1"], n_resamples=200)
    path = tmp_path / "compare.html"
    path.write_text(comparison_html(c), encoding="utf-8")
    dom = _browser(["--virtual-time-budget=5000", "--dump-dom", path.resolve().as_uri()], tmp_path / "profile")
    assert dom.returncode == 0, dom.stderr[-2000:]
    assert 'data-plots-rendered="1/1"' in dom.stdout
    assert ("2024-05 (20.0% prevalence): evidence that the classifier changed "
            "(Holm-adjusted p ≤ 5%)") in dom.stdout
    shot = tmp_path / "compare.png"
    _browser(["--window-size=1280,2000", f"--screenshot={shot}", path.resolve().as_uri()], tmp_path / "profile2")
    assert shot.exists() and shot.stat().st_size > 10_000
