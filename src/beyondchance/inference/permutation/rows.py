r"""Permutation tests that need the rows: weighted data, class probabilities, regression.

The permutation null is the one of :mod:`beyondchance.inference.permutation.permutation_test` — the predictions carry
no information about the labels, so every assignment of the observed predictions to the
observed labels is equally likely — with each row's weight attached to its label (a
permutation shuffles the predictions, scores or probability rows against the
(label, weight) pairs).  With weights, or with several score columns, the null is no longer
a function of the report's statistics, so these tests draw permutations of the rows, in
memory, by Monte Carlo: p = (1 + #{M* at least as good}) / (B + 1), with its standard
error, as :func:`~beyondchance.permutation_test` does.  B permutations of n rows cost
B·n; :func:`permutation_draws` keeps that within ``ROW_BUDGET``.  Within it a report from
DuckDB or Spark fetches the rows for these tests (:mod:`beyondchance.engines.row_source`),
the memory p-value with the same seed.  Beyond it, weighted labels and binary scores are
tested from their weighted cells by the permutation CLT
(:mod:`beyondchance.inference.permutation.clt`, asymptotic), and the log loss and Brier score of class
probabilities by the permutation CLT of the loss sum (:mod:`beyondchance.inference.permutation.loss`),
their one-vs-rest ROC AUCs by the permutation CLT of the AUC
(:mod:`beyondchance.inference.permutation.auc`), their one-vs-rest average precisions by the joint
permutation CLT of the one-vs-rest tables of their binned columns
(:mod:`beyondchance.inference.permutation.average_precision`), and the absolute error and pinball loss of a
regression by the permutation CLT of their loss sum (:mod:`beyondchance.inference.permutation.absolute_error`),
in memory and on every engine.

The squared loss of a regression needs no draws: under the permutation null
:math:`T = \sum_i w_i (y_i - \hat y_{\sigma(i)})^2` is a linear permutation statistic
:math:`\sum_i c_{i\sigma(i)}`, whose mean and variance are exact functions of the rows'
moments (Hoeffding 1951, the combinatorial central limit theorem; Wald & Wolfowitz 1944
for :math:`\sum y \hat y`):

.. math::

    E\,T = \frac1n \sum_{ij} c_{ij}, \qquad
    \operatorname{Var} T = \frac{1}{n-1} \sum_{ij} d_{ij}^2, \quad
    d_{ij} = c_{ij} - \bar c_{i\cdot} - \bar c_{\cdot j} + \bar c_{\cdot\cdot}.

With :math:`c_{ij} = w_i y_i^2 + w_i \hat y_j^2 - 2 w_i y_i \hat y_j`,
:math:`d_{ij} = A_i B_j + C_i D_j` where :math:`A = w - \bar w`,
:math:`B = \hat y^2 - \overline{\hat y^2}`, :math:`C = -2 (w y - \overline{w y})`,
:math:`D = \hat y - \bar{\hat y}`, so
:math:`\sum d^2 = \sum A^2 \sum B^2 + 2 \sum AC \sum BD + \sum C^2 \sum D^2`: sums of
powers and products of y, ŷ and w.  The p-value of "the squared error is no smaller than
chance" is :math:`\Phi((T - E\,T) / \sqrt{\operatorname{Var} T})`, asymptotic (a normal
approximation of the permutation distribution).  Unweighted, the statistic is
:math:`\sqrt{n - 1}\, r` with r Pearson's correlation of y and ŷ, and the moments reduce to
:math:`E\,T = S_{yy} + S_{\hat y\hat y} + n (\bar y - \bar{\hat y})^2` and
:math:`\operatorname{Var} T = 4 S_{yy} S_{\hat y\hat y} / (n - 1)` (S: centred sums of
squares) — the :class:`~beyondchance.statistics.values.Moments` of y and of ŷ that every engine computes
(:func:`squared_loss_test_of_moments`).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable

import numpy as np
from scipy import sparse as _sparse

from ..._validation import check_positive_int, check_random_state, merge_from_zero
from ..._warnings import InvalidInputError
from ...measures.losses import get_loss
from ...measures.registry import METRICS
from .result import PermutationTestResult, _monte_carlo, normal_test
from .measures_of_tables import _cell_measures, labeling_measures, score_measures, table_measures
from ...measures.binary_scores import loss_terms

__all__ = ["ROW_BUDGET", "permutation_draws", "row_permutation_tests", "binary_statistic", "multiclass_statistic",
           "probabilities_statistic", "regression_statistic", "squared_loss_test", "squared_loss_test_of_moments",
           "SquaredErrorSums", "SQUARED_ERROR_TERMS"]

#: largest rows × permutations drawn for one report's row permutation tests
ROW_BUDGET = 50_000_000
#: fewest permutations worth a p-value (its standard error ≤ 0.016 at p = 0.05)
MIN_DRAWS = 200

#: a statistic: (B, n) permutation indices of the (label, weight) rows -> measure -> (B,) values
Statistic = Callable[[np.ndarray], dict[str, np.ndarray]]


def permutation_draws(n: int, n_resamples: int, *, cost: int = 1) -> int:
    """Permutations to draw: ``n_resamples``, fewer when n·B·cost exceeds ``ROW_BUDGET``;
    InvalidInputError saying why when fewer than ``MIN_DRAWS`` would remain.

    >>> permutation_draws(1000, 2000), permutation_draws(100_000, 2000)
    (2000, 500)
    """
    draws = min(int(n_resamples), ROW_BUDGET // max(1, n * cost))
    if draws < MIN_DRAWS:
        raise InvalidInputError(
            f"the permutation test of these rows draws whole permutations of the {n} rows; fewer than {MIN_DRAWS} "
            f"fit in the budget of {ROW_BUDGET:.0e} row-draws")
    return draws


def row_permutation_tests(statistic: Statistic, n: int, greater: dict[str, bool], *, n_resamples: int,
                          random_state: Any = 0) -> dict[str, PermutationTestResult]:
    """Monte Carlo permutation tests of several measures from the same permutations.

    >>> rng = np.random.default_rng(0)
    >>> y, s, w = rng.integers(0, 2, 50), rng.random(50), rng.random(50)
    >>> r = row_permutation_tests(binary_statistic(y == 1, w, scores=s, names=("roc_auc",)), 50,
    ...                           {"roc_auc": True}, n_resamples=500)["roc_auc"]
    >>> r.method, r.n_resamples, 0 < r.pvalue < 1
    ('monte-carlo', 500, True)
    """
    rng = check_random_state(random_state)
    n_resamples = check_positive_int(n_resamples, "n_resamples")
    observed = {k: float(v[0]) for k, v in statistic(np.arange(n)[None]).items()}
    chunk = max(1, min(n_resamples, 2_000_000 // max(n, 1)))
    vals: dict[str, list[np.ndarray]] = {k: [] for k in observed}
    base = np.arange(n)
    for start in range(0, n_resamples, chunk):
        idx = rng.permuted(np.broadcast_to(base, (min(chunk, n_resamples - start), n)), axis=1)
        for k, v in statistic(idx).items():
            vals[k].append(np.asarray(v, dtype=np.float64))
    return {k: _monte_carlo(k, observed[k], np.concatenate(v), greater[k]) for k, v in vals.items()}


def _onehot(cells: np.ndarray, k: int) -> _sparse.csr_matrix:
    """(n, k) indicator of each row's cell."""
    n = cells.shape[0]
    return _sparse.csr_matrix((np.ones(n), (np.arange(n), cells)), shape=(n, k))


def _cell_sums(values: np.ndarray, onehot: _sparse.csr_matrix) -> np.ndarray:
    """(B, n) row values -> (B, K) sums per cell."""
    return np.asarray((onehot.T @ values.T).T)


def binary_statistic(is_pos: np.ndarray, weight: np.ndarray | None, *, pred: np.ndarray | None = None,
                     scores: np.ndarray | None = None, names: tuple[str, ...]) -> Statistic:
    """The measures ``names`` of binary labels ``is_pos`` (with their weights) permuted
    against the fixed predictions ``pred`` (labeling metrics of :data:`beyondchance.measures.METRICS`)
    and ``scores`` (``roc_auc``, ``pr_auc``, ``lift_auc``, ``log_loss``, ``brier``: the
    weighted positives and negatives per distinct score, then the cells' measures of
    :class:`~beyondchance.measures.binary_scores.ScoreCells`)."""
    w = np.ones(is_pos.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    wp, wn = np.where(is_pos, w, 0.0), np.where(is_pos, 0.0, w)
    labeling = [nm for nm in names if nm in METRICS and pred is not None]
    scored = tuple(nm for nm in names if nm not in METRICS and scores is not None)
    predf = None if pred is None else np.asarray(pred, dtype=np.float64)
    if scored:
        v, cells = np.unique(-np.asarray(scores, dtype=np.float64), return_inverse=True)  # by decreasing score
        v = -v
        onehot = _onehot(cells.ravel(), v.size)
        terms = {nm: loss_terms(v, nm) for nm in scored if nm in ("log_loss", "brier")}
        if terms and (v[-1] < 0 or v[0] > 1):
            raise InvalidInputError("the log loss and Brier score need probabilities in [0, 1]")

    def statistic(idx: np.ndarray) -> dict[str, np.ndarray]:
        pw, nw = wp[idx], wn[idx]
        out: dict[str, np.ndarray] = {}
        if labeling:
            tp, fp = pw @ predf, nw @ predf
            out.update(labeling_measures(tp, fp, pw.sum(axis=1) - tp, nw.sum(axis=1) - fp, labeling))
        if scored:
            out.update(score_measures(_cell_sums(pw, onehot), _cell_sums(nw, onehot), terms, scored))
        return out

    return statistic


def multiclass_statistic(codes: np.ndarray, pred_codes: np.ndarray, k: int, weight: np.ndarray | None,
                         names: tuple[str, ...]) -> Statistic:
    """Multi-class labeling metrics (as the report defines them: a macro average for the
    per-class metrics, 0/0 counting 0) of the true classes ``codes`` with their weights
    permuted against the fixed predicted classes ``pred_codes``."""
    w = np.ones(codes.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    per_true = [np.where(codes == t, w, 0.0) for t in range(k)]
    onehot = _onehot(np.asarray(pred_codes), k)
    metrics = [nm for nm in names if nm in METRICS]

    def statistic(idx: np.ndarray) -> dict[str, np.ndarray]:
        tables = np.stack([_cell_sums(wt[idx], onehot) for wt in per_true], axis=1)  # (B, true, predicted)
        return table_measures(tables, metrics)

    return statistic


#: the report's one-vs-rest AUC rows -> (curve measure, averaged with the class prevalences)
_OVR = {"roc_auc": ("roc_auc", False), "pr_auc": ("pr_auc", False),
        "roc_auc_weighted": ("roc_auc", True), "pr_auc_weighted": ("pr_auc", True)}


def probabilities_statistic(codes: np.ndarray, proba: np.ndarray, weight: np.ndarray | None,
                            names: tuple[str, ...]) -> Statistic:
    """The log loss and Brier score (per-row losses of :mod:`beyondchance.measures.losses`,
    weighted means) and the one-vs-rest ROC AUC and average precision (macro, and weighted
    by the classes' prevalences — fixed by the permutation) of the true classes ``codes``
    with their weights permuted against the fixed probability rows ``proba`` (n, k)."""
    n, k = proba.shape
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    per_true = [np.where(codes == t, w, 0.0) for t in range(k)]
    total = float(w.sum())
    losses = {nm: np.column_stack([get_loss("cross_entropy" if nm == "log_loss" else nm).sample_losses_proba(
        proba, np.full(n, t)) for t in range(k)]) for nm in names if nm in ("log_loss", "brier")}
    aucs = {nm: spec for nm, spec in _OVR.items() if nm in names}
    prev = np.array([p.sum() for p in per_true]) / total
    cols = []
    if aucs:
        for t in range(k):
            v, cells = np.unique(-proba[:, t], return_inverse=True)
            cols.append(_onehot(cells.ravel(), v.size))
    curves = tuple(sorted({spec[0] for spec in aucs.values()}))

    def statistic(idx: np.ndarray) -> dict[str, np.ndarray]:
        moved = [wt[idx] for wt in per_true]  # (B, n) weight of class t at each probability row
        out = {nm: sum(m @ table[:, t] for t, m in enumerate(moved)) / total for nm, table in losses.items()}
        if aucs:
            all_w = w[idx]
            per_class: dict[str, list[np.ndarray]] = {c: [] for c in curves}
            for t, onehot in enumerate(cols):
                pos = _cell_sums(moved[t], onehot)
                res = _cell_measures(pos, _cell_sums(all_w, onehot) - pos, {}, {}, curves)
                for c in curves:
                    per_class[c].append(res[c])
            for nm, (c, weighted) in aucs.items():
                vals = np.stack(per_class[c], axis=1)
                out[nm] = vals @ prev if weighted else vals.mean(axis=1)
        return out

    return statistic


def regression_statistic(y: np.ndarray, pred: np.ndarray, weight: np.ndarray | None,
                         losses: dict[str, Any]) -> Statistic:
    """The weighted mean losses ``losses`` (name -> loss of :mod:`beyondchance.measures.losses`)
    of the targets ``y`` with their weights permuted against the fixed predictions."""
    w = np.ones(y.shape[0]) if weight is None else np.asarray(weight, dtype=np.float64)
    total = float(w.sum())
    fns = {nm: get_loss(loss) for nm, loss in losses.items()}

    def statistic(idx: np.ndarray) -> dict[str, np.ndarray]:
        yy, ww = y[idx], w[idx]
        return {nm: (ww * fn.pointwise(np.broadcast_to(pred, yy.shape), yy)).sum(axis=1) / total
                for nm, fn in fns.items()}

    return statistic


def squared_loss_test(y: Any, pred: Any, weight: Any = None, *, name: str = "mse") -> PermutationTestResult:
    r"""Asymptotic permutation test of "the squared error is no smaller than chance" from
    the moments (module docstring): :math:`p = \Phi((T - E T) / \sqrt{\operatorname{Var} T})`
    with T the weighted squared-error sum under the permutations of the predictions against
    the (target, weight) rows.

    >>> rng = np.random.default_rng(0)
    >>> y = rng.normal(size=200)
    >>> r = squared_loss_test(y, y + rng.normal(size=200))
    >>> r.method, r.pvalue < 1e-6, squared_loss_test(y, rng.normal(size=200)).pvalue > 1e-3
    ('permutation CLT', True, True)
    """
    p = np.asarray(pred, dtype=np.float64)
    shift = float(p.mean()) if p.size else 0.0  # y − ŷ is unchanged: sums of powers without large offsets
    p = p - shift
    y = np.asarray(y, dtype=np.float64) - shift
    n = y.shape[0]
    w = np.ones(n) if weight is None else np.asarray(weight, dtype=np.float64)
    total = float(w.sum())
    if n < 3 or total <= 0:
        raise InvalidInputError("the permutation test of the squared error needs at least 3 rows of positive weight")
    observed = float(np.dot(w, (y - p) ** 2))
    mean = (float(np.dot(w, y * y)) + float(w.sum()) * float(np.dot(p, p)) / n
            - 2.0 * float(np.dot(w, y)) * float(p.sum()) / n)
    a, b = w - w.mean(), p * p - np.mean(p * p)
    c, d = -2.0 * (w * y - np.mean(w * y)), p - p.mean()
    var = (float(a @ a) * float(b @ b) + 2.0 * float(a @ c) * float(b @ d) + float(c @ c) * float(d @ d)) / (n - 1)
    return normal_test(name, observed, mean, var, total)


def squared_loss_test_of_moments(n: int, y_moments: Any, pred_moments: Any, squared_error_sum: float, *,
                                 name: str = "mse") -> PermutationTestResult:
    r"""The permutation CLT test of the squared error of unweighted rows from the statistics:
    the :class:`~beyondchance.statistics.values.Moments` of y and of the predictions and the sum of the
    squared errors (module docstring); equals :func:`squared_loss_test` on the rows.

    >>> from beyondchance.statistics.values import Moments
    >>> rng = np.random.default_rng(0)
    >>> y, p = rng.normal(size=100), rng.normal(size=100)
    >>> a = squared_loss_test_of_moments(100, Moments.from_values(y), Moments.from_values(p), ((y - p) ** 2).sum())
    >>> bool(abs(a.pvalue - squared_loss_test(y, p).pvalue) < 1e-9)
    True
    """
    if n < 3:
        raise InvalidInputError("the permutation test of the squared error needs at least 3 rows")
    syy, sff = float(y_moments.m2), float(pred_moments.m2)
    mean = syy + sff + n * (float(y_moments.mean) - float(pred_moments.mean)) ** 2
    return normal_test(name, float(squared_error_sum), mean, 4.0 * syy * sff / (n - 1), float(n))


#: the power sums of :class:`SquaredErrorSums` (y, ŷ shifted by ``shift``; w the weights)
SQUARED_ERROR_TERMS = ("rows", "w", "w2", "wy", "wyy", "wwy", "wwyy", "p", "pp", "ppp", "pppp", "sse")


@dataclass(frozen=True)
class SquaredErrorSums:
    r"""The sums the permutation CLT test of a weighted squared error needs (module docstring),
    of y and ŷ shifted by ``shift`` (a constant near ŷ's mean: the sums keep no large offsets):
    rows, :math:`\sum w, \sum w^2, \sum wy, \sum wy^2, \sum w^2 y, \sum w^2 y^2, \sum \hat y,
    \sum \hat y^2, \sum \hat y^3, \sum \hat y^4` and the squared-error sum
    :math:`\sum w (y - \hat y)^2` — each engine's one ``SUM`` per term.

    >>> rng = np.random.default_rng(0)
    >>> y, p, w = rng.normal(size=50), rng.normal(size=50), rng.exponential(size=50)
    >>> a = SquaredErrorSums.of_rows(y, p, w).test()
    >>> bool(abs(a.pvalue - squared_loss_test(y, p, w).pvalue) < 1e-9)
    True
    """

    shift: float
    sums: dict

    def __post_init__(self) -> None:
        sums = dict(self.sums) if isinstance(self.sums, dict) else {}
        if set(sums) != set(SQUARED_ERROR_TERMS) or not all(
                isinstance(v, (int, float, np.number)) and not isinstance(v, bool) and np.isfinite(v)
                for v in (self.shift, *sums.values())):
            raise InvalidInputError("SquaredErrorSums need a finite shift and the finite sums "
                                    + ", ".join(SQUARED_ERROR_TERMS))
        # sums of squares are non-negative, and (Σ a b)² ≤ Σ a² Σ b² (Cauchy-Schwarz) for the sums
        # of one set of rows: (Σw)² ≤ rows Σw², (Σwy)² ≤ Σw Σwy², (Σw²y)² ≤ Σw² Σw²y², (Σp)² ≤ rows Σp²,
        # (Σp²)² ≤ rows Σp⁴
        if min(sums[k] for k in ("rows", "w", "w2", "wyy", "wwyy", "pp", "pppp", "sse")) < 0 or any(
                sums[a] * sums[a] > sums[b] * sums[c] * (1 + 1e-9) + 1e-300
                for a, b, c in (("w", "rows", "w2"), ("wy", "w", "wyy"), ("wwy", "w2", "wwyy"), ("p", "rows", "pp"),
                                ("pp", "rows", "pppp"))):
            raise InvalidInputError("SquaredErrorSums that are no sums of one set of rows (negative sums of "
                                    "squares, or (Σ a b)² > Σ a² Σ b²)")

    @classmethod
    def of_rows(cls, y: np.ndarray, pred: np.ndarray, w: np.ndarray | None, shift: float | None = None
                ) -> "SquaredErrorSums":
        """From the rows (default shift: the weighted mean of the predictions)."""
        w = np.ones(y.shape[0]) if w is None else np.asarray(w, dtype=np.float64)
        shift = float(np.dot(w, pred) / w.sum()) if shift is None else float(shift)
        yy, p = np.asarray(y, dtype=np.float64) - shift, np.asarray(pred, dtype=np.float64) - shift
        wy = w * yy
        values = (y.shape[0], w.sum(), w @ w, wy.sum(), wy @ yy, w @ wy, wy @ wy, p.sum(), p @ p, (p * p) @ p,
                  (p * p) @ (p * p), w @ ((yy - p) ** 2))
        return cls(shift, {k: float(v) for k, v in zip(SQUARED_ERROR_TERMS, values)})

    def merge(self, other: "SquaredErrorSums") -> "SquaredErrorSums":
        """The sums of the concatenated data: ``other``'s moved to this shift (binomial expansion)."""
        if not isinstance(other, SquaredErrorSums):
            raise InvalidInputError(f"cannot merge SquaredErrorSums with {type(other).__name__}")
        d, o = other.shift - self.shift, other.sums  # y − s = (y − s') + d
        moved = {"rows": o["rows"], "w": o["w"], "w2": o["w2"], "wy": o["wy"] + d * o["w"],
                 "wyy": o["wyy"] + 2 * d * o["wy"] + d * d * o["w"], "wwy": o["wwy"] + d * o["w2"],
                 "wwyy": o["wwyy"] + 2 * d * o["wwy"] + d * d * o["w2"], "p": o["p"] + d * o["rows"],
                 "pp": o["pp"] + 2 * d * o["p"] + d * d * o["rows"],
                 "ppp": o["ppp"] + 3 * d * o["pp"] + 3 * d * d * o["p"] + d ** 3 * o["rows"],
                 "pppp": o["pppp"] + 4 * d * o["ppp"] + 6 * d * d * o["pp"] + 4 * d ** 3 * o["p"] + d ** 4 * o["rows"],
                 "sse": o["sse"]}
        return SquaredErrorSums(self.shift, {k: self.sums[k] + moved[k] for k in SQUARED_ERROR_TERMS})

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    def test(self, name: str = "mse") -> PermutationTestResult:
        """:func:`squared_loss_test` from the sums (the same centred sums of squares, expanded)."""
        s = self.sums
        n = s["rows"]
        if n < 3 or s["w"] <= 0:
            raise InvalidInputError("the permutation test of the squared error needs at least 3 rows of positive "
                                    "weight")
        mean = s["wyy"] + s["w"] * s["pp"] / n - 2.0 * s["wy"] * s["p"] / n
        aa, bb = s["w2"] - s["w"] * s["w"] / n, s["pppp"] - s["pp"] * s["pp"] / n
        cc, dd = 4.0 * (s["wwyy"] - s["wy"] * s["wy"] / n), s["pp"] - s["p"] * s["p"] / n
        ac, bd = -2.0 * (s["wwy"] - s["w"] * s["wy"] / n), s["ppp"] - s["p"] * s["pp"] / n
        return normal_test(name, s["sse"], mean, (aa * bb + 2.0 * ac * bd + cc * dd) / (n - 1), s["w"])

    def to_dict(self) -> dict[str, Any]:
        return {"shift": self.shift, **self.sums}

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("rows", self.sums["rows"]), ("weight", self.sums["w"])]
