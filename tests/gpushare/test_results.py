"""Many runs' results: reading JSON lines, the table at 100 % arrived beside the paper's, the
mean curves and the plot, and the ``summary`` / ``plot`` subcommands."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from schedframe.errors import GpuShareError
from schedframe.gpushare import (
    PAPER_ALLOC_AT_100,
    POLICIES,
    POLICY_ORDER,
    mean_curves,
    plot_alloc,
    read_results,
    summarise,
    trace_name,
)
from schedframe.gpushare.cli import main


def _row(trace: str, seed: int, policy: str, at100: float | None, at90: float = 89.0) -> dict[str, Any]:
    curve: list[float | None] = [None] * 131
    curve[90] = at90
    curve[100] = at100
    return {"trace": trace, "seed": seed, "policy": policy, "alloc_pct": curve, "seconds": 1.0}


def _write(path: Path, rows: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    return path


def test_the_paper_table_covers_every_policy() -> None:
    assert set(POLICY_ORDER) == set(POLICIES)
    for trace, row in PAPER_ALLOC_AT_100.items():
        assert set(row) == set(POLICY_ORDER), trace
        assert all(0 < v < 100 for v in row.values())
    # FGD is the best policy on every published trace at 100 % arrived
    assert all(max(row, key=row.__getitem__) == "FGD" for row in PAPER_ALLOC_AT_100.values())


def test_summarise_means_min_max_and_the_paper_difference() -> None:
    rows = [
        _row("openb_pod_list_default", 42, "FGD", 95.0),
        _row("default", 43, "FGD", 95.5),
        _row("default", 44, "FGD", None),  # no arrival near 100 %: left out
        _row("default", 42, "Random", 86.0),
        _row("mytrace", 42, "Custom", 50.0),
    ]
    table = summarise(rows)
    assert [(s.trace, s.policy) for s in table] == [("default", "Random"), ("default", "FGD"),
                                                   ("mytrace", "Custom")]
    fgd = table[1]
    assert fgd.seeds == (42, 43)
    assert (fgd.mean, fgd.low, fgd.high) == (95.25, 95.0, 95.5)
    assert fgd.paper == 95.23
    assert fgd.diff == pytest.approx(0.02)
    assert table[2].paper is None
    assert table[2].diff is None
    at90 = summarise(rows, at=90)
    assert all(s.paper is None and s.mean == 89.0 for s in at90)
    with pytest.raises(GpuShareError) as err:
        summarise(rows, at=131)
    assert err.value.path == "at"
    assert fgd.to_dict()["diff"] == fgd.diff


def test_mean_curves_skip_missing_points() -> None:
    rows = [_row("default", 42, "FGD", 95.0), _row("default", 43, "FGD", None, at90=91.0)]
    curve = mean_curves(rows, "openb_pod_list_default")["FGD"]
    assert len(curve) == 131
    assert curve[90] == 90.0
    assert curve[100] == 95.0
    assert curve[0] is None
    assert mean_curves(rows, "cpu200") == {}
    assert trace_name("openb_pod_list_gpuspec20") == "gpuspec20"


def test_read_results_keeps_the_last_of_a_repeated_run_and_names_bad_lines(tmp_path: Path) -> None:
    path = _write(tmp_path / "runs.jsonl", [_row("default", 42, "FGD", 94.0),
                                            _row("openb_pod_list_default", 42, "FGD", 95.0)])
    (row,) = read_results(path)
    assert row["alloc_pct"][100] == 95.0
    path.write_text(path.read_text() + "\n{not json\n")
    with pytest.raises(GpuShareError) as err:
        read_results(path)
    assert err.value.path == f"{path}:4"
    path.write_text(json.dumps({"trace": "default", "seed": "42", "policy": "FGD", "alloc_pct": []}) + "\n")
    with pytest.raises(GpuShareError) as err:
        read_results(path)
    assert err.value.path == f"{path}:1: seed"
    with pytest.raises(GpuShareError) as err:
        read_results(tmp_path / "missing.jsonl")
    assert err.value.path.endswith("missing.jsonl")


def test_plot_alloc_writes_an_image(tmp_path: Path) -> None:
    pytest.importorskip("matplotlib")
    rows = [_row("default", 42, policy, 90.0 + i) for i, policy in enumerate(POLICY_ORDER)]
    out = tmp_path / "alloc.png"
    plot_alloc(rows, "default", out)
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(GpuShareError) as err:
        plot_alloc(rows, "cpu200", tmp_path / "none.png")
    assert err.value.path == "trace"


def test_summary_and_plot_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = _write(tmp_path / "runs.jsonl", [_row("default", s, "BestFit", 92.0 + s - 42) for s in (42, 43)])
    assert main(["summary", str(path), "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert entry["policy"] == "BestFit"
    assert entry["mean"] == 92.5
    assert entry["seeds"] == [42, 43]
    assert entry["paper"] == 92.86
    assert main(["summary", str(path)]) == 0
    assert "BestFit" in capsys.readouterr().out
    assert main(["summary", str(tmp_path / "missing.jsonl")]) == 2
    assert "missing.jsonl" in capsys.readouterr().err
    pytest.importorskip("matplotlib")
    assert main(["plot", str(path), "--out", str(tmp_path / "a.png")]) == 0
    assert (tmp_path / "a.png").exists()


_DOCS_RUNS = Path(__file__).resolve().parents[2] / "docs" / "data" / "openb-runs.jsonl"


def test_the_documented_reproduction_is_within_a_point_of_the_paper() -> None:
    """The runs the reproduction page is built from: ten seeds of every policy on the default
    trace and one trace of each family, every cell within one point of the paper's mean, and the
    paper's ranking of the policies on every trace."""
    rows = read_results(_DOCS_RUNS)
    cells = summarise(rows)
    traces = {c.trace for c in cells}
    assert traces == {"default", "cpu200", "gpushare40", "multigpu20", "gpuspec20"}
    assert len(cells) == 5 * len(POLICY_ORDER)
    for c in cells:
        assert c.seeds == tuple(range(42, 52)), (c.trace, c.policy)
        assert c.diff is not None
        assert abs(c.diff) <= 1.0, (c.trace, c.policy, c.diff)
    for trace in traces:
        ours = sorted((c for c in cells if c.trace == trace), key=lambda c: c.mean)
        paper = sorted(PAPER_ALLOC_AT_100[trace], key=PAPER_ALLOC_AT_100[trace].__getitem__)
        assert [c.policy for c in ours] == paper, trace
    assert all(len(r["alloc_pct"]) == 131 for r in rows)
