"""NodePorts: cases ported from upstream ``nodeports/node_ports_test.go``."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Code, CycleState, Node, Pod, Status
from schedframe.api.objects import Container, ContainerPort
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.plugins import node_ports
from schedframe.plugins._helpers import get_host_ports
from schedframe.plugins.node_ports import ERR_REASON, NodePorts
from schedframe.testing import PluginHarness, make_pod

CONFLICT = Status.unschedulable(ERR_REASON)


def port_pod(node: str, *specs: str, name: str = "pod") -> Pod:
    """A pod with one container claiming host ports given as ``PROTO/IP/PORT``."""
    ports = []
    for spec in specs:
        proto, ip, port = spec.split("/")
        ports.append(ContainerPort(container_port=int(port), host_port=int(port), host_ip=ip, protocol=proto))
    return Pod(name, node_name=node, containers=(Container(ports=tuple(ports)),))


FILTER_CASES = [
    pytest.param(port_pod("m1", "UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/9090",), Status.OK, id="other port"),
    pytest.param(port_pod("m1", "UDP/127.0.0.1/8080"), ("UDP/127.0.0.1/8080",), CONFLICT, id="same udp port"),
    pytest.param(port_pod("m1", "TCP/127.0.0.1/8080"), ("TCP/127.0.0.1/8080",), CONFLICT, id="same tcp port"),
    pytest.param(
        port_pod("m1", "TCP/127.0.0.1/8080"), ("TCP/127.0.0.2/8080",), Status.OK, id="different host ip"
    ),
    pytest.param(
        port_pod("m1", "UDP/127.0.0.1/8080"), ("TCP/127.0.0.1/8080",), Status.OK, id="different protocol"
    ),
    pytest.param(
        port_pod("m1", "UDP/127.0.0.1/8000", "UDP/127.0.0.1/8080"),
        ("UDP/127.0.0.1/8080",),
        CONFLICT,
        id="second udp port conflict",
    ),
    pytest.param(
        port_pod("m1", "TCP/127.0.0.1/8001", "UDP/127.0.0.1/8080"),
        ("TCP/127.0.0.1/8001", "UDP/127.0.0.1/8081"),
        CONFLICT,
        id="first tcp port conflict",
    ),
    pytest.param(
        port_pod("m1", "TCP/0.0.0.0/8001"),
        ("TCP/127.0.0.1/8001",),
        CONFLICT,
        id="first tcp port conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        port_pod("m1", "TCP/10.0.10.10/8001", "TCP/0.0.0.0/8001"),
        ("TCP/127.0.0.1/8001",),
        CONFLICT,
        id="TCP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        port_pod("m1", "TCP/127.0.0.1/8001"),
        ("TCP/0.0.0.0/8001",),
        CONFLICT,
        id="second tcp port conflict to 0.0.0.0 hostIP",
    ),
    pytest.param(
        port_pod("m1", "UDP/127.0.0.1/8001"), ("TCP/0.0.0.0/8001",), Status.OK, id="second different protocol"
    ),
    pytest.param(
        port_pod("m1", "UDP/127.0.0.1/8001"),
        ("TCP/0.0.0.0/8001", "UDP/0.0.0.0/8001"),
        CONFLICT,
        id="UDP hostPort conflict due to 0.0.0.0 hostIP",
    ),
    pytest.param(
        port_pod("m1", "TCP//8001"), ("TCP/127.0.0.1/8001",), CONFLICT, id="empty hostIP means 0.0.0.0"
    ),
]


@pytest.mark.parametrize(("pod", "existing", "want"), FILTER_CASES)
def test_filter(pod: Pod, existing: tuple[str, ...], want: Status) -> None:
    """PreFilter then Filter against a node running a pod with *existing* ports, as upstream TestNodePorts."""
    h = PluginHarness("NodePorts", nodes=[Node("m1")], pods=[port_pod("m1", *existing, name="existing")])
    assert h.filter(pod) == {"m1": want}


def test_pre_filter_skips_pod_without_host_ports() -> None:
    """A pod without host ports makes PreFilter return SKIP."""
    pod = make_pod().container(ports=[ContainerPort(container_port=80)]).obj()
    h = PluginHarness("NodePorts", nodes=[Node("m1")])
    assert h.pre_filter(pod) == (None, Status.skip())
    assert h.filter(pod) == {"m1": Status.OK}


def test_filter_without_pre_filter_is_an_error() -> None:
    """Filter needs the PreFilter state, like upstream TestPreFilterDisabled."""
    status = NodePorts().filter(CycleState(), Pod("p"), NodeInfo(Node("n")))
    assert status is not None
    assert status.code is Code.ERROR
    assert "PreFilterNodePorts" in status.message


def test_sidecar_ports_count_regular_init_ports_do_not() -> None:
    """Host ports of restartable init containers count; those of regular init containers do not."""
    sidecar = Container(name="s", restart_policy="Always", ports=(ContainerPort(9000, 9000),))
    init = Container(name="i", ports=(ContainerPort(9001, 9001),))
    main = Container(name="m", ports=(ContainerPort(8000, 8000), ContainerPort(80)))
    pod = Pod("p", init_containers=(init, sidecar), containers=(main,))
    assert [p.host_port for p in get_host_ports(pod)] == [9000, 8000]


def test_host_ports_of_several_containers() -> None:
    """Every container's host ports are collected, in order (upstream TestGetContainerPorts)."""
    pod = Pod(
        "p",
        containers=(
            Container(name="a", ports=(ContainerPort(8001, 8001), ContainerPort(8002, 8002))),
            Container(name="b", ports=(ContainerPort(8003, 8003), ContainerPort(8004, 8004))),
            Container(name="c", ports=(ContainerPort(8005),)),
        ),
    )
    assert [p.host_port for p in get_host_ports(pod)] == [8001, 8002, 8003, 8004]


POD_WITH_8080 = make_pod().host_port(8080).obj()

HINT_CASES = [
    pytest.param(make_pod("other").obj(), QueueingHint.QUEUE_SKIP, id="skip-queue-on-unscheduled"),
    pytest.param(
        make_pod("other").node("fake-node").obj(), QueueingHint.QUEUE_SKIP, id="skip-queue-on-non-hostport"
    ),
    pytest.param(
        make_pod("other").node("fake-node").host_port(8081).obj(),
        QueueingHint.QUEUE_SKIP,
        id="skip-queue-on-unrelated-hostport",
    ),
    pytest.param(
        make_pod("other").node("fake-node").host_port(8080).obj(),
        QueueingHint.QUEUE,
        id="queue-on-released-hostport",
    ),
    pytest.param(
        make_pod("other").nominated_node_name("fake-node").host_port(8080).obj(),
        QueueingHint.QUEUE,
        id="queue-on-nominated-pod-releasing-hostport",
    ),
]


@pytest.mark.parametrize(("deleted", "want"), HINT_CASES)
def test_is_schedulable_after_pod_deleted(deleted: Pod, want: QueueingHint) -> None:
    """Requeue only when the deleted pod held a port the pod wants."""
    assert NodePorts().is_schedulable_after_pod_deleted(POD_WITH_8080, deleted, None) == want


def test_hint_rejects_wrong_object() -> None:
    """A deleted object that is not a pod raises (the queue then requeues)."""
    bad: Any = "not-a-pod"
    with pytest.raises(TypeError, match="expected Pod, but got str"):
        NodePorts().is_schedulable_after_pod_deleted(POD_WITH_8080, bad, None)


def test_events_to_register() -> None:
    """Pod delete (hinted) and node add (always)."""
    plugin = node_ports.new(None, None)  # type: ignore[arg-type]
    pod_event, node_event = plugin.events_to_register()
    assert pod_event.event.resource is EventResource.POD
    assert pod_event.event.action == ActionType.DELETE
    assert pod_event.hint == plugin.is_schedulable_after_pod_deleted
    assert node_event.event.resource is EventResource.NODE
    assert node_event.event.action == ActionType.ADD
    assert node_event.hint is None
    assert plugin.pre_filter_extensions() is None
    assert plugin.name == "NodePorts"


def test_fits() -> None:
    """``fits`` checks a pod against a node's used ports."""
    info = NodeInfo(Node("n"), [port_pod("n", "TCP/0.0.0.0/80", name="x")])
    assert not node_ports.fits(port_pod("", "TCP/1.2.3.4/80"), info)
    assert node_ports.fits(port_pod("", "TCP/1.2.3.4/81"), info)
