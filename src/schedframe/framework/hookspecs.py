"""pluggy hook specifications: plugin discovery and scheduler observers.

An installed distribution exposes an entry point in the group ``schedframe``; the module (or
object) it points to implements hooks marked with :data:`~schedframe.hookimpl`::

    # myplugins/__init__.py
    import schedframe

    @schedframe.hookimpl
    def schedframe_register_plugins(registry):
        registry.register("MyFilter", new, args_type=MyFilterArgs)

    # pyproject.toml
    [project.entry-points.schedframe]
    myplugins = "myplugins"

Observer hooks (``schedframe_pod_*``, ``schedframe_cycle_finished``) are called by the scheduler
for tools such as metrics exporters, progress bars and simulators. An implementation may accept
any subset of a hook's arguments. Per-node calls of a scheduling cycle never go through pluggy.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import pluggy

if TYPE_CHECKING:
    from ..api.objects import Pod
    from .registry import Registry
    from .status import Status

__all__ = [
    "PROJECT_NAME",
    "hookimpl",
    "hookspec",
    "schedframe_cycle_finished",
    "schedframe_pod_bound",
    "schedframe_pod_failed",
    "schedframe_pod_preempted",
    "schedframe_pod_scheduled",
    "schedframe_register_plugins",
]

#: The pluggy project name and the entry-point group plugins are loaded from.
PROJECT_NAME: Final = "schedframe"

#: Marks hook specifications (used by schedframe itself).
hookspec: Final = pluggy.HookspecMarker(PROJECT_NAME)
#: Marks hook implementations in plugin distributions: ``@schedframe.hookimpl``.
hookimpl: Final = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def schedframe_register_plugins(registry: Registry) -> None:
    """Register scheduler plugins: ``registry.register(name, factory, args_type=...)``.

    Called once per :func:`~schedframe.load_plugins`. Registering a name that already exists
    fails the load with :class:`~schedframe.errors.PluginLoadError` naming the distribution.

    .. versionadded:: 0.1.0
    """


@hookspec
def schedframe_pod_scheduled(pod: Pod, node_name: str, profile: str) -> None:
    """A scheduling cycle placed *pod* on *node_name* (assumed in the cache; binding follows).

    *profile* is the profile's scheduler name.

    .. versionadded:: 0.1.0
    """


@hookspec
def schedframe_pod_failed(pod: Pod, status: Status, profile: str) -> None:
    """A scheduling or binding attempt for *pod* failed with *status* (the pod is requeued).

    .. versionadded:: 0.1.0
    """


@hookspec
def schedframe_pod_bound(pod: Pod, node_name: str, profile: str) -> None:
    """*pod* was bound to *node_name* (after PreBind and Bind, before PostBind).

    .. versionadded:: 0.1.0
    """


@hookspec
def schedframe_pod_preempted(victim: Pod, preemptor: Pod, node_name: str, profile: str) -> None:
    """*victim* on *node_name* was evicted to make room for *preemptor*.

    .. versionadded:: 0.1.0
    """


@hookspec
def schedframe_cycle_finished(pod: Pod, status: Status, node_name: str, profile: str,
                              duration: float) -> None:
    """A scheduling cycle for *pod* ended: *status* is its outcome (success, rejection, error or
    WAIT), *node_name* the chosen node (``""`` when none) and *duration* the cycle's length in
    seconds on the scheduler's clock.

    .. versionadded:: 0.1.0
    """
