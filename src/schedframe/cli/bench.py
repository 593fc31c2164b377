"""``schedframe bench``: the benchmark suite, exactly as ``python -m schedframe.bench``
(:func:`schedframe.bench.main` parses its own arguments: ``schedframe bench --help``)."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import PASSTHROUGH

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe bench``; everything after ``bench`` is the suite's own command line."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "bench", help="run the benchmark suite (schedframe.bench; `bench --help`)", add_help=False
    )
    p.add_argument("rest", nargs=argparse.REMAINDER)
    p.set_defaults(**{PASSTHROUGH: True})
    return p


def run(args: argparse.Namespace) -> int:
    """Run the benchmark suite with ``args.rest``."""
    from ..bench import main as bench_main

    return bench_main(list(args.rest))
