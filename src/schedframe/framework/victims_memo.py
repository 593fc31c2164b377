"""Remembered per-node outcomes for pods of one shape: DefaultPreemption's victim selection, and
the Filter run with nominated pods.

A preemption attempt dry-runs victim selection on up to every node that failed Filter, and the
next preemptor of the same shape does it again on nodes that have not changed since. When every
Filter plugin that runs for the preemptor judges a node from the pod and that node alone (a
plugin that declares :data:`~schedframe.framework.interfaces.NODE_LOCAL_FILTER`, as the in-tree
NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodePorts and NodeResourcesFit do)
and no PreFilter extension runs, the outcome of
``select_victims_on_node`` is a function of:

* the preemptor's *shape*: the pod with its identity (name, uid, timestamps, status) blanked;
* the node's NodeInfo object (the snapshot never changes one in place: a changed node gets a
  new object, so identity means "same pods, same amounts, same labels");
* the pods nominated to the node that the Filter run adds (equal or higher priority, not the
  preemptor itself), compared one by one by identity;
* the PodDisruptionBudgets (identity of each object), the plugin's ``is_eligible_pod`` and
  ``more_important_pod`` hooks, the set of plugins PreFilter skipped;
* the clock, only when the node mixes pods with and without a start time (the sort of victims
  reads "now" for pods without one).

:class:`VictimsMemo` keeps the last outcome per node under those conditions, so an unchanged
node costs a few identity checks instead of two clones, a pod removal per victim and a Filter
run per reprieve. Nothing else changes: the same victims, counts and statuses come back (the
statuses are the very objects first returned).

The scheduler keeps the same kind of memo for ``run_filter_plugins_with_nominated_pods`` (a node
with nominated pods is filtered one by one, with a clone of the node and the cycle state holding
them): its outcome depends on the same things, the clock and the PDBs aside.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable, Sequence
from typing import Any, Final, final

import attrs

from ..api.objects import Pod, PodDisruptionBudget
from ..cache.nodeinfo import NodeInfo
from .cycle_state import CycleState
from .interfaces import is_node_local_filter
from .status import Status

__all__ = ["NodeOutcomes", "Shapes", "VictimsMemo", "VictimsResult", "node_local_filters", "nominator_checks"]

#: What ``select_victims_on_node`` returns, with the victims as a tuple.
VictimsResult = tuple[tuple[Pod, ...], int, Status]

#: Pod shapes remembered at once (the least recently used goes first).
_MAX_SHAPES: Final = 8


def node_local_filters(handle: Any, state: CycleState) -> tuple[Any, ...] | None:
    """The Filter plugins that run for *state* (as ``(name, filter)`` pairs) when each of them
    judges a node from the pod and that node alone and no PreFilter extension runs; else
    ``None`` (also for a handle that is not a framework this module knows)."""
    active = getattr(handle, "_active_filters", None)
    exts = getattr(handle, "_pre_filter_exts", None)
    if active is None or exts is None:
        return None
    skip = state.skip_filter_plugins
    for name, _ext in exts:
        if name not in skip:
            return None
    filters: tuple[Any, ...] = active(skip)
    for _name, fn in filters:
        if not is_node_local_filter(getattr(fn, "__self__", None)):
            return None
    return filters


def nominator_checks(nominator: object) -> tuple[Any, Any]:
    """The nominator's ``has_nominated_pods`` and ``_nominated_tuple`` (a memo's quick checks:
    :class:`VictimsMemo`'s *has_nominated* and *raw_for*), each None when it has no such
    method."""
    return getattr(nominator, "has_nominated_pods", None), getattr(nominator, "_nominated_tuple", None)


def _shape(pod: Pod) -> Pod:
    """*pod* without what tells one replica from another."""
    return attrs.evolve(pod, name="", uid="", creation_timestamp=None, nominated_node_name="",
                        start_time=None, conditions=(), phase="Pending")


@final
class _Entry:
    __slots__ = ("node_info", "nominated", "now", "raw", "result", "uid")

    def __init__(self, node_info: NodeInfo, nominated: tuple[Any, ...], now: float | None,
                 result: VictimsResult, raw: tuple[Any, ...] | None = None, uid: str = "") -> None:
        self.node_info = node_info
        self.nominated = nominated
        self.now = now
        self.result = result
        #: the nominator's own tuple of the node's nominated pods when stored (None: unknown),
        #: and the uid of the pod it was stored for
        self.raw = raw
        self.uid = uid


@final
class VictimsMemo:
    """The remembered outcomes for one shape of pod (see the module's description).

    Obtained from :meth:`Shapes.memo` or :meth:`NodeOutcomes.memo` for one attempt;
    :meth:`get` and :meth:`put` work per node.
    """

    __slots__ = ("_entries", "_has_nominated", "_nominated_for", "_now", "_pod", "_raw_for")

    def __init__(self, entries: dict[str, _Entry], pod: Pod, now: float | None,
                 nominated_for: Callable[[str], Sequence[Any]],
                 has_nominated: Callable[[str], bool] | None = None,
                 raw_for: Callable[[str], tuple[Any, ...]] | None = None) -> None:
        self._entries = entries
        self._pod = pod
        self._now = now
        self._nominated_for = nominated_for
        self._has_nominated = has_nominated
        #: the nominator's tuple of a node's nominated pods, the same object while they do not
        #: change (``PodNominator._nominated_tuple``), or None
        self._raw_for = raw_for

    def _nominated(self, name: str) -> tuple[Any, ...]:
        infos = self._nominated_for(name)
        if not infos:
            return ()
        pod = self._pod
        priority, uid = pod.effective_priority, pod.uid
        return tuple(pi for pi in infos if pi.pod.effective_priority >= priority and pi.pod.uid != uid)

    def get(self, node_info: NodeInfo) -> Any:
        """The outcome remembered for *node_info*, if still valid."""
        name = node_info.name
        e = self._entries.get(name)
        if e is None or e.node_info is not node_info:
            return None
        if e.now is not None and e.now != self._now:
            return None
        old = e.nominated
        has = self._has_nominated
        if has is not None and not has(name):  # the usual case: a dict lookup
            return None if old else e.result
        raw_for = self._raw_for
        if raw_for is not None and e.raw is not None and raw_for(name) is e.raw:
            # the node's nominations did not change since: what this pod counts of them is what
            # the stored one counted (same shape, same priority) unless one of the two is itself
            # among them
            uid = self._pod.uid
            if uid == e.uid or not any(pi.pod.uid == uid or pi.pod.uid == e.uid for pi in e.raw):
                return e.result
        nominated = self._nominated(name)
        if len(old) != len(nominated) or any(a is not b for a, b in zip(old, nominated)):
            return None
        return e.result

    def put(self, node_info: NodeInfo, result: Any) -> None:
        """Remember *result* for *node_info*."""
        now = None
        if self._now is not None and len({pi.pod.start_time is None for pi in node_info.pods}) > 1:
            now = self._now
        name = node_info.name
        raw_for = self._raw_for
        self._entries[name] = _Entry(node_info, self._nominated(name), now, result,
                                     raw_for(name) if raw_for is not None else None, self._pod.uid)


def _entries(memos: dict[Hashable, dict[str, _Entry]], key: Hashable, num_nodes: int) -> dict[str, _Entry]:
    """The per-node entries of shape *key*, made the most recently used (the least recently used
    shape goes beyond :data:`_MAX_SHAPES`; entries far outnumbering the nodes are dropped, as
    nodes come and go)."""
    entries = memos.pop(key, None)
    if entries is None:
        entries = {}
        if len(memos) >= _MAX_SHAPES:
            del memos[next(iter(memos))]
    elif len(entries) > 2 * num_nodes + 16:
        entries = {}
    memos[key] = entries
    return entries


@final
class Shapes:
    """Per preemptor shape, the remembered outcomes (owned by a DefaultPreemption)."""

    __slots__ = ("_memos", "_pdbs")

    def __init__(self) -> None:
        self._memos: dict[Hashable, dict[str, _Entry]] = {}
        self._pdbs: tuple[PodDisruptionBudget, ...] = ()

    def memo(self, handle: Any, state: CycleState, pod: Pod, pdbs: Sequence[PodDisruptionBudget],
             hooks: tuple[object, ...], num_nodes: int) -> VictimsMemo | None:
        """The memo for *pod*'s shape, or ``None`` when outcomes cannot be remembered (a Filter
        plugin that looks beyond the node runs, a PreFilter extension runs, or *handle* is not
        a framework this module knows)."""
        nominator = getattr(handle, "nominator", None)
        clock = getattr(handle, "clock", None)
        if nominator is None or clock is None:
            return None
        filters = node_local_filters(handle, state)
        if filters is None:
            return None
        skip = state.skip_filter_plugins
        pdbs = tuple(pdbs)
        old = self._pdbs
        if len(old) != len(pdbs) or any(a is not b for a, b in zip(old, pdbs)):
            self._memos.clear()
            self._pdbs = pdbs
        key = (_shape(pod), frozenset(skip), filters, hooks)
        entries = _entries(self._memos, key, num_nodes)
        return VictimsMemo(entries, pod, clock.now(), nominator.nominated_pods_for_node,
                           *nominator_checks(nominator))

    def clear(self) -> None:
        """Forget everything."""
        self._memos.clear()
        self._pdbs = ()


@final
class NodeOutcomes:
    """Per pod shape, remembered outcomes of the Filter run with nominated pods (owned by a
    scheduler, one per profile)."""

    __slots__ = ("_memos",)

    def __init__(self) -> None:
        self._memos: dict[Hashable, dict[str, _Entry]] = {}

    def memo(self, handle: Any, state: CycleState, pod: Pod, nominated_for: Callable[[str], Sequence[Any]],
             num_nodes: int, has_nominated: Callable[[str], bool] | None = None,
             raw_for: Callable[[str], tuple[Any, ...]] | None = None) -> VictimsMemo | None:
        """The memo for *pod*'s shape, or ``None`` when outcomes cannot be remembered."""
        filters = node_local_filters(handle, state)
        if filters is None:
            return None
        key = (_shape(pod), frozenset(state.skip_filter_plugins), filters)
        entries = _entries(self._memos, key, num_nodes)
        return VictimsMemo(entries, pod, None, nominated_for, has_nominated, raw_for)

    def clear(self) -> None:
        """Forget everything."""
        self._memos.clear()
