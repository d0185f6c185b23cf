"""The joint permutation CLT of the one-vs-rest tables of class probabilities
(beyondchance.inference.permutation.average_precision): its moments against the exact permutation law and its normal
draws, its p-value against the row test, the report beyond the row budget, and its type-I
error."""

import itertools

import numpy as np
import pytest

from beyondchance.inference.permutation.average_precision import (
    AP_CLT_METHOD,
    AP_NAMES,
    PermutationAPTables,
    ap_bins_per_column,
    ap_clt_tests,
    bins_of_counts,
    column_bins,
)
from beyondchance.inference.permutation.rows import probabilities_statistic, row_permutation_tests
from beyondchance.report import evaluate
from test_permutation_auc import _frame, _reports
from test_permutation_loss import _weak_probabilities

NAMES = AP_NAMES


def _weak(n, seed, signal=0.003):
    """3-class probability rows with a weak signal, exponential weights."""
    return _weak_probabilities(n, seed, signal)


def _indicators(proba, bins):
    """(n, D) A: the one-hot vectors of each row's bins, concatenated over the columns."""
    cols = [column_bins(proba[:, j], bins) for j in range(proba.shape[1])]
    off = np.r_[0, np.cumsum([m for _, m in cols])]
    a = np.zeros((proba.shape[0], off[-1]))
    for j, (b, _) in enumerate(cols):
        a[np.arange(proba.shape[0]), off[j] + b] = 1
    return a


def test_column_bins_pool_adjacent_scores():
    b, m = column_bins([0.1, 0.9, 0.5, 0.5, 0.2], 2)
    assert (b.tolist(), m) == ([1, 0, 0, 0, 1], 2)
    b, m = column_bins([0.3, 0.1, 0.3], 5)  # fewer distinct scores than bins: one bin each, by decreasing score
    assert (b.tolist(), m) == ([0, 1, 0], 2)
    assert bins_of_counts([2, 1, 1, 1], 2).tolist() == [0, 0, 1, 1]
    assert (ap_bins_per_column(3), ap_bins_per_column(10), ap_bins_per_column(100)) == (100, 60, 10)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_moments_against_every_permutation(seed):
    """n = 7, 3 classes, every column pooled into 3 bins (ties in one), exponential weights:
    E T and S_A ⊗ S_a / (n − 1) equal the mean and covariance of T over all 5,040
    permutations of the (label, weight) pairs."""
    rng = np.random.default_rng(seed)
    n = 7
    proba = rng.dirichlet(np.ones(3), n)
    proba[:3, 1] = 0.25  # ties
    codes = np.array([0, 1, 2, 0, 1, 2, int(rng.integers(0, 3))])
    w = rng.exponential(size=n)
    t = PermutationAPTables.of_proba(codes, proba, w, bins=3)
    a_rows = _indicators(proba, 3)
    pairs = np.zeros((n, 3))
    pairs[np.arange(n), codes] = w
    np.testing.assert_allclose(t.weights, a_rows.T @ pairs, atol=1e-12)
    np.testing.assert_allclose(t.cross, a_rows.T @ a_rows, atol=1e-12)
    tables = np.array([a_rows.T @ pairs[list(p)] for p in itertools.permutations(range(n))])
    mean, cov = t.moments()
    centred = tables - tables.mean(axis=0)
    exact = np.einsum("pdk,pel->dkel", centred, centred) / tables.shape[0]
    np.testing.assert_allclose(tables.mean(axis=0), mean, atol=1e-12)
    np.testing.assert_allclose(exact, cov, atol=1e-12)


def test_draws_have_the_moments():
    """20,000 normal draws of n = 7 tables: their mean and covariance are E T and
    S_A ⊗ S_a / (n − 1) within Monte Carlo error, and every draw keeps each class's total in
    every column."""
    rng = np.random.default_rng(5)
    proba = rng.dirichlet(np.ones(3), 7)
    codes, w = np.array([0, 1, 2, 0, 1, 2, 2]), rng.exponential(size=7)
    t = PermutationAPTables.of_proba(codes, proba, w, bins=3)
    mean, cov = t.moments()
    d = t.draw(20_000, np.random.default_rng(0))
    sd = np.sqrt(np.einsum("dkdk->dk", cov))
    assert np.all(np.abs(d.mean(axis=0) - mean) <= 4.5 * sd / np.sqrt(20_000) + 1e-12)
    emp = np.einsum("pdk,pel->dkel", d - mean, d - mean) / 20_000
    scale = np.sqrt(np.einsum("dk,el->dkel", sd**2, sd**2))
    assert np.all(np.abs(emp - cov) <= 5 * scale * np.sqrt(2 / 20_000) + 1e-12)
    off = t.offsets
    for j in range(3):
        np.testing.assert_allclose(d[:, off[j]:off[j + 1]].sum(axis=1), np.broadcast_to(t.class_weights(), (20_000, 3)),
                                   atol=1e-9)


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_pvalue_agrees_with_the_row_permutation_test(seed):
    """n = 3,000 weighted, weak signal: the CLT's p-value (the binned AP, 2,000 normal draws)
    is the row Monte Carlo test's (the exact AP, 4,000 permutations) within 4 of their
    standard errors plus 0.02; the binned AP within 0.005 of the exact one."""
    n = 3000
    y, proba, w = _weak(n, seed)
    mc = row_permutation_tests(probabilities_statistic(y, proba, w, NAMES), n, dict.fromkeys(NAMES, True),
                               n_resamples=4000, random_state=seed)
    clt = ap_clt_tests(PermutationAPTables.of_proba(y, proba, w), NAMES, n_resamples=2000, random_state=seed)
    ps = []
    for nm in NAMES:
        assert clt[nm].method == AP_CLT_METHOD
        assert clt[nm].statistic == pytest.approx(mc[nm].statistic, abs=0.005)
        se = np.hypot(mc[nm].pvalue_standard_error, clt[nm].pvalue_standard_error)
        assert abs(clt[nm].pvalue - mc[nm].pvalue) <= 4 * se + 0.02, (nm, clt[nm].pvalue, mc[nm].pvalue)
        assert clt[nm].null_std == pytest.approx(mc[nm].null_std, rel=0.1)
        ps.append((clt[nm].pvalue, mc[nm].pvalue))
    print(f"seed {seed}: (CLT, rows) p-values {ps}")


def test_a_class_without_weight_has_no_test():
    y, proba, _ = _weak(50, 2)
    t = PermutationAPTables.of_proba(np.where(y == 2, 0, y), proba, None)
    from beyondchance._warnings import InvalidInputError

    with pytest.raises(InvalidInputError, match="positive weight in every class"):
        ap_clt_tests(t, ("pr_auc",), n_resamples=100)


@pytest.mark.parametrize("weight", ["w", None])
def test_report_beyond_the_budget_gets_the_pvalue(weight, monkeypatch):
    """Beyond the row budget the memory report's average precisions get the CLT's p-value —
    that of ap_clt_tests of the rows with the report's seed and resamples."""
    import warnings

    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 3000)
    frame = _frame(3000, 4)
    y, proba = frame["y"].to_numpy(), frame[["p0", "p1", "p2"]].to_numpy()
    w = None if weight is None else frame[weight].to_numpy()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        mem = evaluate(y, proba, n_resamples=300, random_state=7, sample_weight=w)
    ref = ap_clt_tests(PermutationAPTables.of_proba(y, proba, w), NAMES, n_resamples=300, random_state=7)
    for nm in NAMES:
        assert mem[nm].pvalue == pytest.approx(ref[nm].pvalue, rel=1e-12), nm
        assert "one-vs-rest tables" in mem[nm].pvalue_method and "binned average precision" in mem[nm].pvalue_method
        assert mem[nm].value == pytest.approx(ref[nm].statistic, abs=0.005)  # the exact AP near the binned one


QUICK_SEED = 27182


@pytest.mark.parametrize("case", ["pr_auc", "pr_auc_weighted unweighted"])
def test_type_one_error_quick(case):
    """300 null replicates (labels of prevalences 0.5, 0.3, 0.2 independent of Dirichlet(1)
    probabilities, n = 1,000, exponential weights or none, 200 draws), level 0.05: the
    rejection rate within [0.02, 0.09]."""
    seed = QUICK_SEED + ("pr_auc", "pr_auc_weighted unweighted").index(case)
    print(f"seed {seed}")
    rng = np.random.default_rng(seed)
    name = case.split()[0]
    rejected = 0
    for _ in range(300):
        y, w = rng.choice(3, size=1000, p=[0.5, 0.3, 0.2]), rng.exponential(size=1000)
        proba = rng.dirichlet(np.ones(3), size=1000)
        t = PermutationAPTables.of_proba(y, proba, None if case.endswith("unweighted") else w)
        rejected += ap_clt_tests(t, (name,), n_resamples=200, random_state=rng)[name].pvalue <= 0.05
    print(f"{case}: rejection rate {rejected / 300:.4f} of 300 (seed {seed})")
    assert 0.02 <= rejected / 300 <= 0.09, rejected / 300


@pytest.mark.parametrize("engine", ["duckdb", "memory"])
@pytest.mark.parametrize("weight", ["w", None])
def test_engine_gives_the_memory_pvalue_beyond_the_budget(engine, weight, monkeypatch):
    """Beyond the row budget DuckDB (the bins' crosstabs in SQL) and the memory engine give
    the memory report's AP p-values: the same bins, the same draws with the same seed."""
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 3000)
    eng, mem = _reports(_frame(3000, 4), engine, sample_weight=weight)
    for nm in NAMES:
        assert mem[nm].pvalue is not None and "one-vs-rest tables" in mem[nm].pvalue_method, nm
        assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), nm
        assert eng[nm].pvalue_method == mem[nm].pvalue_method


def test_queries_give_the_memory_tables():
    """The statistics of ap_query on DuckDB (ties, −0.0 and 0.0, binned scores or not) are
    those of the rows in memory: the same bins, crosstabs, Σw and Σw² per class."""
    duckdb = pytest.importorskip("duckdb")
    from beyondchance.engines.sql_permutation import ap_query, ap_tables_of_query

    frame = _frame(4000, 6)
    frame["p1"] = np.round(frame["p1"], 2)  # ties
    frame.loc[:9, "p0"], frame.loc[10:19, "p0"] = -0.0, 0.0
    con = duckdb.connect()
    con.register("t", frame)
    y, proba, w = frame["y"].to_numpy(), frame[["p0", "p1", "p2"]].to_numpy(), frame["w"].to_numpy()
    for score_bins in (None, 20):
        query = ap_query("SELECT y, w, p0 AS c0, p1 AS c1, p2 AS c2 FROM t", 3, score_bins=score_bins)
        result = {k: np.asarray(v) for k, v in con.execute(query).fetchdf().to_dict("list").items()}
        got = ap_tables_of_query(result, 3, lambda v: np.asarray(v, dtype=np.intp), np.arange(3))
        ref = PermutationAPTables.of_proba(y, proba, w, score_bins=score_bins)
        assert got.sizes.tolist() == ref.sizes.tolist()
        np.testing.assert_array_equal(got.cross, ref.cross)
        np.testing.assert_allclose(got.weights, ref.weights, rtol=1e-12, atol=1e-9)
        np.testing.assert_allclose(got.squares, ref.squares, rtol=1e-12)


def test_bins_of_counts_are_bin_starts():
    """The rule of bins_of_counts (which the SQL repeats) gives the bins of bin_starts."""
    from beyondchance.measures.binary_scores import bin_starts

    rng = np.random.default_rng(0)
    for t in range(500):
        k, bins = int(rng.integers(1, 400)), int(rng.integers(2, 120))
        counts = rng.integers(1, rng.integers(2, 50), k) if t % 2 else rng.geometric(0.05, k)
        starts = bin_starts(np.cumsum(counts).astype(float), bins)
        np.testing.assert_array_equal(bins_of_counts(counts, bins),
                                      np.searchsorted(starts, np.arange(k), side="right") - 1)


def test_spark_gives_the_memory_pvalue_beyond_the_budget(spark, monkeypatch):
    import beyondchance.inference.permutation.rows as rows

    monkeypatch.setattr(rows, "ROW_BUDGET", 100 * 600)
    eng, mem = _reports(_frame(600, 8), "spark", spark=spark, sample_weight="w")
    for nm in NAMES:
        assert "one-vs-rest tables" in mem[nm].pvalue_method, nm
        assert eng[nm].pvalue == pytest.approx(mem[nm].pvalue, rel=1e-9), nm
