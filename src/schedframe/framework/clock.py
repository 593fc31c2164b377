"""Clocks: all scheduler time comes from an injectable clock."""

from __future__ import annotations

import math
import threading
import time
from typing import Protocol, final, runtime_checkable

from ..errors import ClockError

__all__ = ["Clock", "FakeClock", "RealClock"]


@runtime_checkable
class Clock(Protocol):
    """Something that tells the time in seconds (epoch-based floats)."""

    def now(self) -> float: ...


@final
class RealClock:
    """Wall-clock time (``time.time()``)."""

    __module__ = "schedframe.framework"

    def now(self) -> float:
        """Seconds since the epoch."""
        return time.time()

    def sleep(self, seconds: float) -> None:
        """Sleep for *seconds*."""
        time.sleep(seconds)


def _seconds(value: object, what: str) -> float:
    """*value* as a finite float, or :class:`~schedframe.errors.ClockError` naming *what*."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ClockError(f"{what} must be a number of seconds, got {type(value).__name__}")
    try:
        seconds = float(value)
    except OverflowError:  # an int too large for a float
        raise ClockError(f"{what} must be a finite number of seconds, got an integer too large "
                         "for a float") from None
    if not math.isfinite(seconds):
        raise ClockError(f"{what} must be a finite number of seconds, got {seconds}")
    return seconds


@final
class FakeClock:
    """A clock that moves only when told to; the deterministic scheduler mode runs on it.

    Times and steps must be finite numbers of seconds; a step must not be negative and the clock
    never goes back. Anything else raises :class:`~schedframe.errors.ClockError` (a ``ValueError``) and
    leaves the time unchanged. Safe to move from several threads.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = _seconds(start, "FakeClock: start")
        self._lock = threading.Lock()

    def now(self) -> float:
        """The current fake time."""
        return self._now

    def step(self, seconds: float) -> float:
        """Move forward by *seconds* (a finite number >= 0); returns the new time."""
        delta = _seconds(seconds, "FakeClock.step: seconds")
        if delta < 0:
            raise ClockError(f"FakeClock.step: seconds must be >= 0, got {delta}")
        with self._lock:
            now = self._now + delta
            if not math.isfinite(now):
                raise ClockError(f"FakeClock.step: moving {self._now} by {delta} overflows")
            self._now = now
            return now

    def set(self, t: float) -> None:
        """Jump to *t* (a finite number); refuses to go back in time."""
        when = _seconds(t, "FakeClock.set: t")
        with self._lock:
            if when < self._now:
                raise ClockError(f"FakeClock.set: cannot go back from {self._now} to {when}")
            self._now = when

    def _rewind(self, t: float) -> None:
        """Jump to *t*, back in time if need be (internal: a reverted ClusterSnapshot fork puts
        its clock back)."""
        with self._lock:
            self._now = t

    def advance_to(self, t: float) -> float:
        """Move to *t* if it is later than now (a no-op otherwise); returns the new time. Unlike
        :meth:`set`, never fails because another thread moved the clock past *t* meanwhile.

        .. versionadded:: 0.1.0
        """
        when = _seconds(t, "FakeClock.advance_to: t")
        with self._lock:
            if when > self._now:
                self._now = when
            return self._now

    def sleep(self, seconds: float) -> None:
        """Advance by *seconds* instead of sleeping (a negative amount counts as 0)."""
        delta = _seconds(seconds, "FakeClock.sleep: seconds")
        self.step(max(0.0, delta))
