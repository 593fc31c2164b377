"""Manifests and polling for the integration tests (the fixtures are in conftest.py)."""

from __future__ import annotations

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
