"""The CLI's manners with a user's own files: every validation problem on its own line with its
field path, old configuration versions as one note in the CLI's words, empty files refused,
explain's tables readable at 80 columns, ``gpushare run --limit N`` meaning N tasks, and
progress on stderr only."""

from __future__ import annotations

import io
import json
import textwrap
from pathlib import Path

import pytest

from schedframe.cli import _common
from schedframe.cli.main import main

CONFIG_3_ERRORS = textwrap.dedent(
    """\
    apiVersion: kubescheduler.config.k8s.io/v1
    kind: KubeSchedulerConfiguration
    percentageOfNodesToScore: 150
    parallelism: -1
    profiles:
    - schedulerName: default-scheduler
      plugins:
        score:
          enabled:
          - name: NoSuchPlugin
    """
)

V1BETA3 = textwrap.dedent(
    """\
    apiVersion: kubescheduler.config.k8s.io/v1beta3
    kind: KubeSchedulerConfiguration
    profiles:
    - schedulerName: default-scheduler
    """
)


def _run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    return main(list(argv), stdout=out), out.getvalue()


def test_each_configuration_error_is_on_its_own_line_with_its_path(tmp_path: Path, capsys) -> None:
    path = tmp_path / "bad.yaml"
    path.write_text(CONFIG_3_ERRORS)
    code, _ = _run("config", "validate", str(path))
    assert code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 4, lines
    assert lines[0].startswith("schedframe config: error: ")
    assert "bad.yaml" in lines[0]
    assert lines[0].endswith("invalid KubeSchedulerConfiguration: 3 problems")
    assert [line.split(":")[0].strip() for line in lines[1:]] == [
        "parallelism", "percentageOfNodesToScore", "profiles[0].plugins.score.enabled[0]"]
    assert all(line.startswith("  ") for line in lines[1:])
    assert "NoSuchPlugin" in lines[3]


def test_a_single_problem_stays_on_one_line(tmp_path: Path, capsys) -> None:
    path = tmp_path / "one.yaml"
    path.write_text(CONFIG_3_ERRORS.replace("parallelism: -1\n", "").replace("150", "50")
                    .replace("NoSuchPlugin", "ImageLocality").replace("score", "filter", 1))
    code, _ = _run("config", "validate", str(path))
    assert code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("schedframe config: error: ")


def test_plugin_args_errors_are_listed_one_per_line(tmp_path: Path, capsys) -> None:
    """pluginConfig args problems (PluginArgsError's list, inside the configuration's) too."""
    path = tmp_path / "args.yaml"
    path.write_text(textwrap.dedent(
        """\
        apiVersion: kubescheduler.config.k8s.io/v1
        kind: KubeSchedulerConfiguration
        profiles:
        - schedulerName: default-scheduler
          pluginConfig:
          - name: NodeResourcesFit
            args:
              ignoredResources: [1, 2]
        """))
    code, _ = _run("config", "validate", str(path))
    assert code == 2
    lines = capsys.readouterr().err.splitlines()
    assert len(lines) == 3, lines
    assert lines[1].strip().startswith("profiles[0].pluginConfig[0].args.ignoredResources[0]")
    assert lines[2].strip().startswith("profiles[0].pluginConfig[0].args.ignoredResources[1]")


def test_an_old_configuration_version_is_one_note_on_stderr(tmp_path: Path, capsys) -> None:
    path = tmp_path / "old.yaml"
    path.write_text(V1BETA3)
    with _no_warning_escapes():
        code, out = _run("config", "validate", str(path))
    assert code == 0
    assert "valid" in out
    err = capsys.readouterr().err
    assert err.splitlines() == [
        f"schedframe config: note: {path} is kubescheduler.config.k8s.io/v1beta3, converted to v1; "
        f"run `schedframe config convert {path}` to update it"
    ]
    assert "Warning" not in err
    assert "SchedulerConfiguration" not in err


def test_config_notes_names_the_running_command_and_leaves_other_warnings(capsys) -> None:
    """The helper simulate uses around its own configuration reading."""
    import warnings

    from schedframe import SchedulerConfiguration

    with _common.config_notes(within="scenario.yaml"):
        SchedulerConfiguration.from_yaml(V1BETA3)
    assert capsys.readouterr().err.startswith(
        "schedframe: note: a configuration in scenario.yaml is kubescheduler.config.k8s.io/v1beta3")
    with pytest.warns(UserWarning, match="other"), _common.config_notes("x.yaml"):
        warnings.warn("other", UserWarning, stacklevel=1)


def test_config_validate_refuses_an_empty_file(tmp_path: Path, capsys) -> None:
    for text in ("", "\n  \n"):
        path = tmp_path / "empty.yaml"
        path.write_text(text)
        code, out = _run("config", "validate", str(path))
        assert code == 2
        assert out == ""
        (line,) = capsys.readouterr().err.splitlines()
        assert line.startswith("schedframe config: error: ")
        assert "empty.yaml" in line


# --- explain at 80 and 120 columns ---------------------------------------------------------------

LONG_NODES = [f"ip-10-0-{i}-17.eu-west-1{'abca'[i]}.compute.internal" for i in range(4)]


def _explanation() -> object:
    pytest.importorskip("rich")
    from schedframe import Node, Pod
    from schedframe.scheduler.explain import explain

    nodes = []
    for i, name in enumerate(LONG_NODES):
        cpu = str(2 + 2 * i)
        nodes.append(Node.from_manifest({
            "apiVersion": "v1", "kind": "Node", "metadata": {"name": name},
            "spec": {"taints": [{"key": "dedicated", "value": "gpu", "effect": "NoSchedule"}]}
            if i == 3 else {},
            "status": {"allocatable": {"cpu": cpu, "memory": "8Gi", "pods": "110"},
                       "capacity": {"cpu": cpu, "memory": "8Gi", "pods": "110"}},
        }))
    pod = Pod.from_manifest({
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "web", "namespace": "default"},
        "spec": {"containers": [{"name": "c", "image": "x", "resources": {"requests": {"cpu": "3"}}}]},
    })
    return explain(pod, objects=nodes)


@pytest.mark.parametrize("width", [80, 120])
def test_explain_tables_show_every_node_name_in_full(width: int) -> None:
    pytest.importorskip("rich", reason="rich is in the cli extra")
    from rich.console import Console

    from schedframe.cli.explain import render_rich, why_not

    e = _explanation()
    console = Console(width=width, file=io.StringIO(), highlight=False, color_system=None)
    render_rich(e, why_not(e), console)
    text = console.file.getvalue()  # type: ignore[attr-defined]
    assert max(len(line) for line in text.splitlines()) <= width
    for title in ("Filter", "Score", "Why not the others"):
        section = text.split(title, 1)[1]
        table = section.split("└", 1)[0]
        shown = {n for n in LONG_NODES if n in table}
        expected = set(LONG_NODES) if title == "Filter" else (
            {n for n in LONG_NODES if n in ("ip-10-0-1-17.eu-west-1b.compute.internal",
                                            "ip-10-0-2-17.eu-west-1c.compute.internal")}
            if title == "Score" else set(LONG_NODES) - {"ip-10-0-2-17.eu-west-1c.compute.internal"})
        assert shown == expected, (title, text)
    assert "…" not in text
    assert "NRF" in text  # abbreviated, with the legend
    assert "NRF=NodeResourcesFit" in text


def test_explain_keeps_full_plugin_names_when_they_fit() -> None:
    pytest.importorskip("rich", reason="rich is in the cli extra")
    from rich.console import Console

    from schedframe.cli.explain import render_rich, why_not

    e = _explanation()
    console = Console(width=400, file=io.StringIO(), highlight=False, color_system=None)
    render_rich(e, why_not(e), console)
    header = next(line for line in console.file.getvalue().splitlines() if "NODE" in line)  # type: ignore[attr-defined]
    assert "NodeResourcesFit" in header
    assert "TaintToleration" in header


# --- gpushare run --limit -------------------------------------------------------------------------


def test_gpushare_run_limit_means_n_tasks(openb: Path, capsys) -> None:
    """--limit 300 schedules 300 tasks, not the 10,000 the tuning adds to the first 300."""
    code = main(["gpushare", "run", "--nodes", str(openb / "openb_node_list_gpu_node.csv"),
                 "--pods", str(openb / "openb_pod_list_default.csv"), "--policy", "BestFit",
                 "--limit", "300", "--json"])
    assert code == 0
    result = json.loads(capsys.readouterr().out)
    assert result["tasks"] == 300
    assert result["scheduled"] + result["failed"] == 300
    code = main(["gpushare", "run", "--nodes", str(openb / "openb_node_list_gpu_node.csv"),
                 "--pods", str(openb / "openb_pod_list_default.csv"), "--policy", "BestFit",
                 "--limit", "0"])
    assert code == 2
    assert "limit" in capsys.readouterr().err


@pytest.fixture
def openb() -> Path:
    """The openb trace, where tests/gpushare's fixture finds it; skips when absent."""
    import os

    env = os.environ.get("SCHEDFRAME_OPENB")
    path = Path(env) if env else Path(__file__).resolve().parents[1].parent / "shared" / "openb"
    if not (path / "openb_node_list_gpu_node.csv").is_file():
        pytest.skip(f"openb trace not found at {path} (set SCHEDFRAME_OPENB to its directory)")
    return path


# --- progress on stderr only ------------------------------------------------------------------------


def test_status_shows_nothing_when_stderr_is_not_a_terminal(capsys) -> None:
    with _common.status(None, "reading something…"):
        pass
    assert capsys.readouterr() == ("", "")


def test_status_uses_rich_on_a_terminal(monkeypatch) -> None:
    pytest.importorskip("rich")
    import rich.console

    seen: list[str] = []

    class FakeStatus:
        def __init__(self, message: str) -> None:
            seen.append(message)

        def __enter__(self) -> FakeStatus:
            return self

        def __exit__(self, *exc: object) -> None:
            seen.append("stopped")

    monkeypatch.setattr(_common, "_stderr_is_terminal", lambda: True)
    monkeypatch.setattr(rich.console.Console, "status", lambda self, message: FakeStatus(message))
    with _common.status(None, "reading dump.yaml (50.0 MB)…"):
        assert seen == ["reading dump.yaml (50.0 MB)…"]
    assert seen[-1] == "stopped"
    from schedframe.cli._output import Out

    seen.clear()
    with _common.status(Out(io.StringIO(), plain=True), "plain: nothing"):
        pass
    assert seen == []


def test_explain_says_what_it_reads_on_a_terminal(tmp_path: Path, monkeypatch, capsys) -> None:
    """load_cluster and explain open a status with the file and its size."""
    from contextlib import contextmanager

    import schedframe.cli.explain as explain_cmd

    messages: list[str] = []

    @contextmanager
    def fake_status(out: object, message: str):  # type: ignore[no-untyped-def]
        messages.append(message)
        yield

    monkeypatch.setattr(_common, "status", fake_status)
    monkeypatch.setattr(explain_cmd, "status", fake_status)
    pod = tmp_path / "pod.yaml"
    pod.write_text("apiVersion: v1\nkind: Pod\nmetadata: {name: web}\n"
                   "spec: {containers: [{name: c, image: x}]}\n")
    cluster = Path(__file__).parent / "data" / "cluster.yaml"
    code, _ = _run("explain", str(pod), "--cluster", str(cluster))
    assert code == 0
    assert capsys.readouterr().err == ""
    reading = [m for m in messages if m.startswith(f"reading {cluster} (")]
    assert reading, messages
    assert reading[0].endswith("KB)…")
    assert any(m.startswith("explaining default/web") for m in messages), messages


class _no_warning_escapes:
    """No Python warning reaches the user (the CLI says it in its own words)."""

    def __enter__(self) -> None:
        import warnings

        self._cm = warnings.catch_warnings(record=True)
        self._caught = self._cm.__enter__()
        warnings.simplefilter("always")

    def __exit__(self, *exc: object) -> None:
        self._cm.__exit__(*exc)
        assert not self._caught, [str(w.message) for w in self._caught]



_KEY_DUMP = """\
apiVersion: v1
kind: List
items:
- {apiVersion: v1, kind: Node, metadata: {name: n1},
   status: {allocatable: {cpu: "2", memory: 4Gi, pods: "10"}}}
- {apiVersion: v1, kind: Pod, metadata: {name: waiting, namespace: team},
   spec: {containers: [{name: c, image: x, resources: {requests: {cpu: "1"}}}]}}
- {apiVersion: v1, kind: Pod, metadata: {name: running, namespace: team},
   spec: {nodeName: n1, containers: [{name: c, image: x, resources: {requests: {cpu: "1500m"}}}]}}
"""


def test_explain_takes_the_key_of_a_pending_pod_of_the_dump(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``explain NS/NAME --cluster dump`` explains that pending pod against the rest of the dump;
    a bound pod or an unknown key is one line and exit 2."""
    pytest.importorskip("yaml")
    dump = tmp_path / "dump.yaml"
    dump.write_text(_KEY_DUMP)
    out = io.StringIO()
    assert main(["explain", "team/waiting", "--cluster", str(dump), "--json"], stdout=out) == 0
    data = json.loads(out.getvalue())
    assert data["pod"]["name"] == "waiting"  # the dump's pod, not counted twice
    assert data["message"].startswith("0/1 nodes are available: 1 Insufficient cpu")
    for key, needle in (("team/running", "is bound to node n1"), ("team/nope", "no pod team/nope"),
                        ("Not_A_Key", "no such file")):
        assert main(["explain", key, "--cluster", str(dump)], stdout=io.StringIO()) == 2
        err = capsys.readouterr().err
        assert needle in err
        assert len(err.strip().splitlines()) == 1


def test_a_reader_that_goes_away_ends_the_command_quietly(capsys: pytest.CaptureFixture[str]) -> None:
    """``schedframe ... | head``: a broken pipe is exit 141 with nothing on stderr."""

    class Closed(io.StringIO):
        def write(self, s: str) -> int:
            raise BrokenPipeError(32, "Broken pipe")

    assert main(["plugins", "--plain"], stdout=Closed()) == _common.EXIT_BROKEN_PIPE
    assert capsys.readouterr().err == ""
