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

Pods without a ``workloadRef``, and groups with the ``basic`` policy, are not affected. This is
upstream's native gang scheduling; schedframe's Coscheduling plugin (scheduler-plugins, PodGroup
CRD) is the other way, and a scenario can use either (:doc:`/releases`).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, final

from ..api.objects import Pod, WorkloadReference
from ..api.scheduling_workload import Workload, WorkloadPodGroup
from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.interfaces import WaitingPod
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
    "MSG_WAITING_ON_PERMIT",
    "NAME",
    "PERMIT_TIMEOUT_SECONDS",
    "GangScheduling",
    "new",
]

NAME: Final = names.GANG_SCHEDULING
ARGS_TYPE: Final = None

#: How long a gang pod waits at Permit for its quorum (upstream's permit timeout, 5 minutes).
PERMIT_TIMEOUT_SECONDS: Final = 300.0
#: PreEnqueue: fewer than ``minCount`` pods of the group exist.
MSG_WAITING_FOR_MIN_COUNT: Final = "waiting for minCount pods from a gang to appear in scheduling queue"
#: Permit: the quorum is not met yet.
MSG_WAITING_ON_PERMIT: Final = "waiting for minCount pods from a gang to be waiting on permit"

_GroupKey = tuple[str, WorkloadReference]


def _matching(a: Pod, b: Pod) -> bool:
    """Upstream ``matchingWorkloadReference``: same namespace and the same workloadRef."""
    return a.workload_ref is not None and a.namespace == b.namespace and a.workload_ref == b.workload_ref


@final
class GangScheduling:
    """The GangScheduling plugin (PreEnqueue, Reserve, Permit, EnqueueExtensions).

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_assumed", "_enabled", "_handle")

    def __init__(self, handle: Handle | None = None, *, enabled: bool | None = None) -> None:
        self._handle = handle
        self._assumed: dict[_GroupKey, set[str]] = {}
        # without GenericWorkload there are no Workloads and no workloadRef: the plugin is inert
        self._enabled = release_of(handle).enabled("GenericWorkload") if enabled is None else enabled

    @property
    def enabled(self) -> bool:
        """Whether the ``GenericWorkload`` gate is on (off: every pod passes)."""
        return self._enabled

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

    def _group_pods(self, pod: Pod) -> list[Pod]:
        """Every live pod of *pod*'s group (pending and bound), *pod* included."""
        listed = getattr(self._handle, "list_pods", lambda namespace=None: None)(pod.namespace)
        pods = [p for p in listed or () if _matching(pod, p)]
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

    # -- Reserve --------------------------------------------------------------------------------
    def reserve(self, state: CycleState, pod: Pod, node_name: str) -> Status | None:
        """Count the pod as assumed for its group."""
        if pod.workload_ref is not None and self._enabled:
            self._assumed.setdefault((pod.namespace, pod.workload_ref), set()).add(pod.uid)
        return None

    def unreserve(self, state: CycleState, pod: Pod, node_name: str) -> None:
        """Stop counting the pod as assumed."""
        if pod.workload_ref is None:
            return
        key = (pod.namespace, pod.workload_ref)
        assumed = self._assumed.get(key)
        if assumed is not None:
            assumed.discard(pod.uid)
            if not assumed:
                del self._assumed[key]

    # -- Permit ---------------------------------------------------------------------------------
    def permit(self, state: CycleState, pod: Pod, node_name: str) -> tuple[Status | None, float]:
        """WAIT until ``minCount`` pods of the group are assumed or bound; then allow them all."""
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
        key = (pod.namespace, ref)
        assumed = set(self._assumed.get(key, ()))
        group_pods = self._group_pods(pod)
        assigned = {p.uid for p in group_pods if p.node_name}
        if len(assumed | assigned) < group.min_count:
            for p in group_pods:
                if not p.node_name and p.uid != pod.uid and p.uid not in assumed:
                    state.pods_to_activate[p.key] = p
            return Status(Code.WAIT, (MSG_WAITING_ON_PERMIT,)), PERMIT_TIMEOUT_SECONDS
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
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.ADD),
                                 self.is_schedulable_after_pod_added),
            ClusterEventWithHint(ClusterEvent(EventResource.WORKLOAD, ActionType.ADD),
                                 self.is_schedulable_after_workload_added),
        )

    def is_schedulable_after_pod_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the added pod belongs to the same pod group."""
        _, added = as_objects(Pod, old_obj, new_obj)
        if added is None or not _matching(pod, added):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_workload_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the added Workload is the pod's."""
        _, added = as_objects(Workload, old_obj, new_obj)
        if (added is None or pod.workload_ref is None or pod.namespace != added.namespace
                or pod.workload_ref.name != added.name):
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE


#: The plugin's factory (it takes no args).
new = no_args_factory(GangScheduling)


if TYPE_CHECKING:
    _pre_enqueue: PreEnqueuePlugin = GangScheduling()
    _reserve: ReservePlugin = GangScheduling()
    _permit: PermitPlugin = GangScheduling()
    _enqueue: EnqueueExtensions = GangScheduling()
