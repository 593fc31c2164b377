"""Pods waiting at Permit: decisions, deadlines and the waiting-pods map."""

from __future__ import annotations

import threading

import pytest

from schedframe import Code, FakeClock, Status, WaitingPod
from schedframe.framework import RealClock
from schedframe.framework.waiting_pods import (
    WaitingPodEntry,
    WaitingPods,
    format_go_duration,
    timeout_message,
)
from schedframe.testing import make_pod

POD = make_pod("p").uid("uid-p").obj()


@pytest.mark.parametrize(
    ("seconds", "want"),
    [
        pytest.param(0, "0s", id="zero"),
        pytest.param(10, "10s", id="seconds"),
        pytest.param(1.5, "1.5s", id="fractional seconds"),
        pytest.param(0.1, "100ms", id="milliseconds"),
        pytest.param(0.0015, "1.5ms", id="fractional milliseconds"),
        pytest.param(2e-6, "2µs", id="microseconds"),
        pytest.param(5e-9, "5ns", id="nanoseconds"),
        pytest.param(60, "1m0s", id="one minute"),
        pytest.param(900, "15m0s", id="fifteen minutes"),
        pytest.param(3725.25, "1h2m5.25s", id="hours"),
        pytest.param(-3, "-3s", id="negative"),
    ],
)
def test_format_go_duration(seconds: float, want: str) -> None:
    """Durations print like Go's time.Duration.String()."""
    assert format_go_duration(seconds) == want


def test_timeout_message() -> None:
    """The timeout rejection message matches upstream's format."""
    assert timeout_message("Gang", 900) == "rejected due to timeout after waiting 15m0s at plugin Gang"


def test_entry_is_a_waiting_pod(clock: FakeClock) -> None:
    """WaitingPodEntry implements the WaitingPod protocol."""
    wp = WaitingPodEntry(POD, "n1", {"A": 1.0}, clock)
    assert isinstance(wp, WaitingPod)
    assert (wp.pod, wp.node_name) == (POD, "n1")
    assert "default/p" in repr(wp)


@pytest.mark.parametrize(
    ("actions", "want"),
    [
        pytest.param([("allow", "A")], None, id="partially allowed"),
        pytest.param([("allow", "A"), ("allow", "B")], Status.OK, id="all allowed"),
        pytest.param([("allow", "X"), ("allow", "A"), ("allow", "B")], Status.OK,
                     id="unknown plugin ignored"),
        pytest.param([("reject", "B")], Status(Code.UNSCHEDULABLE, "no", "B"), id="rejected"),
        pytest.param([("allow", "A"), ("allow", "B"), ("reject", "B")], Status.OK, id="first decision wins"),
        pytest.param([("reject", "A"), ("reject", "B")], Status(Code.UNSCHEDULABLE, "no", "A"),
                     id="first rejection wins"),
    ],
)
def test_decisions(actions: list[tuple[str, str]], want: Status | None, clock: FakeClock) -> None:
    """The decision is None until all allowed or one rejected; the first decision wins."""
    wp = WaitingPodEntry(POD, "n1", {"A": 10.0, "B": 10.0}, clock)
    for action, plugin in actions:
        if action == "allow":
            wp.allow(plugin)
        else:
            wp.reject(plugin, "no")
    assert wp.check_timeouts() == want
    assert wp.decision == want


def test_no_waiting_plugins_is_allowed(clock: FakeClock) -> None:
    """An entry without waiting plugins is decided (allowed) at once."""
    assert WaitingPodEntry(POD, "n1", {}, clock).decision == Status.OK


def test_deadlines_and_timeout(clock: FakeClock) -> None:
    """Each plugin has its own deadline; allowed plugins no longer time out."""
    wp = WaitingPodEntry(POD, "n1", {"A": 5.0, "B": 20.0}, clock)
    start = clock.now()
    assert wp.next_deadline() == start + 5
    wp.allow("A")
    assert wp.next_deadline() == start + 20
    clock.step(10)
    assert wp.check_timeouts() is None
    assert wp.check_timeouts(start + 20) == Status(
        Code.UNSCHEDULABLE, "rejected due to timeout after waiting 20s at plugin B", "B")
    assert wp.next_deadline() is None
    assert wp.pending_plugins() == ["B"]


def test_wait_blocks_until_allowed() -> None:
    """wait() blocks a thread until another thread allows the pod."""
    wp = WaitingPodEntry(POD, "n1", {"A": 30.0}, RealClock())
    timer = threading.Timer(0.05, wp.allow, args=("A",))
    timer.start()
    try:
        assert wp.wait() is Status.OK
    finally:
        timer.cancel()


def test_wait_times_out_in_real_time() -> None:
    """wait() returns the timeout rejection when the deadline passes."""
    wp = WaitingPodEntry(POD, "n1", {"A": 0.02}, RealClock())
    want = Status(Code.UNSCHEDULABLE, "rejected due to timeout after waiting 20ms at plugin A", "A")
    assert wp.wait() == want


def test_wait_notices_fake_clock_advanced_by_another_thread(clock: FakeClock) -> None:
    """With a fake clock, a blocked wait() polls and sees the clock move."""
    wp = WaitingPodEntry(POD, "n1", {"A": 60.0}, clock)
    timer = threading.Timer(0.02, clock.step, args=(61,))
    timer.start()
    try:
        assert wp.wait().plugin == "A"
    finally:
        timer.cancel()


def test_map_operations(clock: FakeClock) -> None:
    """WaitingPods adds, gets, iterates, removes and reports the next deadline."""
    wps = WaitingPods()
    assert wps.next_deadline() is None
    a = WaitingPodEntry(POD, "n1", {"A": 10.0}, clock)
    other = make_pod("q").uid("uid-q").obj()
    b = WaitingPodEntry(other, "n2", {"A": 3.0}, clock)
    wps.add(a)
    wps.add(b)
    assert len(wps) == 2
    assert "uid-p" in wps
    assert wps.get("uid-p") is a
    assert wps.next_deadline() == clock.now() + 3
    seen: list[str] = []
    wps.iterate(lambda wp: seen.append(wp.pod.name))
    assert sorted(seen) == ["p", "q"]
    wps.iterate(lambda wp: wp.allow("A"))  # callbacks may change the entries
    assert wps.next_deadline() is None
    assert [wp.pod.name for wp in wps] == ["p", "q"]
    assert wps.remove("uid-p") is a
    assert wps.remove("uid-p") is None
    assert wps.get("uid-p") is None
