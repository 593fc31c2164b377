"""DefaultPreemption: when a pod fits no node, evict lower-priority pods to make room.

Upstream: ``pkg/scheduler/framework/plugins/defaultpreemption/default_preemption.go`` with the
generic evaluator of ``pkg/scheduler/framework/preemption`` (here :mod:`._preemption`, where the
deliberate differences are listed: synchronous preemption only, a deterministic node order and
tie-break; extenders confirm the candidates).

For a pod allowed to preempt (``preemptionPolicy`` is not ``Never``; its nominated node, if any,
has no lower-priority pod already terminating because of a preemption), the plugin:

* takes the nodes whose Filter status was ``UNSCHEDULABLE`` and, starting at a random offset,
  dry-runs preemption on them until it has ``max(numNodes * minCandidateNodesPercentage / 100,
  minCandidateNodesAbsolute)`` candidates (capped at the number of nodes) including one that
  violates no PodDisruptionBudget;
* on each node removes every lower-priority pod, checks that the pod then passes Filter, and
  reprieves as many pods as possible -- PDB-violating ones first, each group from the most
  important (higher priority, then earlier start) down -- keeping a pod when the preemptor still
  fits beside it;
* picks the node with the fewest PDB violations, then the lowest highest-victim priority, the
  smallest sum of victim priorities, the fewest victims, the latest start of the
  highest-priority victims, then the first;
* deletes the victims (``handle.client.delete_pod``; a victim waiting at Permit is rejected
  instead), records a ``Preempted`` event on each, clears the nomination of lower-priority pods
  nominated to that node, and nominates the pod there.

The random offset comes from a :class:`random.Random` owned by the plugin, seeded with the
handle's ``seed`` attribute when it has an integer one, else 0, so runs are reproducible.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, ClassVar, Final, final

import attrs

from ..api.objects import Pod, PodDisruptionBudget
from ..api.scheduling_workload import SchedulingPodGroup
from ..cache.nodeinfo import NodeInfo, PodInfo
from ..framework.args import validate_args
from ..framework.cycle_state import CycleState
from ..framework.events import ClusterEventWithHint
from ..framework.handle import Handle
from ..framework.interfaces import NodeToStatus, PostFilterResult
from ..framework.preemption import (
    Candidate,
    Evaluator,
    MoreImportantPodFunc,
    Victims,
    pod_start_time,
    sort_by_importance,
)
from ..framework.registry import plugin_args
from ..framework.releases import release_of
from ..framework.status import Code, Status
from ..framework.victims_memo import Shapes, VictimsMemo
from . import names
from ._helpers import FieldErrors
from ._topology import selector_error
from ._victims import DefaultNodePicking, NodeDryRun

__all__ = [
    "ARGS_TYPE",
    "ERR_NO_VICTIMS",
    "ERR_NOT_ELIGIBLE_PREEMPT_NEVER",
    "ERR_NOT_ELIGIBLE_TERMINATING",
    "NAME",
    "Candidate",
    "DefaultPreemption",
    "DefaultPreemptionArgs",
    "Evaluator",
    "IsEligiblePodFunc",
    "MoreImportantPodFunc",
    "Victims",
    "filter_pods_with_pdb_violation",
    "new",
    "pdb_charges",
    "terminating_by_preemption",
]

NAME: Final = names.DEFAULT_PREEMPTION

#: Per-node status when the node has no pod of lower priority than the preemptor.
ERR_NO_VICTIMS: Final = "No preemption victims found for incoming pod"
_NO_VICTIMS: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_NO_VICTIMS,))
#: Why a pod with ``preemptionPolicy: Never`` does not preempt.
ERR_NOT_ELIGIBLE_PREEMPT_NEVER: Final = "not eligible due to preemptionPolicy=Never."
#: Why a pod whose earlier victims are still terminating does not preempt again.
ERR_NOT_ELIGIBLE_TERMINATING: Final = "not eligible due to a terminating pod on the nominated node."
#: Prefix of every non-success message of the plugin.
MESSAGE_PREFIX: Final = "preemption: "
#: 1.36 with TopologyAwareWorkloadScheduling: a pod of a PodGroup with scheduling constraints
#: does not preempt (its group is tried in several placements)
MSG_PLACEMENT_LIMITATION: Final = ("preemption: not eligible due to placement-based pod group scheduling "
                                   "limitation")
MSG_POD_GROUP_NOT_FOUND: Final = "preemption: pod group for pod not found"
#: 1.36 with WorkloadAwarePreemption: a pod of a PodGroup does not preempt on its own (its group
#: does, after its PodGroup cycle)
MSG_WORKLOAD_AWARE: Final = "preemption: not eligible due to workload aware preemption enabled"

_PREEMPT_NEVER: Final = "Never"
_DISRUPTION_TARGET: Final = "DisruptionTarget"
_REASON_PREEMPTION_BY_SCHEDULER: Final = "PreemptionByScheduler"

#: ``(node_info, victim, preemptor) -> bool``: whether *victim* (of lower priority than the
#: preemptor) may be preempted; checked in addition to the priority rule.
IsEligiblePodFunc = Callable[[NodeInfo, PodInfo, Pod], bool]


# --------------------------------------------------------------------------------------------
# Args


@final
@attrs.frozen(kw_only=True)
class DefaultPreemptionArgs:
    """``DefaultPreemptionArgs`` (kubescheduler.config.k8s.io/v1), defaulted as upstream.

    Attributes:
        min_candidate_nodes_percentage: the share (0-100) of potential nodes to dry-run
            preemption on, at least.
        min_candidate_nodes_absolute: the number of nodes to dry-run preemption on, at least
            (>= 0; not both zero).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.default_preemption"

    min_candidate_nodes_percentage: int = 10
    min_candidate_nodes_absolute: int = 100

    KIND: ClassVar[str] = "DefaultPreemptionArgs"

    def errors(self) -> list[str]:
        """Every validation problem (upstream ``ValidateDefaultPreemptionArgs``)."""
        errs = FieldErrors()
        pct, absolute = self.min_candidate_nodes_percentage, self.min_candidate_nodes_absolute
        if pct < 0 or pct > 100:
            errs.invalid("minCandidateNodesPercentage", pct, "not in valid range [0, 100]")
        if absolute < 0:
            errs.invalid("minCandidateNodesAbsolute", absolute, "not in valid range [0, inf)")
        if pct == 0 and absolute == 0:
            errs.invalid("minCandidateNodesPercentage", pct,
                         "cannot be zero at the same time as minCandidateNodesAbsolute")
            errs.invalid("minCandidateNodesAbsolute", absolute,
                         "cannot be zero at the same time as minCandidateNodesPercentage")
        return errs.errors

ARGS_TYPE: Final = DefaultPreemptionArgs


# --------------------------------------------------------------------------------------------
# PDBs


def filter_pods_with_pdb_violation(pod_infos: Sequence[PodInfo], pdbs: Sequence[PodDisruptionBudget]
                                   ) -> tuple[list[PodInfo], list[PodInfo]]:
    """Split *pod_infos* into those whose eviction would violate a PodDisruptionBudget and the
    rest, keeping their order (upstream ``filterPodsWithPDBViolation``).

    Pods are charged in order against each matching budget's ``disruptions_allowed``; a pod
    taking a budget below zero violates it. A budget matches pods of its namespace selected by
    its (valid, non-empty) selector; pods listed in its ``disrupted_pods`` are not charged.
    """
    allowed = [pdb.disruptions_allowed for pdb in pdbs]
    violating: list[PodInfo] = []
    non_violating: list[PodInfo] = []
    for pi in pod_infos:
        pod = pi.pod
        violated = False
        if pod.labels:  # a pod without labels matches no PDB
            for i, pdb in enumerate(pdbs):
                if pdb.namespace != pod.namespace:
                    continue
                if not pdb_charges(pdb, pod):
                    continue
                allowed[i] -= 1
                if allowed[i] < 0:
                    violated = True
        (violating if violated else non_violating).append(pi)
    return violating, non_violating


def pdb_charges(pdb: PodDisruptionBudget, pod: Pod) -> bool:
    """Whether evicting *pod* counts against *pdb*: same namespace, a selector that parses and
    is not empty (a missing, empty or unparsable one matches nothing) matching the pod's
    labels, and the pod not yet in the budget's ``disruptedPods`` (already processed by the
    API server: not charged again)."""
    if pdb.namespace != pod.namespace or not pod.labels:
        return False
    sel = pdb.selector
    if sel is None or sel.is_empty() or selector_error(sel) is not None:
        return False
    return sel.matches(pod.labels) and pod.name not in pdb.disrupted_pods


def terminating_by_preemption(pod: Pod) -> bool:
    """True when *pod* is being deleted because the scheduler preempted it (upstream
    ``podTerminatingByPreemption``)."""
    if pod.deletion_timestamp is None:
        return False
    for c in pod.conditions:
        if c.type == _DISRUPTION_TARGET:
            return c.status == "True" and c.reason == _REASON_PREEMPTION_BY_SCHEDULER
    return False


def _seed_of(handle: Handle) -> int:
    seed = getattr(handle, "seed", None)
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else 0


# --------------------------------------------------------------------------------------------
# Plugin


@final
class DefaultPreemption(DefaultNodePicking):
    """The DefaultPreemption plugin (PostFilter).

    Attributes:
        evaluator: the :class:`Evaluator` running the generic part.
        is_eligible_pod: extra rule for which lower-priority pods may be preempted
            (``None``: all of them), as upstream's ``IsEligiblePod``.
        more_important_pod: order of importance of victims (``None``: higher priority, then
            earlier start time), as upstream's ``MoreImportantPod``.
        rng: the random source of the dry-run offset.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.default_preemption"
    __slots__ = ("_group_rank", "_lowest", "_placements", "_victims", "_workload_aware", "args", "evaluator",
                 "handle",
                 "is_eligible_pod", "more_important_pod", "rng")

    def __init__(self, args: DefaultPreemptionArgs, handle: Handle, *, seed: int | None = None) -> None:
        validate_args(args)
        self.args = args
        self.handle = handle
        self.rng = random.Random(_seed_of(handle) if seed is None else seed)
        self.evaluator = Evaluator(NAME, handle, self)
        self.is_eligible_pod: IsEligiblePodFunc | None = None
        self.more_important_pod: MoreImportantPodFunc | None = None
        self._victims = Shapes()
        #: node name -> (generation, the lowest priority of its pods): what no_victims_status reads
        self._lowest: dict[str, tuple[int, int | None]] = {}
        release = release_of(handle)
        self._placements = release.minor == (1, 36) and release.enabled("TopologyAwareWorkloadScheduling")
        self._workload_aware = release.minor == (1, 36) and release.enabled("WorkloadAwarePreemption")
        # 1.37 with GenericWorkload: among victims of one priority, a pod of a PodGroup is the more
        # important (upstream MoreImportantVictim's rank)
        self._group_rank = release.minor >= (1, 37) and release.enabled("GenericWorkload")

    @property
    def name(self) -> str:
        """``"DefaultPreemption"``."""
        return NAME

    # -- PostFilter -----------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status]:
        """Preempt for *pod*; every non-success message is prefixed ``"preemption: "``. In 1.36
        with TopologyAwareWorkloadScheduling a pod of a PodGroup with scheduling constraints does
        not preempt, and with WorkloadAwarePreemption no pod of a PodGroup does (its group
        preempts, see ``schedframe.scheduler._group_preemption``)."""
        if self._placements and pod.scheduling_group is not None:
            objects = getattr(self.handle, "objects", None)
            found = objects.get(SchedulingPodGroup, pod.scheduling_group, pod.namespace) if objects else None
            if not isinstance(found, SchedulingPodGroup):
                return None, Status(Code.UNSCHEDULABLE, (MSG_POD_GROUP_NOT_FOUND,))
            if found.spec.topology_keys:
                return None, Status(Code.UNSCHEDULABLE, (MSG_PLACEMENT_LIMITATION,))
        if self._workload_aware and pod.scheduling_group is not None:
            return None, Status(Code.UNSCHEDULABLE, (MSG_WORKLOAD_AWARE,))
        result, status = self.evaluator.preempt(state, pod, filtered_node_status_map)
        msg = status.message
        if msg:
            return result, Status(status.code, (MESSAGE_PREFIX + msg,), error=status.error)
        return result, status

    def pre_enqueue(self, pod: Pod) -> Status:
        """Always let the pod in. Upstream's PreEnqueue holds a pod back while its asynchronous
        preemption is still deleting victims; schedframe's preemption deletes them before
        PostFilter returns, so no pod ever waits for one (upstream with
        ``SchedulerAsyncPreemption`` off does the same)."""
        return Status.OK

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """None: with synchronous preemption the plugin never rejects a pod by itself (upstream
        registers events only for asynchronous preemption's PreEnqueue)."""
        return ()

    # -- preemption.Interface -------------------------------------------------------------------
    def calculate_num_candidates(self, num_nodes: int) -> int:
        """``max(num_nodes * percentage // 100, absolute)``, capped at *num_nodes*."""
        n = num_nodes * self.args.min_candidate_nodes_percentage // 100
        n = max(n, self.args.min_candidate_nodes_absolute)
        return min(n, num_nodes)

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        """A random offset in ``[0, num_nodes)`` and :meth:`calculate_num_candidates`."""
        offset = self.rng.randrange(num_nodes) if num_nodes > 0 else 0
        return offset, self.calculate_num_candidates(num_nodes)

    def _is_preemption_allowed(self, node_info: NodeInfo, victim: PodInfo, preemptor: Pod) -> bool:
        if victim.pod.effective_priority >= preemptor.effective_priority:
            return False
        rule = self.is_eligible_pod
        return rule is None or rule(node_info, victim, preemptor)

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None
                                       ) -> tuple[bool, str]:
        """Whether *pod* may preempt now, and the reason when not (upstream
        ``PodEligibleToPreemptOthers``): not with ``preemptionPolicy: Never``; not while a
        lower-priority pod on its nominated node is terminating because of a preemption --
        unless Filter found that node ``UNSCHEDULABLE_AND_UNRESOLVABLE``."""
        if pod.preemption_policy == _PREEMPT_NEVER:
            return False, ERR_NOT_ELIGIBLE_PREEMPT_NEVER
        nominated = pod.nominated_node_name
        if nominated:
            if nominated_node_status is not None and \
                    nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
                return True, ""
            node_info = self.handle.snapshot_shared_lister().node_infos().get(nominated)
            if node_info is not None:
                for pi in node_info.pods:
                    if self._is_preemption_allowed(node_info, pi, pod) and \
                            terminating_by_preemption(pi.pod):
                        return False, ERR_NOT_ELIGIBLE_TERMINATING
        return True, ""

    def no_victims_status(self, pod: Pod, node_info: NodeInfo) -> Status | None:
        """What :meth:`select_victims_on_node` returns for a node where no pod has a lower
        priority than *pod* (none can be a victim), found without cloning the node and the
        cycle state; ``None`` when some pod might be a victim."""
        seen = self._lowest.get(node_info.name)
        if seen is not None and seen[0] == node_info.generation:
            lowest = seen[1]
        else:  # a NodeInfo's generation moves on every change: the same generation, the same pods
            lowest = min((pi.pod.effective_priority for pi in node_info.pods), default=None)
            self._lowest[node_info.name] = (node_info.generation, lowest)
        if lowest is not None and lowest < pod.effective_priority:
            return None
        return _NO_VICTIMS

    def victims_memo(self, state: CycleState, pod: Pod, pdbs: Sequence[PodDisruptionBudget],
                     num_nodes: int) -> VictimsMemo | None:
        """Remembered outcomes of :meth:`select_victims_on_node` for *pod*'s shape on nodes that
        did not change since (``None`` when they cannot be trusted: see
        ``schedframe.framework.victims_memo``)."""
        return self._victims.memo(self.handle, state, pod, pdbs,
                                  (self.is_eligible_pod, self.more_important_pod), num_nodes)

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        """The fewest pods to evict from *node_info* for *pod* to fit, most important first, and
        how many of them violate a PDB (upstream ``SelectVictimsOnNode``). *state* and
        *node_info* are clones and get modified."""
        fh = self.handle
        dry = NodeDryRun(fh, state, pod, node_info)
        potential = [pi for pi in node_info.pods if self._is_preemption_allowed(node_info, pi, pod)]
        err = dry.remove_all(potential)
        if err is not None:
            return [], 0, err
        if not potential:
            return [], 0, _NO_VICTIMS

        # The pod must fit once every eligible victim is gone; otherwise this node cannot help
        # (affinity of the preemptor to its own victims is deliberately not considered).
        status = dry.fits()
        if not status.is_success():
            return [], 0, status

        now = fh.clock.now()

        def order(infos: list[PodInfo]) -> None:
            if self._group_rank and self.more_important_pod is None:
                infos.sort(key=lambda pi: (-pi.pod.effective_priority, pi.pod.scheduling_group is None,
                                           pod_start_time(pi.pod, now)))
                return
            sort_by_importance(infos, self.more_important_pod, now)

        order(potential)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)
        return dry.victims(violating, non_violating, order)


def new(args: object, handle: Handle) -> DefaultPreemption:
    """Factory: *args* is ``None``, a :class:`DefaultPreemptionArgs` or a camelCase mapping."""
    return DefaultPreemption(plugin_args(args, DefaultPreemptionArgs), handle)


if TYPE_CHECKING:
    from ..framework.interfaces import EnqueueExtensions, PostFilterPlugin
    from ..framework.preemption import PreemptionInterface

    def _check(p: DefaultPreemption) -> None:
        _a: PostFilterPlugin = p
        _b: EnqueueExtensions = p
        _c: PreemptionInterface = p
