"""CEL device selectors (upstream ``k8s.io/dynamic-resource-allocation/cel``) on cel-python.

cel-python (module ``celpy``) is the optional ``dra`` extra, imported on first use. The
environment a selector sees, as upstream's:

- ``device.driver``: the driver name;
- ``device.attributes[domain][id]``: the device's attributes by domain (a qualified name
  ``domain/id`` goes under ``domain``, a short name under the driver's domain, which is always
  present); ints, bools, strings, and versions as semver values;
- ``device.capacity[domain][id]``: quantities.

Kubernetes' CEL libraries the selectors use: ``quantity(s)``, ``isQuantity(s)`` and the quantity
methods ``compareTo``, ``isGreaterThan``, ``isLessThan``, ``add``, ``sub``, ``asInteger``,
``asApproximateFloat``, ``isInteger``, ``sign``; ``semver(s)``, ``isSemver(s)`` and the semver
methods ``compareTo``, ``isGreaterThan``, ``isLessThan``, ``major``, ``minor``, ``patch``.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any, Final, final

from ...api.quantity import Quantity
from ...api.resource import DeviceAttribute
from ...errors import QuantityError

__all__ = ["CelError", "CelUnavailableError", "Selector", "compile_selector", "device_matches"]

EXTRA_HINT: Final = ("CEL device selectors need cel-python, the 'dra' extra: "
                     "pip install 'schedframe[dra]'")

_SEMVER_RE: Final = re.compile(
    r"v?(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)(?:-([0-9A-Za-z.-]+))?(?:\+[0-9A-Za-z.-]+)?")


class CelError(Exception):
    """A selector failed to compile or to evaluate; ``kind`` is ``"compile"`` or ``"runtime"``."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message


class CelUnavailableError(Exception):
    """cel-python is not installed."""

    def __init__(self) -> None:
        super().__init__(EXTRA_HINT)


@final
class _Quantity:
    """A Kubernetes quantity as CEL sees it (exact rational value)."""

    __slots__ = ("value",)

    def __init__(self, value: Fraction) -> None:
        self.value = value

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Quantity) and other.value == self.value

    def __hash__(self) -> int:
        return hash(self.value)

    def __repr__(self) -> str:
        return f"quantity({self.value})"


@final
class _Semver:
    """A semantic version (major, minor, patch, pre-release)."""

    __slots__ = ("key", "text")

    def __init__(self, text: str) -> None:
        m = _SEMVER_RE.fullmatch(text)
        if m is None:
            raise CelError("runtime", f"invalid semver: {text}")
        pre = m.group(4)
        pre_key: tuple[Any, ...] = (1,) if pre is None else (0, *(
            (0, int(p), "") if p.isdigit() else (1, 0, p) for p in pre.split(".")))
        self.key = (int(m.group(1)), int(m.group(2)), int(m.group(3)), pre_key)
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, _Semver) and other.key == self.key

    def __hash__(self) -> int:
        return hash(self.key)

    def __repr__(self) -> str:
        return f"semver({self.text})"


def _celpy() -> Any:
    try:
        import celpy
    except ImportError as exc:  # pragma: no cover - the extra is installed in development
        raise CelUnavailableError() from exc
    return celpy


def _cmp(a: Any, b: Any) -> int:
    if isinstance(a, _Quantity) and isinstance(b, _Quantity):
        return (a.value > b.value) - (a.value < b.value)
    if isinstance(a, _Semver) and isinstance(b, _Semver):
        return (a.key > b.key) - (a.key < b.key)
    raise CelError("runtime", f"no such overload: compareTo({type(a).__name__}, {type(b).__name__})")


def _functions(celtypes: Any) -> dict[str, Callable[..., Any]]:
    def quantity(s: Any) -> _Quantity:
        try:
            return _Quantity(Quantity.parse(str(s)).exact)
        except (QuantityError, ValueError) as exc:
            raise CelError("runtime", f"invalid quantity: {s}") from exc

    def is_quantity(s: Any) -> Any:
        try:
            Quantity.parse(str(s))
        except (QuantityError, ValueError):
            return celtypes.BoolType(False)
        return celtypes.BoolType(True)

    def is_semver(s: Any) -> Any:
        return celtypes.BoolType(_SEMVER_RE.fullmatch(str(s)) is not None)

    def arith(sign: int) -> Callable[[Any, Any], _Quantity]:
        def op(a: Any, b: Any) -> _Quantity:
            if not isinstance(a, _Quantity):
                raise CelError("runtime", "no such overload: add/sub on a non-quantity")
            other = b.value if isinstance(b, _Quantity) else Fraction(int(b))
            return _Quantity(a.value + sign * other)
        return op

    def as_integer(a: _Quantity) -> Any:
        if a.value.denominator != 1 or not -(2**63) <= a.value < 2**63:
            raise CelError("runtime", "cannot convert value to integer")
        return celtypes.IntType(int(a.value))

    def part(i: int) -> Callable[[_Semver], Any]:
        return lambda v: celtypes.IntType(v.key[i])

    return {
        "quantity": quantity,
        "isQuantity": is_quantity,
        "semver": lambda s: _Semver(str(s)),
        "isSemver": is_semver,
        "compareTo": lambda a, b: celtypes.IntType(_cmp(a, b)),
        "isGreaterThan": lambda a, b: celtypes.BoolType(_cmp(a, b) > 0),
        "isLessThan": lambda a, b: celtypes.BoolType(_cmp(a, b) < 0),
        "add": arith(1),
        "sub": arith(-1),
        "asInteger": as_integer,
        "asApproximateFloat": lambda a: celtypes.DoubleType(float(a.value)),
        "isInteger": lambda a: celtypes.BoolType(a.value.denominator == 1),
        "sign": lambda a: celtypes.IntType((a.value > 0) - (a.value < 0)),
        "major": part(0),
        "minor": part(1),
        "patch": part(2),
    }


@final
class Selector:
    """A compiled CEL selector."""

    __slots__ = ("_program", "expression")

    def __init__(self, expression: str, program: Any) -> None:
        self.expression = expression
        self._program = program

    def matches(self, activation: Mapping[str, Any]) -> bool:
        """Evaluate against a device activation (:func:`device_activation`).

        Raises:
            CelError: a runtime error (a missing key, a wrong type, a non-bool result).
        """
        celpy = _celpy()
        try:
            result = self._program.evaluate(activation)
        except CelError:
            raise
        except celpy.CELEvalError as exc:
            raise CelError("runtime", _runtime_message(exc)) from exc
        if isinstance(result, celpy.CELEvalError):
            raise CelError("runtime", _runtime_message(result))
        if not isinstance(result, celpy.celtypes.BoolType):
            raise CelError("runtime", f"expression must evaluate to a bool, got {type(result).__name__}")
        return bool(result)


_MEMBER_RE: Final = re.compile(r"no such member in mapping: '(.*)'")


def _runtime_message(exc: Any) -> str:
    args: tuple[Any, ...] = tuple(getattr(exc, "args", ()))
    first = str(args[0]) if args else str(exc)
    m = _MEMBER_RE.fullmatch(first)
    if m:
        return f"no such key: {m.group(1)}"
    extra: tuple[Any, ...] = tuple(args[2]) if len(args) > 2 and args[2] else ()
    if first == "no such key" and extra:
        return f"no such key: {extra[0]}"
    if extra and isinstance(extra[0], CelError):
        return extra[0].message
    return first


@functools.lru_cache(maxsize=256)
def compile_selector(expression: str) -> Selector:
    """Compile *expression* (cached, as upstream's CEL cache).

    Raises:
        CelUnavailableError: cel-python is not installed (the ``dra`` extra).
        CelError: a compile error.
    """
    celpy = _celpy()
    env = celpy.Environment()
    try:
        ast = env.compile(expression)
    except celpy.CELParseError as exc:
        text = str(exc).strip()
        raise CelError("compile", text.splitlines()[0] if text else "syntax error") from exc
    return Selector(expression, env.program(ast, functions=_functions(celpy.celtypes)))


def _attribute_value(attr: DeviceAttribute, celtypes: Any) -> Any:
    if attr.bool_value is not None:
        return celtypes.BoolType(attr.bool_value)
    if attr.int_value is not None:
        return celtypes.IntType(attr.int_value)
    if attr.string_value is not None:
        return celtypes.StringType(attr.string_value)
    if attr.version is not None:
        return _Semver(attr.version)
    return None  # pragma: no cover - the reader requires one value


def split_name(name: str, driver: str) -> tuple[str, str]:
    """``(domain, id)`` of an attribute or capacity name; a short name is in the driver's domain."""
    domain, sep, ident = name.rpartition("/")
    return (domain, ident) if sep else (driver, name)


def device_activation(driver: str, attributes: Mapping[str, DeviceAttribute],
                      capacity: Mapping[str, Quantity]) -> dict[str, Any]:
    """The CEL activation (``{"device": ...}``) of one device."""
    celtypes = _celpy().celtypes
    s = celtypes.StringType
    attrs_by_domain: dict[str, dict[Any, Any]] = {driver: {}}
    for name, attr in attributes.items():
        domain, ident = split_name(name, driver)
        attrs_by_domain.setdefault(domain, {})[s(ident)] = _attribute_value(attr, celtypes)
    cap_by_domain: dict[str, dict[Any, Any]] = {driver: {}}
    for name, q in capacity.items():
        domain, ident = split_name(name, driver)
        cap_by_domain.setdefault(domain, {})[s(ident)] = _Quantity(q.exact)
    device = celtypes.MapType({
        s("driver"): s(driver),
        s("attributes"): celtypes.MapType({s(d): celtypes.MapType(v) for d, v in attrs_by_domain.items()}),
        s("capacity"): celtypes.MapType({s(d): celtypes.MapType(v) for d, v in cap_by_domain.items()}),
    })
    return {"device": device}


def device_matches(selector: Selector, activation: Mapping[str, Any]) -> bool:
    """Whether the device of *activation* satisfies *selector* (raises :class:`CelError`)."""
    return selector.matches(activation)
