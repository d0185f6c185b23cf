"""The embedded demonstration: the Haberman survival data of the PA paper (Appendix A).

306 patients, 81 of whom died within five years (26.47%).  A cross-validated
classifier reaches an accuracy in the low seventies — which sounds fine until one
notices that always answering "survived" scores 225/306 = 73.5%.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass

import numpy as np

from .confusion import ConfusionMatrix
from .datasets import load_keel

__all__ = ["HabermanDemo", "haberman_demo", "render_haberman_demo"]


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


def haberman_demo(*, folds: int = 10, seed: int = 0) -> HabermanDemo:
    """Cross-validate five common classifiers on Haberman and score them against the BMP.

    >>> result = haberman_demo(folds=5)
    >>> round(result.majority_accuracy, 4)
    0.7353
    """
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    data = load_keel("haberman")
    cv = StratifiedKFold(n_splits=folds, shuffle=True, random_state=seed)
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
        seed=seed,
        n=int(data.y.size),
        n_positive=int(data.y.sum()),
        majority_accuracy=float(1 - data.y.mean()),
        models=tuple(results),
    )


def render_haberman_demo(result: HabermanDemo) -> None:
    """Print the demo: the verdict first, then a rich table."""
    from rich.console import Console
    from rich.table import Table

    console = Console()
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
    table = Table(show_header=True, header_style="bold")
    for column in ("classifier", "accuracy", "bal. acc.", "F1", "pred. adv.", "pure acc.", "beats BMP"):
        table.add_column(column, justify="left" if column == "classifier" else "right")
    table.add_row("constant (BMP)", f"{result.majority_accuracy:.4f}", "0.5000",
                  "0.0000", "+0.0000", "+0.0000", "-")
    for m in result.models:
        style = "red" if m.prediction_advantage <= 0 else "green"
        table.add_row(m.model, f"{m.accuracy:.4f}", f"{m.balanced_accuracy:.4f}", f"{m.f1:.4f}",
                      f"[{style}]{m.prediction_advantage:+.4f}[/{style}]", f"{m.pure_accuracy:+.4f}",
                      f"[{style}]{'yes' if m.prediction_advantage > 0 else 'no'}[/{style}]")
    console.print(table)
    console.print(
        "prediction advantage = 1 - error / error of the best constant prediction (El-Yaniv et al.); "
        "pure accuracy = accuracy with the agreement of a random labeling at the same positive rate "
        "removed (Wang et al.). A model can beat chance agreement (pure accuracy > 0) and still "
        "lose to the constant answer (prediction advantage < 0)."
    )
