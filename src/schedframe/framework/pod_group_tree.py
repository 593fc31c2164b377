"""The trees of pod groups a CompositePodGroup makes (kube-scheduler 1.37, ``CompositePodGroup``).

A ``scheduling.k8s.io`` PodGroup or CompositePodGroup whose ``spec.parentCompositePodGroupName``
names a CompositePodGroup is a child of it; the root is the group with no parent. The PodGroup
cycle schedules a whole tree at once, GangScheduling holds and permits its pods as one.

Upstream keeps the children in a set (``workloadForest.children``, the cache's
``compositePodGroupState``), so the order it visits them in is Go's map order (random);
schedframe visits them by name (PodGroups before CompositePodGroups of the same name).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, TypeAlias

from ..api.scheduling_workload import CompositePodGroup, SchedulingPodGroup

__all__ = ["MAX_TREE_DEPTH", "Group", "children", "entity_key", "leaves", "root_of"]

#: upstream ``WorkloadMaxTreeDepth``: four levels of groups at most
MAX_TREE_DEPTH: Final = 4

Group: TypeAlias = SchedulingPodGroup | CompositePodGroup


def entity_key(group: Group) -> str:
    """Upstream's ``EntityKey.String()``: ``podgroup/<ns>/<name>`` or ``compositepodgroup/<ns>/<name>``."""
    kind = "compositepodgroup" if isinstance(group, CompositePodGroup) else "podgroup"
    return f"{kind}/{group.namespace}/{group.name}"


def children(objects: Any, group: Group) -> list[Group]:
    """The groups whose parent is *group* (none for a PodGroup), by name."""
    if not isinstance(group, CompositePodGroup):
        return []
    out: list[Group] = []
    for kind in (SchedulingPodGroup, CompositePodGroup):
        out.extend(g for g in objects.list(kind, group.namespace)
                   if isinstance(g, kind) and g.parent == group.name)
    out.sort(key=lambda g: (g.name, isinstance(g, CompositePodGroup)))
    return out


def root_of(objects: Any, group: Group) -> CompositePodGroup | SchedulingPodGroup | str:
    """The root of *group*'s tree (*group* itself without a parent), or why it cannot be found
    (upstream ``BuildHierarchySnapshotFromPod``'s error: a parent not observed yet)."""
    current: Group = group
    seen = {entity_key(group)}
    for _ in range(MAX_TREE_DEPTH):
        if current.parent is None:
            return current
        found = objects.get(CompositePodGroup, current.parent, current.namespace)
        key = f"compositepodgroup/{current.namespace}/{current.parent}"
        if not isinstance(found, CompositePodGroup):
            return f"composite pod group object not found in state for {key}"
        if key in seen:
            return f"cycle detected in composite pod group hierarchy: {key}"
        seen.add(key)
        current = found
    return current


def leaves(objects: Any, group: Group) -> Iterator[SchedulingPodGroup]:
    """The PodGroups of *group*'s subtree, depth first in :func:`children` order."""
    if isinstance(group, SchedulingPodGroup):
        yield group
        return
    stack: list[tuple[Group, int]] = [(group, 0)]
    while stack:
        g, depth = stack.pop()
        if isinstance(g, SchedulingPodGroup):
            yield g
        elif depth < MAX_TREE_DEPTH:
            stack.extend((c, depth + 1) for c in reversed(children(objects, g)))
