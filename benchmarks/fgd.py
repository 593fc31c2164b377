"""Time one FGD-paper run on the openb trace (the issue's speed target: FGD on the default trace
in at most 60 s on one core; the authors' Go artefact took 40 minutes on the same machine).

    python benchmarks/fgd.py                      # FGD, seed 42, default trace
    python benchmarks/fgd.py --policy BestFit --pods openb_pod_list_gpushare40.csv

The trace is read from $SCHEDFRAME_OPENB or <repo>/../shared/openb. Prints wall and CPU seconds,
the tasks placed and the allocation at 100 % arrived.
"""

from __future__ import annotations

import argparse
import json
import os
import pathlib
import time

from schedframe.gpushare import read_nodes, read_tasks, run_experiment

REPO = pathlib.Path(__file__).resolve().parents[1]


def openb_dir() -> pathlib.Path:
    """``$SCHEDFRAME_OPENB`` or ``<repo>/../shared/openb``."""
    env = os.environ.get("SCHEDFRAME_OPENB")
    return pathlib.Path(env) if env else REPO.parent / "shared" / "openb"


def main() -> None:
    """Parse the options, run, print one JSON line."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--policy", default="FGD")
    parser.add_argument("--seed", type=int, default=42)
    parser.add_argument("--pods", default="openb_pod_list_default.csv")
    parser.add_argument("--profile", action="store_true", help="print the top of a cProfile")
    args = parser.parse_args()
    base = openb_dir()
    nodes = read_nodes(base / "openb_node_list_gpu_node.csv")
    tasks = read_tasks(base / args.pods)
    cpu0 = time.process_time()
    if args.profile:
        import cProfile
        import pstats

        prof = cProfile.Profile()
        result = prof.runcall(run_experiment, nodes, tasks, args.policy, seed=args.seed)
        pstats.Stats(prof).sort_stats("tottime").print_stats(20)
    else:
        result = run_experiment(nodes, tasks, args.policy, seed=args.seed)
    cpu = time.process_time() - cpu0
    print(json.dumps({"policy": result.policy, "seed": result.seed, "trace": args.pods,
                      "tasks": result.tasks, "scheduled": result.scheduled,
                      "wall_seconds": result.seconds, "cpu_seconds": round(cpu, 2),
                      "ms_per_task": round(1000 * cpu / result.tasks, 3),
                      "alloc_pct_at_100": result.alloc_pct[100]}))


if __name__ == "__main__":
    main()
