"""One source split by the values of a column, inside the engine (``compare --by COL``).

The rows are read once (:meth:`load` of the engine's runner, keeping their file order),
their distinct values of the by-column counted (one ``COUNT(DISTINCT)``: more than
:data:`MAX_GROUPS` is refused before any numbering, as an ID column would be), and one
query numbers them: the group of each row (``DENSE_RANK`` of the by-column)
and its position in its group (``ROW_NUMBER`` in file order, from 0).  That table stays
in the engine (a DuckDB temporary table, a checkpointed Spark DataFrame); a
``GROUP BY`` of it gives each group's value, rows and labelled rows, and each group is a
runner over its own rows, whose row index is its position in the group — so the grouped
bootstrap of a group draws the replicates that the memory engine draws for the group's
rows alone, and every statistic of :mod:`.sql` runs unchanged on it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["Group", "GroupSplit", "split_by", "MAX_GROUPS", "check_group_count"]

#: the most groups of ``--by`` (``compare --by``: test sets; ``profile --by``: statistics files)
MAX_GROUPS = 200

#: the columns of the numbered table: the group number and the row's position in its group
_GROUP, _ROW = "__bc_group", "__bc_group_row"


@dataclass(frozen=True)
class Group:
    """One value of the by-column: its value (a Python scalar), rows, rows with a label."""

    value: Any
    n_rows: int
    n_labelled: int
    index: int


class GroupSplit:
    """The groups of a runner's rows (see the module docstring); :meth:`runner` gives one
    group's runner, with or without the label column."""

    def __init__(self, runner: Any, by: str, columns: Sequence[str], numeric: Sequence[str], label: str):
        self.parent, self.label = runner, label
        q = runner.quote
        self.columns = list(dict.fromkeys(columns))  # ``by`` is none of them (spec.check_column_roles)
        runner.load([*self.columns, by], list(numeric), row_index=True)
        check_group_count(by, count_distinct(runner, by))
        cols = ", ".join(q(c) for c in self.columns)
        numbered = (f"SELECT {cols}, {q(by)} AS __bc_by, DENSE_RANK() OVER (ORDER BY {q(by)}) - 1 AS {q(_GROUP)}, "
                    f"ROW_NUMBER() OVER (PARTITION BY {q(by)} ORDER BY {runner.row_index}) - 1 AS {q(_ROW)} "
                    f"FROM {runner.relation}")
        self.table = runner.materialize(numbered)
        r = runner.run(f"SELECT {q(_GROUP)} AS g, MIN(__bc_by) AS v, COUNT(*) AS n, COUNT({q(label)}) AS n_labelled, "
                       f"COUNT(__bc_by) AS n_valued FROM {self.table} GROUP BY {q(_GROUP)}")
        if int(np.sum(r["n"])) != int(np.sum(r["n_valued"])):
            missing = int(np.sum(r["n"]) - np.sum(r["n_valued"]))
            raise InvalidInputError(f"--by {by}: {missing} rows have no value in column {by!r}; every row needs one")
        order = np.argsort(np.asarray(r["g"], dtype=np.int64))
        self.groups = [Group(_scalar(r["v"][i]), int(r["n"][i]), int(r["n_labelled"][i]), int(r["g"][i]))
                       for i in order]

    def runner(self, group: Group, *, labelled: bool) -> Any:
        """A runner over ``group``'s rows (without the label column when not ``labelled``)."""
        q = self.parent.quote
        cols = [c for c in self.columns if labelled or c != self.label]
        sql = (f"SELECT {', '.join(q(c) for c in cols)}, {q(_ROW)} FROM {self.table} "
               f"WHERE {q(_GROUP)} = {int(group.index)}")
        return self.parent.rows_of(sql, cols, q(_ROW))


def check_group_count(by: str | None, n_groups: int) -> None:
    """Refuse ``--by by`` with more than :data:`MAX_GROUPS` distinct values (the one message of
    ``compare --by`` and ``profile --by`` on every engine)."""
    if n_groups > MAX_GROUPS:
        raise InvalidInputError(f"--by {by} has {n_groups} distinct values; at most {MAX_GROUPS} groups (one test "
                                "set or statistics file each)")


def count_distinct(runner: Any, column: str) -> int:
    """The number of distinct values of ``column`` in a loaded SQL runner's rows (missing values
    not counted): one aggregation, before any per-group work."""
    r = runner.run(f"SELECT COUNT(DISTINCT {runner.quote(column)}) AS n FROM {runner.relation}")
    return int(r["n"][0])


def _scalar(value: Any) -> Any:
    """A numpy value as the Python scalar the memory engine's ``np.unique(...).item()`` gives."""
    return value.item() if hasattr(value, "item") else value


def split_by(runner: Any, by: str, *, columns: Sequence[str], numeric: Sequence[str], label: str) -> GroupSplit:
    """:class:`GroupSplit` of ``runner``'s rows by column ``by`` (``label``: the label column,
    counted per group; ``columns``: the columns every group keeps)."""
    return GroupSplit(runner, by, columns, numeric, label)
