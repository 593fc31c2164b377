"""``schedframe``: the command line (argparse; rich and matplotlib when their extras are
installed). Every command is a thin layer over a library call and has ``--json``.

This module only assembles the parser from :data:`COMMANDS` and dispatches; each command is a
module of this package with ``add_parser(subparsers)`` and ``run(args)``
(:class:`schedframe.cli._common.Command`), and exit codes and error handling are
:mod:`schedframe.cli._common`'s.

Exit codes (docs/cli.rst has them per command): 0 ok; 1 findings (``--fail-on-pending`` and pods
stay pending, a sweep run failed); 2 for usage and input errors (one line naming the file and
field; ``--debug`` shows the traceback); 3 ``plan`` not verified; 130 interrupted (Ctrl-C, one
line); 141 the reader of the output went away (``| head``), silently, ``--help`` included.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from . import bench, config, explain, gpushare, import_, plan, plugins, replay, run, simulate, sweep
from ._common import (
    EXIT_BROKEN_PIPE,
    EXIT_INPUT,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_PENDING,
    PASSTHROUGH,
    Command,
    run_command,
)

if TYPE_CHECKING:
    from _typeshed import SupportsWrite

__all__ = [
    "COMMANDS",
    "EXIT_BROKEN_PIPE",
    "EXIT_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PENDING",
    "build_parser",
    "main",
]

#: The command modules, in help order: the one list a new command is added to.
COMMANDS: Final[tuple[Command, ...]] = (
    simulate, replay, explain, plan, plugins, sweep, config, bench, gpushare, run, import_,
)

_COMMAND: Final = "schedframe_command"


def build_parser() -> argparse.ArgumentParser:
    """The ``schedframe`` argument parser."""
    from .. import __version__

    parser = _Parser(
        prog="schedframe",
        description="The Kubernetes scheduling framework in Python: simulate clusters, "
        "explain placements, check configurations.",
    )
    parser.add_argument("--version", action="version", version=f"schedframe {__version__}")
    parser.add_argument("--debug", action="store_true", help="show tracebacks on errors")
    parser.add_argument("--plain", action="store_true", help="plain text output even when rich is installed")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for command in COMMANDS:
        command.add_parser(sub).set_defaults(**{_COMMAND: command})
    _common_flags(parser)
    return parser


class _Parser(argparse.ArgumentParser):
    """argparse's parser, except that writing help or usage to a reader that went away raises
    the ``BrokenPipeError`` (argparse drops it and exits 0) for :func:`main` to make it 141. The
    commands' parsers are of this class too (argparse makes subparsers of the parent's class)."""

    def _print_message(self, message: str, file: SupportsWrite[str] | None = None) -> None:
        if message:
            (sys.stderr if file is None else file).write(message)


def _common_flags(parser: argparse.ArgumentParser) -> None:
    """--debug and --plain are accepted after any (sub)command too."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for child in action.choices.values():
                if not child.get_default(PASSTHROUGH):  # bench passes everything on
                    child.add_argument(
                        "--debug",
                        action="store_true",
                        default=argparse.SUPPRESS,
                        help="show tracebacks on errors",
                    )
                    child.add_argument(
                        "--plain",
                        action="store_true",
                        default=argparse.SUPPRESS,
                        help="plain text output even when rich is installed",
                    )
                _common_flags(child)


def _subcommands(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


def _parse(parser: argparse.ArgumentParser, argv: list[str]) -> argparse.Namespace:
    command = next((a for a in argv if not a.startswith("-")), None)
    child = _subcommands(parser).get(command) if command is not None else None
    if child is not None and child.get_default(PASSTHROUGH):  # the rest is the command's own
        at = argv.index(command)  # type: ignore[arg-type]
        args = parser.parse_args(argv[: at + 1])
        args.rest = argv[at + 1 :]
        return args
    args = parser.parse_args(argv)
    if args.command is None:  # no command: the built-in simulation
        args = parser.parse_args([*argv, "simulate"])
    return args


def main(argv: Sequence[str] | None = None, *, stdout: Any = None) -> int:
    """Run ``schedframe`` with *argv* (default ``sys.argv[1:]``); returns the exit code."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        try:
            args = _parse(parser, args_list)
            command: Command = getattr(args, _COMMAND)
            code = run_command(command, args, stdout=stdout)
        except SystemExit as exc:  # argparse: usage errors exit 2, --help 0 (also a command's own)
            code = exc.code if isinstance(exc.code, int) else (EXIT_OK if exc.code is None else EXIT_INPUT)
        if stdout is None and code != EXIT_BROKEN_PIPE:
            sys.stdout.flush()  # what is still buffered meets a reader gone away here, not at exit
        return code
    except BrokenPipeError:
        return _reader_gone() if stdout is None or stdout is sys.stdout else EXIT_BROKEN_PIPE
    except KeyboardInterrupt:  # outside a command (while parsing)
        print("schedframe: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def _reader_gone() -> int:
    """The reader of stdout went away: stop quietly with 141, and keep Python from complaining
    again when it flushes stdout at exit."""
    with contextlib.suppress(OSError, ValueError):
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return EXIT_BROKEN_PIPE
