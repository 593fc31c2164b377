"""Kubernetes 1.36 completeness: VolumeAttachment objects counted by NodeVolumeLimits
(kubernetes/kubernetes#127757), older API versions of the kinds schedframe reads."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

from schedframe import (
    Code,
    ConfigurationError,
    CycleState,
    ManifestError,
    Node,
    NodeInfo,
    Pod,
    SchedframeWarning,
    Scheduler,
    SchedulerConfiguration,
    Status,
    load_manifests,
    object_from_manifest,
    object_to_manifest,
)
from schedframe.api import (
    Container,
    ContainerRestartRule,
    CSINode,
    CSINodeDriver,
    CSIPersistentVolumeSource,
    DeprecatedAPIVersionWarning,
    PersistentVolume,
    PersistentVolumeClaim,
    PersistentVolumeClaimVolumeSource,
    PodDisruptionBudget,
    Volume,
    VolumeAttachment,
    Workload,
    WorkloadPodGroup,
    WorkloadReference,
)
from schedframe.cache.store import ObjectStore
from schedframe.framework.events import ActionType, ClusterEvent, EventResource, QueueingHint
from schedframe.framework.releases import release_profile
from schedframe.plugins.gang_scheduling import (
    MSG_WAITING_FOR_MIN_COUNT,
    MSG_WAITING_ON_PERMIT,
    PERMIT_TIMEOUT_SECONDS,
    GangScheduling,
)
from schedframe.plugins.node_declared_features import _STATE_KEY, DeclaredFeature, NodeDeclaredFeatures
from schedframe.plugins.node_volume_limits import ERR_REASON_MAX_VOLUME_COUNT_EXCEEDED, NodeVolumeLimits
from schedframe.sim import simulate
from schedframe.sim.scenario import Scenario
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
    """1.36 on (gate on by default) places a pod needing a feature only on a node declaring it;
    1.35 (gate off) ignores declarations. 1.36 cannot turn the gate off (gates on by default
    depend on it, as kube-scheduler 1.36 says) and 1.37 locks it on."""
    def place(**kw: Any) -> dict[str, str | None]:
        s = Scheduler(objects=[node_with("a"), node_with("b", "UserNamespacesHostNetworkSupport")], **kw)
        s.add_pod(HOST_NETWORK_USERNS)
        s.run_until_idle()
        return {"node": s.node_of(HOST_NETWORK_USERNS)}

    assert place() == {"node": "b"}
    assert place(kubernetes_version="1.36") == {"node": "b"}
    assert {place(kubernetes_version="1.35", seed=seed)["node"] for seed in range(8)} == {"a", "b"}
    with pytest.raises(ConfigurationError, match="depends on features that are disabled: "
                                                 r"\[NodeDeclaredFeatures\]"):
        place(kubernetes_version="1.36", feature_gates="NodeDeclaredFeatures=false")
    with pytest.raises(ConfigurationError, match="NodeDeclaredFeatures to false, feature is locked to true"):
        place(feature_gates="NodeDeclaredFeatures=false")


def test_node_declared_features_message() -> None:
    """No node declaring the feature: the pod stays pending with upstream's message."""
    s = Scheduler(objects=[node_with("a"), node_with("b")])
    s.add_pod(RESTART_ALL)
    s.run_until_idle()
    [pending] = s.pending()
    assert pending.message == (
        "0/2 nodes are available: 2 node declared features check failed - unsatisfied requirements: "
        "RestartAllContainersOnContainerExits. preemption: 0/2 nodes are "
        "available: 2 Preemption is not helpful for scheduling.")


def test_omitted_upstream_plugins_is_empty_for_every_release() -> None:
    """Every default plugin of kube-scheduler 1.32-1.36 is provided."""
    for release in ("1.32", "1.33", "1.34", "1.35", "1.36"):
        assert SchedulerConfiguration.default(kubernetes_version=release).omitted_upstream_plugins == ()
    assert "NodeDeclaredFeatures" in SchedulerConfiguration.default().profiles[0].plugin_names()


# --------------------------------------------------------------------------------------------
# the Workload API and GangScheduling (the workload-based plugin of kube-scheduler 1.35/1.36)

GANG_GATES = "GenericWorkload=true,GangScheduling=true"


def gang_workload(min_count: int | None = 3, *, name: str = "w", namespace: str = "default") -> Workload:
    return Workload(name=name, namespace=namespace,
                    pod_groups=[WorkloadPodGroup("g", min_count), WorkloadPodGroup("basic")])


def member(name: str, *, group: str = "g", workload: str = "w", namespace: str = "default", node: str = "",
           cpu: str = "1", replica: str = "") -> Pod:
    return Pod(name=name, namespace=namespace, node_name=node,
               workload_ref=WorkloadReference(workload, group, replica),
               containers=[Container(requests={"cpu": cpu})])


class _Handle:
    """Objects, the pod lister and waiting pods: what GangScheduling reads of its handle."""

    def __init__(self, objects: list[Any], pods: list[Pod]) -> None:
        self.objects = ObjectStore(objects)
        self.pods = pods
        self.allowed: list[str] = []
        # the v1alpha1 Workload and workloadRef are 1.35's (1.36 on: PodGroups, test_workload_api)
        self.profile = SimpleNamespace(release=release_profile("1.35"))

    def list_pods(self, namespace: str | None = None) -> list[Pod]:
        return [p for p in self.pods if namespace is None or p.namespace == namespace]

    def get_waiting_pod(self, uid: str) -> Any:
        handle = self

        class _Waiting:
            def allow(self, plugin: str) -> None:
                handle.allowed.append(uid)

        return _Waiting()


PRE_ENQUEUE_CASES = [
    pytest.param(Pod(name="plain"), [gang_workload()], [], None, id="pod without workloadRef"),
    pytest.param(member("p"), [], [],
                 "waiting for pods's workload \"w\" to appear in scheduling queue", id="workload not found"),
    pytest.param(member("p", group="nope"), [gang_workload()], [],
                 "pod group \"nope\" doesn't exist for a workload \"w\"", id="pod group not found"),
    pytest.param(member("p", group="basic"), [gang_workload()], [], None, id="basic policy: not a gang"),
    pytest.param(member("p"), [gang_workload()], [member("q")], MSG_WAITING_FOR_MIN_COUNT,
                 id="fewer than minCount pods of the group"),
    pytest.param(member("p"), [gang_workload()], [member("q"), member("r", node="n1")], None,
                 id="minCount pods exist (bound ones count)"),
    pytest.param(member("p"), [gang_workload()],
                 [member("q"), member("r", namespace="other"), member("s", replica="2")],
                 MSG_WAITING_FOR_MIN_COUNT,
                 id="pods of another namespace or replica key are another group"),
]


@pytest.mark.parametrize(("pod", "objects", "others", "want"), PRE_ENQUEUE_CASES)
def test_gang_scheduling_pre_enqueue(pod: Pod, objects: list[Any], others: list[Pod],
                                     want: str | None) -> None:
    """PreEnqueue holds a gang pod until its Workload and minCount pods of its group exist."""
    plugin = GangScheduling(_Handle(objects, [pod, *others]), enabled=True)  # type: ignore[arg-type]
    got = plugin.pre_enqueue(pod)
    if want is None:
        assert got is None
    else:
        assert got is not None
        assert (got.code, list(got.reasons)) == (Code.UNSCHEDULABLE_AND_UNRESOLVABLE, [want])


def test_gang_scheduling_permit_waits_for_the_quorum() -> None:
    """Permit waits (and activates the unscheduled siblings) until minCount pods are assumed or
    bound; the pod completing the quorum allows the waiting ones."""
    pods = [member("a"), member("b"), member("c")]
    handle = _Handle([gang_workload()], pods)
    plugin = GangScheduling(handle, enabled=True)  # type: ignore[arg-type]
    state = CycleState()
    plugin.reserve(state, pods[0], "n1")
    status, timeout = plugin.permit(state, pods[0], "n1")
    assert status is not None
    assert (status.code, list(status.reasons), timeout) == (Code.WAIT, [MSG_WAITING_ON_PERMIT],
                                                           PERMIT_TIMEOUT_SECONDS)
    assert sorted(state.pods_to_activate) == ["default/b", "default/c"]
    plugin.reserve(CycleState(), pods[1], "n2")
    plugin.unreserve(CycleState(), pods[1], "n2")  # released: it no longer counts
    plugin.reserve(CycleState(), pods[1], "n2")
    assert plugin.permit(CycleState(), pods[1], "n2")[0] is not None
    plugin.reserve(CycleState(), pods[2], "n3")
    assert plugin.permit(CycleState(), pods[2], "n3") == (None, 0.0)
    assert sorted(handle.allowed) == sorted(p.uid for p in pods)


def test_gang_scheduling_permit_errors() -> None:
    """Permit: a missing Workload or pod group is an error; a basic group passes."""
    plugin = GangScheduling(_Handle([gang_workload()], []), enabled=True)  # type: ignore[arg-type]
    status, _ = plugin.permit(CycleState(), member("p", workload="gone"), "n")
    assert status is not None
    assert status.code == Code.ERROR
    assert list(status.reasons) == ['failed to get workload default/gone: workload "gone" not found']
    status, _ = plugin.permit(CycleState(), member("p", group="nope"), "n")
    assert status is not None
    assert status.code == Code.ERROR
    assert plugin.permit(CycleState(), member("p", group="basic"), "n") == (None, 0.0)


@pytest.mark.parametrize(("pod", "added", "want"), [
    (member("p"), member("q"), QueueingHint.QUEUE),
    (member("p"), member("q", node="node1"), QueueingHint.QUEUE),
    (member("p"), member("q", namespace="foo"), QueueingHint.QUEUE_SKIP),
    (member("p"), member("q", group="other"), QueueingHint.QUEUE_SKIP),
    (member("p"), Pod(name="plain"), QueueingHint.QUEUE_SKIP),
], ids=["add a pod which matches the pod's workload", "add a bound pod which matches the pod's workload",
        "add a pod which doesn't match the pod's namespace", "add a pod of another pod group",
        "add a pod without workloadRef"])
def test_gang_scheduling_pod_added_hint(pod: Pod, added: Pod, want: QueueingHint) -> None:
    """A pod added to the same group requeues the gang's pods."""
    assert GangScheduling(_Handle([], []), enabled=True).is_schedulable_after_pod_added(  # type: ignore[arg-type]
        pod, None, added) == want


@pytest.mark.parametrize(("pod", "added", "want"), [
    (member("p"), gang_workload(), QueueingHint.QUEUE),
    (member("p"), gang_workload(name="other"), QueueingHint.QUEUE_SKIP),
    (member("p"), gang_workload(namespace="ns2"), QueueingHint.QUEUE_SKIP),
    (Pod(name="plain"), gang_workload(), QueueingHint.QUEUE_SKIP),
], ids=["add the pod's workload", "add another workload", "add a workload of another namespace",
        "pod without workloadRef"])
def test_gang_scheduling_workload_added_hint(pod: Pod, added: Workload, want: QueueingHint) -> None:
    """The pod's Workload being added requeues it."""
    assert GangScheduling(_Handle([], []), enabled=True).is_schedulable_after_workload_added(  # type: ignore[arg-type]
        pod, None, added) == want


def test_gang_scheduling_is_inert_without_generic_workload() -> None:
    """Without the GenericWorkload gate (the default) the plugin lets every pod through."""
    plugin = GangScheduling()
    assert not plugin.enabled
    assert plugin.pre_enqueue(member("p")) is None
    assert plugin.permit(CycleState(), member("p"), "n") == (None, 0.0)
    assert plugin.events_to_register() == ()


def _nodes(n: int) -> list[Node]:
    return [Node(name=f"n{i}", allocatable={"cpu": "1", "memory": "1Gi", "pods": "110"}) for i in range(n)]


def test_gang_scheduling_all_or_nothing() -> None:
    """With the gates on (1.35: the v1alpha1 Workload API, the one schedframe models), a gang of 3
    waits for its third pod, then binds at once; on 2 nodes no pod of it binds (each times out at
    Permit and is retried)."""
    s = Scheduler(objects=[*_nodes(3), gang_workload()], feature_gates=GANG_GATES, kubernetes_version="1.35")
    s.add_pod(member("a"))
    s.add_pod(member("b"))
    s.run_until_idle()
    assert [(p.pod.name, p.message, p.where) for p in s.pending()] == [
        ("a", MSG_WAITING_FOR_MIN_COUNT, "Gated"), ("b", MSG_WAITING_FOR_MIN_COUNT, "Gated")]
    s.add_pod(member("c"))
    s.run_until_idle()
    assert sorted(s.node_of(member(n)) or "" for n in "abc") == ["n0", "n1", "n2"]

    s = Scheduler(objects=[*_nodes(2), gang_workload()], feature_gates=GANG_GATES, kubernetes_version="1.35")
    for n in "abc":
        s.add_pod(member(n))
    s.run_until_idle()
    assert [s.node_of(member(n)) for n in "abc"] == [None, None, None]
    # without the gates the same pods are scheduled one by one: two of them bind
    s = Scheduler(objects=[*_nodes(2), gang_workload()], kubernetes_version="1.35")
    for n in "abc":
        s.add_pod(member(n))
    s.run_until_idle()
    assert sum(s.node_of(member(n)) is not None for n in "abc") == 2
    # 1.37 does not serve the v1alpha1 Workload: the scheduler refuses it, naming what it serves
    with pytest.raises(ManifestError, match=r"Kubernetes 1.37 does not serve scheduling.k8s.io/v1alpha1 "
                                            r"Workload \(it serves Workload in scheduling.k8s.io/v1beta1"):
        Scheduler(objects=[*_nodes(2), gang_workload()])


NATIVE_GANG_SCENARIO = textwrap.dedent("""\
    name: native-gang
    nodes:
    - count: 2
      name: "node-{i}"
      template:
        status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
    objects:
    - apiVersion: scheduling.k8s.io/v1alpha1
      kind: Workload
      metadata: {name: training, namespace: default}
      spec:
        podGroups:
        - name: workers
          policy: {gang: {minCount: 4}}
    workloads:
    - name: worker
      kind: Pod
      replicas: 4
      arrival: {at: 0, every: 1}
      template:
        spec:
          workloadRef: {name: training, podGroup: workers}
          containers: [{name: w, resources: {requests: {cpu: "2"}}}]
    """)


def test_scenario_with_a_native_gang(tmp_path: Path) -> None:
    """A scenario can use the Workload API: with the gates the gang binds together when its last
    pod arrives; without them each pod binds on arrival."""
    pytest.importorskip("yaml")
    path = tmp_path / "gang.yaml"
    path.write_text(NATIVE_GANG_SCENARIO)
    scenario = Scenario.from_file(path)
    together = simulate(scenario, feature_gates=GANG_GATES, kubernetes_version="1.35")
    assert [p.bound_at for p in together.pods] == [3.0, 3.0, 3.0, 3.0]
    apart = simulate(scenario, kubernetes_version="1.35")
    assert [p.bound_at for p in apart.pods] == [0.0, 1.0, 2.0, 3.0]


def test_workload_manifest() -> None:
    """A scheduling.k8s.io/v1alpha1 Workload is read, written and validated; pods carry workloadRef."""
    manifest = {"apiVersion": "scheduling.k8s.io/v1alpha1", "kind": "Workload",
                "metadata": {"name": "w", "namespace": "default"},
                "spec": {"controllerRef": {"apiGroup": "batch", "kind": "Job", "name": "j"},
                         "podGroups": [{"name": "g", "policy": {"gang": {"minCount": 3}}},
                                       {"name": "b", "policy": {"basic": {}}}]}}
    w = object_from_manifest(manifest)
    assert w == Workload(name="w", pod_groups=[WorkloadPodGroup("g", 3), WorkloadPodGroup("b")],
                         controller_ref=("batch", "Job", "j"))
    assert object_to_manifest(w) == manifest
    with pytest.raises(ManifestError, match=r"spec\.podGroups\[0\]\.policy: exactly one of basic and gang"):
        object_from_manifest({**manifest, "spec": {"podGroups": [{"name": "g", "policy": {}}]}})
    with pytest.raises(ManifestError, match=r"minCount: must be greater than 0"):
        object_from_manifest({**manifest, "spec": {"podGroups": [
            {"name": "g", "policy": {"gang": {"minCount": 0}}}]}})
    pod = object_from_manifest({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "p"},
                                "spec": {"workloadRef": {"name": "w", "podGroup": "g"},
                                         "containers": [{"name": "c"}]}})
    assert isinstance(pod, Pod)
    assert pod.workload_ref == WorkloadReference("w", "g")
