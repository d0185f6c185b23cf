"""The rows of an engine's report, fetched for its row permutation tests.

:func:`~beyondchance.report.evaluate` keeps the checked rows (``report["inputs"]``) for the
Monte Carlo permutation tests of :mod:`beyondchance.inference.permutation.rows`.  A report from an
engine (``evaluate(data=...)``, ``compare(..., y_true=...)``, the
``--by`` groups) holds instead a :class:`RowSource` (``report["row_source"]``): when a
row of the report needs that test (:func:`beyondchance.report.pvalues._from_rows`) and
the rows fit the draw budget by the rule of memory
(:func:`~beyondchance.inference.permutation.rows.permutation_draws` with the task's cost), it
fetches the columns the test needs from the still open source — one query, only those
columns, in the rows' order (:func:`beyondchance.engines.sql_rows.sql_rows`) — and checks
them with :func:`~beyondchance.engines.detect.check_inputs` as :func:`evaluate` does; the
test then runs on them as in memory, so that the p-value is memory's with the same seed
(a DuckDB relation has no row order: its rows come in their scan order).  Beyond the
budget nothing is fetched and the reason is the size limit; a regression's absolute and
pinball losses then get the permutation CLT of their loss sums from the exact histograms
of y and of the predictions (:meth:`RowSource.absolute_histograms`: a ``COUNT(DISTINCT)``
check and two ``GROUP BY`` queries); the ROC AUCs and average precisions of class probabilities the permutation CLTs
of :meth:`RowSource.auc_sums` (one rank query) and :meth:`RowSource.ap_tables` (two
queries of the bins' crosstabs and sums).
"""

from __future__ import annotations

import weakref
from typing import Any, Sequence

import numpy as np

from .._warnings import InvalidInputError

__all__ = ["RowSource"]


class RowSource:
    """The rows of one prepared source (``src``: the engine's scan, :class:`~beyondchance.engines.runner.Scan`;
    ``p``: its :class:`~beyondchance.statistics.task_statistics.TaskStatistics`), fetched on demand.

    The statistics own their row source (``p.row_source``), not the reverse: it reaches them by a
    weak reference, so that no reference cycle keeps the statistics (the score counts: three
    arrays of the rows' length) and the scan's columns alive after the report is built, until
    the garbage collector happens to run.

    >>> import weakref
    >>> class Statistics:  # a stand-in for TaskStatistics
    ...     task, n_rows = "binary-scores", 3
    >>> p = Statistics()
    >>> p.row_source = RowSource(None, p, y_true="y", y_score=["s"], y_pred=None, weight=None, labels=None)
    >>> p.row_source.p is p
    True
    >>> gone = weakref.ref(p)
    >>> del p  # freed at once, without the garbage collector: no cycle
    >>> gone() is None
    True
    """

    def __init__(self, src: Any, p: Any, *, y_true: str, y_score: Sequence[str], y_pred: str | None,
                 weight: str | None, labels: Any, score_bins: int | None = None):
        self.src, self._p = src, weakref.ref(p)
        self.y_true, self.y_score, self.y_pred = y_true, tuple(y_score), y_pred
        self.weight, self.labels = weight, labels
        self.score_bins = score_bins  # class probabilities binned by the engine (the AUC CLT's ranks too)
        self.fetched = False  # the rows were fetched (the p-values of the row tests say so)
        self.described = ""  # what the p-value method adds once they were
        self.says_where = True  # False: the rows are the caller's arrays (nothing to say about them)
        self._inputs: Any = None

    @property
    def p(self) -> Any:
        """The statistics of these rows (the TaskStatistics that holds this row source)."""
        p = self._p()
        if p is None:  # pragma: no cover - a report's tests run while its statistics exist
            raise InvalidInputError("the statistics of these rows are gone: their permutation tests run while "
                                    "the report is built")
        return p

    def fetch(self, cost: int, n_resamples: int) -> tuple[Any, str]:
        """(the checked rows — :class:`~beyondchance.engines.detect.Inputs` — or None, why not):
        None when they do not fit the draw budget of ``n_resamples`` permutations of ``cost``
        row-draws per row (:func:`~beyondchance.inference.permutation.rows.permutation_draws`)."""
        from ..inference.permutation.rows import permutation_draws

        p = self.p
        try:
            permutation_draws(p.n_rows, n_resamples, cost=cost)
        except InvalidInputError as exc:
            return None, (f"{exc}; the {self.src.engine} engine fetches the rows for this permutation test only "
                          "within that budget")
        if self._inputs is None:
            self._inputs, ordered = self._read()
            self.fetched = True
            where = "taken from the columns" if self.src.in_memory else f"fetched from {self.src.engine}"
            if self.says_where:
                self.described = f"; the {self._inputs.n} rows {where} for the permutation test"
            if not ordered:
                self.described += " (a DuckDB relation has no row order: in its scan order)"
        return self._inputs, ""

    def absolute_histograms(self) -> Any:
        """The exact histograms of a regression's targets and predictions
        (:class:`~beyondchance.inference.permutation.absolute_error.AbsoluteErrorHistograms`), for the
        permutation CLT of the absolute and pinball losses beyond the budget: of the rows read
        (the memory engine), or a ``COUNT(DISTINCT)`` check and two ``GROUP BY`` queries (DuckDB, Spark); InvalidInputError
        saying why when there are too many distinct values to bring back."""
        from ..inference.permutation.absolute_error import AbsoluteErrorHistograms

        if self._inputs is None and not self.src.in_memory:
            pred = self.y_pred if self.y_pred is not None else self.y_score[0]
            return self.src.absolute_histograms(y_true=self.y_true, y_pred=pred, weight=self.weight)
        inp = self._inputs if self._inputs is not None else self._read()[0]
        return AbsoluteErrorHistograms.of_rows(inp.target, inp.prediction, inp.weight)

    def auc_sums(self) -> Any:
        """The :class:`~beyondchance.inference.permutation.auc.PermutationAUCSums` of the class
        probabilities (the permutation CLT of the one-vs-rest AUCs, at any number of rows):
        the memory engine from its columns, DuckDB and Spark from one query of the still open
        source (:func:`~beyondchance.engines.sql_permutation.auc_rank_query`); binned as the engine's
        AUC with ``score_bins``."""
        from ..inference.permutation.auc import PermutationAUCSums
        from .sql_permutation import auc_rank_query, auc_sums_of_query

        k = len(self.y_score)
        return self._of_probabilities(
            "the AUCs",
            lambda inp: PermutationAUCSums.of_proba(inp.codes, inp.proba, inp.weight, inp.classes,
                                                    score_bins=self.score_bins),
            lambda run, rows, code, classes: auc_sums_of_query(run(auc_rank_query(rows, k, self.score_bins)), k, code,
                                                               classes))

    def ap_tables(self) -> Any:
        """The :class:`~beyondchance.inference.permutation.average_precision.PermutationAPTables` of the class
        probabilities (the joint permutation CLT of the one-vs-rest tables: the average
        precisions at any number of rows): the memory engine from its columns, DuckDB and Spark
        from one query of the still open source (:func:`~beyondchance.engines.sql_permutation.ap_query`:
        the same bins and sums as the rows in memory, so the same draws with the same seed);
        of the binned probabilities with ``score_bins``."""
        from ..inference.permutation.average_precision import PermutationAPTables
        from .sql_permutation import ap_query, ap_tables_of_query

        k = len(self.y_score)

        return self._of_probabilities(
            "the one-vs-rest tables",
            lambda inp: PermutationAPTables.of_proba(inp.codes, inp.proba, inp.weight, inp.classes,
                                                     score_bins=self.score_bins),
            lambda run, rows, code, classes: ap_tables_of_query(run(ap_query(rows, k, score_bins=self.score_bins)), k,
                                                                code, classes))

    def _of_probabilities(self, what: str, of_rows: Any, of_sql: Any) -> Any:
        """A statistic of the class probabilities: ``of_rows(inputs)`` of the memory engine's
        rows, or ``of_sql(run, rows, code, classes)`` of an SQL engine's still open source
        (``rows``: the SQL of its checked probability rows, ``code``: the classes' codes of
        an array of labels)."""
        from .sql import _probability_rows
        from .._validation import as_1d, encode_labels

        p = self.p
        if p.task != "multiclass-probabilities":
            raise InvalidInputError(f"the permutation CLT of {what} applies to class probabilities")
        if self.src.in_memory:
            return of_rows(self._inputs if self._inputs is not None else self._read()[0])
        runner = self.src.sql
        if runner is None:  # pragma: no cover - the report's tests are computed while the source is open
            raise InvalidInputError(f"the source is closed: the statistic of {what} cannot be computed")
        classes = np.asarray(p.stats.class_scores.classes if p.stats.class_scores is not None else p.classes)
        rows = _probability_rows(runner.quote, runner.relation, runner.column_kinds(), y_true=self.y_true,
                                 y_proba=list(self.y_score), weight=self.weight, normalize=False)
        return of_sql(runner.run, rows, lambda y: encode_labels(as_1d(y, "y_true"), labels=classes)[0], classes)

    def _read(self) -> tuple[Any, bool]:
        """(the checked rows, whether they came in the source's row order)."""
        from .detect import check_inputs

        p, w = self.p, [self.weight] if self.weight else []
        given = None
        if p.task == "regression":
            pred = self.y_pred if self.y_pred is not None else self.y_score[0]
            data, ordered = self.src.rows([], [self.y_true, pred, *w])
            y = data[pred]
        elif p.task == "multiclass-probabilities":
            data, ordered = self.src.rows([self.y_true], [*self.y_score, *w])
            y = np.column_stack([np.asarray(data[c], dtype=np.float64) for c in self.y_score])
        elif p.task == "binary-scores":
            given = self.y_pred if self.y_score and self.y_pred else None
            data, ordered = self.src.rows([self.y_true, *([given] if given else [])], [self.y_score[0], *w])
            y = data[self.y_score[0]]
        else:
            pred = self.y_pred if self.y_pred is not None else self.y_score[0]
            data, ordered = self.src.rows([self.y_true, pred], w)
            y = data[pred]
        if int(np.asarray(data[self.y_true]).shape[0]) != p.n_rows:  # pragma: no cover - the source changed
            raise InvalidInputError(f"the source held {p.n_rows} rows and now {len(data[self.y_true])}; "
                                    "the permutation test needs the rows of the statistics")
        inp = check_inputs(data[self.y_true], y, data[self.weight] if self.weight else None, task=p.task,
                           labels=self.labels, normalize=False, y_pred=data[given] if given else None)
        return inp, ordered
