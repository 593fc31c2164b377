"""TaintToleration: a pod must tolerate a node's NoSchedule/NoExecute taints, and prefers nodes
with fewer PreferNoSchedule taints it does not tolerate.

Upstream: ``pkg/scheduler/framework/plugins/tainttoleration/taint_toleration.go``.
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

from ..api.objects import Node, Pod, Toleration
from ..cache.snapshot import Snapshot
from ..errors import StateNotFoundError
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ClusterEventWithHint, QueueingHint
from ..framework.releases import release_of
from ..framework.status import Code, Status
from . import names
from ._helpers import (
    NormalizedByHighest,
    PassThroughPreFilter,
    as_objects,
    deferred_resize_variant,
    do_not_schedule_taint,
    find_matching_untolerated_taint,
    no_args,
    node_not_found,
    nodes_of,
    own_update,
    taint_events,
    tolerations_tolerate_taint,
)
from ._run_memo import RunMemo, filter_flagged, run_without, snapshot_of

if TYPE_CHECKING:
    from ..cache.nodeinfo import NodeInfo
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        BatchFilterPlugin,
        BatchScoreExtensions,
        BatchScorePlugin,
        EnqueueExtensions,
        FilterPlugin,
        PreFilterPlugin,
        PreScorePlugin,
        ScoreExtensions,
        ScorePlugin,
    )

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_NOT_MATCH",
    "ERR_REASON_UNTOLERATED",
    "NAME",
    "TaintToleration",
    "TaintTolerationWithPreFilter",
    "new",
]

NAME: Final = names.TAINT_TOLERATION
ARGS_TYPE: Final = None

#: Filter reason for a node with a NoSchedule/NoExecute taint the pod does not tolerate.
ERR_REASON_UNTOLERATED: Final = "node(s) had untolerated taint(s)"
#: Upstream's ``ErrReasonNotMatch`` constant (exported there, not used by Filter).
ERR_REASON_NOT_MATCH: Final = "node(s) had taints that the pod didn't tolerate"

#: CycleState key: the pod's tolerations with effect PreferNoSchedule or no effect.
PRE_SCORE_STATE_KEY: Final[StateKey[tuple[Toleration, ...]]] = StateKey("PreScore" + NAME, NAME)
_taints_of: Final = attrgetter("taints")

_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_UNTOLERATED,))


def prefer_no_schedule_tolerations(tolerations: Sequence[Toleration]) -> tuple[Toleration, ...]:
    """Tolerations with effect ``PreferNoSchedule`` or no effect (which covers every effect)."""
    return tuple(t for t in tolerations if not t.effect or t.effect == "PreferNoSchedule")


def untolerated(node: Node, tolerations: Sequence[Toleration]) -> bool:
    """Whether *node* has a NoSchedule/NoExecute taint none of *tolerations* tolerates."""
    return find_matching_untolerated_taint(node.taints, tolerations, do_not_schedule_taint) is not None


class TaintToleration(NormalizedByHighest):
    """Filter + PreScore + Score plugin for taints and tolerations.

    Filter rejects nodes with an untolerated NoSchedule/NoExecute taint
    (``UNSCHEDULABLE_AND_UNRESOLVABLE``). Score counts the node's PreferNoSchedule taints the pod
    does not tolerate; NormalizeScore reverses it, so the node with the most gets 0 and nodes
    with none get 100.

    .. versionadded:: 0.1.0
    """

    #: its Filter judges a node from the pod and that node alone (framework.interfaces)
    node_local_filter: ClassVar[bool] = True

    #: Score and NormalizeScore give ints in [0, 100] by construction (no range check)
    _schedframe_scores_in_range: ClassVar[bool] = True
    #: NormalizeScore reverses: the fewest intolerable taints get 100
    _reverse_scores: ClassVar[bool] = True
    #: filter_nodes remembers results by position: handed whole runs (see framework.runtime)
    _schedframe_filters_whole_runs: ClassVar[bool] = True

    __slots__ = ("_filter_memo", "_handle", "_named_taints", "_score_memo")

    def __init__(self, handle: Handle | None = None) -> None:
        self._handle = handle
        self._filter_memo: RunMemo[Status | None] = RunMemo()
        self._score_memo: RunMemo[int] = RunMemo()
        #: up to Kubernetes 1.33 the reason names the taint: "untolerated taint {key: value}"
        self._named_taints = not release_of(handle).has("TaintTolerationGenericReason")

    @property
    def name(self) -> str:
        """``"TaintToleration"``."""
        return NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Reject a node with a NoSchedule/NoExecute taint the pod does not tolerate."""
        node = node_info.node
        if node is None:
            return node_not_found()
        if not node.taints:
            return None
        taint = find_matching_untolerated_taint(node.taints, pod.tolerations, do_not_schedule_taint)
        if taint is None:
            return None
        if self._named_taints:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          (f"node(s) had untolerated taint {{{taint.key}: {taint.value}}}",))
        return _REJECTED

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]:
        """:meth:`filter` over many nodes (:class:`~schedframe.BatchFilterPlugin`): only tainted
        or missing nodes go through :meth:`filter`."""
        # the outcome depends on the pod's tolerations and the NodeInfo only
        return filter_flagged(self.filter, state, pod, nodes, _taints_of, Snapshot.num_tainted,
                              self._filter_memo, pod.tolerations, self._handle)

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None:
        """Keep the tolerations that matter for PreferNoSchedule taints."""
        state.write(PRE_SCORE_STATE_KEY, prefer_no_schedule_tolerations(pod.tolerations))
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The number of the node's PreferNoSchedule taints the pod does not tolerate."""
        node = node_info.node
        if node is None:
            return 0, node_not_found()
        try:
            tolerations = state.read(PRE_SCORE_STATE_KEY)
        except StateNotFoundError as exc:
            return 0, Status.from_error(exc)
        count = 0
        for taint in node.taints:
            if taint.effect == "PreferNoSchedule" and not tolerations_tolerate_taint(tolerations, taint):
                count += 1
        return count, None

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status:
        """:meth:`score` of each node, in one loop (:class:`~schedframe.BatchScorePlugin`)."""
        tolerations = state.get(PRE_SCORE_STATE_KEY)
        if tolerations is None or not nodes:
            return self._score_each(state, nodes, tolerations)
        lister = snapshot_of(self._handle)
        if run_without(lister, nodes, Snapshot.num_tainted):
            return [0] * len(nodes)  # a run of a snapshot without tainted nodes
        # the score depends on the tolerations and the NodeInfo only
        try:
            return self._score_memo.values(tolerations, lister, nodes,
                                           lambda some: _checked(self._score_each(state, some, tolerations)))
        except _NodeGone:
            return node_not_found()

    @staticmethod
    def _score_each(state: CycleState, nodes: Sequence[NodeInfo],
                    tolerations: tuple[Toleration, ...] | None) -> list[int] | Status:
        # as node by node: a first node gone, then the state, then any node gone; the nodes
        # without taints (most) read at C speed, the others one by one
        if not nodes:
            return []
        node_objects = nodes_of(nodes)
        if tolerations is None:
            if node_objects[0] is None:
                return node_not_found()
            try:
                tolerations = state.read(PRE_SCORE_STATE_KEY)
            except StateNotFoundError as exc:
                return Status.from_error(exc)
        if not all(node_objects):  # a Node is always true
            return node_not_found()
        taints = list(map(_taints_of, node_objects))
        out = [0] * len(taints)
        for i in compress(range(len(taints)), taints):
            count = 0
            for taint in taints[i]:
                if taint.effect == "PreferNoSchedule" and not tolerations_tolerate_taint(tolerations, taint):
                    count += 1
            out[i] = count
        return out

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Node added or its taints changed; the pod's tolerations changed."""
        return taint_events(self.is_schedulable_after_node_change,
                            self.is_schedulable_after_pod_toleration_change)

    def is_schedulable_after_node_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the node went from having an untolerated taint (or not existing) to not."""
        original, modified = as_objects(Node, old_obj, new_obj)
        if modified is None:
            return QueueingHint.QUEUE_SKIP
        was_untolerated = original is None or untolerated(original, pod.tolerations)
        if was_untolerated and not untolerated(modified, pod.tolerations):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_toleration_change(self, pod: Pod, old_obj: Any,
                                                   new_obj: Any) -> QueueingHint:
        """QUEUE when the updated pod is *pod* itself."""
        if own_update(pod, old_obj, new_obj) is None:
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


class _NodeGone(Exception):
    """A node to score had no node object (reported as :func:`node_not_found`)."""


def _checked(scores: list[int] | Status) -> list[int]:
    if isinstance(scores, Status):
        raise _NodeGone
    return scores


@final
class TaintTolerationWithPreFilter(PassThroughPreFilter, TaintToleration):
    """TaintToleration as Kubernetes 1.37 has it, with a PreFilter (:class:`PassThroughPreFilter`).

    .. versionadded:: 0.1.0
    """

    __slots__ = ()


def new(args: object, handle: Handle) -> TaintToleration:
    """Create the plugin (no args); :class:`TaintTolerationWithPreFilter` from Kubernetes 1.37."""
    no_args(args)
    return deferred_resize_variant(handle, TaintToleration, TaintTolerationWithPreFilter)(handle)


if TYPE_CHECKING:
    _filter: FilterPlugin = TaintToleration()
    _batch_filter: BatchFilterPlugin = TaintToleration()
    _pre_score: PreScorePlugin = TaintToleration()
    _score: ScorePlugin = TaintToleration()
    _score_ext: ScoreExtensions = TaintToleration()
    _batch_score: BatchScorePlugin = TaintToleration()
    _batch_score_ext: BatchScoreExtensions = TaintToleration()
    _enqueue: EnqueueExtensions = TaintToleration()
    _pre_filter: PreFilterPlugin = TaintTolerationWithPreFilter()
