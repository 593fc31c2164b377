"""KubeScheduler: a :class:`~schedframe.Scheduler` fed by informers and writing back to a live
API server (bindings, events, the PodScheduled condition, nominatedNodeName, victims)."""

from __future__ import annotations

import logging
import queue
import signal
import socket
import threading
import time
import uuid
from collections.abc import Callable, Mapping
from typing import Any, Final, final

from ..api.objects import Pod
from ..errors import SchedframeError, bounded_repr
from ..framework.hookspecs import hookimpl
from ..framework.plugin_manager import make_plugin_manager
from ..framework.status import Code, Status
from ..scheduler.scheduler import Scheduler
from ._api import MAX_EVENT_BYTES, STRATEGIC_MERGE, ApiSession, KubeApiError, KubeError
from ._health import HealthServer
from ._informer import EVENT_DEADLINE, SCHEDULER_RESOURCES, Informer, Resource, scheduler_resources
from ._leader import LeaderElector, micro_time

__all__ = ["KubeBinder", "KubeScheduler"]

logger = logging.getLogger("schedframe.kube")

#: kube-scheduler truncates event notes and condition messages to this many bytes
MESSAGE_LIMIT: Final = 1024


def truncate_message(message: str) -> str:
    """Upstream's ``truncateMessage``: at most 1,024 characters, ending in
    ``" ..."`` when cut."""
    if len(message) <= MESSAGE_LIMIT:
        return message
    suffix = " ..."
    return message[:MESSAGE_LIMIT - len(suffix)] + suffix


#: tries of an event or status write that got no answer, 429 or a 5xx (0.1 s, 0.2 s ... apart)
WRITE_TRIES: Final = 5


def _retriable(exc: KubeApiError) -> bool:
    return exc.status == 0 or exc.status == 429 or exc.status >= 500


def _pod_ref(pod: Pod) -> dict[str, str]:
    """An object reference to *pod* (an event's ``regarding`` or ``related``)."""
    return {"apiVersion": "v1", "kind": "Pod", "name": pod.name, "namespace": pod.namespace,
            "uid": pod.uid}


def _pod_path(pod: Pod) -> str:
    return f"/api/v1/namespaces/{pod.namespace}/pods/{pod.name}"


@final
class KubeBinder:
    """A :class:`~schedframe.framework.Binder` posting a ``v1.Binding`` to the pod's ``binding``
    subresource, as upstream's DefaultBinder does. Raises :class:`KubeApiError` when refused
    (409 when the pod is already bound, 404 when it is gone): the scheduler's failure path then
    unreserves the pod and requeues it, and the informer's next event for the pod settles it.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.kube"

    def __init__(self, session: ApiSession) -> None:
        self.session = session
        self.bound = 0
        self.errors = 0

    def bind(self, pod: Pod, node_name: str) -> None:
        """POST ``pods/{name}/binding`` with *node_name* as the target."""
        body = {"apiVersion": "v1", "kind": "Binding",
                "metadata": {"name": pod.name, "namespace": pod.namespace, "uid": pod.uid},
                "target": {"apiVersion": "v1", "kind": "Node", "name": node_name}}
        try:
            self.session.request("POST", _pod_path(pod) + "/binding", body=body)
        except KubeApiError:
            self.errors += 1
            raise
        self.bound += 1


@final
class _Metrics:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.pods_scheduled = 0
        self.attempts: dict[tuple[str, str], int] = {}
        self.latency_count = 0
        self.latency_sum = 0.0

    def attempt(self, profile: str, result: str, duration: float | None = None) -> None:
        with self.lock:
            key = (result, profile)
            self.attempts[key] = self.attempts.get(key, 0) + 1
            if duration is not None:
                self.latency_count += 1
                self.latency_sum += duration


@final
class KubeScheduler:
    """schedframe as a scheduler of a live cluster.

    Informers list and watch the objects the plugins read and feed a threaded
    :class:`~schedframe.Scheduler`; pods whose ``spec.schedulerName`` is one of the
    configuration's profiles and that are unbound are scheduled; bindings go to the API's
    ``pods/binding`` subresource; failures write a ``FailedScheduling`` event and the
    ``PodScheduled=False`` condition; preemption patches ``status.nominatedNodeName`` and deletes
    the victims through the API.

    Args:
        api_client: a ``kubernetes.client.ApiClient`` (``kubernetes.config.new_client_from_config``,
            or in-cluster configuration).
        config: a :class:`~schedframe.SchedulerConfiguration`, a ``KubeSchedulerConfiguration``
            mapping, or ``None`` (upstream's default: profile ``default-scheduler``).
        seed: the tie-breaking RNG's seed.
        leader_election: acquire the ``coordination.k8s.io/v1`` Lease *lease_namespace*/*lease_name*
            before scheduling (for more than one replica).
        identity: the lease holder's identity (default ``<hostname>_<uuid>``, as upstream).
        health_port: serve ``/healthz``, ``/readyz`` and ``/metrics`` on this port (0: a free
            one; see :attr:`health_address`); ``None``: no server.
        health_host: the address the health server binds (default loopback).
        resync_backoff: the informers' backoff after an error: first and longest wait, seconds.
        victim_grace_period: ``gracePeriodSeconds`` when deleting preemption victims; ``None``
            (upstream) leaves the pod's own. A cluster without kubelets (a test API server)
            needs ``0``, or the victims never go.
        resources: the resources to watch (default: :func:`~schedframe.kube.scheduler_resources` of the
            configuration's release: :data:`SCHEDULER_RESOURCES` with the workload-API kinds in
            the version that release serves).
        max_event_bytes: the longest watch event line (default 16 MiB); a longer one ends the
            watch and its informer lists again.
        event_deadline: seconds a watch event may take to arrive once its first byte came
            (default 30); a trickling watch is restarted. ``None``: no deadline.
        watch_timeout: the ``timeoutSeconds`` each watch asks of the API server (default 300);
            a watch it ends is resumed from the newest resourceVersion seen (the last event's
            or bookmark's), without a list.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.kube"

    def __init__(self, api_client: Any, config: Any = None, *, seed: int = 0, leader_election: bool = False,
                 lease_name: str = "schedframe", lease_namespace: str = "kube-system",
                 identity: str | None = None, health_port: int | None = None,
                 health_host: str = "127.0.0.1", resync_backoff: tuple[float, float] = (0.5, 30.0),
                 victim_grace_period: int | None = None,
                 resources: tuple[Resource, ...] | None = None,
                 max_event_bytes: int = MAX_EVENT_BYTES, event_deadline: float | None = EVENT_DEADLINE,
                 watch_timeout: float = 300.0) -> None:
        if (isinstance(watch_timeout, bool) or not isinstance(watch_timeout, (int, float))
                or not 1 <= watch_timeout <= 86400):
            raise KubeError(f"watch_timeout: want seconds from 1 to 86400, got {bounded_repr(watch_timeout)}")
        if health_port is not None and (isinstance(health_port, bool) or not isinstance(health_port, int)
                                        or not 0 <= health_port <= 65535):
            # checked before anything starts (the socket would raise a raw OverflowError)
            raise KubeError(f"health_port: want a port from 0 to 65535, got {bounded_repr(health_port)}")
        self.session = ApiSession(_own_client(api_client, len(SCHEDULER_RESOURCES) + 8))
        self.binder = KubeBinder(self.session)
        self._metrics = _Metrics()
        self._writes: queue.Queue[Callable[[], None] | None] = queue.Queue()
        self._nominated_sent: dict[str, str] = {}
        self.victim_grace_period = victim_grace_period
        self._victims: list[Pod] = []
        self._victims_lock = threading.Lock()
        pm = make_plugin_manager()
        pm.register(self, name="schedframe.kube")
        self.scheduler = Scheduler(config, seed=seed, binder=self.binder, threaded=True,
                                   plugin_manager=pm, pod_deleter=self._delete_victim)
        self.profiles = tuple(self.scheduler.frameworks)
        if resources is None:  # the kinds as this release's scheduler watches them
            resources = scheduler_resources(self.scheduler.config.release.version)
        self._wake = threading.Event()
        self._stop = threading.Event()
        self._started = False
        self._threads: list[threading.Thread] = []
        self.informers = [Informer(self.session, r, self._handler(r), backoff=resync_backoff,
                                   max_event_bytes=max_event_bytes, event_deadline=event_deadline,
                                   watch_timeout=float(watch_timeout))
                          for r in resources]
        self.identity = identity or f"{socket.gethostname()}_{uuid.uuid4()}"
        self.elector: LeaderElector | None = None
        if leader_election:
            self.elector = LeaderElector(self.session, lease_namespace, lease_name, self.identity,
                                         on_change=lambda _leader: self._wake.set())
        self._health: HealthServer | None = None
        self._health_port = health_port
        self._health_host = health_host

    # -- lifecycle ------------------------------------------------------------------------------
    def start(self) -> None:
        """Start the informers, leader election, the health server and the scheduling loop
        (daemon threads); returns at once."""
        if self._started:
            raise KubeError("KubeScheduler.start: already started")
        self._started = True
        for inf in self.informers:
            inf.start()
        if self.elector is not None:
            self.elector.start()
        if self._health_port is not None:
            try:
                self._health = HealthServer(self._health_host, self._health_port, healthy=self._healthy,
                                            ready=self._ready, metrics=self.metrics_text)
            except OSError as exc:
                self.stop(timeout=1.0)
                raise KubeError(f"health server on {self._health_host}:{self._health_port}: {exc}") from exc
            self._health.start()
        for target, name in ((self._loop, "schedframe-scheduling"), (self._writer, "schedframe-api-writes")):
            t = threading.Thread(target=target, name=name, daemon=True)
            t.start()
            self._threads.append(t)

    def wait_for_sync(self, timeout: float = 30.0) -> bool:
        """Wait until every informer listed its resource once; False on *timeout*."""
        deadline = time.monotonic() + timeout
        for inf in self.informers:
            if not inf.synced.wait(max(0.0, deadline - time.monotonic())):
                return False
        return True

    def stop(self, timeout: float = 10.0) -> None:
        """Stop scheduling, let in-flight bindings finish, flush the pending API writes,
        release the lease and stop the informers and the health server."""
        self._stop.set()
        self._wake.set()
        deadline = time.monotonic() + timeout
        for t in self._threads[:1]:
            t.join(max(0.1, deadline - time.monotonic()))
        try:
            self.scheduler.close()
        except SchedframeError as exc:
            logger.warning("closing the scheduler: %s", exc)
        self._writes.put(self._delete_victims)
        self._writes.put(None)
        for t in self._threads[1:]:
            t.join(max(0.1, deadline - time.monotonic()))
        if self.elector is not None:
            self.elector.stop(timeout=max(0.1, deadline - time.monotonic()))
        for inf in self.informers:
            inf.stop()
        if self._health is not None:
            self._health.stop()
            self._health = None

    def run(self) -> None:
        """:meth:`start`, then block until :meth:`stop` is called or SIGINT/SIGTERM arrives (when
        called from the main thread), then stop gracefully."""
        self.start()
        previous: dict[int, Any] = {}
        if threading.current_thread() is threading.main_thread():
            for sig in (signal.SIGINT, signal.SIGTERM):
                previous[sig] = signal.signal(sig, lambda _s, _f: self._stop.set())
        try:
            while not self._stop.wait(0.5):
                pass
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
            self.stop()

    @property
    def is_leader(self) -> bool:
        """This instance may schedule (always, without leader election)."""
        return self.elector is None or self.elector.is_leader

    @property
    def health_address(self) -> tuple[str, int] | None:
        """Where the health server listens, once started."""
        return None if self._health is None else self._health.address

    # -- health and metrics -----------------------------------------------------------------------
    def _healthy(self) -> bool:
        return not self._stop.is_set() and all(t.is_alive() for t in self._threads)

    def _ready(self) -> bool:
        return self._healthy() and all(inf.synced.is_set() for inf in self.informers)

    def metrics(self) -> dict[str, Any]:
        """Counters since start: ``pods_scheduled``, ``schedule_attempts`` by result
        (``scheduled``, ``unschedulable``, ``error``), ``binding_errors``,
        ``scheduling_latency_seconds`` (count and sum of the scheduling attempts) and ``watches``:
        per resource watched, named as kubectl names it (``"pods"``, ``"nodes"``,
        ``"podgroups.scheduling.k8s.io"``...), its informer's ``relists``,
        ``expired`` (watches answered 410 Gone), ``bookmarks``, ``watch_restarts`` (watches the
        server ended, resumed without a list) and ``errors``."""
        m = self._metrics
        with m.lock:
            attempts = {"scheduled": 0, "unschedulable": 0, "error": 0}
            for (result, _profile), n in m.attempts.items():
                attempts[result] = attempts.get(result, 0) + n
            return {"pods_scheduled": m.pods_scheduled, "schedule_attempts": attempts,
                    "binding_errors": self.binder.errors,
                    "scheduling_latency_seconds": {"count": m.latency_count, "sum": m.latency_sum},
                    "watches": self._watch_counters()}

    def _watch_counters(self) -> dict[str, dict[str, int]]:
        return {_resource_name(inf.resource): {"relists": inf.relists, "expired": inf.expired,
                                      "bookmarks": inf.bookmarks, "watch_restarts": inf.watch_restarts,
                                      "errors": inf.errors}
                for inf in self.informers}

    def metrics_text(self) -> str:
        """The metrics in Prometheus' text format, named as kube-scheduler's where it has them."""
        m = self._metrics
        q = self.scheduler.queue
        lines = ["# HELP scheduler_schedule_attempts_total Number of attempts to schedule pods, by the "
                 "result.", "# TYPE scheduler_schedule_attempts_total counter"]
        with m.lock:
            for (result, profile), n in sorted(m.attempts.items()):
                labels = f'profile="{profile}",result="{result}"'
                lines.append(f"scheduler_schedule_attempts_total{{{labels}}} {n}")
            lines += ["# HELP scheduler_scheduling_attempt_duration_seconds Scheduling attempt latency.",
                      "# TYPE scheduler_scheduling_attempt_duration_seconds summary",
                      f"scheduler_scheduling_attempt_duration_seconds_sum {m.latency_sum:.6f}",
                      f"scheduler_scheduling_attempt_duration_seconds_count {m.latency_count}",
                      "# HELP schedframe_pods_scheduled_total Pods bound by this scheduler.",
                      "# TYPE schedframe_pods_scheduled_total counter",
                      f"schedframe_pods_scheduled_total {m.pods_scheduled}"]
        lines += ["# HELP schedframe_binding_errors_total Bindings the API server refused.",
                  "# TYPE schedframe_binding_errors_total counter",
                  f"schedframe_binding_errors_total {self.binder.errors}",
                  "# HELP scheduler_pending_pods Number of pending pods, by the queue type.",
                  "# TYPE scheduler_pending_pods gauge",
                  f'scheduler_pending_pods{{queue="active"}} {len(q.pods_in_active_q())}',
                  f'scheduler_pending_pods{{queue="backoff"}} {len(q.pods_in_backoff_q())}',
                  f'scheduler_pending_pods{{queue="unschedulable"}} {len(q.unschedulable_pods())}',
                  "# HELP leader_election_master_status 1 when this instance leads.",
                  "# TYPE leader_election_master_status gauge",
                  f'leader_election_master_status{{name="schedframe"}} {int(self.is_leader)}']
        watches = self._watch_counters()
        for counter, help_text in (("relists", "Lists after an informer's first, by resource."),
                                   ("expired", "Watches the API server answered 410 Gone, by resource."),
                                   ("bookmarks", "Watch bookmarks received, by resource."),
                                   ("errors", "Informer errors (retried), by resource.")):
            lines += [f"# HELP schedframe_informer_{counter}_total {help_text}",
                      f"# TYPE schedframe_informer_{counter}_total counter"]
            lines += [f'schedframe_informer_{counter}_total{{resource="{plural}"}} {c[counter]}'
                      for plural, c in sorted(watches.items())]
        return "\n".join(lines) + "\n"

    # -- informers -> scheduler -----------------------------------------------------------------
    def _handler(self, resource: Resource
                 ) -> Callable[[str, Mapping[str, Any], Mapping[str, Any] | None], None]:
        sched = self.scheduler

        def handle(event: str, obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> None:
            try:
                if event == "DELETED":
                    try:
                        sched.remove_object(obj)
                    except SchedframeError as exc:  # not known (never added, or a victim removed)
                        logger.debug("%s delete: %s", resource.kind, exc)
                    if resource.kind == "Pod":
                        uid = str((obj.get("metadata") or {}).get("uid") or "")
                        self._nominated_sent.pop(uid, None)
                elif resource.kind == "Pod":
                    status = obj.get("status") or {}
                    uid = str((obj.get("metadata") or {}).get("uid") or "")
                    self._nominated_sent[uid] = str(status.get("nominatedNodeName") or "")
                    sched.add_object(self._keep_nomination(obj, old))
                else:
                    sched.add_object(obj)
            except SchedframeError as exc:
                meta = obj.get("metadata") or {}
                logger.warning("%s %s/%s %s: %s", resource.kind, meta.get("namespace", ""),
                               meta.get("name", ""), event.lower(), exc)
            if resource.kind in ("Pod", "Node"):
                self._wake.set()

        return handle

    def _keep_nomination(self, obj: Mapping[str, Any], old: Mapping[str, Any] | None) -> Mapping[str, Any]:
        """Upstream's nominator rule for pod updates: when neither the old nor the new API
        version has a nominatedNodeName, the scheduler's own nomination (not written yet) stays."""
        if (old is None or (old.get("status") or {}).get("nominatedNodeName")
                or (obj.get("status") or {}).get("nominatedNodeName")
                or (obj.get("spec") or {}).get("nodeName")):
            return obj
        uid = str((obj.get("metadata") or {}).get("uid") or "")
        current = self.scheduler.get_pod(uid) if uid else None
        if current is None or not current.nominated_node_name or current.node_name:
            return obj
        kept = dict(obj)
        kept["status"] = {**(obj.get("status") or {}), "nominatedNodeName": current.nominated_node_name}
        return kept

    # -- the scheduling loop --------------------------------------------------------------------------
    def _loop(self) -> None:
        sched = self.scheduler
        for inf in self.informers:
            while not inf.synced.wait(0.5):
                if self._stop.is_set():
                    return
        while not self._stop.is_set():
            if not self.is_leader:
                self._wake.wait(0.5)
                self._wake.clear()
                continue
            try:
                did = sched.schedule_one()
            except SchedframeError as exc:
                if self._stop.is_set():
                    return
                logger.error("scheduling loop: %s", exc)
                did = False
            except Exception:
                logger.exception("scheduling loop: unexpected error")
                did = False
            if not did:
                # nothing ready: wait for an informer event (or poll backoffs every 0.2 s)
                self._wake.wait(0.2)
                self._wake.clear()

    # -- API writes (one thread, in order) ---------------------------------------------------------------
    def _writer(self) -> None:
        while True:
            job = self._writes.get()
            if job is None:
                return
            for attempt in range(WRITE_TRIES):
                try:
                    job()
                except KubeApiError as exc:
                    if _retriable(exc) and attempt + 1 < WRITE_TRIES:
                        time.sleep(min(0.1 * 2 ** attempt, 2.0))
                        continue
                    logger.warning("%s", exc)
                except Exception:
                    logger.exception("an API write failed")
                break

    def _event(self, pod: Pod, type_: str, reason: str, action: str, note: str, profile: str,
               related: Pod | None = None) -> None:
        now = time.time()
        ref = _pod_ref(pod)
        name = f"{pod.name}.{time.time_ns():x}"
        body = {"apiVersion": "events.k8s.io/v1", "kind": "Event",
                "metadata": {"name": name, "namespace": pod.namespace},
                "eventTime": micro_time(now), "reportingController": profile,
                "reportingInstance": f"{profile}-{socket.gethostname()}", "action": action,
                "reason": reason, "regarding": ref, "note": truncate_message(note), "type": type_}
        if related is not None:
            body["related"] = _pod_ref(related)
        try:
            self.session.request("POST", f"/apis/events.k8s.io/v1/namespaces/{pod.namespace}/events",
                                 body=body)
        except KubeApiError as exc:
            if exc.status != 404:
                raise
            # no events.k8s.io/v1: the core Event
            stamp = micro_time(now)[:19] + "Z"
            core = {"apiVersion": "v1", "kind": "Event",
                    "metadata": {"name": name, "namespace": pod.namespace},
                    "involvedObject": ref, "reason": reason, "message": truncate_message(note), "type": type_,
                    "source": {"component": profile}, "firstTimestamp": stamp, "lastTimestamp": stamp,
                    "count": 1, "action": action, "reportingComponent": profile}
            self.session.request("POST", f"/api/v1/namespaces/{pod.namespace}/events", body=core)

    def _patch_status(self, pod: Pod, status: Mapping[str, Any]) -> None:
        logger.debug("patching the status of %s: %s", pod.key, status)
        try:
            self.session.request("PATCH", _pod_path(pod) + "/status", body={"status": status},
                                 content_type=STRATEGIC_MERGE)
        except KubeApiError as exc:
            if exc.status != 404:  # gone meanwhile: nothing to record
                raise

    def _nominated_change(self, pod: Pod) -> str | None:
        """The pod's nominated node in the scheduler when it differs from what the API has."""
        current = self.scheduler.get_pod(pod.uid) if pod.uid else None
        if current is None or current.node_name:
            return None
        name = current.nominated_node_name or ""
        return name if self._nominated_sent.get(pod.uid, "") != name else None

    def _delete_victim(self, victim: Pod) -> None:
        """Called by the preemption (through the scheduler): the victim is deleted through the
        API after the preemptor's nominatedNodeName is written (see the cycle_finished hook), so
        the preemptor is nominated before room appears."""
        with self._victims_lock:
            self._victims.append(victim)

    def _delete_victims(self) -> None:
        with self._victims_lock:
            victims, self._victims = self._victims, []
        for victim in victims:
            body: dict[str, Any] = {"apiVersion": "v1", "kind": "DeleteOptions"}
            if victim.uid:
                body["preconditions"] = {"uid": victim.uid}
            if self.victim_grace_period is not None:
                body["gracePeriodSeconds"] = self.victim_grace_period
            logger.debug("deleting the preemption victim %s", victim.key)
            try:
                self.session.request("DELETE", _pod_path(victim), body=body)
            except KubeApiError as exc:
                if exc.status not in (404, 409):  # already gone, or replaced by a new pod of that name
                    logger.warning("deleting the preemption victim %s: %s", victim.key, exc)

    # -- observer hooks (called by the Scheduler) ------------------------------------------------
    @hookimpl
    def schedframe_pod_bound(self, pod: Pod, node_name: str, profile: str) -> None:
        """Count the pod and write upstream's ``Scheduled`` event."""
        with self._metrics.lock:
            self._metrics.pods_scheduled += 1
        self._metrics.attempt(profile, "scheduled")
        self._writes.put(lambda: self._event(
            pod, "Normal", "Scheduled", "Binding",
            f"Successfully assigned {pod.namespace}/{pod.name} to {node_name}", profile))

    @hookimpl
    def schedframe_pod_preempted(self, victim: Pod, preemptor: Pod, node_name: str, profile: str) -> None:
        """Write upstream's ``Preempted`` event on the victim (action ``Preempting``, related to
        the preemptor), as its preemption evaluator records it."""
        self._writes.put(lambda: self._event(
            victim, "Normal", "Preempted", "Preempting",
            f"Preempted by pod {preemptor.uid} on node {node_name}", profile, related=preemptor))

    @hookimpl
    def schedframe_pod_failed(self, pod: Pod, status: Status, profile: str) -> None:
        """Write the ``FailedScheduling`` event and the ``PodScheduled=False`` condition."""
        unschedulable = status.code in (Code.UNSCHEDULABLE, Code.UNSCHEDULABLE_AND_UNRESOLVABLE)
        self._metrics.attempt(profile, "unschedulable" if unschedulable else "error")
        message = status.message
        reason = "Unschedulable" if unschedulable else "SchedulerError"

        def write() -> None:
            self._event(pod, "Warning", "FailedScheduling", "Scheduling", message, profile)
            patch: dict[str, Any] = {"conditions": [{
                "type": "PodScheduled", "status": "False", "reason": reason,
                "message": truncate_message(message), "lastProbeTime": None,
                "lastTransitionTime": micro_time()[:19] + "Z"}]}
            nominated = self._nominated_change(pod)
            if nominated is not None:
                patch["nominatedNodeName"] = nominated or None
                self._nominated_sent[pod.uid] = nominated
            self._patch_status(pod, patch)

        self._writes.put(write)

    @hookimpl
    def schedframe_cycle_finished(self, pod: Pod, status: Status, node_name: str, profile: str,
                                  duration: float) -> None:
        """Record the attempt's latency; after a failed cycle, patch a changed nominatedNodeName
        (the failure handler nominated the pod after the failure hook ran)."""
        with self._metrics.lock:
            self._metrics.latency_count += 1
            self._metrics.latency_sum += duration
        if node_name:
            return

        def write() -> None:
            try:
                nominated = self._nominated_change(pod)
                if nominated is not None:
                    self._patch_status(pod, {"nominatedNodeName": nominated or None})
                    self._nominated_sent[pod.uid] = nominated
            finally:
                self._delete_victims()

        self._writes.put(write)


def _own_client(api_client: Any, connections: int) -> Any:
    """A client of our own with the given one's configuration and a connection pool large
    enough for one long watch per informer plus the writes (the client's default pool is five
    connections per CPU; a watch holds one for minutes)."""
    import copy

    cfg = getattr(api_client, "configuration", None)
    if cfg is None or not callable(getattr(api_client, "call_api", None)):
        raise KubeError(f"expected a kubernetes.client.ApiClient, got {type(api_client).__name__}")
    cfg = copy.copy(cfg)
    cfg.connection_pool_maxsize = max(int(getattr(cfg, "connection_pool_maxsize", 0) or 0), connections)
    return type(api_client)(configuration=cfg)


def _resource_name(resource: Resource) -> str:
    """*resource* as kubectl names it: ``pods`` for the core group, ``podgroups.scheduling.k8s.io``
    for the others (two groups may serve one plural)."""
    group = resource.api_version.rpartition("/")[0]
    return f"{resource.plural}.{group}" if group else resource.plural
