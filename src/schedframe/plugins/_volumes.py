"""Shared code of the volume plugins (VolumeBinding, VolumeRestrictions, VolumeZone,
NodeVolumeLimits): object lookups through the handle's object lister with upstream's NotFound
messages, the storage helpers of ``k8s.io/component-helpers/storage``, and their queueing hint
for an added or updated PVC."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, TypeVar

from ..api.objects import Pod
from ..api.storage import (
    CSIDriver,
    CSINode,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
)
from ..cache.listers import ObjectLister
from ..framework.events import QueueingHint
from ..framework.handle import Handle
from ._helpers import as_objects

__all__ = [
    "VolumeObjects",
    "check_node_affinity",
    "is_schedulable_after_claim_change",
    "not_found",
    "pod_claim_names",
    "volume_is_for_pod",
]

T = TypeVar("T")

#: Upstream ``GroupResource`` strings of the NotFound errors the listers return.
_RESOURCE: Final[Mapping[type, str]] = {
    PersistentVolumeClaim: "persistentvolumeclaim",
    PersistentVolume: "persistentvolume",
    StorageClass: "storageclass.storage.k8s.io",
    CSINode: "csinode.storage.k8s.io",
    CSIDriver: "csidriver.storage.k8s.io",
}


def not_found(kind: type, name: str) -> str:
    """The message of an API NotFound error, e.g. ``persistentvolumeclaim "c" not found``."""
    return f'{_RESOURCE[kind]} "{name}" not found'


class VolumeObjects:
    """Typed lookups of the storage objects in the handle's object lister.

    Uses the lister's ``get(kind, name, namespace)`` when it has one (``ObjectStore`` does),
    else scans ``list``.
    """

    __slots__ = ("_handle", "_objects")

    def __init__(self, handle: Handle | None) -> None:
        self._handle = handle
        self._objects: ObjectLister | None = None

    @property
    def lister(self) -> ObjectLister | None:
        """The object lister (``None`` without a handle)."""
        if self._objects is None and self._handle is not None:
            self._objects = self._handle.objects
        return self._objects

    def _get(self, kind: type[T], name: str, namespace: str = "") -> T | None:
        objects = self.lister
        if objects is None:
            return None
        get: Any = getattr(objects, "get", None)
        if get is not None:
            found = get(kind, name, namespace)
            return found if isinstance(found, kind) else None
        for obj in objects.list(kind, namespace):
            if getattr(obj, "name", None) == name:
                return obj
        return None

    def pvc(self, namespace: str, name: str) -> PersistentVolumeClaim | None:
        """The PersistentVolumeClaim *namespace*/*name*."""
        return self._get(PersistentVolumeClaim, name, namespace)

    def pv(self, name: str) -> PersistentVolume | None:
        """The PersistentVolume *name*."""
        return self._get(PersistentVolume, name)

    def storage_class(self, name: str) -> StorageClass | None:
        """The StorageClass *name*."""
        return self._get(StorageClass, name)

    def csi_node(self, name: str) -> CSINode | None:
        """The CSINode *name* (named after its node)."""
        return self._get(CSINode, name)

    def csi_driver(self, name: str) -> CSIDriver | None:
        """The CSIDriver *name*."""
        return self._get(CSIDriver, name)

    def pvs(self) -> list[PersistentVolume]:
        """Every PersistentVolume."""
        objects = self.lister
        return [] if objects is None else objects.list(PersistentVolume)


def volume_is_for_pod(pod: Pod, pvc: PersistentVolumeClaim) -> str | None:
    """Upstream ``ephemeral.VolumeIsForPod``: ``None`` when the PVC of a generic ephemeral volume
    was created for *pod* (same namespace, the pod its controller owner), else the error."""
    if pod.namespace != pvc.namespace:
        return (f"PVC {pvc.namespace}/{pvc.name} was not created for pod {pod.namespace}/{pod.name} "
                "(pod is not owner)")
    for ref in pvc.owner_references:
        if ref.controller:
            if ref.uid == pod.uid:
                return None
            break
    return (f"PVC {pvc.namespace}/{pvc.name} was not created for pod {pod.namespace}/{pod.name} "
            "(pod is not owner)")


def check_node_affinity(pv: PersistentVolume, labels: Mapping[str, str]) -> bool:
    """Upstream ``volume.CheckNodeAffinity``: a PV without required node affinity fits every
    node, otherwise one of its terms must match a node with these labels (and, as upstream, no
    name: ``matchFields`` terms are not evaluated)."""
    if pv.node_affinity is None:
        return True
    return pv.node_affinity.matches("", labels)


def pod_claim_names(pod: Pod, *, ephemeral: bool) -> list[str]:
    """The PVCs *pod* uses: those its ``persistentVolumeClaim`` volumes name and, with
    *ephemeral*, those of its generic ephemeral volumes (``<pod>-<volume>``)."""
    if ephemeral:
        return [name for v in pod.volumes if (name := v.claim_name(pod.name)) is not None]
    return [v.persistent_volume_claim.claim_name for v in pod.volumes
            if v.persistent_volume_claim is not None]


def is_schedulable_after_claim_change(pod: Pod, old_obj: Any, new_obj: Any, *,
                                      ephemeral: bool) -> QueueingHint:
    """The volume plugins' hint for an added or updated PVC: QUEUE when it is one of
    :func:`pod_claim_names` (of *pod*'s namespace)."""
    _, pvc = as_objects(PersistentVolumeClaim, old_obj, new_obj)
    if pvc is None or pvc.namespace != pod.namespace:
        return QueueingHint.QUEUE_SKIP
    if pvc.name in pod_claim_names(pod, ephemeral=ephemeral):
        return QueueingHint.QUEUE
    return QueueingHint.QUEUE_SKIP
