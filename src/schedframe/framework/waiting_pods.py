"""Pods held at Permit (upstream ``runtime/waiting_pods_map.go``).

A :class:`~schedframe.framework.WaitingPodEntry` is created when at least one Permit plugin returned ``WAIT``
and none
rejected the pod. Each waiting plugin has its own deadline (``now + timeout`` on the framework's
clock). The pod's *decision* is ``None`` until:

* every waiting plugin called :meth:`~schedframe.framework.WaitingPodEntry.allow` -> success;
* any plugin called :meth:`~schedframe.framework.WaitingPodEntry.reject` -> ``UNSCHEDULABLE`` attributed to
  it;
* a plugin's deadline passed -> ``UNSCHEDULABLE`` with upstream's message
  ``"rejected due to timeout after waiting 10s at plugin Foo"``.

The first decision wins, as with upstream's one-slot channel. Deadlines are judged lazily against
the clock (:meth:`~schedframe.framework.WaitingPodEntry.check_timeouts`), so a :class:`~schedframe.FakeClock`
drives
them deterministically; :meth:`~schedframe.framework.WaitingPodEntry.wait` blocks a thread until a decision.

:class:`~schedframe.framework.WaitingPods` is the thread-safe map of waiting pods by uid, shared by every
profile's
framework of one scheduler.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Mapping
from typing import Final, final

from ..api.objects import Pod
from .clock import Clock, RealClock
from .interfaces import WaitingPod
from .status import Code, Status

__all__ = ["WaitingPodEntry", "WaitingPods", "format_go_duration"]

_NS_PER_SECOND: Final = 1_000_000_000
#: Longest real-time slice a blocked waiter sleeps when the clock is not the wall clock, so that a
#: clock advanced by another thread is noticed promptly.
_POLL_SECONDS: Final = 0.05


def _trim_fraction(whole: int, frac: int, digits: int) -> str:
    if frac == 0:
        return str(whole)
    text = str(frac).rjust(digits, "0").rstrip("0")
    return f"{whole}.{text}"


def format_go_duration(seconds: float) -> str:
    """Format *seconds* like Go's ``time.Duration.String()`` (``"10s"``, ``"15m0s"``, ``"1.5s"``,
    ``"100ms"``), which upstream uses in its permit timeout message."""
    ns = round(seconds * _NS_PER_SECOND)
    if ns == 0:
        return "0s"
    sign = "-" if ns < 0 else ""
    u = abs(ns)
    if u < 1_000:
        return f"{sign}{u}ns"
    if u < 1_000_000:
        return f"{sign}{_trim_fraction(u // 1_000, u % 1_000, 3)}µs"
    if u < _NS_PER_SECOND:
        return f"{sign}{_trim_fraction(u // 1_000_000, u % 1_000_000, 6)}ms"
    secs, frac = divmod(u, _NS_PER_SECOND)
    hours, rem = divmod(secs, 3600)
    minutes, secs = divmod(rem, 60)
    s_text = f"{_trim_fraction(secs, frac, 9)}s"
    if hours:
        return f"{sign}{hours}h{minutes}m{s_text}"
    if minutes:
        return f"{sign}{minutes}m{s_text}"
    return f"{sign}{s_text}"


def timeout_message(plugin: str, timeout: float) -> str:
    """Upstream's rejection message for a permit wait that timed out."""
    return f"rejected due to timeout after waiting {format_go_duration(timeout)} at plugin {plugin}"


@final
class WaitingPodEntry:
    """A pod held at Permit; implements the :class:`~schedframe.WaitingPod` protocol.

    Args:
        pod: the pod.
        node_name: the node it is reserved on.
        plugin_timeouts: waiting plugin name -> timeout in seconds (already capped).
        clock: the clock deadlines are measured on.
    """

    __module__ = "schedframe.framework"
    __slots__ = ("_clock", "_deadlines", "_decision", "_event", "_lock", "_node_name", "_pending",
                 "_pod", "_timeouts")

    def __init__(self, pod: Pod, node_name: str, plugin_timeouts: Mapping[str, float],
                 clock: Clock) -> None:
        self._pod = pod
        self._node_name = node_name
        self._clock = clock
        now = clock.now()
        self._timeouts: dict[str, float] = dict(plugin_timeouts)
        self._deadlines: dict[str, float] = {p: now + t for p, t in plugin_timeouts.items()}
        self._pending: dict[str, None] = dict.fromkeys(plugin_timeouts)
        self._decision: Status | None = None
        self._lock = threading.Lock()
        self._event = threading.Event()
        if not self._pending:
            self._decide(Status.OK)

    @property
    def pod(self) -> Pod:
        """The waiting pod."""
        return self._pod

    @property
    def node_name(self) -> str:
        """The node the pod is reserved on."""
        return self._node_name

    def pending_plugins(self) -> list[str]:
        """The plugins that have not allowed the pod yet, in Permit order."""
        with self._lock:
            return list(self._pending)

    def _decide(self, status: Status) -> None:
        # caller holds the lock (or is __init__)
        if self._decision is None:
            self._decision = status
            self._event.set()

    def allow(self, plugin_name: str) -> None:
        """*plugin_name* allows the pod; the last allowing plugin makes the decision success."""
        with self._lock:
            self._pending.pop(plugin_name, None)
            if not self._pending:
                self._decide(Status.OK)

    def reject(self, plugin_name: str, message: str) -> None:
        """Reject the pod (``UNSCHEDULABLE`` attributed to *plugin_name*); no-op once decided."""
        with self._lock:
            self._decide(Status(Code.UNSCHEDULABLE, (message,), plugin_name))

    def next_deadline(self) -> float | None:
        """The earliest deadline of a pending plugin, or ``None`` when decided / none pending."""
        with self._lock:
            if self._decision is not None or not self._pending:
                return None
            return min(self._deadlines[p] for p in self._pending)

    def check_timeouts(self, now: float | None = None) -> Status | None:
        """Reject the pod if a pending plugin's deadline has passed at *now* (default: the clock);
        returns the decision (``None`` while undecided)."""
        if now is None:
            now = self._clock.now()
        with self._lock:
            if self._decision is None:
                expired = [p for p in self._pending if self._deadlines[p] <= now]
                if expired:
                    first = min(expired, key=lambda p: self._deadlines[p])
                    self._decide(Status(Code.UNSCHEDULABLE,
                                        (timeout_message(first, self._timeouts[first]),), first))
            return self._decision

    @property
    def decision(self) -> Status | None:
        """The decision so far (timeouts are not re-checked; see :meth:`check_timeouts`)."""
        return self._decision

    def wait(self) -> Status:
        """Block until allowed, rejected or timed out; returns the decision."""
        poll = not isinstance(self._clock, RealClock)
        while True:
            decision = self.check_timeouts()
            if decision is not None:
                return decision
            deadline = self.next_deadline()
            if deadline is None:  # pragma: no cover - decided concurrently
                continue
            remaining = max(0.0, deadline - self._clock.now())
            self._event.wait(min(remaining, _POLL_SECONDS) if poll else remaining)

    def __repr__(self) -> str:
        return (f"WaitingPodEntry(pod={self._pod.key!r}, node={self._node_name!r}, "
                f"pending={list(self._pending)!r}, decision={self._decision!r})")


@final
class WaitingPods:
    """Thread-safe map of waiting pods by uid (upstream ``waitingPodsMap``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.framework"
    __slots__ = ("_lock", "_pods")

    def __init__(self) -> None:
        self._pods: dict[str, WaitingPodEntry] = {}
        self._lock = threading.Lock()

    def add(self, wp: WaitingPodEntry) -> None:
        """Add (or replace) the entry of ``wp.pod.uid``."""
        with self._lock:
            self._pods[wp.pod.uid] = wp

    def remove(self, uid: str) -> WaitingPodEntry | None:
        """Remove and return the entry of *uid*, if any."""
        with self._lock:
            return self._pods.pop(uid, None)

    def get(self, uid: str) -> WaitingPodEntry | None:
        """The entry of *uid*, or ``None``."""
        with self._lock:
            return self._pods.get(uid)

    def iterate(self, callback: Callable[[WaitingPod], None]) -> None:
        """Call *callback* on every waiting pod (over a snapshot, so callbacks may allow/reject)."""
        with self._lock:
            entries = list(self._pods.values())
        for wp in entries:
            callback(wp)

    def next_deadline(self) -> float | None:
        """The earliest pending deadline over all waiting pods (for a deterministic scheduler to
        know how far to advance its clock), or ``None``."""
        if not self._pods:  # none waiting (the usual case): no lock, no lists
            return None
        with self._lock:
            entries = list(self._pods.values())
        deadlines = [d for d in (wp.next_deadline() for wp in entries) if d is not None]
        return min(deadlines) if deadlines else None

    def __len__(self) -> int:
        return len(self._pods)

    def __contains__(self, uid: object) -> bool:
        return uid in self._pods

    def __iter__(self) -> Iterator[WaitingPodEntry]:
        with self._lock:
            return iter(list(self._pods.values()))
