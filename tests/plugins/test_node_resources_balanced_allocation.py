"""NodeResourcesBalancedAllocation: args, PreScore skip and the balance score.

Cases are ported from kube-scheduler's noderesources/balanced_allocation_test.go and
apis/config/validation/validation_pluginargs_test.go (DRA-backed extended resources are not
modelled, so those cases are not ported).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import CycleState, Node, NodeInfo, PluginArgsError, Pod, Status
from schedframe.api.objects import Container
from schedframe.framework.args import decode_args, encode_args, validate_args
from schedframe.plugins import _resource_scoring as rs
from schedframe.plugins.node_resources_balanced_allocation import (
    ARGS_TYPE,
    NAME,
    NodeResourcesBalancedAllocation,
    NodeResourcesBalancedAllocationArgs,
    ResourceSpec,
    balance_change_score,
    new,
)
from schedframe.testing import PluginHarness, make_pod

GPU = "nvidia.com/gpu"
DEFAULT = (ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1))
WITH_GPU = (*DEFAULT, ResourceSpec(name=GPU, weight=1))


def make_node(name: str, milli_cpu: int, memory: int, scalar: Mapping[str, int] | None = None) -> Node:
    """Upstream ``makeNode(name, milliCPU, memory, extendedResource)``."""
    return Node(name=name, capacity={"cpu": f"{milli_cpu}m", "memory": memory, **(scalar or {})})


def spec_pod(name: str, *requests: Mapping[str, Any], node: str = "") -> Pod:
    """A pod with one container per request map (upstream ``v1.PodSpec`` literals)."""
    return Pod(
        name=name,
        node_name=node,
        containers=tuple(Container(name=f"c{i}", requests=r) for i, r in enumerate(requests)),
    )


def cpu_only(name: str, node: str = "") -> Pod:
    return spec_pod(name, {"cpu": "1000m", "memory": "0"}, {"cpu": "2000m", "memory": "0"}, node=node)


def cpu_and_memory(name: str, node: str = "") -> Pod:
    return spec_pod(name, {"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000"}, node=node)


def cpu_memory_gpu(name: str, node: str = "") -> Pod:
    return spec_pod(
        name, {"cpu": "1000m", "memory": "2000"}, {"cpu": "2000m", "memory": "3000", GPU: "3"}, node=node
    )


EXISTING = [cpu_only("e1", "node1"), cpu_and_memory("e2", "node2")]

BALANCED = [
    pytest.param(
        cpu_and_memory("pod"),
        [make_node("node1", 4000, 10000), make_node("node2", 6000, 10000)],
        [],
        DEFAULT,
        {"node1": 68, "node2": 75},  # balance with/without the pod: 87/100, 100/100
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        cpu_and_memory("pod"),
        [make_node("node1", 10000, 20000), make_node("node2", 10000, 20000)],
        EXISTING,
        DEFAULT,
        {"node1": 73, "node2": 74},  # 82/85, 95/97
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        cpu_and_memory("pod"),
        [make_node("node1", 10000, 20000), make_node("node2", 10000, 50000)],
        EXISTING,
        DEFAULT,
        {"node1": 73, "node2": 70},  # 82/85, 80/90
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        cpu_only("pod"),
        [make_node("node1", 6000, 10000), make_node("node2", 6000, 10000)],
        EXISTING,
        DEFAULT,
        {"node1": 62, "node2": 62},  # 50/75, 75/100
        id="requested resources at node capacity",
    ),
    pytest.param(
        make_pod("pod").req(memory="0", **{GPU: "1"}).obj(),
        [make_node("node1", 3500, 40000, {GPU: 8}), make_node("node2", 3500, 40000, {GPU: 8})],
        [cpu_and_memory("e1", "node2"), cpu_memory_gpu("e2", "node1")],
        WITH_GPU,
        {"node1": 75, "node2": 76},  # 70/69, 65/62
        id="include scalar resource on a node",
    ),
    pytest.param(
        cpu_and_memory("pod"),
        [make_node("node1", 3500, 40000, {GPU: 8}), make_node("node2", 3500, 40000)],
        [],
        WITH_GPU,
        {"node1": 56, "node2": 56},  # 63/100 (the gpu, not requested, is skipped)
        id="node without the scalar resource should skip the scalar resource",
    ),
    pytest.param(
        cpu_only("pod"),
        [make_node("node1", 0, 0), make_node("node2", 4000, 0)],
        EXISTING,
        DEFAULT,
        {"node1": 75, "node2": 75},  # 100/100: no change
        id="fewer than two fractions: std is 0",
    ),
    pytest.param(
        cpu_only("pod"),
        [make_node("node1", 4000, 10000), make_node("node2", 4000, 10000)],
        EXISTING,
        DEFAULT,
        {"node1": 69, "node2": 69},  # 50/62, 75/87
        id="fractions above 1 are capped",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "resources", "want"), BALANCED)
def test_balanced_allocation(
    pod: Pod, nodes: list[Node], pods: list[Pod], resources: tuple[ResourceSpec, ...], want: dict[str, int]
) -> None:
    """The score is 50 + (50 + balance with the pod - balance without it) / 2 (kubernetes#135573),
    each balance (1 - std of the requested/allocatable fractions) * 100, truncated."""
    h = PluginHarness(NAME, NodeResourcesBalancedAllocationArgs(resources=resources), nodes, pods)
    assert h.pre_score(pod) == Status.OK
    assert h.score(pod) == want
    # without PreScore, Score computes the pod's requests itself
    plugin = h.plugin
    assert isinstance(plugin, NodeResourcesBalancedAllocation)
    got = {ni.name: plugin.score(CycleState(), pod, ni) for ni in h.snapshot.node_infos().list()}
    assert got == {name: (score, None) for name, score in want.items()}


@pytest.mark.parametrize(
    "pod",
    [
        pytest.param(make_pod("pod").obj(), id="no containers"),
        pytest.param(make_pod("pod").container().obj(), id="container without requests"),
        pytest.param(make_pod("pod").req(cpu="0", memory="0").obj(), id="zero requests"),
        pytest.param(
            make_pod("pod").req(**{GPU: "1"}).obj(), id="requests only resources that are not scored"
        ),
    ],
)
def test_best_effort_pods_are_skipped(pod: Pod) -> None:
    """PreScore skips pods requesting none of the resources; Score alone gives them 0."""
    nodes = [make_node("node1", 4000, 10000), make_node("node2", 4000, 10000)]
    h = PluginHarness(NAME, None, nodes, EXISTING)
    assert h.pre_score(pod) == Status.skip()
    assert h.score(pod) == {"node1": 0, "node2": 0}
    plugin = NodeResourcesBalancedAllocation()
    assert plugin.score(CycleState(), pod, NodeInfo(nodes[0])) == (0, None)


def test_actual_requests_not_non_zero_defaults() -> None:
    """Balance uses what pods really request: containers without requests add nothing."""
    node = make_node("n", 4000, 4000)
    h = PluginHarness(NAME, None, [node], [make_pod("e", None).node("n").container().obj()])
    # pod: cpu 1000m of 4000m, memory 0 -> std 0.125 -> balance 87, 100 without the pod -> 68
    # (non-zero defaults would change it)
    assert h.score(make_pod("p").req(cpu="1").obj()) == {"n": 68}


@pytest.mark.parametrize(
    ("with_pod", "without_pod", "want"),
    [
        pytest.param(80, 80, 75, id="no change in balance"),
        pytest.param(100, 100, 75, id="balanced stays balanced"),
        pytest.param(50, 100, 50, id="perfectly balanced to perfectly unbalanced"),
        pytest.param(100, 50, 100, id="perfectly unbalanced to perfectly balanced"),
        pytest.param(87, 100, 68, id="odd difference truncates"),
    ],
)
def test_balance_change_score(with_pod: int, without_pod: int, want: int) -> None:
    """The change score keeps upstream's range [50, 100], 75 meaning no change."""
    assert balance_change_score(with_pod, without_pod) == want


# -------------------------------------------------------------------------------------------
# Args


def test_default_args() -> None:
    """The no-arg args equal upstream's v1 defaults."""
    args = NodeResourcesBalancedAllocationArgs()
    assert ARGS_TYPE is NodeResourcesBalancedAllocationArgs
    assert args.resources == DEFAULT
    assert encode_args(args) == {"resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}]}
    assert args.errors() == []


@pytest.mark.parametrize(
    ("data", "want"),
    [
        pytest.param({}, DEFAULT, id="empty"),
        pytest.param({"resources": None}, DEFAULT, id="null resources"),
        pytest.param({"resources": []}, DEFAULT, id="empty resources"),
        pytest.param(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "NodeResourcesBalancedAllocationArgs",
                "resources": [{"name": "cpu"}, {"name": "memory", "weight": 0}, {"name": GPU, "weight": 1}],
            },
            WITH_GPU,
            id="missing and zero weights default to 1",
        ),
    ],
)
def test_from_dict(data: dict[str, Any], want: tuple[ResourceSpec, ...]) -> None:
    """Decoding applies upstream's v1 defaults and round-trips through to_dict."""
    args = decode_args(NodeResourcesBalancedAllocationArgs, data)
    assert args.resources == want
    assert decode_args(NodeResourcesBalancedAllocationArgs, encode_args(args)) == args


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param({"resource": []}, r'resource: unknown field', id="unknown field"),
        pytest.param(
            {"resources": [{"name": "cpu", "weigth": 1}]},
            r"resources\[0\]\.weigth: unknown field",
            id="unknown nested field",
        ),
        pytest.param(
            {"resources": {"name": "cpu"}}, r"resources: must be a list, got mapping", id="not a list"
        ),
        pytest.param(
            {"resources": ["cpu"]}, r"resources\[0\]: must be a mapping, got string", id="not a mapping"
        ),
        pytest.param(
            {"resources": [{"name": 1}]}, r"resources\[0\]\.name: must be a string, got integer",
            id="bad name",
        ),
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 1.5}]},
            r"resources\[0\]\.weight: must be an integer",
            id="bad weight",
        ),
        pytest.param(
            {"kind": "NodeResourcesFitArgs"},
            r'kind: must be NodeResourcesBalancedAllocationArgs',
            id="wrong kind",
        ),
        pytest.param(
            {"resources": [{"name": "cpu", "weight": 2}]},
            r"resources\[0\]\.weight: Invalid value: 2: must be 1",
            id="weight must be 1",
        ),
    ],
)
def test_from_dict_errors(data: dict[str, Any], match: str) -> None:
    """Bad pluginConfig args raise PluginArgsError naming the field path."""
    with pytest.raises(PluginArgsError, match=match):
        decode_args(NodeResourcesBalancedAllocationArgs, data)


def test_from_dict_not_a_mapping() -> None:
    """Args that are not a mapping are rejected."""
    with pytest.raises(PluginArgsError, match="must be a mapping, got string"):
        decode_args(NodeResourcesBalancedAllocationArgs, "cpu")  # type: ignore[arg-type]


def test_from_dict_accepts_integral_floats() -> None:
    """YAML/JSON numbers like 1.0 are integers."""
    args = decode_args(NodeResourcesBalancedAllocationArgs, {"resources": [{"name": "cpu", "weight": 1.0}]})
    assert args.resources == (ResourceSpec(name="cpu", weight=1),)


@pytest.mark.parametrize(
    ("resources", "want"),
    [
        pytest.param(DEFAULT, [], id="valid config"),
        pytest.param(
            (ResourceSpec(name="cpu", weight=2), ResourceSpec(name="memory", weight=1)),
            ["resources[0].weight: Invalid value: 2: must be 1"],
            id="invalid config",
        ),
        pytest.param(
            (ResourceSpec(name="cpu", weight=1), ResourceSpec(name="cpu", weight=1)),
            ['resources[1].name: Duplicate value: "cpu"'],
            id="repeated resources",
        ),
        pytest.param(
            (ResourceSpec(name="cpu", weight=0), ResourceSpec(name="cpu", weight=3)),
            [
                "resources[0].weight: Invalid value: 0: must be 1",
                'resources[1].name: Duplicate value: "cpu"',
                "resources[1].weight: Invalid value: 3: must be 1",
            ],
            id="all errors reported",
        ),
    ],
)
def test_validate(resources: tuple[ResourceSpec, ...], want: list[str]) -> None:
    """Resources must be unique with weight 1 (upstream ValidateNodeResourcesBalancedAllocationArgs)."""
    args = NodeResourcesBalancedAllocationArgs(resources=resources)
    assert args.errors() == want
    if want:
        with pytest.raises(PluginArgsError, match=r"resources\["):
            validate_args(args)
        with pytest.raises(PluginArgsError, match=r"resources\["):
            new(args, None)  # type: ignore[arg-type]
    else:
        validate_args(args)


def test_factory() -> None:
    """new() takes None, a mapping or the args object, and rejects anything else."""
    plugin = new(None, None)  # type: ignore[arg-type]
    assert plugin.name == NAME == "NodeResourcesBalancedAllocation"
    assert plugin.args == NodeResourcesBalancedAllocationArgs()
    assert plugin.score_extensions() is None
    assert new({"resources": [{"name": GPU}]}, None).args.resources == (  # type: ignore[arg-type]
        ResourceSpec(name=GPU, weight=1),
    )
    with pytest.raises(
        PluginArgsError, match="want args of type NodeResourcesBalancedAllocationArgs, got int"
    ):
        new(3, None)  # type: ignore[arg-type]


def test_no_resources_skips_every_pod() -> None:
    """With no resources configured, every pod counts as best effort."""
    plugin = NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs(resources=()))
    pod = make_pod("p").req(cpu="1").obj()
    assert plugin.pre_score(CycleState(), pod, []) == Status.skip()
    assert plugin.score(CycleState(), pod, NodeInfo(make_node("n", 1000, 1000))) == (0, None)


# -------------------------------------------------------------------------------------------
# Invariants

amount = st.integers(min_value=0, max_value=20)


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Node, list[Pod], Pod]:
    node = make_node("n", draw(amount), draw(amount), {GPU: draw(amount), "ephemeral-storage": draw(amount)})

    def pod(name: str, node_name: str = "") -> Pod:
        reqs: dict[str, Any] = {}
        for key in ("cpu", "memory", GPU, "ephemeral-storage"):
            if draw(st.booleans()):
                reqs[key] = f"{draw(amount)}m" if key == "cpu" else draw(amount)
        return Pod(name=name, node_name=node_name, containers=(Container(requests=reqs),))

    return node, [pod(f"e{i}", "n") for i in range(draw(st.integers(0, 3)))], pod("p")


_RESOURCE_SETS = [
    DEFAULT,
    WITH_GPU,
    (*WITH_GPU, ResourceSpec(name="ephemeral-storage", weight=1)),
    (ResourceSpec(name="memory", weight=1), ResourceSpec(name="cpu", weight=1)),
]


@settings(max_examples=200, deadline=None)
@given(clusters(), st.sampled_from(_RESOURCE_SETS))
def test_scores_in_range_and_fast_path_identical(
    cluster: tuple[Node, list[Pod], Pod], resources: tuple[ResourceSpec, ...]
) -> None:
    """Scores stay in [50, 100] (or 0 for best effort); the cpu/memory fast path equals the
    generic computation of the balance with and without the pod."""
    node, pods, pod = cluster
    info = NodeInfo(node, pods)
    plugin = NodeResourcesBalancedAllocation(NodeResourcesBalancedAllocationArgs(resources=resources))
    state = CycleState()
    status = plugin.pre_score(state, pod, [info])
    score, err = plugin.score(state, pod, info)
    assert err is None
    generic = rs.ResourceAllocationScorer(resources, rs.balanced_resource_score, use_requested=True)
    reqs = generic.pod_requests(pod)
    if status is not None:
        assert status == Status.skip()
        assert not any(reqs)
    else:
        assert 50 <= score <= 100
        requested, allocatable = generic.allocatable_requested(info, reqs)
        without = [r - p if a else 0 for r, p, a in zip(requested, reqs, allocatable)]
        with_pod = rs.balanced_resource_score(requested, allocatable)
        without_pod = rs.balanced_resource_score(without, allocatable)
        assert score == 50 + (50 + with_pod - without_pod) // 2
