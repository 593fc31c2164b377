"""``Cache``: the scheduler's view of nodes and the pods bound (or about to be bound) to them.

Mirrors kube-scheduler's ``backend/cache``: a pod is *assumed* onto its chosen node as soon as a
cycle picks it (so the next cycle already counts it), *added* when the API server confirms the
binding, and *forgotten* when binding fails. A node deleted while pods are still on it keeps a
NodeInfo without a Node object until those pods go; it is invisible to snapshots.

Every change stamps the touched NodeInfo with a new generation and moves it to the end of a
recency-ordered map, so :meth:`schedframe.cache.Cache.update_snapshot` walks back from the most recent change
and
stops at the first NodeInfo the snapshot already has: refreshing after one pod was placed copies
one NodeInfo, whatever the size of the cluster.

State transitions of a pod (keyed by uid)::

    (absent) --assume_pod--> assumed --add_pod--> added --remove_pod--> (absent)
                             assumed --forget_pod / remove_pod--> (absent)
    (absent) --add_pod--> added --update_pod--> added
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Mapping
from typing import Final, final

import attrs

from ..api.frozendict import freeze
from ..api.objects import Node, Pod
from ..errors import ArgumentTypeError, CacheError
from .nodeinfo import ImageStateSummary, NodeInfo, PodInfo, next_generation
from .snapshot import ImageStates, NodeTree, Snapshot, image_names, rebind_images

__all__ = ["Cache", "CacheDump"]

_NO_IMAGES: Final[Mapping[str, ImageStateSummary]] = freeze(None)


@final
@attrs.frozen
class CacheDump:
    """A copy of the cache's state, for tests and debugging (upstream ``Dump``).

    Attributes:
        nodes: ``{node name: NodeInfo clone}``, most recently changed first; includes NodeInfos
            whose Node object is gone (or not yet added) but that still hold pods.
        assumed_pods: uids of assumed pods.
        binding_finished: uids of assumed pods whose binding was reported finished.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.cache"

    nodes: Mapping[str, NodeInfo]
    assumed_pods: frozenset[str]
    binding_finished: frozenset[str]


@final
class _Journal:
    """What one open checkpoint saved: each NodeInfo (a clone, or None when absent) and pod
    entry as it was before its first change, the image records and the node tree when a node
    was set or removed, and the (small) assumed sets."""

    __slots__ = ("assumed", "finished", "images", "nodes", "pods", "tree")

    def __init__(self, cache: Cache) -> None:
        self.nodes: dict[str, NodeInfo | None] = {}
        self.pods: dict[str, Pod | None] = {}
        self.images: tuple[dict[str, tuple[int, frozenset[str]]], dict[str, ImageStateSummary]] | None = None
        self.tree: NodeTree | None = None
        self.assumed = set(cache._assumed)
        self.finished = set(cache._binding_finished)


@final
class _ImageRecord:
    """Which nodes have an image; ``size`` is the size reported by the first of them."""

    __slots__ = ("nodes", "size")

    def __init__(self, size: int) -> None:
        self.size = size
        self.nodes: set[str] = set()


def _want_pod(method: str, pod: object, arg: str = "pod") -> None:
    if not isinstance(pod, Pod):
        raise ArgumentTypeError(f"Cache.{method}: {arg} must be a Pod, got {type(pod).__name__}")


def _want_node(method: str, node: object, arg: str = "node") -> None:
    if not isinstance(node, Node):
        raise ArgumentTypeError(f"Cache.{method}: {arg} must be a Node, got {type(node).__name__}")


def node_name_arg(method: str, node: object) -> str:
    """The name of *node*, a Node or a node name, given to *method* (``"Cache.remove_node"``);
    anything else is an :class:`~schedframe.errors.ArgumentTypeError` naming the method."""
    if isinstance(node, Node):
        return node.name
    if isinstance(node, str):
        return node
    raise ArgumentTypeError(f"{method}: node must be a Node or a node name (str), got "
                            f"{type(node).__name__}")


def _uids(infos: list[PodInfo]) -> list[str]:
    return [pi.pod.uid for pi in infos]


def _node_info_differences(want: NodeInfo, got: NodeInfo) -> list[str]:
    """The fields in which snapshot NodeInfo *got* differs from cache NodeInfo *want*."""
    out: list[str] = []
    if got.node is not want.node and got.node != want.node:
        out.append("node object")
    if got.generation != want.generation:
        out.append(f"generation {got.generation}, want {want.generation}")
    for field in ("pods", "pods_with_affinity", "pods_with_required_anti_affinity"):
        g, w = _uids(getattr(got, field)), _uids(getattr(want, field))
        if g != w:
            out.append(f"{field}: {len(g)} pod(s), want {len(w)}")
    for field in ("requested", "non_zero_requested", "allocatable"):
        if getattr(got, field) != getattr(want, field):
            out.append(f"{field}: {getattr(got, field)}, want {getattr(want, field)}")
    if got.used_ports != want.used_ports:
        out.append("used_ports")
    return out


def _pod_ref(pod: Pod) -> str:
    return f"pod {pod.key} (uid {pod.uid})"


def _require_node_name(pod: Pod, action: str) -> None:
    if not pod.node_name:
        raise CacheError(
            f"{_pod_ref(pod)} has no node_name, so it cannot be {action}; only pods bound or "
            "being bound to a node belong in the cache"
        )
    if pod.is_terminal:
        # kube-scheduler's informers hand the cache no finished pod: it holds nothing
        raise CacheError(
            f"{_pod_ref(pod)} is in phase {pod.phase}, so it cannot be {action}; a finished pod "
            "holds nothing on its node and never enters a NodeInfo (remove the pod instead)"
        )


@final
class Cache:
    """Nodes and their pods, kept as NodeInfos, with assume/forget for in-flight bindings.

    Thread-safe: every method takes one lock, so binding threads may assume, forget and add pods
    while the scheduling loop refreshes its snapshot.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.cache"

    def __init__(self) -> None:
        self._lock = threading.Lock()
        # node name -> NodeInfo, least recently changed first (the generations increase along it)
        self._nodes: OrderedDict[str, NodeInfo] = OrderedDict()
        self._tree = NodeTree()
        self._tree_generation = 0
        self._pods: dict[str, Pod] = {}
        self._assumed: set[str] = set()
        self._binding_finished: set[str] = set()
        self._image_records: dict[str, _ImageRecord] = {}
        self._images: dict[str, ImageStateSummary] = {}
        # image name -> generation of its last summary change, least recent first
        self._image_changes: OrderedDict[str, int] = OrderedDict()
        self._generation = 0
        # checkpoints (begin/commit/revert): what each open one saved before its first change
        self._journals: list[_Journal] = []
        self._journal: _Journal | None = None

    # -- nodes ------------------------------------------------------------------------------------
    def add_node(self, node: Node) -> None:
        """Add *node*, or replace the Node object of a node already known (upstream ``AddNode``)."""
        _want_node("add_node", node)
        with self._lock:
            self._set_node(node)

    def update_node(self, old: Node | None, new: Node) -> None:
        """Replace a node's object with *new* (upstream ``UpdateNode``); adds it when unknown.

        *old* is accepted for symmetry with the informer callback; the cache uses the Node object
        it holds, so a stale or missing *old* does no harm.
        """
        _want_node("update_node", new, "new")
        with self._lock:
            self._set_node(new)

    def remove_node(self, node: Node | str) -> None:
        """Remove a node. Its NodeInfo lingers, without a node, until its last pod is removed.

        Raises:
            CacheError: when the node is not in the cache.
        """
        name = node_name_arg("Cache.remove_node", node)
        with self._lock:
            info = self._nodes.get(name)
            if info is None or info.node is None:
                raise CacheError(f"node {name!r} is not in the cache, so it cannot be removed")
            if self._journal is not None:
                self._save(name)
                self._save_tree()
            affected = self._drop_images(info.node)
            info.remove_node()
            if info.pods:
                self._touch(name, info)
            else:
                del self._nodes[name]
                self._generation = info.generation
            self._tree.remove(name)
            self._tree_generation = self._generation
            self._commit_images(affected)

    def _set_node(self, node: Node) -> None:
        name = node.name
        info = self._nodes.get(name)
        if self._journal is not None:
            self._save(name)
            self._save_tree()
        if info is None:
            info = NodeInfo()
        affected = self._drop_images(info.node) if info.node is not None else set()
        info.set_node(node)
        names = image_names(node)
        if names:
            affected |= self._add_images(node)
            info.image_states = ImageStates(names, self._images)
        else:
            info.image_states = _NO_IMAGES
        self._touch(name, info)
        if self._tree.update(node):
            self._tree_generation = self._generation
        self._commit_images(affected)

    # -- image states -------------------------------------------------------------------------------
    def _add_images(self, node: Node) -> set[str]:
        if self._journal is not None:
            self._save_images()
        records = self._image_records
        affected: set[str] = set()
        for image in node.images:
            for name in image.names:
                rec = records.get(name)
                if rec is None:
                    rec = records[name] = _ImageRecord(image.size_bytes)
                rec.nodes.add(node.name)
                affected.add(name)
        return affected

    def _drop_images(self, node: Node) -> set[str]:
        if self._journal is not None:
            self._save_images()
        records = self._image_records
        affected = set(image_names(node))
        for name in affected:
            rec = records.get(name)
            if rec is not None:
                rec.nodes.discard(node.name)
                if not rec.nodes:
                    del records[name]
        return affected

    def _commit_images(self, names: set[str]) -> None:
        """Refresh the summaries of *names* and log the ones that changed."""
        if not names:
            return
        images, changes, records = self._images, self._image_changes, self._image_records
        for name in names:
            rec = records.get(name)
            summary = ImageStateSummary(rec.size, len(rec.nodes)) if rec is not None else None
            if images.get(name) == summary:
                continue
            if summary is None:
                del images[name]
            else:
                images[name] = summary
            changes[name] = self._generation
            changes.move_to_end(name)

    # -- pods -------------------------------------------------------------------------------------
    def assume_pod(self, pod: Pod) -> None:
        """Account for *pod* on ``pod.node_name`` before its binding is confirmed.

        Raises:
            CacheError: when the pod has no node_name, is in phase Succeeded or Failed, or is
                already in the cache.
        """
        _want_pod("assume_pod", pod)
        _require_node_name(pod, "assumed")
        with self._lock:
            if pod.uid in self._pods:
                state = "assumed" if pod.uid in self._assumed else "added"
                raise CacheError(f"{_pod_ref(pod)} is already in the cache ({state}), so it cannot be "
                                 "assumed")
            self._add_pod(pod, assumed=True)

    def finish_binding(self, pod: Pod) -> None:
        """Record that the binding of assumed *pod* finished (a no-op for other pods, as upstream).

        schedframe does not expire assumed pods (upstream dropped the TTL); the flag is kept for
        :meth:`dump`.
        """
        with self._lock:
            if pod.uid in self._assumed:
                self._binding_finished.add(pod.uid)

    def forget_pod(self, pod: Pod) -> None:
        """Undo :meth:`assume_pod` (the binding failed).

        Raises:
            CacheError: when the pod is not in the cache, was assumed on another node, or is not
                assumed (it was added).
        """
        _want_pod("forget_pod", pod)
        with self._lock:
            cur = self._pods.get(pod.uid)
            if cur is None:
                raise CacheError(f"{_pod_ref(pod)} is not in the cache, so it cannot be forgotten")
            if cur.node_name != pod.node_name:
                raise CacheError(f"{_pod_ref(pod)} was assumed on node {cur.node_name!r} but is being "
                                 f"forgotten for node {pod.node_name!r}")
            if pod.uid not in self._assumed:
                raise CacheError(f"{_pod_ref(pod)} is not assumed (its binding was confirmed), so it "
                                 "cannot be forgotten; remove it instead")
            self._remove_pod(cur)

    def add_pod(self, pod: Pod) -> None:
        """Add a bound pod; confirms it when it was assumed (moving it if it landed elsewhere).

        Raises:
            CacheError: when the pod has no node_name, is in phase Succeeded or Failed, or was
                already added.
        """
        _want_pod("add_pod", pod)
        _require_node_name(pod, "added")
        with self._lock:
            cur = self._pods.get(pod.uid)
            if cur is not None:
                if pod.uid not in self._assumed:
                    raise CacheError(f"{_pod_ref(pod)} was already added to the cache; use update_pod "
                                     "to change it")
                name = pod.node_name
                info = self._nodes.get(name) if cur.node_name == name else None
                if info is not None and self._journal is not None:
                    self._save(name)
                    self._save_pod(pod.uid)
                if info is not None and info.replace_last_pod(cur, pod):  # confirmed where assumed
                    self._touch(name, info)
                    self._pods[pod.uid] = pod
                    self._assumed.discard(pod.uid)
                    self._binding_finished.discard(pod.uid)
                    return
                self._remove_pod(cur)
            self._add_pod(pod, assumed=False)

    def update_pod(self, old: Pod, new: Pod) -> None:
        """Replace added pod *old* with *new* (which may be on another node).

        Raises:
            CacheError: when the pod is not in the cache, is still assumed, *new* has another uid,
                or *new* has no node_name or is in phase Succeeded or Failed.
        """
        _want_pod("update_pod", old, "old")
        _want_pod("update_pod", new, "new")
        if old.uid != new.uid:
            raise CacheError(f"update_pod: old {_pod_ref(old)} and new {_pod_ref(new)} are different "
                             "pods (uids differ)")
        _require_node_name(new, "updated")
        with self._lock:
            cur = self._pods.get(old.uid)
            if cur is None:
                raise CacheError(f"{_pod_ref(old)} is not in the cache, so it cannot be updated; add "
                                 "it first")
            if old.uid in self._assumed:
                raise CacheError(f"{_pod_ref(old)} is assumed; it must be added (its binding "
                                 "confirmed) before it can be updated")
            self._remove_pod(cur)
            self._add_pod(new, assumed=False)

    def remove_pod(self, pod: Pod) -> None:
        """Remove a pod (added or assumed), from the node the cache has it on.

        Raises:
            CacheError: when the pod is not in the cache.
        """
        _want_pod("remove_pod", pod)
        with self._lock:
            cur = self._pods.get(pod.uid)
            if cur is None:
                raise CacheError(f"{_pod_ref(pod)} is not in the cache, so it cannot be removed")
            self._remove_pod(cur)

    def _add_pod(self, pod: Pod, *, assumed: bool) -> None:
        name = pod.node_name
        if self._journal is not None:
            self._save(name)
            self._save_pod(pod.uid)
        info = self._nodes.get(name)
        if info is None:
            info = NodeInfo()
        info.add_pod(pod)
        self._touch(name, info)
        self._pods[pod.uid] = pod
        if assumed:
            self._assumed.add(pod.uid)

    def _remove_pod(self, cur: Pod) -> None:
        name = cur.node_name
        if self._journal is not None:
            self._save(name)
            self._save_pod(cur.uid)
        info = self._nodes[name]
        info.remove_pod(cur)
        if not info.pods and info.node is None:
            del self._nodes[name]
            self._generation = info.generation
        else:
            self._touch(name, info)
        uid = cur.uid
        del self._pods[uid]
        self._assumed.discard(uid)
        self._binding_finished.discard(uid)

    def _touch(self, name: str, info: NodeInfo) -> None:
        """Store *info* as the most recently changed NodeInfo (its generation was just bumped).

        Called after the change, so the recency order always matches the generations, even if a
        change raised half-way.
        """
        self._nodes[name] = info
        self._nodes.move_to_end(name)
        self._generation = info.generation

    # -- checkpoints ------------------------------------------------------------------------------
    def begin(self) -> None:
        """Open a checkpoint: until the matching :meth:`commit` or :meth:`revert`, the cache
        saves each NodeInfo (and pod entry) before its first change, so reverting costs what
        changed, not the size of the cluster. Checkpoints nest."""
        with self._lock:
            j = _Journal(self)
            self._journals.append(j)
            self._journal = j

    def commit(self) -> None:
        """Close the innermost checkpoint keeping its changes (an enclosing one can still revert
        them).

        Raises:
            CacheError: when no checkpoint is open.
        """
        with self._lock:
            j = self._pop_journal("commit")
            parent = self._journal
            if parent is None:
                return
            for name, info in j.nodes.items():
                parent.nodes.setdefault(name, info)
            for uid, pod in j.pods.items():
                parent.pods.setdefault(uid, pod)
            if parent.images is None:
                parent.images = j.images
            if parent.tree is None:
                parent.tree = j.tree

    def revert(self) -> None:
        """Close the innermost checkpoint undoing every change made since it was opened. The
        restored NodeInfos get new generations, so snapshots copy them again.

        Raises:
            CacheError: when no checkpoint is open.
        """
        with self._lock:
            j = self._pop_journal("revert")
            nodes = self._nodes
            for name, saved in j.nodes.items():
                if saved is None:
                    nodes.pop(name, None)
                    continue
                saved.generation = next_generation()
                nodes[name] = saved
                nodes.move_to_end(name)
                self._generation = saved.generation
            pods = self._pods
            for uid, pod in j.pods.items():
                if pod is None:
                    pods.pop(uid, None)
                else:
                    pods[uid] = pod
            self._assumed = j.assumed
            self._binding_finished = j.finished
            if j.images is not None:
                records, images = j.images
                changed = set(images) | set(self._images)
                self._image_records.clear()
                for n, (size, on) in records.items():
                    rec = self._image_records[n] = _ImageRecord(size)
                    rec.nodes.update(on)
                self._images.clear()  # in place: the NodeInfos' image states read this mapping
                self._images.update(images)
                self._generation = next_generation()
                for name in changed:
                    self._image_changes[name] = self._generation
                    self._image_changes.move_to_end(name)
            if j.tree is not None:
                self._tree = j.tree
                self._generation = next_generation()
                self._tree_generation = self._generation

    @property
    def checkpoints(self) -> int:
        """How many checkpoints are open."""
        return len(self._journals)

    def _pop_journal(self, what: str) -> _Journal:
        if not self._journals:
            raise CacheError(f"Cache.{what}: no checkpoint is open (call begin() first)")
        j = self._journals.pop()
        self._journal = self._journals[-1] if self._journals else None
        return j

    def _save(self, name: str) -> None:
        j = self._journal
        if j is not None and name not in j.nodes:
            info = self._nodes.get(name)
            j.nodes[name] = None if info is None else info.clone()

    def _save_pod(self, uid: str) -> None:
        j = self._journal
        if j is not None and uid not in j.pods:
            j.pods[uid] = self._pods.get(uid)

    def _save_tree(self) -> None:
        j = self._journal
        if j is not None and j.tree is None:
            j.tree = self._tree.copy()

    def _save_images(self) -> None:
        j = self._journal
        if j is not None and j.images is None:
            j.images = ({n: (r.size, frozenset(r.nodes)) for n, r in self._image_records.items()},
                        dict(self._images))

    # -- queries --------------------------------------------------------------------------------------
    def is_assumed(self, pod: Pod | str) -> bool:
        """Whether the pod (or uid) is assumed and not yet confirmed."""
        uid = pod if isinstance(pod, str) else pod.uid
        with self._lock:
            return uid in self._assumed

    def get_pod(self, pod: Pod | str) -> Pod | None:
        """The cached version of the pod with this uid (or this pod's uid), or None."""
        uid = pod if isinstance(pod, str) else pod.uid
        with self._lock:
            return self._pods.get(uid)

    def node_count(self) -> int:
        """How many NodeInfos the cache holds, including those without a Node object that still
        hold pods (upstream ``NodeCount``)."""
        with self._lock:
            return len(self._nodes)

    def pod_count(self) -> int:
        """How many pods (assumed or added) the cache holds, on any NodeInfo."""
        with self._lock:
            return len(self._pods)

    def nodes(self) -> list[Node]:
        """The Node objects in the cache, in snapshot (zone-interleaved) order."""
        with self._lock:
            infos = self._nodes
            return [node for name in self._tree.names() if (node := infos[name].node) is not None]

    def node_info(self, name: str) -> NodeInfo | None:
        """A clone of the NodeInfo of *name* (with or without its Node object), or None."""
        with self._lock:
            info = self._nodes.get(name)
            if info is None:
                return None
            clone = info.clone()
            rebind_images(clone, dict(self._images))
            return clone

    def dump(self) -> CacheDump:
        """A copy of the cache's state (NodeInfo clones and assumed pods), for tests and debugging."""
        with self._lock:
            table = dict(self._images)
            nodes: dict[str, NodeInfo] = {}
            for name, info in reversed(self._nodes.items()):
                clone = info.clone()
                rebind_images(clone, table)
                nodes[name] = clone
            return CacheDump(nodes, frozenset(self._assumed), frozenset(self._binding_finished))

    # -- snapshots --------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """A new snapshot of the cache (same as updating an empty :class:`~schedframe.cache.Snapshot`)."""
        snap = Snapshot()
        self.update_snapshot(snap)
        return snap

    def update_snapshot(self, snapshot: Snapshot) -> None:
        """Bring *snapshot* up to date with the cache, copying only what changed since its
        :attr:`~schedframe.cache.Snapshot.generation` (upstream ``UpdateSnapshot``).

        Changed NodeInfos are cloned and replace the snapshot's; the node order is recomputed only
        when nodes were added, removed or moved to another zone; a node that gained its first or
        lost its last pod with (anti-)affinity joins or leaves the affinity lists at its place
        (binary search, C-level copies). A snapshot follows one
        cache: one built by :meth:`schedframe.cache.Snapshot.from_objects` or updated by another cache starts
        over.
        """
        if not isinstance(snapshot, Snapshot):
            raise ArgumentTypeError(f"Cache.update_snapshot: snapshot must be a Snapshot, got "
                                    f"{type(snapshot).__name__}")
        with self._lock:
            snapshot._adopt(self)
            gen = snapshot._generation
            table = snapshot._images
            for name, changed_at in reversed(self._image_changes.items()):
                if changed_at <= gen:
                    break
                summary = self._images.get(name)
                if summary is not None:
                    table[name] = summary
                elif (gone := table.get(name)) is not None:
                    # No current NodeInfo has it; NodeInfos handed out earlier may still name it.
                    table[name] = ImageStateSummary(gone.size, 0)

            relist = self._tree_generation > gen
            replaced: list[NodeInfo] = []
            smap = snapshot._map
            for info in reversed(self._nodes.values()):
                if info.generation <= gen:
                    break
                node = info.node
                if node is None:
                    continue
                clone = info.clone()
                rebind_images(clone, table)
                prev = smap.get(node.name)
                smap[node.name] = clone
                if prev is None:
                    relist = True
                elif not relist:
                    replaced.append(clone)

            if relist:
                snapshot._set_order(self._tree.names())
            else:
                for clone in replaced:
                    snapshot._replace(clone)
            snapshot._generation = self._generation

    def verify_snapshot(self, snapshot: Snapshot, *, repair: bool = False) -> list[str]:
        """What differs between *snapshot* and this cache, for the nodes the snapshot claims to
        have up to date: each such NodeInfo must hold the same node, pods, aggregates, host
        ports and generation as the cache's, and the snapshot's node list must hold exactly its
        NodeInfos. Empty when consistent.

        A difference means something modified a NodeInfo (or a list) the snapshot handed out --
        typically a plugin mutating the NodeInfo given to Filter or Score, which plugins must
        never do (they get the snapshot's objects, not copies, to keep the hot path free of
        copies). With *repair*, a snapshot found different is emptied, so the next
        :meth:`update_snapshot` rebuilds it from the cache.

        O(nodes + pods): for invariant checks and debugging, not for every cycle.

        .. versionadded:: 0.1.0
        """
        if not isinstance(snapshot, Snapshot):
            raise ArgumentTypeError(f"Cache.verify_snapshot: snapshot must be a Snapshot, got "
                                    f"{type(snapshot).__name__}")
        problems: list[str] = []
        with self._lock:
            if snapshot._owner is not self:
                return problems  # not following this cache (yet): nothing to compare
            gen = snapshot._generation
            for name, got in snapshot._map.items():
                want = self._nodes.get(name)
                if want is None or want.node is None or want.generation > gen:
                    continue  # changed since the last update: refreshed by the next one
                diffs = _node_info_differences(want, got)
                if diffs:
                    problems.append(f"node {name}: the snapshot's NodeInfo differs from the cache's "
                                    f"({'; '.join(diffs)})")
            listed = snapshot._list
            if (len(listed) != len(snapshot._map)
                    or any(snapshot._map.get(info.name) is not info for info in listed)):
                problems.append("the snapshot's node list no longer matches its NodeInfos (it was "
                                "modified)")
            if problems and repair:
                snapshot._owner = None  # the next update_snapshot starts over
        return problems

    def __repr__(self) -> str:
        with self._lock:
            return (f"Cache(nodes={self._tree.num_nodes}, pods={len(self._pods)}, "
                    f"assumed={len(self._assumed)})")
