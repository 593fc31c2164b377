"""The generic preemption evaluator (upstream ``pkg/scheduler/framework/preemption``).

A preemption PostFilter plugin implements :class:`PreemptionInterface` (how many nodes to try,
who may preempt, which pods to evict on one node) and hands the rest to :class:`Evaluator`:

1. check that the preemptor may preempt at all;
2. dry-run preemption on the nodes whose Filter status was ``UNSCHEDULABLE`` (never
   ``UNSCHEDULABLE_AND_UNRESOLVABLE``), starting at an offset the plugin chooses, until enough
   candidates are found;
3. pick the best candidate (:func:`pick_one_node_for_preemption`);
4. evict its victims (pods waiting at Permit are rejected instead), clear the nomination of
   lower-priority pods nominated to that node, and nominate the preemptor there.

Differences from kube-scheduler, all deliberate:

* Everything runs on the calling thread, in a fixed order: potential nodes are taken in snapshot
  order (upstream iterates a map), dry runs stop as soon as enough candidates exist (upstream
  stops "about" there, depending on parallelism), and ties left after every criterion go to the
  first candidate in dry-run order (non-PDB-violating candidates first). Same inputs, same result.
* Preemption is synchronous: victims are deleted (through ``handle.client.delete_pod``) before
  PostFilter returns. kube-scheduler's asynchronous preemption (``SchedulerAsyncPreemption``) and
  the PreEnqueue check that keeps a preemptor out of the queue while its victims are being
  deleted are not implemented, as there is nothing to wait for.
* Extenders that support preemption confirm the candidates in turn (upstream
  ``callExtenders``); the candidates they keep stay in dry-run order (upstream rebuilds them
  from a map). The preemptor is not re-read from an API server (the pod passed in is
  current); the ``DisruptionTarget`` condition upstream patches onto a victim before deleting it
  is not written, since deletion is immediate.
* A pod without ``start_time`` counts as started "now" (``handle.clock.now()``, read once per
  preemption attempt) where upstream reads the wall clock at each comparison.
"""

from __future__ import annotations

import functools
import logging
from collections.abc import Callable, Mapping, Sequence
from typing import Final, Protocol, final

import attrs

from ..api.objects import Pod, PodDisruptionBudget
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..errors import ExtenderError
from .cycle_state import CycleState
from .handle import Handle
from .interfaces import NodeToStatus, NominatingInfo, NominatingMode, PostFilterResult
from .releases import release_of
from .status import Code, Status

__all__ = [
    "ERR_NO_CANDIDATE",
    "ERR_NO_NODES",
    "PREEMPTION_NOT_HELPFUL",
    "Candidate",
    "Evaluator",
    "MoreImportantPodFunc",
    "PreemptionInterface",
    "ScoreFunc",
    "Victims",
    "aggregate_message",
    "earliest_pod_start_time",
    "fit_error_message",
    "get_lower_priority_nominated_pods",
    "more_important_pod",
    "pick_one_node_for_preemption",
    "pod_start_time",
    "sort_by_importance",
]

logger = logging.getLogger("schedframe")

#: Status reason for nodes that preemption did not consider (upstream wording).
PREEMPTION_NOT_HELPFUL: Final = "Preemption is not helpful for scheduling"
#: Error when the snapshot has no nodes.
ERR_NO_NODES: Final = "no nodes available"
#: Error when candidate selection yields nothing (should not happen).
ERR_NO_CANDIDATE: Final = "no candidate node for preemption"

# Added to every victim priority before summing, so that a node with a few negative-priority
# victims does not beat one with fewer victims of the same priority (upstream MaxInt32+1).
_PRIORITY_OFFSET: Final = 2**31
_MIN_INT64: Final = -(2**63)

#: ``(pod1, pod2) -> True`` when pod1 is more important (less willing to be preempted).
MoreImportantPodFunc = Callable[[Pod, Pod], bool]
#: A candidate score function for :func:`pick_one_node_for_preemption`: higher is better.
ScoreFunc = Callable[[str], int]


@final
@attrs.frozen
class Victims:
    """The pods to evict on one node, most important first, and how many of them violate a
    PodDisruptionBudget (upstream ``extenderv1.Victims``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.default_preemption"

    pods: tuple[Pod, ...]
    num_pdb_violations: int = 0


@final
@attrs.frozen
class Candidate:
    """A node the preemptor can be nominated to once *victims* are evicted.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.default_preemption"

    name: str
    victims: Victims


class PreemptionInterface(Protocol):
    """What a preemption plugin supplies to :class:`Evaluator` (upstream ``preemption.Interface``)."""

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """Where to start among *num_nodes* potential nodes, and how many candidates to find."""
        ...

    def candidates_to_victims_map(self, candidates: Sequence[Candidate]) -> dict[str, Victims]:
        """Node name -> victims."""
        ...

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status) -> tuple[bool, str]:
        """Whether *pod* may preempt now, and why not."""
        ...

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict on *node_info* (a clone, as is *state*) for *pod* to fit."""
        ...

    def ordered_score_funcs(self, nodes_to_victims: Mapping[str, Victims]) -> list[ScoreFunc] | None:
        """Custom candidate score functions in precedence order; ``None`` for the defaults."""
        ...


# -- helpers ------------------------------------------------------------------------------------

def pod_start_time(pod: Pod, now: float) -> float:
    """``status.startTime``, or *now* for a pod that has not started (upstream ``GetPodStartTime``)."""
    t = pod.start_time
    return now if t is None else t


def more_important_pod(pod1: Pod, pod2: Pod, now: float) -> bool:
    """True when *pod1* has higher priority, or equal priority and an earlier start time
    (upstream ``util.MoreImportantPod``)."""
    p1, p2 = pod1.effective_priority, pod2.effective_priority
    if p1 != p2:
        return p1 > p2
    return pod_start_time(pod1, now) < pod_start_time(pod2, now)


def earliest_pod_start_time(victims: Victims, now: float) -> float | None:
    """The earliest start time among the highest-priority victims (upstream
    ``util.GetEarliestPodStartTime``); ``None`` without victims."""
    pods = victims.pods
    if not pods:
        return None
    earliest = pod_start_time(pods[0], now)
    top = pods[0].effective_priority
    for p in pods:
        prio = p.effective_priority
        if prio == top:
            t = pod_start_time(p, now)
            if t < earliest:
                earliest = t
        elif prio > top:
            top = prio
            earliest = pod_start_time(p, now)
    return earliest


def _time_score(t: float) -> int:
    """Nanoseconds since the epoch, as upstream compares ``UnixNano()``."""
    return round(t * 1_000_000_000)


def pick_one_node_for_preemption(nodes_to_victims: Mapping[str, Victims],
                                 score_funcs: Sequence[ScoreFunc] | None = None, *,
                                 now: float = 0.0) -> str:
    """Choose the node to preempt on (upstream ``pickOneNodeForPreemption``).

    Each score function keeps the nodes with the highest score; the next one breaks ties. The
    defaults, in order: fewest PDB violations; lowest highest-victim priority; smallest sum of
    victim priorities (each offset by 2^31); fewest victims; latest earliest start time among
    the highest-priority victims. Remaining ties go to the first node in *nodes_to_victims*
    order. Victims must be ordered most important first. Returns ``""`` for no nodes.
    """
    if not nodes_to_victims:
        return ""
    candidates = list(nodes_to_victims)
    if not score_funcs:
        def min_pdb_violations(node: str) -> int:
            return -nodes_to_victims[node].num_pdb_violations

        def min_highest_priority(node: str) -> int:
            return -nodes_to_victims[node].pods[0].effective_priority

        def min_sum_priorities(node: str) -> int:
            return -sum(p.effective_priority + _PRIORITY_OFFSET for p in nodes_to_victims[node].pods)

        def min_num_pods(node: str) -> int:
            return -len(nodes_to_victims[node].pods)

        def latest_start_time(node: str) -> int:
            earliest = earliest_pod_start_time(nodes_to_victims[node], now)
            if earliest is None:  # pragma: no cover - candidates always have victims
                logger.error("preemption: no victims on candidate node %s", node)
                return _MIN_INT64
            return _time_score(earliest)

        score_funcs = (min_pdb_violations, min_highest_priority, min_sum_priorities, min_num_pods,
                       latest_start_time)
    for f in score_funcs:
        best: list[str] = []
        max_score: int | None = None
        for node in candidates:
            score = f(node)
            if max_score is None or score > max_score:
                max_score = score
                best = [node]
            elif score == max_score:
                best.append(node)
        if len(best) == 1:
            return best[0]
        candidates = best
    return candidates[0]


def get_lower_priority_nominated_pods(handle: Handle, pod: Pod, node_name: str) -> list[Pod]:
    """Pods nominated to *node_name* with lower priority than *pod* (upstream
    ``getLowerPriorityNominatedPods``)."""
    infos = handle.nominator.nominated_pods_for_node(node_name)
    if not infos:
        return []
    priority = pod.effective_priority
    return [pi.pod for pi in infos if pi.pod.effective_priority < priority]


def aggregate_message(messages: Sequence[str]) -> str:
    """Several error messages as one (apimachinery ``utilerrors.NewAggregate``): one message
    alone, duplicates dropped, otherwise ``[m1, m2]``."""
    if len(messages) == 1:
        return messages[0]
    unique = list(dict.fromkeys(messages))
    return unique[0] if len(unique) == 1 else "[" + ", ".join(unique) + "]"


def fit_error_message(num_all_nodes: int, node_to_status: NodeToStatus) -> str:
    """``"0/N nodes are available: <histogram>."`` from per-node statuses, nodes without an
    entry counted with the absent-nodes status (upstream ``FitError.Error`` with no PreFilter
    or PostFilter message)."""
    counts: dict[str, int] = {}
    explicit = node_to_status.items()
    for _, status in explicit:
        for reason in status.reasons:
            counts[reason] = counts.get(reason, 0) + 1
    absent = num_all_nodes - len(explicit)
    if absent > 0:
        for reason in node_to_status.absent_nodes_status.reasons:
            counts[reason] = counts.get(reason, 0) + absent
    msg = f"0/{num_all_nodes} nodes are available:"
    histogram = sorted(f"{n} {reason}" for reason, n in counts.items())
    if histogram:
        msg += f" {', '.join(histogram)}."
    return msg


def _ignore_error(plugin: str, what: str, exc: BaseException) -> None:
    logger.warning("%s: %s failed", plugin, what, exc_info=exc)


# -- Evaluator ----------------------------------------------------------------------------------

@final
class _CandidateList:
    """A list keeping at most *size* candidates (upstream ``candidateList``: later additions are
    dropped once full)."""

    __slots__ = ("items", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.items: list[Candidate] = []

    def add(self, c: Candidate) -> None:
        if len(self.items) < self.size:
            self.items.append(c)


PreemptPodFunc = Callable[[Candidate, Pod, Pod, str], None]


@final
class Evaluator:
    """Runs preemption for a plugin implementing :class:`PreemptionInterface` (upstream
    ``preemption.Evaluator``), synchronously.

    Args:
        plugin_name: the plugin's name (used in events and for rejecting waiting pods).
        handle: the framework handle.
        interface: the plugin.

    ``preempt_pod`` evicts one victim and may be replaced (tests do); it raises on failure.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.default_preemption"
    __slots__ = ("handle", "interface", "plugin_name", "preempt_pod")

    def __init__(self, plugin_name: str, handle: Handle, interface: PreemptionInterface) -> None:
        self.plugin_name = plugin_name
        self.handle = handle
        self.interface = interface
        self.preempt_pod: PreemptPodFunc = self._preempt_pod

    def _preempt_pod(self, candidate: Candidate, preemptor: Pod, victim: Pod, plugin_name: str) -> None:
        """Reject *victim* if it waits at Permit, delete it otherwise; record ``Preempted``."""
        waiting = self.handle.get_waiting_pod(victim.uid)
        if waiting is not None:
            waiting.reject(plugin_name, "preempted")
        else:
            self.handle.client.delete_pod(victim)
        self.handle.event_recorder.event(
            victim, "Normal", "Preempted", f"Preempted by pod {preemptor.uid} on node {candidate.name}")

    # -- the whole flow -------------------------------------------------------------------------
    def preempt(self, state: CycleState, pod: Pod, m: NodeToStatus
                ) -> tuple[PostFilterResult | None, Status]:
        """Preempt for *pod* (upstream ``Evaluator.Preempt``).

        Returns ``(result, status)``:

        * ``(None, ERROR)``: an internal error (no victim was touched unless evicting failed);
        * ``(None, UNSCHEDULABLE)``: the pod may not preempt now (its nomination stays);
        * ``(result nominating "", UNSCHEDULABLE)``: preemption cannot help; the message is
          ``"0/N nodes are available: ..."`` with why each node failed;
        * ``(result nominating the node, SUCCESS)``: victims evicted, pod nominated.
        """
        nominated_status = m.get(pod.nominated_node_name)
        ok, msg = self.interface.pod_eligible_to_preempt_others(pod, nominated_status)
        if not ok:
            return None, Status(Code.UNSCHEDULABLE, (msg,))

        all_nodes = self.handle.snapshot_shared_lister().node_infos().list()
        if not all_nodes:
            return None, Status(Code.ERROR, (ERR_NO_NODES,))
        candidates, statuses, errors = self.find_candidates(state, all_nodes, pod, m)
        if errors and not candidates:
            return None, Status(Code.ERROR, (aggregate_message([e.message for e in errors]),),
                                error=errors[0].error)
        if not candidates:
            statuses.absent_nodes_status = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                                  (PREEMPTION_NOT_HELPFUL,))
            return (PostFilterResult(NominatingInfo("", NominatingMode.OVERRIDE)),
                    Status(Code.UNSCHEDULABLE, (fit_error_message(len(all_nodes), statuses),)))

        candidates, status = self.call_extenders(pod, candidates)
        if not status.is_success():
            return None, status
        best = self.select_candidate(candidates)
        if best is None or not best.name:  # no candidate left after the extenders
            return None, Status(Code.UNSCHEDULABLE, (ERR_NO_CANDIDATE,))
        status = self.prepare_candidate(best, pod)
        if not status.is_success():
            return None, status
        result = PostFilterResult(NominatingInfo(best.name, NominatingMode.OVERRIDE))
        if release_of(self.handle).has("PreemptionSuccessMessage"):
            return result, Status(Code.SUCCESS, (
                f"found a potential placement for pod on node {best.name}, preempting "
                f"{len(best.victims.pods)} victims",))
        return result, Status.OK

    def call_extenders(self, pod: Pod, candidates: Sequence[Candidate]) -> tuple[list[Candidate], Status]:
        """Let the extenders that support preemption and are interested in *pod* trim the
        candidates and their victims (upstream ``callExtenders``). An extender's error fails
        preemption unless it is ignorable; a node it returns without victims is an error
        (dropped for an ignorable extender)."""
        extenders = getattr(self.handle, "extenders", None)
        extenders = extenders() if callable(extenders) else ()
        if not extenders:
            return list(candidates), Status.OK
        victims_map = self.interface.candidates_to_victims_map(candidates)
        if not victims_map:
            return list(candidates), Status.OK
        current = {node: (v.pods, v.num_pdb_violations) for node, v in victims_map.items()}
        lister = self.handle.snapshot_shared_lister().node_infos()
        for extender in extenders:
            if not extender.supports_preemption() or not extender.is_interested(pod):
                continue
            try:
                result = extender.process_preemption(pod, current, lister)
            except ExtenderError as exc:
                if extender.is_ignorable():
                    logger.info("skipped extender %s as it returned error and has ignorable flag set: %s",
                                extender.name, exc)
                    continue
                return [], Status.from_error(exc)
            for node_name in [n for n, (pods, _) in result.items() if not pods]:
                if not extender.is_ignorable():
                    return [], Status(Code.ERROR,
                                      (f'expected at least one victim pod on node "{node_name}"',))
                del result[node_name]
            current = {node: (tuple(pods), n) for node, (pods, n) in result.items()}
            if not current:
                break
        order = {c.name: i for i, c in enumerate(candidates)}
        kept = sorted(current, key=lambda n: (order.get(n, len(order)), n))
        return [Candidate(n, Victims(tuple(current[n][0]), current[n][1])) for n in kept], Status.OK

    def find_candidates(self, state: CycleState, all_nodes: Sequence[NodeInfo], pod: Pod,
                        m: NodeToStatus) -> tuple[list[Candidate], NodeToStatus, list[Status]]:
        """Dry-run preemption on the nodes whose status in *m* is ``UNSCHEDULABLE`` (upstream
        ``findCandidates``)."""
        unschedulable = Code.UNSCHEDULABLE
        get = m.get
        potential = [ni for ni in all_nodes if get(ni.name).code is unschedulable]
        if not potential:
            return [], NodeToStatus(), []
        pdbs = self.handle.objects.list(PodDisruptionBudget)
        offset, num_candidates = self.interface.get_offset_and_num_candidates(len(potential))
        return self.dry_run_preemption(state, pod, potential, pdbs, offset, num_candidates)

    def dry_run_preemption(self, state: CycleState, pod: Pod, potential_nodes: Sequence[NodeInfo],
                           pdbs: Sequence[PodDisruptionBudget], offset: int, num_candidates: int
                           ) -> tuple[list[Candidate], NodeToStatus, list[Status]]:
        """Select victims on each potential node in turn, from *offset* (wrapping around), on
        clones of *state* and the NodeInfo, until at least one non-violating candidate exists
        and *num_candidates* were found (upstream ``DryRunPreemption``).

        Returns the candidates (non-PDB-violating ones first, each list capped at
        *num_candidates*), the status of every node that yielded no candidate, and the ERROR
        statuses among those.
        """
        non_violating = _CandidateList(num_candidates)
        violating = _CandidateList(num_candidates)
        statuses = NodeToStatus()
        errors: list[Status] = []
        n = len(potential_nodes)
        select = self.interface.select_victims_on_node
        # Optional: answers "no victims here" without the clones (DefaultPreemption's). Used only
        # when the same object also selects the victims, so the two cannot disagree.
        no_victims = getattr(self.interface, "no_victims_status", None)
        if no_victims is not None and getattr(no_victims, "__self__", no_victims) is not getattr(
                select, "__self__", select):
            no_victims = None
        # Optional too: remembered outcomes of select_victims_on_node on nodes that did not change
        # (DefaultPreemption's), under the same condition.
        memo_of = getattr(self.interface, "victims_memo", None)
        if memo_of is not None and getattr(memo_of, "__self__", memo_of) is not getattr(
                select, "__self__", select):
            memo_of = None
        memo = memo_of(state, pod, pdbs, n) if memo_of is not None else None
        for i in range(n):
            original = potential_nodes[(offset + i) % n]
            # (a remembered outcome is one where no_victims said "maybe": the node is the same)
            remembered = memo.get(original) if memo is not None else None
            if remembered is None and no_victims is not None:
                status = no_victims(pod, original)
                if status is not None:
                    statuses.set(original.name, status)
                    continue
            name = original.name
            if remembered is not None:
                victim_pods, num_violations, status = remembered
                pods = list(victim_pods)
            else:
                pods, num_violations, status = select(state.clone(), pod, original.clone(), pdbs)
                if memo is not None and status.code is not Code.ERROR:
                    memo.put(original, (tuple(pods), num_violations, status))
            if status.is_success():
                if pods:
                    c = Candidate(name, Victims(tuple(pods), num_violations))
                    (non_violating if num_violations == 0 else violating).add(c)
                    nv = len(non_violating.items)
                    if nv > 0 and nv + len(violating.items) >= num_candidates:
                        break
                    continue
                status = Status(Code.ERROR, (f'expected at least one victim pod on node "{name}"',))
            if status.code is Code.ERROR:
                errors.append(status)
            statuses.set(name, status)
        return [*non_violating.items, *violating.items], statuses, errors

    def select_candidate(self, candidates: Sequence[Candidate]) -> Candidate | None:
        """The best candidate (upstream ``SelectCandidate``)."""
        if not candidates:
            return None
        if len(candidates) == 1:
            return candidates[0]
        victims_map = self.interface.candidates_to_victims_map(candidates)
        score_funcs = self.interface.ordered_score_funcs(victims_map)
        node = pick_one_node_for_preemption(victims_map, score_funcs, now=self.handle.clock.now())
        victims = victims_map.get(node)
        if victims is not None:
            return Candidate(node, victims)
        logger.error("preemption: no candidate was selected among %s",  # pragma: no cover
                     [c.name for c in candidates])
        return candidates[0]  # pragma: no cover - pick_one_node_for_preemption returns a key

    def prepare_candidate(self, candidate: Candidate, pod: Pod) -> Status:
        """Evict the victims (skipping pods already terminating), then clear the nomination of
        lower-priority pods nominated to the node (upstream ``prepareCandidate``). An eviction
        failure stops and returns ERROR; nomination clearing failures are only logged."""
        for victim in candidate.victims.pods:
            if victim.deletion_timestamp is not None:
                continue
            try:
                self.preempt_pod(candidate, pod, victim, self.plugin_name)
            except Exception as exc:
                logger.warning("%s: preempting pod %s failed", self.plugin_name, victim.key, exc_info=exc)
                return Status.from_error(exc)
        try:
            nominated = get_lower_priority_nominated_pods(self.handle, pod, candidate.name)
        except Exception as exc:
            _ignore_error(self.plugin_name, "listing nominated pods", exc)
            nominated = []
        client = self.handle.client
        for p in nominated:
            try:
                client.set_nominated_node_name(p, "")
            except Exception as exc:
                _ignore_error(self.plugin_name, f"clearing the nominated node of pod {p.key}", exc)
        return Status.OK


def sort_by_importance(infos: list[PodInfo], more_important: MoreImportantPodFunc | None,
                       now: float) -> None:
    """Sort *infos* in place, most important pod first (stable): with *more_important* if
    given, else by descending priority then ascending start time (:func:`more_important_pod`)."""
    if more_important is None:
        def key(pi: PodInfo) -> tuple[int, float]:
            p = pi.pod
            t = p.start_time
            return -p.effective_priority, now if t is None else t

        infos.sort(key=key)
        return

    def cmp(a: PodInfo, b: PodInfo) -> int:
        if more_important(a.pod, b.pod):
            return -1
        if more_important(b.pod, a.pod):
            return 1
        return 0

    infos.sort(key=functools.cmp_to_key(cmp))
