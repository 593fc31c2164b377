"""NodeName: a pod with ``spec.nodeName`` fits only that node.

Upstream: ``pkg/scheduler/framework/plugins/nodename/node_name.go``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, ClassVar, Final, final

from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from ..framework.interfaces import PreFilterResult
from ..framework.status import Code, Status
from . import names
from ._helpers import deferred_resize_variant, no_args, node_not_found

if TYPE_CHECKING:
    from ..api.objects import Pod
    from ..cache.nodeinfo import NodeInfo
    from ..framework.cycle_state import CycleState
    from ..framework.handle import Handle
    from ..framework.interfaces import BatchFilterPlugin, EnqueueExtensions, FilterPlugin, PreFilterPlugin

__all__ = ["ARGS_TYPE", "ERR_REASON", "NAME", "NodeName", "NodeNameWithPreFilter", "fits", "new"]

NAME: Final = names.NODE_NAME
ARGS_TYPE: Final = None

#: Filter reason when the node is not the one the pod names.
ERR_REASON: Final = "node(s) didn't match the requested node name"

_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,))


def fits(pod: Pod, node_info: NodeInfo) -> bool:
    """True when the pod names no node or names this one (upstream ``nodename.Fits``)."""
    return not pod.node_name or pod.node_name == node_info.name


class NodeName:
    """Filter plugin for ``spec.nodeName``.

    Up to Kubernetes 1.36, as upstream, NodeName is Filter-only: a pod naming a node is filtered
    on every node, and every other node gets this plugin's own reason (:data:`ERR_REASON`) with
    ``UNSCHEDULABLE_AND_UNRESOLVABLE``. From 1.37 on it is :class:`NodeNameWithPreFilter`.

    .. versionadded:: 0.1.0
    """

    #: its Filter judges a node from the pod and that node alone (framework.interfaces)
    node_local_filter: ClassVar[bool] = True

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


@final
class NodeNameWithPreFilter(NodeName):
    """NodeName as Kubernetes 1.37 has it: its PreFilter narrows a pod that names a node to that
    node (the other nodes get upstream's "didn't satisfy plugin(s) [NodeName]" without being
    filtered). Only a pod that is already assigned is ever scheduled with ``spec.nodeName`` set
    (a deferred resize), so for pending pods nothing changes.

    .. versionadded:: 0.1.0
    """

    __slots__ = ()

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """``PreFilterResult({spec.nodeName})`` for a pod naming a node, else all nodes."""
        if pod.node_name:
            return PreFilterResult(frozenset({pod.node_name})), None
        return None, None

    def pre_filter_extensions(self) -> None:
        """None."""
        return None


def new(args: object, handle: Handle) -> NodeName:
    """Create the plugin (it takes no args): :class:`NodeNameWithPreFilter` from Kubernetes 1.37."""
    no_args(args)
    return deferred_resize_variant(handle, NodeName, NodeNameWithPreFilter)()


if TYPE_CHECKING:
    _filter: FilterPlugin = NodeName()
    _batch_filter: BatchFilterPlugin = NodeName()
    _enqueue: EnqueueExtensions = NodeName()
    _pre_filter: PreFilterPlugin = NodeNameWithPreFilter()
