"""schedframe.kube against a scripted fake API server: informer re-lists and resumes, bindings
that fail, events and the PodScheduled condition, the CLI's errors. The same code runs against a
real kube-apiserver in tests/integration."""

from __future__ import annotations

import io
from collections.abc import Iterator
from contextlib import redirect_stderr, redirect_stdout
from typing import Any

import pytest

pytest.importorskip("kubernetes")


from schedframe import Scheduler
from schedframe.cli.main import main
from schedframe.errors import ArgumentTypeError
from schedframe.kube import (
    SCHEDULER_RESOURCES,
    ApiSession,
    KubeApiError,
    KubeError,
    KubeScheduler,
    truncate_message,
)

from ._fakeapi import FakeApi, client_for, node, pod, wait_for

NODES = "/api/v1/nodes"
PODS = "/api/v1/pods"
CORE = tuple(r for r in SCHEDULER_RESOURCES if r.plural in ("nodes", "pods"))


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


def test_a_410_relists_and_the_changes_missed_meanwhile_arrive(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1"))
    api.put(PODS, pod("p1", scheduler="other", node_name="n1"))
    ks = start()
    assert ks.scheduler.get_pod("default/p1") is not None
    # while the watch is down, p1 goes and p2 comes; the server then says the version is gone
    api.drop(PODS, "p1", "default")
    api.put(PODS, pod("p2", scheduler="other", node_name="n1"))
    api.watches[PODS].put(("gone",))
    pods_informer = next(i for i in ks.informers if i.resource.plural == "pods")
    wait_for(lambda: pods_informer.relists == 1, what="a re-list")
    wait_for(lambda: ks.scheduler.get_pod("default/p2") is not None, what="p2")
    assert ks.scheduler.get_pod("default/p1") is None
    assert len(api.seen("GET", PODS)) >= 3  # list, watch, list (and the next watch)
    assert pods_informer.expired == 1
    assert pods_informer.errors == 0
    assert ks.metrics()["watches"]["pods"]["expired"] == 1
    assert ks.metrics()["watches"]["nodes"]["expired"] == 0
    assert 'schedframe_informer_expired_total{resource="pods"} 1' in ks.metrics_text().splitlines()


def test_a_bookmark_moves_the_version_on_and_delivers_nothing(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1"))
    ks = start()
    pods_informer = next(i for i in ks.informers if i.resource.plural == "pods")
    before = pods_informer.resource_version
    api.watches[PODS].put(("event", "BOOKMARK", {"kind": "Pod", "apiVersion": "v1",
                                                  "metadata": {"resourceVersion": "900"}}))
    wait_for(lambda: pods_informer.bookmarks == 1, what="the bookmark")
    assert pods_informer.resource_version == "900" != before
    assert pods_informer.store == {}  # a bookmark is no object
    api.watches[PODS].put(("break",))
    wait_for(lambda: pods_informer.errors == 1, what="the watch error")

    def watches() -> list[dict[str, list[str]]]:
        return [q for _m, _p, q, _b in api.seen("GET", PODS) if q.get("watch") == ["true"]]

    wait_for(lambda: len(watches()) >= 2, what="a second watch")
    assert watches()[1]["resourceVersion"] == ["900"]  # resumed from the bookmark, not relisted
    assert watches()[0]["allowWatchBookmarks"] == ["true"]
    assert pods_informer.relists == 0
    assert ks.metrics()["watches"]["pods"]["bookmarks"] == 1


@pytest.mark.parametrize("bad", [0, -5, True, "300", 10**6])
def test_watch_timeout_is_checked_before_anything_starts(api: FakeApi, bad: Any) -> None:
    with pytest.raises(KubeError, match="watch_timeout"):
        KubeScheduler(client_for(api), resources=CORE, watch_timeout=bad)


def test_the_watch_asks_the_server_for_the_timeout_given(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1"))
    start(watch_timeout=42)
    wait_for(lambda: any(q.get("watch") == ["true"] for _m, _p, q, _b in api.seen("GET", PODS)),
             what="a watch")
    watch = next(q for _m, _p, q, _b in api.seen("GET", PODS) if q.get("watch") == ["true"])
    assert watch["timeoutSeconds"] == ["42"]


def test_a_broken_watch_resumes_from_the_same_version_after_a_backoff(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1"))
    ks = start()
    api.watches[PODS].put(("break",))
    pods_informer = next(i for i in ks.informers if i.resource.plural == "pods")
    wait_for(lambda: pods_informer.errors == 1, what="the watch error")
    def watches() -> list[dict[str, list[str]]]:
        return [q for _m, _p, q, _b in api.seen("GET", PODS) if q.get("watch") == ["true"]]

    wait_for(lambda: len(watches()) >= 2, what="a second watch")
    first, second = watches()[:2]
    assert first["resourceVersion"] == second["resourceVersion"]
    assert pods_informer.relists == 0
    # and it still delivers events
    api.watches[PODS].put(("event", "ADDED", pod("late", scheduler="other", node_name="n1", rv=500)))
    wait_for(lambda: ks.scheduler.get_pod("default/late") is not None, what="the late pod")


def test_a_watch_broken_after_events_resumes_after_the_last_one(api: FakeApi, start: Any) -> None:
    """Resuming from the list's version would replay the events delivered since, stale ones
    included (a pending copy of a pod bound meanwhile)."""
    api.put(NODES, node("n1"))
    ks = start()
    pods_informer = next(i for i in ks.informers if i.resource.plural == "pods")
    api.watches[PODS].put(("event", "ADDED", pod("a", scheduler="other", node_name="n1", rv=500)))
    api.watches[PODS].put(("event", "MODIFIED", pod("a", scheduler="other", node_name="n1", rv=501)))
    api.watches[PODS].put(("break",))
    wait_for(lambda: pods_informer.errors == 1, what="the watch error")

    def watches() -> list[dict[str, list[str]]]:
        return [q for _m, _p, q, _b in api.seen("GET", PODS) if q.get("watch") == ["true"]]

    wait_for(lambda: len(watches()) >= 2, what="a second watch")
    assert watches()[1]["resourceVersion"] == ["501"]
    assert pods_informer.resource_version == "501"


def test_pods_of_the_profiles_are_bound_and_others_left_alone(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1"))
    api.put(PODS, pod("mine"))
    api.put(PODS, pod("theirs", scheduler="someone-else"))
    ks = start()
    bindings = wait_for(lambda: api.seen("POST", "/binding"), what="a binding")
    assert [b[1] for b in bindings] == ["/api/v1/namespaces/default/pods/mine/binding"]
    body = bindings[0][3]
    assert body["target"] == {"apiVersion": "v1", "kind": "Node", "name": "n1"}
    assert body["metadata"]["uid"] == "uid-mine"
    def scheduled() -> list[Any]:
        return [b for _m, _p, _q, b in api.seen("POST", "/events") if b["reason"] == "Scheduled"]

    events = wait_for(scheduled, what="the Scheduled event")
    assert events[0]["note"] == "Successfully assigned default/mine to n1"
    assert events[0]["regarding"]["name"] == "mine"
    assert ks.metrics()["pods_scheduled"] == 1


def test_a_refused_binding_is_retried_and_reported(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1"))
    api.put(PODS, pod("p"))
    api.binding_answers = [500]
    ks = start()
    wait_for(lambda: len(api.seen("POST", "/binding")) == 2, what="the retried binding")
    wait_for(lambda: ks.metrics()["pods_scheduled"] == 1, what="the pod bound")
    patches = wait_for(lambda: api.seen("PATCH", "/pods/p/status"), what="the condition")
    cond = patches[0][3]["status"]["conditions"][0]
    assert (cond["type"], cond["status"], cond["reason"]) == ("PodScheduled", "False", "SchedulerError")
    assert ks.binder.errors == 1
    assert ks.metrics()["binding_errors"] == 1


def test_a_conflict_takes_the_api_servers_word(api: FakeApi, start: Any) -> None:
    """409: someone else bound the pod; the informer's update settles it, no pod is lost."""
    api.put(NODES, node("n1"))
    api.put(NODES, node("n2"))
    api.put(PODS, pod("p"))
    api.binding_answers = [409, 409, 409]
    ks = start()
    wait_for(lambda: api.seen("POST", "/binding"), what="a binding")
    api.watches[PODS].put(("event", "MODIFIED", pod("p", node_name="n2", rv=900)))
    wait_for(lambda: (p := ks.scheduler.get_pod("default/p")) is not None and p.node_name == "n2",
             what="the pod bound where the API server says")
    assert ks.scheduler.node_of("default/p") == "n2"


def test_an_unschedulable_pod_gets_the_condition_and_the_event(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1", cpu="1"))
    api.put(PODS, pod("big", cpu="2"))
    start()
    patch = wait_for(lambda: api.seen("PATCH", "/pods/big/status"), what="the condition")[0][3]
    cond = patch["status"]["conditions"][0]
    assert (cond["status"], cond["reason"]) == ("False", "Unschedulable")
    # upstream's FitError message, PostFilter plugins' verdicts appended
    assert cond["message"] == ("0/1 nodes are available: 1 Insufficient cpu. "
                               "preemption: 0/1 nodes are available: 1 Preemption is not helpful for "
                               "scheduling.")
    event = next(b for _m, _p, _q, b in api.seen("POST", "/events") if b["reason"] == "FailedScheduling")
    assert (event["type"], event["action"], event["note"]) == ("Warning", "Scheduling", cond["message"])
    assert event["reportingController"] == "default-scheduler"
    assert not api.seen("POST", "/binding")


def test_an_event_refused_with_503_is_written_again(api: FakeApi, start: Any) -> None:
    api.put(NODES, node("n1", cpu="1"))
    api.put(PODS, pod("big", cpu="2"))
    api.event_answers = [503, 503]
    start()

    def failed_events() -> list[Any]:
        return [b for _m, _p, _q, b in api.seen("POST", "/events") if b["reason"] == "FailedScheduling"]

    wait_for(lambda: len(failed_events()) >= 3, what="the third try of the event")
    assert not api.event_answers  # the first two were refused, the third written


def test_truncate_message_keeps_upstreams_limit() -> None:
    assert truncate_message("x" * 1024) == "x" * 1024
    cut = truncate_message("y" * 2000)
    assert len(cut) == 1024
    assert cut.endswith(" ...")


def test_api_errors_carry_status_and_reason(api: FakeApi) -> None:
    session = ApiSession(client_for(api))
    with pytest.raises(KubeApiError) as err:
        session.request("GET", "/apis/nothing/v1/here")
    assert (err.value.status, err.value.reason) == (404, "NotFound")
    assert isinstance(err.value, KubeError)
    with pytest.raises(KubeError):
        ApiSession(object())


def test_scheduler_pod_deleter_must_be_callable() -> None:
    with pytest.raises(ArgumentTypeError):
        Scheduler(pod_deleter="nope")  # type: ignore[arg-type]


def test_cli_run_reports_a_missing_kubeconfig(tmp_path: Any) -> None:
    err = io.StringIO()
    with redirect_stderr(err):
        code = main(["run", "--kubeconfig", str(tmp_path / "absent.yaml")])
    assert code == 2
    assert "absent.yaml" in err.getvalue()


def test_cli_run_help_lists_its_options() -> None:
    out = io.StringIO()
    with redirect_stdout(out):
        code = main(["run", "--help"])
    assert code == 0
    for flag in ("--kubeconfig", "--config", "--leader-elect", "--health-port"):
        assert flag in out.getvalue()


def test_the_cluster_examples_parse_and_grant_what_the_scheduler_uses() -> None:
    """docs/examples/kube: the ConfigMap's configuration loads, the Deployment runs
    ``schedframe run``, and the ClusterRole grants list/watch on every watched resource and the
    writes KubeScheduler makes."""
    yaml = pytest.importorskip("yaml")
    from pathlib import Path

    from schedframe import SchedulerConfiguration

    base = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kube"
    docs = [d for f in ("rbac.yaml", "deployment.yaml") for d in yaml.safe_load_all((base / f).read_text())]
    by_kind = {d["kind"]: d for d in docs}
    assert set(by_kind) == {"ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "Deployment"}
    cfg = SchedulerConfiguration.from_yaml(by_kind["ConfigMap"]["data"]["config.yaml"])
    assert [p.scheduler_name for p in cfg.profiles] == ["schedframe"]
    container = by_kind["Deployment"]["spec"]["template"]["spec"]["containers"][0]
    assert "schedframe run" in " ".join(container["args"])
    assert by_kind["Deployment"]["spec"]["template"]["spec"]["serviceAccountName"] == "schedframe"

    granted: set[tuple[str, str, str]] = set()
    for rule in by_kind["ClusterRole"]["rules"]:
        for group in rule["apiGroups"]:
            for resource in rule["resources"]:
                for verb in rule["verbs"]:
                    granted.add((group, resource, verb))
    for r in SCHEDULER_RESOURCES:
        group = "" if r.api_version == "v1" else r.api_version.split("/")[0]
        for verb in ("list", "watch"):
            assert (group, r.plural, verb) in granted, (r.plural, verb)
    for need in (("", "pods/binding", "create"), ("", "pods/status", "patch"), ("", "pods", "delete"),
                 ("events.k8s.io", "events", "create"), ("coordination.k8s.io", "leases", "update"),
                 ("coordination.k8s.io", "leases", "create"), ("coordination.k8s.io", "leases", "get")):
        assert need in granted, need


def test_an_optional_kind_the_role_does_not_grant_is_skipped(api: FakeApi, start: Any,
                                                               caplog: pytest.LogCaptureFixture) -> None:
    """A CRD kind (here ElasticQuota) whose list is forbidden (403) is not watched, with a warning
    naming it; the scheduler syncs and schedules without it instead of waiting for ever."""
    quotas = next(r for r in SCHEDULER_RESOURCES if r.kind == "ElasticQuota")
    api.add_collection(quotas.path, "ElasticQuota")
    api.list_answers[quotas.path] = [403]
    api.put(NODES, node("n1"))
    api.put(PODS, pod("p1"))
    with caplog.at_level("WARNING", logger="schedframe.kube"):
        ks = start(resources=(*CORE, quotas))
    informer = next(i for i in ks.informers if i.resource.kind == "ElasticQuota")
    assert informer.absent
    assert any("elasticquotas" in r.getMessage() and "forbidden" in r.getMessage() for r in caplog.records)
    bindings = wait_for(lambda: api.seen("POST", "/binding"), what="a binding")
    assert [b[1] for b in bindings] == ["/api/v1/namespaces/default/pods/p1/binding"]
