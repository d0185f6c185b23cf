r"""The permutation test of weighted rows from statistics: Hoeffding's combinatorial CLT.

Under the permutation null of :mod:`beyondchance.inference.permutation.rows` the (label, weight)
pairs are shuffled against the fixed predictions or scores.  Group the rows into *cells*
that the predictions fix — one per predicted class (labels), one per distinct score or bin
of adjacent scores (scores) — and give row i the vector
:math:`a_i = (w_i \, 1[y_i = k])_{k=1..K}` of its weight in the column of its class.  The
weighted table of the permuted rows is the linear permutation statistic

.. math::

    T_c = \sum_{j \in c} a_{\pi(j)} \in \mathbb R^K \qquad (c = 1..C),

the weighted confusion column of predicted class c, or the weighted positives and negatives
of score cell c; every labeling metric, AUC and loss of the report is a function of the
table.  Its exact permutation moments (Hoeffding 1951, the multivariate combinatorial
central limit theorem; the weights travel with the labels, so the column totals of the
predicted classes vary too) are

.. math::

    E\,T_c = n_c \bar a, \qquad
    \operatorname{Cov}(T_c, T_d) = \frac{\delta_{cd} n_c - n_c n_d / n}{n - 1}\, S_a,
    \qquad S_a = \sum_i (a_i - \bar a)(a_i - \bar a)^\top
    = \operatorname{diag}\Bigl(\sum_{y_i = k} w_i^2\Bigr) - n \bar a \bar a^\top,

with :math:`n_c` the rows of cell c (zero weights included) and n all rows: functions of
the rows per cell and of :math:`\sum w` and :math:`\sum w^2` per class, which every engine
computes in its scan (:class:`PermutationCells`).  The table is asymptotically normal with
these moments; the p-value is the Monte Carlo p-value (1 + #{M* at least as good}) / (B + 1)
of B seeded normal tables :math:`T^*`, the measure evaluated on each — so the measure's own
non-linearity (ratios of cells, the steps of the average precision) is kept, as is the exact
total of each class (:math:`\sum_c T^*_c = \sum_i a_i` in every draw).  Asymptotic: the
normal law of the table approximates the permutation law; its rejection rate under the
null is measured in benchmarks/sim_tests.py.  Its weights can fall below 0 where a cell
holds few rows of uneven weight; the average precision and the lift, ratios of cumulative
weights, are then no measure of any table of rows (1,000 rows weighted by their score: an
average precision of 4.7 by chance), so where more than :data:`MAX_SHARE_IMPOSSIBLE` of the
draws give them a value outside [0, 1] (the lift: [0, 1 / prevalence], and where the average
precision's draws are not valid, as the lift's p-value can be wrong inside its range) they
get no p-value (:data:`NOT_VALID_METHOD`).  A draw is

.. math::

    T^*_c = n_c \bar a + \frac{1}{\sqrt{n - 1}}\, L \Bigl(\sqrt{n_c} z_c
    - \frac{n_c}{n} \sum_d \sqrt{n_d} z_d\Bigr), \qquad z_c \sim N(0, I_K),\ L L^\top = S_a.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..._summary_display import SummaryDisplay
from ..._validation import check_positive_int, check_random_state, merge_from_zero
from ..._warnings import InvalidInputError
from .result import PermutationTestResult, _monte_carlo

__all__ = ["PermutationCells", "clt_tests", "clt_tests_of_labels", "clt_tests_of_scores", "CLT_METHOD"]

#: the ``method`` of a :class:`~beyondchance.inference.permutation.result.PermutationTestResult` of this module
CLT_METHOD = "permutation CLT monte-carlo"

#: the share of the normal draws whose measure lies outside the values of any table of rows (an
#: average precision above 1: ratios of weights drawn below 0) beyond which it gets no p-value
MAX_SHARE_IMPOSSIBLE = 0.01
#: the ``method`` of such a measure's result, without a p-value
NOT_VALID_METHOD = ("permutation CLT not valid here: {share:.0%} of its normal tables give values no table of rows "
                    "has (weights drawn below 0 in cells of few rows of uneven weight)")

#: a measure of tables: (B, C, K) weights per cell and class -> measure -> (B,) values
TableStatistic = Callable[[np.ndarray], dict[str, np.ndarray]]


def _readonly(a: Any, dtype: Any = np.float64) -> np.ndarray:
    arr = np.array(a, dtype=dtype)
    arr.setflags(write=False)
    return arr


def psd_root(s: np.ndarray) -> np.ndarray:
    """M with M Mᵀ = s (PSD, possibly singular — a class absent): the eigenvectors scaled by the
    root of the clipped eigenvalues, each signed so that its largest entry is positive (a
    canonical root: the same draws from the same statistics whatever computed them).

    >>> m = psd_root(np.array([[2.0, 1.0], [1.0, 2.0]]))
    >>> np.allclose(m @ m.T, [[2, 1], [1, 2]])
    True
    """
    lam, vec = np.linalg.eigh((s + s.T) / 2)
    big = np.argmax(np.abs(vec), axis=0)
    vec = vec * np.sign(vec[big, np.arange(vec.shape[1])])[None, :]
    return vec * np.sqrt(np.clip(lam, 0.0, None))[None, :]


@dataclass(frozen=True, eq=False)
class PermutationCells(SummaryDisplay):
    r"""The statistics of the permutation CLT of weighted rows (module docstring).

    Attributes
    ----------
    keys : (C,) the cells: predicted labels (sorted), or distinct scores (decreasing)
    classes : (K,) the true classes of the columns (sorted; binary scores: False, True)
    rows : (C,) rows of each cell, zero weights included
    weights : (C, K) Σ w of the rows of each cell and class (the observed table)
    squares : (K,) Σ w² of the rows of each class

    Examples
    --------
    >>> c = PermutationCells.from_codes(np.array([0, 1, 1, 0]), np.array([0, 0, 1, 1]), [1., 2., 3., 4.],
    ...                                 keys=[0, 1], classes=[0, 1])
    >>> c.rows.tolist(), c.weights.tolist(), c.squares.tolist()
    ([2.0, 2.0], [[1.0, 4.0], [2.0, 3.0]], [5.0, 25.0])
    >>> mean, cov = c.moments()
    >>> mean.tolist()   # n_c · ā, ā = (Σ w per class) / n = (3, 7) / 4
    [[1.5, 3.5], [1.5, 3.5]]
    """

    keys: np.ndarray
    classes: np.ndarray
    rows: np.ndarray
    weights: np.ndarray
    squares: np.ndarray

    def __post_init__(self) -> None:
        rows, weights, squares = (_readonly(x) for x in (self.rows, self.weights, self.squares))
        c, k = weights.shape if weights.ndim == 2 else (-1, -1)
        if rows.shape != (c,) or squares.shape != (k,) or np.shape(self.keys) != (c,) or np.shape(self.classes) != (k,):
            raise InvalidInputError("PermutationCells need rows (C,), weights (C, K), squares (K,), keys (C,) and "
                                    f"classes (K,); got {rows.shape}, {weights.shape}, {squares.shape}")
        if not (np.isfinite(weights).all() and np.isfinite(squares).all() and np.isfinite(rows).all()) \
                or (rows < 0).any() or (weights < 0).any() or (squares < 0).any():
            raise InvalidInputError("PermutationCells need finite non-negative rows and weights")
        object.__setattr__(self, "keys", _readonly(self.keys, None))
        object.__setattr__(self, "classes", _readonly(self.classes, None))
        object.__setattr__(self, "rows", rows)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "squares", squares)

    @classmethod
    def from_codes(cls, cells: Any, codes: Any, w: Any, *, keys: Any, classes: Any, rows: Any = None,
                   squares: Any = None) -> "PermutationCells":
        """From each row's cell ``cells`` (indices of ``keys``), class ``codes`` (indices of
        ``classes``) and weight ``w`` (None: 1), one ``bincount`` pass each; or from groups
        of rows (an engine's ``GROUP BY``): then ``rows`` and ``squares`` give each group's
        row count and Σ w² (default 1 and w²)."""
        cells, codes = np.asarray(cells, dtype=np.intp), np.asarray(codes, dtype=np.intp)
        c, k = len(keys), len(classes)
        w = np.ones(cells.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        rows = None if rows is None else np.asarray(rows, dtype=np.float64)
        squares = w * w if squares is None else np.asarray(squares, dtype=np.float64)
        return cls(np.asarray(keys), np.asarray(classes), np.bincount(cells, weights=rows, minlength=c).astype(np.float64),
                   np.bincount(cells * k + codes, weights=w, minlength=c * k).reshape(c, k),
                   np.bincount(codes, weights=squares, minlength=k).astype(np.float64))

    @classmethod
    def of_scores(cls, is_pos: Any, s: Any, w: Any, *, rows: Any = None, squares: Any = None) -> "PermutationCells":
        """One cell per distinct score (decreasing), columns (negative, positive); of rows, or
        of groups of rows (``rows``, ``squares``: as :meth:`from_codes`).

        >>> PermutationCells.of_scores([1, 0, 1], [.2, .7, .2], [1., 2., 3.]).weights.tolist()
        [[2.0, 0.0], [0.0, 4.0]]
        """
        keys, cells = np.unique(-(np.asarray(s, dtype=np.float64) + 0.0), return_inverse=True)
        return cls.from_codes(cells.ravel(), np.asarray(is_pos, dtype=bool), w, keys=-keys,
                              classes=np.array([False, True]), rows=rows, squares=squares)

    def merge(self, other: "PermutationCells") -> "PermutationCells":
        """The cells of the concatenated data (keys and classes united).

        >>> a = PermutationCells.of_scores(np.array([1, 0]), np.array([.9, .2]), None)
        >>> b = PermutationCells.of_scores(np.array([1]), np.array([.5]), np.array([2.0]))
        >>> m = a + b; m.keys.tolist(), m.weights.tolist(), m.squares.tolist()
        ([0.9, 0.5, 0.2], [[0.0, 1.0], [0.0, 2.0], [1.0, 0.0]], [1.0, 5.0])
        """
        if not isinstance(other, PermutationCells):
            raise InvalidInputError(f"cannot merge PermutationCells with {type(other).__name__}")
        descending = any(x.keys.size > 1 and bool(x.keys[0] > x.keys[-1]) for x in (self, other))
        try:
            keys = np.unique(np.concatenate([self.keys, other.keys]))
            classes = np.unique(np.concatenate([self.classes, other.classes]))
        except TypeError as exc:
            raise InvalidInputError(f"cannot merge cells with keys of incompatible types: {exc}") from exc
        keys = keys[::-1] if descending else keys
        rows, weights, squares = np.zeros(keys.size), np.zeros((keys.size, classes.size)), np.zeros(classes.size)
        for x in (self, other):
            at, ct = _positions(keys, x.keys), np.searchsorted(classes, x.classes)
            np.add.at(rows, at, x.rows)
            np.add.at(weights, (at[:, None], ct[None, :]), x.weights)
            np.add.at(squares, ct, x.squares)
        return PermutationCells(keys, classes, rows, weights, squares)

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    @property
    def n(self) -> float:
        """Rows."""
        return float(self.rows.sum())

    def pooled(self, starts: np.ndarray) -> "PermutationCells":
        """The cells of adjacent cells pooled: bin b holds cells starts[b] .. starts[b + 1] − 1
        (keyed by its first cell)."""
        starts = np.asarray(starts, dtype=np.intp)
        return PermutationCells(self.keys[starts], self.classes, np.add.reduceat(self.rows, starts),
                                np.add.reduceat(self.weights, starts, axis=0), self.squares)

    def _spread(self) -> tuple[np.ndarray, np.ndarray, float]:
        """(ā, S_a, n)."""
        n = self.n
        if n < 2:
            raise InvalidInputError("the permutation CLT needs at least 2 rows")
        abar = self.weights.sum(axis=0) / n
        return abar, np.diag(self.squares) - n * np.outer(abar, abar), n

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """(E T (C, K), Cov T (C, K, C, K)) under the permutation null (module docstring)."""
        abar, s, n = self._spread()
        m = (np.diag(self.rows) - np.outer(self.rows, self.rows) / n) / (n - 1)
        return self.rows[:, None] * abar[None, :], m[:, None, :, None] * s[None, :, None, :]

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` normal tables (size, C, K) with the permutation moments (module docstring)."""
        abar, s, n = self._spread()
        root = psd_root(s)  # L Lᵀ = S_a
        c, k = self.weights.shape
        x = rng.standard_normal((size, c, k))
        x *= np.sqrt(self.rows)[None, :, None]
        x -= (self.rows / n)[None, :, None] * x.sum(axis=1, keepdims=True)
        out = (x.reshape(size * c, k) @ (root.T / math.sqrt(n - 1))).reshape(size, c, k)  # one matrix product
        out += self.rows[None, :, None] * abar[None, None, :]
        return out

    def to_dict(self) -> dict[str, Any]:
        from ..._json import jsonable

        return {"keys": jsonable(self.keys.tolist()), "classes": jsonable(self.classes.tolist()),
                "rows": self.rows.tolist(), "weights": self.weights.tolist(), "squares": self.squares.tolist()}

    def __repr__(self) -> str:
        return f"PermutationCells({self.keys.size} cells x {self.classes.size} classes, n={self.n:g})"

    def _summary_title(self) -> str:
        return "Cells of the permutation CLT"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("cells", int(self.keys.size)), ("classes", int(self.classes.size)), ("rows", self.n)]


def _positions(keys: np.ndarray, values: np.ndarray) -> np.ndarray:
    """The index of each value among the distinct ``keys`` (in any order)."""
    order = np.argsort(keys, kind="stable")
    return order[np.searchsorted(keys[order], values)]


def clt_tests(cells: PermutationCells, statistic: TableStatistic, greater: dict[str, bool], *, n_resamples: int,
              random_state: Any = 0, possible: dict[str, tuple[float, float]] | None = None
              ) -> dict[str, PermutationTestResult]:
    """The permutation CLT tests of the measures of ``statistic`` (tables (B, C, K) → measure
    → (B,)) from the same normal draws: the observed value is the measure of
    ``cells.weights``; method :data:`CLT_METHOD`.  ``possible``: measure → the range of its
    values on tables of rows; beyond :data:`MAX_SHARE_IMPOSSIBLE` of the draws outside it,
    the measure gets no p-value (method :data:`NOT_VALID_METHOD`).

    >>> rng = np.random.default_rng(0)
    >>> y, pred, w = rng.integers(0, 2, 300), rng.integers(0, 2, 300), rng.exponential(size=300)
    >>> cells = PermutationCells.from_codes(pred, y, w, keys=[0, 1], classes=[0, 1])
    >>> def accuracy(t):  # t[:, predicted, true]
    ...     return {"accuracy": (t[:, 0, 0] + t[:, 1, 1]) / t.sum(axis=(1, 2))}
    >>> r = clt_tests(cells, accuracy, {"accuracy": True}, n_resamples=500)["accuracy"]
    >>> r.method, r.n_resamples, 0.05 < r.pvalue < 1
    ('permutation CLT monte-carlo', 500, True)
    """
    rng = check_random_state(random_state)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    observed = {k: float(v[0]) for k, v in statistic(np.asarray(cells.weights)[None]).items()}
    vals: dict[str, list[np.ndarray]] = {k: [] for k in observed}
    chunk = max(1, min(n_resamples, 2_000_000 // max(cells.weights.size, 1)))
    for start in range(0, n_resamples, chunk):
        with np.errstate(all="ignore"):
            for k, v in statistic(cells.draw(min(chunk, n_resamples - start), rng)).items():
                vals[k].append(np.asarray(v, dtype=np.float64))
    out = {}
    for k, parts in vals.items():
        null = np.concatenate(parts)
        low, high = (possible or {}).get(k, (-math.inf, math.inf))
        impossible = float(np.mean((null < low - 1e-9) | (null > high + 1e-9))) if null.size else 0.0
        out[k] = (dataclasses.replace(_monte_carlo(k, observed[k], null, greater[k]), method=CLT_METHOD)
                  if impossible <= MAX_SHARE_IMPOSSIBLE else
                  PermutationTestResult(k, observed[k], math.nan, NOT_VALID_METHOD.format(share=impossible), math.nan,
                                        None, math.nan, math.nan, (math.nan,) * 3, greater[k], math.nan))
    return out


def clt_tests_of_labels(cells: PermutationCells, names: tuple[str, ...], *, pos: int | None = None,
                        n_resamples: int = 10_000, random_state: Any = 0) -> dict[str, PermutationTestResult]:
    """The permutation CLT tests of labeling metrics from the cells of the predicted classes
    (``cells.keys`` and ``cells.classes`` the same labels): binary metrics of the positive
    class at index ``pos``, else the multi-class metrics as the report defines them.

    >>> rng = np.random.default_rng(1)
    >>> y = rng.integers(0, 2, 400); w = rng.exponential(size=400)
    >>> pred = np.where(rng.random(400) < 0.7, y, 1 - y)    # informative predictions
    >>> cells = PermutationCells.from_codes(pred, y, w, keys=[0, 1], classes=[0, 1])
    >>> r = clt_tests_of_labels(cells, ("f1", "mcc"), pos=1, n_resamples=1000)
    >>> r["f1"].pvalue < 0.01, r["mcc"].pvalue < 0.01, round(r["mcc"].null_mean, 1)
    (True, True, 0.0)
    """
    from ...measures.registry import get_metric
    from .measures_of_tables import labeling_measures, table_measures

    if pos is None:
        def statistic(t: np.ndarray) -> dict[str, np.ndarray]:
            return table_measures(t.transpose(0, 2, 1), names)  # (B, true, predicted)
    else:
        neg = 1 - pos

        def statistic(t: np.ndarray) -> dict[str, np.ndarray]:
            return labeling_measures(t[:, pos, pos], t[:, pos, neg], t[:, neg, pos], t[:, neg, neg], names)

    greater = {nm: bool(get_metric(nm).greater_is_better) for nm in names}
    return clt_tests(cells, statistic, greater, n_resamples=n_resamples, random_state=random_state)


def clt_tests_of_scores(cells: PermutationCells, names: tuple[str, ...], *, threshold: float | None = None,
                        max_bins: int | None = None, n_resamples: int = 10_000, random_state: Any = 0
                        ) -> dict[str, PermutationTestResult]:
    """The permutation CLT tests of binary scores from the cells of the distinct scores
    (:meth:`PermutationCells.of_scores`): the score measures (``roc_auc``, ``pr_auc``,
    ``lift_auc``, ``log_loss``, ``brier``) on at most ``max_bins`` bins of adjacent scores of
    equal row count (None: one per distinct score; a binned loss is the loss of the binned
    scores, as in :func:`~beyondchance.inference.permutation.permutation_test.permutation_tests_of_scores`), and the
    labeling metrics of the scores ≥ ``threshold`` (the cells pooled into two).

    >>> rng = np.random.default_rng(2)
    >>> y = rng.integers(0, 2, 3000); s = np.clip(rng.random(3000) * 0.9 + 0.1 * y, 0, 1)
    >>> cells = PermutationCells.of_scores(y == 1, s, rng.exponential(size=3000))
    >>> r = clt_tests_of_scores(cells, ("roc_auc", "brier", "f1"), threshold=0.5, max_bins=200, n_resamples=500)
    >>> r["roc_auc"].pvalue < 0.01, r["brier"].greater_is_better, round(r["roc_auc"].null_mean, 2)
    (True, False, 0.5)
    """
    from ...measures.registry import METRICS
    from .measures_of_tables import score_measures
    from ...measures.binary_scores import bin_loss_terms, bin_starts

    out: dict[str, PermutationTestResult] = {}
    labeling = tuple(nm for nm in names if nm in METRICS)
    scored = tuple(nm for nm in names if nm not in METRICS)
    v = np.asarray(cells.keys, dtype=np.float64)
    if labeling:
        if threshold is None:
            raise InvalidInputError("the labeling metrics of scores need a threshold")
        above = int(np.count_nonzero(v >= threshold))  # the keys decrease: the predicted positives first
        two = PermutationCells(np.array([False, True]), cells.classes,
                               np.array([cells.rows[above:].sum(), cells.rows[:above].sum()]),
                               np.array([cells.weights[above:].sum(axis=0), cells.weights[:above].sum(axis=0)]),
                               cells.squares)
        out.update(clt_tests_of_labels(two, labeling, pos=1, n_resamples=n_resamples, random_state=random_state))
    if scored:
        starts = bin_starts(np.cumsum(cells.rows), v.size if max_bins is None else max_bins)
        losses = [nm for nm in scored if nm in ("log_loss", "brier")]
        if losses and (v.size == 0 or v[-1] < 0 or v[0] > 1):
            raise InvalidInputError("the log loss and Brier score need probabilities in [0, 1]")
        terms = {nm: bin_loss_terms(v, starts, nm) for nm in losses}
        binned = cells.pooled(starts)
        # the lift is a ratio of the same tables as the average precision, whose range tells them apart
        sentinel = ("pr_auc",) if "lift_auc" in scored and "pr_auc" not in scored else ()
        totals = cells.weights.sum(axis=0)  # (negative, positive): every draw's too
        possible = {"pr_auc": (0.0, 1.0), "lift_auc": (0.0, float(totals.sum() / totals[1]) if totals[1] > 0 else 0.0)}

        def statistic(t: np.ndarray) -> dict[str, np.ndarray]:
            return score_measures(t[:, :, 1], t[:, :, 0], terms, scored + sentinel)  # columns (negative, positive)

        tests = clt_tests(binned, statistic, {nm: nm not in losses for nm in scored + sentinel},
                          n_resamples=n_resamples, random_state=random_state,
                          possible={nm: possible[nm] for nm in scored + sentinel if nm in possible})
        if "lift_auc" in tests and tests["pr_auc"].method != CLT_METHOD:
            tests["lift_auc"] = dataclasses.replace(tests["pr_auc"], measure="lift_auc",
                                                    statistic=tests["lift_auc"].statistic)
        out.update({nm: tests[nm] for nm in scored})
    return out
