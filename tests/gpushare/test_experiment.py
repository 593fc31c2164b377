"""The openb loader, the workload tuning, the allocation curve, and runs of every policy on a
small sample of the trace (skipped when the trace is absent)."""

from __future__ import annotations

import json
import pathlib
import random

import pytest

from schedframe.errors import GpuShareError
from schedframe.gpushare import POLICIES, alloc_curve, read_nodes, read_tasks, run_experiment, tune_tasks
from schedframe.gpushare.cli import main
from schedframe.gpushare.openb import TraceTask

SAMPLE = 300


def _tasks(*specs: tuple[int, int]) -> list[TraceTask]:
    return [TraceTask(f"t{i:02d}", 1000, 10, n, m) for i, (n, m) in enumerate(specs)]


def test_tune_down_removes_tasks_until_the_target() -> None:
    """Over the target: random tasks are removed until the request is at most ratio * capacity."""
    tasks = _tasks(*[(1, 1000)] * 10)
    out = tune_tasks(tasks, 4000, 1.3, random.Random(1))
    assert sum(t.total_milli for t in out) == 5000
    assert {t.name for t in out} < {t.name for t in tasks}


def test_tune_up_appends_copies() -> None:
    """Under the target: random copies named <name>-tuned-<i> are appended while they fit."""
    tasks = _tasks((1, 500), (1, 500))
    out = tune_tasks(tasks, 4000, 1.0, random.Random(1))
    assert [t.name for t in out[2:]] == [f"{t.name.split('-')[0]}-tuned-{i}" for i, t in enumerate(out[2:])]
    assert sum(t.total_milli for t in out) == 4000


def test_tune_is_seeded_and_shuffles() -> None:
    """Same seed, same workload; the order is a shuffle of the name order."""
    tasks = _tasks(*[(1, 100 * (i % 9 + 1)) for i in range(40)])
    a = tune_tasks(tasks, 2000, 1.0, random.Random(42))
    assert a == tune_tasks(list(reversed(tasks)), 2000, 1.0, random.Random(42))
    assert [t.name for t in tune_tasks(tasks, 2000, 0, random.Random(42))] != [t.name for t in tasks]


def test_alloc_curve_buckets_by_arrived_ratio() -> None:
    """Point k averages the samples whose arrived ratio rounds to k %, else those within 1 %."""
    gpus = 10  # 10,000 milli: 1 % = 100 milli
    samples = [(40, 40), (100, 100), (120, 100), (290, 250), (310, 250)]
    curve = alloc_curve(samples, gpus, points=5)
    assert curve[0] == 0.4
    assert curve[1] == 1.0  # 1.0 and 1.0
    assert curve[2] == 1.75  # none at 2: the samples at 1 and 3
    assert curve[3] == 2.5
    assert curve[4] == 2.5
    with pytest.raises(GpuShareError):
        alloc_curve(samples, 0)


def test_loader_errors_name_file_line_and_column(tmp_path) -> None:
    """A bad value raises GpuShareError with the file, line and column."""
    bad = tmp_path / "pods.csv"
    bad.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\np0,1000,10,1,500\np1,1000,10,x,500\n")
    with pytest.raises(GpuShareError) as info:
        read_tasks(bad)
    assert info.value.path == f"{bad}:3: num_gpu"
    missing = tmp_path / "nodes.csv"
    missing.write_text("sn,cpu_milli\nn0,1000\n")
    with pytest.raises(GpuShareError, match="missing column"):
        read_nodes(missing)
    with pytest.raises(GpuShareError, match="cannot read"):
        read_nodes(tmp_path / "absent.csv")


def test_loader_reads_openb(openb) -> None:
    """The node list has 1,213 nodes and 6,212 GPUs; tasks carry their GPU request."""
    nodes = read_nodes(openb / "openb_node_list_gpu_node.csv")
    assert (len(nodes), sum(n.gpus for n in nodes)) == (1213, 6212)
    tasks = read_tasks(openb / "openb_pod_list_gpuspec33.csv", limit=SAMPLE)
    assert len(tasks) == SAMPLE
    assert any(t.models for t in tasks)
    pod = next(t for t in tasks if t.num_gpu).to_pod()
    assert pod.annotations["alibabacloud.com/gpu-count"] == str(next(t for t in tasks if t.num_gpu).num_gpu)


@pytest.mark.parametrize("policy", sorted(POLICIES))
def test_every_policy_runs_on_a_sample(openb, policy) -> None:
    """Each policy places a small tuned sample on 60 nodes without overcommitting a GPU, and the
    curve follows the arrivals."""
    nodes = read_nodes(openb / "openb_node_list_gpu_node.csv")[:60]
    tasks = read_tasks(openb / "openb_pod_list_default.csv", limit=SAMPLE)
    result = run_experiment(nodes, tasks, policy, seed=42, tune=1.3)
    assert result.scheduled + result.failed == result.tasks
    capacity = result.gpus * 1000
    assert 1.25 * capacity <= result.arrived_gpu_milli <= 1.32 * capacity
    assert result.allocated_gpu_milli <= capacity
    assert len(result.alloc_pct) == 131
    assert result.alloc_pct[50] is not None
    assert 45 <= result.alloc_pct[50] <= 51
    assert result.alloc_pct[130] is None or result.alloc_pct[130] <= 100
    assert result.failed > 0  # 130 % cannot fit


def test_cli_prints_one_json_object(openb, capsys) -> None:
    """python -m schedframe.gpushare run ... --json prints the result as one JSON object."""
    code = main(["run", "--nodes", str(openb / "openb_node_list_gpu_node.csv"),
                 "--pods", str(openb / "openb_pod_list_default.csv"), "--policy", "BestFit",
                 "--seed", "42", "--tune", "0", "--limit", "50", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["policy"] == "BestFit"
    assert out["seed"] == 42
    assert out["tasks"] == 50
    assert out["trace"] == "openb_pod_list_default"
    assert len(out["alloc_pct"]) == 131
    assert out["seconds"] >= 0


def test_ties_option_is_checked_and_recorded(openb) -> None:
    """ties is 'order' (the artefact's fixed seeded node order) or 'random'; the result says which."""
    nodes = read_nodes(openb / "openb_node_list_gpu_node.csv")[:20]
    tasks = read_tasks(openb / "openb_pod_list_default.csv", limit=40)
    assert run_experiment(nodes, tasks, "GpuPacking", tune=0, ties="random").ties == "random"
    assert run_experiment(nodes, tasks, "GpuPacking", tune=0).ties == "order"
    with pytest.raises(GpuShareError, match="tie-breaking"):
        run_experiment(nodes, tasks, "GpuPacking", ties="first")


def test_cli_reports_bad_input(tmp_path, capsys) -> None:
    """A missing file is a clear error and exit status 2."""
    code = main(["run", "--nodes", str(tmp_path / "no.csv"), "--pods", str(tmp_path / "no.csv"),
                 "--policy", "FGD", "--json"])
    assert code == 2
    assert "cannot read" in capsys.readouterr().err


def test_sweep_task_runs_the_experiment_from_trace_files(openb: pathlib.Path) -> None:
    """The sweep's ``gpushare`` task gives the experiment's numbers (traces read once per worker)."""
    from schedframe.gpushare.experiment import run_experiment, sweep_task
    from schedframe.gpushare.openb import read_nodes, read_tasks
    from schedframe.sweep import Run, sweep

    nodes, pods = str(openb / "openb_node_list_gpu_node.csv"), str(openb / "openb_pod_list_default.csv")
    params = {"nodes": nodes, "pods": pods, "policy": "BestFit", "seed": 42, "tune": 0.2, "limit": 300}
    row = sweep_task(**params)  # type: ignore[arg-type]
    want = run_experiment(read_nodes(nodes), read_tasks(pods), "BestFit", seed=42, tune=0.2, limit=300)
    assert row["tasks"] == want.tasks == 300
    assert row["final_alloc_pct"] == round(want.final_alloc_pct, 4)
    assert row["alloc_pct"] == list(want.alloc_pct)
    (outcome,) = sweep([Run.of("gpushare", params)], progress=False).outcomes
    assert outcome.ok, outcome.error
    assert outcome.metrics["alloc_pct"] == row["alloc_pct"]
