"""Every file a ``schedframe`` command reads, given a binary file, a file that is not UTF-8, an
empty file or a directory (an empty one where a directory of manifests is accepted): exit 2, one
line on stderr naming the file, never a traceback.

The commands and their file arguments are read from the parser: a new command, or a new
option whose metavar says it takes a file, fails :func:`test_every_file_argument_is_covered`
until :data:`READERS` (or :data:`OUTPUTS`) lists it.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from schedframe.cli import EXIT_INPUT, build_parser, main

DATA = Path(__file__).parent / "data"
CLUSTER = str(DATA / "cluster.yaml")

#: metavars (or, without one, dests) of arguments naming a file or directory
FILE_METAVARS = {"FILE", "DUMP", "SCENARIO", "LOG", "POD.yaml", "RUNS", "SPEC", "PATH"}
FILE_DESTS = {"spec", "nodes", "pods", "out", "results"}

#: valid inputs the cases need beside the bad one (written by the bad_inputs fixture)
GOOD: dict[str, str] = {}

#: (command path, argument) -> argv reading BAD through that argument
READERS: dict[tuple[str, str], Callable[[str], list[str]]] = {
    ("simulate", "scenario"): lambda bad: ["simulate", bad],
    ("simulate", "--cluster"): lambda bad: ["simulate", "--cluster", bad],
    ("simulate", "--config"): lambda bad: ["simulate", "--config", bad],
    ("simulate", "--load-metrics"): lambda bad: ["simulate", "--load-metrics", bad],
    ("replay", "log"): lambda bad: ["replay", bad],
    ("replay", "--config"): lambda bad: ["replay", GOOD["log"], "--config", bad],
    ("explain", "pod"): lambda bad: ["explain", bad, "--cluster", CLUSTER],
    ("explain", "--cluster"): lambda bad: ["explain", GOOD["pod"], "--cluster", bad],
    ("explain", "--config"): lambda bad: ["explain", GOOD["pod"], "--cluster", CLUSTER,
                                          "--config", bad],
    ("explain", "--load-metrics"): lambda bad: ["explain", GOOD["pod"], "--cluster", CLUSTER,
                                                "--load-metrics", bad],
    ("plan", "--cluster"): lambda bad: ["plan", "--cluster", bad, "--templates", GOOD["templates"]],
    ("plan", "--pending"): lambda bad: ["plan", "--cluster", CLUSTER, "--pending", bad,
                                        "--templates", GOOD["templates"]],
    ("plan", "--templates"): lambda bad: ["plan", "--cluster", CLUSTER, "--templates", bad],
    ("plan", "--config"): lambda bad: ["plan", "--cluster", CLUSTER, "--templates", GOOD["templates"],
                                       "--config", bad],
    ("sweep", "spec"): lambda bad: ["sweep", bad],
    ("config validate", "file"): lambda bad: ["config", "validate", bad],
    ("config convert", "file"): lambda bad: ["config", "convert", bad],
    ("config default", "file"): lambda bad: ["config", "default", bad],
    ("gpushare run", "--nodes"): lambda bad: ["gpushare", "run", "--nodes", bad, "--pods", bad,
                                              "--policy", "FGD"],
    ("gpushare run", "--pods"): lambda bad: ["gpushare", "run", "--nodes", GOOD["nodes"],
                                             "--pods", bad, "--policy", "FGD"],
    ("gpushare summary", "results"): lambda bad: ["gpushare", "summary", bad],
    ("gpushare plot", "results"): lambda bad: ["gpushare", "plot", bad, "--out", "/dev/null"],
    ("run", "--config"): lambda bad: ["run", "--config", bad],
    ("run", "--kubeconfig"): lambda bad: ["run", "--kubeconfig", bad],
    ("import", "--kubeconfig"): lambda bad: ["import", "--kubeconfig", bad],
    # bench parses its own arguments (not in schedframe's parser): listed by hand
    ("bench", "--config"): lambda bad: ["bench", "--config", bad, "-q", "--no-isolate", "--scale", "0.001",
                                        "SchedulingBasic/5000Nodes_10000Pods"],
}
#: arguments naming a file the command writes, or nothing to read (not checked here)
OUTPUTS = {
    ("simulate", "--log"), ("simulate", "--plot"), ("replay", "--plot"), ("sweep", "--out"),
    ("gpushare plot", "--out"),
    ("simulate", "--decisions"), ("simulate", "--filter-verdicts"), ("replay", "--decisions"),
    ("replay", "--filter-verdicts"),
}
#: arguments where a directory of manifests is accepted: an empty directory is the error there
DIRECTORIES = {("simulate", "--cluster"), ("explain", "--cluster"), ("plan", "--cluster")}


def _commands(parser: argparse.ArgumentParser,
              prefix: str = "") -> Iterator[tuple[str, argparse.ArgumentParser]]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                path = f"{prefix} {name}".strip()
                yield path, child
                yield from _commands(child, path)


def _file_arguments() -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    for path, child in _commands(build_parser()):
        for action in child._actions:
            if action.nargs == 0:  # a flag
                continue
            name = action.option_strings[-1] if action.option_strings else action.dest
            if action.metavar in FILE_METAVARS or (action.metavar is None and action.dest in FILE_DESTS):
                found.add((path, "--" + name.lstrip("-") if action.option_strings else name))
    return found


def test_every_command_and_file_argument_is_covered() -> None:
    """Every command of the parser has a reader case (or reads no file); every file argument
    the parser declares is a reader case or an output."""
    commands = {path for path, _ in _commands(build_parser())}
    covered = {command for command, _ in READERS}
    no_files = {"plugins", "config"}
    assert commands - covered - no_files - {c.split()[0] for c in covered} == set()
    missing = _file_arguments() - set(READERS) - OUTPUTS
    assert missing == set(), f"add these file arguments to READERS or OUTPUTS: {sorted(missing)}"


@pytest.fixture(scope="module")
def bad_inputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("bad")
    (d / "binary.dat").write_bytes(bytes(range(256)) * 4)
    (d / "latin1.yaml").write_bytes("name: caf\xe9\n".encode("latin-1"))
    (d / "empty.yaml").write_bytes(b"")
    (d / "a-directory").mkdir()
    (d / "a-directory" / "notes.yaml").write_text("kind: ConfigMap\napiVersion: v1\nmetadata: {name: x}\n")
    (d / "empty-dir").mkdir()
    GOOD["pod"] = str(d / "pod.yaml")
    (d / "pod.yaml").write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: default}\n"
                                "spec: {containers: [{name: c}]}\n")
    GOOD["templates"] = str(d / "templates.yaml")
    (d / "templates.yaml").write_text("kind: NodeTemplates\ntemplates:\n- name: t\n  node: {status: "
                                      "{allocatable: {cpu: '4', memory: 8Gi}}}\n")
    GOOD["nodes"] = str(d / "nodes.csv")
    (d / "nodes.csv").write_text("sn,cpu_milli,memory_mib,gpu,model\nn0,8000,32768,1,T4\n")
    assert main(["simulate", "three-zones", "--until", "5", "--log", str(d / "run.jsonl"), "--json"],
                stdout=io.StringIO()) == 0
    GOOD["log"] = str(sorted(d.glob("run*.jsonl"))[0])  # one log per configuration
    return {"binary": d / "binary.dat", "latin1": d / "latin1.yaml", "empty": d / "empty.yaml",
            "directory": d / "a-directory", "empty-dir": d / "empty-dir"}


def _check(argv: list[str], bad: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code = main(argv, stdout=io.StringIO())
    err = capsys.readouterr().err
    assert code == EXIT_INPUT, (argv, err)
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1, err
    assert bad.name in lines[0], err


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("kind", ["binary", "latin1", "empty", "directory"])
@pytest.mark.parametrize("case", sorted(READERS), ids=lambda c: " ".join(c))
def test_unreadable_input_is_one_line_and_exit_2(case: tuple[str, str], kind: str,
                                                  bad_inputs: dict[str, Path],
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """A binary, non-UTF-8, empty file or a directory: exit 2 and one line naming it."""
    bad = bad_inputs["empty-dir" if kind == "directory" and case in DIRECTORIES else kind]
    _check(READERS[case](str(bad)), bad, capsys)


@pytest.mark.parametrize("case", sorted(DIRECTORIES), ids=lambda c: " ".join(c))
def test_a_directory_of_manifests_without_nodes_is_one_line(case: tuple[str, str],
                                                            bad_inputs: dict[str, Path],
                                                            capsys: pytest.CaptureFixture[str]) -> None:
    """Where a directory of manifests is accepted, one holding no Node is exit 2, one line."""
    bad = bad_inputs["directory"]
    _check(READERS[case](str(bad)), bad, capsys)


def test_in_a_subprocess(bad_inputs: dict[str, Path]) -> None:
    """``python -m schedframe simulate --cluster EMPTY`` in a fresh process ends at once: exit 2,
    one line."""
    env_path = str(Path(__file__).resolve().parents[1] / "src")
    done = subprocess.run(
        [sys.executable, "-m", "schedframe", "simulate", "--cluster", str(bad_inputs["empty"])],
        capture_output=True, text=True, env={"PYTHONPATH": env_path, "PATH": "/usr/bin:/bin"}, timeout=120,
    )
    assert done.returncode == EXIT_INPUT, done.stderr
    assert "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1, done.stderr
    assert "empty.yaml" in done.stderr


@pytest.fixture(scope="module")
def hostile_inputs(tmp_path_factory: pytest.TempPathFactory, bad_inputs: dict[str, Path]) -> dict[str, Path]:
    """Special files and documents made to exhaust a parser (issue #30, R2)."""
    d = tmp_path_factory.mktemp("hostile")
    out: dict[str, Path] = {}
    if hasattr(os, "mkfifo"):
        os.mkfifo(d / "fifo.yaml")  # nobody writes: a reader that opens it blindly blocks for ever
        out["fifo"] = d / "fifo.yaml"
    if os.path.exists("/dev/zero"):
        out["devzero"] = Path("/dev/zero")
    bomb = ["a: &a [x, x, x, x, x, x, x, x, x, x]"]
    for i in range(1, 9):
        bomb.append(f"{chr(97 + i)}: &{chr(97 + i)} [" + ", ".join([f"*{chr(96 + i)}"] * 10) + "]")
    (d / "bomb.yaml").write_text("\n".join(bomb) + "\n")
    out["alias-bomb"] = d / "bomb.yaml"
    (d / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    out["deep-json"] = d / "deep.json"
    (d / "deep.yaml").write_text("a: " + "[" * 2_000 + "]" * 2_000 + "\n")
    out["deep-yaml"] = d / "deep.yaml"
    return out


@contextlib.contextmanager
def _deadline(seconds: int) -> Iterator[None]:
    """Fail instead of hanging: SIGALRM raises in the main thread after *seconds*."""
    if not hasattr(signal, "SIGALRM"):
        yield
        return

    def expired(signum: int, frame: object) -> None:
        raise TimeoutError(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("kind", ["fifo", "devzero", "alias-bomb", "deep-json", "deep-yaml"])
@pytest.mark.parametrize("case", sorted(READERS), ids=lambda c: " ".join(c))
def test_hostile_input_is_one_line_and_exit_2(case: tuple[str, str], kind: str,
                                              hostile_inputs: dict[str, Path],
                                              capsys: pytest.CaptureFixture[str]) -> None:
    """A FIFO, /dev/zero, a YAML alias bomb, JSON nested 100,000 deep or YAML nested 2,000 deep,
    through every file argument: exit 2 and one line naming it, within seconds (no hang, no
    MemoryError, no RecursionError)."""
    if kind not in hostile_inputs:
        pytest.skip(f"no {kind} on this system")
    bad = hostile_inputs[kind]
    with _deadline(60):
        _check(READERS[case](str(bad)), bad, capsys)


@pytest.mark.parametrize(("argv", "cap"), [
    pytest.param(["simulate"], "schedframe.sim.scenario:MAX_SCENARIO_BYTES", id="scenario"),
    pytest.param(["sweep"], "schedframe.sweep._runner:MAX_SPEC_BYTES", id="sweep spec"),
])
def test_a_file_over_its_cap_is_refused_before_parsing(argv: list[str], cap: str, tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    """A scenario or sweep spec larger than its cap (a sparse file: no disk used) is one line
    and exit 2, read no further than the cap."""
    import importlib

    module, name = cap.split(":")
    limit = getattr(importlib.import_module(module), name)
    big = tmp_path / "big.yaml"
    with big.open("wb") as f:
        f.truncate(limit + 1)
    _check([*argv, str(big)], big, capsys)
