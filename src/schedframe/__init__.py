"""schedframe: the Kubernetes scheduling framework, embeddable in pure Python."""

from __future__ import annotations

from typing import Any

from ._api import (
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Namespace,
    Node,
    NodeAffinity,
    NodeCondition,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodCondition,
    PodDisruptionBudget,
    PodGroup,
    PreferredSchedulingTerm,
    PriorityClass,
    ReplicaSet,
    ReplicationController,
    Resources,
    Service,
    StatefulSet,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from ._bind import BindPlugin, PostBindPlugin, PreBindPlugin
from ._binder import Binder, InMemoryBinder
from ._cache import Cache, CacheDump
from ._clock import Clock, FakeClock, RealClock
from ._config import (
    EXTENSION_POINTS,
    PluginRef,
    Profile,
    SchedulerConfiguration,
    extension_points_of,
)
from ._cycle_state import CycleState, StateData, StateKey
from ._events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ._exceptions import (
    CacheError,
    ConfigurationError,
    DuplicatePluginError,
    ManifestError,
    PluginArgsError,
    PluginLoadError,
    QuantityError,
    RegistryError,
    SchedframeError,
    SchedulerError,
    StateNotFoundError,
    UnknownPluginError,
)
from ._explain import (
    Explanation,
    NodeScores,
    NodeVerdict,
    PluginNodeScore,
    PluginVerdict,
    explain,
    explain_with,
)
from ._filter import (
    FilterPlugin,
    NodeToStatus,
    NominatingInfo,
    PostFilterPlugin,
    PostFilterResult,
    PreFilterExtensions,
    PreFilterPlugin,
    PreFilterResult,
)
from ._framework import Framework, InMemoryEventRecorder, RecordedEvent
from ._handle import Client, EventRecorder, Handle, NodeInfoLister, Nominator, ObjectLister, SharedLister
from ._hookspecs import hookimpl, hookspec
from ._kube import load_manifests, object_from_manifest, object_to_manifest
from ._nodeinfo import AffinityTerm, HostPortInfo, ImageStateSummary, NodeInfo, PodInfo, WeightedAffinityTerm
from ._objects import ObjectStore
from ._permit import MAX_PERMIT_TIMEOUT, PermitPlugin, WaitingPod
from ._plugin import EnqueueExtensions, Plugin, PreEnqueuePlugin
from ._plugin_manager import load_plugins, make_plugin_manager
from ._quantity import Quantity, parse_quantity
from ._queue_sort import QueuedPodInfo, QueueSortPlugin
from ._registry import PluginFactory, Registry, RegistryEntry
from ._reserve import ReservePlugin
from ._scheduler import FitError, PendingPod, RunSummary, Scheduler
from ._score import (
    MAX_NODE_SCORE,
    MIN_NODE_SCORE,
    NodePluginScores,
    NodeScore,
    PluginScore,
    PreScorePlugin,
    ScoreExtensions,
    ScorePlugin,
)
from ._snapshot import Snapshot
from ._status import Code, Status
from ._waiting_pods import WaitingPodEntry, WaitingPods

__all__ = [
    "ActionType",
    "Affinity",
    "AffinityTerm",
    "BindPlugin",
    "Binder",
    "Cache",
    "CacheDump",
    "CacheError",
    "Client",
    "Clock",
    "ClusterEvent",
    "ClusterEventWithHint",
    "Code",
    "ConfigurationError",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "CycleState",
    "DuplicatePluginError",
    "EXTENSION_POINTS",
    "EnqueueExtensions",
    "EventRecorder",
    "EventResource",
    "Explanation",
    "FakeClock",
    "FilterPlugin",
    "FitError",
    "Framework",
    "Handle",
    "HostPortInfo",
    "ImageStateSummary",
    "InMemoryBinder",
    "InMemoryEventRecorder",
    "LabelSelector",
    "LabelSelectorRequirement",
    "MAX_NODE_SCORE",
    "MAX_PERMIT_TIMEOUT",
    "MIN_NODE_SCORE",
    "ManifestError",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeCondition",
    "NodeInfo",
    "NodeInfoLister",
    "NodePluginScores",
    "NodeScore",
    "NodeScores",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "NodeToStatus",
    "NodeVerdict",
    "NominatingInfo",
    "Nominator",
    "ObjectLister",
    "ObjectStore",
    "OwnerReference",
    "PendingPod",
    "PermitPlugin",
    "Plugin",
    "PluginArgsError",
    "PluginFactory",
    "PluginLoadError",
    "PluginNodeScore",
    "PluginRef",
    "PluginScore",
    "PluginVerdict",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodCondition",
    "PodDisruptionBudget",
    "PodGroup",
    "PodInfo",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "PreferredSchedulingTerm",
    "PriorityClass",
    "Profile",
    "Quantity",
    "QuantityError",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "QueueingHint",
    "RealClock",
    "RecordedEvent",
    "Registry",
    "RegistryEntry",
    "RegistryError",
    "ReplicaSet",
    "ReplicationController",
    "ReservePlugin",
    "Resources",
    "RunSummary",
    "SchedframeError",
    "Scheduler",
    "SchedulerConfiguration",
    "SchedulerError",
    "ScoreExtensions",
    "ScorePlugin",
    "Service",
    "SharedLister",
    "Snapshot",
    "StateData",
    "StateKey",
    "StateNotFoundError",
    "StatefulSet",
    "Status",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "UnknownPluginError",
    "WaitingPod",
    "WaitingPodEntry",
    "WaitingPods",
    "WeightedAffinityTerm",
    "WeightedPodAffinityTerm",
    "explain",
    "explain_with",
    "extension_points_of",
    "hookimpl",
    "hookspec",
    "load_manifests",
    "load_plugins",
    "make_plugin_manager",
    "object_from_manifest",
    "object_to_manifest",
    "parse_quantity",
]


def __getattr__(name: str) -> Any:
    if name == "__version__":
        from importlib.metadata import version

        return version("schedframe")
    raise AttributeError(f"module 'schedframe' has no attribute {name!r}")
