"""The answers of :class:`~schedframe.ClusterSnapshot`: frozen value objects."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, final

import attrs

from ..api.objects import Pod

if TYPE_CHECKING:
    from ..scheduler.explain import Explanation, NodeVerdict

__all__ = ["DrainResult", "FillResult", "NodeCheck", "Placement", "Preemption", "ScheduleResult",
           "Verdict"]


@final
@attrs.frozen
class Placement:
    """Where one pod went, or why it did not.

    Attributes:
        pod: the pod as the snapshot holds it (bound: ``node_name`` set), or as it was given.
        node: the node, or ``None`` when it was not placed.
        message: why it was not placed (the scheduler's FitError message, or a PreEnqueue
            plugin's); ``""`` when placed.
    """

    __module__ = "schedframe.whatif"

    pod: Pod
    node: str | None
    message: str = ""

    @property
    def placed(self) -> bool:
        """Whether the pod got a node."""
        return self.node is not None

    def __repr__(self) -> str:
        return f"Placement({self.pod.key!r}, node={self.node!r}" + (f", message={self.message!r})"
                                                                  if self.message else ")")


@final
@attrs.frozen
class ScheduleResult:
    """What :meth:`ClusterSnapshot.schedule <schedframe.ClusterSnapshot.schedule>` did.

    Attributes:
        placements: one per pod given, in the order given.
        victims: the pods preemption evicted on the way (gone from the snapshot).
        dry_run: the snapshot was left unchanged.
    """

    __module__ = "schedframe.whatif"

    placements: tuple[Placement, ...]
    victims: tuple[Pod, ...] = ()
    dry_run: bool = False

    @property
    def placed(self) -> dict[str, str]:
        """``{pod key: node}`` of the pods placed."""
        return {p.pod.key: p.node for p in self.placements if p.node is not None}

    @property
    def unplaced(self) -> dict[str, str]:
        """``{pod key: message}`` of the pods not placed."""
        return {p.pod.key: p.message for p in self.placements if p.node is None}

    @property
    def all_placed(self) -> bool:
        """Whether every pod got a node."""
        return all(p.node is not None for p in self.placements)

    def __getitem__(self, key: str) -> Placement:
        for p in self.placements:
            if p.pod.key == key or p.pod.name == key:
                return p
        raise KeyError(key)

    def __len__(self) -> int:
        return len(self.placements)

    def __repr__(self) -> str:
        return (f"ScheduleResult(placed={len(self.placed)}, unplaced={len(self.unplaced)}, "
                f"victims={[v.key for v in self.victims]}, dry_run={self.dry_run})")


@final
@attrs.frozen
class Verdict:
    """What :meth:`ClusterSnapshot.can_schedule <schedframe.ClusterSnapshot.can_schedule>`
    found: the node the scheduling cycle selects, or why none.

    Attributes:
        pod: the pod asked about.
        node: the node kube-scheduler would bind it to, or ``None``.
        message: why not (``""`` when it fits).
    """

    __module__ = "schedframe.whatif"

    pod: Pod
    node: str | None
    message: str = ""
    _explain: Callable[[], Explanation] | None = attrs.field(default=None, repr=False, eq=False,
                                                            alias="explain")

    @property
    def fits(self) -> bool:
        """Whether a node was found."""
        return self.node is not None

    @property
    def explanation(self) -> Explanation:
        """The full :class:`~schedframe.Explanation` of the attempt (every Filter plugin on
        every node, every score), computed when first read, from the snapshot as it was asked.

        Raises:
            SnapshotError: the snapshot changed since (ask again).
        """
        if self._explain is None:  # pragma: no cover - always set by ClusterSnapshot
            raise AttributeError("no explanation")
        return self._explain()

    def __repr__(self) -> str:
        return f"Verdict({self.pod.key!r}, node={self.node!r}" + (f", message={self.message!r})"
                                                                if self.message else ")")


@final
@attrs.frozen
class NodeCheck:
    """What :meth:`ClusterSnapshot.check <schedframe.ClusterSnapshot.check>` found for one
    node: PreFilter and every Filter plugin, as the scheduling cycle runs them there.

    Attributes:
        pod: the pod.
        node: the node's name.
        fits: whether every plugin passed.
        message: the first failure's message (``""`` when it fits).
        plugin: the plugin that failed first (``""`` when it fits).
        verdict: each Filter plugin's verdict (a :class:`~schedframe.scheduler.NodeVerdict`), ``None``
            when PreFilter already rejected the pod or left this node out.
    """

    __module__ = "schedframe.whatif"

    pod: Pod
    node: str
    fits: bool
    message: str = ""
    plugin: str = ""
    verdict: NodeVerdict | None = attrs.field(default=None, repr=False)

    def __repr__(self) -> str:
        tail = "fits" if self.fits else f"{self.plugin}: {self.message}"
        return f"NodeCheck({self.pod.key!r}, {self.node!r}, {tail})"


@final
@attrs.frozen
class FillResult:
    """How many copies of a template fit, and where (:meth:`ClusterSnapshot.fill
    <schedframe.ClusterSnapshot.fill>`).

    Attributes:
        template: the template.
        pods: the copies placed, bound, in the order they were placed.
        stopped: why the next copy did not fit (``""``: *max_pods* were placed).
        victims: pods preemption evicted for the copies (the template outranked them).
    """

    __module__ = "schedframe.whatif"

    template: Pod
    pods: tuple[Pod, ...]
    stopped: str = ""
    victims: tuple[Pod, ...] = ()

    @property
    def count(self) -> int:
        """How many copies were placed."""
        return len(self.pods)

    @property
    def nodes(self) -> tuple[str, ...]:
        """The node of each copy placed."""
        return tuple(p.node_name for p in self.pods)

    @property
    def by_node(self) -> Mapping[str, int]:
        """Copies per node."""
        return Counter(self.nodes)

    def __len__(self) -> int:
        return len(self.pods)

    def __repr__(self) -> str:
        return (f"FillResult({self.template.name!r}, count={self.count}, by_node={dict(self.by_node)}"
                + (f", stopped={self.stopped!r})" if self.stopped else ")"))


@final
@attrs.frozen
class DrainResult:
    """What draining nodes would do (:meth:`ClusterSnapshot.drain <schedframe.ClusterSnapshot.drain>`).

    Attributes:
        nodes: the nodes drained (asked for).
        ok: every pod that must move found a node together; when False the snapshot is left
            unchanged.
        moves: ``{pod key: node}`` where each moved pod landed.
        unplaced: ``{pod key: message}`` pods that found no node (``ok`` is False).
        blocked: ``{pod key: reason}`` pods that may not be evicted (Cluster Autoscaler's
            ``BlockingPodReason`` names, or ``NotEnoughPdb: ...``); nothing was tried then.
        evicted: the pods that had to move, as they were before the drain.
        removed: the DaemonSet and mirror pods that went with their node.
    """

    __module__ = "schedframe.whatif"

    nodes: tuple[str, ...]
    ok: bool
    moves: Mapping[str, str] = attrs.field(factory=dict)
    unplaced: Mapping[str, str] = attrs.field(factory=dict)
    blocked: Mapping[str, str] = attrs.field(factory=dict)
    evicted: tuple[Pod, ...] = ()
    removed: tuple[Pod, ...] = ()

    @property
    def reason(self) -> str:
        """Why the drain is not possible, in one line (``""`` when ok)."""
        if self.ok:
            return ""
        if self.blocked:
            key, why = next(iter(self.blocked.items()))
            return f"{key}: {why}"
        key, why = next(iter(self.unplaced.items()))
        return f"{key}: {why}" if why else f"{key} fits no other node"

    def __repr__(self) -> str:
        if self.ok:
            return f"DrainResult({list(self.nodes)}, ok, moves={dict(self.moves)})"
        return f"DrainResult({list(self.nodes)}, not ok: {self.reason})"


@final
@attrs.frozen(eq=False)
class Preemption:
    """What :meth:`ClusterSnapshot.preempt <schedframe.ClusterSnapshot.preempt>` did; also the
    handle :meth:`~schedframe.ClusterSnapshot.unpreempt` takes to undo it.

    Attributes:
        pod: the preemptor, bound (or as given when it was not placed).
        node: its node (the nominated node when victims were evicted), or ``None``.
        victims: the pods evicted, as they were (bound).
        message: why it was not placed (``""`` when placed).
    """

    __module__ = "schedframe.whatif"

    pod: Pod
    node: str | None
    victims: tuple[Pod, ...] = ()
    message: str = ""
    _owner: Any = attrs.field(default=None, repr=False, alias="owner")

    @property
    def placed(self) -> bool:
        """Whether the preemptor got a node."""
        return self.node is not None

    def __repr__(self) -> str:
        return (f"Preemption({self.pod.key!r}, node={self.node!r}, victims={[v.key for v in self.victims]}"
                + (f", message={self.message!r})" if self.message else ")"))
