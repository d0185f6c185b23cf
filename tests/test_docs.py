"""The documentation site builds with warnings as errors: every page, every docstring of
the API reference (numpydoc), every cross-reference, every gallery example (run at build
time, showing its plot); and every public name has its page in the API reference."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import beyondchance

DOCS = Path(__file__).resolve().parents[1] / "docs"

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("pydata_sphinx_theme")
pytest.importorskip("myst_parser")


def _sphinx(source: Path, out: Path) -> subprocess.CompletedProcess:
    """The README's build command, into ``out``."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(source), str(out / "html")],
        capture_output=True, text=True, timeout=900,
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("docs")
    result = _sphinx(DOCS, out)
    assert result.returncode == 0, f"the documentation build failed:\n{result.stdout[-4000:]}\n{result.stderr[-8000:]}"
    return out / "html"


def test_every_public_name_in_the_api_reference(site):
    api = (site / "api.html").read_text(encoding="utf-8")
    missing = [name for name in beyondchance.__all__
               if not (site / "generated" / f"beyondchance.{name}.html").is_file()
               or f"generated/beyondchance.{name}.html" not in api]
    assert not missing, f"public names without an API page: {missing}"
    for sub in beyondchance.__dir__():
        module = getattr(beyondchance, sub)
        if not isinstance(module, type(beyondchance)) or sub == "experiments":
            continue
        for name in module.__all__:
            if name not in beyondchance.__all__:
                assert (site / "generated" / f"{module.__name__}.{name}.html").is_file(), f"{module.__name__}.{name}"


def test_pages_and_gallery(site):
    for page in ("index", "install", "auto_guide/plot_which_number", "measures/prediction_advantage",
                 "measures/pure_accuracy", "measures/outperformance", "measures/labeling_metrics",
                 "howto/cli", "howto/report", "howto/compare", "howto/engines", "howto/learners",
                 "reproductions", "changelog", "auto_examples/index", "architecture"):
        assert (site / f"{page}.html").is_file(), page
    examples = sorted(p.stem for p in (DOCS / "examples").glob("plot_*.py"))
    assert len(examples) >= 4
    for stem in [*examples, "plot_which_number"]:
        gallery = "auto_guide" if stem == "plot_which_number" else "auto_examples"
        html = (site / gallery / f"{stem}.html").read_text(encoding="utf-8")
        assert re.search(rf'src="../_images/sphx_glr_{stem}_001\.png"', html), f"{stem} shows no plot"
        assert "sphx-glr-script-out" in html, f"{stem} shows no output"
    # generated at build time from the code: the registry table and the commands' help
    metrics = (site / "measures" / "labeling_metrics.html").read_text(encoding="utf-8")
    assert all(f"<code class=\"docutils literal notranslate\"><span class=\"pre\">{m}</span></code>" in metrics
               for m in beyondchance.measures.METRICS)
    cli = (site / "howto" / "cli.html").read_text(encoding="utf-8")
    assert all(f"beyondchance {c}" in cli for c in ("report", "compare", "demo", "example", "reproduce"))


@pytest.mark.parametrize("broken", ["reference", "example"])
def test_a_broken_example_or_reference_fails_the_build(tmp_path, broken):
    """The same configuration on a small site with one reference to a name that does not
    exist, or with one raising example: the build fails and names it."""
    source = tmp_path / "src"
    for folder in ("guide", "examples", "measures", "howto"):
        (source / folder).mkdir(parents=True)
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    # the generated API reference is not needed here (its pages take most of a build)
    (source / "conf.py").write_text(conf + '\nexclude_patterns.append("api.rst")\n', encoding="utf-8")
    shutil.copytree(DOCS / "_templates", source / "_templates")
    reference = "See :func:`beyondchance.no_such_function`.\n\n" if broken == "reference" else ""
    (source / "index.rst").write_text(f"Test\n====\n\n{reference}.. toctree::\n\n   auto_guide/index\n"
                                      "   auto_examples/index\n", encoding="utf-8")
    for folder in ("guide", "examples"):
        (source / folder / "GALLERY_HEADER.rst").write_text(f"{folder}\n{'=' * len(folder)}\n", encoding="utf-8")
    body = 'raise ValueError("on purpose")' if broken == "example" else "print(1)"
    (source / "examples" / "plot_small.py").write_text(f'"""\nSmall\n=====\n"""\n{body}\n', encoding="utf-8")
    result = _sphinx(source, tmp_path / "out")
    assert result.returncode != 0
    output = result.stdout + result.stderr
    if broken == "reference":
        assert "beyondchance.no_such_function" in output
    else:
        assert "plot_small.py" in output and "on purpose" in output
