"""InMemoryBinder: accepts bindings and keeps a bounded record of the recent ones."""

from __future__ import annotations

import pytest

from schedframe import SchedulerError
from schedframe.framework.binder import DEFAULT_MAX_BINDINGS, InMemoryBinder
from schedframe.testing import make_pod


@pytest.mark.parametrize(("limit", "count", "want_first", "want_len"), [
    pytest.param(None, 50, 0, 50, id="unbounded keeps all"),
    pytest.param(10, 10, 0, 10, id="at the limit keeps all"),
    pytest.param(10, 11, 6, 5, id="over the limit drops the oldest half"),
    pytest.param(10, 15, 6, 9, id="fills up again"),
    pytest.param(1, 3, 2, 1, id="limit one keeps the last"),
])
def test_binder_keeps_the_recent_bindings(limit: int | None, count: int, want_first: int,
                                          want_len: int) -> None:
    """Beyond max_bindings the oldest half is forgotten, so a long run keeps a bounded record."""
    binder = InMemoryBinder(max_bindings=limit)
    for i in range(count):
        binder.bind(make_pod(f"p{i}").obj(), f"n{i}")
    assert len(binder.bindings) == want_len
    assert next(iter(binder.bindings)) == f"default/p{want_first}"
    assert binder.bindings[f"default/p{count - 1}"] == f"n{count - 1}"


def test_binder_default_limit() -> None:
    """The default keeps 10,000 bindings."""
    assert InMemoryBinder().max_bindings == DEFAULT_MAX_BINDINGS == 10_000


@pytest.mark.parametrize("limit", [pytest.param(0, id="zero"), pytest.param(-5, id="negative")])
def test_binder_rejects_bad_limit(limit: int) -> None:
    """max_bindings must be positive or None."""
    with pytest.raises(SchedulerError, match=f"max_bindings must be >= 1 or None, got {limit}"):
        InMemoryBinder(max_bindings=limit)
