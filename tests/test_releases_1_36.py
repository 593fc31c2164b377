"""Kubernetes 1.36 completeness: VolumeAttachment objects counted by NodeVolumeLimits
(kubernetes/kubernetes#127757), older API versions of the kinds schedframe reads."""

from __future__ import annotations

import json
from typing import Any

import pytest

from schedframe import (
    Code,
    Container,
    ContainerRestartRule,
    CSINode,
    CSINodeDriver,
    CSIPersistentVolumeSource,
    CycleState,
    DeprecatedAPIVersionWarning,
    ManifestError,
    Node,
    NodeInfo,
    PersistentVolume,
    PersistentVolumeClaim,
    PersistentVolumeClaimVolumeSource,
    Pod,
    PodDisruptionBudget,
    SchedframeWarning,
    Scheduler,
    SchedulerConfiguration,
    Status,
    Volume,
    VolumeAttachment,
    load_manifests,
    object_from_manifest,
    object_to_manifest,
)
from schedframe.framework.events import ActionType, ClusterEvent, EventResource, QueueingHint
from schedframe.plugins.node_declared_features import _STATE_KEY, DeclaredFeature, NodeDeclaredFeatures
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


# --------------------------------------------------------------------------------------------
# NodeDeclaredFeatures (nodedeclaredfeatures_test.go at v1.36, and the registry's features)

NDF = "NodeDeclaredFeatures"


def feature(name: str, infer: bool | Any) -> DeclaredFeature:
    return DeclaredFeature(name, infer if callable(infer) else (lambda pod: infer))


PRE_FILTER_CASES = [
    pytest.param([feature("TestFeature", True)], None, frozenset({"TestFeature"}),
                 id="Pod with feature requirements"),
    pytest.param([feature("TestFeature1", True), feature("TestFeature2", True)], None,
                 frozenset({"TestFeature1", "TestFeature2"}), id="Pod with multiple feature requirements"),
    pytest.param([feature("TestFeature", False)], Status.skip(), None, id="Pod with no requirements"),
]


@pytest.mark.parametrize(("features", "want_status", "want_reqs"), PRE_FILTER_CASES)
def test_node_declared_features_pre_filter(features: list[DeclaredFeature], want_status: Status | None,
                                           want_reqs: frozenset[str] | None) -> None:
    """PreFilter writes the pod's requirements, or skips a pod that needs nothing."""
    plugin = NodeDeclaredFeatures(features=features, enabled=True)
    state = CycleState()
    result, status = plugin.pre_filter(state, Pod(name="test-pod"), [])
    assert result is None
    assert status == want_status
    assert plugin.requirements(Pod(name="test-pod")) == (want_reqs or frozenset())


def node_with(name: str, *declared: str) -> Node:
    return Node(name=name, declared_features=declared,
                allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"})


UNSATISFIED = Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE,
                     ("node declared features check failed - unsatisfied requirements: TestFeature",))

FILTER_CASES = [
    pytest.param(node_with("node-1", "TestFeature", "OtherFeature"), {"TestFeature"}, None,
                 id="Node matches requirements"),
    pytest.param(node_with("node-2", "OtherFeature"), {"TestFeature"}, UNSATISFIED,
                 id="Node does not match requirements"),
    pytest.param(node_with("node-3"), {"TestFeature"}, UNSATISFIED, id="Node has no declared features"),
    pytest.param(None, {"TestFeature"}, Status(Code.ERROR, ("node not found",)), id="NodeInfo.Node() is nil"),
    pytest.param(node_with("node-2", "OtherFeature"), {"TestFeature", "OtherFeature"}, UNSATISFIED,
                 id="Node with some but not all required features"),
    pytest.param(node_with("node-1"), None, Status(Code.ERROR, (
        'error reading "PreFilterNodeDeclaredFeatures" from cycle-state: not found',)),
                 id="Error getting pre-filter state"),
]


@pytest.mark.parametrize(("node", "reqs", "want"), FILTER_CASES)
def test_node_declared_features_filter(node: Node | None, reqs: set[str] | None, want: Status | None) -> None:
    """Filter: every required feature must be declared by the node."""
    plugin = NodeDeclaredFeatures(features=[], enabled=True)
    state = CycleState()
    if reqs is not None:
        state.write(_STATE_KEY, frozenset(reqs))
    info = NodeInfo(node) if node is not None else NodeInfo()
    got = plugin.filter(state, Pod(name="test-pod"), info)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert (got.code, list(got.reasons)) == (want.code, list(want.reasons))


def test_node_declared_features_unsatisfied_are_sorted() -> None:
    """The unsatisfied features are listed sorted, comma-separated."""
    plugin = NodeDeclaredFeatures(features=[], enabled=True)
    state = CycleState()
    state.write(_STATE_KEY, frozenset({"Zeta", "Alpha"}))
    got = plugin.filter(state, Pod(name="p"), NodeInfo(node_with("n")))
    assert got is not None
    assert list(got.reasons) == [
        "node declared features check failed - unsatisfied requirements: Alpha, Zeta"]


@pytest.mark.parametrize(("old", "new", "want"), [
    (None, node_with("node-1", "TestFeature"), QueueingHint.QUEUE),
    (node_with("node-3"), node_with("node-1", "TestFeature"), QueueingHint.QUEUE),
    (node_with("node-1", "TestFeature"), node_with("node-1", "TestFeature"), QueueingHint.QUEUE_SKIP),
    (node_with("node-1", "TestFeature"), node_with("node-2", "OtherFeature"), QueueingHint.QUEUE),
], ids=["Node Add with feature", "Node Update (Features Added)", "Node Update (Features Unchanged)",
        "Node Update (Irrelevant Features change)"])
def test_node_declared_features_node_hint(old: Node | None, new: Node, want: QueueingHint) -> None:
    """A node added, or one whose declared features changed, requeues the pod."""
    plugin = NodeDeclaredFeatures(features=[], enabled=True)
    assert plugin.is_schedulable_after_node_change(Pod(name="test-pod"), old, new) == want


def _labelled(pod: Pod) -> bool:
    return pod.labels.get("foo") == "bar"


@pytest.mark.parametrize(("old", "new", "want"), [
    (Pod(name="test-pod"), Pod(name="test-pod", labels={"foo": "bar"}), QueueingHint.QUEUE),
    (Pod(name="test-pod", labels={"foo": "bar"}), Pod(name="test-pod"), QueueingHint.QUEUE),
    (Pod(name="test-pod"), Pod(name="test-pod"), QueueingHint.QUEUE_SKIP),
], ids=["Pod Update adds requirement", "Pod Update removes requirement",
        "Pod Update with no change in requirements"])
def test_node_declared_features_pod_hint(old: Pod, new: Pod, want: QueueingHint) -> None:
    """The pod's own update requeues it when its requirements changed."""
    plugin = NodeDeclaredFeatures(features=[feature("TestFeature", _labelled)], enabled=True)
    assert plugin.is_schedulable_after_pod_update(Pod(name="test-pod"), old, new) == want


def test_node_declared_features_events() -> None:
    """Two events when enabled (node add / declared-feature update, pod update); none when off."""
    on = NodeDeclaredFeatures(features=[], enabled=True).events_to_register()
    assert [e.event for e in on] == [
        ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_DECLARED_FEATURE),
        ClusterEvent(EventResource.POD, ActionType.UPDATE)]
    assert NodeDeclaredFeatures(features=[], enabled=False).events_to_register() == ()


RESTART_ALL = Pod(name="restart-all", containers=[Container(
    name="c", restart_policy_rules=[ContainerRestartRule("RestartAllContainers", "In", [42])])])
HOST_NETWORK_USERNS = Pod(name="hostnet-userns", host_network=True, host_users=False)


@pytest.mark.parametrize(("pod", "want"), [
    (RESTART_ALL, {"RestartAllContainersOnContainerExits"}),
    (Pod(name="init", init_containers=[Container(
        name="i", restart_policy_rules=[ContainerRestartRule("RestartAllContainers")])]),
     {"RestartAllContainersOnContainerExits"}),
    (Pod(name="restart", containers=[Container(
        name="c", restart_policy_rules=[ContainerRestartRule("Restart")])]), set()),
    (HOST_NETWORK_USERNS, {"UserNamespacesHostNetworkSupport"}),
    (Pod(name="hostnet", host_network=True), set()),
    (Pod(name="userns", host_users=False), set()),
    (Pod(name="plain"), set()),
], ids=lambda v: v.name if isinstance(v, Pod) else "")
def test_node_declared_features_inference_1_36(pod: Pod, want: set[str]) -> None:
    """The 1.36 registry's features a pod needs at scheduling time; 1.35's registry has none."""
    assert NodeDeclaredFeatures(enabled=True).requirements(pod) == want
    h35 = PluginHarness(NDF, nodes=[node_with("n")], kubernetes_version="1.35",
                        feature_gates={"NodeDeclaredFeatures": True})
    assert h35.pre_filter(pod) == (None, Status.skip())


def test_node_declared_features_schedules_by_release() -> None:
    """1.36 (gate on by default) places a pod needing a feature only on a node declaring it;
    1.35 (gate off) ignores declarations; 1.36 with the gate off too."""
    def place(**kw: Any) -> dict[str, str | None]:
        s = Scheduler(objects=[node_with("a"), node_with("b", "UserNamespacesHostNetworkSupport")], **kw)
        s.add_pod(HOST_NETWORK_USERNS)
        s.run_until_idle()
        return {"node": s.node_of(HOST_NETWORK_USERNS)}

    assert place() == {"node": "b"}
    assert {place(kubernetes_version="1.35", seed=seed)["node"] for seed in range(8)} == {"a", "b"}
    assert {place(feature_gates="NodeDeclaredFeatures=false", seed=seed)["node"] for seed in range(8)} == {
        "a", "b"}


def test_node_declared_features_message() -> None:
    """No node declaring the feature: the pod stays pending with upstream's message."""
    s = Scheduler(objects=[node_with("a"), node_with("b")])
    s.add_pod(RESTART_ALL)
    s.run_until_idle()
    [pending] = s.pending()
    assert pending.message == (
        "0/2 nodes are available: 2 node declared features check failed - unsatisfied requirements: "
        "RestartAllContainersOnContainerExits. no new claims to deallocate, preemption: 0/2 nodes are "
        "available: 2 Preemption is not helpful for scheduling.")


def test_omitted_upstream_plugins_is_empty_for_every_release() -> None:
    """Every default plugin of kube-scheduler 1.32-1.36 is provided."""
    for release in ("1.32", "1.33", "1.34", "1.35", "1.36"):
        assert SchedulerConfiguration.default(kubernetes_version=release).omitted_upstream_plugins == ()
    assert "NodeDeclaredFeatures" in SchedulerConfiguration.default().profiles[0].plugin_names()
