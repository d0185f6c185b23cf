"""The test suite's own setup (tests/conftest.py): reproducible in CI, exploring locally."""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PROFILE_SETTINGS, uses_spark, work_unit

TESTS = Path(__file__).parent

_PROBE = (
    "import conftest\n"
    "from hypothesis import settings\n"
    "s = settings(max_examples=5)  # as a test module's own settings object\n"
    "print(settings._current_profile, s.derandomize, s.database is None, s.print_blob, s.deadline)\n"
)


@pytest.mark.parametrize("ci, expected", [("true", "ci True True True None"), (None, "dev False False False None")])
def test_hypothesis_profile_follows_the_CI_variable(ci, expected):
    env = {k: v for k, v in os.environ.items() if k != "CI"}
    if ci is not None:
        env["CI"] = ci
    r = subprocess.run([sys.executable, "-c", _PROBE], cwd=TESTS, env=env, capture_output=True, text=True,
                       timeout=600)
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == expected.split()


def test_no_test_settings_override_the_profile():
    offenders = []
    for path in sorted(TESTS.glob("*.py")):
        if path.name == "conftest.py":
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Call) and getattr(node.func, "id", getattr(node.func, "attr", None)) == "settings":
                offenders += [f"{path.name}:{node.lineno} {k.arg}=" for k in node.keywords if k.arg in PROFILE_SETTINGS]
    assert not offenders, offenders


def test_ci_runs_with_the_ci_profile():
    """.ci/run exports CI (a command, not a comment) before it runs pytest."""
    lines = [line.strip() for line in (TESTS.parent / ".ci" / "run").read_text().splitlines()]
    commands = [line for line in lines if line and not line.startswith("#")]
    export = next(i for i, line in enumerate(commands) if re.match(r"export CI=\S", line))
    pytest_run = next(i for i, line in enumerate(commands) if "-m pytest" in line)
    assert export < pytest_run


def test_the_header_names_the_profile(pytestconfig):
    import conftest

    header = "\n".join(conftest.pytest_report_header(pytestconfig))
    from hypothesis import settings

    assert f"hypothesis profile: {settings._current_profile!r}" in header


def test_every_spark_test_is_in_the_spark_unit(request):
    """The scheduler of conftest.py sends the Spark tests to one worker by their names: a
    test that takes the session's SparkSession must say ``spark`` in its name or parameters,
    or the other worker starts a second JVM for it."""
    items = request.session.items
    unnamed = [item.nodeid for item in items if uses_spark(item) and work_unit(item.nodeid) != "spark"]
    assert not unnamed, unnamed
    assert any(uses_spark(item) for item in items) or len(items) < 100  # the check saw the suite
