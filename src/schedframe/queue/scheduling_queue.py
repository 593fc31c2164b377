"""``SchedulingQueue``: activeQ, backoffQ and the unschedulable pod pool.

Semantics follow kube-scheduler's ``backend/queue/scheduling_queue.go`` (with queueing hints and
``SchedulerPopFromBackoffQ`` enabled, as in current releases):

* **activeQ** -- a heap ordered by the profile's QueueSort ``less`` (ties: insertion order);
  :meth:`SchedulingQueue.pop` takes its head. When it is empty, the head of the backoff heap is
  popped instead (``pop_from_backoff_q``).
* **backoffQ** -- two heaps ordered by backoff expiry: one for pods rejected by plugins, one for
  pods that failed with an error (``consecutive_errors`` drives their backoff instead of
  ``unschedulable_count``). The backoff is ``initial * 2**(count-1)`` capped at ``max``, counted
  from the last failure, aligned down to whole-second ordering windows.
* **unschedulable pods** -- pods rejected by plugins wait here until a cluster event registered
  by a rejecting plugin (whose queueing hint returns ``QUEUE``) moves them to backoffQ / activeQ,
  or they have stayed longer than ``pod_max_in_unschedulable_pods_duration``. Pods gated by a
  PreEnqueue plugin wait here too.
* **in-flight events** -- events that arrive while a pod is being scheduled are recorded and
  replayed against the pod's rejecting plugins when it comes back unschedulable, so no event is
  lost to the race.

All time comes from the injected clock; the background "flush" loops of kube-scheduler are run
on demand (at every :meth:`~SchedulingQueue.pop`), which makes the queue deterministic.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import math
import threading
from collections import deque
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Final, Protocol, final

from ..api.objects import Node, Pod
from ..cache.nodeinfo import PodInfo
from ..errors import ArgumentTypeError, ConfigurationError
from ..framework.clock import Clock, RealClock
from ..framework.events import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    EventResource,
    QueueingHint,
    QueueingHintFn,
)
from ..framework.interfaces import QueuedPodInfo
from ..framework.status import Status
from .nominator import PodNominator

logger = logging.getLogger("schedframe")

__all__ = [
    "BACKOFF_COMPLETE",
    "DEFAULT_POD_INITIAL_BACKOFF_SECONDS",
    "DEFAULT_POD_MAX_BACKOFF_SECONDS",
    "DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION",
    "EVENT_ASSIGNED_POD_ADD",
    "EVENT_ASSIGNED_POD_DELETE",
    "EVENT_ASSIGNED_POD_UPDATE",
    "EVENT_FORCE_ACTIVATE",
    "EVENT_NODE_ADD",
    "EVENT_NODE_DELETE",
    "EVENT_UNSCHEDULABLE_TIMEOUT",
    "EVENT_UNSCHEDULED_POD_ADD",
    "EVENT_UNSCHEDULED_POD_DELETE",
    "EVENT_UNSCHEDULED_POD_UPDATE",
    "FORCE_ACTIVATE",
    "POP_FROM_BACKOFF_Q",
    "SCHEDULE_ATTEMPT_FAILURE",
    "UNSCHEDULABLE_TIMEOUT",
    "QueueProfile",
    "SchedulingQueue",
    "SortErrors",
    "cluster_event",
    "node_scheduling_properties_change",
    "pod_scheduling_properties_change",
]

#: Upstream ``DefaultPodInitialBackoffDuration``.
DEFAULT_POD_INITIAL_BACKOFF_SECONDS: Final = 1.0
#: Upstream ``DefaultPodMaxBackoffDuration``.
DEFAULT_POD_MAX_BACKOFF_SECONDS: Final = 10.0
#: Upstream ``DefaultPodMaxInUnschedulablePodsDuration`` (5 minutes).
DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION: Final = 300.0
#: Upstream ``backoffQOrderingWindowDuration``: backoff expiries are aligned to whole seconds.
BACKOFF_ORDERING_WINDOW: Final = 1.0

# special event labels (upstream framework/events.go)
SCHEDULE_ATTEMPT_FAILURE: Final = "ScheduleAttemptFailure"
BACKOFF_COMPLETE: Final = "BackoffComplete"
POP_FROM_BACKOFF_Q: Final = "PopFromBackoffQ"
FORCE_ACTIVATE: Final = "ForceActivate"
UNSCHEDULABLE_TIMEOUT: Final = "UnschedulableTimeout"

_ACTION_NAMES: Final = {
    ActionType.ADD: "Add",
    ActionType.DELETE: "Delete",
    ActionType.UPDATE_NODE_ALLOCATABLE: "UpdateNodeAllocatable",
    ActionType.UPDATE_NODE_LABEL: "UpdateNodeLabel",
    ActionType.UPDATE_NODE_TAINT: "UpdateNodeTaint",
    ActionType.UPDATE_NODE_CONDITION: "UpdateNodeCondition",
    ActionType.UPDATE_NODE_ANNOTATION: "UpdateNodeAnnotation",
    ActionType.UPDATE_POD_LABEL: "UpdatePodLabel",
    ActionType.UPDATE_POD_SCALE_DOWN: "UpdatePodScaleDown",
    ActionType.UPDATE_POD_TOLERATION: "UpdatePodToleration",
    ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED: "UpdatePodSchedulingGatesEliminated",
    ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM: "UpdatePodGeneratedResourceClaim",
    ActionType.UPDATE_NODE_DECLARED_FEATURE: "UpdateNodeDeclaredFeature",
    ActionType.UPDATE: "Update",
    ActionType.ALL: "All",
}


def cluster_event(resource: EventResource, action: ActionType) -> ClusterEvent:
    """A :class:`~schedframe.ClusterEvent` labelled as upstream labels it (``"NodeAdd"``,
    ``"AssignedPodDelete"``, ``"UnschedulablePodUpdatePodLabel"``...)."""
    name = _ACTION_NAMES.get(action)
    if name is None:
        name = "|".join(n for a, n in _ACTION_NAMES.items() if a & action and bin(a).count("1") == 1)
    return ClusterEvent(resource, action, f"{resource.value}{name}")


EVENT_NODE_ADD: Final = cluster_event(EventResource.NODE, ActionType.ADD)
EVENT_NODE_DELETE: Final = cluster_event(EventResource.NODE, ActionType.DELETE)
EVENT_ASSIGNED_POD_ADD: Final = cluster_event(EventResource.ASSIGNED_POD, ActionType.ADD)
EVENT_ASSIGNED_POD_UPDATE: Final = cluster_event(EventResource.ASSIGNED_POD, ActionType.UPDATE)
EVENT_ASSIGNED_POD_DELETE: Final = cluster_event(EventResource.ASSIGNED_POD, ActionType.DELETE)
EVENT_UNSCHEDULED_POD_ADD: Final = cluster_event(EventResource.UNSCHEDULED_POD, ActionType.ADD)
EVENT_UNSCHEDULED_POD_UPDATE: Final = cluster_event(EventResource.UNSCHEDULED_POD, ActionType.UPDATE)
EVENT_UNSCHEDULED_POD_DELETE: Final = cluster_event(EventResource.UNSCHEDULED_POD, ActionType.DELETE)
EVENT_UNSCHEDULABLE_TIMEOUT: Final = ClusterEvent(
    EventResource.WILDCARD, ActionType.ALL, UNSCHEDULABLE_TIMEOUT
)
EVENT_FORCE_ACTIVATE: Final = ClusterEvent(EventResource.WILDCARD, ActionType.ALL, FORCE_ACTIVATE)


def pod_scheduling_properties_change(new: Pod, old: Pod) -> list[ClusterEvent]:
    """The events an update of a pod amounts to (upstream ``PodSchedulingPropertiesChange``):
    label change, request scale-down, scheduling gates eliminated, toleration added; the generic
    ``Update`` when none of those applies."""
    resource = EventResource.ASSIGNED_POD if new.node_name else EventResource.UNSCHEDULED_POD
    actions: list[ActionType] = []
    if new.labels != old.labels:
        actions.append(ActionType.UPDATE_POD_LABEL)
    if _scaled_down(new, old):
        actions.append(ActionType.UPDATE_POD_SCALE_DOWN)
    if not new.scheduling_gates and old.scheduling_gates:
        actions.append(ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED)
    if len(new.tolerations) != len(old.tolerations):
        actions.append(ActionType.UPDATE_POD_TOLERATION)
    if new.resource_claim_statuses != old.resource_claim_statuses:
        actions.append(ActionType.UPDATE_POD_GENERATED_RESOURCE_CLAIM)
    if not actions:
        actions.append(ActionType.UPDATE)
    return [cluster_event(resource, a) for a in actions]


def _scaled_down(new: Pod, old: Pod) -> bool:
    old_r, new_r = old.requests, new.requests
    return any(new_r.get(name) < old_r.get(name) for name in old_r.names())


def node_scheduling_properties_change(new: Node, old: Node) -> list[ClusterEvent]:
    """The events an update of a node amounts to (upstream ``NodeSchedulingPropertiesChange``);
    empty when nothing the scheduler looks at changed."""
    actions: list[ActionType] = []
    if new.unschedulable != old.unschedulable and not new.unschedulable:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if new.allocatable_resources != old.allocatable_resources:
        actions.append(ActionType.UPDATE_NODE_ALLOCATABLE)
    if new.labels != old.labels:
        actions.append(ActionType.UPDATE_NODE_LABEL)
    if new.taints != old.taints:
        actions.append(ActionType.UPDATE_NODE_TAINT)
    if {c.type: c.status for c in new.conditions} != {c.type: c.status for c in old.conditions}:
        actions.append(ActionType.UPDATE_NODE_CONDITION)
    if new.annotations != old.annotations:
        actions.append(ActionType.UPDATE_NODE_ANNOTATION)
    if new.declared_features != old.declared_features:
        actions.append(ActionType.UPDATE_NODE_DECLARED_FEATURE)
    return [cluster_event(EventResource.NODE, a) for a in actions]


def _is_wildcard(event: ClusterEvent) -> bool:
    return event.resource is EventResource.WILDCARD and event.action == ActionType.ALL


LessFn = Callable[[QueuedPodInfo, QueuedPodInfo], bool]


class QueueProfile(Protocol):
    """What the queue needs from a profile's framework (``Framework`` satisfies it)."""

    def queue_sort_less(self) -> LessFn: ...

    def enqueue_extensions(self) -> Mapping[str, Sequence[ClusterEventWithHint]]: ...

    def pre_enqueue_plugin_names(self) -> list[str]: ...

    def run_pre_enqueue_plugins(self, pod: Pod) -> Status: ...


# queueing strategies (upstream queueingStrategy)
_SKIP: Final = 0
_AFTER_BACKOFF: Final = 1
_IMMEDIATELY: Final = 2

_ACTIVE_Q: Final = "Active"
_BACKOFF_Q: Final = "Backoff"
_UNSCHEDULABLE_Q: Final = "Unschedulable"


@final
class _Profile:
    __slots__ = ("framework", "has_pre_enqueue", "hints", "match_cache", "plugin_events")

    def __init__(self, framework: QueueProfile) -> None:
        self.framework = framework
        self.has_pre_enqueue = bool(framework.pre_enqueue_plugin_names())
        self.hints: list[tuple[str, ClusterEventWithHint]] = []
        self.plugin_events: dict[str, list[ClusterEvent]] = {}
        for plugin, regs in framework.enqueue_extensions().items():
            for reg in regs:
                self.hints.append((plugin, reg))
                self.plugin_events.setdefault(plugin, []).append(reg.event)
        self.match_cache: dict[ClusterEvent, list[tuple[str, QueueingHintFn | None]]] = {}

    def matching(self, event: ClusterEvent) -> list[tuple[str, QueueingHintFn | None]]:
        hit = self.match_cache.get(event)
        if hit is None:
            hit = [(plugin, reg.hint) for plugin, reg in self.hints if reg.event.matches(event)]
            self.match_cache[event] = hit
        return hit


def _want_pod(method: str, pod: object, arg: str = "pod") -> None:
    if not isinstance(pod, Pod):
        raise ArgumentTypeError(f"SchedulingQueue.{method}: {arg} must be a Pod, got {type(pod).__name__}")


class _Entry:
    """A heap slot; ``removed`` entries are skipped (lazy deletion)."""

    __slots__ = ("expiry", "pinfo", "removed", "seq")

    def __init__(self, pinfo: QueuedPodInfo, seq: int, expiry: float) -> None:
        self.pinfo = pinfo
        self.seq = seq
        self.expiry = expiry
        self.removed = False

    def __lt__(self, other: _Entry) -> bool:  # overridden per heap
        return self.seq < other.seq


@final
class SortErrors:
    """QueueSort ``less`` calls that raised: the queue orders those two pods by arrival instead
    (so no pod is lost and the heaps stay valid) and reports the first failure of each kind in
    the log, naming the plugin.

    Attributes:
        count: comparisons that raised so far.
        last: the last exception raised (``None`` before the first).
        plugin: the QueueSort plugin's name (``""`` when unknown).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"
    __slots__ = ("_seen", "count", "last", "plugin")

    def __init__(self, plugin: str) -> None:
        self.plugin = plugin
        self.count = 0
        self.last: Exception | None = None
        self._seen: set[tuple[type, str]] = set()

    def report(self, exc: Exception, a: QueuedPodInfo, b: QueuedPodInfo) -> None:
        self.count += 1
        self.last = exc
        kind = (type(exc), str(exc)[:200])
        if kind not in self._seen:
            self._seen.add(kind)
            logger.error("QueueSort plugin %r: less(%s, %s) raised %s: %s; the queue orders such "
                         "pods by arrival", self.plugin or "?", a.pod.key, b.pod.key,
                         type(exc).__name__, exc)


def _active_entry_type(less: LessFn, errors: SortErrors) -> type[_Entry]:
    class _ActiveEntry(_Entry):
        __slots__ = ()

        def __lt__(self, other: _Entry) -> bool:
            a, b = self.pinfo, other.pinfo
            try:
                if less(a, b):
                    return True
                if less(b, a):
                    return False
            except Exception as exc:
                # a raising QueueSort must not corrupt the heap (heapq leaves it half-sifted)
                errors.report(exc, a, b)
            return self.seq < other.seq

    return _ActiveEntry


def _backoff_entry_type(less: LessFn | None, errors: SortErrors | None = None) -> type[_Entry]:
    class _BackoffEntry(_Entry):
        __slots__ = ()

        def __lt__(self, other: _Entry) -> bool:
            if self.expiry != other.expiry:
                return self.expiry < other.expiry
            if less is not None:
                a, b = self.pinfo, other.pinfo
                try:
                    if less(a, b):
                        return True
                    if less(b, a):
                        return False
                except Exception as exc:
                    if errors is not None:
                        errors.report(exc, a, b)
            return self.seq < other.seq

    return _BackoffEntry


@final
class _Heap:
    """A heap of pods keyed by uid, with lazy deletion."""

    __slots__ = ("_entry", "_items", "_map")

    def __init__(self, entry_type: type[_Entry]) -> None:
        self._entry = entry_type
        self._items: list[_Entry] = []
        self._map: dict[str, _Entry] = {}

    def push(self, pinfo: QueuedPodInfo, seq: int, expiry: float = 0.0) -> None:
        uid = pinfo.pod.uid
        old = self._map.get(uid)
        if old is not None:
            old.removed = True
        entry = self._entry(pinfo, seq, expiry)
        self._map[uid] = entry
        heapq.heappush(self._items, entry)
        if len(self._items) > 2 * len(self._map) + 64:
            self._items = [e for e in self._items if not e.removed]
            heapq.heapify(self._items)

    def remove(self, uid: str) -> QueuedPodInfo | None:
        entry = self._map.pop(uid, None)
        if entry is None:
            return None
        entry.removed = True
        return entry.pinfo

    def _clean_top(self) -> _Entry | None:
        items = self._items
        while items and items[0].removed:
            heapq.heappop(items)
        return items[0] if items else None

    def peek(self) -> _Entry | None:
        return self._clean_top()

    def pop(self) -> QueuedPodInfo | None:
        top = self._clean_top()
        if top is None:
            return None
        try:
            heapq.heappop(self._items)
        except BaseException:
            # interrupted while sifting (a QueueSort less raising KeyboardInterrupt...): heapq has
            # already taken *top* out of the list; put it back so the pod stays queued
            self._items.append(top)
            raise
        del self._map[top.pinfo.pod.uid]
        return top.pinfo

    def get(self, uid: str) -> _Entry | None:
        return self._map.get(uid)

    def __contains__(self, uid: object) -> bool:
        return uid in self._map

    def __len__(self) -> int:
        return len(self._map)

    def entries(self) -> list[_Entry]:
        """The live entries (unordered)."""
        return list(self._map.values())

    def pinfos(self) -> list[QueuedPodInfo]:
        """The pods in heap order (a sorted copy)."""
        return [e.pinfo for e in sorted(e for e in self._items if not e.removed)]


@final
class _InFlightEvent:
    __slots__ = ("event", "new", "old", "seq")

    def __init__(self, seq: int, event: ClusterEvent, old: Any, new: Any) -> None:
        self.seq = seq
        self.event = event
        self.old = old
        self.new = new


@final
class SchedulingQueue:
    """The scheduling queue shared by every profile of a scheduler.

    Args:
        profiles: scheduler name -> the profile's framework (anything with the
            :class:`QueueProfile` methods). The first profile's QueueSort orders activeQ (all
            profiles must use the same QueueSort plugin, as upstream requires).
        clock: time source (default: wall clock).
        pod_initial_backoff: ``podInitialBackoffSeconds``.
        pod_max_backoff: ``podMaxBackoffSeconds`` (0 disables backoff).
        pod_max_in_unschedulable_pods_duration: how long a pod may stay unschedulable before it
            is retried anyway.
        pop_from_backoff_q: pop from backoffQ when activeQ is empty (upstream
            ``SchedulerPopFromBackoffQ``, on by default), with backoff ordering windows.
        nominator: where nominated pods are kept (a new :class:`PodNominator` by default).
        less: overrides the activeQ order.
        queueing_hints: upstream ``SchedulerQueueingHints`` (on by default); off, every plugin's
            hint is upstream's default hint (``QUEUE``): any registered event requeues the pod.

    Every method is thread-safe.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(
        self,
        profiles: Mapping[str, QueueProfile],
        *,
        clock: Clock | None = None,
        pod_initial_backoff: float = DEFAULT_POD_INITIAL_BACKOFF_SECONDS,
        pod_max_backoff: float = DEFAULT_POD_MAX_BACKOFF_SECONDS,
        pod_max_in_unschedulable_pods_duration: float = DEFAULT_POD_MAX_IN_UNSCHEDULABLE_PODS_DURATION,
        pop_from_backoff_q: bool = True,
        nominator: PodNominator | None = None,
        less: LessFn | None = None,
        queueing_hints: bool = True,
    ) -> None:
        durations = (("pod_initial_backoff", pod_initial_backoff), ("pod_max_backoff", pod_max_backoff),
                     ("pod_max_in_unschedulable_pods_duration", pod_max_in_unschedulable_pods_duration))
        for arg, value in durations:
            if isinstance(value, bool) or not isinstance(value, (int, float)):
                raise ArgumentTypeError(f"SchedulingQueue: {arg} must be a number of seconds, got "
                                        f"{type(value).__name__}")
            if not value >= 0 or (math.isinf(value) and arg != "pod_max_in_unschedulable_pods_duration"):
                # NaN fails the comparison; an infinite stay in the unschedulable pool means never
                # flushed, an infinite backoff is a mistake
                raise ConfigurationError(f"SchedulingQueue: {arg}: backoff durations must be >= 0 and "
                                         f"finite, got {value}")
        self._clock: Clock = clock if clock is not None else RealClock()
        self._profiles: dict[str, _Profile] = {name: _Profile(fw) for name, fw in profiles.items()}
        if less is None:
            if not self._profiles:
                raise ConfigurationError("SchedulingQueue needs at least one profile or a less function")
            less = next(iter(self._profiles.values())).framework.queue_sort_less()
        self._less = less
        self._initial_backoff = float(pod_initial_backoff)
        self._max_backoff = float(pod_max_backoff)
        self._max_in_unschedulable = float(pod_max_in_unschedulable_pods_duration)
        self._pop_from_backoff = pop_from_backoff_q
        self._queueing_hints = queueing_hints
        self.nominator: PodNominator = nominator if nominator is not None else PodNominator()

        self._lock = threading.RLock()
        self._seq = itertools.count()
        owner = getattr(less, "__self__", None)
        #: QueueSort ``less`` calls that raised (see :class:`SortErrors`).
        self.sort_errors = SortErrors(str(getattr(owner, "name", "") or ""))
        self._active = _Heap(_active_entry_type(less, self.sort_errors))
        self._backoff = _Heap(_backoff_entry_type(less if pop_from_backoff_q else None, self.sort_errors))
        self._error_backoff = _Heap(_backoff_entry_type(None))
        # unschedulable pool (gated pods included), with an index by rejecting plugin and a heap
        # of (timestamp, seq, uid) to find pods that stayed too long
        self._unsched: dict[str, QueuedPodInfo] = {}
        self._unsched_seq: dict[str, int] = {}
        self._unsched_plugins: dict[str, tuple[str, ...]] = {}
        self._by_plugin: dict[str, dict[str, None]] = {}
        self._leftover: list[tuple[float, int, str]] = []
        # in-flight pods and the events seen while they are in flight
        self._in_flight: dict[str, int] = {}
        self._in_flight_pods: dict[str, Pod] = {}
        self._events: deque[_InFlightEvent] = deque()
        self._event_seq = 0
        self._sched_cycle = 0
        self._interest_cache: dict[ClusterEvent, tuple[str, ...]] = {}
        self._gate_messages: dict[str, str] = {}

    # ------------------------------------------------------------------------------------------
    # introspection

    @property
    def clock(self) -> Clock:
        """The queue's clock."""
        return self._clock

    @property
    def scheduling_cycle(self) -> int:
        """How many pods were popped so far."""
        return self._sched_cycle

    def __len__(self) -> int:
        return len(self._active) + len(self._backoff) + len(self._error_backoff) + len(self._unsched)

    def __contains__(self, pod: object) -> bool:
        uid = pod.uid if isinstance(pod, Pod) else pod
        return (uid in self._active or uid in self._backoff or uid in self._error_backoff
                or uid in self._unsched)

    def get(self, pod: Pod | str) -> QueuedPodInfo | None:
        """The queued info of *pod* (or uid) in activeQ, backoffQ or the unschedulable pool."""
        uid = pod.uid if isinstance(pod, Pod) else pod
        with self._lock:
            for heap in (self._active, self._backoff, self._error_backoff):
                e = heap.get(uid)
                if e is not None:
                    return e.pinfo
            return self._unsched.get(uid)

    def where(self, pod: Pod | str) -> str | None:
        """``"Active"``, ``"Backoff"``, ``"Unschedulable"``, ``"InFlight"`` or ``None``."""
        uid = pod.uid if isinstance(pod, Pod) else pod
        with self._lock:
            if uid in self._active:
                return _ACTIVE_Q
            if uid in self._backoff or uid in self._error_backoff:
                return _BACKOFF_Q
            if uid in self._unsched:
                return _UNSCHEDULABLE_Q
            if uid in self._in_flight:
                return "InFlight"
            return None

    def pods_in_active_q(self) -> list[Pod]:
        """activeQ's pods, head first."""
        with self._lock:
            return [p.pod for p in self._active.pinfos()]

    def pods_in_backoff_q(self) -> list[Pod]:
        """backoffQ's pods (rejected ones, then errored ones), each part by expiry."""
        with self._lock:
            return [p.pod for p in self._backoff.pinfos() + self._error_backoff.pinfos()]

    def unschedulable_pods(self) -> list[Pod]:
        """Pods in the unschedulable pool (gated ones included)."""
        with self._lock:
            return [p.pod for p in self._unsched.values()]

    def in_flight_pods(self) -> list[Pod]:
        """Pods popped and not yet done."""
        with self._lock:
            return list(self._in_flight_pods.values())

    def pending_pods(self) -> list[Pod]:
        """Every pod in activeQ, backoffQ and the unschedulable pool (upstream ``PendingPods``)."""
        with self._lock:
            return self.pods_in_active_q() + self.pods_in_backoff_q() + self.unschedulable_pods()

    def pending_pod_infos(self) -> list[QueuedPodInfo]:
        """Like :meth:`pending_pods`, with the queue bookkeeping."""
        with self._lock:
            return (self._active.pinfos() + self._backoff.pinfos() + self._error_backoff.pinfos()
                    + list(self._unsched.values()))

    def gating_message(self, pod: Pod | str) -> str:
        """The message of the PreEnqueue status gating *pod* (or uid), ``""`` when not gated."""
        uid = pod.uid if isinstance(pod, Pod) else pod
        return self._gate_messages.get(uid, "")

    def summary(self) -> str:
        """Upstream's ``"activeQ:%v; backoffQ:%v; unschedulablePods:%v"``."""
        with self._lock:
            return (f"activeQ:{len(self._active)}; "
                    f"backoffQ:{len(self._backoff) + len(self._error_backoff)}; "
                    f"unschedulablePods:{len(self._unsched)}")

    # ------------------------------------------------------------------------------------------
    # backoff

    def backoff_duration(self, pinfo: QueuedPodInfo) -> float:
        """The backoff a pod gets after its failures so far (0 when it never failed)."""
        count = pinfo.consecutive_errors if pinfo.consecutive_errors > 0 else pinfo.unschedulable_count
        if count <= 0 or self._max_backoff == 0:
            return 0.0
        duration = self._initial_backoff
        if duration <= 0:
            return 0.0
        for _ in range(1, count):
            if duration > self._max_backoff - duration:
                return self._max_backoff
            duration += duration
        return min(duration, self._max_backoff)

    def _align(self, t: float) -> float:
        if not self._pop_from_backoff:
            return t
        return math.floor(t / BACKOFF_ORDERING_WINDOW) * BACKOFF_ORDERING_WINDOW

    def backoff_expiration(self, pinfo: QueuedPodInfo) -> float | None:
        """When *pinfo*'s backoff ends (aligned to the ordering window), or ``None`` (no backoff)."""
        if self._max_backoff == 0:
            return None
        count = pinfo.consecutive_errors if pinfo.consecutive_errors > 0 else pinfo.unschedulable_count
        if count <= 0:
            return None
        if pinfo.backoff_expiration is None:
            pinfo.backoff_expiration = self._align(pinfo.timestamp + self.backoff_duration(pinfo))
        return pinfo.backoff_expiration

    def is_pod_backing_off(self, pinfo: QueuedPodInfo) -> bool:
        """True while *pinfo*'s backoff has not completed (a backoff ending within the current
        ordering window still counts as running, as upstream)."""
        bt = self.backoff_expiration(pinfo)
        if bt is None:
            return False
        return not bt < self._align(self._clock.now())

    def _completion_time(self, expiry: float) -> float:
        # the earliest clock reading at which is_pod_backing_off() turns False
        if self._pop_from_backoff:
            return expiry + BACKOFF_ORDERING_WINDOW
        return math.nextafter(expiry, math.inf)

    def next_backoff_completion(self, *, errors: bool | None = None) -> float | None:
        """The earliest clock reading at which a pod in backoffQ completes its backoff.

        *errors*: ``True`` only the error backoff heap, ``False`` only the other, ``None`` both.
        """
        with self._lock:
            if errors is None and not self._backoff and not self._error_backoff:  # both empty
                return None
            heaps = ([self._error_backoff] if errors else [self._backoff] if errors is False
                     else [self._backoff, self._error_backoff])
            times = [self._completion_time(top.expiry) for h in heaps
                     if (top := h.peek()) is not None]
            return min(times) if times else None

    def backoff_completions(self) -> list[tuple[float, str]]:
        """``(completion time, uid)`` of every pod in backoffQ, earliest first."""
        with self._lock:
            out = [(self._completion_time(e.expiry), e.pinfo.pod.uid)
                   for heap in (self._backoff, self._error_backoff) for e in heap.entries()]
            out.sort()
            return out

    def error_backoff_pods(self) -> list[QueuedPodInfo]:
        """Pods in the error backoff heap, by expiry."""
        with self._lock:
            return self._error_backoff.pinfos()

    def next_unschedulable_timeout(self) -> float | None:
        """When the next pod in the unschedulable pool exceeds its maximum stay, or ``None``."""
        with self._lock:
            top = self._leftover_top()
            return None if top is None else math.nextafter(top[0] + self._max_in_unschedulable, math.inf)

    # ------------------------------------------------------------------------------------------
    # profiles, pre-enqueue, hints

    def _new_pinfo(self, pod: Pod) -> QueuedPodInfo:
        return QueuedPodInfo(PodInfo.of(pod), timestamp=self._clock.now())

    def _keep(self, pinfo: QueuedPodInfo) -> None:
        """A move of *pinfo* was interrupted by a BaseException (a PreEnqueue plugin or a queueing
        hint raising KeyboardInterrupt...): unless it is still queued somewhere, put it in the
        error backoff, from where it is retried, so the pod is not lost (lock held)."""
        uid = pinfo.pod.uid
        if (uid in self._active or uid in self._backoff or uid in self._error_backoff
                or uid in self._unsched):
            return
        pinfo.consecutive_errors += 1
        pinfo.timestamp = self._clock.now()
        pinfo.backoff_expiration = None
        pinfo.unschedulable_plugins = set()
        pinfo.pending_plugins = set()
        self._backoff_push(pinfo)

    def _run_pre_enqueue(self, pinfo: QueuedPodInfo) -> None:
        profile = self._profiles.get(pinfo.pod.scheduler_name)
        if profile is not None and profile.has_pre_enqueue:
            try:
                status = profile.framework.run_pre_enqueue_plugins(pinfo.pod)
            except BaseException:
                self._keep(pinfo)
                raise
            if status is not None and not status.is_success():
                plugin = status.plugin or "PreEnqueue"
                pinfo.unschedulable_plugins.add(plugin)
                pinfo.gating_plugin = plugin
                pinfo.gated = True
                self._gate_messages[pinfo.pod.uid] = status.message
                return
        if pinfo.gated:
            self._gate_messages.pop(pinfo.pod.uid, None)
        pinfo.gating_plugin = ""
        pinfo.gated = False

    def _interested_plugins(self, event: ClusterEvent) -> tuple[str, ...]:
        hit = self._interest_cache.get(event)
        if hit is None:
            names: dict[str, None] = {}
            for profile in self._profiles.values():
                for plugin, _ in profile.matching(event):
                    names[plugin] = None
            hit = tuple(names)
            self._interest_cache[event] = hit
        return hit

    def is_event_of_interest(self, event: ClusterEvent) -> bool:
        """True when some plugin registered an event matching *event* (or it is a wildcard)."""
        return _is_wildcard(event) or bool(self._interested_plugins(event))

    def _worth_requeuing(self, pinfo: QueuedPodInfo, event: ClusterEvent, old: Any, new: Any) -> int:
        rejectors = pinfo.unschedulable_plugins | pinfo.pending_plugins
        if not rejectors:
            return _AFTER_BACKOFF
        if _is_wildcard(event):
            if new is not None and not (isinstance(new, Pod) and new.uid == pinfo.pod.uid):
                return _SKIP
            return _AFTER_BACKOFF
        profile = self._profiles.get(pinfo.pod.scheduler_name)
        if profile is None:
            return _AFTER_BACKOFF
        pod = pinfo.pod
        strategy = _SKIP
        for plugin, hint in profile.matching(event):
            if plugin not in rejectors:
                continue
            if hint is None or not self._queueing_hints:
                verdict = QueueingHint.QUEUE
            else:
                try:
                    verdict = hint(pod, old, new)
                except Exception:
                    # a failing hint must not leave the pod stuck: treat it as QUEUE (upstream)
                    verdict = QueueingHint.QUEUE
            if verdict == QueueingHint.QUEUE_SKIP:
                continue
            if plugin in pinfo.pending_plugins:
                return _IMMEDIATELY
            if not pinfo.pending_plugins:
                return _AFTER_BACKOFF
            strategy = _AFTER_BACKOFF
        return strategy

    # ------------------------------------------------------------------------------------------
    # sub-queue primitives (lock held)

    def _active_push(self, pinfo: QueuedPodInfo) -> None:
        self._active.push(pinfo, next(self._seq))

    def _backoff_push(self, pinfo: QueuedPodInfo) -> None:
        expiry = self.backoff_expiration(pinfo)
        e = 0.0 if expiry is None else expiry
        uid = pinfo.pod.uid
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            self._backoff.remove(uid)
            self._error_backoff.push(pinfo, next(self._seq), e)
        else:
            self._error_backoff.remove(uid)
            self._backoff.push(pinfo, next(self._seq), e)

    def _backoff_remove(self, uid: str) -> QueuedPodInfo | None:
        p = self._backoff.remove(uid)
        q = self._error_backoff.remove(uid)
        return p if p is not None else q

    def _unsched_add(self, pinfo: QueuedPodInfo) -> None:
        uid = pinfo.pod.uid
        seq = next(self._seq)
        self._unsched[uid] = pinfo
        self._unsched_seq[uid] = seq
        self._index(pinfo)
        heapq.heappush(self._leftover, (pinfo.timestamp, seq, uid))
        if len(self._leftover) > 2 * len(self._unsched) + 64:
            self._leftover = [(self._unsched[u].timestamp, s, u) for u, s in self._unsched_seq.items()]
            heapq.heapify(self._leftover)

    def _index(self, pinfo: QueuedPodInfo) -> None:
        uid = pinfo.pod.uid
        plugins = tuple(sorted(pinfo.unschedulable_plugins | pinfo.pending_plugins)) or ("",)
        old = self._unsched_plugins.get(uid)
        if old == plugins:
            return
        if old is not None:
            self._unindex(uid, old)
        self._unsched_plugins[uid] = plugins
        for plugin in plugins:
            self._by_plugin.setdefault(plugin, {})[uid] = None

    def _unindex(self, uid: str, plugins: tuple[str, ...]) -> None:
        for plugin in plugins:
            members = self._by_plugin.get(plugin)
            if members is not None:
                members.pop(uid, None)
                if not members:
                    del self._by_plugin[plugin]

    def _unsched_remove(self, uid: str) -> QueuedPodInfo | None:
        pinfo = self._unsched.pop(uid, None)
        if pinfo is None:
            return None
        del self._unsched_seq[uid]
        plugins = self._unsched_plugins.pop(uid, None)
        if plugins is not None:
            self._unindex(uid, plugins)
        return pinfo

    def _leftover_top(self) -> tuple[float, int, str] | None:
        heap = self._leftover
        while heap:
            ts, seq, uid = heap[0]
            if self._unsched_seq.get(uid) == seq and self._unsched[uid].timestamp == ts:
                return heap[0]
            heapq.heappop(heap)
        return None

    # ------------------------------------------------------------------------------------------
    # moves (lock held)

    def _move_to_active_q(self, pinfo: QueuedPodInfo, event: str, *, from_backoff: bool = False) -> bool:
        uid = pinfo.pod.uid
        if not (self._pop_from_backoff and from_backoff):
            self._run_pre_enqueue(pinfo)
        if pinfo.gated:
            if uid in self._active or uid in self._backoff or uid in self._error_backoff:
                return False
            if uid in self._unsched:
                self._index(pinfo)
                return False
            self._unsched_add(pinfo)
            return False
        if pinfo.initial_attempt_timestamp is None:
            pinfo.initial_attempt_timestamp = self._clock.now()
        self._unsched_remove(uid)
        self._backoff_remove(uid)
        self._active_push(pinfo)
        if event in (EVENT_UNSCHEDULED_POD_ADD.label, EVENT_UNSCHEDULED_POD_UPDATE.label):
            self.nominator.add(pinfo.pod_info, None)
        return True

    def _move_to_backoff_q(self, pinfo: QueuedPodInfo, event: str) -> bool:
        uid = pinfo.pod.uid
        if self._pop_from_backoff:
            self._run_pre_enqueue(pinfo)
            if pinfo.gated:
                if uid not in self._unsched:
                    self._unsched_add(pinfo)
                else:
                    self._index(pinfo)
                return False
        self._unsched_remove(uid)
        self._backoff_push(pinfo)
        return True

    def _requeue(self, pinfo: QueuedPodInfo, strategy: int, event: str) -> str:
        if strategy == _SKIP:
            self._unsched_add(pinfo)
            return _UNSCHEDULABLE_Q
        if strategy == _AFTER_BACKOFF and self.is_pod_backing_off(pinfo):
            return _BACKOFF_Q if self._move_to_backoff_q(pinfo, event) else _UNSCHEDULABLE_Q
        return _ACTIVE_Q if self._move_to_active_q(pinfo, event) else _UNSCHEDULABLE_Q

    def _move_pods(self, pinfos: Iterable[QueuedPodInfo], event: ClusterEvent, old: Any, new: Any) -> None:
        if not self.is_event_of_interest(event):
            return
        for pinfo in pinfos:
            if pinfo.gated:
                profile = self._profiles.get(pinfo.pod.scheduler_name)
                events = profile.plugin_events.get(pinfo.gating_plugin, ()) if profile else ()
                if not any(e.matches(event) for e in events):
                    continue
            strategy = self._worth_requeuing(pinfo, event, old, new)
            if strategy == _SKIP:
                continue
            self._unsched_remove(pinfo.pod.uid)
            self._requeue(pinfo, strategy, event.label)
        self._add_event_if_any_in_flight(event, old, new)

    # ------------------------------------------------------------------------------------------
    # in-flight bookkeeping (lock held)

    def _add_event_if_any_in_flight(self, event: ClusterEvent, old: Any, new: Any) -> None:
        if self._in_flight:
            self._event_seq += 1
            self._events.append(_InFlightEvent(self._event_seq, event, old, new))

    def _events_for(self, uid: str) -> list[_InFlightEvent] | None:
        start = self._in_flight.get(uid)
        if start is None:
            return None
        out: list[_InFlightEvent] = []
        for e in reversed(self._events):
            if e.seq <= start:
                break
            out.append(e)
        out.reverse()
        return out

    def _done(self, uid: str) -> None:
        if self._in_flight.pop(uid, None) is None:
            return
        self._in_flight_pods.pop(uid, None)
        if not self._in_flight:
            self._events.clear()
            return
        oldest = next(iter(self._in_flight.values()))
        events = self._events
        while events and events[0].seq <= oldest:
            events.popleft()

    def in_flight_events(self) -> list[tuple[ClusterEvent, Any, Any]]:
        """The events recorded while pods were in flight (oldest first)."""
        with self._lock:
            return [(e.event, e.old, e.new) for e in self._events]

    # ------------------------------------------------------------------------------------------
    # public operations

    def add(self, pod: Pod) -> None:
        """Add a new pending pod (upstream ``Add``); it goes through PreEnqueue into activeQ, or
        waits gated in the unschedulable pool. Adding a pod the queue already holds updates it."""
        _want_pod("add", pod)
        with self._lock:
            existing = self.get(pod.uid)
            if existing is not None:
                self.update(existing.pod, pod)
                return
            if pod.uid in self._in_flight:
                self.update(self._in_flight_pods[pod.uid], pod)
                return
            self._move_to_active_q(self._new_pinfo(pod), EVENT_UNSCHEDULED_POD_ADD.label)

    def update(self, old: Pod | None, new: Pod) -> None:
        """A pending pod changed (upstream ``Update``).

        In activeQ/backoffQ the pod is updated in place. In the unschedulable pool the change is
        run through the queueing hints (a gated pod re-runs PreEnqueue when moved). A pod being
        scheduled gets the change recorded as an in-flight event. An unknown pod is added.
        """
        if old is not None:
            _want_pod("update", old, "old")
        _want_pod("update", new, "new")
        with self._lock:
            uid = new.uid
            events = pod_scheduling_properties_change(new, old) if old is not None else [
                EVENT_UNSCHEDULED_POD_UPDATE]
            if uid in self._in_flight:
                for evt in events:
                    self._event_seq += 1
                    self._events.append(_InFlightEvent(self._event_seq, evt, old, new))
                self._in_flight_pods[uid] = new
                return
            for heap in (self._active, self._backoff, self._error_backoff):
                entry = heap.get(uid)
                if entry is not None:
                    pinfo = entry.pinfo
                    previous = pinfo.pod
                    pinfo.pod_info = PodInfo.of(new)
                    heap.push(pinfo, entry.seq, entry.expiry)
                    self.nominator.update(old if old is not None else previous, pinfo.pod_info)
                    return
            pinfo_u = self._unsched.get(uid)
            if pinfo_u is not None:
                previous = pinfo_u.pod
                pinfo_u.pod_info = PodInfo.of(new)
                self.nominator.update(old if old is not None else previous, pinfo_u.pod_info)
                for evt in events:
                    strategy = self._worth_requeuing(pinfo_u, evt, old, new)
                    self._unsched_remove(uid)
                    where = self._requeue(pinfo_u, strategy, evt.label)
                    if where == _ACTIVE_Q or (self._pop_from_backoff and where == _BACKOFF_Q):
                        break
                return
            self._move_to_active_q(self._new_pinfo(new), EVENT_UNSCHEDULED_POD_UPDATE.label)

    def delete(self, pod: Pod) -> bool:
        """Remove a pending pod from wherever it is; returns whether it was queued."""
        _want_pod("delete", pod)
        with self._lock:
            self.nominator.delete(pod)
            uid = pod.uid
            self._gate_messages.pop(uid, None)
            if self._active.remove(uid) is not None or self._backoff_remove(uid) is not None:
                return True
            return self._unsched_remove(uid) is not None

    def activate(self, pods: Iterable[Pod]) -> None:
        """Move *pods* from the unschedulable pool or backoffQ to activeQ (upstream ``Activate``);
        a pod currently in flight gets a force-activate event that requeues it when it comes back."""
        pods = list(pods)
        for pod in pods:
            if not isinstance(pod, Pod):
                raise ArgumentTypeError(f"SchedulingQueue.activate: pods must be Pods, got "
                                        f"{type(pod).__name__} among them")
        with self._lock:
            for pod in pods:
                uid = pod.uid
                if self._activate(uid):
                    continue
                if uid in self._in_flight:
                    self._event_seq += 1
                    self._events.append(_InFlightEvent(self._event_seq, EVENT_FORCE_ACTIVATE, None, pod))

    def _activate(self, uid: str) -> bool:
        """Move *uid* from the unschedulable pool or backoffQ to activeQ; False when in neither."""
        pinfo = self._unsched.get(uid)
        from_backoff = pinfo is None and (pinfo := self._backoff_remove(uid)) is not None
        if pinfo is not None:
            self._move_to_active_q(pinfo, FORCE_ACTIVATE, from_backoff=from_backoff)
        return pinfo is not None

    def _in_flight_now(self, pinfo: QueuedPodInfo) -> QueuedPodInfo:
        """*pinfo*, popped, counted as an attempt and in flight."""
        uid = pinfo.pod.uid
        pinfo.attempts += 1
        self._event_seq += 1
        self._in_flight[uid] = self._event_seq
        self._in_flight_pods[uid] = pinfo.pod
        self._sched_cycle += 1
        pinfo.unschedulable_plugins, pinfo.pending_plugins = set(), set()
        return pinfo

    def pop(self) -> QueuedPodInfo | None:
        """Take the next pod to schedule, or ``None`` when activeQ (and, with
        ``pop_from_backoff_q``, the non-error backoffQ) is empty. Never blocks.

        Backoffs that completed and pods that stayed too long in the unschedulable pool are
        flushed first. The popped pod is *in flight* until :meth:`done` (or
        :meth:`add_unschedulable_if_not_present`).
        """
        with self._lock:
            self._flush_backoff_q_completed()
            self._flush_unschedulable_pods_leftover()
            while True:
                pinfo = self._active.pop()
                if pinfo is None and self._pop_from_backoff:
                    pinfo = self._backoff.pop()
                if pinfo is None:
                    return None
                if pinfo.pod.uid in self._in_flight:  # pragma: no cover - defensive, as upstream
                    continue
                return self._in_flight_now(pinfo)

    def pop_specific(self, pod: Pod) -> QueuedPodInfo | None:
        """Activate *pod*, then pop it for its group's PodGroup cycle (upstream ``PopSpecificPod``);
        ``None`` when it is not in activeQ then (gated, in flight, or not queued)."""
        with self._lock:
            uid = pod.uid
            self._activate(uid)
            if uid in self._in_flight:
                return None
            pinfo = self._active.remove(uid)
            return None if pinfo is None else self._in_flight_now(pinfo)

    def done(self, uid: str) -> None:
        """The scheduling (or binding) attempt of *uid* is over; forget its in-flight events."""
        with self._lock:
            self._done(uid)

    def add_unschedulable_if_not_present(self, pinfo: QueuedPodInfo) -> bool:
        """Requeue a pod whose attempt failed (upstream ``AddUnschedulableIfNotPresent``).

        ``pinfo.unschedulable_plugins`` / ``pending_plugins`` say who rejected it (both empty:
        an error, which gets the error backoff). Events seen while it was in flight decide
        whether it goes straight back to backoffQ/activeQ or waits in the unschedulable pool.
        Returns False (and does nothing) when the pod is already queued.
        """
        with self._lock:
            uid = pinfo.pod.uid
            try:
                if uid in self._unsched or uid in self._active or uid in self._backoff or (
                        uid in self._error_backoff):
                    return False
                if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
                    pinfo.consecutive_errors += 1
                else:
                    pinfo.unschedulable_count += 1
                    pinfo.consecutive_errors = 0
                pinfo.timestamp = self._clock.now()
                pinfo.backoff_expiration = None
                try:
                    strategy = self._hint_for_in_flight(pinfo)
                    self._requeue(pinfo, strategy, SCHEDULE_ATTEMPT_FAILURE)
                except BaseException:
                    self._keep(pinfo)
                    raise
                return True
            finally:
                self._done(uid)

    def _hint_for_in_flight(self, pinfo: QueuedPodInfo) -> int:
        if not pinfo.unschedulable_plugins and not pinfo.pending_plugins:
            return _AFTER_BACKOFF
        events = self._events_for(pinfo.pod.uid)
        if events is None:
            return _AFTER_BACKOFF
        strategy = _SKIP
        for e in events:
            s = self._worth_requeuing(pinfo, e.event, e.old, e.new)
            if s == _IMMEDIATELY:
                return s
            if s == _AFTER_BACKOFF:
                strategy = s
                if not pinfo.pending_plugins:
                    return s
        return strategy

    def move_all_to_active_or_backoff_queue(self, event: ClusterEvent, old: Any = None, new: Any = None,
                                            pre_check: Callable[[Pod], bool] | None = None) -> None:
        """A cluster event happened: move the unschedulable pods it may help (upstream
        ``MoveAllToActiveOrBackoffQueue``), and record it for pods in flight.

        Only pods rejected by a plugin that registered a matching event are considered, and only
        moved when that plugin's hint says ``QUEUE``; *pre_check* filters pods further.
        """
        with self._lock:
            if _is_wildcard(event):
                uids: Iterable[str] = list(self._unsched)
            else:
                plugins = self._interested_plugins(event)
                if not plugins:
                    return
                found: dict[str, None] = {}
                for plugin in (*plugins, ""):
                    members = self._by_plugin.get(plugin)
                    if members:
                        found.update(members)
                seqs = self._unsched_seq
                uids = sorted(found, key=seqs.__getitem__) if len(found) > 1 else found
            pinfos = [self._unsched[u] for u in uids]
            if pre_check is not None:
                pinfos = [p for p in pinfos if pre_check(p.pod)]
            self._move_pods(pinfos, event, old, new)

    def flush_backoff_q_completed(self) -> None:
        """Move every pod whose backoff completed to activeQ (upstream runs it every second)."""
        with self._lock:
            self._flush_backoff_q_completed()

    def _flush_backoff_q_completed(self) -> None:
        for heap in (self._backoff, self._error_backoff):
            while True:
                top = heap.peek()
                if top is None or self.is_pod_backing_off(top.pinfo):
                    break
                heap.pop()
                self._move_to_active_q(top.pinfo, BACKOFF_COMPLETE, from_backoff=True)

    def flush_unschedulable_pods_leftover(self) -> None:
        """Retry pods that stayed in the unschedulable pool longer than the maximum."""
        with self._lock:
            self._flush_unschedulable_pods_leftover()

    def _flush_unschedulable_pods_leftover(self) -> None:
        now = self._clock.now()
        limit = self._max_in_unschedulable
        to_move: list[QueuedPodInfo] = []
        while True:
            top = self._leftover_top()
            if top is None or not now - top[0] > limit:
                break
            heapq.heappop(self._leftover)
            to_move.append(self._unsched[top[2]])
        if to_move:
            self._move_pods(to_move, EVENT_UNSCHEDULABLE_TIMEOUT, None, None)

    # -- nominator passthroughs ---------------------------------------------------------------
    def add_nominated_pod(self, pod_info: PodInfo, nominating_info: Any = None) -> None:
        """Record a nomination (upstream ``AddNominatedPod``)."""
        with self._lock:
            self.nominator.add(pod_info, nominating_info)

    def delete_nominated_pod_if_exists(self, pod: Pod) -> None:
        """Forget *pod*'s nomination."""
        with self._lock:
            self.nominator.delete(pod)

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        """The pods nominated to *node_name*."""
        return self.nominator.nominated_pods_for_node(node_name)

    def __repr__(self) -> str:
        return f"SchedulingQueue({self.summary()}, inFlight:{len(self._in_flight)})"
