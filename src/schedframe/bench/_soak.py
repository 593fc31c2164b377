"""``python -m schedframe.bench soak``: a long run of arrivals and departures on one scheduler.

A deterministic :class:`~schedframe.Scheduler` (a :class:`~schedframe.FakeClock` moved one
simulated second per round, a seeded RNG) on a few hundred nodes. Each round: bound pods whose
simulated lifetime ended are removed, pending pods that waited too long are deleted (their owner
gave up), new pods of several shapes arrive (plain, large, zone-spread, pinned to a node pool,
high-priority ones that may preempt), now and then a node is cordoned, uncordoned or moved to
another pool, and the scheduler runs until no pod is ready. The run lasts a wall-clock budget or
a number of rounds and reports per interval: pods bound, pods/s, the current RSS, live and
pending pods; at the end: throughput of the last interval against the first one after warm-up,
memory growth after warm-up, and the invariants (no pod lost, no node overcommitted, the cache
equal to one rebuilt from the surviving objects, no pod queued twice). A broken invariant makes
the command exit 1; a number never does.

.. versionadded:: 0.1.0
"""

from __future__ import annotations

import argparse
import gc
import heapq
import itertools
import os
import sys
import time
import tracemalloc
from collections.abc import Callable, Collection, Sequence
from typing import Any, Final

import attrs

from .. import _jsonout
from ..api.objects import Node, Pod
from ..cache.cache import Cache
from ..framework.clock import FakeClock
from ..framework.hookspecs import hookimpl
from ..framework.plugin_manager import make_plugin_manager
from ..scheduler.scheduler import Scheduler
from ..testing._builders import make_node, make_pod, selector
from ._report import machine_info

__all__ = [
    "SoakInterval",
    "SoakOptions",
    "SoakReport",
    "check_invariants",
    "current_rss_mb",
    "format_soak",
    "run_soak",
    "soak_main",
]

ZONES: Final = ("zone-a", "zone-b", "zone-c")
POOLS: Final = ("a", "b", "c")
_T0: Final = 1_700_000_000.0
_MIB: Final = 1024 * 1024
_PAGE: Final = os.sysconf("SC_PAGE_SIZE") if hasattr(os, "sysconf") else 4096

#: (shape, weight): what arrives, in proportion.
SHAPES: Final = (("small", 40), ("medium", 25), ("large", 10), ("spread", 10), ("pool", 10),
                 ("critical", 5))


def current_rss_mb() -> float:
    """The process's current resident set size in MiB (``/proc/self/statm``; the peak from
    ``getrusage`` where there is no ``/proc``)."""
    try:
        with open("/proc/self/statm", encoding="ascii") as f:
            return int(f.read().split()[1]) * _PAGE / _MIB
    except (OSError, ValueError, IndexError):  # pragma: no cover - not Linux
        import resource

        peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        return peak / (_MIB if sys.platform == "darwin" else 1024)


@attrs.frozen(kw_only=True)
class SoakOptions:
    """What to run.

    Attributes:
        nodes: cluster size (half 4 CPU / 16Gi, half 8 CPU / 32Gi, three zones, three pools).
        seconds: wall-clock budget (``None``: until *rounds*).
        rounds: simulated seconds to run (``None``: until *seconds*); the first limit reached
            ends the run.
        seed: seeds the workload and the scheduler's tie-breaking.
        arrivals: mean pods arriving per round (per simulated second).
        lifetime: ``(min, max)`` simulated seconds a bound pod lives (uniform).
        patience: simulated seconds a pending pod waits before its owner deletes it.
        node_event_rate: probability per round of a node event (cordon, uncordon, relabel).
        interval_seconds: wall seconds per reporting interval.
        interval_rounds: rounds per reporting interval instead (deterministic reports).
        warmup_rounds: rounds before the cluster counts as warm (default: twice the longest
            lifetime, when arrivals and departures balance).
        check_every_interval: check the invariants at each interval end, not only at the end.
        trace_memory: run :mod:`tracemalloc` from the warm-up on and report the allocation sites
            that grew most since then.
    """

    nodes: int = 300
    seconds: float | None = 600.0
    rounds: int | None = None
    seed: int = 0
    arrivals: float = 10.0
    lifetime: tuple[int, int] = (60, 540)
    patience: int = 600
    node_event_rate: float = 0.15
    interval_seconds: float = 10.0
    interval_rounds: int | None = None
    warmup_rounds: int | None = None
    check_every_interval: bool = True
    trace_memory: bool = False

    @property
    def effective_warmup_rounds(self) -> int:
        """The rounds of warm-up."""
        return self.warmup_rounds if self.warmup_rounds is not None else 2 * self.lifetime[1]


@attrs.frozen(kw_only=True)
class SoakInterval:
    """One reporting interval.

    Attributes:
        index: 0-based.
        round: simulated seconds (rounds) run at the end of the interval.
        elapsed: wall seconds since the start.
        seconds: wall seconds of the interval.
        cpu_seconds: CPU seconds of the process in the interval (insensitive to other load).
        arrived / scheduled / removed / preempted / gave_up: pods in the interval.
        pods_per_second: pods bound per wall second in the interval.
        pods_per_cpu_second: pods bound per CPU second in the interval.
        live: pods the scheduler holds (bound and pending) at the end.
        pending: pods not bound at the end.
        rss_mb: current RSS at the end (after a ``gc.collect()``).
        traced_mb: memory traced by :mod:`tracemalloc` (``None`` when off; traced from the end
            of the first warm interval on).
        warm: the interval ended after the warm-up.
    """

    index: int
    round: int
    elapsed: float
    seconds: float
    cpu_seconds: float
    arrived: int
    scheduled: int
    removed: int
    preempted: int
    gave_up: int
    pods_per_second: float
    pods_per_cpu_second: float
    live: int
    pending: int
    rss_mb: float
    traced_mb: float | None
    warm: bool


@attrs.frozen(kw_only=True)
class SoakReport:
    """The result of :func:`run_soak`.

    Attributes:
        options: what ran.
        intervals: per-interval figures.
        rounds / seconds: simulated and wall seconds run.
        totals: pods arrived, scheduled, removed, preempted, gave_up; node_events; cycles.
        warmup_interval: index of the first warm interval (``None``: never warm).
        throughput_first: pods per CPU second of the first warm interval (of the first one if
            never warm); CPU time, so that other processes on the machine do not move it.
        throughput_last: pods per CPU second of the last interval.
        throughput_ratio: last / first.
        rss_after_warmup_mb: RSS at the end of the first warm interval.
        rss_end_mb: RSS at the end of the last interval.
        rss_growth_mb: end minus after-warm-up.
        peak_rss_mb: peak RSS of the process.
        violations: broken invariants (empty: all held).
        top_growth: with ``trace_memory``, the allocation sites that grew most after warm-up.
    """

    options: SoakOptions
    intervals: tuple[SoakInterval, ...]
    rounds: int
    seconds: float
    totals: dict[str, int]
    warmup_interval: int | None
    throughput_first: float
    throughput_last: float
    throughput_ratio: float | None
    rss_after_warmup_mb: float
    rss_end_mb: float
    rss_growth_mb: float
    peak_rss_mb: float
    violations: tuple[str, ...]
    top_growth: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        """Every invariant held."""
        return not self.violations

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready record (with the machine it ran on)."""
        out = attrs.asdict(self, recurse=True)
        out["options"]["lifetime"] = list(self.options.lifetime)
        out["ok"] = self.ok
        out["machine"] = machine_info()
        out["schema"] = "schedframe-soak/1"
        return out


# --------------------------------------------------------------------------------------------
# invariants


def check_invariants(s: Scheduler, live: Collection[str], *, external: Collection[str] = (),
                     allow_waiting: bool = True) -> list[str]:
    """What is wrong with *s* (empty when every invariant holds).

    Args:
        s: the scheduler.
        live: uids of the pods that should still exist (added and not deleted by anyone but the
            scheduler's own preemption, which the caller removes from *live*).
        external: uids of pods added already bound (not placed by the scheduler): left out of
            the overcommit check, which is about the scheduler's placements.
        allow_waiting: pods may still wait at Permit (assumed) -- counted as placed.
    """
    problems: list[str] = []
    pods = {p.uid: p for p in s.pods()}
    pending = s.pending()
    pending_uids = [pp.pod.uid for pp in pending]
    pending_set = set(pending_uids)
    if len(pending_set) != len(pending_uids):
        problems.append(f"a pod is listed pending twice: {sorted(pending_uids)}")
    bound = {uid for uid, p in pods.items() if p.node_name}
    if bound & pending_set:
        problems.append(f"pods both bound and pending: {sorted(bound & pending_set)}")
    for uid in live:
        if uid not in pods:
            problems.append(f"pod {uid} lost: the scheduler no longer knows it")
        elif uid not in bound and uid not in pending_set and pods[uid].scheduler_name in s.frameworks:
            problems.append(f"pod {pods[uid].key} lost: neither bound nor pending")
    extra = set(pods) - set(live)
    if extra:
        problems.append(f"pods the scheduler holds that were deleted: {sorted(extra)[:10]}")
    for pp in pending:
        if pp.where in ("Unschedulable", "Backoff") and not pp.message:
            problems.append(f"pod {pp.pod.key} pending in {pp.where} without a reason")
    queued = s.queue.pending_pods()
    queued_uids = [p.uid for p in queued]
    if len(set(queued_uids)) != len(queued_uids):
        problems.append("a pod is queued twice")
    gone = [uid for uid in queued_uids if uid not in pods]
    if gone:
        problems.append(f"deleted pods still queued: {gone[:10]}")
    in_flight = sum(pp.where == "InFlight" for pp in pending)
    if len(queued_uids) != len(pending) - in_flight:
        problems.append(f"queue holds {len(queued_uids)} pods, {len(pending) - in_flight} pending "
                        "pods are not in flight")

    dump = s.cache.dump()
    waiting = {wp.pod.uid: wp.pod for wp in s.waiting_pods}
    if not allow_waiting and waiting:
        problems.append(f"pods still waiting at Permit: {sorted(waiting)}")
    ext = set(external)
    for name, info in dump.nodes.items():
        node = info.node
        if node is None:
            continue
        alloc = info.allocatable
        cpu = mem = count = 0
        for pi in info.pods:
            if pi.pod.uid in ext:
                continue
            r = pi.pod.requests
            cpu += r.milli_cpu
            mem += r.memory
            count += 1
        if cpu > alloc.milli_cpu or mem > alloc.memory or count > alloc.pods:
            problems.append(f"node {name} overcommitted by the scheduler: cpu {cpu}m/{alloc.milli_cpu}m, "
                            f"memory {mem}/{alloc.memory}, pods {count}/{alloc.pods}")

    rebuilt = Cache()
    for node in s.nodes():
        rebuilt.add_node(node)
    for p in pods.values():
        if p.node_name:
            rebuilt.add_pod(p)
    for p in waiting.values():
        rebuilt.assume_pod(p)
    want = {n: (sorted(x.pod.uid for x in i.pods), i.requested, i.node)
            for n, i in rebuilt.dump().nodes.items()}
    got = {n: (sorted(x.pod.uid for x in i.pods), i.requested, i.node) for n, i in dump.nodes.items()}
    if got != want:
        diff = sorted(n for n in set(got) | set(want) if got.get(n) != want.get(n))
        problems.append(f"cache differs from one rebuilt from the surviving objects on nodes {diff[:10]}")
    if dump.assumed_pods != frozenset(waiting):
        problems.append(f"assumed pods {sorted(dump.assumed_pods)} are not the waiting pods "
                        f"{sorted(waiting)}")
    # the snapshot the cycles read must equal the cache (a plugin mutating a NodeInfo breaks it)
    problems.extend(f"snapshot: {p}" for p in s.verify_snapshot(repair=False))
    return problems


# --------------------------------------------------------------------------------------------
# the workload


class _Observer:
    def __init__(self, on_bound: Callable[[Pod], None], on_preempted: Callable[[Pod], None]) -> None:
        self._bound = on_bound
        self._preempted = on_preempted

    @hookimpl
    def schedframe_pod_bound(self, pod: Pod) -> None:
        self._bound(pod)

    @hookimpl
    def schedframe_pod_preempted(self, victim: Pod) -> None:
        self._preempted(victim)


def _node(i: int, pool: str, unschedulable: bool = False) -> Node:
    big = i % 2 == 1
    b = (make_node(f"soak-node-{i}").capacity(cpu="8" if big else "4", memory="32Gi" if big else "16Gi",
                                              pods=110)
         .label("topology.kubernetes.io/zone", ZONES[i % len(ZONES)])
         .label("kubernetes.io/hostname", f"soak-node-{i}").label("pool", pool).condition("Ready"))
    if unschedulable:
        b = b.unschedulable()
    return b.obj()


def _pod(seq: int, shape: str, pool: str) -> Pod:
    b = make_pod(f"soak-{seq}").label("shape", shape)
    if shape == "small":
        b = b.req(cpu="100m", memory="128Mi")
    elif shape == "medium":
        b = b.req(cpu="500m", memory="1Gi")
    elif shape == "large":
        b = b.req(cpu="2", memory="4Gi")
    elif shape == "spread":
        app = f"web-{seq % 8}"
        b = (b.req(cpu="250m", memory="512Mi").label("app", app)
             .spread_constraint(2, "topology.kubernetes.io/zone", "DoNotSchedule", selector({"app": app})))
    elif shape == "pool":
        b = b.req(cpu="500m", memory="1Gi").node_selector({"pool": pool})
    else:  # critical
        b = b.req(cpu="1", memory="2Gi").priority(1000)
    return b.obj()


class _Soak:
    def __init__(self, options: SoakOptions) -> None:
        import random

        self.o = options
        self.rng = random.Random(options.seed)
        self.clock = FakeClock(_T0)
        pm = make_plugin_manager()
        pm.register(_Observer(self._on_bound, self._on_preempted))
        self.s = Scheduler(clock=self.clock, seed=options.seed, plugin_manager=pm)
        self.live: dict[str, float] = {}  # uid -> arrival (simulated)
        self.lifetimes: dict[str, int] = {}
        self.departures: list[tuple[float, int, str]] = []
        self.arrival_order: list[tuple[float, int, str]] = []  # for patience
        self.seq = 0
        self._ties = itertools.count()
        self.counts = dict.fromkeys(("arrived", "scheduled", "removed", "preempted", "gave_up",
                                     "node_events", "cycles"), 0)
        self.cordoned: set[int] = set()
        self.pool_of: list[str] = []
        names = [s for s, _ in SHAPES]
        weights = [w for _, w in SHAPES]
        self._shapes = (names, weights)

    def _on_bound(self, pod: Pod) -> None:
        self.counts["scheduled"] += 1
        life = self.lifetimes.pop(pod.uid, self.o.lifetime[0])
        heapq.heappush(self.departures, (self.clock.now() + life, next(self._ties), pod.uid))

    def _on_preempted(self, victim: Pod) -> None:
        self.counts["preempted"] += 1
        self.live.pop(victim.uid, None)
        self.lifetimes.pop(victim.uid, None)

    def setup(self) -> None:
        for i in range(self.o.nodes):
            pool = POOLS[i % len(POOLS)]
            self.pool_of.append(pool)
            self.s.add_node(_node(i, pool))

    def _poisson(self, mean: float) -> int:
        # Knuth's method: small means only
        import math

        limit, k, p = math.exp(-mean), 0, 1.0
        while True:
            p *= self.rng.random()
            if p <= limit:
                return k
            k += 1

    def round(self) -> None:
        s, now = self.s, self.clock.now()
        # departures of bound pods
        dep = self.departures
        while dep and dep[0][0] <= now:
            _, _, uid = heapq.heappop(dep)
            if uid in self.live:
                del self.live[uid]
                s.remove_pod(uid)
                self.counts["removed"] += 1
        # owners giving up on pods pending too long
        order, patience = self.arrival_order, self.o.patience
        while order and order[0][0] + patience <= now:
            _, _, uid = heapq.heappop(order)
            if uid in self.live and uid in self.lifetimes:  # still unbound
                del self.live[uid]
                del self.lifetimes[uid]
                s.remove_pod(uid)
                self.counts["gave_up"] += 1
        # arrivals
        names, weights = self._shapes
        lo, hi = self.o.lifetime
        for _ in range(self._poisson(self.o.arrivals)):
            self.seq += 1
            shape = self.rng.choices(names, weights)[0]
            pod = _pod(self.seq, shape, self.rng.choice(POOLS))
            s.add_pod(pod)
            self.live[pod.uid] = now
            self.lifetimes[pod.uid] = self.rng.randint(lo, hi)
            heapq.heappush(order, (now, self.seq, pod.uid))
            self.counts["arrived"] += 1
        # node events
        if self.rng.random() < self.o.node_event_rate:
            self._node_event()
        # schedule until nothing is ready (bounded against a livelock)
        budget = 4 * (len(self.lifetimes) + 8) + 100
        while budget and s.schedule_one():
            budget -= 1
            self.counts["cycles"] += 1
        self.clock.step(1.0)

    def _node_event(self) -> None:
        n = self.o.nodes
        i = self.rng.randrange(n)
        kind = self.rng.random()
        if kind < 0.4 and len(self.cordoned) < max(1, n // 10) and i not in self.cordoned:
            self.cordoned.add(i)
        elif kind < 0.8 and self.cordoned:
            i = self.rng.choice(sorted(self.cordoned))
            self.cordoned.discard(i)
        else:
            self.pool_of[i] = self.rng.choice(POOLS)
        self.s.update_node(_node(i, self.pool_of[i], i in self.cordoned))
        self.counts["node_events"] += 1

    def check(self) -> list[str]:
        return check_invariants(self.s, self.live.keys(), allow_waiting=False)


def run_soak(options: SoakOptions | None = None,
             progress: Callable[[SoakInterval], None] | None = None) -> SoakReport:
    """Run the soak described by *options* (default: 300 nodes, 10 minutes)."""
    o = options if options is not None else SoakOptions()
    if o.seconds is None and o.rounds is None:
        raise ValueError("a soak needs a limit: seconds or rounds")
    if o.nodes < 1:
        raise ValueError(f"nodes must be >= 1, got {o.nodes}")
    started = [False]
    try:
        return _run(o, progress, started)
    finally:
        if started[0]:
            tracemalloc.stop()


def _run(o: SoakOptions, progress: Callable[[SoakInterval], None] | None, started: list[bool]
         ) -> SoakReport:
    soak = _Soak(o)
    soak.setup()
    violations: list[str] = []
    intervals: list[SoakInterval] = []
    warm_snapshot: tracemalloc.Snapshot | None = None
    warmup = o.effective_warmup_rounds
    start = last = time.perf_counter()
    cpu_last = time.process_time()
    rounds = 0
    prev = dict(soak.counts)
    deadline = None if o.seconds is None else start + o.seconds
    while True:
        soak.round()
        rounds += 1
        now = time.perf_counter()
        done = (o.rounds is not None and rounds >= o.rounds) or (deadline is not None and now >= deadline)
        if o.interval_rounds:
            boundary = rounds % o.interval_rounds == 0
        else:
            boundary = now - last >= o.interval_seconds
        if not (boundary or done):
            continue
        if o.check_every_interval or done:
            for problem in soak.check():
                violations.append(f"round {rounds}: {problem}")
        gc.collect()
        rss = current_rss_mb()
        traced = tracemalloc.get_traced_memory()[0] / _MIB if tracemalloc.is_tracing() else None
        c = soak.counts
        seconds = now - last
        cpu = time.process_time() - cpu_last
        live = len(soak.live)
        iv = SoakInterval(
            index=len(intervals), round=rounds, elapsed=round(now - start, 3), seconds=round(seconds, 3),
            arrived=c["arrived"] - prev["arrived"], scheduled=c["scheduled"] - prev["scheduled"],
            removed=c["removed"] - prev["removed"], preempted=c["preempted"] - prev["preempted"],
            gave_up=c["gave_up"] - prev["gave_up"],
            cpu_seconds=round(cpu, 3),
            pods_per_second=round((c["scheduled"] - prev["scheduled"]) / seconds, 2) if seconds > 0 else 0.0,
            pods_per_cpu_second=round((c["scheduled"] - prev["scheduled"]) / cpu, 2) if cpu > 0 else 0.0,
            live=live, pending=len(soak.lifetimes), rss_mb=round(rss, 2),
            traced_mb=None if traced is None else round(traced, 2), warm=rounds >= warmup)
        if iv.warm and warm_snapshot is None and o.trace_memory:
            # trace from the warm-up on: what is allocated afterwards and survives is the growth
            if not tracemalloc.is_tracing():
                tracemalloc.start(6)
                started[0] = True
            warm_snapshot = tracemalloc.take_snapshot()
        intervals.append(iv)
        if progress is not None:
            progress(iv)
        prev = dict(c)
        # perf_counter again: the checks and the collection are not the scheduler's time
        last = time.perf_counter()
        cpu_last = time.process_time()
        if done:
            break
    top: list[str] = []
    if warm_snapshot is not None:
        diff = tracemalloc.take_snapshot().compare_to(warm_snapshot, "lineno")
        top = [str(stat) for stat in diff[:10]]
    return _report(o, soak, intervals, rounds, time.perf_counter() - start, violations, top)


def _report(o: SoakOptions, soak: _Soak, intervals: Sequence[SoakInterval], rounds: int, seconds: float,
            violations: Sequence[str], top: Sequence[str]) -> SoakReport:
    warm = next((iv.index for iv in intervals if iv.warm), None)
    first_iv = intervals[warm] if warm is not None else intervals[0]
    last_iv = intervals[-1]
    first, last = first_iv.pods_per_cpu_second, last_iv.pods_per_cpu_second
    import resource

    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / (_MIB if sys.platform == "darwin" else 1024)
    return SoakReport(
        options=o, intervals=tuple(intervals), rounds=rounds, seconds=round(seconds, 3),
        totals=dict(soak.counts), warmup_interval=warm, throughput_first=first, throughput_last=last,
        throughput_ratio=round(last / first, 3) if first else None,
        rss_after_warmup_mb=first_iv.rss_mb, rss_end_mb=last_iv.rss_mb,
        rss_growth_mb=round(last_iv.rss_mb - first_iv.rss_mb, 2), peak_rss_mb=round(peak, 2),
        violations=tuple(violations), top_growth=tuple(top))


# --------------------------------------------------------------------------------------------
# report and command line


def format_soak(report: SoakReport) -> str:
    """The per-interval table and the summary."""
    head = (f"{'#':>3} {'round':>7} {'elapsed s':>9} {'arrived':>7} {'bound':>7} {'removed':>7} "
            f"{'pods/s':>8} {'pods/cpu-s':>10} {'live':>6} {'pending':>7} {'RSS MiB':>8}  ")
    lines = [head, "-" * len(head)]
    for iv in report.intervals:
        traced = f"  traced {iv.traced_mb:.1f} MiB" if iv.traced_mb is not None else ""
        lines.append(f"{iv.index:>3} {iv.round:>7} {iv.elapsed:>9.1f} {iv.arrived:>7} {iv.scheduled:>7} "
                     f"{iv.removed:>7} {iv.pods_per_second:>8.1f} {iv.pods_per_cpu_second:>10.1f} "
                     f"{iv.live:>6} {iv.pending:>7} "
                     f"{iv.rss_mb:>8.1f}  {'warm' if iv.warm else 'warm-up'}{traced}")
    t = report.totals
    ratio = f"{report.throughput_ratio:.2f}" if report.throughput_ratio is not None else "n/a"
    lines += [
        "",
        f"{report.options.nodes} nodes, {report.rounds} rounds (simulated seconds) in "
        f"{report.seconds:.0f} s; arrived {t['arrived']}, bound {t['scheduled']}, removed {t['removed']}, "
        f"preempted {t['preempted']}, gave up {t['gave_up']}, node events {t['node_events']}, "
        f"cycles {t['cycles']}",
        f"throughput: first warm interval {report.throughput_first:.1f} pods per CPU second, last "
        f"{report.throughput_last:.1f} (ratio {ratio})",
        f"RSS: after warm-up {report.rss_after_warmup_mb:.1f} MiB, end {report.rss_end_mb:.1f} MiB "
        f"(growth {report.rss_growth_mb:+.1f} MiB), peak {report.peak_rss_mb:.1f} MiB",
    ]
    if report.warmup_interval is None:
        lines.append("the run ended before the warm-up: figures cover the fill, not the steady state")
    if report.top_growth:
        lines.append("allocation growth after warm-up (tracemalloc):")
        lines += [f"  {line}" for line in report.top_growth]
    if report.violations:
        lines.append(f"INVARIANTS BROKEN ({len(report.violations)}):")
        lines += [f"  {v}" for v in report.violations[:50]]
    else:
        lines.append("invariants: no pod lost, no node overcommitted, cache consistent, no pod queued twice")
    return "\n".join(lines)


def _soak_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m schedframe.bench soak",
        description="Long run of pod arrivals and departures on one deterministic scheduler: "
                    "throughput and RSS per interval, invariants checked (exit 1 if one breaks).")
    p.add_argument("--minutes", type=float, default=10.0, help="wall-clock minutes (default 10)")
    p.add_argument("--rounds", type=int, default=None,
                   help="stop after this many rounds (simulated seconds) instead, if reached first")
    p.add_argument("--nodes", type=int, default=300, help="nodes (default 300)")
    p.add_argument("--seed", type=int, default=0, help="workload and tie-breaking seed (default 0)")
    p.add_argument("--arrivals", type=float, default=10.0, help="mean pods arriving per round (default 10)")
    p.add_argument("--interval", type=float, default=10.0, metavar="SECONDS",
                   help="wall seconds per reported interval (default 10)")
    p.add_argument("--tracemalloc", action="store_true",
                   help="trace allocations; report the top growth after warm-up (slower)")
    p.add_argument("--json", metavar="PATH",
                   help="write the JSON record to PATH ('-': stdout); a number not measured is null")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return p


def soak_main(argv: Sequence[str]) -> int:
    """``python -m schedframe.bench soak ...``: 0 when every invariant held, 1 otherwise."""
    parser = _soak_parser()
    args = parser.parse_args(argv)
    if args.minutes <= 0:
        parser.error(f"--minutes must be > 0, got {args.minutes}")
    if args.nodes < 1:
        parser.error(f"--nodes must be >= 1, got {args.nodes}")
    if args.interval <= 0:
        parser.error(f"--interval must be > 0, got {args.interval}")
    options = SoakOptions(nodes=args.nodes, seconds=args.minutes * 60, rounds=args.rounds, seed=args.seed,
                          arrivals=args.arrivals, interval_seconds=args.interval,
                          trace_memory=args.tracemalloc)

    def progress(iv: SoakInterval) -> None:
        if not args.quiet:
            print(f"[soak] interval {iv.index}: round {iv.round}, {iv.elapsed:.0f} s, {iv.scheduled} bound "
                  f"({iv.pods_per_second:.1f}/s, {iv.pods_per_cpu_second:.1f}/CPU-s), live {iv.live}, "
                  f"pending {iv.pending}, preempted {iv.preempted}, RSS {iv.rss_mb:.1f} MiB",
                  file=sys.stderr, flush=True)

    report = run_soak(options, progress)
    print(format_soak(report))
    machine = machine_info()
    print(f"\nmachine: Python {machine['python']} ({machine['implementation']}), {machine['platform']}, "
          f"{machine['cpu_count']} CPUs, load {machine['load_average']}; seed {args.seed}")
    if args.json:
        text = _jsonout.dumps(_jsonout.finite_or_null(report.to_dict()), indent=2)
        if args.json == "-":
            print(text)
        else:
            with open(args.json, "w", encoding="utf-8") as f:
                f.write(text + "\n")
    return 0 if report.ok else 1
