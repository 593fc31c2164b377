"""Fluent builders for pods and nodes (upstream ``pkg/scheduler/testing/wrappers.go``).

Each builder method returns the builder; ``.obj()`` returns the frozen api object. Defaults give
the smallest valid object.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, final

from ..api.manifests import validate_node, validate_pod
from ..api.objects import (
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    LabelSelector,
    LabelSelectorRequirement,
    Node,
    NodeAffinity,
    NodeCondition,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    Pod,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodCondition,
    PreferredSchedulingTerm,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from ..api.quantity import Quantity

__all__ = ["NodeBuilder", "PodBuilder", "make_node", "make_pod", "selector"]

QuantityLike = str | int | Quantity


def _resources(cpu: QuantityLike | None, memory: QuantityLike | None,
               extra: Mapping[str, QuantityLike]) -> dict[str, QuantityLike]:
    out: dict[str, QuantityLike] = {}
    if cpu is not None:
        out["cpu"] = cpu
    if memory is not None:
        out["memory"] = memory
    for k, v in extra.items():
        out[k.replace("_", "-") if k in ("ephemeral_storage",) else k] = v
    return out


def selector(match_labels: Mapping[str, str] | None = None,
             *expressions: tuple[str, str, Sequence[str]]) -> LabelSelector:
    """A :class:`~schedframe.api.LabelSelector` from labels and ``(key, operator, values)`` triples."""
    return LabelSelector(
        match_labels or {},
        tuple(LabelSelectorRequirement(k, op, tuple(vals)) for k, op, vals in expressions),
    )


@final
class PodBuilder:
    """Builds a :class:`~schedframe.Pod`. Start with :func:`make_pod`."""

    __module__ = "schedframe.testing"

    def __init__(self) -> None:
        self._kw: dict[str, Any] = {"name": "pod"}
        self._labels: dict[str, str] = {}
        self._annotations: dict[str, str] = {}
        self._containers: list[Container] = []
        self._init_containers: list[Container] = []
        self._tolerations: list[Toleration] = []
        self._spread: list[TopologySpreadConstraint] = []
        self._node_selector: dict[str, str] = {}
        self._required_node_terms: list[NodeSelectorTerm] = []
        self._preferred_node_terms: list[PreferredSchedulingTerm] = []
        self._pod_aff_req: list[PodAffinityTerm] = []
        self._pod_aff_pref: list[WeightedPodAffinityTerm] = []
        self._pod_anti_req: list[PodAffinityTerm] = []
        self._pod_anti_pref: list[WeightedPodAffinityTerm] = []
        self._gates: list[str] = []
        self._owners: list[OwnerReference] = []
        self._conditions: list[PodCondition] = []

    # metadata
    def name(self, name: str) -> PodBuilder:
        """Set the name."""
        self._kw["name"] = name
        return self

    def namespace(self, namespace: str) -> PodBuilder:
        """Set the namespace."""
        self._kw["namespace"] = namespace
        return self

    def uid(self, uid: str) -> PodBuilder:
        """Set the uid."""
        self._kw["uid"] = uid
        return self

    def label(self, key: str, value: str) -> PodBuilder:
        """Add a label."""
        self._labels[key] = value
        return self

    def labels(self, labels: Mapping[str, str]) -> PodBuilder:
        """Add labels."""
        self._labels.update(labels)
        return self

    def annotation(self, key: str, value: str) -> PodBuilder:
        """Add an annotation."""
        self._annotations[key] = value
        return self

    def owner(self, kind: str, name: str, *, controller: bool = True) -> PodBuilder:
        """Add an owner reference."""
        self._owners.append(OwnerReference(kind, name, controller=controller))
        return self

    def creation_timestamp(self, t: float) -> PodBuilder:
        """Set the creation timestamp (epoch seconds)."""
        self._kw["creation_timestamp"] = t
        return self

    def terminating(self, t: float = 1.0) -> PodBuilder:
        """Set a deletion timestamp."""
        self._kw["deletion_timestamp"] = t
        return self

    # spec
    def priority(self, priority: int) -> PodBuilder:
        """Set ``spec.priority``."""
        self._kw["priority"] = priority
        return self

    def priority_class(self, name: str) -> PodBuilder:
        """Set ``spec.priorityClassName``."""
        self._kw["priority_class_name"] = name
        return self

    def scheduler_name(self, name: str) -> PodBuilder:
        """Set ``spec.schedulerName``."""
        self._kw["scheduler_name"] = name
        return self

    def node(self, node_name: str) -> PodBuilder:
        """Set ``spec.nodeName`` (a bound pod)."""
        self._kw["node_name"] = node_name
        return self

    def node_selector(self, labels: Mapping[str, str]) -> PodBuilder:
        """Add ``spec.nodeSelector`` entries."""
        self._node_selector.update(labels)
        return self

    def container(self, image: str = "", *, name: str | None = None, cpu: QuantityLike | None = None,
                  memory: QuantityLike | None = None, ports: Sequence[ContainerPort] = (),
                  limits: Mapping[str, QuantityLike] | None = None,
                  **extra: QuantityLike) -> PodBuilder:
        """Add a container with these requests (``extra``: other resources, e.g.
        ``**{"nvidia.com/gpu": 1}``)."""
        self._containers.append(Container(
            name=name or f"c{len(self._containers)}", image=image,
            requests=_resources(cpu, memory, extra), limits=dict(limits or {}), ports=tuple(ports)))
        return self

    def req(self, cpu: QuantityLike | None = None, memory: QuantityLike | None = None,
            **extra: QuantityLike) -> PodBuilder:
        """Add a container requesting these resources."""
        self._containers.append(Container(name=f"c{len(self._containers)}",
                                          requests=_resources(cpu, memory, extra)))
        return self

    def init_req(self, cpu: QuantityLike | None = None, memory: QuantityLike | None = None, *,
                 sidecar: bool = False, **extra: QuantityLike) -> PodBuilder:
        """Add an init container (a restartable sidecar with ``sidecar=True``)."""
        self._init_containers.append(Container(
            name=f"init{len(self._init_containers)}", requests=_resources(cpu, memory, extra),
            restart_policy="Always" if sidecar else None))
        return self

    def overhead(self, **resources: QuantityLike) -> PodBuilder:
        """Set ``spec.overhead``."""
        self._kw["overhead"] = resources
        return self

    def pod_resources(self, **requests: QuantityLike) -> PodBuilder:
        """Set pod-level ``spec.resources.requests``."""
        self._kw["resources"] = requests
        return self

    def host_port(self, port: int, protocol: str = "TCP", host_ip: str = "") -> PodBuilder:
        """Add a container port claiming *port* on the host."""
        p = ContainerPort(container_port=port, host_port=port, host_ip=host_ip, protocol=protocol)
        if self._containers:
            last = self._containers[-1]
            self._containers[-1] = Container(last.name, last.image, last.requests, last.limits,
                                             (*last.ports, p), last.restart_policy)
        else:
            self._containers.append(Container(name="c0", ports=(p,)))
        return self

    def image(self, image: str) -> PodBuilder:
        """Add a container running *image*."""
        return self.container(image)

    def toleration(self, key: str = "", value: str = "", effect: str = "", operator: str = "Equal",
                   seconds: int | None = None) -> PodBuilder:
        """Add a toleration."""
        self._tolerations.append(Toleration(key, operator, value, effect, seconds))
        return self

    def node_affinity_in(self, key: str, values: Sequence[str]) -> PodBuilder:
        """Require a node label *key* in *values* (one more ORed term)."""
        req = NodeSelectorRequirement(key, "In", tuple(values))
        self._required_node_terms.append(NodeSelectorTerm((req,)))
        return self

    def node_affinity_not_in(self, key: str, values: Sequence[str]) -> PodBuilder:
        """Require a node label *key* not in *values* (one more ORed term)."""
        self._required_node_terms.append(
            NodeSelectorTerm((NodeSelectorRequirement(key, "NotIn", tuple(values)),)))
        return self

    def node_affinity_term(self, term: NodeSelectorTerm) -> PodBuilder:
        """Add a required node-selector term (terms are ORed)."""
        self._required_node_terms.append(term)
        return self

    def node_affinity_name(self, node_name: str) -> PodBuilder:
        """Pin to *node_name* with ``matchFields metadata.name`` (as DaemonSets do)."""
        self._required_node_terms.append(NodeSelectorTerm(
            match_fields=(NodeSelectorRequirement("metadata.name", "In", (node_name,)),)))
        return self

    def preferred_node_affinity(self, weight: int, key: str, values: Sequence[str],
                                operator: str = "In") -> PodBuilder:
        """Add a preferred node-affinity term."""
        self._preferred_node_terms.append(PreferredSchedulingTerm(
            weight, NodeSelectorTerm((NodeSelectorRequirement(key, operator, tuple(values)),))))
        return self

    def pod_affinity(self, topology_key: str, label_selector: LabelSelector | None, *,
                     namespaces: Sequence[str] = (), namespace_selector: LabelSelector | None = None,
                     weight: int | None = None) -> PodBuilder:
        """Add a pod-affinity term (preferred when *weight* is given)."""
        term = PodAffinityTerm(topology_key, label_selector, tuple(namespaces), namespace_selector)
        if weight is None:
            self._pod_aff_req.append(term)
        else:
            self._pod_aff_pref.append(WeightedPodAffinityTerm(weight, term))
        return self

    def pod_anti_affinity(self, topology_key: str, label_selector: LabelSelector | None, *,
                          namespaces: Sequence[str] = (), namespace_selector: LabelSelector | None = None,
                          weight: int | None = None) -> PodBuilder:
        """Add a pod anti-affinity term (preferred when *weight* is given)."""
        term = PodAffinityTerm(topology_key, label_selector, tuple(namespaces), namespace_selector)
        if weight is None:
            self._pod_anti_req.append(term)
        else:
            self._pod_anti_pref.append(WeightedPodAffinityTerm(weight, term))
        return self

    def pod_affinity_exists(self, label_key: str, topology_key: str, *, anti: bool = False,
                            weight: int | None = None) -> PodBuilder:
        """Affinity (or anti-affinity) to pods that have label *label_key*."""
        sel = selector(None, (label_key, "Exists", ()))
        if anti:
            return self.pod_anti_affinity(topology_key, sel, weight=weight)
        return self.pod_affinity(topology_key, sel, weight=weight)

    def pod_affinity_in(self, label_key: str, values: Sequence[str], topology_key: str, *,
                        anti: bool = False, weight: int | None = None) -> PodBuilder:
        """Affinity (or anti-affinity) to pods whose *label_key* is in *values*."""
        sel = selector(None, (label_key, "In", tuple(values)))
        if anti:
            return self.pod_anti_affinity(topology_key, sel, weight=weight)
        return self.pod_affinity(topology_key, sel, weight=weight)

    def spread_constraint(self, max_skew: int, topology_key: str,
                          when_unsatisfiable: str = "DoNotSchedule",
                          label_selector: LabelSelector | None = None, *,
                          min_domains: int | None = None, node_affinity_policy: str | None = None,
                          node_taints_policy: str | None = None,
                          match_label_keys: Sequence[str] = ()) -> PodBuilder:
        """Add a topology spread constraint."""
        self._spread.append(TopologySpreadConstraint(
            max_skew, topology_key, when_unsatisfiable, label_selector, min_domains,
            node_affinity_policy, node_taints_policy, tuple(match_label_keys)))
        return self

    def scheduling_gates(self, *gates: str) -> PodBuilder:
        """Add scheduling gates."""
        self._gates.extend(gates)
        return self

    def preemption_policy(self, policy: str) -> PodBuilder:
        """Set ``spec.preemptionPolicy`` (``Never`` or ``PreemptLowerPriority``)."""
        self._kw["preemption_policy"] = policy
        return self

    # status
    def phase(self, phase: str) -> PodBuilder:
        """Set ``status.phase``."""
        self._kw["phase"] = phase
        return self

    def nominated_node_name(self, node_name: str) -> PodBuilder:
        """Set ``status.nominatedNodeName``."""
        self._kw["nominated_node_name"] = node_name
        return self

    def start_time(self, t: float) -> PodBuilder:
        """Set ``status.startTime`` (epoch seconds)."""
        self._kw["start_time"] = t
        return self

    def condition(self, type_: str, status: str = "True") -> PodBuilder:
        """Add a status condition."""
        self._conditions.append(PodCondition(type_, status))
        return self

    def obj(self) -> Pod:
        """The frozen :class:`~schedframe.Pod`.

        Raises:
            ManifestError: for what the API server refuses (duplicate container names, a
                negative quantity, a request above its limit), naming the field path. Unlike
                the API server, and like upstream's test wrappers, a pod without containers and
                names such as ``"nodeA"`` are allowed (upstream's test tables use them).
        """
        affinity = None
        node_aff = None
        if self._required_node_terms or self._preferred_node_terms:
            node_aff = NodeAffinity(
                NodeSelector(tuple(self._required_node_terms)) if self._required_node_terms else None,
                tuple(self._preferred_node_terms))
        pod_aff = PodAffinity(tuple(self._pod_aff_req), tuple(self._pod_aff_pref)) \
            if self._pod_aff_req or self._pod_aff_pref else None
        pod_anti = PodAntiAffinity(tuple(self._pod_anti_req), tuple(self._pod_anti_pref)) \
            if self._pod_anti_req or self._pod_anti_pref else None
        if node_aff or pod_aff or pod_anti:
            affinity = Affinity(node_aff, pod_aff, pod_anti)
        pod = Pod(
            **self._kw,
            labels=self._labels,
            annotations=self._annotations,
            owner_references=tuple(self._owners),
            node_selector=self._node_selector,
            affinity=affinity,
            tolerations=tuple(self._tolerations),
            topology_spread_constraints=tuple(self._spread),
            containers=tuple(self._containers),
            init_containers=tuple(self._init_containers),
            scheduling_gates=tuple(self._gates),
            conditions=tuple(self._conditions),
        )
        validate_pod(pod, require_containers=False, check_names=False)
        return pod


@final
class NodeBuilder:
    """Builds a :class:`~schedframe.Node`. Start with :func:`make_node`."""

    __module__ = "schedframe.testing"

    def __init__(self) -> None:
        self._kw: dict[str, Any] = {"name": "node"}
        self._labels: dict[str, str] = {}
        self._annotations: dict[str, str] = {}
        self._taints: list[Taint] = []
        self._capacity: dict[str, QuantityLike] = {}
        self._allocatable: dict[str, QuantityLike] | None = None
        self._images: list[ContainerImage] = []
        self._conditions: list[NodeCondition] = []

    def name(self, name: str) -> NodeBuilder:
        """Set the name (and the ``kubernetes.io/hostname`` label is not implied)."""
        self._kw["name"] = name
        return self

    def label(self, key: str, value: str) -> NodeBuilder:
        """Add a label."""
        self._labels[key] = value
        return self

    def labels(self, labels: Mapping[str, str]) -> NodeBuilder:
        """Add labels."""
        self._labels.update(labels)
        return self

    def annotation(self, key: str, value: str) -> NodeBuilder:
        """Add an annotation."""
        self._annotations[key] = value
        return self

    def capacity(self, cpu: QuantityLike | None = None, memory: QuantityLike | None = None,
                 pods: QuantityLike | None = None, **extra: QuantityLike) -> NodeBuilder:
        """Set capacity (allocatable follows unless set separately)."""
        self._capacity.update(_resources(cpu, memory, extra))
        if pods is not None:
            self._capacity["pods"] = pods
        return self

    def allocatable(self, cpu: QuantityLike | None = None, memory: QuantityLike | None = None,
                    pods: QuantityLike | None = None, **extra: QuantityLike) -> NodeBuilder:
        """Set allocatable separately from capacity."""
        alloc = dict(_resources(cpu, memory, extra))
        if pods is not None:
            alloc["pods"] = pods
        self._allocatable = {**(self._allocatable or {}), **alloc}
        return self

    def taint(self, key: str, value: str = "", effect: str = "NoSchedule") -> NodeBuilder:
        """Add a taint."""
        self._taints.append(Taint(key, effect, value))
        return self

    def unschedulable(self, value: bool = True) -> NodeBuilder:
        """Cordon the node."""
        self._kw["unschedulable"] = value
        return self

    def image(self, name: str, size_bytes: int, *more_names: str) -> NodeBuilder:
        """Add an image present on the node."""
        self._images.append(ContainerImage((name, *more_names), size_bytes))
        return self

    def condition(self, type_: str, status: str = "True") -> NodeBuilder:
        """Add a status condition."""
        self._conditions.append(NodeCondition(type_, status))
        return self

    def obj(self) -> Node:
        """The frozen :class:`~schedframe.Node`.

        Raises:
            ManifestError: for a negative quantity, naming the field path (names are not
                checked, as upstream's test tables use names such as ``"nodeA"``).
        """
        node = Node(
            **self._kw,
            labels=self._labels,
            annotations=self._annotations,
            taints=tuple(self._taints),
            capacity=self._capacity,
            allocatable=self._allocatable if self._allocatable is not None else {},
            images=tuple(self._images),
            conditions=tuple(self._conditions),
        )
        validate_node(node, check_names=False)
        return node


def make_pod(name: str = "pod", namespace: str | None = None) -> PodBuilder:
    """Start building a pod: ``make_pod("p1").req(cpu="500m").obj()``."""
    b = PodBuilder().name(name)
    return b.namespace(namespace) if namespace is not None else b


def make_node(name: str = "node") -> NodeBuilder:
    """Start building a node: ``make_node("n1").capacity(cpu="4", memory="8Gi").obj()``."""
    return NodeBuilder().name(name)
