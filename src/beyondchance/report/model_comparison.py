r"""``compare_models``: two or more models on the same test set — is one really better?

For every pair of models (a, b) and every measure the comparison gives the difference
value(b) − value(a), a **paired bootstrap** interval (each resample draws the same rows
for every model, so the correlation between the models is kept) and a two-sided
p-value of "no difference":

* ROC AUC — DeLong's test (:func:`beyondchance.delong_test`, Sun & Xu's O(n log n)
  algorithm) and its Wald interval;
* accuracy and the prediction advantage under the 0/1 loss — McNemar's exact test on
  the discordant rows (b right and a wrong against a right and b wrong;
  :func:`scipy.stats.binomtest` with p = 1/2).  Both models share the baseline error
  (the same y_true), so PA(b) − PA(a) = (acc(b) − acc(a)) / err₀ and one test serves
  both;
* every other measure — the paired bootstrap itself (multinomial row counts; independent
  Poisson(1) counts above :data:`POISSON_ROWS` rows):
  p = 2 min(#{d* ≤ 0}, #{d* ≥ 0}) / B
  (capped at 1), the inversion of the percentile interval, so that p < 1 − level
  exactly when the interval excludes 0 (up to the interpolation of the quantiles).

DeLong and McNemar need row counts: with non-integer sample weights their measures fall
back to the paired bootstrap (said in ``test``).

The p-values are corrected for the number of comparisons (pairs × measures) with Holm's
step-down method (default; ``"bonferroni"`` or ``"none"``).  A difference is called
significant when its corrected p-value is at most α = 1 − level **and** its interval
excludes 0, so the verdict never says more than the table (the package's one rule,
:mod:`beyondchance.inference.significance`: p ≤ α, α rounded so that p = 0.05 rejects at
level 0.95 and p = 0.0500001 does not).

>>> import numpy as np
>>> rng = np.random.default_rng(0)
>>> y = rng.integers(0, 2, 400)
>>> good = np.clip(0.5 + 0.3 * (2 * y - 1) + rng.normal(0, 0.3, 400), 0, 1)
>>> weak = np.clip(0.5 + 0.05 * (2 * y - 1) + rng.normal(0, 0.3, 400), 0, 1)
>>> c = compare_models(y, {"weak": weak, "good": good}, metrics=["roc_auc", "accuracy"], n_resamples=500)
>>> d = c.difference("weak", "good", "roc_auc")
>>> d.test, d.significant, d.difference > 0
('DeLong', True, True)
>>> c.verdict[0].startswith("good is significantly better than weak on ROC AUC by")
True
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any, Literal, Sequence

import numpy as np

from .._validation import (
    as_1d,
    as_float_1d,
    binary_target,
    check_consistent_length,
    check_n_resamples,
    check_option,
    check_random_state,
    check_sample_weight,
    check_unit_interval,
    default_pos_label,
    union_labels,
)
from .._warnings import InvalidInputError
from ..measures.curves import threshold_counts
from ..inference.confidence_interval import ConfidenceInterval
from ..inference.delong import delong_of_arrays
from ..inference.significance import holm_adjust, rejects, significance_level
from ..measures.registry import METRICS, get_metric
from ..inference.permutation.permutation_test import equals_label, is_labels, mcnemar_exact
from ..measures.binary_scores import ScoreCells, loss_terms
from .._summary_display import SummaryDisplay, Table, display_name, format_interval
from .formatting import _num, fmt_value, shorten
from ..statistics.file_format import is_statistics_file
from ..statistics.task_statistics import TaskStatistics
from .tasks.binary_scores import _threshold_choice

__all__ = ["ModelDifference", "ModelComparison", "compare_models", "CORRECTIONS"]

CORRECTIONS: tuple[Literal["holm", "bonferroni", "none"], ...] = ("holm", "bonferroni", "none")

#: above this many rows the paired bootstrap draws independent Poisson(1) row counts (the
#: Poisson bootstrap) instead of a multinomial: the same limit, and far faster to draw
POISSON_ROWS = 10_000

_SCORE_MEASURES = ("roc_auc", "pr_auc", "lift_auc")
_PROBA_MEASURES = ("log_loss", "brier")
_DEFAULT_LABELING = ("prediction_advantage", "accuracy", "balanced_accuracy", "f1", "mcc", "pure_accuracy")


def _title(name: str) -> str:
    t = display_name(name, short=True)
    return t if t[:2].isupper() else t[0].lower() + t[1:]


@dataclass(frozen=True)
class ModelDifference:
    """One measure, one pair of models: value(b) − value(a), its interval and test.

    ``ci`` is a :class:`~beyondchance.ConfidenceInterval` of the difference: the percentile
    interval of the paired bootstrap, or DeLong's Wald interval where ``test`` is DeLong's."""

    metric: str
    model_a: str
    model_b: str
    value_a: float
    value_b: float
    difference: float
    ci: ConfidenceInterval
    pvalue: float
    pvalue_adjusted: float
    test: str
    greater_is_better: bool
    significant: bool

    @property
    def better(self) -> str | None:
        """The model with the better value (None when equal or undefined)."""
        if not math.isfinite(self.difference) or self.difference == 0:
            return None
        return self.model_b if (self.difference > 0) == self.greater_is_better else self.model_a

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric, "model_a": self.model_a, "model_b": self.model_b,
            "value_a": _num(self.value_a), "value_b": _num(self.value_b), "difference": _num(self.difference),
            "ci": [_num(self.ci[0]), _num(self.ci[1])], "pvalue": _num(self.pvalue),
            "pvalue_adjusted": _num(self.pvalue_adjusted), "test": self.test,
            "higher_is_better": self.greater_is_better, "significant": self.significant,
        }


@dataclass(frozen=True, eq=False)
class ModelComparison(SummaryDisplay):
    """Models on one test set (see :func:`compare_models`): ``print(c)`` shows the verdict
    and the tables in 80 columns, ``c.save("models.html")`` (or ``.json``, ``.md``,
    ``.txt``) writes them.

    Attributes
    ----------
    models : the model names, in the given order
    metrics : the measures compared
    values : model -> measure -> value
    differences : one :class:`ModelDifference` per pair (a before b in ``models``) and measure
    verdict : the headline lines
    correction, confidence_level, n_resamples, n, kind, threshold, positive_label, notes
    positive_reason : why ``positive_label`` is positive ("given", or the rule of
        ``beyondchance._validation.default_pos_label``, e.g. "the minority class")
    """

    models: tuple[str, ...]
    metrics: tuple[str, ...]
    values: dict[str, dict[str, float]]
    differences: tuple[ModelDifference, ...]
    verdict: tuple[str, ...]
    correction: str
    confidence_level: float
    n_resamples: int
    n: int
    kind: str
    threshold: float | None
    positive_label: Any
    notes: tuple[str, ...] = field(default=())
    positive_reason: str = "given"

    def difference(self, model_a: str, model_b: str, metric: str) -> ModelDifference:
        """The row of ``metric`` for the pair (model_a, model_b), in either order."""
        for d in self.differences:
            if d.metric == metric and {d.model_a, d.model_b} == {model_a, model_b}:
                return d
        raise InvalidInputError(
            f"no comparison of {metric!r} between {model_a!r} and {model_b!r}; models: {', '.join(self.models)}; "
            f"metrics: {', '.join(self.metrics)}"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "models": list(self.models), "metrics": list(self.metrics),
            "values": {m: {k: _num(v) for k, v in vals.items()} for m, vals in self.values.items()},
            "differences": [d.to_dict() for d in self.differences], "verdict": list(self.verdict),
            "correction": self.correction, "confidence_level": self.confidence_level,
            "n_resamples": self.n_resamples, "n": self.n, "kind": self.kind, "threshold": self.threshold,
            "positive_label": self.positive_label.item() if isinstance(self.positive_label, np.generic)
            else self.positive_label,
            "positive_reason": self.positive_reason,
            "notes": list(self.notes),
        }

    def to_frame(self):
        """A :class:`pandas.DataFrame`, one row per (pair, measure)."""
        import pandas as pd

        return pd.DataFrame([d.to_dict() for d in self.differences])

    def _summary_title(self) -> str:
        return "\n".join(self.verdict)

    def _summary_rows(self) -> list[tuple[str, Any]]:
        label = self.positive_label.item() if isinstance(self.positive_label, np.generic) else self.positive_label
        rows: list[tuple[str, Any]] = [("rows", f"{self.n:,}"), ("predictions", self.kind),
                                       ("positive class", f"{shorten(repr(label))} ({self.positive_reason})")]
        if self.threshold is not None:
            rows.append(("threshold", f"{self.threshold:g}"))
        return rows + [("paired bootstrap", f"{self.n_resamples:,} resamples (the same rows for every model)"),
                       ("correction", self.correction)]

    def _summary_tables(self) -> list[Table]:
        values = [[display_name(k, short=True), *(fmt_value(self.values[m][k]) for m in self.models)]
                  for k in self.metrics]
        level = int(round(100 * self.confidence_level))
        header = ["measure", "difference", f"{level}% CI", f"p ({self.correction})", "significant", "test"]
        tables: list[Table] = [("Values", ["measure", *(shorten(m, 20) for m in self.models)], values)]
        for a, b in itertools.combinations(self.models, 2):
            rows = [[display_name(d.metric, short=True), f"{d.difference:+.3f}" if math.isfinite(d.difference) else "n/a",
                     format_interval(d.ci, lambda x: f"{x:+.3f}"),
                     _p(d.pvalue_adjusted), "yes" if d.significant else "no", d.test]
                    for d in self.differences if (d.model_a, d.model_b) == (a, b)]
            tables.append((f"{shorten(b)} − {shorten(a)}", header, rows))
        return tables

    def _summary_notes(self) -> list[str]:
        return [f"note: {n}" for n in self.notes]


# =====================================================================================
# the measures of a stack of row weights (B, n): one evaluator per model
# =====================================================================================


class _Model:
    """Measures of one model on row-weight vectors (the sample, or bootstrap resamples)."""

    def __init__(self, is_pos: np.ndarray, pred_pos: np.ndarray, scores: np.ndarray | None) -> None:
        self.cell = 2 * is_pos.astype(np.intp) + pred_pos.astype(np.intp)  # 0 tn, 1 fp, 2 fn, 3 tp
        self.onehot = np.eye(4)[self.cell]  # (n, 4): row weights @ onehot = the confusion cells
        self.is_pos = is_pos
        self.scores = scores
        if scores is not None:
            order = np.argsort(-scores, kind="stable")  # cells by decreasing score
            self.order = order
            s = scores[order]
            self.starts = np.flatnonzero(np.r_[True, s[1:] != s[:-1]])
            self.cells = ScoreCells.from_counts(threshold_counts(is_pos, scores))
            self.loss_rows = {}
            if scores.min() >= 0 and scores.max() <= 1:
                for loss in _PROBA_MEASURES:
                    lp, ln = loss_terms(scores.copy(), loss)
                    self.loss_rows[loss] = np.where(is_pos, lp, ln)

    def measures(self, w: np.ndarray, names: Sequence[str]) -> dict[str, np.ndarray]:
        out: dict[str, np.ndarray] = {}
        labeling = [nm for nm in names if nm in METRICS]
        if labeling:
            tn, fp, fn, tp = (w @ self.onehot).T
            for nm in labeling:
                with np.errstate(all="ignore"):
                    out[nm] = np.asarray(get_metric(nm).compute(tp, fp, fn, tn), dtype=np.float64)
        curves = [nm for nm in names if nm in _SCORE_MEASURES]
        if curves:
            ws = w[:, self.order]
            pos_w = np.add.reduceat(ws * self.is_pos[self.order], self.starts, axis=1)
            neg_w = np.add.reduceat(ws * ~self.is_pos[self.order], self.starts, axis=1)
            out.update(self.cells.measures(pos_w, neg_w, {}, {}, tuple(curves)))
        for nm in names:
            if nm in _PROBA_MEASURES:
                out[nm] = (w @ self.loss_rows[nm]) / w.sum(axis=1)
        return {nm: out[nm] for nm in names}


def _bootstrap_pvalue(d: np.ndarray) -> float:
    """Two-sided p of "difference = 0" by inverting the percentile interval."""
    d = d[np.isfinite(d)]
    if d.size == 0:
        return float("nan")
    return float(min(1.0, 2.0 * min(float(np.mean(d <= 0)), float(np.mean(d >= 0)))))


def _mcnemar(correct_a: np.ndarray, correct_b: np.ndarray, w: np.ndarray | None) -> float:
    """McNemar's exact two-sided p-value from the discordant rows (counts, or frequency weights)."""
    wt = np.ones(correct_a.shape) if w is None else w
    b01 = int(round(float(wt[correct_a & ~correct_b].sum())))  # a right, b wrong
    b10 = int(round(float(wt[~correct_a & correct_b].sum())))
    return mcnemar_exact(b10, b01)


# =====================================================================================
# compare_models
# =====================================================================================


#: why two models are not compared from statistics (one line; what to keep instead)
NEEDS_ROWS = ("a paired comparison of two models needs the rows (each row's score from both models, on the same "
              "rows), not statistics: keep the rows with every model's scores")


def rows_file(path: str) -> str:
    """``path``, refused in one line when it is a statistics file (``beyondchance profile``):
    :func:`compare_models` pairs the models' predictions row by row."""
    if is_statistics_file(path):
        raise InvalidInputError(f"{path} is a statistics file: {NEEDS_ROWS}")
    return path


def compare_models(
    y_true: Any,
    predictions: Mapping[str, Any],
    *,
    sample_weight: Any = None,
    metrics: Sequence[str] | None = None,
    kind: Literal["auto", "scores", "labels"] = "auto",
    pos_label: Any = None,
    threshold: float | None = None,
    confidence_level: float = 0.95,
    n_resamples: int = 2000,
    correction: Literal["holm", "bonferroni", "none"] = "holm",
    random_state: Any = 0,
) -> ModelComparison:
    r"""Compare two or more binary classifiers on the same test set.

    For every pair (a, b) in the given order and every measure: the difference
    :math:`\Delta = M(b) - M(a)`, a paired bootstrap interval (the same resampled rows
    for both models), and a two-sided p-value — DeLong's test for ROC AUC, McNemar's
    exact test for accuracy and the prediction advantage (0/1 loss), the paired
    bootstrap otherwise — corrected for the number of comparisons.

    Parameters
    ----------
    y_true : array-like (n,)
        Binary labels.
    predictions : mapping name -> array-like (n,)
        At least two models: scores (higher = more likely positive) or predicted labels.
    sample_weight : array-like (n,), optional
        Row weights, used by every measure and by the bootstrap (a resampled row keeps its
        weight).  DeLong and McNemar take integer (frequency) weights; with other weights
        ROC AUC and accuracy are tested by the paired bootstrap.
    metrics : sequence of str, optional
        Measures from :data:`beyondchance.measures.METRICS` (labeling, at the threshold for
        scores) and, for scores, ``roc_auc``, ``pr_auc``, ``lift_auc``, and ``log_loss``,
        ``brier`` for probabilities.  Default: prediction advantage, accuracy, balanced
        accuracy, F1, MCC, pure accuracy (and ROC AUC, PR AUC for scores).
    kind : ``"auto"``, ``"scores"`` or ``"labels"``
        What the predictions are.  ``"auto"``: labels when every prediction is one of
        y_true's labels, else scores.
    pos_label : optional
        Positive class; default: 1 (or True) for 0/1, -1/1 and boolean labels, else the
        minority class (a tie: the last class in sorted order), as in every command.
    threshold : float, optional
        Scores: a score ≥ threshold is predicted positive (default 0.5 for scores in
        [0, 1], else 0).
    confidence_level : float
        Level of the intervals; a difference is significant when its corrected p-value is
        at most α = 1 − level (p ≤ α, :mod:`beyondchance.inference.significance`) and its
        interval excludes 0.
    n_resamples : int
        Paired bootstrap resamples.
    correction : ``"holm"`` (default), ``"bonferroni"`` or ``"none"``
        Family-wise correction over all (pair, measure) tests.
    random_state : int or Generator
        Seed of the bootstrap.

    Returns
    -------
    ModelComparison

    References
    ----------
    DeLong, DeLong & Clarke-Pearson (1988); Sun & Xu (2014); McNemar (1947),
    Psychometrika 12(2); Holm (1979), Scand. J. Statist. 6(2); Efron & Tibshirani (1993),
    An Introduction to the Bootstrap, ch. 16 (tests from the bootstrap).

    Examples
    --------
    >>> y = [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 0]
    >>> c = compare_models(y, {"a": [0, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 0],
    ...                        "b": [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 1, 1]}, metrics=["accuracy"], n_resamples=200)
    >>> d = c.differences[0]
    >>> round(d.difference, 4), d.test, round(d.pvalue, 4)
    (0.1667, 'McNemar exact', 0.625)
    """
    _refuse_statistics(y_true, predictions)
    level = float(check_unit_interval(confidence_level, "confidence_level", open_=True))
    n_resamples = check_n_resamples(n_resamples, level)
    correction = check_option(correction, "correction", CORRECTIONS)
    kind = check_option(kind, "kind", ("auto", "scores", "labels"))
    rng = check_random_state(random_state)
    names = _model_names(predictions)
    yt = as_1d(y_true, "y_true")
    preds = {name: as_1d(v, f"predictions[{name!r}]") for name, v in zip(names, predictions.values())}
    n = check_consistent_length(y_true=yt, **{f"predictions[{k!r}]": v for k, v in preds.items()})
    w = check_sample_weight(sample_weight, n)
    frequency = w is None or bool(np.all(w == np.round(w)))
    if kind == "auto":
        kind = "labels" if all(is_labels(yt, p) for p in preds.values()) else "scores"
    is_pos, pos = binary_target(yt, pos_label=pos_label)
    reason = "given" if pos_label is not None else default_pos_label(*np.unique(yt, return_counts=True))[1]
    if is_pos.all() or not is_pos.any():
        raise InvalidInputError("y_true holds a single class: no measure can tell the models apart")
    notes: list[str] = []
    thr: float | None = None
    if kind == "labels":
        models = _label_models(yt, preds, is_pos, pos)
    else:
        models, thr = _score_models(preds, is_pos, threshold, notes)
    chosen_t = _chosen_measures(metrics, kind, models)
    values, boot = _paired_bootstrap(models, chosen_t, n, w, n_resamples, rng)
    rows = [_difference_row(a, b, k, models, values, boot, is_pos, w, level, frequency)
            for a, b in itertools.combinations(names, 2) for k in chosen_t]
    if not frequency:
        notes.append("non-integer sample weights: ROC AUC and accuracy are tested with the paired bootstrap "
                     "(DeLong and McNemar need row counts)")
    diffs = _adjusted_differences(rows, correction, level)
    comparison = ModelComparison(
        models=tuple(names), metrics=chosen_t, values=values, differences=diffs, verdict=(),
        correction=correction, confidence_level=level, n_resamples=int(n_resamples), n=int(n), kind=kind,
        threshold=thr, positive_label=pos, notes=tuple(notes), positive_reason=reason,
    )
    return _with_verdict(comparison, len(rows))


def _refuse_statistics(y_true: Any, predictions: Any) -> None:
    """Refuses statistics in place of rows (a paired comparison needs each row's predictions)."""
    if isinstance(y_true, TaskStatistics) or (isinstance(predictions, Mapping) and any(
            isinstance(v, TaskStatistics) for v in predictions.values())):
        raise InvalidInputError(NEEDS_ROWS)


def _model_names(predictions: Any) -> list[str]:
    """The models' names, checked: a mapping of at least two distinct names."""
    if not isinstance(predictions, Mapping) or len(predictions) < 2:
        raise InvalidInputError("predictions must be a mapping of at least two model names to their predictions")
    names = [str(k) for k in predictions]
    if len(set(names)) < len(names):
        raise InvalidInputError(f"model names must be distinct, got {names}")
    return names


def _label_models(yt: np.ndarray, preds: dict[str, np.ndarray], is_pos: np.ndarray, pos: Any) -> dict[str, _Model]:
    """The models of predicted labels (each checked to hold only y_true's labels)."""
    union_labels(yt, *preds.values(), names=("y_true", *(f"predictions[{k!r}]" for k in preds)))
    models: dict[str, _Model] = {}
    for name, pred in preds.items():
        if not is_labels(yt, pred):
            raise InvalidInputError(f"predictions[{name!r}] holds labels that are not in y_true; "
                                    "pass kind='scores' for scores")
        models[name] = _Model(is_pos, equals_label(pred, pos), None)
    return models


def _score_models(preds: dict[str, np.ndarray], is_pos: np.ndarray, threshold: float | None, notes: list[str]
                  ) -> tuple[dict[str, _Model], float]:
    """(the models of scores predicting positive at the threshold, the threshold); the
    threshold's note added to ``notes``."""
    scores = {name: as_float_1d(p, f"predictions[{name!r}]") for name, p in preds.items()}
    lo = min(float(s.min()) for s in scores.values())
    hi = max(float(s.max()) for s in scores.values())
    thr, _, note = _threshold_choice(threshold, lo, hi)
    if note:
        notes.append(note)
    return {name: _Model(is_pos, s >= thr, s) for name, s in scores.items()}, thr


def _chosen_measures(metrics: Sequence[str] | None, kind: str, models: dict[str, _Model]) -> tuple[str, ...]:
    """The measures compared: ``metrics`` checked against those available for ``kind``, or the default."""
    available = list(METRICS) if kind == "labels" else list(METRICS) + list(_SCORE_MEASURES)
    probabilities = kind == "scores" and all(m.loss_rows for m in models.values())
    if probabilities:
        available += list(_PROBA_MEASURES)
    if metrics is None:
        return tuple(list(_DEFAULT_LABELING) + (["roc_auc", "pr_auc"] if kind == "scores" else []))
    chosen: list[str] = []
    for m in [metrics] if isinstance(metrics, str) else metrics:
        key = str(m).strip().lower().replace("-", "_")
        if key not in available:
            raise InvalidInputError(f"unknown measure {m!r} for {kind}; available: {', '.join(available)}")
        if key not in chosen:
            chosen.append(key)
    return tuple(chosen)


def _paired_bootstrap(models: dict[str, _Model], chosen_t: tuple[str, ...], n: int, w: np.ndarray | None,
                      n_resamples: int, rng: np.random.Generator
                      ) -> tuple[dict[str, dict[str, float]], dict[str, dict[str, np.ndarray]]]:
    """(each model's values, each model's bootstrap distributions) of the measures, the same
    resampled rows for every model."""
    w0 = (np.ones(n) if w is None else w)[None]
    values = {name: {k: float(v[0]) for k, v in mod.measures(w0, chosen_t).items()} for name, mod in models.items()}
    dists: dict[str, dict[str, list[np.ndarray]]] = {name: {k: [] for k in chosen_t} for name in models}
    chunk = max(1, min(n_resamples, 4_000_000 // max(n, 1)))
    done = 0
    while done < n_resamples:
        size = min(chunk, n_resamples - done)
        rw = _resample_weights(rng, n, size, w)
        for name, mod in models.items():
            for k, v in mod.measures(rw, chosen_t).items():
                dists[name][k].append(v)
        done += size
    boot = {name: {k: np.concatenate(v) for k, v in d.items()} for name, d in dists.items()}
    return values, boot


def _resample_weights(rng: np.random.Generator, n: int, size: int, w: np.ndarray | None) -> np.ndarray:
    """The row weights of ``size`` bootstrap resamples of ``n`` rows (times the rows' weights)."""
    if n <= POISSON_ROWS:  # the row bootstrap: n rows drawn with replacement
        rw = rng.multinomial(n, np.full(n, 1.0 / n), size=size).astype(np.float64)
    else:  # many rows: the Poisson bootstrap (independent Poisson(1) counts), much faster to draw
        rw = rng.poisson(1.0, size=(size, n)).astype(np.float64)
    if w is not None:
        rw *= w
    return rw


def _difference_row(a: str, b: str, k: str, models: dict[str, _Model], values: dict[str, dict[str, float]],
                    boot: dict[str, dict[str, np.ndarray]], is_pos: np.ndarray, w: np.ndarray | None, level: float,
                    frequency: bool) -> dict[str, Any]:
    """The difference of measure ``k`` between models ``a`` and ``b``: its values, interval and
    test (DeLong, McNemar exact with frequency weights, else the paired bootstrap)."""
    va, vb = values[a][k], values[b][k]
    d = boot[b][k] - boot[a][k]
    ci = _percentile_interval(d, level)
    test, p = "paired bootstrap", _bootstrap_pvalue(d)
    if k == "roc_auc" and frequency:
        dl = _delong_pair(models[a], models[b], is_pos, w, level)
        if dl is not None:
            p, ci, test = dl.pvalue, dl.ci, "DeLong"
    elif k in ("accuracy", "prediction_advantage", "error") and frequency:
        ca = models[a].cell % 3 == 0  # tn or tp
        cb = models[b].cell % 3 == 0
        p, test = _mcnemar(ca, cb, w), "McNemar exact"
    return dict(metric=k, model_a=a, model_b=b, value_a=va, value_b=vb, difference=vb - va,
                ci=ci, pvalue=p, test=test,
                greater_is_better=_greater_is_better(k))


def _percentile_interval(d: np.ndarray, level: float) -> ConfidenceInterval:
    """The percentile interval of the bootstrap differences ``d`` (their finite values)."""
    alpha = 1.0 - level
    fin = d[np.isfinite(d)]
    ends = tuple(np.quantile(fin, [alpha / 2, 1 - alpha / 2])) if fin.size >= 2 else (math.nan, math.nan)
    return ConfidenceInterval(float(ends[0]), float(ends[1]), level, "percentile")


def _delong_pair(m_a: _Model, m_b: _Model, is_pos: np.ndarray, w: np.ndarray | None, level: float) -> Any:
    """DeLong's test of the ROC AUCs of two models of scores (frequency weights as repeated
    rows); None with fewer than two rows of a class."""
    assert m_a.scores is not None and m_b.scores is not None  # ROC AUC: models of scores
    sc = np.vstack([m_a.scores, m_b.scores])
    ip = is_pos
    if w is not None:
        reps = w.astype(np.int64)
        sc, ip = np.repeat(sc, reps, axis=1), np.repeat(is_pos, reps)
    if ip.sum() >= 2 and (~ip).sum() >= 2:
        return delong_of_arrays(ip, sc, confidence_level=level)
    return None


def _adjusted_differences(rows: list[dict[str, Any]], correction: str, level: float
                          ) -> tuple[ModelDifference, ...]:
    """The differences with their corrected p-values and significance (corrected p ≤ α and
    the interval excluding 0)."""
    adjusted = holm_adjust([r["pvalue"] for r in rows], correction)
    diffs = []
    for r, p_adj in zip(rows, adjusted):
        lo_, hi_ = r["ci"]
        excludes = math.isfinite(lo_) and (lo_ > 0 or hi_ < 0)
        sig = bool(rejects(p_adj, significance_level(level)) and excludes)
        diffs.append(ModelDifference(**r, pvalue_adjusted=float(p_adj), significant=sig))
    return tuple(diffs)


def _greater_is_better(name: str) -> bool:
    if name in METRICS:
        return bool(get_metric(name).greater_is_better)
    return name not in _PROBA_MEASURES


def _fmt(x: float) -> str:
    return f"{x:.3f}" if abs(x) >= 0.0005 or x == 0 else f"{x:.2g}"


def _p(p: float) -> str:
    return "n/a" if not math.isfinite(p) else "<0.001" if p < 0.001 else f"{p:.3f}"


def _fmt_p(p: float) -> str:
    if not math.isfinite(p):
        return "n/a"
    return "< 0.001" if p < 0.001 else f"= {p:.3f}"


def _with_verdict(c: ModelComparison, n_tests: int) -> ModelComparison:
    lines = []
    pct = f"{int(round(100 * c.confidence_level))}%"
    for a, b in itertools.combinations(c.models, 2):
        pair = [d for d in c.differences if d.model_a == a and d.model_b == b]
        wins = [d for d in pair if d.significant]
        others = [d for d in pair if not d.significant]
        parts = []
        by_winner: dict[str | None, list[ModelDifference]] = {}
        for d in wins:
            by_winner.setdefault(d.better, []).append(d)
        for winner, ds in by_winner.items():
            loser = a if winner == b else b
            items = []
            for d in ds:
                sign = (1 if winner == b else -1) * (1 if d.greater_is_better else -1)  # the improvement
                lo, hi = sorted((sign * d.ci[0], sign * d.ci[1]))
                items.append(f"{_title(d.metric)} by {_fmt(abs(d.difference))} ({_fmt(lo)} to {_fmt(hi)}), "
                             f"p {_fmt_p(d.pvalue_adjusted)}")
            parts.append(f"{winner} is significantly better than {loser} on " + "; on ".join(items))
        if others:
            names = ", ".join(_title(d.metric) for d in others)
            verb = "is" if len(others) == 1 else "are"
            parts.append(f"on {names} the difference{'s' if len(others) > 1 else ''} {verb} not significant"
                         if wins else f"{a} and {b}: no significant difference on {names}")
        lines.append("; ".join(parts) + ".")
    if c.correction != "none" and n_tests > 1:
        lines.append(f"p-values corrected for {n_tests} comparisons ({c.correction.capitalize()}); "
                     f"{pct} paired intervals.")
    return replace(c, verdict=tuple(lines))
