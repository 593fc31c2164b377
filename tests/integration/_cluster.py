"""Manifests and polling for the integration tests (the fixtures are in conftest.py)."""

from __future__ import annotations

import contextlib
import time
from collections.abc import Callable, Mapping
from typing import Any

import pytest


def node_body(
    name: str,
    allocatable: Mapping[str, str],
    *,
    capacity: Mapping[str, str] | None = None,
    labels: Mapping[str, str] | None = None,
) -> tuple[dict[str, Any], dict[str, Any]]:
    """(metadata+spec for create_node, status for patch_node_status) of a Ready node."""
    now = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    body = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": {},
    }
    status = {
        "status": {
            "capacity": dict(capacity or allocatable),
            "allocatable": dict(allocatable),
            "conditions": [{
                "type": "Ready", "status": "True", "reason": "KubeletReady", "message": "test node",
                "lastHeartbeatTime": now, "lastTransitionTime": now,
            }],
        }
    }
    return body, status


def pod_body(
    name: str,
    *,
    scheduler_name: str | None = None,
    requests: Mapping[str, str] | None = None,
    priority_class: str | None = None,
    node_name: str | None = None,
    labels: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """A one-container pod manifest."""
    container: dict[str, Any] = {"name": "c", "image": "registry.invalid/pause:3"}
    if requests:
        container["resources"] = {"requests": dict(requests)}
    spec: dict[str, Any] = {"containers": [container], "terminationGracePeriodSeconds": 0}
    if scheduler_name is not None:
        spec["schedulerName"] = scheduler_name
    if priority_class is not None:
        spec["priorityClassName"] = priority_class
    if node_name is not None:
        spec["nodeName"] = node_name
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "labels": dict(labels or {})},
        "spec": spec,
    }


def wait_for(
    predicate: Callable[[], Any],
    *,
    timeout: float = 60.0,
    interval: float = 0.2,
    what: str = "condition",
) -> Any:
    """Poll until predicate() is truthy and return its value; fail the test after timeout seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {what}")
        time.sleep(interval)


class TcpProxy:
    """A TCP relay on a free loopback port to *target* (host, port) that can drop every open
    connection at once (:meth:`cut`), as a load balancer restart or a network blip does. TLS
    passes through untouched: the API server's certificate names 127.0.0.1."""

    def __init__(self, target: tuple[str, int]) -> None:
        import socket
        import threading

        self.target = target
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = int(self.listener.getsockname()[1])
        self.accepted = 0
        self._open: list[Any] = []
        self._lock = threading.Lock()
        self._closed = False
        self.held = False
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        import socket
        import threading

        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.held:  # a partition: the connection is refused as soon as it is made
                client.close()
                continue
            try:
                upstream = socket.create_connection(self.target)
            except OSError:
                client.close()
                continue
            with self._lock:
                self.accepted += 1
                self._open += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    def _pump(self, src: Any, dst: Any) -> None:
        import socket

        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass
        finally:
            # both ends shut down and closed here: a socket left to the garbage collector is a
            # ResourceWarning in whatever test runs then
            with self._lock:
                self._open = [s for s in self._open if s is not src and s is not dst]
            for s in (src, dst):
                with contextlib.suppress(OSError):
                    s.shutdown(socket.SHUT_RDWR)
                s.close()

    def cut(self) -> int:
        """Close every open connection; returns how many were open."""
        import socket

        with self._lock:
            socks, self._open = self._open, []
        for s in socks:
            with contextlib.suppress(OSError):
                s.shutdown(socket.SHUT_RDWR)
            s.close()
        return len(socks) // 2

    def hold(self) -> int:
        """Cut every open connection and refuse new ones until :meth:`release` (a network
        partition between the client and the server); returns how many were open."""
        self.held = True
        return self.cut()

    def release(self) -> None:
        """Let connections through again."""
        self.held = False

    def close(self) -> None:
        self.listener.close()
        self.cut()
