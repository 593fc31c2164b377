"""``schedframe gpushare``: GPU sharing, the FGD scorers and the openb experiments, exactly as
``python -m schedframe.gpushare`` (the parser and the work are :mod:`schedframe.gpushare.cli`'s)."""

from __future__ import annotations

import argparse
from typing import Any

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe gpushare`` with the subcommands :func:`schedframe.gpushare.cli.add_arguments`
    declares."""
    from ..gpushare.cli import add_arguments

    p: argparse.ArgumentParser = subparsers.add_parser(
        "gpushare", help="GPU sharing: FGD scorers and the openb experiments"
    )
    add_arguments(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Run the chosen ``gpushare`` subcommand."""
    from ..gpushare.cli import run as gpushare_run

    return gpushare_run(args)
