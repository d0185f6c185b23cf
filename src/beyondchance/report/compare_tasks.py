r"""``compare`` of multi-class and regression reports: what changed, and whether it is real.

* **Multi-class** (labels, or probabilities through their arg-max labels): the class
  distribution plays the prevalence.  Every labeling metric's change is split into the
  prevalence effect and the classifier effect (:mod:`beyondchance.monitoring.decomposition_multiclass`) —
  of probabilities also the one-vs-rest ROC AUCs and the log and Brier losses
  (:mod:`beyondchance.monitoring.probabilities`; from the rows in memory, from
  :func:`~beyondchance.engines.sql_replicates.sql_probability_statistics` on DuckDB and
  Spark) — and
  the classifier is tested per true class on its predicted-class distribution and, of
  probabilities, on the classifier effect of the one-vs-rest ROC AUCs (macro and weighted:
  the p-value that inverts its BCa interval, :func:`beyondchance.monitoring.decomposition.bca_pvalue`), Holm
  over every test of every test set.
* **Regression**: there is no prevalence.  Each error measure's difference from the
  reference (``classifier_effect`` of a :class:`~beyondchance.monitoring.decomposition.Decomposition` whose
  ``expected_value`` is the reference's own value) gets a Wald interval and test whose
  standard errors are those of the two sets' bootstrap intervals (half-width / z; the
  sets are independent, so the variances add), Holm-adjusted over every measure and test
  set.  A shift of the target's distribution is a fact reported beside them — the
  two-sample Kolmogorov–Smirnov test on the sets' exact target histograms (the asymptotic
  distribution, as :func:`scipy.stats.ks_2samp` with ``method="asymp"``) — and not
  attributed to anything.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Mapping, Sequence

import numpy as np
from scipy import stats as sps

from ..inference.confidence_interval import ConfidenceInterval
from ..inference.significance import rejects, significance_level
from ..monitoring.decomposition import Decomposition
from ..inference.significance import holm_adjust
from ..monitoring.classifier_change import ClassifierChange, ClassifierTest, bearing_on
from ..monitoring.decomposition_multiclass import (ClassStatistics, check_class_reference, compare_class_classifiers,
                                decompose_classes, decompose_distributions)
from ..monitoring.probabilities import DECOMPOSABLE_PROBABILITIES, ProbabilityStatistics, metrics_at_probabilities
from ..statistics.values import ValueHistogram
from .formatting import shorten

__all__ = ["TargetShift", "auc_tests", "bearing_tests", "multiclass_parts", "regression_parts", "target_shift",
           "target_shifts", "undecomposed_note"]

MULTICLASS_TASKS = ("multiclass-labels", "multiclass-probabilities")
#: class probabilities: the rows whose classifier effect joins the tests of the classifier
TESTED_AUCS = ("roc_auc", "roc_auc_weighted")
#: the quantity of such a test is this prefix and the metric's name
AUC_TEST = "classifier effect:"
AUC_TEST_METHOD = ("bootstrap test of the classifier effect (the BCa interval inverted; both sets resampled by "
                   "groups of rows)")
#: the note of a weighted comparison whose decomposition resamples the cells
WEIGHTED_NOTE = ("with sample weights, the decomposition's bootstrap and the tests of the classifier treat each set's "
                 "weighted counts as its number of rows (weights rescaled to the row count): exact for frequency "
                 "weights, approximate otherwise")

#: the names of the binary classifier tests' quantities, as the verdicts and tables say them
TEST_QUANTITIES = {"fpr": "false-positive rate", "fnr": "false-negative rate", "roc_auc": "ROC AUC"}


def bearing_tests(task: str, metric: str, tests: Sequence[ClassifierTest]) -> list[ClassifierTest]:
    """The tests a metric's classifier effect is read against: regression, the measure's own;
    binary, those of the error rates it moves with (``bearing_on``); multi-class, all."""
    if task == "regression":
        return [t for t in tests if t.quantity == metric]
    return bearing_on(metric, tests) if task in ("binary-scores", "binary-labels") else list(tests)


#: the note of class probabilities compared without each set's ProbabilityStatistics
UNDECOMPOSED_NOTE = ("the one-vs-rest ROC AUCs and the probability losses are not decomposed, nor their classifier "
                     "effects tested: that needs each set's class probabilities (compare the rows, or give "
                     "compare_reports probabilities=)")


def undecomposed_note(kept: Sequence[str]) -> str:
    """Why an engine's class probabilities are not decomposed: the sets ``kept`` are statistics
    (without rows), or else a source without row order (a DuckDB relation)."""
    if kept:
        return (f"{', '.join(map(shorten, kept))}: statistics, so the one-vs-rest ROC AUCs and the probability losses "
                "are not decomposed, nor their classifier effects tested (that needs every set's rows: keep the rows "
                "of every set, not only their statistics)")
    return ("the one-vs-rest ROC AUCs and the probability losses are not decomposed here: their bootstrap resamples "
            "groups of rows, and this source has no row order (a DuckDB relation); compare a file, a Spark DataFrame "
            "or the rows in memory")


def multiclass_parts(reports: Sequence[Any], ref: Any, metric_names: Sequence[str], *, level: float,
                     n_resamples: int, random_state: int, probabilities: Mapping[str, ProbabilityStatistics] | None
                     = None, undecomposed: str = UNDECOMPOSED_NOTE) -> tuple[dict, tuple[ClassifierChange, ...],
                                                                             list[str]]:
    """(set -> metric -> Decomposition, the tests of the classifier, notes) of multi-class reports.

    ``probabilities``: set name -> :class:`~beyondchance.monitoring.probabilities.ProbabilityStatistics`
    of a multiclass-probabilities task, for the decomposition of its one-vs-rest ROC AUCs and losses
    (:mod:`beyondchance.monitoring.probabilities`); without it those rows are not decomposed and
    ``undecomposed`` (why, and what to keep instead) is the note."""
    stats = {str(r.name): ClassStatistics.from_confusion(r.confusion, n_rows=r.n) for r in reports}
    base = stats[str(ref.name)]
    check_class_reference(base, f"the reference set {shorten(ref.name)!r}")
    notes = []
    if any(r.total_weight is not None for r in reports):
        notes.append(WEIGHTED_NOTE)
    others = {str(r.name): stats[str(r.name)] for r in reports if r.name != ref.name}
    seen = {c for c, row in zip(base.labels, base.matrix) if row.sum() > 0}
    for name, s in others.items():
        absent = [str(c) for c, row in zip(s.labels, s.matrix) if row.sum() > 0 and c not in seen]
        if absent:
            notes.append(f"{shorten(name)}: the reference has no rows of true class {', '.join(absent)}, so what "
                         "the reference classifier would score at this class distribution is undefined")
    decompositions = {name: decompose_classes(base, s, metric_names, confidence_level=level,
                                              n_resamples=n_resamples, random_state=random_state)
                      for name, s in others.items()}
    names = [m for m in metric_names if m in DECOMPOSABLE_PROBABILITIES]
    more: dict[str, list[ClassifierTest]] = {}  # the tests of the one-vs-rest ROC AUCs' classifier effects
    if probabilities is not None and names:
        p_ref = probabilities[str(ref.name)]
        for name in others:
            p_new = probabilities[name]
            parts = decompose_distributions(
                p_ref.binned, p_new.binned, names, metrics_at_probabilities, exact=(p_ref, p_new),
                confidence_level=level, n_resamples=n_resamples, random_state=random_state, tested=TESTED_AUCS)
            decompositions[name].update(parts)
            more[name] = auc_tests(parts)
    elif names:
        notes.append(undecomposed)
    return decompositions, compare_class_classifiers(base, others, confidence_level=level, more=more), notes


def auc_tests(parts: Mapping[str, Decomposition]) -> list[ClassifierTest]:
    """The tests of the classifier from the decomposition of class probabilities: one per
    row of :data:`TESTED_AUCS` whose classifier effect has an interval and a p-value
    (``reference_value`` the reference classifier at the set's class distribution)."""
    return [ClassifierTest(AUC_TEST + m, d.expected_value, d.value, d.classifier_effect_ci,
                           d.classifier_effect_pvalue, AUC_TEST_METHOD)
            for m, d in parts.items() if m in TESTED_AUCS and d.classifier_effect_ci is not None
            and math.isfinite(d.classifier_effect_pvalue)]


def regression_parts(reports: Sequence[Any], ref: Any, metric_names: Sequence[str], *,
                     level: float) -> tuple[dict, tuple[ClassifierChange, ...]]:
    """(set -> metric -> Decomposition, one ClassifierChange per set whose tests are the error
    measures' differences) of regression reports; Holm over the measures and the test sets."""
    z = float(sps.norm.ppf((1 + level) / 2))
    decompositions: dict[str, dict[str, Decomposition]] = {}
    tests: dict[str, list[ClassifierTest]] = {}
    for r in reports:
        if r.name == ref.name:
            continue
        decompositions[str(r.name)], tests[str(r.name)] = {}, []
        for m in metric_names:
            a, b = r.metrics.get(m), ref.metrics.get(m)
            if a is None or b is None or not (math.isfinite(a.value) and math.isfinite(b.value)):
                continue
            d = a.value - b.value
            ci, p = None, float("nan")
            if a.ci is not None and b.ci is not None:
                se = math.hypot(a.ci.high - a.ci.low, b.ci.high - b.ci.low) / (2 * z)
                ci = ConfidenceInterval(d - z * se, d + z * se, float(level), "wald")
                p = float(2 * sps.norm.sf(abs(d) / se)) if se > 0 else (0.0 if d != 0 else 1.0)
                tests[str(r.name)].append(ClassifierTest(m, b.value, a.value, ci, p,
                                                         "Wald test, standard errors from the bootstrap intervals"))
            ref_ci = None if b.ci is None else ConfidenceInterval(b.ci.low, b.ci.high, b.ci.level, b.ci.method)
            decompositions[str(r.name)][m] = Decomposition(m, a.value, b.value, b.value, ref_ci, float("nan"), None,
                                                           d, ci, float(level), 0 if a.ci is None else a.ci.n_resamples)
    # Holm over every measure of every test set: "the error measures changed" on a set is then
    # wrong in at most 1 − level of the comparisons (the measures are strongly correlated, so
    # this costs little)
    adjusted = iter(holm_adjust([t.pvalue for ts in tests.values() for t in ts]))
    alpha = significance_level(level)
    changes = []
    for name, ts in tests.items():
        done = tuple(replace(t, pvalue_adjusted=float(next(adjusted))) for t in ts)
        changes.append(ClassifierChange(name, done, any(rejects(t.pvalue_adjusted, alpha) for t in done), alpha,
                                        len(tests)))
    return decompositions, tuple(changes)


@dataclass(frozen=True)
class TargetShift:
    """The two-sample Kolmogorov–Smirnov test of a test set's target against the reference's.

    Attributes
    ----------
    test_set : its name
    statistic : the largest distance between the two empirical distribution functions
    pvalue : asymptotic (Kolmogorov's distribution at n·m/(n + m) rows)
    reference_mean, mean : the targets' weighted means
    pvalue_adjusted : Holm-adjusted over the test sets compared (Holm 1979)
    """

    test_set: str
    statistic: float
    pvalue: float
    reference_mean: float
    mean: float
    pvalue_adjusted: float = float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {"test_set": self.test_set, "statistic": self.statistic, "pvalue": self.pvalue,
                "pvalue_adjusted": self.pvalue_adjusted,
                "reference_mean": self.reference_mean, "mean": self.mean, "method": "two-sample Kolmogorov-Smirnov"}


def target_shift(name: str, reference: ValueHistogram, target: ValueHistogram, n_reference: int,
                 n_target: int) -> TargetShift | None:
    """:class:`TargetShift` of two histograms of the targets (None if their binnings differ).

    >>> import numpy as np
    >>> from scipy.stats import ks_2samp
    >>> a, b = np.array([1., 2, 2, 3, 5]), np.array([2., 4, 4, 6, 7, 8])
    >>> t = target_shift("b", ValueHistogram.from_values(a), ValueHistogram.from_values(b), 5, 6)
    >>> r = ks_2samp(a, b, method="asymp")
    >>> bool(abs(t.statistic - r.statistic) < 1e-12 and abs(t.pvalue - r.pvalue) < 1e-12)
    True
    """
    if reference.bin_width != target.bin_width:
        return None
    keys = np.union1d(reference.keys, target.keys)

    def cdf(h: ValueHistogram) -> np.ndarray:
        w = np.zeros(keys.shape)
        w[np.searchsorted(keys, h.keys)] = h.weight
        return np.cumsum(w) / w.sum()

    d = float(np.max(np.abs(cdf(reference) - cdf(target))))
    en = n_reference * n_target / (n_reference + n_target)
    p = float(sps.kstwo.sf(d, np.round(en)))

    def mean(h: ValueHistogram) -> float:
        return float(h.wsum.sum() / h.weight.sum())

    return TargetShift(name, d, p, mean(reference), mean(target))


def target_shifts(reports: Sequence[Any], ref: Any, targets: Any) -> tuple[TargetShift, ...]:
    """:func:`target_shift` of every test set against ``ref``, Holm-adjusted over the sets."""
    found = [t for t in (target_shift(str(r.name), targets[str(ref.name)], targets[str(r.name)], ref.n, r.n)
                         for r in reports if r.name != ref.name) if t is not None]
    return tuple(replace(t, pvalue_adjusted=float(p)) for t, p in zip(found, holm_adjust([t.pvalue for t in found])))
