"""Clocks: all scheduler time comes from an injectable clock."""

from __future__ import annotations

import threading
import time
from typing import Protocol, final, runtime_checkable

__all__ = ["Clock", "FakeClock", "RealClock"]


@runtime_checkable
class Clock(Protocol):
    """Something that tells the time in seconds (epoch-based floats)."""

    def now(self) -> float: ...


@final
class RealClock:
    """Wall-clock time (``time.time()``)."""

    __module__ = "schedframe"

    def now(self) -> float:
        """Seconds since the epoch."""
        return time.time()

    def sleep(self, seconds: float) -> None:
        """Sleep for *seconds*."""
        time.sleep(seconds)


@final
class FakeClock:
    """A clock that moves only when told to; the deterministic scheduler mode runs on it.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self._now = float(start)
        self._lock = threading.Lock()

    def now(self) -> float:
        """The current fake time."""
        return self._now

    def step(self, seconds: float) -> float:
        """Move forward by *seconds* (must not be negative); returns the new time."""
        if seconds < 0:
            raise ValueError(f"FakeClock.step: seconds must be >= 0, got {seconds}")
        with self._lock:
            self._now += seconds
            return self._now

    def set(self, t: float) -> None:
        """Jump to *t*; refuses to go back in time."""
        if t < self._now:
            raise ValueError(f"FakeClock.set: cannot go back from {self._now} to {t}")
        self._now = float(t)

    def sleep(self, seconds: float) -> None:
        """Advance by *seconds* instead of sleeping."""
        self.step(max(0.0, seconds))
