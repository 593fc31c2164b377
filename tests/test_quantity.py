"""Quantity parsing, ported from k8s.io/apimachinery/pkg/api/resource/quantity_test.go."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe.api import Quantity, parse_quantity
from schedframe.errors import QuantityError

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)


def dec(i: int, exponent: int) -> Fraction:
    """Upstream's ``decQuantity(i, exponent, ...)``: i * 10**exponent."""
    return Fraction(i) * Fraction(10) ** exponent


# TestQuantityParse: input -> value
PARSE_CASES = [
    ("0", dec(0, 0)),
    ("0n", dec(0, 0)),
    ("0u", dec(0, 0)),
    ("0m", dec(0, 0)),
    ("0Ki", dec(0, 0)),
    ("0k", dec(0, 0)),
    ("0Mi", dec(0, 0)),
    ("0M", dec(0, 0)),
    ("0Gi", dec(0, 0)),
    ("0G", dec(0, 0)),
    ("0Ti", dec(0, 0)),
    ("0T", dec(0, 0)),
    # quantity-less numbers are allowed
    ("1", dec(1, 0)),
    # binary suffixes
    ("1Ki", dec(1024, 0)),
    ("8Ki", dec(8 * 1024, 0)),
    ("7Mi", dec(7 * 1024**2, 0)),
    ("6Gi", dec(6 * 1024**3, 0)),
    ("5Ti", dec(5 * 1024**4, 0)),
    ("4Pi", dec(4 * 1024**5, 0)),
    ("3Ei", dec(3 * 1024**6, 0)),
    ("10Ti", dec(10 * 1024**4, 0)),
    ("100Ti", dec(100 * 1024**4, 0)),
    # decimal suffixes
    ("5n", dec(5, -9)),
    ("4u", dec(4, -6)),
    ("3m", dec(3, -3)),
    ("9", dec(9, 0)),
    ("8k", dec(8, 3)),
    ("50k", dec(5, 4)),
    ("7M", dec(7, 6)),
    ("6G", dec(6, 9)),
    ("5T", dec(5, 12)),
    ("40T", dec(4, 13)),
    ("300T", dec(3, 14)),
    ("2P", dec(2, 15)),
    ("1E", dec(1, 18)),
    # decimal exponents
    ("1E-3", dec(1, -3)),
    ("1e3", dec(1, 3)),
    ("1E6", dec(1, 6)),
    ("1e9", dec(1, 9)),
    ("1E12", dec(1, 12)),
    ("1e15", dec(1, 15)),
    ("1E18", dec(1, 18)),
    # nonstandard but still parsable
    ("1e14", dec(1, 14)),
    ("1e13", dec(1, 13)),
    ("100.035k", dec(100035, 0)),
    # things that look like floating point
    ("0.001", dec(1, -3)),
    ("0.0005k", dec(5, -1)),
    ("0.005", dec(5, -3)),
    ("0.05", dec(5, -2)),
    ("0.5", dec(5, -1)),
    ("0.00050k", dec(5, -1)),
    ("0.00500", dec(5, -3)),
    ("0.05000", dec(5, -2)),
    ("0.50000", dec(5, -1)),
    ("0.5e0", dec(5, -1)),
    ("0.5e-1", dec(5, -2)),
    ("0.5e-2", dec(5, -3)),
    ("10.035M", dec(10035, 3)),
    ("1.2e3", dec(12, 2)),
    ("1.3E+6", dec(13, 5)),
    ("1.40e9", dec(14, 8)),
    ("1.53E12", dec(153, 10)),
    ("1.6e15", dec(16, 14)),
    ("1.7E18", dec(17, 17)),
    ("9.01", dec(901, -2)),
    ("8.1k", dec(81, 2)),
    ("7.123456M", dec(7123456, 0)),
    ("6.987654321G", dec(6987654321, 0)),
    ("5.444T", dec(5444, 9)),
    ("40.1T", dec(401, 11)),
    ("300.2T", dec(3002, 11)),
    ("2.5P", dec(25, 14)),
    ("1.01E", dec(101, 16)),
    # things that saturate or round (up to nano precision, binary values capped at int64)
    ("3.001n", dec(4, -9)),
    ("1.1E-9", dec(2, -9)),
    ("0.0000000001", dec(1, -9)),
    ("0.0000000005", dec(1, -9)),
    ("0.00000000050", dec(1, -9)),
    ("0.5e-9", dec(1, -9)),
    ("0.9n", dec(1, -9)),
    ("0.00000012345", dec(124, -9)),
    ("0.00000012354", dec(124, -9)),
    ("9Ei", Fraction(INT64_MAX)),
    ("9223372036854775807Ki", Fraction(INT64_MAX)),
    ("12E", dec(12, 18)),
    # fractional binary values
    ("100.035Ki", dec(10243584, -2)),
    ("0.5Mi", dec(524288, 0)),
    ("0.05Gi", dec(536870912, -1)),
    ("0.025Ti", dec(274877906944, -1)),
    # things written by trolls
    ("0.000000000001Ki", dec(2, -9)),
    (".001", dec(1, -3)),
    (".0001k", dec(100, -3)),
    ("1.", dec(1, 0)),
    ("1.G", dec(1, 9)),
]

# The quantity_test.go "invalid" list, plus a few suffix mistakes.
INVALID = [
    "",
    "1.1.M",
    "1+1.0M",
    "0.1mi",
    "0.1am",
    "aoeu",
    ".5i",
    "1i",
    "-3.01i",
    "-3.01e-",
    "1e4294967297",
    "E2147483648",
    "1E-2147483648",
    " 1",
    "1 ",
    "Non-Numeric",
    "1e",
    "1K",
    "1ki",
    "1KiB",
    "1.5.5",
    "e-10",
]


@pytest.mark.parametrize(("text", "want"), [pytest.param(t, w, id=t) for t, w in PARSE_CASES])
def test_parse(text: str, want: Fraction) -> None:
    """parse_quantity gives upstream's value for every TestQuantityParse input."""
    assert parse_quantity(text) == want


@pytest.mark.parametrize(("text", "want"), [pytest.param(t, w, id=t) for t, w in PARSE_CASES])
def test_parse_signed(text: str, want: Fraction) -> None:
    """A leading '-' negates and a leading '+' keeps every TestQuantityParse value."""
    assert parse_quantity("-" + text) == -want
    assert parse_quantity("+" + text) == want


@pytest.mark.parametrize("text", [pytest.param(t, id=repr(t)) for t in INVALID])
def test_parse_invalid(text: str) -> None:
    """Malformed quantities raise QuantityError naming the input."""
    with pytest.raises(QuantityError, match="is not a quantity"):
        parse_quantity(text)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # TestParseQuantityString: the scanner's edge cases
        pytest.param("0.025Ti", dec(274877906944, -1), id="0.025Ti"),
        pytest.param("1.025Ti", Fraction(1025, 1000) * 1024**4, id="1.025Ti"),
        pytest.param("-1.025Ti", -Fraction(1025, 1000) * 1024**4, id="-1.025Ti"),
        pytest.param("1E-3", dec(1, -3), id="1E-3"),
        # upstream reads a number without digits as zero
        pytest.param(".", Fraction(0), id="dot"),
        pytest.param("-.", Fraction(0), id="minus dot"),
        pytest.param("-", Fraction(0), id="minus"),
        pytest.param("+", Fraction(0), id="plus"),
        pytest.param("Mi", Fraction(0), id="bare suffix"),
        pytest.param("e5", Fraction(0), id="bare exponent"),
        pytest.param("000", Fraction(0), id="zeros"),
        # TestNegativeValueRoundsAwayFromZero: values below a nano round to one nano
        pytest.param("-.484785E-7466", Fraction(-1, 10**9), id="tiny negative"),
        pytest.param(".484785E-7466", Fraction(1, 10**9), id="tiny positive"),
        pytest.param("9.5000000001Gi", Fraction(10200547328107374183, 10**9), id="binary fraction"),
        pytest.param("-9Ei", Fraction(-INT64_MAX), id="negative binary cap"),
        pytest.param("1E2147483647", None, id="int32 exponent too large to materialise"),
    ],
)
def test_parse_edge_cases(text: str, want: Fraction | None) -> None:
    """Scanner edge cases parse as upstream does (huge exponents are refused, not built)."""
    if want is None:
        with pytest.raises(QuantityError, match="too large"):
            parse_quantity(text)
    else:
        assert parse_quantity(text) == want


@pytest.mark.parametrize(
    ("text", "value", "milli"),
    [
        # TestNegativeValueRoundsAwayFromZero
        pytest.param("-.484785E-7466", -1, -1, id="tiny negative"),
        pytest.param(".484785E-7466", 1, 1, id="tiny positive"),
        pytest.param("-.484785E-1", -1, -49, id="-0.0484785"),
        pytest.param(".484785E-1", 1, 49, id="0.0484785"),
        pytest.param("-0.0005", -1, -1, id="-0.0005"),
        pytest.param("0.0005", 1, 1, id="0.0005"),
        pytest.param("-1500m", -2, -1500, id="-1500m"),
        pytest.param("1500m", 2, 1500, id="1500m"),
        pytest.param("-9.5000000001Gi", -10200547329, -10200547328108, id="-9.5000000001Gi"),
        pytest.param("9.5000000001Gi", 10200547329, 10200547328108, id="9.5000000001Gi"),
        pytest.param("-1", -1, -1000, id="-1"),
        pytest.param("1", 1, 1000, id="1"),
        pytest.param("0", 0, 0, id="0"),
        # TestScaledValue: one unit at each scale
        pytest.param("1n", 1, 1, id="1n"),
        pytest.param("1u", 1, 1, id="1u"),
        pytest.param("1m", 1, 1, id="1m"),
        pytest.param("100m", 1, 100, id="100m"),
        pytest.param("9.01", 10, 9010, id="9.01"),
        pytest.param("1Gi", 1024**3, 1024**4 * 1000 // 1024, id="1Gi"),
        # saturation at the int64 range, as AsScaledInt64 does
        pytest.param("1e30", INT64_MAX, INT64_MAX, id="huge"),
        pytest.param("-1e30", INT64_MIN, INT64_MIN, id="huge negative"),
        pytest.param("9Ei", INT64_MAX, INT64_MAX, id="9Ei milli overflows"),
    ],
)
def test_value_and_milli_value(text: str, value: int, milli: int) -> None:
    """value() and milli_value() round away from zero and saturate like Value()/MilliValue()."""
    q = Quantity.parse(text)
    assert q.value() == value
    assert q.milli_value() == milli


@pytest.mark.parametrize(
    ("x", "y", "cmp"),
    [
        pytest.param("0", "0", 0, id="zeros"),
        pytest.param("100m", "50m", 1, id="milli"),
        pytest.param("50m", "100m", -1, id="milli reversed"),
        pytest.param("10000T", "100Gi", 1, id="decimal vs binary"),
        pytest.param("1", "1000m", 0, id="same value, other spelling"),
        pytest.param("1Ki", "1024", 0, id="binary vs plain"),
    ],
)
def test_compare(x: str, y: str, cmp: int) -> None:
    """TestQuantityCmp: quantities compare (and are equal) by value, whatever the spelling."""
    qx, qy = Quantity.parse(x), Quantity.parse(y)
    assert (qx.exact > qy.exact) - (qx.exact < qy.exact) == cmp
    assert (qx == qy) == (cmp == 0)


@pytest.mark.parametrize(
    ("quantity", "text"),
    [
        pytest.param(Quantity.parse("0"), "0", id="zero keeps its text"),
        pytest.param(Quantity.parse("1024Mi"), "1024Mi", id="original text kept"),
        pytest.param(Quantity.parse(2), "2", id="int"),
        pytest.param(Quantity.parse(0.5), "500m", id="float"),
        pytest.param(Quantity.parse(1e-10), "1n", id="tiny float rounds to a nano"),
        pytest.param(Quantity.parse(1.5e3), "1500", id="float with exponent"),
        pytest.param(Quantity.from_milli(1500), "1500m", id="from_milli"),
        pytest.param(Quantity.from_milli(2000), "2", id="from_milli whole"),
        pytest.param(Quantity.from_int(7), "7", id="from_int"),
        pytest.param(Quantity(Fraction(3, 10**6)), "3u", id="micro"),
        pytest.param(Quantity(Fraction(7, 10**9)), "7n", id="nano"),
        pytest.param(Quantity(Fraction(1, 3)), "333333334n", id="non-decimal rounds up to a nano"),
        pytest.param(Quantity(Fraction(-1, 3)), "-333333334n", id="negative rounds away from zero"),
    ],
)
def test_str(quantity: Quantity, text: str) -> None:
    """str() gives the original text, or an exact canonical spelling for computed values."""
    assert str(quantity) == text
    assert repr(quantity) == f"Quantity({text!r})"


@pytest.mark.parametrize(
    "value",
    [
        pytest.param(True, id="bool"),
        pytest.param(float("inf"), id="inf"),
        pytest.param(float("nan"), id="nan"),
        pytest.param(None, id="None"),
        pytest.param(["1"], id="list"),
    ],
)
def test_parse_rejects_non_quantities(value: object) -> None:
    """Booleans, non-finite floats and other types are not quantities."""
    with pytest.raises(QuantityError, match="is not a quantity"):
        parse_quantity(value)  # type: ignore[arg-type]


def test_parse_refuses_absurdly_long_numbers() -> None:
    """Numbers with more than a thousand digits are refused rather than built."""
    with pytest.raises(QuantityError, match="more than 1000 digits"):
        parse_quantity("1" * 1001)


SUFFIXES: dict[str, int | Fraction] = {
    "": 1, "k": 10**3, "M": 10**6, "G": 10**9, "T": 10**12, "P": 10**15, "E": 10**18,
    "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "m": Fraction(1, 10**3),
    "u": Fraction(1, 10**6), "n": Fraction(1, 10**9), "e3": 10**3, "E-2": Fraction(1, 100),
}


@given(st.integers(min_value=0, max_value=10**12), st.sampled_from(sorted(SUFFIXES)))
def test_integer_with_suffix(n: int, suffix: str) -> None:
    """An integer with any suffix parses to n times the suffix's multiplier (binary values capped
    at the largest int64)."""
    want = n * Fraction(SUFFIXES[suffix])
    if suffix.endswith("i"):
        want = min(want, Fraction(INT64_MAX))
    assert parse_quantity(f"{n}{suffix}") == want


@given(st.integers(min_value=-(10**15), max_value=10**15), st.integers(min_value=0, max_value=12),
       st.sampled_from(sorted(SUFFIXES)))
def test_canonical_text_round_trips(mantissa: int, scale: int, suffix: str) -> None:
    """Writing a parsed quantity's value back out and parsing it again gives the same value."""
    q = Quantity.parse(f"{mantissa / 10**scale:.{scale}f}{suffix}")
    assert parse_quantity(str(Quantity(q.exact))) == q.exact


@given(st.floats(min_value=0, max_value=1e12, allow_nan=False))
def test_float_input_matches_its_decimal_text(value: float) -> None:
    """A float (a JSON number) parses exactly as its shortest decimal text would."""
    assert parse_quantity(value) == parse_quantity(repr(value))
