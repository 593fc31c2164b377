"""The simulated load model (schedframe.sim.usage): usage models in scenarios and annotations,
the simulated node metrics, utilisation over time in `simulate --json`, and TargetLoadPacking
holding busy nodes near its target where the default profile spreads."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from schedframe import Node, Pod, ScenarioError, SchedframeWarning
from schedframe.cli.main import main
from schedframe.plugins.sigs import NodeMetricsSource
from schedframe.sim import Scenario
from schedframe.sim.usage import USAGE_ANNOTATION, SimulatedMetricsProvider, UsageModel, parse_usage, usage_of

DATA = Path(__file__).parent / "data" / "scheduler-plugins"
DEMO = DATA / "trimaran-target-load.yaml"


def _pod(cpu: str = "1", memory: str = "1Gi", usage: Any = None) -> Pod:
    meta: dict[str, Any] = {"name": "p"}
    if usage is not None:
        meta["annotations"] = {USAGE_ANNOTATION: json.dumps(usage)}
    return Pod.from_manifest({"metadata": meta, "spec": {"containers": [
        {"name": "c", "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}})


def test_usage_models() -> None:
    assert usage_of(_pod(), 10) == (1000.0, float(1 << 30))  # no model: what it requests
    assert usage_of(_pod(usage={"fraction": 0.5}), 10) == (500.0, float(1 << 29))
    assert usage_of(_pod(usage={"fraction": {"cpu": 0.25}}), 10) == (250.0, 0.0)
    assert usage_of(_pod(usage={"cpu": "300m", "memory": "1Mi"}), 10) == (300.0, float(1 << 20))
    series = {"series": [{"at": 0, "cpu": "100m"}, {"at": 60, "fraction": 1.0}], "repeat": 120}
    p = _pod(usage=series)
    got = [usage_of(p, t)[0] for t in (0, 59, 60, 119, 120, 185)]
    assert got == [100.0, 100.0, 1000.0, 1000.0, 100.0, 1000.0]
    m = parse_usage(series)
    assert parse_usage(m.to_dict()) == m
    assert parse_usage(parse_usage({"fraction": 0.5}).to_dict()) == parse_usage({"fraction": 0.5})


@pytest.mark.parametrize(("raw", "where", "what"), [
    ({"fraction": -1}, "usage.fraction", "want a fraction"),
    ({"cpu": "lots"}, "usage.cpu", "want a quantity"),
    ({"fraction": 1, "cpu": "1"}, "usage", "not both"),
    ({"percent": 5}, "usage.percent", "unknown field"),
    ({"series": [{"at": 60, "cpu": "1"}, {"at": 0, "cpu": "2"}]}, r"usage.series\[1\].at", "time order"),
    ({"fraction": 1, "repeat": 5}, "usage.repeat", "only a series repeats"),
    ("{not json", "usage", "invalid JSON"),
])
def test_usage_model_errors(raw: Any, where: str, what: str) -> None:
    with pytest.raises(ScenarioError, match=f"{where}: .*{what}"):
        parse_usage(raw)


def test_scenario_usage_and_load_window() -> None:
    s = Scenario.from_text("""
load: {window: 2m}
nodes: [{count: 1, template: {status: {capacity: {cpu: "2", memory: 4Gi}}}}]
workloads:
- name: w
  usage: {series: [{at: 0, fraction: 0.5}, {at: 1m, cpu: 1}]}
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: 500m}}}]}}
""")
    assert s.load_window == 120.0
    assert s.plan().load_window == 120.0
    tpl = s.workloads[0].template
    assert parse_usage(tpl.annotations[USAGE_ANNOTATION]) == UsageModel(parse_usage(
        {"series": [{"at": 0, "fraction": 0.5}, {"at": 60, "cpu": "1"}]}).points)
    with pytest.raises(ScenarioError, match=r"workloads\[0\]\.usage\.series\[0\]\.at"):
        Scenario.from_dict({"workloads": [{"name": "w", "usage": {"series": [{"at": "soon", "cpu": 1}]}}]})
    with pytest.raises(ScenarioError, match=r"load\.size: unknown field"):
        Scenario.from_dict({"load": {"size": 1}})


def test_simulated_metrics_average_and_deviation_over_the_window() -> None:
    node = Node.from_manifest({"metadata": {"name": "n1"},
                               "status": {"capacity": {"cpu": "2", "memory": "2Gi"}}})
    now = [120.0]
    steady = _pod(cpu="1", usage={"fraction": 0.5})  # 500m: 25%
    late = _pod(cpu="1", usage={"cpu": "1"})  # 1000m from t=60: 50%
    provider = SimulatedMetricsProvider(lambda: now[0], lambda: {"n1": node},
                                        lambda: [("n1", [(steady, 0.0), (late, 60.0)])], window=120)
    wm = provider.watcher_metrics()
    assert (wm.window_start, wm.window_end) == (0, 120)
    got = {(m.type, m.operator): m.value for m in wm.nodes["n1"]}
    # 9 samples at 0, 15, ..., 120: 25% before 60, 75% from 60 (5 of 9)
    values = [25.0] * 4 + [75.0] * 5
    mean = sum(values) / 9
    assert got[("CPU", "AVG")] == pytest.approx(mean)
    assert got[("CPU", "STD")] == pytest.approx((sum((v - mean) ** 2 for v in values) / 9) ** 0.5)
    assert got[("Memory", "AVG")] == pytest.approx(25.0)  # 512Mi of 2Gi throughout
    assert isinstance(provider.source(), NodeMetricsSource)


def test_target_load_packing_holds_busy_nodes_near_the_target(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.warns(SchedframeWarning, match="TargetLoadPacking: the args name metricProvider Prometheus"):
        assert main(["simulate", str(DEMO), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    by = {r["config"]: r for r in data["results"]}
    tlp, default = by["target-load-packing"], by["default"]
    assert sorted(Counter(p["node"] for p in tlp["pods"]).values()) == [3, 3, 3, 3]
    end_tlp, end_default = tlp["samples"][-1]["used"], default["samples"][-1]["used"]
    # the same load on the cluster; TargetLoadPacking keeps each busy node near its 40% target
    assert end_tlp["cpu"] == end_default["cpu"] == pytest.approx(6 / 32)
    assert end_tlp["cpu_busy_min"] == end_tlp["cpu_busy_max"] == pytest.approx(0.375)
    assert end_default["busy_nodes"] == 8
    assert end_default["cpu_busy_max"] <= 0.25
    # over time: once placed, no busy node passes the target under TargetLoadPacking
    assert all(s["used"].get("cpu_busy_max", 0) <= 0.4 for s in tlp["samples"])


def test_target_load_packing_plot(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    pytest.importorskip("matplotlib")
    out = tmp_path / "plot.png"
    with pytest.warns(SchedframeWarning):
        assert main(["simulate", str(DEMO), "--plain", "--plot", str(out)]) == 0
    assert out.stat().st_size > 0


def test_the_published_trimaran_config_loads_and_simulates(tmp_path: Path,
                                                          capsys: pytest.CaptureFixture[str]) -> None:
    """manifests/trimaran/scheduler-config.yaml (v1beta3, Prometheus provider) runs unedited: the
    simulated provider replaces Prometheus, and says so."""
    config = DATA / "trimaran-scheduler-config.yaml"
    assert main(["config", "validate", str(config)]) == 0
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"""
nodes: [{{count: 4, template: {{status: {{capacity: {{cpu: "4", memory: 16Gi, pods: "110"}}}}}}}}]
workloads:
- name: web
  replicas: 8
  arrival: {{at: 0, every: 30}}
  usage: {{fraction: 0.8}}
  template:
    spec:
      schedulerName: trimaran
      containers: [{{name: app, resources: {{requests: {{cpu: "1", memory: 1Gi}}}}}}]
configs: [{{name: trimaran, file: {config}}}]
""")
    with pytest.warns(SchedframeWarning, match="using the node metrics source 'simulation'"):
        assert main(["simulate", str(scenario), "--plain", "--fail-on-pending"]) == 0
    assert "trimaran" in capsys.readouterr().out


METRICS_FILE = """{"window": {"duration": "15m", "start": 1700000000, "end": 1700000900},
 "source": "Prometheus",
 "data": {"NodeMetricsMap": {
   "node-0": {"metrics": [{"type": "CPU", "operator": "AVG", "value": 35}]},
   "node-1": {"metrics": [{"type": "CPU", "operator": "AVG", "value": 5}]}}}}"""

FILE_SCENARIO = """
name: measured
nodes: [{count: 2, name: "node-{i}", template: {status: {capacity: {cpu: "4", memory: 16Gi, pods: "110"}}}}]
workloads:
- name: web
  replicas: 3
  arrival: {at: 0, every: 10}
  template: {spec: {containers: [{name: app, resources: {requests: {cpu: 200m}, limits: {cpu: 200m}}}]}}
configs:
- name: tlp
  config:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - plugins:
        score:
          disabled: [{name: "*"}]
          enabled: [{name: TargetLoadPacking}]
"""


def test_metrics_given_with_the_cluster(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Measured metrics (load.metrics, or --load-metrics beside --cluster) replace the simulated
    ones; they describe time 0, and TargetLoadPacking adds the pods placed since."""
    (tmp_path / "metrics.json").write_text(METRICS_FILE)
    (tmp_path / "s.yaml").write_text(FILE_SCENARIO + "load: {metrics: metrics.json}\n")
    s = Scenario.from_file(tmp_path / "s.yaml")
    assert s.load_metrics is not None
    assert s.load_metrics.nodes["node-0"][0].value == 35
    # node-0 at 35% (+200m: 40%, the target) beats node-1 at 5%, until the pods placed there
    # take it past the target: 35% + 5% + 5% = 45%
    assert main(["simulate", str(tmp_path / "s.yaml"), "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["results"][0]
    assert [p["node"] for p in run["pods"]] == ["node-0", "node-1", "node-1"]
    # the same through the command line
    (tmp_path / "t.yaml").write_text(FILE_SCENARIO)
    assert main(["simulate", str(tmp_path / "t.yaml"), "--load-metrics", str(tmp_path / "metrics.json"),
                 "--json", "--log", str(tmp_path / "run.jsonl")]) == 0
    run = json.loads(capsys.readouterr().out)["results"][0]
    assert [p["node"] for p in run["pods"]] == ["node-0", "node-1", "node-1"]
    # the event log keeps the metrics: a replay places the pods the same way
    from schedframe.sim import replay

    again = replay(str(tmp_path / "run.jsonl"))
    assert [again.pod(f"default/web-{i}").node for i in range(3)] == ["node-0", "node-1", "node-1"]
    (tmp_path / "bad.json").write_text('{"data": {"NodeMetricsMap": ["node-0"]}}')
    with pytest.raises(ScenarioError, match=r"load\.metrics: .*data\.NodeMetricsMap: want a mapping"):
        Scenario.from_text(FILE_SCENARIO + "load: {metrics: bad.json}\n", base_dir=str(tmp_path))


SWING = '{"series": [{"at": 0, "cpu": "100m"}, {"at": 30, "cpu": "3900m"}], "repeat": 60}'


@pytest.mark.parametrize(("swing", "flat"), [("node-0", "node-1"), ("node-1", "node-0")])
def test_risk_balancing_avoids_the_node_whose_load_varies(swing: str, flat: str, tmp_path: Path,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    """Two nodes with the same average load (50%); on one it swings (a series usage), on the
    other it is flat: LoadVariationRiskBalancing places the new pod on the flat one, by the
    standard deviation the simulated metrics report."""
    (tmp_path / "s.yaml").write_text(f"""
name: variation
load: {{window: 120}}
nodes:
- count: 2
  name: "node-{{i}}"
  template: {{status: {{capacity: {{cpu: "4", memory: 16Gi, pods: "9"}}}}}}
objects:
- apiVersion: v1
  kind: Pod
  metadata:
    name: swing
    namespace: default
    annotations:
      schedframe.io/usage: '{SWING}'
  spec: {{nodeName: {swing}, containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}
- apiVersion: v1
  kind: Pod
  metadata: {{name: flat, namespace: default, annotations: {{schedframe.io/usage: '{{"cpu": "2"}}'}}}}
  spec: {{nodeName: {flat}, containers: [{{name: c, resources: {{requests: {{cpu: "1"}}}}}}]}}
workloads:
- name: web
  arrival: {{at: 300}}
  template: {{spec: {{containers: [{{name: app, resources: {{requests: {{cpu: 500m, memory: 1Gi}}}}}}]}}}}
configs:
- name: lvrb
  config:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - plugins:
        score: {{disabled: [{{name: "*"}}], enabled: [{{name: LoadVariationRiskBalancing}}]}}
until: 400
""")
    assert main(["simulate", str(tmp_path / "s.yaml"), "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["results"][0]
    assert [p["node"] for p in run["pods"] if p["workload"] == "web"] == [flat]
    assert run["samples"][-1]["used"]["busy_nodes"] == 2


def test_peaks_in_a_simulation(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Peaks (args named as its published deployment names them) places pods where the power jump
    is the smallest: node-1, whose model rises half as fast; the second pod too, as node-1's jump
    from 25% to 50% (e - e^0.5 = 1.07) stays under node-0's from 0% to 25% (2 (e^0.5 - 1) = 1.30)."""
    (tmp_path / "s.yaml").write_text("""
name: power
nodes:
- count: 2
  name: "node-{i}"
  template: {status: {capacity: {cpu: "4", memory: 16Gi, pods: "110"}}}
workloads:
- name: web
  replicas: 2
  arrival: {at: 0, every: 60}
  template: {spec: {containers: [{name: app, resources: {requests: {cpu: "1"}}}]}}
configs:
- name: peaks
  config:
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - plugins:
        preScore: {disabled: [{name: "*"}]}
        score: {enabled: [{name: Peaks}], disabled: [{name: "*"}]}
      pluginConfig:
      - name: Peaks
        args:
          WatcherAddress: http://load-watcher:2020
          NodePowerModel:
            node-0: {k0: 100, k1: 2, k2: 0.02}
            node-1: {k0: 100, k1: 1, k2: 0.02}
until: 200
""")
    with pytest.warns(SchedframeWarning, match="Peaks: the args name watcherAddress http://load-watcher:2020"):
        assert main(["simulate", str(tmp_path / "s.yaml"), "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["results"][0]
    assert [p["node"] for p in run["pods"]] == ["node-1", "node-1"]


def test_an_invalid_usage_annotation_is_an_error_before_the_run() -> None:
    from schedframe.sim import simulate

    s = Scenario.from_dict({
        "nodes": [{"count": 1, "template": {"status": {"capacity": {"cpu": "1", "pods": "9"}}}}],
        "objects": [{"apiVersion": "v1", "kind": "Pod", "metadata": {
            "name": "p", "namespace": "default", "annotations": {USAGE_ANNOTATION: '{"fraction": "most"}'}},
            "spec": {"containers": [{"name": "c"}]}}]})
    with pytest.raises(ScenarioError, match=r"default/p: metadata.annotations\[schedframe.io/usage\]"):
        simulate(s)
