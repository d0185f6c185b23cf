"""From a task's rows to the :class:`~.report.Report`: the common options, the notes,
the metric selection, the OPS of each value and the verdicts (shared by every task)."""

from __future__ import annotations

import math
import warnings
from typing import Any, Callable, Sequence

import numpy as np

from .._summary_display import TITLES, _label
from .._validation import check_mc_samples, check_n_resamples, check_resample_cap, check_unit_interval
from .._validation.options import check_quantile_option  # noqa: F401  (the report's name)
from .._warnings import BeyondChanceWarning, InvalidInputError, UndefinedMeasureWarning, caller_stacklevel
from ..measures.confusion import ConfusionMatrix
from ..measures.registry import METRICS, get_metric
from ..measures.task_metrics import _SCORING
from ..inference.few_rows_intervals import TOO_FEW_ROWS
from ..inference.significance import beats_by_interval, significance_level
from ..outperformance import outperformance_score
from .evaluation_context import _Collector, _Context
from .formatting import fmt_value
from .metric_rows import MetricCI, MetricResult, _advantage, _ops_of, word_of
from .pvalues import chance_pvalues
from .report import Report


def _run(
    compute: Callable[[Any], tuple[dict[str, Any], str, str, str]], *, metrics: Any, confidence_level: float,
    n_resamples: int, ci: bool, random_state: int, strict: bool, name: str | None, mc_samples: int | None,
    progress: Callable[[str], None] | None,
) -> Report:
    """Check the common options, compute the rows, add OPS and verdicts, build the Report."""
    step = progress or (lambda message: None)
    collector = _Collector()
    level = float(check_unit_interval(confidence_level, "confidence_level", open_=True))
    n_resamples = check_n_resamples(n_resamples, level) if ci else check_resample_cap(n_resamples, "n_resamples")
    if mc_samples is not None:
        mc_samples = check_mc_samples(mc_samples)
    ctx = _Context(
        level=level, n_resamples=int(n_resamples), ci=bool(ci), seed=random_state,
        collector=collector, step=step, strict=strict, mc_samples=mc_samples,
        extra_metrics=_registry_metrics(metrics),
    )
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", BeyondChanceWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        report, detected, source, reason = compute(ctx)
        step("computing the verdict")
        chosen = _select_metrics(report["metrics"], metrics, detected)
        rows = _finish_rows(report, chosen, ctx)
    for w in caught:
        if issubclass(w.category, BeyondChanceWarning):
            collector.add(str(w.message))
    notes = tuple(report.get("notes", ())) + tuple(collector.notes)
    verdict = _overall_verdict(detected, rows)
    result = Report(
        task=detected,
        task_source=source,
        task_reason=reason,
        n=int(report["n"]),
        total_weight=report.get("total_weight"),
        prevalence=report.get("prevalence"),
        classes=report.get("classes"),
        positive_label=report.get("positive_label"),
        negative_label=report.get("negative_label"),
        positive_reason=report.get("positive_reason"),
        threshold=report.get("threshold"),
        threshold_reason=report.get("threshold_reason"),
        metrics=rows,
        verdict=verdict,
        ci_description=report.get("ci_description", "") if ci else "not computed",
        notes=notes,
        name=name,
        confusion=report.get("confusion"),
        per_class=report.get("per_class"),
        counts=report.get("counts"),
        confidence_level=level,
        mc_samples=mc_samples,
    )
    for note in collector.notes:
        warnings.warn(note, UndefinedMeasureWarning, stacklevel=caller_stacklevel())
    return result


def _metric_keys(wanted: Sequence[str] | str) -> list[tuple[str, str]]:
    """(as given, key) of each requested metric name; a registry alias (``"csi"``,
    ``"qwk"``) is read as the metric's own name."""
    if isinstance(wanted, str):
        wanted = [w for w in wanted.split(",") if w.strip()]
    out = []
    for w in wanted:
        key = str(w).strip().lower().replace("-", "_").replace(" ", "_")
        if key not in METRICS:
            try:
                key = get_metric(key).name
            except InvalidInputError:
                pass
        out.append((w, key))
    return out


def _registry_metrics(wanted: Sequence[str] | str | None) -> tuple[str, ...]:
    """The registry labeling metrics among the requested names (computed on request)."""
    return () if wanted is None else tuple(dict.fromkeys(k for _, k in _metric_keys(wanted) if k in METRICS))


def _select_metrics(available: dict, wanted: Sequence[str] | None, task: str) -> list[str]:
    if wanted is None:
        return list(available)
    out = []
    for w, key in _metric_keys(wanted):
        if key not in available:
            raise InvalidInputError(
                f"unknown metric {w!r} for a {task} report; available: {', '.join(available)}"
            )
        if key not in out:
            out.append(key)
    return out


# =====================================================================================
# OPS, verdicts
# =====================================================================================


def _pct(x: float) -> str:
    """A share as a percentage with as many digits as it needs to differ from 100%."""
    if x >= 0.9999:
        return "more than 99.99%"
    if x >= 0.99:
        return f"{100 * x:.2f}%"
    return f"{100 * x:.0f}%"


def _finish_rows(report: dict[str, Any], chosen: list[str], ctx: _Context) -> dict[str, MetricResult]:
    """The report's rows: each chosen metric's value, constant, advantage, OPS, interval and
    p-value against chance, then the words and verdicts (:func:`_worded`)."""
    rows: dict[str, MetricResult] = {}
    pi = report.get("prevalence")
    binary = report.get("counts") is not None or (pi is not None and report.get("positive_label") is not None)
    pvalues: dict[str, tuple[float | None, str]] = {}
    if ctx.ci:
        ctx.step("testing against chance")
        pvalues = chance_pvalues(report, chosen, n_resamples=ctx.n_resamples, seed=ctx.seed,
                                 confidence_level=ctx.level)
    if any(k in METRICS or k in _SCORING for k in chosen):
        ctx.step("computing the outperformance scores")
    for name in chosen:
        spec = report["metrics"][name]
        value = float(spec["value"])
        ci_obj: MetricCI | None = spec.get("ci")
        ops, ops_ci, ops_method = _row_ops(name, spec, value, ci_obj, report, binary=binary, ctx=ctx)
        base = float(spec["baseline"])
        ideal = float(spec["ideal"])
        pvalue, pvalue_method = pvalues.get(name, (None, None))
        adv = _advantage(value, base, ideal) if name != "prediction_advantage" else value
        rows[name] = MetricResult(
            name=name, title=spec.get("title", TITLES.get(name, name)), kind=spec["kind"], value=value, baseline=base,
            baseline_prediction=spec["baseline_prediction"], ideal=ideal, advantage=adv,
            greater_is_better=bool(spec["greater_is_better"]), ops=ops, ops_ci=ops_ci, ops_method=ops_method,
            ci=ci_obj, pvalue=pvalue, pvalue_method=pvalue_method,
        )
    return _worded(rows, report, pi if binary else None, ctx)


def _row_ops(name: str, spec: dict[str, Any], value: float, ci_obj: MetricCI | None, report: dict[str, Any], *,
             binary: bool, ctx: _Context) -> tuple[float | None, tuple[float, float] | None, str | None]:
    """(OPS, its interval, its method) of a row: binary, at the prevalence (the interval's
    ends clipped to the values attainable there: the prevalence varies between resamples);
    multi-class, of the per-class values or of the macro average; all None where not defined."""
    pi = report.get("prevalence")
    cm: ConfusionMatrix | None = report.get("confusion")
    if not ((name in METRICS or name in _SCORING or "ops_of" in spec) and math.isfinite(value)):
        return None, None, None
    if binary and pi is not None and 0 < pi < 1:
        vals = [value]
        if ci_obj is not None:
            vals += list(np.clip([ci_obj.low, ci_obj.high], *_attainable(name, pi)))
        scores, ops_method, problem = _ops_of(name, np.array(vals), pi, mc_samples=ctx.mc_samples)
        if scores is None:
            if problem:
                ctx.collector.add(f"OPS of {name} not computed: {problem.split(';')[0]}")
            return None, None, ops_method
        return float(scores[0]), (float(scores[1]), float(scores[2])) if ci_obj is not None else None, ops_method
    if not binary and spec.get("per_class") is not None:
        ops, method = _per_class_ops(spec.get("ops_of", name), spec["per_class"], spec["prevalences"], ctx,
                                     weights=spec.get("class_weights"))
        return ops, None, method
    if not binary and cm is not None and spec.get("average") == "macro":
        ops, method = _macro_ops(name, cm, ctx)
        return ops, None, method
    return None, None, None


def _worded(rows: dict[str, MetricResult], report: dict[str, Any], pi: float | None,
            ctx: _Context) -> dict[str, MetricResult]:
    """The rows with their words and verdicts: declined rows (too few rows) lose their
    interval and say why; a row's warning (``verdict_note``) ends its verdict."""
    declined = _declined(report) if ctx.ci else {}
    rows = _without_interval(rows, list(declined))
    words = _words(rows, significance_level(ctx.level), declined=list(declined))
    rows = {name: MetricResult(**{**r.__dict__, "word": words[name]}) for name, r in rows.items()}
    for name, r in list(rows.items()):
        r = _with_verdict(r, pi, rows)
        why = declined.get(name) or declined.get(SAME_COMPARISON.get(name, ""))
        if r.word == "too few" and why:
            r = MetricResult(**{**r.__dict__, "verdict": why if r.beats_baseline else f"{r.verdict}; {why}"})
        note = report["metrics"][name].get("verdict_note")
        if note:  # a warning the verdict must carry (scores ranking the classes backwards)
            r = MetricResult(**{**r.__dict__, "verdict": f"{r.verdict} — {note}"})
        rows[name] = r
    return rows


#: the rows that rest on every row, not on the rarer class: kept at any count
ALL_ROWS = frozenset({"accuracy", "log_loss", "brier"})
#: the rows kept in a multi-class report (its prediction advantage rests on the majority class)
ALL_ROWS_MULTICLASS = ALL_ROWS | {"prediction_advantage"}


def _declined(report: dict[str, Any]) -> dict[str, str]:
    """The rows that give no interval and no verdict, each with why: those of
    :func:`_too_few_rows`, and those a task declined (its row's ``"too_few"``)."""
    out = {name: spec["too_few"] for name, spec in report["metrics"].items() if spec.get("too_few")}
    few = _too_few_rows(report)
    if few is not None:
        out.update({name: few[1] for name in few[0] if name not in out})
    return out


def _too_few_rows(report: dict[str, Any]) -> tuple[list[str], str] | None:
    """The rows without an interval and a verdict, and why, when the rarer class has fewer
    than :data:`TOO_FEW_ROWS` rows (weighted rows: its share of the weight times the rows);
    the ROC and PR AUC of unweighted rows keep their closed-form intervals
    (:mod:`~beyondchance.inference.few_rows_intervals`).  None where there are enough."""
    cm: ConfusionMatrix | None = report.get("confusion")
    counts = report.get("counts")
    if counts is not None:
        totals = np.array([counts.n_neg, counts.n_pos], dtype=np.float64)
    elif cm is not None:
        totals = np.asarray(cm.true_counts, dtype=np.float64)
    else:
        return None
    if totals.sum() <= 0 or (totals > 0).sum() < 2:
        return None
    rows_of = totals / totals.sum() * float(report["n"])
    i = int(np.argmin(np.where(totals > 0, rows_of, np.inf)))
    fewest = int(round(rows_of[i]))
    if fewest >= TOO_FEW_ROWS:
        return None
    binary = counts is not None or len(totals) == 2
    if binary:
        positive = i == 1 if counts is not None else cm is not None and cm._pos_index() == i
        what = f"{fewest} {'positive' if positive else 'negative'} rows"
        keep = ALL_ROWS | {"specificity"} if positive else ALL_ROWS  # the specificity rests on the negatives
    else:
        assert cm is not None  # no score counts: the totals are the confusion matrix's
        what = f"{fewest} rows of class {_label(cm.labels[i])!r}"
        keep = ALL_ROWS_MULTICLASS
    closed = {k for k, spec in report["metrics"].items()
              if spec.get("ci") is not None and spec["ci"].n_resamples == 0}  # closed-form intervals
    return ([k for k in report["metrics"] if k not in keep and k not in closed],
            f"too few rows for an interval and a verdict: {what} (at least {TOO_FEW_ROWS})")


def _without_interval(rows: dict[str, MetricResult], names: list[str]) -> dict[str, MetricResult]:
    """The rows with the ``names`` rows' intervals (and their OPS's) taken away."""
    return {k: (MetricResult(**{**r.__dict__, "ci": None, "ops_ci": None}) if k in names else r) for k, r in rows.items()}


#: rows whose comparison with the best constant is another row's: accuracy above the majority
#: rate is a prediction advantage above 0, and that row's interval and test hold the majority
#: rate's own uncertainty (the accuracy row's interval treats it as known)
SAME_COMPARISON = {"accuracy": "prediction_advantage"}


def _words(rows: dict[str, MetricResult], alpha: float, declined: Sequence[str] = ()) -> dict[str, str]:
    """Each row's verdict word (:func:`~.metric_rows.word_of`: its interval and its p-value at
    ``alpha``; "too few" for the ``declined`` rows); a row of :data:`SAME_COMPARISON` takes the
    word of the row that makes its comparison, so the two never disagree."""
    words = {name: word_of(r.value, r.baseline, r.ideal, r.ci, greater_is_better=r.greater_is_better,
                           pvalue=r.pvalue, alpha=alpha) for name, r in rows.items()}
    words.update({name: "too few" for name in declined  # declined: of every row of the task, chosen or not
                  if name in words and words[name] in ("better", "unclear", "worse", "equal")})
    for name, same in SAME_COMPARISON.items():
        if name in words and same in words and words[same] in ("better", "unclear", "worse", "equal", "too few"):
            words[name] = words[same]
    return words


def _attainable(name: str, pi: float) -> tuple[float, float]:
    """The values a metric can take at prevalence π: its OPS is 0 and 1 at the ends."""
    if name in METRICS:
        lo, hi = get_metric(name).range_at(pi)
        return float(lo), float(hi)
    from ..outperformance.scoring import scoring_metric_upper

    return 0.0, float(scoring_metric_upper(name, pi))


def _macro_ops(name: str, cm: ConfusionMatrix, ctx: _Context) -> tuple[float | None, str | None]:
    """One-vs-rest OPS per class, macro-averaged (classes present in y_true)."""
    values = np.asarray(cm.metric(name, average=None, zero_division=0.0), dtype=np.float64)
    prev = cm.true_counts / cm.n
    keep = (prev > 0) & (prev < 1) & np.isfinite(values)
    if not keep.any() or keep.sum() < (cm.true_counts > 0).sum():
        return None, None
    try:
        res = outperformance_score(name, values[keep], prev[keep])
    except InvalidInputError as exc:
        ctx.collector.add(f"OPS of {name}: {exc}")
        return None, None
    return float(np.mean(res.score)), f"one-vs-rest OPS per class ({res.method}), macro average"


def _per_class_ops(name: str, values: np.ndarray, prevalences: np.ndarray, ctx: _Context,
                   weights: np.ndarray | None = None) -> tuple[float | None, str | None]:
    """Average of the one-vs-rest OPS of a scoring metric, each class at its prevalence: macro,
    or weighted by ``weights`` (the classes' supports)."""
    scores, method, problem = _ops_of(name, np.asarray(values, dtype=np.float64),
                                      np.asarray(prevalences, dtype=np.float64), mc_samples=ctx.mc_samples)
    if scores is None:
        ctx.collector.add(f"OPS of {name} not computed: {(problem or '').split(';')[0]}")
        return None, None
    how = "macro average" if weights is None else "average weighted by support"
    return float(np.average(scores, weights=weights)), f"one-vs-rest OPS per class ({method}), {how}"


def _not_shown(r: MetricResult, rows: dict[str, MetricResult]) -> str:
    """Why an advantage of the point estimate is not shown (its word "unclear"): the row making
    the same comparison (:data:`SAME_COMPARISON`) does not show it, the interval reaches the
    constant, or the test of chance does not reject."""
    same = rows.get(SAME_COMPARISON.get(r.name, ""))
    if same is not None and same.word == "unclear":
        return f"{_not_shown(same, rows)} (of the {same.title.lower()}, the same comparison)"
    if r.ci is not None and math.isfinite(r.ci.low + r.ci.high) and beats_by_interval(
            r.ci.low, r.ci.high, r.baseline, greater_is_better=r.greater_is_better) != "yes":
        return f"its {int(round(r.ci.level * 100))}% CI reaches the constant's value"
    return f"p (chance) = {r.pvalue:.3g}, the test does not reject"


def _with_verdict(r: MetricResult, pi: float | None, rows: dict[str, MetricResult]) -> MetricResult:
    """The row's verdict line, from its word (:func:`_words`) and its numbers."""
    if not math.isfinite(r.value):
        verdict = "undefined on this test set"
    else:
        beats = r.beats_baseline
        if beats is None:
            verdict = "no baseline to compare with"
        elif r.ideal == r.baseline and not beats:
            verdict = (f"{r.baseline_prediction} reaches the best value {fmt_value(r.ideal)}: "
                       f"{r.title.lower()} alone cannot show an advantage")
        elif not beats:
            verdict = f"no better than {r.baseline_prediction} ({fmt_value(r.baseline)})"
        else:
            if r.ops is not None:
                who = "random score curves" if r.kind == "scoring" else "possible classifiers"
                where = "at this prevalence" if pi is not None else "(one-vs-rest, at each class's prevalence)"
                verdict = f"better than {_pct(r.ops)} of {who} {where}"
            else:
                if math.isfinite(r.advantage):
                    verdict = (f"better than {r.baseline_prediction} ({fmt_value(r.baseline)}); closes "
                               f"{100 * r.advantage:.0f}% of the gap to perfect")
                else:
                    verdict = f"better than {r.baseline_prediction} ({fmt_value(r.baseline)})"
            if r.word == "unclear":
                verdict += "; but not shown: " + _not_shown(r, rows)
    return MetricResult(**{**r.__dict__, "verdict": verdict})


def _overall_verdict(task: str, rows: dict[str, MetricResult]) -> tuple[str, ...]:
    """The headline's lines: the regression's R² line, or the classifier's accuracy line
    (read from its prediction advantage) and lines quoting the rows' own verdicts — the
    headline never says more than the table."""
    if task == "regression":
        return _regression_headline(rows)
    lines = _accuracy_headline(rows)
    for key in ("f1", "mcc"):
        r = rows.get(key)
        if r is not None and r.ops is not None and math.isfinite(r.value):
            lines.append(f"{r.title} {r.value:.3f}: {r.verdict}.")
            break
    aucs = [rows[k] for k in ("roc_auc", "pr_auc") if k in rows and math.isfinite(rows[k].value)]
    if aucs:
        parts = []
        for r in aucs:
            s = f"{r.title.split(' (')[0]} {r.value:.3f}"
            parts.append(f"{s} (constant score: {r.baseline:.3f}), {r.verdict}" if r.beats_baseline
                         else f"{s}: {r.verdict}")
        lines.append("Ranking: " + "; ".join(parts) + ".")
    return tuple(lines)


def _ci_text(r: MetricResult) -> str:
    """A row's interval as the headline quotes it ("" without a finite one)."""
    if r.ci is None or not (math.isfinite(r.ci.low) and math.isfinite(r.ci.high)):
        return ""
    return f" [{int(round(r.ci.level * 100))}% CI {r.ci.low:+.3f} to {r.ci.high:+.3f}]"


def _regression_headline(rows: dict[str, MetricResult]) -> tuple[str, ...]:
    """The regression's headline: the share of the constant's squared error the model removes (R²)."""
    r2 = rows.get("r2")
    if r2 is None or not math.isfinite(r2.value):
        return ()
    if r2.value <= 0:
        return (f"No better than {r2.baseline_prediction}: R² = {r2.value:+.3f}{_ci_text(r2)}.",)
    mse = rows.get("mse")
    return (f"The model removes {100 * r2.value:.0f}% of the squared error of {r2.baseline_prediction}"
            + (f" (MSE {mse.value:.4g} vs {mse.baseline:.4g})" if mse is not None else "")
            + f": R² = {r2.value:+.3f}{_ci_text(r2)}.",)


def _accuracy_headline(rows: dict[str, MetricResult]) -> list[str]:
    """The classifier's first line: accuracy against the best constant, read from the
    prediction advantage's value, word and interval."""
    pa = rows.get("prediction_advantage")
    acc = rows.get("accuracy")
    if pa is None:
        return []
    if acc is None or not math.isfinite(pa.value):
        return ["The prediction advantage is undefined on this test set (a single class)."]
    bp = acc.baseline_prediction
    if pa.value <= 0:
        return [f"Accuracy {100 * acc.value:.1f}% is no better than {bp} ({100 * acc.baseline:.1f}%): "
                f"prediction advantage {pa.value:+.3f}{_ci_text(pa)}."]
    if pa.word == "too few":
        return [f"Accuracy {100 * acc.value:.1f}% against {bp} ({100 * acc.baseline:.1f}%), prediction "
                f"advantage {pa.value:+.3f}: {pa.verdict}."]
    tail = ""
    if pa.word == "unclear":
        tail = (" — but not significantly: the interval includes 0" if pa.ci is not None and beats_by_interval(
            pa.ci.low, pa.ci.high) != "yes" else f" — but not significantly: p (chance) = {pa.pvalue:.3g}")
    return [f"Better than {bp}: accuracy {100 * acc.value:.1f}% vs {100 * acc.baseline:.1f}%, "
            f"prediction advantage {pa.value:+.3f}{_ci_text(pa)}{tail}."]
