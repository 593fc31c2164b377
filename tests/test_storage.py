"""Storage objects (``schedframe.api.storage``) and pod volumes: manifests in and out, defaults,
validation errors with their field paths."""

from __future__ import annotations

from typing import Any

import pytest

import schedframe
from schedframe import ManifestError, Pod
from schedframe.api import (
    CSIDriver,
    CSINode,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    TopologySelectorRequirement,
    TopologySelectorTerm,
)

MANIFESTS = """
apiVersion: v1
kind: PersistentVolume
metadata:
  name: pv-1
  labels: {topology.kubernetes.io/zone: z1}
  annotations: {pv.kubernetes.io/provisioned-by: csi.example.com}
spec:
  capacity: {storage: 10Gi}
  accessModes: [ReadWriteOnce, ReadOnlyMany]
  storageClassName: fast
  volumeMode: Block
  persistentVolumeReclaimPolicy: Delete
  claimRef: {kind: PersistentVolumeClaim, namespace: ns, name: data, uid: u-1}
  csi: {driver: csi.example.com, volumeHandle: vol-1, fsType: ext4}
  nodeAffinity:
    required:
      nodeSelectorTerms:
      - matchExpressions: [{key: topology.kubernetes.io/zone, operator: In, values: [z1]}]
status: {phase: Bound}
---
apiVersion: v1
kind: PersistentVolume
metadata: {name: nfs}
spec:
  capacity: {storage: 1Ti}
  accessModes: [ReadWriteMany]
  nfs: {server: 10.0.0.1, path: /exports, readOnly: false}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: data, namespace: ns, uid: u-1, annotations: {volume.kubernetes.io/selected-node: n1}}
spec:
  accessModes: [ReadWriteOncePod]
  selector: {matchLabels: {tier: gold}}
  resources: {requests: {storage: 5Gi}}
  storageClassName: fast
  volumeName: pv-1
status: {phase: Bound}
---
apiVersion: storage.k8s.io/v1
kind: StorageClass
metadata: {name: fast, annotations: {storageclass.kubernetes.io/is-default-class: "true"}}
provisioner: csi.example.com
parameters: {type: ssd}
reclaimPolicy: Retain
volumeBindingMode: WaitForFirstConsumer
allowVolumeExpansion: true
allowedTopologies:
- matchLabelExpressions: [{key: topology.kubernetes.io/zone, values: [z1, z2]}]
---
apiVersion: storage.k8s.io/v1
kind: CSINode
metadata: {name: n1, annotations: {storage.alpha.kubernetes.io/migrated-plugins: "kubernetes.io/gce-pd"}}
spec:
  drivers:
  - {name: csi.example.com, nodeID: n1, topologyKeys: [topology.kubernetes.io/zone], allocatable: {count: 16}}
  - {name: other.example.com, nodeID: n1}
---
apiVersion: storage.k8s.io/v1
kind: CSIDriver
metadata: {name: csi.example.com}
spec: {attachRequired: false, storageCapacity: true, volumeLifecycleModes: [Persistent, Ephemeral]}
"""


def test_read_every_kind() -> None:
    """load_manifests reads the storage kinds with every field the plugins use."""
    pv, nfs, pvc, sc, csi_node, driver = schedframe.load_manifests(MANIFESTS)
    assert isinstance(pv, PersistentVolume)
    assert (pv.storage, pv.access_modes, pv.storage_class(), pv.volume_mode, pv.phase) == (
        10 * 2**30,
        ("ReadWriteOnce", "ReadOnlyMany"),
        "fast",
        "Block",
        "Bound",
    )
    assert pv.claim_ref is not None
    assert (pv.claim_ref.namespace, pv.claim_ref.name) == ("ns", "data")
    assert pv.csi is not None
    assert (pv.csi.driver, pv.csi.volume_handle) == ("csi.example.com", "vol-1")
    assert pv.node_affinity is not None
    assert pv.node_affinity.matches(
        "", {"topology.kubernetes.io/zone": "z1"}
    )
    assert isinstance(nfs, PersistentVolume)
    assert (nfs.other_source, nfs.phase, nfs.storage_class()) == ("nfs", "Available", "")
    assert isinstance(pvc, PersistentVolumeClaim)
    assert (pvc.key, pvc.uid, pvc.storage, pvc.volume_name, pvc.is_fully_bound()) == (
        "ns/data",
        "u-1",
        5 * 2**30,
        "pv-1",
        False,
    )
    assert isinstance(sc, StorageClass)
    assert sc.volume_binding_mode == "WaitForFirstConsumer"
    assert sc.allowed_topologies == (
        TopologySelectorTerm([TopologySelectorRequirement("topology.kubernetes.io/zone", ("z1", "z2"))]),
    )
    assert sc.matches_topology({"topology.kubernetes.io/zone": "z2"})
    assert not sc.matches_topology({"topology.kubernetes.io/zone": "z3"})
    assert isinstance(csi_node, CSINode)
    assert [d.allocatable_count for d in csi_node.drivers] == [16, None]
    assert csi_node.migrated_plugins() == {"kubernetes.io/gce-pd"}
    assert isinstance(driver, CSIDriver)
    assert (driver.attach_required, driver.storage_capacity) == (False, True)


def test_round_trip() -> None:
    """X.from_manifest(x.to_manifest()) == x for every storage object, and through
    object_to_manifest."""
    for obj in schedframe.load_manifests(MANIFESTS):
        assert type(obj).from_manifest(obj.to_manifest()) == obj
        assert schedframe.object_from_manifest(schedframe.object_to_manifest(obj)) == obj


def test_defaults() -> None:
    """The API server's defaults, and the controllers' stand-ins."""
    sc = StorageClass.from_manifest(
        {
            "apiVersion": "storage.k8s.io/v1",
            "kind": "StorageClass",
            "metadata": {"name": "s"},
            "provisioner": "p",
        }
    )
    assert (sc.volume_binding_mode, sc.reclaim_policy) == ("Immediate", "Delete")
    pvc = PersistentVolumeClaim.from_manifest({"metadata": {"name": "c"}})
    assert (pvc.namespace, pvc.phase, pvc.storage_class_name, pvc.storage_class()) == (
        "default",
        "Pending",
        None,
        "",
    )
    assert PersistentVolume.from_manifest({"metadata": {"name": "v"}}).phase == "Available"
    assert CSIDriver.from_manifest({"metadata": {"name": "d"}}).attach_required is True
    beta = PersistentVolumeClaim(
        name="c", storage_class_name="x", annotations={"volume.beta.kubernetes.io/storage-class": "y"}
    )
    assert beta.storage_class() == "y"


POD = {
    "metadata": {"name": "p"},
    "spec": {
        "containers": [{"name": "c"}],
        "volumes": [
            {"name": "data", "persistentVolumeClaim": {"claimName": "data", "readOnly": True}},
            {
                "name": "scratch",
                "ephemeral": {
                    "volumeClaimTemplate": {
                        "spec": {
                            "accessModes": ["ReadWriteOnce"],
                            "resources": {"requests": {"storage": "1Gi"}},
                        }
                    }
                },
            },
            {"name": "inline", "csi": {"driver": "d", "volumeAttributes": {"a": "b"}}},
            {"name": "gce", "gcePersistentDisk": {"pdName": "pd", "readOnly": True}},
            {"name": "ebs", "awsElasticBlockStore": {"volumeID": "vol"}},
            {"name": "rbd", "rbd": {"monitors": ["m1", "m2"], "image": "img"}},
            {"name": "iscsi", "iscsi": {"targetPortal": "1.2.3.4:3260", "iqn": "iqn.x", "lun": 1}},
            {"name": "host", "hostPath": {"path": "/var", "type": "Directory"}},
            {"name": "empty", "emptyDir": {}},
        ],
    },
}


def test_pod_volumes() -> None:
    """A pod's volumes are read, typed where the plugins need them, and written back equal."""
    pod = Pod.from_manifest(POD)
    names = [v.name for v in pod.volumes]
    assert names == ["data", "scratch", "inline", "gce", "ebs", "rbd", "iscsi", "host", "empty"]
    data, scratch, inline, gce, ebs, rbd, iscsi, host, empty = pod.volumes
    assert data.persistent_volume_claim is not None
    assert data.persistent_volume_claim.read_only
    assert (data.claim_name("p"), scratch.claim_name("p"), host.claim_name("p")) == (
        "data",
        "p-scratch",
        None,
    )
    assert inline.csi is not None
    assert inline.csi.volume_attributes == {"a": "b"}
    assert gce.gce_persistent_disk is not None
    assert gce.gce_persistent_disk.read_only
    assert ebs.aws_elastic_block_store is not None
    assert ebs.aws_elastic_block_store.volume_id == "vol"
    assert rbd.rbd is not None
    assert (rbd.rbd.pool, rbd.rbd.monitors) == ("rbd", ("m1", "m2"))
    assert iscsi.iscsi is not None
    assert iscsi.iscsi.lun == 1
    assert (host.other_source, dict(host.other_spec)) == ("hostPath", {"path": "/var", "type": "Directory"})
    assert empty.other_source == "emptyDir"
    again = Pod.from_manifest(pod.to_manifest())
    assert again == pod
    assert hash(again) == hash(pod)
    rbd_out = {"monitors": ["m1", "m2"], "image": "img", "pool": "rbd", "user": "admin"}
    iscsi_out = {"targetPortal": "1.2.3.4:3260", "iqn": "iqn.x", "lun": 1}
    assert pod.to_manifest()["spec"]["volumes"] == [
        *POD["spec"]["volumes"][:5],
        {"name": "rbd", "rbd": rbd_out},
        {"name": "iscsi", "iscsi": iscsi_out},
        *POD["spec"]["volumes"][7:],
    ]


@pytest.mark.parametrize(
    ("manifest", "path", "detail"),
    [
        pytest.param(
            {
                "metadata": {"name": "p"},
                "spec": {"volumes": [{"name": "v", "hostPath": {"path": "/"}, "emptyDir": {}}]},
            },
            "spec.volumes[0]",
            "may specify only one volume source",
            id="two sources",
        ),
        pytest.param(  # YAML's `0: ...` (found by tests/test_fuzz_manifests.py: a TypeError)
            {
                "metadata": {"name": "p"},
                "spec": {"volumes": [{"name": "v", "configMap": {"name": "c"}, 0: [1]}]},
            },
            "spec.volumes[0]",
            "keys must be strings, got 0",
            id="a key that is not a string",
        ),
        pytest.param(
            {"metadata": {"name": "p"}, "spec": {"volumes": [{"name": "v"}, {"name": "v"}]}},
            "spec.volumes[1].name",
            "Duplicate value",
            id="duplicate names",
        ),
        pytest.param(
            {"metadata": {"name": "p"}, "spec": {"volumes": [{"persistentVolumeClaim": {"claimName": "c"}}]}},
            "spec.volumes[0].name",
            "required",
            id="no name",
        ),
        pytest.param(
            {"metadata": {"name": "p"}, "spec": {"volumes": [{"name": "v", "persistentVolumeClaim": {}}]}},
            "spec.volumes[0].persistentVolumeClaim.claimName",
            "required",
            id="no claim name",
        ),
        pytest.param(
            {"metadata": {"name": "p"}, "spec": {"volumes": [{"name": "v", "rbd": {"image": "i"}}]}},
            "spec.volumes[0].rbd.monitors",
            "required",
            id="rbd without monitors",
        ),
    ],
)
def test_pod_volume_errors(manifest: dict[str, Any], path: str, detail: str) -> None:
    """Malformed volumes raise ManifestError naming the field path."""
    with pytest.raises(ManifestError, match=detail) as info:
        Pod.from_manifest(manifest)
    assert info.value.path == path


@pytest.mark.parametrize(
    ("kind", "manifest", "path"),
    [
        pytest.param(
            PersistentVolumeClaim,
            {"metadata": {"name": "c"}, "spec": {"accessModes": ["ReadWriteSome"]}},
            "spec.accessModes[0]",
            id="access mode",
        ),
        pytest.param(
            PersistentVolumeClaim,
            {"metadata": {"name": "c"}, "spec": {"resources": {"requests": {"storage": "lots"}}}},
            "spec.resources.requests.storage",
            id="quantity",
        ),
        pytest.param(
            PersistentVolume,
            {"metadata": {"name": "v"}, "status": {"phase": "Gone"}},
            "status.phase",
            id="phase",
        ),
        pytest.param(
            PersistentVolume,
            {"metadata": {"name": "v"}, "spec": {"csi": {"driver": "d"}}},
            "spec.csi.volumeHandle",
            id="csi without handle",
        ),
        pytest.param(
            PersistentVolume,
            {"metadata": {"name": "v"}, "spec": {"nfs": {}, "hostPath": {}}},
            "spec",
            id="two sources",
        ),
        pytest.param(
            StorageClass,
            {"apiVersion": "storage.k8s.io/v1", "kind": "StorageClass", "metadata": {"name": "s"}},
            "provisioner",
            id="no provisioner",
        ),
        pytest.param(
            StorageClass,
            {"metadata": {"name": "s"}, "provisioner": "p", "volumeBindingMode": "Later"},
            "volumeBindingMode",
            id="binding mode",
        ),
        pytest.param(
            CSINode,
            {"metadata": {"name": "n"}, "spec": {"drivers": [{"name": "d", "allocatable": {"count": -1}}]}},
            "spec.drivers[0].allocatable.count",
            id="negative count",
        ),
        pytest.param(
            CSIDriver, {"apiVersion": "v1", "metadata": {"name": "d"}}, "apiVersion", id="api version"
        ),
    ],
)
def test_storage_errors(kind: Any, manifest: dict[str, Any], path: str) -> None:
    """Malformed storage objects raise ManifestError naming the field path."""
    with pytest.raises(ManifestError) as info:
        kind.from_manifest(manifest)
    assert info.value.path == path


def test_load_manifests_error_locates_the_document() -> None:
    """Errors inside a list of documents carry the document path and the object."""
    with pytest.raises(ManifestError) as info:
        schedframe.load_manifests(
            "apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: c}\nspec: {accessModes: [Nope]}\n"
        )
    assert info.value.path == "documents[0].spec.accessModes[0]"
    assert "PersistentVolumeClaim default/c" in str(info.value)
