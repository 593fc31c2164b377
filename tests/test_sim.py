"""The discrete-event simulator: determinism and replay, what-if, node events, preemption and
controller recreation, durations, gangs at Permit, scale-down and scenario errors -- all on the
virtual clock (no timing is asserted)."""

from __future__ import annotations

import io
import json
import pickle
from pathlib import Path

import pytest

from schedframe import Node, Pod, ScenarioError, SchedulerConfiguration
from schedframe.api import Taint
from schedframe.plugins.node_resources_fit import ERR_REASON_INSUFFICIENT_CPU
from schedframe.sim import (
    BUILTIN_SCENARIOS,
    EVICTED,
    PENDING,
    PREEMPTED,
    RUNNING,
    SUCCEEDED,
    Arrival,
    ConfigSpec,
    Distribution,
    NodeEvent,
    Scale,
    Scenario,
    Workload,
    builtin_scenario,
    compare,
    read_log,
    replay,
    simulate,
)
from schedframe.testing import make_node, make_pod

DATA = Path(__file__).parent / "data"


def node(name: str, cpu: str = "4", zone: str = "a") -> Node:
    return (
        make_node(name)
        .capacity(cpu=cpu, memory="16Gi", pods=110)
        .label("kubernetes.io/hostname", name)
        .label("topology.kubernetes.io/zone", zone)
        .obj()
    )


def template(cpu: str = "1", priority: int | None = None) -> Pod:
    b = make_pod("t").req(cpu=cpu, memory="1Gi")
    if priority is not None:
        b = b.priority(priority)
    return b.obj()


def most_allocated() -> SchedulerConfiguration:
    return SchedulerConfiguration.from_dict(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "schedulerName": "default-scheduler",
                    "pluginConfig": [
                        {
                            "name": "NodeResourcesFit",
                            "args": {
                                "scoringStrategy": {
                                    "type": "MostAllocated",
                                    "resources": [{"name": "cpu", "weight": 1}],
                                }
                            },
                        }
                    ],
                }
            ],
        }
    )


# -- determinism and replay ---------------------------------------------------------------------------


def test_same_inputs_same_result_and_results_pickle() -> None:
    """Two runs of (scenario, config, seed) give equal results, which survive pickling."""
    a = simulate("three-zones", seed=3)
    b = simulate("three-zones", seed=3)
    assert a == b
    assert pickle.loads(pickle.dumps(a)) == a
    gang = builtin_scenario("gang")  # scenarios (with their configurations) pickle too
    assert pickle.loads(pickle.dumps(gang)) == gang
    assert a.metrics.placed > 0


def test_another_seed_draws_other_arrivals() -> None:
    """The seed drives the arrival and run-time draws."""
    a = simulate("batch-burst", seed=0, until=60)
    b = simulate("batch-burst", seed=1, until=60)
    assert [p.arrival for p in a.pods] != [p.arrival for p in b.pods]


@pytest.mark.parametrize("name", sorted(BUILTIN_SCENARIOS))
def test_replay_of_the_event_log_gives_the_identical_result(name: str, tmp_path: Path) -> None:
    """The JSON Lines event log replays to an equal result (every built-in scenario)."""
    log = tmp_path / "run.jsonl"
    result = simulate(name, log=log, until=400)
    lines = log.read_text().splitlines()
    header = json.loads(lines[0])
    assert header["op"] == "header"
    assert header["scenario"] == name
    assert replay(log) == result
    assert replay(lines) == result  # the lines themselves work too


def test_replay_needs_no_scenario_and_reports_a_tampered_log(tmp_path: Path) -> None:
    """A log is self-contained; an edited outcome is caught by the metrics check."""
    buf = io.StringIO()
    simulate("drain-preemption", log=buf)
    lines = buf.getvalue().splitlines()
    plan, _config, name, seed, until = read_log(lines)
    assert plan.name == "drain-preemption"
    assert name == "default"
    assert seed == 0
    assert until == 1200
    end = json.loads(lines[-1])
    end["metrics"]["placed"] += 1
    with pytest.raises(ScenarioError, match=r"end\.metrics"):
        replay([*lines[:-1], json.dumps(end)])


def test_a_broken_log_names_the_line(tmp_path: Path) -> None:
    """Malformed logs raise ScenarioError naming the line."""
    with pytest.raises(ScenarioError, match="line 1"):
        replay(["{not json"])
    with pytest.raises(ScenarioError, match=r"line 1\.op"):
        replay([json.dumps({"op": "bound"})])
    with pytest.raises(ScenarioError, match="no header"):
        replay([])


# -- what-if ------------------------------------------------------------------------------------------


def test_what_if_spreads_or_packs_and_reports_moved_pods() -> None:
    """LeastAllocated spreads two pods over two nodes, MostAllocated packs them; compare says so."""
    scenario = Scenario(
        "two",
        nodes=[node("n1"), node("n2")],
        workloads=[Workload("app", template("1"), replicas=2, arrival=Arrival(0, Distribution.fixed(1)))],
        configs=[ConfigSpec("spread", None), ConfigSpec("pack", most_allocated())],
    )
    cmp = compare(scenario)
    spread, pack = cmp.result("spread"), cmp.result("pack")
    assert len(set(spread.placements().values())) == 2
    assert len(set(pack.placements().values())) == 1
    assert cmp.moved
    assert all(set(v) == {"spread", "pack"} for v in cmp.moved.values())
    rows = {r["config"]: r for r in cmp.rows()}
    assert rows["spread"]["placed"] == rows["pack"]["placed"] == 2
    assert rows["pack"]["moved"] == len(cmp.moved)


# -- durations, events, preemption ---------------------------------------------------------------------


def test_pods_complete_after_their_duration_and_free_the_node() -> None:
    """A Job pod runs its duration; the pod queued behind it binds when it completes."""
    scenario = Scenario(
        "jobs",
        nodes=[node("n1", cpu="1")],
        workloads=[Workload("job", template("1"), replicas=2, kind="Job", duration=Distribution.fixed(30))],
    )
    r = simulate(scenario)
    first, second = r.pod("job-0"), r.pod("job-1")
    assert (first.state, first.bound_at, first.ended_at) == (SUCCEEDED, 0.0, 30.0)
    assert (second.state, second.bound_at, second.wait) == (SUCCEEDED, 30.0, 30.0)
    assert second.attempts >= 2
    assert second.first_attempt == 0.0
    assert second.last_attempt == 30.0
    assert r.metrics.completed == 2
    assert r.metrics.end == 60.0
    series = next(n for n in r.nodes if n.node == "n1")
    assert series.at(10, "cpu") == 1000
    assert series.at(60, "cpu") == 0


def test_node_added_later_takes_the_pending_pod_at_that_time() -> None:
    """A pending pod binds when a node joins (add at t=50)."""
    scenario = Scenario(
        "grow",
        nodes=[node("n1", cpu="1")],
        workloads=[Workload("w", template("1"), replicas=2)],
        events=[NodeEvent(50, "add", node=node("n2", cpu="2"))],
    )
    r = simulate(scenario)
    late = r.pod("w-1")
    assert (late.node, late.bound_at, late.wait) == ("n2", 50.0, 50.0)
    assert r.samples[-1].allocatable["cpu"] == 3000


def test_cordon_and_taint_steer_later_arrivals() -> None:
    """After a cordon (t=10) and a taint (t=20), new pods avoid those nodes."""
    scenario = Scenario(
        "steer",
        nodes=[node("n1"), node("n2"), node("n3")],
        workloads=[
            Workload("a", template("100m"), replicas=3, arrival=Arrival(15, Distribution.fixed(0.1))),
            Workload("b", template("100m"), replicas=3, arrival=Arrival(25, Distribution.fixed(0.1))),
        ],
        events=[
            NodeEvent(10, "cordon", nodes=["n1"]),
            NodeEvent(20, "taint", nodes=["n2"], taint=Taint(key="k", value="v", effect="NoSchedule")),
        ],
    )
    r = simulate(scenario)
    assert {r.pod(f"a-{i}").node for i in range(3)} <= {"n2", "n3"}
    assert {r.pod(f"b-{i}").node for i in range(3)} == {"n3"}


def test_drain_evicts_and_the_controller_recreates_elsewhere() -> None:
    """Drain cordons the node and evicts its pods; owned pods come back under new names."""
    scenario = Scenario(
        "drain",
        nodes=[node("n1"), node("n2")],
        workloads=[Workload("web", template("1"), replicas=4)],
        events=[NodeEvent(100, "drain", nodes=["n1"])],
    )
    r = simulate(scenario)
    evicted = [p for p in r.pods if p.state == EVICTED]
    assert evicted
    assert all(p.node == "n1" and p.ended_at == 100.0 and p.replaced_by for p in evicted)
    for p in evicted:
        new = r.pod(p.replaced_by)
        assert new.arrival == 100.0
        assert new.node == "n2"
        assert new.state == RUNNING
        assert new.key not in {q.key for q in evicted}
    assert r.metrics.recreated == len(evicted)
    assert r.metrics.running == 4


def test_node_removal_deletes_its_pods_and_bare_pods_are_not_recreated() -> None:
    """Removing a node deletes its pods; kind Pod (no controller) is not recreated."""
    scenario = Scenario(
        "rm",
        nodes=[node("n1", cpu="1")],
        workloads=[Workload("bare", template("1"), kind="Pod")],
        events=[NodeEvent(5, "remove", nodes=["n1"])],
    )
    r = simulate(scenario)
    p = r.pod("bare-0")
    assert (p.state, p.ended_at, p.replaced_by) == (EVICTED, 5.0, "")
    assert r.samples[-1].nodes == 0


def test_preemption_on_the_virtual_clock_with_controller_recreation() -> None:
    """A high-priority pod arriving at t=10 preempts a low-priority Job pod; the Job recreates it,
    and the replacement stays pending with the scheduler's message."""
    scenario = Scenario(
        "preempt",
        nodes=[node("n1", cpu="2")],
        workloads=[
            Workload("low", template("1", priority=10), replicas=2, kind="Job"),
            Workload("high", template("2", priority=1000), arrival=Arrival(10)),
        ],
    )
    r = simulate(scenario)
    high = r.pod("high-0")
    assert high.node == "n1"
    assert high.bound_at is not None
    assert 10.0 <= high.bound_at <= 11.0
    victims = [p for p in r.pods if p.state == PREEMPTED]
    assert len(victims) == 2
    assert all(v.preempted_by == high.key and v.ended_at == 10.0 for v in victims)
    replacements = [r.pod(v.replaced_by) for v in victims]
    assert all(p.arrival == 10.0 and p.state == PENDING and p.workload == "low" for p in replacements)
    assert all(ERR_REASON_INSUFFICIENT_CPU in p.message for p in replacements)
    assert r.metrics.preemptions == 2
    assert r.metrics.pending == 2


def test_scale_down_deletes_pending_pods_first_then_the_newest() -> None:
    """Scaling 4 -> 1 removes the pending pod, then the newest running ones."""
    scenario = Scenario(
        "scale",
        nodes=[node("n1", cpu="3")],
        workloads=[Workload("w", template("1"), replicas=4, scale=[Scale(60, 1)])],
    )
    r = simulate(scenario)
    assert r.pod("w-3").state == "Deleted"
    assert r.pod("w-3").bound_at is None
    assert [r.pod(f"w-{i}").state for i in range(3)] == [RUNNING, "Deleted", "Deleted"]


def test_scale_up_adds_pods_at_the_scale_time() -> None:
    """Scaling 1 -> 3 creates two pods at the scale time."""
    scenario = Scenario(
        "up", nodes=[node("n1")], workloads=[Workload("w", template("1"), scale=[Scale(30, 3)])]
    )
    r = simulate(scenario)
    assert [p.arrival for p in r.pods] == [0.0, 30.0, 30.0]


def test_gang_waits_at_permit_on_the_virtual_clock() -> None:
    """A Coscheduling gang that cannot fit waits at Permit, times out (the clock moves), and
    binds all together when a node joins."""
    cfg = builtin_scenario("gang").configs[0]
    gang_tpl = make_pod("t").req(cpu="1").label("scheduling.x-k8s.io/pod-group", "g").obj()
    scenario = Scenario(
        "gang",
        nodes=[node("n1", cpu="2")],
        workloads=[Workload("g", gang_tpl, replicas=3, kind="Job", gang=3, gang_timeout=10)],
        events=[NodeEvent(100, "add", node=node("n2", cpu="2"))],
        configs=[cfg],
    )
    r = simulate(scenario)
    assert {p.bound_at for p in r.pods} == {100.0}
    assert all(p.attempts >= 2 for p in r.pods)


def test_explain_records_every_attempt_of_the_pods_asked_for() -> None:
    """explain= keeps one Explanation per attempt of the named pod."""
    scenario = Scenario(
        "x",
        nodes=[node("n1", cpu="1")],
        workloads=[Workload("w", template("1"), replicas=2, kind="Job", duration=Distribution.fixed(5))],
    )
    r = simulate(scenario, explain=["default/w-1"])
    attempts = r.explanations["default/w-1"]
    assert len(attempts) == r.pod("w-1").attempts >= 2
    assert attempts[0].selected_node is None
    assert ERR_REASON_INSUFFICIENT_CPU in attempts[0].message
    assert attempts[-1].selected_node == "n1"


def test_a_cluster_dump_starts_the_simulation() -> None:
    """A dump's bound pods run on their nodes; its pending pods arrive at time 0."""
    scenario = Scenario("dump").with_cluster(DATA / "cluster.yaml")
    r = simulate(scenario)
    assert {"cp-1", "worker-a", "worker-b", "gpu-c"} <= {n.node for n in r.nodes}
    pending_in_dump = {p.key for p in scenario.pods if not p.node_name}
    assert pending_in_dump
    assert pending_in_dump <= {p.key for p in r.pods}
    assert all(r.pod(k).arrival == 0.0 for k in pending_in_dump)
    assert r.metrics.pods == len(pending_in_dump)
    log = io.StringIO()
    assert simulate(scenario, log=log) == r
    assert replay(log.getvalue().splitlines()) == r  # the dump's pods round-trip through the log


def test_samples_track_utilisation() -> None:
    """Samples report requested over allocatable and the number of pending pods."""
    scenario = Scenario(
        "u", nodes=[node("n1", cpu="2")], workloads=[Workload("w", template("1"), replicas=3)], until=10
    )
    r = simulate(scenario, sample_every=1)
    last = r.samples[-1]
    assert last.utilisation("cpu") == 1.0
    assert last.pending == 1
    assert last.running == 2
    assert len(r.samples) == 11
    assert r.metrics.utilisation_peak["cpu"] == 1.0


# -- the scenario format ------------------------------------------------------------------------------

SCENARIO_YAML = """\
apiVersion: schedframe.io/v1alpha1
kind: Scenario
name: small
nodes:
- count: 2
  name: "n-{i}"
  zones: [a, b]
  template:
    status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}
workloads:
- name: web
  replicas: 3
  arrival: {at: 0, every: {exponential: 2}}
  duration: {uniform: [10, 20]}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
events:
- {at: 5, action: cordon, node: n-0}
configs:
- name: default
until: 100
"""


def test_a_scenario_file_reads_and_runs(tmp_path: Path) -> None:
    """The documented YAML format reads into the Python classes."""
    path = tmp_path / "s.yaml"
    path.write_text(SCENARIO_YAML)
    s = Scenario.from_file(path)
    assert [n.labels["topology.kubernetes.io/zone"] for n in s.nodes] == ["a", "b"]
    w = s.workloads[0]
    assert w.arrival.every == Distribution.exponential(2)
    assert w.duration == Distribution.uniform(10, 20)
    assert s.events[0] == NodeEvent(5, "cordon", nodes=["n-0"])
    r = simulate(path)
    assert r.metrics.placed == 3
    assert all(10 <= p.ended_at - p.bound_at <= 20 for p in r.pods)


@pytest.mark.parametrize(
    ("text", "path"),
    [
        ("workloads: [{name: w, replicas: -1}]", "workloads[0].replicas"),
        ("workloads: [{name: w, replica: 2}]", "workloads[0].replica"),
        ("workloads: [{name: w, duration: {poisson: 3}}]", "workloads[0].duration.poisson"),
        ("workloads: [{name: w, arrival: {at: -1}}]", "workloads[0].arrival.at"),
        (
            "workloads: [{name: w, template: {spec: {containers: "
            "[{name: c, resources: {requests: {cpu: 12x}}}]}}}]",
            "workloads[0].template.spec.containers[0].resources.requests.cpu",
        ),
        ("events: [{at: 1, action: explode, node: n}]", "events[0].action"),
        ("events: [{at: 1, action: cordon}]", "events[0].node"),
        ("nodes: [{count: 2, name: same}]", "nodes"),
        (
            "configs: [{name: c, config: {profiles: [{plugins: {filter: {enabled: [{name: Nope}]}}}]}}]",
            "configs[0].config",
        ),
        ("cluster: missing.yaml", "cluster"),
        ("kind: Deployment", "kind"),
        ("[1, 2]", ""),
    ],
)
def test_bad_scenarios_name_the_file_and_field(tmp_path: Path, text: str, path: str) -> None:
    """Every invalid field raises ScenarioError with the file and the field path."""
    f = tmp_path / "bad.yaml"
    f.write_text(text)
    with pytest.raises(ScenarioError) as info:
        Scenario.from_file(f)
    assert info.value.source == str(f)
    assert info.value.path == path
    assert str(f) in str(info.value)


def test_unknown_fields_suggest_the_known_one() -> None:
    """A misspelt field gets a did-you-mean."""
    with pytest.raises(ScenarioError, match="did you mean 'replicas'"):
        Scenario.from_dict({"workloads": [{"name": "w", "replica": 2}]})


def test_unreadable_inputs() -> None:
    """A missing scenario file and an unknown built-in name are ScenarioErrors."""
    with pytest.raises(ScenarioError, match="cannot read"):
        Scenario.from_file("/nonexistent/s.yaml")
    with pytest.raises(ScenarioError, match="did you mean 'three-zones'"):
        builtin_scenario("three-zone")


def test_duration_annotation_and_go_durations() -> None:
    """duration: annotation reads schedframe.io/duration ('1m30s')."""
    s = Scenario.from_dict(
        {
            "nodes": [
                {
                    "count": 1,
                    "template": {"status": {"allocatable": {"cpu": "4", "memory": "4Gi", "pods": "10"}}},
                }
            ],
            "workloads": [
                {
                    "name": "w",
                    "kind": "Job",
                    "duration": "annotation",
                    "template": {"metadata": {"annotations": {"schedframe.io/duration": "1m30s"}}},
                }
            ],
        }
    )
    r = simulate(s)
    assert r.pod("w-0").ended_at == 90.0


def test_fragmentation_is_the_free_share_where_the_typical_pod_does_not_fit() -> None:
    """Typical pod 2 CPU: 1 free CPU on a nearly full node is stranded; 4 free on an empty node are not."""
    scenario = Scenario(
        "frag",
        nodes=[node("n1", cpu="4"), node("n2", cpu="4")],
        workloads=[
            Workload("big", template("3"), kind="Pod", arrival=Arrival(0)),
            Workload("two", template("2"), kind="Pod", arrival=Arrival(5)),
            Workload("one", template("2"), kind="Pod", arrival=Arrival(9)),
        ],
        until=10,
    )
    r = simulate(scenario, sample_every=1)
    before = next(s for s in r.samples if s.t == 1.0)  # 3 of 4 used on one node, the other empty
    assert before.fragmentation["cpu"] == pytest.approx(1 / 5)
    after = r.samples[-1]  # 3 of 4 used on one node (1 stranded), 2 + 2 on the other
    assert after.requested["cpu"] == 7000
    assert after.fragmentation["cpu"] == pytest.approx(1.0)


def test_perf_splits_the_cpu_time_by_the_wall_time_share() -> None:
    """Perf: the cycles' CPU time is their share of the wall time applied to the run's CPU
    time (no CPU clock is read around each call), so it never exceeds the run's CPU time."""
    from schedframe.sim import large_scenario

    perf = simulate(large_scenario(30, 200, rate=50)).perf
    assert 0 < perf.schedule_seconds <= perf.wall_seconds
    assert 0 < perf.schedule_cpu_seconds <= perf.cpu_seconds
    assert perf.schedule_cpu_seconds == pytest.approx(
        min(perf.cpu_seconds, perf.schedule_seconds * perf.cpu_seconds / perf.wall_seconds))
