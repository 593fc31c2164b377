"""DynamicResources: Dynamic Resource Allocation with structured parameters (``resource.k8s.io/v1``,
Kubernetes 1.34+).

PreEnqueue waits for the pod's ResourceClaims to exist; PreFilter gathers them (claims generated
from ResourceClaimTemplates are created as the resourceclaim controller would, named
``<pod>-<pod claim>-<5 characters>``), checks the device classes and prepares the allocator;
Filter checks allocated claims' node selectors and allocates the others on the node; PostFilter
deallocates an allocated claim that is unavailable on some node and used by no other pod;
Reserve keeps the node's allocation in flight; Unreserve drops it (and the pod's reservation);
PreBind writes the allocation, the finalizer and ``status.reservedFor`` into the claim in the
object store.

Upstream: ``pkg/scheduler/framework/plugins/dynamicresources/dynamicresources.go`` and the
allocator ``staging/src/k8s.io/dynamic-resource-allocation/structured``.
"""

from __future__ import annotations

import hashlib
import re
import threading
import time
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

import attrs

from ...api.frozendict import FrozenDict
from ...api.objects import OwnerReference, Pod, PodResourceClaim
from ...api.resource import (
    FINALIZER,
    AllocationResult,
    DeviceClass,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
    ResourceSlice,
)
from ...errors import PluginArgsError
from ...framework.cycle_state import StateKey
from ...framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ...framework.registry import plugin_args
from ...framework.releases import release_of
from ...framework.status import Code, Status
from ...framework.waiting_pods import format_go_duration
from .. import names
from .._helpers import (
    FieldErrors,
    NormalizedByHighest,
    as_objects,
    node_not_found,
    own_update,
    score_each,
)
from ._allocator import AllocationError, AllocationTimeout, Allocator, allocated_devices

if TYPE_CHECKING:
    from ...cache.nodeinfo import NodeInfo
    from ...framework.cycle_state import CycleState
    from ...framework.handle import Handle
    from ...framework.interfaces import (
        BatchScorePlugin,
        EnqueueExtensions,
        FilterPlugin,
        NodeToStatus,
        PostFilterPlugin,
        PostFilterResult,
        PreBindPlugin,
        PreEnqueuePlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreFilterResult,
        ReservePlugin,
        ScorePlugin,
    )

__all__ = [
    "ARGS_TYPE",
    "NAME",
    "REASON_TIMED_OUT",
    "POD_CLAIM_NAME_ANNOTATION",
    "REASON_CANNOT_ALLOCATE",
    "REASON_CLAIM_IN_USE",
    "REASON_CLAIM_NOT_CREATED",
    "REASON_DEALLOCATED",
    "REASON_NOT_AVAILABLE_ON_NODE",
    "REASON_NO_CLAIMS_TO_DEALLOCATE",
    "REASON_STATE_NOT_FOUND",
    "REASON_STILL_NOT_SCHEDULABLE",
    "DynamicResources",
    "DynamicResourcesArgs",
    "DynamicResourcesWithScore",
    "generated_claim_name",
    "new",
]

NAME: Final = names.DYNAMIC_RESOURCES

_DURATION_RE: Final = re.compile(r"([0-9]*\.?[0-9]+)(ns|us|µs|ms|s|m|h)")
_UNITS: Final = {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "m": 60.0, "h": 3600.0}


def _parse_duration(value: Any, path: str, errs: FieldErrors) -> float | None:
    """A Go duration string (``"10s"``, ``"1m30s"``, ``"500ms"``) in seconds."""
    if not isinstance(value, str):
        errs.add(f"{path}: must be a duration string such as \"10s\", got {value!r}")
        return None
    text = value[1:] if value[:1] in "+-" else value
    if text == "0":
        return 0.0
    pos, total = 0, 0.0
    while pos < len(text):
        m = _DURATION_RE.match(text, pos)
        if m is None:
            break
        total += float(m.group(1)) * _UNITS[m.group(2)]
        pos = m.end()
    if not text or pos != len(text):
        errs.add(f"{path}: invalid duration {value!r}")
        return None
    return -total if value.startswith("-") else total


def _duration(value: Any, path: str) -> float:
    errs = FieldErrors()
    seconds = _parse_duration(value, path, errs)
    if seconds is None:
        raise PluginArgsError(errs.errors)
    return seconds


#: a ``metav1.Duration`` field: a Go duration string, in seconds
_DURATION: Final = {"decode": _duration, "encode": format_go_duration}


@final
@attrs.frozen(kw_only=True)
class DynamicResourcesArgs:
    """Args of the DynamicResources plugin (upstream ``DynamicResourcesArgs``).

    Attributes:
        filter_timeout: seconds the device search may take per node in Filter before the node
            is rejected with :data:`REASON_TIMED_OUT` (default 10; 0 disables the timeout).
        binding_timeout: upstream's wait for device binding conditions in PreBind (default 600;
            ``None`` before Kubernetes 1.36, which has no such field); accepted and validated,
            without effect: binding conditions are not modelled.

    .. versionadded:: 0.1.0
    """

    filter_timeout: float = attrs.field(default=10.0, metadata=_DURATION)
    binding_timeout: float | None = attrs.field(default=600.0, metadata=_DURATION)

    KIND: ClassVar[str] = "DynamicResourcesArgs"

    #: fields a release has only from some release on (the release difference naming it)
    FIELDS_SINCE: ClassVar[Mapping[str, str]] = FrozenDict(
        {"bindingTimeout": "DynamicResourcesBindingTimeout"})

    def defaulted(self, release: Any) -> DynamicResourcesArgs:
        """The args of *release*: no ``bindingTimeout`` before Kubernetes 1.36."""
        if self.binding_timeout is not None and not release.has("DynamicResourcesBindingTimeout"):
            return attrs.evolve(self, binding_timeout=None)
        return self

    def errors(self) -> list[str]:
        """Every validation error, with field paths."""
        errs = FieldErrors()
        if self.filter_timeout < 0:
            errs.invalid("filterTimeout", format_go_duration(self.filter_timeout), "must be zero or positive")
        if self.binding_timeout is not None and self.binding_timeout < 1:
            errs.invalid("bindingTimeout", format_go_duration(self.binding_timeout), "must be at least 1s")
        return errs.errors

ARGS_TYPE: Final = DynamicResourcesArgs

#: Filter: an allocated claim's node selector excludes the node.
REASON_NOT_AVAILABLE_ON_NODE: Final = "resourceclaim not available on the node"
#: Filter: the devices on the node do not satisfy the claims.
REASON_CANNOT_ALLOCATE: Final = "cannot allocate all claims"
#: PreFilter: an allocated claim cannot be reserved for another pod.
REASON_CLAIM_IN_USE: Final = "resourceclaim in use"
#: PostFilter: the pod has no claims (up to 1.36 every pod without claims gets this in its
#: message).
REASON_NO_CLAIMS_TO_DEALLOCATE: Final = "no new claims to deallocate"
#: PostFilter: the cycle state PreFilter writes is missing (upstream's ``fwk.ErrNotFound``).
REASON_STATE_NOT_FOUND: Final = "not found"
#: PostFilter: no claim could be deallocated (up to 1.36; 1.37 says nothing).
REASON_STILL_NOT_SCHEDULABLE: Final = "still not schedulable"
#: Filter: the device search exceeded ``filterTimeout`` on the node.
REASON_TIMED_OUT: Final = "timed out trying to allocate devices"
#: PostFilter: a claim was deallocated, so the next attempt can allocate it elsewhere.
REASON_DEALLOCATED: Final = "deallocation of ResourceClaim completed"
#: The end of PreEnqueue's reason when a claim from a template does not exist yet.
REASON_CLAIM_NOT_CREATED: Final = "ResourceClaim not created yet"
#: The annotation the resourceclaim controller puts on claims it generates (the pod claim name).
POD_CLAIM_NAME_ANNOTATION: Final = "resource.kubernetes.io/pod-claim-name"

_STATE_KEY: Final[StateKey[_StateData]] = StateKey(f"PreFilter{NAME}", NAME)
_NAME_CHARS: Final = "bcdfghjklmnpqrstvwxz2456789"  # apiserver's generateName alphabet
_MAX_BASE_LEN: Final = 57


def generated_claim_name(pod: Pod, pod_claim_name: str) -> str:
    """The name the resourceclaim controller gives the claim it generates for *pod*'s
    ``spec.resourceClaims[name=pod_claim_name]``: ``<pod>-<pod claim>-`` (both truncated in
    proportion when longer than 57 characters) plus 5 characters, here derived from the pod's
    UID so that runs are reproducible."""
    base = f"{pod.name}-{pod_claim_name}-"
    if len(base) > _MAX_BASE_LEN:
        base = (pod.name[:len(pod.name) * _MAX_BASE_LEN // len(base)] + "-"
                + pod_claim_name[:len(pod_claim_name) * _MAX_BASE_LEN // len(base)])
    digest = hashlib.sha256(f"{pod.uid}/{pod_claim_name}".encode()).digest()
    return base + "".join(_NAME_CHARS[b % len(_NAME_CHARS)] for b in digest[:5])


class _NotSchedulable(Exception):
    pass


@final
class _StateData:
    """What PreFilter found, shared by the later points of the cycle (upstream ``stateData``;
    cloning returns the same object, as upstream's ``Clone``)."""

    __slots__ = ("allocations", "allocator", "available_on", "claims", "reserved", "unavailable")

    def __init__(self) -> None:
        self.claims: list[ResourceClaim] = []
        self.allocator: Allocator | None = None
        self.available_on: list[Any] = []
        self.allocations: dict[str, list[AllocationResult]] = {}
        self.unavailable: set[int] = set()
        self.reserved: dict[int, AllocationResult] = {}

    def clone(self) -> _StateData:
        return self


class DynamicResources:
    """The DynamicResources plugin (PreEnqueue, PreFilter, Filter, PostFilter, Reserve,
    PreBind, EnqueueExtensions).

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_args", "_handle", "_in_flight", "_lock", "_write_lock")

    def __init__(self, handle: Handle | None = None, args: DynamicResourcesArgs | None = None) -> None:
        self._handle = handle
        self._args = args if args is not None else DynamicResourcesArgs()
        self._lock = threading.Lock()
        #: serialises read-modify-write of claims in the store (upstream: resourceVersion checks)
        self._write_lock = threading.RLock()
        #: claim uid -> the claim with the allocation Reserve made, until PreBind wrote it
        self._in_flight: dict[str, ResourceClaim] = {}

    @property
    def name(self) -> str:
        """``"DynamicResources"``."""
        return NAME

    def checkpoint(self) -> object:
        """The claims allocated in flight, not yet written (StatefulPlugin)."""
        with self._lock:
            return dict(self._in_flight)

    def restore(self, state: object) -> None:
        """Put back what :meth:`checkpoint` returned."""
        with self._lock:
            self._in_flight = state  # type: ignore[assignment]

    # -- object access --------------------------------------------------------------------

    def _objects(self) -> Any:
        if self._handle is None:
            from ...cache.store import ObjectStore
            return ObjectStore()
        return self._handle.objects

    def _get(self, kind: type[Any], name: str, namespace: str = "") -> Any:
        objects = self._objects()
        get = getattr(objects, "get", None)
        if get is not None:
            return get(kind, name, namespace)
        for obj in objects.list(kind, namespace or None):
            if obj.name == name:
                return obj
        return None

    def _store(self, obj: Any, *, notify: bool = True) -> None:
        add = getattr(self._objects(), "add", None)
        if add is None:
            raise RuntimeError("the handle's object lister cannot store objects (it has no add())")
        if notify:
            add(obj)
        else:
            add(obj, notify=False)

    # -- claims of a pod ------------------------------------------------------------------

    def _claim_name(self, pod: Pod, pc: PodResourceClaim, generate: bool) -> tuple[str | None, bool]:
        """Upstream ``resourceclaim.Name``, with the resourceclaim controller's job done here
        when *generate*: a claim from a template is looked up (or created) by owner and pod
        claim name annotation."""
        if pc.resource_claim_name is not None:
            return pc.resource_claim_name, False
        if pc.resource_claim_template_name is not None:
            for st in pod.resource_claim_statuses:
                if st.name == pc.name:
                    return st.resource_claim_name, True
            if generate:
                name = self._generate(pod, pc, pc.resource_claim_template_name)
                if name is not None:
                    return name, True
            raise _NotSchedulable(f'pod "{pod.namespace}/{pod.name}": {REASON_CLAIM_NOT_CREATED}')
        raise _NotSchedulable(f'pod "{pod.namespace}/{pod.name}", spec.resourceClaim "{pc.name}": '
                              "none of the supported fields are set")

    def _generate(self, pod: Pod, pc: PodResourceClaim, template_name: str) -> str | None:
        for claim in self._objects().list(ResourceClaim, pod.namespace):
            if claim.annotations.get(POD_CLAIM_NAME_ANNOTATION) == pc.name and _controlled_by(claim, pod):
                return str(claim.name)
        template = self._get(ResourceClaimTemplate, template_name, pod.namespace)
        if template is None or getattr(self._objects(), "add", None) is None:
            return None
        claim = ResourceClaim(
            name=generated_claim_name(pod, pc.name), namespace=pod.namespace,
            labels=template.claim_labels,
            annotations={**template.claim_annotations, POD_CLAIM_NAME_ANNOTATION: pc.name},
            owner_references=(OwnerReference("Pod", pod.name, pod.uid, "v1", controller=True),),
            requests=template.requests, constraints=template.constraints, config=template.config)
        # as if the controller had created it before the pod reached the queue: no event
        self._store(claim, notify=False)
        return claim.name

    def _pod_claims(self, pod: Pod, generate: bool) -> list[ResourceClaim]:
        """Upstream ``foreachPodResourceClaim``; raises :class:`_NotSchedulable`."""
        claims: list[ResourceClaim] = []
        for pc in pod.resource_claims:
            name, check_owner = self._claim_name(pod, pc, generate)
            if name is None:
                continue
            claim = self._get(ResourceClaim, name, pod.namespace)
            if claim is None:
                raise _NotSchedulable(f'resourceclaim.resource.k8s.io "{name}" not found')
            if claim.deletion_timestamp is not None:
                raise _NotSchedulable(f'resourceclaim "{claim.name}" is being deleted')
            if check_owner and (claim.namespace != pod.namespace or not _controlled_by(claim, pod)):
                raise _NotSchedulable(f"ResourceClaim {claim.namespace}/{claim.name} was not created for pod "
                                      f"{pod.namespace}/{pod.name} (pod is not owner)")
            claims.append(claim)
        return claims

    # -- PreEnqueue -----------------------------------------------------------------------

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Wait (``UNSCHEDULABLE_AND_UNRESOLVABLE``) until every claim of the pod exists."""
        if not pod.resource_claims:
            return None
        try:
            self._pod_claims(pod, generate=True)
        except _NotSchedulable as exc:
            return Status.unresolvable(str(exc))
        return None

    # -- PreFilter ------------------------------------------------------------------------

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Gather the pod's claims, check their classes, and prepare the allocator; SKIP for a
        pod without claims. The state is written first either way, as upstream's (PostFilter
        tells "no claims" from "PreFilter never ran")."""
        s = _StateData()
        state.write(_STATE_KEY, s)
        if not pod.resource_claims:
            return None, Status.skip()
        try:
            claims = self._pod_claims(pod, generate=True)
        except _NotSchedulable as exc:
            return None, Status.unresolvable(str(exc))
        if not claims:
            return None, Status.skip()
        to_allocate: list[ResourceClaim] = []
        classes: dict[str, DeviceClass] = {}
        s.available_on = [None] * len(claims)
        for i, claim in enumerate(claims):
            if claim.allocation is not None:
                s.available_on[i] = claim.allocation.node_selector
                continue
            with self._lock:
                pending = claim.uid in self._in_flight
            if pending:
                return None, Status.unresolvable(
                    f"resource claim {claim.namespace}/{claim.name} is in the process of being allocated")
            for req in claim.requests:
                wanted = [(req.name, req.exactly.device_class_name)] if req.exactly is not None else [
                    (f"{req.name}/{sub.name}", sub.device_class_name) for sub in req.first_available]
                for request_name, class_name in wanted:
                    cls = self._get(DeviceClass, class_name)
                    if cls is None:
                        return None, Status.unresolvable(
                            f"request {request_name}: device class {class_name} does not exist")
                    classes[class_name] = cls
            to_allocate.append(claim)
        if to_allocate:
            objects = self._objects()
            with self._lock:
                in_flight = list(self._in_flight.values())
            stored = [c for c in objects.list(ResourceClaim) if c.uid not in {f.uid for f in in_flight}]
            allocated = allocated_devices([*stored, *in_flight])
            s.allocator = Allocator(to_allocate, allocated, classes, objects.list(ResourceSlice))
        s.claims = claims
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None: the result does not depend on other pods."""
        return None

    # -- Filter ---------------------------------------------------------------------------

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Check allocated claims' node selectors, then allocate the rest on this node."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims:
            return None
        node = node_info.node
        if node is None:
            return node_not_found()
        unavailable = [i for i, sel in enumerate(s.available_on)
                       if s.claims[i].allocation is not None and sel is not None
                       and not sel.matches(node.name, node.labels)]
        allocations: list[AllocationResult] | None = None
        if s.allocator is not None:
            timeout = self._args.filter_timeout
            try:
                deadline = time.monotonic() + timeout if timeout > 0 else None
                allocations = s.allocator.allocate(node, deadline=deadline)
            except AllocationTimeout:
                return Status.unresolvable(REASON_TIMED_OUT)
            except AllocationError as exc:
                return Status(Code.ERROR, (exc.message,))
            if allocations is None:
                return Status.unresolvable(REASON_CANNOT_ALLOCATE)
        if unavailable:
            s.unavailable.update(unavailable)
            return Status.unresolvable(REASON_NOT_AVAILABLE_ON_NODE)
        if allocations is not None:
            s.allocations[node.name] = allocations
        return None

    # -- PostFilter -----------------------------------------------------------------------

    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]:
        """Deallocate one allocated claim that was unavailable on some node and is reserved for
        no other pod, so the next attempt can allocate it elsewhere."""
        s = state.get(_STATE_KEY)
        if s is None:
            # PreFilter never ran (another plugin's PreFilter rejected the pod first): upstream
            # fails reading its state, an ERROR that ends PostFilter (no preemption either)
            return None, Status(Code.ERROR, (REASON_STATE_NOT_FOUND,))
        quiet = release_of(self._handle).has("DynamicResourcesQuietPostFilter")
        if not s.claims:
            if quiet:
                return None, Status(Code.UNSCHEDULABLE)
            return None, Status.unschedulable(REASON_NO_CLAIMS_TO_DEALLOCATE)
        for i in sorted(s.unavailable):
            claim = s.claims[i]
            reserved = claim.reserved_for
            if not reserved or (len(reserved) == 1 and reserved[0].uid == pod.uid):
                with self._write_lock:
                    current = self._get(ResourceClaim, claim.name, claim.namespace) or claim
                    self._store(current.evolve(allocation=None, reserved_for=()))
                return None, Status.unschedulable(REASON_DEALLOCATED)
        if quiet:
            return None, Status(Code.UNSCHEDULABLE)
        return None, Status.unschedulable(REASON_STILL_NOT_SCHEDULABLE)

    # -- Reserve / Unreserve ----------------------------------------------------------------

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Keep this node's allocation of the unallocated claims in flight (so no other pod
        gets their devices) until PreBind writes it."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims or s.allocator is None:
            return None
        allocations = s.allocations.get(node_name)
        if allocations is None:
            return Status(Code.ERROR, ("claim allocation not found for node",))
        pending = s.allocator.claims
        if len(allocations) != len(pending):
            return Status(Code.ERROR, (f"internal error, have {len(allocations)} allocations, "
                                       f"{len(pending)} claims to allocate",))
        with self._lock:
            for claim, allocation in zip(pending, allocations):
                index = next(i for i, c in enumerate(s.claims) if c.uid == claim.uid)
                s.reserved[index] = allocation
                finalizers = (claim.finalizers if FINALIZER in claim.finalizers
                              else (*claim.finalizers, FINALIZER))
                self._in_flight[claim.uid] = claim.evolve(allocation=allocation, finalizers=finalizers)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Drop in-flight allocations and remove the pod from the claims' ``reservedFor``."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims:
            return
        for claim in s.claims:
            with self._lock:
                self._in_flight.pop(claim.uid, None)
            if claim.allocation is not None and claim.is_reserved_for(pod.uid):
                with self._write_lock:
                    current = self._get(ResourceClaim, claim.name, claim.namespace)
                    if current is not None and current.uid == claim.uid:
                        self._store(current.evolve(
                            reserved_for=tuple(r for r in current.reserved_for if r.uid != pod.uid)))

    # -- PreBind --------------------------------------------------------------------------

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Write the allocation (with the finalizer) and the pod's reservation into each claim
        not yet reserved for the pod."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims:
            return None
        for index, claim in enumerate(s.claims):
            if claim.is_reserved_for(pod.uid):
                continue
            try:
                s.claims[index] = self._bind_claim(s, index, pod)
            except _BindError as exc:
                return Status(Code.ERROR, (str(exc),))
        return None

    def _bind_claim(self, s: _StateData, index: int, pod: Pod) -> ResourceClaim:
        claim = s.claims[index]
        allocation = s.reserved.get(index)
        try:
            with self._write_lock:
                return self._write_binding(claim, allocation, pod)
        finally:
            if allocation is not None:
                with self._lock:
                    self._in_flight.pop(claim.uid, None)

    def _write_binding(self, claim: ResourceClaim, allocation: AllocationResult | None,
                       pod: Pod) -> ResourceClaim:
        current = self._get(ResourceClaim, claim.name, claim.namespace)
        key = f"{claim.namespace}/{claim.name}"
        if current is None or current.uid != claim.uid:
            raise _BindError(f'resourceclaims.resource.k8s.io "{claim.name}" not found')
        if current.deletion_timestamp is not None:
            raise _BindError(f"claim {key} got deleted in the meantime")
        changes: dict[str, Any] = {}
        if allocation is not None:
            if current.allocation is not None:
                raise _BindError(f"claim {key} got allocated elsewhere in the meantime")
            if FINALIZER not in current.finalizers:
                changes["finalizers"] = (*current.finalizers, FINALIZER)
            changes["allocation"] = allocation
        changes["reserved_for"] = (*current.reserved_for,
                                   ResourceClaimConsumerReference(name=pod.name, uid=pod.uid))
        updated: ResourceClaim = current.evolve(**changes)
        try:
            self._store(updated)
        except RuntimeError as exc:
            raise _BindError(str(exc)) from exc
        return updated

    # -- events ---------------------------------------------------------------------------

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Node added or relabelled; claims added or updated (with a hint); the pod's generated
        claims recorded in its status (with a hint); classes and slices added or updated."""
        node = ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_LABEL)
        add_update = ActionType.ADD | ActionType.UPDATE
        return (
            ClusterEventWithHint(node),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_CLAIM, add_update),
                                 self.is_schedulable_after_claim_change),
            ClusterEventWithHint(
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM),
                self.is_schedulable_after_pod_change),
            ClusterEventWithHint(ClusterEvent(EventResource.DEVICE_CLASS, add_update)),
            ClusterEventWithHint(ClusterEvent(EventResource.RESOURCE_SLICE, add_update)),
        )

    def is_schedulable_after_claim_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when a claim the pod uses was created or its status changed, or any claim was
        deallocated (freeing devices)."""
        original, modified = as_objects(ResourceClaim, old_obj, new_obj)
        if modified is None:
            return QueueingHint.QUEUE_SKIP
        try:
            uses = any(c.uid == modified.uid for c in self._pod_claims(pod, generate=False))
        except _NotSchedulable:
            return QueueingHint.QUEUE_SKIP
        if original is not None and original.allocation is not None and modified.allocation is None:
            return QueueingHint.QUEUE
        if not uses:
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE
        if (original.allocation, original.reserved_for) == (modified.allocation, modified.reserved_for):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pod_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the pod itself now has all its claims."""
        modified = own_update(pod, old_obj, new_obj)
        if modified is None:
            return QueueingHint.QUEUE_SKIP
        try:
            self._pod_claims(modified, generate=False)
        except _NotSchedulable:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


class _BindError(Exception):
    pass


def _controlled_by(claim: ResourceClaim, pod: Pod) -> bool:
    return any(o.controller and o.uid == pod.uid for o in claim.owner_references)


#: upstream ``resourceapi.FirstAvailableDeviceRequestMaxSize``
_FIRST_AVAILABLE_MAX: Final = 8


@final
class DynamicResourcesWithScore(NormalizedByHighest, DynamicResources):
    """DynamicResources as Kubernetes 1.35 on has it, with Score: a node scores, for each claim
    of the pod, ``8 - i`` for the ``firstAvailable`` alternative ``i`` it got allocated there
    (the first alternative is the best), normalised to [0, 100] by the highest node; 0
    everywhere for a pod without claims (upstream ``computeScore``).

    .. versionadded:: 0.1.0
    """

    __slots__ = ()

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The prioritized-list score of the node's allocation for the pod's claims."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims:
            return 0, None
        node = node_info.node
        if node is None:
            return 0, node_not_found()
        allocations = s.allocations.get(node.name)
        if allocations is None and any(c.allocation is None for c in s.claims):
            return 0, None
        score = 0
        fresh = 0
        for claim in s.claims:
            allocation = claim.allocation
            if allocation is None:
                if allocations is None or fresh >= len(allocations):
                    return 0, Status(Code.ERROR, (
                        f"number of allocations {len(allocations or ())} is smaller than number of "
                        "claims needing allocation",))
                allocation = allocations[fresh]
                fresh += 1
            chosen = {r.request for r in allocation.results if "/" in r.request}
            for req in claim.requests:
                if req.exactly is not None:
                    continue
                for i, sub in enumerate(req.first_available):
                    if f"{req.name}/{sub.name}" in chosen:
                        score += _FIRST_AVAILABLE_MAX - i
        return score, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node (:class:`~schedframe.BatchScorePlugin`): zeros in one step
        for a pod without claims."""
        s = state.get(_STATE_KEY)
        if s is None or not s.claims:
            return [0] * len(nodes)
        return score_each(self, state, pod, nodes)


def new(args: object, handle: Handle) -> DynamicResources:
    """Create the plugin from ``None`` (defaults), a :class:`DynamicResourcesArgs` or a
    camelCase mapping; with Score (:class:`DynamicResourcesWithScore`) from Kubernetes 1.35.

    Raises:
        PluginArgsError: args of another type, or invalid args (every error listed).
    """
    cls = DynamicResourcesWithScore if release_of(handle).has("DynamicResourcesScore") else DynamicResources
    return cls(handle, plugin_args(args, DynamicResourcesArgs))


if TYPE_CHECKING:
    _pre_enqueue: PreEnqueuePlugin = DynamicResources()
    _pre_filter: PreFilterPlugin = DynamicResources()
    _filter: FilterPlugin = DynamicResources()
    _post_filter: PostFilterPlugin = DynamicResources()
    _reserve: ReservePlugin = DynamicResources()
    _pre_bind: PreBindPlugin = DynamicResources()
    _enqueue: EnqueueExtensions = DynamicResources()
    _score: ScorePlugin = DynamicResourcesWithScore()
    _batch_score: BatchScorePlugin = DynamicResourcesWithScore()
