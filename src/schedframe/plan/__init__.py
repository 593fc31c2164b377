"""``schedframe.plan``: capacity planning with kube-scheduler's exact semantics -- which nodes
to add for pending pods (Cluster Autoscaler's scale-up: binpacking estimate per node template,
an expander strategy, then the real scheduler) and which nodes can go (its scale-down rules),
each plan checked by simulating it.

It may import ``schedframe.gpushare``, ``schedframe.sim`` and the layers below; never ``bench``
or ``cli``.
"""

from __future__ import annotations

from ._plan import DEFAULT_THRESHOLD, PlanResult, ScaleDown, ScaleUp, plan
from ._runs import AS_IS, PLANNED, plan_runs, write_plan_report
from ._scale_up import STRATEGIES
from ._sweep import sweep_task
from ._templates import NodeTemplate, TemplateError, load_templates, templates_from_data
from .example import EXAMPLE_CONFIG, example_cluster, example_templates

__all__ = [
    "AS_IS",
    "DEFAULT_THRESHOLD",
    "EXAMPLE_CONFIG",
    "STRATEGIES",
    "NodeTemplate",
    "PLANNED",
    "PlanResult",
    "ScaleDown",
    "ScaleUp",
    "TemplateError",
    "example_cluster",
    "example_templates",
    "load_templates",
    "plan",
    "plan_runs",
    "sweep_task",
    "templates_from_data",
    "write_plan_report",
]
