"""``KubeScheduler`` with only what the example ClusterRole (docs/examples/kube/rbac.yaml) grants:
the API server authorizes with RBAC, and the scheduler authenticates as the ServiceAccount the
example binds. It syncs, binds a pod with its ``Scheduled`` event, marks a pod that fits nowhere
``Unschedulable`` with its ``FailedScheduling`` event, and holds its Lease."""

from __future__ import annotations

import pathlib
import uuid
from typing import Any

import pytest

from ._cluster import pod_body, wait_for

kube_mod = pytest.importorskip("schedframe.kube")
k = pytest.importorskip("kubernetes.client")
yaml = pytest.importorskip("yaml")

RBAC = pathlib.Path(__file__).resolve().parents[2] / "docs" / "examples" / "kube" / "rbac.yaml"
NODE = {"cpu": "2", "memory": "4Gi", "pods": "110"}
TIMEOUT = 90.0


@pytest.fixture
def example_rbac(kube) -> Any:
    """The example's ServiceAccount, ClusterRole and ClusterRoleBinding, applied as the admin."""
    docs = [d for d in yaml.safe_load_all(RBAC.read_text()) if d]
    core, rbac = k.CoreV1Api(kube.api_client), k.RbacAuthorizationV1Api(kube.api_client)
    for doc in docs:
        kind, name = doc["kind"], doc["metadata"]["name"]
        try:
            if kind == "ServiceAccount":
                core.create_namespaced_service_account(doc["metadata"]["namespace"], doc)
            elif kind == "ClusterRole":
                rbac.create_cluster_role(doc)
            elif kind == "ClusterRoleBinding":
                rbac.create_cluster_role_binding(doc)
            else:  # pragma: no cover - the example holds these three kinds
                raise AssertionError(f"unexpected {kind} {name} in {RBAC}")
        except k.rest.ApiException as e:
            if e.status != 409:  # already there from an earlier test of the session
                raise
    return docs


def test_the_example_cluster_role_is_enough_to_schedule(kube, namespace, make_node, example_rbac):
    core = k.CoreV1Api(kube.api_client)
    sa = kube.service_account_client()
    # RBAC is on: the ServiceAccount may not do what the ClusterRole does not grant
    with pytest.raises(k.rest.ApiException) as denied:
        k.CoreV1Api(sa).list_secret_for_all_namespaces()
    assert denied.value.status == 403

    node = make_node("rbac", NODE)
    lease = f"schedframe-rbac-{uuid.uuid4().hex[:6]}"
    ks = kube_mod.KubeScheduler(sa, config={
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "schedframe"}]},
        leader_election=True, lease_name=lease)
    ks.start()
    try:
        assert ks.wait_for_sync(timeout=60.0)
        core.create_namespaced_pod(namespace, pod_body("fits", scheduler_name="schedframe",
                                                       requests={"cpu": "1"}))
        core.create_namespaced_pod(namespace, pod_body("too-big", scheduler_name="schedframe",
                                                       requests={"cpu": "8"}))
        assert wait_for(lambda: core.read_namespaced_pod("fits", namespace).spec.node_name,
                        timeout=TIMEOUT, what="fits to be bound") == node

        def reasons() -> set[str]:
            return {(e.involved_object.name, e.reason) for e in core.list_namespaced_event(namespace).items}

        wait_for(lambda: {("fits", "Scheduled"), ("too-big", "FailedScheduling")} <= reasons(),
                 timeout=TIMEOUT, what="the Scheduled and FailedScheduling events")

        def condition() -> Any:
            pod = core.read_namespaced_pod("too-big", namespace)
            return next((c for c in pod.status.conditions or [] if c.type == "PodScheduled"), None)

        cond = wait_for(condition, timeout=TIMEOUT, what="too-big's PodScheduled condition")
        assert (cond.status, cond.reason) == ("False", "Unschedulable")
        held = k.CoordinationV1Api(kube.api_client).read_namespaced_lease(lease, "kube-system")
        assert held.spec.holder_identity
    finally:
        ks.stop(timeout=10.0)
