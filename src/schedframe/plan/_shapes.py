"""Pending pods grouped into shapes (pods the scheduler cannot tell apart), resource vectors,
the cheap arithmetic fit and the first-fit-decreasing binpacking of simple shapes."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Any, Final

from ..api.objects import Node, Pod, Resources

__all__ = ["Shape", "dims_of", "ffd_pack", "group_shapes", "is_simple", "lower_bound", "vector"]

#: Annotations the GPU-sharing plugins read (schedframe.gpushare's model): a pod carrying one is
#: planned with the real scheduler, never by arithmetic.
_GPU_ANNOTATION_PREFIX: Final = "alibabacloud.com/"
_GANG_LABEL: Final = "scheduling.x-k8s.io/pod-group"
_STANDARD: Final = ("cpu", "memory", "ephemeral-storage", "pods")


def vector(res: Resources, dims: Sequence[str], *, pod: bool) -> tuple[int, ...]:
    """*res* as a tuple over *dims* (``pods`` counts 1 for a pod)."""
    out = []
    for d in dims:
        if d == "pods":
            out.append(1 if pod else res.pods)
        else:
            out.append(res.get(d))
    return tuple(out)


def dims_of(pods: Iterable[Pod]) -> tuple[str, ...]:
    """The resources the pods request (the four standard ones, then extended ones sorted)."""
    extra: set[str] = set()
    for p in pods:
        extra.update(p.requests.scalar)
    return (*_STANDARD, *sorted(extra))


def is_simple(pod: Pod) -> bool:
    """A pod whose fit on an empty node of a template depends on that node and its free
    resources only: no inter-pod (anti-)affinity, no topology spread, no host ports, no volumes
    that bind, no resource claims, no gang, no GPU-sharing annotation. Such pods are binpacked by
    arithmetic after one real Filter on a fresh template node; the rest go through the real
    scheduler."""
    a = pod.affinity
    if a is not None and (a.pod_affinity is not None or a.pod_anti_affinity is not None):
        return False
    if pod.topology_spread_constraints or pod.resource_claims:
        return False
    if _GANG_LABEL in pod.labels or pod.workload_ref is not None:
        return False
    if any(k.startswith(_GPU_ANNOTATION_PREFIX) for k in pod.annotations):
        return False
    for c in pod.containers:
        if any(getattr(port, "host_port", 0) for port in c.ports):
            return False
    return all(not (v.persistent_volume_claim or v.ephemeral or v.csi or v.gce_persistent_disk
                    or v.aws_elastic_block_store or v.rbd or v.iscsi) for v in pod.volumes)


class Shape:
    """Pods the scheduler cannot tell apart (same spec but for name and uid)."""

    __slots__ = ("key", "pods", "simple", "size")

    def __init__(self, key: Any, pod: Pod) -> None:
        self.key = key
        self.pods: list[Pod] = [pod]
        self.simple = is_simple(pod)
        self.size = 0.0

    @property
    def first(self) -> Pod:
        return self.pods[0]


def _shape_key(p: Pod) -> Any:
    return (p.namespace, p.scheduler_name, p.priority, p.node_selector, p.affinity, p.tolerations,
            p.topology_spread_constraints, p.requests, p.labels, p.containers, p.init_containers,
            p.overhead, p.volumes, p.resource_claims, p.annotations, p.scheduling_gates, p.workload_ref)


def group_shapes(pods: Iterable[Pod]) -> list[Shape]:
    """*pods* grouped into shapes, in order of first appearance."""
    shapes: dict[Any, Shape] = {}
    for p in pods:
        k = _shape_key(p)
        s = shapes.get(k)
        if s is None:
            shapes[k] = Shape(k, p)
        else:
            s.pods.append(p)
    return list(shapes.values())


def capacity(node: Node, dims: Sequence[str]) -> tuple[int, ...]:
    """The allocatable of *node* over *dims*."""
    return vector(node.allocatable_resources, dims, pod=False)


def ffd_pack(items: Sequence[tuple[tuple[int, ...], Pod]], cap: tuple[int, ...], limit: int
             ) -> tuple[list[list[Pod]], list[Pod]]:
    """First-fit decreasing of *items* ``(request vector, pod)``, already sorted largest first,
    into bins of *cap*, opening at most *limit* bins. Identical requests keep a cursor: a bin
    that could not take a request never takes it later (bins only fill), so a run of equal pods
    costs O(bins + pods). Returns the bins' pods and the pods left over."""
    free: list[list[int]] = []
    bins: list[list[Pod]] = []
    left: list[Pod] = []
    n = len(cap)
    rng = range(n)
    cursor: dict[tuple[int, ...], int] = {}
    for req, pod in items:
        if any(req[i] > cap[i] for i in rng):
            left.append(pod)
            continue
        i = cursor.get(req, 0)
        nb = len(free)
        while i < nb:
            f = free[i]
            if all(req[j] <= f[j] for j in rng):
                break
            i += 1
        if i == nb:
            if nb >= limit:
                cursor[req] = nb
                left.append(pod)
                continue
            free.append(list(cap))
            bins.append([])
        f = free[i]
        for j in rng:
            f[j] -= req[j]
        bins[i].append(pod)
        cursor[req] = i
    return bins, left


def lower_bound(reqs: Iterable[tuple[int, ...]], cap: tuple[int, ...]) -> int:
    """The LP lower bound: max over resources of total request / capacity, rounded up."""
    tot = [0] * len(cap)
    for r in reqs:
        for i, v in enumerate(r):
            tot[i] += v
    best = 0
    for t, c in zip(tot, cap):
        if t and c:
            best = max(best, math.ceil(t / c))
    return best
