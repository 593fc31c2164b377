"""schedframe.kube.import_cluster and ``schedframe import`` against the scripted fake API server:
paging, APIs not served or forbidden, objects schedframe cannot read, terminal pods, and a
snapshot the simulator reads back without adding pods."""

from __future__ import annotations

import io
import json
import pathlib
from collections.abc import Iterator
from contextlib import redirect_stderr
from typing import Any

import pytest

pytest.importorskip("kubernetes")


from schedframe import Node, Pod, load_manifests
from schedframe.api import ReplicaSet
from schedframe.cli.main import main
from schedframe.kube import IMPORT_RESOURCES, ClusterImport, KubeApiError, KubeError, import_cluster

from ._fakeapi import FakeApi, client_for, node, pod

NODES = "/api/v1/nodes"
PODS = "/api/v1/pods"
RS = "/apis/apps/v1/replicasets"
PCS = "/apis/scheduling.k8s.io/v1/priorityclasses"


@pytest.fixture
def api() -> Iterator[FakeApi]:
    fake = FakeApi().start()
    fake.add_collection(RS, "ReplicaSet")
    fake.add_collection(PCS, "PriorityClass")
    try:
        yield fake
    finally:
        fake.stop()


def _replica_set(name: str, replicas: int) -> dict[str, Any]:
    labels = {"app": name}
    return {"apiVersion": "apps/v1", "kind": "ReplicaSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"uid-rs-{name}"},
            "spec": {"replicas": replicas, "selector": {"matchLabels": labels},
                     "template": {"metadata": {"labels": labels, "creationTimestamp": None},
                                  "spec": {"containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}


def _owned(p: dict[str, Any], rs: str) -> dict[str, Any]:
    p["metadata"]["labels"] = {"app": rs}
    p["metadata"]["ownerReferences"] = [{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": rs,
                                         "uid": f"uid-rs-{rs}", "controller": True}]
    return p


def _fill(api: FakeApi) -> None:
    for i in range(7):
        api.put(NODES, node(f"n{i}"))
    api.put(RS, _replica_set("web", 3))
    api.put(PODS, _owned(pod("web-a", node_name="n0"), "web"))
    api.put(PODS, _owned(pod("web-b", node_name="n1"), "web"))
    api.put(PODS, pod("pending"))
    done = pod("done", node_name="n2")
    done["status"]["phase"] = "Succeeded"
    api.put(PODS, done)
    api.put(PCS, {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass",
                  "metadata": {"name": "high"}, "value": 1000})


def test_every_page_is_read_and_the_unserved_apis_are_reported(api: FakeApi) -> None:
    _fill(api)
    seen: list[tuple[str, int]] = []
    snap = import_cluster(client_for(api), page_size=3, progress=lambda plural, n: seen.append((plural, n)))
    assert isinstance(snap, ClusterImport)
    assert snap.counts == {"PriorityClass": 1, "Node": 7, "ReplicaSet": 1, "Pod": 4}
    assert [n for plural, n in seen if plural == "nodes"] == [3, 6, 7]
    node_lists = [q for m, path, q, _ in api.requests if path == NODES]
    assert [q.get("continue") for q in node_lists] == [None, ["3"], ["6"]]
    assert all(q["limit"] == ["3"] for q in node_lists)
    served = {NODES, PODS, RS, PCS}
    absent = {r.path for r in IMPORT_RESOURCES} - served
    assert len(snap.unavailable) == len(absent)
    assert any(line.startswith("deployments (apps/v1): not served") for line in snap.unavailable)
    assert snap.skipped == ()
    # kinds in IMPORT_RESOURCES order: what pods refer to comes first
    kinds = [type(o).__name__ for o in snap.objects]
    assert kinds == ["PriorityClass"] + ["Node"] * 7 + ["ReplicaSet"] + ["Pod"] * 4


def test_the_snapshot_loads_back_and_expansion_adds_only_the_missing_replica(api: FakeApi) -> None:
    _fill(api)
    snap = import_cluster(client_for(api))
    objects = load_manifests(snap.dump("json"))
    pods = [o for o in objects if isinstance(o, Pod)]
    # the ReplicaSet wants 3 and owns 2 active pods: the simulator adds one, nothing else
    assert len(pods) == 5
    created = [p for p in pods if p.name not in ("web-a", "web-b", "pending", "done")]
    assert len(created) == 1
    assert created[0].name.startswith("web-")
    bound = {p.name: p.node_name for p in pods if p.node_name}
    assert bound == {"web-a": "n0", "web-b": "n1", "done": "n2"}
    assert sum(isinstance(o, Node) for o in objects) == 7
    assert sum(isinstance(o, ReplicaSet) for o in objects) == 1


def test_terminal_pods_can_be_left_out(api: FakeApi) -> None:
    _fill(api)
    snap = import_cluster(client_for(api), terminal_pods=False)
    assert sorted(p.name for p in snap.objects if isinstance(p, Pod)) == ["pending", "web-a", "web-b"]


def test_an_unreadable_object_is_skipped_with_its_field_path(api: FakeApi) -> None:
    _fill(api)
    bad = pod("bad")
    bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "12x"
    api.put(PODS, bad)
    snap = import_cluster(client_for(api))
    assert len(snap.skipped) == 1
    line = snap.skipped[0]
    assert line.startswith("Pod default/bad: spec.containers[0].resources.requests.cpu")
    assert "bad" not in {p.name for p in snap.objects if isinstance(p, Pod)}
    assert snap.counts["Pod"] == 4


def test_a_forbidden_optional_list_is_reported_and_a_forbidden_pod_list_raises(api: FakeApi) -> None:
    _fill(api)
    api.list_answers[RS] = [403]
    snap = import_cluster(client_for(api))
    assert any(line.startswith("replicasets (apps/v1): forbidden") for line in snap.unavailable)
    assert "ReplicaSet" not in snap.counts
    api.list_answers[PODS] = [403]
    with pytest.raises(KubeApiError) as info:
        import_cluster(client_for(api))
    assert info.value.status == 403
    assert info.value.path == PODS


def test_an_expired_continue_token_lists_again_from_the_start(api: FakeApi) -> None:
    _fill(api)
    # the first page is served, the second answers 410: the list starts again
    api.list_answers[NODES] = [200, 410]
    snap = import_cluster(client_for(api), page_size=4)
    assert snap.counts["Node"] == 7
    node_lists = [q.get("continue") for m, path, q, _ in api.requests if path == NODES]
    assert node_lists == [None, ["4"], None, ["4"]]
    api.list_answers[NODES] = [200, 410, 200, 410, 200, 410]
    with pytest.raises(KubeError, match="kept expiring"):
        import_cluster(client_for(api), page_size=4)


def test_page_size_must_be_positive(api: FakeApi) -> None:
    with pytest.raises(TypeError):
        import_cluster(client_for(api), page_size=0)


def _kubeconfig(api: FakeApi, tmp_path: pathlib.Path) -> pathlib.Path:
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": api.url}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "u"}}],
        "current-context": "fake"}))
    return path


def test_cli_import_writes_the_dump_and_reports_on_stderr(api: FakeApi, tmp_path: pathlib.Path) -> None:
    _fill(api)
    bad = pod("bad")
    bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "12x"
    api.put(PODS, bad)
    kubeconfig = _kubeconfig(api, tmp_path)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stderr(err):
        code = main(["import", "--kubeconfig", str(kubeconfig), "--json", "--no-terminal-pods"], stdout=out)
    assert code == 0, err.getvalue()
    doc = json.loads(out.getvalue())
    assert doc["kind"] == "List"
    pod_names = {i["metadata"]["name"] for i in doc["items"] if i["kind"] == "Pod"}
    assert pod_names == {"pending", "web-a", "web-b"}
    report = err.getvalue()
    assert "skipped Pod default/bad: spec.containers[0].resources.requests.cpu" in report
    assert "not listed: deployments (apps/v1)" in report
    assert "wrote 1 PriorityClass, 7 Node, 1 ReplicaSet, 3 Pod; skipped 1" in report

    dump = tmp_path / "dump.json"
    dump.write_text(out.getvalue())
    sim_out = io.StringIO()
    code = main(["simulate", "--cluster", str(dump), "--json", "--plain"], stdout=sim_out)
    assert code == 0


def test_cli_import_reports_a_missing_kubeconfig(tmp_path: pathlib.Path) -> None:
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["import", "--kubeconfig", str(tmp_path / "absent.yaml")])
    assert code == 2
    assert "absent.yaml" in err.getvalue()


def test_cli_import_without_pyyaml_says_so_before_listing(api: FakeApi, tmp_path: pathlib.Path,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    import importlib.util

    real = importlib.util.find_spec
    monkeypatch.setattr(importlib.util, "find_spec",
                        lambda name, *a: None if name == "yaml" else real(name, *a))
    kubeconfig = _kubeconfig(api, tmp_path)
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["import", "--kubeconfig", str(kubeconfig)], stdout=io.StringIO())
    assert code == 2
    assert "PyYAML" in err.getvalue()
    assert not api.seen("GET", "/nodes")


@pytest.mark.parametrize("flag", [["-o", "json"], ["--output", "json"]])
def test_cli_import_output_json(api: FakeApi, tmp_path: pathlib.Path, flag: list[str]) -> None:
    """``-o json`` / ``--output json`` write the dump as JSON, which load_manifests reads back."""
    _fill(api)
    out, err = io.StringIO(), io.StringIO()
    with redirect_stderr(err):
        code = main(["import", "--kubeconfig", str(_kubeconfig(api, tmp_path)), *flag], stdout=out)
    assert code == 0, err.getvalue()
    assert json.loads(out.getvalue())["kind"] == "List"


def test_cli_import_refuses_json_with_output_yaml(api: FakeApi, tmp_path: pathlib.Path) -> None:
    """``--json`` with ``-o yaml`` is refused, not silently resolved."""
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["import", "--kubeconfig", str(_kubeconfig(api, tmp_path)), "--json", "-o", "yaml"])
    assert code == 2
    assert "--json and --output yaml contradict each other" in err.getvalue()
