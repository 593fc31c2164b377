"""NodeName: cases ported from upstream ``nodename/node_name_test.go``."""

from __future__ import annotations

import pytest

from schedframe import Code, CycleState, Node, Pod, Status
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.framework.events import ActionType, EventResource
from schedframe.framework.interfaces import PreFilterPlugin
from schedframe.plugins import node_name
from schedframe.plugins.node_name import ERR_REASON, NodeName, NodeNameWithPreFilter
from schedframe.testing import PluginHarness, make_node, make_pod


@pytest.mark.parametrize(
    ("pod", "node", "want"),
    [
        pytest.param(Pod("p"), Node(""), None, id="no host specified"),
        pytest.param(make_pod().node("foo").obj(), make_node("foo").obj(), None, id="host matches"),
        pytest.param(
            make_pod().node("bar").obj(),
            make_node("foo").obj(),
            Status.unresolvable(ERR_REASON),
            id="host doesn't match",
        ),
    ],
)
def test_filter(pod: Pod, node: Node, want: Status | None) -> None:
    """Filter statuses, as upstream TestNodeName."""
    assert NodeName().filter(CycleState(), pod, NodeInfo(node)) == want


def test_no_pre_filter_up_to_1_36() -> None:
    """Up to Kubernetes 1.36 NodeName is Filter-only, as upstream: no PreFilter narrows the
    nodes; from 1.37 it has one."""
    assert not hasattr(NodeName(), "pre_filter")
    assert not isinstance(NodeName(), PreFilterPlugin)
    assert isinstance(NodeNameWithPreFilter(), PreFilterPlugin)


def test_filter_through_framework_1_36() -> None:
    """Up to 1.36, every node other than the named one gets NodeName's own Filter reason."""
    h = PluginHarness("NodeName", nodes=[make_node("foo").obj(), make_node("bar").obj()],
                      kubernetes_version="1.36")
    assert h.filter(make_pod().node("foo").obj()) == {"foo": Status.OK,
                                                     "bar": Status.unresolvable(ERR_REASON)}
    assert h.filter(Pod("p")) == {"foo": Status.OK, "bar": Status.OK}


def test_pre_filter_narrows_to_the_named_node_from_1_37() -> None:
    """From 1.37 the PreFilter narrows a pod naming a node to it: the other nodes get the
    framework's "didn't satisfy plugin(s)" reason without being filtered; a pod naming none
    fits everywhere."""
    h = PluginHarness("NodeName", nodes=[make_node("foo").obj(), make_node("bar").obj()])
    assert h.filter(make_pod().node("foo").obj()) == {
        "foo": Status.OK, "bar": Status.unresolvable("node(s) didn't satisfy plugin(s) [NodeName]")}
    assert h.filter(Pod("p")) == {"foo": Status.OK, "bar": Status.OK}


def test_missing_node_is_an_error() -> None:
    """A NodeInfo without its node object is an ERROR for a pod naming a node."""
    assert NodeName().filter(CycleState(), Pod("p"), NodeInfo()) is None
    assert NodeName().filter_nodes(CycleState(), Pod("p"), [NodeInfo()]) == []
    assert NodeName().filter_nodes(CycleState(), Pod("p", node_name="a"), [NodeInfo()]) == [
        (0, NodeName().filter(CycleState(), Pod("p", node_name="a"), NodeInfo()))]
    status = NodeName().filter(CycleState(), Pod("p", node_name="a"), NodeInfo())
    assert status is not None
    assert status.code is Code.ERROR


def test_fits() -> None:
    """``fits`` is the Filter predicate."""
    assert node_name.fits(Pod("p"), NodeInfo(Node("a")))
    assert not node_name.fits(Pod("p", node_name="b"), NodeInfo(Node("a")))


def test_events_to_register() -> None:
    """Node add, without a hint."""
    plugin = node_name.new(None, None)  # type: ignore[arg-type]
    (event,) = plugin.events_to_register()
    assert event.event.resource is EventResource.NODE
    assert event.event.action == ActionType.ADD
    assert event.hint is None
    assert plugin.name == "NodeName"
