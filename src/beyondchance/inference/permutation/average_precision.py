r"""The permutation test of the one-vs-rest average precisions of class probabilities beyond
the row-draw budget: the joint permutation CLT of the K one-vs-rest cell tables.

Under the permutation null of :mod:`beyondchance.inference.permutation.rows` the (label, weight)
pairs are shuffled against the fixed probability rows.  Pool the scores of each column k
into at most B bins of adjacent scores of nearly equal row count (:func:`column_bins`, as
:func:`~beyondchance.measures.binary_scores.bin_starts` pools the scores of the binary tests;
:data:`AP_BINS`, fewer per column beyond :data:`MAX_AP_CELLS` cells in all), so that row i
falls in bin :math:`b_k(i)` of every column.  Give row i the indicator vector
:math:`A_i \in \{0, 1\}^D`, :math:`D = \sum_k B_k` — the concatenation of the one-hot vectors
of its K bins — and each (label, weight) pair the vector
:math:`a_m = (w_m 1[y_m = l])_{l=1..K}`.  The K one-vs-rest tables (per column k, per bin,
the weight of each class) form one D × K matrix

.. math::

    T = \sum_i A_i\, a_{\pi(i)}^\top,

a linear permutation statistic, whose exact permutation moments are (Hoeffding 1951, the
multivariate combinatorial central limit theorem: :math:`\operatorname{Cov}(a_{\pi(i)},
a_{\pi(j)}) = (\delta_{ij} - 1/n)\, S_a / (n - 1)`)

.. math::

    E\,T = n \bar A \bar a^\top, \qquad
    \operatorname{Cov}(T_{dl}, T_{el'}) = \frac{(S_A)_{de} (S_a)_{ll'}}{n - 1},
    \quad\text{i.e. } \operatorname{Cov}(\operatorname{vec} T) = \frac{S_a \otimes S_A}{n - 1},

.. math::

    S_A = \sum_i (A_i - \bar A)(A_i - \bar A)^\top = X - \frac{r r^\top}{n}, \qquad
    S_a = \operatorname{diag}\Bigl(\sum_{y_m = l} w_m^2\Bigr) - \frac{W W^\top}{n},

with X the crosstabs of the bins (its (k, l) block counts the rows in bin d of column k and
bin e of column l; the diagonal blocks are diag of the bin counts), r the rows per bin
(zero weights included) and W the weight of each class (Σ w, Σ w² per class as in
:mod:`beyondchance.inference.permutation.clt`, whose table is the case K = 1 column).  The tables of
different columns are correlated through the crosstabs; within a column the bins are the
cells of :mod:`beyondchance.inference.permutation.clt`.

*Draws.*  With :math:`M_A M_A^\top = S_A` and :math:`M_a M_a^\top = S_a` (symmetric
eigendecompositions; both are positive semi-definite and singular — the one-hot vectors of
a column sum to 1, so :math:`S_A \mathbf 1_k = 0` for the indicator :math:`\mathbf 1_k` of
column k's bins; tiny negative eigenvalues of rounding are clipped) and Z a D × K matrix of
independent standard normals, a draw is

.. math::

    T^* = E\,T + \frac{M_A Z M_a^\top}{\sqrt{n - 1}}:

:math:`\operatorname{vec}(M_A Z M_a^\top) = (M_a \otimes M_A) \operatorname{vec} Z`, whose
covariance is :math:`(M_a \otimes M_A)(M_a \otimes M_A)^\top = M_a M_a^\top \otimes M_A
M_A^\top = S_a \otimes S_A`, the moments above.  Every draw keeps each class's total in
every column (:math:`\mathbf 1_k^\top M_A = 0`), as every permutation does.

*The statistic.*  On each draw the one-vs-rest average precision of each column k is
evaluated from its bins by decreasing score — positives the class-k weight of the bin,
negatives the other classes' — (the cells' AP of
:class:`~beyondchance.measures.binary_scores.ScoreCells`, ties within a bin as in the binary
tests), then averaged (``pr_auc``: the mean over the classes; ``pr_auc_weighted``: weighted
by :math:`W_k / W`, fixed by the permutation).  The p-value is the Monte Carlo p-value
(1 + #{AP* ≥ AP}) / (B + 1) of B seeded draws
(:func:`~beyondchance.inference.permutation.clt.clt_tests`, the report's seed and resamples).  The
observed AP it is compared with is the AP of the SAME binned tables, not the report's exact
AP: the null distribution is that of the binned statistic (all rows of a bin tied), and
comparing another statistic with it would not be a test at any level — the binned AP is a
function of the (predictions, labels) pairing like any other, so its permutation test is an
exact test of "no association" were the draws exact permutations, and the normal draws
approximate that law (asymptotic), as the binned AUC and loss tests of
:mod:`beyondchance.inference.permutation.clt` do.  At 100 bins the binned AP lies close to the
exact one (the binning coarsens only the within-bin ordering).

Its rejection rate at 5% under the null (benchmarks/sim_tests.py, 2,000 replicates per
cell, seeds 1091–1094, 500 draws per p-value; 3 classes of prevalences 0.5, 0.3, 0.2
independent of Dirichlet(1) probabilities, macro AP): exponential weights 0.0435 at
n = 2,000 and 0.0520 at n = 20,000; unweighted 0.0460 and 0.0530.  Against the row Monte
Carlo permutation test of the exact AP (tests/test_permutation_ap.py, n = 3,000, weighted,
weak signal) the p-values agree within Monte Carlo error, the binned AP within 0.003 of the
exact one.

Cost: one sort per column and K(K + 1)/2 crosstabs of n rows (``np.bincount``); the draws
cost :math:`D^2 K` per draw (one matrix product for a chunk of draws), whatever n.

References: W. Hoeffding (1951), A combinatorial central limit theorem, Ann. Math.
Statist. 22.
"""

from __future__ import annotations

import functools
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..._summary_display import SummaryDisplay
from ..._warnings import InvalidInputError
from .result import PermutationTestResult
from .clt import _readonly, psd_root

__all__ = ["PermutationAPTables", "AP_CLT_METHOD", "AP_NAMES", "AP_BINS", "MAX_AP_CELLS", "column_bins",
           "ap_clt_tests", "ap_bins_per_column"]

#: the ``method`` of the tests of this module
AP_CLT_METHOD = "permutation CLT of the one-vs-rest tables monte-carlo"
#: the report's rows this module tests (one-vs-rest average precision, macro and prevalence-weighted)
AP_NAMES = ("pr_auc", "pr_auc_weighted")
#: bins of adjacent scores per probability column
AP_BINS = 100
#: at most this many bins over all the columns (fewer per column beyond MAX_AP_CELLS / AP_BINS classes)
MAX_AP_CELLS = 600


def ap_bins_per_column(k: int) -> int:
    """Bins per column of ``k`` probability columns: :data:`AP_BINS`, fewer when k · AP_BINS
    exceeds :data:`MAX_AP_CELLS` (at least 10).

    >>> ap_bins_per_column(3), ap_bins_per_column(10)
    (100, 60)
    """
    return max(10, min(AP_BINS, MAX_AP_CELLS // max(int(k), 1)))


def column_bins(x: Any, bins: int) -> tuple[np.ndarray, int]:
    """(the bin of each row — 0 the highest scores —, the number of bins): at most ``bins``
    bins of adjacent distinct values of nearly equal row count (:func:`bins_of_counts`).

    >>> b, m = column_bins([0.1, 0.9, 0.5, 0.5, 0.2], 2); b.tolist(), m
    ([1, 0, 0, 0, 1], 2)
    """
    x = np.asarray(x, dtype=np.float64)
    _, inv, cnt = np.unique(-(x + 0.0), return_inverse=True, return_counts=True)
    of_value = bins_of_counts(cnt, bins)
    return of_value[inv.ravel()], int(of_value[-1]) + 1 if of_value.size else 0


def bins_of_counts(counts: Any, bins: int) -> np.ndarray:
    """The bin of each distinct value from the row counts of the distinct values by
    decreasing score: the bins of :func:`~beyondchance.measures.binary_scores.bin_starts` (a new
    bin starts at the value after the one where the cumulative rows reach i/bins of the
    total, i = 1 … bins − 1; one bin per value when there are no more than ``bins``), by a
    rule the SQL of ``engines.sql_permutation.ap_query`` computes alike, with the same floating-point
    operations: value j starts a new bin when G(before_j) > G(before_{j−1}), before_j the
    rows of the values above j and G(x) = min(bins − 1, ⌊x · bins / total⌋) the thresholds
    i · total / bins it reaches.

    >>> bins_of_counts([5, 1, 1, 1, 1, 1], 2).tolist(), bins_of_counts([2, 1, 1, 1], 2).tolist()
    ([0, 1, 1, 1, 1, 1], [0, 0, 1, 1])
    """
    counts = np.asarray(counts, dtype=np.float64)
    k = counts.size
    if k <= bins:
        return np.arange(k)
    before = np.cumsum(counts) - counts
    g = np.minimum(bins - 1, np.floor(before * bins / counts.sum()))
    return np.cumsum(np.r_[0, (g[1:] > g[:-1]).astype(np.intp)])


@dataclass(frozen=True, eq=False)
class PermutationAPTables(SummaryDisplay):
    r"""The statistics of the joint permutation CLT of the one-vs-rest tables (module docstring).

    Attributes
    ----------
    classes : (K,) the classes (column k holds the probability of class k)
    sizes : (K,) bins of each column (D = Σ sizes)
    cross : (D, D) X, the crosstabs of the bins (row counts; diagonal blocks diag of the bin counts)
    weights : (D, K) the observed tables: Σ w of the rows of each bin and class
    squares : (K,) Σ w² of the rows of each class

    Examples
    --------
    >>> rng = np.random.default_rng(0)
    >>> proba = rng.dirichlet(np.ones(3), size=2000); y = rng.integers(0, 3, 2000)
    >>> t = PermutationAPTables.of_proba(y, proba, rng.exponential(size=2000))
    >>> t.sizes.tolist(), t.n
    ([100, 100, 100], 2000.0)
    >>> r = ap_clt_tests(t, ("pr_auc",), n_resamples=300)["pr_auc"]
    >>> r.method, r.n_resamples, bool(0.01 < r.pvalue < 0.99)
    ('permutation CLT of the one-vs-rest tables monte-carlo', 300, True)
    """

    classes: np.ndarray
    sizes: np.ndarray
    cross: np.ndarray
    weights: np.ndarray
    squares: np.ndarray

    def __post_init__(self) -> None:
        sizes = np.asarray(self.sizes, dtype=np.intp).copy()
        cross, weights, squares = (_readonly(x) for x in (self.cross, self.weights, self.squares))
        k, d = int(sizes.size), int(sizes.sum())
        if (np.shape(self.classes) != (k,) or cross.shape != (d, d) or weights.shape != (d, k)
                or squares.shape != (k,) or (sizes < 1).any()):
            raise InvalidInputError("PermutationAPTables need classes (K,), sizes (K,) ≥ 1, cross (D, D), weights "
                                    f"(D, K) and squares (K,), D = Σ sizes; got {sizes.shape}, {cross.shape}, "
                                    f"{weights.shape}, {squares.shape}")
        if not (np.isfinite(weights).all() and np.isfinite(squares).all()) or (cross < 0).any() or (weights < 0).any():
            raise InvalidInputError("PermutationAPTables need finite non-negative counts and weights")
        sizes.setflags(write=False)
        classes = np.array(self.classes)
        classes.setflags(write=False)
        object.__setattr__(self, "classes", classes)
        object.__setattr__(self, "sizes", sizes)
        object.__setattr__(self, "cross", cross)
        object.__setattr__(self, "weights", weights)
        object.__setattr__(self, "squares", squares)

    @classmethod
    def of_bins(cls, bins: Any, sizes: Any, codes: Any, w: Any, classes: Any = None) -> "PermutationAPTables":
        """From each row's bin in every column ``bins`` (n, K; 0 the highest scores), the bins
        per column ``sizes``, the class ``codes`` (indices of ``classes``) and weights ``w``
        (None: 1): K(K + 1)/2 crosstabs and K tables by ``np.bincount``."""
        bins = np.asarray(bins, dtype=np.intp)
        sizes = np.asarray(sizes, dtype=np.intp)
        n, k = bins.shape
        codes = np.asarray(codes, dtype=np.intp)
        w = np.ones(n) if w is None else np.asarray(w, dtype=np.float64)
        classes = np.arange(k) if classes is None else np.asarray(classes)
        off = np.r_[0, np.cumsum(sizes)]
        d = int(off[-1])
        cross = np.zeros((d, d))
        weights = np.zeros((d, k))
        for j in range(k):
            bj, mj = bins[:, j], int(sizes[j])
            weights[off[j]:off[j + 1]] = np.bincount(bj * k + codes, weights=w, minlength=mj * k).reshape(mj, k)
            for m in range(j, k):
                bm, mm = bins[:, m], int(sizes[m])
                block = np.bincount(bj * mm + bm, minlength=mj * mm).reshape(mj, mm).astype(np.float64)
                cross[off[j]:off[j + 1], off[m]:off[m + 1]] = block
                cross[off[m]:off[m + 1], off[j]:off[j + 1]] = block.T
        return cls(classes, sizes, cross, weights, np.bincount(codes, weights=w * w, minlength=k))

    @classmethod
    def of_proba(cls, codes: Any, proba: Any, w: Any, classes: Any = None, *, bins: int | None = None,
                 score_bins: int | None = None) -> "PermutationAPTables":
        """From the rows: each probability column (``score_bins``: its scores
        ``floor(p · score_bins)``, the engines' binned probabilities) pooled into at most
        ``bins`` bins (default :func:`ap_bins_per_column`) by one sort per column."""
        proba = np.asarray(proba, dtype=np.float64)
        n, k = proba.shape
        if n < 2:
            raise InvalidInputError("the permutation CLT of the average precision needs at least 2 rows")
        if score_bins is not None:
            proba = np.floor(proba * int(score_bins))
        bins = ap_bins_per_column(k) if bins is None else int(bins)
        cols = [column_bins(proba[:, j], bins) for j in range(k)]
        return cls.of_bins(np.column_stack([c[0] for c in cols]), [c[1] for c in cols], codes, w, classes)

    @property
    def n(self) -> float:
        """Rows (zero weights included)."""
        return float(np.trace(self.cross[:self.sizes[0], :self.sizes[0]]))

    @property
    def rows(self) -> np.ndarray:
        """(D,) rows of each bin."""
        return np.diag(self.cross).copy()

    @property
    def offsets(self) -> np.ndarray:
        """(K + 1,) the first row of each column's bins in the tables (and D)."""
        return np.r_[0, np.cumsum(self.sizes)]

    def _spreads(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        """(E T, S_A, S_a, n)."""
        n = self.n
        if n < 2:
            raise InvalidInputError("the permutation CLT needs at least 2 rows")
        r = self.rows
        total = self.weights[:self.sizes[0]].sum(axis=0)
        abar = total / n
        return (np.outer(r, abar), self.cross - np.outer(r, r) / n, np.diag(self.squares) - np.outer(total, total) / n,
                n)

    def moments(self) -> tuple[np.ndarray, np.ndarray]:
        """(E T (D, K), Cov T (D, K, D, K) = S_A ⊗ S_a / (n − 1)) under the permutation null."""
        mean, s_big, s_small, n = self._spreads()
        return mean, s_big[:, None, :, None] * s_small[None, :, None, :] / (n - 1)

    @functools.cached_property
    def _roots(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, float]:
        mean, s_big, s_small, n = self._spreads()
        return mean, psd_root(s_big), psd_root(s_small), n

    def draw(self, size: int, rng: np.random.Generator) -> np.ndarray:
        """``size`` normal tables (size, D, K) with the permutation moments: E T + M_A Z M_aᵀ / √(n − 1)."""
        mean, m_big, m_small, n = self._roots
        d, k = self.weights.shape
        z = rng.standard_normal((size, d, k)) @ (m_small.T / math.sqrt(n - 1))  # Z M_aᵀ
        out = (m_big @ z.transpose(1, 0, 2).reshape(d, size * k)).reshape(d, size, k).transpose(1, 0, 2)
        return out + mean[None]

    def class_weights(self) -> np.ndarray:
        """(K,) W: the weight of each class."""
        return self.weights[:self.sizes[0]].sum(axis=0)

    def average_precisions(self, tables: np.ndarray) -> np.ndarray:
        """(B, K) the one-vs-rest average precision of each column of the tables (B, D, K),
        from its bins by decreasing score (ties within a bin)."""
        from .measures_of_tables import score_measures

        off, out = self.offsets, []
        for j in range(self.sizes.size):
            block = tables[:, off[j]:off[j + 1], :]
            pos = block[:, :, j]
            out.append(score_measures(pos, block.sum(axis=2) - pos, {}, ("pr_auc",))["pr_auc"])
        return np.stack(out, axis=1)

    def statistic(self, names: tuple[str, ...]) -> Any:
        """tables (B, D, K) -> name -> (B,) for ``names`` among :data:`AP_NAMES`."""
        wk = self.class_weights()
        if not (np.all(wk > 0) and np.all(wk < wk.sum())):
            raise InvalidInputError("the one-vs-rest average precision needs positive weight in every class and in "
                                    "its rest")
        unknown = [nm for nm in names if nm not in AP_NAMES]
        if unknown:
            raise InvalidInputError(f"the AP CLT applies to {', '.join(AP_NAMES)}, not {unknown}")
        alpha = {"pr_auc": np.full(wk.size, 1.0 / wk.size), "pr_auc_weighted": wk / wk.sum()}

        def statistic(t: np.ndarray) -> dict[str, np.ndarray]:
            ap = self.average_precisions(t)
            return {nm: ap @ alpha[nm] for nm in names}

        return statistic

    def to_dict(self) -> dict[str, Any]:
        from ..._json import jsonable

        return {"classes": jsonable(self.classes.tolist()), "sizes": self.sizes.tolist(),
                "cross": self.cross.tolist(), "weights": self.weights.tolist(), "squares": self.squares.tolist()}

    def __repr__(self) -> str:
        return f"PermutationAPTables({self.classes.size} classes, {int(self.sizes.sum())} bins, n={self.n:g})"

    def _summary_title(self) -> str:
        return "Tables of the permutation CLT of the one-vs-rest average precisions"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("classes", int(self.classes.size)), ("bins", int(self.sizes.sum())), ("rows", self.n)]


def ap_clt_tests(tables: PermutationAPTables, names: tuple[str, ...], *, n_resamples: int = 10_000,
                 random_state: Any = 0) -> dict[str, PermutationTestResult]:
    """The permutation CLT tests of the average precision rows ``names`` (:data:`AP_NAMES`)
    from the same normal draws (module docstring): the observed value is the AP of the binned
    observed tables, the Monte Carlo p-value that of
    :func:`~beyondchance.inference.permutation.clt.clt_tests`; method :data:`AP_CLT_METHOD`."""
    import dataclasses

    from .clt import clt_tests

    res = clt_tests(tables, tables.statistic(tuple(names)), dict.fromkeys(names, True),  # type: ignore[arg-type]
                    n_resamples=n_resamples, random_state=random_state)
    return {nm: dataclasses.replace(r, method=AP_CLT_METHOD) for nm, r in res.items()}
