r"""The permutation test of the one-vs-rest ROC AUCs of class probabilities from sums: the
Hájek projection of the AUC and Hoeffding's combinatorial CLT.

Under the permutation null of :mod:`beyondchance.inference.permutation.rows` the (label, weight)
pairs of the rows are shuffled against the fixed probability rows.  Write
:math:`a_m = w_m 1[y_m = k]`, :math:`b_m = w_m 1[y_m \ne k]` for the pair m, π(i) the pair
put at row i, :math:`H_{ij} = H(s_{ik} - s_{jk})` (1 above, ½ at a tie, 0 below) for the
class-k scores of rows i and j.  The one-vs-rest ROC AUC of class k is

.. math::

    \mathrm{AUC}_k = \frac{T_k}{W_k W_{\neg k}}, \qquad
    T_k = \sum_{i \ne j} a_{\pi(i)} b_{\pi(j)} H_{ij},

with :math:`W_k = \sum a`, :math:`W_{\neg k} = \sum b` fixed by the permutation.

*Exact mean.*  For i ≠ j, :math:`E\, a_{\pi(i)} b_{\pi(j)} = \sum_{m \ne m'} a_m b_{m'} / (n(n-1))
= W_k W_{\neg k} / (n(n-1))` (no pair has :math:`a_m b_m \ne 0`), and
:math:`\sum_{i \ne j} H_{ij} = n(n-1)/2` (:math:`H_{ij} + H_{ji} = 1`), so
:math:`E\,\mathrm{AUC}_k = 1/2` exactly — with weights, zero weights and ties.

*Projection.*  With :math:`E[b_{\pi(j)} \mid \pi(i) = m] = (W_{\neg k} - b_m)/(n-1)`,
:math:`E[T_k \mid \pi(i) = m]` is, up to terms of i alone or of m alone (constants of any
linear permutation statistic — the pairs not touching row i contribute
:math:`-(a_m W_{\neg k} + b_m W_k)/2` plus a constant, since
:math:`\sum_{j \ne l;\, j, l \ne i} H_{jl} = (n-1)(n-2)/2` whatever i),
:math:`G_i (a_m W_{\neg k} - b_m W_k)/(n-1)` with
:math:`G_i = \sum_{j \ne i} H_{ij} = n R_k(i) - 1/2` and

.. math::

    R_k(i) = \frac1n \sum_j H(s_{ik} - s_{jk}),

the mid-rank fraction of row i's class-k score among all n rows (zero weights included —
their probability rows are permuted too; unweighted: the other row's weight averages out
under the permutation).  A linear statistic :math:`Z = \sum_i d(i, \pi(i))` with d doubly
centred has :math:`E[Z \mid \pi(i) = m] = \frac{n}{n-1} d(i, m)`, so the Hájek projection
(the L² projection onto the linear permutation statistics) of :math:`\mathrm{AUC}_k` is
:math:`\sum_i d_k(i, \pi(i))`, :math:`d_k` the double centring of

.. math::

    c_k(i, m) = R_k(i) \Bigl(\frac{a_m}{W_k} - \frac{b_m}{W_{\neg k}}\Bigr),

the placement values of DeLong et al. (1988) as a permutation statistic.  The macro AUC
:math:`\frac1K \sum_k \mathrm{AUC}_k` and the prevalence-weighted AUC
:math:`\sum_k (W_k / W)\, \mathrm{AUC}_k` are linear combinations
:math:`\sum_k \alpha_k \mathrm{AUC}_k`, so their projection is the linear statistic of
:math:`c(i, m) = u_i^\top a_m`, :math:`u_i = (R_k(i))_k`,
:math:`a_m = w_m v^{(y_m)}`, :math:`v^{(y)}_k = \alpha_k (1[y = k] (1/W_k + 1/W_{\neg k})
- 1/W_{\neg k})`.  Hoeffding's combinatorial central limit theorem (Hoeffding 1951), as in
:mod:`beyondchance.inference.permutation.loss`, gives its variance

.. math::

    \operatorname{Var} = \frac{\operatorname{tr}(S_u S_a)}{n - 1}, \quad
    S_u = \sum_i u_i u_i^\top - \frac1n \Bigl(\sum_i u_i\Bigr)\Bigl(\sum_i u_i\Bigr)^\top, \quad
    S_a = \sum_y Q_y\, v^{(y)} v^{(y)\top}

(:math:`\sum_m a_m = 0`; :math:`Q_y = \sum_{y_m = y} w_m^2`): the sums
:class:`PermutationAUCSums` holds — the rows n, per class Σw and Σw², over the rows
:math:`\sum_i R_k(i)` (= n/2) and the K × K cross moments :math:`\sum_i R_k(i) R_l(i)`.
The remainder :math:`\mathrm{AUC} - 1/2 - \sum_i d(i, \pi(i))` is the degenerate
(second-order) part of the Hoeffding decomposition (Hoeffding 1948): its variance is
O(1/n²) against the projection's O(1/n), so the projection variance underestimates the
exact permutation variance by a relative O(1/n).  Unweighted, the remainder vanishes:
:math:`T_k` is then the Wilcoxon rank sum of class k, a linear rank statistic, and the
variance is exact.  Measured (tests/test_permutation_auc.py): against the exact
enumeration of all 40,320 permutations at n = 8, the mean is ½ and the unweighted variance
exact to rounding; weighted (exponential weights, ties or not, 20 configurations) the
projection variance is 0.90–0.99 of the exact one (median 0.96); at n = 2,000 (weighted)
20,000 Monte Carlo permutations gave a variance 0.998 times the projection's (s.e. 0.010).

The test of "the AUC is no larger than chance" is the normal approximation
:math:`p = 1 - \Phi((\mathrm{AUC} - 1/2)/\sqrt{\operatorname{Var}})`: asymptotic.  Its
rejection rate at 5% under the null (benchmarks/sim_tests.py, 2,000 replicates per cell,
seeds 1083–1090, 3 classes of prevalences 0.5, 0.3, 0.2 independent of Dirichlet(1)
probabilities): macro / prevalence-weighted AUC, exponential weights, 0.0490 / 0.0490 at
n = 200 and 0.0450 / 0.0445 at n = 20,000; unweighted 0.0530 / 0.0510 (n = 200) and
0.0595 / 0.0470 (n = 20,000).

The ranks need the whole column: unlike :class:`~beyondchance.inference.permutation.loss.PermutationLossSums`
the sums do not add across chunks.  In memory they come from one sort per column
(:meth:`PermutationAUCSums.of_proba`); from DuckDB or Spark from one query
(``engines.sql_permutation.auc_rank_query``): per column the row count of each distinct value, its mid-rank by
a running sum, and every row joined with its columns' ranks.  With ``score_bins`` the score
of a row is its bin ``floor(p · bins)`` — the binned AUC the report shows.

References: W. Hoeffding (1948), A class of statistics with asymptotically normal
distribution, Ann. Math. Statist. 19; W. Hoeffding (1951), A combinatorial central limit
theorem, Ann. Math. Statist. 22; E. R. DeLong, D. M. DeLong, D. L. Clarke-Pearson (1988),
Comparing the areas under two or more correlated ROC curves, Biometrics 44.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._summary_display import SummaryDisplay
from ..._validation import as_float_2d, check_sample_weight
from ..._warnings import InvalidInputError
from .result import PermutationTestResult, normal_test
from .clt import _readonly

__all__ = ["PermutationAUCSums", "AUC_CLT_METHOD", "AUC_NAMES", "mid_rank_fractions"]

#: the ``method`` of the tests of this module
AUC_CLT_METHOD = "permutation CLT of the AUC"
#: the report's rows this module tests (one-vs-rest ROC AUC, macro and prevalence-weighted)
AUC_NAMES = ("roc_auc", "roc_auc_weighted")


def mid_rank_fractions(x: Any) -> np.ndarray:
    """R(i) = (#{j: x_j < x_i} + ½ #{j: x_j = x_i}) / n, i's own row counted ½.

    >>> mid_rank_fractions([0.3, 0.1, 0.3, 0.9]).tolist()
    [0.5, 0.125, 0.5, 0.875]
    """
    return _column(np.asarray(x, dtype=np.float64))[0]


def _column(x: np.ndarray, a: np.ndarray | None = None, b: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """(the mid-rank fractions of x, the weighted AUC of positives a against negatives b at
    scores x, ties ½ — nan without a and b) from one sort of x."""
    _, inv, cnt = np.unique(x, return_inverse=True, return_counts=True)
    inv = inv.ravel()
    ranks = ((np.cumsum(cnt) - 0.5 * cnt) / max(x.shape[0], 1))[inv]
    if a is None or b is None:
        return ranks, float("nan")
    p, q = np.bincount(inv, weights=a), np.bincount(inv, weights=b)
    return ranks, float(p @ (np.cumsum(q) - 0.5 * q)) / (a.sum() * b.sum())


@dataclass(frozen=True, eq=False)
class PermutationAUCSums(SummaryDisplay):
    r"""The sums of the permutation CLT of the one-vs-rest ROC AUCs (module docstring).

    Attributes
    ----------
    classes : (K,) the classes
    n : rows, zero weights included
    weights, squares : (K,) Σ w and Σ w² of the rows of each class
    first : (K,) Σ_i R_k(i) over all rows (n/2)
    second : (K, K) Σ_i R_k(i) R_l(i)
    observed : (K,) the observed AUC_k (NaN where not computed: the report's value is used)

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> proba = rng.dirichlet(np.ones(3), size=500); y = rng.integers(0, 3, 500)
    >>> sums = PermutationAUCSums.of_proba(y, proba, rng.exponential(size=500))
    >>> r = sums.test("roc_auc")
    >>> r.method, r.null_mean, bool(0.01 < r.pvalue < 0.99)
    ('permutation CLT of the AUC', 0.5, True)
    """

    classes: np.ndarray
    n: float
    weights: np.ndarray
    squares: np.ndarray
    first: np.ndarray
    second: np.ndarray
    observed: np.ndarray

    def __post_init__(self) -> None:
        k = np.shape(self.classes)[0] if np.ndim(self.classes) == 1 else -1
        arrays = {nm: _readonly(getattr(self, nm)) for nm in ("weights", "squares", "first", "observed")}
        second = _readonly(self.second)
        if any(a.shape != (k,) for a in arrays.values()) or second.shape != (k, k):
            raise InvalidInputError("PermutationAUCSums need classes, weights, squares, first, observed (K,) and "
                                    "second (K, K)")
        if not all(np.isfinite(arrays[nm]).all() for nm in ("weights", "squares", "first")) or \
                not np.isfinite(second).all() or (arrays["weights"] < 0).any() or (arrays["squares"] < 0).any():
            raise InvalidInputError("PermutationAUCSums need finite sums and non-negative weights")
        classes = np.array(self.classes)
        classes.setflags(write=False)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "n", float(self.n))
        object.__setattr__(self, "second", second)
        for nm, a in arrays.items():
            object.__setattr__(self, nm, a)

    @classmethod
    def of_proba(cls, codes: Any, proba: Any, w: Any, classes: Any = None, *,
                 score_bins: int | None = None) -> "PermutationAUCSums":
        """From each row's class ``codes`` (indices of ``classes``, default 0..K−1), its
        weight ``w`` (None: 1) and its class probabilities (n, K): one sort per column
        (``score_bins``: the scores ``floor(p · bins)``, the engines' binned AUC)."""
        proba = as_float_2d(proba, "y_proba")
        if proba.ndim != 2:
            raise InvalidInputError(f"y_proba must be (n, K), got shape {proba.shape}")
        n, k = proba.shape
        codes = np.asarray(codes, dtype=np.intp)
        w = np.ones(n) if w is None else check_sample_weight(w, n)
        classes = np.arange(k) if classes is None else np.asarray(classes)
        if score_bins is not None:
            proba = np.floor(proba * int(score_bins))
        weights = np.bincount(codes, weights=w, minlength=k)
        ranks, observed = np.zeros((n, k)), np.full(k, np.nan)
        for j in range(k):  # one sort per column: its ranks and its one-vs-rest AUC
            own = codes == j
            ab = (np.where(own, w, 0.0), np.where(own, 0.0, w)) if 0 < weights[j] < weights.sum() else (None, None)
            ranks[:, j], observed[j] = _column(proba[:, j], *ab)
        return cls(classes, n, weights, np.bincount(codes, weights=w * w, minlength=k), ranks.sum(axis=0),
                   ranks.T @ ranks, observed)

    def coefficients(self, name: str) -> np.ndarray:
        """(K,) α: the AUC row ``name`` = Σ_k α_k AUC_k (macro: 1/K; weighted: W_k / W)."""
        total = float(self.weights.sum())
        if name == "roc_auc":
            return np.full(self.classes.size, 1.0 / self.classes.size)
        if name == "roc_auc_weighted":
            return self.weights / total
        raise InvalidInputError(f"the AUC CLT applies to {', '.join(AUC_NAMES)}, not {name!r}")

    def moments(self, name: str) -> tuple[float, float]:
        """(E, Var) of the AUC row ``name`` under the permutation null: E = ½ exactly, Var
        that of its Hájek projection (module docstring)."""
        n, wk = self.n, self.weights
        if n < 2:
            raise InvalidInputError("the permutation CLT of the AUC needs at least 2 rows")
        rest = wk.sum() - wk
        if not (np.all(wk > 0) and np.all(rest > 0)):
            raise InvalidInputError("the one-vs-rest AUC needs positive weight in every class and in its rest")
        alpha = self.coefficients(name)
        v = alpha[None, :] * (np.eye(wk.size) * (1 / wk + 1 / rest)[None, :] - (1 / rest)[None, :])  # (y, k)
        s_a = v.T @ (self.squares[:, None] * v)
        s_u = self.second - np.outer(self.first, self.first) / n
        return 0.5, max(float(np.sum(s_u * s_a)) / (n - 1), 0.0)

    def value(self, name: str) -> float:
        """The observed AUC row ``name`` from the per-class AUCs (NaN when not computed)."""
        return float(self.coefficients(name) @ self.observed)

    def test(self, name: str, observed: float | None = None) -> PermutationTestResult:
        """The one-sided test of "the AUC row ``name`` is no larger than chance": the normal
        approximation of its permutation law (method :data:`AUC_CLT_METHOD`); ``observed``
        its value (default: from the per-class AUCs)."""
        mean, var = self.moments(name)
        obs = self.value(name) if observed is None else float(observed)
        if not math.isfinite(obs):
            raise InvalidInputError(f"no observed value of {name}")
        # constant probabilities (every row tied): every permutation gives AUC ½, p = 1
        return normal_test(name, obs, mean, var, method=AUC_CLT_METHOD, greater_is_better=True)

    def to_dict(self) -> dict[str, Any]:
        from ..._json import jsonable

        return {"classes": jsonable(self.classes.tolist()), "n": self.n, "weights": self.weights.tolist(),
                "squares": self.squares.tolist(), "first": self.first.tolist(), "second": self.second.tolist(),
                "observed": [None if not math.isfinite(v) else v for v in self.observed.tolist()]}

    def __repr__(self) -> str:
        return f"PermutationAUCSums({self.classes.size} classes, n={self.n:g})"

    def _summary_title(self) -> str:
        return "Sums of the permutation CLT of the one-vs-rest AUCs"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("classes", int(self.classes.size)), ("rows", self.n)]
