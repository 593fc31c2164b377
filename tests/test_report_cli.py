"""``--report FILE.html`` beyond ``simulate``: ``replay`` (the replayed runs, under the logged
configuration and any other) -- checked before anything runs, written before the text report."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from schedframe.cli import _common
from schedframe.cli._common import load_config
from schedframe.cli.main import main
from schedframe.sim import RecordDecisions, Scenario, read_log, replay, simulate
from schedframe.sim.report import node_labels
from schedframe.sim.report._build import report_data

from .test_report import SCENARIO

PACKING = """apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
  pluginConfig:
  - name: NodeResourcesFit
    args: {scoringStrategy: {type: MostAllocated}}
"""


def _run(*argv: str, stdout: io.StringIO | None = None) -> tuple[int, str]:
    out = io.StringIO() if stdout is None else stdout
    return main(list(argv), stdout=out), out.getvalue()


def _data(path: Path) -> dict:
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                  path.read_text(encoding="utf-8"), re.S)
    assert m is not None
    return json.loads(m.group(1))


def _json(data: dict) -> dict:
    """*data* as the page holds it (tuples as lists)."""
    return json.loads(json.dumps(data))


@pytest.fixture(scope="module")
def logged(tmp_path_factory) -> tuple[Path, Path]:
    """The event log of the report's test scenario under its first configuration, and its
    second configuration as a file."""
    d = tmp_path_factory.mktemp("replay")
    (d / "s.yaml").write_text(SCENARIO, encoding="utf-8")
    (d / "packing.yaml").write_text(PACKING, encoding="utf-8")
    code, _ = _run("simulate", str(d / "s.yaml"), "--plain", "--log", str(d / "run.jsonl"))
    assert code == 0
    return d / "run.default.jsonl", d / "packing.yaml"


def test_replay_report_is_the_replayed_runs(logged, tmp_path: Path) -> None:
    """``replay LOG --config C --report F``: one page of the replayed run and the what-if,
    equal to the report of the same runs from Python, and the text says where it is."""
    log, packing = logged
    path = tmp_path / "replay.html"
    code, text = _run("replay", str(log), "--plain", "--config", str(packing), "--report", str(path))
    assert code == 0
    data = _data(path)
    assert data["configs"] == ["default", "packing"]
    plan = read_log(log)[0]
    runs = [replay(log, decisions=RecordDecisions(last_failed_only=True))]
    runs.append(replay(log, config=load_config(str(packing)), config_name="packing",
                       decisions=RecordDecisions(last_failed_only=True)))
    assert data == _json(report_data(runs, node_labels(plan)))
    assert data["pending"]["default"]["total"] == len(runs[0].pending()) > 0
    assert data["pending"]["packing"]["matrices"]
    assert runs[0].placements() != runs[1].placements()
    assert f"report ({path.stat().st_size:,} bytes) written to {path}" in text
    assert text.index("the replay's metrics equal the logged run's") < text.index("report (")


def test_replay_report_matches_a_simulate_report(logged, tmp_path: Path) -> None:
    """The replay of a log reports what the logged run's own report says (pending pods, their
    matrices, the heat map, the waits)."""
    log, _ = logged
    s = Scenario.from_text(SCENARIO)
    direct = simulate(s, s.configs[0].name, decisions=RecordDecisions(last_failed_only=True))
    path = tmp_path / "r.html"
    assert _run("replay", str(log), "--plain", "--report", str(path))[0] == 0
    data = _data(path)
    want = _json(report_data([direct], node_labels(s.plan(0))))
    for key in ("pending", "heatmap", "waits", "resources"):
        assert data[key] == want[key], key


@pytest.mark.parametrize(("argv", "needle"), [
    (("--report", "out.pdf"), "ending in .html"),
    (("--report", "no/such/dir/r.html"), "no such directory"),
    (("--report", "."), "ending in .html"),
])
def test_replay_bad_report_fails_before_the_run(logged, tmp_path: Path, capsys, monkeypatch,
                                                argv: tuple[str, ...], needle: str) -> None:
    """A bad ``--report``: one line naming it, exit 2, nothing replayed or written."""
    log, _ = logged
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("schedframe.sim.replay", lambda *a, **k: pytest.fail("replayed"))
    code, text = _run("replay", str(log), "--plain", *argv)
    assert code == _common.EXIT_INPUT
    assert text == ""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("schedframe replay: error: --report")
    assert needle in err[0]
    assert not list(tmp_path.iterdir())


def test_replay_writes_the_report_even_when_the_reader_goes_away(logged, tmp_path: Path) -> None:
    """``replay LOG --report F | head``: exit 141, and F written in full all the same."""

    class Closed(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    log, _ = logged
    path = tmp_path / "run.html"
    code, _ = _run("replay", str(log), "--plain", "--report", str(path), stdout=Closed())
    assert code == _common.EXIT_BROKEN_PIPE
    assert _data(path)["configs"] == ["default"]
    assert path.read_text(encoding="utf-8").rstrip().endswith("</html>")


# -- sweep --report -------------------------------------------------------------------------------

SPEC = """task: simulate
grid:
  config: [default, packing]
  seed: [1, 2]
fixed:
  scenario: s.yaml
"""


def _sweep_data(path: Path) -> dict:
    m = re.search(r'<script type="application/json" id="sweep-data">(.*?)</script>',
                  path.read_text(encoding="utf-8"), re.S)
    assert m is not None
    return json.loads(m.group(1))


@pytest.fixture(scope="module")
def spec_dir(tmp_path_factory) -> Path:
    """A sweep spec of the report's test scenario: two configurations, two seeds, and one run
    naming a configuration file that does not exist (it fails)."""
    d = tmp_path_factory.mktemp("sweep")
    (d / "s.yaml").write_text(SCENARIO, encoding="utf-8")
    (d / "spec.yaml").write_text(SPEC + "runs:\n- {config: missing.yaml, seed: 1}\n", encoding="utf-8")
    return d


@pytest.fixture(scope="module")
def swept(spec_dir: Path, tmp_path_factory) -> tuple[int, str, Path, list[dict]]:
    """``sweep spec.yaml --report r.html --json`` on one worker: the exit code, the output,
    the page and the rows printed."""
    path = tmp_path_factory.mktemp("page") / "r.html"
    code, text = _run("sweep", str(spec_dir / "spec.yaml"), "--plain", "--workers", "1", "--json",
                      "--report", str(path))
    return code, text, path, json.loads(text)


def test_sweep_report_holds_every_run(swept) -> None:
    """One point per run, in the sweep's order, with the parameters that vary (the scenario is
    the same in all: in the header) and each metric as the rows have it, shares as percentages."""
    code, _, path, rows = swept
    assert code == _common.EXIT_PENDING  # a run failed
    data = _sweep_data(path)
    assert data["runs"] == len(rows) == 5
    assert data["params"] == ["config", "seed"]
    assert data["points"] == [[r["config"], str(r["seed"])] for r in rows]
    assert data["status"] == [r["status"] for r in rows] == ["ok"] * 4 + ["failed"]
    assert data["values"]["placed"] == [r.get("placed") for r in rows]
    assert data["values"]["utilisation_mean.cpu"][:4] == [
        round(100 * r["utilisation_mean.cpu"], 3) for r in rows[:4]]
    assert data["metric"] == "placed"
    page = path.read_text(encoding="utf-8")
    assert "fixed: scenario=" in page
    assert "<script src" not in page


def test_sweep_report_lists_the_runs_and_the_failed_one(swept) -> None:
    """The runs' table has a row per run with its summary (waits marked when lower bounds);
    the failed run is listed with its error."""
    _, _, path, rows = swept
    page = path.read_text(encoding="utf-8")
    runs = page[page.index('id="runs"'):page.index('id="failed"')]
    assert runs.count("<tr>") == 1 + len(rows)
    assert "≥" in runs  # the test scenario leaves pods pending: its waits are lower bounds
    failed = page[page.index('id="failed"'):]
    assert "missing.yaml" in failed
    assert rows[-1]["error"].split(":")[0] in failed


def test_sweep_report_is_written_before_the_text_report(spec_dir: Path, tmp_path: Path) -> None:
    """The text ends with where the page is; a reader going away loses no page."""
    path = tmp_path / "r.html"
    argv = ("sweep", str(spec_dir / "spec.yaml"), "--plain", "--workers", "1", "--report", str(path))
    code, text = _run(*argv)
    assert code == _common.EXIT_PENDING
    assert text.rstrip().endswith(f"report ({path.stat().st_size:,} bytes) written to {path}")

    class Closed(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    path.unlink()
    code, _ = _run(*argv, stdout=Closed())
    assert code == _common.EXIT_BROKEN_PIPE
    assert _sweep_data(path)["runs"] == 5


def test_sweep_report_after_resume_holds_every_run(spec_dir: Path, tmp_path: Path) -> None:
    """With ``--resume`` the page holds every run of ``--out``, the ones done before
    included, in the sweep's order -- not only the runs this sweep ran."""
    out, path = tmp_path / "results.csv", tmp_path / "r.html"
    (spec_dir / "half.yaml").write_text(SPEC.replace("seed: [1, 2]", "seed: [1]"), encoding="utf-8")
    assert _run("sweep", str(spec_dir / "half.yaml"), "--plain", "--workers", "1", "--out", str(out))[0] == 0
    code, text = _run("sweep", str(spec_dir / "spec.yaml"), "--plain", "--workers", "1", "--out", str(out),
                      "--resume", "--report", str(path))
    assert code == _common.EXIT_PENDING
    assert "2 already done" in text
    data = _sweep_data(path)
    assert data["runs"] == 5
    assert data["points"] == [["default", "1"], ["default", "2"], ["packing", "1"], ["packing", "2"],
                              [str(spec_dir / "missing.yaml"), "1"]]
    assert all(v is not None for v in data["values"]["placed"][:4])


@pytest.mark.parametrize(("argv", "needle"), [
    (("--report", "out.pdf"), "ending in .html"),
    (("--report", "no/such/dir/r.html"), "no such directory"),
])
def test_sweep_bad_report_fails_before_the_sweep(spec_dir: Path, tmp_path: Path, capsys, monkeypatch,
                                                 argv: tuple[str, ...], needle: str) -> None:
    """A bad ``--report``: one line naming it, exit 2, nothing run or written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("schedframe.cli.sweep.sweep", lambda *a, **k: pytest.fail("swept"))
    code, text = _run("sweep", str(spec_dir / "spec.yaml"), "--plain", *argv)
    assert code == _common.EXIT_INPUT
    assert text == ""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("schedframe sweep: error: --report")
    assert needle in err[0]
    assert not list(tmp_path.iterdir())


def test_sweep_report_of_no_run_is_an_error() -> None:
    """A page of nothing: an error, not an empty page."""
    from schedframe.sim.report import ReportError, build_sweep_report

    with pytest.raises(ReportError, match="no runs"):
        build_sweep_report([], params=["seed"])
