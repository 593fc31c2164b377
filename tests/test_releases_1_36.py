"""Kubernetes 1.36 completeness: VolumeAttachment objects counted by NodeVolumeLimits
(kubernetes/kubernetes#127757), older API versions of the kinds schedframe reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schedframe import (
    CSINode,
    CSINodeDriver,
    CSIPersistentVolumeSource,
    DeprecatedAPIVersionWarning,
    ManifestError,
    Node,
    PersistentVolume,
    PersistentVolumeClaim,
    PersistentVolumeClaimVolumeSource,
    Pod,
    PodDisruptionBudget,
    SchedframeWarning,
    Status,
    Volume,
    VolumeAttachment,
    load_manifests,
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


# --------------------------------------------------------------------------------------------
# older API versions, read with a deprecation warning

COCKROACHDB_PDB = {  # kubernetes/examples cockroachdb/cockroachdb-statefulset.yaml
    "apiVersion": "policy/v1beta1", "kind": "PodDisruptionBudget",
    "metadata": {"name": "cockroachdb-budget", "namespace": "default", "labels": {"app": "cockroachdb"}},
    "spec": {"selector": {"matchLabels": {"app": "cockroachdb"}}, "maxUnavailable": 1},
}


def test_policy_v1beta1_pdb_is_read_with_a_warning() -> None:
    """A policy/v1beta1 PodDisruptionBudget is read as policy/v1, with a DeprecatedAPIVersionWarning."""
    with pytest.warns(DeprecatedAPIVersionWarning, match=r"PodDisruptionBudget 'cockroachdb-budget' is "
                                                         r"written in policy/v1beta1.*stopped serving in "
                                                         r"1\.25; read as policy/v1") as record:
        pdb = object_from_manifest(COCKROACHDB_PDB)
    assert pdb == object_from_manifest({**COCKROACHDB_PDB, "apiVersion": "policy/v1"})
    warning = record[0].message
    assert isinstance(warning, DeprecatedAPIVersionWarning)
    assert (warning.kind, warning.api_version, warning.current) == (
        "PodDisruptionBudget", "policy/v1beta1", "policy/v1")
    assert issubclass(DeprecatedAPIVersionWarning, SchedframeWarning)


def test_v1beta1_pdb_empty_selector_selects_nothing() -> None:
    """In policy/v1beta1 an empty selector selects no pods: it is read as policy/v1's missing one."""
    manifest = {**COCKROACHDB_PDB, "spec": {"selector": {}, "maxUnavailable": 1}}
    with pytest.warns(DeprecatedAPIVersionWarning):
        pdb = object_from_manifest(manifest)
    assert isinstance(pdb, PodDisruptionBudget)
    assert pdb.selector is None
    v1 = object_from_manifest({**manifest, "apiVersion": "policy/v1"})
    assert isinstance(v1, PodDisruptionBudget)
    assert v1.selector is not None


@pytest.mark.parametrize(("manifest", "old", "current"), [
    ({"kind": "CronJob", "metadata": {"name": "c", "namespace": "default"},
      "spec": {"schedule": "* * * * *",
               "jobTemplate": {"spec": {"template": {"spec": {"containers": [{"name": "c",
                                                                                "image": "x"}]}}}}}},
     "batch/v1beta1", "batch/v1"),
    ({"kind": "PriorityClass", "metadata": {"name": "high"}, "value": 1000},
     "scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1"),
    ({"kind": "StorageClass", "metadata": {"name": "sc"}, "provisioner": "p"},
     "storage.k8s.io/v1beta1", "storage.k8s.io/v1"),
    ({"kind": "CSINode", "metadata": {"name": "n"}, "spec": {"drivers": []}},
     "storage.k8s.io/v1beta1", "storage.k8s.io/v1"),
    ({"kind": "CSIDriver", "metadata": {"name": "d"}}, "storage.k8s.io/v1beta1", "storage.k8s.io/v1"),
], ids=lambda v: v["kind"] if isinstance(v, dict) else v)
def test_old_versions_with_the_same_fields(manifest: dict[str, Any], old: str, current: str) -> None:
    """batch/v1beta1 CronJob and the v1beta1 scheduling and storage kinds are read as the current
    version, with a warning."""
    with pytest.warns(DeprecatedAPIVersionWarning, match=f"read as {current}"):
        got = object_from_manifest({**manifest, "apiVersion": old})
    assert got == object_from_manifest({**manifest, "apiVersion": current})


def test_other_old_versions_are_still_refused() -> None:
    """Versions whose fields differ (apps/v1beta1 Deployment) are refused as before."""
    with pytest.raises(ManifestError, match="apiVersion"):
        object_from_manifest({"apiVersion": "apps/v1beta1", "kind": "Deployment", "metadata": {"name": "d"}})


def test_load_manifests_reads_an_old_bundle() -> None:
    """A bundle with a policy/v1beta1 PDB loads, warning once per old object."""
    text = "\n---\n".join(json.dumps(m) for m in (COCKROACHDB_PDB, {**COCKROACHDB_PDB, "metadata": {
        "name": "other", "namespace": "default"}}))
    with pytest.warns(DeprecatedAPIVersionWarning) as record:
        objs = load_manifests(text)
    assert [o.name for o in objs] == ["cockroachdb-budget", "other"]  # type: ignore[union-attr]
    assert len([w for w in record if issubclass(w.category, DeprecatedAPIVersionWarning)]) == 2
