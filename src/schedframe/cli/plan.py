"""``schedframe plan``: nodes to add for pending pods and nodes to remove, each plan checked by
simulating it (:func:`schedframe.plan.plan`).

Exit codes: :data:`EXIT_OK` (0) verified, :data:`EXIT_NOT_VERIFIED` (3) not verified, 2 a usage
or input error, 130 interrupted, 141 a broken pipe (the last three as every command gives them)."""

from __future__ import annotations

import argparse
import os
from typing import Any, Final

from ._common import (
    EXIT_OK,
    CliInputError,
    add_validate_option,
    dump_json,
    load_cluster,
    output,
    status,
    validate_options,
)
from ._inputs import add_config_option, read_inputs, read_manifest_file

__all__ = ["EXIT_NOT_VERIFIED", "add_parser", "run"]

#: The plan did not pass its simulation check ("NOT verified"): distinct from an input error
#: (2), an interrupt (130) and a broken pipe (141).
EXIT_NOT_VERIFIED: Final = 3


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe plan``."""
    from ..plan import STRATEGIES

    p: argparse.ArgumentParser = subparsers.add_parser(
        "plan",
        help="capacity planning: nodes to add for pending pods, nodes that can go",
        description="Plan capacity as Cluster Autoscaler does, with kube-scheduler's exact "
        "semantics: which template nodes to add so the pending pods are placed, and which nodes "
        "can be removed; every plan is checked by simulating it. With no files: a built-in "
        "example.",
    )
    p.add_argument("--cluster", metavar="DUMP", help="the cluster: manifests or a `kubectl get -A -o "
                   "yaml` dump (its unbound pods are pending)")
    p.add_argument("--pending", metavar="FILE", help="more pending pods or workloads (manifests)")
    p.add_argument("--templates", metavar="FILE", help="node templates (docs/planning.rst)")
    add_config_option(p)
    p.add_argument("--strategy", choices=STRATEGIES, default="least-waste",
                   help="expander strategy (default least-waste)")
    p.add_argument("--scale-down", action="store_true", help="also plan nodes to remove")
    p.add_argument("--no-scale-up", action="store_true", help="plan scale-down only")
    p.add_argument("--threshold", type=float, default=0.5,
                   help="scale-down utilisation threshold (default 0.5, as Cluster Autoscaler)")
    p.add_argument("--seed", type=int, default=0, help="seed of ties and of --strategy random")
    p.add_argument("--recheck", action="store_true",
                   help="simulate the final plan a second time from scratch as well")
    p.add_argument("--json", action="store_true", help="print the plan as JSON")
    p.add_argument("--report", metavar="FILE.html",
                   help="write one self-contained HTML page to FILE.html: the cluster as it is "
                        "and with the plan done, side by side (pending pods with their Filter "
                        "and Score matrix, per-node heat map, the placement diff: which nodes "
                        "the plan empties and where their pods go)")
    add_validate_option(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe plan``."""
    from ..plan import EXAMPLE_CONFIG, example_cluster, example_templates, load_templates, plan
    from ..plan._templates import templates_from_data

    out = output(args)
    if args.report:
        from ..sim.report import check_report_path

        check_report_path(args.report, "--report")
    example = not (args.cluster or args.pending or args.templates)
    if example:
        from ..api.manifests import object_from_manifest

        cluster: list[Any] = [object_from_manifest(m) for m in example_cluster()]
        templates: Any = templates_from_data(example_templates(), source="the built-in example")
        config: Any = EXAMPLE_CONFIG
        pending: list[Any] = []
        scale_down = True
    else:
        if not args.cluster:
            raise CliInputError("--cluster DUMP is needed with --pending or --templates")
        cluster = load_cluster(args.cluster, "--cluster", out, **validate_options(args))
        pending = []
        if args.pending:
            if not os.path.exists(args.pending):
                raise CliInputError(f"{args.pending}: no such file (--pending)")
            pending = read_manifest_file(args.pending, args)
            if not pending:
                raise CliInputError(f"{args.pending}: no pod or workload in the file (--pending)")
        if args.no_scale_up:
            templates = []
        elif not args.templates:
            raise CliInputError("--templates FILE is needed to plan a scale-up (or --no-scale-up)")
        else:
            if not os.path.exists(args.templates):
                raise CliInputError(f"{args.templates}: no such file (--templates)")
            templates = load_templates(args.templates)
        config = read_inputs(args).config
        scale_down = args.scale_down
    with status(out, "planning…"):
        result = plan(cluster, templates, pending=pending, config=config, strategy=args.strategy,
                      scale_up=not args.no_scale_up, scale_down=scale_down,
                      threshold=args.threshold, seed=args.seed,
                      recheck=args.recheck)
    written = ""
    if args.report:
        from ..plan import write_plan_report

        with status(out, "simulating the plan for the report…"):
            title = "plan: the built-in example" if example else "plan"
            size = write_plan_report(args.report, cluster, result, pending=pending, config=config,
                                     seed=args.seed, title=title,
                                     description=_report_description(args, example))
        written = f"report ({size:,} bytes) written to {args.report}"
    if args.json:
        dump_json(result.to_dict(), out.stream)
    else:
        if written:
            out.line(written)
        _report(out, result, example)
    return EXIT_OK if result.verified else EXIT_NOT_VERIFIED


def _report(out: Any, result: Any, example: bool) -> None:
    if example:
        out.line("the built-in example: 4 nodes in 2 zones; pending: web replicas spread over zones, "
                 "a gang of 4 (Coscheduling), 2 pods sharing a T4 GPU, a pod no template can hold",
                 style="bold")
    prices = {t.name: t.price for t in result.templates}
    up = result.scale_up
    if up is not None:
        rows = [[t, f"{n}", "-" if prices.get(t) is None else f"{prices[t]:g}",
                 "-" if prices.get(t) is None else f"{n * (prices[t] or 0):g}"]
                for t, n in up.nodes_to_add.items()]
        total = "-" if up.cost is None else f"{up.cost:g}"
        rows.append(["total", f"{up.node_count}", "", total])
        out.table(f"nodes to add ({up.strategy})", ["TEMPLATE", "NODES", "PRICE", "COST"], rows,
                  right=(1, 2, 3))
        new = set(up.new_nodes)
        on_new = sum(1 for n in up.placements.values() if n in new)
        out.line(f"{len(up.placements)} pending pod(s) placed ({on_new} on new nodes); "
                 f"{len(up.unhelpable)} left pending")
        if up.preempted:
            out.line(f"{len(up.preempted)} running pod(s) preempted to place pending pods on the "
                     f"cluster as it is (e.g. {up.preempted[0]})")
        for key, reasons in up.unhelpable.items():
            out.line(f"  {key}: " + "; ".join(f"{t}: {', '.join(r)}" for t, r in reasons.items()))
        out.line(f"scale-up {'verified' if up.verified else 'NOT verified'}: {_bound_text(up)} "
                 f"({up.simulations} simulation(s); the last one, of exactly the planned nodes, is "
                 "the check)")
        for p in up.problems:
            out.line(f"  {p}")
    down = result.scale_down
    if down is not None:
        rows = [[n, "remove", f"{100 * down.utilisation[n]:.0f}%", ""] for n in down.removable]
        rows += [[n, "keep", f"{100 * down.utilisation[n]:.0f}%", f"{r}: {d}"]
                 for n, (r, d) in down.unremovable.items()]
        out.table(f"scale-down (threshold {down.threshold:.0%})", ["NODE", "ACTION", "UTIL", "WHY"], rows,
                  right=(2,))
        for k, n in down.moves.items():
            out.line(f"  {k} -> {n}")
        out.line(f"scale-down {'verified' if down.verified else 'NOT verified'}")
        for p in down.problems:
            out.line(f"  {p}")
    if result.finished:
        out.line(f"{len(result.finished)} finished pod(s) (Succeeded or Failed) left out: they hold "
                 "no room")
    verdict = "verified" if result.verified else "NOT verified"
    if up is not None:
        verdict += f": {_bound_text(up)}"
    out.line(verdict, style="bold")


def _report_description(args: argparse.Namespace, example: bool) -> str:
    """What the report's two configurations are, and of which inputs."""
    what = "the built-in example"
    if not example:
        what = f"the cluster {args.cluster}"
        if args.pending:
            what += f" with the pending pods of {args.pending}"
    return (f"{what}: the configuration 'as it is' is the cluster with its pending pods; "
            "'planned' is the cluster with the plan done (the nodes added, the nodes removed, "
            "their pods arriving again with the pending ones)")


def _bound_text(up: Any) -> str:
    """``10 node(s), lower bound 9 (+1)``: the nodes added against the plan's lower bound."""
    text = f"{up.node_count} node(s), lower bound {up.lower_bound} (+{up.above_bound})"
    if up.cost is not None and up.cost_lower_bound is not None:
        text += f", cost {up.cost:g} (lower bound {up.cost_lower_bound:g})"
    return text
