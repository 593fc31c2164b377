"""VolumeZone: a pod's bound PersistentVolumes must be in the node's zone and region.

Upstream: ``pkg/scheduler/framework/plugins/volumezone/volume_zone.go``.

PreFilter collects the topology labels (``topology.kubernetes.io/zone`` / ``region`` and their
``failure-domain.beta`` forms) of the PersistentVolumes bound to the pod's claims; a label value
may list several zones separated by ``__``. Unbound claims of a ``WaitForFirstConsumer`` class
are skipped (VolumeBinding handles them). Filter accepts a node without any topology label;
otherwise each PV label must be on the node (a beta PV label may match the node's GA label)
with one of the PV's values, else ``UNSCHEDULABLE_AND_UNRESOLVABLE``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, final

import attrs

from ..api.objects import Pod
from ..api.storage import PersistentVolume, PersistentVolumeClaim, StorageClass
from ..framework.cycle_state import CycleState, StateKey
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.status import Code, Status
from . import names
from ._helpers import as_objects, no_args_factory
from ._volumes import VolumeObjects, is_schedulable_after_claim_change, not_found, pod_claim_names

if TYPE_CHECKING:
    from ..cache.nodeinfo import NodeInfo
    from ..framework.handle import Handle
    from ..framework.interfaces import (
        EnqueueExtensions,
        FilterPlugin,
        PreFilterExtensions,
        PreFilterPlugin,
        PreFilterResult,
    )

__all__ = ["ARGS_TYPE", "ERR_REASON_CONFLICT", "NAME", "TOPOLOGY_LABELS", "VolumeZone", "new"]

NAME: Final = names.VOLUME_ZONE
_ADD_OR_UPDATE: Final = ActionType.ADD | ActionType.UPDATE
_NODE_ADD_OR_LABEL: Final = ActionType.ADD | ActionType.UPDATE_NODE_LABEL
ARGS_TYPE: Final = None

#: Filter reason when a PV's zone or region is not the node's.
ERR_REASON_CONFLICT: Final = "node(s) had no available volume zone"

_BETA_ZONE: Final = "failure-domain.beta.kubernetes.io/zone"
_BETA_REGION: Final = "failure-domain.beta.kubernetes.io/region"
_ZONE: Final = "topology.kubernetes.io/zone"
_REGION: Final = "topology.kubernetes.io/region"
#: The PV labels VolumeZone compares, in upstream's order.
TOPOLOGY_LABELS: Final = (_BETA_ZONE, _BETA_REGION, _ZONE, _REGION)
_TO_GA: Final = {_BETA_REGION: _REGION, _BETA_ZONE: _ZONE}
_ZONES_DELIMITER: Final = "__"

_CONFLICT: Final = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (ERR_REASON_CONFLICT,))


@final
@attrs.frozen
class PVTopology:
    """One topology label of a PV: its key and the set of values it allows."""

    pv_name: str
    key: str
    values: frozenset[str]


_STATE_KEY: Final[StateKey[tuple[PVTopology, ...]]] = StateKey("PreFilter" + NAME, NAME)


def _label_zones_to_set(value: str) -> frozenset[str] | None:
    """Upstream ``LabelZonesToSet``: ``__``-separated zones, trimmed; ``None`` when one is empty."""
    out = set()
    for zone in value.split(_ZONES_DELIMITER):
        z = zone.strip()
        if not z:
            return None
        out.add(z)
    return frozenset(out)


def pv_topologies(pv: PersistentVolume) -> tuple[PVTopology, ...]:
    """The topology labels of *pv* (upstream ``getPVTopologies``; unparsable values ignored)."""
    out = []
    for key in TOPOLOGY_LABELS:
        value = pv.labels.get(key)
        if value is None:
            continue
        zones = _label_zones_to_set(value)
        if zones is None:
            continue
        out.append(PVTopology(pv.name, key, zones))
    return tuple(out)


@final
class VolumeZone:
    """PreFilter + Filter plugin for the zones of a pod's bound PersistentVolumes.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_objects",)

    def __init__(self, handle: Handle | None = None) -> None:
        self._objects = VolumeObjects(handle)

    @property
    def name(self) -> str:
        """``"VolumeZone"``."""
        return NAME

    def _pv_by_pod(self, pod: Pod) -> tuple[PVTopology, ...] | Status:
        topologies: list[PVTopology] = []
        for claim_name in pod_claim_names(pod, ephemeral=False):
            if not claim_name:
                return Status.unresolvable("PersistentVolumeClaim had no name")
            pvc = self._objects.pvc(pod.namespace, claim_name)
            if pvc is None:
                return Status.unresolvable(not_found(PersistentVolumeClaim, claim_name))
            pv_name = pvc.volume_name
            if not pv_name:
                sc_name = pvc.storage_class()
                if not sc_name:
                    return Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name")
                sc = self._objects.storage_class(sc_name)
                if sc is None:
                    return Status.unresolvable(not_found(StorageClass, sc_name))
                if sc.volume_binding_mode is None:
                    return Status.unresolvable(f'VolumeBindingMode not set for StorageClass "{sc_name}"')
                if sc.volume_binding_mode == "WaitForFirstConsumer":
                    continue  # unbound, VolumeBinding handles it
                return Status.unresolvable("PersistentVolume had no name")
            pv = self._objects.pv(pv_name)
            if pv is None:
                return Status.unresolvable(not_found(PersistentVolume, pv_name))
            topologies.extend(pv_topologies(pv))
        return tuple(topologies)

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """Collect the PV topologies; SKIP when there are none."""
        got = self._pv_by_pod(pod)
        if isinstance(got, Status):
            return None, got
        if not got:
            return None, Status.skip()
        state.write(_STATE_KEY, got)
        return None, None

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None: the state does not depend on other pods."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Every PV topology label must be on the node with an allowed value."""
        if not pod.volumes:
            return None
        topologies = state.get(_STATE_KEY)
        if topologies is None:  # as upstream, compute it here when PreFilter did not run
            got = self._pv_by_pod(pod)
            if isinstance(got, Status):
                return got
            topologies = got
        node = node_info.node
        labels = node.labels if node is not None else {}
        if not any(key in labels for key in TOPOLOGY_LABELS):
            return None  # a node without topology labels (single-zone cluster) fits
        for t in topologies:
            v = labels.get(t.key)
            if v is None:
                v = labels.get(_TO_GA.get(t.key, t.key))
            if v is None or v not in t.values:
                return _CONFLICT
        return None

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """StorageClass added, PVC and PV added or updated (hinted); node added or relabelled."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.STORAGE_CLASS, ActionType.ADD),
                                 self.is_schedulable_after_storage_class_added),
            ClusterEventWithHint(ClusterEvent(EventResource.NODE, _NODE_ADD_OR_LABEL)),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM,
                                              _ADD_OR_UPDATE),
                                 self.is_schedulable_after_pvc_change),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME, _ADD_OR_UPDATE),
                                 self.is_schedulable_after_pv_change),
        )

    def is_schedulable_after_pvc_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the claim is one of the pod's."""
        return is_schedulable_after_claim_change(pod, old_obj, new_obj, ephemeral=False)

    def is_schedulable_after_storage_class_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE for a new WaitForFirstConsumer class."""
        _, sc = as_objects(StorageClass, None, new_obj)
        if sc is None or sc.volume_binding_mode != "WaitForFirstConsumer":
            return QueueingHint.QUEUE_SKIP
        return QueueingHint.QUEUE

    def is_schedulable_after_pv_change(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE for a new PV, or one whose topology labels changed."""
        old, new = as_objects(PersistentVolume, old_obj, new_obj)
        if old is None:
            return QueueingHint.QUEUE
        if new is None or pv_topologies(old) != pv_topologies(new):
            return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP


#: The plugin's factory (it takes no args).
new = no_args_factory(VolumeZone)


if TYPE_CHECKING:
    _pre_filter: PreFilterPlugin = VolumeZone()
    _filter: FilterPlugin = VolumeZone()
    _enqueue: EnqueueExtensions = VolumeZone()
