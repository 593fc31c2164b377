"""``Snapshot``: the consistent view of the cluster one scheduling cycle runs against.

A :class:`~schedframe.cache.Snapshot` holds clones of the cache's NodeInfos (only nodes that have a Node
object), in
the order of upstream's ``nodeTree``: nodes are grouped by zone (region + zone labels), kept in
insertion order within a zone, and listed round-robin across zones in the order the zones first
appeared. That order decides which nodes a cycle looks at first when it scores only a percentage
of the cluster, so it matches kube-scheduler's.

:meth:`Cache.update_snapshot <schedframe.cache.Cache.update_snapshot>` refreshes a snapshot in place,
copying only the NodeInfos that changed since the snapshot's :attr:`~schedframe.cache.Snapshot.generation`;
:meth:`schedframe.cache.Snapshot.from_objects` builds one directly from nodes and pods (tests, the plugin
harness).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Iterable, Iterator, Mapping, Sequence
from itertools import compress
from operator import attrgetter
from typing import TYPE_CHECKING, Final, final

from ..api.objects import Node, Pod
from .listers import NodeInfoLister, SharedLister
from .nodeinfo import ImageStateSummary, NodeInfo, pod_changes

__all__ = ["Snapshot", "zone_key"]

LABEL_TOPOLOGY_ZONE: Final = "topology.kubernetes.io/zone"
LABEL_TOPOLOGY_REGION: Final = "topology.kubernetes.io/region"
LABEL_FAILURE_DOMAIN_BETA_ZONE: Final = "failure-domain.beta.kubernetes.io/zone"
LABEL_FAILURE_DOMAIN_BETA_REGION: Final = "failure-domain.beta.kubernetes.io/region"


def zone_key(node: Node) -> str:
    """The zone a node belongs to for node ordering (upstream ``topology.GetZoneKey``).

    ``""`` when the node has neither a region nor a zone label; otherwise ``region:\\x00:zone``.
    The deprecated ``failure-domain.beta.kubernetes.io`` labels win over the
    ``topology.kubernetes.io`` ones when both are present, as upstream.
    """
    labels = node.labels
    if not labels:
        return ""
    zone = labels.get(LABEL_FAILURE_DOMAIN_BETA_ZONE)
    if zone is None:
        zone = labels.get(LABEL_TOPOLOGY_ZONE, "")
    region = labels.get(LABEL_FAILURE_DOMAIN_BETA_REGION)
    if region is None:
        region = labels.get(LABEL_TOPOLOGY_REGION, "")
    if not region and not zone:
        return ""
    return f"{region}:\x00:{zone}"


@final
class NodeTree:
    """Node names per zone, listed round-robin across zones (upstream ``nodeTree``).

    Zones keep the order in which they first appeared (a zone emptied and refilled goes to the
    end); nodes keep their insertion order within a zone. Not thread-safe: the cache guards it.
    """

    __slots__ = ("_tree", "_zone_of")

    def __init__(self, nodes: Iterable[Node] = ()) -> None:
        self._tree: dict[str, dict[str, None]] = {}
        self._zone_of: dict[str, str] = {}
        for node in nodes:
            self.add(node)

    @property
    def num_nodes(self) -> int:
        """How many nodes the tree holds."""
        return len(self._zone_of)

    def __contains__(self, name: object) -> bool:
        return name in self._zone_of

    def add(self, node: Node) -> bool:
        """Add *node* to its zone; False (and no change) when it is already in the tree."""
        name = node.name
        if name in self._zone_of:
            return False
        zone = zone_key(node)
        members = self._tree.get(zone)
        if members is None:
            self._tree[zone] = {name: None}
        else:
            members[name] = None
        self._zone_of[name] = zone
        return True

    def remove(self, name: str) -> bool:
        """Remove node *name*; False when it is not in the tree. An emptied zone is dropped."""
        zone = self._zone_of.pop(name, None)
        if zone is None:
            return False
        members = self._tree[zone]
        del members[name]
        if not members:
            del self._tree[zone]
        return True

    def update(self, node: Node) -> bool:
        """Move *node* to its (new) zone if its zone changed; True when the tree changed.

        A node not yet in the tree is added (upstream ``updateNode`` with a missing old node).
        """
        zone = self._zone_of.get(node.name)
        if zone is None:
            return self.add(node)
        if zone == zone_key(node):
            return False
        self.remove(node.name)
        self.add(node)
        return True

    def copy(self) -> NodeTree:
        """An independent copy (the same zones and nodes in the same order)."""
        new = NodeTree.__new__(NodeTree)
        new._tree = {zone: dict(members) for zone, members in self._tree.items()}
        new._zone_of = dict(self._zone_of)
        return new

    def names(self) -> list[str]:
        """All node names, one per zone in turn until every zone is exhausted."""
        zones = [list(members) for members in self._tree.values()]
        if len(zones) == 1:
            return zones[0]
        out: list[str] = []
        depth = max((len(z) for z in zones), default=0)
        for i in range(depth):
            for members in zones:
                if i < len(members):
                    out.append(members[i])
        return out

    def zones(self) -> dict[str, list[str]]:
        """``{zone key: [node names]}`` in zone order (for tests and debugging)."""
        return {zone: list(members) for zone, members in self._tree.items()}


@final
class ImageStates(Mapping[str, ImageStateSummary]):
    """The images on one node, read through a cluster-wide table of image summaries.

    A NodeInfo's ``image_states``: the node contributes its image *names*; ``size`` and
    ``num_nodes`` come from ``table``, which the owner (the cache, or a snapshot) keeps current
    as nodes come and go. So a node joining with an image does not force every other node that
    has the image to be copied again.
    """

    __slots__ = ("names", "table")

    def __init__(self, names: frozenset[str], table: Mapping[str, ImageStateSummary]) -> None:
        self.names = names
        self.table = table

    def rebind(self, table: Mapping[str, ImageStateSummary]) -> ImageStates:
        """The same names read through another table."""
        return ImageStates(self.names, table)

    def __getitem__(self, name: str) -> ImageStateSummary:
        if name in self.names:
            return self.table[name]
        raise KeyError(name)

    def get(self, name: str, default: ImageStateSummary | None = None) -> ImageStateSummary | None:  # type: ignore[override]
        """The summary of image *name*, or *default* when the node does not have it."""
        if name in self.names:
            return self.table[name]
        return default

    def __contains__(self, name: object) -> bool:
        return name in self.names

    def __iter__(self) -> Iterator[str]:
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)

    def __repr__(self) -> str:
        return f"ImageStates({dict(self.items())!r})"


def image_names(node: Node) -> frozenset[str]:
    """Every name of every image on *node*."""
    return frozenset(name for image in node.images for name in image.names)


def rebind_images(info: NodeInfo, table: Mapping[str, ImageStateSummary]) -> None:
    """Point *info*'s image states at *table* (a no-op for a node without images)."""
    states = info.image_states
    if isinstance(states, ImageStates):
        info.image_states = states.rebind(table)


_TERMINAL_PHASES: Final = frozenset({"Succeeded", "Failed"})
#: a snapshot's change log starts over after this many entries beyond twice its node count
_MAX_CHANGES: Final = 4096

#: in a change's tag (``Snapshot._change_index``): the Node object was replaced (its labels,
#: taints... may differ: anything counted of the node may have changed)
CHANGED_NODE: Final = "changed-node"
#: in a change's tag: a pod added or removed has a pod affinity or anti-affinity term
CHANGED_AFFINITY: Final = "changed-affinity"
_NODE_CHANGED: Final = frozenset({CHANGED_NODE})
_NOTHING: Final[frozenset[object]] = frozenset()


def _change_tag(prev: NodeInfo, info: NodeInfo) -> frozenset[object]:
    """What replacing *prev* by *info* (the same node's) may have changed: :data:`CHANGED_NODE`
    for a new Node object; else the label items (``(key, value)``) of the pods added or removed
    (compared by identity) and :data:`CHANGED_AFFINITY` when one of them has pod (anti-)affinity
    terms. A sum over nodes that depends on the node object and on the pods carrying one of some
    label items only (a selector's ``app: x``) did not change when the tag holds none of them."""
    if prev.node is not info.node:
        return _NODE_CHANGED
    added, removed = pod_changes(prev.pods, info.pods)
    if not removed and len(added) == 1:  # the usual: one pod placed
        p = added[0]
        items = p.pod.labels.items()
        return frozenset((*items, CHANGED_AFFINITY)) if p.has_affinity else frozenset(items)
    if not added and not removed:
        return _NOTHING
    tag: set[object] = set()
    for group in (added, removed):
        for p in group:
            tag.update(p.pod.labels.items())
            if p.has_affinity:
                tag.add(CHANGED_AFFINITY)
    return frozenset(tag)


@final
class Snapshot:
    """The NodeInfos one scheduling cycle reads (implements ``SharedLister`` and ``NodeInfoLister``).

    The NodeInfos are clones owned by the snapshot: changes to the cache never show through until
    the next :meth:`Cache.update_snapshot <schedframe.cache.Cache.update_snapshot>`, which replaces the
    NodeInfos that changed with fresh clones, so a NodeInfo handed out is never modified (only
    the ``num_nodes`` of its image states, read through the snapshot's image table, follow the
    cluster). ``list()`` and the affinity lists are the snapshot's own and change at the next
    update. Plugins must not modify the snapshot, its lists or its NodeInfos.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.cache"
    __slots__ = (
        "_affinity",
        "_affinity_at",
        "_anti_affinity",
        "_anti_affinity_at",
        "_change_index",
        "_changes",
        "_cordoned",
        "_generation",
        "_imaged",
        "_images",
        "_list",
        "_map",
        "_owner",
        "_pos",
        "_tainted",
    )

    def __init__(self) -> None:
        self._map: dict[str, NodeInfo] = {}
        self._list: list[NodeInfo] = []
        self._pos: dict[str, int] = {}
        self._affinity: list[NodeInfo] = []
        #: the positions in ``_list`` of the NodeInfos in ``_affinity``, ascending
        self._affinity_at: list[int] = []
        self._anti_affinity: list[NodeInfo] = []
        self._anti_affinity_at: list[int] = []
        self._images: dict[str, ImageStateSummary] = {}
        self._generation = 0
        self._owner: object = None  # the cache that keeps this snapshot up to date
        #: the positions of ``_list`` replaced since ``_list`` was built, in order (a new list
        #: object whenever ``_list`` is rebuilt or this one grows past its bound): per-position
        #: memos (``plugins._run_memo``) forget exactly these instead of comparing every position
        self._changes: list[int] = []
        #: each item of the changes' tags (:func:`_change_tag`: what a change may have changed)
        #: -> the indexes in ``_changes`` of the changes tagged with it, ascending; replaced with it
        self._change_index: dict[object, list[int]] = {}
        #: how many nodes of ``_list`` are cordoned, carry taints, hold images (kept up to date
        #: by ``_set_order`` and ``_replace``)
        self._cordoned = 0
        self._tainted = 0
        self._imaged = 0

    @classmethod
    def from_objects(cls, nodes: Iterable[Node], pods: Iterable[Pod] = ()) -> Snapshot:
        """Build a snapshot from *nodes* and the bound *pods* on them (upstream ``NewSnapshot``).

        Nodes are ordered as the cache would order them had they been added in this order (a
        repeated name replaces the earlier node). A pod lands on the node named by its
        ``node_name``; pods that are unbound, name a node not given, or are in phase Succeeded
        or Failed (they hold nothing, as upstream's informers filter them out) are left out.
        Image summaries count the nodes having each image; an image's size is the one the first
        node reporting it gives.
        """
        by_name: dict[str, Node] = {}
        for node in nodes:
            by_name[node.name] = node
        snap = cls()
        table = snap._images
        holders: dict[str, int] = {}
        for node in by_name.values():
            for image in node.images:
                for name in image.names:
                    if name not in table:
                        table[name] = ImageStateSummary(image.size_bytes, 0)
        for node in by_name.values():
            for name in image_names(node):
                holders[name] = holders.get(name, 0) + 1
        for name, count in holders.items():
            table[name] = ImageStateSummary(table[name].size, count)
        for node in by_name.values():
            info = NodeInfo(node)
            names = image_names(node)
            if names:
                info.image_states = ImageStates(names, table)
            snap._map[node.name] = info
        for pod in pods:
            if pod.node_name and pod.phase not in _TERMINAL_PHASES:
                target = snap._map.get(pod.node_name)
                if target is not None:
                    target.add_pod(pod)
        snap._set_order(NodeTree(by_name.values()).names())
        return snap

    # -- SharedLister / NodeInfoLister -----------------------------------------------------------
    def node_infos(self) -> Snapshot:
        """The NodeInfo lister (the snapshot itself)."""
        return self

    def list(self) -> Sequence[NodeInfo]:
        """Every node's NodeInfo, zone-interleaved like upstream's node tree."""
        return self._list

    def get(self, node_name: str) -> NodeInfo | None:
        """The NodeInfo of *node_name*, or None when the snapshot has no such node."""
        return self._map.get(node_name)

    def index(self, node_name: str) -> int | None:
        """The position of *node_name*'s NodeInfo in :meth:`list`, or None when it has none.

        .. versionadded:: 0.1.0
        """
        return self._pos.get(node_name)

    def have_pods_with_affinity_list(self) -> Sequence[NodeInfo]:
        """NodeInfos with at least one pod that has pod affinity or anti-affinity, in list order."""
        return self._affinity

    def have_pods_with_required_anti_affinity_list(self) -> Sequence[NodeInfo]:
        """NodeInfos with at least one pod that has required pod anti-affinity, in list order."""
        return self._anti_affinity

    def num_nodes(self) -> int:
        """How many nodes the snapshot holds."""
        return len(self._list)

    def num_unschedulable(self) -> int:
        """How many of the snapshot's nodes are cordoned (``spec.unschedulable``): O(1), kept
        up to date as NodeInfos are replaced (plugins skip the per-node check at 0)."""
        return self._cordoned

    def num_tainted(self) -> int:
        """How many of the snapshot's nodes carry at least one taint: O(1), like
        :meth:`num_unschedulable`."""
        return self._tainted

    def num_with_images(self) -> int:
        """How many of the snapshot's nodes hold images (``status.images``): O(1), like
        :meth:`num_unschedulable`."""
        return self._imaged

    @property
    def generation(self) -> int:
        """Cache generation this snapshot reflects; 0 when it was never updated."""
        return self._generation

    def __len__(self) -> int:
        return len(self._list)

    def __repr__(self) -> str:
        return f"Snapshot(nodes={len(self._list)}, generation={self._generation})"

    # -- maintenance (called by the cache) ---------------------------------------------------------
    def _adopt(self, owner: object) -> None:
        """Start following *owner*: a snapshot built elsewhere (or by another cache) is emptied,
        since its generations mean nothing to *owner*."""
        if self._owner is not owner:
            self.__init__()  # reset every field
            self._owner = owner

    def _set_order(self, names: Iterable[str]) -> None:
        """Rebuild the node list in *names* order (and drop map entries not listed)."""
        m = self._map
        self._list = [m[name] for name in names]
        self._changes = []
        self._change_index = {}
        if len(m) != len(self._list):
            self._map = {info.name: info for info in self._list}
        self._pos = {info.name: i for i, info in enumerate(self._list)}
        self._cordoned = self._tainted = self._imaged = 0
        for info in self._list:
            self._count(info, 1)
        self._rebuild_affinity_lists()

    def _count(self, info: NodeInfo, sign: int) -> None:
        """Add (``sign`` 1) or take away (-1) *info* in the counts of cordoned, tainted and
        image-holding nodes."""
        node = info.node
        if node is not None:
            if node.unschedulable:
                self._cordoned += sign
            if node.taints:
                self._tainted += sign
        if info.image_states:
            self._imaged += sign

    def _rebuild_affinity_lists(self) -> None:
        lst = self._list
        at = list(compress(range(len(lst)), map(_with_affinity, lst)))
        self._affinity, self._affinity_at = list(map(lst.__getitem__, at)), at
        at = list(compress(range(len(lst)), map(_with_anti_affinity, lst)))
        self._anti_affinity, self._anti_affinity_at = list(map(lst.__getitem__, at)), at

    def _replace(self, info: NodeInfo) -> None:
        """Swap in *info* for the same-named NodeInfo (in the affinity lists too: joining or
        leaving them when it gained its first or lost its last pod with (anti-)affinity)."""
        name = info.name
        pos = self._pos[name]
        prev = self._list[pos]
        if prev.node is not info.node:  # a new Node object: recount what it is
            self._count(prev, -1)
            self._count(info, 1)
        self._list[pos] = info
        changes = self._changes
        index = self._change_index
        if len(changes) > _MAX_CHANGES + 2 * len(self._list):
            changes = self._changes = []  # memos holding the old log compare every position once
            index = self._change_index = {}
        at = len(changes)
        changes.append(pos)
        for item in _change_tag(prev, info):
            tagged = index.get(item)
            if tagged is None:
                index[item] = [at]
            else:
                tagged.append(at)
        if info.pods_with_affinity or prev.pods_with_affinity:
            self._affinity, self._affinity_at = _placed(
                self._affinity, self._affinity_at, pos, info, bool(info.pods_with_affinity))
        if info.pods_with_required_anti_affinity or prev.pods_with_required_anti_affinity:
            self._anti_affinity, self._anti_affinity_at = _placed(
                self._anti_affinity, self._anti_affinity_at, pos, info,
                bool(info.pods_with_required_anti_affinity))


_with_affinity: Final = attrgetter("pods_with_affinity")
_with_anti_affinity: Final = attrgetter("pods_with_required_anti_affinity")


def _placed(members: list[NodeInfo], at: list[int], pos: int, info: NodeInfo, member: bool
            ) -> tuple[list[NodeInfo], list[int]]:
    """An affinity list (*members*, at the list positions *at*) with *info*, at list position
    *pos*, in it (*member*) or not: the same lists when *info* takes its own place, new ones
    (copied at C speed) when it joins or leaves, so that a list handed out keeps its length."""
    k = bisect_left(at, pos)
    present = k < len(at) and at[k] == pos
    if present and member:
        members[k] = info
        return members, at
    if present == member:  # neither in nor to be
        return members, at
    members, at = members.copy(), at.copy()
    if member:
        members.insert(k, info)
        at.insert(k, pos)
    else:
        del members[k], at[k]
    return members, at


if TYPE_CHECKING:
    _lister: NodeInfoLister = Snapshot()
    _shared: SharedLister = Snapshot()
