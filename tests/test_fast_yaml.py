"""The fast YAML path (the ``fastyaml`` extra, yaml-rs) reads every text as PyYAML's safe loader
does, or leaves it to PyYAML: never a different object, never a different error."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import _textio
from schedframe.errors import InputError

pytest.importorskip("yaml", reason="the fast YAML path needs PyYAML (the yaml extra)")
pytest.importorskip("yaml_rs", reason="the fastyaml extra (yaml-rs) is not installed")

DATA = Path(__file__).parent / "data"


@pytest.fixture(autouse=True)
def _fast_for_any_size(monkeypatch: pytest.MonkeyPatch) -> None:
    """The fast path is tried on text of any size here (by default only on 64 KiB and more)."""
    monkeypatch.setattr(_textio, "fast_yaml_min_chars", 0)


def _pyyaml(text: str) -> Any:
    """parse_documents with the fast parser hidden: PyYAML alone, as without the extra."""
    saved = list(_textio._fast)
    _textio._fast[:] = [None]
    try:
        return _textio.parse_documents(text)
    except InputError as e:
        return ("error", str(e))
    finally:
        _textio._fast[:] = saved


def _both(text: str) -> Any:
    try:
        got = _textio.parse_documents(text)
    except InputError as e:
        got = ("error", str(e))
    return got, _pyyaml(text)


def test_fast_parser_is_used() -> None:
    """With the extra installed, the fast parser is found and reads a plain manifest."""
    assert (_textio.fast_yaml_parser() or "").startswith("yaml-rs ")
    assert _textio._fast_documents("kind: Pod\nmetadata:\n  name: a\n") == [
        {"kind": "Pod", "metadata": {"name": "a"}}]


@pytest.mark.parametrize("path", sorted(p for p in DATA.rglob("*") if p.suffix in (".yaml", ".yml")),
                         ids=lambda p: str(p.relative_to(DATA)))
def test_every_manifest_in_tests_data(path: Path) -> None:
    """Every YAML file in tests/data reads to the same objects with and without the fast parser."""
    got, want = _both(path.read_text(encoding="utf-8"))
    assert got == want


CORNERS = [
    # YAML 1.1 booleans, octal, sexagesimal, exponents, underscores, timestamps, '='
    "a: yes", "a: No", "a: on", "a: OFF", "- y\n- n", "a: 0755", "a: 010", "a: 0o17", "a: 0x1F",
    "a: 0b101", "a: 1_000", "a: 1e3", "a: 1.0e+3", "a: 12:30", "a: 1:2:3", "a: .inf", "a: -.Inf",
    "a: 2024-01-01", "a: 2024-01-01T00:00:00Z", "a: 2001-12-14 21:59:43.10 -5", "a: '2024-01-01'",
    "a: 12345678901234567890123", "a: '0755'", 'a: "yes"', "a: [yes, no, 0755]", "{a: on}",
    "a: =", "a: ~", "a: null", "a: True", "a: 0", "a: -0", "a: 00", "a: 1.", "a: .5", "a: +1",
    # keys
    "1: a", "'1': a\n1: b", "yes: a", "null: a", "a: 1\n'a': 2", "a: 1\na: 2",
    # documents
    "", "---\n", "a: 1\n---\nb: 2\n", "a: 1\n...\n", "--- a\n", "# only a comment\n",
    "%YAML 1.1\n---\na: 1\n", "---\n- 1\n---\n", "- 1\n- 2\n",
    # anchors, aliases, merge keys, tags, complex keys
    "a: &x 1\nb: *x", "a: &x [1, 2]\nb: *x", "<<: {a: 1}\nb: 2", "a: !!str 1", "? [a, b]\n: c",
    "[a]: b", "a: *undefined",
    "a: &a [x, x, x, x, x, x, x, x, x]\nb: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    "c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]\nd: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    "e: [*d, *d, *d, *d, *d, *d, *d, *d, *d]\n",
    # characters, syntax errors, nesting
    "a: b\u2028c", "a: b\x85c", "a: b\r\nc: d\r\n", "a: [1, 2", "a: - b", "\ta: 1", "a: \"\\x41\\u00e9\"",
    "[" * 300 + "]" * 300, "- " * 50_000 + "x\n", "a:\n" + "- " * 50_000 + "x\n",
    "[" * 100_000 + "]" * 100_000, "".join("  " * i + f"k{i}:\n" for i in range(300)) + "  " * 300 + "x",
    "a: '{\"x\": [1, 2]}'", "a: |\n  yes\n  0755\n", "a: >\n  folded\n  text\n",
]


@pytest.mark.parametrize("text", CORNERS)
def test_yaml_1_1_corners(text: str) -> None:
    """The YAML 1.1 corners Kubernetes manifests meet read exactly as PyYAML reads them (the
    same objects, or the same error)."""
    got, want = _both(text)
    assert repr(got) == repr(want)  # repr: nan == nan, and int 1 vs True vs 1.0 told apart


@pytest.mark.parametrize("text", ["a: yes", "a: 0755", "a: 12:30", "a: 1e3", "a: 2024-01-01",
                                  "a: &x 1\nb: *x", "1: a", "a: b\r\n",
                                  "- -.0", "a: +.5", "[-.25]"])
def test_risky_text_goes_to_pyyaml(text: str) -> None:
    """Text the two parsers may read differently is never given to the fast parser."""
    assert _textio._fast_documents(text) is None


def test_duplicate_keys_refused_with_pyyaml_wording() -> None:
    """A duplicate key is refused with the same message as without the extra."""
    got, want = _both("a: 1\nb: 2\na: 3\n")
    assert got == want
    assert got[0] == "error"
    assert "duplicate key 'a'" in got[1]


_SCALARS = st.one_of(
    st.text(alphabet="ab0159:.-_ eE+yYnNoO~#'\"\\/", max_size=8), st.integers(), st.booleans(), st.none(),
    st.floats(allow_nan=False), st.sampled_from(["yes", "on", "0755", "12:30", "1e3", "2024-01-01", "="]))
_DATA = st.recursive(_SCALARS, lambda inner: st.one_of(
    st.lists(inner, max_size=4), st.dictionaries(st.text(alphabet="ab01:-y ", min_size=1, max_size=5), inner,
                                                 max_size=4)), max_leaves=12)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(_DATA, st.sampled_from([None, False, True]))
def test_random_documents(data: Any, flow: bool | None) -> None:
    """Random documents, dumped by PyYAML in block or flow style, read the same both ways."""
    import yaml

    text = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=True)
    got, want = _both(text)
    assert repr(got) == repr(want)
