"""NodeResourceTopologyMatch Filter at container scope with init and app containers: the entries
of scheduler-plugins v0.34.7 ``filter_test.go``
(TestNodeResourceTopologyMultiContainerContainerScope)."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Status
from schedframe.api import NodeResourceTopology
from schedframe.api.objects import Container
from schedframe.testing import PluginHarness, make_node, make_pod


def _res(name: str, capacity: str, available: str) -> dict[str, str]:
    return {"name": name, "capacity": capacity, "allocatable": capacity, "available": available}


HOST0 = NodeResourceTopology.from_manifest(
    {
        "apiVersion": "topology.node.k8s.io/v1alpha2",
        "kind": "NodeResourceTopology",
        "metadata": {"name": "host0"},
        "topologyPolicies": ["SingleNUMANodeContainerLevel"],
        "zones": [
            {
                "name": "node-0",
                "type": "Node",
                "resources": [
                    _res("cpu", "32", "30"),
                    _res("memory", "64Gi", "60Gi"),
                    _res("hugepages-2Mi", "384Mi", "384Mi"),
                    _res("vendor/nic1", "16", "16"),
                ],
            },
            {
                "name": "node-1",
                "type": "Node",
                "resources": [
                    _res("cpu", "32", "32"),
                    _res("memory", "64Gi", "64Gi"),
                    _res("hugepages-2Mi", "512Mi", "512Mi"),
                    _res("vendor/nic1", "32", "32"),
                ],
            },
        ],
    }
)
#: upstream's makeNodeFromNodeResourceTopology: the zones' available amounts summed
NODE = (
    make_node("host0")
    .capacity(cpu="62", memory="124Gi", pods="110", **{"hugepages-2Mi": "896Mi", "vendor/nic1": "48"})
    .obj()
)

ENTRIES = [
    pytest.param(
        [], [{"cpu": "2", "memory": "4G"}], "", id="[1][tier3] single container with good allocation - fit"
    ),
    pytest.param(
        [],
        [{"cpu": "40", "memory": "4G"}],
        "cannot align container",
        id="[2][tier3] single container with cpu over allocation - fit",
    ),
    pytest.param(
        [],
        [{"cpu": "2", "memory": "100G"}],
        "cannot align container",
        id="[2][tier3] single container with memory over allocation - fit",
    ),
    pytest.param(
        [],
        [{"cpu": "40", "memory": "100G"}],
        "cannot align container",
        id="[2][tier3] single container with cpu and memory over allocation - fit",
    ),
    pytest.param(
        [],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "40G"}],
        "",
        id="[4][tier2] multi-containers with good allocation, spread across NUMAs - fit",
    ),
    pytest.param(
        [],
        [
            {"cpu": "2", "memory": "6G", "hugepages-2Mi": "500Mi", "vendor/nic1": "16"},
            {"cpu": "2", "memory": "6G", "hugepages-2Mi": "50Mi", "vendor/nic1": "8"},
        ],
        "",
        id="[4][tier1] multi containers with good devices and hugepages allocation, spread across NUMAs - fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "40", "memory": "40G"}],
        [{"cpu": "1", "memory": "4G"}, {"cpu": "1", "memory": "4G"}],
        "cannot align init container",
        id="[7][tier1] init container with cpu over allocation, multi-containers with good allocation - not fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "4", "memory": "70G"}],
        [{"cpu": "1", "memory": "4G"}, {"cpu": "1", "memory": "4G"}],
        "cannot align init container",
        id="[7][tier1] init container with memory over allocation, multi-containers with good allocation - not fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "4", "memory": "10G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "40G"}],
        "",
        id="[11][tier1] init container with good allocation, multi-containers spread across NUMAs - fit",
    ),
    pytest.param(
        [{"cpu": "4", "memory": "10G"}, {"cpu": "4", "memory": "10G"}, {"cpu": "4", "memory": "10G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "40G"}, {"cpu": "6", "memory": "10G"}],
        "",
        id="[17][tier1] multi init containers with good allocation, multi-containers spread across NUMAs - fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "30", "memory": "10G"}, {"cpu": "30", "memory": "10G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "6G"}],
        "cannot align container",
        id="[24][tier1] multi init containers with good allocation, multi-containers with over cpu allocation - not fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "30", "memory": "10G"}, {"cpu": "30", "memory": "10G"}],
        [{"cpu": "35", "memory": "40G"}],
        "cannot align container",
        id="[27][tier1] multi init containers with good allocation, container with cpu over allocation - not fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "30", "memory": "10G"}, {"cpu": "30", "memory": "10G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "40G"}],
        "",
        id="[28][tier1] multi init containers with good allocation, multi-containers with good allocation - fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "30", "memory": "10G"}, {"cpu": "30", "memory": "10G"}, {"cpu": "30", "memory": "10G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "40G"}, {"cpu": "2", "memory": "6G"}],
        "",
        id="[29][tier1] multi init containers when sum of their cpus requests (together) is over allocatable, multi-containers with good allocation - fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "3", "memory": "50G"}, {"cpu": "3", "memory": "50G"}, {"cpu": "3", "memory": "50G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "20", "memory": "40G"}, {"cpu": "2", "memory": "6G"}],
        "",
        id="[29][tier1] multi init containers when sum of their memory requests (together) is over allocatable, multi-containers with good allocation - fit",  # noqa: E501
    ),
    pytest.param(
        [{"cpu": "40", "memory": "50G"}, {"cpu": "3", "memory": "50G"}, {"cpu": "3", "memory": "50G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "2", "memory": "6G"}],
        "cannot align init container",
        id="[32][tier1] multi init containers with over cpu allocation - not fit",
    ),
    pytest.param(
        [{"cpu": "20", "memory": "50G"}, {"cpu": "40", "memory": "50G"}, {"cpu": "3", "memory": "50G"}],
        [{"cpu": "20", "memory": "40G"}, {"cpu": "2", "memory": "6G"}],
        "cannot align init container",
        id="[32][tier1] multi init containers with over memory allocation - not fit",
    ),
]


def _containers(requests: list[dict[str, str]], prefix: str) -> tuple[Container, ...]:
    return tuple(Container(name=f"{prefix}-{i + 1}", requests=r, limits=r) for i, r in enumerate(requests))


@pytest.mark.parametrize(("init", "containers", "error"), ENTRIES)
def test_multi_container_container_scope(
    init: list[dict[str, str]], containers: list[dict[str, str]], error: str
) -> None:
    pod: Any = (
        make_pod("testpod")
        .obj()
        .evolve(init_containers=_containers(init, "init"), containers=_containers(containers, "cnt"))
    )
    h = PluginHarness("NodeResourceTopologyMatch", nodes=[NODE], objects=[HOST0])
    assert h.filter(pod)["host0"] == (Status.unschedulable(error) if error else Status.OK)
