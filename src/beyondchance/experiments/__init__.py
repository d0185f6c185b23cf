"""Reproductions of every example, figure and table of the three papers.

``beyondchance reproduce NAME`` runs one; :data:`EXPERIMENTS` lists them.  Each
module below registers its experiments on import.
"""

from __future__ import annotations

import importlib

from .registry import (
    EXPERIMENTS,
    Experiment,
    ExperimentContext,
    ExperimentResult,
    comparison_table,
    get_experiment,
    register,
    run_experiment,
)

__all__ = [
    "EXPERIMENTS",
    "Experiment",
    "ExperimentContext",
    "ExperimentResult",
    "comparison_table",
    "get_experiment",
    "register",
    "run_experiment",
]

#: modules registering experiments (one module per artefact or family)
_MODULES: tuple[str, ...] = ("ops_figures", "ops_experiments", "ops_tables", "pa_examples", "pa_figure1", "pure_examples", "pure_tables")


def _load_all() -> None:
    for module in _MODULES:
        importlib.import_module(f"{__name__}.{module}")
