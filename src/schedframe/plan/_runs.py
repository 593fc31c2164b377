"""The two simulations a plan is seen through: the cluster as it is, and the cluster with the
plan done (what ``schedframe plan --report`` shows side by side)."""

from __future__ import annotations

import os
from collections.abc import Sequence
from typing import Any

import attrs

from ..api.objects import Node, Pod
from ..framework.registry import Registry
from ..sim.decisions import RecordDecisions
from ..sim.results import SimResult
from ..sim.run import simulate
from ..sim.scenario import Scenario
from ._context import HORIZON, Context
from ._plan import PlanResult, _after_scale_up, _size, plan_inputs
from ._scale_down import removal_outcome

__all__ = ["AS_IS", "PLANNED", "plan_runs", "write_plan_report"]

#: The configuration names of :func:`plan_runs`' two runs.
AS_IS = "as it is"
PLANNED = "planned"


def plan_runs(cluster: Any, result: PlanResult, *, pending: Any = (), config: Any = None,
              registry: Registry | None = None, seed: int = 0,
              decisions: RecordDecisions | bool = False) -> tuple[SimResult, SimResult]:
    """Simulate *cluster* (and the *pending* pods) as it is, then with *result*'s plan done.
    The arguments are those :func:`~schedframe.plan.plan` was given.

    The first run (configuration name :data:`AS_IS`) has the cluster's nodes with its bound
    pods running and the pending pods arriving at time 0. The second (:data:`PLANNED`) is the
    plan's own checks in one run: the nodes the scale-up adds (with their DaemonSet pods) and
    not the nodes the scale-down removes; the pending pods bound where the scale-up places
    them; the removed nodes' pods arriving at time 0, largest first, then the pods the plan
    leaves pending. A :func:`~schedframe.sim.report.write_report` of the two shows
    which pods stay pending where, and which nodes the plan emptied (the placement diff).

    Raises:
        TemplateError, ManifestError, ConfigurationError: as :func:`~schedframe.plan.plan`.

    .. versionadded:: 0.1.0
    """
    runs, _ = _plan_runs(cluster, result, pending, config, registry, seed, decisions)
    return runs


def write_plan_report(path: str | os.PathLike[str], cluster: Any, result: PlanResult, *,
                      pending: Any = (), config: Any = None, registry: Registry | None = None,
                      seed: int = 0, title: str = "plan", description: str = "") -> int:
    """Write the HTML report (:func:`~schedframe.sim.report.write_report`) of
    :func:`plan_runs` to *path*, the pending pods' last failed attempts recorded (their Filter
    and Score matrix), the heat map filterable by the nodes' labels; return its size in bytes.

    Raises:
        ReportError: a bad *path*.
        TemplateError, ManifestError, ConfigurationError: as :func:`~schedframe.plan.plan`.

    .. versionadded:: 0.1.0
    """
    from ..sim.report import check_report_path, write_report

    check_report_path(path)
    runs, nodes = _plan_runs(cluster, result, pending, config, registry, seed,
                             RecordDecisions(last_failed_only=True))
    labels = {n.name: dict(n.labels) for n in nodes}
    return write_report(path, runs, title=title, description=description, labels=labels)


def _plan_runs(cluster: Any, result: PlanResult, pending: Any, config: Any, registry: Registry | None,
               seed: int, decisions: RecordDecisions | bool
               ) -> tuple[tuple[SimResult, SimResult], list[Node]]:
    """:func:`plan_runs`, and every node of the two runs."""
    ctx, waiting, _ = plan_inputs(cluster, pending, config, registry, seed)
    as_is = _run(ctx, AS_IS, ctx.nodes, ctx.bound, waiting, decisions)
    # as the plan's own checks: the pending pods bound where the scale-up places them, then the
    # removed nodes' pods moving (largest first), then the pods the plan leaves pending
    after, _, placed = _after_scale_up(ctx, result.templates, result.scale_up, waiting)
    down = result.scale_down
    nodes, bound, moving = removal_outcome(after, down.removable if down is not None else ())
    left = [p for p in waiting if p.key not in placed]
    planned_run = _run(ctx, PLANNED, nodes, bound, [*sorted(moving, key=_size), *left], decisions)
    known = {n.name for n in ctx.nodes}
    return (as_is, planned_run), [*ctx.nodes, *(n for n in nodes if n.name not in known)]


def _run(ctx: Context, name: str, nodes: Sequence[Node], bound: Sequence[Pod],
         pending: Sequence[Pod], decisions: RecordDecisions | bool) -> SimResult:
    scenario = Scenario("plan", nodes=tuple(nodes), pods=(*bound, *pending), objects=tuple(ctx.objects))
    r = simulate(scenario, ctx.config, seed=ctx.seed, registry=ctx.registry, until=HORIZON,
                 decisions=decisions)
    return attrs.evolve(r, config=name)
