"""CapacityScheduling: ElasticQuota enforcement and preemption across quotas
(kubernetes-sigs/scheduler-plugins ``pkg/capacityscheduling``).

Not part of the default profile. Each namespace may have one :class:`~schedframe.api.ElasticQuota`
(``Scheduler.add_object`` or ``objects=[...]``; the first listed is used, as upstream). A pod of
a namespace with a quota:

* **PreFilter** -- is ``UNSCHEDULABLE`` when its requests, plus those of the pods nominated in
  its quota with at least its priority, would take the quota's ``used`` over ``max``
  (:data:`ERR_OVER_MAX`), or when the total ``used`` of every quota plus those requests (and
  the pods nominated in quotas still under their ``min``) would exceed the total ``min``
  (:data:`ERR_OVER_MIN`) -- a quota borrows only what others leave unused.
* **PostFilter** -- preempts through the default preemption evaluator (every potential node, from
  the first): when the pod's quota is at or above its ``min`` with the pod, victims are the pods
  of the *same* quota with lower priority; otherwise the quota's guaranteed share is held by
  others, and victims are pods of *other* quotas that use more than their ``min``, whatever their
  priority. Pods outside any quota preempt only lower-priority pods outside any quota.
* **Reserve / Unreserve** -- nothing to record: usage is the sum of the requests of the pods the
  cache holds (assumed or bound), so it follows assume, forget and what-if snapshots.

Messages are upstream's. Pods of namespaces without a quota pass PreFilter.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Final, final

import attrs

from ...api.elasticquota import ElasticQuota
from ...api.objects import Pod, PodDisruptionBudget, Resources
from ...cache.nodeinfo import NodeInfo, PodInfo
from ...errors import PluginArgsError
from ...framework.cycle_state import CycleState, StateKey
from ...framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource
from ...framework.handle import Handle
from ...framework.interfaces import NodeToStatus, PostFilterResult, PreFilterResult
from ...framework.preemption import Evaluator
from ...framework.status import Code, Status
from .._victims import DefaultNodePicking, NodeDryRun
from ..default_preemption import filter_pods_with_pdb_violation
from .elastic_quota_info import QuotaInfo, QuotaInfos, UsageTracker

__all__ = [
    "ERR_NOT_ELIGIBLE_PREEMPT_NEVER",
    "ERR_NOT_ELIGIBLE_TERMINATING",
    "ERR_OVER_MAX",
    "ERR_OVER_MIN",
    "ERR_QUOTA_MAX_EXCEEDED",
    "NAME",
    "CapacityScheduling",
    "new",
]

NAME: Final = "CapacityScheduling"

#: PreFilter: the quota's max would be exceeded (``.format(namespace, pod name, quota namespace)``).
ERR_OVER_MAX: Final = "Pod {}/{} is rejected in PreFilter because ElasticQuota {} is more than Max"
#: PreFilter: the quotas' total min would be exceeded (``.format(namespace, pod name)``).
ERR_OVER_MIN: Final = "Pod {}/{} is rejected in PreFilter because total ElasticQuota used is more than min"
#: Dry-run preemption: even without every victim the quotas would be exceeded.
ERR_QUOTA_MAX_EXCEEDED: Final = "global quota max exceeded"
#: PostFilter: a pod with ``preemptionPolicy: Never``.
ERR_NOT_ELIGIBLE_PREEMPT_NEVER: Final = "not eligible due to preemptionPolicy=Never."
#: PostFilter: a victim of an earlier preemption is still terminating on the nominated node.
ERR_NOT_ELIGIBLE_TERMINATING: Final = "not eligible due to a terminating pod on the nominated node."
#: Dry-run preemption: no pod on the node may be evicted (``.format(node, pod name)``).
ERR_NO_VICTIMS: Final = "No victims found on node {} for preemptor pod {}"

_ZERO: Final = Resources()


@final
@attrs.frozen
class _PreFilterState:
    pod_req: Resources
    #: the pod plus the nominated pods of its quota with at least its priority
    nominated_in_quota: Resources = _ZERO
    #: the above plus the nominated pods of other quotas still under their min
    nominated_all: Resources = _ZERO


_PRE_FILTER_KEY: Final[StateKey[_PreFilterState]] = StateKey("PreFilter" + NAME, NAME)
#: The cycle's copy of the quotas (upstream ``ElasticQuotaSnapshot``).
QUOTA_SNAPSHOT_KEY: Final[StateKey[QuotaInfos]] = StateKey("ElasticQuotaSnapshot", NAME)


def _nominated_pods(handle: Handle) -> list[Pod]:
    out: list[Pod] = []
    nominator = handle.nominator
    for ni in handle.snapshot_shared_lister().node_infos().list():
        out.extend(pi.pod for pi in nominator.nominated_pods_for_node(ni.name))
    return out


@final
class CapacityScheduling:
    """The CapacityScheduling plugin (PreFilter with extensions, PostFilter, Reserve); see the
    module docs.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plugins.sigs"
    __slots__ = ("_handle", "_usage")

    def __init__(self, handle: Handle) -> None:
        self._handle = handle
        self._usage = UsageTracker()

    @property
    def name(self) -> str:
        """``"CapacityScheduling"``."""
        return NAME

    # -- quotas ---------------------------------------------------------------------------------
    def quotas(self) -> QuotaInfos:
        """Every namespace's quota with its current usage (the pods in the current snapshot)."""
        listed = self._handle.objects.list(ElasticQuota)
        if not listed:
            return QuotaInfos()
        usage = self._usage.usage(self._handle.snapshot_shared_lister())
        infos: dict[str, QuotaInfo] = {}
        for quota in listed:
            if quota.namespace not in infos:  # one quota per namespace: the first one
                infos[quota.namespace] = QuotaInfo.of(quota, usage.get(quota.namespace, _ZERO))
        return QuotaInfos(infos.values())

    # -- PreFilter ------------------------------------------------------------------------------
    def pre_filter(self, state: CycleState, pod: Pod, nodes: Sequence[NodeInfo]
                   ) -> tuple[PreFilterResult | None, Status | None]:
        """Reject a pod its quota's ``max``, or the quotas' total ``min``, cannot hold."""
        quotas = self.quotas()
        state.write(QUOTA_SNAPSHOT_KEY, quotas)
        pod_req = pod.requests
        eq = quotas.get(pod.namespace)
        if eq is None:
            state.write(_PRE_FILTER_KEY, _PreFilterState(pod_req))
            return None, None
        in_quota = pod_req
        in_all = pod_req
        priority = pod.effective_priority
        for p in _nominated_pods(self._handle) if len(quotas) else ():
            if p.uid == pod.uid:
                continue
            info = quotas.get(p.namespace)
            if info is None:
                continue
            if p.namespace == pod.namespace and p.effective_priority >= priority:
                in_quota = in_quota + p.requests
                in_all = in_all + p.requests
            elif p.namespace != pod.namespace and not info.used_over_min():
                in_all = in_all + p.requests
        state.write(_PRE_FILTER_KEY, _PreFilterState(pod_req, in_quota, in_all))
        if eq.used_over_max_with(in_quota):
            msg = ERR_OVER_MAX.format(pod.namespace, pod.name, eq.namespace)
            return None, Status(Code.UNSCHEDULABLE, (msg,))
        if quotas.aggregated_used_over_min_with(in_all):
            return None, Status(Code.UNSCHEDULABLE, (ERR_OVER_MIN.format(pod.namespace, pod.name),))
        return None, None

    def pre_filter_extensions(self) -> CapacityScheduling:
        """This plugin: it counts pods added or removed in the cycle's quota copy."""
        return self

    def add_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_add: PodInfo,
                node_info: NodeInfo) -> Status | None:
        """Count *pod_info_to_add* in its quota (on the cycle's copy)."""
        return _in_quota(state, pod_info_to_add.pod, QuotaInfo.add_pod_if_not_present)

    def remove_pod(self, state: CycleState, pod_to_schedule: Pod, pod_info_to_remove: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        """Stop counting *pod_info_to_remove* in its quota (on the cycle's copy)."""
        return _in_quota(state, pod_info_to_remove.pod, QuotaInfo.delete_pod_if_present)

    # -- PostFilter -----------------------------------------------------------------------------
    def post_filter(self, state: CycleState, pod: Pod, filtered_node_status_map: NodeToStatus
                    ) -> tuple[PostFilterResult | None, Status]:
        """Preempt within and across quotas (see the module docs)."""
        evaluator = Evaluator(NAME, self._handle, _Preemptor(self._handle, state))
        return evaluator.preempt(state, pod, filtered_node_status_map)

    # -- Reserve --------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Nothing to record: the assumed pod is in the cache, which usage is read from."""
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Nothing to undo: the forgotten pod leaves the cache, which usage is read from."""

    # -- EnqueueExtensions ----------------------------------------------------------------------
    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """A pod deleted, or any ElasticQuota change."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE)),
            ClusterEventWithHint(ClusterEvent(EventResource.ELASTIC_QUOTA, ActionType.ALL)),
        )


def _in_quota(state: CycleState, pod: Pod, update: Callable[[QuotaInfo, Pod], None]) -> Status | None:
    """AddPod / RemovePod: *update* the quota of *pod*'s namespace in the cycle's copy of the
    quotas (none: nothing to do)."""
    quotas = state.get(QUOTA_SNAPSHOT_KEY)
    if quotas is None:
        return Status(Code.ERROR, (f"error reading {QUOTA_SNAPSHOT_KEY.name!r} from cycleState",))
    info = quotas.get(pod.namespace)
    if info is not None:
        update(info, pod)
    return None


def _importance(now: float) -> Callable[[PodInfo], tuple[int, float]]:
    """Sort key, most important first: higher priority, then earlier start (upstream
    ``MoreImportantPod``)."""
    def key(pi: PodInfo) -> tuple[int, float]:
        t = pi.pod.start_time
        return -pi.pod.effective_priority, now if t is None else t

    return key


@final
class _Preemptor(DefaultNodePicking):
    """The preemption interface of CapacityScheduling (upstream ``preemptor``)."""

    __slots__ = ("handle", "state")

    def __init__(self, handle: Handle, state: CycleState) -> None:
        self.handle = handle
        self.state = state

    def get_offset_and_num_candidates(self, num_nodes: int) -> tuple[int, int]:
        return 0, num_nodes

    def pod_eligible_to_preempt_others(self, pod: Pod, nominated_node_status: Status | None
                                       ) -> tuple[bool, str]:
        if pod.preemption_policy == "Never":
            return False, ERR_NOT_ELIGIBLE_PREEMPT_NEVER
        pre = self.state.get(_PRE_FILTER_KEY)
        if pre is None:
            return False, "not eligible due to failed to read from cycleState"
        nominated = pod.nominated_node_name
        if not nominated:
            return True, ""
        if nominated_node_status is not None and \
                nominated_node_status.code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE:
            return True, ""
        quotas = self.state.get(QUOTA_SNAPSHOT_KEY)
        if quotas is None:
            return True, ""
        node_info = self.handle.snapshot_shared_lister().node_infos().get(nominated)
        if node_info is None:
            return True, ""
        priority = pod.effective_priority
        own = quotas.get(pod.namespace)
        if own is not None:
            over_min = own.used_over_min_with(pre.nominated_in_quota)
            for pi in node_info.pods:
                p = pi.pod
                if p.deletion_timestamp is None:
                    continue
                info = quotas.get(p.namespace)
                if info is None:
                    continue
                if p.namespace == pod.namespace and p.effective_priority < priority:
                    return False, ERR_NOT_ELIGIBLE_TERMINATING
                if p.namespace != pod.namespace and not over_min and info.used_over_min():
                    return False, ERR_NOT_ELIGIBLE_TERMINATING
        else:
            for pi in node_info.pods:
                p = pi.pod
                if quotas.get(p.namespace) is not None:
                    continue
                if p.deletion_timestamp is not None and p.effective_priority < priority:
                    return False, ERR_NOT_ELIGIBLE_TERMINATING
        return True, ""

    def select_victims_on_node(self, state: CycleState, pod: Pod, node_info: NodeInfo,
                               pdbs: Sequence[PodDisruptionBudget]) -> tuple[list[Pod], int, Status]:
        quotas = state.get(QUOTA_SNAPSHOT_KEY)
        if quotas is None:
            return [], 0, Status(Code.UNSCHEDULABLE, ("Failed to read elasticQuotaSnapshot from cycleState",))
        pre = state.get(_PRE_FILTER_KEY)
        if pre is None:
            return [], 0, Status(Code.UNSCHEDULABLE, ("Failed to read preFilterState from cycleState",))
        fh = self.handle
        dry = NodeDryRun(fh, state, pod, node_info)
        remove = dry.remove

        priority = pod.effective_priority
        own = quotas.get(pod.namespace)
        importance = _importance(fh.clock.now())
        pods = sorted(node_info.pods, key=importance, reverse=True)
        potential: list[PodInfo] = []
        if own is not None:
            over_min = own.used_over_min_with(pre.nominated_in_quota)
            for pi in pods:
                p = pi.pod
                info = quotas.get(p.namespace)
                if info is None:
                    continue
                if over_min:
                    # the quota uses its own guarantee: only its lower-priority pods may go
                    chosen = p.namespace == pod.namespace and p.effective_priority < priority
                else:
                    # its guarantee is lent out: reclaim from quotas above their min
                    chosen = p.namespace != pod.namespace and info.used_over_min()
                if chosen:
                    potential.append(pi)
                    err = remove(pi)
                    if err is not None:
                        return [], 0, err
        else:
            for pi in pods:
                p = pi.pod
                if quotas.get(p.namespace) is not None:
                    continue
                if p.effective_priority < priority:
                    potential.append(pi)
                    err = remove(pi)
                    if err is not None:
                        return [], 0, err
        if not potential:
            return [], 0, Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                                 (ERR_NO_VICTIMS.format(node_info.name, pod.name),))
        status = fh.run_filter_plugins_with_nominated_pods(state, pod, node_info)
        if not status.is_success():
            return [], 0, status
        if own is not None and (own.used_over_max_with(pre.pod_req)
                                or quotas.aggregated_used_over_min_with(pre.pod_req)):
            return [], 0, Status(Code.UNSCHEDULABLE, (ERR_QUOTA_MAX_EXCEEDED,))

        potential.sort(key=importance)
        violating, non_violating = filter_pods_with_pdb_violation(potential, pdbs)

        def over_quota() -> bool:
            # kept back, the pod would take the quotas over: evict it after all (upstream asks
            # after every pod given back, whatever the Filter said)
            return own is not None and (own.used_over_max_with(pre.nominated_in_quota)
                                        or quotas.aggregated_used_over_min_with(pre.nominated_all))

        return dry.victims(violating, non_violating, lambda infos: infos.sort(key=importance),
                           evict_anyway=over_quota)


def new(args: object, handle: Handle) -> CapacityScheduling:
    """Factory: CapacityScheduling takes no args (``None`` or an empty mapping)."""
    if args is not None and not (isinstance(args, Mapping) and not
                                 {k for k in args if k not in ("apiVersion", "kind")}):
        raise PluginArgsError(f"CapacityScheduling takes no args, got {type(args).__name__}")
    return CapacityScheduling(handle)


if TYPE_CHECKING:
    from ...framework.interfaces import (
        EnqueueExtensions,
        PostFilterPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        ReservePlugin,
    )
    from ...framework.preemption import PreemptionInterface

    def _check(p: CapacityScheduling, q: _Preemptor) -> None:
        _a: PreFilterPlugin = p
        _b: PostFilterPlugin = p
        _c: ReservePlugin = p
        _d: EnqueueExtensions = p
        _e: PreFilterExtensions = p
        _f: PreemptionInterface = q
