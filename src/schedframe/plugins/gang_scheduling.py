"""GangScheduling: the in-tree, all-or-nothing scheduling of a Workload's gang pod groups.

Upstream: ``pkg/scheduler/framework/plugins/gangscheduling`` (KEP-4671, alpha, behind the
``GangScheduling`` and ``GenericWorkload`` feature gates, off by default). A pod whose
``spec.workloadRef`` names a pod group of a :class:`~schedframe.api.Workload` with a ``gang``
policy (``minCount``) is held:

* **PreEnqueue** -- out of the scheduling queue until its Workload exists and at least
  ``minCount`` pods of its group (same namespace and ``workloadRef``, replica key included) exist;
* **Reserve / Unreserve** -- the pod counts as *assumed* for its group (or stops counting);
* **Permit** -- it waits until ``minCount`` pods of the group are assumed or bound; the pod that
  completes the quorum allows every waiting one. The first to wait activates its unscheduled
  siblings. A pod that waits longer than :data:`PERMIT_TIMEOUT_SECONDS` is rejected (and its
  Unreserve releases it).

From 1.36 the group is a ``scheduling.k8s.io`` PodGroup (:class:`~schedframe.api.SchedulingPodGroup`)
that pods name in ``spec.schedulingGroup.podGroupName``, its policy is the PodGroup's own, and the
members are scheduled together by the PodGroup cycle (``schedframe.scheduler._pod_group``): there
Permit counts the members placed so far in the cycle, and the quorum's Permit message is
:data:`MSG_WAITING_FOR_SCHEDULED`.

With ``CompositePodGroup`` (1.37) a PodGroup whose parent is a CompositePodGroup is held and
permitted with the tree of its root (upstream ``preEnqueueWithHierarchies`` and
``permitPodForHierarchy``): a PodGroup is ready with ``minCount`` pods, a composite with
``minGroupCount`` ready children (``basic``: 1); PlacementFeasible counts a composite's
children placed against ``minGroupCount``.

Pods without a group, and groups with the ``basic`` policy, are not affected. This is
upstream's native gang scheduling; schedframe's Coscheduling plugin (scheduler-plugins, PodGroup
CRD) is the other way, and a scenario can use either (:doc:`/releases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, final

from ..api.objects import Pod, WorkloadReference
from ..api.scheduling_workload import CompositePodGroup, SchedulingPodGroup, Workload, WorkloadPodGroup
from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.interfaces import WaitingPod
from ..framework.pod_group_tree import children, entity_key, leaves, root_of
from ..framework.releases import release_of
from ..framework.status import Code, Status
from . import names
from ._helpers import as_objects, no_args_factory

if TYPE_CHECKING:
    from ..framework.handle import Handle
    from ..framework.interfaces import EnqueueExtensions, PermitPlugin, PreEnqueuePlugin, ReservePlugin

__all__ = [
    "ARGS_TYPE",
    "MSG_WAITING_FOR_MIN_COUNT",
    "MSG_WAITING_FOR_SCHEDULED",
    "MSG_WAITING_ON_PERMIT",
    "tree_quorum_message",
    "NAME",
    "PERMIT_TIMEOUT_SECONDS",
    "GangScheduling",
    "GangSchedulingPodGroups",
    "new",
]

NAME: Final = names.GANG_SCHEDULING
ARGS_TYPE: Final = None

#: How long a gang pod waits at Permit for its quorum (upstream's permit timeout, 5 minutes).
PERMIT_TIMEOUT_SECONDS: Final = 300.0
#: PreEnqueue: fewer than ``minCount`` pods of the group exist.
MSG_WAITING_FOR_MIN_COUNT: Final = "waiting for minCount pods from a gang to appear in scheduling queue"
#: Permit: the quorum is not met yet (1.35).
MSG_WAITING_ON_PERMIT: Final = "waiting for minCount pods from a gang to be waiting on permit"
#: Permit: the quorum is not met yet (1.36 on).
MSG_WAITING_FOR_SCHEDULED: Final = "waiting for minCount pods from a gang to be scheduled"

_GroupKey = tuple[str, "WorkloadReference | str"]


def _matching(a: Pod, b: Pod) -> bool:
    """Upstream ``matchingWorkloadReference``: same namespace and the same workloadRef."""
    return a.workload_ref is not None and a.namespace == b.namespace and a.workload_ref == b.workload_ref


@final
class GangScheduling:
    """The GangScheduling plugin (PreEnqueue, Reserve, Permit, EnqueueExtensions).

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_assumed", "_composites", "_enabled", "_handle", "_pod_groups")

    def __init__(self, handle: Handle | None = None, *, enabled: bool | None = None) -> None:
        self._handle = handle
        self._assumed: dict[_GroupKey, set[str]] = {}
        release = release_of(handle)
        # without GenericWorkload there are no Workloads and no workloadRef: the plugin is inert
        self._enabled = release.enabled("GenericWorkload") if enabled is None else enabled
        # 1.36 on: the group is a scheduling.k8s.io PodGroup named in spec.schedulingGroup
        self._pod_groups = release.minor >= (1, 36)
        # 1.37, CompositePodGroup: a PodGroup with a parent is held and permitted with its tree
        self._composites = (self._enabled and release.minor >= (1, 37)
                            and release.enabled("CompositePodGroup"))

    @property
    def enabled(self) -> bool:
        """Whether the ``GenericWorkload`` gate is on (off: every pod passes)."""
        return self._enabled

    def checkpoint(self) -> object:
        """The members each group has assumed (StatefulPlugin)."""
        return {k: set(v) for k, v in self._assumed.items()}

    def restore(self, state: object) -> None:
        """Put back what :meth:`checkpoint` returned."""
        self._assumed = state  # type: ignore[assignment]

    @property
    def name(self) -> str:
        """``"GangScheduling"``."""
        return NAME

    # -- lookups ------------------------------------------------------------------------------
    def _workload(self, pod: Pod, ref: WorkloadReference) -> Workload | None:
        objects = getattr(self._handle, "objects", None)
        if objects is None:
            return None
        get = getattr(objects, "get", None)
        if callable(get):
            found = get(Workload, ref.name, pod.namespace)
            return found if isinstance(found, Workload) else None
        for w in objects.list(Workload, pod.namespace):
            if isinstance(w, Workload) and w.name == ref.name:
                return w
        return None

    def _key(self, pod: Pod) -> _GroupKey | None:
        """*pod*'s group: its ``schedulingGroup`` (1.36 on) or ``workloadRef`` (1.35), or None."""
        group = pod.scheduling_group if self._pod_groups else pod.workload_ref
        return None if group is None else (pod.namespace, group)

    def _same_group(self, a: Pod, b: Pod) -> bool:
        if self._pod_groups:
            return a.scheduling_group is not None and a.namespace == b.namespace \
                and a.scheduling_group == b.scheduling_group
        return _matching(a, b)

    def _pod_group_object(self, pod: Pod) -> SchedulingPodGroup | None:
        objects = getattr(self._handle, "objects", None)
        if objects is None or pod.scheduling_group is None:
            return None
        found = objects.get(SchedulingPodGroup, pod.scheduling_group, pod.namespace)
        return found if isinstance(found, SchedulingPodGroup) else None

    def _group_pods(self, pod: Pod) -> list[Pod]:
        """Every live pod of *pod*'s group (pending and bound), *pod* included."""
        listed = getattr(self._handle, "list_pods", lambda namespace=None: None)(pod.namespace)
        pods = [p for p in listed or () if self._same_group(pod, p)]
        if not any(p.uid == pod.uid for p in pods):
            pods.append(pod)
        return pods

    def _policy(self, pod: Pod) -> tuple[Workload | None, WorkloadPodGroup | None]:
        assert pod.workload_ref is not None
        workload = self._workload(pod, pod.workload_ref)
        if workload is None:
            return None, None
        return workload, workload.pod_group(pod.workload_ref.pod_group)

    # -- PreEnqueue -----------------------------------------------------------------------------
    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Hold a gang pod until its Workload exists and ``minCount`` pods of its group do."""
        if self._pod_groups:
            return self._pre_enqueue_pod_group(pod)
        ref = pod.workload_ref
        if ref is None or not self._enabled:
            return None
        workload, group = self._policy(pod)
        if workload is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          (f"waiting for pods's workload \"{ref.name}\" to appear in scheduling queue",))
        if group is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (
                f"pod group \"{ref.pod_group}\" doesn't exist for a workload \"{workload.name}\"",))
        if group.min_count is None:
            return None
        if len(self._group_pods(pod)) < group.min_count:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (MSG_WAITING_FOR_MIN_COUNT,))
        return None

    def _pre_enqueue_pod_group(self, pod: Pod) -> Status | None:
        if pod.scheduling_group is None or not self._enabled:
            return None
        if self._composites:
            return self._pre_enqueue_hierarchy(pod)
        group = self._pod_group_object(pod)
        if group is None:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (
                f"waiting for pods's pod group \"{pod.scheduling_group}\" to appear in scheduling queue",))
        if group.min_count is not None and len(self._group_pods(pod)) < group.min_count:
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (MSG_WAITING_FOR_MIN_COUNT,))
        return None

    # -- CompositePodGroup trees (1.37) --------------------------------------------------------
    def _objects(self) -> Any:
        return getattr(self._handle, "objects", None)

    def _pods_of(self, group: SchedulingPodGroup) -> list[Pod]:
        listed = getattr(self._handle, "list_pods", lambda namespace=None: None)(group.namespace)
        return [p for p in listed or ()
                if p.scheduling_group == group.name and p.namespace == group.namespace]

    def _scheduled(self, pods: Sequence[Pod]) -> list[Pod]:
        is_assumed = getattr(self._handle, "is_pod_assumed", None)
        return [p for p in pods if p.node_name or (callable(is_assumed) and is_assumed(p))]

    def _tree_ready(self, group: SchedulingPodGroup | CompositePodGroup, scheduled: bool,
                    depth: int = 0, pod: Pod | None = None) -> bool:
        """Upstream ``isCPGTreeReady`` / ``isPGReady``: a PodGroup is ready with ``minCount``
        (basic: 1) pods (all of them at PreEnqueue, *pod* among them, the scheduled ones at
        Permit); a composite with ``minGroupCount`` (basic: 1) ready children."""
        if isinstance(group, SchedulingPodGroup):
            pods = self._pods_of(group)
            if (pod is not None and pod.scheduling_group == group.name and pod.namespace == group.namespace
                    and not any(p.uid == pod.uid for p in pods)):
                pods.append(pod)
            count = len(self._scheduled(pods)) if scheduled else len(pods)
            return count >= (group.min_count if group.min_count is not None else 1)
        need = group.min_group_count if group.min_group_count is not None else 1
        kids = children(self._objects(), group) if depth < 4 else []
        return sum(1 for c in kids if self._tree_ready(c, scheduled, depth + 1, pod)) >= need

    def _pre_enqueue_hierarchy(self, pod: Pod) -> Status | None:
        """Upstream ``preEnqueueWithHierarchies``."""
        group = self._pod_group_object(pod)
        if group is None:
            key = f"podgroup/{pod.namespace}/{pod.scheduling_group}"
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (
                f"failed to build hierarchy snapshot: pod group object not found in state for {key}",))
        root = root_of(self._objects(), group)
        if isinstance(root, str):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                          (f"failed to build hierarchy snapshot: {root}",))
        if isinstance(root, SchedulingPodGroup):
            if self._tree_ready(root, scheduled=False, pod=pod):
                return None
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (MSG_WAITING_FOR_MIN_COUNT,))
        if not self._tree_ready(root, scheduled=False, pod=pod):
            return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (tree_quorum_message(root.name),))
        return None

    def _permit_hierarchy(self, state: CycleState, pod: Pod, group: SchedulingPodGroup
                          ) -> tuple[Status | None, float]:
        """Upstream ``permitPodForHierarchy``: WAIT (activating the tree's unscheduled pods)
        until the root's tree is ready counting scheduled pods; then allow every assumed pod
        of the tree."""
        root = root_of(self._objects(), group)
        if isinstance(root, str):
            return Status.from_error(RuntimeError(f"failed to build hierarchy snapshot: {root}")), 0.0
        pods = [p for leaf in leaves(self._objects(), root) for p in self._pods_of(leaf)]
        if not self._tree_ready(root, scheduled=True):
            placed = {p.uid for p in self._scheduled(pods)}
            for p in pods:
                if p.uid not in placed and p.uid != pod.uid:
                    state.pods_to_activate[p.key] = p
            return Status(Code.WAIT, (tree_quorum_message(root.name),)), PERMIT_TIMEOUT_SECONDS
        handle = self._handle
        if handle is not None:
            is_assumed = getattr(handle, "is_pod_assumed", None)
            for p in pods:
                if callable(is_assumed) and is_assumed(p):
                    waiting: WaitingPod | None = handle.get_waiting_pod(p.uid)
                    if waiting is not None:
                        waiting.allow(NAME)
        return None, 0.0

    def _same_hierarchy(self, pod: Pod, key: str) -> bool:
        """Upstream ``areSameHierarchy``: *pod*'s group and the group *key* have one root."""
        objects = self._objects()
        group = self._pod_group_object(pod)
        if objects is None or group is None:
            return False
        mine = root_of(objects, group)
        if isinstance(mine, str):
            return False
        kind, _, rest = key.partition("/")
        namespace, _, name = rest.partition("/")
        other = objects.get(CompositePodGroup if kind == "compositepodgroup" else SchedulingPodGroup,
                            name, namespace)
        if not isinstance(other, (SchedulingPodGroup, CompositePodGroup)):
            return False
        theirs = root_of(objects, other)
        return not isinstance(theirs, str) and entity_key(theirs) == entity_key(mine)

    # -- Reserve --------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Count the pod as assumed for its group."""
        key = self._key(pod)
        if key is not None and self._enabled:
            self._assumed.setdefault(key, set()).add(pod.uid)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Stop counting the pod as assumed."""
        key = self._key(pod)
        if key is None:
            return
        assumed = self._assumed.get(key)
        if assumed is not None:
            assumed.discard(pod.uid)
            if not assumed:
                del self._assumed[key]

    # -- Permit ---------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """WAIT until ``minCount`` pods of the group are assumed or bound; then allow them all."""
        if self._pod_groups:
            return self._permit_pod_group(state, pod)
        ref = pod.workload_ref
        if ref is None or not self._enabled:
            return None, 0.0
        workload, group = self._policy(pod)
        if workload is None:
            return Status.from_error(LookupError(
                f'failed to get workload {pod.namespace}/{ref.name}: workload "{ref.name}" not found')), 0.0
        if group is None:
            return Status.from_error(LookupError(
                f"pod group \"{ref.pod_group}\" doesn't exist for a workload \"{workload.name}\"")), 0.0
        if group.min_count is None:
            return None, 0.0
        return self._quorum(state, pod, (pod.namespace, ref), group.min_count, MSG_WAITING_ON_PERMIT)

    def _permit_pod_group(self, state: CycleState, pod: Pod) -> tuple[Status | None, float]:
        if pod.scheduling_group is None or not self._enabled:
            return None, 0.0
        group = self._pod_group_object(pod)
        if group is None:
            name = pod.scheduling_group
            return Status.from_error(LookupError(
                f'failed to get podGroup {pod.namespace}/{name}: podgroup "{name}" not found')), 0.0
        if self._composites and group.parent is not None:
            return self._permit_hierarchy(state, pod, group)
        if group.min_count is None:
            return None, 0.0
        return self._quorum(state, pod, (pod.namespace, pod.scheduling_group), group.min_count,
                            MSG_WAITING_FOR_SCHEDULED)

    def _quorum(self, state: CycleState, pod: Pod, key: _GroupKey, min_count: int, message: str
                ) -> tuple[Status | None, float]:
        """WAIT (activating the unscheduled members) until *min_count* members are assumed or
        bound; then allow every assumed member waiting at Permit."""
        group_pods = self._group_pods(pod)
        if self._pod_groups:
            # 1.36 on: the scheduler's pod group state, whose assumed pods are the cache's
            is_assumed = getattr(self._handle, "is_pod_assumed", None)
            assumed = {p.uid for p in group_pods if callable(is_assumed) and is_assumed(p)}
        else:
            assumed = set(self._assumed.get(key, ()))
        assigned = {p.uid for p in group_pods if p.node_name}
        if len(assumed | assigned) < min_count:
            for p in group_pods:
                if not p.node_name and p.uid != pod.uid and p.uid not in assumed:
                    state.pods_to_activate[p.key] = p
            return Status(Code.WAIT, (message,)), PERMIT_TIMEOUT_SECONDS
        handle = self._handle
        if handle is not None:
            for uid in assumed:
                waiting: WaitingPod | None = handle.get_waiting_pod(uid)
                if waiting is not None:
                    waiting.allow(NAME)
        return None, 0.0

    # -- EnqueueExtensions ----------------------------------------------------------------------
    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Pod added (a member that may complete the gang) and Workload added; both hinted."""
        if not self._enabled:
            return ()
        if self._pod_groups:
            events: tuple[ClusterEventWithHint, ...] = (
                ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD),
                                     self.is_schedulable_after_pod_added),
                ClusterEventWithHint(ClusterEvent(EventResource.POD_GROUP, ActionType.ADD),
                                     self.is_schedulable_after_pod_group_added),
            )
            if self._composites:
                added = ClusterEvent(EventResource.COMPOSITE_POD_GROUP, ActionType.ADD)
                events += (ClusterEventWithHint(added, self.is_schedulable_after_composite_pod_group_added),)
            return events
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD),
                                 self.is_schedulable_after_pod_added),
            ClusterEventWithHint(ClusterEvent(EventResource.WORKLOAD, ActionType.ADD),
                                 self.is_schedulable_after_workload_added),
        )

    def is_schedulable_after_pod_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the added pod belongs to the same pod group."""
        _, added = as_objects(Pod, old_obj, new_obj)
        if self._composites and added is not None and added.scheduling_group is not None:
            same = self._same_hierarchy(pod, f"podgroup/{added.namespace}/{added.scheduling_group}")
            return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP
        if added is None or not self._same_group(pod, added):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_workload_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the added Workload is the pod's."""
        _, added = as_objects(Workload, old_obj, new_obj)
        if (added is None or pod.workload_ref is None or pod.namespace != added.namespace
                or pod.workload_ref.name != added.name):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


    def is_schedulable_after_pod_group_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the added ``scheduling.k8s.io`` PodGroup is the pod's."""
        _, added = as_objects(SchedulingPodGroup, old_obj, new_obj)
        if self._composites and added is not None and pod.scheduling_group is not None:
            same = self._same_hierarchy(pod, entity_key(added))
            return QueueingHint.QUEUE if same else QueueingHint.QUEUE_SKIP
        if (added is None or pod.scheduling_group is None or pod.namespace != added.namespace
                or pod.scheduling_group != added.name):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_composite_pod_group_added(self, pod: Pod, old_obj: Any, new_obj: Any
                                                       ) -> QueueingHint:
        """QUEUE when the added CompositePodGroup is in the pod's tree (1.37, CompositePodGroup)."""
        _, added = as_objects(CompositePodGroup, old_obj, new_obj)
        if added is None or pod.scheduling_group is None or not self._same_hierarchy(pod, entity_key(added)):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


def tree_quorum_message(root: str) -> str:
    """PreEnqueue and Permit of a pod of a CompositePodGroup tree not ready yet."""
    return f"waiting for composite pod group \"{root}\" tree to meet quorum"


@final
class GangSchedulingPodGroups:
    """GangScheduling as 1.36 and 1.37 have it: PreEnqueue, Permit and EnqueueExtensions, with
    no Reserve (the members placed are the scheduler's assumed pods). :func:`new` builds it
    from 1.36 on; it wraps a :class:`GangScheduling`.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_impl",)

    def __init__(self, handle: Handle | None = None, *, enabled: bool | None = None) -> None:
        self._impl = GangScheduling(handle, enabled=enabled)

    @property
    def name(self) -> str:
        """``"GangScheduling"``."""
        return NAME

    @property
    def enabled(self) -> bool:
        """Whether the ``GenericWorkload`` gate is on (off: every pod passes)."""
        return self._impl.enabled

    def checkpoint(self) -> object:
        """The members each group has assumed (StatefulPlugin)."""
        return self._impl.checkpoint()

    def restore(self, state: object) -> None:
        """Put back what :meth:`checkpoint` returned."""
        self._impl.restore(state)

    def pre_enqueue(self, pod: Pod) -> Status | None:
        """Hold a gang pod until its PodGroup exists and ``minCount`` pods of it do."""
        return self._impl.pre_enqueue(pod)

    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """WAIT until ``minCount`` members are assumed or bound; then allow them all."""
        return self._impl.permit(state, pod, node_name)

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Pod added and PodGroup added, both hinted."""
        return self._impl.events_to_register()

    def placement_feasible(self, group: Pod | SchedulingPodGroup | CompositePodGroup | None, scheduled: int,
                           remaining: int) -> Status | None:
        """1.37's PlacementFeasible for a group (a pod's, a PodGroup, or a CompositePodGroup whose
        members are its child groups), with *scheduled* members placed and *remaining* still to
        try: UNSCHEDULABLE when the quorum (``minCount``, ``minGroupCount``) cannot be met any
        more, WAIT while it is not met yet, ``None`` once it is (a basic group's quorum is 1)."""
        if isinstance(group, Pod):
            group = self._impl._pod_group_object(group)
        if isinstance(group, CompositePodGroup):
            quorum = group.min_group_count
        else:
            quorum = None if group is None else group.min_count
        min_count = 1 if quorum is None else quorum
        counts = f"{scheduled} scheduled, {remaining} remaining"
        if remaining + scheduled < min_count:
            return Status(Code.UNSCHEDULABLE, (f"minCount ({min_count}) cannot be satisfied: {counts}",))
        if scheduled < min_count:
            return Status(Code.WAIT, (f"minCount ({min_count}) is not yet satisfied: {counts}",))
        return None


def _make(handle: Handle) -> GangScheduling | GangSchedulingPodGroups:
    if release_of(handle).minor >= (1, 36):
        return GangSchedulingPodGroups(handle)
    return GangScheduling(handle)


#: The plugin's factory (it takes no args): :class:`GangSchedulingPodGroups` from 1.36 on.
new = no_args_factory(_make)


if TYPE_CHECKING:
    _pre_enqueue: PreEnqueuePlugin = GangScheduling()
    _reserve: ReservePlugin = GangScheduling()
    _permit: PermitPlugin = GangScheduling()
    _enqueue: EnqueueExtensions = GangScheduling()
    _pg_permit: PermitPlugin = GangSchedulingPodGroups()
    _pg_enqueue: EnqueueExtensions = GangSchedulingPodGroups()
