"""Test-session setup: reproducible property tests in CI, one Spark session, an isolated cache.

Hypothesis profiles
-------------------
* ``ci`` — loaded automatically when the environment variable ``CI`` is set (``.ci/run``
  runs with ``CI=true``): ``derandomize=True`` (the examples are a function of each
  test's source, the same on every run and every clone), ``database=None`` (no replay of
  failures saved by an earlier run) and ``print_blob=True`` (a failure prints the
  ``@reproduce_failure`` line that replays it anywhere).  ``.ci/run`` sets ``CI=true``
  when it is not set.
* ``dev`` — everywhere else: random examples and the local example database, so the
  property tests keep exploring new inputs on every local run.

``--hypothesis-profile NAME`` overrides the choice.  The profile is loaded here, before
the test modules are imported, so their ``settings(max_examples=..., deadline=None)``
objects inherit it; none of them sets ``derandomize``, ``database`` or ``print_blob``
(tests/test_suite_setup.py checks this).  The pytest
header names the profile in use.
"""

from __future__ import annotations

import os
import shutil

import pytest
from hypothesis import settings

# deadline=None in both: no test may depend on the machine being idle
settings.register_profile("ci", derandomize=True, database=None, print_blob=True, deadline=None)
settings.register_profile("dev", deadline=None)
settings.load_profile("ci" if os.environ.get("CI") else "dev")

# Under pytest-xdist each worker already holds a core: BLAS threads on top of the workers
# oversubscribe the machine (an eigendecomposition of 300 x 300 took 8x longer on two busy
# cores). One BLAS thread per worker, and per subprocess the tests start (the CLI tests).
if os.environ.get("PYTEST_XDIST_WORKER"):
    for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
        os.environ.setdefault(_var, "1")
    from threadpoolctl import threadpool_limits

    threadpool_limits(1)

#: the settings a test's own ``@settings`` must leave to the profile
PROFILE_SETTINGS = ("derandomize", "database", "print_blob")


def pytest_report_header(config: pytest.Config) -> list[str]:
    current = settings()
    return [
        f"hypothesis profile: {settings._current_profile!r} (CI={os.environ.get('CI', '')!r}; "
        f"derandomize={current.derandomize}, database={'none' if current.database is None else 'local'}, "
        f"print_blob={current.print_blob})",
        "numpy random data: fixed seeds in each test (np.random.default_rng(<int>)); no session seed",
    ]


@pytest.fixture(scope="session", autouse=True)
def _isolated_reference_cache(tmp_path_factory: pytest.TempPathFactory):
    """The DBT reference cache of this session (and of the CLI subprocesses it starts) is
    a fresh directory: no test reads files left by an earlier run or by the user."""
    previous = os.environ.get("BEYONDCHANCE_CACHE_DIR")
    os.environ["BEYONDCHANCE_CACHE_DIR"] = str(tmp_path_factory.mktemp("reference-cache"))
    yield
    if previous is None:
        os.environ.pop("BEYONDCHANCE_CACHE_DIR", None)
    else:
        os.environ["BEYONDCHANCE_CACHE_DIR"] = previous


#: Test modules whose module-scoped fixture takes long (the experiments' quick runs, the
#: documentation build, the wheel, the six months of the example): each runs on one worker,
#: so its fixture is computed once per session and no worker waits on the other's build.
ONE_WORKER_MODULES = ("test_docs", "test_experiments_ops", "test_experiments_pa", "test_experiments_pure",
                      "test_monitoring_screen", "test_release")


def work_unit(nodeid: str) -> str:
    """The unit of work pytest-xdist hands to one worker for the test ``nodeid``: ``"spark"``
    for every test of Spark (its name or parameters say ``spark``; one worker alone starts a
    JVM, 10-15 s of a core and its memory), the module for :data:`ONE_WORKER_MODULES`, else
    the test itself (handed to whichever worker is free, as ``--dist load`` does).

    >>> work_unit("tests/test_engines.py::test_report_spark_equals_rows")
    'spark'
    >>> work_unit("tests/test_docs.py::test_pages_and_gallery")
    'test_docs'
    >>> work_unit("tests/test_stats.py::test_x[3]")
    'tests/test_stats.py::test_x[3]'
    """
    module = nodeid.split("::")[0].rsplit("/", 1)[-1].removesuffix(".py")
    if module in ONE_WORKER_MODULES:
        return module
    if nodeid.startswith("tests/") and "spark" in nodeid.split("::", 1)[-1]:
        return "spark"
    return nodeid


def uses_spark(item: pytest.Item) -> bool:
    """The test asks for the ``spark`` fixture, or is the ``engine="spark"`` case of a test
    that asks for it by name (``request.getfixturevalue("spark")``)."""
    callspec = getattr(item, "callspec", None)
    return "spark" in getattr(item, "fixturenames", ()) or (
        callspec is not None and callspec.params.get("engine") == "spark")


def pytest_xdist_make_scheduler(config: pytest.Config, log):
    """Under ``-n`` with the default ``--dist load``: the units of :func:`work_unit`, the
    largest first (xdist's ``loadgroup`` cannot be used: with pytest 9 it no longer sees the
    group marks). Another ``--dist`` given on the command line is left to xdist."""
    if config.getoption("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class WorkUnitScheduling(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return work_unit(nodeid)

    return WorkUnitScheduling(config, log)


def one_line_error(result, *words: str, status: int = 2) -> str:
    """The stderr line of a command run by click's ``CliRunner`` that failed as the CLI
    promises: exit ``status`` (2: bad input), one line ``beyondchance: error: ...`` holding
    each of ``words``; the line."""
    assert result.exit_code == status, (result.exit_code, result.output)
    err = result.stderr.strip()
    assert err.startswith("beyondchance: error:") and "\n" not in err, err
    for word in words:
        assert word in err, (word, err)
    return err


def spark_unavailable() -> str | None:
    """Why Spark cannot run here, or None."""
    try:
        import pyspark  # noqa: F401
    except ImportError:
        return "pyspark is not installed (pip install 'beyondchance[spark]')"
    if not (shutil.which("java") or os.environ.get("JAVA_HOME")):
        return "no Java runtime (java on PATH or JAVA_HOME) for Spark"
    return None


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession per test session (per pytest-xdist worker), shared by every
    Spark test; the CLI's ``--engine spark`` run in-process reuses it (``getOrCreate``)."""
    reason = spark_unavailable()
    if reason:
        pytest.skip(reason)
    from pyspark.sql import SparkSession

    session = (
        SparkSession.builder.master("local[2]")
        .appName("beyondchance-tests")
        .config("spark.ui.enabled", "false")
        .config("spark.ui.showConsoleProgress", "false")
        .config("spark.sql.shuffle.partitions", "2")
        .config("spark.default.parallelism", "2")
        .config("spark.driver.memory", "1g")
        .config("spark.sql.execution.arrow.pyspark.enabled", "true")
        .getOrCreate()
    )
    session.sparkContext.setLogLevel("ERROR")
    yield session
    session.stop()


def quiet(f, *args, **kwargs):
    """``f(*args, **kwargs)`` with its warnings silenced (a report's notes on small test data)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return f(*args, **kwargs)
