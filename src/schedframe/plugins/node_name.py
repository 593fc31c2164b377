"""NodeName: a pod with ``spec.nodeName`` fits only that node.

Upstream: ``pkg/scheduler/framework/plugins/nodename/node_name.go``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Final, final

from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from ..framework.status import Code, Status
from . import names
from ._helpers import no_args, node_not_found

if TYPE_CHECKING:
    from ..api.objects import Pod
    from ..cache.nodeinfo import NodeInfo
    from ..framework.cycle_state import CycleState
    from ..framework.handle import Handle
    from ..framework.interfaces import BatchFilterPlugin, EnqueueExtensions, FilterPlugin

__all__ = ["ARGS_TYPE", "ERR_REASON", "NAME", "NodeName", "fits", "new"]

NAME: Final = names.NODE_NAME
ARGS_TYPE: Final = None

#: Filter reason when the node is not the one the pod names.
ERR_REASON: Final = "node(s) didn't match the requested node name"

_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,))


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """True when the pod names no node or names this one (upstream ``nodename.Fits``)."""
    return not pod.node_name or pod.node_name == node_info.name


@final
class NodeName:
    """Filter plugin for ``spec.nodeName``.

    As upstream, NodeName is Filter-only: a pod naming a node is filtered on every node, and
    every other node gets this plugin's own reason (:data:`ERR_REASON`) with
    ``UNSCHEDULABLE_AND_UNRESOLVABLE``.

    .. versionadded:: 0.1.0
    """

    __slots__ = ()

    @property
    def name(self) -> str:
        """``"NodeName"``."""
        return NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject nodes other than the one the pod names (a pod naming none fits everywhere)."""
        if not pod.node_name:
            return None
        if node_info.node is None:
            return node_not_found()
        if pod.node_name == node_info.name:
            return None
        return _REJECTED

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`); a pod naming
        no node passes everywhere at the cost of one check."""
        want = pod.node_name
        if not want:
            return []
        out: list[tuple[int, Status]] = []
        for i, ni in enumerate(nodes):
            if ni.node is None:
                out.append((i, node_not_found()))
            elif ni.name != want:
                out.append((i, _REJECTED))
        return out

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Node added (no hint: always requeue)."""
        return (ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),)


def new(args: object, handle: Handle) -> NodeName:
    """Create the plugin (it takes no args)."""
    no_args(args)
    return NodeName()


if TYPE_CHECKING:
    _filter: FilterPlugin = NodeName()
    _batch_filter: BatchFilterPlugin = NodeName()
    _enqueue: EnqueueExtensions = NodeName()
