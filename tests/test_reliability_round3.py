"""Issue #50, reliability round 3: Python entry points checked like files, every message and
number bounded, ambiguity an error. Each test failed before its fix."""

from __future__ import annotations

import math
import time
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import ConfigurationError, Scheduler, SchedulerConfiguration
from schedframe.api.manifests import object_from_manifest
from schedframe.config._releases import SUPPORTED_RELEASES
from schedframe.plan import (
    NodeTemplate,
    TemplateError,
    example_cluster,
    example_templates,
    plan,
    templates_from_data,
)
from schedframe.plan._templates import MAX_PRICE, MAX_TEMPLATES

_FAST = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def _cluster() -> list[Any]:
    return [object_from_manifest(m) for m in example_cluster()]


def _template(**kw: Any) -> NodeTemplate:
    base = templates_from_data(example_templates())[0]
    return attrs.evolve(base, **kw)


# -- 1. plan() with templates built in Python -----------------------------------------------------

def test_plan_caps_python_templates_before_any_work() -> None:
    t = _template()
    many = [attrs.evolve(t, name=f"t-{i}") for i in range(MAX_TEMPLATES + 1)]
    t0 = time.perf_counter()
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), iter([*many, *(t for _ in range(10**6))]))
    assert info.value.path == "templates"
    assert f"at most {MAX_TEMPLATES}" in str(info.value)
    assert time.perf_counter() - t0 < 30


def test_plan_duplicate_template_names_are_found_linearly() -> None:
    t = _template()
    names = [attrs.evolve(t, name=f"t-{i}") for i in range(MAX_TEMPLATES - 1)]
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), [*names, attrs.evolve(t, name="t-3")])
    assert info.value.path == f"templates[{MAX_TEMPLATES - 1}].name"
    assert "'t-3'" in str(info.value)


@pytest.mark.parametrize(("field", "value"), [
    ("node", None), ("price", float("nan")), ("price", -1.0), ("price", math.inf), ("price", "0.5"),
    ("price", 1e308), ("price", 10**400), ("max_count", "5"), ("max_count", -1), ("max_count", 1.5),
    ("priority", 2**31), ("priority", None), ("name", None), ("name", ""),
])
def test_bad_node_template_fields_are_template_errors(field: str, value: Any) -> None:
    with pytest.raises(TemplateError) as info:
        _template(**{field: value})
    assert info.value.path == field
    assert len(str(info.value)) < 300
    # a template built around its validators is refused by plan(), naming its index
    t = _template(name="zz")
    object.__setattr__(t, field, value)
    good = templates_from_data(example_templates())
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), [*good, t])
    assert info.value.path == f"templates[{len(good)}].{field}"


@_FAST
@given(st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.integers(), st.text(max_size=20),
                 st.none(), st.booleans()))
def test_node_template_price_is_finite_and_bounded_or_refused(price: Any) -> None:
    ok = price is None or (not isinstance(price, (bool, str)) and 0 <= price <= MAX_PRICE)
    if ok:
        assert _template(price=price).price == price
    else:
        with pytest.raises(TemplateError) as info:
            _template(price=price)
        assert info.value.path == "price"


@pytest.mark.parametrize("strategy", [None, 3, ["price"], "x" * 100_000])
def test_plan_strategy_of_the_wrong_type_is_a_template_error(strategy: Any) -> None:
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), templates_from_data(example_templates()), strategy=strategy)
    assert info.value.path == "strategy"
    assert len(str(info.value)) < 400


@pytest.mark.parametrize("templates", [None, 5, b"x", {"a": 1}])
def test_plan_templates_not_an_iterable_is_a_template_error(templates: Any) -> None:
    with pytest.raises(TemplateError) as info:
        plan(_cluster(), templates)
    assert info.value.path == "templates"


def test_template_price_read_from_a_file_is_capped() -> None:
    doc = example_templates()
    doc["templates"][0]["price"] = 1e308
    with pytest.raises(TemplateError) as info:
        templates_from_data(doc)
    assert info.value.path == "templates[0].price"


# -- 2. one release parser ------------------------------------------------------------------------

@pytest.mark.parametrize("version", ["", 0, False, [], 1.33, "1" * 5000 + ".33", "1." + "3" * 5000])
def test_scheduler_and_with_release_refuse_what_every_entry_point_refuses(version: Any) -> None:
    config = SchedulerConfiguration.default()
    for call in (lambda: Scheduler(config, kubernetes_version=version),
                 lambda: config.with_release(version),
                 lambda: SchedulerConfiguration.default(kubernetes_version=version),
                 lambda: Scheduler(kubernetes_version=version)):
        with pytest.raises(ConfigurationError) as info:
            call()
        assert str(info.value).startswith("kubernetes_version: ")
        assert len(str(info.value)) < 300


def test_with_release_none_keeps_the_release() -> None:
    config = SchedulerConfiguration.default(kubernetes_version="1.33")
    assert config.with_release(None) is config
    assert Scheduler(config).config.release.version == "1.33"


@_FAST
@given(st.text(alphabet="v0123456789.-+", max_size=40) | st.text(min_size=4000, max_size=6000,
                                                                  alphabet="0123456789."))
def test_any_version_string_is_a_release_or_a_configuration_error(text: str) -> None:
    errors: list[str] = []
    try:
        got = SchedulerConfiguration.default().with_release(text)
    except ConfigurationError as exc:
        errors.append(str(exc))
    else:
        assert got.release.version in SUPPORTED_RELEASES
    assert all(len(e) < 300 for e in errors)
