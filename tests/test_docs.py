"""The documentation site builds with warnings as errors: every page, every docstring of
the API reference (numpydoc), every cross-reference, every gallery example (run at build
time, showing its plot); and every public name has its page in the API reference.

The site works offline: no page loads a script or a stylesheet from another host, and the
formulas are typeset by the MathJax shipped in ``docs/_static/mathjax`` (checked in headless
Chromium with every remote host unreachable, where Chromium is installed). The landing page
holds the install line, an example whose output is checked (a doctest, run by the build and
here) and the picture of its verdict."""

from __future__ import annotations

import doctest
import io
import json
import os
import re
import shutil
import subprocess
import sys
from html import unescape
from pathlib import Path

import pytest

import beyondchance

DOCS = Path(__file__).resolve().parents[1] / "docs"

pytest.importorskip("sphinx")
pytest.importorskip("numpydoc")
pytest.importorskip("sphinx_gallery")
pytest.importorskip("pydata_sphinx_theme")
pytest.importorskip("myst_parser")


def _chromium() -> str | None:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        if shutil.which(name):
            return shutil.which(name)
    return None


CHROMIUM = _chromium()


def _sphinx(source: Path, out: Path) -> subprocess.CompletedProcess:
    """The README's build command, into ``out``."""
    return subprocess.run(
        [sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b", "html",
         "-d", str(out / "doctrees"), str(source), str(out / "html")],
        capture_output=True, text=True, timeout=900,
    )


def _build_site(out: Path) -> dict:
    """The site built from a copy of the sources: conf.py writes the API stubs, the CLI help
    and the picture into its own folder, so a stale local build never shares those files.
    The copy keeps the layout conf.py reads (``../src``, ``../CHANGELOG.md``)."""
    root = out / "repo"
    shutil.copytree(DOCS, root / "docs", ignore=shutil.ignore_patterns(
        "_build", "generated", "_generated", "auto_examples", "auto_guide", "sg_execution_times.rst"))
    shutil.copy(DOCS.parent / "CHANGELOG.md", root / "CHANGELOG.md")
    (root / "src").symlink_to(DOCS.parent / "src", target_is_directory=True)
    result = _sphinx(root / "docs", out)
    return {"returncode": result.returncode, "output": f"{result.stdout[-4000:]}\n{result.stderr[-8000:]}"}


@pytest.fixture(scope="session")
def site(tmp_path_factory) -> Path:
    """The site, built once per test session: under pytest-xdist the workers share the
    session's folder and the first to ask builds it while the others wait on a lock (a
    build takes minutes; two at once on two cores took twice the machine)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent  # the controller's folder of this session, common to its workers
    out, record = shared / "docs-site", shared / "docs-site.json"
    try:
        import fcntl
    except ImportError:  # pragma: no cover - not POSIX: each worker builds its own
        fcntl = None
        out, record = tmp_path_factory.mktemp("docs-site"), tmp_path_factory.getbasetemp() / "docs-site.json"
    with open(shared / "docs-site.lock", "w") as lock:
        if fcntl is not None:
            fcntl.flock(lock, fcntl.LOCK_EX)
        if not record.exists():
            out.mkdir(exist_ok=True)
            record.write_text(json.dumps(_build_site(out)), encoding="utf-8")
        result = json.loads(record.read_text(encoding="utf-8"))
    assert result["returncode"] == 0, f"the documentation build failed:\n{result['output']}"
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


def _landing_doctest() -> tuple[doctest.DocTestRunner, str]:
    source = DOCS / "index.rst"
    test = doctest.DocTestParser().get_doctest(source.read_text(encoding="utf-8"), {}, "index", str(source), 0)
    out = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False)
    runner.run(test, out=out.write)
    return runner, out.getvalue()


def test_the_landing_page_example_prints_what_the_page_shows():
    """The example of ``index.rst`` is a doctest: run on its own (the build runs it too)."""
    runner, report = _landing_doctest()
    attempted = runner.summarize(verbose=False).attempted
    assert attempted >= 10 and runner.failures == 0, report


def test_the_landing_page(site):
    """Install line, the example with its output, the picture of its verdict."""
    html = (site / "index.html").read_text(encoding="utf-8")
    text = unescape(re.sub(r"<[^>]+>", "", html))
    assert ".venv/bin/pip install ." in text
    assert 'report = bc.evaluate(data.y, proba[:, 1], random_state=0)' in text
    assert "Accuracy 73.5% is no better than always predicting 0 (73.5%): prediction" in text
    assert re.search(r'<img alt="[^"]+" src="_images/verdict\.png"', html)
    picture = site / "_images" / "verdict.png"
    assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and 10_000 < picture.stat().st_size < 300_000


@pytest.mark.parametrize("broken", ["reference", "example", "landing"])
def test_a_broken_example_or_reference_fails_the_build(tmp_path, broken):
    """The same configuration on a small site with one reference to a name that does not
    exist, with one raising example, or with a landing page whose doctest does not print
    what the page shows: the build fails and names it."""
    source = tmp_path / "src"
    for folder in ("guide", "examples", "measures", "howto"):
        (source / folder).mkdir(parents=True)
    conf = (DOCS / "conf.py").read_text(encoding="utf-8")
    # the generated API reference is not needed here (its pages take most of a build)
    (source / "conf.py").write_text(conf + '\nexclude_patterns.append("api.rst")\n', encoding="utf-8")
    shutil.copytree(DOCS / "_templates", source / "_templates")
    reference = {"reference": "See :func:`beyondchance.no_such_function`.\n\n",
                 "landing": ">>> report = None\n>>> print(1 + 1)\n3\n\n"}.get(broken, "")
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
    elif broken == "landing":
        assert "index.rst" in output and "does not print what the page shows" in output
        assert "Expected:\n    3\nGot:\n    2" in output
    else:
        assert "plot_small.py" in output and "on purpose" in output


#: a script or stylesheet fetched from another host: an absolute (or protocol-relative) URL
#: in the src or href of a <script> or <link> tag
_REMOTE_ASSET = re.compile(r"""<(?:script|link)\b[^>]*?\b(?:src|href)\s*=\s*["']?(?:https?:)?//[^"'\s>]*""",
                           re.IGNORECASE)


def test_no_page_loads_from_another_host(site):
    pages = sorted(site.rglob("*.html"))
    assert len(pages) > 100
    remote = {str(p.relative_to(site)): _REMOTE_ASSET.findall(p.read_text(encoding="utf-8")) for p in pages}
    remote = {page: tags for page, tags in remote.items() if tags}
    assert not remote, f"pages loading a script or stylesheet from another host: {remote}"
    # the scan finds one: the default MathJax address Sphinx would use
    assert _REMOTE_ASSET.search('<script defer="defer" src="https://cdn.jsdelivr.net/npm/mathjax@4/tex-mml-chtml.js">')
    assert _REMOTE_ASSET.search("<link rel=stylesheet href=//cdn.example.org/a.css>")


def test_formulas_use_the_shipped_mathjax(site):
    page = (site / "measures" / "prediction_advantage.html").read_text(encoding="utf-8")
    assert r"\mathrm{PA}_\ell(f) = 1 - \frac{R_\ell(f)}{R_\ell(f_0)}" in page  # TeX, for MathJax to typeset
    assert re.search(r'<script[^>]*src="\.\./_static/mathjax/tex-svg-full\.js(\?[^"]*)?"', page)
    shipped = site / "_static" / "mathjax" / "tex-svg-full.js"
    assert shipped.stat().st_size > 1_000_000 and (site / "_static" / "mathjax" / "LICENSE").is_file()
    # every page with a formula loads it
    for path in site.rglob("*.html"):
        html = path.read_text(encoding="utf-8")
        if 'class="math notranslate nohighlight"' in html:
            assert "_static/mathjax/tex-svg-full.js" in html, path.relative_to(site)


@pytest.mark.skipif(CHROMIUM is None, reason="Chromium is not installed (Debian: apt-get install -y chromium); "
                                             "the typeset formulas are not checked in a browser")
def test_formulas_render_offline_in_chromium(site, tmp_path):
    """The page of the prediction advantage in headless Chromium, every remote host
    unreachable (a proxy on a closed local port): each formula becomes an SVG, none is
    left as raw TeX."""
    path = site / "measures" / "prediction_advantage.html"
    n_math = path.read_text(encoding="utf-8").count('class="math notranslate nohighlight"')
    assert n_math > 20
    result = subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
         "--disable-background-networking", "--disable-component-update", "--proxy-server=127.0.0.1:9",
         f"--user-data-dir={tmp_path / 'profile'}", "--virtual-time-budget=10000", "--dump-dom",
         path.resolve().as_uri()],
        capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-2000:]
    dom = result.stdout
    assert dom.count("<mjx-container") == n_math
    assert len(re.findall(r'<mjx-container[^>]*jax="SVG"[^>]*>\s*<svg', dom)) == n_math
    assert "\\(" not in dom and "\\[" not in dom and "mjx-merror" not in dom
