"""NodeResourceTopologyMatch and NetworkAware in simulations: the published configuration files
(tests/data/scheduler-plugins/{noderesourcetopology,networkaware}) load and simulate, the NUMA GPU
scenario fails on the fragmented node with upstream's message, `schedframe explain` shows it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedframe import SchedulerConfiguration, load_manifests
from schedframe.api import AppGroup, NetworkTopology, NodeResourceTopology
from schedframe.cli.main import main
from schedframe.config import ConfigurationDeprecationWarning

DATA = Path(__file__).parent / "data" / "scheduler-plugins"
NUMA_CONFIG = DATA / "noderesourcetopology" / "scheduler-config.yaml"
NET_CONFIG = DATA / "networkaware" / "scheduler-config.yaml"


def test_published_configs_decode_with_upstream_defaults() -> None:
    with pytest.warns(ConfigurationDeprecationWarning, match="v1beta3"):
        cfg = SchedulerConfiguration.from_yaml(NUMA_CONFIG.read_text())
    by = {a["name"]: a["args"] for a in cfg.to_dict()["profiles"][0]["pluginConfig"]}
    assert by["NodeResourceTopologyMatch"] == {
        "scoringStrategy": {"type": "LeastAllocated",
                            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]},
        "cache": {"foreignPodsDetect": "All", "resyncMethod": "Autodetect", "informerMode": "Dedicated"}}
    cfg = SchedulerConfiguration.from_yaml(NET_CONFIG.read_text())
    by = {a["name"]: a["args"] for a in cfg.to_dict()["profiles"][0]["pluginConfig"]}
    assert by["TopologicalSort"] == {"namespaces": ["default"]}
    assert by["NetworkOverhead"] == {"namespaces": ["default"], "weightsName": "UserDefined",
                                     "networkTopologyName": "net-topology-test"}


@pytest.mark.parametrize("path", [NUMA_CONFIG, NET_CONFIG], ids=lambda p: p.parent.name)
def test_published_configs_validate(path: Path) -> None:
    assert main(["config", "validate", str(path)]) == 0


def test_published_objects_load() -> None:
    a = load_manifests((DATA / "noderesourcetopology" / "worker-node-A.yaml").read_text())
    b = load_manifests((DATA / "noderesourcetopology" / "worker-node-B.yaml").read_text())
    assert [type(o) for o in (*a, *b)] == [NodeResourceTopology, NodeResourceTopology]
    assert [z.name for z in a[0].zones] == ["node-0", "node-1"]
    assert {r.name for r in b[0].zones[1].resources} == {"cpu", "example.com/deviceB"}
    ag, = load_manifests((DATA / "networkaware" / "appGroup-example.yaml").read_text())
    assert isinstance(ag, AppGroup)
    assert [(d.workload.selector, d.max_network_cost) for w in ag.workloads for d in w.dependencies] == [
        ("P2", 30), ("P3", 20)]
    nt, = load_manifests((DATA / "networkaware" / "networkTopology-example.yaml").read_text())
    assert isinstance(nt, NetworkTopology)
    assert [(w.name, w.topology_list) for w in nt.weights] == [("UserDefined", ())]


def test_numa_scenario_fails_on_the_fragmented_node() -> None:
    from schedframe.sim import Scenario, simulate

    with pytest.warns(ConfigurationDeprecationWarning, match="v1beta3"):
        result = simulate(Scenario.from_file(DATA / "numa-gpu-alignment.yaml"))
    by = {p.key: p for p in result.pods}
    assert by["default/train-0"].state == "Running"
    assert by["default/train-0"].node == "aligned"
    assert by["default/train-1"].state == "Pending"


def test_numa_scenario_in_the_cli(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = str(DATA / "numa-gpu-alignment.yaml")
    assert main(["simulate", path, "--plain", "--pods"]) == 0
    out = capsys.readouterr().out
    assert "default/train-0\tRunning\taligned" in out
    assert main(["simulate", path, "--json", "--explain", "default/train-1"]) == 0
    attempts = json.loads(capsys.readouterr().out)["results"][0]["explanations"]["default/train-1"]
    assert attempts[0]["message"] == ("0/2 nodes are available: 1 Insufficient nvidia.com/gpu, "
                                      "1 cannot align pod.")
    pod = tmp_path / "pod.yaml"
    pod.write_text("""
apiVersion: v1
kind: Pod
metadata: {name: trainer}
spec:
  schedulerName: topo-aware-scheduler
  containers:
  - name: trainer
    resources:
      requests: {cpu: "4", memory: 4Gi, nvidia.com/gpu: "1"}
      limits: {cpu: "4", memory: 4Gi, nvidia.com/gpu: "1"}
""")
    assert main(["explain", str(pod), "--cluster", str(DATA / "numa-gpu-cluster.yaml"),
                 "--config", str(NUMA_CONFIG), "--plain"]) == 0
    out = capsys.readouterr().out
    assert "Result: scheduled to aligned" in out
    assert "fragmented: filtered out: NodeResourceTopologyMatch: cannot align pod" in out


def test_networkaware_scenario_follows_dependencies() -> None:
    from schedframe.sim import Scenario, simulate

    result = simulate(Scenario.from_file(DATA / "networkaware-appgroup.yaml"))
    nodes = {p.key: p.node for p in result.pods}
    assert all(p.state == "Running" for p in result.pods)
    first = nodes["default/p3-0"]
    assert {nodes[f"default/p2-{i}"] for i in range(2)} == {first}
    assert {nodes[f"default/p1-{i}"] for i in range(2)} == {first}


def test_networkaware_scenario_in_the_cli(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["simulate", str(DATA / "networkaware-appgroup.yaml"), "--plain", "--fail-on-pending"]) == 0
    assert "networkaware-appgroup" in capsys.readouterr().out
