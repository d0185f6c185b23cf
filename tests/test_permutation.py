"""The permutation test of "better than chance": exact = full enumeration of the label
arrangements (n ≤ 10), Monte Carlo within its error of the exact value, caret's binomial
form, the chance value of the average precision at few positives, frequency weights,
type-I error, and the report's p-values from its statistics."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import sklearn.metrics as skm
from scipy import stats

import beyondchance as bc

SCORE_FUNCTIONS = {
    "roc_auc": skm.roc_auc_score,
    "pr_auc": skm.average_precision_score,
    "lift_auc": bc.lift_auc,
    "log_loss": skm.log_loss,
    "brier": skm.brier_score_loss,
}
LABEL_FUNCTIONS = {
    "accuracy": skm.accuracy_score,
    "f1": lambda y, p: skm.f1_score(y, p, zero_division=0.0),
    "mcc": skm.matthews_corrcoef,
    "balanced_accuracy": skm.balanced_accuracy_score,
    "kappa": skm.cohen_kappa_score,
    "prediction_advantage": lambda y, p: bc.prediction_advantage(y, p),
}


def enumerated_pvalue(fn, y, pred, greater=True, mid_p=False):
    """Share of the arrangements of y's positives (each equally likely under permutation)
    whose measure is at least as good as the observed one (``mid_p``: strictly better, plus
    half the share of those equal to it)."""
    n, P = len(y), int(np.sum(y))
    obs = fn(y, pred)
    hits = equal = total = 0
    for pos in itertools.combinations(range(n), P):
        yy = np.zeros(n, dtype=int)
        yy[list(pos)] = 1
        v = fn(yy, pred)
        total += 1
        hits += (v >= obs - 1e-12) if greater else (v <= obs + 1e-12)
        equal += abs(v - obs) <= 1e-12
    return (hits - 0.5 * equal) / total if mid_p else hits / total


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("measure", list(SCORE_FUNCTIONS))
def test_exact_scores_equal_full_enumeration(measure, seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 11))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, int(rng.integers(1, n)), replace=False)] = 1
    s = rng.integers(1, 6, n) / 6.0  # ties
    r = bc.permutation_test(measure, y, s)
    assert r.method == "exact mid-p"
    greater = measure not in ("log_loss", "brier")
    expected = enumerated_pvalue(SCORE_FUNCTIONS[measure], y, s, greater=greater)
    assert abs(r.pvalue_conservative - expected) < 1e-12
    assert abs(r.pvalue - enumerated_pvalue(SCORE_FUNCTIONS[measure], y, s, greater=greater, mid_p=True)) < 1e-12
    assert bc.permutation_test(measure, y, s, mid_p=False).pvalue == r.pvalue_conservative
    assert abs(r.statistic - SCORE_FUNCTIONS[measure](y, s)) < 1e-12


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("measure", list(LABEL_FUNCTIONS))
def test_exact_labels_equal_full_enumeration(measure, seed):
    rng = np.random.default_rng(100 + seed)
    n = int(rng.integers(4, 11))
    y = np.zeros(n, dtype=int)
    y[rng.choice(n, int(rng.integers(1, n)), replace=False)] = 1
    pred = rng.integers(0, 2, n)
    r = bc.permutation_test(measure, y, pred)
    expected = enumerated_pvalue(LABEL_FUNCTIONS[measure], y, pred)
    assert r.method == "exact mid-p" and abs(r.pvalue_conservative - expected) < 1e-12
    assert abs(r.pvalue - enumerated_pvalue(LABEL_FUNCTIONS[measure], y, pred, mid_p=True)) < 1e-12
    off = bc.permutation_test(measure, y, pred, mid_p=False)
    assert off.method == "exact" and off.pvalue == off.pvalue_conservative == r.pvalue_conservative


def test_mid_p_by_enumeration():
    rng = np.random.default_rng(21)
    y = np.r_[np.ones(4, int), np.zeros(5, int)]
    s = rng.integers(1, 4, 9) / 4.0
    pred = (s > 0.5).astype(int)
    for measure, pr, fn in (("roc_auc", s, SCORE_FUNCTIONS["roc_auc"]), ("f1", pred, LABEL_FUNCTIONS["f1"])):
        at_least = enumerated_pvalue(fn, y, pr)
        strictly = at_least - enumerated_pvalue(lambda a, b: -abs(fn(a, b) - fn(y, pr)), y, pr)  # P(M* = obs)
        r = bc.permutation_test(measure, y, pr, mid_p=True)
        assert r.method == "exact mid-p" and abs(r.pvalue - (strictly + 0.5 * (at_least - strictly))) < 1e-12


def test_monte_carlo_within_its_error_of_exact():
    rng = np.random.default_rng(9)
    y = np.r_[np.ones(6, int), np.zeros(8, int)]
    s = np.round(np.clip(rng.random(14) + 0.25 * y, 0, 1), 1)
    for measure in ("roc_auc", "pr_auc", "brier"):
        exact = bc.permutation_test(measure, y, s)
        mc = bc.permutation_test(measure, y, s, method="monte-carlo", n_resamples=4000, random_state=1)
        assert mc.method == "monte-carlo" and mc.n_resamples == 4000
        assert abs(mc.pvalue - exact.pvalue_conservative) < 4 * mc.pvalue_standard_error + 1 / 4001
        assert mc.pvalue_conservative == mc.pvalue
        assert abs(mc.null_mean - exact.null_mean) < 4 * exact.null_std / np.sqrt(4000)
    pred = (s > 0.5).astype(int)
    exact = bc.permutation_test("f1", y, pred)
    mc = bc.permutation_test("f1", y, pred, method="monte-carlo", n_resamples=4000)
    assert abs(mc.pvalue - exact.pvalue_conservative) < 4 * mc.pvalue_standard_error + 1 / 4001


def test_several_score_measures_share_the_draws():
    from beyondchance.measures.curves import threshold_counts
    from beyondchance.inference.permutation.permutation_test import (
        permutation_test_of_scores,
        permutation_tests_of_scores,
    )

    rng = np.random.default_rng(10)
    y = rng.integers(0, 2, 150)
    tc = threshold_counts(y, np.clip(rng.random(150) + 0.1 * y, 0, 1))
    names = ("roc_auc", "pr_auc", "lift_auc", "brier")
    together = permutation_tests_of_scores(names, tc, n_resamples=300, random_state=3)
    for name in names:
        assert together[name] == permutation_test_of_scores(name, tc, n_resamples=300, random_state=3)
    binned = permutation_tests_of_scores(names, tc, n_resamples=300, random_state=3, max_bins=20)
    assert set(binned) == set(names)  # a loss of binned scores: the binned loss


@pytest.mark.parametrize("loss", ["brier", "log_loss"])
def test_binned_loss_equals_enumeration(loss):
    """Scores pooled into bins: the test of the loss of the binned scores (each bin's rows
    scored with its middle distinct score) equals full enumeration of that statistic."""
    from beyondchance.measures.curves import threshold_counts
    from beyondchance.inference.permutation.permutation_test import permutation_test_of_scores
    from beyondchance.measures.binary_scores import ScoreCells

    rng = np.random.default_rng(31)
    y = np.r_[np.ones(4, int), np.zeros(6, int)]
    s = rng.random(10) * 0.6 + 0.3 * y
    tc = threshold_counts(y, s)
    cells = ScoreCells.from_counts(tc, max_bins=3)
    sizes = np.rint(cells.pos_units + cells.neg_units).astype(int)
    assert sizes.size == 3 and sizes.sum() == 10
    desc = np.sort(s)[::-1]
    ends = np.cumsum(sizes)
    middle = desc[(ends - sizes + ends - 1) // 2]  # each bin's middle distinct score
    binned_scores = np.empty(10)
    binned_scores[np.argsort(-s)] = np.repeat(middle, sizes)
    fn = SCORE_FUNCTIONS[loss]

    def binned(yy, _):
        return fn(yy, binned_scores)

    r = permutation_test_of_scores(loss, tc, max_bins=3)
    assert r.method == "exact mid-p" and abs(r.statistic - binned(y, s)) < 1e-12
    assert abs(r.pvalue_conservative - enumerated_pvalue(binned, y, s, greater=False)) < 1e-12
    assert abs(r.pvalue - enumerated_pvalue(binned, y, s, greater=False, mid_p=True)) < 1e-12


def test_binomial_form_is_carets_test():
    rng = np.random.default_rng(3)
    y = (rng.random(120) < 0.3).astype(int)
    pred = np.where(rng.random(120) < 0.8, y, 1 - y)
    correct = int(np.sum(pred == y))
    nir = max(y.mean(), 1 - y.mean())
    expected = stats.binomtest(correct, 120, nir, alternative="greater").pvalue
    for measure in ("accuracy", "prediction_advantage"):
        r = bc.permutation_test(measure, y, pred, method="binomial")
        assert abs(r.pvalue - expected) < 1e-12 and r.method == "binomial"
    assert abs(bc.permutation_test("accuracy", y, pred, method="binomial").null_mean - nir) < 1e-12
    with pytest.raises(bc.InvalidInputError, match="binomial"):
        bc.permutation_test("f1", y, pred, method="binomial")


@pytest.mark.parametrize("pi", [0.3, 0.7, 0.5])
def test_mcnemar_against_the_best_constant(pi):
    """McNemar of the model against always predicting the majority class = compare_models'."""
    rng = np.random.default_rng(int(10 * pi))
    n = 200
    y = np.zeros(n, int)
    y[: int(pi * n)] = 1
    pred = np.where(rng.random(n) < 0.75, y, 1 - y)
    majority = int(y.mean() > 0.5)
    const = np.full(n, majority)
    b = int(np.sum((pred == y) & (const != y)))  # model right, constant wrong
    c = int(np.sum((pred != y) & (const == y)))
    expected = stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue
    mid = expected - 0.5 * stats.binom.pmf(b, b + c, 0.5)
    for measure in ("accuracy", "prediction_advantage"):
        r = bc.permutation_test(measure, y, pred, method="mcnemar")
        if pi != 0.5:
            assert abs(r.pvalue_conservative - expected) < 1e-12 and r.method == "mcnemar mid-p"
            assert abs(r.pvalue - mid) < 1e-12
            assert bc.permutation_test(measure, y, pred, method="mcnemar", mid_p=False).pvalue == r.pvalue_conservative
        assert abs(r.statistic - LABEL_FUNCTIONS[measure](y, pred)) < 1e-12
    if pi != 0.5:  # the one-sided p is half compare_models' two-sided one when the model is ahead
        two = bc.compare_models(y, {"constant": const, "model": pred}, metrics=["accuracy"], n_resamples=50)
        assert abs(two.differences[0].pvalue - min(1.0, 2 * min(expected, 1 - expected + stats.binom.pmf(b, b + c, .5)))) < 1e-12
    with pytest.raises(bc.InvalidInputError, match="accuracy and the prediction advantage only"):
        bc.permutation_test("f1", y, pred, method="mcnemar")


def test_mcnemar_type_one_error_at_the_boundary():
    """A predictor as accurate as the majority class (but not constant): rate at level 0.05."""
    rng = np.random.default_rng(77)
    reps, n = 300, 300
    rejected = 0
    for _ in range(reps):
        y = (rng.random(n) < 0.3).astype(int)
        pred = np.where(y == 1, rng.random(n) < 0.7, rng.random(n) < 0.3).astype(int)  # accuracy 0.7 = 1 - π
        rejected += bc.permutation_test("prediction_advantage", y, pred, method="mcnemar").pvalue <= 0.05
    assert 0.02 <= rejected / reps <= 0.09


def test_chance_value_of_average_precision_with_few_positives():
    """At 20 positives a random ranker's average precision lies well above the prevalence."""
    rng = np.random.default_rng(12)
    n, P = 2000, 20
    y = np.zeros(n, int)
    y[:P] = 1
    s = rng.random(n)
    r = bc.permutation_test("pr_auc", y, s, n_resamples=3000, random_state=0)
    shuffled = [skm.average_precision_score(rng.permutation(y), s) for _ in range(600)]
    assert abs(r.null_mean - np.mean(shuffled)) < 4 * np.std(shuffled) / np.sqrt(600)
    assert r.null_mean > 1.25 * P / n  # prevalence 0.01; measured 0.0135
    assert r.null_quantiles[0] <= r.null_quantiles[1] <= r.null_quantiles[2]
    report = bc.evaluate(y, s, n_resamples=300, metrics=["pr_auc"])  # the report says so
    assert any("random ranker's average precision" in note for note in report.notes)


def test_weights_and_bad_input():
    rng = np.random.default_rng(4)
    y = rng.integers(0, 2, 12)
    y[:2] = [0, 1]
    s = rng.random(12)
    w = rng.integers(0, 3, 12)
    w[:2] = 1
    r = bc.permutation_test("roc_auc", y, s, sample_weight=w, method="monte-carlo", n_resamples=500)
    rep = bc.permutation_test("roc_auc", np.repeat(y, w), np.repeat(s, w), method="monte-carlo", n_resamples=500)
    assert r.pvalue == rep.pvalue and r.statistic == rep.statistic
    cont = rng.random(12)  # not frequencies: the (label, weight) rows are permuted
    assert bc.permutation_test("roc_auc", y, s, sample_weight=cont, n_resamples=300).method == "monte-carlo"
    with pytest.raises(bc.InvalidInputError, match="frequency"):
        bc.permutation_test("roc_auc", y, s, sample_weight=cont, method="exact")
    with pytest.raises(bc.InvalidInputError, match="negative"):
        bc.permutation_test("roc_auc", y, s, sample_weight=np.r_[-1.0, cont[1:]])
    with pytest.raises(bc.InvalidInputError, match="NaN"):
        bc.permutation_test("roc_auc", y, s, sample_weight=np.r_[np.nan, cont[1:]])
    with pytest.raises(bc.InvalidInputError, match="single class"):  # the positives all have weight 0
        bc.permutation_test("roc_auc", y, s, sample_weight=np.where(y == 1, 0.0, cont))
    with pytest.raises(bc.InvalidInputError, match="unknown measure"):
        bc.permutation_test("roc_auk", y, s)
    with pytest.raises(bc.InvalidInputError, match="single class"):
        bc.permutation_test("roc_auc", np.ones(12, int), s)
    with pytest.raises(bc.InvalidInputError, match="probabilities"):
        bc.permutation_test("log_loss", y, s * 3)
    with pytest.raises(bc.InvalidInputError, match="max_exact"):
        bc.permutation_test("roc_auc", y, s, method="exact", max_exact=10)


@pytest.mark.parametrize("measure, n, mid_p", [("prediction_advantage", 2000, False), ("f1", 2000, False),
                                               ("mcc", 200, True), ("roc_auc", 200, False), ("pr_auc", 200, False)])
def test_type_one_error(measure, n, mid_p):
    """Random labels, predictions independent of them: rejection rate at level 0.05.  The exact
    tests of labels are conservative at small n (0.0295 for PA at n = 200 over 2,000 replicates,
    benchmarks/sim_tests.py): tested at n = 2,000, and with the mid-p-value at n = 200."""
    rng = np.random.default_rng(sum(map(ord, measure)))
    reps = 300
    rejected = 0
    for _ in range(reps):
        y = rng.integers(0, 2, n)
        s = rng.random(n)
        pred = (s < rng.uniform(0.2, 0.8)).astype(int) if measure in bc.measures.METRICS else s
        r = bc.permutation_test(measure, y, pred, n_resamples=400, random_state=rng, mid_p=mid_p)
        rejected += r.pvalue <= 0.05
    assert 0.02 <= rejected / reps <= 0.09


def test_report_pvalues_of_many_distinct_scores_pool_them():
    """Beyond MAX_SCORE_BINS distinct scores the report's permutation test of the AUCs pools
    the scores into PERMUTATION_BINS bins of equal row count (the same test as
    permutation_tests_of_scores with those bins and the report's seed); up to it, one cell
    per distinct score (the bootstrap's cells)."""
    from beyondchance.measures.curves import threshold_counts
    from beyondchance.inference.permutation.permutation_test import permutation_tests_of_scores
    from beyondchance.report.pvalues import PERMUTATION_BINS
    from beyondchance.report.intervals import MAX_SCORE_BINS

    rng = np.random.default_rng(21)
    y = (rng.random(4000) < 0.3).astype(int)
    s = rng.random(4000) * 0.9 + 0.005 * y  # 4000 distinct scores, a weak ranking (p about 0.1: 200 and 1000 bins differ)
    r = bc.evaluate(y, s, n_resamples=300, metrics=["roc_auc", "pr_auc"])
    ref = permutation_tests_of_scores(("roc_auc", "pr_auc"), threshold_counts(y, s), n_resamples=300,
                                      random_state=0, max_bins=PERMUTATION_BINS)
    for name in ("roc_auc", "pr_auc"):
        assert r[name].pvalue == ref[name].pvalue and "300 Monte Carlo" in r[name].pvalue_method
    few = np.round(s, 2)  # at most 101 distinct scores: one cell each
    r = bc.evaluate(y, few, n_resamples=300, metrics=["roc_auc"])
    ref = permutation_tests_of_scores(("roc_auc",), threshold_counts(y, few), n_resamples=300, random_state=0,
                                      max_bins=MAX_SCORE_BINS)
    assert r["roc_auc"].pvalue == ref["roc_auc"].pvalue


def test_report_pvalues_from_its_statistics():
    rng = np.random.default_rng(8)
    y = rng.integers(0, 2, 300)
    s = np.clip(0.5 + 0.1 * (2 * y - 1) + rng.normal(0, 0.3, 300), 0, 1)
    r = bc.evaluate(y, s, ci=False, metrics=["f1", "roc_auc", "pure_accuracy"])
    for m in ("f1", "pure_accuracy", "npv"):
        assert r.permutation_test(m).pvalue == bc.permutation_test(m, y, s).pvalue
    # accuracy and PA: "better than the constant" = McNemar against always predicting the majority class
    assert r.permutation_test("accuracy").pvalue == bc.permutation_test("accuracy", y, s, method="mcnemar").pvalue
    a = r.permutation_test("roc_auc")
    b = bc.permutation_test("roc_auc", y, s)
    assert a.pvalue == b.pvalue and a.method == "monte-carlo"
    with pytest.raises(bc.InvalidInputError, match="weighted"):
        bc.evaluate(y, s, ci=False, sample_weight=rng.random(300)).permutation_test("f1")
    # the p-values and one-sided bounds in the report's rows (with intervals)
    full = bc.evaluate(y, s, n_resamples=500, metrics=["f1", "roc_auc", "prediction_advantage", "log_loss"])
    assert full["f1"].pvalue == r.permutation_test("f1").pvalue
    assert full["prediction_advantage"].pvalue == r.permutation_test("prediction_advantage").pvalue
    auc = bc.permutation_test("roc_auc", y, s, n_resamples=500, random_state=0)
    assert full["roc_auc"].pvalue == auc.pvalue and "500 Monte Carlo" in full["roc_auc"].pvalue_method
    for m in full.metrics.values():
        lo, hi = m.ci.bounds
        assert m.ci.low <= lo <= hi <= m.ci.high  # the one-sided 95% bounds lie inside the 95% interval
        assert m.confidence_bound == (lo if m.greater_is_better else hi)
        assert m.to_dict()["pvalue"] == m.pvalue
    weighted = bc.evaluate(y, s, n_resamples=500, sample_weight=rng.random(300))["f1"]  # rows permuted
    assert 0 < weighted.pvalue <= 1 and "500 Monte Carlo" in weighted.pvalue_method
    # shown beside the interval in every rendering
    from beyondchance.report.render.terminal import render_report_text

    f1 = full["f1"]
    cell = f"{f1.pvalue:.3f}" if f1.pvalue >= 0.001 else f"{f1.pvalue:.1e}"
    assert "| p (chance) |" in full._repr_markdown_() and "<th>p (chance)</th>" in full.to_html()
    assert cell in render_report_text(full, width=160, details=True) and f"≥ {f1.confidence_bound:.3f}" in full._repr_markdown_()


def test_multiclass_from_the_confusion_matrix():
    from beyondchance.inference.permutation.permutation_test import permutation_test_of_matrix

    rng = np.random.default_rng(31)
    n = 240
    y = rng.integers(0, 3, n)
    pred = np.where(rng.random(n) < 0.25, y, rng.integers(0, 3, n))
    r = bc.evaluate(y, pred, n_resamples=300)
    cm = r.confusion.matrix
    for name in ("balanced_accuracy", "precision", "f1", "mcc", "kappa"):  # the row's own definition
        t = permutation_test_of_matrix(name, cm, n_resamples=300, random_state=0)
        assert abs(t.statistic - r[name].value) < 1e-12 and r[name].pvalue == t.pvalue
    # the Monte Carlo null of the tables = shuffling the labels against the predictions
    t = permutation_test_of_matrix("f1", cm, n_resamples=3000, random_state=1)
    direct = np.array([skm.f1_score(rng.permutation(y), pred, average="macro") for _ in range(1500)])
    p_direct = np.mean(direct >= t.statistic - 1e-12)
    assert abs(t.pvalue - p_direct) < 4 * np.sqrt(p_direct * (1 - p_direct) / 1500 + t.pvalue_standard_error ** 2) + 1e-3
    assert abs(t.null_mean - direct.mean()) < 4 * direct.std() / np.sqrt(1500)
    # accuracy and PA: McNemar against always predicting the majority class
    major = np.bincount(y).argmax()
    right, const_right = pred == y, y == major
    b, c = int(np.sum(right & ~const_right)), int(np.sum(~right & const_right))
    expected = stats.binomtest(b, b + c, 0.5, alternative="greater").pvalue - 0.5 * stats.binom.pmf(b, b + c, 0.5)
    assert abs(r["accuracy"].pvalue - expected) < 1e-12 and abs(r["prediction_advantage"].pvalue - expected) < 1e-12
    assert r.check("pvalue(mcc) <= 1").requirements[0].measured == r["mcc"].pvalue


def test_multiclass_type_one_error():
    from beyondchance.inference.permutation.permutation_test import permutation_test_of_matrix

    rng = np.random.default_rng(32)
    reps, rejected = 300, 0
    for _ in range(reps):
        y, pred = rng.integers(0, 3, 150), rng.integers(0, 3, 150)
        cm = np.zeros((3, 3))
        np.add.at(cm, (y, pred), 1)
        rejected += permutation_test_of_matrix("mcc", cm, n_resamples=200, random_state=rng).pvalue <= 0.05
    assert 0.02 <= rejected / reps <= 0.09
