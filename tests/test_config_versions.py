"""Reading older ``kubescheduler.config.k8s.io`` versions: v1beta2 and v1beta3 converted with the
defaults kube-scheduler gave them, older versions refused; strict decoding of every version."""

from __future__ import annotations

import warnings
from typing import Any

import pytest

from schedframe import ConfigurationError, SchedulerConfiguration
from schedframe.config import ConfigurationDeprecationWarning, PluginRef

V1 = "kubescheduler.config.k8s.io/v1"
V1BETA2 = "kubescheduler.config.k8s.io/v1beta2"
V1BETA3 = "kubescheduler.config.k8s.io/v1beta3"

#: The in-tree plugins the expectations below are written for; plugins added to schedframe
#: later (volume plugins...) are left out of the comparisons.
KNOWN = frozenset({
    "PrioritySort", "SchedulingGates", "NodeUnschedulable", "NodeName", "NodePorts", "TaintToleration",
    "NodeAffinity", "NodeResourcesFit", "NodeResourcesBalancedAllocation", "PodTopologySpread",
    "InterPodAffinity", "ImageLocality", "DefaultPreemption", "DefaultBinder",
})


def load(doc: dict[str, Any]) -> tuple[SchedulerConfiguration, list[str]]:
    """The configuration and the deprecation warnings' messages."""
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        config = SchedulerConfiguration.from_dict(doc)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConfigurationDeprecationWarning)]
    return config, messages


def known(refs: Any, *, weights: bool = False) -> list[Any]:
    return [(r.name, r.weight) if weights else r.name for r in refs if r.name in KNOWN]


def errors_of(doc: dict[str, Any]) -> list[str]:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConfigurationDeprecationWarning)
        with pytest.raises(ConfigurationError) as info:
            SchedulerConfiguration.from_dict(doc)
    return info.value.errors


# --------------------------------------------------------------------------------------------
# defaults of each version
# --------------------------------------------------------------------------------------------


def test_v1beta2_defaults_are_kube_scheduler_1_27s() -> None:
    """An empty v1beta2 profile runs v1beta2's per-point defaults, in their order, with their
    weights (TaintToleration, NodeAffinity and InterPodAffinity weigh 1, not v1's 3, 2, 2)."""
    config, messages = load({"apiVersion": V1BETA2, "kind": "KubeSchedulerConfiguration"})
    profile = config.profiles[0]
    assert known(profile.plugins_at("preEnqueue")) == ["SchedulingGates"]
    assert known(profile.plugins_at("queueSort")) == ["PrioritySort"]
    # v1beta2 lists TaintToleration at preFilter too; the plugin has a PreFilter from 1.37 on,
    # the release this reads the document for
    assert known(profile.plugins_at("preFilter")) == [
        "NodeResourcesFit", "NodePorts", "PodTopologySpread", "InterPodAffinity", "NodeAffinity",
        "TaintToleration"]
    assert known(profile.plugins_at("filter")) == [
        "NodeUnschedulable", "NodeName", "TaintToleration", "NodeAffinity", "NodePorts", "NodeResourcesFit",
        "PodTopologySpread", "InterPodAffinity"]
    assert known(profile.plugins_at("postFilter")) == ["DefaultPreemption"]
    assert known(profile.plugins_at("preScore")) == [
        "InterPodAffinity", "PodTopologySpread", "TaintToleration", "NodeAffinity"]
    assert known(profile.plugins_at("score"), weights=True) == [
        ("NodeResourcesBalancedAllocation", 1), ("ImageLocality", 1), ("InterPodAffinity", 1),
        ("NodeResourcesFit", 1), ("NodeAffinity", 1), ("PodTopologySpread", 2), ("TaintToleration", 1)]
    assert known(profile.plugins_at("bind")) == ["DefaultBinder"]
    assert len(messages) == 1
    assert V1BETA2 in messages[0]
    assert "1.28" in messages[0]
    # the volume plugins of that era's defaults that schedframe lacks are reported as omitted
    assert {"EBSLimits", "GCEPDLimits", "AzureDiskLimits"} <= set(config.omitted_upstream_plugins)


def test_v1beta3_defaults_have_v1_weights() -> None:
    """An empty v1beta3 profile runs the same plugins with the same weights as v1."""
    config, messages = load({"apiVersion": V1BETA3})
    v1 = SchedulerConfiguration.default()
    for point in ("preEnqueue", "queueSort", "preFilter", "filter", "postFilter", "preScore", "bind"):
        assert sorted(known(config.profiles[0].plugins_at(point))) == sorted(
            known(v1.profiles[0].plugins_at(point))), point
    assert sorted(known(config.profiles[0].plugins_at("score"), weights=True)) == sorted(
        known(v1.profiles[0].plugins_at("score"), weights=True))
    assert len(messages) == 1
    assert V1BETA3 in messages[0]
    assert "1.29" in messages[0]


def test_v1_does_not_warn() -> None:
    """v1 (and a document without apiVersion) is read without a warning."""
    assert load({"apiVersion": V1})[1] == []
    assert load({})[1] == []


def test_v1beta2_user_sets_merge_into_the_point_defaults() -> None:
    """A re-listed default keeps its place with the user's weight; '*' clears a point's defaults."""
    config, _ = load({"apiVersion": V1BETA2, "profiles": [{"plugins": {
        "score": {"enabled": [{"name": "TaintToleration", "weight": 5}],
                  "disabled": [{"name": "ImageLocality"}]},
        "preScore": {"disabled": [{"name": "*"}]},
    }}]})
    profile = config.profiles[0]
    assert known(profile.plugins_at("score"), weights=True) == [
        ("NodeResourcesBalancedAllocation", 1), ("InterPodAffinity", 1), ("NodeResourcesFit", 1),
        ("NodeAffinity", 1), ("PodTopologySpread", 2), ("TaintToleration", 5)]
    assert known(profile.plugins_at("preScore")) == []


def test_the_warning_points_at_the_caller() -> None:
    """The deprecation warning is attributed to the line that read the configuration."""
    with pytest.warns(ConfigurationDeprecationWarning, match="v1beta2") as record:
        SchedulerConfiguration.from_dict({"apiVersion": V1BETA2})
    assert record[0].filename == __file__


def test_converted_configuration_writes_back_as_v1() -> None:
    """to_dict() of a converted v1beta2 configuration is a v1 document reading back equal."""
    config, _ = load({"apiVersion": V1BETA2})
    doc = config.to_dict()
    assert doc["apiVersion"] == V1
    assert load(doc) == (config, [])


# --------------------------------------------------------------------------------------------
# v1beta1 score plugins -> NodeResourcesFit scoringStrategy
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [V1BETA2, V1BETA3])
def test_most_allocated_becomes_fit_scoring_strategy(version: str) -> None:
    """NodeResourcesMostAllocated (and its args) becomes NodeResourcesFit with a MostAllocated
    scoringStrategy, keeping the weight; the warning says so."""
    config, messages = load({"apiVersion": version, "profiles": [{
        "plugins": {"score": {"enabled": [{"name": "NodeResourcesMostAllocated", "weight": 5}]}},
        "pluginConfig": [{"name": "NodeResourcesMostAllocated", "args": {
            "kind": "NodeResourcesMostAllocatedArgs",
            "resources": [{"name": "cpu", "weight": 3}, {"name": "memory", "weight": 1}]}}],
    }]})
    profile = config.profiles[0]
    assert PluginRef("NodeResourcesFit", 5) in profile.plugins_at("score")
    assert "NodeResourcesMostAllocated" not in profile.plugin_names()
    strategy = profile.plugin_args["NodeResourcesFit"].scoring_strategy
    assert strategy.type == "MostAllocated"
    assert [(r.name, r.weight) for r in strategy.resources] == [("cpu", 3), ("memory", 1)]
    assert "NodeResourcesMostAllocated -> NodeResourcesFit" in messages[0]


def test_requested_to_capacity_ratio_keeps_its_shape() -> None:
    """RequestedToCapacityRatio's shape becomes scoringStrategy.requestedToCapacityRatio.shape,
    merged into an existing NodeResourcesFit pluginConfig entry."""
    config, _ = load({"apiVersion": V1BETA2, "profiles": [{
        "plugins": {"score": {"enabled": [{"name": "RequestedToCapacityRatio"}]}},
        "pluginConfig": [
            {"name": "NodeResourcesFit", "args": {"ignoredResources": ["example.com/foo"]}},
            {"name": "RequestedToCapacityRatio", "args": {
                "shape": [{"utilization": 0, "score": 0}, {"utilization": 100, "score": 10}],
                "resources": [{"name": "cpu", "weight": 1}]}},
        ],
    }]})
    args = config.profiles[0].plugin_args["NodeResourcesFit"]
    assert args.ignored_resources == ("example.com/foo",)
    assert args.scoring_strategy.type == "RequestedToCapacityRatio"
    shape = args.scoring_strategy.requested_to_capacity_ratio.shape
    assert [(p.utilization, p.score) for p in shape] == [(0, 0), (100, 10)]


def test_disabling_a_v1beta1_name_has_no_effect_as_upstream() -> None:
    """kube-scheduler ignored unknown names in disabled lists: NodeResourcesFit keeps scoring,
    and the warning says how to stop it."""
    config, messages = load({"apiVersion": V1BETA3, "profiles": [{
        "plugins": {"score": {"disabled": [{"name": "NodeResourcesLeastAllocated"}]}}}]})
    assert "NodeResourcesFit" in known(config.profiles[0].plugins_at("score"))
    assert "disabling NodeResourcesLeastAllocated has no effect" in messages[0]


def test_two_v1beta1_score_plugins_conflict() -> None:
    """Two legacy score plugins cannot both become the one scoringStrategy."""
    errors = errors_of({"apiVersion": V1BETA2, "profiles": [{"plugins": {"score": {"enabled": [
        {"name": "NodeResourcesLeastAllocated"}, {"name": "NodeResourcesMostAllocated"}]}}}]})
    assert any(e.startswith("profiles[0].plugins: the v1beta1 score plugins") for e in errors)


def test_legacy_args_conflict_with_fit_strategy() -> None:
    """A NodeResourcesFit scoringStrategy and a legacy score plugin contradict each other."""
    errors = errors_of({"apiVersion": V1BETA2, "profiles": [{
        "plugins": {"score": {"enabled": [{"name": "NodeResourcesMostAllocated"}]}},
        "pluginConfig": [{"name": "NodeResourcesFit",
                          "args": {"scoringStrategy": {"type": "LeastAllocated"}}}],
    }]})
    assert any(e.startswith("profiles[0].pluginConfig[0].args.scoringStrategy: conflicts") for e in errors)


def test_legacy_args_unknown_field() -> None:
    """Unknown fields of a legacy plugin's args are reported with their path."""
    errors = errors_of({"apiVersion": V1BETA2, "profiles": [{
        "plugins": {"score": {"enabled": [{"name": "NodeResourcesLeastAllocated"}]}},
        "pluginConfig": [{"name": "NodeResourcesLeastAllocated", "args": {"shape": []}}],
    }]})
    assert any(e.startswith("profiles[0].pluginConfig[0].args.shape: unknown field") for e in errors)


def test_legacy_score_plugin_in_v1_is_an_error_with_a_hint() -> None:
    """v1 has no NodeResourcesMostAllocated: the error says what replaced it."""
    errors = errors_of({"profiles": [{"plugins": {"score": {"enabled": [
        {"name": "NodeResourcesMostAllocated"}]}}}]})
    assert errors[0].startswith("profiles[0].plugins.score.enabled[0]: Invalid value")
    assert "merged into NodeResourcesFit" in errors[0]
    assert "MostAllocated" in errors[0]


# --------------------------------------------------------------------------------------------
# removed plugins and versions
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("version", [V1, V1BETA2, V1BETA3])
def test_removed_plugins_are_errors_with_their_replacement(version: str) -> None:
    """Enabling a removed plugin is an error naming what replaces it; every one is reported at
    once; disabling one is accepted."""
    errors = errors_of({"apiVersion": version, "profiles": [{
        "plugins": {
            "filter": {"enabled": [{"name": "NodeLabel"}], "disabled": [{"name": "ServiceAffinity"}]},
            "score": {"enabled": [{"name": "NodePreferAvoidPods"}, {"name": "SelectorSpread"}]},
        },
        "pluginConfig": [{"name": "ServiceAffinity", "args": {}}],
    }]})
    assert [e.partition(":")[0] for e in errors] == [
        "profiles[0].plugins.filter.enabled[0]",
        "profiles[0].plugins.score.enabled[0]",
        "profiles[0].plugins.score.enabled[1]",
        "profiles[0].pluginConfig[0].name",
    ]
    assert "NodeAffinity" in errors[0]
    assert "PreferNoSchedule" in errors[1]
    assert "PodTopologySpread" in errors[2]
    assert "InterPodAffinity" in errors[3]


@pytest.mark.parametrize("version", [V1BETA2, V1BETA3])
def test_in_tree_volume_limits_of_beta_defaults(version: str) -> None:
    """EBSLimits & co. were defaults then; enabling one explicitly says schedframe lacks it."""
    errors = errors_of({"apiVersion": version, "profiles": [{"plugins": {"filter": {"enabled": [
        {"name": "EBSLimits"}]}}}]})
    assert errors[0].startswith("profiles[0].plugins.filter.enabled[0]: plugin 'EBSLimits'")
    assert "not provide" in errors[0]


@pytest.mark.parametrize(
    ("version", "release"),
    [("v1beta1", "1.23"), ("v1alpha1", "1.19"), ("v1alpha2", "1.19")],
)
def test_removed_versions_name_the_release(version: str, release: str) -> None:
    """Versions kube-scheduler dropped are refused at apiVersion, naming the release; nothing
    else is reported (the rest of the document follows another schema)."""
    errors = errors_of({"apiVersion": f"kubescheduler.config.k8s.io/{version}", "bogus": 1,
                        "algorithmSource": {"provider": "DefaultProvider"}})
    assert len(errors) == 1
    assert errors[0].startswith(f'apiVersion: Unsupported value: "kubescheduler.config.k8s.io/{version}"')
    assert f"since Kubernetes {release}" in errors[0]


@pytest.mark.parametrize("api_version", ["kubescheduler.config.k8s.io/v2", "v1", 7])
def test_unknown_versions_list_the_supported_ones(api_version: Any) -> None:
    """An unknown apiVersion is an error listing v1, v1beta2 and v1beta3."""
    errors = errors_of({"apiVersion": api_version})
    assert errors[0].startswith("apiVersion: Unsupported value")
    assert V1BETA2 in errors[0]
    assert V1BETA3 in errors[0]


# --------------------------------------------------------------------------------------------
# strict decoding
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("version", "doc", "paths"),
    [
        pytest.param(V1BETA2, {"profiles": [{"plugins": {"multiPoint": {}}}]},
                     ["profiles[0].plugins.multiPoint"], id="no multiPoint in v1beta2"),
        pytest.param(V1BETA2, {"healthzBindAddress": "0.0.0.0:10251", "metricsBindAddress": ""}, [],
                     id="v1beta2 bind addresses"),
        pytest.param(V1BETA3, {"healthzBindAddress": "0.0.0.0:10251"}, ["healthzBindAddress"],
                     id="v1beta3 has no bind addresses"),
        pytest.param(V1, {"metricsBindAddress": ""}, ["metricsBindAddress"], id="v1 has no bind addresses"),
        pytest.param(V1BETA3, {"delayCacheUntilActive": True}, ["delayCacheUntilActive"],
                     id="delayCacheUntilActive is v1 only"),
        pytest.param(V1, {"leaderElection": {"leaderElect": True, "leaseDuraton": "15s"},
                          "clientConnection": {"kubeconfig": "k", "qps": 50, "bursts": 1}},
                     ["leaderElection.leaseDuraton", "clientConnection.bursts"], id="process fields"),
        pytest.param(V1BETA2, {"profiles": [{"schedulerName": "a", "plugin": {}},
                                            {"schedulerName": "b", "pluginConfig": [{"nme": "x"}]}]},
                     ["profiles[0].plugin", "profiles[1].pluginConfig[0].nme",
                      "profiles[1].pluginConfig[0].name"], id="all reported at once"),
        pytest.param(V1BETA2, {"profiles": [{"pluginConfig": [{"name": "NodeResourcesFit", "args": {
            "apiVersion": V1BETA2, "kind": "NodeResourcesFitArgs", "ignoredResource": []}}]}]},
                     ["profiles[0].pluginConfig[0].args.ignoredResource"], id="args of the version"),
    ],
)
def test_unknown_fields_are_errors_with_their_path(version: str, doc: dict[str, Any],
                                                   paths: list[str]) -> None:
    """Fields a version does not have are errors naming their path, all reported at once."""
    doc = {"apiVersion": version, **doc}
    if not paths:
        load(doc)
        return
    errors = errors_of(doc)
    assert [e.partition(":")[0] for e in errors] == paths


def test_leader_election_must_be_a_mapping() -> None:
    """A process-level section of the wrong type is an error, not ignored."""
    assert errors_of({"leaderElection": "yes"})[0].startswith("leaderElection: Invalid value")
