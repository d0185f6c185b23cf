"""The release: ``python -m build`` makes a wheel that installs into a fresh virtual
environment, where ``beyondchance demo`` runs and every public name imports.

The build reads setuptools from the package registries configured for pip (as
``pip install .`` does); nothing else is downloaded: the fresh environment gets the wheel
alone (``--no-deps --no-index``) and reads the dependencies already installed for the
tests through a path file, so the test checks the wheel's own contents (modules, bundled
data, reference tables, the console script) and its declared requirements (``pip check``).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import sysconfig
import tomllib
import venv
import zipfile
from pathlib import Path

import pytest

import beyondchance

ROOT = Path(__file__).resolve().parents[1]
#: The wheel's size limit: the shipped reference tables are about 10 MB of float64 values
#: that hardly compress, the bundled data sets 0.7 MB, the code 0.4 MB.
MAX_WHEEL_BYTES = 12_000_000


def _clean_env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV")}
    return {**env, "PYTHONNOUSERSITE": "1", **extra}


def _run(args: list[str], cwd: Path, **extra: str) -> subprocess.CompletedProcess:
    result = subprocess.run(args, cwd=cwd, env=_clean_env(**extra), capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, f"{args} failed:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    return result


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    pytest.importorskip("build")
    out = tmp_path_factory.mktemp("dist")
    _run([sys.executable, "-m", "build", "--wheel", "--outdir", str(out), str(ROOT)], cwd=out)
    (path,) = out.glob("beyondchance-*.whl")
    return path


def test_version_has_one_source():
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in pyproject["project"] and "version" in pyproject["project"]["dynamic"]
    assert pyproject["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "beyondchance._version.__version__"}
    changelog = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[?{re.escape(beyondchance.__version__)}\]?", changelog, re.MULTILINE), (
        "CHANGELOG.md has no section for the current version")


def test_wheel_contents(wheel):
    assert wheel.name == f"beyondchance-{beyondchance.__version__}-py3-none-any.whl"
    assert wheel.stat().st_size < MAX_WHEEL_BYTES
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"beyondchance", f"beyondchance-{beyondchance.__version__}.dist-info"}
    assert not [n for n in names if "__pycache__" in n or n.endswith(".pyc") or "/tests/" in n]
    for shipped in ("beyondchance/py.typed", "beyondchance/datasets/data/haberman.dat",
                    "beyondchance/datasets/data/modeldata_credit_data.csv",
                    "beyondchance/outperformance/_reference/dbt10.npy",
                    "beyondchance/outperformance/_reference/dbt10_lift.json"):
        assert shipped in names
    entry_points = zipfile.ZipFile(wheel).read(
        f"beyondchance-{beyondchance.__version__}.dist-info/entry_points.txt").decode()
    assert "beyondchance = beyondchance.cli:main" in entry_points


def test_wheel_installs_and_runs(wheel, tmp_path):
    env_dir = tmp_path / "venv"
    venv.EnvBuilder(with_pip=False).create(env_dir)
    python = env_dir / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    site = Path(_run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                     cwd=tmp_path).stdout.strip())
    # the dependencies installed for this test run, after the environment's own packages
    deps = {sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}
    (site / "_test_dependencies.pth").write_text("\n".join(sorted(deps)) + "\n", encoding="utf-8")
    _run([sys.executable, "-m", "pip", "--python", str(python), "install", "--no-deps", "--no-index",
          "--no-cache-dir", "--disable-pip-version-check", str(wheel)], cwd=tmp_path)
    _run([sys.executable, "-m", "pip", "--python", str(python), "check"], cwd=tmp_path)

    probe = (
        "import beyondchance as bc, importlib.metadata as md\n"
        "missing = [n for n in bc.__all__ if not hasattr(bc, n)]\n"
        "assert not missing, missing\n"
        "print(bc.__file__); print(md.version('beyondchance')); print(len(bc.__all__))\n"
    )
    where, version, count = _run([str(python), "-c", probe], cwd=tmp_path).stdout.split()
    assert Path(where).is_relative_to(site)  # the installed wheel, not the source tree
    assert version == beyondchance.__version__
    assert int(count) == len(beyondchance.__all__)

    script = env_dir / ("Scripts/beyondchance.exe" if os.name == "nt" else "bin/beyondchance")
    assert _run([str(script), "--version"], cwd=tmp_path).stdout.strip().endswith(beyondchance.__version__)
    demo = _run([str(script), "demo"], cwd=tmp_path, MPLBACKEND="Agg")
    assert "Haberman" in demo.stdout
    html = (tmp_path / "beyondchance-demo.html").read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and beyondchance.__version__ in html
