"""VolumeRestrictions: in-tree disks one node cannot mount twice, and ReadWriteOncePod claims.

Upstream: ``pkg/scheduler/framework/plugins/volumerestrictions/volume_restrictions.go``.

* **Disk conflicts** (Filter, ``UNSCHEDULABLE``): a GCE persistent disk already mounted by a
  pod on the node conflicts unless both mounts are read-only; an AWS EBS volume always
  conflicts; an RBD image conflicts when the monitors overlap and pool and image match, unless
  both are read-only; an iSCSI disk conflicts on the same IQN unless both are read-only.
* **ReadWriteOncePod** (PreFilter + Filter): a pod using a claim with the ``ReadWriteOncePod``
  access mode is unschedulable while any scheduled pod of the cluster uses that claim.
  PreFilter counts those pods once over the snapshot (upstream keeps that set in the snapshot;
  schedframe computes it when the pod has such a claim); AddPod / RemovePod keep the count right
  for preemption's what-ifs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, ClassVar, Final, final

import attrs

from ..api.objects import Pod, Volume
from ..api.storage import PersistentVolumeClaim
from ..errors import StateNotFoundError
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.releases import release_of
from ..framework.status import Code, Status
from . import names
from ._helpers import PodCountingExtensions, as_objects, no_args_factory
from ._volumes import VolumeObjects, is_schedulable_after_claim_change, not_found, pod_claim_names

if TYPE_CHECKING:
    from ..cache.nodeinfo import NodeInfo, PodInfo
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        EnqueueExtensions,
        FilterPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreFilterResult,
    )

__all__ = [
    "ARGS_TYPE",
    "ERR_REASON_DISK_CONFLICT",
    "ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT",
    "ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_1_33",
    "NAME",
    "VolumeRestrictions",
    "is_volume_conflict",
    "new",
]

NAME: Final = names.VOLUME_RESTRICTIONS
ARGS_TYPE: Final = None

#: Filter reason for a disk already mounted on the node.
ERR_REASON_DISK_CONFLICT: Final = "node(s) had no available disk"
#: Filter reason for a ReadWriteOncePod claim in use by another pod (Kubernetes 1.34 on).
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT: Final = (
    "node(s) unavailable due to PersistentVolumeClaim with ReadWriteOncePod access mode already in-use by "
    "another pod")
#: The same reason up to Kubernetes 1.33.
ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_1_33: Final = (
    "node has pod using PersistentVolumeClaim with the same name and ReadWriteOncePod access mode")

_DISK_CONFLICT: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON_DISK_CONFLICT,))
_RWOP_CONFLICT: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,))
_RWOP_CONFLICT_1_33: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT_1_33,))


@final
@attrs.define
class _State:
    """The pod's ReadWriteOncePod claim names and how many scheduled pods use them."""

    read_write_once_pod_pvcs: frozenset[str]
    conflicting_pvc_ref_count: int

    def clone(self) -> _State:
        return _State(self.read_write_once_pod_pvcs, self.conflicting_pvc_ref_count)

    def conflicts_of(self, pod: Pod) -> int:
        return sum(1 for v in pod.volumes if v.persistent_volume_claim is not None
                   and v.persistent_volume_claim.claim_name in self.read_write_once_pod_pvcs)


_STATE_KEY: Final[StateKey[_State]] = StateKey("PreFilter" + NAME, NAME)


def _have_overlap(a: Sequence[str], b: Sequence[str]) -> bool:
    return not set(a).isdisjoint(b)


def is_volume_conflict(volume: Volume, pod: Pod) -> bool:
    """Whether *volume* conflicts with one of *pod*'s volumes (upstream ``isVolumeConflict``)."""
    for existing in pod.volumes:
        gce, egce = volume.gce_persistent_disk, existing.gce_persistent_disk
        if gce is not None and egce is not None and gce.pd_name == egce.pd_name \
                and not (gce.read_only and egce.read_only):
            return True
        ebs, eebs = volume.aws_elastic_block_store, existing.aws_elastic_block_store
        if ebs is not None and eebs is not None and ebs.volume_id == eebs.volume_id:
            return True
        iscsi, eiscsi = volume.iscsi, existing.iscsi
        if iscsi is not None and eiscsi is not None and iscsi.iqn == eiscsi.iqn \
                and not (iscsi.read_only and eiscsi.read_only):
            return True
        rbd, erbd = volume.rbd, existing.rbd
        if rbd is not None and erbd is not None and _have_overlap(rbd.monitors, erbd.monitors) \
                and rbd.pool == erbd.pool and rbd.image == erbd.image \
                and not (rbd.read_only and erbd.read_only):
            return True
    return False


def _needs_restrictions_check(v: Volume) -> bool:
    return (v.gce_persistent_disk is not None or v.aws_elastic_block_store is not None
            or v.rbd is not None or v.iscsi is not None)


def _satisfy_volume_conflicts(pod: Pod, node_info: NodeInfo) -> bool:
    for v in pod.volumes:
        if not _needs_restrictions_check(v):
            continue
        for existing in node_info.pods:
            if is_volume_conflict(v, existing.pod):
                return False
    return True


@final
class VolumeRestrictions(PodCountingExtensions):
    """PreFilter + Filter plugin for disk conflicts and ReadWriteOncePod claims.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_handle", "_objects", "_rwop_conflict")
    _counts_key: ClassVar[StateKey[_State]] = _STATE_KEY

    def __init__(self, handle: Handle | None = None) -> None:
        self._rwop_conflict = _RWOP_CONFLICT if release_of(handle).has(
            "VolumeRestrictionsInUseReason") else _RWOP_CONFLICT_1_33
        self._handle = handle
        self._objects = VolumeObjects(handle)

    @property
    def name(self) -> str:
        """``"VolumeRestrictions"``."""
        return NAME

    def _used_by_pods(self, namespace: str, claim: str) -> bool:
        """Whether a scheduled pod uses the claim (upstream ``StorageInfos().IsPVCUsedByPods``)."""
        if self._handle is None:
            return False
        for ni in self._handle.snapshot_shared_lister().node_infos().list():
            for pi in ni.pods:
                p = pi.pod
                if p.namespace != namespace:
                    continue
                for v in p.volumes:
                    source = v.persistent_volume_claim
                    if source is not None and source.claim_name == claim:
                        return True
        return False

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Find the pod's ReadWriteOncePod claims and count the pods using them; SKIP when there
        is neither a disk to check nor a conflict."""
        needs_check = any(_needs_restrictions_check(v) for v in pod.volumes)
        pvcs: set[str] = set()
        for v in pod.volumes:
            if v.persistent_volume_claim is None:
                continue
            claim_name = v.persistent_volume_claim.claim_name
            pvc = self._objects.pvc(pod.namespace, claim_name)
            if pvc is None:
                return None, Status.unresolvable(not_found(PersistentVolumeClaim, claim_name))
            if "ReadWriteOncePod" in pvc.access_modes:
                pvcs.add(pvc.name)
        count = sum(1 for claim in pvcs if self._used_by_pods(pod.namespace, claim))
        if not needs_check and count == 0:
            return None, Status.skip()
        state.write(_STATE_KEY, _State(frozenset(pvcs), count))
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """AddPod / RemovePod update the ReadWriteOncePod conflict count."""
        return self

    def _count_pod(self, s: _State, pod_to_schedule: Pod, pod_info: PodInfo, node_info: NodeInfo,
                   delta: int) -> None:
        """Count the added pod's uses of the claims in, or the removed pod's out."""
        s.conflicting_pvc_ref_count += delta * s.conflicts_of(pod_info.pod)

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Disk conflicts on the node, then the ReadWriteOncePod conflicts."""
        if not _satisfy_volume_conflicts(pod, node_info):
            return _DISK_CONFLICT
        try:
            s = state.read(_STATE_KEY)
        except StateNotFoundError as exc:
            return Status.from_error(exc)
        if s.conflicting_pvc_ref_count > 0:
            return self._rwop_conflict
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """Pod deleted and PVC added (hinted), node added (always requeue)."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE),
                                 self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.is_schedulable_after_pvc_added),
        )

    def is_schedulable_after_pvc_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the added claim is one the pod uses."""
        return is_schedulable_after_claim_change(pod, old_obj, new_obj, ephemeral=False)

    def is_schedulable_after_pod_deleted(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the deleted pod (same namespace) held a conflicting disk or one of the
        pod's claims."""
        deleted, _ = as_objects(Pod, old_obj, None)
        if deleted is None or deleted.namespace != pod.namespace:
            return QueueingHint.QUEUE_SKIP
        for v in pod.volumes:
            if _needs_restrictions_check(v) and is_volume_conflict(v, deleted):
                return QueueingHint.QUEUE
        claims = set(pod_claim_names(deleted, ephemeral=False))
        if any(name in claims for name in pod_claim_names(pod, ephemeral=False)):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


#: The plugin's factory (it takes no args).
new = no_args_factory(VolumeRestrictions)


if TYPE_CHECKING:
    _pre_filter: PreFilterPlugin = VolumeRestrictions()
    _filter: FilterPlugin = VolumeRestrictions()
    _extensions: PreFilterExtensions = VolumeRestrictions()
    _enqueue: EnqueueExtensions = VolumeRestrictions()
