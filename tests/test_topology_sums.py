"""Incremental per-domain sums (plugins/_topology.py): a node's contribution derived from its
last one (the pods added and removed) equals counting it again, whatever changes."""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe.api.objects import LabelSelector, LabelSelectorRequirement, Pod
from schedframe.cache import Cache, Snapshot
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
    from schedframe.api import (
        LabelSelector,
        OwnerReference,
        ReplicaSet,
        ReplicationController,
        Service,
        StatefulSet,
    )
    from schedframe.cache import ObjectStore
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


# -- sums following a snapshot's change log ---------------------------------------------------

def _web_pairs(labels: Mapping[str, str], info: PodInfo) -> list[tuple[Hashable, int]]:
    """A per-pod sum of the pods ``app: web`` selects (what InterPodAffinity's incoming terms
    count): its probe is the selector's."""
    zone = labels.get(ZONE)
    if zone is None or info.pod.labels.get("app") != "web":
        return []
    return [((zone, "web"), 1)]


def _term_pairs(labels: Mapping[str, str], info: PodInfo) -> list[tuple[Hashable, int]]:
    """A per-pod sum over the pods with (anti-)affinity terms, keyed by their terms' topology
    keys (what InterPodAffinity counts of the existing pods' terms)."""
    out: list[tuple[Hashable, int]] = []
    for t in (*info.required_affinity_terms, *info.required_anti_affinity_terms):
        value = labels.get(t.topology_key)
        if value is not None:
            out.append(((t.topology_key, value), 1))
    return out


_FOLLOW_STEPS = st.lists(
    st.tuples(st.sampled_from(("add", "add", "add", "affinity", "remove", "relabel-pod", "rack", "rack",
                               "zone", "unlabel", "terminate", "new-node")),
              st.integers(0, 1000)), min_size=1, max_size=50)
RACK = "example.com/rack"


def _rack_contribute(info: NodeInfo) -> Contribution:
    """Like :func:`_contribute`, by a label that does not order the snapshot's list (changing it
    keeps the list and its log: the node marker of the change tags recounts it)."""
    node = info.node
    if node is None or RACK not in node.labels:
        return ()
    return ((node.labels[RACK], count_pods_match_selector(info.pods, SELECTOR, "default")),)


@settings(max_examples=80, deadline=None)
@given(steps=_FOLLOW_STEPS, bound=st.sampled_from((3, 4096)))
def test_sums_following_a_snapshot_equal_sums_counted_again(steps: list[tuple[str, int]], bound: int) -> None:
    """Sums that follow a snapshot's change log (recounting only the nodes whose change tags meet
    their probe) equal sums counted again from scratch after every refresh: for pods added,
    removed, relabelled and terminating, pods with affinity terms, nodes relabelled (in place, or
    by zone: a new list and log) or losing the key, nodes joining, and a log that starts over (a
    bound of 3)."""
    from unittest import mock

    from schedframe.cache import snapshot as snapshot_module
    from schedframe.plugins._topology import following, probe_of, selector_probe

    cache = Cache()
    zones: dict[str, str | None] = {f"n{i}": "ab"[i % 2] for i in range(6)}
    racks: dict[str, str] = dict.fromkeys(zones, "r1")

    def put(name: str, *, new: bool = False) -> None:
        b = make_node(name).label(RACK, racks[name])
        zone = zones[name]
        if zone is not None:
            b = b.label(ZONE, zone)
        if new:
            cache.add_node(b.obj())
        else:
            cache.update_node(None, b.obj())

    for name in zones:
        put(name, new=True)
    snap = Snapshot()
    web_pairs = per_pod(lambda info: info.pods, _web_pairs)
    term_pairs = per_pod(lambda info: info.pods_with_affinity, _term_pairs)
    web = probe_of(selector_probe(SELECTOR))
    sums = [  # (contribute, delta, probe)
        (_contribute, _count_delta(SELECTOR, "default"), web),
        (_contribute, _count_delta(BY_EXPRESSION, "default"), probe_of(selector_probe(BY_EXPRESSION))),
        (_rack_contribute, _count_delta(SELECTOR, "default"), web),
        (web_pairs[0], web_pairs[1], web),
        (term_pairs[0], term_pairs[1], probe_of(affinity=True)),
    ]
    followed = [IncrementalSum() for _ in sums]
    pods: dict[str, Pod] = {}
    serial = 0
    with mock.patch.object(snapshot_module, "_MAX_CHANGES", bound):
        for action, arg in steps:
            node = sorted(zones)[arg % len(zones)]
            if action in ("add", "affinity"):
                serial += 1
                b = make_pod(f"p{serial}").labels({"app": "web" if arg % 3 else "db"}).node(node)
                if action == "affinity":
                    b = b.pod_affinity_in("app", ["web"], ZONE, anti=bool(arg % 2))
                pod = b.obj()
                cache.add_pod(pod)
                pods[pod.uid] = pod
            elif action in ("remove", "terminate", "relabel-pod") and pods:
                uid = sorted(pods)[arg % len(pods)]
                old = pods[uid]
                if action == "remove":
                    cache.remove_pod(pods.pop(uid))
                else:
                    if action == "terminate":
                        new = old.evolve(deletion_timestamp=1.0)
                    else:
                        new = old.evolve(labels={"app": "db" if old.labels.get("app") == "web" else "web"})
                    cache.update_pod(old, new)
                    pods[uid] = new
            elif action == "rack":
                racks[node] = f"r{arg % 3}"
                put(node)
            elif action in ("zone", "unlabel"):
                zones[node] = "abc"[arg % 3] if action == "zone" else None
                put(node)
            elif action == "new-node":
                name = f"n{len(zones)}"
                zones[name], racks[name] = "c", "r2"
                put(name, new=True)
            if arg % 4 == 0:  # now and then: several changes between two refreshes
                cache.update_snapshot(snap)
                listed = snap.list()
                for s, (contribute, delta, probe) in zip(followed, sums):
                    s.refresh(listed, contribute, delta, following(snap, listed, probe))
                    fresh = IncrementalSum()
                    fresh.refresh(list(listed), contribute)
                    assert (s.sums, s.matches) == (fresh.sums, fresh.matches)


def test_a_followed_sum_recounts_only_the_changes_its_probe_meets(monkeypatch: pytest.MonkeyPatch) -> None:
    """Following the log, a sum of ``app: web`` pods recounts the node where a web pod landed and
    not the nodes where other pods did; a node with a new Node object is recounted whatever its
    pods."""
    from schedframe.plugins._topology import following, probe_of, selector_probe

    recounted: list[str] = []
    moved = IncrementalSum._moved

    def spy(self: IncrementalSum, old: NodeInfo, info: NodeInfo, *rest: Any) -> Contribution:
        recounted.append(info.name)
        return moved(self, old, info, *rest)

    monkeypatch.setattr(IncrementalSum, "_moved", spy)
    cache = Cache()
    for i in range(4):
        cache.add_node(make_node(f"n{i}").label(ZONE, "ab"[i % 2]).obj())
    snap = Snapshot()
    cache.update_snapshot(snap)
    probe = probe_of(selector_probe(SELECTOR))
    s = IncrementalSum()

    def refresh() -> None:
        cache.update_snapshot(snap)
        listed = snap.list()
        s.refresh(listed, _contribute, _count_delta(SELECTOR, "default"), following(snap, listed, probe))

    refresh()
    recounted.clear()
    cache.add_pod(make_pod("w").labels({"app": "web"}).node("n1").obj())
    cache.add_pod(make_pod("d1").labels({"app": "db"}).node("n2").obj())
    cache.add_pod(make_pod("d2").labels({"app": "db"}).node("n3").obj())
    refresh()
    assert recounted == ["n1"]
    assert s.sums == {"a": 0, "b": 1}
    recounted.clear()
    cache.update_node(None, make_node("n2").label(ZONE, "a").label("disk", "ssd").obj())
    refresh()
    assert recounted == ["n2"]
    assert s.sums == {"a": 0, "b": 1}


def test_change_tags_name_what_a_replaced_node_info_may_have_changed() -> None:
    """A placed pod tags its labels (and the affinity marker when it has (anti-)affinity terms), a
    removed pod its labels too, a new Node object the node marker; a NodeInfo replaced with the
    same node and pods an empty tag. The snapshot's index lists each change under its tag's
    items."""
    from schedframe.cache.snapshot import CHANGED_AFFINITY, CHANGED_NODE

    cache = Cache()
    cache.add_node(make_node("n0").label(ZONE, "a").obj())
    n1 = make_node("n1").label(ZONE, "b").obj()
    cache.add_node(n1)
    snap = Snapshot()
    cache.update_snapshot(snap)

    def tag() -> frozenset[object]:
        at = len(snap._changes)
        cache.update_snapshot(snap)
        assert len(snap._changes) == at + 1
        return frozenset(item for item, tagged in snap._change_index.items() if at in tagged)

    web = make_pod("w").labels({"app": "web", "tier": "front"}).node("n0").obj()
    cache.add_pod(web)
    assert tag() == {("app", "web"), ("tier", "front")}
    close = make_pod("c").labels({"app": "db"}).node("n1").pod_affinity_in("app", ["web"], ZONE).obj()
    cache.add_pod(close)
    assert tag() == {("app", "db"), CHANGED_AFFINITY}
    cache.remove_pod(web)
    assert tag() == {("app", "web"), ("tier", "front")}
    relabelled = close.evolve(labels={"app": "cache"})
    cache.update_pod(close, relabelled)
    assert tag() == {("app", "db"), ("app", "cache"), CHANGED_AFFINITY}
    cache.update_node(None, make_node("n0").label(ZONE, "a").label("disk", "ssd").obj())
    assert tag() == {CHANGED_NODE}
    cache.update_node(n1, n1)
    assert tag() == frozenset()
    assert all(tagged == sorted(set(tagged)) for tagged in snap._change_index.values())


@pytest.mark.parametrize("seed", range(4))
def test_the_scheduler_counts_following_its_snapshot_as_counting_again(monkeypatch: pytest.MonkeyPatch,
                                                                       seed: int) -> None:
    """Through whole scheduling runs (pods with zone and hostname spreading, required and preferred
    (anti-)affinity placed, then some deleted, nodes relabelled and more pods placed), every sum
    PodTopologySpread and InterPodAffinity refresh by following the snapshot equals the same sum
    counted again from scratch; and the scheduler places the pods as with no sum following."""
    import random

    from schedframe import Scheduler
    from schedframe.plugins import _topology

    rng = random.Random(seed)
    nodes = [make_node(f"n{i:02d}").capacity(cpu="8", memory="16Gi", pods=20)
             .labels({ZONE: "abc"[i % 3], "kubernetes.io/hostname": f"n{i:02d}", RACK: f"r{i % 4}"}).obj()
             for i in range(24)]

    def pod(name: str) -> Pod:
        app = rng.choice(["web", "db", "cache"])
        b = make_pod(name).labels({"app": app}).container("img", cpu="100m", memory="64Mi")
        x = rng.random()
        if x < 0.3:
            b = b.spread_constraint(rng.choice((1, 2)), rng.choice((ZONE, "kubernetes.io/hostname", RACK)),
                                    rng.choice(("DoNotSchedule", "ScheduleAnyway")), selector({"app": app}))
        elif x < 0.4:
            b = b.spread_constraint(1, ZONE, "ScheduleAnyway", selector(None, ("app", "In", (app, "db"))))
        x = rng.random()
        if x < 0.2:
            b = b.pod_affinity_in("app", [app], rng.choice((ZONE, "kubernetes.io/hostname")), anti=True,
                                  weight=rng.choice((None, 10)))
        elif x < 0.3:
            b = b.pod_affinity_in("app", ["web"], ZONE, weight=rng.choice((None, 50)))
        return b.obj()

    waves = [[pod(f"w{w}-{i}") for i in range(40)] for w in range(3)]
    deleted = [rng.randrange(40) for _ in range(15)]
    relabelled = [(rng.randrange(24), f"r{rng.randrange(4)}") for _ in range(4)]

    def run(follow: bool) -> Any:
        s = Scheduler(seed=seed)
        for n in nodes:
            s.add_node(n)
        for w, wave in enumerate(waves):
            for p in wave:
                s.add_pod(p)
            s.run_until_idle()
            if w == 0:
                bound = s.bindings()
                gone = {wave[i].key for i in deleted} & set(bound)
                assert gone
                for key in sorted(gone):
                    s.remove_pod(key)
                for i, rack in relabelled:
                    s.update_node(nodes[i].evolve(labels={**nodes[i].labels, RACK: rack}))
        return sorted(s.bindings().items()), sorted(p.pod.key for p in s.pending())

    checked: list[int] = []
    refresh = IncrementalSum.refresh

    def checking(self: IncrementalSum, nodes: Any, contribute: Any, delta: Any = None,
                 follow: Any = None) -> None:
        was_following = follow is not None and self._log is follow[0]
        refresh(self, nodes, contribute, delta, follow)
        if was_following:
            fresh = IncrementalSum(self.grouped)
            fresh.refresh(list(nodes), contribute)
            assert (self.sums, self.matches, self.heads) == (fresh.sums, fresh.matches, fresh.heads)
            checked.append(1)

    monkeypatch.setattr(IncrementalSum, "refresh", checking)
    placed = run(follow=True)
    assert len(checked) > 50
    monkeypatch.setattr(_topology, "following", lambda lister, nodes, probe: None)
    for module in ("pod_topology_spread", "inter_pod_affinity"):
        monkeypatch.setattr(f"schedframe.plugins.{module}.following", lambda lister, nodes, probe: None)
    checked.clear()
    assert run(follow=False) == placed
    assert not checked


def test_selector_probes_name_a_label_every_selected_pod_carries() -> None:
    """A label of ``matchLabels``, else the values of an ``In``; None where no label is needed
    (``Exists``, ``NotIn``, the empty selector that selects every pod); nothing for no selector
    (no pod selected)."""
    from schedframe.plugins._topology import selector_probe

    def items(*pairs: tuple[str, str]) -> frozenset[object]:
        return frozenset(pairs)

    assert selector_probe(selector({"app": "web"})) == items(("app", "web"))
    assert selector_probe(selector(None, ("app", "In", ("a", "b")))) == items(("app", "a"), ("app", "b"))
    exists_and_in = selector(None, ("app", "Exists", ()), ("tier", "In", ("x",)))
    assert selector_probe(exists_and_in) == items(("tier", "x"))
    assert selector_probe(selector(None, ("app", "Exists", ()))) is None
    assert selector_probe(selector(None, ("app", "NotIn", ("a",)))) is None
    assert selector_probe(LabelSelector({}, ())) is None
    assert selector_probe(None) == frozenset()
