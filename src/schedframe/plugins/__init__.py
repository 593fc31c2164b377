"""The in-tree plugins, one module each (a folder when a plugin outgrows one file), and
:func:`in_tree_registry`.

Plugins use the framework's public surface (``Handle``, the interfaces, ``Status``) and the
api objects; they may import :mod:`schedframe.framework`, :mod:`schedframe.cache` and
:mod:`schedframe.api`, never the queue, the config or the scheduler."""

from __future__ import annotations

import importlib

from ..errors import RegistryError
from ..framework.plugin_names import IN_TREE_PLUGINS, set_in_tree_registry_factory
from ..framework.registry import Registry

__all__ = ["in_tree_registry"]

# Plugin modules, each exposing NAME, new() and ARGS_TYPE.
_MODULES = (
    "priority_sort",
    "scheduling_gates",
    "node_unschedulable",
    "node_name",
    "node_declared_features",
    "node_ports",
    "taint_toleration",
    "node_affinity",
    "node_resources_fit",
    "volume_restrictions",
    "node_volume_limits",
    "volume_binding",
    "volume_zone",
    "node_resources_balanced_allocation",
    "pod_topology_spread",
    "inter_pod_affinity",
    "image_locality",
    "dynamic_resources",
    "default_preemption",
    "default_binder",
    "coscheduling",
    "gang_scheduling",
)


def in_tree_registry() -> Registry:
    """A new :class:`~schedframe.Registry` holding every in-tree plugin, plus the
    kubernetes-sigs/scheduler-plugins ones schedframe provides (``schedframe.plugins.sigs``)."""
    registry = Registry()
    for mod_name in _MODULES:
        try:
            mod = importlib.import_module(f"{__name__}.{mod_name}")
        except ModuleNotFoundError as exc:  # pragma: no cover - development scaffolding
            if exc.name == f"{__name__}.{mod_name}":
                continue
            raise
        registry.register(mod.NAME, mod.new, args_type=getattr(mod, "ARGS_TYPE", None))
    # kubernetes-sigs/scheduler-plugins: registered by default, marked by origin (sigs.SCHEDULER_PLUGINS)
    from . import sigs

    for mod_name in sigs.MODULES:
        mod = importlib.import_module(f"{sigs.__name__}.{mod_name}")
        registry.register(mod.NAME, mod.new, args_type=getattr(mod, "ARGS_TYPE", None))
    missing = sorted(IN_TREE_PLUGINS - set(registry))
    if missing:  # a name in the framework's table whose module is not in _MODULES
        raise RegistryError(f"in-tree plugin(s) {missing} are named in schedframe.framework.plugin_names "
                            "but no module in schedframe.plugins registers them")
    return registry


# the configuration (a lower layer) gets the in-tree registry through the framework
set_in_tree_registry_factory(in_tree_registry)
