"""The permutation CLT of the one-vs-rest ROC AUCs of class probabilities
(beyondchance.inference.permutation.auc): its mean and variance against the exact permutation law and
Monte Carlo permutations, its p-value against the row test, memory against the engines
beyond the row budget, and its type-I error."""

import itertools

import numpy as np
import pandas as pd
import pytest

from beyondchance._warnings import InvalidInputError
from beyondchance.inference.permutation.auc import AUC_NAMES, PermutationAUCSums, mid_rank_fractions
from beyondchance.inference.permutation.rows import probabilities_statistic, row_permutation_tests
from beyondchance.report import evaluate
from test_permutation_loss import _weak_probabilities, quick_rejection_rate

NAMES = AUC_NAMES


def _weak(n, seed, signal=0.003):
    """3-class probability rows with a weak signal, exponential weights."""
    return _weak_probabilities(n, seed, signal)


def test_mid_rank_fractions_and_observed_auc():
    assert mid_rank_fractions([0.3, 0.1, 0.3, 0.9]).tolist() == [0.5, 0.125, 0.5, 0.875]
    y, proba, w = _weak(300, 1, signal=0.05)
    sums = PermutationAUCSums.of_proba(y, proba, w)
    stat = probabilities_statistic(y, proba, w, NAMES)(np.arange(300)[None])
    for nm in NAMES:  # the per-class AUCs combine into the row permutation test's statistic
        assert sums.value(nm) == pytest.approx(float(stat[nm][0]), rel=1e-12)
    assert np.allclose(sums.first, 150.0)  # Σ_i R_k(i) = n/2


ENUM = np.array(list(itertools.permutations(range(8))))


@pytest.mark.parametrize("seed", range(6))
def test_moments_against_every_permutation(seed):
    """n = 8 (all 40,320 permutations): the mean is ½ exactly; unweighted the AUC is a
    linear rank statistic and the projection variance is the exact variance; weighted
    (ties every other seed) the projection's is 0.90–0.99 of the exact variance (20 seeds:
    median 0.96) — the degenerate part of the Hoeffding decomposition, O(1/n) relative."""
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(3), size=8)
    if seed % 2:
        proba = np.round(proba, 1)
    y = rng.permutation([0, 0, 0, 1, 1, 1, 2, 2])
    w = rng.exponential(size=8)
    for weight in (None, w):
        sums = PermutationAUCSums.of_proba(y, proba, weight)
        values = probabilities_statistic(y, proba, weight, NAMES)(ENUM)
        for nm in NAMES:
            mean, var = sums.moments(nm)
            assert values[nm].mean() == pytest.approx(mean, abs=1e-12)
            ratio = var / values[nm].var()
            if weight is None:
                assert ratio == pytest.approx(1.0, rel=1e-9), nm
            else:
                assert 0.88 < ratio <= 1.0 + 1e-9, (nm, ratio)


def test_moments_against_monte_carlo_permutations():
    """n = 2,000 weighted: 4,000 Monte Carlo permutations' mean and variance are the CLT's
    within their sampling error (variance ratio ± 4·sqrt(2/B))."""
    n, draws = 2000, 4000
    y, proba, w = _weak(n, 3, signal=0.0)
    sums = PermutationAUCSums.of_proba(y, proba, w)
    stat = probabilities_statistic(y, proba, w, NAMES)
    rng = np.random.default_rng(3)
    vals = {nm: [] for nm in NAMES}
    for _ in range(draws // 500):
        for nm, v in stat(rng.permuted(np.broadcast_to(np.arange(n), (500, n)), axis=1)).items():
            vals[nm].append(v)
    for nm in NAMES:
        v = np.concatenate(vals[nm])
        mean, var = sums.moments(nm)
        assert abs(v.mean() - mean) < 4 * np.sqrt(var / draws), nm
        assert abs(v.var() / var - 1) < 4 * np.sqrt(2 / draws), (nm, v.var() / var)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_pvalue_agrees_with_the_row_permutation_test(seed):
    """n = 2,000 weighted, weak signal (p from 0.1 to 0.3): the CLT's p-value is the row Monte
    Carlo test's (4,000 draws) within 4 of its standard errors plus 0.01."""
    n = 2000
    y, proba, w = _weak(n, seed)
    mc = row_permutation_tests(probabilities_statistic(y, proba, w, NAMES), n, dict.fromkeys(NAMES, True),
                               n_resamples=4000, random_state=seed)
    sums = PermutationAUCSums.of_proba(y, proba, w)
    for nm in NAMES:
        clt = sums.test(nm)
        assert clt.statistic == pytest.approx(mc[nm].statistic, rel=1e-12)
        assert abs(clt.pvalue - mc[nm].pvalue) <= 4 * mc[nm].pvalue_standard_error + 0.01, (nm, clt.pvalue,
                                                                                           mc[nm].pvalue)
        assert clt.null_std == pytest.approx(mc[nm].null_std, rel=0.06)
    assert 0.05 < sums.test("roc_auc").pvalue < 0.3


def test_a_class_without_weight_has_no_test():
    y, proba, _ = _weak(50, 2)
    sums = PermutationAUCSums.of_proba(np.where(y == 2, 0, y), proba, None)
    with pytest.raises(InvalidInputError, match="positive weight in every class"):
        sums.test("roc_auc")
    constant = PermutationAUCSums.of_proba(y, np.full((50, 3), 1 / 3), None)
    assert constant.test("roc_auc").pvalue == 1.0


def _frame(n, seed):
    y, proba, w = _weak(n, seed)
    return pd.DataFrame({"y": y, "p0": proba[:, 0], "p1": proba[:, 1], "p2": proba[:, 2], "w": w})


def _reports(frame, engine, spark=None, **options):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        src = frame if spark is None else spark.createDataFrame(frame)
        eng = evaluate(data=src, y_true="y", y_score=["p0", "p1", "p2"], engine=engine, n_resamples=300,
                              random_state=7, session=spark, **options)
        weight = options.get("sample_weight")
        mem = evaluate(frame["y"].to_numpy(), frame[["p0", "p1", "p2"]].to_numpy(), n_resamples=300,
                       random_state=7, sample_weight=None if weight is None else frame[weight].to_numpy())
    return eng, mem


@pytest.mark.parametrize("weight", ["w", None])
def test_duckdb_gives_the_memory_pvalue_beyond_the_budget(weight, monkeypatch):
    """Beyond the row budget the memory report's ROC AUC p-values (ranks of the rows) equal
    DuckDB's (the rank query)."""
    pytest.importorskip("duckdb")
    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 3000)
    eng, mem = _reports(_frame(3000, 4), "duckdb", sample_weight=weight)
    for nm in NAMES:
        assert mem[nm].pvalue is not None and "CLT of the one-vs-rest AUC" in mem[nm].pvalue_method, nm
        assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), nm
        assert eng[nm].pvalue_method == mem[nm].pvalue_method
    for nm in ("pr_auc", "pr_auc_weighted"):  # the CLT of the one-vs-rest tables (permutation_ap)
        assert mem[nm].pvalue is not None and "one-vs-rest tables" in mem[nm].pvalue_method
        assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), nm


def test_duckdb_binned_ranks_are_the_binned_aucs(monkeypatch):
    """--score-bins: the ranks are those of the bins floor(p · bins), whose AUC the report
    shows — the sums of the rank query equal of_proba(score_bins=…) of the rows."""
    pytest.importorskip("duckdb")
    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 3000)
    frame = _frame(3000, 5)
    eng, _ = _reports(frame, "duckdb", sample_weight="w", score_bins=20)
    sums = PermutationAUCSums.of_proba(frame["y"].to_numpy(), frame[["p0", "p1", "p2"]].to_numpy(),
                                       frame["w"].to_numpy(), score_bins=20)
    for nm in NAMES:
        assert eng[nm].value == pytest.approx(sums.value(nm), rel=1e-12)
        assert eng[nm].pvalue == pytest.approx(sums.test(nm).pvalue, rel=1e-9)


def test_rank_query_sums_equal_the_memory_sums():
    """The sums of auc_rank_query on DuckDB are those of the rows in memory."""
    duckdb = pytest.importorskip("duckdb")
    from beyondchance.engines.sql_permutation import auc_rank_query, auc_sums_of_query

    frame = _frame(1000, 6)
    frame["p1"] = np.round(frame["p1"], 2)  # ties
    con = duckdb.connect()
    con.register("t", frame)
    rows = "SELECT y, w, p0 AS c0, p1 AS c1, p2 AS c2 FROM t"
    r = {k: np.asarray(v) for k, v in con.execute(auc_rank_query(rows, 3)).fetchdf().to_dict("list").items()}
    got = auc_sums_of_query(r, 3, lambda y: np.asarray(y, dtype=np.intp), np.arange(3))
    ref = PermutationAUCSums.of_proba(frame["y"], frame[["p0", "p1", "p2"]].to_numpy(), frame["w"].to_numpy())
    np.testing.assert_allclose(got.second, ref.second, rtol=1e-12)
    np.testing.assert_allclose(got.weights, ref.weights, rtol=1e-12)
    np.testing.assert_allclose(got.squares, ref.squares, rtol=1e-12)


def test_spark_gives_the_memory_pvalue_beyond_the_budget(spark, monkeypatch):
    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 600)
    eng, mem = _reports(_frame(600, 8), "spark", spark=spark, sample_weight="w")
    for nm in NAMES:
        assert "CLT of the one-vs-rest AUC" in mem[nm].pvalue_method, nm
        assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), nm


QUICK_SEED = 31415


@pytest.mark.parametrize("case", ["roc_auc", "roc_auc_weighted", "roc_auc unweighted"])
def test_type_one_error_quick(case):
    """300 null replicates (labels independent of Dirichlet(1) probabilities, n = 200,
    exponential weights or none), level 0.05: the rejection rate within [0.02, 0.09]."""
    seed = QUICK_SEED + ("roc_auc", "roc_auc_weighted", "roc_auc unweighted").index(case)

    def pvalue(y, proba, w):
        return PermutationAUCSums.of_proba(y, proba, None if case.endswith("unweighted") else w).test(
            case.split()[0]).pvalue

    rate = quick_rejection_rate(seed, pvalue, case)
    assert 0.02 <= rate <= 0.09, rate
