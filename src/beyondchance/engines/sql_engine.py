"""The runner of an SQL engine (:mod:`.runner`): DuckDB and Spark differ only in the session
that runs the shared SQL (:class:`~beyondchance.engines.duckdb.DuckDBRunner`,
:class:`~beyondchance.engines.spark.SparkRunner`); :class:`SQLEngine` is the rest of their
runner, :class:`SQLScan` their open source."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["SQLEngine", "SQLScan", "SQLSplit"]


class SQLScan:
    """One source and the SQL session that scans it (``connect()``: a new session over the
    same source; None for a group's rows, which are read once)."""

    in_memory = False

    def __init__(self, engine: str, connect: Any, *, name: str | None = None, runner: Any = None):
        self.engine = engine
        self.name = name
        self._connect = connect
        self._runner: Any = runner  # given: a runner over rows already read (a group of engines.groups)

    @property
    def sql(self) -> Any:
        return self._runner

    def _new_runner(self) -> Any:
        return self._connect()

    def open(self, columns: Sequence[str], numeric: Sequence[str], row_index: bool = False) -> dict[str, str]:
        if self._runner is None:
            self._runner = self._new_runner()
        has_order = getattr(self._runner, "_ordered", True)  # a DuckDB relation has no row order
        self._runner.load(list(columns), list(numeric), row_index=row_index and has_order)
        return self._runner.column_kinds()

    def statistics(self, **kwargs: Any) -> Any:
        from .._validation import InexactLabelError, inexact_label
        from .sql import BadValuesError, first_bad_label, sql_statistics

        try:
            return sql_statistics(self._runner, **kwargs)
        except InexactLabelError as exc:  # a label named as in memory: its value and row
            column = kwargs.get("y_true")
            if exc.name != "y_true" or kwargs.get("task") == "regression" or \
                    self._runner.column_kinds().get(column) != "float":
                raise
            assert column is not None  # the label named y_true

            def locate(runner: Any) -> Any:  # a second, ordered read only when the first had no row order
                runner.load([column], [], row_index=True)
                return first_bad_label(runner, column, True)

            where = self._ordered_runner(locate)
            if where is None:
                raise
            raise InvalidInputError(inexact_label("y_true", where)) from None
        except BadValuesError as exc:  # the line of memory: the column, its first bad row
            line = self._ordered_runner(lambda runner: bad_values_line(runner, exc.name, kwargs))
            if line is None and not getattr(self._runner, "_ordered", True):
                line = f"{exc}: a DuckDB relation has no row order, so no row can be named"
            if line is None:
                raise
            raise InvalidInputError(line) from None

    def _ordered_runner(self, compute: Any) -> Any:
        """``compute(runner)`` on a runner that keeps the row positions: this one, or (when the
        first read did not keep them) a second read that does; None when the rows have no order."""
        if self._runner.row_index is not None:
            return compute(self._runner)
        if not getattr(self._runner, "_ordered", True):
            return None
        runner = self._new_runner()
        try:
            return compute(runner)
        finally:
            runner.close()

    def group_totals(self, **kwargs: Any) -> Any:
        from ..inference.poisson_bootstrap import DEFAULT_GROUPS
        from .sql_replicates import sql_group_totals

        return self._ordered_runner(lambda runner: sql_group_totals(runner, groups=DEFAULT_GROUPS, **kwargs))

    def probability_statistics(self, **kwargs: Any) -> Any:
        from .sql_replicates import sql_probability_statistics

        return self._ordered_runner(lambda runner: sql_probability_statistics(runner, **kwargs))

    def unit_counts(self, *, y_true: str, y_score: str, weight: str, pos_label: Any, score_bins: int | None) -> Any:
        from .sql_replicates import sql_unit_counts

        return sql_unit_counts(self._runner, y_true=y_true, y_score=y_score, weight=weight, pos_label=pos_label,
                               score_bins=score_bins)

    def rows(self, labels: Sequence[str], numbers: Sequence[str]) -> tuple[dict[str, np.ndarray], bool]:
        from .sql_rows import sql_rows

        if self._runner is None:  # pragma: no cover - the report's rows are fetched while the source is open
            raise InvalidInputError("the source is closed: its rows cannot be fetched")
        if self._runner.row_index is None and getattr(self._runner, "_ordered", True):
            runner = self._new_runner()
            try:
                runner.load(list(dict.fromkeys([*labels, *numbers])), list(numbers), row_index=True)
                return sql_rows(runner, labels, numbers), True
            finally:
                runner.close()
        return sql_rows(self._runner, labels, numbers), self._runner.row_index is not None

    def score_histogram(self, *, y_score: str, weight: str | None) -> tuple[Any, int]:
        from .sql import sql_score_histogram

        if self._runner is None:
            self._runner = self._new_runner()
        return sql_score_histogram(self._runner, y_score=y_score, weight=weight)

    def values_outside(self, column: str, values: Sequence[Any], limit: int = 5) -> list[float]:
        from .sql import sql_values_outside

        return sql_values_outside(self._runner, column, values, limit)

    def absolute_histograms(self, *, y_true: str, y_pred: str, weight: str | None) -> Any:
        from .sql import sql_absolute_histograms

        if self._runner is None:  # pragma: no cover - the report's tests run while the source is open
            raise InvalidInputError("the source is closed: its histograms cannot be computed")
        return sql_absolute_histograms(self._runner, y_true=y_true, y_pred=y_pred, weight=weight)

    def close(self) -> None:
        if self._runner is not None:
            self._runner.close()
            self._runner = None


class SQLSplit:
    """One source split by a column inside an SQL engine (:mod:`.groups`): ``groups`` and a
    :class:`SQLScan` of each group's rows (:meth:`scan`)."""

    def __init__(self, engine: str, parent: Any, by: str, *, columns: Sequence[str], numeric: Sequence[str],
                 label: str):
        from .groups import split_by

        self.engine, self.parent = engine, parent
        self._split = split_by(parent, by, columns=columns, numeric=numeric, label=label)
        self.groups = self._split.groups

    def scan(self, group: Any, *, labelled: bool, name: str | None = None) -> SQLScan:
        return SQLScan(self.engine, None, name=name, runner=self._split.runner(group, labelled=labelled))

    def close(self) -> None:
        self.parent.close()


class SQLEngine:
    """The runner of an engine that runs the shared SQL (:mod:`.sql`) in a session of its own:
    a subclass gives its :attr:`name`, capabilities and :meth:`connect`."""

    name: str = ""
    reads_files = True
    reads_directories = True
    splits_by_column = True

    def connect(self, source: Any, *, session: Any = None, connection: Any = None,
                delimiter: str | None = None) -> Any:  # pragma: no cover - abstract
        """A new SQL runner (``load``, ``run``, ``quote``, ``relation``, ``row_index`` …) over ``source``."""
        raise NotImplementedError

    def session(self, options: Mapping[str, Any]) -> Any:
        return None

    def statistics(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                   **kwargs: Any) -> Any:
        from .sql import sql_statistics

        runner = self.connect(source, session=spark, connection=connection, delimiter=delimiter)
        try:
            return sql_statistics(runner, **kwargs)
        finally:
            runner.close()

    def group_totals(self, source: Any, *, delimiter: str | None = None, connection: Any = None, spark: Any = None,
                     **kwargs: Any) -> Any:
        from .sql_replicates import sql_group_totals

        runner = self.connect(source, session=spark, connection=connection, delimiter=delimiter)
        try:
            return sql_group_totals(runner, **kwargs)
        finally:
            runner.close()

    def open(self, source: Any, *, session: Any = None, name: str | None = None,
             delimiter: str | None = None) -> SQLScan:
        return SQLScan(self.name, lambda: self.connect(source, session=session, delimiter=delimiter), name=name)

    def scan_of(self, runner: Any, *, name: str | None = None) -> SQLScan:
        """A :class:`SQLScan` over an SQL runner already made (e.g. over a relation of one's own)."""
        return SQLScan(self.name, None, name=name, runner=runner)

    def split_by(self, source: Any, by: str, *, session: Any = None, delimiter: str | None = None,
                 columns: Sequence[str], numeric: Sequence[str], label: str) -> SQLSplit:
        parent = self.connect(source, session=session, delimiter=delimiter)
        try:
            return SQLSplit(self.name, parent, by, columns=columns, numeric=numeric, label=label)
        except BaseException:
            parent.close()
            raise


def bad_values_line(runner: Any, role: str, kwargs: dict[str, Any]) -> str | None:
    """The line memory gives for the NULL, NaN or infinite values that the scan counted in
    the column(s) of ``role`` (``y_true``, ``y_score``, ``sample_weight`` …): a missing value
    (:func:`~beyondchance._validation.missing_values`: a file's column and data row, or the
    argument and row of a data frame), else an infinity; found by one more query (on a
    runner that keeps the row order), or None when the rows have no order."""
    from .._validation import infinite_label, missing_values, non_finite_value
    from .memory import _proba_columns
    from .sql import first_bad_label, first_row, missing_or_nan, non_finite

    key = {"sample_weight": "weight", "proba": "y_proba"}.get(role, role)
    columns: list[Any] = _proba_columns(kwargs.get(key)) if key == "y_proba" else [kwargs.get(key)]
    columns = [c for c in columns if c is not None]
    if not columns:
        return None
    runner.load(columns, [], row_index=True)
    files = runner.files
    kinds = runner.column_kinds()
    label = role in ("y_true", "y_pred") and kwargs.get("task") != "regression"
    for column in columns:
        number = kinds.get(column) in ("float", "int")
        what = role if files is None else f"column {column!r} of " + (
            files[0] if len(files) == 1 else f"{len(files)} files ({files[0]}, …)")
        # a file's NaN number is not missing (memory reads it as a non-finite value), a label's or a frame's is
        hit = first_row(runner, column, missing_or_nan(number and (label or files is None)))
        if hit is not None:  # a frame's missing number is a NaN in memory (DuckDB reads pandas' NaN as NULL)
            return missing_values(what, hit[0], hit[1] + 1, "NaN" if number and files is None else None)
        if label and number:
            where = first_bad_label(runner, column, False)
            if where is not None:
                return infinite_label(role, where)
        elif number:
            hit = first_row(runner, column, non_finite)
            if hit is not None:
                return non_finite_value(what, float(hit[2]), hit[1] + 1)
    return None
