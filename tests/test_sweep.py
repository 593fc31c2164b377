"""Sweeps: grids of runs on a process pool or a Dask cluster give the same table; failures are
reported and do not stop the others; resume skips what is done."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from schedframe.sweep import Run, SweepError, SweepSpec, grid, load_sweep_spec, read_table, sweep
from schedframe.sweep._runner import execute


def _comparable(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: v for k, v in r.items() if k != "seconds"} for r in rows]


# Tasks are importable functions called with keyword arguments; the standard library's
# textwrap.shorten is one (and raises ValueError when the width cannot hold the placeholder).
TEXTS = ["the quick brown fox jumps over the lazy dog", "lorem ipsum dolor sit amet", "x"]


def _runs() -> list[Run]:
    return [Run.of("textwrap:shorten", p) for p in grid(text=TEXTS, width=[8, 12, 30])]


def test_grid_is_the_cartesian_product_in_a_fixed_order() -> None:
    assert grid(a=[1, 2], b=["x", "y"]) == [
        {"a": 1, "b": "x"}, {"a": 1, "b": "y"}, {"a": 2, "b": "x"}, {"a": 2, "b": "y"}]
    with pytest.raises(SweepError, match=r"grid\.b: an empty list"):
        grid(a=[1], b=[])
    with pytest.raises(SweepError, match=r"grid\.a: expected a list"):
        grid(a="abc")


def test_run_keys_are_stable_and_params_plain() -> None:
    a = Run.of("simulate", {"seed": 1, "config": "x"})
    b = Run.of("simulate", {"config": "x", "seed": 1})
    assert a.key == b.key
    assert a.key != Run.of("simulate", {"seed": 2, "config": "x"}).key
    with pytest.raises(SweepError, match=r"params\.seed"):
        Run.of("simulate", {"seed": float("nan")})
    with pytest.raises(SweepError, match=r"params\.obj"):
        Run.of("simulate", {"obj": object()})


def test_execute_turns_an_exception_into_the_outcome() -> None:
    ok = execute(Run.of("textwrap:shorten", {"text": "a b c d e f", "width": 7}))
    assert ok.ok
    assert ok.metrics == {"value": "a [...]"}
    bad = execute(Run.of("textwrap:shorten", {"text": "a b c", "width": 1}))
    assert not bad.ok
    assert bad.error is not None
    assert bad.error.startswith("ValueError")
    unknown = execute(Run.of("no_such_module_xyz:f", {}))
    assert unknown.error is not None
    assert "SweepError" in unknown.error


def test_process_pool_results_in_run_order(tmp_path: Path) -> None:
    runs = _runs()
    result = sweep(runs, workers=2, out=tmp_path / "r.csv", progress=False)
    assert [o.metrics["value"] for o in result.outcomes] == [
        textwrap.shorten(r.params["text"], r.params["width"]) for r in runs]
    table = read_table(tmp_path / "r.csv")
    assert sorted(row["run"] for row in table) == sorted(r.key for r in runs)
    assert all(row["status"] == "ok" for row in table)


def test_a_failing_run_does_not_lose_the_others(tmp_path: Path) -> None:
    runs = [Run.of("textwrap:shorten", {"text": "a b c d e f g", "width": w}) for w in (8, 1, 30)]
    result = sweep(runs, workers=2, out=tmp_path / "r.jsonl", progress=False)
    assert [o.ok for o in result.outcomes] == [True, False, True]
    assert result.failed[0].run.params == {"text": "a b c d e f g", "width": 1}
    rows = {r["width"]: r for r in read_table(tmp_path / "r.jsonl")}
    assert rows[1]["status"] == "failed"
    assert "ValueError" in rows[1]["error"]
    assert rows[30]["value"] == "a b c d e f g"


def test_resume_skips_runs_already_done(tmp_path: Path) -> None:
    out = tmp_path / "r.csv"
    runs = _runs()
    first = sweep(runs[:4], out=out, workers=1, progress=False)
    assert first.skipped == 0
    assert len(first.outcomes) == 4
    seen: list[str] = []
    second = sweep(runs, out=out, resume=True, workers=2, progress=False,
                   on_outcome=lambda o: seen.append(o.run.key))
    assert second.skipped == 4
    assert sorted(seen) == sorted(r.key for r in runs[4:])
    table = read_table(out)
    assert sorted(row["run"] for row in table) == sorted(r.key for r in runs)  # no duplicates


def test_resume_runs_failed_runs_again(tmp_path: Path) -> None:
    out = tmp_path / "r.jsonl"
    runs = [Run.of("textwrap:shorten", {"text": "a b c", "width": w}) for w in (1, 30)]
    sweep(runs, out=out, workers=1, progress=False)
    again = sweep(runs, out=out, resume=True, workers=1, progress=False)
    assert again.skipped == 1
    assert [o.run.params["width"] for o in again.outcomes] == [1]
    assert len(read_table(out)) == 2  # the old failed row was replaced, not kept beside the new one


def test_spec_files(tmp_path: Path) -> None:
    spec = tmp_path / "s.json"
    spec.write_text(json.dumps({"task": "textwrap:shorten", "grid": {"width": [7, 30]},
                                "fixed": {"text": "a b c d e f"}, "runs": [{"text": "x y", "width": 10}]}))
    loaded = load_sweep_spec(spec)
    assert [r.params for r in loaded.runs] == [
        {"text": "a b c d e f", "width": 7},
        {"text": "a b c d e f", "width": 30},
        {"text": "x y", "width": 10},
    ]
    assert [o.metrics["value"] for o in sweep(loaded, workers=1, progress=False).outcomes] == [
        "a [...]", "a b c d e f", "x y"]
    with pytest.raises(SweepError, match="unknown field"):
        SweepSpec.from_dict({"task": "x", "grdi": {}})
    with pytest.raises(SweepError, match="no runs"):
        SweepSpec.from_dict({"task": "x"})
    with pytest.raises(SweepError, match="it is a directory; only regular files are read"):
        load_sweep_spec(tmp_path)


def test_dask_local_cluster_gives_the_same_table(tmp_path: Path) -> None:
    pytest.importorskip("distributed", reason="Dask distributed is in the dev extra")
    from schedframe.sweep import dask_executor

    runs = [*_runs(), Run.of("textwrap:shorten", {"text": "a b", "width": 1})]
    local = sweep(runs, workers=2, progress=False)
    with dask_executor("local", workers=2) as executor:
        remote = sweep(runs, executor=executor, progress=False)
    assert _comparable(remote.rows()) == _comparable(local.rows())


# --- simulations ---------------------------------------------------------------------------------

SIM_SPEC = {
    "task": "simulate",
    "grid": {"config": ["default", "bin-packing"], "seed": [1, 2]},
    "fixed": {"scenario": "three-zones", "until": 300},
}


def test_simulations_same_table_on_process_pool_and_dask() -> None:
    """The FGD-style use: a grid of simulations gives identical rows whatever runs it."""
    pytest.importorskip("distributed", reason="Dask distributed is in the dev extra")
    from schedframe.sweep import dask_executor

    spec = SweepSpec.from_dict(SIM_SPEC)
    local = sweep(spec, workers=2, progress=False)
    assert all(o.ok for o in local.outcomes), [o.error for o in local.failed]
    assert {o.metrics["config_name"] for o in local.outcomes} == {"default", "bin-packing"}
    assert all(o.metrics["placed"] > 0 for o in local.outcomes)
    with dask_executor("local", workers=2) as executor:
        remote = sweep(spec, executor=executor, progress=False)
    assert _comparable(remote.rows()) == _comparable(local.rows())


def test_sweep_command(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from schedframe.cli.main import main

    spec = tmp_path / "spec.json"
    spec.write_text(json.dumps(SIM_SPEC))
    out = tmp_path / "r.csv"
    assert main(["sweep", str(spec), "--workers", "2", "--out", str(out), "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert [(r["config"], r["seed"]) for r in rows] == [
        ("default", 1), ("default", 2), ("bin-packing", 1), ("bin-packing", 2)]
    assert len(read_table(out)) == 4
    assert main(["sweep", str(spec), "--out", str(out), "--resume", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == []  # everything was done already
    assert main(["sweep", str(spec), "--resume"]) == 2  # --resume needs --out
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"task": "simulate", "grid": {"seed": []}}))
    assert main(["sweep", str(bad)]) == 2
    failing = tmp_path / "failing.json"
    failing.write_text(json.dumps({"task": "simulate", "runs": [{"scenario": "no-such-scenario.yaml"}]}))
    assert main(["sweep", str(failing), "--workers", "1"]) == 1
