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
