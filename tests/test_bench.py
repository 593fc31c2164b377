"""The benchmark suite builds every workload as upstream shapes it, runs it, and reports the right
fields. No timing assertions: benchmarks never fail on a number."""

from __future__ import annotations

import json
import runpy
import sys
import types
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe import ConfigurationError, Pod
from schedframe.bench import (
    SCHEMA,
    WORKLOADS,
    BenchmarkError,
    BenchOptions,
    BenchPodGroup,
    BenchWorkload,
    Churn,
    NodeGroup,
    WorkloadResult,
    build_registry,
    default_node,
    default_pod,
    format_profile,
    format_table,
    get_workload,
    load_config,
    machine_info,
    main,
    make_record,
    run_named,
    run_suite,
    run_workload,
    select_workloads,
    summarize,
)
from schedframe.bench import _workloads as wl
from schedframe.bench._runner import _percentile, _profile_path
from schedframe.cli import main as cli_main
from schedframe.errors import DuplicatePluginError
from schedframe.sim.results import percentile
from schedframe.testing import make_pod

ROOT = Path(__file__).resolve().parent.parent
MINIMAL_CONFIG = ROOT / "tests" / "data" / "config" / "minimal.yaml"
TINY = 0.002  # 5,000 nodes -> 10, 55,000 pods -> 110


def _result(**changes: object) -> WorkloadResult:
    base: dict[str, object] = {
        "workload": "W/1", "scale": 1.0, "nodes": 10, "initial_pods": 0, "measured_pods": 10,
        "initial_mode": "schedule", "scheduled": 10, "unscheduled": 0, "unscheduled_reasons": {},
        "churn_pods": 0, "attempts": 10, "seconds": 1.0, "pods_per_second": 10.0, "cpu_seconds": 0.9,
        "pods_per_cpu_second": 11.1, "gc_seconds": 0.0, "gc_collections": 0, "floor": 5.0,
        "latency_p50_ms": 1.0, "latency_p90_ms": 2.0, "latency_p99_ms": 3.0,
        "latency_max_ms": 4.0, "setup_seconds": 0.1, "initial_seconds": 0.0, "initial_unscheduled": 0,
        "enqueue_seconds": 0.01, "peak_rss_mb": 50.0, "rss_mb": 40.0, "memory_target_mb": None}
    base.update(changes)
    return WorkloadResult(**base)  # type: ignore[arg-type]


def _tiny_workload(measured: int = 6, *, pod: object = None, churn: Churn | None = None,
                   initial: int = 0) -> BenchWorkload:
    make = pod if pod is not None else (lambda i: default_pod(f"p-{i}"))
    return BenchWorkload(
        name="Tiny/3Nodes", description="tiny",
        nodes=(NodeGroup(count=3, make=lambda i: default_node(f"n{i}")),),
        initial=(BenchPodGroup(count=initial, make=lambda i: default_pod(f"init-{i}")),) if initial else (),
        measured=(BenchPodGroup(count=measured, make=make),),  # type: ignore[arg-type]
        churn=churn, floor=1.0)


# --------------------------------------------------------------------------------------------
# shapes


def test_default_node_is_upstream_node_default():
    """The default node has upstream's capacity (allocatable follows), is Ready, and unlabeled."""
    node = default_node("n")
    assert node.allocatable_resources.milli_cpu == 4000
    assert node.allocatable_resources.memory == 32 * 1024**3
    assert node.allocatable_resources.pods == 110
    assert [(c.type, c.status) for c in node.conditions] == [("Ready", "True")]
    assert dict(node.labels) == {}


def test_default_pod_is_upstream_pod_default():
    """The default pod: one pause container, requests = limits = 100m / 500Mi, port 80 not on the host."""
    pod = default_pod("p", "ns")
    [c] = pod.containers
    assert c.name == "pause"
    assert c.image == wl.PAUSE_IMAGE
    assert {k: str(v) for k, v in c.requests.items()} == {"cpu": "100m", "memory": "500Mi"}
    assert c.limits == c.requests
    assert [(p.container_port, p.host_port) for p in c.ports] == [(80, 0)]
    assert pod.requests.milli_cpu == 100
    assert pod.requests.memory == 500 * 1024**2
    assert pod.key == "ns/p"
    assert pod.priority is None


@pytest.mark.parametrize(
    ("template", "label", "check"),
    [
        pytest.param(wl.node_affinity_pod, None,
                     lambda p: p.affinity.node_affinity.required.terms[0].match_expressions[0].values
                     == ("zone1", "zone2"), id="node affinity zone1/zone2"),
        pytest.param(wl.pod_anti_affinity_pod, "green",
                     lambda p: p.affinity.pod_anti_affinity.required[0].topology_key == wl.HOSTNAME_LABEL,
                     id="required anti-affinity on hostname"),
        pytest.param(wl.pod_affinity_pod, "blue",
                     lambda p: p.affinity.pod_affinity.required[0].topology_key == wl.ZONE_LABEL,
                     id="required affinity on zone"),
        pytest.param(wl.preferred_pod_affinity_pod, "red",
                     lambda p: p.affinity.pod_affinity.preferred[0].weight == 1, id="preferred affinity"),
        pytest.param(wl.preferred_pod_anti_affinity_pod, "yellow",
                     lambda p: p.affinity.pod_anti_affinity.preferred[0].weight == 1,
                     id="preferred anti-affinity"),
        pytest.param(wl.topology_spreading_pod, "blue",
                     lambda p: (p.topology_spread_constraints[0].max_skew,
                                p.topology_spread_constraints[0].when_unsatisfiable) == (5, "DoNotSchedule"),
                     id="spreading DoNotSchedule"),
        pytest.param(wl.preferred_topology_spreading_pod, "blue",
                     lambda p: p.topology_spread_constraints[0].when_unsatisfiable == "ScheduleAnyway",
                     id="spreading ScheduleAnyway"),
        pytest.param(wl.high_priority_pod, None,
                     lambda p: (p.priority, p.requests.milli_cpu) == (10, 3000), id="high priority"),
        pytest.param(wl.low_priority_pod, None,
                     lambda p: (p.priority, p.requests.milli_cpu) == (None, 900), id="low priority"),
        pytest.param(wl.high_priority_large_cpu_pod, None,
                     lambda p: (p.priority, p.requests.milli_cpu, dict(p.containers[0].limits))
                     == (10, 9000, {}),
                     id="large cpu, no limits"),
    ],
)
def test_pod_templates(template, label, check):
    """Each pod template carries upstream's affinity / spreading / priority specifics."""
    pod = template("p", "sched-0")
    assert (pod.labels.get("color") if label else None) == label
    assert check(pod)


def test_daemonset_pod_pins_to_the_named_node():
    """A DaemonSet pod has no requests and a matchFields metadata.name term for the named node."""
    pod = wl.daemonset_pod("d")
    term = pod.affinity.node_affinity.required.terms[0]
    assert [(r.key, r.values) for r in term.match_fields] == [("metadata.name", (wl.DAEMONSET_NODE,))]
    assert pod.requests.milli_cpu == 0
    assert pod.containers[0].ports == ()


def test_daemonset_workload_has_one_unscaled_named_node():
    """SchedulingDaemonset keeps its one named node (90,000 pods) when scaled."""
    w = get_workload("SchedulingDaemonset/15000Nodes").scaled(TINY)
    names = [n.name for n in w.build_nodes()]
    assert names[0] == wl.DAEMONSET_NODE
    assert len(names) == 31
    assert w.build_nodes()[0].allocatable_resources.pods == 90000


def test_zone_labels_round_robin():
    """Zoned workloads label nodes round-robin over their zones, like labelNodePrepareStrategy."""
    nodes = get_workload("TopologySpreading/5000Nodes_5000Pods").scaled(TINY).build_nodes()
    assert [n.labels[wl.ZONE_LABEL] for n in nodes[:4]] == ["moon-1", "moon-2", "moon-3", "moon-1"]


@pytest.mark.parametrize(
    ("name", "nodes", "initial", "measured", "floor"),
    [
        pytest.param("SchedulingBasic/5000Nodes_10000Pods", 5000, 1000, 10000, 680, id="basic 10k"),
        pytest.param("SchedulingBasic/5000Nodes_50000Pods", 5000, 5000, 50000, 810, id="basic 50k"),
        pytest.param("SchedulingDaemonset/15000Nodes", 15001, 0, 30000, 1100, id="daemonset"),
        pytest.param("SchedulingNodeAffinity/5000Nodes_10000Pods", 5000, 5000, 10000, 220,
                     id="node affinity"),
        pytest.param("SchedulingPodAntiAffinity/5000Nodes_2000Pods", 5000, 1000, 2000, 60,
                     id="anti-affinity"),
        pytest.param("SchedulingPodAffinity/5000Nodes_5000Pods", 5000, 5000, 5000, 35, id="affinity"),
        pytest.param("TopologySpreading/5000Nodes_5000Pods", 5000, 5000, 5000, 460, id="spreading"),
        pytest.param("MixedSchedulingBasePod/5000Nodes_5000Pods", 5000, 10000, 5000, 140, id="mixed"),
        pytest.param("Unschedulable/5kNodes/100Init/10kPods", 5000, 100, 10000, 590, id="unschedulable"),
        pytest.param("PreemptionBasic/1000Nodes", 1000, 4000, 1000, None, id="preemption"),
        pytest.param("Memory/5000Nodes_55000Pods", 5000, 55000, 0, None, id="memory"),
    ],
)
def test_workload_sizes(name, nodes, initial, measured, floor):
    """The built-in workloads have upstream's counts and floors."""
    w = get_workload(name)
    assert (w.node_count, w.initial_count, w.measured_count, w.floor) == (nodes, initial, measured, floor)


# --------------------------------------------------------------------------------------------
# scaling and selection


@given(st.floats(min_value=0.0001, max_value=3.0))
def test_scaled_counts_are_proportional(factor):
    """Scaling multiplies every scalable count (at least 1) and records the factor."""
    w = get_workload("MixedSchedulingBasePod/5000Nodes_5000Pods")
    s = w.scaled(factor)
    for before, after in zip(w.initial + w.measured + w.nodes, s.initial + s.measured + s.nodes):
        assert after.count == (before.count if factor == 1 else max(1, round(before.count * factor)))
    assert s.scale == factor


@pytest.mark.parametrize("factor", [pytest.param(0, id="zero"), pytest.param(-1, id="negative")])
def test_scaled_rejects_non_positive(factor):
    """A scale must be positive."""
    with pytest.raises(BenchmarkError, match="scale must be > 0"):
        get_workload("SchedulingBasic/5000Nodes_10000Pods").scaled(factor)


@pytest.mark.parametrize(
    ("patterns", "want"),
    [
        pytest.param(["SchedulingBasic"], ["SchedulingBasic/5000Nodes_10000Pods",
                                           "SchedulingBasic/5000Nodes_50000Pods"], id="prefix"),
        pytest.param(["memory"], ["Memory/5000Nodes_55000Pods"], id="group"),
        pytest.param(["Memory/5000Nodes_55000Pods", "SchedulingDaemonset/15000Nodes"],
                     ["SchedulingDaemonset/15000Nodes", "Memory/5000Nodes_55000Pods"], id="suite order"),
        pytest.param(["Unschedulable"], ["Unschedulable/5kNodes/100Init/10kPods"], id="prefix with slashes"),
    ],
)
def test_select_workloads(patterns, want):
    """Workloads are selected by name, prefix or group, in suite order."""
    assert [w.name for w in select_workloads(patterns)] == want


def test_select_all_and_series():
    """``all`` is every performance workload plus the memory target; ``series`` the scale series."""
    names = [w.name for w in select_workloads(["all"])]
    assert "Memory/5000Nodes_55000Pods" in names
    assert not any(n.startswith("Series/") for n in names)
    assert len(select_workloads(["series"])) == 13


def test_unknown_workload_suggests():
    """An unknown workload name is an error suggesting the closest one."""
    with pytest.raises(BenchmarkError, match="did you mean 'SchedulingDaemonset/15000Nodes'"):
        select_workloads(["SchedulingDaemonset/1500Nodes"])


# --------------------------------------------------------------------------------------------
# running


@pytest.mark.parametrize("name", [pytest.param(n, id=n) for n in WORKLOADS])
def test_every_workload_runs_at_tiny_scale(name):
    """Every workload builds and runs; every measured and initial pod gets bound."""
    w = get_workload(name)
    # at least 10 nodes of the mixed shapes (the first pods need a node of the right zone or size)
    w = w.scaled(max(TINY, 10 / w.node_count) if name.startswith("SeriesMixed/") else TINY)
    if w.skip_reason() is not None:  # the openb workloads without the trace's files
        pytest.skip(w.skip_reason())
    r = run_workload(w)
    assert (r.workload, r.nodes, r.initial_pods, r.measured_pods) == (
        name, w.node_count, w.initial_count, w.measured_count)
    assert r.unscheduled == 0
    assert r.initial_unscheduled == 0
    assert r.unscheduled_reasons == {}
    assert r.scheduled == w.measured_count
    assert r.peak_rss_mb is None or r.peak_rss_mb > 0
    assert r.gc_seconds >= 0
    assert r.gc_collections >= 0
    if w.measured_count:
        assert r.attempts >= r.measured_pods
        assert r.pods_per_second is not None
        assert r.pods_per_second > 0
        assert r.latency_p50_ms is not None
        assert r.latency_p99_ms is not None
        assert r.latency_max_ms is not None
        assert 0 <= r.latency_p50_ms <= r.latency_p90_ms <= r.latency_p99_ms <= r.latency_max_ms  # type: ignore[operator]
    else:
        assert r.pods_per_second is None
        assert r.latency_p50_ms is None
    assert r.passed is None  # scaled: not comparable


def test_preemption_workload_preempts():
    """PreemptionBasic's measured pods are bound after evicting low-priority pods (time advances
    on the fake clock through their backoff)."""
    r = run_workload(get_workload("PreemptionBasic/1000Nodes").scaled(0.005))
    assert r.scheduled == r.measured_pods == 5
    assert r.attempts > r.measured_pods  # each failed once, preempted, then fit


def test_churn_pods_are_injected_and_not_counted():
    """Churn pods arrive every N attempts, are never bound, and do not count as unscheduled."""
    churn = Churn(make=lambda i: wl.high_priority_large_cpu_pod(f"h-{i}"), every=3)
    r = run_workload(_tiny_workload(9, churn=churn))
    assert r.churn_pods == 3
    assert r.scheduled == 9
    assert r.unscheduled == 0
    assert r.attempts >= 9 + 3


def test_unscheduled_measured_pods_are_reported():
    """A measured pod that fits nowhere is counted, with its failure message."""
    def make(i: int) -> Pod:
        return make_pod(f"big-{i}").req(cpu="64").obj() if i == 0 else default_pod(f"p-{i}")

    r = run_workload(_tiny_workload(4, pod=make))
    assert (r.scheduled, r.unscheduled) == (3, 1)
    [(message, count)] = r.unscheduled_reasons.items()
    assert count == 1
    assert "3 Insufficient cpu" in message
    assert r.passed is False


@pytest.mark.parametrize("mode", [pytest.param("schedule", id="schedule"), pytest.param("bind", id="bind")])
def test_initial_modes(mode):
    """Initial pods are scheduled or bound round-robin; either way all are placed before measuring."""
    r = run_workload(_tiny_workload(2, initial=5), initial=mode)
    assert r.initial_mode == mode
    assert r.initial_unscheduled == 0
    assert r.unscheduled == 0


def test_workload_forces_its_initial_mode():
    """A workload's own initial_mode wins over the run's."""
    r = run_workload(get_workload("Memory/5000Nodes_55000Pods").scaled(TINY), initial="schedule")
    assert r.initial_mode == "bind"


def test_bad_initial_mode():
    """Only schedule and bind are initial modes."""
    with pytest.raises(BenchmarkError, match="initial must be one of"):
        run_workload(_tiny_workload(), initial="teleport")


def test_bind_without_nodes_is_an_error():
    """Binding initial pods needs nodes."""
    w = BenchWorkload(name="Empty/0", description="", nodes=(),
                 initial=(BenchPodGroup(count=1, make=lambda i: default_pod("x")),))
    with pytest.raises(BenchmarkError, match="without nodes"):
        run_workload(w, initial="bind")


def test_profile_and_gc_freeze(tmp_path):
    """A profile of the measured phase is written and its top functions print."""
    path = tmp_path / "prof.out"
    r = run_workload(_tiny_workload(), profile_path=str(path), gc_freeze=True)
    assert r.gc_frozen
    assert path.exists()
    text = format_profile(str(path), 5)
    assert "by cumulative time" in text
    assert "by own time" in text
    assert "schedule_one" in text


@pytest.mark.parametrize(
    ("base", "many", "want"),
    [
        pytest.param(None, True, None, id="none"),
        pytest.param("p.out", False, "p.out", id="single"),
        pytest.param("p.out", True, "p.A_B.1.out", id="many with suffix"),
        pytest.param("prof", True, "prof.A_B.1", id="many without suffix"),
    ],
)
def test_profile_paths(base, many, want):
    """Several profiled runs get one file each."""
    assert _profile_path(base, "A/B", 1, many) == want


def test_run_named_with_config_file():
    """A named workload runs with a KubeSchedulerConfiguration file."""
    opts = BenchOptions(config_path=str(MINIMAL_CONFIG), entry_points=False, initial="bind")
    r = run_named("SchedulingBasic/5000Nodes_10000Pods", TINY, opts)
    assert r.unscheduled == 0
    assert not r.isolated
    assert r.initial_mode == "bind"


def test_run_suite_isolated_and_repeated():
    """An isolated run happens in a fresh process; repeats are summarized with medians."""
    seen: list[WorkloadResult] = []
    [(summary, runs)] = run_suite(["SchedulingPodAntiAffinity/5000Nodes_2000Pods"], scale=TINY, repeat=2,
                                  isolate=False, on_result=seen.append)
    assert len(runs) == 2
    assert summary.runs == 2
    assert seen == runs
    [(isolated, _)] = run_suite(["Memory/5000Nodes_55000Pods"], scale=TINY, isolate=True)
    assert isolated.isolated
    assert isolated.peak_rss_mb is not None


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        pytest.param({"repeat": 0}, "repeat must be >= 1", id="repeat"),
        pytest.param({"names": ["Nope"]}, "no workload named 'Nope'", id="unknown"),
    ],
)
def test_run_suite_errors(kwargs, match):
    """run_suite refuses zero repeats and unknown workloads."""
    names = kwargs.pop("names", ["Memory/5000Nodes_55000Pods"])
    with pytest.raises(BenchmarkError, match=match):
        run_suite(names, scale=TINY, isolate=False, **kwargs)


# --------------------------------------------------------------------------------------------
# plugins and configuration


def test_plugin_specs(monkeypatch):
    """Plugins register by Name=module:factory, module:factory (module NAME) and module (hook)."""
    hook_mod = types.ModuleType("bench_hook_plugins")
    hook_mod.schedframe_register_plugins = lambda registry: registry.register(  # type: ignore[attr-defined]
        "HookPlugin", lambda args, handle: None)
    monkeypatch.setitem(sys.modules, "bench_hook_plugins", hook_mod)
    registry = build_registry(["Mine=schedframe.plugins.node_name:new", "bench_hook_plugins"],
                              entry_points=False)
    assert "Mine" in registry
    assert "HookPlugin" in registry
    assert "NodeName" in registry
    with pytest.raises(DuplicatePluginError, match="NodeName"):
        build_registry(["schedframe.plugins.node_name:new"], entry_points=False)


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        pytest.param(":new", "want \\[Name=\\]module:factory", id="no module"),
        pytest.param("no_such_module_xyz:new", "cannot import 'no_such_module_xyz'", id="import error"),
        pytest.param("json", "has no schedframe_register_plugins", id="module without hook"),
        pytest.param("json:nope", "has no 'nope'", id="missing factory"),
        pytest.param("json:dumps", "no NAME in 'json'", id="no name"),
    ],
)
def test_bad_plugin_specs(spec, match):
    """Bad plugin specs are errors saying what to give."""
    with pytest.raises(BenchmarkError, match=match):
        build_registry([spec], entry_points=False)


def test_entry_points_are_loaded():
    """By default the registry also holds installed distributions' plugins (none break it)."""
    assert "NodeResourcesFit" in build_registry()


def test_load_config(tmp_path):
    """Configuration files are read as KubeSchedulerConfiguration; a missing one is an error."""
    registry = build_registry(entry_points=False)
    assert load_config(MINIMAL_CONFIG, registry).profiles[0].scheduler_name == "default-scheduler"
    with pytest.raises(ConfigurationError, match="cannot read the configuration file"):
        load_config(tmp_path / "missing.yaml", registry)


def test_options_validate_initial():
    """BenchOptions accepts only the known initial modes."""
    with pytest.raises(ValueError, match="'initial' must be in"):
        BenchOptions(initial="teleport")


# --------------------------------------------------------------------------------------------
# results and reports


@pytest.mark.parametrize(
    ("changes", "want"),
    [
        pytest.param({}, True, id="above floor"),
        pytest.param({"pods_per_second": 4.0}, False, id="below floor"),
        pytest.param({"unscheduled": 1}, False, id="unscheduled pods"),
        pytest.param({"scale": 0.5}, None, id="scaled"),
        pytest.param({"floor": None}, None, id="no target"),
        pytest.param({"floor": None, "memory_target_mb": 60.0}, True, id="memory within"),
        pytest.param({"floor": None, "memory_target_mb": 40.0}, False, id="memory over"),
    ],
)
def test_passed(changes, want):
    """A run passes when it meets its floor and memory target with every measured pod bound."""
    assert _result(**changes).passed is want


def test_summarize_takes_medians():
    """Several runs summarize to medians, the worst correctness, and the run count."""
    runs = [_result(pods_per_second=v, latency_p99_ms=v / 10) for v in (10.0, 30.0, 20.0)]
    runs[1] = _result(pods_per_second=30.0, latency_p99_ms=3.0, unscheduled=2, unscheduled_reasons={"x": 2})
    s = summarize(runs)
    assert (s.pods_per_second, s.latency_p99_ms, s.runs, s.unscheduled) == (20.0, 2.0, 3, 2)
    assert summarize(runs[:1]) is runs[0]
    with pytest.raises(BenchmarkError, match="at least one result"):
        summarize([])


@given(st.lists(st.floats(min_value=0, max_value=1e6), min_size=1), st.sampled_from([50, 90, 99, 100]))
def test_percentile_is_the_simulators_within_bounds(values, p):
    """bench's percentile is the simulator's (linear interpolation): within the values' range,
    never below the median for p >= 50, the maximum at 100."""
    got = _percentile(values, p)
    assert got == percentile(values, p)
    assert min(values) <= got <= max(values)
    assert got >= _percentile(values, 50) - 1e-9 * max(values)
    assert _percentile(values, 100) == max(values)
    assert _percentile([1.0, 2.0, 3.0, 4.0], 50) == 2.5


def test_table_and_record():
    """The table has a header and one row per result; the record is JSON with machine info."""
    results = [_result(), _result(workload="M/1", floor=None, pods_per_second=None, memory_target_mb=300.0)]
    table = format_table(results)
    header = table.splitlines()[0]
    for column in ("workload", "pods/s", "pods/cpu-s", "floor", "p50 ms", "p99 ms", "peak MiB", "unsched",
                   "check"):
        assert column in header
    assert "PASS" in table.splitlines()[2]
    assert len(table.splitlines()) == 4
    record = json.loads(json.dumps(make_record([(r, [r]) for r in results], {"scale": 1.0})))
    assert record["schema"] == SCHEMA
    assert {"python", "platform", "cpu_count"} <= record["machine"].keys()
    first = record["results"][0]
    assert first["pods_per_second"] == 10.0
    assert first["passed"] is True
    assert len(first["run_results"]) == 1


def test_machine_info():
    """Machine info names the Python and the CPUs."""
    info = machine_info()
    assert info["python"].count(".") == 2
    assert info["cpu_count"] >= 1


# --------------------------------------------------------------------------------------------
# command line


def test_cli_list(capsys):
    """--list names every workload with its floor."""
    assert main(["--list"]) == 0
    out = capsys.readouterr().out
    assert all(name in out for name in WORKLOADS)
    assert "floor 680 pods/s" in out


def test_cli_run_json_and_profile(tmp_path, capsys):
    """A run prints the table and machine, writes the JSON record and prints the profiles."""
    out_json = tmp_path / "r.json"
    prof = tmp_path / "p.out"
    argv = ["SchedulingBasic/5000Nodes_10000Pods", "TopologySpreading", "--scale", str(TINY),
            "--no-isolate", "--json", str(out_json), "--profile", str(prof), "--profile-top", "3",
            "--no-entry-points", "--initial", "bind"]
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert "SchedulingBasic/5000Nodes_10000Pods" in captured.out
    assert "machine: Python" in captured.out
    assert "scaled run" in captured.out
    assert "by own time" in captured.out
    assert "[bench]" in captured.err
    record = json.loads(out_json.read_text())
    assert [r["workload"] for r in record["results"]] == [
        "SchedulingBasic/5000Nodes_10000Pods", "TopologySpreading/5000Nodes_5000Pods"]
    assert record["options"]["scale"] == TINY


def test_cli_json_to_stdout_quiet(capsys):
    """--json - prints the record; -q silences progress."""
    assert main(["Memory", "--scale", str(TINY), "--no-isolate", "-q", "--json", "-"]) == 0
    captured = capsys.readouterr()
    assert captured.err == ""
    assert '"schema": "schedframe-bench/1"' in captured.out
    record = json.loads(captured.out[captured.out.index("{\n"):],
                        parse_constant=lambda c: pytest.fail(f"{c} in bench --json"))
    assert record["schema"] == "schedframe-bench/1"


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        pytest.param(["Nope"], "no workload named 'Nope'", id="unknown workload"),
        pytest.param(["Memory", "--plugin", "json"], "has no schedframe_register_plugins", id="bad plugin"),
    ],
)
def test_cli_errors(argv, match, capsys):
    """Errors exit with status 2 and a message."""
    assert main([*argv, "--no-isolate"]) == 2
    assert match in capsys.readouterr().err


@pytest.mark.parametrize(
    ("argv", "match"),
    [
        pytest.param(["--scale", "0"], "--scale must be > 0", id="scale"),
        pytest.param(["--repeat", "0"], "--repeat must be >= 1", id="repeat"),
    ],
)
def test_cli_usage_errors(argv, match, capsys):
    """Bad numbers are usage errors."""
    with pytest.raises(SystemExit, match="2"):
        main(["Memory", *argv])
    assert match in capsys.readouterr().err


@pytest.mark.parametrize(
    "run",
    [
        pytest.param(lambda: runpy.run_module("schedframe.bench", run_name="__main__"), id="python -m"),
        pytest.param(lambda: sys.exit(cli_main(["bench", *sys.argv[1:]])), id="schedframe bench"),
    ],
)
def test_entry_scripts(run, monkeypatch, capsys):
    """``python -m schedframe.bench`` and ``schedframe bench`` run the same command line."""
    monkeypatch.setattr(sys, "argv", ["bench", "--list"])
    with pytest.raises(SystemExit, match="0"):
        run()
    assert "SchedulingBasic/5000Nodes_10000Pods" in capsys.readouterr().out
