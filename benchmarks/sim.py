"""Simulator benchmark: a large cluster with arrivals and run times, then a replay of its log.

    python benchmarks/sim.py                       # 5,000 nodes, 50,000 pods (target: <= 60 s on one core)
    python benchmarks/sim.py --nodes 500 --pods 5000 --json out.json

Each phase runs in a fresh process so its peak memory (max RSS) is its own:

* ``run``: build the scenario (``schedframe.sim.large_scenario``), simulate it, write the event log;
* ``run-nolog``: the same without the log;
* ``replay``: read the log and run it again (checked equal to the run's metrics).

Reported per phase: wall and CPU seconds, time inside ``Scheduler.schedule_one`` and the share the
simulator loop adds on top (of the wall time, and of the simulation's CPU time: the fair one on a
busy machine), scheduling cycles per second, pods placed / pending, peak RSS.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from typing import Any

#: The Scheduler's informer-side methods the simulator calls (as an informer would on a cluster):
#: their time is the scheduler's own work on arrivals and departures, reported apart.
_HANDLERS = ("add_pod", "update_pod", "remove_pod", "add_node", "update_node", "remove_node")


def _time_handlers() -> dict[str, float]:
    """Wrap the Scheduler's event handlers to add their time up (in this child process), read
    from the performance counter: the process CPU clock is a system call, whose cost here would
    be counted in the run's CPU time."""
    from schedframe import Scheduler

    spent = {"handlers_s": 0.0}
    clock = time.perf_counter
    for name in _HANDLERS:
        orig = getattr(Scheduler, name)

        def timed(self: Any, *args: Any, _orig: Any = orig, **kwargs: Any) -> Any:
            t = clock()
            try:
                return _orig(self, *args, **kwargs)
            finally:
                spent["handlers_s"] += clock() - t

        setattr(Scheduler, name, timed)
    return spent


def _phase(phase: str, nodes: int, pods: int, rate: float, log: str) -> dict[str, Any]:
    from schedframe.sim import large_scenario, replay, simulate

    spent = _time_handlers()

    wall0, cpu0 = time.perf_counter(), time.process_time()
    if phase == "replay":
        result = replay(log)
    else:
        scenario = large_scenario(nodes, pods, rate=rate)
        result = simulate(scenario, log=log if phase == "run" else None)
    wall, cpu = time.perf_counter() - wall0, time.process_time() - cpu0
    m, perf = result.metrics, result.perf
    return {
        "phase": phase,
        "nodes": nodes,
        "pods": pods,
        "wall_s": round(wall, 2),
        "cpu_s": round(cpu, 2),
        "schedule_one_s": round(perf.schedule_seconds, 2),
        "sim_loop_s": round(perf.wall_seconds - perf.schedule_seconds, 2),
        "sim_loop_share": round((perf.wall_seconds - perf.schedule_seconds) / perf.wall_seconds, 3),
        "sim_cpu_s": round(perf.cpu_seconds, 2),
        "schedule_one_cpu_s": round(perf.schedule_cpu_seconds, 2),
        "sim_loop_cpu_share": round(1 - perf.schedule_cpu_seconds / perf.cpu_seconds, 3)
        if perf.cpu_seconds > 0 else 0.0,
        # the scheduler's event handlers (timed with wrappers, which add a little), and what is
        # left: the simulator's own code (events, pod creation, bookkeeping, samples, the log)
        "handlers_s": round(spent["handlers_s"], 2),
        "sim_own_share": round(
            (perf.wall_seconds - perf.schedule_seconds - spent["handlers_s"]) / perf.wall_seconds, 3)
        if perf.wall_seconds > 0 else 0.0,
        "cycles_per_s": round(perf.cycles_per_second),
        "attempts": m.attempts,
        "placed": m.placed,
        "pending": m.pending,
        "completed": m.completed,
        "simulated_s": round(m.end, 1),
        "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "metrics": m.to_dict(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--nodes", type=int, default=5000)
    p.add_argument("--pods", type=int, default=50000)
    p.add_argument("--rate", type=float, default=500.0, help="arrivals per simulated second (default 500)")
    p.add_argument("--phases", default="run,replay,run-nolog", help="comma-separated (default: all three)")
    p.add_argument("--json", metavar="PATH", help="also write the records as JSON")
    p.add_argument("--phase", help=argparse.SUPPRESS)
    p.add_argument("--log", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.phase:  # the child process
        print(json.dumps(_phase(args.phase, args.nodes, args.pods, args.rate, args.log)))
        return 0
    records = []
    with tempfile.TemporaryDirectory() as tmp:
        log = os.path.join(tmp, "run.jsonl")
        for phase in args.phases.split(","):
            out = subprocess.run(
                [
                    sys.executable,
                    __file__,
                    "--phase",
                    phase,
                    "--nodes",
                    str(args.nodes),
                    "--pods",
                    str(args.pods),
                    "--rate",
                    str(args.rate),
                    "--log",
                    log,
                ],
                check=True,
                capture_output=True,
                text=True,
            )
            rec = json.loads(out.stdout.strip().splitlines()[-1])
            if phase == "run":
                rec["log_mib"] = round(os.path.getsize(log) / 2**20, 1)
            records.append(rec)
            print(
                f"{phase:<10} wall {rec['wall_s']:>7.2f}s  cpu {rec['cpu_s']:>7.2f}s  "
                f"schedule_one {rec['schedule_one_s']:>7.2f}s  loop {rec['sim_loop_s']:>6.2f}s "
                f"({100 * rec['sim_loop_share']:.0f}% of wall, "
                f"{100 * rec['sim_loop_cpu_share']:.0f}% of CPU; handlers {rec['handlers_s']:.2f}s, "
                f"simulator's own {100 * rec['sim_own_share']:.0f}%)  "
                f"{rec['cycles_per_s']:>6,} cycles/s  "
                f"placed {rec['placed']:,} pending {rec['pending']:,}  peak {rec['peak_rss_mib']:.0f} MiB",
                flush=True,
            )
    by = {r["phase"]: r for r in records}
    if "run" in by and "replay" in by:
        same = by["run"]["metrics"] == by["replay"]["metrics"]
        print(
            f"replay identical: {same}; replay/run wall: {by['replay']['wall_s'] / by['run']['wall_s']:.2f}"
        )
    if args.json:
        with open(args.json, "w", encoding="utf-8") as fh:
            json.dump({"load_average": os.getloadavg(), "records": records}, fh, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
