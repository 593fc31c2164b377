"""Exceptions schedframe raises on purpose.

Every exception raised deliberately derives from :class:`~schedframe.SchedframeError` and from the builtin a
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
    ├── SourcedError(ValueError)             a field of an input file: source, path, detail
    │   ├── ScenarioError                    a simulation scenario or event log is invalid
    │   └── plan.TemplateError               a node template file is invalid
    ├── GpuShareError(ValueError)            a GPU-sharing annotation or an openb trace is malformed
    ├── ExtenderError(RuntimeError)          a scheduler extender call failed
    ├── SchedulerError(RuntimeError)         scheduler misuse (unknown pod, ...)
    ├── ArgumentTypeError(TypeError)         a public entry point got an argument of the wrong type
    └── ClockError(ValueError)               a FakeClock asked for a non-finite, negative or
                                             backward move

Warnings schedframe issues derive from :class:`~schedframe.SchedframeWarning` (a ``UserWarning``), so
``warnings.filterwarnings("error", category=schedframe.SchedframeWarning)`` turns them into errors.

Anything else escaping schedframe is a bug.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
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
    "NonFiniteJSONError",
    "PluginArgsError",
    "PluginLoadError",
    "QuantityError",
    "RegistryError",
    "ScenarioError",
    "SchedframeError",
    "SchedframeWarning",
    "SchedulerError",
    "SnapshotError",
    "SourcedError",
    "StateNotFoundError",
    "UnknownPluginError",
    "bounded_repr",
    "bounded_text",
    "closest_name",
    "did_you_mean",
    "json_type_name",
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
        path: where it is, as in :class:`~schedframe.ManifestError` paths, prefixed with the file it was read
            from: ``pods.yaml: documents[2].spec.nodeSelecter`` (a text source has no prefix;
            :func:`~schedframe.api.field_problems` gives paths relative to the manifest).
        message: what is wrong, e.g. ``unknown field 'nodeSelecter'``.
        suggestion: the known name it is probably a misspelling of (``'nodeSelector'``), or None.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.errors"

    path: str
    message: str
    suggestion: str | None = None

    def __str__(self) -> str:
        hint = f"; did you mean {self.suggestion!r}?" if self.suggestion else ""
        return f"{self.path}: {self.message}{hint}" if self.path else f"{self.message}{hint}"


#: The most problems the message of a :class:`~schedframe.errors.FieldValidationError` lists.
MAX_LISTED_PROBLEMS: Final = 20


class FieldValidationError(ManifestError):
    """Manifests hold fields the emulated Kubernetes release does not know, as the API server's
    strict field validation (kubectl's default) would refuse them: misspelled fields
    (``spec.nodeSelecter``, ``spec.replica``), fields of another release, resource names that
    are neither standard nor ``domain/name``. Raised by :func:`~schedframe.load_manifests` under
    ``validate="strict"`` (the default) once every document has been checked.

    Attributes:
        problems: every :class:`~schedframe.errors.FieldProblem` of the load, in document order.
        release: the Kubernetes release checked against (``"1.37"``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.errors"

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

    __module__ = "schedframe.errors"


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

    __module__ = "schedframe.errors"


class DuplicateKindError(SchedframeError, ValueError):
    """An API kind (or its value class) was registered twice in :data:`~schedframe.api.KINDS`."""

    __module__ = "schedframe.errors"


class UnknownPluginError(RegistryError, KeyError):
    """A plugin name is not registered."""

    __module__ = "schedframe"

    def __str__(self) -> str:  # KeyError quotes its argument; keep the message readable
        return str(self.args[0]) if self.args else ""


class PluginLoadError(SchedframeError, RuntimeError):
    """An out-of-tree plugin distribution could not be loaded or registered."""

    __module__ = "schedframe.errors"


class StateNotFoundError(SchedframeError, KeyError):
    """A :class:`~schedframe.CycleState` key was read before anything wrote it."""

    __module__ = "schedframe.errors"

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


class CacheError(SchedframeError, RuntimeError):
    """An impossible scheduler-cache transition (assuming a pod twice, forgetting an unknown pod)."""

    __module__ = "schedframe.errors"


class SourcedError(SchedframeError, ValueError):
    """An input of a file (or of Python objects standing for one) is invalid at a field:
    ``source`` names the file (empty, or ``"<scenario>"`` and the like, for Python objects),
    ``path`` the field and ``detail`` what is wrong; the message is ``source: path: detail``.
    The base of :class:`~schedframe.ScenarioError` and the planner's ``TemplateError``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.errors"

    def __init__(self, source: str, path: str, message: str) -> None:
        self.source = source
        self.path = path
        self.detail = message
        where = f"{source}: " if source else ""
        super().__init__(f"{where}{path}: {message}" if path else f"{where}{message}")


class ScenarioError(SourcedError):
    """A simulation scenario (or an event log to replay) is invalid.

    ``source`` names the file (or ``"<scenario>"`` for Python objects) and ``path`` the field,
    e.g. ``scenario.yaml: workloads[1].arrival.every: must be >= 0, got -1``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"


class NonFiniteJSONError(SchedframeError, ValueError):
    """A value to write as JSON holds a NaN or an infinity (``path``, ``value``), which
    JSON cannot hold (``schedframe._jsonout``, the one JSON writer).

    .. versionadded:: 0.1.0
    """

    def __init__(self, path: str, value: float) -> None:
        self.path = path or "(top level)"
        self.value = value
        super().__init__(f"{self.path} holds {value!r}, which JSON cannot hold")


class GpuShareError(SchedframeError, ValueError):
    """A GPU-sharing annotation or an openb trace file is malformed (``schedframe.gpushare``).

    ``path`` names where: ``pods.csv:12: gpu_milli`` or
    ``metadata.annotations['alibabacloud.com/gpu-milli']``.
    """

    __module__ = "schedframe.errors"

    def __init__(self, path: str, message: str) -> None:
        self.path = path
        super().__init__(f"{path}: {message}" if path else message)


class SchedulerError(SchedframeError, RuntimeError):
    """Misuse of the :class:`~schedframe.Scheduler` (unknown pod, bad event order)."""

    __module__ = "schedframe"


class SnapshotError(SchedframeError, RuntimeError):
    """Misuse of a :class:`~schedframe.ClusterSnapshot`: a fork closed out of order, an unknown
    node or pod, a bound pod handed to ``schedule``, an answer read after the snapshot changed.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.errors"


class ArgumentTypeError(SchedframeError, TypeError):
    """A public entry point (of the Scheduler, Cache, SchedulingQueue, Framework, explain) got an
    argument of the wrong type; the message names the argument, what it expects and what it got,
    e.g. ``"Scheduler.add_pod: pod must be a Pod or a v1 Pod manifest (mapping), got NoneType"``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.errors"


class ClockError(SchedframeError, ValueError):
    """A :class:`~schedframe.FakeClock` was asked for a time that is not a finite number, to step
    by a negative or non-finite amount, or to go back in time.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.errors"


class ExtenderError(SchedframeError, RuntimeError):
    """A scheduler extender call failed: the service is unreachable, timed out, answered with a
    status other than 200 or with a body that is not the expected JSON, or reported an error
    (its ``error`` field). The message is upstream's where upstream has one, e.g.
    ``failed filter with extender at URL http://127.0.0.1:8888/filter, code 500``.

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.errors"


def _edit_distance(a: str, b: str, limit: int) -> int:
    """Levenshtein distance of *a* and *b* (adjacent transpositions count 1), or ``limit + 1``
    once it is certain to exceed *limit*."""
    if abs(len(a) - len(b)) > limit:
        return limit + 1
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        cur = [i] + [0] * len(b)
        for j, cb in enumerate(b, start=1):
            cost = 0 if ca == cb else 1
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and ca == b[j - 2] and a[i - 2] == cb:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        if min(cur) > limit:
            return limit + 1
        prev2, prev = prev, cur
    return prev[-1]


def closest_name(name: object, candidates: Iterable[str]) -> str | None:
    """The candidate *name* is most likely a typo of, or ``None``: the one "did you mean" of
    schedframe (plugin names, kinds, fields, resource names, feature gates, options).

    A candidate is close when it differs only in letter case, or by at most one edit per five
    characters (at least one, at most three; an edit is an inserted, deleted or replaced
    character, or two swapped neighbours). A name of one to three characters is close only to
    one a character longer or shorter (``arg`` to ``args``; ``gpu`` is not a typo of ``cpu``).
    The closest wins; two equally close (``node-9`` to ``node-0`` and ``node-1``) or a name unlike
    every candidate get no suggestion.
    """
    if not isinstance(name, str) or not name or len(name) > 256:
        return None
    folded = name.casefold()
    short = len(name) < 4
    limit = min(3, max(1, len(name) // 5))
    best: tuple[int, str] | None = None
    tied = False
    for candidate in candidates:
        other = candidate.casefold()
        if short and other != folded and abs(len(other) - len(folded)) != 1:
            continue
        distance = 0 if other == folded else _edit_distance(folded, other, limit)
        if distance > limit:
            continue
        if best is None or distance < best[0]:
            best, tied = (distance, candidate), False
            if distance == 0:
                break
        elif distance == best[0]:
            tied = True
    return None if best is None or tied else best[1]


def json_type_name(value: object) -> str:
    """A value's type as a JSON/YAML document spells it (``null``, ``boolean``, ``integer``,
    ``number``, ``string``, ``mapping``, ``list``; else the Python type's name): the one type
    describer of the configuration's and the plugin args' messages."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "mapping"
    if isinstance(value, (list, tuple)):
        return "list"
    return type(value).__name__


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return ``"; did you mean 'X'?"`` for the closest candidate (:func:`closest_name`), or ``""``."""
    close = closest_name(name, candidates)
    return f"; did you mean {close!r}?" if close is not None else ""


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
