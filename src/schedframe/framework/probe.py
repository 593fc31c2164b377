"""Probing a plugin for what it implements: :func:`~schedframe.config.extension_points_of` judges an instance
by the
extension-point Protocols, and :func:`probe_plugin` builds one with an inert
:class:`ProbeHandle` (no cluster, no client, nothing recorded) under a release, as the
configuration does to place a multiPoint plugin."""

from __future__ import annotations

import contextlib
import weakref
from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..cache.store import ObjectStore
from ._collaborators import _EmptySnapshot
from .clock import RealClock
from .cycle_state import CycleState
from .extender import Extender
from .handle import _HandleAccessors
from .interfaces import Plugin, WaitingPod
from .plugin_names import EXTENSION_POINT_TABLE
from .registry import RegistryEntry
from .releases import ReleaseProfile, release_profile
from .status import Status

__all__ = ["ProbeHandle", "extension_points_of", "probe_plugin"]


def extension_points_of(plugin: object) -> frozenset[str]:
    """The extension points (``"filter"``, ``"score"``, ...) a plugin instance implements,
    judged by the runtime-checkable extension-point Protocols.

    .. versionadded:: 0.1.0
    """
    return frozenset(point for point, ep in EXTENSION_POINT_TABLE.items() if isinstance(plugin, ep.protocol))



class _Inert:
    """No-op recorder, nominator and client."""

    def event(self, obj: Any, event_type: str, reason: str, message: str) -> None:
        return None

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return []

    def bind(self, pod: Pod, node_name: str) -> None:
        return None

    def delete_pod(self, pod: Pod) -> None:
        return None

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:
        return None


@attrs.frozen
class _ProbeProfile:
    """What a probed plugin reads of its profile: the release (``release_of``)."""

    release: ReleaseProfile


class ProbeHandle(_HandleAccessors):
    """An inert :class:`~schedframe.Handle` for building a plugin only to inspect it, under the
    release being read (a plugin's extension points may differ between releases)."""

    def __init__(self, release: ReleaseProfile | None = None) -> None:
        self.profile = _ProbeProfile(release if release is not None else release_profile())
        self._snapshot = _EmptySnapshot()
        self._objects = ObjectStore()
        inert = _Inert()
        self._event_recorder = self._nominator = self._client = inert
        self._clock = RealClock()

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None:
        return None

    def get_waiting_pod(self, uid: str) -> WaitingPod | None:
        return None

    def reject_waiting_pod(self, uid: str) -> bool:
        return False

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status:
        return Status.OK

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status:
        return Status.OK

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status:
        return Status.OK

    def extenders(self) -> Sequence[Extender]:
        return ()

    def list_pods(self, namespace: str | None = None) -> Sequence[Pod] | None:
        return None


_PROBE_CACHE: weakref.WeakKeyDictionary[Any, dict[ReleaseProfile, frozenset[str]]] = \
    weakref.WeakKeyDictionary()


def probe_plugin(name: str, entry: RegistryEntry, args: Any = None, release: ReleaseProfile | None = None
           ) -> frozenset[str]:
    """Build the plugin once with *args* (its decoded ``pluginConfig`` args, or the args type's
    defaults, or ``None``) and an inert handle of *release*; raises on failure. Successes are
    cached per factory and release."""
    factory = entry.factory
    release = release if release is not None else release_profile()
    try:
        return _PROBE_CACHE[factory][release]
    except (KeyError, TypeError):
        pass
    plugin = factory(args, ProbeHandle(release))
    if not isinstance(plugin, Plugin):
        raise TypeError(f"the factory returned {type(plugin).__name__}, which has no 'name'")
    points = extension_points_of(plugin)
    with contextlib.suppress(TypeError):  # factories that cannot be weakly referenced
        _PROBE_CACHE.setdefault(factory, {})[release] = points
    return points
