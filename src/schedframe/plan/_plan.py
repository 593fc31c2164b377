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
from ..whatif._drain_rules import NO_PLACE_TO_MOVE_PODS, is_daemon, is_mirror
from ._bounds import plan_lower_bound
from ._context import Context, outcome, run_cluster
from ._gangs import gangs_of
from ._scale_down import keep_back, removal_outcome, scale_down_nodes
from ._scale_up import (
    GANG_REASON,
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
            ``template maxCount (N) reached``, or for the members of a gang no nodes of the
            templates hold at once, ``gang PodGroup <ns>/<name> (quorum N): no nodes of the
            templates (within their maxCount) hold N of its members at once`` and the
            scheduler's message.
        cost: the price of the nodes added (``None`` when a template used has no price).
        simulations: how many times the whole plan was simulated (the first and the repairs).
        verified: a fresh simulation of the plan gave exactly these placements and pending pods,
            every pod the plan adds nodes for is placed, every pod that some template can hold
            is placed (unless its templates are at ``maxCount`` or it is the member of a gang
            no nodes of the templates hold at once), no node is overcommitted and every gang
            is placed whole or not at all.
        problems: what the check found, when not verified.
        lower_bound: no plan adds fewer nodes for the pending pods it places: for each
            resource, what those pods ask beyond the cluster's free room over the largest
            template capacity, rounded up, and a count bound (see :doc:`/planning`); the largest.
        cost_lower_bound: the same bound on the price (the lowest price per unit of each
            resource); ``None`` when a template has no price.
        preempted: the bound pods the scheduler preempted to place pending pods on the cluster
            as it is.

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
    lower_bound: int = 0
    cost_lower_bound: float | None = None
    preempted: tuple[str, ...] = ()

    @property
    def node_count(self) -> int:
        """The number of nodes to add."""
        return sum(self.nodes_to_add.values())

    @property
    def above_bound(self) -> int:
        """How many nodes the plan adds beyond :attr:`lower_bound` (0: no plan adds fewer)."""
        return self.node_count - self.lower_bound

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
            "node_count": self.node_count,
            "lower_bound": self.lower_bound,
            "above_bound": self.above_bound,
            "cost_lower_bound": self.cost_lower_bound,
            "preempted": list(self.preempted),
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
    pods left pending), ``templates``, ``finished`` (the Succeeded and Failed pods of the input,
    which the plan leaves out: they hold no room and need none) and whether every part passed
    its simulation check (``verified``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.plan"

    scale_up: ScaleUp | None
    scale_down: ScaleDown | None
    pending: tuple[str, ...]
    templates: tuple[NodeTemplate, ...]
    wall_seconds: float = attrs.field(default=0.0, eq=False)
    finished: tuple[str, ...] = ()

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
            "finished": list(self.finished),
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
    return SchedulerConfiguration.coerce(config, registry=registry, paths=True,
                                         error=lambda message: TemplateError("", "config", message))


def _registry(registry: Registry | None) -> Registry:
    if registry is not None:
        return registry
    from ..gpushare.plugins import gpushare_registry

    return gpushare_registry()


def plan_inputs(cluster: Any, pending: Any, config: Any, registry: Registry | None, seed: int
                ) -> tuple[Context, list[Pod], tuple[str, ...]]:
    """The context of a plan of *cluster* and *pending* (what :func:`plan` takes), the pending
    pods (largest first) and the finished pods' keys."""
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
    # finished pods (Succeeded, Failed) hold nothing, ask for nothing and block nothing
    finished = tuple(sorted(p.key for p in pods if p.is_terminal))
    live = [p for p in pods if not p.is_terminal]
    bound = [p for p in live if p.node_name]
    waiting = sorted((p for p in live if not p.node_name), key=_size)
    return Context(nodes, bound, others, _config(config, reg), reg, seed), waiting, finished


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
            the pods its workloads would create) are pending; its Succeeded and Failed pods
            are left out (``PlanResult.finished``).
        templates: the node templates (a file, see :func:`load_templates`, or
            :class:`NodeTemplate` objects); needed for scale-up.
        pending: more pending pods (or workloads): a file or objects.
        config: the scheduler configuration (object, ``KubeSchedulerConfiguration`` mapping
            or file); default upstream's.
        strategy: the expander: ``least-waste``, ``most-pods``, ``price``, ``priority``,
            ``random`` (seeded) or ``min-cost``.
        scale_up: plan nodes to add for the pending pods.
        scale_down: plan nodes to remove, given the pending pods placed (on the cluster as it
            is, then on the nodes the scale-up adds, which are never removed).
        threshold: the scale-down utilisation threshold (Cluster Autoscaler's 0.5).
        registry: the plugins (default: in-tree plus the GPU-sharing plugins).
        seed: breaks the scheduler's ties and the ``random`` strategy's choice.
        recheck: also simulate the final plan a second time, from scratch, and require the
            same placements: the scale-up (both steps: the cluster as it is, then with the
            nodes added; the check is otherwise made on the plan's own final simulation,
            itself a fresh simulation of exactly the nodes planned) and the scale-down's
            removal of all its nodes at once.

    Raises:
        TemplateError: bad templates or arguments.
        ManifestError, ConfigurationError: bad cluster, pods or configuration.

    .. versionadded:: 0.1.0
    """
    t0 = time.perf_counter()
    if not isinstance(strategy, str) or strategy not in STRATEGIES:
        from ..errors import bounded_repr, did_you_mean

        hint = did_you_mean(strategy, STRATEGIES) if isinstance(strategy, str) else ""
        raise TemplateError("", "strategy", f"unknown strategy {bounded_repr(strategy)}{hint} "
                                            f"(strategies: {', '.join(STRATEGIES)})")
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 <= threshold <= 1:
        raise TemplateError("", "threshold", f"want a number in [0, 1], got {threshold!r}")
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise TemplateError("", "seed", f"want an integer, got {type(seed).__name__}")
    ctx, waiting, finished = plan_inputs(cluster, pending, config, registry, seed)
    tmpl: list[NodeTemplate] = []
    if scale_up:
        tmpl = (load_templates(templates) if isinstance(templates, (str, os.PathLike))
                else check_templates(templates))
    up = _scale_up(ctx, tmpl, waiting, strategy, recheck) if scale_up else None
    left = tuple(sorted(up.unhelpable)) if up is not None else tuple(p.key for p in waiting)
    down = None
    if scale_down:
        # scale-down sees the cluster the scale-up leaves: the pending pods where they were
        # placed (a node they went to is removed only when they move elsewhere) and the new
        # nodes, which are never candidates (Cluster Autoscaler's upcoming nodes)
        after, new, placed = _after_scale_up(ctx, tmpl, up, waiting)
        down = _scale_down(after, threshold, protected=frozenset(new), placed=placed, recheck=recheck)
        if up is None:
            left = tuple(p.key for p in waiting if p.key not in placed)
    return PlanResult(up, down, left, tuple(tmpl), time.perf_counter() - t0, finished)


def _scale_up(ctx: Context, templates: Sequence[NodeTemplate], waiting: Sequence[Pod],
              strategy: str, recheck: bool = False) -> ScaleUp:
    # Cluster Autoscaler's order (``FilterOutSchedulable``, then the scale-up): the pending pods
    # that the cluster as it is places are placed first and stay where they are -- the scheduler
    # binds them at once, long before a new node joins -- and only the pods left ask for nodes.
    first, early, victims = place_on_existing(ctx, waiting)
    base = with_placed(ctx, waiting, early, victims)
    stuck = [p for p in waiting if p.key not in early]
    rng = random.Random(ctx.seed)
    shapes = shapes_of(stuck)
    helps, why = helpers(base, shapes, templates)
    helpable = [p for i, s in enumerate(shapes) if helps[i] for p in s.pods]
    counts, promised = _rounds(base, templates, shapes, helps, helpable, strategy, rng)
    notes: list[str] = []
    messages = {p.key: p.message for p in first.pods if p.message}
    placed: dict[str, str] = {}
    left: list[str] = []
    last = first
    sims = 1
    if stuck:
        counts, placed, left, more_sims, notes, messages, last, promised = repair_and_run(
            base, templates, shapes, helps, stuck, counts, promised, strategy, rng)
        sims += more_sims
    by_key = {p.key: p for p in stuck}
    bound_nodes, bound_cost = plan_lower_bound(base, templates, [by_key[k] for k in placed])
    if stuck and counts and not notes and sum(counts.values()) > bound_nodes:
        counts, placed, left, trimmed_sims, messages, last = trim(
            base, templates, stuck, counts, placed, left, messages, last, bound_nodes)
        sims += trimmed_sims
    counts = Counter({k: v for k, v in counts.items() if v > 0})
    # the gangs left pending that no estimate placed: no nodes of the templates hold their
    # quorum at once (a gang the plan did promise and that stays pending fails the check)
    after = with_placed(base, stuck, placed)
    gang_why = {p.key: GANG_REASON.format(g.describe(), g.need)
                for g in gangs_of([by_key[k] for k in left if k not in promised], after.bound,
                                  base.objects, base.config) for p in g.members}
    unhelpable = unplaced_reasons([by_key[k] for k in left], shapes, helps, why, templates, counts,
                                  messages, gang_why)
    from ._scale_up import new_node_names

    new = [name for _, name in new_node_names(templates, counts, ctx.node_names)]
    prices = {t.name: t.price for t in templates}
    cost = None if any(prices[t] is None for t in counts) else sum(
        (prices[t] or 0.0) * n for t, n in counts.items())
    order = [t.name for t in templates]
    up = ScaleUp(strategy, dict(sorted(counts.items(), key=lambda kv: order.index(kv[0]))),
                 tuple(new), {**early, **placed}, unhelpable, cost, sims, False, tuple(notes),
                 lower_bound=bound_nodes, cost_lower_bound=bound_cost, preempted=tuple(victims))
    # the check: the last simulation was a fresh one of exactly the planned nodes (the repair
    # loop rebuilds the cluster from the counts each time); *recheck* runs both steps again
    promised = {k for k in promised if k in by_key}
    problems = [*notes, *check_scale_up(base, templates, up, stuck, helpable, last, promised)]
    if recheck:
        problems.extend(verify_scale_up(ctx, templates, up, waiting, helpable, promised))
        sims += 2
        up = attrs.evolve(up, simulations=sims)
    return attrs.evolve(up, verified=not problems, problems=tuple(problems))


def place_on_existing(ctx: Context, waiting: Sequence[Pod]
                      ) -> tuple[SimResult, dict[str, str], list[str]]:
    """Simulate the cluster as it is with the *waiting* pods (those with no room on any node
    are not tried): the run, where it places pods (``{key: node}``) and the bound pods it
    preempted to do so."""
    no_room = no_room_now(ctx, waiting)
    tried = [p for p in waiting if p.key not in no_room] if no_room else list(waiting)
    first = run_cluster(ctx, ctx.nodes, ctx.bound, tried)
    early, _ = outcome(first, [p.key for p in tried])
    _, victims = outcome(first, [p.key for p in ctx.bound])
    return first, early, victims


def with_placed(ctx: Context, pods: Sequence[Pod], placed: Mapping[str, str],
                victims: Iterable[str] = ()) -> Context:
    """*ctx* with the *pods* that *placed* places bound there (and the *victims* gone)."""
    gone = set(victims)
    return attrs.evolve(ctx, bound=[*(p for p in ctx.bound if p.key not in gone),
                                    *(p.evolve(node_name=placed[p.key]) for p in pods if p.key in placed)])


def trim(ctx: Context, templates: Sequence[NodeTemplate], pending: Sequence[Pod], counts: Counter[str],
         placed: dict[str, str], left: list[str], messages: dict[str, str], last: SimResult,
         floor: int = 0) -> tuple[Counter[str], dict[str, str], list[str], int, dict[str, str], SimResult]:
    """Drop planned nodes the simulation shows are not needed: one node fewer of a template
    (the most expensive first, then the largest count) is kept off when a fresh simulation still
    places every pod the plan placed; at most :data:`MAX_TRIMS` simulations, never below
    *floor* nodes (the lower bound)."""
    from ._scale_up import new_node_names

    sims = 0
    price = {t.name: (t.price if t.price is not None else 0.0) for t in templates}
    need = set(placed)
    tried: set[str] = set()
    while sims < MAX_TRIMS and sum(counts.values()) > floor:
        names = sorted((t for t, n in counts.items() if n > 0 and t not in tried),
                       key=lambda t: (-price[t], -counts[t], t))
        if not names:
            break
        name = names[0]
        fewer = counts - Counter({name: 1})
        fresh = [t.new_node(n) for t, n in new_node_names(templates, fewer, ctx.node_names)]
        result = run_cluster(ctx, [*ctx.nodes, *fresh], [*ctx.bound, *ctx.new_daemon_pods(fresh)],
                             pending)
        sims += 1
        got, still = outcome(result, [p.key for p in pending])
        if need <= set(got):
            counts, placed, left, last = fewer, got, still, result
            messages = {p.key: p.message for p in result.pods if p.message}
        else:
            tried.add(name)
    return counts, placed, left, sims, messages, last


#: At most this many simulations try a plan with one node fewer (:func:`trim`).
MAX_TRIMS: Final = 8


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
        if p.is_terminal:
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
                    waiting: Sequence[Pod], helpable: Sequence[Pod] = (),
                    promised: Iterable[str] = ()) -> list[str]:
    """Simulate *up* afresh, in its two steps -- the *waiting* pods on the cluster as it is,
    then those left with *up*'s nodes added -- and return the problems found (none: verified)."""
    _, early, victims = place_on_existing(ctx, waiting)
    problems = []
    planned = {k: v for k, v in up.placements.items() if k in early}
    if early != planned:
        diff = sorted(set(early.items()) ^ set(planned.items()))
        problems.append(f"{len(diff)} placement(s) on the cluster as it is differ in a second "
                        f"simulation (e.g. {diff[0]})")
    base = with_placed(ctx, waiting, early, victims)
    stuck = [p for p in waiting if p.key not in early]
    nodes = planned_nodes(base, templates, up)
    if isinstance(nodes, str):
        return [*problems, nodes]
    bound = [*base.bound, *base.new_daemon_pods(nodes[len(base.nodes):])]
    return [*problems, *check_scale_up(base, templates, up, stuck, helpable,
                                       run_cluster(base, nodes, bound, stuck), promised)]


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
                   waiting: Sequence[Pod], helpable: Sequence[Pod], result: SimResult,
                   promised: Iterable[str] = ()) -> list[str]:
    """The problems of *up* against *result*, a simulation of the cluster with *up*'s nodes
    and the *waiting* pods: placements and pending pods as planned, every pod the plan's
    estimates *promised* to place placed, every pod a template can hold placed (unless its
    templates are at ``maxCount`` or it is the member of a gang no template holds), no node
    overcommitted, gangs whole or absent."""
    nodes = planned_nodes(ctx, templates, up)
    if isinstance(nodes, str):
        return [nodes]
    keys = {p.key for p in waiting}
    placed, left = outcome(result, [p.key for p in waiting])
    problems = []
    simulated = {n.node for n in result.nodes}
    if simulated != {n.name for n in nodes}:
        problems.append(f"the simulation ran {len(simulated)} node(s), the plan has {len(nodes)}")
    planned = {k: v for k, v in up.placements.items() if k in keys}
    if placed != planned:
        diff = sorted(set(placed.items()) ^ set(planned.items()))
        problems.append(f"{len(diff)} placement(s) differ from the plan's simulation (e.g. {diff[0]})")
    if set(left) != set(up.unhelpable):
        problems.append(f"pending pods differ: simulation {len(left)}, plan {len(up.unhelpable)}")
    helped = {p.key for p in helpable}
    claimed = sorted(set(promised) & set(left))
    if claimed:
        problems.append(f"{len(claimed)} pod(s) the plan adds nodes for stay pending in its simulation "
                        f"(e.g. {claimed[0]})")
    # a pod a template can hold may stay pending only when that template is at its maxCount, or
    # when it is the member of a gang whose quorum no nodes of the templates hold at once
    gang_mark = GANG_REASON.split("{}")[1]
    missing = [k for k in left if k in helped and k not in claimed and not any(
        r.startswith("template maxCount") or gang_mark in r
        for rs in up.unhelpable.get(k, {}).values() for r in rs)]
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
        if not node or p.is_terminal:
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
    from ..api.scheduling_workload import Workload

    groups: dict[tuple[str, str], list[bool]] = {}
    for p in pods:
        g = p.labels.get(POD_GROUP_LABEL)
        if not g and p.workload_ref is not None:  # a Workload's pod group (GangScheduling)
            g = f"{p.workload_ref.name}/{p.workload_ref.pod_group}"
        if g and not p.node_name:
            groups.setdefault((p.namespace, g), []).append(p.key in placed)
    mins = {(o.namespace, o.name): o.min_member for o in objects if isinstance(o, PodGroup)}
    for o in objects:
        if isinstance(o, Workload):
            mins.update({(o.namespace, f"{o.name}/{pg.name}"): pg.min_count for pg in o.pod_groups
                         if pg.min_count is not None})
    for (ns, g), flags in groups.items():
        got = sum(flags)
        if got and got < min(mins.get((ns, g), len(flags)), len(flags)):
            problems.append(f"gang {ns}/{g}: {got} of {len(flags)} member(s) placed (minMember "
                            f"{mins.get((ns, g), len(flags))})")
    return problems


def _after_scale_up(ctx: Context, templates: Sequence[NodeTemplate], up: ScaleUp | None,
                    waiting: Sequence[Pod]) -> tuple[Context, list[str], dict[str, str]]:
    """The cluster once *up* is done (the cluster as it is with the *waiting* pods it places,
    when no scale-up was planned): its context, the new nodes and the pending pods placed."""
    if up is None:
        if not waiting:  # the cluster as it is: nothing to simulate
            return ctx, [], {}
        _, placed, victims = place_on_existing(ctx, waiting)
        return with_placed(ctx, waiting, placed, victims), [], placed
    nodes = planned_nodes(ctx, templates, up)
    if isinstance(nodes, str):  # never: the plan's own names
        raise TemplateError("", "scale_up", nodes)
    fresh = nodes[len(ctx.nodes):]
    placed = dict(up.placements)
    after = with_placed(ctx, waiting, placed, up.preempted)
    after = attrs.evolve(after, nodes=nodes, bound=[*after.bound, *ctx.new_daemon_pods(fresh)])
    return after, [n.name for n in fresh], placed


#: how many times a scale-down keeps nodes back after a simulation of the removal left pods pending
_KEEP_BACK_ROUNDS: Final = 4


def _scale_down(ctx: Context, threshold: float, protected: frozenset[str] = frozenset(),
                placed: Mapping[str, str] | None = None, recheck: bool = False) -> ScaleDown:
    removed, _, unremovable, util = scale_down_nodes(ctx, threshold, protected)
    moves: dict[str, str] = {}
    problems: list[str] = []
    if set(removed) & protected:
        problems.append(f"a node this plan adds is removed ({sorted(set(removed) & protected)[0]})")
    nodes, stay, movers = removal_outcome(ctx, removed)
    left: list[str] = []
    kept = 0
    # the nodes were found removable one at a time; removed all at once, the moved pods can
    # land otherwise and leave some pending (a nearly full cluster): then the nodes with the
    # most room are kept back, and the removal is simulated again
    for rounds in range(_KEEP_BACK_ROUNDS + 1):
        if not (removed and movers):  # (no pod to move: nothing to simulate, even with no node left)
            break
        movers = sorted(movers, key=_size)
        result = run_cluster(ctx, nodes, stay, movers)
        moves, left = outcome(result, [p.key for p in movers])
        if not left or rounds == _KEEP_BACK_ROUNDS:
            break
        stuck = set(left)
        back = keep_back(ctx, removed, [p for p in movers if p.key in stuck])
        for name in back:
            unremovable[name] = (NO_PLACE_TO_MOVE_PODS,
                                 f"kept: with all {len(removed)} removable nodes gone at once, "
                                 f"{len(left)} moved pod(s) stayed pending in the simulation")
        kept += len(back)
        kept_now = set(back)
        removed = [name for name in removed if name not in kept_now]
        nodes, stay, movers = removal_outcome(ctx, removed)
    if left:
        problems.append(f"{len(left)} moved pod(s) stay pending in the simulation without the "
                        f"removed nodes (e.g. {left[0]})"
                        + (f", with {kept} node(s) kept back" if kept else ""))
    if removed and movers:
        if recheck:
            again = run_cluster(ctx, nodes, stay, movers)
            moves2, _ = outcome(again, [p.key for p in movers])
            if moves2 != moves:
                problems.append("a second simulation of the removal placed pods differently")
        gone = set(removed)
        # (a DaemonSet or mirror pod placed on a removed node goes with it, as the node's own do)
        with_node = {p.key for p in ctx.bound if p.node_name in gone and (is_daemon(p) or is_mirror(p))}
        stranded = sorted(k for k, n in (placed or {}).items()
                          if n in gone and k not in moves and k not in with_node)
        if stranded:
            problems.append(f"{len(stranded)} pending pod(s) placed on a removed node find no other "
                            f"(e.g. {stranded[0]})")
        problems.extend(_invariants(nodes, [*stay, *movers], moves, ctx.objects))
    return ScaleDown(tuple(removed), moves, unremovable, {k: round(v, 4) for k, v in util.items()},
                     threshold, not problems, tuple(problems))


def verify(result: PlanResult) -> bool:
    """Whether *result* passed its simulation checks (the same as ``result.verified``)."""
    return result.verified

