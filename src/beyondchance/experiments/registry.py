"""The machinery every reproduced experiment shares: a registry, a run context and the
writer of its outputs (CSV of every number, figures as PNG and SVG, a markdown summary
with the paper's numbers beside ours).

An experiment is a function ``run(ctx: ExperimentContext) -> ExperimentResult``
registered under its name with :func:`register`.  It must honour ``ctx.quick`` (fewer
repetitions, under a minute), ``ctx.seed`` and ``ctx.jobs`` (via :meth:`ExperimentContext.map`)
and show progress for long loops through :meth:`ExperimentContext.track`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, Callable, Iterable, Sequence

import pandas as pd

from .._json import write_atomic
from .._warnings import InvalidInputError

__all__ = [
    "Experiment",
    "ExperimentContext",
    "ExperimentResult",
    "EXPERIMENTS",
    "register",
    "get_experiment",
    "run_experiment",
    "comparison_table",
]


@dataclass
class ExperimentContext:
    """What an experiment may use: where to write, how hard to work, how to report progress."""

    out_dir: Path
    quick: bool = False
    seed: int = 0
    jobs: int = 1
    show_progress: bool = True

    def track(self, iterable: Iterable[Any], description: str, total: int | None = None) -> Iterable[Any]:
        """Iterate with a rich progress bar (on stderr) when progress is shown."""
        if not self.show_progress:
            yield from iterable
            return
        from rich.console import Console
        from rich.progress import track

        yield from track(iterable, description=description, total=total, console=Console(stderr=True), transient=True)

    def map(self, func: Callable[[Any], Any], items: Sequence[Any], description: str = "working") -> list[Any]:
        """``[func(x) for x in items]`` on ``jobs`` worker processes (joblib), with progress."""
        if self.jobs == 1 or len(items) <= 1:
            return [func(x) for x in self.track(items, description, total=len(items))]
        from joblib import Parallel, delayed

        parallel = Parallel(n_jobs=self.jobs, return_as="generator")
        return list(self.track(parallel(delayed(func)(x) for x in items), description, total=len(items)))


@dataclass
class ExperimentResult:
    """Everything an experiment produced.

    Attributes
    ----------
    tables : name → DataFrame; each is written as ``<name>.csv``
    figures : name → matplotlib Figure; each is written as ``<name>.png`` and ``<name>.svg``
    comparison : the paper's numbers beside ours (columns ``quantity``, ``paper``,
        ``ours``, ``difference``, optionally ``tolerance`` and ``within``), written as
        ``comparison.csv`` and put in the summary
    claims : statement → bool, the paper's claims checked on our numbers
    notes : free text for the summary (substitutes, missing data, choices made)
    """

    name: str
    title: str
    tables: dict[str, pd.DataFrame] = field(default_factory=dict)
    figures: dict[str, Any] = field(default_factory=dict)
    comparison: pd.DataFrame | None = None
    claims: dict[str, bool] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    files: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    paper: str
    run: Callable[[ExperimentContext], ExperimentResult]


EXPERIMENTS: dict[str, Experiment] = {}


def register(name: str, title: str, paper: str) -> Callable[[Callable], Callable]:
    """Decorator: register ``run(ctx) -> ExperimentResult`` under ``name``."""

    def decorator(func: Callable[[ExperimentContext], ExperimentResult]) -> Callable:
        if name in EXPERIMENTS:
            raise RuntimeError(f"experiment {name!r} registered twice")
        EXPERIMENTS[name] = Experiment(name, title, paper, func)
        return func

    return decorator


def get_experiment(name: str) -> Experiment:
    try:
        return EXPERIMENTS[name]
    except KeyError:
        raise InvalidInputError(
            f"unknown experiment {name!r}; known: {', '.join(sorted(EXPERIMENTS))}"
        ) from None


def comparison_table(rows: Iterable[dict[str, Any]]) -> pd.DataFrame:
    """Rows of ``quantity``, ``paper``, ``ours`` [, ``tolerance``] → a frame with the
    difference (ours − paper) and, where a tolerance is given, whether it holds."""
    frame = pd.DataFrame(list(rows))
    if frame.empty:
        return frame
    frame["difference"] = pd.to_numeric(frame["ours"], errors="coerce") - pd.to_numeric(frame["paper"], errors="coerce")
    if "tolerance" in frame:
        frame["within"] = frame["difference"].abs() <= frame["tolerance"]
    return frame


def _markdown_table(frame: pd.DataFrame, max_rows: int = 60) -> str:
    shown = frame.head(max_rows)
    header = "| " + " | ".join(map(str, shown.columns)) + " |"
    rule = "|" + "|".join("---" for _ in shown.columns) + "|"

    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return f"{v:.4g}"
        return str(v)

    body = ["| " + " | ".join(fmt(v) for v in row) + " |" for row in shown.itertuples(index=False)]
    more = [f"\n({len(frame) - max_rows} more rows in the CSV)"] if len(frame) > max_rows else []
    return "\n".join([header, rule, *body, *more])


def run_experiment(
    name: str, out_dir: Path | str, *, quick: bool = False, random_state: int = 0, jobs: int = 1, show_progress: bool = True
) -> ExperimentResult:
    """Run one experiment from scratch and write its outputs under ``out_dir/name``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    experiment = get_experiment(name)
    target = Path(out_dir) / name
    target.mkdir(parents=True, exist_ok=True)
    ctx = ExperimentContext(target, quick=quick, seed=random_state, jobs=jobs, show_progress=show_progress)
    result = experiment.run(ctx)
    files: list[Path] = []
    for table_name, frame in result.tables.items():
        path = target / f"{table_name}.csv"
        write_atomic(path, frame.to_csv(index=False).encode("utf-8"))
        files.append(path)
    if result.comparison is not None:
        path = target / "comparison.csv"
        write_atomic(path, result.comparison.to_csv(index=False).encode("utf-8"))
        files.append(path)
    for fig_name, fig in result.figures.items():
        for ext in ("png", "svg"):
            path = target / f"{fig_name}.{ext}"
            def save(f: IO[bytes], ext: str = ext) -> None:
                fig.savefig(f, format=ext, dpi=120, bbox_inches="tight")

            write_atomic(path, save)
            files.append(path)
        plt.close(fig)
    lines = [f"# {experiment.title}", "", f"Paper: {experiment.paper}", "",
             f"Command: `beyondchance reproduce {name}{' --quick' if quick else ''} --seed {random_state}`", ""]
    if quick:
        lines += ["**Quick mode**: fewer repetitions than the paper; numbers are noisier.", ""]
    if result.notes:
        lines += ["## Notes", "", *[f"- {note}" for note in result.notes], ""]
    if result.claims:
        lines += ["## The paper's claims, checked", ""]
        lines += [f"- {'✔' if ok else '✘'} {claim}" for claim, ok in result.claims.items()] + [""]
    if result.comparison is not None and not result.comparison.empty:
        lines += ["## Paper beside ours", "", _markdown_table(result.comparison), ""]
    for table_name, frame in result.tables.items():
        lines += [f"## {table_name}", "", _markdown_table(frame), ""]
    for fig_name in result.figures:
        lines += [f"![{fig_name}]({fig_name}.png)", ""]
    summary = target / "summary.md"
    write_atomic(summary, "\n".join(lines))
    files.append(summary)
    result.files = files
    return result
