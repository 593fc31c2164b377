"""``schedframe explain``: one scheduling attempt of a pod against a cluster, per node and per
plugin (:func:`schedframe.explain`)."""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import Any

from ._common import (
    EXIT_OK,
    CliInputError,
    dump_json,
    load_cluster,
    load_config,
    manifest_input_error,
    output,
)

__all__ = ["add_parser", "run", "why_not"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe explain``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "explain",
        help="why a pod goes where it goes (or nowhere): per node, per plugin",
        description="Run one scheduling attempt of POD against a cluster and show every filter "
        "plugin's verdict per node, the scores, kube-scheduler's message, and why "
        "each other node lost.",
    )
    p.add_argument("pod", metavar="POD.yaml", help="the pod manifest")
    p.add_argument(
        "--cluster", required=True, metavar="DUMP", help="nodes, pods and objects (manifests or a dump)"
    )
    p.add_argument("--config", metavar="FILE", help="a KubeSchedulerConfiguration file")
    p.add_argument("--seed", type=int, default=0, help="tie-break seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the explanation as JSON")
    return p


def why_not(e: Any) -> list[tuple[str, str]]:
    """``(node, reason)`` for every node that is not the selected one."""
    out: list[tuple[str, str]] = []
    winner = e.node_scores(e.selected_node) if e.selected_node else None
    for n in e.nodes:
        if n.node == e.selected_node:
            continue
        if not n.feasible:
            failing = [c for c in n.checks if not c.passed and str(c.code) != "Skip"] if n.evaluated else []
            reason = "; ".join(f"{c.plugin}: {c.message or c.code}" for c in failing) or (
                n.verdict.message or str(n.verdict.code)
            )
            out.append((n.node, f"filtered out: {reason}"))
            continue
        mine = e.node_scores(n.node)
        if winner is None or mine is None:
            out.append((n.node, "feasible"))
            continue
        behind = []
        for s in mine.scores:
            w = winner.score(s.plugin)
            if w is not None and w.weighted > s.weighted:
                behind.append(f"{s.plugin} {s.weighted} < {w.weighted}")
        gap = winner.total - mine.total
        reason = f"scored {mine.total} vs {winner.total}" + (f" ({', '.join(behind)})" if behind else "")
        if gap == 0:
            reason = f"tied at {mine.total}; the tie-break chose {e.selected_node}"
        out.append((n.node, reason))
    return out


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe explain``."""
    out = output(args)
    from ..api.manifests import load_manifests
    from ..api.objects import Pod
    from ..errors import ManifestError
    from ..scheduler.explain import explain

    for path, flag in ((args.pod, "POD.yaml"), (args.cluster, "--cluster")):
        if not os.path.exists(path):
            raise CliInputError(f"{path}: no such file ({flag})")
    if os.path.isdir(args.pod):
        raise CliInputError(f"{args.pod}: it is a directory; the pod is one manifest file (POD.yaml)")
    try:
        pods = [o for o in load_manifests(Path(args.pod)) if isinstance(o, Pod)]
    except ManifestError as exc:
        raise manifest_input_error(args.pod, exc) from None
    if len(pods) != 1:
        raise CliInputError(f"{args.pod}: want exactly one Pod, found {len(pods)}")
    objects = load_cluster(args.cluster, "--cluster")
    config = load_config(args.config) if args.config else None
    e = explain(pods[0], objects=objects, config=config, seed=args.seed)
    reasons = why_not(e)
    if args.json:
        dump_json({**e.to_dict(), "why_not": dict(reasons)}, out.stream)
        return EXIT_OK
    if not out.rich:
        out.line(e.render())
        if reasons:
            out.line("")
            out.line("Why not the others:")
            for node, reason in reasons:
                out.line(f"  {node}: {reason}")
        return EXIT_OK
    out.line(f"Pod {e.pod.key} (profile {e.profile}, {e.num_nodes} node(s))", style="bold")
    if e.selected_node:
        out.line(f"selected node: {e.selected_node}", style="green")
    else:
        out.line(e.message, style="red")
    if e.nodes:
        rows = []
        for n in e.nodes:
            cells = []
            for c in n.checks:
                mark = "pass" if c.passed else ("FAIL" if c.plugin == n.stopped_at else "fail")
                if str(c.code) == "Skip":
                    mark = "skip"
                cells.append(mark)
            if not n.evaluated:
                cells = ["-"] * len(e.filter_plugins)
            rows.append(
                [n.node, *cells, "feasible" if n.feasible else (n.verdict.message or str(n.verdict.code))]
            )
        out.table("Filter (FAIL: where kube-scheduler stops)", ["NODE", *e.filter_plugins, "VERDICT"], rows)
    if e.scores:
        active = [s.plugin for s in e.scores[0].scores]
        rows = [
            [
                ns.node,
                *(f"{s.weighted} ({s.raw})" for s in ns.scores),
                str(ns.total),
                "<- selected" if ns.node == e.selected_node else "",
            ]
            for ns in e.scores
        ]
        out.table(
            "Score: weighted (raw)", ["NODE", *active, "TOTAL", ""], rows, right=range(1, len(active) + 2)
        )
    if reasons:
        out.table("Why not the others", ["NODE", "REASON"], [list(r) for r in reasons])
    return EXIT_OK


