"""PodState: prefer nodes with terminating pods, avoid nodes with nominated pods
(kubernetes-sigs/scheduler-plugins ``pkg/podstate``).

Score: the number of terminating pods on the node (they will free room) minus the number of
pods nominated to it (room already promised). NormalizeScore maps the scores min-max onto
[0, 100] (all equal: 0). Nominations come from the framework's nominator, as upstream's
``NominatedPodsForNode``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, final

from ...api.objects import Pod
from ...cache.nodeinfo import NodeInfo
from ...errors import PluginArgsError
from ...framework.cycle_state import CycleState
from ...framework.handle import Handle
from ...framework.interfaces import NodeScore
from ...framework.status import Status
from .node_resources_allocatable import normalize_min_max

__all__ = ["NAME", "PodState", "new"]

NAME: Final = "PodState"


@final
class PodState:
    """The PodState plugin (Score with NormalizeScore).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_handle",)

    def __init__(self, handle: Handle) -> None:
        self._handle = handle

    @property
    def name(self) -> str:
        """``"PodState"``."""
        return NAME

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        """Terminating pods on the node minus pods nominated to it."""
        nominated = len(self._handle.nominator.nominated_pods_for_node(node_info.name))
        terminating = sum(1 for pi in node_info.pods if pi.pod.deletion_timestamp is not None)
        return terminating - nominated, None

    def score_extensions(self) -> PodState:
        """NormalizeScore maps the scores min-max onto [0, 100]."""
        return self

    def normalize_score(self, state: CycleState, pod: Pod, scores: list[NodeScore]) -> Status | None:
        """Min-max normalization (all equal: every node 0)."""
        return normalize_min_max(scores)


def new(args: object, handle: Handle) -> PodState:
    """Factory: PodState takes no args."""
    if args is not None and not (isinstance(args, dict) and not args):
        raise PluginArgsError(f"PodState takes no args, got {type(args).__name__}")
    return PodState(handle)


if TYPE_CHECKING:
    from ...framework.interfaces import ScoreExtensions, ScorePlugin

    def _check(p: PodState) -> None:
        _a: ScorePlugin = p
        _b: ScoreExtensions = p
