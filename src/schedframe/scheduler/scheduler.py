"""``Scheduler``: the cache, the queue and one framework per profile, driven by event handlers.

The scheduling cycle follows kube-scheduler's ``schedule_one.go``: pop a pod; skip it if it is
being deleted or already assumed; refresh the snapshot (incrementally); PreFilter; try the
nominated node first; Filter over a round-robin window of nodes sized by
``percentageOfNodesToScore``; on rejection run PostFilter (preemption) and report upstream's
``"0/5 nodes are available: ..."`` message; PreScore/Score; select the best node (ties broken by
a seeded RNG); assume the pod in the cache; Reserve; Permit. The binding cycle then waits on
Permit, runs PreBind, Bind and PostBind. Every failure unreserves, forgets the assumed pod and
requeues it with the right backoff and rejecting plugins.

Two modes:

* **deterministic** (default): binding runs inline; pods waiting at Permit are parked and their
  binding cycles resumed when they are allowed, rejected or time out (deadlines judged by the
  clock, a :class:`~schedframe.FakeClock` by default). :meth:`Scheduler.run_until_idle` advances
  that clock past backoffs and permit deadlines. Same inputs, same seed, same clock: same
  placements.
* **threaded** (``threaded=True``): binding cycles run in worker threads and wait on Permit in
  real time; :meth:`Scheduler.close` (or ``with``) stops the workers.

Threads: a Scheduler may be driven from several threads at once, in either mode. One re-entrant
lock serialises the scheduling cycles (:meth:`Scheduler.schedule_one`, the parked binding cycles
of the deterministic mode, moving a fake clock in :meth:`Scheduler.run_until_idle`) with the
event handlers and every change to the cache and the queue; the binding cycles of the threaded
mode (waiting at Permit, PreBind, Bind) run concurrently, outside it, and take it only to
record their outcome. No node is overcommitted and no pod is lost however the calls interleave.

A ``BaseException`` that is not an ``Exception`` (``KeyboardInterrupt``, ``SystemExit``, ...)
raised by a plugin is not turned into an ERROR status: the scheduler first undoes what the
cycle did (Unreserve, forget the assumed pod, take it out of the waiting pods, requeue it with an
error backoff) and then re-raises it.
"""

from __future__ import annotations

import concurrent.futures
import logging
import operator
import random
import threading
from collections.abc import Callable, Iterable, Mapping, Sequence
from itertools import compress, repeat
from typing import Any, Final, final

import attrs

from ..api.objects import Node, Pod
from ..cache.cache import Cache
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..cache.snapshot import Snapshot
from ..cache.store import ObjectStore
from ..errors import ArgumentTypeError, CacheError, ExtenderError, SchedframeError, SchedulerError
from ..framework.binder import Binder, InMemoryBinder, SchedulerClient
from ..framework.clock import Clock, FakeClock
from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, EventResource
from ..framework.extender import (
    EXTENDER_NAME,
    MAX_EXTENDER_PRIORITY,
    Extender,
    ExtenderTransport,
    HTTPExtender,
)
from ..framework.interfaces import MAX_NODE_SCORE, NodeToStatus, NominatingInfo, NominatingMode, QueuedPodInfo
from ..framework.registry import Registry
from ..framework.runtime import Framework, InMemoryEventRecorder, RecordedEvent
from ..framework.status import Code, Status
from ..framework.waiting_pods import WaitingPods
from ..queue.nominator import PodNominator
from ..queue.scheduling_queue import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_NODE_ADD,
    EVENT_NODE_DELETE,
    SchedulingQueue,
    cluster_event,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)

__all__ = [
    "ERR_NO_NODES_AVAILABLE",
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "Diagnosis",
    "FitError",
    "PendingPod",
    "RunSummary",
    "Scheduler",
]

logger = logging.getLogger("schedframe")

#: Upstream ``minFeasibleNodesToFind``.
MIN_FEASIBLE_NODES_TO_FIND: Final = 100
#: Upstream ``minFeasibleNodesPercentageToFind``.
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: Final = 5
#: Upstream ``ErrNoNodesAvailable``.
ERR_NO_NODES_AVAILABLE: Final = "no nodes available to schedule pods"

_SUCCESS: Final = Code.SUCCESS
_CLEAR_NOMINATED: Final = NominatingInfo("", NominatingMode.OVERRIDE)
_OBJECT_RESOURCES: Final = {
    "Namespace": EventResource.NAMESPACE,
    "Service": EventResource.SERVICE,
    "ReplicaSet": EventResource.REPLICA_SET,
    "StatefulSet": EventResource.STATEFUL_SET,
    "ReplicationController": EventResource.REPLICATION_CONTROLLER,
    "PodDisruptionBudget": EventResource.POD_DISRUPTION_BUDGET,
    "PodGroup": EventResource.POD_GROUP,
    "ResourceClaim": EventResource.RESOURCE_CLAIM,
    "ResourceSlice": EventResource.RESOURCE_SLICE,
    "DeviceClass": EventResource.DEVICE_CLASS,
    "PersistentVolume": EventResource.PERSISTENT_VOLUME,
    "PersistentVolumeClaim": EventResource.PERSISTENT_VOLUME_CLAIM,
    "StorageClass": EventResource.STORAGE_CLASS,
    "CSINode": EventResource.CSI_NODE,
    "CSIDriver": EventResource.CSI_DRIVER,
}


def _go_list(names: Iterable[str]) -> str:
    return "[" + " ".join(names) + "]"


# --------------------------------------------------------------------------------------------
# diagnosis and FitError


@final
class Diagnosis:
    """Why a pod fits no node: per-node statuses and the plugins that rejected it."""

    __module__ = "schedframe"
    __slots__ = ("node_to_status", "pending_plugins", "post_filter_msg", "pre_filter_msg",
                 "unschedulable_plugins")

    def __init__(self, node_to_status: NodeToStatus | None = None) -> None:
        self.node_to_status = node_to_status if node_to_status is not None else NodeToStatus()
        self.unschedulable_plugins: set[str] = set()
        self.pending_plugins: set[str] = set()
        self.pre_filter_msg = ""
        self.post_filter_msg = ""

    def add_plugin_status(self, status: Status) -> None:
        """Record *status*'s plugin as rejecting (or pending) the pod (upstream ``AddPluginStatus``)."""
        if not status.plugin:
            return
        if status.is_rejected():
            self.unschedulable_plugins.add(status.plugin)
        if status.code is Code.PENDING:
            self.pending_plugins.add(status.plugin)


@final
class FitError(SchedframeError):
    """A pod fits no node. ``str()`` is upstream's message, e.g.
    ``"0/5 nodes are available: 2 Insufficient cpu, 3 node(s) had untolerated taint(s)."``.

    Carried as the ``error`` of the UNSCHEDULABLE :class:`~schedframe.Status` of a failed cycle;
    never raised to callers.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, pod: Pod, num_all_nodes: int, diagnosis: Diagnosis) -> None:
        super().__init__(pod.key)
        self.pod = pod
        self.num_all_nodes = num_all_nodes
        self.diagnosis = diagnosis

    @property
    def message(self) -> str:
        """``"0/X nodes are available: <PreFilter msg>. <Filter reasons>. <PostFilter msg>"``."""
        d = self.diagnosis
        msg = f"0/{self.num_all_nodes} nodes are available:"
        if d.pre_filter_msg:
            msg += f" {d.pre_filter_msg}."
        else:
            counts: dict[str, int] = {}
            nts = d.node_to_status
            for _, status in nts.items():
                for reason in status.reasons:
                    counts[reason] = counts.get(reason, 0) + 1
            absent = self.num_all_nodes - len(nts)
            if absent > 0:
                for reason in nts.absent_nodes_status.reasons:
                    counts[reason] = counts.get(reason, 0) + absent
            histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
            if histogram:
                msg += f" {', '.join(histogram)}."
        if d.post_filter_msg:
            msg += f" {d.post_filter_msg}"
        return msg

    def __str__(self) -> str:
        return self.message


class _CycleError(Exception):
    """An ERROR status ending a scheduling cycle (internal)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


# --------------------------------------------------------------------------------------------
# public records


@final
@attrs.frozen
class PendingPod:
    """A pod the scheduler has not bound (yet).

    Attributes:
        pod: the pod (latest version).
        message: the last failure message (``""`` before the first attempt).
        plugins: the plugins that rejected it in the last attempt.
        where: ``"Active"``, ``"Backoff"``, ``"Unschedulable"``, ``"Gated"`` (kept out by a
            PreEnqueue plugin, whose message is the reason), ``"InFlight"`` (being scheduled or
            waiting at Permit).
        attempts: scheduling attempts so far.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    pod: Pod
    message: str
    plugins: frozenset[str]
    where: str
    attempts: int = 0


#: run_until_idle stops after this many no-progress cycles per pending pod (a livelock).
_STALL_CYCLES_PER_POD: Final = 50


@final
@attrs.frozen
class RunSummary:
    """What :meth:`Scheduler.run_until_idle` did.

    Attributes:
        scheduled: pods bound during the run.
        failed: scheduling or binding attempts that failed during the run.
        cycles: scheduling cycles run.
        pending: pods still pending at the end.
        waiting: pods still waiting at Permit at the end.
        clock_advanced: seconds the fake clock was moved forward.
        stalled: True when the run stopped because pods kept cycling through the queue without
            any progress (no pod bound or removed, time not moving) -- for instance a gang that
            can never fit whose members keep re-activating each other. kube-scheduler would retry
            such pods for ever; ``run_until_idle`` returns instead, leaving them pending.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    scheduled: int
    failed: int
    cycles: int
    pending: int
    waiting: int = 0
    clock_advanced: float = 0.0
    stalled: bool = False


@attrs.define(slots=True)
class _Binding:
    fwk: Framework
    state: CycleState
    pinfo: QueuedPodInfo
    host: str
    start: float
    original: Pod
    #: the binding was confirmed (nothing to undo any more)
    bound: bool = False
    #: the failure path (Unreserve, forget, requeue) ran
    undone: bool = False


# --------------------------------------------------------------------------------------------
# the scheduler


@final
class Scheduler:
    """An embeddable kube-scheduler.

    Args:
        config: a :class:`~schedframe.SchedulerConfiguration`, or a ``KubeSchedulerConfiguration``
            mapping; default: upstream's default configuration.
        clock: time source; default a new :class:`~schedframe.FakeClock` (deterministic mode) or
            the wall clock (threaded mode).
        seed: seeds the RNG that breaks ties between equally scored nodes.
        registry: the plugins; default the in-tree registry plus the plugins of installed
            distributions' ``schedframe`` entry points (see *load_entry_points*).
        binder: performs bindings (default :class:`InMemoryBinder`).
        threaded: run binding cycles in worker threads, with real Permit waits.
        objects: initial cluster objects (api objects or manifests): Nodes and Pods go to
            :meth:`add_node` / :meth:`add_pod` (after the other objects, in the order given),
            Namespaces, Services, PDBs... to the object store; anything else raises
            :class:`~schedframe.ArgumentTypeError`.
        plugin_manager: a pluggy ``PluginManager`` whose observer hooks
            (``schedframe_pod_scheduled``...) are called.
        workers: binding threads in threaded mode (default: the configuration's parallelism).
        pop_from_backoff_q: upstream's ``SchedulerPopFromBackoffQ`` (on by default).
        load_entry_points: without a *registry*, load the ``schedframe`` entry points of
            installed distributions into the in-tree registry (and *plugin_manager*, whose
            observer hooks they may implement); ``False`` uses the in-tree plugins only. A
            distribution that fails to load raises :class:`~schedframe.PluginLoadError` naming
            it and its entry point. Ignored when *registry* is given.
        verify_snapshots: debug mode: after every scheduling cycle compare the snapshot with the
            cache (O(nodes + pods) per cycle) and raise :class:`~schedframe.CacheError` naming
            the pod whose cycle modified a NodeInfo (a plugin mutating what it was given); the
            snapshot is rebuilt from the cache before raising. Off by default: plugins get the
            snapshot's NodeInfos themselves, not copies, and must treat them as read-only
            (:meth:`verify_snapshot` checks on demand).
        extender_transport: how the configuration's extenders are called: a callable
            ``(url, payload, timeout) -> decoded JSON`` (e.g. an in-process extender); default
            HTTP(S) with the standard library. See :class:`~schedframe.HTTPExtender`.

        tie_break: ``None`` (upstream: equally scored best nodes are chosen uniformly at random),
            or a key function of the node name: the best node with the smallest key wins (a
            fixed node order, as simulators such as the FGD paper's artefact use).
        pod_deleter: how preemption victims are deleted. ``None`` (default): removed from the
            scheduler at once, as a simulated API server would. A callable ``(pod) -> None``
            deletes through a real API instead (:mod:`schedframe.kube`); the victim stays in the
            cache, holding its resources, until the deletion is observed (:meth:`remove_pod`),
            as in kube-scheduler.

    Attributes:
        extenders: the extenders built from the configuration, in call order (ignorable ones
            last, as upstream).

    .. versionadded:: 0.1.0
    .. versionchanged:: 0.2.0
       ``objects`` accepts Nodes and Pods; safe to drive from several threads; entry-point
       plugins are discovered by default (*load_entry_points*); scheduler extenders
       (*extender_transport*).
    """

    __module__ = "schedframe"

    def __init__(self, config: Any = None, *, clock: Clock | None = None, seed: int = 0,
                 registry: Registry | None = None, binder: Binder | None = None, threaded: bool = False,
                 objects: Iterable[Any] = (), plugin_manager: Any = None, workers: int | None = None,
                 pop_from_backoff_q: bool = True, load_entry_points: bool = True,
                 verify_snapshots: bool = False,
                 extender_transport: ExtenderTransport | None = None,
                 tie_break: Callable[[str], Any] | None = None,
                 pod_deleter: Callable[[Pod], None] | None = None) -> None:
        from ..config.configuration import SchedulerConfiguration

        if registry is None:
            from ..plugins import in_tree_registry

            registry = in_tree_registry()
            if load_entry_points:
                import pluggy

                from ..framework.plugin_manager import discover_plugins

                if plugin_manager is None or isinstance(plugin_manager, pluggy.PluginManager):
                    plugin_manager = discover_plugins(registry, plugin_manager)
                else:  # a stand-in carrying observer hooks only (the simulator's): plugins, no hooks
                    discover_plugins(registry, None)
        if config is None:
            config = SchedulerConfiguration.default(registry=registry)
        elif isinstance(config, Mapping):
            config = SchedulerConfiguration.from_dict(config, registry=registry)
        elif not isinstance(config, SchedulerConfiguration):
            raise SchedulerError(
                f"config must be a SchedulerConfiguration or a KubeSchedulerConfiguration mapping, "
                f"got {type(config).__name__}")
        self.config: SchedulerConfiguration = config
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool)):
            raise ArgumentTypeError(f"Scheduler: seed must be an int, got {type(seed).__name__}")
        if clock is not None and not callable(getattr(clock, "now", None)):
            raise ArgumentTypeError(f"Scheduler: clock must be a Clock (an object with a now() method), "
                                    f"got {type(clock).__name__}")
        if binder is not None and not callable(getattr(binder, "bind", None)):
            raise ArgumentTypeError(f"Scheduler: binder must be a Binder (an object with a bind(pod, "
                                    f"node_name) method), got {type(binder).__name__}")
        if workers is not None and (not isinstance(workers, int) or isinstance(workers, bool)
                                    or workers < 1):
            shown = workers if isinstance(workers, int) else type(workers).__name__
            raise ArgumentTypeError(f"Scheduler: workers must be a positive int or None, got {shown}")
        if isinstance(objects, (str, bytes, Mapping)) or not isinstance(objects, Iterable):
            raise ArgumentTypeError(f"Scheduler: objects must be an iterable of api objects or "
                                    f"manifests, got {type(objects).__name__}")
        self.threaded = threaded
        self.verify_snapshots = verify_snapshots
        if clock is None:
            from ..framework.clock import RealClock

            clock = RealClock() if threaded else FakeClock()
        self.clock: Clock = clock
        self.registry = registry
        self._rng = random.Random(seed)
        self._tie_break = tie_break
        if pod_deleter is not None and not callable(pod_deleter):
            raise ArgumentTypeError(
                f"Scheduler: pod_deleter must be callable, got {type(pod_deleter).__name__}")
        self._pod_deleter = pod_deleter
        self._pm = plugin_manager
        self._lock = threading.RLock()

        self.objects = ObjectStore()
        # nodes and pods wait until the cache and the queue exist
        initial: list[Node | Pod] = []
        for i, obj in enumerate(objects):
            o = _as_object(obj, f"Scheduler: objects[{i}]")
            if isinstance(o, (Node, Pod)):
                initial.append(o)
            else:
                self.objects.add(o)
        self.cache = Cache()
        self._snapshot = Snapshot()
        self._pods: dict[str, Pod] = {}
        # pods in phase Succeeded or Failed: known (so update_pod and remove_pod accept them), but
        # never in the cache, the queue or the listers (upstream's informers filter them out)
        self._terminal: dict[str, Pod] = {}
        self._keys: dict[str, str] = {}
        self._by_namespace: dict[str, dict[str, None]] = {}
        self._nodes: dict[str, Node] = {}
        self._unbound: dict[str, None] = {}
        self._failures: dict[str, tuple[str, frozenset[str]]] = {}
        self._parked: dict[str, _Binding] = {}
        self._next_start_node_index = 0
        self._current: tuple[Pod, str] | None = None
        self._last_cycle_pod = ""
        self._counts = {"bound": 0, "failed": 0, "cycles": 0}

        self.binder: Binder = binder if binder is not None else InMemoryBinder()
        self.client = SchedulerClient(self.binder, self._client_delete_pod, self._client_set_nominated)
        self.recorder = InMemoryEventRecorder()
        self.nominator = PodNominator(self._live_pod)
        self.waiting_pods = WaitingPods()
        self.frameworks: dict[str, Framework] = {}
        for profile in config.profiles:
            profile = _with_extender_ignored_resources(profile, config)
            self.frameworks[profile.scheduler_name] = Framework(
                registry, profile, objects=self.objects, clock=self.clock, client=self.client,
                event_recorder=self.recorder, nominator=self.nominator,
                pod_activator=self._activate_pods, waiting_pods=self.waiting_pods,
                parallelism=config.parallelism, snapshot=self._snapshot)
        for fwk in self.frameworks.values():
            # plugins that list pods (Coscheduling's PodLister protocol) find them on the handle
            setattr(fwk, "list_pods", self.list_pods)  # noqa: B010
        self.extenders: tuple[Extender, ...] = _build_extenders(config, extender_transport)
        for fwk in self.frameworks.values():
            fwk.set_extenders(self.extenders)
        self.queue = SchedulingQueue(
            self.frameworks, clock=self.clock,
            pod_initial_backoff=config.pod_initial_backoff_seconds,
            pod_max_backoff=config.pod_max_backoff_seconds,
            pop_from_backoff_q=pop_from_backoff_q, nominator=self.nominator)
        self.objects.watch(self._object_written)

        self._executor: concurrent.futures.ThreadPoolExecutor | None = None
        self._futures: set[concurrent.futures.Future[None]] = set()
        if threaded:
            self._executor = concurrent.futures.ThreadPoolExecutor(
                max_workers=workers or config.parallelism, thread_name_prefix="schedframe-binding")
        self._closed = False
        for o in initial:
            if isinstance(o, Node):
                self.add_node(o)
            else:
                self.add_pod(o)

    # ------------------------------------------------------------------------------------------
    # lifecycle

    def close(self) -> None:
        """Stop the binding threads (threaded mode): pods still waiting at Permit are rejected,
        running binding cycles finish. Idempotent."""
        if self._closed:
            return
        self._closed = True
        if self._executor is not None:
            self.waiting_pods.iterate(lambda wp: wp.reject("", "scheduler closed"))
            self._executor.shutdown(wait=True)

    def __enter__(self) -> Scheduler:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ------------------------------------------------------------------------------------------
    # inspection

    @property
    def events(self) -> list[RecordedEvent]:
        """Kubernetes-style events recorded so far (``Scheduled``, ``FailedScheduling``, ...);
        the default recorder keeps the most recent 10,000."""
        return list(self.recorder.events)

    def node_of(self, pod: Pod | str) -> str | None:
        """The node *pod* (a Pod, ``"namespace/name"`` key or uid) is bound to, or ``None``
        (also for a pod in phase Succeeded or Failed, which holds nothing any more)."""
        p = self._lookup(_pod_ref_arg(pod, "Scheduler.node_of"))
        if p is None or not p.node_name:
            return None
        return p.node_name

    def get_pod(self, pod: Pod | str) -> Pod | None:
        """The scheduler's latest version of *pod* (a Pod, key or uid), or ``None``; finds pods
        in phase Succeeded or Failed too."""
        ref = _pod_ref_arg(pod, "Scheduler.get_pod")
        with self._lock:
            found = self._lookup(ref)
            return found if found is not None else self._lookup_terminal(ref)

    def pods(self) -> list[Pod]:
        """Every pod the scheduler works with, bound or not (pods in phase Succeeded or Failed
        are left out: :meth:`get_pod` finds them)."""
        with self._lock:
            return list(self._pods.values())

    def list_pods(self, namespace: str | None = None) -> list[Pod]:
        """The pods of *namespace* (every namespace for ``None``), pending and bound, as the
        scheduler's pod informer lists them (without pods in phase Succeeded or Failed)."""
        if namespace is not None and not isinstance(namespace, str):
            raise ArgumentTypeError(f"Scheduler.list_pods: namespace must be a str or None, got "
                                    f"{type(namespace).__name__}")
        with self._lock:
            if namespace is None:
                return list(self._pods.values())
            pods = self._pods
            return [pods[uid] for uid in self._by_namespace.get(namespace, ())]

    def nodes(self) -> list[Node]:
        """Every node, in the order they were added."""
        with self._lock:
            return list(self._nodes.values())

    def bindings(self) -> dict[str, str]:
        """``{pod key: node name}`` of every bound pod."""
        with self._lock:
            return {p.key: p.node_name for p in self._pods.values() if p.node_name}

    def pending(self) -> list[PendingPod]:
        """The pods this scheduler is responsible for and has not bound, with their last failure
        message and rejecting plugins, in the order they were added."""
        with self._lock:
            out = []
            for uid in self._unbound:
                pod = self._pods[uid]
                message, plugins = self._failures.get(uid, ("", frozenset()))
                where = self.queue.where(uid)
                if where is None:
                    where = "InFlight"
                qinfo = self.queue.get(uid)
                attempts = 0
                if qinfo is not None:
                    attempts = qinfo.attempts
                    if qinfo.gated:
                        where = "Gated"
                        message = message or self.queue.gating_message(uid)
                        plugins = plugins | {qinfo.gating_plugin}
                out.append(PendingPod(pod, message, plugins, where, attempts))
            return out

    def _lookup(self, pod: Pod | str) -> Pod | None:
        if isinstance(pod, Pod):
            found = self._pods.get(pod.uid)
            if found is not None:
                return found
            uid = self._keys.get(pod.key)
        else:
            uid = self._keys.get(pod, pod)
        return self._pods.get(uid) if uid is not None else None

    def _lookup_terminal(self, pod: Pod | str) -> Pod | None:
        if isinstance(pod, Pod):
            found = self._terminal.get(pod.uid)
            if found is not None:
                return found
            uid = self._keys.get(pod.key)
        else:
            uid = self._keys.get(pod, pod)
        return self._terminal.get(uid) if uid is not None else None

    def _live_pod(self, pod: Pod) -> Pod | None:
        # the nominator's "pod lister" (lock-free: a dict read)
        return self._pods.get(pod.uid)

    def _responsible(self, pod: Pod) -> bool:
        return pod.scheduler_name in self.frameworks

    # ------------------------------------------------------------------------------------------
    # event handlers: nodes

    def add_node(self, node: Node | Mapping[str, Any]) -> Node:
        """A node joined the cluster (an api object or a v1 manifest); returns the Node."""
        n = _as_node(node, "Scheduler.add_node")
        with self._lock:
            if n.name in self._nodes:
                raise SchedulerError(f"node {n.name!r} already exists; use update_node to change it")
            self._nodes[n.name] = n
            self.cache.add_node(n)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, n)
        return n

    def update_node(self, node: Node | Mapping[str, Any]) -> Node:
        """A node changed; each change the scheduler cares about (labels, taints, allocatable,
        conditions, annotations, uncordon) is delivered as its own cluster event."""
        n = _as_node(node, "Scheduler.update_node")
        with self._lock:
            old = self._nodes.get(n.name)
            if old is None:
                raise SchedulerError(f"node {n.name!r} is unknown; add it with add_node first")
            self._nodes[n.name] = n
            self.cache.update_node(old, n)
            for event in node_scheduling_properties_change(n, old):
                self.queue.move_all_to_active_or_backoff_queue(event, old, n)
        return n

    def remove_node(self, node: Node | str) -> None:
        """A node left the cluster (a Node or its name). Pods bound to it stay until removed."""
        if isinstance(node, Node):
            name = node.name
        elif isinstance(node, str):
            name = node
        else:
            raise ArgumentTypeError(f"Scheduler.remove_node: node must be a Node or a node name (str), "
                                    f"got {type(node).__name__}")
        with self._lock:
            old = self._nodes.pop(name, None)
            if old is None:
                raise SchedulerError(f"node {name!r} is unknown, so it cannot be removed")
            self.queue.move_all_to_active_or_backoff_queue(EVENT_NODE_DELETE, old, None)
            self.cache.remove_node(name)

    # ------------------------------------------------------------------------------------------
    # event handlers: pods

    def add_pod(self, pod: Pod | Mapping[str, Any]) -> Pod:
        """A pod was created (an api object or a v1 manifest); returns the Pod.

        A pod with ``node_name`` is bound: it goes to the cache. A pending pod goes to the queue if
        one of the profiles schedules it (``spec.schedulerName``); pods for other schedulers are
        only remembered. A pod in phase Succeeded or Failed holds nothing: it is remembered (so
        :meth:`update_pod` and :meth:`remove_pod` accept it, :meth:`get_pod` finds it) but never
        reaches the cache, the queue or the pod listers, as upstream's informers filter terminal
        pods out.
        """
        p = _as_pod(pod, "Scheduler.add_pod")
        with self._lock:
            if p.uid in self._pods or p.uid in self._terminal or p.key in self._keys:
                raise SchedulerError(f"pod {p.key!r} already exists; use update_pod to change it")
            self._keys[p.key] = p.uid
            if _is_terminal(p):
                self._terminal[p.uid] = p
                return p
            self._pods[p.uid] = p
            self._by_namespace.setdefault(p.namespace, {})[p.uid] = None
            if p.node_name:
                self.cache.add_pod(p)
                self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, p)
            elif self._responsible(p):
                self._unbound[p.uid] = None
                try:
                    self.queue.add(p)
                except BaseException as exc:
                    # a PreEnqueue or QueueSort plugin interrupted the add: the queue kept the pod
                    # (in backoff); say why it waits, then let the interruption through
                    self._failures[p.uid] = (f"adding the pod to the scheduling queue was "
                                             f"interrupted: {type(exc).__name__}: {exc}", frozenset())
                    raise
        return p

    def update_pod(self, pod: Pod | Mapping[str, Any]) -> Pod:
        """A pod changed (matched to the known pod by uid, else by namespace/name).

        The identity of a pod is its namespace, name and uid: an update changing the namespace
        or the name of a known uid is refused (:class:`~schedframe.SchedulerError`, nothing
        changed), as the API server refuses it. A change of ``spec.schedulerName`` moves the pod
        out of the queue when no profile schedules it any more, and into the queue when one
        does. A pod turning Succeeded or Failed is removed from the cache and the queue, releasing
        everything it held.
        """
        new = _as_pod(pod, "Scheduler.update_pod")
        with self._lock:
            old = self._pods.get(new.uid)
            if old is None:
                old = self._terminal.get(new.uid)
                if old is not None:
                    self._update_terminal(old, new)
                    return new
                uid = self._keys.get(new.key)
                if uid is not None:
                    raise SchedulerError(
                        f"pod {new.key!r} exists with uid {uid!r}, not {new.uid!r}; remove it first")
                raise SchedulerError(f"pod {new.key!r} is unknown; add it with add_pod first")
            if old == new:  # an update carrying the same object (upstream skips those too)
                return old
            if old.key != new.key:
                raise SchedulerError(
                    f"pod with uid {new.uid!r} is {old.key!r}; an update cannot rename it to "
                    f"{new.key!r} (the namespace and name of a pod are immutable: delete it and "
                    "create the new one)")
            if old.node_name and not new.node_name and not _is_terminal(new):
                # the API server refuses to clear spec.nodeName: such an update was made from a
                # copy read before the pod was bound (e.g. racing with a binding thread)
                raise SchedulerError(
                    f"pod {new.key!r} was bound to node {old.node_name!r}; an update cannot unbind "
                    "it (made from a copy read before the binding? read it again with get_pod)")
            if _is_terminal(new):
                # upstream's informers see a pod leaving the non-terminal set as deleted
                self._remove_known_pod(old)
                self._keys[new.key] = new.uid
                self._terminal[new.uid] = new
                self._resume_after_removal()
                return new
            self._apply_pod_update(old, new)
            if self._parked:
                self._resume_after_removal()  # a waiting pod may have been rejected
        return new

    def _update_terminal(self, old: Pod, new: Pod) -> None:
        if old.key != new.key:
            raise SchedulerError(
                f"pod with uid {new.uid!r} is {old.key!r}; an update cannot rename it to {new.key!r} "
                "(the namespace and name of a pod are immutable)")
        if not _is_terminal(new):
            raise SchedulerError(
                f"pod {new.key!r} is in phase {old.phase}, which is final; an update cannot move it "
                f"to phase {new.phase}")
        self._terminal[new.uid] = new

    def _apply_pod_update(self, old: Pod, new: Pod) -> None:
        self._pods[new.uid] = new
        if old.node_name:
            self.cache.update_pod(old, new)
            for event in pod_scheduling_properties_change(new, old):
                self.queue.move_all_to_active_or_backoff_queue(event, old, new)
            return
        if new.node_name:
            # bound by someone else: the binding event
            self._unbound.pop(new.uid, None)
            self._failures.pop(new.uid, None)
            self.cache.add_pod(new)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, new)
            if self._responsible(old):
                self.queue.delete(old)
            return
        was, now = self._responsible(old), self._responsible(new)
        if was and not now:
            # no profile schedules it any more: it leaves the queue (upstream's filtered informer
            # delivers a delete), and a cycle in flight for it is abandoned
            self._unbound.pop(new.uid, None)
            self._failures.pop(new.uid, None)
            self.queue.delete(old)
            if self.cache.is_assumed(old):
                self._handle_assumed_pod_deletion(old)
            return
        if now and not was:
            # it became ours: an add
            self._unbound[new.uid] = None
            self.queue.add(new)
            return
        if not now:
            return
        if self.cache.is_assumed(new):
            if new.deletion_timestamp is not None and old.deletion_timestamp is None:
                self._handle_assumed_pod_deletion(new)
            return
        self.queue.update(old, new)
        if old.nominated_node_name and old.nominated_node_name != new.nominated_node_name:
            prio = old.effective_priority
            self.queue.move_all_to_active_or_backoff_queue(
                EVENT_ASSIGNED_POD_DELETE, old, None, lambda p: p.effective_priority <= prio)

    def remove_pod(self, pod: Pod | str) -> None:
        """A pod was deleted (a Pod, ``"namespace/name"`` key or uid)."""
        ref = _pod_ref_arg(pod, "Scheduler.remove_pod")
        with self._lock:
            old = self._lookup(ref)
            if old is None:
                gone = self._lookup_terminal(ref)
                if gone is not None:
                    del self._terminal[gone.uid]
                    self._keys.pop(gone.key, None)
                    return
                name = ref.key if isinstance(ref, Pod) else ref
                raise SchedulerError(f"pod {name!r} is unknown, so it cannot be removed")
            self._remove_known_pod(old)
            self._keys.pop(old.key, None)
            self._resume_after_removal()

    def _remove_known_pod(self, old: Pod) -> None:
        """Forget a (non-terminal) pod everywhere but in ``_keys`` (lock held)."""
        del self._pods[old.uid]
        members = self._by_namespace.get(old.namespace)
        if members is not None:
            members.pop(old.uid, None)
            if not members:
                del self._by_namespace[old.namespace]
        self._unbound.pop(old.uid, None)
        self._failures.pop(old.uid, None)
        if old.node_name:
            self.cache.remove_pod(old)
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, old, None)
        elif self._responsible(old):
            self.queue.delete(old)
            if self.cache.is_assumed(old):
                self._handle_assumed_pod_deletion(old)
            elif old.nominated_node_name:
                prio = old.effective_priority
                self.queue.move_all_to_active_or_backoff_queue(
                    EVENT_ASSIGNED_POD_DELETE, old, None, lambda p: p.effective_priority <= prio)

    def _resume_after_removal(self) -> None:
        # a removal may decide parked Permit waits (a gang member gone); not from inside a cycle
        if not self.threaded and self._current is None:
            self._resume_parked()

    def _handle_assumed_pod_deletion(self, pod: Pod) -> None:
        assumed = self.cache.get_pod(pod)
        if assumed is None:
            return
        fwk = self.frameworks.get(assumed.scheduler_name)
        if fwk is None or not fwk.reject_waiting_pod(assumed.uid):
            try:
                self.cache.forget_pod(assumed)
            except CacheError as exc:  # pragma: no cover - raced with the binding cycle
                logger.warning("forgetting deleted assumed pod %s failed: %s", assumed.key, exc)
        self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed, None)

    # ------------------------------------------------------------------------------------------
    # other objects

    def add_object(self, obj: Any) -> Any:
        """Add or replace a cluster object (api object or manifest): a Node goes to
        :meth:`add_node` (:meth:`update_node` when known), a Pod to :meth:`add_pod`
        (:meth:`update_pod` when known); a Namespace, Service, ReplicaSet, StatefulSet,
        ReplicationController, PodDisruptionBudget, PriorityClass or a plugin's own kind (an
        object with a ``name``) to the object store, delivering ``<Kind>Add`` /
        ``<Kind>Update``. Anything else raises :class:`~schedframe.ArgumentTypeError`.

        .. versionchanged:: 0.2.0
           Nodes and Pods are dispatched to the node and pod handlers.
        """
        o = _as_object(obj, "Scheduler.add_object")
        if isinstance(o, Node):
            with self._lock:
                return self.update_node(o) if o.name in self._nodes else self.add_node(o)
        if isinstance(o, Pod):
            with self._lock:
                known = o.uid in self._pods or o.uid in self._terminal
                return self.update_pod(o) if known else self.add_pod(o)
        with self._lock:
            old = self.objects.add(o, notify=False)
            resource = _OBJECT_RESOURCES.get(type(o).__name__)
            if resource is not None:
                action = ActionType.ADD if old is None else ActionType.UPDATE
                self.queue.move_all_to_active_or_backoff_queue(cluster_event(resource, action), old, o)
        return o

    def _object_written(self, old: Any, new: Any) -> None:
        """A plugin wrote to the object store (DynamicResources updating a claim): deliver the
        event as the informer would (the queue has its own lock)."""
        obj = new if new is not None else old
        resource = _OBJECT_RESOURCES.get(type(obj).__name__)
        if resource is None:
            return
        action = ActionType.ADD if old is None else ActionType.DELETE if new is None else ActionType.UPDATE
        self.queue.move_all_to_active_or_backoff_queue(cluster_event(resource, action), old, new)

    def remove_object(self, obj: Any) -> None:
        """Remove a cluster object: a Node through :meth:`remove_node`, a Pod through
        :meth:`remove_pod`, anything added with :meth:`add_object` from the object store
        (delivering ``<Kind>Delete``)."""
        o = _as_object(obj, "Scheduler.remove_object")
        if isinstance(o, Node):
            self.remove_node(o)
            return
        if isinstance(o, Pod):
            self.remove_pod(o)
            return
        with self._lock:
            old = self.objects.remove(o, notify=False)
            if old is None:
                raise SchedulerError(f"{type(o).__name__} {getattr(o, 'name', o)!r} is unknown, so it "
                                     "cannot be removed")
            resource = _OBJECT_RESOURCES.get(type(o).__name__)
            if resource is not None:
                self.queue.move_all_to_active_or_backoff_queue(
                    cluster_event(resource, ActionType.DELETE), old, None)

    # ------------------------------------------------------------------------------------------
    # client side effects

    def _client_delete_pod(self, pod: Pod) -> None:
        current = self._current
        victim = self._lookup(pod)
        if self._pod_deleter is not None:
            self._pod_deleter(victim if victim is not None else pod)
        else:
            self.remove_pod(pod)
        if current is not None and victim is not None:
            preemptor, profile = current
            self._hook("schedframe_pod_preempted", victim=victim, preemptor=preemptor,
                       node_name=victim.node_name, profile=profile)

    def _client_set_nominated(self, pod: Pod, node_name: str) -> None:
        with self._lock:
            cur = self._lookup(pod)
            if cur is None or cur.node_name or cur.nominated_node_name == node_name:
                return
            self._apply_pod_update(cur, cur.evolve(nominated_node_name=node_name))

    def _activate_pods(self, pods: Sequence[Pod]) -> None:
        self.queue.activate(pods)

    # ------------------------------------------------------------------------------------------
    # hooks

    def _hook(self, name: str, **kwargs: Any) -> None:
        pm = self._pm
        if pm is None:
            return
        hook = getattr(pm.hook, name, None)
        if hook is None:
            return
        try:
            hook(**kwargs)
        except Exception as exc:
            logger.warning("observer hook %s raised: %s", name, exc, exc_info=exc)

    # ------------------------------------------------------------------------------------------
    # scheduling

    def schedule_one(self) -> bool:
        """Run one scheduling cycle (and, in deterministic mode, its binding cycle).

        Returns False when no pod was ready to schedule. Safe to call from several threads: the
        cycles run one at a time (see the module docstring).
        """
        if self._closed:
            raise SchedulerError("the scheduler is closed")
        with self._lock:
            return self._schedule_one_locked()

    def verify_snapshot(self, *, repair: bool = True) -> list[str]:
        """Compare the snapshot the cycles read with the cache (see
        :meth:`Cache.verify_snapshot <schedframe.Cache.verify_snapshot>`): the list of
        differences, empty when none. A difference means a plugin modified a NodeInfo (or the
        node list) it was given; with *repair* (the default) the snapshot is then rebuilt from
        the cache at the next cycle, so no decision is taken on the corrupted copy again.

        .. versionadded:: 0.2.0
        """
        with self._lock:
            return self.cache.verify_snapshot(self._snapshot, repair=repair)

    def _schedule_one_locked(self) -> bool:
        scheduled = self._schedule_one_unverified()
        if scheduled and self.verify_snapshots:
            current = self._last_cycle_pod
            problems = self.cache.verify_snapshot(self._snapshot, repair=True)
            if problems:
                raise CacheError(
                    f"the scheduling cycle of pod {current} modified the snapshot: "
                    f"{'; '.join(problems[:5])}; a plugin changed a NodeInfo it was given "
                    "(plugins must treat NodeInfo as read-only); the snapshot is rebuilt from the "
                    "cache")
        return scheduled

    def _schedule_one_unverified(self) -> bool:
        if not self.threaded:
            self._resume_parked()
        pinfo = self.queue.pop()
        if pinfo is None:
            return False
        self._counts["cycles"] += 1
        pod = pinfo.pod
        self._last_cycle_pod = pod.key
        fwk = self.frameworks.get(pod.scheduler_name)
        if fwk is None:  # pragma: no cover - update_pod takes pods of other schedulers out
            self.queue.done(pod.uid)
            return True
        if pod.deletion_timestamp is not None:
            self.recorder.event(pod, "Warning", "FailedScheduling",
                                f"skip schedule deleting pod: {pod.namespace}/{pod.name}")
            self.queue.done(pod.uid)
            return True
        if self.cache.is_assumed(pod):
            self.queue.done(pod.uid)
            return True

        start = self.clock.now()
        state = CycleState()
        self._current = (pod, fwk.profile_name)
        try:
            host, nominating, status = self._scheduling_cycle(state, fwk, pinfo)
        except Exception as exc:
            # a bug escaping the framework must not lose the pod: an ERROR for it alone
            logger.exception("scheduling cycle of %s failed", pod.key)
            self._current = None
            self._abort_assumed(fwk, state, pinfo)
            host, nominating, status = "", _CLEAR_NOMINATED, _internal_error(exc)
        except BaseException as exc:
            # KeyboardInterrupt, SystemExit...: leave the cache and the queue consistent (nothing
            # reserved, assumed or waiting; the pod requeued), then let it through
            self._current = None
            try:
                self._abort_assumed(fwk, state, pinfo)
            finally:
                self._failure_handler(fwk, pinfo, _internal_error(exc), _CLEAR_NOMINATED)
            raise
        finally:
            self._current = None
        if status.code is not _SUCCESS:
            self._failure_handler(fwk, pinfo, status, nominating)
            self._hook("schedframe_cycle_finished", pod=pod, status=status, node_name="",
                       profile=fwk.profile_name, duration=self.clock.now() - start)
            return True
        assumed = pinfo.pod
        binding = _Binding(fwk, state, pinfo, host, start, pod)
        try:
            self._hook("schedframe_pod_scheduled", pod=assumed, node_name=host, profile=fwk.profile_name)
            self._hook("schedframe_cycle_finished", pod=assumed, status=status, node_name=host,
                       profile=fwk.profile_name, duration=self.clock.now() - start)
            future = self._executor.submit(self._binding_thread, binding) if self._executor else None
        except BaseException as exc:
            # an observer hook interrupted (KeyboardInterrupt...), or the executor was shut down
            # by a concurrent close(): the binding cycle never starts, so undo the reservation
            self._binding_cycle_error(binding, _internal_error(exc))
            raise
        if future is not None:
            self._futures.add(future)
            future.add_done_callback(self._binding_done)
        else:
            decision = self._poll_permit(binding)
            if decision is None:
                self._parked[assumed.uid] = binding
            else:
                self._after_permit(binding, decision)
            self._resume_parked()
        return True

    def _scheduling_cycle(self, state: CycleState, fwk: Framework, pinfo: QueuedPodInfo
                          ) -> tuple[str, NominatingInfo | None, Status]:
        pod = pinfo.pod
        try:
            host = self._schedule_pod(fwk, state, pod)
        except FitError as fit:
            if not fwk.has_post_filter_plugins():
                return "", _CLEAR_NOMINATED, Status(Code.UNSCHEDULABLE, (fit.message,), error=fit)
            result, pstatus = fwk.run_post_filter_plugins(state, pod, fit.diagnosis.node_to_status)
            fit.diagnosis.post_filter_msg = pstatus.message
            nominating = result.nominating_info if result is not None else None
            return "", nominating, Status(Code.UNSCHEDULABLE, (fit.message,), error=fit)
        except _CycleError as err:
            return "", _CLEAR_NOMINATED, err.status

        assumed = _assigned(pod, host)
        pinfo.pod_info = attrs.evolve(pinfo.pod_info, pod=assumed)
        try:
            self.cache.assume_pod(assumed)
        except CacheError as exc:
            return "", _CLEAR_NOMINATED, Status.from_error(exc)
        self.nominator.delete(assumed)

        status = fwk.run_reserve_plugins_reserve(state, assumed, host)
        if status.code is not _SUCCESS:
            self._unreserve_and_forget(fwk, state, assumed, host)
            return "", _CLEAR_NOMINATED, _single_node_failure(pod, host, status)

        status = fwk.run_permit_plugins(state, assumed, host)
        if status.code is not _SUCCESS and status.code is not Code.WAIT:
            self._unreserve_and_forget(fwk, state, assumed, host)
            return "", _CLEAR_NOMINATED, _single_node_failure(pod, host, status)

        to_activate = state.pods_to_activate
        if to_activate:
            self.queue.activate(list(to_activate.values()))
            state.pods_to_activate = {}
        return host, None, Status.OK

    def _unreserve_and_forget(self, fwk: Framework, state: CycleState, assumed: Pod, host: str) -> None:
        """Unreserve, then forget the assumed pod -- even when an Unreserve plugin raises a
        BaseException (re-raised once the pod is forgotten)."""
        try:
            fwk.run_reserve_plugins_unreserve(state, assumed, host)
        finally:
            if self.cache.is_assumed(assumed):
                self._forget(assumed)

    def _forget(self, assumed: Pod) -> bool:
        try:
            self.cache.forget_pod(assumed)
        except CacheError as exc:
            logger.warning("scheduler cache forget_pod failed: %s", exc)
            return False
        return True

    def _schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod) -> str:
        snapshot = self._snapshot
        self.cache.update_snapshot(snapshot)
        fwk.set_snapshot(snapshot)
        num_nodes = snapshot.num_nodes()
        if num_nodes == 0:
            raise _CycleError(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NO_NODES_AVAILABLE,)))
        feasible, diagnosis = self._find_nodes_that_fit_pod(fwk, state, pod, snapshot)
        if not feasible:
            raise FitError(pod, num_nodes, diagnosis)
        if len(feasible) == 1:
            return feasible[0].name
        return self._select_host(feasible, self._prioritize_nodes(fwk, state, pod, feasible))

    def _find_nodes_that_fit_pod(self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot
                                 ) -> tuple[list[NodeInfo], Diagnosis]:
        diagnosis = Diagnosis()
        all_nodes = snapshot.list()
        pre_res, status, rejectors = fwk.run_pre_filter_plugins(state, pod)
        diagnosis.unschedulable_plugins = set(rejectors)
        if status.code is not _SUCCESS:
            if not status.is_rejected():
                raise _CycleError(status)
            diagnosis.node_to_status.absent_nodes_status = status
            diagnosis.pre_filter_msg = status.message
            diagnosis.add_plugin_status(status)
            return [], diagnosis

        if pod.nominated_node_name:
            nominated = snapshot.get(pod.nominated_node_name)
            if nominated is not None:
                feasible, err = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [nominated])
                if err is None and feasible and self.extenders:
                    feasible, err = self._find_nodes_that_pass_extenders(pod, feasible, diagnosis)
                if err is None and feasible:
                    return feasible, diagnosis

        nodes: Sequence[NodeInfo] = all_nodes
        if pre_res is not None and pre_res.node_names is not None:
            get = snapshot.get
            nodes = [ni for name in sorted(pre_res.node_names) if (ni := get(name)) is not None]
            diagnosis.node_to_status.absent_nodes_status = Status(
                Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                (f"node(s) didn't satisfy plugin(s) {_go_list(sorted(rejectors))}",))
        feasible, err = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes)
        processed = len(feasible) + len(diagnosis.node_to_status)
        self._next_start_node_index = (self._next_start_node_index + processed) % len(all_nodes)
        if err is not None:
            raise _CycleError(err)
        if self.extenders:
            feasible, err = self._find_nodes_that_pass_extenders(pod, feasible, diagnosis)
            if err is not None:
                raise _CycleError(err)
        return feasible, diagnosis

    def num_feasible_nodes_to_find(self, percentage: int | None, num_all_nodes: int) -> int:
        """How many feasible nodes to find before scoring (upstream ``numFeasibleNodesToFind``):
        all nodes below 100; else *percentage* (the profile's, else the configuration's; unset or
        0 is adaptive: ``50 - nodes/125`` percent, at least 5%) of them, at least 100."""
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all_nodes
        pct = percentage if percentage is not None else self.config.percentage_of_nodes_to_score
        if not pct:
            pct = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
        return max(num_all_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)

    def _find_nodes_that_pass_filters(self, fwk: Framework, state: CycleState, pod: Pod,
                                      diagnosis: Diagnosis, nodes: Sequence[NodeInfo]
                                      ) -> tuple[list[NodeInfo], Status | None]:
        nodes = nodes if isinstance(nodes, list) else list(nodes)
        n = len(nodes)
        if n == 0:
            return [], None
        to_find = self.num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score, n)
        if not fwk.has_score_plugins() and not self._extenders_filter_or_score:
            to_find = 1
        start = self._next_start_node_index % n
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % n] for i in range(min(to_find, n))], None

        feasible: list[NodeInfo] = []
        remaining = to_find
        statuses = diagnosis.node_to_status
        unsched = diagnosis.unschedulable_plugins
        nominator = self.nominator
        # Nodes with nominated pods go through run_filter_plugins_with_nominated_pods one by one;
        # the runs of nodes between them through the framework's batch search (the same
        # statuses as run_filter_plugins node by node), in round-robin order from *start*.
        if nominator:
            order: Sequence[NodeInfo] = nodes[start:] + nodes[:start] if start else nodes
            marks = [i for i, ni in enumerate(order) if nominator.has_nominated_pods(ni.name)]
            marks.append(n)
        else:
            order, marks = nodes, [n]
        prev = 0
        for mark in marks:
            if prev < mark:
                found, rejected, err = fwk.run_filter_plugins_on_nodes(
                    state, pod, order[prev:mark] if prev or mark < n else order, remaining,
                    0 if nominator else start)
                if rejected:
                    statuses.set_many([(node_info.name, status) for node_info, status in rejected])
                    # rejections share status objects: note each distinct one's plugin once
                    for status in {id(status): status for _ni, status in rejected}.values():
                        plugin = status.plugin
                        if plugin:
                            if status.code is Code.PENDING:
                                diagnosis.pending_plugins.add(plugin)
                            unsched.add(plugin)
                feasible.extend(found)
                if err is not None:
                    return feasible, err
                remaining -= len(found)
                if not remaining:
                    break
            if mark == len(order):
                break
            node_info = order[mark]
            prev = mark + 1
            status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
            code = status.code
            if code is _SUCCESS:
                feasible.append(node_info)
                remaining -= 1
                if not remaining:
                    break
                continue
            if code is Code.ERROR:
                return feasible, status
            statuses.set(node_info.name, status)
            plugin = status.plugin
            if plugin:
                if code is Code.PENDING:
                    diagnosis.pending_plugins.add(plugin)
                unsched.add(plugin)
        return feasible, None

    def _prioritize_nodes(self, fwk: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                          ) -> list[int]:
        """Each node's total weighted score, in node order (all 1 without Score plugins and
        extenders), extenders' prioritize scores added."""
        if not fwk.has_score_plugins() and not self.extenders:
            return [1] * len(nodes)
        status = fwk.run_pre_score_plugins(state, pod, nodes)
        if status.code is not _SUCCESS:
            raise _CycleError(status)
        totals, status = fwk.run_score_plugins_totals(state, pod, nodes)
        if status.code is not _SUCCESS:
            raise _CycleError(status)
        if self.extenders:
            totals = self._add_extender_scores(pod, nodes, list(totals))
        return totals

    def _select_host(self, nodes: Sequence[NodeInfo], totals: Sequence[int]) -> str:
        """The node with the highest total score; ties broken uniformly at random with the seeded
        RNG (the distribution of upstream's reservoir sampling in ``selectHost``, one draw)."""
        max_score = max(totals)
        count = totals.count(max_score)
        if count == 1:
            return nodes[totals.index(max_score)].name
        ties = list(compress(range(len(totals)), map(operator.eq, totals, repeat(max_score))))
        if self._tie_break is not None:
            return min((nodes[i].name for i in ties), key=self._tie_break)
        return nodes[ties[self._rng.randrange(count)]].name

    # ------------------------------------------------------------------------------------------
    # binding

    def _binding_thread(self, binding: _Binding) -> None:
        interrupted: BaseException | None = None
        try:
            decision = binding.fwk.wait_on_permit(binding.pinfo.pod, block=True)
        except BaseException as exc:
            if isinstance(exc, Exception):
                logger.exception("waiting on permit for %s failed", binding.pinfo.pod.key)
            else:
                interrupted = exc
            self.waiting_pods.remove(binding.pinfo.pod.uid)
            decision = _internal_error(exc)
        self._after_permit(binding, decision if decision is not None else Status.OK)
        if interrupted is not None:
            raise interrupted

    def _binding_done(self, future: concurrent.futures.Future[None]) -> None:
        with self._lock:
            self._futures.discard(future)
        if not future.cancelled():
            exc = future.exception()
            if exc is not None:  # a BaseException, after the cycle was undone
                logger.error("a binding thread was interrupted by %s: %s", type(exc).__name__, exc)

    def _resume_parked(self) -> bool:
        """Continue the binding cycles of parked pods whose Permit wait is decided; returns
        whether any did."""
        with self._lock:
            return self._resume_parked_locked()

    def _resume_parked_locked(self) -> bool:
        any_progress = False
        while self._parked:
            progressed = False
            for uid, binding in list(self._parked.items()):
                decision = self._poll_permit(binding)
                if decision is None:
                    continue
                del self._parked[uid]
                self._after_permit(binding, decision)
                progressed = True
            if not progressed:
                break
            any_progress = True
        return any_progress

    def _poll_permit(self, b: _Binding) -> Status | None:
        try:
            return b.fwk.wait_on_permit(b.pinfo.pod, block=False)
        except Exception as exc:
            logger.exception("waiting on permit for %s failed", b.pinfo.pod.key)
            self.waiting_pods.remove(b.pinfo.pod.uid)
            return _internal_error(exc)

    def _abort_assumed(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo) -> None:
        """Undo what a cycle that crashed may have done: waiting, reservation, assumption."""
        pod = pinfo.pod
        self.waiting_pods.remove(pod.uid)
        if pod.node_name and self.cache.is_assumed(pod):
            self._unreserve_and_forget(fwk, state, pod, pod.node_name)

    def _after_permit(self, b: _Binding, decision: Status) -> None:
        try:
            self._after_permit_unsafe(b, decision)
        except Exception as exc:
            if b.bound or b.undone:  # pragma: no cover - PostBind and the hooks catch their own
                raise
            logger.exception("binding cycle of %s failed", b.pinfo.pod.key)
            self._binding_cycle_error(b, _internal_error(exc))
        except BaseException as exc:
            # KeyboardInterrupt, SystemExit... in PreBind, Bind (or a binder): unreserve, forget
            # and requeue first, so nothing stays assumed, then let it through. Once bound (an
            # interruption in PostBind) there is nothing to undo.
            if not b.bound and not b.undone:
                self._binding_cycle_error(b, _internal_error(exc))
            raise

    def _after_permit_unsafe(self, b: _Binding, decision: Status) -> None:
        fwk, state, pinfo, host = b.fwk, b.state, b.pinfo, b.host
        assumed = pinfo.pod
        if decision.code is not _SUCCESS:
            if decision.is_rejected():
                diagnosis = Diagnosis()
                diagnosis.node_to_status.set(host, decision)
                diagnosis.unschedulable_plugins = {decision.plugin}
                fit = FitError(assumed, 1, diagnosis)
                decision = Status(decision.code, (fit.message,), decision.plugin, fit)
            self._binding_cycle_error(b, decision)
            return
        with self._lock:
            self.queue.done(assumed.uid)
        status = fwk.run_pre_bind_plugins(state, assumed, host)
        if status.code is _SUCCESS:
            bound_by_extender = self._extenders_binding(assumed, host) if self.extenders else None
            status = (fwk.run_bind_plugins(state, assumed, host) if bound_by_extender is None
                      else bound_by_extender)
            self.cache.finish_binding(assumed)
        if status.code is not _SUCCESS:
            self._binding_cycle_error(b, status)
            return
        self.recorder.event(assumed, "Normal", "Scheduled",
                            f"Successfully assigned {assumed.namespace}/{assumed.name} to {host}")
        bound = self._confirm_bound(assumed, host, b.original)
        b.bound = True
        if bound is not None:
            self._hook("schedframe_pod_bound", pod=bound, node_name=host, profile=fwk.profile_name)
        fwk.run_post_bind_plugins(state, assumed, host)
        to_activate = state.pods_to_activate
        if to_activate:
            with self._lock:
                self.queue.activate(list(to_activate.values()))

    def _confirm_bound(self, assumed: Pod, host: str, original: Pod) -> Pod | None:
        """The API server confirmed the binding: the pod is bound (an ``AssignedPodAdd``)."""
        with self._lock:
            cur = self._pods.get(assumed.uid)
            if cur is None:  # deleted while binding
                if self.cache.is_assumed(assumed):
                    self._forget(assumed)
                return None
            bound = assumed if cur is original else _assigned(cur, host)
            self._pods[bound.uid] = bound
            self._unbound.pop(bound.uid, None)
            self._failures.pop(bound.uid, None)
            try:
                self.cache.add_pod(bound)
            except CacheError as exc:  # already confirmed: a live informer saw the binding first
                logger.debug("confirming binding of %s: %s", bound.key, exc)
            self._counts["bound"] += 1
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, bound)
            return bound

    def _binding_cycle_error(self, b: _Binding, status: Status) -> None:
        # the lock first, then the queue's (plugins' hints and PreEnqueue may list pods)
        with self._lock:
            self._binding_cycle_error_locked(b, status)

    def _binding_cycle_error_locked(self, b: _Binding, status: Status) -> None:
        b.undone = True
        assumed = b.pinfo.pod
        try:
            b.fwk.run_reserve_plugins_unreserve(b.state, assumed, b.host)
        except BaseException:
            # an interrupted Unreserve: still forget and requeue, then let it through
            if self.cache.is_assumed(assumed):
                self._forget(assumed)
            self._failure_handler(b.fwk, b.pinfo, status, _CLEAR_NOMINATED)
            raise
        forgotten = self.cache.is_assumed(assumed) and self._forget(assumed)
        deferred = False
        if forgotten:
            if status.is_rejected():
                deferred = True
            else:
                self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed, None)
        self._failure_handler(b.fwk, b.pinfo, status, _CLEAR_NOMINATED)
        if deferred:
            uid = assumed.uid
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed, None,
                                                           lambda p: p.uid != uid)

    def _failure_handler(self, fwk: Framework, pinfo: QueuedPodInfo, status: Status,
                         nominating: NominatingInfo | None) -> None:
        pod = pinfo.pod
        uid = pod.uid
        err = status.error
        if isinstance(err, FitError):
            pinfo.unschedulable_plugins = set(err.diagnosis.unschedulable_plugins)
            pinfo.pending_plugins = set(err.diagnosis.pending_plugins)
        message = status.message
        with self._lock:
            cached = self._pods.get(uid)
            if cached is not None and not self._responsible(cached):
                cached = None  # now another scheduler's pod: it left the queue
            if cached is None or cached.node_name:
                self.queue.done(uid)
            else:
                if pinfo.pod_info.pod is not cached:
                    pinfo.pod_info = PodInfo.of(cached)
                self.queue.add_unschedulable_if_not_present(pinfo)
            self.queue.add_nominated_pod(pinfo.pod_info, nominating)
            self._counts["failed"] += 1
            if cached is not None and not cached.node_name:
                self._failures[uid] = (message, frozenset(pinfo.unschedulable_plugins
                                                          | pinfo.pending_plugins))
        self.recorder.event(pod, "Warning", "FailedScheduling", message)
        self._hook("schedframe_pod_failed", pod=pod, status=status, profile=fwk.profile_name)
        if (nominating is not None and nominating.mode == NominatingMode.OVERRIDE and cached is not None
                and not cached.node_name and cached.nominated_node_name != nominating.nominated_node_name):
            with self._lock:
                cur = self._pods.get(uid)
                if cur is not None and not cur.node_name:
                    nominated = cur.evolve(nominated_node_name=nominating.nominated_node_name)
                    self._apply_pod_update(cur, nominated)

    # ------------------------------------------------------------------------------------------
    # extenders (upstream findNodesThatPassExtenders, prioritizeNodes, extendersBinding)

    @property
    def _extenders_filter_or_score(self) -> bool:
        return any(e.is_filter() or e.is_prioritizer() for e in self.extenders)

    def _find_nodes_that_pass_extenders(self, pod: Pod, feasible: list[NodeInfo], diagnosis: Diagnosis
                                        ) -> tuple[list[NodeInfo], Status | None]:
        """Run the interested extenders' filter verbs in turn on the feasible nodes. Failed nodes
        get their reasons as statuses (failed-and-unresolvable wins); an ignorable extender that
        errs is skipped, any other fails the cycle with an ERROR."""
        before = len(feasible)
        statuses = diagnosis.node_to_status
        for extender in self.extenders:
            if not feasible:
                break
            if not extender.is_interested(pod):
                continue
            try:
                passed, failed, unresolvable = extender.filter(pod, feasible)
            except ExtenderError as exc:
                if extender.is_ignorable():
                    logger.info("skipping extender %s as it returned error and has ignorable flag set: %s",
                                extender.name, exc)
                    continue
                return [], Status.from_error(exc)
            for node_name, message in unresolvable.items():
                statuses.set(node_name, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (message,)))
            for node_name, message in failed.items():
                if node_name not in unresolvable:
                    statuses.set(node_name, Status(Code.UNSCHEDULABLE, (message,)))
            feasible = passed
        if len(feasible) != before:
            diagnosis.unschedulable_plugins.add(EXTENDER_NAME)
        return feasible, None

    def _add_extender_scores(self, pod: Pod, nodes: Sequence[NodeInfo], totals: list[int]) -> list[int]:
        """Add each interested extender's prioritize scores, times its weight, scaled from
        0..MAX_EXTENDER_PRIORITY to 0..MAX_NODE_SCORE; a failing extender gives no scores."""
        index = {ni.name: i for i, ni in enumerate(nodes)}
        scale = MAX_NODE_SCORE // MAX_EXTENDER_PRIORITY
        for extender in self.extenders:
            if not extender.is_interested(pod):
                continue
            try:
                scores, weight = extender.prioritize(pod, nodes)
            except ExtenderError as exc:
                logger.info("failed to run extender %s's priority function, no score given by it: %s",
                            extender.name, exc)
                continue
            for host, score in scores:
                i = index.get(host)
                if i is not None:
                    totals[i] += score * weight * scale
        return totals

    def _extenders_binding(self, pod: Pod, host: str) -> Status | None:
        """Bind through the first interested binder extender: its status, or ``None`` when no
        extender binds the pod (the Bind plugins run). An ignorable binder that fails is skipped.
        The extender binds the pod in the cluster, so the scheduler's binder is not called."""
        for extender in self.extenders:
            if not extender.is_binder() or not extender.is_interested(pod):
                continue
            try:
                extender.bind(pod, host)
            except ExtenderError as exc:
                if extender.is_ignorable():
                    logger.info("skipping extender %s in bind as it returned error and has ignorable "
                                "flag set: %s", extender.name, exc)
                    continue
                return Status.from_error(exc)
            return Status.OK
        return None

    # ------------------------------------------------------------------------------------------
    # driving

    def run_until_idle(self, max_cycles: int | None = None) -> RunSummary:
        """Schedule until nothing can make progress.

        Runs cycles while pods are ready; then, with a :class:`~schedframe.FakeClock` (or by
        sleeping on a real clock), moves time to the next permit deadline or backoff expiry and
        goes on. Pods waiting in the unschedulable pool for an event are left there (the 5-minute
        flush is not forced). Time is moved forward for a given pod at most once until some pod
        gets bound, so a pod whose plugin keeps raising, or a gang that keeps timing out at
        Permit, is retried once and then left pending instead of spinning forever; permit waits
        still running at that point are let run out (the pods are requeued, nothing stays
        reserved). In threaded mode the call also waits for running binding cycles.

        Args:
            max_cycles: stop after this many scheduling cycles.

        Several threads may run it (and :meth:`schedule_one`) on one scheduler at once; each
        returns when it finds nothing left to do.
        """
        if max_cycles is not None and (not isinstance(max_cycles, int) or isinstance(max_cycles, bool)):
            raise ArgumentTypeError(f"Scheduler.run_until_idle: max_cycles must be an int or None, got "
                                    f"{type(max_cycles).__name__}")
        bound0, failed0, cycles0 = self._counts["bound"], self._counts["failed"], self._counts["cycles"]
        t0 = self.clock.now()
        cycles = 0
        # pod uid -> bound count when time was last advanced for it (once per binding progress)
        targeted: dict[str, int] = {}
        stalled = False
        # livelock guard: cycles since something changed (a bind, a pod removed, time moving)
        progress_mark: tuple[int, int, float] = (-1, -1, -1.0)
        idle_cycles = 0
        while max_cycles is None or cycles < max_cycles:
            if self.schedule_one():
                cycles += 1
                # with a real clock time always moves: only binds and removals count there
                now = self.clock.now() if isinstance(self.clock, FakeClock) else 0.0
                mark = (self._counts["bound"], len(self._unbound), now)
                if mark != progress_mark:
                    progress_mark, idle_cycles = mark, 0
                else:
                    idle_cycles += 1
                    if idle_cycles > _STALL_CYCLES_PER_POD * (mark[1] + 1):
                        # pods keep cycling without progress: let time pass (permit waits and
                        # backoffs run out, as they would in real time) before giving up
                        wake = self._next_wakeup(targeted)
                        if wake is not None:
                            self._advance_to(wake)
                            idle_cycles = 0
                            continue
                        logger.warning(
                            "run_until_idle: %d scheduling cycles without any pod bound or removed "
                            "and without time moving; %d pod(s) keep cycling through the queue, "
                            "stopping (RunSummary.stalled)", idle_cycles, mark[1])
                        stalled = True
                        if self._executor is None:
                            self._drain_waiting()  # nothing stays reserved at Permit
                        break
                continue
            if self._executor is not None:
                with self._lock:
                    futures = set(self._futures)
                if futures:
                    done, _ = concurrent.futures.wait(futures, timeout=0.05,
                                                      return_when=concurrent.futures.FIRST_COMPLETED)
                    if done or not isinstance(self.clock, FakeClock):
                        continue
            elif self._resume_parked():
                continue
            wake = self._next_wakeup(targeted)
            if wake is None:
                if self._executor is None:
                    self._drain_waiting()
                break
            self._advance_to(wake)
        if self._executor is not None:
            # binding threads still waiting at Permit: let their waits run out (moving a fake
            # clock past the deadlines) and wait for them, so nothing stays reserved
            self._drain_waiting()
            with self._lock:
                futures = set(self._futures)
            concurrent.futures.wait(futures)
        return RunSummary(
            scheduled=self._counts["bound"] - bound0,
            failed=self._counts["failed"] - failed0,
            cycles=self._counts["cycles"] - cycles0,
            pending=len(self._unbound),
            waiting=len(self.waiting_pods),
            clock_advanced=self.clock.now() - t0,
            stalled=stalled,
        )

    def _next_wakeup(self, targeted: dict[str, int]) -> float | None:
        """The earliest permit deadline or backoff completion of a pod time was not already
        advanced for since the last binding (so a pod that keeps failing is retried once per
        progress, never in a loop); records it in *targeted*."""
        with self._lock:
            return self._next_wakeup_locked(targeted)

    def _next_wakeup_locked(self, targeted: dict[str, int]) -> float | None:
        bound = self._counts["bound"]
        candidates: list[tuple[float, str]] = []
        for wp in self.waiting_pods:
            try:
                deadline = wp.next_deadline()
            except Exception:  # pragma: no cover - a bad Permit timeout reached the waiting pod
                continue
            if deadline is not None:
                candidates.append((deadline, wp.pod.uid))
        candidates.extend(self.queue.backoff_completions())
        candidates.sort()
        for when, uid in candidates:
            if targeted.get(uid) != bound:
                targeted[uid] = bound
                return max(when, self.clock.now())
        return None

    def _drain_waiting(self) -> None:
        """Before going idle, let the permit waits left (pods that keep coming back to Permit
        without anything getting bound) run out, so no pod stays reserved: they are requeued."""
        with self._lock:
            self._drain_waiting_locked()

    def _drain_waiting_locked(self) -> None:
        deadlines: list[float] = []
        for wp in self.waiting_pods:
            try:
                deadline = wp.next_deadline()
            except Exception:  # pragma: no cover - a bad Permit timeout reached the waiting pod
                continue
            if deadline is not None:
                deadlines.append(deadline)
        if deadlines:
            self._advance_to(max(deadlines))
            self._resume_parked()

    def _advance_to(self, when: float) -> None:
        clock = self.clock
        delta = when - clock.now()
        if delta <= 0:
            return
        if isinstance(clock, FakeClock):
            # another thread may have moved it past *when* meanwhile: never backwards
            clock.advance_to(when)
            return
        sleep: Callable[[float], None] | None = getattr(clock, "sleep", None)
        if sleep is not None:
            sleep(delta)

    def __repr__(self) -> str:
        mode = "threaded" if self.threaded else "deterministic"
        return (f"Scheduler({mode}, nodes={len(self._nodes)}, pods={len(self._pods)}, "
                f"pending={len(self._unbound)}, {self.queue.summary()})")


_POD_FIELDS: Final = tuple(a.name for a in attrs.fields(Pod))


def _build_extenders(config: Any, transport: ExtenderTransport | None) -> tuple[Extender, ...]:
    """Upstream ``buildExtenders``: one HTTPExtender per configured extender, ignorable ones
    moved to the end."""
    built = [HTTPExtender.from_config(ext, transport=transport) for ext in config.extenders]
    return (*[e for e in built if not e.is_ignorable()], *[e for e in built if e.is_ignorable()])


def _with_extender_ignored_resources(profile: Any, config: Any) -> Any:
    """Upstream ``buildExtenders``: the extenders' managed resources marked
    ``ignoredByScheduler`` become NodeResourcesFit's ``ignoredResources`` (replacing the
    configured ones). A profile without NodeResourcesFit args is left as it is (upstream refuses
    to start)."""
    ignored = [r.name for ext in config.extenders for r in ext.managed_resources if r.ignored_by_scheduler]
    args = profile.plugin_args.get("NodeResourcesFit")
    if not ignored or args is None or not attrs.has(type(args)) or not hasattr(args, "ignored_resources"):
        return profile
    plugin_args = dict(profile.plugin_args)
    plugin_args["NodeResourcesFit"] = attrs.evolve(args, ignored_resources=tuple(ignored))
    return attrs.evolve(profile, plugin_args=plugin_args)


def _assigned(pod: Pod, node_name: str) -> Pod:
    """*pod* with ``node_name`` set (upstream's assume), without re-running Pod's converters and
    derived-field computations, which do not depend on the node name."""
    new = object.__new__(Pod)
    setter = object.__setattr__
    for name in _POD_FIELDS:
        setter(new, name, getattr(pod, name))
    setter(new, "node_name", node_name)
    return new


def _internal_error(exc: BaseException) -> Status:
    return Status(Code.ERROR, (f"{type(exc).__name__}: {exc}",), error=exc)


def _single_node_failure(pod: Pod, host: str, status: Status) -> Status:
    """Reserve/Permit failures: a rejection becomes a one-node FitError (upstream)."""
    if not status.is_rejected():
        return status
    diagnosis = Diagnosis()
    diagnosis.node_to_status.set(host, status)
    diagnosis.add_plugin_status(status)
    fit = FitError(pod, 1, diagnosis)
    return Status(status.code, (fit.message,), status.plugin, fit)


_TERMINAL_PHASES: Final = frozenset({"Succeeded", "Failed"})


def _is_terminal(pod: Pod) -> bool:
    """Succeeded or Failed: the pod holds nothing (upstream's scheduler informers drop it)."""
    return pod.phase in _TERMINAL_PHASES


def _as_pod(obj: Pod | Mapping[str, Any], where: str) -> Pod:
    if isinstance(obj, Pod):
        return obj
    if isinstance(obj, Mapping):
        return Pod.from_manifest(obj)
    raise ArgumentTypeError(f"{where}: pod must be a Pod or a v1 Pod manifest (mapping), got "
                            f"{type(obj).__name__}")


def _as_node(obj: Node | Mapping[str, Any], where: str) -> Node:
    if isinstance(obj, Node):
        return obj
    if isinstance(obj, Mapping):
        return Node.from_manifest(obj)
    raise ArgumentTypeError(f"{where}: node must be a Node or a v1 Node manifest (mapping), got "
                            f"{type(obj).__name__}")


def _pod_ref_arg(pod: Any, where: str) -> Pod | str:
    if isinstance(pod, (Pod, str)):
        return pod
    raise ArgumentTypeError(f"{where}: pod must be a Pod, a 'namespace/name' key or a uid (str), got "
                            f"{type(pod).__name__}")


def _as_object(obj: Any, where: str) -> Any:
    if isinstance(obj, Mapping):
        from ..api.manifests import object_from_manifest

        return object_from_manifest(obj)
    if isinstance(obj, (str, bytes)) or not isinstance(getattr(obj, "name", None), str):
        raise ArgumentTypeError(f"{where}: expected a cluster object (an api object with a name, such "
                                f"as a Node, Pod or Namespace) or its manifest (mapping), got "
                                f"{type(obj).__name__}")
    return obj
