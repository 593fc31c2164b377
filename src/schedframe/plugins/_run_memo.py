"""Per-node results remembered by position in the snapshot's node list.

The scheduler hands Filter and Score plugins runs of consecutive nodes of the snapshot's node
list (its round robin), and between two cycles only the nodes that changed get new NodeInfo
objects: the cache clones a changed NodeInfo into the snapshot and never changes a snapshot
NodeInfo in place. A plugin whose result for a node depends only on the NodeInfo object and on a
per-pod *key* can therefore remember each position's NodeInfo and result, and answer a run whose
NodeInfos are the remembered ones with two list slices, without reading any NodeInfo.

A remembered result is used only for the very NodeInfo object it was computed from, with an
equal key. With a :class:`~schedframe.cache.Snapshot`, which logs the positions it replaces, each key
flags the positions replaced since its last visit (read from the log where it left off: a few
entries, whatever the run's length) and those never computed; a run's flagged positions are the
ones computed again, found with C-level scans. So correctness rests on the snapshot logging
every replacement, which it does (its node list changes only there, and a rebuilt list starts a
new log, which a key meets by comparing every position once). With other listers a run is
compared with the remembered NodeInfos position by position (identity, C-level). A list that is
not a run of the snapshot list (a preemption's clones, a list with gaps) is computed as usual,
at the cost of one identity comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from itertools import compress, pairwise
from operator import is_not
from typing import TYPE_CHECKING, Any, Final, Generic, TypeVar, final

from ..cache.nodeinfo import NodeInfo
from ..cache.snapshot import Snapshot
from ..framework.status import Status

if TYPE_CHECKING:
    from ..api.objects import Node, Pod
    from ..framework.cycle_state import CycleState

__all__ = ["COLUMN_ROOM", "NodeColumns", "RunMemo", "filter_flagged", "rejections", "run_start",
           "run_without", "snapshot_of"]

V = TypeVar("V")

#: keys (pod shapes) remembered per plugin; the least recently used goes first
_MAX_KEYS: Final = 32
#: ... but at most this many positions over all keys (fewer keys on big clusters), and never
#: fewer than _MIN_KEYS keys
_MAX_POSITIONS: Final = 160_000
_MIN_KEYS: Final = 4


def snapshot_of(handle: Any) -> object:
    """The snapshot a memo checks runs against: the handle's, or None without a handle."""
    return None if handle is None else handle.snapshot_shared_lister()


def run_start(lister: object, nodes: Sequence[NodeInfo]) -> int | None:
    """Where *nodes* starts in the node list of *lister* when *lister* is a
    :class:`~schedframe.cache.Snapshot` and *nodes* a plain list holding a run of its NodeInfos (the
    very objects, wrapping around its end); None otherwise. A plugin may then answer from
    what the snapshot knows of all its nodes (:meth:`Snapshot.num_tainted
    <schedframe.cache.Snapshot.num_tainted>`...)."""
    if lister.__class__ is not Snapshot or nodes.__class__ is not list or not nodes:
        return None
    start: int | None = lister._pos.get(nodes[0].name)
    return start if start is not None and _is_run(lister._list, start, nodes) else None


def _is_run(base: list[NodeInfo], start: int, nodes: list[NodeInfo]) -> bool:
    """Whether *nodes* holds the very objects of *base* from *start* on (wrapping around its
    end): identity comparisons at C speed."""
    m = len(nodes)
    n = len(base)
    if not 0 < m <= n:
        return m == 0
    end = start + m
    # the last node first: a list with a gap (nodes a Filter rejected) fails here in O(1)
    if base[end - 1 if end <= n else end - 1 - n] is not nodes[-1]:
        return False
    if end <= n:
        return base[start:end] == nodes
    return _segment(base, start, m) == nodes


def run_without(lister: object, nodes: Sequence[NodeInfo], count: Callable[[Snapshot], int]) -> bool:
    """Whether *lister* is a :class:`~schedframe.cache.Snapshot` for which ``count(snapshot)`` (one of
    its O(1) counts of nodes, such as :meth:`Snapshot.num_tainted
    <schedframe.cache.Snapshot.num_tainted>`) is 0 and *nodes* is a run of its node list
    (:func:`run_start`): then no node of *nodes* has what it counts."""
    return lister.__class__ is Snapshot and not count(lister) and run_start(lister, nodes) is not None


def rejections(results: list[Status | None]) -> list[tuple[int, Status]]:
    """``filter_nodes``' answer from per-node Filter outcomes: (index, status) of the rejected."""
    # a Status is always true and None false: C-level truth tests pick the rejected
    rejected = list(compress(range(len(results)), results))
    if not rejected:
        return []
    return list(zip(rejected, filter(None, results)))


def filter_flagged(filter_one: Callable[[CycleState, Pod, NodeInfo], Status | None], state: CycleState,
                   pod: Pod, nodes: Sequence[NodeInfo], flagged: Callable[[Node], object],
                   count: Callable[[Snapshot], int], memo: RunMemo[Status | None], key: Hashable,
                   handle: Any) -> list[tuple[int, Status]]:
    """``filter_nodes`` of a Filter that passes every node not *flagged* (cordoned, tainted...):
    only flagged or missing nodes go through *filter_one*; a run of a snapshot without flagged
    nodes (*count* 0, see :func:`run_without`) passes at once; the outcomes are remembered by
    position in *memo* under *key*, all an outcome depends on besides the NodeInfo."""

    def compute(some: Sequence[NodeInfo]) -> list[Status | None]:
        return [filter_one(state, pod, ni) if (node := ni.node) is None or flagged(node) else None
                for ni in some]

    lister = snapshot_of(handle)
    if run_without(lister, nodes, count):
        return []
    return rejections(memo.values(key, lister, nodes, compute))


def _segment(items: list[Any], start: int, count: int) -> list[Any]:
    """``count`` items of *items* from *start*, wrapping around its end."""
    end = start + count
    n = len(items)
    if end <= n:
        return items[start:end]
    return items[start:] + items[:end - n]


@final
class _Entry:
    """One key's remembered NodeInfos and results by position.

    With a snapshot's change log (``log``, read up to ``cursor``), ``stale`` flags (1) the
    positions whose result must be computed (again): never computed, or replaced in the
    snapshot since; a run's flagged positions are found with C-level scans of its slice of
    ``stale``, whatever the number of flags elsewhere.
    """

    __slots__ = ("cursor", "infos", "log", "results", "stale", "used")

    def __init__(self, n: int, log: list[int] | None) -> None:
        self.used = 0  # the memo's tick of its last visit (least recently used goes first)
        self.infos: list[NodeInfo | None] = [None] * n
        self.results: list[Any] = [None] * n
        self.log = log
        self.cursor = 0 if log is None else len(log)
        self.stale = bytearray(b"\x01") * n


@final
class RunMemo(Generic[V]):
    """Remembers one plugin's per-node results by (key, position), validated by NodeInfo identity.

    Holds, per key, one list of NodeInfos and one list of results as long as the snapshot's node
    list: a NodeInfo replaced in the snapshot stays referenced here until its position is
    computed again (at most one per position and key, for :data:`_MAX_KEYS` keys, fewer on
    clusters of more than ``_MAX_POSITIONS / _MAX_KEYS`` nodes).

    With a :class:`~schedframe.cache.Snapshot` (which logs the positions it replaces), a key's visit
    first forgets the positions replaced since its last visit (a few, whatever the run's
    length), so every position still remembered holds the snapshot's NodeInfo and a run needs
    no per-node comparison. Other listers are compared position by position (by identity).
    """

    __slots__ = ("_entries", "_tick")

    def __init__(self) -> None:
        self._entries: dict[Hashable, _Entry] = {}
        self._tick = 0

    def clear(self) -> None:
        """Forget everything."""
        self._entries.clear()

    def values(self, key: Hashable, lister: object, nodes: Sequence[NodeInfo],
               compute: Callable[[Sequence[NodeInfo]], list[V]],
               whole: Callable[[list[NodeInfo], int, list[NodeInfo]], list[V]] | None = None) -> list[V]:
        """The result of each node of *nodes*: remembered ones where *nodes* is a run of
        *lister*'s node list whose NodeInfos were seen before with *key*, the others from
        ``compute(subset)`` (which must return one result per node of the subset, in order).

        *whole*, when given, computes a whole run instead of *compute* (most nodes new:
        nothing remembered): ``whole(snapshot_list, start, nodes)`` with *nodes* the run of
        ``snapshot_list`` from position *start* (see :class:`NodeColumns`).

        *lister* is the handle's snapshot (anything without ``index`` and ``list`` methods just
        means no memo).
        """
        m = len(nodes)
        if not m or nodes.__class__ is not list:
            return compute(nodes)
        if lister.__class__ is Snapshot:  # the scheduler's: its attributes read directly
            pos_get = lister._pos.get
            base: list[NodeInfo] = lister._list
            log: list[int] | None = lister._changes
        else:
            index = getattr(lister, "index", None)
            if index is None:
                return compute(nodes)
            pos_get = index
            base = lister.list()  # type: ignore[attr-defined]
            log = getattr(lister, "_changes", None)
        start = pos_get(nodes[0].name)
        if start is None:
            return compute(nodes)
        if not _is_run(base, start, nodes):  # not a run of the snapshot list
            return compute(nodes)
        n = len(base)
        end = start + m
        self._tick = tick = self._tick + 1
        entries = self._entries
        entry = entries.get(key)
        if entry is None or len(entry.infos) != n:
            if entry is None:
                limit = max(_MIN_KEYS, min(_MAX_KEYS, _MAX_POSITIONS // n))
                while len(entries) >= limit:  # forget the least recently used
                    del entries[min(entries, key=lambda k: entries[k].used)]
            entry = entries[key] = _Entry(n, log)
            entry.used = tick
            return _compute_all(entry, start, nodes, compute, whole, base)
        entry.used = tick
        if log is None:
            seen = _segment(entry.infos, start, m)
            if seen == nodes:  # identity first: no NodeInfo is read when they are the same objects
                return _segment(entry.results, start, m)
            changed = _changed(seen, nodes)
        else:
            if entry.log is not log or entry.cursor != len(log):
                _follow(entry, log, base)
            stale = entry.stale
            if end <= n:
                flagged = stale.count(1, start, end)
                if not flagged:
                    return entry.results[start:end]
            else:
                flagged = stale.count(1, start, n) + stale.count(1, 0, end - n)
                if not flagged:
                    return _segment(entry.results, start, m)
            if m > _LINEAR and flagged * 4 > m:  # mostly new: compute them all
                return _compute_all(entry, start, nodes, compute, whole, base)
            changed = _flagged(stale, start, m, n)
        if m > _LINEAR and len(changed) * 4 > m:
            # mostly new NodeInfos (nothing repeats): compute them all, store with slices
            return _compute_all(entry, start, nodes, compute, whole, base)
        fresh = compute([nodes[k] for k in changed])
        if len(fresh) != len(changed):
            raise ValueError(f"compute returned {len(fresh)} results for {len(changed)} nodes")
        infos = entry.infos
        results = entry.results
        stale = entry.stale
        for k, value in zip(changed, fresh):
            pos = start + k
            if pos >= n:
                pos -= n
            infos[pos] = nodes[k]
            results[pos] = value
            stale[pos] = 0
        return results[start:end] if end <= n else _segment(results, start, m)


def _follow(entry: _Entry, log: list[int], base: list[NodeInfo]) -> None:
    """Flag *entry*'s positions the snapshot replaced since its last visit: the log's new
    entries, or, on a log it has not followed (a rebuilt list, a log started over, another
    snapshot), every position whose NodeInfo is not *base*'s."""
    stale = entry.stale
    if entry.log is log:
        end = len(log)
        if entry.cursor != end:
            for pos in log[entry.cursor:end]:
                stale[pos] = 1
            entry.cursor = end
        return
    for pos in compress(range(len(base)), map(is_not, entry.infos, base)):
        stale[pos] = 1
    entry.log = log
    entry.cursor = len(log)


def _flagged(stale: bytearray, start: int, m: int, n: int) -> list[int]:
    """The indexes, in the run of *m* positions from *start* (wrapping at *n*), of the positions
    flagged in *stale*, in order (one C-level scan from each to the next)."""
    out: list[int] = []
    end = start + m
    find = stale.find
    stop = end if end <= n else n
    k = find(1, start, stop)
    while k >= 0:
        out.append(k - start)
        k = find(1, k + 1, stop)
    if end > n:
        head = n - start
        k = find(1, 0, end - n)
        while k >= 0:
            out.append(k + head)
            k = find(1, k + 1, end - n)
    return out


def _changed(seen: list[Any], nodes: Sequence[Any]) -> list[int]:
    """The indexes where *seen* and *nodes* hold different objects (compared by identity):
    searched by halves, so that the usual few changes in a long run cost a few slice
    comparisons."""
    m = len(nodes)
    if m <= _SCAN:
        return list(compress(range(m), map(is_not, seen, nodes)))
    # which quarters differ: with changes in three or four of them (many changes: a pattern
    # revisited after many cycles), one pass over the pairs costs less than halving
    q = m // 4
    bounds = (0, q, 2 * q, 3 * q, m)
    unequal = [(lo, hi) for lo, hi in pairwise(bounds) if seen[lo:hi] != nodes[lo:hi]]
    if len(unequal) >= 3:
        return list(compress(range(m), map(is_not, seen, nodes)))
    out: list[int] = []
    for lo, hi in unequal:
        _differences(seen, nodes, lo, hi, out)
    return out


def _store(items: list[Any] | bytearray, start: int, values: Sequence[Any]) -> None:
    """Write *values* into *items* from *start*, wrapping around its end (slice assignments)."""
    end = start + len(values)
    n = len(items)
    if end <= n:
        items[start:end] = values
    else:
        k = n - start
        items[start:] = values[:k]
        items[:end - n] = values[k:]


def _compute_all(entry: _Entry, start: int, nodes: list[NodeInfo],
                 compute: Callable[[Sequence[NodeInfo]], list[V]],
                 whole: Callable[[list[NodeInfo], int, list[NodeInfo]], list[V]] | None,
                 base: list[NodeInfo]) -> list[V]:
    """Compute every node of the run and remember them all."""
    fresh = compute(nodes) if whole is None else whole(base, start, nodes)
    if len(fresh) != len(nodes):
        raise ValueError(f"compute returned {len(fresh)} results for {len(nodes)} nodes")
    _store(entry.infos, start, nodes)
    _store(entry.results, start, fresh)
    _store(entry.stale, start, bytes(len(nodes)))
    return fresh


#: up to this many items :func:`_differences` compares them all in one pass (at C speed; a
#: pass costs about what a few levels of halving cost)
_SCAN: Final = 64
#: runs longer than this with more than a quarter of changed nodes are computed whole
_LINEAR: Final = 24


def _differences(seen: list[Any], nodes: Sequence[Any], lo: int, hi: int, out: list[int]) -> None:
    """Append to *out* the indexes in ``[lo, hi)`` where *seen* and *nodes* hold different objects.

    Halves are compared as slices (C-level identity comparisons) and only unequal halves are
    searched further, so a few changed nodes in a long run cost a few dozen slice comparisons
    instead of a Python loop over the run.
    """
    if hi - lo <= _SCAN:  # one C-level pass over the pairs
        out.extend(compress(range(lo, hi), map(is_not, seen[lo:hi], nodes[lo:hi])))
        return
    mid = (lo + hi) // 2
    if seen[lo:mid] != nodes[lo:mid]:
        _differences(seen, nodes, lo, mid, out)
    if seen[mid:hi] != nodes[mid:hi]:
        _differences(seen, nodes, mid, hi, out)


#: the column of :class:`NodeColumns` after the ``resource_row`` fields: allocatable pods minus
#: the node's pods (room for more pods)
COLUMN_ROOM: Final = 11
_COLUMNS: Final = 12


@final
class NodeColumns:
    """The snapshot's nodes' ``resource_row`` fields as columns: one list per field, by position.

    ``columns(base, start, nodes)`` brings the positions of a run of the snapshot list up to
    date (only the positions whose NodeInfo is not the remembered one, compared by identity as
    in :class:`RunMemo`) and returns each field's values for the run: lists a loop can zip, and
    ``min`` can scan at C speed (a run where even the smallest free amount is enough for the
    pod needs no per-node check at all). Column :data:`COLUMN_ROOM` is allocatable pods minus
    the node's pods.

    Like :class:`RunMemo`, it relies on the snapshot's NodeInfos not changing in place: a
    changed node gets a new NodeInfo object.
    """

    __slots__ = ("_columns", "_infos")

    def __init__(self) -> None:
        self._infos: list[NodeInfo | None] = []
        self._columns: list[list[int]] = []

    def columns(self, base: list[NodeInfo], start: int, nodes: list[NodeInfo],
                fields: Sequence[int]) -> list[list[int]]:
        """The values of each field of *fields* for the run *nodes* of *base* from *start*."""
        n = len(base)
        m = len(nodes)
        infos = self._infos
        columns = self._columns
        if len(infos) != n:
            infos = self._infos = [None] * n
            columns = self._columns = [[0] * n for _ in range(_COLUMNS)]
        seen = _segment(infos, start, m)
        if seen != nodes:
            changed = _changed(seen, nodes)
            if m > _LINEAR and len(changed) * 4 > m:
                # mostly new: transpose the rows at C speed and store with slices
                rows = [ni.resource_row for ni in nodes]
                for f, values in enumerate(zip(*rows)):
                    if f < COLUMN_ROOM:
                        _store(columns[f], start, values)
                _store(columns[COLUMN_ROOM], start, [row[3] - len(ni.pods) for row, ni in zip(rows, nodes)])
                _store(infos, start, nodes)
                return [_segment(columns[f], start, m) for f in fields]
            for k in changed:
                pos = start + k
                if pos >= n:
                    pos -= n
                ni = nodes[k]
                infos[pos] = ni
                row = ni.resource_row
                for f in range(_COLUMNS - 1):
                    columns[f][pos] = row[f]
                columns[COLUMN_ROOM][pos] = row[3] - len(ni.pods)
        return [_segment(columns[f], start, m) for f in fields]
