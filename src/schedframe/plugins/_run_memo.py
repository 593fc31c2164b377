"""Per-node results remembered by position in the snapshot's node list.

The scheduler hands Filter and Score plugins runs of consecutive nodes of the snapshot's node
list (its round robin), and between two cycles only the nodes that changed get new NodeInfo
objects: the cache clones a changed NodeInfo into the snapshot and never changes a snapshot
NodeInfo in place. A plugin whose result for a node depends only on the NodeInfo object and on a
per-pod *key* can therefore remember each position's NodeInfo and result, and answer a run whose
NodeInfos are the remembered ones with two list slices, without reading any NodeInfo.

Correctness does not depend on positions: a remembered result is used only for the very
NodeInfo object it was computed from (compared by identity, C-level), with an equal key.
Positions only say where to look. A list that is not a run of the snapshot list (the feasible
nodes when some were filtered out, a preemption's clones) is computed as usual, at the cost of
one identity comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, Generic, TypeVar, final

from ..cache.nodeinfo import NodeInfo
from ..framework.status import Status

__all__ = ["RunMemo", "rejections", "snapshot_of"]

V = TypeVar("V")

#: keys (pod shapes) remembered per plugin; the least recently used goes first
_MAX_KEYS: Final = 4


def snapshot_of(handle: Any) -> object:
    """The snapshot a memo checks runs against: the handle's, or None without a handle."""
    return None if handle is None else handle.snapshot_shared_lister()


def rejections(results: list[Status | None]) -> list[tuple[int, Status]]:
    """``filter_nodes``' answer from per-node Filter outcomes: (index, status) of the rejected."""
    if results.count(None) == len(results):
        return []
    return [(i, s) for i, s in enumerate(results) if s is not None]


def _segment(items: list[Any], start: int, count: int) -> list[Any]:
    """``count`` items of *items* from *start*, wrapping around its end."""
    end = start + count
    n = len(items)
    if end <= n:
        return items[start:end]
    return items[start:] + items[:end - n]


@final
class RunMemo(Generic[V]):
    """Remembers one plugin's per-node results by (key, position), validated by NodeInfo identity.

    Holds, per key, one list of NodeInfos and one list of results as long as the snapshot's node
    list: a NodeInfo replaced in the snapshot stays referenced here until its position is
    computed again (at most one per position and key, for :data:`_MAX_KEYS` keys).
    """

    __slots__ = ("_entries",)

    def __init__(self) -> None:
        self._entries: dict[Hashable, tuple[list[NodeInfo | None], list[Any]]] = {}

    def clear(self) -> None:
        """Forget everything."""
        self._entries.clear()

    def values(self, key: Hashable, lister: object, nodes: Sequence[NodeInfo],
               compute: Callable[[Sequence[NodeInfo]], list[V]]) -> list[V]:
        """The result of each node of *nodes*: remembered ones where *nodes* is a run of
        *lister*'s node list whose NodeInfos were seen before with *key*, the others from
        ``compute(subset)`` (which must return one result per node of the subset, in order).

        *lister* is the handle's snapshot (anything without ``index`` and ``list`` methods just
        means no memo).
        """
        m = len(nodes)
        if not m or nodes.__class__ is not list:
            return compute(nodes)
        index = getattr(lister, "index", None)
        if index is None:
            return compute(nodes)
        start = index(nodes[0].name)
        if start is None:
            return compute(nodes)
        base: list[NodeInfo] = lister.list()  # type: ignore[attr-defined]
        n = len(base)
        if m > n:
            return compute(nodes)
        if _segment(base, start, m) != nodes:  # not a run of the snapshot list (identity compare)
            return compute(nodes)
        entries = self._entries
        entry = entries.pop(key, None)  # re-inserted last: least recently used first
        if entry is None or len(entry[0]) != n:
            if len(entries) >= _MAX_KEYS:
                del entries[next(iter(entries))]
            entry = ([None] * n, [None] * n)
        entries[key] = entry
        infos, results = entry
        seen = _segment(infos, start, m)
        if seen == nodes:  # identity first: no NodeInfo is read when they are the same objects
            return _segment(results, start, m)
        changed: list[int] = []
        _differences(seen, nodes, 0, m, changed)
        fresh = compute([nodes[k] for k in changed])
        if len(fresh) != len(changed):
            raise ValueError(f"compute returned {len(fresh)} results for {len(changed)} nodes")
        for k, value in zip(changed, fresh):
            pos = start + k
            if pos >= n:
                pos -= n
            infos[pos] = nodes[k]
            results[pos] = value
        return _segment(results, start, m)


#: below this many items :func:`_differences` compares one by one
_LINEAR: Final = 24


def _differences(seen: list[Any], nodes: Sequence[Any], lo: int, hi: int, out: list[int]) -> None:
    """Append to *out* the indexes in ``[lo, hi)`` where *seen* and *nodes* hold different objects.

    Halves are compared as slices (C-level identity comparisons) and only unequal halves are
    searched further, so a few changed nodes in a long run cost a few dozen slice comparisons
    instead of a Python loop over the run.
    """
    if hi - lo <= _LINEAR:
        out.extend(k for k in range(lo, hi) if seen[k] is not nodes[k])
        return
    mid = (lo + hi) // 2
    if seen[lo:mid] != nodes[lo:mid]:
        _differences(seen, nodes, lo, mid, out)
    if seen[mid:hi] != nodes[mid:hi]:
        _differences(seen, nodes, mid, hi, out)
