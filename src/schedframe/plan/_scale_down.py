"""Scale-down: the nodes whose pods can all go elsewhere, with Cluster Autoscaler's rules
(``cluster-autoscaler/simulator/drain``, ``utilization`` and its FAQ) and its reason names, in
removal order; each removal is a real rescheduling of the node's pods by the scheduler."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from ..api.objects import Node, Pod, PodDisruptionBudget
from ..scheduler.scheduler import Scheduler
from ._context import Context

__all__ = [
    "LOCAL_VOLUMES_ANNOTATION",
    "MIRROR_ANNOTATION",
    "SAFE_TO_EVICT_ANNOTATION",
    "SCALE_DOWN_DISABLED_ANNOTATION",
    "drain_blocker",
    "node_utilisation",
    "pdb_allowances",
    "scale_down_nodes",
]

SAFE_TO_EVICT_ANNOTATION: Final = "cluster-autoscaler.kubernetes.io/safe-to-evict"
LOCAL_VOLUMES_ANNOTATION: Final = "cluster-autoscaler.kubernetes.io/safe-to-evict-local-volumes"
SCALE_DOWN_DISABLED_ANNOTATION: Final = "cluster-autoscaler.kubernetes.io/scale-down-disabled"
MIRROR_ANNOTATION: Final = "kubernetes.io/config.mirror"
_GPU: Final = "nvidia.com/gpu"

# Cluster Autoscaler's names (simulator.UnremovableReason and drain.BlockingPodReason)
SCALE_DOWN_DISABLED: Final = "ScaleDownDisabledAnnotation"
NOT_UNDERUTILIZED: Final = "NotUnderutilized"
NO_PLACE_TO_MOVE_PODS: Final = "NoPlaceToMovePods"
BLOCKED_BY_POD: Final = "BlockedByPod"
NOT_REPLICATED: Final = "NotReplicated"
LOCAL_STORAGE_REQUESTED: Final = "LocalStorageRequested"
NOT_SAFE_TO_EVICT: Final = "NotSafeToEvictAnnotation"
UNMOVABLE_KUBE_SYSTEM_POD: Final = "UnmovableKubeSystemPod"
NOT_ENOUGH_PDB: Final = "NotEnoughPdb"


def _is_daemon(pod: Pod) -> bool:
    return any(o.controller and o.kind == "DaemonSet" for o in pod.owner_references)


def _is_mirror(pod: Pod) -> bool:
    return MIRROR_ANNOTATION in pod.annotations


def node_utilisation(node: Node, pods: Sequence[Pod]) -> float:
    """Cluster Autoscaler's utilisation: the largest of CPU, memory (and GPU, when the node has
    GPUs) of the pods' requests over the node's allocatable."""
    alloc = node.allocatable_resources
    cpu = sum(p.requests.milli_cpu for p in pods)
    mem = sum(p.requests.memory for p in pods)
    out = 0.0
    if alloc.milli_cpu:
        out = max(out, cpu / alloc.milli_cpu)
    if alloc.memory:
        out = max(out, mem / alloc.memory)
    gpus = alloc.scalar.get(_GPU, 0)
    if gpus:
        out = max(out, sum(p.requests.scalar.get(_GPU, 0) for p in pods) / gpus)
    return out


def _local_storage(pod: Pod) -> bool:
    safe = {v.strip() for v in pod.annotations.get(LOCAL_VOLUMES_ANNOTATION, "").split(",") if v.strip()}
    for v in pod.volumes:
        if v.name in safe:
            continue
        if v.other_source == "hostPath":
            return True
        if v.other_source == "emptyDir" and v.other_spec.get("medium") != "Memory":
            return True
    return False


def _pdbs_of(pod: Pod, pdbs: Sequence[PodDisruptionBudget]) -> list[PodDisruptionBudget]:
    return [b for b in pdbs if b.namespace == pod.namespace and b.selector is not None
            and b.selector.matches(pod.labels)]


def drain_blocker(pod: Pod, pdbs: Sequence[PodDisruptionBudget]) -> str | None:
    """Why *pod* blocks draining its node (a ``BlockingPodReason`` name), or ``None``. Mirror
    and DaemonSet pods never block (they need no moving)."""
    if _is_mirror(pod) or _is_daemon(pod):
        return None
    safe = pod.annotations.get(SAFE_TO_EVICT_ANNOTATION)
    if safe == "true":
        return None
    if safe == "false":
        return NOT_SAFE_TO_EVICT
    if not any(o.controller for o in pod.owner_references):
        return NOT_REPLICATED
    if pod.namespace == "kube-system" and not _pdbs_of(pod, pdbs):
        return UNMOVABLE_KUBE_SYSTEM_POD
    if _local_storage(pod):
        return LOCAL_STORAGE_REQUESTED
    return None


def _percent(value: int | str, total: int) -> int:
    if isinstance(value, int):
        return value
    return math.ceil(total * int(value.rstrip("%")) / 100)


def pdb_allowances(pdbs: Sequence[PodDisruptionBudget], pods: Sequence[Pod]) -> dict[str, int]:
    """Disruptions each PDB allows (``namespace/name`` -> count): its
    ``status.disruptionsAllowed`` when positive, else computed from its spec over the bound pods
    it selects (the disruption controller's arithmetic, every running pod counted healthy;
    finished pods are not counted)."""
    out: dict[str, int] = {}
    live = [p for p in pods if not p.is_terminal]
    for b in pdbs:
        key = f"{b.namespace}/{b.name}"
        if b.disruptions_allowed > 0:
            out[key] = b.disruptions_allowed
            continue
        n = sum(1 for p in live if b.namespace == p.namespace and b.selector is not None
                and b.selector.matches(p.labels))
        if b.min_available is not None:
            out[key] = max(n - _percent(b.min_available, n), 0)
        elif b.max_unavailable is not None:
            out[key] = max(_percent(b.max_unavailable, n), 0)
        else:
            out[key] = 0
    return out


def scale_down_nodes(ctx: Context, threshold: float, protected: frozenset[str] = frozenset()
                     ) -> tuple[list[str], dict[str, str], dict[str, tuple[str, str]], dict[str, float]]:
    """Cluster Autoscaler's scale-down simulation. Candidates are taken least utilised first;
    a node is removable when it is not annotated ``scale-down-disabled``, its utilisation is
    below *threshold*, none of its pods blocks draining, the PDBs allow evicting them (counting
    earlier removals) and the scheduler places every pod that must move on the nodes that stay
    (not on nodes already removed). Returns the removable nodes in order, the moves
    (``pod key -> node``), the unremovable nodes (``node -> (reason, detail)``) and every node's
    utilisation."""
    pdbs = [o for o in ctx.objects if isinstance(o, PodDisruptionBudget)]
    live = [p for p in ctx.bound if not p.is_terminal]  # finished pods hold nothing, block nothing
    allowed = pdb_allowances(pdbs, live)
    on: dict[str, list[Pod]] = {n.name: [] for n in ctx.nodes}
    for p in live:
        if p.node_name in on:
            on[p.node_name].append(p)
    util = {n.name: node_utilisation(n, on[n.name]) for n in ctx.nodes}
    sched = Scheduler(ctx.config, registry=ctx.registry, seed=ctx.seed,
                      objects=[*ctx.objects, *ctx.nodes, *live])
    nodes = {n.name: n for n in ctx.nodes}
    removed: list[str] = []
    moves: dict[str, str] = {}
    unremovable: dict[str, tuple[str, str]] = {}
    for name in sorted(nodes, key=lambda n: (util[n], n)):
        node = nodes[name]
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
        here = [sched.get_pod(p.uid) or p for p in on[name]]
        here = [p for p in here if p.node_name == name]
        blocked = next(((p, r) for p in here for r in [drain_blocker(p, pdbs)] if r), None)
        if blocked is not None:
            unremovable[name] = (BLOCKED_BY_POD, f"{blocked[0].key}: {blocked[1]}")
            continue
        movers = [p for p in here if not (_is_mirror(p) or _is_daemon(p))]
        need: dict[str, int] = {}
        for p in movers:
            for b in _pdbs_of(p, pdbs):
                key = f"{b.namespace}/{b.name}"
                need[key] = need.get(key, 0) + 1
        short = next((k for k, v in need.items() if v > allowed.get(k, 0)), None)
        if short is not None:
            unremovable[name] = (BLOCKED_BY_POD, f"{NOT_ENOUGH_PDB}: PodDisruptionBudget {short} "
                                 f"allows {allowed.get(short, 0)} disruption(s), {need[short]} needed")
            continue
        ok, placed = _try_move(sched, node, here, movers)
        if not ok:
            unremovable[name] = (NO_PLACE_TO_MOVE_PODS, placed.get("", "a pod fits no other node"))
            continue
        for k, v in need.items():
            allowed[k] -= v
        removed.append(name)
        moves.update(placed)
        for p in movers:  # the moved pods now live where the scheduler put them
            target = placed[p.key]
            on.setdefault(target, []).append(p.evolve(node_name=target))
    return removed, moves, unremovable, util


def _try_move(sched: Scheduler, node: Node, here: Sequence[Pod], movers: Sequence[Pod]
              ) -> tuple[bool, dict[str, str]]:
    """Remove *node* and its pods, add *movers* as pending, schedule; keep it when all of them
    are placed, else put everything back."""
    for p in here:
        sched.remove_pod(p)
    sched.remove_node(node.name)
    fresh = [p.evolve(node_name="", nominated_node_name="") for p in movers]
    for p in fresh:
        sched.add_pod(p)
    sched.run_until_idle()
    placed = {p.key: sched.node_of(p) for p in fresh}
    if all(placed.values()):
        return True, {k: v for k, v in placed.items() if v}
    why = next((pp.message for pp in sched.pending() if pp.pod.key in placed), "")
    for p in fresh:
        sched.remove_pod(p)
    sched.add_node(node)
    for p in here:
        sched.add_pod(p)
    first = next(k for k, v in placed.items() if not v)
    return False, {"": f"{first}: {why}" if why else f"{first} fits no other node"}


def removal_outcome(ctx: Context, removed: Sequence[str]) -> tuple[list[Node], list[Pod], list[Pod]]:
    """The nodes that stay, the pods that stay, and the pods of the removed nodes that move
    (pending again; DaemonSet and mirror pods go with their node; finished pods are left out)."""
    gone = set(removed)
    live = [p for p in ctx.bound if not p.is_terminal]
    nodes = [n for n in ctx.nodes if n.name not in gone]
    stay = [p for p in live if p.node_name not in gone]
    movers = [p.evolve(node_name="", nominated_node_name="") for p in live
              if p.node_name in gone and not (_is_mirror(p) or _is_daemon(p))]
    return nodes, stay, movers
