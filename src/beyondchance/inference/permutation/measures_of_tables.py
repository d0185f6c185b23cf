"""The measures of weighted tables, for a batch of B permuted or drawn data sets at once: the
binary labeling metrics of confusion cells, the multi-class labeling metrics of confusion
tables, and the score measures (AUCs, losses) of the weighted positives and negatives per
cell of decreasing score.  The row permutations of :mod:`beyondchance.inference.permutation.rows`
and the normal tables of :mod:`beyondchance.inference.permutation.clt` are measured with them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ...measures.confusion import metric_from_matrices
from ...measures.registry import get_metric
from ...measures.binary_scores import ScoreCells

__all__ = ["labeling_measures", "table_measures", "score_measures"]

#: the measures of cell weights (B, K) by decreasing score: ScoreCells.measures, which reads
#: nothing but its arguments
_cell_measures = ScoreCells(*(np.zeros(0),) * 4, {}, {}, 0, True).measures


def labeling_measures(tp: np.ndarray, fp: np.ndarray, fn: np.ndarray, tn: np.ndarray, names: Any
                      ) -> dict[str, np.ndarray]:
    """The binary labeling metrics ``names`` of (B,) weighted confusion cells."""
    out = {}
    with np.errstate(all="ignore"):
        for nm in names:
            out[nm] = np.asarray(get_metric(nm).compute(tp, fp, fn, tn), dtype=np.float64) * np.ones(np.shape(tp))
    return out


def table_measures(tables: np.ndarray, names: Any) -> dict[str, np.ndarray]:
    """The multi-class labeling metrics ``names`` of (B, true, predicted) weighted tables, as
    the report defines them (a macro average for the per-class metrics, 0/0 counting 0)."""
    out = {}
    with np.errstate(all="ignore"):
        for nm in names:
            m = get_metric(nm)
            options: dict[str, Any] = {"average": "macro", "zero_division": 0.0} if m.multiclass == "per-class" else {}
            out[nm] = np.asarray(metric_from_matrices(tables, m, **options), dtype=np.float64)
    return out


def score_measures(pos: np.ndarray, neg: np.ndarray, terms: dict[str, tuple[np.ndarray, np.ndarray]],
                   names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The score measures ``names`` of (B, K) weighted positives and negatives per cell (by
    decreasing score); ``terms``: loss -> (loss of a positive, of a negative) per cell."""
    pl = {k: pos * t[0][None] for k, t in terms.items()}
    nl = {k: neg * t[1][None] for k, t in terms.items()}
    res = _cell_measures(pos, neg, pl, nl, names)
    return {nm: res[nm] for nm in names}
