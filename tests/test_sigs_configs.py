"""scheduler-plugins' published configuration files (v0.34.7, tests/data/scheduler-plugins) load,
decode their args, and run in `schedframe simulate --config`."""

from __future__ import annotations

from pathlib import Path

import pytest

from schedframe import ConfigurationError, SchedulerConfiguration
from schedframe.cli.main import main

DATA = Path(__file__).parent / "data" / "scheduler-plugins"
CONFIGS = sorted(DATA.glob("*-scheduler-config.yaml"))


def test_the_published_configs_are_here() -> None:
    """Every plugin family of this release has its example config."""
    assert {p.name.split("-")[0] for p in CONFIGS} == {
        "capacityscheduling", "coscheduling", "noderesources", "podstate", "qos", "trimaran"}


@pytest.mark.parametrize("path", CONFIGS, ids=lambda p: p.name)
def test_config_loads_and_simulates(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The file validates and simulates the default scenario with every pod placed."""
    if path.name == "trimaran-scheduler-config.yaml":
        pytest.skip("its only profile is 'trimaran': tests/test_load_model.py runs it with pods naming it")
    assert main(["config", "validate", str(path)]) == 0
    assert main(["simulate", "--config", str(path), "--plain", "--fail-on-pending"]) == 0
    assert path.stem in capsys.readouterr().out


def test_args_are_decoded_with_upstream_defaults() -> None:
    """NodeResourcesAllocatable's args come from the file; Coscheduling's missing ones default."""
    cfg = SchedulerConfiguration.from_yaml((DATA / "noderesources-scheduler-config.yaml").read_text())
    args = cfg.to_dict()["profiles"][0]["pluginConfig"]
    by = {a["name"]: a["args"] for a in args}
    assert by["NodeResourcesAllocatable"] == {"mode": "Least", "resources": [
        {"name": "cpu", "weight": 1000000}, {"name": "memory", "weight": 1}]}
    cfg = SchedulerConfiguration.from_yaml((DATA / "coscheduling-scheduler-config.yaml").read_text())
    by = {a["name"]: a["args"] for a in cfg.to_dict()["profiles"][0]["pluginConfig"]}
    assert by["Coscheduling"] == {"permitWaitingTimeSeconds": 10, "podGroupBackoffSeconds": 0,
                                  "podGroupRejectPercentage": 10}


@pytest.mark.parametrize("version", ["v1", "v1beta3"])
def test_invalid_args_name_the_field(version: str) -> None:
    """Upstream's validation, with the field path, in every config version the files use."""
    text = f"""
apiVersion: kubescheduler.config.k8s.io/{version}
kind: KubeSchedulerConfiguration
profiles:
- plugins: {{score: {{enabled: [{{name: NodeResourcesAllocatable}}]}}}}
  pluginConfig:
  - name: NodeResourcesAllocatable
    args: {{mode: Middle, resources: [{{name: cpu, weight: 0}}]}}
"""
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_yaml(text)
    msg = str(info.value)
    assert ("profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 0: "
            "resource weight of cpu should be a positive value, got :0") in msg
    assert 'mode: Invalid value: "Middle": invalid support ModeType' in msg


def test_default_profile_is_unchanged() -> None:
    """The sigs plugins are registered but not enabled by default."""
    default = SchedulerConfiguration.from_dict({"apiVersion": "kubescheduler.config.k8s.io/v1",
                                                "kind": "KubeSchedulerConfiguration"})
    names = {p["name"] for pt in default.to_dict()["profiles"][0]["plugins"].values()
             for p in pt.get("enabled", ())}
    assert not names & {"CapacityScheduling", "NodeResourcesAllocatable", "PodState", "QOSSort",
                        "PreemptionToleration", "Coscheduling"}


# --------------------------------------------------------------------------------------------
# v1beta2: scheduler-plugins' example files of v0.27.8, the last release publishing them


V1BETA2 = sorted((DATA / "v1beta2").glob("*-scheduler-config.yaml"))


@pytest.mark.filterwarnings("ignore::schedframe.config.ConfigurationDeprecationWarning")
@pytest.mark.parametrize("path", V1BETA2, ids=lambda p: p.name)
def test_v1beta2_config_loads_and_simulates(path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Each v1beta2 file (Coscheduling's with its deniedPGExpirationTimeSeconds) validates and
    simulates the default scenario with every pod placed."""
    assert main(["config", "validate", str(path)]) == 0
    assert main(["simulate", "--config", str(path), "--plain", "--fail-on-pending"]) == 0
    assert path.stem in capsys.readouterr().out


def v1beta2(plugin_config: str) -> str:
    return f"""
apiVersion: kubescheduler.config.k8s.io/v1beta2
kind: KubeSchedulerConfiguration
profiles:
- plugins:
    score: {{enabled: [{{name: NodeResourcesAllocatable}}]}}
    postFilter: {{enabled: [{{name: PreemptionToleration}}], disabled: [{{name: "*"}}]}}
  pluginConfig:
{plugin_config}
"""


@pytest.mark.filterwarnings("ignore::schedframe.config.ConfigurationDeprecationWarning")
def test_v1beta2_args_decode_with_upstream_defaults() -> None:
    """v1beta2 args as scheduler-plugins' files write them: what is missing takes upstream's
    default (NodeResourcesAllocatable: Least, cpu 1<<20 and memory 1; PreemptionToleration:
    DefaultPreemption's 10% / 100; Coscheduling: 60 s, no backoff, 10%)."""
    cfg = SchedulerConfiguration.from_yaml(v1beta2("""\
  - {name: NodeResourcesAllocatable, args: {}}
  - {name: PreemptionToleration, args: {}}
  - {name: Coscheduling, args: {deniedPGExpirationTimeSeconds: 3}}"""))
    by = {a["name"]: a["args"] for a in cfg.to_dict()["profiles"][0]["pluginConfig"]}
    assert by["NodeResourcesAllocatable"] == {"mode": "Least", "resources": [
        {"name": "cpu", "weight": 1 << 20}, {"name": "memory", "weight": 1}]}
    assert by["PreemptionToleration"] == {"minCandidateNodesAbsolute": 100, "minCandidateNodesPercentage": 10}
    assert by["Coscheduling"] == {"permitWaitingTimeSeconds": 60, "podGroupBackoffSeconds": 0,
                                  "podGroupRejectPercentage": 10}
    path = DATA / "v1beta2" / "coscheduling-scheduler-config.yaml"
    cfg = SchedulerConfiguration.from_yaml(path.read_text())
    by = {a["name"]: a["args"] for a in cfg.to_dict()["profiles"][0]["pluginConfig"]}
    assert by["Coscheduling"]["permitWaitingTimeSeconds"] == 10


@pytest.mark.filterwarnings("ignore::schedframe.config.ConfigurationDeprecationWarning")
@pytest.mark.parametrize(
    ("entry", "message"),
    [
        pytest.param("{name: NodeResourcesAllocatable, args: {resources: [{name: cpu, weight: 0}]}}",
                     "profiles[0].pluginConfig[0].args.resources[0].weight: Invalid value: 0: "
                     "resource weight of cpu should be a positive value, got :0",
                     id="NodeResourcesAllocatable weight"),
        pytest.param("{name: NodeResourcesAllocatable, args: {mode: Middle}}",
                     'profiles[0].pluginConfig[0].args.mode: Invalid value: "Middle": '
                     "invalid support ModeType",
                     id="NodeResourcesAllocatable mode"),
        pytest.param("{name: Coscheduling, args: {permitWaitingTimeSeconds: -1}}",
                     "profiles[0].pluginConfig[0].args.permitWaitingTimeSeconds: Invalid value: -1: "
                     "must be greater than 0", id="Coscheduling negative wait"),
        pytest.param("{name: Coscheduling, args: {deniedPGExpirationTimeSeconds: soon}}",
                     "profiles[0].pluginConfig[0].args.deniedPGExpirationTimeSeconds: must be an integer",
                     id="Coscheduling deniedPGExpirationTimeSeconds"),
        pytest.param("{name: PreemptionToleration, args: {minCandidateNodesPercentage: 200}}",
                     "profiles[0].pluginConfig[0].args.minCandidateNodesPercentage: Invalid value: 200",
                     id="PreemptionToleration percentage"),
    ],
)
def test_v1beta2_bad_args_name_the_field(entry: str, message: str) -> None:
    """A bad value in v1beta2 args is a ConfigurationError with the field's path."""
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_yaml(v1beta2(f"  - {entry}"))
    assert message in str(info.value)
