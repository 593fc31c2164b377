"""The PodGroup scheduling cycle (kube-scheduler 1.36 on, ``GenericWorkload``): a pod naming a
``scheduling.k8s.io`` PodGroup in ``spec.schedulingGroup`` is scheduled with the rest of its group.

Upstream: ``pkg/scheduler/schedule_one_podgroup.go`` (``scheduleOnePodGroup``, the default
algorithm ``podGroupSchedulingDefaultAlgorithm`` and ``submitPodGroupAlgorithmResult``). When a
member is popped, every other unscheduled member of its group is taken out of the queue too
(activated first, as ``PopSpecificPod`` does; gated members stay out). The members, by priority
and then by the time each first entered activeQ, are tried one by one on the same cluster: each
runs Filter and Score (and PostFilter), and a feasible one is assumed, reserved and asked Permit
so the next members see it placed. Then everything is undone, and:

* the group is **feasible** once some member's Permit says success (GangScheduling: ``minCount``
  members placed): its feasible members go to their binding cycles, each assumed, reserved and
  permitted again, the gang's Permit letting them all through together;
* otherwise each feasible member fails with its Permit message, and the others with their own
  reasons; all go back to the queue for the next PodGroup cycle;
* a member that needs preemption makes the whole group wait for it (unschedulable, nominated);
* an error on one member fails the whole group with it.

1.37 runs another algorithm (its ``podGroupSchedulingDefaultAlgorithm``): GangScheduling's
PlacementFeasible check before the first member and after each stops the cycle once
``minCount`` cannot be met; members are filtered and scored without PostFilter, and assumed and
reserved without Permit; a group that cannot be placed goes to PodGroupPostFilter
(DefaultPreemption's workload-aware preemption, :mod:`._group_preemption`), whose reason ends the
feasible members' message; 1.36 runs that preemption with ``WorkloadAwarePreemption``.

With ``TopologyAwareWorkloadScheduling`` (both releases) the algorithm runs once per placement
of the group's topology constraint and the best feasible placement is kept (see
:mod:`._placements`).

Not modelled: configurable placement plugins (the ``placementGenerate``/``placementScore``
extension points in profiles: the defaults run). A PodGroup whose parent is a CompositePodGroup
(1.37, ``CompositePodGroup``) is scheduled with its whole tree by :mod:`._composite`, which
reuses this module's algorithms for the leaves.

The cycle leaves its outcome on the PodGroup's ``status.conditions`` (``PodGroupScheduled`` in
1.36, ``PodGroupInitiallyScheduled`` in 1.37), in the scheduler's object store.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import Final

import attrs

from ..api.objects import Pod
from ..api.scheduling_workload import PodGroupCondition, SchedulingPodGroup
from ..cache.nodeinfo import NodeInfo
from ..cache.snapshot import Snapshot
from ..errors import CacheError
from ..framework._tracing import ATTR_POD_GROUP, ATTR_POD_GROUP_MEMBERS, POD_GROUP_CYCLE, SCHEDULING_CYCLE
from ..framework.cycle_state import CycleState
from ..framework.diagnosis import FitError
from ..framework.interfaces import NominatingInfo, NominatingMode, QueuedPodInfo
from ..framework.plugin_names import (
    DEFAULT_PREEMPTION,
    DYNAMIC_RESOURCES,
    GANG_SCHEDULING,
    NODE_RESOURCES_FIT,
)
from ..framework.pod_group_tree import Group
from ..framework.releases import release_of
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ._group_preemption import (
    MSG_NOT_ELIGIBLE_NEVER,
    MSG_ONGOING,
    PREFIX_137,
    GroupPreemption,
    preempted_message,
    run_evaluation,
)
from ._placements import Placement, generate_placements, no_placement_available, pods_count_scores
from ._schedule_one import ScheduleOneMixin, _CycleError, _internal_error

__all__ = ["ERR_POD_GROUP_UNSCHEDULABLE", "MSG_POD_GROUP_WAITING_FOR_PREEMPTION", "PodGroupCycleMixin"]

#: The group's status when it is feasible only once some member's preemption completes.
MSG_POD_GROUP_WAITING_FOR_PREEMPTION: Final = "pod group is waiting for preemption to complete"
#: The error a member's failure wraps when its group cannot be placed (upstream
#: ``errPodGroupUnschedulable``, the first reason of the status's message).
ERR_POD_GROUP_UNSCHEDULABLE: Final = "pod group is unschedulable"

_CLEAR: Final = NominatingInfo("", NominatingMode.OVERRIDE)
#: 1.36's workload-aware preemption without DefaultPreemption, and for a group with constraints
MSG_NO_DEFAULT_PREEMPTION: Final = ("default preemption plugin is not registered, workload aware preemption "
                                    "is disabled")
#: the reason DynamicResources' PodGroupPostFilter gives (1.37)
MSG_DRA_POD_GROUP_POST_FILTER: Final = "deallocation and deletion of ResourceClaims completed"
MSG_NOT_WITH_CONSTRAINTS: Final = ("workload aware preemption is not supported for pod groups with "
                                   "scheduling constraints")
#: the condition a PodGroup cycle writes on its PodGroup (1.36, and its 1.37 name), and its reasons
COND_SCHEDULED: Final = "PodGroupScheduled"
COND_INITIALLY_SCHEDULED: Final = "PodGroupInitiallyScheduled"
REASON_SCHEDULED: Final = "Scheduled"
REASON_UNSCHEDULABLE: Final = "Unschedulable"
REASON_SCHEDULER_ERROR: Final = "SchedulerError"


@attrs.define
class _Attempt:
    """One member's try in the cycle (upstream ``algorithmResult``)."""

    pinfo: QueuedPodInfo
    state: CycleState
    host: str = ""
    status: Status = Status.OK
    permit: Status | None = None
    nominating: NominatingInfo | None = None
    requires_preemption: bool = False
    assumed: Pod | None = None
    started: float = 0.0


@attrs.define
class _GroupResult:
    """One run of the default algorithm (upstream ``podGroupAlgorithmResult``): the members'
    attempts in order (those reached), the group's status, whether it is feasible once a
    preemption completes (1.36) and whether a member was placed (1.37)."""

    attempts: list[_Attempt]
    status: Status
    waiting: bool = False
    any_scheduled: bool = False
    #: CompositePodGroup: the best placement's members assumed again, to undo (upstream revertFns)
    reassumed: list[_Attempt] = attrs.field(factory=list)


class PodGroupCycleMixin(ScheduleOneMixin):
    """The PodGroup scheduling cycle of :class:`~schedframe.Scheduler` (internal)."""

    def _group_pods_now(self, pod: Pod) -> list[Pod]:
        """Every pod of *pod*'s group the scheduler knows, in the order it learnt of them."""
        return self._pods_of_group(pod.namespace, pod.scheduling_group)

    def _pods_of_group(self, namespace: str, group: str | None) -> list[Pod]:
        """Every pod of the PodGroup *group* in *namespace*, in the order the scheduler learnt of them."""
        with self._lock:
            pods = self._pods
            return [p for uid in self._by_namespace.get(namespace, ())
                    if (p := pods[uid]).scheduling_group == group]

    def _group_members(self, pod: Pod) -> list[Pod]:
        """The unscheduled pods of *pod*'s group (neither bound nor assumed), *pod* excluded, in
        the order the scheduler learnt of them."""
        return [p for p in self._group_pods_now(pod)
                if p.uid != pod.uid and not p.node_name and not self.cache.is_assumed(p)]

    def _schedule_pod_group(self, fwk: Framework, pinfo: QueuedPodInfo) -> bool:
        pod = pinfo.pod
        if self._composites_on:
            pg = self._pod_group_of(pod)
            if pg is not None and pg.parent is not None:
                return self._schedule_composite(fwk, pinfo, pg)
        members = [pinfo]
        for other in self._group_members(pod):
            popped = self.queue.pop_specific(other)
            if popped is not None:
                self._counts["cycles"] += 1
                members.append(popped)
        kept: list[QueuedPodInfo] = []
        for m in members:
            p = m.pod
            if p.deletion_timestamp is not None:
                self.recorder.event(p, "Warning", "FailedScheduling",
                                    f"skip schedule deleting pod: {p.namespace}/{p.name}")
                self.queue.done(p.uid)
            elif self.cache.is_assumed(p):
                self.queue.done(p.uid)
            else:
                kept.append(m)
        if not kept:
            return True
        names = {m.pod.scheduler_name for m in kept}
        invalid = None
        if len(names) > 1:
            a, b = sorted(names)[:2]
            invalid = (f"all pods in a single pod group should have the same .spec.schedulerName set, "
                       f"got: {a!r} and {b!r}")
        elif release_of(fwk).minor >= (1, 37):
            invalid = self._invalid_group_137(pod, kept)
        if invalid is not None:
            status = Status.from_error(ValueError(invalid))
            for m in kept:
                self._finish_failed(self.frameworks.get(m.pod.scheduler_name, fwk), m, status, _CLEAR,
                                    self.clock.now())
            if release_of(fwk).minor >= (1, 37):  # updatePodGroupConditionWithError
                self._set_group_condition(fwk, pod, status)
            return True
        # upstream: by priority, then by when each first entered activeQ (ties: arrival order)
        order = {p.uid: i for i, p in enumerate(self._group_pods_now(pod))}
        kept.sort(key=lambda m: (-(m.pod.priority or 0), m.initial_attempt_timestamp or 0.0,
                                 order.get(m.pod.uid, 0)))
        tr = self._tracing
        # the members are out of the queue for the cycle: their nominations read as upstream's
        # nominator reads those of pods in no queue
        flying = self.nominator.in_flight([m.pod for m in kept], with_group=release_of(fwk).minor >= (1, 37))
        with flying:
            if tr is None:
                self._pod_group_cycle(fwk, kept)
            else:
                attributes = {ATTR_POD_GROUP: pod.scheduling_group or "", ATTR_POD_GROUP_MEMBERS: len(kept)}
                with tr.cycle(POD_GROUP_CYCLE, pod, fwk.profile_name, **attributes):
                    self._pod_group_cycle(fwk, kept)
        return True

    def _schedule_composite(self, fwk: Framework, pinfo: QueuedPodInfo, pg: SchedulingPodGroup) -> bool:
        """The cycle of *pinfo*'s whole CompositePodGroup tree (:mod:`._composite`)."""
        raise NotImplementedError  # pragma: no cover - the Scheduler's mixin defines it

    def _invalid_group_137(self, pod: Pod, kept: Sequence[QueuedPodInfo]) -> str | None:
        """1.37's ``validatePodGroup`` beyond the scheduler names: every member (queued, then
        scheduled) of the PodGroup's priority, and all of one preemption policy (without
        ``PodGroupPreemptionPolicy``, which schedframe does not model)."""
        pg = self._pod_group_of(pod)
        want = pg.spec.priority or 0 if pg is not None else 0
        policy = ""
        placed = [p for p, _node in self._group_placed(pod)]
        for p in [m.pod for m in kept] + placed:
            have = p.priority or 0
            if have != want:
                return (f"all pods in a single pod group should have the same priority as the pod group's "
                        f"priority, got {have} and {want}")
            mine = p.preemption_policy or "PreemptLowerPriority"
            if not policy:
                policy = mine
            elif mine != policy:
                return (f"all pods in a single pod group should have the same preemption policy, got {mine} "
                        f"and {policy}")
        return None

    def _pod_group_cycle(self, fwk: Framework, kept: list[QueuedPodInfo]) -> None:
        """The release's algorithm over the group's members *kept* (in order), then its result."""
        if release_of(fwk).minor >= (1, 37):
            attempts, group_status, waiting, nominations = self._pod_group_run_137(fwk, kept)
            self._outcome(group_status)
            self._submit_pod_group_137(fwk, kept, attempts, group_status, waiting, nominations)
            self._set_group_condition(fwk, kept[0].pod, group_status)
            return
        # the members' own preemptions delete their victims through the API server upstream:
        # the cycle's snapshot keeps them until the cycle is over
        self._deferred_deletes = []
        try:
            result = self._with_placements(fwk, kept, lambda: self._pod_group_algorithm(fwk, kept),
                                           newer=False)
        finally:
            self._flush_deferred_deletes()
        status, waiting = result.status, result.waiting
        release = release_of(fwk)
        if (release.minor == (1, 36) and release.enabled("WorkloadAwarePreemption")
                and status.code is Code.UNSCHEDULABLE):
            preempted = self._workload_aware_preemption_136(fwk, kept)
            if preempted.code is Code.SUCCESS:
                waiting = True
            elif preempted.code is Code.ERROR:
                status = preempted
            else:
                status = Status(status.code, (*status.reasons, preempted.message), error=status.error)
        self._outcome(status)
        self._submit_pod_group(fwk, kept, result.attempts, status, waiting)
        self._set_group_condition(fwk, kept[0].pod, status)

    def _set_group_condition(self, fwk: Framework, pod: Pod, status: Status) -> None:
        """The condition the cycle leaves on *pod*'s PodGroup (upstream
        ``updatePodGroupCondition``): ``PodGroupScheduled`` (1.36) or
        ``PodGroupInitiallyScheduled`` (1.37), True with reason ``Scheduled``, else False with
        ``Unschedulable`` or ``SchedulerError`` and the group's message; a group scheduled once
        never goes back to False."""
        pg = self._pod_group_of(pod)
        if pg is not None:
            self._set_condition_on(fwk, pg, status)

    def _set_condition_on(self, fwk: Framework, pg: SchedulingPodGroup, status: Status) -> None:
        """:meth:`_set_group_condition` on the PodGroup *pg*."""
        kind = COND_INITIALLY_SCHEDULED if release_of(fwk).minor >= (1, 37) else COND_SCHEDULED
        if status.code is Code.SUCCESS:
            cond = PodGroupCondition(kind, "True", REASON_SCHEDULED, status.message)
        elif status.is_rejected():
            cond = PodGroupCondition(kind, "False", REASON_UNSCHEDULABLE, status.message)
        else:  # upstream writes the status's error (AsError)
            text = str(status.error) if status.error is not None else status.message
            cond = PodGroupCondition(kind, "False", REASON_SCHEDULER_ERROR, text)
        conditions = list(pg.conditions)
        at = next((i for i, c in enumerate(conditions) if c.type == kind), None)
        if at is None:
            conditions.append(cond)
        elif (conditions[at].status == "True" and cond.status != "True") or conditions[at] == cond:
            return
        else:
            conditions[at] = cond
        self.objects.add(attrs.evolve(pg, conditions=tuple(conditions)))

    def _outcome(self, status: Status) -> None:
        """With tracing, the group's status on the current span (the PodGroup cycle's)."""
        tr = self._tracing
        if tr is not None:
            tr.outcome(tr.current(), status)

    # -- 1.37: PlacementFeasible, no Permit in the trial, group-level preemption -----------------
    def _placement_feasible(self, fwk: Framework, group: Pod | Group, scheduled: int,
                            remaining: int) -> Status | None:
        """Upstream ``RunPlacementFeasiblePlugins``: GangScheduling's minCount (minGroupCount)
        check (the one in-tree PlacementFeasible plugin) for a pod's group, a PodGroup or a
        CompositePodGroup; ``None`` is success."""
        plugin = fwk.get_plugin(GANG_SCHEDULING)
        check = getattr(plugin, "placement_feasible", None)
        if not callable(check):
            return None
        status: Status | None = check(group, scheduled, remaining)
        return status

    def _pod_group_run_137(self, fwk: Framework, members: Sequence[QueuedPodInfo]
                           ) -> tuple[list[_Attempt], Status, bool, dict[str, NominatingInfo]]:
        """1.37's ``runRootSchedulingAlgorithm`` and what ``podGroupCycle`` does after it: the
        algorithm (over the placements, with TopologyAwareWorkloadScheduling), a success that
        placed no member made unschedulable, the members not reached given the group's status,
        and PodGroupPostFilter for a group that cannot be placed."""
        result = self._with_placements(fwk, members, lambda: self._pod_group_algorithm_137(fwk, members),
                                       newer=True)
        self._revert(fwk, result.reassumed)  # the root's revertFns, at the end of its run
        group = result.status
        if group.code is Code.SUCCESS and not result.any_scheduled:
            group = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE,))
        attempts = list(result.attempts)
        # the members the algorithm did not reach fail with the group's status as it is now,
        # before PodGroupPostFilter adds its reason (upstream completePodGroupAlgorithmResult)
        for m in members[len(attempts):]:
            attempts.append(_Attempt(m, CycleState(), status=group, started=self.clock.now()))
        if group.code is Code.UNSCHEDULABLE:
            return (attempts, *self._pod_group_post_filter(fwk, members, group))
        return attempts, group, False, {}

    def _pod_group_algorithm_137(self, fwk: Framework, members: Sequence[QueuedPodInfo],
                                 pg: SchedulingPodGroup | None = None) -> _GroupResult:
        """1.37's default algorithm: PlacementFeasible before and after each member; each member
        filtered and scored (no PostFilter) and assumed and reserved (no Permit); all undone.
        *pg*: the PodGroup (by default the first member's; a leaf of a CompositePodGroup may
        have no member queued)."""
        attempts: list[_Attempt] = []
        first: Pod | SchedulingPodGroup = members[0].pod if pg is None else pg
        scheduled = len(self._group_placed(first) if isinstance(first, Pod) else self._group_placed_in(first))
        remaining = len(members)
        group = self._placement_feasible(fwk, first, scheduled, remaining)
        placed: list[_Attempt] = []
        any_scheduled = False
        try:
            if group is not None and group.code is Code.UNSCHEDULABLE:
                return _GroupResult(attempts, Status(Code.UNSCHEDULABLE,
                                                     (ERR_POD_GROUP_UNSCHEDULABLE, *group.reasons)))
            for m in members:
                a = self._try_member(fwk, m, post_filter=False, permit=False)
                attempts.append(a)
                if a.assumed is not None:
                    placed.append(a)
                if a.status.code is not Code.SUCCESS and not a.status.is_rejected():
                    group = Status.from_error(RuntimeError(
                        f"failed to schedule other pod from a pod group: {a.status.message}"))
                    break
                remaining -= 1
                if a.status.code is Code.SUCCESS:
                    scheduled += 1
                group = self._placement_feasible(fwk, first, scheduled, remaining)
                if group is not None and group.code is Code.UNSCHEDULABLE:
                    break  # upstream keeps the plugin's status as is here (no group error)
                any_scheduled = any_scheduled or a.status.code is Code.SUCCESS
            if group is not None and group.code is Code.WAIT:
                group = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE, *group.reasons))
        finally:
            self._revert(fwk, placed)
        if group is None or group.code is Code.SUCCESS:
            return _GroupResult(attempts, Status.OK, any_scheduled=any_scheduled)
        return _GroupResult(attempts, group)

    # -- TopologyAwareWorkloadScheduling: the group tried in each placement ----------------------
    def _group_placed(self, pod: Pod) -> list[tuple[Pod, str]]:
        """The pods of *pod*'s group already placed (bound, or assumed by the cache), with their
        nodes (upstream ``PodGroupState.ScheduledPods``)."""
        return self._placed_among(self._group_pods_now(pod))

    def _group_placed_in(self, group: SchedulingPodGroup) -> list[tuple[Pod, str]]:
        """:meth:`_group_placed` of the PodGroup *group*."""
        return self._placed_among(self._pods_of_group(group.namespace, group.name))

    def _placed_among(self, pods: Sequence[Pod]) -> list[tuple[Pod, str]]:
        out = []
        for p in pods:
            if p.node_name:
                out.append((p, p.node_name))
            elif (assumed := self.cache.get_pod(p)) is not None and self.cache.is_assumed(p):
                out.append((p, assumed.node_name or ""))
        return out

    def _with_placements(self, fwk: Framework, members: Sequence[QueuedPodInfo],
                         trial: Callable[[], _GroupResult], *, newer: bool,
                         group: SchedulingPodGroup | None = None) -> _GroupResult:
        """Upstream ``podGroupSchedulingPlacementAlgorithm`` (``TopologyAwareWorkloadScheduling``
        on, see :mod:`._placements`): the group's placements generated (within the placement a
        parent CompositePodGroup is trying, if any), *trial* (the release's default algorithm)
        run in each, the best feasible one kept; without the gate *trial* once on every node.
        *newer*: 1.37's status when none is feasible. *group*: the PodGroup (by default the first
        member's). With ``CompositePodGroup`` the best placement's members are assumed and
        reserved again (``assumeSubtreeWithRevert``) so the groups after it see them: the
        result's ``reassumed``, for the caller to undo."""
        if not self._placements_on:
            return trial()
        if group is None:
            group = self._pod_group_of(members[0].pod)
        snapshot = self._fresh_snapshot()
        nodes = self._nodes_in_placement(snapshot)
        placed = self._group_placed_in(group) if group is not None else self._group_placed(members[0].pod)
        placements = generate_placements(group, nodes, placed, snapshot.get)
        if isinstance(placements, Status):
            return _GroupResult([], placements)
        if self._placement_order is not None:
            placements = self._placement_order(placements)
        first_result: _GroupResult | None = None
        feasible: list[tuple[Placement, _GroupResult]] = []
        parent = self._placement
        for placement in placements:
            self._assume_placement(snapshot, placement)
            try:
                result = trial()
            finally:
                self._placement = parent
            if result.status.code is Code.ERROR:
                return result
            if first_result is None:
                first_result = result
            if result.status.code is Code.SUCCESS or result.waiting:
                feasible.append((placement, result))
        if not feasible:
            assert first_result is not None  # at least one placement is generated
            status = no_placement_available(len(placements), first_result.status, with_group_error=newer,
                                            group_error=ERR_POD_GROUP_UNSCHEDULABLE)
            return attrs.evolve(first_result, status=status, any_scheduled=False)
        if len(feasible) == 1:
            best: _GroupResult | Status = feasible[0][1]
        else:
            proposals = [[a for a in r.attempts if a.host and (a.status.code is Code.SUCCESS
                                                               or (not newer and a.requires_preemption))]
                         for _p, r in feasible]
            at = self._best_placement(fwk, [p for p, _r in feasible], proposals, len(placed))
            best = at if isinstance(at, Status) else feasible[at][1]
        if isinstance(best, Status):
            return _GroupResult([], best)
        if self._composites_on:
            again = self._assume_again(fwk, [best])
            if isinstance(again, Status):
                return _GroupResult([], again)
            best = attrs.evolve(best, reassumed=again)
        return best

    def _nodes_in_placement(self, snapshot: Snapshot) -> list[NodeInfo]:
        """Upstream ``ListNodesInPlacement``: the nodes of the placement being tried, else all."""
        placement = self._placement
        if placement is None:
            return list(snapshot.list())
        return [ni for name in placement.nodes if (ni := snapshot.get(name)) is not None]

    def _assume_placement(self, snapshot: Snapshot, placement: Placement) -> None:
        """Upstream ``AssumePlacement``: a placement of every node is no placement."""
        self._placement = None if len(placement.nodes) == snapshot.num_nodes() else placement

    def _assume_again(self, fwk: Framework, results: Sequence[_GroupResult]) -> list[_Attempt] | Status:
        """Upstream ``assumeSubtreeWithRevert``: the placed members of *results* assumed and
        reserved again, with their cycle states; the attempts to undo, or (all undone) the
        error."""
        again: list[_Attempt] = []
        for r in results:
            for a in r.attempts:
                if a.status.code is not Code.SUCCESS or not a.host:
                    continue
                trial = attrs.evolve(a.pinfo)
                status = self._assume_reserve(fwk, a.state, trial, a.host)
                if status.code is not Code.SUCCESS:
                    self._revert(fwk, again)
                    text = str(status.error) if status.error is not None else status.message
                    return Status.from_error(RuntimeError(f"failed to assume the subtree: {text}"))
                again.append(_Attempt(a.pinfo, a.state, host=a.host, assumed=trial.pod))
        return again

    def _best_placement(self, fwk: Framework, placements: Sequence[Placement],
                        proposals: Sequence[Sequence[_Attempt]], scheduled: int) -> int | Status:
        """Upstream ``findBestPlacement``: the feasible *placements* scored by PodGroupPodsCount
        (*scheduled* pods of the group plus each placement's *proposals*) and NodeResourcesFit
        (weight 1 each); the index of the best total, ties at random."""
        counts = pods_count_scores(scheduled, [len(p) for p in proposals])
        if isinstance(counts, Status):
            return counts
        totals = list(counts)
        fit = fwk.get_plugin(NODE_RESOURCES_FIT)
        score_placement = getattr(fit, "score_placement", None)
        if callable(score_placement):
            snapshot = self._fresh_snapshot()
            for i, placement in enumerate(placements):
                infos = [ni for name in placement.nodes if (ni := snapshot.get(name)) is not None]
                totals[i] += int(score_placement([a.pinfo.pod for a in proposals[i]], infos))
        top = max(totals)
        ties = [i for i, t in enumerate(totals) if t == top]
        if len(ties) == 1:
            return ties[0]
        if self._placement_tie_break is not None:
            key = self._placement_tie_break
            return min(ties, key=lambda i: key(placements[i]))
        return ties[self._rng.randrange(len(ties))]

    def _pod_group_post_filter(self, fwk: Framework, members: Sequence[QueuedPodInfo], group: Status
                               ) -> tuple[Status, bool, dict[str, NominatingInfo]]:
        """1.37's PodGroupPostFilter (DefaultPreemption's workload-aware preemption, see
        :mod:`._group_preemption`): the group's status with the preemption's reason, whether the
        group waits for its victims to go, and the members' nominations (by uid)."""
        pg = self._pod_group_of(members[0].pod)
        # DynamicResources' PodGroupPostFilter runs first: it says what it deallocated, except for
        # a group of topology placements (upstream leaves those alone)
        dra: tuple[str, ...] = ()
        if fwk.get_plugin(DYNAMIC_RESOURCES) is not None and not (
                self._placements_on and pg is not None and pg.spec.topology_keys):
            dra = (MSG_DRA_POD_GROUP_POST_FILTER,)

        def appended(*reasons: str) -> Status:
            return Status(group.code, (*group.reasons, ", ".join(reasons)), error=group.error)

        if fwk.get_plugin(DEFAULT_PREEMPTION) is None or pg is None:
            return appended(*dra), False, {}
        ev = GroupPreemption(self, fwk, [m.pod for m in members], pg)
        if ev.preemption_policy() == "Never":
            return appended(*dra, PREFIX_137 + MSG_NOT_ELIGIBLE_NEVER), False, {}
        if ev.ongoing(self._fresh_snapshot()):
            current = {m.pod.uid: NominatingInfo(m.pod.nominated_node_name or "", NominatingMode.OVERRIDE)
                       for m in members}
            return appended(PREFIX_137 + MSG_ONGOING), True, current

        def rerun() -> tuple[Status, Sequence[_Attempt]]:
            result = self._with_placements(fwk, members, lambda: self._pod_group_algorithm_137(fwk, members),
                                           newer=True)
            self._revert(fwk, result.reassumed)
            status = result.status
            if status.code is Code.SUCCESS and not result.any_scheduled:
                status = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE,))
            return status, result.attempts

        status, victims, nominations = run_evaluation(ev, rerun, lambda: False)
        if status.code is Code.SUCCESS:
            status = ev.evict(victims, DEFAULT_PREEMPTION)
            if status.code is Code.SUCCESS:
                return appended(PREFIX_137 + preempted_message(len(victims))), True, nominations
        if status.code is Code.ERROR:
            text = f'error in "{DEFAULT_PREEMPTION}" PodGroupPostFilter plugins: {PREFIX_137}{status.message}'
            return Status.from_error(RuntimeError(text)), False, {}
        if status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:  # the framework stops at it
            return appended(PREFIX_137 + status.message), False, {}
        return appended(*dra, PREFIX_137 + status.message), False, {}

    def _workload_aware_preemption_136(self, fwk: Framework, members: Sequence[QueuedPodInfo]) -> Status:
        """1.36's ``runWorkloadAwarePreemption`` (``WorkloadAwarePreemption``): success once the
        victims are deleted, else why not."""
        if fwk.get_plugin(DEFAULT_PREEMPTION) is None:
            return Status(Code.UNSCHEDULABLE, (MSG_NO_DEFAULT_PREEMPTION,))
        first = members[0].pod
        pg = self._pod_group_of(first)
        if pg is None:
            missing = f"podgroup.scheduling.k8s.io {first.scheduling_group!r} not found"
            return Status.from_error(LookupError(f"failed to get pod group object: {missing}"))
        if pg.spec.topology_keys:
            return Status(Code.UNSCHEDULABLE, (MSG_NOT_WITH_CONSTRAINTS,))
        ev = GroupPreemption(self, fwk, [m.pod for m in members], pg)
        if ev.preemption_policy() == "Never":
            return Status(Code.UNSCHEDULABLE, (MSG_NOT_ELIGIBLE_NEVER,))

        def rerun() -> tuple[Status, Sequence[_Attempt]]:
            result = self._with_placements(fwk, members,
                                           lambda: self._pod_group_algorithm(fwk, members, post_filter=False),
                                           newer=False)
            return result.status, result.attempts

        status, victims, _nominations = run_evaluation(ev, rerun, lambda: rerun()[0].code is Code.SUCCESS)
        if status.code is not Code.SUCCESS:
            return status
        return ev.evict(victims, DEFAULT_PREEMPTION)

    def _fresh_snapshot(self) -> Snapshot:
        """The scheduler's snapshot brought up to date (with workload-aware preemption's victims
        left out while it evaluates)."""
        snapshot = self._snapshot
        self.cache.update_snapshot(snapshot)
        if self._snapshot_mask is not None:
            self._snapshot_mask(snapshot)
        return snapshot

    def _pod_group_of(self, pod: Pod) -> SchedulingPodGroup | None:
        found = self.objects.get(SchedulingPodGroup, pod.scheduling_group or "", pod.namespace)
        return found if isinstance(found, SchedulingPodGroup) else None

    def _submit_pod_group_137(self, fwk: Framework, members: Sequence[QueuedPodInfo],
                              attempts: Sequence[_Attempt], group: Status, waiting: bool,
                              nominations: dict[str, NominatingInfo]) -> None:
        """1.37's ``submitPodGroupAlgorithmResult``: a feasible member of a group that is not
        fails with the group's message (the group's status when it waits for its preemption);
        every other failed member with its own status; each with the nomination the group's
        preemption gave it, if any."""
        for m, a in self._member_results(fwk, members, attempts, group):
            nominating = nominations.get(m.pod.uid, a.nominating)
            if a.status.code is Code.SUCCESS:
                if group.code is Code.SUCCESS:
                    self._bind_member(fwk, m, a)
                elif waiting:
                    self._finish_failed(fwk, m, group, nominating, a.started)
                else:
                    failed = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE, group.message))
                    self._finish_failed(fwk, m, failed, _CLEAR, a.started)
            else:
                self._finish_failed(fwk, m, a.status, nominating, a.started)

    # -- the default algorithm -------------------------------------------------------------------
    def _pod_group_algorithm(self, fwk: Framework, members: Sequence[QueuedPodInfo], *,
                             post_filter: bool = True) -> _GroupResult:
        """Try every member on the same cluster, each seeing the ones before it placed; undo it
        all. Returns the attempts, the group's status and whether it waits on preemption.
        *post_filter*: false in workload-aware preemption's runs."""
        attempts: list[_Attempt] = []
        group = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE,))
        waiting = False
        placed: list[_Attempt] = []
        requires_preemption = False
        try:
            for m in members:
                a = self._try_member(fwk, m, post_filter=post_filter)
                attempts.append(a)
                if a.status.code is not Code.SUCCESS and not a.requires_preemption:
                    if a.status.is_rejected():
                        continue
                    group = Status.from_error(RuntimeError(
                        f"failed to schedule other pod from a pod group: {a.status.message}"))
                    waiting = False
                    break
                placed.append(a)
                requires_preemption = requires_preemption or a.requires_preemption
                if a.permit is not None and a.permit.code is Code.SUCCESS:
                    if requires_preemption:
                        group = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE,
                                                            MSG_POD_GROUP_WAITING_FOR_PREEMPTION))
                        waiting = True
                    else:
                        group = Status.OK
        finally:
            self._revert(fwk, placed)
        return _GroupResult(attempts, group, waiting=waiting)

    def _revert(self, fwk: Framework, placed: Sequence[_Attempt]) -> None:
        """Undo the members tentatively placed, the last first (unreserve, forget, and give back
        the nomination the assume took away)."""
        for a in reversed(placed):
            assert a.assumed is not None
            self._unreserve_and_forget(fwk, a.state, a.assumed, a.host)
            if a.pinfo.pod.nominated_node_name:
                self.queue.add_nominated_pod(a.pinfo.pod_info, NominatingInfo(
                    a.pinfo.pod.nominated_node_name, NominatingMode.OVERRIDE))

    def _try_member(self, fwk: Framework, pinfo: QueuedPodInfo, *, post_filter: bool = True,
                    permit: bool = True) -> _Attempt:
        """One member's Filter/Score (and PostFilter: 1.36), then, when it has a node (or a
        nominated one), its assume and Reserve (and Permit, not parked: 1.36) on the shared
        cluster; with tracing, in a scheduling cycle span of its own."""
        tr = self._tracing
        if tr is None:
            return self._try_member_untraced(fwk, pinfo, post_filter, permit)
        with tr.cycle(SCHEDULING_CYCLE, pinfo.pod, fwk.profile_name) as span:
            a = self._try_member_untraced(fwk, pinfo, post_filter, permit)
            tr.outcome(span, a.status, a.host)
            return a

    def _try_member_untraced(self, fwk: Framework, pinfo: QueuedPodInfo, post_filter: bool,
                             permit: bool) -> _Attempt:
        pod = pinfo.pod
        a = _Attempt(pinfo, CycleState(), started=self.clock.now())
        self._current = (pod, fwk.profile_name)
        try:
            try:
                a.host = self._schedule_pod(fwk, a.state, pod)
            except FitError as fit:
                if not post_filter:  # 1.37: PodGroupPostFilter runs for the group instead
                    a.status = Status(Code.UNSCHEDULABLE, (fit.message,), error=fit)
                    return a
                a.nominating = _CLEAR
                if fwk.has_post_filter_plugins():
                    result = self._run_post_filter(fwk, a.state, pod, fit)
                    a.nominating = result.nominating_info if result is not None else None
                a.status = Status(Code.UNSCHEDULABLE, (fit.message,), error=fit)
                if a.nominating is None or not a.nominating.nominated_node_name:
                    return a
                a.host = a.nominating.nominated_node_name
                a.requires_preemption = True
            except _CycleError as err:
                a.status, a.nominating = err.status, _CLEAR
                return a
            trial = attrs.evolve(pinfo)
            status = (self._assume_reserve_permit(fwk, a.state, trial, a.host, park=False) if permit
                      else self._assume_reserve(fwk, a.state, trial, a.host))
            if status.code is not Code.SUCCESS and status.code is not Code.WAIT:
                a.status, a.nominating, a.requires_preemption = status, _CLEAR, False
                return a
            a.assumed = trial.pod
            a.permit = status if permit else None
            return a
        except CacheError as exc:
            a.status, a.nominating = Status.from_error(exc), _CLEAR
            return a
        except Exception as exc:
            a.status, a.nominating = _internal_error(exc), _CLEAR
            return a
        finally:
            self._current = None

    # -- the result ------------------------------------------------------------------------------
    def _submit_pod_group(self, fwk: Framework, members: Sequence[QueuedPodInfo],
                          attempts: Sequence[_Attempt], group: Status, waiting: bool) -> None:
        """Bind the feasible members of a feasible group; requeue the rest (upstream
        ``submitPodGroupAlgorithmResult``)."""
        for m, a in self._member_results(fwk, members, attempts, group):
            if a.status.code is Code.SUCCESS:
                if group.code is Code.SUCCESS:
                    self._bind_member(fwk, m, a)
                elif waiting:
                    nominated = NominatingInfo(a.host, NominatingMode.OVERRIDE)
                    self._finish_failed(fwk, m, group, nominated, a.started)
                else:
                    self._finish_failed(fwk, m, _permit_failure(a), _CLEAR, a.started)
            elif a.requires_preemption and not waiting:
                self._finish_failed(fwk, m, _permit_failure(a), _CLEAR, a.started)
            else:
                self._finish_failed(fwk, m, a.status, a.nominating, a.started)

    def _member_results(self, fwk: Framework, members: Sequence[QueuedPodInfo], attempts: Sequence[_Attempt],
                        group: Status) -> Iterator[tuple[QueuedPodInfo, _Attempt]]:
        """Each member with its attempt (the group's status for one the algorithm did not
        reach); when the group failed with an error, every member fails with it (or with its own
        error) here and is not yielded."""
        for i, m in enumerate(members):
            a = attempts[i] if i < len(attempts) else _Attempt(m, CycleState(), status=group,
                                                               started=self.clock.now())
            if group.code is Code.ERROR:
                status = a.status if a.status.code is Code.ERROR else group
                self._finish_failed(fwk, m, status, _CLEAR, a.started)
            else:
                yield m, a

    def _bind_member(self, fwk: Framework, pinfo: QueuedPodInfo, a: _Attempt) -> None:
        """A feasible member of a feasible group: assumed, reserved and permitted for real (its
        Permit may wait for the rest of the gang), then its binding cycle."""
        pod = pinfo.pod
        state = a.state  # the member's cycle state of the trial, as upstream binds with it
        status = self._assume_reserve_permit(fwk, state, pinfo, a.host)
        if status.code is not Code.SUCCESS and status.code is not Code.WAIT:
            self._finish_failed(fwk, pinfo, status, _CLEAR, a.started)
            return
        to_activate = state.pods_to_activate
        if to_activate:
            self.queue.activate(list(to_activate.values()))
            state.pods_to_activate = {}
        self._start_binding(fwk, state, pinfo, a.host, a.started, pod, Status.OK)

    def _finish_failed(self, fwk: Framework, pinfo: QueuedPodInfo, status: Status,
                       nominating: NominatingInfo | None, started: float) -> None:
        self._failure_handler(fwk, pinfo, status, nominating)
        self._hook("schedframe_cycle_finished", pod=pinfo.pod, status=status, node_name="",
                   profile=fwk.profile_name, duration=self.clock.now() - started)


def _permit_failure(a: _Attempt) -> Status:
    """A feasible member of a group that is not: unschedulable with its Permit's message."""
    assert a.permit is not None
    return Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE, a.permit.message))
