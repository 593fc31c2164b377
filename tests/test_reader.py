"""The one field reader (schedframe._reader): one wording, one describer, one "did you mean",
the owner's error with source, path and detail."""

from __future__ import annotations

import datetime
from typing import Any

import pytest

from schedframe import ScenarioError
from schedframe._reader import FieldReader, child_path, describe, expected, yaml_hint


def reader(source: str = "s.yaml") -> FieldReader:
    return FieldReader(lambda path, detail: ScenarioError(source, path, detail))


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (None, "null"),
        (True, "true"),
        (False, "false"),
        ({"a": 1}, "a mapping"),
        ([1], "a list"),
        ((1,), "a list"),
        ("abc", "'abc'"),
        (3, "3"),
        (1.5, "1.5"),
        (b"x", "bytes b'x'"),
    ],
)
def test_describe(value: Any, shown: str) -> None:
    assert describe(value) == shown


def test_describe_is_bounded() -> None:
    assert len(describe("x" * 10_000)) == 80
    assert describe("x" * 10_000).endswith("...")


def test_expected_and_hint() -> None:
    assert expected("a mapping", [1]) == "expected a mapping, got a list"
    assert yaml_hint(1.10) == " (quote it in YAML)"
    assert yaml_hint(datetime.date(2024, 1, 1)) == " (quote it in YAML)"
    assert yaml_hint("1.10") == ""
    assert child_path("", "nodes") == "nodes"
    assert child_path("spec", "nodes") == "spec.nodes"


def test_errors_are_the_owners_with_source_path_and_detail() -> None:
    with pytest.raises(ScenarioError) as info:
        reader().mapping([1], "workloads[0]")
    assert (info.value.source, info.value.path, info.value.detail) == (
        "s.yaml", "workloads[0]", "expected a mapping, got a list")
    assert str(info.value) == "s.yaml: workloads[0]: expected a mapping, got a list"


@pytest.mark.parametrize(
    ("read", "detail"),
    [
        (lambda r: r.list({"a": 1}, "p"), "expected a list, got a mapping"),
        (lambda r: r.string(1.10, "p"), "expected a string, got 1.1 (quote it in YAML)"),
        (lambda r: r.string("", "p", non_empty=True), "expected a non-empty string, got ''"),
        (lambda r: r.strings(["a", 2], "p"), "expected a string, got 2 (quote it in YAML)"),
        (lambda r: r.integer(True, "p"), "expected an integer, got true"),
        (lambda r: r.integer(1.0, "p"), "expected an integer, got 1.0"),
        (lambda r: r.integer(-1, "p", minimum=0), "must be >= 0, got -1"),
        (lambda r: r.integer(5_000, "p", minimum=0, maximum=1_000), "must be in [0, 1,000], got 5000"),
        (lambda r: r.integer(5_000, "p", maximum=1_000), "must be <= 1,000, got 5000"),
        (lambda r: r.number("3", "p"), "expected a number, got '3'"),
        (lambda r: r.number(float("nan"), "p"), "expected a finite number, got nan"),
        (lambda r: r.number(-0.5, "p", minimum=0.0), "must be >= 0, got -0.5"),
        (lambda r: r.boolean("yes", "p"), "expected true or false, got 'yes'"),
    ],
)
def test_wrong_values(read: Any, detail: str) -> None:
    with pytest.raises(ScenarioError) as info:
        read(reader())
    assert info.value.detail == detail
    assert info.value.path.startswith("p")


def test_right_values_pass_through() -> None:
    r = reader()
    assert r.list(None, "p", optional=True) == ()
    assert r.strings(["a", "b"], "p") == ("a", "b")
    assert r.integer(3, "p", minimum=0, maximum=3) == 3
    assert r.number(2, "p") == 2.0
    assert r.boolean(False, "p") is False
    assert r.required({"a": 0}, "a", "spec") == 0


def test_required_and_unknown_fields() -> None:
    with pytest.raises(ScenarioError) as info:
        reader().required({"a": None}, "a", "spec")
    assert (info.value.path, info.value.detail) == ("spec.a", "required")
    with pytest.raises(ScenarioError) as info:
        reader().known({"nodse": 1}, "", ("name", "nodes"))
    assert info.value.path == "nodse"
    assert info.value.detail == "unknown field; did you mean 'nodes'? (known: name, nodes)"
