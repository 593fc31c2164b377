"""kube-scheduler feature gates: per-release defaults, ``--feature-gates``, refusals, and what each
modelled gate switches."""

from __future__ import annotations

import json
from typing import Any

import pytest

import schedframe
from schedframe import ConfigurationError, Scheduler, SchedulerConfiguration, release_profile
from schedframe.cli.main import main
from schedframe.config import FEATURE_GATES, SUPPORTED_RELEASES
from schedframe.framework._features import parse_feature_gates, release_facts
from schedframe.testing import make_node, make_pod

FACTS = release_facts()


@pytest.mark.parametrize("release", SUPPORTED_RELEASES)
def test_gate_defaults_per_release(release: str) -> None:
    """Each release has, for every scheduler gate it has, the default its own kube-scheduler
    gives (the facts generated from it by the oracle); a gate the release lacks is absent."""
    gates = release_profile(release).feature_gates
    known = FACTS[release]["gates"]
    for name in FEATURE_GATES:
        if name in known:
            assert gates[name] is known[name][0], (release, name)
        else:
            assert name not in gates, (release, name)


def test_every_scheduler_gate_has_a_behaviour() -> None:
    """Every gate the scheduler's code reads at some release is in the table, and says what
    schedframe does with it: modelled, or how schedframe behaves without."""
    for release, facts in FACTS.items():
        for name in facts["schedulerGates"]:
            gate = FEATURE_GATES[name]
            assert gate.modelled or gate.note, (release, name)


def test_every_release_knows_the_modelled_gates() -> None:
    """The release profile lists every gate of the table that exists at that release."""
    for release in SUPPORTED_RELEASES:
        gates = release_profile(release).feature_gates
        assert set(gates) <= set(FEATURE_GATES)
        assert set(FACTS[release]["schedulerGates"]) <= set(gates)


def test_gates_the_scheduler_does_not_read_are_accepted() -> None:
    """A gate kube-scheduler accepts that the scheduler never reads (the kubelet's, the API
    server's) is accepted at any value it may take, and changes nothing."""
    facts = FACTS["1.37"]
    needed = {n for deps in facts["dependencies"].values() for n in deps}
    name, spec = next((n, g) for n, g in sorted(facts["gates"].items())
                      if n not in FEATURE_GATES and not g[2] and n not in needed
                      and n not in facts["dependencies"])
    profile = release_profile("1.37", {name: not spec[0]})
    assert profile.feature_gates[name] is (not spec[0])
    assert profile.default_plugins == release_profile("1.37").default_plugins


@pytest.mark.parametrize(("text", "want"), [
    ("SchedulerQueueingHints=false", {"SchedulerQueueingHints": False}),
    ("A=true, B=False,C=1,", {"A": True, "B": False, "C": True}),
    ("", {}),
])
def test_parse_feature_gates(text: str, want: dict[str, bool]) -> None:
    """``--feature-gates`` reads kube-scheduler's ``Name=bool,...`` syntax."""
    assert parse_feature_gates(text) == want


@pytest.mark.parametrize(("text", "match"), [
    ("SchedulerQueueingHints", "missing bool value"),
    ("SchedulerQueueingHints=maybe", r"invalid value of SchedulerQueueingHints=maybe.*ParseBool"),
])
def test_parse_feature_gates_errors(text: str, match: str) -> None:
    """A pair without a boolean is refused."""
    with pytest.raises(ConfigurationError, match=match):
        parse_feature_gates(text)


def test_unknown_gate_is_refused_by_name() -> None:
    """A gate kube-scheduler does not know is refused, with a suggestion."""
    with pytest.raises(ConfigurationError) as info:
        release_profile("1.36", {"SchedulerQueueingHint": True})
    assert info.value.errors == [
        "feature_gates['SchedulerQueueingHint']: unrecognized feature gate: SchedulerQueueingHint; "
        "did you mean 'SchedulerQueueingHints'?"]


def test_locked_gate_refuses_the_other_value() -> None:
    """A gate locked to its default refuses the other value, as upstream does."""
    with pytest.raises(ConfigurationError, match=r"cannot set feature gate DynamicResourceAllocation to "
                                                 r"false, feature is locked to true"):
        release_profile("1.35", {"DynamicResourceAllocation": False})
    with pytest.raises(ConfigurationError, match="SchedulerQueueingHints to false, feature is locked"):
        release_profile("1.34", "SchedulerQueueingHints=false")
    # its default is accepted
    assert release_profile("1.35", {"DynamicResourceAllocation": True}) == release_profile("1.35")


def test_gate_not_yet_in_the_release_is_refused() -> None:
    """A gate newer than the emulated release is unknown to it, as to that release's binary."""
    with pytest.raises(ConfigurationError, match=r"feature_gates\['NodeDeclaredFeatures'\]: "
                                                 r"unrecognized feature gate: NodeDeclaredFeatures"):
        release_profile("1.34", {"NodeDeclaredFeatures": True})
    # and a gate removed by a release is unknown to it: GangScheduling went in 1.37
    with pytest.raises(ConfigurationError, match=r"unrecognized feature gate: GangScheduling"):
        release_profile("1.37", {"GangScheduling": True})


def test_gate_not_modelled_is_refused_away_from_its_default() -> None:
    """A known gate schedframe does not model is accepted at its default only, never ignored."""
    assert release_profile("1.36", {"SchedulerAsyncPreemption": True}) == release_profile("1.36")
    with pytest.raises(ConfigurationError) as info:
        release_profile("1.36", {"SchedulerAsyncPreemption": False, "WorkloadWithJob": True})
    assert [e.split(":")[0] for e in info.value.errors] == [
        "feature_gates['SchedulerAsyncPreemption']", "feature_gates['WorkloadWithJob']"]
    assert ("feature gate WorkloadWithJob is not modelled by schedframe: only its Kubernetes "
            "1.36 default, false, is accepted") in info.value.errors[1]


def test_gang_scheduling_needs_generic_workload() -> None:
    """GangScheduling depends on GenericWorkload, as 1.35's kube-scheduler declares (its own
    words); together they add the GangScheduling plugin to 1.35's default profile. From 1.36 on
    the PodGroup API, its cycle and its topology placements are modelled; 1.37's composite
    groups too, with their dependencies."""
    with pytest.raises(ConfigurationError, match=r"GangScheduling is enabled, but depends on features "
                                                 r"that are disabled: \[GenericWorkload\]"):
        release_profile("1.35", {"GangScheduling": True})
    both = SchedulerConfiguration.default(kubernetes_version="1.35",
                                          feature_gates="GenericWorkload=true,GangScheduling=true")
    assert [r.name for r in both.profiles[0].plugins["permit"]] == ["GangScheduling"]
    assert "GangScheduling" not in SchedulerConfiguration.default().profiles[0].plugin_names()
    with pytest.raises(ConfigurationError, match=r"unrecognized feature gate: GenericWorkload"):
        release_profile("1.34", {"GenericWorkload": True})
    # 1.36 on: the PodGroup API, its cycle and its placements are modelled
    gang = release_profile("1.36", {"GenericWorkload": True, "GangScheduling": True})
    assert gang.enabled("GangScheduling")
    assert release_profile("1.37", {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True}
                           ).enabled("TopologyAwareWorkloadScheduling")
    # 1.37: CompositePodGroup is modelled, and needs TopologyAwareWorkloadScheduling
    with pytest.raises(ConfigurationError, match=r"CompositePodGroup is enabled, but depends on features "
                                                 r"that are disabled: \[TopologyAwareWorkloadScheduling\]"):
        release_profile("1.37", {"GenericWorkload": True, "CompositePodGroup": True})
    assert release_profile("1.37", {"GenericWorkload": True, "TopologyAwareWorkloadScheduling": True,
                                    "CompositePodGroup": True}).enabled("CompositePodGroup")


def test_gate_values_must_be_bools() -> None:
    """A gate value must be a bool; the argument a mapping or a string."""
    with pytest.raises(ConfigurationError, match=r"\['SchedulerQueueingHints'\]: must be a bool"):
        release_profile("1.33", {"SchedulerQueueingHints": "false"})  # type: ignore[dict-item]
    with pytest.raises(ConfigurationError, match="must be a mapping of gate name to bool"):
        release_profile("1.33", ["SchedulerQueueingHints"])  # type: ignore[arg-type]


def test_dynamic_resource_allocation_gate_switches_the_default_plugin() -> None:
    """DynamicResourceAllocation adds DynamicResources before DefaultPreemption, either way."""
    def post_filter(config: SchedulerConfiguration) -> list[str]:
        return [r.name for r in config.profiles[0].plugins["postFilter"]]

    assert post_filter(SchedulerConfiguration.default(kubernetes_version="1.33")) == ["DefaultPreemption"]
    on = SchedulerConfiguration.default(kubernetes_version="1.33",
                                        feature_gates={"DynamicResourceAllocation": True})
    assert post_filter(on) == ["DynamicResources", "DefaultPreemption"]
    off = SchedulerConfiguration.default(kubernetes_version="1.34",
                                         feature_gates="DynamicResourceAllocation=false")
    assert post_filter(off) == ["DefaultPreemption"]
    assert post_filter(SchedulerConfiguration.default(kubernetes_version="1.34")) == [
        "DynamicResources", "DefaultPreemption"]


def _unschedulable_then_small_node(**kw: Any) -> str | None:
    """Where a pod rejected for CPU goes when a node too small for it is added."""
    s = Scheduler(**kw)
    s.add_node(make_node().name("n1").capacity(cpu="2", memory="4Gi", pods=110).obj())
    pod = make_pod().name("p").req(cpu="4").obj()
    s.add_pod(pod)
    s.schedule_one()
    s.add_node(make_node().name("n2").capacity(cpu="1", memory="4Gi", pods=110).obj())
    return s.queue.where(pod)


def test_queueing_hints_gate() -> None:
    """With SchedulerQueueingHints a node too small for the pod leaves it unschedulable (the
    NodeResourcesFit hint skips); without, every registered event requeues it."""
    assert _unschedulable_then_small_node(kubernetes_version="1.33") == "Unschedulable"
    off = _unschedulable_then_small_node(kubernetes_version="1.33",
                                         feature_gates={"SchedulerQueueingHints": False})
    assert off == "Backoff"


def _backing_off_pod_popped(**kw: Any) -> bool:
    s = Scheduler(**kw)
    s.add_node(make_node().name("n1").capacity(cpu="2", memory="4Gi", pods=110).obj())
    pod = make_pod().name("p").req(cpu="4").obj()
    s.add_pod(pod)
    s.schedule_one()
    s.add_node(make_node().name("n2").capacity(cpu="8", memory="4Gi", pods=110).obj())
    assert s.queue.where(pod) == "Backoff"
    return s.queue.pop() is not None


def test_pop_from_backoff_q_gate() -> None:
    """An empty activeQ pops the backing-off pod from 1.33 on (SchedulerPopFromBackoffQ); not in
    1.32, nor with the gate off."""
    assert _backing_off_pod_popped(kubernetes_version="1.32") is False
    assert _backing_off_pod_popped(kubernetes_version="1.33") is True
    assert _backing_off_pod_popped(feature_gates={"SchedulerPopFromBackoffQ": False}) is False
    # the explicit argument still wins
    assert _backing_off_pod_popped(kubernetes_version="1.32", pop_from_backoff_q=True) is True


def test_node_declared_features_gate_adds_the_plugin_to_the_defaults() -> None:
    """NodeDeclaredFeatures (on by default from 1.36, locked on in 1.37) adds its plugin to the
    default profile."""
    def has_it(config: SchedulerConfiguration) -> bool:
        assert config.omitted_upstream_plugins == ()
        return "NodeDeclaredFeatures" in config.profiles[0].plugin_names()

    assert not has_it(SchedulerConfiguration.default(kubernetes_version="1.35"))
    assert has_it(SchedulerConfiguration.default(kubernetes_version="1.36"))
    assert has_it(SchedulerConfiguration.default())
    assert has_it(SchedulerConfiguration.default(kubernetes_version="1.35",
                                                 feature_gates="NodeDeclaredFeatures=true"))


def test_cli_feature_gates(capsys: pytest.CaptureFixture[str]) -> None:
    """``--feature-gates`` on the CLI: applied, and refused gates are one error, exit 2."""
    assert main(["config", "default", "--json", "--kubernetes-version", "1.34",
                 "--feature-gates", "DynamicResourceAllocation=false"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert "DynamicResources" not in [p["name"] for p in doc["profiles"][0]["plugins"]["filter"]["enabled"]]
    assert main(["config", "default", "--feature-gates", "Nope=true"]) == 2
    err = capsys.readouterr().err
    assert "--feature-gates Nope: unrecognized feature gate: Nope" in err


def test_release_profile_is_public() -> None:
    """``schedframe.ReleaseProfile`` and ``release_profile`` are exported."""
    assert schedframe.ReleaseProfile is type(release_profile())
    assert release_profile().version == SUPPORTED_RELEASES[-1]
