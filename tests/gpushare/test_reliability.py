"""Issue #30, R3: gpushare runs that never ended (tuning a trace without GPU requests, an
infinite or NaN tune, a node with 10**8 GPUs) stop with a GpuShareError, and ``--json`` never
prints a bare NaN. The hang cases run in a subprocess with a timeout."""

from __future__ import annotations

import json
import pathlib
import subprocess
import sys

import pytest

from schedframe.gpushare.cli import main

NODES = "sn,cpu_milli,memory_mib,gpu,model\nn1,96000,786432,8,V100M32\nn2,96000,786432,2,T4\n"
HEADER = "name,cpu_milli,memory_mib,num_gpu,gpu_milli\n"


@pytest.fixture
def files(tmp_path: pathlib.Path) -> pathlib.Path:
    (tmp_path / "nodes.csv").write_text(NODES)
    (tmp_path / "gpu.csv").write_text(HEADER + "".join(f"p{i},1000,100,1,500\n" for i in range(6)))
    (tmp_path / "cpu.csv").write_text(HEADER + "".join(f"c{i},1000,100,0,0\n" for i in range(6)))
    (tmp_path / "big.csv").write_text(NODES + "n3,96000,786432,100000000,V100M32\n")
    return tmp_path


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "schedframe", "gpushare", "run", "--policy", "FGD", *args],
        capture_output=True,
        text=True,
        timeout=30,
    )


def test_a_cpu_only_trace_cannot_be_tuned(files: pathlib.Path) -> None:
    proc = _cli("--nodes", str(files / "nodes.csv"), "--pods", str(files / "cpu.csv"))
    assert proc.returncode == 2
    assert "tune: the 6 tasks request no GPU" in proc.stderr
    proc = _cli(
        "--nodes", str(files / "nodes.csv"), "--pods", str(files / "cpu.csv"), "--tune", "0", "--json"
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["scheduled"] == 6


@pytest.mark.parametrize("tune", ["inf", "nan", "-inf"])
def test_tune_must_be_finite_on_the_command_line(files: pathlib.Path, tune: str) -> None:
    proc = _cli(
        "--nodes", str(files / "nodes.csv"), "--pods", str(files / "gpu.csv"), f"--tune={tune}", "--json"
    )
    assert proc.returncode == 2
    assert "argument --tune: want a finite number" in proc.stderr
    assert proc.stdout == ""


@pytest.mark.parametrize("limit", ["-2", "0", "x"])
def test_limit_must_be_positive(files: pathlib.Path, limit: str) -> None:
    proc = _cli("--nodes", str(files / "nodes.csv"), "--pods", str(files / "gpu.csv"), f"--limit={limit}")
    assert proc.returncode == 2
    assert "argument --limit: want a positive integer" in proc.stderr


def test_a_node_with_too_many_gpus_names_the_line(files: pathlib.Path) -> None:
    proc = _cli("--nodes", str(files / "big.csv"), "--pods", str(files / "gpu.csv"))
    assert proc.returncode == 2
    assert "big.csv:4: gpu: must be in [0, 8], got 100000000" in proc.stderr


_API_CODE = """
import math, sys
from schedframe.errors import GpuShareError
from schedframe.gpushare import read_nodes, run_experiment
from schedframe.gpushare.openb import TraceNode, TraceTask
nodes = read_nodes(sys.argv[1])
gpu = [TraceTask(f"p{i}", 1000, 100, 1, 500) for i in range(3)]
cases = {
    "cpu": lambda: run_experiment(nodes, [TraceTask(f"c{i}", 1000, 100, 0, 0) for i in range(3)], "FGD"),
    "inf": lambda: run_experiment(nodes, gpu, "FGD", tune=math.inf),
    "nan": lambda: run_experiment(nodes, gpu, "FGD", tune=math.nan),
    "big": lambda: run_experiment(nodes, gpu, "FGD", tune=1e9),
    "gpus": lambda: run_experiment([TraceNode("big", 1000, 1000, 10**8, "")], gpu, "FGD"),
}
try:
    cases[sys.argv[2]]()
except GpuShareError as exc:
    print(exc)
"""


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ("cpu", "tune: the 3 tasks request no GPU"),
        ("inf", "tune: want a finite number at most 100"),
        ("nan", "tune: want a finite number at most 100"),
        ("big", "tune: want a finite number at most 100"),
        ("gpus", "node big: 100,000,000 GPUs"),
    ],
)
def test_the_api_refuses_what_never_ends(files: pathlib.Path, case: str, message: str) -> None:
    # in a subprocess with a timeout: before the checks, each of these never returned
    proc = subprocess.run(
        [sys.executable, "-c", _API_CODE, str(files / "nodes.csv"), case],
        capture_output=True,
        text=True,
        timeout=20,
    )
    assert message in proc.stdout, proc.stderr[-2000:]


def test_json_output_is_strict(files: pathlib.Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert (
        main(
            [
                "run",
                "--nodes",
                str(files / "nodes.csv"),
                "--pods",
                str(files / "gpu.csv"),
                "--policy",
                "FGD",
                "--json",
                "--limit",
                "3",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    json.loads(out, parse_constant=lambda c: pytest.fail(f"non-JSON constant {c}"))
