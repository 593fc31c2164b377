"""How small a scale-up can be: lower bounds on the nodes (and the price) any plan needs to
place a set of pending pods, from resource sums alone (no packing, no constraints), so a plan
can say how far above the best conceivable one it is."""

from __future__ import annotations

import math
from collections.abc import Sequence

from ..api.objects import Node, Pod
from ..plugins.taint_toleration import untolerated
from ._context import Context
from ._scale_up import free_capacity
from ._shapes import capacity, dims_of, vector
from ._templates import NodeTemplate

__all__ = ["plan_lower_bound"]


def plan_lower_bound(ctx: Context, templates: Sequence[NodeTemplate], pods: Sequence[Pod]
                     ) -> tuple[int, float | None]:
    """``(nodes, cost)``: lower bounds for placing *pods* on the cluster of *ctx* plus new nodes
    of *templates*.

    For each resource the pods request (CPU, memory, ephemeral storage, the pod count and
    extended resources), what they ask beyond the room the cluster's nodes have free (nodes whose
    taints or labels none of the pods accepts lend none) must come
    from new nodes, each offering at most the largest free capacity (allocatable less its
    DaemonSet pods) of any template: the node bound is the largest ``ceil(need / capacity)``
    over the resources. The cost bound is, likewise, the largest over the resources of the need
    times the lowest price per unit of any template (``None`` when a template has no price).
    Both are what the LP relaxation gives with one resource at a time. A count bound joins the
    node bound: no node holds more of the pods than its free room divided by the smallest
    request, resource by resource, so the pods beyond what the cluster's nodes can hold that way,
    over the most any template node holds, need that many nodes (and cost at least that many
    times the cheapest price). No plan, however packed, goes below either."""
    usable = [t for t in templates if t.max_count > 0 and _usable(t.node, pods)]
    if not pods or not usable:
        return 0, (0.0 if all(t.price is not None for t in templates) else None)
    dims = dims_of(pods)
    demand = [0] * len(dims)
    for p in pods:
        for i, v in enumerate(vector(p.requests, dims, pod=True)):
            demand[i] += v
    used: dict[str, list[int]] = {}
    for p in ctx.bound:
        if p.is_terminal or not p.node_name:
            continue
        u = used.setdefault(p.node_name, [0] * len(dims))
        for i, v in enumerate(vector(p.requests, dims, pod=True)):
            u[i] += v
    nodes_usable = [n for n in ctx.nodes if _usable(n, pods)]
    free = [0] * len(dims)
    for n in nodes_usable:
        u = used.get(n.name, [0] * len(dims))
        for i, c in enumerate(capacity(n, dims)):
            free[i] += max(c - u[i], 0)
    caps = [(t, free_capacity(ctx, t, dims)) for t in usable]
    priced = all(t.price is not None for t in usable)
    smallest = [min(vector(p.requests, dims, pod=True)[i] for p in pods) for i in range(len(dims))]

    def most(room: Sequence[int]) -> int:  # at most this many of the pods fit in *room*
        return min((max(r, 0) // m for r, m in zip(room, smallest) if m > 0), default=len(pods))

    held = sum(most([c - u for c, u in zip(capacity(n, dims), used.get(n.name, [0] * len(dims)))])
               for n in nodes_usable)
    per_node = max(most(c) for _, c in caps)
    nodes = math.ceil((len(pods) - held) / per_node) if len(pods) > held and per_node > 0 else 0
    cost = 0.0
    for i in range(len(dims)):
        need = demand[i] - free[i]
        if need <= 0:
            continue
        best = max(c[i] for _, c in caps)
        if best <= 0:
            continue  # no template offers it: the pods asking for it were placed elsewhere
        nodes = max(nodes, math.ceil(need / best))
        if priced:
            per_unit = min((t.price or 0.0) / c[i] for t, c in caps if c[i] > 0)
            cost = max(cost, need * per_unit)
    if priced:  # every node costs at least the cheapest template's price
        cost = max(cost, nodes * min(t.price or 0.0 for t in usable))
    return nodes, (round(cost, 6) if priced else None)


def _usable(node: Node, pods: Sequence[Pod]) -> bool:
    """Whether some of *pods* may run on *node* at all: its NoSchedule and NoExecute taints
    tolerated and its labels matching the pod's node selector (a node none of them may use
    lends the bound no room)."""
    return any(not untolerated(node, p.tolerations)
               and all(node.labels.get(k) == v for k, v in p.node_selector.items()) for p in pods)
