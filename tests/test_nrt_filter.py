"""NodeResourceTopologyMatch Filter: the table of scheduler-plugins v0.34.7
``pkg/noderesourcetopology/filter_test.go`` (TestNodeResourceTopology), plus the NRT caches."""

from __future__ import annotations

from typing import Any

import pytest

from schedframe import Status
from schedframe.api import NodeResourceTopology
from schedframe.api.objects import Container
from schedframe.plugins.sigs.node_resource_topology_match import (
    ERR_CANNOT_ALIGN_CONTAINER,
    ERR_CANNOT_ALIGN_POD,
    ERR_INVALID_TOPOLOGY,
)
from schedframe.testing import PluginHarness, make_node, make_pod

NIC = "vendor/nic1"
EXT = "namespace/extended"
HP = "hugepages-2Mi"
NIC_NO_NUMA = "vendor.com/old-nic-model"
CONTAINER = "SingleNUMANodeContainerLevel"
POD = "SingleNUMANodePodLevel"


def res(name: str, capacity: str, available: str) -> dict[str, str]:
    return {"name": name, "capacity": capacity, "allocatable": capacity, "available": available}


def nrt(
    name: str, policy: str, *zones: list[dict[str, str]], zone_names: tuple[str, ...] = ("node-0", "node-1")
) -> NodeResourceTopology:
    return NodeResourceTopology.from_manifest(
        {
            "apiVersion": "topology.node.k8s.io/v1alpha2",
            "kind": "NodeResourceTopology",
            "metadata": {"name": name},
            "topologyPolicies": [policy],
            "zones": [{"name": zn, "type": "Node", "resources": z} for zn, z in zip(zone_names, zones)],
        }
    )


TOPOLOGIES = [
    (
        nrt(
            "node1",
            CONTAINER,
            [res("cpu", "20", "4"), res("memory", "8Gi", "8Gi"), res(NIC, "30", "10")],
            [res("cpu", "30", "8"), res("memory", "8Gi", "8Gi"), res(NIC, "30", "10")],
        ),
        {},
    ),
    (
        nrt(
            "node2",
            CONTAINER,
            [
                res("cpu", "20", "2"),
                res("memory", "8Gi", "4Gi"),
                res(HP, "128Mi", "128Mi"),
                res(NIC, "30", "5"),
            ],
            [
                res("cpu", "30", "4"),
                res("memory", "8Gi", "4Gi"),
                res(HP, "128Mi", "128Mi"),
                res(NIC, "30", "2"),
            ],
        ),
        {NIC_NO_NUMA: "4"},
    ),
    (
        nrt(
            "node3",
            POD,
            [res("cpu", "20", "2"), res("memory", "8Gi", "4Gi"), res(NIC, "30", "5")],
            [res("cpu", "30", "4"), res("memory", "8Gi", "4Gi"), res(NIC, "30", "2")],
        ),
        {},
    ),
    (
        nrt(
            "badly-formed-node",
            POD,
            [res("cpu", "20", "2"), res("memory", "8Gi", "4Gi"), res(NIC, "30", "5")],
            [res("cpu", "30", "4"), res("memory", "8Gi", "4Gi"), res(NIC, "30", "2")],
            zone_names=("node-0", "node-75"),
        ),
        {},
    ),
    (
        nrt(
            "extended",
            CONTAINER,
            [res("cpu", "20", "4"), res("memory", "8Gi", "8Gi"), res(NIC, "30", "10")],
            [res("cpu", "30", "8"), res("memory", "8Gi", "8Gi"), res(NIC, "30", "10")],
        ),
        {EXT: "1"},
    ),
]


def node_for(topology: NodeResourceTopology, extra: dict[str, str]) -> Any:
    """The node's allocatable is the sum of its zones' available amounts (upstream's test nodes)."""
    from fractions import Fraction

    from schedframe.api import Quantity

    total: dict[str, Fraction] = {}
    for zone in topology.zones:
        for r in zone.resources:
            total[r.name] = total.get(r.name, Fraction(0)) + r.available.exact
    alloc = {k: str(Quantity(v)) for k, v in total.items()} | extra
    return make_node(topology.name).capacity(pods="110", **alloc).obj()


NODES = [node_for(t, extra) for t, extra in TOPOLOGIES]
OBJECTS = [t for t, _ in TOPOLOGIES]


def pod(requests: dict[str, str], limits: dict[str, str] | None = None) -> Any:
    return (
        make_pod("p").obj().evolve(containers=(Container(name="c", requests=requests, limits=limits or {}),))
    )


def g(**requests: str) -> Any:  # requests == limits
    return pod(_names(requests), _names(requests))


def _names(values: dict[str, str]) -> dict[str, str]:
    aliases = {"nic": NIC, "ext": EXT, "hp": HP}
    return {aliases.get(k, k): v for k, v in values.items()}


def rl(requests: dict[str, str], limits: dict[str, str]) -> Any:
    return pod(_names(requests), _names(limits))


def req(**requests: str) -> Any:
    return pod(_names(requests))


def many(count: int, **requests: str) -> Any:  # *count* containers, requests == limits
    r = _names(requests)
    return (
        make_pod("p")
        .obj()
        .evolve(containers=tuple(Container(name=f"c{i}", requests=r, limits=r) for i in range(count)))
    )


NO_NIC = "vendor/nic-not-existing"
ALIGN_C = Status.unschedulable(ERR_CANNOT_ALIGN_CONTAINER)
ALIGN_P = Status.unschedulable(ERR_CANNOT_ALIGN_POD)
OK = Status.OK

CASES = [
    ("Guaranteed QoS, pod with extended resource fit", g(cpu="2", memory="2Gi", ext="1", nic="3"), 4, OK),
    (
        "Guaranteed QoS, pod with extended resource no devices; pod fit",
        g(cpu="2", memory="2Gi", ext="1"),
        4,
        OK,
    ),
    ("Best effort QoS, pod fit", make_pod("p").obj(), 0, OK),
    ("Best effort QoS requesting devices, pod scope; pod fit", g(nic="5"), 2, OK),
    ("Best effort QoS requesting devices, pod scope; pod doesn't fit", g(nic="20"), 2, ALIGN_P),
    ("Best effort QoS requesting devices, container scope; pod fit", g(nic="5"), 1, OK),
    ("Best effort QoS requesting devices, container scope; pod doesn't fit", g(nic="20"), 0, ALIGN_C),
    (
        "Best effort QoS requesting devices and extended resources, container scope",
        g(ext="1", nic="10"),
        4,
        OK,
    ),
    (
        "Burstable, CPU, memory (enough) and devices (not enough), container scope; doesn't fit",
        rl({"cpu": "3", "memory": "3Gi", "nic": "11"}, {"cpu": "4", "memory": "4Gi", "nic": "11"}),
        1,
        ALIGN_C,
    ),
    (
        "Burstable, CPU, memory (enough) and devices (not enough), pod scope; doesn't fit",
        rl({"cpu": "1", "memory": "1Gi", "nic": "6"}, {"cpu": "2", "memory": "2Gi", "nic": "6"}),
        2,
        ALIGN_P,
    ),
    (
        "Burstable, CPU, memory (enough) and devices, pod scope; fit",
        rl({"cpu": "1", "memory": "1Gi", "nic": "5"}, {"cpu": "2", "memory": "2Gi", "nic": "5"}),
        2,
        OK,
    ),
    (
        "Burstable, CPU, memory (not enough) and devices, pod scope; fit",
        rl({"cpu": "19", "memory": "5Gi", "nic": "5"}, {"cpu": "20", "memory": "6Gi", "nic": "5"}),
        2,
        OK,
    ),
    (
        "Burstable, CPU, memory (not enough) and devices, container scope; fit",
        rl({"cpu": "5", "memory": "5Gi", "nic": "5"}, {"cpu": "6", "memory": "6Gi", "nic": "5"}),
        1,
        OK,
    ),
    ("Guaranteed QoS, minimal, pod fit", g(cpu="2", memory="2Gi"), 0, OK),
    ("Guaranteed QoS, minimal, saturating zone, pod fit", g(cpu="8", memory="8Gi"), 0, OK),
    (
        "Guaranteed QoS, zero quantity of unavailable resource, pod fit",
        g(cpu="2", memory="2Gi", hp="0", nic="3"),
        0,
        OK,
    ),
    ("Guaranteed QoS, pod fit", g(cpu="2", memory="2Gi", nic="3"), 1, OK),
    ("Guaranteed QoS, hugepages, pod fit", g(cpu="2", memory="2Gi", hp="64Mi", nic="3"), 1, OK),
    ("Burstable QoS, pod fit", g(cpu="4", nic="3"), 1, OK),
    ("Burstable QoS, CPU and devices (not enough), container scope", g(cpu="4", nic="11"), 1, ALIGN_C),
    ("Burstable QoS, CPU and devices (not enough), pod scope", g(cpu="2", nic="6"), 2, ALIGN_P),
    ("Burstable QoS, CPU (enough) and devices, pod scope; fit", g(cpu="2", nic="5"), 2, OK),
    ("Burstable QoS, CPU (not enough) and devices, pod scope; fit", g(cpu="20", nic="5"), 2, OK),
    ("Burstable QoS, CPU (enough) and devices, container scope; fit", g(cpu="2", nic="5"), 1, OK),
    ("Burstable QoS, CPU (not enough) and devices, container scope; fit", g(cpu="4", nic="5"), 1, OK),
    (
        "Burstable QoS, memory (enough) and devices (not enough), container scope",
        g(memory="2Gi", nic="11"),
        1,
        ALIGN_C,
    ),
    (
        "Burstable QoS, memory (enough) and devices (not enough), pod scope",
        g(memory="2Gi", nic="6"),
        2,
        ALIGN_P,
    ),
    ("Burstable QoS, memory (enough) and devices, pod scope; fit", g(memory="2Gi", nic="5"), 2, OK),
    ("Burstable QoS, memory (not enough) and devices, pod scope; fit", g(memory="5Gi", nic="5"), 2, OK),
    ("Burstable QoS, memory (enough) and devices, container scope; fit", g(memory="4Gi", nic="5"), 1, OK),
    ("Burstable QoS, memory (not enough) and devices, container scope; fit", g(memory="5Gi", nic="5"), 1, OK),
    (
        "Burstable QoS, requests only, devices not enough, container scope",
        req(cpu="4", memory="4Gi", nic="11"),
        1,
        ALIGN_C,
    ),
    (
        "Burstable QoS, requests only, devices not enough, pod scope",
        req(cpu="2", memory="2Gi", nic="6"),
        2,
        ALIGN_P,
    ),
    ("Burstable QoS, requests only, pod scope; fit", req(cpu="2", memory="2Gi", nic="5"), 2, OK),
    (
        "Burstable QoS, requests only, CPU and memory not enough, pod scope; fit",
        req(cpu="20", memory="5Gi", nic="5"),
        2,
        OK,
    ),
    ("Burstable QoS, requests only, container scope; fit", req(cpu="4", memory="4Gi", nic="5"), 1, OK),
    (
        "Burstable QoS, requests only, CPU and memory not enough, container scope; fit",
        req(cpu="5", memory="5Gi", nic="5"),
        1,
        OK,
    ),
    ("Burstable QoS with extended resources, pod fit", g(ext="1", cpu="4", nic="3"), 4, OK),
    ("Guaranteed QoS, hugepages, pod doesn't fit", g(cpu="2", memory="2Gi", hp="256Mi", nic="3"), 1, ALIGN_C),
    ("Guaranteed QoS, pod doesn't fit", g(cpu="9", memory="1Gi", nic="3"), 0, ALIGN_C),
    (
        "Guaranteed QoS, zero request of a missing device, pod fit",
        g(cpu="2", memory="1Gi", **{NO_NIC: "0"}),
        0,
        OK,
    ),
    (
        "Guaranteed QoS Topology Scope, pod doesn't fit",
        many(3, cpu="3", memory="1Gi", **{NO_NIC: "0"}),
        2,
        ALIGN_P,
    ),
    ("Guaranteed QoS Topology Scope, minimal, pod fit", g(cpu="1", memory="1Gi"), 2, OK),
    ("Guaranteed QoS TopologyScope, minimal, saturating zone, pod fit", g(cpu="2", memory="4Gi"), 3, OK),
    ("Guaranteed QoS Topology Scope, pod fit", many(3, cpu="1", memory="1Gi", **{NO_NIC: "0"}), 2, OK),
    (
        "Guaranteed QoS Topology Scope, invalid node",
        many(3, cpu="1", memory="1Gi", **{NO_NIC: "0"}),
        3,
        ALIGN_P,
    ),
    (
        "Guaranteed QoS, hugepages, non-NUMA affine NIC, pod fit",
        g(cpu="2", memory="2Gi", hp="64Mi", **{NIC_NO_NUMA: "3"}),
        1,
        OK,
    ),
    (
        "Guaranteed QoS, ephemeral-storage (non-NUMA), pod fit",
        g(cpu="2", memory="2Gi", **{"ephemeral-storage": "100Mi"}),
        1,
        OK,
    ),
]


@pytest.mark.parametrize(("pod", "node", "want"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_filter_table(pod: Any, node: int, want: Status) -> None:
    h = PluginHarness("NodeResourceTopologyMatch", nodes=NODES, objects=OBJECTS)
    assert h.filter(pod)[NODES[node].name] == want


def test_guaranteed_cpu_does_not_fit_a_single_zone() -> None:
    """Guaranteed CPUs are exclusive: 9 CPUs fit neither zone of node1 (4 and 8 available)."""
    h = PluginHarness("NodeResourceTopologyMatch", nodes=NODES, objects=OBJECTS)
    assert h.filter(g(cpu="9", memory="1Gi"))["node1"] == ALIGN_C
    assert h.filter(g(cpu="9", memory="1Gi"))["node3"] == ALIGN_P


def test_containers_take_their_zone_share() -> None:
    """Container scope: the second container no longer fits once the first took zone node-1's CPUs."""
    two = (
        make_pod("p")
        .obj()
        .evolve(
            containers=tuple(
                Container(
                    name=f"c{i}", requests={"cpu": "6", "memory": "1Gi"}, limits={"cpu": "6", "memory": "1Gi"}
                )
                for i in range(2)
            )
        )
    )
    h = PluginHarness("NodeResourceTopologyMatch", nodes=NODES, objects=OBJECTS)
    assert h.filter(two)["node1"] == ALIGN_C


MULTI = nrt(
    "host0",
    POD,
    [res("cpu", "32", "30"), res("memory", "64Gi", "60Gi"), res(HP, "384Mi", "384Mi"), res(NIC, "16", "16")],
    [res("cpu", "32", "32"), res("memory", "64Gi", "64Gi"), res(HP, "512Mi", "512Mi"), res(NIC, "32", "32")],
)


def multi(*containers: dict[str, str]) -> Any:
    return (
        make_pod("testpod")
        .obj()
        .evolve(
            containers=tuple(
                Container(name=f"c{i}", requests=_names(r), limits=_names(r))
                for i, r in enumerate(containers)
            )
        )
    )


@pytest.mark.parametrize(
    ("pod", "want"),
    [
        pytest.param(
            multi(
                {"cpu": "2", "memory": "2Gi"},
                {"cpu": "4", "memory": "8Gi"},
                {"cpu": "26", "memory": "32Gi", "hp": "512Mi", "nic": "26"},
            ),
            OK,
            id="gu pod fits only on a numa node",
        ),
        pytest.param(
            multi(
                {"cpu": "2", "memory": "2Gi"},
                {"cpu": "8", "memory": "8Gi"},
                {"cpu": "26", "memory": "26Gi", "hp": "52Mi", "nic": "26"},
            ),
            ALIGN_P,
            id="gu pod does not fit - not enough CPUs available on any NUMA node",
        ),
        pytest.param(
            multi(
                {"cpu": "2", "memory": "4Gi"},
                {"cpu": "4", "memory": "16Gi"},
                {"cpu": "26", "memory": "52Gi", "hp": "52Mi", "nic": "26"},
            ),
            ALIGN_P,
            id="gu pod does not fit - not enough memory available on any NUMA node",
        ),
        pytest.param(
            multi(
                {"cpu": "2", "memory": "2Gi"},
                {"cpu": "4", "memory": "8Gi"},
                {"cpu": "26", "memory": "32Gi", "hp": "3328Mi", "nic": "26"},
            ),
            ALIGN_P,
            id="gu pod does not fit - not enough Hugepages available on any NUMA node",
        ),
    ],
)
def test_multi_container_pod_scope(pod: Any, want: Status) -> None:
    """TestNodeResourceTopologyMultiContainerPodScope (first cases)."""
    h = PluginHarness("NodeResourceTopologyMatch", nodes=[node_for(MULTI, {})], objects=[MULTI])
    assert h.filter(pod)["host0"] == want


def test_init_container_reason() -> None:
    p = g(cpu="1", memory="1Gi").evolve(
        init_containers=(
            Container(name="i", requests={"cpu": "9", "memory": "1Gi"}, limits={"cpu": "9", "memory": "1Gi"}),
        )
    )
    h = PluginHarness("NodeResourceTopologyMatch", nodes=NODES, objects=OBJECTS)
    assert h.filter(p)["node1"] == Status.unschedulable("cannot align init container")


def test_no_nrt_and_other_policies_pass() -> None:
    """A node without an NRT object passes; restricted / best-effort nodes are not filtered (upstream
    filters only single-numa-node)."""
    restricted = nrt("node1", "RestrictedContainerLevel", [res("cpu", "2", "1")], [res("cpu", "2", "1")])
    h = PluginHarness("NodeResourceTopologyMatch", nodes=NODES[:1], objects=[restricted])
    assert h.filter(g(cpu="9", memory="1Gi"))["node1"] == OK
    h = PluginHarness("NodeResourceTopologyMatch", nodes=NODES[:1])
    assert h.filter(g(cpu="9", memory="1Gi"))["node1"] == OK


def test_attributes_override_deprecated_policies() -> None:
    """The topologyManagerPolicy / topologyManagerScope attributes win over topologyPolicies."""
    t = NodeResourceTopology.from_manifest(
        {
            "apiVersion": "topology.node.k8s.io/v1alpha2",
            "kind": "NodeResourceTopology",
            "metadata": {"name": "node1"},
            "topologyPolicies": ["BestEffortContainerLevel"],
            "attributes": [
                {"name": "topologyManagerPolicy", "value": "single-numa-node"},
                {"name": "topologyManagerScope", "value": "pod"},
            ],
            "zones": [
                {
                    "name": "node-0",
                    "type": "Node",
                    "resources": [res("cpu", "4", "4"), res("memory", "8Gi", "8Gi")],
                },
                {
                    "name": "node-1",
                    "type": "Node",
                    "resources": [res("cpu", "4", "4"), res("memory", "8Gi", "8Gi")],
                },
            ],
        }
    )
    h = PluginHarness("NodeResourceTopologyMatch", nodes=NODES[:1], objects=[t])
    assert h.filter(g(cpu="5", memory="1Gi"))["node1"] == ALIGN_P
    assert h.filter(g(cpu="4", memory="1Gi"))["node1"] == OK


def test_discard_reserved_nodes() -> None:
    """discardReservedNodes: a node with a reserved, unbound pod has no usable data."""
    h = PluginHarness(
        "NodeResourceTopologyMatch", {"discardReservedNodes": True}, nodes=NODES[:1], objects=OBJECTS[:1]
    )
    plugin: Any = h.plugin
    p = g(cpu="1", memory="1Gi")
    plugin.reserve(h.state, p, "node1")
    assert h.filter(p)["node1"] == Status.unschedulable(ERR_INVALID_TOPOLOGY)
    plugin.post_bind(h.state, p, "node1")
    assert h.filter(p)["node1"] == OK


def test_overreserve_cache() -> None:
    """cacheResyncPeriodSeconds > 0: reserved pods are taken from every zone until the NRT changes."""
    h = PluginHarness(
        "NodeResourceTopologyMatch", {"cacheResyncPeriodSeconds": 5}, nodes=NODES[:1], objects=OBJECTS[:1]
    )
    plugin: Any = h.plugin
    first = g(cpu="4", memory="1Gi").evolve(name="first")
    assert h.filter(first)["node1"] == OK
    plugin.reserve(h.state, first, "node1")
    # zone node-0 had 4 CPUs, node-1 8: both lose 4 (the cache cannot know which zone was used)
    assert h.filter(g(cpu="5", memory="1Gi"))["node1"] == ALIGN_C
    assert h.filter(g(cpu="4", memory="1Gi"))["node1"] == OK
    # a new NRT object (the node agent's update) replaces the assumed pods
    h.objects.add(
        nrt(
            "node1",
            CONTAINER,
            [res("cpu", "20", "4"), res("memory", "8Gi", "8Gi")],
            [res("cpu", "30", "6"), res("memory", "8Gi", "8Gi")],
        )
    )
    assert h.filter(g(cpu="6", memory="1Gi"))["node1"] == OK
    assert plugin.cache.assumed == {}
    plugin.reserve(h.state, first, "node1")
    plugin.unreserve(h.state, first, "node1")
    assert h.filter(g(cpu="6", memory="1Gi"))["node1"] == OK


@pytest.mark.parametrize(("args", "placed"), [({}, 2), ({"cacheResyncPeriodSeconds": 5}, 1)])
def test_overreserve_in_a_scheduler(args: dict[str, Any], placed: int) -> None:
    """In a scheduling loop: with the static NRT object, passthrough places two 3-CPU pods (one per
    zone); the over-reserve cache takes the first pod's CPUs from both zones, so the second pod
    cannot be aligned until the node agent publishes a new object."""
    from schedframe import Scheduler, SchedulerConfiguration

    config = SchedulerConfiguration.from_dict(
        {
            "apiVersion": "kubescheduler.config.k8s.io/v1",
            "kind": "KubeSchedulerConfiguration",
            "profiles": [
                {
                    "plugins": {"multiPoint": {"enabled": [{"name": "NodeResourceTopologyMatch"}]}},
                    "pluginConfig": [{"name": "NodeResourceTopologyMatch", "args": args}],
                }
            ],
        }
    )
    s = Scheduler(config)
    s.add_node(make_node("n").capacity(cpu="8", memory="16Gi", pods="110").obj())
    s.add_object(
        nrt(
            "n",
            CONTAINER,
            [res("cpu", "4", "4"), res("memory", "8Gi", "8Gi")],
            [res("cpu", "4", "4"), res("memory", "8Gi", "8Gi")],
        )
    )
    for i in range(2):
        s.add_pod(
            make_pod(f"p{i}").container(cpu="3", memory="1Gi", limits={"cpu": "3", "memory": "1Gi"}).obj()
        )
    s.run_until_idle()
    assert sum(s.node_of(f"default/p{i}") == "n" for i in range(2)) == placed
    if placed == 1:
        assert ERR_CANNOT_ALIGN_CONTAINER in s.pending()[0].message
