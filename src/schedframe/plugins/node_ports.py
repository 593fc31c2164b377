"""NodePorts: the pod's host ports must be free on the node.

Upstream: ``pkg/scheduler/framework/plugins/nodeports/node_ports.go``.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from ..api.objects import ContainerPort, Pod
from ..cache.nodeinfo import HostPortInfo
from ..errors import StateNotFoundError
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.status import Code, Status
from . import names
from ._helpers import as_objects, get_host_ports, no_args

if TYPE_CHECKING:
    from ..cache.nodeinfo import NodeInfo
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        EnqueueExtensions,
        FilterPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreFilterResult,
    )

__all__ = ["ARGS_TYPE", "ERR_REASON", "NAME", "NodePorts", "fits", "fits_ports", "new"]

NAME: Final = names.NODE_PORTS
ARGS_TYPE: Final = None

#: Filter reason when a wanted host port is taken.
ERR_REASON: Final = "node(s) didn't have free ports for the requested pod ports"

#: CycleState key: the pod's host ports (a tuple of :class:`~schedframe.api.ContainerPort`).
PRE_FILTER_STATE_KEY: Final[StateKey[tuple[ContainerPort, ...]]] = StateKey("PreFilter" + NAME, NAME)

_REJECTED: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON,))


def fits_ports(wanted: Iterable[ContainerPort], in_use: HostPortInfo) -> bool:
    """True when none of *wanted* conflicts with *in_use*."""
    for p in wanted:
        if in_use.check_conflict(p.host_ip, p.protocol, p.host_port):
            return False
    return True


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """True when the pod's host ports are free on the node (upstream ``nodeports.Fits``)."""
    return fits_ports(get_host_ports(pod), node_info.used_ports)


@final
class NodePorts:
    """PreFilter + Filter plugin for host ports.

    PreFilter collects the pod's host ports (``SKIP`` when it has none); Filter rejects a node
    where one of them is in use with ``UNSCHEDULABLE`` (preemption may free it). A port on
    ``0.0.0.0`` conflicts with the same protocol and port on any IP.

    .. versionadded:: 0.1.0
    """

    #: its Filter judges a node from the pod and that node alone (framework.interfaces)
    node_local_filter: ClassVar[bool] = True

    __slots__ = ()

    @property
    def name(self) -> str:
        """``"NodePorts"``."""
        return NAME

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Store the pod's host ports; skip when it has none."""
        ports = get_host_ports(pod)
        if not ports:
            return None, Status.skip()
        state.write(PRE_FILTER_STATE_KEY, ports)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None: the state does not depend on other pods."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject the node when a wanted host port is taken."""
        try:
            wanted = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        in_use = node_info.used_ports
        for p in wanted:
            if in_use.check_conflict(p.host_ip, p.protocol, p.host_port):
                return _REJECTED
        return None

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`), the wanted
        ports read once."""
        try:
            wanted = state.read(PRE_FILTER_STATE_KEY)
        except StateNotFoundError as exc:
            return [(i, Status.from_error(exc)) for i in range(len(nodes))]
        out: list[tuple[int, Status]] = []
        for i, ni in enumerate(nodes):
            in_use = ni.used_ports
            for p in wanted:
                if in_use.check_conflict(p.host_ip, p.protocol, p.host_port):
                    out.append((i, _REJECTED))
                    break
        return out

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A pod deleted (hinted), a node added (always requeue)."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE),
                                 self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
        )

    def is_schedulable_after_pod_deleted(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the deleted pod was (or was being) placed and held a port *pod* wants."""
        deleted, _ = as_objects(Pod, old_obj, None)
        if deleted is None or (not deleted.node_name and not deleted.nominated_node_name):
            return QueueingHint.QUEUE_SKIP
        ports = get_host_ports(deleted)
        if not ports:
            return QueueingHint.QUEUE_SKIP
        in_use = HostPortInfo()
        for p in ports:
            in_use.add(p.host_ip, p.protocol, p.host_port)
        if fits_ports(get_host_ports(pod), in_use):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def new(args: object, handle: Handle) -> NodePorts:
    """Create the plugin (it takes no args)."""
    no_args(args)
    return NodePorts()


if TYPE_CHECKING:
    _pre_filter: PreFilterPlugin = NodePorts()
    _filter: FilterPlugin = NodePorts()
    _enqueue: EnqueueExtensions = NodePorts()
