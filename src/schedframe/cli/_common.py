"""What every ``schedframe`` command shares: the command interface, exit codes, reading the
files a command is given, and turning errors into one line and an exit code.

A command is a module of this package (``schedframe.cli.<command>``) listed in
:data:`schedframe.cli.main.COMMANDS` and satisfying :class:`Command`:

``add_parser(subparsers) -> argparse.ArgumentParser``
    Add the command's parser to argparse's subparsers object and return it. A command that
    parses its own arguments (``bench``) sets the parser default :data:`PASSTHROUGH` to ``True``:
    everything after the command's name is then left in ``args.rest``.
``run(args) -> int``
    Do the work (a library call in a lower layer) and return the exit code. Human output goes
    through :func:`output` (``args`` carries it); input problems are raised as
    :class:`~schedframe.SchedframeError` (:class:`CliInputError` for the command's own checks)
    and become one line on stderr and :data:`EXIT_INPUT` in :func:`run_command`.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import traceback
import warnings
from typing import Any, Final, Protocol

from .._textio import shown_path
from ..errors import SchedframeError
from ._output import Out

__all__ = [
    "EXIT_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PENDING",
    "EXIT_USAGE",
    "PASSTHROUGH",
    "CliInputError",
    "Command",
    "dump_json",
    "fmt_pct",
    "fmt_seconds",
    "load_cluster",
    "load_config",
    "manifest_input_error",
    "output",
    "run_command",
]

#: Success.
EXIT_OK: Final = 0
#: ``--fail-on-pending`` and pods stay pending (``sweep``: a run failed).
EXIT_PENDING: Final = 1
#: A usage error (argparse) ...
EXIT_USAGE: Final = 2
#: ... and an input error (a file that cannot be read, an invalid field): the same code.
EXIT_INPUT: Final = EXIT_USAGE
#: Interrupted (Ctrl-C), as a shell reports SIGINT.
EXIT_INTERRUPTED: Final = 130

#: The parser default a command sets to ``True`` to parse its own arguments (``args.rest``).
PASSTHROUGH: Final = "schedframe_passthrough"
#: The attribute of the parsed arguments holding the :class:`Out` of the run.
_OUT: Final = "schedframe_out"


class Command(Protocol):
    """A ``schedframe`` command: a module with these two functions (see the module docstring)."""

    def add_parser(self, subparsers: Any) -> argparse.ArgumentParser:
        """Add the command's parser to *subparsers* (argparse's) and return it."""
        ...

    def run(self, args: argparse.Namespace) -> int:
        """Run the command; return the exit code."""
        ...


class CliInputError(SchedframeError, ValueError):
    """A command-line input problem found by the CLI itself (a missing file, bad combination)."""


def output(args: argparse.Namespace) -> Out:
    """Where the command writes: the :class:`Out` :func:`run_command` attached to *args*."""
    out = getattr(args, _OUT, None)
    if out is None:
        out = Out(None, plain=bool(getattr(args, "plain", False)))
        setattr(args, _OUT, out)
    return out


def run_command(command: Command, args: argparse.Namespace, *, stdout: Any = None) -> int:
    """Run *command* with *args*: a :class:`~schedframe.SchedframeError` or an ``OSError`` is one
    line on stderr (``schedframe CMD: error: ...``; ``--debug`` adds the traceback) and
    :data:`EXIT_INPUT`; Ctrl-C is one line and :data:`EXIT_INTERRUPTED`."""
    name = getattr(args, "command", None) or "schedframe"
    setattr(args, _OUT, Out(stdout, plain=bool(getattr(args, "plain", False))))
    try:
        return command.run(args)
    except (SchedframeError, OSError) as exc:
        if getattr(args, "debug", False):
            traceback.print_exc()
        message = " ".join(str(exc).split()) or type(exc).__name__
        print(f"schedframe {name}: error: {message}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print(f"schedframe {name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def load_config(path: str) -> Any:
    """The ``KubeSchedulerConfiguration`` file *path* (:meth:`SchedulerConfiguration.from_file`:
    a regular UTF-8 file, size-capped; the errors name the file)."""
    from ..config.configuration import SchedulerConfiguration

    return SchedulerConfiguration.from_file(path)


def manifest_input_error(path: str, exc: Exception) -> CliInputError:
    """The one line for a manifest file that cannot be read: a read error names the file
    already; a field error is placed by the file."""
    return CliInputError(str(exc) if repr(path) in str(exc) else f"{path}: {exc}")


def load_cluster(path: str, flag: str) -> list[Any]:
    """The objects of the manifest file or directory *path* given as *flag*; at least one Node."""
    from pathlib import Path

    from ..api.manifests import load_manifests
    from ..api.objects import Node
    from ..errors import ManifestError

    if not os.path.exists(path):
        raise CliInputError(f"{path}: no such file ({flag})")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            objects = load_manifests(Path(path))
    except ManifestError as exc:
        raise manifest_input_error(path, exc) from None
    if not any(isinstance(o, Node) for o in objects):
        found = f"{len(objects)} object(s)" if objects else "no object it reads"
        skipped = "".join(f"; {w.message}" for w in caught)
        raise CliInputError(f"the cluster {shown_path(path)} ({flag}) has no Node ({found}){skipped}")
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return objects


def dump_json(data: Any, stream: Any) -> None:
    """*data* as indented JSON and a newline."""
    json.dump(data, stream, indent=2, default=str)
    stream.write("\n")


def fmt_seconds(value: float | None) -> str:
    """``1,234.5s``, or ``-`` for nothing."""
    return "-" if value is None else f"{value:,.1f}s"


def fmt_pct(value: float) -> str:
    """A fraction as a whole percentage."""
    return f"{100 * value:.0f}%"
