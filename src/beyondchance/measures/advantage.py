r"""The prediction advantage (PA) of a predictor, for any loss, and the PA–coverage curve.

.. math::

    PA_\ell(f) = 1 - \frac{R_\ell(f)}{R_\ell(f_0)}

f₀ being the Bayesian marginal prediction (BMP) of the loss — the best constant
prediction under the label distribution P(Y) (El-Yaniv, Geifman & Wiener, *The
Prediction Advantage*, section 2.2; the BMPs of :mod:`beyondchance.measures.losses`).
PA = 1 only at zero risk, PA = 0 for the BMP (and for every predictor no better
than it), PA < 0 for a predictor worse than the BMP.  Special cases:

* 0/1 loss: PA = 1 − err / (1 − max_k p_k) (section 2.4);
* squared loss: R² (``sklearn.metrics.r2_score``, section 2.5);
* absolute / pinball loss: ``d2_absolute_error_score`` / ``d2_pinball_score``;
* log loss: 1 − logloss / H(p) = ``d2_log_loss_score`` (section 2.3);
* Brier score: ``d2_brier_score``.

>>> from beyondchance import prediction_advantage
>>> y = [0, 0, 0, 0, 0, 0, 1, 1, 1, 1]
>>> prediction_advantage(y, [0] * 10)            # always the majority: the BMP itself
0.0
>>> prediction_advantage(y, [0, 0, 0, 0, 0, 1, 1, 1, 1, 0])   # error 0.2 vs 0.4
0.5
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .._summary_display import SummaryDisplay, format_number
from .._validation import (
    as_1d,
    as_array,
    as_float_1d,
    check_aligned,
    check_consistent_length,
    check_probabilities,
    check_sample_weight,
    in_class_order,
    encode_labels,
    union_labels,
)
from .._warnings import InvalidInputError, warn_undefined
from .losses import (
    BayesMarginalPrediction,
    Loss,
    SquaredLoss,
    ZeroOneLoss,
    _as_targets,
    _bmp_real_outputs,
    _losses,
    _wsum,
    _class_counts,
    _jsonable,
    _resolve_method,
    _solve_simplex,
    baseline_risk_is_zero,
    bmp_from_distribution,
    get_loss,
)
from .confusion import ConfusionMatrix

__all__ = [
    "prediction_advantage",
    "PredictionAdvantageResult",
    "pa_coverage_curve",
    "PACoverageCurve",
]

MultiOutput = Literal["uniform_average", "raw_values"]


# =====================================================================================
# results
# =====================================================================================


@dataclass(frozen=True, eq=False)
class PredictionAdvantageResult(SummaryDisplay):
    """A prediction advantage with what it was computed from.

    Attributes
    ----------
    value : the PA (a float; an array per output with ``multioutput="raw_values"``)
    risk : R(f), the predictor's mean loss (one per output for multi-output targets)
    baseline_risk : R(f₀), the BMP's mean loss on the *same* evaluated sample — the
        denominator of the PA
    baseline : the BMP f₀ and where it came from (``baseline.source``:
        ``"sample"``, ``"training labels"``, ``"distribution"`` or ``"given"``;
        ``baseline.risk`` is its risk on that source)
    loss : the loss name
    """

    value: Any
    risk: Any
    baseline_risk: Any
    baseline: BayesMarginalPrediction
    loss: str

    @classmethod
    def from_predictions(
        cls,
        y_true: Any,
        y_pred: Any,
        *,
        loss: str | Loss = "zero_one",
        sample_weight: Any = None,
        labels: Any = None,
        prior: Any = None,
        multioutput: MultiOutput | Any = "uniform_average",
        normalize: bool = False,
        strict: bool = False,
    ) -> "PredictionAdvantageResult":
        """:func:`prediction_advantage` with its risks and its baseline (same parameters).

        >>> r = PredictionAdvantageResult.from_predictions([0, 0, 0, 1], [0, 0, 1, 1])
        >>> r.value, r.risk, r.baseline_risk, r.baseline.prediction
        (0.0, 0.25, 0.25, 0)
        """
        return _result(y_true, y_pred, loss, sample_weight, labels, prior, multioutput, normalize, strict)

    def __float__(self) -> float:
        return float(self.value)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(result)``: the prediction advantage(s) as a float array."""
        return np.array(self.value, dtype=np.float64 if dtype is None else dtype)

    def _summary_title(self) -> str:
        return f"Prediction advantage ({self.loss} loss)"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("prediction advantage", self.value), ("risk of the predictor", self.risk),
                ("risk of the best constant", self.baseline_risk),
                ("best constant", f"{format_number(self.baseline.prediction)} (from the {self.baseline.source})")]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "value": _jsonable(self.value),
            "risk": _jsonable(self.risk),
            "baseline_risk": _jsonable(self.baseline_risk),
            "baseline": self.baseline.to_dict(),
            "loss": self.loss,
        }


@dataclass(frozen=True, eq=False)
class PACoverageCurve:
    """The PA–coverage curve of a selective predictor (see :func:`pa_coverage_curve`).

    Attributes
    ----------
    coverage : covered fraction of the (weighted) sample, increasing, last = 1
    threshold : the confidence threshold of each point (samples with confidence ≥
        threshold are covered)
    pa : PA on the covered subset, the BMP re-estimated on that subset (``nan``
        where the covered labels have a single class / value)
    risk : R(f) on the covered subset
    baseline_risk : R(f₀) on the covered subset (the covered subset's own BMP)
    area : area under the PA–coverage curve (trapezoidal rule over the points where
        the PA is defined; ``nan`` with fewer than two such points)
    loss : the loss name
    """

    coverage: np.ndarray
    threshold: np.ndarray
    pa: np.ndarray
    risk: np.ndarray
    baseline_risk: np.ndarray
    area: float
    loss: str

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation (``nan`` becomes ``None``)."""

        def clean(a: np.ndarray) -> list[Any]:
            return [None if not np.isfinite(v) else float(v) for v in np.asarray(a, dtype=np.float64)]

        return {
            "coverage": clean(self.coverage),
            "threshold": clean(self.threshold),
            "pa": clean(self.pa),
            "risk": clean(self.risk),
            "baseline_risk": clean(self.baseline_risk),
            "area": None if not np.isfinite(self.area) else float(self.area),
            "loss": self.loss,
        }


# =====================================================================================
# the prior (baseline source)
# =====================================================================================


@dataclass(frozen=True)
class _Prior:
    source: str  # "training labels" | "distribution" | "given"
    labels: np.ndarray | None = None  # training labels / targets, or the keys of a distribution
    probabilities: np.ndarray | None = None  # distribution only
    bmp: BayesMarginalPrediction | None = None  # given only

    def label_set(self) -> np.ndarray | None:
        if self.source == "given":
            assert self.bmp is not None
            if self.bmp.classes is not None:
                return self.bmp.classes
            return np.asarray([self.bmp.prediction])
        return self.labels


def _read_prior(prior: Any, loss: Loss) -> _Prior | None:
    if prior is None:
        return None
    if isinstance(prior, BayesMarginalPrediction):
        if prior.loss != loss.name:
            raise InvalidInputError(
                f"prior is the BMP of loss {prior.loss!r} but the loss is {loss.name!r}"
            )
        return _Prior("given", bmp=prior)
    if isinstance(prior, Mapping):
        if len(prior) == 0:
            raise InvalidInputError("prior is an empty mapping")
        keys = as_1d(list(prior.keys()), "prior labels")
        try:
            probs = np.asarray(list(prior.values()), dtype=np.float64)
        except (TypeError, ValueError) as exc:
            raise InvalidInputError(f"prior probabilities must be numbers: {exc}") from exc
        probs = check_probabilities(probs.reshape(1, -1), "prior probabilities")[0]
        return _Prior("distribution", labels=keys, probabilities=probs)
    if isinstance(prior, str):
        raise InvalidInputError(
            "prior must be training labels (array-like), a {label: probability} mapping "
            "or a BayesMarginalPrediction, got a string"
        )
    arr = np.asarray(prior)
    if arr.ndim == 0:
        raise InvalidInputError(
            "prior must be training labels (array-like), a {label: probability} mapping "
            f"or a BayesMarginalPrediction, got {type(prior).__name__}"
        )
    return _Prior("training labels", labels=prior)


def _positions(values: np.ndarray, classes: np.ndarray) -> np.ndarray:
    codes, _, _ = encode_labels(values, labels=classes, names=("prior labels", ""))
    return codes


# =====================================================================================
# evaluation per kind of prediction
# =====================================================================================


@dataclass(frozen=True)
class _Evaluation:
    risk: np.ndarray  # per output
    baseline_risk: np.ndarray  # per output, on the evaluated sample
    baseline: BayesMarginalPrediction
    multi: bool  # several outputs


def _evaluate_labels(
    lo: Loss, y_true: Any, y_pred: Any, w_in: Any, labels: Any, prior: _Prior | None
) -> _Evaluation:
    yt = as_1d(y_true, "y_true")
    yp = as_1d(y_pred, "y_pred")
    check_consistent_length(y_true=yt, y_pred=yp)
    extras = [a for a in (lo.extra_labels(), None if prior is None else prior.label_set()) if a is not None]
    if labels is None and extras:
        labels = union_labels(yt, yp, *extras, names=("y_true", "y_pred") + ("prior/loss labels",) * len(extras))
    # one bincount pass: the (weighted) confusion matrix is the sufficient statistic
    cm = ConfusionMatrix.from_predictions(yt, yp, sample_weight=w_in, labels=labels, pos_label=None)
    classes = cm.labels
    counts = cm.true_counts  # N_t
    n = float(counts.sum())
    zero_one = isinstance(lo, ZeroOneLoss)
    method = _resolve_method(lo, "auto")
    table = None if zero_one else lo.loss_matrix(classes)  # L[pred, true]
    if zero_one:
        risk = (n - float(np.trace(cm.matrix))) / n
    else:
        assert table is not None  # a loss table unless zero-one
        risk = float(np.sum(cm.matrix * table.T)) / n

    if prior is None:
        i0, r0 = bmp_from_distribution(lo, counts, classes, method)
        source_risk, source = r0, "sample"
    else:
        if prior.source == "given":
            assert prior.bmp is not None
            i0 = int(_positions(np.asarray([prior.bmp.prediction]), classes)[0])
            source_risk = prior.bmp.risk
        else:
            assert prior.labels is not None  # training labels, or the keys of a distribution
            if prior.source == "distribution":
                assert prior.probabilities is not None
                p = np.zeros(classes.shape[0])
                np.add.at(p, _positions(prior.labels, classes), prior.probabilities)
            else:
                p = _class_counts(_positions(prior.labels, classes), None, classes.shape[0])
            i0, source_risk = bmp_from_distribution(lo, p, classes, method)
        source = prior.source
        if zero_one:
            r0 = (n - float(counts[i0])) / n
        else:
            assert table is not None
            r0 = float(table[i0] @ counts) / n
    value = classes[i0]
    value = value.item() if isinstance(value, np.generic) else value
    bmp = BayesMarginalPrediction(lo.name, value, float(source_risk), classes, source, method)
    return _Evaluation(np.array([risk]), np.array([r0]), bmp, False)


def _read_proba(
    y_pred: Any, k: int, normalize: bool, classes: np.ndarray, labels_given: bool = False
) -> np.ndarray:
    """(n, k) probabilities of ``y_pred``: a table's columns named by the classes in the class order, one
    column (the last class's probability) completed for two classes."""
    arr = as_array(y_pred, "y_pred", squeeze=True)
    arr = in_class_order(y_pred, arr, classes, "y_pred", labels_given=labels_given)
    p = check_probabilities(arr, "y_pred", n_classes=k if arr.ndim == 2 else None, normalize=normalize)
    if p.ndim == 1:
        if k != 2:
            raise InvalidInputError(
                f"y_pred holds one probability per sample (of the positive class), but there are "
                f"{k} classes {classes.tolist()}; pass an (n, {k}) matrix or labels= with two labels"
            )
        p = np.column_stack([1.0 - p, p])
    return p


def _proba_classes(yt: np.ndarray, labels: Any, prior: _Prior | None) -> Any:
    if labels is not None or prior is None:
        return labels
    extra = prior.label_set()
    return union_labels(yt, extra, names=("y_true", "prior labels"))


def _evaluate_proba(
    lo: Loss, y_true: Any, y_pred: Any, w_in: Any, labels: Any, prior: _Prior | None, normalize: bool
) -> _Evaluation:
    yt = as_1d(y_true, "y_true")
    codes, _, classes = encode_labels(yt, labels=_proba_classes(yt, labels, prior))
    k = classes.shape[0]
    method = _resolve_method(lo, "auto")
    w = check_sample_weight(w_in, codes.shape[0])
    counts = _class_counts(codes, w, k)
    if k == 1:  # one class and nothing says which column is which: the BMP risk is 0
        check_consistent_length(y_true=yt, y_pred=check_probabilities(y_pred, "y_pred", normalize=normalize))
        bmp = BayesMarginalPrediction(lo.name, np.ones(1), 0.0, classes, "sample", method)
        return _Evaluation(np.array([np.nan]), np.array([0.0]), bmp, False)
    proba = _read_proba(y_pred, k, normalize, classes, labels is not None)
    check_consistent_length(y_true=yt, y_pred=proba)
    losses = lo.sample_losses_proba(proba, codes)
    total = float(counts.sum())
    risk = _wsum(w, losses) / total if w is not None else float(np.mean(losses))
    p = counts / total
    if prior is None:
        q, r0 = bmp_from_distribution(lo, counts, classes, method)
        source_risk, source = r0, "sample"
    else:
        if prior.source == "given":
            assert prior.bmp is not None and prior.bmp.classes is not None
            q = np.zeros(k)
            q[_positions(prior.bmp.classes, classes)] = np.asarray(prior.bmp.prediction, dtype=np.float64)
            source_risk = prior.bmp.risk
        else:
            assert prior.labels is not None  # training labels, or the keys of a distribution
            if prior.source == "distribution":
                assert prior.probabilities is not None
                pp = np.zeros(k)
                np.add.at(pp, _positions(prior.labels, classes), prior.probabilities)
            else:
                pp = _class_counts(_positions(prior.labels, classes), None, k)
            q, source_risk = bmp_from_distribution(lo, pp, classes, method)
        source = prior.source
        r0 = float(lo.constant_risk_proba(q, p))
    bmp = BayesMarginalPrediction(lo.name, np.asarray(q), float(source_risk), classes, source, method)
    return _Evaluation(np.array([risk]), np.array([r0]), bmp, False)


def _evaluate_real(lo: Loss, y_true: Any, y_pred: Any, w_in: Any, prior: _Prior | None) -> _Evaluation:
    y = _as_targets(y_true, "y_true")
    f = _as_targets(y_pred, "y_pred")
    check_consistent_length(y_true=y, y_pred=f)
    if y.shape != f.shape:
        raise InvalidInputError(f"y_true has shape {y.shape} but y_pred has shape {f.shape}")
    n, m = y.shape
    w = check_sample_weight(w_in, n)
    ww = np.ones(n) if w is None else w
    total = float(ww.sum())
    method = _resolve_method(lo, "auto")
    risk = np.array([_wsum(ww, _losses(lo, f[:, j], y[:, j])) / total for j in range(m)])
    multi = m > 1
    if prior is None:
        consts, r0 = _bmp_real_outputs(lo, y, w, method)
        source_risk, source = r0, "sample"
    else:
        if prior.source == "given":
            assert prior.bmp is not None
            consts = np.atleast_1d(np.asarray(prior.bmp.prediction, dtype=np.float64))
            source_risk = np.atleast_1d(np.asarray(prior.bmp.risk, dtype=np.float64))
        elif prior.source == "distribution":
            vals = np.asarray(prior.labels, dtype=np.float64).reshape(-1, 1)
            if not np.isfinite(vals).all():
                raise InvalidInputError("prior values contain NaN or infinite values")
            consts, source_risk = _bmp_real_outputs(lo, vals, prior.probabilities, method)
        else:
            train = _as_targets(prior.labels, "prior")
            consts, source_risk = _bmp_real_outputs(lo, train, None, method)
        if consts.shape[0] != m:
            raise InvalidInputError(f"the prior has {consts.shape[0]} output(s) but y_true has {m}")
        source = prior.source
        r0 = np.array([
            _wsum(ww, _losses(lo, np.full(n, consts[j]), y[:, j])) / total
            for j in range(m)
        ])
    pred: Any = consts if multi else float(consts[0])
    src: Any = np.asarray(source_risk, dtype=np.float64) if multi else float(np.asarray(source_risk).ravel()[0])
    bmp = BayesMarginalPrediction(lo.name, pred, src, None, source, method)
    return _Evaluation(risk, np.asarray(r0, dtype=np.float64), bmp, multi)


def _evaluate(
    y_true: Any, y_pred: Any, *, loss: Any, sample_weight: Any, labels: Any, prior: Any, normalize: bool
) -> tuple[Loss, _Evaluation]:
    lo = get_loss(loss)
    pr = _read_prior(prior, lo)
    check_aligned(y_true=y_true, y_pred=y_pred, sample_weight=sample_weight)
    if lo.prediction == "label":
        return lo, _evaluate_labels(lo, y_true, y_pred, sample_weight, labels, pr)
    if lo.prediction == "probability":
        return lo, _evaluate_proba(lo, y_true, y_pred, sample_weight, labels, pr, normalize)
    if labels is not None:
        raise InvalidInputError(f"labels= applies to classification losses, not to {lo.name!r}")
    return lo, _evaluate_real(lo, y_true, y_pred, sample_weight, pr)


def _advantage(risk: np.ndarray, baseline_risk: np.ndarray, *, strict: bool, what: str) -> np.ndarray:
    undefined = baseline_risk <= 0
    if undefined.any():
        where = "" if baseline_risk.shape[0] == 1 else f" for output(s) {np.flatnonzero(undefined).tolist()}"
        warn_undefined(
            f"prediction advantage is undefined{where}: the best constant prediction's risk is 0 "
            f"({what}); returning nan",
            strict=strict,
            stacklevel=5,  # warn_undefined < _advantage < _result < public function < caller
        )
    with np.errstate(divide="ignore", invalid="ignore"):
        pa = 1.0 - risk / baseline_risk
    return np.where(undefined, np.nan, pa)


def _aggregate(pa: np.ndarray, multioutput: Any, multi_capable: bool) -> Any:
    if isinstance(multioutput, str):
        if multioutput not in ("uniform_average", "raw_values"):
            raise InvalidInputError(
                f"multioutput must be 'uniform_average', 'raw_values' or an array of weights, got {multioutput!r}"
            )
        if multioutput == "raw_values" and multi_capable:
            return pa
        return float(np.mean(pa))
    weights = as_float_1d(multioutput, "multioutput")
    if weights.shape[0] != pa.shape[0]:
        raise InvalidInputError(f"multioutput has {weights.shape[0]} weights but there are {pa.shape[0]} outputs")
    if (weights < 0).any() or not weights.sum() > 0:
        raise InvalidInputError("multioutput weights must be non-negative with a positive sum")
    return float(np.average(pa, weights=weights))


# =====================================================================================
# public API
# =====================================================================================


def _result(
    y_true: Any, y_pred: Any, loss: Any, sample_weight: Any, labels: Any, prior: Any,
    multioutput: Any, normalize: bool, strict: bool,
) -> PredictionAdvantageResult:
    lo, ev = _evaluate(
        y_true, y_pred, loss=loss, sample_weight=sample_weight, labels=labels, prior=prior, normalize=normalize
    )
    what = (
        "the evaluated labels have a single class / value"
        if ev.baseline.source == "sample"
        else "the baseline prediction makes no error on the evaluated sample"
    )
    pa = _advantage(ev.risk, ev.baseline_risk, strict=strict, what=what)
    value = _aggregate(pa, multioutput, lo.prediction == "real")
    risk: Any = ev.risk if ev.multi else float(ev.risk[0])
    base: Any = ev.baseline_risk if ev.multi else float(ev.baseline_risk[0])
    return PredictionAdvantageResult(value, risk, base, ev.baseline, lo.name)


def prediction_advantage(
    y_true: Any,
    y_pred: Any,
    *,
    loss: str | Loss = "zero_one",
    sample_weight: Any = None,
    labels: Any = None,
    prior: Any = None,
    multioutput: MultiOutput | Any = "uniform_average",
    normalize: bool = False,
    strict: bool = False,
) -> Any:
    r"""Prediction advantage PA = 1 − R(f) / R(f₀) of predictions, for any loss.

    R(f) is the (weighted) mean loss of ``y_pred``; R(f₀) the mean loss, on the same
    samples, of the Bayesian marginal prediction f₀ — the best constant prediction
    given only the label distribution (PA paper, sections 2.1–2.2, Lemma 2.1).
    1 is perfect, 0 is no better than the trivial predictor f₀ (which scores exactly
    0), negative is worse than it; there is no lower bound.

    Parameters
    ----------
    y_true : labels (classification losses) or real targets, (n,) or (n, m)
    y_pred : predicted labels (``zero_one``, cost matrix, label callables), predicted
        probabilities (``cross_entropy``/``log_loss``, ``brier``: a 1-D array of the
        probability of the last class for binary problems, or an (n, k) matrix with
        columns in the order of ``labels``), or real predictions of the same shape as
        ``y_true``
    loss : ``"zero_one"``, ``"cross_entropy"`` (alias ``"log_loss"``), ``"squared"``,
        ``"absolute"``, ``"brier"``, ``"pinball"`` (α = 0.5), or a loss object:
        :class:`~beyondchance.PinballLoss`, :class:`~beyondchance.CostMatrixLoss`,
        :class:`~beyondchance.CallableLoss` (BMP found numerically) …
    sample_weight : optional non-negative weights, shape (n,)
    labels : the class set in order (classification losses).  Default: the sorted
        labels of ``y_true`` and ``y_pred`` (label losses; predicted labels absent
        from ``y_true`` are allowed) or of ``y_true`` (probability losses, as
        scikit-learn).
    prior : where the baseline comes from (the "baseline source").  ``None`` (default):
        the evaluated sample's own label distribution.  Otherwise f₀ is fitted to

        * an array-like: **training labels** (or training targets for regression
          losses), unweighted;
        * a mapping ``{label: probability}`` (or ``{value: probability}`` for a
          regression loss): a **known distribution**;
        * a :class:`~beyondchance.BayesMarginalPrediction` (e.g. computed with weights
          on training data): used as is,

        and its risk R(f₀) is measured on the evaluated sample, so the constant
        predictor a trivial learner would have deployed still scores exactly 0.
    multioutput : ``"uniform_average"`` (default), ``"raw_values"`` (one PA per
        output) or an array of output weights; regression losses only.
    normalize : probability losses: rescale rows of ``y_pred`` that do not sum to 1
        instead of raising
    strict : raise :class:`~beyondchance.UndefinedMeasureError` instead of returning
        ``nan`` with an :class:`~beyondchance.UndefinedMeasureWarning` when the PA is
        undefined (R(f₀) = 0: a single class or value)

    Returns
    -------
    float, or an array of one PA per output with ``multioutput="raw_values"``

    Raises
    ------
    InvalidInputError
        With a classification loss, when ``y_true`` (or ``y_pred``, label losses) holds
        continuous values where labels are expected — a number that is not whole, such as
        a probability 0.731 given to the 0/1 loss — in one line naming the argument and
        the first such row (scikit-learn's "continuous" targets).  Whole numbers as floats
        (0.0, 1.0) are labels, with the value of the integers; regression losses take
        real values.

    Notes
    -----
    Closed forms: 0/1 loss 1 − err / (1 − max_k p_k) (section 2.4), computed from the
    weighted confusion matrix in one ``bincount`` pass — it equals the
    ``prediction_advantage`` entry of ``beyondchance.measures.registry``; squared loss R²
    (section 2.5); absolute loss 1 − MAE / D_med (section 2.6); cross-entropy
    1 − logloss / H(p) (section 2.3); cost matrix 1 − R_c(f) / min_i Σ_j b_ij p_j
    (section 2.7).  With the default (sample) baseline they equal scikit-learn's
    ``r2_score``, ``d2_absolute_error_score``, ``d2_pinball_score``,
    ``d2_log_loss_score`` and ``d2_brier_score`` except where those force a finite
    value (zero baseline risk), where we return ``nan`` and warn.  "Zero" follows
    ``beyondchance.measures.losses.baseline_risk_is_zero`` (real targets: no more than
    the loss of one error of 1e-10 · ``max |y|``, i.e. targets equal up to rounding).

    Examples
    --------
    The exam of the PA paper (section 5): 60% on a 4-option exam beats 60% on a
    3-option exam.

    >>> three = [0, 1, 2] * 100
    >>> round(prediction_advantage(three, three[:180] + [(t + 1) % 3 for t in three[180:]]), 12)
    0.4
    >>> four = [0, 1, 2, 3] * 25
    >>> round(prediction_advantage(four, four[:60] + [(t + 1) % 4 for t in four[60:]]), 12)
    0.466666666667
    >>> prediction_advantage([1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0], loss="squared")  # R²
    0.8
    >>> round(prediction_advantage([0, 0, 1, 1], [0.1, 0.4, 0.6, 0.8], loss="log_loss"), 6)
    0.513034
    """
    return _result(y_true, y_pred, loss, sample_weight, labels, prior, multioutput, normalize, strict).value


# =====================================================================================
# selective prediction: the PA–coverage curve
# =====================================================================================


#: coverage levels used by default for losses whose BMP is re-solved at every point
_DEFAULT_LEVELS = 100


def _cut_points(conf_sorted: np.ndarray, wcum: np.ndarray, coverages: Any) -> np.ndarray:
    """Sorted-sample positions at which the covered subset ends (ties never split)."""
    ends = np.flatnonzero(np.r_[conf_sorted[1:] != conf_sorted[:-1], True])
    # a threshold that adds only zero-weight samples adds no point (same coverage)
    grows = np.diff(np.r_[0.0, wcum[ends]]) > 0
    ends = ends[grows]
    if coverages is None:
        return ends
    achieved = wcum[ends] / wcum[-1]
    if isinstance(coverages, (int, np.integer)) and not isinstance(coverages, bool):
        if coverages < 1:
            raise InvalidInputError(f"coverages must be a positive number of levels, got {coverages}")
        levels = np.arange(1, int(coverages) + 1) / int(coverages)
    else:
        levels = as_float_1d(coverages, "coverages")
        if ((levels <= 0) | (levels > 1)).any():
            raise InvalidInputError("coverages must lie in (0, 1]")
    pos = np.searchsorted(achieved, levels * (1 - 1e-12), side="left")
    pos = np.minimum(pos, ends.shape[0] - 1)
    return ends[np.unique(pos)]


def _cumulative_class_counts(codes: np.ndarray, ws: np.ndarray, k: int, idx: np.ndarray) -> np.ndarray:
    """N[j, c] = weight of class c among the first idx[j] + 1 sorted samples."""
    out = np.empty((idx.shape[0], k))
    for c in range(k):  # a loop over classes, each pass vectorised over the samples
        out[:, c] = np.cumsum(np.where(codes == c, ws, 0.0))[idx]
    return out


def _coverage_label_losses(
    lo: Loss, y_true: Any, y_pred: Any, conf: np.ndarray, labels: Any
) -> tuple[np.ndarray, int, np.ndarray | None, bool, np.ndarray]:
    """Class codes of y_true, class count, loss table, 0/1 flag and per-sample losses of a label loss."""
    yt = as_1d(y_true, "y_true")
    yp = as_1d(y_pred, "y_pred")
    check_consistent_length(y_true=yt, y_pred=yp, confidence=conf)
    extra = lo.extra_labels()
    if labels is None and extra is not None:
        labels = union_labels(yt, yp, extra, names=("y_true", "y_pred", "the loss's labels"))
    ct, cp, classes = encode_labels(yt, yp, labels=labels)
    k = classes.shape[0]
    zero_one = isinstance(lo, ZeroOneLoss)
    table = None if zero_one else lo.loss_matrix(classes)
    if table is None:
        losses = (ct != cp).astype(np.float64)
    else:
        losses = table[cp, ct]
    return ct, k, table, zero_one, losses


def _coverage_proba_losses(
    lo: Loss, y_true: Any, y_pred: Any, conf: np.ndarray, labels: Any, normalize: bool
) -> tuple[np.ndarray, int, np.ndarray]:
    """Class codes of y_true, class count and per-sample losses of a probability loss."""
    yt = as_1d(y_true, "y_true")
    ct, _, classes = encode_labels(yt, labels=labels)
    k = classes.shape[0]
    if k < 2:
        raise InvalidInputError(
            "the PA-coverage curve of a probability loss needs at least two classes "
            "(pass labels= to name them)"
        )
    proba = _read_proba(y_pred, k, normalize, classes, labels is not None)
    check_consistent_length(y_true=yt, y_pred=proba, confidence=conf)
    return ct, k, lo.sample_losses_proba(proba, ct)


def _coverage_real_losses(
    lo: Loss, y_true: Any, y_pred: Any, conf: np.ndarray, labels: Any
) -> tuple[np.ndarray, np.ndarray]:
    """The single-output targets and per-sample losses of a real-valued loss."""
    if labels is not None:
        raise InvalidInputError(f"labels= applies to classification losses, not to {lo.name!r}")
    y = _as_targets(y_true, "y_true")
    f = _as_targets(y_pred, "y_pred")
    if y.shape[1] != 1 or f.shape != y.shape:
        raise InvalidInputError(
            f"the PA-coverage curve takes one output; y_true has shape {y.shape}, y_pred {f.shape}"
        )
    y, f = y[:, 0], f[:, 0]
    check_consistent_length(y_true=y, y_pred=f, confidence=conf)
    return y, _losses(lo, f, y)


def _coverage_label_baseline(
    counts: np.ndarray, wj: np.ndarray, table: np.ndarray | None, zero_one: bool
) -> np.ndarray:
    """BMP risk of each covered subset for a label loss, from its class weights."""
    if zero_one:
        return (wj - counts.max(axis=1)) / wj
    assert table is not None
    return (counts @ table.T).min(axis=1) / wj  # min_i Σ_t L[i, t] N_t


def _coverage_proba_baseline(lo: Loss, method: str, counts: np.ndarray, wj: np.ndarray) -> np.ndarray:
    """BMP risk of each covered subset for a probability loss, from its class weights."""
    p = counts / wj[:, None]
    if method == "closed_form":
        return np.asarray(lo.bmp_risk_proba(p), dtype=np.float64)
    # one simplex solve per point (O(k²) each; no pass over the data)
    return np.array([_solve_simplex(lo, row)[1] for row in p])


def _coverage_real_baseline(
    lo: Loss, method: str, ys: np.ndarray, ws: np.ndarray, idx: np.ndarray, wj: np.ndarray
) -> np.ndarray:
    """BMP risk of each covered subset for a real-valued loss (zero where the subset has one target value)."""
    pos_w = ws > 0
    running_min = np.minimum.accumulate(np.where(pos_w, ys, np.inf))[idx]
    running_max = np.maximum.accumulate(np.where(pos_w, ys, -np.inf))[idx]
    single = running_min == running_max
    if method == "closed_form" and isinstance(lo, SquaredLoss):
        # shift by a target inside every covered subset (the first of positive
        # weight), not by the overall mean: the rounding error of s2 - s1² is then
        # relative to the subset's own spread, whatever its distance from the rest
        z = ys - ys[np.argmax(pos_w)]
        m1 = np.cumsum(ws * z)[idx] / wj
        m2 = np.cumsum(ws * z * z)[idx] / wj
        base = np.maximum(m2 - m1**2, 0.0)
        scale = np.maximum(-running_min, running_max)  # max |y| of each covered subset
        base = np.where(baseline_risk_is_zero(base, lo, scale), 0.0, base)
    else:
        base = np.array([
            _bmp_real_outputs(lo, ys[: e + 1, None], ws[: e + 1], method)[1][0] for e in idx
        ])
    return np.where(single, 0.0, base)


def pa_coverage_curve(
    y_true: Any,
    y_pred: Any,
    confidence: Any,
    *,
    loss: str | Loss = "zero_one",
    sample_weight: Any = None,
    coverages: Any = None,
    labels: Any = None,
    normalize: bool = False,
) -> PACoverageCurve:
    r"""PA against coverage for a selective predictor (PA paper, section 6).

    At each coverage level the most confident samples are kept (confidence ≥ a
    threshold), the BMP is **re-estimated on the covered subset** — rejection changes
    the class balance, so the risk alone is misleading — and

    .. math::

        PA(c) = 1 - \frac{R_\ell(f \mid \text{covered})}{R_\ell(f_0^{\text{covered}} \mid \text{covered})}.

    A predictor that keeps only the majority class at low coverage does not get
    credit for it: its covered subset's BMP is just as good.

    Parameters
    ----------
    y_true, y_pred, loss, sample_weight, labels, normalize : as in
        :func:`prediction_advantage` (one output)
    confidence : (n,) confidence scores, larger = more confident
    coverages : ``None`` (default): one point per distinct confidence value, i.e.
        every achievable coverage, for the losses whose statistics accumulate (0/1,
        cost matrices, label callables, log loss, Brier, squared); for the others
        (absolute, pinball, real- and probability-valued callables), whose BMP is
        re-solved at every point, the 100 levels 0.01, 0.02, …, 1.  An int m: the
        levels 1/m, 2/m, …, 1; or an array of levels in (0, 1].  A requested level
        is rounded up to the nearest achievable coverage (samples with equal
        confidence are kept or rejected together); repeated points are merged.

    Returns
    -------
    PACoverageCurve

    Raises
    ------
    InvalidInputError
        As :func:`prediction_advantage`: continuous values where a classification loss
        expects labels (``y_true``, or ``y_pred`` of a label loss), naming the argument.

    Notes
    -----
    One sort by confidence, then cumulative sums: the per-class weights and the loss
    sums of every prefix (0/1, cost matrices, label callables, log loss, Brier) or
    the weighted moments Σw, Σwz, Σwz² of z = y − y₁, y₁ the most confident target,
    so that rounding is relative to each subset's own spread (squared loss).  A
    subset's baseline risk counts as zero (PA nan) by the rule of
    ``beyondchance.measures.losses.baseline_risk_is_zero``.  For the absolute, pinball
    and real-valued callable losses the covered subset's quantile / numerical BMP is
    recomputed at each point (cost O(points × n log n)); for probability-valued
    callables the simplex is re-solved at each point from the covered class weights.

    Examples
    --------
    >>> y    = [0, 0, 0, 0, 1, 1, 1, 0]
    >>> pred = [0, 0, 0, 0, 1, 1, 0, 1]
    >>> conf = [.9, .9, .8, .8, .7, .7, .6, .5]
    >>> curve = pa_coverage_curve(y, pred, conf)
    >>> curve.coverage.tolist()
    [0.25, 0.5, 0.75, 0.875, 1.0]
    >>> curve.pa.round(4).tolist()    # nan: only class 0 is covered
    [nan, nan, 1.0, 0.6667, 0.3333]
    """
    lo = get_loss(loss)
    conf = as_float_1d(confidence, "confidence")
    method = _resolve_method(lo, "auto")

    ct: np.ndarray | None = None
    y: np.ndarray | None = None
    table: np.ndarray | None = None
    zero_one = False
    k = 0
    if lo.prediction == "label":
        ct, k, table, zero_one, losses = _coverage_label_losses(lo, y_true, y_pred, conf, labels)
    elif lo.prediction == "probability":
        ct, k, losses = _coverage_proba_losses(lo, y_true, y_pred, conf, labels, normalize)
    else:
        y, losses = _coverage_real_losses(lo, y_true, y_pred, conf, labels)

    n = conf.shape[0]
    w = check_sample_weight(sample_weight, n)
    order = np.argsort(-conf, kind="stable")
    conf_s = conf[order]
    ws = np.ones(n) if w is None else w[order]
    wcum = np.cumsum(ws)
    cumulative = lo.prediction == "label" or method == "closed_form" and (
        lo.prediction == "probability" or isinstance(lo, SquaredLoss)
    )
    if coverages is None and not cumulative:
        coverages = _DEFAULT_LEVELS
    idx = _cut_points(conf_s, wcum, coverages)
    wj = wcum[idx]
    risk = np.cumsum(ws * losses[order])[idx] / wj

    if lo.prediction == "label":
        assert ct is not None
        counts = _cumulative_class_counts(ct[order], ws, k, idx)
        base = _coverage_label_baseline(counts, wj, table, zero_one)
    elif lo.prediction == "probability":
        assert ct is not None
        counts = _cumulative_class_counts(ct[order], ws, k, idx)
        base = _coverage_proba_baseline(lo, method, counts, wj)
    else:
        assert y is not None
        base = _coverage_real_baseline(lo, method, y[order], ws, idx, wj)

    with np.errstate(divide="ignore", invalid="ignore"):
        pa = np.where(base > 0, 1.0 - risk / base, np.nan)
    coverage = wj / wcum[-1]
    ok = np.isfinite(pa)
    area = float(np.trapezoid(pa[ok], coverage[ok])) if ok.sum() >= 2 else float("nan")
    return PACoverageCurve(coverage, conf_s[idx], pa, risk, base, area, lo.name)
