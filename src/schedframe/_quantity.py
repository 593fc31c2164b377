"""Kubernetes resource quantities (``"500m"``, ``"1Gi"``, ``"1e3"``, ``"0.5"``).

Parsing follows ``k8s.io/apimachinery/pkg/api/resource``: an optional sign, a decimal number, and
one optional suffix -- binary SI (``Ki`` .. ``Ei``), decimal SI (``n u m k M G T P E``) or a
decimal exponent (``e3``, ``E-2``). Values are kept exact (as fractions); ``value()`` and
``milli_value()`` round up, as Kubernetes' ``Value()`` and ``MilliValue()`` do.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Final, final

import attrs

from ._exceptions import QuantityError

__all__ = ["Quantity", "parse_quantity"]

_BINARY: Final = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
_RE: Final = re.compile(
    r"([+-]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+))"
    r"(Ki|Mi|Gi|Ti|Pi|Ei|n|u|m|k|M|G|T|P|E|[eE][+-]?[0-9]+)?"
)
_CACHE: dict[str, Fraction] = {}


def parse_quantity(text: str | int | float) -> Fraction:
    """Parse a Kubernetes quantity into its exact value.

    Args:
        text: ``"100m"``, ``"1Gi"``, ``"1e3"``... An ``int`` is taken as is; a finite ``float`` as
            its decimal representation.

    Returns:
        The exact value as a :class:`fractions.Fraction`.

    Raises:
        QuantityError: when *text* is not a quantity.
    """
    if isinstance(text, bool):
        raise QuantityError(f"{text!r} is not a quantity")
    if isinstance(text, int):
        return Fraction(text)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise QuantityError(f"{text!r} is not a quantity")
        return Fraction(repr(text))
    if not isinstance(text, str):
        raise QuantityError(f"{text!r} is not a quantity (expected a string)")
    cached: Fraction | None = _CACHE.get(text)
    if cached is not None:
        return cached
    m = _RE.fullmatch(text)
    if m is None:
        raise QuantityError(f"{text!r} is not a quantity")
    number, suffix = m.group(1), m.group(2) or ""
    value = Fraction(number)
    if suffix in _BINARY:
        value *= Fraction(1024) ** _BINARY[suffix]
    else:
        exp = _DECIMAL[suffix] if suffix in _DECIMAL else int(suffix[1:])
        if abs(exp) > 400:
            raise QuantityError(f"{text!r} is not a quantity (exponent out of range)")
        value *= Fraction(10) ** exp
    if len(_CACHE) < 4096:
        _CACHE[text] = value
    return value


def _ceil(value: Fraction) -> int:
    return -((-value.numerator) // value.denominator)


@final
@attrs.frozen(repr=False)
class Quantity:
    """An exact Kubernetes quantity.

    Two quantities are equal when their values are, whatever their spelling
    (``Quantity.parse("1") == Quantity.parse("1000m")``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe"

    exact: Fraction
    text: str = attrs.field(eq=False, default="")

    @classmethod
    def parse(cls, text: str | int | float) -> Quantity:
        """Parse *text*; raises :class:`~schedframe.QuantityError` when malformed."""
        value = parse_quantity(text)
        return cls(value, text if isinstance(text, str) else _format(value))

    @classmethod
    def from_int(cls, value: int) -> Quantity:
        """The quantity of *value* base units."""
        return cls(Fraction(value), str(value))

    @classmethod
    def from_milli(cls, milli: int) -> Quantity:
        """The quantity of *milli* thousandths (CPU millicores)."""
        value = Fraction(milli, 1000)
        return cls(value, _format(value))

    def value(self) -> int:
        """The value in base units, rounded up (Kubernetes ``Value()``)."""
        return _ceil(self.exact)

    def milli_value(self) -> int:
        """The value in thousandths, rounded up (Kubernetes ``MilliValue()``)."""
        return _ceil(self.exact * 1000)

    def __str__(self) -> str:
        return self.text or _format(self.exact)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def _format(value: Fraction) -> str:
    if value.denominator == 1:
        return str(value.numerator)
    milli = value * 1000
    if milli.denominator == 1:
        return f"{milli.numerator}m"
    return f"{_ceil(milli)}m"
