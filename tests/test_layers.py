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


@pytest.mark.parametrize("module", ["schedframe", "schedframe.testing", "schedframe.plugins"])
def test_public_names_are_kept(module: str) -> None:
    """Every public name of the layout before the subpackages still imports from the same place."""
    pinned = json.loads((ROOT / "tests/data/public_api.json").read_text())[module]
    mod = importlib.import_module(module)
    missing = [name for name in pinned if name not in mod.__all__ or not hasattr(mod, name)]
    assert not missing, missing
