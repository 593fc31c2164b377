"""NodeVolumeLimits: cases ported from upstream ``nodevolumelimits/csi_test.go`` (TestCSILimits
and its queueing-hint tests).

VolumeAttachment counting is tested in tests/test_releases_1_36.py. Not ported:
upstream's fake-lister NotFound wording (``persistentvolumeclaims "x"``; schedframe gives the
informer listers' ``persistentvolumeclaim "x"``).
"""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from schedframe import CycleState, Node, NodeInfo, Pod, Status
from schedframe.api import (
    AWSElasticBlockStoreVolumeSource,
    CSINode,
    CSINodeDriver,
    CSIPersistentVolumeSource,
    PersistentVolume,
    PersistentVolumeClaim,
    StorageClass,
    Volume,
)
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.plugins import node_volume_limits
from schedframe.plugins.node_volume_limits import (
    ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED,
    NodeVolumeLimits,
    csi_attach_limit_key,
)
from schedframe.testing import PluginHarness

from ._volume_fixtures import ephemeral_volume, owned_by, pod_with, pod_with_pvcs, pvc_volume

EBS = "ebs.csi.aws.com"
GCE = "pd.csi.storage.gke.io"
IN_TREE_EBS = "kubernetes.io/aws-ebs"
HOSTPATH = "kubernetes.io/hostpath"
SC = "csi-sc"
EXCEEDED = Status.unschedulable(ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED)


def storage_objects(drivers: Sequence[str]) -> list[object]:
    """Upstream ``getFakeCSIPVLister`` / ``getFakeCSIPVCLister`` / ``getFakeCSIStorageClassLister``."""
    out: list[object] = []
    for driver in drivers:
        for j in range(4):
            name = f"csi-{driver}-{j}"
            if driver == IN_TREE_EBS:
                pv = PersistentVolume(
                    name=name, aws_elastic_block_store=AWSElasticBlockStoreVolumeSource(volume_id=name)
                )
            elif driver == HOSTPATH:
                pv = PersistentVolume(name=name, other_source="hostPath", other_spec={"path": "/tmp"})
            else:
                pv = PersistentVolume(
                    name=name, csi=CSIPersistentVolumeSource(driver=driver, volume_handle=name)
                )
            out += [pv, PersistentVolumeClaim(name=name, volume_name=name)]
    out += [
        PersistentVolumeClaim(name="csi-4", storage_class_name=SC),
        PersistentVolumeClaim(name="csi-5"),
        PersistentVolumeClaim(name="csi-6", volume_name="missing", storage_class_name=SC),
        StorageClass(name=SC, provisioner=drivers[0]),
    ]
    return out


def csi_node(limit_source: str, max_vols: int, drivers: Sequence[str]) -> CSINode | None:
    """Upstream ``getNodeWithPodAndVolumeLimits`` (CSINode sources), with in-tree EBS migrated."""
    ann = {"storage.alpha.kubernetes.io/migrated-plugins": IN_TREE_EBS}
    if limit_source == "csinode":
        return CSINode(
            "node-for-max-pd-test-1",
            ann,
            [CSINodeDriver(d, node_id="node-1", allocatable_count=max_vols) for d in drivers],
        )
    if limit_source == "csinode-with-no-limit":
        return CSINode("node-for-max-pd-test-1", ann, [CSINodeDriver(d, node_id="node-1") for d in drivers])
    return None


running_pod = pod_with_pvcs("running", [f"csi-{EBS}-3"])
pending_volume_pod = pod_with_pvcs("pending", ["csi-4"])
unbound_pvc_pod2 = pod_with_pvcs("pending2", ["csi-4"])
missing_pv_pod = pod_with_pvcs("missing", ["csi-6"])
no_sc_pvc_pod = pod_with_pvcs("nosc", ["csi-5"])
gce_two_vol_pod = pod_with_pvcs("gce2", [f"csi-{GCE}-1", f"csi-{GCE}-2"])
in_tree_one_vol_pod = pod_with_pvcs("intree1", [f"csi-{IN_TREE_EBS}-0"])
in_tree_two_vol_pod = pod_with_pvcs("intree2", [f"csi-{IN_TREE_EBS}-1", f"csi-{IN_TREE_EBS}-2"])
csi_ebs_one_vol_pod = pod_with_pvcs("ebs1", [f"csi-{EBS}-0"])
csi_ebs_two_vol_pod = pod_with_pvcs("ebs2", [f"csi-{EBS}-1", f"csi-{EBS}-2"])
in_tree_non_migratable_pod = pod_with_pvcs("hostpath", [f"csi-{HOSTPATH}-0"])
ephemeral_volume_pod = Pod(name="abc", namespace="test", uid="12345", volumes=[ephemeral_volume("xyz")])
ephemeral_claim = PersistentVolumeClaim(
    name="abc-xyz", namespace="test", storage_class_name=SC, owner_references=owned_by(ephemeral_volume_pod)
)
conflicting_claim = PersistentVolumeClaim(name="abc-xyz", namespace="test", storage_class_name=SC)
ephemeral_two_volume_pod = Pod(
    name="abc", namespace="test", uid="12345II", volumes=[ephemeral_volume("x"), ephemeral_volume("y")]
)
ephemeral_claim_x = PersistentVolumeClaim(
    name="abc-x", namespace="test", storage_class_name=SC, owner_references=owned_by(ephemeral_two_volume_pod)
)
ephemeral_claim_y = PersistentVolumeClaim(
    name="abc-y", namespace="test", storage_class_name=SC, owner_references=owned_by(ephemeral_two_volume_pod)
)


def inline_ebs(volume_id: str) -> Volume:
    return Volume(name="ebs", aws_elastic_block_store=AWSElasticBlockStoreVolumeSource(volume_id=volume_id))


CONFIG_MAP = Volume(name="cm", other_source="configMap", other_spec={"name": "x"})
SECRET = Volume(name="secret", other_source="secret", other_spec={"secretName": "x"})
in_tree_inline_vol_pod = pod_with("inline", inline_ebs("aws-inline1"))
in_tree_inline_same_id_pod = pod_with("inline-same", inline_ebs(f"csi-{EBS}-1"))
only_configmap_and_secret_pod = pod_with("cm", CONFIG_MAP, SECRET)
pvc_pod_with_configmap_and_secret = pod_with("pvc-cm", CONFIG_MAP, SECRET, pvc_volume(f"csi-{EBS}-0"))
ephemeral_pod_with_configmap_and_secret = Pod(
    name="abc", namespace="test", volumes=[CONFIG_MAP, SECRET, ephemeral_volume("xyz")]
)
inline_migratable_pod_with_configmap_and_secret = pod_with(
    "inline-cm", CONFIG_MAP, SECRET, inline_ebs("aws-inline1")
)
MISSING_EPHEMERAL = Status.unresolvable(
    'looking up PVC test/abc-xyz: persistentvolumeclaim "abc-xyz" not found'
)


CASES = [
    pytest.param(
        csi_ebs_one_vol_pod,
        [running_pod, csi_ebs_two_vol_pod],
        (),
        4,
        [EBS],
        "csinode",
        None,
        id="fits when node volume limit >= new pods CSI volume",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [running_pod, csi_ebs_two_vol_pod],
        (),
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        id="doesn't when node volume limit <= pods CSI volume",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [running_pod, csi_ebs_two_vol_pod],
        (),
        2,
        [EBS],
        "csinode-with-no-limit",
        None,
        id="should when driver does not support volume limits",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [pending_volume_pod, csi_ebs_two_vol_pod],
        (),
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        id="count pending PVCs towards volume limit <= pods CSI volume",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [pending_volume_pod, unbound_pvc_pod2, csi_ebs_two_vol_pod],
        (),
        4,
        [EBS],
        "csinode",
        None,
        id="count multiple pending pvcs towards volume limit >= pods CSI volume",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [missing_pv_pod, csi_ebs_two_vol_pod],
        (),
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        id="should count PVCs with invalid PV name but valid SC",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [running_pod, no_sc_pvc_pod],
        (),
        2,
        [EBS],
        "csinode",
        None,
        id="don't count pvcs with missing SC towards volume limit",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [gce_two_vol_pod, csi_ebs_two_vol_pod],
        (),
        2,
        [EBS, GCE],
        "csinode",
        EXCEEDED,
        id="count pvcs with the same type towards volume limit",
    ),
    pytest.param(
        gce_two_vol_pod,
        [csi_ebs_two_vol_pod, running_pod],
        (),
        2,
        [EBS, GCE],
        "csinode",
        None,
        id="don't count pvcs with different type towards volume limit",
    ),
    pytest.param(
        in_tree_one_vol_pod,
        [in_tree_two_vol_pod],
        (),
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        id="should count in-tree volumes if migration is enabled",
    ),
    pytest.param(
        in_tree_inline_vol_pod, [in_tree_two_vol_pod], (), 0, [IN_TREE_EBS, EBS], "", None, id="nil csi node"
    ),
    pytest.param(
        pending_volume_pod,
        [in_tree_two_vol_pod],
        (),
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        id="should count unbound in-tree volumes if migration is enabled",
    ),
    pytest.param(
        in_tree_one_vol_pod,
        [in_tree_two_vol_pod],
        (),
        2,
        [IN_TREE_EBS, EBS],
        "csinode-with-no-limit",
        None,
        id="should not limit pod if volume used does not report limits",
    ),
    pytest.param(
        in_tree_non_migratable_pod,
        [csi_ebs_two_vol_pod],
        (),
        2,
        [HOSTPATH, EBS],
        "csinode",
        None,
        id="should not count non-migratable in-tree volumes",
    ),
    pytest.param(
        in_tree_inline_vol_pod,
        [in_tree_two_vol_pod],
        (),
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        id="should count in-tree inline volumes if migration is enabled",
    ),
    pytest.param(
        in_tree_one_vol_pod,
        [csi_ebs_two_vol_pod],
        (),
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        id="should count in-tree and csi volumes if migration is enabled (when scheduling in-tree volumes)",
    ),
    pytest.param(
        in_tree_inline_vol_pod,
        [csi_ebs_two_vol_pod, in_tree_one_vol_pod],
        (),
        3,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        id="should count in-tree, inline and csi volumes if migration is enabled",
    ),
    pytest.param(
        in_tree_inline_same_id_pod,
        [csi_ebs_two_vol_pod, in_tree_one_vol_pod],
        (),
        3,
        [IN_TREE_EBS, EBS],
        "csinode",
        None,
        id="should not count in-tree, inline and csi volumes if migration is enabled (same volume)",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [in_tree_two_vol_pod],
        (),
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        id="should count in-tree and csi volumes if migration is enabled (when scheduling csi volumes)",
    ),
    pytest.param(
        ephemeral_volume_pod,
        [],
        (),
        0,
        [EBS],
        "csinode-with-no-limit",
        MISSING_EPHEMERAL,
        id="ephemeral volume missing",
    ),
    pytest.param(
        ephemeral_volume_pod,
        [],
        (conflicting_claim,),
        0,
        [EBS],
        "csinode-with-no-limit",
        Status.from_error(ValueError("PVC test/abc-xyz was not created for pod test/abc (pod is not owner)")),
        id="ephemeral volume not owned",
    ),
    pytest.param(
        ephemeral_volume_pod,
        [],
        (ephemeral_claim,),
        0,
        [EBS],
        "csinode-with-no-limit",
        None,
        id="ephemeral volume unbound",
    ),
    pytest.param(
        ephemeral_volume_pod,
        [running_pod, csi_ebs_two_vol_pod],
        (ephemeral_claim,),
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        id="ephemeral doesn't when node volume limit <= pods CSI volume",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [running_pod, ephemeral_two_volume_pod],
        (ephemeral_claim_x, ephemeral_claim_y),
        2,
        [EBS],
        "csinode",
        EXCEEDED,
        id="ephemeral doesn't when node volume limit <= pods ephemeral CSI volume",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [running_pod, ephemeral_volume_pod, csi_ebs_two_vol_pod],
        (ephemeral_claim,),
        3,
        [EBS],
        "csinode",
        EXCEEDED,
        id="persistent doesn't when node volume limit <= pods ephemeral CSI volume + persistent volume",
    ),
    pytest.param(
        csi_ebs_one_vol_pod,
        [running_pod, ephemeral_volume_pod, csi_ebs_two_vol_pod],
        (ephemeral_claim,),
        5,
        [EBS],
        "csinode",
        None,
        id="persistent okay when node volume limit > pods ephemeral CSI volume + persistent volume",
    ),
    pytest.param(
        pvc_pod_with_configmap_and_secret,
        [],
        (),
        2,
        [EBS],
        "csinode",
        None,
        id="don't skip Filter when the pod has pvcs",
    ),
    pytest.param(
        ephemeral_pod_with_configmap_and_secret,
        [],
        (),
        0,
        [EBS],
        "csinode-with-no-limit",
        MISSING_EPHEMERAL,
        id="don't skip Filter when the pod has ephemeral volumes",
    ),
    pytest.param(
        inline_migratable_pod_with_configmap_and_secret,
        [in_tree_two_vol_pod],
        (),
        2,
        [IN_TREE_EBS, EBS],
        "csinode",
        EXCEEDED,
        id="don't skip Filter when the pod has inline migratable volumes",
    ),
]


@pytest.mark.parametrize(("pod", "existing", "extra", "max_vols", "drivers", "limit_source", "want"), CASES)
def test_csi_limits(
    pod: Pod,
    existing: list[Pod],
    extra: Sequence[PersistentVolumeClaim],
    max_vols: int,
    drivers: list[str],
    limit_source: str,
    want: Status | None,
) -> None:
    """Filter statuses, as upstream TestCSILimits (PreFilter passes for every row)."""
    objects = [*storage_objects(drivers), *extra]
    node_csi = csi_node(limit_source, max_vols, drivers)
    if node_csi is not None:
        objects.append(node_csi)
    h = PluginHarness("NodeVolumeLimits", objects=objects)
    plugin = NodeVolumeLimits(h.framework)
    state = CycleState()
    assert plugin.pre_filter(state, pod, []) == (None, None)
    ni = NodeInfo(Node("node-for-max-pd-test-1"), existing)
    got = plugin.filter(state, pod, ni)
    if want is not None and want.error is not None:
        assert got is not None
        assert (got.code, got.message) == (want.code, want.message)
    else:
        assert got == want


def test_pre_filter_skips_pods_without_countable_volumes() -> None:
    """A pod with only secrets and config maps (or none) is skipped (upstream "skip Filter when
    the pod only uses secrets and configmaps")."""
    plugin = NodeVolumeLimits()
    assert plugin.pre_filter(CycleState(), only_configmap_and_secret_pod, []) == (None, Status.skip())
    assert plugin.pre_filter(CycleState(), Pod("p"), []) == (None, Status.skip())


def test_node_allocatable_limits() -> None:
    """Without a CSINode the node's ``attachable-volumes-csi-<driver>`` allocatable is the limit."""
    node = Node("n", allocatable={csi_attach_limit_key(EBS): "2"})
    h = PluginHarness(
        "NodeVolumeLimits",
        nodes=[node],
        pods=[pod_with_pvcs("e", [f"csi-{EBS}-1"], node="n")],
        objects=storage_objects([EBS]),
    )
    assert h.filter(pod_with_pvcs("p", [f"csi-{EBS}-0"])) == {"n": Status.OK}
    assert h.filter(pod_with_pvcs("p", [f"csi-{EBS}-0", f"csi-{EBS}-2"])) == {"n": EXCEEDED}


def test_attach_limit_key() -> None:
    """Long driver names are shortened with a hash, as upstream ``GetCSIAttachLimitKey``."""
    assert csi_attach_limit_key(EBS) == "attachable-volumes-csi-ebs.csi.aws.com"
    long = "a" * 40 + ".example.com"
    key = csi_attach_limit_key(long)
    assert key.startswith("attachable-volumes-csi-" + "a" * 23)
    assert len(key) == 23 + 23 + 16


@pytest.mark.parametrize(
    ("deleted", "want"),
    [
        pytest.param(
            pod_with_pvcs("d", ["placeholder"], node="n"),
            QueueingHint.QUEUE,
            id="return a Queue when a deleted pod has a PVC",
        ),
        pytest.param(
            pod_with("d", inline_ebs(""), node="n"),
            QueueingHint.QUEUE,
            id="return a Queue when a deleted pod has a inline migratable volume",
        ),
        pytest.param(
            Pod("d", node_name="n"),
            QueueingHint.QUEUE_SKIP,
            id="return a QueueSkip when a deleted pod doesn't have any volume",
        ),
        pytest.param(
            pod_with_pvcs("d", [f"csi-{EBS}-0"]),
            QueueingHint.QUEUE_SKIP,
            id="return a QueueSkip when a deleted pod is not scheduled.",
        ),
    ],
)
def test_pod_deleted_hint(deleted: Pod, want: QueueingHint) -> None:
    """Upstream TestCSILimitsQHint."""
    pod = pod_with_pvcs("p", [f"csi-{EBS}-2"])
    assert NodeVolumeLimits().is_schedulable_after_pod_deleted(pod, deleted, None) is want


@pytest.mark.parametrize(
    ("pod", "added", "want"),
    [
        pytest.param(
            Pod("p", namespace="ns1"),
            PersistentVolumeClaim(name="x", namespace="ns2"),
            QueueingHint.QUEUE_SKIP,
            id="a pod isn't in the same namespace as an added PVC",
        ),
        pytest.param(
            pod_with_pvcs("p", ["pvc1"], namespace="ns1"),
            PersistentVolumeClaim(name="pvc1", namespace="ns1"),
            QueueingHint.QUEUE,
            id="a pod is in the same namespace as an added PVC",
        ),
        pytest.param(
            Pod("pod1", namespace="ns1", volumes=[ephemeral_volume("ephemeral")]),
            PersistentVolumeClaim(name="pod1-ephemeral", namespace="ns1"),
            QueueingHint.QUEUE,
            id="a pod has an ephemeral volume related to an added PVC",
        ),
        pytest.param(
            pod_with_pvcs("p", ["pvc1"], namespace="ns1"),
            PersistentVolumeClaim(name="pvc2", namespace="ns1"),
            QueueingHint.QUEUE_SKIP,
            id="a pod doesn't have the same PVC as an added PVC",
        ),
        pytest.param(
            Pod("p", namespace="ns1"),
            PersistentVolumeClaim(name="pvc2", namespace="ns1"),
            QueueingHint.QUEUE_SKIP,
            id="a pod doesn't have any PVC attached",
        ),
    ],
)
def test_pvc_added_hint(pod: Pod, added: PersistentVolumeClaim, want: QueueingHint) -> None:
    """Upstream TestCSILimitsAddedPVCQHint."""
    assert NodeVolumeLimits().is_schedulable_after_pvc_added(pod, None, added) is want


def test_events() -> None:
    """CSINode added (no hint), pod deleted, PVC added and VolumeAttachment deleted (hinted)."""
    plugin = node_volume_limits.new(None, None)  # type: ignore[arg-type]
    assert [(e.event.resource, e.event.action, e.hint is not None) for e in plugin.events_to_register()] == [
        (EventResource.CSI_NODE, ActionType.ADD, False),
        (EventResource.POD, ActionType.DELETE, True),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, True),
        (EventResource.VOLUME_ATTACHMENT, ActionType.DELETE, True),
    ]
