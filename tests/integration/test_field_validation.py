"""schedframe's strict field check (``schedframe.api.field_problems``, what ``load_manifests``
refuses under ``validate="strict"``) against the API server's own strict field validation
(``fieldValidation=Strict``, kubectl's default), on manifests with misspelled and unknown fields:
both must name the same fields, and both must accept the clean manifests. Each manifest is sent
as a dry run, so nothing is stored."""

from __future__ import annotations

import json
import re
import ssl
import urllib.error
import urllib.request
from typing import Any

import pytest

pytest.importorskip("kubernetes.client")

from schedframe.api import field_problems

_CONTAINER = {"name": "c", "image": "registry.invalid/pause:3"}
_TEMPLATE = {"metadata": {"labels": {"app": "x"}}, "spec": {"containers": [_CONTAINER]}}

#: (collection path with {ns}, manifest): each misspells or invents fields at several depths
CASES: list[tuple[str, dict[str, Any]]] = [
    ("/api/v1/namespaces/{ns}/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "typos", "lables": {"a": "b"}},
        "spec": {"nodeSelecter": {"a": "b"}, "containers": [
            {**_CONTAINER, "imagePullPolicyy": "Always", "resources": {"request": {"cpu": "1"}}}],
            "tolerations": [{"key": "k", "operater": "Exists"}]}}),
    ("/api/v1/namespaces/{ns}/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "affinity"},
        "spec": {"containers": [_CONTAINER], "affinity": {"nodeAffinity": {
            "requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
                {"matchExpression": [{"key": "k", "operator": "Exists"}]}]}}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone",
                                           "whenUnsatisfiable": "DoNotSchedule", "labelSelecter": {}}]}}),
    ("/api/v1/nodes", {
        "apiVersion": "v1", "kind": "Node", "metadata": {"name": "typo-node"},
        "spec": {"unschedulabel": True, "taints": [{"key": "k", "effect": "NoSchedule", "valu": "v"}]}}),
    ("/apis/apps/v1/namespaces/{ns}/deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "typo-deploy"},
        "spec": {"replica": 3, "selector": {"matchLabels": {"app": "x"}},
                 "template": {**_TEMPLATE, "spec": {"containers": [{**_CONTAINER, "comand": ["x"]}]}}}}),
    ("/apis/apps/v1/namespaces/{ns}/daemonsets", {
        "apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": "typo-ds"},
        "spec": {"selector": {"matchLabels": {"app": "x"}}, "updateStrategi": {},
                 "template": _TEMPLATE}}),
    ("/apis/batch/v1/namespaces/{ns}/jobs", {
        "apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "typo-job"},
        "spec": {"paralelism": 2, "template": {**_TEMPLATE, "spec": {
            "containers": [_CONTAINER], "restartPolicy": "Never"}}}}),
    ("/api/v1/namespaces/{ns}/persistentvolumeclaims", {
        "apiVersion": "v1", "kind": "PersistentVolumeClaim", "metadata": {"name": "typo-pvc"},
        "spec": {"accessModes": ["ReadWriteOnce"], "storageClass": "fast",
                 "resources": {"requests": {"storage": "1Gi"}}}}),
    ("/apis/policy/v1/namespaces/{ns}/poddisruptionbudgets", {
        "apiVersion": "policy/v1", "kind": "PodDisruptionBudget", "metadata": {"name": "typo-pdb"},
        "spec": {"minAvailible": 1, "selector": {"matchLabels": {"app": "x"}}}}),
    ("/apis/scheduling.k8s.io/v1/priorityclasses", {
        "apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "metadata": {"name": "typo-pc"},
        "value": 10, "globalDefualt": False}),
    # clean ones: both accept
    ("/api/v1/namespaces/{ns}/pods", {
        "apiVersion": "v1", "kind": "Pod", "metadata": {"name": "clean", "labels": {"app": "x"}},
        "spec": {"nodeSelector": {"a": "b"}, "containers": [
            {**_CONTAINER, "resources": {"requests": {"cpu": "1", "memory": "1Gi"}}}]}}),
    ("/apis/apps/v1/namespaces/{ns}/deployments", {
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "clean"},
        "spec": {"replicas": 2, "selector": {"matchLabels": {"app": "x"}}, "template": _TEMPLATE}}),
]


def _server_unknown_fields(kube: Any, path: str, manifest: dict[str, Any]) -> set[str]:
    """The fields the API server's strict validation names for *manifest* (a dry-run create)."""
    ctx = ssl.create_default_context(cafile=str(kube.ca_file))
    req = urllib.request.Request(
        f"{kube.server}{path}?fieldValidation=Strict&dryRun=All", data=json.dumps(manifest).encode(),
        method="POST", headers={"Authorization": f"Bearer {kube.token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=30) as resp:
            code, body = resp.status, ""
    except urllib.error.HTTPError as e:
        code, body = e.code, e.read().decode(errors="replace")
        e.close()
    if code in (200, 201):
        return set()
    found = set(re.findall(r'unknown field \\?"([^"\\]+)\\?"', body))
    assert code == 400, f"HTTP {code}: {body[:500]}"
    assert found, body[:500]
    return found

@pytest.mark.parametrize(("path", "manifest"), CASES,
                         ids=[f"{m['kind']}-{m['metadata']['name']}" for _, m in CASES])
def test_strict_field_validation_agrees_with_the_api_server(kube, namespace, path, manifest):
    server = _server_unknown_fields(kube, path.format(ns=namespace), manifest)
    release = ".".join(kube.version.lstrip("v").split(".")[:2])
    ours = {p.path for p in field_problems(manifest, release)}
    assert ours == server, f"schedframe {sorted(ours)} vs the API server {sorted(server)}"
    assert bool(server) == (manifest["metadata"]["name"] != "clean")
