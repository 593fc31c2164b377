"""``Handle``: what a plugin may use from the framework, and the listers it hands out."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from ._api import Namespace, Pod
from ._clock import Clock
from ._cycle_state import CycleState
from ._nodeinfo import NodeInfo, PodInfo
from ._permit import WaitingPod
from ._status import Status

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
class NodeInfoLister(Protocol):
    """Read access to the NodeInfos of the current snapshot."""

    def list(self) -> Sequence[NodeInfo]: ...

    def get(self, node_name: str) -> NodeInfo | None: ...

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]: ...

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]: ...


@runtime_checkable
class SharedLister(Protocol):
    """The snapshot a cycle runs against (upstream ``SharedLister``)."""

    def node_infos(self) -> NodeInfoLister: ...


@runtime_checkable
class ObjectLister(Protocol):
    """The "informers": cluster objects other than nodes and pods (namespaces, services,
    replica sets, stateful sets, replication controllers, PDBs, priority classes, pod groups)."""

    def namespace(self, name: str) -> Namespace | None: ...

    def list(self, kind: type[T], namespace: str | None = None) -> list[T]: ...


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
