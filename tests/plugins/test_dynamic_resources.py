"""DynamicResources: upstream's plugin table (``dynamicresources_test.go`` ``TestPlugin``) ported,
plus the allocator's key cases (``structured/allocator_test.go``) and scheduler-level runs."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from types import SimpleNamespace
from typing import Any, cast

import attrs
import pytest

from schedframe import Code, CycleState, Node, Pod, Scheduler, Status, load_manifests
from schedframe.api import (
    AllocationResult,
    Device,
    DeviceAttribute,
    DeviceClaimConfiguration,
    DeviceClass,
    DeviceConstraint,
    DeviceRequest,
    DeviceRequestAllocationResult,
    DeviceSubRequest,
    ExactDeviceRequest,
    NodeSelector,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OpaqueDeviceConfiguration,
    OwnerReference,
    PodResourceClaim,
    PodResourceClaimStatus,
    Quantity,
    ResourceClaim,
    ResourceClaimConsumerReference,
    ResourceClaimTemplate,
    ResourcePool,
    ResourceSlice,
)
from schedframe.api.resource import FINALIZER
from schedframe.cache import ObjectStore, Snapshot
from schedframe.framework import NodeToStatus
from schedframe.framework.args import decode_args, encode_args
from schedframe.framework.handle import Handle
from schedframe.plugins import dynamic_resources as dra
from schedframe.plugins.dynamic_resources._allocator import Allocator
from schedframe.testing import make_node, make_pod

pytest.importorskip("celpy", reason="the DynamicResources tests need the dra extra (cel-python)")

NODE = "worker"
NODE2 = "worker-2"
NODE3 = "worker-3"
DRIVER = "some-driver"
POD_NAME = "my-pod"
POD_UID = "1234"
RESOURCE = "my-resource"
CLAIM_NAME = f"{POD_NAME}-{RESOURCE}"
CLASS = "my-resource-class"
NS = "default"
ATTR = "healthy"  # a device attribute only the non-default nodes have


def node(name: str) -> Node:
    return make_node(name).label("kubernetes.io/hostname", name).obj()


def slice_for(node_name: str, *devices: Device, driver: str = DRIVER) -> ResourceSlice:
    return ResourceSlice(
        name=f"{node_name}-{driver}",
        driver=driver,
        pool=ResourcePool(node_name),
        node_name=node_name,
        devices=devices,
    )


def device(name: str = "instance-1", **attributes: DeviceAttribute) -> Device:
    return Device(name, attributes=attributes)


WORKER_SLICE = slice_for(NODE, device())
WORKER2_SLICE = slice_for(NODE2, device(**{ATTR: DeviceAttribute(bool_value=True)}))
WORKER3_SLICE = slice_for(NODE3, device(**{ATTR: DeviceAttribute(bool_value=True)}))
DEVICE_CLASS = DeviceClass(CLASS)
BROKEN_SELECTOR = f'device.attributes["{DRIVER}"].{ATTR}'

POD_WITH_CLAIM_NAME = (
    make_pod(POD_NAME, NS)
    .uid(POD_UID)
    .obj()
    .evolve(resource_claims=(PodResourceClaim(RESOURCE, resource_claim_name=CLAIM_NAME),))
)
POD_WITH_CLAIM_TEMPLATE = (
    make_pod(POD_NAME, NS)
    .uid(POD_UID)
    .obj()
    .evolve(resource_claims=(PodResourceClaim(RESOURCE, resource_claim_template_name=CLAIM_NAME),))
)
POD_WITH_CLAIM_TEMPLATE_IN_STATUS = POD_WITH_CLAIM_TEMPLATE.evolve(
    resource_claim_statuses=(PodResourceClaimStatus(RESOURCE, CLAIM_NAME),)
)

CLAIM = ResourceClaim(CLAIM_NAME, NS, requests=(DeviceRequest("req-1", exactly=ExactDeviceRequest(CLASS)),))
CLAIM_WITH_PRIORITIZED_LIST = CLAIM.evolve(
    requests=(DeviceRequest("req-1", first_available=(DeviceSubRequest("subreq-1", CLASS),)),)
)
OWNER = OwnerReference("Pod", POD_NAME, POD_UID, "v1", controller=True)
PENDING_CLAIM = CLAIM.evolve(owner_references=(OWNER,))
PENDING_CLAIM_WITH_PRIORITIZED_LIST = CLAIM_WITH_PRIORITIZED_LIST.evolve(owner_references=(OWNER,))
ON_WORKER = NodeSelector(
    (NodeSelectorTerm(match_fields=(NodeSelectorRequirement("metadata.name", "In", (NODE,)),)),)
)
ALLOCATION = AllocationResult(
    results=(DeviceRequestAllocationResult("req-1", DRIVER, NODE, "instance-1"),), node_selector=ON_WORKER
)
ALLOCATION_WITH_PRIORITIZED_LIST = AllocationResult(
    results=(DeviceRequestAllocationResult("req-1/subreq-1", DRIVER, NODE, "instance-1"),),
    node_selector=ON_WORKER,
)
RESERVED_FOR_POD = (ResourceClaimConsumerReference(POD_NAME, POD_UID),)
ALLOCATED_CLAIM = PENDING_CLAIM.evolve(allocation=ALLOCATION, finalizers=(FINALIZER,))
IN_USE_CLAIM = ALLOCATED_CLAIM.evolve(reserved_for=RESERVED_FOR_POD)
ALLOCATED_CLAIM_WITH_WRONG_TOPOLOGY = ALLOCATED_CLAIM.evolve(
    allocation=AllocationResult(
        node_selector=NodeSelector(
            (NodeSelectorTerm((NodeSelectorRequirement("no-such-label", "In", ("no-such-value",)),)),)
        )
    )
)
ALLOCATED_CLAIM_WITH_GOOD_TOPOLOGY = ALLOCATED_CLAIM.evolve(
    allocation=AllocationResult(
        node_selector=NodeSelector(
            (NodeSelectorTerm((NodeSelectorRequirement("kubernetes.io/hostname", "In", (NODE,)),)),)
        )
    )
)
OTHER_CLAIM = ResourceClaim("not-my-claim", NS, requests=CLAIM.requests)
OTHER_ALLOCATED_CLAIM = OTHER_CLAIM.evolve(allocation=ALLOCATION)


def admin_access(claim: ResourceClaim) -> ResourceClaim:
    requests = tuple(
        attrs.evolve(r, exactly=attrs.evolve(r.exactly, admin_access=True)) if r.exactly else r
        for r in claim.requests
    )
    allocation = claim.allocation
    if allocation is not None:
        allocation = attrs.evolve(
            allocation, results=tuple(attrs.evolve(r, admin_access=True) for r in allocation.results)
        )
    return claim.evolve(requests=requests, allocation=allocation)


def break_cel_in_claim(claim: ResourceClaim) -> ResourceClaim:
    return claim.evolve(
        requests=tuple(
            attrs.evolve(r, exactly=attrs.evolve(r.exactly, selectors=(BROKEN_SELECTOR,))) if r.exactly else r
            for r in claim.requests
        )
    )


def with_class(claim: ResourceClaim, class_name: str) -> ResourceClaim:
    def fix(r: DeviceRequest) -> DeviceRequest:
        if r.exactly is not None:
            return attrs.evolve(r, exactly=attrs.evolve(r.exactly, device_class_name=class_name))
        return attrs.evolve(
            r, first_available=tuple(attrs.evolve(s, device_class_name=class_name) for s in r.first_available)
        )

    return claim.evolve(requests=tuple(fix(r) for r in claim.requests))


def deleted(claim: ResourceClaim) -> ResourceClaim:
    return claim.evolve(deletion_timestamp="2025-01-01T00:00:00Z")


def wrong_owner(claim: ResourceClaim) -> ResourceClaim:
    return claim.evolve(owner_references=(attrs.evolve(OWNER, uid=POD_UID + "123"),))


# --------------------------------------------------------------------------------------------
# The harness: the plugin on an ObjectStore, driven point by point as upstream's TestPlugin


def make_plugin(objects: Sequence[Any]) -> tuple[dra.DynamicResources, ObjectStore]:
    store = ObjectStore(objects)
    return dra.DynamicResources(cast(Handle, SimpleNamespace(objects=store))), store


def claims_of(store: ObjectStore) -> dict[str, ResourceClaim]:
    return {c.name: c for c in store.list(ResourceClaim)}


@attrs.frozen
class Want:
    pre_enqueue: Status | None = None
    pre_filter: Status | None = None
    filter: dict[str, Status] = attrs.field(factory=dict)
    post_filter: Status | None = None
    reserve_in_flight: ResourceClaim | None = None
    prebind_claim: ResourceClaim | None = None
    unreserve_before_prebind: bool = False
    unreserve_after_bind: ResourceClaim | None = None
    post_filter_claim: ResourceClaim | None = None


def unresolvable(reason: str) -> Status:
    return Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, (reason,))


def unschedulable(reason: str) -> Status:
    return Status(Code.UNSCHEDULABLE, (reason,))


#: PostFilter when no claim could be deallocated: 1.37 gives no reason (1.32 to 1.36:
#: "still not schedulable", test_post_filter_words_per_release)
NOTHING_DEALLOCATED = Status(Code.UNSCHEDULABLE)


def error(reason: str) -> Status:
    return Status(Code.ERROR, (reason,))


CASES = [
    pytest.param(
        [],
        make_pod("foo", NS).obj(),
        [],
        Want(pre_filter=Status.skip(), post_filter=Status(Code.UNSCHEDULABLE)),
        id="empty",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [ALLOCATED_CLAIM, OTHER_CLAIM],
        Want(prebind_claim=ALLOCATED_CLAIM.evolve(reserved_for=RESERVED_FOR_POD)),
        id="claim-reference",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_TEMPLATE_IN_STATUS,
        [ALLOCATED_CLAIM, OTHER_CLAIM],
        Want(prebind_claim=ALLOCATED_CLAIM.evolve(reserved_for=RESERVED_FOR_POD)),
        id="claim-template",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_TEMPLATE,
        [ALLOCATED_CLAIM, OTHER_CLAIM],
        Want(pre_enqueue=unresolvable('pod "default/my-pod": ResourceClaim not created yet')),
        id="missing-claim",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_TEMPLATE_IN_STATUS,
        [deleted(ALLOCATED_CLAIM)],
        Want(pre_enqueue=unresolvable('resourceclaim "my-pod-my-resource" is being deleted')),
        id="deleted-claim",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_TEMPLATE_IN_STATUS,
        [wrong_owner(ALLOCATED_CLAIM)],
        Want(
            pre_enqueue=unresolvable(
                "ResourceClaim default/my-pod-my-resource was not created for pod "
                "default/my-pod (pod is not owner)"
            )
        ),
        id="wrong-claim",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM, DEVICE_CLASS],
        Want(
            filter={NODE: unresolvable(dra.REASON_CANNOT_ALLOCATE)},
            post_filter=NOTHING_DEALLOCATED,
        ),
        id="no-resources",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM, DEVICE_CLASS, WORKER_SLICE],
        Want(reserve_in_flight=ALLOCATED_CLAIM, prebind_claim=IN_USE_CLAIM),
        id="with-resources",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM.evolve(finalizers=(FINALIZER,)), DEVICE_CLASS, WORKER_SLICE],
        Want(reserve_in_flight=ALLOCATED_CLAIM, prebind_claim=IN_USE_CLAIM),
        id="with-resources-has-finalizer",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM, DEVICE_CLASS, WORKER_SLICE],
        Want(reserve_in_flight=ALLOCATED_CLAIM, unreserve_before_prebind=True),
        id="skip-bind",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM, OTHER_ALLOCATED_CLAIM, DEVICE_CLASS, WORKER_SLICE],
        Want(
            filter={NODE: unresolvable(dra.REASON_CANNOT_ALLOCATE)},
            post_filter=NOTHING_DEALLOCATED,
        ),
        id="exhausted-resources",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [admin_access(PENDING_CLAIM), OTHER_ALLOCATED_CLAIM, DEVICE_CLASS, WORKER_SLICE],
        Want(reserve_in_flight=admin_access(ALLOCATED_CLAIM), prebind_claim=admin_access(IN_USE_CLAIM)),
        id="request-admin-access",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM, admin_access(OTHER_ALLOCATED_CLAIM), DEVICE_CLASS, WORKER_SLICE],
        Want(reserve_in_flight=ALLOCATED_CLAIM, prebind_claim=IN_USE_CLAIM),
        id="structured-ignore-allocated-admin-access",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [break_cel_in_claim(PENDING_CLAIM), DEVICE_CLASS, WORKER_SLICE],
        Want(
            filter={
                NODE: error(
                    f"claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: {ATTR}"
                )
            }
        ),
        id="claim-parameters-CEL-runtime-error",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM, DeviceClass(CLASS, selectors=(BROKEN_SELECTOR,)), WORKER_SLICE],
        Want(
            filter={
                NODE: error(f"class my-resource-class: selector #0: CEL runtime error: no such key: {ATTR}")
            }
        ),
        id="class-parameters-CEL-runtime-error",
    ),
    pytest.param(
        [NODE, NODE2],
        POD_WITH_CLAIM_NAME,
        [break_cel_in_claim(PENDING_CLAIM), DEVICE_CLASS, WORKER_SLICE, WORKER2_SLICE],
        Want(
            filter={
                NODE: error(
                    f"claim default/my-pod-my-resource: selector #0: CEL runtime error: no such key: {ATTR}"
                )
            }
        ),
        id="CEL-runtime-error-for-one-of-two-nodes",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM],
        Want(
            pre_filter=unresolvable(f"request req-1: device class {CLASS} does not exist"),
            post_filter=Status(Code.UNSCHEDULABLE),
        ),
        id="missing-class",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [ALLOCATED_CLAIM_WITH_WRONG_TOPOLOGY],
        Want(
            filter={NODE: unresolvable(dra.REASON_NOT_AVAILABLE_ON_NODE)},
            post_filter=unschedulable(dra.REASON_DEALLOCATED),
            post_filter_claim=ALLOCATED_CLAIM_WITH_WRONG_TOPOLOGY.evolve(allocation=None),
        ),
        id="wrong-topology",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [ALLOCATED_CLAIM_WITH_GOOD_TOPOLOGY],
        Want(prebind_claim=ALLOCATED_CLAIM_WITH_GOOD_TOPOLOGY.evolve(reserved_for=RESERVED_FOR_POD)),
        id="good-topology",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [ALLOCATED_CLAIM_WITH_GOOD_TOPOLOGY],
        Want(
            prebind_claim=ALLOCATED_CLAIM_WITH_GOOD_TOPOLOGY.evolve(reserved_for=RESERVED_FOR_POD),
            unreserve_after_bind=ALLOCATED_CLAIM_WITH_GOOD_TOPOLOGY,
        ),
        id="bind-failure",
    ),
    pytest.param([], POD_WITH_CLAIM_NAME, [IN_USE_CLAIM], Want(), id="reserved-okay"),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [with_class(CLAIM, "does-not-exist")],
        Want(
            pre_filter=unresolvable("request req-1: device class does-not-exist does not exist"),
            post_filter=Status(Code.UNSCHEDULABLE),
        ),
        id="claim-with-request-with-unknown-device-class",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [with_class(CLAIM_WITH_PRIORITIZED_LIST, "does-not-exist")],
        Want(
            pre_filter=unresolvable("request req-1/subreq-1: device class does-not-exist does not exist"),
            post_filter=Status(Code.UNSCHEDULABLE),
        ),
        id="claim-with-prioritized-list-unknown-device-class",
    ),
    pytest.param(
        [],
        POD_WITH_CLAIM_NAME,
        [PENDING_CLAIM_WITH_PRIORITIZED_LIST, DEVICE_CLASS, WORKER_SLICE],
        Want(
            reserve_in_flight=PENDING_CLAIM_WITH_PRIORITIZED_LIST.evolve(
                allocation=ALLOCATION_WITH_PRIORITIZED_LIST, finalizers=(FINALIZER,)
            ),
            prebind_claim=PENDING_CLAIM_WITH_PRIORITIZED_LIST.evolve(
                allocation=ALLOCATION_WITH_PRIORITIZED_LIST,
                finalizers=(FINALIZER,),
                reserved_for=RESERVED_FOR_POD,
            ),
        ),
        id="claim-with-prioritized-list",
    ),
]


@pytest.mark.parametrize(("node_names", "pod", "objects", "want"), CASES)
def test_plugin(node_names: list[str], pod: Pod, objects: list[Any], want: Want) -> None:
    """Each extension point gives upstream's status and the claims change as upstream's do."""
    nodes = [node(n) for n in (node_names or [NODE])]
    plugin, store = make_plugin(objects)
    initial = claims_of(store)

    status = plugin.pre_enqueue(pod)
    assert status == want.pre_enqueue
    if status is not None:
        return

    state = CycleState()
    infos = list(Snapshot.from_objects(nodes).list())
    result, status = plugin.pre_filter(state, pod, infos)
    assert result is None
    assert status == want.pre_filter
    if status is not None and status.code is not Code.SKIP:
        _, pstatus = plugin.post_filter(state, pod, NodeToStatus())
        assert pstatus == want.post_filter
        return
    if status is None:
        passed = []
        for info in infos:
            fstatus = plugin.filter(state, pod, info)
            assert fstatus == want.filter.get(info.name), info.name
            if fstatus is None:
                passed.append(info.name)
            elif fstatus.code is Code.ERROR:  # the framework aborts the attempt
                return
        if not passed:
            _, pstatus = plugin.post_filter(state, pod, NodeToStatus())
            assert pstatus == want.post_filter
            if want.post_filter_claim is not None:
                assert claims_of(store)[CLAIM_NAME] == want.post_filter_claim
            else:
                assert claims_of(store) == initial
            return
        assert not want.filter.keys() - {n for n in want.filter if n not in passed}
    else:  # SKIP: no claims
        _, pstatus = plugin.post_filter(state, pod, NodeToStatus())
        assert pstatus == want.post_filter
        return

    selected = passed[0]
    assert plugin.reserve(state, pod, selected) is None
    in_flight = dict(plugin._in_flight)
    if want.reserve_in_flight is None:
        assert in_flight == {}
    else:
        assert list(in_flight.values()) == [want.reserve_in_flight]
    assert claims_of(store) == initial  # Reserve changes nothing in the store

    if want.unreserve_before_prebind:
        plugin.unreserve(state, pod, selected)
        assert plugin._in_flight == {}
        assert claims_of(store) == initial
        return

    assert plugin.pre_bind(state, pod, selected) is None
    assert plugin._in_flight == {}
    after = claims_of(store)
    if want.prebind_claim is not None:
        assert after[CLAIM_NAME] == want.prebind_claim
    else:
        assert after == initial
    assert {k: v for k, v in after.items() if k != CLAIM_NAME} == {
        k: v for k, v in initial.items() if k != CLAIM_NAME
    }

    if want.unreserve_after_bind is not None:
        plugin.unreserve(state, pod, selected)
        assert claims_of(store)[CLAIM_NAME] == want.unreserve_after_bind


# --------------------------------------------------------------------------------------------
# Other plugin behaviour


def run_cycle(
    plugin: dra.DynamicResources, pod: Pod, nodes: Sequence[Node]
) -> tuple[CycleState, Status | None, dict[str, Status | None]]:
    state = CycleState()
    infos = list(Snapshot.from_objects(nodes).list())
    _, status = plugin.pre_filter(state, pod, infos)
    if status is not None:
        return state, status, {}
    return state, None, {i.name: plugin.filter(state, pod, i) for i in infos}


def test_in_flight_allocation_blocks_a_pod_sharing_the_claim() -> None:
    """A second pod using a claim whose allocation is in flight waits, as upstream's
    inFlightAllocations; once PreBind wrote the claim, the pod shares it."""
    plugin, store = make_plugin([PENDING_CLAIM, DEVICE_CLASS, WORKER_SLICE])
    other = (
        make_pod("other", NS).uid("5678").obj().evolve(resource_claims=POD_WITH_CLAIM_NAME.resource_claims)
    )
    state, _, _ = run_cycle(plugin, POD_WITH_CLAIM_NAME, [node(NODE)])
    assert plugin.reserve(state, POD_WITH_CLAIM_NAME, NODE) is None
    _, status, _ = run_cycle(plugin, other, [node(NODE)])
    assert status == unresolvable(
        "resource claim default/my-pod-my-resource is in the process of being allocated"
    )
    assert plugin.pre_bind(state, POD_WITH_CLAIM_NAME, NODE) is None
    state2, status, filtered = run_cycle(plugin, other, [node(NODE), node(NODE2)])
    assert status is None
    assert filtered == {NODE: None, NODE2: unresolvable(dra.REASON_NOT_AVAILABLE_ON_NODE)}
    assert plugin.pre_bind(state2, other, NODE) is None
    assert [r.name for r in claims_of(store)[CLAIM_NAME].reserved_for] == [POD_NAME, "other"]


def test_in_flight_devices_are_not_given_to_another_claim() -> None:
    """Devices of an allocation made in Reserve count as allocated for the next pod's claims."""
    second = ResourceClaim("second", NS, requests=CLAIM.requests)
    plugin, _ = make_plugin([PENDING_CLAIM, second, DEVICE_CLASS, WORKER_SLICE])
    state, _, _ = run_cycle(plugin, POD_WITH_CLAIM_NAME, [node(NODE)])
    assert plugin.reserve(state, POD_WITH_CLAIM_NAME, NODE) is None
    pod2 = (
        make_pod("p2", NS)
        .obj()
        .evolve(resource_claims=(PodResourceClaim("c", resource_claim_name="second"),))
    )
    _, _, filtered = run_cycle(plugin, pod2, [node(NODE)])
    assert filtered == {NODE: unresolvable(dra.REASON_CANNOT_ALLOCATE)}
    plugin.unreserve(state, POD_WITH_CLAIM_NAME, NODE)
    _, _, filtered = run_cycle(plugin, pod2, [node(NODE)])
    assert filtered == {NODE: None}


def test_template_claim_is_generated_as_the_controller_does() -> None:
    """A pod referencing a ResourceClaimTemplate gets a claim named <pod>-<claim>-<5 chars>, owned
    by the pod and annotated with the pod claim name; a second look finds the same claim."""
    template = ResourceClaimTemplate(CLAIM_NAME, NS, claim_labels={"a": "b"}, requests=CLAIM.requests)
    plugin, store = make_plugin([template, DEVICE_CLASS, WORKER_SLICE])
    assert plugin.pre_enqueue(POD_WITH_CLAIM_TEMPLATE) is None
    [claim] = store.list(ResourceClaim)
    name = dra.generated_claim_name(POD_WITH_CLAIM_TEMPLATE, RESOURCE)
    assert claim.name == name
    assert name.startswith(f"{POD_NAME}-{RESOURCE}-")
    assert len(name) == len(f"{POD_NAME}-{RESOURCE}-") + 5
    assert claim.owner_references == (OWNER,)
    assert claim.annotations == {dra.POD_CLAIM_NAME_ANNOTATION: RESOURCE}
    assert claim.labels == {"a": "b"}
    _, status, filtered = run_cycle(plugin, POD_WITH_CLAIM_TEMPLATE, [node(NODE)])
    assert (status, filtered) == (None, {NODE: None})
    assert len(store.list(ResourceClaim)) == 1


def test_generated_claim_name_truncates_long_names() -> None:
    """Over 57 characters, pod and claim names are truncated in proportion (controller rule)."""
    pod = make_pod("p" * 60, NS).obj()
    name = dra.generated_claim_name(pod, "c" * 30)
    assert len(name) <= 63
    assert name.startswith("p" * 37 + "-" + "c" * 18)


def test_claim_without_source_is_unsupported() -> None:
    """A pod claim naming neither a claim nor a template is rejected with upstream's reason."""
    pod = POD_WITH_CLAIM_NAME.evolve(resource_claims=(PodResourceClaim(RESOURCE),))
    plugin, _ = make_plugin([])
    assert plugin.pre_enqueue(pod) == unresolvable(
        'pod "default/my-pod", spec.resourceClaim "my-resource": none of the supported fields are set'
    )


def test_missing_claim() -> None:
    """A claim that does not exist: the lister's not-found error."""
    plugin, _ = make_plugin([])
    assert plugin.pre_enqueue(POD_WITH_CLAIM_NAME) == unresolvable(
        'resourceclaim.resource.k8s.io "my-pod-my-resource" not found'
    )


def test_events_to_register() -> None:
    """Upstream's events: node add/label, claim add/update (hint), the pod's generated claims
    (hint), device class and slice add/update."""
    plugin, _ = make_plugin([])
    events = [
        (e.event.resource.value, int(e.event.action), e.hint is not None) for e in plugin.events_to_register()
    ]
    from schedframe import ActionType as A

    assert events == [
        ("Node", int(A.ADD | A.UPDATE_NODE_LABEL), False),
        ("ResourceClaim", int(A.ADD | A.UPDATE), True),
        ("Pod", int(A.UPDATE_POD_GENERATED_RESOURCE_CLAIM), True),
        ("DeviceClass", int(A.ADD | A.UPDATE), False),
        ("ResourceSlice", int(A.ADD | A.UPDATE), False),
    ]


@pytest.mark.parametrize(
    ("old", "new", "want"),
    [
        pytest.param(None, PENDING_CLAIM, 1, id="claim created"),
        pytest.param(PENDING_CLAIM, PENDING_CLAIM.evolve(labels={"x": "y"}), 0, id="status unchanged"),
        pytest.param(PENDING_CLAIM, ALLOCATED_CLAIM, 1, id="allocated"),
        pytest.param(None, OTHER_CLAIM, 0, id="unrelated claim"),
        pytest.param(OTHER_ALLOCATED_CLAIM, OTHER_CLAIM, 1, id="other claim deallocated"),
    ],
)
def test_claim_change_hint(old: ResourceClaim | None, new: ResourceClaim, want: int) -> None:
    """The claim hint queues for the pod's own claims and for any deallocation."""
    plugin, _ = make_plugin([PENDING_CLAIM, OTHER_CLAIM])
    assert int(plugin.is_schedulable_after_claim_change(POD_WITH_CLAIM_NAME, old, new)) == want


def test_pod_change_hint() -> None:
    """The pod hint queues when the pod's generated claims got recorded and exist."""
    plugin, _ = make_plugin([ALLOCATED_CLAIM])
    assert (
        int(
            plugin.is_schedulable_after_pod_change(
                POD_WITH_CLAIM_TEMPLATE, POD_WITH_CLAIM_TEMPLATE, POD_WITH_CLAIM_TEMPLATE_IN_STATUS
            )
        )
        == 1
    )
    other = POD_WITH_CLAIM_TEMPLATE_IN_STATUS.evolve(uid="other")
    assert int(plugin.is_schedulable_after_pod_change(POD_WITH_CLAIM_TEMPLATE, None, other)) == 0


# --------------------------------------------------------------------------------------------
# The allocator (structured/allocator_test.go key cases)

GPU = "gpu.example.com"


def gpu(name: str, **attrs_: Any) -> Device:
    attributes = {}
    capacity = {}
    for k, v in attrs_.items():
        if isinstance(v, Quantity):
            capacity[k] = v
        elif isinstance(v, bool):
            attributes[k] = DeviceAttribute(bool_value=v)
        elif isinstance(v, int):
            attributes[k] = DeviceAttribute(int_value=v)
        else:
            attributes[k] = DeviceAttribute(string_value=v)
    return Device(name, attributes=attributes, capacity=capacity)


def claim(
    name: str,
    *requests: DeviceRequest,
    constraints: Sequence[DeviceConstraint] = (),
    config: Sequence[DeviceClaimConfiguration] = (),
) -> ResourceClaim:
    return ResourceClaim(name, NS, requests=requests, constraints=constraints, config=config)


def req(
    name: str = "req-0",
    count: int = 1,
    mode: str = "ExactCount",
    selectors: Sequence[str] = (),
    cls: str = GPU,
) -> DeviceRequest:
    return DeviceRequest(name, exactly=ExactDeviceRequest(cls, selectors, mode, count))


def allocate(
    claims: Sequence[ResourceClaim],
    slices: Sequence[ResourceSlice],
    node_name: str = NODE,
    classes: Sequence[DeviceClass] = (DeviceClass(GPU),),
    allocated: set[tuple[str, str, str]] | None = None,
    labels: dict[str, str] | None = None,
) -> list[list[tuple[str, str]]] | None:
    alloc = Allocator(claims, allocated or set(), {c.name: c for c in classes}, slices)
    n = make_node(node_name).labels(labels or {}).obj()
    results = alloc.allocate(n)
    return None if results is None else [[(r.request, r.device) for r in a.results] for a in results]


def gpu_slice(
    node_name: str,
    *devices: Device,
    pool: str | None = None,
    generation: int = 0,
    count: int = 1,
    name: str | None = None,
) -> ResourceSlice:
    return ResourceSlice(
        name or f"{node_name}-{pool or node_name}-{generation}",
        GPU,
        ResourcePool(pool or node_name, generation, count),
        node_name=node_name,
        devices=devices,
    )


@pytest.mark.parametrize(
    ("claims", "slices", "want"),
    [
        pytest.param([claim("c", req())], [], None, id="no slices"),
        pytest.param([claim("c", req())], [gpu_slice(NODE, gpu("g0"))], [[("req-0", "g0")]], id="one device"),
        pytest.param([claim("c", req())], [gpu_slice(NODE2, gpu("g0"))], None, id="other node's slice"),
        pytest.param(
            [claim("c", req(count=2))],
            [gpu_slice(NODE, gpu("g0"), gpu("g1"), gpu("g2"))],
            [[("req-0", "g0"), ("req-0", "g1")]],
            id="count 2",
        ),
        pytest.param([claim("c", req(count=2))], [gpu_slice(NODE, gpu("g0"))], None, id="too few devices"),
        pytest.param(
            [claim("a", req()), claim("b", req())],
            [gpu_slice(NODE, gpu("g0"), gpu("g1"))],
            [[("req-0", "g0")], [("req-0", "g1")]],
            id="two claims, distinct devices",
        ),
        pytest.param(
            [claim("c", req(mode="All"))],
            [gpu_slice(NODE, gpu("g0"), gpu("g1"))],
            [[("req-0", "g0"), ("req-0", "g1")]],
            id="all devices",
        ),
        pytest.param(
            [claim("c", req(mode="All", selectors=['device.attributes["gpu.example.com"].model == "a"']))],
            [gpu_slice(NODE, gpu("g0", model="a"), gpu("g1", model="b"), gpu("g2", model="a"))],
            [[("req-0", "g0"), ("req-0", "g2")]],
            id="all matching devices",
        ),
        pytest.param(
            [claim("c", req(selectors=['device.attributes["gpu.example.com"].model == "b"']))],
            [gpu_slice(NODE, gpu("g0", model="a"), gpu("g1", model="b"))],
            [[("req-0", "g1")]],
            id="selector",
        ),
        pytest.param(
            [
                claim(
                    "c",
                    req(
                        selectors=[
                            'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'
                        ]
                    ),
                )
            ],
            [
                gpu_slice(
                    NODE, gpu("g0", memory=Quantity.parse("8Gi")), gpu("g1", memory=Quantity.parse("16Gi"))
                )
            ],
            [[("req-0", "g1")]],
            id="capacity compared as quantities",
        ),
        pytest.param(
            [
                claim(
                    "c",
                    req(
                        selectors=[
                            'device.attributes["gpu.example.com"].index > 0 && '
                            'device.driver == "gpu.example.com"'
                        ]
                    ),
                )
            ],
            [gpu_slice(NODE, gpu("g0", index=0), gpu("g1", index=1))],
            [[("req-0", "g1")]],
            id="int attribute and driver",
        ),
        pytest.param(
            [claim("c", req("a"), req("b"), constraints=[DeviceConstraint(match_attribute=f"{GPU}/numa")])],
            [gpu_slice(NODE, gpu("g0", numa=0), gpu("g1", numa=1), gpu("g2", numa=1))],
            [[("a", "g0"), ("b", "g1")]] if False else [[("a", "g1"), ("b", "g2")]],
            id="matchAttribute backtracks",
        ),
        pytest.param(
            [claim("c", req("a"), req("b"), constraints=[DeviceConstraint(match_attribute=f"{GPU}/numa")])],
            [gpu_slice(NODE, gpu("g0", numa=0), gpu("g1"))],
            None,
            id="matchAttribute missing attribute",
        ),
        pytest.param(
            [
                claim(
                    "c",
                    req("a"),
                    req("b"),
                    constraints=[DeviceConstraint(requests=("a",), match_attribute=f"{GPU}/numa")],
                )
            ],
            [gpu_slice(NODE, gpu("g0", numa=0), gpu("g1"))],
            [[("a", "g0"), ("b", "g1")]],
            id="constraint limited to one request",
        ),
        pytest.param(
            [
                claim(
                    "c",
                    DeviceRequest(
                        "r",
                        first_available=(
                            DeviceSubRequest(
                                "big", GPU, ('device.attributes["gpu.example.com"].model == "big"',)
                            ),
                            DeviceSubRequest(
                                "small", GPU, ('device.attributes["gpu.example.com"].model == "small"',)
                            ),
                        ),
                    ),
                )
            ],
            [gpu_slice(NODE, gpu("g0", model="small"))],
            [[("r/small", "g0")]],
            id="firstAvailable falls back",
        ),
        pytest.param(
            [claim("c", req())],
            [gpu_slice(NODE, gpu("old"), generation=1), gpu_slice(NODE, gpu("new"), generation=2)],
            [[("req-0", "new")]],
            id="newest pool generation only",
        ),
    ],
)
def test_allocator(
    claims: list[ResourceClaim], slices: list[ResourceSlice], want: list[list[tuple[str, str]]] | None
) -> None:
    """The allocator picks upstream's devices (first solution in pool and device order)."""
    assert allocate(claims, slices) == want


def test_allocator_skips_allocated_devices() -> None:
    """Devices allocated to other claims are not used again."""
    got = allocate(
        [claim("c", req())], [gpu_slice(NODE, gpu("g0"), gpu("g1"))], allocated={(GPU, NODE, "g0")}
    )
    assert got == [[("req-0", "g1")]]


def test_allocator_class_selector_and_config() -> None:
    """The class's selectors apply, and class then claim configuration land in the allocation."""
    opaque = OpaqueDeviceConfiguration(GPU, {"mode": "shared"})
    cls = DeviceClass(
        GPU,
        selectors=('device.attributes["gpu.example.com"].model == "b"',),
        config=(DeviceClaimConfiguration(opaque=opaque),),
    )
    c = claim("c", req(), config=[DeviceClaimConfiguration(opaque=opaque, requests=("req-0",))])
    alloc = Allocator([c], set(), {GPU: cls}, [gpu_slice(NODE, gpu("g0", model="a"), gpu("g1", model="b"))])
    [result] = alloc.allocate(make_node(NODE).obj()) or []
    assert [r.device for r in result.results] == ["g1"]
    assert [(x.source, x.requests) for x in result.config] == [
        ("FromClass", ("req-0",)),
        ("FromClaim", ("req-0",)),
    ]
    assert result.node_selector == ON_WORKER


def test_allocator_node_selector_and_all_nodes_slices() -> None:
    """Slices selected by node labels or for all nodes serve the node; the allocation carries
    the slice's node selector, or none for all nodes."""
    sel = NodeSelector((NodeSelectorTerm((NodeSelectorRequirement("zone", "In", ("a",)),)),))
    by_label = ResourceSlice("s1", GPU, ResourcePool("p1"), node_selector=sel, devices=(gpu("g0"),))
    everywhere = ResourceSlice("s2", GPU, ResourcePool("p2"), all_nodes=True, devices=(gpu("g1"),))
    c = claim("c", req(count=2))
    alloc = Allocator([c], set(), {GPU: DeviceClass(GPU)}, [by_label, everywhere])
    assert alloc.allocate(make_node(NODE).label("zone", "b").obj()) is None
    [result] = alloc.allocate(make_node(NODE).label("zone", "a").obj()) or []
    assert [r.device for r in result.results] == ["g0", "g1"]
    assert result.node_selector == sel
    alloc = Allocator(
        [claim("c", req())], {(GPU, "p1", "g0")}, {GPU: DeviceClass(GPU)}, [by_label, everywhere]
    )
    [result] = alloc.allocate(make_node(NODE).label("zone", "a").obj()) or []
    assert result.node_selector is None


def test_allocator_all_mode_with_incomplete_pool_is_an_error() -> None:
    """allocationMode All over a pool whose slices are not all published is an error."""
    from schedframe.plugins.dynamic_resources._allocator import AllocationError

    alloc = Allocator(
        [claim("c", req(mode="All"))], set(), {GPU: DeviceClass(GPU)}, [gpu_slice(NODE, gpu("g0"), count=2)]
    )
    with pytest.raises(
        AllocationError, match=r"asks for all devices, but resource pool .* is currently being updated"
    ):
        alloc.allocate(make_node(NODE).obj())


@pytest.mark.parametrize(
    ("expression", "want"),
    [
        pytest.param('semver("1.2.3").isGreaterThan(semver("1.10.0"))', False, id="semver"),
        pytest.param(
            'device.attributes["gpu.example.com"].driverVersion.isLessThan(semver("2.0.0"))',
            True,
            id="version attribute",
        ),
        pytest.param('quantity("1Gi").isGreaterThan(quantity("1000Mi"))', True, id="quantity isGreaterThan"),
        pytest.param(
            'quantity("500m").add(quantity("500m")).asInteger() == 1', True, id="quantity arithmetic"
        ),
        pytest.param('isQuantity("1Ki") && !isQuantity("1x")', True, id="isQuantity"),
        pytest.param('"other.example.com" in device.attributes', False, id="unknown domain"),
    ],
)
def test_cel_environment(expression: str, want: bool) -> None:
    """Upstream's CEL helpers for device selectors evaluate as in Kubernetes."""
    from schedframe.plugins.dynamic_resources import _cel

    d = Device("g", attributes={"driverVersion": DeviceAttribute(version="1.5.0")})
    act = _cel.device_activation(GPU, d.attributes, d.capacity)
    assert _cel.compile_selector(expression).matches(act) is want


def test_cel_errors_name_the_selector() -> None:
    """A compile error and a non-bool result are CEL errors of the claim's selector."""
    c = claim(
        "c",
        req(
            selectors=[
                "device.driver ==",
            ]
        ),
    )
    alloc = Allocator([c], set(), {GPU: DeviceClass(GPU)}, [gpu_slice(NODE, gpu("g0"))])
    from schedframe.plugins.dynamic_resources._allocator import AllocationError

    with pytest.raises(AllocationError, match=r"^claim default/c: selector #0: CEL compile error"):
        alloc.allocate(make_node(NODE).obj())
    c = claim("c", req(selectors=["device.driver"]))
    alloc = Allocator([c], set(), {GPU: DeviceClass(GPU)}, [gpu_slice(NODE, gpu("g0"))])
    with pytest.raises(AllocationError, match=r"^claim default/c: selector #0: CEL runtime error"):
        alloc.allocate(make_node(NODE).obj())


def test_cel_without_the_extra(monkeypatch: pytest.MonkeyPatch) -> None:
    """Without cel-python, a claim using a CEL selector gets an ERROR naming the 'dra' extra."""
    import builtins

    from schedframe.plugins.dynamic_resources import _cel

    real_import = builtins.__import__

    def no_celpy(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "celpy":
            raise ImportError("no celpy")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_celpy)
    _cel.compile_selector.cache_clear()
    try:
        plugin, _ = make_plugin([break_cel_in_claim(PENDING_CLAIM), DEVICE_CLASS, WORKER_SLICE])
        _, _, filtered = run_cycle(plugin, POD_WITH_CLAIM_NAME, [node(NODE)])
        status = filtered[NODE]
        assert status is not None
        assert status.code is Code.ERROR
        assert "'dra' extra" in status.message
        # claims without selectors need no CEL at all
        plugin, _ = make_plugin([PENDING_CLAIM, DEVICE_CLASS, WORKER_SLICE])
        assert run_cycle(plugin, POD_WITH_CLAIM_NAME, [node(NODE)])[2] == {NODE: None}
    finally:
        monkeypatch.undo()
        _cel.compile_selector.cache_clear()


# --------------------------------------------------------------------------------------------
# In the scheduler

MANIFESTS = """
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata: {name: gpu.example.com}
spec:
  selectors:
  - cel: {expression: 'device.driver == "gpu.example.com"'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: n1-gpus}
spec:
  driver: gpu.example.com
  nodeName: n1
  pool: {name: n1, generation: 0, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {model: {string: a100}}, capacity: {memory: {value: 40Gi}}}
  - {name: gpu-1, attributes: {model: {string: a100}}, capacity: {memory: {value: 40Gi}}}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: one-gpu, namespace: default}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel: {expression: 'device.capacity["gpu.example.com"].memory.compareTo(quantity("32Gi")) >= 0'}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata: {name: shared, namespace: default}
spec:
  devices:
    requests:
    - name: gpu
      exactly: {deviceClassName: gpu.example.com}
"""


def gpu_pod(name: str, **source: str) -> Pod:
    return (
        make_pod(name, NS).req(cpu="100m").obj().evolve(resource_claims=(PodResourceClaim("gpu", **source),))
    )


def test_scheduler_allocates_template_and_shared_claims() -> None:
    """End to end: template claims get a GPU each, a shared claim is allocated once and
    reserved for both pods, and a pod finding no free GPU stays pending with upstream's reason."""
    nodes = [
        make_node("n1").capacity(cpu="8", memory="8Gi", pods=110).obj(),
        make_node("n2").capacity(cpu="8", memory="8Gi", pods=110).obj(),
    ]
    sched = Scheduler(objects=load_manifests(MANIFESTS))
    for n in nodes:
        sched.add_node(n)
    sched.add_pod(gpu_pod("a", resource_claim_template_name="one-gpu"))
    sched.add_pod(gpu_pod("s1", resource_claim_name="shared"))
    sched.add_pod(gpu_pod("s2", resource_claim_name="shared"))
    sched.add_pod(gpu_pod("b", resource_claim_template_name="one-gpu"))
    sched.run_until_idle()
    assert sched.node_of("default/a") == "n1"
    assert sched.node_of("default/s1") == sched.node_of("default/s2") == "n1"
    assert sched.node_of("default/b") is None
    [pending] = [p for p in sched.pending() if p.pod.name == "b"]
    assert "cannot allocate all claims" in pending.message
    claims = {c.name: c for c in sched.objects.list(ResourceClaim)}
    shared = claims["shared"]
    assert shared.allocation is not None
    assert [r.device for r in shared.allocation.results] == ["gpu-1"]
    assert [r.name for r in shared.reserved_for] == ["s1", "s2"]
    generated = claims[dra.generated_claim_name(gpu_pod("a"), "gpu")]
    assert generated.allocation is not None
    assert [r.device for r in generated.allocation.results] == ["gpu-0"]
    assert FINALIZER in generated.finalizers


def test_pod_manifest_claims_round_trip() -> None:
    """spec.resourceClaims, status.resourceClaimStatuses and containers' resources.claims are
    read and written back unchanged."""
    manifest: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": "p", "namespace": "default"},
        "spec": {
            "schedulerName": "default-scheduler",
            "containers": [{"name": "c", "resources": {"claims": [{"name": "gpu", "request": "r"}]}}],
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": "t"}],
        },
        "status": {
            "phase": "Pending",
            "resourceClaimStatuses": [{"name": "gpu", "resourceClaimName": "p-gpu-abcde"}],
        },
    }
    pod = Pod.from_manifest(manifest)
    assert pod.resource_claims == (PodResourceClaim("gpu", resource_claim_template_name="t"),)
    assert pod.resource_claim_statuses == (PodResourceClaimStatus("gpu", "p-gpu-abcde"),)
    assert pod.containers[0].claims[0].request == "r"
    assert pod.to_manifest() == manifest


_: Callable[..., Any] = allocate


# --------------------------------------------------------------------------------------------
# Args


def test_args_defaults_and_round_trip() -> None:
    """filterTimeout defaults to 10s and bindingTimeout to 10m; durations read as Go writes them."""
    assert encode_args(dra.DynamicResourcesArgs()) == {"filterTimeout": "10s", "bindingTimeout": "10m0s"}
    args = decode_args(dra.DynamicResourcesArgs, {"filterTimeout": "1m30.5s", "bindingTimeout": "2m"})
    assert (args.filter_timeout, args.binding_timeout) == (90.5, 120.0)
    assert decode_args(dra.DynamicResourcesArgs, encode_args(args)) == args
    assert decode_args(dra.DynamicResourcesArgs, {"filterTimeout": "0"}).filter_timeout == 0


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param(
            {"filterTimeout": "-1s"},
            r'filterTimeout: Invalid value: "-1s": must be zero or positive',
            id="negative",
        ),
        pytest.param({"filterTimeout": "ten"}, r"filterTimeout: invalid duration 'ten'", id="malformed"),
        pytest.param({"filterTimeout": 10}, r"filterTimeout: must be a duration string", id="not a string"),
        pytest.param(
            {"bindingTimeout": "500ms"},
            r'bindingTimeout: Invalid value: "500ms": must be at least 1s',
            id="binding timeout too short",
        ),
        pytest.param({"timeout": "1s"}, r"timeout: unknown field", id="unknown field"),
    ],
)
def test_args_errors(data: dict[str, Any], match: str) -> None:
    """Bad args raise PluginArgsError naming the field."""
    from schedframe import PluginArgsError

    with pytest.raises(PluginArgsError, match=match):
        dra.new(data, cast(Handle, SimpleNamespace(objects=ObjectStore())))


def test_new_rejects_other_args_types() -> None:
    """The factory names the args type it wants."""
    from schedframe import PluginArgsError

    with pytest.raises(PluginArgsError, match="want args of type DynamicResourcesArgs, got int"):
        dra.new(3, cast(Handle, SimpleNamespace(objects=ObjectStore())))


def test_filter_timeout() -> None:
    """A device search running past filterTimeout rejects the node with upstream's reason; with
    the timeout disabled the same search runs to its end."""
    devices = [gpu(f"g{i}", numa=i) for i in range(300)]
    c = ResourceClaim(
        CLAIM_NAME,
        NS,
        owner_references=(OWNER,),
        requests=(DeviceRequest("req-1", exactly=ExactDeviceRequest(GPU, count=2)),),
        constraints=(DeviceConstraint(match_attribute=f"{GPU}/numa"),),
    )
    objects = [c, DeviceClass(GPU), gpu_slice(NODE, *devices)]
    store = ObjectStore(objects)
    handle = cast(Handle, SimpleNamespace(objects=store))
    plugin = dra.new({"filterTimeout": "1ns"}, handle)
    _, _, filtered = run_cycle(plugin, POD_WITH_CLAIM_NAME, [node(NODE)])
    assert filtered == {NODE: unresolvable(dra.REASON_TIMED_OUT)}
    plugin = dra.new({"filterTimeout": "0s"}, handle)
    _, _, filtered = run_cycle(plugin, POD_WITH_CLAIM_NAME, [node(NODE)])
    assert filtered == {NODE: unresolvable(dra.REASON_CANNOT_ALLOCATE)}


def test_no_device_is_allocated_twice() -> None:
    """However pods with claims arrive, every device ends up in at most one allocation, and every
    bound pod's claims are allocated on its node and reserved for it."""
    import random

    rng = random.Random(7)
    slices = [
        ResourceSlice(
            f"n{i}-gpus",
            GPU,
            ResourcePool(f"n{i}"),
            node_name=f"n{i}",
            devices=tuple(gpu(f"g{j}", numa=j % 2) for j in range(4)),
        )
        for i in range(3)
    ]
    templates = [
        ResourceClaimTemplate("one", NS, requests=(req(),)),
        ResourceClaimTemplate(
            "pair",
            NS,
            requests=(req("a"), req("b")),
            constraints=(DeviceConstraint(match_attribute=f"{GPU}/numa"),),
        ),
        ResourceClaimTemplate("three", NS, requests=(req(count=3),)),
    ]
    sched = Scheduler(objects=[DeviceClass(GPU), *slices, *templates])
    for i in range(3):
        sched.add_node(make_node(f"n{i}").capacity(cpu="64", memory="64Gi", pods=110).obj())
    for k in range(12):
        t = rng.choice(templates)
        sched.add_pod(
            make_pod(f"p{k}", NS)
            .obj()
            .evolve(resource_claims=(PodResourceClaim("gpu", resource_claim_template_name=t.name),))
        )
    sched.run_until_idle()
    seen: set[tuple[str, str]] = set()
    bound = 0
    for c in sched.objects.list(ResourceClaim):
        if c.allocation is None:
            assert not c.reserved_for
            continue
        [owner] = c.reserved_for
        node_name = sched.node_of(f"{NS}/{owner.name}")
        assert node_name is not None
        bound += 1
        for r in c.allocation.results:
            assert r.pool == node_name
            assert (r.pool, r.device) not in seen
            seen.add((r.pool, r.device))
    assert bound == sum(1 for k in range(12) if sched.node_of(f"{NS}/p{k}") is not None)
    assert len(seen) <= 12
    assert bound >= 4


def test_scheduler_retries_after_postfilter_deallocation() -> None:
    """A claim allocated for a node the pod cannot use is deallocated by PostFilter; that claim
    update requeues the pod (as the informer event does upstream), which then allocates it anew."""
    sched = Scheduler(objects=[ALLOCATED_CLAIM_WITH_WRONG_TOPOLOGY, DEVICE_CLASS, WORKER_SLICE])
    sched.add_node(make_node(NODE).capacity(cpu="8", memory="8Gi", pods=110).obj())
    sched.add_pod(POD_WITH_CLAIM_NAME)
    summary = sched.run_until_idle()
    assert (summary.scheduled, summary.failed) == (1, 1)
    assert sched.node_of(f"{NS}/{POD_NAME}") == NODE
    claim = sched.objects.get(ResourceClaim, CLAIM_NAME, NS)
    assert claim is not None
    assert claim.allocation is not None
    assert claim.allocation.node_selector == ON_WORKER
    assert claim.reserved_for == RESERVED_FOR_POD


def test_object_store_watchers() -> None:
    """ObjectStore.watch sees adds, replacements and removals, except those made with
    notify=False."""
    store = ObjectStore()
    seen: list[tuple[Any, Any]] = []
    store.watch(lambda old, new: seen.append((old, new)))
    store.add(OTHER_CLAIM)
    store.add(OTHER_ALLOCATED_CLAIM)
    store.add(PENDING_CLAIM, notify=False)
    store.remove(OTHER_CLAIM)
    store.remove(OTHER_CLAIM)  # absent: no event
    store.remove(PENDING_CLAIM, notify=False)
    assert seen == [(None, OTHER_CLAIM), (OTHER_CLAIM, OTHER_ALLOCATED_CLAIM), (OTHER_ALLOCATED_CLAIM, None)]


def test_threaded_pods_sharing_a_claim() -> None:
    """In threaded mode, pods sharing one claim all bind: the ones finding the allocation in
    flight wait and are requeued by the claim update PreBind writes; every pod is reserved once."""
    sched = Scheduler(objects=load_manifests(MANIFESTS), threaded=True)
    try:
        sched.add_node(make_node("n1").capacity(cpu="8", memory="8Gi", pods=110).obj())
        for i in range(6):
            sched.add_pod(gpu_pod(f"s{i}", resource_claim_name="shared"))
        sched.run_until_idle()
        assert [sched.node_of(f"{NS}/s{i}") for i in range(6)] == ["n1"] * 6
        claim = sched.objects.get(ResourceClaim, "shared", NS)
        assert claim is not None
        assert sorted(r.name for r in claim.reserved_for) == [f"s{i}" for i in range(6)]
    finally:
        sched.close()


@pytest.mark.parametrize(
    ("change", "want"),
    [
        pytest.param(
            lambda c: c.evolve(allocation=ALLOCATION),
            "got allocated elsewhere in the meantime",
            id="allocated elsewhere",
        ),
        pytest.param(deleted, "got deleted in the meantime", id="deleted"),
    ],
)
def test_prebind_conflicts(change: Callable[[ResourceClaim], ResourceClaim], want: str) -> None:
    """PreBind fails with an ERROR when the claim changed under the in-flight allocation, and the
    allocation is no longer in flight."""
    plugin, store = make_plugin([PENDING_CLAIM, DEVICE_CLASS, WORKER_SLICE])
    state, _, _ = run_cycle(plugin, POD_WITH_CLAIM_NAME, [node(NODE)])
    assert plugin.reserve(state, POD_WITH_CLAIM_NAME, NODE) is None
    store.add(change(PENDING_CLAIM))
    status = plugin.pre_bind(state, POD_WITH_CLAIM_NAME, NODE)
    assert status == error(f"claim default/my-pod-my-resource {want}")
    assert plugin._in_flight == {}


@pytest.mark.parametrize(
    ("release", "words"),
    [
        ("1.36", ("no new claims to deallocate, ", "still not schedulable, ")),
        ("1.37", ("", "")),
    ],
)
def test_post_filter_words_per_release(release: str, words: tuple[str, str]) -> None:
    """Up to 1.36 DynamicResources' PostFilter puts a reason into every unschedulable pod's
    message, with claims or without; 1.37 says nothing when it deallocates nothing."""
    without_claims, with_claims = words
    objects = [
        DEVICE_CLASS,
        ResourceClaim("wants-gpu", requests=(DeviceRequest("gpu", ExactDeviceRequest(CLASS)),)),
    ]
    sched = Scheduler(objects=objects, kubernetes_version=release)
    sched.add_node(make_node("n1").capacity(cpu="2", memory="4Gi", pods=10).obj())
    sched.add_pod(make_pod("big").req(cpu="4").obj())
    sched.add_pod(make_pod("gpu").req(cpu="1").obj().evolve(
        resource_claims=(PodResourceClaim("gpu", resource_claim_name="wants-gpu"),)))
    sched.run_until_idle()
    messages = {p.pod.name: p.message for p in sched.pending()}
    assert messages["big"] == (
        "0/1 nodes are available: 1 Insufficient cpu. "
        f"{without_claims}preemption: 0/1 nodes are available: "
        "1 Preemption is not helpful for scheduling."
    )
    assert messages["gpu"] == (
        "0/1 nodes are available: 1 cannot allocate all claims. "
        f"{with_claims}preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."
    )
