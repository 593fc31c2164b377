"""Issue #30, R3 and R6: scenarios that would never end are refused with a field path, an event
log's every malformed line is a ScenarioError naming the log, line and field, and pods bound to
a node the cluster does not have are kept as kube-scheduler's cache keeps them."""

from __future__ import annotations

import copy
import io
import json
import math
import subprocess
import sys
import warnings
from pathlib import Path
from typing import Any

import attrs
import pytest

from schedframe import ScenarioError
from schedframe.sim import Scenario, simulate
from schedframe.sim.scenario import MAX_SCENARIO_PODS, MAX_SIM_SECONDS, Distribution

BASE: dict[str, Any] = {
    "apiVersion": "schedframe.io/v1alpha1",
    "kind": "Scenario",
    "name": "t",
    "nodes": [
        {"count": 2, "template": {"status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}}
    ],
    "workloads": [
        {
            "name": "web",
            "replicas": 3,
            "duration": 60,
            "template": {"spec": {"containers": [{"name": "c", "resources": {"requests": {"cpu": "500m"}}}]}},
        }
    ],
}


def scenario(**changes: Any) -> dict[str, Any]:
    d = copy.deepcopy(BASE)
    for key, value in changes.items():
        if key == "workload":
            d["workloads"][0].update(value)
        elif key == "group":
            d["nodes"][0].update(value)
        else:
            d[key] = value
    return d


# -- R3: runs that never end ---------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        ({"workload": {"replicas": 10**9}}, "workloads[0].replicas"),
        ({"group": {"count": 10**9}}, "nodes[0].count"),
        ({"workload": {"scale": [{"at": 10, "replicas": 10**9}]}}, "workloads[0].scale[0].replicas"),
    ],
)
def test_huge_counts_are_refused_with_the_field(changes: dict[str, Any], path: str) -> None:
    # in a subprocess with a timeout: before the bound, each of these ran for hours
    code = (
        "import json, sys\n"
        "from schedframe import ScenarioError\n"
        "from schedframe.sim import Scenario, simulate\n"
        "try:\n"
        "    simulate(Scenario.from_dict(json.loads(sys.argv[1])))\n"
        "except ScenarioError as exc:\n"
        "    print(exc.path)\n"
        "    print(exc)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(scenario(**changes))],
        capture_output=True,
        text=True,
        timeout=20,
    )
    lines = proc.stdout.splitlines()
    assert lines[:1] == [path], proc.stderr[-2000:]
    assert "at most" in lines[1]


def test_pods_over_all_workloads_are_bounded() -> None:
    d = scenario()
    half = MAX_SCENARIO_PODS // 2 + 1
    d["workloads"] = [dict(d["workloads"][0], name=f"w{i}", replicas=half) for i in range(2)]
    with pytest.raises(ScenarioError, match="MAX_SCENARIO_PODS") as info:
        Scenario.from_dict(d)
    assert info.value.path == "workloads[1]"


def test_a_huge_replicas_does_not_hang_the_cli(tmp_path: Path) -> None:
    f = tmp_path / "big.json"
    f.write_text(json.dumps(scenario(workload={"replicas": 10**9})))
    proc = subprocess.run(
        [sys.executable, "-m", "schedframe", "simulate", str(f)], capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 2
    assert "workloads[0].replicas" in proc.stderr


@pytest.mark.parametrize("until", [math.nan, -5.0, math.inf, 1e308])
def test_until_must_be_a_finite_time(until: float) -> None:
    s = Scenario.from_dict(scenario())
    with pytest.raises(ScenarioError) as info:
        simulate(s, until=until)
    assert info.value.path == "until"
    with pytest.raises(ScenarioError) as info:
        simulate(attrs.evolve(s, until=until))
    assert info.value.path == "until"


def test_cli_until_nan_is_an_error(tmp_path: Path) -> None:
    f = tmp_path / "s.json"
    f.write_text(json.dumps(scenario()))
    for value in ("nan", "-5"):
        proc = subprocess.run(
            [sys.executable, "-m", "schedframe", "simulate", str(f), f"--until={value}"],
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert proc.returncode == 2, proc.stdout
        assert "until" in proc.stderr


@pytest.mark.parametrize(
    ("changes", "path"),
    [
        (
            {"workload": {"duration": {"lognormal": {"median": 1e308, "sigma": 1}}}},
            "workloads[0].duration.lognormal.median",
        ),
        (
            {"workload": {"duration": {"lognormal": {"median": 10, "sigma": 1e308}}}},
            "workloads[0].duration.lognormal.sigma",
        ),
        ({"workload": {"arrival": {"every": 1e308}}}, "workloads[0].arrival.every"),
        ({"workload": {"arrival": {"at": 1e308}}}, "workloads[0].arrival.at"),
        (
            {"workload": {"arrival": {"every": {"exponential": 1e308}}}},
            "workloads[0].arrival.every.exponential",
        ),
        (
            {"workload": {"duration": {"normal": {"mean": 1e308, "stddev": 1}}}},
            "workloads[0].duration.normal.mean",
        ),
        ({"workload": {"duration": {"uniform": [0, 1e308]}}}, "workloads[0].duration.uniform[1]"),
        ({"workload": {"duration": 1e308}}, "workloads[0].duration"),
        ({"workload": {"scale": [{"at": 1e308, "replicas": 1}]}}, "workloads[0].scale[0].at"),
        ({"events": [{"at": 1e308, "action": "cordon", "node": "node-0"}]}, "events[0].at"),
        ({"until": 1e308}, "until"),
    ],
)
def test_times_and_rates_are_bounded_at_read_time(changes: dict[str, Any], path: str) -> None:
    with pytest.raises(ScenarioError) as info:
        Scenario.from_dict(scenario(**changes))
    assert info.value.path == path


def test_python_scenarios_are_checked_by_plan() -> None:
    s = Scenario.from_dict(scenario())
    w = s.workloads[0]
    bad = attrs.evolve(s, workloads=[attrs.evolve(w, duration=Distribution.lognormal(1e308, 1.0))])
    with pytest.raises(ScenarioError) as info:
        bad.plan(0)
    assert info.value.path == "workloads[0].duration.lognormal.median"
    # in a subprocess: before the bound, plan() built 10**9 arrivals
    # (the scenario goes as JSON: importing it as tests.test_sim_reliability would find another
    # distribution's top-level ``tests`` package first, as edgerun-skippy-core's)
    code = (
        "import attrs, json, sys\n"
        "from schedframe import ScenarioError\n"
        "from schedframe.sim import Scenario\n"
        "s = Scenario.from_dict(json.loads(sys.argv[1]))\n"
        "bad = attrs.evolve(s, workloads=[attrs.evolve(s.workloads[0], replicas=10**9)])\n"
        "try:\n"
        "    bad.plan(0)\n"
        "except ScenarioError as exc:\n"
        "    print(exc.path)\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, json.dumps(scenario())],
        capture_output=True,
        text=True,
        timeout=20,
        cwd=Path(__file__).parents[1],
    )
    assert proc.stdout.strip() == "workloads[0].replicas", proc.stderr[-2000:]


def test_arrivals_past_the_largest_time_are_refused() -> None:
    d = scenario(workload={"replicas": 5, "arrival": {"every": MAX_SIM_SECONDS / 2}})
    with pytest.raises(ScenarioError, match="after the largest simulated time") as info:
        Scenario.from_dict(d).plan(0)
    assert info.value.path == "workloads[0].arrival"


def test_long_tailed_draws_stay_finite() -> None:
    d = scenario(workload={"duration": {"lognormal": {"median": MAX_SIM_SECONDS, "sigma": 10}}})
    r = simulate(Scenario.from_dict(d), until=100)
    assert r.metrics.placed == 3


# -- R6: bookkeeping --------------------------------------------------------------------------------

DUMP = """\
apiVersion: v1
kind: List
items:
- apiVersion: v1
  kind: Node
  metadata: {name: n1}
  status: {allocatable: {cpu: "8", memory: 8Gi, pods: "110"}}
- apiVersion: v1
  kind: Pod
  metadata: {name: g1, namespace: default}
  spec: {nodeName: ghost, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
- apiVersion: v1
  kind: Pod
  metadata: {name: g2, namespace: default}
  spec: {nodeName: ghost, containers: [{name: c, resources: {requests: {cpu: "2"}}}]}
"""


def test_pods_on_an_unknown_node_count_when_the_node_is_added(tmp_path: Path) -> None:
    (tmp_path / "dump.yaml").write_text(DUMP)
    d = {
        "name": "ghost",
        "cluster": "dump.yaml",
        "events": [
            {
                "at": 10,
                "action": "add",
                "node": "ghost",
                "template": {"status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "110"}}},
            }
        ],
        "workloads": [
            {
                "name": "w",
                "replicas": 1,
                "arrival": {"at": 20},
                "template": {
                    "spec": {
                        "nodeName": "ghost",
                        "containers": [{"name": "c", "resources": {"requests": {"cpu": "1"}}}],
                    }
                },
            }
        ],
    }
    s = Scenario.from_dict(d, base_dir=str(tmp_path))
    with pytest.warns(
        UserWarning, match=r"2 pod\(s\) are bound to node\(s\) the cluster does not have: 'ghost'"
    ):
        r = simulate(s)
    ghost = next(n for n in r.nodes if n.node == "ghost")
    on_ghost = [p for p in r.pods if p.node == "ghost" and p.state == "Running"]
    assert len(on_ghost) == 3
    assert ghost.requested["cpu"][-1] == 5000  # the two dump pods and the one bound later
    assert ghost.requested["pods"][-1] == 3


def test_pods_on_an_unknown_node_hold_no_known_node(tmp_path: Path) -> None:
    (tmp_path / "dump.yaml").write_text(DUMP)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = simulate(Scenario().with_cluster(tmp_path / "dump.yaml"))
    assert [n.node for n in r.nodes] == ["n1"]
    assert r.nodes[0].requested["cpu"][-1] == 0
    assert r.metrics.running == 2


# -- R6: tampered event logs ------------------------------------------------------------------------


@pytest.fixture(scope="module")
def log_records() -> list[dict[str, Any]]:
    buf = io.StringIO()
    simulate(Scenario.from_dict(scenario()), log=buf)
    return [json.loads(line) for line in buf.getvalue().splitlines()]


def _arrive(recs: list[dict[str, Any]]) -> int:
    return next(i for i, r in enumerate(recs) if r["op"] == "arrive")


def _edit_arrive(**kw: Any) -> Any:
    return lambda rs: rs[_arrive(rs)].update(kw)


def _insert(rec: dict[str, Any]) -> Any:
    return lambda rs: rs.insert(_arrive(rs) + 1, rec)


TAMPERED = [
    (_edit_arrive(workload="nope"), "line 2.workload"),
    (_edit_arrive(name="x"), "line 2.name"),
    (_edit_arrive(name="web-x"), "line 2.name"),
    (_edit_arrive(t=math.nan), "line 2.t"),
    (_edit_arrive(t=-1), "line 2.t"),
    (_edit_arrive(t=[1]), "line 2.t"),
    (_edit_arrive(duration=math.inf), "line 2.duration"),
    (lambda rs: rs[0].update(nodes=5), "line 1.nodes"),
    (lambda rs: rs[0].pop("nodes"), "line 1.nodes"),
    (lambda rs: rs[0].update(durations=[1]), "line 1.durations"),
    (lambda rs: rs[0].update(until="x"), "line 1.until"),
    (lambda rs: rs[0].update(seed="x"), "line 1.seed"),
    (lambda rs: rs[0].update(workloads=["a"]), "line 1.workloads[0]"),
    (lambda rs: rs[0].update(config=5), "line 1.config"),
    (_insert({"t": 5, "op": "scale", "workload": "zz", "replicas": 1}), "line 3.workload"),
    (_insert({"t": 5, "op": "scale", "workload": "web", "replicas": -1}), "line 3.replicas"),
    (
        _insert({"t": 5, "op": "node", "event": {"at": 5, "action": "zap", "nodes": ["node-0"]}}),
        "line 3.event.action",
    ),
    (_insert({"t": 5, "op": "node", "event": "x"}), "line 3.event"),
    (
        _insert({"t": 5, "op": "node", "event": {"at": 5, "action": "cordon", "nodes": "node-0"}}),
        "line 3.event.nodes",
    ),
    (
        _insert(
            {"t": 5, "op": "node", "event": {"at": 5, "action": "taint", "nodes": ["node-0"], "taint": "x"}}
        ),
        "line 3.event.taint",
    ),
    (
        _insert({"t": 5, "op": "node", "event": {"at": 5, "action": "add", "nodes": ["n9"]}}),
        "line 3.event.node",
    ),
    (_insert({"t": 5, "op": "pod", "pod": None}), "line 3.pod"),
    (lambda rs: rs.insert(_arrive(rs) + 1, dict(rs[_arrive(rs)])), "line 3.name"),
]


@pytest.mark.parametrize(("tamper", "path"), TAMPERED)
def test_tampered_logs_name_the_line_and_field(
    tmp_path: Path, log_records: list[dict[str, Any]], tamper: Any, path: str
) -> None:
    recs = copy.deepcopy(log_records)
    tamper(recs)
    f = tmp_path / "run.jsonl"
    f.write_text("".join(json.dumps(r) + "\n" for r in recs))
    # in a subprocess with a timeout: before the checks, an infinite run time hung the replay
    code = (
        "import sys\n"
        "from schedframe import ScenarioError\n"
        "from schedframe.sim import replay\n"
        "try:\n"
        "    replay(sys.argv[1], check=False)\n"
        "except ScenarioError as exc:\n"
        "    print(exc.source)\n"
        "    print(exc.path)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code, str(f)], capture_output=True, text=True, timeout=20)
    assert proc.stdout.splitlines() == [str(f), path], proc.stderr[-2000:]
