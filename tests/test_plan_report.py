"""``schedframe plan --report`` and :func:`schedframe.plan.plan_runs`: the cluster as it is and
with the plan done, side by side in the simulation report."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

from schedframe.api.manifests import object_from_manifest
from schedframe.cli import _common
from schedframe.cli.main import main
from schedframe.plan import (
    AS_IS,
    EXAMPLE_CONFIG,
    PLANNED,
    example_cluster,
    example_templates,
    plan,
    plan_runs,
    templates_from_data,
    write_plan_report,
)
from schedframe.sim.report import ReportError


@pytest.fixture(scope="module")
def example() -> tuple[list[Any], Any]:
    cluster = [object_from_manifest(m) for m in example_cluster()]
    result = plan(cluster, templates_from_data(example_templates()), config=EXAMPLE_CONFIG,
                  scale_down=True)
    return cluster, result


def _data(path: Path) -> dict[str, Any]:
    m = re.search(r'<script type="application/json" id="report-data">(.*?)</script>',
                  path.read_text(encoding="utf-8"), re.S)
    assert m is not None
    data: dict[str, Any] = json.loads(m.group(1))
    return data


def test_plan_runs_are_the_cluster_and_the_plan_done(example: tuple[list[Any], Any]) -> None:
    """The first run has the cluster's nodes and leaves pending the pods the plan adds nodes
    for; the second has the new nodes and not the removed ones, places what the plan
    places, and leaves pending exactly what the plan leaves pending."""
    cluster, result = example
    as_is, planned = plan_runs(cluster, result, config=EXAMPLE_CONFIG)
    assert (as_is.config, planned.config) == (AS_IS, PLANNED)
    up, down = result.scale_up, result.scale_down
    assert up is not None
    assert down is not None
    names = {n.name for n in cluster if type(n).__name__ == "Node"}
    assert {n.node for n in as_is.nodes} == names
    assert {n.node for n in planned.nodes} == (names | set(up.new_nodes)) - set(down.removable)
    pending_before = {p.key for p in as_is.pods if not p.node}
    pending_after = {p.key for p in planned.pods if not p.node}
    # the pods the plan buys nodes for wait in the cluster as it is
    assert {k for k, n in up.placements.items() if n in up.new_nodes} <= pending_before
    assert pending_after == set(result.pending)
    on = {p.key: p.node for p in planned.pods if p.node}
    assert not set(on.values()) & set(down.removable)
    # where the plan's text says: the scale-up's placements, the scale-down's moves
    for key, node in up.placements.items():
        assert on[key] == down.moves.get(key, node)
    for key, node in down.moves.items():
        assert on[key] == node


def test_write_plan_report_holds_both_runs(example: tuple[list[Any], Any], tmp_path: Path) -> None:
    cluster, result = example
    path = tmp_path / "plan.html"
    size = write_plan_report(path, cluster, result, config=EXAMPLE_CONFIG, title="the example")
    assert size == path.stat().st_size
    data = _data(path)
    assert data["configs"] == [AS_IS, PLANNED]
    # the pending pod no template can hold is listed with its matrix in the planned run
    planned = data["pending"][PLANNED]
    assert [p["key"] for p in planned["pods"]] == list(result.pending)
    assert set(planned["matrices"]) == set(result.pending)


def test_write_plan_report_refuses_a_bad_path_before_simulating(example: tuple[list[Any], Any],
                                                               tmp_path: Path) -> None:
    cluster, result = example
    with pytest.raises(ReportError, match=r"ending in \.html"):
        write_plan_report(tmp_path / "plan.pdf", cluster, result, config=EXAMPLE_CONFIG)
    assert not list(tmp_path.iterdir())


def test_cli_plan_report_writes_the_page_and_says_so(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    buf = io.StringIO()
    code = main(["plan", "--plain", "--report", "plan.html"], stdout=buf)
    assert code == 0
    lines = buf.getvalue().splitlines()
    assert re.fullmatch(r"report \([\d,]+ bytes\) written to plan\.html", lines[0])
    assert lines[-1].startswith("verified")
    assert _data(tmp_path / "plan.html")["configs"] == [AS_IS, PLANNED]


def test_cli_plan_report_with_json_keeps_stdout_json(tmp_path: Path) -> None:
    buf = io.StringIO()
    out = tmp_path / "plan.html"
    assert main(["plan", "--json", "--report", str(out)], stdout=buf) == 0
    assert json.loads(buf.getvalue())["verified"] is True
    assert out.is_file()


@pytest.mark.parametrize(("report", "needle"), [
    ("out.pdf", "ending in .html"),
    ("no/such/dir/r.html", "no such directory"),
])
def test_cli_plan_bad_report_fails_before_planning(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch, report: str,
                                                   needle: str) -> None:
    """One line naming ``--report``, exit 2, nothing planned or written."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("schedframe.plan.plan", lambda *a, **k: pytest.fail("planned"))
    buf = io.StringIO()
    assert main(["plan", "--plain", "--report", report], stdout=buf) == _common.EXIT_INPUT
    assert buf.getvalue() == ""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("schedframe plan: error: --report")
    assert needle in err[0]
    assert not list(tmp_path.iterdir())
