"""``schedframe gpushare run``: one FGD-paper experiment on the openb trace.

:func:`add_arguments` fills a parser (``python -m schedframe.gpushare`` and the ``schedframe``
command mount it); :func:`run` runs it and prints the result, as one JSON object with ``--json``.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from typing import Any

from ..errors import SchedframeError
from .experiment import POLICIES, run_experiment
from .openb import read_nodes, read_tasks

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
    p.add_argument("--tune", type=float, default=1.3,
                   help="total GPU request over GPU capacity after tuning; <= 0: none (default 1.3)")
    p.add_argument("--limit", type=int, default=None, help="read only the first N tasks")
    p.add_argument("--ties", choices=("order", "random"), default="order",
                   help="tie-breaking between best nodes: a seeded fixed node order, as the FGD "
                        "artefact (default), or uniformly at random per cycle, as kube-scheduler")
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.add_argument("--progress", action="store_true", help="show progress on stderr (needs rich)")


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
    """Run the experiment *args* describe; prints the result; returns the exit status."""
    try:
        nodes = read_nodes(args.nodes)
        tasks = read_tasks(args.pods, limit=args.limit)
        report: Callable[[int, int], None] | None = None
        stop: Callable[[], None] | None = None
        if args.progress:
            report, stop = _progress_bar()
        try:
            result = run_experiment(nodes, tasks, args.policy, seed=args.seed, tune=args.tune, ties=args.ties,
                                    trace=os.path.splitext(os.path.basename(args.pods))[0],
                                    progress=report)
        finally:
            if stop is not None:
                stop()
    except SchedframeError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    out: dict[str, Any] = result.to_dict()
    if args.json:
        print(json.dumps(out))
    else:
        at100 = result.alloc_pct[100] if len(result.alloc_pct) > 100 else None
        print(f"{result.policy} seed={result.seed} trace={result.trace}: {result.scheduled}/{result.tasks} "
              f"tasks placed, GPU allocation {result.final_alloc_pct:.2f}% at the end, "
              f"{'-' if at100 is None else f'{at100:.2f}%'} when 100% had arrived ({result.seconds:.1f} s)")
    return 0


def main(argv: list[str] | None = None) -> int:
    """``python -m schedframe.gpushare``."""
    parser = argparse.ArgumentParser(prog="python -m schedframe.gpushare",
                                     description="GPU sharing and the FGD paper's experiments.")
    add_arguments(parser)
    return run(parser.parse_args(argv))
