"""Kubernetes 1.36 completeness: VolumeAttachment objects counted by NodeVolumeLimits
(kubernetes/kubernetes#127757), older API versions of the kinds schedframe reads."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import (
    CSINode,
    CSINodeDriver,
    CSIPersistentVolumeSource,
    ManifestError,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    PersistentVolumeClaimVolumeSource,
    Pod,
    Status,
    Volume,
    VolumeAttachment,
    object_from_manifest,
    object_to_manifest,
)
from schedframe.framework.events import ActionType, ClusterEvent, EventResource, QueueingHint
from schedframe.plugins.node_volume_limits import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, NodeVolumeLimits
from schedframe.testing import PluginHarness

EBS = "ebs.csi.aws.com"
EXCEEDED = Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)
NODE = Node(name="node-1")


def claim_pod(name: str, *claims: str, node: str = "") -> Pod:
    return Pod(name=name, node_name=node, volumes=tuple(
        Volume(name=c, persistent_volume_claim=PersistentVolumeClaimVolumeSource(c)) for c in claims))


def csi_volume(name: str, driver: str = EBS) -> list[Any]:
    """A CSI PersistentVolume and its bound claim, both called *name*."""
    return [PersistentVolume(name=name, csi=CSIPersistentVolumeSource(driver=driver, volume_handle=name)),
            PersistentVolumeClaim(name=name, volume_name=name)]


def attachment(name: str, pv: str, *, node: str = "node-1", attacher: str = EBS) -> VolumeAttachment:
    return VolumeAttachment(name=name, attacher=attacher, node_name=node, persistent_volume_name=pv,
                            attached=True)


STORAGE = [*csi_volume("vol-0"), *csi_volume("vol-1"), *csi_volume("vol-2"), *csi_volume("vol-3"),
           PersistentVolume(name="nfs", other_source="nfs", other_spec={"server": "x", "path": "/"})]


def limits(count: int) -> CSINode:
    return CSINode("node-1", drivers=[CSINodeDriver(EBS, node_id="node-1", allocatable_count=count)])


VA_CASES = [
    pytest.param([], 2, None, id="without attachments: one attached by a pod plus one new fits a limit of 2"),
    pytest.param([attachment("va-2", "vol-2")], 2, EXCEEDED,
                 id="a volume still attached for a deleted pod takes a slot"),
    pytest.param([attachment("va-2", "vol-2")], 3, None, id="it fits when the limit leaves room"),
    pytest.param([attachment("va-1", "vol-1")], 2, None,
                 id="an attachment of a volume a pod on the node uses counts once"),
    pytest.param([attachment("va-2", "vol-2", node="node-2")], 2, None,
                 id="attachments of other nodes do not count"),
    pytest.param([attachment("va-x", "nfs")], 2, None, id="an attachment of a non-CSI volume does not count"),
    pytest.param([attachment("va-x", "missing")], 2, None,
                 id="an attachment of an unknown volume does not count"),
    pytest.param([VolumeAttachment(name="va-x", attacher=EBS, node_name="node-1")], 2, None,
                 id="an attachment without a persistent volume (inline) does not count"),
    pytest.param([attachment("va-0", "vol-0")], 2, EXCEEDED,
                 id="the new pod's own volume attached without a pod counts again, as upstream"),
]


@pytest.mark.parametrize(("attachments", "limit", "want"), VA_CASES)
def test_volume_attachments_count_against_the_limit(attachments: list[VolumeAttachment], limit: int,
                                                    want: Status | None) -> None:
    """NodeVolumeLimits counts the node's VolumeAttachments of CSI volumes (kubernetes#127757)."""
    h = PluginHarness("NodeVolumeLimits", nodes=[NODE], pods=[claim_pod("running", "vol-1", node="node-1")],
                      objects=[*STORAGE, limits(limit), *attachments])
    got = h.filter(claim_pod("new", "vol-0"))["node-1"]
    assert got == (Status.OK if want is None else want)


def test_volume_attachment_deleted_hint() -> None:
    """A deleted VolumeAttachment requeues pods with a claim, or an inline volume migrated to its
    attacher; others skip."""
    plugin = NodeVolumeLimits()
    events = {e.event: e.hint for e in plugin.events_to_register()}
    hint = events[ClusterEvent(EventResource.VOLUME_ATTACHMENT, ActionType.DELETE)]
    assert hint is not None
    va = attachment("va", "vol-0")
    assert hint(claim_pod("p", "vol-0"), va, None) == QueueingHint.QUEUE
    assert hint(Pod(name="plain"), va, None) == QueueingHint.QUEUE_SKIP


def test_volume_attachment_manifest_round_trip() -> None:
    """A storage.k8s.io/v1 VolumeAttachment is read and written; required fields are checked."""
    manifest = {"apiVersion": "storage.k8s.io/v1", "kind": "VolumeAttachment", "metadata": {"name": "va"},
                "spec": {"attacher": EBS, "nodeName": "node-1", "source": {"persistentVolumeName": "pv"}},
                "status": {"attached": True}}
    va = object_from_manifest(manifest)
    assert va == VolumeAttachment(name="va", attacher=EBS, node_name="node-1", persistent_volume_name="pv",
                                  attached=True)
    assert object_to_manifest(va) == manifest
    with pytest.raises(ManifestError, match=r"spec\.attacher: required"):
        object_from_manifest({**manifest, "spec": {"nodeName": "node-1"}})
