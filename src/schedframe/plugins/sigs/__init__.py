"""Plugins of kubernetes-sigs/scheduler-plugins, one module each: CapacityScheduling (with
:class:`~schedframe.api.ElasticQuota`), NodeResourcesAllocatable, PreemptionToleration, PodState,
QOSSort, NodeResourceTopologyMatch (with :class:`~schedframe.api.NodeResourceTopology`),
TopologicalSort and NetworkOverhead (with :class:`~schedframe.api.AppGroup` and
:class:`~schedframe.api.NetworkTopology`); Coscheduling lives beside the in-tree plugins
(:mod:`schedframe.plugins.coscheduling`). The load-aware TargetLoadPacking,
LoadVariationRiskBalancing, LowRiskOverCommitment and Peaks come with their load model
(:class:`NodeMetricsSource`, :class:`WatcherMetrics`).

They are registered by default (a configuration naming them loads with no user code) but are
not in the default profile, and :data:`SCHEDULER_PLUGINS` marks their origin (``schedframe
plugins`` shows it). Semantics, defaults, validation and messages follow scheduler-plugins'
newest release (v0.34.7). Like the in-tree plugins, these modules may import
:mod:`schedframe.framework`, :mod:`schedframe.cache`, :mod:`schedframe.api` and the in-tree
plugins' helpers, never the queue, the config or the scheduler.
"""

from __future__ import annotations

from typing import Final

from ._load import (
    AssignedPodsCache,
    Collector,
    LoadMetricsError,
    LoadWatcherClient,
    Metric,
    MetricProviderSpec,
    MetricsProvider,
    NodeMetricsSource,
    StaticMetricsProvider,
    TrimaranSpec,
    WatcherMetrics,
    load_metrics_file,
)
from .capacity_scheduling import CapacityScheduling
from .elastic_quota_info import QuotaInfo, QuotaInfos
from .load_variation_risk_balancing import LoadVariationRiskBalancing, LoadVariationRiskBalancingArgs
from .low_risk_over_commitment import LowRiskOverCommitment, LowRiskOverCommitmentArgs
from .network_overhead import NetworkOverhead, NetworkOverheadArgs
from .node_resource_topology_match import (
    NodeResourceTopologyCache,
    NodeResourceTopologyMatch,
    NodeResourceTopologyMatchArgs,
    ScoringStrategy,
)
from .node_resources_allocatable import NodeResourcesAllocatable, NodeResourcesAllocatableArgs, ResourceWeight
from .peaks import Peaks, PeaksArgs, PowerModel
from .pod_state import PodState
from .preemption_toleration import PreemptionToleration, PreemptionTolerationPolicy
from .qos import QOSSort, pod_qos_class
from .target_load_packing import TargetLoadPacking, TargetLoadPackingArgs
from .topological_sort import TopologicalSort, TopologicalSortArgs

__all__ = [
    "MODULES",
    "SCHEDULER_PLUGINS",
    "SCHEDULER_PLUGINS_RELEASE",
    "AssignedPodsCache",
    "CapacityScheduling",
    "Collector",
    "LoadMetricsError",
    "LoadVariationRiskBalancing",
    "LoadVariationRiskBalancingArgs",
    "LoadWatcherClient",
    "LowRiskOverCommitment",
    "LowRiskOverCommitmentArgs",
    "Metric",
    "MetricProviderSpec",
    "MetricsProvider",
    "NetworkOverhead",
    "NetworkOverheadArgs",
    "NodeMetricsSource",
    "NodeResourceTopologyCache",
    "NodeResourceTopologyMatch",
    "NodeResourceTopologyMatchArgs",
    "NodeResourcesAllocatable",
    "NodeResourcesAllocatableArgs",
    "Peaks",
    "PeaksArgs",
    "PodState",
    "PowerModel",
    "PreemptionToleration",
    "PreemptionTolerationPolicy",
    "QOSSort",
    "QuotaInfo",
    "QuotaInfos",
    "ResourceWeight",
    "ScoringStrategy",
    "StaticMetricsProvider",
    "TargetLoadPacking",
    "TargetLoadPackingArgs",
    "TopologicalSort",
    "TopologicalSortArgs",
    "TrimaranSpec",
    "WatcherMetrics",
    "load_metrics_file",
    "pod_qos_class",
]

#: The scheduler-plugins release these plugins follow.
SCHEDULER_PLUGINS_RELEASE: Final = "v0.34.7"

#: The modules of this package that register a plugin (each exposes ``NAME`` and ``new``, and
#: ``ARGS_TYPE`` when the plugin has args).
MODULES: Final = (
    "capacity_scheduling",
    "node_resources_allocatable",
    "preemption_toleration",
    "pod_state",
    "qos",
    "node_resource_topology_match",
    "topological_sort",
    "network_overhead",
    "target_load_packing",
    "load_variation_risk_balancing",
    "low_risk_over_commitment",
    "peaks",
)

#: Every registered plugin that comes from kubernetes-sigs/scheduler-plugins (Coscheduling too).
SCHEDULER_PLUGINS: Final[frozenset[str]] = frozenset({
    "CapacityScheduling", "Coscheduling", "NodeResourcesAllocatable", "PreemptionToleration",
    "PodState", "QOSSort", "NodeResourceTopologyMatch", "TopologicalSort", "NetworkOverhead",
    "TargetLoadPacking", "LoadVariationRiskBalancing", "LowRiskOverCommitment", "Peaks",
})
