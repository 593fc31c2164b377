"""Coscheduling: gang scheduling of PodGroups (kubernetes-sigs/scheduler-plugins ``pkg/coscheduling``).

Not part of the default profile. Pods join a group through the label ``scheduling.x-k8s.io/pod-group``
(:data:`POD_GROUP_LABEL`) naming a :class:`~schedframe.api.PodGroup` (``scheduling.x-k8s.io/v1alpha1``) in
their
namespace, added to the scheduler as a cluster object (``Scheduler.add_object(PodGroup(...))`` or
``objects=[...]``). Enable the plugin at every point it implements and drop PrioritySort, e.g.::

    profiles:
    - plugins:
        multiPoint:
          enabled: [{name: Coscheduling}]
        queueSort:
          disabled: [{name: PrioritySort}]

What each point does (as upstream):

* **QueueSort** -- higher priority first; then the group's creation time, or the time it was last
  rejected (PostFilter, Unreserve) until a member passes Permit again, so a failing gang does not
  block the head of the queue (a pod without group: the time it first entered activeQ); then the
  pod's key. A rejection sorts after every pod queued at the same instant (under a virtual
  clock, where many cycles share one instant, as under the wall clock, which moves on).
* **PreFilter** -- ``UNSCHEDULABLE_AND_UNRESOLVABLE`` when the group failed recently
  (``podGroupBackoffSeconds``), when fewer pods of the group exist than ``minMember`` (or enough
  exist but the members still behind scheduling gates would leave it short), or when the
  cluster cannot hold the group's ``minResources``.
* **PostFilter** -- when a member fits no node and the gang is more than
  ``podGroupRejectPercentage`` (default 10%) short of ``minMember``, reject every member
  waiting at Permit (so no partial gang stays reserved), back the group off and report the group as rejected.
* **Permit** -- ``WAIT`` (the group's ``scheduleTimeoutSeconds``, else ``permitWaitingTimeSeconds``)
  until ``minMember`` members are assumed or bound; the member reaching the quorum allows all the
  waiting ones at once. The first member to wait moves its siblings to activeQ.
* **Reserve / Unreserve** -- when a member is unreserved (rejected, timed out, failed to bind),
  every waiting member of its group is rejected too.

Which pods belong to a group
----------------------------
Upstream lists the group's pods through the scheduler's pod informer. When the framework handle
can list pods (:meth:`Handle.list_pods <schedframe.Handle.list_pods>` answers, as it does in a
:class:`~schedframe.Scheduler`) the plugin uses it the same way. Otherwise it keeps its own
record: the pending pods it sees at PreEnqueue (until they bind, seen at PostBind; both enabled
through ``multiPoint``) plus the pods the snapshot shows on nodes. That record cannot notice a
*pending* pod being deleted; and when the plugin is not enabled at PreEnqueue it cannot count
pending pods, so PreFilter then skips the ``minMember`` count (Permit still holds the gang
together).

Retries
-------
As upstream, a gang that can never fit is retried for ever (its members requeue each other): set
``podGroupBackoffSeconds`` so that a group rejected at PostFilter is refused quickly at PreFilter
and :meth:`Scheduler.run_until_idle <schedframe.Scheduler.run_until_idle>` goes idle, or bound it
with ``max_cycles``.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, Protocol, final, runtime_checkable

import attrs

from ..api.objects import CPU, POD_GROUP_API_VERSION, Pod, PodGroup, Resources
from ..cache.nodeinfo import NodeInfo
from ..cache.store import ObjectStore
from ..errors import bounded_repr
from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from ..framework.handle import Handle, SharedLister
from ..framework.interfaces import NodeToStatus, PostFilterResult, PreFilterResult, QueuedPodInfo, WaitingPod
from ..framework.registry import plugin_args
from ..framework.status import Code, Status
from . import names
from ._helpers import FieldErrors, WithArgs

if TYPE_CHECKING:
    pass

__all__ = [
    "API_VERSION",
    "ARGS_TYPE",
    "DEFAULT_WAIT_SECONDS",
    "ERR_CANNOT_FIND_POD_GROUP",
    "ERR_FAILED_RECENTLY",
    "ERR_GATED_PODS",
    "ERR_NOT_ENOUGH_PODS",
    "ERR_POD_GROUP_NOT_FOUND",
    "ERR_RESOURCE_GAP",
    "MSG_GROUP_REJECTED",
    "MSG_OPTIMISTIC_REJECTION",
    "MSG_REJECTION_IN_UNRESERVE",
    "NAME",
    "POD_GROUP_LABEL",
    "Coscheduling",
    "CoschedulingArgs",
    "PodGroup",
    "PodLister",
    "new",
]

NAME: Final = names.COSCHEDULING
#: The API group and version of :class:`~schedframe.api.PodGroup`.
API_VERSION: Final = POD_GROUP_API_VERSION
#: The label naming a pod's group (``v1alpha1.PodGroupLabel``).
POD_GROUP_LABEL: Final = "scheduling.x-k8s.io/pod-group"

#: PreFilter: the group was rejected less than ``podGroupBackoffSeconds`` ago (``.format(group)``).
ERR_FAILED_RECENTLY: Final = "podGroup {} failed recently"
#: PreFilter: too few pods in the group (``.format(pod name, pods, minMember)``).
ERR_NOT_ENOUGH_PODS: Final = ("pre-filter pod {} cannot find enough sibling pods, "
                              "current pods number: {}, minMember of group: {}")
#: PreFilter: gated members would leave the group short of ``minMember`` (``.format(pod name)``).
ERR_GATED_PODS: Final = "pre-filter pod {} cannot proceed due to gated pods in the same PodGroup"
#: PreFilter: the cluster cannot hold ``minResources`` (``.format(missing amounts)``).
ERR_RESOURCE_GAP: Final = "resource gap: {}"
#: Permit: the pod names a group that does not exist.
ERR_POD_GROUP_NOT_FOUND: Final = "PodGroup not found"
#: PostFilter: the pod names a group that does not exist (or none).
ERR_CANNOT_FIND_POD_GROUP: Final = "can not find pod group"
#: PostFilter: the group is rejected (``.format(group, pod name)``).
MSG_GROUP_REJECTED: Final = "PodGroup {} gets rejected due to Pod {} is unschedulable even after PostFilter"
#: Why PostFilter rejects the waiting members of a group.
MSG_OPTIMISTIC_REJECTION: Final = "optimistic rejection in PostFilter"
#: Why Unreserve rejects the waiting members of a group.
MSG_REJECTION_IN_UNRESERVE: Final = "rejection in Unreserve"

_TERMINAL_PHASES: Final = frozenset({"Succeeded", "Failed"})
#: scheduler-plugins ``util.DefaultWaitTime``: the Permit wait when neither the PodGroup's
#: ``scheduleTimeoutSeconds`` nor a non-zero ``permitWaitingTimeSeconds`` gives one.
DEFAULT_WAIT_SECONDS: Final = 60
#: The longest Permit wait: a PodGroup's ``scheduleTimeoutSeconds`` is an int32 of seconds.
MAX_WAIT_SECONDS: Final = 2**31 - 1
#: The longest ``permitWaitingTimeSeconds`` / ``podGroupBackoffSeconds``: upstream multiplies the
#: int64 by ``time.Second``, so more seconds than this overflow Go's ``time.Duration``.
MAX_ARG_SECONDS: Final = (2**63 - 1) // 10**9
#: the default expiration of scheduler-plugins' ``permittedPG`` cache, used when
#: ``permitWaitingTimeSeconds`` is 0 (go-cache's ``DefaultExpiration``).
_PERMITTED_DEFAULT_TTL: Final = 3
_WAIT: Final = Status(Code.WAIT)
_UNSCHEDULABLE: Final = Status(Code.UNSCHEDULABLE)
_NO_RESULT: Final = PostFilterResult()


# --------------------------------------------------------------------------------------------
# PodGroup


# --------------------------------------------------------------------------------------------
# Args


@final
@attrs.frozen(kw_only=True)
class CoschedulingArgs:
    """``CoschedulingArgs`` (scheduler-plugins ``config/v1``), defaulted as upstream.

    Attributes:
        permit_waiting_time_seconds: how long members wait at Permit for the quorum when their
            group sets no ``scheduleTimeoutSeconds``; also how long a group that passed the
            ``minResources`` check is not checked again. 0 means the default, as upstream's
            ``GetWaitTimeDuration``: 60 seconds at Permit (and 3 seconds for the check).
        pod_group_backoff_seconds: how long a group rejected at PostFilter is refused at
            PreFilter (0: never).
        pod_group_reject_percentage: PostFilter rejects the group only when more than this
            percentage of ``minMember`` is still unplaced (0: on any failure; 100: never).

    ``deniedPGExpirationTimeSeconds``, which the v1beta2 args had (and scheduler-plugins'
    v1beta2 example file sets), is accepted when it is an integer and ignored, as the plugin
    has not used it since; it is not written back.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.coscheduling"

    permit_waiting_time_seconds: int = 60
    pod_group_backoff_seconds: int = 0
    pod_group_reject_percentage: int = 10
    #: v1beta2's ``deniedPGExpirationTimeSeconds``: read as an integer, then ignored
    denied_pg_expiration_time_seconds: int | None = attrs.field(
        default=None, repr=False, eq=False, metadata={"json": "deniedPGExpirationTimeSeconds", "omit": True})

    def errors(self) -> list[str]:
        """Upstream ``ValidateCoschedulingArgs``: both durations whole seconds, not negative (in
        upstream's words "must be greater than 0"), the reject percentage in [0, 100]."""
        errs = FieldErrors()
        for key, value in (("permitWaitingTimeSeconds", self.permit_waiting_time_seconds),
                           ("podGroupBackoffSeconds", self.pod_group_backoff_seconds),
                           ("podGroupRejectPercentage", self.pod_group_reject_percentage)):
            if isinstance(value, bool) or not isinstance(value, int):
                errs.add(f"{key}: must be an integer, got {bounded_repr(value)}")
            elif key == "podGroupRejectPercentage":
                if not 0 <= value <= 100:
                    errs.invalid(key, value, "must be between 0 and 100")
            elif value < 0:
                errs.invalid(key, value, "must be greater than 0")
            elif value > MAX_ARG_SECONDS:
                errs.add(f"{key}: must be at most {MAX_ARG_SECONDS} seconds (the longest Go "
                         f"time.Duration), got {bounded_repr(value)}")
        return errs.errors


ARGS_TYPE: Final = CoschedulingArgs


# --------------------------------------------------------------------------------------------
# Pods of a group


@runtime_checkable
class PodLister(Protocol):
    """A handle that can list pods (upstream: the scheduler's pod informer). Pending and bound
    pods of *namespace* (every namespace for ``None``)."""

    def list_pods(self, namespace: str | None = None) -> Sequence[Pod]: ...


def _go_quantity(name: str, amount: int) -> str:
    if name == CPU and amount % 1000:
        return f"{amount}m"
    return str(amount // 1000 if name == CPU else amount)


@final
class _Members:
    """The plugin's record of group members when the handle cannot list pods: pending pods seen
    at PreEnqueue, and pods on nodes (assumed or bound) read from the snapshot incrementally
    (only NodeInfos whose generation moved are re-read)."""

    __slots__ = ("_assigned", "_lock", "_nodes", "_pending", "_snapshot_key", "tracking")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        #: group full name -> {uid: pod}, pending pods seen at PreEnqueue
        self._pending: dict[str, dict[str, Pod]] = {}
        #: group full name -> {uid: node name}, pods the snapshot shows on nodes
        self._assigned: dict[str, dict[str, str]] = {}
        #: node name -> (NodeInfo id, generation, {group: [uids]})
        self._nodes: dict[str, tuple[int, int, dict[str, list[str]]]] = {}
        self._snapshot_key: tuple[int, int] | None = None
        #: True once PreEnqueue ran (the plugin is enabled there and sees pending pods)
        self.tracking = False

    def checkpoint(self) -> tuple[dict[str, dict[str, Pod]], bool]:
        with self._lock:
            return {g: dict(m) for g, m in self._pending.items()}, self.tracking

    def restore(self, state: tuple[dict[str, dict[str, Pod]], bool]) -> None:
        with self._lock:
            self._pending, self.tracking = state
            self._nodes = {}  # re-read every NodeInfo on the next refresh
            self._assigned = {}
            self._snapshot_key = None

    def saw_pending(self, group: str, pod: Pod) -> None:
        with self._lock:
            self.tracking = True
            self._pending.setdefault(group, {})[pod.uid] = pod

    def bound(self, group: str, pod: Pod) -> None:
        with self._lock:
            members = self._pending.get(group)
            if members is not None:
                members.pop(pod.uid, None)
                if not members:
                    del self._pending[group]

    def pending(self, group: str) -> list[Pod]:
        with self._lock:
            return list(self._pending.get(group, {}).values())

    def pending_uids(self, group: str) -> set[str]:
        with self._lock:
            return set(self._pending.get(group, ()))

    def assigned(self, lister: SharedLister, group: str) -> set[str]:
        """Uids of the group's pods on nodes in the snapshot."""
        with self._lock:
            self._refresh(lister)
            return set(self._assigned.get(group, ()))

    def _refresh(self, lister: SharedLister) -> None:
        generation = getattr(lister, "generation", None)
        key = (id(lister), generation) if isinstance(generation, int) and generation > 0 else None
        if key is not None and key == self._snapshot_key:
            return
        infos = lister.node_infos().list()
        nodes = self._nodes
        for ni in infos:
            name = ni.name
            cached = nodes.get(name)
            if cached is not None and cached[0] == id(ni) and cached[1] == ni.generation:
                continue
            if cached is not None:
                self._drop(cached[2])
            groups = _groups_on(ni)
            for group, uids in groups.items():
                members = self._assigned.setdefault(group, {})
                for uid in uids:
                    members[uid] = name
            nodes[name] = (id(ni), ni.generation, groups)
        if len(nodes) != len(infos):
            present = {ni.name for ni in infos}
            for name in [n for n in nodes if n not in present]:
                self._drop(nodes.pop(name)[2])
        self._snapshot_key = key

    def _drop(self, groups: dict[str, list[str]]) -> None:
        for group, uids in groups.items():
            members = self._assigned.get(group)
            if members is None:  # pragma: no cover - kept in sync with _nodes
                continue
            for uid in uids:
                members.pop(uid, None)
            if not members:
                del self._assigned[group]


def _groups_on(ni: NodeInfo) -> dict[str, list[str]]:
    out: dict[str, list[str]] = {}
    for pi in ni.pods:
        p = pi.pod
        group = p.labels.get(POD_GROUP_LABEL)
        if group:
            out.setdefault(f"{p.namespace}/{group}", []).append(p.uid)
    return out


# --------------------------------------------------------------------------------------------
# The plugin


@final
class Coscheduling(WithArgs[CoschedulingArgs]):
    """Gang scheduling of :class:`~schedframe.api.PodGroup` members: QueueSort, PreFilter, PostFilter,
    Reserve/Unreserve and Permit, plus PreEnqueue and PostBind for bookkeeping only (see the
    module docs).

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_args", "_backed_off", "_failures", "_first_seen", "_handle", "_last_failed", "_lock",
                 "_members", "_permitted")

    def __init__(self, args: CoschedulingArgs, handle: Handle) -> None:
        self._args = args
        self._handle = handle
        self._members = _Members()
        self._lock = threading.Lock()
        #: group -> expiry: groups rejected at PostFilter (upstream ``backedOffPG``)
        self._backed_off: dict[str, float] = {}
        #: group -> expiry: groups that passed the minResources check (upstream ``permittedPG``)
        self._permitted: dict[str, float] = {}
        #: group -> first time seen, the creation time of groups without one
        self._first_seen: dict[str, float] = {}
        #: group -> (time, n) of its last rejection (upstream ``lastFailedSchedulePG``): sorts the
        #: group as created then, so a failing gang does not block the head of the queue. ``n``
        #: counts rejections (from 1): a rejection comes after every pod queued at the same
        #: instant of a virtual clock, as it does in wall time, where the clock has moved on
        self._last_failed: dict[str, tuple[float, int]] = {}
        self._failures = 0

    @property
    def name(self) -> str:
        """``"Coscheduling"``."""
        return NAME

    # -- StatefulPlugin -----------------------------------------------------------------------------
    def checkpoint(self) -> object:
        """The groups' timers and rejections and the pending members seen (the members on nodes
        are re-read from the snapshot by generation)."""
        with self._lock:
            mine = (dict(self._backed_off), dict(self._permitted), dict(self._first_seen),
                    dict(self._last_failed), self._failures)
        return mine, self._members.checkpoint()

    def restore(self, state: object) -> None:
        """Put back what :meth:`checkpoint` returned."""
        mine: Any
        members: Any
        mine, members = state  # type: ignore[misc]
        with self._lock:
            (self._backed_off, self._permitted, self._first_seen, self._last_failed,
             self._failures) = mine
        self._members.restore(members)

    # -- groups ---------------------------------------------------------------------------------
    def pod_group(self, pod: Pod) -> tuple[str, PodGroup | None]:
        """``(namespace/group, PodGroup or None)`` of *pod*; ``("", None)`` without the label
        (upstream ``GetPodGroup``)."""
        group = pod.labels.get(POD_GROUP_LABEL)
        if not group:
            return "", None
        objects = self._handle.objects
        pg: PodGroup | None
        if isinstance(objects, ObjectStore):  # a dict lookup
            pg = objects.get(PodGroup, group, pod.namespace)
        else:
            pg = next((o for o in objects.list(PodGroup, pod.namespace) if o.name == group), None)
        return f"{pod.namespace}/{group}", pg

    def _creation_time(self, full_name: str, pg: PodGroup) -> tuple[float, int]:
        failed = self._last_failed.get(full_name)
        if failed is not None:
            return failed
        if pg.creation_timestamp is not None:
            return pg.creation_timestamp, 0
        seen = self._first_seen.get(full_name)
        if seen is None:
            seen = self._first_seen.setdefault(full_name, self._handle.clock.now())
        return seen, 0

    def _failed(self, full_name: str) -> None:
        """Record the group's rejection now (see ``_last_failed``)."""
        with self._lock:
            self._failures += 1
            self._last_failed[full_name] = (self._handle.clock.now(), self._failures)

    def group_pods(self, pod: Pod, pg: PodGroup) -> list[Pod] | None:
        """Every pod of *pg* the scheduler knows (pending, assumed or bound), through
        :meth:`Handle.list_pods <schedframe.Handle.list_pods>`; ``None`` when the handle cannot
        list pods."""
        listed = self._handle.list_pods(pg.namespace)
        if listed is None:
            return None
        return [p for p in listed
                if p.labels.get(POD_GROUP_LABEL) == pg.name and p.namespace == pg.namespace
                and p.phase not in _TERMINAL_PHASES]

    def _count_pods(self, pod: Pod, full_name: str, pg: PodGroup) -> int | None:
        pods = self.group_pods(pod, pg)
        if pods is not None:
            return len(pods)
        if not self._members.tracking:
            return None
        uids = self._members.pending_uids(full_name)
        uids |= self._members.assigned(self._handle.snapshot_shared_lister(), full_name)
        uids.add(pod.uid)
        return len(uids)

    def assigned_count(self, full_name: str) -> int:
        """Members of *full_name* on nodes (assumed or bound) in the current snapshot."""
        return len(self._members.assigned(self._handle.snapshot_shared_lister(), full_name))

    def _expiring_contains(self, table: dict[str, float], key: str) -> bool:
        with self._lock:
            expiry = table.get(key)
            if expiry is None:
                return False
            if expiry > self._handle.clock.now():
                return True
            del table[key]
            return False

    def _expiring_add(self, table: dict[str, float], key: str, ttl: float) -> None:
        """go-cache ``Add``: only when absent or expired."""
        now = self._handle.clock.now()
        with self._lock:
            expiry = table.get(key)
            if expiry is None or expiry <= now:
                table[key] = now + ttl

    def _forget_permitted(self, full_name: str) -> None:
        with self._lock:
            self._permitted.pop(full_name, None)

    # -- QueueSort ------------------------------------------------------------------------------
    def _sort_key(self, q: QueuedPodInfo) -> tuple[float, int, str]:
        pod = q.pod_info.pod
        full_name, pg = self.pod_group(pod)
        if pg is not None:
            return (*self._creation_time(full_name, pg), pod.key)
        ts = q.initial_attempt_timestamp
        return (q.timestamp if ts is None else ts), 0, pod.key

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        """Higher priority first; then earlier group creation -- or its last rejection, when it
        failed since -- (without group: earlier first queueing); then the pod key."""
        pa = a.pod_info.pod.priority or 0
        pb = b.pod_info.pod.priority or 0
        if pa != pb:
            return pa > pb
        return self._sort_key(a) < self._sort_key(b)

    # -- PreEnqueue -----------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Never gates: records group members entering the queue (see the module docs)."""
        group = pod.labels.get(POD_GROUP_LABEL)
        if group:
            self._members.saw_pending(f"{pod.namespace}/{group}", pod)
        return None

    # -- PreFilter ------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """Reject members of a group that failed recently, has too few pods, or whose
        ``minResources`` the cluster cannot hold (``UNSCHEDULABLE_AND_UNRESOLVABLE``, so no
        preemption is attempted). Pods without (existing) group pass."""
        full_name, pg = self.pod_group(pod)
        if pg is None:
            return None, None
        if self._expiring_contains(self._backed_off, full_name):
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_FAILED_RECENTLY.format(full_name),))
        count = self._count_pods(pod, full_name, pg)
        if count is not None and count < pg.min_member:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                (ERR_NOT_ENOUGH_PODS.format(pod.name, count, pg.min_member),))
        if count is not None and self._gated_short(pod, full_name, pg, count):
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_GATED_PODS.format(pod.name),))
        if not pg.min_resources or self._expiring_contains(self._permitted, full_name):
            return None, None
        gap = _resource_gap(nodes, pg, full_name)
        if gap:
            return None, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_RESOURCE_GAP.format(gap),))
        self._expiring_add(self._permitted, full_name,
                           self._args.permit_waiting_time_seconds or _PERMITTED_DEFAULT_TTL)
        return None, None

    def _gated_short(self, pod: Pod, full_name: str, pg: PodGroup, count: int) -> bool:
        """Upstream: the members still behind scheduling gates count against the quorum."""
        pods = self.group_pods(pod, pg)
        if pods is None:
            pods = self._members.pending(full_name)
        gated = sum(1 for p in pods if p.scheduling_gates)
        return pg.min_member - count + gated > 0

    def pre_filter_extensions(self) -> None:
        """None: nothing to update when pods are added or removed."""
        return None

    # -- PostFilter -----------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]:
        """A member fits no node: unless the gang already has (almost) enough members placed,
        reject its waiting members, back the group off and report it rejected."""
        full_name, pg = self.pod_group(pod)
        if pg is None:
            return _NO_RESULT, Status.unschedulable(ERR_CANNOT_FIND_POD_GROUP)
        assigned = self.assigned_count(full_name)
        if assigned >= pg.min_member:
            return _NO_RESULT, _UNSCHEDULABLE
        # a small gap (podGroupRejectPercentage): later members may still complete the gang
        if (pg.min_member - assigned) / pg.min_member <= self._args.pod_group_reject_percentage / 100:
            return _NO_RESULT, _UNSCHEDULABLE
        self._reject_waiting(pod.namespace, pg.name, MSG_OPTIMISTIC_REJECTION)
        backoff = self._args.pod_group_backoff_seconds
        if backoff > 0:
            count = self._count_pods(pod, full_name, pg)
            if count is not None and count >= pg.min_member:
                self._expiring_add(self._backed_off, full_name, backoff)
        self._forget_permitted(full_name)
        self._failed(full_name)
        return _NO_RESULT, Status.unschedulable(MSG_GROUP_REJECTED.format(full_name, pod.name))

    def _reject_waiting(self, namespace: str, group: str, message: str) -> None:
        def reject(wp: WaitingPod) -> None:
            p = wp.pod
            if p.namespace == namespace and p.labels.get(POD_GROUP_LABEL) == group:
                wp.reject(NAME, message)

        self._handle.iterate_over_waiting_pods(reject)

    # -- Permit ---------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """Success without group; reject a pod whose group does not exist; once ``minMember``
        members (this one included) are assumed or bound, allow every waiting member; otherwise
        ``WAIT``."""
        full_name, pg = self.pod_group(pod)
        if not full_name:
            return None, 0.0
        if pg is None:
            return Status.unschedulable(ERR_POD_GROUP_NOT_FOUND), 0.0
        assigned = self._members.assigned(self._handle.snapshot_shared_lister(), full_name)
        assigned.add(pod.uid)
        if len(assigned) >= pg.min_member:
            self._last_failed.pop(full_name, None)

            def allow(wp: WaitingPod) -> None:
                p = wp.pod
                if p.namespace == pod.namespace and p.labels.get(POD_GROUP_LABEL) == pg.name:
                    wp.allow(NAME)

            self._handle.iterate_over_waiting_pods(allow)
            return None, 0.0
        if len(assigned) == 1:
            self._activate_siblings(state, pod, full_name, pg)
        # upstream GetWaitTimeDuration: a zero permitWaitingTimeSeconds means the default (a zero
        # wait would time every member out at once and retry the gang for ever)
        timeout = (pg.schedule_timeout_seconds or self._args.permit_waiting_time_seconds
                   or DEFAULT_WAIT_SECONDS)
        # a PodGroup built in Python is not range-checked as one read from a manifest is (an
        # int32): a longer wait than any int32 of seconds is that wait (float() of a 400-digit
        # int would raise OverflowError for every member)
        return _WAIT, float(min(timeout, MAX_WAIT_SECONDS))

    def _activate_siblings(self, state: CycleState, pod: Pod, full_name: str, pg: PodGroup) -> None:
        """The first member to wait moves its pending siblings to activeQ (upstream
        ``ActivateSiblings``)."""
        pods = self.group_pods(pod, pg)
        if pods is None:
            pods = self._members.pending(full_name)
        for p in pods:
            if p.uid != pod.uid and not p.node_name:
                state.pods_to_activate[p.key] = p

    # -- Reserve --------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Nothing to reserve."""
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """A member was unreserved (rejected, timed out, binding failed): reject every waiting
        member of its group so the whole gang is released."""
        full_name, pg = self.pod_group(pod)
        if pg is None:
            return
        self._reject_waiting(pod.namespace, pg.name, MSG_REJECTION_IN_UNRESERVE)
        self._forget_permitted(full_name)
        self._failed(full_name)

    # -- PostBind -------------------------------------------------------------------------------
    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Bookkeeping only: a bound member is no longer pending (the snapshot shows it from now
        on, and stops counting it once it is deleted)."""
        group = pod.labels.get(POD_GROUP_LABEL)
        if group:
            self._members.bound(f"{pod.namespace}/{group}", pod)

    # -- EnqueueExtensions ----------------------------------------------------------------------
    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A pod added (a new member, or a pod bound), or a PodGroup added or updated."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.POD_GROUP, ActionType.ADD | ActionType.UPDATE)),
        )


def _resource_gap(nodes: Sequence[NodeInfo], pg: PodGroup, full_name: str) -> str:
    """Upstream ``CheckClusterResource``: what of ``minResources`` (plus ``minMember`` pods) the
    nodes cannot hold, ignoring the group's own pods; ``""`` when they can. Amounts use the
    scheduler's units (CPU in millicores, rendered like quantities)."""
    wanted = Resources.from_list(pg.min_resources)
    want: dict[str, int] = {name: wanted.get(name) for name in pg.min_resources}
    want["pods"] = pg.min_member
    for ni in nodes:
        if ni.node is None:
            continue
        own = [pi.pod for pi in ni.pods
               if f"{pi.pod.namespace}/{pi.pod.labels.get(POD_GROUP_LABEL, '')}" == full_name]
        for name in list(want):
            if name == "pods":
                free = ni.allocatable.pods - (len(ni.pods) - len(own))
            else:
                used = ni.requested.get(name) - sum(p.requests.get(name) for p in own)
                free = ni.allocatable.get(name) - used
            left = want[name] - free
            if left <= 0:
                del want[name]
            else:
                want[name] = left
        if not want:
            return ""
    return "map[" + " ".join(f"{name}:{_go_quantity(name, want[name])}" for name in sorted(want)) + "]"


def new(args: object, handle: Handle) -> Coscheduling:
    """Factory: *args* is ``None``, a :class:`CoschedulingArgs` or a camelCase mapping."""
    return Coscheduling(plugin_args(args, CoschedulingArgs), handle)


if TYPE_CHECKING:
    from ..framework.interfaces import (
        EnqueueExtensions,
        PermitPlugin,
        PostBindPlugin,
        PostFilterPlugin,
        PreEnqueuePlugin,
        PreFilterPlugin,
        QueueSortPlugin,
        ReservePlugin,
    )

    def _check(p: Coscheduling) -> None:
        _a: QueueSortPlugin = p
        _b: PreEnqueuePlugin = p
        _c: PreFilterPlugin = p
        _d: PostFilterPlugin = p
        _e: PermitPlugin = p
        _f: ReservePlugin = p
        _g: EnqueueExtensions = p
        _h: PostBindPlugin = p
