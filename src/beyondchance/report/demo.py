"""The embedded demonstration (``beyondchance demo``), on bundled real data.

1. The Haberman survival data of the PA paper (Appendix A): 306 patients, 81 of whom
   died within five years (26.47%).  A cross-validated classifier reaches an accuracy
   in the low seventies — which sounds fine until one notices that always answering
   "survived" scores 225/306 = 73.5%.
2. A scored data set with a real model: a logistic regression for credit default on
   ISLR's ``Default`` data, evaluated on its held-out half (the full report with the
   curves), and monitored over six months of rising prevalence with one month of real
   degradation (:mod:`beyondchance.report.example`).

:func:`run_demo` prints all three to the terminal and writes one self-contained HTML
page.
"""

from __future__ import annotations

import html
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Callable

from .._json import write_atomic
from ..datasets import load_keel
from ..inference.bootstrap import bootstrap_ci
from ..inference.significance import beats_by_interval
from ..measures.confusion import ConfusionMatrix
from .formatting import fmt_interval

__all__ = ["HabermanDemo", "haberman_demo", "haberman_verdict", "render_haberman_demo", "haberman_html", "run_demo",
           "DemoResult"]


#: the level and resamples of the interval of each classifier's prediction advantage
CONFIDENCE_LEVEL, N_RESAMPLES = 0.95, 2000


@dataclass(frozen=True)
class ModelResult:
    """One cross-validated classifier's measures on Haberman.

    ``prediction_advantage_ci``: its BCa bootstrap interval (``CONFIDENCE_LEVEL``,
    ``N_RESAMPLES``, the majority class re-estimated in every resample);
    ``beats_constant``: what the interval shows, ``"yes"`` (it lies above 0), ``"no"`` (it
    lies at or below 0) or ``"unclear"`` (it includes 0), by
    :func:`~beyondchance.inference.significance.beats_by_interval`."""

    model: str
    accuracy: float
    balanced_accuracy: float
    f1: float
    prediction_advantage: float
    pure_accuracy: float
    confusion: dict
    prediction_advantage_ci: tuple[float, float] = (float("nan"), float("nan"))
    beats_constant: str = "unclear"


@dataclass(frozen=True)
class HabermanDemo:
    """Cross-validated classifiers on Haberman and the trivial baseline."""

    folds: int
    seed: int
    n: int
    n_positive: int
    majority_accuracy: float
    models: tuple[ModelResult, ...]

    def to_dict(self) -> dict:
        return asdict(self)


def _models() -> dict:
    from sklearn.ensemble import RandomForestClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.naive_bayes import GaussianNB
    from sklearn.neighbors import KNeighborsClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC

    return {
        "logistic reg.": make_pipeline(StandardScaler(), LogisticRegression()),
        "RBF SVM": make_pipeline(StandardScaler(), SVC()),
        "naive Bayes": GaussianNB(),
        "5-NN": make_pipeline(StandardScaler(), KNeighborsClassifier()),
        "random forest": RandomForestClassifier(n_estimators=100, random_state=0),
    }


def haberman_demo(*, folds: int = 10, random_state: int = 0) -> HabermanDemo:
    """Cross-validate five common classifiers on Haberman and score them against the best
    constant prediction (always the majority class, 'survived'); each classifier's prediction
    advantage with its interval, which says whether it beats the constant.

    >>> result = haberman_demo(folds=5)
    >>> round(result.majority_accuracy, 4)
    0.7353
    >>> m = result.models[0]                 # its PA interval includes 0: unclear
    >>> m.model, m.beats_constant, m.prediction_advantage_ci[0] < 0 < m.prediction_advantage_ci[1]
    ('logistic reg.', 'unclear', True)
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    data = load_keel("haberman")
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=random_state)
    results = []
    for name, model in _models().items():
        y_pred = cross_val_predict(model, data.X, data.y, cv=cv)
        cm = ConfusionMatrix.from_predictions(data.y, y_pred, labels=[0, 1], pos_label=1)
        boot = bootstrap_ci("prediction_advantage", data.y, y_pred, n_resamples=N_RESAMPLES,
                            confidence_level=CONFIDENCE_LEVEL, random_state=random_state)
        results.append(
            ModelResult(
                model=name,
                accuracy=cm.metric("accuracy"),
                balanced_accuracy=cm.metric("balanced_accuracy"),
                f1=cm.metric("f1", zero_division=0.0),
                prediction_advantage=cm.metric("prediction_advantage"),
                pure_accuracy=cm.metric("pure_accuracy", zero_division=0.0),
                confusion={"tp": cm.tp, "fp": cm.fp, "fn": cm.fn, "tn": cm.tn},
                prediction_advantage_ci=(float(boot.low), float(boot.high)),
                beats_constant=beats_by_interval(boot.low, boot.high),
            )
        )
    return HabermanDemo(
        folds=folds,
        seed=random_state,
        n=int(data.y.size),
        n_positive=int(data.y.sum()),
        majority_accuracy=float(1 - data.y.mean()),
        models=tuple(results),
    )


#: the words of the "beats the best constant" column, as its legend explains them
_BEATS_WORDS = {"yes": "its interval lies above 0", "no": "its interval lies at or below 0",
                "unclear": "its interval includes 0"}
_BEATS_STYLES = {"yes": "green", "no": "red", "unclear": "none"}
_BEATS_CLASSES = {"yes": "good", "no": "bad", "unclear": "neutral"}


def _constant_row(result: HabermanDemo) -> tuple[str, ...]:
    """The best constant prediction's row: always 'survived' (the majority class)."""
    return ("always 'survived'", f"{result.majority_accuracy:.4f}", "0.5000", "0.0000", "+0.0000", "–", "+0.0000",
            "–")


def _model_row(m: ModelResult) -> tuple[str, ...]:
    return (m.model, f"{m.accuracy:.4f}", f"{m.balanced_accuracy:.4f}", f"{m.f1:.4f}",
            f"{m.prediction_advantage:+.4f}", fmt_interval(*m.prediction_advantage_ci, lambda x: f"{x:.3f}"),
            f"{m.pure_accuracy:+.4f}", m.beats_constant)


#: the columns' headers; the interval's (5) stands under the prediction advantage's (4) in the terminal
_HEADERS = ("classifier", "accuracy", "bal. acc.", "F1", "pred. adv.", f"{int(round(100 * CONFIDENCE_LEVEL))}% CI",
            "pure acc.", "beats the best constant")


def haberman_verdict(result: HabermanDemo) -> str:
    """The demo's verdict, read from the intervals of the prediction advantage: how many
    classifiers beat always predicting 'survived', how many do not, and how many are unclear."""
    level = int(round(100 * CONFIDENCE_LEVEL))
    by = {w: [m.model for m in result.models if m.beats_constant == w] for w in ("yes", "unclear", "no")}
    n = len(result.models)
    parts = [f"{len(by['yes'])} of {n} classifiers beat always predicting 'survived'"
             + (f" ({', '.join(by['yes'])})" if by["yes"] else "")]
    if by["unclear"]:
        parts.append(f"{len(by['unclear'])} unclear, the interval includes 0 ({', '.join(by['unclear'])})")
    if by["no"]:
        parts.append(f"{len(by['no'])} {'does' if len(by['no']) == 1 else 'do'} not, the interval lies at or below 0 "
                     f"({', '.join(by['no'])})")
    return "; ".join(parts) + f" — by the {level}% interval of the prediction advantage."


def _legend() -> str:
    level = int(round(100 * CONFIDENCE_LEVEL))
    return ("always 'survived' = the best constant prediction (the majority class); bal. acc. = balanced "
            "accuracy; F1 = the harmonic mean of precision and recall; pred. adv. = prediction advantage = "
            "1 - error / error of the best constant prediction (El-Yaniv et al.); "
            f"{level}% CI = its {level}% confidence interval (bootstrap, bias-corrected and accelerated, "
            f"{N_RESAMPLES} resamples, the majority class re-estimated in each); beats the best constant: "
            + ", ".join(f"{w} ({text})" for w, text in _BEATS_WORDS.items())
            + "; pure acc. = pure accuracy, accuracy with the agreement of a random labeling at the same positive "
            "rate removed (Wang et al.). A model can beat chance agreement (pure accuracy > 0) and still "
            "lose to the constant answer (prediction advantage < 0).")


def render_haberman_demo(result: HabermanDemo, *, console: Any = None) -> None:
    """Print the demo: the verdict first, then a rich table."""
    from rich.console import Console
    from rich.table import Table

    console = console or Console()
    console.print(
        f"[bold]Haberman survival[/bold]: {result.n} patients, {result.n_positive} died within "
        f"five years ({result.n_positive / result.n:.2%}). Always answering 'survived' is "
        f"{result.majority_accuracy:.2%} accurate. {result.folds}-fold cross-validation, seed {result.seed}."
    )
    console.print(f"[bold]Verdict:[/bold] {haberman_verdict(result)}", highlight=False)
    from .render.terminal import _sized

    from rich import box

    # the light style of the report's tables (two cells between columns), the interval under
    # the prediction advantage and the constant's name on two lines: the table fits 80 columns
    merge = lambda row: (*row[:4], f"{row[4]}\n{row[5]}", *row[6:])  # noqa: E731
    headers = merge(_HEADERS)
    constant = merge(_constant_row(result))
    rows = [(constant[0].replace(" ", "\n"), *constant[1:])] + [merge(_model_row(m)) for m in result.models]
    styles = [None] + [_BEATS_STYLES[m.beats_constant] for m in result.models]
    table = Table(show_header=True, header_style="bold", box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False,
                  collapse_padding=True)
    for i, column in enumerate(headers):
        # the names are kept whole; the numeric columns' headers wrap instead (80 columns),
        # between words: no column is narrower than its longest word or its numbers
        cells = [row[i] for row in rows]
        lines = [x for c in cells for x in c.split("\n")]
        shortest = max(map(len, lines)) if i == 0 else max(*(len(w) for w in column.split()), *map(len, lines))
        table.add_column(column, justify="left" if i == 0 else "right", no_wrap=i == 0, overflow="fold",
                         min_width=shortest)
    for row, style in zip(rows, styles):
        cells = list(row)
        if style is not None:
            for j in (4, 6):
                cells[j] = f"[{style}]{cells[j]}[/{style}]"
        table.add_row(*cells)
    _sized(console, table, [max(len(x) for row in [headers, *rows] for x in row[i].split("\n"))
                            for i in range(len(headers))])
    console.print(table)
    console.print(_legend(), highlight=False)


def haberman_html(result: HabermanDemo) -> str:
    """The Haberman table as an HTML fragment (verdict first)."""
    e = html.escape
    head = (f"<p class='context'>{result.n} patients, {result.n_positive} died within five years "
            f"({result.n_positive / result.n:.2%}). Always answering 'survived' is {result.majority_accuracy:.2%} "
            f"accurate. {result.folds}-fold cross-validation, seed {result.seed}.</p>")
    verdict = (f"<div class='verdict' id='haberman-verdict'><strong>Verdict</strong><ul><li>"
               f"{e(haberman_verdict(result))}</li></ul></div>")
    rows = ["<tr><th class='name'>classifier</th>" + "".join(f"<th>{e(h)}</th>" for h in _HEADERS[1:])
            + "</tr>",
            "<tr><td class='name'>" + "</td><td>".join(e(c) for c in _constant_row(result)) + "</td></tr>"]
    for m in result.models:
        cls = _BEATS_CLASSES[m.beats_constant]
        cells = [f"<td class='name'>{e(c)}</td>" if j == 0 else
                 f"<td class='{cls}'>{e(c)}</td>" if j in (4, 5, 7) else f"<td>{e(c)}</td>"
                 for j, c in enumerate(_model_row(m))]
        rows.append(f"<tr data-model='{e(m.model)}'>" + "".join(cells) + "</tr>")
    return (head + verdict + "<table id='haberman'>" + "".join(rows) + "</table>"
            f"<p class='legend'>{e(_legend())}</p>")


@dataclass(frozen=True, eq=False)
class DemoResult:
    """Everything the demo computed, and where the HTML page went."""

    haberman: HabermanDemo
    report: Any
    comparison: Any
    html_path: Path | None


def run_demo(
    *, folds: int = 10, random_state: int = 0, out: str | Path | None = "beyondchance-demo.html",
    progress: Callable[[str], None] | None = None, console: Any = None,
    mc_samples: int | None = None,
) -> DemoResult:
    """Run the demo: print the three parts and write the HTML report to ``out``."""
    from rich.console import Console

    from .compare import compare
    from .evaluate import evaluate
    from .example import credit_default_example, scored_holdout
    from .render.terminal import _print_report

    step = progress or (lambda message: None)
    console = console or Console()
    step("cross-validating five classifiers on Haberman")
    hab = haberman_demo(folds=folds, random_state=random_state)
    render_haberman_demo(hab, console=console)
    console.print()

    step("scoring the credit-default hold-out set")
    holdout = scored_holdout(random_state=random_state)
    rep = evaluate(holdout["default"].to_numpy(), holdout["score"].to_numpy(), random_state=random_state,
                   name="ISLR Default, held-out half", progress=step, mc_samples=mc_samples)
    console.rule("[bold]A credit-default model on its held-out half (ISLR Default)")
    # the details are on the HTML page (or in Python: result.report.details())
    _print_report(console, rep, hint="the HTML report" if out is not None else "result.report.details()")
    console.print()

    step("drawing six months of test sets")
    frame = credit_default_example(random_state=random_state)
    sets = {m: (g["default"].to_numpy(), g["score"].to_numpy()) for m, g in frame.groupby("month", sort=True)}
    comp = compare(sets, random_state=random_state, progress=step, mc_samples=mc_samples)
    console.rule("[bold]The same model over six months: prevalence 3% → 30%, one month degraded")
    console.print("[bold]Verdict[/bold]")
    for line in comp.verdict:
        console.print(f"  • {line}", highlight=False)

    path = None
    if out is not None:
        from .render.html import comparison_section, page, report_section

        step("writing the HTML report")
        body = (
            "<h2>1. Haberman survival: accuracy that is no better than a constant</h2>"
            + haberman_html(hab)
            + "<h2>2. A credit-default model on its held-out half</h2>"
            + report_section(rep, progress=step)
            + "<h2>3. The same model over six months: prevalence rises, OPS tells when the model changed</h2>"
            + comparison_section(comp)
        )
        path = Path(out)
        write_atomic(path, page("beyondchance demo", body,
                                subtitle="Is this predictor better than the trivial one, and by how much?"))
        from rich.markup import escape

        from .._summary_display import printable

        console.print()
        shown = escape(printable(path.resolve()))  # the user's file name: literal text
        console.print(f"[bold]HTML report written to {shown}[/bold] (open it in a browser; "
                      "it needs no network access).", highlight=False)
    return DemoResult(hab, rep, comp, path)
