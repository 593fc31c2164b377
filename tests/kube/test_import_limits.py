"""``schedframe import`` against a misbehaving API server (the scripted fake): lists too long,
continue tokens that never end or repeat, a connection cut mid-answer, 10 MB error messages.
Each ends in a one-line error naming the kind and the limit, or in a skipped optional kind."""

from __future__ import annotations

import io
import json
import pathlib
from collections.abc import Callable, Iterator
from contextlib import redirect_stderr
from typing import Any

import pytest

pytest.importorskip("kubernetes")


from schedframe.cli.main import main
from schedframe.kube import (
    DEFAULT_MAX_ITEMS_PER_KIND,
    KubeApiError,
    KubeError,
    KubeLimitError,
    Resource,
    import_cluster,
)

from ._fakeapi import FakeApi, client_for, node, pod

NODES = "/api/v1/nodes"
PODS = "/api/v1/pods"
RS = "/apis/apps/v1/replicasets"
CORE = (Resource("ReplicaSet", "apps/v1", "replicasets"),
        Resource("Node", "v1", "nodes", required=True), Resource("Pod", "v1", "pods", required=True))


@pytest.fixture
def api() -> Iterator[FakeApi]:
    fake = FakeApi().start()
    fake.add_collection(RS, "ReplicaSet")
    for i in range(3):
        fake.put(NODES, node(f"n{i}"))
    fake.put(PODS, pod("p", node_name="n0"))
    try:
        yield fake
    finally:
        fake.stop()


def _kubeconfig(api: FakeApi, tmp_path: pathlib.Path) -> str:
    path = tmp_path / "kubeconfig"
    path.write_text(json.dumps({
        "apiVersion": "v1", "kind": "Config",
        "clusters": [{"name": "fake", "cluster": {"server": api.url}}],
        "users": [{"name": "u", "user": {}}],
        "contexts": [{"name": "fake", "context": {"cluster": "fake", "user": "u"}}],
        "current-context": "fake"}))
    return str(path)


def _cli(api: FakeApi, tmp_path: pathlib.Path, *extra: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with redirect_stderr(err):
        code = main(["import", "--kubeconfig", _kubeconfig(api, tmp_path), "--json", *extra], stdout=out)
    return code, out.getvalue(), err.getvalue()


def _one_error_line(err: str) -> str:
    lines = err.strip().splitlines()
    assert len(lines) == 1, err[:2000]
    assert "Traceback" not in err
    assert lines[0].startswith("schedframe import: error: ")
    return lines[0]


def _pages(count: int, items: Callable[[int], list[dict[str, Any]]],
           token: Callable[[int], str]) -> Callable[[dict[str, list[str]]], dict[str, Any]]:
    """Pages whose continue tokens come from *token*; the fake gives up after *count* pages so
    the test ends whatever the client does."""
    served = [0]

    def make(query: dict[str, list[str]]) -> dict[str, Any]:
        served[0] += 1
        meta = {"resourceVersion": "7"}
        if served[0] < count:
            meta["continue"] = token(served[0])
        return {"kind": "List", "apiVersion": "v1", "metadata": meta, "items": items(served[0])}

    return make


# -- item limits ---------------------------------------------------------------------------------
def test_a_kind_with_more_objects_than_the_limit_is_an_error_naming_it(api: FakeApi,
                                                                      tmp_path: pathlib.Path) -> None:
    for i in range(3, 12):
        api.put(NODES, node(f"n{i}"))
    with pytest.raises(KubeLimitError) as info:
        import_cluster(client_for(api), resources=CORE, page_size=4, max_items_per_kind=10)
    assert info.value.option == "max_items_per_kind"
    assert info.value.limit == 10
    assert "nodes (v1)" in info.value.subject
    assert "Node" in str(info.value)
    # the nodes stopped at the page that crossed the limit: the pods were never listed
    assert not api.seen("GET", PODS)

    code, out, err = _cli(api, tmp_path, "--max-items-per-kind", "10", "--page-size", "4")
    assert code == 2
    line = _one_error_line(err)
    assert "nodes (v1)" in line
    assert "Node" in line
    assert "10" in line
    assert "--max-items-per-kind" in line
    assert out == ""
    # raised, the import goes through
    code, out, err = _cli(api, tmp_path, "--max-items-per-kind", "12")
    assert code == 0, err


def test_a_million_items_fail_at_the_default_limit_without_reading_them(api: FakeApi,
                                                                        tmp_path: pathlib.Path) -> None:
    """A server that ignores ``limit`` and answers 10**6 items stops at the default limit per
    kind, before any of them is read (it used to end in MemoryError)."""
    api.list_pages[NODES] = _pages(1, lambda _n: [{}] * 1_000_000, str)
    code, _out, err = _cli(api, tmp_path)
    assert code == 2
    line = _one_error_line(err)
    assert f"more than {DEFAULT_MAX_ITEMS_PER_KIND:,} Node objects" in line
    assert "--max-items-per-kind" in line


def test_the_total_limit_counts_every_kind(api: FakeApi, tmp_path: pathlib.Path) -> None:
    with pytest.raises(KubeLimitError) as info:
        import_cluster(client_for(api), resources=CORE, max_items=3)
    assert info.value.option == "max_items"
    assert "pods (v1)" in info.value.subject  # 3 nodes fit, the pod crosses the total
    code, _out, err = _cli(api, tmp_path, "--max-items", "3")
    assert code == 2
    line = _one_error_line(err)
    assert "pods (v1)" in line
    assert "--max-items" in line


def test_limits_must_be_positive(api: FakeApi, tmp_path: pathlib.Path) -> None:
    with pytest.raises(TypeError, match="max_items"):
        import_cluster(client_for(api), max_items=0)
    code, _out, err = _cli(api, tmp_path, "--max-pages", "0")
    assert code == 2
    assert "--max-pages" in _one_error_line(err)


# -- continue tokens -----------------------------------------------------------------------------
def test_an_endless_continue_token_stops_at_the_page_limit(api: FakeApi, tmp_path: pathlib.Path) -> None:
    api.list_pages[NODES] = _pages(60, lambda _n: [], lambda n: f"token-{n}")
    with pytest.raises(KubeLimitError) as info:
        import_cluster(client_for(api), resources=CORE, max_pages=20)
    assert info.value.option == "max_pages"
    assert "nodes (v1)" in info.value.subject
    assert len(api.seen("GET", NODES)) == 20

    api.list_pages[NODES] = _pages(60, lambda _n: [], lambda n: f"token-{n}")
    code, _out, err = _cli(api, tmp_path, "--max-pages", "20")
    assert code == 2
    line = _one_error_line(err)
    assert "nodes (v1)" in line
    assert "20" in line
    assert "--max-pages" in line


def test_a_repeated_continue_token_fails_a_required_kind_and_skips_an_optional_one(
        api: FakeApi, tmp_path: pathlib.Path) -> None:
    api.list_pages[NODES] = _pages(60, lambda _n: [], lambda _n: "again")
    with pytest.raises(KubeError, match="same continue token") as info:
        import_cluster(client_for(api), resources=CORE)
    assert "nodes (v1)" in str(info.value)
    assert len(api.seen("GET", NODES)) == 2

    del api.list_pages[NODES]
    api.list_pages[RS] = _pages(60, lambda _n: [], lambda _n: "again")
    snap = import_cluster(client_for(api), resources=CORE)
    assert snap.counts == {"Node": 3, "Pod": 1}
    assert len(snap.unavailable) == 1
    assert snap.unavailable[0].startswith("replicasets (apps/v1): the list failed")
    assert "same continue token" in snap.unavailable[0]


# -- a connection cut mid-answer -----------------------------------------------------------------
def test_a_cut_optional_list_is_reported_and_the_rest_written(api: FakeApi, tmp_path: pathlib.Path) -> None:
    api.list_answers[RS] = [("cut", '{"kind": "ReplicaSetList", "items": [{"metadata": {"na')]
    snap = import_cluster(client_for(api), resources=CORE)
    assert snap.counts == {"Node": 3, "Pod": 1}
    assert [line.split(":")[0] for line in snap.unavailable] == ["replicasets (apps/v1)"]
    assert "the list failed" in snap.unavailable[0]

    api.list_answers[RS] = [("cut", '{"kind": "ReplicaSetList", "items": [{"metadata": {"na')]
    code, out, err = _cli(api, tmp_path)
    assert code == 0, err
    assert {i["kind"] for i in json.loads(out)["items"]} == {"Node", "Pod"}
    cut = [line for line in err.splitlines() if "replicasets (apps/v1)" in line]
    assert len(cut) == 1
    assert cut[0].startswith("schedframe import: not listed: replicasets (apps/v1): the list failed")


def test_a_cut_pod_list_fails_the_import_in_one_line(api: FakeApi, tmp_path: pathlib.Path) -> None:
    api.list_answers[PODS] = [("cut", '{"kind": "PodList", "items": [')]
    with pytest.raises(KubeApiError) as info:
        import_cluster(client_for(api), resources=CORE)
    assert info.value.path == PODS
    assert info.value.status == 0
    api.list_answers[PODS] = [("cut", '{"kind": "PodList", "items": [')]
    code, out, err = _cli(api, tmp_path)
    assert code == 2
    assert PODS in _one_error_line(err)
    assert out == ""


def test_an_oversized_page_is_a_limit_error(api: FakeApi) -> None:
    with pytest.raises(KubeLimitError) as info:
        import_cluster(client_for(api), resources=CORE, max_page_bytes=100)
    assert info.value.option == "max_page_bytes"
    assert NODES in info.value.subject


# -- server text in messages ---------------------------------------------------------------------
def _status(code: int, message: str) -> bytes:
    return json.dumps({"kind": "Status", "apiVersion": "v1", "status": "Failure", "message": message,
                       "reason": "InternalError", "code": code}).encode()


def test_a_10mb_server_message_is_cut_in_every_line(api: FakeApi, tmp_path: pathlib.Path) -> None:
    huge = "x" * (10 * 1024 * 1024)
    api.list_answers[RS] = [("body", 500, _status(500, huge))]
    snap = import_cluster(client_for(api), resources=CORE)
    assert len(snap.unavailable) == 1
    assert len(snap.unavailable[0]) < 500
    assert snap.unavailable[0].startswith("replicasets (apps/v1): the list failed: HTTP 500 InternalError")

    # a required kind: one short line, saying how long the message was
    api.list_answers[PODS] = [("body", 500, _status(500, huge))]
    code, _out, err = _cli(api, tmp_path)
    assert code == 2
    line = _one_error_line(err)
    assert len(line) < 600
    assert PODS in line
    assert f"{len(huge):,} characters" in line

    # not JSON: the body is not read to the end, and still one short line
    api.list_answers[PODS] = [("body", 500, huge.encode())]
    code, _out, err = _cli(api, tmp_path)
    assert code == 2
    line = _one_error_line(err)
    assert len(line) < 600
    assert "characters" in line


def test_a_multiline_forbidden_message_stays_on_one_line(api: FakeApi, tmp_path: pathlib.Path) -> None:
    api.list_answers[RS] = [("body", 403, _status(403, "no\n" * 50_000))]
    code, _out, err = _cli(api, tmp_path)
    assert code == 0, err[:2000]
    report = [line for line in err.splitlines() if "replicasets" in line]
    assert len(report) == 1
    assert "forbidden" in report[0]
    assert len(report[0]) < 500
    assert all(line.startswith("schedframe import: ") and len(line) < 500 for line in err.splitlines())


def test_a_long_object_name_is_cut_in_the_skipped_line(api: FakeApi) -> None:
    bad = pod("b" * 100_000)
    bad["spec"]["containers"][0]["resources"]["requests"]["cpu"] = "12x"
    api.put(PODS, bad)
    snap = import_cluster(client_for(api), resources=CORE)
    assert len(snap.skipped) == 1
    assert len(snap.skipped[0]) < 1000
    assert snap.skipped[0].startswith("Pod default/bbb")
    assert "metadata.name" in snap.skipped[0]


def test_the_cli_ends_a_list_whose_continue_token_always_repeats(api: FakeApi,
                                                                 tmp_path: pathlib.Path) -> None:
    """A server that answers every page with the same continue token (or a cycle of tokens) used
    to be a trap for a client that pages until the token is empty: ``schedframe import`` stops at
    the first repeat with one line naming the kind and the token, after 2 (or 3) requests."""
    api.list_pages[NODES] = _pages(10_000, lambda _n: [node("again")], lambda _n: "same-token")
    code, out, err = _cli(api, tmp_path)
    assert code == 2
    line = _one_error_line(err)
    assert "nodes (v1)" in line
    assert "same continue token" in line
    assert "same-token" in line
    assert out == ""
    assert len(api.seen("GET", NODES)) == 2
    api.list_pages[NODES] = _pages(10_000, lambda _n: [], lambda n: f"t{n % 2}")
    with pytest.raises(KubeError, match="same continue token"):
        import_cluster(client_for(api), resources=CORE)
