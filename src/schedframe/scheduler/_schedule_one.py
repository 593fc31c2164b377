"""The Scheduler's scheduling and binding cycles (upstream ``pkg/scheduler/schedule_one.go``).

Scheduling cycle: pop a pod; skip it if it is being deleted or already assumed; refresh the
snapshot (incrementally); PreFilter; try the nominated node first; Filter over a round-robin
window of nodes sized by ``percentageOfNodesToScore``; on rejection run PostFilter (preemption)
and report upstream's ``"0/5 nodes are available: ..."`` message; PreScore/Score; select the
best node; assume the pod in the cache; Reserve; Permit. Binding cycle: wait on Permit, PreBind,
Bind (an extender's or the plugins'), PostBind. Every failure unreserves, forgets the assumed pod
and requeues it with the right backoff and rejecting plugins (the failure handler).

Part of :class:`~schedframe.Scheduler` (a mixin); imports ``_state`` and the layers below.
"""

from __future__ import annotations

import concurrent.futures
import logging
import operator
from collections.abc import Callable, Sequence
from itertools import compress, islice, repeat
from typing import Any, Final

import attrs

from ..api.objects import Pod
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..cache.snapshot import Snapshot
from ..errors import CacheError, SchedulerError
from ..framework._tracing import ATTR_NODES, ATTR_NODES_FEASIBLE, ATTR_SCORE, SCHEDULING_CYCLE
from ..framework.cycle_state import CycleState
from ..framework.diagnosis import (
    ERR_NO_NODES_AVAILABLE,
    Diagnosis,
    FitError,
    outside_pre_filter_result,
    single_node_failure,
)
from ..framework.interfaces import (
    NominatingInfo,
    NominatingMode,
    PostFilterResult,
    PreFilterResult,
    QueuedPodInfo,
)
from ..framework.runtime import Framework
from ..framework.status import Code, Status
from ..framework.victims_memo import VictimsMemo, nominator_checks
from ..queue.scheduling_queue import EVENT_ASSIGNED_POD_ADD, EVENT_ASSIGNED_POD_DELETE
from ._state import FilterPhase, SchedulerBase, _Binding

__all__ = [
    "MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND",
    "MIN_FEASIBLE_NODES_TO_FIND",
    "ScheduleOneMixin",
]

logger = logging.getLogger("schedframe")

#: Upstream ``minFeasibleNodesToFind``.
MIN_FEASIBLE_NODES_TO_FIND: Final = 100
#: Upstream ``minFeasibleNodesPercentageToFind``.
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND: Final = 5

_SUCCESS: Final = Code.SUCCESS
_CLEAR_NOMINATED: Final = NominatingInfo("", NominatingMode.OVERRIDE)
#: with more nodes with nominated pods than this in a search (and node-local Filter plugins),
#: one batch search covers the runs between them
_MANY_NOMINATED: Final = 8


class _CycleError(Exception):
    """An ERROR status ending a scheduling cycle (internal)."""

    def __init__(self, status: Status) -> None:
        super().__init__(status.message)
        self.status = status


class ScheduleOneMixin(SchedulerBase):
    """The scheduling and binding cycles of :class:`~schedframe.Scheduler` (internal)."""

    #: applied to the snapshot after each update from the cache (workload-aware preemption's
    #: evaluation leaves its victims out of a private snapshot)
    _snapshot_mask: Callable[[Snapshot], None] | None = None

    # ------------------------------------------------------------------------------------------
    # scheduling

    def schedule_one(self) -> bool:
        """Run one scheduling cycle (and, in deterministic mode, its binding cycle).

        Returns False when no pod was ready to schedule. Safe to call from several threads: the
        cycles run one at a time (see the module docstring).
        """
        if self._closed:
            raise SchedulerError("the scheduler is closed")
        with self._lock:
            return self._schedule_one_locked()

    def verify_snapshot(self, *, repair: bool = True) -> list[str]:
        """Compare the snapshot the cycles read with the cache (see
        :meth:`Cache.verify_snapshot <schedframe.cache.Cache.verify_snapshot>`): the list of
        differences, empty when none. A difference means a plugin modified a NodeInfo (or the
        node list) it was given; with *repair* (the default) the snapshot is then rebuilt from
        the cache at the next cycle, so no decision is taken on the corrupted copy again.

        .. versionadded:: 0.1.0
        """
        with self._lock:
            return self.cache.verify_snapshot(self._snapshot, repair=repair)

    def _schedule_one_locked(self) -> bool:
        scheduled = self._schedule_one_unverified()
        if scheduled and self.verify_snapshots:
            current = self._last_cycle_pod
            problems = self.cache.verify_snapshot(self._snapshot, repair=True)
            if problems:
                raise CacheError(
                    f"the scheduling cycle of pod {current} modified the snapshot: "
                    f"{'; '.join(problems[:5])}; a plugin changed a NodeInfo it was given "
                    "(plugins must treat NodeInfo as read-only); the snapshot is rebuilt from the "
                    "cache")
        return scheduled

    def _schedule_one_unverified(self) -> bool:
        if not self.threaded:
            self._resume_parked()
        pinfo = self.queue.pop()
        if pinfo is None:
            return False
        if self.on_pop is not None:
            self.on_pop(pinfo)
        self._counts["cycles"] += 1
        pod = pinfo.pod
        self._last_cycle_pod = pod.key
        fwk = self.frameworks.get(pod.scheduler_name)
        if fwk is None:  # pragma: no cover - update_pod takes pods of other schedulers out
            self.queue.done(pod.uid)
            return True
        if pod.deletion_timestamp is not None:
            self.recorder.event(pod, "Warning", "FailedScheduling",
                                f"skip schedule deleting pod: {pod.namespace}/{pod.name}")
            self.queue.done(pod.uid)
            return True
        if self.cache.is_assumed(pod):
            self.queue.done(pod.uid)
            return True
        if pod.scheduling_group is not None and self._pod_group_cycles:
            return self._schedule_pod_group(fwk, pinfo)

        tr = self._tracing
        if tr is None:
            state, host, start, status = self._cycle(fwk, pinfo)
            span = None
        else:
            with tr.cycle(SCHEDULING_CYCLE, pod, fwk.profile_name) as span:
                state, host, start, status = self._cycle(fwk, pinfo)
                tr.outcome(span, status, host)
        if status.code is _SUCCESS:
            self._start_binding(fwk, state, pinfo, host, start, pod, status, span)
        return True

    def _cycle(self, fwk: Framework, pinfo: QueuedPodInfo) -> tuple[CycleState, str, float, Status]:
        """One pod's scheduling cycle: ``(state, host, start, status)``; a failure is handled
        (the pod requeued), a success's binding cycle is left to the caller."""
        pod = pinfo.pod
        start = self.clock.now()
        state = CycleState()
        self._current = (pod, fwk.profile_name)
        try:
            host, nominating, status = self._scheduling_cycle(state, fwk, pinfo)
        except Exception as exc:
            # a bug escaping the framework must not lose the pod: an ERROR for it alone
            logger.exception("scheduling cycle of %s failed", pod.key)
            self._current = None
            self._abort_assumed(fwk, state, pinfo)
            host, nominating, status = "", _CLEAR_NOMINATED, _internal_error(exc)
        except BaseException as exc:
            # KeyboardInterrupt, SystemExit...: leave the cache and the queue consistent (nothing
            # reserved, assumed or waiting; the pod requeued), then let it through
            self._current = None
            try:
                self._abort_assumed(fwk, state, pinfo)
            finally:
                self._failure_handler(fwk, pinfo, _internal_error(exc), _CLEAR_NOMINATED)
            raise
        finally:
            self._current = None
        if status.code is not _SUCCESS:
            self._failure_handler(fwk, pinfo, status, nominating)
            self._hook("schedframe_cycle_finished", pod=pod, status=status, node_name="",
                       profile=fwk.profile_name, duration=self.clock.now() - start)
        return state, host, start, status

    def _start_binding(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo, host: str,
                       start: float, pod: Pod, status: Status, parent_span: Any = None) -> None:
        """The end of a successful scheduling cycle: the hooks, then the binding cycle (on the
        executor, or its Permit wait parked). With tracing, the binding cycle's span starts here,
        a child of *parent_span* (the scheduling cycle's), else of the current span."""
        assumed = pinfo.pod
        binding = _Binding(fwk, state, pinfo, host, start, pod)
        tr = self._tracing
        try:
            self._hook("schedframe_pod_scheduled", pod=assumed, node_name=host, profile=fwk.profile_name)
            self._hook("schedframe_cycle_finished", pod=assumed, status=status, node_name=host,
                       profile=fwk.profile_name, duration=self.clock.now() - start)
            if tr is not None:
                binding.span = tr.start_binding(assumed, host, fwk.profile_name,
                                                tr.current() if parent_span is None else parent_span)
            future = self._executor.submit(self._binding_thread, binding) if self._executor else None
        except BaseException as exc:
            # an observer hook interrupted (KeyboardInterrupt...), or the executor was shut down
            # by a concurrent close(): the binding cycle never starts, so undo the reservation
            if tr is None or binding.span is None:
                self._binding_cycle_error(binding, _internal_error(exc))
            else:
                with tr.resume(binding.span):
                    self._binding_cycle_error(binding, _internal_error(exc))
            raise
        if future is not None:
            self._futures.add(future)
            future.add_done_callback(self._binding_done)
        else:
            decision = self._poll_permit(binding)
            if decision is None:
                self._parked[assumed.uid] = binding
            else:
                self._after_permit(binding, decision)
            self._resume_parked()

    def _schedule_pod_group(self, fwk: Framework, pinfo: QueuedPodInfo) -> bool:
        """The PodGroup scheduling cycle of *pinfo*'s group (1.36 on; :mod:`._pod_group`)."""
        raise NotImplementedError  # pragma: no cover - the Scheduler's mixin defines it

    def _scheduling_cycle(self, state: CycleState, fwk: Framework, pinfo: QueuedPodInfo
                          ) -> tuple[str, NominatingInfo | None, Status]:
        pod = pinfo.pod
        try:
            host = self._schedule_pod(fwk, state, pod)
        except FitError as fit:
            if not fwk.has_post_filter_plugins():
                return "", _CLEAR_NOMINATED, Status(Code.UNSCHEDULABLE, (fit.message,), error=fit)
            result = self._run_post_filter(fwk, state, pod, fit)
            nominating = result.nominating_info if result is not None else None
            return "", nominating, Status(Code.UNSCHEDULABLE, (fit.message,), error=fit)
        except _CycleError as err:
            return "", _CLEAR_NOMINATED, err.status

        status = self._assume_reserve_permit(fwk, state, pinfo, host)
        if status.code is not _SUCCESS and status.code is not Code.WAIT:
            return "", _CLEAR_NOMINATED, status
        to_activate = state.pods_to_activate
        if to_activate:
            self.queue.activate(list(to_activate.values()))
            state.pods_to_activate = {}
        return host, None, Status.OK

    def _run_post_filter(self, fwk: Framework, state: CycleState, pod: Pod, fit: FitError
                         ) -> PostFilterResult | None:
        """PostFilter on *fit*'s rejections; its status's message goes to the diagnosis."""
        tr = self._tracing
        m = fit.diagnosis.node_to_status
        result, pstatus = (fwk.run_post_filter_plugins(state, pod, m) if tr is None else
                           tr.call("PostFilter", "", fwk.run_post_filter_plugins, state, pod, m))
        fit.diagnosis.post_filter_msg = pstatus.message
        return result

    def _assume_reserve(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo, host: str) -> Status:
        """Assume the pod on *host* and run Reserve (upstream ``assumeAndReserve``); the failure
        with everything undone. *pinfo* then holds the assumed pod."""
        pod = pinfo.pod
        assumed = _assigned(pod, host)
        pinfo.pod_info = attrs.evolve(pinfo.pod_info, pod=assumed)
        try:
            self.cache.assume_pod(assumed)
        except CacheError as exc:
            return Status.from_error(exc)
        self.nominator.delete(assumed)
        tr = self._tracing
        status = (fwk.run_reserve_plugins_reserve(state, assumed, host) if tr is None else
                  tr.call("Reserve", host, fwk.run_reserve_plugins_reserve, state, assumed, host))
        if status.code is not _SUCCESS:
            self._unreserve_and_forget(fwk, state, assumed, host)
            return single_node_failure(pod, host, status)
        return status

    def _assume_reserve_permit(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo, host: str,
                               *, park: bool = True) -> Status:
        """Assume the pod on *host*, then run Reserve and Permit (upstream ``assumeAndReserve``
        and the Permit of ``prepareForBindingCycle``): success, WAIT (parked at Permit unless
        *park* is false), or the failure with everything undone. *pinfo* then holds the assumed
        pod."""
        pod = pinfo.pod
        status = self._assume_reserve(fwk, state, pinfo, host)
        if status.code is not _SUCCESS:
            return status
        assumed = pinfo.pod
        tr = self._tracing
        status = (fwk.run_permit_plugins(state, assumed, host, park=park) if tr is None else
                  tr.call("Permit", host, fwk.run_permit_plugins, state, assumed, host, park=park))
        if status.code is not _SUCCESS and status.code is not Code.WAIT:
            self._unreserve_and_forget(fwk, state, assumed, host)
            return single_node_failure(pod, host, status)
        return status

    def _unreserve_and_forget(self, fwk: Framework, state: CycleState, assumed: Pod, host: str) -> None:
        """Unreserve, then forget the assumed pod -- even when an Unreserve plugin raises a
        BaseException (re-raised once the pod is forgotten)."""
        tr = self._tracing
        try:
            if tr is None:
                fwk.run_reserve_plugins_unreserve(state, assumed, host)
            else:
                tr.call("Unreserve", host, fwk.run_reserve_plugins_unreserve, state, assumed, host)
        finally:
            if self.cache.is_assumed(assumed):
                self._forget(assumed)

    def _forget(self, assumed: Pod) -> bool:
        try:
            self.cache.forget_pod(assumed)
        except CacheError as exc:
            logger.warning("scheduler cache forget_pod failed: %s", exc)
            return False
        return True

    def _schedule_pod(self, fwk: Framework, state: CycleState, pod: Pod) -> str:
        snapshot = self._snapshot
        self.cache.update_snapshot(snapshot)
        if self._snapshot_mask is not None:  # workload-aware preemption's victims left out
            self._snapshot_mask(snapshot)
        fwk.set_snapshot(snapshot)
        placement = self._placement
        num_nodes = snapshot.num_nodes() if placement is None else len(placement.nodes)
        if num_nodes == 0:
            raise _CycleError(Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NO_NODES_AVAILABLE,)))
        start = self._next_start_node_index
        feasible, diagnosis = self._find_nodes_that_fit_pod(fwk, state, pod, snapshot)
        probe = self._on_filtered
        if probe is not None:
            probe(FilterPhase(pod, fwk, snapshot, start, self._next_start_node_index,
                              tuple(ni.name for ni in feasible), diagnosis, state))
        if not feasible:
            raise FitError(pod, num_nodes, diagnosis)
        if len(feasible) == 1:
            return feasible[0].name
        return self._select_host(feasible, self._prioritize_nodes(fwk, state, pod, feasible))

    def _find_nodes_that_fit_pod(self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot
                                 ) -> tuple[list[NodeInfo], Diagnosis]:
        diagnosis = Diagnosis()
        tr = self._tracing
        pre_res, status, rejectors = (fwk.run_pre_filter_plugins(state, pod) if tr is None else
                                      tr.call("PreFilter", "", fwk.run_pre_filter_plugins, state, pod))
        diagnosis.unschedulable_plugins = set(rejectors)
        if status.code is not _SUCCESS:
            if not status.is_rejected():
                raise _CycleError(status)
            diagnosis.reject_all(status)
            return [], diagnosis
        if tr is None:
            return self._filter_nodes(fwk, state, pod, snapshot, diagnosis, pre_res, rejectors), diagnosis
        with tr.point("Filter") as span:
            feasible = self._filter_nodes(fwk, state, pod, snapshot, diagnosis, pre_res, rejectors)
            span.set_attribute(ATTR_NODES, len(feasible) + len(diagnosis.node_to_status))
            span.set_attribute(ATTR_NODES_FEASIBLE, len(feasible))
            tr.outcome(span, Status.OK if feasible else Status(Code.UNSCHEDULABLE))
        return feasible, diagnosis

    def _filter_nodes(self, fwk: Framework, state: CycleState, pod: Pod, snapshot: Snapshot,
                      diagnosis: Diagnosis, pre_res: PreFilterResult | None, rejectors: set[str]
                      ) -> list[NodeInfo]:
        """The Filter part of :meth:`_find_nodes_that_fit_pod`: the nominated node first, then
        the round robin over the nodes PreFilter left, then the extenders' filters."""
        placement = self._placement
        if placement is None:
            all_nodes = snapshot.list()
        else:  # a PodGroup cycle trying one placement: its nodes only (ListNodesInPlacement)
            get_node = snapshot.get
            all_nodes = [ni for name in placement.nodes if (ni := get_node(name)) is not None]
        if pod.nominated_node_name and (placement is None or pod.nominated_node_name in placement.members):
            nominated = snapshot.get(pod.nominated_node_name)
            if nominated is not None:
                feasible, err = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, [nominated])
                if err is None and feasible and self.extenders:
                    feasible, err = self._find_nodes_that_pass_extenders(pod, feasible, diagnosis)
                if err is None and feasible:
                    return feasible

        nodes: Sequence[NodeInfo] = all_nodes
        if pre_res is not None and pre_res.node_names is not None:
            get = snapshot.get
            nodes = [ni for name in sorted(pre_res.node_names) if (ni := get(name)) is not None
                     and (placement is None or name in placement.members)]
            diagnosis.node_to_status.absent_nodes_status = outside_pre_filter_result(rejectors)
        feasible, err = self._find_nodes_that_pass_filters(fwk, state, pod, diagnosis, nodes)
        processed = len(feasible) + len(diagnosis.node_to_status)
        self._next_start_node_index = (self._next_start_node_index + processed) % len(all_nodes)
        if err is not None:
            raise _CycleError(err)
        if self.extenders:
            feasible, err = self._find_nodes_that_pass_extenders(pod, feasible, diagnosis)
            if err is not None:
                raise _CycleError(err)
        return feasible

    def num_feasible_nodes_to_find(self, percentage: int | None, num_all_nodes: int) -> int:
        """How many feasible nodes to find before scoring (upstream ``numFeasibleNodesToFind``):
        all nodes below 100; else *percentage* (the profile's, else the configuration's; unset or
        0 is adaptive: ``50 - nodes/125`` percent, at least 5%) of them, at least 100."""
        if num_all_nodes < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all_nodes
        pct = percentage if percentage is not None else self.config.percentage_of_nodes_to_score
        if not pct:
            pct = max(50 - num_all_nodes // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
        return max(num_all_nodes * pct // 100, MIN_FEASIBLE_NODES_TO_FIND)

    def _find_nodes_that_pass_filters(self, fwk: Framework, state: CycleState, pod: Pod,
                                      diagnosis: Diagnosis, nodes: Sequence[NodeInfo]
                                      ) -> tuple[list[NodeInfo], Status | None]:
        nodes = nodes if isinstance(nodes, list) else list(nodes)
        n = len(nodes)
        if n == 0:
            return [], None
        to_find = self.num_feasible_nodes_to_find(fwk.percentage_of_nodes_to_score, n)
        if not fwk.has_score_plugins() and not self._extenders_filter_or_score:
            to_find = 1
        start = self._next_start_node_index % n
        if not fwk.has_filter_plugins():
            return [nodes[(start + i) % n] for i in range(min(to_find, n))], None
        feasible, err = self._search(fwk, state, pod, diagnosis, nodes, start,
                                     to_find + 1 if to_find < n else to_find)
        if len(feasible) > to_find:
            # Upstream's search (one worker) goes on after the last feasible node it needs,
            # filtering, until it meets one more feasible node: the nodes rejected on the way
            # count as visited (the next cycle's round robin starts after them); that node is
            # filtered but neither counted nor scored.
            del feasible[to_find:]
        return feasible, err

    def _search(self, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                nodes: list[NodeInfo], start: int, to_find: int) -> tuple[list[NodeInfo], Status | None]:
        """The round robin from *start* until *to_find* nodes pass (see
        :meth:`_find_nodes_that_pass_filters`)."""
        n = len(nodes)
        feasible: list[NodeInfo] = []
        remaining = to_find
        statuses = diagnosis.node_to_status
        unsched = diagnosis.unschedulable_plugins
        nominator = self.nominator
        # Nodes with nominated pods go through run_filter_plugins_with_nominated_pods one by one;
        # the runs of nodes between them through the framework's batch search (the same
        # statuses as run_filter_plugins node by node), in round-robin order from *start*.
        if nominator:
            order: Sequence[NodeInfo] = nodes[start:] + nodes[:start] if start else nodes
            marks = [i for i, ni in enumerate(order) if nominator.has_nominated_pods(ni.name)]
            marks.append(n)
        else:
            order, marks = nodes, [n]
        prev = 0
        # outcomes on nodes with nominated pods, remembered per pod shape while the node and its
        # nominated pods stay the same (only when every Filter plugin looks at the node alone)
        memo: VictimsMemo | None = None
        memo_ready = False
        if len(marks) > _MANY_NOMINATED:
            memo = self._nominated_outcomes.memo(fwk, state, pod, nominator.nominated_pods_for_node, n,
                                                        *nominator_checks(nominator))
            memo_ready = True
            if memo is not None:  # in-tree node-local Filter plugins: one batch search
                done = self._search_around_nominated(fwk, state, pod, diagnosis, nodes, start, order, marks,
                                                     remaining, memo)
                if done is not None:
                    return done
        for mark in marks:
            if prev < mark:
                found, rejected, err = fwk.run_filter_plugins_on_nodes(
                    state, pod, order[prev:mark] if prev or mark < n else order, remaining,
                    0 if nominator else start)
                if rejected:
                    _note_rejected(diagnosis, rejected)
                feasible.extend(found)
                if err is not None:
                    return feasible, err
                remaining -= len(found)
                if not remaining:
                    break
            if mark == len(order):
                break
            node_info = order[mark]
            prev = mark + 1
            if not memo_ready:
                memo = self._nominated_outcomes.memo(fwk, state, pod, nominator.nominated_pods_for_node, n,
                                                        *nominator_checks(nominator))
                memo_ready = True
            remembered = memo.get(node_info) if memo is not None else None
            if remembered is not None:
                status = remembered
            else:
                status = fwk.run_filter_plugins_with_nominated_pods(state, pod, node_info)
                if memo is not None and status.code is not Code.ERROR:
                    memo.put(node_info, status)
            code = status.code
            if code is _SUCCESS:
                feasible.append(node_info)
                remaining -= 1
                if not remaining:
                    break
                continue
            if code is Code.ERROR:
                return feasible, status
            statuses.set(node_info.name, status)
            plugin = status.plugin
            if plugin:
                if code is Code.PENDING:
                    diagnosis.pending_plugins.add(plugin)
                unsched.add(plugin)
        return feasible, None

    def _search_around_nominated(self, fwk: Framework, state: CycleState, pod: Pod, diagnosis: Diagnosis,
                                 nodes: list[NodeInfo], start: int, order: Sequence[NodeInfo],
                                 marks: list[int], remaining: int, memo: VictimsMemo
                                 ) -> tuple[list[NodeInfo], Status | None] | None:
        """The search of :meth:`_find_nodes_that_pass_filters` when some nodes (at *marks* in
        visiting *order*, the last mark being ``len(order)``) have nominated pods: one batch
        search over the whole round robin, then those nodes judged in place with their nominated
        pods. The same outcome as filtering the runs between them one by one: a node that passes
        with its nominated pods passes without them (the second pass of
        ``run_filter_plugins_with_nominated_pods`` is the plain Filter run), so among the first
        ``remaining + len(marks) - 1`` nodes that pass without them are at least *remaining*
        that pass with them, and the batch has visited every node the search needs. Returns
        ``None`` (nothing recorded) when the batch met an ERROR on a node with nominated pods:
        the caller then searches run by run. Used with *memo* only, that is when every Filter
        plugin is an in-tree node-local one: the plain Filter run it adds on those nodes has no
        effect but its cost."""
        n = len(order)
        marked = len(marks) - 1
        found, rejected, err = fwk.run_filter_plugins_on_nodes(state, pod, nodes, remaining + marked, start)
        feasible: list[NodeInfo] = []
        out: list[tuple[NodeInfo, Status]] = []
        fi = ri = mi = 0
        next_mark = marks[0]
        error: Status | None = None
        for i in range(n):
            ni = order[i]
            plain: Status | None
            if fi < len(found) and found[fi] is ni:
                plain = None
                fi += 1
            elif ri < len(rejected) and rejected[ri][0] is ni:
                plain = rejected[ri][1]
                ri += 1
            else:  # the batch's ERROR node (it visited every node before it)
                if err is None:  # pragma: no cover - the batch stops after enough feasible nodes
                    break
                if i == next_mark:
                    return None
                error = err
                break
            if i == next_mark:
                mi += 1
                next_mark = marks[mi]
                remembered = memo.get(ni)
                if remembered is not None:
                    status = remembered
                else:
                    status = fwk.run_filter_plugins_with_nominated_pods(state, pod, ni)
                    if status.code is not Code.ERROR:
                        memo.put(ni, status)
                if status.code is Code.ERROR:
                    error = status
                    break
                plain = None if status.code is _SUCCESS else status
            if plain is None:
                feasible.append(ni)
                remaining -= 1
                if not remaining:
                    break
            else:
                out.append((ni, plain))
        if out:
            _note_rejected(diagnosis, out)
        return feasible, error

    def _prioritize_nodes(self, fwk: Framework, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                          ) -> list[int]:
        """Each node's total weighted score, in node order (all 1 without Score plugins and
        extenders), extenders' prioritize scores added -- less, without extenders, the weighted
        scores every node got alike (the same host and ties: only ``_select_host`` reads them)."""
        if not fwk.has_score_plugins() and not self.extenders:
            return [1] * len(nodes)
        tr = self._tracing
        status = (fwk.run_pre_score_plugins(state, pod, nodes) if tr is None else
                  tr.call("PreScore", "", fwk.run_pre_score_plugins, state, pod, nodes))
        if status.code is not _SUCCESS:
            raise _CycleError(status)
        if tr is None:
            totals, same, status = fwk._score_totals_apart(state, pod, nodes)
        else:
            with tr.point("Score") as span:
                totals, same, status = fwk._score_totals_apart(state, pod, nodes)
                span.set_attribute(ATTR_NODES, len(nodes))
                if totals:  # the best node's total weighted score (extenders' not counted)
                    span.set_attribute(ATTR_SCORE, max(totals) + same)
                tr.outcome(span, status)
        if status.code is not _SUCCESS:
            raise _CycleError(status)
        if self.extenders:
            totals = self._add_extender_scores(pod, nodes, [t + same for t in totals])
        return totals

    def _select_host(self, nodes: Sequence[NodeInfo], totals: Sequence[int]) -> str:
        """The node with the highest total score; ties broken uniformly at random with the seeded
        RNG (the distribution of upstream's reservoir sampling in ``selectHost``, one draw)."""
        max_score = max(totals)
        count = totals.count(max_score)
        if count == 1:
            return nodes[totals.index(max_score)].name
        ties = compress(range(len(totals)), map(operator.eq, totals, repeat(max_score)))
        if self._tie_break is not None:
            return min((nodes[i].name for i in ties), key=self._tie_break)
        r = self._rng.randrange(count)
        if count == len(totals):  # every node ties
            return nodes[r].name
        return nodes[next(islice(ties, r, None))].name  # the r-th tie, scanning no further

    # ------------------------------------------------------------------------------------------
    # binding

    def _binding_thread(self, binding: _Binding) -> None:
        interrupted: BaseException | None = None
        try:
            decision = binding.fwk.wait_on_permit(binding.pinfo.pod, block=True)
        except BaseException as exc:
            if isinstance(exc, Exception):
                logger.exception("waiting on permit for %s failed", binding.pinfo.pod.key)
            else:
                interrupted = exc
            self.waiting_pods.remove(binding.pinfo.pod.uid)
            decision = _internal_error(exc)
        self._after_permit(binding, decision if decision is not None else Status.OK)
        if interrupted is not None:
            raise interrupted

    def _binding_done(self, future: concurrent.futures.Future[None]) -> None:
        with self._lock:
            self._futures.discard(future)
        if not future.cancelled():
            exc = future.exception()
            if exc is not None:  # a BaseException, after the cycle was undone
                logger.error("a binding thread was interrupted by %s: %s", type(exc).__name__, exc)

    def _resume_parked(self) -> bool:
        """Continue the binding cycles of parked pods whose Permit wait is decided; returns
        whether any did."""
        with self._lock:
            return self._resume_parked_locked()

    def _resume_parked_locked(self) -> bool:
        any_progress = False
        while self._parked:
            progressed = False
            for uid, binding in list(self._parked.items()):
                decision = self._poll_permit(binding)
                if decision is None:
                    continue
                del self._parked[uid]
                self._after_permit(binding, decision)
                progressed = True
            if not progressed:
                break
            any_progress = True
        return any_progress

    def _poll_permit(self, b: _Binding) -> Status | None:
        try:
            return b.fwk.wait_on_permit(b.pinfo.pod, block=False)
        except Exception as exc:
            logger.exception("waiting on permit for %s failed", b.pinfo.pod.key)
            self.waiting_pods.remove(b.pinfo.pod.uid)
            return _internal_error(exc)

    def _abort_assumed(self, fwk: Framework, state: CycleState, pinfo: QueuedPodInfo) -> None:
        """Undo what a cycle that crashed may have done: waiting, reservation, assumption."""
        pod = pinfo.pod
        self.waiting_pods.remove(pod.uid)
        if pod.node_name and self.cache.is_assumed(pod):
            self._unreserve_and_forget(fwk, state, pod, pod.node_name)

    def _after_permit(self, b: _Binding, decision: Status) -> None:
        """The binding cycle once Permit decided (in its span, when tracing)."""
        tr = self._tracing
        if tr is None or b.span is None:
            self._binding_cycle(b, decision)
        else:
            with tr.resume(b.span):
                self._binding_cycle(b, decision)

    def _binding_cycle(self, b: _Binding, decision: Status) -> None:
        try:
            self._after_permit_unsafe(b, decision)
        except Exception as exc:
            if b.bound or b.undone:  # pragma: no cover - PostBind and the hooks catch their own
                raise
            logger.exception("binding cycle of %s failed", b.pinfo.pod.key)
            self._binding_cycle_error(b, _internal_error(exc))
        except BaseException as exc:
            # KeyboardInterrupt, SystemExit... in PreBind, Bind (or a binder): unreserve, forget
            # and requeue first, so nothing stays assumed, then let it through. Once bound (an
            # interruption in PostBind) there is nothing to undo.
            if not b.bound and not b.undone:
                self._binding_cycle_error(b, _internal_error(exc))
            raise

    def _after_permit_unsafe(self, b: _Binding, decision: Status) -> None:
        fwk, state, pinfo, host = b.fwk, b.state, b.pinfo, b.host
        assumed = pinfo.pod
        if decision.code is not _SUCCESS:
            if decision.is_rejected():
                diagnosis = Diagnosis()
                diagnosis.node_to_status.set(host, decision)
                diagnosis.unschedulable_plugins = {decision.plugin}
                fit = FitError(assumed, 1, diagnosis)
                decision = Status(decision.code, (fit.message,), decision.plugin, fit)
            self._binding_cycle_error(b, decision)
            return
        with self._lock:
            self.queue.done(assumed.uid)
        tr = self._tracing
        status = (fwk.run_pre_bind_plugins(state, assumed, host) if tr is None else
                  tr.call("PreBind", host, fwk.run_pre_bind_plugins, state, assumed, host))
        if status.code is _SUCCESS:
            status = (self._bind(fwk, state, assumed, host) if tr is None else
                      tr.call("Bind", host, self._bind, fwk, state, assumed, host))
            self.cache.finish_binding(assumed)
        if status.code is not _SUCCESS:
            self._binding_cycle_error(b, status)
            return
        self.recorder.event(assumed, "Normal", "Scheduled",
                            f"Successfully assigned {assumed.namespace}/{assumed.name} to {host}")
        bound = self._confirm_bound(assumed, host, b.original)
        b.bound = True
        if bound is not None:
            self._hook("schedframe_pod_bound", pod=bound, node_name=host, profile=fwk.profile_name)
        if tr is None:
            fwk.run_post_bind_plugins(state, assumed, host)
        else:
            tr.outcome(b.span, Status.OK)
            tr.call("PostBind", host, fwk.run_post_bind_plugins, state, assumed, host)
        to_activate = state.pods_to_activate
        if to_activate:
            with self._lock:
                self.queue.activate(list(to_activate.values()))

    def _bind(self, fwk: Framework, state: CycleState, assumed: Pod, host: str) -> Status:
        """Bind: the binding extender's, if one is interested in the pod, else the plugins'."""
        bound_by_extender = self._extenders_binding(assumed, host) if self.extenders else None
        return fwk.run_bind_plugins(state, assumed, host) if bound_by_extender is None else bound_by_extender

    def _confirm_bound(self, assumed: Pod, host: str, original: Pod) -> Pod | None:
        """The API server confirmed the binding: the pod is bound (an ``AssignedPodAdd``)."""
        with self._lock:
            cur = self._pods.get(assumed.uid)
            if cur is None:  # deleted while binding
                if self.cache.is_assumed(assumed):
                    self._forget(assumed)
                return None
            bound = assumed if cur is original else _assigned(cur, host)
            self._pods[bound.uid] = bound
            self._unbound.pop(bound.uid, None)
            self._failures.pop(bound.uid, None)
            try:
                self.cache.add_pod(bound)
            except CacheError as exc:  # already confirmed: a live informer saw the binding first
                logger.debug("confirming binding of %s: %s", bound.key, exc)
            self._counts["bound"] += 1
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_ADD, None, bound)
            return bound

    def _binding_cycle_error(self, b: _Binding, status: Status) -> None:
        # the lock first, then the queue's (plugins' hints and PreEnqueue may list pods)
        with self._lock:
            self._binding_cycle_error_locked(b, status)

    def _binding_cycle_error_locked(self, b: _Binding, status: Status) -> None:
        b.undone = True
        assumed = b.pinfo.pod
        tr = self._tracing
        try:
            if tr is None:
                b.fwk.run_reserve_plugins_unreserve(b.state, assumed, b.host)
            else:
                if b.span is not None:
                    tr.outcome(b.span, status)
                tr.call("Unreserve", b.host, b.fwk.run_reserve_plugins_unreserve, b.state, assumed, b.host)
        except BaseException:
            # an interrupted Unreserve: still forget and requeue, then let it through
            if self.cache.is_assumed(assumed):
                self._forget(assumed)
            self._failure_handler(b.fwk, b.pinfo, status, _CLEAR_NOMINATED)
            raise
        forgotten = self.cache.is_assumed(assumed) and self._forget(assumed)
        deferred = False
        if forgotten:
            if status.is_rejected():
                deferred = True
            else:
                self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed, None)
        self._failure_handler(b.fwk, b.pinfo, status, _CLEAR_NOMINATED)
        if deferred:
            uid = assumed.uid
            self.queue.move_all_to_active_or_backoff_queue(EVENT_ASSIGNED_POD_DELETE, assumed, None,
                                                           lambda p: p.uid != uid)

    def _failure_handler(self, fwk: Framework, pinfo: QueuedPodInfo, status: Status,
                         nominating: NominatingInfo | None) -> None:
        pod = pinfo.pod
        uid = pod.uid
        err = status.error
        if isinstance(err, FitError):
            pinfo.unschedulable_plugins = set(err.diagnosis.unschedulable_plugins)
            pinfo.pending_plugins = set(err.diagnosis.pending_plugins)
        message = status.message
        with self._lock:
            cached = self._pods.get(uid)
            if cached is not None and not self._responsible(cached):
                cached = None  # now another scheduler's pod: it left the queue
            if cached is None or cached.node_name:
                self.queue.done(uid)
            else:
                if pinfo.pod_info.pod is not cached:
                    pinfo.pod_info = PodInfo.of(cached)
                self.queue.add_unschedulable_if_not_present(pinfo)
            self.queue.add_nominated_pod(pinfo.pod_info, nominating)
            self._counts["failed"] += 1
            if cached is not None and not cached.node_name:
                self._failures[uid] = (message, frozenset(pinfo.unschedulable_plugins
                                                          | pinfo.pending_plugins))
        self.recorder.event(pod, "Warning", "FailedScheduling", message)
        self._hook("schedframe_pod_failed", pod=pod, status=status, profile=fwk.profile_name)
        if (nominating is not None and nominating.mode == NominatingMode.OVERRIDE and cached is not None
                and not cached.node_name and cached.nominated_node_name != nominating.nominated_node_name):
            with self._lock:
                cur = self._pods.get(uid)
                if cur is not None and not cur.node_name:
                    nominated = cur.evolve(nominated_node_name=nominating.nominated_node_name)
                    self._apply_pod_update(cur, nominated)


_POD_FIELDS: Final = tuple(a.name for a in attrs.fields(Pod))


def _note_rejected(diagnosis: Diagnosis, rejected: list[tuple[NodeInfo, Status]]) -> None:
    """Record a batch's rejections in *diagnosis*: each node's status, and the plugin of each
    distinct status (rejections share status objects) as unschedulable, or pending."""
    diagnosis.node_to_status._record_rejected(rejected)
    unsched = diagnosis.unschedulable_plugins
    for status in {id(status): status for _ni, status in rejected}.values():
        plugin = status.plugin
        if plugin:
            if status.code is Code.PENDING:
                diagnosis.pending_plugins.add(plugin)
            unsched.add(plugin)


def _assigned(pod: Pod, node_name: str) -> Pod:
    """*pod* with ``node_name`` set (upstream's assume), without re-running Pod's converters and
    derived-field computations, which do not depend on the node name."""
    new = object.__new__(Pod)
    setter = object.__setattr__
    for name in _POD_FIELDS:
        setter(new, name, getattr(pod, name))
    setter(new, "node_name", node_name)
    return new


def _internal_error(exc: BaseException) -> Status:
    return Status(Code.ERROR, (f"{type(exc).__name__}: {exc}",), error=exc)
