"""``beyondchance reproduce``: the click command (registered in :mod:`beyondchance.cli`)."""

from __future__ import annotations

import time
from pathlib import Path

import click

from .._summary_display import printable
from .._warnings import InvalidInputError


@click.command("reproduce")
@click.argument("names", nargs=-1)
@click.option("--list", "list_", is_flag=True, help="List the experiments and exit.")
@click.option("--all", "all_", is_flag=True, help="Run every experiment.")
@click.option("--out", "out_dir", default="reproductions", show_default=True,
              type=click.Path(file_okay=False, path_type=Path), help="Output folder.")
@click.option("--quick", is_flag=True, help="Fewer repetitions (each experiment in under a minute).")
@click.option("--seed", default=0, show_default=True, help="Random seed.")
@click.option("--jobs", default=1, show_default=True, type=click.IntRange(min=1), help="Worker processes.")
def reproduce(names: tuple[str, ...], list_: bool, all_: bool, out_dir: Path, quick: bool, seed: int, jobs: int) -> None:
    """Re-run an experiment of the papers from scratch: CSV of every number,
    figures as PNG and SVG, and a summary with the paper's numbers beside ours.

    \b
    Examples:
      beyondchance reproduce --list
      beyondchance reproduce pa-exam --out results
      beyondchance reproduce pure-tables --jobs 2
      beyondchance reproduce --all --quick
    """
    from . import EXPERIMENTS, run_experiment

    if list_:
        for name in sorted(EXPERIMENTS):
            e = EXPERIMENTS[name]
            click.echo(f"{name:<20} {e.title}  [{e.paper}]")
        return
    if all_:
        names = tuple(sorted(EXPERIMENTS))
    if not names:
        raise InvalidInputError("name an experiment (see `beyondchance reproduce --list`) or pass --all")
    for name in names:
        if name not in EXPERIMENTS:
            raise InvalidInputError(f"unknown experiment {name!r}; known: {', '.join(sorted(EXPERIMENTS))}")
    for name in names:
        start = time.perf_counter()
        result = run_experiment(name, out_dir, quick=quick, random_state=seed, jobs=jobs)
        failed = [claim for claim, ok in result.claims.items() if not ok]
        status = "all claims hold" if not failed else f"{len(failed)} claim(s) do not hold"
        click.echo(f"{name}: {len(result.files)} files in {printable(out_dir / name)} "
                   f"({time.perf_counter() - start:.1f} s; {status})")
