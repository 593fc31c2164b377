"""``python -m schedframe`` / ``schedframe``: the command line (:mod:`schedframe.cli`).

Without a command it simulates the built-in default scenario and prints a summary.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m schedframe`` / ``schedframe``; returns the exit code."""
    from .cli import main as cli_main

    return cli_main(argv)


if __name__ == "__main__":
    sys.exit(main())
