"""The field decoders and encoders every kind's manifest reader and writer share: each reader
takes the raw value and its field path and raises one :class:`~schedframe.ManifestError` naming
them (``_fail``, ``_show``, ``_child``, ``_mapping``, ``_str``, ``_int``, ``_enum``, quantities,
RFC 3339 times...), plus metadata, owner references and label / node selectors.

Imports only :mod:`schedframe.errors`, :mod:`schedframe._reader` (the describer of a wrong
value) and the api value objects; every other parser module imports this one.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Callable, Mapping, Sequence
from decimal import Context, Decimal
from operator import attrgetter
from typing import Any, Final, Generic, NamedTuple, NoReturn, TypeVar

from .._reader import describe, yaml_hint
from ..errors import MAX_VALUE_REPR, ManifestError, QuantityError, bounded_repr
from ._names import _check_label
from .frozendict import FrozenDict, freeze, thaw
from .objects import (
    LabelSelector,
    LabelSelectorRequirement,
    NodeSelectorRequirement,
    NodeSelectorTerm,
    OwnerReference,
)
from .quantity import Quantity

_LABEL_SELECTOR_OPS: Final = ("In", "NotIn", "Exists", "DoesNotExist")

_NODE_SELECTOR_OPS: Final = ("In", "NotIn", "Exists", "DoesNotExist", "Gt", "Lt")

_SIMPLE_KEY_RE: Final = re.compile(r"[A-Za-z_][A-Za-z0-9_-]*")

_EMPTY: Final[Mapping[str, Any]] = {}


def _fail(path: str, message: str) -> NoReturn:
    raise ManifestError(path, message)


#: A short rendering of a bad value for error messages (the one describer of every reader).
_show: Final = describe


_SIMPLE_KEYS: dict[str, bool] = {}


def _child(path: str, key: str) -> str:
    simple = _SIMPLE_KEYS.get(key)
    if simple is None:
        if len(key) > MAX_VALUE_REPR:  # a path names where the problem is, it never echoes 10 MB
            return f"{path}[{bounded_repr(key)}]"
        simple = _SIMPLE_KEY_RE.fullmatch(key) is not None
        if len(_SIMPLE_KEYS) < 4096:
            _SIMPLE_KEYS[key] = simple
    if simple:
        return f"{path}.{key}" if path else key
    return f"{path}[{key}]"


def _mapping(value: Any, path: str) -> Mapping[str, Any]:
    if type(value) is dict:  # the common case, without an ABC instance check
        return value
    if value is None:
        return _EMPTY
    if not isinstance(value, Mapping):
        _fail(path, f"expected a mapping, got {_show(value)}")
    return value


def _list(value: Any, path: str) -> Sequence[Any]:
    if type(value) is list:
        return value
    if value is None:
        return ()
    if not isinstance(value, (list, tuple)):
        _fail(path, f"expected a list, got {_show(value)}")
    return value


#: `` (quote it in YAML)`` after a value YAML read as a number, boolean or date.
_hint: Final = yaml_hint


def _str(value: Any, path: str, default: str = "") -> str:
    if type(value) is str:
        return value
    if value is None:
        return default
    if not isinstance(value, str):
        _fail(path, f"expected a string, got {_show(value)}{_hint(value)}")
    return value


def _required_str(m: Mapping[str, Any], key: str, path: str) -> str:
    value = m.get(key)
    if type(value) is str and value:  # the common case, without building the field path
        return value
    p = _child(path, key)
    value = _str(value, p)
    if not value:
        _fail(p, "required")
    return value


def _int(value: Any, path: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool):
        _fail(path, f"expected an integer, got {_show(value)}")
    if isinstance(value, int):
        return value
    if isinstance(value, float) and value.is_integer():
        return int(value)
    _fail(path, f"expected an integer, got {_show(value)}")


def _required_int(m: Mapping[str, Any], key: str, path: str) -> int:
    p = _child(path, key)
    value = _int(m.get(key), p)
    if value is None:
        _fail(p, "required")
    return value


def _bool(value: Any, path: str) -> bool:
    if value is None:
        return False
    if not isinstance(value, bool):
        _fail(path, f"expected true or false, got {_show(value)}")
    return value


def _enum(value: Any, path: str, allowed: Sequence[str], default: str | None = None) -> str | None:
    if value is None:
        return default
    if not isinstance(value, str) or value not in allowed:
        shown = ", ".join(repr(a) for a in allowed)
        _fail(path, f"unsupported value {_show(value)}; supported values: {shown}")
    return value


def _required_enum(m: Mapping[str, Any], key: str, path: str, allowed: Sequence[str]) -> str:
    p = _child(path, key)
    value = _enum(m.get(key), p, allowed)
    if value is None:
        _fail(p, "required")
    return value


def _str_list(value: Any, path: str) -> tuple[str, ...]:
    items = _list(value, path)
    out = []
    for i, v in enumerate(items):
        if not isinstance(v, str):
            _fail(f"{path}[{i}]", f"expected a string, got {_show(v)}{_hint(v)}")
        out.append(v)
    return tuple(out)


def _str_map(value: Any, path: str) -> FrozenDict[str, str]:
    """A map of strings to strings (labels, annotations, a node selector), frozen; equal maps
    read in one load are one shared object (the pods of a workload carry the same labels)."""
    if not value:
        if value is None or isinstance(value, Mapping):
            return freeze(None)
        _fail(path, f"expected a mapping, got {_show(value)}")
    m = _mapping(value, path)
    for k, v in m.items():
        if type(k) is not str and not isinstance(k, str):
            _fail(path, f"keys must be strings, got {_show(k)}{_hint(k)}")
        if type(v) is not str and not isinstance(v, str):
            _fail(_child(path, k), f"expected a string, got {_show(v)}{_hint(v)}")
    return _intern_map(m)


#: The maps of strings and of quantities read recently, so that equal ones are shared; bounded
#: (cleared when full), so a long-lived process never grows it without limit.
_MAPS: dict[Any, FrozenDict[str, Any]] = {}
_MAPS_MAX: Final = 1 << 16
_V = TypeVar("_V")


def _intern_map(m: Mapping[str, str]) -> FrozenDict[str, str]:
    return _interned(tuple(m.items()), m)


def _interned(key: Any, m: Mapping[str, _V]) -> FrozenDict[str, _V]:
    """The map read recently under *key*, else *m* frozen and kept under it."""
    hit = _MAPS.get(key)
    if hit is not None:
        return hit
    if len(_MAPS) >= _MAPS_MAX:
        _MAPS.clear()
    out: FrozenDict[str, _V] = FrozenDict(m)
    _MAPS[key] = out
    return out


#: Quantities read recently, by their text (a dump repeats a few dozen spellings); bounded.
_QUANTITIES: dict[str, Quantity] = {}


def _quantity(value: Any, path: str) -> Quantity:
    if type(value) is str:
        hit = _QUANTITIES.get(value)
        if hit is not None:
            return hit
        q = _parse_quantity(value.strip(), path)  # strip: as Quantity.UnmarshalJSON does
        if len(_QUANTITIES) >= 4096:
            _QUANTITIES.clear()
        _QUANTITIES[value] = q
        return q
    return _parse_quantity(value, path)


def _parse_quantity(value: Any, path: str) -> Quantity:
    if isinstance(value, str):
        value = value.strip()
    elif isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, f"expected a quantity such as '500m' or '1Gi', got {_show(value)}")
    try:
        q = Quantity.parse(value)
    except QuantityError:
        _fail(path, f"{_show(value)} is not a quantity")
    if q.exact < 0:
        _fail(path, f"must be greater than or equal to 0, got {_show(value)}")
    return q


def _quantities(value: Any, path: str) -> FrozenDict[str, Quantity]:
    """A map of resource names to quantities, frozen; equal maps (of strings) read in one load
    are one shared object."""
    if not value and (value is None or isinstance(value, Mapping)):
        return freeze(None)
    m = _mapping(value, path)
    out: dict[str, Quantity] = {}
    plain = True  # every name and value a str: the map can be shared
    cache = _QUANTITIES
    for k, v in m.items():
        if type(k) is not str:
            if not isinstance(k, str):
                _fail(path, f"resource names must be strings, got {_show(k)}")
            plain = False
        q = cache.get(v) if type(v) is str else None
        if q is None:
            plain = plain and type(v) is str
            q = _quantity(v, _child(path, k))
        out[k] = q
    if not plain:
        return FrozenDict(out)
    return _interned(("q", *m.items()), out)


_TIME_RE: Final = re.compile(
    r"([0-9]{4})-([0-9]{2})-([0-9]{2})[Tt ]([0-9]{2}):([0-9]{2}):([0-9]{2})(\.[0-9]+)?"
    r"([Zz]|[+-][0-9]{2}:[0-9]{2})"
)

_EPOCH: Final = _dt.datetime(1970, 1, 1, tzinfo=_dt.timezone.utc)

_DECIMALS: Final = Context(prec=800)


#: Timestamps read recently (the conditions of one pod share a few); bounded.
_TIMES: dict[str, float] = {}


def _time(value: Any, path: str) -> float | None:
    """An RFC 3339 timestamp (or a YAML timestamp) as seconds since the epoch."""
    if value is None:
        return None
    if type(value) is str:
        hit = _TIMES.get(value)
        if hit is None:
            hit = _parse_time(value, path)
            if len(_TIMES) >= 8192:
                _TIMES.clear()
            _TIMES[value] = hit
        return hit
    return _parse_time(value, path)


def _parse_time(value: Any, path: str) -> float:
    if isinstance(value, _dt.datetime):
        dt = value if value.tzinfo is not None else value.replace(tzinfo=_dt.timezone.utc)
        delta = dt - _EPOCH
        whole = delta.days * 86400 + delta.seconds
        if not delta.microseconds:
            return float(whole)
        return float(_DECIMALS.add(Decimal(whole), Decimal(delta.microseconds).scaleb(-6)))
    m = _TIME_RE.fullmatch(value) if isinstance(value, str) else None
    if m is None:
        _fail(path, f"expected an RFC 3339 timestamp such as '2024-05-01T12:00:00Z', got {_show(value)}")
    year, month, day, hour, minute, second = (int(g) for g in m.groups()[:6])
    frac, zone = m.group(7), m.group(8)
    try:
        if zone in ("Z", "z"):
            tz = _dt.timezone.utc
        else:
            sign = -1 if zone[0] == "-" else 1
            tz = _dt.timezone(sign * _dt.timedelta(hours=int(zone[1:3]), minutes=int(zone[4:6])))
        delta = _dt.datetime(year, month, day, hour, minute, second, tzinfo=tz) - _EPOCH
    except (ValueError, OverflowError):
        _fail(path, f"{_show(value)} is not a valid RFC 3339 timestamp")
    whole = delta.days * 86400 + delta.seconds
    if not frac:
        return float(whole)
    return float(_DECIMALS.add(Decimal(whole), Decimal("0" + frac)))


def _format_time(value: float, path: str) -> str:
    """Seconds since the epoch as RFC 3339 (UTC), exact enough that :func:`_time` reads back the
    same float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        _fail(path, f"expected seconds since the epoch, got {_show(value)}")
    try:
        exact = Decimal(repr(float(value)))
        whole = int(exact.to_integral_value(rounding="ROUND_FLOOR"))
        dt = _EPOCH + _dt.timedelta(seconds=whole)
    except (ValueError, OverflowError, ArithmeticError):
        _fail(path, f"{_show(value)} is outside the range of RFC 3339 timestamps")
    text = (f"{dt.year:04d}-{dt.month:02d}-{dt.day:02d}T"
            f"{dt.hour:02d}:{dt.minute:02d}:{dt.second:02d}")
    frac = _DECIMALS.subtract(exact, Decimal(whole))
    if frac:
        digits = format(frac, "f").split(".", 1)[1].rstrip("0")
        text += "." + digits
    return text + "Z"


def _opt_time_out(value: float | None, path: str) -> str | None:
    """An optional timestamp as :func:`_format_time` writes it; ``None`` stays ``None``."""
    return None if value is None else _format_time(value, path)


def _check_top(manifest: Any, kind: str, api_versions: Sequence[str]) -> Mapping[str, Any]:
    if not isinstance(manifest, Mapping):
        _fail("", f"expected a {kind} manifest (a mapping), got {_show(manifest)}")
    got_kind = manifest.get("kind")
    if got_kind is not None and got_kind != kind:
        _fail("kind", f"expected {kind!r}, got {_show(got_kind)}")
    api_version = manifest.get("apiVersion")
    if api_version is not None and api_version not in api_versions:
        want = " or ".join(repr(v) for v in api_versions)
        _fail("apiVersion", f"expected {want} for a {kind}, got {_show(api_version)}")
    return manifest


def _top_parts(manifest: Any, kind: str, api_versions: Sequence[str]) -> tuple[
        Mapping[str, Any], Mapping[str, Any], Mapping[str, Any]]:
    """The ``metadata``, ``spec`` and ``status`` of a *kind* manifest (:func:`_check_top`), each
    checked to be a mapping (empty when absent)."""
    m = _check_top(manifest, kind, api_versions)
    return (_mapping(m.get("metadata"), "metadata"), _mapping(m.get("spec"), "spec"),
            _mapping(m.get("status"), "status"))


def _given_uid(meta: Mapping[str, Any], path: str = "metadata") -> dict[str, Any]:
    """``{"uid": ...}`` when the metadata gives a uid, else ``{}`` (the object keeps the uid it
    derives from its name): the start of a reader's keyword arguments."""
    uid = _str(meta.get("uid"), f"{path}.uid")
    return {"uid": uid} if uid else {}


def _name(meta: Mapping[str, Any], path: str = "metadata") -> str:
    p = f"{path}.name"
    value = _str(meta.get("name"), p)
    if not value:
        if meta.get("generateName"):
            _fail(p, "required (generateName is not supported: give the object a name)")
        _fail(p, "required")
    return value


def _namespace(meta: Mapping[str, Any], path: str = "metadata") -> str:
    p = f"{path}.namespace"
    value = _str(meta.get("namespace"), p)
    if value:
        _check_label(value, p)
    return value or "default"


def _meta_out(name: str, namespace: str | None = None, **extra: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name}
    if namespace is not None:
        meta["namespace"] = namespace
    for k, v in extra.items():
        if v:
            meta[k] = v
    return meta


def _label_selector(value: Any, path: str) -> LabelSelector | None:
    if value is None:
        return None
    m = _mapping(value, path)
    exprs = []
    p_exprs = f"{path}.matchExpressions"
    for i, raw in enumerate(_list(m.get("matchExpressions"), p_exprs)):
        p = f"{p_exprs}[{i}]"
        e = _mapping(raw, p)
        exprs.append(LabelSelectorRequirement(
            key=_str(e.get("key"), f"{p}.key"),
            operator=_required_enum(e, "operator", p, _LABEL_SELECTOR_OPS),
            values=_str_list(e.get("values"), f"{p}.values"),
        ))
    return LabelSelector(_str_map(m.get("matchLabels"), f"{path}.matchLabels"), tuple(exprs))


def _label_selector_out(sel: LabelSelector) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if sel.match_labels:
        out["matchLabels"] = dict(sel.match_labels)
    if sel.match_expressions:
        out["matchExpressions"] = [_requirement_out(r) for r in sel.match_expressions]
    return out


#: The manifest encoding of a label selector, for other layers (plugin args).
label_selector_to_manifest = _label_selector_out


def _requirement_out(r: LabelSelectorRequirement | NodeSelectorRequirement) -> dict[str, Any]:
    out: dict[str, Any] = {"key": r.key, "operator": r.operator}
    if r.values:
        out["values"] = list(r.values)
    return out


def _node_requirements(value: Any, path: str) -> tuple[NodeSelectorRequirement, ...]:
    out = []
    for i, raw in enumerate(_list(value, path)):
        p = f"{path}[{i}]"
        e = _mapping(raw, p)
        out.append(NodeSelectorRequirement(
            key=_str(e.get("key"), f"{p}.key"),
            operator=_required_enum(e, "operator", p, _NODE_SELECTOR_OPS),
            values=_str_list(e.get("values"), f"{p}.values"),
        ))
    return tuple(out)


def _node_selector_term(value: Any, path: str) -> NodeSelectorTerm:
    m = _mapping(value, path)
    return NodeSelectorTerm(
        _node_requirements(m.get("matchExpressions"), f"{path}.matchExpressions"),
        _node_requirements(m.get("matchFields"), f"{path}.matchFields"),
    )


def _node_selector_term_out(term: NodeSelectorTerm) -> dict[str, Any]:
    out: dict[str, Any] = {}
    if term.match_expressions:
        out["matchExpressions"] = [_requirement_out(r) for r in term.match_expressions]
    if term.match_fields:
        out["matchFields"] = [_requirement_out(r) for r in term.match_fields]
    return out


def _quantities_out(q: Mapping[str, Quantity]) -> dict[str, str]:
    return {k: str(v) for k, v in q.items()}


def _items(value: Any, path: str, read: Callable[[Any, str], Any]) -> tuple[Any, ...]:
    return tuple(read(v, f"{path}[{i}]") for i, v in enumerate(_list(value, path)))


# --------------------------------------------------------------------------------------------
# Table-driven codecs of small objects (volume sources, references, a pod's tolerations, ports...)


def _same(value: Any) -> Any:
    return value


def _always(value: Any) -> bool:
    return True


def _given(value: Any) -> bool:
    return value is not None


class _Kind(NamedTuple):
    """How a codec field is read: *read* takes its object's mapping, the field's key and the
    object's path, and returns the value (``None``: the class default); how it is written
    (*write*); and *when* it is written (by default when it is not empty)."""

    read: Callable[[Mapping[str, Any], str, str], Any]
    write: Callable[[Any], Any] = _same
    when: Callable[[Any], bool] = bool


def _read_str(m: Mapping[str, Any], key: str, path: str) -> str:
    value = m.get(key)
    if type(value) is str:  # the common case, without building the field path
        return value
    return _str(value, f"{path}.{key}")


def _read_int(m: Mapping[str, Any], key: str, path: str) -> int | None:
    value = m.get(key)
    if type(value) is int or value is None:
        return value
    return _int(value, f"{path}.{key}")


def _read_bool(m: Mapping[str, Any], key: str, path: str) -> bool:
    value = m.get(key)
    if type(value) is bool:
        return value
    return _bool(value, f"{path}.{key}")


def _read_required_str_list(m: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    p = f"{path}.{key}"
    values = _str_list(m.get(key), p)
    if not values:
        _fail(p, "required")
    return values


def _read_frozen(m: Mapping[str, Any], key: str, path: str) -> Any:
    p = f"{path}.{key}"
    return _deep_freeze(_mapping(m.get(key), p), p)


def _enum_kind(allowed: Sequence[str], *, empty_is_default: bool = False,
               when: Callable[[Any], bool] = bool) -> _Kind:
    """An optional enumeration (absent: the class default; with *empty_is_default*, ``""`` too),
    written *when* (by default: when it is not empty)."""
    def read(m: Mapping[str, Any], key: str, path: str) -> str | None:
        value = m.get(key)
        if not (type(value) is str and value in allowed):
            value = _enum(value, f"{path}.{key}", allowed)
        return value or None if empty_is_default else value
    return _Kind(read, when=when)


def _required_enum_kind(allowed: Sequence[str]) -> _Kind:
    return _Kind(lambda m, key, path: _required_enum(m, key, path, allowed), when=_always)


_REQUIRED_STR: Final = _Kind(_required_str, when=_always)
_REQUIRED_INT: Final = _Kind(_required_int, when=_always)
_REQUIRED_STR_LIST: Final = _Kind(_read_required_str_list, list, _always)
_STR: Final = _Kind(_read_str)
#: a string whose absence (or ``""``) is the class default, not ``""``
_STR_OR_DEFAULT: Final = _Kind(lambda m, key, path: _read_str(m, key, path) or None)
#: a string whose absence is ``None``, written whenever it is set (also ``""``)
_OPT_STR: Final = _Kind(lambda m, key, path: _opt_str(m.get(key), f"{path}.{key}"), when=_given)
#: a boolean whose absence is ``None``, written whenever it is set
_OPT_BOOL: Final = _Kind(lambda m, key, path: _opt_bool(m.get(key), f"{path}.{key}"), when=_given)
#: a value kept as the manifest gives it (the class freezes it), written whenever it is set
_PLAIN: Final = _Kind(lambda m, key, path: m.get(key), thaw, _given)
_INT: Final = _Kind(lambda m, key, path: _read_int(m, key, path) or 0)
#: an integer whose absence is ``None``, written whenever it is set (also 0)
_OPT_INT: Final = _Kind(_read_int, when=_given)
_BOOL: Final = _Kind(_read_bool, lambda _: True)
_STR_LIST: Final = _Kind(lambda m, key, path: _str_list(m.get(key), f"{path}.{key}"), list)
_STR_MAP: Final = _Kind(lambda m, key, path: _str_map(m.get(key), f"{path}.{key}"), dict)
_LABEL_SELECTOR: Final = _Kind(lambda m, key, path: _label_selector(m.get(key), f"{path}.{key}"),
                               _label_selector_out, _given)
_FROZEN: Final = _Kind(_read_frozen, thaw, _always)


class _Field(NamedTuple):
    """One field of a codec: its manifest *key*, the object's attribute *attr*, its kind, and
    whether it is written even when empty (*always*)."""

    key: str
    attr: str
    kind: _Kind
    always: bool = False


_T = TypeVar("_T")


class _Codec(Generic[_T]):
    """Reads and writes a small object field by field from a table. Reading goes in the table's
    order (so the first bad field is the one reported); writing goes in *written* order (the
    keys; by default the table's) and leaves a field out unless its kind's ``when`` holds or it
    is always written."""

    __slots__ = ("_reads", "_values", "_writes", "cls")

    def __init__(self, cls: Callable[..., _T], fields: Sequence[_Field], written: Sequence[str] = ()) -> None:
        self.cls = cls
        self._reads = tuple((f.kind.read, f.key, f.attr) for f in fields)
        by_key = {f.key: f for f in fields}
        out = tuple(by_key[k] for k in written) if written else tuple(fields)
        values = attrgetter(*(f.attr for f in out))  # a tuple of them, or one value of one
        self._values = values if len(out) > 1 else lambda obj: (values(obj),)
        # (key, writer or None for the value itself, when or None for "when not empty")
        self._writes = tuple((f.key, None if f.kind.write is _same else f.kind.write,
                              _always if f.always else None if f.kind.when is bool else f.kind.when)
                             for f in out)

    def read(self, value: Any, path: str) -> _T:
        """The object of the manifest *value* at *path*; raises :class:`ManifestError`."""
        m = _mapping(value, path)
        kw: dict[str, Any] = {}
        for read, key, attr in self._reads:
            v = read(m, key, path)
            if v is not None:
                kw[attr] = v
        return self.cls(**kw)

    def write(self, obj: _T) -> dict[str, Any]:
        """The manifest of *obj*."""
        out: dict[str, Any] = {}
        for (key, write, when), v in zip(self._writes, self._values(obj)):
            if v if when is None else when(v):
                out[key] = v if write is None else write(v)
        return out


def _object_kind(codec: _Codec[Any]) -> _Kind:
    """A nested object of *codec* (absent: read from ``{}``), always written."""
    return _Kind(lambda m, key, path: codec.read(m.get(key), f"{path}.{key}"), codec.write, _always)


def _items_kind(codec: _Codec[Any]) -> _Kind:
    """A list of objects of *codec*, written when not empty."""
    return _Kind(lambda m, key, path: _items(m.get(key), f"{path}.{key}", codec.read),
                 lambda objs: [codec.write(o) for o in objs])


def _read_opt_quantity(m: Mapping[str, Any], key: str, path: str) -> Quantity | None:
    value = m.get(key)
    return None if value is None else _quantity(value, f"{path}.{key}")


#: a quantity whose absence is ``None``, written (as its text) whenever it is set
_OPT_QUANTITY: Final = _Kind(_read_opt_quantity, str, _given)


_OWNER_REFERENCE: Final = _Codec(OwnerReference, (
    _Field("kind", "kind", _REQUIRED_STR), _Field("name", "name", _REQUIRED_STR), _Field("uid", "uid", _STR),
    _Field("apiVersion", "api_version", _STR), _Field("controller", "controller", _BOOL)),
    written=("apiVersion", "kind", "name", "uid", "controller"))
_owner_reference: Final = _OWNER_REFERENCE.read
_owner_reference_out: Final = _OWNER_REFERENCE.write


def _selector_spec(selector: LabelSelector | None) -> dict[str, Any]:
    return {} if selector is None else {"selector": _label_selector_out(selector)}


def _manifest_error(message: str) -> ManifestError:
    return ManifestError("", message)


def _check_non_negative(values: Mapping[str, Quantity], path: str) -> None:
    for name, q in values.items():
        if q.exact < 0:
            _fail(_child(path, name), f"must be greater than or equal to 0, got {q}")


def _check_plain(value: Any, path: str) -> None:
    if isinstance(value, Mapping):
        for k, v in value.items():
            if not isinstance(k, str):
                _fail(path, f"keys must be strings, got {_show(k)}")
            _check_plain(v, _child(path, k))
    elif isinstance(value, (list, tuple)):
        for i, v in enumerate(value):
            _check_plain(v, f"{path}[{i}]")
    elif not (value is None or isinstance(value, (str, int, float, bool))):
        _fail(path, f"unsupported value {_show(value)}")


class _NotPlain(Exception):
    """Raised by :func:`_freeze_plain` (internal): the value is not plain data."""


_SCALARS: Final = frozenset((str, int, float, bool, type(None)))


def _freeze_plain(value: Any) -> Any:
    """:func:`deep_freeze` of plain data in one pass, raising :class:`_NotPlain` otherwise."""
    t = type(value)
    if t in _SCALARS:
        return value
    if t is dict or isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            if type(k) is not str and not isinstance(k, str):
                raise _NotPlain
            out[k] = v if type(v) in _SCALARS else _freeze_plain(v)
        return freeze(out)
    if t is list or isinstance(value, (list, tuple)):
        return tuple([v if type(v) in _SCALARS else _freeze_plain(v) for v in value])
    if isinstance(value, (str, int, float)):  # bool is an int
        return value
    raise _NotPlain


def _deep_freeze(value: Any, path: str) -> Any:
    """A field schedframe keeps without modelling it (a volume source, a claim template), checked
    to be plain data (string keys; strings, numbers, booleans, null) and deeply frozen."""
    try:
        return _freeze_plain(value)
    except _NotPlain:
        _check_plain(value, path)  # finds the field path and raises
        raise  # pragma: no cover - _check_plain raised


def _opt_str(value: Any, path: str) -> str | None:
    """A string field whose absence is not the empty string."""
    return None if value is None else _str(value, path)


def _opt_bool(value: Any, path: str) -> bool | None:
    """A boolean field whose absence is not ``false``."""
    return None if value is None else _bool(value, path)


def _int_or(value: Any, path: str, default: int) -> int:
    number = _int(value, path)
    return default if number is None else number
