"""``NodeInfo`` and ``PodInfo``: the per-node aggregates plugins read.

A :class:`~schedframe.NodeInfo` holds a node, the pods on it, and aggregates precomputed as pods come and go
(requested resources, used host ports, pods with affinity), so a Filter or Score call is a few
attribute reads. The cache owns mutable NodeInfos; a :class:`~schedframe.cache.Snapshot` hands
plugins clones that do not change during a cycle. Plugins must treat NodeInfo as read-only.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, final

import attrs

from ..api.frozendict import freeze
from ..api.objects import (
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    Pod,
    PodAffinityTerm,
    Resources,
    WeightedPodAffinityTerm,
)

__all__ = [
    "RESOURCE_ROW_FIELDS",
    "AffinityTerm",
    "HostPortInfo",
    "ImageStateSummary",
    "NodeInfo",
    "PodInfo",
    "WeightedAffinityTerm",
]

DEFAULT_BIND_ALL_HOST_IP: Final = "0.0.0.0"

_generations = itertools.count(1)


def next_generation() -> int:
    """A process-wide, strictly increasing generation number (upstream ``nextGeneration``).

    Shared by every NodeInfo and cache, so a node deleted and re-added under the same name never
    reuses a generation.
    """
    return next(_generations)


def _merge_label_keys(pod: Pod, term: PodAffinityTerm) -> LabelSelector | None:
    """Merge ``matchLabelKeys`` / ``mismatchLabelKeys`` into the term's selector.

    In Kubernetes the API server does this at pod creation; schedframe plays the API server, so
    it does it here (skipping requirements that are already present, as the API server would
    have written them).
    """
    selector = term.label_selector
    if selector is None or (not term.match_label_keys and not term.mismatch_label_keys):
        return selector
    extra: list[LabelSelectorRequirement] = []
    existing = set(selector.match_expressions)
    for key in term.match_label_keys:
        if key in pod.labels:
            req = LabelSelectorRequirement(key, "In", (pod.labels[key],))
            if req not in existing:
                extra.append(req)
    for key in term.mismatch_label_keys:
        if key in pod.labels:
            req = LabelSelectorRequirement(key, "NotIn", (pod.labels[key],))
            if req not in existing:
                extra.append(req)
    if not extra:
        return selector
    return LabelSelector(selector.match_labels, selector.match_expressions + tuple(extra))


@final
@attrs.frozen
class AffinityTerm:
    """A pod (anti-)affinity term resolved against the pod that carries it.

    ``namespaces`` is the set of namespaces it applies to (the carrier's own namespace when the
    term names none and has no namespace selector); ``namespace_selector`` ``None`` matches no
    namespace; ``selector`` ``None`` matches no pod.
    """

    __module__ = "schedframe.cache"

    namespaces: frozenset[str]
    selector: LabelSelector | None
    topology_key: str
    namespace_selector: LabelSelector | None

    @classmethod
    def of(cls, pod: Pod, term: PodAffinityTerm) -> AffinityTerm:
        """Resolve *term* of *pod* (upstream ``newAffinityTerm``)."""
        if not term.namespaces and term.namespace_selector is None:
            namespaces = frozenset((pod.namespace,))
        else:
            namespaces = frozenset(term.namespaces)
        return cls(namespaces, _merge_label_keys(pod, term), term.topology_key, term.namespace_selector)

    def matches(self, pod: Pod, namespace_labels: Mapping[str, str] | None) -> bool:
        """Whether *pod* (in a namespace with *namespace_labels*) is selected by this term."""
        if pod.namespace in self.namespaces or (
            self.namespace_selector is not None
            and namespace_labels is not None
            and self.namespace_selector.matches(namespace_labels)
        ):
            return self.selector is not None and self.selector.matches(pod.labels)
        return False


@final
@attrs.frozen
class WeightedAffinityTerm:
    """A resolved preferred term with its weight."""

    __module__ = "schedframe.cache"

    term: AffinityTerm
    weight: int


def _terms(pod: Pod, terms: Iterable[PodAffinityTerm]) -> tuple[AffinityTerm, ...]:
    return tuple(AffinityTerm.of(pod, t) for t in terms)


def _weighted(pod: Pod, terms: Iterable[WeightedPodAffinityTerm]) -> tuple[WeightedAffinityTerm, ...]:
    return tuple(WeightedAffinityTerm(AffinityTerm.of(pod, t.term), t.weight) for t in terms)


@final
@attrs.frozen
class PodInfo:
    """A pod with its (anti-)affinity terms resolved once.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    pod: Pod
    required_affinity_terms: tuple[AffinityTerm, ...] = ()
    required_anti_affinity_terms: tuple[AffinityTerm, ...] = ()
    preferred_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()
    preferred_anti_affinity_terms: tuple[WeightedAffinityTerm, ...] = ()

    @classmethod
    def of(cls, pod: Pod) -> PodInfo:
        """Build the PodInfo of *pod*, resolving its affinity terms."""
        aff = pod.affinity
        if aff is None or (aff.pod_affinity is None and aff.pod_anti_affinity is None):
            return cls(pod)
        pa, paa = aff.pod_affinity, aff.pod_anti_affinity
        return cls(
            pod,
            _terms(pod, pa.required) if pa else (),
            _terms(pod, paa.required) if paa else (),
            _weighted(pod, pa.preferred) if pa else (),
            _weighted(pod, paa.preferred) if paa else (),
        )

    @property
    def has_affinity(self) -> bool:
        """True when the pod has any pod affinity or anti-affinity term."""
        aff = self.pod.affinity
        return aff is not None and (aff.pod_affinity is not None or aff.pod_anti_affinity is not None)


@final
@attrs.frozen
class ImageStateSummary:
    """An image on a node: its size and how many nodes in the cluster have it."""

    __module__ = "schedframe.cache"

    size: int
    num_nodes: int


@final
class HostPortInfo:
    """Host ports in use on a node: ``{ip: {(protocol, port)}}``, with Kubernetes' rules.

    An empty IP means ``0.0.0.0``; an empty protocol means ``TCP``. A port on ``0.0.0.0``
    conflicts with the same protocol and port on any IP, and vice versa.
    """

    __module__ = "schedframe.cache"
    __slots__ = ("_ports",)

    def __init__(self) -> None:
        self._ports: dict[str, dict[tuple[str, int], int]] = {}

    @staticmethod
    def _sanitize(ip: str, protocol: str) -> tuple[str, str]:
        return ip or DEFAULT_BIND_ALL_HOST_IP, protocol or "TCP"

    def add(self, ip: str, protocol: str, port: int) -> None:
        """Record a use of *port*."""
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        by_ip = self._ports.setdefault(ip, {})
        by_ip[(protocol, port)] = by_ip.get((protocol, port), 0) + 1

    def remove(self, ip: str, protocol: str, port: int) -> None:
        """Forget one use of *port*."""
        if port <= 0:
            return
        ip, protocol = self._sanitize(ip, protocol)
        by_ip = self._ports.get(ip)
        if by_ip is None:
            return
        n = by_ip.get((protocol, port), 0) - 1
        if n > 0:
            by_ip[(protocol, port)] = n
        else:
            by_ip.pop((protocol, port), None)
            if not by_ip:
                del self._ports[ip]

    def check_conflict(self, ip: str, protocol: str, port: int) -> bool:
        """True when *port* on *ip* is already taken (upstream ``HostPortInfo.CheckConflict``)."""
        if port <= 0:
            return False
        ip, protocol = self._sanitize(ip, protocol)
        pp = (protocol, port)
        if ip == DEFAULT_BIND_ALL_HOST_IP:
            return any(pp in by_ip for by_ip in self._ports.values())
        for key in (DEFAULT_BIND_ALL_HOST_IP, ip):
            by_ip = self._ports.get(key)
            if by_ip is not None and pp in by_ip:
                return True
        return False

    def __len__(self) -> int:
        return sum(len(v) for v in self._ports.values())

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HostPortInfo) and self._ports == other._ports

    __hash__ = None  # type: ignore[assignment]

    def clone(self) -> HostPortInfo:
        """An independent copy."""
        new = HostPortInfo()
        new._ports = {ip: dict(v) for ip, v in self._ports.items()}
        return new

    def as_dict(self) -> dict[str, set[tuple[str, int]]]:
        """``{ip: {(protocol, port)}}``."""
        return {ip: set(v) for ip, v in self._ports.items()}


_ZERO: Final = Resources()

#: The fields of :attr:`schedframe.NodeInfo.resource_row`, in order: allocatable minus requested CPU
#: (millicores), memory and ephemeral storage; allocatable pods, CPU and memory; the non-zero
#: requested CPU and memory (scoring defaults for pods that request none); the requested CPU and
#: memory; and whether allocatable or requested has any scalar (extended) resource.
RESOURCE_ROW_FIELDS: Final = (
    "free_milli_cpu", "free_memory", "free_ephemeral_storage", "allocatable_pods",
    "allocatable_milli_cpu", "allocatable_memory", "non_zero_milli_cpu", "non_zero_memory",
    "requested_milli_cpu", "requested_memory", "has_scalar",
)
ResourceRow = tuple[int, int, int, int, int, int, int, int, int, int, bool]


def _row(alloc: Resources, used: Resources, nz: Resources) -> tuple[ResourceRow, int]:
    """The row of these amounts and its key (see :func:`_intern_row`)."""
    return _intern_row((alloc.milli_cpu - used.milli_cpu, alloc.memory - used.memory,
                        alloc.ephemeral_storage - used.ephemeral_storage, alloc.pods, alloc.milli_cpu,
                        alloc.memory, nz.milli_cpu, nz.memory, used.milli_cpu, used.memory,
                        bool(alloc.scalar or used.scalar)))


def _intern_row(row: ResourceRow) -> tuple[ResourceRow, int]:
    """The one tuple every NodeInfo with these amounts shares (while it is in :data:`_ROWS`), so
    that scorers can tell equal rows apart from different ones by identity, and its key: a
    number no other row content ever gets in this process (a row interned again after
    :data:`_ROWS` started over gets a new one: only less sharing)."""
    shared = _ROWS.get(row)
    if shared is not None:
        return shared
    if len(_ROWS) >= _MAX_ROWS:  # start over: later equal rows are new tuples (only less sharing)
        _ROWS.clear()
    entry = _ROWS[row] = (row, next(_row_keys))
    return entry


#: the rows handed out and their keys, by content (see :func:`_intern_row`)
_ROWS: dict[ResourceRow, tuple[ResourceRow, int]] = {}
_MAX_ROWS: Final = 1 << 16
_row_keys = itertools.count(1)


_ZERO_ROW, _ZERO_ROW_KEY = _row(_ZERO, _ZERO, _ZERO)
_NO_IMAGES: Final[Mapping[str, ImageStateSummary]] = freeze(None)


def _add_ports(ports: HostPortInfo, pod_ports: Iterable[ContainerPort], sign: int) -> None:
    for p in pod_ports:
        if sign > 0:
            ports.add(p.host_ip, p.protocol, p.host_port)
        else:
            ports.remove(p.host_ip, p.protocol, p.host_port)


@final
class NodeInfo:
    """A node and what is on it.

    Attributes:
        node: the :class:`~schedframe.Node` (``None`` when the node was deleted but pods remain);
            change it with :meth:`set_node` and :meth:`remove_node` only.
        name: the node's name (``""`` when the node object is gone).
        pods: the pods on the node, as :class:`~schedframe.PodInfo`.
        pods_with_affinity: pods having any pod affinity / anti-affinity term.
        pods_with_required_anti_affinity: pods having required anti-affinity terms.
        used_ports: host ports in use.
        image_states: ``{image name: ImageStateSummary}`` for images on the node (read-only;
            maintained by the cache, which keeps ``num_nodes`` current cluster-wide).
        generation: set from ``next_generation()`` on every change (node set or removed, pod
            added or removed); the snapshot copies only nodes whose generation moved.
        resource_row: the numbers the resource plugins read, as one flat tuple (fields named
            by ``schedframe.cache.nodeinfo.RESOURCE_ROW_FIELDS``), replaced (never changed)
            whenever ``allocatable``, ``requested`` or ``non_zero_requested`` is: the same
            tuple object means the same amounts.
        resource_row_key: a number naming ``resource_row``'s amounts, replaced with it: equal
            keys mean equal amounts (within one process; a NodeInfo unpickled or copied gets
            this process's key).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"
    __slots__ = (
        "_allocatable",
        "_label_counts",
        "_non_zero_requested",
        "_requested",
        "generation",
        "image_states",
        "name",
        "node",
        "pods",
        "pods_with_affinity",
        "pods_with_required_anti_affinity",
        "resource_row",
        "resource_row_key",
        "used_ports",
    )

    def __init__(self, node: Node | None = None, pods: Iterable[Pod | PodInfo] = ()) -> None:
        #: the pods' label counts (see :meth:`pod_label_counts`), built on first use
        self._label_counts: dict[tuple[str, str, str], int] | None = None
        self.node: Node | None = None
        self.name = ""
        self.pods: list[PodInfo] = []
        self.pods_with_affinity: list[PodInfo] = []
        self.pods_with_required_anti_affinity: list[PodInfo] = []
        self._requested: Resources = _ZERO
        self._non_zero_requested: Resources = _ZERO
        self._allocatable: Resources = _ZERO
        self.resource_row: ResourceRow = _ZERO_ROW
        self.resource_row_key: int = _ZERO_ROW_KEY
        self.used_ports = HostPortInfo()
        self.image_states: Mapping[str, ImageStateSummary] = _NO_IMAGES
        self.generation = 0
        if node is not None:
            self.set_node(node)
        for p in pods:
            self.add_pod(p)

    def __setstate__(self, state: Any) -> None:
        """Unpickled or copied: the attributes as they were, the row interned in this process
        (a key from another process could name other amounts here)."""
        slots = state[1] if isinstance(state, tuple) else state
        for name, value in slots.items():
            object.__setattr__(self, name, value)
        self.resource_row, self.resource_row_key = _intern_row(self.resource_row)

    @property
    def allocatable(self) -> Resources:
        """The node's allocatable resources."""
        return self._allocatable

    @allocatable.setter
    def allocatable(self, value: Resources) -> None:
        self._allocatable = value
        self.resource_row, self.resource_row_key = _row(value, self._requested, self._non_zero_requested)

    @property
    def requested(self) -> Resources:
        """The sum of the pods' requests."""
        return self._requested

    @requested.setter
    def requested(self, value: Resources) -> None:
        self._requested = value
        self.resource_row, self.resource_row_key = _row(self._allocatable, value, self._non_zero_requested)

    @property
    def non_zero_requested(self) -> Resources:
        """The sum of the pods' requests with the scoring defaults for missing CPU/memory requests
        (only ``milli_cpu`` and ``memory`` are set)."""
        return self._non_zero_requested

    @non_zero_requested.setter
    def non_zero_requested(self, value: Resources) -> None:
        self._non_zero_requested = value
        self.resource_row, self.resource_row_key = _row(self._allocatable, self._requested, value)

    def set_node(self, node: Node) -> None:
        """Set (or replace) the node object."""
        self.node = node
        self.name = node.name
        self.allocatable = node.allocatable_resources
        self.generation = next_generation()

    def remove_node(self) -> None:
        """Drop the node object, keeping its pods (Kubernetes keeps such a NodeInfo until its
        pods are gone)."""
        self.node = None
        self.name = ""
        self.allocatable = _ZERO
        self.image_states = _NO_IMAGES
        self.generation = next_generation()

    def add_pod(self, pod: Pod | PodInfo) -> None:
        """Account for *pod* on this node."""
        info = pod if isinstance(pod, PodInfo) else PodInfo.of(pod)
        p = info.pod
        self.pods.append(info)
        self._label_counts = None
        if info.has_affinity:
            self.pods_with_affinity.append(info)
            if info.required_anti_affinity_terms:
                self.pods_with_required_anti_affinity.append(info)
        self._account(p, +1)
        self.generation = next_generation()

    def pod_label_counts(self) -> Mapping[tuple[str, str, str], int]:
        """How many of the node's pods that are not being deleted carry each label, by
        ``(namespace, key, value)``: what a single-label selector counts on this node, read in
        O(1). Built on first use and kept while the pods stay the same (a changed NodeInfo
        starts over; the snapshot's NodeInfos never change).

        .. versionadded:: 0.1.0
        """
        counts = self._label_counts
        if counts is None:
            counts = {}
            get = counts.get
            for info in self.pods:
                p = info.pod
                if p.deletion_timestamp is None:
                    ns = p.namespace
                    for k, v in p.labels.items():
                        key = (ns, k, v)
                        counts[key] = get(key, 0) + 1
            self._label_counts = counts
        return counts

    def replace_last_pod(self, old: Pod, new: Pod) -> bool:
        """Put *new* in the place of *old* when *old* is this node's last pod and both account
        alike (the same requests, no host ports, init containers or pod (anti-)affinity): the
        NodeInfo :meth:`remove_pod` of *old* then :meth:`add_pod` of *new* would give, without
        accounting twice. Returns False, changing nothing, otherwise. (A binding confirmed:
        the bound pod replaces the one assumed moments before.)"""
        pods = self.pods
        if not pods or pods[-1].pod.uid != old.uid:
            return False
        cur = pods[-1].pod
        for p in (cur, new):
            if p.affinity is not None or p.init_containers or any(c.ports for c in p.containers):
                return False
        if (new.requests != cur.requests or new.non_zero_milli_cpu != cur.non_zero_milli_cpu
                or new.non_zero_memory != cur.non_zero_memory):
            return False
        pods[-1] = PodInfo(new)
        self._label_counts = None
        self.generation = next_generation()
        return True

    def remove_pod(self, pod: Pod) -> bool:
        """Remove the pod with *pod*'s uid; returns False when it is not here."""
        uid = pod.uid
        pods = self.pods
        # Search from the end: the pod removed is most often the one added last (a binding being
        # confirmed or an assumption forgotten), which makes that case O(1). uids are unique, so
        # the result is the same as a forward search.
        for i in range(len(pods) - 1, -1, -1):
            if pods[i].pod.uid == uid:
                info = pods[i]
                del pods[i]
                self._label_counts = None
                break
        else:
            return False
        found = info.pod
        if info.has_affinity:
            self.pods_with_affinity = [x for x in self.pods_with_affinity if x.pod.uid != uid]
            self.pods_with_required_anti_affinity = [
                x for x in self.pods_with_required_anti_affinity if x.pod.uid != uid
            ]
        self._account(found, -1)
        self.generation = next_generation()
        return True

    def _account(self, pod: Pod, sign: int) -> None:
        r = pod.requests
        req = self._requested
        if r.scalar or req.scalar:
            req = req + r if sign > 0 else req - r
        else:
            req = Resources(
                req.milli_cpu + sign * r.milli_cpu,
                req.memory + sign * r.memory,
                req.ephemeral_storage + sign * r.ephemeral_storage,
                req.pods,
            )
        nz = self._non_zero_requested
        nz = Resources(nz.milli_cpu + sign * pod.non_zero_milli_cpu, nz.memory + sign * pod.non_zero_memory)
        self._requested = req
        self._non_zero_requested = nz
        self.resource_row, self.resource_row_key = _row(self._allocatable, req, nz)
        if any(c.ports for c in pod.containers) or pod.init_containers:
            _add_ports(self.used_ports, pod.host_ports(), sign)

    def clone(self) -> NodeInfo:
        """A copy sharing the (immutable) node, pods and image states, with its own lists."""
        new = NodeInfo.__new__(NodeInfo)
        new._label_counts = self._label_counts  # the same pods: the same counts (never changed)
        new.node = self.node
        new.name = self.name
        new.pods = list(self.pods)
        new.pods_with_affinity = list(self.pods_with_affinity)
        new.pods_with_required_anti_affinity = list(self.pods_with_required_anti_affinity)
        new._requested = self._requested
        new._non_zero_requested = self._non_zero_requested
        new._allocatable = self._allocatable
        new.resource_row = self.resource_row  # the same amounts: the same tuple
        new.resource_row_key = self.resource_row_key
        new.used_ports = self.used_ports.clone()
        new.image_states = self.image_states  # read-only; replaced, never mutated
        new.generation = self.generation
        return new

    def __repr__(self) -> str:
        return f"NodeInfo(node={self.name!r}, pods={len(self.pods)}, requested={self.requested!r})"


def pod_changes(old: Sequence[PodInfo], new: Sequence[PodInfo]
                ) -> tuple[Sequence[PodInfo], Sequence[PodInfo]]:
    """The pods *new* has and *old* has not, and those *old* has and *new* has not (compared by
    identity: a NodeInfo's clone shares its PodInfos, and an updated pod gets a new one)."""
    k = len(old)
    if len(new) >= k and new[:k] == old:  # the usual: pods were added (identity first, C-level)
        return new[k:], ()
    before = {id(p) for p in old}
    after = {id(p) for p in new}
    return [p for p in new if id(p) not in before], [p for p in old if id(p) not in after]
