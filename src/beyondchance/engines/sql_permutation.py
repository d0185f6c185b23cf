"""The SQL of the permutation tests of class probabilities on DuckDB and Spark: one query of
the rank sums of the one-vs-rest AUCs (:func:`auc_rank_query`) and one of the one-vs-rest
tables of the average precisions (:func:`ap_query`), and the statistics of their results.

The statistics themselves (:class:`~beyondchance.inference.permutation.auc.PermutationAUCSums`,
:class:`~beyondchance.inference.permutation.average_precision.PermutationAPTables`) and their
tests live in ``inference/permutation``; only their SQL lives here, as every query of the
package lives in ``engines/`` (``engines/sql.py``, at 774 lines, holds the statistics'
queries; these two add 150 lines of another job: the permutation CLT's sums).

>>> print(auc_rank_query("SELECT * FROM t", 1)[:64])
WITH r AS (SELECT y, w, c0 + 0.0 AS x0 FROM (SELECT * FROM t) t)
"""

from __future__ import annotations

from typing import Any, Callable

import numpy as np

from ..inference.permutation.auc import PermutationAUCSums
from ..inference.permutation.average_precision import PermutationAPTables, ap_bins_per_column

__all__ = ["auc_rank_query", "auc_sums_of_query", "ap_query", "ap_tables_of_query"]


def auc_rank_query(rows: str, k: int, score_bins: int | None = None) -> str:
    """One query (DuckDB and Spark) of the sums of :class:`PermutationAUCSums` from ``rows``,
    an SQL relation with columns y, w, c0 … c(k−1): per class y the rows ``n_rows``, ``w``
    Σw, ``w2`` Σw², ``f<j>`` Σ rank_j and ``s<j>_<l>`` Σ rank_j rank_l (j ≤ l), the mid-rank
    rank_j = #{below} + ½ #{equal} of the row's column j (its bin with ``score_bins``) —
    divided by n (and n²) they give the sums of the fractions R.  The running sum is a window
    over a column's distinct values without a partition (Spark computes it in one partition:
    at most n rows per column); K joins and K(K + 1)/2 sums."""
    # + 0.0: −0.0 and 0.0 one distinct value (as the engines' class_scores_query)
    key = (lambda j: f"c{j} + 0.0") if score_bins is None else (lambda j: f"FLOOR(c{j} * {int(score_bins)}) + 0.0")
    cols = ", ".join(f"{key(j)} AS x{j}" for j in range(k))
    ranks = []
    for j in range(k):
        counts = f"SELECT x{j} AS v, COUNT(*) AS m FROM r GROUP BY x{j}"
        ranks.append(f"d{j} AS (SELECT v, SUM(m) OVER (ORDER BY v ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW)"
                     f" - 0.5 * m AS rk FROM ({counts}) t{j})")
    joins = " ".join(f"JOIN d{j} ON r.x{j} = d{j}.v" for j in range(k))
    sums = "".join(f", SUM(d{j}.rk) AS f{j}" for j in range(k)) + "".join(
        f", SUM(d{j}.rk * d{m}.rk) AS s{j}_{m}" for j in range(k) for m in range(j, k))
    return (f"WITH r AS (SELECT y, w, {cols} FROM ({rows}) t), {', '.join(ranks)} "
            f"SELECT r.y AS y, COUNT(*) AS n_rows, SUM(r.w) AS w, SUM(r.w * r.w) AS w2{sums} FROM r {joins} "
            "GROUP BY r.y")


def auc_sums_of_query(r: dict[str, np.ndarray], k: int, codes_of: Callable[[Any], np.ndarray],
                      classes: Any) -> PermutationAUCSums:
    """The :class:`PermutationAUCSums` of the result ``r`` of :func:`auc_rank_query`
    (``codes_of``: the class index of each group's label); the observed AUCs are left NaN."""
    codes = np.asarray(codes_of(r["y"]), dtype=np.intp)
    f64 = (lambda nm: np.asarray(r[nm], dtype=np.float64))
    n = float(f64("n_rows").sum())
    first = np.array([f64(f"f{j}").sum() for j in range(k)]) / n
    second = np.zeros((k, k))
    for j in range(k):
        for m in range(j, k):
            second[j, m] = second[m, j] = f64(f"s{j}_{m}").sum() / (n * n)
    return PermutationAUCSums(np.asarray(classes), n, np.bincount(codes, weights=f64("w"), minlength=k),
                              np.bincount(codes, weights=f64("w2"), minlength=k), first, second, np.full(k, np.nan))


def _bin_map(j: int, bins: int) -> str:
    """The CTE d<j> (v, b): the bin of each distinct value v of column x<j> of r, by the rule
    of :func:`bins_of_counts` (the same floating-point operations)."""
    run = "ORDER BY v DESC ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW"
    g = (lambda x: f"LEAST({bins - 1}, FLOOR({x} * {bins} / total))")
    counts = f"SELECT x{j} AS v, COUNT(*) AS m FROM r GROUP BY x{j}"
    before = (f"SELECT v, CAST(SUM(m) OVER ({run}) - m AS DOUBLE) AS before, CAST(SUM(m) OVER () AS DOUBLE) AS total, "
              f"COUNT(*) OVER () AS nv, ROW_NUMBER() OVER (ORDER BY v DESC) AS rn FROM ({counts}) c{j}")
    lagged = f"SELECT v, before, LAG(before, 1, 0) OVER (ORDER BY v DESC) AS prev, total, nv, rn FROM ({before}) s{j}"
    flags = (f"SELECT v, CASE WHEN rn = 1 THEN 0 WHEN nv <= {bins} THEN 1 WHEN {g('before')} > {g('prev')} THEN 1 "
             f"ELSE 0 END AS flag FROM ({lagged}) l{j}")
    return f"d{j} AS (SELECT v, SUM(flag) OVER ({run}) AS b FROM ({flags}) f{j})"


def ap_query(rows: str, k: int, bins: int | None = None, score_bins: int | None = None) -> str:
    """One query (DuckDB and Spark) of the statistics of :class:`PermutationAPTables` from
    ``rows``, an SQL relation with columns y, w, c0 … c(k−1): each column's bins from the
    row counts of its distinct values (its bin ``floor(p · score_bins)`` with
    ``score_bins``; :func:`bins_of_counts` by running sums, at most ``bins`` — default
    :func:`ap_bins_per_column` — per column), every row joined with its K bins, then the union
    of (kind 0) the K(K + 1)/2 crosstabs — columns ``j``, ``l``, ``bj``, ``bl``, ``m`` (rows) —
    and (kind 1) the sums per column, bin and class — ``j``, ``bj``, ``y``, ``m``, ``sw`` (Σw),
    ``sw2`` (Σw²).  One query, so the binning and the join are written once (two queries took
    twice as long on DuckDB: 0.91–1.02 s against 0.40–0.46 s on 2·10⁶ rows of 3 classes).
    Columns a kind does not use hold 0 (``l``, ``bl``, ``sw``, ``sw2``) or a label of the group
    (``y`` of the crosstabs), never NULL, so every column keeps its type."""
    bins = ap_bins_per_column(k) if bins is None else int(bins)
    # + 0.0: −0.0 and 0.0 one distinct value (as np.unique of −(p + 0.0))
    key = (lambda j: f"c{j} + 0.0") if score_bins is None else (lambda j: f"FLOOR(c{j} * {int(score_bins)}) + 0.0")
    cols = ", ".join(f"{key(j)} AS x{j}" for j in range(k))
    joins = " ".join(f"JOIN d{j} ON r.x{j} = d{j}.v" for j in range(k))
    binned = f"SELECT r.y AS y, r.w AS w, {', '.join(f'd{j}.b AS b{j}' for j in range(k))} FROM r {joins}"
    head = (f"WITH r AS (SELECT y, w, {cols} FROM ({rows}) t), {', '.join(_bin_map(j, bins) for j in range(k))}, "
            f"br AS ({binned}) ")
    zero = "CAST(0 AS DOUBLE)"
    cross = [f"SELECT 0 AS kind, {j} AS j, {m} AS l, b{j} AS bj, b{m} AS bl, MIN(y) AS y, COUNT(*) AS m, {zero} AS sw, "
             f"{zero} AS sw2 FROM br GROUP BY b{j}, b{m}" for j in range(k) for m in range(j, k)]
    tables = [f"SELECT 1 AS kind, {j} AS j, 0 AS l, b{j} AS bj, 0 AS bl, y, COUNT(*) AS m, SUM(w) AS sw, "
              f"SUM(w * w) AS sw2 FROM br GROUP BY b{j}, y" for j in range(k)]
    return head + " UNION ALL ".join(cross + tables)


def ap_tables_of_query(result: dict[str, np.ndarray], k: int, codes_of: Any, classes: Any) -> PermutationAPTables:
    """The :class:`PermutationAPTables` of the result of :func:`ap_query` (``codes_of``: the
    class index of each group's label)."""
    kind = np.asarray(result["kind"], dtype=np.float64)
    f64 = (lambda nm, at: np.asarray(result[nm], dtype=np.float64)[at])
    i64 = (lambda nm, at: f64(nm, at).astype(np.intp))
    at_t, at_c = kind == 1, kind == 0
    tj, tb = i64("j", at_t), i64("bj", at_t)
    codes = np.asarray(codes_of(np.asarray(result["y"])[at_t]), dtype=np.intp)
    sizes = np.array([int(tb[tj == j].max()) + 1 if np.any(tj == j) else 1 for j in range(k)])
    off = np.r_[0, np.cumsum(sizes)]
    d = int(off[-1])
    weights = np.zeros((d, k))
    np.add.at(weights, (off[tj] + tb, codes), f64("sw", at_t))
    first = tj == 0
    squares = np.bincount(codes[first], weights=f64("sw2", at_t)[first], minlength=k)
    x = np.zeros((d, d))
    cj, cl = i64("j", at_c), i64("l", at_c)
    rows_at, cols_at, m = off[cj] + i64("bj", at_c), off[cl] + i64("bl", at_c), f64("m", at_c)
    np.add.at(x, (rows_at, cols_at), m)
    off_diag = cj != cl
    np.add.at(x, (cols_at[off_diag], rows_at[off_diag]), m[off_diag])
    return PermutationAPTables(np.asarray(classes), sizes, x, weights, squares)
