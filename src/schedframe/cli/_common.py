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
    and become one line on stderr and :data:`EXIT_INPUT` in :func:`run_command` (an error listing
    several problems, such as an invalid configuration, is a summary line and one indented line per
    problem).

Notices (an old configuration version converted: :func:`config_notes`) and progress
(:func:`status`) go to stderr, never to the output.
"""

from __future__ import annotations

import argparse
import contextlib
import contextvars
import os
import sys
import traceback
import warnings
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any, Final, Protocol

from .. import _jsonout
from .._textio import shown_path
from ..errors import FieldValidationError, SchedframeError, SchedframeWarning
from ._output import Out

if TYPE_CHECKING:
    from ..api.manifests import ValidateMode

__all__ = [
    "EXIT_INPUT",
    "EXIT_INTERRUPTED",
    "EXIT_OK",
    "EXIT_PENDING",
    "EXIT_USAGE",
    "PASSTHROUGH",
    "CliInputError",
    "Command",
    "add_validate_option",
    "config_notes",
    "dump_json",
    "fmt_pct",
    "fmt_seconds",
    "load_cluster",
    "load_config",
    "manifest_input_error",
    "output",
    "run_command",
    "size_text",
    "status",
    "strict_json",
    "validate_options",
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
#: The reader of stdout went away (a pipe into ``head``): 128 + SIGPIPE, as a shell reports it.
EXIT_BROKEN_PIPE: Final = 141

#: The parser default a command sets to ``True`` to parse its own arguments (``args.rest``).
PASSTHROUGH: Final = "schedframe_passthrough"
#: The attribute of the parsed arguments holding the :class:`Out` of the run.
_OUT: Final = "schedframe_out"
#: The command running (``schedframe CMD: ...`` on stderr), set by :func:`run_command`.
_RUNNING: contextvars.ContextVar[str] = contextvars.ContextVar("schedframe_cli_command", default="")


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
    """Run *command* with *args*: a :class:`~schedframe.SchedframeError` or an ``OSError`` is
    reported on stderr (``schedframe CMD: error: ...``; ``--debug`` adds the traceback) and gives
    :data:`EXIT_INPUT`; Ctrl-C is one line and :data:`EXIT_INTERRUPTED`.

    An error is one line, except one listing several problems (``errors``, as
    :class:`~schedframe.ConfigurationError` and :class:`~schedframe.PluginArgsError` have): its
    summary line, then each problem (with its field path) on its own indented line."""
    name = getattr(args, "command", None) or "schedframe"
    setattr(args, _OUT, Out(stdout, plain=bool(getattr(args, "plain", False))))
    token = _RUNNING.set(name)
    try:
        with _cli_warnings(name, debug=bool(getattr(args, "debug", False))):
            return command.run(args)
    except BrokenPipeError:
        # the reader went away (``schedframe ... | head``): stop quietly, as other tools do, and
        # keep Python from complaining again when it flushes stdout at exit (only the process's
        # own stdout: a stream the caller passed in is the caller's)
        if stdout is None or stdout is sys.stdout:
            with contextlib.suppress(OSError, ValueError):
                devnull = os.open(os.devnull, os.O_WRONLY)
                os.dup2(devnull, sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except (SchedframeError, OSError) as exc:
        if getattr(args, "debug", False):
            traceback.print_exc()
        summary, problems = _error_lines(exc, validate_flag=hasattr(args, "validate"))
        print(f"schedframe {name}: error: {summary}", file=sys.stderr)
        for problem in problems:
            print(f"  {problem}", file=sys.stderr)
        return EXIT_INPUT
    except KeyboardInterrupt:
        print(f"schedframe {name}: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    finally:
        _RUNNING.reset(token)


@contextlib.contextmanager
def _cli_warnings(name: str, *, debug: bool) -> Iterator[None]:
    """schedframe's own warnings (:class:`~schedframe.SchedframeWarning`) raised while a command
    runs are shown as one line in the command's words (``schedframe CMD: warning: ...``), not in
    Python's format pointing at a source line (kept with ``--debug``); other warnings are left
    as they are. Whether a warning is shown at all is still the warnings filters' decision."""
    if debug:
        yield
        return
    previous = warnings.formatwarning

    def fmt(message: Warning | str, category: type[Warning], filename: str, lineno: int,
            line: str | None = None) -> str:
        if issubclass(category, SchedframeWarning):
            return f"schedframe {name}: warning: {_one_line(str(message))}\n"
        return previous(message, category, filename, lineno, line)

    warnings.formatwarning = fmt
    try:
        yield
    finally:
        warnings.formatwarning = previous


def _one_line(text: str) -> str:
    return " ".join(text.split())


#: The most field problems a command prints (the rest are counted).
MAX_SHOWN_PROBLEMS: Final = 20


def _field_lines(exc: FieldValidationError, validate_flag: bool) -> tuple[str, list[str]]:
    """The lines of a strict field validation failure: every problem (up to
    :data:`MAX_SHOWN_PROBLEMS`), then the way out."""
    n = len(exc.problems)
    summary = (f"{n} unknown field{'s' if n != 1 else ''} or resource name{'s' if n != 1 else ''} "
               f"for Kubernetes {exc.release} (the API server's strict field validation refuses them)")
    lines = [_one_line(str(p)) for p in exc.problems[:MAX_SHOWN_PROBLEMS]]
    if n > MAX_SHOWN_PROBLEMS:
        lines.append(f"... and {n - MAX_SHOWN_PROBLEMS} more")
    if exc.note:
        lines.append(_one_line(exc.note))
    if validate_flag:
        lines.append(f"hint: --validate=warn reads them anyway, dropping what Kubernetes {exc.release} does "
                     "not know; a dump of a newer cluster: --kubernetes-version=<its release>")
    return summary, lines


def _error_lines(exc: BaseException, *, validate_flag: bool = False) -> tuple[str, list[str]]:
    """The summary line of *exc* and its problems, one per line (none for a single problem)."""
    if isinstance(exc, FieldValidationError):
        return _field_lines(exc, validate_flag)
    text = str(exc)
    errors = getattr(exc, "errors", None)
    if isinstance(errors, list) and len(errors) > 1 and all(isinstance(e, str) for e in errors):
        at = text.find("\n  - ")  # the list the error's own message holds (schedframe.errors)
        head = _one_line(text[:at] if at >= 0 else "").rstrip(":").strip() or type(exc).__name__
        return f"{head}: {len(errors)} problems", [_one_line(e) for e in errors]
    return _one_line(text) or type(exc).__name__, []


def _command_name() -> str:
    name = _RUNNING.get()
    return f"schedframe {name}" if name else "schedframe"


@contextlib.contextmanager
def config_notes(path: str | None = None, *, within: str | None = None) -> Iterator[None]:
    """Turn the :class:`~schedframe.config.ConfigurationDeprecationWarning` of a configuration read
    inside the block (a ``v1beta2``/``v1beta3`` file converted to ``v1``) into one note on stderr
    in the command's words::

        schedframe simulate: note: old.yaml is kubescheduler.config.k8s.io/v1beta3, converted to v1;
        run `schedframe config convert old.yaml` to update it

    (one line on stderr).

    *path* is the configuration file read in the block; *within*, a file holding configurations
    (a scenario). Other warnings go on as they were.

    .. versionadded:: 0.1.0
    """
    from ..config._versions import ConfigurationDeprecationWarning

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", ConfigurationDeprecationWarning)
        yield
    shown: set[str] = set()
    for w in caught:
        if not issubclass(w.category, ConfigurationDeprecationWarning):
            warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
            continue
        version = getattr(w.message, "api_version", "") or "a deprecated version"
        if path is not None:
            note = (f"{path} is {version}, converted to v1; run `schedframe config convert {path}` "
                    "to update it")
        else:
            where = f"a configuration in {within}" if within is not None else "a configuration"
            note = (f"{where} is {version}, converted to v1; update it to v1 "
                    "(`schedframe config convert FILE` prints a configuration file as v1)")
        if note not in shown:
            shown.add(note)
            print(f"{_command_name()}: note: {note}", file=sys.stderr)


@contextlib.contextmanager
def status(out: Out | None, message: str) -> Iterator[Callable[[str], None]]:
    """A rich spinner with *message* on stderr while the block runs, when stderr is a terminal,
    rich is installed and the output is not ``--plain``; nothing otherwise. It disappears at the
    end (the output never has it). The block gets a function that changes the message (which
    does nothing without a spinner).

    .. versionadded:: 0.1.0
    """
    if (out is not None and not out.rich) or not _stderr_is_terminal():
        yield _no_update
        return
    try:
        from rich.console import Console
    except ImportError:  # pragma: no cover - rich is in the cli extra
        yield _no_update
        return
    spinner = Console(stderr=True).status(message)
    with spinner:
        yield getattr(spinner, "update", _no_update)


def _no_update(message: str) -> None:
    """What :func:`status` yields when no spinner is shown."""


def _stderr_is_terminal() -> bool:
    try:
        return sys.stderr.isatty()
    except (AttributeError, ValueError):
        return False


def size_text(path: str) -> str:
    """``50 MB``, ``3 files``: the size of the file or directory *path* for a status message."""
    try:
        if os.path.isdir(path):
            n = sum(len(files) for _, _, files in os.walk(path))
            return f"{n} file{'s' if n != 1 else ''}"
        size = float(os.path.getsize(path))
    except OSError:
        return "?"
    for unit in ("bytes", "KB", "MB", "GB"):
        if size < 1024 or unit == "GB":
            return f"{size:.0f} {unit}" if unit == "bytes" else f"{size:.1f} {unit}"
        size /= 1024
    return "?"  # pragma: no cover


def add_release_options(p: argparse.ArgumentParser) -> None:
    """``--kubernetes-version`` and ``--feature-gates``: the kube-scheduler release a command
    emulates (read back with :func:`release_option`)."""
    from ..framework.releases import NEWEST_RELEASE, SUPPORTED_RELEASES

    p.add_argument("--kubernetes-version", metavar="1.MINOR", default=None,
                   help=f"emulate this kube-scheduler release: its default plugins, feature-gate "
                        f"defaults and behaviour ({SUPPORTED_RELEASES[0]} to {SUPPORTED_RELEASES[-1]}; "
                        f"default {NEWEST_RELEASE})")
    p.add_argument("--feature-gates", metavar="NAME=BOOL,...", default=None,
                   help="kube-scheduler feature gates, as kube-scheduler's flag: "
                        "'SchedulerQueueingHints=false,...'")


VALIDATE_CHOICES: Final = ("strict", "warn", "ignore")


def add_validate_option(p: argparse.ArgumentParser) -> None:
    """``--validate``: what to do with manifest fields the emulated release does not know."""
    p.add_argument("--validate", choices=VALIDATE_CHOICES, default="strict",
                   help="manifest fields and resource names the emulated Kubernetes release does not "
                        "know (misspelled, or of a newer release): refuse them (strict, the default, as "
                        "the API server and kubectl), warn and drop them, or drop them silently (ignore)")


def validate_options(args: argparse.Namespace) -> dict[str, Any]:
    """``validate=`` and ``kubernetes_version=`` for :func:`~schedframe.load_manifests` from
    ``--validate`` and ``--kubernetes-version``."""
    return {"validate": getattr(args, "validate", "strict"),
            "kubernetes_version": release_option(args).version}


def release_option(args: argparse.Namespace) -> Any:
    """The ``schedframe.ReleaseProfile`` that :func:`add_release_options`' flags give."""
    from ..framework.releases import release_profile

    return release_profile(getattr(args, "kubernetes_version", None), getattr(args, "feature_gates", None),
                           paths=("--kubernetes-version", "--feature-gates"))


def load_config(path: str, release: Any = None) -> Any:
    """The ``KubeSchedulerConfiguration`` file *path* (:meth:`schedframe.SchedulerConfiguration.from_file`:
    a regular UTF-8 file, size-capped; the errors name the file), read for *release* (a
    ``ReleaseProfile``; default the newest). An old version converted to v1 is a note on stderr
    (:func:`config_notes`)."""
    from ..config.configuration import SchedulerConfiguration

    with config_notes(path):
        return SchedulerConfiguration.from_file(path, kubernetes_version=release)


def manifest_input_error(path: str, exc: Exception) -> CliInputError:
    """The one line for a manifest file that cannot be read: a read error names the file
    already; a field error is placed by the file."""
    return CliInputError(str(exc) if repr(path) in str(exc) else f"{path}: {exc}")


def load_cluster(path: str, flag: str, out: Out | None = None, *, validate: ValidateMode = "strict",
                 kubernetes_version: str | None = None) -> list[Any]:
    """The objects of the manifest file or directory *path* given as *flag*; at least one Node.
    A spinner (:func:`status`) says what is read meanwhile. *validate* and *kubernetes_version*
    are :func:`~schedframe.load_manifests`' (see :func:`validate_options`); a strict failure is
    raised as it is (every problem, see :func:`run_command`)."""
    from pathlib import Path

    from ..api.manifests import load_manifests
    from ..api.objects import Node
    from ..errors import ManifestError

    if not os.path.exists(path):
        raise CliInputError(f"{path}: no such file ({flag})")
    try:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            with status(out, f"reading {path} ({size_text(path)})…") as update:
                def progress(done: int, total: int) -> None:
                    if callable(update):
                        update(f"reading {path}: {done:,} of {total:,} objects…")

                objects = load_manifests(Path(path), progress=progress, validate=validate,
                                         kubernetes_version=kubernetes_version)
    except FieldValidationError:
        raise
    except ManifestError as exc:
        raise manifest_input_error(path, exc) from None
    if not any(isinstance(o, Node) for o in objects):
        found = f"{len(objects)} object(s)" if objects else "no object it reads"
        skipped = "".join(f"; {w.message}" for w in caught)
        raise CliInputError(f"the cluster {shown_path(path)} ({flag}) has no Node ({found}){skipped}")
    for w in caught:
        warnings.warn_explicit(w.message, w.category, w.filename, w.lineno)
    return objects


def strict_json(data: Any, *, indent: int | None = 2) -> str:
    """*data* as JSON text that every JSON reader accepts: a NaN or an infinity (which Python's
    ``json`` would write as ``NaN``/``Infinity``, not JSON) is a :class:`CliInputError` naming
    where it is, raised before anything is written."""
    try:
        return _jsonout.dumps(data, indent=indent, default=str)
    except _jsonout.NonFiniteJSONError as exc:
        raise CliInputError(f"the JSON output would hold {exc.value!r} at {exc.path}, which "
                            f"JSON cannot hold; nothing was written") from None


def dump_json(data: Any, stream: Any) -> None:
    """*data* as indented strict JSON and a newline (:func:`strict_json`)."""
    stream.write(strict_json(data) + "\n")


def fmt_seconds(value: float | None) -> str:
    """``1,234.5s``, or ``-`` for nothing."""
    return "-" if value is None else f"{value:,.1f}s"


def fmt_pct(value: float) -> str:
    """A fraction as a whole percentage."""
    return f"{100 * value:.0f}%"
