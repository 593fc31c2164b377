"""TaintToleration: cases ported from upstream ``tainttoleration/taint_toleration_test.go``."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe import Code, CycleState, Node, NodeScore, Pod, Status
from schedframe.api import Taint, Toleration
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.plugins import taint_toleration
from schedframe.plugins._helpers import tolerates
from schedframe.plugins.taint_toleration import ERR_REASON_UNTOLERATED, TaintToleration
from schedframe.testing import PluginHarness

UNTOLERATED = Status.unresolvable(ERR_REASON_UNTOLERATED)


def node(name: str, *taints: Taint) -> Node:
    return Node(name, taints=taints)


def pod(*tolerations: Toleration, name: str = "pod1", uid: str | None = None) -> Pod:
    if uid is None:
        return Pod(name, tolerations=tolerations)
    return Pod(name, uid=uid, tolerations=tolerations)


def taint(key: str, value: str, effect: str) -> Taint:
    return Taint(key, effect, value)


def tol(key: str, value: str = "", effect: str = "", operator: str = "Equal") -> Toleration:
    return Toleration(key, operator, value, effect)


PREFER = "PreferNoSchedule"

SCORE_CASES = [
    pytest.param(
        pod(tol("foo", "bar", PREFER)),
        [node("nodeA", taint("foo", "bar", PREFER)), node("nodeB", taint("foo", "blah", PREFER))],
        {"nodeA": 100, "nodeB": 0},
        id="tolerated taints score higher than intolerable ones",
    ),
    pytest.param(
        pod(tol("cpu-type", "arm64", PREFER), tol("disk-type", "ssd", PREFER)),
        [
            node("nodeA"),
            node("nodeB", taint("cpu-type", "arm64", PREFER)),
            node("nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)),
        ],
        {"nodeA": 100, "nodeB": 100, "nodeC": 100},
        id="the number of tolerated taints does not matter",
    ),
    pytest.param(
        pod(tol("foo", "bar", PREFER)),
        [
            node("nodeA"),
            node("nodeB", taint("cpu-type", "arm64", PREFER)),
            node("nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)),
        ],
        {"nodeA": 100, "nodeB": 50, "nodeC": 0},
        id="the more intolerable taints, the lower the score",
    ),
    pytest.param(
        pod(tol("cpu-type", "arm64", "NoSchedule"), tol("disk-type", "ssd", "NoSchedule")),
        [
            node("nodeA"),
            node("nodeB", taint("cpu-type", "arm64", "NoSchedule")),
            node("nodeC", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER)),
        ],
        {"nodeA": 100, "nodeB": 100, "nodeC": 0},
        id="only PreferNoSchedule taints and tolerations count",
    ),
    pytest.param(
        pod(),
        [node("nodeA"), node("nodeB", taint("cpu-type", "arm64", PREFER))],
        {"nodeA": 100, "nodeB": 0},
        id="no tolerations: the untainted node wins",
    ),
    pytest.param(
        pod(tol("cpu-type", "arm64")),
        [node("nodeA", taint("cpu-type", "arm64", PREFER)), node("nodeB", taint("gpu", "x", PREFER))],
        {"nodeA": 100, "nodeB": 0},
        id="a toleration without effect covers PreferNoSchedule",
    ),
    pytest.param(
        pod(tol("", effect=PREFER, operator="Exists")),
        [node("nodeA"), node("nodeB", taint("cpu-type", "arm64", PREFER), taint("disk-type", "ssd", PREFER))],
        {"nodeA": 100, "nodeB": 100},
        id="Exists with an empty key tolerates every PreferNoSchedule taint",
    ),
    pytest.param(
        pod(tol("", effect="NoSchedule", operator="Exists")),
        [node("nodeA"), node("nodeB", taint("cpu-type", "arm64", PREFER))],
        {"nodeA": 100, "nodeB": 0},
        id="Exists with an empty key and another effect does not count for scoring",
    ),
    pytest.param(
        pod(tol("cpu-type", operator="Exists")),
        [
            node("nodeA", taint("cpu-type", "arm64", PREFER)),
            node("nodeB", taint("cpu-type", "x86", PREFER), taint("disk-type", "ssd", PREFER)),
        ],
        {"nodeA": 100, "nodeB": 0},
        id="Exists with a key and no effect tolerates that key's PreferNoSchedule taints",
    ),
    pytest.param(
        pod(),
        [node("nodeA", taint("a", "1", PREFER)), node("nodeB", taint("a", "1", PREFER))],
        {"nodeA": 0, "nodeB": 0},
        id="same count everywhere: reverse normalization gives 0",
    ),
]


@pytest.mark.parametrize(("the_pod", "nodes", "want"), SCORE_CASES)
def test_score(the_pod: Pod, nodes: list[Node], want: dict[str, int]) -> None:
    """PreScore, Score and reverse NormalizeScore, as upstream TestTaintTolerationScore."""
    assert PluginHarness("TaintToleration", nodes=nodes).score(the_pod) == want


FILTER_CASES = [
    pytest.param(
        pod(),
        node("nodeA", taint("dedicated", "user1", "NoSchedule")),
        UNTOLERATED,
        id="no tolerations, tainted node",
    ),
    pytest.param(
        pod(tol("dedicated", "user1", "NoSchedule")),
        node("nodeA", taint("dedicated", "user1", "NoSchedule")),
        Status.OK,
        id="dedicated node of user1 tolerated",
    ),
    pytest.param(
        pod(tol("dedicated", "user2", "NoSchedule")),
        node("nodeA", taint("dedicated", "user1", "NoSchedule")),
        UNTOLERATED,
        id="dedicated node of user1, toleration for user2",
    ),
    pytest.param(
        pod(tol("foo", effect="NoSchedule", operator="Exists")),
        node("nodeA", taint("foo", "bar", "NoSchedule")),
        Status.OK,
        id="Exists toleration",
    ),
    pytest.param(
        pod(tol("dedicated", "user2", "NoSchedule"), tol("foo", effect="NoSchedule", operator="Exists")),
        node("nodeA", taint("dedicated", "user2", "NoSchedule"), taint("foo", "bar", "NoSchedule")),
        Status.OK,
        id="every taint tolerated",
    ),
    pytest.param(
        pod(tol("foo", "bar", PREFER)),
        node("nodeA", taint("foo", "bar", "NoSchedule")),
        UNTOLERATED,
        id="key and value match, effect does not",
    ),
    pytest.param(
        pod(tol("foo", "bar")),
        node("nodeA", taint("foo", "bar", "NoSchedule")),
        Status.OK,
        id="toleration with empty effect",
    ),
    pytest.param(
        pod(tol("dedicated", "user2", "NoSchedule")),
        node("nodeA", taint("dedicated", "user1", PREFER)),
        Status.OK,
        id="untolerated PreferNoSchedule taint does not filter",
    ),
    pytest.param(
        pod(),
        node("nodeA", taint("dedicated", "user1", PREFER)),
        Status.OK,
        id="no tolerations, PreferNoSchedule",
    ),
    pytest.param(
        pod(),
        node("nodeA", taint("node.kubernetes.io/not-ready", "", "NoExecute")),
        UNTOLERATED,
        id="NoExecute",
    ),
    pytest.param(
        pod(tol("", operator="Exists")),
        node("nodeA", taint("a", "1", "NoExecute"), taint("b", "2", "NoSchedule")),
        Status.OK,
        id="tolerate everything",
    ),
    pytest.param(
        pod(tol("", effect="NoSchedule", operator="Exists")),
        node("nodeA", taint("a", "1", "NoSchedule"), taint("b", "2", "NoExecute")),
        UNTOLERATED,
        id="Exists with an empty key covers one effect only",
    ),
    pytest.param(
        pod(tol("", effect="NoExecute", operator="Exists"), tol("", effect="NoSchedule", operator="Exists")),
        node("nodeA", taint("a", "1", "NoSchedule"), taint("b", "2", "NoExecute")),
        Status.OK,
        id="Exists with an empty key, one toleration per effect",
    ),
]


@pytest.mark.parametrize(("the_pod", "the_node", "want"), FILTER_CASES)
def test_filter(the_pod: Pod, the_node: Node, want: Status) -> None:
    """Filter statuses, as upstream TestTaintTolerationFilter."""
    h = PluginHarness("TaintToleration", nodes=[the_node])
    assert h.filter(the_pod) == {the_node.name: want}


@pytest.mark.parametrize(
    ("toleration", "the_taint", "want"),
    [
        pytest.param(
            tol("foo", operator="Exists", effect="NoSchedule"),
            taint("foo", "", "NoSchedule"),
            True,
            id="Exists, same key and effect",
        ),
        pytest.param(
            tol("foo", operator="Exists", effect="NoExecute"),
            taint("foo", "", "NoSchedule"),
            False,
            id="Exists, other effect",
        ),
        pytest.param(
            tol("foo", "bar", "NoSchedule", operator=""),
            taint("foo", "bar", "NoSchedule"),
            True,
            id="empty operator means Equal",
        ),
        pytest.param(
            tol("foo", "bar", "NoSchedule"), taint("foo", "baz", "NoSchedule"), False, id="Equal, other value"
        ),
        pytest.param(
            tol("foo", "bar", "NoSchedule"), taint("other", "bar", "NoSchedule"), False, id="Equal, other key"
        ),
        pytest.param(tol("", operator="Exists"), taint("any", "v", "NoExecute"), True, id="wildcard"),
        pytest.param(
            tol("foo", "5", "NoSchedule", operator="Lt"),
            taint("foo", "3", "NoSchedule"),
            True,
            id="Lt: taint value lower",
        ),
        pytest.param(
            tol("foo", "5", "NoSchedule", operator="Lt"),
            taint("foo", "5", "NoSchedule"),
            False,
            id="Lt: equal value",
        ),
        pytest.param(
            tol("foo", "5", "NoSchedule", operator="Gt"),
            taint("foo", "7", "NoSchedule"),
            True,
            id="Gt: taint value higher",
        ),
        pytest.param(
            tol("foo", "5", "NoSchedule", operator="Gt"),
            taint("foo", "-7", "NoSchedule"),
            False,
            id="Gt: taint value lower",
        ),
        pytest.param(
            tol("foo", "05", "NoSchedule", operator="Gt"),
            taint("foo", "7", "NoSchedule"),
            False,
            id="Gt: non-canonical toleration value",
        ),
        pytest.param(
            tol("foo", "5", "NoSchedule", operator="Gt"),
            taint("foo", "95.5", "NoSchedule"),
            False,
            id="Gt: non-integer taint value",
        ),
        pytest.param(
            tol("foo", "5", "NoSchedule", operator="Bigger"),
            taint("foo", "7", "NoSchedule"),
            False,
            id="unknown operator",
        ),
    ],
)
def test_tolerates(toleration: Toleration, the_taint: Taint, want: bool) -> None:
    """Toleration matching follows upstream ``ToleratesTaint`` (with Lt/Gt comparisons)."""
    assert tolerates(toleration, the_taint) is want


def test_score_without_pre_score_is_an_error() -> None:
    """Score needs the PreScore state, like upstream."""
    score, status = TaintToleration().score(CycleState(), pod(), NodeInfo(node("a")))
    assert score == 0
    assert status is not None
    assert status.code is Code.ERROR
    assert "PreScoreTaintToleration" in status.message


def test_missing_node_is_an_error() -> None:
    """A NodeInfo without its node object is an ERROR for Filter and Score."""
    plugin = TaintToleration()
    status = plugin.filter(CycleState(), pod(), NodeInfo())
    assert status is not None
    assert status.code is Code.ERROR
    _, status = plugin.score(CycleState(), pod(), NodeInfo())
    assert status is not None
    assert status.code is Code.ERROR


NODE_HINT_CASES = [
    pytest.param(
        pod(tol("dedicated", "user2", "NoSchedule")),
        None,
        node("nodeA", taint("dedicated", "user1", "NoSchedule")),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-untoleratedtaint-node-added",
    ),
    pytest.param(
        pod(tol("dedicated", "user2", "NoSchedule")),
        None,
        node("nodeA", taint("dedicated", "user2", "NoSchedule")),
        QueueingHint.QUEUE,
        id="queue-on-toleratedtaint-node-added",
    ),
    pytest.param(
        pod(tol("dedicated", "user2", "NoSchedule")),
        node("nodeA", taint("dedicated", "user1", "NoSchedule")),
        node("nodeA", taint("dedicated", "user1", "NoSchedule"), taint("dedicated", "user3", "NoSchedule")),
        QueueingHint.QUEUE_SKIP,
        id="skip-unrelated-change",
    ),
    pytest.param(
        pod(tol("dedicated", "user2", "NoSchedule")),
        node("nodeA", taint("dedicated", "user1", "NoSchedule")),
        node("nodeA", taint("dedicated", "user2", "NoSchedule")),
        QueueingHint.QUEUE,
        id="queue-on-taint-change",
    ),
    pytest.param(
        pod(),
        node("nodeA"),
        node("nodeA", taint("x", "y", "NoSchedule")),
        QueueingHint.QUEUE_SKIP,
        id="skip-node-gaining-a-taint",
    ),
]


@pytest.mark.parametrize(("the_pod", "old", "new", "want"), NODE_HINT_CASES)
def test_is_schedulable_after_node_change(
    the_pod: Pod, old: Node | None, new: Node, want: QueueingHint
) -> None:
    """Requeue only when the node stops having an untolerated taint."""
    assert TaintToleration().is_schedulable_after_node_change(the_pod, old, new) == want


POD_HINT_CASES = [
    pytest.param(
        pod(uid="uid0", name="pod-1"),
        pod(uid="uid1", name="pod-2"),
        pod(tol("foo", effect="NoSchedule"), uid="uid1", name="pod-2"),
        QueueingHint.QUEUE_SKIP,
        id="skip-updates-other-pod",
    ),
    pytest.param(
        pod(name="pod-1"),
        pod(name="pod-1"),
        pod(tol("foo", effect="NoSchedule"), name="pod-1"),
        QueueingHint.QUEUE,
        id="queue-on-toleration-added",
    ),
]


@pytest.mark.parametrize(("the_pod", "old", "new", "want"), POD_HINT_CASES)
def test_is_schedulable_after_pod_toleration_change(
    the_pod: Pod, old: Pod, new: Pod, want: QueueingHint
) -> None:
    """Requeue when the rejected pod itself got new tolerations."""
    assert TaintToleration().is_schedulable_after_pod_toleration_change(the_pod, old, new) == want


@pytest.mark.parametrize(
    ("method", "old", "new", "match"),
    [
        pytest.param(
            "is_schedulable_after_node_change",
            None,
            "not-a-node",
            "expected Node, but got str",
            id="node hint, wrong new object",
        ),
        pytest.param(
            "is_schedulable_after_node_change",
            "not-a-node",
            node("a"),
            "expected Node, but got str",
            id="node hint, wrong old object",
        ),
        pytest.param(
            "is_schedulable_after_pod_toleration_change",
            None,
            "not-a-pod",
            "expected Pod, but got str",
            id="pod hint, wrong new object",
        ),
        pytest.param(
            "is_schedulable_after_pod_toleration_change",
            "not-a-pod",
            pod(),
            "expected Pod, but got str",
            id="pod hint, wrong old object",
        ),
    ],
)
def test_hints_reject_wrong_objects(method: str, old: Any, new: Any, match: str) -> None:
    """Objects of the wrong type raise (the queue then requeues the pod)."""
    with pytest.raises(TypeError, match=match):
        getattr(TaintToleration(), method)(pod(), old, new)


def test_events_to_register() -> None:
    """Node add / taint update and pod toleration update, each with its hint."""
    plugin = TaintToleration()
    node_event, pod_event = plugin.events_to_register()
    assert node_event.event.resource is EventResource.NODE
    assert node_event.event.action == ActionType.ADD | ActionType.UPDATE_NODE_TAINT
    assert node_event.hint == plugin.is_schedulable_after_node_change
    assert pod_event.event.resource is EventResource.POD
    assert pod_event.event.action == ActionType.UPDATE_POD_TOLERATION
    assert pod_event.hint == plugin.is_schedulable_after_pod_toleration_change


def test_factory_and_extensions() -> None:
    """new() ignores args; the plugin normalizes its own scores."""
    plugin = taint_toleration.new({"ignored": True}, None)  # type: ignore[arg-type]
    assert plugin.name == "TaintToleration"
    assert plugin.score_extensions() is plugin
    assert taint_toleration.ARGS_TYPE is None


@given(st.lists(st.integers(min_value=0, max_value=50), min_size=1, max_size=20))
def test_reverse_normalized_scores_stay_in_range(raw: list[int]) -> None:
    """Reverse normalization stays in [0, 100] and gives 100 to the fewest intolerable taints."""
    scores = [NodeScore(f"n{i}", s) for i, s in enumerate(raw)]
    TaintToleration().normalize_score(CycleState(), pod(), scores)
    assert all(0 <= s.score <= 100 for s in scores)
    best = min(raw)
    assert all(s.score == 100 for s, r in zip(scores, raw) if r == best and best == 0)
    assert all(s.score == 0 for s, r in zip(scores, raw) if r == max(raw) and r > 0)
