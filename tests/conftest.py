"""Small, function-scoped wiring fixtures shared by the test suite."""

from __future__ import annotations

import pytest

from schedframe import FakeClock, Node, Registry
from schedframe.testing import make_node


@pytest.fixture
def clock() -> FakeClock:
    """A fake clock at its default start time."""
    return FakeClock()


@pytest.fixture
def registry() -> Registry:
    """An empty plugin registry."""
    return Registry()


@pytest.fixture
def three_nodes() -> list[Node]:
    """Nodes n1, n2, n3 (4 CPU, 32Gi, 110 pods)."""
    return [make_node(n).capacity(cpu="4", memory="32Gi", pods=110).obj() for n in ("n1", "n2", "n3")]
