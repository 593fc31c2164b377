"""Sweeps that lose nothing (docs/reliability.rst): a dead worker costs its own run only, every
finished run's row is written, outputs written at the end are written atomically from rows
streamed beside them, resume trusts only complete rows, long fields read back, and a spec of a
million runs is generated lazily."""

from __future__ import annotations

import json
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

import pytest

from schedframe.errors import SchedframeWarning
from schedframe.sweep import Run, RunOutcome, SweepError, SweepSpec, read_table, sweep

# Tasks are importable functions: this module is written beside the test and put on sys.path
# before the pool starts, so the workers import it too.
TASKS = textwrap.dedent(
    """
    import os
    import signal
    import time


    class BadStr(Exception):
        def __str__(self):
            raise RuntimeError("no str for you")


    def task(n, how="ok", pause=0.0):
        time.sleep(pause)
        if how == "exit":
            os._exit(3)
        if how == "kill":
            os.kill(os.getpid(), signal.SIGKILL)
        if how == "sysexit":
            raise SystemExit(4)
        if how == "kbint":
            raise KeyboardInterrupt
        if how == "badstr":
            raise BadStr()
        if how == "long":
            raise ValueError("e" * 300_000)
        return {"n": n, "square": n * n}


    def blob(n):
        return {"blob": "x" * 200_000, "n": n}
    """
)


@pytest.fixture
def tasks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The name of the tasks module (importable by the workers)."""
    folder = tmp_path / "tasks"
    folder.mkdir()
    name = f"sweep_tasks_{abs(hash(str(tmp_path))) % 10**8}"
    (folder / f"{name}.py").write_text(TASKS)
    monkeypatch.syspath_prepend(str(folder))
    return name


def _runs(tasks: str, hows: list[str], pause: float = 0.0) -> list[Run]:
    return [Run.of(f"{tasks}:task", {"n": n, "how": how, "pause": pause}) for n, how in enumerate(hows)]


# --- a worker that dies ---------------------------------------------------------------------------

DEATHS = {
    "exit": "the worker process running it died: it exited with code 3",
    "kill": "the worker process running it died: it was killed by SIGKILL",
    "sysexit": "the task raised SystemExit: 4",
    "kbint": "the task raised KeyboardInterrupt",
    "badstr": "BadStr: <str() of the exception failed: RuntimeError>",
}


@pytest.mark.parametrize("how", sorted(DEATHS))
def test_a_dying_run_fails_alone_and_every_finished_row_is_written(tasks: str, tmp_path: Path,
                                                                   how: str) -> None:
    out = tmp_path / "r.csv"
    runs = _runs(tasks, ["ok", how, "ok", "ok"], pause=0.2)
    result = sweep(runs, workers=2, out=out, progress=False)
    assert [o.ok for o in result.outcomes] == [True, False, True, True]
    error = result.outcomes[1].error
    assert error is not None
    assert error.startswith(DEATHS[how]), error
    rows = {int(r["n"]): r for r in read_table(out)}
    assert sorted(rows) == [0, 1, 2, 3]
    assert [rows[n]["status"] for n in range(4)] == ["ok", "failed", "ok", "ok"]
    assert rows[1]["error"].startswith(DEATHS[how])
    assert all(int(rows[n]["square"]) == n * n for n in (0, 2, 3))


def test_two_dying_runs_among_others_the_pool_is_replaced(tasks: str, tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    hows = ["ok", "exit", "ok", "ok", "kill", "ok", "ok", "ok"]
    result = sweep(_runs(tasks, hows, pause=0.1), workers=2, out=out, progress=False)
    assert [o.ok for o in result.outcomes] == [h == "ok" for h in hows]
    assert "exited with code 3" in (result.outcomes[1].error or "")
    assert "killed by SIGKILL" in (result.outcomes[4].error or "")
    rows = read_table(out)
    assert sorted(r["n"] for r in rows) == list(range(8))
    again = sweep(_runs(tasks, hows, pause=0.1), workers=2, out=out, resume=True, progress=False)
    assert again.skipped == 6  # the two failed runs ran again


def test_a_single_run_that_ends_its_process_is_a_failed_row(tasks: str, tmp_path: Path) -> None:
    """One run (say the one left to resume) runs in a worker too: ``os._exit`` ends only that."""
    result = sweep(_runs(tasks, ["exit"]), out=tmp_path / "r.csv", progress=False)
    assert (result.outcomes[0].error or "").startswith(DEATHS["exit"])
    assert [r["status"] for r in read_table(tmp_path / "r.csv")] == ["failed"]


def test_the_command_reports_a_dead_worker_and_goes_on(tasks: str, tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]) -> None:
    from schedframe.cli.main import main

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps({"task": f"{tasks}:task", "grid": {"n": [0, 1, 2]},
                                "runs": [{"n": 3, "how": "exit"}]}))
    out = tmp_path / "r.csv"
    assert main(["sweep", str(spec), "--workers", "2", "--out", str(out), "--plain"]) == 1
    printed = capsys.readouterr().out
    assert "the worker process running it died: it exited with code 3" in printed
    assert len(read_table(out)) == 4


def test_error_texts_in_rows_are_bounded(tasks: str, tmp_path: Path) -> None:
    result = sweep(_runs(tasks, ["long", "ok"]), workers=2, out=tmp_path / "r.csv", progress=False)
    error = result.outcomes[0].error or ""
    assert error.startswith("ValueError: eee")
    assert "(300000 characters)" in error
    long = RunOutcome(Run.of("x:y", {}), 0, {}, "E" * 1_000_000, 1.0)
    assert len(long.row()["error"]) <= getattr(sys.modules["schedframe.sweep"], "MAX_ERROR_CHARS", 2000)


# --- outputs written at the end -------------------------------------------------------------------


def test_the_output_directory_is_created_before_the_first_run(tasks: str, tmp_path: Path) -> None:
    out = tmp_path / "new" / "deeper" / "r.json"
    result = sweep(_runs(tasks, ["ok", "ok", "ok"]), workers=2, out=out, progress=False)
    assert len(result.outcomes) == 3
    assert sorted(r["n"] for r in read_table(out)) == [0, 1, 2]
    assert not (out.parent / "r.json.rows.jsonl").exists()  # the streamed rows are removed


@pytest.mark.parametrize("suffix", [".json", ".csv"])
def test_an_output_directory_that_cannot_be_made_is_refused_before_any_run(
        tasks: str, tmp_path: Path, suffix: str) -> None:
    (tmp_path / "a-file").write_text("")
    seen: list[RunOutcome] = []
    with pytest.raises(SweepError, match="cannot create the output directory"):
        sweep(_runs(tasks, ["ok", "ok"]), workers=2, out=tmp_path / "a-file" / f"r{suffix}",
              progress=False, on_outcome=seen.append)
    assert seen == []


def test_a_failing_final_write_keeps_the_streamed_rows(tasks: str, tmp_path: Path) -> None:
    out = tmp_path / "r.json"

    def in_the_way(outcome: RunOutcome) -> None:  # something takes the output's name meanwhile
        out.mkdir(exist_ok=True)

    with pytest.raises(SweepError) as caught:
        sweep(_runs(tasks, ["ok", "ok", "ok", "sysexit"]), workers=2, out=out, progress=False,
              on_outcome=in_the_way)
    message = str(caught.value)
    print(message)
    kept = tmp_path / "r.json.rows.jsonl"
    assert "writing the results failed" in message
    assert f"the 4 row(s) of this sweep are kept in {kept}" in message
    rows = read_table(kept)
    assert sorted(r["n"] for r in rows) == [0, 1, 2, 3]


# --- resume ---------------------------------------------------------------------------------------


def test_resume_drops_a_truncated_last_csv_row_and_runs_it_again(tasks: str, tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    runs = _runs(tasks, ["ok"] * 4)
    sweep(runs, workers=1, out=out, progress=False)
    text = out.read_text()
    out.write_text(text[:-5])  # a row cut short: the process was killed while writing it
    dropped = r"1 incomplete or unreadable row\(s\) dropped \(line\(s\) 5\)"
    with pytest.warns(SchedframeWarning, match=dropped):
        again = sweep(runs, workers=2, out=out, resume=True, progress=False)
    assert again.skipped == 3
    assert len(again.outcomes) == 1
    rows = read_table(out)
    assert sorted(int(r["n"]) for r in rows) == [0, 1, 2, 3]
    assert all(None not in r and None not in r.values() and r["status"] == "ok" for r in rows)


def test_resume_drops_rows_missing_fields_or_unparseable(tasks: str, tmp_path: Path) -> None:
    runs = _runs(tasks, ["ok"] * 4)
    csv_out = tmp_path / "r.csv"
    sweep(runs, workers=1, out=csv_out, progress=False)
    lines = csv_out.read_text().splitlines(keepends=True)
    lines[2] = ",".join(lines[2].split(",")[:3]) + "\r\n"  # a short row
    csv_out.write_text("".join(lines))
    with pytest.warns(SchedframeWarning, match=r"line\(s\) 3\)"):
        assert sweep(runs, workers=2, out=csv_out, resume=True, progress=False).skipped == 3
    assert len(read_table(csv_out)) == 4

    jsonl = tmp_path / "r.jsonl"
    sweep(runs, workers=1, out=jsonl, progress=False)
    lines = jsonl.read_text().splitlines(keepends=True)
    row = json.loads(lines[1])
    del row["status"]
    lines[1] = json.dumps(row) + "\n"  # a row missing a field
    lines[3] = lines[3][:-10]  # the last one cut short
    jsonl.write_text("".join(lines))
    dropped = r"2 incomplete or unreadable row\(s\) dropped \(line\(s\) 2, 4\)"
    with pytest.warns(SchedframeWarning, match=dropped):
        assert sweep(runs, workers=2, out=jsonl, resume=True, progress=False).skipped == 2
    assert sorted(r["n"] for r in read_table(jsonl)) == [0, 1, 2, 3]


def test_resume_refuses_a_file_that_is_not_a_sweeps(tasks: str, tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    out.write_text("a,b\n1,2\n")
    with pytest.raises(SweepError, match="the header is not a sweep's"):
        sweep(_runs(tasks, ["ok"]), out=out, resume=True, progress=False)
    assert out.read_text() == "a,b\n1,2\n"  # untouched


def test_fields_over_128_kib_read_back_and_resume(tasks: str, tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    runs = [Run.of(f"{tasks}:blob", {"n": n}) for n in range(2)]
    sweep(runs, workers=2, out=out, progress=False)
    rows = read_table(out)
    assert [len(r["blob"]) for r in rows] == [200_000, 200_000]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert sweep(runs, workers=2, out=out, resume=True, progress=False).skipped == 2


# --- a million runs -------------------------------------------------------------------------------


class _Enough(Exception):
    pass


def test_a_million_run_spec_is_generated_lazily(tasks: str, tmp_path: Path) -> None:
    start = time.monotonic()
    axes = {"n": list(range(1000)), "pause": [i / 1e9 for i in range(1000)]}
    spec = SweepSpec.from_dict({"task": f"{tasks}:task", "grid": axes})
    assert len(spec) == 1_000_000
    assert time.monotonic() - start < 2.0
    assert spec.params == ["n", "pause"]
    seen: list[Any] = []

    def stop(outcome: RunOutcome) -> None:
        seen.append(outcome)
        if len(seen) == 5:
            raise _Enough

    start = time.monotonic()
    with pytest.raises(_Enough):
        sweep(spec, workers=2, out=tmp_path / "r.csv", progress=False, on_outcome=stop)
    assert time.monotonic() - start < 10.0
    rows = read_table(tmp_path / "r.csv")
    assert len(rows) >= 5
    assert all(r["status"] == "ok" for r in rows)


def test_failed_rows_waiting_for_a_csv_header_are_kept_when_interrupted(tasks: str, tmp_path: Path) -> None:
    """A CSV's header waits for a successful run (its metrics are columns); failures before it are
    written when the sweep stops, whatever stops it."""
    seen: list[RunOutcome] = []

    def stop(outcome: RunOutcome) -> None:
        seen.append(outcome)
        if len(seen) == 2:
            raise _Enough

    with pytest.raises(_Enough):
        sweep(_runs(tasks, ["sysexit"] * 6), workers=2, out=tmp_path / "r.csv", progress=False,
              on_outcome=stop)
    rows = read_table(tmp_path / "r.csv")
    assert len(rows) >= 2
    assert all(r["status"] == "failed" for r in rows)


def test_spec_runs_in_a_fixed_order() -> None:
    spec = SweepSpec.from_dict({"task": "m:f", "grid": {"a": [1, 2], "b": ["x", "y"]},
                                "fixed": {"c": 0}, "runs": [{"a": 9}]})
    assert [r.params for r in spec] == [
        {"c": 0, "a": 1, "b": "x"}, {"c": 0, "a": 1, "b": "y"}, {"c": 0, "a": 2, "b": "x"},
        {"c": 0, "a": 2, "b": "y"}, {"c": 0, "a": 9}]
    assert len(spec) == 5
    assert spec.runs == tuple(spec)
    with pytest.raises(SweepError, match=r"grid\.a\[1\]"):
        SweepSpec.from_dict({"task": "m:f", "grid": {"a": [1, float("nan")]}})
    with pytest.raises(SweepError, match=r"fixed\.c"):
        SweepSpec.from_dict({"task": "m:f", "grid": {"a": [1]}, "fixed": {"c": object()}})
