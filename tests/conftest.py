"""Small, function-scoped wiring fixtures shared by the test suite."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from schedframe import FakeClock, Node, Registry
from schedframe.framework import _scoring
from schedframe.testing import make_node

#: Where the test suite looks for the openb trace when $SCHEDFRAME_OPENB is not set: the shared
#: data beside the checkout. schedframe itself assumes no location; tests that need the trace
#: skip, saying so, when it is absent.
OPENB_BESIDE_CHECKOUT = Path(__file__).resolve().parents[1].parent / "shared" / "openb"


def pytest_configure(config: pytest.Config) -> None:
    """Point $SCHEDFRAME_OPENB at the shared openb trace when it is there and nothing else is set;
    declare the suite's markers; range-check every plugin's scores."""
    config.addinivalue_line(
        "markers", "interrupts: script-style Ctrl-C checks in subprocesses (a few seconds each)")
    # the built-in Score plugins' scores are range-checked in every test, as upstream checks
    # every plugin's (in production they declare their range and skip the check)
    _scoring.TRUST_DECLARED_RANGES = False
    if not os.environ.get("SCHEDFRAME_OPENB") and OPENB_BESIDE_CHECKOUT.is_dir():
        os.environ["SCHEDFRAME_OPENB"] = str(OPENB_BESIDE_CHECKOUT)


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
