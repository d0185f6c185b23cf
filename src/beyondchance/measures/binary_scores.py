r"""Measures of a scored binary test set, from its sufficient statistic alone.

Everything the report (and the OPS interval of a scoring metric) needs about binary
scores — the confusion matrix at a threshold, the log loss and Brier score, the
curves and their bootstrap, the PA–coverage curve — is computed from
:class:`~beyondchance.measures.curves.ThresholdCounts` (distinct scores with cumulative positive
and negative weights), never from the rows again.  An out-of-core engine that
produces the same counts therefore produces the same report.

Bootstrap of the score-based measures
-------------------------------------
The pools of the bootstrap are the cells (score, label): a resample draws U units
(rows of positive weight) with replacement, i.e. cell counts
``Multinomial(U, m_c / U)``, which is the ordinary row bootstrap when every cell holds
one distinct score.  When there are more than ``max_bins`` distinct scores, adjacent
scores are pooled into ``max_bins`` bins of (nearly) equal row count; the resampled
measure is then that of the binned scores (ties within a bin), and the interval is
centred on the exact estimate (below).  Beyond :data:`POISSON_ABOVE` rows the cell
counts are drawn as independent ``Poisson(m_c)`` (the Poisson bootstrap: each row is
drawn Poisson(1) times, asymptotically equivalent to the multinomial and half its
cost):

.. math::

    [\hat\theta + (\theta^*_{bin})_{(\alpha/2)} - \hat\theta_{bin},\
     \hat\theta + (\theta^*_{bin})_{(1-\alpha/2)} - \hat\theta_{bin}]

(a percentile interval of the binned statistic shifted by the binning error, which is
reported).  With sample weights a resampled unit adds the mean weight (and mean
weighted loss) of its cell, exact when the rows of a cell share one weight.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from .._json import jsonable
from .._summary_display import SummaryDisplay
from .curves import ThresholdCounts, auc_from_rates

if TYPE_CHECKING:
    from .curve_rates import AucMethod, CurveKind

__all__ = [
    "confusion_at_threshold",
    "per_threshold",
    "compress_counts",
    "class_loss_sums",
    "loss_terms",
    "loss_sums",
    "loss_baseline",
    "ScoreCells",
    "bin_starts",
    "bin_loss_terms",
    "pa_coverage_from_counts",
]

_EPS = float(np.finfo(np.float64).eps)
#: beyond this many rows the cell counts are drawn as independent Poissons
POISSON_ABOVE = 1_000_000

#: score measures computed from the cells: name -> (curve, method) or a loss
SCORE_MEASURES = ("roc_auc", "pr_auc", "lift_auc", "log_loss", "brier")
_CURVE_OF: dict[str, tuple[CurveKind, AucMethod]] = {"roc_auc": ("roc", "trapezoid"), "pr_auc": ("pr", "ap"), "lift_auc": ("lift", "interpolated")}


def _padded(tc: ThresholdCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return tc.__dict__["_padded"]


def confusion_at_threshold(tc: ThresholdCounts, threshold: float) -> tuple[float, float, float, float]:
    """(tp, fp, fn, tn) when a score ≥ ``threshold`` is predicted positive.

    >>> from beyondchance.measures.curves import threshold_counts
    >>> tc = threshold_counts([0, 1, 1, 0, 1], [0.1, 0.9, 0.4, 0.6, 0.5])
    >>> confusion_at_threshold(tc, 0.5)
    (2.0, 1.0, 1.0, 1.0)
    """
    thr, tps, fps = _padded(tc)
    # thresholds are decreasing: count those >= threshold (the +inf pad is always in)
    j = int(np.searchsorted(-thr, -threshold, side="right")) - 1
    tp, fp = float(tps[j]), float(fps[j])
    return tp, fp, tc.n_pos - tp, tc.n_neg - fp


def per_threshold(tc: ThresholdCounts) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Distinct scores (decreasing) and the positive / negative weight at each."""
    return tc.thresholds, np.diff(_padded(tc)[1]), np.diff(_padded(tc)[2])


_per_threshold = per_threshold


def compress_counts(tc: ThresholdCounts, *, pos_weights: np.ndarray | None = None) -> ThresholdCounts:
    r"""The same curves on fewer points: interior points of negative-only runs dropped.

    Consecutive thresholds that add only negatives move the curve point along a
    straight line in (α, β) (β constant), so dropping the interior points of such a
    run changes no curve: the ROC trapezoid and the lift / PR areas under eq. 9's
    interpolation are integrals along the same path, the steps of average precision
    on them have Δrecall = 0, and every later point keeps its cumulative counts.  On
    continuous scores this keeps about n·π + (number of runs) of the n points, and
    every AUC and point metric computed by :mod:`beyondchance.measures.curves` on the result
    equals the one on ``tc`` (up to rounding).  ``pos_weights``: the positive weight per
    distinct score (:func:`per_threshold`), when the caller already has it.

    >>> from beyondchance.measures.curves import threshold_counts
    >>> tc = threshold_counts([1, 0, 0, 0, 1, 0, 0], [.9, .8, .7, .6, .5, .4, .3])
    >>> small = compress_counts(tc)
    >>> small.thresholds.tolist(), small.auc("roc") == tc.auc("roc"), small.auc("pr") == tc.auc("pr")
    ([0.9, 0.6, 0.5, 0.3], True, True)
    """
    thr, tps, fps = _padded(tc)
    k = thr.shape[0] - 1
    if k <= 2:
        return tc
    # segment j (point j-1 -> j), j = 1..k; ``pos_weights`` = per_threshold(tc)[1] when known
    neg_only = (np.diff(tps) if pos_weights is None else pos_weights) == 0
    # point j (1..k-1) is interior when segments j and j+1 both add negatives only
    interior = neg_only[:-1] & neg_only[1:]
    if not interior.any():
        return tc
    keep = np.flatnonzero(~interior) + 1
    keep = np.r_[keep, k] if keep[-1] != k else keep
    return ThresholdCounts(thr[keep], tps[keep], fps[keep], tc.pos_label)


def class_loss_sums(
    per: tuple[np.ndarray, np.ndarray, np.ndarray], losses: tuple[str, ...], starts: np.ndarray | None = None
) -> dict[str, tuple[Any, Any]]:
    r"""Weighted loss of the positives and of the negatives: totals, or per bin of scores.

    With ``per = (v, w_pos, w_neg)`` (distinct scores, positive and negative weight at
    each, :func:`per_threshold`), for each loss:

    .. math::

        L_+ = \sum_j w^+_j\, \ell(v_j, 1), \qquad L_- = \sum_j w^-_j\, \ell(v_j, 0)

    ``log_loss``: ℓ(v, y) = −log p of the true class, probabilities clipped to
    [eps, 1 − eps] as scikit-learn's ``log_loss`` does; ``brier``: (v − y)², scikit-learn's
    binary ``brier_score_loss``.  ``starts`` (first score index of each bin, increasing):
    the sums per bin (``np.add.reduceat``) instead of the totals.  Every term is
    written in place into one temporary.

    >>> import numpy as np
    >>> per = (np.array([0.6, 0.2]), np.array([1.0, 0.0]), np.array([0.0, 1.0]))
    >>> class_loss_sums(per, ("brier",))
    {'brier': (0.16000000000000003, 0.04000000000000001)}
    """
    v, dp, dn = per
    t = np.empty_like(v, dtype=np.float64)
    out = {}
    for loss in losses:
        sums = []
        for positive, weight in ((True, dp), (False, dn)):
            _class_loss_into(t, v, loss, positive)
            np.multiply(t, weight, out=t)
            sums.append(float(t.sum()) if starts is None else np.add.reduceat(t, starts))
        out[loss] = (sums[0], sums[1])
    return out


def _class_loss_into(out: np.ndarray, v: np.ndarray, loss: str, positive: bool) -> np.ndarray:
    """The loss of a sample of the class (``positive``) scored v, written into ``out``:
    log loss −log clip(p of the true class) (p = v for a positive, 1 − v for a negative,
    clipped to [eps, 1 − eps] as scikit-learn's ``log_loss``); Brier (v − y)²."""
    if loss not in ("log_loss", "brier"):
        raise ValueError(loss)  # pragma: no cover
    if (loss == "log_loss") != positive:  # log loss of a negative, Brier of a positive: 1 - v
        np.subtract(1.0, v, out=out)
    else:
        np.copyto(out, v)
    if loss == "log_loss":
        np.clip(out, _EPS, 1 - _EPS, out=out)
        np.log(out, out=out)
        np.negative(out, out=out)
    else:
        np.square(out, out=out)
    return out


def loss_terms(v: np.ndarray, loss: str) -> tuple[np.ndarray, np.ndarray]:
    """Per-sample loss of a positive and of a negative with score (probability) v
    (the losses of :func:`class_loss_sums`).

    >>> [t.round(4).tolist() for t in loss_terms(np.array([0.9, 0.2]), "log_loss")]
    [[0.1054, 1.6094], [2.3026, 0.2231]]
    """
    v = np.asarray(v, dtype=np.float64)
    return _class_loss_into(np.empty_like(v), v, loss, True), _class_loss_into(np.empty_like(v), v, loss, False)


def loss_sums(tc: ThresholdCounts, loss: str, *, per: tuple | None = None) -> tuple[float, float]:
    """(weighted loss sum, total weight) of a probabilistic loss, from the counts.

    >>> from beyondchance.measures.curves import threshold_counts
    >>> tc = threshold_counts([0, 1], [0.2, 0.6])
    >>> s, w = loss_sums(tc, "brier"); round(s / w, 6)    # ((0.2)^2 + (0.4)^2) / 2
    0.1
    """
    pos, neg = class_loss_sums(_per_threshold(tc) if per is None else per, (loss,))[loss]
    return pos + neg, tc.n


def loss_baseline(prevalence: Any, loss: str) -> Any:
    """Risk of the Bayesian marginal prediction (the constant probability π).

    log loss: the entropy H(π); Brier: π(1 − π) (scikit-learn's binary scale).
    """
    pi = np.asarray(prevalence, dtype=np.float64)
    if loss == "log_loss":
        with np.errstate(divide="ignore", invalid="ignore"):
            h = -(np.where(pi > 0, pi * np.log(np.where(pi > 0, pi, 1.0)), 0.0)
                  + np.where(pi < 1, (1 - pi) * np.log(np.where(pi < 1, 1 - pi, 1.0)), 0.0))
        return h
    return pi * (1.0 - pi)


def bin_starts(cumulative_rows: np.ndarray, max_bins: int) -> np.ndarray:
    """The first distinct score of each of at most ``max_bins`` bins of adjacent scores of
    (nearly) equal row count, from the cumulative rows by decreasing score: the edges where
    they cross i / max_bins of the total (one bin per score when there are no more).

    >>> bin_starts(np.cumsum([5, 1, 1, 1, 1, 1]), 2).tolist()
    [0, 1]
    """
    k = cumulative_rows.shape[0]
    if k <= max_bins:
        return np.arange(k)
    edges = np.searchsorted(cumulative_rows, cumulative_rows[-1] * np.arange(1, max_bins) / max_bins,
                            side="left") + 1
    return np.unique(np.r_[0, edges[edges < k]])


def bin_loss_terms(thresholds: np.ndarray, starts: np.ndarray, loss: str) -> tuple[np.ndarray, np.ndarray]:
    """:func:`loss_terms` of the binned scores: every row of a bin scored with the bin's middle
    distinct score (``thresholds`` decreasing; the exact terms when every bin holds one)."""
    middle = (starts + np.r_[starts[1:], thresholds.shape[0]] - 1) // 2
    return loss_terms(np.asarray(thresholds, dtype=np.float64)[middle], loss)


@dataclass(frozen=True, eq=False)
class ScoreCells:
    """Pools of the score bootstrap: (bin of adjacent scores) x (class).

    Attributes
    ----------
    pos_units, neg_units : (K,) rows of positive weight per bin and class
    pos_weight, neg_weight : (K,) their weight sums
    pos_loss, neg_loss : dict loss -> (K,) weighted loss sums (scores in [0, 1] only)
    n_distinct : number of distinct scores
    exact : whether every bin holds one distinct score
    starts : (K,) index of each bin's first distinct score (by decreasing score), when known
    """

    pos_units: np.ndarray
    neg_units: np.ndarray
    pos_weight: np.ndarray
    neg_weight: np.ndarray
    pos_loss: dict
    neg_loss: dict
    n_distinct: int
    exact: bool
    starts: np.ndarray | None = None

    @classmethod
    def from_counts(
        cls,
        tc: ThresholdCounts,
        units: ThresholdCounts | None = None,
        *,
        max_bins: int = 1000,
        losses: tuple[str, ...] = (),
        per: tuple | None = None,
    ) -> "ScoreCells":
        """Cells from the weighted counts ``tc`` and the unit counts ``units``.

        ``units`` counts rows (weight 1 for every row of positive weight) on the same
        thresholds; ``None`` when the data are unweighted (``tc`` counts rows).
        ``per``: :func:`per_threshold` of ``tc``, when the caller has it.  The bins'
        weights and unit counts are differences of the cumulative counts at the bin
        edges; only the loss sums pass over every distinct score.
        """
        v = tc.thresholds
        if units is not None and (units.thresholds.shape != v.shape or not np.array_equal(units.thresholds, v)):
            raise ValueError("units must be counted on the same thresholds")  # pragma: no cover
        _, cum_up, cum_un = _padded(tc if units is None else units)
        _, cum_p, cum_n = _padded(tc)
        k = v.shape[0]
        exact = k <= max_bins
        if exact:
            starts = np.arange(k)
        else:
            starts = bin_starts(np.add(cum_up[1:], cum_un[1:]), max_bins)
        bounds = np.r_[starts, k]

        def pool(cumulative: np.ndarray) -> np.ndarray:  # sum over each bin's thresholds
            return np.diff(cumulative[bounds])

        sums = class_loss_sums(_per_threshold(tc) if per is None else per, losses, starts) if losses else {}
        return cls(pool(cum_up), pool(cum_un), pool(cum_p), pool(cum_n),
                   {loss: s[0] for loss, s in sums.items()}, {loss: s[1] for loss, s in sums.items()}, k, exact,
                   starts)

    def loss_total(self, loss: str) -> float:
        """The sample's weighted loss sum: the sum of the cells' (exact for binned cells too)."""
        return float(self.pos_loss[loss].sum() + self.neg_loss[loss].sum())

    @property
    def n_bins(self) -> int:
        return int(self.pos_units.shape[0])

    def describe(self) -> str:
        units = float(self.pos_units.sum() + self.neg_units.sum())
        draw = "Poisson" if units > POISSON_ABOVE else "multinomial"
        if self.exact:
            return f"{draw} bootstrap, one cell per distinct score ({self.n_distinct} distinct scores)"
        return (f"{draw} bootstrap on {self.n_bins} bins of adjacent scores of equal row count "
                f"({self.n_distinct} distinct scores), shifted by the binning error")

    # --- measures of (a stack of) cell weights -------------------------------------

    def curve_rates(
        self, pos_w: np.ndarray, neg_w: np.ndarray
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Curves of cell weights of shape (B, K): ``(alpha, beta, prevalence, ok)``.

        ``alpha``, ``beta`` of shape (B, K + 1) by decreasing score with both end
        points (the input of :func:`~beyondchance.measures.curves.auc_from_rates`); ``ok`` marks
        the rows with both classes — the others get a valid placeholder curve and
        prevalence 1/2, whose measures the caller discards.
        """
        b, k = pos_w.shape
        tps = np.zeros((b, k + 1))
        fps = np.zeros((b, k + 1))
        np.cumsum(pos_w, axis=1, out=tps[:, 1:])
        np.cumsum(neg_w, axis=1, out=fps[:, 1:])
        P, N = tps[:, -1], fps[:, -1]
        ok = (P > 0) & (N > 0)
        alpha = fps / np.where(ok, N, 1.0)[:, None]
        beta = 1.0 - tps / np.where(ok, P, 1.0)[:, None]
        alpha[~ok] = np.linspace(0.0, 1.0, k + 1)
        beta[~ok] = 1.0 - alpha[~ok]
        alpha[:, -1], beta[:, -1] = 1.0, 0.0
        alpha[:, 0], beta[:, 0] = 0.0, 1.0
        pi = np.where(ok, P / np.where(ok, P + N, 1.0), 0.5)
        return alpha, beta, pi, ok

    def measures(
        self, pos_w: np.ndarray, neg_w: np.ndarray, pos_l: dict, neg_l: dict, names: tuple[str, ...]
    ) -> dict[str, np.ndarray]:
        """The measures of cell weights of shape (B, K); nan where a class is absent."""
        out: dict[str, np.ndarray] = {}
        curves = [nm for nm in names if nm in _CURVE_OF]
        if curves:
            alpha, beta, pi, ok = self.curve_rates(pos_w, neg_w)
            for nm in curves:
                curve, method = _CURVE_OF[nm]
                val = auc_from_rates(alpha, beta, pi, curve=curve, method=method, validate=False)
                out[nm] = np.where(ok, val, np.nan)
        P = pos_w.sum(axis=1)
        W = P + neg_w.sum(axis=1)
        for nm in names:
            if nm in ("log_loss", "brier"):
                with np.errstate(divide="ignore", invalid="ignore"):
                    out[nm] = np.where(W > 0, (pos_l[nm].sum(axis=1) + neg_l[nm].sum(axis=1)) / W, np.nan)
        out["_prevalence"] = np.where(W > 0, P / np.where(W > 0, W, 1.0), np.nan)
        return out

    def point_measures(self, names: tuple[str, ...]) -> dict[str, float]:
        """The measures of the (binned) sample itself."""
        pl = {k: v[None] for k, v in self.pos_loss.items()}
        nl = {k: v[None] for k, v in self.neg_loss.items()}
        out = self.measures(self.pos_weight[None], self.neg_weight[None], pl, nl, names)
        return {k: float(v[0]) for k, v in out.items()}

    def resamples(
        self, n_resamples: int, rng: np.random.Generator, chunk: int = 250
    ) -> Iterator[tuple[np.ndarray, np.ndarray]]:
        """Resampled unit counts per cell, ``(positive, negative)`` of shape (size, K) per chunk.

        Multinomial(U, m_c / U) over the cells of positive count (the row bootstrap),
        or independent Poisson(m_c) beyond :data:`POISSON_ABOVE` rows (module doc).
        Multiply by the mean weight of a cell's units to get resampled weights.
        """
        m = np.concatenate([self.pos_units, self.neg_units])
        total = int(round(m.sum()))
        k = self.n_bins
        nz = np.flatnonzero(m > 0)  # empty cells stay empty: draw the others only
        p = m[nz] / m.sum()
        for start in range(0, n_resamples, chunk):
            size = min(chunk, n_resamples - start)
            counts = np.zeros((size, m.size))
            if total <= POISSON_ABOVE:  # the ordinary bootstrap: U rows drawn with replacement
                counts[:, nz] = rng.multinomial(total, p, size=size)
            else:  # many rows: the Poisson bootstrap (independent Poisson(m_c) cell counts)
                counts[:, nz] = rng.poisson(m[nz], size=(size, nz.size))
            yield counts[:, :k], counts[:, k:]

    def unit_weights(self) -> tuple[np.ndarray, np.ndarray]:
        """Mean weight of a unit (row) of each positive and each negative cell."""
        return _per_unit(self.pos_weight, self.pos_units), _per_unit(self.neg_weight, self.neg_units)

    def jackknife(self, names: tuple[str, ...]) -> tuple[dict[str, np.ndarray], np.ndarray]:
        """Leave-one-unit-out values of the curve measures ``names``: one value per non-empty
        cell (one of its rows left out, with that row's mean weight), and the cell's row count
        as its multiplicity — the jackknife of BCa's acceleration over the rows."""
        k = self.n_bins
        vpos, vneg = self.unit_weights()
        cells = np.flatnonzero(np.concatenate([self.pos_units, self.neg_units]) > 0)
        pos_w = np.repeat(self.pos_weight[None], cells.size, axis=0)
        neg_w = np.repeat(self.neg_weight[None], cells.size, axis=0)
        rows = np.arange(cells.size)
        is_pos = cells < k
        pos_w[rows[is_pos], cells[is_pos]] -= vpos[cells[is_pos]]
        neg_w[rows[~is_pos], cells[~is_pos] - k] -= vneg[cells[~is_pos] - k]
        values = self.measures(pos_w, neg_w, {}, {}, names)
        return {nm: values[nm] for nm in names}, np.concatenate([self.pos_units, self.neg_units])[cells]

    def bootstrap(
        self, names: tuple[str, ...], *, n_resamples: int, rng: np.random.Generator, chunk: int = 250
    ) -> dict[str, np.ndarray]:
        """Bootstrap distributions (B,) of the measures (and ``"_prevalence"``)."""
        vpos, vneg = self.unit_weights()
        lpos = {nm: _per_unit(s, self.pos_units) for nm, s in self.pos_loss.items()}
        lneg = {nm: _per_unit(s, self.neg_units) for nm, s in self.neg_loss.items()}
        results: dict[str, list[np.ndarray]] = {}
        for cp, cn in self.resamples(n_resamples, rng, chunk):
            out = self.measures(
                cp * vpos, cn * vneg,
                {nm: cp * lpos[nm] for nm in lpos}, {nm: cn * lneg[nm] for nm in lneg}, names,
            )
            for nm, val in out.items():
                results.setdefault(nm, []).append(val)
        return {nm: np.concatenate(v) for nm, v in results.items()}


def _per_unit(total: np.ndarray, units: np.ndarray) -> np.ndarray:
    """total / units per cell (0 in empty cells)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(units > 0, total / np.where(units > 0, units, 1), 0.0)


@dataclass(frozen=True, eq=False)
class CoverageCurve(SummaryDisplay):
    """PA–coverage curve of thresholded scores, confidence |score − threshold|."""

    coverage: np.ndarray
    confidence: np.ndarray
    pa: np.ndarray
    risk: np.ndarray
    baseline_risk: np.ndarray
    area: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation (``nan`` becomes ``None``)."""
        return jsonable({"coverage": self.coverage, "confidence": self.confidence, "pa": self.pa, "risk": self.risk,
                         "baseline_risk": self.baseline_risk, "area": self.area})

    def _summary_title(self) -> str:
        return "PA–coverage curve (confidence |score − threshold|)"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("points", self.coverage.shape[0]), ("coverage", self.coverage), ("PA", self.pa),
                ("area", self.area)]


def pa_coverage_from_counts(tc: ThresholdCounts, threshold: float, *, levels: int | None = None) -> CoverageCurve:
    r"""PA–coverage curve (PA paper, section 6) of the predictor "score ≥ threshold".

    The confidence of a prediction is its distance |s − t| from the threshold; at each
    coverage the most confident samples are kept and the BMP (majority class) is
    re-estimated on them: PA = 1 − errors / min(positives, negatives) of the covered
    samples.  Computed from the per-score counts: the scores above and below the
    threshold are two runs already sorted by confidence, merged in linear time.
    Equals :func:`beyondchance.pa_coverage_curve` with ``confidence = |s − t|``; the
    area is over every achievable coverage, ``levels`` only thins the returned points
    as ``coverages=levels`` does there.

    >>> from beyondchance.measures.curves import threshold_counts
    >>> tc = threshold_counts([0, 0, 1, 1, 1, 0], [0.1, 0.3, 0.6, 0.9, 0.45, 0.7])
    >>> c = pa_coverage_from_counts(tc, 0.5)
    >>> c.coverage.round(3).tolist(), c.pa.round(3).tolist()
    ([0.333, 0.5, 0.667, 0.833, 1.0], [1.0, 1.0, 0.0, 0.5, 0.333])
    """
    v, dp, dn = _per_threshold(tc)
    above = v >= threshold
    conf = np.abs(v - threshold)
    err = np.where(above, dn, dp)
    # above: v decreasing -> confidence decreasing; below: reversed -> decreasing
    ia = np.flatnonzero(above)
    ib = np.flatnonzero(~above)[::-1]
    idx = np.concatenate([ia, ib])
    order = idx[np.argsort(-conf[idx], kind="stable")]  # two sorted runs: linear merge
    c = conf[order]
    wp = np.cumsum(dp[order])
    wn = np.cumsum(dn[order])
    e = np.cumsum(err[order])
    ends = np.flatnonzero(np.r_[c[1:] != c[:-1], True])
    w = wp + wn
    grows = np.diff(np.r_[0.0, w[ends]]) > 0
    ends = ends[grows]
    total = w[-1]
    wj = w[ends]
    base_w = np.minimum(wp[ends], wn[ends])
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = np.where(base_w > 0, 1.0 - e[ends] / base_w, np.nan)
    coverage = wj / total
    ok = np.isfinite(pa)
    area = float(np.trapezoid(pa[ok], coverage[ok])) if ok.sum() >= 2 else float("nan")
    risk = e[ends] / wj
    base = base_w / wj
    conf_pts = c[ends]
    if levels is not None:
        lv = np.arange(1, int(levels) + 1) / int(levels)
        pos = np.minimum(np.searchsorted(coverage, lv * (1 - 1e-12), side="left"), coverage.shape[0] - 1)
        keep = np.unique(pos)
        coverage, conf_pts, pa, risk, base = coverage[keep], conf_pts[keep], pa[keep], risk[keep], base[keep]
    return CoverageCurve(coverage, conf_pts, pa, risk, base, area)
