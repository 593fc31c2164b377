"""DaemonSet pods on new nodes: Cluster Autoscaler counts the DaemonSet pods a template node
would run (``daemonset.GetDaemonSetPodsForNode``: the DaemonSet controller's predicates --
node selector, required node affinity, NoSchedule/NoExecute taints against the pod's
tolerations with the ones the controller adds) as taking room on that node."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from typing import Any, Final

from ..api.objects import Node, Pod, PriorityClass
from ..api.workloads import DaemonSet, daemon_target, expand_workloads
from ._shapes import vector

__all__ = ["daemon_load", "daemon_pods", "daemon_sets"]

#: The namespace of the uids of the DaemonSet pods of new nodes (uuid5 of namespace, DaemonSet
#: and node: one pod per DaemonSet and node, whatever else is added beside it).
_UID_NS: Final = uuid.UUID("8f3c1f3e-6d0b-5a4e-9a51-2f1f0c9d4b7a")


def daemon_sets(objects: Iterable[Any]) -> list[Any]:
    """The DaemonSets among *objects* that have a pod template, and the PriorityClasses (their
    pods' priority comes from them)."""
    found = [o for o in objects if isinstance(o, (DaemonSet, PriorityClass))]
    if not any(isinstance(o, DaemonSet) and o.template is not None for o in found):
        return []
    return found


def daemon_pods(sets: Sequence[Any], nodes: Sequence[Node], seed: int = 0,
                prefix: str = "") -> list[Pod]:
    """The DaemonSet pods that *nodes* (new, empty nodes) would run, bound to them, named
    ``<prefix><daemonset>-<node>`` (and a uid from the same three): one name per DaemonSet and
    node, so the pods of nodes added in different rounds never clash with each other, nor with
    the cluster's pods. (The controller's random ``<daemonset>-<5 characters>`` names are
    drawn from a generator seeded by the DaemonSet alone, so two calls for different nodes would
    draw the same names.)"""
    if not sets or not nodes:
        return []
    by_name = {n.name for n in nodes}
    out = []
    for o in expand_workloads([*nodes, *sets], seed=seed):
        if not isinstance(o, Pod):
            continue
        target = daemon_target(o)
        if target in by_name:
            owner = next((r.name for r in o.owner_references if r.controller), o.name)
            name = f"{prefix}{owner}-{target}"
            uid = str(uuid.uuid5(_UID_NS, f"{o.namespace}/{owner}/{target}/{prefix}"))
            out.append(o.evolve(name=name, uid=uid, node_name=target))
    return out


def daemon_load(sets: Sequence[Any], node: Node, dims: Sequence[str]) -> tuple[int, ...]:
    """The requests, over *dims*, of the DaemonSet pods a fresh *node* would run."""
    total = [0] * len(dims)
    for p in daemon_pods(sets, [node]):
        for i, v in enumerate(vector(p.requests, dims, pod=True)):
            total[i] += v
    return tuple(total)
