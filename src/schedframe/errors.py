"""Exceptions schedframe raises on purpose.

Every exception raised deliberately derives from :class:`SchedframeError` and from the builtin a
caller would naturally catch::

    SchedframeError
    ├── ManifestError(ValueError)            a Kubernetes manifest could not be read
    │   └── FieldValidationError             fields the API server does not know (strict)
    ├── QuantityError(ValueError)            a resource quantity string is malformed
    ├── ConfigurationError(ValueError)       a KubeSchedulerConfiguration is invalid
    ├── PluginArgsError(ValueError)          a plugin's args failed validation
    ├── RegistryError                        plugin registry misuse
    │   ├── DuplicatePluginError(ValueError) a name registered twice
    │   └── UnknownPluginError(KeyError)     a name that is not registered
    ├── PluginLoadError(RuntimeError)        an entry point could not be loaded
    ├── StateNotFoundError(KeyError)         a CycleState key was never written
    ├── CacheError(RuntimeError)             an impossible cache transition (assume twice, ...)
    ├── ScenarioError(ValueError)            a simulation scenario or event log is invalid
    ├── GpuShareError(ValueError)            a GPU-sharing annotation or an openb trace is malformed
    ├── ExtenderError(RuntimeError)          a scheduler extender call failed
    ├── SchedulerError(RuntimeError)         scheduler misuse (unknown pod, ...)
    ├── ArgumentTypeError(TypeError)         a public entry point got an argument of the wrong type
    └── ClockError(ValueError)               a FakeClock asked for a non-finite, negative or
                                             backward move

Warnings schedframe issues derive from :class:`SchedframeWarning` (a ``UserWarning``), so
``warnings.filterwarnings("error", category=schedframe.SchedframeWarning)`` turns them into errors.

Anything else escaping schedframe is a bug.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence
from typing import Final

import attrs

__all__ = [
    "MAX_VALUE_REPR",
    "ArgumentTypeError",
    "CacheError",
    "ClockError",
    "ConfigurationError",
    "DuplicateKindError",
    "DuplicatePluginError",
    "ExtenderError",
    "FieldProblem",
    "FieldValidationError",
    "GpuShareError",
    "InputError",
    "ManifestError",
    "PluginArgsError",
    "PluginLoadError",
    "QuantityError",
    "RegistryError",
    "ScenarioError",
    "SchedframeError",
    "SchedframeWarning",
    "SchedulerError",
    "StateNotFoundError",
    "UnknownPluginError",
    "bounded_repr",
    "bounded_text",
    "did_you_mean",
]


class SchedframeError(Exception):
    """Base class of every error schedframe raises on purpose."""

    __module__ = "schedframe"


class SchedframeWarning(UserWarning):
    """Base class of the warnings schedframe issues (e.g. manifests of kinds it does not use).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"


class ManifestError(SchedframeError, ValueError):
    """A Kubernetes manifest is malformed.

    The message names the field path, the value found and what was expected, e.g.
    ``spec.containers[0].resources.requests.cpu: '12x' is not a quantity``.
    """

    __module__ = "schedframe"

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        self.detail = message
        super().__init__(f"{path}: {message}" if path else message)


@attrs.frozen
class FieldProblem:
    """One field of a manifest the emulated Kubernetes release does not know (or a resource name
    that is neither standard nor qualified with a domain).

    Attributes:
        path: where it is, as in :class:`ManifestError` paths, prefixed with the file it was read
            from: ``pods.yaml: documents[2].spec.nodeSelecter`` (a text source has no prefix;
            :func:`~schedframe.field_problems` gives paths relative to the manifest).
        message: what is wrong, e.g. ``unknown field 'nodeSelecter'``.
        suggestion: the known name it is probably a misspelling of (``'nodeSelector'``), or None.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    path: str
    message: str
    suggestion: str | None = None

    def __str__(self) -> str:
        hint = f"; did you mean {self.suggestion!r}?" if self.suggestion else ""
        return f"{self.path}: {self.message}{hint}" if self.path else f"{self.message}{hint}"


#: The most problems the message of a :class:`FieldValidationError` lists.
MAX_LISTED_PROBLEMS: Final = 20


class FieldValidationError(ManifestError):
    """Manifests hold fields the emulated Kubernetes release does not know, as the API server's
    strict field validation (kubectl's default) would refuse them: misspelled fields
    (``spec.nodeSelecter``, ``spec.replica``), fields of another release, resource names that
    are neither standard nor ``domain/name``. Raised by :func:`~schedframe.load_manifests` under
    ``validate="strict"`` (the default) once every document has been checked.

    Attributes:
        problems: every :class:`FieldProblem` of the load, in document order.
        release: the Kubernetes release checked against (``"1.37"``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, problems: Sequence[FieldProblem], release: str, *, note: str = "") -> None:
        self.problems: tuple[FieldProblem, ...] = tuple(problems)
        self.release = release
        self.note = note
        n = len(self.problems)
        lines = [f"  - {p}" for p in self.problems[:MAX_LISTED_PROBLEMS]]
        if n > MAX_LISTED_PROBLEMS:
            lines.append(f"  ... and {n - MAX_LISTED_PROBLEMS} more")
        head = (f"{n} unknown field{'s' if n != 1 else ''} or resource name{'s' if n != 1 else ''} "
                f"for Kubernetes {release} (the API server's strict field validation refuses them):")
        body = "\n".join([head, *lines])
        if note:
            body += "\n" + note
        super().__init__("", body)

    def __reduce__(self) -> tuple[object, ...]:
        return (_field_validation_error, (self.problems, self.release, self.note))


def _field_validation_error(problems: Sequence[FieldProblem], release: str,
                            note: str) -> FieldValidationError:
    return FieldValidationError(problems, release, note=note)


class InputError(SchedframeError, ValueError):
    """A file or text a user handed schedframe cannot be read: not a regular file, too large,
    not UTF-8, empty, or not valid JSON/YAML. The message is one line naming the file and the
    problem.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"


class QuantityError(SchedframeError, ValueError):
    """A resource quantity string (``"500m"``, ``"1Gi"``) is malformed."""

    __module__ = "schedframe"


class _ErrorListMixin(SchedframeError):
    """An error carrying a list of individual problems, reported at once."""

    def __init__(self, errors: str | Sequence[str], *, prefix: str = "") -> None:
        self.errors: list[str] = [errors] if isinstance(errors, str) else list(errors)
        body = "; ".join(self.errors) if len(self.errors) <= 1 else "\n  - " + "\n  - ".join(self.errors)
        super().__init__(f"{prefix}{body}")


class ConfigurationError(_ErrorListMixin, ValueError):
    """A scheduler configuration is invalid; ``errors`` lists every problem with its field path."""

    __module__ = "schedframe"


class PluginArgsError(_ErrorListMixin, ValueError):
    """A plugin's args are invalid; ``errors`` lists every problem with its field path."""

    __module__ = "schedframe"


class RegistryError(SchedframeError):
    """Misuse of a plugin :class:`~schedframe.Registry`."""

    __module__ = "schedframe"


class DuplicatePluginError(RegistryError, ValueError):
    """A plugin name was registered twice."""

    __module__ = "schedframe"


class DuplicateKindError(SchedframeError, ValueError):
    """An API kind (or its value class) was registered twice in :data:`~schedframe.KINDS`."""

    __module__ = "schedframe"


class UnknownPluginError(RegistryError, KeyError):
    """A plugin name is not registered."""

    __module__ = "schedframe"

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else ""


class PluginLoadError(SchedframeError, RuntimeError):
    """An out-of-tree plugin distribution could not be loaded or registered."""

    __module__ = "schedframe"


class StateNotFoundError(SchedframeError, KeyError):
    """A :class:`~schedframe.CycleState` key was read before anything wrote it."""

    __module__ = "schedframe"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class CacheError(SchedframeError, RuntimeError):
    """An impossible scheduler-cache transition (assuming a pod twice, forgetting an unknown pod)."""

    __module__ = "schedframe"


class ScenarioError(SchedframeError, ValueError):
    """A simulation scenario (or an event log to replay) is invalid.

    ``source`` names the file (or ``"<scenario>"`` for Python objects) and ``path`` the field,
    e.g. ``scenario.yaml: workloads[1].arrival.every: must be >= 0, got -1``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source
        self.path = path
        self.detail = message
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{path}: {message}" if path else f"{where}{message}")


class GpuShareError(SchedframeError, ValueError):
    """A GPU-sharing annotation or an openb trace file is malformed (``schedframe.gpushare``).

    ``path`` names where: ``pods.csv:12: gpu_milli`` or
    ``metadata.annotations['alibabacloud.com/gpu-milli']``.
    """

    __module__ = "schedframe"

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class SchedulerError(SchedframeError, RuntimeError):
    """Misuse of the :class:`~schedframe.Scheduler` (unknown pod, bad event order)."""

    __module__ = "schedframe"


class ArgumentTypeError(SchedframeError, TypeError):
    """A public entry point (of the Scheduler, Cache, SchedulingQueue, Framework, explain) got an
    argument of the wrong type; the message names the argument, what it expects and what it got,
    e.g. ``"Scheduler.add_pod: pod must be a Pod or a v1 Pod manifest (mapping), got NoneType"``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"


class ClockError(SchedframeError, ValueError):
    """A :class:`~schedframe.FakeClock` was asked for a time that is not a finite number, to step
    by a negative or non-finite amount, or to go back in time.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"


class ExtenderError(SchedframeError, RuntimeError):
    """A scheduler extender call failed: the service is unreachable, timed out, answered with a
    status other than 200 or with a body that is not the expected JSON, or reported an error
    (its ``error`` field). The message is upstream's where upstream has one, e.g.
    ``failed filter with extender at URL http://127.0.0.1:8888/filter, code 500``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return ``"; did you mean 'X'?"`` for the closest candidate, or ``""``."""
    if len(name) > 256:  # far longer than any candidate, so no match (and difflib is slow on it)
        return ""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""


#: The longest rendering of an offending value an error message carries.
MAX_VALUE_REPR: Final = 80


def bounded_repr(value: object, limit: int = MAX_VALUE_REPR) -> str:
    """``repr(value)`` cut to about *limit* characters, saying how long it was, so an error
    about a 10 MB value stays one readable line (the field path names where it was)."""
    try:
        text = repr(value)
    except Exception:  # a value whose repr fails still gets an error message
        text = f"<{type(value).__name__}>"
    if len(text) <= limit:
        return text
    return f"{text[: max(limit - 20, 10)]}... ({len(text)} characters)"


def bounded_text(text: str, limit: int = MAX_VALUE_REPR) -> str:
    """*text* itself (not its repr) cut to *limit* characters (keeping at least 10 of the text),
    ending with ``...`` and its original length when cut, e.g. ``"AAAA... (10000000
    characters)"``: for user or peer text quoted inside a message (an extender's error).

    .. versionadded:: 0.1.0
    """
    if len(text) <= limit:
        return text
    suffix = f"... ({len(text)} characters)"
    return text[: max(limit - len(suffix), 10)] + suffix
