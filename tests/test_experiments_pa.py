"""Reproductions of the Prediction Advantage paper (quick mode): the exam, the Haberman
appendix and Figure 1.  The assertions are the paper's statements, checked against
closed forms written out here (not against the experiment's own code)."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from beyondchance.experiments import run_experiment
from beyondchance.experiments.pa_figure1 import synthetic_counts

PA_NAMES = ("pa-exam", "pa-haberman", "pa-figure1")


@pytest.fixture(scope="module")
def runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("repro_pa")
    results = {name: run_experiment(name, out, quick=True, random_state=0, jobs=1, show_progress=False) for name in PA_NAMES}
    return out, results


def _csv(runs, name, table):
    return pd.read_csv(runs[0] / name / f"{table}.csv")


@pytest.mark.parametrize("name", PA_NAMES)
def test_outputs_written(runs, name):
    out, results = runs
    folder = out / name
    result = results[name]
    assert (folder / "summary.md").is_file() and (folder / "comparison.csv").is_file()
    for table in result.tables:
        assert (folder / f"{table}.csv").stat().st_size > 0
    assert result.figures
    for fig in result.figures:
        assert (folder / f"{fig}.png").stat().st_size > 1000
        assert (folder / f"{fig}.svg").read_text(encoding="utf-8").lstrip().startswith("<?xml")
    summary = (folder / "summary.md").read_text(encoding="utf-8")
    assert "Paper beside ours" in summary and "claims" in summary


# --- the exam (section 5) ------------------------------------------------------------------

def test_exam_values(runs):
    exam = _csv(runs, "pa-exam", "exam")
    bob, alice = exam.iloc[0], exam.iloc[1]
    assert bob["loss"] == pytest.approx(0.4) and alice["loss"] == pytest.approx(0.4)
    assert bob["bmp_risk"] == pytest.approx(2 / 3, abs=1e-12)
    assert alice["bmp_risk"] == pytest.approx(0.75, abs=1e-12)
    assert bob["pa_uniform_key"] == pytest.approx(0.4, abs=1e-12)       # 1 − 0.4/(2/3)
    assert alice["pa_uniform_key"] == pytest.approx(7 / 15, abs=1e-12)  # 1 − 0.4/0.75
    # the introduction: a grade of 30 is below guessing on 3 options, above on 4
    assert exam.iloc[2]["pa_uniform_key"] < 0 < exam.iloc[3]["pa_uniform_key"]
    assert all(runs[1]["pa-exam"].claims.values())


def test_exam_curve_is_the_closed_form(runs):
    curve = _csv(runs, "pa-exam", "pa_vs_grade")
    expected = 1 - (1 - curve["grade"]) / (1 - 1 / curve["options"])
    # the sheets have round(grade·600) right answers
    expected_rounded = 1 - (1 - np.round(curve["grade"] * 600) / 600) / (1 - 1 / curve["options"])
    np.testing.assert_allclose(curve["pa"], expected_rounded, atol=1e-12)
    np.testing.assert_allclose(curve["pa"], expected, atol=1e-2)


# --- Haberman (appendix A) -------------------------------------------------------------------

def test_haberman_appendix_values(runs):
    reports = _csv(runs, "pa-haberman", "appendix_reports")
    trivial = 81 / 306
    np.testing.assert_allclose(reports["pa_ours"], 1 - reports["error"] / trivial, atol=1e-12)
    printed = {0.27: -0.02, 0.30: -0.13, 0.273: -0.0313}
    for error, pa in printed.items():
        ours = float(reports.loc[np.isclose(reports["error"], error), "pa_ours"].iloc[0])
        digits = len(str(pa).split(".")[1])
        assert round(ours, digits) == pa
    assert (reports["pa_ours"] < 0).all()   # "all corresponding to a negative PA"


def test_haberman_cross_validation(runs):
    reps = _csv(runs, "pa-haberman", "cv_repetitions")
    n = reps[["tp", "fp", "fn", "tn"]].sum(axis=1)
    assert (n == 306).all() and ((reps["tp"] + reps["fn"]) == 81).all()
    # PA (0/1 loss) = 1 − error / (minority share), written out
    np.testing.assert_allclose(reps["prediction_advantage"], 1 - (reps["fp"] + reps["fn"]) / 81, atol=1e-12)
    majority = reps[reps["classifier"].str.startswith("majority")]
    assert (majority["prediction_advantage"] == 0).all() and np.allclose(majority["accuracy"], 225 / 306)
    classifiers = _csv(runs, "pa-haberman", "classifiers")
    ok = classifiers.dropna(subset=["pa_ci_low"])
    assert (ok["pa_ci_low"] <= ok["pa_rep0"] + 1e-12).all() and (ok["pa_rep0"] <= ok["pa_ci_high"] + 1e-12).all()


# --- Figure 1 ---------------------------------------------------------------------------------

def _measures(c: pd.DataFrame) -> dict[str, pd.Series]:
    tp, fp, fn, tn = (c[k].astype(float) for k in ("tp", "fp", "fn", "tn"))
    n = tp + fp + fn + tn
    acc = (tp + tn) / n
    tpr, tnr = tp / (tp + fn), tn / (tn + fp)
    f1 = 2 * tp / (2 * tp + fp + fn)
    pe = ((tp + fp) * (tp + fn) + (fn + tn) * (fp + tn)) / n**2
    kappa = (acc - pe) / (1 - pe)
    pa = 1 - (fp + fn) / np.minimum(tp + fn, fp + tn)
    return {"accuracy": acc, "balanced_accuracy": (tpr + tnr) / 2, "f1": f1, "kappa": kappa, "pa": pa,
            "tpr": tpr, "tnr": tnr, "precision": tp / (tp + fp), "error": 1 - acc, "minority": (tp + fn) / n}


def test_figure1_bounds_hold_in_every_case(runs):
    cases = _csv(runs, "pa-figure1", "cases")
    m = _measures(cases)
    np.testing.assert_allclose(cases["prediction_advantage"], m["pa"], atol=1e-12)
    np.testing.assert_allclose(cases["kappa"], m["kappa"], atol=1e-12)
    for other in ("kappa", "f1", "balanced_accuracy", "accuracy", "tpr", "tnr", "precision"):
        assert (m["pa"] <= m[other].fillna(np.inf) + 1e-12).all(), other   # Lemmas 4.1–4.3


def test_figure1_pa_negative_exactly_when_worse_than_the_bmp(runs):
    cases = _csv(runs, "pa-figure1", "cases")
    m = _measures(cases)
    worse = m["error"] > np.minimum(m["minority"], 1 - m["minority"]) + 1e-12
    better = m["error"] < np.minimum(m["minority"], 1 - m["minority"]) - 1e-12
    assert ((m["pa"] < 0) == worse).all() and ((m["pa"] > 0) == better).all()


def test_figure1_trap_region_and_balance(runs):
    cases = _csv(runs, "pa-figure1", "cases")
    m = _measures(cases)
    # every noise level > 0 has test sets where PA < 0 but κ > 0, BA > 0.5, accuracy > 0.5
    trap = (m["pa"] < 0) & (m["kappa"] > 0) & (m["balanced_accuracy"] > 0.5) & (m["accuracy"] > 0.5)
    assert set(cases.loc[trap, "noise"]) >= {0.1, 0.2, 0.3}
    # at balance PA = κ (Lemma 4.3's equality case); strictly below when imbalanced with errors
    balanced = np.isclose(m["minority"], 0.5)
    assert balanced.any()
    np.testing.assert_allclose(m["pa"][balanced], m["kappa"][balanced], atol=1e-12)
    imb = ~balanced & (m["error"] > 0)
    assert (m["pa"][imb] < m["kappa"][imb]).all()
    # noise flips equal numbers in both classes: the minority share is the target
    assert np.allclose(m["minority"], np.round(cases["minority_share"] * 1000) / 1000)


def test_figure1_order_check_is_reported_not_assumed(runs):
    """The paper's κ ≤ F ≤ BA ≤ accuracy is counted on the cases, whatever the outcome."""
    cases = _csv(runs, "pa-figure1", "cases")
    m = _measures(cases)
    order = _csv(runs, "pa-figure1", "order_check").set_index("inequality")
    for lo, hi, key in (("kappa", "f1", "kappa ≤ f1"), ("f1", "balanced_accuracy", "f1 ≤ balanced_accuracy"),
                        ("balanced_accuracy", "accuracy", "balanced_accuracy ≤ accuracy")):
        assert order.loc[key, "violations"] == int((m[lo] > m[hi] + 1e-12).sum())
    claim = next(k for k in runs[1]["pa-figure1"].claims if "total order" in k)
    assert runs[1]["pa-figure1"].claims[claim] == bool((order["violations"] == 0).all())


def test_synthetic_counts_perfect_classifier():
    """A perfect classifier on a test set with a share ν of labels flipped (half per class)
    has error ν and PA = 1 − ν/π."""
    y = np.r_[np.ones(50, int), np.zeros(100, int)]
    rng = np.random.default_rng(0)
    tp, fp, fn, tn = synthetic_counts(y, y.copy(), minority_share=0.3, noise=0.2, n=1000, repeats=4, rng=rng)
    assert np.all(tp + fn == 300) and np.all(fp + fn == 200) and np.all(fp == 100)
    pa = 1 - (fp + fn) / (tp + fn)
    np.testing.assert_allclose(pa, 1 - 0.2 / 0.3)
    assert synthetic_counts(y, y, minority_share=0.05, noise=0.2, n=1000, repeats=1, rng=rng) is None
