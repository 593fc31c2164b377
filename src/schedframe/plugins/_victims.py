"""The dry run on one node that every preemption plugin shares (upstream each plugin's
``SelectVictimsOnNode``: DefaultPreemption, CapacityScheduling, PreemptionToleration).

The plugin decides which pods *may* be victims; :class:`NodeDryRun` takes them off the cloned
node (running the PreFilter extensions, as upstream), and :meth:`NodeDryRun.reprieve` gives back
as many as possible, most important first, the PDB-violating ones first, keeping as victims those
without which the preemptor no longer fits. One place for the loop, so the plugins cannot drift
apart in it. :class:`DefaultNodePicking` is the part of the preemption interface they share.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import final

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..framework.cycle_state import CycleState
from ..framework.handle import Handle
from ..framework.preemption import Candidate, ScoreFunc, Victims
from ..framework.status import Code, Status

__all__ = ["DefaultNodePicking", "NodeDryRun"]


class DefaultNodePicking:
    """The preemption interface's ``CandidatesToVictimsMap`` and ``OrderedScoreFuncs`` as every
    preemption plugin has them: the candidates' victims by node name, and the default criteria
    to pick the node among them. Mixed in before the plugin's (or preemptor's) class."""

    __slots__ = ()

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        """Node name -> victims."""
        return {c.name: c.victims for c in candidates}

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc] | None:
        """``None``: the default node-picking criteria."""
        return None


def _as_error(status: Status) -> Status:
    """A failed PreFilter extension as an ERROR status (upstream ``AsStatus(status.AsError())``)."""
    return status if status.code is Code.ERROR else status.with_code(Code.ERROR)


@final
class NodeDryRun:
    """Removing and adding back pods on a cloned *node_info* (and the cloned cycle *state*) for
    *pod*'s preemption dry run."""

    __slots__ = ("handle", "node_info", "pod", "state")

    def __init__(self, handle: Handle, state: CycleState, pod: Pod, node_info: NodeInfo) -> None:
        self.handle = handle
        self.state = state
        self.pod = pod
        self.node_info = node_info

    def remove(self, pi: PodInfo) -> Status | None:
        """Take *pi* off the node and tell the PreFilter extensions; an ERROR status on failure."""
        node_info = self.node_info
        if not node_info.remove_pod(pi.pod):
            return Status(Code.ERROR, (f"no corresponding pod {pi.pod.key} in pods of node "
                                       f"{node_info.name}",))
        s = self.handle.run_pre_filter_extension_remove_pod(self.state, self.pod, pi, node_info)
        return None if s.is_success() else _as_error(s)

    def add(self, pi: PodInfo) -> Status | None:
        """Put *pi* back on the node and tell the PreFilter extensions; an ERROR status on failure."""
        self.node_info.add_pod(pi)
        s = self.handle.run_pre_filter_extension_add_pod(self.state, self.pod, pi, self.node_info)
        return None if s.is_success() else _as_error(s)

    def remove_all(self, infos: Iterable[PodInfo]) -> Status | None:
        """:meth:`remove` each of *infos*; the first error, if any."""
        for pi in infos:
            err = self.remove(pi)
            if err is not None:
                return err
        return None

    def fits(self) -> Status:
        """The Filter plugins' verdict for the pod on the node as it now is (nominated pods
        included, upstream ``RunFilterPluginsWithNominatedPods``)."""
        return self.handle.run_filter_plugins_with_nominated_pods(self.state, self.pod, self.node_info)

    def reprieve(self, violating: list[PodInfo], non_violating: list[PodInfo], *,
                 evict_anyway: Callable[[], bool] | None = None,
                 ) -> tuple[list[PodInfo], int, Status | None]:
        """Give back each pod of *violating*, then of *non_violating* (each list most important
        first), keeping it off as a victim when the pod then no longer fits. *evict_anyway*,
        asked after each pod whatever the Filter said, takes it off (again) when true:
        CapacityScheduling's quota check, as upstream runs it (a pod already off is then an
        error, as upstream). Returns the victims in the order they were found, how many
        PDB-violating pods did not fit back, and the first error, if any."""
        victims: list[PodInfo] = []
        num_violating = 0
        for group, counted in ((violating, True), (non_violating, False)):
            for pi in group:
                err = self.add(pi)
                if err is not None:
                    return [], 0, err
                if not self.fits().is_success():
                    err = self.remove(pi)
                    if err is not None:
                        return [], 0, err
                    victims.append(pi)
                    if counted:
                        num_violating += 1
                if evict_anyway is not None and evict_anyway():
                    err = self.remove(pi)
                    if err is not None:
                        return [], 0, err
                    victims.append(pi)
        return victims, num_violating, None

    def victims(self, violating: list[PodInfo], non_violating: list[PodInfo],
                order: Callable[[list[PodInfo]], None], *,
                evict_anyway: Callable[[], bool] | None = None) -> tuple[list[Pod], int, Status]:
        """:meth:`reprieve`, then the victims most important first (*order* sorts a list in
        place, as the plugin ranks pods; needed only when both groups gave victims), as a
        plugin's ``select_victims_on_node`` returns them."""
        found, num_violating, err = self.reprieve(violating, non_violating, evict_anyway=evict_anyway)
        if err is not None:
            return [], 0, err
        if violating and non_violating:
            order(found)
        return [pi.pod for pi in found], num_violating, Status.OK
