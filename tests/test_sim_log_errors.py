"""The simulator's event log when writing it fails: a reader gone away (``simulate --jsonl |
head``) or a full disk stops the run with that error, also when the write that fails is an
observer hook's (which the scheduler would otherwise log and swallow)."""

from __future__ import annotations

import errno
import io
import logging

import pytest

from schedframe.sim import simulate


class FailsAt(io.StringIO):
    """A log whose write of the first record with ``"op":"<op>"`` raises *error*."""

    def __init__(self, op: str, error: OSError) -> None:
        super().__init__()
        self.op, self.error, self.failed, self.after = op, error, False, 0

    def write(self, s: str) -> int:
        if self.failed:
            self.after += 1
        elif f'"op":"{self.op}"' in s:
            self.failed = True
            raise self.error
        return super().write(s)


@pytest.mark.parametrize("op", [
    pytest.param("bound", id="in an observer hook"),
    pytest.param("arrive", id="in the run loop"),
])
@pytest.mark.parametrize("error", [
    pytest.param(BrokenPipeError(errno.EPIPE, "Broken pipe"), id="broken pipe"),
    pytest.param(OSError(errno.ENOSPC, "No space left on device"), id="disk full"),
])
def test_a_failing_log_write_stops_the_run_with_its_error(
    op: str, error: OSError, caplog: pytest.LogCaptureFixture
) -> None:
    """The write's error leaves simulate(), nothing is logged as an observer's failure, and
    nothing more is written after it."""
    log = FailsAt(op, error)
    with caplog.at_level(logging.WARNING), pytest.raises(type(error)) as raised:
        simulate("three-zones", log=log)
    assert raised.value is error
    assert not [r for r in caplog.records if "observer hook" in r.getMessage()]
    assert log.after == 0
