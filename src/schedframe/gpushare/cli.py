"""``schedframe gpushare run``: one FGD-paper experiment on the openb trace; ``summary`` and
``plot``: many runs' results beside the paper's.

:func:`add_arguments` fills a parser (``python -m schedframe.gpushare`` and the ``schedframe``
command mount it); :func:`run` runs the chosen subcommand and prints the result (JSON with
``--json``).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Callable
from typing import Any

from ..errors import GpuShareError, SchedframeError
from .experiment import POLICIES, run_experiment
from .openb import read_nodes, read_tasks
from .results import plot_alloc, read_results, summarise

__all__ = ["add_arguments", "main", "run"]


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Add the ``run`` subcommand and its options to *parser*."""
    sub = parser.add_subparsers(dest="gpushare_command", metavar="COMMAND")
    sub.required = True
    p = sub.add_parser("run", help="run one policy on an openb trace",
                       description="Run one FGD-paper policy on an openb trace and report the GPU "
                                   "allocation against the arrived GPU request.")
    p.add_argument("--nodes", required=True, help="node list CSV (openb_node_list_gpu_node.csv)")
    p.add_argument("--pods", required=True, help="task list CSV (openb_pod_list_*.csv)")
    p.add_argument("--policy", required=True, choices=sorted(POLICIES), help="scheduling policy")
    p.add_argument("--seed", type=int, default=42, help="seed of the shuffle, tuning and ties (default 42)")
    p.add_argument("--tune", type=_finite, default=1.3,
                   help="total GPU request over GPU capacity after tuning; <= 0: none (default 1.3)")
    p.add_argument("--limit", type=_positive, default=None, metavar="N",
                   help="schedule only the first N tasks of the workload (after the shuffle and "
                        "the tuning: the beginning of the full run)")
    p.add_argument("--ties", choices=("order", "random"), default="order",
                   help="tie-breaking between best nodes: a seeded fixed node order, as the FGD "
                        "artefact (default), or uniformly at random per cycle, as kube-scheduler")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="show progress on stderr (needs rich)")
    p = sub.add_parser("summary", help="many runs at 100%% arrived, beside the paper's figures",
                       description="Per trace and policy, the mean (min-max) over seeds of the GPU "
                                   "allocation when the arrived GPU request reached AT %% of "
                                   "capacity, beside the paper's mean over seeds 42-51.")
    p.add_argument("results", metavar="RUNS", help="JSON Lines of runs (`run --json` output)")
    p.add_argument("--at", type=int, default=100, help="%% of capacity arrived (default 100)")
    p.add_argument("--json", action="store_true", help="print a JSON list")
    p = sub.add_parser("plot", help="plot allocation against arrived request (matplotlib)",
                       description="Save the mean allocation-against-arrival curves of one trace.")
    p.add_argument("results", metavar="RUNS", help="JSON Lines of runs (`run --json` output)")
    p.add_argument("--trace", default="default", help="trace to plot (default: default)")
    p.add_argument("--out", required=True, metavar="FILE", help="image file to write (PNG, SVG...)")


def _positive(text: str) -> int:
    """``--limit``: a positive integer."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a positive integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"want a positive integer, got {value}")
    return value


def _finite(text: str) -> float:
    """``--tune``: a finite number."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"want a number, got {text!r}") from None
    if not math.isfinite(value):
        raise argparse.ArgumentTypeError(f"want a finite number, got {text!r}")
    return value


def _progress_bar() -> tuple[Callable[[int, int], None], Callable[[], None]]:
    try:
        from rich.progress import Progress
    except ImportError:  # pragma: no cover - rich is optional
        def report(done: int, total: int) -> None:
            print(f"\r{done}/{total} tasks", end="", file=sys.stderr, flush=True)

        def stop() -> None:
            print(file=sys.stderr)

        return report, stop
    bar = Progress(transient=True)
    bar.start()
    task_id = bar.add_task("scheduling", total=None)

    def update(done: int, total: int) -> None:
        bar.update(task_id, completed=done, total=total)

    return update, bar.stop


def run(args: argparse.Namespace) -> int:
    """Run the subcommand *args* describe; prints the result; returns the exit status.

    Raises:
        SchedframeError: an input that cannot be read (:func:`main` and the ``schedframe``
            command print it as one line and exit 2).
    """
    command = getattr(args, "gpushare_command", "run")
    if command == "summary":
        return _summary(args)
    if command == "plot":
        return _plot(args)
    nodes = read_nodes(args.nodes)
    tasks = read_tasks(args.pods)
    report: Callable[[int, int], None] | None = None
    stop: Callable[[], None] | None = None
    if args.progress:
        report, stop = _progress_bar()
    try:
        result = run_experiment(nodes, tasks, args.policy, seed=args.seed, tune=args.tune, ties=args.ties,
                                trace=os.path.splitext(os.path.basename(args.pods))[0],
                                progress=report, limit=args.limit)
    finally:
        if stop is not None:
            stop()
    out: dict[str, Any] = result.to_dict()
    if args.json:
        print(_json(out))
    else:
        at100 = result.alloc_pct[100] if len(result.alloc_pct) > 100 else None
        print(f"{result.policy} seed={result.seed} trace={result.trace}: {result.scheduled}/{result.tasks} "
              f"tasks placed, GPU allocation {result.final_alloc_pct:.2f}% at the end, "
              f"{'-' if at100 is None else f'{at100:.2f}%'} when 100% had arrived ({result.seconds:.1f} s)")
    return 0


def _json(value: Any) -> str:
    """*value* as strict JSON: a NaN or an infinity is an error, never a bare ``NaN``."""
    try:
        return json.dumps(value, allow_nan=False)
    except ValueError as exc:
        raise GpuShareError("json", f"the result holds a value JSON cannot carry: {exc}") from None


def _summary(args: argparse.Namespace) -> int:
    rows = summarise(read_results(args.results), at=args.at)
    if args.json:
        print(_json([r.to_dict() for r in rows]))
        return 0
    for r in rows:
        paper = "-" if r.paper is None else f"{r.paper:6.2f}"
        diff = "" if r.diff is None else f" ({r.diff:+.2f})"
        print(f"{r.trace:12s} {r.policy:14s} n={len(r.seeds):2d} ours {r.mean:6.2f} "
              f"({r.low:.2f}-{r.high:.2f})  paper {paper}{diff}")
    return 0


def _plot(args: argparse.Namespace) -> int:
    plot_alloc(read_results(args.results), args.trace, args.out)
    print(f"saved {args.out}")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m schedframe.gpushare``."""
    parser = argparse.ArgumentParser(prog="python -m schedframe.gpushare",
                                     description="GPU sharing and the FGD paper's experiments.")
    add_arguments(parser)
    args = parser.parse_args(argv)
    try:
        return run(args)
    except SchedframeError as exc:
        print(f"error: {' '.join(str(exc).split())}", file=sys.stderr)
        return 2
