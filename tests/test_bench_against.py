"""The side-by-side run with Go kube-scheduler, the parts that need no Go: the case both sides
run, the placements compared, the table and the summary line (tests/oracle runs the real one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from schedframe.bench import BenchmarkError, get_workload
from schedframe.bench._against import (
    Agreement,
    GoRun,
    SideBySide,
    against_line,
    format_against,
    parse_against,
)
from schedframe.bench._cli import main
from schedframe.bench._runner import churn_upfront, run_workload


def test_parse_against_names_the_release() -> None:
    assert parse_against("kube-scheduler") == "1.37"
    assert parse_against("kube-scheduler=1.36") == "1.36"
    assert parse_against("kube-scheduler=v1.35.4") == "1.35"


@pytest.mark.parametrize("value", ["skippy", "kube-scheduler=1.20", "kube-scheduler-1.36"])
def test_parse_against_refuses_what_it_cannot_run(value: str) -> None:
    with pytest.raises(BenchmarkError):
        parse_against(value)


def test_cli_refuses_an_unknown_target(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["SchedulingBasic/5000Nodes_10000Pods", "--against", "volcano", "-q"]) == 2
    assert "--against" in capsys.readouterr().err


def test_agreement_verdicts() -> None:
    ours = {"a": "n1", "b": "n1", "c": "n2"}
    assert Agreement.of(ours, dict(ours)).verdict == "identical"
    # ties broken the other way: the pods moved, the counts per node did not
    swapped = Agreement.of(ours, {"a": "n2", "b": "n2", "c": "n1"})
    assert swapped.verdict == "up to ties"
    assert swapped.same_node == 0.0
    spread = Agreement.of(ours, {"a": "n1", "b": "n2", "c": "n3"})
    assert spread.verdict == "same bound"
    assert not spread.same_counts
    assert Agreement.of(ours, {"a": "n1"}).verdict == "DIFFER"


def test_churn_pods_join_the_measured_pods() -> None:
    w = get_workload("Unschedulable/5kNodes/100Init/10kPods")
    assert w.churn is not None
    moved = churn_upfront(w)
    assert moved.churn is None
    assert moved.measured_count == w.measured_count + w.measured_count // w.churn.every
    names = [moved.measured[-1].make(i).name for i in range(2)]
    assert names == ["pod-h-0", "pod-h-1"]
    plain = get_workload("SchedulingBasic/5000Nodes_10000Pods")
    assert churn_upfront(plain) is plain


def test_the_case_holds_the_cluster_after_the_initial_pods(tmp_path: Path) -> None:
    w = get_workload("SchedulingBasic/5000Nodes_10000Pods").scaled(0.01)
    result = run_workload(w, export_dir=str(tmp_path))
    case = json.loads((tmp_path / "case.json").read_text())
    assert case["kind"] == "List"
    kinds = [item["kind"] for item in case["items"]]
    assert kinds.count("Node") == w.node_count
    pods = [item for item in case["items"] if item["kind"] == "Pod"]
    bound = [p for p in pods if p["spec"].get("nodeName")]
    pending = [p for p in pods if not p["spec"].get("nodeName")]
    assert len(bound) == w.initial_count
    assert len(pending) == w.measured_count
    assert all("status" not in p for p in pending)
    nodes = {item["metadata"]["name"] for item in case["items"] if item["kind"] == "Node"}
    placements = json.loads((tmp_path / "placements.json").read_text())
    assert len(placements) == result.scheduled == w.measured_count
    assert set(placements) == {f"{p['metadata'].get('namespace', 'default')}/{p['metadata']['name']}"
                               for p in pending}
    assert set(placements.values()) <= nodes


def _go(pods_per_cpu_second: float, parallelism: int = 1) -> GoRun:
    return GoRun.from_record({
        "release": "1.37.2", "parallelism": parallelism, "gomaxprocs": 1, "pods": 100, "bound": 100,
        "unschedulable": 0, "attempts": 100, "cpuSeconds": 100 / pods_per_cpu_second, "wallSeconds": 0.2,
        "podsPerCpuSecond": pods_per_cpu_second, "latencyP50Ms": 0.3, "latencyP99Ms": 1.2,
        "peakRssMb": 80.5, "placements": {}})


def test_the_table_and_the_line(tmp_path: Path) -> None:
    w = get_workload("SchedulingBasic/5000Nodes_10000Pods").scaled(0.01)
    sf = run_workload(w)
    assert sf.pods_per_cpu_second
    agree = Agreement.of({"a": "n1"}, {"a": "n1"})
    fast = SideBySide(workload="A", schedframe=sf, go=_go(sf.pods_per_cpu_second / 2),
                      go_parallel=_go(sf.pods_per_cpu_second, 16), agreement=agree)
    slow = SideBySide(workload="B", schedframe=sf, go=_go(sf.pods_per_cpu_second * 4), agreement=agree)
    skipped = SideBySide(workload="Memory", skipped="no measured pods (a memory workload)")
    assert fast.ratio is not None
    assert fast.ratio == pytest.approx(2.0, rel=0.01)
    assert slow.ratio is not None
    assert slow.ratio == pytest.approx(0.25, rel=0.01)
    table = format_against([fast, slow, skipped])
    assert "skipped: no measured pods" in table
    assert "identical" in table
    line = against_line([fast, slow, skipped], "1.37")
    assert line.startswith("against kube-scheduler 1.37.2: 1 of 2 workloads at or above Go (parallelism 1)")
    assert line.endswith("lowest ratio 0.25 on B")
    record = slow.to_dict()
    assert record["agreement"]["verdict"] == "identical"
    assert record["go"]["parallelism"] == 1
    assert against_line([skipped], "1.37") == "against kube-scheduler 1.37: no workload compared"


def test_a_timing_record_it_cannot_read_is_an_error() -> None:
    with pytest.raises(BenchmarkError, match="timing record"):
        GoRun.from_record({"release": "1.37.2"})
