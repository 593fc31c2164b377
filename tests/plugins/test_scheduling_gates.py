"""SchedulingGates: cases ported from upstream ``schedulinggates/scheduling_gates_test.go``."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Pod, Status
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.plugins import scheduling_gates
from schedframe.plugins.scheduling_gates import SchedulingGates, gates_reason
from schedframe.testing import make_pod


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(make_pod("p").obj(), None, id="pod does not carry scheduling gates"),
        pytest.param(
            make_pod("p").scheduling_gates("foo", "bar").obj(),
            Status.unresolvable("waiting for scheduling gates: [foo bar]"),
            id="pod carries scheduling gates",
        ),
    ],
)
def test_pre_enqueue(pod: Pod, want: Status | None) -> None:
    """PreEnqueue rejects gated pods with the gate names, as upstream TestPreEnqueue."""
    assert SchedulingGates().pre_enqueue(pod) == want


def test_pre_enqueue_through_framework() -> None:
    """The framework runs the plugin at PreEnqueue."""
    from schedframe.testing import PluginHarness

    h = PluginHarness("SchedulingGates")
    status = h.framework.run_pre_enqueue_plugins(make_pod("p").scheduling_gates("a").obj())
    assert status.reasons == [gates_reason(["a"])]
    assert h.framework.run_pre_enqueue_plugins(make_pod("p").obj()).is_success()


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(
            make_pod("p").scheduling_gates("foo").obj(),
            make_pod("p").obj(),
            QueueingHint.QUEUE,
            id="gates of the pod eliminated",
        ),
        pytest.param(
            make_pod("q").scheduling_gates("foo").obj(),
            make_pod("q").obj(),
            QueueingHint.QUEUE_SKIP,
            id="another pod's gates eliminated",
        ),
    ],
)
def test_is_schedulable_after_gates_eliminated(old: Pod, new: Pod, want: QueueingHint) -> None:
    """Requeue only the pod whose gates were removed."""
    pod = make_pod("p").scheduling_gates("foo").obj()
    assert SchedulingGates().is_schedulable_after_gates_eliminated(pod, old, new) == want


def test_hint_rejects_wrong_object() -> None:
    """An updated object that is not a pod raises (the queue then requeues)."""
    bad: Any = "not-a-pod"
    with pytest.raises(TypeError, match="expected Pod, but got str"):
        SchedulingGates().is_schedulable_after_gates_eliminated(make_pod("p").obj(), None, bad)


def test_events_to_register() -> None:
    """Pod updates that eliminate scheduling gates, with the hint."""
    plugin = scheduling_gates.new(None, None)  # type: ignore[arg-type]
    (event,) = plugin.events_to_register()
    assert event.event.resource is EventResource.POD
    assert event.event.action == ActionType.UPDATE_POD_SCHEDULING_GATES_ELIMINATED
    assert event.hint == plugin.is_schedulable_after_gates_eliminated
    assert plugin.name == "SchedulingGates"
