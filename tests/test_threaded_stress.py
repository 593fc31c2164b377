"""Threaded mode under stress: event handlers called from several threads while another thread
schedules, binding cycles wait on Permit in worker threads and a third party allows or rejects
them; every run is bounded (a thread that does not finish in time is a deadlock, reported with
every thread's stack); at the end no pod is lost, no node is overcommitted by the scheduler, the
cache equals one rebuilt from the surviving objects and the queue holds no duplicate or deleted
pod.

Longer runs: ``SCHEDFRAME_STRESS_EXAMPLES=500 pytest tests/test_threaded_stress.py``, or
``python tests/test_threaded_stress.py --examples 500`` (prints the counters).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import threading
import time
import traceback
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import CycleState, Node, Pod, SchedulerError, Status
from schedframe.api import Taint
from schedframe.bench._soak import check_invariants
from schedframe.config.configuration import Profile, SchedulerConfiguration
from schedframe.framework.hookspecs import hookimpl
from schedframe.framework.plugin_manager import make_plugin_manager
from schedframe.plugins import in_tree_registry
from schedframe.scheduler.scheduler import RunSummary, Scheduler
from schedframe.testing import fake_registry, make_node, make_pod

#: examples per test (override with SCHEDFRAME_STRESS_EXAMPLES for longer runs)
EXAMPLES = int(os.environ.get("SCHEDFRAME_STRESS_EXAMPLES", "100"))
#: a thread still running after this many seconds is deadlocked
JOIN_TIMEOUT = 30.0

#: what ran (examples, event-handler calls, scheduling cycles, permit decisions, ...)
STATS: dict[str, int] = dict.fromkeys(
    ("examples", "ops", "conflicts", "cycles", "allowed", "rejected", "bound", "preempted",
     "pending_at_end"), 0)
_STATS_LOCK = threading.Lock()


def _count(key: str, n: int = 1) -> None:
    with _STATS_LOCK:
        STATS[key] += n


class Gate:
    """Permit: pods labelled ``gate`` wait (tens of ms) for the decider thread; pods labelled
    ``nap`` wait 2 ms on their first attempt (and usually time out). Reserve/Unreserve are
    counted per pod."""

    name = "Gate"

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.reserved: dict[str, int] = {}
        self.napped: set[str] = set()

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        with self.lock:
            self.reserved[pod.uid] = self.reserved.get(pod.uid, 0) + 1
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        with self.lock:
            self.reserved[pod.uid] = self.reserved.get(pod.uid, 0) - 1

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        if pod.labels.get("gate"):
            return Status.wait(), 0.01 * int(pod.labels["gate"])
        if pod.labels.get("nap"):
            with self.lock:
                if pod.uid not in self.napped:
                    self.napped.add(pod.uid)
                    return Status.wait(), 0.002
        return None, 0.0


class _Victims:
    def __init__(self) -> None:
        self.uids: set[str] = set()
        self.bound = 0

    @hookimpl
    def schedframe_pod_preempted(self, victim: Pod) -> None:
        self.uids.add(victim.uid)

    @hookimpl
    def schedframe_pod_bound(self, pod: Pod) -> None:
        self.bound += 1


def _scheduler(gate: Gate, victims: _Victims) -> Scheduler:
    registry = fake_registry(gate, base=in_tree_registry())
    config = SchedulerConfiguration.from_profiles(
        Profile.from_plugins("Gate", registry=registry), registry=registry,
        pod_initial_backoff_seconds=0.005, pod_max_backoff_seconds=0.02)
    pm = make_plugin_manager()
    pm.register(victims)
    return Scheduler(config, registry=registry, threaded=True, workers=4, seed=1, plugin_manager=pm)


# --------------------------------------------------------------------------------------------
# programs

NODE_SLOTS = 4
POD_SLOTS = 16

_add_node_op = st.tuples(st.just("add_node"), st.integers(0, NODE_SLOTS - 1),
                         st.sampled_from(["1", "2", "4"]), st.sampled_from(["1Gi", "4Gi"]),
                         st.integers(2, 8), st.sampled_from("ab"))
_node_op = st.one_of(
    _add_node_op,
    st.tuples(st.just("update_node"), st.integers(0, NODE_SLOTS - 1),
              st.sampled_from(["cordon", "uncordon", "taint", "untaint", "zone", "grow"])),
    st.tuples(st.just("remove_node"), st.integers(0, NODE_SLOTS - 1)),
)
_add_pod_op = st.tuples(st.just("add_pod"), st.integers(0, POD_SLOTS - 1),
                        st.sampled_from(["100m", "500m", "1", "3"]), st.sampled_from(["100Mi", "1Gi"]),
                        st.integers(0, 2), st.sampled_from(["", "", "", "gate", "nap"]),
                        st.sampled_from([None, None, None, 0, 1]), st.sampled_from(["", "a"]), st.booleans())
_pod_op = st.one_of(
    _add_pod_op,
    _add_pod_op,
    _add_pod_op,
    st.tuples(st.just("update_pod"), st.integers(0, POD_SLOTS - 1), st.sampled_from(["x", "y"])),
    st.tuples(st.just("remove_pod"), st.integers(0, POD_SLOTS - 1)),
    st.tuples(st.just("sleep"), st.sampled_from([0.0005, 0.002, 0.01])),
)
_program = st.tuples(
    st.lists(_add_node_op, min_size=1, max_size=3),
    st.lists(st.one_of(_node_op, _pod_op, _pod_op, _pod_op), min_size=10, max_size=50),
).map(lambda parts: parts[0] + parts[1])


class _Actor:
    """One event thread: owns its node and pod names, so its bookkeeping needs no lock."""

    def __init__(self, index: int, s: Scheduler, program: list[tuple[Any, ...]], pause: float) -> None:
        self.i = index
        self.pause = pause
        self.s = s
        self.program = program
        self.nodes: dict[int, Node] = {}
        self.removed_nodes: set[int] = set()
        self.pods: dict[int, str] = {}  # slot -> uid of the live pod added by this actor
        self.generation: dict[int, int] = {}
        self.added: dict[str, Pod] = {}
        self.deleted: set[str] = set()  # deleted by this actor
        self.vanished: set[str] = set()  # gone without this actor deleting them (preempted)
        self.external: set[str] = set()  # added already bound

    def node_name(self, slot: int) -> str:
        return f"t{self.i}-n{slot}"

    def run(self) -> None:
        for op in self.program:
            getattr(self, op[0])(*op[1:])
            _count("ops")
            time.sleep(self.pause)  # let the other threads in

    # -- nodes ------------------------------------------------------------------------------
    def add_node(self, slot: int, cpu: str, memory: str, pods: int, zone: str) -> None:
        if slot in self.nodes or slot in self.removed_nodes:  # names are never reused
            return
        node = (make_node(self.node_name(slot)).capacity(cpu=cpu, memory=memory, pods=pods)
                .label("zone", zone).obj())
        self.nodes[slot] = self.s.add_node(node)

    def update_node(self, slot: int, kind: str) -> None:
        old = self.nodes.get(slot)
        if old is None:
            return
        if kind == "cordon":
            new = old.evolve(unschedulable=True)
        elif kind == "uncordon":
            new = old.evolve(unschedulable=False)
        elif kind == "taint":
            new = old.evolve(taints=(Taint("dedicated", "NoSchedule", "x"),))
        elif kind == "untaint":
            new = old.evolve(taints=())
        elif kind == "zone":
            new = old.evolve(labels={**old.labels, "zone": "b" if old.labels.get("zone") == "a" else "a"})
        else:  # grow: capacity never shrinks, so no overcommit comes from the test itself
            new = old.evolve(capacity={**old.capacity, "cpu": "8", "memory": "8Gi"})
        self.nodes[slot] = self.s.update_node(new)

    def remove_node(self, slot: int) -> None:
        if self.nodes.pop(slot, None) is None:
            return
        self.removed_nodes.add(slot)
        self.s.remove_node(self.node_name(slot))

    # -- pods -------------------------------------------------------------------------------
    def add_pod(self, slot: int, cpu: str, memory: str, priority: int, special: str, bind: int | None,
                zone: str, tolerate: bool) -> None:
        if slot in self.pods:
            return
        gen = self.generation[slot] = self.generation.get(slot, -1) + 1
        b = make_pod(f"t{self.i}-p{slot}-{gen}").req(cpu=cpu, memory=memory).priority(priority)
        if special == "gate":
            b = b.label("gate", str(1 + slot % 5))
        elif special:
            b = b.label(special, "yes")
        if zone:
            b = b.node_selector({"zone": zone})
        if tolerate:
            b = b.toleration("dedicated", "x", "NoSchedule")
        if bind is not None and bind in self.nodes:
            b = b.node(self.node_name(bind))
        pod = self.s.add_pod(b.obj())
        self.pods[slot] = pod.uid
        self.added[pod.uid] = pod
        if pod.node_name:
            self.external.add(pod.uid)

    def _gone(self, slot: int) -> bool:
        uid = self.pods[slot]
        if self.s.get_pod(uid) is None:  # preempted by the scheduler
            self.vanished.add(uid)
            del self.pods[slot]
            return True
        return False

    def update_pod(self, slot: int, label: str) -> None:
        if slot not in self.pods:
            return
        for _ in range(100):
            if self._gone(slot):
                return
            current = self.s.get_pod(self.pods[slot])
            if current is None:
                continue
            try:
                self.s.update_pod(current.evolve(labels={**current.labels, "v": label}))
                return
            except SchedulerError as exc:
                # the pod was bound or deleted between the read and the write: read again
                if "an update cannot unbind it" not in str(exc) and "is unknown" not in str(exc):
                    raise
                _count("conflicts")
        raise AssertionError(f"update of {self.pods[slot]} kept conflicting")

    def remove_pod(self, slot: int) -> None:
        if slot not in self.pods:
            return
        uid = self.pods[slot]
        try:
            self.s.remove_pod(uid)
        except SchedulerError:
            if self.s.get_pod(uid) is not None:
                raise
            self.vanished.add(uid)  # preempted just before
        else:
            self.deleted.add(uid)
        del self.pods[slot]

    def sleep(self, seconds: float) -> None:
        time.sleep(seconds)


# --------------------------------------------------------------------------------------------
# threads


def _thread_stacks() -> str:
    names = {t.ident: t.name for t in threading.enumerate()}
    out = []
    for ident, frame in sys._current_frames().items():
        out.append(f"--- thread {names.get(ident, ident)} ---\n" + "".join(traceback.format_stack(frame)))
    return "\n".join(out)


class _Runner:
    def __init__(self) -> None:
        self.errors: list[str] = []
        self.threads: list[threading.Thread] = []

    def start(self, name: str, target: Callable[[], None]) -> threading.Thread:
        def run() -> None:
            try:
                target()
            except BaseException:
                self.errors.append(f"{name}:\n{traceback.format_exc()}")

        t = threading.Thread(target=run, name=name, daemon=True)
        self.threads.append(t)
        t.start()
        return t

    def join(self, threads: list[threading.Thread], what: str) -> None:
        deadline = time.monotonic() + JOIN_TIMEOUT
        for t in threads:
            t.join(max(0.0, deadline - time.monotonic()))
        stuck = [t.name for t in threads if t.is_alive()]
        if stuck:
            pytest.fail(f"deadlock? {what}: threads {stuck} still running after {JOIN_TIMEOUT:.0f} s\n"
                        f"{_thread_stacks()}", pytrace=False)
        if self.errors:
            pytest.fail("\n".join(self.errors), pytrace=False)


def run_program(programs: list[list[tuple[Any, ...]]], seed: int) -> None:
    """Run one stress example: the actors' programs, a scheduling thread and a permit decider."""
    gate, victims = Gate(), _Victims()
    s = _scheduler(gate, victims)
    pauses = random.Random(seed).choices([0.0, 0.0002, 0.001], k=len(programs))
    actors = [_Actor(i, s, program, pause) for i, (program, pause) in enumerate(zip(programs, pauses))]
    stop = threading.Event()  # the actors are done: the scheduling loop stops
    finished = threading.Event()  # the final run_until_idle is done: the decider stops
    runner = _Runner()

    def schedule() -> None:
        n = 0
        while not stop.is_set():
            n += 1
            if n % 50 == 0:
                s.run_until_idle(max_cycles=10)
            elif not s.schedule_one():
                time.sleep(0.0005)

    def decide() -> None:
        rng = random.Random(seed)
        while not finished.is_set():
            for wp in list(s.waiting_pods):
                for plugin in wp.pending_plugins():
                    r = rng.random()
                    if r < 0.5:
                        wp.allow(plugin)
                        _count("allowed")
                    elif r < 0.65:
                        wp.reject(plugin, "the decider said no")
                        _count("rejected")
            time.sleep(rng.choice([0.0005, 0.002, 0.005]))

    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)  # many more thread switches: more interleavings
    try:
        workers = [runner.start(f"actor-{a.i}", a.run) for a in actors]
        scheduler = runner.start("scheduler", schedule)
        decider = runner.start("decider", decide)
        runner.join(workers, "event handlers")
        stop.set()
        runner.join([scheduler], "scheduling loop")
        summaries: list[RunSummary] = []
        runner.join([runner.start("run_until_idle", lambda: summaries.append(s.run_until_idle()))],
                    "final run_until_idle")
        finished.set()
        runner.join([decider], "permit decider")
    finally:
        sys.setswitchinterval(switch)
        stop.set()
        finished.set()
        closer = threading.Thread(target=s.close, name="close", daemon=True)
        closer.start()
        closer.join(JOIN_TIMEOUT)
        if closer.is_alive():
            pytest.fail(f"deadlock? close() still running after {JOIN_TIMEOUT:.0f} s\n{_thread_stacks()}",
                        pytrace=False)

    live: set[str] = set()
    external: set[str] = set()
    for a in actors:
        live |= set(a.added) - a.deleted - a.vanished - victims.uids
        external |= a.external
        unexplained = a.vanished - victims.uids
        assert not unexplained, f"pods gone without being deleted or preempted: {sorted(unexplained)}"
    problems = check_invariants(s, live, external=external, allow_waiting=False)
    assert not problems, "\n".join(problems)
    # Reserve and Unreserve balance: a pod placed by the scheduler holds one reservation,
    # a pending pod none
    pending = {pp.pod.uid for pp in s.pending()}
    for uid in live - external:
        held = gate.reserved.get(uid, 0)
        want = 0 if uid in pending else 1
        assert held == want, f"pod {uid}: {held} reservations held, want {want}"
    _count("examples")
    _count("cycles", s._counts["cycles"])
    _count("bound", victims.bound)
    _count("preempted", len(victims.uids))
    _count("pending_at_end", len(pending))


# --------------------------------------------------------------------------------------------
# regressions found by the stress test


def test_update_from_a_copy_read_before_binding_is_refused() -> None:
    """An update_pod made from a copy read before the pod was bound (it has no node_name) is
    refused with SchedulerError and changes nothing; it used to replace the bound pod with the
    unbound copy and then fail in the cache, leaving the pod neither bound nor pending."""
    s = Scheduler()
    s.add_node(make_node("n1").capacity(cpu="2", memory="2Gi", pods=10).obj())
    stale = s.add_pod(make_pod("p").req(cpu="1").obj())
    s.run_until_idle()
    assert s.node_of(stale) == "n1"
    with pytest.raises(SchedulerError, match=r"pod 'default/p' was bound to node 'n1'; an update "
                                             r"cannot unbind it"):
        s.update_pod(stale.evolve(labels={"v": "x"}))
    assert s.node_of(stale) == "n1"
    assert check_invariants(s, {stale.uid}) == []


def stress_test(examples: int) -> Callable[[], None]:
    """The Hypothesis test running *examples* examples."""

    @settings(max_examples=examples, deadline=None, database=None, suppress_health_check=list(HealthCheck))
    @given(programs=st.lists(_program, min_size=3, max_size=4), seed=st.integers(0, 2**16))
    def test(programs: list[list[tuple[Any, ...]]], seed: int) -> None:
        run_program(programs, seed)

    return test


def test_threaded_event_handlers_under_stress() -> None:
    """3-4 threads calling the event handlers, a scheduling thread and a permit decider: no
    deadlock, and afterwards every invariant holds."""
    stress_test(EXAMPLES)()


def main(argv: list[str] | None = None) -> int:
    """Run the stress test longer and print the counters."""
    p = argparse.ArgumentParser(description=__doc__)
    p.add_argument("--examples", type=int, default=200)
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    stress_test(args.examples)()
    print({**STATS, "seconds": round(time.perf_counter() - t0, 1)})
    return 0


if __name__ == "__main__":
    sys.exit(main())
