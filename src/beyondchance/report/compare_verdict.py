"""The verdict of a comparison of test sets: what changed between the reference and each
set, decomposed into a change of the classes' mix (prevalence) and a change of the
classifier (:mod:`beyondchance.monitoring.decomposition`), in one line per set, led by the
focus metric (:func:`_verdict`).  Used by :func:`beyondchance.report.compare.compare_reports`."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any, Sequence, cast

import numpy as np

from ..inference.significance import rejects, significance_level
from ..monitoring.decomposition import Decomposition
from ..monitoring.classifier_change import ClassifierChange, ClassifierTest
from .compare_tasks import AUC_TEST, MULTICLASS_TASKS, TEST_QUANTITIES, TargetShift, bearing_tests
from .formatting import fmt_interval, fmt_value, shorten
from .report import Report

#: metrics tried, in order, for the comparison's headline (the first with an OPS everywhere)
FOCUS_METRICS = ("precision", "pr_auc", "f1", "mcc", "accuracy")

@dataclass(frozen=True)
class Change:
    """How one metric moved on one test set relative to the reference set.

    ``value − reference_value = prevalence_effect + classifier_effect``: ``expected_value``
    is what the reference classifier (its error rates, or its ROC curve) would score at
    this test set's prevalence (:mod:`beyondchance.monitoring.decomposition`).  ``direction`` is ``"worse"``
    / ``"better"`` when the test of the classifier (:class:`ClassifierChange`) rejects
    for this set — one of the Holm-adjusted tests of what the metric reads (recall: the
    false-negative rate; specificity: the false-positive rate; ``bearing_on``) — *and*
    the classifier effect's interval excludes 0 on that side;
    ``"no significant change"`` otherwise; ``"no interval"`` without intervals.
    Multi-class tasks: the same on the class distribution (of probabilities, the one-vs-rest
    ROC AUCs and the losses too, from the rows: :mod:`beyondchance.monitoring.probabilities`; the
    one-vs-rest average precisions are ``"not decomposed"``); regression: ``expected_value`` is the
    reference's value, ``classifier_effect`` the difference, and ``direction`` follows that
    measure's Holm-adjusted test (:mod:`beyondchance.report.compare_tasks`).
    """

    test_set: str
    metric: str
    value: float
    reference_value: float
    ops: float | None
    reference_ops: float | None
    ops_ci: tuple[float, float] | None
    reference_ops_ci: tuple[float, float] | None
    direction: str
    decomposition: Decomposition | None = None

    def _part(self, name: str) -> Any:
        return None if self.decomposition is None else getattr(self.decomposition, name)

    expected_value = property(lambda self: self._part("expected_value"),
                              doc="The reference classifier's value at this set's prevalence.")
    expected_ci = property(lambda self: self._part("expected_ci"), doc="The interval of ``expected_value``.")
    prevalence_effect = property(lambda self: self._part("prevalence_effect"),
                                 doc="``expected_value − reference_value``.")
    prevalence_effect_ci = property(lambda self: self._part("prevalence_effect_ci"))
    classifier_effect = property(lambda self: self._part("classifier_effect"), doc="``value − expected_value``.")
    classifier_effect_ci = property(lambda self: self._part("classifier_effect_ci"),
                                    doc="The interval of ``classifier_effect``.")

    def to_dict(self) -> dict[str, Any]:
        def num(x: Any) -> Any:
            return None if x is None or not math.isfinite(x) else float(x)

        out = {
            "test_set": self.test_set,
            "metric": self.metric,
            "value": num(self.value),
            "reference_value": num(self.reference_value),
            "ops": num(self.ops),
            "reference_ops": num(self.reference_ops),
            "ops_ci": None if self.ops_ci is None else [num(v) for v in self.ops_ci],
            "reference_ops_ci": None if self.reference_ops_ci is None else [num(v) for v in self.reference_ops_ci],
            "direction": self.direction,
        }
        if self.decomposition is not None:
            d = self.decomposition.to_dict()
            out.update({k: d[k] for k in _DECOMPOSED})
        return out


#: the decomposition's fields a Change exposes
_DECOMPOSED = ("expected_value", "expected_ci", "prevalence_effect", "prevalence_effect_ci", "classifier_effect",
               "classifier_effect_ci")



def _direction(d: Decomposition, greater_is_better: bool, changed: bool) -> str:
    ci = d.classifier_effect_ci
    if ci is None:
        return "no interval"
    if changed and (ci[0] > 0 or ci[1] < 0):
        return "better" if (ci[0] > 0) == greater_is_better else "worse"
    return "no significant change"


def _test_text(t: ClassifierTest, ref: Report | None = None) -> str:
    lo, hi = t.difference_ci
    if t.quantity.startswith(AUC_TEST):  # class probabilities: a one-vs-rest ROC AUC's classifier effect
        m = t.quantity[len(AUC_TEST):]
        name = _title(ref, m) if ref is not None and m in ref.metrics else m
        return (f"{name}: the reference classifier would score {t.reference_value:.3f} at this class distribution, "
                f"observed {t.value:.3f} (difference {lo:+.3f} to {hi:+.3f}), adjusted p = {t.pvalue_adjusted:.3g}")
    if t.quantity.startswith("class:"):  # multi-class: true class k's predicted-class distribution
        return (f"true class {t.quantity[6:]}: recall {100 * t.reference_value:.1f}% → {100 * t.value:.1f}% "
                f"(difference {100 * lo:+.1f} to {100 * hi:+.1f} points), adjusted p = {t.pvalue_adjusted:.3g}")
    if t.quantity == "roc_auc":
        moved = f"{t.reference_value:.3f} → {t.value:.3f} (difference {lo:+.3f} to {hi:+.3f})"
    elif t.quantity in TEST_QUANTITIES:
        moved = (f"{100 * t.reference_value:.2f}% → {100 * t.value:.2f}% (difference {100 * lo:+.1f} "
                 f"to {100 * hi:+.1f} points)")
    else:  # a regression error measure
        name = _title(ref, t.quantity) if ref is not None and t.quantity in ref.metrics else t.quantity
        return (f"{name} {fmt_value(t.reference_value)} → {fmt_value(t.value)} (difference {lo:+.4g} to {hi:+.4g}), "
                f"adjusted p = {t.pvalue_adjusted:.3g}")
    return f"{TEST_QUANTITIES[t.quantity]} {moved}, adjusted p = {t.pvalue_adjusted:.3g}"


def _quantity_name(t: ClassifierTest, ref: Report) -> str:
    """What a test is of, in words: "the false-negative rate", "true class 2's predictions", ..."""
    q = t.quantity
    if q.startswith(AUC_TEST):
        m = q[len(AUC_TEST):]
        return f"the classifier effect of {_title(ref, m) if m in ref.metrics else m}"
    if q.startswith("class:"):
        return f"true class {q[6:]}'s predictions"
    if q in TEST_QUANTITIES:
        return f"the {TEST_QUANTITIES[q]}"
    return _title(ref, q) if q in ref.metrics else q


def _title(report: Report, metric: str) -> str:
    """The metric's title without its parenthesis, unless another metric's title then reads the
    same (the one-vs-rest ROC AUC, macro and weighted)."""
    short = report.metrics[metric].title.split(" (")[0]
    same = [m for m in report.metrics if report.metrics[m].title.split(" (")[0] == short]
    return short if len(same) == 1 else report.metrics[metric].title


def _class_shift(r: Report, ref: Report) -> tuple[float, str]:
    """(total variation distance between the class distributions, the class that moved most, as text)."""
    def dist(rep: Report) -> dict:
        assert rep.confusion is not None  # a report of labels of several classes
        t = np.asarray(rep.confusion.matrix, dtype=np.float64).sum(1)
        return dict(zip(np.asarray(rep.confusion.labels).tolist(), t / t.sum()))

    p, q = dist(ref), dist(r)
    gaps = {c: q.get(c, 0.0) - p.get(c, 0.0) for c in {**p, **q}}
    c = max(gaps, key=lambda k: abs(gaps[k]))
    return 0.5 * sum(abs(g) for g in gaps.values()), f"class {c} {100 * p.get(c, 0):.1f}% → {100 * q.get(c, 0):.1f}%"


def _multiclass_preamble(reports: list[Report], ref: Report,
                         classifier_changes: Sequence[ClassifierChange], pct: int) -> list[str]:
    """The opening line of a multi-class comparison: how far the class distribution moves, what is tested."""
    shifted = [(_class_shift(r, ref), r) for r in reports if r.name != ref.name]
    if not shifted:
        return []
    (tv, what), r = max(shifted, key=lambda x: x[0][0])
    aucs = any(t.quantity.startswith(AUC_TEST) for c in classifier_changes for t in c.tests)
    plural = "s" if len(classifier_changes) != 1 else ""
    return [f"Across {len(reports)} test sets the class distribution moves by up to {100 * tv:.1f} "
            f"points (total variation; {shorten(r.name)}: {what}). The classifier is tested on its "
            f"confusion rates P(predicted | true class), which the class distribution does not move"
            + (", and on the classifier effect of its one-vs-rest ROC AUCs (observed against the "
               "reference classifier at the set's class distribution)" if aucs else "")
            + f", at the {100 - pct}% level corrected for every {'test' if aucs else 'class'} of "
            f"{len(classifier_changes)} test set{plural}."]


def _regression_preamble(ref: Report, classifier_changes: Sequence[ClassifierChange], pct: int) -> list[str]:
    """The opening line of a regression comparison: what is tested, at which level."""
    plural = "s" if len(classifier_changes) != 1 else ""
    return [f"Regression: there is no prevalence to adjust for; each error measure's difference from "
            f"{shorten(ref.name)} is tested at the {100 - pct}% level, corrected for every measure of "
            f"{len(classifier_changes)} test set{plural}."]


def _binary_preamble(reports: list[Report], ref: Report,
                     classifier_changes: Sequence[ClassifierChange], pct: int) -> list[str]:
    """The opening line of a binary comparison: the prevalences' range, what is tested."""
    prev = [r.prevalence for r in reports if r.prevalence is not None]
    if not prev:
        return []
    assert ref.prevalence is not None  # a binary task: every report has its prevalence
    plural = "s" if len(classifier_changes) != 1 else ""
    return [f"Across {len(reports)} test sets the prevalence ranges {100 * min(prev):.1f}%–"
            f"{100 * max(prev):.1f}% (reference {shorten(ref.name)}: {100 * ref.prevalence:.1f}%). "
            f"The classifier is tested on its error rates (and ROC AUC), which the prevalence does not "
            f"move, at the {100 - pct}% level corrected for {len(classifier_changes)} test set{plural}."]


def _verdict_preamble(reports: list[Report], ref: Report,
                      classifier_changes: Sequence[ClassifierChange], pct: int) -> list[str]:
    """The verdict's opening line (none or one) for the task: what moved across the sets, what is tested."""
    if ref.task in MULTICLASS_TASKS:
        return _multiclass_preamble(reports, ref, classifier_changes, pct)
    if len(reports) < 2:  # only the reference has labels: the windows' lines follow
        return []
    if ref.task == "regression":
        return _regression_preamble(ref, classifier_changes, pct)
    return _binary_preamble(reports, ref, classifier_changes, pct)


def _set_head(r: Report, ref: Report, task: str) -> str:
    """The start of a test set's line: its name and how its class mix moved (or its prevalence)."""
    if task in MULTICLASS_TASKS:
        tv, what = _class_shift(r, ref)
        return f"{shorten(r.name)} (class distribution moved {100 * tv:.1f} points; {what}): "
    if task == "regression":
        return f"{shorten(r.name)}: "
    assert r.prevalence is not None  # a binary task: every report has its prevalence
    return f"{shorten(r.name)} ({100 * r.prevalence:.1f}% prevalence): "


def _untestable_text(task: str, cc: ClassifierChange | None) -> str:
    """Why a test set's classifier (or error measures) cannot be tested."""
    return {"regression": "no error measure has an interval; nothing is tested."}.get(
        task, "no class with rows in both sets; the classifier cannot be tested on it." if cc is not None
        else "a single class; the classifier cannot be tested on it.")


def _expectation_text(own: list[Change], focus: str | None, r: Report, where: str) -> str:
    """What the reference classifier would score on the focus metric at this set's class mix, and what was observed
    ("" when the focus metric has no finite expectation)."""
    fc = next((c for c in own if c.metric == focus), None)
    if fc is None or not math.isfinite(fc.expected_value):
        return ""
    assert focus is not None  # fc is the change of the focus metric
    band = f" {fmt_interval(*fc.expected_ci)}" if fc.expected_ci is not None else ""
    return (f"the reference classifier would score {_title(r, focus)} {fmt_value(fc.expected_value)}"
            f"{band} at {where}; observed {fmt_value(fc.value)}")


def _beyond_prevalence_text(own: list[Change], r: Report, pct: int) -> str:
    """The metrics whose classifier effect moved (worse, better), or why none is named."""
    worse = [c for c in own if c.direction == "worse"]
    better = [c for c in own if c.direction == "better"]
    text = ""
    for label, group in (("worse", worse), ("better", better)):
        if group:
            text += (f" Beyond the prevalence effect, {label}: "
                     + ", ".join(f"{_title(r, c.metric)} {fmt_value(c.value)} vs "
                                 f"{fmt_value(c.expected_value)} expected" for c in group) + ".")
    if not any(c.classifier_effect_ci is not None for c in own):
        text += (" Confidence intervals are off: the metrics' classifier effects have no interval."
                 if all(c.decomposition is not None and c.decomposition.n_resamples == 0 for c in own) else
                 " The metrics' classifier effects have no interval (undefined here; see the notes).")
    elif not worse and not better:
        text += f" No metric's classifier effect has a {pct}% interval excluding 0."
    return text


def _changed_text(head: str, cc: ClassifierChange, own: list[Change], r: Report, ref: Report, task: str,
                  pct: int, expect: str) -> str:
    """A test set's line when the corrected tests reject: the tests that moved, the metrics beyond the prevalence."""
    # a test gives evidence, not a fact: the words say so, with the level they were tested at
    what_moved = (f"evidence that the {'error measures' if task == 'regression' else 'classifier'} changed "
                  f"(Holm-adjusted p ≤ {100 * cc.level:g}%)")
    moved = [t for t in cc.tests if rejects(t.pvalue_adjusted, cc.level)]
    text = head + what_moved + " — " + "; ".join(_test_text(t, ref) for t in moved) + "."
    if task != "regression":
        text += _beyond_prevalence_text(own, r, pct)
    if expect:
        text += f" ({expect}.)"
    return text


def _uncorrected_hint_text(hint: list[Change], cc: ClassifierChange, r: Report, task: str, pct: int,
                           classifier_changes: Sequence[ClassifierChange]) -> str:
    """The metrics whose interval excludes 0 with an agreeing uncorrected test, and that the corrected tests
    do not reject."""
    agree = list({t.quantity: t for c in hint for t in bearing_tests(task, c.metric, cc.tests)
                  if rejects(t.pvalue, cc.level)}.values())
    n_tests = sum(len(c.tests) for c in classifier_changes)
    return (f" Uncorrected, the {pct}% interval of the "
            f"{'difference' if task == 'regression' else 'classifier effect'} excludes 0 for "
            + ", ".join(_title(r, c.metric) for c in hint) + f" and the test{'s' * (len(agree) > 1)} of "
            + " and ".join(f"{_quantity_name(t, r)} (p = {t.pvalue:.3g})" for t in agree)
            + f" {'agree' if len(agree) > 1 else 'agrees'}; corrected for the {n_tests} tests, none "
            "rejects: the sample cannot tell.")


def _unchanged_text(head: str, cc: ClassifierChange, own: list[Change], r: Report, ref: Report, task: str,
                    pct: int, expect: str, classifier_changes: Sequence[ClassifierChange]) -> str:
    """A test set's line when no corrected test rejects: the tests, and what the sample cannot tell."""
    untested = "no significant change of any error measure" if task == "regression" else \
        "no significant change of the classifier"
    text = head + untested + " on this sample — " + "; ".join(_test_text(t, ref) for t in cc.tests) + "."
    if expect:
        text += f" {expect[0].upper()}{expect[1:]}."
    # an interval excluding 0 is named only where an uncorrected test of what the metric
    # reads agrees (p ≤ α); it is not a claim of change: the corrected tests decide that
    hint = [c for c in own if c.classifier_effect_ci is not None
            and (c.classifier_effect_ci[0] > 0 or c.classifier_effect_ci[1] < 0)
            and any(rejects(t.pvalue, cc.level) for t in bearing_tests(task, c.metric, cc.tests))]
    if hint:
        return text + _uncorrected_hint_text(hint, cc, r, task, pct, classifier_changes)
    unchanged = "the error is unchanged" if task == "regression" else "the classifier is unchanged"
    return text + f" This does not show that {unchanged}: only that this sample cannot tell."


def _target_shift_text(shift: TargetShift | None, ref: Report, level: float) -> str:
    """Whether the target's distribution moved (Kolmogorov–Smirnov), "" without a test of it."""
    if shift is None:
        return ""
    if rejects(shift.pvalue_adjusted, significance_level(level)):
        return (f" The target's distribution differs significantly from {shorten(ref.name)}'s "
                f"(Kolmogorov–Smirnov D = {shift.statistic:.3f}, adjusted p = {shift.pvalue_adjusted:.2g} "
                f"≤ {100 * significance_level(level):g}%; mean "
                f"{shift.reference_mean:.4g} → {shift.mean:.4g}).")
    return (f" The target's distribution shows no significant shift (Kolmogorov–Smirnov D = "
            f"{shift.statistic:.3f}, adjusted p = {shift.pvalue_adjusted:.2g}).")


def _set_verdict(r: Report, ref: Report, changes: list[Change], classifier_changes: Sequence[ClassifierChange],
                 level: float, shifts: Sequence[TargetShift], focus: str | None) -> str:
    """One test set's line of the verdict: its tests, the decomposition of the focus metric, the target's shift."""
    task = ref.task
    pct = int(round(100 * level))
    where = "this class distribution" if task in MULTICLASS_TASKS else "this prevalence"
    cc = next((c for c in classifier_changes if c.test_set == r.name), None)
    own = [c for c in changes if c.test_set == r.name and c.decomposition is not None]
    head = _set_head(r, ref, task)
    if cc is None or not cc.tests:
        return head + _untestable_text(task, cc)
    expect = _expectation_text(own, focus, r, where)
    if cc.changed:
        text = _changed_text(head, cc, own, r, ref, task, pct, expect)
    else:
        text = _unchanged_text(head, cc, own, r, ref, task, pct, expect, classifier_changes)
    shift = next((t for t in shifts if t.test_set == r.name), None)
    return text + _target_shift_text(shift, ref, level)


def _decomposed_verdict(reports: list[Report], ref: Report, changes: list[Change],
                        classifier_changes: Sequence[ClassifierChange], level: float,
                        shifts: Sequence[TargetShift] = ()) -> tuple[str, ...]:
    """One line per test set, from the tests and the decomposition (never more than they show)."""
    pct = int(round(100 * level))
    lines = _verdict_preamble(reports, ref, classifier_changes, pct)
    focus = next((m for m in FOCUS_METRICS if m in ref.metrics), None) if ref.task != "regression" else None
    lines += [_set_verdict(r, ref, changes, classifier_changes, level, shifts, focus)
              for r in reports if r.name != ref.name]
    return tuple(lines)


def _prevalence_range(prev: list[float]) -> str:
    """The prevalences' range in percent ("a%–b%")."""
    return f"{100 * min(prev):.1f}%–{100 * max(prev):.1f}%"


def _focus_head(reports: list[Report], focus: str, title: str, prev: list[float]) -> str:
    """The verdict's first line: the prevalences', the focus metric's and its OPS's ranges across the sets."""
    vals = [r.metrics[focus].value for r in reports]
    ops = cast(list[float], [r.metrics[focus].ops for r in reports])  # the focus has an OPS on every test set
    head = f"Across {len(reports)} test sets"
    if prev:
        head += f" the prevalence ranges {_prevalence_range(prev)};"
    return head + (f" nominal {title} ranges {fmt_value(min(vals))}–{fmt_value(max(vals))}, "
                   f"its OPS {min(ops):.3f}–{max(ops):.3f}.")


def _ops_moved_line(c: Change, reports: list[Report], ref: Report, title: str) -> str:
    """A set whose OPS interval of the focus metric lies beside the reference's, and how the nominal value moved."""
    r = next(r for r in reports if r.name == c.test_set)
    nominal = "rose" if c.value > c.reference_value else "fell"
    ops_moved = "higher" if c.direction == "better" else "lower"
    assert c.ops_ci is not None and c.reference_ops_ci is not None  # moved: the OPS intervals do not overlap
    return (
        f"{shorten(c.test_set)}: OPS({title}) is {ops_moved} — {c.ops:.3f} "
        f"[{c.ops_ci[0]:.3f}, {c.ops_ci[1]:.3f}] vs {c.reference_ops:.3f} "
        f"[{c.reference_ops_ci[0]:.3f}, {c.reference_ops_ci[1]:.3f}] in {shorten(ref.name)}, the OPS intervals do "
        f"not overlap — while nominal {title} {nominal} from {fmt_value(c.reference_value)} to {fmt_value(c.value)}"
        + (f" (prevalence {100 * r.prevalence:.1f}% vs {100 * ref.prevalence:.1f}%)."
           if r.prevalence is not None and ref.prevalence is not None else ".")
    )


def _overlap_line(same: list[Change], ref: Report, title: str) -> str:
    """The sets whose OPS intervals of the focus metric overlap the reference's, with the largest nominal move."""
    biggest = max(same, key=lambda c: abs(c.value - c.reference_value))
    return (
        f"{', '.join(shorten(c.test_set) for c in same)}: nominal {title} moved by up to "
        f"{biggest.value - biggest.reference_value:+.3f} ({shorten(biggest.test_set)}) against "
        f"{shorten(ref.name)}, but the OPS({title}) intervals overlap: no significant change on this sample."
    )


def _verdict(reports: list[Report], ref: Report, focus: str | None, changes: list[Change]) -> tuple[str, ...]:
    """The verdict without a decomposition: the ranges across the sets, and how the focus metric's OPS
    intervals lie against the reference's."""
    lines: list[str] = []
    prev = [r.prevalence for r in reports if r.prevalence is not None and math.isfinite(r.prevalence)]
    if focus is None:
        if prev:
            lines.append(f"Prevalence ranges {_prevalence_range(prev)} across the test sets.")
        lines.append("No metric has an outperformance score on every test set; compare the advantages.")
        return tuple(lines)
    title = ref.metrics[focus].title.split(" (")[0]
    lines.append(_focus_head(reports, focus, title, prev))
    focus_changes = [c for c in changes if c.metric == focus]
    moved = [c for c in focus_changes if c.direction in ("worse", "better")]
    # the OPS intervals are compared, not the classifier: OPS ranks a value among the classifiers
    # at each set's own prevalence, so it moves with π too, and "the model got worse" is not read from it
    lines += [_ops_moved_line(c, reports, ref, title) for c in moved]
    if moved:
        lines.append(f"OPS({title}) ranks each value among the classifiers at its own set's prevalence: it moves with "
                     f"the prevalence too, so this is not a test that the classifier changed.")
    same = [c for c in focus_changes if c.direction == "no significant change"]
    if same:
        lines.append(_overlap_line(same, ref, title))
    if not moved and not same and len(reports) > 1:
        lines.append(f"Confidence intervals are off: changes of OPS({title}) are not tested.")
    return tuple(lines)
