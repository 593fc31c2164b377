"""Benchmarks that look like real clusters (``python -m schedframe.bench realistic`` and
``python -m schedframe.bench skippy``), from a checkout:

    python benchmarks/realistic.py                   # mixed shapes, openb, their uniform variants
    python benchmarks/realistic.py --scale 0.1
    python benchmarks/realistic.py skippy --repeat 3 # side by side with skippy-core
"""

from __future__ import annotations

import sys

from schedframe.bench import main

if __name__ == "__main__":
    args = sys.argv[1:]
    if not args or args[0].startswith("-"):
        args = ["realistic", *args]
    sys.exit(main(args))
