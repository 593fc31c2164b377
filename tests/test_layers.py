"""The package tree follows the architecture (docs/architecture.rst): layers import downwards only,
no subpackage is outside the layer list, the root stays small, and the public names stay public."""

from __future__ import annotations

import ast
import importlib
import json
import pathlib

import pytest

import schedframe

tomllib = pytest.importorskip("tomllib", reason="tomllib is in the standard library from Python 3.11")

ROOT = pathlib.Path(__file__).resolve().parents[1]
PACKAGE = pathlib.Path(schedframe.__file__).resolve().parent


def _contracts() -> list[dict[str, object]]:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts: list[dict[str, object]] = config["tool"]["importlinter"]["contracts"]
    return contracts


def _layer_modules() -> set[str]:
    names: set[str] = set()
    for contract in _contracts():
        if contract["type"] == "layers":
            for layer in contract["layers"]:  # type: ignore[attr-defined]
                for part in layer.split("|"):
                    names.add(part.strip().strip("()"))
    return names


def test_import_contracts_are_kept() -> None:
    """import-linter's contracts from pyproject.toml hold (lazy and TYPE_CHECKING imports count)."""
    lint = pytest.importorskip("importlinter.cli", reason="import-linter is in the dev extra")
    assert lint.lint_imports(config_filename=str(ROOT / "pyproject.toml"), no_cache=True, no_logo=True) == 0


def test_every_subpackage_is_a_layer() -> None:
    """A new subpackage must be placed in the layer list, or the layer check would ignore it."""
    subpackages = {f"schedframe.{p.name}" for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}
    assert subpackages <= _layer_modules(), sorted(subpackages - _layer_modules())


def test_root_holds_at_most_a_dozen_modules() -> None:
    """The root is for the public re-exports, the entry point, version and errors only."""
    modules = sorted(p.name for p in PACKAGE.iterdir() if p.suffix == ".py" or p.name == "py.typed")
    assert len(modules) <= 12, modules


def test_subpackages_say_what_they_may_import() -> None:
    """Each subpackage opens with a docstring saying what lives there and what it may import."""
    for path in sorted(PACKAGE.glob("*/__init__.py")):
        doc = ast.get_docstring(ast.parse(path.read_text()))
        assert doc, path
        assert "import" in doc, f"{path}: the docstring should name what the subpackage may import"


@pytest.mark.parametrize("module", ["schedframe", "schedframe.testing", "schedframe.plugins",
                                    "schedframe.plugins.sigs"])
def test_public_names_are_kept(module: str) -> None:
    """Every public name of the layout before the subpackages still imports from the same place:
    from the root either still exported, or moved to a public home it resolves to (with a
    DeprecationWarning, which test_public_api checks)."""
    pinned = json.loads((ROOT / "tests/data/public_api.json").read_text())[module]
    mod = importlib.import_module(module)
    moved = getattr(mod, "_MOVED", {}) if module == "schedframe" else {}
    missing = [name for name in pinned
               if name not in moved and (name not in mod.__all__ or not hasattr(mod, name))]
    assert not missing, missing


# --------------------------------------------------------------------------------------------
# One place for each idea: short modules, no cycles inside a subpackage, one YAML reader


MAX_MODULE_LINES = 1_200
YAML_LOADERS = frozenset({"load", "load_all", "safe_load", "safe_load_all", "full_load", "full_load_all",
                          "unsafe_load", "unsafe_load_all", "parse", "compose", "compose_all", "scan"})


def _modules() -> dict[str, pathlib.Path]:
    """Dotted module name -> file, for every module of the package."""
    out: dict[str, pathlib.Path] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        out[".".join(parts)] = path
    return out


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING")


def _imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement, at module level or inside functions, except under ``if TYPE_CHECKING``."""
    found: list[ast.Import | ast.ImportFrom] = []

    def visit(node: ast.AST) -> None:
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.orelse:
                visit(child)
            return
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(tree)
    return found


def _import_graph() -> dict[str, set[str]]:
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in _imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            else:
                if node.level:
                    base = package.split(".")
                    base = base[: len(base) - node.level + 1]
                    stem = ".".join(base + ([node.module] if node.module else []))
                else:
                    stem = node.module or ""
                targets = [f"{stem}.{alias.name}" if f"{stem}.{alias.name}" in modules else stem
                           for alias in node.names]
            for target in targets:
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                if target and target != name:
                    graph[name].add(target)
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                strong(w)
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
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_no_module_is_longer_than_the_limit() -> None:
    """A module that outgrows 1,500 lines is split along its seams (docs/architecture.rst)."""
    long = {str(p.relative_to(PACKAGE)): n for p in PACKAGE.rglob("*.py")
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES}
    assert not long, long


def test_no_import_cycle_inside_a_subpackage() -> None:
    """Modules of one subpackage import each other without a cycle; imports inside functions
    count, ``if TYPE_CHECKING:`` ones do not. A subpackage's ``__init__`` re-exporting its
    modules is not a cycle unless one of them imports the ``__init__`` back."""
    graph = _import_graph()
    subpackages = sorted({name.split(".")[1] for name in graph if name.count(".") >= 1})
    found = []
    for sub in subpackages:
        prefix = f"schedframe.{sub}"
        inside = {n: {m for m in deps if m == prefix or m.startswith(prefix + ".")}
                  for n, deps in graph.items() if n == prefix or n.startswith(prefix + ".")}
        found.extend(_cycles(inside))
    assert not found, found


def test_the_cycle_finder_finds_cycles() -> None:
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert _cycles({"a": {"b"}, "b": set()}) == []


def test_one_module_calls_a_yaml_loader() -> None:
    """Only schedframe._textio parses YAML: every other reader goes through it."""
    callers = set()
    for name, path in _modules().items():
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and node.func.attr in YAML_LOADERS and isinstance(node.func.value, ast.Name)
                    and node.func.value.id == "yaml"):
                callers.add(name)
    assert callers == {"schedframe._textio"}, sorted(callers)


def test_no_test_imports_another_as_a_tests_module() -> None:
    """No test imports ``tests.<module>``, not even in a subprocess's code: another installed
    distribution's top-level ``tests`` package (edgerun-skippy-core ships one) shadows ours.
    Shared helpers live in a conftest or a helper module on the test path."""
    import re

    pattern = re.compile(r"^\s*\"?(from tests[.\s]|import tests\b)", re.MULTILINE)
    offenders = [str(p.relative_to(ROOT)) for p in sorted((ROOT / "tests").rglob("*.py"))
                 if p.name != "test_layers.py" and pattern.search(p.read_text(encoding="utf-8"))]
    assert offenders == []
