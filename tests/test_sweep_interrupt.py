"""Ctrl-C ends ``schedframe sweep`` promptly, every time: exit 130 within seconds, the rows written
kept whole, ``--resume`` going on from them. Script-style: the command runs in its own session and
SIGINT goes to it and then to its whole process group, as ``timeout -s INT`` sends it (workers
included; the command gets it twice).

``SCHEDFRAME_INTERRUPT_TRIES`` sets the number of interruptions (default 5; 50 for a long check).
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

pytestmark = [
    pytest.mark.interrupts,
    pytest.mark.skipif(sys.platform == "win32", reason="POSIX process groups and SIGINT"),
]

#: How long the command may take to exit after the signal.
GRACE = 10.0
TRIES = int(os.environ.get("SCHEDFRAME_INTERRUPT_TRIES", "5"))

# A task keeping its worker busy (not asleep) for a while: 60 runs on 2 workers take ~9 s.
TASK = textwrap.dedent(
    """
    import time

    def spin(seconds, n):
        end = time.perf_counter() + seconds
        while time.perf_counter() < end:
            pass
        return {"n": n, "square": n * n}
    """
)


@pytest.fixture
def workdir(tmp_path: Path) -> Path:
    (tmp_path / "busy_task.py").write_text(TASK)
    runs = ", ".join(str(i) for i in range(60))
    spec = f"task: busy_task:spin\ngrid: {{n: [{runs}]}}\nfixed: {{seconds: 0.3}}\n"
    (tmp_path / "spec.yaml").write_text(spec)
    # as the sweep that hung: 60 simulations (~0.5 s each here: ~15 s on 2 workers)
    seeds = ", ".join(str(i) for i in range(1, 61))
    (tmp_path / "simulate.yaml").write_text(
        f"task: simulate\ngrid: {{seed: [{seeds}]}}\nfixed: {{scenario: gang}}\n")
    return tmp_path


def _interrupt(workdir: Path, after: float, *extra: str, spec: str = "spec.yaml") -> tuple[int, float, str]:
    """Run the sweep under ``timeout -s INT AFTER`` (SIGINT to the command, then to its whole
    process group: the workers too, the command twice); (exit code, seconds from the signal to
    the exit, stderr). Without coreutils' timeout, the test sends the same signals itself."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(workdir), os.environ.get("PYTHONPATH", "")])}
    command = [sys.executable, "-m", "schedframe", "sweep", spec, "--out", "x.csv", *extra]
    timeout = shutil.which("timeout")
    if timeout is not None:
        command = [timeout, "--preserve-status", "-k", str(GRACE + 5), "-s", "INT", str(after), *command]
    start = time.monotonic()
    proc = subprocess.Popen(
        command, cwd=workdir, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        start_new_session=True,
        # as from a shell: the default SIGINT disposition, whatever the test runner's is
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    if timeout is None:
        time.sleep(after)
        os.kill(proc.pid, signal.SIGINT)
        os.killpg(proc.pid, signal.SIGINT)
    try:
        _, err = proc.communicate(timeout=after + GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        _, err = proc.communicate()
        pytest.fail(f"still running {GRACE}s after SIGINT (sent at {after}s); stderr: {err[-2000:]}")
    return proc.returncode, time.monotonic() - start - after, err


def _check_rows(path: Path) -> list[dict[str, str]]:
    text = path.read_text() if path.exists() else ""
    assert not text or text.endswith("\n"), f"a truncated last row: {text[-200:]!r}"
    rows = list(csv.DictReader(io.StringIO(text, newline="")))
    for row in rows:
        assert row["status"] == "ok", row
        if "square" in row:
            assert int(row["square"]) == int(row["n"]) ** 2, row
        else:
            assert int(row["placed"]) >= 0, row
        assert None not in row, row  # no long row
        assert None not in row.values(), row  # no short row
    return rows


def _still_running(workdir: Path) -> list[str]:
    """Processes (the workers) still running with *workdir* as their directory."""
    left = []
    for pid in os.listdir("/proc") if os.path.isdir("/proc") else ():
        if pid.isdigit():
            try:
                if os.readlink(f"/proc/{pid}/cwd") == str(workdir):
                    left.append(pid)
            except OSError:
                continue
    return left


def test_ctrl_c_ends_a_process_pool_sweep_promptly_every_time(workdir: Path) -> None:
    """Each interruption: exit 130 within GRACE seconds, one line on stderr, the rows valid, no
    worker left; then --resume completes the sweep from the rows kept."""
    waits = []
    for i in range(TRIES):
        (workdir / "x.csv").unlink(missing_ok=True)
        after = 1.0 + 3.0 * i / max(TRIES - 1, 1)
        code, waited, err = _interrupt(workdir, after, "--workers", "2", spec="simulate.yaml")
        waits.append(waited)
        assert code == 130, (after, err)
        assert err.strip().splitlines()[-1] == "schedframe sweep: interrupted", err
        assert "Traceback" not in err, err
        _check_rows(workdir / "x.csv")
        deadline = time.monotonic() + 5
        while _still_running(workdir) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not _still_running(workdir)
    print(f"{TRIES} interruptions: max {max(waits):.2f}s from SIGINT to exit")
    kept = len(_check_rows(workdir / "x.csv"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(workdir), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "schedframe", "sweep", "simulate.yaml", "--out", "x.csv", "--resume",
         "--plain", "--json", "--workers", "2"],
        cwd=workdir, env=env, capture_output=True, text=True, timeout=120, check=False,
    )
    assert done.returncode == 0, done.stderr
    rows = _check_rows(workdir / "x.csv")
    assert len({r["seed"] for r in rows}) == 60
    assert len(rows) == 60
    assert len(json.loads(done.stdout)) == 60 - kept  # the runs not yet done


def test_ctrl_c_ends_a_dask_local_sweep_promptly(workdir: Path) -> None:
    """--dask local: the client and the LocalCluster closed within GRACE seconds, exit 130."""
    pytest.importorskip("distributed")
    code, waited, err = _interrupt(workdir, 6.0, "--dask", "local")
    assert code == 130, err
    assert waited < GRACE
    assert err.strip().splitlines()[-1] == "schedframe sweep: interrupted", err
    for wrong in ("Traceback", "KeyboardInterrupt", "Exception ignored"):
        assert wrong not in err, err
    _check_rows(workdir / "x.csv")


@pytest.mark.parametrize("after", [0.6, 0.9])
def test_ctrl_c_while_a_local_dask_cluster_starts(workdir: Path, after: float) -> None:
    """Ctrl-C while --dask local imports Dask and starts its LocalCluster: exit 130 with the one
    line, no traceback from the command or from a worker still importing, nothing left running."""
    pytest.importorskip("distributed")
    code, waited, err = _interrupt(workdir, after, "--dask", "local")
    assert code == 130, err
    assert waited < GRACE
    assert err.strip().splitlines()[-1] == "schedframe sweep: interrupted", err
    for wrong in ("Traceback", "KeyboardInterrupt", "Exception ignored"):
        assert wrong not in err, err
    deadline = time.monotonic() + 5
    while _still_running(workdir) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not _still_running(workdir)
