"""InMemoryEventRecorder: keeps a bounded record of the recent events."""

from __future__ import annotations

import pytest

from schedframe import SchedulerError
from schedframe.framework import InMemoryEventRecorder
from schedframe.framework.runtime import DEFAULT_MAX_EVENTS


@pytest.mark.parametrize(("limit", "count", "want_first", "want_len"), [
    pytest.param(None, 50, 0, 50, id="unbounded keeps all"),
    pytest.param(10, 10, 0, 10, id="at the limit keeps all"),
    pytest.param(10, 11, 6, 5, id="over the limit drops the oldest half"),
    pytest.param(10, 15, 6, 9, id="fills up again"),
    pytest.param(1, 3, 2, 1, id="limit one keeps the last"),
])
def test_recorder_keeps_the_recent_events(limit: int | None, count: int, want_first: int,
                                          want_len: int) -> None:
    """Beyond max_events the oldest half is forgotten, so a long run keeps a bounded record (the
    list stays a list: code comparing ``events`` with a list still works)."""
    recorder = InMemoryEventRecorder(max_events=limit)
    for i in range(count):
        recorder.event(f"pod-{i}", "Normal", "Scheduled", f"message {i}")
    assert recorder.events.__class__ is list
    assert len(recorder.events) == want_len
    assert recorder.events[0].message == f"message {want_first}"
    assert recorder.events[-1].obj == f"pod-{count - 1}"


def test_recorder_default_limit() -> None:
    """The default keeps 10,000 events."""
    assert InMemoryEventRecorder().max_events == DEFAULT_MAX_EVENTS == 10_000


@pytest.mark.parametrize("limit", [pytest.param(0, id="zero"), pytest.param(-5, id="negative")])
def test_recorder_rejects_bad_limit(limit: int) -> None:
    """max_events must be positive or None."""
    with pytest.raises(SchedulerError, match=f"max_events must be >= 1 or None, got {limit}"):
        InMemoryEventRecorder(max_events=limit)
