"""A row's verdict never says more than its own evidence (issue 37, item 1).

"better" (green, and the headline's claim) needs the row's interval on the better side of
the best constant **and** its p-value of "no better than chance" at most α = 1 − level;
where they disagree the word is "unclear".  Rows that make the same comparison — accuracy
above the majority rate and a prediction advantage above 0 — give the same word.  Multi-class
random predictions are the known case where the interval alone says "better" (the best
constant scores 0 on every class it never predicts) and the permutation test does not.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import beyondchance as bc
from beyondchance.inference.significance import beats_by_interval

from conftest import quiet

ALPHA = 0.05


def _draw(kind: str, n: int, signal: float, seed: int):
    """Labels and predictions of ``kind`` with ``signal`` in [0, 1] (0: independent)."""
    rng = np.random.default_rng(seed)
    if kind == "multiclass":
        y = rng.choice(3, n, p=[0.5, 0.3, 0.2])
        pred = np.where(rng.random(n) < signal, y, rng.choice(3, n))
        return y, pred
    y = (rng.random(n) < 0.3).astype(int)
    score = rng.normal(size=n) + 2 * signal * y
    if kind == "binary-scores":
        return y, 1 / (1 + np.exp(-score))
    return y, (score > 0.6).astype(int)


def _headline_claims(report) -> bool:
    first = report.verdict[0]
    return first.startswith("Better than") and "not significantly" not in first


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(["binary-labels", "binary-scores", "multiclass"]), n=st.integers(30, 160),
       signal=st.sampled_from([0.0, 0.0, 0.1, 0.3, 0.6]), seed=st.integers(0, 2**32 - 1))
def test_better_needs_the_interval_and_the_test(kind: str, n: int, signal: float, seed: int) -> None:
    y, pred = _draw(kind, n, signal, seed)
    r = quiet(bc.evaluate, y, pred, n_resamples=200, random_state=seed % 1000)
    for name, m in r.metrics.items():
        if m.word != "better":
            continue
        if m.ci is not None:
            assert beats_by_interval(m.ci.low, m.ci.high, m.baseline, greater_is_better=m.greater_is_better) == "yes", (
                name, m.ci, m.baseline)
        if m.pvalue is not None and name != "accuracy":
            assert m.pvalue <= ALPHA, (name, m.pvalue)
    if "accuracy" in r.metrics and "prediction_advantage" in r.metrics:
        pa = r.metrics["prediction_advantage"]
        assert r.metrics["accuracy"].word == pa.word, (r.metrics["accuracy"].word, pa.word)
        if math.isfinite(pa.value):
            assert _headline_claims(r) == (pa.word == "better"), (r.verdict[0], pa.word)


def test_random_multiclass_predictions_are_not_better_than_the_constant() -> None:
    """The macro precision and F1 of random predictions beat the best constant's (0 on the
    classes it never predicts) and their intervals lie above it; the permutation test of
    chance does not reject, so the words are "unclear" and the line says why."""
    y, pred = _draw("multiclass", 300, 0.0, 1)
    r = quiet(bc.evaluate, y, pred, n_resamples=200, random_state=0)
    for name in ("precision", "f1"):
        m = r.metrics[name]
        assert m.ci.low > m.baseline and m.pvalue > ALPHA, (name, m.ci, m.baseline, m.pvalue)
        assert m.word == "unclear" and "p (chance)" in m.verdict, (m.word, m.verdict)
    assert "better" not in {m.word for m in r.metrics.values()}


def test_the_word_is_in_the_json() -> None:
    y, pred = _draw("binary-labels", 200, 0.6, 3)
    out = quiet(bc.evaluate, y, pred, n_resamples=200, random_state=0).to_dict()
    assert {row["word"] for row in out["metrics"].values()} <= {"better", "unclear", "worse", "equal", "moot",
                                                               "too few", "undefined", "n/a"}
    assert out["metrics"]["accuracy"]["word"] == out["metrics"]["prediction_advantage"]["word"]


def test_few_positives_decline_the_rows_that_rest_on_them() -> None:
    """Five positives in 100 rows: the rows resting on the positives give no interval and the
    word "too few" (their intervals do not cover there; a proportion declines below 10 rows of
    its own denominator, recall and balanced accuracy here); accuracy takes the prediction
    advantage's word; the losses keep theirs; the ROC AUC takes Newcombe's closed-form interval,
    precision (of the predicted positives) and specificity (of the negatives) Wilson's."""
    rng = np.random.default_rng(5)
    y = np.zeros(100, dtype=int)
    y[rng.choice(100, 5, replace=False)] = 1
    p = 1 / (1 + np.exp(-(rng.normal(size=100) + 1.5 * y)))
    r = quiet(bc.evaluate, y, p, n_resamples=200, random_state=0)
    for name in ("balanced_accuracy", "f1", "mcc", "kappa", "prediction_advantage", "lift_auc", "pr_auc"):
        m = r.metrics[name]
        assert m.ci is None and m.word == "too few" and "5 positive rows" in m.verdict, (name, m.ci, m.word, m.verdict)
    assert r.metrics["recall"].ci is None and r.metrics["recall"].word == "moot"  # moot says more than "too few"
    assert r.metrics["accuracy"].word == "too few" and r.metrics["accuracy"].ci is not None
    assert r.metrics["roc_auc"].ci.method.startswith("Newcombe")
    for name in ("specificity", "precision"):
        m = r.metrics[name]
        assert m.ci.method == "Wilson score" and m.ci.n_resamples == 0 and m.word != "too few", (name, m.ci, m.word)
    assert r.metrics["log_loss"].word in ("better", "unclear", "worse")
    assert any("the ROC AUC's is Newcombe's interval; the PR AUC has none" in note for note in r.notes), r.notes
    assert any("precision, specificity take Wilson's score interval" in note for note in r.notes), r.notes


def test_a_proportion_declines_below_ten_rows_of_its_own_denominator() -> None:
    """Precision rests on the predicted positives: 8 of them decline it, though there are 40
    positives; recall of those 40 keeps Wilson's interval."""
    y = np.r_[np.ones(40, dtype=int), np.zeros(60, dtype=int)]
    pred = np.zeros(100, dtype=int)
    pred[:6] = 1
    pred[40:42] = 1
    r = quiet(bc.evaluate, y, pred, n_resamples=200, random_state=0)
    assert r.metrics["precision"].ci is None and r.metrics["precision"].word == "too few"
    assert "8 predicted positive rows (at least 10)" in r.metrics["precision"].verdict
    assert r.metrics["recall"].ci.method == "Wilson score"


def test_wilson_and_newcombe_hybrid_intervals_match_their_formulas() -> None:
    """The proportions' ends solve Wilson's (p̂ − p)² = z² p(1 − p)/m, and balanced accuracy's
    are Newcombe's hybrid of the two Wilson intervals, computed here independently."""
    from scipy import stats

    from beyondchance.inference.few_rows_intervals import labeling_interval

    z = stats.norm.ppf(0.975)

    def wilson(k: int, m: int) -> tuple[float, float]:
        centre, half = (k + z * z / 2) / (m + z * z), z * np.sqrt(k * (m - k) / m + z * z / 4) / (m + z * z)
        return centre - half, centre + half

    from beyondchance.inference.few_rows_intervals import proportion_interval

    for k, m in ((0, 178), (3, 15), (15, 15), (7, 10)):  # the one Wilson interval is scipy's
        expected_ci = stats.binomtest(k, m).proportion_ci(0.9, method="wilson")
        assert np.allclose(proportion_interval(k, m, 0.9), (expected_ci.low, expected_ci.high), atol=1e-14)
    for tp, fp, fn, tn in ((12, 5, 3, 30), (5, 40, 0, 55), (1, 2, 9, 38)):
        assert np.allclose(labeling_interval("recall", tp=tp, fp=fp, fn=fn, tn=tn, level=0.95), wilson(tp, tp + fn))
        assert np.allclose(labeling_interval("precision", tp=tp, fp=fp, fn=fn, tn=tn, level=0.95), wilson(tp, tp + fp))
        r, s = tp / (tp + fn), tn / (tn + fp)
        (lr, ur), (ls, us) = wilson(tp, tp + fn), wilson(tn, tn + fp)
        expected = ((r + s - np.hypot(r - lr, s - ls)) / 2, (r + s + np.hypot(ur - r, us - s)) / 2)
        assert np.allclose(labeling_interval("balanced_accuracy", tp=tp, fp=fp, fn=fn, tn=tn, level=0.95), expected)


def test_between_30_and_100_rows_the_curve_areas_take_the_closed_forms() -> None:
    """Between 30 and 100 positives the curve areas take the closed forms; above 100 rows of
    each class every row keeps its bootstrap interval."""
    rng = np.random.default_rng(6)
    y = (np.arange(200) < 50).astype(int)
    p = 1 / (1 + np.exp(-(rng.normal(size=200) + 1.0 * y)))
    r = quiet(bc.evaluate, y, p, n_resamples=200, random_state=0)
    assert r.metrics["roc_auc"].ci.method.startswith("Newcombe") and r.metrics["pr_auc"].ci.method.startswith("logit")
    assert r.metrics["roc_auc"].word == "better" and r.metrics["pr_auc"].word == "better"
    assert r.metrics["recall"].ci.method == "Wilson score"
    big = (np.arange(400) < 150).astype(int)
    q = 1 / (1 + np.exp(-(rng.normal(size=400) + 1.0 * big)))
    wide = quiet(bc.evaluate, big, q, n_resamples=200, random_state=0)
    assert wide.metrics["roc_auc"].ci.method == "percentile" and wide.metrics["recall"].ci.method == "bca"


def test_newcombe_interval_ends_solve_its_equation() -> None:
    """The ends are the roots of (θ̂ − θ)² = z² V(θ) (Hanley–McNeil's variance with
    N* = (m + n)/2 − 1), computed here independently of the module."""
    from scipy import stats

    from beyondchance.inference.few_rows_intervals import roc_auc_interval

    for auc, m, n in ((0.8, 5, 95), (0.55, 12, 40), (0.97, 3, 200)):
        z = stats.norm.ppf(0.975)
        n_star = (m + n) / 2 - 1
        for theta in roc_auc_interval(auc, m, n, 0.95):
            v = theta * (1 - theta) / (m * n) * (1 + n_star * ((1 - theta) / (2 - theta) + theta / (1 + theta)))
            assert abs((auc - theta) ** 2 - z * z * v) < 1e-10, (auc, m, n, theta)
        low, high = roc_auc_interval(auc, m, n, 0.95)
        assert low < auc < high


def test_a_rare_class_declines_the_macro_rows_but_not_accuracy() -> None:
    rng = np.random.default_rng(7)
    y = np.array([0] * 150 + [1] * 45 + [2] * 5)
    pred = np.where(rng.random(200) < 0.7, y, rng.choice(3, 200))
    r = quiet(bc.evaluate, y, pred, n_resamples=200, random_state=0)
    for name in ("balanced_accuracy", "precision", "recall", "f1", "mcc"):
        assert r.metrics[name].word == "too few" and "5 rows of class 2 " in r.metrics[name].verdict, (
            name, r.metrics[name].verdict)
    assert r.metrics["accuracy"].ci is not None and r.metrics["prediction_advantage"].ci is not None
    assert r.metrics["accuracy"].word == r.metrics["prediction_advantage"].word != "too few"


def test_lift_auc_takes_bca_with_few_positives_and_its_jackknife_leaves_one_row_out() -> None:
    """Below 100 rows of the rarer class the lift AUC's interval is BCa (its percentile
    interval is too short for a right-skewed mean of 20 positives); each jackknife value is
    the lift AUC of the rows with one row of its cell left out, recomputed here from scratch."""
    from beyondchance.measures.binary_scores import ScoreCells
    from beyondchance.measures.curves import ThresholdCounts

    rng = np.random.default_rng(8)
    y = (rng.random(300) < 0.1).astype(int)
    s = np.round(rng.normal(size=300) + 1.0 * y, 1)  # ties: cells of several rows
    r = quiet(bc.evaluate, y, 1 / (1 + np.exp(-s)), n_resamples=300, random_state=0)
    assert r.metrics["lift_auc"].ci.method == "bca" and r.metrics["roc_auc"].ci.method.startswith("Newcombe")
    cells = ScoreCells.from_counts(ThresholdCounts.from_scores(y, s))
    values, multiplicity = cells.jackknife(("lift_auc",))
    assert multiplicity.sum() == 300
    order = np.unique(s)[::-1]
    nonempty = [(i, True) for i in range(order.size) if ((s == order[i]) & (y == 1)).any()] + \
               [(i, False) for i in range(order.size) if ((s == order[i]) & (y == 0)).any()]
    for j in rng.choice(len(nonempty), 6, replace=False):
        i, positive = nonempty[j]
        drop = np.flatnonzero((s == order[i]) & (y == int(positive)))[0]
        keep = np.arange(300) != drop
        direct = bc.evaluate(y[keep], 1 / (1 + np.exp(-s[keep])), ci=False).metrics["lift_auc"].value
        assert values["lift_auc"][j] == pytest.approx(direct, rel=1e-12), (i, positive)


@pytest.mark.parametrize("name", ["recall", "balanced_accuracy"])
def test_closed_form_intervals_cover_exactly_at_fifteen_positives(name: str) -> None:
    """The exact coverage (every test set enumerated with its probability, no simulation) of
    Wilson's recall and Newcombe's hybrid balanced accuracy at n = 50, prevalence 0.3 (the
    grid cell where the cell bootstrap covered recall 0.909), TPR 0.83 and TNR 0.5 as in
    ``benchmarks/validity_table.py``; test sets with fewer than 10 rows of a denominator
    decline and are left out, as the report does."""
    from scipy import stats

    from beyondchance.inference.few_rows_intervals import labeling_interval

    n, pi, tpr, tnr = 50, 0.3, 0.8299, 0.5
    truth = tpr if name == "recall" else (tpr + tnr) / 2
    covered = total = 0.0
    for m in range(10, n - 9):
        p_tp, p_tn = stats.binom.pmf(np.arange(m + 1), m, tpr), stats.binom.pmf(np.arange(n - m + 1), n - m, tnr)
        tps, tns = np.flatnonzero(p_tp > 1e-7), np.flatnonzero(p_tn > 1e-7)
        inside = np.array([[float(np.clip(truth, *labeling_interval(name, tp=tp, fp=n - m - tn, fn=m - tp, tn=tn,
                                                                      level=0.95)) == truth)
                            for tn in tns] for tp in tps])
        weight = stats.binom.pmf(m, n, pi)
        covered += weight * float(p_tp[tps] @ inside @ p_tn[tns])
        total += weight * float(p_tp[tps].sum() * p_tn[tns].sum())
    assert 0.94 <= covered / total <= 0.97, covered / total


def test_a_chosen_subset_of_rows_with_few_positives_is_declined_without_error() -> None:
    """The rows declined for too few positives are those of the whole task; a report of a
    chosen subset (``metrics=``) declines its own and does not look up the others (a
    KeyError of 'balanced_accuracy' before), in ``evaluate`` and in ``compare``."""
    y = np.zeros(100, dtype=int)
    y[:5] = 1
    p = np.random.default_rng(0).random(100)
    r = quiet(bc.evaluate, y, p, metrics=["precision", "f1"], n_resamples=100, random_state=0)
    assert list(r.metrics) == ["precision", "f1"] and r.metrics["f1"].word == "too few"
    c = quiet(bc.compare, {"ref": (y, p), "new": (y[::-1].copy(), p)}, metrics=["precision", "f1", "roc_auc"],
              n_resamples=50)
    assert c is not None
