r"""The statistics file: a report's :class:`~beyondchance.statistics.task_statistics.TaskStatistics`
kept on disk (:func:`write_file`, by ``TaskStatistics.save``), read back safely (:func:`read_file`,
by :func:`~beyondchance.read_statistics`).

A new module because no other fits: it is the one reader of files that may come from
anyone, so it holds the format, its limits and its refusals in one place (the format is
described, with its schema table, in ``docs/statistics-file.md``).

The file is UTF-8 JSON, data only (never pickle), strict (no ``NaN`` tokens)::

    {"format": "beyondchance-statistics", "schema_version": 2, "library_version": "…",
     "created": "2026-11-27T09:00:00Z", "metadata": {…}, "statistics": {…}, "sha256": "…"}

``sha256`` is the SHA-256 of the canonical JSON (keys sorted, no spaces, ASCII) of the
document without it.  ``statistics`` is the ``TaskStatistics``, each statistic an object
``{"$type": name, "fields": {…}}`` of a closed list of types (:data:`TYPES`), built back by
its own constructor (whose checks run); its values are JSON numbers (Python's shortest
round-trip ``repr`` of a float64: exact), strings, booleans, null, and the tagged values

=============  ============================================================
``$array``     ``{"dtype", "shape", "data"}``: the little-endian bytes of a numeric
               or boolean array in base64; ``{"dtype", "shape", "items"}``: an array
               of labels (``object`` or ``<U…``), one JSON value per item
``$float``     ``"nan"``, ``"inf"`` or ``"-inf"``
``$tuple``     a list read back as a tuple
``$dict``      a list of ``[key, value]`` pairs (keys of any JSON type, in order)
=============  ============================================================

Reading is bounded, each bound checked before the memory it guards is taken: a regular file
(a FIFO or a device is refused unopened, never waited on), at most :data:`MAX_FILE_BYTES`
bytes, at most :data:`MAX_VALUES` JSON values (counted before parsing), :data:`MAX_DEPTH`
levels of nesting, keys given once, at most :data:`~beyondchance._validation.MAX_CLASSES`
classes, arrays whose bytes match their shape and whose declared memory (shape × item size,
``U<n>`` of ASCII digits) the file's size justifies (:func:`size_refusal`, the rule
:func:`write_file` applies too, before writing).  A file that is not ours, truncated, changed
after it was written (the checksum) or written by a newer schema is one
:class:`~beyondchance.InvalidInputError` line.
Files of an older schema are read through :data:`UPGRADES`: schema 2 added ``GroupTotals.rows``
(the row positions the grouped bootstrap's sums number), which a schema-1 file's sums lack:
they number the file's rows 0 … n−1 (the field's default, ``None``, says so).

>>> import tempfile, os
>>> from beyondchance.statistics import LabelCounts
>>> path = write_file(LabelCounts(np.array(["a", "b"]), np.array([3.0, 0.1])), {}, os.path.join(tempfile.mkdtemp(), "c"))
>>> back = read_file(path, LabelCounts, lambda counts: None)
>>> back.labels.tolist(), back.counts.tolist()
(['a', 'b'], [3.0, 0.1])
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
import math
import os
import re
import stat
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from .._json import write_atomic
from .._version import __version__
from .._warnings import InvalidInputError
from ..inference.permutation.clt import PermutationCells
from ..inference.permutation.loss import PermutationLossSums
from ..inference.permutation.rows import SquaredErrorSums
from ..inference.poisson_bootstrap import GroupTotals
from ..measures.confusion import ConfusionMatrix
from ..measures.threshold_counts import ThresholdCounts
from .labels import LabelCounts
from .scores import BinnedScoreCounts, ClassScoreCounts
from .sufficient import SufficientStatistics
from .values import LossSums, Moments, ValueHistogram

__all__ = ["write_file", "read_file", "saved_form", "is_statistics_file", "size_refusal", "encoded_bytes", "FORMAT",
           "SCHEMA_VERSION", "MAX_FILE_BYTES", "MAX_DEPTH", "MAX_VALUES", "TYPES"]

#: the value of the file's ``"format"`` key
FORMAT = "beyondchance-statistics"
#: the schema this version writes (and the newest it reads)
SCHEMA_VERSION = 2
#: the largest file read (1 GiB: some ten million distinct scores)
MAX_FILE_BYTES = 1 << 30
#: the deepest nesting of JSON values read
MAX_DEPTH = 64
#: the most JSON values (numbers, strings, lists, objects) a file may hold: a genuine file holds a
#: few per class label and per field (its arrays of numbers are one base64 string each); parsed,
#: each costs some 60–200 bytes, so this bounds the parse to some 400 MB whatever the file's size
MAX_VALUES = 2_000_000
#: the largest product of the non-zero dimensions of an array read
MAX_DIMENSION = 1 << 31
#: the memory the arrays of a file may declare (shape × item size, summed) beyond twice its size
ARRAY_ALLOWANCE = 256 << 20
#: the statistics a file may hold, by name, besides its top object's type (nothing else is ever
#: built from a file)
TYPES: dict[str, type] = {t.__name__: t for t in (
    SufficientStatistics, ThresholdCounts, BinnedScoreCounts, ClassScoreCounts, ConfusionMatrix,
    LabelCounts, LossSums, Moments, ValueHistogram, PermutationCells, PermutationLossSums, SquaredErrorSums,
    GroupTotals,
)}
#: schema version -> the function turning a statistics payload of that version into one of the next
#: (1 -> 2: nothing to change; GroupTotals without ``rows`` take its default, rows 0 … n−1)
UPGRADES: dict[int, Callable[[dict], dict]] = {1: lambda payload: payload}
_NUMERIC = {"bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float32", "float64"}
_MAX_TEXT_ITEM = 1 << 20  # the longest <U dtype read (characters)
_TEXT_DTYPE = re.compile(r"U[1-9][0-9]{0,6}")  # ASCII digits only: U٣ is no dtype
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"')  # a JSON string, escapes included
_BOM = b"\xef\xbb\xbf"


# =====================================================================================
# writing
# =====================================================================================


def _encode(x: Any, where: str, types: dict[str, type] = TYPES) -> Any:
    """``x`` as JSON values (the tags of the module docstring); the dataclasses of ``types`` as
    ``{"$type", "fields"}`` without their fields marked ``metadata={"saved": False}``."""
    if x is None or isinstance(x, (bool, str)):
        return x
    if isinstance(x, np.generic):
        return _encode(x.item(), where, types)
    if isinstance(x, int):
        return x
    if isinstance(x, float):
        return x if math.isfinite(x) else {"$float": "nan" if math.isnan(x) else ("inf" if x > 0 else "-inf")}
    if isinstance(x, np.ndarray):
        return {"$array": _encode_array(x, where)}
    if isinstance(x, tuple):
        return {"$tuple": [_encode(v, where, types) for v in x]}
    if isinstance(x, list):
        return [_encode(v, where, types) for v in x]
    if isinstance(x, dict):
        return {"$dict": [[_encode(k, where, types), _encode(v, f"{where}[{k!r}]", types)] for k, v in x.items()]}
    if dataclasses.is_dataclass(x) and types.get(type(x).__name__) is type(x):
        fields = {f.name: _encode(getattr(x, f.name), f"{where}.{f.name}", types) for f in dataclasses.fields(x)
                  if f.init and f.metadata.get("saved", True)}
        return {"$type": type(x).__name__, "fields": fields}
    if callable(x):
        raise InvalidInputError(f"cannot save {where}: it is computed from the rows in memory (statistics of a "
                                "report on arrays); make the statistics with beyondchance.profile")
    raise InvalidInputError(f"cannot save {where}: {type(x).__name__} is not a type of the statistics file")


def _encode_array(a: np.ndarray, where: str) -> dict[str, Any]:
    shape = list(a.shape)
    if a.dtype.name in _NUMERIC:
        data = np.ascontiguousarray(a, dtype=a.dtype.newbyteorder("<")).tobytes()
        return {"dtype": a.dtype.name, "shape": shape, "data": base64.b64encode(data).decode("ascii")}
    if a.dtype.kind in ("U", "O"):
        dtype = "object" if a.dtype.kind == "O" else a.dtype.str.lstrip("<>=|")
        items = [_encode(v, where) for v in a.ravel().tolist()]
        for v in items:
            if isinstance(v, (dict, list)) and "$float" not in (v if isinstance(v, dict) else {}):
                raise InvalidInputError(f"cannot save {where}: its labels must be numbers, strings or booleans")
        return {"dtype": dtype, "shape": shape, "items": items}
    raise InvalidInputError(f"cannot save {where}: arrays of dtype {a.dtype} are not a value of the statistics file")


def saved_form(statistics: Any) -> Any:
    """The dataclass ``statistics`` (made of :data:`TYPES`) as its file holds it: the JSON values
    of the module docstring (NaN as ``{"$float": "nan"}``, arrays as their bytes), so two
    statistics with the same saved form write the same file (but for the date of writing)."""
    return _encode(statistics, "the statistics", {**TYPES, type(statistics).__name__: type(statistics)})


def _canonical(document: dict) -> bytes:
    return json.dumps(document, sort_keys=True, separators=(",", ":"), ensure_ascii=True, allow_nan=False).encode()


def encoded_bytes(nbytes: int) -> int:
    """The bytes ``nbytes`` bytes of array data take in a statistics file (base64)."""
    return 4 * -(-nbytes // 3)


def _numeric_arrays(x: Any, where: str, types: dict[str, type]) -> Iterator[tuple[int, str]]:
    """(bytes, where) of every numeric array ``x`` holds (the fields of the dataclasses of ``types``,
    tuples, lists and dicts), as :func:`_encode` walks them."""
    if isinstance(x, np.ndarray):
        yield (x.nbytes, where) if x.dtype.name in _NUMERIC else (0, where)
    elif isinstance(x, (tuple, list)):
        for v in x:
            yield from _numeric_arrays(v, where, types)
    elif isinstance(x, dict):
        for k, v in x.items():
            yield from _numeric_arrays(v, f"{where}[{k!r}]", types)
    elif dataclasses.is_dataclass(x) and types.get(type(x).__name__) is type(x):
        for f in dataclasses.fields(x):
            if f.init and f.metadata.get("saved", True):
                yield from _numeric_arrays(getattr(x, f.name), f"{where}.{f.name}", types)


def _check_saved_size(statistics: Any, types: dict[str, type]) -> None:
    """Refuse, before they are encoded, statistics whose arrays alone take more than a statistics
    file may hold, naming the largest (the grouped bootstrap's sums: ``ci=False``)."""
    arrays = list(_numeric_arrays(statistics, "the statistics", types))
    total = sum(encoded_bytes(n) for n, _ in arrays)
    if total <= MAX_FILE_BYTES:
        return
    largest, where = max(arrays)
    hint = ("the grouped bootstrap's sums: profile with ci=False (--no-ci)" if ".totals" in where
            else "profile fewer classes, or binary scores with score_bins (--score-bins)")
    raise InvalidInputError(f"cannot save the statistics: their arrays take {total:,} bytes in a file, more than a "
                            f"statistics file may hold ({MAX_FILE_BYTES:,}); the largest is {where} "
                            f"({encoded_bytes(largest):,} bytes, {hint})")


def write_file(statistics: Any, metadata: dict[str, Any], path: str | os.PathLike) -> Path:
    """Write the dataclass ``statistics`` (made of :data:`TYPES`) and its ``metadata`` (JSON
    values) to ``path`` whole or not at all (:func:`~beyondchance._json.write_atomic`); one
    InvalidInputError line, before anything is written, for statistics the reader would refuse
    for their size (:func:`size_refusal`: the same rule)."""
    types = {**TYPES, type(statistics).__name__: type(statistics)}
    _check_saved_size(statistics, types)
    document = {
        "format": FORMAT, "schema_version": SCHEMA_VERSION, "library_version": __version__,
        "created": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "metadata": metadata, "statistics": saved_form(statistics),
    }
    document["sha256"] = hashlib.sha256(_canonical(document)).hexdigest()
    # "format" first, so that a truncated file is still recognised as one of ours
    text = json.dumps(document, separators=(",", ":"), ensure_ascii=True, allow_nan=False) + "\n"
    encoded = text.encode("ascii")
    del text  # one copy of a file of up to 1 GiB at a time
    why = size_refusal(len(encoded), _json_values(encoded), document["statistics"])
    if why is not None:
        raise InvalidInputError(f"cannot save the statistics: {path} would be refused when read ({why})")
    return write_atomic(path, encoded)


# =====================================================================================
# reading
# =====================================================================================


class _Corrupt(Exception):
    """A statistics file whose content does not decode (turned into one InvalidInputError)."""


def _depth(x: Any, limit: int = MAX_DEPTH) -> None:
    stack = [(x, 1)]
    while stack:
        value, d = stack.pop()
        if d > limit:
            raise _Corrupt(f"values nested deeper than {limit} levels")
        if isinstance(value, dict):
            stack.extend((v, d + 1) for v in value.values())
        elif isinstance(value, list):
            stack.extend((v, d + 1) for v in value)


def _decode(x: Any, types: dict[str, type]) -> Any:
    if x is None or isinstance(x, (bool, str, int, float)):
        return x
    if isinstance(x, list):
        return [_decode(v, types) for v in x]
    if not isinstance(x, dict) or len(x) not in (1, 2):
        raise _Corrupt("an object that is no tagged value")
    if set(x) == {"$type", "fields"}:
        return _decode_object(x["$type"], x["fields"], types)
    (tag, value), = x.items() if len(x) == 1 else (("", None),)
    if tag == "$float" and value in ("nan", "inf", "-inf"):
        return float(value)
    if tag == "$tuple" and isinstance(value, list):
        return tuple(_decode(v, types) for v in value)
    if tag == "$dict" and isinstance(value, list):
        if not all(isinstance(kv, list) and len(kv) == 2 for kv in value):
            raise _Corrupt("a $dict that is no list of pairs")
        out = {}
        for k, v in value:
            key = _decode(k, types)
            if not isinstance(key, (str, int, float, bool)) and key is not None:
                raise _Corrupt("a $dict key that is no number, string or boolean")
            out[key] = _decode(v, types)
        return out
    if tag == "$array" and isinstance(value, dict):
        return _decode_array(value)
    raise _Corrupt(f"an unknown tagged value {tag or sorted(x)!r}")


def _decode_object(name: Any, fields: Any, types: dict[str, type]) -> Any:
    cls = types.get(name) if isinstance(name, str) else None
    if cls is None or not isinstance(fields, dict):
        raise _Corrupt(f"an unknown type {name!r}")
    init = {f.name for f in dataclasses.fields(cls) if f.init and f.metadata.get("saved", True)}
    if not set(fields) <= init:
        raise _Corrupt(f"{name} has no fields {sorted(set(fields) - init)}")
    values = {k: _decode(v, types) for k, v in fields.items()}
    try:
        return cls(**values)
    except InvalidInputError as exc:
        raise _Corrupt(f"{name}: {exc}") from None
    except Exception as exc:  # the constructor of a known type, given values no writer makes
        raise _Corrupt(f"{name} cannot be built from its fields ({type(exc).__name__})") from None


def _array_header(spec: Any) -> tuple[str, list[int], int]:
    """(dtype, shape, bytes the array takes in memory) of an ``$array`` spec, checked before
    anything is allocated: a dtype of :data:`_NUMERIC`, ``object`` or ``U<n>`` (ASCII digits,
    n ≤ 2²⁰), a shape of at most 3 plain non-negative integers whose non-zero ones multiply to at
    most :data:`MAX_DIMENSION`."""
    dtype, shape = spec.get("dtype"), spec.get("shape")
    if not (isinstance(shape, list) and len(shape) <= 3 and all(type(d) is int and d >= 0 for d in shape)
            and math.prod(max(d, 1) for d in shape) <= MAX_DIMENSION):  # numpy's bound ignores no dimension
        raise _Corrupt("an array of an invalid shape")
    size = math.prod(shape)
    if dtype in _NUMERIC:
        return dtype, shape, size * np.dtype(dtype).itemsize
    if dtype == "object":
        return dtype, shape, size * 8
    if isinstance(dtype, str) and _TEXT_DTYPE.fullmatch(dtype) and int(dtype[1:]) <= _MAX_TEXT_ITEM:
        return dtype, shape, size * 4 * int(dtype[1:])
    raise _Corrupt(f"an array of an unknown kind (dtype {str(dtype)[:20]!r})")


def _decode_array(spec: dict) -> np.ndarray:
    dtype, shape, _ = _array_header(spec)
    size = math.prod(shape)
    if set(spec) == {"dtype", "shape", "data"} and dtype in _NUMERIC and isinstance(spec["data"], str):
        try:
            raw = base64.b64decode(spec["data"].encode("ascii"), validate=True)
        except (ValueError, UnicodeEncodeError):
            raise _Corrupt("an array whose data is not base64") from None
        dt = np.dtype(dtype).newbyteorder("<")
        if len(raw) != size * dt.itemsize:
            raise _Corrupt(f"an array of shape {shape} holding {len(raw)} bytes")
        return np.frombuffer(raw, dtype=dt).astype(np.dtype(dtype)).reshape(shape)
    if set(spec) == {"dtype", "shape", "items"} and isinstance(spec["items"], list) and dtype not in _NUMERIC:
        items = spec["items"]
        if len(items) != size:
            raise _Corrupt(f"an array of shape {shape} holding {len(items)} items")
        values = [_decode(v, {}) for v in items]
        if not all(v is None or isinstance(v, (bool, int, float, str)) for v in values):
            raise _Corrupt("an array of labels holding other values")
        if dtype == "object":
            out = np.empty(size, dtype=object)
            out[:] = values
            return out.reshape(shape)
        if all(isinstance(v, str) and len(v) <= int(dtype[1:]) for v in values):  # none cut short
            return np.array(values, dtype=dtype).reshape(shape)
    raise _Corrupt(f"an array of an unknown kind (dtype {dtype!r})")


def _declared_bytes(x: Any) -> int:
    """The memory the arrays of the decoded JSON ``x`` declare (:func:`_array_header`), summed
    without allocating any (iterative: ``x`` is bounded by :data:`MAX_DEPTH` and :data:`MAX_VALUES`)."""
    total, stack = 0, [x]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            spec = value.get("$array") if len(value) == 1 else None
            if isinstance(spec, dict):
                total += _array_header(spec)[2]
            else:
                stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
    return total


def _json_values(text: bytes) -> int:
    """An upper bound of the JSON values in ``text`` (each value but the first follows a ``,``
    or opens a list or object; base64 holds none of them): the separators outside strings,
    counted again without the strings' text only when those within them may matter."""
    count = text.count(b",") + text.count(b"[") + text.count(b"{") + 1
    if count > MAX_VALUES:
        skeleton = _STRING.sub(b'""', text)
        count = skeleton.count(b",") + skeleton.count(b"[") + skeleton.count(b"{") + 1
    return count


def size_refusal(file_bytes: int, values: int, statistics: Any) -> str | None:
    """Why a statistics file of ``file_bytes`` bytes holding ``values`` JSON values and the
    encoded ``statistics`` would take more to read than its size justifies, or None: the one
    size rule of the reader (before any array is allocated) and the writer (before writing)."""
    if file_bytes > MAX_FILE_BYTES:
        return f"{file_bytes:,} bytes, more than a statistics file may hold ({MAX_FILE_BYTES:,})"
    if values > MAX_VALUES:
        return f"more than {MAX_VALUES:,} JSON values, more than a statistics file holds"
    declared, allowed = _declared_bytes(statistics), 2 * file_bytes + ARRAY_ALLOWANCE
    if declared > allowed:
        return (f"arrays declaring {declared:,} bytes of memory, more than a file of {file_bytes:,} bytes may "
                f"ask for ({allowed:,}: twice its size and {ARRAY_ALLOWANCE >> 20} MiB)")
    return None


def _refuse(path: str, why: str) -> InvalidInputError:
    return InvalidInputError(f"{path}: {why}")


def _kind(mode: int) -> str:
    """What a file that is not a regular file is, for a message."""
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a pipe (FIFO)"), (stat.S_ISCHR, "a device"),
             (stat.S_ISBLK, "a device"), (stat.S_ISSOCK, "a socket"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _read_regular(path: str) -> bytes:
    """The bytes of the regular file ``path``, at most :data:`MAX_FILE_BYTES`: a FIFO, a device,
    a folder or a socket is refused before it is read (``stat``, then ``fstat`` of what was
    opened, without blocking: ``O_NONBLOCK``), never waited on or read without end."""
    try:
        if not stat.S_ISREG(mode := os.stat(path).st_mode):
            raise _refuse(path, f"{_kind(mode)}, not a statistics file: give the path of the file itself")
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_BINARY", 0))
        with open(fd, "rb") as fh:
            info = os.fstat(fh.fileno())
            if not stat.S_ISREG(info.st_mode):  # replaced since the stat
                raise _refuse(path, f"{_kind(info.st_mode)}, not a statistics file: give the path of the file itself")
            if info.st_size > MAX_FILE_BYTES:
                why = size_refusal(info.st_size, 0, None)
                assert why is not None  # over the size limit
                raise _refuse(path, why)
            raw = fh.read(MAX_FILE_BYTES + 1)
    except OSError as exc:
        raise _refuse(path, f"cannot read the statistics file ({exc.strerror or type(exc).__name__})") from None
    if len(raw) > MAX_FILE_BYTES:
        raise _refuse(path, f"more than a statistics file may hold ({MAX_FILE_BYTES:,} bytes)")
    return raw[len(_BOM):] if raw.startswith(_BOM) else raw  # a BOM some editors write


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    """A JSON object whose keys are distinct (the object_pairs_hook of the reader): a key given
    twice is refused, never the last one taken."""
    out = dict(pairs)
    if len(out) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"the key {key[:40]!r} given twice in one object")
            seen.add(key)
    return out


def _load(path: str) -> tuple[dict, int]:
    """(the JSON document of the statistics file ``path``, its size in bytes): a regular file
    (:func:`_read_regular`) of at most :data:`MAX_VALUES` JSON values, keys given once, ours."""
    raw = _read_regular(path)
    ours = raw.lstrip()[:40].replace(b" ", b"").startswith(b'{"format":"' + FORMAT.encode())
    values = _json_values(raw)
    if values > MAX_VALUES:
        why = size_refusal(len(raw), values, None)
        assert why is not None  # over the limit of values (or of the size)
        raise _refuse(path, why)

    def no_constant(token: str) -> Any:
        raise ValueError(f"the token {token}")

    def finite(text: str) -> float:
        value = float(text)
        if not math.isfinite(value):  # 1e999: JSON has no infinite numbers
            raise ValueError(f"the number {text[:20]} is not finite")
        return value

    try:
        document = json.loads(raw.decode("utf-8"), parse_constant=no_constant, parse_float=finite,
                              object_pairs_hook=_unique_keys)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        if ours:
            raise _refuse(path, "a truncated or corrupted statistics file (its JSON does not parse: "
                                f"{str(exc).splitlines()[0][:80]})") from None
        raise _refuse(path, "not a beyondchance statistics file (not JSON)") from None
    if not isinstance(document, dict) or document.get("format") != FORMAT:
        raise _refuse(path, f"not a beyondchance statistics file (no \"format\": \"{FORMAT}\")")
    return document, len(raw)


def is_statistics_file(path: Any) -> bool:
    """Whether ``path`` names a regular file that opens as a statistics file (its first bytes,
    whatever its name: ``.bcstats``, ``.json`` …) or is named ``*.bcstats``; a truncated or
    foreign one counts, so that reading it says what is wrong with it."""
    if not isinstance(path, (str, os.PathLike)) or not os.path.isfile(path):
        return False
    if os.fspath(path).endswith(".bcstats"):
        return True
    try:
        with open(path, "rb") as fh:
            head = fh.read(64)
    except OSError:
        return False
    return head.lstrip()[:40].replace(b" ", b"").startswith(b'{"format":"' + FORMAT.encode())


def read_file(path: str | os.PathLike, top: type, check: Callable[[Any], str | None]) -> Any:
    """The ``top`` object saved in ``path`` by :func:`write_file`, once ``check`` (a reason when
    it is not one the package can use, else None) accepts it; one InvalidInputError line for a
    file that is not ours, truncated, corrupted, changed since it was written, or of a newer
    schema.  Nothing in the file is run: only ``top`` and the types of :data:`TYPES` are built,
    by their constructors, from bounded data."""
    shown = os.fspath(path)
    document, size = _load(shown)
    version = document.get("schema_version")
    if not isinstance(version, int) or isinstance(version, bool) or version < 1:
        raise _refuse(shown, f"a corrupted statistics file (schema_version {version!r})")
    if version > SCHEMA_VERSION:
        raise _refuse(shown, f"written by a newer beyondchance ({document.get('library_version')!r}, statistics "
                             f"schema {version}; this version {__version__} reads up to schema {SCHEMA_VERSION}): "
                             "upgrade beyondchance")
    digest = document.pop("sha256", None)
    if not isinstance(digest, str) or hashlib.sha256(_canonical(document)).hexdigest() != digest:
        raise _refuse(shown, "the checksum does not match: the statistics file was changed or corrupted "
                             "after it was written")
    try:
        _depth(document)
        payload: Any = document.get("statistics")  # decoded JSON
        too_large = size_refusal(size, 0, payload)  # before any array is allocated
        if too_large is not None:
            raise _refuse(shown, too_large)
        while version < SCHEMA_VERSION:
            payload, version = UPGRADES[version](payload), version + 1
        statistics = _decode(payload, {**TYPES, top.__name__: top})
        why = f"no {top.__name__} at its top" if not isinstance(statistics, top) else check(statistics)
    except _Corrupt as exc:
        why = str(exc)
    if why is not None:
        raise _refuse(shown, f"a corrupted statistics file ({why})")
    return statistics
