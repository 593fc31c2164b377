"""The discrete-event loop: a real :class:`~schedframe.Scheduler` (deterministic mode) on a
:class:`~schedframe.FakeClock` that jumps from one event to the next.

Each step applies every event due at the current time (arrivals, completions, node events,
scale-downs, controller recreations), then runs scheduling cycles while a pod is ready. When none
is, the clock moves to the earliest of: the next event, the next backoff completion, the next
Permit deadline, and (while events remain) the next unschedulable-pool timeout. Backoff, the
unschedulable pool, Permit waits and preemption therefore all run on simulated time.

A run ends at its horizon (``until``), or when nothing is left to happen, or when no progress is
possible: no input, completion or recreation is ahead, no pod waits at Permit, and every pod
that would be retried (in the active or backoff queue) has failed again since the last change
of the cluster (a binding, a preemption, a deletion, an applied event). Nothing could then
change, so the run stops instead of cycling those pods through backoff until the horizon (or
for ever); ``SimResult.end_reason`` says which.
"""

from __future__ import annotations

import heapq
import json
import time
import warnings
import zlib
from collections.abc import Callable, Iterable
from operator import itemgetter, methodcaller
from types import SimpleNamespace
from typing import IO, Any, Final

from .._jsonout import non_finite
from ..api.manifests import object_to_manifest
from ..api.objects import Node, Pod
from ..api.workloads import (
    DaemonSet,
    admit_priority,
    daemon_target,
    expand_workloads,
    priority_classes,
)
from ..cache.snapshot import Snapshot
from ..errors import ScenarioError, SchedframeWarning
from ..framework.clock import FakeClock
from ..framework.interfaces import QueuedPodInfo
from ..framework.registry import Registry
from ..framework.status import Status
from ..scheduler.explain import Explanation, explain_with
from ..scheduler.scheduler import Scheduler
from ._checks import warn_incomplete_cluster
from ._gangs import gang_blocks
from ._limits import check_time
from .decisions import RecordDecisions, Recorder
from .results import (
    DELETED,
    EVICTED,
    FAILED,
    PENDING,
    PREEMPTED,
    RUNNING,
    SUCCEEDED,
    Metrics,
    NodeSeries,
    Perf,
    PodResult,
    Sample,
    SimResult,
    censored_percentile,
    percentile,
)
from .scenario import (
    NodeEvent,
    Plan,
    PlannedArrival,
    WorkloadInfo,
    check_nodes,
    pod_from_template,
)
from .usage import SimLoad, load_record, models_usage

__all__ = ["LOG_VERSION", "Progress", "run_plan"]

#: Version of the event-log format (the header's ``version``).
LOG_VERSION: Final = 1

#: Stop scheduling at one instant after this many cycles per pending pod without a binding.
_STALL_CYCLES_PER_POD: Final = 10
#: Permit timeouts, with no change of the cluster between them, after which a gang waiting at
#: Permit while its other members keep failing is taken to go round for ever (see _no_progress)
_GANG_ROUNDS: Final = 2
_ZERO: Final = (0, 0)
_first: Final = itemgetter(0)
_second: Final = itemgetter(1)
#: Samples over the expected horizon when no interval is given.
_DEFAULT_SAMPLES: Final = 200

#: ``progress(now, horizon, placed, pending)``: called now and then during a run.
Progress = Callable[[float, float, int, int], None]

# heap entry kinds (same time: by sequence number, i.e. insertion order)
_INPUT: Final = 0
_COMPLETE: Final = 1
_RECREATE: Final = 2


def _daemon_owner(pod: Pod) -> tuple[str, str] | None:
    """``(namespace, name)`` of the DaemonSet controlling *pod*, else ``None``."""
    for ref in pod.owner_references:
        if ref.controller and ref.kind == "DaemonSet":
            return pod.namespace, ref.name
    return None


def _origin(workload: str, bound: bool) -> str:
    """Where a pod of a simulation comes from, for an error naming two pods."""
    if workload:
        return f"from workload {workload!r}"
    return "bound in the starting cluster" if bound else "one of the scenario's pods"


class _Rec:
    __slots__ = (
        "arrival",
        "attempts",
        "bound_at",
        "duration",
        "ended",
        "first",
        "initial",
        "key",
        "last",
        "message",
        "node",
        "pod",
        "preempted_by",
        "replaced_by",
        "seen",
        "seen_real",
        "state",
        "workload",
    )

    def __init__(self, pod: Pod, workload: str, arrival: float, duration: float | None) -> None:
        self.pod = pod
        self.key = pod.key
        self.workload = workload
        self.arrival = arrival
        self.duration = duration
        self.attempts = 0
        self.first: float | None = None
        self.last: float | None = None
        self.bound_at: float | None = None
        self.node = ""
        self.state = PENDING
        self.ended: float | None = None
        self.preempted_by = ""
        self.replaced_by = ""
        self.message = ""
        self.seen = -1  # the change epoch at the start of its last attempt
        self.seen_real = -1  # the same, counting only changes of the cluster (not Permit waits)
        # bound (or finished) in the starting cluster: never scheduled here
        self.initial = bool(pod.node_name) or pod.is_terminal

    def result(self) -> PodResult:
        wait = None if self.bound_at is None else self.bound_at - self.arrival
        return PodResult(
            self.key,
            self.workload,
            self.arrival,
            self.attempts,
            self.first,
            self.last,
            self.bound_at,
            self.node,
            wait,
            self.state,
            self.ended,
            self.preempted_by,
            self.replaced_by,
            self.message,
            self.initial,
        )


def _resources(node: Node) -> dict[str, int]:
    r = node.allocatable_resources
    out = {"cpu": r.milli_cpu, "memory": r.memory, "pods": r.pods}
    out.update(r.scalar)
    return out


def _requests(pod: Pod) -> dict[str, int]:
    r = pod.requests
    out = {"cpu": r.milli_cpu, "memory": r.memory, "pods": 1}
    for k, v in r.scalar.items():
        if v:
            out[k] = v
    return out


class _RequestItems:
    """``_requests(pod).items()`` remembered per requests object: the pods of one template share
    theirs (``Pod.evolve`` keeps it), so a run computes each shape once. The object is kept with
    its items, so its id is not reused while the entry lives."""

    __slots__ = ("_by_id",)

    def __init__(self) -> None:
        self._by_id: dict[int, tuple[object, tuple[tuple[str, int], ...]]] = {}

    def __call__(self, pod: Pod) -> tuple[tuple[str, int], ...]:
        r = pod.requests
        hit = self._by_id.get(id(r))
        if hit is not None and hit[0] is r:
            return hit[1]
        items = tuple(_requests(pod).items())
        if len(self._by_id) < 65_536:  # a bound: pods built one by one each have their own
            self._by_id[id(r)] = (r, items)
        return items


#: The most cluster samples a run takes (``sample_every`` against the horizon).
MAX_SAMPLES: Final = 1_000_000


class _Sim:
    """One run. Not reusable."""

    def __init__(
        self,
        plan: Plan,
        config: Any,
        config_name: str,
        seed: int,
        *,
        until: float | None,
        registry: Registry | None,
        explain: Iterable[str],
        log: IO[str] | None,
        progress: Progress | None,
        sample_every: float | None,
        decisions: RecordDecisions | None = None,
    ) -> None:
        self.plan = plan
        self.config_name = config_name
        self.seed = seed
        self.until = plan.until if until is None else until
        self.clock = FakeClock(0.0)
        self.now = 0.0
        # the scheduler's observer hooks, called directly: the scheduler looks each hook up by
        # name on ``plugin_manager.hook`` (a pluggy manager would add a dispatch per call)
        # (recording decisions, sim.decisions, wraps cycle_finished and watches failures)
        self.recorder = rec = Recorder(decisions, self.clock) if decisions is not None else None
        finished = self.schedframe_cycle_finished if rec is None else rec.cycle_finished
        pm = SimpleNamespace(
            hook=SimpleNamespace(
                schedframe_cycle_finished=finished,
                schedframe_pod_bound=self.schedframe_pod_bound,
                schedframe_pod_preempted=self.schedframe_pod_preempted,
                **({} if rec is None else {"schedframe_pod_failed": rec.pod_failed}),
            )
        )
        # strict JSON (no NaN/Infinity); json.dumps with these arguments is its C encoder
        self._encode = json.JSONEncoder(separators=(",", ":"), allow_nan=False).encode
        # simulated usage and node metrics (schedframe.sim.usage): the load-aware plugins' source
        self.load = SimLoad(self, plan.load_window, plan.load_window is not None or models_usage(
            [*plan.pods, *(w.template for w in plan.workloads)]), plan.load_metrics)
        self.sched = Scheduler(
            config, clock=self.clock, seed=seed, registry=registry,
            objects=(*plan.objects, self.load.source()), plugin_manager=pm
        )
        self.log = log
        #: The error writing to the log raised (raised by run() as soon as it can).
        self.log_error: OSError | ScenarioError | None = None
        self.progress = progress
        self.workloads: dict[str, WorkloadInfo] = {w.name: w for w in plan.workloads}
        self.recs: dict[str, _Rec] = {}  # uid -> record, in creation order
        if rec is not None:
            rec.attach(self.sched, self.schedframe_cycle_finished, self.recs)
        self.by_key: dict[str, str] = {}  # live pod key -> uid
        self.live: dict[str, dict[str, None]] = {w: {} for w in self.workloads}  # workload -> live uids
        self.on_node: dict[str, dict[str, None]] = {}
        self.requested: dict[str, dict[str, int]] = {}
        # what the pods bound to a node the cluster does not have request, by node (kube-scheduler's
        # cache keeps such pods on a placeholder NodeInfo; a node of that name added later has them)
        self.unknown_req: dict[str, dict[str, int]] = {}
        self.allocatable: dict[str, dict[str, int]] = {}
        self.schedulable: dict[str, bool] = {}
        self.node_objs: dict[str, Node] = {}
        self.series: dict[str, list[tuple[float, dict[str, int]]]] = {}
        self.request_items = _RequestItems()
        self.next_index: dict[str, int] = {}
        for a in plan.timeline:
            if a.op == "arrive":
                idx = int(a.name.rsplit("-", 1)[1]) + 1
                if idx > self.next_index.get(a.workload, 0):
                    self.next_index[a.workload] = idx
        self.heap: list[tuple[float, int, int, Any]] = []
        self.seq = 0
        self.pending = 0
        self.counts = {"preemptions": 0, "recreated": 0, "completed": 0, "cycles": 0}
        self.samples: list[Sample] = []
        self.stalled: list[float] = []
        # bumped by every change that may let a failed pod fit (see the module docstring)
        self.epoch = 0
        self.cycle_epoch = 0
        # bumped by the changes of the cluster only (bindings, preemptions, deletions, events):
        # Permit waits beginning and ending do not count (a gang short of its quorum)
        self.real_epoch = 0
        self.cycle_real_epoch = 0
        # Permit deadlines the clock jumped to since the cluster last changed, and that change
        self.permit_rounds = 0
        self.permit_rounds_epoch = -1
        self.explain_keys = frozenset(k if "/" in k else f"default/{k}" for k in explain)
        self.explanations: dict[str, list[Explanation]] = {}
        ref = self._typical_request()
        self.ref_cpu, self.ref_mem = ref["cpu"], ref["memory"]
        self.req_tot: dict[str, int] = {}
        self.alloc_tot: dict[str, int] = {}
        self.frag_free = [0, 0]  # free cpu, memory on nodes where the typical pod does not fit
        self.bases: dict[str, Pod] = {}
        self.classes = priority_classes(plan.objects)
        warn_incomplete_cluster(plan, self.sched.config, stacklevel=3)
        horizon = self._horizon()
        self.horizon = horizon
        self.sample_every = sample_every if sample_every else max(horizon / _DEFAULT_SAMPLES, 1e-3)
        if horizon / self.sample_every > MAX_SAMPLES:
            raise ScenarioError(
                "",
                "sample_every",
                f"{self.sample_every:g}s over a {horizon:g}s run makes more than {MAX_SAMPLES:,} "
                f"samples (MAX_SAMPLES); sample less often",
            )
        self.next_sample = 0.0

    # -- bookkeeping ------------------------------------------------------------------------------
    def _typical_request(self) -> dict[str, int]:
        reqs: list[dict[str, int]] = []
        for w in self.plan.workloads:
            n = sum(1 for a in self.plan.timeline if a.op == "arrive" and a.workload == w.name)
            reqs.extend([_requests(w.template)] * min(n, 10_000))
        reqs.extend(_requests(p) for p in self.plan.pods if not p.node_name)
        out: dict[str, int] = {}
        for res in ("cpu", "memory"):
            vals = [r.get(res, 0) for r in reqs]
            med = percentile([float(v) for v in vals], 50)
            out[res] = int(med) if med is not None else 0
        return out

    def _warn_unknown_nodes(self) -> None:
        """Warn about starting pods bound to a node the cluster does not have."""
        orphans: dict[str, list[str]] = {}
        for p in self.plan.pods:
            if p.node_name and p.node_name not in self.node_objs and p.uid in self.recs \
                    and not p.is_terminal:
                orphans.setdefault(p.node_name, []).append(p.key)
        if not orphans:
            return
        shown = []
        for node, keys in list(orphans.items())[:3]:
            pods = ", ".join(keys[:3]) + (f" and {len(keys) - 3} more" if len(keys) > 3 else "")
            shown.append(f"{node!r} ({pods})")
        more = f" and {len(orphans) - 3} more node(s)" if len(orphans) > 3 else ""
        n = sum(len(k) for k in orphans.values())
        warnings.warn(
            f"{n} pod(s) are bound to node(s) the cluster does not have: {'; '.join(shown)}{more}; "
            "they run there as kube-scheduler's cache keeps them (counted as running, on no node's "
            "capacity) and count against a node of that name if an event adds it",
            SchedframeWarning,
            stacklevel=4,
        )

    def _horizon(self) -> float:
        if self.until is not None:
            return self.until
        last = max((a.at for a in self.plan.timeline), default=0.0)
        longest = max((a.duration for a in self.plan.timeline if a.duration is not None), default=0.0)
        longest = max([longest, *self.plan.durations.values()])
        return max(last + longest, 1.0)

    def push(self, at: float, kind: int, payload: Any) -> None:
        self.seq += 1
        heapq.heappush(self.heap, (at, self.seq, kind, payload))

    def emit(self, record: dict[str, Any]) -> None:
        if self.log is not None:
            try:
                self.log.write(self._encode(record) + "\n")
            except OSError as exc:
                # the log's reader went away (``--jsonl | head``) or its disk is full: stop
                # writing, and let run() raise it after the cycle (an observer hook's exception
                # would be logged and swallowed by the scheduler)
                self.log, self.log_error = None, exc
            except ValueError:
                # a NaN or an infinity (only objects built in Python can hold one): JSON cannot
                # hold it, and a replay could not read it back
                where = non_finite(record)
                if where is None:
                    raise
                self.log, self.log_error = None, ScenarioError(
                    "<scenario>", f"the event log's {record.get('op', '?')!r} line at "
                    f"t={record.get('t', '?')}: {where[0]}",
                    f"would hold {where[1]!r}, which JSON cannot hold; the log stops there")

    def _account(self, name: str, sign: int) -> None:
        """Add (``sign=1``) or take back (``-1``) node *name*'s share of the cluster totals."""
        alloc = self.allocatable[name]
        req = self.requested[name]
        tot_a, tot_r = self.alloc_tot, self.req_tot
        for k, v in alloc.items():
            tot_a[k] = tot_a.get(k, 0) + sign * v
        for k, v in req.items():
            tot_r[k] = tot_r.get(k, 0) + sign * v
        cpu, mem = self._stranded(name, alloc, req)
        frag = self.frag_free
        frag[0] += sign * cpu
        frag[1] += sign * mem

    def _add_usage(self, pod: Pod, node: str, sign: int) -> None:
        req = self.requested.get(node)
        if req is None:  # a node the cluster does not have: held for it, as the cache's placeholder
            held = self.unknown_req.setdefault(node, {})
            for k, v in self.request_items(pod):
                held[k] = held.get(k, 0) + sign * v
            if not any(held.values()):
                del self.unknown_req[node]
            return
        alloc = self.allocatable[node]
        before = self._stranded(node, alloc, req)
        tot = self.req_tot
        for k, v in self.request_items(pod):
            v *= sign
            req[k] = req.get(k, 0) + v
            tot[k] = tot.get(k, 0) + v
        after = self._stranded(node, alloc, req)
        if before is not after:
            frag = self.frag_free
            frag[0] += after[0] - before[0]
            frag[1] += after[1] - before[1]
        self.series[node].append((self.now, dict(req)))

    def _stranded(self, name: str, alloc: dict[str, int], req: dict[str, int]) -> tuple[int, int]:
        """Free (cpu, memory) of a node where the typical pod does not fit, else (0, 0)."""
        free_cpu = alloc.get("cpu", 0) - req.get("cpu", 0)
        free_mem = alloc.get("memory", 0) - req.get("memory", 0)
        if (
            self.schedulable[name]
            and free_cpu >= self.ref_cpu
            and free_mem >= self.ref_mem
            and alloc.get("pods", 0) - req.get("pods", 0) >= 1
        ):
            return _ZERO
        return max(free_cpu, 0), max(free_mem, 0)

    def _track_node(self, node: Node) -> None:
        name = node.name
        self.node_objs[name] = node
        if name in self.requested:
            self._account(name, -1)
        else:  # pods already bound to it (a dump's pods on a node added later) count at once
            self.requested[name] = self.unknown_req.pop(name, {})
            self.series[name] = []
            self.on_node.setdefault(name, {})
        self.allocatable[name] = _resources(node)
        self.schedulable[name] = not node.unschedulable
        self._account(name, 1)
        self.series[name].append((self.now, dict(self.requested[name])))

    def _untrack_node(self, name: str) -> None:
        self._account(name, -1)
        del self.node_objs[name]
        del self.allocatable[name]
        del self.schedulable[name]
        del self.requested[name]
        self.on_node.pop(name, None)

    def _from_template(self, w: WorkloadInfo, name: str) -> Pod:
        base = self.bases.get(w.name)
        if base is None:  # labels, owner and priority set once; each pod then changes name, uid and time
            base = self.bases[w.name] = admit_priority(pod_from_template(w, w.name, 0.0), self.classes)
        return base.evolve(name=name, uid=f"{base.namespace}/{name}", creation_timestamp=self.now)

    def new_pod(self, pod: Pod, workload: str, duration: float | None) -> None:
        """A pod is created now: admitted (its priority), recorded and handed to the scheduler."""
        if pod.priority is None:
            pod = admit_priority(pod, self.classes)
        rec = _Rec(pod, workload, self.now, duration)
        if pod.uid in self.recs or pod.key in self.by_key:
            other = self.recs.get(pod.uid) or self.recs[self.by_key[pod.key]]
            raise ScenarioError(
                "<plan>", f"pods[{pod.key}]",
                f"a pod with this name or uid already exists, {_origin(other.workload, other.initial)}; this "
                f"one is {_origin(workload, bool(pod.node_name))}")
        self.recs[pod.uid] = rec
        self.by_key[pod.key] = pod.uid
        if pod.is_terminal:
            # Succeeded or Failed in the starting cluster: kept and listed in its phase, but it
            # holds nothing on its node, runs no duration and is never recreated (the scheduler
            # only remembers it, as upstream's informers leave terminal pods out)
            rec.state = SUCCEEDED if pod.phase == SUCCEEDED else FAILED
            rec.node = pod.node_name
            rec.ended = self.now
            self.sched.add_pod(pod)
            return
        if workload:
            self.live[workload][pod.uid] = None
        if pod.node_name:
            rec.state = RUNNING
            rec.node = pod.node_name
            rec.bound_at = self.now
            self.on_node.setdefault(pod.node_name, {})[pod.uid] = None
            self._add_usage(pod, pod.node_name, 1)
            if duration is not None:
                self.push(self.now + duration, _COMPLETE, pod.uid)
        else:
            self.pending += 1
        self.sched.add_pod(pod)

    def _gone(self, rec: _Rec, uid: str, state: str) -> None:
        """The pod left the cluster (the scheduler already knows)."""
        if rec.state == PENDING:
            self.pending -= 1
        elif rec.node:
            self.on_node.get(rec.node, {}).pop(uid, None)
            self._add_usage(rec.pod, rec.node, -1)
        rec.state = state
        rec.ended = self.now
        self.by_key.pop(rec.key, None)
        if rec.workload:
            self.live[rec.workload].pop(uid, None)

    def delete(self, uid: str, state: str, *, recreate: bool) -> None:
        rec = self.recs[uid]
        if rec.state not in (PENDING, RUNNING):
            return
        self.epoch += 1
        self.real_epoch += 1
        self.sched.remove_pod(uid)
        self._gone(rec, uid, state)
        self.emit({"t": self.now, "op": "deleted", "pod": rec.key, "state": state})
        if recreate:
            self._recreate(rec)

    def _recreate(self, rec: _Rec) -> None:
        """The pod's controller replaces it (now): a new pod from the same template."""
        pod = rec.pod
        w = self.workloads.get(rec.workload)
        owner = next((o for o in pod.owner_references if o.controller), None)
        if w is not None:
            if not w.recreate:
                return
            if w.kind == "StatefulSet":
                name = pod.name
            else:
                n = self.next_index.get(w.name, 0)
                self.next_index[w.name] = n + 1
                name = f"{w.name}-{n}"
            new = self._from_template(w, name)
            if name == pod.name:
                new = new.evolve(uid=f"{pod.uid}+")
        elif owner is not None:
            if owner.kind == "StatefulSet":
                name = pod.name
            else:
                base = owner.name
                n = self.next_index.get(f"owner:{pod.namespace}/{base}", 0)
                while f"{pod.namespace}/{base}-{n}" in self.by_key:
                    n += 1
                self.next_index[f"owner:{pod.namespace}/{base}"] = n + 1
                name = f"{base}-{n}"
            new = pod.evolve(
                name=name,
                uid=f"{pod.uid}+" if name == pod.name else f"{pod.namespace}/{name}",
                node_name="",
                nominated_node_name="",
                phase="Pending",
                start_time=None,
                conditions=(),
                creation_timestamp=self.now,
                deletion_timestamp=None,
            )
        else:
            return
        rec.replaced_by = new.key
        self.counts["recreated"] += 1
        self.push(self.now, _RECREATE, (new, rec.workload, rec.duration))

    # -- scheduler observers ----------------------------------------------------------------------
    def schedframe_cycle_finished(
        self, pod: Pod, status: Status, node_name: str, profile: str, duration: float
    ) -> None:
        rec = self.recs.get(pod.uid)
        if rec is not None:
            rec.seen = self.cycle_epoch
            rec.seen_real = self.cycle_real_epoch
            rec.attempts += 1
            if rec.first is None:
                rec.first = self.now
            rec.last = self.now

    def schedframe_pod_bound(self, pod: Pod, node_name: str, profile: str) -> None:
        uid = pod.uid
        rec = self.recs.get(uid)
        if rec is None or rec.state != PENDING:
            return
        self.epoch += 1
        self.real_epoch += 1
        self.pending -= 1
        rec.state = RUNNING
        rec.node = node_name
        rec.bound_at = self.now
        rec.pod = pod
        self.on_node.setdefault(node_name, {})[uid] = None
        self._add_usage(pod, node_name, 1)
        if rec.duration is not None:
            self.push(self.now + rec.duration, _COMPLETE, uid)
        if self.log is not None:
            self.emit({"t": self.now, "op": "bound", "pod": rec.key, "node": node_name})

    def schedframe_pod_preempted(self, victim: Pod, preemptor: Pod, node_name: str, profile: str) -> None:
        uid = victim.uid
        rec = self.recs.get(uid)
        if rec is None:
            return
        self.epoch += 1
        self.real_epoch += 1
        self.counts["preemptions"] += 1
        rec.preempted_by = preemptor.key
        self._gone(rec, uid, PREEMPTED)
        self.emit({"t": self.now, "op": "preempted", "pod": rec.key, "by": preemptor.key, "node": node_name})
        self._recreate(rec)

    # -- events -----------------------------------------------------------------------------------
    def apply(self, kind: int, payload: Any) -> None:
        self.epoch += 1
        self.real_epoch += 1
        if kind == _COMPLETE:
            rec = self.recs[payload]
            if rec.state == RUNNING:
                self.sched.remove_pod(payload)
                self._gone(rec, payload, SUCCEEDED)
                self.counts["completed"] += 1
                if self.log is not None:
                    self.emit({"t": self.now, "op": "completed", "pod": rec.key})
            return
        if kind == _RECREATE:
            pod, workload, duration = payload
            self.emit({"t": self.now, "op": "recreated", "pod": pod.key})
            self.new_pod(pod, workload, duration)
            return
        self.input(payload)

    def input(self, a: PlannedArrival) -> None:
        if self.log is not None:
            self.emit(input_record(a))
        if a.op == "arrive":
            w = self.workloads[a.workload]
            self.new_pod(self._from_template(w, a.name), w.name, a.duration)
        elif a.op == "pod":
            assert a.pod is not None
            self.new_pod(
                a.pod.evolve(creation_timestamp=self.now) if a.pod.creation_timestamp is None else a.pod,
                "",
                self.plan.durations.get(a.pod.key),
            )
        elif a.op == "scale":
            live = list(self.live.get(a.workload, {}))
            # the ReplicaSet controller deletes unscheduled pods first, then the newest
            order = sorted(range(len(live)), key=lambda i: (self.recs[live[i]].state != PENDING, -i))
            for i in order[: a.replicas]:
                self.delete(live[i], DELETED, recreate=False)
        elif a.op == "node":
            assert a.event is not None
            self.node_event(a.event)

    def node_event(self, e: NodeEvent) -> None:
        sched = self.sched
        if e.action == "add":
            assert e.node is not None
            sched.add_node(e.node)
            self._track_node(e.node)
            self._daemon_pods_for(e.node)
            return
        if e.action == "delete-pod":
            for key in e.pods:
                uid = self.by_key.get(key if "/" in key else f"default/{key}")
                if uid is not None:
                    self.delete(uid, DELETED, recreate=True)
            return
        for name in e.nodes:
            node = self.node_objs.get(name)
            if node is None:
                continue  # unknown (or already removed) node: nothing happens, as with kubectl on a gone node
            if e.action == "remove":
                # the pod garbage collector deletes the pods of a gone node; their controllers
                # replace them, but a DaemonSet makes no pod for a node that is gone
                self._evict_all(name, daemons=True)
                self._delete_daemon_pods_for(name)
                sched.remove_node(name)
                self._untrack_node(name)
                continue
            if e.action in ("cordon", "drain"):
                new = node.evolve(unschedulable=True)
            elif e.action == "uncordon":
                new = node.evolve(unschedulable=False)
            elif e.action == "taint":
                assert e.taint is not None
                new = node.evolve(
                    taints=(
                        *[t for t in node.taints if (t.key, t.effect) != (e.taint.key, e.taint.effect)],
                        e.taint,
                    )
                )
            elif e.action == "untaint":
                assert e.taint is not None
                new = node.evolve(
                    taints=tuple(t for t in node.taints if (t.key, t.effect) != (e.taint.key, e.taint.effect))
                )
            else:  # label
                labels = dict(node.labels)
                for k, v in e.labels.items():
                    if v == "":
                        labels.pop(k, None)
                    else:
                        labels[k] = v
                new = node.evolve(labels=labels)
            if new != node:
                sched.update_node(new)
                self._track_node(new)
            if e.action == "drain":
                # as ``kubectl drain --ignore-daemonsets``: DaemonSet pods stay (they tolerate
                # the cordon and their controller would put them straight back)
                self._evict_all(name, daemons=False)

    def _evict_all(self, name: str, *, daemons: bool) -> None:
        """Delete the pods on node *name*; *daemons*: the DaemonSet pods too (the node is gone:
        they go with it, not recreated), else they stay."""
        for uid in list(self.on_node.get(name, {})):
            rec = self.recs[uid]
            if _daemon_owner(rec.pod) is None:
                self.delete(uid, EVICTED, recreate=True)
            elif daemons:
                self.delete(uid, EVICTED, recreate=False)

    def _delete_daemon_pods_for(self, name: str) -> None:
        """The DaemonSet controller deletes the pods it made for node *name*, which is gone, that
        are not bound yet (pinned to it by their node affinity, they could never be placed)."""
        for uid, rec in list(self.recs.items()):
            if rec.state == PENDING and _daemon_owner(rec.pod) is not None \
                    and daemon_target(rec.pod) == name:
                self.delete(uid, DELETED, recreate=False)

    def _daemon_pods_for(self, node: Node) -> None:
        """The DaemonSets of the plan's objects create their pod for a node added by an event (as
        :func:`~schedframe.api.workloads.expand_workloads` does for the starting nodes): one per
        DaemonSet whose node selector, affinity and tolerations let it run there and that has no
        pod on it yet."""
        daemon_sets = [o for o in self.plan.objects if isinstance(o, DaemonSet)]
        if not daemon_sets:
            return
        classes = [o for o in self.plan.objects if type(o).__name__ == "PriorityClass"]
        for ds in daemon_sets:
            # its live pods (their names are taken; the one on this node covers it)
            owned = [r.pod for r in self.recs.values() if r.state in (PENDING, RUNNING)
                     and _daemon_owner(r.pod) == (ds.namespace, ds.name)]
            owned_uids = {p.uid for p in owned}
            # names drawn per (seed, node): the same run gives the same names, and pods made for
            # other nodes (or gone since) keep theirs; a name ever used is drawn again
            base = self.seed * 1_000_003 + zlib.crc32(node.name.encode())
            for attempt in range(64):
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", SchedframeWarning)  # said at load time
                    made = [o for o in expand_workloads([*classes, node, ds, *owned], seed=base + attempt)
                            if isinstance(o, Pod) and o.uid not in owned_uids]
                if not any(p.key in self.by_key or p.uid in self.recs for p in made):
                    break
            else:
                raise ScenarioError("<plan>", f"nodes[{node.name}]",
                                    f"DaemonSet {ds.namespace}/{ds.name}: no free pod name for "
                                    "the added node")
            for pod in made:
                self.emit({"t": self.now, "op": "created", "pod": pod.key,
                           "by": f"DaemonSet {ds.namespace}/{ds.name}"})
                self.new_pod(pod.evolve(creation_timestamp=self.now), "", None)

    # -- samples ----------------------------------------------------------------------------------
    def sample(self, t: float) -> Sample:
        req = {k: v for k, v in self.req_tot.items() if v or k in self.alloc_tot}
        alloc = dict(self.alloc_tot)
        frag = {}
        for i, res in enumerate(("cpu", "memory")):
            free = alloc.get(res, 0) - req.get(res, 0)
            if free > 0:
                frag[res] = self.frag_free[i] / free
        return Sample(t, self.pending, req.get("pods", 0), len(self.allocatable), req, alloc, frag,
                      self.load.used(t))

    def _samples_until(self, t: float) -> None:
        """Record the (constant) state at every sample time before *t*."""
        if self.next_sample >= t:
            return
        s = self.sample(self.next_sample)
        while self.next_sample < t:
            self.samples.append(
                Sample(
                    self.next_sample,
                    s.pending,
                    s.running,
                    s.nodes,
                    s.requested,
                    s.allocatable,
                    s.fragmentation,
                    self.load.used(self.next_sample) if self.load.active else s.used,
                )
            )
            self.next_sample += self.sample_every

    # -- explain ----------------------------------------------------------------------------------
    def _install_explainer(self) -> None:
        snapshot = Snapshot()
        sched = self.sched

        def explain_popped(pinfo: QueuedPodInfo) -> None:
            # the Scheduler's on_pop hook: the pod's cycle is about to run
            if pinfo.pod.key in self.explain_keys:
                fwk = sched.frameworks.get(pinfo.pod.scheduler_name)
                if fwk is not None:
                    sched.cache.update_snapshot(snapshot)
                    e = explain_with(fwk, snapshot, pinfo.pod, seed=self.seed)
                    self.explanations.setdefault(pinfo.pod.key, []).append(e)

        sched.on_pop = explain_popped

    # -- the loop ---------------------------------------------------------------------------------
    def _no_progress(self) -> bool:
        """Whether no retry can change anything: nothing ahead in the heap, no pod waiting at
        Permit, and every pod the queue would hand out again failed since the last change.

        With pods waiting at Permit (a gang short of its quorum): when the clock has already
        jumped to _GANG_ROUNDS Permit deadlines since the cluster last changed (the waiting
        members timed out and were retried, and still no pod bound) and every pod the queue
        would hand out failed since that change, the gang goes round for ever: no progress."""
        if self.heap or not self.pending:
            return False
        queue = self.sched.queue
        recs = self.recs
        if len(self.sched.waiting_pods):
            epoch = self.real_epoch
            if self.permit_rounds_epoch != epoch or self.permit_rounds < _GANG_ROUNDS:
                return False
            for pod in (*queue.pods_in_active_q(), *queue.pods_in_backoff_q()):
                rec = recs.get(pod.uid)
                if rec is None or rec.seen_real != epoch:
                    return False
            return True
        epoch = self.epoch
        for pod in (*queue.pods_in_active_q(), *queue.pods_in_backoff_q()):
            rec = recs.get(pod.uid)
            if rec is None or rec.seen != epoch:
                return False
        return True

    def run(self) -> SimResult:
        wall0 = time.perf_counter()
        cpu0 = time.process_time()
        plan = self.plan
        sched = self.sched
        check_nodes(plan)
        if self.log is not None:
            self.emit(
                {
                    **header_record(plan, self.config_name, sched, self.seed, self.until),
                    "sample_every": self.sample_every,
                }
            )
        for n in plan.nodes:
            sched.add_node(n)
            self._track_node(n)
        for p in plan.pods:
            if p.node_name or p.is_terminal:  # pending pods arrive with the timeline
                self.new_pod(p, "", plan.durations.get(p.key))
        self._warn_unknown_nodes()
        for a in plan.timeline:
            self.push(a.at, _INPUT, a)
        if self.explain_keys:
            self._install_explainer()
        heap = self.heap
        until = self.until
        queue = sched.queue
        schedule_one = sched.schedule_one
        perf = time.perf_counter
        sched_time = 0.0
        cycles = 0
        idle = 0  # cycles at this instant since the last binding
        bound_mark = -1
        progress = self.progress
        last_progress = wall0
        stalled_now = False
        waiting = sched.waiting_pods
        end_reason = "done"
        stopped_at: float | None = None
        while True:
            now = self.now
            while heap and heap[0][0] <= now:
                _, _, kind, payload = heapq.heappop(heap)
                self.apply(kind, payload)
            if not stalled_now:
                held = len(waiting)
                self.cycle_epoch = self.epoch
                self.cycle_real_epoch = self.real_epoch
                t = perf()
                ran = schedule_one()
                sched_time += perf() - t
                if self.log_error is not None:
                    raise self.log_error
                if held or len(waiting):  # a Permit wait began, ended or goes on: things change
                    self.epoch += 1
                if ran:
                    cycles += 1
                    if self.pending != bound_mark:
                        bound_mark, idle = self.pending, 0
                    else:
                        idle += 1
                        if idle > _STALL_CYCLES_PER_POD * (self.pending + 1):
                            stalled_now = True
                            self.stalled.append(now)
                    if progress is not None and not cycles & 255:
                        t = perf()
                        if t - last_progress > 0.2:
                            last_progress = t
                            progress(now, self.horizon, self._placed(), self.pending)
                    continue
            # nothing ready now: when does something happen next?
            cand = heap[0][0] if heap else None
            deadline = sched.waiting_pods.next_deadline()
            for c in (
                queue.next_backoff_completion(),
                deadline,
                queue.next_unschedulable_timeout() if heap else None,
            ):
                if c is not None and c > now and (cand is None or c < cand):
                    cand = c
            if cand is None:
                if self.pending:
                    end_reason, stopped_at = "no-progress", now
                break
            if until is not None and cand > until:
                end_reason = "until"
                break
            if self._no_progress():
                end_reason, stopped_at = "no-progress", now
                break
            if cand == deadline:  # a Permit wait times out
                if self.permit_rounds_epoch != self.real_epoch:
                    self.permit_rounds_epoch, self.permit_rounds = self.real_epoch, 0
                self.permit_rounds += 1
            self._samples_until(cand)
            self.clock.set(cand)
            self.now = cand
            stalled_now = False
            idle, bound_mark = 0, -1
        end = self.now if until is None else max(self.now, until)
        if until is not None and end > self.now:
            self.clock.set(end)
            self.now = end
        self._samples_until(end)
        self.samples.append(self.sample(end))
        for pend in sched.pending():
            rec = self.recs.get(pend.pod.uid)
            if rec is not None and rec.state == PENDING:
                rec.message = pend.message
        if self.log is not None:
            for _, _, kind, payload in sorted(heap):
                if kind == _INPUT:
                    self.emit({**input_record(payload), "reached": False})
        self.counts["cycles"] = cycles
        wall = time.perf_counter() - wall0
        cpu_total = time.process_time() - cpu0
        # the process CPU clock is a system call (about 2 us): read around every call it cost 4 %
        # of a run, so the cycles' CPU share is taken to be their share of the wall time
        sched_cpu = min(cpu_total, sched_time * cpu_total / wall) if wall > 0 else 0.0
        perf_rec = Perf(wall, sched_time, cycles / sched_time if sched_time > 0 else 0.0,
                        cpu_total, sched_cpu)
        result = self._result(end, perf_rec, end_reason, stopped_at)
        if self.log is not None:
            self.emit({"t": end, "op": "end", "metrics": result.metrics.to_dict()})
        if self.log_error is not None:
            raise self.log_error
        if progress is not None:
            progress(end, self.horizon, result.metrics.placed, result.metrics.pending)
        return result

    def _placed(self) -> int:
        return sum(1 for r in self.recs.values() if r.bound_at is not None and not r.initial)

    def _result(self, end: float, perf: Perf, end_reason: str, stopped_at: float | None) -> SimResult:
        recs = list(self.recs.values())
        new = [r for r in recs if not r.initial]
        profiles = tuple(self.sched.frameworks)
        unhandled: dict[str, list[str]] = {}
        waits: list[float] = []
        censored: list[float] = []
        for r in new:
            if r.bound_at is not None:
                waits.append(r.bound_at - r.arrival)
                continue
            name = r.pod.scheduler_name
            if name in self.sched.frameworks:
                censored.append((end if r.ended is None else r.ended) - r.arrival)
                continue
            unhandled.setdefault(name, []).append(r.key)
            if r.state == PENDING and not r.message:
                r.message = (
                    f"no profile named {name!r} in the configuration (profiles: "
                    f"{', '.join(profiles)}); nobody schedules this pod"
                )
        stats = {q: censored_percentile(waits, censored, q) for q in (50.0, 90.0, 99.0, 100.0)}
        names = (("p50", 50.0), ("p90", 90.0), ("p99", 99.0), ("max", 100.0))
        lower = tuple(n for n, q in names if stats[q][1])
        samples = self.samples
        util_mean: dict[str, float] = {}
        util_peak: dict[str, float] = {}
        frag_mean: dict[str, float] = {}
        for res in ("cpu", "memory"):
            us = [s.utilisation(res) for s in samples]
            util_mean[res] = sum(us) / len(us) if us else 0.0
            util_peak[res] = max(us, default=0.0)
            fs = [s.fragmentation.get(res, 0.0) for s in samples]
            frag_mean[res] = sum(fs) / len(fs) if fs else 0.0
        metrics = Metrics(
            pods=len(new),
            placed=len(waits),
            pending=sum(1 for r in recs if r.state == PENDING),
            running=sum(1 for r in recs if r.state == RUNNING),
            completed=self.counts["completed"],
            preemptions=self.counts["preemptions"],
            recreated=self.counts["recreated"],
            attempts=self.counts["cycles"],
            wait_p50=stats[50.0][0],
            wait_p90=stats[90.0][0],
            wait_p99=stats[99.0][0],
            wait_max=stats[100.0][0],
            utilisation_mean=util_mean,
            utilisation_peak=util_peak,
            fragmentation_mean=frag_mean,
            end=end,
            original=len(new) - self.counts["recreated"],
            wait_censored=len(censored),
            wait_lower_bound=lower,
        )
        nodes = []
        for name, points in self.series.items():
            dicts = list(map(_second, points))
            keys = sorted(set(self.allocatable.get(name, {})).union(*dicts))
            times = tuple(map(_first, points))
            requested = {k: tuple(map(methodcaller("get", k, 0), dicts)) for k in keys}
            nodes.append(NodeSeries(name, dict(self.allocatable.get(name, {})), times, requested))
        explanations = {k: tuple(v) for k, v in self.explanations.items()}
        return SimResult(
            self.plan.name,
            self.config_name,
            self.seed,
            tuple(r.result() for r in recs),
            tuple(nodes),
            tuple(samples),
            metrics,
            tuple(self.stalled),
            explanations,
            perf,
            end_reason=end_reason,
            stopped_at=stopped_at,
            unhandled={k: tuple(v) for k, v in unhandled.items()},
            profiles=profiles,
            gang_blocked=gang_blocks(((r.pod, r.state) for r in recs), self.plan.objects,
                                     self.sched.frameworks),
            recorded_decisions=None if self.recorder is None else self.recorder.decisions(),
            recorded_verdicts=None if self.recorder is None else self.recorder.verdicts(),
        )


# -- log records -----------------------------------------------------------------------------------


def _node_event_record(e: NodeEvent) -> dict[str, Any]:
    out: dict[str, Any] = {"at": e.at, "action": e.action}
    if e.nodes:
        out["nodes"] = list(e.nodes)
    if e.node is not None:
        out["node"] = e.node.to_manifest()
    if e.taint is not None:
        out["taint"] = {"key": e.taint.key, "value": e.taint.value, "effect": e.taint.effect}
    if e.labels:
        out["labels"] = dict(e.labels)
    if e.pods:
        out["pods"] = list(e.pods)
    return out


def input_record(a: PlannedArrival) -> dict[str, Any]:
    """The log line of a plan input."""
    out: dict[str, Any] = {"t": a.at, "op": a.op}
    if a.op == "arrive":
        out.update(workload=a.workload, name=a.name, duration=a.duration)
    elif a.op == "pod":
        assert a.pod is not None
        out["pod"] = a.pod.to_manifest()
    elif a.op == "scale":
        out.update(workload=a.workload, replicas=a.replicas)
    else:
        assert a.event is not None
        out["event"] = _node_event_record(a.event)
    return out


def header_record(
    plan: Plan, config_name: str, sched: Scheduler, seed: int, until: float | None
) -> dict[str, Any]:
    """The log's first line: everything a replay needs besides the input lines."""
    return {
        "op": "header",
        "version": LOG_VERSION,
        "scenario": plan.name,
        "config_name": config_name,
        "config": sched.config.to_dict(),
        "seed": seed,
        "plan_seed": plan.seed,
        "until": until,
        "nodes": [n.to_manifest() for n in plan.nodes],
        "pods": [p.to_manifest() for p in plan.pods],
        "objects": [object_to_manifest(o) for o in plan.objects],
        "workloads": [
            {"name": w.name, "kind": w.kind, "recreate": w.recreate, "template": w.template.to_manifest()}
            for w in plan.workloads
        ],
        "durations": dict(plan.durations),
        **load_record(plan),
    }


def run_plan(
    plan: Plan,
    config: Any = None,
    *,
    config_name: str = "default",
    seed: int = 0,
    until: float | None = None,
    registry: Registry | None = None,
    explain: Iterable[str] = (),
    log: IO[str] | None = None,
    progress: Progress | None = None,
    sample_every: float | None = None,
    decisions: RecordDecisions | bool | None = None,
) -> SimResult:
    """Run a materialised :class:`~schedframe.sim.Plan` (see :func:`schedframe.sim.simulate`).

    Raises:
        ScenarioError: *until* (or the plan's) or *sample_every* is not a finite number of
            seconds in range.
    """
    if until is not None:
        check_time(until, "until")
    elif plan.until is not None:
        check_time(plan.until, "until")
    if sample_every is not None:
        check_time(sample_every, "sample_every")
    return _Sim(
        plan,
        config,
        config_name,
        seed,
        until=until,
        registry=registry,
        explain=explain,
        log=log,
        progress=progress,
        sample_every=sample_every,
        decisions=RecordDecisions.of(decisions),
    ).run()
