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

Not modelled: the placement algorithm of ``TopologyAwareWorkloadScheduling`` (the
``placementGenerate``/``placementScore`` extension points), workload-aware preemption
(``WorkloadAwarePreemption``), composite pod groups, and the PodGroup's ``PodGroupScheduled``
condition (the scheduler does not write PodGroup status).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

import attrs

from ..api.objects import Pod
from ..errors import CacheError
from ..framework.cycle_state import CycleState
from ..framework.diagnosis import FitError
from ..framework.interfaces import NominatingInfo, NominatingMode, QueuedPodInfo
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ._schedule_one import ScheduleOneMixin, _CycleError, _internal_error

__all__ = ["ERR_POD_GROUP_UNSCHEDULABLE", "MSG_POD_GROUP_WAITING_FOR_PREEMPTION", "PodGroupCycleMixin"]

#: The group's status when it is feasible only once some member's preemption completes.
MSG_POD_GROUP_WAITING_FOR_PREEMPTION: Final = "pod group is waiting for preemption to complete"
#: The error a member's failure wraps when its group cannot be placed (upstream
#: ``errPodGroupUnschedulable``, the first reason of the status's message).
ERR_POD_GROUP_UNSCHEDULABLE: Final = "pod group is unschedulable"

_CLEAR: Final = NominatingInfo("", NominatingMode.OVERRIDE)


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


class PodGroupCycleMixin(ScheduleOneMixin):
    """The PodGroup scheduling cycle of :class:`~schedframe.Scheduler` (internal)."""

    def _group_members(self, pod: Pod) -> list[Pod]:
        """The unscheduled pods of *pod*'s group (neither bound nor assumed), *pod* excluded, in
        the order the scheduler learnt of them."""
        group, ns = pod.scheduling_group, pod.namespace
        with self._lock:
            pods = self._pods
            return [p for uid in self._by_namespace.get(ns, ()) if (p := pods[uid]).scheduling_group == group
                    and uid != pod.uid and not p.node_name and not self.cache.is_assumed(p)]

    def _schedule_pod_group(self, fwk: Framework, pinfo: QueuedPodInfo) -> bool:
        pod = pinfo.pod
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
        if len(names) > 1:
            a, b = sorted(names)[:2]
            status = Status.from_error(ValueError(
                f"all pods in a single pod group should have the same .spec.schedulerName set, "
                f"got: {a!r} and {b!r}"))
            for m in kept:
                self._finish_failed(self.frameworks.get(m.pod.scheduler_name, fwk), m, status, _CLEAR,
                                    self.clock.now())
            return True
        order = {uid: i for i, uid in enumerate(self._pods)}
        # upstream: by priority, then by when each first entered activeQ (ties: arrival order)
        kept.sort(key=lambda m: (-(m.pod.priority or 0), m.initial_attempt_timestamp or 0.0,
                                 order.get(m.pod.uid, 0)))
        attempts, group_status, waiting = self._pod_group_algorithm(fwk, kept)
        self._submit_pod_group(fwk, kept, attempts, group_status, waiting)
        return True

    # -- the default algorithm -------------------------------------------------------------------
    def _pod_group_algorithm(self, fwk: Framework, members: Sequence[QueuedPodInfo]
                             ) -> tuple[list[_Attempt], Status, bool]:
        """Try every member on the same cluster, each seeing the ones before it placed; undo it
        all. Returns the attempts, the group's status and whether it waits on preemption."""
        attempts: list[_Attempt] = []
        group = Status(Code.UNSCHEDULABLE, (ERR_POD_GROUP_UNSCHEDULABLE,))
        waiting = False
        placed: list[_Attempt] = []
        requires_preemption = False
        try:
            for m in members:
                a = self._try_member(fwk, m)
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
            for a in reversed(placed):
                assert a.assumed is not None
                self._unreserve_and_forget(fwk, a.state, a.assumed, a.host)
                if a.pinfo.pod.nominated_node_name:
                    self.queue.add_nominated_pod(a.pinfo.pod_info,
                                                 NominatingInfo(a.pinfo.pod.nominated_node_name,
                                                                NominatingMode.OVERRIDE))
        return attempts, group, waiting

    def _try_member(self, fwk: Framework, pinfo: QueuedPodInfo) -> _Attempt:
        """One member's Filter/Score (and PostFilter), then, when it has a node (or a nominated
        one), its assume, Reserve and Permit on the shared cluster, not parked."""
        pod = pinfo.pod
        a = _Attempt(pinfo, CycleState(), started=self.clock.now())
        self._current = (pod, fwk.profile_name)
        try:
            try:
                a.host = self._schedule_pod(fwk, a.state, pod)
            except FitError as fit:
                a.nominating = _CLEAR
                if fwk.has_post_filter_plugins():
                    result, pstatus = fwk.run_post_filter_plugins(a.state, pod, fit.diagnosis.node_to_status)
                    fit.diagnosis.post_filter_msg = pstatus.message
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
            status = self._assume_reserve_permit(fwk, a.state, trial, a.host, park=False)
            if status.code is not Code.SUCCESS and status.code is not Code.WAIT:
                a.status, a.nominating, a.requires_preemption = status, _CLEAR, False
                return a
            a.assumed = trial.pod
            a.permit = status
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
        for i, m in enumerate(members):
            a = attempts[i] if i < len(attempts) else _Attempt(m, CycleState(), status=group,
                                                               started=self.clock.now())
            if group.code is Code.ERROR:
                status = a.status if a.status.code is Code.ERROR else group
                self._finish_failed(fwk, m, status, _CLEAR, a.started)
                continue
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
