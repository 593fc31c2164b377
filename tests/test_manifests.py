"""Kubernetes manifests <-> api objects: reading, writing, load_manifests and error messages."""

from __future__ import annotations

import copy
import datetime as dt
import json
import pathlib
import sys
import warnings
from collections.abc import Callable
from typing import Any

import attrs
import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import ManifestError, Namespace, Node, Pod, SchedframeError, SchedframeWarning
from schedframe.api import (
    Affinity,
    Container,
    ContainerImage,
    ContainerPort,
    CronJob,
    DaemonSet,
    Deployment,
    Job,
    LabelSelector,
    LabelSelectorRequirement,
    NodeAffinity,
    NodeCondition,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
    PodAffinity,
    PodAffinityTerm,
    PodAntiAffinity,
    PodCondition,
    PodDisruptionBudget,
    PreferredSchedulingTerm,
    PriorityClass,
    Quantity,
    ReplicaSet,
    ReplicationController,
    Resources,
    Service,
    StatefulSet,
    Taint,
    Toleration,
    TopologySpreadConstraint,
    WeightedPodAffinityTerm,
)
from schedframe.api.manifests import (
    SUPPORTED_KINDS,
    ApiObject,
    load_manifests,
    namespace_from_manifest,
    node_from_manifest,
    object_from_manifest,
    object_to_manifest,
    pod_from_manifest,
)

DATA = pathlib.Path(__file__).parent / "data"
CLUSTER = DATA / "cluster.yaml"
OBJECTS = DATA / "objects.yaml"
MI = 1024 * 1024
#: The smallest spec the API server accepts: one container.
ONE_CONTAINER: dict[str, Any] = {"containers": [{"name": "c"}]}
GI = 1024 * MI


def ts(text: str) -> float:
    """Seconds since the epoch of an ISO timestamp."""
    return dt.datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


@pytest.fixture(scope="module")
def cluster() -> list[ApiObject]:
    return load_manifests(CLUSTER)


@pytest.fixture(scope="module")
def cluster_raw() -> dict[str, Any]:
    doc = yaml.safe_load(CLUSTER.read_text())
    assert isinstance(doc, dict)
    return doc


def by_name(objs: list[ApiObject], name: str) -> Any:
    (found,) = [o for o in objs if o.name == name]
    return found


# --------------------------------------------------------------------------------------------
# The kubectl-style fixture


def test_cluster_fixture_kinds(cluster: list[ApiObject]) -> None:
    """A `kubectl get nodes,pods -A -o yaml` List yields its nodes and pods in order."""
    assert [type(o).__name__ for o in cluster] == ["Node"] * 4 + ["Pod"] * 8
    assert [o.name for o in cluster[:4]] == ["cp-1", "worker-a", "worker-b", "gpu-c"]


def test_cluster_nodes(cluster: list[ApiObject]) -> None:
    """Node labels, taints (with timeAdded), unschedulable, capacity, allocatable, images, conditions."""
    cp = by_name(cluster, "cp-1")
    assert cp.uid == "5b1f0c1e-6a3c-4d0e-9c54-0f6d1d1a2b01"
    assert cp.labels["topology.kubernetes.io/zone"] == "eu-west-1a"
    assert cp.labels["node-role.kubernetes.io/control-plane"] == ""
    assert cp.annotations["node.alpha.kubernetes.io/ttl"] == "0"
    assert cp.taints == (Taint("node-role.kubernetes.io/control-plane", "NoSchedule"),)
    assert cp.allocatable_resources == Resources(
        milli_cpu=2000,
        memory=3880324 * 1024,
        ephemeral_storage=47233297124,
        pods=110,
        scalar={"hugepages-1Gi": 0, "hugepages-2Mi": 0},
    )
    assert cp.images[1] == ContainerImage(("registry.k8s.io/kube-apiserver:v1.30.0",), 32663599)
    assert cp.conditions == (
        NodeCondition("MemoryPressure", "False", ts("2024-05-10T08:00:01Z"), ts("2024-03-01T09:12:40Z")),
        NodeCondition("Ready", "True", ts("2024-05-10T08:00:01Z"), ts("2024-03-01T09:13:10Z")),
    )
    b = by_name(cluster, "worker-b")
    assert b.unschedulable
    assert b.taints == (
        Taint("node.kubernetes.io/unreachable", "NoExecute", time_added=ts("2024-05-10T07:58:31Z")),
        Taint("node.kubernetes.io/unreachable", "NoSchedule", time_added=ts("2024-05-10T07:58:26Z")),
    )
    gpu = by_name(cluster, "gpu-c")
    assert gpu.taints == (Taint("nvidia.com/gpu", "NoSchedule", "present"),)
    assert gpu.allocatable_resources.scalar["nvidia.com/gpu"] == 1
    assert gpu.allocatable_resources.milli_cpu == 7910


def test_cluster_node_equals_hand_built(cluster: list[ApiObject]) -> None:
    """A whole node compares equal to the same node built by hand."""
    assert by_name(cluster, "gpu-c") == Node(
        name="gpu-c",
        uid="5b1f0c1e-6a3c-4d0e-9c54-0f6d1d1a2b04",
        labels={
            "kubernetes.io/arch": "amd64",
            "kubernetes.io/hostname": "gpu-c",
            "kubernetes.io/os": "linux",
            "node.kubernetes.io/instance-type": "p3.2xlarge",
            "nvidia.com/gpu.product": "Tesla-V100-SXM2-16GB",
            "topology.kubernetes.io/region": "eu-west-1",
            "topology.kubernetes.io/zone": "eu-west-1c",
        },
        taints=[Taint("nvidia.com/gpu", "NoSchedule", "present")],
        capacity={
            "cpu": "8",
            "ephemeral-storage": "100Gi",
            "memory": "61Gi",
            "nvidia.com/gpu": "1",
            "pods": "58",
        },
        allocatable={
            "cpu": "7910m",
            "ephemeral-storage": "95Gi",
            "memory": "59Gi",
            "nvidia.com/gpu": "1",
            "pods": "58",
        },
        images=[ContainerImage(("nvcr.io/nvidia/pytorch:24.04-py3",), 9876543210)],
        conditions=[NodeCondition("Ready", "True")],
    )


def test_cluster_coredns(cluster: list[ApiObject]) -> None:
    """Metadata, owner references, priority, tolerations, anti-affinity, ports and status."""
    p = by_name(cluster, "coredns-7db6d8ff4d-x2k9p")
    assert (p.namespace, p.uid) == ("kube-system", "7e8f9a0b-1111-4222-8333-000000000001")
    assert p.creation_timestamp == ts("2024-03-01T09:13:20Z")
    assert p.owner_references == (
        OwnerReference(
            "ReplicaSet", "coredns-7db6d8ff4d", "0c1d2e3f-aaaa-4bbb-8ccc-000000000001", "apps/v1", True
        ),
    )
    assert (p.priority, p.priority_class_name, p.preemption_policy) == (
        2000000000,
        "system-cluster-critical",
        "PreemptLowerPriority",
    )
    assert p.node_name == "cp-1"
    assert p.node_selector == {"kubernetes.io/os": "linux"}
    assert p.tolerations == (
        Toleration("CriticalAddonsOnly", "Exists"),
        Toleration("node-role.kubernetes.io/control-plane", "Equal", effect="NoSchedule"),
        Toleration("node.kubernetes.io/not-ready", "Exists", effect="NoExecute", toleration_seconds=300),
        Toleration("node.kubernetes.io/unreachable", "Exists", effect="NoExecute", toleration_seconds=300),
    )
    assert p.affinity == Affinity(
        pod_anti_affinity=PodAntiAffinity(
            preferred=[
                WeightedPodAffinityTerm(
                    100,
                    PodAffinityTerm(
                        "kubernetes.io/hostname",
                        LabelSelector(
                            match_expressions=[LabelSelectorRequirement("k8s-app", "In", ("kube-dns",))]
                        ),
                    ),
                )
            ]
        )
    )
    (container,) = p.containers
    assert container.ports == (
        ContainerPort(53, protocol="UDP", name="dns"),
        ContainerPort(53, protocol="TCP", name="dns-tcp"),
        ContainerPort(9153, name="metrics"),
    )
    assert container.limits == {"memory": Quantity.parse("170Mi")}
    assert p.requests == Resources(milli_cpu=100, memory=70 * MI)
    assert (p.phase, p.start_time) == ("Running", ts("2024-03-01T09:13:20Z"))
    assert p.conditions == (
        PodCondition("PodScheduled", "True", last_transition_time=ts("2024-03-01T09:13:20Z")),
        PodCondition("Ready", "True", last_transition_time=ts("2024-03-01T09:13:31Z")),
    )


def test_cluster_daemonset_pod(cluster: list[ApiObject]) -> None:
    """A DaemonSet pod's matchFields affinity and catch-all toleration."""
    p = by_name(cluster, "kube-proxy-8hq2w")
    assert p.affinity == Affinity(
        node_affinity=NodeAffinity(
            required=NodeSelector(
                [
                    NodeSelectorTerm(
                        match_fields=[NodeSelectorRequirement("metadata.name", "In", ("worker-a",))]
                    )
                ]
            )
        )
    )
    assert p.tolerations[0] == Toleration(operator="Exists")
    assert p.tolerations[0].tolerates(Taint("anything", "NoExecute"))
    assert (p.non_zero_milli_cpu, p.non_zero_memory) == (100, 200 * MI)


def test_cluster_spread_constraints(cluster: list[ApiObject], cluster_raw: dict[str, Any]) -> None:
    """Every topologySpreadConstraints field, and required anti-affinity; written back unchanged."""
    p = by_name(cluster, "web-0")
    app_web = LabelSelector({"app": "web"})
    assert p.topology_spread_constraints == (
        TopologySpreadConstraint(
            1,
            "topology.kubernetes.io/zone",
            "DoNotSchedule",
            app_web,
            min_domains=3,
            node_affinity_policy="Honor",
            node_taints_policy="Ignore",
            match_label_keys=("controller-revision-hash",),
        ),
        TopologySpreadConstraint(2, "kubernetes.io/hostname", "ScheduleAnyway", app_web),
    )
    assert p.affinity.pod_anti_affinity.required == (PodAffinityTerm("kubernetes.io/hostname", app_web),)
    raw = next(i for i in cluster_raw["items"] if i["metadata"]["name"] == "web-0")
    assert p.to_manifest()["spec"]["topologySpreadConstraints"] == raw["spec"]["topologySpreadConstraints"]
    assert p.to_manifest()["spec"]["affinity"] == raw["spec"]["affinity"]


def test_cluster_sidecar_pod(cluster: list[ApiObject]) -> None:
    """Init containers, a restartable sidecar, host ports; requests follow the sidecar formula."""
    p = by_name(cluster, "checkout-5f7c9d6b4-q7zrt")
    assert p.creation_timestamp == ts("2024-04-11T14:02:41.523Z")
    assert [c.restart_policy for c in p.init_containers] == [None, "Always"]
    assert [hp.host_port for hp in p.host_ports()] == [8080]
    # containers 500m + sidecar 100m = 600m, but istio-init alone needs 1 cpu
    assert p.requests == Resources(milli_cpu=1000, memory=640 * MI)
    assert p.priority == 0


def test_cluster_pending_pod(cluster: list[ApiObject], cluster_raw: dict[str, Any]) -> None:
    """Node and pod affinity with every term field, nominatedNodeName, an Unschedulable condition."""
    p = by_name(cluster, "payments-7d9f8b-abcde")
    na = p.affinity.node_affinity
    assert na.preferred == (
        PreferredSchedulingTerm(
            20,
            NodeSelectorTerm(
                [
                    NodeSelectorRequirement(
                        "node.kubernetes.io/instance-type", "In", ("m5.xlarge", "m5.2xlarge")
                    )
                ]
            ),
        ),
    )
    assert na.required.terms[0].match_expressions[1] == NodeSelectorRequirement(
        "node-role.kubernetes.io/control-plane", "DoesNotExist"
    )
    (term,) = p.affinity.pod_affinity.required
    assert term == PodAffinityTerm(
        "topology.kubernetes.io/zone",
        LabelSelector(match_expressions=[LabelSelectorRequirement("app", "In", ("checkout",))]),
        namespace_selector=LabelSelector(),
        match_label_keys=("pod-template-hash",),
        mismatch_label_keys=("tenant",),
    )
    assert (p.phase, p.nominated_node_name) == ("Pending", "worker-a")
    (cond,) = p.conditions
    assert (cond.type, cond.status, cond.reason) == ("PodScheduled", "False", "Unschedulable")
    assert cond.message.startswith("0/4 nodes are available")
    raw = next(i for i in cluster_raw["items"] if i["metadata"]["name"] == "payments-7d9f8b-abcde")
    assert p.to_manifest()["spec"]["affinity"] == raw["spec"]["affinity"]


def test_cluster_pod_level_resources(cluster: list[ApiObject]) -> None:
    """Pod-level requests and limits, overhead, extended resources, preemptionPolicy Never."""
    p = by_name(cluster, "train-0-xk2lp")
    assert p.resources == {"cpu": Quantity.parse("5"), "memory": Quantity.parse("28Gi")}
    assert p.resource_limits == {"cpu": Quantity.parse("6"), "memory": Quantity.parse("32Gi")}
    assert p.overhead == {"cpu": Quantity.parse("250m"), "memory": Quantity.parse("120Mi")}
    assert p.requests == Resources(milli_cpu=5250, memory=28 * GI + 120 * MI, scalar={"nvidia.com/gpu": 1})
    assert (p.non_zero_milli_cpu, p.non_zero_memory) == (5250, 28 * GI + 120 * MI)
    assert (p.priority, p.preemption_policy) == (500, "Never")
    assert p.tolerations == (Toleration("nvidia.com/gpu", "Equal", "present", "NoSchedule"),)


def test_cluster_gated_and_terminating_pods(cluster: list[ApiObject]) -> None:
    """Scheduling gates, another scheduler, explicit zero requests, a deletion timestamp."""
    gated = by_name(cluster, "gated")
    assert gated.scheduling_gates == ("example.com/quota", "example.com/capacity")
    assert gated.scheduler_name == "my-scheduler"
    assert (gated.non_zero_milli_cpu, gated.non_zero_memory) == (0, 200 * MI)
    terminating = by_name(cluster, "web-1")
    assert terminating.deletion_timestamp == ts("2024-05-10T08:05:00Z")
    assert terminating.is_terminating()


def test_cluster_round_trip(cluster: list[ApiObject]) -> None:
    """Every object read from the fixture survives to_manifest / from_manifest unchanged."""
    for obj in cluster:
        assert isinstance(obj, (Pod, Node))
        assert type(obj).from_manifest(obj.to_manifest()) == obj
        assert object_from_manifest(object_to_manifest(obj)) == obj


def test_cluster_as_json(cluster: list[ApiObject], cluster_raw: dict[str, Any]) -> None:
    """The same List as JSON (`-o json`) reads the same objects, as text, bytes or file."""
    text = json.dumps(cluster_raw, indent=2)
    assert load_manifests(text) == cluster
    assert load_manifests(text.encode()) == cluster


def test_json_without_pyyaml(
    monkeypatch: pytest.MonkeyPatch, cluster: list[ApiObject], cluster_raw: dict[str, Any]
) -> None:
    """JSON needs no PyYAML; YAML without it asks for the extra."""
    monkeypatch.setitem(sys.modules, "yaml", None)
    assert load_manifests(json.dumps(cluster_raw)) == cluster
    with pytest.raises(
        ManifestError,
        match=r"^reading YAML in .*cluster\.yaml needs PyYAML: "
        r"pip install 'schedframe\[yaml\]' \(or give JSON\)$",
    ):
        load_manifests(CLUSTER)
    with pytest.raises(ManifestError, match=r"^reading YAML needs PyYAML"):
        load_manifests("kind: Pod\nmetadata: {name: x}\n")
    with pytest.raises(ManifestError, match=r"^invalid JSON: Expecting"):
        load_manifests('{"kind": "Pod",\n')


def load_objects(**kw: Any) -> list[ApiObject]:
    """tests/data/objects.yaml, expecting the warning about its ConfigMap."""
    with pytest.warns(SchedframeWarning, match=r"kinds schedframe does not use: ConfigMap \(strict=True"):
        return load_manifests(OBJECTS, **kw)


def _tpl(app: str, image: str, name: str, **labels: str) -> Pod:
    return Pod("", labels={"app": app, **labels}, containers=[Container(name, image)])


def test_objects_fixture() -> None:
    """Multi-document YAML with every other kind; the ConfigMap is reported and skipped."""
    objs = load_objects(expand_workloads=False)
    checkout = _tpl("checkout", "ghcr.io/example/checkout:2.3.1", "checkout")
    assert objs == [
        Namespace("shop", {"kubernetes.io/metadata.name": "shop", "team": "payments"}),
        PriorityClass("shop-high", 1000),
        PriorityClass("batch-low", -10, preemption_policy="Never"),
        PodDisruptionBudget(
            "web",
            "default",
            LabelSelector({"app": "web"}),
            max_unavailable="25%",
            disruptions_allowed=1,
            disrupted_pods={"web-1"},
        ),
        Service("checkout", "shop", {"app": "checkout"}),
        Deployment("checkout", "shop", LabelSelector({"app": "checkout"}), 3, checkout),
        ReplicaSet(
            "checkout-5f7c9d6b4",
            "shop",
            LabelSelector({"app": "checkout", "pod-template-hash": "5f7c9d6b4"}),
            3, attrs.evolve(checkout, labels={**checkout.labels, "pod-template-hash": "5f7c9d6b4"}),
            owner_references=[OwnerReference("Deployment", "checkout", "", "apps/v1", True)],
        ),
        StatefulSet(
            "web",
            "default",
            LabelSelector(match_expressions=[LabelSelectorRequirement("app", "In", ("web",))]),
            2, _tpl("web", "registry.k8s.io/nginx-slim:0.24", "nginx"),
        ),
        ReplicationController("legacy", "default", {"app": "legacy"}, 0, _tpl("legacy", "nginx", "legacy")),
    ]
    for obj in objs:
        assert object_from_manifest(object_to_manifest(obj)) == obj


def test_objects_fixture_expanded() -> None:
    """Expanded, the Deployment's ReplicaSet (in the input) makes 3 pods, the StatefulSet 2,
    the RC with 0 replicas none, and the Deployment no second ReplicaSet."""
    objs = load_objects()
    pods = [o for o in objs if isinstance(o, Pod)]
    assert [p.name for p in pods[3:]] == ["web-0", "web-1"]
    assert all(p.name.startswith("checkout-5f7c9d6b4-") and len(p.name) == len("checkout-5f7c9d6b4-") + 5
               for p in pods[:3])
    assert [type(o).__name__ for o in objs].count("ReplicaSet") == 1
    assert objs == load_objects()  # the same seed, the same names


def test_objects_fixture_strict() -> None:
    """With strict=True an unused kind is an error naming it and its document."""
    with pytest.raises(ManifestError, match=r"^documents\[9\]\.kind: unsupported kind 'ConfigMap'.*strict"):
        load_manifests(OBJECTS, strict=True)


# --------------------------------------------------------------------------------------------
# Sources


def test_sources(tmp_path: pathlib.Path, cluster: list[ApiObject]) -> None:
    """A Path, a directory (name order, .yaml/.yml/.json only), or the text itself (str or bytes)."""
    assert load_manifests(CLUSTER.read_text()) == cluster
    assert load_manifests(CLUSTER.read_bytes()) == cluster
    (tmp_path / "b.yml").write_text(OBJECTS.read_text())
    (tmp_path / "a.json").write_text(json.dumps({"kind": "Namespace", "metadata": {"name": "x"}}))
    (tmp_path / "notes.txt").write_text("not a manifest")
    with pytest.warns(SchedframeWarning):
        got = load_manifests(tmp_path)
    assert got[0] == Namespace("x")
    assert got[1:] == load_objects()


@pytest.mark.parametrize(
    ("text", "want"),
    [
        pytest.param("", [], id="empty text"),
        pytest.param("---\n---\n", [], id="empty documents"),
        pytest.param("# comment only\n", [], id="comment only"),
        pytest.param(
            '{"kind":"Namespace","metadata":{"name":"a"}}{"kind":"Namespace","metadata":{"name":"b"}}',
            [Namespace("a"), Namespace("b")],
            id="concatenated JSON objects",
        ),
        pytest.param('[{"kind":"Namespace","metadata":{"name":"a"}}]', [Namespace("a")], id="JSON array"),
        pytest.param("{kind: Namespace, metadata: {name: a}}", [Namespace("a")], id="YAML flow mapping"),
        pytest.param(
            "kind: PodList\napiVersion: v1\nitems:\n- metadata: {name: p}\n"
            "  spec: {containers: [{name: c}]}\n",
            [Pod("p", containers=[Container("c")])],
            id="typed list items without kind",
        ),
        pytest.param("kind: NodeList\nitems:\n- metadata: {name: n}\n", [Node("n")], id="NodeList"),
        pytest.param(
            "kind: List\nitems:\n- kind: List\n  items:\n  - kind: Namespace\n    metadata: {name: a}\n",
            [Namespace("a")],
            id="nested List",
        ),
        pytest.param("kind: List\nitems: null\n", [], id="List without items"),
        pytest.param(
            "kind: StatefulSetList\napiVersion: apps/v1\nitems:\n- metadata: {name: d}\n"
            "  spec: {replicas: 0, template: {spec: {containers: [{name: c}]}}}\n",
            [StatefulSet("d", replicas=0, template=Pod("", containers=[Container("c")]))],
            id="list of a workload kind",
        ),
        pytest.param(
            "kind: Pod\nmetadata: {name: p}\nspec: {containers: [{name: c}]}\n"
            "---\nkind: Node\nmetadata: {name: n}\n",
            [Pod("p", containers=[Container("c")]), Node("n")],
            id="multi-document",
        ),
    ],
)
def test_load_manifests_shapes(text: str, want: list[ApiObject]) -> None:
    """Empty input, JSON streams and arrays, flow YAML, typed and nested Lists."""
    assert load_manifests(text) == want


@pytest.mark.parametrize(
    ("source", "match"),
    [
        pytest.param(
            DATA / "missing.yaml", r"cannot read '.*missing\.yaml': No such file", id="missing file"
        ),
        pytest.param(
            str(DATA / "cluster.yaml"),
            r"is not a manifest; a str is always manifest text: pass pathlib\.Path\('.*cluster\.yaml'\) "
            "to read a file",
            id="str naming an existing file",
        ),
        pytest.param("kind: Pod", r"^documents\[0\]\.metadata\.name: required", id="one-line text is text"),
        pytest.param(b"\xff\xfe", "not UTF-8", id="bytes that are not UTF-8"),
        pytest.param(
            "kind: Pod\n  metadata: [\n", r"invalid YAML at line 2, column 11", id="YAML syntax error"
        ),
        pytest.param(
            "- 1\n- 2\n",
            r"^documents\[0\]: expected a Kubernetes object \(a mapping\), got a list",
            id="document that is not a mapping",
        ),
        pytest.param("metadata: {name: x}\n", r"^documents\[0\]\.kind: required", id="missing kind"),
        pytest.param("kind: 5\n", r"^documents\[0\]\.kind: expected a string, got 5", id="kind not a string"),
        pytest.param(
            "kind: List\nitems: {}\n",
            r"^documents\[0\]\.items: expected a list, got a mapping",
            id="List items not a list",
        ),
        pytest.param(
            "kind: pod\nmetadata: {name: x}\n", "unsupported kind 'pod'; did you mean 'Pod'", id="kind case"
        ),
        pytest.param("kind: Nodes\n", "unsupported kind 'Nodes'; did you mean 'Node'", id="kind plural"),
        pytest.param(
            "kind: PodList\nitems:\n- metadata: {name: a}\n  spec: {containers: [{name: c}]}\n"
            "- metadata: {}\n",
            r"^documents\[0\]\.items\[1\]\.metadata\.name: required \(in Pod\)$",
            id="error inside a list",
        ),
        pytest.param(
            "---\nkind: Pod\nmetadata: {name: x, namespace: shop}\nspec: {priority: high}\n",
            r"^documents\[0\]\.spec\.priority: expected an integer, got 'high' \(in Pod shop/x\)$",
            id="error names the object",
        ),
        pytest.param(
            "kind: Node\nmetadata: {name: n}\nspec: {taints: [{key: k}]}\n",
            r"^documents\[0\]\.spec\.taints\[0\]\.effect: required \(in Node n\)$",
            id="cluster-scoped",
        ),
        pytest.param(
            "kind: Pod\napiVersion: apps/v1\nmetadata: {name: x}\n",
            r"^documents\[0\]\.apiVersion: expected 'v1' for a Pod, got 'apps/v1'",
            id="wrong apiVersion",
        ),
        pytest.param(
            "kind: PodDisruptionBudget\napiVersion: policy/v1alpha1\nmetadata: {name: x}\n",
            "expected 'policy/v1' for a PodDisruptionBudget, got 'policy/v1alpha1'",
            id="unknown PDB version (policy/v1beta1 is read with a warning)",
        ),
    ],
)
def test_load_manifests_errors(source: Any, match: str) -> None:
    """Unreadable input and bad documents raise one ManifestError with the document path."""
    with pytest.raises(ManifestError, match=match):
        load_manifests(source)


def test_load_manifests_error_names_the_object() -> None:
    """An error inside a List names the object it is in."""
    text = CLUSTER.read_text().replace("priority: 2000000000", 'priority: "2e9"')
    with pytest.raises(ManifestError, match=r"got '2e9' \(in Pod kube-system/coredns-7db6d8ff4d-x2k9p\)"):
        load_manifests(text)


def test_load_manifests_error_in_file(tmp_path: pathlib.Path) -> None:
    """An error inside a file's document mentions that file."""
    f = tmp_path / "bad.yaml"
    f.write_text("kind: Pod\nmetadata: {name: x}\nspec: {nodeName: [a]}\n")
    with pytest.raises(
        ManifestError,
        match=r"spec\.nodeName: expected a string, got a list \(in Pod default/x "
        r"from .*bad\.yaml\)",
    ):
        load_manifests(f)


# --------------------------------------------------------------------------------------------
# Reading single objects: defaults, nulls, tolerances


def test_pod_defaults() -> None:
    """A minimal pod gets the API defaults: namespace, schedulerName, phase, derived uid."""
    p = pod_from_manifest({"metadata": {"name": "web"}, "spec": {"containers": [{"name": "c"}]}})
    assert p == Pod("web", containers=[Container("c")])
    assert (p.namespace, p.scheduler_name, p.phase) == ("default", "default-scheduler", "Pending")
    assert p.to_manifest() == {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {"schedulerName": "default-scheduler", "containers": [{"name": "c"}]},
        "status": {"phase": "Pending"},
    }


def test_nulls_read_as_absent() -> None:
    """JSON nulls (kubectl prints creationTimestamp: null) read as absent fields."""
    p = pod_from_manifest(
        {
            "apiVersion": None,
            "kind": "Pod",
            "metadata": {"name": "x", "namespace": None, "creationTimestamp": None, "labels": None},
            "spec": {
                "containers": [{"name": "c", "resources": {"requests": None}, "ports": None}],
                "affinity": None,
                "priority": None,
                "schedulerName": None,
                "tolerations": None,
            },
            "status": None,
        }
    )
    assert p == Pod("x", containers=[Container("c")])


def test_empty_strings_get_defaults() -> None:
    """Empty namespace, schedulerName, phase and protocol read as their defaults."""
    p = pod_from_manifest(
        {
            "metadata": {"name": "x", "namespace": ""},
            "spec": {
                "schedulerName": "",
                "containers": [{"name": "c", "ports": [{"containerPort": 1, "protocol": ""}]}],
            },
            "status": {"phase": ""},
        }
    )
    assert (p.namespace, p.scheduler_name, p.phase) == ("default", "default-scheduler", "Pending")
    assert p.containers[0].ports[0].protocol == "TCP"


def test_unknown_fields_ignored() -> None:
    """Fields schedframe does not model are ignored, at every level."""
    p = pod_from_manifest(
        {
            "metadata": {"name": "x", "finalizers": ["a"], "resourceVersion": "1"},
            "spec": {"dnsPolicy": "ClusterFirst", "containers": [{"name": "c", "env": [{"a": 1}]}]},
            "status": {"podIP": "10.0.0.1"},
            "whatever": {"x": 1},
        }
    )
    assert p == Pod("x", containers=[Container("c")])


@pytest.mark.parametrize(
    ("value", "want"),
    [
        pytest.param("500m", Quantity.parse("500m"), id="string"),
        pytest.param(" 1 ", Quantity.parse("1"), id="surrounding spaces (as UnmarshalJSON)"),
        pytest.param(2, Quantity.parse("2"), id="YAML integer"),
        pytest.param(0.5, Quantity.parse("500m"), id="YAML float"),
        pytest.param(1e3, Quantity.parse("1k"), id="YAML float with exponent"),
        pytest.param("0", Quantity.parse("0"), id="explicit zero"),
    ],
)
def test_quantity_values(value: Any, want: Quantity) -> None:
    """Quantities may be strings or JSON numbers; they keep their text."""
    p = pod_from_manifest(
        {
            "metadata": {"name": "x"},
            "spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": value}}}]},
        }
    )
    q = p.containers[0].requests["cpu"]
    assert q == want
    assert p.to_manifest()["spec"]["containers"][0]["resources"]["requests"]["cpu"] == str(q)


@pytest.mark.parametrize(
    ("value", "want"),
    [
        pytest.param("2024-05-01T12:00:00Z", ts("2024-05-01T12:00:00Z"), id="UTC"),
        pytest.param("2024-05-01t12:00:00z", ts("2024-05-01T12:00:00Z"), id="lowercase"),
        pytest.param("2024-05-01 12:00:00Z", ts("2024-05-01T12:00:00Z"), id="space separator"),
        pytest.param("2024-05-01T14:00:00+02:00", ts("2024-05-01T12:00:00Z"), id="offset"),
        pytest.param("2024-05-01T11:30:00-00:30", ts("2024-05-01T12:00:00Z"), id="negative offset"),
        pytest.param("2024-05-01T12:00:00.25Z", ts("2024-05-01T12:00:00Z") + 0.25, id="fraction"),
        pytest.param("1970-01-01T00:00:00.000000001Z", 1e-9, id="nanoseconds"),
        pytest.param("1969-12-31T23:59:59.5Z", -0.5, id="before the epoch"),
        pytest.param(
            dt.datetime(2024, 5, 1, 12, tzinfo=dt.timezone.utc),
            ts("2024-05-01T12:00:00Z"),
            id="YAML timestamp",
        ),
        pytest.param(
            dt.datetime(2024, 5, 1, 12, 0, 0, 250000),
            ts("2024-05-01T12:00:00Z") + 0.25,
            id="naive YAML timestamp is UTC",
        ),
    ],
)
def test_timestamps(value: Any, want: float) -> None:
    """RFC 3339 strings (and YAML timestamps) read as seconds since the epoch."""
    assert (
        pod_from_manifest({"metadata": {"name": "x", "creationTimestamp": value}, "spec": ONE_CONTAINER})
        .creation_timestamp == want
    )


def test_unquoted_yaml_timestamp() -> None:
    """An unquoted timestamp (PyYAML makes it a datetime) reads the same as a quoted one."""
    (p,) = load_manifests("kind: Pod\nmetadata:\n  name: x\n  creationTimestamp: 2024-05-01T12:00:00Z\n"
                          "spec: {containers: [{name: c}]}\n")
    assert isinstance(p, Pod)
    assert p.creation_timestamp == ts("2024-05-01T12:00:00Z")


@pytest.mark.parametrize(
    ("value", "text"),
    [
        pytest.param(0.0, "1970-01-01T00:00:00Z", id="epoch"),
        pytest.param(ts("2024-05-01T12:00:00Z"), "2024-05-01T12:00:00Z", id="whole seconds"),
        pytest.param(ts("2024-05-01T12:00:00Z") + 0.25, "2024-05-01T12:00:00.25Z", id="fraction"),
        pytest.param(-0.5, "1969-12-31T23:59:59.5Z", id="before the epoch"),
        pytest.param(1e-9, "1970-01-01T00:00:00.000000001Z", id="nano"),
        pytest.param(1717171717.123456789, "2024-05-31T16:08:37.1234567Z", id="float precision"),
    ],
)
def test_timestamp_writing(value: float, text: str) -> None:
    """Timestamps are written as UTC RFC 3339, with just the fraction digits needed."""
    m = Pod("x", creation_timestamp=value, containers=[Container("c")]).to_manifest()
    assert m["metadata"]["creationTimestamp"] == text
    assert pod_from_manifest(m).creation_timestamp == value


@given(st.floats(min_value=-2e9, max_value=2e11, allow_nan=False, allow_infinity=False))
def test_timestamp_round_trip(value: float) -> None:
    """Any float timestamp in range is written and read back exactly."""
    m = Pod("x", start_time=value, containers=[Container("c")]).to_manifest()
    assert pod_from_manifest(m).start_time == value


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(1e20, id="too large"),
        pytest.param(float("inf"), id="inf"),
        pytest.param(float("nan"), id="nan"),
        pytest.param("2024", id="not a number"),
    ],
)
def test_timestamp_out_of_range(value: Any) -> None:
    """A timestamp that cannot be RFC 3339 raises ManifestError on writing."""
    with pytest.raises(ManifestError, match=r"^status\.startTime: "):
        Pod("x", start_time=value).to_manifest()


def test_pod_uid_written_only_when_not_derived() -> None:
    """A derived uid is omitted from the manifest; an explicit one is kept."""
    assert "uid" not in Pod("x").to_manifest()["metadata"]
    assert Pod("x", uid="abc").to_manifest()["metadata"]["uid"] == "abc"
    assert "uid" not in Node("n").to_manifest()["metadata"]
    assert Node("n", uid="u").to_manifest()["metadata"]["uid"] == "u"


def test_toleration_operator_spellings() -> None:
    """An absent operator reads as Equal; an explicit empty one is kept (and means Equal)."""
    p = pod_from_manifest(
        {"metadata": {"name": "x"}, "spec": {"tolerations": [{"key": "a"}, {"key": "b", "operator": ""}],
                                             **ONE_CONTAINER}}
    )
    assert [t.operator for t in p.tolerations] == ["Equal", ""]
    assert pod_from_manifest(p.to_manifest()) == p


def test_manifest_input_not_mutated() -> None:
    """Reading never mutates the input manifest."""
    raw = yaml.safe_load(CLUSTER.read_text())
    before = copy.deepcopy(raw)
    load_manifests(json.dumps(raw))
    object_from_manifest(raw["items"][4])
    assert raw == before


@pytest.mark.parametrize(
    ("reader", "manifest", "want"),
    [
        pytest.param(
            node_from_manifest,
            {"metadata": {"name": "n", "namespace": "ignored"}},
            Node("n"),
            id="node ignores namespace",
        ),
        pytest.param(
            namespace_from_manifest,
            {"kind": "Namespace", "metadata": {"name": "ns"}},
            Namespace("ns"),
            id="namespace",
        ),
        pytest.param(
            Pod.from_manifest,
            {"kind": "Pod", "apiVersion": "v1", "metadata": {"name": "p"}, "spec": ONE_CONTAINER},
            Pod("p", containers=[Container("c")]),
            id="Pod.from_manifest",
        ),
        pytest.param(
            PodDisruptionBudget.from_manifest,
            {"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {"minAvailable": 2}},
            PodDisruptionBudget("b", min_available=2),
            id="PodDisruptionBudget.from_manifest",
        ),
    ],
)
def test_readers(reader: Callable[[Any], Any], manifest: dict[str, Any], want: Any) -> None:
    """Each reader builds the expected object."""
    assert reader(manifest) == want


def test_supported_kinds() -> None:
    """SUPPORTED_KINDS lists the kinds with their apiVersion."""
    assert "v1 Pod" in SUPPORTED_KINDS
    assert "policy/v1 PodDisruptionBudget" in SUPPORTED_KINDS
    assert "scheduling.k8s.io/v1 PriorityClass" in SUPPORTED_KINDS


# --------------------------------------------------------------------------------------------
# Error messages for bad fields


def pod_with(spec: dict[str, Any] | None = None, **top: Any) -> dict[str, Any]:
    """A Pod manifest with *spec* and other top-level fields (``spec_`` sets a non-dict spec)."""
    out: dict[str, Any] = {"kind": "Pod", "metadata": {"name": "x"}}
    if spec is not None:
        out["spec"] = spec
    if "spec_" in top:
        out["spec"] = top.pop("spec_")
    out.update(top)
    return out


BAD_PODS = [
    pytest.param({"metadata": {}}, r"^metadata\.name: required$", id="name missing"),
    pytest.param(
        {"metadata": {"generateName": "web-"}},
        r"^metadata\.name: required \(generateName is not",
        id="generateName",
    ),
    pytest.param(
        {"metadata": {"name": 5}},
        r"^metadata\.name: expected a string, got 5 \(quote it in YAML\)$",
        id="name not a string",
    ),
    pytest.param({"metadata": []}, r"^metadata: expected a mapping, got a list$", id="metadata a list"),
    pytest.param(
        {"metadata": {"name": "x", "labels": {"v": 1.0}}},
        r"^metadata\.labels\.v: expected a string, got 1\.0 \(quote it in YAML\)$",
        id="label value number",
    ),
    pytest.param(
        {"metadata": {"name": "x", "labels": {"a.io/v": True}}},
        r"^metadata\.labels\[a\.io/v\]: expected a string, got true",
        id="label value bool",
    ),
    pytest.param(
        {"metadata": {"name": "x", "labels": {True: "on"}}},
        r"^metadata\.labels: keys must be strings, got true",
        id="label key bool",
    ),
    pytest.param(
        {"metadata": {"name": "x", "annotations": ["a"]}},
        r"^metadata\.annotations: expected a mapping, got a list",
        id="annotations a list",
    ),
    pytest.param(
        {"metadata": {"name": "x", "creationTimestamp": "yesterday"}},
        r"^metadata\.creationTimestamp: expected an RFC 3339 timestamp .* got 'yesterday'$",
        id="timestamp text",
    ),
    pytest.param(
        {"metadata": {"name": "x", "creationTimestamp": "2024-13-01T00:00:00Z"}},
        r"^metadata\.creationTimestamp: '2024-13-01T00:00:00Z' is not a valid RFC 3339 timestamp",
        id="timestamp month 13",
    ),
    pytest.param(
        {"metadata": {"name": "x", "deletionTimestamp": 1700000000}},
        r"^metadata\.deletionTimestamp: expected an RFC 3339 timestamp",
        id="timestamp number",
    ),
    pytest.param(
        {"metadata": {"name": "x", "creationTimestamp": dt.date(2024, 1, 1)}},
        r"got date 2024-01-01",
        id="timestamp date only",
    ),
    pytest.param(
        {"metadata": {"name": "x", "ownerReferences": [{"name": "rs"}]}},
        r"^metadata\.ownerReferences\[0\]\.kind: required$",
        id="owner kind missing",
    ),
    pytest.param(
        {"metadata": {"name": "x", "ownerReferences": [{"kind": "A", "name": "b", "controller": "yes"}]}},
        r"^metadata\.ownerReferences\[0\]\.controller: expected true or false, got 'yes'$",
        id="owner controller not bool",
    ),
    pytest.param(
        pod_with({"priority": "high"}),
        r"^spec\.priority: expected an integer, got 'high'$",
        id="priority string",
    ),
    pytest.param(
        pod_with({"priority": True}), r"^spec\.priority: expected an integer, got true$", id="priority bool"
    ),
    pytest.param(
        pod_with({"priority": 1.5}),
        r"^spec\.priority: expected an integer, got 1\.5$",
        id="priority fraction",
    ),
    pytest.param(
        pod_with({"containers": {"name": "c"}}),
        r"^spec\.containers: expected a list, got a mapping$",
        id="containers a mapping",
    ),
    pytest.param(
        pod_with({"containers": ["nginx"]}),
        r"^spec\.containers\[0\]: expected a mapping, got 'nginx'$",
        id="container a string",
    ),
    pytest.param(
        pod_with({"containers": [{"resources": {"requests": {"cpu": "12x"}}}]}),
        r"^spec\.containers\[0\]\.resources\.requests\.cpu: '12x' is not a quantity$",
        id="bad quantity",
    ),
    pytest.param(
        pod_with({"containers": [{"resources": {"limits": {"memory": "-1Gi"}}}]}),
        r"^spec\.containers\[0\]\.resources\.limits\.memory: must be greater than or equal to 0, got '-1Gi'",
        id="negative quantity",
    ),
    pytest.param(
        pod_with({"containers": [{"resources": {"requests": {"nvidia.com/gpu": True}}}]}),
        r"^spec\.containers\[0\]\.resources\.requests\[nvidia\.com/gpu\]: expected a quantity",
        id="quantity bool",
    ),
    pytest.param(
        pod_with({"containers": [{"resources": {"requests": ["cpu"]}}]}),
        r"^spec\.containers\[0\]\.resources\.requests: expected a mapping, got a list",
        id="requests list",
    ),
    pytest.param(
        pod_with({"initContainers": [{"restartPolicy": "Sometimes"}]}),
        r"^spec\.initContainers\[0\]\.restartPolicy: unsupported value 'Sometimes'; supported values: "
        r"'Always', 'Never', 'OnFailure'$",
        id="restartPolicy",
    ),
    pytest.param(
        pod_with({"containers": [{"ports": [{"hostPort": 80}]}]}),
        r"^spec\.containers\[0\]\.ports\[0\]\.containerPort: required$",
        id="containerPort missing",
    ),
    pytest.param(
        pod_with({"containers": [{"ports": [{"containerPort": "http"}]}]}),
        r"^spec\.containers\[0\]\.ports\[0\]\.containerPort: expected an integer, got 'http'$",
        id="containerPort named",
    ),
    pytest.param(
        pod_with({"containers": [{"ports": [{"containerPort": 1, "protocol": "HTTP"}]}]}),
        r"\.protocol: unsupported value 'HTTP'",
        id="protocol",
    ),
    pytest.param(
        pod_with({"overhead": {"cpu": "x"}}), r"^spec\.overhead\.cpu: 'x' is not a quantity$", id="overhead"
    ),
    pytest.param(
        pod_with({"resources": {"requests": {"memory": "1Qi"}}}),
        r"^spec\.resources\.requests\.memory: '1Qi' is not a quantity$",
        id="pod-level resources",
    ),
    pytest.param(
        pod_with({"nodeSelector": {"disk": 1}}),
        r"^spec\.nodeSelector\.disk: expected a string, got 1",
        id="nodeSelector value",
    ),
    pytest.param(
        pod_with({"nodeName": ["a"]}), r"^spec\.nodeName: expected a string, got a list$", id="nodeName"
    ),
    pytest.param(
        pod_with({"schedulingGates": ["gate"]}),
        r"^spec\.schedulingGates\[0\]: expected a mapping, got 'gate'$",
        id="gate a string",
    ),
    pytest.param(
        pod_with({"schedulingGates": [{}]}),
        r"^spec\.schedulingGates\[0\]\.name: required$",
        id="gate without name",
    ),
    pytest.param(
        pod_with({"preemptionPolicy": "Always"}),
        r"^spec\.preemptionPolicy: unsupported value 'Always'; supported values: 'PreemptLowerPriority', "
        r"'Never'$",
        id="preemptionPolicy",
    ),
    pytest.param(
        pod_with({"tolerations": [{"key": "a", "operator": "exists"}]}),
        r"^spec\.tolerations\[0\]\.operator: unsupported value 'exists'",
        id="toleration operator",
    ),
    pytest.param(
        pod_with({"tolerations": [{"key": "a", "effect": "NoScheduling"}]}),
        r"^spec\.tolerations\[0\]\.effect: unsupported value 'NoScheduling'",
        id="toleration effect",
    ),
    pytest.param(
        pod_with({"tolerations": [{"key": "a", "tolerationSeconds": "300"}]}),
        r"^spec\.tolerations\[0\]\.tolerationSeconds: expected an integer, got '300'$",
        id="tolerationSeconds",
    ),
    pytest.param(
        pod_with({"tolerations": {"key": "a"}}),
        r"^spec\.tolerations: expected a list",
        id="tolerations a mapping",
    ),
    pytest.param(
        pod_with(
            {"topologySpreadConstraints": [{"topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule"}]}
        ),
        r"^spec\.topologySpreadConstraints\[0\]\.maxSkew: required$",
        id="maxSkew missing",
    ),
    pytest.param(
        pod_with({"topologySpreadConstraints": [{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}]}),
        r"^spec\.topologySpreadConstraints\[0\]\.topologyKey: required$",
        id="topologyKey missing",
    ),
    pytest.param(
        pod_with({"topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone"}]}),
        r"^spec\.topologySpreadConstraints\[0\]\.whenUnsatisfiable: required$",
        id="whenUnsatisfiable missing",
    ),
    pytest.param(
        pod_with(
            {
                "topologySpreadConstraints": [
                    {"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "Never"}
                ]
            }
        ),
        r"\.whenUnsatisfiable: unsupported value 'Never'; supported values: 'DoNotSchedule', "
        r"'ScheduleAnyway'$",
        id="whenUnsatisfiable",
    ),
    pytest.param(
        pod_with(
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "nodeTaintsPolicy": "honor",
                    }
                ]
            }
        ),
        r"\.nodeTaintsPolicy: unsupported value 'honor'; supported values: 'Honor', 'Ignore'$",
        id="nodeTaintsPolicy",
    ),
    pytest.param(
        pod_with(
            {
                "topologySpreadConstraints": [
                    {
                        "maxSkew": 1,
                        "topologyKey": "zone",
                        "whenUnsatisfiable": "DoNotSchedule",
                        "labelSelector": {
                            "matchExpressions": [{"key": "a", "operator": "Gt", "values": ["1"]}]
                        },
                    }
                ]
            }
        ),
        r"\.labelSelector\.matchExpressions\[0\]\.operator: unsupported value 'Gt'; supported values: "
        r"'In', 'NotIn', 'Exists', 'DoesNotExist'$",
        id="label selector Gt",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "a", "operator": "in", "values": ["b"]}]}
                            ]
                        }
                    }
                }
            }
        ),
        r"^spec\.affinity\.nodeAffinity\.requiredDuringSchedulingIgnoredDuringExecution\.nodeSelectorTerms"
        r"\[0\]\.matchExpressions\[0\]\.operator: unsupported value 'in'",
        id="node selector operator",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchFields": [{"key": "metadata.name", "values": ["n"]}]}
                            ]
                        }
                    }
                }
            }
        ),
        r"\.matchFields\[0\]\.operator: required$",
        id="matchFields operator missing",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "nodeAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"preference": {}}]}
                }
            }
        ),
        r"preferredDuringSchedulingIgnoredDuringExecution\[0\]\.weight: required$",
        id="preferred weight",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "a", "operator": "In", "values": "b"}]}
                            ]
                        }
                    }
                }
            }
        ),
        r"\.matchExpressions\[0\]\.values: expected a list, got 'b'$",
        id="values a string",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "nodeAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": {
                            "nodeSelectorTerms": [
                                {"matchExpressions": [{"key": "a", "operator": "Gt", "values": [5]}]}
                            ]
                        }
                    }
                }
            }
        ),
        r"\.matchExpressions\[0\]\.values\[0\]: expected a string, got 5 \(quote it in YAML\)$",
        id="values a number",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "podAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": [{"labelSelector": {}}]}
                }
            }
        ),
        r"^spec\.affinity\.podAffinity\.requiredDuringSchedulingIgnoredDuringExecution\[0\]\.topologyKey: "
        r"required$",
        id="pod affinity topologyKey",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{"weight": 10}]}
                }
            }
        ),
        r"^spec\.affinity\.podAntiAffinity\.preferredDuringSchedulingIgnoredDuringExecution\[0\]\."
        r"podAffinityTerm: required$",
        id="weighted term missing",
    ),
    pytest.param(
        pod_with(
            {
                "affinity": {
                    "podAffinity": {
                        "requiredDuringSchedulingIgnoredDuringExecution": [
                            {"topologyKey": "z", "namespaces": "shop"}
                        ]
                    }
                }
            }
        ),
        r"\[0\]\.namespaces: expected a list, got 'shop'$",
        id="namespaces a string",
    ),
    pytest.param(
        pod_with({"affinity": "none"}),
        r"^spec\.affinity: expected a mapping, got 'none'$",
        id="affinity a string",
    ),
    pytest.param(
        pod_with(status={"startTime": "now"}),
        r"^status\.startTime: expected an RFC 3339 timestamp",
        id="startTime",
    ),
    pytest.param(
        pod_with(status={"conditions": [{"status": "True"}]}),
        r"^status\.conditions\[0\]\.type: required$",
        id="condition type",
    ),
    pytest.param(pod_with(status={"phase": 1}), r"^status\.phase: expected a string, got 1", id="phase"),
    pytest.param(pod_with(spec=None, spec_=[]), r"^spec: expected a mapping, got a list$", id="spec a list"),
    pytest.param(
        {"kind": "Node", "metadata": {"name": "x"}}, r"^kind: expected 'Pod', got 'Node'$", id="wrong kind"
    ),
    pytest.param(["kind", "Pod"], r"^expected a Pod manifest \(a mapping\), got a list$", id="not a mapping"),
]


@pytest.mark.parametrize(("manifest", "match"), BAD_PODS)
def test_pod_errors(manifest: Any, match: str) -> None:
    """Bad pod fields raise one ManifestError naming the path, the value and what was expected."""
    with pytest.raises(ManifestError, match=match) as info:
        pod_from_manifest(manifest)
    assert isinstance(info.value, SchedframeError)
    assert isinstance(info.value, ValueError)


BAD_NODES = [
    pytest.param(
        {"metadata": {"name": "n"}, "spec": {"taints": [{"effect": "NoSchedule"}]}},
        r"^spec\.taints\[0\]\.key: required$",
        id="taint key",
    ),
    pytest.param(
        {"metadata": {"name": "n"}, "spec": {"taints": [{"key": "k", "effect": "NoExec"}]}},
        r"^spec\.taints\[0\]\.effect: unsupported value 'NoExec'; supported values: 'NoExecute', "
        r"'NoSchedule', 'PreferNoSchedule'$",
        id="taint effect",
    ),
    pytest.param(
        {
            "metadata": {"name": "n"},
            "spec": {"taints": [{"key": "k", "effect": "NoSchedule", "timeAdded": "never"}]},
        },
        r"^spec\.taints\[0\]\.timeAdded: expected an RFC 3339 timestamp",
        id="taint timeAdded",
    ),
    pytest.param(
        {"metadata": {"name": "n"}, "spec": {"unschedulable": "true"}},
        r"^spec\.unschedulable: expected true or false, got 'true'$",
        id="unschedulable string",
    ),
    pytest.param(
        {"metadata": {"name": "n"}, "status": {"capacity": {"cpu": "four"}}},
        r"^status\.capacity\.cpu: 'four' is not a quantity$",
        id="capacity",
    ),
    pytest.param(
        {"metadata": {"name": "n"}, "status": {"allocatable": {1: "1"}}},
        r"^status\.allocatable: resource names must be strings, got 1$",
        id="resource name",
    ),
    pytest.param(
        {"metadata": {"name": "n"}, "status": {"images": [{"names": "nginx"}]}},
        r"^status\.images\[0\]\.names: expected a list, got 'nginx'$",
        id="image names",
    ),
    pytest.param(
        {"metadata": {"name": "n"}, "status": {"images": [{"names": ["a"], "sizeBytes": "1Mi"}]}},
        r"^status\.images\[0\]\.sizeBytes: expected an integer, got '1Mi'$",
        id="image size",
    ),
    pytest.param(
        {"metadata": {"name": "n"}, "status": {"conditions": [{}]}},
        r"^status\.conditions\[0\]\.type: required$",
        id="condition type",
    ),
]


@pytest.mark.parametrize(("manifest", "match"), BAD_NODES)
def test_node_errors(manifest: Any, match: str) -> None:
    """Bad node fields raise one ManifestError naming the path."""
    with pytest.raises(ManifestError, match=match):
        node_from_manifest(manifest)


BAD_OBJECTS = [
    pytest.param({"metadata": {"name": "x"}}, r"^kind: required$", id="kind missing"),
    pytest.param(
        {"kind": "ConfigMap", "apiVersion": "v1"},
        r"^kind: unsupported kind 'ConfigMap' \(schedframe reads Pod, Node, Namespace,",
        id="ConfigMap",
    ),
    pytest.param({"kind": "Podd"}, r"^kind: unsupported kind 'Podd'; did you mean 'Pod'\?", id="typo"),
    pytest.param({"kind": ["Pod"]}, r"^kind: unsupported kind a list", id="kind a list"),
    pytest.param("Pod", r"^expected a Kubernetes object \(a mapping\), got 'Pod'$", id="not a mapping"),
    pytest.param(
        {"kind": "PriorityClass", "metadata": {"name": "p"}}, r"^value: required$", id="priority value"
    ),
    pytest.param(
        {"kind": "PriorityClass", "metadata": {"name": "p"}, "value": 1, "globalDefault": "no"},
        r"^globalDefault: expected true or false, got 'no'$",
        id="globalDefault",
    ),
    pytest.param(
        {"kind": "PriorityClass", "metadata": {"name": "p"}, "value": 1, "preemptionPolicy": "No"},
        r"^preemptionPolicy: unsupported value 'No'",
        id="priority class preemption policy",
    ),
    pytest.param(
        {"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {"minAvailable": "5"}},
        r"^spec\.minAvailable: expected an integer or a percentage such as '50%', got '5'$",
        id="minAvailable string",
    ),
    pytest.param(
        {"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "spec": {"maxUnavailable": -1}},
        r"^spec\.maxUnavailable: must be greater than or equal to 0, got -1$",
        id="maxUnavailable negative",
    ),
    pytest.param(
        {"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "status": {"disruptionsAllowed": "1"}},
        r"^status\.disruptionsAllowed: expected an integer",
        id="disruptionsAllowed",
    ),
    pytest.param(
        {"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "status": {"disruptedPods": ["web-1"]}},
        r"^status\.disruptedPods: expected a mapping, got a list$",
        id="disruptedPods a list",
    ),
    pytest.param(
        {"kind": "PodDisruptionBudget", "metadata": {"name": "b"}, "status": {"disruptedPods": {"w": "now"}}},
        r"^status\.disruptedPods\.w: expected an RFC 3339 timestamp",
        id="disruptedPods time",
    ),
    pytest.param(
        {"kind": "ReplicaSet", "metadata": {"name": "r"}, "spec": {"selector": {"matchLabels": ["a"]}}},
        r"^spec\.selector\.matchLabels: expected a mapping, got a list$",
        id="selector labels",
    ),
    pytest.param(
        {
            "kind": "StatefulSet",
            "metadata": {"name": "s"},
            "spec": {"selector": {"matchExpressions": [{"key": "a"}]}},
        },
        r"^spec\.selector\.matchExpressions\[0\]\.operator: required$",
        id="selector operator",
    ),
    pytest.param(
        {"kind": "Service", "metadata": {"name": "s"}, "spec": {"selector": "app=web"}},
        r"^spec\.selector: expected a mapping, got 'app=web'$",
        id="service selector",
    ),
    pytest.param(
        {
            "kind": "ReplicationController",
            "metadata": {"name": "r"},
            "spec": {"selector": {"a": 1}, "template": {}},
        },
        r"^spec\.selector\.a: expected a string, got 1",
        id="rc selector",
    ),
    pytest.param(
        {"kind": "Namespace", "metadata": {"labels": {}}}, r"^metadata\.name: required$", id="namespace name"
    ),
]


@pytest.mark.parametrize(("manifest", "match"), BAD_OBJECTS)
def test_object_errors(manifest: Any, match: str) -> None:
    """object_from_manifest rejects unknown kinds and bad fields of every kind."""
    with pytest.raises(ManifestError, match=match):
        object_from_manifest(manifest)


def test_object_to_manifest_rejects_other_types() -> None:
    """Only api objects that are Kubernetes kinds can be written."""
    with pytest.raises(ManifestError, match="cannot write a manifest for Taint objects"):
        object_to_manifest(Taint("k", "NoSchedule"))  # type: ignore[arg-type]


def test_manifest_error_attributes() -> None:
    """ManifestError carries the path and the detail separately."""
    with pytest.raises(ManifestError) as info:
        pod_from_manifest(pod_with({"priority": "high"}))
    assert (info.value.path, info.value.detail) == ("spec.priority", "expected an integer, got 'high'")


# --------------------------------------------------------------------------------------------
# Fuzzing: junk anywhere gives ManifestError, never another exception

json_scalars = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**40), max_value=2**40),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=8),
    st.sampled_from(
        [
            "500m",
            "1Gi",
            "In",
            "Exists",
            "NoSchedule",
            "DoNotSchedule",
            "2024-01-01T00:00:00Z",
            "Always",
            "-1",
            "",
            "12x",
        ]
    ),
)
json_values = st.recursive(
    json_scalars,
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=6,
)


def paths_of(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out.extend(paths_of(v, (*prefix, k)))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out.extend(paths_of(v, (*prefix, i)))
    return out


def replaced(doc: Any, path: tuple[Any, ...], junk: Any) -> Any:
    if not path:
        return junk
    doc = copy.copy(doc)
    doc[path[0]] = replaced(doc[path[0]], path[1:], junk)
    return doc


RAW_CLUSTER = yaml.safe_load(CLUSTER.read_text())["items"]
RAW_OBJECTS = [d for d in yaml.safe_load_all(OBJECTS.read_text()) if d]
FUZZ_TARGETS = [(doc, path) for doc in RAW_CLUSTER + RAW_OBJECTS for path in paths_of(doc)]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.sampled_from(FUZZ_TARGETS), json_values)
def test_junk_anywhere_is_a_manifest_error(target: tuple[Any, tuple[Any, ...]], junk: Any) -> None:
    """Replacing any part of a real manifest with arbitrary JSON gives a ManifestError, or an object
    that round-trips."""
    doc, path = target
    try:
        obj = object_from_manifest(replaced(doc, path, junk))
    except ManifestError:
        return
    assert object_from_manifest(object_to_manifest(obj)) == obj


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(FUZZ_TARGETS), json_values)
def test_junk_in_load_manifests_is_a_manifest_error(target: tuple[Any, tuple[Any, ...]], junk: Any) -> None:
    """The same through load_manifests (as JSON text): a list of objects or a ManifestError."""
    doc, path = target
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", SchedframeWarning)  # junk may turn a kind into an unused one
            objs = load_manifests(json.dumps({"kind": "List", "items": [replaced(doc, path, junk)]}),
                                  expand_workloads=False)
    except ManifestError:
        return
    assert len(objs) <= 1


# --------------------------------------------------------------------------------------------
# Round trips of generated objects


def _template(app: str) -> Pod:
    """A pod template labelled ``app: <app>`` with one container."""
    return Pod("", labels={"app": app}, containers=[Container("c", requests={"cpu": "100m"})])


names = st.from_regex(r"[a-z]([a-z0-9-]{0,7}[a-z0-9])?", fullmatch=True)
label_keys = st.from_regex(r"([a-z]{1,4}\.io/)?[a-z][a-z0-9]{0,5}", fullmatch=True)
label_values = st.from_regex(r"[a-z0-9]{0,6}", fullmatch=True)
label_maps = st.dictionaries(label_keys, label_values, max_size=3)
texts = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), max_size=8)
small_ints = st.integers(min_value=-(2**31), max_value=2**31 - 1)
timestamps = st.one_of(
    st.none(),
    st.integers(min_value=0, max_value=4 * 10**9).map(float),
    st.floats(min_value=0, max_value=4e9, allow_nan=False),
)
quantities = st.builds(
    lambda n, s: Quantity.parse(f"{n}{s}"),
    st.integers(min_value=0, max_value=10**7),
    st.sampled_from(["", "m", "k", "Ki", "Mi", "Gi", "M", "G", "e3", "n", "u"]),
)
resource_names = st.sampled_from(
    ["cpu", "memory", "ephemeral-storage", "pods", "nvidia.com/gpu", "hugepages-2Mi"]
)
resource_maps = st.dictionaries(resource_names, quantities, max_size=3)


def tuples(strategy: st.SearchStrategy[Any], max_size: int = 2) -> st.SearchStrategy[tuple[Any, ...]]:
    return st.lists(strategy, max_size=max_size).map(tuple)


label_requirements = st.builds(
    LabelSelectorRequirement,
    label_keys,
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist"]),
    tuples(label_values, 3),
)
label_selectors = st.builds(LabelSelector, label_maps, tuples(label_requirements))
optional_selectors = st.one_of(st.none(), label_selectors)
node_requirements = st.builds(
    NodeSelectorRequirement,
    texts,
    st.sampled_from(["In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt"]),
    tuples(texts, 3),
)
node_terms = st.builds(NodeSelectorTerm, tuples(node_requirements), tuples(node_requirements))
node_affinities = st.builds(
    NodeAffinity,
    st.one_of(st.none(), st.builds(NodeSelector, tuples(node_terms))),
    tuples(st.builds(PreferredSchedulingTerm, small_ints, node_terms)),
)
pod_affinity_terms = st.builds(
    PodAffinityTerm,
    label_keys,
    optional_selectors,
    tuples(names),
    optional_selectors,
    tuples(label_keys),
    tuples(label_keys),
)
weighted_terms = st.builds(WeightedPodAffinityTerm, small_ints, pod_affinity_terms)
affinities = st.one_of(
    st.none(),
    st.builds(
        Affinity,
        st.one_of(st.none(), node_affinities),
        st.one_of(st.none(), st.builds(PodAffinity, tuples(pod_affinity_terms), tuples(weighted_terms))),
        st.one_of(st.none(), st.builds(PodAntiAffinity, tuples(pod_affinity_terms), tuples(weighted_terms))),
    ),
)
tolerations = st.builds(
    Toleration,
    texts,
    st.sampled_from(["", "Equal", "Exists", "Lt", "Gt"]),
    texts,
    st.sampled_from(["", "NoSchedule", "PreferNoSchedule", "NoExecute"]),
    st.one_of(st.none(), small_ints),
)
spread_constraints = st.builds(
    TopologySpreadConstraint,
    small_ints,
    label_keys,
    st.sampled_from(["DoNotSchedule", "ScheduleAnyway"]),
    optional_selectors,
    st.one_of(st.none(), small_ints),
    st.sampled_from([None, "Honor", "Ignore"]),
    st.sampled_from([None, "Honor", "Ignore"]),
    tuples(label_keys),
)
ports = st.builds(
    ContainerPort,
    st.integers(1, 65535),
    st.integers(0, 65535),
    texts,
    st.sampled_from(["TCP", "UDP", "SCTP"]),
    texts,
)
containers = st.builds(
    Container,
    texts,
    texts,
    resource_maps,
    resource_maps,
    tuples(ports),
    st.sampled_from([None, "Always", "Never", "OnFailure"]),
)
owner_references = st.builds(OwnerReference, names, names, texts, texts, st.booleans())
pod_conditions = st.builds(PodCondition, names, texts, texts, texts)


def _api_valid(pod: Pod) -> Pod:
    """*pod* made what the API server accepts (and what reading defaults): at least one
    container, unique container names, every limited resource requested at most its limit."""

    def fixed(c: Container, name: str) -> Container:
        requests = {**c.requests, **c.limits}  # a request at its limit satisfies both rules
        return attrs.evolve(c, name=name, requests=requests)

    containers = [fixed(c, f"c{i}") for i, c in enumerate(pod.containers)] or [Container("c0")]
    inits = [fixed(c, f"i{i}") for i, c in enumerate(pod.init_containers)]
    limits = {k: v for k, v in pod.resource_limits.items() if k not in pod.resources}
    return attrs.evolve(pod, containers=containers, init_containers=inits, resource_limits=limits)


pods = st.builds(
    Pod,
    name=names,
    namespace=names,
    uid=names,
    labels=label_maps,
    annotations=st.dictionaries(texts, texts, max_size=2),
    creation_timestamp=timestamps,
    deletion_timestamp=timestamps,
    owner_references=tuples(owner_references),
    priority=st.one_of(st.none(), small_ints),
    priority_class_name=texts,
    scheduler_name=names,
    node_name=texts,
    node_selector=label_maps,
    affinity=affinities,
    tolerations=tuples(tolerations, 3),
    topology_spread_constraints=tuples(spread_constraints),
    containers=tuples(containers),
    init_containers=tuples(containers),
    overhead=resource_maps,
    resources=resource_maps,
    resource_limits=resource_maps,
    scheduling_gates=tuples(names),
    preemption_policy=st.sampled_from([None, "PreemptLowerPriority", "Never"]),
    phase=st.sampled_from(["Pending", "Running", "Succeeded", "Failed", "Unknown"]),
    nominated_node_name=texts,
    start_time=timestamps,
    conditions=tuples(pod_conditions),
).map(_api_valid)
nodes = st.builds(
    Node,
    name=names,
    uid=names,
    labels=label_maps,
    annotations=label_maps,
    taints=tuples(
        st.builds(
            Taint,
            label_keys,
            st.sampled_from(["NoSchedule", "PreferNoSchedule", "NoExecute"]),
            texts,
            timestamps,
        ),
        3,
    ),
    unschedulable=st.booleans(),
    capacity=resource_maps,
    allocatable=resource_maps,
    images=tuples(st.builds(ContainerImage, tuples(texts), st.integers(0, 2**40))),
    conditions=tuples(st.builds(NodeCondition, names, texts)),
)
int_or_percent = st.one_of(st.none(), st.integers(0, 1000), st.integers(0, 100).map(lambda n: f"{n}%"))
other_objects = st.one_of(
    st.builds(Namespace, names, label_maps),
    st.builds(
        PodDisruptionBudget,
        names,
        names,
        optional_selectors,
        int_or_percent,
        int_or_percent,
        st.integers(0, 100),
        st.frozensets(names, max_size=2),
    ),
    st.builds(
        PriorityClass, names, small_ints, st.booleans(), st.sampled_from(["PreemptLowerPriority", "Never"])
    ),
    st.builds(Service, names, names, label_maps),
    st.builds(
        lambda name, ns, n, uid: ReplicaSet(name, ns, LabelSelector({"app": name}), n, _template(name), uid),
        names, names, st.integers(0, 5), st.sampled_from(["", "0c1d2e3f-aaaa"]),
    ),
    st.builds(
        lambda name, ns, n, start: StatefulSet(name, ns, LabelSelector({"app": name}), n, _template(name),
                                               ordinals_start=start),
        names, names, st.integers(0, 5), st.integers(0, 3),
    ),
    st.builds(
        lambda name, ns, n: ReplicationController(name, ns, {"app": name}, n, _template(name)),
        names, names, st.integers(0, 5),
    ),
    st.builds(
        lambda name, ns, n: Deployment(name, ns, LabelSelector({"app": name}), n, _template(name)),
        names, names, st.integers(0, 5),
    ),
    st.builds(
        lambda name, ns, hn: DaemonSet(
            name, ns, LabelSelector({"app": name}), _template(name), host_network=hn
        ),
        names, names, st.booleans(),
    ),
    st.builds(
        lambda name, ns, par, comp, ok: Job(name, ns, None, _template(name), par, comp,
                                            succeeded=ok, finished=bool(ok)),
        names, names, st.integers(0, 3), st.integers(0, 3), st.integers(0, 2),
    ),
    st.builds(
        lambda name, ns, active: CronJob(name, ns, "*/5 * * * *", Job("", ns, None, _template(name), 1, 1),
                                         active=active),
        names, names, tuples(names),
    ),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(pods)
def test_pod_round_trip(p: Pod) -> None:
    """Pod.from_manifest(p.to_manifest()) == p, also through JSON and YAML text."""
    m = p.to_manifest()
    assert Pod.from_manifest(m) == p
    assert load_manifests(json.dumps(m)) == [p]


@settings(max_examples=100, deadline=None)
@given(nodes)
def test_node_round_trip(n: Node) -> None:
    """Node.from_manifest(n.to_manifest()) == n, also through YAML text."""
    m = n.to_manifest()
    assert Node.from_manifest(m) == n
    assert load_manifests(yaml.safe_dump(m)) == [n]


@settings(max_examples=100, deadline=None)
@given(other_objects)
def test_other_round_trip(obj: ApiObject) -> None:
    """Every other kind survives object_to_manifest / object_from_manifest."""
    m = object_to_manifest(obj)
    assert object_from_manifest(m) == obj
    assert {"apiVersion", "kind", "metadata"} <= set(m)
    if isinstance(obj, (Namespace, PodDisruptionBudget)):
        assert type(obj).from_manifest(m) == obj
        assert obj.to_manifest() == m


def test_pod_group_manifest_round_trip_and_loading():
    """PodGroup (scheduling.x-k8s.io/v1alpha1) reads, writes and loads like the core kinds."""
    from schedframe import load_manifests
    from schedframe.api import PodGroup

    group = PodGroup("train", "ml", min_member=4, schedule_timeout_seconds=30,
                     min_resources={"cpu": "8"}, creation_timestamp=1_700_000_000.0)
    assert PodGroup.from_manifest(group.to_manifest()) == group
    text = ("apiVersion: scheduling.x-k8s.io/v1alpha1\nkind: PodGroup\n"
            "metadata: {name: g}\nspec: {minMember: 2}\n")
    assert load_manifests(text) == [PodGroup("g", min_member=2)]


def test_pod_group_manifest_errors_name_the_field():
    """A negative minMember is a ManifestError naming spec.minMember."""
    from schedframe.api import PodGroup

    bad = {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
           "metadata": {"name": "g"}, "spec": {"minMember": -1}}
    with pytest.raises(ManifestError, match=r"spec\.minMember: must be greater than or equal to 0"):
        PodGroup.from_manifest(bad)


# --- duplicate keys (the API server's strict decoding refuses them) ---------------------------------


@pytest.mark.parametrize(
    "text",
    [
        "kind: Pod\nmetadata: {name: p}\nmetadata: {name: q}\n",
        "kind: Pod\nmetadata:\n  name: p\n  labels: {a: '1', a: '2'}\n",
        "items:\n- kind: Pod\n  kind: Node\n",
        '{"kind": "Pod", "metadata": {"name": "p", "name": "q"}}',
    ],
    ids=["yaml top level", "yaml flow mapping", "yaml in a list", "json"],
)
def test_duplicate_keys_are_refused(text: str) -> None:
    with pytest.raises(ManifestError, match="duplicate key"):
        load_manifests(text)


def test_same_key_in_sibling_mappings_is_fine() -> None:
    text = (
        "apiVersion: v1\nkind: List\nitems:\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: a}, spec: {containers: [{name: c, image: i}]}}\n"
        "- {apiVersion: v1, kind: Pod, metadata: {name: b}, spec: {containers: [{name: c, image: i}]}}\n"
    )
    assert [o.name for o in load_manifests(text)] == ["a", "b"]


def test_duplicate_json_key_without_yaml_fallback() -> None:
    from schedframe.api.manifests import json_loads_strict

    with pytest.raises(ManifestError, match="duplicate key 'a'"):
        json_loads_strict('{"a": 1, "b": {"a": 2}, "a": 3}')
    assert json_loads_strict('{"a": 1, "b": {"a": 2}}') == {"a": 1, "b": {"a": 2}}


def test_error_values_are_bounded() -> None:
    from schedframe.errors import MAX_VALUE_REPR, bounded_repr

    huge = "x" * 10_000_000
    short = bounded_repr(huge)
    assert len(short) <= MAX_VALUE_REPR + 30
    assert "10000002 characters" in short
    assert bounded_repr("ok") == "'ok'"


@pytest.mark.parametrize("group", ["scheduling.x-k8s.io", "scheduling.sigs.k8s.io"])
def test_pod_group_loads_from_both_api_groups(group: str) -> None:
    """scheduler-plugins published PodGroup as scheduling.sigs.k8s.io before v0.25.7, then as
    scheduling.x-k8s.io: both load; another group is refused naming apiVersion."""
    from schedframe import load_manifests
    from schedframe.api import PodGroup

    text = (f"apiVersion: {group}/v1alpha1\nkind: PodGroup\n"
            "metadata: {name: g, namespace: ml}\nspec: {minMember: 3}\n")
    assert load_manifests(text) == [PodGroup("g", "ml", min_member=3)]
    with pytest.raises(ManifestError, match=r"^apiVersion: expected .*scheduling\.sigs\.k8s\.io/v1alpha1"):
        PodGroup.from_manifest({"apiVersion": f"{group}/v1beta1", "kind": "PodGroup",
                                "metadata": {"name": "g"}})
