"""Run schedframe's benchmark suite: the same as ``python -m schedframe.bench`` (see --help).

    python benchmarks/run.py SchedulingBasic/5000Nodes_10000Pods --json results.json
    python benchmarks/run.py --scale 0.01            # every workload at 1%, in a minute
"""

from __future__ import annotations

import sys

from schedframe.bench import main

if __name__ == "__main__":
    sys.exit(main())
