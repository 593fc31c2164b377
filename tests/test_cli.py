"""The ``schedframe`` command line: outputs (``--json`` parsed), errors and exit codes, run in
process through ``main(argv)`` and once as a subprocess."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from schedframe.cli import EXIT_INPUT, EXIT_OK, EXIT_PENDING, main
from schedframe.plugins.node_resources_fit import ERR_REASON_INSUFFICIENT_CPU
from schedframe.sim import replay

DATA = Path(__file__).parent / "data"


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue()


def run_json(*argv: str) -> object:
    code, text = run(*argv, "--json")
    assert code == EXIT_OK, text
    return json.loads(text)


SMALL = """\
name: small
nodes: [{count: 1, name: n1, template: {status: {allocatable: {cpu: "2", memory: 8Gi, pods: "10"}}}}]
workloads:
- name: w
  replicas: 3
  template: {spec: {containers: [{name: c, resources: {requests: {cpu: "1"}}}]}}
"""


@pytest.fixture
def small(tmp_path: Path) -> Path:
    path = tmp_path / "small.yaml"
    path.write_text(SMALL)
    return path


def test_no_arguments_simulates_the_default_scenario() -> None:
    """`schedframe` alone runs the built-in default scenario and prints a summary."""
    code, text = run("--plain")
    assert code == EXIT_OK
    assert "three-zones" in text
    assert "PLACED" in text


def test_simulate_json_has_every_configuration() -> None:
    """--json gives one result per configuration, the per-pod records and the moved pods."""
    data = run_json("simulate", "three-zones")
    assert isinstance(data, dict)
    assert [r["config"] for r in data["results"]] == ["default", "bin-packing"]
    first = data["results"][0]
    assert first["metrics"]["placed"] == sum(1 for p in first["pods"] if p["bound_at"] is not None)
    assert isinstance(data["moved"], dict)


def test_simulate_a_file_with_a_config_and_fail_on_pending(small: Path, tmp_path: Path) -> None:
    """A scenario file with --config runs that configuration; pending pods make --fail-on-pending exit 1."""
    cfg = tmp_path / "packing.yaml"
    cfg.write_text("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    data = run_json("simulate", str(small), "--config", str(cfg))
    assert isinstance(data, dict)
    (result,) = data["results"]
    assert result["config"] == "packing"
    assert result["metrics"]["pending"] == 1
    pending = [p for p in result["pods"] if p["state"] == "Pending"]
    assert ERR_REASON_INSUFFICIENT_CPU in pending[0]["message"]
    code, _ = run("simulate", str(small), "--fail-on-pending", "--plain")
    assert code == EXIT_PENDING
    code, _ = run("simulate", "gang", "--fail-on-pending", "--plain")
    assert code == EXIT_OK


def test_replay_command_reruns_a_log_and_compares_configs(
    small: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`replay LOG` gives the logged run's metrics; --config runs the same recorded arrivals
    under another configuration, side by side with MOVED pods; a tampered log is refused."""
    log = tmp_path / "run.jsonl"
    code, _ = run("simulate", str(small), "--log", str(log), "--plain")
    assert code == EXIT_OK
    end = json.loads(log.read_text().splitlines()[-1])
    data = run_json("replay", str(log))
    assert isinstance(data, dict)
    assert data["checked"] is True
    (result,) = data["results"]
    assert result["metrics"] == end["metrics"]
    code, text = run("replay", str(log), "--plain")
    assert code == EXIT_OK
    assert "equal the logged run's" in text

    roomy = tmp_path / "roomy.yaml"  # a profile without NodeResourcesFit: the third pod fits too
    roomy.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles:\n- plugins:\n    multiPoint:\n      disabled: [{name: NodeResourcesFit}]\n"
    )
    data = run_json("replay", str(log), "--config", str(roomy), "--config", str(roomy))
    assert isinstance(data, dict)
    names = [r["config"] for r in data["results"]]
    assert names[1:] == ["roomy", "roomy-2"]
    assert len(set(names)) == 3
    assert data["results"][0]["metrics"]["pending"] == 1
    assert data["results"][1]["metrics"]["pending"] == 0
    arrivals = [[p["key"], p["arrival"]] for p in data["results"][0]["pods"]]
    assert [[p["key"], p["arrival"]] for p in data["results"][1]["pods"]] == arrivals
    assert run("replay", str(log), "--config", str(roomy), "--fail-on-pending", "--plain")[0] == EXIT_PENDING

    lines = log.read_text().splitlines()
    tampered = json.loads(lines[-1])
    tampered["metrics"]["placed"] += 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text("\n".join([*lines[:-1], json.dumps(tampered)]) + "\n")
    capsys.readouterr()
    assert run("replay", str(bad), "--plain")[0] == EXIT_INPUT
    assert "end.metrics" in capsys.readouterr().err
    assert run("replay", str(bad), "--no-check", "--json")[0] == EXIT_OK
    assert run("replay", str(tmp_path / "missing.jsonl"), "--plain")[0] == EXIT_INPUT
    assert "missing.jsonl" in capsys.readouterr().err


def test_simulate_jsonl_is_a_replayable_log(small: Path) -> None:
    """--jsonl prints the event log; replaying it gives the same metrics."""
    code, text = run("simulate", str(small), "--jsonl")
    assert code == EXIT_OK
    lines = text.splitlines()
    assert json.loads(lines[0])["op"] == "header"
    end = json.loads(lines[-1])
    assert replay(lines).metrics.to_dict() == end["metrics"]
    code, text = run("simulate", "three-zones", "--jsonl", "--until", "60")  # two configurations
    logs = text.splitlines()
    headers = [i for i, line in enumerate(logs) if json.loads(line)["op"] == "header"]
    assert len(headers) == 2
    assert replay(logs).config == "default"  # the first run's log
    assert replay(logs[headers[1]:]).config == "bin-packing"


def test_simulate_writes_plots(small: Path, tmp_path: Path) -> None:
    """--plot saves a PNG (matplotlib, Agg backend)."""
    pytest.importorskip("matplotlib")
    png = tmp_path / "out.png"
    code, _ = run("simulate", str(small), "--plot", str(png), "--plain")
    assert code == EXIT_OK
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_simulate_list_and_explain_flag() -> None:
    """--list names the built-in scenarios; --explain adds explanations to --json."""
    names = run_json("simulate", "--list")
    assert isinstance(names, list)
    assert {"three-zones", "gang"} <= {n["name"] for n in names}
    data = run_json("simulate", "drain-preemption", "--explain", "default/frontend-0")
    assert isinstance(data, dict)
    assert data["results"][0]["explanations"]["default/frontend-0"]


@pytest.mark.parametrize(
    ("argv", "needle"),
    [
        (["simulate", "nope.yaml"], "nope.yaml"),
        (["simulate", "three-zone"], "did you mean 'three-zones'"),
        (["simulate", "--cluster", "missing-dump.yaml"], "missing-dump.yaml"),
        (["simulate", "--config", "missing-config.yaml"], "missing-config.yaml"),
        (["explain", "missing-pod.yaml", "--cluster", str(DATA / "cluster.yaml")], "missing-pod.yaml"),
        (["config", "validate", "missing.yaml"], "missing.yaml"),
    ],
)
def test_input_errors_exit_2_with_one_line(
    argv: list[str], needle: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Input errors: exit 2, one line on stderr naming the file, no traceback."""
    code, _ = run(*argv)
    err = capsys.readouterr().err
    assert code == EXIT_INPUT
    assert needle in err
    assert "Traceback" not in err
    assert len(err.strip().splitlines()) == 1


def test_a_bad_scenario_field_is_named(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A scenario error names the file and the field path; --debug adds the traceback."""
    bad = tmp_path / "bad.yaml"
    bad.write_text("workloads: [{name: w, replicas: many}]\n")
    assert run("simulate", str(bad))[0] == EXIT_INPUT
    err = capsys.readouterr().err
    assert f"{bad}: workloads[0].replicas" in err
    assert run("--debug", "simulate", str(bad))[0] == EXIT_INPUT
    assert "Traceback" in capsys.readouterr().err


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    """Unknown commands and options are usage errors (exit 2)."""
    assert run("frobnicate")[0] == EXIT_INPUT
    assert run("simulate", "--seed", "x")[0] == EXIT_INPUT
    assert run("--help")[0] == EXIT_OK
    capsys.readouterr()


POD = """\
apiVersion: v1
kind: Pod
metadata: {name: big, namespace: default}
spec:
  containers: [{name: c, resources: {requests: {cpu: "3", memory: 1Gi}}}]
"""


def test_explain_json_has_verdicts_message_and_why_not(tmp_path: Path) -> None:
    """explain --json: per-node filter verdicts, the upstream message, and why-not reasons."""
    pod = tmp_path / "pod.yaml"
    pod.write_text(POD)
    data = run_json("explain", str(pod), "--cluster", str(DATA / "cluster.yaml"))
    assert isinstance(data, dict)
    assert data["selected_node"] is None
    assert data["message"].startswith("0/4 nodes are available: 1 Insufficient cpu")
    assert len(data["nodes"]) == 4
    assert data["why_not"]["worker-a"] == f"filtered out: NodeResourcesFit: {ERR_REASON_INSUFFICIENT_CPU}"


def test_explain_human_output(tmp_path: Path) -> None:
    """explain prints the filter table and the reasons (rich and plain)."""
    pod = tmp_path / "pod.yaml"
    pod.write_text(POD.replace('cpu: "3"', 'cpu: "100m"'))
    for flags in ((), ("--plain",)):
        code, text = run(*flags, "explain", str(pod), "--cluster", str(DATA / "cluster.yaml"))
        assert code == EXIT_OK
        assert "Filter" in text
        assert "Why not" in text


def test_plugins_lists_extension_points() -> None:
    """plugins --json lists in-tree plugins with their extension points."""
    rows = run_json("plugins")
    assert isinstance(rows, list)
    by = {r["name"]: r for r in rows}
    assert {"filter", "score", "preFilter"} <= set(by["NodeResourcesFit"]["extension_points"])
    assert by["DefaultBinder"]["extension_points"] == ["bind"]
    sigs = {"CapacityScheduling", "Coscheduling", "NodeResourcesAllocatable", "PreemptionToleration",
            "PodState", "QOSSort", "NodeResourceTopologyMatch", "TopologicalSort", "NetworkOverhead",
            "TargetLoadPacking", "LoadVariationRiskBalancing", "LowRiskOverCommitment", "Peaks"}
    assert {r["name"]: r["origin"] for r in rows if r["origin"] != "in-tree"} == dict.fromkeys(
        sigs, "scheduler-plugins")
    assert by["CapacityScheduling"]["extension_points"] == ["preFilter", "postFilter", "reserve"]
    assert by["QOSSort"]["extension_points"] == ["queueSort"]
    assert by["NodeResourceTopologyMatch"]["extension_points"] == ["filter", "score", "reserve", "postBind"]
    assert by["NetworkOverhead"]["extension_points"] == ["preFilter", "filter", "score"]
    assert by["LowRiskOverCommitment"]["extension_points"] == ["preScore", "score"]
    code, text = run("plugins", "--plain")
    assert code == EXIT_OK
    assert "NodeResourcesFit" in text


def test_config_default_validate_convert(tmp_path: Path) -> None:
    """config default prints v1; validate accepts it; convert prints the effective document."""
    doc = run_json("config", "default")
    assert isinstance(doc, dict)
    assert doc["apiVersion"] == "kubescheduler.config.k8s.io/v1"
    code, text = run("config", "default")
    assert code == EXIT_OK
    assert "kind: KubeSchedulerConfiguration" in text
    path = tmp_path / "c.yaml"
    path.write_text(text)
    valid = run_json("config", "validate", str(path))
    assert valid == {"file": str(path), "valid": True, "profiles": ["default-scheduler"]}
    assert run_json("config", "convert", str(path)) == doc
    bad = tmp_path / "bad.yaml"
    bad.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
        "profiles: [{plugins: {filter: {enabled: [{name: NodeNme}]}}}]\n"
    )
    assert run("config", "validate", str(bad))[0] == EXIT_INPUT


def test_bench_is_delegated(capsys: pytest.CaptureFixture[str]) -> None:
    """`schedframe bench --list` is the benchmark suite's own command."""
    assert run("bench", "--list")[0] == EXIT_OK
    assert "SchedulingBasic" in capsys.readouterr().out


def test_python_dash_m_in_a_subprocess(small: Path) -> None:
    """`python -m schedframe simulate FILE --json` in a fresh process: exit 0 and parseable JSON;
    a missing file exits 2."""
    env_path = str(Path(__file__).resolve().parents[1] / "src")
    env = {"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"}
    done = subprocess.run(
        [sys.executable, "-m", "schedframe", "simulate", str(small), "--json"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert done.returncode == EXIT_OK, done.stderr
    assert json.loads(done.stdout)["results"][0]["metrics"]["placed"] == 2
    done = subprocess.run(
        [sys.executable, "-m", "schedframe", "simulate", "missing.yaml"],
        capture_output=True,
        text=True,
        env=env,
        check=False,
        timeout=300,
    )
    assert done.returncode == EXIT_INPUT
    assert "missing.yaml" in done.stderr
