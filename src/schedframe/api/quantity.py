"""Kubernetes resource quantities (``"500m"``, ``"1Gi"``, ``"1e3"``, ``"0.5"``).

Parsing follows ``k8s.io/apimachinery/pkg/api/resource``: an optional sign, a decimal number, and
one optional suffix -- binary SI (``Ki`` .. ``Ei``), decimal SI (``n u m k M G T P E``) or a
decimal exponent (``e3``, ``E-2``). Values are kept exact (as fractions) after upstream's rounding
to nano precision; ``value()`` and ``milli_value()`` round away from zero, as Kubernetes'
``Value()`` and ``MilliValue()`` do.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from typing import Final, final

import attrs

from ..errors import QuantityError, bounded_repr

__all__ = ["Quantity", "parse_quantity"]

_BINARY: Final = {"Ki": 1, "Mi": 2, "Gi": 3, "Ti": 4, "Pi": 5, "Ei": 6}
_DECIMAL: Final = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12, "P": 15, "E": 18}
# The shape Kubernetes' scanner accepts (``parseQuantityString``): a sign, digits, an optional
# fraction, then suffix letters, an optional sign and digits. Which suffixes are valid is decided
# afterwards, as upstream does. Digits may be missing entirely: upstream reads ".", "-" and a
# bare suffix such as "Mi" as zero.
_RE: Final = re.compile(r"([+-]?)([0-9]*)(?:\.([0-9]*))?([eEinumkKMGTP]*[+-]?[0-9]*)")
_INT32_MAX: Final = 2**31 - 1
#: Upstream caps binary-SI quantities at the largest int64 (``maxAllowed``).
_MAX_ALLOWED: Final = Fraction(2**63 - 1)
_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
#: Longer numbers and larger decimal exponents are refused (upstream would accept numbers with
#: billions of digits; no resource amount needs them).
_MAX_DIGITS: Final = 1000
_MAX_INT: Final = 10**_MAX_DIGITS
_CACHE: dict[str, Fraction] = {}


def parse_quantity(text: str | int | float) -> Fraction:
    """Parse a Kubernetes quantity into its exact value.

    Follows ``resource.ParseQuantity``: values are rounded up (away from zero) to a multiple of
    10\\ :sup:`-9`, and binary-SI values (``Ki`` .. ``Ei``) are capped at 2\\ :sup:`63`-1.

    Args:
        text: ``"100m"``, ``"1Gi"``, ``"1e3"``... An ``int`` is taken as is; a finite ``float`` as
            its shortest decimal representation (as a JSON number would be).

    Returns:
        The exact value as a :class:`fractions.Fraction`.

    Raises:
        QuantityError: when *text* is not a quantity.
    """
    if isinstance(text, bool):
        raise QuantityError(f"{bounded_repr(text)} is not a quantity")
    if isinstance(text, int):
        if not -_MAX_INT < text < _MAX_INT:  # as for strings (and printable in messages)
            raise QuantityError(f"an integer of {text.bit_length()} bits is not a quantity "
                                f"(more than {_MAX_DIGITS} digits)")
        return Fraction(text)
    if isinstance(text, float):
        if not math.isfinite(text):
            raise QuantityError(f"{bounded_repr(text)} is not a quantity")
        text = repr(text)
    elif not isinstance(text, str):
        raise QuantityError(f"{bounded_repr(text)} is not a quantity (expected a string)")
    cached: Fraction | None = _CACHE.get(text)
    if cached is not None:
        return cached
    value = _parse(text)
    if len(_CACHE) < 4096:
        _CACHE[text] = value
    return value


#: Longer text cannot be a quantity of at most _MAX_DIGITS digits (sign, point, suffix and
#: exponent included); refusing it first keeps the pattern match linear (its digit groups
#: overlap, so a long non-match would backtrack quadratically).
_MAX_TEXT: Final = 2 * _MAX_DIGITS + 32


def _parse(text: str) -> Fraction:
    if len(text) > _MAX_TEXT:
        raise QuantityError(f"{text[:20]!r}... is not a quantity (more than {_MAX_DIGITS} digits)")
    m = _RE.fullmatch(text) if text else None
    if m is None:
        raise QuantityError(f"{bounded_repr(text)} is not a quantity")
    sign, whole, frac, suffix = m.group(1), m.group(2), m.group(3) or "", m.group(4)
    binary = suffix in _BINARY
    if binary:
        exp = 0
    elif suffix in _DECIMAL:
        exp = _DECIMAL[suffix]
    elif len(suffix) > 1 and suffix[0] in "eE" and re.fullmatch(r"[+-]?[0-9]+", suffix[1:]):
        exp = int(suffix[1:])
        if not -_INT32_MAX <= exp <= _INT32_MAX:
            raise QuantityError(f"{bounded_repr(text)} is not a quantity (exponent out of range)")
    else:
        raise QuantityError(f"{bounded_repr(text)} is not a quantity (unknown suffix {bounded_repr(suffix)})")
    if not whole and not frac and exp < -9:
        # upstream takes its decimal path here and cannot read an empty number
        raise QuantityError(f"{bounded_repr(text)} is not a quantity (no digits)")
    digits = (whole + frac).lstrip("0")
    if not digits:
        return Fraction(0)
    if len(digits) > _MAX_DIGITS:
        raise QuantityError(f"{text[:20]!r}... is not a quantity (more than {_MAX_DIGITS} digits)")
    mantissa = int(digits)
    scale = exp - len(frac)  # value = mantissa * 10**scale (* 1024**k when binary)
    if binary:
        value = Fraction(mantissa * 1024 ** _BINARY[suffix], 10 ** len(frac))
    elif scale >= 0:
        if scale > _MAX_DIGITS:
            raise QuantityError(f"{bounded_repr(text)} is not a quantity (too large)")
        value = Fraction(mantissa * 10**scale)
    elif scale >= -9:
        value = Fraction(mantissa, 10**-scale)
    elif -scale - 9 > len(digits):
        value = Fraction(1, 10**9)  # below one nano: rounds up to 1n
    else:
        value = Fraction(mantissa, 10**-scale)
    # round up (away from zero) to nano precision
    nanos = value * 10**9
    if nanos.denominator != 1:
        value = Fraction(-(-nanos.numerator // nanos.denominator), 10**9)
    if binary and value > _MAX_ALLOWED:
        value = _MAX_ALLOWED
    return -value if sign == "-" else value


def _round_away(value: Fraction) -> int:
    """Round to an integer away from zero, saturating at the int64 range like upstream."""
    if value.denominator == 1:
        n = value.numerator
    elif value > 0:
        n = -(-value.numerator // value.denominator)
    else:
        n = value.numerator // value.denominator
    return _INT64_MAX if n > _INT64_MAX else _INT64_MIN if n < _INT64_MIN else n


@final
@attrs.frozen(repr=False)
class Quantity:
    """An exact Kubernetes quantity.

    Two quantities are equal when their values are, whatever their spelling
    (``Quantity.parse("1") == Quantity.parse("1000m")``).

    .. versionadded:: 0.1.0
    """

    __module__ = "schedframe.api"

    exact: Fraction
    text: str = attrs.field(eq=False, default="")

    @classmethod
    def parse(cls, text: str | int | float) -> Quantity:
        """Parse *text*; raises :class:`~schedframe.errors.QuantityError` when malformed."""
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
        """The value in base units, rounded away from zero (Kubernetes ``Value()``).

        Like upstream, the result saturates at the int64 range.
        """
        return _round_away(self.exact)

    def milli_value(self) -> int:
        """The value in thousandths, rounded away from zero (Kubernetes ``MilliValue()``)."""
        return _round_away(self.exact * 1000)

    def __str__(self) -> str:
        return self.text or _format(self.exact)

    def __repr__(self) -> str:
        return f"Quantity({str(self)!r})"


def _format(value: Fraction) -> str:
    """An exact quantity string for *value* (rounded away from zero to nano precision)."""
    if value.denominator == 1:
        return str(value.numerator)
    for suffix, factor in (("m", 1000), ("u", 10**6)):
        scaled = value * factor
        if scaled.denominator == 1:
            return f"{scaled.numerator}{suffix}"
    nanos = value * 10**9
    n = nanos.numerator // nanos.denominator
    if nanos.denominator != 1 and n >= 0:
        n += 1
    return f"{n}n"
