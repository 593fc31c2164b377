"""TopologicalSort and NetworkOverhead: tables of scheduler-plugins v0.34.7
``pkg/networkaware/topologicalsort/topologicalsort_test.go`` and
``pkg/networkaware/networkoverhead/networkoverhead_test.go`` (TestNetworkOverheadScore,
TestNetworkOverheadFilter), with their ``basic`` AppGroup and NetworkTopology."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import PluginArgsError, Status
from schedframe.api import AppGroup, NetworkTopology
from schedframe.cache.nodeinfo import PodInfo
from schedframe.framework.args import decode_args, encode_args
from schedframe.framework.cycle_state import CycleState
from schedframe.framework.interfaces import QueuedPodInfo
from schedframe.plugins.sigs import NetworkOverheadArgs, TopologicalSortArgs
from schedframe.plugins.sigs.network_overhead import ERR_NETWORK_REQUIREMENTS
from schedframe.testing import PluginHarness, make_node, make_pod

AG = "appgroup.diktyo.x-k8s.io"


def workload(sel: str) -> dict[str, str]:
    return {
        "kind": "Deployment",
        "name": f"{sel}-deployment",
        "selector": sel,
        "apiVersion": "apps/v1",
        "namespace": "default",
    }


def app_group(name: str, deps: dict[str, list[str]], order: list[str], max_cost: int = 0) -> AppGroup:
    return AppGroup.from_manifest(
        {
            "apiVersion": "appgroup.diktyo.x-k8s.io/v1alpha1",
            "kind": "AppGroup",
            "metadata": {"name": name, "namespace": "default"},
            "spec": {
                "numMembers": len(order),
                "topologySortingAlgorithm": "KahnSort",
                "workloads": [
                    {
                        "workload": workload(w),
                        "dependencies": [
                            {"workload": workload(d), **({"maxNetworkCost": max_cost} if max_cost else {})}
                            for d in ds
                        ],
                    }
                    for w, ds in deps.items()
                ],
            },
            # sorted by selector, as the AppGroup controller writes it
            "status": {
                "topologyOrder": sorted(
                    ({"workload": workload(w), "index": i + 1} for i, w in enumerate(order)),
                    key=lambda t: t["workload"]["selector"],
                )
            },
        }
    )


BASIC = app_group("basic", {"p1": ["p2"], "p2": ["p3"], "p3": []}, ["p1", "p2", "p3"])
ONLINE_BOUTIQUE = app_group(
    "onlineboutique",
    {
        "p1": ["p2", "p3", "p4", "p6", "p8", "p9", "p10"],
        "p2": ["p11"],
        "p3": [],
        "p4": [],
        "p5": [],
        "p6": [],
        "p7": [],
        "p8": ["p2", "p3", "p4", "p5", "p6", "p7"],
        "p9": ["p3"],
        "p10": [],
        "p11": [],
    },
    ["p1", "p10", "p9", "p8", "p7", "p6", "p5", "p4", "p3", "p2", "p11"],
)


def pod(selector: str, group: str, node: str = "", priority: int = 0) -> Any:
    b = (
        make_pod(f"{selector}-deployment")
        .label(AG, group)
        .label(AG + ".workload", selector)
        .priority(priority)
    )
    if node:
        b = b.node(node)
    return b.obj()


def q(p: Any) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo.of(p), timestamp=0.0)


@pytest.mark.parametrize(
    ("p1", "p2", "want"),
    [
        pytest.param(
            pod("p1", "basic"), pod("p2", "basic"), True, id="basic, same AppGroup, p1 order lower than p2"
        ),
        pytest.param(
            pod("p5", "onlineboutique"),
            pod("p1", "onlineboutique"),
            False,
            id="onlineboutique, same AppGroup, p5 order higher than p1",
        ),
        pytest.param(pod("p1", "basic"), pod("p5", "other"), False, id="pods from different AppGroups"),
    ],
)
def test_topological_sort_less(p1: Any, p2: Any, want: bool) -> None:
    h = PluginHarness("TopologicalSort", nodes=[make_node("n").obj()], objects=[BASIC, ONLINE_BOUTIQUE])
    assert h.plugin.less(q(p1), q(p2)) is want  # type: ignore[attr-defined]


def test_topological_sort_falls_back_to_priority() -> None:
    h = PluginHarness("TopologicalSort", {"namespaces": ["elsewhere"]}, nodes=[make_node("n").obj()])
    assert h.plugin.less(q(pod("p2", "", priority=10)), q(pod("p1", "", priority=1))) is True  # type: ignore[attr-defined]
    assert encode_args(decode_args(TopologicalSortArgs, {})) == {"namespaces": ["default"]}


NT = NetworkTopology.from_manifest(
    {
        "apiVersion": "networktopology.diktyo.x-k8s.io/v1alpha1",
        "kind": "NetworkTopology",
        "metadata": {"name": "nt-test", "namespace": "default"},
        "spec": {
            "configmapName": "netperf",
            "weights": [
                {
                    "name": "UserDefined",
                    "topologyList": [
                        {
                            "topologyKey": "topology.kubernetes.io/region",
                            "originList": [
                                {
                                    "origin": "us-west-1",
                                    "costList": [{"destination": "us-east-1", "networkCost": 20}],
                                },
                                {
                                    "origin": "us-east-1",
                                    "costList": [{"destination": "us-west-1", "networkCost": 20}],
                                },
                            ],
                        },
                        {
                            "topologyKey": "topology.kubernetes.io/zone",
                            "originList": [
                                {"origin": "Z1", "costList": [{"destination": "Z2", "networkCost": 5}]},
                                {"origin": "Z2", "costList": [{"destination": "Z1", "networkCost": 5}]},
                                {"origin": "Z3", "costList": [{"destination": "Z4", "networkCost": 10}]},
                                {"origin": "Z4", "costList": [{"destination": "Z3", "networkCost": 10}]},
                            ],
                        },
                    ],
                }
            ],
        },
    }
)

NODES = [
    make_node(f"n-{i + 1}")
    .label("topology.kubernetes.io/region", region)
    .label("topology.kubernetes.io/zone", zone)
    .capacity(cpu="8", memory="16Gi", pods="110")
    .obj()
    for i, (region, zone) in enumerate(
        [
            ("us-west-1", "Z1"),
            ("us-west-1", "Z1"),
            ("us-west-1", "Z2"),
            ("us-west-1", "Z2"),
            ("us-east-1", "Z3"),
            ("us-east-1", "Z3"),
            ("us-east-1", "Z4"),
            ("us-east-1", "Z4"),
        ]
    )
]
ARGS = {"namespaces": ["default"], "weightsName": "UserDefined", "networkTopologyName": "nt-test"}


def scores(h: PluginHarness, p: Any) -> tuple[list[int], list[int]]:
    """PreFilter, Score (raw) and NormalizeScore, as a scheduling cycle runs them."""
    state = CycleState()
    plugin: Any = h.plugin
    nodes = sorted(h.snapshot.node_infos().list(), key=lambda ni: int(ni.name[2:]))
    plugin.pre_filter(state, p, nodes)
    from schedframe.framework.interfaces import NodeScore

    raw = [NodeScore(ni.name, plugin.score(state, p, ni)[0]) for ni in nodes]
    normalized = list(raw)
    plugin.normalize_score(state, p, normalized)
    return [s.score for s in raw], [s.score for s in normalized]


PLACED = [pod("p1", "basic", "n-2"), pod("p2", "basic", "n-5"), pod("p3", "basic", "n-1")]


@pytest.mark.parametrize(
    ("p", "before", "after"),
    [
        pytest.param(
            pod("p1", "basic"),
            [20, 20, 20, 20, 0, 1, 10, 10],
            [0, 0, 0, 0, 100, 95, 50, 50],
            id="AppGroup: basic, p1 to allocate, 8 nodes to score",
        ),
        pytest.param(
            pod("p2", "basic"),
            [0, 1, 5, 5, 20, 20, 20, 20],
            [100, 95, 75, 75, 0, 0, 0, 0],
            id="AppGroup: basic, p2 to allocate, 8 nodes to score",
        ),
        pytest.param(
            pod("p3", "basic"),
            [0] * 8,
            [0] * 8,
            id="AppGroup: basic, p3 to allocate, no dependency, 8 nodes to score",
        ),
    ],
)
def test_network_overhead_score(p: Any, before: list[int], after: list[int]) -> None:
    h = PluginHarness("NetworkOverhead", ARGS, nodes=NODES, pods=PLACED, objects=[BASIC, NT])
    assert scores(h, p) == (before, after)


FILTER_PLACED = [pod("p1", "basic", "n-2"), pod("p2", "basic", "n-5"), pod("p3", "basic", "n-8")]


@pytest.mark.parametrize(
    ("p", "node", "want"),
    [
        pytest.param(
            pod("p1", "basic"),
            "n-1",
            Status.unschedulable(ERR_NETWORK_REQUIREMENTS.format("n-1", 0, 1)),
            id="basic, p1 to allocate, n-1 does not meet network requirements",
        ),
        pytest.param(
            pod("p1", "basic"), "n-6", Status.OK, id="basic, p1 to allocate, n-6 meets network requirements"
        ),
        pytest.param(
            pod("p2", "basic"),
            "n-5",
            Status.unschedulable(ERR_NETWORK_REQUIREMENTS.format("n-5", 0, 1)),
            id="basic, p2 to allocate, n-5 does not meet network requirements",
        ),
        pytest.param(
            pod("p2", "basic"), "n-7", Status.OK, id="basic, p2 to allocate, n-7 meets network requirements"
        ),
        pytest.param(pod("p3", "basic"), "n-1", Status.OK, id="basic, p3 to allocate, no dependencies"),
        pytest.param(pod("p10", ""), "n-1", Status.OK, id="basic, p10 to allocate, different AppGroup"),
    ],
)
def test_network_overhead_filter(p: Any, node: str, want: Status) -> None:
    h = PluginHarness("NetworkOverhead", ARGS, nodes=NODES, pods=FILTER_PLACED, objects=[BASIC, NT])
    assert h.filter(p)[node] == want


def test_max_network_cost_is_honoured() -> None:
    """With maxNetworkCost 20 the cross-region dependency is satisfied, so n-1 passes."""
    relaxed = app_group("basic", {"p1": ["p2"], "p2": ["p3"], "p3": []}, ["p1", "p2", "p3"], max_cost=20)
    h = PluginHarness("NetworkOverhead", ARGS, nodes=NODES, pods=FILTER_PLACED, objects=[relaxed, NT])
    assert h.filter(pod("p1", "basic"))["n-1"] == Status.OK


def test_network_overhead_args() -> None:
    assert encode_args(decode_args(NetworkOverheadArgs, {})) == {
        "namespaces": ["default"],
        "weightsName": "UserDefined",
        "networkTopologyName": "nt-default",
    }
    with pytest.raises(PluginArgsError, match="weightsName: must be a string"):
        decode_args(NetworkOverheadArgs, {"weightsName": 3})


def test_objects_round_trip() -> None:
    assert AppGroup.from_manifest(ONLINE_BOUTIQUE.to_manifest()) == ONLINE_BOUTIQUE
    assert NetworkTopology.from_manifest(NT.to_manifest()) == NT
