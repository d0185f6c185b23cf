r"""The Directed Binary Tree (DBT) reference distribution of curves, and the reference cache.

A scoring metric (ROC/PR/lift/gain AUC, precision at a recall, lift at a rate) summarises
a whole curve, i.e. a sequence of confusion matrices with Type-I errors α₁ ≤ … ≤ α_J and
Type-II errors β₁ ≥ … ≥ β_J (OPS paper, section 3.3: lowering the threshold can only add
positive predictions).  Its outperformance score needs a reference distribution over such
*monotone* sequences; the paper proposes the DBT (section 3.3, Figure 2):

* draw (α₁, β₁) independently from Uniform[0, 1]; the node carries the ranges
  θ = (l_A, u_A, l_B, u_B) = (0, 1, 0, 1);
* a node with errors (α, β) and ranges θ has a **left child** with
  α' ~ U(l_A, α), β' ~ U(β, u_B) and ranges (l_A, α, β, u_B), and a **right child** with
  α' ~ U(α, u_A), β' ~ U(l_B, β) and ranges (α, u_A, l_B, β);
* a tree with ``depth`` levels has J = 2^depth − 1 nodes; read in order (left subtree,
  node, right subtree) α increases and β decreases: a random monotone ROC curve.  The end
  points (α, β) = (0, 1) (nothing predicted positive) and (1, 0) (everything positive)
  are added, so a curve has 2^depth + 1 points.

Depth convention: ``depth`` counts the *levels* (J = 2^depth − 1, as in the SPEC).  The
paper's Figure 2 labels a tree with 15 nodes E₁…E₁₅ "depth = 3" (it counts edges from
the root), so the paper's depth d is our depth d + 1.

Vectorised construction.  In the in-order array with the two end points as sentinels
(positions 0 and 2^depth), the ranges of a node are the values of its nearest ancestors
on either side — exactly the entries ``s = 2^(depth−k)`` positions to its left and right
when the node is at level k.  So level k fills positions ``s, 3s, 5s, …`` from the
strided views at ``0, 2s, 4s, …`` and ``2s, 4s, …``: one vectorised draw per level for all
trees, no sorting, no loop over trees.

The cache
---------
Reference metric values depend only on (sampler, number of curves, seed, metric,
options, prevalence).  :class:`ReferenceCache` keeps them in memory (LRU) and on disk as
``.npz`` files named by a SHA-256 of the key, under ``$BEYONDCHANCE_CACHE_DIR``, else the
``platformdirs`` user cache directory when that package is installed, else
``$XDG_CACHE_HOME/beyondchance`` or ``~/.cache/beyondchance``.  A corrupt, stale or
unreadable file counts as a miss (and is replaced); an unwritable directory silently
disables the disk layer.  Files are written atomically (temporary file + rename,
``beyondchance._json.write_atomic``), so concurrent processes never read a partial
file, with the permissions of the umask (readable by the group when the umask allows);
the temporary files of writes killed before they finished (``.tmp-*`` older than five
minutes) are removed when a process first uses the directory.

Examples
--------
>>> import numpy as np
>>> alpha, beta = sample_dbt(3, depth=4, random_state=0)
>>> alpha.shape                      # 2**4 - 1 tree points + 2 end points
(3, 17)
>>> bool((np.diff(alpha, axis=1) >= 0).all() and (np.diff(beta, axis=1) <= 0).all())
True
>>> alpha[:, 0], beta[:, 0]          # the end point (0, 1) first ...
(array([0., 0., 0.]), array([1., 1., 1.]))
>>> alpha[:, -1], beta[:, -1]        # ... and (1, 0) last
(array([1., 1., 1.]), array([0., 0., 0.]))
"""

from __future__ import annotations

import hashlib
import json
import os
import threading
import time
import zipfile
from collections import OrderedDict
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Iterator

import numpy as np

from .._json import TEMPORARY_PREFIX, write_atomic
from .._warnings import InvalidInputError

__all__ = [
    "DEFAULT_DEPTH",
    "CHUNK_SIZE",
    "sample_dbt",
    "DirectedBinaryTree",
    "UniformCurves",
    "resolve_reference",
    "reference_chunks",
    "for_each_chunk",
    "chunk_generator",
    "ReferenceCache",
    "reference_cache",
    "reference_cache_dir",
    "clear_reference_cache",
]

#: Default tree depth (levels): 1023 points per curve (SPEC section 3).
DEFAULT_DEPTH = 10
#: Curves per chunk of the reference sample.  Chunk ``i`` is drawn from its own stream
#: ``SeedSequence(seed, spawn_key=(i,))``, so the first G curves do not depend on how many
#: more are drawn and memory stays bounded (4096 curves of depth 10 = 2 × 34 MB).
CHUNK_SIZE = 4096
#: Largest depth accepted (2^20 points per curve is already 8 MB per curve and array).
MAX_DEPTH = 20
#: Bump when the sampler or the stored values change meaning: old cache files are ignored.
CACHE_VERSION = 1


# =====================================================================================
# the sampler
# =====================================================================================


def _check_depth(depth: Any) -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)):
        raise InvalidInputError(f"depth must be an integer in [1, {MAX_DEPTH}], got {depth!r}")
    if not 1 <= int(depth) <= MAX_DEPTH:
        raise InvalidInputError(f"depth must be an integer in [1, {MAX_DEPTH}], got {depth!r}")
    return int(depth)


def _check_n_curves(n: Any, name: str = "n_curves") -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or int(n) < 1:
        raise InvalidInputError(f"{name} must be a positive integer, got {n!r}")
    return int(n)


def sample_dbt(
    n_curves: int,
    depth: int = DEFAULT_DEPTH,
    *,
    random_state: Any = None,
) -> tuple[np.ndarray, np.ndarray]:
    r"""Draw random monotone curves from the Directed Binary Tree distribution.

    OPS paper, section 3.3 and Figure 2: (α₁, β₁) ~ U[0, 1]²; a left child draws
    α ~ U(l_A, α_parent), β ~ U(β_parent, u_B), a right child α ~ U(α_parent, u_A),
    β ~ U(l_B, β_parent); read in order the J = 2^depth − 1 nodes have α increasing
    and β decreasing.  The end points (0, 1) and (1, 0) are added.

    Parameters
    ----------
    n_curves : int
        Number of trees G (vectorised over trees; the only loop is over the levels).
    depth : int
        Number of levels (J = 2^depth − 1 points; the paper's "depth" + 1).
    random_state : None, int, SeedSequence or numpy Generator

    Returns
    -------
    alpha, beta : ndarray of shape (n_curves, 2**depth + 1)
        Points by decreasing threshold: α non-decreasing from 0 to 1, β non-increasing
        from 1 to 0 — the input contract of :func:`beyondchance.measures.curves.auc_from_rates`.

    Examples
    --------
    >>> a, b = sample_dbt(2, depth=2, random_state=1)
    >>> a.shape, b.shape
    ((2, 5), (2, 5))
    >>> a[0].round(3)     # root (0.512, 0.144) in the middle; its left child has
    array([0.   , 0.16 , 0.512, 0.718, 1.   ])
    >>> b[0].round(3)     # α in (0, 0.512), β in (0.144, 1); the right child the rest
    array([1.   , 0.615, 0.144, 0.004, 0.   ])
    """
    n = _check_n_curves(n_curves)
    d = _check_depth(depth)
    rng = np.random.default_rng(random_state)
    m = (1 << d) + 1
    alpha = np.empty((n, m))
    beta = np.empty((n, m))
    alpha[:, 0], beta[:, 0] = 0.0, 1.0
    alpha[:, -1], beta[:, -1] = 1.0, 0.0
    for k in range(1, d + 1):
        s = 1 << (d - k)  # distance to the nearest ancestors (the node's range ends)
        width = 1 << (k - 1)  # nodes at this level
        for arr, lo_first in ((alpha, True), (beta, False)):
            left = arr[:, 0 : m - 1 : 2 * s]  # in-order neighbour on the left
            right = arr[:, 2 * s :: 2 * s]  # in-order neighbour on the right
            # α: range (left, right); β runs the other way: range (right, left)
            lo, hi = (left, right) if lo_first else (right, left)
            u = rng.random((n, width))
            u *= hi - lo
            u += lo
            arr[:, s :: 2 * s] = u
    return alpha, beta


@dataclass(frozen=True)
class DirectedBinaryTree:
    """The DBT reference as a sampler ``f(n_curves, rng) -> (alpha, beta)``.

    >>> ref = DirectedBinaryTree(depth=3)
    >>> a, b = ref(4, np.random.default_rng(0))
    >>> a.shape
    (4, 9)
    >>> ref.cache_key
    'dbt(depth=3)'
    """

    depth: int = DEFAULT_DEPTH

    def __post_init__(self) -> None:
        _check_depth(self.depth)

    def __call__(self, n_curves: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        return sample_dbt(n_curves, self.depth, random_state=rng)

    @property
    def cache_key(self) -> str:
        """Identifies the distribution in cache keys."""
        return f"dbt(depth={self.depth})"

    @property
    def n_points(self) -> int:
        """Points per curve, end points included."""
        return (1 << self.depth) + 1

    def __str__(self) -> str:
        return (
            f"Directed Binary Tree, depth {self.depth} "
            f"({(1 << self.depth) - 1} points + the end points (0, 1), (1, 0) per curve)"
        )


@dataclass(frozen=True)
class UniformCurves:
    r"""Random monotone curves whose points have i.i.d. uniform errors, sorted.

    Each curve has J = ``n_interior`` points besides the end points (0, 1) and
    (1, 0): J Type-I errors drawn i.i.d. Uniform[0, 1] and sorted increasingly, J
    Type-II errors drawn i.i.d. Uniform[0, 1] and sorted decreasingly, paired in that
    order.  With J = 1 this is exactly the reference of the labeling metrics (A, B ~
    Uniform[0, 1] independent; OPS paper, Definition 1), so OPS over these curves
    extends that reference to every J.  Unlike the DBT, whose later points are drawn
    inside the intervals left by the earlier ones, a curve's errors pooled are i.i.d.
    uniform (the j-th smallest α is Beta(j, J + 1 − j)).

    >>> ref = UniformCurves(3)
    >>> a, b = ref(2, np.random.default_rng(0))
    >>> a.shape, bool((np.diff(a) >= 0).all() and (np.diff(b) <= 0).all())
    ((2, 5), True)
    >>> ref.cache_key
    'uniform(points=3)'
    """

    n_interior: int = (1 << DEFAULT_DEPTH) - 1

    def __post_init__(self) -> None:
        if isinstance(self.n_interior, bool) or not isinstance(self.n_interior, (int, np.integer)) or not (
            1 <= self.n_interior <= 1 << 16
        ):
            raise InvalidInputError(f"the number of points must be an integer in [1, 65536], got {self.n_interior!r}")

    def __call__(self, n_curves: int, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
        m = int(self.n_interior)
        alpha = np.empty((n_curves, m + 2))
        beta = np.empty((n_curves, m + 2))
        alpha[:, 0], beta[:, 0], alpha[:, -1], beta[:, -1] = 0.0, 1.0, 1.0, 0.0
        alpha[:, 1:-1] = np.sort(rng.random((n_curves, m)), axis=1)
        beta[:, 1:-1] = np.sort(rng.random((n_curves, m)), axis=1)[:, ::-1]
        return alpha, beta

    @property
    def cache_key(self) -> str:
        """Identifies the distribution in cache keys."""
        return f"uniform(points={int(self.n_interior)})"

    @property
    def n_points(self) -> int:
        """Points per curve, end points included."""
        return int(self.n_interior) + 2

    def __str__(self) -> str:
        return (
            f"uniform monotone curves ({int(self.n_interior)} points with i.i.d. uniform errors, sorted, "
            "+ the end points (0, 1), (1, 0) per curve)"
        )


def resolve_reference(reference: Any = None, depth: Any = DEFAULT_DEPTH) -> Any:
    """The reference sampler: a :class:`DirectedBinaryTree`, :class:`UniformCurves` or the user's callable.

    ``reference=None`` (or ``"dbt"``) → DBT of ``depth``; an int → DBT of that depth;
    ``"uniform"`` → :class:`UniformCurves` with as many points as the DBT of ``depth``
    (2^depth − 1); a callable ``f(n_curves, rng) -> (alpha, beta)`` is used as is (its
    optional ``cache_key`` string attribute enables the disk cache for it).
    """
    if reference is None:
        return DirectedBinaryTree(_check_depth(depth))
    if isinstance(reference, (int, np.integer)) and not isinstance(reference, bool):
        if depth != DEFAULT_DEPTH and int(depth) != int(reference):
            raise InvalidInputError(f"give either depth={depth!r} or reference={reference!r}, not both")
        return DirectedBinaryTree(_check_depth(reference))
    if isinstance(reference, str) and reference.strip().lower() in ("dbt", "directed-binary-tree"):
        return DirectedBinaryTree(_check_depth(depth))
    if isinstance(reference, str) and reference.strip().lower() == "uniform":
        return UniformCurves((1 << _check_depth(depth)) - 1)
    if callable(reference):
        return reference
    raise InvalidInputError(
        "reference must be None or 'dbt' (the DBT), a DBT depth (int), 'uniform' or a callable "
        f"f(n_curves, rng) -> (alpha, beta), got {reference!r}"
    )


def reference_name(sampler: Any) -> str:
    """Human-readable description of a sampler."""
    if isinstance(sampler, (DirectedBinaryTree, UniformCurves)):
        return str(sampler)
    return f"user sampler {getattr(sampler, '__name__', type(sampler).__name__)}"


def sampler_cache_key(sampler: Any) -> str | None:
    """The sampler's cache key, or None when it cannot be cached on disk."""
    key = getattr(sampler, "cache_key", None)
    return key if isinstance(key, str) and key else None


def chunk_generator(seed: int, index: int) -> np.random.Generator:
    """The random stream of chunk ``index`` of the reference sample with ``seed``."""
    return np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed, spawn_key=(index,))))


def _check_sampled(alpha: Any, beta: Any, n: int) -> tuple[np.ndarray, np.ndarray]:
    from .._validation import check_rate_curves

    a, b = check_rate_curves(alpha, beta)
    if a.ndim != 2 or a.shape[0] != n:
        raise InvalidInputError(
            f"the reference sampler must return arrays of shape ({n}, m), got {a.shape}"
        )
    return np.ascontiguousarray(a), np.ascontiguousarray(b)


def reference_chunks(
    sampler: Any, mc_samples: int, seed: int, *, chunk_size: int = CHUNK_SIZE
) -> Iterator[tuple[slice, np.ndarray, np.ndarray]]:
    """Yield ``(rows, alpha, beta)`` chunks of the reference sample, in order.

    Chunk ``i`` holds curves ``i·chunk_size …`` and is drawn from
    :func:`chunk_generator` ``(seed, i)``.  Output of a user sampler is validated
    (shape, range, monotone order, end points).
    """
    mc_samples = _check_n_curves(mc_samples, "mc_samples")
    trusted = isinstance(sampler, DirectedBinaryTree)
    for i, start in enumerate(range(0, mc_samples, chunk_size)):
        n = min(chunk_size, mc_samples - start)
        a, b = sampler(n, chunk_generator(seed, i))
        if not trusted:
            a, b = _check_sampled(a, b, n)
        yield slice(start, start + n), a, b


def n_threads() -> int:
    """Worker threads for the reference pass: ``$BEYONDCHANCE_NUM_THREADS`` or
    min(4, number of CPUs)."""
    env = os.environ.get("BEYONDCHANCE_NUM_THREADS", "")
    if env.strip().isdigit() and int(env) > 0:
        return int(env)
    return max(1, min(4, os.cpu_count() or 1))


def for_each_chunk(
    func: Callable[[tuple[slice, np.ndarray, np.ndarray]], None],
    sampler: Any,
    mc_samples: int,
    seed: int,
    *,
    chunk_size: int = CHUNK_SIZE,
) -> None:
    """Call ``func((rows, alpha, beta))`` on every chunk of the reference sample.

    Chunks are drawn and processed by :func:`n_threads` worker threads (numpy releases
    the GIL in its loops); chunk ``i`` always comes from :func:`chunk_generator`
    ``(seed, i)``, so the result does not depend on the number of threads.  ``func``
    must only write to the rows it is given.
    """
    mc_samples = _check_n_curves(mc_samples, "mc_samples")
    starts = list(range(0, mc_samples, chunk_size))
    trusted = isinstance(sampler, DirectedBinaryTree)

    def task(i: int) -> None:
        start = starts[i]
        n = min(chunk_size, mc_samples - start)
        a, b = sampler(n, chunk_generator(seed, i))
        if not trusted:
            a, b = _check_sampled(a, b, n)
        func((slice(start, start + n), a, b))

    workers = min(n_threads(), len(starts))
    if workers <= 1:
        for i in range(len(starts)):
            task(i)
        return
    with ThreadPoolExecutor(max_workers=workers) as pool:
        for fut in [pool.submit(task, i) for i in range(len(starts))]:
            fut.result()  # re-raise the first error


# =====================================================================================
# the cache
# =====================================================================================


def reference_cache_dir() -> Path:
    """Directory of the on-disk reference cache.

    ``$BEYONDCHANCE_CACHE_DIR`` if set; else ``platformdirs.user_cache_dir("beyondchance")``
    when ``platformdirs`` is installed; else ``$XDG_CACHE_HOME/beyondchance`` or
    ``~/.cache/beyondchance``.  The scoring references live in its ``ops-reference``
    subdirectory.
    """
    env = os.environ.get("BEYONDCHANCE_CACHE_DIR")
    if env:
        return Path(env).expanduser()
    try:  # optional dependency
        import platformdirs

        return Path(platformdirs.user_cache_dir("beyondchance"))
    except ImportError:
        pass
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "beyondchance"


def _key_digest(key: dict[str, Any]) -> tuple[str, str]:
    text = json.dumps(key, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:32], text


def _storable(values: np.ndarray) -> bool:
    """What the disk layer holds: a 1-D float64 array, finite and sorted (non-decreasing)."""
    return (
        values.dtype == np.float64
        and values.ndim == 1
        and bool(np.isfinite(values).all())
        and bool((values[1:] >= values[:-1]).all())
    )


class ReferenceCache:
    """Memory (LRU) + disk cache of reference arrays keyed by a JSON-able dict.

    The disk layer trusts a file only if it holds, under the same key, a 1-D float64
    array of the key's ``n_samples`` length whose values are finite and sorted
    (non-decreasing), as the reference distributions are; any other file (corrupt,
    foreign, truncated, of another dtype or shape, with NaN or ±inf, unsorted) is
    deleted, the value recomputed and the file rewritten.  Arrays that do not meet
    that rule (e.g. a user sampler's NaN values) are kept in memory only.

    Parameters
    ----------
    directory : path or callable returning a path, optional
        Disk location (default :func:`reference_cache_dir` ``/ "ops-reference"``,
        re-read at every access so that the environment variable can change).
    max_memory_entries : int
        LRU bound of the memory layer.

    Examples
    --------
    >>> import tempfile
    >>> cache = ReferenceCache(tempfile.mkdtemp())
    >>> cache.put({"what": "demo"}, np.arange(3.0))
    >>> cache.get({"what": "demo"})
    array([0., 1., 2.])
    >>> cache.clear(disk=False)            # memory gone, the disk copy remains
    >>> cache.get({"what": "demo"})
    array([0., 1., 2.])
    """

    def __init__(self, directory: Any = None, *, max_memory_entries: int = 128) -> None:
        self._directory = directory
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._max = int(max_memory_entries)
        self._lock = threading.Lock()
        self.hits = {"memory": 0, "disk": 0}
        self.misses = 0
        self._swept: set[str] = set()

    @property
    def directory(self) -> Path:
        d = self._directory
        if d is None:
            return reference_cache_dir() / "ops-reference"
        return Path(d() if callable(d) else d)

    def _disk(self) -> Path:
        """The disk directory; the first time this process uses it, the temporary files
        left by killed writes are removed (``_remove_stale_temporaries``)."""
        d = self.directory
        if str(d) not in self._swept:
            self._swept.add(str(d))
            _remove_stale_temporaries(d)
        return d

    def path(self, key: dict[str, Any]) -> Path:
        """File of a key."""
        return self.directory / f"{_key_digest(key)[0]}.npz"

    def _remember(self, digest: str, arr: np.ndarray) -> None:
        with self._lock:
            self._memory[digest] = arr
            self._memory.move_to_end(digest)
            while len(self._memory) > self._max:
                self._memory.popitem(last=False)

    def get(self, key: dict[str, Any], *, disk: bool = True) -> np.ndarray | None:
        """The stored array (read-only) or None."""
        digest, text = _key_digest(key)
        with self._lock:
            arr = self._memory.get(digest)
            if arr is not None:
                self._memory.move_to_end(digest)
                self.hits["memory"] += 1
                return arr
        if disk:
            arr = self._read(self._disk() / f"{digest}.npz", text, key)
            if arr is not None:
                self.hits["disk"] += 1
                self._remember(digest, arr)
                return arr
        self.misses += 1
        return None

    def put(self, key: dict[str, Any], values: np.ndarray, *, disk: bool = True) -> None:
        """Store an array (memory, and disk unless ``disk=False``); a read-only float64
        array is stored as is, anything else as a read-only copy."""
        digest, text = _key_digest(key)
        arr = np.asarray(values)
        if arr.dtype != np.float64 or arr.flags.writeable:
            arr = np.array(arr, dtype=np.float64)
            arr.setflags(write=False)
        self._remember(digest, arr)
        if disk and _storable(arr):
            self._write(self._disk() / f"{digest}.npz", text, arr)

    @staticmethod
    def _read(path: Path, text: str, key: dict[str, Any]) -> np.ndarray | None:
        if not path.is_file():
            return None
        try:
            with np.load(path, allow_pickle=False) as f:
                stored_key = str(f["key"][()])
                values = f["values"]
        except (OSError, ValueError, TypeError, KeyError, EOFError, zipfile.BadZipFile):
            values, stored_key = None, None
        expected = key.get("n_samples")
        ok = (
            isinstance(values, np.ndarray)
            and stored_key == text
            and (expected is None or values.shape == (expected,))
            and _storable(values)
        )
        if not ok:
            try:  # corrupt or foreign: drop it so that it is rewritten
                path.unlink()
            except OSError:
                pass
            return None
        values.setflags(write=False)
        return values

    @staticmethod
    def _write(path: Path, text: str, arr: np.ndarray) -> None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # whole or not at all, with the umask's permissions (not mkstemp's 0600)
            write_atomic(path, lambda f: np.savez(f, values=arr, key=np.array(text)))
        except OSError:
            pass  # unwritable cache: keep the memory layer only

    def clear(self, *, memory: bool = True, disk: bool = True) -> None:
        """Forget the memory layer and/or delete this cache's files."""
        if memory:
            with self._lock:
                self._memory.clear()
        if disk:
            d = self.directory
            if d.is_dir():
                for p in d.glob("*.npz"):
                    try:
                        p.unlink()
                    except OSError:
                        pass
                for p in d.glob(TEMPORARY_PREFIX + "*"):
                    try:
                        p.unlink()
                    except OSError:
                        pass


#: a temporary file of the disk cache older than this many seconds is left by a killed
#: write (a write takes well under a second) and is removed
_STALE_TEMPORARY_SECONDS = 300


def _remove_stale_temporaries(directory: str | os.PathLike, max_age: float = _STALE_TEMPORARY_SECONDS) -> int:
    """Remove the temporary files (``.tmp-*``) of ``directory`` older than ``max_age``
    seconds, left by writes that were killed; the number removed.  Younger ones may be
    another process's write in progress and are kept.

    >>> import tempfile
    >>> _remove_stale_temporaries(tempfile.mkdtemp())
    0
    """
    d = Path(directory)
    now = time.time()
    removed = 0
    try:
        candidates = list(d.glob(TEMPORARY_PREFIX + "*"))
    except OSError:
        return 0
    for p in candidates:
        try:
            if now - p.lstat().st_mtime > max_age:
                p.unlink()
                removed += 1
        except OSError:
            pass
    return removed


#: The process-wide cache of reference metric values used by the scoring OPS.
reference_cache = ReferenceCache()


def clear_reference_cache(*, memory: bool = True, disk: bool = True) -> None:
    """Clear the process-wide reference cache (memory and/or disk).

    >>> clear_reference_cache(disk=False)
    """
    reference_cache.clear(memory=memory, disk=disk)

