"""NodeVolumeLimits: a node attaches at most as many volumes of a CSI driver as its CSINode allows.

Upstream: ``pkg/scheduler/framework/plugins/nodevolumelimits/csi.go`` (the in-tree limit plugins
were removed upstream; this is the CSI one, registered as ``NodeVolumeLimits``).

Each volume of a pod is resolved to ``(driver, volume handle)``:

* a claim (``persistentVolumeClaim`` or a generic ephemeral volume's claim) bound to a PV: the
  PV's ``csi`` driver and handle, or, for a GCE PD / AWS EBS PV, the CSI driver it migrates to;
* an unbound claim: its StorageClass's provisioner (or the CSI driver an in-tree provisioner
  migrates to) and a handle unique to the claim;
* an inline GCE PD / AWS EBS volume: the CSI driver it migrates to.

In-tree volumes count only on a node with a CSINode (upstream's migration check); a volume used
by several pods on the node counts once. The limit of driver ``d`` is the CSINode's
``allocatable.count`` for ``d`` (or the node's ``attachable-volumes-csi-d`` allocatable), and the
pod is ``UNSCHEDULABLE`` on a node where the attached plus new volumes would exceed it.

The node's ``VolumeAttachment`` objects count too (kubernetes/kubernetes#127757): each one with an
attacher and a CSI PersistentVolume counts as ``attacher/handle`` unless a pod on the node already
uses that volume, so a volume still attached for a deleted pod keeps its slot. As upstream, a
new pod's volume is not matched against them. Deleting a VolumeAttachment requeues pods with a
claim, or with an inline volume migrated to the attacher.
"""

from __future__ import annotations

import hashlib
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final, final

from ..api.objects import Pod, Volume
from ..api.storage import CSINode, PersistentVolume, PersistentVolumeClaim
from ..api.volume_attachment import VolumeAttachment
from ..framework.cycle_state import CycleState
from ..framework.events import ActionType, ClusterEvent, ClusterEventWithHint, EventResource, QueueingHint
from ..framework.status import Code, Status
from . import names
from ._helpers import as_objects, no_args_factory
from ._volumes import VolumeObjects, is_schedulable_after_claim_change, not_found, volume_is_for_pod

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

__all__ = [
    "ARGS_TYPE",
    "CSI_ATTACH_LIMIT_PREFIX",
    "ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED",
    "NAME",
    "NodeVolumeLimits",
    "csi_attach_limit_key",
    "new",
]

NAME: Final = names.NODE_VOLUME_LIMITS
ARGS_TYPE: Final = None

#: Filter reason when the node would exceed a driver's attach limit.
ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED: Final = "node(s) exceed max volume count"
#: Prefix of a node's allocatable attach limit of a CSI driver.
CSI_ATTACH_LIMIT_PREFIX: Final = "attachable-volumes-csi-"
_ATTACHABLE_PREFIX: Final = "attachable-volumes-"
_RESOURCE_NAME_LENGTH_LIMIT: Final = 63

_GCE_PD: Final = "kubernetes.io/gce-pd"
_AWS_EBS: Final = "kubernetes.io/aws-ebs"
#: In-tree plugin -> the CSI driver it migrated to (csi-translation-lib).
_MIGRATED_DRIVERS: Final = {
    _AWS_EBS: "ebs.csi.aws.com",
    _GCE_PD: "pd.csi.storage.gke.io",
    "kubernetes.io/azure-disk": "disk.csi.azure.com",
    "kubernetes.io/azure-file": "file.csi.azure.com",
    "kubernetes.io/cinder": "cinder.csi.openstack.org",
    "kubernetes.io/vsphere-volume": "csi.vsphere.vmware.com",
    "kubernetes.io/portworx-volume": "pxd.portworx.com",
}
#: In-tree plugins whose migration is on (upstream ``isCSIMigrationOn``).
_MIGRATION_ON: Final = frozenset({_AWS_EBS, _GCE_PD, "kubernetes.io/azure-disk", "kubernetes.io/cinder",
                                  "kubernetes.io/portworx-volume"})
_UNSPECIFIED: Final = "UNSPECIFIED"

_EXCEEDED: Final = Status(Code.UNSCHEDULABLE, (ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,))


def csi_attach_limit_key(driver: str) -> str:
    """Upstream ``GetCSIAttachLimitKey``: ``attachable-volumes-csi-<driver>``, shortened with a
    SHA-1 of the driver name when that reaches 63 characters."""
    if len(CSI_ATTACH_LIMIT_PREFIX) + len(driver) >= _RESOURCE_NAME_LENGTH_LIMIT:
        digest = hashlib.sha1(driver.encode(), usedforsecurity=False).hexdigest()[:16]
        return CSI_ATTACH_LIMIT_PREFIX + driver[:23] + digest
    return CSI_ATTACH_LIMIT_PREFIX + driver


def _migration_on(csi_node: CSINode | None, plugin: str) -> bool:
    return csi_node is not None and plugin in _MIGRATION_ON


def _ebs_volume_id(volume_id: str) -> str:
    """Upstream ``KubernetesVolumeIDToEBSVolumeID``: ``aws://zone/vol-x`` -> ``vol-x``."""
    if volume_id.startswith("aws://"):
        return volume_id.rstrip("/").rsplit("/", 1)[-1]
    return volume_id


def _gce_handle(pd_name: str, zone: str = _UNSPECIFIED) -> str:
    return f"projects/{_UNSPECIFIED}/zones/{zone}/disks/{pd_name}"


def _inline_migratable(v: Volume) -> bool:
    return v.gce_persistent_disk is not None or v.aws_elastic_block_store is not None


@final
class NodeVolumeLimits:
    """PreFilter + Filter plugin for CSI attach limits.

    .. versionadded:: 0.1.0
    """

    __slots__ = ("_objects", "_prefix")

    def __init__(self, handle: Handle | None = None) -> None:
        self._objects = VolumeObjects(handle)
        # claims without a volume get a handle no real volume has (upstream: a random prefix)
        self._prefix = secrets.token_hex(16)

    @property
    def name(self) -> str:
        """``"NodeVolumeLimits"``."""
        return NAME

    def pre_filter(self, state: CycleState, pod: Pod,
                   nodes: Sequence[NodeInfo]) -> tuple[PreFilterResult | None, Status | None]:
        """SKIP a pod without claims and without migratable inline volumes."""
        for v in pod.volumes:
            if v.persistent_volume_claim is not None or v.ephemeral is not None or _inline_migratable(v):
                return None, None
        return None, Status.skip()

    def pre_filter_extensions(self) -> PreFilterExtensions | None:
        """None."""
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        """Count the new and attached volumes per driver against the node's limits."""
        if not pod.volumes:
            return None
        node = node_info.node
        if node is None:
            return None
        csi_node = self._objects.csi_node(node.name)
        new_volumes: dict[str, str] = {}
        err = self._attachable_volumes(pod, csi_node, True, new_volumes)
        if err is not None:
            return err
        if not new_volumes:
            return None
        limits = self._volume_limits(node_info, csi_node)
        if not limits:
            return None
        attached: dict[str, str] = {}
        for pi in node_info.pods:
            err = self._attachable_volumes(pi.pod, csi_node, False, attached)
            if err is not None:
                return err
        attached_count: dict[str, int] = {}
        for unique, key in attached.items():
            new_volumes.pop(unique, None)  # a volume several pods use counts once
            attached_count[key] = attached_count.get(key, 0) + 1
        for unique, key in self._attachments(node.name).items():
            if unique not in attached:  # attached for a pod the node no longer has
                attached_count[key] = attached_count.get(key, 0) + 1
        new_count: dict[str, int] = {}
        for key in new_volumes.values():
            new_count[key] = new_count.get(key, 0) + 1
        for key, count in new_count.items():
            limit = limits.get(key)
            if limit is not None and attached_count.get(key, 0) + count > limit:
                return _EXCEEDED
        return None

    def _attachments(self, node_name: str) -> dict[str, str]:
        """Upstream ``getNodeVolumeAttachmentInfo``: ``attacher/handle -> limit key`` of the
        VolumeAttachments of *node_name* whose PersistentVolume is a CSI volume."""
        lister = self._objects.lister
        out: dict[str, str] = {}
        if lister is None:
            return out
        for va in lister.list(VolumeAttachment):
            if va.node_name != node_name or not va.attacher or not va.persistent_volume_name:
                continue
            pv = self._objects.pv(va.persistent_volume_name)
            if pv is None or pv.csi is None:
                continue
            out[f"{va.attacher}/{pv.csi.volume_handle}"] = csi_attach_limit_key(va.attacher)
        return out

    @staticmethod
    def _volume_limits(node_info: NodeInfo, csi_node: CSINode | None) -> dict[str, int]:
        limits = {k: v for k, v in node_info.allocatable.scalar.items() if k.startswith(_ATTACHABLE_PREFIX)}
        if csi_node is not None:
            for d in csi_node.drivers:
                if d.allocatable_count is not None:
                    limits[csi_attach_limit_key(d.name)] = d.allocatable_count
        return limits

    def _attachable_volumes(self, pod: Pod, csi_node: CSINode | None, new_pod: bool,
                            result: dict[str, str]) -> Status | None:
        """Upstream ``filterAttachableVolumes``: add ``driver/handle -> limit key`` of each
        volume of *pod* to *result*; a Status for an error."""
        for v in pod.volumes:
            if v.persistent_volume_claim is not None:
                claim_name = v.persistent_volume_claim.claim_name
            elif v.ephemeral is not None:
                claim_name = f"{pod.name}-{v.name}"
            else:
                self._inline_volume(v, csi_node, result)
                continue
            if not claim_name:
                return Status.from_error(ValueError("PersistentVolumeClaim had no name"))
            pvc = self._objects.pvc(pod.namespace, claim_name)
            if pvc is None:
                if new_pod:
                    return Status.unresolvable(f"looking up PVC {pod.namespace}/{claim_name}: "
                                               f"{not_found(PersistentVolumeClaim, claim_name)}")
                continue
            if v.ephemeral is not None:
                problem = volume_is_for_pod(pod, pvc)
                if problem is not None:
                    return Status.from_error(ValueError(problem))
            driver, handle = self._driver_info(csi_node, pvc)
            if not driver or not handle:
                continue
            result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)
        return None

    @staticmethod
    def _inline_volume(v: Volume, csi_node: CSINode | None, result: dict[str, str]) -> None:
        """Upstream ``checkAttachableInlineVolume``: migrated in-tree inline volumes count."""
        if v.gce_persistent_disk is not None:
            plugin, handle = _GCE_PD, _gce_handle(v.gce_persistent_disk.pd_name)
        elif v.aws_elastic_block_store is not None:
            plugin, handle = _AWS_EBS, _ebs_volume_id(v.aws_elastic_block_store.volume_id)
        else:
            return
        if not _migration_on(csi_node, plugin):
            return
        driver = _MIGRATED_DRIVERS[plugin]
        result[f"{driver}/{handle}"] = csi_attach_limit_key(driver)

    def _driver_info(self, csi_node: CSINode | None, pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """Upstream ``getCSIDriverInfo``: the driver and volume handle of a claim."""
        if not pvc.volume_name:
            return self._driver_info_from_class(csi_node, pvc)
        pv = self._objects.pv(pvc.volume_name)
        if pv is None:
            return self._driver_info_from_class(csi_node, pvc)
        if pv.csi is not None:
            return pv.csi.driver, pv.csi.volume_handle
        return self._migrated_pv(csi_node, pv)

    @staticmethod
    def _migrated_pv(csi_node: CSINode | None, pv: PersistentVolume) -> tuple[str, str]:
        if pv.gce_persistent_disk is not None:
            plugin = _GCE_PD
            zone = pv.labels.get("topology.kubernetes.io/zone",
                                 pv.labels.get("failure-domain.beta.kubernetes.io/zone", _UNSPECIFIED))
            if "__" in zone:
                zone = _UNSPECIFIED
            handle = _gce_handle(pv.gce_persistent_disk.pd_name, zone)
        elif pv.aws_elastic_block_store is not None:
            plugin, handle = _AWS_EBS, _ebs_volume_id(pv.aws_elastic_block_store.volume_id)
        else:
            return "", ""
        if not _migration_on(csi_node, plugin):
            return "", ""
        return _MIGRATED_DRIVERS[plugin], handle

    def _driver_info_from_class(self, csi_node: CSINode | None,
                                pvc: PersistentVolumeClaim) -> tuple[str, str]:
        """Upstream ``getCSIDriverInfoFromSC``: an unbound claim counts for its class's
        provisioner, with a handle unique to the claim."""
        sc_name = pvc.storage_class()
        if not sc_name:
            return "", ""
        sc = self._objects.storage_class(sc_name)
        if sc is None:
            return "", ""
        handle = f"{self._prefix}-{pvc.namespace}/{pvc.name}"
        provisioner = sc.provisioner
        if provisioner in _MIGRATED_DRIVERS:
            if not _migration_on(csi_node, provisioner):
                return "", ""
            return _MIGRATED_DRIVERS[provisioner], handle
        return provisioner, handle

    def events_to_register(self) -> Sequence[ClusterEventWithHint]:
        """CSINode added (always requeue); pod deleted, PVC added and VolumeAttachment deleted
        (hinted)."""
        return (
            ClusterEventWithHint(ClusterEvent(EventResource.CSI_NODE, ActionType.ADD)),
            ClusterEventWithHint(ClusterEvent(EventResource.POD, ActionType.DELETE),
                                 self.is_schedulable_after_pod_deleted),
            ClusterEventWithHint(ClusterEvent(EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD),
                                 self.is_schedulable_after_pvc_added),
            ClusterEventWithHint(ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE),
                                 self.is_schedulable_after_volume_attachment_deleted),
        )

    def is_schedulable_after_volume_attachment_deleted(self, pod: Pod, old_obj: Any,
                                                       new_obj: Any) -> QueueingHint:
        """QUEUE when the pod has a claim, or an inline volume migrated to the deleted
        attachment's attacher (upstream ``isSchedulableAfterVolumeAttachmentDeleted``)."""
        deleted, _ = as_objects(VolumeAttachment, old_obj, None)
        if deleted is None:
            return QueueingHint.QUEUE
        for v in pod.volumes:
            if v.persistent_volume_claim is not None:
                return QueueingHint.QUEUE
            if v.gce_persistent_disk is not None:
                driver = _MIGRATED_DRIVERS[_GCE_PD]
            elif v.aws_elastic_block_store is not None:
                driver = _MIGRATED_DRIVERS[_AWS_EBS]
            else:
                continue
            if driver == deleted.attacher:
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pod_deleted(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the deleted pod was on a node and had a claim or a migratable inline volume."""
        deleted, _ = as_objects(Pod, old_obj, None)
        if deleted is None or not deleted.volumes or not deleted.node_name:
            return QueueingHint.QUEUE_SKIP
        for v in deleted.volumes:
            if v.persistent_volume_claim is not None or v.ephemeral is not None or _inline_migratable(v):
                return QueueingHint.QUEUE
        return QueueingHint.QUEUE_SKIP

    def is_schedulable_after_pvc_added(self, pod: Pod, old_obj: Any, new_obj: Any) -> QueueingHint:
        """QUEUE when the added claim is one the pod uses."""
        return is_schedulable_after_claim_change(pod, old_obj, new_obj, ephemeral=True)


#: The plugin's factory (it takes no args).
new = no_args_factory(NodeVolumeLimits)


if TYPE_CHECKING:
    _pre_filter: PreFilterPlugin = NodeVolumeLimits()
    _filter: FilterPlugin = NodeVolumeLimits()
    _enqueue: EnqueueExtensions = NodeVolumeLimits()
