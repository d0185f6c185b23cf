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
from ..measures.confusion import ConfusionMatrix
from ..datasets import load_keel

__all__ = ["HabermanDemo", "haberman_demo", "render_haberman_demo", "haberman_html", "run_demo", "DemoResult"]


@dataclass(frozen=True)
class ModelResult:
    """One cross-validated classifier's measures on Haberman."""

    model: str
    accuracy: float
    balanced_accuracy: float
    f1: float
    prediction_advantage: float
    pure_accuracy: float
    confusion: dict


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
    """Cross-validate five common classifiers on Haberman and score them against the BMP.

    >>> result = haberman_demo(folds=5)
    >>> round(result.majority_accuracy, 4)
    0.7353
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    data = load_keel("haberman")
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=random_state)
    results = []
    for name, model in _models().items():
        y_pred = cross_val_predict(model, data.X, data.y, cv=cv)
        cm = ConfusionMatrix.from_predictions(data.y, y_pred, labels=[0, 1], pos_label=1)
        results.append(
            ModelResult(
                model=name,
                accuracy=cm.metric("accuracy"),
                balanced_accuracy=cm.metric("balanced_accuracy"),
                f1=cm.metric("f1", zero_division=0.0),
                prediction_advantage=cm.metric("prediction_advantage"),
                pure_accuracy=cm.metric("pure_accuracy", zero_division=0.0),
                confusion={"tp": cm.tp, "fp": cm.fp, "fn": cm.fn, "tn": cm.tn},
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
    losers = [m.model for m in result.models if m.prediction_advantage <= 0]
    console.print(
        f"[bold]Verdict:[/bold] {len(losers)} of {len(result.models)} classifiers are no better "
        f"than always predicting 'survived'" + (f" ({', '.join(losers)})." if losers else ".")
    )
    from .render_terminal import _sized

    headers = ("classifier", "accuracy", "bal. acc.", "F1", "pred. adv.", "pure acc.", "beats the best constant")
    rows = [("constant (BMP)", f"{result.majority_accuracy:.4f}", "0.5000", "0.0000", "+0.0000", "+0.0000", "-")]
    styles = [None]
    for m in result.models:
        rows.append((m.model, f"{m.accuracy:.4f}", f"{m.balanced_accuracy:.4f}", f"{m.f1:.4f}",
                     f"{m.prediction_advantage:+.4f}", f"{m.pure_accuracy:+.4f}",
                     "yes" if m.prediction_advantage > 0 else "no"))
        styles.append("red" if m.prediction_advantage <= 0 else "green")
    table = Table(show_header=True, header_style="bold")
    for i, column in enumerate(headers):
        # the names are kept whole; the numeric columns' headers wrap instead (80 columns),
        # between words: no column is narrower than its longest word or its numbers
        cells = [row[i] for row in rows]
        shortest = max(len(c) for c in cells) if i == 0 else max(*(len(w) for w in column.split()), *map(len, cells))
        table.add_column(column, justify="left" if i == 0 else "right", no_wrap=i == 0, overflow="fold",
                         min_width=shortest)
    for row, style in zip(rows, styles):
        cells = list(row)
        if style is not None:
            cells[4], cells[6] = f"[{style}]{cells[4]}[/{style}]", f"[{style}]{cells[6]}[/{style}]"
        table.add_row(*cells)
    _sized(console, table, [max(len(headers[i]), *(len(row[i]) for row in rows)) for i in range(len(headers))])
    console.print(table)
    console.print(
        "prediction advantage = 1 - error / error of the best constant prediction (El-Yaniv et al.); "
        "pure accuracy = accuracy with the agreement of a random labeling at the same positive rate "
        "removed (Wang et al.). A model can beat chance agreement (pure accuracy > 0) and still "
        "lose to the constant answer (prediction advantage < 0)."
    )


def haberman_html(result: HabermanDemo) -> str:
    """The Haberman table as an HTML fragment (verdict first)."""
    e = html.escape
    losers = [m.model for m in result.models if m.prediction_advantage <= 0]
    head = (f"<p class='context'>{result.n} patients, {result.n_positive} died within five years "
            f"({result.n_positive / result.n:.2%}). Always answering 'survived' is {result.majority_accuracy:.2%} "
            f"accurate. {result.folds}-fold cross-validation, seed {result.seed}.</p>")
    verdict = (f"<div class='verdict' id='haberman-verdict'><strong>Verdict</strong><ul><li>{len(losers)} of "
               f"{len(result.models)} classifiers are no better than always predicting 'survived'"
               + (f" ({e(', '.join(losers))})" if losers else "") + ".</li></ul></div>")
    rows = ["<tr><th class='name'>classifier</th><th>accuracy</th><th>bal. acc.</th><th>F1</th>"
            "<th>pred. adv.</th><th>pure acc.</th><th>beats the constant</th></tr>",
            f"<tr><td class='name'>constant 'survived' (BMP)</td><td>{result.majority_accuracy:.4f}</td>"
            "<td>0.5000</td><td>0.0000</td><td>+0.0000</td><td>+0.0000</td><td>–</td></tr>"]
    for m in result.models:
        cls = "good" if m.prediction_advantage > 0 else "bad"
        rows.append(
            f"<tr><td class='name'>{e(m.model)}</td><td>{m.accuracy:.4f}</td><td>{m.balanced_accuracy:.4f}</td>"
            f"<td>{m.f1:.4f}</td><td class='{cls}'>{m.prediction_advantage:+.4f}</td>"
            f"<td>{m.pure_accuracy:+.4f}</td><td class='{cls}'>{'yes' if m.prediction_advantage > 0 else 'no'}</td></tr>"
        )
    return head + verdict + "<table id='haberman'>" + "".join(rows) + "</table>"


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
    from .render_terminal import _print_report

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
        from .render_html import comparison_section, page, report_section

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
