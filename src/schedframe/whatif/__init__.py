"""``schedframe.whatif``: what-if questions at memory speed. :class:`~schedframe.ClusterSnapshot`
holds a cluster and answers with kube-scheduler's own cycles (can this pod schedule, how many
copies fit, where do a node's pods go if it drains, what would this pod preempt), inside
nestable forks that revert at the cost of what changed (:doc:`/whatif`).

It sits on the scheduler layer and below the simulator: it imports ``schedframe.scheduler`` and
the layers beneath it, never ``sim``, ``plan`` or ``cli``.
"""

from __future__ import annotations

from ._drain_rules import drain_blocker, node_utilisation, pdb_allowances
from ._results import DrainResult, FillResult, NodeCheck, Placement, Preemption, ScheduleResult, Verdict
from ._snapshot import ClusterSnapshot, Fork

__all__ = [
    "ClusterSnapshot",
    "DrainResult",
    "FillResult",
    "Fork",
    "NodeCheck",
    "Placement",
    "Preemption",
    "ScheduleResult",
    "Verdict",
    "drain_blocker",
    "node_utilisation",
    "pdb_allowances",
]
