"""NodeResourceTopologyMatch's NUMA model (scheduler-plugins v0.34.7
``pkg/noderesourcetopology/{filter,numaresources,pluginhelpers,score,least_allocated,
most_allocated,balanced_allocation,least_numa}.go`` and ``nodeconfig/topologymanager.go``).

Amounts are exact (``Fraction``) where upstream compares quantities (``Cmp``) and whole units
(``Quantity.Value()``, rounded away from zero) where upstream scores with ``Value()``.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Mapping
from fractions import Fraction
from typing import Final

import attrs

from ...api.noderesourcetopology import ZONE_TYPE_NUMA_NODE, NodeResourceTopology, TopologyZone
from ...api.objects import CPU, EPHEMERAL_STORAGE, MEMORY, Container, Pod
from ...api.quantity import Quantity
from ...cache.nodeinfo import NodeInfo
from ...framework.interfaces import MAX_NODE_SCORE, MIN_NODE_SCORE
from ...framework.status import Code, Status
from .qos import GUARANTEED

Resources = dict[str, Fraction]

# kubelet Topology Manager policies and scopes (k8s.io/kubernetes/pkg/kubelet/apis/config)
POLICY_NONE: Final = "none"
POLICY_BEST_EFFORT: Final = "best-effort"
POLICY_RESTRICTED: Final = "restricted"
POLICY_SINGLE_NUMA_NODE: Final = "single-numa-node"
SCOPE_CONTAINER: Final = "container"
SCOPE_POD: Final = "pod"
_POLICIES: Final = frozenset({POLICY_NONE, POLICY_BEST_EFFORT, POLICY_RESTRICTED, POLICY_SINGLE_NUMA_NODE})
_SCOPES: Final = frozenset({SCOPE_CONTAINER, SCOPE_POD})

#: The NRT attributes the Topology Manager configuration is published in.
ATTRIBUTE_SCOPE: Final = "topologyManagerScope"
ATTRIBUTE_POLICY: Final = "topologyManagerPolicy"
ATTRIBUTE_MAX_NUMA_NODES: Final = "topologyManagerMaxNUMANodes"
DEFAULT_MAX_NUMA_NODES: Final = 8
LIMIT_NUMA_NODES: Final = 1024
#: upstream ``maxNUMAId``: zones ``node-<id>`` with a higher id are ignored.
MAX_NUMA_ID: Final = 64
#: ACPI SLIT "unknown distance".
MAX_DISTANCE_VALUE: Final = 255
#: LeastNUMANodes examines at most this many zone combinations per request: every combination
#: of up to 12 zones (2^12 - 1 of them), so up to 12 zones it finds what upstream finds (the
#: kubelet's topology manager allows 8 by default). On a node with more zones only the sizes
#: whose combinations fit in this budget are tried (40 zones: 1 and 2 zones, 820
#: combinations); a request needing more zones scores as one that fits in no combination
#: (``MIN_NODE_SCORE``). Upstream builds every combination: 2^40 on 40 zones, a cycle that never
#: ends. A deliberate difference, see docs/fidelity.rst.
MAX_NUMA_COMBINATIONS: Final = 2**12

#: the deprecated ``topologyPolicies`` values -> (policy, scope)
_LEGACY_POLICIES: Final = {
    "SingleNUMANodePodLevel": (POLICY_SINGLE_NUMA_NODE, SCOPE_POD),
    "SingleNUMANodeContainerLevel": (POLICY_SINGLE_NUMA_NODE, SCOPE_CONTAINER),
    "BestEffortPodLevel": (POLICY_BEST_EFFORT, SCOPE_POD),
    "BestEffortContainerLevel": (POLICY_BEST_EFFORT, SCOPE_CONTAINER),
    "RestrictedPodLevel": (POLICY_RESTRICTED, SCOPE_POD),
    "RestrictedContainerLevel": (POLICY_RESTRICTED, SCOPE_CONTAINER),
}

#: Filter reasons (upstream's messages).
ERR_CANNOT_ALIGN_POD: Final = "cannot align pod"
ERR_CANNOT_ALIGN_CONTAINER: Final = "cannot align container"
ERR_INVALID_TOPOLOGY: Final = "invalid node topology data"


@attrs.frozen
class TopologyManager:
    """The kubelet Topology Manager configuration an NRT object publishes (upstream
    ``nodeconfig.TopologyManager``): defaults container scope, policy ``none``, 8 NUMA nodes."""

    scope: str = SCOPE_CONTAINER
    policy: str = POLICY_NONE
    max_numa_nodes: int = DEFAULT_MAX_NUMA_NODES

    @classmethod
    def from_nrt(cls, nrt: NodeResourceTopology) -> TopologyManager:
        """The first ``topologyPolicies`` entry, then the attributes (which win)."""
        scope, policy, max_numa = SCOPE_CONTAINER, POLICY_NONE, DEFAULT_MAX_NUMA_NODES
        if nrt.topology_policies:
            legacy = _LEGACY_POLICIES.get(nrt.topology_policies[0])
            if legacy is not None:
                policy, scope = legacy
        for a in nrt.attributes:
            if a.name == ATTRIBUTE_SCOPE and a.value in _SCOPES:
                scope = a.value
            elif a.name == ATTRIBUTE_POLICY and a.value in _POLICIES:
                policy = a.value
            elif a.name == ATTRIBUTE_MAX_NUMA_NODES:
                try:
                    value = int(a.value, 10)
                except ValueError:
                    continue
                if value > 1:
                    max_numa = min(value, LIMIT_NUMA_NODES)
        return cls(scope, policy, max_numa)


@attrs.define
class NUMANode:
    """One NUMA zone: its id, its available resources (mutable: containers are subtracted as
    they are placed) and its distances to the other NUMA nodes (by id)."""

    numa_id: int
    resources: Resources
    costs: dict[int, int] = attrs.field(factory=dict)


def numa_name_to_id(name: str) -> int | None:
    """``node-<id>`` -> id (upstream ``numanode.NameToID``), ``None`` when malformed."""
    if not name.startswith("node-"):
        return None
    digits = name[5:]
    try:
        value = int(digits, 10)
    except ValueError:
        return None
    return value if value >= 0 else None


def create_numa_node_list(zones: Iterable[TopologyZone]) -> list[NUMANode]:
    """The NUMA zones (``type: Node``, ``node-<id>`` with id < 64), their ``available`` amounts
    and costs, in the NRT's order."""
    nodes: list[NUMANode] = []
    for zone in zones:
        if zone.type != ZONE_TYPE_NUMA_NODE:
            continue
        numa_id = numa_name_to_id(zone.name)
        if numa_id is None or numa_id >= MAX_NUMA_ID:
            continue
        costs: dict[int, int] = {}
        for c in zone.costs:
            cid = numa_name_to_id(c.name)
            if cid is not None and cid < MAX_NUMA_ID:
                costs[cid] = c.value
        nodes.append(NUMANode(numa_id, {r.name: r.available.exact for r in zone.resources}, costs))
    return nodes


# ----------------------------------------------------------------------------- resource names


def is_native_resource(name: str) -> bool:
    """``v1helper.IsNativeResource``: unprefixed, or in the ``kubernetes.io/`` domain."""
    return "/" not in name or "kubernetes.io/" in name


def is_hugepages(name: str) -> bool:
    return name.startswith("hugepages-")


def is_host_level_resource(name: str) -> bool:
    """Ephemeral storage, storage, and every non-native resource."""
    return name in (EPHEMERAL_STORAGE, "storage") or not is_native_resource(name)


def is_numa_affine_resource(name: str) -> bool:
    """CPU, memory and hugepages."""
    return name in (CPU, MEMORY) or is_hugepages(name)


def is_resource_set_suitable(qos: str, resource: str, quantity: Fraction, numa_quantity: Fraction) -> bool:
    """Non-guaranteed pods do not get exclusive CPUs/memory: any amount fits."""
    if qos != GUARANTEED and is_numa_affine_resource(resource):
        return True
    return numa_quantity >= quantity


def include_non_native(pod: Pod) -> bool:
    """Some container or init container requests a non-native resource (a device)."""
    return any(
        not is_native_resource(name) for c in (*pod.init_containers, *pod.containers) for name in c.requests
    )


def requests_of(container: Container) -> Resources:
    return {name: q.exact for name, q in container.requests.items()}


def pod_effective_request(pod: Pod) -> Resources:
    """Upstream ``util.GetPodEffectiveRequest``: the larger of the containers' sum and the
    largest init container request, per resource, plus the pod overhead."""
    init: Resources = {}
    for c in pod.init_containers:
        for name, q in c.requests.items():
            if name not in init or q.exact > init[name]:
                init[name] = q.exact
    out: Resources = {}
    for c in pod.containers:
        for name, q in c.requests.items():
            out[name] = out.get(name, Fraction(0)) + q.exact
    for name, value in init.items():
        if name not in out or value > out[name]:
            out[name] = value
    for name, q in pod.overhead.items():
        out[name] = out.get(name, Fraction(0)) + q.exact
    return out


def node_allocatable_names(ni: NodeInfo) -> frozenset[str] | set[str]:
    """The resource names of ``util.ResourceList(node.GetAllocatable())``: cpu, memory, pods,
    ephemeral-storage and the scalar resources."""
    return {CPU, MEMORY, "pods", EPHEMERAL_STORAGE, *ni.allocatable.scalar}


def whole(value: Fraction) -> int:
    """``Quantity.Value()``: rounded away from zero."""
    return Quantity(value).value()


# ----------------------------------------------------------------------------------- Filter


def resources_available_in_any_numa_node(
    numa_nodes: list[NUMANode],
    allocatable: frozenset[str] | set[str],
    qos: str,
    resources: Mapping[str, Fraction],
) -> tuple[int, bool]:
    """The lowest NUMA id every requested resource fits in (host-level resources without NUMA
    affinity are skipped), and whether there is one."""
    bits = (1 << MAX_NUMA_ID) - 1
    for resource, quantity in resources.items():
        if quantity == 0:
            continue
        if resource not in allocatable:
            return -1, False
        has_affinity = False
        resource_bits = 0
        for numa in numa_nodes:
            numa_quantity = numa.resources.get(resource)
            if numa_quantity is None:
                continue
            has_affinity = True
            if not is_resource_set_suitable(qos, resource, quantity, numa_quantity):
                continue
            resource_bits |= 1 << numa.numa_id
        if not has_affinity and is_host_level_resource(resource):
            continue
        bits &= resource_bits
        if not bits:
            return -1, False
    return (bits & -bits).bit_length() - 1, True


def subtract_from_numa_node(
    numa_nodes: list[NUMANode], numa_id: int, qos: str, requests: Mapping[str, Fraction]
) -> str | None:
    """Take a placed container's requests from NUMA node *numa_id*; an error message when an
    amount would go negative."""
    for node in numa_nodes:
        if node.numa_id != numa_id:
            continue
        for name, quantity in requests.items():
            if qos != GUARANTEED and is_numa_affine_resource(name):
                continue
            if quantity == 0 or name not in node.resources:
                continue
            left = node.resources[name] - quantity
            if left < 0:
                return (
                    f"resource {name!r} request {Quantity(quantity)} exceeds NUMA {numa_id} "
                    f"availability {Quantity(node.resources[name])}"
                )
            node.resources[name] = left
    return None


def single_numa_container_level(
    pod: Pod, numa_nodes: list[NUMANode], allocatable: frozenset[str] | set[str], qos: str
) -> Status | None:
    """Every init container, then every app container (taking its share), on one NUMA node."""
    for c in pod.init_containers:
        _, ok = resources_available_in_any_numa_node(numa_nodes, allocatable, qos, requests_of(c))
        if not ok:
            kind = "sidecar" if c.restart_policy == "Always" else "init"
            return Status(Code.UNSCHEDULABLE, (f"cannot align {kind} container",))
    for c in pod.containers:
        requests = requests_of(c)
        numa_id, ok = resources_available_in_any_numa_node(numa_nodes, allocatable, qos, requests)
        if not ok:
            return Status(Code.UNSCHEDULABLE, (ERR_CANNOT_ALIGN_CONTAINER,))
        err = subtract_from_numa_node(numa_nodes, numa_id, qos, requests)
        if err is not None:
            return Status(Code.ERROR, ("inconsistent resource accounting", err))
    return None


def single_numa_pod_level(
    pod: Pod, numa_nodes: list[NUMANode], allocatable: frozenset[str] | set[str], qos: str
) -> Status | None:
    """The pod's effective request on one NUMA node."""
    _, ok = resources_available_in_any_numa_node(numa_nodes, allocatable, qos, pod_effective_request(pod))
    if not ok:
        return Status(Code.UNSCHEDULABLE, (ERR_CANNOT_ALIGN_POD,))
    return None


# ------------------------------------------------------------------------------------ Score

ScoreStrategy = Callable[[Mapping[str, Fraction], Mapping[str, Fraction], Mapping[str, int]], int]


def _weight(weights: Mapping[str, int], name: str) -> int:
    w = weights.get(name, 1)
    return w if w >= 1 else 1


def _least_allocated(requested: Fraction, capacity: Fraction) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    cap = whole(capacity)
    return (cap - whole(requested)) * MAX_NODE_SCORE // cap


def _most_allocated(requested: Fraction, capacity: Fraction) -> int:
    if capacity == 0 or requested > capacity:
        return 0
    return whole(requested) * MAX_NODE_SCORE // whole(capacity)


def _weighted(per_resource: Callable[[Fraction, Fraction], int]) -> ScoreStrategy:
    def strategy(
        requested: Mapping[str, Fraction], available: Mapping[str, Fraction], weights: Mapping[str, int]
    ) -> int:
        total = weight_sum = 0
        for name, quantity in requested.items():
            w = _weight(weights, name)
            total += per_resource(quantity, available.get(name, Fraction(0))) * w
            weight_sum += w
        return total // weight_sum if weight_sum else 0

    return strategy


least_allocated_strategy: Final = _weighted(_least_allocated)
most_allocated_strategy: Final = _weighted(_most_allocated)

#: what Go's ``int64(NaN)`` gives on amd64 (a one-resource request's sample variance is NaN)
_GO_NAN_TO_INT64: Final = -(1 << 63)


def balanced_allocation_strategy(
    requested: Mapping[str, Fraction], available: Mapping[str, Fraction], weights: Mapping[str, int]
) -> int:
    """``(1 - sample variance of the requested fractions) * 100``; 0 when one does not fit."""
    fractions: list[float] = []
    for name, quantity in requested.items():
        cap = whole(available.get(name, Fraction(0)))
        fraction = 1.0 if cap == 0 else whole(quantity) / cap
        if fraction > 1:
            return 0
        fractions.append(fraction)
    n = len(fractions)
    if n < 2:
        return _GO_NAN_TO_INT64
    total = 0.0
    for f in fractions:
        total += f
    mean = total / n
    ss = 0.0
    for f in fractions:
        ss += (f - mean) * (f - mean)
    variance = ss / (n - 1)  # gonum stat.Variance: the unbiased sample variance
    return int((1 - variance) * MAX_NODE_SCORE)


def score_for_each_numa_node(
    requested: Mapping[str, Fraction],
    numa_nodes: list[NUMANode],
    strategy: ScoreStrategy,
    weights: Mapping[str, int],
) -> int:
    """The lowest non-zero zone score (a zone scoring 0 does not fit)."""
    min_score = 0
    for numa in numa_nodes:
        s = strategy(requested, numa.resources, weights)
        if min_score == 0 or (s != 0 and s < min_score):
            min_score = s
    return min_score


def pod_scope_score(
    pod: Pod, numa_nodes: list[NUMANode], strategy: ScoreStrategy, weights: Mapping[str, int]
) -> int:
    return score_for_each_numa_node(pod_effective_request(pod), numa_nodes, strategy, weights)


def container_scope_score(
    pod: Pod, numa_nodes: list[NUMANode], strategy: ScoreStrategy, weights: Mapping[str, int]
) -> int:
    """The mean of the containers' (init containers included) scores, truncated."""
    containers = (*pod.init_containers, *pod.containers)
    if not containers:
        return 0
    scores = [
        float(score_for_each_numa_node(requests_of(c), numa_nodes, strategy, weights)) for c in containers
    ]
    return int(math.fsum(scores) / len(scores))


# ------------------------------------------------------------------------------ LeastNUMANodes


def only_non_numa_resources(numa_nodes: list[NUMANode], resources: Mapping[str, Fraction]) -> bool:
    return not any(name in numa.resources for name in resources for numa in numa_nodes)


def _avg_distance(numa_nodes: list[NUMANode], combination: tuple[int, ...]) -> float:
    if not combination:
        return float(MAX_DISTANCE_VALUE)
    total = 0
    for i in combination:
        for j in combination:
            total += numa_nodes[i].costs.get(numa_nodes[j].numa_id, MAX_DISTANCE_VALUE)
    return total / (len(combination) * len(combination))


def _fits(qos: str, resources: Mapping[str, Fraction], combined: Mapping[str, Fraction]) -> bool:
    return all(
        quantity == 0 or is_resource_set_suitable(qos, name, quantity, combined.get(name, Fraction(0)))
        for name, quantity in resources.items()
    )


def numa_nodes_required(
    qos: str, numa_nodes: list[NUMANode], resources: Mapping[str, Fraction]
) -> tuple[list[int] | None, bool]:
    """The fewest NUMA nodes (their ids) the resources fit in, preferring the smallest average
    distance, and whether that distance is the smallest among all combinations of that size;
    ``None`` when they fit in no combination (of the ``MAX_NUMA_COMBINATIONS`` examined)."""
    n = len(numa_nodes)
    examined = 0
    for size in range(1, n + 1):
        examined += math.comb(n, size)
        if examined > MAX_NUMA_COMBINATIONS:  # bounded where upstream is not (see the constant)
            break
        combinations = list(itertools.combinations(range(n), size))
        min_avg = min((_avg_distance(numa_nodes, c) for c in combinations), default=float(MAX_DISTANCE_VALUE))
        best: tuple[int, ...] | None = None
        best_distance = 256.0
        found_min = False
        for combo in combinations:
            if not all(name in numa_nodes[i].resources for i in combo for name in resources):
                continue
            combined: Resources = {}
            for i in combo:
                for name, value in numa_nodes[i].resources.items():
                    combined[name] = combined.get(name, Fraction(0)) + value
            if not _fits(qos, resources, combined):
                continue
            distance = _avg_distance(numa_nodes, combo)
            if distance == min_avg:
                best, found_min = combo, True
                break
            if distance < best_distance:
                best_distance, best = distance, combo
        if best is not None:
            return sorted(numa_nodes[i].numa_id for i in best), found_min
    return None, False


def subtract_from_numas(
    resources: Mapping[str, Fraction], numa_nodes: list[NUMANode], ids: list[int]
) -> None:
    """Take *resources* from the NUMA nodes *ids* in turn (upstream indexes the list by id)."""
    for name, quantity in resources.items():
        for numa_id in ids:
            if quantity == 0:
                break
            if numa_id >= len(numa_nodes):
                continue
            res = numa_nodes[numa_id].resources
            if name in res:
                available = res[name]
                if quantity >= available:
                    quantity -= available
                    res[name] = Fraction(0)
                else:
                    res[name] = available - quantity
                    quantity = Fraction(0)


def normalize_least_numa(count: int, is_min_avg_distance: bool, max_numa_nodes: int) -> int:
    per_node = MAX_NODE_SCORE // max_numa_nodes
    score = MAX_NODE_SCORE - count * per_node
    return score + per_node // 2 if is_min_avg_distance else score


def least_numa_container_scope_score(
    pod: Pod, numa_nodes: list[NUMANode], qos: str, max_numa_nodes: int
) -> int:
    max_count = 0
    all_min = True
    for c in (*pod.init_containers, *pod.containers):
        requests = requests_of(c)
        if only_non_numa_resources(numa_nodes, requests):
            continue
        ids, is_min = numa_nodes_required(qos, numa_nodes, requests)
        if ids is None:
            return MIN_NODE_SCORE
        if not is_min:
            all_min = False
        max_count = max(max_count, len(ids))
        subtract_from_numas(requests, numa_nodes, ids)
    if max_count == 0:
        return MAX_NODE_SCORE
    return normalize_least_numa(max_count, all_min, max_numa_nodes)


def least_numa_pod_scope_score(pod: Pod, numa_nodes: list[NUMANode], qos: str, max_numa_nodes: int) -> int:
    resources = pod_effective_request(pod)
    if only_non_numa_resources(numa_nodes, resources):
        return MAX_NODE_SCORE
    ids, is_min = numa_nodes_required(qos, numa_nodes, resources)
    if ids is None:
        return MIN_NODE_SCORE
    return normalize_least_numa(len(ids), is_min, max_numa_nodes)
