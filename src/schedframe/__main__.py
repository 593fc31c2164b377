"""``python -m schedframe`` / ``schedframe``: the command line (:mod:`schedframe.cli`).

Without a command it simulates the built-in default scenario and prints a summary.
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

#: the exit code of an interrupt (128 + SIGINT), as :mod:`schedframe.cli` returns it
_EXIT_INTERRUPTED = 130


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``python -m schedframe`` / ``schedframe``; returns the exit code."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        from .cli import main as cli_main

        return cli_main(args)
    except KeyboardInterrupt:  # Ctrl-C while the command line is imported or its parser built
        word = next((a for a in args if not a.startswith("-")), None)
        print(f"schedframe {word}: interrupted" if word else "schedframe: interrupted", file=sys.stderr)
        return _EXIT_INTERRUPTED


if __name__ == "__main__":
    sys.exit(main())
