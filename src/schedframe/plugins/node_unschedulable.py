"""NodeUnschedulable: filters out cordoned nodes (``spec.unschedulable``) unless the pod
tolerates the ``node.kubernetes.io/unschedulable:NoSchedule`` taint.

Upstream: ``pkg/scheduler/framework/plugins/nodeunschedulable/node_unschedulable.go``.
"""

from __future__ import annotations

from collections.abc import Sequence
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from ..api.objects import Node, Pod, Taint
from ..cache.snapshot import Snapshot
from ..framework.events import ClusterEventWithHint, QueueingHint
from ..framework.status import Code, Status
from . import names
from ._helpers import (
    PassThroughPreFilter,
    as_objects,
    deferred_resize_variant,
    no_args,
    node_not_found,
    own_update,
    taint_events,
    tolerations_tolerate_taint,
)
from ._run_memo import RunMemo, filter_flagged

if TYPE_CHECKING:
    from ..cache.nodeinfo import NodeInfo
    from ..framework.cycle_state import CycleState
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        BatchFilterPlugin,
        EnqueueExtensions,
        FilterPlugin,
        PreFilterPlugin,
    )

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_UNKNOWN_CONDITION",
    "ERR_REASON_UNSCHEDULABLE",
    "NAME",
    "NodeUnschedulable",
    "NodeUnschedulableWithPreFilter",
    "TAINT_NODE_UNSCHEDULABLE",
    "new",
]

NAME: Final = names.NODE_UNSCHEDULABLE
ARGS_TYPE: Final = None

#: Filter reason for a cordoned node.
ERR_REASON_UNSCHEDULABLE: Final = "node(s) were unschedulable"
#: Upstream's reason constant for the old NodeUnknownCondition predicate (kept for parity).
ERR_REASON_UNKNOWN_CONDITION: Final = "node(s) had unknown conditions"
#: The taint key the node lifecycle controller puts on cordoned nodes.
TAINT_NODE_UNSCHEDULABLE: Final = "node.kubernetes.io/unschedulable"

_UNSCHEDULABLE_TAINT: Final = Taint(TAINT_NODE_UNSCHEDULABLE, "NoSchedule")
_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNSCHEDULABLE,))
_unschedulable: Final = attrgetter("unschedulable")


def tolerates_unschedulable(pod: Pod) -> bool:
    """Whether *pod* tolerates ``node.kubernetes.io/unschedulable:NoSchedule``."""
    return bool(pod.tolerations) and tolerations_tolerate_taint(pod.tolerations, _UNSCHEDULABLE_TAINT)


class NodeUnschedulable:
    """Filter plugin rejecting cordoned nodes (``UNSCHEDULABLE_AND_UNRESOLVABLE``: preemption
    cannot uncordon a node).

    .. versionadded:: 0.1.0
    """

    #: its Filter judges a node from the pod and that node alone (framework.interfaces)
    node_local_filter: ClassVar[bool] = True

    #: filter_nodes remembers results by position: handed whole runs (see framework.runtime)
    _schedframe_filters_whole_runs: ClassVar[bool] = True

    __slots__ = ("_handle", "_memo")

    def __init__(self, handle: Handle | None = None) -> None:
        self._handle = handle
        self._memo: RunMemo[Status | None] = RunMemo()

    @property
    def name(self) -> str:
        """``"NodeUnschedulable"``."""
        return NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject a cordoned node unless the pod tolerates the unschedulable taint."""
        node = node_info.node
        if node is None:
            return node_not_found()
        if not node.unschedulable or tolerates_unschedulable(pod):
            return None
        return _REJECTED

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`): only cordoned
        or missing nodes go through :meth:`filter`."""
        # the outcome depends on the NodeInfo and on whether the pod tolerates cordoned nodes only
        return filter_flagged(self.filter, state, pod, nodes, _unschedulable, Snapshot.num_unschedulable,
                              self._memo, tolerates_unschedulable(pod), self._handle)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Node added or uncordoned; the pod gaining a toleration."""
        return taint_events(self.is_schedulable_after_node_change,
                            self.is_schedulable_after_pod_toleration_change)

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when a schedulable node was added or a node was uncordoned."""
        original, modified = as_objects(Node, old_obj, new_obj)
        if modified is None:
            return QueueingHint.QUEUE_SKIP
        if original is None:
            return QueueingHint.QUEUE_SKIP if modified.unschedulable else QueueingHint.QUEUE
        if original.unschedulable and not modified.unschedulable:
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(self, pod: Pod, old_obj: Any,
                                                   new_obj: Any) -> QueueingHint:
        """QUEUE when *pod* itself now tolerates the unschedulable taint."""
        modified = own_update(pod, old_obj, new_obj)
        if modified is None:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE if tolerates_unschedulable(modified) else QueueingHint.QUEUE_SKIP


@final
class NodeUnschedulableWithPreFilter(PassThroughPreFilter, NodeUnschedulable):
    """NodeUnschedulable as Kubernetes 1.37 has it, with a PreFilter (:class:`PassThroughPreFilter`).

    .. versionadded:: 0.1.0
    """

    __slots__ = ()


def new(args: object, handle: Handle) -> NodeUnschedulable:
    """Create the plugin (no args); :class:`NodeUnschedulableWithPreFilter` from Kubernetes 1.37."""
    no_args(args)
    return deferred_resize_variant(handle, NodeUnschedulable, NodeUnschedulableWithPreFilter)(handle)


if TYPE_CHECKING:
    _filter: FilterPlugin = NodeUnschedulable()
    _batch_filter: BatchFilterPlugin = NodeUnschedulable()
    _enqueue: EnqueueExtensions = NodeUnschedulable()
    _pre_filter: PreFilterPlugin = NodeUnschedulableWithPreFilter()
