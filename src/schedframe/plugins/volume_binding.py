"""VolumeBinding: bind a pod's PersistentVolumeClaims as part of scheduling it.

Upstream: ``pkg/scheduler/framework/plugins/volumebinding/`` (``volume_binding.go``,
``binder.go``, and ``FindMatchingVolume`` of ``k8s.io/component-helpers/storage/volume``).

* **PreFilter**: every claim of the pod (``persistentVolumeClaim`` and generic ephemeral
  volumes) must exist, not be lost or being deleted, and (ephemeral) belong to the pod; else
  ``UNSCHEDULABLE_AND_UNRESOLVABLE`` with upstream's message. A pod without claims is SKIPped.
  An unbound claim of an ``Immediate`` class (or pre-bound to a PV, or of no class) is left to
  the PV controller: "pod has unbound immediate PersistentVolumeClaims".
* **Filter**: a bound claim's PV must exist and its node affinity match the node; each unbound
  ``WaitForFirstConsumer`` claim either matches an available PV (static binding: same class,
  access modes, volume mode, selector, enough capacity, node affinity; the smallest fitting PV,
  claims taken smallest first) or can be provisioned there (the class has a provisioner and its
  ``allowedTopologies`` match the node). Failures give upstream's reasons with
  ``UNSCHEDULABLE_AND_UNRESOLVABLE``.
* **Reserve** assumes the chosen bindings (other pods see the PVs as taken); **Unreserve**
  reverts them; **PreBind** writes them to the object store.
* **Score**: only with the ``StorageCapacityScoring`` feature (alpha and off up to Kubernetes
  1.36, beta and on from 1.37; ``storage_capacity_scoring=True``): the utilisation of the
  statically bound PVs through the args' ``shape``, else of the classes' capacity on the node
  for dynamically provisioned claims (0 here: CSIStorageCapacity is not modelled). Every pod is
  scored then, 0 for a pod without claims. Off, PreScore SKIPs (unless the pod binds existing
  PVs) and Score is 0.

schedframe runs no PV controller or provisioner, so PreBind does their part at once, as they
would on success: a static binding sets the PV's ``claimRef`` and phase ``Bound`` and the
claim's ``volumeName``, phase and ``pv.kubernetes.io/bind-completed``; a provisioned claim gets
the ``volume.kubernetes.io/selected-node`` annotation and a new PV ``pvc-<claim uid>`` of its
class and size, bound to it and pinned (node affinity) to the node's values of
:func:`provisioned_topology_keys`: the CSI driver's topology keys when the node's CSINode lists
the driver, else the keys the class's ``allowedTopologies`` name, else the zone label.
``bindTimeoutSeconds`` is validated but never waited on. Storage capacity tracking
(CSIStorageCapacity) and the CSI translation of in-tree PVs are not modelled: provisioning is
never refused for capacity.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

import attrs

from ..api.objects import NodeSelector, NodeSelectorRequirement, NodeSelectorTerm, Pod
from ..api.storage import (
    ANN_BIND_COMPLETED,
    ANN_BOUND_BY_CONTROLLER,
    ANN_SELECTED_NODE,
    NOT_SUPPORTED_PROVISIONER,
    CSIDriver,
    CSINode,
    ObjectReference,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from ..errors import PluginArgsError, StateNotFoundError
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.interfaces import MAX_NODE_SCORE, PreFilterResult
from ..framework.registry import plugin_args
from ..framework.releases import release_of
from ..framework.status import Code, Status
from . import names
from ._helpers import WithArgs, as_objects, score_each
from ._resource_scoring import (
    MAX_CUSTOM_PRIORITY_SCORE,
    broken_linear_function,
    field_invalid,
)
from ._volumes import (
    VolumeObjects,
    check_node_affinity,
    is_schedulable_after_claim_change,
    not_found,
    volume_is_for_pod,
)
from .node_resources_fit import UtilizationShapePoint, shape_errors

if TYPE_CHECKING:
    from ..cache.nodeinfo import NodeInfo
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        BatchScorePlugin,
        EnqueueExtensions,
        FilterPlugin,
        PreBindPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreScorePlugin,
        ReservePlugin,
        ScoreExtensions,
        ScorePlugin,
    )

__all__ = [
    "ARGS_TYPE",
    "DEFAULT_BIND_TIMEOUT_SECONDS",
    "ERR_REASON_BIND_CONFLICT",
    "ERR_REASON_NODE_CONFLICT",
    "ERR_REASON_NODE_CONFLICT_1_32",
    "ERR_REASON_NOT_ENOUGH_SPACE",
    "ERR_REASON_PV_NOT_EXIST",
    "NAME",
    "UtilizationShapePoint",
    "VolumeBinding",
    "VolumeBindingArgs",
    "find_matching_volume",
    "local_pv_node_names",
    "new",
    "provisioned_topology_keys",
]

NAME: Final = names.VOLUME_BINDING
_ADD_OR_UPDATE: Final = ActionType.ADD | ActionType.UPDATE
_NODE_ADD_OR_LABEL: Final = ActionType.ADD | ActionType.UPDATE_NODE_LABEL

#: Reason: no available PV to bind an unbound claim to, and no way to provision one.
ERR_REASON_BIND_CONFLICT: Final = "node(s) didn't find available persistent volumes to bind"
#: Reason: a bound claim's PV does not allow the node (Kubernetes 1.33 on).
ERR_REASON_NODE_CONFLICT: Final = "node(s) didn't match PersistentVolume's node affinity"
#: The same reason up to Kubernetes 1.32.
ERR_REASON_NODE_CONFLICT_1_32: Final = "node(s) had volume node affinity conflict"
#: Reason: not enough storage capacity to provision a volume (CSIStorageCapacity).
ERR_REASON_NOT_ENOUGH_SPACE: Final = "node(s) did not have enough free storage"
#: Reason: a claim is bound to a PV that does not exist.
ERR_REASON_PV_NOT_EXIST: Final = "node(s) unavailable due to one or more pvc(s) bound to non-existent pv(s)"
#: PreFilter reason for claims the PV controller should have bound.
ERR_REASON_UNBOUND_IMMEDIATE: Final = "pod has unbound immediate PersistentVolumeClaims"

#: Upstream's default ``bindTimeoutSeconds``.
DEFAULT_BIND_TIMEOUT_SECONDS: Final = 600
_MAX_UTILIZATION: Final = 100
_WFFC: Final = "WaitForFirstConsumer"
_ANN_PROVISIONED_BY: Final = "pv.kubernetes.io/provisioned-by"
_LABEL_ZONE: Final = "topology.kubernetes.io/zone"
_HOSTNAME: Final = "kubernetes.io/hostname"


def _shape(value: Iterable[UtilizationShapePoint] | None) -> tuple[UtilizationShapePoint, ...] | None:
    if value is None:
        return None
    return value if isinstance(value, tuple) else tuple(value)


@final
@attrs.frozen(kw_only=True)
class VolumeBindingArgs:
    """Arguments of VolumeBinding (``kubescheduler.config.k8s.io/v1``).

    Args:
        bind_timeout_seconds: how long PreBind may wait for the binding (upstream default 600;
            must not be negative).
        shape: the capacity-scoring function, only with the ``StorageCapacityScoring`` feature
            (``None``: unset; with the feature on it defaults to favouring the least utilised
            storage, ``[(0, 10), (100, 0)]``). Upstream rejects it while the feature is off.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.volume_binding"

    bind_timeout_seconds: int = DEFAULT_BIND_TIMEOUT_SECONDS
    shape: tuple[UtilizationShapePoint, ...] | None = attrs.field(default=None, converter=_shape)

    KIND: ClassVar[str] = "VolumeBindingArgs"

    def defaulted(self, release: Any) -> VolumeBindingArgs:
        """The args as *release* defaults them (upstream ``SetDefaults_VolumeBindingArgs``): the
        default shape when ``StorageCapacityScoring`` is on (on by default from Kubernetes 1.37)
        and none is given; with the gate off, a shape is refused.

        Raises:
            PluginArgsError: the shape is invalid, or given with the gate off.
        """
        on = bool(release.feature_gates.get("StorageCapacityScoring", False))
        args = self
        if on and self.shape is None:
            args = attrs.evolve(self, shape=DEFAULT_CAPACITY_SHAPE)
        args.validate(storage_capacity_scoring=on)
        return args

    def errors(self, *, storage_capacity_scoring: bool | None = None) -> list[str]:
        """Every validation problem (upstream ``ValidateVolumeBindingArgsWithOptions``);
        *storage_capacity_scoring* is the gate (``None``: not known here, a shape given is
        checked as with the gate on; :meth:`defaulted` checks it against the release)."""
        errs: list[str] = []
        if self.bind_timeout_seconds < 0:
            errs.append(field_invalid("bindTimeoutSeconds", self.bind_timeout_seconds,
                                      "invalid BindTimeoutSeconds, should not be a negative value"))
        if storage_capacity_scoring is None:
            if self.shape is not None:
                errs.extend(shape_errors(self.shape, "shape"))
        elif storage_capacity_scoring:
            errs.extend(shape_errors(self.shape or (), "shape"))
        elif self.shape is not None:
            shown = ("[]config.UtilizationShapePoint{" + ", ".join(
                f"config.UtilizationShapePoint{{Utilization:{p.utilization}, Score:{p.score}}}"
                for p in self.shape) + "}")
            errs.append(f"shape: Invalid value: {shown}: unexpected field `shape`, remove it or turn on "
                        "the feature gate StorageCapacityScoring")
        return errs

    def validate(self, *, storage_capacity_scoring: bool | None = None) -> None:
        """Raise :class:`~schedframe.PluginArgsError` listing every problem, if any."""
        errs = self.errors(storage_capacity_scoring=storage_capacity_scoring)
        if errs:
            raise PluginArgsError(errs)


ARGS_TYPE: Final = VolumeBindingArgs

#: The default shape with ``StorageCapacityScoring`` on: the least utilised storage scores best.
DEFAULT_CAPACITY_SHAPE: Final = (UtilizationShapePoint(utilization=0, score=MAX_CUSTOM_PRIORITY_SCORE),
                                 UtilizationShapePoint(utilization=100, score=0))


# --------------------------------------------------------------------------------------------
# Matching (component-helpers/storage/volume)


def _volume_mode(mode: str | None) -> str:
    return mode or "Filesystem"


def is_volume_bound_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> bool:
    """Upstream ``IsVolumeBoundToClaim``: the PV's claimRef names the claim (and its UID, if set)."""
    ref = pv.claim_ref
    if ref is None or ref.name != pvc.name or ref.namespace != pvc.namespace:
        return False
    return not ref.uid or ref.uid == pvc.uid


def find_matching_volume(pvc: PersistentVolumeClaim, volumes: Iterable[PersistentVolume],
                         labels: Mapping[str, str] | None, excluded: Iterable[str] = (),
                         delay_binding: bool = True) -> PersistentVolume | None:
    """Upstream ``FindMatchingVolume`` (scheduler path when *labels*, the node's, are given):
    a PV pre-bound to the claim if it is big enough (``None`` when it does not fit the node),
    else the smallest available, unclaimed PV of the claim's class whose labels match the
    claim's selector, with the claim's access modes and volume mode, enough capacity and node
    affinity matching the node."""
    requested = pvc.storage
    requested_class = pvc.storage_class()
    excluded = set(excluded)
    smallest: PersistentVolume | None = None
    for pv in volumes:
        if pv.name in excluded:
            continue
        if _volume_mode(pvc.volume_mode) != _volume_mode(pv.volume_mode):
            continue
        if pv.deletion_timestamp is not None:
            continue
        affinity_ok = labels is None or check_node_affinity(pv, labels)
        if is_volume_bound_to_claim(pv, pvc):
            if pv.storage < requested:
                continue
            return pv if affinity_ok else None
        if labels is None and delay_binding:
            continue
        if pv.phase != "Available" or pv.claim_ref is not None:
            continue
        if pvc.selector is not None and not pvc.selector.matches(pv.labels):
            continue
        if pv.storage_class() != requested_class or not affinity_ok:
            continue
        if labels is not None and not set(pvc.access_modes) <= set(pv.access_modes):
            continue
        if pv.storage >= requested and (smallest is None or smallest.storage > pv.storage):
            smallest = pv
    return smallest


def local_pv_node_names(pv: PersistentVolume) -> frozenset[str]:
    """Upstream ``GetLocalPersistentVolumeNodeNames``: the node names a PV's required node
    affinity lists through ``kubernetes.io/hostname In`` expressions (intersected within a term,
    united across terms)."""
    if pv.node_affinity is None:
        return frozenset()
    out: set[str] = set()
    for term in pv.node_affinity.terms:
        nodes: set[str] | None = None
        for req in term.match_expressions:
            if req.key == _HOSTNAME and req.operator == "In":
                nodes = set(req.values) if nodes is None else nodes & set(req.values)
        out |= nodes or set()
    return frozenset(out)


# --------------------------------------------------------------------------------------------
# State


@final
@attrs.frozen
class PodVolumes:
    """A pod's volume decisions for one node: claims bound to existing PVs (``static_bindings``,
    ``(claim, PV)``) and claims to provision (``dynamic_provisions``)."""

    static_bindings: tuple[tuple[PersistentVolumeClaim, PersistentVolume], ...] = ()
    dynamic_provisions: tuple[PersistentVolumeClaim, ...] = ()


@final
@attrs.frozen
class _Claims:
    bound: tuple[PersistentVolumeClaim, ...]
    unbound_delay: tuple[PersistentVolumeClaim, ...]
    unbound_immediate: tuple[PersistentVolumeClaim, ...]
    pvs_by_class: Mapping[str, tuple[PersistentVolume, ...]]


@final
class _State:
    """Shared across clones, as upstream (Filter runs per node and adds its decisions)."""

    __slots__ = ("all_bound", "by_node", "claims", "has_static_bindings", "lock")

    def __init__(self, claims: _Claims | None) -> None:
        self.claims = claims
        self.by_node: dict[str, PodVolumes] = {}
        self.has_static_bindings = False
        self.all_bound = False
        self.lock = threading.Lock()

    def clone(self) -> _State:
        return self


_STATE_KEY: Final[StateKey[_State]] = StateKey(NAME, NAME)


@final
class VolumeBinding(WithArgs[VolumeBindingArgs]):
    """PreFilter, Filter, PreScore, Score, Reserve and PreBind plugin for PersistentVolumeClaims.

    Args:
        args: the plugin args (defaults: :class:`VolumeBindingArgs`).
        handle: the framework handle (the object store holds the storage objects).
        storage_capacity_scoring: the ``StorageCapacityScoring`` feature gate (off by default,
            as upstream).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.volume_binding"
    __slots__ = ("_args", "_assumed_pvcs", "_assumed_pvs", "_capacity_scoring", "_lock", "_node_conflict",
                 "_objects", "_scorer")

    def __init__(self, args: VolumeBindingArgs | None = None, handle: Handle | None = None, *,
                 storage_capacity_scoring: bool = False) -> None:
        args = VolumeBindingArgs() if args is None else args
        args.validate(storage_capacity_scoring=storage_capacity_scoring)
        self._args = args
        self._objects = VolumeObjects(handle)
        self._assumed_pvs: dict[str, PersistentVolume] = {}
        self._assumed_pvcs: dict[str, PersistentVolumeClaim] = {}
        self._lock = threading.Lock()
        self._scorer = None
        self._capacity_scoring = storage_capacity_scoring
        self._node_conflict = ERR_REASON_NODE_CONFLICT if release_of(handle).has(
            "VolumeBindingNodeAffinityReason") else ERR_REASON_NODE_CONFLICT_1_32
        if storage_capacity_scoring:
            shape = args.shape or DEFAULT_CAPACITY_SHAPE
            self._scorer = broken_linear_function(
                [(p.utilization, p.score * (MAX_NODE_SCORE // MAX_CUSTOM_PRIORITY_SCORE)) for p in shape])

    @property
    def name(self) -> str:
        """``"VolumeBinding"``."""
        return NAME

    def checkpoint(self) -> object:
        """The assume cache: PVs and PVCs assumed bound (StatefulPlugin)."""
        with self._lock:
            return dict(self._assumed_pvs), dict(self._assumed_pvcs)

    def restore(self, state: object) -> None:
        """Put back what :meth:`checkpoint` returned."""
        with self._lock:
            self._assumed_pvs, self._assumed_pvcs = state  # type: ignore[misc]

    # -- the assume cache -------------------------------------------------------------------
    def _pvc(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        assumed = self._assumed_pvcs.get(f"{namespace}/{name}")
        return assumed if assumed is not None else self._objects.pvc(namespace, name)

    def _pv(self, name: str) -> PersistentVolume | None:
        assumed = self._assumed_pvs.get(name)
        return assumed if assumed is not None else self._objects.pv(name)

    def _pvs_of_class(self, class_name: str) -> tuple[PersistentVolume, ...]:
        pvs = {pv.name: pv for pv in self._objects.pvs()}
        with self._lock:  # binding cycles (threaded mode) assume and revert concurrently
            pvs.update(self._assumed_pvs)
        return tuple(pv for _, pv in sorted(pvs.items()) if pv.storage_class() == class_name)

    # -- PreFilter ------------------------------------------------------------------------------
    def _pod_has_pvcs(self, pod: Pod) -> tuple[bool, str | None]:
        has = False
        for v in pod.volumes:
            claim_name = v.claim_name(pod.name)
            if claim_name is None:
                continue
            has = True
            pvc = self._objects.pvc(pod.namespace, claim_name)
            if pvc is None:
                if v.ephemeral is not None:
                    return has, ("waiting for ephemeral volume controller to create the "
                                 f'persistentvolumeclaim "{claim_name}"')
                return has, not_found(PersistentVolumeClaim, claim_name)
            if pvc.phase == "Lost":
                return has, (f'persistentvolumeclaim "{pvc.name}" bound to non-existent '
                             f'persistentvolume "{pvc.volume_name}"')
            if pvc.deletion_timestamp is not None:
                return has, f'persistentvolumeclaim "{pvc.name}" is being deleted'
            if v.ephemeral is not None:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    return has, problem
        return has, None

    def _is_delay_binding(self, pvc: PersistentVolumeClaim) -> bool:
        class_name = pvc.storage_class()
        if not class_name:
            return False
        sc = self._objects.storage_class(class_name)
        if sc is None:
            return False
        if sc.volume_binding_mode is None:
            raise ValueError(f'VolumeBindingMode not set for StorageClass "{class_name}"')
        return sc.volume_binding_mode == _WFFC

    def _pod_volume_claims(self, pod: Pod) -> _Claims:
        bound: list[PersistentVolumeClaim] = []
        delay: list[PersistentVolumeClaim] = []
        immediate: list[PersistentVolumeClaim] = []
        for v in pod.volumes:
            claim_name = v.claim_name(pod.name)
            if claim_name is None:
                continue
            pvc = self._pvc(pod.namespace, claim_name)
            if pvc is None:
                raise LookupError(f'error getting PVC "{pod.namespace}/{claim_name}": '
                                  f"{not_found(PersistentVolumeClaim, claim_name)}")
            if v.ephemeral is not None:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    raise ValueError(problem)
            if pvc.is_fully_bound():
                bound.append(pvc)
            elif self._is_delay_binding(pvc) and not pvc.volume_name:
                delay.append(pvc)
            else:
                immediate.append(pvc)
        by_class = {pvc.storage_class(): self._pvs_of_class(pvc.storage_class()) for pvc in delay}
        return _Claims(tuple(bound), tuple(delay), tuple(immediate), by_class)

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Check the pod's claims exist and immediate ones are bound; SKIP a pod without claims."""
        has, problem = self._pod_has_pvcs(pod)
        if problem is not None:
            return None, Status.unresolvable(problem)
        if not has:
            state.write(_STATE_KEY, _State(None))
            return None, Status.skip()
        try:
            claims = self._pod_volume_claims(pod)
        except (LookupError, ValueError) as exc:
            return None, Status.from_error(exc)
        if claims.unbound_immediate:
            return None, Status.unresolvable(ERR_REASON_UNBOUND_IMMEDIATE)
        state.write(_STATE_KEY, _State(claims))
        # no PreFilterResult: kube-scheduler 1.32 to 1.37 has no GetEligibleNodes (a bound local
        # PV's node is found by Filter, which rejects the others with its own reason)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None."""
        return None

    # -- Filter ---------------------------------------------------------------------------------
    def find_pod_volumes(self, pod: Pod, claims: _Claims,
                         node_name: str, labels: Mapping[str, str]) -> tuple[PodVolumes, list[str]]:
        """Upstream ``FindPodVolumes``: the pod's volume decisions on a node, and the reasons
        it does not fit there (empty when it does).

        Raises:
            LookupError: a claim to provision names no class, or a class that does not exist.
        """
        bound_ok = unbound_ok = enough_space = pvs_found = True
        static: list[tuple[PersistentVolumeClaim, PersistentVolume]] = []
        dynamic: list[PersistentVolumeClaim] = []
        for pvc in claims.bound:  # checkBoundClaims
            pv = self._pv(pvc.volume_name)
            if pv is None:
                pvs_found = False
                break
            if not check_node_affinity(pv, labels):
                bound_ok = False
                break
        done = False
        if claims.unbound_delay:
            to_match: list[PersistentVolumeClaim] = []
            to_provision: list[PersistentVolumeClaim] = []
            for pvc in claims.unbound_delay:
                selected = pvc.annotations.get(ANN_SELECTED_NODE)
                if selected is not None:
                    if selected != node_name:
                        unbound_ok = False  # fast path: provisioning was started for another node
                        done = True
                        break
                    to_provision.append(pvc)
                else:
                    to_match.append(pvc)
            if not done and to_match:  # findMatchingVolumes
                chosen: set[str] = set()
                for pvc in sorted(to_match, key=lambda c: c.storage):
                    pv = find_matching_volume(pvc, claims.pvs_by_class.get(pvc.storage_class(), ()),
                                              labels, chosen)
                    if pv is None:
                        to_provision.append(pvc)
                        unbound_ok = False
                        continue
                    chosen.add(pv.name)
                    static.append((pvc, pv))
            if not done and to_provision:  # checkVolumeProvisions
                unbound_ok, enough_space, dynamic = self._check_provisions(to_provision, labels)
        reasons = []
        if not bound_ok:
            reasons.append(self._node_conflict)
        if not unbound_ok:
            reasons.append(ERR_REASON_BIND_CONFLICT)
        if not enough_space:
            reasons.append(ERR_REASON_NOT_ENOUGH_SPACE)
        if not pvs_found:
            reasons.append(ERR_REASON_PV_NOT_EXIST)
        return PodVolumes(tuple(static), tuple(dynamic)), reasons

    def _check_provisions(self, claims: Sequence[PersistentVolumeClaim],
                          labels: Mapping[str, str]) -> tuple[bool, bool, list[PersistentVolumeClaim]]:
        out: list[PersistentVolumeClaim] = []
        for pvc in claims:
            class_name = pvc.storage_class()
            if not class_name:
                raise LookupError(f'no class for claim "{pvc.key}"')
            sc = self._objects.storage_class(class_name)
            if sc is None:
                raise LookupError(f'failed to find storage class "{class_name}"')
            if not sc.provisioner or sc.provisioner == NOT_SUPPORTED_PROVISIONER:
                return False, True, []
            if not sc.matches_topology(labels):
                return False, True, []
            out.append(pvc)
        return True, True, out

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """The pod's bound claims must fit the node and its unbound ones be bindable there."""
        try:
            s = state.read(_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        node = node_info.node
        if s.claims is None or node is None:
            return None
        try:
            volumes, reasons = self.find_pod_volumes(pod, s.claims, node.name, node.labels)
        except LookupError as exc:
            return Status.from_error(exc)
        if reasons:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, tuple(reasons))
        with s.lock:
            s.by_node[node.name] = volumes
            s.has_static_bindings = s.has_static_bindings or bool(volumes.static_bindings)
        return None

    # -- Score ----------------------------------------------------------------------------------
    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """SKIP unless capacity scoring is on and the pod binds existing PVs."""
        if self._scorer is None:
            return Status.skip()
        if self._capacity_scoring:
            return None  # upstream scores every pod then (0 for a pod without claims)
        try:
            s = state.read(_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        return None if s.has_static_bindings else Status.skip()

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The mean over storage classes of the shape at the PVs' utilisation by the claims."""
        if self._scorer is None:
            return 0, None
        try:
            s = state.read(_STATE_KEY)
        except StateNotFoundError as exc:
            if self._capacity_scoring:
                return 0, None  # a pod without claims (upstream: its empty state)
            return 0, Status.from_error(exc)
        volumes = s.by_node.get(node_info.name)
        if volumes is None:
            return 0, None
        by_class: dict[str, list[int]] = {}
        for pvc, pv in volumes.static_bindings:
            acc = by_class.setdefault(pv.storage_class_name, [0, 0])
            acc[0] += pvc.storage
            acc[1] += pv.storage
        if not by_class:
            return 0, None
        f = self._scorer
        total = 0
        for requested, capacity in by_class.values():
            if capacity == 0 or requested > capacity:
                total += f(_MAX_UTILIZATION)
            else:
                total += f(requested * _MAX_UTILIZATION // capacity)
        n = len(by_class)
        q, r = divmod(total, n)  # math.Round of a non-negative mean
        return (q + 1 if 2 * r >= n else q), None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node (:class:`~schedframe.BatchScorePlugin`): zeros in one step
        for a pod without claims, or when no node has static bindings."""
        if self._scorer is None:
            return [0] * len(nodes)
        try:
            s = state.read(_STATE_KEY)
        except StateNotFoundError as exc:
            if self._capacity_scoring:
                return [0] * len(nodes)
            return Status.from_error(exc)
        if not s.by_node:
            return [0] * len(nodes)
        return score_each(self, state, pod, nodes)

    def score_extensions(self) -> ScoreExtensions | None:
        """None."""
        return None

    # -- Reserve / PreBind ------------------------------------------------------------------------
    def _all_bound(self, pod: Pod) -> bool:
        for v in pod.volumes:
            claim_name = v.claim_name(pod.name)
            if claim_name is None:
                continue
            pvc = self._pvc(pod.namespace, claim_name)
            if pvc is None or not pvc.is_fully_bound():
                return False
        return True

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Assume the node's bindings: the PVs prebound to their claims, the claims to provision
        annotated with the node (upstream ``AssumePodVolumes``)."""
        try:
            s = state.read(_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        volumes = s.by_node.get(node_name)
        if volumes is None:
            s.all_bound = True  # the pod references no claim
            return None
        if self._all_bound(pod):
            s.all_bound = True
            return None
        static = []
        with self._lock:
            for pvc, pv in volumes.static_bindings:
                new_pv = _bind_volume_to_claim(pv, pvc)
                if new_pv is not pv:
                    self._assumed_pvs[new_pv.name] = new_pv
                static.append((pvc, new_pv))
            dynamic = []
            for pvc in volumes.dynamic_provisions:
                annotated = pvc.evolve(annotations={**pvc.annotations, ANN_SELECTED_NODE: node_name})
                self._assumed_pvcs[pvc.key] = annotated
                dynamic.append(annotated)
        s.by_node[node_name] = PodVolumes(tuple(static), tuple(dynamic))
        s.all_bound = False
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Revert the assumed bindings (idempotent)."""
        s = state.get(_STATE_KEY)
        if s is None:
            return
        volumes = s.by_node.get(node_name)
        if volumes is None:
            return
        self._revert(volumes)

    def _revert(self, volumes: PodVolumes) -> None:
        with self._lock:
            for _, pv in volumes.static_bindings:
                self._assumed_pvs.pop(pv.name, None)
            for pvc in volumes.dynamic_provisions:
                self._assumed_pvcs.pop(pvc.key, None)

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Write the bindings to the object store, doing the PV controller's and the
        provisioner's part as they would on success (see the module)."""
        try:
            s = state.read(_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        if s.all_bound:
            return None
        volumes = s.by_node.get(node_name)
        if volumes is None:
            return Status.from_error(LookupError(f'no pod volumes found for node "{node_name}"'))
        lister: Any = self._objects.lister
        add: Callable[[Any], Any] | None = getattr(lister, "add", None)
        if not callable(add):
            self._revert(volumes)
            return Status.from_error(TypeError("binding volumes: the object store is read-only"))
        try:
            for pvc, pv in volumes.static_bindings:
                add(pv.evolve(phase="Bound"))
                add(_bound_claim(self._objects.pvc(pvc.namespace, pvc.name) or pvc, pv.name))
            for pvc in volumes.dynamic_provisions:
                current = self._objects.pvc(pvc.namespace, pvc.name) or pvc
                annotated = current.evolve(annotations={**current.annotations,
                    ANN_SELECTED_NODE: node_name})
                pv = self._provision(annotated, node_name)
                add(pv)
                add(_bound_claim(annotated, pv.name))
        finally:
            self._revert(volumes)  # the store holds the truth now
        return None

    def _provision(self, pvc: PersistentVolumeClaim, node_name: str) -> PersistentVolume:
        sc = self._objects.storage_class(pvc.storage_class())
        provisioner = sc.provisioner if sc is not None else ""
        affinity = None
        node_labels = self._node_labels(node_name)
        if node_labels is not None:
            keys = provisioned_topology_keys(self._objects.csi_node(node_name), sc, provisioner, node_labels)
            reqs = tuple(NodeSelectorRequirement(k, "In", (node_labels[k],))
                         for k in keys if k in node_labels)
            if reqs:
                affinity = NodeSelector((NodeSelectorTerm(reqs),))
        return PersistentVolume(
            name=f"pvc-{pvc.uid}",
            annotations={_ANN_PROVISIONED_BY: provisioner} if provisioner else {},
            capacity={"storage": pvc.requests["storage"]} if "storage" in pvc.requests else {},
            access_modes=pvc.access_modes,
            storage_class_name=pvc.storage_class(),
            volume_mode=pvc.volume_mode,
            claim_ref=_claim_ref(pvc),
            node_affinity=affinity,
            persistent_volume_reclaim_policy=sc.reclaim_policy if sc is not None else "Delete",
            phase="Bound",
        )

    def _node_labels(self, node_name: str) -> Mapping[str, str] | None:
        handle = self._objects._handle
        if handle is None:
            return None
        ni = handle.snapshot_shared_lister().node_infos().get(node_name)
        return ni.node.labels if ni is not None and ni.node is not None else None

    # -- events ---------------------------------------------------------------------------------
    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """StorageClass, PVC, CSINode, CSIDriver changes (hinted); PV changes and node added or
        relabelled (always requeue)."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, _ADD_OR_UPDATE),
                                 self.is_schedulable_after_storage_class_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM,
                                              _ADD_OR_UPDATE),
                                 self.is_schedulable_after_pvc_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, _ADD_OR_UPDATE)),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, _NODE_ADD_OR_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, _ADD_OR_UPDATE),
                                 self.is_schedulable_after_csi_node_change),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_DRIVER, ActionType.UPDATE),
                                 self.is_schedulable_after_csi_driver_change),
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_STORAGE_CAPACITY,
                                              _ADD_OR_UPDATE)),
        )

    def is_schedulable_after_csi_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE for a new CSINode, or a change of its migrated-plugins annotation."""
        if old_obj is None:
            return QueueingHint.QUEUE
        old, new = as_objects(CSINode, old_obj, new_obj)
        if old is None or new is None or old.migrated_plugins() != new.migrated_plugins():
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pvc_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the claim is one of the pod's."""
        return is_schedulable_after_claim_change(pod, old_obj, new_obj, ephemeral=True)

    def is_schedulable_after_storage_class_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE for a new class, or a change of its allowed topologies."""
        old, new = as_objects(StorageClass, old_obj, new_obj)
        if old is None:
            return QueueingHint.QUEUE
        if new is None or new.allowed_topologies != old.allowed_topologies:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_csi_driver_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when a driver of the pod's inline CSI volumes stopped tracking capacity."""
        old, new = as_objects(CSIDriver, old_obj, new_obj)
        if old is None or new is None:
            return QueueingHint.QUEUE
        for v in pod.volumes:
            if v.csi is None or v.csi.driver != new.name:
                continue
            if old.storage_capacity and not new.storage_capacity:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


def provisioned_topology_keys(csi_node: CSINode | None, sc: StorageClass | None, provisioner: str,
                              node_labels: Mapping[str, str]) -> tuple[str, ...]:
    """The node label keys a volume provisioned for a node is pinned to (its PV's node affinity
    requires the node's values of them):

    * the provisioner's ``topologyKeys`` when the node's CSINode lists the driver (none: the
      volume is reachable from every node);
    * else the keys the class's ``allowedTopologies`` name;
    * else ``topology.kubernetes.io/zone`` when the node has that label.

    The last two stand in for a CSI driver's accessible topology, which schedframe cannot ask:
    a zonal disk is the common case.
    """
    if csi_node is not None:
        for d in csi_node.drivers:
            if d.name == provisioner:
                return tuple(d.topology_keys)
    if sc is not None and sc.allowed_topologies:
        keys: dict[str, None] = {}
        for term in sc.allowed_topologies:
            for req in term.match_label_expressions:
                keys[req.key] = None
        return tuple(keys)
    return (_LABEL_ZONE,) if _LABEL_ZONE in node_labels else ()


def _claim_ref(pvc: PersistentVolumeClaim) -> ObjectReference:
    return ObjectReference(name=pvc.name, namespace=pvc.namespace, uid=pvc.uid, kind="PersistentVolumeClaim",
                           api_version="v1")


def _bind_volume_to_claim(pv: PersistentVolume, pvc: PersistentVolumeClaim) -> PersistentVolume:
    """Upstream ``GetBindVolumeToClaim``: *pv* with its claimRef on *pvc* and marked bound by
    the controller; *pv* itself when nothing changes."""
    bound_by_user = is_volume_bound_to_claim(pv, pvc)
    out = pv
    ref = pv.claim_ref
    if ref is None or ref.name != pvc.name or ref.namespace != pvc.namespace or ref.uid != pvc.uid:
        out = out.evolve(claim_ref=_claim_ref(pvc))
    if not bound_by_user and ANN_BOUND_BY_CONTROLLER not in out.annotations:
        out = out.evolve(annotations={**out.annotations, ANN_BOUND_BY_CONTROLLER: "yes"})
    return out


def _bound_claim(pvc: PersistentVolumeClaim, pv_name: str) -> PersistentVolumeClaim:
    """*pvc* as the PV controller leaves it once bound to *pv_name*."""
    ann = dict(pvc.annotations)
    ann[ANN_BIND_COMPLETED] = "yes"
    if not pvc.volume_name:
        ann[ANN_BOUND_BY_CONTROLLER] = "yes"
    return pvc.evolve(volume_name=pv_name, phase="Bound", annotations=ann)


def new(args: object, handle: Handle) -> VolumeBinding:
    """The VolumeBinding factory.

    Args:
        args: ``None`` (defaults), a :class:`VolumeBindingArgs`, or the camelCase mapping.
        handle: the framework handle.

    Raises:
        PluginArgsError: when *args* has the wrong type or is invalid.
    """
    args = plugin_args(args, VolumeBindingArgs, validate=False)
    release = release_of(handle)
    on = release.feature_gates.get("StorageCapacityScoring", False)
    return VolumeBinding(args.defaulted(release), handle, storage_capacity_scoring=on)


if TYPE_CHECKING:
    _p = VolumeBinding()
    _pre_filter: PreFilterPlugin = _p
    _filter: FilterPlugin = _p
    _pre_score: PreScorePlugin = _p
    _score: ScorePlugin = _p
    _batch_score: BatchScorePlugin = _p
    _reserve: ReservePlugin = _p
    _pre_bind: PreBindPlugin = _p
    _enqueue: EnqueueExtensions = _p
