"""Tests for Cache (upstream backend/cache/cache_test.go) and its incremental snapshots."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import Node, NodeInfo, Pod
from schedframe.api import ContainerPort, Resources
from schedframe.api.objects import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from schedframe.cache import ImageStateSummary
from schedframe.cache.cache import Cache, CacheDump
from schedframe.cache.snapshot import NodeTree, Snapshot
from schedframe.errors import CacheError
from schedframe.testing import make_node, make_pod, selector

MB = 1024 * 1024
REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"


def _port(port: int, ip: str = "127.0.0.1") -> ContainerPort:
    return ContainerPort(container_port=port, host_port=port, host_ip=ip, protocol="TCP")


def _pod(name: str, node: str = "node", cpu: str | None = None, memory: str | None = None,
         *ports: ContainerPort, **extra: Any) -> Pod:
    """A pod like upstream's makeBasePod: uid = name, one container with these requests."""
    return (make_pod(name, "node_info_cache_test").uid(name).node(node)
            .container("pause", cpu=cpu, memory=memory, ports=ports, **extra).obj())


def _state(info: NodeInfo | None) -> tuple[Any, ...] | None:
    """Everything a NodeInfo aggregates, comparable with == (None stays None)."""
    if info is None:
        return None
    return (
        info.node,
        [p.pod for p in info.pods],
        [p.pod.uid for p in info.pods_with_affinity],
        [p.pod.uid for p in info.pods_with_required_anti_affinity],
        info.requested,
        info.non_zero_requested,
        info.allocatable,
        info.used_ports.as_dict(),
        dict(info.image_states),
    )


def _expected(pods: list[Pod], node: Node | None = None) -> tuple[Any, ...] | None:
    """The state of a NodeInfo holding exactly *pods* (and *node*)."""
    return _state(NodeInfo(node, pods))


def _view(snap: Snapshot) -> list[tuple[str, Any]]:
    """A snapshot as comparable data: node order and each NodeInfo's state."""
    return [(info.name, _state(info)) for info in snap.list()]


def _check_snapshot(cache: Cache, snap: Snapshot) -> None:
    """*snap* (incrementally updated) equals a snapshot built from scratch from the cache."""
    fresh = cache.snapshot()
    assert _view(snap) == _view(fresh)
    assert [i.name for i in snap.have_pods_with_affinity_list()] == [
        i.name for i in fresh.have_pods_with_affinity_list()]
    assert [i.name for i in snap.have_pods_with_required_anti_affinity_list()] == [
        i.name for i in fresh.have_pods_with_required_anti_affinity_list()]
    for info in (*snap.have_pods_with_affinity_list(), *snap.have_pods_with_required_anti_affinity_list()):
        assert snap.get(info.name) is info  # the snapshot's own NodeInfos, not earlier ones
    for info in snap.list():
        assert snap.get(info.name) is info
    assert snap.num_nodes() == len(cache.nodes())


P80 = _port(80)
P8080 = _port(8080)
BASE_PODS = [
    _pod("test-resource-request-and-port-0", "node", "100m", "500", P80),
    _pod("test-resource-request-and-port-1", "node", "100m", "500", P80),
    _pod("test-resource-request-and-port-2", "node", "200m", "1Ki", P8080),
    _pod("test-nonzero-request", "node", None, None, P80),
    _pod("test-extended-resource-1", "node", "100m", "500", P80, **{"example.com/foo": "3"}),
    _pod("test-extended-resource-2", "node", "200m", "1Ki", P8080, **{"example.com/foo": "5"}),
    _pod("test-extended-key", "node", "100m", "500", ContainerPort(container_port=0)),
]


@pytest.mark.parametrize(
    ("pods", "want_requested", "want_non_zero", "want_ports"),
    [
        pytest.param(BASE_PODS[:1], Resources(100, 500), Resources(100, 500), {"127.0.0.1": {("TCP", 80)}},
                     id="one pod with resource request and used ports"),
        pytest.param(BASE_PODS[1:3], Resources(300, 1524), Resources(300, 1524),
                     {"127.0.0.1": {("TCP", 80), ("TCP", 8080)}}, id="requests and ports of two pods add up"),
        pytest.param(BASE_PODS[3:4], Resources(),
                     Resources(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST),
                     {"127.0.0.1": {("TCP", 80)}}, id="pod without resource request"),
        pytest.param(BASE_PODS[4:5], Resources(100, 500, scalar={"example.com/foo": 3}), Resources(100, 500),
                     {"127.0.0.1": {("TCP", 80)}}, id="one pod with extended resource"),
        pytest.param(BASE_PODS[4:6], Resources(300, 1524, scalar={"example.com/foo": 8}),
                     Resources(300, 1524), {"127.0.0.1": {("TCP", 80), ("TCP", 8080)}},
                     id="two pods with extended resources"),
        pytest.param(BASE_PODS[6:7], Resources(100, 500), Resources(100, 500), {},
                     id="container port without host port"),
    ],
)
def test_assume_pod(pods, want_requested, want_non_zero, want_ports):
    """Assumed pods are aggregated on their node; assuming twice fails; forgetting removes them."""
    cache = Cache()
    for p in pods:
        cache.assume_pod(p)
        with pytest.raises(CacheError, match=r"is already in the cache \(assumed\), so it cannot be assumed"):
            cache.assume_pod(p)
    info = cache.node_info("node")
    assert info is not None
    assert [x.pod for x in info.pods] == pods
    assert (info.requested, info.non_zero_requested) == (want_requested, want_non_zero)
    assert info.used_ports.as_dict() == want_ports
    assert all(cache.is_assumed(p) for p in pods)
    for p in pods:
        cache.forget_pod(p)
        assert not cache.is_assumed(p)
        assert cache.get_pod(p) is None
    assert cache.node_info("node") is None
    assert cache.node_count() == 0


def test_add_pod_confirms_assumed_pod():
    """Adding an assumed pod confirms it; adding it again fails; the other assumed pod is forgotten."""
    p0, p1 = _pod("test-1", "node", "100m", "500", P80), _pod("test-2", "node", "200m", "1Ki", P8080)
    cache = Cache()
    cache.assume_pod(p0)
    cache.assume_pod(p1)
    cache.add_pod(p0)
    with pytest.raises(CacheError, match="was already added to the cache; use update_pod"):
        cache.add_pod(p0)
    assert not cache.is_assumed(p0)
    assert cache.is_assumed(p1)
    cache.forget_pod(p1)
    assert _state(cache.node_info("node")) == _expected([p0])


def test_add_pod_refreshes_the_assumed_pod_object():
    """add_pod replaces the assumed pod object with the confirmed one in the NodeInfo."""
    p1 = _pod("test-1", "node1", "100m", "500", ContainerPort(container_port=80, host_port=80))
    p2 = p1.evolve(conditions=(*p1.conditions, make_pod().condition("PodScheduled").obj().conditions[0]))
    cache = Cache()
    cache.assume_pod(p1)
    cache.add_pod(p2)
    info = cache.node_info("node1")
    assert info is not None
    assert info.pods[0].pod is p2
    assert info.used_ports.as_dict() == {"0.0.0.0": {("TCP", 80)}}
    assert cache.get_pod(p1.uid) is p2


def test_add_pod_replaces_assumed_pod_on_another_node():
    """A pod assumed on one node but added on another moves there; later updates apply there."""
    assumed = _pod("test-1", "assumed-node", "100m", "500", _port(80, ""))
    added = _pod("test-1", "actual-node", "100m", "500", _port(80, ""))
    updated = _pod("test-1", "actual-node", "200m", "500", _port(90, ""))
    cache = Cache()
    cache.assume_pod(assumed)
    cache.add_pod(added)
    cache.update_pod(added, updated)
    assert cache.node_info("assumed-node") is None
    assert _state(cache.node_info("actual-node")) == _expected([updated])
    info = cache.node_info("actual-node")
    assert info is not None
    assert info.used_ports.as_dict() == {"0.0.0.0": {("TCP", 90)}}


def test_dump():
    """dump() copies every NodeInfo and the set of assumed pods."""
    p0, p1 = _pod("test-1", "node", "100m", "500", P80), _pod("test-2", "node", "200m", "1Ki", P80)
    cache = Cache()
    cache.assume_pod(p0)
    cache.assume_pod(p1)
    cache.add_pod(p0)
    cache.finish_binding(p1)
    dump = cache.dump()
    assert isinstance(dump, CacheDump)
    assert list(dump.nodes) == ["node"]
    assert _state(dump.nodes["node"]) == _state(cache.node_info("node"))
    assert dump.assumed_pods == frozenset({p1.uid})
    assert dump.binding_finished == frozenset({p1.uid})
    dump.nodes["node"].remove_pod(p0)
    assert _state(cache.node_info("node")) == _expected([p1, p0])


def test_update_pod():
    """update_pod replaces the pod and its aggregates, back and forth."""
    v1 = _pod("test", "node", "100m", "500", P80)
    v2 = _pod("test", "node", "200m", "1Ki", P8080)
    cache = Cache()
    cache.add_pod(v1)
    cache.update_pod(v1, v2)
    assert _state(cache.node_info("node")) == _expected([v2])
    cache.update_pod(v2, v1)
    assert _state(cache.node_info("node")) == _expected([v1])


def test_update_pod_moves_between_nodes():
    """A pod updated onto another node leaves the first node and lands on the second."""
    cache = Cache()
    cache.add_node(make_node("a").obj())
    cache.add_node(make_node("b").obj())
    old = _pod("p", "a", "1")
    new = old.evolve(node_name="b")
    cache.add_pod(old)
    cache.update_pod(old, new)
    a, b = cache.node_info("a"), cache.node_info("b")
    assert a is not None
    assert a.pods == []
    assert b is not None
    assert [p.pod for p in b.pods] == [new]
    assert cache.get_pod(new) is new


@pytest.mark.parametrize("assume", [pytest.param(True, id="assumed"), pytest.param(False, id="added")])
def test_update_pod_and_get(assume):
    """get_pod returns the latest pod; unknown pods cannot be updated."""
    v1 = _pod("test", "node", "100m", "500", P80)
    v2 = _pod("test", "node", "200m", "1Ki", P8080)
    cache = Cache()
    assert cache.get_pod(v2) is None
    with pytest.raises(CacheError, match="is not in the cache, so it cannot be updated; add it first"):
        cache.update_pod(v1, v2)
    if assume:
        cache.assume_pod(v1)
        assert cache.get_pod(v1.uid) is v1
    else:
        cache.add_pod(v1)
        cache.update_pod(v1, v2)
        assert cache.get_pod(v1.uid) is v2


@pytest.mark.parametrize(
    ("setup", "call", "match"),
    [
        pytest.param("assume", lambda c, p: c.update_pod(p, p),
                     r"is assumed; it must be added \(its binding confirmed\) before it can be updated",
                     id="update an assumed pod"),
        pytest.param("add", lambda c, p: c.update_pod(p, p.evolve(uid="other")),
                     "are different pods \\(uids differ\\)", id="update to another uid"),
        pytest.param("add", lambda c, p: c.update_pod(p, p.evolve(node_name="")),
                     "has no node_name, so it cannot be updated", id="update to an unbound pod"),
        pytest.param("add", lambda c, p: c.add_pod(p),
                     "was already added to the cache", id="add twice"),
        pytest.param("add", lambda c, p: c.assume_pod(p),
                     r"is already in the cache \(added\), so it cannot be assumed", id="assume an added pod"),
        pytest.param("none", lambda c, p: c.remove_pod(p),
                     "is not in the cache, so it cannot be removed", id="remove an unknown pod"),
        pytest.param("none", lambda c, p: c.forget_pod(p),
                     "is not in the cache, so it cannot be forgotten", id="forget an unknown pod"),
        pytest.param("add", lambda c, p: c.forget_pod(p),
                     r"is not assumed \(its binding was confirmed\), so it cannot be forgotten",
                     id="forget an added pod"),
        pytest.param("assume", lambda c, p: c.forget_pod(p.evolve(node_name="elsewhere")),
                     "was assumed on node 'node' but is being forgotten for node 'elsewhere'",
                     id="forget on another node"),
        pytest.param("none", lambda c, p: c.assume_pod(p.evolve(node_name="")),
                     "has no node_name, so it cannot be assumed", id="assume an unbound pod"),
        pytest.param("none", lambda c, p: c.add_pod(p.evolve(node_name="")),
                     "has no node_name, so it cannot be added", id="add an unbound pod"),
        pytest.param("none", lambda c, p: c.remove_node("ghost"),
                     "node 'ghost' is not in the cache, so it cannot be removed",
                     id="remove an unknown node"),
    ],
)
def test_invalid_transitions(setup, call, match):
    """Impossible transitions raise CacheError naming the pod and what to do, and change nothing."""
    p = _pod("p", "node", "1")
    cache = Cache()
    if setup == "assume":
        cache.assume_pod(p)
    elif setup == "add":
        cache.add_pod(p)
    before = cache.dump()
    with pytest.raises(CacheError, match=match) as err:
        call(cache, p)
    assert isinstance(err.value, RuntimeError)
    after = cache.dump()
    assert {k: _state(v) for k, v in after.nodes.items()} == {k: _state(v) for k, v in before.nodes.items()}
    assert after.assumed_pods == before.assumed_pods


def test_error_names_the_pod():
    """Error messages name the pod by namespace/name and uid."""
    with pytest.raises(CacheError, match=r"^pod node_info_cache_test/p \(uid p\) is not in the cache"):
        Cache().remove_pod(_pod("p"))


def test_ephemeral_storage():
    """Ephemeral storage requests are accounted; removing the pod removes it from the cache."""
    pod = make_pod("pod-with-ephemeral-storage", "default-namespace").uid("e").node("node").req(
        ephemeral_storage="500").obj()
    cache = Cache()
    cache.add_pod(pod)
    info = cache.node_info("node")
    assert info is not None
    assert info.requested == Resources(ephemeral_storage=500)
    assert info.non_zero_requested == Resources(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST)
    cache.remove_pod(pod)
    assert cache.get_pod(pod) is None


@pytest.mark.parametrize("assume", [pytest.param(False, id="bound"), pytest.param(True, id="assumed")])
def test_remove_pod(assume):
    """A pod added (or assumed) before its node can be removed; its node becomes the most recent."""
    pod = _pod("test", "node-1", "100m", "500", P80)
    cache = Cache()
    (cache.assume_pod if assume else cache.add_pod)(pod)
    assert _state(cache.node_info("node-1")) == _expected([pod])
    for name in ("node-1", "node-2"):
        cache.add_node(make_node(name).obj())
    cache.remove_pod(pod)
    assert cache.get_pod(pod) is None
    assert not cache.is_assumed(pod)
    with pytest.raises(CacheError, match="is not in the cache, so it cannot be removed"):
        cache.remove_pod(pod)
    assert next(iter(cache.dump().nodes)) == "node-1"


def test_forget_pod():
    """A forgotten pod is neither assumed nor in the cache; forgetting it again is an error."""
    pod = _pod("test", "node", "100m", "500", P80)
    cache = Cache()
    cache.assume_pod(pod)
    assert cache.is_assumed(pod)
    assert cache.is_assumed(pod.uid)
    got = cache.get_pod(pod)
    assert got is not None
    assert (got.namespace, got.name) == (pod.namespace, pod.name)
    cache.forget_pod(pod)
    assert not cache.is_assumed(pod)
    assert cache.get_pod(pod) is None
    with pytest.raises(CacheError, match="is not in the cache, so it cannot be forgotten"):
        cache.forget_pod(pod)


def test_finish_binding():
    """finish_binding marks assumed pods only; the mark goes when the pod is confirmed or forgotten."""
    a, b = _pod("a"), _pod("b")
    cache = Cache()
    cache.finish_binding(a)
    cache.assume_pod(a)
    cache.assume_pod(b)
    cache.finish_binding(a)
    cache.finish_binding(b)
    assert cache.dump().binding_finished == {a.uid, b.uid}
    cache.add_pod(a)
    cache.forget_pod(b)
    assert cache.dump().binding_finished == frozenset()
    cache.finish_binding(a)
    assert cache.dump().binding_finished == frozenset()


IMAGES_1 = {"gcr.io/80:latest": 80 * MB, "gcr.io/80:v1": 80 * MB, "gcr.io/300:latest": 300 * MB,
            "gcr.io/300:v1": 300 * MB}
IMAGES_2 = {"gcr.io/600:latest": 600 * MB, "gcr.io/80:latest": 80 * MB, "gcr.io/900:latest": 900 * MB}


def _images_node(name: str, images: dict[str, int], cpu: str = "1000m", foo: str = "1") -> Node:
    b = make_node(name).capacity(cpu=cpu, memory="100m", **{"example.com/foo": foo}).taint(
        "test-key", "test-value", "PreferNoSchedule")
    for image, size in images.items():
        b.image(image, size)
    return b.obj()


def _image_counts(nodes: list[Node]) -> dict[str, ImageStateSummary]:
    out: dict[str, ImageStateSummary] = {}
    for n in nodes:
        for img in n.images:
            for name in img.names:
                prev = out.get(name)
                out[name] = ImageStateSummary(img.size_bytes, (prev.num_nodes if prev else 0) + 1)
    return out


@pytest.mark.parametrize(
    ("nodes", "pods"),
    [
        pytest.param(
            [_images_node("test-node-1", IMAGES_1), _images_node("test-node-2", IMAGES_2, "500m", "2"),
             _images_node("test-node-3", IMAGES_1), _images_node("test-node-4", IMAGES_2, "500m", "2")],
            [make_pod("pod1").uid("pod1").node("test-node-1")
             .container(cpu="500m", memory="50m", ports=[ContainerPort(80, 80, name="http")]).obj()],
            id="node with one pod"),
        pytest.param(
            [_images_node("test-node-1", IMAGES_1), _images_node("test-node-2", IMAGES_2, "500m", "2"),
             _images_node("test-node-3", IMAGES_1)],
            [make_pod(f"pod{i}").uid(f"pod{i}").node("test-node-1").req(cpu="500m", memory="50m").obj()
             for i in (1, 2)],
            id="node with two pods"),
    ],
)
def test_node_operations(nodes, pods):
    """Add, snapshot, update and remove a node with pods and images (upstream TestNodeOperators)."""
    node = nodes[0]
    counts = _image_counts(nodes)
    cache = Cache()
    for n in nodes:
        cache.add_node(n)
    for p in pods:
        cache.add_pod(p)

    # 1. the node is in the cache with its pods and image states
    info = cache.node_info(node.name)
    assert info is not None
    want = NodeInfo(node, pods)
    assert _state(info)[:-1] == _state(want)[:-1]  # type: ignore[index]
    assert dict(info.image_states) == {name: counts[name] for name in IMAGES_1}
    assert [n.name for n in cache.nodes()] == [n.name for n in nodes]
    gen = info.generation

    # 2. a snapshot holds an equal clone
    snap = cache.snapshot()
    assert snap.num_nodes() == len(nodes)
    cloned = snap.get(node.name)
    assert cloned is not None
    assert _state(cloned) == _state(info)

    # 3. updating the node object bumps the generation and changes allocatable
    updated = _images_node(node.name, IMAGES_1, cpu="500m")
    cache.update_node(node, updated)
    info = cache.node_info(node.name)
    assert info is not None
    assert info.generation > gen
    assert info.allocatable.milli_cpu == 500
    assert info.node is updated
    assert dict(info.image_states) == {name: counts[name] for name in IMAGES_1}
    assert len(cache.nodes()) == len(nodes)

    # 4. the node can be removed while it still has pods: a ghost NodeInfo remains
    cache.remove_node(updated)
    ghost = cache.node_info(node.name)
    assert ghost is not None
    assert ghost.node is None
    assert dict(ghost.image_states) == {}
    with pytest.raises(CacheError, match=f"node '{node.name}' is not in the cache"):
        cache.remove_node(updated)
    assert len(cache.nodes()) == len(nodes) - 1
    other = cache.node_info(nodes[2].name)
    assert other is not None
    remaining = _image_counts(nodes[1:])
    assert dict(other.image_states) == {name: remaining[name] for name in IMAGES_1}
    for p in pods:
        assert cache.get_pod(p) is p
    cache.update_snapshot(snap)
    assert snap.get(node.name) is None
    _check_snapshot(cache, snap)

    # 5. removing the pods of the removed node still works, and the ghost goes
    for p in pods:
        cache.remove_pod(p)
        assert cache.get_pod(p) is None
    assert cache.node_info(node.name) is None
    assert cache.node_count() == len(nodes) - 1


def test_image_states_follow_nodes():
    """num_nodes counts the nodes with each image as nodes come, change and go, in cache and snapshot."""
    cache = Cache()
    snap = Snapshot()
    n1 = make_node("n1").image("x", 10).obj()
    cache.add_node(n1)
    cache.update_snapshot(snap)
    first = snap.get("n1")
    assert first is not None
    assert dict(first.image_states) == {"x": ImageStateSummary(10, 1)}

    cache.add_node(make_node("n2").image("x", 99).image("y", 5).obj())
    cache.update_snapshot(snap)
    for name in ("n1", "n2"):
        info = snap.get(name)
        assert info is not None
        assert info.image_states["x"] == ImageStateSummary(10, 2)
    n1_info = cache.node_info("n1")
    assert n1_info is not None
    assert n1_info.image_states["x"].num_nodes == 2

    cache.update_node(None, make_node("n2").image("y", 5).obj())
    cache.update_snapshot(snap)
    n1_snap, n2_snap = snap.get("n1"), snap.get("n2")
    assert n1_snap is not None
    assert dict(n1_snap.image_states) == {"x": ImageStateSummary(10, 1)}
    assert n2_snap is not None
    assert dict(n2_snap.image_states) == {"y": ImageStateSummary(5, 1)}

    cache.remove_node("n1")
    cache.add_node(make_node("n1").image("x", 42).obj())
    cache.update_snapshot(snap)
    n1_snap = snap.get("n1")
    assert n1_snap is not None
    assert dict(n1_snap.image_states) == {"x": ImageStateSummary(42, 1)}
    _check_snapshot(cache, snap)


def test_node_without_pods_is_dropped_on_removal():
    """Removing a node without pods drops its NodeInfo entirely."""
    cache = Cache()
    cache.add_node(make_node("a").obj())
    cache.remove_node("a")
    assert cache.node_count() == 0
    assert cache.node_info("a") is None
    assert cache.nodes() == []


def test_add_node_twice_replaces_the_object():
    """add_node of a known node replaces its object and moves it if its zone changed."""
    cache = Cache()
    cache.add_node(make_node("a").label(ZONE, "z1").obj())
    cache.add_node(make_node("b").label(ZONE, "z1").obj())
    cache.add_node(make_node("c").label(ZONE, "z1").obj())
    moved = make_node("a").label(ZONE, "z2").obj()
    cache.add_node(moved)
    assert [n.name for n in cache.nodes()] == ["b", "a", "c"]
    assert cache.nodes()[1] is moved
    assert cache.node_count() == 3


def test_counts_and_repr():
    """node_count counts NodeInfos (ghosts included), pod_count the pods; repr summarises."""
    cache = Cache()
    cache.add_node(make_node("a").obj())
    cache.add_pod(_pod("p1", "a"))
    cache.assume_pod(_pod("p2", "b"))
    assert cache.node_count() == 2
    assert cache.pod_count() == 2
    assert [n.name for n in cache.nodes()] == ["a"]
    assert repr(cache) == "Cache(nodes=1, pods=2, assumed=1)"


# -- UpdateSnapshot ---------------------------------------------------------------------------

NODES = [make_node(f"test-node{i}").allocatable(cpu="1000m", memory="100m").obj() for i in range(10)]
UPDATED_NODES = [n.evolve(allocatable={"cpu": "2000m", "memory": "500m"}) for n in NODES]
PODS = [make_pod(f"test-pod{i}", "test-ns").uid(f"test-puid{i}").node(f"test-node{i % 10}").obj()
        for i in range(20)]
UPDATED_PODS = [p.evolve(priority=1000) for p in PODS]
AFFINITY_PODS = [make_pod(f"p-affinity-{i}", "test-ns").uid(f"puid-affinity-{i}")
                 .pod_affinity_exists("foo", "").node(f"test-node{i}").obj() for i in range(2)]


def _run(cache: Cache, snap: Snapshot, op: str, i: int = 0) -> None:
    if op == "addNode":
        cache.add_node(NODES[i])
    elif op == "removeNode":
        cache.remove_node(NODES[i])
    elif op == "updateNode":
        cache.update_node(NODES[i], UPDATED_NODES[i])
    elif op == "addPod":
        cache.add_pod(PODS[i])
    elif op == "assumePod":
        cache.assume_pod(PODS[i])
    elif op == "forgetPod":
        cache.forget_pod(PODS[i])
    elif op == "removePod":
        cache.remove_pod(PODS[i])
    elif op == "updatePod":
        cache.update_pod(PODS[i], UPDATED_PODS[i])
    elif op == "addPodWithAffinity":
        cache.add_pod(AFFINITY_PODS[i])
    elif op == "removePodWithAffinity":
        cache.remove_pod(AFFINITY_PODS[i])
    else:
        assert op == "updateSnapshot"
        cache.update_snapshot(snap)
        _check_snapshot(cache, snap)


@pytest.mark.parametrize(
    ("ops", "want_recency", "want_affinity"),
    [
        pytest.param([], [], 0, id="empty cache"),
        pytest.param([("addNode", 1)], [1], 0, id="single node"),
        pytest.param([("addNode", 1), ("updateSnapshot", 0), ("removeNode", 1), ("addNode", 1)], [1], 0,
                     id="add node, remove it, add it again"),
        pytest.param([("addNode", 1), ("updateSnapshot", 0), ("addNode", 2), ("removeNode", 1)], [2], 0,
                     id="add node and remove it in the same cycle"),
        pytest.param([("addNode", 0), ("updateSnapshot", 0), ("addNode", 1), ("updateSnapshot", 0),
                      ("addNode", 2), ("updateSnapshot", 0), ("addNode", 3)], [3, 2, 1, 0], 0,
                     id="add a few nodes, snapshot in the middle"),
        pytest.param([("addNode", 0), ("addNode", 2), ("addNode", 5), ("addNode", 6)], [6, 5, 2, 0], 0,
                     id="add a few nodes, snapshot at the end"),
        pytest.param([("addNode", 0), ("addNode", 1), ("addNode", 5), ("updateSnapshot", 0),
                      ("updateNode", 1)], [1, 5, 0], 0, id="update some nodes"),
        pytest.param([("addNode", 0), ("addNode", 2), ("addNode", 5), ("addNode", 6), ("updateSnapshot", 0),
                      ("removeNode", 0), ("removeNode", 2), ("removeNode", 5), ("removeNode", 6)], [], 0,
                     id="add a few nodes and remove all of them"),
        pytest.param([("addNode", 0), ("addNode", 2), ("addNode", 5), ("addNode", 6), ("updateSnapshot", 0),
                      ("removeNode", 0), ("removeNode", 6)], [5, 2], 0,
                     id="add a few nodes and remove some of them"),
        pytest.param([("addNode", 2), ("addNode", 5), ("addNode", 6), ("updateSnapshot", 0),
                      ("removeNode", 2), ("removeNode", 5), ("removeNode", 6), ("updateSnapshot", 0),
                      ("addNode", 7), ("addNode", 9)], [9, 7], 0,
                     id="add nodes, remove all, add more"),
        pytest.param([("addNode", 8), ("updateNode", 2), ("updateNode", 8), ("updateSnapshot", 0),
                      ("addNode", 1)], [1, 8, 2], 0, id="update nodes in particular order"),
        pytest.param([("addNode", 0), ("addNode", 2), ("addNode", 8), ("updateSnapshot", 0),
                      ("addPod", 8), ("addPod", 2)], [2, 8, 0], 0, id="add some nodes and some pods"),
        pytest.param([("addNode", 0), ("addPod", 0), ("addNode", 2), ("addNode", 4), ("updatePod", 0)],
                     [0, 4, 2], 0, id="updating a pod moves its node to the front"),
        pytest.param([("addNode", 0), ("addPod", 1), ("updatePod", 1), ("addNode", 1)], [1, 0], 0,
                     id="add pod before its node"),
        pytest.param([("addNode", 0), ("addNode", 1), ("addPod", 1), ("addPod", 11), ("updateSnapshot", 0),
                      ("removeNode", 1), ("updateSnapshot", 0), ("updatePod", 1), ("updatePod", 11),
                      ("removePod", 1), ("removePod", 11)], [0], 0, id="remove node before its pods"),
        pytest.param([("addNode", 0), ("addPodWithAffinity", 0), ("updateSnapshot", 0), ("addNode", 1)],
                     [1, 0], 1, id="add pods with affinity"),
        pytest.param([("addNode", 0), ("addPodWithAffinity", 0), ("updateSnapshot", 0), ("addNode", 1),
                      ("addPodWithAffinity", 1), ("updateSnapshot", 0)], [1, 0], 2,
                     id="add multiple nodes with pods with affinity"),
        pytest.param([("addNode", 0), ("addNode", 1), ("addPodWithAffinity", 0), ("updateSnapshot", 0),
                      ("removePodWithAffinity", 0), ("updateSnapshot", 0)], [0, 1], 0,
                     id="add then remove pods with affinity"),
        pytest.param([("addNode", 0), ("addNode", 2), ("addNode", 4), ("addNode", 8), ("updateSnapshot", 0),
                      ("assumePod", 8), ("assumePod", 0), ("forgetPod", 0), ("updateSnapshot", 0)],
                     [0, 8, 4, 2], 0, id="assume and forget"),
    ],
)
def test_update_snapshot(ops, want_recency, want_affinity):
    """After any sequence of changes the incremental snapshot equals one built from scratch."""
    cache, snap = Cache(), Snapshot()
    for op, i in ops:
        _run(cache, snap, op, i)
    assert list(cache.dump().nodes) == [f"test-node{i}" for i in want_recency]
    assert cache.node_count() == len(want_recency)
    cache.update_snapshot(snap)
    _check_snapshot(cache, snap)
    assert len(snap.have_pods_with_affinity_list()) == want_affinity


ZONE_NODES = [make_node(f"node-{i}").labels({REGION: f"region-{z}", ZONE: f"zone-{z}"}).obj()
              for i, z in enumerate([0, 0, 1, 1, 1, 1, 1, 1])]


@pytest.mark.parametrize(
    ("ops", "want"),
    [
        pytest.param([], [], id="empty cache"),
        pytest.param([0], ["node-0"], id="single node"),
        pytest.param([0, "s", 1], ["node-0", "node-1"], id="two nodes"),
        pytest.param([2, 3, "s", 4, 0], ["node-2", "node-0", "node-3", "node-4"],
                     id="bug 91601: two zones, snapshot in between"),
        pytest.param([2, 3, 4, 5, "s", 6, 0], ["node-2", "node-0", "node-3", "node-4", "node-5", "node-6"],
                     id="bug 91601: one node in another zone"),
        pytest.param([2, "s", 3, 4, "s", 5, 6, 0, 1],
                     ["node-2", "node-0", "node-3", "node-1", "node-4", "node-5", "node-6"],
                     id="bug 91601: two nodes in another zone"),
        pytest.param([2, 1, "s", 3, 4, "s", 5, 6, 0],
                     ["node-2", "node-1", "node-3", "node-0", "node-4", "node-5", "node-6"],
                     id="bug 91601: other zone order"),
    ],
)
def test_snapshot_node_order(ops, want):
    """The snapshot lists nodes round-robin over zones, however the snapshots were interleaved."""
    cache, snap = Cache(), Snapshot()
    for op in ops:
        if op == "s":
            cache.update_snapshot(snap)
        else:
            cache.add_node(ZONE_NODES[op])
    cache.update_snapshot(snap)
    assert [i.name for i in snap.list()] == want
    _check_snapshot(cache, snap)


def test_zone_change_reorders_the_snapshot():
    """A node whose zone label changes moves in the node order at the next update."""
    cache, snap = Cache(), Snapshot()
    for name, zone in (("a", "z1"), ("b", "z1"), ("c", "z2")):
        cache.add_node(make_node(name).label(ZONE, zone).obj())
    cache.update_snapshot(snap)
    assert [i.name for i in snap.list()] == ["a", "c", "b"]
    cache.update_node(None, make_node("a").label(ZONE, "z2").obj())
    cache.update_snapshot(snap)
    assert [i.name for i in snap.list()] == ["b", "c", "a"]


# -- incrementality and isolation -------------------------------------------------------------


class _Counter:
    def __init__(self, monkeypatch: pytest.MonkeyPatch, cls: type, name: str) -> None:
        self.calls = 0
        original = getattr(cls, name)

        def counting(*args: Any, **kwargs: Any) -> Any:
            self.calls += 1
            return original(*args, **kwargs)

        monkeypatch.setattr(cls, name, counting)


def test_update_snapshot_is_incremental(monkeypatch):
    """After one pod is placed, update_snapshot clones one NodeInfo and keeps the node order."""
    cache = Cache()
    for i in range(200):
        cache.add_node(make_node(f"n{i}").label(ZONE, f"z{i % 3}").obj())
        cache.add_pod(_pod(f"p{i}", f"n{i}", "100m"))
    snap = cache.snapshot()
    before = list(snap.list())
    clones = _Counter(monkeypatch, NodeInfo, "clone")
    orders = _Counter(monkeypatch, NodeTree, "names")
    affinity = _Counter(monkeypatch, Snapshot, "_rebuild_affinity_lists")

    cache.update_snapshot(snap)
    assert (clones.calls, orders.calls, affinity.calls) == (0, 0, 0)

    cache.assume_pod(_pod("new", "n7", "1"))
    cache.update_snapshot(snap)
    assert (clones.calls, orders.calls, affinity.calls) == (1, 0, 0)
    after = snap.list()
    changed = [i for i, (x, y) in enumerate(zip(before, after)) if x is not y]
    assert [after[i].name for i in changed] == ["n7"]

    # a node's first pod with affinity: it joins the list at its place, nothing is relisted
    cache.add_pod(make_pod("aff").uid("aff").node("n8").pod_affinity_exists("x", ZONE).obj())
    cache.update_snapshot(snap)
    assert (clones.calls, orders.calls, affinity.calls) == (2, 0, 0)
    assert [i.name for i in snap.have_pods_with_affinity_list()] == ["n8"]
    handed_out = snap.have_pods_with_affinity_list()

    cache.add_pod(make_pod("aff2").uid("aff2").node("n8").pod_affinity_exists("x", ZONE).obj())
    cache.update_snapshot(snap)
    assert (clones.calls, orders.calls, affinity.calls) == (3, 0, 0)
    assert snap.have_pods_with_affinity_list()[0] is snap.get("n8")

    cache.add_pod(make_pod("aff3").uid("aff3").node("n3").pod_affinity_exists("x", ZONE).obj())
    cache.update_snapshot(snap)
    assert [i.name for i in snap.have_pods_with_affinity_list()] == [
        i.name for i in snap.list() if i.name in ("n3", "n8")]  # in the list's order
    assert len(handed_out) == 1  # a list handed out earlier keeps its length
    cache.remove_pod(make_pod("aff3").uid("aff3").node("n3").pod_affinity_exists("x", ZONE).obj())
    cache.update_snapshot(snap)
    assert [i.name for i in snap.have_pods_with_affinity_list()] == ["n8"]
    assert affinity.calls == 0

    cache.add_node(make_node("late").obj())
    cache.update_snapshot(snap)
    assert (clones.calls, orders.calls) == (6, 1)
    _check_snapshot(cache, snap)


def test_snapshot_is_isolated_from_the_cache():
    """Cache changes do not show in a snapshot until it is updated; handed-out NodeInfos never change."""
    cache = Cache()
    cache.add_node(make_node("a").obj())
    cache.add_pod(_pod("p1", "a", "1"))
    snap = cache.snapshot()
    info = snap.get("a")
    assert info is not None
    frozen = _state(info)
    cache.add_pod(_pod("p2", "a", "2"))
    cache.add_node(make_node("b").obj())
    cache.remove_pod(_pod("p1", "a"))
    assert _state(snap.get("a")) == frozen
    assert snap.num_nodes() == 1
    cache.update_snapshot(snap)
    assert _state(info) == frozen
    new_info = snap.get("a")
    assert new_info is not info
    assert new_info is not None
    assert [p.pod.name for p in new_info.pods] == ["p2"]
    assert snap.num_nodes() == 2
    assert snap.generation > 0


def test_ghost_nodes_are_not_in_snapshots():
    """Nodes known only through their pods (never added, or removed) are not listed."""
    cache = Cache()
    cache.add_pod(_pod("p", "unknown", "1"))
    cache.add_node(make_node("gone").obj())
    cache.add_pod(_pod("q", "gone", "1"))
    cache.remove_node("gone")
    snap = cache.snapshot()
    assert snap.num_nodes() == 0
    assert snap.get("unknown") is None
    assert snap.get("gone") is None
    assert cache.node_count() == 2


def test_concurrent_assume_and_forget():
    """Threads assuming, confirming and forgetting pods leave consistent aggregates."""
    cache = Cache()
    for i in range(4):
        cache.add_node(make_node(f"n{i}").obj())
    snap = Snapshot()

    def worker(t: int) -> None:
        for j in range(150):
            p = _pod(f"t{t}-{j}", f"n{j % 4}", "10m")
            cache.assume_pod(p)
            if j % 3:
                cache.add_pod(p)
            else:
                cache.forget_pod(p)

    threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
    for th in threads:
        th.start()
    for _ in range(50):
        cache.update_snapshot(snap)
    for th in threads:
        th.join()
    cache.update_snapshot(snap)
    _check_snapshot(cache, snap)
    assert cache.pod_count() == 4 * 100
    assert sum(i.requested.milli_cpu for i in snap.list()) == 4 * 100 * 10


# -- properties --------------------------------------------------------------------------------

_NODE_NAMES = ["n0", "n1", "n2", "n3", "n4"]
_IMAGE_SIZES = {"img-a": 10, "img-b": 20, "img-c": 30}


def _node_variant(name: str, variant: int) -> Node:
    b = make_node(name).capacity(cpu=str(1 + variant % 3), memory="1Gi", pods=10)
    zone = [None, "z1", "z2", "z3"][variant % 4]
    if zone is not None:
        b.label(ZONE, zone)
    for k, image in enumerate(_IMAGE_SIZES):
        if (variant >> k) & 1:
            b.image(image, _IMAGE_SIZES[image])
    return b.obj()


def _pod_variant(uid: str, node: str, variant: int) -> Pod:
    b = make_pod(uid).uid(uid).node(node).req(cpu=["100m", "1", None][variant % 3],
                                            memory=["1Mi", None][variant % 2])
    if variant % 5 == 1:
        b.pod_affinity_exists("app", ZONE)
    elif variant % 5 == 2:
        b.pod_affinity_exists("app", ZONE, anti=True)
    if variant % 7 == 3:
        b.host_port(8080)
    return b.obj().evolve(labels={"v": str(variant)})


op_st = st.one_of(
    st.tuples(st.sampled_from(["add_node", "update_node"]), st.integers(0, 4), st.integers(0, 15)),
    st.tuples(st.just("remove_node"), st.integers(0, 4), st.just(0)),
    st.tuples(st.sampled_from(["add_pod", "assume_pod", "update_pod"]), st.integers(0, 7),
              st.tuples(st.integers(0, 4), st.integers(0, 20))),
    st.tuples(st.sampled_from(["forget_pod", "remove_pod", "finish_binding"]), st.integers(0, 7), st.just(0)),
    st.tuples(st.just("snapshot"), st.just(0), st.just(0)),
)


@settings(max_examples=150, deadline=None)
@given(ops=st.lists(op_st, max_size=40))
def test_incremental_snapshot_equals_rebuilt(ops):
    """Random operations: the incremental snapshot equals fresh ones; the cache matches a model."""
    cache, snap = Cache(), Snapshot()
    nodes: dict[str, Node] = {}
    pods: dict[str, Pod] = {}
    assumed: set[str] = set()
    handed_out: list[tuple[NodeInfo, Any]] = []
    for op, i, arg in ops:
        if op in ("add_node", "update_node"):
            node = _node_variant(_NODE_NAMES[i], arg)
            cache.add_node(node) if op == "add_node" else cache.update_node(nodes.get(node.name), node)
            nodes[node.name] = node
        elif op == "remove_node":
            name = _NODE_NAMES[i]
            if name in nodes:
                cache.remove_node(nodes.pop(name))
            else:
                with pytest.raises(CacheError, match="is not in the cache"):
                    cache.remove_node(name)
        elif op == "snapshot":
            cache.update_snapshot(snap)
            handed_out.extend((info, _state(info)[:-1]) for info in snap.list())  # type: ignore[index]
        elif op == "finish_binding":
            cache.finish_binding(make_pod(f"p{i}").uid(f"p{i}").obj())
        elif op in ("forget_pod", "remove_pod"):
            uid = f"p{i}"
            cur = pods.get(uid)
            ok = cur is not None and (op == "remove_pod" or uid in assumed)
            target = cur if cur is not None else make_pod(uid).uid(uid).node("n0").obj()
            if ok:
                getattr(cache, op)(target)
                del pods[uid]
                assumed.discard(uid)
            else:
                with pytest.raises(CacheError):
                    getattr(cache, op)(target)
        else:
            node_index, variant = arg
            uid = f"p{i}"
            pod = _pod_variant(uid, _NODE_NAMES[node_index], variant)
            cur = pods.get(uid)
            if op == "assume_pod":
                ok = cur is None
            elif op == "add_pod":
                ok = cur is None or uid in assumed
            else:
                ok = cur is not None and uid not in assumed
            if not ok:
                with pytest.raises(CacheError):
                    cache.update_pod(cur or pod, pod) if op == "update_pod" else getattr(cache, op)(pod)
                continue
            if op == "update_pod":
                assert cur is not None
                cache.update_pod(cur, pod)
            else:
                getattr(cache, op)(pod)
            pods[uid] = pod
            if op == "assume_pod":
                assumed.add(uid)
            else:
                assumed.discard(uid)

    # the cache agrees with the model
    assert cache.pod_count() == len(pods)
    assert {uid for uid in pods if cache.is_assumed(uid)} == assumed
    assert all(cache.get_pod(uid) is p for uid, p in pods.items())
    assert {n.name for n in cache.nodes()} == set(nodes)
    for name, info in cache.dump().nodes.items():
        want_uids = sorted(u for u, p in pods.items() if p.node_name == name)
        assert sorted(p.pod.uid for p in info.pods) == want_uids
        assert info.requested.milli_cpu == sum(p.pod.requests.milli_cpu for p in info.pods)
        assert info.non_zero_requested.memory == sum(p.pod.non_zero_memory for p in info.pods)

    # the incremental snapshot equals fresh ones
    cache.update_snapshot(snap)
    _check_snapshot(cache, snap)
    rebuilt = Snapshot.from_objects(cache.nodes(), pods.values())
    assert [i.name for i in rebuilt.list()] == [i.name for i in snap.list()]
    for a, b in zip(rebuilt.list(), snap.list()):
        sa, sb = _state(a), _state(b)
        assert sa is not None
        assert sb is not None
        assert sorted(p.uid for p in sa[1]) == sorted(p.uid for p in sb[1])
        assert sa[4:] == sb[4:]
        assert len(a.pods_with_affinity) == len(b.pods_with_affinity)

    # NodeInfos handed out earlier never changed (image counts aside, which stay current)
    for info, state in handed_out:
        assert _state(info)[:-1] == state  # type: ignore[index]
        assert all(s.num_nodes >= 0 for s in info.image_states.values())


def test_snapshot_follows_one_cache():
    """A snapshot built elsewhere or updated by another cache starts over with this cache's nodes."""
    first, second = Cache(), Cache()
    for i in range(3):
        first.add_node(make_node(f"a{i}").obj())
    second.add_node(make_node("b0").obj())
    snap = Snapshot.from_objects([make_node("foreign").obj()])
    first.update_snapshot(snap)
    assert [i.name for i in snap.list()] == ["a0", "a1", "a2"]
    second.update_snapshot(snap)
    assert [i.name for i in snap.list()] == ["b0"]
    first.update_snapshot(snap)
    _check_snapshot(first, snap)


def _confirm_shapes() -> list[tuple[str, Pod, Pod]]:
    """(case, assumed pod, bound pod) pairs: the bound one differs only where the case says."""
    plain = make_pod("p").uid("u1").req(cpu="500m", memory="1Gi").obj()
    ported = make_pod("p").uid("u1").req(cpu="500m").host_port(8080).obj()
    anti = make_pod("p").uid("u1").label("app", "a").req(cpu="500m").pod_anti_affinity(
        "kubernetes.io/hostname", selector({"app": "a"})).obj()
    return [
        ("same", plain, plain.evolve(node_name="n1")),
        ("bigger", plain, make_pod("p").uid("u1").req(cpu="2", memory="1Gi").obj().evolve(node_name="n1")),
        ("ports", ported, ported.evolve(node_name="n1")),
        ("anti-affinity", anti, anti.evolve(node_name="n1")),
        ("best-effort", make_pod("p").uid("u1").obj(), make_pod("p").uid("u1").obj().evolve(node_name="n1")),
    ]


@pytest.mark.parametrize("last", [True, False])
@pytest.mark.parametrize("case", [c[0] for c in _confirm_shapes()])
def test_confirming_an_assumed_pod_equals_removing_and_adding_it(case: str, last: bool) -> None:
    """Cache.add_pod of an assumed pod gives the NodeInfo a removal and a fresh add give (pods
    in order, requested amounts, ports, affinity lists), whether or not the pod is the node's
    last one, and whatever differs between the assumed and the bound version."""
    _, assumed, bound = next(c for c in _confirm_shapes() if c[0] == case)
    other = make_pod("q").uid("u2").req(cpu="1").obj().evolve(node_name="n1")

    def build(confirm: bool) -> NodeInfo:
        cache = Cache()
        cache.add_node(make_node("n1").capacity(cpu="8", memory="16Gi", pods=10).obj())
        if not last:
            cache.assume_pod(assumed.evolve(node_name="n1"))
            cache.add_pod(other)
        else:
            cache.add_pod(other)
            cache.assume_pod(assumed.evolve(node_name="n1"))
        if confirm:
            cache.add_pod(bound)
        else:  # what confirming did before: remove, then add
            cache.remove_pod(assumed.evolve(node_name="n1"))
            cache.add_pod(bound)
        assert not cache.is_assumed(bound)
        assert cache.get_pod(bound) is bound
        info = cache.snapshot().get("n1")
        assert info is not None
        return info

    got, want = build(True), build(False)
    assert got.pods == want.pods  # PodInfos: pods and resolved terms
    assert [id(p.pod) for p in got.pods] == [id(p.pod) for p in want.pods]  # the bound version
    assert got.requested == want.requested
    assert got.non_zero_requested == want.non_zero_requested
    assert got.resource_row == want.resource_row
    assert got.used_ports == want.used_ports
    assert [id(p.pod) for p in got.pods_with_affinity] == [id(p.pod) for p in want.pods_with_affinity]
    assert [id(p.pod) for p in got.pods_with_required_anti_affinity] == [
        id(p.pod) for p in want.pods_with_required_anti_affinity]


def test_replace_last_pod_refuses_what_it_cannot_swap() -> None:
    """NodeInfo.replace_last_pod changes nothing (and says False) unless the pod is the last one
    and both versions account alike."""
    info = NodeInfo(make_node("n1").capacity(cpu="8").obj())
    a = make_pod("a").uid("ua").req(cpu="1").obj().evolve(node_name="n1")
    b = make_pod("b").uid("ub").req(cpu="1").obj().evolve(node_name="n1")
    info.add_pod(a)
    info.add_pod(b)
    gen = info.generation
    assert not info.replace_last_pod(a, a.evolve(labels={"x": "y"}))  # not the last pod
    assert not info.replace_last_pod(b, make_pod("b").uid("ub").req(cpu="2").obj())  # more cpu
    assert info.generation == gen
    assert [p.pod for p in info.pods] == [a, b]
    b2 = b.evolve(labels={"x": "y"})
    assert info.replace_last_pod(b, b2)
    assert [p.pod for p in info.pods] == [a, b2]
    assert info.generation > gen
