"""PreFilter, Filter and PostFilter extension points and their result types."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final, Protocol, final, runtime_checkable

import attrs

from ._api import Pod
from ._cycle_state import CycleState
from ._nodeinfo import NodeInfo, PodInfo
from ._plugin import Plugin
from ._status import Code, Status

__all__ = [
    "BatchFilterPlugin",
    "FilterPlugin",
    "NodeToStatus",
    "NominatingInfo",
    "NominatingMode",
    "PostFilterPlugin",
    "PostFilterResult",
    "PreFilterExtensions",
    "PreFilterPlugin",
    "PreFilterResult",
]


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

    Compute per-pod data here and write it to the :class:`CycleState`. Return ``SKIP`` when the
    plugin has nothing to check for this pod (its Filter is then not called), ``UNSCHEDULABLE``
    or ``UNSCHEDULABLE_AND_UNRESOLVABLE`` to reject the pod on every node, and optionally a
    :class:`PreFilterResult` restricting the nodes to evaluate.
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
    """A :class:`FilterPlugin` that can also filter many nodes in one call (optional).

    When every Filter plugin that runs for a pod has ``filter_nodes``, the framework hands each
    of them runs of nodes instead of calling ``filter`` once per node and plugin: the loop runs
    inside the plugin, with its per-pod state read once. ``filter`` stays the reference;
    ``filter_nodes`` must agree with it exactly.

    Contract of ``filter_nodes(state, pod, nodes)``:

    * Return the nodes ``filter`` would not pass, as ``(index into nodes, status)`` pairs, where
      *status* is what ``filter`` returns for that node; an empty list when all pass. Nodes left
      out passed.
    * Have no side effects, like ``filter``: the framework may filter nodes past the point where
      a node-by-node search would have stopped, and drops those results. It calls the plugin
      only with nodes the earlier plugins passed.
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

    Nodes without an entry (those a :class:`PreFilterResult` excluded, or all nodes when
    PreFilter rejected the pod) get ``absent_nodes_status``, by default
    ``UNSCHEDULABLE_AND_UNRESOLVABLE`` (upstream ``NodeToStatus``).
    """

    __module__ = "schedframe"
    __slots__ = ("_map", "absent_nodes_status")

    def __init__(self, statuses: dict[str, Status] | None = None,
                 absent_nodes_status: Status | None = None) -> None:
        self._map: dict[str, Status] = statuses if statuses is not None else {}
        self.absent_nodes_status = absent_nodes_status or Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE)

    def get(self, node_name: str) -> Status:
        """The status of *node_name* (the absent-nodes status when it has none)."""
        return self._map.get(node_name, self.absent_nodes_status)

    def set(self, node_name: str, status: Status) -> None:
        """Record *status* for *node_name*."""
        self._map[node_name] = status

    def set_many(self, pairs: Iterable[tuple[str, Status]]) -> None:
        """Record each ``(node_name, status)`` of *pairs*, in order (as :meth:`set` each)."""
        self._map.update(pairs)

    def items(self) -> list[tuple[str, Status]]:
        """The recorded ``(node name, status)`` pairs."""
        return list(self._map.items())

    def __len__(self) -> int:
        return len(self._map)

    def __contains__(self, node_name: object) -> bool:
        return node_name in self._map

    def nodes_for_code(self, code: Code, all_nodes: Sequence[str]) -> list[str]:
        """Names among *all_nodes* whose status has *code* (absent nodes included)."""
        return [n for n in all_nodes if self.get(n).code is code]


@runtime_checkable
class PostFilterPlugin(Plugin, Protocol):
    """Runs only when no node passed Filter (typically preemption).

    *filtered_node_status_map* maps node names to their Filter statuses. Return success with a
    :class:`PostFilterResult` to nominate a node; ``UNSCHEDULABLE`` to let the next PostFilter
    plugin try; ``UNSCHEDULABLE_AND_UNRESOLVABLE`` or ``ERROR`` to stop.
    """

    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status | None]: ...


