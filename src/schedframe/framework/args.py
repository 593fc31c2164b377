"""Declared plugin args: an attrs class is all a plugin's args type needs.

Upstream keeps every args type as a Go struct with JSON tags and its plugins only type-assert;
here the framework does the rest for any attrs class (``frozen`` and ``kw_only`` recommended):

* **decoding** a ``pluginConfig[].args`` mapping (:func:`decode_args`): each field is read under
  its camelCase name (``present_labels`` from ``presentLabels``; ``metadata={"json": ...}``
  names it otherwise), by its annotation -- ``str``, ``bool``, ``int``, ``float``,
  ``tuple[X, ...]``/``list[X]``, ``Mapping[str, X]``/``dict[str, X]``, ``X | None``, a nested
  attrs class, or ``Any`` (kept as given) -- with ``metadata={"min": ..., "max": ...}`` bounds on
  numbers. More field metadata: ``{"inline": True}`` reads a nested attrs class's fields from
  the same mapping (Go's ``json:",inline"``); ``{"decode": f, "encode": g}`` converts one field
  (``f(value, path)`` raises ``ValueError`` with the message, or a ``PluginArgsError`` whose
  messages carry their paths, as a ``metav1.Duration`` does); ``{"omit": True}`` reads a field
  but never writes it (a retired field still accepted); ``{"omitempty": True}`` leaves an empty
  value out when writing. As Go's decoder does, a ``null`` keeps the field's default, and a
  missing field without a default gets its type's zero value, as does any missing field of a
  nested object (the class's defaults stand for ``SetDefaults`` at the top level only).
  ``apiVersion`` is the configuration's and is skipped; ``kind``, when the class names one in a
  ``KIND`` class variable, must be it. Every problem is
  collected with its field path (``presentLabels[2]: must be a string, got integer``; an unknown
  field gets the one "did you mean", else the known fields) and raised, with the class's own
  ``errors()`` on the values that were good, as one :class:`~schedframe.PluginArgsError`;
* **defaulting**: the class may define ``with_defaults() -> Self`` (upstream's
  ``SetDefaults_XArgs``: an empty list or a zero weight replaced), run on decoded args;
* **checking**: the class may define ``errors() -> list[str]`` (upstream's ``ValidateXArgs``),
  run after decoding and by :func:`validate_args`;
* **encoding** back to the camelCase mapping (:func:`encode_args`, for ``config convert``;
  ``None`` fields are left out, as ``omitempty``).

A class that defines its own ``from_dict``/``to_dict``/``validate`` keeps them (the in-tree
plugins' hand-written readers); :func:`args_decoder` gives whichever applies.
"""

from __future__ import annotations

import functools
import math
import sys
import types
import typing
from collections.abc import Callable, Mapping, Sequence
from typing import Any, TypeVar, Union

import attrs

from ..errors import PluginArgsError, bounded_repr, did_you_mean, json_type_name

__all__ = ["args_decoder", "decode_args", "encode_args", "validate_args"]

_T = TypeVar("_T")

def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part[:1].upper() + part[1:] for part in rest)


def _json_name(field: attrs.Attribute[Any]) -> str:
    return str(field.metadata.get("json") or _camel(field.name))


def _namespaces(cls: type) -> list[dict[str, Any]]:
    """Where *cls*'s annotations may be resolved: the module a method of its body was written in,
    then the modules holding it under its name (a class whose ``__module__`` names the package
    that re-exports it was written in a submodule), then its declared module."""
    out: list[dict[str, Any]] = []
    for value in vars(cls).values():
        func = getattr(value, "__func__", value)
        qualname = getattr(func, "__qualname__", "")
        if callable(func) and qualname.startswith(cls.__qualname__ + "."):
            module = sys.modules.get(getattr(func, "__module__", "") or "")
            if module is not None:
                out.append(vars(module))
                break
    prefix = cls.__module__
    for name, module in list(sys.modules.items()):
        if name.startswith(prefix) and getattr(module, cls.__name__, None) is cls:
            out.append(vars(module))
    return out


@functools.cache
def _hints(cls: type) -> dict[str, Any]:
    """The fields' annotations, resolved; a class whose annotations do not resolve (a name only
    its module's ``TYPE_CHECKING`` block imports) has its fields read as ``Any``."""
    for namespace in _namespaces(cls):
        try:
            return typing.get_type_hints(cls, globalns=namespace)
        except Exception:
            continue
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
        fields = _fields(cls)
        hints = _hints(cls)
        values: dict[str, Any] = {}
        inline: dict[str, dict[str, Any]] = {}
        failed: set[str] = set()  # reported: these keep their defaults
        for key, raw in data.items():
            if not path and key == "apiVersion":
                continue
            where = f"{path}.{key}" if path else str(key)
            if not path and key == "kind":
                want = getattr(cls, "KIND", None)
                if isinstance(want, str) and raw != want:
                    self.fail(where, f"must be {want}, got {bounded_repr(raw)}")
                continue
            found = fields.get(key)
            if found is None:
                hint = did_you_mean(str(key), fields) or f"; known fields: {', '.join(fields)}"
                self.fail(where, f"unknown field{hint}")
                continue
            owner, field = found
            if raw is None:  # Go: null leaves the field as it was, so the default stands
                continue
            owner_hints = hints if owner is None else _hints(_inline_type(cls, owner))
            got = self.field(raw, owner_hints.get(field.name, Any), where, field)
            if got is _MISSING:
                failed.add(field.name)
                continue
            if owner is None:
                values[_init_name(field)] = got
            else:
                inline.setdefault(owner, {})[_init_name(field)] = got
        for f in attrs.fields(cls):
            if f.init and f.metadata.get("inline"):
                try:
                    values[_init_name(f)] = _inline_type(cls, f.name)(**inline.get(f.name, {}))
                except PluginArgsError as exc:
                    self.errors.extend(f"{path}: {e}" if path else e for e in exc.errors)
                    return _MISSING
                except (TypeError, ValueError) as exc:
                    self.errors.append(f"{path or cls.__name__}: {exc}")
                    return _MISSING
            elif f.init and (path or f.default is attrs.NOTHING) and _init_name(f) not in values \
                    and (f.name not in failed or f.default is attrs.NOTHING):
                # Go: a missing field of a given object is its type's zero value; the top level's
                # defaults are its SetDefaults (a required field gets the zero value too)
                zero = _zero(hints.get(f.name, Any))
                if zero is not _MISSING:
                    values[_init_name(f)] = zero
        try:  # built from the good values even when others were bad: its own errors() count too
            return cls(**values)
        except PluginArgsError as exc:
            self.errors.extend(f"{path}: {e}" if path else e for e in exc.errors)
        except (TypeError, ValueError) as exc:
            self.errors.append(f"{path or cls.__name__}: {exc}")
        return _MISSING

    def field(self, raw: Any, hint: Any, path: str, field: attrs.Attribute[Any]) -> Any:
        decode = field.metadata.get("decode")
        if decode is None:
            return self.value(raw, hint, path, field)
        try:
            return decode(raw, path)
        except PluginArgsError as exc:  # complete messages, with their paths
            self.errors.extend(exc.errors)
        except (TypeError, ValueError) as exc:
            self.fail(path, str(exc))
        return _MISSING


def _init_name(field: attrs.Attribute[Any]) -> str:
    return getattr(field, "alias", None) or field.name.lstrip("_")


def _inline_type(cls: type, name: str) -> type:
    hint = _hints(cls).get(name)
    if not (isinstance(hint, type) and attrs.has(hint)):
        raise TypeError(f"{cls.__name__}.{name}: an inline field must be an attrs class")
    return hint


@functools.cache
def _fields(cls: type) -> dict[str, tuple[str | None, attrs.Attribute[Any]]]:
    """The fields of *cls* by JSON name, each with the inline field it belongs to (``None``: the
    class's own)."""
    out: dict[str, tuple[str | None, attrs.Attribute[Any]]] = {}
    for f in attrs.fields(cls):
        if not f.init:
            continue
        if f.metadata.get("inline"):
            for name, (_, inner) in _fields(_inline_type(cls, f.name)).items():
                out[name] = (f.name, inner)
        else:
            out[_json_name(f)] = (None, f)
    return out


def _zero(hint: Any) -> Any:
    """Go's zero value of a field of type *hint* (``_MISSING`` when there is none to give)."""
    origin = typing.get_origin(hint)
    if origin in (Union, types.UnionType) and type(None) in typing.get_args(hint):
        return None
    zeros: dict[Any, Any] = {str: "", int: 0, float: 0.0, bool: False}
    if hint in zeros:
        return zeros[hint]
    if origin in (tuple, Sequence) or hint is tuple:
        return ()
    if origin is list or hint is list:
        return []
    if origin in (dict, Mapping) or hint in (dict, Mapping):
        return {}
    return _MISSING


_MISSING: Any = object()


def decode_args(args_type: type[_T], data: Mapping[str, Any], *, validate: bool = True) -> _T:
    """*data* (a camelCase ``pluginConfig[].args`` mapping) as an instance of the attrs class
    *args_type*, defaulted (``with_defaults()``) and, when *validate*, checked with its
    ``errors()``; raises
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
        with_defaults = getattr(args, "with_defaults", None)
        if callable(with_defaults):
            args = with_defaults()
    if args is not _MISSING and validate:
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
        out: dict[str, Any] = {}
        for f in attrs.fields(type(args)):
            value = getattr(args, f.name)
            if not f.init or value is None or f.metadata.get("omit"):
                continue
            if f.metadata.get("omitempty") and not value:
                continue
            if f.metadata.get("inline"):
                out.update(encode_args(value))
                continue
            encode = f.metadata.get("encode")
            out[_json_name(f)] = encode(value) if encode is not None else encode_args(value)
        return out
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
