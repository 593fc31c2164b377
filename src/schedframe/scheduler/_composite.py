"""The PodGroup cycle of a CompositePodGroup tree (kube-scheduler 1.37, ``CompositePodGroup``).

Upstream: ``pkg/scheduler/schedule_one_podgroup.go`` (``podGroupSchedulingRecursiveAlgorithm``,
``compositePodGroupSchedulingPlacementAlgorithm``, ``compositePodGroupSchedulingDefaultAlgorithm``,
``assumeSubtreeWithRevert``, ``completeCompositePodGroupAlgorithmResult``,
``applyPodGroupPostFilterResult``, ``submitPodGroupAlgorithmResult``). A pod of a PodGroup with
a parent is scheduled with the whole tree of its root CompositePodGroup, every unscheduled pod of
every leaf PodGroup taken out of the queue for one cycle:

* a composite generates its placements (its own topology constraint, within its parent's
  placement) and, in each, runs its children in turn (:mod:`schedframe.framework.pod_group_tree`
  order), GangScheduling's PlacementFeasible counting the children placed against
  ``minGroupCount``; a leaf PodGroup runs the 1.37 PodGroup algorithm in its own placements
  inside its parent's; the best placement of each group (by the placement scorers over the
  subtree's combined leaf assignments) is assumed again so the groups after it see it;
* a failed composite fails its children that succeeded (their pods with its status);
* the members of the feasible leaves of a feasible tree go to binding, GangScheduling's Permit
  letting them through once the whole tree is ready; every leaf PodGroup gets its condition.

Not modelled: workload-aware preemption of a composite that would need victims (the cycle raises
:class:`~schedframe.errors.SchedulerError` naming it; the outcomes without victims are modelled).
"""

from __future__ import annotations

from collections.abc import Sequence

import attrs

from ..api.scheduling_workload import CompositePodGroup, SchedulingPodGroup
from ..errors import SchedulerError
from ..framework._tracing import ATTR_POD_GROUP, ATTR_POD_GROUP_MEMBERS, POD_GROUP_CYCLE
from ..framework.cycle_state import CycleState
from ..framework.interfaces import NominatingInfo, NominatingMode, QueuedPodInfo
from ..framework.plugin_names import DEFAULT_PREEMPTION
from ..framework.pod_group_tree import Group, children, entity_key, root_of
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ._group_preemption import (
    MSG_NO_VICTIMS,
    MSG_NOT_ELIGIBLE_NEVER,
    MSG_ONGOING,
    PREFIX_137,
    GroupPreemption,
)
from ._placements import generate_placements, no_placement_available
from ._pod_group import _CLEAR, ERR_POD_GROUP_UNSCHEDULABLE, PodGroupCycleMixin, _Attempt, _GroupResult

__all__ = ["MSG_CHILD_ERROR", "CompositeCycleMixin"]

#: the prefix of a composite's error when a child's evaluation errs
MSG_CHILD_ERROR = "composite pod group evaluation failed due to child error: "


@attrs.define
class _Node:
    """A group of the tree (upstream ``PodGroupInfo``), a leaf with its queued members."""

    group: Group
    children: list[_Node] = attrs.field(factory=list)
    members: list[QueuedPodInfo] = attrs.field(factory=list)

    @property
    def key(self) -> str:
        return entity_key(self.group)

    @property
    def leaf(self) -> SchedulingPodGroup | None:
        return self.group if isinstance(self.group, SchedulingPodGroup) else None

    def leaves(self) -> list[_Node]:
        if self.leaf is not None:
            return [self]
        return [n for c in self.children for n in c.leaves()]


def _as_error_text(status: Status) -> str:
    return str(status.error) if status.error is not None else status.message


class CompositeCycleMixin(PodGroupCycleMixin):
    """The CompositePodGroup cycle of :class:`~schedframe.Scheduler` (internal)."""

    def _tree(self, group: Group, depth: int = 0) -> _Node:
        node = _Node(group)
        if depth < 4:
            node.children = [self._tree(c, depth + 1) for c in children(self.objects, group)]
        return node

    def _schedule_composite(self, fwk: Framework, pinfo: QueuedPodInfo, pg: SchedulingPodGroup) -> bool:
        root_group = root_of(self.objects, pg)
        if isinstance(root_group, str):  # pragma: no cover - GangScheduling's PreEnqueue holds such pods
            failed = Status.from_error(LookupError(root_group))
            self._finish_failed(fwk, pinfo, failed, _CLEAR, self.clock.now())
            return True
        root = self._tree(root_group)
        leaves = root.leaves()
        popped = {pinfo.pod.uid: pinfo}
        for leaf in leaves:
            for p in self._pods_of_group(leaf.group.namespace, leaf.group.name):
                if p.uid in popped or p.node_name or self.cache.is_assumed(p):
                    continue
                got = self.queue.pop_specific(p)
                if got is not None:
                    self._counts["cycles"] += 1
                    popped[p.uid] = got
        everyone: list[QueuedPodInfo] = []
        for leaf in leaves:
            known = self._pods_of_group(leaf.group.namespace, leaf.group.name)
            order = {p.uid: i for i, p in enumerate(known)}
            for m in popped.values():
                p = m.pod
                if p.scheduling_group != leaf.group.name or p.namespace != leaf.group.namespace:
                    continue
                if p.deletion_timestamp is not None:
                    self.recorder.event(p, "Warning", "FailedScheduling",
                                        f"skip schedule deleting pod: {p.namespace}/{p.name}")
                    self.queue.done(p.uid)
                elif self.cache.is_assumed(p):
                    self.queue.done(p.uid)
                else:
                    leaf.members.append(m)
            leaf.members.sort(key=lambda m: (-(m.pod.priority or 0), m.initial_attempt_timestamp or 0.0,
                                             order.get(m.pod.uid, 0)))
            everyone.extend(leaf.members)
        if not everyone:
            return True
        invalid = self._invalid_tree(root, everyone)
        if invalid is not None:
            status = Status.from_error(ValueError(invalid))
            for m in everyone:
                self._finish_failed(self.frameworks.get(m.pod.scheduler_name, fwk), m, status, _CLEAR,
                                    self.clock.now())
            for leaf in leaves:
                assert leaf.leaf is not None
                self._set_condition_on(fwk, leaf.leaf, status)
            return True
        tr = self._tracing
        if tr is None:
            self._composite_cycle(fwk, root, everyone)
        else:
            with tr.cycle(POD_GROUP_CYCLE, everyone[0].pod, fwk.profile_name,
                          **{ATTR_POD_GROUP: root.group.name, ATTR_POD_GROUP_MEMBERS: len(everyone)}):
                self._composite_cycle(fwk, root, everyone)
        return True

    def _invalid_tree(self, root: _Node, queued: Sequence[QueuedPodInfo]) -> str | None:
        """Upstream ``validatePodGroup`` for a tree: one scheduler name, the root's priority and
        one preemption policy for every pod (queued, then scheduled)."""
        names = {m.pod.scheduler_name for m in queued}
        if len(names) > 1:
            a, b = sorted(names)[:2]
            return (f"all pods in a single pod group should have the same .spec.schedulerName set, "
                    f"got: {a!r} and {b!r}")
        want = root.group.spec.priority or 0
        policy = ""
        placed = [p for leaf in root.leaves() if leaf.leaf is not None
                  for p, _node in self._group_placed_in(leaf.leaf)]
        for p in [m.pod for m in queued] + placed:
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

    # -- the cycle -------------------------------------------------------------------------------
    def _composite_cycle(self, fwk: Framework, root: _Node, everyone: Sequence[QueuedPodInfo]) -> None:
        results = self._run_tree(fwk, root)
        root_status = results[root.key].status
        self._complete_tree(root, results, Status.OK)
        for leaf in root.leaves():
            r = results[leaf.key]
            attempts = list(r.attempts)
            for m in leaf.members[len(attempts):]:
                attempts.append(_Attempt(m, CycleState(), status=r.status, started=self.clock.now()))
            results[leaf.key] = attrs.evolve(r, attempts=attempts)
        nominations: dict[str, NominatingInfo] = {}
        if root_status.code is Code.UNSCHEDULABLE:
            nominations = self._composite_post_filter(fwk, root, everyone, results)
        self._outcome(root_status)
        for leaf in root.leaves():
            assert leaf.leaf is not None
            r = results[leaf.key]
            self._submit_pod_group_137(fwk, leaf.members, r.attempts, r.status, r.waiting, nominations)
            self._set_condition_on(fwk, leaf.leaf, r.status)

    def _run_tree(self, fwk: Framework, root: _Node) -> dict[str, _GroupResult]:
        """Upstream ``runRootSchedulingAlgorithm`` for a composite root: every group's result."""
        results: dict[str, _GroupResult] = {}
        result, reverts = self._recursive(fwk, root, results)
        self._revert(fwk, reverts)
        if result.status.code is Code.SUCCESS and not result.any_scheduled:
            status = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE,))
            results[root.key] = attrs.evolve(result, status=status)
        return results

    def _recursive(self, fwk: Framework, node: _Node, results: dict[str, _GroupResult]
                   ) -> tuple[_GroupResult, list[_Attempt]]:
        """Upstream ``podGroupSchedulingRecursiveAlgorithm``: a leaf's PodGroup algorithm in its
        placements, or a composite's placement algorithm; with what to undo."""
        leaf = node.leaf
        if leaf is not None:
            members = node.members
            r = self._with_placements(fwk, members, lambda: self._pod_group_algorithm_137(fwk, members, leaf),
                                      newer=True, group=leaf)
            results[node.key] = r
            return r, list(r.reassumed)
        return self._composite_placements(fwk, node, results)

    def _composite_placements(self, fwk: Framework, node: _Node, results: dict[str, _GroupResult]
                              ) -> tuple[_GroupResult, list[_Attempt]]:
        """Upstream ``compositePodGroupSchedulingPlacementAlgorithm``."""
        def done(r: _GroupResult, reverts: list[_Attempt] | None = None
                 ) -> tuple[_GroupResult, list[_Attempt]]:
            results[node.key] = r
            return r, reverts or []

        snapshot = self._fresh_snapshot()
        nodes = self._nodes_in_placement(snapshot)
        placed = [pn for leaf in node.leaves() if leaf.leaf is not None
                  for pn in self._group_placed_in(leaf.leaf)]
        placements = generate_placements(node.group, nodes, placed, snapshot.get)
        if isinstance(placements, Status):
            return done(_GroupResult([], placements))
        if self._placement_order is not None:
            placements = self._placement_order(placements)
        first: dict[str, _GroupResult] | None = None
        feasible: list[tuple[int, dict[str, _GroupResult]]] = []
        parent = self._placement
        for i, placement in enumerate(placements):
            self._assume_placement(snapshot, placement)
            sub: dict[str, _GroupResult] = {}
            try:
                r, reverts = self._composite_default(fwk, node, sub)
                self._revert(fwk, reverts)
            finally:
                self._placement = parent
            if r.status.code is Code.ERROR:
                return done(r)
            if first is None:
                first = sub
            if r.status.code is Code.SUCCESS:
                feasible.append((i, sub))
        if not feasible:
            assert first is not None
            mine = first[node.key]
            status = no_placement_available(len(placements), mine.status, with_group_error=True,
                                            group_error=ERR_POD_GROUP_UNSCHEDULABLE)
            results.update(first)
            return done(attrs.evolve(mine, status=status))
        best = 0
        if len(feasible) > 1:
            proposals = [[a for r in self._successful_leaves(node, sub) for a in r.attempts
                          if a.status.code is Code.SUCCESS and a.host] for _i, sub in feasible]
            at = self._best_placement(fwk, [placements[i] for i, _s in feasible], proposals, len(placed))
            if isinstance(at, Status):
                return done(_GroupResult([], at))
            best = at
        sub = feasible[best][1]
        again = self._assume_again(fwk, self._successful_leaves(node, sub))
        if isinstance(again, Status):
            return done(_GroupResult([], again))
        results.update(sub)
        return done(sub[node.key], again)

    def _composite_default(self, fwk: Framework, node: _Node, results: dict[str, _GroupResult]
                           ) -> tuple[_GroupResult, list[_Attempt]]:
        """Upstream ``compositePodGroupSchedulingDefaultAlgorithm``: the children in turn, the
        composite's PlacementFeasible before and after each; all undone when it fails."""
        reverts: list[_Attempt] = []

        def done(r: _GroupResult) -> tuple[_GroupResult, list[_Attempt]]:
            if r.status.code is not Code.SUCCESS:
                self._revert(fwk, reverts)
                reverts.clear()
                r = attrs.evolve(r, any_scheduled=False)
            results[node.key] = r
            return r, reverts

        remaining, scheduled = len(node.children), 0
        feasible = self._placement_feasible(fwk, node.group, scheduled, remaining)
        if feasible is not None and feasible.code in (Code.UNSCHEDULABLE, Code.ERROR):
            return done(_GroupResult([], feasible))
        any_scheduled = False
        for child in node.children:
            r, child_reverts = self._recursive(fwk, child, results)
            if r.status.code is Code.ERROR:
                self._revert(fwk, child_reverts)
                return done(_GroupResult([], Status.from_error(RuntimeError(
                    MSG_CHILD_ERROR + _as_error_text(r.status)))))
            any_scheduled = any_scheduled or r.any_scheduled
            reverts.extend(child_reverts)
            remaining -= 1
            if r.status.code is Code.SUCCESS:
                scheduled += 1
            feasible = self._placement_feasible(fwk, node.group, scheduled, remaining)
            if feasible is not None and feasible.code in (Code.UNSCHEDULABLE, Code.ERROR):
                break
        if feasible is not None and feasible.code is Code.WAIT:
            feasible = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE, *feasible.reasons))
        return done(_GroupResult([], feasible or Status.OK, any_scheduled=any_scheduled))

    def _successful_leaves(self, node: _Node, results: dict[str, _GroupResult]) -> list[_GroupResult]:
        """Upstream ``successfulLeafResults``: the leaves whose result and ancestors' succeeded."""
        r = results.get(node.key)
        if r is None or r.status.code is not Code.SUCCESS:
            return []
        out = [x for c in node.children for x in self._successful_leaves(c, results)]
        if r.attempts:
            out.append(r)
        return out

    def _complete_tree(self, node: _Node, results: dict[str, _GroupResult], parent: Status) -> None:
        """Upstream ``completeCompositePodGroupAlgorithmResultMap``: a group without a result, or
        a successful one under a failed parent, takes the parent's status (the same status: what
        PodGroupPostFilter appends to it shows once per group sharing it)."""
        r = results.get(node.key)
        if r is None or (parent.code is not Code.SUCCESS and r.status.code is Code.SUCCESS):
            r = _GroupResult([], parent)
            results[node.key] = r
        for c in node.children:
            self._complete_tree(c, results, r.status)

    # -- PodGroupPostFilter ------------------------------------------------------------------
    def _composite_post_filter(self, fwk: Framework, root: _Node, everyone: Sequence[QueuedPodInfo],
                               results: dict[str, _GroupResult]) -> dict[str, NominatingInfo]:
        """Upstream ``RunPodGroupPostFilterPlugins`` for a composite root and
        ``applyPodGroupPostFilterResult``: DynamicResources does nothing for a composite;
        DefaultPreemption's reason is appended to every group's status (once per group sharing
        it); the members' nominations when the tree waits for an ongoing preemption."""
        reason, waiting, nominations = "", False, {}
        cpg = root.group
        if fwk.get_plugin(DEFAULT_PREEMPTION) is not None and isinstance(cpg, CompositePodGroup):
            ev = GroupPreemption(self, fwk, [m.pod for m in everyone], cpg)
            snapshot = self._fresh_snapshot()
            if ev.preemption_policy() == "Never":
                reason = PREFIX_137 + MSG_NOT_ELIGIBLE_NEVER
            elif ev.ongoing(snapshot):
                reason, waiting = PREFIX_137 + MSG_ONGOING, True
                nominations = {m.pod.uid: NominatingInfo(m.pod.nominated_node_name or "",
                                                         NominatingMode.OVERRIDE) for m in everyone}
            elif any(v.priority < ev.priority for v in ev.victims(snapshot)):
                raise SchedulerError(
                    f"CompositePodGroup {cpg.namespace}/{cpg.name} cannot be placed and has lower-priority "
                    "pods it could preempt: workload-aware preemption of a CompositePodGroup is not "
                    "modelled by schedframe")
            else:
                reason = PREFIX_137 + MSG_NO_VICTIMS
        shared: dict[int, int] = {}
        for r in results.values():
            shared[id(r.status)] = shared.get(id(r.status), 0) + 1
        appended: dict[int, Status] = {}
        for key, r in list(results.items()):
            st = r.status
            if id(st) not in appended:
                appended[id(st)] = Status(st.code, (*st.reasons, *[reason] * shared[id(st)]), st.plugin,
                                          error=st.error)
            results[key] = attrs.evolve(r, status=appended[id(st)], waiting=waiting or r.waiting)
        return nominations
