"""The physical floor of a scheduling cycle in pure Python: what visiting a node costs when a
plugin does nothing but read the node's numbers.

For each cluster size, the MixedShapes nodes of ``python -m schedframe.bench`` are put in a
snapshot and visited as the scheduler visits them: a round-robin window of
``numFeasibleNodesToFind`` nodes per pod (adaptive ``percentageOfNodesToScore``), each node's
flat resource row read and compared once (the least a resource Filter does). Prints CPU
nanoseconds per node visited and per pod, for comparison with the cost growth series
(``python -m schedframe.bench series``)::

    python benchmarks/node_floor.py                  # 1,000 to 50,000 nodes
    python benchmarks/node_floor.py --nodes 5000 --pods 2000
"""

from __future__ import annotations

import argparse
import time

from schedframe.bench._realistic import mixed_series_workloads
from schedframe.cache import Snapshot


def visited_per_pod(num_nodes: int) -> int:
    """Upstream ``numFeasibleNodesToFind`` with the adaptive percentage (all nodes feasible)."""
    if num_nodes < 100:
        return num_nodes
    pct = max(50 - num_nodes // 125, 5)
    return max(num_nodes * pct // 100, 100)


def floor(num_nodes: int, pods: int) -> tuple[float, int]:
    """CPU nanoseconds per node visited, and nodes visited per pod."""
    make = mixed_series_workloads()[0].nodes[0].make
    nodes = list(Snapshot.from_objects([make(i) for i in range(num_nodes)]).list())
    k = visited_per_pod(num_nodes)
    start = 0
    passed = 0
    t0 = time.process_time()
    for _ in range(pods):
        end = start + k
        window = nodes[start:end] if end <= num_nodes else nodes[start:] + nodes[:end - num_nodes]
        for ni in window:
            row = ni.resource_row
            if row[0] >= 100 and row[1] >= 1 << 20 and len(ni.pods) < row[3]:
                passed += 1
        start = end % num_nodes
    seconds = time.process_time() - t0
    assert passed >= 0
    return seconds * 1e9 / (pods * k), k


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--nodes", type=int, action="append", help="cluster sizes (repeatable)")
    parser.add_argument("--pods", type=int, default=500, help="pods per size (default 500)")
    args = parser.parse_args()
    print(f"{'nodes':>7}  {'visited/pod':>11}  {'ns/node':>8}  {'us/pod':>8}")
    for n in args.nodes or (1000, 5000, 10000, 50000):
        ns, k = floor(n, args.pods)
        print(f"{n:>7}  {k:>11}  {ns:>8.0f}  {ns * k / 1000:>8.1f}")


if __name__ == "__main__":
    main()
