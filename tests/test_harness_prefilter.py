"""PluginHarness.score runs what a scheduling cycle runs before Score: PreFilter (when the plugin
has one), then PreScore, so a Score that reads PreFilter's state is tested as the framework runs it."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence

import pytest

from schedframe import CycleState, NodeInfo, Pod, Registry, SchedulerError, StateKey, Status
from schedframe.errors import StateNotFoundError
from schedframe.testing import PluginHarness, make_node, make_pod

_KEY: StateKey[int] = StateKey("PreFilterCounter", "Counter")


class Counter:
    """PreFilter stores the pod's CPU request; PreScore adds one; Score reads the sum."""

    name = "Counter"

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> tuple[None, Status]:
        if pod.labels.get("reject"):
            return None, Status.unschedulable("rejected in PreFilter")
        state.write(_KEY, pod.requests.milli_cpu)
        return None, Status.OK

    def pre_filter_extensions(self) -> None:
        return None

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        with contextlib.suppress(StateNotFoundError):  # PreFilter rejected the pod
            state.write(_KEY, state.read(_KEY) + 1)
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return state.read(_KEY) // 10, None

    def score_extensions(self) -> None:
        return None


def _harness() -> PluginHarness:
    registry = Registry()
    registry.register("Counter", lambda args, handle: Counter())
    return PluginHarness("Counter", nodes=[make_node("n1").obj(), make_node("n2").obj()], registry=registry)


def test_score_sees_what_pre_filter_wrote() -> None:
    h = _harness()
    assert h.score(make_pod("p").req(cpu="500m").obj()) == {"n1": 50, "n2": 50}  # (500 + 1) // 10


def test_a_pre_filter_rejection_is_the_status() -> None:
    """A cycle stops at a PreFilter rejection (a PreScore failure, checked first, would win: the
    in-tree tables compare PreScore's own verdict)."""
    h = _harness()
    scores, status = h.run_score(make_pod("p").label("reject", "yes").obj())
    assert scores == {}
    assert status == Status.unschedulable("rejected in PreFilter")
    with pytest.raises(SchedulerError, match="rejected in PreFilter"):
        h.score(make_pod("p").label("reject", "yes").obj())
