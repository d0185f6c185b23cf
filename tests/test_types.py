"""Types that hold: ``mypy src/beyondchance`` with the ``[tool.mypy]`` configuration of
pyproject.toml finds no issue (the package ships ``py.typed``, so its annotations are a promise
to its users' type checkers).

mypy runs in a subprocess (``sys.executable -m mypy``) with its cache in a temporary folder, so a
run starts cold (about a minute on two cores); set ``MYPY_CACHE_DIR`` to keep the cache between runs."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "beyondchance"

pytestmark = pytest.mark.skipif(importlib.util.find_spec("mypy") is None,
                                reason="mypy is not installed (it is in the test extra: pip install -e '.[test]')")


def test_mypy_finds_no_issue(tmp_path: Path) -> None:
    if not (ROOT / "pyproject.toml").is_file() or not PACKAGE.is_dir():
        pytest.skip("not a source checkout: no pyproject.toml beside src/beyondchance")
    cache = os.environ.get("MYPY_CACHE_DIR") or str(tmp_path / "mypy_cache")
    command = [sys.executable, "-m", "mypy", "--config-file", str(ROOT / "pyproject.toml"), "--cache-dir", cache,
               str(PACKAGE)]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=900)
    assert run.returncode == 0, f"mypy exited with {run.returncode}:\n{run.stdout}{run.stderr}"
