"""The simulator's decision tables (``simulate(..., decisions=...)``, ``--decisions``): one row
per attempt that agrees with the run's own outcome, per-node filter verdicts that agree with
it, lossless files, dataframes, and bounded, escaped HTML for notebooks."""

from __future__ import annotations

import io
import pickle
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from schedframe import _html, explain
from schedframe.cli import _common
from schedframe.cli.main import main
from schedframe.sim import (
    DECISION_COLUMNS,
    VERDICT_COLUMNS,
    DecisionsError,
    DecisionTable,
    MissingPackageError,
    RecordDecisions,
    Scenario,
    builtin_scenario,
    simulate,
)
from schedframe.testing import make_node, make_pod

#: A small run with pods that never fit (so unschedulable rows and reasons exist), ties and a
#: node selector (Filter rejections by NodeAffinity).
SCENARIO = """
name: decisions
nodes:
- count: 4
  name: "n{i}"
  zones: [a, b]
  template:
    status: {allocatable: {cpu: "4", memory: 8Gi, pods: "110"}}
workloads:
- name: web
  replicas: 6
  arrival: {at: 0, every: 1}
  duration: 30
  template:
    spec:
      containers: [{name: c, resources: {requests: {cpu: "1", memory: 1Gi}}}]
- name: zonal
  replicas: 2
  arrival: {at: 2, every: 1}
  template:
    spec:
      nodeSelector: {topology.kubernetes.io/zone: b}
      containers: [{name: c, resources: {requests: {cpu: "1"}}}]
- name: huge
  replicas: 1
  arrival: {at: 3}
  template:
    spec:
      containers: [{name: c, resources: {requests: {cpu: "64"}}}]
"""


@pytest.fixture(scope="module")
def recorded():
    return simulate(Scenario.from_text(SCENARIO), decisions=RecordDecisions(top_k=3, filter_verdicts=True))


def test_recording_changes_nothing_the_run_decides() -> None:
    """A run that records its decisions equals the same run without (placements, attempts,
    metrics), on scenarios with preemption and gangs too."""
    for name in ("three-zones", "drain-preemption", "gang"):
        s = builtin_scenario(name)
        plain = simulate(s, seed=1)
        with_rows = simulate(s, seed=1, decisions=RecordDecisions(top_k=5, filter_verdicts=True))
        assert with_rows == plain, name
        assert with_rows.placements() == plain.placements()
        assert len(with_rows.decisions()) == plain.metrics.attempts


def test_one_row_per_attempt_with_the_pods_own_numbers(recorded) -> None:
    """Rows number each pod's attempts 1..n (n = its PodResult.attempts), in time order, and
    ``wait`` is the time since the pod's arrival."""
    by_pod: dict[str, list[dict]] = defaultdict(list)
    for row in recorded.decisions():
        by_pod[row["pod"]].append(row)
    attempted = {p.key: p for p in recorded.pods if p.attempts}
    assert set(by_pod) == set(attempted)
    for key, rows in by_pod.items():
        pod = attempted[key]
        assert [r["attempt"] for r in rows] == list(range(1, pod.attempts + 1))
        assert [r["time"] for r in rows] == sorted(r["time"] for r in rows)
        assert all(r["wait"] == pytest.approx(r["time"] - pod.arrival) for r in rows)
        assert all(r["workload"] == pod.workload for r in rows)


def test_scheduled_rows_are_the_bound_pods_on_their_nodes(recorded) -> None:
    """The scheduled rows are exactly the pods the run bound, each with the node it was bound
    to, which is also its top1 node."""
    table = recorded.decisions()
    scheduled = {r["pod"]: r for r in table if r["outcome"] == "scheduled"}
    bound = {p.key: p for p in recorded.pods if p.bound_at is not None}
    assert set(scheduled) == set(bound)
    for key, row in scheduled.items():
        assert row["node"] == bound[key].node
        assert row["top1_node"] == row["node"]
        assert row["time"] == bound[key].bound_at
        assert row["message"] == ""


def test_failed_rows_carry_the_pending_message(recorded) -> None:
    """A pod pending at the end: its last row is unschedulable with the run's own message, no
    node and no top nodes."""
    pending = recorded.pending()
    assert pending  # the huge pod fits nowhere
    last = {r["pod"]: r for r in recorded.decisions()}
    for p in pending:
        row = last[p.key]
        assert row["outcome"] == "unschedulable"
        assert row["node"] == ""
        assert row["top1_node"] == ""
        assert row["message"] == p.message
        assert row["feasible"] == 0


def test_top_nodes_are_ranked_and_their_plugin_scores_add_up(recorded) -> None:
    """top1 >= top2 >= top3 by total, and each top node's total is the sum of its plugins'
    weighted scores (a plugin skipped at PreScore is empty)."""
    table = recorded.decisions()
    plugins = [c[len("top1_"):] for c in table.columns if c.startswith("top1_") and c not in
               ("top1_node", "top1_total")]
    assert "NodeResourcesFit" in plugins
    checked = 0
    for row in table:
        totals = [row[f"top{i}_total"] for i in (1, 2, 3) if row[f"top{i}_node"]]
        assert totals == sorted(totals, reverse=True)
        for i in range(1, len(totals) + 1):
            scores = [row[f"top{i}_{p}"] for p in plugins]
            assert row[f"top{i}_total"] == sum(s for s in scores if s is not None)
            checked += 1
        assert len(totals) == min(3, row["feasible"] or 0) or row["feasible"] == 1
    assert checked


def test_top_k_is_the_number_of_node_columns() -> None:
    """``top_k`` sets how many top-node column groups there are."""
    r = simulate(Scenario.from_text(SCENARIO), decisions=RecordDecisions(top_k=1))
    cols = r.decisions().columns
    assert "top1_node" in cols
    assert "top2_node" not in cols
    assert cols[: len(DECISION_COLUMNS)] == tuple(c for c, _ in DECISION_COLUMNS)


def test_filter_verdicts_agree_with_the_decisions(recorded) -> None:
    """Per attempt: as many passing verdict rows as the decisions row's feasible count, one row
    per evaluated node, and each rejection names its plugin and reason."""
    verdicts = recorded.filter_verdicts()
    assert verdicts.columns == tuple(c for c, _ in VERDICT_COLUMNS)
    per_attempt: dict[tuple[str, int], list[dict]] = defaultdict(list)
    for v in verdicts:
        per_attempt[(v["pod"], v["attempt"])].append(v)
    for row in recorded.decisions():
        rows = per_attempt[(row["pod"], row["attempt"])]
        assert sum(v["passed"] for v in rows) == row["feasible"]
        assert len({v["node"] for v in rows}) == len(rows) <= row["num_nodes"]
        for v in rows:
            if not v["passed"]:
                assert v["plugin"]
                assert v["reason"]
                assert v["code"] != "Success"
    zonal = [v for v in verdicts if v["pod"].startswith("default/zonal") and not v["passed"]]
    assert zonal
    assert {v["plugin"] for v in zonal} >= {"NodeAffinity"}


def test_a_pre_filter_result_is_one_row_for_the_nodes_left_out() -> None:
    """A pod pinned by its node affinity to one node (NodeAffinity's PreFilterResult): one
    Filter row for that node and one PreFilter row standing for the others."""
    pod = {"spec": {"affinity": {"nodeAffinity": {
        "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["n2"]}]}]}}},
        "containers": [{"name": "c"}]}}
    s = Scenario.from_dict({"name": "pin", "nodes": [{"count": 3, "name": "n{i}", "template": {
        "status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"}}}}],
        "workloads": [{"name": "pinned", "replicas": 1, "template": pod}]})
    r = simulate(s, decisions=RecordDecisions(filter_verdicts=True))
    rows = r.filter_verdicts().to_dicts()
    assert [(v["node"], v["stage"], v["passed"]) for v in rows] == [("n2", "Filter", True),
                                                                     ("", "PreFilter", False)]
    assert "NodeAffinity" in rows[1]["reason"]
    assert r.decisions().column("node") == [r.placements()["default/pinned-0"]]


def test_binding_failures_mark_the_attempt(monkeypatch) -> None:
    """A gang member whose Permit wait ends in rejection: its scheduled attempt becomes
    ``binding-failed`` with the reason, and no binding-failed pod counts as bound then."""
    r = simulate(builtin_scenario("gang"), decisions=True)
    table = r.decisions()
    outcomes = set(table.column("outcome"))
    assert outcomes <= {"scheduled", "unschedulable", "error", "binding-failed"}
    last_scheduled = {}
    for row in table:
        if row["outcome"] == "scheduled":
            last_scheduled[row["pod"]] = row["node"]
        if row["outcome"] == "binding-failed":
            assert row["node"]
            assert row["message"]
    assert {k: v for k, v in r.placements().items() if not r.pod(k).initial} == last_scheduled


def test_not_recorded_is_a_clear_error() -> None:
    """Asking a run that did not record: a DecisionsError saying how to record."""
    r = simulate(Scenario.from_text(SCENARIO))
    with pytest.raises(DecisionsError, match="decisions=True"):
        r.decisions()
    with pytest.raises(DecisionsError, match="filter_verdicts=True"):
        simulate(Scenario.from_text(SCENARIO), decisions=True).filter_verdicts()


@pytest.mark.parametrize("bad", [0, 51, True, "3"])
def test_top_k_is_checked(bad) -> None:
    """top_k out of range or not an integer: a DecisionsError naming the field."""
    with pytest.raises(DecisionsError, match="top_k"):
        RecordDecisions(top_k=bad)


def test_decisions_argument_is_checked() -> None:
    """``decisions=`` other than a bool or RecordDecisions is refused before the run."""
    with pytest.raises(DecisionsError, match="RecordDecisions"):
        simulate(Scenario.from_text(SCENARIO), decisions="yes")  # type: ignore[arg-type]


# -- files -------------------------------------------------------------------------------------

@pytest.mark.parametrize("suffix", [".csv", ".jsonl", ".parquet"])
def test_files_round_trip(recorded, tmp_path: Path, suffix: str) -> None:
    """Writing then reading either table gives back the same columns, types and rows."""
    if suffix == ".parquet":
        pytest.importorskip("pyarrow")
    for table in (recorded.decisions(), recorded.filter_verdicts()):
        path = tmp_path / f"t{suffix}"
        table.write(path)
        back = DecisionTable.read(path)
        assert back == table
        assert back.to_dicts() == table.to_dicts()


def test_parquet_holds_typed_columns(recorded, tmp_path: Path) -> None:
    """The Parquet file read by pyarrow itself has the documented types and the same rows."""
    pq = pytest.importorskip("pyarrow.parquet")
    table = recorded.decisions()
    path = tmp_path / "d.parquet"
    table.write(path)
    arrow = pq.read_table(path)
    assert arrow.to_pylist() == table.to_dicts()
    assert str(arrow.schema.field("attempt").type) == "int64"
    assert str(arrow.schema.field("top1_total").type) == "int64"
    assert str(arrow.schema.field("wait").type) == "double"


def test_unknown_suffix_names_the_supported_ones(recorded, tmp_path: Path) -> None:
    """``.xlsx``: a DecisionsError naming the suffixes, and no file."""
    with pytest.raises(DecisionsError, match=r"\.parquet, \.csv, \.jsonl"):
        recorded.decisions().write(tmp_path / "out.xlsx")
    assert not list(tmp_path.iterdir())


def test_a_malformed_csv_names_the_line(tmp_path: Path) -> None:
    """Reading a CSV whose integer column holds text names the file, line and column."""
    path = tmp_path / "d.csv"
    path.write_text("pod,attempt\ndefault/a,1\ndefault/b,two\n")
    with pytest.raises(DecisionsError, match=r"d\.csv:3\.attempt"):
        DecisionTable.read(path)


# -- dataframes ----------------------------------------------------------------------------------

def test_to_pandas(recorded) -> None:
    """A pandas frame with every row and nullable integer columns."""
    pytest.importorskip("pandas")
    table = recorded.decisions()
    df = table.to_pandas()
    assert list(df.columns) == list(table.columns)
    assert len(df) == len(table)
    assert str(df["attempt"].dtype) == "Int64"
    assert df["pod"].tolist() == table.column("pod")


def test_to_polars(recorded) -> None:
    """A polars frame with every row and the columns' types."""
    pl = pytest.importorskip("polars")
    table = recorded.filter_verdicts()
    df = table.to_polars()
    assert df.columns == list(table.columns)
    assert df.height == len(table)
    assert df.schema["passed"] == pl.Boolean
    assert df["node"].to_list() == table.column("node")


@pytest.mark.parametrize(("method", "package"), [("to_arrow", "pyarrow"), ("to_pandas", "pandas"),
                                                 ("to_polars", "polars")])
def test_a_missing_package_is_named(recorded, monkeypatch, method: str, package: str) -> None:
    """Without the package: MissingPackageError (an ImportError) naming it."""
    monkeypatch.setitem(sys.modules, package, None)
    with pytest.raises(MissingPackageError, match=package):
        getattr(recorded.decisions(), method)()
    assert issubclass(MissingPackageError, ImportError)


def test_results_with_tables_pickle(recorded) -> None:
    """A result holding its tables pickles (sweeps send results between processes)."""
    back = pickle.loads(pickle.dumps(recorded))
    assert back.decisions() == recorded.decisions()
    assert back.filter_verdicts() == recorded.filter_verdicts()


# -- notebooks ------------------------------------------------------------------------------------

def test_html_is_escaped_and_bounded() -> None:
    """A table's HTML escapes its cells and shows at most MAX_ROWS rows, saying how many more."""
    rows = [["<script>alert(1)</script>", i] for i in range(100)]
    text = DecisionTable("decisions", ["pod", "attempt"], ["string", "int64"], rows)._repr_html_()
    assert "<script>" not in text
    assert "&lt;script&gt;" in text
    assert text.count("<tr>") == _html.MAX_ROWS + 1
    assert f"{100 - _html.MAX_ROWS} more row(s)" in text


def test_sim_result_html(recorded) -> None:
    """A result's HTML names the scenario and the pending pods, and shows its decisions."""
    text = recorded._repr_html_()
    assert recorded.scenario in text
    assert recorded.pending()[0].key in text
    assert "decisions:" in text
    assert len(text) < 200_000


def test_explanation_html_is_bounded() -> None:
    """An explanation of 60 nodes shows the selected node and at most MAX_ROWS rows a table."""
    nodes = [make_node(f"node-{i}").capacity(cpu="4", memory="8Gi", pods=110).obj() for i in range(60)]
    e = explain(make_pod("p").req(cpu="1").obj(), nodes=nodes)
    text = e._repr_html_()
    assert e.selected_node is not None
    assert e.selected_node in text
    assert text.count("<tr>") <= 2 * (_html.MAX_ROWS + 1)
    assert "more row(s) not shown" in text


# -- the command line -------------------------------------------------------------------------------

def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


def test_cli_writes_one_file_per_config(tmp_path: Path) -> None:
    """``simulate --decisions D.csv --filter-verdicts V.jsonl``: one file each per configuration
    of the built-in scenario, rows equal to the API's."""
    code, text = _run("simulate", "--plain", "--decisions", str(tmp_path / "d.csv"),
                      "--decisions-top", "2", "--filter-verdicts", str(tmp_path / "v.jsonl"))
    assert code == 0
    configs = [c.name for c in builtin_scenario().configs]
    for name in configs:
        table = DecisionTable.read(tmp_path / f"d.{name}.csv")
        assert "top2_node" in table.columns
        assert "top3_node" not in table.columns
        assert f"written to {tmp_path / f'd.{name}.csv'}" in text
        assert len(DecisionTable.read(tmp_path / f"v.{name}.jsonl")) > len(table)
    api = simulate(builtin_scenario(), configs[0], decisions=RecordDecisions(top_k=2))
    assert DecisionTable.read(tmp_path / f"d.{configs[0]}.csv") == api.decisions()


@pytest.mark.parametrize(("argv", "needle"), [
    (("--decisions", "out.xlsx"), ".parquet, .csv, .jsonl"),
    (("--filter-verdicts", "out"), "(none)"),
    (("--decisions-top", "2"), "needs --decisions"),
    (("--decisions", "d.csv", "--decisions-top", "0"), "top_k"),
    (("--decisions", "no/such/dir/d.csv"), "no such directory"),
])
def test_cli_bad_decisions_options_fail_before_the_run(tmp_path: Path, capsys, monkeypatch,
                                                       argv: tuple[str, ...], needle: str) -> None:
    """A bad decisions option: one line naming it, exit 2, nothing simulated or written."""
    monkeypatch.chdir(tmp_path)
    code, text = _run("simulate", "--plain", *argv)
    assert code == 2
    assert text == ""
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert needle in err[0]
    assert not list(tmp_path.iterdir())


def test_cli_writes_the_files_even_when_the_reader_goes_away(tmp_path: Path) -> None:
    """``simulate --decisions F | head``: exit 141, and F written in full all the same."""

    class Closed(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    code = main(["simulate", "batch-burst", "--plain", "--decisions", str(tmp_path / "d.jsonl")],
                stdout=Closed())
    assert code == _common.EXIT_BROKEN_PIPE
    scenario = builtin_scenario("batch-burst")
    for spec in scenario.configs:
        table = DecisionTable.read(tmp_path / f"d.{spec.name}.jsonl")
        assert len(table) == simulate(scenario, spec.name).metrics.attempts


def test_cli_lines_fit_80_columns(tmp_path: Path, monkeypatch) -> None:
    """The lines ``--decisions`` adds fit in 80 columns (with a short path)."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("COLUMNS", "80")
    code, text = _run("simulate", "batch-burst", "--plain", "--decisions", "d.csv")
    assert code == 0
    lines = [ln for ln in text.splitlines() if "written to" in ln]
    assert lines
    assert all(len(ln) <= 80 for ln in lines)


def test_replay_records_decisions_too(tmp_path: Path) -> None:
    """``replay LOG --decisions F``: the replayed run's decisions, equal to the logged run's."""
    name = builtin_scenario("batch-burst").configs[0].name
    assert _run("simulate", "batch-burst", "--plain", "--log", str(tmp_path / "run.jsonl"),
                "--decisions", str(tmp_path / "a.csv"))[0] == 0
    log = tmp_path / f"run.{name}.jsonl"  # one log and one table per configuration
    assert _run("replay", str(log), "--plain", "--decisions", str(tmp_path / "b.csv"))[0] == 0
    logged = DecisionTable.read(tmp_path / f"a.{name}.csv")
    replayed = DecisionTable.read(tmp_path / "b.csv")
    assert len(logged)
    assert logged.rows == replayed.rows
