"""``plan()``: scale-up and scale-down of a cluster, each checked by simulating it."""

from __future__ import annotations

import os
import random
import time
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final, final

import attrs

from ..api.manifests import load_manifests
from ..api.objects import Node, Pod
from ..config.configuration import SchedulerConfiguration
from ..framework.registry import Registry
from ..plugins.coscheduling import POD_GROUP_LABEL
from ..sim.results import SimResult
from ._context import Context, outcome, run_cluster
from ._scale_down import removal_outcome, scale_down_nodes
from ._scale_up import (
    STRATEGIES,
    helpers,
    plan_rounds,
    repair_and_run,
    shapes_of,
    unplaced_reasons,
)
from ._shapes import Shape
from ._templates import NodeTemplate, TemplateError, check_templates, load_templates

__all__ = ["DEFAULT_THRESHOLD", "PlanResult", "ScaleDown", "ScaleUp", "plan", "verify"]

#: Cluster Autoscaler's default ``--scale-down-utilization-threshold``.
DEFAULT_THRESHOLD: Final = 0.5


def _frozen_map(value: Mapping[str, Any]) -> dict[str, Any]:
    return dict(value)


@final
@attrs.frozen
class ScaleUp:
    """The scale-up part of a plan.

    Attributes:
        strategy: the expander strategy used.
        nodes_to_add: template name -> nodes to add (templates adding none are left out).
        new_nodes: the names of the nodes to add (``<template>-<n>``), in order.
        placements: pending pod key -> the node the scheduler places it on with the nodes added
            (an existing node or a new one).
        unhelpable: pod key -> template name -> reasons, for every pending pod the plan leaves
            pending: kube-scheduler's Filter reasons on a fresh node of that template, or
            ``template maxCount (N) reached``.
        cost: the price of the nodes added (``None`` when a template used has no price).
        simulations: how many times the whole plan was simulated (the first and the repairs).
        verified: a fresh simulation of the plan gave exactly these placements and pending pods,
            every pod that some template can hold is placed, no node is overcommitted and every
            gang is placed whole or not at all.
        problems: what the check found, when not verified.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plan"

    strategy: str
    nodes_to_add: Mapping[str, int] = attrs.field(converter=_frozen_map)
    new_nodes: tuple[str, ...]
    placements: Mapping[str, str] = attrs.field(converter=_frozen_map)
    unhelpable: Mapping[str, Mapping[str, tuple[str, ...]]] = attrs.field(converter=_frozen_map)
    cost: float | None
    simulations: int
    verified: bool
    problems: tuple[str, ...] = ()

    @property
    def node_count(self) -> int:
        """The number of nodes to add."""
        return sum(self.nodes_to_add.values())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "strategy": self.strategy,
            "nodes_to_add": dict(self.nodes_to_add),
            "new_nodes": list(self.new_nodes),
            "placements": dict(self.placements),
            "unhelpable": {k: {t: list(r) for t, r in v.items()} for k, v in self.unhelpable.items()},
            "cost": self.cost,
            "simulations": self.simulations,
            "verified": self.verified,
            "problems": list(self.problems),
        }


@final
@attrs.frozen
class ScaleDown:
    """The scale-down part of a plan.

    Attributes:
        removable: the nodes to remove, in removal order.
        moves: pod key -> the node its pod goes to when the nodes are removed (a fresh
            simulation of the removal).
        unremovable: node -> ``(reason, detail)``, reasons named as Cluster Autoscaler names them
            (``NotUnderutilized``, ``ScaleDownDisabledAnnotation``, ``NoPlaceToMovePods``,
            ``BlockedByPod`` with the pod and its ``BlockingPodReason``).
        utilisation: node -> Cluster Autoscaler's utilisation (max of CPU, memory, GPU requests
            over allocatable).
        threshold: the utilisation threshold.
        verified: a fresh simulation without the removed nodes places every moved pod.
        problems: what the check found, when not verified.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plan"

    removable: tuple[str, ...]
    moves: Mapping[str, str] = attrs.field(converter=_frozen_map)
    unremovable: Mapping[str, tuple[str, str]] = attrs.field(converter=_frozen_map)
    utilisation: Mapping[str, float] = attrs.field(converter=_frozen_map)
    threshold: float
    verified: bool
    problems: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping."""
        return {
            "removable": list(self.removable),
            "moves": dict(self.moves),
            "unremovable": {k: {"reason": r, "detail": d} for k, (r, d) in self.unremovable.items()},
            "utilisation": dict(self.utilisation),
            "threshold": self.threshold,
            "verified": self.verified,
            "problems": list(self.problems),
        }


@final
@attrs.frozen
class PlanResult:
    """A capacity plan: ``scale_up``, ``scale_down`` (``None`` when not asked), ``pending`` (the
    pods left pending), ``templates`` and whether every part passed its simulation check
    (``verified``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plan"

    scale_up: ScaleUp | None
    scale_down: ScaleDown | None
    pending: tuple[str, ...]
    templates: tuple[NodeTemplate, ...]
    wall_seconds: float = attrs.field(default=0.0, eq=False)

    @property
    def verified(self) -> bool:
        """True when every part of the plan passed its simulation check."""
        parts = [p for p in (self.scale_up, self.scale_down) if p is not None]
        return all(p.verified for p in parts)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping: ``scale_up``, ``scale_down``, ``pending`` and ``verified``."""
        prices = {t.name: t.price for t in self.templates}
        up = self.scale_up.to_dict() if self.scale_up is not None else None
        if up is not None:
            up["prices"] = {k: prices.get(k) for k in up["nodes_to_add"]}
        return {
            "scale_up": up,
            "scale_down": self.scale_down.to_dict() if self.scale_down is not None else None,
            "pending": list(self.pending),
            "verified": self.verified,
            "wall_seconds": round(self.wall_seconds, 3),
        }


# -- inputs -----------------------------------------------------------------------------------------

def _objects(source: Any, what: str) -> list[Any]:
    if source is None:
        return []
    if isinstance(source, (str, os.PathLike)):
        return load_manifests(Path(source))
    if isinstance(source, Iterable):
        return list(source)
    raise TemplateError("", what, f"want a path or an iterable of objects, got {type(source).__name__}")


def _config(config: Any, registry: Registry) -> SchedulerConfiguration:
    if config is None:
        return SchedulerConfiguration.default(registry=registry)
    if isinstance(config, SchedulerConfiguration):
        return config
    if isinstance(config, Mapping):
        return SchedulerConfiguration.from_dict(config, registry=registry)
    if isinstance(config, (str, os.PathLike)):
        return SchedulerConfiguration.from_file(config, registry=registry)
    raise TemplateError("", "config", f"want a SchedulerConfiguration, a mapping or a path, got "
                                      f"{type(config).__name__}")


def _registry(registry: Registry | None) -> Registry:
    if registry is not None:
        return registry
    from ..gpushare.plugins import gpushare_registry

    return gpushare_registry()


def _size(p: Pod) -> tuple[int, int, str]:
    return (-p.requests.milli_cpu, -p.requests.memory, p.key)


# -- the plan ---------------------------------------------------------------------------------------

def plan(cluster: str | os.PathLike[str] | Iterable[Any],
         templates: str | os.PathLike[str] | Iterable[NodeTemplate] = (),
         *,
         pending: str | os.PathLike[str] | Iterable[Any] | None = None,
         config: Any = None,
         strategy: str = "least-waste",
         scale_up: bool = True,
         scale_down: bool = False,
         threshold: float = DEFAULT_THRESHOLD,
         registry: Registry | None = None,
         seed: int = 0,
         recheck: bool = False) -> PlanResult:
    """Plan capacity for a cluster the way Cluster Autoscaler does, with kube-scheduler's exact
    semantics, and check the plan by simulating it.

    Args:
        cluster: the cluster: a manifest file, a directory, a ``kubectl get -o yaml`` dump or
            the objects (nodes, pods, workloads, PDBs, PodGroups, ...). Its unbound pods (and
            the pods its workloads would create) are pending.
        templates: the node templates (a file, see :func:`load_templates`, or
            :class:`NodeTemplate` objects); needed for scale-up.
        pending: more pending pods (or workloads): a file or objects.
        config: the scheduler configuration (object, ``KubeSchedulerConfiguration`` mapping
            or file); default upstream's.
        strategy: the expander: ``least-waste``, ``most-pods``, ``price``, ``priority``,
            ``random`` (seeded) or ``min-cost``.
        scale_up: plan nodes to add for the pending pods.
        scale_down: plan nodes to remove.
        threshold: the scale-down utilisation threshold (Cluster Autoscaler's 0.5).
        registry: the plugins (default: in-tree plus the GPU-sharing plugins).
        seed: breaks the scheduler's ties and the ``random`` strategy's choice.
        recheck: also simulate the final scale-up plan a second time, from scratch, and require
            the same placements (the check is otherwise made on the plan's own final
            simulation, itself a fresh simulation of exactly the nodes planned).

    Raises:
        TemplateError: bad templates or arguments.
        ManifestError, ConfigurationError: bad cluster, pods or configuration.

    .. versionadded:: 0.1.0
    """
    t0 = time.perf_counter()
    if strategy not in STRATEGIES:
        from ..errors import did_you_mean

        hint = did_you_mean(strategy, STRATEGIES)
        raise TemplateError("", "strategy", f"unknown strategy {strategy!r}{hint} "
                                            f"(strategies: {', '.join(STRATEGIES)})")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise TemplateError("", "threshold", f"want a number in [0, 1], got {threshold!r}")
    reg = _registry(registry)
    objs = _objects(cluster, "cluster")
    more = _objects(pending, "pending")
    nodes = [o for o in objs if isinstance(o, Node)]
    if not nodes:
        raise TemplateError("", "cluster", "the cluster has no Node")
    pods = [o for o in objs if isinstance(o, Pod)] + [o for o in more if isinstance(o, Pod)]
    others = [o for o in objs if not isinstance(o, (Node, Pod))] + [
        o for o in more if not isinstance(o, (Node, Pod))]
    seen: set[str] = set()
    for p in pods:
        if p.key in seen:
            raise TemplateError("", "pending", f"two pods are named {p.key!r}")
        seen.add(p.key)
    bound = [p for p in pods if p.node_name]
    waiting = sorted((p for p in pods if not p.node_name and p.phase not in ("Succeeded", "Failed")),
                     key=_size)
    ctx = Context(nodes, bound, others, _config(config, reg), reg, seed)
    tmpl: list[NodeTemplate] = []
    if scale_up:
        tmpl = (load_templates(templates) if isinstance(templates, (str, os.PathLike))
                else check_templates(templates))
    up = _scale_up(ctx, tmpl, waiting, strategy, recheck) if scale_up else None
    down = _scale_down(ctx, threshold) if scale_down else None
    left = tuple(sorted(up.unhelpable)) if up is not None else tuple(p.key for p in waiting)
    return PlanResult(up, down, left, tuple(tmpl), time.perf_counter() - t0)


#: How often a scale-up is planned again when pods the cluster as it is placed lose their place
#: once the planned nodes and the other pending pods are there (they are then planned for too).
MAX_REPLANS: Final = 3


def _scale_up(ctx: Context, templates: Sequence[NodeTemplate], waiting: Sequence[Pod],
              strategy: str, recheck: bool = False) -> ScaleUp:
    # 1. what the cluster as it is places (pods with no room on any node are not tried)
    no_room = no_room_now(ctx, waiting)
    tried = [p for p in waiting if p.key not in no_room] if no_room else list(waiting)
    first = run_cluster(ctx, ctx.nodes, ctx.bound, tried)
    early, stuck_keys = outcome(first, [p.key for p in tried])
    lost: set[str] = set()  # placed by the cluster as it is, pending once the plan is simulated
    all_sims = 0  # simulations of every plan tried
    for _ in range(MAX_REPLANS):
        rng = random.Random(ctx.seed)
        stuck_set = set(stuck_keys) | no_room | lost
        # the estimates start from the cluster with what it places already
        est = attrs.evolve(ctx, bound=[*ctx.bound, *(p.evolve(node_name=early[p.key]) for p in waiting
                                                     if p.key in early and p.key not in stuck_set)])
        stuck = [p for p in waiting if p.key in stuck_set]
        shapes = shapes_of(stuck)
        helps, why = helpers(est, shapes, templates)
        helpable = [p for i, s in enumerate(shapes) if helps[i] for p in s.pods]
        # 2. the scale-up loop
        counts, promised = _rounds(est, templates, shapes, helps, helpable, strategy, rng)
        # 3. simulate, repair
        if counts or stuck:
            counts, placed, left, sims, notes, messages, last = repair_and_run(
                ctx, templates, shapes, helps, waiting, counts, promised, strategy, rng)
        else:
            placed, left = outcome(first, [p.key for p in waiting])
            sims, notes, last = 1, [], first
            messages = {p.key: p.message for p in first.pods if p.message}
        all_sims += sims
        newly_lost = {k for k in left if k not in stuck_set}
        if not newly_lost:
            break
        lost |= newly_lost
    else:  # still losing pods: report them with the scheduler's words
        shapes = [*shapes, *shapes_of([p for p in waiting if p.key in newly_lost])]
        helps, why = helpers(est, shapes, templates)
        notes = [*notes, f"{len(newly_lost)} pod(s) the cluster as it is places stayed pending "
                         f"with the planned nodes after {MAX_REPLANS} plans (e.g. {min(newly_lost)})"]
    sims = all_sims
    counts = Counter({k: v for k, v in counts.items() if v > 0})
    by_key = {p.key: p for p in waiting}
    unhelpable = unplaced_reasons([by_key[k] for k in left], shapes, helps, why, templates, counts,
                                  messages)
    from ._scale_up import new_node_names

    new = [name for _, name in new_node_names(templates, counts, ctx.node_names)]
    prices = {t.name: t.price for t in templates}
    cost = None if any(prices[t] is None for t in counts) else sum(
        (prices[t] or 0.0) * n for t, n in counts.items())
    order = [t.name for t in templates]
    up = ScaleUp(strategy, dict(sorted(counts.items(), key=lambda kv: order.index(kv[0]))),
                 tuple(new), placed, unhelpable, cost, sims, False, tuple(notes))
    # the check: the last simulation was a fresh one of exactly the planned nodes (the repair
    # loop rebuilds the cluster from the counts each time); *recheck* runs another from scratch
    problems = [*notes, *check_scale_up(ctx, templates, up, waiting, helpable, last)]
    if recheck:
        problems.extend(verify_scale_up(ctx, templates, up, waiting, helpable))
        sims += 1
        up = attrs.evolve(up, simulations=sims)
    return attrs.evolve(up, verified=not problems, problems=tuple(problems))


def no_room_now(ctx: Context, waiting: Sequence[Pod]) -> set[str]:
    """The pending pods the cluster as it is cannot place, by a necessary condition: their
    profile filters with NodeResourcesFit, their CPU, memory or pod count exceeds what every node
    has free (nodes only fill while the pending pods are scheduled), and they cannot preempt (no
    bound pod has a lower priority). The rest go through the real scheduler."""
    fit = {pr.scheduler_name for pr in ctx.config.profiles
           if any(ref.name == "NodeResourcesFit" for ref in pr.plugins_at("filter"))}
    if not fit:
        return set()
    use: dict[str, list[int]] = {}
    for p in ctx.bound:
        if p.phase in ("Succeeded", "Failed"):
            continue
        u = use.setdefault(p.node_name, [0, 0, 0])
        u[0] += p.requests.milli_cpu
        u[1] += p.requests.memory
        u[2] += 1
    free = []
    for n in ctx.nodes:
        a = n.allocatable_resources
        u = use.get(n.name, [0, 0, 0])
        free.append((a.milli_cpu - u[0], a.memory - u[1], a.pods - u[2]))
    lowest = min((p.effective_priority for p in ctx.bound), default=None)
    out: set[str] = set()
    seen: dict[tuple[int, int], bool] = {}
    for p in waiting:
        if p.scheduler_name not in fit or (lowest is not None and p.effective_priority > lowest):
            continue
        r = p.requests
        key = (r.milli_cpu, r.memory)
        room = seen.get(key)
        if room is None:
            room = seen[key] = any(key[0] <= f[0] and key[1] <= f[1] and f[2] >= 1 for f in free)
        if not room:
            out.add(p.key)
    return out


def _rounds(ctx: Context, templates: Sequence[NodeTemplate], shapes: Sequence[Shape],
            helps: Mapping[int, list[str]], helpable: Sequence[Pod], strategy: str,
            rng: random.Random) -> tuple[Counter[str], set[str]]:
    if strategy != "min-cost":
        return plan_rounds(ctx, templates, shapes, helps, helpable, Counter(), strategy, rng)
    # min-cost: the greedy plan, each expander's plan and each template alone; the cheapest
    # estimate that helps the most pods wins (it is then simulated and repaired like any other)
    priced = all(t.price is not None for t in templates)

    def objective(c: Counter[str], pods: set[str]) -> tuple[int, float, int]:
        cost = sum((t.price or 0.0) * c[t.name] for t in templates) if priced else 0.0
        return (-len(pods), cost, sum(c.values()))

    candidates = [plan_rounds(ctx, templates, shapes, helps, helpable, Counter(), "min-cost", rng)]
    for s in ("least-waste", "most-pods", "price"):
        candidates.append(plan_rounds(ctx, templates, shapes, helps, helpable, Counter(), s, rng))
    if len(templates) > 1:
        for t in templates:
            others = Counter({o.name: o.max_count for o in templates if o.name != t.name})
            # the others count as used up (never chosen), not as nodes the cluster has
            candidates.append(plan_rounds(ctx, templates, shapes, helps, helpable, others, "min-cost",
                                          rng, commit_used=False))
    return min(candidates, key=lambda c: objective(*c))


def verify_scale_up(ctx: Context, templates: Sequence[NodeTemplate], up: ScaleUp,
                    waiting: Sequence[Pod], helpable: Sequence[Pod] = ()) -> list[str]:
    """Simulate the cluster with *up*'s nodes and *waiting* pods afresh; the problems found
    (none: verified)."""
    nodes = planned_nodes(ctx, templates, up)
    if isinstance(nodes, str):
        return [nodes]
    bound = [*ctx.bound, *ctx.new_daemon_pods(nodes[len(ctx.nodes):])]
    return check_scale_up(ctx, templates, up, waiting, helpable,
                          run_cluster(ctx, nodes, bound, waiting))


def planned_nodes(ctx: Context, templates: Sequence[NodeTemplate], up: ScaleUp) -> list[Node] | str:
    """The cluster's nodes and *up*'s new ones (or what is wrong with *up*'s node names)."""
    by_name = {t.name: t for t in templates}
    new_nodes: list[Node] = []
    for name in up.new_nodes:
        t = next((by_name[k] for k in up.nodes_to_add if name.startswith(f"{k}-") and
                  name[len(k) + 1:].isdigit()), None)
        if t is None:
            return f"new node {name!r} names no template"
        new_nodes.append(t.new_node(name))
    if len(new_nodes) != up.node_count:
        return f"{len(new_nodes)} new node name(s) for {up.node_count} node(s) to add"
    return [*ctx.nodes, *new_nodes]


def check_scale_up(ctx: Context, templates: Sequence[NodeTemplate], up: ScaleUp,
                   waiting: Sequence[Pod], helpable: Sequence[Pod], result: SimResult) -> list[str]:
    """The problems of *up* against *result*, a simulation of the cluster with *up*'s nodes
    and the *waiting* pods: placements and pending pods as planned, every pod a template can
    hold placed, no node overcommitted, gangs whole or absent."""
    nodes = planned_nodes(ctx, templates, up)
    if isinstance(nodes, str):
        return [nodes]
    placed, left = outcome(result, [p.key for p in waiting])
    problems = []
    simulated = {n.node for n in result.nodes}
    if simulated != {n.name for n in nodes}:
        problems.append(f"the simulation ran {len(simulated)} node(s), the plan has {len(nodes)}")
    if placed != dict(up.placements):
        diff = sorted(set(placed.items()) ^ set(up.placements.items()))
        problems.append(f"{len(diff)} placement(s) differ from the plan's simulation (e.g. {diff[0]})")
    if set(left) != set(up.unhelpable):
        problems.append(f"pending pods differ: simulation {len(left)}, plan {len(up.unhelpable)}")
    helped = {p.key for p in helpable}
    # a pod a template can hold may stay pending only when that template is at its maxCount
    missing = [k for k in left if k in helped and not any(
        r.startswith("template maxCount") for rs in up.unhelpable.get(k, {}).values() for r in rs)]
    if missing:
        problems.append(f"{len(missing)} pod(s) a template can hold stay pending (e.g. {missing[0]})")
    daemons = ctx.new_daemon_pods(nodes[len(ctx.nodes):])
    problems.extend(_invariants(nodes, [*ctx.bound, *daemons, *waiting], placed, ctx.objects))
    return problems


def _invariants(nodes: Sequence[Node], pods: Sequence[Pod], placed: Mapping[str, str],
                objects: Sequence[Any]) -> list[str]:
    """No node overcommitted (cpu, memory, pods, extended resources); gangs whole or absent."""
    from ..api.objects import PodGroup

    problems = []
    use: dict[str, list[int]] = {}
    extra: dict[str, Counter[str]] = {}
    for p in pods:
        node = p.node_name or placed.get(p.key)
        if not node:
            continue
        u = use.setdefault(node, [0, 0, 0])
        r = p.requests
        u[0] += r.milli_cpu
        u[1] += r.memory
        u[2] += 1
        extra.setdefault(node, Counter()).update(r.scalar)
    for n in nodes:
        if n.name not in use:
            continue
        a = n.allocatable_resources
        u = use[n.name]
        over = [what for what, got, cap in (("cpu", u[0], a.milli_cpu), ("memory", u[1], a.memory),
                                             ("pods", u[2], a.pods)) if got > cap]
        over += [k for k, v in extra[n.name].items() if v > a.scalar.get(k, 0)]
        if over:
            problems.append(f"node {n.name} overcommitted: {', '.join(over)}")
    groups: dict[tuple[str, str], list[bool]] = {}
    for p in pods:
        g = p.labels.get(POD_GROUP_LABEL)
        if g and not p.node_name:
            groups.setdefault((p.namespace, g), []).append(p.key in placed)
    mins = {(o.namespace, o.name): o.min_member for o in objects if isinstance(o, PodGroup)}
    for (ns, g), flags in groups.items():
        got = sum(flags)
        if got and got < min(mins.get((ns, g), len(flags)), len(flags)):
            problems.append(f"gang {ns}/{g}: {got} of {len(flags)} member(s) placed (minMember "
                            f"{mins.get((ns, g), len(flags))})")
    return problems


def _scale_down(ctx: Context, threshold: float) -> ScaleDown:
    removed, _, unremovable, util = scale_down_nodes(ctx, threshold)
    moves: dict[str, str] = {}
    problems: list[str] = []
    if removed:
        nodes, stay, movers = removal_outcome(ctx, removed)
        movers = sorted(movers, key=_size)
        result = run_cluster(ctx, nodes, stay, movers)
        moves, left = outcome(result, [p.key for p in movers])
        if left:
            problems.append(f"{len(left)} moved pod(s) stay pending in the simulation without the "
                            f"removed nodes (e.g. {left[0]})")
        again = run_cluster(ctx, nodes, stay, movers)
        moves2, _ = outcome(again, [p.key for p in movers])
        if moves2 != moves:
            problems.append("a second simulation of the removal placed pods differently")
        problems.extend(_invariants(nodes, [*stay, *movers], moves, ctx.objects))
    return ScaleDown(tuple(removed), moves, unremovable, {k: round(v, 4) for k, v in util.items()},
                     threshold, not problems, tuple(problems))


def verify(result: PlanResult) -> bool:
    """Whether *result* passed its simulation checks (the same as ``result.verified``)."""
    return result.verified

