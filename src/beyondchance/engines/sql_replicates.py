r"""Per-group sums of the grouped Poisson bootstrap (:mod:`beyondchance.replicates`) in SQL.

The group of a row, :func:`beyondchance.replicates.hash_sql` of the runner's
file-order row index, is one more ``GROUP BY`` key of the task's aggregation; the
results (a few rows per group) are summed into :class:`~beyondchance.replicates.GroupTotals`
in Python exactly as the in-memory engine sums rows, so every engine gives the same
totals (to rounding) and, for one seed, the same replicates.

=============  ==========================================================================
task           queries
=============  ==========================================================================
labels         GROUP BY g, y, ŷ: Σw (the labels query of :mod:`.sql`, with its checks)
probabilities  GROUP BY g, y, argmax: Σw, per column Σw·(−ln clip p_j), Σw·Brier_j
               (the probabilities query of :mod:`.sql`); the true class's column is kept
regression     (1) GROUP BY y: Σw, invalid counts → weighted median m;
               (2) GROUP BY g: Σw, Σw·y, Σw·y², Σw·(y−ŷ)², Σw·|y−ŷ|, Σw·|y−m|
=============  ==========================================================================
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._validation import as_1d, encode_labels
from .._warnings import InvalidInputError
from ..baselines import weighted_quantile
from ..replicates import REGRESSION_COLUMNS, GroupTotals, hash_sql, label_columns, probability_columns
from .sql import _bad_number, _check_rows, _Cols, _f64, _total, labels_query, lit, probabilities_query

__all__ = ["sql_group_totals", "regression_group_queries"]


def regression_group_queries(q, relation: str, kinds: dict[str, str], *, y_true: str, y_pred: str,
                             weight: str | None, group: str) -> tuple[str, Any]:
    """(per-value query with the checks, per-group query as a function of the median)."""
    c = _Cols(q, kinds)
    y, f = c.number(y_true), c.number(y_pred)
    w, w_nan, w_neg = c.weight(weight)
    inner = (f"SELECT {group} AS g, {y} AS y, {f} AS f, {w} AS w, {_bad_number(y)} AS bad_y, "
             f"{_bad_number(f)} AS bad_f, {w_nan} AS w_nan, {w_neg} AS w_neg FROM {relation}")
    values = ("SELECT y, COUNT(*) AS n_rows, SUM(w) AS w, SUM(bad_y) AS bad_y, SUM(bad_f) AS bad_f, "
              f"SUM(w_nan) AS w_nan, SUM(w_neg) AS w_neg FROM ({inner}) t GROUP BY y")

    def per_group(median: float) -> str:
        return ("SELECT g, SUM(w) AS w, SUM(w * y) AS wy, SUM(w * y * y) AS wy2, SUM(w * (y - f) * (y - f)) AS sq, "
                f"SUM(w * ABS(y - f)) AS ab, SUM(w * ABS(y - {lit(median)})) AS ab_median FROM ({inner}) t GROUP BY g")

    return values, per_group


def sql_group_totals(runner: Any, *, task: str, y_true: str, y_pred: str | None = None, proba: Any = None,
                     weight: str | None = None, labels: Any = None, seed: int = 0, groups: int) -> GroupTotals:
    """Run the task's grouped aggregation on an SQL runner (see the module docstring)."""
    from .memory import _proba_columns

    proba = None if proba is None else _proba_columns(proba)
    wanted = [c for c in (y_true, y_pred, weight, *(proba or [])) if c is not None]
    for col in wanted:
        if not isinstance(col, str):
            raise InvalidInputError(f"column names must be strings, got {col!r}")
    numeric = [c for c in (weight, *(proba or [])) if c is not None]
    if task == "regression":
        numeric += [y_true, y_pred]
    runner.load(wanted, numeric, row_index=True)
    group = hash_sql(f"CAST({runner.row_index} AS BIGINT)", seed, groups, runner.integer_division)
    q, rel, kinds = runner.quote, runner.relation, runner.column_kinds()
    if task == "labels":
        if y_pred is None:
            raise InvalidInputError("task 'labels' needs y_pred")
        r = runner.run(labels_query(q, rel, kinds, y_true=y_true, y_pred=y_pred, weight=weight, group=group))
        _check_rows(r, weight, bad_y="y_true", bad_p="y_pred")
        codes_t, codes_p, classes = encode_labels(r["y"], r["p"], labels=labels)
        k = classes.shape[0]
        x = np.zeros((codes_t.shape[0], k * k))
        x[np.arange(codes_t.shape[0]), codes_t * k + codes_p] = _f64(r["w"])
        return GroupTotals(_group_sum(r["g"], x, groups), label_columns(k), groups, seed, {"classes": classes})
    if task == "probabilities":
        if proba is None:
            raise InvalidInputError("task 'probabilities' needs proba (one column per class)")
        r = runner.run(probabilities_query(q, rel, kinds, y_true=y_true, y_proba=proba, weight=weight,
                                           normalize=False, group=group))
        _check_rows(r, weight, bad_y="y_true", bad_c="proba")
        if _total(r, "neg_c") or _total(r, "gt1_c"):
            raise InvalidInputError("proba must hold finite probabilities in [0, 1]")
        if _total(r, "off_c"):
            raise InvalidInputError("proba rows must sum to 1")
        codes, _, classes = encode_labels(as_1d(r["y"], "y_true"), labels=labels)
        k = classes.shape[0]
        if len(proba) != k:
            raise InvalidInputError(f"proba must have shape (n, {k}) (rows, classes), got {len(proba)} columns")
        rows, w = np.arange(codes.shape[0]), _f64(r["w"])
        x = np.zeros((codes.shape[0], len(probability_columns(k))))
        x[rows, codes] = w
        x[:, k] = np.column_stack([_f64(r[f"ce{j}"]) for j in range(k)])[rows, codes]
        x[:, k + 1] = np.column_stack([_f64(r[f"br{j}"]) for j in range(k)])[rows, codes]
        x[rows, k + 2 + codes * k + np.asarray(r["a"], dtype=np.intp)] = w
        return GroupTotals(_group_sum(r["g"], x, groups), probability_columns(k), groups, seed, {"classes": classes})
    if task == "regression":
        if y_pred is None:
            raise InvalidInputError("task 'regression' needs y_pred")
        values, per_group = regression_group_queries(q, rel, kinds, y_true=y_true, y_pred=y_pred, weight=weight,
                                                     group=group)
        r = runner.run(values)
        _check_rows(r, weight, bad_y="y_true", bad_f="y_pred")
        median = weighted_quantile(_f64(r["y"]), 0.5, _f64(r["w"]))
        r = runner.run(per_group(median))
        x = np.column_stack([_f64(r[c]) for c in REGRESSION_COLUMNS])
        return GroupTotals(_group_sum(r["g"], x, groups), REGRESSION_COLUMNS, groups, seed, {"median": median})
    raise InvalidInputError(f"task must be 'labels', 'regression' or 'probabilities', got {task!r}")


def _group_sum(g: Any, x: np.ndarray, groups: int) -> np.ndarray:
    totals = np.zeros((groups, x.shape[1]))
    np.add.at(totals, np.asarray(g, dtype=np.intp), x)
    return totals
