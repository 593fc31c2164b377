"""Every in-tree plugin module is registered, and the framework's name table matches them."""

from __future__ import annotations

import importlib
import pkgutil

import pytest

import schedframe.plugins as plugins_pkg
from schedframe.errors import RegistryError
from schedframe.framework import plugin_names
from schedframe.framework.plugin_names import IN_TREE_MODULES
from schedframe.plugins import in_tree_registry


def _plugin_modules() -> list[str]:
    """The modules (or packages) of schedframe.plugins that define a plugin: NAME and new()."""
    found = []
    for info in pkgutil.iter_modules(plugins_pkg.__path__):
        mod = importlib.import_module(f"{plugins_pkg.__name__}.{info.name}")
        if isinstance(getattr(mod, "NAME", None), str) and callable(getattr(mod, "new", None)):
            found.append(info.name)
    return found


def test_every_plugin_module_is_registered() -> None:
    """A module defining NAME and new() that is missing from the one list
    (``framework.plugin_names.IN_TREE_MODULES``) fails."""
    modules = _plugin_modules()
    assert modules, "no plugin module found"
    missing = sorted(set(modules) - set(IN_TREE_MODULES.values()))
    assert not missing, f"plugin modules not in schedframe.framework.plugin_names.IN_TREE_MODULES: {missing}"


def test_registry_names_match_the_framework_table() -> None:
    from schedframe.plugins.sigs import SCHEDULER_PLUGINS

    assert set(in_tree_registry()) == plugin_names.IN_TREE_PLUGINS | SCHEDULER_PLUGINS


def test_a_module_registering_another_name_fails_loudly(monkeypatch: pytest.MonkeyPatch) -> None:
    """The list and the modules agree: a module whose NAME differs from its entry is an error."""
    wrong = {**IN_TREE_MODULES, "NodePorts": "node_name"}
    monkeypatch.setattr(plugins_pkg, "IN_TREE_MODULES", wrong)
    with pytest.raises(RegistryError, match=r"node_name registers 'NodeName', but .* as 'NodePorts'"):
        plugins_pkg.in_tree_registry()


def test_config_gets_the_in_tree_registry_through_the_framework() -> None:
    assert set(plugin_names.default_registry()) == set(in_tree_registry())
