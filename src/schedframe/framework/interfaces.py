"""The extension-point interfaces: one Protocol per point and the result types they use.

Plugin (base), PreEnqueue and EnqueueExtensions; QueueSort; PreFilter, Filter and PostFilter;
PreScore, Score and NormalizeScore; Reserve/Unreserve; Permit; PreBind, Bind and PostBind.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Protocol, final, runtime_checkable

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo, PodInfo
from .cycle_state import CycleState
from .events import ClusterEventWithHint
from .status import Code, Status

__all__ = [
    "BatchFilterPlugin",
    "BatchScoreExtensions",
    "BatchScorePlugin",
    "BindPlugin",
    "EnqueueExtensions",
    "FilterPlugin",
    "MAX_NODE_SCORE",
    "MAX_PERMIT_TIMEOUT",
    "MIN_NODE_SCORE",
    "NODE_LOCAL_FILTER",
    "NodePluginScores",
    "NodeScore",
    "NodeToStatus",
    "NominatingInfo",
    "NominatingMode",
    "PermitPlugin",
    "Plugin",
    "PluginScore",
    "PostBindPlugin",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreBindPlugin",
    "PreEnqueuePlugin",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
    "PreScorePlugin",
    "QueueSortPlugin",
    "QueuedPodInfo",
    "ReservePlugin",
    "StatefulPlugin",
    "ScoreExtensions",
    "ScorePlugin",
    "WaitingPod",
    "is_node_local_filter",
]


@runtime_checkable
class Plugin(Protocol):
    """Every plugin has a ``name``, unique within a profile."""

    @property
    def name(self) -> str: ...


#: The capability a Filter plugin declares (a class attribute ``node_local_filter = True``) when
#: its verdict on a node depends only on the pod, the plugin's arguments and that node's
#: NodeInfo: not on other nodes, the cluster's objects, the clock or state it keeps between
#: cycles. The framework then remembers verdicts per pod shape and node (preemption's dry runs,
#: the Filter run with nominated pods); a plugin that declares it wrongly gets stale verdicts.
NODE_LOCAL_FILTER: Final = "node_local_filter"


def is_node_local_filter(plugin: object) -> bool:
    """Whether *plugin* declares :data:`NODE_LOCAL_FILTER` (``True``, not merely truthy)."""
    return getattr(type(plugin), NODE_LOCAL_FILTER, False) is True


@runtime_checkable
class PreEnqueuePlugin(Plugin, Protocol):
    """Runs before a pod enters the active queue.

    Return success (``None``) to let the pod in; any other status keeps it out of the queue
    (gated) until an event moves it. Must be cheap: it runs on every enqueue attempt.
    """

    def pre_enqueue(self, pod: Pod) -> Status | None: ...


@runtime_checkable
class EnqueueExtensions(Plugin, Protocol):
    """Plugins that reject pods say which cluster events may make those pods schedulable.

    The queue moves a pod rejected by this plugin back to activeQ/backoffQ only on these
    events, and only when the event's hint function (if any) returns ``QUEUE``.
    """

    def events_to_register(self) -> Sequence[ClusterEventWithHint]: ...


def _node_names(value: Iterable[str] | None) -> frozenset[str] | None:
    return None if value is None else frozenset(value)


@final
@attrs.frozen
class PreFilterResult:
    """Narrows the nodes a pod is evaluated on.

    ``node_names=None`` means all nodes are eligible; a set means only those nodes. Results of
    several plugins intersect.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    node_names: frozenset[str] | None = attrs.field(default=None, converter=_node_names)

    def all_nodes(self) -> bool:
        """True when every node is eligible."""
        return self.node_names is None

    def merge(self, other: PreFilterResult | None) -> PreFilterResult:
        """The intersection of two results (``None`` / all-nodes are neutral)."""
        if other is None or other.node_names is None:
            return self
        if self.node_names is None:
            return other
        return PreFilterResult(self.node_names & other.node_names)


@runtime_checkable
class PreFilterExtensions(Protocol):
    """Incremental updates of a plugin's PreFilter state when the framework evaluates "what if
    this pod were (not) on the node" -- for nominated pods and preemption.

    ``add_pod`` / ``remove_pod`` must update only the state passed in (a clone) and be cheap.
    """

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None: ...

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None: ...


@runtime_checkable
class PreFilterPlugin(Plugin, Protocol):
    """Runs once per pod and cycle, before Filter.

    Compute per-pod data here and write it to the :class:`~schedframe.CycleState`. Return ``SKIP`` when the
    plugin has nothing to check for this pod (its Filter is then not called), ``UNSCHEDULABLE``
    or ``UNSCHEDULABLE_AND_UNRESOLVABLE`` to reject the pod on every node, and optionally a
    :class:`~schedframe.PreFilterResult` restricting the nodes to evaluate.
    """

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]: ...

    def pre_filter_extensions(self) -> PreFilterExtensions | None: ...


@runtime_checkable
class FilterPlugin(Plugin, Protocol):
    """Decides whether the pod can run on one node.

    Return success (``None``), ``UNSCHEDULABLE`` (preemption may help),
    ``UNSCHEDULABLE_AND_UNRESOLVABLE`` (it won't) or ``ERROR``. Called for many nodes per pod:
    keep it to a few lookups of state computed in PreFilter.
    """

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None: ...


@runtime_checkable
class BatchFilterPlugin(FilterPlugin, Protocol):
    """A :class:`~schedframe.FilterPlugin` that can also filter many nodes in one call (optional).

    The framework hands each Filter plugin that has ``filter_nodes`` runs of nodes instead of
    calling ``filter`` once per node and plugin: the loop runs inside the plugin, with its
    per-pod state read once. A plugin with ``filter`` only takes part in the same search (the
    framework loops over the run for it), so it needs no ``filter_nodes`` of its own. ``filter``
    stays the reference; ``filter_nodes`` must agree with it exactly.

    Contract of ``filter_nodes(state, pod, nodes)``:

    * Return the nodes ``filter`` would not pass, as ``(index into nodes, status)`` pairs, where
      *status* is what ``filter`` returns for that node; an empty list when all pass. Nodes left
      out passed.
    * Have no side effects, like ``filter``: the framework may filter nodes past the point where
      a node-by-node search would have stopped, and drops those results. It calls the plugin
      only with nodes the earlier plugins passed (schedframe's own plugins that remember results
      by position declare that they take whole runs instead: they also see the nodes an earlier
      plugin rejected, and for each node only the first rejection in plugin order counts).
    * Do not keep or modify *nodes*.

    If ``filter_nodes`` raises or returns something malformed, the framework logs it and filters
    those nodes one by one with ``filter`` (whose exceptions become ERROR statuses as usual).

    .. versionadded:: 0.1.0
    """

    def filter_nodes(self, state: CycleState, pod: Pod,
                     nodes: Sequence[NodeInfo]) -> list[tuple[int, Status]]: ...


@final
class NominatingMode:
    """How a PostFilter result nominates a node."""

    NOOP: Final = 0
    OVERRIDE: Final = 1


@final
@attrs.frozen
class NominatingInfo:
    """The node a PostFilter plugin nominates the pod to."""

    __module__ = "schedframe"

    nominated_node_name: str = ""
    mode: int = NominatingMode.OVERRIDE


@final
@attrs.frozen
class PostFilterResult:
    """What a PostFilter plugin (preemption) achieved."""

    __module__ = "schedframe"

    nominating_info: NominatingInfo | None = None


@final
class NodeToStatus:
    """Filter statuses by node name, for PostFilter plugins and failure messages.

    Nodes without an entry (those a :class:`~schedframe.PreFilterResult` excluded, or all nodes when
    PreFilter rejected the pod) get ``absent_nodes_status``, by default
    ``UNSCHEDULABLE_AND_UNRESOLVABLE`` (upstream ``NodeToStatus``).
    """

    __module__ = "schedframe.framework"
    __slots__ = ("_map", "_rejected", "absent_nodes_status")

    def __init__(self, statuses: dict[str, Status] | None = None,
                 absent_nodes_status: Status | None = None) -> None:
        self._map: dict[str, Status] = statuses if statuses is not None else {}
        #: ``(NodeInfo, status)`` batches recorded by the scheduler's search, not yet in ``_map``
        #: (read only when the pod fails: most cycles never look)
        self._rejected: list[Sequence[tuple[NodeInfo, Status]]] = []
        self.absent_nodes_status = absent_nodes_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def _record_rejected(self, rejected: Sequence[tuple[NodeInfo, Status]]) -> None:
        """Record each ``(NodeInfo, status)`` of *rejected* by node name, in order (as
        :meth:`set` each), when first read. *rejected* holds each node once (one search visits
        a node once), which lets ``len`` count a lone batch without reading it; a node may
        also be in another batch or already recorded (the nominated node is tried first)."""
        self._rejected.append(rejected)

    def _statuses(self) -> dict[str, Status]:
        if self._rejected:
            batches, self._rejected = self._rejected, []
            for batch in batches:
                self._map.update([(ni.name, status) for ni, status in batch])
        return self._map

    def get(self, node_name: str) -> Status:
        """The status of *node_name* (the absent-nodes status when it has none)."""
        return self._statuses().get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        """Record *status* for *node_name*."""
        self._statuses()[node_name] = status

    def set_many(self, pairs: Iterable[tuple[str, Status]]) -> None:
        """Record each ``(node_name, status)`` of *pairs*, in order (as :meth:`set` each)."""
        self._statuses().update(pairs)

    def items(self) -> list[tuple[str, Status]]:
        """The recorded ``(node name, status)`` pairs."""
        return list(self._statuses().items())

    def __len__(self) -> int:
        if not self._rejected:
            return len(self._map)
        if len(self._rejected) == 1 and not self._map:  # one search's nodes: each once
            return len(self._rejected[0])
        return len(self._statuses())

    def __contains__(self, node_name: object) -> bool:
        return node_name in self._statuses()

    def nodes_for_code(self, code: Code, all_nodes: Sequence[str]) -> list[str]:
        """Names among *all_nodes* whose status has *code* (absent nodes included)."""
        get = self._statuses().get
        absent = self.absent_nodes_status
        return [n for n in all_nodes if get(n, absent).code is code]


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    """Runs only when no node passed Filter (typically preemption).

    *filtered_node_status_map* maps node names to their Filter statuses. Return success with a
    :class:`~schedframe.PostFilterResult` to nominate a node; ``UNSCHEDULABLE`` to let the next PostFilter
    plugin try; ``UNSCHEDULABLE_AND_UNRESOLVABLE`` or ``ERROR`` to stop.
    """

    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]: ...


#: The highest score a Score plugin may give after normalization.
MAX_NODE_SCORE: Final = 100
#: The lowest score.
MIN_NODE_SCORE: Final = 0


@final
@attrs.frozen
class NodeScore:
    """One node's score from one plugin."""

    __module__ = "schedframe"

    name: str
    score: int


@final
@attrs.frozen
class PluginScore:
    """A plugin's weighted score for a node."""

    __module__ = "schedframe.framework"

    name: str
    score: int


@final
@attrs.frozen
class NodePluginScores:
    """All plugins' weighted scores of one node, and their total."""

    __module__ = "schedframe.framework"

    name: str
    scores: tuple[PluginScore, ...]
    total_score: int


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Runs once per pod, with the feasible nodes, before Score.

    Compute per-pod scoring data and write it to the :class:`~schedframe.CycleState`; return ``SKIP`` when
    the plugin has nothing to score for this pod (its Score is then not called). Not run when
    only one node is feasible.
    """

    def pre_score(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> Status | None: ...


@runtime_checkable
class ScoreExtensions(Protocol):
    """Normalization after all nodes were scored."""

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Rewrite *scores* in place (replace the elements) so each is in [0, 100]."""
        ...


@runtime_checkable
class ScorePlugin(Plugin, Protocol):
    """Ranks a feasible node: returns ``(score, status)``.

    Without normalization the score must be in [0, 100]; with it, any int that
    ``normalize_score`` maps into that range. The framework multiplies by the plugin's weight.
    """

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]: ...

    def score_extensions(self) -> ScoreExtensions | None: ...


@runtime_checkable
class BatchScorePlugin(ScorePlugin, Protocol):
    """A :class:`~schedframe.ScorePlugin` that can also score many nodes in one call (optional).

    When a Score plugin has ``score_nodes``, the framework calls it once per cycle with all the
    nodes to score instead of calling ``score`` once per node: the loop runs inside the plugin,
    with its per-pod state read once. ``score`` stays the reference (and what tools such as
    :class:`~schedframe.testing.PluginHarness` users may call directly); ``score_nodes`` must
    give exactly the same results.

    Contract of ``score_nodes(state, pod, nodes)``:

    * Return a list with one int per node of *nodes*, in the same order: what ``score`` would
      return for each node.
    * Where ``score`` would return a non-success status for some node, return that status (the
      one of the first such node) instead of a list; the framework turns it into the same ERROR
      as from ``score`` (``running Score plugins: plugin "X" failed with: ...``). An exception is
      treated as one raised by ``score``.
    * Do not keep or modify *nodes*.

    .. versionadded:: 0.1.0
    """

    def score_nodes(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]) -> list[int] | Status: ...


@runtime_checkable
class BatchScoreExtensions(ScoreExtensions, Protocol):
    """:class:`~schedframe.ScoreExtensions` that can also normalize plain ints (optional).

    When a plugin's score extensions have ``normalize_score_ints``, the framework calls it
    instead of ``normalize_score``, and builds no :class:`~schedframe.NodeScore` objects.

    Contract of ``normalize_score_ints(state, pod, nodes, scores)``: *scores* holds the plugin's
    raw score of each node of *nodes*, in the same order. Return the normalized scores as a list
    of the same length (a new list, or *scores* rewritten in place): exactly the scores that
    ``normalize_score`` would leave in a ``NodeScore`` list built from *nodes* and *scores*. Where
    ``normalize_score`` would return a non-success status, return that status instead; the
    framework reports it (and exceptions) as it reports those of ``normalize_score``.

    .. versionadded:: 0.1.0
    """

    def normalize_score_ints(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo],
                             scores: list[int]) -> list[int] | Status: ...


@runtime_checkable
class PreBindPlugin(Plugin, Protocol):
    """Runs before binding (e.g. provisioning a volume). A failure unreserves the pod and sends
    it back to the queue."""

    def pre_bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class BindPlugin(Plugin, Protocol):
    """Binds the pod to the node. Return ``SKIP`` to let the next bind plugin do it; the first
    plugin not returning SKIP decides. A profile needs at least one bind plugin."""

    def bind(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...


@runtime_checkable
class PostBindPlugin(Plugin, Protocol):
    """Informational, after a successful bind (cleanup). Cannot fail."""

    def post_bind(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


#: Permit timeouts are capped at 15 minutes, as upstream.
MAX_PERMIT_TIMEOUT: Final = 15 * 60.0


@runtime_checkable
class PermitPlugin(Plugin, Protocol):
    """Last gate before binding: returns ``(status, timeout_seconds)``.

    Success lets the pod bind; ``WAIT`` holds it (up to *timeout*, capped at 15 minutes) until
    some plugin calls ``WaitingPod.allow()`` for every waiting plugin or ``WaitingPod.reject()``;
    a rejection or a timeout unreserves the pod. The timeout is ignored unless the status is WAIT.
    """

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]: ...


@runtime_checkable
class WaitingPod(Protocol):
    """A pod held at Permit; plugins reach it through ``Handle.get_waiting_pod``."""

    @property
    def pod(self) -> Pod: ...

    @property
    def node_name(self) -> str: ...

    def pending_plugins(self) -> list[str]: ...

    def allow(self, plugin_name: str) -> None: ...

    def reject(self, plugin_name: str, message: str) -> None: ...


@runtime_checkable
class ReservePlugin(Plugin, Protocol):
    """Claims resources for the pod on the chosen node, before Permit and binding.

    ``reserve`` failing stops the cycle; then ``unreserve`` of *every* reserve plugin runs, in
    reverse order. ``unreserve`` also runs when a later phase (Permit, PreBind, Bind) fails.
    ``unreserve`` must be idempotent and must not fail.
    """

    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None: ...

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None: ...


@final
@attrs.define(eq=False)
class QueuedPodInfo:
    """A pod in the scheduling queue, with its queueing bookkeeping.

    Attributes:
        pod_info: the pod.
        timestamp: when it was last added to the queue (PrioritySort's tie-breaker).
        attempts: scheduling attempts so far.
        initial_attempt_timestamp: when it was first popped, or ``None``.
        unschedulable_plugins: plugins that rejected it in the last attempt.
        pending_plugins: plugins that returned PENDING in the last attempt.
        gated: True while a PreEnqueue plugin keeps it out of activeQ.
        consecutive_errors: attempts that ended in an ERROR (error backoff).
        unschedulable_count: attempts that ended unschedulable (the backoff exponent, reset
            never; ``consecutive_errors`` takes over while errors repeat).
        backoff_expiration: cached end of the current backoff (``None``: not computed yet).
    """

    __module__ = "schedframe"

    pod_info: PodInfo
    timestamp: float = 0.0
    attempts: int = 0
    initial_attempt_timestamp: float | None = None
    unschedulable_plugins: set[str] = attrs.field(factory=set)
    pending_plugins: set[str] = attrs.field(factory=set)
    gated: bool = False
    gating_plugin: str = ""
    consecutive_errors: int = 0
    unschedulable_count: int = 0
    backoff_expiration: float | None = None

    @property
    def pod(self) -> Pod:
        """The pod."""
        return self.pod_info.pod


@runtime_checkable
class StatefulPlugin(Plugin, Protocol):
    """A plugin that keeps state of its own from one scheduling cycle to the next (pods it
    assumed, groups it backed off...) beyond what it derives from the snapshot by generation.

    :class:`~schedframe.ClusterSnapshot` forks call :meth:`checkpoint` when a fork opens and
    :meth:`restore` with its value when the fork reverts; a plugin whose cross-cycle state is
    not covered this way keeps what happened inside a reverted fork.

    .. versionadded:: 0.1.0
    """

    def checkpoint(self) -> object:
        """A copy of the state (later changes must not alter it)."""
        ...

    def restore(self, state: object) -> None:
        """Put back a state :meth:`checkpoint` returned (it may be restored only once)."""
        ...


@runtime_checkable
class QueueSortPlugin(Plugin, Protocol):
    """Orders the active queue: ``less(a, b)`` is True when *a* should be scheduled first.

    Exactly one QueueSort plugin is enabled per profile, and all profiles must use the same.
    """

    def less(self, a: QueuedPodInfo, b: QueuedPodInfo) -> bool: ...
