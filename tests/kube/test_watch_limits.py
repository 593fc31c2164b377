"""Watch streams that misbehave (the scripted fake API server): one very long event line in tiny
chunks, a line longer than the limit, an event that trickles in for ever. The pod sent after
them is scheduled within seconds."""

from __future__ import annotations

import json
import logging
import time
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("kubernetes")


from schedframe.kube import SCHEDULER_RESOURCES, KubeScheduler

from ._fakeapi import FakeApi, client_for, node, pod, wait_for

NODES = "/api/v1/nodes"
PODS = "/api/v1/pods"
CORE = tuple(r for r in SCHEDULER_RESOURCES if r.plural in ("nodes", "pods"))
#: the start of an event whose object never ends: not JSON once its newline comes
LONG = b'{"type": "ADDED", "object": {"metadata": {"name": "x", "annotations": {"a": "'


@pytest.fixture
def api() -> Iterator[FakeApi]:
    fake = FakeApi().start()
    try:
        yield fake
    finally:
        fake.stop()


@pytest.fixture
def start(api: FakeApi) -> Iterator[Any]:
    started: list[KubeScheduler] = []

    def go(**kwargs: Any) -> KubeScheduler:
        kwargs.setdefault("resources", CORE)
        kwargs.setdefault("resync_backoff", (0.05, 0.2))
        ks = KubeScheduler(client_for(api), **kwargs)
        ks.start()
        assert ks.wait_for_sync(timeout=10)
        started.append(ks)
        return ks

    try:
        yield go
    finally:
        for ks in started:
            ks.stop(timeout=5)


def _bound(api: FakeApi, name: str) -> bool:
    return any(r[1].endswith(f"/pods/{name}/binding") for r in api.seen("POST", "/binding"))


def _late_pod(api: FakeApi) -> None:
    """A valid pending pod: in the store (a re-list finds it) and as the next watch event (a
    resumed watch gets it)."""
    late = pod("late", rv=900)
    api.put(PODS, late)
    api.watches[PODS].put(("event", "ADDED", late))


def test_a_long_line_in_tiny_chunks_does_not_hold_up_the_next_pod(api: FakeApi, start: Any) -> None:
    """Two MB in 16-byte chunks used to take quadratic time (each chunk copied and searched the
    whole line so far): the next pod waited 12 s and more."""
    api.put(NODES, node("n1"))
    ks = start()
    big = pod("big", scheduler="other", node_name="n1", rv=800)
    big["metadata"]["annotations"] = {"note": "a" * (2 * 1024 * 1024)}
    began = time.monotonic()
    api.watches[PODS].put(("trickle", json.dumps({"type": "ADDED", "object": big}).encode() + b"\n", 16, 0.0))
    _late_pod(api)
    wait_for(lambda: _bound(api, "late"), timeout=8.0, what="the pod after the long line bound")
    assert time.monotonic() - began < 8.0
    # the long event was a valid one, and delivered
    assert ks.scheduler.get_pod("default/big") is not None


def test_an_event_longer_than_the_limit_ends_the_watch_and_lists_again(
        api: FakeApi, start: Any, caplog: pytest.LogCaptureFixture) -> None:
    api.put(NODES, node("n1"))
    caplog.set_level(logging.WARNING, logger="schedframe.kube")
    ks = start(max_event_bytes=64 * 1024)
    informer = next(i for i in ks.informers if i.resource.plural == "pods")
    # a megabyte that never ends (the fake stops when the client goes)
    api.watches[PODS].put(("trickle", LONG + b"a" * (1024 * 1024), 512, 0.0))
    _late_pod(api)
    wait_for(lambda: _bound(api, "late"), timeout=8.0, what="the pod after the oversized line bound")
    assert informer.relists >= 1
    assert informer.errors >= 1
    logged = [r.getMessage() for r in caplog.records if "max_event_bytes" in r.getMessage()]
    assert logged
    assert logged[0].startswith("pods: ")
    assert "listing again" in logged[0]


def test_a_trickling_event_is_cut_at_the_deadline_and_the_watch_resumes(
        api: FakeApi, start: Any, caplog: pytest.LogCaptureFixture) -> None:
    api.put(NODES, node("n1"))
    caplog.set_level(logging.WARNING, logger="schedframe.kube")
    ks = start(event_deadline=1.0)
    informer = next(i for i in ks.informers if i.resource.plural == "pods")
    # 8 bytes every 50 ms: 20 s for the whole line, far past the deadline
    api.watches[PODS].put(("trickle", LONG + b"a" * 3200 + b"\n", 8, 0.05))
    _late_pod(api)
    wait_for(lambda: _bound(api, "late"), timeout=8.0, what="the pod after the trickling event bound")
    assert informer.errors >= 1
    logged = [r.getMessage() for r in caplog.records if "took more than 1 s" in r.getMessage()]
    assert logged
    assert logged[0].startswith("pods: ")
