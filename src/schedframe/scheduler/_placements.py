"""The placements of a PodGroup cycle (kube-scheduler 1.36 on, ``TopologyAwareWorkloadScheduling``).

Upstream: ``podGroupSchedulingPlacementAlgorithm`` and ``findBestPlacement`` in
``pkg/scheduler/schedule_one_podgroup.go``, and the default plugins of the two placement
extension points:

* **PlacementGenerate** -- ``TopologyPlacementGenerator`` (``plugins/topologyaware``): a PodGroup
  whose ``schedulingConstraints.topology`` names a node label gets one placement per value of
  that label (the nodes carrying it; a node without the label is in none). Once some of the
  group's pods are placed, only their domain is generated. A group without a constraint gets one
  placement of every node.
* **PlacementScore** -- ``PodGroupPodsCount`` (``plugins/podgrouppodscount``: the group's pods
  already placed plus those the placement fits, normalised by the best placement's count) and
  ``NodeResourcesFit`` (:meth:`~schedframe.plugins.node_resources_fit.NodeResourcesFit.score_placement`:
  MostAllocated over the placement's nodes), weight 1 each, as the default profile has them.

Each placement is tried with the release's default algorithm, the trial seeing only the
placement's nodes (upstream's ``AssumePlacement``: Filter, the round robin and the "0/N nodes"
count are over them; plugins still see every node of the snapshot).

Deliberate deviations: upstream tries the placements in Go's map order (random); schedframe tries
them by domain name. Among equally scored placements upstream and schedframe both pick at random
(schedframe with the scheduler's seeded RNG). The placement plugins are not configurable yet
(the ``placementGenerate``/``placementScore`` extension points are not in profiles).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Final, final

import attrs

from ..api.objects import Pod
from ..api.scheduling_workload import CompositePodGroup, SchedulingPodGroup
from ..cache.nodeinfo import NodeInfo
from ..framework.status import Code, Status

__all__ = [
    "MSG_NO_FEASIBLE_PLACEMENTS",
    "POD_GROUP_PODS_COUNT",
    "TOPOLOGY_PLACEMENT_GENERATOR",
    "Placement",
    "generate_placements",
    "no_placement_available",
    "pods_count_scores",
]

#: the plugin names upstream gives the default placement plugins
TOPOLOGY_PLACEMENT_GENERATOR: Final = "TopologyPlacementGenerator"
POD_GROUP_PODS_COUNT: Final = "PodGroupPodsCount"
#: the PlacementGenerate status when no placement is generated
MSG_NO_FEASIBLE_PLACEMENTS: Final = "no feasible placements found"
#: PodGroupPodsCount's NormalizePlacementScore error when no placement holds a pod of the group
MSG_NO_PODS_ASSIGNED: Final = "no pods from pod group are assigned to any of the candidate placements"

_MAX_SCORE: Final = 100


@final
@attrs.frozen
class Placement:
    """A set of nodes a PodGroup cycle tries the group on.

    Attributes:
        name: the topology domain (the label's value), ``""`` for the placement of every node.
        nodes: its node names, in the snapshot's order.
    """

    name: str
    nodes: tuple[str, ...]
    members: frozenset[str] = attrs.field(init=False, eq=False, repr=False)

    def __attrs_post_init__(self) -> None:
        object.__setattr__(self, "members", frozenset(self.nodes))


def generate_placements(group: SchedulingPodGroup | CompositePodGroup | None, nodes: Sequence[NodeInfo],
                        placed: Sequence[tuple[Pod, str]], node_of: Callable[[str], NodeInfo | None]
                        ) -> list[Placement] | Status:
    """TopologyPlacementGenerator's placements for *group* over the snapshot's *nodes*, its
    pods already *placed* (``(pod, node name)``) pinning the domain; or the status that ends the
    cycle (an error, or unschedulable when no placement is left)."""
    keys = group.spec.topology_keys if group is not None else ()
    if not keys:
        return [Placement("", tuple(ni.name for ni in nodes))]
    key = keys[0]  # the API allows one constraint
    required: str | None = None
    for pod, node_name in placed:
        node_info = node_of(node_name)
        if node_info is None:
            return _cannot_determine(f"getting node for pod {pod.namespace}/{pod.name}: node "
                                     f"\"{node_name}\" not found")
        domain = _label(node_info, key)
        if domain is None:
            return _cannot_determine(f"no topology domain found for pod {pod.namespace}/{pod.name}")
        if required is not None and required != domain:
            return _cannot_determine(f"more than 1 domain found for pod group: {required}, {domain}")
        required = domain
    by_domain: dict[str, list[str]] = {}
    for ni in nodes:
        domain = _label(ni, key)
        if domain is not None and (required is None or domain == required):
            by_domain.setdefault(domain, []).append(ni.name)
    if not by_domain:
        return Status(Code.UNSCHEDULABLE, (MSG_NO_FEASIBLE_PLACEMENTS,), plugin=TOPOLOGY_PLACEMENT_GENERATOR)
    return [Placement(domain, tuple(names)) for domain, names in sorted(by_domain.items())]


def _label(node_info: NodeInfo, key: str) -> str | None:
    node = node_info.node
    return None if node is None else node.labels.get(key)


def _cannot_determine(detail: str) -> Status:
    return Status.from_error(RuntimeError(f"cannot determine domain for already scheduled pods: {detail}"),
                             plugin=TOPOLOGY_PLACEMENT_GENERATOR)


def pods_count_scores(scheduled: int, proposed: Sequence[int]) -> list[int] | Status:
    """PodGroupPodsCount's normalised scores: each placement's pods (*scheduled* before the cycle
    plus its *proposed* count) out of the best placement's, 0 to 100; an error status when no
    placement holds a pod."""
    counts = [scheduled + n for n in proposed]
    best = max(counts, default=0)
    if best == 0:
        return Status.from_error(RuntimeError(
            f"running NormalizePlacementScore on PlacementScore plugins: plugin \"{POD_GROUP_PODS_COUNT}\" "
            f"failed with: {MSG_NO_PODS_ASSIGNED}"))
    return [c * _MAX_SCORE // best for c in counts]


def no_placement_available(count: int, first: Status, *, with_group_error: bool,
                           group_error: str) -> Status:
    """The group's status when none of *count* placements is feasible: the first placement's
    status *first* quoted as upstream's ``AsError`` renders it (only the group's error when it has
    one); 1.37 marks the status with the group's error too (*with_group_error*)."""
    quoted = group_error if first.reasons and first.reasons[0] == group_error else first.message
    text = f"0/{count} placements are available, first placement status: {quoted}"
    return Status(Code.UNSCHEDULABLE, (group_error, text) if with_group_error else (text,))
