"""RunMemo (per-node results remembered by snapshot position, checked by NodeInfo identity) and
the plugins that use it: the same results as computing every node, whatever changes between
cycles."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedframe.cache.snapshot as snapshot_module
from schedframe import FakeClock, Node, NodeInfo, Pod, Scheduler
from schedframe.cache import Snapshot
from schedframe.plugins._run_memo import _MAX_KEYS, RunMemo, _differences, _is_run
from schedframe.testing import make_node, make_pod, selector

from .test_fast_paths import IMAGES, TAINTS, ZONE, _outcome, per_node_registry

T0 = 1_700_000_000.0


class Counting:
    """A compute function recording which nodes it was asked for."""

    def __init__(self) -> None:
        self.calls: list[list[str]] = []

    def __call__(self, nodes: Sequence[NodeInfo]) -> list[str]:
        self.calls.append([ni.name for ni in nodes])
        return [f"{ni.name}@{id(ni)}" for ni in nodes]


def _snapshot(count: int) -> Snapshot:
    return Snapshot.from_objects([make_node(f"n{i}").capacity(cpu="4").obj() for i in range(count)])


def _truth(nodes: Sequence[NodeInfo]) -> list[str]:
    return [f"{ni.name}@{id(ni)}" for ni in nodes]


def test_a_run_seen_before_is_answered_without_computing() -> None:
    """The second call over the same run computes nothing and gives the same results."""
    snap = _snapshot(10)
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    run = list(snap.list()[2:7])
    assert memo.values("k", snap, run, compute) == _truth(run)
    assert memo.values("k", snap, list(run), compute) == _truth(run)
    assert len(compute.calls) == 1


@pytest.mark.parametrize(("start", "count"), [
    pytest.param(0, 10, id="whole list"),
    pytest.param(7, 6, id="wrapping run"),
    pytest.param(9, 1, id="last node"),
])
def test_wrapping_runs_and_overlaps(start: int, count: int) -> None:
    """Runs that wrap around the end of the node list, and runs overlapping earlier ones, use
    what is known and compute only the rest."""
    snap = _snapshot(10)
    base = list(snap.list())
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    memo.values("k", snap, base[3:8], compute)  # n3..n7 known
    run = [base[(start + k) % 10] for k in range(count)]
    assert memo.values("k", snap, run, compute) == _truth(run)
    assert sorted(compute.calls[-1]) == sorted(ni.name for ni in run if ni not in base[3:8]) or (
        len(compute.calls) == 1 and all(ni in base[3:8] for ni in run))


def test_replaced_node_infos_are_computed_again() -> None:
    """A NodeInfo replaced in the snapshot (the node or its pods changed) is computed again;
    its neighbours are not."""
    nodes = [make_node(f"n{i}").capacity(cpu="4").obj() for i in range(6)]
    snap = Snapshot.from_objects(nodes)
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    memo.values("k", snap, list(snap.list()), compute)
    old = snap.list()[3]
    clone = old.clone()
    snap._replace(clone)  # what Cache.update_snapshot does for a changed node
    run = list(snap.list())
    assert run[3] is clone
    assert clone is not old
    assert memo.values("k", snap, run, compute) == _truth(run)
    assert compute.calls[-1] == ["n3"]


def test_lists_that_are_not_runs_are_computed_whole() -> None:
    """Feasible lists with gaps, reordered lists, stale NodeInfos, tuples and empty lists are
    computed in full and leave the memo alone."""
    snap = _snapshot(8)
    base = list(snap.list())
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    stale = base[2].clone()
    for nodes in ([base[0], base[2], base[3]], [base[1], base[0]], [stale, base[3]], tuple(base[:3]), []):
        assert memo.values("k", snap, nodes, compute) == _truth(nodes)
        assert compute.calls[-1] == [ni.name for ni in nodes]
    assert memo._entries == {}


def test_keys_are_kept_apart_and_the_oldest_goes_first() -> None:
    """Results are per key; past the key limit the least recently used key is forgotten."""
    snap = _snapshot(4)
    run = list(snap.list())
    memo: RunMemo[str] = RunMemo()

    def tagged(tag: str) -> Any:
        return lambda nodes: [f"{tag}:{ni.name}" for ni in nodes]

    for k in range(_MAX_KEYS):
        assert memo.values(k, snap, run, tagged(str(k))) == [f"{k}:{ni.name}" for ni in run]
    memo.values(0, snap, run, tagged("x"))  # key 0 becomes the most recently used
    memo.values("new", snap, run, tagged("new"))  # evicts key 1
    assert memo.values(0, snap, run, tagged("y")) == [f"0:{ni.name}" for ni in run]
    assert memo.values(1, snap, run, tagged("z")) == [f"z:{ni.name}" for ni in run]


def test_a_node_list_of_another_length_starts_over() -> None:
    """When nodes are added or removed the memo of a key starts over (positions moved)."""
    snap = _snapshot(5)
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    memo.values("k", snap, list(snap.list()), compute)
    bigger = _snapshot(6)
    assert memo.values("k", bigger, list(bigger.list()), compute) == _truth(bigger.list())
    assert len(compute.calls[-1]) == 6


def test_compute_returning_the_wrong_count_is_refused() -> None:
    """A compute function returning too few results (here for the two unknown nodes) is a
    ValueError, not a silent shift."""
    snap = _snapshot(3)
    memo: RunMemo[str] = RunMemo()
    memo.values("k", snap, list(snap.list()[:1]), lambda nodes: ["a"] * len(nodes))
    with pytest.raises(ValueError, match="returned 1 results for 2 nodes"):
        memo.values("k", snap, list(snap.list()), lambda nodes: ["a"])


def test_listers_without_positions_mean_no_memo() -> None:
    """Without a snapshot that knows positions (a fake lister, None) every call computes."""
    snap = _snapshot(3)
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    for _ in range(2):
        memo.values("k", None, list(snap.list()), compute)
    assert len(compute.calls) == 2


# -- plugins through the scheduler: batch + memo against node by node, with changes ------------

_ACTIONS = ("pods", "schedule", "taint", "untaint", "cordon", "uncordon", "relabel", "resize", "images",
            "remove_node", "add_node", "delete_pod")


def _node(i: int, rng: random.Random) -> Node:
    b = (make_node(f"n{i:03d}").capacity(cpu=rng.choice(["1", "2", "4"]), memory=rng.choice(["1Gi", "4Gi"]),
                                          pods=rng.choice([3, 110]))
         .label(ZONE, "abc"[i % 3]))
    if rng.random() < 0.03:  # few: runs of untainted nodes keep the feasible lists whole
        b = b.taint(*rng.choice(TAINTS))
    if rng.random() < 0.4:  # widely spread images score well above ImageLocality's threshold
        b = b.image(*rng.choice(IMAGES))
    return b.obj()


def _pod(name: str, rng: random.Random) -> Pod:
    b = make_pod(name).req(cpu=rng.choice(["100m", "300m", "1"]), memory=rng.choice(["64Mi", "512Mi"]))
    if rng.random() < 0.3:
        b = b.toleration(*rng.choice(TAINTS))
    if rng.random() < 0.1:
        b = b.toleration("node.kubernetes.io/unschedulable", "", "NoSchedule", operator="Exists")
    if rng.random() < 0.5:
        b = b.container(rng.choice([i for i, _ in IMAGES]))
    if rng.random() < 0.25:  # zone spread: relabelled nodes change the verdicts
        b = b.label("app", "web").spread_constraint(1, ZONE, "DoNotSchedule", selector({"app": "web"}))
    return b.obj()


def _drive(s: Scheduler, script: list[tuple[str, int]], seed: int) -> list[Any]:
    """Apply *script* to *s*; the outcome after every step."""
    rng = random.Random(seed)
    nodes = {i: _node(i, rng) for i in range(150)}
    for node in nodes.values():
        s.add_node(node)
    next_node, next_pod = 150, 0
    cpus: dict[int, str] = {}
    out = []
    for action, arg in script:
        names = sorted(nodes)
        victim = names[arg % len(names)] if names else None
        if action == "pods":
            for _ in range(arg % 12 + 1):
                s.add_pod(_pod(f"p{next_pod:04d}", rng))
                next_pod += 1
        elif action == "schedule":
            for _ in range(arg % 20 + 1):
                s.schedule_one()
        elif action == "add_node" or victim is None:
            nodes[next_node] = _node(next_node, rng)
            s.add_node(nodes[next_node])
            next_node += 1
        elif action == "remove_node":
            s.remove_node(nodes.pop(victim).name)
        elif action == "delete_pod":
            bound = sorted(s.bindings())
            if bound:
                s.remove_pod(bound[arg % len(bound)])
        else:
            if action == "resize":
                cpus[victim] = rng.choice(["1", "2", "4"])
            b = (make_node(nodes[victim].name).capacity(cpu=cpus.get(victim, "4"), memory="4Gi", pods=110)
                 .label(ZONE, "abc"[victim % 3]))
            if action == "relabel":
                b = b.label(ZONE, "d")
            if action == "taint":
                b = b.taint(*rng.choice(TAINTS))
            if action == "cordon":
                b = b.unschedulable()
            if action == "images":
                b = b.image(*rng.choice(IMAGES))
            nodes[victim] = b.obj()
            s.update_node(nodes[victim])
        out.append(_outcome(s))
    s.run_until_idle()
    out.append(_outcome(s))
    return out


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=st.lists(st.tuples(st.sampled_from(_ACTIONS), st.integers(0, 10_000)), min_size=5, max_size=30),
       seed=st.integers(0, 5))
def test_scheduler_with_memos_matches_node_by_node_under_changes(script: list[tuple[str, int]],
                                                                 seed: int) -> None:
    """Nodes tainted, cordoned, relabelled, resized, given images, removed and added, pods deleted, between
    scheduling steps: the default profile (batch methods and their memos) binds the same pods to
    the same nodes, with the same events and pending messages, after every step, as the
    per-node methods."""
    fast = Scheduler(seed=seed, clock=FakeClock(T0))
    ref = Scheduler(registry=per_node_registry(), seed=seed, clock=FakeClock(T0))
    assert _drive(fast, script, seed) == _drive(ref, script, seed)


@given(size=st.integers(0, 300), changes=st.lists(st.integers(0, 299), max_size=12))
def test_differences_finds_every_replaced_item(size: int, changes: list[int]) -> None:
    """The halving search finds exactly the positions holding other objects."""
    seen = [object() for _ in range(size)]
    nodes = list(seen)
    for k in changes:
        if k < size:
            nodes[k] = object()
    out: list[int] = []
    _differences(seen, nodes, 0, size, out)
    assert out == sorted({k for k in changes if k < size})


# -- the snapshot's change log: holes instead of position-by-position comparisons ---------------

_LOG_ACTIONS = ("run", "run", "run", "replace", "relist", "other", "restart")
_LOG_STEPS = st.lists(st.tuples(st.sampled_from(_LOG_ACTIONS), st.integers(0, 10_000), st.integers(1, 12)),
                      min_size=1, max_size=60)


@settings(max_examples=80, deadline=None)
@given(steps=_LOG_STEPS, keys=st.integers(1, 3))
def test_runs_follow_the_snapshots_change_log(steps: list[tuple[str, int, int]], keys: int) -> None:
    """Whatever the snapshot replaces (logged), rebuilds (a new log), or whichever snapshot a run
    comes from, and however often the log starts over, every run's results are those of its
    very NodeInfos."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(snapshot_module, "_MAX_CHANGES", 3)  # the log starts over often
        _follow_steps(steps, keys)


def _swap(snap: Snapshot, pos: int) -> None:
    """Replace the NodeInfo at *pos* with a clone, as ``Cache.update_snapshot`` does."""
    clone = snap.list()[pos].clone()
    snap._map[clone.name] = clone
    snap._replace(clone)


def _follow_steps(steps: list[tuple[str, int, int]], keys: int) -> None:
    snaps = [_snapshot(12), _snapshot(12)]
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    for action, arg, count in steps:
        snap = snaps[0]
        if action == "replace":
            _swap(snap, arg % 12)
        elif action == "relist":
            snap._set_order([ni.name for ni in snap.list()])
        elif action == "other":
            snaps.reverse()
        elif action == "restart":
            for k in range(8):  # past the (patched) bound: a new log object
                _swap(snap, (arg + k) % 12)
        else:
            base = list(snap.list())
            run = [base[(arg + k) % 12] for k in range(count)]
            key = arg % keys
            assert memo.values(key, snap, run, compute) == _truth(run)


def test_a_complete_key_recomputes_only_the_replaced_positions() -> None:
    """After every position was computed once, replacing two NodeInfos makes the next runs
    compute those two, each once, and nothing else."""
    snap = _snapshot(40)
    memo: RunMemo[str] = RunMemo()
    compute = Counting()
    memo.values("k", snap, list(snap.list()), compute)
    _swap(snap, 5)
    _swap(snap, 33)
    base = list(snap.list())
    assert memo.values("k", snap, base[0:20], compute) == _truth(base[0:20])
    assert compute.calls[-1] == ["n5"]
    run = base[30:] + base[:6]  # wraps; n5 is known again
    assert memo.values("k", snap, run, compute) == _truth(run)
    assert compute.calls[-1] == ["n33"]
    assert memo.values("k", snap, base, compute) == _truth(base)
    assert len(compute.calls) == 3


class _SnapshotHandle:
    """Just enough of a Handle for the memoising plugins: the snapshot they check runs against."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap

    def snapshot_shared_lister(self) -> Snapshot:
        return self.snap


@settings(max_examples=40, deadline=None)
@given(shapes=st.lists(st.tuples(st.sampled_from(["0", "1", "3", "64"]),
                                 st.sampled_from(["0", "1Gi", "3Gi", "1Ti"]), st.integers(0, 3)),
                       min_size=30, max_size=60),
       requests=st.lists(st.tuples(st.sampled_from(["0", "100m", "1", "7"]),
                                   st.sampled_from(["0", "1Mi", "2Gi"])), min_size=1, max_size=6),
       starts=st.lists(st.integers(0, 10_000), min_size=1, max_size=6))
def test_balanced_allocation_from_columns_matches_node_by_node(
        shapes: list[tuple[str, str, int]], requests: list[tuple[str, str]], starts: list[int]) -> None:
    """NodeResourcesBalancedAllocation's runs scored from columns (the balance without the pod
    kept per row) give each node's per-node score, zero allocatable and overcommitted nodes
    included, run after run as nodes gain pods."""
    from schedframe import CycleState
    from schedframe.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation

    nodes = [make_node(f"n{i:02d}").capacity(cpu=c, memory=m, pods=110).obj()
             for i, (c, m, _) in enumerate(shapes)]
    bound = [make_pod(f"b{i}-{k}").req(cpu="2", memory="2Gi").node(f"n{i:02d}").obj()
             for i, (_, _, count) in enumerate(shapes) for k in range(count)]
    snap = Snapshot.from_objects(nodes, bound)
    plugin = NodeResourcesBalancedAllocation(handle=_SnapshotHandle(snap))  # type: ignore[arg-type]
    n = len(nodes)
    for j, start in enumerate(starts):
        cpu, mem = requests[j % len(requests)]
        pod = make_pod(f"p{j}").req(cpu=cpu, memory=mem).obj()
        state = CycleState()
        if plugin.pre_score(state, pod, snap.list()) is not None:
            continue  # a best-effort pod: skipped
        base = list(snap.list())
        run = [base[(start + k) % n] for k in range(min(n, 25 + start % 20))]
        want = [plugin.score(state, pod, ni)[0] for ni in run]
        assert plugin.score_nodes(state, pod, run) == want
        _swap(snap, start % n)  # a changed node for the next run


# -- what a snapshot knows of all its nodes ---------------------------------------------------------

_NODE_OPS = st.lists(st.tuples(st.sampled_from(["add", "update", "remove", "pod", "sync"]), st.integers(0, 7),
                               st.booleans(), st.booleans()), max_size=40)


@settings(max_examples=60, deadline=None)
@given(ops=_NODE_OPS)
def test_snapshot_counts_cordoned_and_tainted_nodes(ops: list[tuple[str, int, bool, bool]]) -> None:
    """Snapshot.num_unschedulable, num_tainted and num_with_images equal a recount of its nodes after every
    update, whatever nodes were added, cordoned, tainted, cleared or removed, and whatever pods
    replaced NodeInfos in between."""
    from schedframe.cache.cache import Cache

    cache = Cache()
    snap = Snapshot()
    present: set[int] = set()
    pods = 0

    def node(i: int, cordoned: bool, tainted: bool) -> Node:
        b = make_node(f"n{i}").capacity(cpu="4", pods=110)
        if cordoned:
            b = b.unschedulable()
        if tainted:
            b = b.taint("k", "v", "NoSchedule")
        if cordoned != tainted:
            b = b.image(*IMAGES[i % len(IMAGES)])
        return b.obj()

    for op, i, cordoned, tainted in ops:
        if op == "add" and i not in present:
            cache.add_node(node(i, cordoned, tainted))
            present.add(i)
        elif op == "update" and i in present:
            cache.update_node(cache.snapshot().get(f"n{i}").node, node(i, cordoned, tainted))  # type: ignore[union-attr]
        elif op == "remove" and i in present:
            cache.remove_node(f"n{i}")
            present.discard(i)
        elif op == "pod" and i in present:
            cache.add_pod(make_pod(f"p{pods}").req(cpu="10m").obj().evolve(node_name=f"n{i}"))
            pods += 1
        cache.update_snapshot(snap)
        nodes = [ni.node for ni in snap.list()]
        assert snap.num_unschedulable() == sum(1 for n in nodes if n is not None and n.unschedulable)
        assert snap.num_tainted() == sum(1 for n in nodes if n is not None and n.taints)
        assert snap.num_with_images() == sum(1 for ni in snap.list() if ni.image_states)


def test_run_start_accepts_only_runs_of_a_snapshot() -> None:
    """run_start: the position of a run of the snapshot's list (wrapping too); None for copies,
    lists with gaps, other NodeInfos, tuples, empty lists and other listers."""
    from schedframe.plugins._run_memo import run_start

    snap = Snapshot.from_objects([make_node(f"n{i}").obj() for i in range(6)])
    base = list(snap.list())
    assert run_start(snap, base[2:5]) == 2
    assert run_start(snap, base[4:] + base[:2]) == 4
    assert run_start(snap, base) == 0
    assert run_start(snap, [base[1], base[3]]) is None
    assert run_start(snap, [base[1].clone(), base[2]]) is None
    assert run_start(snap, [base[1], base[2].clone()]) is None
    assert run_start(snap, tuple(base[1:3])) is None  # type: ignore[arg-type]
    assert run_start(snap, []) is None
    assert run_start(snap, base + base[:1]) is None
    assert run_start(None, base[1:3]) is None


def test_no_cordoned_or_tainted_nodes_answers_only_for_the_snapshots_own_nodes() -> None:
    """NodeUnschedulable and TaintToleration answer "nothing rejected" from the snapshot's
    counts only for runs of the snapshot: cordoned or tainted NodeInfos from elsewhere, handed
    to them with the same snapshot, are still judged one by one."""
    from schedframe.framework.cycle_state import CycleState
    from schedframe.plugins.node_unschedulable import NodeUnschedulable
    from schedframe.plugins.taint_toleration import TaintToleration

    snap = Snapshot.from_objects([make_node(f"n{i}").obj() for i in range(4)])
    assert snap.num_unschedulable() == snap.num_tainted() == 0

    class _Handle:
        def snapshot_shared_lister(self) -> Snapshot:
            return snap

    handle: Any = _Handle()
    pod = make_pod("p").obj()
    unsched, taints = NodeUnschedulable(handle), TaintToleration(handle)
    own = list(snap.list())
    assert unsched.filter_nodes(CycleState(), pod, own) == []
    assert taints.filter_nodes(CycleState(), pod, own) == []
    state = CycleState()
    assert taints.pre_score(state, pod, own) is None
    assert taints.score_nodes(state, pod, own) == [0, 0, 0, 0]
    cordoned = NodeInfo(make_node("n1").unschedulable().obj())
    tainted = NodeInfo(make_node("n1").taint("k", "v", "NoSchedule").obj())
    soft = NodeInfo(make_node("n1").taint("k", "v", "PreferNoSchedule").obj())
    assert [k for k, _ in unsched.filter_nodes(CycleState(), pod, [own[0], cordoned])] == [1]
    assert [k for k, _ in taints.filter_nodes(CycleState(), pod, [own[0], tainted])] == [1]
    assert taints.score_nodes(state, pod, [own[0], soft]) == [0, 1]


def test_no_images_anywhere_scores_zero_only_for_the_snapshots_own_nodes() -> None:
    """ImageLocality scores 0 at once on a run of a snapshot where no node holds images; a
    NodeInfo from elsewhere holding the pod's image is still scored."""
    from schedframe.framework.cycle_state import CycleState
    from schedframe.plugins.image_locality import ImageLocality

    snap = Snapshot.from_objects([make_node(f"n{i}").obj() for i in range(3)])
    assert snap.num_with_images() == 0

    class _Handle:
        def snapshot_shared_lister(self) -> Snapshot:
            return snap

    plugin = ImageLocality(_Handle())  # type: ignore[arg-type]
    image, size = IMAGES[1]
    pod = make_pod("p").container(image).obj()
    own = list(snap.list())
    assert plugin.score_nodes(CycleState(), pod, own) == [0, 0, 0]
    holder = Snapshot.from_objects([make_node("n1").image(image, size).obj()]).list()[0]
    assert plugin.score_nodes(CycleState(), pod, [own[0], holder]) == [
        0, plugin.score(CycleState(), pod, holder)[0]]
    assert plugin.score(CycleState(), pod, holder)[0] > 0


def test_node_affinity_filter_nodes_follows_relabelled_nodes() -> None:
    """NodeAffinity remembers verdicts per position for a pod's selector and required terms:
    a run judged again after nodes were relabelled, gained pods or were swapped gives what
    filter() gives node by node, and pods with equal selectors share the verdicts."""
    from schedframe.cache.cache import Cache
    from schedframe.framework.cycle_state import CycleState
    from schedframe.plugins.node_affinity import NodeAffinity

    cache = Cache()
    for i in range(12):
        cache.add_node(make_node(f"n{i}").label("pool", "ab"[i % 2]).obj())
    snap = Snapshot()

    class _Handle:
        def snapshot_shared_lister(self) -> Snapshot:
            return snap

    plugin = NodeAffinity(handle=_Handle())  # type: ignore[arg-type]
    pods = [make_pod("p").node_selector({"pool": "a"}).obj(),
            make_pod("q").node_affinity_in("pool", ("b",)).obj(),
            make_pod("r").node_selector({"pool": "a"}).obj()]

    def check() -> None:
        cache.update_snapshot(snap)
        run = list(snap.list())
        for pod in pods:
            state = CycleState()
            _res, status = plugin.pre_filter(state, pod, run)
            assert status is None or status.is_success()
            want = [(i, s) for i, ni in enumerate(run) if (s := plugin.filter(state, pod, ni)) is not None]
            got = plugin.filter_nodes(state, pod, run)
            assert [(i, s.code, s.reasons) for i, s in got] == [(i, s.code, s.reasons) for i, s in want]
            assert plugin.filter_nodes(state, pod, run[3:9]) == [(i - 3, s) for i, s in got if 3 <= i < 9]

    check()
    old = snap.get("n2").node  # type: ignore[union-attr]
    cache.update_node(old, make_node("n2").label("pool", "b").obj())
    cache.add_pod(make_pod("x").node("n5").obj())
    check()
    cache.remove_node("n7")
    check()


@given(n=st.integers(1, 12), start=st.integers(0, 11), m=st.integers(0, 14), data=st.data())
def test_is_run_is_the_identity_walk_from_start(n: int, start: int, m: int, data: st.DataObject) -> None:
    """A list is a run of the base from *start* exactly when its items are the base's very
    objects from there on, wrapping around: also with a gap, a stranger or a wrong last item."""
    base: list[Any] = [object() for _ in range(n)]
    start %= n
    walk = [base[(start + i) % n] for i in range(min(m, n))]
    change = data.draw(st.sampled_from(["none", "drop", "stranger", "last"]))
    nodes = list(walk)
    if nodes and change == "drop":
        del nodes[data.draw(st.integers(0, len(nodes) - 1))]
    elif nodes and change == "stranger":
        nodes[data.draw(st.integers(0, len(nodes) - 1))] = object()
    elif nodes and change == "last":
        nodes[-1] = base[(start + len(nodes)) % n]
    if m > n:
        nodes += [base[(start + i) % n] for i in range(n, m)]
    from_start = [base[(start + i) % n] for i in range(len(nodes))]
    want = len(nodes) <= n and all(a is b for a, b in zip(nodes, from_start))
    assert _is_run(base, start, nodes) == want
