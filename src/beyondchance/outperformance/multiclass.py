r"""Multi-class and multi-label outperformance scores, one-vs-rest (beyond the OPS paper).

The outperformance score (OPS paper, Definition 1, eq. 6) is
OPS_M(μ; π) = Pr{M(π, A, B) < μ} with A, B ~ Uniform[0, 1] independent:

:func:`multiclass_outperformance_score`
    One-vs-rest OPS: class k's (tp, fp, fn, tn) against the rest give its value μ_k
    and prevalence π_k = (tp_k + fn_k)/n, hence OPS_k = OPS_M(μ_k; π_k); the
    aggregate is the macro mean (1/K) Σ_k OPS_k or the prevalence-weighted mean
    Σ_k π_k OPS_k / Σ_k π_k.  Multi-label indicator matrices (n × L, 0/1) are L
    binary problems, one per column.

>>> import numpy as np
>>> from beyondchance.outperformance import multiclass_outperformance_score
>>> r = multiclass_outperformance_score("f1", [0, 0, 1, 1, 2, 2], [0, 1, 1, 1, 2, 0])
>>> r.labels.tolist(), r.prevalences.round(3).tolist()
([0, 1, 2], [0.333, 0.333, 0.333])
>>> bool(r.score == r.scores.mean())
True
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np

from .._summary_display import SummaryDisplay, format_number
from .._json import jsonable as _jsonable
from .._validation import (
    as_1d,
    check_consistent_length,
    check_option,
    check_sample_weight,
)
from .._warnings import InvalidInputError, UndefinedMeasureWarning
from ..measures.confusion import ConfusionMatrix
from ..measures.registry import LabelingMetric
from .score import outperformance_score
from .interval import _AVERAGES, _labeling_metric, _scoring_name


__all__ = ["MulticlassOPSResult", "multiclass_outperformance_score"]

@dataclass(frozen=True)
class MulticlassOPSResult(SummaryDisplay):
    """One-vs-rest outperformance scores of a multi-class or multi-label problem.

    Attributes
    ----------
    score : the aggregate (macro or prevalence-weighted mean of the defined per-class
        scores), or the per-class array when ``average`` is None
    scores : OPS of each class (nan where undefined: class absent from, or the only
        class of, the truth; or metric 0/0)
    values : metric value of each class against the rest
    prevalences : prevalence π_k of each class (true share; weighted)
    labels : the classes (or column indices of a multi-label matrix)
    average : ``"macro"``, ``"weighted"`` or None
    metric : canonical metric name
    multilabel : whether the input was an indicator matrix
    """

    score: Any
    scores: np.ndarray
    values: np.ndarray
    prevalences: np.ndarray
    labels: np.ndarray
    average: str | None
    metric: str
    multilabel: bool = False
    options: dict[str, Any] = field(default_factory=dict)

    def __float__(self) -> float:
        return float(self.score)

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        """``np.asarray(result)``: the aggregate score (per-class scores when ``average`` is None)."""
        return np.array(self.score, dtype=np.float64 if dtype is None else dtype)

    def _summary_title(self) -> str:
        kind = "multi-label" if self.multilabel else "one-vs-rest"
        return f"Outperformance score of {self.metric} ({kind}, average {self.average})"

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return [("OPS", self.score), *((f"class {label}", f"OPS {format_number(s)} (value {format_number(v)}, "
                                                            f"prevalence {format_number(p)})")
                                       for label, s, v, p in zip(self.labels.tolist(), self.scores, self.values,
                                                                 self.prevalences))]

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe representation."""
        return {
            "score": _jsonable(self.score),
            "scores": _jsonable(self.scores),
            "values": _jsonable(self.values),
            "prevalences": _jsonable(self.prevalences),
            "labels": _jsonable(self.labels),
            "average": self.average,
            "metric": self.metric,
            "multilabel": self.multilabel,
            "options": {k: _jsonable(v) for k, v in self.options.items()},
        }


def _indicator(x: Any, name: str) -> np.ndarray:
    arr = np.asarray(x)
    if arr.ndim != 2 or arr.shape[0] == 0 or arr.shape[1] == 0:
        raise InvalidInputError(f"{name} must be a non-empty (n, L) indicator matrix, got shape {arr.shape}")
    if arr.dtype.kind == "b":
        return arr.astype(np.float64)
    if arr.dtype.kind not in "iuf" or not np.isin(arr, (0, 1)).all():
        raise InvalidInputError(f"{name} must hold only 0/1 (or booleans) as a multi-label indicator matrix")
    return arr.astype(np.float64)


def _multilabel_counts(y_true: Any, y_pred: Any, sample_weight: Any) -> tuple[np.ndarray, ...]:
    yt, yp = _indicator(y_true, "y_true"), _indicator(y_pred, "y_pred")
    if yt.shape != yp.shape:
        raise InvalidInputError(f"y_true has shape {yt.shape} but y_pred has shape {yp.shape}")
    w = check_sample_weight(sample_weight, yt.shape[0])
    w = np.ones(yt.shape[0]) if w is None else w
    tp = w @ (yt * yp)
    fn = w @ (yt * (1 - yp))
    fp = w @ ((1 - yt) * yp)
    tn = w @ ((1 - yt) * (1 - yp))
    return tp, fp, fn, tn


def multiclass_outperformance_score(
    metric: str | LabelingMetric,
    y_true: Any,
    y_pred: Any,
    *,
    sample_weight: Any = None,
    labels: Any = None,
    average: Literal["macro", "weighted"] | None = "macro",
    **options: Any,
) -> MulticlassOPSResult:
    r"""One-vs-rest outperformance scores of a multi-class or multi-label classifier.

    For each class k (or label column), with its one-vs-rest counts,
    μ_k = M(tp_k, fp_k, fn_k, tn_k), π_k = (tp_k + fn_k)/n and
    OPS_k = OPS_M(μ_k; π_k) (OPS paper, eq. 6, applied per class).  Aggregates:

    .. math::

        \text{macro} = \frac1K\sum_k \mathrm{OPS}_k,\qquad
        \text{weighted} = \frac{\sum_k \pi_k\,\mathrm{OPS}_k}{\sum_k \pi_k},

    over the classes whose OPS is defined (a class absent from the truth, the only
    class of the truth, or with an undefined metric value is left out with an
    :class:`~beyondchance.UndefinedMeasureWarning`).

    Parameters
    ----------
    metric : str or LabelingMetric
        A labeling metric, evaluated on each class's 2 × 2 one-vs-rest counts; or a
        scoring metric (``"roc_auc"``, ``"pr_auc"`` …, see
        :func:`~beyondchance.outperformance_score`), evaluated on the curve of each
        class's column of scores.
    y_true : array-like of shape (n,) (class labels) or (n, L) (0/1 indicators)
    y_pred : array-like
        Predicted labels, of the shape of ``y_true`` (labeling metric: continuous values,
        such as scores, are refused with an :class:`~beyondchance.InvalidInputError`
        naming ``y_pred``, as in ``y_true``; 0.0/1.0 are labels); or scores of
        shape (n, K), column k for the k-th class of ``labels`` (default: the sorted
        classes of ``y_true``, as scikit-learn) or for label column k (scoring metric).
    sample_weight : array-like of shape (n,), optional
    labels : array-like, optional
        Class labels to score, in order (multi-class); names of the L columns
        (multi-label; default 0 … L−1).
    average : {"macro", "weighted"} or None, default "macro"
        None returns the per-class scores as ``score``.
    **options
        Metric options, e.g. ``beta``; ``at``, ``auc_method`` and the reference's
        options for a scoring metric.

    Returns
    -------
    MulticlassOPSResult

    Examples
    --------
    >>> import numpy as np
    >>> yt = np.array([[1, 0], [1, 1], [0, 1], [0, 0], [1, 0], [0, 1]])
    >>> yp = np.array([[1, 0], [0, 1], [0, 1], [0, 0], [1, 1], [0, 1]])
    >>> r = multiclass_outperformance_score("f1", yt, yp, average="weighted")
    >>> r.multilabel, r.prevalences.tolist()
    (True, [0.5, 0.5])
    """
    if average is not None:
        average = check_option(average, "average", _AVERAGES)  # type: ignore[assignment]
    scoring = _scoring_name(metric)
    m_ops: str | LabelingMetric
    if scoring is not None:
        name, m_ops = scoring, scoring
        values, prevalences, classes, multilabel = _one_vs_rest_scoring(
            scoring, y_true, y_pred, sample_weight, labels, options
        )
    else:
        m = _labeling_metric(metric)
        name, m_ops = m.name, m
        values, prevalences, classes, multilabel = _one_vs_rest_labeling(
            m, y_true, y_pred, sample_weight, labels, options
        )
    ok = np.isfinite(values) & (prevalences > 0) & (prevalences < 1)
    scores = np.full(values.size, np.nan)
    if ok.any():
        scores[ok] = np.atleast_1d(outperformance_score(m_ops, values[ok], prevalences[ok], **options).score)
    if not ok.all():
        bad = classes[~ok].tolist()
        warnings.warn(
            f"OPS of {name} is undefined for class(es) {bad} (absent from the truth, the only "
            "true class, or metric 0/0); they are nan and left out of the average",
            UndefinedMeasureWarning,
            stacklevel=2,
        )
    if average is None:
        score: Any = scores
    elif not ok.any():
        score = float("nan")
    elif average == "macro":
        score = float(scores[ok].mean())
    else:
        score = float(np.average(scores[ok], weights=prevalences[ok]))
    return MulticlassOPSResult(
        score=score,
        scores=scores,
        values=values,
        prevalences=prevalences,
        labels=classes,
        average=average,
        metric=name,
        multilabel=multilabel,
        options=dict(options),
    )


def _one_vs_rest_labeling(
    m: LabelingMetric, y_true: Any, y_pred: Any, sample_weight: Any, labels: Any, options: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(values, prevalences, classes, multilabel) from each class's one-vs-rest counts."""
    multilabel = np.ndim(y_true) == 2 or np.ndim(y_pred) == 2
    if multilabel:
        tp, fp, fn, tn = _multilabel_counts(y_true, y_pred, sample_weight)
        if labels is None:
            classes = np.arange(tp.size)
        else:
            classes = as_1d(labels, "labels")
            if classes.size != tp.size:
                raise InvalidInputError(
                    f"labels has {classes.size} entries but the indicator matrices have {tp.size} columns"
                )
    else:
        yt, yp = as_1d(y_true, "y_true"), as_1d(y_pred, "y_pred")
        check_consistent_length(y_true=yt, y_pred=yp)
        cm = ConfusionMatrix.from_predictions(yt, yp, sample_weight=sample_weight, labels=labels)
        tp, fp, fn, tn = cm.per_class_counts()
        classes = cm.labels
    with np.errstate(all="ignore"):
        values = np.asarray(m.compute(tp, fp, fn, tn, **options), dtype=np.float64)
        n = tp + fp + fn + tn
        prevalences = (tp + fn) / n
    return values, prevalences, classes, multilabel


def _one_vs_rest_scoring(
    metric: str, y_true: Any, y_score: Any, sample_weight: Any, labels: Any, options: dict[str, Any]
) -> tuple[np.ndarray, np.ndarray, np.ndarray, bool]:
    """(values, prevalences, classes, multilabel) of a scoring metric, one class against the rest.

    Class k's curve is traced by column k of the (n, K) score matrix with "class k"
    as the positive label (scikit-learn's ``roc_auc_score(multi_class="ovr")``);
    with an (n, L) indicator matrix as ``y_true``, column l of the truth and of the
    scores (``average=None`` of scikit-learn's multi-label scores).
    """
    from ..measures.curves import threshold_counts
    from .scoring import scoring_metric_from_rates

    scores = np.asarray(y_score)
    if scores.ndim != 2 or scores.shape[1] < 2:
        raise InvalidInputError(
            f"a scoring metric needs an (n, K) score matrix, one column per class, got shape {scores.shape}"
        )
    multilabel = np.ndim(y_true) == 2
    if multilabel:
        truth = _indicator(y_true, "y_true")
        if truth.shape != scores.shape:
            raise InvalidInputError(f"y_true has shape {truth.shape} but y_score has shape {scores.shape}")
        classes = np.arange(truth.shape[1]) if labels is None else as_1d(labels, "labels")
        if classes.size != truth.shape[1]:
            raise InvalidInputError(f"labels has {classes.size} entries but y_true has {truth.shape[1]} columns")
        columns = [truth[:, j] for j in range(truth.shape[1])]
    else:
        yt = as_1d(y_true, "y_true")
        check_consistent_length(y_true=yt, y_score=scores)
        classes = np.unique(yt) if labels is None else as_1d(labels, "labels")
        if classes.size != scores.shape[1]:
            raise InvalidInputError(
                f"y_score has {scores.shape[1]} columns but there are {classes.size} classes "
                f"{classes.tolist()[:10]}; pass labels= naming the class of each column"
            )
        columns = [(yt == c).astype(np.int8) for c in classes]
    value_opts = {k: options[k] for k in ("at", "auc_method") if k in options}
    values = np.full(classes.size, np.nan)
    prevalences = np.full(classes.size, np.nan)
    for j, truth_j in enumerate(columns):
        counts = threshold_counts(truth_j, scores[:, j], sample_weight=sample_weight, pos_label=1)
        prevalences[j] = counts.prevalence
        if counts.is_defined:
            alpha, beta = counts.rates()
            values[j] = scoring_metric_from_rates(metric, alpha, beta, counts.prevalence, validate=False, **value_opts)
    return values, prevalences, classes, multilabel
