"""Reproductions of every example, figure and table of the three papers.

``beyondchance reproduce NAME`` runs one; :data:`EXPERIMENTS` lists them.  Each
module imported below registers its experiments (one module per artefact or family);
:mod:`.registry` holds the registry and imports none of them.
"""

from __future__ import annotations

from . import (  # noqa: F401  (each registers its experiments)
    ops_experiments,
    ops_figures,
    ops_tables,
    pa_examples,
    pa_figure1,
    pure_examples,
    pure_tables,
)
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
