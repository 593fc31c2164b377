"""PreScore, Score and NormalizeScore extension points."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final, Protocol, final, runtime_checkable

import attrs

from ._api import Pod
from ._cycle_state import CycleState
from ._nodeinfo import NodeInfo
from ._plugin import Plugin
from ._status import Status

__all__ = [
    "BatchScoreExtensions",
    "BatchScorePlugin",
    "MAX_NODE_SCORE",
    "MIN_NODE_SCORE",
    "NodePluginScores",
    "NodeScore",
    "PluginScore",
    "PreScorePlugin",
    "ScoreExtensions",
    "ScorePlugin",
]

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

    __module__ = "schedframe"

    name: str
    score: int


@final
@attrs.frozen
class NodePluginScores:
    """All plugins' weighted scores of one node, and their total."""

    __module__ = "schedframe"

    name: str
    scores: tuple[PluginScore, ...]
    total_score: int


@runtime_checkable
class PreScorePlugin(Plugin, Protocol):
    """Runs once per pod, with the feasible nodes, before Score.

    Compute per-pod scoring data and write it to the :class:`CycleState`; return ``SKIP`` when
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
    """A :class:`ScorePlugin` that can also score many nodes in one call (optional).

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
    """:class:`ScoreExtensions` that can also normalize plain ints (optional).

    When a plugin's score extensions have ``normalize_score_ints``, the framework calls it
    instead of ``normalize_score``, and builds no :class:`NodeScore` objects.

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
