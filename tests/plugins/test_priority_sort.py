"""PrioritySort: cases ported from upstream ``queuesort/priority_sort_test.go``."""

from __future__ import annotations

import functools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe.api.objects import Pod
from schedframe.cache.nodeinfo import PodInfo
from schedframe.framework.interfaces import QueuedPodInfo
from schedframe.plugins import priority_sort
from schedframe.plugins.priority_sort import PrioritySort


def queued(priority: int | None, timestamp: float) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo(Pod("p", priority=priority)), timestamp=timestamp)


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        pytest.param(queued(1, 0.0), queued(2, 0.0), False, id="p1.priority less than p2.priority"),
        pytest.param(queued(2, 0.0), queued(1, 0.0), True, id="p1.priority greater than p2.priority"),
        pytest.param(
            queued(3, 1.0), queued(3, 2.0), True, id="equal priority, p1 added to the queue earlier"
        ),
        pytest.param(
            queued(3, 2.0), queued(3, 1.0), False, id="equal priority, p2 added to the queue earlier"
        ),
        pytest.param(queued(None, 1.0), queued(0, 2.0), True, id="unset priority counts as 0"),
        pytest.param(queued(-1, 0.0), queued(None, 5.0), False, id="negative priority after unset"),
    ],
)
def test_less(a: QueuedPodInfo, b: QueuedPodInfo, want: bool) -> None:
    """Higher priority first, then earlier timestamp."""
    assert PrioritySort().less(a, b) is want


@given(st.lists(st.tuples(st.integers(-5, 5), st.floats(0, 100, allow_nan=False)), min_size=2, max_size=30))
def test_less_is_a_strict_order(items: list[tuple[int, float]]) -> None:
    """Sorting with ``less`` orders by (-priority, timestamp)."""
    plugin = PrioritySort()

    def compare(x: QueuedPodInfo, y: QueuedPodInfo) -> int:
        return -1 if plugin.less(x, y) else int(plugin.less(y, x))

    ordered = sorted((queued(p, t) for p, t in items), key=functools.cmp_to_key(compare))
    keys = [(-(i.pod.priority or 0), i.timestamp) for i in ordered]
    assert keys == sorted(keys)


def test_factory() -> None:
    """new() ignores args."""
    plugin = priority_sort.new(None, None)  # type: ignore[arg-type]
    assert plugin.name == "PrioritySort"
    assert priority_sort.ARGS_TYPE is None
