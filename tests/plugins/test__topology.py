"""IncrementalSum: incremental refreshes always equal counting from scratch."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable

from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import NodeInfo
from schedframe.plugins._topology import IncrementalSum, SumCache
from schedframe.testing import make_node, make_pod

_ZONES = ("a", "b", "c")


def _info(name: str, zone: str, pods: int) -> NodeInfo:
    node = make_node(name).label("zone", zone).obj()
    return NodeInfo(node, [make_pod(f"{name}-p{i}").node(name).obj() for i in range(pods)])


def _contribute(info: NodeInfo) -> tuple[tuple[tuple[str, str], int], ...]:
    assert info.node is not None
    return ((("zone", info.node.labels["zone"]), len(info.pods)),)


def _scratch(nodes: list[NodeInfo]) -> tuple[dict[object, int], dict[object, int]]:
    sums: Counter[object] = Counter()
    matches: Counter[object] = Counter()
    for info in nodes:
        for key, amount in _contribute(info):
            sums[key] += amount
            matches[key] += 1
    return dict(sums), dict(matches)


_step = st.lists(st.tuples(st.integers(0, 7), st.sampled_from(_ZONES), st.integers(0, 3)),
                 max_size=8, unique_by=lambda t: t[0])


@settings(max_examples=150, deadline=None)
@given(st.lists(_step, min_size=1, max_size=6), st.booleans())
def test_refresh_equals_counting_from_scratch(steps, keep_unchanged):
    """Whatever the lists do between refreshes (grow, shrink, replace, reorder), sums stay exact."""
    acc = IncrementalSum(grouped=True)
    previous: dict[str, NodeInfo] = {}
    for step in steps:
        nodes = []
        for idx, zone, pods in step:
            name = f"n{idx}"
            old = previous.get(name)
            # keep the same NodeInfo object when nothing changed, as a snapshot does
            if keep_unchanged and old is not None and old.node is not None \
                    and old.node.labels["zone"] == zone and len(old.pods) == pods:
                nodes.append(old)
            else:
                nodes.append(_info(name, zone, pods))
        acc.refresh(nodes, _contribute)
        sums, matches = _scratch(nodes)
        assert acc.sums == sums
        assert acc.matches == matches
        assert acc.heads == ({"zone": len(matches)} if matches else {})
        previous = {info.name: info for info in nodes}


def test_sum_cache_keeps_signatures_within_its_size_and_positions() -> None:
    """The least recently used signature goes first, when the cache holds *size* signatures or
    their node lists together pass *positions*; a kept signature is not recounted."""
    nodes = [_info(f"n{i}", _ZONES[i % 3], i % 2) for i in range(10)]
    calls: Counter[str] = Counter()

    def counting(sig: str) -> Callable[[NodeInfo], tuple[tuple[tuple[str, str], int], ...]]:
        def contribute(info: NodeInfo) -> tuple[tuple[tuple[str, str], int], ...]:
            calls[sig] += 1
            return _contribute(info)
        return contribute

    cache = SumCache(size=3, positions=25)  # room for two lists of 10 nodes
    for sig in ("a", "b", "a"):
        entry = cache.get(sig, nodes, counting(sig))
        assert (entry.sums, entry.matches) == _scratch(nodes)
    assert calls == {"a": 10, "b": 10}  # "a" was kept, not recounted
    cache.get("c", nodes, counting("c"))
    cache.get("a", nodes, counting("a"))  # still there (b went)
    assert calls == {"a": 10, "b": 10, "c": 10}
    cache.get("b", nodes, counting("b"))  # gone: counted again
    assert calls["b"] == 20

    small = SumCache(size=2, positions=1_000)
    for sig in ("x", "y", "z", "x"):
        small.get(sig, nodes, counting(sig))
    assert calls["x"] == 20  # evicted by size when z came


def test_equal_contributions_are_kept_as_one_tuple_and_the_sharing_table_stays_bounded() -> None:
    """Most nodes contribute one of a few tuples (``((zone, 0),)``): one object each, so that a
    signature costs a list slot per node; the table that shares them never outgrows the list."""
    nodes = [_info(f"n{i}", _ZONES[i % 3], 0) for i in range(300)]
    acc = IncrementalSum()
    acc.refresh(nodes, _contribute)
    assert len({id(p) for p in acc._pairs}) == 3
    for round_ in range(1, 40):  # every node's count changes, again and again
        nodes = [_info(f"n{i}", _ZONES[i % 3], (i + round_) % 4) for i in range(300)]
        acc.refresh(nodes, _contribute)
        assert (acc.sums, acc.matches) == _scratch(nodes)
    by_name = IncrementalSum()
    for round_ in range(40):  # a count per node name: a new tuple for every node, every time
        nodes = [_info(f"n{i}", _ZONES[i % 3], round_ % 2) for i in range(300)]
        by_name.refresh(nodes, lambda info, r=round_: ((info.name, r),))
        assert len(by_name._interned) <= 4 * len(nodes) + 64
        assert by_name.sums == {f"n{i}": round_ for i in range(300)}


def test_sum_cache_weighs_a_signature_by_its_positions_and_keys() -> None:
    """A count per node name holds a key per node and weighs twice a count per zone: the same
    budget keeps three zone signatures but two name signatures."""
    nodes = [_info(f"n{i}", _ZONES[i % 3], 0) for i in range(10)]
    calls: Counter[str] = Counter()

    def by_zone(info: NodeInfo) -> tuple[tuple[str, int], ...]:
        calls["zone"] += 1
        assert info.node is not None
        return ((info.node.labels["zone"], 0),)

    def by_name(info: NodeInfo) -> tuple[tuple[str, int], ...]:
        calls["name"] += 1
        return ((info.name, 0),)

    for count, kind in ((by_zone, "zone"), (by_name, "name")):
        cache = SumCache(size=10, positions=45)
        for sig in ("a", "b", "c", "a"):
            entry = cache.get(sig, nodes, count)
        assert entry.weight == (13 if kind == "zone" else 20)
        # zone: a, b and c fit (39), a was kept; name: c pushed a out (b and c weigh 40)
        assert calls[kind] == (30 if kind == "zone" else 40)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.tuples(st.integers(0, 30), st.booleans()), max_size=40), min_size=1, max_size=8),
       st.booleans())
def test_lists_that_grow_shrink_repeat_and_reorder_sum_exactly(steps, with_delta):
    """As a snapshot's lists of nodes with affinity pods change: nodes from a pool join, leave
    and move, some NodeInfos are replaced by new ones of the same name, some are listed twice.
    Each refresh sums the list as counting it from scratch does."""
    pool = {i: _info(f"n{i}", _ZONES[i % 3], i % 3) for i in range(31)}
    acc = IncrementalSum()
    delta = (lambda old, new, pairs: _contribute(new)) if with_delta else None
    for step in steps:
        nodes = []
        for idx, replace in step:
            if replace:
                pool[idx] = _info(f"n{idx}", _ZONES[(idx + len(nodes)) % 3], len(nodes) % 4)
            nodes.append(pool[idx])
        acc.refresh(nodes, _contribute, delta)
        assert (acc.sums, acc.matches) == _scratch(nodes)
        assert acc.positions == len(nodes)
