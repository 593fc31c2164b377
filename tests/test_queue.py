"""Tests for SchedulingQueue and PodNominator (ported behaviours of upstream
scheduling_queue_test.go / backoff_queue_test.go / nominator)."""

from __future__ import annotations

import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import (
    ActionType,
    ClusterEvent,
    ClusterEventWithHint,
    ConfigurationError,
    EventResource,
    FakeClock,
    NominatingInfo,
    PodInfo,
    QueuedPodInfo,
    QueueingHint,
    Status,
)
from schedframe.api.objects import Pod
from schedframe.errors import ArgumentTypeError
from schedframe.queue.nominator import PodNominator
from schedframe.queue.scheduling_queue import (
    EVENT_ASSIGNED_POD_ADD,
    EVENT_ASSIGNED_POD_DELETE,
    EVENT_FORCE_ACTIVATE,
    EVENT_NODE_ADD,
    EVENT_UNSCHEDULABLE_TIMEOUT,
    SchedulingQueue,
    cluster_event,
    node_scheduling_properties_change,
    pod_scheduling_properties_change,
)
from schedframe.testing import make_node, make_pod

FIT = "NodeResourcesFit"
GATES = "SchedulingGates"
OTHER = "Other"


def priority_less(a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
    pa, pb = a.pod.effective_priority, b.pod.effective_priority
    return pa > pb or (pa == pb and a.timestamp < b.timestamp)


def gates_pre_enqueue(pod: Pod) -> Status | None:
    if pod.scheduling_gates:
        return Status.unresolvable(f"waiting for scheduling gates: {list(pod.scheduling_gates)}")
    return None


class FakeProfile:
    """A minimal framework for the queue: hints and PreEnqueue plugins given as data."""

    def __init__(self, hints: Mapping[str, Sequence[ClusterEventWithHint]] | None = None,
                 pre_enqueue: Mapping[str, Callable[[Pod], Status | None]] | None = None) -> None:
        self.hints = dict(hints or {})
        self.pre_enqueue = dict(pre_enqueue or {})
        self.pre_enqueue_calls = 0

    def queue_sort_less(self) -> Callable[[QueuedPodInfo, QueuedPodInfo], bool]:
        return priority_less

    def enqueue_extensions(self) -> dict[str, Sequence[ClusterEventWithHint]]:
        return self.hints

    def pre_enqueue_plugin_names(self) -> list[str]:
        return list(self.pre_enqueue)

    def run_pre_enqueue_plugins(self, pod: Pod) -> Status:
        self.pre_enqueue_calls += 1
        for name, fn in self.pre_enqueue.items():
            status = fn(pod)
            if status is not None and not status.is_success():
                return status.with_plugin(name)
        return Status.OK


def big_node_hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
    return QueueingHint.QUEUE if new is not None and new.name.startswith("big") else QueueingHint.QUEUE_SKIP


def raising_hint(pod: Pod, old: Any, new: Any) -> QueueingHint:
    raise RuntimeError("hint exploded")


def default_profile(**kw: Any) -> FakeProfile:
    hints = {
        FIT: [ClusterEventWithHint(EVENT_NODE_ADD, big_node_hint),
              ClusterEventWithHint(cluster_event(EventResource.POD, ActionType.DELETE))],
        GATES: [ClusterEventWithHint(cluster_event(EventResource.POD,
                                                   ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED))],
    }
    return FakeProfile(hints=kw.pop("hints", hints),
                       pre_enqueue=kw.pop("pre_enqueue", {GATES: gates_pre_enqueue}))


def new_queue(clock: FakeClock | None = None, profile: FakeProfile | None = None,
              **kw: Any) -> SchedulingQueue:
    return SchedulingQueue({"default-scheduler": profile or default_profile()},
                           clock=clock or FakeClock(1000.0), **kw)


def fail(q: SchedulingQueue, pinfo: QueuedPodInfo, *plugins: str, pending: Sequence[str] = ()) -> None:
    """Simulate a failed attempt rejected by *plugins* (none: an error)."""
    pinfo.unschedulable_plugins = set(plugins)
    pinfo.pending_plugins = set(pending)
    q.add_unschedulable_if_not_present(pinfo)


def pop_names(q: SchedulingQueue) -> list[str]:
    out = []
    while (p := q.pop()) is not None:
        out.append(p.pod.name)
        q.done(p.pod.uid)
    return out


# --------------------------------------------------------------------------------------------
# ordering


@pytest.mark.parametrize(
    ("pods", "want"),
    [
        pytest.param([("a", 0), ("b", 10), ("c", 5)], ["b", "c", "a"], id="higher priority first"),
        pytest.param([("a", 1), ("b", 1), ("c", 1)], ["a", "b", "c"], id="equal priority is FIFO"),
        pytest.param([("a", -5), ("b", 0), ("c", -5), ("d", 0)], ["b", "d", "a", "c"],
                     id="mixed priorities stable within a priority"),
    ],
)
def test_pop_order(pods: list[tuple[str, int]], want: list[str]) -> None:
    """activeQ pops by QueueSort, ties in insertion order even with equal timestamps."""
    q = new_queue()
    for name, prio in pods:
        q.add(make_pod(name).priority(prio).obj())
    assert pop_names(q) == want


def test_pop_empty_returns_none() -> None:
    """pop() never blocks: an empty queue gives None."""
    assert new_queue().pop() is None


def test_pop_bookkeeping() -> None:
    """pop() counts attempts, marks the pod in flight and clears the last rejectors."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    q.add(make_pod("p").obj())
    p = q.pop()
    assert p is not None
    assert (p.attempts, p.initial_attempt_timestamp, q.scheduling_cycle) == (1, 1000.0, 1)
    assert q.where(p.pod) == "InFlight"
    assert [x.name for x in q.in_flight_pods()] == ["p"]
    fail(q, p, FIT)
    q.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    clock.step(5)
    p2 = q.pop()
    assert p2 is p
    assert (p2.attempts, p2.unschedulable_plugins, p2.initial_attempt_timestamp) == (2, set(), 1000.0)


def test_update_reorders_active_q() -> None:
    """Updating a pod in activeQ re-sorts it (priority raised)."""
    q = new_queue()
    a, b = make_pod("a").obj(), make_pod("b").obj()
    q.add(a)
    q.add(b)
    q.update(b, b.evolve(priority=100))
    assert pop_names(q) == ["b", "a"]
    assert len(q) == 0


def test_add_twice_never_duplicates() -> None:
    """Adding a known pod updates it instead of duplicating it."""
    q = new_queue()
    p = make_pod("p").obj()
    q.add(p)
    q.add(p.evolve(labels={"x": "y"}))
    assert [x.labels for x in q.pending_pods()] == [{"x": "y"}]
    assert pop_names(q) == ["p"]


def test_add_unschedulable_if_present_is_refused() -> None:
    """add_unschedulable_if_not_present refuses a pod already queued (and still ends its flight)."""
    q = new_queue()
    p = make_pod("p").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    q.add(p)  # re-added by an event while in flight -> recorded, not queued
    assert q.where(p) == "InFlight"
    fail(q, pinfo, FIT)
    assert q.where(p) == "Unschedulable"
    pinfo2 = QueuedPodInfo(PodInfo.of(p))
    assert q.add_unschedulable_if_not_present(pinfo2) is False
    assert len(q) == 1


# --------------------------------------------------------------------------------------------
# backoff


@pytest.mark.parametrize(
    ("unschedulable", "errors", "initial", "maximum", "want"),
    [
        pytest.param(0, 0, 1.0, 10.0, 0.0, id="never failed: no backoff"),
        pytest.param(1, 0, 1.0, 10.0, 1.0, id="first failure: initial"),
        pytest.param(2, 0, 1.0, 10.0, 2.0, id="doubles"),
        pytest.param(4, 0, 1.0, 10.0, 8.0, id="doubles again"),
        pytest.param(5, 0, 1.0, 10.0, 10.0, id="capped at max"),
        pytest.param(64, 0, 1.0, 10.0, 10.0, id="many failures stay capped"),
        pytest.param(9, 2, 1.0, 10.0, 2.0, id="errors take over the exponent"),
        pytest.param(3, 0, 1.0, 0.0, 0.0, id="max 0 disables backoff"),
        pytest.param(3, 0, 0.5, 1.5, 1.5, id="custom durations"),
    ],
)
def test_backoff_duration(unschedulable: int, errors: int, initial: float, maximum: float,
                          want: float) -> None:
    """Backoff is initial * 2**(n-1) capped at max, n counting unschedulable or error attempts."""
    q = new_queue(pod_initial_backoff=initial, pod_max_backoff=maximum)
    pinfo = QueuedPodInfo(PodInfo.of(make_pod().obj()), unschedulable_count=unschedulable,
                          consecutive_errors=errors)
    assert q.backoff_duration(pinfo) == want


def test_negative_backoff_is_refused() -> None:
    """Negative backoff durations are a configuration error."""
    with pytest.raises(ValueError, match="backoff durations must be >= 0"):
        new_queue(pod_initial_backoff=-1)


def test_queue_needs_a_profile() -> None:
    """A queue without profiles and without less cannot order pods."""
    with pytest.raises(ValueError, match="at least one profile"):
        SchedulingQueue({})


@pytest.mark.parametrize("pop_from_backoff",
                         [pytest.param(False, id="plain"), pytest.param(True, id="windows")])
def test_backoff_flow(pop_from_backoff: bool) -> None:
    """Each failure doubles the backoff up to 10 s; the pod leaves backoffQ only once it expires
    (upstream TestBackOffFlow)."""
    clock = FakeClock(1000.0)
    q = new_queue(clock, pop_from_backoff_q=pop_from_backoff)
    pod = make_pod("p").obj()
    q.add(pod)
    window = 1.0 if pop_from_backoff else 0.0
    for i, want in enumerate([1, 2, 4, 8, 10, 10, 10]):
        clock.set(float(int(clock.now()) + 1))  # whole seconds keep the window arithmetic exact
        start = clock.now()
        pinfo = q.pop()
        assert pinfo is not None
        assert pinfo.attempts == i + 1
        fail(q, pinfo, FIT)
        assert q.where(pod) == "Unschedulable"
        # an event moves it: still backing off -> backoffQ
        q.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
        assert q.where(pod) == "Backoff"
        assert q.backoff_expiration(pinfo) == start + want
        clock.step(want - 0.001 + window)
        q.flush_backoff_q_completed()
        assert q.where(pod) == "Backoff"
        clock.step(0.002)
        q.flush_backoff_q_completed()
        assert q.where(pod) == "Active"


def test_pop_from_backoff_q_when_active_empty() -> None:
    """With pop_from_backoff_q an idle scheduler takes backing-off pods early; error pods wait."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    a, e = make_pod("a").obj(), make_pod("e").obj()
    q.add(a)
    q.add(e)
    pa, pe = q.pop(), q.pop()
    assert pa is not None
    assert pe is not None
    fail(q, pa, FIT)
    fail(q, pe)  # error
    q.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    assert (q.where(a), q.where(e)) == ("Backoff", "Backoff")
    got = q.pop()
    assert got is pa
    q.done(a.uid)
    assert q.pop() is None  # the error backoff is never popped early
    assert q.next_backoff_completion(errors=True) == 1002.0
    clock.set(1002.0)
    assert q.pop() is pe


def test_plain_backoff_not_popped_early() -> None:
    """Without pop_from_backoff_q a backing-off pod waits for its expiry."""
    clock = FakeClock(1000.0)
    q = new_queue(clock, pop_from_backoff_q=False)
    p = make_pod("p").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    fail(q, pinfo, FIT)
    q.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    assert q.pop() is None
    nxt = q.next_backoff_completion()
    assert nxt is not None
    assert 1001.0 < nxt < 1001.001
    clock.set(nxt)
    assert q.pop() is pinfo


def test_error_failure_goes_to_error_backoff() -> None:
    """A failure without rejecting plugins is an error: straight to the error backoffQ."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    p = make_pod("p").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    fail(q, pinfo)
    assert (q.where(p), pinfo.consecutive_errors, pinfo.unschedulable_count) == ("Backoff", 1, 0)
    assert [x.pod.name for x in q.error_backoff_pods()] == ["p"]
    clock.step(2)
    pinfo = q.pop()
    assert pinfo is not None
    fail(q, pinfo, FIT)
    assert (q.where(p), pinfo.consecutive_errors, pinfo.unschedulable_count) == ("Unschedulable", 0, 1)


def test_newer_pod_not_blocked_by_failing_pod() -> None:
    """A pod failing repeatedly does not block a newer pod of the same priority (upstream
    TestPodFailedSchedulingMultipleTimesDoesNotBlockNewerPod)."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    old = make_pod("old").obj()
    q.add(old)
    pinfo = q.pop()
    assert pinfo is not None
    fail(q, pinfo, FIT)
    clock.step(1)
    q.add(make_pod("new").obj())
    q.move_all_to_active_or_backoff_queue(EVENT_UNSCHEDULABLE_TIMEOUT)
    got = q.pop()
    assert got is not None
    assert got.pod.name == "new"


# --------------------------------------------------------------------------------------------
# moves on events


def failed_queue(clock: FakeClock, *plugins: str, profile: FakeProfile | None = None,
                 pending: Sequence[str] = ()) -> tuple[SchedulingQueue, Pod]:
    q = new_queue(clock, profile)
    p = make_pod("p").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    fail(q, pinfo, *plugins, pending=pending)
    return q, p


@pytest.mark.parametrize(
    ("plugins", "event", "new", "step", "want"),
    [
        pytest.param([FIT], EVENT_NODE_ADD, make_node("small").obj(), 0, "Unschedulable",
                     id="hint says skip"),
        pytest.param([FIT], EVENT_NODE_ADD, make_node("big").obj(), 0, "Backoff",
                     id="hint says queue, still backing off"),
        pytest.param([FIT], EVENT_NODE_ADD, make_node("big").obj(), 5, "Active",
                     id="hint says queue, backoff over"),
        pytest.param([OTHER], EVENT_NODE_ADD, make_node("big").obj(), 5, "Unschedulable",
                     id="rejector registered nothing"),
        pytest.param([FIT], EVENT_ASSIGNED_POD_DELETE, make_pod("x").obj(), 5, "Active",
                     id="no hint function means queue"),
        pytest.param([FIT], EVENT_ASSIGNED_POD_ADD, make_pod("x").obj(), 5, "Unschedulable",
                     id="event of no interest"),
        pytest.param([FIT, OTHER], EVENT_NODE_ADD, make_node("big").obj(), 5, "Active",
                     id="one rejector is enough"),
        pytest.param([FIT], EVENT_UNSCHEDULABLE_TIMEOUT, None, 5, "Active", id="wildcard moves all"),
        pytest.param([FIT], EVENT_FORCE_ACTIVATE, make_pod("someone-else").obj(), 5, "Unschedulable",
                     id="wildcard for another pod"),
    ],
)
def test_move_on_event(plugins: list[str], event: ClusterEvent, new: Any, step: float, want: str) -> None:
    """Events move a pod only through its rejecting plugins' registrations and hints."""
    clock = FakeClock(1000.0)
    q, p = failed_queue(clock, *plugins)
    clock.step(step)
    q.move_all_to_active_or_backoff_queue(event, None, new)
    assert q.where(p) == want


def test_raising_hint_means_queue() -> None:
    """A hint that raises counts as QUEUE, so the pod is not stuck."""
    clock = FakeClock(1000.0)
    profile = FakeProfile(hints={FIT: [ClusterEventWithHint(EVENT_NODE_ADD, raising_hint)]})
    q, p = failed_queue(clock, FIT, profile=profile)
    clock.step(5)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("n").obj())
    assert q.where(p) == "Active"


def test_pending_plugin_queues_immediately() -> None:
    """QUEUE from a plugin that returned PENDING skips the backoff."""
    clock = FakeClock(1000.0)
    q, p = failed_queue(clock, pending=[FIT])
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("big").obj())
    assert q.where(p) == "Active"


def test_pre_check_filters_pods() -> None:
    """move_all's pre_check limits the pods considered (e.g. lower priority only)."""
    clock = FakeClock(1000.0)
    q, p = failed_queue(clock, FIT)
    clock.step(5)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("big").obj(),
                                          pre_check=lambda pod: pod.name != "p")
    assert q.where(p) == "Unschedulable"
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("big").obj(),
                                          pre_check=lambda pod: pod.name == "p")
    assert q.where(p) == "Active"


def test_moves_keep_unschedulable_order() -> None:
    """Pods moved together enter activeQ in the order they became unschedulable."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    for name in ["c", "a", "b"]:
        q.add(make_pod(name).obj())
    for _ in range(3):
        pinfo = q.pop()
        assert pinfo is not None
        fail(q, pinfo, FIT)
    clock.step(5)
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("big").obj())
    assert [p.name for p in q.pods_in_active_q()] == ["c", "a", "b"]


def test_flush_unschedulable_leftover() -> None:
    """A pod unschedulable for more than 5 minutes is retried anyway."""
    clock = FakeClock(1000.0)
    q, p = failed_queue(clock, FIT)
    assert q.next_unschedulable_timeout() == pytest.approx(1300.0)
    clock.set(1300.0)
    assert q.pop() is None
    assert q.where(p) == "Unschedulable"
    clock.step(0.5)
    got = q.pop()
    assert got is not None
    assert got.pod.name == "p"
    assert q.next_unschedulable_timeout() is None


def test_flush_leftover_custom_duration() -> None:
    """pod_max_in_unschedulable_pods_duration is configurable."""
    clock = FakeClock(1000.0)
    q = new_queue(clock, pod_max_in_unschedulable_pods_duration=30.0)
    q.add(make_pod("p").obj())
    pinfo = q.pop()
    assert pinfo is not None
    fail(q, pinfo, FIT)
    clock.step(31)
    q.flush_unschedulable_pods_leftover()
    assert q.where(pinfo.pod) == "Active"


# --------------------------------------------------------------------------------------------
# in-flight events


@pytest.mark.parametrize(
    ("event_node", "want"),
    [
        pytest.param(None, "Unschedulable", id="no event while in flight"),
        pytest.param("small", "Unschedulable", id="event the hint skips"),
        pytest.param("big", "Backoff", id="event the hint queues"),
    ],
)
def test_in_flight_events_replayed(event_node: str | None, want: str) -> None:
    """Events seen while the pod was being scheduled decide where it goes back."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    p = make_pod("p").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    if event_node is not None:
        q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node(event_node).obj())
        assert len(q.in_flight_events()) == 1
    fail(q, pinfo, FIT)
    assert q.where(p) == want
    assert q.in_flight_events() == []


def test_events_before_pop_are_not_replayed() -> None:
    """Only events after the pod was popped count."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    a, b = make_pod("a").obj(), make_pod("b").obj()
    q.add(a)
    q.add(b)
    pa = q.pop()
    assert pa is not None
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("big").obj())
    pb = q.pop()
    assert pb is not None
    fail(q, pb, FIT)
    fail(q, pa, FIT)
    assert (q.where(a), q.where(b)) == ("Backoff", "Unschedulable")
    assert q.in_flight_events() == []


def test_events_pruned_when_oldest_done() -> None:
    """Events older than every in-flight pod are dropped."""
    q = new_queue()
    for n in "ab":
        q.add(make_pod(n).obj())
    pa = q.pop()
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("n1").obj())
    pb = q.pop()
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("n2").obj())
    assert pa is not None
    assert pb is not None
    q.done(pa.pod.uid)
    assert [e[2].name for e in q.in_flight_events()] == ["n2"]
    q.done(pb.pod.uid)
    assert q.in_flight_events() == []


def test_update_of_in_flight_pod_is_recorded() -> None:
    """An update of a pod being scheduled is an in-flight event, not a queue entry."""
    q = new_queue()
    p = make_pod("p").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    q.update(p, p.evolve(labels={"a": "b"}))
    assert len(q) == 0
    [(event, old, new)] = q.in_flight_events()
    assert (event.label, old, new.labels) == ("UnschedulablePodUpdatePodLabel", p, {"a": "b"})


# --------------------------------------------------------------------------------------------
# gating (PreEnqueue)


def test_gated_pod_waits_and_is_released_by_update() -> None:
    """A pod gated by PreEnqueue waits aside; removing its last gate enqueues it."""
    q = new_queue()
    p = make_pod("p").scheduling_gates("example.com/g1", "example.com/g2").obj()
    q.add(p)
    pinfo = q.get(p)
    assert pinfo is not None
    assert (q.where(p), pinfo.gated, pinfo.gating_plugin) == ("Unschedulable", True, GATES)
    assert q.pop() is None
    p1 = p.evolve(scheduling_gates=("example.com/g2",))
    q.update(p, p1)
    assert q.where(p) == "Unschedulable"
    p2 = p1.evolve(scheduling_gates=())
    q.update(p1, p2)
    assert q.where(p) == "Active"
    got = q.pop()
    assert got is not None
    assert (got.gated, got.gating_plugin, got.pod.scheduling_gates) == (False, "", ())


def test_gated_pod_not_moved_by_unrelated_events() -> None:
    """Gated pods ignore events their gating plugin did not register, and timeouts."""
    clock = FakeClock(1000.0)
    profile = default_profile()
    profile.hints[GATES] = [ClusterEventWithHint(EVENT_NODE_ADD)]
    q = new_queue(clock, profile)
    p = make_pod("p").scheduling_gates("g").obj()
    q.add(p)
    clock.step(1000)
    q.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, make_pod("x").obj(), None)
    assert q.pop() is None
    q.flush_unschedulable_pods_leftover()
    assert q.where(p) == "Unschedulable"
    calls = profile.pre_enqueue_calls
    q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("n").obj())
    assert profile.pre_enqueue_calls == calls + 1  # re-ran PreEnqueue, still gated
    assert q.where(p) == "Unschedulable"


def test_activate_gated_pod_reruns_pre_enqueue() -> None:
    """Activating a gated pod re-runs PreEnqueue; it stays aside while gated."""
    q = new_queue()
    p = make_pod("p").scheduling_gates("g").obj()
    q.add(p)
    q.activate([p])
    assert q.where(p) == "Unschedulable"


def test_pre_enqueue_skipped_for_other_profiles() -> None:
    """Pods of an unknown profile are not gated and use the default strategy."""
    q = new_queue()
    p = make_pod("p").scheduler_name("other").scheduling_gates("g").obj()
    q.add(p)
    assert q.where(p) == "Active"


# --------------------------------------------------------------------------------------------
# activate / update / delete


def test_activate() -> None:
    """activate() moves pods from the unschedulable pool and backoffQ; unknown pods are ignored."""
    clock = FakeClock(1000.0)
    q = new_queue(clock, pop_from_backoff_q=False)
    a, b = make_pod("a").obj(), make_pod("b").obj()
    q.add(a)
    q.add(b)
    pa, pb = q.pop(), q.pop()
    assert pa is not None
    assert pb is not None
    fail(q, pa, FIT)
    fail(q, pb)  # error -> backoff
    assert (q.where(a), q.where(b)) == ("Unschedulable", "Backoff")
    q.activate([a, b, make_pod("ghost").obj()])
    assert (q.where(a), q.where(b)) == ("Active", "Active")
    assert len(q) == 2


def test_activate_in_flight_pod() -> None:
    """Activating a pod in flight makes it come back to the queues instead of waiting."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    p = make_pod("p").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    q.activate([p])
    fail(q, pinfo, FIT)
    assert q.where(p) == "Backoff"


@pytest.mark.parametrize("where", ["Active", "Backoff", "Unschedulable"])
def test_delete(where: str) -> None:
    """delete() removes the pod from whichever sub-queue holds it."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    p = make_pod("p").nominated_node_name("n1").obj()
    q.add(p)
    assert [x.pod.name for x in q.nominated_pods_for_node("n1")] == ["p"]
    if where != "Active":
        pinfo = q.pop()
        assert pinfo is not None
        fail(q, pinfo, *([] if where == "Backoff" else [FIT]))
    assert q.where(p) == where
    assert q.delete(p) is True
    assert q.where(p) is None
    assert len(q) == 0
    assert q.nominated_pods_for_node("n1") == []
    assert q.delete(p) is False


def test_update_unknown_pod_adds_it() -> None:
    """An update of a pod the queue does not know adds it to activeQ."""
    q = new_queue()
    p = make_pod("p").obj()
    q.update(p, p.evolve(labels={"a": "b"}))
    assert q.where(p) == "Active"
    q.update(None, p)
    assert len(q) == 1


@pytest.mark.parametrize(
    ("change", "want"),
    [
        pytest.param({"labels": {"x": "y"}}, "Unschedulable", id="label change, no hint registered"),
        pytest.param({"tolerations": ()}, "Unschedulable", id="no relevant change"),
    ],
)
def test_update_unschedulable_pod_through_hints(change: dict[str, Any], want: str) -> None:
    """Updates of unschedulable pods go through the queueing hints."""
    clock = FakeClock(1000.0)
    q, p = failed_queue(clock, FIT)
    clock.step(5)
    q.update(p, p.evolve(**change))
    assert q.where(p) == want
    assert q.get(p) is not None


def test_update_unschedulable_pod_hint_queues() -> None:
    """A registered pod-update hint moves the updated pod."""
    clock = FakeClock(1000.0)
    profile = FakeProfile(hints={FIT: [ClusterEventWithHint(
        cluster_event(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN))]})
    q = new_queue(clock, profile)
    p = make_pod("p").req(cpu="2").obj()
    q.add(p)
    pinfo = q.pop()
    assert pinfo is not None
    fail(q, pinfo, FIT)
    clock.step(5)
    smaller = attrs.evolve(p, containers=make_pod("p").req(cpu="1").obj().containers)
    q.update(p, smaller)
    assert q.where(p) == "Active"
    got = q.pop()
    assert got is not None
    assert got.pod.requests.milli_cpu == 1000


def test_pending_pods_and_summary() -> None:
    """pending_pods() lists every sub-queue; summary() counts them like upstream."""
    clock = FakeClock(1000.0)
    q = new_queue(clock, pop_from_backoff_q=False)
    for n in "abc":
        q.add(make_pod(n).obj())
    pa, pb = q.pop(), q.pop()
    assert pa is not None
    assert pb is not None
    fail(q, pa, FIT)
    fail(q, pb)
    assert sorted(p.name for p in q.pending_pods()) == ["a", "b", "c"]
    assert [p.name for p in q.pods_in_backoff_q()] == ["b"]
    assert [p.name for p in q.unschedulable_pods()] == ["a"]
    assert q.summary() == "activeQ:1; backoffQ:1; unschedulablePods:1"
    assert "activeQ:1" in repr(q)
    assert {p.pod.name for p in q.pending_pod_infos()} == {"a", "b", "c"}


# --------------------------------------------------------------------------------------------
# events helpers


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(make_pod("p").obj(), make_pod("p").label("a", "b").obj(),
                     ["UnschedulablePodUpdatePodLabel"], id="label"),
        pytest.param(make_pod("p").req(cpu="2").obj(), make_pod("p").req(cpu="1").obj(),
                     ["UnschedulablePodUpdatePodScaleDown"], id="scale down"),
        pytest.param(make_pod("p").scheduling_gates("g").obj(), make_pod("p").obj(),
                     ["UnschedulablePodUpdatePodSchedulingGatesEliminated"], id="gates eliminated"),
        pytest.param(make_pod("p").obj(), make_pod("p").toleration("k").obj(),
                     ["UnschedulablePodUpdatePodToleration"], id="toleration"),
        pytest.param(make_pod("p").obj(), make_pod("p").annotation("a", "b").obj(),
                     ["UnschedulablePodUpdate"], id="generic update"),
        pytest.param(make_pod("p").node("n").obj(), make_pod("p").node("n").label("a", "b").obj(),
                     ["AssignedPodUpdatePodLabel"], id="assigned pod"),
    ],
)
def test_pod_scheduling_properties_change(old: Pod, new: Pod, want: list[str]) -> None:
    """Pod updates map to upstream's UpdatePodXYZ events."""
    assert [e.label for e in pod_scheduling_properties_change(new, old)] == want


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(make_node("n").obj(), make_node("n").obj(), [], id="no change"),
        pytest.param(make_node("n").obj(), make_node("n").label("a", "b").obj(),
                     ["NodeUpdateNodeLabel"], id="label"),
        pytest.param(make_node("n").capacity(cpu="1").obj(), make_node("n").capacity(cpu="2").obj(),
                     ["NodeUpdateNodeAllocatable"], id="allocatable"),
        pytest.param(make_node("n").obj(), make_node("n").taint("k").obj(), ["NodeUpdateNodeTaint"],
                     id="taint"),
        pytest.param(make_node("n").unschedulable().obj(), make_node("n").obj(), ["NodeUpdateNodeTaint"],
                     id="uncordon"),
        pytest.param(make_node("n").obj(), make_node("n").unschedulable().obj(), [], id="cordon"),
        pytest.param(make_node("n").condition("Ready", "False").obj(),
                     make_node("n").condition("Ready").obj(),
                     ["NodeUpdateNodeCondition"], id="condition"),
        pytest.param(make_node("n").obj(), make_node("n").annotation("a", "b").obj(),
                     ["NodeUpdateNodeAnnotation"], id="annotation"),
    ],
)
def test_node_scheduling_properties_change(old: Any, new: Any, want: list[str]) -> None:
    """Node updates map to upstream's UpdateNodeXYZ events."""
    assert [e.label for e in node_scheduling_properties_change(new, old)] == want


@pytest.mark.parametrize(
    ("resource", "action", "want"),
    [
        pytest.param(EventResource.NODE, ActionType.ADD, "NodeAdd", id="node add"),
        pytest.param(EventResource.ASSIGNED_POD, ActionType.DELETE, "AssignedPodDelete", id="pod delete"),
        pytest.param(EventResource.NODE, ActionType.UPDATE_NODE_LABEL | ActionType.UPDATE_NODE_TAINT,
                     "NodeUpdateNodeLabel|UpdateNodeTaint", id="combined"),
    ],
)
def test_cluster_event_labels(resource: EventResource, action: ActionType, want: str) -> None:
    """cluster_event() labels events like upstream's ClusterEvent.Label()."""
    assert cluster_event(resource, action).label == want


# --------------------------------------------------------------------------------------------
# nominator


def test_nominator_add_update_delete() -> None:
    """Nominations are kept per node, replaced on update and dropped on delete."""
    nom = PodNominator()
    p = make_pod("p").obj()
    nom.add(PodInfo.of(p), NominatingInfo("n1"))
    assert [x.pod.name for x in nom.nominated_pods_for_node("n1")] == ["p"]
    assert (nom.nominated_node_of(p), nom.has_nominated_pods("n1")) == ("n1", True)
    assert (len(nom), bool(nom)) == (1, True)
    # an update without nominated names keeps the in-memory nomination
    p2 = p.evolve(labels={"a": "b"})
    nom.update(p, PodInfo.of(p2))
    assert [x.pod.labels for x in nom.nominated_pods_for_node("n1")] == [{"a": "b"}]
    # an update carrying a nominated node moves it
    p3 = p2.evolve(nominated_node_name="n2")
    nom.update(p2, PodInfo.of(p3))
    assert nom.nominated_pods_for_node("n1") == []
    assert [x.pod.name for x in nom.nominated_pods_for_node("n2")] == ["p"]
    assert "n2" in repr(nom)
    nom.delete(p3)
    nom.delete(p3)
    assert (len(nom), nom.nominated_pods_for_node("n2")) == (0, [])


@pytest.mark.parametrize(
    ("info", "pod_nnn", "want"),
    [
        pytest.param(None, "", None, id="noop without own nomination"),
        pytest.param(None, "n1", "n1", id="noop uses the pod's own"),
        pytest.param(NominatingInfo("", 0), "n1", "n1", id="explicit noop mode"),
        pytest.param(NominatingInfo("n2"), "n1", "n2", id="override"),
        pytest.param(NominatingInfo(""), "n1", None, id="override clears"),
    ],
)
def test_nominator_modes(info: NominatingInfo | None, pod_nnn: str, want: str | None) -> None:
    """NOOP nominates to the pod's own nominated node; OVERRIDE to the given one."""
    nom = PodNominator()
    p = make_pod("p").nominated_node_name(pod_nnn).obj()
    nom.add(PodInfo.of(p), info)
    assert nom.nominated_node_of(p) == want


@pytest.mark.parametrize(
    ("live", "want"),
    [
        pytest.param(None, None, id="deleted pod"),
        pytest.param(make_pod("p").node("n9").obj(), None, id="already bound"),
        pytest.param(make_pod("p").obj(), "n1", id="still pending"),
    ],
)
def test_nominator_checks_pod_lookup(live: Pod | None, want: str | None) -> None:
    """Deleted or bound pods are not nominated (upstream checks its pod lister)."""
    nom = PodNominator(lambda pod: live)
    p = make_pod("p").obj()
    nom.add(PodInfo.of(p), NominatingInfo("n1"))
    assert nom.nominated_node_of(p) == want


def test_queue_nominates_added_pods() -> None:
    """Pods added with a nominated node are nominated; updates keep the nominator current."""
    q = new_queue()
    p = make_pod("p").nominated_node_name("n1").obj()
    q.add(p)
    p2 = p.evolve(labels={"v": "2"})
    q.update(p, p2)
    assert [x.pod.labels for x in q.nominated_pods_for_node("n1")] == [{"v": "2"}]
    q.delete_nominated_pod_if_exists(p2)
    assert q.nominated_pods_for_node("n1") == []
    q.add_nominated_pod(PodInfo.of(p2), NominatingInfo("n3"))
    assert [x.pod.name for x in q.nominator.nominated_pods_for_node("n3")] == ["p"]


# --------------------------------------------------------------------------------------------
# invariants


ops = st.lists(
    st.tuples(st.sampled_from(["add", "pop_fail", "pop_error", "pop_done", "event", "delete", "step",
                               "activate", "update"]),
              st.integers(0, 5)),
    max_size=40,
)


@settings(max_examples=60, deadline=None)
@given(ops)
def test_no_duplicates_and_no_loss(operations: list[tuple[str, int]]) -> None:
    """Whatever happens, every known pod is in exactly one place and nothing else is queued."""
    clock = FakeClock(1000.0)
    q = new_queue(clock)
    known: dict[str, Pod] = {}
    for op, i in operations:
        pod = make_pod(f"p{i}").priority(i % 3).obj()
        if op == "add" and pod.uid not in known:
            known[pod.uid] = pod
            q.add(pod)
        elif op.startswith("pop"):
            pinfo = q.pop()
            if pinfo is not None:
                if op == "pop_done":
                    q.done(pinfo.pod.uid)
                    del known[pinfo.pod.uid]  # bound
                else:
                    fail(q, pinfo, *([FIT] if op == "pop_fail" else []))
        elif op == "event":
            q.move_all_to_active_or_backoff_queue(EVENT_NODE_ADD, None, make_node("big").obj())
        elif op == "delete" and pod.uid in known:
            q.delete(known.pop(pod.uid))
        elif op == "step":
            clock.step(i * 3)
        elif op == "activate":
            q.activate([pod])
        elif op == "update" and pod.uid in known:
            new = known[pod.uid].evolve(labels={"i": str(i)})
            q.update(known[pod.uid], new)
            known[pod.uid] = new
    pending = [p.uid for p in q.pending_pods()]
    assert len(pending) == len(set(pending))
    assert set(pending) == set(known)
    assert len(q) == len(known)
    assert all(q.where(uid) in ("Active", "Backoff", "Unschedulable") for uid in known)


# --------------------------------------------------------------------------------------------
# a QueueSort less() that raises


class _Sorter:
    """A QueueSort plugin whose less() raises for pods labelled ``bad``."""

    name = "FlakySort"

    def __init__(self, exc: type[BaseException] = ValueError) -> None:
        self.exc = exc
        self.armed = True

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool:
        if self.armed and ("bad" in a.pod.labels or "bad" in b.pod.labels):
            raise self.exc("cannot compare")
        return priority_less(a, b)


class _Collect(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.messages: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.messages.append(record.getMessage())


def test_raising_less_keeps_every_pod_and_reports_the_plugin() -> None:
    """less() raising: the pods are ordered by arrival instead, none is lost or duplicated, and
    the failure is logged once naming the plugin and counted in sort_errors."""
    sorter = _Sorter()
    q = new_queue(less=sorter.less)
    names = [f"p{i}" for i in range(12)]
    logger = logging.getLogger("schedframe")
    handler, disabled = _Collect(), logger.disabled
    logger.addHandler(handler)
    logger.disabled = False  # another library's logging setup may have disabled it
    try:
        for i, name in enumerate(names):
            b = make_pod(name).priority(i % 3)
            if i % 4 == 1:
                b = b.label("bad", "yes")
            q.add(b.obj())
    finally:
        logger.removeHandler(handler)
        logger.disabled = disabled
    assert len(q) == 12
    assert q.sort_errors.count > 0
    assert q.sort_errors.plugin == "FlakySort"
    assert isinstance(q.sort_errors.last, ValueError)
    logged = [m for m in handler.messages if "FlakySort" in m]
    assert len(logged) == 1
    assert "orders such pods by arrival" in logged[0]
    popped = pop_names(q)
    assert sorted(popped) == sorted(names)
    assert len(q) == 0


def test_keyboard_interrupt_in_less_keeps_the_pod() -> None:
    """A BaseException from less() propagates, but the pod being added or popped stays queued."""
    sorter = _Sorter(KeyboardInterrupt)
    q = new_queue(less=sorter.less)
    for i in range(5):
        q.add(make_pod(f"p{i}").priority(i).obj())
    bad = make_pod("bad").label("bad", "yes").obj()
    with pytest.raises(KeyboardInterrupt):
        q.add(bad)
    assert q.get(bad) is not None
    with pytest.raises(KeyboardInterrupt):
        q.pop()  # the heap compares the bad pod while sifting
    assert len(q) == 6
    sorter.armed = False
    assert sorted(pop_names(q)) == ["bad", "p0", "p1", "p2", "p3", "p4"]


def test_raising_queue_sort_through_the_scheduler(caplog: pytest.LogCaptureFixture) -> None:
    """A QueueSort plugin raising for some pods: add_pod does not raise, every pod is scheduled."""
    from schedframe.config.configuration import SchedulerConfiguration
    from schedframe.plugins import in_tree_registry
    from schedframe.scheduler.scheduler import Scheduler

    registry = in_tree_registry()
    registry.register("FlakySort", lambda args, handle: _Sorter())
    config = SchedulerConfiguration.from_dict({"profiles": [{"plugins": {
        "queueSort": {"enabled": [{"name": "FlakySort"}], "disabled": [{"name": "*"}]}}}]},
        registry=registry)
    s = Scheduler(config, registry=registry, clock=FakeClock(1000.0))
    s.add_node(make_node("n1").capacity(cpu="8", memory="8Gi", pods=110).obj())
    with caplog.at_level("CRITICAL", logger="schedframe"):
        for i in range(6):
            b = make_pod(f"p{i}").req(cpu="1")
            if i % 2:
                b = b.label("bad", "yes")
            s.add_pod(b.obj())
        s.run_until_idle()
    assert len(s.bindings()) == 6
    assert s.queue.sort_errors.count > 0


@pytest.mark.parametrize(("kw", "error"), [
    ({"pod_initial_backoff": float("nan")}, ConfigurationError),
    ({"pod_max_backoff": float("inf")}, ConfigurationError),
    ({"pod_initial_backoff": -1}, ConfigurationError),
    ({"pod_max_backoff": "10s"}, ArgumentTypeError),
])
def test_backoff_arguments_are_checked(kw: dict[str, Any], error: type[Exception]) -> None:
    """NaN, infinite, negative or non-numeric backoffs: a SchedframeError naming the argument."""
    with pytest.raises(error, match=f"SchedulingQueue: {next(iter(kw))}"):
        new_queue(**kw)


def test_nominator_in_flight_reads_members_as_bare_pods() -> None:
    """While pods are in flight (a PodGroup cycle's members, out of the queue), their
    nominations read as upstream reads a pod in no queue: name, namespace and uid (and the
    scheduling group when asked), no priority and no requests; nominations made meanwhile too;
    afterwards the pods' own PodInfos are back."""
    nom = PodNominator()
    a = make_pod("a").priority(1000).req(cpu="1").obj().evolve(scheduling_group="g")
    b = make_pod("b").priority(1000).req(cpu="1").obj()
    other = make_pod("o").priority(1000).obj()
    nom.add(PodInfo.of(a), NominatingInfo("n1"))
    nom.add(PodInfo.of(other), NominatingInfo("n1"))
    before = nom._nominated_tuple("n1")
    with nom.in_flight([a, b], with_group=True):
        got = {pi.pod.name: pi.pod for pi in nom.nominated_pods_for_node("n1")}
        assert got["o"] is other
        stub = got["a"]
        assert (stub.uid, stub.namespace, stub.scheduling_group) == (a.uid, a.namespace, "g")
        assert (stub.effective_priority, stub.requests.milli_cpu) == (0, 0)
        assert nom._nominated_tuple("n1") is not before  # memos keyed on it see the change
        nom.add(PodInfo.of(b), NominatingInfo("n2"))
        (late,) = nom.nominated_pods_for_node("n2")
        assert late.pod is not b
        assert late.pod.effective_priority == 0
    assert [pi.pod for pi in nom.nominated_pods_for_node("n1")] == [a, other]
    assert [pi.pod for pi in nom.nominated_pods_for_node("n2")] == [b]
    with nom.in_flight([a]):
        (stub_a,) = [pi.pod for pi in nom.nominated_pods_for_node("n1") if pi.pod.uid == a.uid]
        assert stub_a.scheduling_group is None  # 1.36's nominator keeps no group
        nom.delete(a)
    assert [pi.pod for pi in nom.nominated_pods_for_node("n1")] == [other]
