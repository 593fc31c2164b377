"""NodeResourcesFit: args, Filter, Score strategies and queueing hints.

Cases are ported from kube-scheduler's noderesources tests (fit_test.go, least_allocated_test.go,
most_allocated_test.go, requested_to_capacity_ratio_test.go, resource_allocation_test.go) and
apis/config/validation/validation_pluginargs_test.go. Cases that need DRA (extended resources
backed by DeviceClasses) or disabled GA feature gates are not ported.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import (
    ActionType,
    ClusterEvent,
    Code,
    CycleState,
    EventResource,
    Node,
    NodeInfo,
    PluginArgsError,
    Pod,
    QueueingHint,
    Status,
)
from schedframe.api.objects import Container
from schedframe.framework.args import decode_args, encode_args, validate_args
from schedframe.plugins import _resource_scoring as rs
from schedframe.plugins.node_resources_fit import (
    _PRE_FILTER_KEY,
    ARGS_TYPE,
    ERR_REASON_INSUFFICIENT_CPU,
    ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE,
    ERR_REASON_INSUFFICIENT_MEMORY,
    ERR_REASON_TOO_MANY_PODS,
    LEAST_ALLOCATED,
    MOST_ALLOCATED,
    NAME,
    REQUESTED_TO_CAPACITY_RATIO,
    InsufficientResource,
    NodeResourcesFit,
    NodeResourcesFitArgs,
    RequestedToCapacityRatioParam,
    ResourceSpec,
    ScoringStrategy,
    UtilizationShapePoint,
    _have_any_requested_resources_increased,
    _is_fit,
    fits,
    insufficient_reason,
    new,
)
from schedframe.testing import PluginHarness, make_node, make_pod

EXT_A = "example.com/aaa"
EXT_B = "example.com/bbb"
K8S_A = "kubernetes.io/something"
K8S_B = "subdomain.kubernetes.io/something"
HUGE_A = "hugepages-2Mi"
EXT_DRA = "extended.resource.dra.io/something"
EXT_RES = "abc.com/xyz"

DEFAULT_RESOURCES = (ResourceSpec(name="cpu", weight=1), ResourceSpec(name="memory", weight=1))
EXTENDED_RESOURCE_SET = (*DEFAULT_RESOURCES, ResourceSpec(name=EXT_RES, weight=1))

# -------------------------------------------------------------------------------------------
# builders mirroring upstream's test helpers


def usage(
    cpu: int = 0, mem: int = 0, eph: int = 0, pods: int = 0, scalars: Mapping[str, int] | None = None
) -> dict[str, Any]:
    """Container requests as upstream ``newResourcePod`` writes them: cpu (milli), memory, pods
    and ephemeral-storage always present (even zero), plus scalar resources."""
    out: dict[str, Any] = {"cpu": f"{cpu}m", "memory": mem, "pods": pods, "ephemeral-storage": eph}
    out.update(scalars or {})
    return out


def res_pod(
    *usages: Mapping[str, Any],
    init: Sequence[Mapping[str, Any]] = (),
    overhead: Mapping[str, Any] | None = None,
    pod_requests: Mapping[str, Any] | None = None,
    name: str = "pod",
    node: str = "",
) -> Pod:
    """Upstream ``newResourcePod`` / ``newResourceInitPod`` / ``newResourceOverheadPod`` /
    ``newPodLevelResourcesPod``."""
    return Pod(
        name=name,
        node_name=node,
        containers=tuple(Container(name=f"c{i}", requests=u) for i, u in enumerate(usages)),
        init_containers=tuple(Container(name=f"i{i}", requests=u) for i, u in enumerate(init)),
        overhead=overhead or {},
        resources=pod_requests or {},
    )


def existing(*usages: Mapping[str, Any]) -> Pod:
    """The one pod upstream puts in ``framework.NewNodeInfo(newResourcePod(...))``."""
    return res_pod(*usages, name="existing", node="n")


def resource_list(cpu: int, mem: int, pods: int, ext_a: int, eph: int, huge_a: int) -> dict[str, Any]:
    """Upstream ``makeResources`` / ``makeAllocatableResources``."""
    return {
        "cpu": f"{cpu}m",
        "memory": mem,
        "pods": pods,
        EXT_A: ext_a,
        "ephemeral-storage": eph,
        HUGE_A: huge_a,
    }


def st_node(name: str, **res: Any) -> Node:
    """Upstream ``st.MakeNode().Name(name).Capacity(res)``: pods default to 32."""
    return make_node(name).capacity(pods=32, **res).obj()


def st_pod(
    name: str, *reqs: Mapping[str, Any], node: str = "", sidecar: Mapping[str, Any] | None = None
) -> Pod:
    """Upstream ``st.MakePod().Req(r1).Req(r2)...``: one container per request map."""
    b = make_pod(name).node(node) if node else make_pod(name)
    for r in reqs:
        b = b.req(**r)
    if sidecar is not None:
        b = b.init_req(sidecar=True, **sidecar)
    return b.obj()


def fit_args(
    strategy: str = LEAST_ALLOCATED,
    resources: Sequence[ResourceSpec] = DEFAULT_RESOURCES,
    shape: Sequence[tuple[int, int]] | None = None,
) -> NodeResourcesFitArgs:
    rtcr = None
    if shape is not None:
        rtcr = RequestedToCapacityRatioParam(
            shape=tuple(UtilizationShapePoint(utilization=u, score=s) for u, s in shape)
        )
    return NodeResourcesFitArgs(
        scoring_strategy=ScoringStrategy(
            type=strategy, resources=tuple(resources), requested_to_capacity_ratio=rtcr
        )
    )


def unsched(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE, reasons)


def unresolvable(*reasons: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, reasons)


def ir(
    name: str, requested: int, used: int, capacity: int, unresolvable: bool = False
) -> InsufficientResource:
    return InsufficientResource(name, insufficient_reason(name), requested, used, capacity, unresolvable)


# -------------------------------------------------------------------------------------------
# Filter: enough requests


ENOUGH_REQUESTS = [
    pytest.param(
        res_pod(),
        existing(usage(cpu=10, mem=20)),
        None,
        Status.OK,
        [],
        id="no resources requested always fits",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1)),
        existing(usage(cpu=10, mem=20)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_CPU, ERR_REASON_INSUFFICIENT_MEMORY),
        [ir("cpu", 1, 10, 10), ir("memory", 1, 20, 20)],
        id="too many resources fails",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), init=[usage(cpu=3, mem=1)]),
        existing(usage(cpu=8, mem=19)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_CPU),
        [ir("cpu", 3, 8, 10)],
        id="init container cpu too large",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), init=[usage(cpu=3, mem=1), usage(cpu=2, mem=1)]),
        existing(usage(cpu=8, mem=19)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_CPU),
        [ir("cpu", 3, 8, 10)],
        id="highest init container cpu too large",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), init=[usage(cpu=1, mem=3)]),
        existing(usage(cpu=9, mem=19)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_MEMORY),
        [ir("memory", 3, 19, 20)],
        id="init container memory too large",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), init=[usage(cpu=1, mem=3), usage(cpu=1, mem=2)]),
        existing(usage(cpu=9, mem=19)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_MEMORY),
        [ir("memory", 3, 19, 20)],
        id="highest init container memory too large",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), init=[usage(cpu=1, mem=1)]),
        existing(usage(cpu=9, mem=19)),
        None,
        Status.OK,
        [],
        id="init container fits: max, not sum",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), init=[usage(cpu=1, mem=1), usage(cpu=1, mem=1)]),
        existing(usage(cpu=9, mem=19)),
        None,
        Status.OK,
        [],
        id="multiple init containers fit: max, not sum",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1)),
        existing(usage(cpu=5, mem=5)),
        None,
        Status.OK,
        [],
        id="both resources fit",
    ),
    pytest.param(
        res_pod(usage(cpu=2, mem=1)),
        existing(usage(cpu=9, mem=5)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_CPU),
        [ir("cpu", 2, 9, 10)],
        id="only memory fits",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=2)),
        existing(usage(cpu=5, mem=19)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_MEMORY),
        [ir("memory", 2, 19, 20)],
        id="only cpu fits",
    ),
    pytest.param(
        res_pod(usage(cpu=5, mem=1)),
        existing(usage(cpu=5, mem=19)),
        None,
        Status.OK,
        [],
        id="equal edge case",
    ),
    pytest.param(
        res_pod(usage(cpu=4, mem=1), init=[usage(cpu=5, mem=1)]),
        existing(usage(cpu=5, mem=19)),
        None,
        Status.OK,
        [],
        id="equal edge case for init container",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_A: 1})),
        existing(usage()),
        None,
        Status.OK,
        [],
        id="extended resource fits",
    ),
    pytest.param(
        res_pod(usage(), init=[usage(scalars={EXT_A: 1})]),
        existing(usage()),
        None,
        Status.OK,
        [],
        id="extended resource fits for init container",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_A: 10})),
        existing(usage(scalars={EXT_A: 0})),
        None,
        unresolvable(insufficient_reason(EXT_A)),
        [ir(EXT_A, 10, 0, 5, True)],
        id="extended resource capacity enforced",
    ),
    pytest.param(
        res_pod(usage(), init=[usage(cpu=1, mem=1, scalars={EXT_A: 10})]),
        existing(usage(scalars={EXT_A: 0})),
        None,
        unresolvable(insufficient_reason(EXT_A)),
        [ir(EXT_A, 10, 0, 5, True)],
        id="extended resource capacity enforced for init container",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_A: 1})),
        existing(usage(scalars={EXT_A: 5})),
        None,
        unsched(insufficient_reason(EXT_A)),
        [ir(EXT_A, 1, 5, 5)],
        id="extended resource allocatable enforced",
    ),
    pytest.param(
        res_pod(usage(), init=[usage(cpu=1, mem=1, scalars={EXT_A: 1})]),
        existing(usage(scalars={EXT_A: 5})),
        None,
        unsched(insufficient_reason(EXT_A)),
        [ir(EXT_A, 1, 5, 5)],
        id="extended resource allocatable enforced for init container",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_A: 3}), usage(cpu=1, mem=1, scalars={EXT_A: 3})),
        existing(usage(scalars={EXT_A: 2})),
        None,
        unresolvable(insufficient_reason(EXT_A)),
        [ir(EXT_A, 6, 2, 5, True)],
        id="extended resource allocatable enforced for multiple containers",
    ),
    pytest.param(
        res_pod(
            usage(), init=[usage(cpu=1, mem=1, scalars={EXT_A: 3}), usage(cpu=1, mem=1, scalars={EXT_A: 3})]
        ),
        existing(usage(scalars={EXT_A: 2})),
        None,
        Status.OK,
        [],
        id="extended resource allocatable admits multiple init containers",
    ),
    pytest.param(
        res_pod(
            usage(), init=[usage(cpu=1, mem=1, scalars={EXT_A: 6}), usage(cpu=1, mem=1, scalars={EXT_A: 3})]
        ),
        existing(usage(scalars={EXT_A: 2})),
        None,
        unresolvable(insufficient_reason(EXT_A)),
        [ir(EXT_A, 6, 2, 5, True)],
        id="extended resource allocatable enforced for multiple init containers",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_B: 1})),
        existing(usage()),
        None,
        unresolvable(insufficient_reason(EXT_B)),
        [ir(EXT_B, 1, 0, 0, True)],
        id="extended resource allocatable enforced for unknown resource",
    ),
    pytest.param(
        res_pod(usage(), init=[usage(cpu=1, mem=1, scalars={EXT_B: 1})]),
        existing(usage()),
        None,
        unresolvable(insufficient_reason(EXT_B)),
        [ir(EXT_B, 1, 0, 0, True)],
        id="extended resource allocatable enforced for unknown resource for init container",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={K8S_A: 10})),
        existing(usage()),
        None,
        unresolvable(insufficient_reason(K8S_A)),
        [ir(K8S_A, 10, 0, 0, True)],
        id="kubernetes.io resource capacity enforced",
    ),
    pytest.param(
        res_pod(usage(), init=[usage(cpu=1, mem=1, scalars={K8S_B: 10})]),
        existing(usage()),
        None,
        unresolvable(insufficient_reason(K8S_B)),
        [ir(K8S_B, 10, 0, 0, True)],
        id="kubernetes.io resource capacity enforced for init container",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={HUGE_A: 10})),
        existing(usage(scalars={HUGE_A: 0})),
        None,
        unresolvable(insufficient_reason(HUGE_A)),
        [ir(HUGE_A, 10, 0, 5, True)],
        id="hugepages resource capacity enforced",
    ),
    pytest.param(
        res_pod(usage(), init=[usage(cpu=1, mem=1, scalars={HUGE_A: 10})]),
        existing(usage(scalars={HUGE_A: 0})),
        None,
        unresolvable(insufficient_reason(HUGE_A)),
        [ir(HUGE_A, 10, 0, 5, True)],
        id="hugepages resource capacity enforced for init container",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={HUGE_A: 3}), usage(cpu=1, mem=1, scalars={HUGE_A: 3})),
        existing(usage(scalars={HUGE_A: 2})),
        None,
        unresolvable(insufficient_reason(HUGE_A)),
        [ir(HUGE_A, 6, 2, 5, True)],
        id="hugepages resource allocatable enforced for multiple containers",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_B: 1})),
        existing(usage()),
        {"ignoredResources": ["example.com/bbb"]},
        Status.OK,
        [],
        id="skip checking ignored extended resource",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), overhead={"cpu": "3m", "memory": "13"}),
        existing(usage(cpu=5, mem=5)),
        None,
        Status.OK,
        [],
        id="resources + pod overhead fits",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), overhead={"cpu": "1m", "memory": "15"}),
        existing(usage(cpu=5, mem=5)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_MEMORY),
        [ir("memory", 16, 5, 20)],
        id="requests + overhead does not fit for memory",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_B: 1, K8S_A: 1})),
        existing(usage()),
        {"ignoredResourceGroups": ["example.com"]},
        unresolvable(insufficient_reason(K8S_A)),
        [ir(K8S_A, 1, 0, 0, True)],
        id="skip checking ignored extended resource via resource groups",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_A: 0})),
        existing(usage(scalars={EXT_A: 6})),
        None,
        Status.OK,
        [],
        id="skip checking extended resource request with quantity zero",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_A: 1})),
        existing(usage(cpu=20, mem=30, scalars={EXT_A: 1})),
        None,
        Status.OK,
        [],
        id="skip checking resource request with quantity zero",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), pod_requests={"cpu": "1m", "memory": "2"}),
        existing(usage(cpu=5, mem=5)),
        None,
        Status.OK,
        [],
        id="both pod-level and container-level resources fit",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), pod_requests={"cpu": "7m", "memory": "2"}),
        existing(usage(cpu=5, mem=5)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_CPU),
        [ir("cpu", 7, 5, 10)],
        id="pod-level cpu resource not fit",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), pod_requests={"cpu": "3m", "memory": "2"}),
        existing(usage(cpu=5, mem=19)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_MEMORY),
        [ir("memory", 2, 19, 20)],
        id="pod-level memory resource not fit",
    ),
    pytest.param(
        res_pod(pod_requests={"cpu": "3m", "memory": "2", HUGE_A: 5}),
        None,
        None,
        Status.OK,
        [],
        id="pod-level hugepages resource fit",
    ),
    pytest.param(
        res_pod(
            usage(cpu=1, mem=1, scalars={HUGE_A: 3}), pod_requests={"cpu": "3m", "memory": "2", HUGE_A: 5}
        ),
        None,
        None,
        Status.OK,
        [],
        id="both pod-level and container-level hugepages resource fit",
    ),
    pytest.param(
        res_pod(pod_requests={"cpu": "3m", "memory": "2", HUGE_A: 10}),
        None,
        None,
        unresolvable(insufficient_reason(HUGE_A)),
        [ir(HUGE_A, 10, 0, 5, True)],
        id="pod-level hugepages resource not fit",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1), init=[usage(cpu=1, mem=1)], pod_requests={"cpu": "3m", "memory": "2"}),
        existing(usage(cpu=5, mem=19)),
        None,
        unsched(ERR_REASON_INSUFFICIENT_MEMORY),
        [ir("memory", 2, 19, 20)],
        id="pod-level cpu fits, memory does not, with init containers",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1, scalars={EXT_DRA: 1})),
        existing(usage()),
        None,
        unresolvable(insufficient_reason(EXT_DRA)),
        [ir(EXT_DRA, 1, 0, 0, True)],
        id="extended resource without a device plugin (DRA not modelled)",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_A: 1})),
        existing(usage()),
        None,
        Status.OK,
        [],
        id="extended resource backed by device plugin",
    ),
]


@pytest.mark.parametrize(("pod", "existing_pod", "args", "want_status", "want_insufficient"), ENOUGH_REQUESTS)
def test_filter_enough_requests(
    pod: Pod,
    existing_pod: Pod | None,
    args: Any,
    want_status: Status,
    want_insufficient: list[InsufficientResource],
) -> None:
    """Filter reports every lacking resource, UNSCHEDULABLE_AND_UNRESOLVABLE beyond allocatable."""
    node = Node(name="n", capacity=resource_list(10, 20, 32, 5, 20, 5))
    h = PluginHarness(NAME, args, [node], [existing_pod] if existing_pod else [])
    assert h.filter(pod) == {"n": want_status}
    a = decode_args(NodeResourcesFitArgs, args or {})
    info = h.snapshot.node_infos().get("n")
    assert info is not None
    assert (
        fits(
            pod,
            info,
            ignored_resources=a.ignored_resources,
            ignored_resource_groups=a.ignored_resource_groups,
        )
        == want_insufficient
    )


def test_filter_without_pre_filter_is_an_error() -> None:
    """Filter without PreFilter state returns ERROR (upstream TestPreFilterDisabled)."""
    plugin = NodeResourcesFit()
    status = plugin.filter(CycleState(), Pod(name="p"), NodeInfo(Node(name="n")))
    assert status is not None
    assert status.code is Code.ERROR
    assert "PreFilterNodeResourcesFit" in status.message


NOT_ENOUGH_REQUESTS = [
    pytest.param(
        res_pod(),
        existing(usage(cpu=10, mem=20)),
        id="without requests, fails when there's no space for an additional pod",
    ),
    pytest.param(
        res_pod(usage(cpu=1, mem=1)),
        existing(usage(cpu=5, mem=5)),
        id="resources fit, fails when there's no space for an additional pod",
    ),
    pytest.param(
        res_pod(usage(cpu=5, mem=1)),
        existing(usage(cpu=5, mem=19)),
        id="equal edge case, fails when there's no space for an additional pod",
    ),
    pytest.param(
        res_pod(usage(cpu=5, mem=1), init=[usage(cpu=5, mem=1)]),
        existing(usage(cpu=5, mem=19)),
        id="equal edge case with init container, no space for an additional pod",
    ),
]


@pytest.mark.parametrize(("pod", "existing_pod"), NOT_ENOUGH_REQUESTS)
def test_filter_too_many_pods(pod: Pod, existing_pod: Pod) -> None:
    """A node whose pod count is at allocatable pods rejects with "Too many pods"."""
    node = Node(name="n", allocatable=resource_list(10, 20, 1, 0, 0, 0))
    h = PluginHarness(NAME, None, [node], [existing_pod])
    assert h.filter(pod) == {"n": unsched(ERR_REASON_TOO_MANY_PODS)}


STORAGE_REQUESTS = [
    pytest.param(
        res_pod(usage(cpu=1, mem=1)),
        existing(usage(cpu=2, mem=10)),
        Status.OK,
        id="empty storage requested, and pod fits",
    ),
    pytest.param(
        res_pod(usage(eph=25)),
        existing(usage(cpu=2, mem=2)),
        unresolvable(ERR_REASON_INSUFFICIENT_EPHEMERAL_STORAGE),
        id="ephemeral local storage request exceeds allocatable",
    ),
    pytest.param(
        res_pod(usage(eph=5)),
        existing(usage(cpu=2, mem=2, eph=10)),
        Status.OK,
        id="ephemeral local storage is sufficient",
    ),
    pytest.param(res_pod(usage(eph=10)), existing(usage(cpu=2, mem=2)), Status.OK, id="pod fits"),
]


@pytest.mark.parametrize(("pod", "existing_pod", "want"), STORAGE_REQUESTS)
def test_filter_storage_requests(pod: Pod, existing_pod: Pod, want: Status) -> None:
    """Ephemeral storage requests are checked like cpu and memory."""
    node = Node(name="n", capacity=resource_list(10, 20, 32, 5, 20, 5))
    h = PluginHarness(NAME, None, [node], [existing_pod])
    assert h.filter(pod) == {"n": want}


def _sidecar_pod(request: Mapping[str, Any] | None, sidecar: Mapping[str, Any] | None) -> Pod:
    return Pod(
        name="pod",
        containers=(Container(name="regular", requests=request or {}),),
        init_containers=(
            Container(name="restartable-init", requests=sidecar or {}, restart_policy="Always"),
        ),
    )


RESTARTABLE_INIT = [
    pytest.param(
        Pod(name="pod", containers=(Container(name="regular"),)),
        Status.OK,
        id="pod without restartable init containers",
    ),
    pytest.param(_sidecar_pod(None, None), Status.OK, id="pod with restartable init containers"),
    pytest.param(
        _sidecar_pod({"cpu": "1m"}, {"cpu": "1m"}),
        Status.OK,
        id="total requests do not exceed the node's allocatable",
    ),
    pytest.param(
        _sidecar_pod({"cpu": "1m"}, {"cpu": "2m"}),
        unresolvable(ERR_REASON_INSUFFICIENT_CPU),
        id="total requests exceed the node's allocatable",
    ),
]


@pytest.mark.parametrize(("pod", "want"), RESTARTABLE_INIT)
def test_filter_restartable_init_containers(pod: Pod, want: Status) -> None:
    """Sidecar (restartable init) containers count for the pod's whole life."""
    node = Node(name="n", allocatable=resource_list(2, 0, 1, 0, 0, 0))
    h = PluginHarness(NAME, None, [node])
    assert h.pre_filter(pod) == (None, Status.OK)
    assert h.filter(pod) == {"n": want}


# -------------------------------------------------------------------------------------------
# Score


def _two_nodes(cpu2: str = "6000") -> list[Node]:
    return [st_node("node1", cpu="4000", memory="10000"), st_node("node2", cpu=cpu2, memory="10000")]


_EXISTING_FIT_SCORE = [
    st_pod("e1", {"cpu": "2000", "memory": "4000"}, node="node1"),
    st_pod("e2", {"cpu": "1000", "memory": "2000"}, node="node2"),
]
_SIDECAR_EXISTING = [
    st_pod("e1", {"cpu": "1000", "memory": "2000"}, node="node1", sidecar={"cpu": "1000", "memory": "2000"}),
    st_pod("e2", {"cpu": "1000", "memory": "2000"}, node="node2"),
]
_POD_3000_5000 = st_pod("pod", {"cpu": "3000", "memory": "5000"})
_POD_1000_2000 = st_pod("pod", {"cpu": "1000", "memory": "2000"})

FIT_SCORE = [
    pytest.param(
        _POD_3000_5000,
        _two_nodes(),
        _EXISTING_FIT_SCORE,
        fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 10), (100, 0)]),
        {"node1": 10, "node2": 32},
        id="RequestedToCapacityRatio case1",
    ),
    pytest.param(
        _POD_3000_5000,
        _two_nodes(),
        _EXISTING_FIT_SCORE,
        fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 0), (100, 10)]),
        {"node1": 95, "node2": 68},
        id="RequestedToCapacityRatio case2",
    ),
    pytest.param(
        _POD_1000_2000,
        _two_nodes(),
        _EXISTING_FIT_SCORE,
        fit_args(MOST_ALLOCATED),
        {"node1": 67, "node2": 36},
        id="MostAllocated",
    ),
    pytest.param(
        _POD_1000_2000,
        _two_nodes(),
        _EXISTING_FIT_SCORE,
        fit_args(LEAST_ALLOCATED),
        {"node1": 32, "node2": 63},
        id="LeastAllocated",
    ),
    pytest.param(
        _POD_1000_2000,
        _two_nodes("4000"),
        _SIDECAR_EXISTING,
        fit_args(MOST_ALLOCATED),
        {"node1": 67, "node2": 45},
        id="MostAllocated with sidecar container",
    ),
    pytest.param(
        _POD_1000_2000,
        _two_nodes("4000"),
        _SIDECAR_EXISTING,
        fit_args(LEAST_ALLOCATED),
        {"node1": 32, "node2": 55},
        id="LeastAllocated with sidecar container",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "args", "want"), FIT_SCORE)
def test_fit_score(
    pod: Pod, nodes: list[Node], pods: list[Pod], args: NodeResourcesFitArgs, want: dict[str, int]
) -> None:
    """Each scoring strategy ranks nodes as upstream (TestFitScore)."""
    h = PluginHarness(NAME, args, nodes, pods)
    assert h.score(pod) == want
    # without PreScore, Score computes the pod's requests itself
    plugin = h.plugin
    assert isinstance(plugin, NodeResourcesFit)
    state = CycleState()
    got = {ni.name: plugin.score(state, pod, ni) for ni in h.snapshot.node_infos().list()}
    assert got == {name: (score, None) for name, score in want.items()}


def _cpu_mem_nodes(*specs: tuple[str, str, str]) -> list[Node]:
    return [st_node(name, cpu=cpu, memory=mem) for name, cpu, mem in specs]


_TWO_CONTAINERS = st_pod("pod", {"cpu": "1000", "memory": "2000"}, {"cpu": "2000", "memory": "3000"})
_CPU_ONLY_PODS = [
    st_pod("e1", {"cpu": "3000", "memory": "0"}, node="node1"),
    st_pod("e2", {"cpu": "3000", "memory": "0"}, node="node1"),
    st_pod("e3", {"cpu": "3000", "memory": "0"}, node="node2"),
    st_pod("e4", {"cpu": "3000", "memory": "5000"}, node="node2"),
]
_TWO_PODS = [
    st_pod("e1", {"cpu": "3000", "memory": "0"}, node="node1"),
    st_pod("e2", {"cpu": "3000", "memory": "5000"}, node="node2"),
]
_EMPTY_PODS = [
    st_pod("e1", node="node1"),
    st_pod("e2", node="node1"),
    st_pod("e3", node="node2"),
    st_pod("e4", node="node2"),
]
_EXT_NODES = [
    st_node("node1", cpu="6000", memory="10000"),
    st_node("node2", cpu="6000", memory="10000", **{EXT_RES: "4"}),
]
_EXT_NODES_BOTH = [
    st_node("node1", cpu="6000", memory="10000", **{EXT_RES: "4"}),
    st_node("node2", cpu="6000", memory="10000", **{EXT_RES: "10"}),
]
_WEIGHTED = (ResourceSpec(name="memory", weight=2), ResourceSpec(name="cpu", weight=1))
_EXT_FIRST = (
    ResourceSpec(name=EXT_RES, weight=2),
    ResourceSpec(name="cpu", weight=1),
    ResourceSpec(name="memory", weight=1),
)

LEAST_ALLOCATED_CASES = [
    pytest.param(
        st_pod("pod"),
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "4000", "10000")),
        [],
        DEFAULT_RESOURCES,
        {"node1": 100, "node2": 100},
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "6000", "10000")),
        [],
        DEFAULT_RESOURCES,
        {"node1": 37, "node2": 50},
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        st_pod("pod"),
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "4000", "10000")),
        _EMPTY_PODS,
        DEFAULT_RESOURCES,
        {"node1": 100, "node2": 100},
        id="no resources requested, pods scheduled",
    ),
    pytest.param(
        st_pod("pod"),
        _cpu_mem_nodes(("node1", "10000", "20000"), ("node2", "10000", "20000")),
        _CPU_ONLY_PODS,
        DEFAULT_RESOURCES,
        {"node1": 70, "node2": 57},
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "10000", "20000"), ("node2", "10000", "20000")),
        _TWO_PODS,
        DEFAULT_RESOURCES,
        {"node1": 57, "node2": 45},
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "10000", "20000"), ("node2", "10000", "50000")),
        _TWO_PODS,
        DEFAULT_RESOURCES,
        {"node1": 57, "node2": 60},
        id="resources requested, pods scheduled with resources, differently sized nodes",
    ),
    pytest.param(
        st_pod("pod", {"cpu": "3000", "memory": "0"}),
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "4000", "10000")),
        _TWO_PODS,
        DEFAULT_RESOURCES,
        {"node1": 50, "node2": 25},
        id="requested resources exceed node capacity",
    ),
    pytest.param(
        st_pod("pod"),
        [st_node("node1"), st_node("node2")],
        _TWO_PODS,
        DEFAULT_RESOURCES,
        {"node1": 0, "node2": 0},
        id="zero node resources, pods scheduled with resources",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "6000", "10000")),
        [],
        _WEIGHTED,
        {"node1": 41, "node2": 50},
        id="different weights on cpu and memory, differently sized nodes",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _EXT_NODES,
        [],
        EXTENDED_RESOURCE_SET,
        {"node1": 50, "node2": 50},
        id="bypass extended resource if the pod does not request",
    ),
    pytest.param(
        st_pod("pod", {"cpu": "3000", "memory": "5000", EXT_RES: "2"}),
        _EXT_NODES_BOTH,
        [],
        EXTENDED_RESOURCE_SET,
        {"node1": 50, "node2": 60},
        id="honor extended resource if the pod requests",
    ),
    pytest.param(
        st_pod("pod", {"cpu": "3000", "memory": "4000"}),
        _EXT_NODES,
        [],
        _EXT_FIRST,
        {"node1": 55, "node2": 55},
        id="the node doesn't have a resource",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "resources", "want"), LEAST_ALLOCATED_CASES)
def test_least_allocated(
    pod: Pod, nodes: list[Node], pods: list[Pod], resources: tuple[ResourceSpec, ...], want: dict[str, int]
) -> None:
    """LeastAllocated favours nodes with more unrequested resources (weighted average)."""
    assert PluginHarness(NAME, fit_args(LEAST_ALLOCATED, resources), nodes, pods).score(pod) == want


MOST_ALLOCATED_CASES = [
    pytest.param(
        st_pod("pod"),
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "4000", "10000")),
        [],
        DEFAULT_RESOURCES,
        {"node1": 0, "node2": 0},
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "6000", "10000")),
        [],
        DEFAULT_RESOURCES,
        {"node1": 62, "node2": 50},
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        st_pod("pod"),
        _cpu_mem_nodes(("node1", "10000", "20000"), ("node2", "10000", "20000")),
        _CPU_ONLY_PODS,
        DEFAULT_RESOURCES,
        {"node1": 30, "node2": 42},
        id="no resources requested, pods scheduled with resources",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "10000", "20000"), ("node2", "10000", "20000")),
        _TWO_PODS,
        DEFAULT_RESOURCES,
        {"node1": 42, "node2": 55},
        id="resources requested, pods scheduled with resources",
    ),
    pytest.param(
        st_pod("pod", {"cpu": "2000", "memory": "4000"}, {"cpu": "3000", "memory": "5000"}),
        _cpu_mem_nodes(("node1", "5000", "10000"), ("node2", "10000", "9000")),
        [],
        DEFAULT_RESOURCES,
        {"node1": 95, "node2": 75},
        id="resources requested equal node capacity",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "6000", "10000")),
        [],
        _WEIGHTED,
        {"node1": 58, "node2": 50},
        id="different weights on cpu and memory, differently sized nodes",
    ),
    pytest.param(
        make_pod("pod").container().obj(),
        [st_node("node1", cpu="250m", memory="1000Mi"), st_node("node2", cpu="250m", memory="1000Mi")],
        [make_pod("e1").node("node1").container().obj(), make_pod("e2").node("node1").container().obj()],
        DEFAULT_RESOURCES,
        {"node1": 80, "node2": 30},
        id="no resources requested, pods scheduled, nonzero request for resource",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _EXT_NODES,
        [],
        EXTENDED_RESOURCE_SET,
        {"node1": 50, "node2": 50},
        id="bypass extended resource if the pod does not request",
    ),
    pytest.param(
        st_pod("pod", {"cpu": "3000", "memory": "5000", EXT_RES: "2"}),
        _EXT_NODES_BOTH,
        [],
        EXTENDED_RESOURCE_SET,
        {"node1": 50, "node2": 40},
        id="honor extended resource if the pod requests",
    ),
    pytest.param(
        st_pod("pod", {"cpu": "3000", "memory": "4000"}),
        _EXT_NODES,
        [],
        _EXT_FIRST,
        {"node1": 45, "node2": 45},
        id="the node doesn't have a resource",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "resources", "want"), MOST_ALLOCATED_CASES)
def test_most_allocated(
    pod: Pod, nodes: list[Node], pods: list[Pod], resources: tuple[ResourceSpec, ...], want: dict[str, int]
) -> None:
    """MostAllocated favours nodes with more requested resources (weighted average)."""
    assert PluginHarness(NAME, fit_args(MOST_ALLOCATED, resources), nodes, pods).score(pod) == want


@pytest.mark.parametrize("strategy", [LEAST_ALLOCATED, MOST_ALLOCATED])
def test_score_without_resources_is_an_error(strategy: str) -> None:
    """With no resources to score, Score returns ERROR "resources not found" and 0."""
    args = fit_args(strategy, resources=())
    h = PluginHarness(NAME, args, _two_nodes())
    scores, status = h.run_score(_TWO_CONTAINERS)
    assert (scores, status.code) == ({}, Code.ERROR)
    assert "resources not found" in status.message
    plugin = NodeResourcesFit(args)
    assert plugin.score(CycleState(), _TWO_CONTAINERS, NodeInfo(_two_nodes()[0])) == (
        0,
        Status(Code.ERROR, ("resources not found",)),
    )


@pytest.mark.parametrize(
    ("strategy", "resources", "want_paths"),
    [
        pytest.param(
            LEAST_ALLOCATED,
            (ResourceSpec(name="memory", weight=-1), ResourceSpec(name="cpu", weight=1)),
            ["scoringStrategy.resources[0].weight"],
            id="least: negative weight",
        ),
        pytest.param(
            LEAST_ALLOCATED,
            (ResourceSpec(name="memory", weight=1), ResourceSpec(name="cpu", weight=0)),
            ["scoringStrategy.resources[1].weight"],
            id="least: zero weight",
        ),
        pytest.param(
            LEAST_ALLOCATED,
            (ResourceSpec(name="memory", weight=1), ResourceSpec(name="cpu", weight=101)),
            ["scoringStrategy.resources[1].weight"],
            id="least: weight larger than MaxNodeScore",
        ),
        pytest.param(
            MOST_ALLOCATED,
            (ResourceSpec(name="memory", weight=-1), ResourceSpec(name="cpu", weight=1)),
            ["scoringStrategy.resources[0].weight"],
            id="most: negative weight",
        ),
        pytest.param(
            MOST_ALLOCATED,
            (ResourceSpec(name="memory", weight=1), ResourceSpec(name="cpu", weight=0)),
            ["scoringStrategy.resources[1].weight"],
            id="most: zero weight",
        ),
        pytest.param(
            MOST_ALLOCATED,
            (ResourceSpec(name="memory", weight=101),),
            ["scoringStrategy.resources[0].weight"],
            id="most: weight larger than MaxNodeScore",
        ),
    ],
)
def test_invalid_weights_rejected_by_factory(
    strategy: str, resources: tuple[ResourceSpec, ...], want_paths: list[str]
) -> None:
    """The factory validates the args and reports the offending weight's path."""
    with pytest.raises(PluginArgsError, match=r"not in valid range \(0, 100\]") as info:
        new(fit_args(strategy, resources), None)  # type: ignore[arg-type]
    assert [e.split(": ")[0] for e in info.value.errors] == want_paths


RTCR_SHAPE = [(0, 10), (100, 0)]
RTCR_CASES = [
    pytest.param(
        st_pod("pod"),
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "4000", "10000")),
        [st_pod("e1", node="node1"), st_pod("e2", node="node1")],
        {"node1": 100, "node2": 100},
        id="nothing scheduled, nothing requested",
    ),
    pytest.param(
        _TWO_CONTAINERS,
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "6000", "10000")),
        [st_pod("e1", node="node1"), st_pod("e2", node="node1")],
        {"node1": 38, "node2": 50},
        id="nothing scheduled, resources requested, differently sized nodes",
    ),
    pytest.param(
        st_pod("pod"),
        _cpu_mem_nodes(("node1", "4000", "10000"), ("node2", "6000", "10000")),
        [
            st_pod("e1", {"cpu": "3000", "memory": "5000"}, node="node1"),
            st_pod("e2", {"cpu": "3000", "memory": "5000"}, node="node2"),
        ],
        {"node1": 38, "node2": 50},
        id="no resources requested, pods scheduled with resources",
    ),
]


@pytest.mark.parametrize(("pod", "nodes", "pods", "want"), RTCR_CASES)
def test_requested_to_capacity_ratio(
    pod: Pod, nodes: list[Node], pods: list[Pod], want: dict[str, int]
) -> None:
    """RequestedToCapacityRatio with a decreasing shape favours less-requested nodes."""
    args = fit_args(REQUESTED_TO_CAPACITY_RATIO, DEFAULT_RESOURCES, RTCR_SHAPE)
    assert PluginHarness(NAME, args, nodes, pods).score(pod) == want


@pytest.mark.parametrize(
    ("points", "assertions"),
    [
        pytest.param(
            [(10, 1), (90, 9)],
            [
                (-10, 1),
                (0, 1),
                (9, 1),
                (10, 1),
                (15, 1),
                (19, 1),
                (20, 2),
                (89, 8),
                (90, 9),
                (99, 9),
                (100, 9),
                (110, 9),
            ],
            id="increasing",
        ),
        pytest.param(
            [(0, 2), (40, 10), (100, 0)],
            [(-10, 2), (0, 2), (20, 6), (30, 8), (40, 10), (70, 5), (100, 0), (110, 0)],
            id="up and down",
        ),
        pytest.param(
            [(0, 2), (40, 2), (100, 2)],
            [(-10, 2), (0, 2), (20, 2), (30, 2), (40, 2), (70, 2), (100, 2), (110, 2)],
            id="flat",
        ),
    ],
)
def test_broken_linear_function(points: list[tuple[int, int]], assertions: list[tuple[int, int]]) -> None:
    """The broken-linear shape function interpolates with truncating integer arithmetic."""
    f = rs.broken_linear_function(points)
    assert [(p, f(p)) for p, _ in assertions] == assertions


def test_broken_linear_function_truncates_toward_zero() -> None:
    """A decreasing segment truncates toward zero like Go, not toward minus infinity."""
    f = rs.broken_linear_function([(0, 100), (100, 0)])
    assert f(33) == 67  # 100 + (-100 * 33) / 100 = 100 - 33 (Go), Python floor would give 67 too
    g = rs.broken_linear_function([(0, 10), (3, 0)])
    assert g(1) == 7  # 10 + (-10 * 1) / 3 = 10 - 3 (Go truncation); floor division would give 6


def _ext_node(name: str, ext: Mapping[str, int]) -> Node:
    """Upstream ``makeNode(name, 4000, 10000*1024*1024, ext)``."""
    return Node(name=name, capacity={"cpu": "4000m", "memory": 10000 * 1024 * 1024, **ext})


_FOO4, _FOO8 = {"intel.com/foo": 4}, {"intel.com/foo": 8}

BIN_PACKING_SINGLE = [
    pytest.param(st_pod("pod"), [], {"node1": 0, "node2": 0}, id="nothing scheduled, nothing requested"),
    pytest.param(
        st_pod("pod", {"intel.com/foo": "2"}),
        [st_pod("e1")],
        {"node1": 2, "node2": 5},
        id="resources requested, pods scheduled with less resources",
    ),
    pytest.param(
        st_pod("pod", {"intel.com/foo": "2"}),
        [st_pod("e1", {"intel.com/foo": "2"}, node="node2")],
        {"node1": 2, "node2": 10},
        id="resources requested, on node with existing pod running",
    ),
    pytest.param(
        st_pod("pod", {"intel.com/foo": "4"}),
        [st_pod("e1")],
        {"node1": 5, "node2": 10},
        id="resources requested, pods scheduled with more resources",
    ),
]


@pytest.mark.parametrize(("pod", "pods", "want"), BIN_PACKING_SINGLE)
def test_bin_packing_single_extended(pod: Pod, pods: list[Pod], want: dict[str, int]) -> None:
    """RequestedToCapacityRatio bin-packs one extended resource."""
    args = fit_args(
        REQUESTED_TO_CAPACITY_RATIO, [ResourceSpec(name="intel.com/foo", weight=1)], [(0, 0), (100, 1)]
    )
    nodes = [_ext_node("node1", _FOO8), _ext_node("node2", _FOO4)]
    assert PluginHarness(NAME, args, nodes, pods).score(pod) == want


_FOO_BAR_1 = {"intel.com/foo": 4, "intel.com/bar": 8}
_FOO_BAR_2 = {"intel.com/foo": 8, "intel.com/bar": 4}

BIN_PACKING_MULTIPLE = [
    pytest.param(st_pod("pod"), [], {"node1": 0, "node2": 0}, id="nothing scheduled, nothing requested"),
    pytest.param(
        st_pod("pod", {"intel.com/foo": "2", "intel.com/bar": "2"}),
        [st_pod("e1")],
        {"node1": 4, "node2": 3},
        id="resources requested, pods scheduled with less resources",
    ),
    pytest.param(
        st_pod("pod", {"intel.com/foo": "2", "intel.com/bar": "2"}),
        [st_pod("e1", {"intel.com/foo": "4", "intel.com/bar": "2"}, node="node2")],
        {"node1": 4, "node2": 7},
        id="resources requested, on node with existing pod running",
    ),
    pytest.param(
        st_pod("pod", {"intel.com/foo": "4", "intel.com/bar": "2"}),
        [st_pod("e1")],
        {"node1": 5, "node2": 5},
        id="resources requested, pods scheduled with more resources",
    ),
]


@pytest.mark.parametrize(("pod", "pods", "want"), BIN_PACKING_MULTIPLE)
def test_bin_packing_multiple_extended(pod: Pod, pods: list[Pod], want: dict[str, int]) -> None:
    """RequestedToCapacityRatio bin-packs several weighted extended resources (rounded average)."""
    args = fit_args(
        REQUESTED_TO_CAPACITY_RATIO,
        [ResourceSpec(name="intel.com/foo", weight=3), ResourceSpec(name="intel.com/bar", weight=5)],
        [(0, 0), (100, 1)],
    )
    nodes = [_ext_node("node1", _FOO_BAR_2), _ext_node("node2", _FOO_BAR_1)]
    assert PluginHarness(NAME, args, nodes, pods).score(pod) == want


ONE_MI = 1048576
CALCULATE_REQUESTS = [
    pytest.param(Pod(name="p", overhead={"cpu": "1", "memory": "1Mi"}), (1000, ONE_MI), id="overhead only"),
    pytest.param(
        Pod(name="p", containers=(Container(),)), (100, 200 * ONE_MI), id="1x requestless container"
    ),
    pytest.param(
        Pod(name="p", containers=(Container(name="a"), Container(name="b"))),
        (200, 400 * ONE_MI),
        id="2x requestless container",
    ),
    pytest.param(
        Pod(
            name="p",
            containers=(Container(name="a", requests={"cpu": "1", "memory": "1Mi"}), Container(name="b")),
        ),
        (1100, ONE_MI + 200 * ONE_MI),
        id="request container + requestless container",
    ),
    pytest.param(
        Pod(
            name="p",
            overhead={"cpu": "1", "memory": "1Mi"},
            containers=(Container(name="a", requests={"cpu": "1", "memory": "1Mi"}), Container(name="b")),
        ),
        (2100, 2 * ONE_MI + 200 * ONE_MI),
        id="container + requestless container + overhead",
    ),
    pytest.param(
        Pod(
            name="p",
            overhead={"cpu": "1", "memory": "1Mi"},
            init_containers=(Container(name="i", requests={"cpu": "3"}),),
            containers=(Container(name="a", requests={"cpu": "1", "memory": "1Mi"}), Container(name="b")),
        ),
        (4000, 2 * ONE_MI + 200 * ONE_MI),
        id="init container + container + requestless container + overhead",
    ),
    pytest.param(
        Pod(
            name="p",
            init_containers=(
                Container(name="i0"),
                Container(name="i1", requests={"cpu": "1m", "memory": "1"}),
            ),
            containers=(Container(name="a", requests={"cpu": "3m", "memory": "3"}),),
        ),
        (100, 200 * ONE_MI),
        id="requestless init container + small init container + small container",
    ),
    pytest.param(
        Pod(
            name="p",
            init_containers=(
                Container(name="i0"),
                Container(name="i1", requests={"cpu": "1m", "memory": "1"}),
            ),
            containers=(Container(name="a", requests={"cpu": "3m", "memory": "3"}), Container(name="b")),
        ),
        (103, 3 + 200 * ONE_MI),
        id="requestless init container + small init container + small container + requestless container",
    ),
]


@pytest.mark.parametrize(("pod", "want"), CALCULATE_REQUESTS)
def test_scoring_requests_use_non_zero_defaults(pod: Pod, want: tuple[int, int]) -> None:
    """Scoring requests default missing cpu/memory per container (100m, 200Mi), overhead added."""
    scorer = rs.ResourceAllocationScorer(
        DEFAULT_RESOURCES, rs.least_allocated_scorer([1, 1]), use_requested=False
    )
    assert scorer.pod_requests(pod) == want


def test_scoring_skips_resources_that_are_not_scalar() -> None:
    """Resources upstream never scores (pods, storage, unknown names) count for nothing."""
    resources = [ResourceSpec(name=n, weight=1) for n in ("pods", "storage", "foo", "cpu")]
    scorer = rs.ResourceAllocationScorer(resources, rs.least_allocated_scorer([1] * 4), use_requested=False)
    node = Node(name="n", capacity={"cpu": "1", "pods": 10, "storage": "10", "foo": "1"})
    reqs = scorer.pod_requests(st_pod("p", {"cpu": "500m"}))
    assert scorer.allocatable_requested(NodeInfo(node), reqs) == ([0, 0, 0, 500], [0, 0, 0, 1000])
    assert scorer.score(NodeInfo(node), reqs) == 50


# -------------------------------------------------------------------------------------------
# Events and queueing hints


@pytest.mark.parametrize(
    ("in_place", "queue_hint", "want"),
    [
        pytest.param(
            True,
            False,
            [
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN | ActionType.DELETE),
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD
                    | ActionType.UPDATE_NODE_ALLOCATABLE
                    | ActionType.UPDATE_NODE_TAINT
                    | ActionType.UPDATE_NODE_LABEL,
                ),
            ],
            id="InPlacePodVerticalScaling enabled",
        ),
        pytest.param(
            False,
            True,
            [
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
            ],
            id="SchedulingQueueHint enabled",
        ),
        pytest.param(
            False,
            False,
            [
                ClusterEvent(EventResource.POD, ActionType.DELETE),
                ClusterEvent(
                    EventResource.NODE,
                    ActionType.ADD
                    | ActionType.UPDATE_NODE_ALLOCATABLE
                    | ActionType.UPDATE_NODE_TAINT
                    | ActionType.UPDATE_NODE_LABEL,
                ),
            ],
            id="both disabled",
        ),
        pytest.param(
            True,
            True,
            [
                ClusterEvent(EventResource.POD, ActionType.UPDATE_POD_SCALE_DOWN | ActionType.DELETE),
                ClusterEvent(EventResource.NODE, ActionType.ADD | ActionType.UPDATE_NODE_ALLOCATABLE),
            ],
            id="defaults",
        ),
    ],
)
def test_events_to_register(in_place: bool, queue_hint: bool, want: list[ClusterEvent]) -> None:
    """Registered events follow the InPlacePodVerticalScaling and queueing-hint feature gates."""
    plugin = NodeResourcesFit(
        enable_in_place_pod_vertical_scaling=in_place, enable_scheduling_queue_hint=queue_hint
    )
    got = plugin.events_to_register()
    assert [(e.event.resource, e.event.action) for e in got] == [(w.resource, w.action) for w in want]
    assert all(e.hint is not None for e in got)


def _p(
    name: str,
    uid: str | None = None,
    node: str = "",
    *,
    cpu: str | None = None,
    mem: str | None = None,
    pod_level: Mapping[str, str] | None = None,
) -> Pod:
    reqs = {k: v for k, v in (("cpu", cpu), ("memory", mem)) if v is not None}
    return Pod(
        name=name,
        uid=uid or name,
        node_name=node,
        containers=(Container(requests=reqs),) if reqs else (),
        resources=pod_level or {},
    )


POD_EVENT_HINTS = [
    pytest.param(
        res_pod(usage(eph=1)),
        res_pod(usage(eph=2), name="other", node="fake"),
        res_pod(usage(eph=1), name="other", node="fake"),
        True,
        QueueingHint.QUEUE,
        id="queue on other pod ephemeral-storage scale down",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_A: 1})),
        res_pod(usage(scalars={EXT_A: 2}), name="other", node="fake"),
        res_pod(usage(scalars={EXT_A: 1}), name="other", node="fake"),
        True,
        QueueingHint.QUEUE,
        id="queue on other pod extended resource scale down",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_A: 1})),
        res_pod(usage(scalars={EXT_B: 2}), name="other", node="fake"),
        res_pod(usage(scalars={EXT_B: 1}), name="other", node="fake"),
        True,
        QueueingHint.QUEUE_SKIP,
        id="skip queue on other pod unrelated extended resource scale down",
    ),
    pytest.param(
        _p("pod1", cpu="1"),
        _p("pod2", node="fake", cpu="1"),
        None,
        True,
        QueueingHint.QUEUE,
        id="queue on other pod deleted",
    ),
    pytest.param(
        Pod(name="p"),
        Pod(name="q"),
        None,
        True,
        QueueingHint.QUEUE_SKIP,
        id="skip queue on unscheduled pod deleted",
    ),
    pytest.param(
        Pod(name="p"),
        Pod(name="q", nominated_node_name="n1"),
        None,
        True,
        QueueingHint.QUEUE,
        id="queue on nominated pod deleted",
    ),
    pytest.param(
        _p("pod1", cpu="1"),
        _p("pod2", node="fake", cpu="2"),
        _p("pod2", node="fake", cpu="1"),
        False,
        QueueingHint.QUEUE_SKIP,
        id="skip queue when in-place pod vertical scaling is disabled",
    ),
    pytest.param(
        _p("pod1", "uid0", cpu="1"),
        _p("pod2", "uid1", cpu="2"),
        _p("pod2", "uid1", cpu="1"),
        True,
        QueueingHint.QUEUE_SKIP,
        id="skip queue on other unscheduled pod",
    ),
    pytest.param(
        _p("pod1", cpu="1"),
        _p("pod2", node="fake", mem="2"),
        _p("pod2", node="fake", mem="1"),
        True,
        QueueingHint.QUEUE_SKIP,
        id="skip queue on other pod unrelated resource scaled down",
    ),
    pytest.param(
        _p("pod1", pod_level={"cpu": "1"}),
        _p("pod2", node="fake", pod_level={"memory": "2"}),
        _p("pod2", node="fake", pod_level={"memory": "1"}),
        True,
        QueueingHint.QUEUE_SKIP,
        id="skip queue on other pod unrelated pod-level resource scaled down",
    ),
    pytest.param(
        _p("pod1", cpu="1"),
        _p("pod2", node="fake", cpu="2"),
        _p("pod2", node="fake", cpu="1"),
        True,
        QueueingHint.QUEUE,
        id="queue on other pod some resource scale down",
    ),
    pytest.param(
        _p("pod1", pod_level={"cpu": "1"}),
        _p("pod2", node="fake", pod_level={"cpu": "2"}),
        _p("pod2", node="fake", pod_level={"cpu": "1"}),
        True,
        QueueingHint.QUEUE,
        id="queue on other pod some pod-level resource scale down",
    ),
    pytest.param(
        _p("pod1", cpu="1"),
        _p("pod1", cpu="2"),
        _p("pod1", cpu="1"),
        True,
        QueueingHint.QUEUE,
        id="queue on target pod some resource scale down",
    ),
    pytest.param(
        _p("pod1", pod_level={"cpu": "1"}),
        _p("pod1", pod_level={"cpu": "2"}),
        _p("pod1", pod_level={"cpu": "1"}),
        True,
        QueueingHint.QUEUE,
        id="queue on target pod some pod-level resource scale down",
    ),
    pytest.param(
        _p("pod1", cpu="1", mem="1"),
        _p("pod2", node="fake", cpu="2", mem="2"),
        _p("pod2", node="fake", cpu="2", mem="1"),
        True,
        QueueingHint.QUEUE,
        id="queue on other pod memory scale down when both are requested",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new_obj", "in_place", "want"), POD_EVENT_HINTS)
def test_hint_after_pod_event(
    pod: Pod, old: Pod, new_obj: Pod | None, in_place: bool, want: QueueingHint
) -> None:
    """A deleted scheduled pod, or a scale-down in a resource the pod requests, requeues it."""
    plugin = NodeResourcesFit(enable_in_place_pod_vertical_scaling=in_place)
    assert plugin.is_schedulable_after_pod_event(pod, old, new_obj) is want


@pytest.mark.parametrize(
    ("old", "new_obj"),
    [
        pytest.param("not-a-pod", None, id="wrong old object"),
        pytest.param(None, "not-a-pod", id="wrong new object"),
        pytest.param(None, None, id="no object"),
    ],
)
def test_hint_after_pod_event_wrong_objects(old: object, new_obj: object) -> None:
    """Objects that are not pods raise (the queue treats a failing hint as QUEUE)."""
    with pytest.raises(TypeError, match=r"expected (a )?Pod"):
        NodeResourcesFit().is_schedulable_after_pod_event(Pod(name="p"), old, new_obj)


NODE_EVENT_HINTS = [
    pytest.param(
        res_pod(usage(mem=2)),
        None,
        st_node("n", memory="1"),
        QueueingHint.QUEUE_SKIP,
        id="skip queue on node add without sufficient resources",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_A: 1})),
        None,
        st_node("n", **{EXT_B: "1"}),
        QueueingHint.QUEUE_SKIP,
        id="skip queue on node add without required resource type",
    ),
    pytest.param(
        res_pod(usage(mem=2, scalars={EXT_A: 1})),
        None,
        st_node("n", memory="4", **{EXT_A: "2"}),
        QueueingHint.QUEUE,
        id="queue on node add with sufficient resources",
    ),
    pytest.param(
        res_pod(usage(mem=2, scalars={EXT_A: 1})),
        st_node("n", memory="2", **{EXT_A: "2"}),
        st_node("n", memory="2", **{EXT_A: "1", EXT_B: "2"}),
        QueueingHint.QUEUE_SKIP,
        id="skip queue on node unrelated changes",
    ),
    pytest.param(
        res_pod(usage(mem=2, scalars={EXT_A: 1})),
        st_node("n", memory="2", **{EXT_A: "1"}),
        st_node("n", memory="2", **{EXT_A: "2"}),
        QueueingHint.QUEUE,
        id="queue on pod requested resources increase",
    ),
    pytest.param(
        res_pod(usage(mem=2, scalars={EXT_A: 1})),
        st_node("n", memory="4", **{EXT_A: "2"}),
        st_node("n", memory="1", **{EXT_A: "2"}),
        QueueingHint.QUEUE_SKIP,
        id="skip queue on node changes from suitable to unsuitable",
    ),
    pytest.param(
        res_pod(usage(mem=2, scalars={EXT_A: 1})),
        st_node("n", memory="1", **{EXT_A: "2"}),
        st_node("n", memory="4", **{EXT_A: "2"}),
        QueueingHint.QUEUE,
        id="queue on node changes from unsuitable to suitable",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_B: 1})),
        None,
        st_node("n"),
        QueueingHint.QUEUE_SKIP,
        id="ignored resources still count in the hint (upstream Fits ignores nothing)",
    ),
]


@pytest.mark.parametrize(("pod", "old", "new_obj", "want"), NODE_EVENT_HINTS)
def test_hint_after_node_change(pod: Pod, old: Node | None, new_obj: Node, want: QueueingHint) -> None:
    """A node add/update requeues the pod only when the pod would now fit there."""
    plugin = NodeResourcesFit(NodeResourcesFitArgs(ignored_resources=(EXT_B,)))
    assert plugin.is_schedulable_after_node_change(pod, old, new_obj) is want


@pytest.mark.parametrize(
    ("old", "new_obj"),
    [
        pytest.param(None, "not-a-node", id="wrong new object"),
        pytest.param("not-a-node", Node(name="n"), id="wrong old object"),
    ],
)
def test_hint_after_node_change_wrong_objects(old: object, new_obj: object) -> None:
    """Objects that are not nodes raise (the queue treats a failing hint as QUEUE)."""
    with pytest.raises(TypeError, match="expected Node"):
        NodeResourcesFit().is_schedulable_after_node_change(Pod(name="p"), old, new_obj)


IS_FIT = [
    pytest.param(Pod(name="p"), None, False, id="nil node"),
    pytest.param(st_pod("p", {"cpu": "2"}), st_node("n", cpu="1"), False, id="insufficient resource"),
    pytest.param(st_pod("p", {"cpu": "1"}), st_node("n", cpu="2"), True, id="sufficient resource"),
    pytest.param(
        make_pod("p").pod_resources(cpu="2").obj(),
        st_node("n", cpu="1"),
        False,
        id="insufficient pod-level resource",
    ),
    pytest.param(
        make_pod("p").pod_resources(cpu="2").obj(),
        st_node("n", cpu="2"),
        True,
        id="sufficient pod-level resource",
    ),
    pytest.param(
        make_pod("p").pod_resources(**{HUGE_A: "2Mi"}).obj(),
        st_node("n", **{HUGE_A: "2Mi"}),
        True,
        id="sufficient pod-level resource hugepages",
    ),
    pytest.param(
        make_pod("p").pod_resources(**{HUGE_A: "4Mi"}).obj(),
        st_node("n", **{HUGE_A: "2Mi"}),
        False,
        id="insufficient pod-level resource hugepages",
    ),
]


@pytest.mark.parametrize(("pod", "node", "want"), IS_FIT)
def test_is_fit(pod: Pod, node: Node | None, want: bool) -> None:
    """The hint's fit check builds a NodeInfo from the node alone."""
    assert _is_fit(pod, node) is want


def _cap(**res: str) -> Node:
    return make_node("n").capacity(**res).obj()


INCREASED = [
    pytest.param(
        res_pod(usage()),
        _cap(pods="1", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
        _cap(pods="1", cpu="2", memory="2", ephemeral_storage="2", **{EXT_A: "2"}),
        False,
        id="no requested resources",
    ),
    pytest.param(
        res_pod(usage()),
        _cap(pods="1", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
        _cap(pods="2", cpu="1", memory="1", ephemeral_storage="1", **{EXT_A: "1"}),
        True,
        id="no requested resources, pods increased",
    ),
    pytest.param(
        res_pod(usage(cpu=2, mem=2, eph=2, scalars={EXT_A: 2})),
        _cap(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
        _cap(cpu="1", memory="2", ephemeral_storage="1", **{EXT_A: "1"}),
        False,
        id="requested resources in node decreased",
    ),
    pytest.param(
        res_pod(usage(cpu=2, mem=2, eph=2, scalars={EXT_A: 2})),
        _cap(cpu="1", memory="2", ephemeral_storage="3"),
        _cap(cpu="1", memory="2", ephemeral_storage="1"),
        False,
        id="scalar resources not in node",
    ),
    pytest.param(
        res_pod(usage(cpu=2, mem=2, eph=2, scalars={EXT_A: 2})),
        _cap(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
        _cap(cpu="1", memory="2", ephemeral_storage="1", **{EXT_A: "1"}),
        False,
        id="requested resources decreased",
    ),
    pytest.param(
        res_pod(usage(cpu=2, mem=2, eph=2, scalars={EXT_A: 2})),
        _cap(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
        _cap(cpu="3", memory="4", ephemeral_storage="3", **{EXT_A: "4"}),
        True,
        id="requested resources increased",
    ),
    pytest.param(
        res_pod(usage(cpu=2, mem=2)),
        _cap(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
        _cap(cpu="1", memory="2", ephemeral_storage="1", **{EXT_A: "1"}),
        False,
        id="non-requested resources decreased",
    ),
    pytest.param(
        res_pod(usage(cpu=2, mem=2)),
        _cap(cpu="1", memory="2", ephemeral_storage="3", **{EXT_A: "4"}),
        _cap(cpu="1", memory="2", ephemeral_storage="5", **{EXT_A: "6"}),
        False,
        id="non-requested resources increased",
    ),
    pytest.param(
        res_pod(usage(scalars={EXT_A: 2})),
        _cap(**{EXT_A: "1"}),
        _cap(**{EXT_A: "3"}),
        True,
        id="requested scalar resource increased",
    ),
]


@pytest.mark.parametrize(("pod", "original", "modified", "want"), INCREASED)
def test_have_any_requested_resources_increased(pod: Pod, original: Node, modified: Node, want: bool) -> None:
    """Only growth in allowed pods or in a resource the pod requests counts."""
    assert _have_any_requested_resources_increased(pod, original, modified) is want


# -------------------------------------------------------------------------------------------
# Args: decoding, defaults, validation


def test_default_args() -> None:
    """The no-arg args equal upstream's v1 defaults."""
    args = NodeResourcesFitArgs()
    assert ARGS_TYPE is NodeResourcesFitArgs
    assert encode_args(args) == {
        "scoringStrategy": {
            "type": "LeastAllocated",
            "resources": [{"name": "cpu", "weight": 1}, {"name": "memory", "weight": 1}],
        }
    }
    assert decode_args(NodeResourcesFitArgs, {}) == args
    assert decode_args(NodeResourcesFitArgs, {"scoringStrategy": None}) == args
    assert args.errors() == []


@pytest.mark.parametrize(
    ("data", "want"),
    [
        pytest.param(
            {"scoringStrategy": {"type": "MostAllocated"}},
            fit_args(MOST_ALLOCATED),
            id="missing resources default to cpu and memory",
        ),
        pytest.param(
            {"scoringStrategy": {"type": "MostAllocated", "resources": []}},
            fit_args(MOST_ALLOCATED),
            id="empty resources default to cpu and memory",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "LeastAllocated",
                    "resources": [
                        {"name": "cpu"},
                        {"name": "memory", "weight": 0},
                        {"name": "nvidia.com/gpu", "weight": 3},
                    ],
                }
            },
            fit_args(
                LEAST_ALLOCATED,
                [
                    ResourceSpec(name="cpu", weight=1),
                    ResourceSpec(name="memory", weight=1),
                    ResourceSpec(name="nvidia.com/gpu", weight=3),
                ],
            ),
            id="missing and zero weights default to 1",
        ),
        pytest.param(
            {
                "apiVersion": "kubescheduler.config.k8s.io/v1",
                "kind": "NodeResourcesFitArgs",
                "ignoredResources": ["example.com/foo"],
                "ignoredResourceGroups": ["example.org"],
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {
                        "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}]
                    },
                },
            },
            NodeResourcesFitArgs(
                ignored_resources=("example.com/foo",),
                ignored_resource_groups=("example.org",),
                scoring_strategy=fit_args(
                    REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 0), (100, 10)]
                ).scoring_strategy,
            ),
            id="everything set",
        ),
    ],
)
def test_from_dict(data: dict[str, Any], want: NodeResourcesFitArgs) -> None:
    """Decoding applies upstream's v1 defaults and round-trips through to_dict."""
    got = decode_args(NodeResourcesFitArgs, data)
    assert got == want
    assert decode_args(NodeResourcesFitArgs, encode_args(got)) == got


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param(
            {"ignoredResource": []}, r'ignoredResource: unknown field', id="unknown field"
        ),
        pytest.param(
            {"scoringStrategy": {"typ": "x"}}, r"scoringStrategy\.typ: unknown field", id="unknown nested"
        ),
        pytest.param(
            {"scoringStrategy": {"type": "LeastAllocated", "resources": [{"name": "cpu", "weight": "1"}]}},
            r"scoringStrategy\.resources\[0\]\.weight: must be an integer, got string",
            id="weight not int",
        ),
        pytest.param(
            {"ignoredResources": "example.com/a"},
            r"ignoredResources: must be a list, got string",
            id="list expected",
        ),
        pytest.param(
            {"scoringStrategy": []}, r"scoringStrategy: must be a mapping, got list", id="mapping expected"
        ),
        pytest.param(
            {"scoringStrategy": {"type": 1}},
            r"scoringStrategy\.type: must be a string, got integer",
            id="string expected",
        ),
        pytest.param(
            {"kind": "NodeAffinityArgs"},
            r"kind: must be NodeResourcesFitArgs, got 'NodeAffinityArgs'",
            id="wrong kind",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shape": [{"utilization": True, "score": 1}]},
                }
            },
            r"requestedToCapacityRatio\.shape\[0\]\.utilization: must be an integer",
            id="bool is not int",
        ),
        pytest.param(
            {
                "scoringStrategy": {
                    "type": "RequestedToCapacityRatio",
                    "requestedToCapacityRatio": {"shape": [{"utilization": 1, "score": 1, "x": 1}, 5]},
                }
            },
            r"shape\[0\]\.x: unknown field",
            id="bad shape points",
        ),
        pytest.param(
            {"scoringStrategy": {"resources": [{"name": "cpu", "weight": 1}]}},
            r'scoringStrategy\.type: Unsupported value: "": supported values: "LeastAllocated", '
            r'"MostAllocated", "RequestedToCapacityRatio"',
            id="type is not defaulted",
        ),
        pytest.param(
            {"scoringStrategy": {"type": "RequestedToCapacityRatio", "requestedToCapacityRatio": [1]}},
            r"scoringStrategy\.requestedToCapacityRatio: must be a mapping, got list",
            id="shape parameter not a mapping",
        ),
        pytest.param(
            {"scoringStrategy": {"type": "RequestedToCapacityRatio"}},
            r"scoringStrategy\.requestedToCapacityRatio: Required value",
            id="shape parameter missing",
        ),
    ],
)
def test_from_dict_errors(data: dict[str, Any], match: str) -> None:
    """Bad pluginConfig args raise PluginArgsError naming the field path."""
    with pytest.raises(PluginArgsError, match=match):
        decode_args(NodeResourcesFitArgs, data)


def test_from_dict_not_a_mapping() -> None:
    """Args that are not a mapping are rejected."""
    with pytest.raises(PluginArgsError, match="must be a mapping, got list"):
        decode_args(NodeResourcesFitArgs, [])  # type: ignore[arg-type]


def test_from_dict_reports_all_errors() -> None:
    """Every problem is reported at once, decode errors before validation."""
    with pytest.raises(PluginArgsError) as info:
        decode_args(NodeResourcesFitArgs, {"a": 1, "b": 2})
    assert [e.split(';')[0] for e in info.value.errors] == ['a: unknown field', 'b: unknown field']
    with pytest.raises(PluginArgsError) as info:
        decode_args(
            NodeResourcesFitArgs,
            {
                "ignoredResourceGroups": ["a/b"],
                "scoringStrategy": {"type": "Foo", "resources": [{"name": "cpu", "weight": 101}]},
            }
        )
    assert [e.split(": ")[0] for e in info.value.errors] == [
        "ignoredResourceGroups[0]",
        "scoringStrategy.type",
        "scoringStrategy.resources[0].weight",
    ]


_STRATEGY = ScoringStrategy()

VALIDATE_FIT_ARGS = [
    pytest.param(
        NodeResourcesFitArgs(ignored_resources=("longvalue" + "a" * 64,)),
        "name part must be no more than 63 characters",
        id="ignoredResources: too long value",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resources=("example.com/",)),
        "name part must be non-empty",
        id="ignoredResources: name is empty",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resources=("example.com/aaa/bbb",)),
        "a qualified name must consist of alphanumeric characters",
        id="ignoredResources: too many slashes",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resources=("example.com",)), None, id="ignoredResources: valid"
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resource_groups=("example.com",)),
        None,
        id="ignoredResourceGroups: valid",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resource_groups=("example.com/",)),
        "name part must be non-empty",
        id="ignoredResourceGroups: illegal",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resource_groups=("a" * 64,)),
        "name part must be no more than 63 characters",
        id="ignoredResourceGroups: name too long",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resource_groups=("example.com/aa",)),
        "resource group name can't contain '/'",
        id="ignoredResourceGroups: contains slash",
    ),
    pytest.param(
        NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(type="Invalid")),
        'Unsupported value: "Invalid"',
        id="scoringStrategy: unsupported type",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resources=("Example.com/a",)),
        "prefix part a lowercase RFC 1123",
        id="ignoredResources: bad prefix",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resources=("/a",)),
        "prefix part must be non-empty",
        id="ignoredResources: empty prefix",
    ),
    pytest.param(
        NodeResourcesFitArgs(ignored_resources=("a" * 254 + "/a",)),
        "prefix part must be no more than 253 characters",
        id="ignoredResources: prefix too long",
    ),
]


@pytest.mark.parametrize(("args", "expect"), VALIDATE_FIT_ARGS)
def test_validate_fit_args(args: NodeResourcesFitArgs, expect: str | None) -> None:
    """Ignored resources and groups must be qualified names; the strategy type must be known."""
    if expect is None:
        validate_args(args)
        assert args.errors() == []
    else:
        with pytest.raises(PluginArgsError, match=expect):
            validate_args(args)


def _w(*weights: int) -> tuple[ResourceSpec, ...]:
    return tuple(ResourceSpec(name=n, weight=w) for n, w in zip(("cpu", "memory"), weights))


WEIGHT_CASES = [
    pytest.param(DEFAULT_RESOURCES, [], id="default config"),
    pytest.param(_w(1, 10), [], id="multi valid resources"),
    pytest.param(_w(0), ["scoringStrategy.resources[0].weight: Invalid value: 0"], id="weight less than min"),
    pytest.param(
        _w(101), ["scoringStrategy.resources[0].weight: Invalid value: 101"], id="weight greater than max"
    ),
    pytest.param(
        _w(0, 101),
        [
            "scoringStrategy.resources[0].weight: Invalid value: 0",
            "scoringStrategy.resources[1].weight: Invalid value: 101",
        ],
        id="multi invalid resources",
    ),
]


@pytest.mark.parametrize("strategy", [LEAST_ALLOCATED, MOST_ALLOCATED])
@pytest.mark.parametrize(("resources", "want"), WEIGHT_CASES)
def test_validate_weights(strategy: str, resources: tuple[ResourceSpec, ...], want: list[str]) -> None:
    """Resource weights must be in (0, 100]; every bad weight is reported."""
    errs = fit_args(strategy, resources).errors()
    assert [e.split(": resource weight")[0] for e in errs] == want


_SHAPE = [(30, 3)]

RTCR_VALIDATION = [
    pytest.param(DEFAULT_RESOURCES, [], ["scoringStrategy.shape: Required value"], id="no shapes"),
    pytest.param(
        _w(101), _SHAPE, ["scoringStrategy.resources[0].weight: Invalid value"], id="weight greater than max"
    ),
    pytest.param(
        _w(0), _SHAPE, ["scoringStrategy.resources[0].weight: Invalid value"], id="weight less than min"
    ),
    pytest.param(DEFAULT_RESOURCES, _SHAPE, [], id="valid shapes"),
    pytest.param(
        DEFAULT_RESOURCES,
        [(-1, 3)],
        ["scoringStrategy.shape[0].utilization: Invalid value"],
        id="utilization less than min",
    ),
    pytest.param(
        DEFAULT_RESOURCES,
        [(101, 3)],
        ["scoringStrategy.shape[0].utilization: Invalid value"],
        id="utilization greater than max",
    ),
    pytest.param(
        DEFAULT_RESOURCES,
        [(10, 3), (10, 3)],
        ["scoringStrategy.shape[1].utilization: Invalid value"],
        id="duplicated utilization values",
    ),
    pytest.param(DEFAULT_RESOURCES, [(10, 3), (20, 3), (30, 3)], [], id="increasing utilization values"),
    pytest.param(
        DEFAULT_RESOURCES,
        [(10, 3), (20, 3), (15, 3)],
        ["scoringStrategy.shape[2].utilization: Invalid value"],
        id="non-increasing utilization values",
    ),
    pytest.param(
        DEFAULT_RESOURCES,
        [(10, -1)],
        ["scoringStrategy.shape[0].score: Invalid value"],
        id="score less than min",
    ),
    pytest.param(
        DEFAULT_RESOURCES,
        [(10, 11)],
        ["scoringStrategy.shape[0].score: Invalid value"],
        id="score greater than max",
    ),
]


@pytest.mark.parametrize(("resources", "shape", "want"), RTCR_VALIDATION)
def test_validate_requested_to_capacity_ratio(
    resources: tuple[ResourceSpec, ...], shape: list[tuple[int, int]], want: list[str]
) -> None:
    """Shape points must be sorted, utilization in [0, 100], score in [0, 10]."""
    errs = fit_args(REQUESTED_TO_CAPACITY_RATIO, resources, shape).errors()
    assert [":".join(e.split(":")[:2]) for e in errs] == want


def test_error_messages_follow_go_field_errors() -> None:
    """Messages read like kube-scheduler's (path, kind of error, bad value, detail)."""
    args = fit_args(REQUESTED_TO_CAPACITY_RATIO, _w(101), [(10, 3), (10, 11)])
    assert args.errors() == [
        "scoringStrategy.resources[0].weight: Invalid value: 101: "
        "resource weight of cpu not in valid range (0, 100]",
        "scoringStrategy.shape[1].utilization: Invalid value: 10: values must be sorted in increasing order",
        "scoringStrategy.shape[1].score: Invalid value: 11: not in valid range [0, 10]",
    ]
    errs = NodeResourcesFitArgs(ignored_resources=("a/b/c",)).errors()
    assert errs == [
        'ignoredResources[0]: Invalid value: "a/b/c": a qualified name must consist of alphanumeric '
        "characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. "
        "'MyName',  or 'my.name',  or '123-abc', regex used for validation is "
        "'([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' "
        "(e.g. 'example.com/MyName')"
    ]


def test_factory_accepts_none_mapping_and_args() -> None:
    """new() takes None, a mapping or the args object, and rejects anything else."""
    assert new(None, None).args == NodeResourcesFitArgs()  # type: ignore[arg-type]
    assert new({"scoringStrategy": {"type": "MostAllocated"}}, None).args == fit_args(MOST_ALLOCATED)  # type: ignore[arg-type]
    args = fit_args(REQUESTED_TO_CAPACITY_RATIO, shape=[(0, 1)])
    plugin = new(args, None)  # type: ignore[arg-type]
    assert plugin.args is args
    assert plugin.name == NAME == "NodeResourcesFit"
    assert plugin.pre_filter_extensions() is None
    assert plugin.score_extensions() is None
    with pytest.raises(PluginArgsError, match="want args of type NodeResourcesFitArgs, got list"):
        new([], None)  # type: ignore[arg-type]


def test_plugin_rejects_invalid_args() -> None:
    """Constructing the plugin validates its args."""
    with pytest.raises(PluginArgsError, match=r"scoringStrategy\.requestedToCapacityRatio: Required value"):
        NodeResourcesFit(
            NodeResourcesFitArgs(scoring_strategy=ScoringStrategy(type=REQUESTED_TO_CAPACITY_RATIO))
        )


def test_pre_filter_state_is_shared_on_clone() -> None:
    """The PreFilter state is immutable, so a cloned CycleState shares it and Filter still works."""
    plugin = NodeResourcesFit()
    state = CycleState()
    pod = st_pod("p", {"cpu": "1"})
    plugin.pre_filter(state, pod, [])
    node = NodeInfo(st_node("n", cpu="1"))
    clone = state.clone()
    original = state.get(_PRE_FILTER_KEY)
    assert clone.get(_PRE_FILTER_KEY) is original
    assert "milli_cpu=1000" in repr(original)
    assert plugin.filter(clone, pod, node) is None


# -------------------------------------------------------------------------------------------
# Invariants

_SCALARS = [EXT_A, EXT_B, HUGE_A, K8S_A]
amount = st.integers(min_value=0, max_value=12)


@st.composite
def clusters(draw: st.DrawFn) -> tuple[Node, list[Pod], Pod]:
    alloc: dict[str, Any] = {
        "cpu": f"{draw(amount)}m",
        "memory": draw(amount),
        "pods": draw(st.integers(0, 3)),
        "ephemeral-storage": draw(amount),
    }
    for name in draw(st.lists(st.sampled_from(_SCALARS), unique=True, max_size=3)):
        alloc[name] = draw(amount)
    node = Node(name="n", allocatable=alloc)

    def pod(name: str, node_name: str = "") -> Pod:
        reqs: dict[str, Any] = {}
        if draw(st.booleans()):
            reqs["cpu"] = f"{draw(amount)}m"
        if draw(st.booleans()):
            reqs["memory"] = draw(amount)
        if draw(st.booleans()):
            reqs["ephemeral-storage"] = draw(amount)
        for scalar in draw(st.lists(st.sampled_from(_SCALARS), unique=True, max_size=2)):
            reqs[scalar] = draw(amount)
        return Pod(name=name, node_name=node_name, containers=(Container(requests=reqs),) if reqs else ())

    existing_pods = [pod(f"e{i}", "n") for i in range(draw(st.integers(0, 3)))]
    return node, existing_pods, pod("incoming")


@settings(max_examples=150, deadline=None)
@given(clusters(), st.sampled_from([(), (EXT_B,)]))
def test_filter_fast_path_matches_fits(
    cluster: tuple[Node, list[Pod], Pod], ignored: tuple[str, ...]
) -> None:
    """Filter's fast path gives exactly the status derived from the full fit computation."""
    node, pods, pod = cluster
    info = NodeInfo(node, pods)
    plugin = NodeResourcesFit(NodeResourcesFitArgs(ignored_resources=ignored))
    state = CycleState()
    plugin.pre_filter(state, pod, [info])
    got = plugin.filter(state, pod, info)
    insufficient = fits(pod, info, ignored_resources=ignored)
    if not insufficient:
        assert got is None
    else:
        assert got is not None
        assert got.reasons == [r.reason for r in insufficient]
        unres = any(r.unresolvable for r in insufficient)
        assert got.code is (Code.UNSCHEDULABLE_AND_UNRESOLVABLE if unres else Code.UNSCHEDULABLE)


_SCORE_RESOURCES = [
    DEFAULT_RESOURCES,
    _w(3, 7),
    (ResourceSpec(name="memory", weight=1),),
    (
        *DEFAULT_RESOURCES,
        ResourceSpec(name=EXT_A, weight=2),
        ResourceSpec(name="ephemeral-storage", weight=1),
    ),
]


@settings(max_examples=150, deadline=None)
@given(
    clusters(),
    st.sampled_from(_SCORE_RESOURCES),
    st.sampled_from([LEAST_ALLOCATED, MOST_ALLOCATED, REQUESTED_TO_CAPACITY_RATIO]),
)
def test_scores_in_range_and_fast_path_identical(
    cluster: tuple[Node, list[Pod], Pod], resources: tuple[ResourceSpec, ...], strategy: str
) -> None:
    """Scores stay in [0, 100] and the specialised cpu/memory path equals the generic one."""
    node, pods, pod = cluster
    info = NodeInfo(node, pods)
    shape = [(0, 0), (50, 10), (100, 3)] if strategy == REQUESTED_TO_CAPACITY_RATIO else None
    plugin = NodeResourcesFit(fit_args(strategy, resources, shape))
    state = CycleState()
    assert plugin.pre_score(state, pod, [info]) is None
    score, status = plugin.score(state, pod, info)
    assert status is None
    assert 0 <= score <= 100
    weights = [r.weight for r in resources]
    if strategy == LEAST_ALLOCATED:
        fn = rs.least_allocated_scorer(weights)
    elif strategy == MOST_ALLOCATED:
        fn = rs.most_allocated_scorer(weights)
    else:
        fn = rs.requested_to_capacity_ratio_scorer(weights, shape or [])
    generic = rs.ResourceAllocationScorer(resources, fn, use_requested=False)
    assert generic.score(info, generic.pod_requests(pod)) == score


@given(st.integers(-(10**6), 10**6), st.integers(-1000, 1000).filter(bool))
def test_go_div_truncates(a: int, b: int) -> None:
    """go_div is Go's truncating integer division."""
    q = rs.go_div(a, b)
    want = abs(a) // abs(b)
    assert q == (want if (a >= 0) == (b > 0) else -want)


@given(st.integers(0, 10**6), st.integers(1, 1000))
def test_round_half_away(n: int, d: int) -> None:
    """The RequestedToCapacityRatio average rounds like Go's math.Round."""
    import math

    want = math.floor(n / d + 0.5)
    assert rs._round_half_away(n, d) == want
    assert rs._round_half_away(-n, d) == -want


def test_resource_name_classification() -> None:
    """Extended / scalar resource names follow upstream's helpers."""
    assert rs.is_extended_resource_name(EXT_A)
    assert not rs.is_extended_resource_name(K8S_A)
    assert not rs.is_extended_resource_name("cpu")
    assert not rs.is_extended_resource_name("requests.example.com/a")
    assert not rs.is_extended_resource_name("example.com/-bad")
    assert rs.is_scalar_resource_name(K8S_B)
    assert rs.is_scalar_resource_name(HUGE_A)
    assert rs.is_scalar_resource_name("attachable-volumes-aws-ebs")
    assert not rs.is_scalar_resource_name("pods")
    assert not rs.is_scalar_resource_name("storage")


def test_go_value_formatting() -> None:
    """Bad values print like Go's field errors."""
    assert rs.go_value('a"b') == '"a\\"b"'
    assert rs.go_value(None) == "null"
    assert rs.go_value(True) == "true"
    assert rs.go_value(False) == "false"
    assert rs.go_value(3) == "3"
    assert rs.field_duplicate("x", "cpu") == 'x: Duplicate value: "cpu"'


@pytest.mark.parametrize("strategy", [LEAST_ALLOCATED, MOST_ALLOCATED])
@pytest.mark.parametrize(
    ("alloc", "used", "pod_requests"),
    [
        pytest.param((4000, 1000), (500, 100), (100, 100), id="ordinary"),
        pytest.param((4000, 1000), (5000, 2000), (100, 100), id="overcommitted"),
        pytest.param((0, 1000), (500, 100), (100, 100), id="no cpu"),
        pytest.param((0, 0), (500, 100), (100, 100), id="nothing allocatable"),
        pytest.param((-4000, 1000), (500, 100), (100, 100), id="negative allocatable cpu"),
        pytest.param((4000, -1000), (-500, -2000), (100, 100), id="negative amounts"),
        pytest.param((4000, 1000), (-500, -2000), (100, 100), id="negative requested"),
    ],
)
def test_fast_paths_match_generic_for_any_amounts(
    strategy: str, alloc: tuple[int, int], used: tuple[int, int], pod_requests: tuple[int, int]
) -> None:
    """The cpu/memory fast paths equal the generic scorer even for absurd (negative) amounts."""
    from schedframe.api import Resources

    info = NodeInfo(Node(name="n"))
    info.allocatable = Resources(milli_cpu=alloc[0], memory=alloc[1])
    info.requested = info.non_zero_requested = Resources(milli_cpu=used[0], memory=used[1])
    if strategy == LEAST_ALLOCATED:
        fn = rs.least_allocated_scorer([2, 3])
    else:
        fn = rs.most_allocated_scorer([2, 3])
    resources = (ResourceSpec(name="cpu", weight=2), ResourceSpec(name="memory", weight=3))
    for use_requested in (False, True):
        fast = rs.cpu_memory_fast_path(resources, strategy, use_requested=use_requested)
        assert fast is not None
        generic = rs.ResourceAllocationScorer(resources, fn, use_requested=use_requested)
        assert fast(info, pod_requests) == generic.score(info, pod_requests)


def test_fast_path_only_for_cpu_then_memory() -> None:
    """Other resource lists, strategies or weights use the generic path."""
    assert rs.cpu_memory_fast_path(DEFAULT_RESOURCES[::-1], LEAST_ALLOCATED, use_requested=False) is None
    assert (
        rs.cpu_memory_fast_path(DEFAULT_RESOURCES, REQUESTED_TO_CAPACITY_RATIO, use_requested=False) is None
    )
    assert rs.cpu_memory_fast_path(_w(0, 1), LEAST_ALLOCATED, use_requested=False) is None
