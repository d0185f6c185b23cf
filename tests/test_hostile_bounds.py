"""Hostile inputs that ask for unbounded work or memory (issue 41, items 5 and 6, and Ctrl-C):
an ID column given to ``--by``, ten thousand classes written as JSON or HTML, a container's
memory limit, ``ulimit -v``, memory exhausted, and Ctrl-C during the imports.  Each ends in
seconds with the answer, one line on stderr and the status the docs promise (2 bad input,
3 memory exhausted, 130 interrupted) — never a hang, a kill or a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner

import beyondchance
from beyondchance.cli import main
from beyondchance.engines import files
from conftest import one_line_error

pytestmark = pytest.mark.hostile

ENGINES = ["memory", "duckdb"]
#: the source tree of the package under test, for the subprocesses
SRC = str(Path(beyondchance.__file__).resolve().parents[1])


def _engine(engine):
    if engine == "duckdb":
        pytest.importorskip("duckdb")
    return ["--engine", engine]


# ======================================================================================
# --by of an ID column: the groups counted first, one limit and one message
# ======================================================================================


def _ids_csv(path, n_groups, rows_per_group=2):
    rng = np.random.default_rng(0)
    n = n_groups * rows_per_group
    y, s = rng.integers(0, 2, n), rng.uniform(0, 1, n)
    path.write_text("id,y,s\n" + "".join(f"u{i % n_groups},{y[i]},{s[i]:.4f}\n" for i in range(n)))
    return path


@pytest.mark.parametrize("engine", ENGINES)
def test_by_counts_the_groups_before_any_per_group_work(tmp_path, monkeypatch, engine):
    """50 groups over a limit lowered to 20: profile and compare refuse with the same line
    before ordering (or profiling) a single group — an ID column no longer runs for minutes."""
    import beyondchance.engines.profile_files as profile_files

    monkeypatch.setattr("beyondchance.engines.groups.MAX_GROUPS", 20, raising=False)

    def no_group_work(values):
        raise AssertionError(f"{len(values)} groups ordered before they were counted")

    monkeypatch.setattr(profile_files, "natural_order", no_group_work)
    path = _ids_csv(tmp_path / "ids.csv", 50)
    args = ["--by", "id", "--y-true", "y", "--y-score", "s", "--no-ci", *_engine(engine)]
    profiled = CliRunner().invoke(main, ["profile", str(path), "--out", str(tmp_path / "p.bcstats"), *args])
    compared = CliRunner().invoke(main, ["compare", str(path), *args])
    line = one_line_error(profiled, "--by id has 50 distinct values", "at most 20 groups")
    assert one_line_error(compared) == line
    assert not list(tmp_path.glob("p*.bcstats"))


# ======================================================================================
# many classes as JSON and HTML: nothing of k² beyond the report's own matrix
# ======================================================================================


def _classes_csv(path, k, n):
    rng = np.random.default_rng(1)
    y = np.arange(n) % k
    p = np.where(rng.uniform(size=n) < 0.7, y, rng.integers(0, k, n))
    path.write_text("y,p\n" + "".join(f"c{a},c{b}\n" for a, b in zip(y, p)))
    return path, y, p


@pytest.mark.parametrize("engine", ENGINES)
def test_json_of_many_classes_gives_the_nonempty_cells(tmp_path, monkeypatch, engine):
    """Beyond MAX_DENSE_CLASSES the JSON gives the non-empty cells (at most one per row),
    not a k × k matrix with its rates — lossless, and bounded by the rows."""
    monkeypatch.setattr("beyondchance.report.per_class.MAX_DENSE_CLASSES", 100, raising=False)
    path, y, p = _classes_csv(tmp_path / "k.csv", 300, 600)
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", "p", "--no-ci",
                                       "--format", "json", *_engine(engine)])
    assert result.exit_code == 0, result.output
    cm = json.loads(result.stdout)["confusion_matrix"]
    assert "matrix" not in cm and "rates" not in cm, sorted(cm)
    assert "300 classes" in cm["note"] and len(cm["cells"]) <= 600
    labels = cm["labels"]
    got = {(labels[i], labels[j]): count for i, j, count, _ in cm["cells"]}
    want: dict = {}
    for a, b in zip(y, p):
        want[(f"c{a}", f"c{b}")] = want.get((f"c{a}", f"c{b}"), 0) + 1
    assert got == want


@pytest.mark.parametrize("engine", ENGINES)
def test_html_of_many_classes_has_no_k_squared_table(tmp_path, engine):
    """Over 50 classes the HTML report states that the matrix is not shown (the per-class
    rows are kept): 10^4 classes made a table of 10^8 cells."""
    path, _, _ = _classes_csv(tmp_path / "k.csv", 120, 240)
    out = tmp_path / "k.html"
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", "p", "--no-ci",
                                       "--format", "html", "--out", str(out), *_engine(engine)])
    assert result.exit_code == 0, result.output
    html = out.read_text()
    assert "id='confusion'" not in html
    assert "The confusion matrix of 120 classes" in html and "id='per-class'" in html
    assert html.count("data-class=") == 120


# ======================================================================================
# the memory available: MemAvailable, the cgroup, RLIMIT_AS
# ======================================================================================


GB = 1 << 30


@pytest.fixture
def fake_proc(tmp_path, monkeypatch):
    """Fake /proc/meminfo, /proc/self/cgroup, /sys/fs/cgroup and /proc/self/status, and no
    RLIMIT_AS; returns a function writing them."""
    import resource

    root = tmp_path / "cgroup"
    root.mkdir()
    paths = {"meminfo": tmp_path / "meminfo", "cgroup": tmp_path / "self_cgroup", "status": tmp_path / "status"}
    for attr, value in (("_MEMINFO", paths["meminfo"]), ("_CGROUP_OF_PROCESS", paths["cgroup"]),
                        ("_CGROUP_ROOT", root), ("_PROCESS_STATUS", paths["status"])):
        monkeypatch.setattr(files, attr, str(value), raising=False)
    limits = {"as": resource.RLIM_INFINITY}
    monkeypatch.setattr(resource, "getrlimit",
                        lambda which: (limits["as"], resource.RLIM_INFINITY) if which == resource.RLIMIT_AS
                        else (resource.RLIM_INFINITY, resource.RLIM_INFINITY))

    def write(*, available=20 * GB, cgroup="0::/job\n", v2=None, v1=None, rlimit=None, vmsize=0):
        paths["meminfo"].write_text(f"MemTotal: {64 * GB // 1024} kB\nMemAvailable: {available // 1024} kB\n")
        paths["cgroup"].write_text(cgroup)
        paths["status"].write_text(f"Name:\tpython\nVmSize:\t{vmsize // 1024} kB\n")
        if v2 is not None:
            (root / "job").mkdir(exist_ok=True)
            (root / "job" / "memory.max").write_text(f"{v2[0]}\n")
            (root / "job" / "memory.current").write_text(f"{v2[1]}\n")
        if v1 is not None:
            (root / "memory" / "job").mkdir(parents=True, exist_ok=True)
            (root / "memory" / "job" / "memory.limit_in_bytes").write_text(f"{v1[0]}\n")
            (root / "memory" / "job" / "memory.usage_in_bytes").write_text(f"{v1[1]}\n")
        limits["as"] = resource.RLIM_INFINITY if rlimit is None else rlimit

    return write


@pytest.mark.parametrize("case, expected", [
    (dict(), 20 * GB),                                                   # MemAvailable alone
    (dict(v2=(4 * GB, 1 * GB)), 3 * GB),                                 # a 4 GB container, 1 GB used
    (dict(v2=("max", 1 * GB)), 20 * GB),                                 # a cgroup without a limit
    (dict(cgroup="4:memory:/job\n0::/\n", v1=(2 * GB, GB // 2)), 3 * GB // 2),  # cgroup v1
    (dict(cgroup="4:memory:/job\n", v1=(2 ** 63 - 4096, 0)), 20 * GB),   # v1 "no limit"
    (dict(rlimit=3 * GB, vmsize=2 * GB), 1 * GB),                        # ulimit -v: the address space left
    (dict(v2=(8 * GB, 1 * GB), rlimit=6 * GB, vmsize=1 * GB, available=9 * GB), 5 * GB),  # the least of three
])
def test_available_memory_reads_cgroup_and_rlimit(fake_proc, case, expected):
    fake_proc(**case)
    assert files.available_memory() == expected


def test_a_file_beyond_the_cgroup_limit_is_refused_not_killed(tmp_path, fake_proc):
    """A 4 GB container (here: 200 kB left) — the memory engine refuses the file in one line
    naming --engine duckdb, where the kernel killed it (exit 137) after reading MemAvailable."""
    fake_proc(v2=(4 * GB, 4 * GB - 200_000))
    path = _ids_csv(tmp_path / "big.csv", 2000)  # 60 kB: about 480 kB in memory
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-score", "s", "--no-ci"])
    one_line_error(result, "big.csv", "available", "--engine duckdb")


# ======================================================================================
# memory exhausted: exit 3, one line naming --engine duckdb
# ======================================================================================


_UNDER_RLIMIT = textwrap.dedent("""
    import resource, sys
    import beyondchance.cli as cli
    import beyondchance.report, beyondchance.engines.files, beyondchance.report.render.terminal  # mapped before the limit
    import pandas, pyarrow.csv

    def vm_size():
        with open("/proc/self/status") as fh:
            return next(int(line.split()[1]) * 1024 for line in fh if line.startswith("VmSize:"))

    headroom = int(sys.argv[1])
    resource.setrlimit(resource.RLIMIT_AS, (vm_size() + headroom, resource.getrlimit(resource.RLIMIT_AS)[1]))
    sys.argv = ["beyondchance", *sys.argv[2:]]
    cli.main()
""")


def _under_rlimit(headroom, *args):
    """The command line in a subprocess whose address space may grow by ``headroom`` bytes
    beyond what its imports took (``ulimit -v``)."""
    if not os.path.exists("/proc/self/status"):
        pytest.skip("no /proc/self/status")
    env = dict(os.environ, PYTHONPATH=SRC, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    env.pop("BEYONDCHANCE_DEBUG", None)
    return subprocess.run([sys.executable, "-c", _UNDER_RLIMIT, str(headroom), *map(str, args)], env=env,
                          capture_output=True, text=True, timeout=120)


def _one_line(proc, status, *words):
    err = proc.stderr.strip()
    assert proc.returncode == status, (proc.returncode, err[-2000:])
    assert err.startswith("beyondchance: error:") and "\n" not in err, err[-2000:]
    for word in words:
        assert word in err, (word, err)


def test_memory_exhausted_is_exit_3_naming_duckdb(tmp_path):
    """10^4 classes in 118 kB need an 800 MB matrix: under a 400 MB ulimit that is memory
    exhausted — exit 3, one line naming --engine duckdb (it was a raw MemoryError line).
    (DuckDB's own threads may abort on a failed allocation under so tight a ulimit, which no
    handler can catch: DuckDB is tested with its memory_limit below.)"""
    path, _, _ = _classes_csv(tmp_path / "k.csv", 10_000, 10_000)
    proc = _under_rlimit(400 << 20, "report", path, "--y-true", "y", "--y-pred", "p", "--no-ci")
    _one_line(proc, 3, "memory exhausted", "--engine duckdb")


def test_ulimit_is_the_memory_available(tmp_path):
    """A 2 MB CSV under ulimit -v with 8 MB left: refused before reading, naming --engine
    duckdb (it was pyarrow's "malloc of size … failed", read as a bad CSV)."""
    path = _ids_csv(tmp_path / "big.csv", 40_000, 4)  # about 2.5 MB
    proc = _under_rlimit(8 << 20, "report", path, "--y-true", "y", "--y-score", "s", "--no-ci")
    _one_line(proc, 2, "big.csv", "available", "--engine duckdb")


def test_arrow_malloc_failure_is_exit_3(tmp_path, monkeypatch):
    """pyarrow's ArrowMemoryError ("malloc of size … failed") is memory exhausted (exit 3),
    not a CSV it cannot read (exit 2)."""
    import pyarrow as pa
    import pyarrow.csv as pacsv

    def failing(*args, **kwargs):
        raise pa.ArrowMemoryError("malloc of size 1048576 failed")

    monkeypatch.setattr(pacsv, "read_csv", failing)
    path = _ids_csv(tmp_path / "s.csv", 20)
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-score", "s", "--no-ci"])
    one_line_error(result, "memory exhausted", "malloc of size 1048576 failed", "--engine duckdb", status=3)


def test_duckdb_out_of_memory_is_exit_3(tmp_path, monkeypatch):
    """DuckDB's "Out of Memory Error" (its memory_limit reached) is exit 3, not "DuckDB could
    not evaluate the input" (exit 2)."""
    duckdb = pytest.importorskip("duckdb")
    connect = duckdb.connect

    def small(*args, **kwargs):
        con = connect(*args, **kwargs)
        con.execute("SET memory_limit = '1MB'")
        return con

    monkeypatch.setattr(duckdb, "connect", small)
    monkeypatch.setattr("beyondchance.engines.duckdb.DuckDBRunner._limit_memory", lambda self: None, raising=False)
    path, _, _ = _classes_csv(tmp_path / "k.csv", 5000, 20_000)
    result = CliRunner().invoke(main, ["report", str(path), "--y-true", "y", "--y-pred", "p", "--no-ci",
                                       "--engine", "duckdb"])
    one_line_error(result, "memory exhausted", "--engine duckdb", status=3)


# ======================================================================================
# Ctrl-C during the imports
# ======================================================================================


_SLOW_IMPORT = textwrap.dedent("""
    import sys, time

    class _Slow:
        def find_spec(self, name, path=None, target=None):
            if name == "numpy":
                sys.stderr.write("importing numpy\\n")
                sys.stderr.flush()
                time.sleep(60)
            return None

    sys.meta_path.insert(0, _Slow())
""")


@pytest.mark.parametrize("entry", ["console-script", "python -m"])
def test_ctrl_c_during_the_imports_is_one_line_and_130(tmp_path, entry):
    """A real SIGINT while the package imports numpy (held there by an import hook of this
    test): exit 130 and one line, where Python printed a traceback of 14-40 lines."""
    (tmp_path / "sitecustomize.py").write_text(_SLOW_IMPORT)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), SRC]))
    script = "import sys; sys.argv[0] = 'beyondchance'; from beyondchance.cli import main; sys.exit(main())"
    command = [sys.executable, "-c", script] if entry == "console-script" else [sys.executable, "-m",
                                                                                "beyondchance.cli"]
    proc = subprocess.Popen([*command, "report", "x.csv"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        assert proc.stderr.readline() == "importing numpy\n"
        proc.send_signal(signal.SIGINT)
        err = proc.stderr.read()
        proc.wait(timeout=60)
    finally:
        proc.kill()
    assert proc.returncode == 130, (proc.returncode, err)
    assert err.strip() == "beyondchance: interrupted", err
