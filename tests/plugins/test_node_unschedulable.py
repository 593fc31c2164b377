"""NodeUnschedulable: cases ported from upstream ``nodeunschedulable/node_unschedulable_test.go``."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Code, CycleState, Node, Pod, Status
from schedframe.api import Taint, Toleration
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.plugins import node_unschedulable
from schedframe.plugins.node_unschedulable import (
    ERR_REASON_UNSCHEDULABLE,
    TAINT_NODE_UNSCHEDULABLE,
    NodeUnschedulable,
)
from schedframe.testing import PluginHarness

TOLERATES = Toleration(TAINT_NODE_UNSCHEDULABLE, effect="NoSchedule")


@pytest.mark.parametrize(
    ("pod", "node", "want"),
    [
        pytest.param(
            Pod("p"),
            Node("n", unschedulable=True),
            Status.unresolvable(ERR_REASON_UNSCHEDULABLE),
            id="unschedulable node",
        ),
        pytest.param(Pod("p"), Node("n"), Status.OK, id="normal node"),
        pytest.param(
            Pod("p", tolerations=(TOLERATES,)),
            Node("n", unschedulable=True),
            Status.OK,
            id="pod tolerating the unschedulable taint",
        ),
        pytest.param(
            Pod("p", tolerations=(Toleration(operator="Exists"),)),
            Node("n", unschedulable=True),
            Status.OK,
            id="pod tolerating everything",
        ),
        pytest.param(
            Pod("p", tolerations=(Toleration(TAINT_NODE_UNSCHEDULABLE, effect="NoExecute"),)),
            Node("n", unschedulable=True),
            Status.unresolvable(ERR_REASON_UNSCHEDULABLE),
            id="toleration with another effect",
        ),
    ],
)
def test_filter(pod: Pod, node: Node, want: Status) -> None:
    """Filter statuses, as upstream TestNodeUnschedulable."""
    assert PluginHarness("NodeUnschedulable", nodes=[node]).filter(pod) == {"n": want}


def test_missing_node_is_an_error() -> None:
    """A NodeInfo without its node object is an ERROR."""
    status = NodeUnschedulable().filter(CycleState(), Pod("p"), NodeInfo())
    assert status is not None
    assert status.code is Code.ERROR


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(
            None,
            Node("n", unschedulable=True),
            QueueingHint.QUEUE_SKIP,
            id="skip-queue-on-unschedulable-node-added",
        ),
        pytest.param(None, Node("n"), QueueingHint.QUEUE, id="queue-on-schedulable-node-added"),
        pytest.param(
            Node("n", unschedulable=True),
            Node("n", unschedulable=True, taints=(Taint("node.kubernetes.io/not-ready", "NoExecute"),)),
            QueueingHint.QUEUE_SKIP,
            id="skip-unrelated-change",
        ),
        pytest.param(
            Node("n", unschedulable=True),
            Node("n"),
            QueueingHint.QUEUE,
            id="queue-on-unschedulable-field-change",
        ),
        pytest.param(Node("n"), Node("n", unschedulable=True), QueueingHint.QUEUE_SKIP, id="skip-cordon"),
    ],
)
def test_is_schedulable_after_node_change(old: Node | None, new: Node, want: QueueingHint) -> None:
    """Requeue on a schedulable node added or a node uncordoned."""
    assert NodeUnschedulable().is_schedulable_after_node_change(Pod("p"), old, new) == want


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(
            Pod("p"),
            Pod("p", tolerations=(TOLERATES,)),
            QueueingHint.QUEUE,
            id="queue-on-toleration-for-unschedulable-taint",
        ),
        pytest.param(
            Pod("p"),
            Pod("p", tolerations=(Toleration("other", effect="NoSchedule"),)),
            QueueingHint.QUEUE_SKIP,
            id="skip-unrelated-toleration",
        ),
        pytest.param(
            Pod("q"), Pod("q", tolerations=(TOLERATES,)), QueueingHint.QUEUE_SKIP, id="skip-other-pod"
        ),
    ],
)
def test_is_schedulable_after_pod_toleration_change(old: Pod, new: Pod, want: QueueingHint) -> None:
    """Requeue when the rejected pod itself gains a toleration for the unschedulable taint."""
    assert NodeUnschedulable().is_schedulable_after_pod_toleration_change(Pod("p"), old, new) == want


@pytest.mark.parametrize(
    ("method", "old", "new", "match"),
    [
        pytest.param(
            "is_schedulable_after_node_change",
            None,
            "not-a-node",
            "expected Node, but got str",
            id="backoff-wrong-new-object",
        ),
        pytest.param(
            "is_schedulable_after_node_change",
            "not-a-node",
            Node("n"),
            "expected Node, but got str",
            id="backoff-wrong-old-object",
        ),
        pytest.param(
            "is_schedulable_after_pod_toleration_change",
            None,
            3,
            "expected Pod, but got int",
            id="pod hint, wrong object",
        ),
    ],
)
def test_hints_reject_wrong_objects(method: str, old: Any, new: Any, match: str) -> None:
    """Objects of the wrong type raise (the queue then requeues the pod)."""
    with pytest.raises(TypeError, match=match):
        getattr(NodeUnschedulable(), method)(Pod("p"), old, new)


def test_events_to_register() -> None:
    """Node add / taint update (which covers spec.unschedulable) and pod toleration update."""
    plugin = node_unschedulable.new(None, None)  # type: ignore[arg-type]
    node_event, pod_event = plugin.events_to_register()
    assert node_event.event.resource is EventResource.NODE
    assert node_event.event.action == ActionType.ADD | ActionType.UPDATE_NODE_TAINT
    assert node_event.hint == plugin.is_schedulable_after_node_change
    assert pod_event.event.resource is EventResource.POD
    assert pod_event.event.action == ActionType.UPDATE_POD_TOLERATION
    assert pod_event.hint == plugin.is_schedulable_after_pod_toleration_change
    assert plugin.name == "NodeUnschedulable"
