r"""Gates: requirements on a report that pass or fail (``Report.check``, ``beyondchance check``).

A requirement is one comparison of a quantity of the report with a number::

    requirement := quantity operator number
    quantity    := metric                   the metric's value, as value(metric)
                 | function "(" metric ")"
    function    := value | lower | upper | ops | pvalue | advantage | baseline
    operator    := ">" | ">=" | "<" | "<="
    metric      := a metric of the report, or any name of the registry beyondchance.measures.METRICS
                   (binary reports)

=============  ===========================================================================
``value``      the metric on the test set
``lower``      the lower end of its confidence interval (``upper``: the upper end)
``ops``        its outperformance score at the test set's prevalence
``pvalue``     the report's one-sided p-value of "no better than chance", the one its
               table shows: McNemar's exact test against the majority class for
               accuracy and PA (= "no better than the best constant"), the permutation
               test (:func:`beyondchance.permutation_test`) for the others; for the
               exact tests (McNemar's, the hypergeometric null of labels, enumeration
               of scores) the mid-p-value P(better) + P(equal) / 2, not the
               conservative P(at least as good) (``PermutationTestResult.pvalue_conservative``);
               Monte Carlo p-values (weighted rows, class probabilities, many scores)
               are (1 + #{at least as good}) / (B + 1); MSE and R² the permutation
               CLT (asymptotic); :mod:`beyondchance.report.pvalues`
``advantage``  (value − constant's value) / (perfect − constant's value); PA for accuracy
``baseline``   the best constant prediction's value
=============  ===========================================================================

Examples: ``prediction_advantage > 0``, ``ops(f1) >= 0.9``, ``lower(roc_auc) > 0.75``,
``pvalue(pure_accuracy) < 0.01``.  A quantity that is undefined on the test set (nan)
fails its requirement, with the reason.  A requirement that cannot be read, names an
unknown metric or function, or asks for something the report cannot give (``ops`` of a
loss, ``lower`` without intervals, ``pvalue`` of a row without one: weighted data,
regression or class probabilities evaluated with ``ci=False`` or by a DuckDB/Spark engine) is an
:class:`~beyondchance.InvalidInputError` naming what is known.

>>> from beyondchance.report import evaluate
>>> r = evaluate([0, 0, 0, 1, 1, 0, 0, 1, 1, 1], [0, 0, 0, 1, 1, 0, 1, 1, 1, 0], ci=False)
>>> res = r.check("accuracy >= 0.8", "pvalue(accuracy) < 0.01")
>>> [x.passed for x in res.requirements], res.passed
([True, False], False)
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._warnings import InvalidInputError
from ..measures.registry import METRICS, get_metric
from ..outperformance import outperformance_score
from ..inference.permutation.result import PermutationTestResult
from .pvalues import chance_test
from .evaluation_context import _Collector, _Context
from .._summary_display import SummaryDisplay, Table
from .formatting import _num, fmt_value, shorten
from .metric_rows import MetricResult
from .tasks.labels import _cell_intervals, _constant_baseline

__all__ = ["FUNCTIONS", "OPERATORS", "Requirement", "RequirementResult", "CheckResult", "check_report",
           "report_permutation_test"]

FUNCTIONS = ("value", "lower", "upper", "ops", "pvalue", "advantage", "baseline")
OPERATORS = (">=", "<=", ">", "<")

_GRAMMAR = ("a requirement is 'METRIC OP NUMBER' or 'FUNCTION(METRIC) OP NUMBER', OP one of > >= < <=, "
            f"FUNCTION one of {', '.join(FUNCTIONS)}")
_RE = re.compile(
    r"^\s*(?:(?P<func>[A-Za-z_][\w]*)\s*\(\s*(?P<arg>[A-Za-z_][\w\-]*)\s*\)|(?P<name>[A-Za-z_][\w\-]*))"
    r"\s*(?P<op>>=|<=|>|<)\s*(?P<num>[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*$",
    re.ASCII,  # ASCII digits, letters and spaces: no Arabic-Indic digit, no no-break space
)
#: the longest requirement read (a longer one is refused without being echoed whole)
MAX_REQUIREMENT_CHARS = 200

#: permutation p-values of score measures: Monte Carlo draws beyond the exact enumeration
GATE_PERMUTATIONS = 10_000


@dataclass(frozen=True)
class Requirement:
    """One parsed requirement (see the module docstring for the grammar)."""

    expression: str
    function: str
    metric: str
    operator: str
    bound: float

    @classmethod
    def parse(cls, text: str) -> "Requirement":
        """Parse ``text``; a malformed requirement is an InvalidInputError.

        >>> Requirement.parse("lower(roc_auc) > 0.75")
        Requirement(expression='lower(roc_auc) > 0.75', function='lower', metric='roc_auc', operator='>', bound=0.75)
        >>> Requirement.parse("roc_auc < 1e999")
        Traceback (most recent call last):
        beyondchance._warnings.InvalidInputError: the bound of 'roc_auc < 1e999' is beyond the largest number (1e999 overflows to infinity): a requirement compares with a finite number
        """
        if not isinstance(text, str):
            raise InvalidInputError(f"a requirement must be a string, got {type(text).__name__}")
        if len(text) > MAX_REQUIREMENT_CHARS:
            raise InvalidInputError(f"a requirement has at most {MAX_REQUIREMENT_CHARS} characters; this one has "
                                    f"{len(text):,} ('{shorten(text)}')")
        m = _RE.match(text)
        if m is None:
            raise InvalidInputError(f"cannot read the requirement {text!r}: {_GRAMMAR}")
        func = (m.group("func") or "value").lower()
        if func not in FUNCTIONS:
            raise InvalidInputError(f"unknown function {m.group('func')!r} in {text!r}; known: {', '.join(FUNCTIONS)}")
        metric = (m.group("arg") or m.group("name")).lower().replace("-", "_")
        bound = float(m.group("num"))
        if not math.isfinite(bound):
            raise InvalidInputError(f"the bound of {text!r} is beyond the largest number ({m.group('num')} overflows "
                                    "to infinity): a requirement compares with a finite number")
        return cls(" ".join(text.split()), func, metric, m.group("op"), bound)

    def holds(self, measured: float) -> bool:
        return {">": measured > self.bound, ">=": measured >= self.bound, "<": measured < self.bound,
                "<=": measured <= self.bound}[self.operator]


@dataclass(frozen=True)
class RequirementResult:
    """A requirement, the measured quantity and whether it holds (``reason`` when it does not)."""

    expression: str
    function: str
    metric: str
    operator: str
    bound: float
    measured: float | None
    passed: bool
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"requirement": self.expression, "function": self.function, "metric": self.metric,
                "operator": self.operator, "bound": self.bound, "measured": _num(self.measured),
                "passed": self.passed, "reason": self.reason}


@dataclass(frozen=True)
class CheckResult(SummaryDisplay):
    """The requirements of a gate and their results; ``passed`` when all hold.  ``print``
    shows the verdict (PASS or FAIL) and one row per requirement: its expression, the
    measured quantity and the result."""

    requirements: tuple[RequirementResult, ...]

    @property
    def passed(self) -> bool:
        return all(r.passed for r in self.requirements)

    @property
    def failed(self) -> tuple[RequirementResult, ...]:
        return tuple(r for r in self.requirements if not r.passed)

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "requirements": [r.to_dict() for r in self.requirements]}

    def _summary_title(self) -> str:
        n, failed = len(self.requirements), len(self.failed)
        return f"{'PASS' if not failed else 'FAIL'}: {n - failed} of {n} requirements hold."

    def _summary_rows(self) -> list[tuple[str, Any]]:
        return []

    def _summary_tables(self) -> list[Table]:
        rows = [[r.expression,
                 "n/a" if r.measured is None else f"{r.measured:.3g}" if r.function == "pvalue" else fmt_value(r.measured),
                 "pass" if r.passed else f"FAIL{': ' + r.reason if r.reason else ''}"] for r in self.requirements]
        return [("Requirements", ["requirement", "measured", "result"], rows)]

    def __bool__(self) -> bool:
        return self.passed


def report_permutation_test(report: Any, metric: str, *, n_resamples: int = GATE_PERMUTATIONS,
                            random_state: Any = 0) -> PermutationTestResult:
    """The test of ``metric`` against chance from the report's statistics (classification
    reports of unweighted data; :mod:`beyondchance.report.pvalues`: McNemar's exact test against the
    majority class for accuracy and PA, the permutation test otherwise; the exact tests'
    mid-p-value, as the report's table).  ``pvalue(...)`` of a gate uses the table's
    p-value when the row has one, this test only when it has none (``ci=False``).

    >>> from beyondchance.report import evaluate
    >>> r = evaluate([0, 0, 1, 1, 0, 1, 0, 0], [.1, .4, .35, .8, .2, .9, .6, .3], ci=False)
    >>> t = report_permutation_test(r, "roc_auc"); t.method, round(t.statistic, 4) == round(r["roc_auc"].value, 4)
    ('exact mid-p', True)
    """
    return chance_test(metric, task=report.task, confusion=report.confusion, counts=report.counts,
                       weighted=report.total_weight is not None,
                       binary=report.positive_label is not None and report.confusion is not None,
                       n_resamples=n_resamples, seed=random_state)


def _known(report: Any) -> list[str]:
    names = list(report.metrics)
    if report.confusion is not None and report.confusion.n_classes == 2 and report.positive_label is not None:
        names += [k for k in METRICS if k not in names]
    return names


def _extra_row(report: Any, metric: str) -> Any:
    """A MetricResult-like row for a registry metric that the (binary) report did not list."""
    from ..measures.confusion import ConfusionMatrix

    cm = report.confusion
    m = get_metric(metric)
    value = float(cm.metric(metric, zero_division="nan"))
    pi = cm.prevalence
    base, cls = _constant_baseline(metric, cm.true_counts, cm.labels, cm.pos_label, "binary")
    ideal = float(m.range_at(pi)[1]) if 0 < pi < 1 else float(m.upper)
    ci = None
    if report.total_weight is None and report.ci_description != "not computed" and math.isfinite(value):
        # the report's number of resamples (seed 0: a report does not keep its seed)
        b = next((r.ci.n_resamples for r in report.metrics.values() if r.ci is not None), 2000)
        ctx = _Context(level=report.confidence_level, n_resamples=b, ci=True, seed=0, collector=_Collector(),
                       step=lambda message: None, strict=False)
        coded = ConfusionMatrix(np.asarray(cm.matrix), np.arange(2), pos_label=1)
        ci = _cell_intervals({metric: dict(pos_label=1, zero_division="nan")}, coded, ctx)[metric]
    ops = None
    if math.isfinite(value) and 0 < pi < 1:
        ops = float(np.asarray(outperformance_score(metric, value, pi).score))
    adv = (value - base) / (ideal - base) if math.isfinite(base) and ideal != base else float("nan")
    return MetricResult(name=metric, title=metric, kind="labeling", value=value, baseline=float(base),
                        baseline_prediction=f"always predicting {cls}", ideal=ideal, advantage=adv,
                        greater_is_better=m.greater_is_better, ops=ops, ci=ci)


def _measure(report: Any, req: Requirement) -> tuple[float, str]:
    """(the quantity, why it is undefined when nan)."""
    known = _known(report)
    if req.metric not in known:
        raise InvalidInputError(f"unknown metric {req.metric!r} in {req.expression!r}; this report knows "
                                f"{', '.join(known)}")
    row = report.metrics.get(req.metric)
    if row is None:
        row = _extra_row(report, req.metric)
    f = req.function
    if f == "pvalue":  # the report's own p-value when its table shows one, so that the two agree
        if row.pvalue is not None:
            return row.pvalue, ""
        return report_permutation_test(report, req.metric).pvalue, "the measure is undefined on this test set"
    if f == "value":
        return row.value, "undefined on this test set"
    if f in ("lower", "upper"):
        if row.ci is None:
            why = ("the report was computed without confidence intervals" if report.ci_description == "not computed"
                   else f"no interval for {req.metric} in this report")
            raise InvalidInputError(f"{req.expression!r} needs the confidence interval: {why}")
        return (row.ci.low if f == "lower" else row.ci.high), "the interval is undefined"
    if f == "ops":
        if row.ops is None:
            raise InvalidInputError(f"{req.expression!r}: no outperformance score for {req.metric} in this report "
                                    "(it applies to labeling metrics and AUCs of binary and multi-class reports)")
        return row.ops, ""
    if f == "advantage":
        return row.advantage, "undefined (a constant is already perfect, or the value is undefined)"
    return row.baseline, "undefined"


def check_report(report: Any, requirements: Any) -> CheckResult:
    """Evaluate requirements (strings, see the module docstring) on a report."""
    if isinstance(requirements, str):
        requirements = [requirements]
    reqs = [r if isinstance(r, Requirement) else Requirement.parse(r) for r in requirements]
    if not reqs:
        raise InvalidInputError(f"no requirement given; {_GRAMMAR}")
    out = []
    for req in reqs:
        value, why = _measure(report, req)
        value = float(value)
        if math.isfinite(value):
            passed = req.holds(value)
            reason = "" if passed else f"{req.function}({req.metric}) = {value:.4g}"
        else:
            passed, reason = False, why or "undefined"
        out.append(RequirementResult(req.expression, req.function, req.metric, req.operator, req.bound,
                                     value if math.isfinite(value) else None, passed, reason))
    return CheckResult(tuple(out))
