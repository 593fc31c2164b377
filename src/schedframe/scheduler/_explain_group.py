"""Explaining a whole pod group: why it can or cannot be placed, member by member
(:func:`~schedframe.explain_group`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, final

import attrs

from ..api.objects import Pod
from ..api.scheduling_workload import CompositePodGroup, SchedulingPodGroup, Workload
from ..errors import ArgumentTypeError, SchedulerError
from ..framework.pod_group_tree import children as tree_children
from ..framework.pod_group_tree import root_of
from .explain import Explanation, explain

__all__ = ["GroupExplanation", "explain_group"]


def _members(value: Iterable[Explanation]) -> tuple[Explanation, ...]:
    return tuple(value)


def _children(value: Iterable[GroupExplanation]) -> tuple[GroupExplanation, ...]:
    return tuple(value)


@final
@attrs.frozen(kw_only=True)
class GroupExplanation:
    """The record of a pod group's placement, as the PodGroup cycle tries it: each unscheduled
    member in turn (by priority, then in the order given), each seeing the members before it
    placed where they would go (see :func:`~schedframe.scheduler.explain_group`).

    Attributes:
        group: ``namespace/name`` of the group (its ``scheduling.k8s.io`` PodGroup, or
            ``namespace/workload/podGroup`` of a 1.35 Workload).
        min_count: the gang's ``minCount``; ``None`` for the ``basic`` policy.
        bound: members already bound in the cluster.
        members: one :class:`~schedframe.Explanation` per unscheduled member, in the order tried.
        children: for a CompositePodGroup (1.37), one explanation per child group (PodGroups and
            composites, by name); ``min_count`` is then its ``minGroupCount`` and ``members``
            is empty.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.scheduler"

    group: str
    min_count: int | None
    bound: int = 0
    members: tuple[Explanation, ...] = attrs.field(default=(), converter=_members)
    children: tuple[GroupExplanation, ...] = attrs.field(default=(), converter=_children)
    composite: bool = False

    @property
    def placed(self) -> tuple[tuple[str, str], ...]:
        """``(pod key, node)`` of every member that would be placed."""
        return tuple((e.pod.key, e.selected_node) for e in self.members if e.selected_node)

    @property
    def unplaced(self) -> tuple[Explanation, ...]:
        """The members that would not be placed."""
        return tuple(e for e in self.members if not e.selected_node)

    @property
    def feasible(self) -> bool:
        """True when the group would be placed. A basic group always is (each member where it
        fits), a gang when its bound and placeable members reach ``minCount``."""
        if self.composite:
            fit = sum(1 for c in self.children if c.feasible)
            return fit >= (1 if self.min_count is None else self.min_count)
        return self.min_count is None or self.bound + len(self.placed) >= self.min_count

    @property
    def failed_children(self) -> tuple[GroupExplanation, ...]:
        """A composite's child groups that would not be placed."""
        return tuple(c for c in self.children if not c.feasible)

    @property
    def message(self) -> str:
        """The outcome in one line, with the count against the quorum and each unplaced member's reason."""
        if self.composite:
            fit = len(self.children) - len(self.failed_children)
            quorum = f"minGroupCount {self.min_count}" if self.min_count is not None else "basic policy"
            head = (f"composite pod group {self.group} {'can' if self.feasible else 'cannot'} be placed: "
                    f"{fit} of {len(self.children)} child groups fit ({quorum})")
            why = "; ".join(f"[{c.message}]" for c in self.failed_children)
            return f"{head}{'; ' + why if why else ''}"
        fits = f"{self.bound + len(self.placed)} of {self.bound + len(self.members)} members fit"
        quorum = f"minCount {self.min_count}" if self.min_count is not None else "basic policy"
        head = (f"pod group {self.group} {'can' if self.feasible else 'cannot'} be placed: "
                f"{fits} ({quorum})")
        reasons = "; ".join(f"{e.pod.key}: {e.message or e.code.name}" for e in self.unplaced)
        return f"{head}{'; ' + reasons if reasons else ''}"

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping (each member's explanation as :meth:`schedframe.Explanation.to_dict`)."""
        return {"group": self.group, "min_count": self.min_count, "bound": self.bound,
                "feasible": self.feasible, "message": self.message,
                "placed": [{"pod": k, "node": n} for k, n in self.placed],
                "members": [e.to_dict() for e in self.members],
                **({"children": [c.to_dict() for c in self.children]} if self.composite else {})}

    def render(self) -> str:
        """A text report: the outcome line, then each member's explanation."""
        lines = [self.message, ""]
        for c in self.children:
            lines.append(f"== child group {c.group}")
            lines.append(c.render())
        for e in self.members:
            lines.append(f"== {e.pod.key}")
            lines.append(e.render())
            lines.append("")
        return "\n".join(lines).rstrip() + "\n"

    def __str__(self) -> str:
        return self.render()


def _group_of(pod: Pod) -> tuple[str, Any] | None:
    if pod.scheduling_group is not None:
        return ("pod-group", pod.scheduling_group)
    if pod.workload_ref is not None:
        return ("workload", pod.workload_ref)
    return None


def explain_group(pod: Pod, *, objects: Iterable[Any] = (),
                  config: Any = None, seed: int = 0) -> GroupExplanation:
    """Explain how kube-scheduler would place *pod*'s whole group on a cluster::

        g = explain_group(pod, objects=load_manifests("dump.yaml"))
        g.feasible         # False
        g.message          # "pod group default/train cannot be placed: 2 of 4 members fit (minCount 4); ..."
        g.members[2]       # the Explanation of the third member: per node, per plugin

    The group is the pod's ``spec.schedulingGroup`` (1.36 on) or ``spec.workloadRef`` (1.35);
    its members are the pending pods of *objects* in it (and *pod*). They are tried as the
    PodGroup cycle tries them: by priority, then in the order given, each explained
    (:func:`~schedframe.explain`) on the cluster with the members before it placed on the node
    they would go to. Nothing is changed; Permit and PostFilter (preemption) are not run. Every
    member is explained, also where 1.37's cycle would stop early (its PlacementFeasible check
    gives up once ``minCount`` cannot be met any more).

    Raises:
        SchedulerError: *pod* names no group.
        ArgumentTypeError: *pod* is not a Pod.

    .. versionadded:: 0.1.0
    """
    if not isinstance(pod, Pod):
        raise ArgumentTypeError(f"explain_group: pod must be a Pod, got {type(pod).__name__}")
    key = _group_of(pod)
    if key is None:
        raise SchedulerError(f"pod {pod.key} names no pod group (spec.schedulingGroup or spec.workloadRef)")
    objs = list(objects)
    if key[0] == "pod-group":
        composite = _composite_of(pod, objs)
        if composite is not None:
            return _explain_composite(composite, pod, objs, config, seed)
    return _explain_one(pod, key, objs, config, seed)


class _Objects:
    """The objects as the tree helpers list them."""

    def __init__(self, objs: list[Any]) -> None:
        self.objs = objs

    def list(self, kind: type, namespace: str | None = None) -> list[Any]:
        return [o for o in self.objs
                if isinstance(o, kind) and (namespace is None or getattr(o, "namespace", "") == namespace)]

    def get(self, kind: type, name: str, namespace: str = "") -> Any:
        return next((o for o in self.list(kind, namespace) if o.name == name), None)


def _composite_of(pod: Pod, objs: list[Any]) -> CompositePodGroup | None:
    store = _Objects(objs)
    pg = store.get(SchedulingPodGroup, pod.scheduling_group or "", pod.namespace)
    if not isinstance(pg, SchedulingPodGroup) or pg.parent is None:
        return None
    root = root_of(store, pg)
    return root if isinstance(root, CompositePodGroup) else None


def _explain_composite(group: CompositePodGroup, pod: Pod, objs: list[Any], config: Any, seed: int,
                       depth: int = 0) -> GroupExplanation:
    """A CompositePodGroup's tree: each child group explained on its own (the pending pods of a
    leaf PodGroup as :func:`explain_group` tries them; the siblings' placements and the
    composite's topology constraint are not taken into account)."""
    out: list[GroupExplanation] = []
    for child in tree_children(_Objects(objs), group) if depth < 4 else []:
        if isinstance(child, CompositePodGroup):
            out.append(_explain_composite(child, pod, objs, config, seed, depth + 1))
            continue
        first = next((o for o in objs if isinstance(o, Pod) and not o.node_name
                      and o.namespace == child.namespace and o.scheduling_group == child.name
                      and o.phase == "Pending"), None)
        if first is None:
            out.append(GroupExplanation(group=f"{child.namespace}/{child.name}", min_count=child.min_count))
            continue
        out.append(_explain_one(first, ("pod-group", child.name), objs, config, seed))
    return GroupExplanation(group=f"{group.namespace}/{group.name}", min_count=group.min_group_count,
                            children=out, composite=True)


def _explain_one(pod: Pod, key: tuple[str, Any], objs: list[Any], config: Any, seed: int) -> GroupExplanation:
    cluster = [o for o in objs if not (isinstance(o, Pod) and not o.node_name and _group_of(o) == key
                                       and o.namespace == pod.namespace)]
    pending = [o for o in objs if isinstance(o, Pod) and not o.node_name and o.uid != pod.uid
               and o.namespace == pod.namespace and _group_of(o) == key and o.phase == "Pending"]
    bound = sum(1 for o in objs if isinstance(o, Pod) and o.node_name and o.namespace == pod.namespace
                and _group_of(o) == key and o.phase in ("Pending", "Running"))
    members = sorted([pod, *pending], key=lambda p: -(p.priority or 0))
    min_count, name = _policy(pod, key, objs)
    explained: list[Explanation] = []
    placed: list[Pod] = []
    for m in members:
        e = explain(m, objects=[*cluster, *placed], config=config, seed=seed,
                    pending=[x for x in members if x.uid != m.uid])
        explained.append(e)
        if e.selected_node:
            placed.append(m.evolve(node_name=e.selected_node))
    return GroupExplanation(group=name, min_count=min_count, bound=bound, members=explained)


def _policy(pod: Pod, key: tuple[str, Any], objects: list[Any]) -> tuple[int | None, str]:
    kind, ref = key
    if kind == "pod-group":
        for o in objects:
            if isinstance(o, SchedulingPodGroup) and o.name == ref and o.namespace == pod.namespace:
                return o.min_count, f"{pod.namespace}/{ref}"
        raise SchedulerError(f"pod {pod.key} names pod group {ref!r}, which is not in the cluster "
                             f"(a scheduling.k8s.io PodGroup in namespace {pod.namespace!r})")
    for o in objects:
        if isinstance(o, Workload) and o.name == ref.name and o.namespace == pod.namespace:
            group = o.pod_group(ref.pod_group)
            if group is not None:
                return group.min_count, f"{pod.namespace}/{ref.name}/{ref.pod_group}"
    raise SchedulerError(f"pod {pod.key} names workload {ref.name!r} pod group {ref.pod_group!r}, "
                         "which is not in the cluster")
