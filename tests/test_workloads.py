"""Workload objects and their expansion into pods (``schedframe.api.workloads``), on the real
dump in tests/data/workloads-dump.yaml and on small tables."""

from __future__ import annotations

import json
import pathlib
import re
from typing import Any

import pytest

from schedframe import ManifestError, Node, Pod, SchedframeWarning, Scheduler, load_manifests
from schedframe.api import (
    Container,
    CronJob,
    DaemonSet,
    Deployment,
    Job,
    LabelSelector,
    NodeSelectorRequirement,
    PersistentVolumeClaim,
    PriorityClass,
    ReplicaSet,
    StatefulSet,
    StorageClass,
    Taint,
    Toleration,
    expand_workloads,
)
from schedframe.api.workloads import (
    NAME_ALPHABET,
    cronjob_job_name,
    daemon_tolerations,
    fnv32a,
    safe_encode_string,
)

DUMP = pathlib.Path(__file__).parent / "data" / "workloads-dump.yaml"
SUFFIX = f"[{NAME_ALPHABET}]{{5}}"
GI = 1024**3


@pytest.fixture(scope="module")
def dump() -> list[Any]:
    return load_manifests(DUMP)


def pods_of(objs: list[Any]) -> dict[str, Pod]:
    return {o.key: o for o in objs if isinstance(o, Pod)}


def created(objs: list[Any]) -> list[Pod]:
    """The pods expansion added (those not in the dump)."""
    raw = load_manifests(DUMP, expand_workloads=False)
    have = set(pods_of(raw))
    return [p for p in objs if isinstance(p, Pod) and p.key not in have]


def owner_of(pod: Pod) -> tuple[str, str]:
    (ref,) = pod.owner_references
    assert ref.controller
    return ref.kind, ref.name


# --------------------------------------------------------------------------------------------
# The real dump


def test_dump_reads_workloads_and_keeps_them(dump: list[Any]) -> None:
    """Every workload of the dump is returned (the object store needs them), with what its
    controller would create right after it."""
    kinds = [type(o).__name__ for o in dump]
    assert kinds.count("Deployment") == 1
    assert kinds.count("ReplicaSet") == 2  # the Deployment's ReplicaSet is in the dump: no second one
    assert kinds.count("StatefulSet") == 1
    assert kinds.count("DaemonSet") == 1
    assert kinds.count("Job") == 2
    assert kinds.count("CronJob") == 1
    assert kinds.count("Service") == 1


def test_dump_creates_only_missing_replicas(dump: list[Any]) -> None:
    """2 of the Deployment's 3 pods run: 1 is created; frontend has none: 3; web-0/web-1 run:
    web-2; the DaemonSet runs on kind-worker: one pod for kind-worker2 (the control plane is
    tainted); the finished Job pi: none; the CronJob's running Job whose pod failed: one."""
    new = created(dump)
    by_owner: dict[tuple[str, str], list[Pod]] = {}
    for p in new:
        by_owner.setdefault(owner_of(p), []).append(p)
    assert {k: len(v) for k, v in by_owner.items()} == {
        ("ReplicaSet", "nginx-deployment-77d8468669"): 1,
        ("ReplicaSet", "frontend"): 3,
        ("StatefulSet", "web"): 1,
        ("DaemonSet", "fluentd-elasticsearch"): 1,
        ("Job", "hello-28623495"): 1,
    }
    for p in new:
        assert (p.node_name, p.phase) == ("", "Pending")


def test_dump_pod_names(dump: list[Any]) -> None:
    """Names as the controllers make them: <owner>-<5 characters of their alphabet>, StatefulSet
    pods <name>-<ordinal>."""
    for p in created(dump):
        kind, owner = owner_of(p)
        if kind == "StatefulSet":
            assert p.name == "web-2"
        else:
            assert re.fullmatch(f"{re.escape(owner)}-{SUFFIX}", p.name), p.name


def test_dump_owner_references_carry_uids(dump: list[Any]) -> None:
    """Created pods point at their owner's uid from the dump."""
    by_name = {p.name.rsplit("-", 1)[0]: p for p in created(dump)}
    assert (
        by_name["nginx-deployment-77d8468669"].owner_references[0].uid
        == "7d1c2b3a-1000-4f00-8a00-000000000002"
    )
    assert by_name["nginx-deployment-77d8468669"].labels == {
        "app.kubernetes.io/name": "nginx",
        "pod-template-hash": "77d8468669",
    }


def test_dump_statefulset_pod(dump: list[Any]) -> None:
    """web-2 carries the StatefulSet's pod labels."""
    web2 = pods_of(dump)["default/web-2"]
    assert web2.labels["statefulset.kubernetes.io/pod-name"] == "web-2"
    assert web2.labels["apps.kubernetes.io/pod-index"] == "2"
    assert web2.labels["app"] == "nginx"
    assert web2.labels["controller-revision-hash"].startswith("web-")


def test_dump_daemonset_pod(dump: list[Any]) -> None:
    """The DaemonSet pod for kind-worker2: matchFields affinity and the controller's tolerations
    after the template's own."""
    (p,) = [p for p in created(dump) if owner_of(p)[0] == "DaemonSet"]
    assert p.namespace == "kube-system"
    required = p.affinity.node_affinity.required  # type: ignore[union-attr]
    assert required.terms[0].match_fields == (
        NodeSelectorRequirement("metadata.name", "In", ("kind-worker2",)),
    )
    assert required.matches("kind-worker2", {})
    assert not required.matches("kind-worker", {})
    assert [(t.key, t.effect) for t in p.tolerations] == [
        ("node-role.kubernetes.io/master", "NoSchedule"),
        ("node.kubernetes.io/not-ready", "NoExecute"),
        ("node.kubernetes.io/unreachable", "NoExecute"),
        ("node.kubernetes.io/disk-pressure", "NoSchedule"),
        ("node.kubernetes.io/memory-pressure", "NoSchedule"),
        ("node.kubernetes.io/pid-pressure", "NoSchedule"),
        ("node.kubernetes.io/unschedulable", "NoSchedule"),
    ]


def test_dump_job_pod_labels(dump: list[Any]) -> None:
    """A Job's pod carries job-name and controller-uid (both spellings)."""
    (p,) = [p for p in created(dump) if owner_of(p)[0] == "Job"]
    uid = "7d1c2b3a-1000-4f00-8a00-000000000008"
    for key in ("batch.kubernetes.io/controller-uid", "controller-uid"):
        assert p.labels[key] == uid
    for key in ("batch.kubernetes.io/job-name", "job-name"):
        assert p.labels[key] == "hello-28623495"


def test_dump_cronjob_job_name() -> None:
    """The CronJob's Job is named after its scheduled time in minutes."""
    (cj,) = [o for o in load_manifests(DUMP, expand_workloads=False) if isinstance(o, CronJob)]
    assert cj.last_schedule_time is not None
    assert cronjob_job_name(cj.name, cj.last_schedule_time) == "hello-28623495"
    assert cj.active == ("hello-28623495",)


def test_dump_terminal_and_limits_only_pods(dump: list[Any]) -> None:
    """Terminal pods keep their phase and node; limits-only containers request their limits."""
    pods = pods_of(dump)
    assert (pods["batch/pi-9xk2d"].phase, pods["batch/pi-9xk2d"].node_name) == ("Succeeded", "kind-worker2")
    failed = pods["batch/hello-28623495-4gqrv"]
    assert (failed.phase, failed.node_name) == ("Failed", "kind-worker")
    cpu = pods["default-cpu-example/default-cpu-demo-2"]
    assert cpu.requests.milli_cpu == 1000
    mem = pods["default-mem-example/default-mem-demo-2"]
    assert mem.requests.memory == GI
    assert str(mem.containers[0].requests["memory"]) == "1Gi"


def test_dump_is_reproducible_per_seed() -> None:
    """The same seed gives the same names; another seed other names."""
    a = [p.name for p in created(load_manifests(DUMP))]
    assert a == [p.name for p in created(load_manifests(DUMP, seed=0))]
    b = [p.name for p in created(load_manifests(DUMP, seed=7))]
    assert a != b
    assert len(a) == len(b)


def test_dump_without_expansion() -> None:
    """expand_workloads=False returns exactly the dump's objects."""
    objs = load_manifests(DUMP, expand_workloads=False)
    assert len(objs) == 21
    assert len(load_manifests(DUMP)) == 21 + 7 + 1  # the 7 created pods and web-2's claim www-web-2


def _scheduled(objs: list[Any]) -> Scheduler:
    s = Scheduler()
    for o in objs:
        if isinstance(o, Node):
            s.add_node(o)
    for o in objs:
        if isinstance(o, Pod) and o.phase not in ("Succeeded", "Failed"):
            s.add_pod(o)
        elif not isinstance(o, (Node, Pod)):
            s.add_object(o)
    s.run_until_idle()
    return s


def test_dump_schedules(dump: list[Any]) -> None:
    """Loaded into a Scheduler, every created pod is placed (the DaemonSet pod on its node) but
    web-2: its claim www-web-2 names the StorageClass my-storage-class, which the dump does not
    hold, so, as in a cluster, the claim stays unbound and the pod pending."""
    s = _scheduled(dump)
    for p in created(dump):
        if p.name == "web-2":
            assert s.node_of(p) is None
            continue
        assert s.node_of(p) is not None, p.name
        if owner_of(p)[0] == "DaemonSet":
            assert s.node_of(p) == "kind-worker2"
    (pending,) = s.pending()
    assert pending.pod.name == "web-2"
    assert "pod has unbound immediate PersistentVolumeClaims" in pending.message


def test_dump_schedules_with_its_storage_class(dump: list[Any]) -> None:
    """With a WaitForFirstConsumer class my-storage-class, web-2 is placed and its claim is
    provisioned on its node."""
    sc = StorageClass("my-storage-class", provisioner="csi.example.com",
                      volume_binding_mode="WaitForFirstConsumer")
    s = _scheduled([*dump, sc])
    web2 = pods_of(dump)["default/web-2"]
    node = s.node_of(web2)
    assert node is not None
    claim = s.objects.get(PersistentVolumeClaim, "www-web-2", "default")
    assert claim is not None
    assert claim.phase == "Bound"
    assert claim.annotations["volume.kubernetes.io/selected-node"] == node


# --------------------------------------------------------------------------------------------
# Tables


def template(**labels: str) -> Pod:
    return Pod("", labels=labels or {"app": "a"}, containers=[Container("c", requests={"cpu": "100m"})])


def node(name: str, **kw: Any) -> Node:
    return Node(name, capacity={"cpu": "4", "memory": "8Gi", "pods": "110"}, **kw)


def test_deployment_creates_replicaset_and_pods() -> None:
    """A Deployment alone: a ReplicaSet <name>-<hash> (selector and labels with the hash) owned by
    it, and replicas pods <rs>-<suffix> owned by the ReplicaSet."""
    d = Deployment("web", "shop", LabelSelector({"app": "a"}), 2, template(), uid="d-uid")
    out = expand_workloads([d])
    assert out[0] is d
    rs = out[1]
    assert isinstance(rs, ReplicaSet)
    h = rs.labels["pod-template-hash"]
    assert re.fullmatch(f"[{NAME_ALPHABET}]+", h)
    assert rs.name == f"web-{h}"
    assert rs.selector == LabelSelector({"app": "a", "pod-template-hash": h})
    assert rs.owner_references[0].uid == "d-uid"
    assert rs.owner_references[0].controller
    pods = out[2:]
    assert len(pods) == 2
    for p in pods:
        assert re.fullmatch(f"web-{h}-{SUFFIX}", p.name)
        assert p.labels == {"app": "a", "pod-template-hash": h}
        assert owner_of(p) == ("ReplicaSet", rs.name)
    # a different template, a different hash
    other = expand_workloads([Deployment("web", "shop", None, 1, template(app="b"))])[1]
    assert other.name != rs.name


def test_replicas_defaults_and_zero() -> None:
    """replicas defaults to 1 when read; 0 creates nothing."""
    text = json.dumps(
        {
            "kind": "ReplicaSet",
            "apiVersion": "apps/v1",
            "metadata": {"name": "r"},
            "spec": {
                "selector": {"matchLabels": {"app": "a"}},
                "template": {"metadata": {"labels": {"app": "a"}}, "spec": {"containers": [{"name": "c"}]}},
            },
        }
    )
    objs = load_manifests(text)
    assert objs[0].replicas == 1
    assert len(objs) == 2
    assert expand_workloads([ReplicaSet("r", replicas=0, template=template())]) == [
        ReplicaSet("r", replicas=0, template=template())
    ]


def test_existing_pods_by_kind_and_name() -> None:
    """Pods owned by kind+name (no uid) count; terminal and deleted ones do not."""
    rs = ReplicaSet("r", replicas=3, template=template())
    from schedframe.api import OwnerReference

    ref = OwnerReference("ReplicaSet", "r", controller=True)
    running = Pod("r-aaaaa", owner_references=[ref], containers=[Container("c")], phase="Running")
    done = Pod("r-bbbbb", owner_references=[ref], containers=[Container("c")], phase="Succeeded")
    gone = Pod("r-ccccc", owner_references=[ref], containers=[Container("c")], deletion_timestamp=1.0)
    out = expand_workloads([rs, running, done, gone])
    assert len([p for p in out if isinstance(p, Pod)]) == 3 + 2
    # a pod of another object with the same name but another uid is not counted
    foreign = Pod(
        "r-ddddd",
        containers=[Container("c")],
        owner_references=[OwnerReference("ReplicaSet", "r", uid="other", controller=True)],
    )
    assert len(expand_workloads([ReplicaSet("r", replicas=1, uid="mine", template=template()), foreign])) == 3


@pytest.mark.parametrize(
    ("parallelism", "completions", "succeeded", "mode", "want"),
    [
        pytest.param(1, 1, 0, "NonIndexed", 1, id="defaults"),
        pytest.param(3, None, 0, "NonIndexed", 3, id="work queue"),
        pytest.param(3, None, 1, "NonIndexed", 0, id="work queue with a success"),
        pytest.param(2, 5, 0, "NonIndexed", 2, id="parallelism bounds"),
        pytest.param(5, 2, 0, "NonIndexed", 2, id="completions bound"),
        pytest.param(5, 3, 2, "NonIndexed", 1, id="remaining completions"),
        pytest.param(0, 3, 0, "NonIndexed", 0, id="parallelism 0"),
        pytest.param(2, 3, 0, "Indexed", 2, id="indexed"),
    ],
)
def test_job_pods(parallelism: int, completions: int | None, succeeded: int, mode: str, want: int) -> None:
    """A Job creates min(parallelism, completions - succeeded) pods (work queues: parallelism
    until one succeeds)."""
    job = Job(
        "j",
        template=template(),
        parallelism=parallelism,
        completions=completions,
        completion_mode=mode,
        succeeded=succeeded,
    )
    pods = [p for p in expand_workloads([job]) if isinstance(p, Pod)]
    assert len(pods) == want
    if mode == "Indexed":
        assert [p.annotations["batch.kubernetes.io/job-completion-index"] for p in pods] == ["0", "1"]
        assert all(re.fullmatch(f"j-{i}-{SUFFIX}", p.name) for i, p in enumerate(pods))


def test_job_read_defaults() -> None:
    """Neither parallelism nor completions: both 1 (SetDefaults_Job); suspended or finished: none."""
    spec = {"template": {"spec": {"containers": [{"name": "c"}], "restartPolicy": "Never"}}}
    (job, pod) = load_manifests(
        json.dumps({"kind": "Job", "apiVersion": "batch/v1", "metadata": {"name": "j"}, "spec": spec})
    )
    assert (job.parallelism, job.completions) == (1, 1)
    assert isinstance(pod, Pod)
    suspended = load_manifests(
        json.dumps(
            {
                "kind": "Job",
                "apiVersion": "batch/v1",
                "metadata": {"name": "j"},
                "spec": {**spec, "suspend": True},
            }
        )
    )
    assert len(suspended) == 1


def test_cronjob_creates_missing_active_jobs() -> None:
    """A CronJob's active Jobs missing from the input are created (and their pods)."""
    cj = CronJob(
        "hello",
        "batch",
        "* * * * *",
        Job("", "batch", template=template(), parallelism=1, completions=1),
        active=("hello-28623495",),
    )
    out = expand_workloads([cj])
    assert [type(o).__name__ for o in out] == ["CronJob", "Job", "Pod"]
    assert out[1].name == "hello-28623495"
    assert out[1].owner_references[0].kind == "CronJob"
    assert out[2].name.startswith("hello-28623495-")


@pytest.mark.parametrize(
    ("nodes", "want"),
    [
        pytest.param([node("a"), node("b")], ["a", "b"], id="every node"),
        pytest.param(
            [node("a", taints=[Taint("x", "NoSchedule")]), node("b")], ["b"], id="untolerated taint"
        ),
        pytest.param(
            [node("a", taints=[Taint("x", "PreferNoSchedule")])], ["a"], id="PreferNoSchedule ignored"
        ),
        pytest.param(
            [node("a", unschedulable=True, taints=[Taint("node.kubernetes.io/unschedulable", "NoSchedule")])],
            ["a"],
            id="cordoned node tolerated",
        ),
        pytest.param([node("a", labels={"disk": "ssd"}), node("b")], ["a"], id="node selector"),
    ],
)
def test_daemonset_nodes(nodes: list[Node], want: list[str]) -> None:
    """One pod per eligible node (selector, required affinity, NoSchedule/NoExecute taints)."""
    t = template()
    if any(n.labels for n in nodes):
        t = Pod("", labels={"app": "a"}, node_selector={"disk": "ssd"}, containers=[Container("c")])
    ds = DaemonSet("ds", "kube-system", LabelSelector({"app": "a"}), t)
    pods = [p for p in expand_workloads([*nodes, ds]) if isinstance(p, Pod)]
    got = [p.affinity.node_affinity.required.terms[0].match_fields[0].values[0] for p in pods]  # type: ignore[union-attr]
    assert got == want


def test_daemonset_host_network_and_existing_pod() -> None:
    """hostNetwork adds the network-unavailable toleration; a node already running a pod of the
    DaemonSet gets none."""
    tol = daemon_tolerations([], True)
    assert Toleration("node.kubernetes.io/network-unavailable", "Exists", effect="NoSchedule") in tol
    assert len(daemon_tolerations([], False)) == 6
    # a toleration with the same key and effect is replaced, not doubled
    assert (
        len(
            daemon_tolerations(
                [Toleration("node.kubernetes.io/not-ready", "Equal", effect="NoExecute")], False
            )
        )
        == 6
    )
    from schedframe.api import OwnerReference

    ds = DaemonSet("ds", template=template(), uid="u")
    running = Pod(
        "ds-aaaaa",
        node_name="a",
        containers=[Container("c")],
        phase="Running",
        owner_references=[OwnerReference("DaemonSet", "ds", "u", controller=True)],
    )
    pods = [p for p in expand_workloads([node("a"), node("b"), ds, running]) if isinstance(p, Pod)]
    assert len(pods) == 2  # the running one and one for b


def test_statefulset_ordinals() -> None:
    """StatefulSet pods <name>-<ordinal> from ordinals.start, skipping existing ones."""
    ss = StatefulSet("db", replicas=3, template=template(), ordinals_start=5)
    existing = Pod("db-6", containers=[Container("c")])
    out = expand_workloads([ss, existing])
    assert [p.name for p in out if isinstance(p, Pod)] == ["db-5", "db-7", "db-6"]


def test_expansion_respects_max_objects() -> None:
    """A huge replica count is refused quickly instead of exhausting memory."""
    with pytest.raises(ManifestError, match="more than 1000 objects"):
        expand_workloads([ReplicaSet("r", replicas=10**9, template=template())], max_objects=1000)
    text = json.dumps(
        {
            "kind": "Deployment",
            "apiVersion": "apps/v1",
            "metadata": {"name": "d"},
            "spec": {"replicas": 2**31 - 1, "template": {"spec": {"containers": [{"name": "c"}]}}},
        }
    )
    with pytest.raises(ManifestError, match="max_objects"):
        load_manifests(text, max_objects=10_000)


def test_expand_workloads_argument_types() -> None:
    """expand_workloads refuses a str, a mapping or a non-int seed with TypeError naming them."""
    with pytest.raises(TypeError, match="argument 'objects'"):
        expand_workloads("kind: Deployment")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="argument 'seed'"):
        expand_workloads([], seed="1")  # type: ignore[arg-type]


def test_hash_helpers() -> None:
    """FNV-1a and SafeEncodeString as apimachinery defines them."""
    assert fnv32a(b"") == 0x811C9DC5
    assert fnv32a(b"a") == 0xE40C292C
    assert safe_encode_string("ab") == NAME_ALPHABET[ord("a") % 27] + NAME_ALPHABET[ord("b") % 27]


@pytest.mark.parametrize(
    ("manifest", "match"),
    [
        pytest.param(
            {"kind": "Deployment", "metadata": {"name": "d"}, "spec": {}},
            r"^spec\.template: required$",
            id="template required",
        ),
        pytest.param(
            {"kind": "Deployment", "metadata": {"name": "d"}, "spec": {"template": {"spec": {}}}},
            r"^spec\.template\.spec\.containers: required",
            id="template without containers",
        ),
        pytest.param(
            {
                "kind": "ReplicaSet",
                "metadata": {"name": "r"},
                "spec": {
                    "selector": {"matchLabels": {"app": "x"}},
                    "template": {
                        "metadata": {"labels": {"app": "y"}},
                        "spec": {"containers": [{"name": "c"}]},
                    },
                },
            },
            r"^spec\.selector: selector does not match the template labels",
            id="selector mismatch",
        ),
        pytest.param(
            {
                "kind": "StatefulSet",
                "metadata": {"name": "s"},
                "spec": {"replicas": -1, "template": {"spec": {"containers": [{"name": "c"}]}}},
            },
            r"^spec\.replicas: must be greater than or equal to 0, got -1$",
            id="negative replicas",
        ),
        pytest.param(
            {
                "kind": "Job",
                "metadata": {"name": "j"},
                "spec": {
                    "completionMode": "Indexed",
                    "template": {"spec": {"containers": [{"name": "c"}]}},
                    "parallelism": 2,
                },
            },
            r"^spec\.completions: required when completionMode is Indexed$",
            id="indexed needs completions",
        ),
        pytest.param(
            {"kind": "CronJob", "metadata": {"name": "c"}, "spec": {"schedule": "* * * * *"}},
            r"^spec\.jobTemplate: required$",
            id="cronjob template",
        ),
        pytest.param(
            {
                "kind": "DaemonSet",
                "metadata": {"name": "Bad_Name"},
                "spec": {"template": {"spec": {"containers": [{"name": "c"}]}}},
            },
            r"^metadata\.name: invalid name 'Bad_Name'",
            id="invalid name",
        ),
    ],
)
def test_workload_errors(manifest: dict[str, Any], match: str) -> None:
    """Workloads are validated like the API server does, with the field path."""
    from schedframe import object_from_manifest

    with pytest.raises(ManifestError, match=match):
        object_from_manifest(manifest)


# -- priority admission ----------------------------------------------------------------------


def test_created_pods_are_admitted_with_their_priority_class() -> None:
    """A cluster's Priority admission gives a controller's pods the value of their
    priorityClassName (and its preemptionPolicy), or the globalDefault class's; expansion used to
    leave ``priority`` unset (0 to the scheduler)."""
    def template(**kw: Any) -> Pod:
        return Pod("t", labels={"app": "a"}, containers=(Container("c"),), **kw)

    high = PriorityClass("high", 1000, preemption_policy="Never")
    base = PriorityClass("base", 7, global_default=True)
    objects: list[Any] = [
        high, base,
        Deployment("web", template=template(priority_class_name="high"), replicas=2),
        ReplicaSet("rs", template=template(), replicas=1),
        Job("job", template=template(priority_class_name="system-cluster-critical")),
        ReplicaSet("kept", template=template(priority_class_name="high", priority=3), replicas=1),
        ReplicaSet("own", template=template(priority_class_name="high",
                                            preemption_policy="PreemptLowerPriority"), replicas=1),
    ]
    pods = {p.name.rsplit("-", 1)[0]: p for p in expand_workloads(objects) if isinstance(p, Pod)}
    web = next(p for p in expand_workloads(objects) if isinstance(p, Pod) and p.name.startswith("web-"))
    assert (web.priority, web.priority_class_name, web.preemption_policy) == (1000, "high", "Never")
    assert (pods["rs"].priority, pods["rs"].priority_class_name) == (7, "base")
    assert pods["job"].priority == 2000000000
    assert pods["kept"].priority == 3
    assert (pods["own"].priority, pods["own"].preemption_policy) == (1000, "PreemptLowerPriority")
    # the Deployment's ReplicaSet keeps the template as written (its hash is the template's)
    rs = next(o for o in expand_workloads(objects) if isinstance(o, ReplicaSet) and o.name.startswith("web-"))
    assert rs.template is not None
    assert rs.template.priority is None
    # no globalDefault class: priority 0; a class the input lacks: 0 and one warning
    plain = [o for o in objects if o is not base and o is not high]
    with pytest.warns(SchedframeWarning, match=r"PriorityClass 'high' is not in the input: its pods get "
                      r"priority 0 \(Deployment default/web, ReplicaSet default/own\)") as caught:
        out = [p for p in expand_workloads(plain) if isinstance(p, Pod)]
    assert len([w for w in caught if "PriorityClass" in str(w.message)]) == 1
    assert {p.priority for p in out if not p.name.startswith("kept-")} == {0, 2000000000}
    loaded = load_manifests(
        "apiVersion: scheduling.k8s.io/v1\nkind: PriorityClass\nmetadata: {name: high}\nvalue: 1000\n"
        "---\napiVersion: apps/v1\nkind: Deployment\nmetadata: {name: web}\nspec:\n  replicas: 1\n"
        "  selector: {matchLabels: {app: web}}\n  template:\n    metadata: {labels: {app: web}}\n"
        "    spec: {priorityClassName: high, containers: [{name: c}]}\n"
    )
    assert [p.priority for p in loaded if isinstance(p, Pod)] == [1000]
