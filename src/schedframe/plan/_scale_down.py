"""Scale-down: the nodes whose pods can all go elsewhere, with Cluster Autoscaler's rules
(``cluster-autoscaler/simulator/drain``, ``utilization`` and its FAQ) and its reason names, in
removal order; each removal is a real rescheduling of the node's pods by the scheduler, a drain
of one :class:`~schedframe.ClusterSnapshot` (the rules live in :mod:`schedframe.whatif`)."""

from __future__ import annotations

from collections.abc import Sequence

from ..api.objects import Node, Pod
from ..whatif import ClusterSnapshot
from ..whatif._drain_rules import (
    BLOCKED_BY_POD,
    LOCAL_VOLUMES_ANNOTATION,
    MIRROR_ANNOTATION,
    NO_PLACE_TO_MOVE_PODS,
    NOT_ENOUGH_PDB,
    NOT_UNDERUTILIZED,
    SAFE_TO_EVICT_ANNOTATION,
    SCALE_DOWN_DISABLED,
    SCALE_DOWN_DISABLED_ANNOTATION,
    drain_blocker,
    is_daemon,
    is_mirror,
    node_utilisation,
    pdb_allowances,
)
from ._context import Context

__all__ = [
    "LOCAL_VOLUMES_ANNOTATION",
    "MIRROR_ANNOTATION",
    "SAFE_TO_EVICT_ANNOTATION",
    "SCALE_DOWN_DISABLED_ANNOTATION",
    "drain_blocker",
    "keep_back",
    "node_utilisation",
    "pdb_allowances",
    "scale_down_nodes",
]

def scale_down_nodes(ctx: Context, threshold: float, protected: frozenset[str] = frozenset()
                     ) -> tuple[list[str], dict[str, str], dict[str, tuple[str, str]], dict[str, float]]:
    """Cluster Autoscaler's scale-down simulation. Candidates are taken least utilised first;
    a node is removable when it is not annotated ``scale-down-disabled``, its utilisation is
    below *threshold*, none of its pods blocks draining, the PDBs allow evicting them (counting
    earlier removals) and the scheduler places every pod that must move on the nodes that stay
    (not on nodes already removed). Each candidate is a :meth:`ClusterSnapshot.drain
    <schedframe.ClusterSnapshot.drain>` of one snapshot: a removal that works stays, one that
    does not leaves the snapshot as it was. Returns the removable nodes in order, the moves
    (``pod key -> node``), the unremovable nodes (``node -> (reason, detail)``) and every node's
    utilisation."""
    live = [p for p in ctx.bound if not p.is_terminal]  # finished pods hold nothing, block nothing
    snap = ClusterSnapshot(nodes=ctx.nodes, pods=live, objects=ctx.objects, config=ctx.config,
                           registry=ctx.registry, seed=ctx.seed)
    util = {n.name: snap.utilisation(n.name) for n in ctx.nodes}
    removed: list[str] = []
    moves: dict[str, str] = {}
    unremovable: dict[str, tuple[str, str]] = {}
    for node in sorted(ctx.nodes, key=lambda n: (util[n.name], n.name)):
        name = node.name
        if name in protected:
            unremovable[name] = ("NotAutoscaled", "a node added by this plan")
            continue
        if node.annotations.get(SCALE_DOWN_DISABLED_ANNOTATION) == "true":
            unremovable[name] = (SCALE_DOWN_DISABLED, f"annotated {SCALE_DOWN_DISABLED_ANNOTATION}=true")
            continue
        if util[name] >= threshold:
            unremovable[name] = (NOT_UNDERUTILIZED,
                                 f"utilisation {util[name]:.0%} >= threshold {threshold:.0%}")
            continue
        r = snap.drain(name)
        if r.ok:
            removed.append(name)
            moves.update(r.moves)
        elif r.blocked:
            key, why = next(iter(r.blocked.items()))
            unremovable[name] = (BLOCKED_BY_POD, why if why.startswith(NOT_ENOUGH_PDB) else f"{key}: {why}")
        else:
            unremovable[name] = (NO_PLACE_TO_MOVE_PODS, r.reason)
    return removed, moves, unremovable, util


def removal_outcome(ctx: Context, removed: Sequence[str]) -> tuple[list[Node], list[Pod], list[Pod]]:
    """The nodes that stay, the pods that stay, and the pods of the removed nodes that move
    (pending again; DaemonSet and mirror pods go with their node; finished pods are left out)."""
    gone = set(removed)
    live = [p for p in ctx.bound if not p.is_terminal]
    nodes = [n for n in ctx.nodes if n.name not in gone]
    stay = [p for p in live if p.node_name not in gone]
    movers = [p.evolve(node_name="", nominated_node_name="") for p in live
              if p.node_name in gone and not (is_mirror(p) or is_daemon(p))]
    return nodes, stay, movers


def keep_back(ctx: Context, removed: Sequence[str], pending: Sequence[Pod]) -> list[str]:
    """Of *removed*, the nodes to keep so that the *pending* pods (moved pods a simulation of
    the removal left pending) find room again: most free CPU first (keeping a node keeps its own
    pods where they are and gives back only its free room), until the nodes kept have at least
    the pending pods' CPU, memory and pod count free."""
    live = [p for p in ctx.bound if not p.is_terminal]
    gone = set(removed)
    used: dict[str, list[int]] = {name: [0, 0, 0] for name in gone}
    for p in live:
        u = used.get(p.node_name)
        if u is not None:
            r = p.requests
            u[0] += r.milli_cpu
            u[1] += r.memory
            u[2] += 1
    free: list[tuple[int, int, int, str]] = []
    for n in ctx.nodes:
        if n.name in gone:
            a = n.allocatable_resources
            u = used[n.name]
            free.append((a.milli_cpu - u[0], a.memory - u[1], a.pods - u[2], n.name))
    free.sort(key=lambda f: (-f[0], -f[1], f[3]))
    cpu = sum(p.requests.milli_cpu for p in pending)
    mem = sum(p.requests.memory for p in pending)
    count = len(pending)
    out: list[str] = []
    for c, m, k, name in free:
        if cpu <= 0 and mem <= 0 and count <= 0:
            break
        out.append(name)
        cpu, mem, count = cpu - c, mem - m, count - k
    return out
