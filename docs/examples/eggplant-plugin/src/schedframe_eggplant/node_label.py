"""NodeLabel: filter and score nodes by the labels they have, or lack.

A pod may only go to nodes that have every label of ``presentLabels`` and none of
``absentLabels`` (Filter). Among those, a node earns points for each label of
``presentLabelsPreference`` it has and each label of ``absentLabelsPreference`` it lacks
(Score). Only label keys matter, not their values.

kube-scheduler shipped a plugin like this one until v1.23; this one is written for schedframe.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from schedframe import (
    MAX_NODE_SCORE,
    Code,
    CycleState,
    Handle,
    NodeInfo,
    PluginArgsError,
    Pod,
    ScoreExtensions,
    Status,
)

NAME: Final = "NodeLabel"
#: Filter reason (shown in "0/N nodes are available: ..." messages).
ERR_REASON: Final = "node(s) didn't have the requested labels"

# Pod evictions cannot change a node's labels, so preemption would not help.
_REJECTED: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON,))

_FIELDS: Final = {
    "presentLabels": "present_labels",
    "absentLabels": "absent_labels",
    "presentLabelsPreference": "present_labels_preference",
    "absentLabelsPreference": "absent_labels_preference",
}


def _keys(value: Iterable[str]) -> tuple[str, ...]:
    return tuple(value)


@final
@attrs.frozen(kw_only=True)
class NodeLabelArgs:
    """The plugin's args. ``NodeLabelArgs()`` (no labels at all) is the default."""

    present_labels: tuple[str, ...] = attrs.field(default=(), converter=_keys)
    absent_labels: tuple[str, ...] = attrs.field(default=(), converter=_keys)
    present_labels_preference: tuple[str, ...] = attrs.field(default=(), converter=_keys)
    absent_labels_preference: tuple[str, ...] = attrs.field(default=(), converter=_keys)

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> NodeLabelArgs:
        """Decode the camelCase ``pluginConfig[].args`` mapping and validate it.

        Raises:
            PluginArgsError: listing every problem, each with its field path.
        """
        errors: list[str] = []
        values: dict[str, tuple[str, ...]] = {}
        for key, value in data.items():
            field = _FIELDS.get(key)
            if field is None:
                errors.append(f"{key}: unknown field; known fields: {', '.join(_FIELDS)}")
            elif not isinstance(value, list) or not all(isinstance(v, str) for v in value):
                errors.append(f"{key}: must be a list of label keys, got {value!r}")
            else:
                values[field] = tuple(value)
        args = cls(**values)
        errors.extend(args.conflicts())
        if errors:
            raise PluginArgsError(errors)
        return args

    def to_dict(self) -> dict[str, Any]:
        """The args as a camelCase mapping (``from_dict(args.to_dict()) == args``)."""
        return {key: list(getattr(self, field)) for key, field in _FIELDS.items()}

    def conflicts(self) -> list[str]:
        """Labels both required present and required absent (or both preferred present and
        preferred absent), one error per conflict."""
        errors = []
        for present, absent in (("presentLabels", "absentLabels"),
                                ("presentLabelsPreference", "absentLabelsPreference")):
            wanted = getattr(self, _FIELDS[present])
            for i, key in enumerate(getattr(self, _FIELDS[absent])):
                if key in wanted:
                    errors.append(f"{absent}[{i}]: label {key!r} is also in {present}")
        return errors

    def validate(self) -> None:
        """Raise :class:`~schedframe.PluginArgsError` listing every conflict, if any."""
        errors = self.conflicts()
        if errors:
            raise PluginArgsError(errors)


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
    """The plugin factory.

    *args* is ``None`` (defaults), a :class:`NodeLabelArgs`, or the raw ``pluginConfig`` mapping.
    """
    if args is None:
        args = NodeLabelArgs()
    elif isinstance(args, Mapping):
        args = NodeLabelArgs.from_dict(args)
    elif not isinstance(args, NodeLabelArgs):
        raise PluginArgsError(f"want args of type NodeLabelArgs, got {type(args).__name__}")
    args.validate()
    return NodeLabel(args)


if TYPE_CHECKING:
    from schedframe import FilterPlugin, ScorePlugin

    _filter: FilterPlugin = NodeLabel(NodeLabelArgs())
    _score: ScorePlugin = NodeLabel(NodeLabelArgs())
