"""``Scheduler``: the cache, the queue and one framework per profile, driven by event handlers.

Split as upstream splits ``pkg/scheduler``: the event handlers are in ``_eventhandlers``, the
scheduling and binding cycles in ``_schedule_one``, the extender calls in ``_extenders`` (each a
mixin on ``_state.SchedulerBase``); this module composes them and adds construction,
inspection and :meth:`schedframe.Scheduler.run_until_idle`.

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
  clock, a :class:`~schedframe.FakeClock` by default). :meth:`schedframe.Scheduler.run_until_idle` advances
  that clock past backoffs and permit deadlines. Same inputs, same seed, same clock: same
  placements.
* **threaded** (``threaded=True``): binding cycles run in worker threads and wait on Permit in
  real time; :meth:`schedframe.Scheduler.close` (or ``with``) stops the workers.

Threads: a Scheduler may be driven from several threads at once, in either mode. One re-entrant
lock serialises the scheduling cycles (:meth:`schedframe.Scheduler.schedule_one`, the parked binding cycles
of the deterministic mode, moving a fake clock in :meth:`schedframe.Scheduler.run_until_idle`) with the
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
import random
import threading
from collections.abc import Callable, Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..api.objects import Node, Pod
from ..cache.cache import Cache
from ..cache.snapshot import Snapshot
from ..cache.store import ObjectStore
from ..errors import ArgumentTypeError, SchedulerError
from ..framework._tracing import tracing_for
from ..framework.binder import Binder, InMemoryBinder, SchedulerClient
from ..framework.clock import Clock, FakeClock
from ..framework.diagnosis import ERR_NO_NODES_AVAILABLE, Diagnosis, FitError
from ..framework.extender import Extender, ExtenderTransport, build_extenders
from ..framework.interfaces import QueuedPodInfo
from ..framework.registry import Registry
from ..framework.runtime import Framework, InMemoryEventRecorder, RecordedEvent
from ..framework.victims_memo import NodeOutcomes
from ..framework.waiting_pods import WaitingPods
from ..queue.nominator import PodNominator
from ..queue.scheduling_queue import SchedulingQueue
from ._checkpoint import CheckpointMixin
from ._composite import CompositeCycleMixin
from ._eventhandlers import EventHandlersMixin, _as_object, _check_served, _pod_ref_arg
from ._extenders import ExtendersMixin, with_extender_ignored_resources
from ._schedule_one import (
    MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND,
    MIN_FEASIBLE_NODES_TO_FIND,
)
from ._state import _Binding

if TYPE_CHECKING:
    from ..config.configuration import SchedulerConfiguration

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
    """What :meth:`schedframe.Scheduler.run_until_idle` did.

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


def _resolve(config: Any, registry: Registry | None, plugin_manager: Any, *, load_entry_points: bool,
             kubernetes_version: Any, feature_gates: Any,
             paths: bool = False) -> tuple[Registry, Any, SchedulerConfiguration]:
    """The registry, the plugin manager and the configuration a scheduler is built from (see
    :meth:`Scheduler.from_config`): what :class:`Scheduler` resolves once, before anything runs."""
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
    resolved = SchedulerConfiguration.coerce(
        config, registry=registry, kubernetes_version=kubernetes_version, feature_gates=feature_gates,
        paths=paths, error=SchedulerError)
    return registry, plugin_manager, resolved


# --------------------------------------------------------------------------------------------
# the scheduler


@final
class Scheduler(EventHandlersMixin, CompositeCycleMixin, ExtendersMixin, CheckpointMixin):
    """An embeddable kube-scheduler.

    Args:
        config: a :class:`~schedframe.SchedulerConfiguration`, or a ``KubeSchedulerConfiguration``
            mapping; default: upstream's default configuration.
        clock: time source; default a new :class:`~schedframe.FakeClock` (deterministic mode) or
            the wall clock (threaded mode).
        seed: seeds the RNG that breaks ties between equally scored nodes.
        registry: the plugins; default the in-tree registry plus the plugins of installed
            distributions' ``schedframe`` entry points (see *load_entry_points*).
        binder: performs bindings (default :class:`~schedframe.framework.InMemoryBinder`).
        threaded: run binding cycles in worker threads, with real Permit waits.
        objects: initial cluster objects (api objects or manifests): Nodes and Pods go to
            :meth:`add_node` / :meth:`add_pod` (after the other objects, in the order given),
            Namespaces, Services, PDBs... to the object store; anything else raises
            :class:`~schedframe.errors.ArgumentTypeError`.
        plugin_manager: a pluggy ``PluginManager`` whose observer hooks
            (``schedframe_pod_scheduled``...) are called.
        workers: binding threads in threaded mode (default: the configuration's parallelism).
        pop_from_backoff_q: upstream's ``SchedulerPopFromBackoffQ``; ``None`` (default): the
            release's gate (on since 1.33).
        kubernetes_version: the kube-scheduler release to emulate (``"1.33"``; default the
            newest, or the release *config* was read for); see :doc:`/releases`.
        feature_gates: kube-scheduler's ``--feature-gates`` (a mapping or ``"Name=true,..."``).
        load_entry_points: without a *registry*, load the ``schedframe`` entry points of
            installed distributions into the in-tree registry (and *plugin_manager*, whose
            observer hooks they may implement); ``False`` uses the in-tree plugins only. A
            distribution that fails to load raises :class:`~schedframe.errors.PluginLoadError` naming
            it and its entry point. Ignored when *registry* is given.
        verify_snapshots: debug mode: after every scheduling cycle compare the snapshot with the
            cache (O(nodes + pods) per cycle) and raise :class:`~schedframe.errors.CacheError` naming
            the pod whose cycle modified a NodeInfo (a plugin mutating what it was given); the
            snapshot is rebuilt from the cache before raising. Off by default: plugins get the
            snapshot's NodeInfos themselves, not copies, and must treat them as read-only
            (:meth:`verify_snapshot` checks on demand).
        extender_transport: how the configuration's extenders are called: a callable
            ``(url, payload, timeout) -> decoded JSON`` (e.g. an in-process extender); default
            HTTP(S) with the standard library. See :class:`~schedframe.framework.extender.HTTPExtender`.

        tie_break: ``None`` (upstream: equally scored best nodes are chosen uniformly at random),
            or a key function of the node name: the best node with the smallest key wins (a
            fixed node order, as simulators such as the FGD paper's artefact use).
        pod_deleter: how preemption victims are deleted. ``None`` (default): removed from the
            scheduler at once, as a simulated API server would. A callable ``(pod) -> None``
            deletes through a real API instead (:mod:`schedframe.kube`); the victim stays in the
            cache, holding its resources, until the deletion is observed (:meth:`remove_pod`),
            as in kube-scheduler.
        on_pop: called with each :class:`~schedframe.QueuedPodInfo` popped from the scheduling
            queue, before its scheduling cycle runs (under the scheduler's lock; the simulator
            explains the cycle about to run there). Settable later as :attr:`on_pop`.
        tracer_provider: an OpenTelemetry ``TracerProvider``: each scheduling and binding cycle
            becomes a span, with a child per extension point (:doc:`/tracing`). ``None``
            (default): OpenTelemetry's global provider if one is set (the ``otel`` extra),
            else no tracing, at no cost.
        trace_plugins: with tracing, also one span per plugin call (per node at Filter and
            Score: many spans); off by default.

    Attributes:
        extenders: the extenders built from the configuration, in call order (ignorable ones
            last, as upstream).
        on_pop: see the argument; ``None`` for none.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, config: Any = None, *, clock: Clock | None = None, seed: int = 0,
                 registry: Registry | None = None, binder: Binder | None = None, threaded: bool = False,
                 objects: Iterable[Any] = (), plugin_manager: Any = None, workers: int | None = None,
                 pop_from_backoff_q: bool | None = None, load_entry_points: bool = True,
                 verify_snapshots: bool = False,
                 extender_transport: ExtenderTransport | None = None,
                 tie_break: Callable[[str], Any] | None = None,
                 pod_deleter: Callable[[Pod], None] | None = None,
                 on_pop: Callable[[QueuedPodInfo], None] | None = None,
                 kubernetes_version: Any = None, feature_gates: Any = None,
                 tracer_provider: Any = None, trace_plugins: bool = False) -> None:
        registry, plugin_manager, config = _resolve(
            config, registry, plugin_manager, load_entry_points=load_entry_points,
            kubernetes_version=kubernetes_version, feature_gates=feature_gates)
        release = config.release
        if pop_from_backoff_q is None:
            pop_from_backoff_q = release.feature_gates.get("SchedulerPopFromBackoffQ", False)
        self.config: SchedulerConfiguration = config
        # 1.36 on: a pod naming a scheduling.k8s.io PodGroup is scheduled with its group
        self._pod_group_cycles = release.minor >= (1, 36) and release.enabled("GenericWorkload")
        # ... and tried in each of its placements (scheduler/_placements.py)
        self._placements_on = self._pod_group_cycles and release.enabled("TopologyAwareWorkloadScheduling")
        # ... and, with CompositePodGroup, a PodGroup with a parent with its whole tree (_composite.py)
        self._composites_on = self._placements_on and release.enabled("CompositePodGroup")
        self._placement = None
        #: internal, for the oracle's comparator: the order placements are tried in, and the
        #: preference among equally scored ones (a sort key; lowest wins)
        self._placement_order = None
        self._placement_tie_break = None
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
        self._tracing = tracing_for(tracer_provider, clock, plugin_spans=trace_plugins)
        self.registry = registry
        self._rng = random.Random(seed)
        self._tie_break = tie_break
        if pod_deleter is not None and not callable(pod_deleter):
            raise ArgumentTypeError(
                f"Scheduler: pod_deleter must be callable, got {type(pod_deleter).__name__}")
        self._pod_deleter = pod_deleter
        if on_pop is not None and not callable(on_pop):
            raise ArgumentTypeError(f"Scheduler: on_pop must be callable, got {type(on_pop).__name__}")
        self.on_pop: Callable[[QueuedPodInfo], None] | None = on_pop
        self._on_filtered = None
        self._pm = plugin_manager
        self._lock = threading.RLock()

        self.objects = ObjectStore()
        # nodes and pods wait until the cache and the queue exist
        initial: list[Node | Pod] = []
        for i, obj in enumerate(objects):
            o = _as_object(obj, f"Scheduler: objects[{i}]")
            _check_served(o, release.version, f"Scheduler: objects[{i}]")
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
        #: while a 1.36 PodGroup cycle's members preempt one by one, the victims they delete:
        #: upstream deletes them through the API server, so the cycle's snapshot keeps them to its end
        self._deferred_deletes: list[tuple[Pod, tuple[Pod, str] | None]] | None = None
        self._last_cycle_pod = ""
        self._counts = {"bound": 0, "failed": 0, "cycles": 0}
        self._nominated_outcomes = NodeOutcomes()
        self._checkpoints = []

        self.binder: Binder = binder if binder is not None else InMemoryBinder()
        self.client = SchedulerClient(self.binder, self._client_delete_pod, self._client_set_nominated)
        self.recorder = InMemoryEventRecorder()
        self.nominator = PodNominator(self._live_pod)
        self.waiting_pods = WaitingPods()
        self.frameworks: dict[str, Framework] = {}
        for profile in config.profiles:
            profile = with_extender_ignored_resources(profile, config)
            self.frameworks[profile.scheduler_name] = Framework(
                registry, profile, objects=self.objects, clock=self.clock, client=self.client,
                event_recorder=self.recorder, nominator=self.nominator,
                pod_activator=self._activate_pods, waiting_pods=self.waiting_pods,
                parallelism=config.parallelism, snapshot=self._snapshot, pod_lister=self.list_pods,
                _tracing=self._tracing)
            self.frameworks[profile.scheduler_name].pod_assumed = self.cache.is_assumed
        self.extenders: tuple[Extender, ...] = build_extenders(config.extenders, extender_transport)
        for fwk in self.frameworks.values():
            fwk.set_extenders(self.extenders)
        self.queue = SchedulingQueue(
            self.frameworks, clock=self.clock,
            pod_initial_backoff=config.pod_initial_backoff_seconds,
            pod_max_backoff=config.pod_max_backoff_seconds,
            pop_from_backoff_q=pop_from_backoff_q, nominator=self.nominator,
            queueing_hints=release.feature_gates.get("SchedulerQueueingHints", True))
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

    @classmethod
    def from_config(cls, config: Any = None, *, registry: Registry | None = None,
                    load_entry_points: bool = True, plugin_manager: Any = None,
                    kubernetes_version: Any = None, feature_gates: Any = None,
                    **options: Any) -> Scheduler:
        """A scheduler for *config* in any form an entry point takes: ``None`` (upstream's
        default), a :class:`~schedframe.SchedulerConfiguration`, a ``KubeSchedulerConfiguration``
        mapping, or the path of a configuration file (:meth:`SchedulerConfiguration.from_file
        <schedframe.SchedulerConfiguration.from_file>`, read for *kubernetes_version*).

        The plugins come from *registry*, or, without one, the in-tree registry plus the
        ``schedframe`` entry points of installed distributions (*load_entry_points*), whose
        observer hooks join *plugin_manager*. *options* are the other keyword arguments of
        :class:`Scheduler` (``seed``, ``clock``, ``objects``...). A configuration that cannot be
        read raises :class:`~schedframe.ConfigurationError` (a file's errors name the file);
        one of the wrong type :class:`~schedframe.SchedulerError`.

        .. versionadded:: 0.1.0
        """
        registry, plugin_manager, resolved = _resolve(
            config, registry, plugin_manager, load_entry_points=load_entry_points,
            kubernetes_version=kubernetes_version, feature_gates=feature_gates, paths=True)
        return cls(resolved, registry=registry, plugin_manager=plugin_manager, **options)

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
        candidates = self._permit_deadlines()
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
        deadlines = self._permit_deadlines()
        if deadlines:
            self._advance_to(max(when for when, _ in deadlines))
            self._resume_parked()

    def _permit_deadlines(self) -> list[tuple[float, str]]:
        """``(deadline, uid)`` of every pod waiting at Permit with a deadline."""
        out: list[tuple[float, str]] = []
        for wp in self.waiting_pods:
            try:
                deadline = wp.next_deadline()
            except Exception:  # pragma: no cover - a bad Permit timeout reached the waiting pod
                continue
            if deadline is not None:
                out.append((deadline, wp.pod.uid))
        return out

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
