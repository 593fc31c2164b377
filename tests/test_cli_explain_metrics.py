"""``explain --load-metrics``: a Trimaran profile explains with the node metrics given with the
cluster, as ``simulate --load-metrics`` runs it, instead of all-zero scores."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from schedframe.cli import _common
from schedframe.cli.main import main

NODES = ("cool", "warm", "hot")
CLUSTER = "apiVersion: v1\nkind: List\nitems:\n" + "".join(
    f"- {{apiVersion: v1, kind: Node, metadata: {{name: {n}}}, status: {{capacity: "
    f"{{cpu: '4', memory: 16Gi, pods: '110'}}, allocatable: {{cpu: '4', memory: 16Gi, pods: '110'}}}}}}\n"
    for n in NODES
)
POD = textwrap.dedent("""\
    apiVersion: v1
    kind: Pod
    metadata: {name: p, namespace: default}
    spec:
      containers: [{name: c, image: x, resources: {requests: {cpu: 200m}}}]
    """)
METRICS = {"window": {"start": 0, "end": 0}, "data": {"NodeMetricsMap": {
    n: {"metrics": [{"type": "CPU", "operator": "AVG", "value": v}]}
    for n, v in zip(NODES, (10, 30, 80))}}}
#: TargetLoadPacking alone, with the published configuration's Prometheus provider.
TRIMARAN = textwrap.dedent("""\
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: default-scheduler
      plugins:
        score:
          disabled: [{name: "*"}]
          enabled: [{name: TargetLoadPacking}]
      pluginConfig:
      - name: TargetLoadPacking
        args:
          defaultRequestsMultiplier: "1"
          metricProvider: {type: Prometheus, address: "http://prometheus:9090"}
    """)


@pytest.fixture
def files(tmp_path: Path) -> dict[str, str]:
    paths = {}
    for name, text in (("cluster.yaml", CLUSTER), ("pod.yaml", POD), ("trimaran.yaml", TRIMARAN),
                       ("metrics.json", json.dumps(METRICS))):
        (tmp_path / name).write_text(text)
        paths[name.split(".")[0]] = str(tmp_path / name)
    return paths


def _explain(files: dict[str, str], *extra: str) -> tuple[int, dict[str, object]]:
    out = io.StringIO()
    code = main(["explain", files["pod"], "--cluster", files["cluster"], "--config", files["trimaran"],
                 "--json", *extra], stdout=out)
    return code, json.loads(out.getvalue()) if code == 0 else {}


def _scores(data: dict[str, object]) -> dict[str, int]:
    return {ns["node"]: ns["scores"][0]["raw"] for ns in data["scores"]}  # type: ignore[attr-defined]


def test_explain_reads_the_load_metrics_given(files: dict[str, str]) -> None:
    """With --load-metrics TargetLoadPacking scores 200m more on 10/30/80 % CPU as upstream
    (63, 93, 10) and picks the warm node; the Prometheus provider is replaced with a warning."""
    with pytest.warns(UserWarning, match="TargetLoadPacking: .*Prometheus.*load-metrics"):
        code, data = _explain(files, "--load-metrics", files["metrics"])
    assert code == _common.EXIT_OK
    assert _scores(data) == {"cool": 63, "warm": 93, "hot": 10}
    assert data["selected_node"] == "warm"


def test_without_load_metrics_every_node_scores_zero(files: dict[str, str]) -> None:
    """The trap: without metrics a Trimaran profile explains as all-zero scores."""
    with pytest.warns(UserWarning, match="TargetLoadPacking"):
        code, data = _explain(files)
    assert code == _common.EXIT_OK
    assert set(_scores(data).values()) == {0}


@pytest.mark.parametrize(("content", "needle"), [
    pytest.param(None, "m.json", id="missing"),
    pytest.param('{"window": {"start": 0, "end": 0}, "data": {"NodeMetricsMap": {"cool": 3}}}',
                 "NodeMetricsMap", id="malformed"),
])
def test_a_bad_metrics_file_is_one_line_and_exit_2(
    files: dict[str, str], tmp_path: Path, content: str | None, needle: str,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A metrics file that cannot be read is exit 2 with one line naming it and --load-metrics."""
    path = tmp_path / "m.json"
    if content is not None:
        path.write_text(content)
    code, _ = _explain(files, "--load-metrics", str(path))
    assert code == _common.EXIT_INPUT
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1
    assert err[0].startswith("schedframe explain: error: ")
    for part in ("m.json", "(--load-metrics)", needle):
        assert part in err[0]
