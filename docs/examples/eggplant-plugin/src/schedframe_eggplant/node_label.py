"""NodeLabel: filter and score nodes by the labels they have, or lack.

A pod may only go to nodes that have every label of ``presentLabels`` and none of
``absentLabels`` (Filter). Among those, a node earns points for each label of
``presentLabelsPreference`` it has and each label of ``absentLabelsPreference`` it lacks
(Score). Only label keys matter, not their values.

kube-scheduler shipped a plugin like this one until v1.23; this one is written for schedframe.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, final

import attrs

from schedframe import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    Pod,
    ScoreExtensions,
    Status,
    plugin_args,
)

NAME: Final = "NodeLabel"
#: Filter reason (shown in "0/N nodes are available: ..." messages).
ERR_REASON: Final = "node(s) didn't have the requested labels"

# Pod evictions cannot change a node's labels, so preemption would not help.
_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,))


@final
@attrs.frozen(kw_only=True)
class NodeLabelArgs:
    """The plugin's args, ``presentLabels`` ... in ``pluginConfig`` (the framework decodes them)."""

    present_labels: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    absent_labels: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    present_labels_preference: tuple[str, ...] = attrs.field(default=(), converter=tuple)
    absent_labels_preference: tuple[str, ...] = attrs.field(default=(), converter=tuple)

    def errors(self) -> list[str]:
        """A label both wanted and unwanted, one error each (the framework runs this check)."""
        pairs = (("presentLabels", "absentLabels", self.present_labels, self.absent_labels),
                 ("presentLabelsPreference", "absentLabelsPreference", self.present_labels_preference,
                  self.absent_labels_preference))
        return [f"{absent}[{i}]: label {key!r} is also in {present}" for present, absent, wanted, unwanted
                in pairs for i, key in enumerate(unwanted) if key in wanted]


@final
class NodeLabel:
    """Filter + Score on node label keys."""

    def __init__(self, args: NodeLabelArgs) -> None:
        self.args = args
        self._present = args.present_labels
        self._absent = args.absent_labels
        self._prefs = len(args.present_labels_preference) + len(args.absent_labels_preference)

    @property
    def name(self) -> str:
        """``"NodeLabel"``: a plugin's name must match the name it is registered under."""
        return NAME

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Success (``None``) when the node has every required label and no forbidden one."""
        node = node_info.node
        if node is None:
            return Status.unresolvable("node not found")
        labels = node.labels
        for key in self._present:
            if key not in labels:
                return _REJECTED
        for key in self._absent:
            if key in labels:
                return _REJECTED
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """The share of the preferences the node satisfies, in [0, 100]."""
        node = node_info.node
        if node is None or not self._prefs:
            return 0, None
        labels = node.labels
        hits = sum(key in labels for key in self.args.present_labels_preference)
        hits += sum(key not in labels for key in self.args.absent_labels_preference)
        return hits * MAX_NODE_SCORE // self._prefs, None

    def score_extensions(self) -> ScoreExtensions | None:
        """No NormalizeScore: the scores are already in [0, 100]."""
        return None


def new(args: object, handle: Handle) -> NodeLabel:
    """The plugin factory: *args* is ``None`` (defaults), a :class:`NodeLabelArgs`, or the raw
    ``pluginConfig`` mapping; ``plugin_args`` turns each into checked args."""
    return NodeLabel(plugin_args(args, NodeLabelArgs))


if TYPE_CHECKING:
    from schedframe import FilterPlugin, ScorePlugin

    _filter: FilterPlugin = NodeLabel(NodeLabelArgs())
    _score: ScorePlugin = NodeLabel(NodeLabelArgs())
