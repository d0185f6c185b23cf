"""The permutation CLT of the log loss and Brier score (beyondchance.inference.permutation.loss)."""

from __future__ import annotations

import itertools

import numpy as np
import pandas as pd
import pytest

from beyondchance._warnings import InvalidInputError
from beyondchance.measures.losses import get_loss
from beyondchance.inference.permutation.loss import PermutationLossSums, class_losses
from beyondchance.report import evaluate


def _loss_sum(loss: str, codes: np.ndarray, proba: np.ndarray, w: np.ndarray) -> float:
    """Σ_j w_j ℓ(p_j, y_j) with the library's per-row losses."""
    name = "cross_entropy" if loss == "log_loss" else loss
    return float(np.dot(w, get_loss(name).sample_losses_proba(proba, codes)))


@pytest.mark.parametrize("loss", ["log_loss", "brier"])
@pytest.mark.parametrize("n", [4, 6, 7])
def test_moments_equal_the_exact_permutation_moments(loss, n):
    """Mean and variance of the weighted loss sum over all n! permutations of the (label,
    weight) pairs against the probability rows (3 classes, weighted, a tiny probability clipped)."""
    rng = np.random.default_rng(n)
    proba = rng.dirichlet(np.ones(3) * 0.7, size=n)
    proba[0] = [1.0, 0.0, 0.0]  # the log loss's clipping
    codes, w = rng.integers(0, 3, n), rng.exponential(size=n)
    w[1] = 0.0  # a zero weight: its prediction is permuted too
    values = np.array([_loss_sum(loss, codes[list(p)], proba, w[list(p)])
                       for p in itertools.permutations(range(n))])
    sums = PermutationLossSums.of_proba(codes, proba, w)
    mean, var = sums.moments(loss)
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    assert var == pytest.approx(values.var(), rel=1e-9)
    assert sums.observed[loss] == pytest.approx(_loss_sum(loss, codes, proba, w), rel=1e-12)


@pytest.mark.parametrize("loss", ["log_loss", "brier"])
def test_binary_scores_moments_exact(loss):
    """Binary scores (K = 2, the binary report's losses): exact moments at n = 7."""
    from beyondchance.measures.binary_scores import loss_terms

    rng = np.random.default_rng(3)
    n = 7
    s, y, w = rng.random(n), rng.integers(0, 2, n) == 1, rng.exponential(size=n)
    pos, neg = loss_terms(s, loss)

    def total(yy, ww):
        return float(np.dot(ww, np.where(yy, pos, neg)))

    values = np.array([total(y[list(p)], w[list(p)]) for p in itertools.permutations(range(n))])
    sums = PermutationLossSums.of_scores(y, s, w)
    mean, var = sums.moments(loss)
    assert mean == pytest.approx(values.mean(), rel=1e-12)
    assert var == pytest.approx(values.var(), rel=1e-9)
    assert sums.observed[loss] == pytest.approx(total(y, w), rel=1e-12)


def test_class_losses_are_the_library_losses():
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(4), size=50)
    proba[0] = [0, 0, 1, 0]
    for loss, name in (("log_loss", "cross_entropy"), ("brier", "brier")):
        table = class_losses(proba, loss)
        for k in range(4):
            np.testing.assert_array_equal(table[:, k], get_loss(name).sample_losses_proba(proba, np.full(50, k)))


def test_merge_and_chunks():
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), size=300)
    codes, w = rng.integers(0, 3, 300), rng.exponential(size=300)
    whole = PermutationLossSums.of_proba(codes, proba, w)
    parts = [PermutationLossSums.of_proba(codes[i::3], proba[i::3], w[i::3]) for i in range(3)]
    merged = parts[0] + parts[1] + parts[2]
    for loss in ("log_loss", "brier"):
        a, b = whole.test(loss), merged.test(loss)
        assert a.pvalue == pytest.approx(b.pvalue, rel=1e-9) and a.null_std == pytest.approx(b.null_std, rel=1e-9)
    assert merged.to_dict()["n"] == 300


def test_constant_predictions_give_p_one():
    proba = np.tile([0.2, 0.3, 0.5], (40, 1))
    rng = np.random.default_rng(2)
    r = PermutationLossSums.of_proba(rng.integers(0, 3, 40), proba, rng.exponential(size=40)).test("brier")
    assert r.pvalue == 1.0 and r.null_std == 0.0


def _agree(clt, mc, slack=0.01):
    """The CLT's p-value within 4 Monte Carlo standard errors of the row test's (plus slack)."""
    return abs(clt.pvalue - mc.pvalue) <= 4 * mc.pvalue_standard_error + slack


def _weak_probabilities(n, seed, signal=0.03):
    """3-class probability rows with a weak signal, exponential weights."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    logits = rng.normal(size=(n, 3)) * 0.8
    logits[np.arange(n), y] += signal * 10
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    return y, proba, rng.exponential(size=n)


@pytest.mark.parametrize("seed", [11, 12])
def test_clt_agrees_with_the_row_permutation_test(seed):
    """n = 2,000, weighted 3-class probabilities and binary scores, weak signal: the CLT's
    p-values, null mean and sd are the row Monte Carlo test's (4,000 draws) within its error."""
    from beyondchance.inference.permutation.rows import binary_statistic, probabilities_statistic, row_permutation_tests

    n = 2000
    y, proba, w = _weak_probabilities(n, seed, signal=0.004)  # p-values from 0.05 to 0.3
    names = ("log_loss", "brier")
    mc = row_permutation_tests(probabilities_statistic(y, proba, w, names), n, dict.fromkeys(names, False),
                               n_resamples=4000, random_state=seed)
    sums = PermutationLossSums.of_proba(y, proba, w)
    is_pos, s = y == 0, proba[:, 0]
    mcb = row_permutation_tests(binary_statistic(is_pos, w, scores=s, names=names), n,
                                dict.fromkeys(names, False), n_resamples=4000, random_state=seed)
    binary = PermutationLossSums.of_scores(is_pos, s, w)
    for nm in names:
        for clt, ref in ((sums.test(nm), mc[nm]), (binary.test(nm), mcb[nm])):
            assert clt.statistic == pytest.approx(ref.statistic, rel=1e-12), nm
            assert _agree(clt, ref), (nm, clt.pvalue, ref.pvalue)
            assert clt.null_std == pytest.approx(ref.null_std, rel=0.06), nm
            assert abs(clt.null_mean - ref.null_mean) < 0.1 * ref.null_std, nm
    assert 0.01 < min(mc[nm].pvalue for nm in names) < 0.5  # p-values in the range where they matter


def quick_rejection_rate(seed, pvalue, case):
    """The share of 300 null replicates (3 classes of equal prevalence independent of
    Dirichlet(1) probability rows, n = 200, exponential weights) with ``pvalue(y, proba, w)``
    at most 0.05; the seed and the rate printed."""
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    rejected = 0
    for _ in range(300):
        y, w = rng.integers(0, 3, 200), rng.exponential(size=200)
        rejected += pvalue(y, rng.dirichlet(np.ones(3), size=200), w) <= 0.05
    print(f"{case}: rejection rate {rejected / 300:.4f} of 300 (seed {seed})")
    return rejected / 300


QUICK_SEED = 20151


@pytest.mark.parametrize("case", ["log_loss", "brier", "binary log_loss"])
def test_type_one_error_quick(case):
    """300 null replicates (labels independent of the probabilities, exponential weights, n =
    200), level 0.05: the loss CLT's rejection rate within [0.02, 0.09]."""
    seed = QUICK_SEED + ("log_loss", "brier", "binary log_loss").index(case)

    def pvalue(y, proba, w):
        if case.startswith("binary"):
            return PermutationLossSums.of_scores(y == 0, proba[:, 0], w).test(case.split()[-1]).pvalue
        return PermutationLossSums.of_proba(y, proba, w).test(case).pvalue

    rate = quick_rejection_rate(seed, pvalue, case)
    assert 0.02 <= rate <= 0.09, rate


def test_many_classes_have_no_sums():
    """Beyond MAX_LOSS_CLASSES classes the K × K cross moments are not summed."""
    from beyondchance.engines.memory import probability_statistics
    from beyondchance.inference.permutation.loss import MAX_LOSS_CLASSES

    k = MAX_LOSS_CLASSES + 1
    rng = np.random.default_rng(0)
    proba = rng.dirichlet(np.ones(k), size=3 * k)
    stats = probability_statistics(np.arange(3 * k) % k, proba, np.arange(k), None)
    assert stats.permutation_loss_sums is None and stats.loss_sums is not None


def _reports(frame, engine, spark=None, proba=("p0", "p1", "p2"), **options):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src = frame if spark is None else spark.createDataFrame(frame)
        eng = evaluate(data=src, y_true="y", y_score=list(proba), engine=engine, n_resamples=300,
                              random_state=7, session=spark, **options)
        weight = options.get("sample_weight")
        mem = evaluate(frame["y"].to_numpy(), frame[list(proba)].to_numpy(), n_resamples=300, random_state=7,
                       sample_weight=None if weight is None else frame[weight].to_numpy())
    return eng, mem


def _frame(n, seed):
    y, proba, w = _weak_probabilities(n, seed, signal=0.01)
    return pd.DataFrame({"y": y, "p0": proba[:, 0], "p1": proba[:, 1], "p2": proba[:, 2], "w": w,
                         "yb": (y == 0).astype(int)})


@pytest.mark.parametrize("weight", ["w", None])
def test_duckdb_gives_the_memory_loss_pvalue_beyond_the_budget(weight, monkeypatch):
    """3-class probabilities: DuckDB's log loss and Brier p-values (the CLT from its sums)
    equal the memory report's beyond the row budget (the CLT from the rows)."""
    pytest.importorskip("duckdb")
    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 3000)
    eng, mem = _reports(_frame(3000, 4), "duckdb", sample_weight=weight)
    for nm in ("log_loss", "brier"):
        assert mem[nm].pvalue is not None and "CLT of the loss" in mem[nm].pvalue_method, nm
        assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), nm
        assert eng[nm].pvalue_method == mem[nm].pvalue_method
    assert eng["pr_auc"].pvalue == pytest.approx(mem["pr_auc"].pvalue, rel=1e-9)  # the APs' CLT (permutation_ap)


def test_duckdb_weighted_binned_scores_get_the_loss_test(monkeypatch):
    """Weighted binary scores binned on DuckDB (--score-bins) beyond the row budget (within it
    the engine fetches the rows for memory's row test): no cells, so the losses' CLT."""
    pytest.importorskip("duckdb")
    import warnings

    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 2000)
    frame = _frame(2000, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = evaluate(data=frame, y_true="yb", y_score="p0", sample_weight="w", engine="duckdb", n_resamples=300,
                            score_bins=100)
    sums = PermutationLossSums.of_scores(frame["yb"].to_numpy() == 1, frame["p0"].to_numpy(), frame["w"].to_numpy())
    for nm in ("log_loss", "brier"):  # the row shows the loss of the binned scores; the test is the exact loss's
        assert r[nm].value == pytest.approx(sums.test(nm).statistic, rel=0.01)
        assert r[nm].pvalue == pytest.approx(sums.test(nm).pvalue, rel=1e-9) and "asymptotic" in r[nm].pvalue_method


def test_spark_sums_equal_the_memory_sums(spark):
    from beyondchance.engines import compute_statistics

    frame = _frame(500, 6)
    kw = dict(y_true="y", y_proba=["p0", "p1", "p2"], sample_weight="w")
    a = compute_statistics(frame, engine="memory", **kw).permutation_loss_sums
    b = compute_statistics(spark.createDataFrame(frame), engine="spark", **kw).permutation_loss_sums
    assert a.n == b.n
    for nm in ("log_loss", "brier"):
        np.testing.assert_allclose(b.second[nm], a.second[nm], rtol=1e-10)
        assert b.test(nm).pvalue == pytest.approx(a.test(nm).pvalue, rel=1e-9)


def test_bad_rows_are_errors_not_numbers():
    """A negative weight or a NaN score was summed into a p-value (0.565, 0.327) or gave nan;
    the CLTs of the loss, the AUC and the absolute error now refuse them."""
    from beyondchance.inference.permutation.absolute_error import absolute_loss_test
    from beyondchance.inference.permutation.auc import PermutationAUCSums

    y, proba, w = _weak_probabilities(60, 5)
    w[0] = -1.0
    calls = [lambda: PermutationLossSums.of_proba(y, proba, w), lambda: PermutationAUCSums.of_proba(y, proba, w),
             lambda: absolute_loss_test(proba[:, 0], proba[:, 1], w),
             lambda: PermutationLossSums.of_scores(y == 0, np.r_[np.nan, proba[1:, 0]], None),
             lambda: absolute_loss_test(np.r_[np.nan, proba[1:, 0]], proba[:, 1])]
    for call in calls:
        with pytest.raises(InvalidInputError):
            call()
