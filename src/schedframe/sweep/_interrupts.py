"""Ctrl-C where it is safe: a sweep takes SIGINT at points of its own choosing, never in the middle
of a lock's bookkeeping, and the workers a LocalCluster starts never see it.

Python raises ``KeyboardInterrupt`` in the main thread wherever it happens to be. Inside
``concurrent.futures.wait`` (which acquires every future's condition in turn) or a Dask client's
``sync`` that can leave a lock held for good; the thread that needs it next (a Dask client's event
loop, a process pool's manager) then waits forever, and so does every call that waits for that
thread, the clean-up after Ctrl-C included. :class:`HeldInterrupts` keeps the signal until the code
holding it asks (:meth:`HeldInterrupts.check`); :func:`started_without_interrupts` starts a
LocalCluster whose workers never see it.
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from types import FrameType, TracebackType
from typing import Any

__all__ = ["HeldInterrupts", "ignore_interrupts", "started_without_interrupts"]

_Handler = Callable[[int, FrameType | None], Any]


class HeldInterrupts:
    """Within the block, in the main thread, a SIGINT (Ctrl-C) is held instead of interrupting
    whatever runs. :meth:`check` hands a held one to the handler installed before the block
    (``KeyboardInterrupt`` by default) at a point the caller knows safe; so does the block's end,
    unless an exception is already leaving it.

    Nested blocks share the outermost one. Outside the main thread (where Python delivers no
    signals), or when the installed handler is ``SIG_IGN`` or ``SIG_DFL``, nothing is held."""

    def __init__(self) -> None:
        self._held: list[tuple[int, FrameType | None]] = []
        self._previous: _Handler | None = None
        self._outer: HeldInterrupts | None = None

    def __enter__(self) -> HeldInterrupts:
        if threading.current_thread() is not threading.main_thread():
            return self
        previous = signal.getsignal(signal.SIGINT)
        owner = getattr(previous, "__self__", None)
        if isinstance(owner, HeldInterrupts):
            self._outer = owner
        elif callable(previous):
            self._previous = previous
            signal.signal(signal.SIGINT, self._hold)
        return self

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        self._held.append((signum, frame))

    @property
    def held(self) -> bool:
        """Whether a Ctrl-C waits to be handed on."""
        return self._outer.held if self._outer is not None else bool(self._held)

    def check(self) -> None:
        """Hand a held Ctrl-C to the handler installed before the block (which raises
        ``KeyboardInterrupt`` by default); nothing when none is held."""
        if self._outer is not None:
            self._outer.check()
        elif self._previous is not None:
            self._hand_on(self._previous)

    def _hand_on(self, handler: _Handler) -> None:
        if self._held:
            signum, frame = self._held[0]
            self._held.clear()
            handler(signum, frame)

    def __exit__(self, exc_type: type[BaseException] | None, exc: BaseException | None,
                 tb: TracebackType | None) -> None:
        previous, self._previous = self._previous, None
        if previous is None:
            return
        signal.signal(signal.SIGINT, previous)  # a signal pending this moment is held first
        if exc_type is None:
            self._hand_on(previous)


def ignore_interrupts() -> None:
    """Run in each worker (a process pool's initializer, a LocalCluster's workers): Ctrl-C goes
    to the whole process group, and the main process alone decides what it means (it ends the
    workers itself)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


@contextlib.contextmanager
def started_without_interrupts() -> Iterator[None]:
    """Threads started within the block, and the processes they start (a LocalCluster's event
    loop and its workers), begin with SIGINT blocked: a Ctrl-C, which reaches the whole process
    group, never interrupts a worker that is still importing. The calling thread blocks SIGINT
    meanwhile (threads inherit its mask, and ``exec`` keeps it) but loses no Ctrl-C: Python's
    handler still runs, in its stead, once another thread takes the signal or the block ends.

    POSIX, main thread only; elsewhere nothing changes."""
    if not hasattr(signal, "pthread_sigmask") or threading.current_thread() is not threading.main_thread():
        yield
        return
    with contextlib.suppress(Exception):
        # started later, from a thread of the block, it would unblock SIGINT in that thread
        from multiprocessing import resource_tracker

        resource_tracker.ensure_running()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, mask)
