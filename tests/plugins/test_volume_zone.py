"""VolumeZone: cases ported from upstream ``volumezone/volume_zone_test.go``.

Upstream's fake listers report ``storageclasses.storage.k8s.io "x" not found``; schedframe
gives the informer listers' singular form, ``storageclass.storage.k8s.io "x" not found``.
"""

from __future__ import annotations

import pytest

from schedframe import CycleState, Node, NodeInfo, Pod, Status
from schedframe.api import PersistentVolume, PersistentVolumeClaim, StorageClass
from schedframe.framework.events import ActionType, EventResource, QueueingHint
from schedframe.plugins import volume_zone
from schedframe.plugins.volume_zone import ERR_REASON_CONFLICT, VolumeZone
from schedframe.testing import PluginHarness

from ._volume_fixtures import pod_with_pvcs

BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
REGION = "topology.kubernetes.io/region"
CONFLICT = Status.unresolvable(ERR_REASON_CONFLICT)


def pv(name: str, **labels: str) -> PersistentVolume:
    return PersistentVolume(name=name, labels=labels)


def pvc(name: str, volume: str = "", storage_class: str | None = None) -> PersistentVolumeClaim:
    return PersistentVolumeClaim(name=name, volume_name=volume, storage_class_name=storage_class)


def pod(claim: str) -> Pod:
    return pod_with_pvcs("pod_1", [claim])


SINGLE_ZONE_OBJECTS = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_REGION: "us-west1"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{REGION: "us-west1", "uselessLabel": "none"}),
    pv("Vol_Stable_3", **{ZONE: "us-west1-a", REGION: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_2", "Vol_2"),
    pvc("PVC_3", "Vol_3"),
    pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"),
    pvc("PVC_Stable_2", "Vol_Stable_2"),
    pvc("PVC_Stable_3", "Vol_Stable_3"),
]


def run(objects: list[object], pod: Pod, node: Node) -> tuple[Status | None, Status | None]:
    """PreFilter then Filter on one node, as upstream's loop (Filter runs even after a
    PreFilter rejection, falling back to computing the topologies itself)."""
    plugin = VolumeZone(PluginHarness("VolumeZone", objects=objects).framework)
    state = CycleState()
    _, pre = plugin.pre_filter(state, pod, [])
    return pre, plugin.filter(state, pod, NodeInfo(node))


@pytest.mark.parametrize(
    ("pod", "labels", "want_pre", "want_filter"),
    [
        pytest.param(Pod("pod_1"), {BETA_ZONE: "us-west1-a"}, Status.skip(), None, id="pod without volume"),
        pytest.param(pod("PVC_1"), {}, None, None, id="node without labels"),
        pytest.param(
            pod("PVC_1"),
            {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
            None,
            None,
            id="beta zone label matched",
        ),
        pytest.param(
            pod("PVC_2"),
            {BETA_REGION: "us-west1", "uselessLabel": "none"},
            None,
            None,
            id="beta region label matched",
        ),
        pytest.param(
            pod("PVC_2"),
            {BETA_REGION: "no_us-west1", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="beta region label doesn't match",
        ),
        pytest.param(
            pod("PVC_1"),
            {BETA_ZONE: "no_us-west1-a", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="beta zone label doesn't match",
        ),
        pytest.param(
            pod("PVC_Stable_1"),
            {ZONE: "us-west1-a", "uselessLabel": "none"},
            None,
            None,
            id="zone label matched",
        ),
        pytest.param(
            pod("PVC_Stable_2"),
            {REGION: "us-west1", "uselessLabel": "none"},
            None,
            None,
            id="region label matched",
        ),
        pytest.param(
            pod("PVC_Stable_2"),
            {REGION: "no_us-west1", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="region label doesn't match",
        ),
        pytest.param(
            pod("PVC_Stable_1"),
            {ZONE: "no_us-west1-a", "uselessLabel": "none"},
            None,
            CONFLICT,
            id="zone label doesn't match",
        ),
        pytest.param(
            pod("PVC_Stable_3"),
            {ZONE: "us-west1-a"},
            None,
            CONFLICT,
            id="pv with zone and region, node with only zone",
        ),
        pytest.param(
            pod("PVC_Stable_1"),
            {BETA_ZONE: "us-west1-a"},
            None,
            CONFLICT,
            id="pv with zone,node with beta zone",
        ),
        pytest.param(
            pod("PVC_1"),
            {ZONE: "us-west1-a"},
            None,
            None,
            id="pv with beta label,node with ga label, matched",
        ),
        pytest.param(
            pod("PVC_1"),
            {ZONE: "us-west1-b"},
            None,
            CONFLICT,
            id="pv with beta label,node with ga label, don't match",
        ),
    ],
)
def test_single_zone(
    pod: Pod, labels: dict[str, str], want_pre: Status | None, want_filter: Status | None
) -> None:
    """PreFilter and Filter statuses, as upstream TestSingleZone."""
    assert run(SINGLE_ZONE_OBJECTS, pod, Node("host1", labels=labels)) == (want_pre, want_filter)


MULTI_ZONE_OBJECTS = [
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pv("Vol_2", **{BETA_ZONE: "us-west1-b", "uselessLabel": "none"}),
    pv("Vol_3", **{BETA_ZONE: "us-west1-c__us-west1-a"}),
    pv("Vol_Stable_1", **{ZONE: "us-west1-a"}),
    pv("Vol_Stable_2", **{ZONE: "us-west1-c__us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_2", "Vol_2"),
    pvc("PVC_3", "Vol_3"),
    pvc("PVC_4", "Vol_not_exist"),
    pvc("PVC_Stable_1", "Vol_Stable_1"),
    pvc("PVC_Stable_2", "Vol_Stable_2"),
]


@pytest.mark.parametrize(
    ("pod", "labels", "want_filter"),
    [
        pytest.param(pod("PVC_3"), {}, None, id="node without labels"),
        pytest.param(
            pod("PVC_3"),
            {BETA_ZONE: "us-west1-a", "uselessLabel": "none"},
            None,
            id="beta zone label matched",
        ),
        pytest.param(
            pod("PVC_1"),
            {BETA_ZONE: "us-west1-b", "uselessLabel": "none"},
            CONFLICT,
            id="beta zone label doesn't match",
        ),
        pytest.param(
            pod("PVC_Stable_2"), {ZONE: "us-west1-a", "uselessLabel": "none"}, None, id="zone label matched"
        ),
        pytest.param(
            pod("PVC_Stable_1"),
            {ZONE: "us-west1-b", "uselessLabel": "none"},
            CONFLICT,
            id="zone label doesn't match",
        ),
    ],
)
def test_multi_zone(pod: Pod, labels: dict[str, str], want_filter: Status | None) -> None:
    """A PV label listing zones with ``__`` allows each of them (upstream TestMultiZone)."""
    assert run(MULTI_ZONE_OBJECTS, pod, Node("host1", labels=labels)) == (None, want_filter)


def _no_sc() -> Status:
    return Status.unresolvable("PersistentVolumeClaim had no pv name and storageClass name")


BINDING_OBJECTS = [
    StorageClass(name="Class_Immediate", provisioner="p", volume_binding_mode=None),
    StorageClass(name="Class_Wait", provisioner="p", volume_binding_mode="WaitForFirstConsumer"),
    pv("Vol_1", **{BETA_ZONE: "us-west1-a"}),
    pvc("PVC_1", "Vol_1"),
    pvc("PVC_NoSC", storage_class="Class_0"),
    pvc("PVC_EmptySC"),
    pvc("PVC_WaitSC", storage_class="Class_Wait"),
    pvc("PVC_ImmediateSC", storage_class="Class_Immediate"),
]


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(pod("PVC_1"), None, id="label zone failure domain matched"),
        pytest.param(pod("PVC_EmptySC"), _no_sc(), id="unbound volume empty storage class"),
        pytest.param(
            pod("PVC_NoSC"),
            Status.unresolvable('storageclass.storage.k8s.io "Class_0" not found'),
            id="unbound volume no storage class",
        ),
        pytest.param(
            pod("PVC_ImmediateSC"),
            Status.unresolvable('VolumeBindingMode not set for StorageClass "Class_Immediate"'),
            id="unbound volume immediate binding mode",
        ),
        pytest.param(
            pod("PVC_NotExist"),
            Status.unresolvable('persistentvolumeclaim "PVC_NotExist" not found'),
            id="pvc not found",
        ),
    ],
)
def test_with_binding(pod: Pod, want: Status | None) -> None:
    """Unbound claims: a missing class or claim, and a class without binding mode, are
    unresolvable at PreFilter and Filter alike (upstream TestWithBinding)."""
    node = Node("host1", labels={BETA_ZONE: "us-west1-a", "uselessLabel": "none"})
    assert run(BINDING_OBJECTS, pod, node) == (want, want)


def test_wait_for_first_consumer_is_skipped() -> None:
    """An unbound claim of a WaitForFirstConsumer class is VolumeBinding's business."""
    node = Node("host1", labels={BETA_ZONE: "us-west1-a"})
    assert run(BINDING_OBJECTS, pod("PVC_WaitSC"), node) == (Status.skip(), None)


def test_immediate_unbound_claim() -> None:
    """An unbound claim of an Immediate class has no PV yet: unresolvable."""
    objects = [StorageClass(name="fast", provisioner="p"), pvc("c", storage_class="fast")]
    want = Status.unresolvable("PersistentVolume had no name")
    assert run(objects, pod("c"), Node("host1")) == (want, want)


def test_missing_pv() -> None:
    """A claim bound to a PV that does not exist is unresolvable."""
    want = Status.unresolvable('persistentvolume "Vol_not_exist" not found')
    assert run(SINGLE_ZONE_OBJECTS, pod("PVC_4"), Node("host1")) == (want, want)


def test_unparsable_zone_label_is_ignored() -> None:
    """A label value with an empty zone (``a__``) is ignored, as upstream's ``LabelZonesToSet``."""
    objects = [pv("v", **{ZONE: "a__"}), pvc("c", "v")]
    assert run(objects, pod("c"), Node("n", labels={ZONE: "b"})) == (Status.skip(), None)


def test_through_harness() -> None:
    """Through the framework: only the node in the PV's zone passes."""
    h = PluginHarness(
        "VolumeZone",
        nodes=[Node("a", labels={ZONE: "z1"}), Node("b", labels={ZONE: "z2"})],
        objects=[pv("v", **{ZONE: "z1"}), pvc("c", "v")],
    )
    assert h.filter(pod("c")) == {"a": Status.OK, "b": CONFLICT}


def test_events_and_hints() -> None:
    """Events as upstream; hints requeue only for relevant changes."""
    plugin = volume_zone.new(None, None)  # type: ignore[arg-type]
    events = {e.event.resource: e for e in plugin.events_to_register()}
    assert set(events) == {
        EventResource.STORAGE_CLASS,
        EventResource.NODE,
        EventResource.PERSISTENT_VOLUME_CLAIM,
        EventResource.PERSISTENT_VOLUME,
    }
    assert events[EventResource.NODE].hint is None
    assert events[EventResource.NODE].event.action == ActionType.ADD | ActionType.UPDATE_NODE_LABEL
    p = pod("c")
    assert plugin.is_schedulable_after_pvc_change(p, None, pvc("c")) is QueueingHint.QUEUE
    assert plugin.is_schedulable_after_pvc_change(p, None, pvc("other")) is QueueingHint.QUEUE_SKIP
    other_ns = PersistentVolumeClaim(name="c", namespace="other")
    assert plugin.is_schedulable_after_pvc_change(p, None, other_ns) is QueueingHint.QUEUE_SKIP
    wait = StorageClass(name="w", provisioner="p", volume_binding_mode="WaitForFirstConsumer")
    assert plugin.is_schedulable_after_storage_class_added(p, None, wait) is QueueingHint.QUEUE
    immediate = StorageClass(name="i", provisioner="p")
    assert plugin.is_schedulable_after_storage_class_added(p, None, immediate) is QueueingHint.QUEUE_SKIP
    old = pv("v", **{ZONE: "a"})
    assert plugin.is_schedulable_after_pv_change(p, None, old) is QueueingHint.QUEUE
    assert plugin.is_schedulable_after_pv_change(p, old, pv("v", **{ZONE: "b"})) is QueueingHint.QUEUE
    assert (
        plugin.is_schedulable_after_pv_change(p, old, pv("v", **{ZONE: "a", "x": "y"}))
        is QueueingHint.QUEUE_SKIP
    )
