"""``schedframe explain``: one scheduling attempt of a pod against a cluster, per node and per
plugin (:func:`schedframe.explain`)."""

from __future__ import annotations

import argparse
import os
import re
from collections.abc import Callable, Sequence
from typing import Any, Final

from ._common import (
    EXIT_OK,
    CliInputError,
    add_release_options,
    add_validate_option,
    dump_json,
    load_cluster,
    output,
    status,
    validate_options,
)
from ._inputs import add_config_option, add_load_metrics_option, read_inputs, read_manifest_file

__all__ = ["add_parser", "render_rich", "run", "why_not"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe explain``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "explain",
        help="why a pod goes where it goes (or nowhere): per node, per plugin",
        description="Run one scheduling attempt of POD against a cluster and show every filter "
        "plugin's verdict per node, the scores, kube-scheduler's message, and why "
        "each other node lost.",
    )
    p.add_argument("pod", metavar="POD.yaml",
                   help="the pod manifest, or the key (namespace/name) of a pending pod of the dump")
    p.add_argument(
        "--cluster", required=True, metavar="DUMP", help="nodes, pods and objects (manifests or a dump)"
    )
    add_config_option(p)
    add_load_metrics_option(p)
    p.add_argument("--seed", type=int, default=0, help="tie-break seed (default 0)")
    p.add_argument("--json", action="store_true", help="print the explanation as JSON")
    p.add_argument("--group", action="store_true",
                   help="explain the pod's whole pod group (spec.schedulingGroup, or a 1.35 "
                   "workloadRef): whether it can be placed, and each member's attempt")
    add_release_options(p)
    add_validate_option(p)
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
    from ..api.objects import Pod
    from ..errors import bounded_text
    from ..scheduler.explain import explain

    if not _exists(args.cluster):
        raise CliInputError(f"{bounded_text(args.cluster)}: no such file (--cluster)")
    if not _exists(args.pod):
        if not _POD_KEY.fullmatch(args.pod):
            raise CliInputError(f"{bounded_text(args.pod)}: no such file (POD.yaml)")
        # not a file: the key of a pending pod of the dump
        objects = load_cluster(args.cluster, "--cluster", out, **validate_options(args))
        _refuse_duplicate_pods(objects, args.cluster)
        pods, objects = _pending_pod(args.pod, args.cluster, objects)
    else:
        if os.path.isdir(args.pod):
            raise CliInputError(f"{args.pod}: it is a directory; the pod is one manifest file (POD.yaml)")
        pods = [o for o in read_manifest_file(args.pod, args) if isinstance(o, Pod)]
        if len(pods) != 1:
            raise CliInputError(f"{args.pod}: want exactly one Pod, found {len(pods)}")
        objects = load_cluster(args.cluster, "--cluster", out, **validate_options(args))
        _refuse_duplicate_pods(objects, args.cluster)
    inputs = read_inputs(args)
    if inputs.load_metrics is not None:  # the source object the load-aware plugins find
        from ..plugins.sigs import NodeMetricsSource

        objects = [*objects, NodeMetricsSource(inputs.load_metrics, name="load-metrics")]
    config = inputs.config
    if args.group:
        return _explain_group(out, args, pods[0], objects, config)
    with status(out, f"explaining {pods[0].key} on {args.cluster}…"):
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
    render_rich(e, reasons, out.console)
    return EXIT_OK


def _explain_group(out: Any, args: argparse.Namespace, pod: Any, objects: list[Any], config: Any) -> int:
    from ..errors import SchedulerError
    from ..scheduler import explain_group

    with status(out, f"explaining the pod group of {pod.key} on {args.cluster}…"):
        try:
            g = explain_group(pod, objects=[o for o in objects if o is not pod], config=config,
                              seed=args.seed)
        except SchedulerError as exc:
            raise CliInputError(str(exc)) from None
    if args.json:
        dump_json(g.to_dict(), out.stream)
    else:
        out.line(g.render())
    return EXIT_OK


def _exists(path: str) -> bool:
    try:
        return os.path.exists(path)
    except (OSError, ValueError):  # a name too long for the system, or with a NUL
        return False


def _refuse_duplicate_pods(objects: Sequence[Any], cluster: str) -> None:
    """Refuse a dump holding two pods with the same key or uid, as ``schedframe simulate`` does
    (explain would otherwise explain the first one silently)."""
    from ..api.objects import Pod
    from ..errors import bounded_text

    keys: set[str] = set()
    uids: set[str] = set()
    for o in objects:
        if not isinstance(o, Pod):
            continue
        if o.key in keys or (o.uid and o.uid in uids):
            raise CliInputError(f"{bounded_text(cluster)}: pods[{bounded_text(o.key)}]: a pod with this "
                                "name or uid already exists, one of the dump's pods; this one is one "
                                "of the dump's pods")
        keys.add(o.key)
        if o.uid:
            uids.add(o.uid)


#: ``[namespace/]name`` of a pod (a DNS subdomain name, optionally after a namespace label).
_POD_KEY: Final = re.compile(r"(?:[a-z0-9]([-a-z0-9]*[a-z0-9])?/)?[a-z0-9]([-a-z0-9.]*[a-z0-9])?")


def _pending_pod(key: str, cluster: str, objects: list[Any]) -> tuple[list[Any], list[Any]]:
    """The pending pod *key* (``namespace/name``, or a name in ``default``) of the dump, and the
    dump's objects without it."""
    from ..api.objects import Pod
    from ..errors import bounded_text

    full = key if "/" in key else f"default/{key}"
    found = [o for o in objects if isinstance(o, Pod) and o.key == full]
    if not found:
        raise CliInputError(f"{bounded_text(key)}: no such file, and no pod {bounded_text(full)} in "
                            f"{bounded_text(cluster)} (POD.yaml: a pod manifest, or the key of a "
                            "pending pod of the dump)")
    pod = found[0]
    if pod.node_name:
        raise CliInputError(f"{bounded_text(full)} is bound to node {bounded_text(pod.node_name)} in "
                            f"{bounded_text(cluster)}; explain takes a pending pod (write it to a "
                            "file without spec.nodeName to ask where it would go now)")
    return [pod], [o for o in objects if o is not pod]


def render_rich(e: Any, reasons: Sequence[tuple[str, str]], console: Any) -> None:
    """Print the explanation *e* on the rich *console*: the verdict, the filter and score tables,
    and why each other node lost. Node names are never cut: when the plugins' columns do not fit
    the console's width their headers are abbreviated (with a legend), and when even that does not
    fit each node's plugins are listed in one wrapped column."""
    from rich.text import Text

    console.print(Text(f"Pod {e.pod.key} (profile {e.profile}, {e.num_nodes} node(s))", style="bold"))
    if e.selected_node:
        console.print(Text(f"selected node: {e.selected_node}", style="green"))
    else:
        console.print(Text(e.message, style="red"))
    if e.nodes:
        marks = []
        for n in e.nodes:
            cells = []
            for c in n.checks:
                mark = "pass" if c.passed else ("FAIL" if c.plugin == n.stopped_at else "fail")
                if str(c.code) == "Skip":
                    mark = "skip"
                cells.append(mark)
            if not n.evaluated:
                cells = ["-"] * len(e.filter_plugins)
            verdict = "feasible" if n.feasible else (n.verdict.message or str(n.verdict.code))
            marks.append((n.node, cells, verdict))
        _print_plugin_table(
            console, "Filter (FAIL: where kube-scheduler stops)", list(e.filter_plugins),
            [(node, cells, [verdict]) for node, cells, verdict in marks], ["VERDICT"],
            compact=_marks_by_kind,
        )
    if e.scores:
        active = [s.plugin for s in e.scores[0].scores]
        _print_plugin_table(
            console, "Score: weighted (raw)", active,
            [(ns.node, [f"{s.weighted} ({s.raw})" for s in ns.scores],
              [str(ns.total), "<- selected" if ns.node == e.selected_node else ""]) for ns in e.scores],
            ["TOTAL", ""],
            compact=lambda names, cells: ", ".join(f"{p} {c}" for p, c in zip(names, cells)),
            right=True,
        )
    if reasons:
        from rich.table import Table

        t = Table(title="Why not the others", title_justify="left", header_style="bold")
        t.add_column("NODE", no_wrap=True, min_width=max(len(node) for node, _ in reasons))
        t.add_column("REASON", overflow="fold")
        for node, reason in reasons:
            t.add_row(Text(node), Text(reason))
        console.print(t)


def abbreviate(names: Sequence[str]) -> dict[str, str]:
    """Short, distinct headers for plugin names: the capitals (``NodeResourcesFit`` -> ``NRF``),
    with more letters where two would be equal."""
    out: dict[str, str] = {}
    for name in names:
        words = re.findall(r"[A-Z0-9][a-z]*|[a-z]+", name) or [name]
        short = "".join(w[0] for w in words)
        more = 1
        while short in out.values() and more < len(words[-1]):
            more += 1
            short = "".join(w[0] for w in words[:-1]) + words[-1][:more]
        n = 2
        base = short
        while short in out.values():
            short, n = f"{base}{n}", n + 1
        out[name] = short
    return out


def _print_plugin_table(
    console: Any,
    title: str,
    plugins: list[str],
    rows: Sequence[tuple[str, Sequence[str], Sequence[str]]],
    tail: Sequence[str],
    *,
    compact: Callable[[Sequence[str], Sequence[str]], str],
    right: bool = False,
) -> None:
    """A NODE column, one column per plugin, then *tail* columns; the first layout that fits the
    console: full plugin names, abbreviated ones (and a legend), or one wrapped PLUGINS column
    (``compact(names, cells)``, abbreviated names, and the legend).
    The tail columns wrap (``right``: the first is a number, never wrapped)."""
    from rich.table import Table
    from rich.text import Text

    def width(i: int, header: str) -> int:  # a column's cells, padding and border
        return max([len(header), *(len(cells[i]) for _, cells, _ in rows)]) + 3

    node_width = max((len(node) for node, _, _ in rows), default=4)
    tail_width = sum(
        max([len(name), *(len(extra[j]) for _, _, extra in rows)]) + 3 if right else _WRAPPED
        for j, name in enumerate(tail)
    )
    short = abbreviate(plugins)
    abbreviated = [short[p] for p in plugins]

    def table(headers: Sequence[str] | None) -> Any:
        t = Table(title=title, title_justify="left", header_style="bold")
        t.add_column("NODE", no_wrap=True, min_width=node_width)
        if headers is None:
            t.add_column("PLUGINS", overflow="fold", ratio=1)
        else:
            for h in headers:
                t.add_column(h, no_wrap=True, justify="right" if right else "left")
        for i, name in enumerate(tail):
            t.add_column(name, justify="right" if right and i == 0 else "left", overflow="fold",
                         no_wrap=right, ratio=None if right else 1)
        for node, cells, extra in rows:
            middle = [Text(compact(abbreviated, cells))] if headers is None else [Text(c) for c in cells]
            t.add_row(Text(node), *middle, *(Text(x) for x in extra))
        return t

    legend = Text("  ".join(f"{short[p]}={p}" for p in plugins), style="dim")
    for headers in (plugins, abbreviated):
        needed = 1 + node_width + 3 + sum(width(i, h) for i, h in enumerate(headers)) + tail_width
        if needed <= console.width:
            console.print(table(headers))
            if headers is not plugins:
                console.print(legend)
            return
    console.print(table(None))
    console.print(legend)


def _marks_by_kind(names: Sequence[str], marks: Sequence[str]) -> str:
    """``FAIL NRF; skip NA NP``: the plugins that did not pass, by verdict."""
    kinds: dict[str, list[str]] = {}
    for name, mark in zip(names, marks):
        if mark != "pass":
            kinds.setdefault(mark, []).append(name)
    order = ("FAIL", "fail", "skip", "-")
    ranked = sorted(kinds, key=lambda k: order.index(k) if k in order else len(order))
    parts = [f"{k} {' '.join(kinds[k])}" for k in ranked]
    return "; ".join(parts) or "all pass"


#: The least width a wrapped column gets when choosing a layout.
_WRAPPED = 16
