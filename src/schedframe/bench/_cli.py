"""``python -m schedframe.bench``: the command line."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from .. import _jsonout
from ..errors import SchedframeError
from ._report import format_profile, format_ratios, format_table, machine_info, make_record
from ._runner import INITIAL_MODES, BenchOptions, WorkloadResult, build_registry, load_config, run_suite
from ._workloads import WORKLOADS, select_workloads

if TYPE_CHECKING:
    from ._against import SideBySide
    from ._model import BenchWorkload

__all__ = ["main"]

_DESCRIPTION = """\
Run kube-scheduler's scheduler_perf workloads on schedframe: pods/s against upstream's floor,
per-attempt latency (p50/p99), peak memory; a table on stdout and, with --json, a record.
Workloads: names, name prefixes (SchedulingBasic), or groups: all (default: every performance
workload and the memory target), performance, memory, series, realistic (mixed node and pod
shapes, the openb trace's sizes, each with a uniform variant of the same size).
The soak run (arrivals and departures for minutes, RSS and invariants): soak --help.
Side by side with skippy-core on the same work: skippy --help.
Side by side with the real scheduler, per CPU second: --against kube-scheduler[=RELEASE] (needs
a checkout of schedframe's repository, for its oracle/ program, and Go)."""


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m schedframe.bench", description=_DESCRIPTION,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("workloads", nargs="*", metavar="WORKLOAD", help="what to run (default: all)")
    p.add_argument("--list", action="store_true", help="list the workloads and exit")
    p.add_argument("--scale", type=float, default=1.0, metavar="F",
                   help="multiply node and pod counts by F (e.g. 0.01 for a quick look; default 1)")
    p.add_argument("--series", action="store_true",
                   help="also run the scale series (500..15,000 nodes; 1,000..50,000 bound pods)")
    p.add_argument("--repeat", type=int, default=1, metavar="N",
                   help="run each workload N times and report medians (default 1)")
    p.add_argument("--json", metavar="PATH",
                   help="write the JSON record to PATH ('-': stdout); a number not measured is null")
    p.add_argument("--config", metavar="FILE", help="a KubeSchedulerConfiguration YAML to run with")
    p.add_argument("--plugin", action="append", default=[], metavar="SPEC",
                   help="register a plugin: Name=module:factory, module:factory, or module "
                        "(with schedframe_register_plugins); repeatable")
    p.add_argument("--no-entry-points", action="store_true",
                   help="do not load plugins of installed distributions (entry-point group schedframe)")
    p.add_argument("--initial", choices=INITIAL_MODES, default="schedule",
                   help="schedule the initial pods (upstream, default) or bind them round-robin (fast)")
    p.add_argument("--seed", type=int, default=0, help="tie-breaking seed (default 0)")
    p.add_argument("--profile", metavar="PATH",
                   help="cProfile the measured phase into PATH (one file per workload and run)")
    p.add_argument("--profile-top", type=int, default=15, metavar="N",
                   help="functions to print from each profile (default 15; 0: print none)")
    p.add_argument("--no-isolate", action="store_true",
                   help="run in this process (default: a fresh process per run, for clean peak memory)")
    p.add_argument("--gc-freeze", action="store_true", help="gc.freeze() the cluster before measuring")
    p.add_argument("--against", metavar="kube-scheduler[=RELEASE]",
                   help="run each workload on Go kube-scheduler of RELEASE too (default: the newest), "
                        "parallelism 1 and its default; one table side by side")
    p.add_argument("--no-go-parallel", action="store_true",
                   help="with --against: only Go's parallelism-1 run")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    return p


def _write_json(path: str, record: Any) -> None:
    """*record* as indented JSON to *path* (``-``: stdout)."""
    text = _jsonout.dumps(_jsonout.finite_or_null(record), indent=2)
    if path == "-":
        print(text)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text + "\n")


def _list() -> str:
    width = max(len(n) for n in WORKLOADS)
    lines = []
    for w in WORKLOADS.values():
        target = f"floor {w.floor:.0f} pods/s" if w.floor else (
            f"peak RSS <= {w.memory_target_mb:.0f} MiB" if w.memory_target_mb else "no floor")
        lines.append(f"{w.name:<{width}}  {w.group:<11}  {w.node_count:>6} nodes  {w.initial_count:>6} init  "
                     f"{w.measured_count:>6} measured  {target}  -- {w.description}")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m schedframe.bench`` (``... soak [options]``: the soak run)."""
    rest = list(sys.argv[1:] if argv is None else argv)
    if rest[:1] == ["soak"]:
        from ._soak import soak_main

        return soak_main(rest[1:])
    if rest[:1] == ["skippy"]:
        return skippy_main(rest[1:])
    parser = _parser()
    args = parser.parse_args(argv)
    if args.list:
        print(_list())
        return 0
    patterns = list(args.workloads) or ["all"]
    if args.series:
        patterns.append("series")
    try:
        workloads = select_workloads(patterns)
        for w in [w for w in workloads if w.skip_reason() is not None]:
            print(f"skipped {w.name}: {w.skip_reason()}", file=sys.stderr)
            workloads.remove(w)
        if not workloads:
            print("nothing to run", file=sys.stderr)
            return 0
        if args.scale <= 0:
            parser.error(f"--scale must be > 0, got {args.scale}")
        if args.repeat < 1:
            parser.error(f"--repeat must be >= 1, got {args.repeat}")
        if args.config:  # an unreadable or invalid file is one line here, not in every run
            registry = build_registry(tuple(args.plugin), entry_points=not args.no_entry_points)
            load_config(args.config, registry)
        options = BenchOptions(initial=args.initial, config_path=args.config, plugins=tuple(args.plugin),
                               entry_points=not args.no_entry_points, seed=args.seed,
                               profile_path=args.profile, gc_freeze=args.gc_freeze)

        def progress(msg: str) -> None:
            if not args.quiet:
                print(f"[bench] {msg}", file=sys.stderr, flush=True)

        def done(r: WorkloadResult) -> None:
            rate = f"{r.pods_per_second:.1f} pods/s" if r.pods_per_second is not None else "no measured pods"
            progress(f"{r.workload}: {rate}, {r.unscheduled} unscheduled, peak {r.peak_rss_mb} MiB")

        if args.against is not None:
            return _against_main(args, workloads, options, progress)
        suite = run_suite([w.name for w in workloads], scale=args.scale, options=options,
                          repeat=args.repeat, isolate=not args.no_isolate, progress=progress, on_result=done)
    except SchedframeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    machine = machine_info()
    print(format_table([summary for summary, _ in suite]))
    ratios = format_ratios([summary for summary, _ in suite], {w.name: w.baseline for w in workloads})
    if ratios:
        print()
        print(ratios)
    print(f"\nmachine: Python {machine['python']} ({machine['implementation']}), {machine['platform']}, "
          f"{machine['cpu_count']} CPUs, load {machine['load_average']}; seed {args.seed}; "
          f"initial pods: {args.initial} (Memory and Series bind theirs); scale {args.scale:g}; "
          f"runs {args.repeat}")
    if args.scale != 1:
        print("scaled run: numbers are not comparable with upstream's floors")
    for _, runs in suite:
        for r in runs:
            if r.unscheduled:
                print(f"{r.workload}: {r.unscheduled} measured pods unscheduled: {r.unscheduled_reasons}")
            if r.initial_unscheduled:
                print(f"{r.workload}: {r.initial_unscheduled} initial pods unscheduled")
    if args.json:
        record = make_record(suite, {**vars(args), "workloads": [w.name for w in workloads]}, machine)
        _write_json(args.json, record)
    if args.profile and args.profile_top > 0:
        from ._runner import _profile_path

        many = len(workloads) * args.repeat > 1
        for w in workloads:
            for run in range(args.repeat):
                path = _profile_path(args.profile, w.name, run, many)
                if path is not None:
                    print()
                    print(format_profile(path, args.profile_top))
    return 0


def _against_main(args: argparse.Namespace, workloads: Sequence[BenchWorkload], options: BenchOptions,
                  progress: Callable[[str], None]) -> int:
    from ._against import against_line, against_record, format_against, parse_against, run_against

    release = parse_against(args.against)

    def done(r: SideBySide) -> None:
        if r.skipped is not None:
            progress(f"{r.workload}: skipped: {r.skipped}")
        elif r.ratio is not None:
            progress(f"{r.workload}: {r.ratio:.2f}x Go's pods per CPU second")

    results = run_against([w.name for w in workloads], release=release, scale=args.scale, options=options,
                          repeat=args.repeat, parallel=not args.no_go_parallel, isolate=not args.no_isolate,
                          progress=progress, on_result=done)
    machine = machine_info()
    print(format_against(results))
    print(f"\nmachine: Python {machine['python']}, {machine['platform']}, {machine['cpu_count']} CPUs, "
          f"load {machine['load_average']}; scale {args.scale:g}; runs {args.repeat}")
    print(against_line(results, release))
    if args.json:
        record = against_record(results, release, {**vars(args), "workloads": [w.name for w in workloads]},
                                machine)
        _write_json(args.json, record)
    return 0


def skippy_main(argv: Sequence[str]) -> int:
    """``python -m schedframe.bench skippy``: the side-by-side comparison with skippy-core."""
    from ._skippy import format_comparison, run_comparison, skippy_available

    p = argparse.ArgumentParser(
        prog="python -m schedframe.bench skippy",
        description="skippy-core, schedframe with NodeResourcesFit only and schedframe's default profile "
                    "on the same seeded work (5,000 nodes of 32 CPU/128Gi, 3,000 pods of mixed sizes, "
                    "adaptive percentage of nodes to score), back to back in this process.")
    p.add_argument("--scale", type=float, default=1.0, metavar="F", help="multiply node and pod counts by F")
    p.add_argument("--repeat", type=int, default=3, metavar="N", help="rounds (default 3; medians reported)")
    p.add_argument("--json", metavar="PATH", help="write the result as JSON to PATH ('-': stdout)")
    p.add_argument("-q", "--quiet", action="store_true", help="no progress on stderr")
    args = p.parse_args(argv)
    if args.scale <= 0:
        p.error(f"--scale must be > 0, got {args.scale}")
    if args.repeat < 1:
        p.error(f"--repeat must be >= 1, got {args.repeat}")
    reason = skippy_available()
    if reason is not None:
        print(f"skipped the skippy comparison: {reason}", file=sys.stderr)
        return 0

    def progress(msg: str) -> None:
        if not args.quiet:
            print(f"[bench] {msg}", file=sys.stderr, flush=True)

    try:
        result = run_comparison(scale=args.scale, repeat=args.repeat, progress=progress)
    except SchedframeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(format_comparison(result))
    if args.json:
        record = {"schema": "schedframe-bench-skippy/1", "machine": machine_info(), **result}
        _write_json(args.json, record)
    return 0
