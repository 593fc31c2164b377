"""Run schedframe's soak: the same as ``python -m schedframe.bench soak`` (see --help).

    python benchmarks/soak.py --minutes 20 --json soak.json     # 300 nodes, 20 minutes
    python benchmarks/soak.py --minutes 1 --nodes 50            # a quick look
"""

from __future__ import annotations

import sys

from schedframe.bench import main

if __name__ == "__main__":
    sys.exit(main(["soak", *sys.argv[1:]]))
