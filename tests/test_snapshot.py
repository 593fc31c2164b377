"""Tests for Snapshot, its node order (upstream node_tree_test.go) and image states
(upstream snapshot_test.go)."""

from __future__ import annotations

import pytest

from schedframe import Node
from schedframe.cache import ImageStateSummary
from schedframe.cache.snapshot import ImageStates, NodeTree, Snapshot, zone_key
from schedframe.framework import NodeInfoLister, SharedLister
from schedframe.testing import make_node, make_pod, selector

REGION = "topology.kubernetes.io/region"
ZONE = "topology.kubernetes.io/zone"
BETA_REGION = "failure-domain.beta.kubernetes.io/region"
BETA_ZONE = "failure-domain.beta.kubernetes.io/zone"
MB = 1024 * 1024


def _node(name: str, **labels: str) -> Node:
    return make_node(name).labels(labels).obj()


# The nodes of upstream's node_tree_test.go.
ALL_NODES = [
    _node("node-0"),
    _node("node-1", **{REGION: "region-1"}),
    _node("node-2", **{ZONE: "zone-2"}),
    _node("node-3", **{REGION: "region-1", ZONE: "zone-2"}),
    _node("node-4", **{REGION: "region-1", ZONE: "zone-2"}),
    _node("node-5", **{REGION: "region-1", ZONE: "zone-3"}),
    _node("node-6", **{REGION: "region-2", ZONE: "zone-2"}),
    _node("node-7", **{REGION: "region-2", ZONE: "zone-2"}),
    _node("node-8", **{REGION: "region-2", ZONE: "zone-2"}),
    _node("node-9", **{REGION: "region-2", ZONE: "zone-2", BETA_REGION: "region-2", BETA_ZONE: "zone-2"}),
    _node("node-10", **{BETA_REGION: "region-2", BETA_ZONE: "zone-3"}),
]


@pytest.mark.parametrize(
    ("labels", "want"),
    [
        pytest.param({}, "", id="no labels"),
        pytest.param({"other": "x"}, "", id="unrelated labels"),
        pytest.param({REGION: "r"}, "r:\x00:", id="region only"),
        pytest.param({ZONE: "z"}, ":\x00:z", id="zone only"),
        pytest.param({REGION: "r", ZONE: "z"}, "r:\x00:z", id="region and zone"),
        pytest.param({BETA_REGION: "r", BETA_ZONE: "z"}, "r:\x00:z", id="deprecated labels"),
        pytest.param({REGION: "r", ZONE: "z", BETA_REGION: "old-r", BETA_ZONE: "old-z"},
                     "old-r:\x00:old-z", id="deprecated labels win"),
        pytest.param({REGION: "", ZONE: ""}, "", id="empty values"),
    ],
)
def test_zone_key(labels, want):
    """The zone key joins region and zone like upstream GetZoneKey."""
    assert zone_key(_node("n", **labels)) == want


@pytest.mark.parametrize(
    ("nodes", "want"),
    [
        pytest.param(ALL_NODES[:1], {"": ["node-0"]}, id="single node without labels"),
        pytest.param([ALL_NODES[0], ALL_NODES[0]], {"": ["node-0"]}, id="same node twice"),
        pytest.param(ALL_NODES[:4], {"": ["node-0"], "region-1:\x00:": ["node-1"],
                                     ":\x00:zone-2": ["node-2"], "region-1:\x00:zone-2": ["node-3"]},
                     id="nodes with and without labels"),
        pytest.param(ALL_NODES[:7], {"": ["node-0"], "region-1:\x00:": ["node-1"],
                                     ":\x00:zone-2": ["node-2"],
                                     "region-1:\x00:zone-2": ["node-3", "node-4"],
                                     "region-1:\x00:zone-3": ["node-5"],
                                     "region-2:\x00:zone-2": ["node-6"]},
                     id="zones with several nodes"),
        pytest.param(ALL_NODES[9:], {"region-2:\x00:zone-2": ["node-9"], "region-2:\x00:zone-3": ["node-10"]},
                     id="deprecated zone labels"),
    ],
)
def test_node_tree_add(nodes, want):
    """Nodes are grouped by zone key in insertion order; adding a node twice is a no-op."""
    tree = NodeTree()
    for n in nodes:
        tree.add(n)
    assert tree.zones() == want
    assert tree.num_nodes == sum(len(v) for v in want.values())


@pytest.mark.parametrize(
    ("existing", "to_remove", "want", "want_removed"),
    [
        pytest.param(ALL_NODES[:7], ALL_NODES[:1],
                     {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                      "region-1:\x00:zone-2": ["node-3", "node-4"], "region-1:\x00:zone-3": ["node-5"],
                      "region-2:\x00:zone-2": ["node-6"]}, True, id="remove a node without labels"),
        pytest.param(ALL_NODES[:7], ALL_NODES[1:4],
                     {"": ["node-0"], "region-1:\x00:zone-2": ["node-4"], "region-1:\x00:zone-3": ["node-5"],
                      "region-2:\x00:zone-2": ["node-6"]}, True, id="remove from a zone with several nodes"),
        pytest.param(ALL_NODES[:7], ALL_NODES[:7], {}, True, id="remove all nodes"),
        pytest.param([], ALL_NODES[:5], {}, False, id="remove nodes that are not there"),
    ],
)
def test_node_tree_remove(existing, to_remove, want, want_removed):
    """Removing drops the node and an emptied zone; an unknown node reports False."""
    tree = NodeTree(existing)
    for n in to_remove:
        assert tree.remove(n.name) is want_removed
    assert tree.zones() == want


@pytest.mark.parametrize(
    ("existing", "updated", "want", "want_changed"),
    [
        pytest.param(ALL_NODES[:7], _node("node-0", **{REGION: "region-1", ZONE: "zone-2"}),
                     {"region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                      "region-1:\x00:zone-2": ["node-3", "node-4", "node-0"],
                      "region-1:\x00:zone-3": ["node-5"], "region-2:\x00:zone-2": ["node-6"]},
                     True, id="node gains zone labels"),
        pytest.param(ALL_NODES[:1], _node("node-0", **{REGION: "region-1", ZONE: "zone-2"}),
                     {"region-1:\x00:zone-2": ["node-0"]}, True, id="update the only node"),
        pytest.param(ALL_NODES[:1], _node("node-new", **{REGION: "region-1", ZONE: "zone-2"}),
                     {"": ["node-0"], "region-1:\x00:zone-2": ["node-new"]}, True,
                     id="update an unknown node"),
        pytest.param(ALL_NODES[:4], _node("node-3", **{REGION: "region-1", ZONE: "zone-2", "x": "y"}),
                     {"": ["node-0"], "region-1:\x00:": ["node-1"], ":\x00:zone-2": ["node-2"],
                      "region-1:\x00:zone-2": ["node-3"]}, False, id="same zone: no change"),
    ],
)
def test_node_tree_update(existing, updated, want, want_changed):
    """update moves a node whose zone changed to the end of its new zone."""
    tree = NodeTree(existing)
    assert tree.update(updated) is want_changed
    assert tree.zones() == want


@pytest.mark.parametrize(
    ("nodes", "want"),
    [
        pytest.param([], [], id="empty"),
        pytest.param(ALL_NODES[:1], ["node-0"], id="one node"),
        pytest.param(ALL_NODES[:4], ["node-0", "node-1", "node-2", "node-3"], id="four zones"),
        pytest.param(ALL_NODES[:9], ["node-0", "node-1", "node-2", "node-3", "node-5", "node-6", "node-4",
                                     "node-7", "node-8"], id="round robin over zones"),
        pytest.param(ALL_NODES[6:9], ["node-6", "node-7", "node-8"], id="single zone"),
    ],
)
def test_node_tree_names(nodes, want):
    """names() takes one node per zone in turn, zones in first-seen order."""
    assert NodeTree(nodes).names() == want


@pytest.mark.parametrize(
    ("to_add", "to_remove", "ops", "want"),
    [
        pytest.param(ALL_NODES[2:9], ALL_NODES[2:9], "aaarrr", [], id="add and remove all"),
        pytest.param(ALL_NODES[2:9], ALL_NODES[2:9], "aaar", ["node-3", "node-4"], id="add and remove some"),
        pytest.param(ALL_NODES[2:9], ALL_NODES[2:9], "aaarrra", ["node-5"], id="remove three then add"),
        pytest.param([*ALL_NODES[4:9], ALL_NODES[3]], [], "aaaaaa",
                     ["node-4", "node-5", "node-6", "node-3", "node-7", "node-8"],
                     id="add more nodes to an exhausted zone"),
        pytest.param([ALL_NODES[3], ALL_NODES[4], ALL_NODES[6], ALL_NODES[7]], ALL_NODES[3:5], "aaraar",
                     ["node-6", "node-7"], id="remove a zone and add a new one"),
    ],
)
def test_node_tree_operations(to_add, to_remove, ops, want):
    """Interleaved adds and removes keep the round-robin order (upstream multi-operation cases)."""
    tree = NodeTree()
    adds, removes = iter(to_add), iter(to_remove)
    for op in ops:
        if op == "a":
            tree.add(next(adds))
        else:
            tree.remove(next(removes).name)
    assert tree.names() == want
    assert "node-x" not in tree


def test_zone_emptied_and_refilled_goes_last():
    """A zone that empties and comes back is listed after the zones that stayed."""
    a1, b1 = _node("a1", **{ZONE: "a"}), _node("b1", **{ZONE: "b"})
    tree = NodeTree([a1, b1, _node("b2", **{ZONE: "b"})])
    tree.remove("a1")
    tree.add(a1)
    assert tree.names() == ["b1", "a1", "b2"]


# -- Snapshot.from_objects ----------------------------------------------------------------------

POD_WITH_PORT = make_pod("foo", "foo").node("node-0").host_port(8080).obj()
POD_WITH_ANNOTATIONS = make_pod("foo", "ns").node("node-1").annotation("custom", "annotation").obj()
POD_ANTI = (make_pod("baz", "ns").pod_anti_affinity("another", selector({"another": "label"}))
            .node("node-0").obj())
POD_AFF_0 = make_pod("bar", "ns").pod_affinity("baz", selector({"baz": "qux"})).node("node-2").obj()
POD_AFF_1 = make_pod("bar1", "ns").pod_affinity("key", selector({"key": "value"})).node("node-0").obj()


@pytest.mark.parametrize(
    ("nodes", "pods", "want_pods", "want_affinity", "want_anti"),
    [
        pytest.param([], [], {}, 0, 0, id="no pods no nodes"),
        pytest.param([_node("node-0")], [POD_WITH_PORT], {"node-0": [POD_WITH_PORT]}, 0, 0,
                     id="single pod single node"),
        pytest.param([_node("node-0"), _node("node-1"), _node("node-2", baz="qux")],
                     [POD_WITH_ANNOTATIONS, POD_AFF_0],
                     {"node-0": [], "node-1": [POD_WITH_ANNOTATIONS], "node-2": [POD_AFF_0]}, 1, 0,
                     id="pod with affinity"),
        pytest.param([_node("node-0", key="value"), _node("node-1", another="label")], [POD_AFF_1, POD_ANTI],
                     {"node-0": [POD_AFF_1, POD_ANTI], "node-1": []}, 1, 1,
                     id="pods with affinity and anti-affinity on one node"),
    ],
)
def test_from_objects(nodes, pods, want_pods, want_affinity, want_anti):
    """from_objects puts bound pods on their nodes and fills the affinity lists (upstream NewSnapshot)."""
    snap = Snapshot.from_objects(nodes, pods)
    assert snap.num_nodes() == len(nodes) == len(snap)
    for name, want in want_pods.items():
        info = snap.get(name)
        assert info is not None
        assert [p.pod for p in info.pods] == want
    assert len(snap.have_pods_with_affinity_list()) == want_affinity
    assert len(snap.have_pods_with_required_anti_affinity_list()) == want_anti
    assert snap.generation == 0


def test_from_objects_pod_info_terms():
    """Pods in a snapshot carry their resolved affinity terms."""
    snap = Snapshot.from_objects([_node("node-0")], [POD_AFF_1, POD_ANTI])
    info = snap.get("node-0")
    assert info is not None
    aff, anti = info.pods
    assert aff.required_affinity_terms[0].namespaces == frozenset({"ns"})
    assert aff.required_affinity_terms[0].topology_key == "key"
    assert anti.required_anti_affinity_terms[0].selector == selector({"another": "label"})


def test_from_objects_leaves_out_unbound_and_orphan_pods():
    """Only nodes with a Node object are listed; pods that are unbound or on unknown nodes are dropped."""
    snap = Snapshot.from_objects(
        [_node("n1")],
        [make_pod("unbound").obj(), make_pod("orphan").node("gone").obj(), make_pod("ok").node("n1").obj()])
    assert [i.name for i in snap.list()] == ["n1"]
    assert snap.get("gone") is None
    info = snap.get("n1")
    assert info is not None
    assert [p.pod.name for p in info.pods] == ["ok"]


def test_from_objects_orders_like_the_node_tree():
    """The node list interleaves zones exactly as the cache's node tree would."""
    snap = Snapshot.from_objects(ALL_NODES[:9])
    assert [i.name for i in snap.list()] == NodeTree(ALL_NODES[:9]).names()
    assert snap.get("node-4") is snap.list()[6]


def test_from_objects_repeated_node_name_replaces():
    """A repeated node name replaces the earlier node object and keeps its position."""
    first, second = _node("a"), _node("a", v="2")
    snap = Snapshot.from_objects([first, _node("b"), second])
    assert [i.name for i in snap.list()] == ["a", "b"]
    info = snap.get("a")
    assert info is not None
    assert info.node is second


@pytest.mark.parametrize(
    ("nodes", "want"),
    [
        pytest.param(
            [make_node("node-0").image("gcr.io/10:v1", 10 * MB).obj(),
             make_node("node-1").image("gcr.io/10:v1", 10 * MB).image("gcr.io/200:v1", 200 * MB).obj()],
            {"node-0": {"gcr.io/10:v1": ImageStateSummary(10 * MB, 2)},
             "node-1": {"gcr.io/10:v1": ImageStateSummary(10 * MB, 2),
                        "gcr.io/200:v1": ImageStateSummary(200 * MB, 1)}},
            id="shared and unique images"),
        pytest.param(
            [make_node("node-0").obj(),
             make_node("node-1").image("gcr.io/10:v1", 10 * MB).image("gcr.io/200:v1", 200 * MB).obj()],
            {"node-0": {},
             "node-1": {"gcr.io/10:v1": ImageStateSummary(10 * MB, 1),
                        "gcr.io/200:v1": ImageStateSummary(200 * MB, 1)}},
            id="node without images"),
        pytest.param(
            [make_node("node-0").image("repo/a:v1", 5, "repo/a:latest", "repo/a@sha256:1").obj(),
             make_node("node-1").image("repo/a:latest", 7).obj()],
            {"node-0": {"repo/a:v1": ImageStateSummary(5, 1), "repo/a:latest": ImageStateSummary(5, 2),
                        "repo/a@sha256:1": ImageStateSummary(5, 1)},
             "node-1": {"repo/a:latest": ImageStateSummary(5, 2)}},
            id="every name of an image counts; the first node's size wins"),
    ],
)
def test_from_objects_image_states(nodes, want):
    """Each node's image states count how many nodes have each image name."""
    snap = Snapshot.from_objects(nodes)
    for name, states in want.items():
        info = snap.get(name)
        assert info is not None
        assert dict(info.image_states) == states


def test_snapshot_implements_the_lister_protocols():
    """A Snapshot is a SharedLister whose node_infos() is itself, a NodeInfoLister."""
    snap = Snapshot()
    assert isinstance(snap, SharedLister)
    assert isinstance(snap, NodeInfoLister)
    assert snap.node_infos() is snap
    assert list(snap.list()) == []
    assert snap.get("x") is None
    assert snap.num_nodes() == 0
    assert repr(snap) == "Snapshot(nodes=0, generation=0)"


def test_image_states_mapping():
    """ImageStates reads summaries for the node's own image names from the shared table."""
    table = {"a": ImageStateSummary(1, 3), "b": ImageStateSummary(2, 1)}
    states = ImageStates(frozenset({"a"}), table)
    assert states["a"] == ImageStateSummary(1, 3)
    assert states.get("a") == ImageStateSummary(1, 3)
    assert states.get("b") is None
    assert states.get("b", ImageStateSummary(0, 0)) == ImageStateSummary(0, 0)
    assert "a" in states
    assert "b" not in states
    assert list(states) == ["a"]
    assert len(states) == 1
    assert states == {"a": ImageStateSummary(1, 3)}
    assert repr(states) == "ImageStates({'a': ImageStateSummary(size=1, num_nodes=3)})"
    with pytest.raises(KeyError, match="b"):
        states["b"]
    table["a"] = ImageStateSummary(1, 4)
    assert states["a"].num_nodes == 4
    assert states.rebind({"a": ImageStateSummary(1, 9)})["a"].num_nodes == 9
