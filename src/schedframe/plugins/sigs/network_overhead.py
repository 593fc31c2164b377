"""NetworkOverhead: places a pod of an AppGroup close (in network cost) to the pods of the
workloads it depends on (kubernetes-sigs/scheduler-plugins ``pkg/networkaware/networkoverhead``,
v0.34.7).

PreFilter reads the pod's AppGroup (label ``appgroup.diktyo.x-k8s.io``, looked up in the
configured ``namespaces``), the workload's dependencies, the NetworkTopology named
``networkTopologyName`` and its costs of the weights named ``weightsName``; then, for every node,
counts the already-placed dependency pods whose network cost from the node is within the
dependency's ``maxNetworkCost`` (satisfied) or not (violated), and sums the costs: same node 0,
same zone 1, another zone of the same region the zone cost, another region the region cost, a
node without region and zone labels (or a missing cost) 100. Filter rejects a node with more
violated than satisfied dependencies ("Node X does not meet several network requirements from
Workload dependencies: Satisfied: S Violated: V"); Score is the accumulated cost, which
NormalizeScore inverts (``100 - 100 * (cost - min) / (max - min)``), so cheaper nodes win. A pod
outside an AppGroup, or without dependencies, is neither filtered nor scored (every node 0).

Placed pods are the pods on the snapshot's nodes (upstream lists them from the pod informer).
Where upstream would dereference a missing AppGroup or NetworkTopology, the pod has no
dependencies, or no costs, respectively.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Final, final

import attrs

from ...api.networkaware import AppGroupDependency, NetworkTopology
from ...api.objects import Node, Pod
from ...cache.nodeinfo import NodeInfo
from ...framework.cycle_state import CycleState, StateKey
from ...framework.handle import Handle
from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE, NodeScore, PreFilterResult
from ...framework.registry import plugin_args
from ...framework.status import Code, Status
from ._networkaware import (
    AppGroupPlugin,
    find_object,
    pod_app_group,
    pod_app_group_selector,
)

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "ARGS_TYPE",
    "ERR_NETWORK_REQUIREMENTS",
    "MAX_COST",
    "NAME",
    "NetworkOverhead",
    "NetworkOverheadArgs",
    "new",
]

NAME: Final = "NetworkOverhead"
#: The cost of a dependency on a node without region/zone labels, or without a listed cost.
MAX_COST: Final = 100
SAME_HOSTNAME: Final = 0
SAME_ZONE: Final = 1
#: Filter's reason (node name, satisfied, violated).
ERR_NETWORK_REQUIREMENTS: Final = (
    "Node {} does not meet several network requirements from Workload "
    "dependencies: Satisfied: {} Violated: {}"
)
REGION_LABEL: Final = "topology.kubernetes.io/region"
ZONE_LABEL: Final = "topology.kubernetes.io/zone"
NETPERF_COSTS: Final = "NetperfCosts"
DEFAULT_WEIGHTS_NAME: Final = "UserDefined"
DEFAULT_NETWORK_TOPOLOGY_NAME: Final = "nt-default"


@final
@attrs.frozen(kw_only=True)
class NetworkOverheadArgs:
    """``NetworkOverheadArgs``, defaulted as upstream: namespaces ``["default"]``, weightsName
    ``UserDefined``, networkTopologyName ``nt-default``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"

    namespaces: tuple[str, ...] = ("default",)
    weights_name: str = DEFAULT_WEIGHTS_NAME
    network_topology_name: str = DEFAULT_NETWORK_TOPOLOGY_NAME

    def with_defaults(self) -> Self:
        """Upstream's defaulting: no namespaces is ``["default"]``."""
        return self if self.namespaces else attrs.evolve(self, namespaces=("default",))



ARGS_TYPE: Final = NetworkOverheadArgs

CostMap = dict[tuple[str, str], int]


@attrs.frozen
class _Placed:
    name: str
    selector: str
    hostname: str


@attrs.frozen
class NetworkOverheadState:
    """What PreFilter computed (upstream ``PreFilterState``)."""

    score_equally: bool = True
    satisfied: Mapping[str, int] = attrs.field(factory=dict)
    violated: Mapping[str, int] = attrs.field(factory=dict)
    final_cost: Mapping[str, int] = attrs.field(factory=dict)


STATE_KEY: Final[StateKey[NetworkOverheadState]] = StateKey("PreFilter" + NAME, NAME)


def _region(node: Node | None) -> str:
    return node.labels.get(REGION_LABEL, "") if node is not None else ""


def _zone(node: Node | None) -> str:
    return node.labels.get(ZONE_LABEL, "") if node is not None else ""


@final
class NetworkOverhead(AppGroupPlugin[NetworkOverheadArgs]):
    """The NetworkOverhead plugin (PreFilter, Filter, Score with NormalizeScore).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ()

    @property
    def name(self) -> str:
        """``"NetworkOverhead"``."""
        return NAME

    # ------------------------------------------------------------------------------ costs

    def _cost_map(self, nt: NetworkTopology | None, region: str, zone: str) -> CostMap:
        costs: CostMap = {}
        if nt is None:
            return costs
        for w in nt.weights:
            if w.name != self._args.weights_name:
                continue
            for key, origin in ((REGION_LABEL, region), (ZONE_LABEL, zone)):
                if not origin:
                    continue
                for t in w.topology_list:
                    if t.topology_key != key:
                        continue
                    for o in t.origin_list:
                        if o.origin == origin:
                            for c in o.cost_list:
                                costs[(origin, c.destination)] = c.network_cost
                            break
                    break
        return costs

    def pre_filter(
        self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
    ) -> tuple[PreFilterResult | None, Status | None]:
        """Count satisfied/violated dependencies and the accumulated cost per node."""
        state.write(STATE_KEY, NetworkOverheadState())
        ag_name = pod_app_group(pod)
        if not ag_name:
            return None, None
        app_group = self._app_group(ag_name)
        nt: NetworkTopology | None = find_object(
            self._handle.objects, NetworkTopology, self._args.network_topology_name, self._args.namespaces
        )
        selector = pod_app_group_selector(pod)
        dependencies: list[AppGroupDependency] = []
        for w in app_group.workloads if app_group is not None else ():
            if w.workload.selector == selector:
                dependencies.extend(w.dependencies)
        if not dependencies:
            return None, None
        lister = self._handle.snapshot_shared_lister().node_infos()
        all_nodes = lister.list()
        placed = [
            _Placed(pi.pod.name, pod_app_group_selector(pi.pod), ni.name)
            for ni in all_nodes
            for pi in ni.pods
            if pod_app_group(pi.pod) == ag_name
        ]
        if not placed:
            return None, None
        satisfied: dict[str, int] = {}
        violated: dict[str, int] = {}
        final_cost: dict[str, int] = {}
        for ni in all_nodes:
            node = ni.node
            region, zone = _region(node), _zone(node)
            costs = self._cost_map(nt, region, zone)
            sat = vio = cost = 0
            for p in placed:
                for d in dependencies:
                    if p.selector != d.workload.selector:
                        continue
                    if p.hostname == ni.name:
                        sat += 1
                        cost += SAME_HOSTNAME
                        continue
                    other = lister.get(p.hostname)
                    if other is None:
                        return None, Status(Code.ERROR, (f"pod hostname not found: {p.hostname}",))
                    o_region, o_zone = _region(other.node), _zone(other.node)
                    if not o_region and not o_zone:
                        vio += 1
                        cost += MAX_COST
                        continue
                    if region == o_region:
                        if zone == o_zone:
                            sat += 1
                            cost += SAME_ZONE
                            continue
                        key = (zone, o_zone)
                    else:
                        key = (region, o_region)
                    value = costs.get(key)
                    if value is None:
                        cost += MAX_COST
                        continue
                    cost += value
                    if value <= d.max_network_cost:
                        sat += 1
                    else:
                        vio += 1
            satisfied[ni.name], violated[ni.name], final_cost[ni.name] = sat, vio, cost
        state.write(STATE_KEY, NetworkOverheadState(False, satisfied, violated, final_cost))
        return None, None

    def pre_filter_extensions(self) -> None:
        """Upstream's AddPod/RemovePod do nothing."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject a node violating more dependencies than it satisfies."""
        if node_info.node is None:
            return Status(Code.ERROR, ("node not found",))
        s = state.get(STATE_KEY)
        if s is None:
            return Status(Code.ERROR, ("not eligible due to failed to read from cycleState",))
        if s.score_equally:
            return None
        name = node_info.name
        satisfied, violated = s.satisfied.get(name, 0), s.violated.get(name, 0)
        if violated > satisfied:
            return Status(Code.UNSCHEDULABLE, (ERR_NETWORK_REQUIREMENTS.format(name, satisfied, violated),))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The accumulated network cost (NormalizeScore inverts it)."""
        s = state.get(STATE_KEY)
        if s is None:
            return MIN_NODE_SCORE, Status(
                Code.ERROR, ("not eligible due to failed to read from cycleState, return min score",)
            )
        if s.score_equally:
            return MIN_NODE_SCORE, None
        return s.final_cost.get(node_info.name, 0), None

    def score_extensions(self) -> NetworkOverhead:
        """NormalizeScore: lower costs score higher."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """``100 - int(100 * (cost - min) / (max - min))`` (``100 - (cost - min)`` when all equal;
        nothing when every cost is 0)."""
        if not scores:
            return None
        lo = min(s.score for s in scores)
        hi = max(s.score for s in scores)
        if lo == 0 and hi == 0:
            return None
        for i, ns in enumerate(scores):
            if hi != lo:
                norm = int(float(MAX_NODE_SCORE) * float(ns.score - lo) / float(hi - lo))
            else:
                norm = ns.score - lo
            scores[i] = NodeScore(ns.name, MAX_NODE_SCORE - norm)
        return None


def new(args: object, handle: Handle) -> NetworkOverhead:
    """Factory: *args* is ``None``, a :class:`NetworkOverheadArgs` or a camelCase mapping."""
    return NetworkOverhead(plugin_args(args, NetworkOverheadArgs), handle)


if TYPE_CHECKING:
    from ...framework.interfaces import FilterPlugin, PreFilterPlugin, ScoreExtensions, ScorePlugin

    def _check(p: NetworkOverhead) -> None:
        _a: PreFilterPlugin = p
        _b: FilterPlugin = p
        _c: ScorePlugin = p
        _d: ScoreExtensions = p
