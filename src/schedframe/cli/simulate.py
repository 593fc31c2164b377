"""``schedframe simulate``: a scenario (a file or a built-in) on a virtual clock, under one or
more configurations side by side (:func:`schedframe.sim.run_plan`)."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import IO, Any, Final

import attrs

from ._args import duration
from ._common import (
    EXIT_INPUT,
    EXIT_OK,
    EXIT_PENDING,
    CliInputError,
    add_release_options,
    add_validate_option,
    config_notes,
    dump_json,
    fmt_pct,
    fmt_seconds,
    output,
    release_option,
    status,
)
from ._inputs import add_config_option, add_load_metrics_option, read_inputs
from ._output import Out

__all__ = [
    "add_allow_foreign_pods",
    "add_decisions_options",
    "add_outcome_options",
    "add_parser",
    "add_report_option",
    "cluster_summary",
    "decisions_option",
    "foreign_pods_error",
    "report_option",
    "run",
    "simulate_report",
    "unhandled_lines",
    "write_decisions",
    "write_report_file",
]

#: Kinds of a cluster dump counted as workloads in the header.
_WORKLOAD_KINDS: Final = frozenset(
    {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job", "CronJob", "ReplicationController"}
)
_ZONE_LABELS: Final = ("topology.kubernetes.io/zone", "failure-domain.beta.kubernetes.io/zone")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe simulate``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
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
        help="a scenario file (YAML/JSON) or a built-in name (see --list); default: three-zones, "
        "or with --cluster the cluster alone (its own pods)",
    )
    p.add_argument("--list", action="store_true", help="list the built-in scenarios and exit")
    p.add_argument(
        "--cluster",
        metavar="DUMP",
        help="start from these manifests / `kubectl get nodes,pods -A -o yaml` dump; without "
        "SCENARIO, simulate the dump's own pods only",
    )
    add_load_metrics_option(p)
    add_config_option(p, many=True, help="a KubeSchedulerConfiguration file (repeat to compare several)")
    p.add_argument(
        "--seed", type=int, default=0, help="seed of arrivals, run times and tie-breaks (default 0)"
    )
    p.add_argument("--until", type=duration, metavar="T",
                   help="stop at simulated time T: seconds, or a duration such as 90s, 5m, 1h30m")
    out = p.add_mutually_exclusive_group()
    out.add_argument("--json", action="store_true", help="print the results as JSON")
    out.add_argument(
        "--jsonl", action="store_true", help="print the event log (JSON Lines; one log per config)"
    )
    p.add_argument("--log", metavar="FILE", help="write the event log (JSON Lines) for replay to FILE")
    add_outcome_options(p, plot_help="save plots (utilisation, pending, latency CDF, comparison)")
    add_decisions_options(p)
    add_report_option(p)
    add_release_options(p)
    add_validate_option(p)
    return p


def add_outcome_options(p: argparse.ArgumentParser, *, plot_help: str) -> None:
    """The options ``simulate`` and ``replay`` share about what is shown of a run: ``--explain``,
    ``--plot``, ``--pods``, ``--fail-on-pending`` and ``--allow-foreign-pods``."""
    p.add_argument(
        "--explain",
        action="append",
        default=[],
        metavar="POD",
        help="explain every attempt of POD (namespace/name); shown with --json",
    )
    p.add_argument("--plot", metavar="FILE", help=plot_help)
    p.add_argument("--pods", action="store_true", help="list every pod's outcome")
    p.add_argument("--fail-on-pending", action="store_true", help="exit 1 when pods stay pending")
    add_allow_foreign_pods(p)


def add_decisions_options(p: argparse.ArgumentParser) -> None:
    """``--decisions FILE``, ``--decisions-top K`` and ``--filter-verdicts FILE`` (``simulate``,
    ``replay``): the decision tables of :mod:`schedframe.sim.decisions`, written per run."""
    p.add_argument("--decisions", metavar="FILE",
                   help="write one row per scheduling attempt (outcome, node, top-k nodes with "
                   "per-plugin scores) to FILE: .parquet (pyarrow), .csv or .jsonl; with "
                   "several configs one file each (FILE.<config>.<suffix>)")
    p.add_argument("--decisions-top", type=int, metavar="K",
                   help="best-scoring nodes per attempt in --decisions (default 3)")
    p.add_argument("--filter-verdicts", metavar="FILE",
                   help="write one row per (attempt, node) Filter verdict to FILE (large): "
                   ".parquet, .csv or .jsonl")


def add_report_option(p: argparse.ArgumentParser) -> None:
    """``--report FILE.html``: one self-contained HTML page of the run (:mod:`schedframe.sim.report`)."""
    p.add_argument("--report", metavar="FILE.html",
                   help="write one self-contained HTML page of the runs to FILE.html (summary, "
                   "utilisation over time, per-node heat map, pending pods with their Filter and "
                   "Score matrix, wait-time distribution, placement diff); records the Filter "
                   "verdicts it needs")


def report_option(args: argparse.Namespace, recording: Any) -> Any:
    """The recording ``--report`` needs on top of *recording* (``--decisions``), the report's
    file checked before anything runs: alone, each pod's last failed attempt only
    (``last_failed_only``: its row and its Filter verdicts, scored only when it failed); with
    ``--decisions``, every attempt's row and the last failed attempts' verdicts; with
    ``--filter-verdicts``, what they record."""
    if not getattr(args, "report", None):
        return recording
    from ..sim.decisions import RecordDecisions
    from ..sim.report import check_report_path

    check_report_path(args.report, "--report")
    if recording is None:
        return RecordDecisions(last_failed_only=True)
    if recording.filter_verdicts:
        return recording
    return RecordDecisions(top_k=recording.top_k, last_failed_verdicts=True)


def write_report_file(scenario: Any, plan: Any, results: Sequence[Any],
                      args: argparse.Namespace) -> list[str]:
    """Write ``--report`` (before any text report, as :func:`write_decisions`), and the line
    saying so."""
    if not getattr(args, "report", None):
        return []
    from ..sim.report import node_labels, write_report

    size = write_report(args.report, results, title=scenario.name, description=scenario.description,
                        labels=node_labels(plan))
    return [f"report ({size:,} bytes) written to {args.report}"]


def decisions_option(args: argparse.Namespace) -> Any:
    """The :class:`~schedframe.sim.RecordDecisions` that ``--decisions`` / ``--filter-verdicts``
    ask for (``None``: neither), every output file checked before anything runs."""
    from ..sim.decisions import RecordDecisions, check_output_path

    if not (args.decisions or args.filter_verdicts):
        if args.decisions_top is not None:
            raise CliInputError("--decisions-top: needs --decisions FILE")
        return None
    for path, what in ((args.decisions, "--decisions"), (args.filter_verdicts, "--filter-verdicts")):
        if path:  # FILE.<config>.<suffix> per config: the same suffix and directory
            check_output_path(path, what)
    try:
        top = 3 if args.decisions_top is None else args.decisions_top
        return RecordDecisions(top_k=top, filter_verdicts=bool(args.filter_verdicts))
    except ValueError as exc:
        raise CliInputError(f"--decisions-top: {exc}") from None


def write_decisions(results: Sequence[Any], args: argparse.Namespace) -> list[str]:
    """Write the decision tables of *results* where ``--decisions`` / ``--filter-verdicts``
    say (one file per result when there are several) -- before any report, so that a reader
    going away (``| head``) loses no file -- and the lines saying so."""
    lines = []
    for path, table in ((args.decisions, "decisions"), (args.filter_verdicts, "filter_verdicts")):
        if not path:
            continue
        for r in results:
            target = path if len(results) == 1 else _per_config(path, r.config)
            rows = getattr(r, table)()
            rows.write(target)
            lines.append(f"{r.config}: {len(rows):,} {rows.kind} row(s) written to {target}")
    return lines


def add_allow_foreign_pods(p: argparse.ArgumentParser) -> None:
    """``--allow-foreign-pods`` (``simulate``, ``replay``): see :func:`foreign_pods_error`."""
    p.add_argument(
        "--allow-foreign-pods",
        action="store_true",
        help="accept pods whose schedulerName no profile has (meant for another scheduler): "
        "report them, exit 0 (default: exit 2)",
    )


def cluster_summary(scenario: Any) -> str:
    """``N nodes in Z zones, M pods (B bound, P pending[, F finished ...]), K workloads`` of
    *scenario*'s starting cluster (pods in phase Succeeded or Failed count as finished, not
    bound)."""
    zones = {
        n.labels[k] for n in scenario.nodes for k in _ZONE_LABELS[:1] if n.labels.get(k)
    } or {n.labels[k] for n in scenario.nodes for k in _ZONE_LABELS[1:] if n.labels.get(k)}
    finished = sum(1 for p in scenario.pods if p.is_terminal)
    bound = sum(1 for p in scenario.pods if p.node_name and not p.is_terminal)
    workloads = sum(1 for o in scenario.objects if type(o).__name__ in _WORKLOAD_KINDS)
    nodes = len(scenario.nodes)
    where = f" in {len(zones)} zone(s)" if zones else " (no zone labels)"
    done = f", {finished} finished (Succeeded/Failed: they hold nothing)" if finished else ""
    return (
        f"{nodes} node(s){where}, {len(scenario.pods)} pod(s) ({bound} bound, "
        f"{len(scenario.pods) - bound - finished} pending{done}), {workloads} workload(s)"
    )


def _inputs(args: argparse.Namespace) -> tuple[Any, str, list[Any]]:
    """The scenario to run (a built-in, a file, a cluster dump, or a file or built-in on a
    dump), where it comes from, and the configurations to run it under."""
    from ..sim import BUILTIN_SCENARIOS, builtin_scenario
    from ..sim.run import resolve_configs
    from ..sim.scenario import ConfigSpec, Scenario

    release = release_option(args)
    checks = {"validate": args.validate, "kubernetes_version": release.version}
    name = args.scenario
    if args.cluster and not os.path.exists(args.cluster):
        raise CliInputError(f"{args.cluster}: no such cluster dump (--cluster)")
    if name is None and args.cluster:  # the cluster alone: its own pods, no built-in workloads
        stem = os.path.splitext(os.path.basename(os.path.normpath(args.cluster)))[0] or "cluster"
        scenario = Scenario(stem).with_cluster(args.cluster, **checks)
        origin = args.cluster
        scenario = attrs.evolve(
            scenario, description=f"the cluster {args.cluster}: {cluster_summary(scenario)}"
        )
    elif name is None or name in BUILTIN_SCENARIOS:
        scenario = builtin_scenario() if name is None else builtin_scenario(
            name, kubernetes_version=release.version)
        origin = f"{scenario.name} (built-in)"
    elif os.path.exists(name):
        scenario = Scenario.from_file(name, **checks)
        origin = name
    else:
        from ..errors import did_you_mean

        raise CliInputError(
            f"{name}: no such scenario file or built-in scenario"
            f"{did_you_mean(name, BUILTIN_SCENARIOS)} (built-in: {', '.join(BUILTIN_SCENARIOS)})"
        )
    if args.cluster and name is not None:
        workloads = ", ".join(w.name for w in scenario.workloads) or "none"
        scenario = scenario.with_cluster(args.cluster, **checks)
        origin = f"{origin} on the cluster {args.cluster}"
        scenario = attrs.evolve(
            scenario,
            description=f"the cluster {args.cluster}: {cluster_summary(scenario)}; "
            f"the scenario's workloads: {workloads}",
        )
    inputs = read_inputs(args)
    if inputs.load_metrics is not None:
        scenario = attrs.evolve(scenario, load_metrics=inputs.load_metrics.metrics)
    given = [ConfigSpec(n, c) for n, c in inputs.configs] or list(scenario.configs)
    specs = resolve_configs(scenario, given or None)  # unnamed or same-named ones numbered
    if getattr(args, "kubernetes_version", None) or getattr(args, "feature_gates", None):
        from ..sim.run import for_release

        specs = [attrs.evolve(s, config=for_release(s.config, release, None)) for s in specs]
    return scenario, origin, specs


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe simulate``."""
    out = output(args)
    from ..errors import ScenarioError
    from ..sim import BUILTIN_SCENARIOS, builtin_scenario, moved_pods, run_plan

    if args.list:
        rows = [[name, builtin_scenario(name).description] for name in BUILTIN_SCENARIOS]
        if args.json:
            dump_json([{"name": n, "description": d} for n, d in rows], out.stream)
        else:
            out.table("Built-in scenarios", ["NAME", "DESCRIPTION"], rows)
        return EXIT_OK
    reading = f"reading {args.cluster or args.scenario or 'the scenario'}…"
    with config_notes(within=args.scenario), status(out, reading):
        scenario, origin, specs = _inputs(args)
    recording = report_option(args, decisions_option(args))
    try:
        plan = scenario.plan(args.seed)
    except ScenarioError as exc:
        if exc.source:
            raise
        raise ScenarioError(origin, exc.path, exc.detail) from None
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
                        decisions=recording,
                    )
                )
            finally:
                if args.log and log_fh is not None:
                    log_fh.close()
    moved = moved_pods(results) if len(results) > 1 else {}
    written = write_decisions(results, args) + write_report_file(scenario, plan, results, args)
    if args.json:
        dump_json(
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
        simulate_report(out, scenario, results, moved, args)
    if args.plot:
        from ._plot import plot_results

        plot_results(results, args.plot)
        if not (args.json or args.jsonl):
            out.line(f"plots saved to {args.plot}")
    if not (args.json or args.jsonl):
        for line in written:
            out.line(line)
    if foreign_pods_error("simulate", results, args.allow_foreign_pods):
        return EXIT_INPUT
    if args.fail_on_pending and any(r.metrics.pending for r in results):
        return EXIT_PENDING
    return EXIT_OK


def foreign_pods_error(command: str, results: Sequence[Any], allowed: bool) -> bool:
    """Whether pods of *results* name a scheduler no profile has and *allowed*
    (``--allow-foreign-pods``) is not given; if so, the error, the pods and the fix are printed
    on stderr as ``schedframe COMMAND: error: ...`` and the command exits 2."""
    if allowed or not any(r.unhandled for r in results):
        return False
    lines = [line for r in results for line in unhandled_lines(r, len(results) > 1)]
    print(f"schedframe {command}: error: {lines[0]}", file=sys.stderr)
    for line in lines[1:]:
        print(f"  {line}", file=sys.stderr)
    names = sorted({n for r in results for n in r.unhandled})
    profiles = sorted({p for r in results for p in r.profiles})
    print(
        f"  fix: name a profile {' / '.join(repr(n) for n in names)} (profiles[].schedulerName "
        f"in the configuration), or set those pods' spec.schedulerName to "
        f"{' / '.join(repr(p) for p in profiles) or 'a profile'}; if they are meant for another "
        f"scheduler, pass --allow-foreign-pods (they then stay pending, reported)",
        file=sys.stderr,
    )
    return True


def unhandled_lines(result: Any, name_config: bool = True) -> list[str]:
    """One line per scheduler name the pods of *result* ask for that no profile has."""
    lines = []
    profiles = ", ".join(repr(p) for p in result.profiles) or "none"
    for sched, keys in result.unhandled.items():
        e_g = ", ".join(keys[:3]) + (", ..." if len(keys) > 3 else "")
        lines.append(
            f"{result.config + ': ' if name_config else ''}{len(keys)} pod(s) name schedulerName "
            f"{sched!r} but no profile named {sched!r} in the configuration (profiles: {profiles}); "
            f"nobody schedules them ({e_g})"
        )
    return lines


def _wait(m: Any, stat: str) -> str:
    value = getattr(m, f"wait_{stat}")
    text = fmt_seconds(value)
    return f">={text}" if value is not None and stat in m.wait_lower_bound else text


def _per_config(path: str, config: str) -> str:
    root, ext = os.path.splitext(path)
    return f"{root}.{config}{ext or '.jsonl'}"


def simulate_report(
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
                _wait(m, "p50"),
                _wait(m, "p99"),
                fmt_pct(m.utilisation_mean.get("cpu", 0.0)),
                fmt_pct(m.utilisation_peak.get("cpu", 0.0)),
                fmt_pct(m.fragmentation_mean.get("cpu", 0.0)),
                f"{m.attempts:,}",
                fmt_seconds(m.end),
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
    recreated = "; ".join(f"{r.config}: {r.metrics.recreated:,}" for r in results if r.metrics.recreated)
    out.line(
        "PODS counts every pod created during the run, recreated ones included"
        + (f" ({recreated} recreated)" if recreated else "")
        + "; the starting cluster's bound pods are not counted"
    )
    out.line(
        "WAIT: arrival to binding; a pod never bound counts until the end of the run (or its "
        "deletion), so with pods pending a figure is a lower bound (marked >=)"
    )
    for r in results:
        pending = r.pending()
        if pending:
            out.line(f"{r.config}: {len(pending)} pod(s) pending at the end, e.g.:")
            for p in pending[:5]:
                out.line(f"  {p.key}: {p.message or '(not attempted yet)'}")
        for line in unhandled_lines(r):
            out.line(line)
        if r.end_reason == "no-progress" and r.stopped_at is not None:
            holds = f"; the state holds until {r.metrics.end:,.1f}s" if r.metrics.end > r.stopped_at else ""
            blocked = sum(len(g.pending) for g in r.gang_blocked)
            why = (f"cannot be placed, {blocked:,} of them blocked by a gang quorum" if blocked
                   else "cannot be placed")
            out.line(
                f"{r.config}: stopped at {r.stopped_at:,.1f}s: no progress possible (no arrival, "
                f"completion or node event ahead, and the {r.metrics.pending:,} pending pod(s) "
                f"{why}){holds}"
            )
        for g in r.gang_blocked:
            out.line(f"{r.config}: blocked by a gang quorum: {g.describe()}")
        if r.stalled:
            gangs = (f" (gangs short of their quorum: {', '.join(g.group for g in r.gang_blocked)})"
                     if r.gang_blocked else "")
            out.line(
                f"{r.config}: pods kept cycling without progress at {len(r.stalled)} instant(s) "
                f"(first at {r.stalled[0]:.1f}s){gangs}; time moved on"
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
                        fmt_seconds(p.arrival),
                        fmt_seconds(p.bound_at),
                        fmt_seconds(p.wait),
                        p.attempts,
                        (p.preempted_by and f"preempted by {p.preempted_by}") or p.message[:60],
                    ]
                    for p in r.pods
                ],
                right=(3, 4, 5, 6),
            )


