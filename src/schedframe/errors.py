"""Exceptions schedframe raises on purpose.

Every exception raised deliberately derives from :class:`SchedframeError` and from the builtin a
caller would naturally catch::

    SchedframeError
    ├── ManifestError(ValueError)            a Kubernetes manifest could not be read
    ├── QuantityError(ValueError)            a resource quantity string is malformed
    ├── ConfigurationError(ValueError)       a KubeSchedulerConfiguration is invalid
    ├── PluginArgsError(ValueError)          a plugin's args failed validation
    ├── RegistryError                        plugin registry misuse
    │   ├── DuplicatePluginError(ValueError) a name registered twice
    │   └── UnknownPluginError(KeyError)     a name that is not registered
    ├── PluginLoadError(RuntimeError)        an entry point could not be loaded
    ├── StateNotFoundError(KeyError)         a CycleState key was never written
    ├── CacheError(RuntimeError)             an impossible cache transition (assume twice, ...)
    ├── GpuShareError(ValueError)            a GPU-sharing annotation or an openb trace is malformed
    └── SchedulerError(RuntimeError)         scheduler misuse (unknown pod, ...)

Anything else escaping schedframe is a bug.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Sequence

__all__ = [
    "CacheError",
    "ConfigurationError",
    "DuplicatePluginError",
    "GpuShareError",
    "ManifestError",
    "PluginArgsError",
    "PluginLoadError",
    "QuantityError",
    "RegistryError",
    "SchedframeError",
    "SchedulerError",
    "StateNotFoundError",
    "UnknownPluginError",
    "did_you_mean",
]


class SchedframeError(Exception):
    """Base class of every error schedframe raises on purpose."""

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


def did_you_mean(name: str, candidates: Iterable[str]) -> str:
    """Return ``"; did you mean 'X'?"`` for the closest candidate, or ``""``."""
    if len(name) > 256:  # far longer than any candidate, so no match (and difflib is slow on it)
        return ""
    close = difflib.get_close_matches(name, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean {close[0]!r}?" if close else ""
