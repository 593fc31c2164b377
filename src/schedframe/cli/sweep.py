"""``schedframe sweep``: a grid of runs (:mod:`schedframe.sweep`) on a process pool or Dask."""

from __future__ import annotations

import argparse
import json
import os
from collections.abc import Mapping
from typing import Any, Final

import attrs

from ..sweep import SweepResult, SweepSpec, dask_executor, load_sweep_spec, read_table, sweep
from ._common import (
    EXIT_OK,
    EXIT_PENDING,
    CliInputError,
    add_release_options,
    output,
    release_option,
    strict_json,
)

__all__ = ["BUILTIN_SWEEP", "add_parser", "run"]

#: The sweep ``schedframe sweep`` runs without a spec: the default scenario under its two
#: configurations, three seeds each.
BUILTIN_SWEEP: Final = {
    "task": "simulate",
    "grid": {"config": ["default", "bin-packing"], "seed": [1, 2, 3]},
    "fixed": {"scenario": "three-zones"},
}
#: Columns shown in the summary table when a row has them (all of them go to --out / --json).
_SHOWN: Final = ("placed", "pending", "preemptions", "wait_p99", "utilisation_mean.cpu", "value")


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe sweep``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "sweep",
        help="run a grid of simulations (or any task) in parallel: process pool or Dask",
        description="Run every run of SPEC (YAML/JSON: task, grid, fixed, runs) in parallel; without "
                    "SPEC a built-in example: the default scenario under two configurations, three "
                    "seeds each. Exit 1 when a run failed.",
    )
    p.add_argument("spec", nargs="?", help="sweep spec file (default: the built-in example)")
    where = p.add_mutually_exclusive_group()
    where.add_argument("--workers", type=int, default=None, help="local worker processes (default: cores)")
    where.add_argument("--dask", metavar="ADDRESS",
                       help="run on Dask: 'local' starts a LocalCluster, else a scheduler address "
                            "such as tcp://host:8786 (needs schedframe[distributed])")
    p.add_argument("--out", help="results file: .csv or .jsonl (streamed, resumable), .json or .parquet")
    p.add_argument("--resume", action="store_true", help="skip runs already successful in --out")
    p.add_argument("--json", action="store_true", help="print the rows as JSON")
    p.add_argument("--report", metavar="FILE.html",
                   help="write one self-contained HTML page of the sweep to FILE.html: the runs' "
                        "table (parameters, status, metrics) and a chart of a metric over the "
                        "parameters (with --resume, every run of --out)")
    add_release_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe sweep``."""
    out = output(args)
    if args.report:
        from ..sim.report import check_report_path

        check_report_path(args.report, "--report")
    if args.spec:
        spec = load_sweep_spec(args.spec)
    else:
        spec = SweepSpec.from_dict(BUILTIN_SWEEP, origin="built-in sweep")
    if args.kubernetes_version or args.feature_gates:
        release_option(args)  # refused here, once, rather than in every run
        if spec.task != "simulate":
            raise CliInputError(f"--kubernetes-version/--feature-gates apply to the simulate task, not "
                                f"{spec.task!r} (give the task its own parameter)")
        extra = {"kubernetes_version": args.kubernetes_version, "feature_gates": args.feature_gates}
        spec = attrs.evolve(spec, fixed={**spec.fixed, **{k: v for k, v in extra.items() if v}})
    if args.resume and not args.out:
        raise CliInputError("--resume needs --out (the file holding the runs already done)")
    if args.workers is not None and args.workers < 1:
        raise CliInputError(f"--workers: expected a positive number, got {args.workers}")
    show_progress = None if out.rich and not args.json else False
    if args.dask:
        executor = dask_executor(args.dask, workers=args.workers)
        try:
            result = sweep(spec, executor=executor, out=args.out, resume=args.resume, progress=show_progress)
        except BaseException:  # Ctrl-C included: cancel the runs, close without waiting for them
            executor.shutdown(wait=False, cancel_futures=True)
            raise
        executor.shutdown(wait=True)
    else:
        result = sweep(spec, workers=args.workers, out=args.out, resume=args.resume, progress=show_progress)
    rows = result.rows()
    written = _write_report(spec, result, rows, args) if args.report else []
    if args.json:
        out.stream.write(strict_json(rows, indent=1) + "\n")
    else:
        params = spec.params
        shown = [c for c in _SHOWN if any(c in r for r in rows)]
        out.table(
            f"Sweep: {len(rows)} run(s)" + (f", {result.skipped} already done" if result.skipped else ""),
            [*params, *shown, "status", "seconds"],
            [[_fmt(r.get(c, "")) for c in (*params, *shown)] + [r["status"], r["seconds"]] for r in rows],
            right=range(len(params), len(params) + len(shown) + 2),
        )
        for o in result.failed:
            out.line(f"failed: {json.dumps(dict(o.run.params))}: {o.error}")
        if args.out:
            out.line(f"results: {args.out}")
        for line in written:
            out.line(line)
    return EXIT_PENDING if result.failed else EXIT_OK


def _write_report(spec: SweepSpec, result: SweepResult, rows: list[dict[str, Any]],
                  args: argparse.Namespace) -> list[str]:
    """Write ``--report`` (before the text report) and the line saying so: the runs of this
    sweep, or with ``--resume`` every run ``--out`` holds (the last row of each, in the
    sweep's order)."""
    from ..sim.report import write_sweep_report

    if args.resume and result.skipped:
        rows = _resumed_rows(spec, read_table(args.out))
    title = f"sweep {os.path.splitext(os.path.basename(args.spec))[0]}" if args.spec else "built-in sweep"
    origin = f"the spec {args.spec}" if args.spec else "schedframe sweep's built-in example"
    size = write_sweep_report(args.report, rows, params=spec.params, title=title,
                              description=f"{origin}, task {spec.task}")
    return [f"report ({size:,} bytes) written to {args.report}"]


def _resumed_rows(spec: SweepSpec, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The last row of each run of *rows* (a resumed results file), in *spec*'s order (rows of
    runs the spec does not have last)."""
    last: dict[Any, Mapping[str, Any]] = {}
    for row in rows:
        last[row.get("run")] = row
    ordered = [dict(last.pop(run.key)) for run in spec if run.key in last]
    return ordered + [dict(r) for r in last.values()]


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3g}"
    if isinstance(value, (dict, list)):
        return json.dumps(value)
    return str(value)
