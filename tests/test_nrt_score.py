"""NodeResourceTopologyMatch Score: scheduler-plugins v0.34.7 ``score_test.go``
(TestNodeResourceScorePlugin, TestNodeResourceScorePluginLeastNUMA on its default NUMA nodes) and
the args' defaults and validation."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import ConfigurationError, PluginArgsError
from schedframe.api import NodeResourceTopology
from schedframe.api.objects import Container
from schedframe.framework.args import decode_args, encode_args
from schedframe.plugins.sigs import NodeResourceTopologyMatchArgs
from schedframe.testing import PluginHarness, make_node, make_pod


def zone(name: str, cpu: str, memory: str) -> dict[str, Any]:
    return {
        "name": name,
        "type": "Node",
        "resources": [
            {"name": "cpu", "capacity": cpu, "allocatable": cpu, "available": cpu},
            {"name": "memory", "capacity": memory, "allocatable": memory, "available": memory},
        ],
    }


def default_numa_nodes(policy: str) -> list[NodeResourceTopology]:
    return [
        NodeResourceTopology.from_manifest(
            {
                "apiVersion": "topology.node.k8s.io/v1alpha2",
                "kind": "NodeResourceTopology",
                "metadata": {"name": name},
                "topologyPolicies": [policy],
                "zones": [zone("node-0", cpu, mem), zone("node-1", cpu, mem)],
            }
        )
        for name, cpu, mem in (("Node1", "4", "500Mi"), ("Node2", "2", "50Mi"), ("Node3", "6", "60Mi"))
    ]


NODES = [make_node(n).capacity(cpu="12", memory="1Gi", pods="110").obj() for n in ("Node1", "Node2", "Node3")]


def guaranteed(*requests: dict[str, str]) -> Any:
    return (
        make_pod("p")
        .obj()
        .evolve(
            containers=tuple(Container(name=f"c{i}", requests=r, limits=r) for i, r in enumerate(requests))
        )
    )


@pytest.mark.parametrize(
    ("strategy", "best", "score"),
    [
        ("MostAllocated", "Node2", 70),
        ("BalancedAllocation", "Node3", 100),
        ("LeastAllocated", "Node1", 73),
    ],
)
def test_strategies(strategy: str, best: str, score: int) -> None:
    """The best node and its score for a 2 CPU / 20M Guaranteed pod (container scope)."""
    h = PluginHarness(
        "NodeResourceTopologyMatch",
        {"scoringStrategy": {"type": strategy}},
        nodes=NODES,
        objects=default_numa_nodes("SingleNUMANodeContainerLevel"),
    )
    scores = h.score(guaranteed({"cpu": "2", "memory": str(20 * 1024 * 1024)}))
    top = max(scores, key=lambda n: scores[n])
    assert (top, scores[top]) == (best, score)


MI50 = "50Mi"
LEAST_NUMA = [
    ("container scope, one container case 1", "BestEffortContainerLevel", [("2", MI50)], (94, 94, 94)),
    ("container scope, one container case 2", "BestEffortContainerLevel", [("4", MI50)], (94, 82, 94)),
    ("container scope, one container case 3", "BestEffortContainerLevel", [("6", MI50)], (82, 0, 94)),
    (
        "container scope, two containers case 1",
        "BestEffortContainerLevel",
        [("2", MI50), ("2", MI50)],
        (94, 94, 94),
    ),
    (
        "container scope, two containers case 2",
        "BestEffortContainerLevel",
        [("1", MI50), ("3", MI50)],
        (94, 82, 94),
    ),
    (
        "container scope, two containers case 3",
        "BestEffortContainerLevel",
        [("5", MI50), ("3", MI50)],
        (82, 0, 94),
    ),
    ("pod scope, two containers case 2", "BestEffortPodLevel", [("1", MI50), ("3", MI50)], (94, 82, 82)),
    ("pod scope, two containers case 3", "BestEffortPodLevel", [("5", MI50), ("3", MI50)], (82, 0, 82)),
]


@pytest.mark.parametrize(
    ("policy", "containers", "want"), [c[1:] for c in LEAST_NUMA], ids=[c[0] for c in LEAST_NUMA]
)
def test_least_numa_nodes(policy: str, containers: list[tuple[str, str]], want: tuple[int, ...]) -> None:
    h = PluginHarness(
        "NodeResourceTopologyMatch",
        {"scoringStrategy": {"type": "LeastNUMANodes"}},
        nodes=NODES,
        objects=default_numa_nodes(policy),
    )
    scores = h.score(guaranteed(*({"cpu": c, "memory": m} for c, m in containers)))
    assert (scores["Node1"], scores["Node2"], scores["Node3"]) == want


def test_non_numa_resources_and_non_guaranteed_score_max() -> None:
    h = PluginHarness(
        "NodeResourceTopologyMatch",
        {"scoringStrategy": {"type": "LeastNUMANodes"}},
        nodes=NODES,
        objects=default_numa_nodes("BestEffortContainerLevel"),
    )
    assert set(h.score(guaranteed({"non-numa-resource": "1"}, {"non-numa-resource": "2"})).values()) == {100}
    assert set(h.score(make_pod("b").req(cpu="1").obj()).values()) == {100}


def test_least_numa_prefers_close_zones() -> None:
    """Four zones: two GPUs in zones 0 and 2 (distance 20) lose the half-zone bonus that zones 0 and 1
    (distance 12) keep."""
    dist = [[10, 12, 20, 20], [12, 10, 20, 20], [20, 20, 10, 12], [20, 20, 12, 10]]

    def four(name: str, gpus: tuple[str, ...]) -> NodeResourceTopology:
        return NodeResourceTopology.from_manifest(
            {
                "apiVersion": "topology.node.k8s.io/v1alpha2",
                "kind": "NodeResourceTopology",
                "metadata": {"name": name},
                "attributes": [{"name": "topologyManagerPolicy", "value": "best-effort"}],
                "zones": [
                    {
                        "name": f"node-{i}",
                        "type": "Node",
                        "costs": [{"name": f"node-{j}", "value": dist[i][j]} for j in range(4)],
                        "resources": [
                            *zone("x", "4", "4Gi")["resources"],
                            {
                                "name": "nvidia.com/gpu",
                                "capacity": gpus[i],
                                "allocatable": gpus[i],
                                "available": gpus[i],
                            },
                        ],
                    }
                    for i in range(4)
                ],
            }
        )

    nodes = [
        make_node(n).capacity(cpu="16", memory="16Gi", pods="110", **{"nvidia.com/gpu": "4"}).obj()
        for n in ("Node1", "Node2")
    ]
    h = PluginHarness(
        "NodeResourceTopologyMatch",
        {"scoringStrategy": {"type": "LeastNUMANodes"}},
        nodes=nodes,
        objects=[four("Node1", ("1", "1", "0", "0")), four("Node2", ("1", "0", "1", "0"))],
    )
    scores = h.score(guaranteed({"cpu": "2", "memory": "50Mi", "nvidia.com/gpu": "2"}))
    assert scores == {"Node1": 82, "Node2": 76}


def test_args_defaults_and_round_trip() -> None:
    args = decode_args(NodeResourceTopologyMatchArgs,
        {"scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu"}]}}
    )
    assert encode_args(args) == {
        "scoringStrategy": {"type": "MostAllocated", "resources": [{"name": "cpu", "weight": 1}]},
        "cache": {"foreignPodsDetect": "All", "resyncMethod": "Autodetect", "informerMode": "Dedicated"},
    }
    assert decode_args(NodeResourceTopologyMatchArgs, encode_args(args)) == args
    assert NodeResourceTopologyMatchArgs().scoring_strategy.type == "LeastAllocated"


def test_args_validation() -> None:
    want = r"scoringStrategy\.type: Invalid value: \"Fancy\": invalid ScoringStrategyType"
    with pytest.raises(ConfigurationError, match=want):
        PluginHarness("NodeResourceTopologyMatch", {"scoringStrategy": {"type": "Fancy"}}, nodes=NODES)
    with pytest.raises(PluginArgsError, match="unknown field"):
        decode_args(NodeResourceTopologyMatchArgs, {"scoringStrategy": {"kind": "x"}})


@pytest.mark.parametrize(
    ("strategy", "node1"), [("MostAllocated", 27), ("LeastAllocated", 73), ("BalancedAllocation", 89)]
)
def test_partial_data(strategy: str, node1: int) -> None:
    """TestNodeResourcePartialDataScorePlugin: nodes without an NRT object score 0; with no object at
    all every node does."""
    pod = guaranteed({"cpu": "2", "memory": str(20 * 1024 * 1024)})
    args = {"scoringStrategy": {"type": strategy}}
    h = PluginHarness("NodeResourceTopologyMatch", args, nodes=NODES)
    assert h.score(pod) == {"Node1": 0, "Node2": 0, "Node3": 0}
    only = [t for t in default_numa_nodes("SingleNUMANodeContainerLevel") if t.name == "Node1"]
    h = PluginHarness("NodeResourceTopologyMatch", args, nodes=NODES, objects=only)
    assert h.score(pod) == {"Node1": node1, "Node2": 0, "Node3": 0}
