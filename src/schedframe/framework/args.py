"""Declared plugin args: an attrs class is all a plugin's args type needs.

Upstream keeps every args type as a Go struct with JSON tags and its plugins only type-assert;
here the framework does the rest for any attrs class (``frozen`` and ``kw_only`` recommended):

* **decoding** a ``pluginConfig[].args`` mapping (:func:`decode_args`): each field is read under
  its camelCase name (``present_labels`` from ``presentLabels``; ``metadata={"json": ...}``
  names it otherwise), by its annotation -- ``str``, ``bool``, ``int``, ``float``,
  ``tuple[X, ...]``/``list[X]``, ``Mapping[str, X]``/``dict[str, X]``, ``X | None``, a nested
  attrs class, or ``Any`` (kept as given) -- with ``metadata={"min": ..., "max": ...}`` bounds on
  numbers; ``apiVersion`` and ``kind`` are the configuration's and are skipped. Every problem is
  collected with its field path (``presentLabels[2]: must be a string, got integer``; an unknown
  field gets the one "did you mean", else the known fields) and raised, with the class's own
  ``errors()`` on the values that were good, as one :class:`~schedframe.PluginArgsError`;
* **checking**: the class may define ``errors() -> list[str]`` (upstream's ``ValidateXArgs``),
  run after decoding and by :func:`validate_args`;
* **encoding** back to the camelCase mapping (:func:`encode_args`, for ``config convert``).

A class that defines its own ``from_dict``/``to_dict``/``validate`` keeps them (the in-tree
plugins' hand-written readers); :func:`args_decoder` gives whichever applies.
"""

from __future__ import annotations

import functools
import math
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, Union

import attrs

from ..errors import PluginArgsError, bounded_repr, did_you_mean, json_type_name

__all__ = ["args_decoder", "decode_args", "encode_args", "validate_args"]

_T = TypeVar("_T")

#: Keys of a ``pluginConfig[].args`` mapping that belong to the configuration, not the args.
_ENVELOPE = ("apiVersion", "kind")


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _json_name(field: attrs.Attribute[Any]) -> str:
    return str(field.metadata.get("json") or _camel(field.name))


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The fields' annotations, resolved; a class whose annotations do not resolve (a name only
    its module's ``TYPE_CHECKING`` block imports) has its fields read as ``Any``."""
    try:
        return typing.get_type_hints(cls)
    except Exception:
        return {}


class _Reader:
    def __init__(self) -> None:
        self.errors: list[str] = []

    def fail(self, path: str, message: str) -> Any:
        self.errors.append(f"{path}: {message}")
        return _MISSING

    def value(self, value: Any, hint: Any, path: str, field: attrs.Attribute[Any] | None) -> Any:
        origin = typing.get_origin(hint)
        if hint is Any:
            return value
        if origin in (Union, types.UnionType):
            options = [a for a in typing.get_args(hint) if a is not type(None)]
            if value is None:
                return None
            if len(options) == 1:
                return self.value(value, options[0], path, field)
            return value  # a union of several types: kept as given, the class's errors() judges
        if attrs.has(hint):
            if not isinstance(value, Mapping):
                return self.fail(path, f"must be a mapping, got {json_type_name(value)}")
            return self.object(hint, value, path)
        if hint is str or hint is bool:
            if isinstance(value, hint):
                return value
            want = "a string" if hint is str else "a boolean"
            return self.fail(path, f"must be {want}, got {json_type_name(value)}")
        if hint is int or hint is float:
            return self.number(value, hint, path, field)
        if origin in (tuple, list, Sequence) or hint in (tuple, list):
            items = typing.get_args(hint)
            item = items[0] if items else Any
            if not isinstance(value, (list, tuple)):
                return self.fail(path, f"must be a list, got {json_type_name(value)}")
            got = [self.value(v, item, f"{path}[{i}]", None) for i, v in enumerate(value)]
            if any(v is _MISSING for v in got):  # reported; the field keeps its default
                return _MISSING
            return list(got) if origin is list else tuple(got)
        if origin in (dict, Mapping) or hint in (dict, Mapping):
            args = typing.get_args(hint)
            item = args[1] if len(args) == 2 else Any
            if not isinstance(value, Mapping):
                return self.fail(path, f"must be a mapping, got {json_type_name(value)}")
            items_got = {str(k): self.value(v, item, f"{path}.{k}", None) for k, v in value.items()}
            return _MISSING if any(v is _MISSING for v in items_got.values()) else items_got
        return value

    def number(self, value: Any, hint: Any, path: str, field: attrs.Attribute[Any] | None) -> Any:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            want = "an integer" if hint is int else "a number"
            return self.fail(path, f"must be {want}, got {json_type_name(value)}")
        if hint is int and not isinstance(value, int):
            if not (math.isfinite(value) and value.is_integer()):
                return self.fail(path, f"must be an integer, got {bounded_repr(value)}")
            value = int(value)
        if isinstance(value, float) and not math.isfinite(value):
            return self.fail(path, f"must be a finite number, got {value!r}")
        meta = field.metadata if field is not None else {}
        low, high = meta.get("min"), meta.get("max")
        if low is not None and value < low:
            return self.fail(path, f"must be at least {low}, got {bounded_repr(value)}")
        if high is not None and value > high:
            return self.fail(path, f"must be at most {high}, got {bounded_repr(value)}")
        return float(value) if hint is float else value

    def object(self, cls: type, data: Mapping[str, Any], path: str) -> Any:
        fields = {_json_name(f): f for f in attrs.fields(cls) if f.init}
        hints = _hints(cls)
        values: dict[str, Any] = {}
        for key, raw in data.items():
            if not path and key in _ENVELOPE:
                continue
            where = f"{path}.{key}" if path else str(key)
            field = fields.get(key)
            if field is None:
                hint = did_you_mean(str(key), fields) or f"; known fields: {', '.join(fields)}"
                self.fail(where, f"unknown field{hint}")
                continue
            got = self.value(raw, hints.get(field.name, Any), where, field)
            if got is not _MISSING:
                values[getattr(field, "alias", None) or field.name.lstrip("_")] = got
        try:  # built from the good values even when others were bad: its own errors() count too
            return cls(**values)
        except PluginArgsError as exc:
            self.errors.extend(f"{path}: {e}" if path else e for e in exc.errors)
        except (TypeError, ValueError) as exc:
            self.errors.append(f"{path or cls.__name__}: {exc}")
        return _MISSING


_MISSING: Any = object()


def decode_args(args_type: type[_T], data: Mapping[str, Any]) -> _T:
    """*data* (a camelCase ``pluginConfig[].args`` mapping) as an instance of the attrs class
    *args_type*, then checked with its ``errors()``; raises
    :class:`~schedframe.PluginArgsError` listing every problem with its field path.

    .. versionadded:: 0.1.0
    """
    if not attrs.has(args_type):
        raise PluginArgsError(f"{args_type.__name__}: declared args must be an attrs class")
    if not isinstance(data, Mapping):
        raise PluginArgsError(f"{args_type.__name__}: must be a mapping, got {json_type_name(data)}")
    reader = _Reader()
    args = reader.object(args_type, data, "")
    errors = reader.errors
    if args is not _MISSING:
        try:
            validate_args(args)
        except PluginArgsError as exc:
            errors.extend(exc.errors)
    if errors:
        raise PluginArgsError(errors)
    return typing.cast(_T, args)


def validate_args(args: Any) -> None:
    """Run the args' own ``validate()``, else their ``errors()`` (raising
    :class:`~schedframe.PluginArgsError` with every one); nothing when they have neither."""
    validate = getattr(args, "validate", None)
    if callable(validate):
        validate()
        return
    errors = getattr(args, "errors", None)
    if callable(errors):
        found = list(errors())
        if found:
            raise PluginArgsError(found)


def encode_args(args: Any) -> Any:
    """*args* as the camelCase mapping :func:`decode_args` reads (its own ``to_dict()`` when
    it has one; nested attrs classes and sequences encoded too)."""
    to_dict = getattr(args, "to_dict", None)
    if callable(to_dict):
        return to_dict()
    if attrs.has(type(args)):
        return {_json_name(f): encode_args(getattr(args, f.name)) for f in attrs.fields(type(args)) if f.init}
    if isinstance(args, Mapping):
        return {k: encode_args(v) for k, v in args.items()}
    if isinstance(args, (list, tuple)):
        return [encode_args(v) for v in args]
    return args


def args_decoder(args_type: type | None) -> Callable[[Mapping[str, Any]], Any] | None:
    """How a mapping becomes *args_type*: its own ``from_dict``, else :func:`decode_args` for
    an attrs class, else ``None`` (no declared way)."""
    if args_type is None:
        return None
    from_dict = getattr(args_type, "from_dict", None)
    if callable(from_dict):
        return typing.cast(Callable[[Mapping[str, Any]], Any], from_dict)
    if attrs.has(args_type):
        return functools.partial(decode_args, args_type)
    return None
