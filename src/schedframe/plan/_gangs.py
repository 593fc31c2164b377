"""Gangs among the pending pods: the pods of a Coscheduling PodGroup (``minMember``) or of a
Workload's gang pod group (GangScheduling, ``minCount``), when the pods' profile enables the
plugin. A gang is planned as a whole: its members bind together once its quorum can, or none
does, so a template helps a gang only when its nodes hold the quorum at once."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from ..api.objects import Pod, PodGroup
from ..api.scheduling_workload import Workload
from ..config.configuration import SchedulerConfiguration
from ..plugins import names
from ..plugins.coscheduling import POD_GROUP_LABEL

__all__ = ["Gang", "alone", "gangs_of"]


@attrs.frozen
class Gang:
    """A gang's pending members and how many of them must bind together (its quorum less the
    members already bound)."""

    name: str
    quorum: int
    need: int
    members: tuple[Pod, ...]

    @property
    def keys(self) -> frozenset[str]:
        return frozenset(p.key for p in self.members)

    def describe(self) -> str:
        return f"gang {self.name} (quorum {self.quorum})"


def alone(pod: Pod) -> Pod:
    """*pod* out of its gang: whether a node holds one member is asked of the member alone (its
    siblings are pending, so PreFilter or PreEnqueue would hold it for the quorum)."""
    if POD_GROUP_LABEL in pod.labels:
        pod = pod.evolve(labels={k: v for k, v in pod.labels.items() if k != POD_GROUP_LABEL})
    if pod.workload_ref is not None:
        pod = pod.evolve(workload_ref=None)
    return pod


def _enabled(config: SchedulerConfiguration, plugin: str) -> set[str]:
    return {pr.scheduler_name for pr in config.profiles
            if any(ref.name == plugin for ref in pr.plugins_at("permit"))}


def _group(pod: Pod, pod_groups: dict[tuple[str, str], int], workloads: dict[tuple[str, str], Workload],
           cosched: set[str], native: set[str]) -> tuple[str, int] | None:
    group = pod.labels.get(POD_GROUP_LABEL)
    if group and pod.scheduler_name in cosched:
        quorum = pod_groups.get((pod.namespace, group))
        if quorum is not None:
            return f"PodGroup {pod.namespace}/{group}", quorum
    ref = pod.workload_ref
    if ref is not None and pod.scheduler_name in native:
        w = workloads.get((pod.namespace, ref.name))
        pg = w.pod_group(ref.pod_group) if w is not None else None
        if pg is not None and pg.min_count is not None:
            name = f"Workload {pod.namespace}/{ref.name}/{ref.pod_group}"
            if ref.pod_group_replica_key:
                name += f"/{ref.pod_group_replica_key}"
            return name, pg.min_count
    return None


def gangs_of(pending: Iterable[Pod], bound: Sequence[Pod], objects: Iterable[Any],
             config: SchedulerConfiguration) -> list[Gang]:
    """The gangs of the *pending* pods that still need members bound together (their quorum
    less their *bound* members is more than one: a gang one member short lets any member that
    fits complete it), in order of first member."""
    cosched = _enabled(config, names.COSCHEDULING)
    native = _enabled(config, names.GANG_SCHEDULING)
    if not cosched and not native:
        return []
    pod_groups: dict[tuple[str, str], int] = {}
    workloads: dict[tuple[str, str], Workload] = {}
    for o in objects:
        if isinstance(o, PodGroup):
            pod_groups[(o.namespace, o.name)] = o.min_member
        elif isinstance(o, Workload):
            workloads[(o.namespace, o.name)] = o
    found: dict[str, tuple[int, list[Pod]]] = {}
    for p in pending:
        g = _group(p, pod_groups, workloads, cosched, native)
        if g is not None:
            found.setdefault(g[0], (g[1], []))[1].append(p)
    if not found:
        return []
    placed: dict[str, int] = {}
    for p in bound:
        if p.is_terminal:
            continue
        g = _group(p, pod_groups, workloads, cosched, native)
        if g is not None and g[0] in found:
            placed[g[0]] = placed.get(g[0], 0) + 1
    out = []
    for name, (quorum, members) in found.items():
        need = quorum - placed.get(name, 0)
        if need > 1:
            out.append(Gang(name, quorum, need, tuple(members)))
    return out
