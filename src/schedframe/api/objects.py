"""Kubernetes api objects as frozen, slotted value objects.

Field names follow the Kubernetes v1 API in snake_case, flattened out of ``metadata`` / ``spec`` /
``status`` (``Pod.node_name`` is ``spec.nodeName``). Everything is immutable: derive changed
objects with :func:`attrs.evolve`. Timestamps are seconds since the epoch (``float``), so a fake
clock drives them directly.

``None`` keeps Kubernetes' distinction between an absent field and an empty one where the
semantics differ (a ``None`` label selector matches nothing, an empty one everything).
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any, Final, TypeVar, final

import attrs

from ._ranges import int32_validator
from ._selectors import (
    Affinity,
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PreferredSchedulingTerm,
    WeightedPodAffinityTerm,
    _parse_decimal_int64,
)
from ._volume_sources import (
    AWSElasticBlockStoreVolumeSource,
    CSIVolumeSource,
    EphemeralVolumeSource,
    GCEPersistentDiskVolumeSource,
    ISCSIVolumeSource,
    PersistentVolumeClaimVolumeSource,
    RBDVolumeSource,
    Volume,
)
from .frozendict import FrozenDict, freeze, str_map
from .frozendict import as_tuple as _tuple
from .quantity import Quantity

if TYPE_CHECKING:
    from typing_extensions import Self

__all__ = [
    "DEFAULT_MEMORY_REQUEST",
    "DEFAULT_MILLI_CPU_REQUEST",
    "DEFAULT_SCHEDULER_NAME",
    "AWSElasticBlockStoreVolumeSource",
    "Affinity",
    "CSIVolumeSource",
    "Container",
    "ContainerImage",
    "ContainerPort",
    "ContainerResourceClaim",
    "ContainerRestartRule",
    "WorkloadReference",
    "EphemeralVolumeSource",
    "GCEPersistentDiskVolumeSource",
    "ISCSIVolumeSource",
    "LabelSelector",
    "LabelSelectorRequirement",
    "Namespace",
    "Node",
    "NodeAffinity",
    "NodeCondition",
    "NodeSelector",
    "NodeSelectorRequirement",
    "NodeSelectorTerm",
    "OwnerReference",
    "PersistentVolumeClaimVolumeSource",
    "Pod",
    "PodAffinity",
    "PodAffinityTerm",
    "PodAntiAffinity",
    "PodCondition",
    "PodDisruptionBudget",
    "PodGroup",
    "PodResourceClaim",
    "PodResourceClaimStatus",
    "PreferredSchedulingTerm",
    "PriorityClass",
    "RBDVolumeSource",
    "ReplicaSet",
    "ReplicationController",
    "Resources",
    "Service",
    "StatefulSet",
    "Taint",
    "Toleration",
    "TopologySpreadConstraint",
    "Volume",
    "WeightedPodAffinityTerm",
]

_T = TypeVar("_T")

#: The manifest converters (``pod_from_manifest``, ``object_to_manifest``, ...), installed by
#: :mod:`schedframe.api.manifests` when :mod:`schedframe.api` is imported, so that the objects
#: never import the parser that sits above them.
_manifest_codec: dict[str, Callable[[Any], Any]] = {}


def _decode(converter: str, cls: type[_T], manifest: Mapping[str, Any]) -> _T:
    obj = _manifest_codec[converter](manifest)
    if not isinstance(obj, cls):
        raise TypeError(f"{converter} returned {type(obj).__name__}, not {cls.__name__}")
    return obj


def _encode(converter: str, obj: object) -> dict[str, Any]:
    manifest: dict[str, Any] = _manifest_codec[converter](obj)
    return manifest

DEFAULT_SCHEDULER_NAME: Final = "default-scheduler"
#: CPU request assumed for scoring when a container sets none (Kubernetes ``DefaultMilliCPURequest``).
DEFAULT_MILLI_CPU_REQUEST: Final = 100
#: Memory request assumed for scoring when a container sets none (200 MiB).
DEFAULT_MEMORY_REQUEST: Final = 200 * 1024 * 1024

# resource names
CPU: Final = "cpu"
MEMORY: Final = "memory"
EPHEMERAL_STORAGE: Final = "ephemeral-storage"
PODS: Final = "pods"
HUGEPAGES_PREFIX: Final = "hugepages-"

_NS_UID = uuid.UUID("6f1d2e8a-3c55-4b59-9d1e-5c0de5c4ed01")


def _str_set(value: Iterable[str] | None) -> frozenset[str]:
    return frozenset(value) if value is not None else frozenset()




def _int_map(value: Mapping[str, int] | None) -> FrozenDict[str, int]:
    return freeze(value)


def _quantity_map(value: Mapping[str, Quantity | str | int] | None) -> FrozenDict[str, Quantity]:
    if not value:
        return freeze(None)
    if isinstance(value, FrozenDict) and all(isinstance(v, Quantity) for v in value.values()):
        return value
    return FrozenDict({k: v if isinstance(v, Quantity) else Quantity.parse(v) for k, v in value.items()})


# --------------------------------------------------------------------------------------------
# Resources


@final
@attrs.frozen
class Resources:
    """A set of resource amounts in the units the scheduler computes with.

    CPU is in millicores, everything else in whole base units (bytes, pods, devices). Mirrors
    kube-scheduler's ``framework.Resource``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    milli_cpu: int = 0
    memory: int = 0
    ephemeral_storage: int = 0
    pods: int = 0
    scalar: FrozenDict[str, int] = attrs.field(default=freeze(None), converter=_int_map)

    @classmethod
    def from_list(cls, values: Mapping[str, Quantity | str | int] | None) -> Resources:
        """Build from a Kubernetes ``ResourceList`` (``{"cpu": "500m", "memory": "1Gi"}``)."""
        if not values:
            return _ZERO_RESOURCES
        milli_cpu = memory = storage = pods = 0
        scalar: dict[str, int] = {}
        for name, raw in values.items():
            q = raw if isinstance(raw, Quantity) else Quantity.parse(raw)
            if name == CPU:
                milli_cpu = q.milli_value()
            elif name == MEMORY:
                memory = q.value()
            elif name == EPHEMERAL_STORAGE:
                storage = q.value()
            elif name == PODS:
                pods = q.value()
            else:
                scalar[name] = q.value()
        return cls(milli_cpu, memory, storage, pods, freeze(scalar))

    @classmethod
    def _from_exact(cls, values: Mapping[str, Fraction]) -> Resources:
        if not values:
            return _ZERO_RESOURCES
        milli_cpu = memory = storage = pods = 0
        scalar: dict[str, int] = {}
        for name, v in values.items():
            if name == CPU:
                milli_cpu = _ceil(v * 1000)
            elif name == MEMORY:
                memory = _ceil(v)
            elif name == EPHEMERAL_STORAGE:
                storage = _ceil(v)
            elif name == PODS:
                pods = _ceil(v)
            else:
                scalar[name] = _ceil(v)
        return cls(milli_cpu, memory, storage, pods, freeze(scalar))

    def get(self, name: str) -> int:
        """The amount of resource *name* (``"cpu"`` in millicores)."""
        if name == CPU:
            return self.milli_cpu
        if name == MEMORY:
            return self.memory
        if name == EPHEMERAL_STORAGE:
            return self.ephemeral_storage
        if name == PODS:
            return self.pods
        return self.scalar.get(name, 0)

    def names(self) -> list[str]:
        """Resource names with a non-zero amount, the four standard ones first."""
        out = [n for n, v in ((CPU, self.milli_cpu), (MEMORY, self.memory),
                              (EPHEMERAL_STORAGE, self.ephemeral_storage), (PODS, self.pods)) if v]
        out.extend(k for k, v in self.scalar.items() if v)
        return out

    def is_zero(self) -> bool:
        """True when every amount is zero."""
        return not (self.milli_cpu or self.memory or self.ephemeral_storage or self.pods
                    or any(self.scalar.values()))

    def __add__(self, other: Resources) -> Resources:
        if not other.scalar and not self.scalar:
            scalar = self.scalar
        else:
            merged = dict(self.scalar)
            for k, v in other.scalar.items():
                merged[k] = merged.get(k, 0) + v
            scalar = freeze(merged)
        return Resources(self.milli_cpu + other.milli_cpu, self.memory + other.memory,
                         self.ephemeral_storage + other.ephemeral_storage, self.pods + other.pods,
                         scalar)

    def __sub__(self, other: Resources) -> Resources:
        if not other.scalar and not self.scalar:
            scalar = self.scalar
        else:
            merged = dict(self.scalar)
            for k, v in other.scalar.items():
                merged[k] = merged.get(k, 0) - v
            scalar = freeze({k: v for k, v in merged.items() if v})
        return Resources(self.milli_cpu - other.milli_cpu, self.memory - other.memory,
                         self.ephemeral_storage - other.ephemeral_storage, self.pods - other.pods,
                         scalar)

    def to_list(self) -> dict[str, str]:
        """Back to a Kubernetes ``ResourceList`` of quantity strings (zero amounts omitted)."""
        out: dict[str, str] = {}
        if self.milli_cpu:
            out[CPU] = str(Quantity.from_milli(self.milli_cpu))
        if self.memory:
            out[MEMORY] = str(self.memory)
        if self.ephemeral_storage:
            out[EPHEMERAL_STORAGE] = str(self.ephemeral_storage)
        if self.pods:
            out[PODS] = str(self.pods)
        for k, v in self.scalar.items():
            if v:
                out[k] = str(v)
        return out


_ZERO_RESOURCES: Final = Resources()


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


# --------------------------------------------------------------------------------------------
# Taints and tolerations

TAINT_EFFECTS: Final = frozenset({"NoSchedule", "PreferNoSchedule", "NoExecute"})


@final
@attrs.frozen
class Taint:
    """A node taint (effect ``NoSchedule``, ``PreferNoSchedule`` or ``NoExecute``)."""

    __module__ = "schedframe.api"

    key: str
    effect: str
    value: str = ""
    time_added: float | None = None

    def __str__(self) -> str:
        return f"{self.key}={self.value}:{self.effect}" if self.value else f"{self.key}:{self.effect}"


@final
@attrs.frozen
class Toleration:
    """A pod toleration. ``operator`` is ``Equal`` (the default) or ``Exists``."""

    __module__ = "schedframe.api"

    key: str = ""
    operator: str = "Equal"
    value: str = ""
    effect: str = ""
    toleration_seconds: int | None = None

    def tolerates(self, taint: Taint) -> bool:
        """Kubernetes ``Toleration.ToleratesTaint``.

        An empty effect matches every effect; an empty key with ``Exists`` matches every taint.
        ``Lt`` / ``Gt`` compare the taint's value with the toleration's as integers (the API
        server accepts them only with the ``TaintTolerationComparisonOperators`` feature on, so
        a toleration using one implies it); unknown operators never match.
        """
        if self.effect and self.effect != taint.effect:
            return False
        if self.key and self.key != taint.key:
            return False
        op = self.operator
        if op == "Exists":
            return True
        if op in ("Equal", ""):
            return self.value == taint.value
        if op in ("Lt", "Gt"):
            # numeric comparison of canonical decimal integers (TaintTolerationComparisonOperators)
            want = _parse_decimal_int64(self.value)
            have = _parse_decimal_int64(taint.value)
            if want is None or have is None:
                return False
            return have < want if op == "Lt" else have > want
        return False


# --------------------------------------------------------------------------------------------
# Topology spread


@final
@attrs.frozen
class TopologySpreadConstraint:
    """One ``spec.topologySpreadConstraints`` entry."""

    __module__ = "schedframe.api"

    max_skew: int
    topology_key: str
    when_unsatisfiable: str = "DoNotSchedule"
    label_selector: LabelSelector | None = None
    min_domains: int | None = None
    node_affinity_policy: str | None = None
    node_taints_policy: str | None = None
    match_label_keys: tuple[str, ...] = attrs.field(default=(), converter=_tuple)


# --------------------------------------------------------------------------------------------
# Containers


@final
@attrs.frozen
class ContainerPort:
    """A container port; only ``host_port`` > 0 occupies a port on the node."""

    __module__ = "schedframe.api"

    container_port: int
    host_port: int = 0
    host_ip: str = ""
    protocol: str = "TCP"
    name: str = ""


@final
@attrs.frozen
class WorkloadReference:
    """A pod's ``spec.workloadRef``: the :class:`~schedframe.api.Workload` and pod group it belongs to
    (``GenericWorkload``; read by the GangScheduling plugin).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    pod_group: str
    pod_group_replica_key: str = ""


@final
@attrs.frozen
class ContainerRestartRule:
    """One of a container's ``restartPolicyRules``: what to do when it exits with some codes
    (``action`` ``Restart`` or ``RestartAllContainers``; ``exit_codes_operator`` ``In`` or
    ``NotIn`` over ``exit_codes_values``). The scheduler reads it for NodeDeclaredFeatures: a
    ``RestartAllContainers`` rule needs nodes declaring ``RestartAllContainersOnContainerExits``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    action: str
    exit_codes_operator: str = ""
    exit_codes_values: tuple[int, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class ContainerResourceClaim:
    """One entry of a container's ``resources.claims``: the name of one of the pod's
    ``spec.resourceClaims`` and optionally one request of that claim.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    request: str = ""


@final
@attrs.frozen
class PodResourceClaim:
    """One entry of ``spec.resourceClaims``: a name the containers use, and either the
    ResourceClaim it refers to (``resource_claim_name``) or the ResourceClaimTemplate a claim is
    generated from (``resource_claim_template_name``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    resource_claim_name: str | None = None
    resource_claim_template_name: str | None = None


@final
@attrs.frozen
class PodResourceClaimStatus:
    """One entry of ``status.resourceClaimStatuses``: the name of the ResourceClaim generated
    for the pod claim ``name`` (``None``: intentionally not generated).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    resource_claim_name: str | None = None


@final
@attrs.frozen
class Container:
    """A container or init container: what the scheduler reads of it.

    ``restart_policy="Always"`` on an init container makes it a sidecar (restartable init
    container), whose requests count for the pod's whole life.
    """

    __module__ = "schedframe.api"

    name: str = "c"
    image: str = ""
    requests: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    limits: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    ports: tuple[ContainerPort, ...] = attrs.field(default=(), converter=_tuple)
    restart_policy: str | None = None
    claims: tuple[ContainerResourceClaim, ...] = attrs.field(default=(), converter=_tuple)
    """``resources.claims``: the pod resource claims this container uses."""
    restart_policy_rules: tuple[ContainerRestartRule, ...] = attrs.field(default=(), converter=_tuple)
    """``restartPolicyRules``."""


@final
@attrs.frozen
class PodCondition:
    """A pod status condition (``PodScheduled``, ``Ready``, ...)."""

    __module__ = "schedframe.api"

    type: str
    status: str = "True"
    reason: str = ""
    message: str = ""
    last_probe_time: float | None = None
    """``lastProbeTime`` in seconds since the epoch."""
    last_transition_time: float | None = None
    """``lastTransitionTime`` in seconds since the epoch."""


@final
@attrs.frozen
class OwnerReference:
    """An owner reference (used to find the Service/ReplicaSet/StatefulSet selecting a pod)."""

    __module__ = "schedframe.api"

    kind: str
    name: str
    uid: str = ""
    api_version: str = ""
    controller: bool = False


# --------------------------------------------------------------------------------------------
# Pod


def _pod_uid(pod: Pod) -> str:
    return str(uuid.uuid5(_NS_UID, f"{pod.namespace}/{pod.name}"))


@final
@attrs.frozen(weakref_slot=False)
class Pod:
    """A Kubernetes Pod, as the scheduler sees it.

    ``uid`` defaults to a value derived from namespace and name, so runs are reproducible.
    ``requests`` (the effective pod requests, computed as Kubernetes does) and the non-zero
    variants used for scoring are computed once at construction.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    name: str
    namespace: str = "default"
    uid: str = attrs.field(default=attrs.Factory(_pod_uid, takes_self=True))
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    creation_timestamp: float | None = None
    deletion_timestamp: float | None = None
    owner_references: tuple[OwnerReference, ...] = attrs.field(default=(), converter=_tuple)
    # spec
    priority: int | None = None
    priority_class_name: str = ""
    scheduler_name: str = DEFAULT_SCHEDULER_NAME
    node_name: str = ""
    node_selector: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    affinity: Affinity | None = None
    tolerations: tuple[Toleration, ...] = attrs.field(default=(), converter=_tuple)
    topology_spread_constraints: tuple[TopologySpreadConstraint, ...] = attrs.field(
        default=(), converter=_tuple)
    containers: tuple[Container, ...] = attrs.field(default=(), converter=_tuple)
    init_containers: tuple[Container, ...] = attrs.field(default=(), converter=_tuple)
    overhead: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    resources: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    """Pod-level resource requests (``spec.resources.requests``)."""
    resource_limits: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    """Pod-level resource limits (``spec.resources.limits``)."""
    scheduling_gates: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    preemption_policy: str | None = None
    resource_claims: tuple[PodResourceClaim, ...] = attrs.field(default=(), converter=_tuple)
    """``spec.resourceClaims`` (Dynamic Resource Allocation)."""
    volumes: tuple[Volume, ...] = attrs.field(default=(), converter=_tuple)
    # status
    phase: str = "Pending"
    nominated_node_name: str = ""
    start_time: float | None = None
    conditions: tuple[PodCondition, ...] = attrs.field(default=(), converter=_tuple)
    resource_claim_statuses: tuple[PodResourceClaimStatus, ...] = attrs.field(default=(), converter=_tuple)
    """``status.resourceClaimStatuses``: the claims generated from templates."""
    host_network: bool = False
    """``spec.hostNetwork``."""
    host_users: bool | None = None
    """``spec.hostUsers`` (``False``: the pod runs in a user namespace)."""
    workload_ref: WorkloadReference | None = None
    """``spec.workloadRef``: the Workload pod group of the pod (GangScheduling, 1.35)."""
    scheduling_group: str | None = None
    """``spec.schedulingGroup.podGroupName``: the ``scheduling.k8s.io`` PodGroup
    (:class:`~schedframe.api.SchedulingPodGroup`) of the pod (1.36 on; it replaced
    ``spec.workloadRef``)."""

    # derived, computed once
    requests: Resources = attrs.field(init=False, eq=False, repr=False)
    non_zero_milli_cpu: int = attrs.field(init=False, eq=False, repr=False)
    non_zero_memory: int = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        reqs, nz_cpu, nz_mem = _pod_requests(self)
        object.__setattr__(self, "requests", reqs)
        object.__setattr__(self, "non_zero_milli_cpu", nz_cpu)
        object.__setattr__(self, "non_zero_memory", nz_mem)

    # -- conveniences -------------------------------------------------------------------------
    @property
    def key(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @property
    def effective_priority(self) -> int:
        """``spec.priority``, 0 when unset (Kubernetes ``corev1helpers.PodPriority``)."""
        return self.priority if self.priority is not None else 0

    def host_ports(self) -> list[ContainerPort]:
        """The ports that claim a host port: those of containers and of restartable (sidecar)
        init containers, which run for the pod's whole life (upstream ``GetHostPorts``)."""
        out = [p for c in self.init_containers if c.restart_policy == "Always"
               for p in c.ports if p.host_port > 0]
        out.extend(p for c in self.containers for p in c.ports if p.host_port > 0)
        return out

    def is_terminating(self) -> bool:
        """True when a deletion timestamp is set."""
        return self.deletion_timestamp is not None

    @property
    def is_terminal(self) -> bool:
        """In phase ``Succeeded`` or ``Failed``: the pod has finished and holds nothing on its
        node (kube-scheduler's informers leave such pods out).

        .. versionadded:: 0.1.0
        """
        return self.phase in ("Succeeded", "Failed")

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> Pod:
        """Build from a Kubernetes v1 Pod manifest; raises :class:`~schedframe.ManifestError`."""
        return _decode("pod_from_manifest", cls, manifest)

    def to_manifest(self) -> dict[str, Any]:
        """The Kubernetes v1 Pod manifest of this pod."""
        return _encode("pod_to_manifest", self)

    def evolve(self, **changes: Any) -> Self:
        """A copy with *changes* applied (``attrs.evolve``).

        Changing only fields that have no converter and that the derived requests do not
        depend on (name, uid, node, timestamps, phase, ...) copies the other fields as they are
        instead of running every converter and recomputing the requests: binding and
        preemption make such copies on every cycle."""
        if changes.keys() <= _POD_PLAIN_FIELDS:
            new = object.__new__(Pod)
            setter = object.__setattr__
            for name in _POD_SLOTS:
                setter(new, name, changes[name] if name in changes else getattr(self, name))
            return new
        return attrs.evolve(self, **changes)


#: Fields of :class:`~schedframe.Pod` without a converter whose value the derived fields do not depend on.
_POD_PLAIN_FIELDS: frozenset[str] = frozenset({
    "name", "namespace", "uid", "creation_timestamp", "deletion_timestamp", "priority",
    "priority_class_name", "scheduler_name", "node_name", "preemption_policy", "phase",
    "nominated_node_name", "start_time",
})
_POD_SLOTS: tuple[str, ...] = tuple(a.name for a in attrs.fields(Pod))
assert set(_POD_SLOTS) >= _POD_PLAIN_FIELDS
assert all(a.converter is None and a.validator is None for a in attrs.fields(Pod)
           if a.name in _POD_PLAIN_FIELDS)


def _add_into(acc: dict[str, Fraction], reqs: Mapping[str, Quantity]) -> None:
    for name, q in reqs.items():
        acc[name] = acc.get(name, 0) + q.exact


def _max_into(acc: dict[str, Fraction], reqs: Mapping[str, Fraction]) -> None:
    for name, v in reqs.items():
        cur = acc.get(name)
        if cur is None or v > cur:
            acc[name] = v


def _is_pod_level_resource(name: str) -> bool:
    """Kubernetes ``IsSupportedPodLevelResource``: cpu, memory and hugepages-*."""
    return name in (CPU, MEMORY) or name.startswith(HUGEPAGES_PREFIX)


def _pod_level_requests_set(pod: Pod) -> bool:
    """Kubernetes ``IsPodLevelRequestsSet``: a supported resource among ``spec.resources.requests``."""
    return any(_is_pod_level_resource(name) for name in pod.resources)


def _aggregate(pod: Pod, defaults: Mapping[str, Quantity] | None, *, pod_level: bool = True
               ) -> dict[str, Fraction]:
    """Kubernetes ``resourcehelper.PodRequests``: containers summed, max with init containers
    (sidecars accumulating), pod-level requests overriding, overhead added.

    *defaults* are Kubernetes' ``NonMissingContainerRequests``: amounts used for a container
    that does not request that resource at all (an explicit zero stays zero).
    """

    def container_reqs(c: Container) -> Mapping[str, Quantity]:
        if not defaults:
            return c.requests
        missing = [name for name in defaults if name not in c.requests]
        if not missing:
            return c.requests
        reqs = dict(c.requests)
        for name in missing:
            reqs[name] = defaults[name]
        return reqs

    total: dict[str, Fraction] = {}
    for c in pod.containers:
        _add_into(total, container_reqs(c))
    if pod.init_containers:
        sidecars: dict[str, Fraction] = {}
        init_max: dict[str, Fraction] = {}
        for c in pod.init_containers:
            creqs = container_reqs(c)
            if c.restart_policy == "Always":
                _add_into(total, creqs)
                _add_into(sidecars, creqs)
                _max_into(init_max, sidecars)
            else:
                tmp: dict[str, Fraction] = {}
                _add_into(tmp, creqs)
                for k, v in sidecars.items():
                    tmp[k] = tmp.get(k, 0) + v
                _max_into(init_max, tmp)
        _max_into(total, init_max)
    if pod_level and pod.resources and _pod_level_requests_set(pod):
        for name, q in pod.resources.items():
            if _is_pod_level_resource(name):
                total[name] = q.exact
    if pod.overhead:
        _add_into(total, pod.overhead)
    return total


def container_level_scoring_requests(pod: Pod) -> tuple[Resources, int, int]:
    """The pod's requests as upstream's NodeResourcesFit *scores* them: its containers' (pod-level
    requests left out) and their non-zero CPU and memory (100m / 200Mi for a container that
    requests none). Upstream's NodeResourcesFit builds its scorer without the pod-level resources
    switch (``NewFit`` in every release 1.32 to 1.37), so its Score reads the containers even
    when the pod has pod-level requests (its Filter and BalancedAllocation read the pod level).
    The same as ``(pod.requests, pod.non_zero_milli_cpu, pod.non_zero_memory)`` for a pod without
    pod-level requests."""
    if not (pod.resources and _pod_level_requests_set(pod)):
        return pod.requests, pod.non_zero_milli_cpu, pod.non_zero_memory
    exact = _aggregate(pod, None, pod_level=False)
    nz = _aggregate(pod, _NON_ZERO_DEFAULTS, pod_level=False)
    return (Resources._from_exact(exact), _ceil(Fraction(nz.get(CPU, 0)) * 1000),
            _ceil(Fraction(nz.get(MEMORY, 0))))


_DEFAULT_CPU_Q: Final = Quantity.from_milli(DEFAULT_MILLI_CPU_REQUEST)
_DEFAULT_MEM_Q: Final = Quantity.from_int(DEFAULT_MEMORY_REQUEST)
_NON_ZERO_DEFAULTS: Final = FrozenDict({CPU: _DEFAULT_CPU_Q, MEMORY: _DEFAULT_MEM_Q})
_SIMPLE_CACHE: dict[tuple[Any, ...], tuple[Resources, int, int]] = {}


def _pod_requests(pod: Pod) -> tuple[Resources, int, int]:
    # Fast path: pods with containers only and no overhead / pod-level resources are common and
    # often identical; memoise their results by the containers' requests.
    if not pod.init_containers and not pod.overhead and not pod.resources:
        key = tuple(c.requests for c in pod.containers)
        hit = _SIMPLE_CACHE.get(key)
        if hit is not None:
            return hit
        result = _compute_requests(pod)
        if len(_SIMPLE_CACHE) < 1024:
            _SIMPLE_CACHE[key] = result
        return result
    return _compute_requests(pod)


def _compute_requests(pod: Pod) -> tuple[Resources, int, int]:
    """The pod's requests and its non-zero CPU / memory requests for scoring.

    As kube-scheduler's ``PodInfo.CalculateResource``: without pod-level requests, every
    container missing a CPU (memory) request counts 100m (200Mi); with pod-level requests, the
    defaults apply only to a resource the pod requests nowhere.
    """
    exact = _aggregate(pod, None)
    reqs = Resources._from_exact(exact)
    defaults: Mapping[str, Quantity] = _NON_ZERO_DEFAULTS
    if pod.resources and _pod_level_requests_set(pod):
        defaults = {k: v for k, v in _NON_ZERO_DEFAULTS.items() if k not in exact}
    nz = _aggregate(pod, defaults) if defaults else exact
    nz_cpu = _ceil(Fraction(nz.get(CPU, 0)) * 1000)
    nz_mem = _ceil(Fraction(nz.get(MEMORY, 0)))
    return reqs, nz_cpu, nz_mem


# --------------------------------------------------------------------------------------------
# Node


@final
@attrs.frozen
class ContainerImage:
    """An image present on a node: its names and size in bytes."""

    __module__ = "schedframe.api"

    names: tuple[str, ...] = attrs.field(converter=_tuple)
    size_bytes: int = 0


@final
@attrs.frozen
class NodeCondition:
    """A node status condition (``Ready``, ``MemoryPressure``, ...)."""

    __module__ = "schedframe.api"

    type: str
    status: str = "True"
    last_heartbeat_time: float | None = None
    """``lastHeartbeatTime`` in seconds since the epoch."""
    last_transition_time: float | None = None
    """``lastTransitionTime`` in seconds since the epoch."""


def _node_uid(node: Node) -> str:
    return str(uuid.uuid5(_NS_UID, f"node/{node.name}"))


@final
@attrs.frozen
class Node:
    """A Kubernetes Node, as the scheduler sees it.

    ``allocatable`` defaults to ``capacity`` when not given (what the kubelet reports with no
    reservations). ``allocatable_resources`` is computed once.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    name: str
    uid: str = attrs.field(default=attrs.Factory(_node_uid, takes_self=True))
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    taints: tuple[Taint, ...] = attrs.field(default=(), converter=_tuple)
    unschedulable: bool = False
    capacity: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    allocatable: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    images: tuple[ContainerImage, ...] = attrs.field(default=(), converter=_tuple)
    conditions: tuple[NodeCondition, ...] = attrs.field(default=(), converter=_tuple)
    declared_features: tuple[str, ...] = attrs.field(default=(), converter=_tuple)
    """``status.declaredFeatures``: the features the node's kubelet declares (NodeDeclaredFeatures)."""

    allocatable_resources: Resources = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        source = self.allocatable if self.allocatable else self.capacity
        object.__setattr__(self, "allocatable_resources", Resources.from_list(source))

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> Node:
        """Build from a Kubernetes v1 Node manifest; raises :class:`~schedframe.ManifestError`."""
        return _decode("node_from_manifest", cls, manifest)

    def to_manifest(self) -> dict[str, Any]:
        """The Kubernetes v1 Node manifest of this node."""
        return _encode("node_to_manifest", self)

    def evolve(self, **changes: Any) -> Self:
        """A copy with *changes* applied (``attrs.evolve``)."""
        return attrs.evolve(self, **changes)


# --------------------------------------------------------------------------------------------
# Other objects


@final
@attrs.frozen
class Namespace:
    """A Namespace: its labels are what namespace selectors match."""

    __module__ = "schedframe"

    name: str
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> Namespace:
        """Build from a Kubernetes v1 Namespace manifest."""
        return _decode("namespace_from_manifest", cls, manifest)

    def to_manifest(self) -> dict[str, Any]:
        """The Kubernetes v1 Namespace manifest."""
        return _encode("object_to_manifest", self)


@final
@attrs.frozen
class PodDisruptionBudget:
    """A policy/v1 PodDisruptionBudget. ``min_available`` / ``max_unavailable`` are ints or
    percentage strings (``"50%"``)."""

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None
    min_available: int | str | None = None
    max_unavailable: int | str | None = None
    disruptions_allowed: int = 0
    disrupted_pods: frozenset[str] = attrs.field(default=frozenset(), converter=_str_set)
    """Names of pods whose eviction the API server processed but that are not gone yet
    (the keys of ``status.disruptedPods``); preemption does not count them against the budget."""

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> PodDisruptionBudget:
        """Build from a policy/v1 PodDisruptionBudget manifest."""
        obj = _manifest_codec["object_from_manifest"](manifest)
        assert isinstance(obj, cls)
        return obj

    def to_manifest(self) -> dict[str, Any]:
        """The policy/v1 PodDisruptionBudget manifest."""
        return _encode("object_to_manifest", self)


@final
@attrs.frozen
class PriorityClass:
    """A scheduling.k8s.io/v1 PriorityClass."""

    __module__ = "schedframe.api"

    name: str
    value: int
    global_default: bool = False
    preemption_policy: str = "PreemptLowerPriority"
    annotations: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    """``metadata.annotations`` (read by scheduler-plugins' PreemptionToleration)."""


@final
@attrs.frozen
class Service:
    """A Service: only its selector matters (default topology spreading)."""

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    selector: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)


@attrs.frozen
class _ReplicatedWorkload:
    """The fields the workloads of ``replicas`` pods from a template share (ReplicaSet,
    StatefulSet, Deployment): their name, selector, replicas, pod template, uid and labels."""

    name: str
    namespace: str = "default"
    selector: LabelSelector | None = None
    replicas: int = 1
    template: Pod | None = None
    uid: str = ""
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)


@final
@attrs.frozen
class ReplicaSet(_ReplicatedWorkload):
    """An apps/v1 ReplicaSet: its selector (default topology spreading) and what its controller
    creates pods from (``replicas``, ``template``; see :func:`~schedframe.api.expand_workloads`).
    """

    __module__ = "schedframe.api"

    owner_references: tuple[OwnerReference, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class StatefulSet(_ReplicatedWorkload):
    """An apps/v1 StatefulSet: its selector, and ``replicas`` pods ``<name>-<ordinal>`` from
    ``template`` (ordinals from ``ordinals_start``).

    ``volume_claim_templates`` is ``spec.volumeClaimTemplates``, as
    :class:`~schedframe.api.PersistentVolumeClaim` objects (typed ``Any`` here: this module may not
    import the storage module): each pod gets a claim ``<template>-<name>-<ordinal>`` of each
    (see :func:`~schedframe.api.expand_workloads`).
    """

    __module__ = "schedframe.api"

    ordinals_start: int = 0
    volume_claim_templates: tuple[Any, ...] = attrs.field(default=(), converter=_tuple)


@final
@attrs.frozen
class ReplicationController:
    """A v1 ReplicationController: its (map) selector and ``replicas`` pods from ``template``.
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    selector: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)
    replicas: int = 1
    template: Pod | None = None
    uid: str = ""
    labels: FrozenDict[str, str] = attrs.field(factory=dict, converter=str_map)


#: The API group and version of :class:`~schedframe.api.PodGroup` (kubernetes-sigs/scheduler-plugins).
POD_GROUP_API_VERSION: Final = "scheduling.x-k8s.io/v1alpha1"

@final
@attrs.frozen
class PodGroup:
    """A ``scheduling.x-k8s.io/v1alpha1`` PodGroup: the gang its pods (labelled
    ``scheduling.x-k8s.io/pod-group: <name>``) are scheduled as.

    Attributes:
        name: the group's name.
        namespace: its namespace (the pods' namespace).
        min_member: how many pods must be placed together (``spec.minMember``).
        schedule_timeout_seconds: how long members wait at Permit for the quorum
            (``spec.scheduleTimeoutSeconds``; ``None`` or 0: the plugin's
            ``permitWaitingTimeSeconds``).
        min_resources: resources the cluster must be able to hold for ``min_member`` pods before
            any member is scheduled (``spec.minResources``).
        creation_timestamp: ``metadata.creationTimestamp`` (QueueSort); ``None``: the time the
            plugin first saw the group.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    name: str
    namespace: str = "default"
    min_member: int = attrs.field(default=0, validator=int32_validator(""))
    schedule_timeout_seconds: int | None = attrs.field(default=None, validator=int32_validator(" seconds"))
    min_resources: FrozenDict[str, Quantity] = attrs.field(factory=dict, converter=_quantity_map)
    creation_timestamp: float | None = None

    @property
    def full_name(self) -> str:
        """``namespace/name``."""
        return f"{self.namespace}/{self.name}"

    @classmethod
    def from_manifest(cls, manifest: Mapping[str, Any]) -> PodGroup:
        """Read a ``scheduling.x-k8s.io/v1alpha1`` PodGroup manifest (``status`` is ignored);
        raises :class:`~schedframe.ManifestError` naming the field path."""
        return _decode("pod_group_from_manifest", cls, manifest)

    def to_manifest(self) -> dict[str, Any]:
        """This PodGroup as a manifest (:meth:`from_manifest` reads it back equal)."""
        return _encode("object_to_manifest", self)


def requests_of(containers: Sequence[Container]) -> Resources:
    """Sum of the requests of *containers* (a helper for tests and tools)."""
    acc: dict[str, Fraction] = {}
    for c in containers:
        _add_into(acc, c.requests)
    return Resources._from_exact(acc)
