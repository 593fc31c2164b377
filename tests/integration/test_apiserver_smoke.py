"""The integration harness itself, with the plain kubernetes client: what the adapter relies on works.

Nodes get their capacity through the status subresource, a POST to pods/{name}/binding sets
spec.nodeName (once), and a watch started at a list's resourceVersion sees what happens after it.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from ._cluster import pod_body

k = pytest.importorskip("kubernetes.client")
ApiException = pytest.importorskip("kubernetes.client.rest").ApiException
kwatch = pytest.importorskip("kubernetes.watch")


def _bind(api: Any, ns: str, pod: str, node: str) -> Any:
    body = k.V1Binding(
        metadata=k.V1ObjectMeta(name=pod),
        target=k.V1ObjectReference(api_version="v1", kind="Node", name=node),
    )
    # the server answers with a Status, which the generated client cannot read as a V1Binding
    return api.create_namespaced_binding(ns, body, _preload_content=False)


def test_server_reports_a_version(kube):
    info = k.VersionApi(kube.api_client).get_code()
    assert info.major == "1"
    assert info.git_version.startswith("v1.")
    assert kube.version == info.git_version


def test_node_status_is_written_through_the_status_subresource(kube, make_node):
    api = k.CoreV1Api(kube.api_client)
    name = make_node("smoke", {"cpu": "4", "memory": "8Gi", "pods": "10"})
    node = api.read_node(name)
    assert node.status.allocatable == {"cpu": "4", "memory": "8Gi", "pods": "10"}
    assert [(c.type, c.status) for c in node.status.conditions] == [("Ready", "True")]
    # TaintNodesByCondition is off: nothing taints the node although no kubelet runs
    assert not node.spec.taints


def test_binding_sets_node_name_once(kube, namespace, make_node):
    api = k.CoreV1Api(kube.api_client)
    n1 = make_node("smoke", {"cpu": "4", "memory": "8Gi", "pods": "10"})
    n2 = make_node("smoke", {"cpu": "4", "memory": "8Gi", "pods": "10"})
    api.create_namespaced_pod(namespace, pod_body("p", requests={"cpu": "1"}))
    pod = api.read_namespaced_pod("p", namespace)
    assert pod.spec.node_name is None
    assert pod.spec.scheduler_name == "default-scheduler"

    resp = _bind(api, namespace, "p", n1)
    assert resp.status == 201
    assert json.loads(resp.data)["status"] == "Success"
    pod = api.read_namespaced_pod("p", namespace)
    assert pod.spec.node_name == n1
    conditions = {c.type: c.status for c in pod.status.conditions or []}
    assert conditions.get("PodScheduled") == "True"

    with pytest.raises(ApiException) as err:
        _bind(api, namespace, "p", n2)
    assert err.value.status == 409
    assert api.read_namespaced_pod("p", namespace).spec.node_name == n1


def test_binding_of_a_missing_pod_is_not_found(kube, namespace, make_node):
    api = k.CoreV1Api(kube.api_client)
    node = make_node("smoke", {"cpu": "1", "memory": "1Gi", "pods": "1"})
    with pytest.raises(ApiException) as err:
        _bind(api, namespace, "nope", node)
    assert err.value.status == 404


def test_watch_from_a_list_sees_later_changes(kube, namespace, make_node):
    api = k.CoreV1Api(kube.api_client)
    node = make_node("smoke", {"cpu": "4", "memory": "8Gi", "pods": "10"})
    rv = api.list_namespaced_pod(namespace).metadata.resource_version
    api.create_namespaced_pod(namespace, pod_body("w"))
    _bind(api, namespace, "w", node)
    api.delete_namespaced_pod("w", namespace, grace_period_seconds=0)

    seen: list[tuple[str, str | None]] = []
    w = kwatch.Watch()
    for event in w.stream(api.list_namespaced_pod, namespace, resource_version=rv, timeout_seconds=30):
        obj = event["object"]
        seen.append((event["type"], obj.spec.node_name))
        if event["type"] == "DELETED":
            w.stop()
    assert seen[0] == ("ADDED", None)
    assert ("MODIFIED", node) in seen
    assert seen[-1][0] == "DELETED"


def test_priority_classes_resolve_to_pod_priority(kube, namespace):
    sched = k.SchedulingV1Api(kube.api_client)
    api = k.CoreV1Api(kube.api_client)
    name = f"{namespace}-high"
    sched.create_priority_class(k.V1PriorityClass(metadata=k.V1ObjectMeta(name=name), value=1000))
    try:
        api.create_namespaced_pod(namespace, pod_body("hp", priority_class=name))
        assert api.read_namespaced_pod("hp", namespace).spec.priority == 1000
    finally:
        sched.delete_priority_class(name)
