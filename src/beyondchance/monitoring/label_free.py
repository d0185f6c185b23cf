r"""Before the labels arrive: a window's prevalence and metrics from its scores alone.

Under *label shift* the class-conditional score distributions stay those of the
reference set and only the prevalence moves, so a new window's score distribution is
the mixture :math:`G = \pi F_1 + (1-\pi) F_0` of the reference's class-conditional
distributions.  Its prevalence is then estimated without labels by

* **adjusted classify-and-count** — black-box shift estimation for two classes (Lipton,
  Wang & Smola 2018, "Detecting and correcting for label shift with black box
  predictors", ICML; Forman 2008): the predicted-positive rate is
  :math:`q = \pi\,\mathrm{TPR} + (1-\pi)\,\mathrm{FPR}`, so
  :math:`\hat\pi = (\hat q - \widehat{\mathrm{FPR}}) / (\widehat{\mathrm{TPR}} - \widehat{\mathrm{FPR}})`,
  clipped to [0, 1], with the reference's rates at the threshold;
* **EM re-estimation of the priors** (Saerens, Latinne & Decaestecker 2002, Neural
  Computation 14, section 3) with posteriors calibrated on the reference itself — within
  each of 10 bins of adjacent scores, :math:`p_r(1|b)` is the reference's share of
  positives, so the scores need not be calibrated probabilities:
  :math:`p_{new}(1|b) \propto (\pi/\pi_r) p_r(1|b)` against
  :math:`((1-\pi)/(1-\pi_r))(1-p_r(1|b))`, and :math:`\pi \leftarrow` the mean of
  :math:`p_{new}(1|b)` over the window, until it settles.  This is the maximum-likelihood
  prevalence of the binned mixture; it uses the whole score distribution, not only the
  side of the threshold.  The reference's bin frequencies are estimates, and their noise
  pulls the estimate towards the reference's prevalence, the more the finer the bins
  (measured in 200 replicates on caravan, a 5,000-row reference with about 320 positives, a window at 30%:
  bias −0.000 / −0.005 / −0.012 / −0.022 with 5 / 10 / 20 / 40 bins, root mean square
  error 0.029 / 0.027 / 0.028 / 0.032): hence 10 bins.

Every metric is then projected as the reference classifier at :math:`\hat\pi`
(:func:`beyondchance.monitoring.decomposition.metrics_at`).  Intervals: a bootstrap of the reference's
(score bin, class) cells and of the window's score bins; for EM BCa intervals, the
acceleration from the jackknife of both (one row left out of each non-empty cell), the
resampled deviations :math:`\hat\pi^* - \hat\pi` first widened by the bootstrap's estimate of
the bias of its own plug-in variance (the reference's noisy bin frequencies make the classes
look more separable than they are; ``_variance_bias_scale`` of the delta-method variance
``_em_variance``, about 2% on caravan's 320 positives), for
ACC percentile intervals (its clip at 0 and 1 leaves an atom in the bootstrap
distribution near the ends, which distorts BCa's bias correction).  The assumption is tested
(:mod:`beyondchance.monitoring.label_shift_test`): the Anderson–Darling statistic between the
window's distribution on 20 bins of adjacent scores (equal weight under (F1 + F0)/2) and the mixture
:math:`\hat\pi \hat F_1 + (1-\hat\pi)\hat F_0` fitted by maximum likelihood (EM, whatever
``method``), calibrated by a parametric bootstrap (windows drawn from the fitted mixture, the
reference resampled, the prevalence re-estimated in each — so the estimation of π and the
reference's own noise are accounted for).  A small p-value says the scores changed in a way a
change of prevalence alone does not explain, and that the estimates are not to be trusted.  A
large one proves nothing when the window is too small to see a concept shift: the test's power
against the positives' scores moved 25% of the way to the negatives' is estimated with it, and
below 80% the verdict says the window cannot tell the two apart.

**A binned reference** (statistics profiled with ``score_bins``:
:class:`~beyondchance.statistics.scores.BinnedScoreCounts`, each bin ``floor(score · bins)``
thresholded at its smallest score) gives the estimate of its bins; the window's scores stay
exact.  Only the bin :math:`j = \lfloor t \cdot \mathrm{bins} \rfloor` of the threshold
:math:`t` can hold rows on both sides of it (floating-point rounding is monotone, so a score
of another bin lies wholly on one side), and only when its smallest score is below
:math:`t` (then the whole bin counts as negative).  With :math:`a = P_j/P` and
:math:`b = N_j/N` its shares of the positives' and negatives' weight, the exact rates lie in
:math:`\mathrm{TPR} \in [\mathrm{TPR}_b, \mathrm{TPR}_b + a]`,
:math:`\mathrm{FPR} \in [\mathrm{FPR}_b, \mathrm{FPR}_b + b]`, and ACC's
:math:`\hat\pi(\mathrm{TPR}, \mathrm{FPR}) = \mathrm{clip}((q - \mathrm{FPR})/(\mathrm{TPR} - \mathrm{FPR}))`,
linear-fractional, takes its extremes over that box at its corners:

.. math:: |\hat\pi_b - \hat\pi| \le \max_{u, v \in \{0, 1\}}
   |\hat\pi(\mathrm{TPR}_b + u a, \mathrm{FPR}_b + v b) - \hat\pi_b|,

reached when the bin's rows lie wholly on the corner's sides.  A threshold at a bin edge —
the smallest double of its bin: 0.5 with 1000 bins, :math:`\lfloor s \cdot 1000 \rfloor \ge
500 \iff s \ge 0.5`; not 0.57 with 100 bins, where 0.57 · 100 rounds to 56.99… — gives
:math:`a = b = 0`: the prevalence and every labeling metric are exact.  The ROC AUC, which
the prevalence does not move, is within the reference's
:meth:`~beyondchance.statistics.scores.BinnedScoreCounts.auc_error_bound`; the average
precision at an exact :math:`\hat\pi` within the same bound of the counts reweighted to
:math:`\hat\pi` (positives by :math:`\hat\pi/P`, negatives by :math:`(1-\hat\pi)/N`).  The
other rows (a labeling metric at a threshold inside a bin, the lift AUC, the losses of the
bins' smallest scores) and EM's estimate (its bins are groups of the reference's) get no
bound; the intervals and the test resample the bins.  ``LabelFreeEstimate.binned_error_bound``
holds the bounds, a caveat states them.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Callable, Literal, Sequence

import numpy as np

from .._validation import (as_float, binary_target, check_consistent_length, check_n_resamples, check_option,
                          check_random_state, check_sample_weight, check_unit_interval)
from .._summary_display import SummaryDisplay, Table, display_name, format_interval, format_number
from .._warnings import InvalidInputError
from ..inference.confidence_interval import ConfidenceInterval
from ..inference.significance import rejects, significance_level
from ..measures.curves import ThresholdCounts, threshold_counts
from ..measures.registry import METRICS
from ..measures.task_metrics import metrics_for_task
from ..statistics.scores import BinnedScoreCounts
from .decomposition import JACKKNIFE_BINS, _exact, _interval, _rates, metrics_at
from .set_statistics import SetStatistics, _leave_one_out_cells, check_reference
from ..statistics.values import ValueHistogram
from .mixture_bins import _em, _window_bins
from .label_shift_test import CONCEPT_SHIFT, POWER_TARGET, class_balanced_bins, label_shift_test

__all__ = ["LabelFreeEstimate", "ProjectedMetric", "estimate_performance", "estimate_from_statistics",
           "MIN_WINDOW_ROWS"]

#: a window with fewer rows is refused (its score distribution says too little)
MIN_WINDOW_ROWS = 50
#: EM works on this many bins of adjacent scores of equal reference weight
EM_BINS = 10
#: the test of the label-shift assumption compares the window with the fit on this many bins
TEST_BINS = 20
#: a window with more scores beyond the reference's range than label shift allows at this
#: level fails the assumption whatever the Anderson–Darling test says (``_support_pvalue``)
SUPPORT_LEVEL = 1e-3


@dataclass(frozen=True)
class ProjectedMetric:
    """A metric projected at the estimated prevalence, and its interval (a
    :class:`~beyondchance.ConfidenceInterval`, or None)."""

    metric: str
    value: float
    ci: ConfidenceInterval | None

    def to_dict(self) -> dict[str, Any]:
        def num(x: Any) -> Any:
            return None if x is None or not math.isfinite(x) else float(x)

        return {"metric": self.metric, "value": num(self.value),
                "ci": None if self.ci is None else [num(self.ci[0]), num(self.ci[1])]}


@dataclass(frozen=True)
class LabelFreeEstimate(SummaryDisplay):
    """What a window without labels probably scores (see :func:`estimate_performance`):
    ``print`` shows the verdict, the prevalence and the projected metrics.

    Attributes
    ----------
    prevalence, prevalence_ci : the estimated prevalence (by ``method``) and its interval (a
        :class:`~beyondchance.ConfidenceInterval`, or None)
    method : ``"acc"`` (adjusted classify-and-count) or ``"em"`` (Saerens et al.)
    estimates : every estimator's prevalence (``"acc"`` and ``"em"``)
    reference_prevalence : the reference's prevalence
    metrics : name -> :class:`ProjectedMetric` at the estimated prevalence
    assumption_statistic, assumption_pvalue : the Anderson–Darling statistic between the window
        and the mixture fitted by EM on 20 score bins (``TEST_BINS``), and its
        parametric-bootstrap p-value (:mod:`beyondchance.monitoring.label_shift_test`)
    assumption_holds : neither test rejects (the package's rule, p ≤ α rejects:
        :mod:`beyondchance.inference.significance`): ``assumption_pvalue > 1 − confidence_level``
        and ``support_pvalue > SUPPORT_LEVEL``
    caveats : what limits the estimate, in words
    n_reference, n_window, confidence_level, n_resamples
    support_pvalue : a bound on the p-value of the window's rows beyond the reference's
        score range under label shift (``_support_pvalue``)
    binned_error_bound : a binned reference's bounds on ``|binned − exact|`` (module
        docstring): ``"prevalence"`` and metric -> bound, None where none is stated; None
        for an exact reference
    assumption_power : the test's power against the positives' scores moved
        ``label_shift_test.CONCEPT_SHIFT`` (25%) of the way to the
        negatives' in a window of the same rows (nan when the reference does not rank the
        positives above the negatives); below
        ``label_shift_test.POWER_TARGET`` (80%) a window that
        passes the test cannot tell label shift from that concept shift, and the verdict says so

    The assumption's p-value is a Monte Carlo p-value from ``n_resamples`` draws: wherever it is
    shown (:attr:`assumption_pvalue_text`), the number of draws is shown with it.  The same
    window, seed and number of draws give the same p-value from :func:`estimate_performance`,
    from :func:`estimate_from_statistics` and from ``compare`` (one function computes it).
    """

    prevalence: float
    prevalence_ci: ConfidenceInterval | None
    method: str
    estimates: dict
    reference_prevalence: float
    metrics: dict
    assumption_statistic: float
    assumption_pvalue: float
    assumption_holds: bool
    caveats: tuple[str, ...]
    n_reference: int
    n_window: int
    confidence_level: float
    n_resamples: int
    support_pvalue: float = 1.0
    binned_error_bound: dict | None = None
    assumption_power: float = float("nan")

    def to_dict(self) -> dict[str, Any]:
        return {
            "prevalence": self.prevalence,
            "prevalence_ci": None if self.prevalence_ci is None else list(self.prevalence_ci),
            "method": self.method,
            "estimates": dict(self.estimates),
            "reference_prevalence": self.reference_prevalence,
            "metrics": {k: m.to_dict() for k, m in self.metrics.items()},
            "assumption_statistic": self.assumption_statistic,
            "assumption_pvalue": self.assumption_pvalue,
            "assumption_holds": self.assumption_holds,
            "support_pvalue": self.support_pvalue,
            "assumption_power": None if not math.isfinite(self.assumption_power) else self.assumption_power,
            "binned_error_bound": None if self.binned_error_bound is None else dict(self.binned_error_bound),
            "caveats": list(self.caveats),
            "n_reference": self.n_reference,
            "n_window": self.n_window,
            "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples,
        }

    def _summary_title(self) -> str:
        return self.verdict

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [(f"prevalence ({self.method})", self.prevalence),
                (f"{self.confidence_level:.0%} CI", format_interval(self.prevalence_ci)),
                ("every estimate", ", ".join(f"{k} {format_number(v)}" for k, v in self.estimates.items())),
                ("reference prevalence", self.reference_prevalence),
                ("label shift: Anderson–Darling, p", f"{format_number(self.assumption_statistic)}, "
                                                     f"{format_number(self.assumption_pvalue)}"),
                (f"its power against {CONCEPT_SHIFT:.0%} weaker positives", self.assumption_power),
                ("beyond the reference's scores: p", self.support_pvalue),
                ("rows: reference, window", f"{self.n_reference:,}, {self.n_window:,}")]

    def _summary_tables(self) -> list[Table]:
        rows = [[display_name(k), format_number(m.value), format_interval(m.ci)] for k, m in self.metrics.items()]
        return [("The metrics at the estimated prevalence", ["measure", "value", f"{self.confidence_level:.0%} CI"],
                 rows)] if rows else []

    def _summary_notes(self) -> list[str]:
        return [f"caveat: {c}" for c in self.caveats]

    @property
    def assumption_pvalue_text(self) -> str:
        """The label-shift test's p-value with its number of Monte Carlo draws, ``"p = 0.081, 2000
        draws"``: two p-values of one window differ when their draws (seed, number) do."""
        return f"p = {self.assumption_pvalue:.2g}, {self.n_resamples} draws"

    @property
    def verdict(self) -> str:
        """One line: the estimate, or why it is not to be trusted."""
        pi = f"{100 * self.prevalence:.1f}%"
        if self.prevalence_ci is not None:
            pi += f" [{100 * self.prevalence_ci[0]:.1f}%, {100 * self.prevalence_ci[1]:.1f}%]"
        if rejects(self.support_pvalue, SUPPORT_LEVEL):
            return (f"The window's scores changed in a way a change of prevalence alone does not explain: far "
                    f"more of them lie beyond the reference's score range than the same classifier would give "
                    f"(p ≤ {self.support_pvalue:.2g}); the estimated prevalence {pi} and the projected metrics are "
                    "not to be trusted.")
        if not self.assumption_holds:
            return (f"The window's scores changed in a way a change of prevalence alone does not explain "
                    f"(Anderson–Darling to the label-shift fit {self.assumption_statistic:.2f} on {TEST_BINS} bins, "
                    f"{self.assumption_pvalue_text}): the label-shift assumption fails, and the estimated prevalence "
                    f"{pi} and the projected metrics are not to be trusted.")
        if self.assumption_power < POWER_TARGET:
            return (f"Estimated prevalence {pi} (reference {100 * self.reference_prevalence:.1f}%) if only the "
                    f"prevalence changed, which this window cannot tell from a weaker classifier: were the positives' "
                    f"scores {CONCEPT_SHIFT:.0%} closer to the negatives', the estimate would be off and its test "
                    f"({self.assumption_pvalue_text}) would notice in {100 * self.assumption_power:.0f}% of such "
                    f"windows (fewer than {POWER_TARGET:.0%}).")
        return (f"Estimated prevalence {pi} (reference {100 * self.reference_prevalence:.1f}%), assuming only the "
                f"prevalence changed; the scores are consistent with that ({self.assumption_pvalue_text}), "
                "which does not prove it.")


def _inside(pi: Any) -> Any:
    """An estimated prevalence of 0 or 1 moved inside by 1e-9: the metrics there are their limits
    (recall stays the reference's TPR, not 0/0), so no bootstrap resample is dropped."""
    return np.clip(pi, 1e-9, 1 - 1e-9)


def binned_error_bound(binned: BinnedScoreCounts, threshold: float, q: float, prevalence: float, method: str,
                       names: Sequence[str]) -> dict[str, float | None]:
    """``"prevalence"`` and metric -> the bound on ``|binned − exact|`` of an estimate from the
    binned reference ``binned`` (module docstring; None: no bound stated; ``inf``: the box
    reaches TPR ≤ FPR), at ``threshold``, the window's exact share ``q`` of scores at or above
    it and the estimated ``prevalence`` by ``method``.

    >>> b = BinnedScoreCounts(keys=[2, 5, 8], smin=[0.21, 0.52, 0.8], pos=[1.0, 2, 7], neg=[6.0, 3, 1], bins=10)
    >>> binned_error_bound(b, 0.5, 0.4, 0.34, "acc", ["accuracy"])  # 0.5 is a bin edge: exact
    {'prevalence': 0.0, 'accuracy': 0.0}

    At 0.55, inside the bin [0.5, 0.6) whose smallest score 0.52 is below it: binned
    TPR 0.7, FPR 0.1, so π̂ = (0.4 − 0.1)/0.6 = 0.5; the exact rates may reach TPR 0.9
    (a = 2/10), FPR 0.4 (b = 3/10), where (0.4 − 0.4)/0.5 = 0:

    >>> binned_error_bound(b, 0.55, 0.4, 0.5, "acc", ["accuracy"])
    {'prevalence': 0.5, 'accuracy': None}
    """
    P, N = binned.n_pos, binned.n_neg
    straddles = (binned.keys == math.floor(float(threshold) * binned.bins)) & (binned.smin < threshold)
    a, b = float(binned.pos[straddles].sum() / P), float(binned.neg[straddles].sum() / N)
    tpr, fpr = (float(c[binned.smin >= threshold].sum() / t) for c, t in ((binned.pos, P), (binned.neg, N)))

    def acc(t: float, f: float) -> float:
        return float(np.clip((q - f) / (t - f), 0.0, 1.0)) if t > f else math.inf

    out: dict[str, float | None] = {"prevalence": None}
    if method == "acc":
        base = acc(tpr, fpr)
        out["prevalence"] = max(abs(acc(tpr + u * a, fpr + v * b) - base) for u in (0, 1) for v in (0, 1))
    exact = out["prevalence"] == 0.0  # the estimated prevalence (the rates too when a = b = 0)
    pi = float(_inside(prevalence))
    for name in names:
        out[name] = None
        if name in METRICS and exact and a == b == 0:
            out[name] = 0.0
        elif name == "roc_auc":
            out[name] = binned.auc_error_bound("roc")
        elif name == "pr_auc" and exact:  # the counts reweighted to the (exact) estimated prevalence
            out[name] = BinnedScoreCounts(binned.keys, binned.smin, binned.pos * (pi / P),
                                          binned.neg * ((1 - pi) / N), binned.bins).auc_error_bound("pr")
    return out


def _support_pvalue(ref: SetStatistics, above: int, below: int, n_window: int) -> float:
    r"""A bound on the p-value of ``above`` (``below``) window rows beyond the reference's
    largest (smallest) score, under label shift.

    Under label shift a window row of class c is an exchangeable draw from that class's
    score distribution, so it lies above the largest of the reference's :math:`n_c`
    class-c scores with probability :math:`U_c \sim \mathrm{Beta}(1, n_c)` (continuous
    scores; ties only lower it).  Given the U's, the rows above the reference's maximum
    are at most :math:`\mathrm{Bin}(m, \max(U_1, U_0))`, and
    :math:`P(\max(U_1, U_0) > u) \le 2(1-u)^{n_{\min}}`, so

    .. math:: P(X \ge k) \le 2\,P(\mathrm{BetaBin}(m, 1, n_{\min}) \ge k),

    :math:`n_{\min}` the rows of the reference's smaller class; the same below its
    minimum; the smaller end's bound doubled (Bonferroni).  Conservative: it flags only a
    window that plainly left the reference's range.

    >>> import numpy as np
    >>> from beyondchance.measures.curves import threshold_counts
    >>> y = np.r_[np.zeros(900), np.ones(100)]
    >>> ref = SetStatistics.from_counts(threshold_counts(y, np.linspace(0, 1, 1000)), threshold=0.5)
    >>> _support_pvalue(ref, above=2, below=0, n_window=1000) > 0.05    # 1000/101 expected at most
    True
    >>> _support_pvalue(ref, above=300, below=0, n_window=1000) < 1e-3
    True
    """
    from scipy.stats import betabinom

    total = float(ref.pos.sum() + ref.neg.sum())
    n_min = max(1, int(round(ref.n_rows * min(float(ref.pos.sum()), float(ref.neg.sum())) / total)))
    ends = [2.0 * float(betabinom.sf(k - 1, n_window, 1, n_min)) if k > 0 else 1.0 for k in (above, below)]
    return min(1.0, 2.0 * min(ends))


def _acc(ref: SetStatistics, q: Any) -> Any:
    """Adjusted classify-and-count: (q − FPR)/(TPR − FPR), clipped to [0, 1]."""
    _, a, b = _rates(ref)
    tpr = 1 - b
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.clip((q - a) / (tpr - a), 0.0, 1.0)



def _em_variance(ref_pos: np.ndarray, ref_neg: np.ndarray, window: np.ndarray, pi: Any, n_reference: int,
                 n_window: int) -> np.ndarray:
    r"""The first-order (delta-method) variance of EM's prevalence with both sets' noise.

    EM's fixed point is the maximum-likelihood prevalence of the binned mixture: it solves
    :math:`\sum_b \hat w_b h_b = 0` with :math:`h_b = (f_{1b} - f_{0b})/g_b`,
    :math:`g_b = \pi f_{1b} + (1-\pi) f_{0b}`, :math:`f_{cb}` the reference's class-c bin
    frequencies and :math:`\hat w_b` the window's.  With the information per window row
    :math:`I = \sum_b g_b h_b^2`, the implicit-function theorem gives

    .. math:: V = \frac{1}{m I} + \frac{1}{I^2}\Big(\pi^2\,\frac{\mathrm{Var}_{f_1}(h)}{n_1}
              + (1-\pi)^2\,\frac{\mathrm{Var}_{f_0}(h)}{n_0}\Big),

    m the window's rows, :math:`n_1, n_0` the reference's positive and negative rows (its
    ``n_reference`` rows split by its prevalence), :math:`\mathrm{Var}_{f_c}(h)` the variance
    of h over the bins under :math:`f_c` (the delta method, e.g. van der Vaart 1998,
    Asymptotic Statistics, ch. 3 and 5).  Arrays (B, K) or (K,) of weights per bin, ``pi``
    (B,); returns (B,)."""
    rp, rn, w = (np.atleast_2d(np.asarray(x, dtype=np.float64)) for x in (ref_pos, ref_neg, window))
    p = np.atleast_1d(np.asarray(pi, dtype=np.float64))[:, None]
    P, N = rp.sum(1, keepdims=True), rn.sum(1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        f1, f0 = rp / P, rn / N
        g = p * f1 + (1 - p) * f0
        h = np.divide(f1 - f0, g, out=np.zeros_like(g), where=g > 0)
        info = np.sum(g * h * h, axis=1)
        var1 = np.sum(f1 * h * h, axis=1) - np.sum(f1 * h, axis=1) ** 2
        var0 = np.sum(f0 * h * h, axis=1) - np.sum(f0 * h, axis=1) ** 2
        n1 = n_reference * P[:, 0] / (P[:, 0] + N[:, 0])
        n0 = n_reference - n1
        p = p[:, 0]
        return 1 / (n_window * info) + (p * p * var1 / n1 + (1 - p) ** 2 * var0 / n0) / info ** 2


def _coarse(ref: SetStatistics, bins: int) -> np.ndarray:
    """Starts of at most ``bins`` groups of adjacent bins of nearly equal reference weight."""
    cum = np.cumsum(ref.pos + ref.neg)
    edges = np.searchsorted(cum, cum[-1] * np.arange(1, bins) / bins, side="left") + 1
    return np.unique(np.r_[0, edges[edges < cum.shape[0]]])


def _em_jackknife(ref: SetStatistics, window: np.ndarray, n_window: int, groups: np.ndarray,
                  names: Sequence[str]) -> tuple[list, dict[str, list]]:
    """The jackknife from the cells, for BCa's acceleration: of EM's prevalence and of each
    projected metric, over the reference's cells (window fixed) and over the window's (reference
    fixed).  The reference's cells are pooled into EM's groups and, for the metrics, into
    :data:`~beyondchance.monitoring.decomposition.JACKKNIFE_BINS` bins with an edge at the threshold; the window's
    into EM's groups (exact for EM)."""
    starts = np.union1d(groups, ref.coarse_starts(JACKKNIFE_BINS))  # the latter has the threshold's edge
    ref_u = ref.pooled(starts.astype(np.intp))
    in_u = np.searchsorted(starts, groups)
    win = np.add.reduceat(window, groups)

    def em(r: SetStatistics, w: np.ndarray) -> np.ndarray:
        return _em(np.add.reduceat(np.atleast_2d(r.pos), in_u, axis=1),
                   np.add.reduceat(np.atleast_2d(r.neg), in_u, axis=1), w)

    r_jk, mult_r = ref_u.leave_one_out()
    w_jk, mult_w = _leave_one_out_cells(win, n_window)
    pi_r, pi_w = em(r_jk, np.broadcast_to(win, (r_jk.pos.shape[0], win.shape[0]))), em(ref_u, w_jk)
    m_r, m_w = metrics_at(r_jk, _inside(pi_r), names), metrics_at(ref_u, _inside(pi_w), names)
    return [(pi_r, mult_r), (pi_w, mult_w)], {m: [(m_r[m], mult_r), (m_w[m], mult_w)] for m in m_r}


def _window_counts(ref: SetStatistics, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """The window's weights per reference bin (:func:`_window_bins`), shape (K,)."""
    return np.bincount(_window_bins(ref, scores), weights=weights, minlength=ref.pos.shape[0])


def _estimator(method: str, groups: np.ndarray) -> Callable[[SetStatistics, np.ndarray], np.ndarray]:
    r"""The prevalence estimator of a stack of (reference cells, window bins), arrays (B, K):
    ACC, :math:`(q - \mathrm{FPR})/(\mathrm{TPR} - \mathrm{FPR})` with q the window's share of
    bins above the threshold, or EM on ``groups`` of bins (:func:`_em`)."""
    def estimate(r: SetStatistics, w: np.ndarray) -> np.ndarray:
        w = np.atleast_2d(w)
        if method == "acc":
            return _acc(r, w[:, : r.cut].sum(1) / w.sum(1))
        return _em(*(np.add.reduceat(np.atleast_2d(x), groups, axis=1) for x in (r.pos, r.neg, w)))
    return estimate


@dataclass(frozen=True)
class _Bootstrap:
    """The label-free estimate's bootstrap (:func:`_bootstrap`); ``scale`` the factor EM's
    resampled deviations were multiplied by (:func:`_variance_bias_scale`; 1 for ACC)."""

    binned_pi: float
    pi_star: np.ndarray
    m_binned: dict
    m_star: dict
    jack_pi: list | None
    jack_metrics: dict
    scale: float = 1.0


def _variance_bias_scale(v_hat: float, v_star: np.ndarray) -> float:
    r"""The factor that corrects the bootstrap's spread for the bias of its plug-in variance.

    The bootstrap's variance of an estimate is, to first order, the delta-method variance
    :math:`V(\hat\theta)` at the estimated parameters, and the second-order terms it gets right;
    its leading error is the bias of the plug-in, :math:`E\,V(\hat\theta) - V(\theta)`.  For
    EM that bias is negative: the reference's noisy bin frequencies make the classes look more
    separable than they are (the information :math:`I` is convex in them), so the bootstrap
    world is a little too easy.  The bootstrap estimates the bias of the plug-in by the same
    plug-in one level down (the bootstrap bias correction, Efron & Tibshirani 1993, An
    Introduction to the Bootstrap, ch. 10; here of a variance, as the iterated bootstrap of
    Davison & Hinkley 1997, section 3.9, does by simulation):
    :math:`E\,V(\hat\theta)/V(\theta) \approx \overline{V(\theta^*)}/V(\hat\theta)`, whence the
    factor :math:`\sqrt{V(\hat\theta) / \overline{V(\theta^*)}}` on the resampled deviations
    :math:`\hat\theta^* - \hat\theta`.  1 when the variances are not finite."""
    v_star = np.asarray(v_star, dtype=np.float64)
    v_star = v_star[np.isfinite(v_star) & (v_star > 0)]
    if not (math.isfinite(v_hat) and v_hat > 0) or v_star.size == 0:
        return 1.0
    return float(math.sqrt(v_hat / v_star.mean()))


def _bootstrap(ref: SetStatistics, window: np.ndarray, n_new: int, method: str, groups: np.ndarray,
               names: Sequence[str], n_resamples: int, rng: np.random.Generator,
               correct_scale: bool = True) -> _Bootstrap:
    r"""Resamples of the prevalence and of the projected metrics.

    The reference's ``n_rows`` rows are drawn from its (score bin, class) cells, R*, and the
    window's ``n_new`` rows from its bins, W*, independently:
    :math:`\hat\pi^* = T(R^*, W^*)` (ACC or EM) and :math:`m^* = m(\hat\pi^*; R^*)`, the
    resampled reference's classifier at :math:`\hat\pi^*` — so both sets' noise is in every
    interval (docs/monitoring.md, "Why the label-free intervals fell short", measures each set's
    part against its sampling variance).  For EM the deviations :math:`\hat\pi^* - \hat\pi` are
    multiplied by :func:`_variance_bias_scale` of its delta-method variance
    (:func:`_em_variance`) before the metrics are projected (``correct_scale``; False: the plain
    bootstrap, for the diagnostics), and the jackknife of both sets gives BCa's acceleration;
    ACC gets percentile intervals, its clip at 0 and 1 leaving an atom in the bootstrap
    distribution near the ends that distorts BCa's ẑ₀ (docs/monitoring.md, "Diagnosis")."""
    estimate = _estimator(method, groups)
    ref_star = ref.resample(n_resamples, rng)
    win_star = rng.multinomial(n_new, window / window.sum(), size=n_resamples).astype(np.float64)
    pi_star = estimate(ref_star, win_star)
    binned_pi = float(estimate(ref, window)[0])
    scale = 1.0
    if method == "em" and correct_scale:
        def grouped(x: np.ndarray) -> np.ndarray:
            return np.add.reduceat(np.atleast_2d(x), groups, axis=1)

        v_hat = float(_em_variance(grouped(ref.pos), grouped(ref.neg), grouped(window), binned_pi, ref.n_rows,
                                   n_new)[0])
        v_star = _em_variance(grouped(ref_star.pos), grouped(ref_star.neg), grouped(win_star), pi_star, ref.n_rows,
                              n_new)
        scale = _variance_bias_scale(v_hat, v_star)
        pi_star = binned_pi + scale * (pi_star - binned_pi)
    jack_pi, jack_metrics = _em_jackknife(ref, window, n_new, groups, names) if method == "em" else (None, {})
    return _Bootstrap(binned_pi, pi_star, metrics_at(ref, _inside(binned_pi), names),
                      metrics_at(ref_star, _inside(pi_star), names), jack_pi, jack_metrics, scale)


def estimate_performance(
    y_true: Any,
    y_score: Any = None,
    y_score_window: Any = None,
    *,
    threshold: float | None = None,
    pos_label: Any = None,
    sample_weight: Any = None,
    sample_weight_window: Any = None,
    method: Literal["acc", "em"] = "acc",
    metrics: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    random_state: Any = 0,
) -> LabelFreeEstimate:
    r"""Estimate a window's prevalence and metrics from its scores alone (label shift).

    Parameters
    ----------
    y_true, y_score : the labelled reference set (its labels and scores); or
        ``y_true`` the reference's statistics kept by :func:`~beyondchance.profile`
        (:class:`~beyondchance.TaskStatistics` of binary scores, their weights included) and
        the window's scores second: ``estimate_performance(statistics, y_score_window)`` gives
        the estimate of the reference's rows (binned scores: of their bins)
    y_score_window : the new window's scores (no labels)
    threshold : a score ≥ threshold is predicted positive (default 0.5 for scores in
        [0, 1], else 0)
    pos_label : the positive class of ``y_true`` (default: 1 or True for 0/1, -1/1 and boolean
        labels, else the minority class, as in every command)
    sample_weight, sample_weight_window : weights of the reference's and of the window's rows
    method : ``"acc"`` — adjusted classify-and-count (Lipton et al. 2018); ``"em"`` —
        Saerens et al. (2002) with posteriors calibrated on the reference's score bins
    metrics : the metrics projected (default: the binary labeling metrics, the curve AUCs
        and, for probabilities, log loss and Brier score)
    confidence_level, n_resamples, random_state : the bootstrap, and the draws of the label-shift
        test's p-value (2000 by default, as ``compare`` and :func:`~beyondchance.evaluate`: the
        same window and seed give the same p-value here and there)

    Returns
    -------
    LabelFreeEstimate

    Notes
    -----
    ACC: :math:`\hat\pi = (\hat q - \mathrm{FPR}_r)/(\mathrm{TPR}_r - \mathrm{FPR}_r)`; every metric
    is the reference classifier at :math:`\hat\pi`, e.g. precision
    :math:`\hat\pi\,\mathrm{TPR}_r / (\hat\pi\,\mathrm{TPR}_r + (1-\hat\pi)\mathrm{FPR}_r)`.

    Examples
    --------
    >>> import numpy as np
    >>> from beyondchance import estimate_performance
    >>> rng = np.random.default_rng(0)
    >>> def scores(y):
    ...     return 1 / (1 + np.exp(-(2.5 * (2 * y - 1) + rng.normal(0, 1.5, y.size))))
    >>> y_ref = (rng.random(5000) < 0.3).astype(int)
    >>> y_new = (rng.random(5000) < 0.1).astype(int)        # unknown to the estimate
    >>> est = estimate_performance(y_ref, scores(y_ref), scores(y_new), n_resamples=200)
    >>> bool(est.prevalence_ci[0] < 0.1 < est.prevalence_ci[1]), est.assumption_holds
    (True, True)
    """
    kept = getattr(y_true, "reference_score_counts", None)
    if callable(kept):  # the reference's kept statistics: estimate_performance(statistics, y_score_window)
        if y_score_window is not None and y_score is not None:
            raise InvalidInputError("with the reference's statistics, give the window's scores once (the second "
                                    "argument or y_score_window)")
        if sample_weight is not None:
            raise InvalidInputError("sample_weight does not apply to the reference's statistics (they were "
                                    "profiled with their weights)")
        s_new = as_float(y_score_window if y_score_window is not None else y_score, "y_score_window")
        tc, n_reference = kept(pos_label)
        window = ValueHistogram.of_checked(s_new, check_sample_weight(sample_weight_window, s_new.shape[0]))
        return estimate_from_statistics(tc, window, n_window_rows=s_new.shape[0], n_reference_rows=n_reference,
                                        threshold=threshold, method=method, metrics=metrics,
                                        confidence_level=confidence_level, n_resamples=n_resamples,
                                        random_state=random_state)
    if y_score_window is None or y_score is None:
        raise InvalidInputError("estimate_performance needs the reference's labels and scores and the window's "
                                "scores, or the reference's statistics and the window's scores")
    y, _ = binary_target(y_true, pos_label=pos_label, name="y_true")
    s_ref = as_float(y_score, "y_score")
    s_new = as_float(y_score_window, "y_score_window")
    check_consistent_length(y_true=y, y_score=s_ref)
    w_ref = check_sample_weight(sample_weight, s_ref.shape[0])
    w_new = check_sample_weight(sample_weight_window, s_new.shape[0])
    tc = threshold_counts(y, s_ref, sample_weight=w_ref)
    window = ValueHistogram.of_checked(s_new, w_new)
    return estimate_from_statistics(tc, window, n_window_rows=s_new.shape[0], n_reference_rows=s_ref.shape[0],
                                    threshold=threshold, method=method, metrics=metrics,
                                    confidence_level=confidence_level, n_resamples=n_resamples,
                                    random_state=random_state)


def estimate_from_statistics(
    reference: ThresholdCounts | BinnedScoreCounts,
    window: ValueHistogram,
    *,
    n_window_rows: int,
    n_reference_rows: int | None = None,
    threshold: float | None = None,
    method: Literal["acc", "em"] = "acc",
    metrics: Sequence[str] | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    random_state: Any = 0,
) -> LabelFreeEstimate:
    """:func:`estimate_performance` from sufficient statistics: the reference's
    :class:`~beyondchance.ThresholdCounts` and the window's exact score histogram (a
    :class:`~beyondchance.statistics.ValueHistogram` of its scores, ``bin_width=None``: Σw per
    distinct score) with its number of rows — what an engine (DuckDB, Spark) computes without
    sending the rows to Python.  Same estimates, intervals and test (same seed, same numbers).

    Parameters
    ----------
    reference : the labelled reference's score counts (exact: one threshold per distinct score),
        or its :class:`~beyondchance.statistics.scores.BinnedScoreCounts` (the estimate of the
        bins, with ``LabelFreeEstimate.binned_error_bound``)
    window : the window's exact score histogram (``keys`` the distinct scores, ``weight`` Σw)
    n_window_rows, n_reference_rows : the rows the bootstrap draws (reference default: its
        total weight, rounded)
    threshold, method, metrics, confidence_level, n_resamples, random_state : as in
        :func:`estimate_performance`

    Returns
    -------
    LabelFreeEstimate

    Examples
    --------
    >>> import numpy as np
    >>> from beyondchance.measures.curves import threshold_counts
    >>> rng = np.random.default_rng(0)
    >>> y = (rng.random(3000) < 0.3).astype(int)
    >>> s = np.clip(0.5 + 0.25 * (2 * y - 1) + rng.normal(0, 0.2, 3000), 0, 1).round(3)
    >>> w = np.clip(0.5 + 0.25 * (2 * (rng.random(3000) < 0.1) - 1) + rng.normal(0, 0.2, 3000), 0, 1).round(3)
    >>> a = estimate_from_statistics(threshold_counts(y, s), ValueHistogram.from_values(w), n_window_rows=3000,
    ...                              n_resamples=200)
    >>> b = estimate_performance(y, s, w, n_resamples=200)
    >>> a.prevalence == b.prevalence and a.prevalence_ci == b.prevalence_ci
    True
    """
    method = check_option(method, "method", ("acc", "em"))
    level = float(check_unit_interval(confidence_level, "confidence_level", open_=True))
    n_resamples = check_n_resamples(n_resamples, level)
    if window.bin_width is not None:
        raise InvalidInputError("the window's score histogram must hold its distinct scores (bin_width=None)")
    binned: BinnedScoreCounts | None = None
    if isinstance(reference, BinnedScoreCounts):
        binned, reference = reference, reference.threshold_counts()
    if int(n_window_rows) < MIN_WINDOW_ROWS:
        raise InvalidInputError(f"the window has {int(n_window_rows)} rows; estimating its prevalence from its scores "
                                f"needs at least {MIN_WINDOW_ROWS}")
    if reference.thresholds.size == 0 or window.keys.size == 0:
        raise InvalidInputError("the reference and the window need scores")
    s_new, w_new = window.keys, window.weight
    lo, hi = float(reference.thresholds[-1]), float(reference.thresholds[0])
    probabilities = lo >= 0 and hi <= 1  # the reference's scores decide: a window's are what is tested
    thr = float(threshold) if threshold is not None else (0.5 if probabilities else 0.0)
    ref = SetStatistics.from_counts(reference, threshold=thr, n_rows=n_reference_rows)
    check_reference(ref, "the reference set")
    if metrics is None:  # the report's default metrics of binary scores (the one list of them)
        metrics = metrics_for_task("binary-scores", probabilities=probabilities)
    names = list(metrics)
    caveats = []
    share_above, share_below = (float(w_new[beyond].sum() / w_new.sum()) for beyond in (s_new > hi, s_new < lo))
    support_p = _support_pvalue(ref, int(round(share_above * n_window_rows)), int(round(share_below * n_window_rows)),
                                 int(n_window_rows))
    if share_above + share_below > 0:
        caveats.append(f"{100 * (share_above + share_below):.1f}% of the window's scores lie outside the reference's "
                       f"range [{lo:.4g}, {hi:.4g}]: the reference says nothing about them directly (they join its "
                       f"end bins)" + (f"; far more than label shift allows (p ≤ {support_p:.2g})"
                                       if rejects(support_p, SUPPORT_LEVEL) else ""))
    _, a_r, b_r = _rates(ref)
    if 1 - b_r - a_r <= 0 and method == "acc":
        raise InvalidInputError(f"adjusted classify-and-count needs a reference classifier that separates the classes "
                                f"at the threshold {thr:g}; there TPR − FPR = {1 - b_r - a_r:.3g}: choose another "
                                f"threshold (threshold=, CLI --threshold), or method='em' (estimate_performance)")
    if 1 - b_r - a_r <= 0.05:
        caveats.append(f"the reference classifier barely separates the classes at the threshold (TPR − FPR = "
                       f"{1 - b_r - a_r:.3f}): adjusted classify-and-count is unstable")

    # the window's statistic: weights per reference bin, and the exact quantities
    window_counts = _window_counts(ref, s_new, w_new)
    q_exact = float(w_new[s_new >= thr].sum() / w_new.sum())
    estimates = {"acc": float(_acc(ref, q_exact))}
    groups, test_groups = _coarse(ref, EM_BINS), class_balanced_bins(ref, TEST_BINS)
    estimates["em"] = float(_estimator("em", groups)(ref, window_counts)[0])
    pi_hat = estimates[method]
    exact = metrics_at(_exact(ref), _inside(pi_hat), names)

    rng = check_random_state(random_state)
    n_new = int(n_window_rows)
    boot = _bootstrap(ref, window_counts, n_new, method, groups, names, n_resamples, rng)
    pi_ci = _interval(pi_hat, boot.binned_pi, boot.pi_star, level, boot.jack_pi)
    if pi_ci is not None:
        pi_ci = ConfidenceInterval(float(np.clip(pi_ci.low, 0, 1)), float(np.clip(pi_ci.high, 0, 1)), pi_ci.level,
                                   pi_ci.method)
    # fewer than half a row of one class expected: the constant prediction is perfect there
    one_class = min(pi_hat, 1 - pi_hat) * n_new < 0.5
    undefined = {"prediction_advantage"} if one_class else set()
    if undefined & set(names):
        caveats.append(f"the estimated prevalence is {100 * pi_hat:.1f}%: the window would hold one class, where "
                       "the prediction advantage is undefined (always predicting that class is perfect)")
    projected = {}
    for m, value in exact.items():
        if m in undefined:
            projected[m] = ProjectedMetric(m, float("nan"), None)
            continue
        value = float(np.squeeze(value))
        ci = _interval(value, float(np.squeeze(boot.m_binned[m])), boot.m_star[m], level, boot.jack_metrics.get(m))
        projected[m] = ProjectedMetric(m, value, ci)

    # the assumption: the window against the fitted mixture, and the test's power against a weaker classifier
    test = label_shift_test(ref, window_counts, n_new, groups, test_groups, n_resamples, rng, significance_level(level))
    stat, pvalue = test.statistic, test.pvalue
    holds = not rejects(pvalue, significance_level(level)) and not rejects(support_p, SUPPORT_LEVEL)
    if not holds:
        caveats.append("the window's scores are not a mixture of the reference's class-conditional score "
                       "distributions: something besides the prevalence changed, and the estimates are not to be "
                       "trusted")
    bound = None
    if binned is not None:
        bound = binned_error_bound(binned, thr, q_exact, pi_hat, method, names)
        caveats.append(_binned_caveat(binned, bound))
    return LabelFreeEstimate(
        float(pi_hat), pi_ci, method, estimates, ref.prevalence, projected, stat, pvalue, bool(holds),
        tuple(caveats), int(ref.n_rows), int(n_new), level, int(n_resamples), support_p, bound, test.power,
    )


def _binned_caveat(binned: BinnedScoreCounts, bound: dict[str, float | None]) -> str:
    """The one line stating a binned reference's bounds (:func:`binned_error_bound`)."""
    stated = [f"{k} {v:.3g}" for k, v in bound.items() if v is not None and k != "prevalence"]
    free = [k for k, v in bound.items() if v is None and k != "prevalence"]
    pi = bound["prevalence"]
    return (f"the reference's scores binned into floor(score * {binned.bins}): |estimate - exact| <= "
            + ", ".join(([f"prevalence {pi:.3g}"] if pi is not None else []) + stated)
            + (f"; no bound for {', '.join(free)}" if free else "")
            + ("" if pi == 0 else "; a threshold at a bin edge (the smallest score of its bin, as 0.5) makes "
               "the prevalence and the labeling metrics exact" if pi is not None else "; EM's estimate has no bound: method='acc' states one")
            + "; the intervals resample the bins")
