"""Scale-up: which template nodes to add so the pending pods that some template can help are
placed. Cluster Autoscaler's loop: estimate, per template, the nodes its pods need
(binpacking), let an expander strategy choose one template, commit, repeat for the pods left;
then simulate the cluster with the nodes added and repair until the real scheduler places every
pod the plan promises."""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from ..api.objects import Node, Pod
from ..errors import SchedframeError
from ..scheduler.explain import explain
from ..sim.results import SimResult
from ._context import Context, outcome, run_cluster
from ._daemons import daemon_load, daemon_sets
from ._gangs import Gang, alone, gangs_of
from ._shapes import Shape, capacity, dims_of, ffd_pack, group_shapes, lower_bound, vector
from ._templates import NodeTemplate

__all__ = ["GANG_REASON", "STRATEGIES", "GangOption", "Option", "choose", "estimate", "gang_plan", "helpers",
           "new_node_names", "plan_rounds", "repair_and_run"]

#: The expander strategies (Cluster Autoscaler's names) and ``min-cost``.
STRATEGIES: Final = ("least-waste", "most-pods", "price", "priority", "random", "min-cost")
#: At most this many simulations of the whole plan (the first and the repairs).
MAX_ATTEMPTS: Final = 6
#: Reason of a template whose ``maxCount`` is used up.
MAX_COUNT_REASON: Final = "template maxCount ({}) reached"
#: Reason of a gang member left pending because no plan places the gang's quorum at once
#: (``.format(gang, members needed)``).
GANG_REASON: Final = ("{}: no nodes of the templates (within their maxCount) hold {} of its members "
                      "at once")


@attrs.frozen
class Option:
    """What one template would do for the pods still pending: add *count* nodes and place
    *pods* (keys). *waste* is Cluster Autoscaler's least-waste score (unused share of CPU plus
    that of memory on the new nodes). *groups* are the pods on each of the new nodes, in
    order."""

    template: str
    count: int
    pods: frozenset[str]
    waste: float
    cost: float | None
    groups: tuple[tuple[Pod, ...], ...] = ()


def helpers(ctx: Context, shapes: Sequence[Shape], templates: Sequence[NodeTemplate]
            ) -> tuple[dict[int, list[str]], dict[int, dict[str, tuple[str, ...]]]]:
    """For each shape (by index): the templates whose fresh node passes the profile's
    PreFilter and Filter for its first pod, and the reasons of the others (kube-scheduler's
    status reasons on that node)."""
    ok: dict[int, list[str]] = {}
    why: dict[int, dict[str, tuple[str, ...]]] = {}
    for i, s in enumerate(shapes):
        ok[i] = []
        why[i] = {}
        for t in templates:
            fits, reasons = _fits_template(ctx, s, t)
            if fits:
                ok[i].append(t.name)
            else:
                why[i][t.name] = reasons
    return ok, why


def _fits_template(ctx: Context, s: Shape, t: NodeTemplate) -> tuple[bool, tuple[str, ...]]:
    probe = t.new_node(f"{t.name}-template")
    daemons: list[Pod] = ctx.new_daemon_pods([probe])
    # a gang's quorum is the group's, not the node's: whether a fresh node holds one member is
    # asked of the member alone; the gang as a whole is estimated by _gang_option
    pod = alone(s.first)
    if s.simple:
        return _fits_probe(ctx, pod, probe, [probe], daemons)
    # inter-pod terms and spread read the rest of the cluster. A spread changes as pods are
    # placed: a template whose zone is at the skew limit now fits the pod once the other zones
    # grow, so for a pod whose only inter-pod rule is a spread, a template helps when it fits
    # now or on a cluster of its own. (Required pod (anti-)affinity never opens up that way:
    # the pods it counts stay where they are.)
    fits, why = _fits_probe(ctx, pod, probe, [*ctx.nodes, probe], [*ctx.bound, *daemons])
    if fits or not pod.topology_spread_constraints or _required_pod_terms(pod):
        return fits, why
    fits_alone, _ = _fits_probe(ctx, pod, probe, [probe], daemons)
    return (True, ()) if fits_alone else (False, why)


def _required_pod_terms(pod: Pod) -> bool:
    a = pod.affinity
    if a is None:
        return False
    return bool((a.pod_affinity is not None and a.pod_affinity.required)
                or (a.pod_anti_affinity is not None and a.pod_anti_affinity.required))


def _fits_probe(ctx: Context, pod: Pod, probe: Node, nodes: Sequence[Node], pods: Sequence[Pod]
                ) -> tuple[bool, tuple[str, ...]]:
    try:
        e = explain(pod, nodes=nodes, pods=pods, objects=ctx.objects, config=ctx.config,
                    registry=ctx.registry, seed=ctx.seed)
    except SchedframeError as exc:
        return False, (str(exc),)
    if not e.pre_filter_status.passed and e.pre_filter_status.plugin:
        return False, e.pre_filter_status.reasons or (e.message,)
    for nv in e.nodes:
        if nv.node == probe.name:
            if nv.verdict.passed:
                return True, ()
            return False, nv.verdict.reasons or (e.message,)
    return False, (e.message,)


def _dominant(req: tuple[int, ...], cap: tuple[int, ...]) -> float:
    return max((r / c if c else (float("inf") if r else 0.0)) for r, c in zip(req, cap))


def estimate(ctx: Context, t: NodeTemplate, shapes: Sequence[Shape], pods: Sequence[Pod], limit: int,
             dims: Sequence[str], prefix: str, committed: Sequence[Node] = (),
             committed_pods: Sequence[Pod] = ()) -> tuple[int, set[str], list[list[Pod]]]:
    """Binpack *pods* (all of shapes this template helps) onto at most *limit* new nodes of
    *t*: simple shapes by first-fit decreasing arithmetic, the others by the real scheduler
    adding template nodes until no more pods place (beside the nodes *committed* by earlier
    rounds and the *committed_pods* placed on them). Returns the node count, the pods placed
    and the pods of each new node (the simple bins, then the scheduler's nodes)."""
    if limit <= 0 or not pods:
        return 0, set(), []
    cap = free_capacity(ctx, t, dims)
    keys = {p.key for p in pods}
    simple: list[tuple[tuple[int, ...], Pod]] = []
    complex_pods: list[Pod] = []
    for s in shapes:
        members = [p for p in s.pods if p.key in keys]
        if not members:
            continue
        if s.simple:
            req = vector(s.first.requests, dims, pod=True)
            simple.extend((req, p) for p in members)
        else:
            complex_pods.extend(members)
    simple.sort(key=lambda rp: (-_dominant(rp[0], cap), rp[0]))
    bins, _ = ffd_pack(simple, cap, limit)
    placed = {p.key for b in bins for p in b}
    count = len(bins)
    groups = [list(b) for b in bins]
    if complex_pods and count < limit:
        n, done, more = _scheduler_pack(ctx, t, complex_pods, limit - count, dims, prefix, committed,
                                        committed_pods)
        count += n
        placed |= done
        groups.extend(more)
    return count, placed, groups


def free_capacity(ctx: Context, t: NodeTemplate, dims: Sequence[str]) -> tuple[int, ...]:
    """A fresh node of *t*'s allocatable over *dims* less what its DaemonSet pods request."""
    cap = capacity(t.node, dims)
    sets = daemon_sets(ctx.objects)
    if not sets:
        return cap
    used = daemon_load(sets, t.new_node(f"{t.name}-template"), dims)
    return tuple(c - u for c, u in zip(cap, used))


def _scheduler_pack(ctx: Context, t: NodeTemplate, pods: Sequence[Pod], limit: int,
                    dims: Sequence[str], prefix: str, committed: Sequence[Node] = (),
                    committed_pods: Sequence[Pod] = ()) -> tuple[int, set[str], list[list[Pod]]]:
    """Cluster Autoscaler's estimator with the real scheduler, in a fork of the plan's
    :class:`~schedframe.ClusterSnapshot`: the nodes *committed* by earlier rounds join, then
    template nodes are added (as many at once as the resource bound of the pods still pending
    asks, at least one) and the scheduler places what it can, until a round places nothing."""
    snap = ctx.snapshot()
    cap = free_capacity(ctx, t, dims)
    added: list[str] = []
    placed: dict[str, str] = {}
    with snap.fork():
        for node in committed:
            snap.add_node(node)
        for p in [*ctx.new_daemon_pods(committed), *committed_pods]:
            snap.add_pod(p)
        placed.update(snap.schedule(pods).placed)
        waiting = [p for p in pods if p.key not in placed]
        while waiting and len(added) < limit:
            k = max(1, lower_bound((vector(p.requests, dims, pod=True) for p in waiting), cap))
            k = min(k, limit - len(added))
            batch = [f"{prefix}{len(added) + i + 1}" for i in range(k)]
            new = [t.new_node(name) for name in batch]
            with snap.fork() as round_:
                for node in new:
                    snap.add_node(node)
                for d in ctx.new_daemon_pods(new):
                    snap.add_pod(d)
                got = snap.schedule(waiting).placed
                if not got:  # nothing more fits: this round's nodes go again
                    break
                round_.commit()
            added.extend(batch)
            placed.update(got)
            waiting = [p for p in waiting if p.key not in got]
    hosts = set(placed.values())
    used = [n for n in added if n in hosts]
    groups = [[p for p in pods if placed.get(p.key) == n] for n in used]
    return len(used), set(placed), groups


def _waste(t: NodeTemplate, count: int, bins: Sequence[Sequence[Pod]], pods: set[str],
           by_key: Mapping[str, Pod]) -> float:
    if count <= 0:
        return float("inf")
    alloc = t.node.allocatable_resources
    cpu = sum(by_key[k].requests.milli_cpu for k in pods)
    mem = sum(by_key[k].requests.memory for k in pods)
    score = 0.0
    for used, total in ((cpu, alloc.milli_cpu * count), (mem, alloc.memory * count)):
        if total > 0:
            score += max(total - used, 0) / total
    return score


def _options(ctx: Context, templates: Sequence[NodeTemplate], shapes: Sequence[Shape],
             helps: Mapping[int, list[str]], remaining: Sequence[Pod], used: Counter[str],
             dims: Sequence[str], committed: Sequence[Node] = (),
             committed_pods: Sequence[Pod] = ()) -> list[Option]:
    rem = {p.key for p in remaining}
    by_key = {p.key: p for p in remaining}
    out = []
    for t in templates:
        limit = t.max_count - used[t.name]
        if limit <= 0:
            continue
        mine = [s for i, s in enumerate(shapes) if t.name in helps[i]]
        pods = [p for s in mine for p in s.pods if p.key in rem]
        if not pods:
            continue
        count, placed, bins = estimate(ctx, t, mine, pods, limit, dims, f"{t.name}-estimate-", committed,
                                       committed_pods)
        if not placed:
            continue
        cost = None if t.price is None else t.price * count
        out.append(Option(t.name, count, frozenset(placed), _waste(t, count, bins, placed, by_key), cost,
                          tuple(tuple(b) for b in bins)))
    return out


def choose(options: Sequence[Option], strategy: str, templates: Mapping[str, NodeTemplate],
           rng: random.Random) -> Option:
    """The option *strategy* picks (Cluster Autoscaler's expanders; ties by template order)."""
    order = {name: i for i, name in enumerate(templates)}

    def pick(best: Sequence[Option]) -> Option:
        return min(best, key=lambda o: order[o.template])

    if strategy == "random":
        return rng.choice(list(options))
    if strategy == "most-pods":
        top = max(len(o.pods) for o in options)
        return pick(sorted((o for o in options if len(o.pods) == top), key=lambda o: o.count)[:1])
    if strategy == "priority":
        top = max(templates[o.template].priority for o in options)
        best = [o for o in options if templates[o.template].priority == top]
        return rng.choice(best) if len(best) > 1 else best[0]
    if strategy == "price":
        def per_pod(o: Option) -> tuple[int, float]:
            return (0, o.cost / len(o.pods)) if o.cost is not None else (1, 0.0)
        cheapest = min(per_pod(o) for o in options)
        return pick([o for o in options if per_pod(o) == cheapest])
    if strategy == "min-cost":
        priced = all(templates[o.template].price is not None for o in options)

        def ratio(o: Option) -> float:
            return (o.cost if priced and o.cost is not None else o.count) / len(o.pods)
        best_ratio = min(ratio(o) for o in options)
        return pick([o for o in options if ratio(o) <= best_ratio * (1 + 1e-12)])
    # least-waste
    low = min(o.waste for o in options)
    best = [o for o in options if o.waste <= low + 1e-12]
    return pick(best)


def plan_rounds(ctx: Context, templates: Sequence[NodeTemplate], shapes: Sequence[Shape],
                helps: Mapping[int, list[str]], remaining: Sequence[Pod], used: Counter[str],
                strategy: str, rng: random.Random, *, commit_used: bool = True
                ) -> tuple[Counter[str], set[str]]:
    """Cluster Autoscaler's scale-up loop: options for the pods left, one chosen, committed,
    repeated; then each gang as a whole (:func:`_gang_option`) beside the nodes committed.
    Returns the nodes added per template and the pods they are expected to place."""
    dims = dims_of(remaining)
    added: Counter[str] = Counter()
    helped: set[str] = set()
    gangs = gangs_of(remaining, ctx.bound, ctx.objects, ctx.config)
    in_gangs = {k for g in gangs for k in g.keys}
    left = [p for p in remaining if p.key not in in_gangs]
    by_name = {t.name: t for t in templates}
    committed = [t.new_node(name) for t, name in
                 new_node_names(templates, used if commit_used else {}, ctx.node_names,
                                infix="-committed-")]
    # the pods earlier rounds placed, on the nodes they committed (spread and inter-pod terms
    # of the next rounds count them, as Cluster Autoscaler's next loop sees its upcoming nodes)
    committed_pods: list[Pod] = []
    while left:
        options = _options(ctx, templates, shapes, helps, left, used + added, dims, committed,
                           committed_pods)
        options = [o for o in options if o.count > 0 or o.pods]
        if not options:
            break
        o = choose(options, strategy, by_name, rng)
        t = by_name[o.template]
        start = used[o.template] + added[o.template]
        fresh = [t.new_node(f"{t.name}-committed-{start + i + 1}") for i in range(o.count)]
        committed.extend(fresh)
        for node, group in zip(fresh, o.groups):
            committed_pods.extend(p.evolve(node_name=node.name) for p in group)
        added[o.template] += o.count
        helped |= o.pods
        left = [p for p in left if p.key not in o.pods]
    shape_of = {p.key: i for i, s in enumerate(shapes) for p in s.pods}
    for g in gangs:
        found = gang_plan(ctx, g, templates, [helps.get(shape_of.get(p.key, -1), []) for p in g.members],
                          used + added, strategy, rng, committed, committed_pods)
        if found is None:
            continue
        for name, group in found.groups:
            t = by_name[name]
            node = t.new_node(f"{t.name}-committed-{used[name] + added[name] + 1}")
            added[name] += 1
            committed.append(node)
            committed_pods.extend(p.evolve(node_name=node.name) for p in group)
        for node_name, group in found.on_committed:
            committed_pods.extend(p.evolve(node_name=node_name) for p in group)
        helped |= found.pods
    return added, helped


@attrs.frozen
class GangOption:
    """Nodes that place a gang's quorum at once: *groups* ``(template, members)`` per new node,
    *on_committed* ``(node, members)`` for the members that go to nodes committed before,
    *pods* every member placed."""

    counts: Counter[str]
    pods: frozenset[str]
    groups: tuple[tuple[str, tuple[Pod, ...]], ...]
    on_committed: tuple[tuple[str, tuple[Pod, ...]], ...]
    cost: float

    @property
    def count(self) -> int:
        return sum(self.counts.values())


#: How many simulations the estimate of one gang on one set of templates runs at most.
MAX_GANG_SIMULATIONS: Final = 12


def gang_plan(ctx: Context, g: Gang, templates: Sequence[NodeTemplate], helps: Sequence[Sequence[str]],
              used: Counter[str], strategy: str, rng: random.Random, committed: Sequence[Node] = (),
              committed_pods: Sequence[Pod] = ()) -> GangOption | None:
    """Cluster Autoscaler's estimate of a gang: the whole group simulated on fresh nodes of one
    template (each template that holds at least the quorum of members on its own; the
    strategy picks among them), else on fresh nodes of every template that holds a member
    (a gang whose members need different templates). ``None``: no such plan places the quorum
    within the templates' ``maxCount``."""
    holding: Counter[str] = Counter(name for names in helps for name in set(names))
    options: dict[str, GangOption] = {}
    for t in templates:
        if holding[t.name] >= g.need and t.max_count - used[t.name] > 0:
            o = _gang_option(ctx, g, [t], used, committed, committed_pods)
            if o is not None:
                options[t.name] = o
    if options:
        by_name = {t.name: t for t in templates}
        singles = [Option(name, o.count, o.pods, _waste(by_name[name], o.count,
                                                         [m for _, m in o.groups], set(o.pods),
                                                         {p.key: p for p in g.members}),
                          o.cost if by_name[name].price is not None else None)
                   for name, o in options.items()]
        return options[choose(singles, strategy, by_name, rng).template]
    mixed = [t for t in templates if holding[t.name] and t.max_count - used[t.name] > 0]
    if len(mixed) < 2:
        return None
    return _gang_option(ctx, g, mixed, used, committed, committed_pods)


def _gang_option(ctx: Context, g: Gang, templates: Sequence[NodeTemplate], used: Counter[str],
                 committed: Sequence[Node], committed_pods: Sequence[Pod]) -> GangOption | None:
    """Simulate the gang's members on the cluster, the *committed* nodes and *n* fresh nodes of
    each of *templates* (n from the members' resource bound, growing) until the quorum binds;
    the fresh nodes no member took are dropped."""
    dims = dims_of(g.members)
    vecs = [vector(p.requests, dims, pod=True) for p in g.members]
    per = {t.name: max(1, lower_bound(vecs, free_capacity(ctx, t, dims))) for t in templates}
    if len(templates) > 1:
        per = dict.fromkeys(per, 1)
    limit = {t.name: t.max_count - used[t.name] for t in templates}
    n = {name: min(per[name], limit[name]) for name in per}
    base_nodes = [*ctx.nodes, *committed]
    base_bound = [*ctx.bound, *ctx.new_daemon_pods(committed), *committed_pods]
    committed_names = {c.name for c in committed}
    for _ in range(MAX_GANG_SIMULATIONS):
        fresh: list[tuple[str, Node]] = []
        for t in templates:
            fresh.extend((t.name, t.new_node(f"{t.name}-gang-{i + 1}")) for i in range(n[t.name]))
        nodes = [node for _, node in fresh]
        result = run_cluster(ctx, [*base_nodes, *nodes], [*base_bound, *ctx.new_daemon_pods(nodes)],
                             g.members)
        placed, _ = outcome(result, [p.key for p in g.members])
        if len(placed) >= g.need:
            by_key = {p.key: p for p in g.members}
            groups = tuple((name, tuple(by_key[k] for k, v in placed.items() if v == node.name))
                           for name, node in fresh if node.name in placed.values())
            on = tuple((c, tuple(by_key[k] for k, v in placed.items() if v == c))
                       for c in sorted(committed_names & set(placed.values())))
            counts = Counter(name for name, _ in groups)
            prices = {t.name: t.price or 0.0 for t in templates}
            return GangOption(counts, frozenset(placed), groups, on,
                              sum(prices[k] * v for k, v in counts.items()))
        grown = {name: min(limit[name], n[name] + max(1, -(-n[name] // 4))) for name in n}
        if grown == n:
            return None
        n = grown
    return None


def new_node_names(templates: Sequence[NodeTemplate], counts: Mapping[str, int], taken: set[str],
                   infix: str = "-") -> list[tuple[NodeTemplate, str]]:
    """``(template, name)`` of every new node: ``<template>-<n>``, skipping names taken."""
    out = []
    used = set(taken)
    for t in templates:
        n = 0
        for _ in range(counts.get(t.name, 0)):
            n += 1
            while f"{t.name}{infix}{n}" in used:
                n += 1
            name = f"{t.name}{infix}{n}"
            used.add(name)
            out.append((t, name))
    return out


def repair_and_run(ctx: Context, templates: Sequence[NodeTemplate], shapes: Sequence[Shape],
                   helps: Mapping[int, list[str]], pending: Sequence[Pod], counts: Counter[str],
                   promised: set[str], strategy: str, rng: random.Random
                   ) -> tuple[Counter[str], dict[str, str], list[str], int, list[str], dict[str, str],
                              SimResult, set[str]]:
    """Simulate the cluster with the planned nodes; while pods the plan promises stay pending,
    plan more nodes for them (and drop nodes left empty) and simulate again. Returns the final
    counts, the placements and pending keys of that last simulation (a fresh simulation of
    exactly the final counts), the number of simulations, notes, the scheduler's messages, that
    last simulation and the pods the plan's estimates promised to place (*promised* and those
    of the repairs)."""
    promised = set(promised)
    notes: list[str] = []
    keys = [p.key for p in pending]
    by_key = {p.key: p for p in pending}
    attempts = 0
    placed: dict[str, str] = {}
    left: list[str] = []
    messages: dict[str, str] = {}
    result: SimResult | None = None
    while True:
        attempts += 1
        new = new_node_names(templates, counts, ctx.node_names)
        fresh = [t.new_node(name) for t, name in new]
        nodes = [*ctx.nodes, *fresh]
        daemons = ctx.new_daemon_pods(fresh)
        result = run_cluster(ctx, nodes, [*ctx.bound, *daemons], pending)
        placed, left = outcome(result, keys)
        messages = {p.key: p.message for p in result.pods if p.message}
        missing = [k for k in left if k in promised]
        used_nodes = set(placed.values())
        empty = Counter(t.name for t, name in new if name not in used_nodes)
        if not missing and not empty:
            break
        if attempts >= MAX_ATTEMPTS:
            if missing:
                notes.append(f"{len(missing)} pod(s) the templates can hold stayed pending after "
                             f"{attempts} simulations (e.g. {missing[0]})")
            break
        if empty and not missing:
            counts = counts - empty
            continue
        # estimate from the simulated cluster: the planned nodes and the pods placed on them
        est = attrs.evolve(ctx, nodes=nodes, bound=[*ctx.bound, *daemons, *(
            by_key[k].evolve(node_name=n) for k, n in placed.items())])
        more, again = plan_rounds(est, templates, shapes, helps, [by_key[k] for k in missing],
                                  counts, strategy, rng, commit_used=False)
        promised |= again
        if not more:
            notes.append(f"{len(missing)} pod(s) stayed pending and no template has room left "
                         f"(e.g. {missing[0]})")
            break
        counts = counts + more
    assert result is not None
    return counts, placed, left, attempts, notes, messages, result, promised


def unplaced_reasons(pods: Sequence[Pod], shapes: Sequence[Shape], helps: Mapping[int, list[str]],
                     why: Mapping[int, Mapping[str, tuple[str, ...]]], templates: Sequence[NodeTemplate],
                     counts: Mapping[str, int], messages: Mapping[str, str],
                     gangs: Mapping[str, str] | None = None) -> dict[str, dict[str, tuple[str, ...]]]:
    """For each pod left pending: each template's reason (its Filter reasons on a fresh node, or
    ``maxCount`` reached, or -- for the member of a gang no plan places (*gangs*: pod key ->
    reason) -- that reason, or the scheduler's message when the template's node fits it
    alone)."""
    gangs = gangs or {}
    shape_of = {p.key: i for i, s in enumerate(shapes) for p in s.pods}
    out: dict[str, dict[str, tuple[str, ...]]] = {}
    for p in pods:
        i = shape_of[p.key]
        reasons: dict[str, tuple[str, ...]] = {}
        for t in templates:
            if t.name in why[i]:
                reasons[t.name] = why[i][t.name]
            elif counts.get(t.name, 0) >= t.max_count:
                reasons[t.name] = (MAX_COUNT_REASON.format(t.max_count),)
            elif p.key in gangs:
                msg = messages.get(p.key)
                reasons[t.name] = (gangs[p.key], msg) if msg else (gangs[p.key],)
            else:
                msg = messages.get(p.key) or "not placed by the scheduler with the planned nodes"
                reasons[t.name] = (msg,)
        out[p.key] = reasons
    return out


def shapes_of(pending: Sequence[Pod]) -> list[Shape]:
    """The shapes of *pending*."""
    return group_shapes(pending)
