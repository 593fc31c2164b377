"""Incremental per-domain sums (plugins/_topology.py): a node's contribution derived from its
last one (the pods added and removed) equals counting it again, whatever changes."""

from __future__ import annotations

from collections.abc import Hashable, Mapping

from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import Cache, Snapshot
from schedframe.api.objects import LabelSelector, LabelSelectorRequirement
from schedframe.cache.nodeinfo import NodeInfo, PodInfo
from schedframe.plugins._topology import Contribution, IncrementalSum, per_pod, pod_changes
from schedframe.plugins.pod_topology_spread import _count_delta, count_pods_match_selector
from schedframe.testing import make_node, make_pod, selector

ZONE = "topology.kubernetes.io/zone"
SELECTOR = selector({"app": "web"})
#: the same pods, by an expression: its delta counts the pods added and removed (a selector of
#: one label reads the node's label counts)
BY_EXPRESSION = LabelSelector({}, (LabelSelectorRequirement("app", "In", ("web",)),))


@given(old=st.lists(st.integers(0, 30), unique=True, max_size=12),
       new=st.lists(st.integers(0, 30), unique=True, max_size=12))
def test_pod_changes_are_the_differences_by_identity(old: list[int], new: list[int]) -> None:
    """Added: in *new* only, in *new*'s order; removed: in *old* only, in *old*'s order."""
    infos = {i: PodInfo.of(make_pod(f"p{i}").obj()) for i in range(31)}
    added, removed = pod_changes([infos[i] for i in old], [infos[i] for i in new])
    assert [p.pod.name for p in added] == [f"p{i}" for i in new if i not in old]
    assert [p.pod.name for p in removed] == [f"p{i}" for i in old if i not in new]


def _contribute(info: NodeInfo) -> Contribution:
    node = info.node
    if node is None or ZONE not in node.labels:
        return ()
    return ((node.labels[ZONE], count_pods_match_selector(info.pods, SELECTOR, "default")),)


def _pod_pairs(labels: Mapping[str, str], info: PodInfo) -> list[tuple[Hashable, int]]:
    """As InterPodAffinity's per-pod sums: pairs keyed by the node's domain, the same pair from
    several pods of a node (taken out one at a time when pods leave)."""
    zone = labels.get(ZONE)
    if zone is None:
        return []
    pairs: list[tuple[Hashable, int]] = [((zone, "any"), 2)]
    if info.pod.labels.get("app") == "web":
        pairs.append(((zone, "web"), 1))
    return pairs


_STEPS = st.lists(st.tuples(st.sampled_from(("add", "add", "remove", "relabel", "unlabel", "terminate")),
                            st.integers(0, 1000)), min_size=1, max_size=40)


@settings(max_examples=60, deadline=None)
@given(steps=_STEPS)
def test_sums_with_deltas_equal_sums_counted_again(steps: list[tuple[str, int]]) -> None:
    """Pods added, removed and terminating, nodes relabelled or losing the key, refreshed now and
    then: the sums and presence kept with PodTopologySpread's delta, and with a per-pod sum's
    (InterPodAffinity's), are those of recounting."""
    cache = Cache()
    for i in range(6):
        cache.add_node(make_node(f"n{i}").label(ZONE, "ab"[i % 2]).obj())
    snap = Snapshot()
    fast, expr, slow = IncrementalSum(), IncrementalSum(), IncrementalSum()
    delta = _count_delta(SELECTOR, "default")
    by_expression = _count_delta(BY_EXPRESSION, "default")
    per_pod_sum, per_pod_slow = IncrementalSum(), IncrementalSum()
    per_pod_contribute, per_pod_delta = per_pod(lambda info: info.pods, _pod_pairs)
    pods: dict[str, object] = {}
    serial = 0
    for action, arg in steps:
        node = f"n{arg % 6}"
        if action == "add":
            serial += 1
            labels = {"app": "web" if arg % 3 else "db"}
            pod = make_pod(f"p{serial}").labels(labels).node(node).obj()
            cache.add_pod(pod)
            pods[pod.uid] = pod
        elif action == "remove" and pods:
            uid = sorted(pods)[arg % len(pods)]
            cache.remove_pod(pods.pop(uid))  # type: ignore[arg-type]
        elif action == "terminate" and pods:
            uid = sorted(pods)[arg % len(pods)]
            old = pods[uid]
            new = old.evolve(deletion_timestamp=1.0)  # type: ignore[attr-defined]
            cache.update_pod(old, new)  # type: ignore[arg-type]
            pods[uid] = new
        elif action in ("relabel", "unlabel"):
            b = make_node(node)
            if action == "relabel":
                b = b.label(ZONE, "abc"[arg % 3])
            cache.update_node(None, b.obj())
        if arg % 2:  # refresh only now and then: several changes between two refreshes
            cache.update_snapshot(snap)
            fast.refresh(list(snap.list()), _contribute, delta)
            expr.refresh(list(snap.list()), _contribute, by_expression)
            slow.refresh(list(snap.list()), _contribute)
            assert (fast.sums, fast.matches) == (slow.sums, slow.matches)
            assert (expr.sums, expr.matches) == (slow.sums, slow.matches)
            per_pod_sum.refresh(list(snap.list()), per_pod_contribute, per_pod_delta)
            per_pod_slow.refresh(list(snap.list()), per_pod_contribute)
            assert (per_pod_sum.sums, per_pod_sum.matches) == (per_pod_slow.sums, per_pod_slow.matches)
    cache.update_snapshot(snap)
    fast.refresh(list(snap.list()), _contribute, delta)
    expr.refresh(list(snap.list()), _contribute, by_expression)
    fresh = IncrementalSum()
    fresh.refresh(list(snap.list()), _contribute)
    assert (fast.sums, fast.matches) == (fresh.sums, fresh.matches)
    assert (expr.sums, expr.matches) == (fresh.sums, fresh.matches)
    per_pod_sum.refresh(list(snap.list()), per_pod_contribute, per_pod_delta)
    per_pod_fresh = IncrementalSum()
    per_pod_fresh.refresh(list(snap.list()), per_pod_contribute)
    assert (per_pod_sum.sums, per_pod_sum.matches) == (per_pod_fresh.sums, per_pod_fresh.matches)


@given(labels=st.lists(st.sampled_from(["a", "b", "c", ""]), min_size=1, max_size=12),
       pods=st.lists(st.tuples(st.integers(0, 11), st.booleans()), max_size=30))
def test_a_first_count_in_one_pass_equals_counting_node_by_node(labels: list[str],
                                                                pods: list[tuple[int, bool]]) -> None:
    """The first refresh counts every node in one pass; growing the same sums node by node (a
    list that grows, counted by name) gives the same sums and presence."""
    nodes = [make_node(f"n{i}").label(ZONE, v).obj() if v else make_node(f"n{i}").obj()
             for i, v in enumerate(labels)]
    bound = [make_pod(f"p{k}").labels({"app": "web" if web else "db"}).node(f"n{i % len(nodes)}").obj()
             for k, (i, web) in enumerate(pods)]
    infos = list(Snapshot.from_objects(nodes, bound).list())
    whole, grown = IncrementalSum(), IncrementalSum()
    whole.refresh(infos, _contribute)
    for k in range(1, len(infos) + 1):
        grown.refresh(infos[:k], _contribute)
    assert (whole.sums, whole.matches) == (grown.sums, grown.matches)


class _ListOnly:
    """An ObjectLister that can only list (no lookup by key)."""

    def __init__(self, objects: list[object]) -> None:
        self.objects = objects

    def namespace(self, name: str) -> None:
        return None

    def list(self, kind: type, namespace: str | None = None) -> list[object]:
        return [o for o in self.objects if type(o) is kind
                and (namespace is None or getattr(o, "namespace", "") == namespace)]


def test_default_selector_finds_the_owner_by_name_in_its_namespace() -> None:
    """The owning ReplicaSet, StatefulSet or ReplicationController is looked up by name in the
    pod's namespace (upstream's lister Get), by key in an ObjectStore and in the list of any
    other lister, with the same selector; an owner of that name elsewhere does not count."""
    from schedframe import (
        LabelSelector,
        ObjectStore,
        OwnerReference,
        ReplicaSet,
        ReplicationController,
        Service,
        StatefulSet,
    )
    from schedframe.plugins.pod_topology_spread import default_selector

    objects: list[object] = [
        ReplicaSet("rs", "team", LabelSelector({"app": "web"})),
        ReplicaSet("rs", "other", LabelSelector({"app": "elsewhere"})),
        StatefulSet("db", "team", LabelSelector({"app": "db"})),
        ReplicationController("rc", "team", {"app": "old"}),
        Service("svc", "team", {"tier": "front"}),
    ]
    cases = {
        ("ReplicaSet", "rs", "team"): selector({"tier": "front"}, ("app", "In", ("web",))),
        ("StatefulSet", "db", "team"): selector({"tier": "front"}, ("app", "In", ("db",))),
        ("ReplicationController", "rc", "team"): LabelSelector({"tier": "front", "app": "old"}),
        ("ReplicaSet", "missing", "team"): LabelSelector({"tier": "front"}),
        ("ReplicaSet", "rs", "nowhere"): LabelSelector({}),
    }
    for (kind, name, ns), want in cases.items():
        api = "v1" if kind == "ReplicationController" else "apps/v1"
        pod = make_pod("p", namespace=ns).labels({"tier": "front"}).obj().evolve(
            owner_references=(OwnerReference(kind, name, api_version=api, controller=True),))
        got_store = default_selector(pod, ObjectStore(objects))
        got_list = default_selector(pod, _ListOnly(objects))
        assert got_store == got_list == want, (kind, name, ns)


_LABELS = st.dictionaries(st.sampled_from(["app", "tier"]), st.sampled_from(["a", "b"]), max_size=2)


@settings(max_examples=80, deadline=None)
@given(pods=st.lists(st.tuples(_LABELS, st.sampled_from(["default", "other"]), st.booleans()), max_size=8),
       steps=st.lists(st.tuples(st.booleans(), st.integers(0, 7), _LABELS), max_size=6),
       sel=_LABELS, expression=st.booleans(), ns=st.sampled_from(["default", "other"]))
def test_counting_from_the_label_index_equals_counting_pods(
        pods: list[tuple[dict[str, str], str, bool]], steps: list[tuple[bool, int, dict[str, str]]],
        sel: dict[str, str], expression: bool, ns: str) -> None:
    """count_on_node (a node's label counts for one-label selectors) equals counting the pods
    with the selector, for pods in other namespaces, being deleted, added and removed, on the
    node and on its clones."""
    from schedframe.plugins.pod_topology_spread import count_on_node

    s = selector(sel, ("tier", "In", ["a"])) if expression else selector(sel)
    info = NodeInfo(make_node("n").capacity(pods=99).obj())
    for i, (labels, pod_ns, deleting) in enumerate(pods):
        b = make_pod(f"p{i}", pod_ns).labels(labels).node("n")
        if deleting:
            b = b.terminating()
        info.add_pod(b.obj())
    seen = [info]
    for j, (add, k, labels) in enumerate(steps):
        assert count_on_node(info, s, ns) == count_pods_match_selector(info.pods, s, ns)
        info = info.clone()
        if add:
            info.add_pod(make_pod(f"q{j}", ns).labels(labels).node("n").obj())
        elif info.pods:
            info.remove_pod(info.pods[k % len(info.pods)].pod)
        seen.append(info)
    for ni in seen:  # earlier versions keep their own counts
        assert count_on_node(ni, s, ns) == count_pods_match_selector(ni.pods, s, ns)
    assert count_on_node(info, None, ns) == 0


def test_label_index_skips_pods_being_deleted_and_other_namespaces() -> None:
    """A one-label selector counted from the index leaves out pods being deleted and pods of
    other namespaces, as counting the pods does."""
    from schedframe.plugins.pod_topology_spread import count_on_node

    info = NodeInfo(make_node("n").capacity(pods=9).obj())
    info.add_pod(make_pod("gone", "default").labels({"app": "a"}).node("n").terminating().obj())
    info.add_pod(make_pod("away", "other").labels({"app": "a"}).node("n").obj())
    info.add_pod(make_pod("here", "default").labels({"app": "a", "tier": "b"}).node("n").obj())
    s = selector({"app": "a"})
    assert count_on_node(info, s, "default") == count_pods_match_selector(info.pods, s, "default") == 1
    assert count_on_node(info, s, "other") == 1
    assert count_on_node(info, selector({"app": "b"}), "default") == 0
