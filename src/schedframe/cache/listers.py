"""Read-only listers plugins get through the Handle: the snapshot's NodeInfos and the other
cluster objects (upstream ``SharedLister``, ``NodeInfoLister`` and the informers' listers)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar, runtime_checkable

from ..api.objects import Namespace
from .nodeinfo import NodeInfo

__all__ = ["NodeInfoLister", "ObjectLister", "SharedLister"]

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
