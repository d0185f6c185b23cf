"""The rows of a source, fetched from an SQL engine for the row permutation tests.

The Monte Carlo permutation tests of :mod:`beyondchance.inference.permutation.rows` (weighted data,
class probabilities, the absolute and pinball losses of a regression) shuffle the rows;
no aggregate gives them (beyond the budget the permutation CLTs of aggregates stand in:
:mod:`beyondchance.inference.permutation.clt`, :mod:`beyondchance.inference.permutation.loss`,
:mod:`beyondchance.inference.permutation.absolute_error`).  When the rows fit the draw budget
(:func:`~beyondchance.inference.permutation.rows.permutation_draws`, ``ROW_BUDGET`` row-draws: at
most 250,000 rows) the report fetches the columns the test needs — one query, only those
columns, typed as the engine's statistics read them (label columns as
:class:`~beyondchance.engines.sql._Cols` reads them, the others as DOUBLE) — in the
order of :attr:`Runner.row_index` (the rows' order in the files, in the DataFrame, or
in a ``--by`` group), so that the test draws the very permutations the memory report
draws with the same seed.  A source without a row order (a DuckDB relation) is fetched
in its scan order.
"""

from __future__ import annotations

from typing import Any, Sequence

import numpy as np

__all__ = ["sql_rows"]


def sql_rows(runner: Any, labels: Sequence[str], numbers: Sequence[str]) -> dict[str, np.ndarray]:
    """Column name -> the values of its rows (``labels``: label columns; ``numbers``: read
    as DOUBLE), ordered by the runner's row index when it has one."""
    from .sql import _Cols

    c = _Cols(runner.quote, runner.column_kinds())
    exprs: dict[str, str] = {}
    for name in labels:
        exprs.setdefault(name, c.label(name)[0])
    for name in numbers:
        exprs.setdefault(name, c.number(name))
    aliases = {name: f"c{i}" for i, name in enumerate(exprs)}
    order = "" if runner.row_index is None else f" ORDER BY {runner.row_index}"
    select = ", ".join(f"{e} AS {aliases[name]}" for name, e in exprs.items())
    r = runner.run(f"SELECT {select} FROM {runner.relation}{order}")
    return {name: np.asarray(r[alias]) for name, alias in aliases.items()}
