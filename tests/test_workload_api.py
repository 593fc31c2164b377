"""Workload-aware scheduling of 1.36 and 1.37: the ``scheduling.k8s.io`` Workload, PodGroup and
CompositePodGroup kinds in each version a release serves, a pod's ``spec.schedulingGroup``, and
the PodGroup scheduling cycle (all members placed together, or none)."""

from __future__ import annotations

import textwrap
from typing import Any

import pytest

from schedframe import ManifestError, Scheduler, load_manifests, object_from_manifest, object_to_manifest
from schedframe.api import (
    CompositePodGroup,
    Node,
    Pod,
    SchedulingPodGroup,
    Workload,
    served_api_versions,
)
from schedframe.api import PodGroup as CoschedulingPodGroup
from schedframe.api.manifests import dump_manifests
from schedframe.plugins.gang_scheduling import MSG_WAITING_FOR_MIN_COUNT
from schedframe.testing import make_pod

GATES_136 = "GenericWorkload=true,GangScheduling=true"

WORKLOAD_V1ALPHA2 = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: Workload
metadata: {name: train, namespace: ml, labels: {team: a}}
spec:
  controllerRef: {apiGroup: batch, kind: Job, name: train}
  podGroupTemplates:
  - name: workers
    schedulingPolicy: {gang: {minCount: 4}}
    schedulingConstraints: {topology: [{key: rack}]}
    resourceClaims: [{name: shared, resourceClaimTemplateName: gpu-pool}]
    disruptionMode: PodGroup
    priorityClassName: high
    priority: 1000
  - name: driver
    schedulingPolicy: {basic: {}}
"""

POD_GROUP_V1ALPHA2 = """
apiVersion: scheduling.k8s.io/v1alpha2
kind: PodGroup
metadata: {name: train-workers, namespace: ml}
spec:
  podGroupTemplateRef: {workload: {workloadName: train, podGroupTemplateName: workers}}
  schedulingPolicy: {gang: {minCount: 4}}
  disruptionMode: Pod
status:
  conditions:
  - {type: PodGroupScheduled, status: "False", reason: Unschedulable, message: not yet}
"""

WORKLOAD_V1BETA1 = """
apiVersion: scheduling.k8s.io/v1beta1
kind: Workload
metadata: {name: lws}
spec:
  podGroupTemplates:
  - name: leader
    schedulingPolicy: {basic: {}}
    preemptionPolicy: Never
    disruptionMode: {single: {}}
  - name: workers
    schedulingPolicy: {gang: {minCount: 8}}
    disruptionMode: {all: {}}
"""

WORKLOAD_V1ALPHA3 = """
apiVersion: scheduling.k8s.io/v1alpha3
kind: Workload
metadata: {name: jobset}
spec:
  podGroupTemplates: []
  compositePodGroupTemplates:
  - name: slices
    schedulingPolicy: {gang: {minGroupCount: 2}}
    schedulingConstraints: {topology: [{key: zone}]}
    podGroupTemplates:
    - name: slice
      schedulingPolicy: {gang: {minCount: 4}}
      schedulingConstraints: {topology: [{key: rack}]}
"""

COMPOSITE_V1ALPHA3 = """
apiVersion: scheduling.k8s.io/v1alpha3
kind: CompositePodGroup
metadata: {name: jobset-slices}
spec:
  workloadRef: {workloadName: jobset, templateName: slices}
  schedulingPolicy: {gang: {minGroupCount: 2}}
  schedulingConstraints: {topology: [{key: zone}]}
"""

POD_GROUP_V1ALPHA3 = """
apiVersion: scheduling.k8s.io/v1alpha3
kind: PodGroup
metadata: {name: jobset-slice-0}
spec:
  parentCompositePodGroupName: jobset-slices
  workloadRef: {workloadName: jobset, templateName: slice}
  schedulingPolicy: {gang: {minCount: 4}}
"""


def _one(text: str, release: str) -> Any:
    [obj] = load_manifests(text, kubernetes_version=release, expand_workloads=False)
    return obj


@pytest.mark.parametrize(("text", "release", "cls"), [
    (WORKLOAD_V1ALPHA2, "1.36", Workload),
    (POD_GROUP_V1ALPHA2, "1.36", SchedulingPodGroup),
    (WORKLOAD_V1BETA1, "1.37", Workload),
    (WORKLOAD_V1ALPHA3, "1.37", Workload),
    (COMPOSITE_V1ALPHA3, "1.37", CompositePodGroup),
    (POD_GROUP_V1ALPHA3, "1.37", SchedulingPodGroup),
], ids=["v1alpha2 Workload", "v1alpha2 PodGroup", "v1beta1 Workload", "v1alpha3 Workload",
        "v1alpha3 CompositePodGroup", "v1alpha3 PodGroup"])
def test_every_kind_round_trips_in_its_own_version(text: str, release: str, cls: type) -> None:
    """Read, written back in the version it was read in, and read again: the same object; the
    manifest written is the one read (nothing dropped, nothing invented)."""
    obj = _one(text, release)
    assert type(obj) is cls
    manifest = object_to_manifest(obj)
    assert manifest == object_to_manifest(object_from_manifest(manifest))
    assert object_from_manifest(manifest) == obj
    import yaml

    given = yaml.safe_load(text)
    given["metadata"].setdefault("namespace", "default")
    assert manifest == given
    dumped = dump_manifests([obj], "yaml")
    [again] = load_manifests(dumped, kubernetes_version=release, expand_workloads=False)
    assert again == obj


def test_the_fields_are_read_as_upstream_names_them() -> None:
    w = _one(WORKLOAD_V1ALPHA2, "1.36")
    workers = w.pod_group("workers")
    assert (workers.min_count, workers.topology_keys, workers.disruption_mode) == (4, ("rack",), "PodGroup")
    assert (workers.priority_class_name, workers.priority) == ("high", 1000)
    assert workers.resource_claims[0].resource_claim_template_name == "gpu-pool"
    assert not w.pod_group("driver").is_gang
    assert w.controller_ref == ("batch", "Job", "train")
    pg = _one(POD_GROUP_V1ALPHA2, "1.36")
    assert (pg.workload_name, pg.template_name, pg.min_count, pg.parent) == ("train", "workers", 4, None)
    assert pg.conditions[0].reason == "Unschedulable"
    nested = _one(WORKLOAD_V1ALPHA3, "1.37").composites[0]
    assert (nested.min_group_count, nested.topology_keys) == (2, ("zone",))
    assert nested.pod_groups[0].min_count == 4
    assert _one(POD_GROUP_V1ALPHA3, "1.37").parent == "jobset-slices"
    lws = _one(WORKLOAD_V1BETA1, "1.37")
    assert [(g.name, g.disruption_mode, g.preemption_policy) for g in lws.pod_groups] == [
        ("leader", "single", "Never"), ("workers", "all", None)]


@pytest.mark.parametrize(("release", "kind", "served"), [
    ("1.34", "Workload", ()),
    ("1.35", "Workload", ("scheduling.k8s.io/v1alpha1",)),
    ("1.35", "PodGroup", ()),
    ("1.36", "Workload", ("scheduling.k8s.io/v1alpha2",)),
    ("1.36", "PodGroup", ("scheduling.k8s.io/v1alpha2",)),
    ("1.36", "CompositePodGroup", ()),
    ("1.37", "Workload", ("scheduling.k8s.io/v1beta1", "scheduling.k8s.io/v1alpha3")),
    ("1.37", "CompositePodGroup", ("scheduling.k8s.io/v1alpha3",)),
])
def test_served_versions_per_release(release: str, kind: str, served: tuple[str, ...]) -> None:
    assert served_api_versions(kind, release) == served


@pytest.mark.parametrize(("text", "release", "message"), [
    (WORKLOAD_V1ALPHA2, "1.35", r"Kubernetes 1.35 does not serve scheduling.k8s.io/v1alpha2 Workload "
                                r"\(it serves Workload in scheduling.k8s.io/v1alpha1\)"),
    (WORKLOAD_V1ALPHA2, "1.37",
     r"it serves Workload in scheduling.k8s.io/v1beta1, scheduling.k8s.io/v1alpha3"),
    (WORKLOAD_V1BETA1, "1.36", r"it serves Workload in scheduling.k8s.io/v1alpha2\)"),
    (POD_GROUP_V1ALPHA2, "1.35",
     r"does not serve scheduling.k8s.io/v1alpha2 PodGroup \(it has no PodGroup API\)"),
    (COMPOSITE_V1ALPHA3, "1.36", r"it has no CompositePodGroup API"),
], ids=["1.35 v1alpha2", "1.37 v1alpha2", "1.36 v1beta1", "1.35 PodGroup", "1.36 CompositePodGroup"])
def test_a_release_refuses_the_versions_it_does_not_serve(text: str, release: str, message: str) -> None:
    with pytest.raises(ManifestError, match=message) as info:
        load_manifests(text, kubernetes_version=release)
    assert info.value.path.endswith("apiVersion")


def test_the_two_pod_group_kinds_are_told_apart_by_their_group() -> None:
    sigs = object_from_manifest({"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
                                 "metadata": {"name": "g"}, "spec": {"minMember": 2}})
    native = object_from_manifest({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                                   "metadata": {"name": "g"}, "spec": {"schedulingPolicy": {"basic": {}}}})
    assert type(sigs) is CoschedulingPodGroup
    assert type(native) is SchedulingPodGroup
    assert object_to_manifest(native)["apiVersion"] == "scheduling.k8s.io/v1beta1"


@pytest.mark.parametrize(("spec", "path", "message"), [
    ({"schedulingPolicy": {"gang": {"minCount": 0}}}, "spec.schedulingPolicy.gang.minCount",
     "must be greater than 0"),
    ({"schedulingPolicy": {"gang": {"minCount": 2}, "basic": {}}}, "spec.schedulingPolicy",
     "exactly one of basic and gang"),
    ({"schedulingPolicy": {}}, "spec.schedulingPolicy", "exactly one of basic and gang"),
    ({"schedulingPolicy": {"basic": {}}, "disruptionMode": {"single": {}, "all": {}}}, "spec.disruptionMode",
     "exactly one of single and all"),
    ({"schedulingPolicy": {"basic": {}}, "preemptionPolicy": "Sometimes"}, "spec.preemptionPolicy",
     "must be 'PreemptLowerPriority' or 'Never'"),
    ({"schedulingPolicy": {"basic": {}}, "schedulingConstraints": {"topology": [{}]}},
     "spec.schedulingConstraints.topology[0].key", "required"),
])
def test_bad_pod_groups_name_the_field(spec: dict[str, Any], path: str, message: str) -> None:
    with pytest.raises(ManifestError, match=message) as info:
        object_from_manifest({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "PodGroup",
                              "metadata": {"name": "g"}, "spec": spec})
    assert info.value.path == path


def test_a_workload_needs_a_template_and_unique_names() -> None:
    with pytest.raises(ManifestError, match="required") as info:
        object_from_manifest({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                              "metadata": {"name": "w"}, "spec": {}})
    assert info.value.path == "spec.podGroupTemplates"
    group = {"name": "g", "schedulingPolicy": {"basic": {}}}
    with pytest.raises(ManifestError, match="duplicate pod group name 'g'") as info:
        object_from_manifest({"apiVersion": "scheduling.k8s.io/v1beta1", "kind": "Workload",
                              "metadata": {"name": "w"}, "spec": {"podGroupTemplates": [group, group]}})
    assert info.value.path == "spec.podGroupTemplates[1].name"


def test_a_pods_scheduling_group_round_trips() -> None:
    text = textwrap.dedent("""
        apiVersion: v1
        kind: Pod
        metadata: {name: w0}
        spec:
          schedulingGroup: {podGroupName: train-workers}
          containers: [{name: c, image: x}]
    """)
    pod = _one(text, "1.36")
    assert pod.scheduling_group == "train-workers"
    assert object_to_manifest(pod)["spec"]["schedulingGroup"] == {"podGroupName": "train-workers"}
    assert object_from_manifest(object_to_manifest(pod)) == pod


# -- the PodGroup cycle ---------------------------------------------------------------------------

def _cluster(n_nodes: int, cpus: list[str], *, min_count: int | None, group: str = "g",
             extra: tuple[Pod, ...] = (), api_version: str = "scheduling.k8s.io/v1alpha2") -> list[Any]:
    policy = {"gang": {"minCount": min_count}} if min_count is not None else {"basic": {}}
    objs: list[Any] = [object_from_manifest({
        "apiVersion": api_version, "kind": "PodGroup", "metadata": {"name": group},
        "spec": {"schedulingPolicy": policy}})]
    objs += [Node(name=f"n{i}", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"})
             for i in range(n_nodes)]
    objs += [make_pod(f"w{i}").req(cpu=cpu).obj().evolve(scheduling_group=group)
             for i, cpu in enumerate(cpus)]
    objs += list(extra)
    return objs


def _run(objs: list[Any], release: str = "1.36", gates: str = GATES_136) -> Scheduler:
    s = Scheduler(objects=objs, kubernetes_version=release, feature_gates=gates)
    s.run_until_idle()
    return s


def _messages(s: Scheduler, name: str) -> list[str]:
    return [e.message for e in s.events if e.reason == "FailedScheduling" and e.obj.name == name]


def test_a_gang_that_fits_binds_in_one_pod_group_cycle() -> None:
    s = _run(_cluster(2, ["1", "1", "1"], min_count=3))
    assert all(s.node_of(f"default/w{i}") for i in range(3))
    assert s.events
    assert not [e for e in s.events if e.reason == "FailedScheduling"]


def test_the_1_37_cycle_checks_the_quorum_as_it_goes() -> None:
    """1.37's cycle: no Permit in the trial; PlacementFeasible stops once minCount cannot be met,
    and the members it did not reach fail with the group's status; the feasible ones with the
    group's message, PodGroupPostFilter's reason included."""
    api = "scheduling.k8s.io/v1beta1"
    s = _run(_cluster(2, ["1", "1", "1"], min_count=3, api_version=api), "1.37", "GenericWorkload=true")
    assert all(s.node_of(f"default/w{i}") for i in range(3))
    s = _run(_cluster(1, ["3", "3", "3"], min_count=3, api_version=api), "1.37", "GenericWorkload=true")
    assert not any(s.node_of(f"default/w{i}") for i in range(3))
    assert _messages(s, "w0")[0] == ("pod group is unschedulable, minCount (3) cannot be satisfied: 1 "
                                     "scheduled, 1 remaining, pod group preemption: No preemption victims "
                                     "found for incoming preemptor")
    assert _messages(s, "w1")[0] == "0/1 nodes are available: 1 Insufficient cpu."
    assert _messages(s, "w2")[0] == "minCount (3) cannot be satisfied: 1 scheduled, 1 remaining"
    # a lower-priority pod whose eviction would not make room for the group is left alone: the
    # group's run without it says why, on the PodGroup
    low = make_pod("low").req(cpu="3").obj().evolve(node_name="n0", priority=-10)
    s = _run(_cluster(1, ["3", "3", "3"], min_count=3, api_version=api, extra=(low,)), "1.37",
             "GenericWorkload=true")
    assert s.node_of("default/low") == "n0"
    (cond,) = s.objects.get(SchedulingPodGroup, "g", "default").conditions
    # (DynamicResources' PodGroupPostFilter reason first: upstream's framework gathers the
    # reasons of the Unschedulable plugins)
    assert cond.message == ("minCount (3) cannot be satisfied: 0 scheduled, 2 remaining, deallocation and "
                            "deletion of ResourceClaims completed, pod group preemption: minCount (3) cannot "
                            "be satisfied: 1 scheduled, 1 remaining")


def test_a_gang_that_cannot_all_fit_binds_none() -> None:
    """Two nodes of 4 CPUs, three members of 3: two would fit, the gang needs three. Nothing
    binds; the members that fitted report their Permit's wait, the third its own reason."""
    s = _run(_cluster(2, ["3", "3", "3"], min_count=3))
    assert not any(s.node_of(f"default/w{i}") for i in range(3))
    assert _messages(s, "w0")[0] == ("pod group is unschedulable, waiting for minCount pods from a gang "
                                     "to be scheduled, one or more plugins asked to wait and no plugin "
                                     "rejected pod")
    assert _messages(s, "w2")[0].startswith("0/2 nodes are available: 2 Insufficient cpu. ")
    assert s.cache.pod_count() == 0  # nothing stayed assumed


def test_a_gang_short_of_its_min_count_stays_out_of_the_queue() -> None:
    s = _run(_cluster(2, ["1", "1"], min_count=3))
    assert not any(s.node_of(f"default/w{i}") for i in range(2))
    assert s.queue.gating_message(s.get_pod("default/w0")).endswith(MSG_WAITING_FOR_MIN_COUNT)


def test_a_basic_group_is_scheduled_together_and_binds_what_fits() -> None:
    """A basic policy has no quorum: every member that fits binds, in the same cycle."""
    s = _run(_cluster(1, ["3", "3"], min_count=None))
    assert [bool(s.node_of("default/w0")), bool(s.node_of("default/w1"))] == [True, False]
    assert _messages(s, "w1")[0] == ("0/1 nodes are available: 1 Insufficient cpu. no new claims to "
                                     "deallocate, preemption: 0/1 nodes are available: 1 No preemption "
                                     "victims found for incoming pod.")


def test_without_generic_workload_each_member_is_its_own_pod() -> None:
    s = _run(_cluster(2, ["3", "3", "3"], min_count=3), gates="")
    assert sum(bool(s.node_of(f"default/w{i}")) for i in range(3)) == 2


def test_a_single_pod_beside_a_failing_gang_still_binds() -> None:
    single = make_pod("single").req(cpu="1").obj()
    s = _run(_cluster(2, ["3", "3", "3"], min_count=3, extra=(single,)))
    assert s.node_of("default/single")
    assert not any(s.node_of(f"default/w{i}") for i in range(3))


def test_the_pod_group_must_exist() -> None:
    objs = [Node(name="n0", allocatable={"cpu": "4", "memory": "8Gi", "pods": "110"}),
            make_pod("w0").req(cpu="1").obj().evolve(scheduling_group="missing")]
    s = _run(objs)
    assert not s.node_of("default/w0")
    assert 'waiting for pods\'s pod group "missing" to appear in scheduling queue' in s.queue.gating_message(
        s.get_pod("default/w0"))


def test_the_live_scheduler_watches_each_kind_in_the_version_its_release_serves() -> None:
    from schedframe.kube import scheduler_resources

    def watched(release: str) -> set[tuple[str, str]]:
        return {(r.kind, r.api_version) for r in scheduler_resources(release)
                if r.api_version.startswith("scheduling.k8s.io/")}

    assert watched("1.34") == set()
    assert watched("1.35") == {("Workload", "scheduling.k8s.io/v1alpha1")}
    assert watched("1.36") == {("Workload", "scheduling.k8s.io/v1alpha2"),
                               ("PodGroup", "scheduling.k8s.io/v1alpha2")}
    assert watched("1.37") == {("Workload", "scheduling.k8s.io/v1beta1"),
                               ("PodGroup", "scheduling.k8s.io/v1beta1"),
                               ("CompositePodGroup", "scheduling.k8s.io/v1alpha3")}


GANG_136_SCENARIO = """
name: gang136
nodes:
- name: "n{i}"
  count: 2
  template: {status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}
objects:
- apiVersion: scheduling.k8s.io/v1alpha2
  kind: PodGroup
  metadata: {name: training-workers, namespace: default}
  spec:
    schedulingPolicy: {gang: {minCount: 4}}
workloads:
- name: worker
  kind: Pod
  replicas: 4
  template:
    spec:
      schedulingGroup: {podGroupName: training-workers}
      containers: [{name: w, resources: {requests: {cpu: "CPU"}}}]
"""


@pytest.mark.parametrize(("cpu", "placed"), [("2", 4), ("3", 0)])
def test_the_simulator_runs_a_pod_group_and_names_the_blocking_gang(cpu: str, placed: int) -> None:
    from schedframe.sim import simulate
    from schedframe.sim.scenario import Scenario

    r = simulate(Scenario.from_text(GANG_136_SCENARIO.replace("CPU", cpu)), kubernetes_version="1.36",
                 feature_gates=GATES_136)
    assert sum(bool(p.node) for p in r.pods) == placed
    blocks = r.gang_blocked
    if placed:
        assert not blocks
    else:
        [block] = blocks
        assert (block.kind, block.group, block.min_member, block.placed) == (
            "scheduling.k8s.io PodGroup", "default/training-workers", 4, 0)
        assert "(0 of minCount 4 placed)" in block.describe()


# -- explaining a group -----------------------------------------------------------------------------

def _config_136() -> Any:
    from schedframe import SchedulerConfiguration

    return SchedulerConfiguration.default(kubernetes_version="1.36", feature_gates=GATES_136)


@pytest.mark.parametrize(("cpus", "feasible", "message"), [
    (["1", "1", "1"], True, "pod group default/g can be placed: 3 of 3 members fit (minCount 3)"),
    (["3", "3", "3"], False, "pod group default/g cannot be placed: 2 of 3 members fit (minCount 3); "
                             "default/w2: 0/2 nodes are available: 2 Insufficient cpu."),
    (["1", "1"], False, "pod group default/g cannot be placed: 0 of 2 members fit (minCount 3); "
                        "default/w0: waiting for minCount pods from a gang to appear in scheduling queue"),
])
def test_explain_group_says_which_member_keeps_the_group_out(cpus: list[str], feasible: bool,
                                                             message: str) -> None:
    from schedframe.scheduler import explain_group

    objs = _cluster(2, cpus, min_count=3)
    w0 = next(o for o in objs if isinstance(o, Pod) and o.name == "w0")
    g = explain_group(w0, objects=objs, config=_config_136())
    assert g.feasible is feasible
    assert g.message.startswith(message)
    assert [e.pod.name for e in g.members] == [f"w{i}" for i in range(len(cpus))]
    # each member saw the ones before it placed: the first two 3-CPU members take both nodes
    if cpus[0] == "3":
        assert {n for _, n in g.placed} == {"n0", "n1"}
    assert g.to_dict()["feasible"] is feasible


def test_explain_group_needs_a_group() -> None:
    from schedframe.errors import SchedulerError
    from schedframe.scheduler import explain_group

    with pytest.raises(SchedulerError, match="names no pod group"):
        explain_group(make_pod("plain").obj())
    with pytest.raises(SchedulerError, match="names pod group 'missing', which is not in the cluster"):
        explain_group(make_pod("w").obj().evolve(scheduling_group="missing"))


def test_the_cli_explains_a_group(tmp_path: Any, capsys: pytest.CaptureFixture[str]) -> None:
    from schedframe.cli import main

    objs = _cluster(2, ["3", "3", "3"], min_count=3)
    dump = tmp_path / "dump.yaml"
    dump.write_text(dump_manifests(objs, "yaml"))
    code = main(["explain", "default/w0", "--cluster", str(dump), "--group", "--plain",
                 "--kubernetes-version", "1.36", "--feature-gates", GATES_136])
    out = capsys.readouterr().out
    assert code == 0
    assert out.startswith("pod group default/g cannot be placed: 2 of 3 members fit (minCount 3)")
    assert "== default/w2" in out
    code = main(["explain", "default/w0", "--cluster", str(dump), "--group", "--json",
                 "--kubernetes-version", "1.36", "--feature-gates", GATES_136])
    import json

    assert json.loads(capsys.readouterr().out)["placed"] == [{"pod": "default/w0", "node": "n1"},
                                                            {"pod": "default/w1", "node": "n0"}]


@pytest.mark.parametrize(("release", "gates", "bound_at"), [
    ("1.35", GATES_136, [300.0] * 4),
    ("1.36", GATES_136, [300.0] * 4),
    ("1.37", "GenericWorkload=true", [300.0] * 4),
    ("1.37", None, [10.0, 11.0, 12.0, 300.0]),
])
def test_the_training_rack_scenario_per_release(release: str, gates: str | None,
                                                bound_at: list[float]) -> None:
    """The built-in training job: kube-scheduler's own gang (1.35's Workload, 1.36's and 1.37's
    PodGroup) waits until rack b has four free nodes and binds them together; as plain pods
    (without the gates) three take their nodes at once and idle until the fourth fits."""
    from schedframe.sim import builtin_scenario, simulate

    r = simulate(builtin_scenario("training-rack", kubernetes_version=release), kubernetes_version=release,
                 feature_gates=gates)
    train = [p for p in r.pods if p.workload == "train"]
    assert sorted(p.bound_at for p in train) == bound_at
    assert {p.node.rsplit("-", 1)[0] for p in train} == {"rack-b"}  # one rack


@pytest.mark.parametrize(("release", "gates", "gang"), [
    ("1.35", GATES_136, True),
    ("1.36", GATES_136, True),
    ("1.37", "GenericWorkload=true", True),
    ("1.37", None, False),
])
def test_the_leader_workers_scenario_per_release(release: str, gates: str | None, gang: bool) -> None:
    """The built-in JobSet-like set: a CPU-only leader and three 8-GPU workers in one gang, one
    of the three GPU nodes busy until its job ends. kube-scheduler's own gang binds the four
    together when that node frees; plain pods bind the leader and two workers on arrival and
    leave them waiting for the third worker."""
    from schedframe.sim import builtin_scenario, simulate

    scenario = builtin_scenario("leader-workers", kubernetes_version=release)
    busy = next(w.duration for w in scenario.workloads if w.name == "busy")
    assert busy is not None
    assert busy.kind == "fixed"
    freed = busy.a  # when the busy job ends
    r = simulate(scenario, kubernetes_version=release, feature_gates=gates)
    leader = [p for p in r.pods if p.workload == "leader"]
    workers = sorted((p for p in r.pods if p.workload == "workers"), key=lambda p: p.bound_at or 0.0)
    assert len(leader) == 1
    assert len(workers) == 3
    assert len({p.node for p in workers}) == 3  # one 8-GPU worker per GPU node
    if gang:
        assert {p.bound_at for p in [*leader, *workers]} == {freed}
    else:
        assert leader[0].bound_at == 10.0
        assert [p.bound_at for p in workers] == [11.0, 12.0, freed]


@pytest.mark.parametrize(("release", "gates", "kind"), [
    ("1.36", GATES_136, "PodGroupScheduled"),
    ("1.37", "GenericWorkload=true", "PodGroupInitiallyScheduled"),
])
def test_the_cycle_writes_its_outcome_on_the_pod_group(release: str, gates: str, kind: str) -> None:
    """The PodGroup's condition after its cycle: True (Scheduled) once the gang binds; False
    (Unschedulable) with the group's message when it cannot; and a group scheduled once stays
    True when a later member fails (upstream does not regress it)."""
    from schedframe.api import SchedulingPodGroup

    api = "scheduling.k8s.io/v1alpha2" if release == "1.36" else "scheduling.k8s.io/v1beta1"

    def condition(s: Scheduler) -> Any:
        pg = s.objects.get(SchedulingPodGroup, "g", "default")
        assert pg is not None
        return {(c.type, c.status, c.reason) for c in pg.conditions}

    fits = _run(_cluster(2, ["1", "1", "1"], min_count=3, api_version=api), release, gates)
    assert condition(fits) == {(kind, "True", "Scheduled")}
    too_big = _run(_cluster(1, ["3", "3", "3"], min_count=3, api_version=api), release, gates)
    assert condition(too_big) == {(kind, "False", "Unschedulable")}
    pg = too_big.objects.get(SchedulingPodGroup, "g", "default")
    assert pg is not None
    if release == "1.36":  # the group's own status; its feasible members say their Permit's wait
        assert pg.conditions[0].message == "pod group is unschedulable"
    else:  # the feasible member's message is the group's, behind the group error
        assert _messages(too_big, "w0")[0] == f"pod group is unschedulable, {pg.conditions[0].message}"
    # the gang binds (minCount 2 of three), the third member fits nowhere afterwards
    later = _run(_cluster(1, ["2", "2", "3"], min_count=2, api_version=api), release, gates)
    assert sorted(bool(later.node_of(f"default/w{i}")) for i in range(3)) == [False, True, True]
    assert condition(later) == {(kind, "True", "Scheduled")}
