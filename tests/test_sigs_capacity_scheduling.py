"""CapacityScheduling and ElasticQuota: tables ported from scheduler-plugins v0.34.7
(``pkg/capacityscheduling/capacity_scheduling_test.go``), plus scheduler runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schedframe import (
    Code,
    CycleState,
    Pod,
    Scheduler,
    SchedulerConfiguration,
    load_manifests,
    object_to_manifest,
)
from schedframe.api import ElasticQuota
from schedframe.cache.nodeinfo import PodInfo
from schedframe.plugins.sigs import capacity_scheduling as cs
from schedframe.plugins.sigs.elastic_quota_info import QuotaInfo, UsageTracker
from schedframe.testing import PluginHarness, make_node, make_pod

DATA = Path(__file__).parent / "data" / "scheduler-plugins"
HIGH, MID, LOW = 1000, 100, 10


def eq(ns: str, *, min: dict[str, Any] | None = None, max: dict[str, Any] | None = None) -> ElasticQuota:
    return ElasticQuota(f"eq-{ns}", ns, min=min or {}, max=max or {})


def mpod(name: str, ns: str, mem: int, priority: int = 0, node: str = "") -> Pod:
    b = make_pod(name, ns).req(memory=str(mem)).priority(priority)
    return (b.node(node) if node else b).obj()


# --------------------------------------------------------------------------------------------
# ElasticQuota objects


def test_elastic_quota_manifest_round_trip() -> None:
    """The published example reads into an ElasticQuota and writes back equal."""
    (quota,) = load_manifests((DATA / "capacityscheduling-elasticquota-example.yaml").read_text())
    assert isinstance(quota, ElasticQuota)
    assert (quota.name, quota.namespace) == ("test", "test")
    assert str(quota.max["nvidia.com/gpu"]) == "2"
    assert str(quota.min["memory"]) == "20Gi"
    assert ElasticQuota.from_manifest(object_to_manifest(quota)) == quota
    with_status = quota.to_manifest() | {"status": {"used": {"cpu": "3"}}}
    assert str(ElasticQuota.from_manifest(with_status).used["cpu"]) == "3"


def test_elastic_quota_bad_field_names_the_path() -> None:
    """A malformed quantity is a ManifestError naming spec.max.cpu."""
    from schedframe import ManifestError

    with pytest.raises(ManifestError, match=r"spec\.max\.cpu"):
        ElasticQuota.from_manifest({"metadata": {"name": "q"}, "spec": {"max": {"cpu": "lots"}}})


# --------------------------------------------------------------------------------------------
# PreFilter (upstream TestPreFilter; "used" is what bound pods of the namespace request)


@pytest.mark.parametrize(
    ("quotas", "used", "pods", "want"),
    [
        pytest.param([eq("ns1", min={"memory": 1000}, max={"memory": 2000})], [("ns1", 300)],
                     [("ns1-p1", "ns1", 500), ("ns1-p2", "ns1", 1800)],
                     [Code.SUCCESS, Code.UNSCHEDULABLE], id="pod subjects to ElasticQuota"),
        pytest.param([eq("ns1", min={"memory": 1000}, max={"memory": 2000}),
                      eq("ns2", min={"memory": 1000}, max={"memory": 2000})], [("ns1", 1800), ("ns2", 200)],
                     [("ns2-p1", "ns2", 500)], [Code.UNSCHEDULABLE],
                     id="the sum of used is bigger than the sum of min"),
        pytest.param([], [], [("ns2-p1", "ns2", 500)], [Code.SUCCESS], id="without elasticQuotaInfo"),
    ],
)
def test_pre_filter(quotas: list[ElasticQuota], used: list[tuple[str, int]],
                    pods: list[tuple[str, str, int]], want: list[Code]) -> None:
    """PreFilter refuses pods over their quota's max or over the quotas' total min."""
    bound = [mpod(f"used-{ns}", ns, mem, node="n1") for ns, mem in used]
    h = PluginHarness("CapacityScheduling", nodes=[make_node("n1").obj()], pods=bound, objects=quotas)
    got = [h.pre_filter(mpod(name, ns, mem))[1].code for name, ns, mem in pods]
    assert got == want


def test_pre_filter_messages_are_upstreams() -> None:
    """The rejection reasons name the pod and, over max, the quota's namespace."""
    h = PluginHarness("CapacityScheduling", nodes=[make_node("n1").obj()],
                      objects=[eq("ns1", min={"memory": 100}, max={"memory": 200}),
                               eq("ns2", min={"memory": 100}, max={"memory": 400})])
    _, status = h.pre_filter(mpod("big", "ns1", 300))
    assert list(status.reasons) == [
        "Pod ns1/big is rejected in PreFilter because ElasticQuota ns1 is more than Max"]
    _, status = h.pre_filter(mpod("wide", "ns2", 300))
    assert list(status.reasons) == [cs.ERR_OVER_MIN.format("ns2", "wide")]


def test_pre_filter_counts_nominated_pods_of_the_quota() -> None:
    """A nominated pod of the same quota with at least the pod's priority counts against max
    (the harness passes an unbound pod with nominatedNodeName as a nomination)."""
    quotas = [eq("ns1", min={"memory": 1000}, max={"memory": 1000})]
    nominated = make_pod("nom", "ns1").req(memory="600").priority(MID).nominated_node_name("n1").obj()
    h = PluginHarness("CapacityScheduling", nodes=[make_node("n1").obj()], pods=[nominated], objects=quotas)
    assert h.pre_filter(mpod("p", "ns1", 500, LOW))[1].code is Code.UNSCHEDULABLE
    h2 = PluginHarness("CapacityScheduling", nodes=[make_node("n1").obj()], objects=quotas)
    assert h2.pre_filter(mpod("p", "ns1", 500, LOW))[1].code is Code.SUCCESS
    # a nominated pod of lower priority does not count
    assert h.pre_filter(mpod("p", "ns1", 500, HIGH))[1].code is Code.SUCCESS


def test_quota_bounds_follow_upstream() -> None:
    """A missing max bounds cpu/memory/storage at MaxInt64 and leaves extended resources free; a
    missing min guarantees 0; a max naming only cpu allows no memory (upstream NewResource)."""
    free = QuotaInfo.of(eq("a"))
    big = make_pod("p").req(cpu="1000", memory="1Ti").container(name="g", **{"nvidia.com/gpu": "8"}).obj()
    assert not free.used_over_max_with(big.requests)
    assert free.used_over_min_with(big.requests)
    only_cpu = QuotaInfo.of(eq("a", max={"cpu": "4"}))
    assert only_cpu.used_over_max_with(make_pod("m").req(memory="1").obj().requests)
    assert not only_cpu.used_over_max_with(make_pod("c").req(cpu="4").obj().requests)


def test_pre_filter_extensions_count_each_pod_once() -> None:
    """AddPod/RemovePod on the cycle's copy change used once per pod, and clones are independent."""
    quotas = [eq("ns1", min={"memory": 1000}, max={"memory": 2000})]
    bound = mpod("b", "ns1", 300, node="n1")
    h = PluginHarness("CapacityScheduling", nodes=[make_node("n1").obj()], pods=[bound], objects=quotas)
    h.pre_filter(mpod("p", "ns1", 10))
    state: CycleState = h.state
    plugin = h.plugin
    assert isinstance(plugin, cs.CapacityScheduling)
    info = state.read(cs.QUOTA_SNAPSHOT_KEY).get("ns1")
    assert info is not None
    assert info.used.memory == 300
    ni = h.snapshot.node_infos().get("n1")
    assert ni is not None
    plugin.add_pod(state, bound, PodInfo.of(bound), ni)  # already counted
    assert info.used.memory == 300
    clone = state.clone()
    plugin.remove_pod(clone, bound, PodInfo.of(bound), ni)
    plugin.remove_pod(clone, bound, PodInfo.of(bound), ni)
    assert clone.read(cs.QUOTA_SNAPSHOT_KEY).get("ns1").used.memory == 0  # type: ignore[union-attr]
    assert info.used.memory == 300
    extra = mpod("x", "ns1", 50)
    plugin.add_pod(state, extra, PodInfo.of(extra), ni)
    plugin.add_pod(state, extra, PodInfo.of(extra), ni)
    assert info.used.memory == 350


def test_usage_follows_the_snapshot_incrementally() -> None:
    """Usage is the requests of the non-terminal pods on nodes, per namespace."""
    from schedframe.cache.snapshot import Snapshot

    nodes = [make_node("n1").obj(), make_node("n2").obj()]
    t = UsageTracker()
    snap = Snapshot.from_objects(nodes, [mpod("a", "x", 10, node="n1"), mpod("b", "x", 5, node="n2")])
    assert t.usage(snap)["x"].memory == 15
    snap2 = Snapshot.from_objects(nodes[:1], [mpod("a", "x", 10, node="n1")])
    assert t.usage(snap2)["x"].memory == 10


# --------------------------------------------------------------------------------------------
# PostFilter (upstream TestPostFilter), through the scheduler: node-a holds 150 bytes of memory


def config() -> SchedulerConfiguration:
    return SchedulerConfiguration.from_yaml((DATA / "capacityscheduling-scheduler-config.yaml").read_text())


def run(quotas: list[ElasticQuota], existing: list[Pod], pod: Pod) -> Scheduler:
    s = Scheduler(config())
    s.add_node(make_node("node-a").capacity(memory="150", cpu="4", pods=10).obj())
    for q in quotas:
        s.add_object(q)
    for p in existing:
        s.add_pod(p)
    s.add_pod(pod)
    s.run_until_idle(max_cycles=20)
    return s


EXISTING = [mpod("t1-p2", "ns1", 50, MID, "node-a"), mpod("t1-p3", "ns2", 50, MID, "node-a"),
            mpod("t1-p4", "ns2", 50, MID, "node-a")]


@pytest.mark.parametrize(
    ("quotas", "evicted_ns"),
    [
        pytest.param([eq("ns1", min={"memory": 50}, max={"memory": 200}),
                      eq("ns2", min={"memory": 200}, max={"memory": 200})], {"ns1"},
                     id="in-namespace preemption"),
        pytest.param([eq("ns1", min={"memory": 150}, max={"memory": 200}),
                      eq("ns2", min={"memory": 50}, max={"memory": 200})], {"ns2"},
                     id="cross-namespace preemption"),
        pytest.param([], None, id="without elasticQuotas"),
    ],
)
def test_post_filter(quotas: list[ElasticQuota], evicted_ns: set[str] | None) -> None:
    """The preemptor lands on node-a after evicting one pod: of its own quota when the quota
    is at its min, of a quota above its min when its own guarantee is lent out."""
    s = run(quotas, EXISTING, mpod("t1-p1", "ns1", 50, HIGH))
    assert s.node_of("ns1/t1-p1") == "node-a"
    gone = {p.key for p in EXISTING if s.node_of(p.key) is None}
    assert len(gone) == 1
    if evicted_ns is not None:
        assert {k.split("/")[0] for k in gone} == evicted_ns


def test_borrowed_capacity_is_reclaimed_regardless_of_priority() -> None:
    """A lower-priority pod of a quota under its min evicts a higher-priority borrower."""
    quotas = [eq("ns1", min={"memory": 100}, max={"memory": 150}),
              eq("ns2", min={"memory": 50}, max={"memory": 150})]
    existing = [mpod("b1", "ns2", 50, HIGH, "node-a"), mpod("b2", "ns2", 50, HIGH, "node-a"),
                mpod("a1", "ns1", 50, LOW, "node-a")]
    s = run(quotas, existing, mpod("a2", "ns1", 50, LOW))
    assert s.node_of("ns1/a2") == "node-a"
    assert [s.node_of(k) for k in ("ns2/b1", "ns2/b2")].count(None) == 1


def test_pod_over_its_max_stays_pending_with_the_quota_named() -> None:
    """A pod its quota's max cannot hold stays pending; the reason names the quota."""
    s = run([eq("ns1", min={"memory": 50}, max={"memory": 100})], [mpod("a", "ns1", 100, node="node-a")],
            mpod("b", "ns1", 10))
    (pending,) = s.pending()
    assert "ElasticQuota ns1 is more than Max" in pending.message


# --------------------------------------------------------------------------------------------
# Simulation: two tenants, borrowing and reclaim


def test_two_tenant_scenario_borrows_and_reclaims() -> None:
    """team-a borrows up to its max (6 CPUs); team-b's arrival preempts it back to its min (4)."""
    from schedframe.sim import Scenario, simulate

    scenario = Scenario.from_file(DATA / "elasticquota-two-tenants.yaml")
    result = simulate(scenario)
    running = {p.key: p for p in result.pods if p.state == "Running"}
    assert sum(1 for k in running if k.startswith("team-a/")) == 4
    assert sum(1 for k in running if k.startswith("team-b/")) == 4
    preempted = [p for p in result.pods if p.state == "Preempted"]
    assert len(preempted) == 2
    assert all(p.key.startswith("team-a/") for p in preempted)


def test_two_tenant_scenario_in_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    """`schedframe simulate` shows the preemptions; --explain names the quota of a rejected pod."""
    from schedframe.cli.main import main

    path = str(DATA / "elasticquota-two-tenants.yaml")
    assert main(["simulate", path, "--plain", "--pods"]) == 0
    out = capsys.readouterr().out
    assert "preempted by team-b/" in out
    assert main(["simulate", path, "--json", "--explain", "team-a/a-6"]) == 0
    attempts = json.loads(capsys.readouterr().out)["results"][0]["explanations"]["team-a/a-6"]
    assert attempts[0]["message"] == ("0/2 nodes are available: Pod team-a/a-6 is rejected in PreFilter "
                                      "because ElasticQuota team-a is more than Max.")


def test_two_tenant_scenario_text_shows_borrowing_and_reclaim(capsys: pytest.CaptureFixture[str]) -> None:
    """The plain pods table: before team-b arrives (t=60) team-a runs 6 pods of 1 CPU -- 2 above
    its min of 4, borrowed from team-b -- and two of them are then preempted by team-b's pods,
    which all run, leaving team-a at its min."""
    from schedframe.cli.main import main

    assert main(["simulate", str(DATA / "elasticquota-two-tenants.yaml"), "--plain", "--pods"]) == 0
    rows = [line.split("\t") for line in capsys.readouterr().out.splitlines() if line.startswith("team-")]
    # POD STATE NODE ARRIVAL BOUND WAIT ATTEMPTS NOTE
    bound_early = [r for r in rows if r[0].startswith("team-a/") and r[4] != "-" and float(r[4][:-1]) < 60]
    assert len(bound_early) == 6
    preempted = [r for r in rows if r[1] == "Preempted"]
    assert len(preempted) == 2
    assert all(r[0].startswith("team-a/") and r[7].startswith("preempted by team-b/") for r in preempted)
    assert sum(1 for r in rows if r[0].startswith("team-a/") and r[1] == "Running") == 4
    assert sum(1 for r in rows if r[0].startswith("team-b/") and r[1] == "Running") == 4


EXPLAIN_CLUSTER = """\
apiVersion: v1
kind: Node
metadata: {name: node-a}
status: {allocatable: {cpu: "8", memory: 16Gi, pods: "110"}}
---
apiVersion: scheduling.x-k8s.io/v1alpha1
kind: ElasticQuota
metadata: {name: quota-a, namespace: team-a}
spec: {min: {cpu: "1", memory: 1Gi}, max: {cpu: "2", memory: 4Gi}}
---
apiVersion: v1
kind: Pod
metadata: {name: running, namespace: team-a}
spec:
  nodeName: node-a
  containers: [{name: c, resources: {requests: {cpu: "2", memory: 1Gi}}}]
"""
EXPLAIN_POD = """\
apiVersion: v1
kind: Pod
metadata: {name: extra, namespace: team-a}
spec:
  containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]
"""
OVER_MAX = "Pod team-a/extra is rejected in PreFilter because ElasticQuota team-a is more than Max"


@pytest.mark.parametrize("rich", [False, True], ids=["plain", "rich"])
def test_explain_names_the_quota(rich: bool, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """`schedframe explain` of a pod over its quota's max: the result, the PreFilter row
    (plain) and the node's verdict carry upstream's message naming the ElasticQuota."""
    from schedframe.cli.main import main

    if rich:
        pytest.importorskip("rich")
        monkeypatch.setenv("COLUMNS", "300")
    (tmp_path / "cluster.yaml").write_text(EXPLAIN_CLUSTER)
    (tmp_path / "pod.yaml").write_text(EXPLAIN_POD)
    argv = ["explain", str(tmp_path / "pod.yaml"), "--cluster", str(tmp_path / "cluster.yaml"),
            "--config", str(DATA / "capacityscheduling-scheduler-config.yaml")]
    assert main(argv if rich else [*argv, "--plain"]) == 0
    out = capsys.readouterr().out
    text = " ".join(out.split())
    assert f"0/1 nodes are available: {OVER_MAX}." in text
    assert f"filtered out: {OVER_MAX}" in text
    if not rich:
        (row,) = [line for line in out.splitlines() if line.strip().startswith("CapacityScheduling")]
        assert row.split()[1] == "Unschedulable"
        assert row.rstrip().endswith(OVER_MAX)
    else:
        assert "╇" in out  # rich tables
