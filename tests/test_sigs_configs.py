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
