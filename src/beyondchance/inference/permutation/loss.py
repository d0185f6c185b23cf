r"""The permutation test of a probabilistic loss from sums: Hoeffding's CLT of the loss sum.

Under the permutation null of :mod:`beyondchance.inference.permutation.rows` the (label, weight)
pairs of the rows are shuffled against the fixed probability rows.  The weighted loss sum of
a permutation π is the *linear* permutation statistic

.. math::

    T = \sum_i c_{i\pi(i)}, \qquad c_{ij} = w_j\, L_{y_j}(i),

row i's probability vector :math:`p_i` scored against row j's label :math:`y_j` and weight
:math:`w_j`, with :math:`L_k(i)` the loss of :math:`p_i` were the class k: the log loss
:math:`L_k = -\ln \operatorname{clip}(p_k)` (clipped to [eps, 1 − eps], as
:mod:`beyondchance.measures.losses` and the engines' SQL) and the (multi-class) Brier score
:math:`L_k = \sum_l p_l^2 - 2 p_k + 1`; binary scores s are the case K = 2 with
:math:`p = (1 - s, s)`, the Brier score on the binary report's scale :math:`(s - y)^2`.
Hoeffding's combinatorial central limit theorem (Hoeffding 1951) gives its exact
permutation mean and variance,

.. math::

    E\,T = \frac1n \sum_{ij} c_{ij}, \qquad
    \operatorname{Var} T = \frac{1}{n-1} \sum_{ij} d_{ij}^2, \quad
    d_{ij} = c_{ij} - \bar c_{i\cdot} - \bar c_{\cdot j} + \bar c_{\cdot\cdot},

and T is asymptotically normal.  Write :math:`c_{ij} = L_i^\top a_j` with
:math:`L_i = (L_k(i))_k` and :math:`a_j = (w_j 1[y_j = k])_k` (row j's weight in the column
of its class).  Then :math:`\bar c_{i\cdot} = L_i^\top \bar a`,
:math:`\bar c_{\cdot j} = \bar L^\top a_j`, :math:`\bar c_{\cdot\cdot} = \bar L^\top \bar a`,
so :math:`d_{ij} = (L_i - \bar L)^\top (a_j - \bar a)` and

.. math::

    E\,T = \frac1n \Bigl(\sum_i L_i\Bigr)^\top \Bigl(\sum_j a_j\Bigr), \qquad
    \operatorname{Var} T = \frac{\operatorname{tr}(S_L S_a)}{n-1}
    = \frac{1}{n-1} \sum_{kl} (S_L)_{kl} (S_a)_{kl},

    S_L = \sum_i L_i L_i^\top - \frac1n \Bigl(\sum_i L_i\Bigr)\Bigl(\sum_i L_i\Bigr)^\top, \qquad
    S_a = \sum_j a_j a_j^\top - n \bar a \bar a^\top
    = \operatorname{diag}\Bigl(\sum_{y_j = k} w_j^2\Bigr) - \frac1n\, W W^\top,

:math:`W_k = \sum_{y_j = k} w_j` (the identity
:math:`\sum_{ij} (u_i^\top v_j)^2 = \operatorname{tr}(\sum_i u_i u_i^\top \sum_j v_j v_j^\top)`,
and :math:`a_j a_j^\top = w_j^2 e_{y_j} e_{y_j}^\top`).  Everything is a sum an engine
computes in one scan (:class:`PermutationLossSums`): the rows n; per class of the labels
:math:`\sum w` and :math:`\sum w^2`; over all rows (zero weights included — their
predictions are permuted too) :math:`\sum_i L_k(i)` and the K × K cross moments
:math:`\sum_i L_k(i) L_l(i)`; and the observed sum :math:`\sum_j w_j L_{y_j}(j)`.  The sums
add across chunks and groups.

The test of "the loss is no smaller than chance" (smaller is better) is the normal
approximation :math:`p = \Phi((T - E\,T) / \sqrt{\operatorname{Var} T})` of the permutation
law of the mean loss :math:`T / \sum w` (null mean and sd divided by :math:`\sum w`):
*asymptotic*.  Its rejection rate at 5% under the null (benchmarks/sim_tests.py, 2,000
replicates per cell, seeds 1058–1069, exponential weights, labels independent of the
predictions): 3-class log loss 0.0460 and Brier 0.0520 at n = 200, 0.0515 and 0.0495 at
n = 20,000; binary scores 0.0485 / 0.0510 (n = 200) and 0.0520 / 0.0525 (n = 20,000);
unweighted log loss 0.0500 (n = 200); 0.0425 at n = 50; sharp Dirichlet(0.3) probabilities
0.0320 at n = 200 (a right-skewed loss sum: the normal approximation is conservative) and
0.0535 at n = 20,000.
Unlike the Monte Carlo tests it needs no draws, so it is the test at any n where no row
permutation test is run: beyond ``ROW_BUDGET`` in memory and from a DuckDB/Spark relation.
The sums are raw (not centred): :math:`S_L` loses relative precision when the losses vary
little around a large mean (about eps · Σ L² / S_L); constant predictions (S_L = 0 to
rounding) give p = 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..._summary_display import SummaryDisplay
from ..._validation import as_float_1d, check_sample_weight, merge_from_zero
from ..._warnings import InvalidInputError
from .result import PermutationTestResult, normal_test
from .clt import _readonly

__all__ = ["PermutationLossSums", "LOSS_CLT_METHOD", "LOSS_NAMES", "MAX_LOSS_CLASSES", "class_losses"]

#: the ``method`` of the tests of this module
LOSS_CLT_METHOD = "permutation CLT of the loss"
#: the losses (the report's row names)
LOSS_NAMES = ("log_loss", "brier")
#: the K × K cross moments are summed for at most this many classes (K(K + 1)/2 sums per loss)
MAX_LOSS_CLASSES = 30

_EPS = float(np.finfo(np.float64).eps)
_CHUNK = 1 << 20


def class_losses(proba: np.ndarray, loss: str) -> np.ndarray:
    """(n, K): the loss of each probability row were its class k — the per-row losses of
    :mod:`beyondchance.measures.losses` (``sample_losses_proba``) for every class.

    >>> class_losses(np.array([[0.2, 0.8]]), "brier").round(4).tolist()   # 0.68 - 2 p_k + 1
    [[1.28, 0.08]]
    """
    p = np.asarray(proba, dtype=np.float64)
    if loss == "log_loss":
        return -np.log(np.clip(p, _EPS, 1 - _EPS))
    if loss == "brier":
        return np.einsum("ij,ij->i", p, p)[:, None] - 2 * p + 1
    raise InvalidInputError(f"the loss CLT applies to {', '.join(LOSS_NAMES)}, not {loss!r}")


def _binary_losses(s: np.ndarray, loss: str) -> np.ndarray:
    """(n, 2) losses (negative, positive) of binary scores, as the binary report's rows."""
    from ...measures.binary_scores import loss_terms

    pos, neg = loss_terms(s, loss)
    return np.column_stack([neg, pos])


@dataclass(frozen=True, eq=False)
class PermutationLossSums(SummaryDisplay):
    r"""The sums of the permutation CLT of the log loss and Brier score (module docstring).

    Attributes
    ----------
    classes : (K,) the classes (binary scores: False, True = negative, positive)
    n : rows, zero weights included
    weights, squares : (K,) Σ w and Σ w² of the rows of each class
    first : loss -> (K,) Σ_i L_k(i) over all rows
    second : loss -> (K, K) Σ_i L_k(i) L_l(i)
    observed : loss -> Σ_j w_j L_{y_j}(j), the observed weighted loss sum

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> proba = rng.dirichlet(np.ones(3), size=500); y = rng.integers(0, 3, 500)
    >>> sums = PermutationLossSums.of_proba(y, proba, rng.exponential(size=500))
    >>> r = sums.test("log_loss")
    >>> r.method, bool(0.01 < r.pvalue < 0.99), bool(abs(r.null_mean - r.statistic) < 4 * r.null_std)
    ('permutation CLT of the loss', True, True)
    """

    classes: np.ndarray
    n: float
    weights: np.ndarray
    squares: np.ndarray
    first: dict = field(default_factory=dict)
    second: dict = field(default_factory=dict)
    observed: dict = field(default_factory=dict)

    def __post_init__(self) -> None:
        k = np.shape(self.classes)[0] if np.ndim(self.classes) == 1 else -1
        weights, squares = _readonly(self.weights), _readonly(self.squares)
        if weights.shape != (k,) or squares.shape != (k,):
            raise InvalidInputError(f"PermutationLossSums need classes, weights and squares (K,); got "
                                    f"{np.shape(self.classes)}, {weights.shape}, {squares.shape}")
        first = {nm: _readonly(v) for nm, v in self.first.items()}
        second = {nm: _readonly(v) for nm, v in self.second.items()}
        if set(first) != set(second) or set(first) != set(self.observed) or any(
                first[nm].shape != (k,) or second[nm].shape != (k, k) for nm in first):
            raise InvalidInputError("PermutationLossSums need, per loss, first (K,), second (K, K) and observed")
        if not (np.isfinite(weights).all() and np.isfinite(squares).all()) or (weights < 0).any() or \
                (squares < 0).any() or not all(np.isfinite(first[nm]).all() and np.isfinite(second[nm]).all()
                                               and np.isfinite(self.observed[nm]) for nm in first) \
                or not (math.isfinite(float(self.n)) and float(self.n) >= 0):
            raise InvalidInputError("PermutationLossSums need finite sums and non-negative weights")
        classes = np.array(self.classes)
        classes.setflags(write=False)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "n", float(self.n))
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "squares", squares)
        object.__setattr__(self, "first", first)
        object.__setattr__(self, "second", second)
        object.__setattr__(self, "observed", {nm: float(v) for nm, v in self.observed.items()})

    @classmethod
    def of_losses(cls, codes: Any, losses: dict[str, np.ndarray], w: Any, classes: Any) -> "PermutationLossSums":
        """From each row's class ``codes`` (indices of ``classes``), its weight ``w`` (None: 1)
        and, per loss, the (n, K) losses of its prediction for every class."""
        codes = np.asarray(codes, dtype=np.intp)
        k, n = len(classes), codes.shape[0]
        w = np.ones(n) if w is None else as_float_1d(w, "sample_weight")  # a chunk's weights may all be 0
        if w.shape[0] != n or (w < 0).any():
            raise InvalidInputError("sample_weight must hold one non-negative weight per row")
        first, second, observed = {}, {}, {}
        for nm, table in losses.items():
            table = np.asarray(table, dtype=np.float64)
            if table.shape != (n, k):
                raise InvalidInputError(f"the losses of {nm!r} must be (n, K) = {(n, k)}, got {table.shape}")
            first[nm], second[nm] = table.sum(axis=0), table.T @ table
            observed[nm] = float(np.dot(w, table[np.arange(n), codes]))
        return cls(np.asarray(classes), n, np.bincount(codes, weights=w, minlength=k),
                   np.bincount(codes, weights=w * w, minlength=k), first, second, observed)

    @classmethod
    def of_proba(cls, codes: Any, proba: Any, w: Any, classes: Any = None,
                 losses: tuple[str, ...] = LOSS_NAMES) -> "PermutationLossSums":
        """From the rows of class probabilities (n, K) (classes default 0..K−1), in chunks; ``w``
        checked weights or None (:meth:`of_losses` refuses negative ones)."""
        proba = np.asarray(proba, dtype=np.float64)
        n, k = proba.shape
        codes = np.asarray(codes, dtype=np.intp)
        classes = np.arange(k) if classes is None else np.asarray(classes)
        out: PermutationLossSums | None = None
        for start in range(0, max(n, 1), _CHUNK):
            part = slice(start, start + _CHUNK)
            s = cls.of_losses(codes[part], {nm: class_losses(proba[part], nm) for nm in losses},
                              None if w is None else w[part], classes)
            out = s if out is None else out + s
        assert out is not None  # the loop runs at least once
        return out

    @classmethod
    def of_scores(cls, is_pos: Any, s: Any, w: Any, losses: tuple[str, ...] = LOSS_NAMES) -> "PermutationLossSums":
        """From binary labels and scores in [0, 1]: classes (False, True), the losses of the
        binary report (the log loss, and the Brier score (s − y)²)."""
        s = as_float_1d(s, "y_score")
        if s.size and (s.min() < 0 or s.max() > 1):
            raise InvalidInputError("the log loss and Brier score need probabilities in [0, 1]")
        codes = np.asarray(is_pos, dtype=bool).astype(np.intp)
        w = check_sample_weight(w, s.shape[0])
        out: PermutationLossSums | None = None
        for start in range(0, max(s.shape[0], 1), _CHUNK):
            part = slice(start, start + _CHUNK)
            x = cls.of_losses(codes[part], {nm: _binary_losses(s[part], nm) for nm in losses},
                              None if w is None else w[part], np.array([False, True]))
            out = x if out is None else out + x
        assert out is not None  # the loop runs at least once
        return out

    def merge(self, other: "PermutationLossSums") -> "PermutationLossSums":
        """The sums of the concatenated data (the same classes and losses)."""
        if not isinstance(other, PermutationLossSums):
            raise InvalidInputError(f"cannot merge PermutationLossSums with {type(other).__name__}")
        if self.classes.shape != other.classes.shape or not np.array_equal(self.classes, other.classes) \
                or set(self.first) != set(other.first):
            raise InvalidInputError("cannot merge PermutationLossSums of different classes or losses")
        return PermutationLossSums(
            self.classes, self.n + other.n, self.weights + other.weights, self.squares + other.squares,
            {nm: self.first[nm] + other.first[nm] for nm in self.first},
            {nm: self.second[nm] + other.second[nm] for nm in self.first},
            {nm: self.observed[nm] + other.observed[nm] for nm in self.first})

    __add__ = merge
    __radd__ = merge_from_zero  # sum([a, b]) starts from 0

    def moments(self, loss: str) -> tuple[float, float]:
        """(E T, Var T) of the weighted loss sum under the permutation null (module docstring)."""
        if loss not in self.first:
            raise InvalidInputError(f"no sums of {loss!r}; these have {', '.join(self.first) or 'none'}")
        n = self.n
        if n < 2:
            raise InvalidInputError("the permutation CLT of the loss needs at least 2 rows")
        first, second = self.first[loss], self.second[loss]
        mean = float(first @ self.weights) / n
        s_l = second - np.outer(first, first) / n
        if np.trace(s_l) <= 1e-12 * max(np.trace(second), 0.0):  # constant predictions, to rounding
            return mean, 0.0
        s_a = np.diag(self.squares) - np.outer(self.weights, self.weights) / n
        return mean, max(float(np.sum(s_l * s_a)) / (n - 1), 0.0)

    def test(self, loss: str, name: str | None = None) -> PermutationTestResult:
        """The one-sided test of "the mean loss Σ w L / Σ w is no smaller than chance": the
        normal approximation of its permutation law (method :data:`LOSS_CLT_METHOD`)."""
        total = float(self.weights.sum())
        if not total > 0:
            raise InvalidInputError("the permutation CLT of the loss needs a positive total weight")
        mean, var = self.moments(loss)
        return normal_test(name or loss, self.observed[loss], mean, var, total, method=LOSS_CLT_METHOD)

    def to_dict(self) -> dict[str, Any]:
        from ..._json import jsonable

        return {"classes": jsonable(self.classes.tolist()), "n": self.n, "weights": self.weights.tolist(),
                "squares": self.squares.tolist(), "first": {k: v.tolist() for k, v in self.first.items()},
                "second": {k: v.tolist() for k, v in self.second.items()}, "observed": dict(self.observed)}

    def __repr__(self) -> str:
        return f"PermutationLossSums({self.classes.size} classes, n={self.n:g}, losses={list(self.first)})"

    def _summary_title(self) -> str:
        return "Sums of the permutation CLT of the losses"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("classes", int(self.classes.size)), ("rows", self.n), ("losses", ", ".join(self.first))]
