"""The in-tree plugins, one module each (a folder when a plugin outgrows one file), and
:func:`in_tree_registry`.

Plugins use the framework's public surface (``Handle``, the interfaces, ``Status``) and the
api objects; they may import :mod:`schedframe.framework`, :mod:`schedframe.cache` and
:mod:`schedframe.api`, never the queue, the config or the scheduler."""

from __future__ import annotations

import importlib

from ..errors import RegistryError
from ..framework.plugin_names import IN_TREE_MODULES, set_in_tree_registry_factory
from ..framework.registry import Registry

__all__ = ["in_tree_registry"]

def in_tree_registry() -> Registry:
    """A new :class:`~schedframe.Registry` holding every in-tree plugin, plus the
    kubernetes-sigs/scheduler-plugins ones schedframe provides (``schedframe.plugins.sigs``)."""
    registry = Registry()
    for name, mod_name in IN_TREE_MODULES.items():  # each module exposes NAME, new() and ARGS_TYPE
        mod = importlib.import_module(f"{__name__}.{mod_name}")
        if name != mod.NAME:
            raise RegistryError(f"schedframe.plugins.{mod_name} registers {mod.NAME!r}, but "
                                f"schedframe.framework.plugin_names lists it as {name!r}")
        registry.register(name, mod.new, args_type=getattr(mod, "ARGS_TYPE", None))
    # kubernetes-sigs/scheduler-plugins: registered by default, marked by origin (sigs.SCHEDULER_PLUGINS)
    from . import sigs

    for mod_name in sigs.MODULES:
        mod = importlib.import_module(f"{sigs.__name__}.{mod_name}")
        registry.register(mod.NAME, mod.new, args_type=getattr(mod, "ARGS_TYPE", None))
    return registry


# the configuration (a lower layer) gets the in-tree registry through the framework
set_in_tree_registry_factory(in_tree_registry)
