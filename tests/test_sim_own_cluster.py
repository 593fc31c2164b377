"""Simulating your own cluster, right the first time (issue #29): pods asking for a scheduler no
profile has are reported loudly; no nodes is an error before the run; a run that can make no
progress stops with a reason; ``--cluster`` alone simulates that cluster; events naming unknown
nodes are errors; pending pods count in the latency figures; the ``--plain`` notice is not
output."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedframe import ScenarioError, SchedframeWarning, SchedulerConfiguration
from schedframe.cli import EXIT_INPUT, EXIT_OK, main
from schedframe.sim import NodeEvent, Scenario, Workload, simulate
from schedframe.testing import make_node, make_pod


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue()


def _node(name: str, zone: str) -> dict[str, Any]:
    alloc = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {
            "name": name,
            "labels": {"kubernetes.io/hostname": name, "topology.kubernetes.io/zone": zone},
        },
        "status": {"allocatable": alloc, "capacity": alloc},
    }


def _pod(name: str, node: str = "", scheduler: str = "") -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}
    if node:
        spec["nodeName"] = node
    if scheduler:
        spec["schedulerName"] = scheduler
    meta = {"name": name, "namespace": "default"}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}


@pytest.fixture
def dump(tmp_path: Path) -> Path:
    """A dump: 9 nodes (node-0..node-8, as the built-in three-zones names them) in 2 zones, 2 bound
    and 5 pending pods."""
    items = [_node(f"node-{i}", f"zone-{i % 2}") for i in range(9)]
    items += [_pod(f"app-{i}", node="node-0" if i < 2 else "") for i in range(7)]
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


@pytest.fixture
def bin_packing(tmp_path: Path) -> Path:
    path = tmp_path / "packing.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "profiles:\n- schedulerName: bin-packing\n"
    )
    return path


# -- 1. pods for a scheduler no profile has -------------------------------------------------------


def test_pods_for_a_missing_profile_fail_loudly(
    dump: Path, bin_packing: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A profile named bin-packing while the pods ask for default-scheduler: exit 2, stderr says
    how many pods, which name, which profiles and how to fix it; --json carries ``unhandled``."""
    code, text = run("simulate", "--cluster", str(dump), "--config", str(bin_packing), "--plain")
    err = capsys.readouterr().err
    assert code == EXIT_INPUT
    assert (
        "schedframe simulate: error: 5 pod(s) name schedulerName 'default-scheduler' but no profile "
        "named 'default-scheduler' in the configuration (profiles: 'bin-packing'); nobody schedules "
        "them (default/app-2, default/app-3, default/app-4, ...)"
    ) in err
    assert "fix: name a profile 'default-scheduler'" in err
    assert "spec.schedulerName to 'bin-packing'" in err
    assert "--allow-foreign-pods" in err
    assert "(not attempted yet)" not in text
    assert "no profile named 'default-scheduler' in the configuration" in text

    code, text = run("simulate", "--cluster", str(dump), "--config", str(bin_packing), "--json")
    assert code == EXIT_INPUT
    result = json.loads(text)["results"][0]
    assert result["profiles"] == ["bin-packing"]
    assert result["unhandled"]["default-scheduler"]["pods"] == 5


def test_allow_foreign_pods_accepts_them_and_says_how_many(
    dump: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Pods meant for another scheduler are legitimate in a dump: --allow-foreign-pods exits 0,
    still saying how many pods nobody schedules."""
    data = yaml.safe_load(dump.read_text())
    data["items"].append(_pod("other-0", scheduler="my-scheduler"))
    mixed = tmp_path / "mixed.yaml"
    mixed.write_text(yaml.safe_dump(data))
    code, _ = run("simulate", "--cluster", str(mixed), "--plain")
    assert code == EXIT_INPUT
    assert "error: 1 pod(s) name schedulerName 'my-scheduler'" in capsys.readouterr().err
    code, text = run("simulate", "--cluster", str(mixed), "--plain", "--allow-foreign-pods")
    assert code == EXIT_OK
    assert "1 pod(s) name schedulerName 'my-scheduler'" in text
    assert "nobody schedules them" in text
    assert "error" not in capsys.readouterr().err


def test_the_result_lists_unhandled_pods() -> None:
    """From Python: ``SimResult.unhandled`` and ``profiles``; the pods' message says why."""
    scenario = Scenario(
        "s",
        nodes=[make_node("n1").capacity(cpu="4", memory="8Gi", pods=10).obj()],
        workloads=[Workload("w", make_pod("t").req(cpu="1").obj(), replicas=2)],
    )
    config = SchedulerConfiguration.from_dict(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [{"schedulerName": "bin-packing"}],
        }
    )
    r = simulate(scenario, config)
    assert r.profiles == ("bin-packing",)
    assert r.unhandled == {"default-scheduler": ("default/w-0", "default/w-1")}
    assert r.to_dict()["unhandled"] == {
        "default-scheduler": {"pods": 2, "examples": ["default/w-0", "default/w-1"]}
    }
    assert "no profile named 'default-scheduler'" in r.pod("w-0").message
    assert simulate(scenario).unhandled == {}


# -- 2. no nodes; no progress possible ------------------------------------------------------------

NO_NODES = """\
name: empty
workloads:
- name: web
  replicas: 3
  template: {spec: {containers: [{name: app, resources: {requests: {cpu: "1"}}}]}}
"""

NODE_REMOVED = """\
name: removed
nodes:
- {count: 1, name: "node-{i}", template: {status: {allocatable: {cpu: "4", memory: 16Gi, pods: "110"}}}}
workloads:
- name: web
  replicas: 3
  arrival: {at: 10}
  template: {spec: {containers: [{name: app, resources: {requests: {cpu: "1"}}}]}}
events:
- {at: 5, action: remove, node: node-0}
"""


def test_no_nodes_is_an_error_before_the_run(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A scenario without any node (nor an event adding one) is a ScenarioError; on the command
    line one line and exit 2, without running (it used to spin until --until, or for ever)."""
    with pytest.raises(ScenarioError, match=r"nodes: scenario 'empty' has no nodes"):
        simulate(Scenario.from_text(NO_NODES), until=100)
    path = tmp_path / "empty.yaml"
    path.write_text(NO_NODES)
    code, text = run("simulate", str(path), "--until", "36000")
    err = capsys.readouterr().err.strip().splitlines()
    assert code == EXIT_INPUT
    assert text == ""
    assert err == [
        f"schedframe simulate: error: {path}: nodes: scenario 'empty' has no nodes (its nodes, "
        "objects and cluster give none, and no event adds one): nothing could ever be scheduled; "
        "add nodes to the scenario or start from a cluster (--cluster DUMP, Scenario.with_cluster)"
    ]


def test_a_run_that_cannot_progress_stops_with_a_reason() -> None:
    """The only node is removed: the pods keep failing ("no nodes available") through backoff.
    The run stops when nothing can change, instead of retrying until the horizon."""
    r = simulate(Scenario.from_text(NODE_REMOVED), until=36000)
    assert r.end_reason == "no-progress"
    assert r.stopped_at == 10.0
    assert r.metrics.end == 36000.0  # the state holds until the horizon
    assert r.metrics.attempts == 3  # one attempt each (it used to be thousands)
    assert r.to_dict()["end_reason"] == "no-progress"
    uncordoned = NODE_REMOVED.replace("at: 5, action: remove", "at: 5, action: uncordon")
    ok = simulate(Scenario.from_text(uncordoned))
    assert ok.end_reason == "done"
    assert ok.stopped_at is None


def test_a_run_that_cannot_progress_ends_without_until(tmp_path: Path) -> None:
    """Without --until the same run used to hang; it ends at once, saying why."""
    path = tmp_path / "removed.yaml"
    path.write_text(NODE_REMOVED)
    proc = subprocess.run(
        [sys.executable, "-m", "schedframe", "simulate", str(path), "--plain"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == EXIT_OK, proc.stderr
    assert (
        "default: stopped at 10.0s: no progress possible (no arrival, completion or node event "
        "ahead, and the 3 pending pod(s) cannot be placed)"
    ) in proc.stdout


# -- 3. --cluster alone ------------------------------------------------------------------------


def test_cluster_alone_simulates_the_dump_only(dump: Path) -> None:
    """`simulate --cluster dump.yaml` runs the dump's own pods, with a header describing it; the
    built-in scenario's workloads come only when it is named."""
    code, text = run("simulate", "--cluster", str(dump), "--plain")
    assert code == EXIT_OK
    header = text.splitlines()[0]
    assert header == (
        f"dump: the cluster {dump}: 9 node(s) in 2 zone(s), 7 pod(s) (2 bound, 5 pending), 0 workload(s)"
    )
    assert "three-zones" not in text
    assert "9 nodes in 3 zones" not in text
    code, text = run("simulate", "--cluster", str(dump), "--json")
    data = json.loads(text)
    assert {p["key"] for p in data["results"][0]["pods"]} == {f"default/app-{i}" for i in range(7)}

    code, text = run("simulate", "three-zones", "--cluster", str(dump), "--json")
    assert code == EXIT_OK
    keys = {p["key"] for p in json.loads(text)["results"][0]["pods"]}
    assert "default/app-2" in keys
    assert any(k.startswith("default/web-") for k in keys)
    code, text = run("simulate", "three-zones", "--cluster", str(dump), "--plain")
    assert text.splitlines()[0].startswith(
        f"three-zones: the cluster {dump}: 9 node(s) in 2 zone(s), 7 pod(s) (2 bound, 5 pending), "
        "0 workload(s); the scenario's workloads: web, api, report"
    )


# -- 4. events naming unknown nodes -------------------------------------------------------------


def test_an_event_naming_an_unknown_node_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A drain of a node the cluster does not have used to do nothing; now it is a ScenarioError
    with the event's field path and the cluster's nodes (a suggestion only when one node is
    closest: node-9 is as close to each of node-0, node-1 and node-2)."""
    nodes = [make_node(f"node-{i}").capacity(cpu="4", memory="8Gi", pods=10).obj() for i in range(3)]
    s = Scenario("s", nodes=nodes, events=[NodeEvent(10, "drain", nodes=["node-9"])])
    with pytest.raises(ScenarioError, match=r"events\[0\]\.node: drain at 10s: no node 'node-9' in the "
                       r"cluster \(3 node\(s\): node-0, node-1, node-2\)"):
        simulate(s)
    one = Scenario("s", nodes=nodes, events=[NodeEvent(10, "drain", nodes=["nod-1"])])
    with pytest.raises(ScenarioError, match=r"no node 'nod-1' in the cluster; did you mean 'node-1'\?"):
        simulate(one)
    gone = Scenario("s", nodes=nodes, events=[NodeEvent(5, "remove", nodes=["node-1"]),
                                             NodeEvent(9, "cordon", nodes=["node-2", "node-1"])])
    with pytest.raises(ScenarioError, match=r"events\[1\]\.nodes\[1\]: cordon at 9s: node 'node-1' "
                       r"was removed at 5s \(events\[0\]\)"):
        simulate(gone)
    path = tmp_path / "s.yaml"
    path.write_text(NODE_REMOVED.replace("node: node-0}", "node: nod-0}"))
    code, _ = run("simulate", str(path))
    assert code == EXIT_INPUT
    assert capsys.readouterr().err.strip() == (
        f"schedframe simulate: error: {path}: events[0].node: remove at 5s: no node 'nod-0' in the "
        "cluster; did you mean 'node-0'? (1 node(s): node-0)"
    )


def test_a_workload_pod_named_as_a_dump_pod_says_where_each_comes_from(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A workload whose generated pod is named as a pod of the dump: the error says which pod is
    bound in the starting cluster and which workload made the other."""
    dump = tmp_path / "dump.yaml"
    dump.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List",
                                    "items": [_node("node-0", "zone-0"), _pod("web-0", node="node-0")]}))
    scenario = tmp_path / "s.yaml"
    scenario.write_text("name: clash\nworkloads:\n- name: web\n  replicas: 2\n  template:\n    spec:\n"
                        "      containers: [{name: c, resources: {requests: {cpu: 100m}}}]\n")
    code, _ = run("simulate", str(scenario), "--cluster", str(dump))
    assert code == EXIT_INPUT
    assert capsys.readouterr().err.strip() == (
        "schedframe simulate: error: <plan>: pods[default/web-0]: a pod with this name or uid already "
        "exists, bound in the starting cluster; this one is from workload 'web'")


# -- 5. honest numbers -----------------------------------------------------------------------------


def test_pending_pods_count_in_the_wait_figures(tmp_path: Path) -> None:
    """WAIT P99 was 0.0s with pods pending: now a never-bound pod counts until the end of the run
    (a censored wait) and the figures it reaches are marked as lower bounds."""
    scenario = """\
name: tight
nodes: [{count: 1, name: n, template: {status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}}}]
workloads:
- name: w
  replicas: 4
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
"""
    r = simulate(Scenario.from_text(scenario), until=100)
    m = r.metrics
    assert (m.placed, m.pending, m.wait_censored) == (2, 2, 2)
    assert m.wait_p99 == pytest.approx(100.0)
    assert m.wait_max == 100.0
    assert m.wait_p50 == pytest.approx(50.0)
    assert m.wait_lower_bound == ("p50", "p90", "p99", "max")
    assert m.to_dict()["wait_lower_bound"] == ["p50", "p90", "p99", "max"]
    path = tmp_path / "tight.yaml"
    path.write_text(scenario)
    code, text = run("simulate", str(path), "--until", "100", "--plain")
    assert code == EXIT_OK
    row = next(line for line in text.splitlines() if line.startswith("default\t")).split("\t")
    assert row[7:9] == [">=50.0s", ">=100.0s"]
    assert "a pod never bound counts until the end of the run" in text


def test_the_pod_count_says_recreated_pods_count() -> None:
    """PODS differs between configurations through recreations: the table says so, and the
    metrics split original from recreated pods."""
    code, text = run("simulate", "drain-preemption", "--plain")
    assert code == EXIT_OK
    r = simulate("drain-preemption")
    m = r.metrics
    assert m.recreated > 0
    assert m.original + m.recreated == m.pods
    assert (
        f"PODS counts every pod created during the run, recreated ones included (default: "
        f"{m.recreated:,} recreated)"
    ) in text


# -- 6. CLI manners ------------------------------------------------------------------------------


def test_the_plain_notice_goes_to_stderr(capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The "(plain output; ...)" notice (rich missing) is not part of the output; with --plain
    asked for there is no notice at all."""
    from schedframe.cli import _output

    monkeypatch.setattr(_output, "have_rich", lambda: False)
    assert main(["simulate"]) == EXIT_OK
    captured = capsys.readouterr()
    assert "(plain output" not in captured.out
    assert "(plain output" in captured.err
    assert captured.out.startswith("three-zones")
    assert main(["simulate", "--plain"]) == EXIT_OK
    captured = capsys.readouterr()
    assert "(plain output" not in captured.out + captured.err


# -- 7. priority admission: priorityClassName gives the priority ---------------------------------


def _priority_dump(classes: list[dict[str, Any]]) -> dict[str, Any]:
    """One node full of two bound priority-0 pods, and a Deployment whose template names the
    PriorityClass ``high`` without a ``priority``."""
    node = _node("node-0", "zone-0")
    node["status"]["allocatable"] = node["status"]["capacity"] = {"cpu": "2", "memory": "8Gi", "pods": "10"}
    low = []
    for i in range(2):
        pod = _pod(f"low-{i}", node="node-0")
        pod["spec"]["priority"] = 0
        pod["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "1"
        low.append(pod)
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web", "namespace": "default"},
        "spec": {
            "replicas": 1,
            "selector": {"matchLabels": {"app": "web"}},
            "template": {
                "metadata": {"labels": {"app": "web"}},
                "spec": {
                    "priorityClassName": "high",
                    "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                },
            },
        },
    }
    return {"apiVersion": "v1", "kind": "List", "items": [*classes, node, *low, deployment]}


_HIGH = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "high"},
         "value": 1000}


def test_a_deployment_of_a_priority_class_preempts(tmp_path: Path) -> None:
    """A Deployment whose template names PriorityClass ``high`` (1000) used to get pods of
    priority 0 and stay pending on a full cluster; admitted as a cluster admits them, its pod
    preempts a priority-0 pod and is placed."""
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(_priority_dump([_HIGH])))
    code, text = run("simulate", "--cluster", str(path), "--json")
    assert code == EXIT_OK
    m = json.loads(text)["results"][0]["metrics"]
    assert (m["placed"], m["pending"], m["preemptions"]) == (1, 0, 1)
    r = simulate(Scenario("own").with_cluster(path))
    web = next(p for p in r.pods if p.workload == "" and p.key.startswith("default/web-"))
    assert web.state == "Running"
    assert any(p.preempted_by == web.key for p in r.pods)


def test_a_priority_class_missing_from_the_dump_is_said(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A class a pod names but the dump lacks: a cluster refuses such pods; schedframe gives
    them priority 0 and says so on stderr, naming the class and the workload."""
    path = tmp_path / "dump.yaml"
    path.write_text(yaml.safe_dump(_priority_dump([])))
    with pytest.warns(SchedframeWarning) as caught:
        code, text = run("simulate", "--cluster", str(path), "--plain")
    assert code == EXIT_OK
    messages = [str(w.message) for w in caught]
    assert (
        "PriorityClass 'high' is not in the input: its pods get priority 0 (Deployment default/web); "
        "a cluster would refuse them; add the PriorityClass to the dump (kubectl get priorityclass "
        "-o yaml)"
    ) in messages
    assert len([m for m in messages if "PriorityClass" in m]) == 1  # not again by the simulator
    assert "1 pod(s) pending" in text
    proc = subprocess.run(
        [sys.executable, "-m", "schedframe", "simulate", "--cluster", str(path), "--plain"],
        capture_output=True, text=True, check=False,
    )
    assert proc.returncode == EXIT_OK
    assert "schedframe simulate: warning: PriorityClass 'high' is not in the input" in proc.stderr
    capsys.readouterr()


def test_scenario_pods_are_admitted(tmp_path: Path) -> None:
    """The simulator admits the pods it creates: a scenario workload's template and a bare pod
    naming a class (the class's value and preemptionPolicy), the globalDefault class for a pod
    naming none, a system class without its object; a pod with a priority keeps it; an unknown
    class warns naming the workload and the pod."""
    scenario = """\
name: prio
nodes: [{count: 1, name: n, template: {status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}}}]
objects:
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: high}, value: 1000,
   preemptionPolicy: Never}
- {apiVersion: scheduling.k8s.io/v1, kind: PriorityClass, metadata: {name: base}, value: 7,
   globalDefault: true}
- {apiVersion: v1, kind: Pod, metadata: {name: bare}, spec: {priorityClassName: high,
   containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: critical, namespace: kube-system},
   spec: {priorityClassName: system-node-critical, containers: [{name: c}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: fixed}, spec: {priorityClassName: high, priority: 5,
   containers: [{name: c}]}}
workloads:
- {name: web, template: {spec: {priorityClassName: high}}}
- {name: plain, template: {spec: {}}}
"""
    keys = ["default/web-0", "default/plain-0", "default/bare", "kube-system/critical", "default/fixed"]
    r = simulate(Scenario.from_text(scenario), explain=keys)
    assert r.metrics.placed == 5
    pods = {k: r.explanations[k][0].pod for k in keys}  # as the scheduler saw them
    web, plain, bare = pods["default/web-0"], pods["default/plain-0"], pods["default/bare"]
    assert (web.priority, web.preemption_policy) == (1000, "Never")
    assert (plain.priority, plain.priority_class_name, plain.preemption_policy) == (
        7, "base", "PreemptLowerPriority")
    assert (bare.priority, bare.preemption_policy) == (1000, "Never")
    assert pods["kube-system/critical"].priority == 2000001000
    assert pods["default/fixed"].priority == 5

    missing = scenario.replace("name: high}, value: 1000", "name: other}, value: 1000")
    with pytest.warns(SchedframeWarning, match=r"PriorityClass 'high' is not in the input: its pods get "
                      r"priority 0 \(workload 'web', pod default/bare\); a cluster would refuse them; "
                      r"add the PriorityClass to the scenario's objects or the dump"):
        simulate(Scenario.from_text(missing))


# -- 8. delete-pod events naming unknown pods ------------------------------------------------------


def test_a_delete_pod_event_naming_an_unknown_pod_is_an_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A delete-pod of a pod that never exists used to do nothing; now it is a ScenarioError
    with the event's field path and a suggestion. Pods a workload or a controller may create
    (recreations: ``<name>-<n>``) are accepted."""
    scenario = """\
name: del
nodes: [{count: 1, name: n, template: {status: {allocatable: {cpu: "4", memory: 8Gi, pods: "10"}}}}]
objects:
- {apiVersion: v1, kind: Pod, metadata: {name: solo}, spec: {containers: [{name: c}]}}
workloads:
- {name: web, replicas: 3, template: {spec: {containers: [{name: c}]}}}
events:
- {at: 10, action: delete-pod, pods: [default/web-1, solo, default/web-7]}
- {at: 20, action: delete-pod, pods: [default/wbe-2]}
"""
    with pytest.raises(ScenarioError, match=r"events\[1\]\.pods\[0\]: delete-pod at 20s: no pod "
                       r"'default/wbe-2' in the cluster nor among the workloads' pods; did you mean "
                       r"'default/web-2'\? \(4 pod\(s\): default/solo, default/web-0, default/web-1, "
                       r"default/web-2\)"):
        simulate(Scenario.from_text(scenario))
    simulate(Scenario.from_text(scenario.replace("default/wbe-2", "default/web-2")))
    bare = scenario.replace("replicas: 3,", "replicas: 3, kind: Pod,")
    with pytest.raises(ScenarioError, match=r"events\[0\]\.pods\[2\]: delete-pod at 10s: no pod "
                       r"'default/web-7'"):
        simulate(Scenario.from_text(bare))
    path = tmp_path / "del.yaml"
    path.write_text(scenario)
    code, _ = run("simulate", str(path), "--plain")
    assert code == EXIT_INPUT
    assert capsys.readouterr().err.strip().startswith(
        f"schedframe simulate: error: {path}: events[1].pods[0]: delete-pod at 20s: no pod 'default/wbe-2'"
    )


# -- 9. replay: pods for a scheduler no profile has ----------------------------------------------


def test_replay_of_foreign_pods_fails_loudly(
    dump: Path, bin_packing: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``replay`` showed the unhandled-pod lines and exited 0; now it exits 2 as ``simulate``
    does, unless --allow-foreign-pods."""
    log = tmp_path / "run.jsonl"
    code, _ = run("simulate", "--cluster", str(dump), "--config", str(bin_packing), "--plain",
                  "--allow-foreign-pods", "--log", str(log))
    assert code == EXIT_OK
    capsys.readouterr()
    code, text = run("replay", str(log), "--plain")
    err = capsys.readouterr().err
    assert code == EXIT_INPUT
    assert (
        "schedframe replay: error: 5 pod(s) name schedulerName 'default-scheduler' but no profile "
        "named 'default-scheduler' in the configuration (profiles: 'bin-packing')"
    ) in err
    assert "fix: name a profile 'default-scheduler'" in err
    assert "the replay's metrics equal the logged run's" in text
    code, text = run("replay", str(log), "--plain", "--allow-foreign-pods")
    assert code == EXIT_OK
    assert "5 pod(s) name schedulerName 'default-scheduler'" in text
    assert "error" not in capsys.readouterr().err
