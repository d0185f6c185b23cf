r"""The default DBT reference, precomputed and shipped with the package.

The OPS of a scoring metric at the default reference — Directed Binary Tree of depth
10, :data:`~beyondchance.outperformance.scoring.DEFAULT_MC_SAMPLES` = 114,688 curves,
seed 0 — reads sorted reference values per (quantity, prevalence grid point) (see
:mod:`.scoring`).  Those arrays are 0.9 MB each, so the package ships a *thinned* copy:
``_reference/dbt10.npy`` (one float64 array, one row per stored reference, memory-mapped
so that a call reads only its rows) with ``_reference/dbt10.json`` (what each row is)
holds, for

* the ROC AUC (one array, π-free),
* the PR AUC and the lift AUC (default estimators) at each of the 141 points of the
  logit-prevalence grid :func:`~beyondchance.outperformance.scoring.prevalence_grid`,
* the precision at recall u for the OPRC levels
  :data:`~beyondchance.outperformance.curves.DEFAULT_LEVELS` (π-free),

the sorted values at K = :data:`KNOTS` evenly spaced ranks p_0 = 0 < p_1 < … <
p_{K−1} = G − 1.  The array is rebuilt (:func:`rebuild`) by linear interpolation in the
rank between consecutive knots (the lower knot's value next to an infinite one).  Both
the rebuilt r and the full sorted s are non-decreasing and agree at every knot, so r_i
and s_i lie in the same [s_{p_j}, s_{p_{j+1}}] for p_j ≤ i < p_{j+1}, and for every
value t

.. math::

    \bigl|\#\{i: r_i < t\} - \#\{i: s_i < t\}\bigr| \le \max_j (p_{j+1} - p_j) - 1,

i.e. the OPS read from the shipped table differs from the Monte-Carlo OPS of the same
114,688 curves by at most :data:`BOUND` = 55 / 114,688 = 0.00048 (the file records the
bound and the largest difference measured when it was built;
``tests/test_reference_tables.py`` checks it against a fresh computation).  This
adds to the Monte Carlo standard error of the reference itself (≤ 0.0015) and to the
logit-prevalence interpolation error (≤ 0.0005 for pr_auc, ≤ 0.0004 for lift_auc; see
:mod:`.scoring`).

A second table, ``_reference/dbt10_lift.npy`` / ``.json``, holds the lift at the
predicted-positive rates :data:`~beyondchance.outperformance.curves.DEFAULT_LEVELS` at
each grid point (the report's OPS(lift) curve) with :data:`LIFT_KNOTS` = 257 knots: its
bound, by the same argument, is 447 / 114,688 = 0.0039 (its knots are up to 448 ranks
apart).  The tables are built by ``scripts/build_reference_tables.py`` (``--table
main`` / ``--table lift``).

Any other reference (another depth, sample count or seed, a user's sampler, the
point metrics at other levels) is drawn on first use and kept in the disk cache as
before.

>>> from beyondchance.outperformance.scoring import scoring_outperformance_score
>>> r = scoring_outperformance_score("roc_auc", 0.5, 0.1)   # read from the shipped table
>>> round(float(r.score), 2), r.mc_samples
(0.5, 114688)
"""

from __future__ import annotations

import functools
import io
import json
import os
import threading
from importlib import resources
from typing import Any

import numpy as np

__all__ = ["KNOTS", "BOUND", "TABLE_FILE", "shipped_values", "knot_positions", "thin", "rebuild"]

#: Files of the shipped tables, in the ``beyondchance.outperformance`` package: the values
#: (rows of knots) of each table and, beside it, the ``.json`` description of each row.
TABLE_FILE = "_reference/dbt10.npy"
LIFT_TABLE_FILE = "_reference/dbt10_lift.npy"
#: Knots per array of the lift table (the OPS(lift) curve's rates on the prevalence grid):
#: 257, bound 447 / 114,688 = 0.0039, the standard error of the 16,384-curve sample
#: the report drew for it before.
LIFT_KNOTS = 257
#: Number of stored ranks per reference array.
KNOTS = 2049

_lock = threading.Lock()
_table: list[dict[str, Any]] | None = None


@functools.lru_cache(maxsize=8)
def knot_positions(n: int, knots: int = KNOTS) -> np.ndarray:
    """The K evenly spaced ranks 0 = p_0 < … < p_{K−1} = n − 1 that are stored (read-only).

    >>> knot_positions(11, 3).tolist()
    [0, 5, 10]
    """
    out = np.unique(np.round(np.linspace(0, n - 1, min(knots, n))).astype(np.int64))
    out.setflags(write=False)
    return out


@functools.lru_cache(maxsize=2)
def _ranks(n: int) -> np.ndarray:
    out = np.arange(n, dtype=np.float64)
    out.setflags(write=False)
    return out


def thin(sorted_values: np.ndarray, knots: int = KNOTS) -> np.ndarray:
    """The sorted values at :func:`knot_positions` (what the table stores)."""
    return np.asarray(sorted_values, dtype=np.float64)[knot_positions(sorted_values.shape[0], knots)]


def rebuild(knot_values: np.ndarray, n: int) -> np.ndarray:
    """The n sorted values rebuilt from the knots: linear in the rank between two finite
    knots, the lower knot's value next to a non-finite one.

    >>> s = np.array([0., 1, 2, 3, 4, 5, 6, 7, 8, 9, np.inf])
    >>> rebuild(thin(s, 3), 11).tolist()
    [0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 5.0, 5.0, 5.0, 5.0, inf]
    """
    pos = knot_positions(n, knot_values.shape[0])
    finite = np.isfinite(knot_values)
    if finite.all():  # linear between every pair of knots: one interpolation
        out = np.interp(_ranks(n), pos, knot_values)
        out.setflags(write=False)
        return out
    out = np.repeat(knot_values, np.diff(np.append(pos, n)))  # the step function
    segment = np.repeat(np.arange(pos.size), np.diff(np.append(pos, n)))
    linear = np.append(finite[:-1] & finite[1:], False)[segment]
    ranks = np.flatnonzero(linear)
    out[ranks] = np.interp(ranks, pos[finite], knot_values[finite])
    out.setflags(write=False)
    return out


#: Largest difference between the table's OPS and the full reference's (G = 114,688 curves):
#: (largest knot gap − 1) / G = 55 / 114,688 = 0.00048.
BOUND = float((np.max(np.diff(knot_positions(114_688))) - 1) / 114_688)


def _load() -> dict[str, Any] | None:
    """The main table (:func:`_tables`), or None when it is not installed."""
    tables = _tables()
    return tables[0] if tables and tables[0]["file"] == TABLE_FILE else None


def _tables() -> list[dict[str, Any]]:
    """The installed tables as {"file", "meta", "values": (rows, knots) array}.  The values
    are memory-mapped where the package is a directory (a call reads only its rows),
    else read into memory."""
    global _table
    with _lock:
        if _table is None:
            _table = []
            package = resources.files(__package__)
            for name in (TABLE_FILE, LIFT_TABLE_FILE):
                try:
                    meta = json.loads(package.joinpath(name[:-4] + ".json").read_text(encoding="utf-8"))
                    target = package.joinpath(name)
                    if isinstance(target, os.PathLike):
                        values = np.load(os.fspath(target), mmap_mode="r", allow_pickle=False)
                    else:  # pragma: no cover - a zipped package
                        values = np.load(io.BytesIO(target.read_bytes()), allow_pickle=False)
                except (FileNotFoundError, OSError, ValueError, KeyError):
                    continue
                _table.append({"file": name, "meta": meta, "values": values})
        return _table


def _rows(table: dict[str, Any], entry: dict[str, Any]) -> np.ndarray:
    """The rows of one stored array (a view of the memory-mapped values)."""
    return table["values"][entry["row"]:entry["row"] + entry["rows"]]


def _matches(meta: dict[str, Any], reference_key: dict[str, Any]) -> bool:
    return all(meta["reference_key"].get(k) == v for k, v in reference_key.items()) and len(
        meta["reference_key"]) == len(reference_key)


def shipped_values(reference_key: dict[str, Any], quantity: dict[str, Any], pikey: Any) -> np.ndarray | None:
    """The sorted reference values of ``quantity`` at ``pikey`` rebuilt from the table,
    or None when the table does not hold them.

    ``reference_key`` is the cache key of the reference without quantity and prevalence
    (version, sampler, number of curves, seed, chunk size): the table answers only for
    the reference it was built from.
    """
    for table in _tables():
        if not _matches(table["meta"], reference_key):
            continue
        for entry in table["meta"]["arrays"]:
            if entry["quantity"] != quantity:
                continue
            if pikey is None and entry["grid"] is None:
                row = 0
            elif pikey is not None and pikey[0] == "grid" and entry["grid"] is not None:
                row = int(pikey[1]) - entry["grid"][0]
                if not 0 <= row < entry["rows"]:
                    return None
            else:
                continue
            return rebuild(np.asarray(_rows(table, entry)[row]), int(table["meta"]["reference_key"]["n_samples"]))
    return None
