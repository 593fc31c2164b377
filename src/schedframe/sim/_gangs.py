"""Which pending pods of a run wait for a gang's quorum (``SimResult.gang_blocked``)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from ..api.objects import Pod, PodGroup
from ..api.scheduling_workload import SchedulingPodGroup, Workload
from ..plugins import names
from ..plugins.coscheduling import POD_GROUP_LABEL
from .results import PENDING, RUNNING, GangBlock


def _enables(frameworks: Mapping[str, Any], pod: Pod, plugin: str) -> bool:
    fwk = frameworks.get(pod.scheduler_name)
    return fwk is not None and fwk.get_plugin(plugin) is not None


class _Gangs:
    def __init__(self, objects: Iterable[Any], frameworks: Mapping[str, Any]) -> None:
        self.frameworks = frameworks
        self.pod_groups: dict[tuple[str, str], int] = {}
        self.workloads: dict[tuple[str, str], Workload] = {}
        # 1.36 on: scheduling.k8s.io PodGroups named by pods' spec.schedulingGroup
        self.scheduling_groups: dict[tuple[str, str], int] = {}
        for o in objects:
            if isinstance(o, PodGroup):
                self.pod_groups[(o.namespace, o.name)] = o.min_member
            elif isinstance(o, SchedulingPodGroup) and o.min_count is not None:
                self.scheduling_groups[(o.namespace, o.name)] = o.min_count
            elif isinstance(o, Workload):
                self.workloads[(o.namespace, o.name)] = o

    def of(self, pod: Pod) -> tuple[str, str, int] | None:
        group = pod.labels.get(POD_GROUP_LABEL)
        if group:
            quorum = self.pod_groups.get((pod.namespace, group))
            if quorum is not None and _enables(self.frameworks, pod, names.COSCHEDULING):
                return "PodGroup", f"{pod.namespace}/{group}", quorum
        if pod.scheduling_group is not None:
            quorum = self.scheduling_groups.get((pod.namespace, pod.scheduling_group))
            if quorum is not None and _enables(self.frameworks, pod, names.GANG_SCHEDULING):
                return "scheduling.k8s.io PodGroup", f"{pod.namespace}/{pod.scheduling_group}", quorum
        ref = pod.workload_ref
        if ref is not None:
            w = self.workloads.get((pod.namespace, ref.name))
            pg = w.pod_group(ref.pod_group) if w is not None else None
            if (pg is not None and pg.min_count is not None
                    and _enables(self.frameworks, pod, names.GANG_SCHEDULING)):
                name = f"{pod.namespace}/{ref.name}/{ref.pod_group}"
                if ref.pod_group_replica_key:
                    name += f"/{ref.pod_group_replica_key}"
                return "Workload", name, pg.min_count
        return None


def gang_blocks(pods: Iterable[tuple[Pod, str]], objects: Iterable[Any],
                frameworks: Mapping[str, Any]) -> tuple[GangBlock, ...]:
    """The gangs with fewer members running than their quorum and members pending, from
    ``(pod, final state)`` pairs, by group name."""
    gangs = _Gangs(objects, frameworks)
    if not gangs.pod_groups and not gangs.workloads and not gangs.scheduling_groups:
        return ()
    placed: dict[tuple[str, str], int] = {}
    pending: dict[tuple[str, str], list[str]] = {}
    quorum: dict[tuple[str, str], int] = {}
    for pod, state in pods:
        if state not in (PENDING, RUNNING):
            continue
        found = gangs.of(pod)
        if found is None:
            continue
        kind, group, need = found
        key = (kind, group)
        quorum[key] = need
        if state == RUNNING:
            placed[key] = placed.get(key, 0) + 1
        else:
            pending.setdefault(key, []).append(pod.key)
    return tuple(
        GangBlock(group, kind, quorum[(kind, group)], placed.get((kind, group), 0), tuple(keys))
        for (kind, group), keys in sorted(pending.items())
        if placed.get((kind, group), 0) < quorum[(kind, group)]
    )
