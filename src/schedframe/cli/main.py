"""``schedframe``: the command line (argparse; rich and matplotlib when their extras are
installed). Every command is a thin layer over a library call and has ``--json``.

Exit codes: 0 ok; 1 when ``--fail-on-pending`` and pods stay pending; 2 for usage and input
errors (one line naming the file and field; ``--debug`` shows the traceback).
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
import sys
import traceback
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import IO, Any, Final

from ..errors import SchedframeError
from ._output import Out

__all__ = ["EXIT_INPUT", "EXIT_OK", "EXIT_PENDING", "main"]

EXIT_OK: Final = 0
EXIT_PENDING: Final = 1
EXIT_INPUT: Final = 2

_GPUSHARE_CLI: Final = "schedframe.gpushare.cli"


class _InputError(SchedframeError, ValueError):
    """A command-line input problem found by the CLI itself (a missing file, bad combination)."""


# -- helpers -----------------------------------------------------------------------------------------


def _read_text(path: str, what: str) -> str:
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as exc:
        raise _InputError(f"{path}: cannot read the {what}: {exc.strerror or exc}") from None


def _load_config(path: str) -> Any:
    from ..config.configuration import SchedulerConfiguration
    from ..errors import ConfigurationError

    text = _read_text(path, "configuration")
    try:
        return SchedulerConfiguration.from_yaml(text)
    except ConfigurationError as exc:
        raise _InputError(f"{path}: {exc}") from None


def _dump(data: Any, stream: Any) -> None:
    json.dump(data, stream, indent=2, default=str)
    stream.write("\n")


def _fmt_s(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f}s"


def _pct(value: float) -> str:
    return f"{100 * value:.0f}%"


# -- simulate -----------------------------------------------------------------------------------------


def _add_simulate(sub: Any) -> None:
    p = sub.add_parser(
        "simulate",
        help="simulate a scenario (default: the built-in one) on a virtual clock",
        description="Run a scenario through the real scheduler on a virtual clock: arrivals, "
        "run times, node events, preemption. With several configurations (the "
        "scenario's or --config), compare them side by side.",
    )
    p.add_argument(
        "scenario",
        nargs="?",
        metavar="SCENARIO",
        help="a scenario file (YAML/JSON) or a built-in name (see --list); default: three-zones",
    )
    p.add_argument("--list", action="store_true", help="list the built-in scenarios and exit")
    p.add_argument(
        "--cluster",
        metavar="DUMP",
        help="start from these manifests / `kubectl get nodes,pods -A -o yaml` dump",
    )
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="a KubeSchedulerConfiguration file (repeat to compare several)",
    )
    p.add_argument(
        "--seed", type=int, default=0, help="seed of arrivals, run times and tie-breaks (default 0)"
    )
    p.add_argument("--until", type=float, metavar="T", help="stop at simulated second T")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the results as JSON")
    out.add_argument(
        "--jsonl", action="store_true", help="print the event log (JSON Lines; one log per config)"
    )
    p.add_argument("--log", metavar="FILE", help="write the event log (JSON Lines) for replay to FILE")
    p.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="POD",
        help="explain every attempt of POD (namespace/name); shown with --json",
    )
    p.add_argument(
        "--plot", metavar="FILE", help="save plots (utilisation, pending, latency CDF, comparison)"
    )
    p.add_argument("--pods", action="store_true", help="list every pod's outcome")
    p.add_argument("--fail-on-pending", action="store_true", help="exit 1 when pods stay pending")
    p.set_defaults(run=_simulate)


def _simulate(args: argparse.Namespace, out: Out) -> int:
    from ..sim import BUILTIN_SCENARIOS, builtin_scenario, moved_pods, run_plan
    from ..sim.run import resolve_configs
    from ..sim.scenario import ConfigSpec, Scenario

    if args.list:
        rows = [[name, builtin_scenario(name).description] for name in BUILTIN_SCENARIOS]
        if args.json:
            _dump([{"name": n, "description": d} for n, d in rows], out.stream)
        else:
            out.table("Built-in scenarios", ["NAME", "DESCRIPTION"], rows)
        return EXIT_OK
    name = args.scenario
    if name is None or name in BUILTIN_SCENARIOS:
        scenario = builtin_scenario() if name is None else builtin_scenario(name)
    elif os.path.exists(name):
        scenario = Scenario.from_file(name)
    else:
        from ..errors import did_you_mean

        raise _InputError(
            f"{name}: no such scenario file or built-in scenario"
            f"{did_you_mean(name, BUILTIN_SCENARIOS)} (built-in: {', '.join(BUILTIN_SCENARIOS)})"
        )
    if args.cluster:
        if not os.path.exists(args.cluster):
            raise _InputError(f"{args.cluster}: no such cluster dump (--cluster)")
        scenario = scenario.with_cluster(args.cluster)
    specs = (
        [ConfigSpec(os.path.splitext(os.path.basename(f))[0], _load_config(f)) for f in args.config]
        if args.config
        else resolve_configs(scenario, None)
    )
    specs = resolve_configs(scenario, specs)
    plan = scenario.plan(args.seed)
    results = []
    for spec in specs:
        with out.progress(f"{scenario.name} / {spec.name}", enabled=not (args.json or args.jsonl)) as update:
            log_fh: IO[str] | None = None
            if args.log:
                path = args.log if len(specs) == 1 else _per_config(args.log, spec.name)
                log_fh = open(path, "w", encoding="utf-8")  # noqa: SIM115 - closed below
            elif args.jsonl:
                log_fh = out.stream
            try:
                results.append(
                    run_plan(
                        plan,
                        spec.config,
                        config_name=spec.name,
                        seed=args.seed,
                        until=args.until,
                        explain=args.explain,
                        log=log_fh,
                        progress=update,
                    )
                )
            finally:
                if args.log and log_fh is not None:
                    log_fh.close()
    moved = moved_pods(results) if len(results) > 1 else {}
    if args.json:
        _dump(
            {
                "scenario": scenario.name,
                "description": scenario.description,
                "seed": args.seed,
                "results": [r.to_dict() for r in results],
                "moved": moved,
            },
            out.stream,
        )
    elif not args.jsonl:
        _simulate_report(out, scenario, results, moved, args)
    if args.plot:
        from ._plot import plot_results

        plot_results(results, args.plot)
        if not (args.json or args.jsonl):
            out.line(f"plots saved to {args.plot}")
    if args.fail_on_pending and any(r.metrics.pending for r in results):
        return EXIT_PENDING
    return EXIT_OK


def _per_config(path: str, config: str) -> str:
    root, ext = os.path.splitext(path)
    return f"{root}.{config}{ext or '.jsonl'}"


def _simulate_report(
    out: Out,
    scenario: Any,
    results: Sequence[Any],
    moved: dict[str, dict[str, str]],
    args: argparse.Namespace,
) -> None:
    out.line(
        f"{scenario.name}: {scenario.description}" if scenario.description else scenario.name, style="bold"
    )
    rows = []
    for r in results:
        m = r.metrics
        rows.append(
            [
                r.config,
                f"{m.pods:,}",
                f"{m.placed:,}",
                f"{m.pending:,}",
                f"{m.running:,}",
                f"{m.completed:,}",
                f"{m.preemptions:,}",
                _fmt_s(m.wait_p50),
                _fmt_s(m.wait_p99),
                _pct(m.utilisation_mean.get("cpu", 0.0)),
                _pct(m.utilisation_peak.get("cpu", 0.0)),
                _pct(m.fragmentation_mean.get("cpu", 0.0)),
                f"{m.attempts:,}",
                _fmt_s(m.end),
                f"{r.perf.wall_seconds:.2f}s",
            ]
        )
        if len(results) > 1:
            rows[-1].append(
                f"{sum(1 for v in moved.values() if v.get(r.config) != v.get(results[0].config)):,}"
            )
    cols = [
        "CONFIG",
        "PODS",
        "PLACED",
        "PENDING",
        "RUNNING",
        "DONE",
        "PREEMPTED",
        "WAIT P50",
        "WAIT P99",
        "CPU MEAN",
        "CPU PEAK",
        "CPU FRAG",
        "TRIES",
        "SIM TIME",
        "WALL",
    ]
    if len(results) > 1:
        cols.append("MOVED")
    title = f"seed {args.seed}" + (
        f"; MOVED: pods not on the same node as with {results[0].config}" if len(results) > 1 else ""
    )
    out.table(title, cols, rows, right=range(1, len(cols)))
    for r in results:
        pending = r.pending()
        if pending:
            out.line(f"{r.config}: {len(pending)} pod(s) pending at the end, e.g.:")
            for p in pending[:5]:
                out.line(f"  {p.key}: {p.message or '(not attempted yet)'}")
        if r.stalled:
            out.line(
                f"{r.config}: pods kept cycling without progress at {len(r.stalled)} instant(s) "
                f"(first at {r.stalled[0]:.1f}s); time moved on"
            )
    if args.pods:
        for r in results:
            out.table(
                f"pods ({r.config})",
                ["POD", "STATE", "NODE", "ARRIVAL", "BOUND", "WAIT", "ATTEMPTS", "NOTE"],
                [
                    [
                        p.key,
                        p.state,
                        p.node or "-",
                        _fmt_s(p.arrival),
                        _fmt_s(p.bound_at),
                        _fmt_s(p.wait),
                        p.attempts,
                        (p.preempted_by and f"preempted by {p.preempted_by}") or p.message[:60],
                    ]
                    for p in r.pods
                ],
                right=(3, 4, 5, 6),
            )


# -- replay -------------------------------------------------------------------------------------------


def _add_replay(sub: Any) -> None:
    p = sub.add_parser(
        "replay",
        help="run a recorded event log again, or under other configurations",
        description="Run an event log written by `simulate --log` again: the recorded cluster, "
        "arrivals, run times, node events and seed give the identical result, checked against "
        "the log's end line. With --config, the same recorded inputs also run under each "
        "configuration, side by side (a what-if on a recorded workload).",
    )
    p.add_argument("log", metavar="LOG", help="an event log (JSON Lines) from `simulate --log`")
    p.add_argument(
        "--config",
        action="append",
        default=[],
        metavar="FILE",
        help="also run the recorded inputs under this KubeSchedulerConfiguration (repeatable)",
    )
    p.add_argument(
        "--no-check", action="store_true", help="do not compare the metrics with the logged run's"
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    p.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="POD",
        help="explain every attempt of POD (namespace/name); shown with --json",
    )
    p.add_argument("--plot", metavar="FILE", help="save plots (as simulate --plot)")
    p.add_argument("--pods", action="store_true", help="list every pod's outcome")
    p.add_argument("--fail-on-pending", action="store_true", help="exit 1 when pods stay pending")
    p.set_defaults(run=_replay)


def _replay(args: argparse.Namespace, out: Out) -> int:
    from ..sim import moved_pods, read_log, replay

    if not os.path.exists(args.log):
        raise _InputError(f"{args.log}: no such event log")
    _, _, recorded_name, seed, _ = read_log(args.log)
    configs = [
        (os.path.splitext(os.path.basename(f))[0], _load_config(f)) for f in args.config
    ]
    taken = {recorded_name}
    results = []
    with out.progress(f"replay / {recorded_name}", enabled=not args.json) as update:
        results.append(
            replay(args.log, check=not args.no_check, explain=args.explain, progress=update)
        )
    for name, config in configs:
        base, n = name, 2
        while name in taken:  # keep rows and MOVED columns apart
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        with out.progress(f"replay / {name}", enabled=not args.json) as update:
            results.append(
                replay(args.log, explain=args.explain, progress=update, config=config, config_name=name)
            )
    moved = moved_pods(results) if len(results) > 1 else {}
    checked = not args.no_check
    if args.json:
        _dump(
            {
                "log": args.log,
                "seed": seed,
                "checked": checked,
                "results": [r.to_dict() for r in results],
                "moved": moved,
            },
            out.stream,
        )
    else:
        label = argparse.Namespace(name=f"replay of {args.log}", description="")
        _simulate_report(out, label, results, moved, argparse.Namespace(seed=seed, pods=args.pods))
        if checked:
            out.line(f"{recorded_name}: the replay's metrics equal the logged run's")
    if args.plot:
        from ._plot import plot_results

        plot_results(results, args.plot)
        if not args.json:
            out.line(f"plots saved to {args.plot}")
    if args.fail_on_pending and any(r.metrics.pending for r in results):
        return EXIT_PENDING
    return EXIT_OK


# -- explain ------------------------------------------------------------------------------------------


def _add_explain(sub: Any) -> None:
    p = sub.add_parser(
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
    p.set_defaults(run=_explain)


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


def _explain(args: argparse.Namespace, out: Out) -> int:
    from ..api.manifests import load_manifests
    from ..api.objects import Pod
    from ..errors import ManifestError
    from ..scheduler.explain import explain

    for path, flag in ((args.pod, "POD.yaml"), (args.cluster, "--cluster")):
        if not os.path.exists(path):
            raise _InputError(f"{path}: no such file ({flag})")
    try:
        pods = [o for o in load_manifests(Path(args.pod)) if isinstance(o, Pod)]
    except ManifestError as exc:
        raise _InputError(f"{args.pod}: {exc}") from None
    if len(pods) != 1:
        raise _InputError(f"{args.pod}: want exactly one Pod, found {len(pods)}")
    try:
        objects = load_manifests(Path(args.cluster))
    except ManifestError as exc:
        raise _InputError(f"{args.cluster}: {exc}") from None
    config = _load_config(args.config) if args.config else None
    e = explain(pods[0], objects=objects, config=config, seed=args.seed)
    reasons = why_not(e)
    if args.json:
        _dump({**e.to_dict(), "why_not": dict(reasons)}, out.stream)
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


# -- plugins ------------------------------------------------------------------------------------------


def _add_plugins(sub: Any) -> None:
    p = sub.add_parser("plugins", help="list the registered plugins and their extension points")
    p.add_argument("--json", action="store_true", help="print as JSON")
    p.set_defaults(run=_plugins)


def plugin_table() -> list[dict[str, Any]]:
    """Every in-tree and entry-point plugin with its extension points and origin."""
    from ..config.configuration import EXTENSION_POINTS
    from ..framework.plugin_manager import load_plugins
    from ..framework.registry import Registry
    from ..plugins import in_tree_registry
    from ..testing import PluginHarness

    in_tree = in_tree_registry()
    registry = Registry()
    registry.merge(in_tree)
    load_plugins(registry)
    rows = []
    for name in sorted(registry):
        try:
            fwk = PluginHarness(name, registry=registry).framework
            points = [p for p in EXTENSION_POINTS if name in fwk.plugins_at(p)]
            error = ""
        except Exception as exc:  # a plugin that cannot be built with default args
            points, error = [], f"{type(exc).__name__}: {exc}"
        row: dict[str, Any] = {
            "name": name,
            "origin": "in-tree" if name in in_tree else "entry point",
            "extension_points": points,
        }
        if error:
            row["error"] = error
        rows.append(row)
    return rows


def _plugins(args: argparse.Namespace, out: Out) -> int:
    rows = plugin_table()
    if args.json:
        _dump(rows, out.stream)
        return EXIT_OK
    out.table(
        "Plugins",
        ["NAME", "ORIGIN", "EXTENSION POINTS"],
        [[r["name"], r["origin"], ", ".join(r["extension_points"]) or r.get("error", "")] for r in rows],
    )
    return EXIT_OK


# -- config -------------------------------------------------------------------------------------------


def _add_config(sub: Any) -> None:
    p = sub.add_parser("config", help="validate, convert or print KubeSchedulerConfiguration files")
    csub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, text in (
        ("validate", "check a configuration file (all errors, with field paths)"),
        ("convert", "print a configuration as the effective v1 document"),
        ("default", "print upstream's default configuration (v1)"),
    ):
        a = csub.add_parser(action, help=text)
        a.add_argument("file", nargs="?" if action == "default" else None, metavar="FILE")
        a.add_argument("--json", action="store_true", help="print JSON instead of YAML")
        a.set_defaults(run=_config)


def _config(args: argparse.Namespace, out: Out) -> int:
    from ..config.configuration import SchedulerConfiguration

    if args.action == "validate":
        cfg = _load_config(args.file)
        profiles = [p.scheduler_name for p in cfg.profiles]
        if args.json:
            _dump({"file": args.file, "valid": True, "profiles": profiles}, out.stream)
        else:
            out.line(f"{args.file}: valid ({len(profiles)} profile(s): {', '.join(profiles)})")
        return EXIT_OK
    if args.action == "default" and args.file is None:
        cfg = SchedulerConfiguration.default()
    else:
        cfg = _load_config(args.file)
    doc = cfg.to_dict()
    if args.json:
        _dump(doc, out.stream)
        return EXIT_OK
    try:
        import yaml
    except ImportError:  # pragma: no cover - PyYAML is in the cli extra
        _dump(doc, out.stream)
        return EXIT_OK
    out.stream.write(yaml.safe_dump(doc, sort_keys=False))
    return EXIT_OK


# -- bench and gpushare ------------------------------------------------------------------------------


def _add_bench(sub: Any) -> None:
    p = sub.add_parser(
        "bench", help="run the benchmark suite (schedframe.bench; `bench --help`)", add_help=False
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(run=_bench)


def _bench(args: argparse.Namespace, out: Out) -> int:
    from ..bench._cli import main as bench_main

    return bench_main(list(args.rest))


def _add_gpushare(sub: Any) -> None:
    """Wire ``schedframe gpushare`` when the gpushare layer provides its command line."""
    if (
        importlib.util.find_spec("schedframe.gpushare") is None
        or importlib.util.find_spec(_GPUSHARE_CLI) is None
    ):
        return
    module = importlib.import_module(_GPUSHARE_CLI)
    p = sub.add_parser("gpushare", help="GPU sharing: FGD scorers and the openb experiments")
    module.add_arguments(p)
    p.set_defaults(run=lambda args, out: int(module.run(args)))


# -- main ---------------------------------------------------------------------------------------------

#: Subcommand registrars, in help order; a later layer (sweep) appends its own.
def _add_sweep(sub: Any) -> None:
    from .sweep import add_sweep

    add_sweep(sub)


def _add_run(sub: Any) -> None:
    from .kube import add_run

    add_run(sub, _load_config)


def _add_import(sub: Any) -> None:
    from .kube import add_import

    add_import(sub)


COMMANDS: list[Callable[[Any], None]] = [
    _add_simulate,
    _add_replay,
    _add_explain,
    _add_plugins,
    _add_sweep,
    _add_config,
    _add_bench,
    _add_gpushare,
    _add_run,
    _add_import,
]


def build_parser() -> argparse.ArgumentParser:
    """The ``schedframe`` argument parser."""
    from .. import __version__

    parser = argparse.ArgumentParser(
        prog="schedframe",
        description="The Kubernetes scheduling framework in Python: simulate clusters, "
        "explain placements, check configurations.",
    )
    parser.add_argument("--version", action="version", version=f"schedframe {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--plain", action="store_true", help="plain text output even when rich is installed")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for add in COMMANDS:
        add(sub)
    _common_flags(parser)
    return parser


def _common_flags(parser: argparse.ArgumentParser) -> None:
    """--debug and --plain are accepted after any (sub)command too."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if child.add_help:  # bench passes everything on
                    child.add_argument(
                        "--debug",
                        action="store_true",
                        default=argparse.SUPPRESS,
                        help="show tracebacks on errors",
                    )
                    child.add_argument(
                        "--plain",
                        action="store_true",
                        default=argparse.SUPPRESS,
                        help="plain text output even when rich is installed",
                    )
                _common_flags(child)


def main(argv: Sequence[str] | None = None, *, stdout: Any = None) -> int:
    """Run ``schedframe`` with *argv* (default ``sys.argv[1:]``); returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    command = next((a for a in args_list if not a.startswith("-")), None)
    if command == "bench":  # the benchmark suite parses its own arguments
        from ..bench._cli import main as bench_main

        return bench_main(args_list[args_list.index("bench") + 1 :])
    parser = build_parser()
    try:
        args = parser.parse_args(args_list)
        if args.command is None:  # no command: the built-in simulation
            args = parser.parse_args([*args_list, "simulate"])
    except SystemExit as exc:  # argparse: usage errors exit 2, --help 0
        return int(exc.code) if isinstance(exc.code, int) else EXIT_INPUT
    out = Out(stdout, plain=args.plain)
    run: Callable[[argparse.Namespace, Out], int] = args.run
    try:
        return run(args, out)
    except (SchedframeError, OSError) as exc:
        if args.debug:
            traceback.print_exc()
        message = str(exc).strip().replace("\n", " ")
        print(f"schedframe {args.command}: error: {message}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:  # pragma: no cover - interactive
        print("interrupted", file=sys.stderr)
        return 130
