"""SchedulerConfiguration.from_file, out-of-tree plugins with args from the configuration, and
"did you mean" for plugin names."""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import attrs
import pytest

from schedframe import (
    ConfigurationError,
    PluginArgsError,
    Registry,
    Scheduler,
    SchedulerConfiguration,
    Status,
    UnknownPluginError,
)
from schedframe.config import ConfigurationDeprecationWarning
from schedframe.config import configuration as configuration_module
from schedframe.framework.registry import close_plugin_name
from schedframe.plugins import in_tree_registry
from schedframe.testing import make_node, make_pod

DOC = {
    "apiVersion": "kubescheduler.config.k8s.io/v1",
    "kind": "KubeSchedulerConfiguration",
    "percentageOfNodesToScore": 40,
    "profiles": [{"schedulerName": "s", "plugins": {"score": {"disabled": [{"name": "ImageLocality"}]}}}],
}

YAML_TEXT = """\
apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
percentageOfNodesToScore: 40
profiles:
- schedulerName: s
  plugins:
    score:
      disabled:
      - name: ImageLocality
"""


# --------------------------------------------------------------------------------------------
# from_file
# --------------------------------------------------------------------------------------------


def test_yaml_and_json_files_give_the_same_configuration(tmp_path: Path) -> None:
    """The format is told by the content, whatever the file is called."""
    yaml_file = tmp_path / "config.json"  # YAML despite the name
    yaml_file.write_text(YAML_TEXT)
    json_file = tmp_path / "config.yaml"  # JSON despite the name
    json_file.write_text("\n  " + json.dumps(DOC, indent=2))
    want = SchedulerConfiguration.from_dict(DOC)
    assert SchedulerConfiguration.from_file(yaml_file) == want
    assert SchedulerConfiguration.from_file(str(json_file)) == want
    assert want.percentage_of_nodes_to_score == 40


def test_byte_order_mark_is_accepted(tmp_path: Path) -> None:
    """A UTF-8 byte order mark (as some editors write) is skipped."""
    path = tmp_path / "c.yaml"
    path.write_bytes(b"\xef\xbb\xbf" + YAML_TEXT.encode())
    assert SchedulerConfiguration.from_file(path) == SchedulerConfiguration.from_dict(DOC)


def test_v1beta2_file_is_converted_with_a_warning(tmp_path: Path) -> None:
    """A v1beta2 file warns naming the version."""
    path = tmp_path / "c.yaml"
    path.write_text("apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\n")
    with pytest.warns(ConfigurationDeprecationWarning, match="kubescheduler.config.k8s.io/v1beta2"):
        SchedulerConfiguration.from_file(path)


def test_invalid_configuration_names_the_file_and_the_fields(tmp_path: Path) -> None:
    """Validation errors keep their field paths; the message starts with the file."""
    path = tmp_path / "bad.yaml"
    path.write_text("parallelizm: 3\nprofiles:\n- plugins: {filter: {enabled: [{name: NodeNme}]}}\n")
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_file(path)
    assert str(info.value).startswith(repr(str(path)))
    assert [e.partition(":")[0] for e in info.value.errors] == [
        "parallelizm", "profiles[0].plugins.filter.enabled[0]"]


@pytest.mark.parametrize(
    ("content", "match"),
    [
        pytest.param(b'{"kind": "KubeSchedulerConfiguration", "kind": "x"}', "duplicate key 'kind'",
                     id="json duplicate key"),
        pytest.param(b'{"profiles": [}', r"invalid JSON in the configuration: line 1, column 15",
                     id="json syntax"),
        pytest.param(b"profiles: [\n", "invalid YAML", id="yaml syntax"),
        pytest.param(b"a: 1\na: 2\n", "duplicate", id="yaml duplicate key"),
        pytest.param(b"- 1\n- 2\n", "must be a mapping, got list", id="yaml list"),
        pytest.param(b"[1, 2]", "must be a mapping", id="json-ish list"),
        pytest.param(b"\xff\xfeprofiles", r"not UTF-8 text \(byte 0\)", id="not utf-8"),
    ],
)
def test_unreadable_content_is_a_configuration_error_naming_the_file(
        tmp_path: Path, content: bytes, match: str) -> None:
    """Syntax errors, duplicate keys and wrong encodings are ConfigurationErrors naming the path."""
    path = tmp_path / "c.conf"
    path.write_bytes(content)
    with pytest.raises(ConfigurationError, match=match) as info:
        SchedulerConfiguration.from_file(path)
    assert str(path) in str(info.value)


def test_missing_file(tmp_path: Path) -> None:
    """A path that does not exist is a ConfigurationError naming it."""
    path = tmp_path / "nope.yaml"
    with pytest.raises(ConfigurationError, match=r"cannot read the configuration file .*nope\.yaml"):
        SchedulerConfiguration.from_file(path)


def test_directory_is_not_a_regular_file(tmp_path: Path) -> None:
    """A directory is refused before anything is read."""
    with pytest.raises(ConfigurationError, match=r"it is a directory; only regular files are read"):
        SchedulerConfiguration.from_file(tmp_path)


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="needs /dev/zero")
def test_device_is_not_a_regular_file() -> None:
    """An endless device is refused, not read."""
    with pytest.raises(ConfigurationError, match=r"'/dev/zero': it is a character device"):
        SchedulerConfiguration.from_file("/dev/zero")


def test_file_over_the_size_cap(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file larger than MAX_CONFIG_FILE_BYTES is refused, naming its size and the cap."""
    monkeypatch.setattr(configuration_module, "MAX_CONFIG_FILE_BYTES", 64)
    path = tmp_path / "big.yaml"
    path.write_text("profiles: []\n" + "# padding\n" * 20)
    with pytest.raises(ConfigurationError, match=r"big\.yaml': larger than 64 bytes"):
        SchedulerConfiguration.from_file(path)


def test_from_file_wants_a_path() -> None:
    """Text is not a path: from_yaml reads text."""
    with pytest.raises(ConfigurationError, match="from_file expects a path, got bytes"):
        SchedulerConfiguration.from_file(b"profiles: []")  # type: ignore[arg-type]


# --------------------------------------------------------------------------------------------
# out-of-tree plugins with args
# --------------------------------------------------------------------------------------------


@attrs.frozen(kw_only=True)
class MaxPodsArgs:
    """Args with a mandatory field: no default construction."""

    max_pods: int

    @classmethod
    def from_dict(cls, data: Mapping[str, Any]) -> MaxPodsArgs:
        errors = [f"{key}: unknown field" for key in data if key != "maxPods"]
        if "maxPods" not in data:
            errors.append("maxPods: Required value")
        if errors:
            raise PluginArgsError(errors)
        return cls(max_pods=data["maxPods"])

    def validate(self) -> None:
        if not isinstance(self.max_pods, int) or self.max_pods <= 0:
            raise PluginArgsError([f"maxPods: Invalid value: {self.max_pods!r}: must be positive"])


class MaxPods:
    """Filters out nodes already holding max_pods pods."""

    name = "MaxPods"

    def __init__(self, args: MaxPodsArgs) -> None:
        self.args = args

    def filter(self, state: Any, pod: Any, node_info: Any) -> Status:
        if len(node_info.pods) >= self.args.max_pods:
            return Status.unschedulable("too many pods")
        return Status.OK


def new_max_pods(args: Any, handle: Any) -> MaxPods:
    if not isinstance(args, MaxPodsArgs):
        raise TypeError(f"want args of type MaxPodsArgs, got {type(args).__name__}")
    return MaxPods(args)


def max_pods_registry() -> Registry:
    registry = in_tree_registry()
    registry.register("MaxPods", new_max_pods, args_type=MaxPodsArgs)
    return registry


def max_pods_doc(args: Any) -> dict[str, Any]:
    return {"profiles": [{
        "plugins": {"multiPoint": {"enabled": [{"name": "MaxPods"}]}},
        "pluginConfig": [{"name": "MaxPods", "args": args}],
    }]}


def test_plugin_needing_args_is_built_with_them_without_implements() -> None:
    """A factory that refuses None is probed with the args decoded from pluginConfig, so it is
    placed at its points with no implements=, and the scheduler runs it."""
    doc = max_pods_doc({"maxPods": 1})
    config = SchedulerConfiguration.from_dict(doc, registry=max_pods_registry())
    profile = config.profiles[0]
    assert "MaxPods" in [r.name for r in profile.plugins_at("filter")]
    assert "MaxPods" not in [r.name for r in profile.plugins_at("score")]
    assert profile.plugin_args["MaxPods"] == MaxPodsArgs(max_pods=1)
    sched = Scheduler(doc, registry=max_pods_registry())
    sched.add_node(make_node().name("n1").capacity(cpu="4", memory="8Gi", pods="10").obj())
    sched.add_pod(make_pod().name("a").req(cpu="100m").obj())
    sched.add_pod(make_pod().name("b").req(cpu="100m").obj())
    sched.run_until_idle()
    assert sched.node_of("default/a") == "n1"
    assert sched.node_of("default/b") is None
    (pending,) = sched.pending()
    assert pending.plugins == frozenset({"MaxPods"})


@pytest.mark.parametrize(
    ("args", "errors"),
    [
        pytest.param({"maxPods": 0},
                     ["profiles[0].pluginConfig[0].args.maxPods: Invalid value: 0: must be positive"],
                     id="validated"),
        pytest.param({"maxPod": 2}, ["profiles[0].pluginConfig[0].args.maxPod: unknown field",
                                     "profiles[0].pluginConfig[0].args.maxPods: Required value"],
                     id="decoded strictly"),
    ],
)
def test_out_of_tree_args_are_decoded_and_validated(args: Any, errors: list[str]) -> None:
    """The args type's from_dict and validate() errors come with the pluginConfig path (and
    nothing else: the plugin is not also said to lack args)."""
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict(max_pods_doc(args), registry=max_pods_registry())
    assert info.value.errors == errors


def test_plugin_needing_args_without_any_says_how_to_fix() -> None:
    """Enabled without pluginConfig, the plugin cannot be built: the error says to give args."""
    doc = {"profiles": [{"plugins": {"filter": {"enabled": [{"name": "MaxPods"}]}}}]}
    with pytest.raises(ConfigurationError, match=r"plugin 'MaxPods' needs args: give them in pluginConfig"):
        SchedulerConfiguration.from_dict(doc, registry=max_pods_registry())


def test_implements_still_works_for_plugins_needing_args() -> None:
    """implements= keeps working (and skips the probe)."""
    doc = {"profiles": [{"plugins": {"filter": {"enabled": [{"name": "MaxPods"}]}},
                         "pluginConfig": [{"name": "MaxPods", "args": {"maxPods": 3}}]}]}
    config = SchedulerConfiguration.from_dict(doc, registry=max_pods_registry(),
                                              implements={"MaxPods": ["filter"]})
    assert "MaxPods" in [r.name for r in config.profiles[0].plugins_at("filter")]


def test_args_object_is_accepted_as_pluginconfig_args() -> None:
    """An args object (not a mapping) is validated and used as it is."""
    config = SchedulerConfiguration.from_dict(max_pods_doc(MaxPodsArgs(max_pods=4)),
                                              registry=max_pods_registry())
    assert config.profiles[0].plugin_args["MaxPods"].max_pods == 4


# --------------------------------------------------------------------------------------------
# did you mean
# --------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "want"),
    [
        ("NodeNme", "NodeName"),
        ("nodeaffinity", "NodeAffinity"),
        ("NodeResourceFit", "NodeResourcesFit"),
        ("TaintTolerations", "TaintToleration"),
        ("ImageLocalty", "ImageLocality"),
        ("NodeAfinity", "NodeAffinity"),
        ("NodeResourceTopologyMatchh", "NodeResourceTopologyMatch"),
        ("SySched", None),
        ("CrossNodePreemption", None),
        ("NodeResourcesLeastAllocated", None),
        ("Nope", None),
        ("", None),
        ("x" * 1000, None),
    ],
)
def test_close_plugin_name(name: str, want: str | None) -> None:
    """Only typos of a registered name get a suggestion."""
    assert close_plugin_name(name, in_tree_registry()) == want


def test_unregistered_plugin_is_said_not_registered() -> None:
    """An out-of-tree name unlike any registered one gets 'not registered', no suggestion."""
    doc = {"profiles": [{"plugins": {"score": {"enabled": [{"name": "SySched"}]}}}]}
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict(doc)
    (error,) = info.value.errors
    assert error.startswith(
        "profiles[0].plugins.score.enabled[0]: no plugin named 'SySched'")
    assert "it is not registered" in error
    assert "did you mean" not in error
    with pytest.raises(UnknownPluginError, match="it is not registered") as lookup:
        in_tree_registry()["SySched"]
    assert "did you mean" not in str(lookup.value)


def test_data_directory_files_load_through_from_file() -> None:
    """The existing example files give the same configuration through from_file and from_yaml."""
    data = Path(__file__).parent / "data" / "config"
    for name in ("minimal.yaml", "two-profiles.yaml"):
        path = data / name
        assert SchedulerConfiguration.from_file(path) == SchedulerConfiguration.from_yaml(path.read_text())
