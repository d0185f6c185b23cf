"""The package's shape: packages by concept, imports that run downward only (no circle, lazy
imports included), no module above about 1,000 lines, and a public surface of ``__all__``
plus the documented subpackages.  The import graph is read from the source text (every
``import`` statement, inside functions too), so a lazy import cannot hide a circle."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import beyondchance

PACKAGE = Path(beyondchance.__file__).resolve().parent

#: the layers, bottom to top: a module may import from its own layer or from below
LAYERS: tuple[tuple[str, ...], ...] = (
    ("_warnings", "_json", "_version", "_summary_display", "_validation", "datasets", "_interrupt"),
    ("measures",),
    ("inference",),
    ("outperformance",),
    ("statistics",),
    ("monitoring",),
    ("engines",),
    ("learn", "display"),
    ("report",),
    ("experiments",),
    ("cli", "_cli_exit", "__init__"),
)
MAX_LINES = 1000


def _modules(package: Path = PACKAGE) -> dict[str, Path]:
    found = {}
    for path in sorted(package.rglob("*.py")):
        parts = list(path.relative_to(package.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """module -> the package modules it imports anywhere in its text."""
    modules = _modules(root)

    def known(name: str) -> str:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name

    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        package = module if path.name == "__init__.py" else module.rpartition(".")[0]
        targets: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - node.level + 1]
                    source = ".".join(base + ([node.module] if node.module else []))
                else:
                    source = node.module or ""
                if source.split(".")[0] != root.name:
                    continue
                for alias in node.names:
                    full = f"{source}.{alias.name}"
                    targets.add(known(full if full in modules else source))
            elif isinstance(node, ast.Import):
                targets |= {known(a.name) for a in node.names if a.name.split(".")[0] == root.name}
        graph[module] = targets - {module, ""}
    return graph


def _layer(module: str) -> int:
    parts = module.split(".")
    top = parts[1] if len(parts) > 1 else "__init__"
    for rank, layer in enumerate(LAYERS):
        if top in layer:
            return rank
    raise AssertionError(f"{module} belongs to no layer: add its package to LAYERS")


def _circles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    circles: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                circles.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return circles


def test_no_import_circle_lazy_imports_included():
    circles = _circles(import_graph())
    assert not circles, "import circles:\n" + "\n".join(" <-> ".join(c) for c in circles)


def test_imports_run_downward_only():
    upward = [f"{a} -> {b}" for a, targets in sorted(import_graph().items()) for b in sorted(targets)
              if _layer(b) > _layer(a)]
    assert not upward, "imports that run upward:\n" + "\n".join(upward)


def test_the_graph_sees_lazy_imports(tmp_path):
    """The reader is not blind to the imports that hid circles: a circle closed by an import
    inside a function (relative, two levels up) and an absolute one inside a method."""
    pkg = tmp_path / "toypkg"
    (pkg / "low").mkdir(parents=True)
    (pkg / "__init__.py").write_text('"""Toy."""\n')
    (pkg / "low" / "__init__.py").write_text('"""Low."""\n')
    (pkg / "low" / "a.py").write_text('"""A."""\n\ndef f():\n    from ..high import g\n    return g\n')
    (pkg / "high.py").write_text('"""High."""\nfrom .low.a import f\n\n\nclass C:\n'
                                 '    def m(self):\n        import toypkg.low.a\n        return toypkg\n\n\ndef g():\n'
                                 '    return f\n')
    graph = import_graph(pkg)
    assert graph["toypkg.low.a"] == {"toypkg.high"}
    assert graph["toypkg.high"] == {"toypkg.low.a"}
    assert _circles(graph) == [["toypkg.high", "toypkg.low.a"]]


def test_top_level_holds_packages_not_modules():
    modules = sorted(p.stem for p in PACKAGE.glob("*.py"))
    assert modules == ["__init__", "_cli_exit", "_interrupt", "_json", "_summary_display", "_version", "_warnings", "cli"]
    packages = sorted(p.parent.name for p in PACKAGE.glob("*/__init__.py"))
    assert packages == sorted([*beyondchance._SUBPACKAGES, "_validation"])  # the one door for inputs, private


def test_no_module_above_a_thousand_lines():
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_LINES}
    assert not long, f"modules above {MAX_LINES} lines: {long}"


def test_sql_only_in_engines():
    """Every SQL query is written in ``engines/`` (issue 38, item 6): a string of another
    package that starts a query (SELECT, WITH ... AS, a window OVER) is a query out of place."""
    query = ("SELECT ", "WITH r AS", " OVER (")
    found = []
    for module, path in _modules().items():
        if module.startswith("beyondchance.engines"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            text = node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None
            if text and any(q in text for q in query):
                found.append(f"{module}: {text[:60]!r}")
    assert not found, "SQL outside engines/:\n" + "\n".join(found)


def test_every_module_says_what_it_holds():
    """A docstring on every module, and none of the names that say nothing."""
    vague = {"_core", "_results", "_chance", "extensions", "utils", "helpers", "misc", "common", "_common", "_base"}
    for module, path in _modules().items():
        assert ast.get_docstring(ast.parse(path.read_text(encoding="utf-8"))), f"{module} has no docstring"
        assert path.stem not in vague, f"{module}: the name does not say what it holds"


def test_public_surface_is_all_plus_subpackages():
    assert len(beyondchance.__all__) <= 80
    assert len(set(beyondchance.__all__)) == len(beyondchance.__all__)
    public_dir = {n for n in dir(beyondchance) if not n.startswith("_")}
    assert public_dir == set(beyondchance.__all__) | set(beyondchance._SUBPACKAGES)
    # a submodule imported elsewhere (``beyondchance.cli``) is an attribute by Python's import
    # system, not an export: only the objects count
    leaked = {n for n, v in vars(beyondchance).items()
              if not n.startswith("_") and not isinstance(v, type(beyondchance))} - public_dir
    assert not leaked, f"names in the namespace outside __all__ and the subpackages: {sorted(leaked)}"
    for name in beyondchance.__all__:
        assert getattr(beyondchance, name) is not None


@pytest.mark.parametrize("sub", sorted(beyondchance._SUBPACKAGES))
def test_every_subpackage_is_documented_and_exports_what_it_names(sub):
    module = getattr(beyondchance, sub)
    assert module.__doc__, f"beyondchance.{sub} has no docstring"
    for name in getattr(module, "__all__", ()):
        assert hasattr(module, name), f"beyondchance.{sub}.__all__ names {name}, which it does not have"


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no_such_name"):
        beyondchance.no_such_name  # noqa: B018


def test_importing_the_package_leaves_the_heavy_optional_parts_alone():
    """``import beyondchance`` (and so the command line) loads neither scikit-learn nor pandas
    nor matplotlib: the estimators, displays and plots import them when first used."""
    import subprocess
    import sys

    code = ("import sys, beyondchance; "
            "print(sorted(m for m in ('sklearn', 'pandas', 'matplotlib') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]", out.stdout
