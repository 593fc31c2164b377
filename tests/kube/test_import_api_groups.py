"""Issue #50: a PodGroup or ElasticQuota served under both its API groups (``scheduling.x-k8s.io``
and the legacy ``scheduling.sigs.k8s.io``) is imported once, the newer group's copy, with one
warning naming both."""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from typing import Any

import pytest

pytest.importorskip("kubernetes")

from schedframe import SchedframeWarning
from schedframe.api import ElasticQuota, PodGroup
from schedframe.kube import import_cluster

from ._fakeapi import FakeApi, client_for, node

NEW_PG = "/apis/scheduling.x-k8s.io/v1alpha1/podgroups"
OLD_PG = "/apis/scheduling.sigs.k8s.io/v1alpha1/podgroups"
NEW_EQ = "/apis/scheduling.x-k8s.io/v1alpha1/elasticquotas"
OLD_EQ = "/apis/scheduling.sigs.k8s.io/v1alpha1/elasticquotas"


@pytest.fixture
def api() -> Iterator[FakeApi]:
    fake = FakeApi().start()
    for path, kind in ((NEW_PG, "PodGroup"), (OLD_PG, "PodGroup"), (NEW_EQ, "ElasticQuota"),
                       (OLD_EQ, "ElasticQuota")):
        fake.add_collection(path, kind)
    try:
        yield fake
    finally:
        fake.stop()


def _pg(group: str, name: str, min_member: int) -> dict[str, Any]:
    return {"apiVersion": f"{group}/v1alpha1", "kind": "PodGroup",
            "metadata": {"name": name, "namespace": "default", "uid": f"{group}-{name}"},
            "spec": {"minMember": min_member}}


def _eq(group: str, name: str, cpu: str) -> dict[str, Any]:
    return {"apiVersion": f"{group}/v1alpha1", "kind": "ElasticQuota",
            "metadata": {"name": name, "namespace": "default", "uid": f"{group}-{name}"},
            "spec": {"min": {"cpu": cpu}, "max": {"cpu": cpu}}}


def test_the_newer_api_group_wins_with_one_warning_per_kind(api: FakeApi) -> None:
    api.put("/api/v1/nodes", node("n1"))
    for i in range(5):
        api.put(NEW_PG, _pg("scheduling.x-k8s.io", f"g{i}", 3))
        api.put(OLD_PG, _pg("scheduling.sigs.k8s.io", f"g{i}", 7))
    api.put(OLD_PG, _pg("scheduling.sigs.k8s.io", "legacy-only", 2))
    api.put(NEW_EQ, _eq("scheduling.x-k8s.io", "q", "4"))
    api.put(OLD_EQ, _eq("scheduling.sigs.k8s.io", "q", "1"))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        snap = import_cluster(client_for(api))
    groups = {o.name: o.min_member for o in snap.objects if isinstance(o, PodGroup)}
    assert groups == {**{f"g{i}": 3 for i in range(5)}, "legacy-only": 2}
    quotas = [o for o in snap.objects if isinstance(o, ElasticQuota)]
    assert len(quotas) == 1
    assert str(quotas[0].max["cpu"]) == "4"
    assert snap.counts["PodGroup"] == 6
    assert snap.counts["ElasticQuota"] == 1
    mine = [str(w.message) for w in caught if issubclass(w.category, SchedframeWarning)]
    assert len(mine) == 2
    pg = next(m for m in mine if "PodGroup" in m)
    assert pg.startswith("5 PodGroup(s) served under both scheduling.x-k8s.io/v1alpha1 and "
                         "scheduling.sigs.k8s.io/v1alpha1")
    assert "and 2 more" in pg
    assert "the scheduling.x-k8s.io/v1alpha1 copies are kept" in pg


def test_one_group_alone_gives_no_warning(api: FakeApi) -> None:
    api.put("/api/v1/nodes", node("n1"))
    api.put(OLD_PG, _pg("scheduling.sigs.k8s.io", "g", 2))
    with warnings.catch_warnings():
        warnings.simplefilter("error", SchedframeWarning)
        snap = import_cluster(client_for(api))
    assert [o.name for o in snap.objects if isinstance(o, PodGroup)] == ["g"]
