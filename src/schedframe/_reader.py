"""The one typed reader of parsed JSON/YAML values: the manifests' field checks, scenarios, event
logs, node templates, sweep specs and load metrics all say what a value should have been the same
way, ``<path>: expected a mapping, got a list``, describe a wrong value the same way
(:func:`describe`), and suggest a known field name the same way
(:func:`~schedframe.errors.did_you_mean`).

:class:`FieldReader` reads values at a field path and raises the error its owner makes from
``(path, detail)`` (a :class:`~schedframe.ScenarioError` for a scenario, a ``TemplateError`` for
templates...), so every input error carries its source, the field path and the detail apart.

It sits beside :mod:`schedframe._textio` (which turns bytes into parsed values) and imports
nothing but :mod:`schedframe.errors`.
"""

from __future__ import annotations

import datetime as _dt
import math
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from .errors import MAX_VALUE_REPR, bounded_repr, did_you_mean

__all__ = ["Fail", "FieldReader", "child_path", "describe", "expected", "yaml_hint"]

#: What a reader raises: ``fail(path, detail)`` returns the owner's error for a field path.
Fail = Callable[[str, str], Exception]


def describe(value: Any) -> str:
    """A wrong value as an error message shows it: ``null``, ``true``, ``a mapping``, ``a list``,
    a scalar's ``repr`` (``'abc'``, ``3``, ``1.5``), else its type and text; at most about
    :data:`~schedframe.errors.MAX_VALUE_REPR` characters."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, Mapping):
        return "a mapping"
    if isinstance(value, (list, tuple)):
        return "a list"
    if isinstance(value, (str, int, float)):
        try:
            text = repr(value)
        except ValueError:  # an int of more digits than Python converts (sys.get_int_max_str_digits)
            return f"an integer of {value.bit_length()} bits"  # type: ignore[union-attr]
    else:
        text = f"{type(value).__name__} {value!s}"
    return text if len(text) <= MAX_VALUE_REPR else text[:MAX_VALUE_REPR - 3] + "..."


def yaml_hint(value: Any) -> str:
    """`` (quote it in YAML)`` for a value YAML read as a number, boolean or date where a string
    was meant (``version: 1.10``, ``enabled: yes``), else ``""``."""
    if isinstance(value, (bool, int, float, _dt.date)):
        return " (quote it in YAML)"
    return ""


def expected(what: str, value: Any) -> str:
    """The one wording of a value of the wrong type: ``expected <what>, got <value>``."""
    return f"expected {what}, got {describe(value)}"


def child_path(path: str, key: object) -> str:
    """The field path of *key* under *path* (``spec.nodes``; the top level's key alone)."""
    return f"{path}.{key}" if path else str(key)


#: Types a JSON/YAML number can come as (``bool`` excluded where it matters).
_NUMBERS: Final = (int, float)


class FieldReader:
    """Typed reads of parsed values at field paths, raising ``fail(path, detail)``.

    Every method takes the value and its field path and returns the value typed, or raises the
    owner's error (:meth:`error`) with the one wording (:func:`expected`).
    """

    __slots__ = ("_fail",)

    def __init__(self, fail: Fail) -> None:
        self._fail = fail

    def error(self, path: str, detail: str) -> Exception:
        """The owner's error for *path* (to raise, ``from None`` inside an ``except``)."""
        return self._fail(path, detail)

    def mapping(self, value: Any, path: str, what: str = "a mapping") -> Mapping[str, Any]:
        """*value* as a mapping."""
        if not isinstance(value, Mapping):
            raise self.error(path, expected(what, value))
        return value

    def list(self, value: Any, path: str, *, optional: bool = False) -> Sequence[Any]:
        """*value* as a list; with *optional*, ``None`` is an empty one."""
        if value is None and optional:
            return ()
        if not isinstance(value, list):
            raise self.error(path, expected("a list", value))
        return value

    def string(self, value: Any, path: str, *, non_empty: bool = False) -> str:
        """*value* as a string (with *non_empty*, not ``""``)."""
        if not isinstance(value, str) or (non_empty and not value):
            raise self.error(path, expected("a non-empty string" if non_empty else "a string", value)
                      + yaml_hint(value))
        return value

    def strings(self, value: Any, path: str) -> tuple[str, ...]:
        """*value* as a list of strings."""
        return tuple(self.string(v, f"{path}[{i}]") for i, v in enumerate(self.list(value, path)))

    def integer(self, value: Any, path: str, *, minimum: int | None = None,
                maximum: int | None = None) -> int:
        """*value* as an integer (not a boolean) in ``[minimum, maximum]``."""
        if isinstance(value, bool) or not isinstance(value, int):
            raise self.error(path, expected("an integer", value))
        self._bounds(value, path, minimum, maximum)
        return value

    def number(self, value: Any, path: str, *, minimum: float | None = None,
               maximum: float | None = None) -> float:
        """*value* as a finite number (not a boolean) in ``[minimum, maximum]``."""
        if isinstance(value, bool) or not isinstance(value, _NUMBERS) or not math.isfinite(value):
            what = "a finite number" if isinstance(value, float) else "a number"
            raise self.error(path, expected(what, value))
        self._bounds(value, path, minimum, maximum)
        return float(value)

    def boolean(self, value: Any, path: str) -> bool:
        """*value* as ``true`` or ``false``."""
        if not isinstance(value, bool):
            raise self.error(path, expected("true or false", value))
        return value

    def required(self, m: Mapping[str, Any], key: str, path: str) -> Any:
        """``m[key]``, or the error ``<path>.<key>: required``."""
        if key not in m or m[key] is None:
            raise self.error(child_path(path, key), "required")
        return m[key]

    def known(self, m: Mapping[Any, Any], path: str, keys: Sequence[str]) -> None:
        """Refuse a key of *m* that is not one of *keys*, suggesting the closest."""
        for k in m:
            if k not in keys:
                raise self.error(child_path(path, k),
                          f"unknown field{did_you_mean(str(k), keys)} (known: {', '.join(keys)})")

    def _bounds(self, value: float, path: str, minimum: float | None, maximum: float | None) -> None:
        if minimum is not None and maximum is not None and not minimum <= value <= maximum:
            raise self.error(path, f"must be in [{_bound(minimum)}, {_bound(maximum)}], "
                                   f"got {bounded_repr(value)}")
        if minimum is not None and value < minimum:
            raise self.error(path, f"must be >= {_bound(minimum)}, got {bounded_repr(value)}")
        if maximum is not None and value > maximum:
            raise self.error(path, f"must be <= {_bound(maximum)}, got {bounded_repr(value)}")


def _bound(limit: float) -> str:
    return f"{limit:g}" if isinstance(limit, float) else f"{limit:,}"
