"""Loading out-of-tree plugins with pluggy (entry-point group ``schedframe``)."""

from __future__ import annotations

import importlib.metadata
import os
import sys
from collections.abc import Iterable
from typing import Any, Final

import pluggy

from ..errors import PluginLoadError
from . import hookspecs as _hookspecs
from .hookspecs import PROJECT_NAME
from .registry import Registry

__all__ = ["discover_plugins", "load_plugins", "make_plugin_manager"]


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


_ORIGINAL_DISTRIBUTIONS: Final = importlib.metadata.distributions
_Found = tuple[tuple[str, str, str], ...]
_SCAN_CACHE: dict[tuple[Any, ...], _Found] = {}


def _path_state() -> tuple[Any, ...]:
    """``sys.path`` with the modification time of each entry: installing or removing a
    distribution changes the directory it goes in."""
    state: list[Any] = []
    for entry in sys.path:
        try:
            state.append((entry, os.stat(entry or ".").st_mtime_ns))
        except (OSError, ValueError, TypeError):
            state.append((entry, None))
    return tuple(state)


def _scan() -> _Found:
    found: list[tuple[str, str, str]] = []
    for dist in list(importlib.metadata.distributions()):
        for ep in dist.entry_points:
            if ep.group == PROJECT_NAME:
                found.append((ep.name, _dist_label(dist), str(getattr(ep, "value", "?"))))
    return tuple(found)


def _entry_points() -> _Found:
    """``(entry point, distribution, value)`` of every entry point in group ``schedframe``.

    Scanning the installed distributions takes tens of milliseconds, and every
    :class:`~schedframe.Scheduler` does it; the result is kept until ``sys.path`` or a
    directory on it changes (while ``importlib.metadata.distributions`` is not replaced, as
    tests do).
    """
    if importlib.metadata.distributions is not _ORIGINAL_DISTRIBUTIONS:
        return _scan()
    key = _path_state()
    found = _SCAN_CACHE.get(key)
    if found is None:
        found = _scan()
        _SCAN_CACHE.clear()
        _SCAN_CACHE[key] = found
    return found


def load_plugins(registry: Registry, *, pm: pluggy.PluginManager | None = None,
                 blocked: Iterable[str] = ()) -> pluggy.PluginManager:
    """Load the ``schedframe`` entry points of installed distributions and let each register its
    plugins into *registry* (hook ``schedframe_register_plugins``).

    Args:
        registry: the registry plugins are added to (e.g. ``in_tree_registry()``).
        pm: a plugin manager to use (default: :func:`~schedframe.framework.make_plugin_manager`); plugins
            registered on
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
            "(use schedframe.framework.make_plugin_manager())"
        )
    hook = getattr(pm.hook, "schedframe_register_plugins", None)
    if hook is None or hook.spec is None:
        pm.add_hookspecs(_hookspecs)
    for name in blocked:
        pm.set_blocked(name)

    # Find the entry points first, so that every failure can name its distribution.
    found: dict[str, tuple[str, str]] = {}
    for ep_name, label, value in _entry_points():
        if pm.is_blocked(ep_name):
            continue
        if ep_name in found:
            other = found[ep_name][0]
            raise PluginLoadError(
                f"entry point {ep_name!r} in group {PROJECT_NAME!r} is provided by both "
                f"distribution {other} and distribution {label}; uninstall one or block the "
                "name with load_plugins(..., blocked=[...])"
            )
        found[ep_name] = (label, value)
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


def discover_plugins(registry: Registry,
                     pm: pluggy.PluginManager | None = None) -> pluggy.PluginManager | None:
    """:func:`~schedframe.load_plugins` as :class:`~schedframe.Scheduler` does it by default. With no
    ``schedframe`` entry point installed nothing is loaded and *pm* is returned as it is (no
    plugin manager is created for nothing).

    Raises:
        PluginLoadError: as :func:`~schedframe.load_plugins`, naming the distribution and entry point.

    .. versionadded:: 0.1.0
    """
    if not _entry_points():
        return pm
    return load_plugins(registry, pm=pm)
