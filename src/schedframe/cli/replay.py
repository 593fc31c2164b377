"""``schedframe replay``: an event log run again, alone or under other configurations
(:func:`schedframe.sim.replay`)."""

from __future__ import annotations

import argparse
import os
from typing import Any

from ._common import EXIT_INPUT, EXIT_OK, EXIT_PENDING, CliInputError, dump_json, load_config, output
from ._inputs import add_config_option
from .simulate import (
    add_decisions_options,
    add_outcome_options,
    add_report_option,
    decisions_option,
    foreign_pods_error,
    report_option,
    simulate_report,
    write_decisions,
    write_report_file,
)

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe replay``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "replay",
        help="run a recorded event log again, or under other configurations",
        description="Run an event log written by `simulate --log` again: the recorded cluster, "
        "arrivals, run times, node events and seed give the identical result, checked against "
        "the log's end line. With --config, the same recorded inputs also run under each "
        "configuration, side by side (a what-if on a recorded workload).",
    )
    p.add_argument("log", metavar="LOG", help="an event log (JSON Lines) from `simulate --log`")
    add_config_option(p, many=True,
                      help="also run the recorded inputs under this KubeSchedulerConfiguration (repeatable)")
    p.add_argument(
        "--no-check", action="store_true", help="do not compare the metrics with the logged run's"
    )
    p.add_argument("--json", action="store_true", help="print the results as JSON")
    add_outcome_options(p, plot_help="save plots (as simulate --plot)")
    add_decisions_options(p)
    add_report_option(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe replay``."""
    out = output(args)
    from ..sim import moved_pods, read_log, replay

    if not os.path.exists(args.log):
        raise CliInputError(f"{args.log}: no such event log")
    recording = report_option(args, decisions_option(args))  # every output file checked first
    plan, _, recorded_name, seed, _ = read_log(args.log)
    configs = [
        (os.path.splitext(os.path.basename(f))[0], load_config(f)) for f in args.config
    ]
    taken = {recorded_name}
    named = []
    for name, config in configs:
        base, n = name, 2
        while name in taken:  # keep rows and MOVED columns apart
            name, n = f"{base}-{n}", n + 1
        taken.add(name)
        named.append((name, config))
    results = []
    with out.progress(f"replay / {recorded_name}", enabled=not args.json) as update:
        results.append(
            replay(args.log, check=not args.no_check, explain=args.explain, progress=update,
                   decisions=recording)
        )
    for name, config in named:
        with out.progress(f"replay / {name}", enabled=not args.json) as update:
            results.append(
                replay(args.log, explain=args.explain, progress=update, config=config, config_name=name,
                       decisions=recording)
            )
    moved = moved_pods(results) if len(results) > 1 else {}
    about = argparse.Namespace(name=results[0].scenario, description=f"replay of {args.log}")
    written = write_decisions(results, args) + write_report_file(about, plan, results, args)
    checked = not args.no_check
    if args.json:
        dump_json(
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
        simulate_report(out, label, results, moved, argparse.Namespace(seed=seed, pods=args.pods))
        if checked:
            out.line(f"{recorded_name}: the replay's metrics equal the logged run's")
    if args.plot:
        from ._plot import plot_results

        plot_results(results, args.plot)
        if not args.json:
            out.line(f"plots saved to {args.plot}")
    if not args.json:
        for line in written:
            out.line(line)
    if foreign_pods_error("replay", results, args.allow_foreign_pods):
        return EXIT_INPUT
    if args.fail_on_pending and any(r.metrics.pending for r in results):
        return EXIT_PENDING
    return EXIT_OK


