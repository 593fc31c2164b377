"""``Handle``: what a plugin may use from the framework, and the listers it hands out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from ..api.objects import Pod
from ..cache.listers import NodeInfoLister, ObjectLister, SharedLister
from ..cache.nodeinfo import NodeInfo, PodInfo
from .clock import Clock
from .cycle_state import CycleState
from .extender import Extender
from .interfaces import WaitingPod
from .status import Status

__all__ = [
    "Client",
    "EventRecorder",
    "Handle",
    "NodeInfoLister",
    "Nominator",
    "ObjectLister",
    "SharedLister",
]

T = TypeVar("T")


@runtime_checkable
class EventRecorder(Protocol):
    """Records Kubernetes-style events (``Scheduled``, ``FailedScheduling``, ``Preempted``)."""

    def event(self, obj: Any, event_type: str, reason: str, message: str) -> None: ...


@runtime_checkable
class Nominator(Protocol):
    """Pods nominated to nodes (by preemption), which filters must account for."""

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]: ...


@runtime_checkable
class Client(Protocol):
    """The API-server side effects a plugin may cause: binding and deleting pods, and setting a
    pod's nominated node. The scheduler routes these to its ``Binder`` and event handlers."""

    def bind(self, pod: Pod, node_name: str) -> None: ...

    def delete_pod(self, pod: Pod) -> None: ...

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None: ...


@runtime_checkable
class Handle(Protocol):
    """What the framework offers plugins (upstream ``framework.Handle``).

    Plugins receive it in their factory, ``new(args, handle)``.
    """

    def snapshot_shared_lister(self) -> SharedLister: ...

    @property
    def objects(self) -> ObjectLister: ...

    @property
    def clock(self) -> Clock: ...

    @property
    def event_recorder(self) -> EventRecorder: ...

    @property
    def nominator(self) -> Nominator: ...

    @property
    def client(self) -> Client: ...

    def iterate_over_waiting_pods(self, callback: Callable[[WaitingPod], None]) -> None: ...

    def get_waiting_pod(self, uid: str) -> WaitingPod | None: ...

    def reject_waiting_pod(self, uid: str) -> bool: ...

    def run_filter_plugins_with_nominated_pods(self, state: CycleState, pod: Pod,
                                               node_info: NodeInfo) -> Status: ...

    def run_pre_filter_extension_add_pod(self, state: CycleState, pod_to_schedule: Pod,
                                         pod_info_to_add: PodInfo, node_info: NodeInfo) -> Status: ...

    def run_pre_filter_extension_remove_pod(self, state: CycleState, pod_to_schedule: Pod,
                                            pod_info_to_remove: PodInfo, node_info: NodeInfo) -> Status: ...

    def list_pods(self, namespace: str | None = None) -> Sequence[Pod] | None:
        """The pods of *namespace* (every namespace for ``None``), pending and bound, as the
        scheduler's pod informer lists them (upstream plugins read the pod lister of the
        informer factory); ``None`` when this handle cannot list pods (a framework built without
        a scheduler). Handles written before 0.3.0 may lack this method: read it with
        ``getattr(handle, "list_pods", lambda namespace=None: None)(namespace)``.

        .. versionadded:: 0.1.0
        """
        ...

    def extenders(self) -> Sequence[Extender]:
        """The scheduler extenders (upstream ``Handle.Extenders()``), in call order; empty when
        the configuration has none. Plugins written before 0.2.0 may be handed handles without
        this method: read it with ``getattr(handle, "extenders", tuple)()``.

        .. versionadded:: 0.1.0
        """
        ...


class _HandleAccessors:
    """The accessors of :class:`Handle` over attributes a concrete handle sets in its
    ``__init__`` (``_snapshot``, ``_objects``, ``_clock``, ``_event_recorder``, ``_nominator``,
    ``_client``): the framework's runtime and the probe's inert handle share them."""

    _snapshot: SharedLister
    _objects: ObjectLister
    _clock: Clock
    _event_recorder: EventRecorder
    _nominator: Nominator
    _client: Client

    def snapshot_shared_lister(self) -> SharedLister:
        """The snapshot of the current cycle."""
        return self._snapshot

    @property
    def objects(self) -> ObjectLister:
        """Cluster objects other than nodes and pods."""
        return self._objects

    @property
    def clock(self) -> Clock:
        """The clock."""
        return self._clock

    @property
    def event_recorder(self) -> EventRecorder:
        """The event recorder."""
        return self._event_recorder

    @property
    def nominator(self) -> Nominator:
        """Pods nominated to nodes."""
        return self._nominator

    @property
    def client(self) -> Client:
        """The API client."""
        return self._client
