"""Configuration errors never echo a user value unbounded (issue #30, R5): a 10 MB plugin name,
key or args value yields a short ConfigurationError that still names the field path."""

from __future__ import annotations

from typing import Any

import pytest

import schedframe.config
from schedframe import ConfigurationError, SchedulerConfiguration
from schedframe.config import Profile

BIG = "A" * 10_000_000
# the longest single problem reported (schedframe.config.MAX_CONFIG_ERROR)
MAX_CONFIG_ERROR = 2048
# an error quotes at most about 80 characters of a value; the path and the wording add some
SHORT = 600


def doc(**fields: Any) -> dict[str, Any]:
    return {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            **fields}


def profile(**fields: Any) -> dict[str, Any]:
    return doc(profiles=[fields])


@pytest.mark.parametrize(("data", "path"), [
    pytest.param(profile(plugins={"filter": {"enabled": [{"name": BIG}]}}),
                 "profiles[0].plugins.filter.enabled[0]", id="filter.enabled"),
    pytest.param(profile(plugins={"multiPoint": {"enabled": [{"name": BIG}]}}),
                 "profiles[0].plugins.multiPoint.enabled[0]", id="multiPoint.enabled"),
    pytest.param(profile(plugins={"score": {"enabled": [{"name": BIG, "weight": 2}]}}),
                 "profiles[0].plugins.score.enabled[0]", id="score.enabled"),
    pytest.param(profile(pluginConfig=[{"name": BIG, "args": {}}]),
                 "profiles[0].pluginConfig[0].name", id="pluginConfig.name"),
    pytest.param(profile(plugins={BIG: {}}), "profiles[0].plugins[", id="unknown extension point key"),
    pytest.param(profile(plugins={"score": {"enabled": [{"name": "NodeResourcesFit", BIG: 1}]}}),
                 "profiles[0].plugins.score.enabled[0][", id="unknown key in a plugin entry"),
    pytest.param(doc(**{BIG: 1}), '["AAAA', id="unknown top-level key"),
    pytest.param(profile(pluginConfig=[{"name": "NodeResourcesFit",
                                        "args": {"scoringStrategy": {"type": BIG}}}]),
                 "profiles[0].pluginConfig[0].args.scoringStrategy.type", id="args value"),
    pytest.param(profile(pluginConfig=[{"name": "InterPodAffinity", "args": {BIG: 1}}]),
                 "profiles[0].pluginConfig[0].args", id="args unknown field"),
    pytest.param(profile(pluginConfig=[{"name": "NodeResourcesFit", "args": {"kind": BIG}}]),
                 "profiles[0].pluginConfig[0].args.kind", id="args kind"),
])
def test_configuration_errors_are_bounded(data: dict[str, Any], path: str) -> None:
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict(data)
    errors = info.value.errors
    assert any(error.startswith(path) for error in errors), errors
    for error in errors:
        assert len(error) <= MAX_CONFIG_ERROR
    assert len(str(info.value)) < SHORT * max(1, len(errors)) + MAX_CONFIG_ERROR * 2


@pytest.mark.parametrize("where", ["filter.enabled", "multiPoint.enabled", "pluginConfig"])
def test_a_long_plugin_name_is_quoted_short_with_its_length(where: str) -> None:
    if where == "pluginConfig":
        data = profile(pluginConfig=[{"name": BIG}])
    else:
        point, _ = where.split(".")
        data = profile(plugins={point: {"enabled": [{"name": BIG}]}})
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict(data)
    (error,) = info.value.errors
    assert len(error) < SHORT
    assert "characters)" in error  # says how long the name was


def test_profile_constructors_bound_names() -> None:
    with pytest.raises(ConfigurationError) as info:
        Profile.from_plugins(BIG)
    assert len(str(info.value)) < SHORT
    with pytest.raises(ConfigurationError) as info:
        Profile(plugins={BIG: ()})
    assert len(str(info.value)) < SHORT
    with pytest.raises(ConfigurationError) as info:
        Profile().plugins_at(BIG)
    assert len(str(info.value)) < SHORT


def test_duplicate_long_scheduler_names_are_bounded() -> None:
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict(doc(profiles=[{"schedulerName": BIG}, {"schedulerName": BIG}]))
    assert all(len(error) < SHORT for error in info.value.errors)
    assert any(error.startswith("profiles[1].schedulerName") for error in info.value.errors)


def test_the_bound_is_public() -> None:
    assert schedframe.config.MAX_CONFIG_ERROR == MAX_CONFIG_ERROR
