r"""Per-group sums of the grouped Poisson bootstrap (:mod:`beyondchance.inference.poisson_bootstrap`) in SQL.

The group of a row, :func:`beyondchance.inference.poisson_bootstrap.hash_sql` of the runner's
file-order row index, is one more ``GROUP BY`` key of the aggregation of each kind of totals
(``kind=``, :data:`~beyondchance.inference.poisson_bootstrap.GROUP_TOTALS_KINDS`); the
results (a few rows per group) are summed into :class:`~beyondchance.inference.poisson_bootstrap.GroupTotals`
in Python exactly as the in-memory engine sums rows, so every engine gives the same
totals (to rounding) and, for one seed, the same replicates.

=============  ==========================================================================
kind           queries
=============  ==========================================================================
labels         GROUP BY g, y, ŷ: Σw (the labels query of :mod:`.sql`, with its checks)
probabilities  GROUP BY g, y, argmax: Σw, per column Σw·(−ln clip p_j), Σw·Brier_j
               (the probabilities query of :mod:`.sql`); the true class's column is kept
regression     (1) GROUP BY y: Σw, invalid counts → weighted median m and τ-quantile q of the
               pinball loss (skipped when given); (2) GROUP BY g: Σw, Σw·y, Σw·y², Σw·(y−ŷ)²,
               Σw·|y−ŷ|, Σw·|y−m|, Σw·(y−ŷ), Σw·|y−q|
labels of     GROUP BY g, y, [score ≥ t]: Σw (``kind="labels"`` with ``y_score``: binary
scores         scores' labels at the threshold t; the data were checked by the scan of
               the scores)
class scores   (multi-class probabilities, for the decomposition of their AUCs and losses,
               :func:`sql_probability_statistics`) (1) the one-vs-rest query of :mod:`.sql`:
               GROUP BY j, y, p_j (or its bin): Σw; (2) each row joined with the class
               numbers j, GROUP BY g, j, y, b, b the bootstrap bin of p_j: Σw; (3) the
               probabilities query GROUP BY g, y, argmax: the loss sums of the true class
=============  ==========================================================================
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

from .._validation import as_1d, binary_target, encode_labels
from .._warnings import InvalidInputError
from ..measures.losses import weighted_quantile
from ..inference.poisson_bootstrap import (DEFAULT_GROUPS, REGRESSION_COLUMNS, GroupTotals, check_group_totals_kind,
                                           check_row_offset, group_sums, hash_sql, label_columns,
                                           probability_columns)
from ..monitoring.probabilities import ProbabilityStatistics, bootstrap_bins
from .sql import (
    _bad_number, _check_rows, _Cols, _f64, _probability_rows, _total, binary_queries, class_scores_query,
    labels_query, lit, probabilities_query, score_statistic,
)

__all__ = ["sql_group_totals", "regression_group_queries", "sql_unit_counts", "sql_probability_statistics"]


def regression_group_queries(q, relation: str, kinds: dict[str, str], *, y_true: str, y_pred: str,
                             weight: str | None, group: str) -> tuple[str, Any]:
    """(per-value query with the checks, per-group query as a function of the median and
    the pinball loss's quantile)."""
    c = _Cols(q, kinds)
    y, f = c.number(y_true), c.number(y_pred)
    w, w_nan, w_neg = c.weight(weight)
    inner = (f"SELECT {group} AS g, {y} AS y, {f} AS f, {w} AS w, {_bad_number(y)} AS bad_y, "
             f"{_bad_number(f)} AS bad_f, {w_nan} AS w_nan, {w_neg} AS w_neg FROM {relation}")
    values = ("SELECT y, COUNT(*) AS n_rows, SUM(w) AS w, SUM(bad_y) AS bad_y, SUM(bad_f) AS bad_f, "
              f"SUM(w_nan) AS w_nan, SUM(w_neg) AS w_neg FROM ({inner}) t GROUP BY y")

    def per_group(median: float, quantile_value: float) -> str:
        return ("SELECT g, SUM(w) AS w, SUM(w * y) AS wy, SUM(w * y * y) AS wy2, SUM(w * (y - f) * (y - f)) AS sq, "
                f"SUM(w * ABS(y - f)) AS ab, SUM(w * ABS(y - {lit(median)})) AS ab_median, SUM(w * (y - f)) AS wr, "
                f"SUM(w * ABS(y - {lit(quantile_value)})) AS ab_quantile FROM ({inner}) t GROUP BY g")

    return values, per_group


def sql_group_totals(runner: Any, *, kind: str, y_true: str, y_pred: str | None = None, proba: Any = None,
                     weight: str | None = None, labels: Any = None, seed: int = 0, groups: int,
                     median: float | None = None, quantile: float | None = None, quantile_value: float | None = None,
                     y_score: str | None = None, threshold: float | None = None, pos_label: Any = None,
                     row_offset: int = 0) -> GroupTotals:
    """Run the grouped aggregation of ``kind`` on an SQL runner (see the module docstring).

    ``median``: regression, the weighted median of y when already known; ``quantile``:
    the level τ of the pinball columns (default 0.5: the median), ``quantile_value`` its
    weighted τ-quantile of y when known.  ``y_score``, ``threshold``, ``pos_label``
    (instead of ``y_pred``): ``kind="labels"`` of binary scores at the threshold, whose
    ``labels`` are the (negative, positive) classes recorded in the totals' info.
    ``row_offset``: the rows are numbered from it (``row_offset`` + the file-order row index).
    """
    from .memory import _proba_columns

    at_threshold = check_group_totals_kind(kind, y_pred=y_pred, proba=proba, y_score=y_score, threshold=threshold,
                                           labels=labels)
    proba = None if proba is None else _proba_columns(proba)
    _load_group_columns(runner, kind, y_true=y_true, y_pred=y_pred, y_score=y_score, weight=weight, proba=proba)
    group = hash_sql(f"CAST({runner.row_index} AS BIGINT) + {check_row_offset(row_offset)}", seed, groups,
                     runner.integer_division)
    if kind == "labels" and not at_threshold:
        assert y_pred is not None  # checked: kind 'labels' takes y_pred or y_score
        return _labels_group_totals(runner, group, y_true=y_true, y_pred=y_pred, weight=weight, labels=labels,
                                    seed=seed, groups=groups)
    if kind == "probabilities":
        return _probabilities_group_totals(runner, group, y_true=y_true, proba=proba, weight=weight, labels=labels,
                                           seed=seed, groups=groups)
    if kind == "regression":
        assert y_pred is not None  # checked: kind 'regression' needs y_pred
        return _regression_group_totals(runner, group, y_true=y_true, y_pred=y_pred, weight=weight, seed=seed,
                                        groups=groups, median=median, quantile=quantile,
                                        quantile_value=quantile_value)
    # kind "labels" of binary scores at the threshold
    assert y_score is not None and threshold is not None  # checked: y_score comes with its threshold
    return _threshold_group_totals(runner, group, y_true=y_true, y_score=y_score, threshold=threshold,
                                   weight=weight, labels=labels, pos_label=pos_label, seed=seed, groups=groups)


def _load_group_columns(runner: Any, kind: str, *, y_true: str, y_pred: str | None, y_score: str | None,
                        weight: str | None, proba: Any) -> None:
    """Loads the columns of the grouped aggregation (names checked as strings, the numeric ones
    read as numbers) with the rows' index."""
    wanted = [c for c in (y_true, y_pred, y_score, weight, *(proba or [])) if c is not None]
    for col in wanted:
        if not isinstance(col, str):
            raise InvalidInputError(f"column names must be strings, got {col!r}")
    numeric = [c for c in (weight, y_score, *(proba or [])) if c is not None]
    if kind == "regression":
        numeric += [y_true, y_pred]
    runner.load(wanted, numeric, row_index=True)


def _labels_group_totals(runner: Any, group: str, *, y_true: str, y_pred: str, weight: str | None, labels: Any,
                         seed: int, groups: int) -> GroupTotals:
    """The per-group confusion cells of predicted labels."""
    q, rel, kinds = runner.quote, runner.relation, runner.column_kinds()
    r = runner.run(labels_query(q, rel, kinds, y_true=y_true, y_pred=y_pred, weight=weight, group=group))
    _check_rows(r, weight, bad_y="y_true", bad_p="y_pred")
    codes_t, codes_p, classes = encode_labels(r["y"], r["p"], labels=labels)
    k = classes.shape[0]
    x = np.zeros((codes_t.shape[0], k * k))
    x[np.arange(codes_t.shape[0]), codes_t * k + codes_p] = _f64(r["w"])
    return GroupTotals(group_sums(r["g"], x, groups), label_columns(k), groups, seed, {"classes": classes})


def _probabilities_group_totals(runner: Any, group: str, *, y_true: str, proba: Any, weight: str | None,
                                labels: Any, seed: int, groups: int) -> GroupTotals:
    """The per-group sums of class probabilities: class weights, losses and arg-max cells."""
    q, rel, kinds = runner.quote, runner.relation, runner.column_kinds()
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
    return GroupTotals(group_sums(r["g"], x, groups), probability_columns(k), groups, seed, {"classes": classes})


def _regression_group_totals(runner: Any, group: str, *, y_true: str, y_pred: str, weight: str | None, seed: int,
                             groups: int, median: float | None, quantile: float | None,
                             quantile_value: float | None) -> GroupTotals:
    """The per-group sums of a regression, the median and τ-quantile of y computed when not known."""
    q, rel, kinds = runner.quote, runner.relation, runner.column_kinds()
    values, per_group = regression_group_queries(q, rel, kinds, y_true=y_true, y_pred=y_pred, weight=weight,
                                                 group=group)
    if median is None or (quantile is not None and quantile_value is None):
        r = runner.run(values)
        _check_rows(r, weight, bad_y="y_true", bad_f="y_pred")
        ys, ws = _f64(r["y"]), _f64(r["w"])
        median = weighted_quantile(ys, 0.5, ws) if median is None else median
        quantile_value = None if quantile is None else weighted_quantile(ys, quantile, ws)
    if quantile is None:
        tau, value = 0.5, median
    else:
        assert quantile_value is not None  # given, or computed above
        tau, value = float(quantile), float(quantile_value)
    r = runner.run(per_group(median, value))
    x = np.column_stack([_f64(r[c]) for c in REGRESSION_COLUMNS])
    return GroupTotals(group_sums(r["g"], x, groups), REGRESSION_COLUMNS, groups, seed,
                       {"median": median, "quantile": (tau, value)})


def _threshold_group_totals(runner: Any, group: str, *, y_true: str, y_score: str, threshold: float,
                            weight: str | None, labels: Any, pos_label: Any, seed: int, groups: int) -> GroupTotals:
    """The per-group confusion cells of binary scores at the threshold."""
    c = _Cols(runner.quote, runner.column_kinds())
    y, _ = c.label(y_true)
    w_sql, _, _ = c.weight(weight)
    inner = (f"SELECT {group} AS g, {y} AS y, CASE WHEN {c.number(y_score)} >= {lit(float(threshold))} "
             f"THEN 1 ELSE 0 END AS p, {w_sql} AS w FROM {runner.relation}")
    r = runner.run(f"SELECT g, y, p, SUM(w) AS w, COUNT(*) AS n_rows FROM ({inner}) t GROUP BY g, y, p")
    is_pos, _ = binary_target(as_1d(r["y"], "y_true"), pos_label=pos_label, counts=_f64(r["n_rows"]))
    x = np.zeros((is_pos.shape[0], 4))
    x[np.arange(is_pos.shape[0]), 2 * is_pos + np.asarray(r["p"], dtype=np.intp)] = _f64(r["w"])
    return GroupTotals(group_sums(r["g"], x, groups), label_columns(2), groups, seed,
                       {"classes": np.asarray(labels, dtype=object)})


def sql_unit_counts(runner: Any, *, y_true: str, y_score: str, weight: str, pos_label: Any,
                    score_bins: int | None = None) -> Any:
    """The score statistic of a weighted binary-scores task counting rows of positive weight (the
    units of the score bootstrap, :class:`~beyondchance.measures.binary_scores.ScoreCells`), on the
    cells of the weighted statistic (same scores or bins; the data were checked by its scan)."""
    _, q2 = binary_queries(runner.quote, runner.relation, runner.column_kinds(), y_true=y_true, y_score=y_score,
                           weight=weight, threshold=0.0, score_bins=score_bins, units=True)
    return score_statistic(runner.run(q2), pos_label, pos_label, score_bins)


def sql_probability_statistics(runner: Any, *, y_true: str, proba: Sequence[str], weight: str | None,
                               classes: Any, normalize: bool = False, score_bins: int | None = None, seed: int = 0,
                               groups: int = DEFAULT_GROUPS) -> ProbabilityStatistics:
    """The :class:`~beyondchance.monitoring.probabilities.ProbabilityStatistics` of multi-class
    probabilities scanned by an SQL runner (see the module docstring): the same histograms,
    loss sums and groups of rows as
    :meth:`ProbabilityStatistics.from_codes <beyondchance.monitoring.probabilities.ProbabilityStatistics.from_codes>`
    of the rows in file order with the same ``seed`` — so the same decomposition and intervals
    — or, with ``score_bins``, of the scores in those bins.  The data were checked by the
    report's scan; ``classes``: the report's classes, the columns in order."""
    proba = [str(c) for c in proba]
    runner.load([y_true, *proba, *([weight] if weight else [])], [*proba, *([weight] if weight else [])],
                row_index=True)
    q, rel, kinds = runner.quote, runner.relation, runner.column_kinds()
    classes = as_1d(classes, "classes")
    k = classes.shape[0]
    code = lambda r: encode_labels(as_1d(r["y"], "y_true"), labels=classes)[0]  # noqa: E731
    r = runner.run(class_scores_query(q, rel, kinds, y_true=y_true, y_proba=proba, weight=weight,
                                      normalize=normalize, score_bins=score_bins))
    key = "s" if score_bins is None else "k"
    j, y, w, v = np.asarray(r["j"], dtype=np.intp), code(r), _f64(r["w"]), _f64(r[key])
    hists, edges = [], []
    for col in range(k):
        rows = j == col
        values, inv = np.unique(v[rows], return_inverse=True)
        hists.append(np.bincount(inv * k + y[rows], weights=w[rows], minlength=values.shape[0] * k).reshape(-1, k))
        b = bootstrap_bins(hists[-1], groups)
        edges.append(values[np.flatnonzero(np.diff(b)) + 1])  # the first score of every bin but the first
    group = hash_sql(f"CAST({runner.row_index} AS BIGINT)", seed, groups, runner.integer_division)
    rows_sql = _probability_rows(q, rel, kinds, y_true=y_true, y_proba=proba, weight=weight, normalize=normalize,
                                 group=group)
    js = " UNION ALL ".join(f"SELECT {c} AS j" for c in range(k))
    col_sql = "CASE v.j " + " ".join(f"WHEN {c} THEN t2.c{c}" for c in range(k)) + " END + 0.0"  # as class_scores_query
    x = "s" if score_bins is None else f"FLOOR(s * {int(score_bins)})"
    bin_of = "CASE j " + " ".join(f"WHEN {c} THEN {_count_at_or_below(x, e)}" for c, e in enumerate(edges)) + " END"
    inner = f"SELECT t2.g AS g, v.j AS j, t2.y AS y, {col_sql} AS s, t2.w AS w FROM ({rows_sql}) t2 CROSS JOIN ({js}) v"
    r = runner.run(f"SELECT g, j, y, b, SUM(w) AS w FROM (SELECT g, j, y, {bin_of} AS b, w FROM ({inner}) t0) t "
                   "GROUP BY g, j, y, b")
    g, j, y, w = (np.asarray(r["g"], dtype=np.intp), np.asarray(r["j"], dtype=np.intp), code(r), _f64(r["w"]))
    b = np.asarray(r["b"], dtype=np.intp)
    grouped = []
    for col, e in enumerate(edges):
        rows, m = j == col, e.shape[0] + 1
        grouped.append(np.bincount((g[rows] * m + b[rows]) * k + y[rows], weights=w[rows],
                                   minlength=groups * m * k).reshape(groups, m, k))
    r = runner.run(probabilities_query(q, rel, kinds, y_true=y_true, y_proba=proba, weight=weight,
                                       normalize=normalize, group=group))
    y, g, at = code(r), np.asarray(r["g"], dtype=np.intp), np.arange(r["g"].shape[0])
    loss_g = {m: np.bincount(g * k + y, weights=np.column_stack([_f64(r[f"{col}{c}"]) for c in range(k)])[at, y],
                             minlength=groups * k).reshape(groups, k)
              for m, col in (("log_loss", "ce"), ("brier", "br"))}
    labels = tuple(classes.tolist())
    return ProbabilityStatistics(tuple(hists), {m: x.sum(0) for m, x in loss_g.items()}, labels,
                                 ProbabilityStatistics(tuple(grouped), loss_g, labels))


def _count_at_or_below(x: str, edges: np.ndarray) -> str:
    """SQL: how many of the ascending ``edges`` are ≤ ``x`` — a balanced tree of CASEs
    (about log₂ of their number comparisons per row)."""
    def tree(lo: int, hi: int) -> str:
        if lo == hi:
            return str(lo)
        mid = (lo + hi) // 2
        return f"CASE WHEN {x} >= {lit(float(edges[mid]))} THEN {tree(mid + 1, hi)} ELSE {tree(lo, mid)} END"

    return tree(0, int(edges.shape[0]))
