r"""One definition of every aggregation as SQL, shared by the DuckDB and Spark engines.

Each task needs one or two ``GROUP BY`` queries over the source; their text is
generated here once, from quoted column names, and runs unchanged on DuckDB and on
Spark SQL (the only dialect difference is the identifier quote, supplied by the
engine).  The query results are a few rows per label or per score bin; they are
turned into the statistics of :mod:`beyondchance.statistics.sufficient` by the same constructors
the in-memory engine uses.

Grouping by the true label (rather than comparing with a positive-label literal)
lets one scan serve every choice of positive label: the groups are assigned to the
positive or the negative class afterwards, in Python, by
:func:`~beyondchance._validation.binary_target` — the same rule as in memory.

Per-row expressions are written as the in-memory losses compute them (clipping to
[eps, 1 − eps], ``(f − y)²``, ``where(y − f ≥ 0, α(y − f), (α − 1)(y − f))`` …);
only the order of the summation differs, so sums agree to rounding and counts
exactly.  Invalid rows (NULL, NaN or infinite values, negative weights, scores
outside [0, 1] where probabilities are needed) are counted in the same scan and
reported with the messages of the in-memory checks.

========================  ===============================================================
task                      queries
========================  ===============================================================
binary-scores             (1) GROUP BY y: rows, Σw, Σw·[s ≥ t], Σw·[s < t], log-loss and
                          Brier sums for either class, invalid counts; (2) GROUP BY y, s
                          (exact) or y, FLOOR(s·bins) (binned, with MIN(s)): Σw
binary-labels,            GROUP BY y, ŷ: rows, Σw, invalid counts
multiclass-labels
multiclass-probabilities  (1) GROUP BY y, argmax: rows, Σw, per column j: Σw·(−ln clip p_j)
                          and Σw·(Σ_k p_k² − 2p_j + 1), invalid counts; (2) each row joined
                          with the class numbers j, GROUP BY j, y, p_j (exact) or j, y,
                          FLOOR(p_j·bins): Σw
regression                (1) Σw, Σw·y, Σw·(f − y)², Σw·|f − y|, pinball sums, invalid
                          counts; (2) GROUP BY y (exact) or FLOOR(y / h): Σw, Σw·y, MIN,
                          MAX, Σw·(y − ȳ)²; on demand (the absolute and pinball losses'
                          permutation CLT beyond the row-draw budget): GROUP BY y: Σw,
                          Σw²; GROUP BY f: rows
========================  ===============================================================
"""

from __future__ import annotations

import re

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from .._validation import as_1d, binary_target, encode_labels
from .._warnings import InvalidInputError
from ..measures.confusion import ConfusionMatrix
from ..inference.permutation.clt import PermutationCells
from ..inference.permutation.loss import MAX_LOSS_CLASSES, PermutationLossSums
from ..inference.permutation.rows import SQUARED_ERROR_TERMS, SquaredErrorSums
from ..statistics.sufficient import LABEL_TASKS, PROBABILITY_LOSSES, SufficientStatistics
from ..statistics.labels import LabelCounts
from ..statistics.values import LossSums, Moments, ValueHistogram
from ..statistics.scores import BinnedScoreCounts, ClassScoreCounts, _scores_from_groups
from .spec import Spec, make_spec, resolve_task

if TYPE_CHECKING:
    from ..measures.threshold_counts import ThresholdCounts

__all__ = ["Runner", "sql_statistics", "sql_score_histogram", "sql_values_outside", "binary_queries", "labels_query", "probabilities_query", "class_scores_query", "regression_queries",
           "absolute_histogram_queries", "sql_absolute_histograms"]

_EPS = float(np.finfo(np.float64).eps)
_ROW_SUM_ATOL = 1e-6  # as check_probabilities


class Runner(Protocol):
    """What an SQL engine provides."""

    relation: str  # the FROM item
    row_index: str | None  # the file-order row index, after load(..., row_index=True)
    integer_division: str  # the dialect's integer division operator

    @property
    def files(self) -> list[str] | None: ...  # the paths read, in the order of the row index (None: a table in memory)

    def quote(self, name: str) -> str: ...

    def run(self, sql: str) -> dict[str, np.ndarray]: ...

    def column_kinds(self) -> dict[str, str]: ...  # name -> float | int | bool | string | other

    def load(self, columns: list[str], numeric: list[str], row_index: bool = False) -> None: ...  # read once


def lit(x: float) -> str:
    """A DOUBLE literal that both dialects parse exactly (repr round-trips)."""
    return f"CAST('{float(x)!r}' AS DOUBLE)"


def _bad_number(e: str) -> str:
    """1 where e is NULL, NaN or infinite (x − x = 0 only for finite x)."""
    return f"CASE WHEN {e} IS NULL OR NOT (({e}) - ({e}) = 0) THEN 1 ELSE 0 END"


def _null(e: str) -> str:
    return f"CASE WHEN {e} IS NULL THEN 1 ELSE 0 END"


def _group(group: str | None) -> str:
    return "" if group is None else f", {group} AS g"


def _clip(e: str) -> str:
    return f"LEAST(GREATEST({e}, {lit(_EPS)}), {lit(1 - _EPS)})"


class _Cols:
    """Quoted expressions of the source columns."""

    def __init__(self, q: Callable[[str], str], kinds: dict[str, str]):
        self.q = q
        self.kinds = kinds

    def label(self, name: str) -> tuple[str, str]:
        """(expression, invalid-row flag) of a label column."""
        e = self.q(name)
        if self.kinds.get(name) == "float":  # DECIMAL / 128-bit integers: floating point, as pyarrow reads them
            e = f"CAST({e} AS DOUBLE)"
        flag = _bad_number(e) if self.kinds.get(name) == "float" else _null(e)
        return e, flag

    def number(self, name: str) -> str:
        return f"CAST({self.q(name)} AS DOUBLE)"

    def weight(self, name: str | None) -> tuple[str, str, str]:
        """(expression, non-finite flag, negative flag)."""
        if name is None:
            return lit(1.0), "0", "0"
        e = self.number(name)
        return e, _bad_number(e), f"CASE WHEN {e} < 0 THEN 1 ELSE 0 END"


# =====================================================================================
# query text
# =====================================================================================


def binary_queries(
    q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_true: str, y_score: str,
    weight: str | None, threshold: float, score_bins: int | None, units: bool = False, loss_moments: bool = False,
    losses: bool = True,
) -> tuple[str, str]:
    """(per-label query, score query) of a binary-scores task; ``units``: the score query counts
    the rows of positive weight instead of summing the weights (the units of the score
    bootstrap of weighted data, :class:`~beyondchance.measures.binary_scores.ScoreCells`);
    ``loss_moments``: the per-label query also sums Σw² and the loss moments of the losses'
    permutation CLT (:func:`_binary_loss_moments`); ``losses=False``: it sums no loss (two
    logarithms a row: most of its time when only the score counts are wanted)."""
    c = _Cols(q, kinds)
    y, bad_y = c.label(y_true)
    s = c.number(y_score)
    w, w_nan, w_neg = c.weight(weight)
    inner = (
        f"SELECT {y} AS y, {s} AS s, {w} AS w, {bad_y} AS bad_y, {_bad_number(s)} AS bad_s, "
        f"{w_nan} AS w_nan, {w_neg} AS w_neg FROM {relation}"
    )
    t = lit(threshold)
    zero = lit(0.0)
    brier = "((1 - s) * (1 - s) + s * s)"
    q1 = (
        "SELECT y, COUNT(*) AS n_rows, SUM(w) AS w, "
        f"SUM(CASE WHEN s >= {t} THEN w ELSE {zero} END) AS w_pp, "
        f"SUM(CASE WHEN s >= {t} THEN {zero} ELSE w END) AS w_pn, "
        "SUM(bad_y) AS bad_y, SUM(bad_s) AS bad_s, SUM(w_nan) AS w_nan, SUM(w_neg) AS w_neg"
        + (", SUM(CASE WHEN s < 0 OR s > 1 THEN 1 ELSE 0 END) AS out01, "
           f"SUM(w * -LN({_clip('s')})) AS ce_pos, SUM(w * -LN({_clip('1 - s')})) AS ce_neg, "
           f"SUM(w * ({brier} - 2 * s + 1)) AS br_pos, SUM(w * ({brier} - 2 * (1 - s) + 1)) AS br_neg"
           if losses or loss_moments else "")
        + (f", SUM(w * w) AS w2, {_binary_loss_moments()} " if loss_moments else " ")
        + f"FROM ({inner}) t GROUP BY y"
    )
    if units:
        w = f"CASE WHEN {w} > 0 THEN {lit(1.0)} ELSE {lit(0.0)} END"
    if score_bins is None:  # rows and Σw² too: the permutation CLT of weighted rows (PermutationCells)
        q2 = (f"SELECT y, s, SUM(w) AS w, COUNT(*) AS n_rows, SUM(w * w) AS w2 FROM (SELECT {y} AS y, {s} + 0.0 AS s, "
              f"{w} AS w FROM {relation}) t GROUP BY y, s")
    else:
        q2 = (
            f"SELECT y, k, MIN(CASE WHEN w > 0 THEN s ELSE NULL END) AS smin, SUM(w) AS w FROM (SELECT {y} AS y, FLOOR({s} * {int(score_bins)}) AS k, "
            f"{s} AS s, {w} AS w FROM {relation}) t GROUP BY y, k"
        )
    return q1, q2


#: the binary losses of the permutation CLT of the loss (columns negative, positive), as the
#: binary report scores them: −ln clip(1 − s), −ln clip(s); s², (1 − s)²
_BINARY_LOSSES = {"log_loss": (f"-LN({_clip('1 - s')})", f"-LN({_clip('s')})"), "brier": ("s * s", "(1 - s) * (1 - s)")}


def _binary_loss_moments() -> str:
    """The sums of :class:`~beyondchance.inference.permutation.loss.PermutationLossSums` of binary
    scores over the rows (every row, zero weights included): lm_<loss>_<k> Σ L_k and
    lm_<loss>_<k>_<l> Σ L_k L_l (k ≤ l; 0 negative, 1 positive)."""
    parts = []
    for nm, (neg, pos) in _BINARY_LOSSES.items():
        e = (neg, pos)
        parts += [f"SUM({e[k]}) AS lm_{nm}_{k}" for k in range(2)]
        parts += [f"SUM(({e[k]}) * ({e[m]})) AS lm_{nm}_{k}_{m}" for k in range(2) for m in range(k, 2)]
    return ", ".join(parts)


def score_histogram_query(
    q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_score: str, weight: str | None,
) -> str:
    """A window without labels: rows and Σw per distinct score (the exact score histogram)."""
    c = _Cols(q, kinds)
    s = c.number(y_score)
    w, w_nan, w_neg = c.weight(weight)
    inner = (f"SELECT {s} + 0.0 AS s, {w} AS w, {_bad_number(s)} AS bad_s, {w_nan} AS w_nan, {w_neg} AS w_neg "
             f"FROM {relation}")
    return ("SELECT s, COUNT(*) AS n_rows, SUM(w) AS w, SUM(bad_s) AS bad_s, SUM(w_nan) AS w_nan, "
            f"SUM(w_neg) AS w_neg FROM ({inner}) t GROUP BY s")


def sql_score_histogram(runner: Runner, *, y_score: str, weight: str | None = None) -> tuple[ValueHistogram, int]:
    """(the exact :class:`~beyondchance.statistics.values.ValueHistogram` of a window's scores, its number of
    rows): one ``GROUP BY score`` (a window whose labels have not arrived)."""
    cols = [y_score, *([weight] if weight else [])]
    runner.load(cols, cols)
    r = runner.run(score_histogram_query(runner.quote, runner.relation, runner.column_kinds(), y_score=y_score,
                                         weight=weight))
    if _total(r, "n_rows") == 0:
        raise InvalidInputError("the window has no rows")
    _check_rows(r, weight, bad_s="y_score")
    s, w = _f64(r["s"]), _f64(r["w"])
    order = np.argsort(s, kind="stable")
    s, w = s[order], w[order]
    return ValueHistogram(s, w, s * w, s, s), int(_total(r, "n_rows"))


def sql_values_outside(runner: Runner, column: str, values: Sequence[Any], limit: int = 5) -> list[float]:
    """Some values (at most ``limit``, sorted, distinct) of a numeric ``column`` that are not among
    ``values``, none when every value is one of them: does a score column hold only y_true's
    classes (then predicted labels)?"""
    c = _Cols(runner.quote, runner.column_kinds())
    s = c.number(column)
    listed = ", ".join(lit(float(v)) for v in values) or "NULL"
    # no DISTINCT nor ORDER BY: the scan stops at the first rows outside (a column of scores at once)
    r = runner.run(f"SELECT {s} AS v FROM {runner.relation} WHERE {s} IS NOT NULL AND NOT ({s} IN ({listed})) "
                   f"LIMIT {int(limit)}")
    return sorted(set(_f64(r["v"]).tolist()))


def labels_query(
    q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_true: str, y_pred: str,
    weight: str | None, by_prediction: bool = True, group: str | None = None,
) -> str:
    """The label tasks: confusion cells (or label counts only); ``group``: an SQL
    expression whose values also split the cells (column ``g``)."""
    c = _Cols(q, kinds)
    y, bad_y = c.label(y_true)
    p, bad_p = c.label(y_pred)
    w, w_nan, w_neg = c.weight(weight)
    inner = (
        f"SELECT {y} AS y, {p} AS p, {w} AS w, {bad_y} AS bad_y, {bad_p} AS bad_p, "
        f"{w_nan} AS w_nan, {w_neg} AS w_neg{_group(group)} FROM {relation}"
    )
    keys = ("g, " if group else "") + ("y, p" if by_prediction else "y")
    return (
        f"SELECT {keys}, COUNT(*) AS n_rows, SUM(w) AS w, SUM(w * w) AS w2, SUM(bad_y) AS bad_y, SUM(bad_p) AS bad_p, "
        f"SUM(w_nan) AS w_nan, SUM(w_neg) AS w_neg FROM ({inner}) t GROUP BY {keys}"
    )


def _probability_rows(
    q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_true: str, y_proba: list[str],
    weight: str | None, normalize: bool, group: str | None = None,
) -> str:
    """The rows of a multiclass-probabilities task: y, w, the invalid-value flags and the class
    probabilities c0 … c(k−1) (normalized when asked), and ``g`` when grouped."""
    c = _Cols(q, kinds)
    y, bad_y = c.label(y_true)
    w, w_nan, w_neg = c.weight(weight)
    k = len(y_proba)
    raw = [c.number(col) for col in y_proba]
    lvl1 = ", ".join(f"{r} AS r{j}" for j, r in enumerate(raw))
    rs = " + ".join(f"r{j}" for j in range(k))
    flags = (
        f"{' + '.join(_bad_number(f'r{j}') for j in range(k))} AS bad_c, "
        f"{' + '.join(f'CASE WHEN r{j} < 0 THEN 1 ELSE 0 END' for j in range(k))} AS neg_c, "
        f"{' + '.join(f'CASE WHEN r{j} > 1 THEN 1 ELSE 0 END' for j in range(k))} AS gt1_c, "
        f"CASE WHEN ABS(({rs}) - 1) > {lit(_ROW_SUM_ATOL)} THEN 1 ELSE 0 END AS off_c, "
        f"CASE WHEN ({rs}) <= 0 THEN 1 ELSE 0 END AS zero_c"
    )
    probs = ", ".join((f"r{j} / ({rs}) AS c{j}" if normalize else f"r{j} AS c{j}") for j in range(k))
    level1 = (f"SELECT {y} AS y, {w} AS w, {bad_y} AS bad_y, {w_nan} AS w_nan, {w_neg} AS w_neg, "
              f"{lvl1}{_group(group)} FROM {relation}")
    return f"SELECT {'g, ' if group else ''}y, w, bad_y, w_nan, w_neg, {flags}, {probs} FROM ({level1}) t1"


def probabilities_query(
    q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_true: str, y_proba: list[str],
    weight: str | None, normalize: bool, group: str | None = None, loss_moments: bool = False,
) -> str:
    """The multiclass-probabilities task: per (label, arg-max column) group, the loss sums for every column
    (``group``: also split by the values of this SQL expression, column ``g``); ``loss_moments``:
    and the sums of :class:`~beyondchance.inference.permutation.loss.PermutationLossSums` over the rows —
    ``lm_<loss>_<k>`` Σ L_k and ``lm_<loss>_<k>_<l>`` Σ L_k L_l (k ≤ l) of the per-class losses
    L_k = −ln clip(c_k) and Σ_j c_j² − 2 c_k + 1, and ``w2`` Σw² (already there)."""
    k = len(y_proba)
    keys = ("g, " if group else "") + "y, a"
    level2 = _probability_rows(q, relation, kinds, y_true=y_true, y_proba=y_proba, weight=weight,
                               normalize=normalize, group=group)
    # arg max, first maximal column (numpy.argmax): the first j with c_j >= every later column
    cases = []
    for j in range(k - 1):
        cond = " AND ".join(f"c{j} >= c{m}" for m in range(j + 1, k))
        cases.append(f"WHEN {cond} THEN {j}")
    argmax = f"CASE {' '.join(cases)} ELSE {k - 1} END"
    sq = " + ".join(f"c{j} * c{j}" for j in range(k))
    level3 = f"SELECT t2.*, {argmax} AS a, {sq} AS sq FROM ({level2}) t2"
    sums = ", ".join(
        f"SUM(w * -LN({_clip(f'c{j}')})) AS ce{j}, SUM(w * (sq - 2 * c{j} + 1)) AS br{j}" for j in range(k)
    )
    if loss_moments:  # the per-class losses as columns of one more level, then their sums and cross sums
        cols = ", ".join(f"-LN({_clip(f'c{j}')}) AS lce{j}, (sq - 2 * c{j} + 1) AS lbr{j}" for j in range(k))
        level3 = f"SELECT t4.*, {cols} FROM ({level3}) t4"
        for nm, col in (("log_loss", "lce"), ("brier", "lbr")):
            sums += "".join(f", SUM({col}{j}) AS lm_{nm}_{j}" for j in range(k))
            sums += "".join(f", SUM({col}{j} * {col}{m}) AS lm_{nm}_{j}_{m}" for j in range(k) for m in range(j, k))
    return (
        f"SELECT {keys}, COUNT(*) AS n_rows, SUM(w) AS w, SUM(w * w) AS w2, SUM(bad_y) AS bad_y, SUM(w_nan) AS w_nan, "
        "SUM(w_neg) AS w_neg, SUM(bad_c) AS bad_c, SUM(neg_c) AS neg_c, SUM(gt1_c) AS gt1_c, "
        f"SUM(off_c) AS off_c, SUM(zero_c) AS zero_c, {sums} FROM ({level3}) t3 GROUP BY {keys}"
    )


def class_scores_query(
    q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_true: str, y_proba: list[str],
    weight: str | None, normalize: bool, score_bins: int | None,
) -> str:
    """The one-vs-rest score counts of a multiclass-probabilities task: each row is read once and
    joined with the k class numbers j; GROUP BY j, y, c_j (exact) or j, y,
    FLOOR(c_j · bins) (binned, with MIN(c_j)): Σw."""
    k = len(y_proba)
    rows = _probability_rows(q, relation, kinds, y_true=y_true, y_proba=y_proba, weight=weight, normalize=normalize)
    js = " UNION ALL ".join(f"SELECT {j} AS j" for j in range(k))
    col = "CASE v.j " + " ".join(f"WHEN {j} THEN t2.c{j}" for j in range(k)) + " END + 0.0"
    inner = f"SELECT v.j AS j, t2.y AS y, {col} AS s, t2.w AS w FROM ({rows}) t2 CROSS JOIN ({js}) v"
    if score_bins is None:
        return f"SELECT j, y, s, SUM(w) AS w FROM ({inner}) t GROUP BY j, y, s"
    return (
        f"SELECT j, y, k, MIN(CASE WHEN w > 0 THEN s ELSE NULL END) AS smin, SUM(w) AS w FROM "
        f"(SELECT j, y, FLOOR(s * {int(score_bins)}) AS k, s, w FROM ({inner}) t0) t GROUP BY j, y, k"
    )


def regression_queries(
    q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_true: str, y_pred: str,
    weight: str | None, pinball_alphas: tuple[float, ...],
) -> tuple[str, Callable[[float, bool, float | None, float | None, bool], str]]:
    """(scalar query, second-pass query as a function of the mean)."""
    c = _Cols(q, kinds)
    y = c.number(y_true)
    f = c.number(y_pred)
    w, w_nan, w_neg = c.weight(weight)
    inner = (
        f"SELECT {y} AS y, {f} AS f, {w} AS w, {_bad_number(y)} AS bad_y, {_bad_number(f)} AS bad_f, "
        f"{w_nan} AS w_nan, {w_neg} AS w_neg FROM {relation}"
    )
    pins = "".join(
        f", SUM(w * CASE WHEN (y - f) >= 0 THEN {lit(a)} * (y - f) ELSE {lit(a - 1)} * (y - f) END) AS pin{i}"
        for i, a in enumerate(pinball_alphas)
    )
    q1 = (
        "SELECT COUNT(*) AS n_rows, SUM(w) AS w, SUM(w * y) AS wy, SUM(w * f) AS wf, SUM(bad_y) AS bad_y, "
        "SUM(bad_f) AS bad_f, "
        "SUM(w_nan) AS w_nan, SUM(w_neg) AS w_neg, SUM(w * ((f - y) * (f - y))) AS sq, "
        f"SUM(w * ABS(f - y)) AS ab{pins} FROM ({inner}) t"
    )

    def second(mean: float, histogram: bool, bin_width: float | None, mean_f: float | None = None,
               squared: bool = False) -> str:
        """``mean_f``: the predictions' mean, whose centred sum of squares (m2f) is wanted too;
        ``squared``: and the sums of :class:`~beyondchance.inference.permutation.rows.SquaredErrorSums`
        of y and f shifted by it (columns ``s_<term>``)."""
        m = lit(mean)
        src = f"SELECT {y} AS y, {f} AS f, {w} AS w FROM {relation}"
        m2 = f"SUM(w * ((y - {m}) * (y - {m}))) AS m2"
        if mean_f is not None:
            mf = lit(mean_f)
            m2 += f", SUM(w * ((f - {mf}) * (f - {mf}))) AS m2f"
        if squared and mean_f is not None:
            yc, fc = f"(y - {mf})", f"(f - {mf})"
            terms = {"rows": lit(1.0), "w": "w", "w2": "w * w", "wy": f"w * {yc}", "wyy": f"w * {yc} * {yc}",
                     "wwy": f"w * w * {yc}", "wwyy": f"w * w * {yc} * {yc}", "p": fc, "pp": f"{fc} * {fc}",
                     "ppp": f"{fc} * {fc} * {fc}", "pppp": f"{fc} * {fc} * {fc} * {fc}", "sse": "w * ((y - f) * (y - f))"}
            m2 += "".join(f", SUM({e}) AS s_{k}" for k, e in terms.items())
        if not histogram:
            return f"SELECT {m2} FROM ({src}) t"
        key = "y + 0.0" if bin_width is None else f"FLOOR(y / {lit(bin_width)})"
        return (
            f"SELECT k, SUM(w) AS w, SUM(w * y) AS wy, MIN(y) AS vmin, MAX(y) AS vmax, {m2} "
            f"FROM (SELECT {key} AS k, y, f, w FROM ({src}) t0) t GROUP BY k"
        )

    return q1, second


def absolute_histogram_queries(q: Callable[[str], str], relation: str, kinds: dict[str, str], *, y_true: str,
                               y_pred: str, weight: str | None) -> tuple[str, str, str]:
    """(the distinct targets and predictions counted, the targets' histogram — Σw, Σw² per
    distinct y —, the predictions' — rows per distinct f): the exact histograms of
    :class:`~beyondchance.inference.permutation.absolute_error.AbsoluteErrorHistograms`."""
    c = _Cols(q, kinds)
    w = c.weight(weight)[0]
    src = f"SELECT {c.number(y_true)} AS y, {c.number(y_pred)} AS f, {w} AS w FROM {relation}"
    return (f"SELECT COUNT(DISTINCT y) AS ny, COUNT(DISTINCT f) AS nf FROM ({src}) t",
            f"SELECT y, SUM(w) AS w, SUM(w * w) AS w2 FROM ({src}) t GROUP BY y",
            f"SELECT f, COUNT(*) AS m FROM ({src}) t GROUP BY f")


def sql_absolute_histograms(runner: Runner, *, y_true: str, y_pred: str, weight: str | None,
                            max_values: int | None = None) -> Any:
    """The :class:`~beyondchance.inference.permutation.absolute_error.AbsoluteErrorHistograms` of a regression
    source (three queries); InvalidInputError saying why when y or the predictions have more
    than ``max_values`` distinct values (default ``MAX_HISTOGRAM_VALUES``): no approximation."""
    from ..inference.permutation.absolute_error import MAX_HISTOGRAM_VALUES, AbsoluteErrorHistograms

    limit = MAX_HISTOGRAM_VALUES if max_values is None else int(max_values)
    distinct, qy, qf = absolute_histogram_queries(runner.quote, runner.relation, runner.column_kinds(),
                                                  y_true=y_true, y_pred=y_pred, weight=weight)
    r = runner.run(distinct)
    ny, nf = int(_total(r, "ny")), int(_total(r, "nf"))
    if max(ny, nf) > limit:
        raise InvalidInputError(
            f"the permutation CLT of the absolute and pinball losses needs the exact histograms of y and of the "
            f"predictions; their {ny:,} and {nf:,} distinct values exceed the {limit:,} brought back from the "
            "engine (no binned approximation); evaluate the rows in memory")
    ry, rf = runner.run(qy), runner.run(qf)
    return AbsoluteErrorHistograms(_f64(ry["y"]), _f64(ry["w"]), _f64(ry["w2"]), _f64(rf["f"]), _f64(rf["m"]))


# =====================================================================================
# checks of the aggregated invalid-row counts
# =====================================================================================


def _total(r: dict[str, np.ndarray], name: str) -> float:
    col = r.get(name)
    if col is None or col.size == 0:
        return 0.0
    return float(np.nansum(np.asarray(col, dtype=np.float64)))


class BadValuesError(InvalidInputError):
    """NULL, NaN or infinite values counted in a column; ``name``: its role (y_true, y_score …)."""

    def __init__(self, message: str, name: str = ""):
        super().__init__(message)
        self.name = name


def _check_rows(r: dict[str, np.ndarray], weight: str | None, **columns: str) -> None:
    if _total(r, "n_rows") == 0:
        raise InvalidInputError("y_true is empty")
    for flag, name in columns.items():
        n = _total(r, flag)
        if n:
            raise BadValuesError(f"{name} contains NULL, NaN or infinite values ({int(n)} rows)", name)
    if weight is not None:
        if _total(r, "w_nan"):
            raise BadValuesError("sample_weight contains NULL, NaN or infinite values", "sample_weight")
        if _total(r, "w_neg"):
            raise InvalidInputError("sample_weight contains negative weights")
        if not _total(r, "w") > 0:
            raise InvalidInputError("sample_weight sums to zero: there is nothing to evaluate")


def first_row(runner: Runner, column: str, condition: Callable[[str], str]) -> tuple[int, int, Any] | None:
    """(how many rows, the first one's index in file order, its value) of the rows of
    ``column`` where the SQL ``condition(x)`` holds (``x``: the column), by
    ``runner.row_index``; None when no row does.  One query, for an error's line."""
    i, x = runner.row_index, runner.quote(column)
    r = runner.run(f"SELECT COUNT(*) OVER () AS k, i, x FROM (SELECT {i} AS i, {x} AS x FROM {runner.relation}) t "
                   f"WHERE {condition('x')} ORDER BY i LIMIT 1")
    if not r["i"].size:
        return None
    value = r["x"][0]
    return int(r["k"][0]), int(r["i"][0]), value.item() if isinstance(value, np.generic) else value


def missing_or_nan(number: bool) -> Callable[[str], str]:
    """The condition of :func:`first_row` for a missing value: NULL, and NaN too when
    ``number`` (x − x = 0 fails for NaN and ±inf; |x| = inf keeps the infinities out)."""
    inf = lit(float("inf"))
    if not number:
        return lambda x: f"{x} IS NULL"
    return lambda x: f"{x} IS NULL OR NOT (CAST({x} AS DOUBLE) - CAST({x} AS DOUBLE) = 0 OR ABS(CAST({x} AS DOUBLE)) = {inf})"


def non_finite(x: str) -> str:
    """The condition of :func:`first_row` for a NaN or an infinity of a number column."""
    return f"{x} IS NOT NULL AND NOT (CAST({x} AS DOUBLE) - CAST({x} AS DOUBLE) = 0)"


def first_bad_label(runner: Runner, column: str, inexact: bool) -> str | None:
    """Where the first infinite label (``inexact``: the first finite one beyond 2**53) of a
    floating-point column lies, in file order (``runner.row_index``), as the in-memory checks
    name it: "-inf in row 4 (index 3)"; None when there is none, or when, looking for
    infinities, the column holds NULL or NaN (memory names those first, as missing values)."""
    i, x, inf = runner.row_index, f"CAST({runner.quote(column)} AS DOUBLE)", lit(float("inf"))

    def first(condition: str) -> tuple[int, float] | None:
        r = runner.run(f"SELECT i, x FROM (SELECT {i} AS i, {x} AS x FROM {runner.relation}) t "
                       f"WHERE {condition} ORDER BY i LIMIT 1")
        return (int(r["i"][0]), float(r["x"][0])) if r["i"].size else None

    if inexact:
        hit = first(f"x - x = 0 AND ABS(x) > {lit(2.0**53)}")
    elif first(f"x IS NULL OR NOT (x - x = 0 OR ABS(x) = {inf})") is not None:
        return None
    else:
        hit = first(f"ABS(x) = {inf}")
    return None if hit is None else f"{hit[1]!r} in row {hit[0] + 1} (index {hit[0]})"


def _f64(a: Any) -> np.ndarray:
    return np.asarray(a, dtype=np.float64)


# =====================================================================================
# the engine-independent driver
# =====================================================================================


#: " in row 3 (index 2)" of a validation message about aggregated rows
_AGGREGATED_ROW = re.compile(r" in row \d+ \(index \d+\)")


def sql_statistics(
    runner: Runner,
    *,
    y_true: str,
    y_score: str | None = None,
    y_pred: str | None = None,
    y_proba: Any = None,
    weight: str | None = None,
    task: str = "auto",
    **options: Any,
) -> SufficientStatistics:
    """Run the task's queries on an SQL engine and assemble the statistics."""
    from .memory import _proba_columns

    proba = None if y_proba is None else _proba_columns(y_proba)
    wanted = [c for c in (y_true, y_score, y_pred, weight, *(proba or [])) if c is not None]
    for col in wanted:
        if not isinstance(col, str):
            raise InvalidInputError(f"column names must be strings, got {col!r}")
    runner.load(wanted, [c for c in (y_score, weight, *(proba or [])) if c is not None])
    kinds = runner.column_kinds()
    t = resolve_task(
        task,
        has_score=y_score is not None,
        has_pred=y_pred is not None,
        has_proba=proba is not None,
        true_is_float=kinds.get(y_true) == "float",
        pred_is_float=y_pred is not None and kinds.get(y_pred) == "float",
    )
    spec = make_spec(t, **options)
    q, rel = runner.quote, runner.relation
    try:
        # resolve_task has checked that the task's input is given
        if t == "binary-scores":
            assert y_score is not None
            return _binary(runner, spec, q, rel, kinds, y_true, y_score, weight)
        if t in LABEL_TASKS:
            assert y_pred is not None
            return _labels(runner, spec, q, rel, kinds, y_true, y_pred, weight)
        if t == "multiclass-probabilities":
            assert proba is not None
            return _probabilities(runner, spec, q, rel, kinds, y_true, proba, weight)
        assert y_pred is not None
        return _regression(runner, spec, q, rel, kinds, y_true, y_pred, weight)
    except InvalidInputError as exc:  # checks of the aggregated rows: their row numbers are not the file's
        exc.args = (_AGGREGATED_ROW.sub("", str(exc)),)
        raise exc from None


def _binary(runner: Runner, spec: Spec, q, rel, kinds, y_true: str, y_score: str, weight: str | None) -> SufficientStatistics:
    q1, q2 = binary_queries(
        q, rel, kinds, y_true=y_true, y_score=y_score, weight=weight,
        threshold=spec.threshold, score_bins=spec.score_bins, loss_moments=spec.wants("permutation_loss_sums"),
        losses=spec.wants("loss_sums"),
    )
    r = runner.run(q1)
    _check_rows(r, weight, bad_y="y_true", bad_s="y_score")
    labels = as_1d(r["y"], "y_true")
    is_pos, pos_label = binary_target(labels, pos_label=spec.pos_label, counts=_f64(r["n_rows"]))
    w = _f64(r["w"])
    out: dict[str, Any] = {}
    if spec.wants("confusion"):
        m = np.array([
            [_f64(r["w_pn"])[~is_pos].sum(), _f64(r["w_pp"])[~is_pos].sum()],
            [_f64(r["w_pn"])[is_pos].sum(), _f64(r["w_pp"])[is_pos].sum()],
        ])
        out["confusion"] = ConfusionMatrix(m, np.array([False, True]), pos_label=True)
    if spec.wants("label_counts"):
        out["label_counts"] = LabelCounts(labels, w)
    if spec.wants("loss_sums") and _total(r, "out01") == 0:
        sums = {
            "cross_entropy": float(np.where(is_pos, _f64(r["ce_pos"]), _f64(r["ce_neg"])).sum()),
            "brier": float(np.where(is_pos, _f64(r["br_pos"]), _f64(r["br_neg"])).sum()),
        }
        assert tuple(sums) == PROBABILITY_LOSSES
        out["loss_sums"] = LossSums(float(w.sum()), sums)
    if spec.wants("permutation_loss_sums") and _total(r, "out01") == 0:
        out["permutation_loss_sums"] = _loss_sums_of(r, is_pos.astype(np.intp), np.array([False, True]), {
            "log_loss": np.where(is_pos, _f64(r["ce_pos"]), _f64(r["ce_neg"])).sum(),
            # the binary report's Brier score (s − y)²: half the 2-class Brier of br_pos / br_neg
            "brier": np.where(is_pos, _f64(r["br_pos"]), _f64(r["br_neg"])).sum() / 2})
    cells = spec.wants("permutation_cells") and weight is not None and spec.score_bins is None
    if spec.wants("scores") or cells:
        r2 = runner.run(q2)
        if spec.wants("scores"):
            out["scores"] = score_statistic(r2, pos_label, pos_label, spec.score_bins)
        if cells:
            row_pos, _ = binary_target(as_1d(r2["y"], "y_true"), pos_label=pos_label)
            out["permutation_cells"] = PermutationCells.of_scores(row_pos, _f64(r2["s"]), _f64(r2["w"]),
                                                                  rows=_f64(r2["n_rows"]), squares=_f64(r2["w2"]))
    return SufficientStatistics("binary-scores", threshold=spec.threshold, pos_label=pos_label, **out)


def _loss_sums_of(r: dict[str, np.ndarray], codes: np.ndarray, classes: np.ndarray, observed: dict[str, float]
                  ) -> PermutationLossSums:
    """The :class:`~beyondchance.inference.permutation.loss.PermutationLossSums` of a query's groups:
    rows, Σw and Σw² per class (``codes``: each group's class) and the summed
    ``lm_<loss>_<k>[_<l>]`` columns."""
    k = classes.shape[0]
    first, second = {}, {}
    for nm in observed:
        first[nm] = np.array([_total(r, f"lm_{nm}_{j}") for j in range(k)])
        m = np.zeros((k, k))
        for j in range(k):
            for i in range(j, k):
                m[j, i] = m[i, j] = _total(r, f"lm_{nm}_{j}_{i}")
        second[nm] = m
    return PermutationLossSums(classes, _total(r, "n_rows"), np.bincount(codes, weights=_f64(r["w"]), minlength=k),
                               np.bincount(codes, weights=_f64(r["w2"]), minlength=k), first, second,
                               {nm: float(v) for nm, v in observed.items()})


def score_statistic(r2: dict[str, np.ndarray], given_pos_label: Any, pos_label: Any, score_bins: int | None) -> Any:
    """ThresholdCounts (exact) or BinnedScoreCounts of the result of a score query."""
    row_pos, _ = binary_target(as_1d(r2["y"], "y_true"), pos_label=given_pos_label)
    if score_bins is None:
        return _scores_from_groups(_f64(r2["s"]), row_pos, _f64(r2["w"]), pos_label)
    return BinnedScoreCounts.from_groups(
        _f64(r2["k"]), _f64(r2["smin"]), row_pos, _f64(r2["w"]), bins=score_bins, pos_label=pos_label
    )


def _labels(runner: Runner, spec: Spec, q, rel, kinds, y_true: str, y_pred: str, weight: str | None) -> SufficientStatistics:
    by_pred = spec.wants("confusion")
    r = runner.run(labels_query(q, rel, kinds, y_true=y_true, y_pred=y_pred, weight=weight, by_prediction=by_pred))
    _check_rows(r, weight, bad_y="y_true", bad_p="y_pred")
    w = _f64(r["w"])
    out: dict[str, Any] = {}
    pos = 1 if spec.pos_label is None else spec.pos_label
    if by_pred:
        cm = ConfusionMatrix.from_predictions(r["y"], r["p"], sample_weight=w, labels=spec.labels, pos_label=pos)
        out["confusion"] = cm
        if spec.wants("label_counts"):
            out["label_counts"] = LabelCounts(cm.labels, cm.true_counts)
        if spec.wants("permutation_cells") and weight is not None:
            codes, pred_codes, _ = encode_labels(r["y"], r["p"], labels=cm.labels)
            out["permutation_cells"] = PermutationCells.from_codes(pred_codes, codes, w, keys=cm.labels,
                                                                   classes=cm.labels, rows=_f64(r["n_rows"]),
                                                                   squares=_f64(r["w2"]))
    else:
        # y_true alone: its distinct values, also a regression's targets (the task's detection counts them)
        codes, _, classes = encode_labels(r["y"], labels=spec.labels, allow_continuous=True)
        out["label_counts"] = LabelCounts(classes, np.bincount(codes, weights=w, minlength=classes.shape[0]))
    return SufficientStatistics(spec.task, **out)


def _probabilities(runner: Runner, spec: Spec, q, rel, kinds, y_true: str, proba: list[str], weight: str | None) -> SufficientStatistics:
    moments = spec.wants("permutation_loss_sums") and len(proba) <= MAX_LOSS_CLASSES
    r = runner.run(probabilities_query(q, rel, kinds, y_true=y_true, y_proba=proba, weight=weight,
                                       normalize=spec.normalize, loss_moments=moments))
    _check_rows(r, weight, bad_y="y_true", bad_c="y_proba")
    if _total(r, "neg_c"):
        raise InvalidInputError("y_proba must hold probabilities in [0, 1], found a negative value")
    if _total(r, "gt1_c") and not spec.normalize:
        raise InvalidInputError("y_proba must hold probabilities in [0, 1], found a value above 1")
    if spec.normalize and _total(r, "zero_c"):
        raise InvalidInputError("y_proba has a row summing to 0; cannot normalize")
    ys = as_1d(r["y"], "y_true")
    if spec.labels is None:
        classes = encode_labels(ys)[2]
    else:
        classes = as_1d(spec.labels, "labels")
    k = classes.shape[0]
    if k < 2:
        raise InvalidInputError(
            f"class probabilities need at least two classes; y_true has {k} ({classes.tolist()}): pass labels="
        )
    if len(proba) != k:
        raise InvalidInputError(f"y_proba has {len(proba)} columns but there are {k} classes")
    if not spec.normalize and _total(r, "off_c"):
        raise InvalidInputError("y_proba rows must sum to 1; pass normalize=True to rescale them")
    codes = encode_labels(ys, labels=classes)[0]
    w = _f64(r["w"])
    a = np.asarray(r["a"], dtype=np.intp)
    out: dict[str, Any] = {}
    if spec.wants("confusion"):
        m = np.bincount(codes * k + a, weights=w, minlength=k * k).astype(np.float64).reshape(k, k)
        out["confusion"] = ConfusionMatrix(m, classes, pos_label=1 if spec.pos_label is None else spec.pos_label)
    if spec.wants("label_counts"):
        out["label_counts"] = LabelCounts(classes, np.bincount(codes, weights=w, minlength=k))
    if spec.wants("loss_sums"):
        ce = np.column_stack([_f64(r[f"ce{j}"]) for j in range(k)])
        br = np.column_stack([_f64(r[f"br{j}"]) for j in range(k)])
        rows = np.arange(codes.shape[0])
        sums = {"cross_entropy": float(ce[rows, codes].sum()), "brier": float(br[rows, codes].sum())}
        out["loss_sums"] = LossSums(float(w.sum()), sums)
    if moments:
        ce = np.column_stack([_f64(r[f"ce{j}"]) for j in range(k)])
        br = np.column_stack([_f64(r[f"br{j}"]) for j in range(k)])
        rows = np.arange(codes.shape[0])
        out["permutation_loss_sums"] = _loss_sums_of(r, codes, classes, {"log_loss": ce[rows, codes].sum(),
                                                                          "brier": br[rows, codes].sum()})
    if spec.wants("permutation_cells") and weight is not None:
        out["permutation_cells"] = PermutationCells.from_codes(a, codes, w, keys=classes, classes=classes,
                                                               rows=_f64(r["n_rows"]), squares=_f64(r["w2"]))
    if spec.wants("class_scores"):
        r2 = runner.run(class_scores_query(q, rel, kinds, y_true=y_true, y_proba=proba, weight=weight,
                                           normalize=spec.normalize, score_bins=spec.score_bins))
        out["class_scores"] = _class_scores(r2, classes, spec.score_bins)
    return SufficientStatistics("multiclass-probabilities", **out)


def _class_scores(r: dict[str, np.ndarray], classes: np.ndarray, score_bins: int | None) -> ClassScoreCounts:
    """ClassScoreCounts of the result of :func:`class_scores_query`."""
    j = np.asarray(r["j"], dtype=np.intp)
    is_own = encode_labels(as_1d(r["y"], "y_true"), labels=classes)[0] == j
    w = _f64(r["w"])
    counts: list[ThresholdCounts | BinnedScoreCounts] = []
    for c in range(classes.shape[0]):
        rows = j == c
        if score_bins is None:
            counts.append(_scores_from_groups(_f64(r["s"])[rows], is_own[rows], w[rows], True))
        else:
            counts.append(BinnedScoreCounts.from_groups(_f64(r["k"])[rows], _f64(r["smin"])[rows], is_own[rows],
                                                        w[rows], bins=score_bins, pos_label=True))
    return ClassScoreCounts(classes, tuple(counts))


def _regression(runner: Runner, spec: Spec, q, rel, kinds, y_true: str, y_pred: str, weight: str | None) -> SufficientStatistics:
    q1, second = regression_queries(
        q, rel, kinds, y_true=y_true, y_pred=y_pred, weight=weight, pinball_alphas=spec.pinball_alphas
    )
    r = runner.run(q1)
    _check_rows(r, weight, bad_y="y_true", bad_f="y_pred")
    total = _total(r, "w")
    out: dict[str, Any] = {}
    if spec.wants("loss_sums"):
        names = [lo.name for lo in spec.regression_losses()]
        values = [_total(r, "sq"), _total(r, "ab")] + [_total(r, f"pin{i}") for i in range(len(spec.pinball_alphas))]
        out["loss_sums"] = LossSums(total, dict(zip(names, values)))
    squared = spec.wants("squared_error_sums") and weight is not None
    if spec.wants("moments") or spec.wants("targets") or spec.wants("prediction_moments") or squared:
        mean = _total(r, "wy") / total
        mean_f = _total(r, "wf") / total if spec.wants("prediction_moments") or squared else None
        r2 = runner.run(second(mean, spec.wants("targets"), spec.target_bin_width, mean_f, squared))
        if squared:
            assert mean_f is not None  # computed when squared
            out["squared_error_sums"] = SquaredErrorSums(mean_f, {k: _total(r2, f"s_{k}") for k in SQUARED_ERROR_TERMS})
        if spec.wants("moments"):
            out["moments"] = Moments(total, mean, max(_total(r2, "m2"), 0.0))
        if spec.wants("prediction_moments"):
            assert mean_f is not None  # computed when the prediction moments are wanted
            out["prediction_moments"] = Moments(total, mean_f, max(_total(r2, "m2f"), 0.0))
        if spec.wants("targets"):
            out["targets"] = ValueHistogram.from_groups(
                _f64(r2["k"]), _f64(r2["w"]), _f64(r2["wy"]), _f64(r2["vmin"]), _f64(r2["vmax"]),
                bin_width=spec.target_bin_width,
            )
    return SufficientStatistics("regression", **out)
