"""Windows without labels in ``compare``: groups of ``--by`` whose labels are missing, the
estimate from sufficient statistics, and the errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from beyondchance import InvalidInputError, compare, estimate_performance
from beyondchance.measures.curves import threshold_counts
from beyondchance.monitoring.label_free import estimate_from_statistics
from beyondchance.statistics.values import ValueHistogram

FAST = ["--n-resamples", "200", "--mc-samples", "1024", "--format", "json"]


def _run(*args):
    env = {**os.environ, "PYTHONWARNINGS": "ignore"}
    return subprocess.run([sys.executable, "-m", "beyondchance.cli", *map(str, args)], capture_output=True, text=True,
                          env=env, timeout=900)


def _scored(rng, pi, n):
    y = (rng.random(n) < pi).astype(int)
    return y, np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.2, n), 0, 1).round(3)


@pytest.fixture(scope="module")
def monthly(tmp_path_factory):
    """Three labelled months and one whose labels have not arrived (empty label fields)."""
    rng = np.random.default_rng(11)
    frames = []
    for month, pi in (("2024-01", 0.3), ("2024-02", 0.1), ("2024-03", 0.2), ("2024-04", 0.15)):
        y, s = _scored(rng, pi, 800)
        frames.append(pd.DataFrame({"month": month, "y": y.astype(object), "s": s}))
    frames[3]["y"] = None
    df = pd.concat(frames, ignore_index=True)
    tmp = tmp_path_factory.mktemp("label_free")
    paths = {"csv": tmp / "monthly.csv", "parquet": tmp / "monthly.parquet", "frame": df, "tmp": tmp}
    df.to_csv(paths["csv"], index=False)
    df.assign(y=df["y"].astype("Int64")).to_parquet(paths["parquet"])
    return paths


@pytest.mark.parametrize("fmt", ["csv", "parquet"])
def test_by_group_without_labels_is_a_window_as_separate_files(monthly, fmt):
    before = monthly[fmt].read_bytes()
    r = _run("compare", monthly[fmt], "--by", "month", "--y-true", "y", "--y-score", "s", *FAST)
    assert r.returncode == 0, r.stderr
    got = json.loads(r.stdout)
    assert [t["name"] for t in got["test_sets"]] == ["2024-01", "2024-02", "2024-03"]
    assert [e["test_set"] for e in got["label_free"]] == ["2024-04"] and got["label_free"][0]["n_window"] == 800
    assert any(v.startswith("2024-04 (no labels)") for v in got["verdict"])
    # the same window given as rows to the library: the same estimate
    df = monthly["frame"]
    sets = {m: (None if m == "2024-04" else g["y"].astype(int).to_numpy(), g["s"].to_numpy())
            for m, g in df.groupby("month")}
    lib = json.loads(compare(sets, n_resamples=200, mc_samples=1024).to_json())
    assert lib["label_free"] == got["label_free"]
    assert monthly[fmt].read_bytes() == before  # input never modified


def test_by_group_with_some_labels_missing_is_refused_by_name_and_count(monthly):
    df = monthly["frame"].copy()
    df.loc[df.index[df["month"] == "2024-02"][:7], "y"] = None
    path = monthly["tmp"] / "partial.csv"
    df.to_csv(path, index=False)
    r = _run("compare", path, "--by", "month", "--y-true", "y", "--y-score", "s", *FAST)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and "Traceback" not in r.stderr
    assert "2024-02" in r.stderr and "7 of 800 rows have no label" in r.stderr


def test_missing_labels_outside_by_are_still_an_error(monthly):
    other = monthly["tmp"] / "other.csv"
    monthly["frame"].iloc[:800].to_csv(other, index=False)
    r = _run("compare", other, monthly["csv"], "--y-true", "y", "--y-score", "s", *FAST)
    assert r.returncode == 2 and "missing value" in r.stderr


def test_estimate_from_statistics_equals_the_rows_weighted():
    rng = np.random.default_rng(4)
    y, s = _scored(rng, 0.3, 2000)
    _, sw = _scored(rng, 0.1, 1500)
    w_ref, w_new = rng.random(2000) + 0.5, rng.random(1500) + 0.5
    rows = estimate_performance(y, s, sw, sample_weight=w_ref, sample_weight_window=w_new, n_resamples=200,
                                method="em")
    stats = estimate_from_statistics(threshold_counts(y, s, sample_weight=w_ref),
                                     ValueHistogram.from_values(sw, sample_weight=w_new), n_window_rows=1500,
                                     n_reference_rows=2000, n_resamples=200, method="em")
    assert stats.prevalence == pytest.approx(rows.prevalence, abs=1e-12)
    assert stats.prevalence_ci == pytest.approx(rows.prevalence_ci, abs=1e-9)
    assert stats.n_reference == 2000 and stats.n_window == 1500


def test_estimate_from_statistics_refuses_binned_or_small_windows():
    rng = np.random.default_rng(5)
    y, s = _scored(rng, 0.3, 500)
    tc = threshold_counts(y, s)
    with pytest.raises(InvalidInputError, match="distinct scores"):
        estimate_from_statistics(tc, ValueHistogram.from_values(s, bin_width=0.1), n_window_rows=500)
    with pytest.raises(InvalidInputError, match="at least 50"):
        estimate_from_statistics(tc, ValueHistogram.from_values(s[:10]), n_window_rows=10)


def test_by_group_without_labels_and_too_few_rows_is_refused(monthly):
    df = pd.concat([monthly["frame"].iloc[:1600], monthly["frame"].iloc[2400:2410]], ignore_index=True)
    path = monthly["tmp"] / "small_window.csv"
    df.to_csv(path, index=False)
    r = _run("compare", path, "--by", "month", "--y-true", "y", "--y-score", "s", *FAST)
    assert r.returncode == 2 and r.stderr.count("\n") == 1
    assert "2024-04" in r.stderr and "no labels" in r.stderr and "at least 50" in r.stderr


def test_the_label_shift_row_says_rejected_not_holds(monthly):
    """A test can reject label shift, never show that it holds: the row asks "rejected?"."""
    import io

    from rich.console import Console

    from beyondchance.report.render.html import comparison_html
    from beyondchance.report.render.terminal_comparison import _label_free_table

    df = monthly["frame"]
    sets = {m: (None if m == "2024-04" else g["y"].astype(int).to_numpy(), g["s"].to_numpy())
            for m, g in df.groupby("month")}
    c = compare(sets, n_resamples=200, mc_samples=1024)
    (_, est), = c.label_free
    page = comparison_html(c)
    assert "label shift rejected?" in page and "label shift holds?" not in page
    console = Console(file=io.StringIO(), width=200)
    console.print(_label_free_table(c))
    text = console.file.getvalue()
    assert "label shift rejected?" in text
    assert (f"no, p = {est.assumption_pvalue:.2g}" if est.assumption_holds else "yes, p =") in text
