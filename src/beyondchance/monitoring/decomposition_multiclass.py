r"""Multi-class monitoring: a change of the class distribution or a changed classifier.

A multi-class classifier's predicted labels are characterised, free of the class
distribution :math:`\pi = (\pi_1, \dots, \pi_K)`, by its class-conditional confusion rates
:math:`R_{kj} = P(\hat y = j \mid y = k)` — the multi-class form of the OPS paper's
(α, β) (section 2).  Every labeling metric of a test set is a function of its confusion
matrix :math:`C_{kj} = \pi_k R_{kj}` (up to the number of rows), so

.. math::

    m_{obs} = m(\mathrm{diag}(\pi_t) R_t), \qquad m_{exp} = m(\mathrm{diag}(\pi_t) R_r)

is what the *reference* classifier would score at the test set's class distribution, and
``value − reference_value = (m_exp − m_ref) + (m_obs − m_exp)`` = prevalence effect +
classifier effect, exactly as for two classes (:mod:`beyondchance.monitoring.decomposition`, whose
:class:`~beyondchance.monitoring.decomposition.Decomposition` the results reuse).  Intervals: BCa
bootstrap, both sets' confusion-matrix cells resampled (a multinomial draw of the cells is
the row bootstrap), the acceleration from the jackknife of the cells (one row left out of
each non-empty cell of either set, the other set fixed).

Whether the classifier changed is tested on the prevalence-free quantities only: for
each true class k, the homogeneity of the predicted-class distribution :math:`R_{k\cdot}`
between the two sets — Pearson's chi-square on the 2 × K table of row counts, predicted
classes with an expected count below 5 pooled into one column (Cochran's rule), Fisher's
exact test when a 2 × 2 table remains with a small expected count.  The p-values of every
class of every test set are adjusted together (Holm 1979).

>>> import numpy as np
>>> from beyondchance.measures.confusion import ConfusionMatrix
>>> rates = np.array([[0.9, 0.05, 0.05], [0.3, 0.6, 0.1], [0.1, 0.1, 0.8]])
>>> ref = ClassStatistics.from_confusion(ConfusionMatrix(1000 * np.diag([0.6, 0.3, 0.1]) @ rates, [0, 1, 2]))
>>> new = ClassStatistics.from_confusion(ConfusionMatrix(1000 * np.diag([0.1, 0.3, 0.6]) @ rates, [0, 1, 2]))
>>> d = decompose_classes(ref, new, ["accuracy"], n_resamples=200)["accuracy"]
>>> round(d.reference_value, 3), round(d.value, 3), round(d.expected_value, 3), round(d.classifier_effect, 3)
(0.8, 0.75, 0.75, 0.0)
>>> compare_class_classifiers(ref, {"new": new})[0].changed
False
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any, Callable, Mapping, Sequence

import numpy as np
from scipy import stats as sps

from .._validation import check_random_state
from .._warnings import InvalidInputError
from ..measures.confusion import ConfusionMatrix, metric_from_matrices
from ..inference.significance import holm_adjust, rejects, significance_level
from ..measures.registry import get_metric
from .decomposition import Decomposition, _interval, _jackknife_of_decomposition, bca_pvalue
from .set_statistics import _leave_one_out_cells
from .classifier_change import ClassifierChange, ClassifierTest, newcombe_interval

__all__ = ["ClassStatistics", "decompose_classes", "decompose_distributions", "class_change_tests",
           "compare_class_classifiers"]

#: Cochran's rule: predicted classes with a smaller expected count are pooled before the chi-square test
MIN_EXPECTED = 5.0


@dataclass(frozen=True, eq=False)
class ClassStatistics:
    """One test set's sufficient statistic: the confusion matrix (true × predicted class).

    Attributes
    ----------
    matrix : (K, K) weights, rows the true classes (or a (B, K, K) stack of resamples)
    labels : the K classes, in the order of the rows and columns
    n_rows : the number of rows the bootstrap draws
    """

    matrix: np.ndarray
    labels: tuple
    n_rows: int

    @classmethod
    def from_confusion(cls, cm: ConfusionMatrix, *, n_rows: int | None = None) -> "ClassStatistics":
        m = np.asarray(cm.matrix, dtype=np.float64)
        n = int(round(m.sum())) if n_rows is None else int(n_rows)
        return cls(m, tuple(np.asarray(cm.labels).tolist()), n)

    def aligned(self, labels: Sequence[Any]) -> "ClassStatistics":
        """The matrix over ``labels`` (a superset of the set's classes; absent ones get zeros)."""
        index = {c: i for i, c in enumerate(self.labels)}
        pos = [index.get(c, -1) for c in labels]
        k = len(labels)
        out = np.zeros(self.matrix.shape[:-2] + (k, k))
        for a, i in enumerate(pos):
            for b, j in enumerate(pos):
                if i >= 0 and j >= 0:
                    out[..., a, b] = self.matrix[..., i, j]
        return ClassStatistics(out, tuple(labels), self.n_rows)

    @property
    def prevalences(self) -> np.ndarray:
        """The class distribution π (along the last axis)."""
        t = self.matrix.sum(-1)
        return t / t.sum(-1, keepdims=True)

    @property
    def rates(self) -> np.ndarray:
        """The confusion rates R[k, j] = P(predicted j | true k) (nan rows for absent classes)."""
        t = self.matrix.sum(-1, keepdims=True)
        with np.errstate(invalid="ignore", divide="ignore"):
            return self.matrix / t

    def resample(self, n_resamples: int, rng: np.random.Generator) -> "ClassStatistics":
        """A (B, K, K) stack of bootstrap replicates: ``n_rows`` rows drawn from the cells (with
        weights, rows carry the mean weight)."""
        w = self.matrix.reshape(-1)
        total = w.sum()
        k = self.matrix.shape[-1]
        draws = rng.multinomial(self.n_rows, w / total, size=n_resamples) * (total / self.n_rows)
        return ClassStatistics(draws.reshape(n_resamples, k, k), self.labels, self.n_rows)

    def leave_one_out(self) -> tuple["ClassStatistics", np.ndarray]:
        """The jackknife from the cells: a (J, K, K) stack with one row left out of each of the J
        non-empty cells, and each cell's number of rows (the multiplicity of its value)."""
        k = self.matrix.shape[-1]
        stack, rows = _leave_one_out_cells(self.matrix.reshape(-1), self.n_rows)
        return ClassStatistics(stack.reshape(-1, k, k), self.labels, self.n_rows), rows


def union_labels(*sets: ClassStatistics) -> tuple:
    """The classes of every set, in first-seen order."""
    seen: dict = {}
    for s in sets:
        for c in s.labels:
            seen.setdefault(c, c)
    return tuple(seen.values())


def _metric(name: str, matrices: np.ndarray) -> Any:
    """A labeling metric as the multi-class report computes it: per-class metrics macro-averaged,
    an undefined class counted as 0 for higher-is-better metrics and left out otherwise."""
    m = get_metric(name)
    if m.multiclass == "per-class":
        return metric_from_matrices(matrices, m, average="macro",
                                    zero_division=0.0 if m.greater_is_better else np.nan)
    return metric_from_matrices(matrices, m, zero_division=np.nan)


def metrics_at_classes(s: ClassStatistics, prevalences: Any, names: Sequence[str]) -> dict[str, Any]:
    """metric -> the value of ``s``'s classifier (its confusion rates) at the class
    distribution ``prevalences`` (…, K); along the first axis of a stack of matrices.
    At the set's own distribution this is the set's own value."""
    pi = np.asarray(prevalences, dtype=np.float64)[..., :, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = np.where(pi == 0, 0.0, pi * s.rates)  # a class absent at π contributes nothing
    out = {}
    with np.errstate(invalid="ignore", divide="ignore"):
        for name in names:
            if np.isnan(expected).any(axis=(-2, -1)).all():
                out[name] = np.full(expected.shape[:-2], np.nan)
                continue
            bad = np.isnan(expected).any(axis=(-2, -1))
            value = np.asarray(_metric(name, np.nan_to_num(expected)), dtype=np.float64)
            out[name] = np.where(bad, np.nan, value)
    return out


def decompose_classes(
    reference: ClassStatistics,
    test_set: ClassStatistics,
    metrics: Sequence[str],
    *,
    confidence_level: float = 0.95,
    n_resamples: int = 1000,
    random_state: Any = 0,
) -> dict[str, Decomposition]:
    """Split each labeling metric's change from ``reference`` to ``test_set`` into the
    prevalence effect (the reference's confusion rates at the test set's class distribution)
    and the classifier effect, with BCa bootstrap intervals (both sets' cells resampled; the
    acceleration from the jackknife of the cells).

    Parameters
    ----------
    reference, test_set : :class:`ClassStatistics` (aligned on the union of their classes)
    metrics : labeling metric names (others are skipped)
    confidence_level, n_resamples, random_state : the bootstrap (``n_resamples=0``: no intervals)

    Returns
    -------
    dict metric -> :class:`~beyondchance.monitoring.decomposition.Decomposition`
    """
    from ..measures.registry import METRICS

    labels = union_labels(reference, test_set)
    return decompose_distributions(reference.aligned(labels), test_set.aligned(labels),
                                   [m for m in metrics if m in METRICS], metrics_at_classes,
                                   confidence_level=confidence_level, n_resamples=n_resamples,
                                   random_state=random_state)


def decompose_distributions(reference: Any, test_set: Any, names: Sequence[str],
                            at: Callable[[Any, Any, Sequence[str]], dict[str, Any]], *, exact: tuple | None = None,
                            confidence_level: float = 0.95, n_resamples: int = 1000,
                            random_state: Any = 0, tested: Sequence[str] = ()) -> dict[str, Decomposition]:
    """The decomposition of metrics of a class distribution, for any statistic with
    ``prevalences``, ``resample(n, rng)`` and ``leave_one_out()``: ``at(s, π, names)`` gives
    the metrics of ``s``'s classifier at the class distribution π.  The reference's
    replicates are drawn first, then the test set's; BCa intervals, the acceleration from
    the jackknife of each set (:func:`beyondchance.monitoring.decomposition._jackknife_of_decomposition`).

    ``exact``: (reference, test set) for the point estimates when the two sets given are
    binned for the resampling; the intervals are then shifted onto the exact estimates
    (``beyondchance.monitoring.decomposition._interval``).  ``tested``: the metrics whose classifier effect also
    gets the p-value that inverts its interval (:func:`beyondchance.monitoring.decomposition.bca_pvalue`).
    """
    def values(r: Any, t: Any) -> tuple[dict, dict, dict]:
        pi_t = t.prevalences
        return at(t, pi_t, names), at(r, pi_t, names), at(r, r.prevalences, names)

    obs, exp, ref_v = values(*(exact or (reference, test_set)))
    b_obs, b_exp, b_ref = values(reference, test_set) if exact is not None else (obs, exp, ref_v)
    boot = None
    if n_resamples:
        rng = check_random_state(random_state)
        r_star = reference.resample(n_resamples, rng)
        boot = values(r_star, test_set.resample(n_resamples, rng))
        jack = _jackknife_of_decomposition(reference, test_set, names, at, lambda s: s.prevalences)
    out = {}
    for m in names:
        value, expected, ref_value = float(obs[m]), float(exp[m]), float(ref_v[m])
        bv, be, br = float(b_obs[m]), float(b_exp[m]), float(b_ref[m])
        ci: dict[str, Any] = {}
        p = float("nan")
        if boot is not None:
            o, e, r = boot[0][m], boot[1][m], boot[2][m]
            jk = jack[m]
            ci = {"exp": _interval(expected, be, e, confidence_level, jk["exp"]),
                  "prev": _interval(expected - ref_value, be - br, e - r, confidence_level, jk["prev"]),
                  "clf": _interval(value - expected, bv - be, o - e, confidence_level, jk["clf"])}
            if m in tested:
                p = bca_pvalue(value - expected, bv - be, o - e, jk["clf"])
        out[m] = Decomposition(m, value, ref_value, expected, ci.get("exp"), expected - ref_value, ci.get("prev"),
                               value - expected, ci.get("clf"), float(confidence_level), int(n_resamples), p)
    return out


def _row_counts(s: ClassStatistics) -> np.ndarray:
    """The matrix in rows (weighted counts rescaled to the number of rows)."""
    total = s.matrix.sum()
    return np.rint(s.matrix * (s.n_rows / total)) if total > 0 else s.matrix


def _homogeneity(a: np.ndarray, b: np.ndarray, k: int) -> tuple[float, str]:
    """p-value that two rows of counts (true class ``k``'s predictions on two sets) come from one
    distribution over the predicted classes: chi-square after pooling the predicted classes of
    small expected count into one column (into the smallest other column if the pooled one is
    still small, beside it when it is the only other one); Fisher's exact test when two columns
    remain with a small expected count, or of "predicted k or not" when every column is small."""
    table = np.vstack([a, b])

    def expected(t: np.ndarray) -> np.ndarray:
        return np.outer(t.sum(1), t.sum(0)) / t.sum()

    small = expected(table).min(0) < MIN_EXPECTED
    if small.all():
        two = np.column_stack([table[:, k], table.sum(1) - table[:, k]])
        if (two.sum(0) == 0).any():
            return 1.0, "no test (one predicted class)"
        return float(sps.fisher_exact(two).pvalue), "Fisher's exact test (predicted as its class or not)"
    if small.any():
        rest, big = table[:, small].sum(1), table[:, ~small]
        if rest.sum() == 0:
            table = big
        elif big.shape[1] > 1 and expected(np.column_stack([big, rest])).min(0)[-1] < MIN_EXPECTED:
            table = big.copy()
            table[:, int(np.argmin(big.sum(0)))] += rest
        else:
            table = np.column_stack([big, rest])
    if table.shape[1] < 2:
        return 1.0, "no test (one predicted class)"
    if table.shape[1] == 2 and expected(table).min() < MIN_EXPECTED:
        return float(sps.fisher_exact(table).pvalue), "Fisher's exact test"
    return float(sps.chi2_contingency(table, correction=False).pvalue), "chi-square test of homogeneity"


def class_change_tests(reference: ClassStatistics, test_set: ClassStatistics, *,
                       confidence_level: float = 0.95) -> tuple[ClassifierTest, ...]:
    """For each true class present in both sets: the test that its predicted-class distribution
    P(predicted | true k) is the same on both sets (unadjusted p-values; see
    :func:`compare_class_classifiers`).  ``quantity`` is ``"class:<label>"``; the values are
    the class's recall P(predicted k | true k), with Newcombe's interval of its difference
    (``beyondchance.monitoring.classifier_change.newcombe_interval``: it keeps its width at 0 or
    every row of a class predicted right)."""
    labels = union_labels(reference, test_set)
    ref, new = _row_counts(reference.aligned(labels)), _row_counts(test_set.aligned(labels))
    tests = []
    for k, c in enumerate(labels):
        n_r, n_t = ref[k].sum(), new[k].sum()
        if n_r == 0 or n_t == 0:
            continue
        p, method = _homogeneity(ref[k], new[k], k)
        tests.append(ClassifierTest(f"class:{c}", float(ref[k, k] / n_r), float(new[k, k] / n_t),
                                    newcombe_interval(ref[k, k], n_r, new[k, k], n_t, float(confidence_level)),
                                    min(1.0, p), method))
    return tuple(tests)


def compare_class_classifiers(reference: ClassStatistics, test_sets: dict[str, ClassStatistics], *,
                              confidence_level: float = 0.95,
                              more: Mapping[str, Sequence[ClassifierTest]] | None = None) -> tuple[ClassifierChange, ...]:
    """:func:`class_change_tests` of each test set against ``reference`` and the set's tests
    in ``more`` (set name -> tests), Holm-adjusted over every test of every set; a set
    ``changed`` when one of its adjusted p-values is at most ``1 − confidence_level``."""
    more = more or {}
    tested = [(name, class_change_tests(reference, s, confidence_level=confidence_level) + tuple(more.get(name, ())))
              for name, s in test_sets.items()]
    adjusted = iter(holm_adjust([t.pvalue for _, ts in tested for t in ts]))
    level = significance_level(confidence_level)
    out = []
    for name, ts in tested:
        ts = tuple(replace(t, pvalue_adjusted=float(next(adjusted))) for t in ts)
        out.append(ClassifierChange(name, ts, any(rejects(t.pvalue_adjusted, level) for t in ts), level, len(tested)))
    return tuple(out)


def check_class_reference(reference: ClassStatistics, name: str = "the reference set") -> None:
    """Refuse a reference with fewer than two true classes."""
    if int((reference.matrix.sum(-1) > 0).sum()) < 2:
        raise InvalidInputError(f"{name} holds a single class: its confusion rates say nothing about the other "
                                "classes; choose a reference with every class")
