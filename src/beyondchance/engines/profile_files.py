"""The files of ``profile --by``: one statistics file per group of rows, named after the
group's value (:func:`group_paths`, :func:`group_file_parts`), checked before the first is
written (:func:`check_outputs`: never over an input, never over an existing file unless
asked), and written (:func:`save_profiles`).  The groups are split by the engine (its runner's
``split_by``: :mod:`beyondchance.engines.groups`, the memory engine's ``MemorySplit``) and profiled by
:func:`beyondchance.engines.scan.profile`."""

from __future__ import annotations

import collections
from typing import Any, Callable, Sequence

from .._warnings import InvalidInputError
from .groups import check_group_count
from .scan import profile

__all__ = ["natural_order", "save_profiles", "group_paths", "group_file_parts", "check_outputs"]


def natural_order(values: Any) -> list[int]:
    """Indices of distinct group values in their natural order: numbers numerically, dates
    chronologically (any format pandas reads), other text lexicographically."""
    import pandas as pd

    texts = [str(v) for v in values]
    keys: Any = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce")
    if keys.isna().any():
        keys = pd.to_datetime(pd.Series(texts), format="mixed", errors="coerce")
    if keys.isna().any():
        keys = pd.Series(texts)
    return sorted(range(len(texts)), key=lambda i: (keys[i], texts[i]))


#: the longest part of a file name that stands for a group's value (bytes of UTF-8)
MAX_GROUP_NAME_BYTES = 100


def group_file_parts(values: Sequence[str]) -> list[str]:
    """The part of each group's file name that stands for its value (``ref.<part>.bcstats``):
    safe, readable and distinct.  A value of letters and digits (of any script), ``.``, ``-``
    and ``_``, in Unicode's composed form (NFC) and at most 100 bytes, is its own part.  Other
    values keep those characters (the others as ``_``, cut to 100 bytes) and get ``-`` and 8
    hex digits of the SHA-256 of the value, so that two values never share a file; so do the
    values that would otherwise be the same name on a filesystem that ignores case or Unicode
    normalisation (the same after NFKC and case folding: ``A`` and ``a``).

    >>> group_file_parts(["2024-05-01", "café", "東京"])
    ['2024-05-01', 'café', '東京']
    >>> group_file_parts(["a/b", "a_b", "A", "a", "x"])
    ['a_b-c14cddc0', 'a_b', 'A-559aead0', 'a-ca978112', 'x']
    """
    named = [part if part == v else f"{part}-{_value_hash(v)}" for v, part in zip(values, map(_readable_part, values))]
    folded = collections.Counter(_folded(name) for name in named)
    parts = [name if name != v or folded[_folded(name)] == 1 else f"{name}-{_value_hash(v)}"
             for v, name in zip(values, named)]
    if len({_folded(part) for part in parts}) != len(parts):
        raise InvalidInputError("two groups give the same file name; rename the groups")
    return parts


def _readable_part(value: str) -> str:
    """``value`` in NFC with its characters other than letters, digits, ``.``, ``-``, ``_`` as
    ``_``, cut to :data:`MAX_GROUP_NAME_BYTES` bytes of UTF-8 (``_`` for nothing)."""
    import unicodedata

    part = "".join(c if c.isalnum() or c in "._-" else "_" for c in unicodedata.normalize("NFC", value))
    while len(part.encode("utf-8")) > MAX_GROUP_NAME_BYTES:
        part = part[:-1]
    return part or "_"


def _folded(name: str) -> str:
    """The name as a filesystem that ignores case and Unicode normalisation sees it."""
    import unicodedata

    return unicodedata.normalize("NFKC", name).casefold()


def _value_hash(value: str) -> str:
    """8 hex digits of the SHA-256 of ``value`` (UTF-8)."""
    import hashlib

    return hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def group_paths(out: Any, values: Sequence[str]) -> list[Any]:
    """The file of each group's statistics: ``out``'s name with the group's part
    (:func:`group_file_parts`) before its suffix.

    >>> [p.name for p in group_paths("day.bcstats", ["2024-05-01", "a b"])]
    ['day.2024-05-01.bcstats', 'day.a_b-c8687a08.bcstats']
    """
    from pathlib import Path

    out = Path(out)
    return [out.with_name(f"{out.stem}.{part}{out.suffix}") for part in group_file_parts(values)]


def check_outputs(paths: Sequence[Any], values: Sequence[str | None], *, by: str | None, inputs: Sequence[str],
                  overwrite: bool) -> None:
    """Refuse, before any file is written, to write over an input (a file of ``inputs``, through
    links too) or — for the groups' files (``values`` not None), unless ``overwrite`` — over a
    file that exists: those files were not named by the user."""
    import os

    from .files import input_of

    for path, value in zip(paths, values):
        source = input_of(path, list(inputs))
        if source is not None:
            what = "--out" if value is None else f"--by {by} = {value}:"
            raise InvalidInputError(f"{what} {path} is an input file ({source}); input files are never "
                                    "overwritten: choose another --out")
    folders = [p for p in paths if os.path.isdir(p) and not os.path.islink(p)]
    if folders:
        raise InvalidInputError(f"{folders[0]} is a folder; choose another --out")
    existing = [p for p, v in zip(paths, values) if v is not None and os.path.lexists(p)]
    if existing and not overwrite:
        more = f" (and {len(existing) - 1} more files of the groups)" if len(existing) > 1 else ""
        raise InvalidInputError(f"{existing[0]} exists{more}; give --overwrite to replace the files of the groups, "
                                "or choose another --out")


def save_profiles(files: Sequence[Any], out: Any, *, by: str | None,
                  columns: list[str], numeric: list[str], delimiter: str | None, progress: Callable[[str], None],
                  written: Callable[[Any], None], overwrite: bool = False, **options: Any) -> list[Any]:
    """The command line's ``beyondchance profile``: :func:`profile` the rows of ``files`` (one
    table) with ``options``, or each group of one file ``by`` a column, and save each to ``out``
    — a group's to ``out``'s name with its value before the suffix (``ref.bcstats`` →
    ``ref.2024-05.bcstats``; :func:`group_paths`).  No file is written over an input, nor over
    an existing file of a group unless ``overwrite`` (:func:`check_outputs`, before the first
    write).  The engine reads the files (``columns``, ``numeric``: those read by ``--by``'s
    split, :meth:`~beyondchance.engines.runner.Runner.split_by`); ``written`` is
    told each path.  The grouped bootstrap numbers each group's rows (in file order) after
    those of the groups written before it, from ``row_offset``: the files of all the groups
    merge to the statistics of the rows ordered by group."""
    from pathlib import Path

    from . import get_runner

    runner, split = get_runner(options["engine"]), None
    offset = options.pop("row_offset", 0)
    try:
        parts: list[tuple[str | None, Any]]
        if by is not None:
            progress(f"splitting {files[0]} by {by} ({runner.name})")
            split = runner.split_by(files[0], by, session=options.get("session"), delimiter=delimiter, columns=columns,
                                    numeric=numeric, label=columns[0])
            parts = []
            for g in (split.groups[i] for i in natural_order([g.value for g in split.groups])):
                if g.n_labelled < g.n_rows:
                    raise InvalidInputError(f"--by {by} = {g.value}: {g.n_rows - g.n_labelled} of {g.n_rows} rows "
                                            f"have no label in column {columns[0]!r}; profile needs every label")
                parts.append((str(g.value), split.scan(g, labelled=True, name=str(g.value))))
        else:
            parts, options = [(None, files[0] if len(files) == 1 else list(files))], {**options, "delimiter": delimiter}
        check_group_count(by, len(parts))  # an engine of one's own may split without counting first
        values = [v for v, _ in parts]
        try:
            paths = [Path(out)] if by is None else group_paths(out, values)  # type: ignore[arg-type]
        except InvalidInputError as exc:
            raise InvalidInputError(f"--by {by}: {exc}") from None
        check_outputs(paths, values, by=by, inputs=[str(f) for f in files], overwrite=overwrite)
        for (value, source), path in zip(parts, paths):
            progress("profiling" + ("" if value is None else f" {value}"))
            try:
                kept = profile(data=source, row_offset=offset, **options)
                kept.save(path)
            except InvalidInputError as exc:
                raise InvalidInputError(str(exc) if value is None else f"--by {by} = {value}: {exc}") from None
            offset += kept.n_rows
            written(path)
    finally:
        if split is not None:
            split.close()
    return paths
