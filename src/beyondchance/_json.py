"""What the package writes out: one conversion to JSON-safe Python values, used by every
result's ``to_dict()`` (:func:`jsonable`), and one way to write a file, used by every
writer — ``--out``, ``save``/``to_html``/``to_json``/``to_markdown``, the demo, the
example, the reproductions and the reference cache (:func:`write_atomic`)."""

from __future__ import annotations

import contextlib
import math
import os
import secrets
import stat
from pathlib import Path
from typing import IO, Any, Callable, Union

import numpy as np

__all__ = ["jsonable", "write_atomic", "TEMPORARY_PREFIX"]


def jsonable(x: Any) -> Any:
    """numpy arrays → lists, numpy scalars → Python scalars, NaN/±inf → None, recursively
    through dicts, lists and tuples (JSON has no NaN).

    >>> jsonable({"a": np.array([1.0, np.nan]), "b": np.int64(3), "c": (np.inf, "x")})
    {'a': [1.0, None], 'b': 3, 'c': [None, 'x']}
    """
    if isinstance(x, np.ndarray):
        return [jsonable(v) for v in x.tolist()]
    if isinstance(x, np.generic):
        x = x.item()
    if isinstance(x, float):
        return x if math.isfinite(x) else None
    if isinstance(x, dict):
        return {k: jsonable(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [jsonable(v) for v in x]
    return x


#: the names of :func:`write_atomic`'s temporary files begin so (``.tmp-<random>-<name>``)
TEMPORARY_PREFIX = ".tmp-"

Content = Union[str, bytes, Callable[[IO[bytes]], Any]]


def _write(f: IO, content: Content) -> None:
    if callable(content):
        content(f)
    else:
        f.write(content)


def _open(fd: int, content: Content, encoding: str) -> IO:
    # text in text mode (the line ends of Path.write_text), bytes and writers in binary mode
    return os.fdopen(fd, "w", encoding=encoding) if isinstance(content, str) else os.fdopen(fd, "wb")


def write_atomic(path: str | os.PathLike, content: Content, *, encoding: str = "utf-8") -> Path:
    """Write ``content`` to ``path`` whole or not at all; return the path written.

    ``content`` is text (written in ``encoding``), bytes, or a function that writes to the
    binary file it is given (``lambda f: fig.savefig(f, format="png")``).  The content goes
    to a temporary file ``.tmp-<random>-<name>`` in the same folder, which replaces
    ``path`` (:func:`os.replace`) once written and flushed to disk: a kill, a full disk or an
    exception of the writer leaves the previous file as it was, and the temporary file is
    removed (a kill -9 may leave it behind).  The new file has the permissions a plain
    write gives — the umask's for a new file, the old file's mode when it replaces one —
    not the 0600 of :func:`tempfile.mkstemp`.  A symbolic link is written through (its
    target is replaced); a path that is not a regular file (``/dev/stdout``, a FIFO) is
    written directly.

    >>> import tempfile
    >>> p = Path(tempfile.mkdtemp()) / "report.txt"
    >>> write_atomic(p, "first\\n") == p and p.read_text()
    'first\\n'
    >>> def broken(f):
    ...     f.write(b"half")
    ...     raise RuntimeError("the writer failed")
    >>> write_atomic(p, broken)
    Traceback (most recent call last):
    RuntimeError: the writer failed
    >>> p.read_text(), sorted(q.name for q in p.parent.iterdir())
    ('first\\n', ['report.txt'])
    """
    path = Path(path)
    if path.is_symlink():
        path = Path(os.path.realpath(path))
    try:
        old = os.stat(path)
    except FileNotFoundError:
        old = None
    if old is not None and not stat.S_ISREG(old.st_mode):  # a device or a pipe: nothing to replace
        with _open(os.open(path, os.O_WRONLY | os.O_TRUNC), content, encoding) as f:
            _write(f, content)
        return path
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    while True:
        tmp = path.parent / f"{TEMPORARY_PREFIX}{secrets.token_hex(6)}-{path.name[:100]}"
        try:
            fd = os.open(tmp, flags, 0o666)  # the umask applies, as to a plain write
            break
        except FileExistsError:  # pragma: no cover - 48 random bits
            continue
    try:
        try:
            f = _open(fd, content, encoding)
        except BaseException:  # pragma: no cover - fdopen fails only without memory
            os.close(fd)
            raise
        with f:
            _write(f, content)
            f.flush()
            os.fsync(f.fileno())
        if old is not None:
            with contextlib.suppress(OSError):
                os.chmod(tmp, stat.S_IMODE(old.st_mode))
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise
    return path
