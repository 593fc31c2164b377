"""Shared code of NodeResourcesFit and NodeResourcesBalancedAllocation.

Mirrors kube-scheduler's ``noderesources/resource_allocation.go`` (how requested and allocatable
amounts are gathered per resource), ``least_allocated.go``, ``most_allocated.go``,
``requested_to_capacity_ratio.go`` and ``balanced_allocation.go`` (the scoring functions), plus
the resource-name helpers and field-error formatting both args classes need.

Integer arithmetic follows Go's ``int64`` rules (division truncates toward zero); the balanced
allocation score uses IEEE doubles exactly as upstream does.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from operator import attrgetter
from typing import Any, Final, final

import attrs

from ..api._names import is_extended_resource_name, qualified_name_errors
from ..api.objects import Pod, container_level_scoring_requests
from ..cache.nodeinfo import NodeInfo
from ..framework.interfaces import MAX_NODE_SCORE
from ._helpers import go_div

__all__ = [
    "DEFAULT_RESOURCES",
    "LEAST_ALLOCATED",
    "MAX_CUSTOM_PRIORITY_SCORE",
    "MOST_ALLOCATED",
    "REQUESTED_TO_CAPACITY_RATIO",
    "ResourceAllocationScorer",
    "ResourceSpec",
    "is_extended_resource_name",
    "is_scalar_resource_name",
]

LEAST_ALLOCATED: Final = "LeastAllocated"
MOST_ALLOCATED: Final = "MostAllocated"
REQUESTED_TO_CAPACITY_RATIO: Final = "RequestedToCapacityRatio"
#: The highest score of a RequestedToCapacityRatio shape point (upstream ``MaxCustomPriorityScore``).
MAX_CUSTOM_PRIORITY_SCORE: Final = 10
_MAX_UTILIZATION: Final = 100

_CPU: Final = "cpu"
_MEMORY: Final = "memory"
_EPHEMERAL_STORAGE: Final = "ephemeral-storage"


@final
@attrs.frozen(kw_only=True)
class ResourceSpec:
    """A resource and its weight in a scoring strategy (upstream ``config.ResourceSpec``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.node_resources_fit"

    name: str
    weight: int = 1

    def to_dict(self) -> dict[str, Any]:
        """``{"name": ..., "weight": ...}``."""
        return {"name": self.name, "weight": self.weight}


#: ``cpu`` and ``memory`` with weight 1: upstream's default resources for both plugins.
DEFAULT_RESOURCES: Final = (ResourceSpec(name=_CPU, weight=1), ResourceSpec(name=_MEMORY, weight=1))


# --------------------------------------------------------------------------------------------
# Resource names (k8s.io/kubernetes/pkg/apis/core/v1/helper and pkg/scheduler/util)

@functools.lru_cache(maxsize=4096)
def is_scalar_resource_name(name: str) -> bool:
    """Upstream ``schedutil.IsScalarResourceName``: extended, hugepages, ``kubernetes.io/``-prefixed
    or attachable-volume resources -- the ones kept in ``Resources.scalar`` by the scheduler."""
    return (name.startswith(("hugepages-", "attachable-volumes-")) or "kubernetes.io/" in name
            or is_extended_resource_name(name))


# --------------------------------------------------------------------------------------------
# Field errors, formatted like k8s.io/apimachinery/pkg/util/validation/field


def go_value(value: object) -> str:
    """A bad value as Go's ``field.Error`` prints it (``%q`` for strings, ``%v`` otherwise)."""
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def field_invalid(path: str, value: object, detail: str) -> str:
    """``<path>: Invalid value: <value>: <detail>``."""
    return f"{path}: Invalid value: {go_value(value)}: {detail}"


def field_required(path: str, detail: str) -> str:
    """``<path>: Required value: <detail>``."""
    return f"{path}: Required value: {detail}"


def field_duplicate(path: str, value: object) -> str:
    """``<path>: Duplicate value: <value>``."""
    return f"{path}: Duplicate value: {go_value(value)}"


def field_not_supported(path: str, value: object, supported: Sequence[str]) -> str:
    """``<path>: Unsupported value: <value>: supported values: "a", "b"``."""
    values = ", ".join(go_value(s) for s in supported)
    return f"{path}: Unsupported value: {go_value(value)}: supported values: {values}"


def validate_label_name(name: str, path: str) -> list[str]:
    """Upstream ``metav1validation.ValidateLabelName``: one Invalid error per problem."""
    return [field_invalid(path, name, msg) for msg in qualified_name_errors(name)]


# --------------------------------------------------------------------------------------------
# Decoding helpers for ``pluginConfig[].args`` mappings (camelCase, strict like upstream)


def defaulted_resources(specs: Sequence[ResourceSpec]) -> tuple[ResourceSpec, ...]:
    """Upstream's v1 defaults of a ``[]ResourceSpec``: none is cpu and memory, a zero weight 1."""
    return tuple(r if r.weight else attrs.evolve(r, weight=1) for r in specs) or DEFAULT_RESOURCES


# --------------------------------------------------------------------------------------------
# Scoring

# resource kinds
_K_CPU: Final = 0
_K_MEMORY: Final = 1
_K_EPHEMERAL: Final = 2
_K_SCALAR: Final = 3
_K_OTHER: Final = 4  # "pods", "storage", unknown names: never scored (upstream returns (0, 0))


def _kind(name: str) -> int:
    if name == _CPU:
        return _K_CPU
    if name == _MEMORY:
        return _K_MEMORY
    if name == _EPHEMERAL_STORAGE:
        return _K_EPHEMERAL
    if is_scalar_resource_name(name):
        return _K_SCALAR
    return _K_OTHER


def broken_linear_function(shape: Sequence[tuple[int, int]]) -> Callable[[int], int]:
    """Upstream ``helper.BuildBrokenLinearFunction`` over ``(utilization, score)`` points.

    ``f(p)`` is the first score for ``p`` below the first point, the last score above the last
    point, and linear (integer arithmetic, truncated) in between.
    """
    points = tuple(shape)

    def f(p: int) -> int:
        for i, (u, s) in enumerate(points):
            if p <= u:
                if i == 0:
                    return s
                pu, ps = points[i - 1]
                return ps + go_div((s - ps) * (p - pu), u - pu)
        return points[-1][1]

    return f


StrategyFn = Callable[[Sequence[int], Sequence[int]], int]
#: ``(nodes, pod_requests) -> [score of each node]``
NodesScorer = Callable[[Sequence[NodeInfo], Sequence[int]], "list[int]"]


def least_allocated_scorer(weights: Sequence[int]) -> StrategyFn:
    """``(capacity - requested) * 100 / capacity`` per resource, weighted average."""
    w = tuple(weights)

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            req = requested[i]
            node_score += (0 if req > cap else go_div((cap - req) * MAX_NODE_SCORE, cap)) * w[i]
            weight_sum += w[i]
        return go_div(node_score, weight_sum) if weight_sum else 0

    return score


def most_allocated_scorer(weights: Sequence[int]) -> StrategyFn:
    """``requested * 100 / capacity`` per resource (requested capped at capacity), weighted average."""
    w = tuple(weights)

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            req = requested[i]
            if req > cap:
                req = cap
            node_score += go_div(req * MAX_NODE_SCORE, cap) * w[i]
            weight_sum += w[i]
        return go_div(node_score, weight_sum) if weight_sum else 0

    return score


def requested_to_capacity_ratio_scorer(weights: Sequence[int],
                                       shape: Sequence[tuple[int, int]]) -> StrategyFn:
    """The broken-linear shape (scores scaled from 0-10 to 0-100) applied to each resource's
    utilization; resources scoring 0 are left out of the weighted average, which is rounded
    half away from zero (Go ``math.Round``)."""
    w = tuple(weights)
    scale = MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE
    raw = broken_linear_function([(u, s * scale) for u, s in shape])
    at_max = raw(_MAX_UTILIZATION)

    def score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
        node_score = weight_sum = 0
        for i, cap in enumerate(allocatable):
            if cap == 0:
                continue
            req = requested[i]
            resource_score = at_max if req > cap else raw(go_div(req * _MAX_UTILIZATION, cap))
            if resource_score > 0:
                node_score += resource_score * w[i]
                weight_sum += w[i]
        if weight_sum == 0:
            return 0
        return _round_half_away(node_score, weight_sum)

    return score


def _round_half_away(n: int, d: int) -> int:
    """``int64(math.Round(float64(n) / float64(d)))`` for ``d > 0``."""
    q, r = divmod(abs(n), d)
    if 2 * r >= d:
        q += 1
    return q if n >= 0 else -q


def balanced_resource_score(requested: Sequence[int], allocatable: Sequence[int]) -> int:
    """``(1 - std) * 100`` of the requested/allocatable fractions (each capped at 1).

    Two fractions: ``std = |f1 - f2| / 2``; more: the population standard deviation; fewer: 0.
    """
    fractions: list[float] = []
    total = 0.0
    for i, cap in enumerate(allocatable):
        if cap == 0:
            continue
        fraction = float(requested[i]) / float(cap)
        if fraction > 1:
            fraction = 1.0
        total += fraction
        fractions.append(fraction)
    n = len(fractions)
    std = 0.0
    if n == 2:
        std = abs((fractions[0] - fractions[1]) / 2)
    elif n > 2:
        mean = total / n
        acc = 0.0
        for fraction in fractions:
            acc = acc + (fraction - mean) * (fraction - mean)
        std = math.sqrt(acc / n)
    return int((1 - std) * float(MAX_NODE_SCORE))


@final
class ResourceAllocationScorer:
    """Gathers requested and allocatable amounts per configured resource and scores them.

    Args:
        resources: the resources to score, in order, with their weights.
        strategy: ``(requested, allocatable) -> score`` over those resources.
        use_requested: use the node's actual requested amounts and the pod's plain requests for
            cpu/memory (BalancedAllocation); otherwise the non-zero variants (NodeResourcesFit).
        fast: an optional specialised ``(node_info, pod_requests) -> score`` that gives the same
            result as the generic path.
    """

    __slots__ = ("_kinds", "_names", "_strategy", "resources", "score", "score_nodes", "use_requested")

    def __init__(self, resources: Sequence[ResourceSpec], strategy: StrategyFn, *, use_requested: bool,
                 fast: Callable[[NodeInfo, Sequence[int]], int] | None = None,
                 fast_nodes: NodesScorer | None = None) -> None:
        self.resources = tuple(resources)
        self.use_requested = use_requested
        self._strategy = strategy
        self._names = tuple(r.name for r in self.resources)
        self._kinds = tuple(_kind(r.name) for r in self.resources)
        #: ``score(node_info, pod_requests) -> int``: the node's score for a pod with
        #: *pod_requests* (the fast path when one applies).
        self.score: Callable[[NodeInfo, Sequence[int]], int] = fast if fast is not None else self._score
        #: ``score_nodes(nodes, pod_requests) -> list[int]``: ``score`` of each node, in order
        #: (one loop with the pod's requests bound once).
        self.score_nodes: NodesScorer = fast_nodes if fast_nodes is not None else self._score_nodes

    def pod_requests(self, pod: Pod) -> tuple[int, ...]:
        """The pod's request of each resource (upstream ``calculatePodResourceRequestList``):
        BalancedAllocation's (*use_requested*) as the pod asks, pod-level requests included;
        NodeResourcesFit's the containers' non-zero requests (see
        :func:`~schedframe.api.objects.container_level_scoring_requests`)."""
        if self.use_requested:
            reqs, nz_cpu, nz_mem = pod.requests, 0, 0
        else:
            reqs, nz_cpu, nz_mem = container_level_scoring_requests(pod)
        out: list[int] = []
        for kind, name in zip(self._kinds, self._names):
            if kind == _K_CPU:
                out.append(reqs.milli_cpu if self.use_requested else nz_cpu)
            elif kind == _K_MEMORY:
                out.append(reqs.memory if self.use_requested else nz_mem)
            else:
                out.append(reqs.get(name))
        return tuple(out)

    def allocatable_requested(self, node_info: NodeInfo,
                              pod_requests: Sequence[int]) -> tuple[list[int], list[int]]:
        """Per resource ``(requested incl. the pod, allocatable)``; ``(0, 0)`` for skipped ones."""
        alloc = node_info.allocatable
        node_req = node_info.requested
        used = node_req if self.use_requested else node_info.non_zero_requested
        n = len(self._kinds)
        requested = [0] * n
        allocatable = [0] * n
        for i, kind in enumerate(self._kinds):
            pod_req = pod_requests[i]
            if kind == _K_CPU:
                a, r = alloc.milli_cpu, used.milli_cpu + pod_req
            elif kind == _K_MEMORY:
                a, r = alloc.memory, used.memory + pod_req
            elif kind == _K_EPHEMERAL:
                a, r = alloc.ephemeral_storage, node_req.ephemeral_storage + pod_req
            elif kind == _K_SCALAR and pod_req != 0:
                name = self._names[i]
                a = alloc.scalar.get(name, 0)
                r = node_req.scalar.get(name, 0) + pod_req
            else:
                continue
            if a == 0:
                continue
            allocatable[i] = a
            requested[i] = r
        return requested, allocatable

    def _score(self, node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        requested, allocatable = self.allocatable_requested(node_info, pod_requests)
        return self._strategy(requested, allocatable)

    def _score_nodes(self, nodes: Sequence[NodeInfo], pod_requests: Sequence[int]) -> list[int]:
        score = self.score
        return [score(ni, pod_requests) for ni in nodes]


# --------------------------------------------------------------------------------------------
# Fast paths for the default resources (cpu, memory), identical to the generic path.
#
# They read a node's flat ``resource_row`` (one tuple, see ``NodeInfo.resource_row``) instead
# of attribute chains. Requests and allocatable amounts are non-negative in any real cluster,
# and then Python's floor division equals Go's truncating one; the guards fall back to the
# exact per-node function otherwise, so results stay exact for any input.

#: resource_row indexes: allocatable cpu, memory; non-zero requested cpu, memory; requested
_ALLOC_CPU: Final = 4
_ALLOC_MEMORY: Final = 5
_NZ_CPU: Final = 6
_NZ_MEMORY: Final = 7
_REQ_CPU: Final = 8
_REQ_MEMORY: Final = 9


def _used_indexes(use_requested: bool) -> tuple[int, int]:
    return (_REQ_CPU, _REQ_MEMORY) if use_requested else (_NZ_CPU, _NZ_MEMORY)


def cpu_memory_fast_path(resources: Sequence[ResourceSpec], strategy: str, *,
                         use_requested: bool) -> Callable[[NodeInfo, Sequence[int]], int] | None:
    """A specialised scorer when *resources* is exactly ``[cpu, memory]``, else ``None``."""
    if len(resources) != 2 or resources[0].name != _CPU or resources[1].name != _MEMORY:
        return None
    wc, wm = resources[0].weight, resources[1].weight
    if wc <= 0 or wm <= 0:
        return None
    if strategy == LEAST_ALLOCATED:
        return _least_cpu_memory(wc, wm, use_requested)
    if strategy == MOST_ALLOCATED:
        return _most_cpu_memory(wc, wm, use_requested)
    return None


def cpu_memory_fast_path_nodes(resources: Sequence[ResourceSpec], strategy: str, *,
                               use_requested: bool) -> NodesScorer | None:
    """The batch counterpart of :func:`cpu_memory_fast_path` (same results, one loop over the
    nodes, with a memo of each node's score), or ``None``."""
    single = cpu_memory_fast_path(resources, strategy, use_requested=use_requested)
    if single is None:
        return None
    wc, wm = resources[0].weight, resources[1].weight
    if strategy == LEAST_ALLOCATED:
        loop = _least_nodes(wc, wm, use_requested, single)
    else:  # MOST_ALLOCATED, the only other strategy with a fast path
        loop = _most_nodes(wc, wm, use_requested, single)
    return _MemoNodesScorer(loop)


#: memos kept per scorer (one per distinct pod request vector; the least recently used goes
#: first), and entries per memo (cleared past it)
_MAX_MEMOS: Final = 32
_MAX_MEMO_ENTRIES: Final = 1 << 13
#: a call whose memo hits fewer than 1 in this many nodes turns the memo off for a while
_MIN_HIT_RATIO: Final = 8
#: ... counted on calls of at least this many nodes
_MIN_REST_NODES: Final = 64
#: calls the memo stays off (computing directly) after a call with too few hits
_MEMO_REST: Final = 16


@final
class _MemoNodesScorer:
    """Scores nodes with a cpu/memory fast path, remembering each node's score.

    The fast paths read nothing of a node but its ``resource_row``, whose amounts its
    ``resource_row_key`` names (equal keys, equal amounts; a key never names other amounts in
    the process). So the memo keeps, per pod requests, a score per row key: a call looks its
    nodes' keys up at C speed and scores each missing row once, whichever nodes hold it. Memos
    are bounded: at most :data:`_MAX_MEMOS` request vectors, each cleared past
    :data:`_MAX_MEMO_ENTRIES` rows.

    When nothing repeats (mixed node and pod shapes), a memo costs more than it saves: after a
    call where fewer than one node in :data:`_MIN_HIT_RATIO` was remembered, the next
    :data:`_MEMO_REST` calls compute every node directly. Either way the scores are the same.
    """

    __slots__ = ("_loop", "_memos", "_rest")

    def __init__(self, loop: NodesScorer) -> None:
        self._loop = loop
        self._rest = 0
        #: pod requests -> {resource_row_key: score}
        self._memos: dict[tuple[int, ...], dict[int, int]] = {}

    def __call__(self, nodes: Sequence[NodeInfo], pod_requests: Sequence[int]) -> list[int]:
        key = pod_requests if isinstance(pod_requests, tuple) else tuple(pod_requests)
        if self._rest:
            self._rest -= 1
            return self._loop(nodes, key)
        memos = self._memos
        scores = memos.pop(key, None)
        if scores is None:
            if len(memos) >= _MAX_MEMOS:
                del memos[next(iter(memos))]
            scores = {}
        elif len(scores) > _MAX_MEMO_ENTRIES:
            scores.clear()
        memos[key] = scores  # last: the most recently used
        out = list(map(scores.get, map(_row_key, nodes)))
        if None not in out:
            return out  # type: ignore[return-value]
        # the positions not yet scored, found by one C-level scan in all; each distinct missing
        # row scored once, from one of the nodes holding it (any: equal rows, equal scores)
        positions: list[int] = []
        find = out.index
        i = -1
        try:
            while True:
                i = find(None, i + 1)
                positions.append(i)
        except ValueError:
            pass
        holder = {nodes[i].resource_row_key: i for i in positions}
        some = list(map(nodes.__getitem__, holder.values()))
        scores.update(zip(holder, self._loop(some, key)))
        for i in positions:
            out[i] = scores[nodes[i].resource_row_key]
        if len(out) >= _MIN_REST_NODES and len(holder) * _MIN_HIT_RATIO > len(out) * (_MIN_HIT_RATIO - 1):
            self._rest = _MEMO_REST
        return out  # type: ignore[return-value]


_row_key: Final = attrgetter("resource_row_key")


def _least_score(req: int, cap: int) -> int:
    if req > cap:
        return 0
    return go_div((cap - req) * MAX_NODE_SCORE, cap)


def _least_cpu_memory(wc: int, wm: int, use_requested: bool) -> Callable[[NodeInfo, Sequence[int]], int]:
    ic, im = _used_indexes(use_requested)

    def least(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        row = node_info.resource_row
        total = weight_sum = 0
        cap = row[_ALLOC_CPU]
        if cap > 0:
            req = row[ic] + pod_requests[0]
            if req <= cap:  # then cap - req >= 0: floor division is exact
                total = (cap - req) * 100 // cap * wc
            weight_sum = wc
        elif cap:
            total = _least_score(row[ic] + pod_requests[0], cap) * wc
            weight_sum = wc
        cap = row[_ALLOC_MEMORY]
        if cap > 0:
            req = row[im] + pod_requests[1]
            if req <= cap:
                total += (cap - req) * 100 // cap * wm
            weight_sum += wm
        elif cap:
            total += _least_score(row[im] + pod_requests[1], cap) * wm
            weight_sum += wm
        if not weight_sum:
            return 0
        return total // weight_sum if total >= 0 else go_div(total, weight_sum)

    return least


def _least_nodes(wc: int, wm: int, use_requested: bool,
                 single: Callable[[NodeInfo, Sequence[int]], int]) -> NodesScorer:
    """:func:`_least_cpu_memory` over many nodes: nodes with room for the pod in one loop."""
    ic, im = _used_indexes(use_requested)
    ws = wc + wm

    def least_nodes(nodes: Sequence[NodeInfo], pod_requests: Sequence[int]) -> list[int]:
        pc, pm = pod_requests[0], pod_requests[1]
        out: list[int] = []
        append = out.append
        for ni in nodes:
            row = ni.resource_row
            cc = row[4]
            cm = row[5]
            uc = row[ic] + pc
            um = row[im] + pm
            if cc > 0 and uc <= cc and cm > 0 and um <= cm:
                append(((cc - uc) * 100 // cc * wc + (cm - um) * 100 // cm * wm) // ws)
            else:
                append(single(ni, pod_requests))
        return out

    return least_nodes


def _most_score(req: int, cap: int) -> int:
    return go_div((cap if req > cap else req) * MAX_NODE_SCORE, cap)


def _most_cpu_memory(wc: int, wm: int, use_requested: bool) -> Callable[[NodeInfo, Sequence[int]], int]:
    ic, im = _used_indexes(use_requested)

    def most(node_info: NodeInfo, pod_requests: Sequence[int]) -> int:
        row = node_info.resource_row
        total = weight_sum = 0
        cap = row[_ALLOC_CPU]
        if cap:
            req = row[ic] + pod_requests[0]
            if cap > 0 and req >= 0:
                total = (cap if req > cap else req) * 100 // cap * wc
            else:
                total = _most_score(req, cap) * wc
            weight_sum = wc
        cap = row[_ALLOC_MEMORY]
        if cap:
            req = row[im] + pod_requests[1]
            if cap > 0 and req >= 0:
                total += (cap if req > cap else req) * 100 // cap * wm
            else:
                total += _most_score(req, cap) * wm
            weight_sum += wm
        if not weight_sum:
            return 0
        return total // weight_sum if total >= 0 else go_div(total, weight_sum)

    return most


def _most_nodes(wc: int, wm: int, use_requested: bool,
                single: Callable[[NodeInfo, Sequence[int]], int]) -> NodesScorer:
    """:func:`_most_cpu_memory` over many nodes: nodes with room for the pod in one loop."""
    ic, im = _used_indexes(use_requested)
    ws = wc + wm

    def most_nodes(nodes: Sequence[NodeInfo], pod_requests: Sequence[int]) -> list[int]:
        pc, pm = pod_requests[0], pod_requests[1]
        out: list[int] = []
        append = out.append
        for ni in nodes:
            row = ni.resource_row
            cc = row[4]
            cm = row[5]
            uc = row[ic] + pc
            um = row[im] + pm
            if cc > 0 and 0 <= uc <= cc and cm > 0 and 0 <= um <= cm:
                append((uc * 100 // cc * wc + um * 100 // cm * wm) // ws)
            else:
                append(single(ni, pod_requests))
        return out

    return most_nodes


def _pairs(node_info: NodeInfo, pod_requests: Sequence[int],
           use_requested: bool) -> tuple[list[int], list[int]]:
    row = node_info.resource_row
    ic, im = _used_indexes(use_requested)
    return ([row[ic] + pod_requests[0], row[im] + pod_requests[1]], [row[_ALLOC_CPU], row[_ALLOC_MEMORY]])
