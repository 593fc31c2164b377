"""Cluster events and queueing hints (upstream ``framework.ClusterEvent`` / ``QueueingHint``).

A plugin that can reject pods registers, through ``EnqueueExtensions.events_to_register()``, the
cluster events that could make a rejected pod schedulable, each with an optional hint function
that decides, for one pod and one concrete change, whether to requeue it.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Final, final

import attrs

from ..api.kinds import KINDS
from ..api.objects import Pod

__all__ = [
    "ActionType",
    "ClusterEvent",
    "ClusterEventWithHint",
    "EventResource",
    "QueueingHint",
    "QueueingHintFn",
    "event_resource_for",
]


@final
class ActionType(enum.IntFlag):
    """What happened to an object (flags, combinable as upstream's ``ActionType``)."""

    __module__ = "schedframe"

    ADD = 1 << 0
    DELETE = 1 << 1
    UPDATE_NODE_ALLOCATABLE = 1 << 2
    UPDATE_NODE_LABEL = 1 << 3
    UPDATE_NODE_TAINT = 1 << 4
    UPDATE_NODE_CONDITION = 1 << 5
    UPDATE_NODE_ANNOTATION = 1 << 6
    UPDATE_POD_LABEL = 1 << 7
    UPDATE_POD_SCALE_DOWN = 1 << 8
    UPDATE_POD_TOLERATION = 1 << 9
    UPDATE_POD_SCHEDULING_GATES_ELIMINATED = 1 << 10
    UPDATE_POD_GENERATED_RESOURCE_CLAIM = 1 << 11
    UPDATE_NODE_DECLARED_FEATURE = 1 << 12
    UPDATE = (
        UPDATE_NODE_ALLOCATABLE | UPDATE_NODE_LABEL | UPDATE_NODE_TAINT | UPDATE_NODE_CONDITION
        | UPDATE_NODE_ANNOTATION | UPDATE_POD_LABEL | UPDATE_POD_SCALE_DOWN | UPDATE_POD_TOLERATION
        | UPDATE_POD_SCHEDULING_GATES_ELIMINATED | UPDATE_POD_GENERATED_RESOURCE_CLAIM
        | UPDATE_NODE_DECLARED_FEATURE
    )
    ALL = ADD | DELETE | UPDATE


@final
class EventResource(str, enum.Enum):
    """The kind of object an event is about."""

    __module__ = "schedframe"

    POD = "Pod"
    ASSIGNED_POD = "AssignedPod"
    UNSCHEDULED_POD = "UnschedulablePod"
    NODE = "Node"
    NAMESPACE = "Namespace"
    SERVICE = "Service"
    REPLICA_SET = "ReplicaSet"
    STATEFUL_SET = "StatefulSet"
    REPLICATION_CONTROLLER = "ReplicationController"
    POD_DISRUPTION_BUDGET = "PodDisruptionBudget"
    POD_GROUP = "PodGroup"
    ELASTIC_QUOTA = "ElasticQuota"
    NODE_RESOURCE_TOPOLOGY = "NodeResourceTopology"
    APP_GROUP = "AppGroup"
    NETWORK_TOPOLOGY = "NetworkTopology"
    RESOURCE_CLAIM = "ResourceClaim"
    RESOURCE_SLICE = "ResourceSlice"
    DEVICE_CLASS = "DeviceClass"
    PERSISTENT_VOLUME = "PersistentVolume"
    PERSISTENT_VOLUME_CLAIM = "PersistentVolumeClaim"
    STORAGE_CLASS = "storage.k8s.io/StorageClass"
    CSI_NODE = "storage.k8s.io/CSINode"
    CSI_DRIVER = "storage.k8s.io/CSIDriver"
    CSI_STORAGE_CAPACITY = "storage.k8s.io/CSIStorageCapacity"
    VOLUME_ATTACHMENT = "storage.k8s.io/VolumeAttachment"
    WORKLOAD = "Workload"
    COMPOSITE_POD_GROUP = "CompositePodGroup"
    WILDCARD = "*"


_POD_KINDS: Final = frozenset({EventResource.ASSIGNED_POD, EventResource.UNSCHEDULED_POD})
_RESOURCE_VALUES: Final = frozenset(r.value for r in EventResource)


def event_resource_for(kind: str | type) -> EventResource | None:
    """The :class:`~schedframe.EventResource` of the objects of *kind* (a kind name such as ``"Service"``, or
    a value class registered in :data:`~schedframe.api.KINDS`), or ``None`` for a kind no
    plugin registers events for (workloads such as Deployments). Derived from the kinds registry:
    the resource is named after the kind, with its API group for the ``storage.k8s.io`` kinds as
    upstream names them (``storage.k8s.io/StorageClass``). Pods map to :attr:`schedframe.EventResource.POD`.
    """
    info = KINDS.by_class(kind) if isinstance(kind, type) else KINDS.by_kind(kind)
    if info is None:
        return None
    for name in (info.kind, f"{info.group}/{info.kind}"):
        if name in _RESOURCE_VALUES:
            return EventResource(name)
    return None


@final
@attrs.frozen
class ClusterEvent:
    """A cluster change: a resource and the action(s) on it."""

    __module__ = "schedframe"

    resource: EventResource
    action: ActionType
    label: str = ""

    def matches(self, incoming: ClusterEvent) -> bool:
        """Whether a registered event (``self``) covers *incoming* (upstream ``MatchClusterEvents``)."""
        if self.resource is EventResource.WILDCARD and self.action == ActionType.ALL:
            return True
        if self.action & incoming.action == 0:
            return False
        if self.resource is EventResource.WILDCARD or self.resource is incoming.resource:
            return True
        # "Pod" covers the assigned/unscheduled split of newer upstream versions
        return self.resource is EventResource.POD and incoming.resource in _POD_KINDS

    def __str__(self) -> str:
        return self.label or f"{self.resource.value}{self.action!r}"


@final
class QueueingHint(enum.IntEnum):
    """A hint function's verdict for one pod and one event."""

    __module__ = "schedframe"

    QUEUE_SKIP = 0
    QUEUE = 1


#: ``hint(pod, old_obj, new_obj) -> QueueingHint``; raising counts as QUEUE (upstream treats a
#: hint error as "requeue").
QueueingHintFn = Callable[[Pod, Any, Any], QueueingHint]


@final
@attrs.frozen
class ClusterEventWithHint:
    """A registered event with its optional hint function (``None``: always requeue)."""

    __module__ = "schedframe"

    event: ClusterEvent
    hint: QueueingHintFn | None = None


# common events, as upstream names them
NODE_ADD: Final = ClusterEvent(EventResource.NODE, ActionType.ADD, "NodeAdd")
ASSIGNED_POD_DELETE: Final = ClusterEvent(EventResource.ASSIGNED_POD, ActionType.DELETE, "AssignedPodDelete")
EVENT_UNSCHEDULABLE_TIMEOUT: Final = ClusterEvent(
    EventResource.WILDCARD, ActionType.ALL, "UnschedulableTimeout")
EVENT_FORCE_ACTIVATE: Final = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, "ForceActivate")
