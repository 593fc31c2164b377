"""Private helpers shared by the PodTopologySpread and InterPodAffinity plugins.

Decoding of the camelCase args pieces they accept (label selectors, topology spread constraints)
and the well-known topology labels.
"""

from __future__ import annotations

import functools
import threading
from bisect import bisect_left
from collections.abc import Callable, Hashable, Mapping, Sequence
from itertools import compress, repeat
from operator import eq
from typing import Any, Final, final

from ..api._fields import label_selector_to_manifest
from ..api._pod import spread_constraint_to_manifest
from ..api.objects import LabelSelector, LabelSelectorRequirement, TopologySpreadConstraint
from ..cache.nodeinfo import NodeInfo, PodInfo, pod_changes
from ..cache.snapshot import CHANGED_AFFINITY, CHANGED_NODE, Snapshot
from ._helpers import FieldErrors, label_key_errors, label_value_errors

__all__ = [
    "LABEL_HOSTNAME",
    "Contribution",
    "Delta",
    "Follow",
    "PodPairs",
    "IncrementalSum",
    "SumCache",
    "following",
    "per_pod",
    "probe_of",
    "selector_probe",
    "pod_changes",
    "LABEL_TOPOLOGY_ZONE",
    "check_keys",
    "label_values",
    "constraint_from_dict",
    "constraint_to_dict",
    "selector_error",
    "selector_from_dict",
    "selector_to_dict",
]

LABEL_HOSTNAME: Final = "kubernetes.io/hostname"
LABEL_TOPOLOGY_ZONE: Final = "topology.kubernetes.io/zone"

# --------------------------------------------------------------------------------------------
# Decoding camelCase args


def check_keys(data: Mapping[str, Any], allowed: frozenset[str], path: str) -> list[str]:
    unknown = sorted(k for k in data if k not in allowed)
    if not unknown:
        return []
    where = f"{path}: " if path else ""
    return [f"{where}unknown field(s) {', '.join(repr(k) for k in unknown)}; "
            f"known fields: {', '.join(sorted(allowed))}"]


def _fields(data: Any, allowed: frozenset[str], path: str, errors: list[str]) -> Mapping[str, Any] | None:
    """*data* as a mapping of the *allowed* fields (others are errors), or None (an error) when
    it is not a mapping."""
    if not isinstance(data, Mapping):
        errors.append(f"{path}: must be a mapping, got {data!r}")
        return None
    errors.extend(check_keys(data, allowed, path))
    return data


_SELECTOR_KEYS: Final = frozenset({"matchLabels", "matchExpressions"})
_REQ_KEYS: Final = frozenset({"key", "operator", "values"})


def selector_from_dict(data: Any, path: str, errors: list[str]) -> LabelSelector | None:
    """Decode a ``metav1.LabelSelector`` mapping (``None`` stays ``None``)."""
    if data is None:
        return None
    if isinstance(data, LabelSelector):
        return data
    fields = _fields(data, _SELECTOR_KEYS, path, errors)
    if fields is None:
        return None
    labels = fields.get("matchLabels") or {}
    if not isinstance(labels, Mapping) or not all(
            isinstance(k, str) and isinstance(v, str) for k, v in labels.items()):
        errors.append(f"{path}.matchLabels: must be a mapping of strings, got {labels!r}")
        labels = {}
    reqs: list[LabelSelectorRequirement] = []
    exprs = fields.get("matchExpressions") or []
    if not isinstance(exprs, (list, tuple)):
        errors.append(f"{path}.matchExpressions: must be a list, got {exprs!r}")
        exprs = []
    for i, expr in enumerate(exprs):
        p = f"{path}.matchExpressions[{i}]"
        if isinstance(expr, LabelSelectorRequirement):
            reqs.append(expr)
            continue
        req = _fields(expr, _REQ_KEYS, p, errors)
        if req is None:
            continue
        values = req.get("values") or ()
        try:
            reqs.append(LabelSelectorRequirement(str(req.get("key", "")), str(req.get("operator", "")),
                                                 tuple(str(v) for v in values)))
        except ValueError:
            errors.append(f"{p}.operator: unsupported value {req.get('operator')!r}; supported values: "
                          "'DoesNotExist', 'Exists', 'In', 'NotIn'")
    return LabelSelector(dict(labels), tuple(reqs))


#: A :class:`~schedframe.api.LabelSelector` as a camelCase mapping (the manifest writer's encoding).
selector_to_dict: Final = label_selector_to_manifest


_CONSTRAINT_KEYS: Final = frozenset({
    "maxSkew", "topologyKey", "whenUnsatisfiable", "labelSelector", "minDomains",
    "nodeAffinityPolicy", "nodeTaintsPolicy", "matchLabelKeys",
})


def _int_field(data: Mapping[str, Any], key: str, path: str, errors: list[str], default: int | None
               ) -> int | None:
    value = data.get(key, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        errors.append(f"{path}.{key}: must be an integer, got {value!r}")
        return default
    return value


def _str_field(data: Mapping[str, Any], key: str, path: str, errors: list[str]) -> str | None:
    value = data.get(key)
    if value is None:
        return None
    if not isinstance(value, str):
        errors.append(f"{path}.{key}: must be a string, got {value!r}")
        return None
    return value


def constraint_from_dict(data: Any, path: str, errors: list[str]) -> TopologySpreadConstraint | None:
    """Decode one ``v1.TopologySpreadConstraint`` mapping; problems go to *errors*.

    Missing fields are left at their zero values (as Go decoding would) so that validation
    reports them.
    """
    if isinstance(data, TopologySpreadConstraint):
        return data
    fields = _fields(data, _CONSTRAINT_KEYS, path, errors)
    if fields is None:
        return None
    max_skew = _int_field(fields, "maxSkew", path, errors, 0)
    min_domains = _int_field(fields, "minDomains", path, errors, None)
    keys = fields.get("matchLabelKeys") or ()
    if not isinstance(keys, (list, tuple)) or not all(isinstance(k, str) for k in keys):
        errors.append(f"{path}.matchLabelKeys: must be a list of strings, got {keys!r}")
        keys = ()
    return TopologySpreadConstraint(
        max_skew=max_skew or 0,
        topology_key=_str_field(fields, "topologyKey", path, errors) or "",
        when_unsatisfiable=_str_field(fields, "whenUnsatisfiable", path, errors) or "",
        label_selector=selector_from_dict(fields.get("labelSelector"), f"{path}.labelSelector", errors),
        min_domains=min_domains,
        node_affinity_policy=_str_field(fields, "nodeAffinityPolicy", path, errors),
        node_taints_policy=_str_field(fields, "nodeTaintsPolicy", path, errors),
        match_label_keys=tuple(keys),
    )


#: A :class:`~schedframe.api.TopologySpreadConstraint` as a camelCase mapping (the manifest writer's
# encoding).
constraint_to_dict: Final = spread_constraint_to_manifest




# --------------------------------------------------------------------------------------------
# Parsing label selectors (apimachinery metav1.LabelSelectorAsSelector / labels.NewRequirement)


@functools.lru_cache(maxsize=4096)
def selector_error(selector: LabelSelector | None) -> str | None:
    """Why Kubernetes would fail to turn *selector* into a ``labels.Selector`` (the first
    failing requirement, in ``field.Error`` wording), or ``None`` when it parses."""
    if selector is None:
        return None
    for key, value in selector.match_labels.items():
        err = _requirement_error(key, "Equals", (value,))
        if err is not None:
            return err
    for req in selector.match_expressions:
        err = _requirement_error(req.key, req.operator, req.values)
        if err is not None:
            return err
    return None


def _requirement_error(key: str, op: str, values: tuple[str, ...]) -> str | None:
    errs = FieldErrors()
    key_errs = label_key_errors(key)
    if key_errs:
        errs.invalid("key", key, "; ".join(key_errs))
    if op in ("In", "NotIn"):
        if not values:
            errs.invalid("values", values, "for 'in', 'notin' operators, values set can't be empty")
    elif op == "Equals":
        if len(values) != 1:
            errs.invalid("values", values, "exact-match compatibility requires one single value")
    elif values:
        errs.invalid("values", values, "values set must be empty for exists and does not exist")
    for i, v in enumerate(values):
        value_errs = label_value_errors(v)
        if value_errs:
            errs.invalid(f"values[{i}][{key}]", v, "; ".join(value_errs))
    return errs.message() if errs else None


# --------------------------------------------------------------------------------------------
# Nodes by their topology labels


def label_values(nodes: Sequence[NodeInfo], keys: tuple[str, ...]) -> list[tuple[str | None, ...] | None]:
    """Each node's values of *keys* (None for a missing label), or None for a node whose Node
    object is gone: what the topology plugins' ``filter_nodes`` judge a node by."""
    out: list[tuple[str | None, ...] | None] = []
    append = out.append
    for ni in nodes:
        node = ni.node
        append(None if node is None else tuple(map(node.labels.get, keys)))
    return out


# --------------------------------------------------------------------------------------------
# Incremental aggregation over a snapshot's node list

#: What one node adds to an aggregate: ``(key, amount)`` pairs (a key may repeat).
Contribution = tuple[tuple[Hashable, int], ...]
#: ``delta(old, new, old_pairs)``: *new*'s contribution from *old*'s (the same node's NodeInfo
#: when last counted) without recounting every pod, or None to recount it
Delta = Callable[[NodeInfo, NodeInfo, Contribution], "Contribution | None"]


#: ``(log, index, probe)``: a snapshot's change log (``Snapshot._changes``: the positions of its
#: node list replaced, in order), the index of its changes' tags (``Snapshot._change_index``: tag
#: item -> the log indexes of the changes tagged with it) and the tag items that may change a sum
#: (:func:`selector_probe`...): a change whose tag holds none of them left every node's
#: contribution as it was (the node object is the same, and the pods added or removed are none a
#: sum counts). See :func:`following`.
Follow = tuple[list[int], dict[object, list[int]], frozenset[object]]


def following(lister: object, nodes: Sequence[NodeInfo], probe: frozenset[object] | None) -> Follow | None:
    """What :meth:`IncrementalSum.refresh` follows when *nodes* is the very node list of
    *lister*, a :class:`~schedframe.cache.Snapshot`, and a sum's *probe* is known; else None (every
    NodeInfo is compared by identity)."""
    if probe is None or lister.__class__ is not Snapshot or nodes is not lister._list:
        return None
    return lister._changes, lister._change_index, probe


def selector_probe(selector: LabelSelector | None) -> frozenset[object] | None:
    """Label items of which every pod *selector* matches carries one (None when there are none
    to name, such as for ``Exists`` alone or an empty selector): a pod carrying none of them is not
    matched. A ``None`` selector matches no pod: an empty set."""
    if selector is None:
        return frozenset()
    for item in selector.match_labels.items():
        return frozenset((item,))
    for req in selector.match_expressions:
        if req.operator == "In":
            return frozenset((req.key, v) for v in req.values)
    return None


def probe_of(*probes: frozenset[object] | None, node: bool = True, affinity: bool = False
             ) -> frozenset[object] | None:
    """The probe of a sum counting pods that some of *probes* select (their union; None when
    one is None), with :data:`~schedframe.cache.snapshot.CHANGED_NODE` (*node*: the contribution
    depends on the node object) and :data:`~schedframe.cache.snapshot.CHANGED_AFFINITY`
    (*affinity*: on the terms of the pods with pod (anti-)affinity)."""
    items: set[object] = set()
    for p in probes:
        if p is None:
            return None
        items.update(p)
    if node:
        items.add(CHANGED_NODE)
    if affinity:
        items.add(CHANGED_AFFINITY)
    return frozenset(items)


#: ``pairs_of(node_labels, pod)``: what one pod on a node adds to a per-pod sum
PodPairs = Callable[[Mapping[str, str], PodInfo], Sequence[tuple[Hashable, int]]]


def per_pod(pods_of: Callable[[NodeInfo], Sequence[PodInfo]], pairs_of: PodPairs
            ) -> tuple[Callable[[NodeInfo], Contribution], Delta]:
    """The ``contribute`` and :data:`Delta` of a sum whose node contribution is the pairs of its
    pods (``pods_of(node)``, in order) joined: ``pairs_of(labels, pod)`` for each. The node object
    unchanged, a changed node's contribution is its last one without the pairs of the pods
    removed and with those of the pods added; the pods are compared by identity."""

    def contribute(info: NodeInfo) -> Contribution:
        node = info.node
        if node is None:
            return ()
        labels = node.labels
        out: list[tuple[Hashable, int]] = []
        for p in pods_of(info):
            found = pairs_of(labels, p)
            if found:
                out.extend(found)
        return tuple(out)

    def delta(old: NodeInfo, new: NodeInfo, pairs: Contribution) -> Contribution | None:
        node = new.node
        if old.node is not node or node is None:
            return None  # labels, taints, ...: counted again
        added, removed = pod_changes(pods_of(old), pods_of(new))
        if not added and not removed:
            return pairs
        labels = node.labels
        gone = [pair for p in removed for pair in pairs_of(labels, p)]
        extra = [pair for p in added for pair in pairs_of(labels, p)]
        if not gone and not extra:
            return pairs
        out = list(pairs)
        try:
            for pair in gone:
                out.remove(pair)
        except ValueError:  # not what was counted: count it again
            return None
        out.extend(extra)
        return tuple(out)

    return contribute, delta


_CHUNK: Final = 256


def _common_head(a: list[NodeInfo], b: list[NodeInfo]) -> int:
    """How many leading items *a* and *b* share (the same objects), found a chunk at a time."""
    n = min(len(a), len(b))
    i = 0
    while i < n:
        j = min(i + _CHUNK, n)
        if a[i:j] != b[i:j]:
            while a[i] is b[i]:
                i += 1
            return i
        i = j
    return n


def _common_tail(a: list[NodeInfo], b: list[NodeInfo], limit: int) -> int:
    """How many trailing items, at most *limit*, *a* and *b* share (the same objects)."""
    na, nb = len(a), len(b)
    k = 0
    while k < limit:
        m = min(k + _CHUNK, limit)
        if a[na - m:na - k] != b[nb - m:nb - k]:
            while a[na - 1 - k] is b[nb - 1 - k]:
                k += 1
            return k
        k = m
    return limit


@final
class IncrementalSum:
    """Sums per-node contributions over a node list, refreshed incrementally across cycles.

    A snapshot replaces the NodeInfo of every node that changed and keeps the others, so on
    :meth:`refresh` only nodes whose NodeInfo object differs from last time are recounted.
    Contributions are kept by position, beside the NodeInfo they were counted from: when the list
    keeps its length, changed positions are found at C speed; when it grows or shrinks (a node
    gained its first pod with affinity, say), the common head and tail are kept, the NodeInfos
    still there are found by identity and the others by name: only the nodes that changed are
    recounted, and the ones that left dropped. Equal contributions are kept as one tuple (most nodes
    contribute one of a few, such as ``((zone, 0),)``).

    ``sums[key]`` is the total amount of *key* and ``matches[key]`` how many pairs contributed it;
    a key is present exactly while some node contributes it (even with a zero total). With
    *grouped*, keys are tuples and ``heads[key[0]]`` counts the present keys with that first item.
    """

    __slots__ = ("_cursor", "_infos", "_interned", "_log", "_pairs", "grouped", "heads", "matches", "sums")

    def __init__(self, grouped: bool = False) -> None:
        #: the snapshot change log the positions follow, read up to ``_cursor`` (see :data:`Follow`)
        self._log: list[int] | None = None
        self._cursor = 0
        self._infos: list[NodeInfo] = []
        self._pairs: list[Contribution] = []
        self._interned: dict[Contribution, Contribution] = {}
        self.sums: dict[Hashable, int] = {}
        self.matches: dict[Hashable, int] = {}
        self.grouped = grouped
        self.heads: dict[Hashable, int] = {}

    @property
    def positions(self) -> int:
        """How many nodes it keeps contributions of."""
        return len(self._infos)

    @property
    def weight(self) -> int:
        """What it holds, for a cache's budget: its positions and its keys (a count per node name
        holds a key per node, a count per zone a few)."""
        return len(self._infos) + len(self.sums)

    def refresh(self, nodes: Sequence[NodeInfo], contribute: Callable[[NodeInfo], Contribution],
                delta: Delta | None = None, follow: Follow | None = None) -> None:
        """Bring :attr:`sums` up to date with *nodes*; *delta*, when given, derives a changed
        node's contribution from its last one (see :data:`Delta`). With *follow* (*nodes* being a
        snapshot's node list, see :data:`Follow`), the nodes recounted are those the snapshot
        replaced since the last refresh with that log whose tags meet the probe."""
        log = self._log
        self._log = None  # set again once counted: a refresh that raised leaves nothing to follow
        if follow is None:
            self._refresh(nodes, contribute, delta)
            return
        followed, index, probe = follow
        end = len(followed)
        if log is followed and len(self._infos) == len(nodes):
            self._follow(nodes, followed, index, probe, contribute, delta)  # type: ignore[arg-type]
        else:
            self._refresh(nodes, contribute, delta)  # every NodeInfo compared: now as the log says
        self._log, self._cursor = followed, end

    def _refresh(self, nodes: Sequence[NodeInfo], contribute: Callable[[NodeInfo], Contribution],
                 delta: Delta | None) -> None:
        """:meth:`refresh` by identity: the positions whose NodeInfo is not the one counted."""
        if not isinstance(nodes, list):
            nodes = list(nodes)
        infos = self._infos
        n = len(nodes)
        if n == len(infos):
            if nodes == infos:  # identity comparisons in C: nothing was replaced
                return
            for start in range(0, n, _CHUNK):
                end = start + _CHUNK
                if nodes[start:end] == infos[start:end]:
                    continue
                pairs = self._pairs
                for i in range(start, min(end, n)):
                    info = nodes[i]
                    old = infos[i]
                    if info is not old:  # counted first: a count that raised leaves the old pair
                        pairs[i] = self._moved(old, info, pairs[i], contribute,
                                               delta if old.name == info.name else None)
                        infos[i] = info
            return
        if not infos:  # the first count: every node, in one pass
            self._build(nodes, contribute)
            return
        self._regroup(nodes, contribute, delta)

    def _follow(self, nodes: list[NodeInfo], log: list[int], index: dict[object, list[int]],
                probe: frozenset[object], contribute: Callable[[NodeInfo], Contribution],
                delta: Delta | None) -> None:
        """:meth:`refresh` from the snapshot's log: the positions replaced since ``_cursor`` whose
        tag meets *probe* (found in the tags' index) are recounted, each once, from the NodeInfo
        last counted there; the others take their new NodeInfo with the contribution they had."""
        cursor = self._cursor
        end = len(log)
        if cursor == end:
            return
        self._cursor = end
        hits: list[int] = []
        for item in probe:
            tagged = index.get(item)
            if tagged and tagged[-1] >= cursor:
                hits += tagged[bisect_left(tagged, cursor):]
        infos = self._infos
        if hits:
            if len(hits) > 1:
                hits = sorted(set(hits))  # each change once, in log order
            pairs = self._pairs
            for pos in dict.fromkeys(map(log.__getitem__, hits)):
                info = nodes[pos]
                old = infos[pos]
                if info is not old:
                    pairs[pos] = self._moved(old, info, pairs[pos], contribute,
                                             delta if old.name == info.name else None)
                    infos[pos] = info
        if (end - cursor) * 100 > len(nodes):  # a copy costs about what 1 in 100 items set costs
            self._infos = nodes[:]
        else:
            positions = log[cursor:end]
            list(map(infos.__setitem__, positions, map(nodes.__getitem__, positions)))

    def _intern(self, pairs: Contribution) -> Contribution:
        interned = self._interned
        if len(interned) > 4 * len(self._infos) + 64:  # only for sharing: forget, never grow on
            interned.clear()
        return interned.setdefault(pairs, pairs)

    def _build(self, nodes: list[NodeInfo], contribute: Callable[[NodeInfo], Contribution]) -> None:
        """Count every node of *nodes* into empty sums (what :meth:`_moved` on each would do)."""
        interned = self._interned
        pairs_list = [interned.setdefault(p, p) for p in map(contribute, nodes)]
        add = self._add
        for pairs in pairs_list:
            if pairs:
                add(pairs)
        self._infos = list(nodes)
        self._pairs = pairs_list

    def _regroup(self, nodes: list[NodeInfo], contribute: Callable[[NodeInfo], Contribution],
                 delta: Delta | None) -> None:
        """A list of another length (a node joined or left a snapshot's list of nodes with
        affinity pods, say): what the two lists share at their head and tail is kept as it is
        (C-level slice comparisons); in between, the NodeInfos still there are found by identity
        at C speed and the others by name, to be recounted from their last contribution."""
        infos, had = self._infos, self._pairs
        n_old, n_new = len(infos), len(nodes)
        head = _common_head(infos, nodes)
        tail = _common_tail(infos, nodes, min(n_old, n_new) - head)
        old_mid, new_mid, had_mid = infos[head:n_old - tail], nodes[head:n_new - tail], had[head:n_old - tail]
        at = dict(zip(map(id, old_mid), range(len(old_mid))))
        absent = len(old_mid)
        found = list(map(at.get, map(id, new_mid), repeat(absent)))
        fresh = list(compress(range(len(found)), map(eq, found, repeat(absent))))
        taken = set(found)
        taken.discard(absent)
        if len(taken) != len(found) - len(fresh):  # a NodeInfo listed twice: count position by position
            self._regroup_by_name(nodes, contribute, delta)
            return
        kept: list[Contribution] = list(map([*had_mid, ()].__getitem__, found))
        free = set(range(len(old_mid))) - taken
        if fresh:
            where = {old_mid[i].name: i for i in free}
            for j in fresh:
                info = new_mid[j]
                i = where.pop(info.name, None)
                if i is None:
                    pairs = self._intern(contribute(info))
                    self._add(pairs)
                else:
                    free.discard(i)
                    pairs = self._moved(old_mid[i], info, had_mid[i], contribute, delta)
                kept[j] = pairs
        for i in free:
            self._remove(had_mid[i])
        self._infos = list(nodes)
        self._pairs = [*had[:head], *kept, *had[n_old - tail:]]

    def _moved(self, old: NodeInfo, info: NodeInfo, pairs: Contribution,
               contribute: Callable[[NodeInfo], Contribution], delta: Delta | None) -> Contribution:
        """*info*'s contribution, counted in place of *old*'s *pairs* (from them with *delta*, given
        for the same node's)."""
        new = delta(old, info, pairs) if delta is not None else None
        if new is None:
            new = contribute(info)
        if new != pairs:  # the same pairs: nothing to take back and add again
            self._remove(pairs)
            pairs = self._intern(new)
            self._add(pairs)
        return pairs

    def _regroup_by_name(self, nodes: list[NodeInfo], contribute: Callable[[NodeInfo], Contribution],
                         delta: Delta | None) -> None:
        """:meth:`_regroup` one node at a time: each node's last contribution found by name."""
        infos, had = self._infos, self._pairs
        where = {info.name: i for i, info in enumerate(infos)}
        taken: set[int] = set()
        kept: list[Contribution] = []
        for info in nodes:
            i = where.get(info.name)
            if i is None or i in taken:
                pairs = self._intern(contribute(info))
                self._add(pairs)
            else:
                taken.add(i)
                pairs = had[i] if infos[i] is info else self._moved(infos[i], info, had[i], contribute, delta)
            kept.append(pairs)
        for i, pairs in enumerate(had):
            if i not in taken:
                self._remove(pairs)
        self._infos = list(nodes)
        self._pairs = kept

    def _add(self, pairs: Contribution) -> None:
        sums = self.sums
        matches = self.matches
        for key, amount in pairs:
            m = matches.get(key)
            if m is None:
                matches[key] = 1
                sums[key] = amount
                if self.grouped:
                    head = key[0]  # type: ignore[index]
                    self.heads[head] = self.heads.get(head, 0) + 1
            else:
                matches[key] = m + 1
                sums[key] += amount

    def _remove(self, pairs: Contribution) -> None:
        sums = self.sums
        matches = self.matches
        for key, amount in pairs:
            left = matches[key] - 1
            if left:
                matches[key] = left
                sums[key] -= amount
            else:
                del matches[key]
                del sums[key]
                if self.grouped:
                    head = key[0]  # type: ignore[index]
                    count = self.heads[head] - 1
                    if count:
                        self.heads[head] = count
                    else:
                        del self.heads[head]


@final
class SumCache:
    """A small LRU map from counting signatures to :class:`IncrementalSum` s, thread-safe.

    It keeps up to *size* signatures, fewer when together they hold more than *positions*
    positions and keys (:attr:`IncrementalSum.weight`; a workload of many apps has a signature
    per app and plugin: on a small cluster they all stay, on a big one the least recently used go
    first). The default budget holds about 50 MB of counts per zone, or 290 MB of counts per
    node name (17 and 96 bytes per unit, measured): a signature counted again costs a pass over
    every node, and on 5,000 nodes MixedShapes' 526 signatures nearly all stay.
    """

    __slots__ = ("_entries", "_lock", "_positions", "_size")

    def __init__(self, size: int = 1024, positions: int = 3_000_000) -> None:
        self._entries: dict[Hashable, IncrementalSum] = {}
        self._lock = threading.Lock()
        self._size = size
        self._positions = positions

    def get(self, signature: Hashable, nodes: Sequence[NodeInfo],
            contribute: Callable[[NodeInfo], Contribution], *, grouped: bool = False,
            delta: Delta | None = None, follow: Follow | None = None) -> IncrementalSum:
        """The :class:`IncrementalSum` of *signature*, refreshed over *nodes*.

        Its dicts stay valid until the next call for the same signature; copy what must outlive
        the scheduling cycle or will be modified.
        """
        with self._lock:
            entries = self._entries
            entry = entries.pop(signature, None)
            if entry is None:
                entry = IncrementalSum(grouped)
                # room for one more, within the size and (about) the budget
                if len(entries) >= self._size:
                    del entries[next(iter(entries))]
                if entries:
                    total = len(nodes) + sum(e.weight for e in entries.values())
                    while entries and total > self._positions:
                        total -= entries.pop(next(iter(entries))).weight
            entries[signature] = entry
            entry.refresh(nodes, contribute, delta, follow)
            return entry
