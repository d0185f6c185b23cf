"""What the package writes out: one conversion to JSON-safe Python values, used by every
result's ``to_dict()`` (:func:`jsonable`), and one way to write a file, used by every
writer — ``--out``, ``save``/``to_html``/``to_json``/``to_markdown``, the demo, the
example, the reproductions and the reference cache (:func:`write_atomic`)."""

from __future__ import annotations

import contextlib
import math
import os
import re
import secrets
import stat
import time
from pathlib import Path
from typing import IO, Any, Callable, Union

import numpy as np

__all__ = ["jsonable", "write_atomic", "remove_stale_temporaries", "refuse_protected_links", "TEMPORARY_PREFIX",
           "STALE_TEMPORARY_SECONDS"]


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

#: a temporary file of a destination older than this many seconds was left by a killed write
#: (a write takes seconds at most) and is removed by the next write of the destination
STALE_TEMPORARY_SECONDS = 3600

Content = Union[str, bytes, Callable[[IO[bytes]], Any]]


def _write(f: IO, content: Content) -> None:
    if callable(content):
        content(f)
    else:
        f.write(content)


def _open(fd: int, content: Content, encoding: str) -> IO:
    # text in text mode (the line ends of Path.write_text), bytes and writers in binary mode
    try:
        return os.fdopen(fd, "w", encoding=encoding) if isinstance(content, str) else os.fdopen(fd, "wb")
    except BaseException:  # pragma: no cover - fdopen fails only without memory
        os.close(fd)
        raise


def write_atomic(path: str | os.PathLike, content: Content, *, encoding: str = "utf-8") -> Path:
    """Write ``content`` to ``path`` whole or not at all; return the path written.

    ``content`` is text (written in ``encoding``), bytes, or a function that writes to the
    binary file it is given (``lambda f: fig.savefig(f, format="png")``).  The content goes
    to a temporary file in the same folder, which replaces ``path`` (:func:`os.replace`)
    once written and flushed to disk: a kill, a full disk or an exception of the writer
    leaves the previous file as it was.  Where the system allows (Linux, with ``/proc``, on
    a filesystem with ``O_TMPFILE``) the temporary file has no name until it is whole, so
    even a kill -9 leaves nothing behind; elsewhere it is ``.tmp-<random>-<name>``, removed
    on failure, and one left by a killed write is removed by the next write of ``path``
    once older than an hour (:data:`STALE_TEMPORARY_SECONDS`).  An error of the system
    (``No space left on device``) names ``path``.

    The new file has the permissions a plain write gives — the umask's for a new file, the
    old file's mode when it replaces one — not the 0600 of :func:`tempfile.mkstemp`.  A
    symbolic link at ``path`` is replaced by the file, its target left as it was (a link
    planted by someone else cannot redirect the write); a path that is not a regular file
    (``/dev/stdout``, a FIFO, or a link to one) is written directly.  As Linux's
    ``fs.protected_symlinks`` does, a link on the way (a folder of ``path``, or ``path``
    itself where it is written through) is not followed when it lies in a world-writable
    sticky folder (``/tmp``) and belongs to neither the writer nor that folder's owner:
    :class:`PermissionError`, nothing written.

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
    refuse_protected_links(path)
    try:
        old = os.lstat(path)
    except FileNotFoundError:
        old = None
    try:
        if old is not None and _written_through(path, old):
            refuse_protected_links(path, last=True)
            with _open(os.open(path, os.O_WRONLY | os.O_TRUNC), content, encoding) as f:
                _write(f, content)
            return path
        remove_stale_temporaries(path)
        _replace(path, content, encoding, _kept_mode(old))
    except OSError as exc:
        _name_the_destination(exc, path)
        raise
    return path


def _name_the_destination(exc: OSError, path: Path) -> None:
    """Make the error of a write name ``path``: a failed write or flush (a full disk) names no
    file, a failed creation names the temporary file."""
    if exc.errno is None:  # raised by a writer with a message of its own, which a file name would replace
        return
    temporary = exc.filename is not None and Path(exc.filename).name.startswith(TEMPORARY_PREFIX)
    if exc.filename is None or (temporary and exc.filename2 is None):
        exc.filename = str(path)


def _written_through(path: Path, old: os.stat_result) -> bool:
    """Whether ``path`` (its ``lstat`` ``old``) is written into rather than replaced: a device
    or a pipe, or a link to one (``/dev/stdout``); a link to anything else is replaced."""
    if stat.S_ISLNK(old.st_mode):
        try:
            old = os.stat(path)
        except OSError:  # a dangling link (or a loop): replaced
            return False
    return not (stat.S_ISREG(old.st_mode) or stat.S_ISDIR(old.st_mode))


def _kept_mode(old: os.stat_result | None) -> int | None:
    """The permissions of the regular file that a write replaces (None: a new file, or a link
    that is replaced, gets the umask's)."""
    return stat.S_IMODE(old.st_mode) if old is not None and stat.S_ISREG(old.st_mode) else None


def _replace(path: Path, content: Content, encoding: str, mode: int | None) -> None:
    """Write ``content`` to a temporary file beside ``path`` and rename it to ``path``
    (``mode``: the permissions to give it, else the umask's)."""
    tmp, fd = None, _anonymous_file(path.parent)
    if fd is None:
        tmp = _temporary_name(path)
        fd = _create(tmp)
    try:
        with _open(fd, content, encoding) as f:
            _write(f, content)
            f.flush()
            os.fsync(f.fileno())
            if tmp is None:
                tmp = _link_anonymous(f.fileno(), path)
        if mode is not None:
            with contextlib.suppress(OSError):
                os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        if tmp is not None:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
        raise


def _temporary_name(path: Path) -> Path:
    """A fresh name ``.tmp-<12 random hex digits>-<name>`` beside ``path``."""
    return path.parent / f"{TEMPORARY_PREFIX}{secrets.token_hex(6)}-{path.name[:100]}"


def _create(tmp: Path) -> int:
    """A new file at ``tmp`` (never an existing one, never through a link), open for writing."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    return os.open(tmp, flags, 0o666)  # the umask applies, as to a plain write


def _anonymous_file(directory: Path) -> int | None:
    """A file without a name in ``directory``, open for writing (Linux's ``O_TMPFILE``: a kill
    leaves nothing), or None where the system or the filesystem has none."""
    if not hasattr(os, "O_TMPFILE") or not os.path.isdir("/proc/self/fd"):
        return None
    try:
        return os.open(directory, os.O_TMPFILE | os.O_WRONLY, 0o666)  # the umask applies
    except OSError:  # a filesystem without O_TMPFILE (EOPNOTSUPP, EISDIR): a named temporary file
        return None


def _link_anonymous(fd: int, path: Path) -> Path:
    """Give the whole anonymous file ``fd`` a fresh temporary name beside ``path`` (``linkat``
    through ``/proc/self/fd``); the name, which :func:`os.replace` then moves to ``path``."""
    descriptors = os.open("/proc/self/fd", os.O_RDONLY | os.O_DIRECTORY)
    try:
        while True:
            tmp = _temporary_name(path)
            try:  # linkat(AT_SYMLINK_FOLLOW): os.link calls it only with a folder descriptor given
                os.link(str(fd), tmp, src_dir_fd=descriptors, follow_symlinks=True)
                return tmp
            except FileExistsError:  # pragma: no cover - 48 random bits
                continue
    finally:
        os.close(descriptors)


def remove_stale_temporaries(path: str | os.PathLike, max_age: float = STALE_TEMPORARY_SECONDS) -> int:
    """Remove the temporary files of ``path``'s killed writes (``.tmp-<random>-<name>`` beside
    it: regular files of this user, older than ``max_age`` seconds); the number removed.
    Younger ones may be another process's write in progress and are kept.

    >>> import tempfile, time
    >>> d = Path(tempfile.mkdtemp())
    >>> left = d / ".tmp-0123456789ab-report.txt"
    >>> _ = left.write_text("half"), os.utime(left, (time.time() - 7200,) * 2)
    >>> remove_stale_temporaries(d / "report.txt"), left.exists()
    (1, False)
    """
    path = Path(path)
    pattern = re.compile(re.escape(TEMPORARY_PREFIX) + "[0-9a-f]{12}-" + re.escape(path.name[:100]))
    removed = 0
    try:
        with os.scandir(path.parent) as found:
            entries = [e for e in found if pattern.fullmatch(e.name)]
    except OSError:
        return 0
    for entry in entries:
        with contextlib.suppress(OSError):
            st = entry.stat(follow_symlinks=False)
            if _is_stale(st, max_age):
                os.unlink(entry.path)
                removed += 1
    return removed


def _is_stale(st: os.stat_result, max_age: float) -> bool:
    """A regular file of this user (of anyone where files have no owner) older than ``max_age`` seconds."""
    mine = not hasattr(os, "geteuid") or st.st_uid == os.geteuid()
    return stat.S_ISREG(st.st_mode) and mine and time.time() - st.st_mtime > max_age


def refuse_protected_links(path: str | os.PathLike, *, last: bool = False) -> None:
    """Raise :class:`PermissionError` if a folder of ``path`` (and ``path`` itself if ``last``)
    is a symbolic link that Linux's ``fs.protected_symlinks`` would not follow: a link in a
    world-writable sticky folder owned by neither this user nor the folder's owner.

    >>> refuse_protected_links("/no/such/folder/file.txt")  # nothing there: nothing followed
    """
    if not hasattr(os, "geteuid"):
        return
    try:
        parts = Path(os.getcwd(), path).parts  # not normalised: "link/.." is the kernel's
    except OSError:  # the current folder is gone: a relative path fails on its own
        return
    for i in range(2, len(parts) + (1 if last else 0)):
        link = Path(*parts[:i])
        try:
            st = os.lstat(link)
            folder = os.stat(link.parent) if stat.S_ISLNK(st.st_mode) else None
        except OSError:  # nothing there: the write fails on its own
            return
        if folder is not None and _protected(st, folder):
            raise PermissionError(
                f"{path}: {link} is a symbolic link of another user (uid {st.st_uid}) in the world-writable "
                f"sticky folder {link.parent}; not followed (the rule of Linux's fs.protected_symlinks): "
                "write to a folder of your own")


def _protected(link: os.stat_result, folder: os.stat_result) -> bool:
    """Whether a link (its ``lstat``) in ``folder`` (its ``stat``) is one not to follow."""
    sticky_and_open = folder.st_mode & stat.S_ISVTX and folder.st_mode & stat.S_IWOTH
    return bool(sticky_and_open) and link.st_uid not in (os.geteuid(), folder.st_uid)
