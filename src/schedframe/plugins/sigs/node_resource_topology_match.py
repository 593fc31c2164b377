"""NodeResourceTopologyMatch: NUMA-aware Filter and Score from the nodes'
:class:`~schedframe.api.NodeResourceTopology` objects (kubernetes-sigs/scheduler-plugins
``pkg/noderesourcetopology``, v0.34.7).

Filter acts only on nodes whose Topology Manager policy is ``single-numa-node`` (upstream filters
no other policy: ``restricted`` and ``best-effort`` nodes pass): at ``container`` scope every
init container and then every app container must fit in one NUMA zone (app containers take their
share of the zone they land in), at ``pod`` scope the pod's effective request must. CPU, memory
and hugepages only count for Guaranteed pods; BestEffort pods asking for no device pass; a node
without an NRT object passes. Reasons: ``cannot align container`` / ``cannot align init
container`` / ``cannot align pod``; ``invalid node topology data`` when the cache has no fresh
data for the node.

Score (Guaranteed pods; others score 100): for ``single-numa-node`` nodes the zone scores of the
strategy (LeastAllocated, MostAllocated, BalancedAllocation over ``scoringStrategy.resources``
weights), the lowest non-zero zone score, averaged over containers at container scope;
LeastNUMANodes (any policy) favours nodes needing the fewest NUMA zones, with a bonus when those
zones are the closest. Reserve/Unreserve/PostBind feed the NRT cache (:mod:`._nrt_cache`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, final

import attrs

from ...api.objects import Pod
from ...cache.listers import ObjectLister
from ...cache.nodeinfo import NodeInfo
from ...framework.cycle_state import CycleState
from ...framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from ...framework.handle import Handle
from ...framework.interfaces import MAX_NODE_SCORE
from ...framework.registry import plugin_args
from ...framework.status import Code, Status
from .._helpers import FieldErrors, WithArgs
from .._resource_scoring import ResourceSpec, defaulted_resources
from . import _nrt_numa as numa
from ._nrt_cache import DiscardReserved, NRTCache, OverReserve, Passthrough
from .qos import BEST_EFFORT, GUARANTEED, pod_qos_class

if TYPE_CHECKING:
    pass

__all__ = [
    "ARGS_TYPE",
    "BALANCED_ALLOCATION",
    "ERR_CANNOT_ALIGN_CONTAINER",
    "ERR_CANNOT_ALIGN_POD",
    "ERR_INVALID_TOPOLOGY",
    "LEAST_ALLOCATED",
    "LEAST_NUMA_NODES",
    "MOST_ALLOCATED",
    "NAME",
    "NodeResourceTopologyCache",
    "NodeResourceTopologyMatch",
    "NodeResourceTopologyMatchArgs",
    "ScoringStrategy",
    "new",
]

NAME: Final = "NodeResourceTopologyMatch"
LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
BALANCED_ALLOCATION: Final = "BalancedAllocation"
LEAST_NUMA_NODES: Final = "LeastNUMANodes"
_STRATEGIES: Final = (LEAST_ALLOCATED, MOST_ALLOCATED, BALANCED_ALLOCATION, LEAST_NUMA_NODES)
ERR_CANNOT_ALIGN_POD: Final = numa.ERR_CANNOT_ALIGN_POD
ERR_CANNOT_ALIGN_CONTAINER: Final = numa.ERR_CANNOT_ALIGN_CONTAINER
ERR_INVALID_TOPOLOGY: Final = numa.ERR_INVALID_TOPOLOGY

_DEFAULT_RESOURCES: Final = (ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1))


@final
@attrs.frozen(kw_only=True)
class ScoringStrategy:
    """``scoringStrategy``: the type and the resources' weights.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    type: str = LEAST_ALLOCATED
    resources: tuple[ResourceSpec, ...] = _DEFAULT_RESOURCES


@final
@attrs.frozen(kw_only=True)
class NodeResourceTopologyCache:
    """``cache``: upstream's cache tuning, defaulted as upstream (``foreignPodsDetect: All``,
    ``resyncMethod: Autodetect``, ``informerMode: Dedicated``). Carried through; schedframe's
    cache does not depend on them.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    foreign_pods_detect: str = "All"
    resync_method: str = "Autodetect"
    informer_mode: str = "Dedicated"
    resync_scope: str | None = None


@final
@attrs.frozen(kw_only=True)
class NodeResourceTopologyMatchArgs:
    """``NodeResourceTopologyMatchArgs`` (scheduler-plugins ``config/v1``), defaulted as upstream:
    LeastAllocated over cpu and memory with weight 1 (a weight of 0 becomes 1); no cache
    (``cacheResyncPeriodSeconds`` 0); ``discardReservedNodes`` off.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    scoring_strategy: ScoringStrategy = ScoringStrategy()
    cache_resync_period_seconds: int = attrs.field(default=0, metadata={"omitempty": True})
    discard_reserved_nodes: bool = attrs.field(default=False, metadata={"omitempty": True})
    cache: NodeResourceTopologyCache = NodeResourceTopologyCache()

    def with_defaults(self) -> NodeResourceTopologyMatchArgs:
        """Upstream's ``SetDefaults_NodeResourceTopologyMatchArgs``: cpu and memory when no
        resources are given, a zero weight 1, and the cache's defaults for what it leaves out."""
        ss, cache, default = self.scoring_strategy, self.cache, NodeResourceTopologyCache()
        return attrs.evolve(
            self, scoring_strategy=attrs.evolve(ss, resources=defaulted_resources(ss.resources)),
            cache=attrs.evolve(cache,
                               foreign_pods_detect=cache.foreign_pods_detect or default.foreign_pods_detect,
                               resync_method=cache.resync_method or default.resync_method,
                               informer_mode=cache.informer_mode or default.informer_mode))

    def errors(self) -> list[str]:
        """Upstream ``ValidateNodeResourceTopologyMatchArgs``: a known scoring strategy type."""
        errs = FieldErrors()
        for i, r in enumerate(self.scoring_strategy.resources):
            if not r.name:
                errs.add(f"scoringStrategy.resources[{i}].name: must be a non-empty string")
        if self.scoring_strategy.type not in _STRATEGIES:
            errs.invalid("scoringStrategy.type", self.scoring_strategy.type, "invalid ScoringStrategyType")
        return errs.errors


ARGS_TYPE: Final = NodeResourceTopologyMatchArgs

_STRATEGY_FUNCS: Final[Mapping[str, numa.ScoreStrategy]] = {
    LEAST_ALLOCATED: numa.least_allocated_strategy,
    MOST_ALLOCATED: numa.most_allocated_strategy,
    BALANCED_ALLOCATION: numa.balanced_allocation_strategy,
}


@final
class NodeResourceTopologyMatch(WithArgs[NodeResourceTopologyMatchArgs]):
    """The NodeResourceTopologyMatch plugin (Filter, Score, Reserve, PostBind).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_args", "_strategy", "_weights", "cache")

    def __init__(self, args: NodeResourceTopologyMatchArgs, objects: ObjectLister) -> None:
        self._args = args
        self._strategy = args.scoring_strategy.type
        self._weights = {r.name: r.weight for r in args.scoring_strategy.resources}
        # the NRT cache the args select: discard-reserved, passthrough or over-reserve
        self.cache: NRTCache
        if args.discard_reserved_nodes:
            self.cache = DiscardReserved(objects)
        elif args.cache_resync_period_seconds <= 0:
            self.cache = Passthrough(objects)
        else:
            self.cache = OverReserve(objects)

    @property
    def name(self) -> str:
        """``"NodeResourceTopologyMatch"``."""
        return NAME

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A pod deleted, a node added or its allocatable changed, an NRT object added or updated."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE)),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE)
            ),
            ClusterEventWithHint(
                ClusterEvent(EventResource.NODE_RESOURCE_TOPOLOGY, ActionType.ADD | ActionType.UPDATE)
            ),
        )

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Single-NUMA-node alignment at the node's Topology Manager scope."""
        node = node_info.node
        if node is None:
            return Status(Code.ERROR, ("node not found",))
        qos = pod_qos_class(pod)
        if qos == BEST_EFFORT and not numa.include_non_native(pod):
            return None
        nrt, fresh = self.cache.get_cached_nrt_copy(node.name, pod)
        if not fresh:
            return Status(Code.UNSCHEDULABLE, (ERR_INVALID_TOPOLOGY,))
        if nrt is None:
            return None
        conf = numa.TopologyManager.from_nrt(nrt)
        if conf.policy != numa.POLICY_SINGLE_NUMA_NODE:
            return None
        numa_nodes = numa.create_numa_node_list(nrt.zones)
        allocatable = numa.node_allocatable_names(node_info)
        if conf.scope == numa.SCOPE_POD:
            status = numa.single_numa_pod_level(pod, numa_nodes, allocatable, qos)
        else:
            status = numa.single_numa_container_level(pod, numa_nodes, allocatable, qos)
        if status is not None:
            self.cache.node_maybe_over_reserved(node.name, pod)
        return status

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The strategy's score of the node's NUMA zones."""
        node = node_info.node
        if node is None:
            return 0, Status(Code.ERROR, ("node not found",))
        qos = pod_qos_class(pod)
        if qos != GUARANTEED:
            return MAX_NODE_SCORE, None
        nrt, fresh = self.cache.get_cached_nrt_copy(node.name, pod)
        if not fresh or nrt is None:
            return 0, None
        conf = numa.TopologyManager.from_nrt(nrt)
        numa_nodes = numa.create_numa_node_list(nrt.zones)
        if self._strategy == LEAST_NUMA_NODES:
            if conf.scope == numa.SCOPE_POD:
                return numa.least_numa_pod_scope_score(pod, numa_nodes, qos, conf.max_numa_nodes), None
            return numa.least_numa_container_scope_score(pod, numa_nodes, qos, conf.max_numa_nodes), None
        if conf.policy != numa.POLICY_SINGLE_NUMA_NODE:
            return 0, None
        strategy = _STRATEGY_FUNCS[self._strategy]
        if conf.scope == numa.SCOPE_POD:
            return numa.pod_scope_score(pod, numa_nodes, strategy, self._weights), None
        return numa.container_scope_score(pod, numa_nodes, strategy, self._weights), None

    def score_extensions(self) -> None:
        """No NormalizeScore."""
        return None

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Record the pod in the NRT cache (never fails)."""
        self.cache.reserve_node_resources(node_name, pod)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Forget the pod's reservation."""
        self.cache.unreserve_node_resources(node_name, pod)

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Tell the cache the pod is bound."""
        self.cache.post_bind(node_name, pod)


def new(args: object, handle: Handle) -> NodeResourceTopologyMatch:
    """Factory: *args* is ``None``, a :class:`NodeResourceTopologyMatchArgs` or a camelCase mapping."""
    parsed = plugin_args(args, NodeResourceTopologyMatchArgs)
    return NodeResourceTopologyMatch(parsed, handle.objects)


if TYPE_CHECKING:
    from ...framework.interfaces import FilterPlugin, PostBindPlugin, ReservePlugin, ScorePlugin

    def _check(p: NodeResourceTopologyMatch) -> None:
        _a: FilterPlugin = p
        _b: ScorePlugin = p
        _c: ReservePlugin = p
        _d: PostBindPlugin = p
