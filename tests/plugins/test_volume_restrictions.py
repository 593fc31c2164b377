"""VolumeRestrictions: cases ported from upstream ``volumerestrictions/volume_restrictions_test.go``."""

from __future__ import annotations

import pytest

from schedframe import CycleState, Node, NodeInfo, Pod, Status
from schedframe.api import (
    AWSElasticBlockStoreVolumeSource,
    GCEPersistentDiskVolumeSource,
    ISCSIVolumeSource,
    PersistentVolumeClaim,
    RBDVolumeSource,
    Volume,
)
from schedframe.cache.nodeinfo import PodInfo
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.plugins import volume_restrictions
from schedframe.plugins.volume_restrictions import (
    ERR_REASON_DISK_CONFLICT,
    ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT,
    VolumeRestrictions,
)
from schedframe.testing import PluginHarness

from ._volume_fixtures import pod_with, pod_with_pvcs

DISK_CONFLICT = Status.unschedulable(ERR_REASON_DISK_CONFLICT)
RWOP_CONFLICT = Status.unschedulable(ERR_REASON_READ_WRITE_ONCE_POD_CONFLICT)


def gce(pd: str, read_only: bool = False) -> Volume:
    return Volume(
        name="v", gce_persistent_disk=GCEPersistentDiskVolumeSource(pd_name=pd, read_only=read_only)
    )


def ebs(volume_id: str) -> Volume:
    return Volume(name="v", aws_elastic_block_store=AWSElasticBlockStoreVolumeSource(volume_id=volume_id))


def rbd(*monitors: str, read_only: bool = False) -> Volume:
    return Volume(
        name="v",
        rbd=RBDVolumeSource(monitors=monitors, pool="foo", image="bar", fs_type="ext4", read_only=read_only),
    )


def iscsi(iqn: str, read_only: bool = False) -> Volume:
    return Volume(
        name="v",
        iscsi=ISCSIVolumeSource(target_portal="127.0.0.1:3260", iqn=iqn, fs_type="ext4", read_only=read_only),
    )


def disk_cases(vol: Volume, other: Volume) -> list[object]:
    """Upstream's four rows of each disk test (nothing / one state / same / different)."""
    return [
        pytest.param(Pod("p"), [], Status.skip(), None, id="nothing"),
        pytest.param(Pod("p"), [pod_with("e", vol)], Status.skip(), None, id="one state"),
        pytest.param(pod_with("p", vol), [pod_with("e", vol)], None, DISK_CONFLICT, id="same state"),
        pytest.param(pod_with("p", other), [pod_with("e", vol)], None, None, id="different state"),
    ]


def run(pod: Pod, existing: list[Pod], objects: list[object] = ()) -> tuple[Status | None, Status | None]:
    """PreFilter, then (unless it did not succeed) Filter on a node holding *existing*."""
    plugin = VolumeRestrictions(PluginHarness("VolumeRestrictions", objects=objects).framework)
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, [])
    if pre is not None:
        return pre, None
    return pre, plugin.filter(state, pod, NodeInfo(Node("n"), existing))


@pytest.mark.parametrize(
    ("pod", "existing", "want_pre", "want"),
    [
        *disk_cases(gce("foo"), gce("bar")),
        pytest.param(
            pod_with("p", Volume(name="volume with no restriction")),
            [],
            Status.skip(),
            None,
            id="pod with a volume that doesn't have restrictions",
        ),
    ],
)
def test_gce_disk_conflicts(
    pod: Pod, existing: list[Pod], want_pre: Status | None, want: Status | None
) -> None:
    """GCE PDs conflict unless both mounts are read-only (upstream TestGCEDiskConflicts)."""
    assert run(pod, existing) == (want_pre, want)


@pytest.mark.parametrize(("pod", "existing", "want_pre", "want"), disk_cases(ebs("foo"), ebs("bar")))
def test_aws_disk_conflicts(
    pod: Pod, existing: list[Pod], want_pre: Status | None, want: Status | None
) -> None:
    """The same EBS volume always conflicts (upstream TestAWSDiskConflicts)."""
    assert run(pod, existing) == (want_pre, want)


@pytest.mark.parametrize(("pod", "existing", "want_pre", "want"), disk_cases(rbd("a", "b"), rbd("c", "d")))
def test_rbd_disk_conflicts(
    pod: Pod, existing: list[Pod], want_pre: Status | None, want: Status | None
) -> None:
    """RBD images conflict on overlapping monitors, same pool and image (upstream TestRBDDiskConflicts)."""
    assert run(pod, existing) == (want_pre, want)


@pytest.mark.parametrize(
    ("pod", "existing", "want_pre", "want"),
    disk_cases(iscsi("iqn.2016-12.server:storage.target01"), iscsi("iqn.2017-12.server:storage.target01")),
)
def test_iscsi_disk_conflicts(
    pod: Pod, existing: list[Pod], want_pre: Status | None, want: Status | None
) -> None:
    """iSCSI disks conflict on the same IQN (upstream TestISCSIDiskConflicts)."""
    assert run(pod, existing) == (want_pre, want)


@pytest.mark.parametrize(
    ("vol", "existing", "conflict"),
    [
        pytest.param(gce("foo", True), gce("foo", True), False, id="gce both read-only"),
        pytest.param(gce("foo", True), gce("foo"), True, id="gce one writer"),
        pytest.param(iscsi("q", True), iscsi("q", True), False, id="iscsi both read-only"),
        pytest.param(
            rbd("a", "b", read_only=True), rbd("b", "c", read_only=True), False, id="rbd both read-only"
        ),
        pytest.param(rbd("a", "b"), rbd("b", "c", read_only=True), True, id="rbd overlapping monitor"),
        pytest.param(ebs("x"), gce("x"), False, id="different kinds"),
    ],
)
def test_read_only_mounts(vol: Volume, existing: Volume, conflict: bool) -> None:
    """Read-only mounts of the same disk share it, except for EBS."""
    assert volume_restrictions.is_volume_conflict(vol, pod_with("e", existing)) is conflict


RWOP = ("ReadWriteOncePod",)
RWOP_1 = PersistentVolumeClaim(name="claim-with-rwop-1", access_modes=RWOP)
RWOP_2 = PersistentVolumeClaim(name="claim-with-rwop-2", access_modes=RWOP)
RWX = PersistentVolumeClaim(name="claim-with-rwx", access_modes=("ReadWriteMany",))
POD_WITH_ONE_PVC = pod_with_pvcs("pod-with-one-pvc", ["claim-with-rwop-1"], node="node-1")
POD_WITH_TWO_PVCS = pod_with_pvcs(
    "pod-with-two-pvcs", ["claim-with-rwop-1", "claim-with-rwop-2"], node="node-1"
)
POD_WITH_ONE_CONFLICT = pod_with_pvcs("pod-with-one-conflict", ["claim-with-rwop-1"], node="node-1")
POD_WITH_TWO_CONFLICTS = pod_with_pvcs(
    "pod-with-two-conflicts", ["claim-with-rwop-1", "claim-with-rwop-2"], node="node-1"
)
POD_WITH_RWX = pod_with_pvcs("pod-with-rwx", ["claim-with-rwx"], node="node-1")


@pytest.mark.parametrize(
    ("pod", "existing", "pvcs", "want_pre", "want"),
    [
        pytest.param(Pod("p"), [], [], Status.skip(), None, id="nothing"),
        pytest.param(
            POD_WITH_ONE_PVC,
            [],
            [],
            Status.unresolvable('persistentvolumeclaim "claim-with-rwop-1" not found'),
            None,
            id="failed to get PVC",
        ),
        pytest.param(
            POD_WITH_ONE_PVC, [POD_WITH_RWX], [RWOP_1, RWX], Status.skip(), None, id="no access mode conflict"
        ),
        pytest.param(
            POD_WITH_ONE_CONFLICT,
            [POD_WITH_ONE_PVC, POD_WITH_RWX],
            [RWOP_1, RWX],
            None,
            RWOP_CONFLICT,
            id="access mode conflict, unschedulable",
        ),
        pytest.param(
            POD_WITH_TWO_CONFLICTS,
            [POD_WITH_TWO_PVCS, POD_WITH_RWX],
            [RWOP_1, RWOP_2, RWX],
            None,
            RWOP_CONFLICT,
            id="two conflicts, unschedulable",
        ),
    ],
)
def test_access_mode_conflicts(
    pod: Pod,
    existing: list[Pod],
    pvcs: list[PersistentVolumeClaim],
    want_pre: Status | None,
    want: Status | None,
) -> None:
    """A ReadWriteOncePod claim used by a scheduled pod blocks every node (upstream
    TestAccessModeConflicts)."""
    h = PluginHarness("VolumeRestrictions", nodes=[Node("node-1")], pods=existing, objects=pvcs)
    plugin = VolumeRestrictions(h.framework)
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, [])
    assert pre == want_pre
    if pre is None:
        assert plugin.filter(state, pod, NodeInfo(Node("node-1"), existing)) == want


def test_pre_filter_extensions_track_the_conflicts() -> None:
    """RemovePod of the pod holding the claim clears the conflict; AddPod brings it back."""
    h = PluginHarness("VolumeRestrictions", nodes=[Node("node-1")], pods=[POD_WITH_ONE_PVC], objects=[RWOP_1])
    plugin = VolumeRestrictions(h.framework)
    state = CycleState()
    assert plugin.pre_filter(state, POD_WITH_ONE_CONFLICT, []) == (None, None)
    ni = NodeInfo(Node("node-1"))
    ext = plugin.pre_filter_extensions()
    assert ext is plugin
    assert plugin.remove_pod(state, POD_WITH_ONE_CONFLICT, PodInfo.of(POD_WITH_ONE_PVC), ni) is None
    assert plugin.filter(state, POD_WITH_ONE_CONFLICT, ni) is None
    assert plugin.add_pod(state, POD_WITH_ONE_CONFLICT, PodInfo.of(POD_WITH_TWO_PVCS), ni) is None
    assert plugin.filter(state, POD_WITH_ONE_CONFLICT, ni) == RWOP_CONFLICT
    clone = state.clone()
    assert plugin.remove_pod(clone, POD_WITH_ONE_CONFLICT, PodInfo.of(POD_WITH_TWO_PVCS), ni) is None
    assert plugin.filter(state, POD_WITH_ONE_CONFLICT, ni) == RWOP_CONFLICT  # the clone is independent


def test_missing_state_is_an_error() -> None:
    """Filter and the extensions without PreFilter's state give ERROR."""
    plugin = VolumeRestrictions()
    ni = NodeInfo(Node("n"))
    for status in (
        plugin.filter(CycleState(), Pod("p"), ni),
        plugin.add_pod(CycleState(), Pod("p"), PodInfo.of(Pod("e")), ni),
        plugin.remove_pod(CycleState(), Pod("p"), PodInfo.of(Pod("e")), ni),
    ):
        assert status is not None
        assert status.code.name == "ERROR"


def test_through_the_scheduler_message() -> None:
    """Through the framework the node with the mounted disk is rejected with the reason."""
    h = PluginHarness(
        "VolumeRestrictions", nodes=[Node("a"), Node("b")], pods=[pod_with("e", gce("foo"), node="a")]
    )
    assert h.filter(pod_with("p", gce("foo"))) == {"a": DISK_CONFLICT, "b": Status.OK}


def test_events_and_hints() -> None:
    """Events as upstream (pod delete and PVC add hinted, node add not)."""
    plugin = volume_restrictions.new(None, None)  # type: ignore[arg-type]
    events = [(e.event.resource, e.event.action, e.hint is not None) for e in plugin.events_to_register()]
    assert events == [
        (EventResource.POD, ActionType.DELETE, True),
        (EventResource.NODE, ActionType.ADD, False),
        (EventResource.PERSISTENT_VOLUME_CLAIM, ActionType.ADD, True),
    ]
    p = pod_with("p", gce("foo"), pod_with_pvcs("x", ["c"]).volumes[0])
    assert plugin.is_schedulable_after_pod_deleted(p, pod_with("e", gce("foo")), None) is QueueingHint.QUEUE
    assert (
        plugin.is_schedulable_after_pod_deleted(p, pod_with("e", gce("bar")), None) is QueueingHint.QUEUE_SKIP
    )
    assert plugin.is_schedulable_after_pod_deleted(p, pod_with_pvcs("e", ["c"]), None) is QueueingHint.QUEUE
    assert (
        plugin.is_schedulable_after_pod_deleted(p, pod_with("e", gce("foo"), namespace="other"), None)
        is QueueingHint.QUEUE_SKIP
    )
    assert (
        plugin.is_schedulable_after_pvc_added(p, None, PersistentVolumeClaim(name="c")) is QueueingHint.QUEUE
    )
    assert (
        plugin.is_schedulable_after_pvc_added(p, None, PersistentVolumeClaim(name="d"))
        is QueueingHint.QUEUE_SKIP
    )
