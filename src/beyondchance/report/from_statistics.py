r"""The one road to a report: a task's statistics → the task's rows → the assembler.

:func:`report_from_statistics` turns a :class:`~beyondchance.TaskStatistics` (of arrays, a
table, files or a statistics file: :mod:`beyondchance.engines.scan`) into the task's rows
(:mod:`beyondchance.report.tasks`) and the rows into a :class:`~beyondchance.report.report.Report`
(:func:`beyondchance.report.assemble._run`: OPS, verdicts, p-values, notes).  So every
engine's report is the same function of the same statistics.
"""

from __future__ import annotations

import dataclasses
import math
from typing import Any, Callable

import numpy as np

from .._summary_display import _fmt_label, _label
from .._warnings import InvalidInputError
from ..measures.task_metrics import selectable_metrics
from ..statistics.scores import BinnedScoreCounts
from ..statistics.task_statistics import TaskStatistics, _coerce_pos_label, _resolve_positive
from .assemble import _run, _select_metrics
from .evaluation_context import _Context, _single_class
from .report import Report
from .tasks.binary_scores import _binary_scores_from_counts
from .tasks.labels import labels_rows, replicate_matrices
from .tasks.probabilities import probabilities_rows
from .tasks.regression import regression_rows

__all__ = ["report_from_statistics"]


def report_from_statistics(
    statistics: TaskStatistics | Callable[[_Context], TaskStatistics], *, engine: str | None = None,
    pos_label: Any = None, threshold: Any = None, metrics: Any = None, confidence_level: float = 0.95,
    n_resamples: int = 2000, ci: bool = True, random_state: int = 0, strict: bool = False, name: str | None = None,
    mc_samples: int | None = None, progress: Callable[[str], None] | None = None,
) -> Report:
    """The :class:`~beyondchance.report.report.Report` of a task's statistics (or of a function
    computing them once the common options are checked: the memory engine's)."""
    score_statistic = None
    notes: list[str] = []

    def compute(ctx: _Context) -> tuple[dict[str, Any], str, str, str]:
        nonlocal score_statistic
        p = statistics(ctx) if callable(statistics) else statistics
        if metrics is not None:
            _select_metrics(dict.fromkeys(selectable_metrics(p.task, quantile=p.quantile is not None)), metrics, p.task)
        if p.task == "regression":
            out = regression_rows(p.stats, ctx, n_rows=p.n_rows, weighted=p.weighted, totals=p.totals,
                                  quantile=p.quantile)
        elif p.task == "multiclass-probabilities":
            out = probabilities_rows(p.stats, ctx, n_rows=p.n_rows, weighted=p.weighted, totals=p.totals,
                                     counts0=p.counts0)
        elif p.task == "binary-scores":
            true_present = p.classes[p.counts0 > 0]
            if true_present.size < 2:
                _single_class(true_present, ctx)
            pl, nl, reason = p.positive if p.positive is not None else _resolve_positive(p.classes, p.counts0,
                                                                                          pos_label)
            if pos_label is not None and _coerce_pos_label(pos_label, p.classes) != _label(pl):
                raise InvalidInputError(f"these statistics count {_fmt_label(pl)} as the positive class, not "
                                        f"{_fmt_label(pos_label)}: profile again with pos_label=")
            stat = p.stats
            tc = stat
            if isinstance(stat, BinnedScoreCounts):
                tc = stat.threshold_counts()
                bounds = {"roc_auc": stat.auc_error_bound("roc"), "pr_auc": stat.auc_error_bound("pr")}
                score_statistic = {"kind": "binned", "bins": stat.bins, "n_bins": int(stat.keys.size),
                                   "auc_error_bound": {k: (None if not math.isfinite(v) else v)
                                                       for k, v in bounds.items()}}
                notes.append(
                    f"scores binned into floor(score * {stat.bins}) ({stat.keys.size} occupied bins): "
                    f"|ROC AUC - exact| <= {bounds['roc_auc']:.3g}, |PR AUC (AP) - exact| <= {bounds['pr_auc']:.3g}; "
                    "the AUCs, the losses and their p-values are those of the binned scores"
                )
            units = p.units.threshold_counts() if isinstance(p.units, BinnedScoreCounts) else p.units

            def label_totals(thr: float) -> Any:
                if callable(p.totals):  # memory: counted at the threshold when the report needs them
                    return p.totals(thr)
                if p.totals is not None and p.totals.info.get("threshold") != thr:
                    raise InvalidInputError(
                        f"these weighted statistics were profiled at threshold {p.totals.info.get('threshold')!r} "
                        f"(their bootstrap sums are counted there): report at it, or profile at {thr!r}")
                return p.totals

            given = None
            if p.given is not None:  # predicted labels given with the scores
                given = labels_rows(p.given, p.given_counts0, ctx, binary=True, pos_label=pl, n_rows=p.n_rows,
                                    weighted=p.weighted, replicates=None if not (p.weighted and p.totals is not None
                                                                                 and ctx.ci)
                                    else replicate_matrices(p.totals, ctx, np.asarray(p.given.labels)))
            out = _binary_scores_from_counts(tc, units, threshold, pl, nl, reason, ctx, n_rows=p.n_rows,
                                             label_totals=label_totals if p.weighted and given is None else None,
                                             given_labels=given)
            if p.weighted:
                out["total_weight"] = float(tc.n)
        else:
            replicates = None
            if p.weighted and p.totals is not None and ctx.ci:
                replicates = replicate_matrices(p.totals, ctx, np.asarray(p.stats.labels))
            out = labels_rows(p.stats, p.counts0, ctx, binary=p.task == "binary-labels",
                              pos_label=p.positive[0] if p.positive is not None else pos_label, n_rows=p.n_rows,
                              weighted=p.weighted, replicates=replicates)
        out["notes"] = list(out.get("notes", ())) + notes
        if p.inputs is None:  # an engine's: the permutation CLTs beyond the row budget
            out["permutation_cells"] = (p.stats.permutation_cells if p.task == "multiclass-probabilities"
                                        else p.cells)
            out["score_permutation_cells"] = p.score_cells
            out["permutation_loss_sums"] = (p.stats.permutation_loss_sums if p.task == "multiclass-probabilities"
                                            else p.loss_sums)
        out.update(inputs=p.inputs, row_source=p.row_source, quantile=p.quantile)
        return out, p.task, p.source, p.reason

    report = _run(compute, metrics=metrics, confidence_level=confidence_level, n_resamples=n_resamples,
                  ci=ci, random_state=random_state, strict=strict, name=name,
                  mc_samples=mc_samples, progress=progress)
    if engine is None and score_statistic is None:
        return report
    return dataclasses.replace(report, engine=engine, score_statistic=score_statistic)
