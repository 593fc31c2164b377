"""Workload-aware preemption: a PodGroup that cannot be placed preempts lower-priority pods for
the whole group (DefaultPreemption's PodGroupPostFilter).

Upstream: ``pkg/scheduler/framework/preemption/podgrouppreemption.go`` (``PodGroupEvaluator``)
and the PodGroup cycle that calls it (``schedule_one_podgroup.go``). Kubernetes 1.36 runs it with
the alpha gate ``WorkloadAwarePreemption`` (off by default); 1.37 always, with
``GenericWorkload``. The domain is the whole cluster:

* every pod on a node is a victim on its own, except the pods of a PodGroup whose disruption
  mode is the whole group (1.36 ``PodGroup``, 1.37 ``all``): those are one victim, all its
  scheduled pods together, with the group's priority. The victims of a lower priority than the
  group's (its ``spec.priority``; 1.37 gives a pod of a PodGroup its group's priority too) may
  be preempted;
* all of them removed, the group's algorithm runs again (without PostFilter); the group must be
  schedulable, else that status is the answer;
* the victims, most important first (priority, then groups before pods, bigger groups first,
  then the earliest start), those whose eviction would violate a PodDisruptionBudget first, are
  then reprieved one by one: a victim put back stays when the group still fits. 1.36 checks that
  by running the group's algorithm again; 1.37 by running Filter for each member the run placed,
  on its node, with the cycle state of that run (the PreFilter extensions told of the victim),
  each member placed (and reserved) for the next;
* the victims left are deleted. 1.36 nominates the members feasible before the preemption to the
  nodes they were feasible on; 1.37 each member to the node the run without victims placed it.

The snapshot the runs see is a private one with the victims left out (:class:`SnapshotMask`); the
scheduler's own snapshot and cache are not touched, as upstream restores its snapshot.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Final

import attrs

from ..api.objects import Pod, PodDisruptionBudget
from ..api.scheduling_workload import CompositePodGroup, SchedulingPodGroup
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..cache.snapshot import Snapshot
from ..framework.interfaces import NominatingInfo, NominatingMode
from ..framework.preemption import pod_start_time
from ..framework.releases import release_of
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..plugins.default_preemption import pdb_charges, terminating_by_preemption

if TYPE_CHECKING:
    from ._pod_group import PodGroupCycleMixin, _Attempt

__all__ = ["MSG_NOT_ELIGIBLE_NEVER", "MSG_NO_VICTIMS", "MSG_ONGOING", "PREFIX_137", "GroupPreemption",
           "SnapshotMask", "preempted_message", "run_evaluation"]

MSG_NOT_ELIGIBLE_NEVER: Final = "not eligible due to preemptionPolicy=Never."
MSG_NO_VICTIMS: Final = "No preemption victims found for incoming preemptor"
MSG_ONGOING: Final = "ongoing preemption on nominated nodes"
#: the 1.37 message prefix of DefaultPreemption's PodGroupPostFilter
PREFIX_137: Final = "pod group preemption: "


def preempted_message(count: int) -> str:
    """1.37's success message of the group's preemption."""
    return f"found a placement for podgroup, preempting {count} victims"


@attrs.define
class _Victim:
    """One unit of eviction: a pod, or the scheduled pods of a PodGroup evicted together."""

    pods: list[PodInfo]
    priority: int
    rank: int  # 1.37: 2 for a pod of a PodGroup (or a whole group), 1 for a pod; 1.36: group or not
    group: bool
    earliest: float


class SnapshotMask:
    """The pods left out of the snapshot the group's runs see: applied after every update of
    that (private) snapshot from the cache, whose NodeInfos hold them again when their node
    changed."""

    def __init__(self) -> None:
        self.hidden: dict[str, tuple[str, Pod]] = {}  # uid -> (node, pod)

    def hide(self, snapshot: Snapshot, pods: Sequence[PodInfo]) -> None:
        for pi in pods:
            node = pi.pod.node_name or ""
            self.hidden[pi.pod.uid] = (node, pi.pod)
            ni = snapshot.get(node)
            if ni is not None:
                ni.remove_pod(pi.pod)

    def show(self, snapshot: Snapshot, pods: Sequence[PodInfo]) -> None:
        for pi in pods:
            if self.hidden.pop(pi.pod.uid, None) is None:
                continue
            ni = snapshot.get(pi.pod.node_name or "")
            if ni is not None and not any(p.pod.uid == pi.pod.uid for p in ni.pods):
                ni.add_pod(pi)

    def __call__(self, snapshot: Snapshot) -> None:
        for node, pod in self.hidden.values():
            ni = snapshot.get(node)
            if ni is not None:
                ni.remove_pod(pod)


def _pdb_split(victims: Sequence[_Victim], pdbs: Sequence[PodDisruptionBudget]
               ) -> tuple[list[tuple[_Victim, int]], list[_Victim]]:
    """The victims whose eviction would violate a PodDisruptionBudget (with how many of their pods
    do) and the others, in order (upstream ``FilterVictimsWithPDBViolation``: each pod charged to
    the matching budgets in turn until one goes below zero)."""
    allowed = [pdb.disruptions_allowed for pdb in pdbs]

    def violates(pod: Pod) -> bool:
        if not pod.labels:
            return False
        for i, pdb in enumerate(pdbs):
            if not pdb_charges(pdb, pod):
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                return True
        return False

    violating: list[tuple[_Victim, int]] = []
    others: list[_Victim] = []
    for v in victims:
        n = sum(1 for pi in v.pods if violates(pi.pod))
        if n:
            violating.append((v, n))
        else:
            others.append(v)
    return violating, others


class GroupPreemption:
    """One evaluation of workload-aware preemption for the members of a PodGroup cycle."""

    def __init__(self, sched: PodGroupCycleMixin, fwk: Framework, members: Sequence[Pod],
                 pg: SchedulingPodGroup | CompositePodGroup) -> None:
        self.sched = sched
        self.fwk = fwk
        self.members = list(members)
        self.pg = pg
        self.newer = release_of(fwk).minor >= (1, 37)
        self.priority = pg.spec.priority if pg.spec.priority is not None else 0

    # -- who may preempt, and whom ---------------------------------------------------------------
    def preemption_policy(self) -> str:
        """Never when the group may not preempt (upstream ``resolvePreemptionPolicy``: the
        PodGroup's own policy with ``PodGroupPreemptionPolicy``, else Never when a member says
        so)."""
        if self.newer and release_of(self.fwk).enabled("PodGroupPreemptionPolicy"):
            return self.pg.spec.preemption_policy or "PreemptLowerPriority"
        if any(p.preemption_policy == "Never" for p in self.members):
            return "Never"
        return "PreemptLowerPriority"

    def pod_priority(self, pod: Pod) -> int:
        """A possible victim's priority: 1.37 gives a pod of a PodGroup its group's."""
        if self.newer and pod.scheduling_group is not None:
            pg = self.sched._pod_group_of(pod)
            if pg is not None:
                return pg.spec.priority or 0
        return pod.priority or 0

    def victims(self, snapshot: Snapshot) -> list[_Victim]:
        """Every victim of the cluster, in the order of the snapshot's nodes and their pods."""
        now = self.sched.clock.now()
        out: list[_Victim] = []
        by_group: dict[tuple[str, str], _Victim] = {}
        for ni in snapshot.list():
            for pi in ni.pods:
                pod = pi.pod
                pg = self.sched._pod_group_of(pod) if pod.scheduling_group is not None else None
                whole = pg is not None and pg.spec.disruption_mode == ("all" if self.newer else "PodGroup")
                if pg is None or not whole:
                    grouped = pod.scheduling_group is not None
                    out.append(_Victim([pi], self.pod_priority(pod), 2 if grouped else 1, grouped,
                                       pod_start_time(pod, now)))
                    continue
                key = (pod.namespace, pod.scheduling_group or "")
                if key in by_group:
                    if not self.newer:  # 1.36 gathers the group's pods node by node
                        v = by_group[key]
                        v.pods.append(pi)
                        v.earliest = min(v.earliest, pod_start_time(pod, now))
                    continue
                if self.newer:  # the group's scheduled pods, wherever they are
                    pods = [q for q, _node in self.sched._group_placed(pod)]
                    infos = [found for q in pods if (found := _info_of(snapshot, q)) is not None] or [pi]
                else:
                    infos = [pi]
                v = _Victim(infos, pg.spec.priority or 0, 2, True,
                            min(pod_start_time(i.pod, now) for i in infos))
                by_group[key] = v
                out.append(v)
        return out

    def sort(self, victims: list[_Victim]) -> None:
        """Most important first (upstream ``MoreImportantVictim``; 1.36 ``moreImportantVictim``)."""
        if self.newer:
            victims.sort(key=lambda v: (-v.priority, -v.rank, -len(v.pods), v.earliest))
        else:
            victims.sort(key=lambda v: (-v.priority, not v.group, -len(v.pods) if v.group else 0, v.earliest))

    def ongoing(self, snapshot: Snapshot) -> bool:
        """1.37: a member's nominated node holds a lower-priority pod the scheduler preempted
        that is still terminating."""
        for node in {p.nominated_node_name for p in self.members if p.nominated_node_name}:
            ni = snapshot.get(node)
            if ni is None:
                continue
            for pi in ni.pods:
                if self.pod_priority(pi.pod) < self.priority and terminating_by_preemption(pi.pod):
                    return True
        return False

    # -- the evaluation ----------------------------------------------------------------------------
    def select(self, rerun: Callable[[], tuple[Status, Sequence[_Attempt]]],
               fits_136: Callable[[], bool]) -> tuple[Status, list[Pod], dict[str, NominatingInfo]]:
        """The victims to preempt and the members' nominations, or the status saying why not:
        *rerun* is the group's algorithm (without PostFilter) on the snapshot the mask leaves,
        *fits_136* whether 1.36's group is schedulable on it."""
        sched = self.sched
        private = Snapshot()
        sched.cache.update_snapshot(private)
        mask = SnapshotMask()
        saved = sched._snapshot
        sched._snapshot = private
        sched._snapshot_mask = mask
        self.fwk.set_snapshot(private)
        try:
            return self._select(private, mask, rerun, fits_136)
        finally:
            sched._snapshot = saved
            sched._snapshot_mask = None
            self.fwk.set_snapshot(saved)

    def _refresh(self, private: Snapshot) -> None:
        self.sched.cache.update_snapshot(private)
        mask = self.sched._snapshot_mask
        if mask is not None:
            mask(private)

    def _select(self, private: Snapshot, mask: SnapshotMask,
                rerun: Callable[[], tuple[Status, Sequence[_Attempt]]], fits_136: Callable[[], bool]
                ) -> tuple[Status, list[Pod], dict[str, NominatingInfo]]:
        potential = [v for v in self.victims(private) if v.priority < self.priority]
        if not potential:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (MSG_NO_VICTIMS,)), [], {}
        for v in potential:
            mask.hide(private, v.pods)
        status, attempts = rerun()
        if status.code is not Code.SUCCESS:
            return status, [], {}
        self.sort(potential)
        pdbs = self.sched.objects.list(PodDisruptionBudget)
        violating, others = _pdb_split(potential, pdbs)
        assignments = [a for a in attempts if a.status.code is Code.SUCCESS and a.host]
        if self.newer:
            self._refresh(private)  # the run's members are forgotten again

            def reprieve(v: _Victim) -> bool:
                return self._reprieve_137(private, mask, v, assignments)
        else:
            def reprieve(v: _Victim) -> bool:
                mask.show(private, v.pods)
                if fits_136():
                    return True
                self._refresh(private)
                mask.hide(private, v.pods)
                return False
        evicted: list[_Victim] = []
        for v, _n in violating:
            if not reprieve(v):
                evicted.append(v)
        for v in others:
            if not reprieve(v):
                evicted.append(v)
        self.sort(evicted)
        pods = [pi.pod for v in evicted for pi in v.pods]
        nominations = {a.pinfo.pod.uid: NominatingInfo(a.host, NominatingMode.OVERRIDE) for a in assignments}
        return Status.OK, pods, nominations

    def _reprieve_137(self, private: Snapshot, mask: SnapshotMask, v: _Victim,
                      assignments: Sequence[_Attempt]) -> bool:
        """Put *v* back; it stays when every member the run placed still passes Filter on its
        node, the members before it placed and reserved there."""
        fwk = self.fwk
        mask.show(private, v.pods)
        for pi in v.pods:
            ni = private.get(pi.pod.node_name or "")
            if ni is None:
                continue
            for a in assignments:
                st = fwk.run_pre_filter_extension_add_pod(a.state, a.pinfo.pod, pi, ni)
                if not st.is_success():
                    raise _PreemptionError(st)
        placed: list[tuple[_Attempt, NodeInfo, Pod]] = []
        try:
            for a in assignments:
                ni = private.get(a.host)
                if ni is None:
                    raise _PreemptionError(Status.from_error(KeyError(a.host)))
                st = fwk.run_filter_plugins_with_nominated_pods(a.state, a.pinfo.pod, ni)
                if not st.is_success():
                    mask.hide(private, v.pods)
                    for pi in v.pods:
                        vni = private.get(pi.pod.node_name or "")
                        if vni is None:
                            continue
                        for b in assignments:
                            rst = fwk.run_pre_filter_extension_remove_pod(b.state, b.pinfo.pod, pi, vni)
                            if not rst.is_success():
                                raise _PreemptionError(rst)
                    return False
                assumed = a.pinfo.pod.evolve(node_name=a.host)
                ni.add_pod(assumed)
                fwk.run_reserve_plugins_reserve(a.state, a.pinfo.pod, a.host)
                placed.append((a, ni, assumed))
            return True
        finally:
            for a, ni, assumed in reversed(placed):
                fwk.run_reserve_plugins_unreserve(a.state, a.pinfo.pod, a.host)
                ni.remove_pod(assumed)

    def evict(self, pods: Sequence[Pod], plugin: str) -> Status:
        """Delete the victims (a pod waiting at Permit is rejected instead); pods already being
        deleted are left alone (upstream ``prepareCandidate``)."""
        fwk = self.fwk
        sched = self.sched
        saved = sched._current
        # the deletions are told (schedframe_pod_preempted) as preempted by the group's first pod
        sched._current = (self.members[0], fwk.profile_name)
        try:
            for victim in pods:
                if victim.deletion_timestamp is not None:
                    continue
                try:
                    waiting = fwk.get_waiting_pod(victim.uid)
                    if waiting is not None:
                        waiting.reject(plugin, "preempted")
                    else:
                        fwk.client.delete_pod(victim)
                    by = f"{self.pg.namespace}/{self.pg.name}"
                    fwk.event_recorder.event(victim, "Normal", "Preempted", f"Preempted by podgroup {by}")
                except Exception as exc:
                    return Status.from_error(exc)
        finally:
            sched._current = saved
        return Status.OK


class _PreemptionError(Exception):
    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


def _info_of(snapshot: Snapshot, pod: Pod) -> PodInfo | None:
    ni = snapshot.get(pod.node_name or "")
    if ni is None:
        return None
    return next((pi for pi in ni.pods if pi.pod.uid == pod.uid), None)


def run_evaluation(ev: GroupPreemption, rerun: Callable[[], tuple[Status, Sequence[_Attempt]]],
                   fits_136: Callable[[], bool]) -> tuple[Status, list[Pod], dict[str, NominatingInfo]]:
    """:meth:`GroupPreemption.select`, an error of a PreFilter extension as the status."""
    try:
        return ev.select(rerun, fits_136)
    except _PreemptionError as err:
        return err.status, [], {}

