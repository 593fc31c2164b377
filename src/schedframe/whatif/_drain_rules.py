"""Cluster Autoscaler's drain rules (``cluster-autoscaler/simulator/drain`` and
``utilization``, with its reason names): which pods block draining a node, what the
PodDisruptionBudgets allow, a node's utilisation. :meth:`ClusterSnapshot.drain
<schedframe.ClusterSnapshot.drain>` and the planner's scale-down apply them."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Final

from ..api.objects import Node, Pod, PodDisruptionBudget

__all__ = [
    "BLOCKED_BY_POD",
    "LOCAL_STORAGE_REQUESTED",
    "LOCAL_VOLUMES_ANNOTATION",
    "MIRROR_ANNOTATION",
    "NOT_ENOUGH_PDB",
    "NOT_REPLICATED",
    "NOT_SAFE_TO_EVICT",
    "NOT_UNDERUTILIZED",
    "NO_PLACE_TO_MOVE_PODS",
    "SAFE_TO_EVICT_ANNOTATION",
    "SCALE_DOWN_DISABLED",
    "SCALE_DOWN_DISABLED_ANNOTATION",
    "UNMOVABLE_KUBE_SYSTEM_POD",
    "drain_blocker",
    "goes_with_node",
    "is_daemon",
    "is_mirror",
    "node_utilisation",
    "pdb_allowances",
    "pdb_keys",
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


def is_daemon(pod: Pod) -> bool:
    return any(o.controller and o.kind == "DaemonSet" for o in pod.owner_references)


def is_mirror(pod: Pod) -> bool:
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
    if is_mirror(pod) or is_daemon(pod):
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


def goes_with_node(pod: Pod) -> bool:
    """A DaemonSet or mirror pod: it never moves; it goes when its node goes."""
    return is_mirror(pod) or is_daemon(pod)


def pdb_keys(pod: Pod, pdbs: Sequence[PodDisruptionBudget]) -> list[str]:
    """``namespace/name`` of the PDBs selecting *pod*."""
    return [f"{b.namespace}/{b.name}" for b in _pdbs_of(pod, pdbs)]
