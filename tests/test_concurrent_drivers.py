"""Several threads driving one Scheduler: ``run_until_idle()`` and ``schedule_one()`` called
concurrently, while other threads add, update and delete pods and nodes (a Hypothesis rule-based
state machine whose rules start bursts of threads). The scheduling cycles are serialised by the
scheduler's lock, so however the threads interleave no node is overcommitted, no pod is lost,
the cache equals one rebuilt from the surviving objects and the snapshot equals the cache.

Before the lock, two threads in ``run_until_idle`` placed pods on the same free room and
overcommitted nodes within a few examples.
"""

from __future__ import annotations

import contextlib
import sys
import threading
import time
from collections.abc import Callable

import pytest
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from schedframe import FakeClock, SchedulerError
from schedframe.bench._soak import check_invariants
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import make_node, make_pod

T0 = 1_700_000_000.0
#: a thread still running after this many seconds is deadlocked
JOIN_TIMEOUT = 30.0

_programs = st.lists(st.sampled_from(["run", "one", "one", "add", "add", "delete", "relabel",
                                      "node", "step"]), min_size=1, max_size=8)


class ConcurrentDrivers(RuleBasedStateMachine):
    """Bursts of 2-4 threads, each running a small program against one deterministic Scheduler."""

    threaded = False

    def __init__(self) -> None:
        super().__init__()
        self.clock = FakeClock(T0)
        self.s = Scheduler(clock=self.clock, seed=3, threaded=self.threaded, workers=3)
        self.live: set[str] = set()
        self.lock = threading.Lock()  # guards the test's own bookkeeping
        self.serial = 0
        self.nodes = 0
        self.errors: list[str] = []

    # -- helpers ----------------------------------------------------------------------------
    def _name(self, prefix: str) -> str:
        with self.lock:
            self.serial += 1
            return f"{prefix}-{self.serial}"

    def _add_pod(self, cpu: str) -> None:
        pod = make_pod(self._name("p")).req(cpu=cpu, memory="64Mi").obj()
        self.s.add_pod(pod)
        with self.lock:  # only now may another thread pick it for deletion
            self.live.add(pod.uid)

    def _delete_some_pod(self) -> None:
        with self.lock:
            if not self.live:
                return
            uid = sorted(self.live)[self.serial % len(self.live)]
            self.live.discard(uid)
        self.s.remove_pod(uid)

    def _relabel_some_pod(self) -> None:
        with self.lock:
            if not self.live:
                return
            uid = sorted(self.live)[0]
        pod = self.s.get_pod(uid)
        if pod is None:
            return
        # bound meanwhile (an update made from the unbound copy): refused, as documented
        with contextlib.suppress(SchedulerError):
            self.s.update_pod(pod.evolve(labels={**pod.labels, "v": str(self.serial)}))

    def _add_node(self) -> None:
        with self.lock:
            self.nodes += 1
            name = f"n{self.nodes}"
        self.s.add_node(make_node(name).capacity(cpu="2", memory="4Gi", pods=8)
                        .label("topology.kubernetes.io/zone", f"z{self.nodes % 2}").obj())

    def _run(self, program: list[str], sizes: list[str]) -> Callable[[], None]:
        def body() -> None:
            try:
                for i, op in enumerate(program):
                    if op == "run":
                        self.s.run_until_idle(max_cycles=60)
                    elif op == "one":
                        self.s.schedule_one()
                    elif op == "add":
                        self._add_pod(sizes[i % len(sizes)])
                    elif op == "delete":
                        self._delete_some_pod()
                    elif op == "relabel":
                        self._relabel_some_pod()
                    elif op == "node":
                        self._add_node()
                    elif op == "step":
                        self.clock.step(1.5)
            except BaseException as exc:  # pragma: no cover - reported below
                self.errors.append(f"{threading.current_thread().name}: {type(exc).__name__}: {exc}")
        return body

    # -- rules ------------------------------------------------------------------------------
    @rule()
    def add_node(self) -> None:
        self._add_node()

    @rule(programs=st.lists(_programs, min_size=2, max_size=4),
          sizes=st.lists(st.sampled_from(["300m", "700m", "1", "1500m"]), min_size=1, max_size=4))
    def burst(self, programs: list[list[str]], sizes: list[str]) -> None:
        """Threads run their programs at once; every one of them drives the scheduler."""
        threads = [threading.Thread(target=self._run(["run", *p], sizes), name=f"driver-{i}")
                   for i, p in enumerate(programs)]
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-5)
        try:
            for t in threads:
                t.start()
            deadline = time.monotonic() + JOIN_TIMEOUT
            for t in threads:
                t.join(max(0.0, deadline - time.monotonic()))
        finally:
            sys.setswitchinterval(old)
        stuck = [t.name for t in threads if t.is_alive()]
        assert not stuck, f"threads deadlocked: {stuck}"
        assert not self.errors, self.errors
        if self.threaded:
            # a schedule_one() may have left a binding cycle running in a worker thread: wait
            # for it (no cycle is started) before the invariants are checked
            self.s.run_until_idle(max_cycles=0)

    @rule()
    def settle(self) -> None:
        self.s.run_until_idle()

    def teardown(self) -> None:
        self.s.close()

    # -- invariants -------------------------------------------------------------------------
    @invariant()
    def nothing_overcommitted_or_lost(self) -> None:
        problems = check_invariants(self.s, self.live)
        assert not problems, problems


ConcurrentDrivers.TestCase.settings = settings(
    max_examples=30, stateful_step_count=8, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestConcurrentDrivers = ConcurrentDrivers.TestCase


class ConcurrentDriversThreaded(ConcurrentDrivers):
    """The same, in threaded mode: binding cycles in worker threads as well."""

    threaded = True


ConcurrentDriversThreaded.TestCase.settings = settings(
    max_examples=20, stateful_step_count=8, deadline=None,
    suppress_health_check=[HealthCheck.too_slow])
TestConcurrentDriversThreaded = ConcurrentDriversThreaded.TestCase


def test_two_threads_never_share_the_last_room() -> None:
    """Two threads running run_until_idle on one node with room for one of two pods: exactly
    one pod is bound, the other pending (never both)."""
    for _ in range(20):
        s = Scheduler(clock=FakeClock(T0))
        s.add_node(make_node("n1").capacity(cpu="1", memory="4Gi", pods=110).obj())
        for i in range(6):
            s.add_pod(make_pod(f"p{i}").req(cpu="600m", memory="1Mi").obj())
        barrier = threading.Barrier(3)

        def drive(sched: Scheduler = s, b: threading.Barrier = barrier) -> None:
            b.wait()
            sched.run_until_idle()

        threads = [threading.Thread(target=drive) for _ in range(3)]
        old = sys.getswitchinterval()
        sys.setswitchinterval(1e-6)
        try:
            for t in threads:
                t.start()
            for t in threads:
                t.join(JOIN_TIMEOUT)
        finally:
            sys.setswitchinterval(old)
        assert not any(t.is_alive() for t in threads)
        assert len(s.bindings()) == 1
        assert len(s.pending()) == 5
        assert check_invariants(s, {p.uid for p in s.pods()}) == []


if __name__ == "__main__":  # pragma: no cover
    pytest.main([__file__, "-q"])
