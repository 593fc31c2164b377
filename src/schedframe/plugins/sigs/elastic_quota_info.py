"""Quota bookkeeping of CapacityScheduling (scheduler-plugins ``pkg/capacityscheduling/elasticquota.go``).

:class:`QuotaInfo` is one namespace's ElasticQuota with what its pods use; :class:`QuotaInfos`
all of them, as a cycle sees them. Usage comes from the pods the scheduler's cache holds
(assumed or bound, read from the cycle's snapshot, :class:`UsageTracker`), so it follows
assume/forget and what-if snapshots without any bookkeeping of its own; the PreFilter extensions
then add and remove pods on the cycle's copy, as upstream's ``AddPod``/``RemovePod`` do.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Final, final

from ...api.elasticquota import ElasticQuota
from ...api.objects import Pod, Resources
from ...cache.listers import SharedLister
from ...cache.nodeinfo import NodeInfo

__all__ = ["LOWER_BOUND_OF_MIN", "UPPER_BOUND_OF_MAX", "QuotaInfo", "QuotaInfos", "UsageTracker", "used_over"]

#: A resource missing from ``spec.max`` is bounded by this (upstream ``UpperBoundOfMax``, MaxInt64).
UPPER_BOUND_OF_MAX: Final = 2**63 - 1
#: A resource missing from ``spec.min`` is guaranteed this (upstream ``LowerBoundOfMin``).
LOWER_BOUND_OF_MIN: Final = 0
_NO_MAX: Final = Resources(UPPER_BOUND_OF_MAX, UPPER_BOUND_OF_MAX, UPPER_BOUND_OF_MAX)
_ZERO: Final = Resources()
_TERMINAL: Final = frozenset({"Succeeded", "Failed"})


def used_over(x1: Resources, x2: Resources, y: Resources, bound: int) -> bool:
    """Whether ``x1 + x2`` exceeds *y* in any resource (upstream ``cmp2``): CPU, memory,
    ephemeral storage and pods always; extended resources only those *x1* names, a resource
    missing from *y* counting as *bound*."""
    if x1.milli_cpu + x2.milli_cpu > y.milli_cpu or x1.memory + x2.memory > y.memory:
        return True
    if x1.ephemeral_storage + x2.ephemeral_storage > y.ephemeral_storage or x1.pods + x2.pods > y.pods:
        return True
    ys = y.scalar
    xs = x2.scalar
    return any(q + xs.get(name, 0) > ys.get(name, bound) for name, q in x1.scalar.items())


@final
class QuotaInfo:
    """One namespace's quota in one cycle: ``min``, ``max`` and ``used`` (upstream
    ``ElasticQuotaInfo``). Pods added or removed on this copy (PreFilter extensions) change
    ``used`` once each; a pod counts as already included when it is assigned to a node (the
    cache holds it).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_added", "_removed", "max", "min", "name", "namespace", "used")

    def __init__(self, namespace: str, name: str, min: Resources, max: Resources, used: Resources) -> None:
        self.namespace = namespace
        self.name = name
        self.min = min
        self.max = max
        self.used = used
        self._added: set[str] = set()
        self._removed: set[str] = set()

    @classmethod
    def of(cls, quota: ElasticQuota, used: Resources = _ZERO) -> QuotaInfo:
        """From an :class:`~schedframe.api.ElasticQuota`: a missing ``min`` guarantees nothing, a
        missing ``max`` bounds CPU, memory and ephemeral storage at MaxInt64."""
        mn = Resources.from_list(quota.min) if quota.min else _ZERO
        mx = Resources.from_list(quota.max) if quota.max else _NO_MAX
        return cls(quota.namespace, quota.name, mn, mx, used)

    def clone(self) -> QuotaInfo:
        """A copy with its own pod sets."""
        c = QuotaInfo(self.namespace, self.name, self.min, self.max, self.used)
        c._added = set(self._added)
        c._removed = set(self._removed)
        return c

    def _counted(self, pod: Pod) -> bool:
        uid = pod.uid
        if uid in self._added:
            return True
        if uid in self._removed:
            return False
        return bool(pod.node_name) and pod.phase not in _TERMINAL

    def add_pod_if_not_present(self, pod: Pod) -> None:
        """Count *pod* in ``used`` unless it already is."""
        if self._counted(pod):
            return
        uid = pod.uid
        if uid in self._removed:
            self._removed.discard(uid)
        else:
            self._added.add(uid)
        self.used = self.used + pod.requests

    def delete_pod_if_present(self, pod: Pod) -> None:
        """Stop counting *pod* in ``used`` if it is."""
        if not self._counted(pod):
            return
        uid = pod.uid
        if uid in self._added:
            self._added.discard(uid)
        else:
            self._removed.add(uid)
        self.used = self.used - pod.requests

    def used_over_min_with(self, request: Resources) -> bool:
        """``used + request`` exceeds ``min`` in some resource *request* names."""
        return used_over(request, self.used, self.min, LOWER_BOUND_OF_MIN)

    def used_over_max_with(self, request: Resources) -> bool:
        """``used + request`` exceeds ``max``."""
        return used_over(request, self.used, self.max, UPPER_BOUND_OF_MAX)

    def used_over_min(self) -> bool:
        """``used`` exceeds ``min`` (the quota is borrowing)."""
        return used_over(self.used, _ZERO, self.min, LOWER_BOUND_OF_MIN)

    def __repr__(self) -> str:
        return (f"QuotaInfo({self.namespace}/{self.name}, min={self.min!r}, max={self.max!r}, "
                f"used={self.used!r})")


@final
class QuotaInfos:
    """The quotas of one cycle by namespace (upstream ``ElasticQuotaInfos``); the cycle-state
    value CapacityScheduling's PreFilter writes (cloned with the state).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("by_namespace",)

    def __init__(self, infos: Iterable[QuotaInfo] = ()) -> None:
        self.by_namespace: dict[str, QuotaInfo] = {i.namespace: i for i in infos}

    def get(self, namespace: str) -> QuotaInfo | None:
        """The quota of *namespace*, or ``None``."""
        return self.by_namespace.get(namespace)

    def clone(self) -> QuotaInfos:
        """A deep copy."""
        return QuotaInfos(i.clone() for i in self.by_namespace.values())

    def aggregated_used_over_min_with(self, request: Resources) -> bool:
        """The sum of every quota's ``used`` plus *request* exceeds the sum of their ``min``."""
        used = request
        mn = _ZERO
        for info in self.by_namespace.values():
            used = used + info.used
            mn = mn + info.min
        return used_over(used, _ZERO, mn, LOWER_BOUND_OF_MIN)

    def __len__(self) -> int:
        return len(self.by_namespace)


@final
class UsageTracker:
    """What the pods on nodes use, per namespace, read from a snapshot incrementally (only
    NodeInfos whose generation moved are re-read)."""

    __slots__ = ("_lock", "_nodes", "_totals")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: node name -> (NodeInfo id, generation, {namespace: requests})
        self._nodes: dict[str, tuple[int, int, dict[str, Resources]]] = {}
        self._totals: dict[str, Resources] = {}

    def usage(self, lister: SharedLister) -> Mapping[str, Resources]:
        """Namespace -> the summed requests of its (non-terminal) pods on nodes."""
        with self._lock:
            infos = lister.node_infos().list()
            nodes = self._nodes
            totals = self._totals
            for ni in infos:
                cached = nodes.get(ni.name)
                if cached is not None and cached[0] == id(ni) and cached[1] == ni.generation:
                    continue
                if cached is not None:
                    for ns, r in cached[2].items():
                        totals[ns] = totals[ns] - r
                contrib = _contribution(ni)
                for ns, r in contrib.items():
                    totals[ns] = totals.get(ns, _ZERO) + r
                nodes[ni.name] = (id(ni), ni.generation, contrib)
            if len(nodes) != len(infos):
                present = {ni.name for ni in infos}
                for name in [n for n in nodes if n not in present]:
                    for ns, r in nodes.pop(name)[2].items():
                        totals[ns] = totals[ns] - r
            return dict(totals)


def _contribution(ni: NodeInfo) -> dict[str, Resources]:
    out: dict[str, Resources] = {}
    for pi in ni.pods:
        p = pi.pod
        if p.phase in _TERMINAL:
            continue
        ns = p.namespace
        out[ns] = out.get(ns, _ZERO) + p.requests
    return out
