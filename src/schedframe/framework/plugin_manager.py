"""Loading out-of-tree plugins with pluggy (entry-point group ``schedframe``)."""

from __future__ import annotations

import importlib.metadata
from collections.abc import Iterable
from typing import Any

import pluggy

from ..errors import PluginLoadError
from . import hookspecs as _hookspecs
from .hookspecs import PROJECT_NAME
from .registry import Registry

__all__ = ["load_plugins", "make_plugin_manager"]


def make_plugin_manager() -> pluggy.PluginManager:
    """A :class:`pluggy.PluginManager` for project ``"schedframe"`` with schedframe's hookspecs.

    .. versionadded:: 0.1.0
    """
    pm = pluggy.PluginManager(PROJECT_NAME)
    pm.add_hookspecs(_hookspecs)
    return pm


def _dist_label(dist: Any) -> str:
    try:
        name = dist.metadata["name"]
    except Exception:  # pragma: no cover - broken metadata
        name = None
    version = getattr(dist, "version", None)
    label = str(name) if name else "<unknown distribution>"
    return f"{label} {version}" if version else label


def _detail(exc: BaseException) -> str:
    text = str(exc)
    return f"{type(exc).__name__}: {text}" if text else type(exc).__name__


def load_plugins(registry: Registry, *, pm: pluggy.PluginManager | None = None,
                 blocked: Iterable[str] = ()) -> pluggy.PluginManager:
    """Load the ``schedframe`` entry points of installed distributions and let each register its
    plugins into *registry* (hook ``schedframe_register_plugins``).

    Args:
        registry: the registry plugins are added to (e.g. ``in_tree_registry()``).
        pm: a plugin manager to use (default: :func:`make_plugin_manager`); plugins registered on
            it directly (``pm.register(module)``) take part too.
        blocked: entry-point names not to load (``pm.set_blocked``).

    Returns:
        The plugin manager, whose observer hooks the scheduler can call.

    Raises:
        PluginLoadError: an entry point failed to import, two distributions provide the same
            entry-point name, or a ``schedframe_register_plugins`` implementation failed (e.g. a
            duplicate plugin name); the message names the distribution and the entry point.

    .. versionadded:: 0.1.0
    """
    if pm is None:
        pm = make_plugin_manager()
    elif pm.project_name != PROJECT_NAME:
        raise PluginLoadError(
            f"plugin manager is for project {pm.project_name!r}; schedframe needs {PROJECT_NAME!r} "
            "(use schedframe.make_plugin_manager())"
        )
    hook = getattr(pm.hook, "schedframe_register_plugins", None)
    if hook is None or hook.spec is None:
        pm.add_hookspecs(_hookspecs)
    for name in blocked:
        pm.set_blocked(name)

    # Find the entry points first, so that every failure can name its distribution.
    found: dict[str, tuple[str, str]] = {}
    for dist in list(importlib.metadata.distributions()):
        for ep in dist.entry_points:
            if ep.group != PROJECT_NAME or pm.is_blocked(ep.name):
                continue
            label = _dist_label(dist)
            value = str(getattr(ep, "value", "?"))
            if ep.name in found:
                other = found[ep.name][0]
                raise PluginLoadError(
                    f"entry point {ep.name!r} in group {PROJECT_NAME!r} is provided by both "
                    f"distribution {other} and distribution {label}; uninstall one or block the "
                    "name with load_plugins(..., blocked=[...])"
                )
            found[ep.name] = (label, value)
    for ep_name, (label, value) in found.items():
        if pm.has_plugin(ep_name):
            continue
        try:
            pm.load_setuptools_entrypoints(PROJECT_NAME, name=ep_name)
        except Exception as exc:
            raise PluginLoadError(
                f"loading entry point {ep_name!r} ({value}) of distribution {label} failed: {_detail(exc)}"
            ) from exc

    dists = {id(plugin): _dist_label(dist) for plugin, dist in pm.list_plugin_distinfo()}
    for impl in pm.hook.schedframe_register_plugins.get_hookimpls():
        try:
            impl.function(**dict.fromkeys(impl.argnames, registry))
        except Exception as exc:
            dist_label = dists.get(id(impl.plugin))
            if dist_label is not None:
                where = f"distribution {dist_label}, entry point {impl.plugin_name!r}"
            else:
                where = f"plugin {impl.plugin_name!r}"
            raise PluginLoadError(f"{where}: schedframe_register_plugins failed: {_detail(exc)}") from exc
    return pm
