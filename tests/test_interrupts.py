"""Ctrl-C where it is safe (``schedframe.sweep._interrupts``, docs/sweeps.rst): held while a sweep
works and taken where it waits, never inside a lock's bookkeeping; threads and processes started
for a LocalCluster begin with SIGINT blocked, and the main process loses no Ctrl-C meanwhile."""

from __future__ import annotations

import concurrent.futures
import os
import signal
import subprocess
import sys
import textwrap
import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from schedframe.sweep import Run, sweep
from schedframe.sweep._interrupts import HeldInterrupts, started_without_interrupts

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")


@pytest.fixture(autouse=True)
def _python_ctrl_c() -> Iterator[None]:
    """Ctrl-C as Python sets it up (KeyboardInterrupt), whatever the runner started the tests
    with: a test runner started in the background of a non-interactive shell has SIGINT
    ignored, and an ignored Ctrl-C is left ignored by design."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)


def test_a_ctrl_c_is_held_until_checked() -> None:
    with HeldInterrupts() as interrupts:
        signal.raise_signal(signal.SIGINT)  # no KeyboardInterrupt here
        assert _held(interrupts)
        with pytest.raises(KeyboardInterrupt):
            interrupts.check()
        assert not _held(interrupts)
        interrupts.check()  # nothing held: nothing happens
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def _held(interrupts: HeldInterrupts) -> bool:
    """``interrupts.held``, read afresh (a type checker would keep an earlier assertion's answer)."""
    return interrupts.held


def test_a_ctrl_c_held_at_the_end_is_taken_at_the_end() -> None:
    reached: list[bool] = []

    def block() -> None:
        with HeldInterrupts():
            signal.raise_signal(signal.SIGINT)
            reached.append(True)

    with pytest.raises(KeyboardInterrupt):
        block()
    assert reached == [True]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_exception_leaving_the_block_is_not_replaced() -> None:
    def block() -> None:
        with HeldInterrupts():
            signal.raise_signal(signal.SIGINT)
            raise ValueError

    with pytest.raises(ValueError):
        block()


def test_nested_blocks_share_the_outermost() -> None:
    def block() -> None:
        with HeldInterrupts() as outer:
            with HeldInterrupts() as inner:
                signal.raise_signal(signal.SIGINT)
            assert outer.held  # the inner block's end did not take it
            assert inner.held
            inner.check()

    with pytest.raises(KeyboardInterrupt):
        block()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_the_handler_installed_before_is_the_one_that_runs() -> None:
    got: list[int] = []
    previous = signal.signal(signal.SIGINT, lambda signum, frame: got.append(signum))
    try:
        with HeldInterrupts() as interrupts:
            signal.raise_signal(signal.SIGINT)
            assert got == []
            interrupts.check()
            assert got == [signal.SIGINT]
    finally:
        signal.signal(signal.SIGINT, previous)


def test_an_ignored_ctrl_c_stays_ignored() -> None:
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with HeldInterrupts() as interrupts:
            signal.raise_signal(signal.SIGINT)
            assert not interrupts.held
            interrupts.check()
        assert signal.getsignal(signal.SIGINT) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGINT, previous)


def test_outside_the_main_thread_nothing_changes() -> None:
    seen: list[Any] = []

    def other() -> None:
        with HeldInterrupts() as interrupts:
            seen.append(signal.getsignal(signal.SIGINT))
            interrupts.check()
            seen.append(interrupts.held)

    t = threading.Thread(target=other)
    t.start()
    t.join()
    assert seen == [signal.default_int_handler, False]


@pytest.mark.skipif(not hasattr(signal, "pthread_sigmask"), reason="pthread_sigmask")
def test_threads_and_their_processes_start_with_sigint_blocked_and_nothing_is_lost() -> None:
    """What a LocalCluster's workers rely on: its event loop is a thread started in the block, and
    the workers are processes that thread starts."""
    child = "import signal; print(signal.SIGINT in signal.pthread_sigmask(signal.SIG_BLOCK, []))"
    masks: list[set[int]] = []
    printed: list[str] = []

    def loop() -> None:
        masks.append(set(signal.pthread_sigmask(signal.SIG_BLOCK, [])))
        printed.append(subprocess.run([sys.executable, "-c", child], capture_output=True, text=True,
                                      check=True).stdout.strip())

    def block() -> None:
        with HeldInterrupts() as interrupts:
            with started_without_interrupts():
                t = threading.Thread(target=loop)
                t.start()
                t.join()
                os.kill(os.getpid(), signal.SIGINT)  # a Ctrl-C meanwhile
            assert interrupts.held  # not lost

    with pytest.raises(KeyboardInterrupt):
        block()
    assert signal.SIGINT in masks[0]
    assert printed == ["True"]
    assert signal.SIGINT not in signal.pthread_sigmask(signal.SIG_BLOCK, [])  # this thread's mask back


TASK = textwrap.dedent(
    """
    import time

    def nap(n, pause):
        time.sleep(pause)
        return {"n": n}
    """
)


class _Tripwire(concurrent.futures.ThreadPoolExecutor):
    """Its futures send SIGINT to the main thread the first time ``concurrent.futures.wait`` has
    taken one of their locks: a Ctrl-C arriving at that moment."""

    def __init__(self) -> None:
        super().__init__(max_workers=2)
        self.futures: list[concurrent.futures.Future[Any]] = []
        self.tripped = False

    def submit(self, fn: Any, /, *args: Any, **kwargs: Any) -> concurrent.futures.Future[Any]:
        future = super().submit(fn, *args, **kwargs)
        acquire = future._condition.acquire

        def tripping(*a: Any, **k: Any) -> bool:
            got: bool = acquire(*a, **k)
            if not self.tripped and threading.current_thread() is threading.main_thread():
                self.tripped = True
                signal.raise_signal(signal.SIGINT)
            return got

        future._condition.acquire = tripping  # type: ignore[method-assign]
        self.futures.append(future)
        return future


def _free(lock: Any) -> bool:
    """Whether another thread can take *lock* within two seconds."""
    got: list[bool] = []

    def take() -> None:
        ok = lock.acquire(timeout=2)
        got.append(ok)
        if ok:
            lock.release()

    t = threading.Thread(target=take)
    t.start()
    t.join()
    return got == [True]


def test_a_ctrl_c_never_leaves_a_futures_lock_held(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Raised where it arrived, the KeyboardInterrupt would leave ``concurrent.futures.wait``
    holding the lock of a future for good; the worker finishing that run (Dask's event loop, a
    pool's thread) would then wait for it forever, and so would the clean-up after Ctrl-C."""
    name = f"nap_task_{abs(hash(str(tmp_path))) % 10**8}"
    (tmp_path / f"{name}.py").write_text(TASK)
    monkeypatch.syspath_prepend(str(tmp_path))
    executor = _Tripwire()
    try:
        runs = [Run.of(f"{name}:nap", {"n": n, "pause": 0.2}) for n in range(6)]
        with pytest.raises(KeyboardInterrupt):
            sweep(runs, executor=executor, out=tmp_path / "r.csv", progress=False)
        assert executor.tripped
        assert all(_free(f._condition) for f in executor.futures)
        concurrent.futures.wait(executor.futures, timeout=5)
        assert all(f.done() for f in executor.futures)  # the runs under way ended, none hangs
    finally:
        executor.shutdown(wait=False, cancel_futures=True)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
