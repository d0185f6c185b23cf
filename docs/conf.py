"""Sphinx configuration of the beyondchance documentation.

Build: ``python -m sphinx -W --keep-going -b html docs docs/_build/html``.

The API reference (``api.rst``) is written here at every build from
``beyondchance.__all__`` and the ``__all__`` of the public subpackages, so a new public
name appears without editing the documentation.
"""

from __future__ import annotations

import inspect
import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "src"))
os.environ.setdefault("MPLBACKEND", "Agg")

import beyondchance  # noqa: E402

project = "beyondchance"
author = "the beyondchance developers"
copyright = "2026, the beyondchance developers"
version = release = beyondchance.__version__

extensions = [
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.mathjax",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
    "myst_parser",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
# included pages (generated below) and the stored outputs of the reproductions are no documents;
# nor are sphinx-gallery's timing pages (not written, see below; an older build may have left them)
exclude_patterns = ["_build", "_static", "howto/cli_help.rst", "measures/metric_table.rst",
                    "reproductions/*/summary.md", "**/GALLERY_HEADER.rst", "sg_execution_times.rst",
                    "**/sg_execution_times.rst"]
templates_path = ["_templates"]
html_theme = "pydata_sphinx_theme"
html_title = f"beyondchance {release}"
html_theme_options = {"navigation_with_keys": False, "show_toc_level": 2}
html_static_path = ["_static"]

# --- the site works offline: no page loads a script or a stylesheet from another host ----
# (tests/test_docs.py scans every page). The formulas are typeset by MathJax 3.2.2 shipped in
# docs/_static/mathjax (its README.txt: where it comes from, how to refresh it) instead of
# Sphinx's default, MathJax from a CDN: offline every formula showed as raw \(...\) TeX.
# SVG output in one file: no web fonts to fetch, every TeX extension included.
mathjax_path = "mathjax/tex-svg-full.js"

autosummary_generate = True
autodoc_typehints = "none"  # numpydoc's Parameters sections give the types
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False
numpydoc_xref_param_type = False
# docstrings' examples run as doctests under pytest; here they are shown
numpydoc_use_plots = False

myst_heading_anchors = 3
myst_enable_extensions = ["dollarmath"]

# a cross-reference to a name that does not exist is an error under -W
nitpicky = True
# the inventories of scikit-learn, pandas, numpy and scipy cannot be fetched offline:
# their names stay unlinked
nitpick_ignore_regex = [(r"py:.*", r"(sklearn|pandas|numpy|scipy)\..*")]

# --- the gallery: examples run at every build (seconds each), their plots shown ---------
sphinx_gallery_conf = {
    "examples_dirs": ["guide", "examples"],
    "gallery_dirs": ["auto_guide", "auto_examples"],
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
    "within_subsection_order": "FileNameSortKey",
    "reset_modules": ("matplotlib",),
    "matplotlib_animations": False,
    "show_memory": False,
    "plot_gallery": "True",
    "run_stale_examples": True,  # every build runs every example (they take seconds)
    # the timing pages (sg_execution_times) load jQuery, DataTables and Bootstrap from CDNs
    "write_computation_times": False,
}


# --- the API reference, generated from __all__ ------------------------------------------
SECTIONS = {  # defining module (the longest matching prefix) -> section title, in this order
    "report": "Reports: evaluate, compare, scorers",
    "monitoring": "Reports: evaluate, compare, scorers",
    "learn.scorers": "Reports: evaluate, compare, scorers",
    "measures.advantage": "Prediction Advantage",
    "measures.losses": "Prediction Advantage: losses and the best constant prediction",
    "measures.pure_accuracy": "Pure Accuracy",
    "measures.confusion": "Labeling metrics and the confusion matrix",
    "measures.registry": "Labeling metrics and the confusion matrix",
    "outperformance": "Outperformance Score",
    "measures": "Curves, their areas, calibration and decision curves",
    "inference": "Confidence intervals and tests",
    "statistics": "Sufficient statistics and engines",
    "engines": "Sufficient statistics and engines",
    "_warnings": "Errors and warnings",
}
#: the public subpackages: their names that are not in ``beyondchance.__all__`` get a section each
SUBPACKAGES = {"beyondchance.measures": "Measures: beyondchance.measures",
               "beyondchance.statistics": "Sufficient statistics: beyondchance.statistics",
               "beyondchance.inference": "Inference: beyondchance.inference",
               "beyondchance.outperformance": "Outperformance score: beyondchance.outperformance",
               "beyondchance.monitoring": "Monitoring: beyondchance.monitoring",
               "beyondchance.report": "Reports: beyondchance.report",
               "beyondchance.engines": "Engines: beyondchance.engines",
               "beyondchance.display": "Displays (matplotlib): beyondchance.display",
               "beyondchance.learn": "Learning with pure accuracy: beyondchance.learn",
               "beyondchance.datasets": "Bundled data sets: beyondchance.datasets"}


def _write(path: Path, text: str) -> Path:
    """Write a generated page, only when it changed (Sphinx then rebuilds only what changed)."""
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")
    return path


def _section(name: str, obj: object) -> str:
    module = getattr(obj, "__module__", None) if (inspect.isclass(obj) or callable(obj)) else None
    if module and module.startswith("beyondchance."):
        parts = module.split(".")[1:]
        for i in range(len(parts), 0, -1):
            if ".".join(parts[:i]) in SECTIONS:
                return SECTIONS[".".join(parts[:i])]
    return "Other public names"


def _autosummary(module: str, names: list[str], *, declare: bool = False) -> list[str]:
    """An autosummary table of ``names`` in ``module`` (``declare``: the module's target)."""
    return [f".. {'module' if declare else 'currentmodule'}:: {module}", "", ".. autosummary::",
            "   :toctree: generated/", "   :nosignatures:", "", *[f"   {n}" for n in names], ""]


def write_api_reference() -> Path:
    import importlib

    groups: dict[str, list[str]] = {}
    for name in beyondchance.__all__:
        groups.setdefault(_section(name, getattr(beyondchance, name)), []).append(name)
    order = [*dict.fromkeys(SECTIONS.values()), "Other public names"]
    lines = [".. This file is written by docs/conf.py at every build from beyondchance.__all__; do not edit.",
             "", "API reference", "=============", "",
             "Every public name of ``beyondchance`` (``beyondchance.__all__``) and of its public subpackages, "
             "generated from the docstrings (numpydoc format: formula, reference, example).", "",
             ".. module:: beyondchance", ""]
    for title in order:
        if title in groups:
            lines += [title, "-" * len(title), "", *_autosummary("beyondchance", sorted(groups[title], key=str.lower))]
    for module, title in SUBPACKAGES.items():
        names = [n for n in importlib.import_module(module).__all__ if n not in beyondchance.__all__]
        lines += [title, "-" * len(title), "", *_autosummary(module, sorted(names, key=str.lower), declare=True)]
    return _write(HERE / "api.rst", "\n".join(lines))


write_api_reference()


# --- the labeling-metric registry, generated from bc.measures.METRICS -------------------------------
def _constant_value(metric, tp: float, fp: float, fn: float, tn: float) -> str:
    import warnings

    import numpy as np

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")
        value = float(metric.func(tp, fp, fn, tn))
    return "undefined (0/0)" if np.isnan(value) else f"{value:.4g}"


def write_metric_table() -> Path:
    """``measures/metric_table.rst``: every registered labeling metric with its formula,
    range, direction and the values of the two constant predictors at prevalence 0.1."""
    from beyondchance.measures import METRICS
    n_pos, n_neg = 10.0, 90.0
    lines = [".. Written by docs/conf.py from beyondchance.measures.METRICS at every build; do not edit.", "",
             ".. list-table::", "   :header-rows: 1", "",
             "   * - name", "     - formula", "     - range", "     - better",
             "     - all negative (π = 0.1)", "     - all positive (π = 0.1)", "     - scikit-learn"]
    for name, m in METRICS.items():
        formula = (m.formula or "").replace("|", "\\|")  # a bare |x| is a reST substitution
        lines += [f"   * - ``{name}``", f"     - {formula}", f"     - [{m.lower:g}, {m.upper:g}]",
                  f"     - {'higher' if m.greater_is_better else 'lower'}",
                  f"     - {_constant_value(m, 0.0, 0.0, n_pos, n_neg)}",
                  f"     - {_constant_value(m, n_pos, n_neg, 0.0, 0.0)}",
                  f"     - {'``' + m.sklearn + '``' if m.sklearn else ''}"]
    return _write(HERE / "measures" / "metric_table.rst", "\n".join(lines) + "\n")


write_metric_table()


# --- the command line's help, generated from the click commands ---------------------------
def write_cli_help() -> Path:
    """``howto/cli_help.rst``: ``beyondchance COMMAND --help`` of every command."""
    import click

    from beyondchance.cli import main

    ctx = click.Context(main, info_name="beyondchance")
    lines = [".. Written by docs/conf.py from the click commands at every build; do not edit.", ""]
    for name in main.list_commands(ctx):
        command = main.get_command(ctx, name)
        sub = click.Context(command, info_name=name, parent=ctx, terminal_width=88, max_content_width=88)
        title = f"beyondchance {name}"
        lines += [title, "~" * len(title), "", "::", "",
                  *[f"   {line}".rstrip() for line in command.get_help(sub).splitlines()], ""]
    return _write(HERE / "howto" / "cli_help.rst", "\n".join(lines) + "\n")


write_cli_help()


# --- the landing page's example: run at every build, its verdict drawn ----------------------
def run_landing_example(app) -> None:
    """Run the doctest of ``index.rst`` (a warning, an error under -W, when the page does
    not show what the code prints) and draw the verdict of the report it made, the HTML
    report's first figure (:func:`beyondchance.report.render.plots.metrics_figure`), into
    ``_generated/verdict.png`` (not committed), which the page shows."""
    import doctest
    import io

    from sphinx.util import logging

    logger = logging.getLogger(__name__)
    source = Path(app.srcdir) / "index.rst"
    test = doctest.DocTestParser().get_doctest(source.read_text(encoding="utf-8"), {}, "index", str(source), 0)
    if not test.examples:
        return
    out = io.StringIO()
    runner = doctest.DocTestRunner(verbose=False)
    runner.run(test, out=out.write, clear_globs=False)
    if runner.failures:
        logger.warning("the example does not print what the page shows:\n%s", out.getvalue(),
                       location=("index", 0))
    report = test.globs.get("report")
    if report is None:
        logger.warning("the example made no `report` to draw", location=("index", 0))
        return
    from beyondchance.report.render.plots import metrics_figure

    png = io.BytesIO()
    metrics_figure(report).savefig(png, format="png", dpi=100, metadata={"Software": None})
    target = Path(app.srcdir) / "_generated" / "verdict.png"
    target.parent.mkdir(exist_ok=True)
    if not target.exists() or target.read_bytes() != png.getvalue():
        target.write_bytes(png.getvalue())


def _skip_routing_requests(app, what, name, obj, skip, options):
    """scikit-learn's generated ``set_*_request`` methods: their docstrings point into
    scikit-learn's own documentation, which an offline build cannot resolve."""
    if name.startswith("set_") and name.endswith("_request"):
        return True
    return None


def _public_target(app, env, node, contnode):
    """A reference by defining module (``beyondchance.measures.curves.roc_auc``), by a short
    name inside a subpackage's page (``roc_auc``) or to an implementation module resolves to
    the page of the public name: the object's page where it is documented (``beyondchance.X``
    or ``beyondchance.<subpackage>.X``), the subpackage's section for a module."""
    if node.get("refdomain") != "py":
        return None
    from sphinx.util.nodes import make_refnode

    domain = env.get_domain("py")
    target = node["reftarget"].lstrip("~.")
    parts = target.split(".")
    if node["reftype"] == "mod":
        if parts[0] == "beyondchance" and len(parts) > 2 and f"beyondchance.{parts[1]}" in SUBPACKAGES:
            candidates = [f"beyondchance.{parts[1]}"]
        else:
            return None
    else:
        # the name itself, or a method/attribute of a public class (Class.method)
        tail = parts[-2:] if len(parts) > 1 and parts[-2][:1].isupper() else parts[-1:]
        candidates = [".".join(["beyondchance", *tail])] + [".".join([s, *tail]) for s in SUBPACKAGES]
    table = domain.modules if node["reftype"] == "mod" else domain.objects
    for name in candidates:
        found = table.get(name)
        if found is not None:
            return make_refnode(app.builder, node["refdoc"], found.docname, found.node_id, contnode, name)
    return None


def setup(app):
    app.connect("builder-inited", run_landing_example)
    app.connect("autodoc-skip-member", _skip_routing_requests)
    app.connect("missing-reference", _public_target)
