"""Real KubeSchedulerConfiguration files, as published by other projects (tests/data/config/real,
origins in its README.md), load: v1 as it is, v1beta2 and v1beta3 converted with a warning."""

from __future__ import annotations

import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedframe import Registry, SchedulerConfiguration, Status
from schedframe.config import ConfigurationDeprecationWarning, PluginRef
from schedframe.plugins import in_tree_registry

REAL = Path(__file__).parent / "data" / "config" / "real"

#: The out-of-tree plugins the files name, with the extension points the real plugins implement
#: (kubernetes-sigs/scheduler-plugins, the simulator's NodeNumber sample).
OUT_OF_TREE: dict[str, tuple[str, ...]] = {
    "CapacityScheduling": ("preFilter", "postFilter", "reserve"),
    "NodeResourcesAllocatable": ("score",),
    "TargetLoadPacking": ("score",),
    "NodeResourceTopologyMatch": ("preFilter", "filter", "score"),
    "PodState": ("score",),
    "QOSSort": ("queueSort",),
    "SySched": ("score",),
    "TopologicalSort": ("queueSort",),
    "NetworkOverhead": ("preFilter", "filter", "score"),
    "NodeNumber": ("preScore", "score"),
}

_METHODS: dict[str, dict[str, Any]] = {
    "permit": {"permit": lambda self, state, pod, node_name: (Status.OK, 0.0)},
    "postBind": {"post_bind": lambda self, state, pod, node_name: None},
    "queueSort": {"less": lambda self, a, b: False},
    "preFilter": {"pre_filter": lambda self, state, pod, nodes: (None, Status.OK),
                  "pre_filter_extensions": lambda self: None},
    "filter": {"filter": lambda self, state, pod, node_info: Status.OK},
    "postFilter": {"post_filter": lambda self, state, pod, statuses: (None, Status.unschedulable())},
    "preScore": {"pre_score": lambda self, state, pod, nodes: Status.OK},
    "score": {"score": lambda self, state, pod, node_info: (0, Status.OK),
              "score_extensions": lambda self: None},
    "reserve": {"reserve": lambda self, state, pod, node_name: Status.OK,
                "unreserve": lambda self, state, pod, node_name: None},
}


def _fake(name: str, points: tuple[str, ...]) -> Any:
    """A factory of a do-nothing plugin implementing exactly *points*."""
    namespace: dict[str, Any] = {"name": name}
    for point in points:
        namespace.update(_METHODS[point])
    cls = type(name, (), namespace)
    return lambda args, handle: cls()


#: Files written for another release of an out-of-tree plugin schedframe also provides, whose
#: args or extension points differ from the release schedframe follows (v0.34.7): they are read
#: with a fake under that name.
_OLDER_ARGS: dict[str, tuple[str, tuple[str, ...]]] = {
    # scheduler-plugins removed CoschedulingArgs.deniedPGExpirationTimeSeconds in v0.24.9;
    # schedframe's Coscheduling has the current args
    "scheduler-plugins-coscheduling-v1beta2.yaml": (
        "Coscheduling", ("queueSort", "preFilter", "postFilter", "permit", "reserve", "postBind")),
    # written after v0.34.7, when NodeResourceTopologyMatch gained a PreFilter (NUMA-aware
    # preemption dry-run); v0.34.7's plugin has none, and kube-scheduler refuses a plugin enabled
    # at a point it does not implement
    "scheduler-plugins-noderesourcetopology-v1beta3.yaml": (
        "NodeResourceTopologyMatch", ("preFilter", "filter", "score")),
}


def registry_with_fakes(file_name: str = "") -> Registry:
    """The in-tree plugins plus simple fakes under the out-of-tree names."""
    registry = in_tree_registry()
    for name, points in OUT_OF_TREE.items():
        if name not in registry:  # schedframe provides some (schedframe.plugins.sigs)
            registry.register(name, _fake(name, points))
    if file_name in _OLDER_ARGS:
        name, points = _OLDER_ARGS[file_name]
        registry.unregister(name)
        registry.register(name, _fake(name, points))
    return registry


def _files() -> list[Path]:
    return sorted(REAL.glob("*.yaml"))


def _version_of(path: Path) -> str:
    return path.stem.rsplit("-", 1)[1]


def _load(path: Path) -> tuple[SchedulerConfiguration, list[warnings.WarningMessage]]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        if path.name.startswith("kubernetes-website-"):
            # the docs' example ships the configuration inside a ConfigMap
            docs = list(yaml.safe_load_all(path.read_text()))
            config_map = next(d for d in docs if d and d.get("kind") == "ConfigMap")
            (text,) = config_map["data"].values()
            config = SchedulerConfiguration.from_yaml(text, registry=registry_with_fakes(path.name))
        else:
            config = SchedulerConfiguration.from_file(path, registry=registry_with_fakes(path.name))
    return config, list(caught)


def test_there_are_enough_real_files() -> None:
    """At least ten files, covering v1beta2, v1beta3 and v1, each listed in the README."""
    files = _files()
    assert len(files) >= 10
    assert {_version_of(p) for p in files} == {"v1beta2", "v1beta3", "v1"}
    readme = (REAL / "README.md").read_text()
    for path in files:
        assert path.name in readme, path.name


@pytest.mark.parametrize("path", _files(), ids=lambda p: p.name)
def test_real_file_loads(path: Path) -> None:
    """Every file loads; the beta versions warn naming their version, v1 does not warn."""
    config, caught = _load(path)
    version = _version_of(path)
    deprecations = [w for w in caught if issubclass(w.category, ConfigurationDeprecationWarning)]
    if version == "v1":
        assert deprecations == []
    else:
        assert len(deprecations) == 1
        assert f"kubescheduler.config.k8s.io/{version}" in str(deprecations[0].message)
    assert config.profiles
    # the effective configuration reads back equal, as v1
    again = SchedulerConfiguration.from_dict(config.to_dict(), registry=registry_with_fakes(path.name))
    assert again == config


def _profile(name: str) -> Any:
    config, _ = _load(REAL / name)
    return config.profiles[0]


def test_v1beta3_coscheduling_runs_the_in_tree_coscheduling() -> None:
    """The v1beta3 Coscheduling config replaces the queue sort and adds Coscheduling at the points
    it lists (after the defaults there); its args decode into CoschedulingArgs."""
    profile = _profile("scheduler-plugins-coscheduling-v1beta3.yaml")
    assert [r.name for r in profile.plugins_at("queueSort")] == ["Coscheduling"]
    assert [r.name for r in profile.plugins_at("permit")] == ["Coscheduling"]
    assert [r.name for r in profile.plugins_at("preFilter")][-1] == "Coscheduling"
    assert [r.name for r in profile.plugins_at("postFilter")] == ["DefaultPreemption", "Coscheduling"]
    assert profile.plugin_args["Coscheduling"].permit_waiting_time_seconds == 10


def test_v1beta2_trimaran_keeps_fit_scoring_as_kube_scheduler_did() -> None:
    """Disabling the v1beta1 name NodeResourcesLeastAllocated had no effect in kube-scheduler with
    v1beta2: NodeResourcesFit keeps scoring; BalancedAllocation is disabled; TargetLoadPacking is
    added; the weights are v1beta2's."""
    profile = _profile("scheduler-plugins-trimaran-v1beta2.yaml")
    assert profile.scheduler_name == "trimaran"
    assert sorted(profile.plugins_at("score"), key=lambda r: r.name) == [
        PluginRef("ImageLocality", 1),
        PluginRef("InterPodAffinity", 1),
        PluginRef("NodeAffinity", 1),
        PluginRef("NodeResourcesFit", 1),
        PluginRef("PodTopologySpread", 2),
        PluginRef("TaintToleration", 1),
        PluginRef("TargetLoadPacking", 1),
    ]


def test_v1beta3_trimaran_uses_v1beta3_weights() -> None:
    """The same file in v1beta3 gets v1beta3's multiPoint defaults and weights."""
    profile = _profile("scheduler-plugins-trimaran-v1beta3.yaml")
    weights = {r.name: r.weight for r in profile.plugins_at("score")}
    assert weights["TaintToleration"] == 3
    assert weights["NodeAffinity"] == 2
    assert weights["InterPodAffinity"] == 2
    assert "NodeResourcesBalancedAllocation" not in weights
    assert weights["TargetLoadPacking"] == 1


def test_out_of_tree_args_are_kept() -> None:
    """Args of plugins without an args type are kept as given (read-only mappings); schedframe's
    NetworkOverhead decodes its own."""
    assert _profile("scheduler-plugins-sysched-v1beta3.yaml").plugin_args["SySched"][
        "defaultProfileName"] == "full-seccomp"
    profile = _profile("scheduler-plugins-networktopology-v1.yaml")
    assert profile.plugin_args["NetworkOverhead"].network_topology_name == "net-topology-test"
    assert [r.name for r in profile.plugins_at("queueSort")] == ["TopologicalSort"]
    score = {r.name: r.weight for r in profile.plugins_at("score")}
    assert score["NetworkOverhead"] == 5
    assert "NodeResourcesFit" not in score
    assert "NodeResourcesFit" not in [r.name for r in profile.plugins_at("filter")]
