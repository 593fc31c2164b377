"""Run the FGD paper's policies over seeds and openb traces, one JSON line per run (resumable),
and summarise the allocation at 100 % arrived GPU request against the paper's figures.

    python benchmarks/gpushare_sweep.py run --out runs.jsonl --traces default --seeds 42-51
    python benchmarks/gpushare_sweep.py run --out runs.jsonl --traces cpu200,gpushare40 --seeds 42-43
    python benchmarks/gpushare_sweep.py summary --out runs.jsonl
    python benchmarks/gpushare_sweep.py plot --out runs.jsonl --png alloc.png   # needs matplotlib

The paper's figures (schedframe.gpushare.PAPER_ALLOC_AT_100) are the means over seeds 42-51 of
the authors' published results (hkust-adsl/kubernetes-scheduler-simulator,
experiments/analysis/expected_results/analysis_allo_discrete.csv, column 100). The same summary
and plot: `schedframe gpushare summary runs.jsonl`, `schedframe gpushare plot runs.jsonl --out a.png`.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import sys

from schedframe.gpushare import (
    POLICY_ORDER,
    plot_alloc,
    read_nodes,
    read_results,
    read_tasks,
    run_experiment,
    summarise,
)

REPO = pathlib.Path(__file__).resolve().parents[1]


def openb_dir() -> pathlib.Path:
    """``$SCHEDFRAME_OPENB`` or ``<repo>/../shared/openb``."""
    env = os.environ.get("SCHEDFRAME_OPENB")
    return pathlib.Path(env) if env else REPO.parent / "shared" / "openb"


def _seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        out.extend(range(int(lo), int(hi or lo) + 1))
    return out


def run(args: argparse.Namespace) -> None:
    """Run every missing (trace, seed, policy), appending to --out."""
    out = pathlib.Path(args.out)
    done = {(r["trace"], r["seed"], r["policy"]) for r in (read_results(out) if out.exists() else [])}
    base = openb_dir()
    nodes = read_nodes(base / "openb_node_list_gpu_node.csv")
    policies = args.policies.split(",") if args.policies else list(POLICY_ORDER)
    for trace in args.traces.split(","):
        tasks = read_tasks(base / f"openb_pod_list_{trace}.csv")
        for seed in _seeds(args.seeds):
            for policy in policies:
                if (trace, seed, policy) in done:
                    continue
                result = run_experiment(nodes, tasks, policy, seed=seed, tune=1.3, trace=trace,
                                        ties=args.ties)
                with out.open("a") as f:
                    f.write(json.dumps(result.to_dict()) + "\n")
                print(f"{trace} {seed} {policy}: {result.alloc_pct[100]} ({result.seconds:.0f} s)",
                      file=sys.stderr, flush=True)


def summary(args: argparse.Namespace) -> None:
    """Print, per trace and policy, our mean at 100 % beside the paper's."""
    for r in summarise(read_results(args.out)):
        paper = "-" if r.paper is None else f"{r.paper:.2f}"
        diff = "" if r.diff is None else f"{r.diff:+.2f}"
        print(f"{r.trace:12s} {r.policy:14s} n={len(r.seeds):2d} ours={r.mean:6.2f} "
              f"({r.low:.2f}-{r.high:.2f}) paper={paper} diff={diff}")


def plot(args: argparse.Namespace) -> None:
    """Plot the mean allocation against the arrived request per policy (matplotlib)."""
    plot_alloc(read_results(args.out), args.trace, args.png)


def main() -> None:
    """Dispatch the subcommand."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("run")
    p.add_argument("--out", required=True)
    p.add_argument("--traces", default="default")
    p.add_argument("--seeds", default="42-51")
    p.add_argument("--policies", default="")
    p.add_argument("--ties", default="order", choices=("order", "random"))
    p = sub.add_parser("summary")
    p.add_argument("--out", required=True)
    p = sub.add_parser("plot")
    p.add_argument("--out", required=True)
    p.add_argument("--trace", default="default")
    p.add_argument("--png", required=True)
    args = parser.parse_args()
    {"run": run, "summary": summary, "plot": plot}[args.cmd](args)


if __name__ == "__main__":
    main()
