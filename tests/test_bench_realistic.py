"""The realistic benchmark workloads (mixed shapes, openb, the skippy comparison), the flat
per-node resource row and the per-position columns the resource plugins read. No timing
assertions: benchmarks never fail on a number."""

from __future__ import annotations

import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import NodeInfo
from schedframe.api import Resources
from schedframe.bench import (
    BenchmarkError,
    _skippy,
    format_comparison,
    format_ratios,
    get_workload,
    main,
    openb_dir,
    run_comparison,
    run_workload,
    select_workloads,
    skippy_available,
)
from schedframe.bench import _realistic as rl
from schedframe.cache.nodeinfo import RESOURCE_ROW_FIELDS
from schedframe.plugins._run_memo import COLUMN_ROOM, NodeColumns
from schedframe.testing import make_node, make_pod

from .test_bench import _result

ROOT = Path(__file__).resolve().parent.parent
REALISTIC = ["SkippyComparison/5000Nodes_3000Pods", "UniformShapes/5000Nodes_5000Pods",
             "MixedShapes/5000Nodes_5000Pods", "DefaultSpread/5000Nodes_5000Pods",
             "OpenBUniform/1213Nodes_4000Pods", "OpenB/1213Nodes_4000Pods",
             "OpenBUniform/10000Nodes_10000Pods", "OpenB/10000Nodes_10000Pods"]


def _fake_openb(tmp_path: Path) -> Path:
    (tmp_path / "openb_node_list_gpu_node.csv").write_text(
        "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,8000,32768,1,T4\n"
        "openb-node-0001,96000,393216,8,V100M32\nopenb-node-0002,96000,393216,8,V100M32\n")
    (tmp_path / "openb_pod_list_default.csv").write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nopenb-pod-0000,12000,16384,1,1000\n"
        "openb-pod-0001,0,0,0,0\nopenb-pod-0002,4000,8192,1,500\n")
    return tmp_path


# -- the workloads ------------------------------------------------------------------------------

def test_realistic_group():
    """``realistic`` selects the new workloads; ``all`` still means performance and memory."""
    assert [w.name for w in select_workloads(["realistic"])] == REALISTIC
    assert not set(REALISTIC) & {w.name for w in select_workloads(["all"])}
    assert get_workload("MixedShapes/5000Nodes_5000Pods").baseline == "UniformShapes/5000Nodes_5000Pods"
    assert get_workload("OpenB/1213Nodes_4000Pods").baseline == "OpenBUniform/1213Nodes_4000Pods"


def test_skippy_comparison_work():
    """The comparison's nodes are 32 CPU / 128Gi; its pods' sizes come from the stated sets,
    all of them, the same for skippy and for schedframe."""
    w = get_workload("SkippyComparison/5000Nodes_3000Pods")
    assert (w.node_count, w.measured_count) == (5000, 3000)
    node = w.nodes[0].make(7)
    assert (node.allocatable_resources.milli_cpu, node.allocatable_resources.memory) == (32000, 128 << 30)
    sizes = [rl.skippy_pod_size(i) for i in range(3000)]
    assert {c for c, _ in sizes} == set(rl.SKIPPY_CPU_MILLI) == {250, 500, 1000, 2000, 4000}
    assert {m for _, m in sizes} == set(rl.SKIPPY_MEMORY_MIB)
    assert min(rl.SKIPPY_MEMORY_MIB) == 256
    assert max(rl.SKIPPY_MEMORY_MIB) == 8192
    for i in (0, 1, 2999):
        pod = w.measured[0].make(i)
        assert (pod.requests.milli_cpu, pod.requests.memory >> 20) == rl.skippy_pod_size(i)


def test_mixed_shapes_are_mixed():
    """10+ node shapes, three zones, taints on some nodes; pods of many sizes with shares of
    tolerations, node affinity, spreading and anti-affinity; the uniform variant has one of each."""
    w = get_workload("MixedShapes/5000Nodes_5000Pods")
    nodes = [w.nodes[0].make(i) for i in range(600)]
    shapes = {(n.allocatable_resources.milli_cpu, n.allocatable_resources.memory) for n in nodes}
    assert len(shapes) >= 10
    assert {n.labels[rl.ZONE_LABEL] for n in nodes} == set(rl.ZONES)
    assert all(n.labels[rl.HOSTNAME_LABEL] == n.name for n in nodes)
    tainted = sum(1 for n in nodes if n.taints)
    assert 0.05 * len(nodes) < tainted < 0.2 * len(nodes)
    pods = [w.measured[0].make(i) for i in range(1000)]
    assert len({(p.requests.milli_cpu, p.requests.memory) for p in pods}) >= 20
    share = Counter()
    for p in pods:
        share["tolerations"] += bool(p.tolerations)
        share["spread"] += bool(p.topology_spread_constraints)
        aff = p.affinity
        share["node affinity"] += bool(aff and aff.node_affinity) or bool(p.node_selector)
        share["anti-affinity"] += bool(aff and aff.pod_anti_affinity)
    assert 100 < share["tolerations"] < 300
    assert 200 < share["spread"] < 400
    assert 250 < share["node affinity"] < 550
    assert 30 < share["anti-affinity"] < 120
    uniform = get_workload("UniformShapes/5000Nodes_5000Pods")
    assert len({(n.allocatable_resources.milli_cpu, n.allocatable_resources.memory)
                for n in (uniform.nodes[0].make(i) for i in range(50))}) == 1
    assert all(not p.topology_spread_constraints and p.affinity is None
               for p in (uniform.measured[0].make(i) for i in range(50)))


def test_default_spread_is_uniform_shapes_under_the_default_constraints(monkeypatch):
    """DefaultSpread's pods are UniformShapes' with an owner; the runner hands the scheduler the
    ReplicaSets and Services, so PodTopologySpread's system default constraints (zone and
    hostname) apply to every pod, with the owner's and the Service's selector."""
    from schedframe import Scheduler
    from schedframe.api import ReplicaSet, Service
    from schedframe.plugins.pod_topology_spread import SCHEDULE_ANYWAY

    w = get_workload("DefaultSpread/5000Nodes_5000Pods")
    uniform = get_workload("UniformShapes/5000Nodes_5000Pods")
    assert w.baseline == uniform.name
    pods = [w.measured[0].make(i) for i in range(3)]
    assert [p.evolve(owner_references=()) for p in pods] == [uniform.measured[0].make(i) for i in range(3)]
    made: list[Scheduler] = []
    init = Scheduler.__init__

    def keep(self, *args, **kwargs):
        init(self, *args, **kwargs)
        made.append(self)

    monkeypatch.setattr(Scheduler, "__init__", keep)
    r = run_workload(w.scaled(0.002))
    assert (r.scheduled, r.unscheduled) == (10, 0)
    s = made[-1]
    assert len(s.objects.list(ReplicaSet)) == len(s.objects.list(Service)) == 60
    plugin: Any = s.frameworks["default-scheduler"].get_plugin("PodTopologySpread")
    constraints = plugin.get_constraints(pods[1], SCHEDULE_ANYWAY)
    keys = sorted(c.topology_key for c in constraints)
    assert keys == ["kubernetes.io/hostname", "topology.kubernetes.io/zone"]
    assert all(c.selector.matches(pods[1].labels) and not c.selector.matches(pods[2].labels)
               for c in constraints)


def test_items_depend_on_their_index_only():
    """A scaled-down workload is a prefix of the full one (choices are seeded by index)."""
    full = get_workload("MixedShapes/5000Nodes_5000Pods")
    small = full.scaled(0.01)
    assert small.measured[0].make(17) == full.measured[0].make(17)
    assert small.nodes[0].make(17) == full.nodes[0].make(17)


# -- openb --------------------------------------------------------------------------------------

def test_openb_dir_default_and_override(monkeypatch, tmp_path):
    """The trace is read from an explicit folder, else $SCHEDFRAME_OPENB; schedframe assumes no
    location of its own (the workloads say the variable is not set)."""
    monkeypatch.delenv(rl.OPENB_ENV, raising=False)
    assert openb_dir() is None
    reason = get_workload("OpenB/1213Nodes_4000Pods").skip_reason()
    assert reason is not None
    assert f"{rl.OPENB_ENV} is not set" in reason
    assert openb_dir(tmp_path / "x") == tmp_path / "x"
    monkeypatch.setenv(rl.OPENB_ENV, str(tmp_path))
    assert openb_dir() == tmp_path


def test_openb_missing_is_skipped_with_a_reason(monkeypatch, tmp_path, capsys):
    """Without the trace the openb workloads say why they cannot run; the command line skips
    them with that reason and runs the rest; running one directly is a BenchmarkError."""
    monkeypatch.setenv(rl.OPENB_ENV, str(tmp_path / "nowhere"))
    w = get_workload("OpenB/1213Nodes_4000Pods")
    reason = w.skip_reason()
    assert reason is not None
    assert "openb_node_list_gpu_node.csv" in reason
    assert rl.OPENB_ENV in reason
    with pytest.raises(BenchmarkError, match="cannot run: openb trace not found"):
        run_workload(w.scaled(0.002))
    assert main(["OpenB", "--scale", "0.002", "--no-isolate", "-q"]) == 0
    err = capsys.readouterr().err
    assert "skipped OpenB/1213Nodes_4000Pods: openb trace not found" in err
    assert "nothing to run" in err


def test_openb_sizes_come_from_the_trace(monkeypatch, tmp_path):
    """Nodes and pods take their CPU and memory from the CSV rows (nodes largest first, repeated
    past the list's end; pods in order); the uniform variant uses the most common node shape
    and the median pod; a pod requesting nothing gets no requests."""
    monkeypatch.setenv(rl.OPENB_ENV, str(_fake_openb(tmp_path)))
    rl._openb_rows.cache_clear()
    rl._openb_nodes_largest_first.cache_clear()
    try:
        w = get_workload("OpenB/10000Nodes_10000Pods")
        nodes = [w.nodes[0].make(i) for i in range(4)]
        assert [(n.allocatable_resources.milli_cpu, n.allocatable_resources.memory >> 20) for n in nodes] == [
            (96000, 393216), (96000, 393216), (8000, 32768), (96000, 393216)]
        pods = [w.measured[0].make(i) for i in range(4)]
        assert [(p.requests.milli_cpu, p.requests.memory >> 20) for p in pods] == [
            (12000, 16384), (0, 0), (4000, 8192), (12000, 16384)]
        u = get_workload("OpenBUniform/1213Nodes_4000Pods")
        assert u.nodes[0].make(0).allocatable_resources.milli_cpu == 96000
        assert u.measured[0].make(5).requests.milli_cpu == 4000
        r = run_workload(w.scaled(0.0004))
        assert r.unscheduled == 0
        assert r.scheduled == 4
    finally:
        rl._openb_rows.cache_clear()
        rl._openb_nodes_largest_first.cache_clear()


def test_openb_uniform_sizes_follow_the_trace_read(monkeypatch, tmp_path):
    """The uniform variant's node shape and pod size are computed once per trace read, not once
    per node or pod, and follow another trace read later (none kept from the first)."""
    (tmp_path / "first").mkdir()
    first = _fake_openb(tmp_path / "first")
    second = tmp_path / "second"
    second.mkdir()
    (second / "openb_node_list_gpu_node.csv").write_text(
        "sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,8000,32768,1,T4\n"
        "openb-node-0001,8000,32768,1,T4\nopenb-node-0002,96000,393216,8,V100M32\n")
    (second / "openb_pod_list_default.csv").write_text(
        "name,cpu_milli,memory_mib,num_gpu,gpu_milli\nopenb-pod-0000,2000,1024,1,1000\n")
    u = get_workload("OpenBUniform/1213Nodes_4000Pods")
    try:
        for folder, node_cpu, pod_cpu in ((first, 96000, 4000), (second, 8000, 2000)):
            monkeypatch.setenv(rl.OPENB_ENV, str(folder))
            rl._openb_rows.cache_clear()
            assert {u.nodes[0].make(i).allocatable_resources.milli_cpu for i in range(3)} == {node_cpu}
            assert {u.measured[0].make(i).requests.milli_cpu for i in range(3)} == {pod_cpu}
    finally:
        rl._openb_rows.cache_clear()
        rl._openb_nodes_largest_first.cache_clear()


def test_openb_bad_file_is_a_benchmark_error(monkeypatch, tmp_path):
    """A trace file without the expected columns is a BenchmarkError naming the file."""
    (tmp_path / "openb_node_list_gpu_node.csv").write_text("sn,cpu\nx,1\n")
    (tmp_path / "openb_pod_list_default.csv").write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\n")
    monkeypatch.setenv(rl.OPENB_ENV, str(tmp_path))
    rl._openb_rows.cache_clear()
    rl._openb_nodes_largest_first.cache_clear()
    try:
        with pytest.raises(BenchmarkError, match=r"cannot read openb file .*openb_node_list_gpu_node\.csv"):
            get_workload("OpenB/1213Nodes_4000Pods").nodes[0].make(0)
        with pytest.raises(BenchmarkError, match="has no rows"):
            get_workload("OpenB/1213Nodes_4000Pods").measured[0].make(0)
    finally:
        rl._openb_rows.cache_clear()
        rl._openb_nodes_largest_first.cache_clear()


# -- reports ------------------------------------------------------------------------------------

def test_format_ratios():
    """A workload with its baseline among the results gets its slowdown per CPU second."""
    mixed = _result(workload="M/1", pods_per_cpu_second=50.0)
    uniform = _result(workload="U/1", pods_per_cpu_second=150.0)
    text = format_ratios([uniform, mixed], {"M/1": "U/1", "U/1": None})
    assert text == "M/1: 3.00x slower than U/1 (pods per CPU second 50.0 vs 150.0)"
    assert format_ratios([mixed], {"M/1": "U/1"}) == ""


def test_cli_realistic_prints_ratios(capsys):
    """``realistic`` runs the workloads and prints each one's ratio to its uniform variant."""
    assert main(["MixedShapes", "UniformShapes", "--scale", "0.002", "--no-isolate", "-q"]) == 0
    out = capsys.readouterr().out
    assert "MixedShapes/5000Nodes_5000Pods: " in out
    assert "x slower than UniformShapes/5000Nodes_5000Pods" in out


# -- skippy -------------------------------------------------------------------------------------

def test_skippy_missing_is_skipped(monkeypatch, capsys):
    """Without skippy-core the comparison is skipped with a message saying how to install it."""
    monkeypatch.setitem(sys.modules, "skippy.core.scheduler", None)
    reason = skippy_available()
    assert reason is not None
    assert "edgerun-skippy-core" in reason
    with pytest.raises(BenchmarkError, match="skippy-core is not installed"):
        run_comparison(scale=0.01, repeat=1)
    assert main(["skippy", "--scale", "0.01"]) == 0
    assert "skipped the skippy comparison: skippy-core is not installed" in capsys.readouterr().err


needs_skippy = pytest.mark.skipif(skippy_available() is not None, reason="skippy-core not installed")


@needs_skippy
def test_skippy_comparison_runs(capsys):
    """All three schedulers place every pod of the same work; the ratios are to skippy."""
    result = run_comparison(scale=0.01, repeat=1)
    assert (result["nodes"], result["pods"]) == (50, 30)
    labels = ["skippy-core", "schedframe NodeResourcesFit", "schedframe default profile"]
    assert list(result["summary"]) == labels
    assert all(s["scheduled"] == 30 for s in result["summary"].values())
    assert set(result["ratios"]) == set(labels[1:])
    fit = result["summary"]["schedframe NodeResourcesFit"]
    assert result["ratios"]["schedframe NodeResourcesFit"]["pods_per_cpu_second"] == pytest.approx(
        fit["pods_per_cpu_second"] / result["summary"]["skippy-core"]["pods_per_cpu_second"], abs=0.01)
    assert "x skippy" in format_comparison(result)
    assert main(["skippy", "--scale", "0.01", "--repeat", "1", "-q", "--json", "-"]) == 0
    out = capsys.readouterr().out
    record = json.loads(out[out.index("{"):])
    assert record["schema"] == "schedframe-bench-skippy/1"
    assert len(record["runs"]) == 3


@needs_skippy
def test_skippy_least_allocated_matches_ours():
    """skippy with our least-allocated priority places pods where ours would score highest:
    on an empty uniform cluster with one node partly used, both avoid that node."""
    make_scheduler, make_pod_ = _skippy._skippy_parts()
    sched = make_scheduler(3)
    busy = sched.cluster_context.list_nodes()[0]
    sched.cluster_context.place_pod_on_node(make_pod_(0), busy)
    assert sched.schedule(make_pod_(1)).suggested_host.name != busy.name


@pytest.mark.parametrize(("argv", "match"), [
    pytest.param(["skippy", "--scale", "0"], "--scale must be > 0", id="scale"),
    pytest.param(["skippy", "--repeat", "0"], "--repeat must be >= 1", id="repeat"),
])
def test_skippy_cli_usage_errors(argv, match, capsys):
    """Bad skippy options are usage errors."""
    with pytest.raises(SystemExit, match="2"):
        main(argv)
    assert match in capsys.readouterr().err


def test_realistic_group_from_the_command_line(capsys):
    """``python -m schedframe.bench realistic --list`` lists the realistic workloads."""
    assert main(["realistic", "--list"]) == 0
    assert "MixedShapes/5000Nodes_5000Pods" in capsys.readouterr().out


# -- the flat resource row and the columns --------------------------------------------------------

def _expected_row(ni: NodeInfo) -> tuple[object, ...]:
    a, u, z = ni.allocatable, ni.requested, ni.non_zero_requested
    return (a.milli_cpu - u.milli_cpu, a.memory - u.memory, a.ephemeral_storage - u.ephemeral_storage, a.pods,
            a.milli_cpu, a.memory, z.milli_cpu, z.memory, u.milli_cpu, u.memory, bool(a.scalar or u.scalar))


_OPS = st.lists(st.tuples(st.sampled_from(["add", "remove", "node", "clone", "poke", "drop"]),
                          st.integers(0, 3), st.sampled_from(["0", "100m", "1", "3"])), max_size=30)


@settings(max_examples=60, deadline=None)
@given(ops=_OPS)
def test_resource_row_follows_every_change(ops):
    """``resource_row`` holds the amounts of ``allocatable``, ``requested`` and
    ``non_zero_requested`` after every kind of change, assignments included, and
    ``resource_row_key`` names them; a clone shares the very tuple."""
    assert len(RESOURCE_ROW_FIELDS) == len(_expected_row(NodeInfo()))
    infos = [NodeInfo(make_node(f"n{i}").capacity(cpu="4", memory="4Gi", pods=5).obj()) for i in range(4)]
    for step, (op, i, cpu) in enumerate(ops):
        ni = infos[i]
        if op == "add":
            b = make_pod(f"p{step}").uid(f"p{step}").node(ni.name)
            # a pod with an extended resource now and then
            b = b.req(cpu=cpu, memory="64Mi", **{"example.com/x": 1}) if cpu == "3" else b.req(cpu=cpu)
            ni.add_pod(b.obj())
        elif op == "remove" and ni.pods:
            ni.remove_pod(ni.pods[-1].pod)
        elif op == "node":
            ni.set_node(make_node(ni.name).capacity(cpu=cpu, memory="2Gi", pods=3).obj())
        elif op == "clone":
            infos[i] = ni.clone()
            assert infos[i].resource_row is ni.resource_row
        elif op == "poke":  # one assignment a step (each then checked on its own)
            if step % 3 == 0:
                ni.requested = Resources(milli_cpu=step, memory=step << 20)
            elif step % 3 == 1:
                ni.non_zero_requested = Resources(milli_cpu=step + 1)
            else:
                ni.allocatable = Resources(milli_cpu=9, memory=1, ephemeral_storage=step, pods=2)
        elif op == "drop":
            ni.remove_node()
        for x in infos:
            assert x.resource_row == _expected_row(x)
        # row keys name amounts: equal keys exactly for equal rows
        for x in infos:
            for y in infos:
                assert (x.resource_row_key == y.resource_row_key) == (x.resource_row == y.resource_row)


class _Lister:
    def __init__(self, nodes):
        self.nodes = nodes

    def list(self):
        return self.nodes


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(n=st.integers(1, 40), steps=st.lists(st.tuples(st.integers(0, 39), st.integers(1, 40),
                                                      st.sets(st.integers(0, 39), max_size=30)), max_size=12))
def test_columns_follow_the_snapshot(n, steps):
    """Each column holds, for every position of a run, the field of the NodeInfo now at that
    position (room: allocatable pods minus pods), whatever was replaced between calls and
    wherever runs start and wrap."""
    infos = [NodeInfo(make_node(f"n{i}").capacity(cpu=str(1 + i % 3), memory="1Gi", pods=4).obj())
             for i in range(n)]
    cols = NodeColumns()
    fields = (*range(COLUMN_ROOM), COLUMN_ROOM)
    for start, m, changed in steps:
        for k in changed:
            if k < n:
                ni = infos[k].clone()
                ni.add_pod(make_pod(f"p{k}-{len(ni.pods)}").uid(f"p{k}-{len(ni.pods)}").req(cpu="10m")
                           .node(ni.name).obj())
                infos[k] = ni
        start %= n
        m = min(m, n)
        run = [infos[(start + j) % n] for j in range(m)]
        got = cols.columns(infos, start, run, fields)
        for j, ni in enumerate(run):
            row = ni.resource_row
            assert [got[f][j] for f in range(COLUMN_ROOM)] == list(row)
            assert got[COLUMN_ROOM][j] == row[3] - len(ni.pods)
