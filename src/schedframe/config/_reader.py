"""The typed reader of a configuration document: each value read at a field path, every problem
collected (``Invalid value: 5: must be a string, got integer``) and raised at once as one
:class:`~schedframe.ConfigurationError`, paths quoted so they stay one token. The model and
the plugin logic live in :mod:`.configuration`; this module imports nothing else of ``config``.
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Mapping
from typing import Any, Final

from ..errors import (
    MAX_VALUE_REPR,
    ConfigurationError,
    bounded_repr,
    bounded_text,
    did_you_mean,
    json_type_name,
)

__all__ = ["MAX_CONFIG_ERROR", "FieldReader"]

#: The longest single problem a :class:`~schedframe.ConfigurationError` reports, in characters:
#: values echoed in it are cut to about 80 characters (``schedframe.errors.bounded_repr``); this
#: bounds what a plugin's own args validation echoes.
MAX_CONFIG_ERROR: Final = 2048

_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1


_PLAIN_FIELD = re.compile(r"[A-Za-z0-9_\-/]+")


def _child(path: str, name: str) -> str:
    """``path.name``; a name that is not a plain field name (empty, spaces, dots, colons...) is
    quoted as ``path["name"]`` (JSON, with spaces and colons escaped) so the path stays one
    unambiguous token before the ``": "`` of the message."""
    if len(name) > MAX_VALUE_REPR:  # a 10 MB key: the path shows its start and its length
        name = f"{name[:MAX_VALUE_REPR - 20]}...({len(name)} characters)"
    if not _PLAIN_FIELD.fullmatch(name):
        quoted = json.dumps(name).replace(" ", "\\u0020").replace(":", "\\u003a")
        return f"{path}[{quoted}]"
    return f"{path}.{name}" if path else name


def _q(value: object) -> str:
    """A name or value quoted in a message, bounded (``schedframe.errors.bounded_repr``)."""
    return bounded_repr(value)


def _fmt(value: Any) -> str:
    try:
        text = json.dumps(value)
    except (TypeError, ValueError, RecursionError):
        try:
            text = repr(value)
        except (ValueError, RecursionError):  # an int too long to print, a value nested too deeply
            text = (f"<an integer of {value.bit_length()} bits>" if isinstance(value, int)
                    else f"<a {json_type_name(value)} nested too deeply to show>")
    return text if len(text) <= 80 else text[:77] + "..."


def _join_args_error(path: str, error: str) -> str:
    """Prefix a plugin-args error (``"field.path: message"``) with the pluginConfig path."""
    head, sep, _ = error.partition(": ")
    if sep and head and " " not in head:
        return f"{path}{'' if head.startswith('[') else '.'}{error}"
    return f"{path}: {error}"


class FieldReader:
    """Typed reads at field paths; problems are collected in :attr:`errors`."""

    def __init__(self) -> None:
        self.errors: list[str] = []

    # -- errors ---------------------------------------------------------------------------
    def error(self, path: str, message: str) -> None:
        self.add(f"{path}: {message}" if path else message)

    def add(self, error: str) -> None:
        """Record *error*, cut to :data:`MAX_CONFIG_ERROR` characters: every user value it echoes
        should be bounded already; this bounds what a plugin's args validation echoes."""
        self.errors.append(bounded_text(error, MAX_CONFIG_ERROR))

    def invalid(self, path: str, value: Any, detail: str) -> None:
        self.error(path, f"Invalid value: {_fmt(value)}: {detail}")

    def wrong_type(self, path: str, value: Any, want: str) -> None:
        self.error(path, f"Invalid value: {_fmt(value)}: must be {want}, got {json_type_name(value)}")

    def raise_errors(self, prefix: str) -> None:
        if self.errors:
            raise ConfigurationError(self.errors, prefix=prefix)

    # -- primitive readers ----------------------------------------------------------------
    def mapping(self, value: Any, path: str) -> Mapping[str, Any] | None:
        if isinstance(value, Mapping):
            return value
        self.wrong_type(path, value, "a mapping")
        return None

    def items(self, value: Any, path: str) -> list[Any]:
        if value is None:
            return []
        if isinstance(value, (list, tuple)):
            return list(value)
        self.wrong_type(path, value, "a list")
        return []

    def integer(self, value: Any, path: str) -> int | None:
        if isinstance(value, int) and not isinstance(value, bool):
            if _INT32_MIN <= value <= _INT32_MAX:
                return value
            self.invalid(path, value, "must fit in a 32-bit integer")
            return None
        self.wrong_type(path, value, "an integer")
        return None

    def seconds(self, value: Any, path: str) -> float | None:
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            try:
                seconds = float(value)
            except OverflowError:  # an int beyond float range
                seconds = math.inf
            if math.isfinite(seconds):
                return seconds
        self.wrong_type(path, value, "a number of seconds")
        return None

    def string(self, value: Any, path: str) -> str | None:
        if isinstance(value, str):
            return value
        self.wrong_type(path, value, "a string")
        return None

    def fields(self, data: Mapping[Any, Any], allowed: frozenset[str], path: str) -> None:
        for key in data:
            if key not in allowed:
                try:
                    name = str(key)
                except ValueError:  # an int too long to print
                    name = _fmt(key)
                self.error(_child(path, name or '""'), f"unknown field{did_you_mean(name, sorted(allowed))}")

    def percentage(self, value: Any, path: str) -> int | None:
        if value is None:
            return None
        pct = self.integer(value, path)
        if pct is not None and not 0 <= pct <= 100:
            self.invalid(path, pct, "not in valid range [0-100]")
            return None
        return pct
