"""schedframe.kube.KubeScheduler end to end against a real kube-apiserver.

Each test starts its own KubeScheduler(s) on the session's API server, in a fresh namespace with
nodes of its own; no kubelet runs, so a bound pod only has spec.nodeName set.  Everything is
observed through the API (pods, events, the Lease), as a user would, with generous polling.
"""

from __future__ import annotations

import json
import os
import pathlib
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Callable, Iterator
from typing import Any

import pytest

from ._cluster import pod_body, wait_for

kube_mod = pytest.importorskip("schedframe.kube")
k = pytest.importorskip("kubernetes.client")
ApiException = pytest.importorskip("kubernetes.client.rest").ApiException
kwatch = pytest.importorskip("kubernetes.watch")

SCHEDULER = "schedframe"
TIMEOUT = 90.0
NODE = {"cpu": "2", "memory": "4Gi", "pods": "110"}


def config(scheduler_name: str = SCHEDULER) -> dict[str, Any]:
    return {
        "apiVersion": "kubescheduler.config.k8s.io/v1",
        "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": scheduler_name}],
    }


@pytest.fixture
def start_scheduler(kube) -> Iterator[Callable[..., Any]]:
    """start_scheduler(api_client=None, **kwargs) -> a started, synced KubeScheduler on its own
    ApiClient (stopped after)."""
    started: list[Any] = []

    def start(*, sync: bool = True, api_client: Any = None, **kwargs: Any) -> Any:
        kwargs.setdefault("config", config())
        ks = kube_mod.KubeScheduler(api_client or kube.new_client(), **kwargs)
        started.append(ks)
        ks.start()
        if sync:
            assert ks.wait_for_sync(timeout=60.0)
        return ks

    try:
        yield start
    finally:
        for ks in reversed(started):
            try:
                ks.stop(timeout=10.0)
            except Exception as e:  # a failed stop must not hide the test's own failure
                print(f"KubeScheduler.stop failed: {e!r}")


@pytest.fixture
def core(kube) -> Any:
    return k.CoreV1Api(kube.api_client)


def create_pod(core: Any, ns: str, name: str, **kwargs: Any) -> Any:
    kwargs.setdefault("scheduler_name", SCHEDULER)
    return core.create_namespaced_pod(ns, pod_body(name, **kwargs))


def node_of(core: Any, ns: str, name: str) -> str | None:
    try:
        return core.read_namespaced_pod(name, ns).spec.node_name
    except ApiException as e:
        if e.status == 404:
            return None
        raise


def wait_bound(core: Any, ns: str, name: str, timeout: float = TIMEOUT) -> str:
    return str(wait_for(lambda: node_of(core, ns, name), timeout=timeout, what=f"{ns}/{name} to be bound"))


def scheduled_condition(core: Any, ns: str, name: str) -> Any:
    pod = core.read_namespaced_pod(name, ns)
    for c in pod.status.conditions or []:
        if c.type == "PodScheduled":
            return c
    return None


def wait_unschedulable(core: Any, ns: str, name: str) -> Any:
    def check() -> Any:
        c = scheduled_condition(core, ns, name)
        return c if c is not None and c.status == "False" else None

    return wait_for(check, timeout=TIMEOUT, what=f"{ns}/{name} to be marked unschedulable")


def events_for(core: Any, ns: str, name: str, reason: str) -> list[Any]:
    # events.k8s.io/v1 and core/v1 Events are one resource: the core list shows both
    return [
        e for e in core.list_namespaced_event(ns).items
        if e.involved_object.name == name and e.reason == reason
    ]


def requested_cpu_milli(core: Any, ns: str, node: str) -> int:
    total = 0
    for p in core.list_namespaced_pod(ns, field_selector=f"spec.nodeName={node}").items:
        for c in p.spec.containers:
            cpu = ((c.resources and c.resources.requests) or {}).get("cpu", "0")
            total += int(cpu[:-1]) if cpu.endswith("m") else int(float(cpu) * 1000)
    return total


# --- binding and capacity ------------------------------------------------------------------------


def test_binds_pods_within_node_capacity(kube, namespace, make_node, start_scheduler, core):
    nodes = [make_node("cap", NODE) for _ in range(2)]
    ks = start_scheduler()
    names = [f"p{i}" for i in range(4)]
    for name in names:
        create_pod(core, namespace, name, requests={"cpu": "1", "memory": "1Gi"})
    placed = {name: wait_bound(core, namespace, name) for name in names}
    assert set(placed.values()) <= set(nodes)
    for node in nodes:
        assert requested_cpu_milli(core, namespace, node) <= 2000

    for name, node in placed.items():
        assert scheduled_condition(core, namespace, name).status == "True"
        events = wait_for(lambda name=name: events_for(core, namespace, name, "Scheduled"),
                          timeout=TIMEOUT, what=f"a Scheduled event for {name}")
        assert events[0].message == f"Successfully assigned {namespace}/{name} to {node}"

    # both nodes are full now: one more CPU does not fit anywhere
    create_pod(core, namespace, "extra", requests={"cpu": "1"})
    cond = wait_unschedulable(core, namespace, "extra")
    assert cond.reason == "Unschedulable"
    assert cond.message
    assert node_of(core, namespace, "extra") is None
    failed = wait_for(lambda: events_for(core, namespace, "extra", "FailedScheduling"),
                      timeout=TIMEOUT, what="a FailedScheduling event")
    assert failed[0].type == "Warning"

    metrics = ks.metrics()
    assert metrics["pods_scheduled"] == 4
    assert metrics["schedule_attempts"]["scheduled"] == 4
    assert metrics["schedule_attempts"]["unschedulable"] >= 1
    assert metrics["binding_errors"] == 0
    assert metrics["scheduling_latency_seconds"]["count"] >= 4


def test_pod_that_fits_nowhere_stays_pending_then_binds_when_a_node_appears(
    kube, namespace, make_node, start_scheduler, core
):
    make_node("small", NODE)
    start_scheduler()
    create_pod(core, namespace, "big", requests={"cpu": "3", "memory": "1Gi"})
    cond = wait_unschedulable(core, namespace, "big")
    assert cond.reason == "Unschedulable"
    assert wait_for(lambda: events_for(core, namespace, "big", "FailedScheduling"),
                    timeout=TIMEOUT, what="a FailedScheduling event")
    pod = core.read_namespaced_pod("big", namespace)
    assert pod.status.phase == "Pending"
    assert pod.spec.node_name is None

    large = make_node("large", {"cpu": "8", "memory": "16Gi", "pods": "110"})
    assert wait_bound(core, namespace, "big") == large


def test_pods_of_another_scheduler_are_left_alone(kube, namespace, make_node, start_scheduler, core):
    make_node("other", NODE)
    ks = start_scheduler()
    create_pod(core, namespace, "theirs", scheduler_name="some-other-scheduler")
    create_pod(core, namespace, "default", scheduler_name=None)  # default-scheduler
    create_pod(core, namespace, "ours")
    wait_bound(core, namespace, "ours")
    # "ours" was created last and is bound: the others were seen and passed over
    for name in ("theirs", "default"):
        assert node_of(core, namespace, name) is None
        assert scheduled_condition(core, namespace, name) is None
        assert not events_for(core, namespace, name, "FailedScheduling")
        assert not events_for(core, namespace, name, "Scheduled")
    wait_for(lambda: ks.metrics()["pods_scheduled"] == 1, timeout=TIMEOUT,
             what="the scheduler to count its binding")


def test_pod_deleted_while_pending_is_dropped(kube, namespace, make_node, start_scheduler, core):
    make_node("drop", NODE)
    ks = start_scheduler()
    create_pod(core, namespace, "doomed", requests={"cpu": "3"})
    wait_unschedulable(core, namespace, "doomed")
    key = f"{namespace}/doomed"
    assert ks.scheduler.get_pod(key) is not None
    core.delete_namespaced_pod("doomed", namespace, grace_period_seconds=0)
    wait_for(lambda: ks.scheduler.get_pod(key) is None, timeout=TIMEOUT, what="the scheduler to drop the pod")
    assert all(p.pod.key != key for p in ks.scheduler.pending())

    # a node it would have fitted: nothing tries to bind the deleted pod
    big = make_node("drop-big", {"cpu": "8", "memory": "16Gi", "pods": "110"})
    create_pod(core, namespace, "probe", requests={"cpu": "3"})
    assert wait_bound(core, namespace, "probe") == big
    assert ks.metrics()["binding_errors"] == 0
    assert not events_for(core, namespace, "doomed", "Scheduled")


def test_restart_does_not_bind_twice_and_counts_bound_pods(kube, namespace, make_node, start_scheduler, core):
    node = make_node("restart", NODE)
    first = start_scheduler()
    create_pod(core, namespace, "before", requests={"cpu": "1"})
    assert wait_bound(core, namespace, "before") == node
    first.stop(timeout=10.0)

    second = start_scheduler()
    create_pod(core, namespace, "after-1", requests={"cpu": "1"})
    create_pod(core, namespace, "after-2", requests={"cpu": "1"})
    # the node has room for one more CPU: the restarted scheduler counts the pod bound before it
    bound = wait_for(
        lambda: [n for n in ("after-1", "after-2") if node_of(core, namespace, n)],
        timeout=TIMEOUT, what="one of the new pods to be bound",
    )
    assert len(bound) == 1
    (left,) = {"after-1", "after-2"} - set(bound)
    wait_unschedulable(core, namespace, left)
    assert node_of(core, namespace, left) is None
    assert node_of(core, namespace, "before") == node
    assert len(events_for(core, namespace, "before", "Scheduled")) == 1
    metrics = second.metrics()
    assert metrics["pods_scheduled"] == 1
    assert metrics["binding_errors"] == 0


# --- leader election -----------------------------------------------------------------------------


def test_leader_election_one_instance_binds_and_the_other_takes_over(
    kube, namespace, make_node, start_scheduler, core
):
    make_node("le", {"cpu": "8", "memory": "16Gi", "pods": "110"})
    lease = f"schedframe-{uuid.uuid4().hex[:6]}"
    common = {"leader_election": True, "lease_name": lease, "lease_namespace": namespace}
    a = start_scheduler(identity="it-a", sync=False, **common)
    b = start_scheduler(identity="it-b", sync=False, **common)
    leader = wait_for(lambda: [s for s in (a, b) if s.is_leader], timeout=TIMEOUT, what="a leader")
    assert len(leader) == 1
    leader, follower = (a, b) if leader[0] is a else (b, a)
    identities = {id(a): "it-a", id(b): "it-b"}
    coord = k.CoordinationV1Api(kube.api_client)
    assert coord.read_namespaced_lease(lease, namespace).spec.holder_identity == identities[id(leader)]

    for i in range(3):
        create_pod(core, namespace, f"p{i}", requests={"cpu": "100m"})
    for i in range(3):
        wait_bound(core, namespace, f"p{i}")
    assert not follower.is_leader
    # the binding is visible in the API before the scheduler's bound hook has counted it
    wait_for(lambda: leader.metrics()["pods_scheduled"] == 3, timeout=TIMEOUT,
             what="the leader to count its 3 bindings")
    assert follower.metrics()["pods_scheduled"] == 0

    leader.stop(timeout=10.0)
    assert not leader.is_leader
    wait_for(lambda: follower.is_leader, timeout=TIMEOUT, what="the other instance to take the lease")
    assert coord.read_namespaced_lease(lease, namespace).spec.holder_identity == identities[id(follower)]
    create_pod(core, namespace, "late", requests={"cpu": "100m"})
    wait_bound(core, namespace, "late")
    wait_for(lambda: follower.metrics()["pods_scheduled"] == 1, timeout=TIMEOUT,
             what="the new leader to count its binding")
    for i in range(3):
        wait_for(lambda i=i: len(events_for(core, namespace, f"p{i}", "Scheduled")) == 1,
                 timeout=TIMEOUT, what=f"one Scheduled event for p{i}")


# --- preemption ----------------------------------------------------------------------------------


@pytest.fixture
def priority_classes(kube) -> Iterator[tuple[str, str]]:
    api = k.SchedulingV1Api(kube.api_client)
    suffix = uuid.uuid4().hex[:6]
    low, high = f"it-low-{suffix}", f"it-high-{suffix}"
    api.create_priority_class(k.V1PriorityClass(metadata=k.V1ObjectMeta(name=low), value=10))
    api.create_priority_class(k.V1PriorityClass(metadata=k.V1ObjectMeta(name=high), value=1000))
    try:
        yield low, high
    finally:
        for name in (low, high):
            try:
                api.delete_priority_class(name)
            except ApiException as e:
                if e.status != 404:
                    raise


def test_high_priority_pod_preempts_a_low_priority_one(
    kube, namespace, make_node, start_scheduler, core, priority_classes
):
    low, high = priority_classes
    node = make_node("preempt", NODE)
    # no kubelet runs here: a victim deleted with its grace period would stay Terminating
    start_scheduler(victim_grace_period=0)
    for name in ("low-1", "low-2"):
        create_pod(core, namespace, name, requests={"cpu": "1"}, priority_class=low)
        assert wait_bound(core, namespace, name) == node

    created = create_pod(core, namespace, "high", requests={"cpu": "1"}, priority_class=high)
    assert created.spec.priority == 1000
    nominated: set[str] = set()
    bound_to = None
    w = kwatch.Watch()
    for event in w.stream(
        core.list_namespaced_pod, namespace, field_selector="metadata.name=high",
        resource_version=created.metadata.resource_version, timeout_seconds=int(TIMEOUT),
    ):
        pod = event["object"]
        if pod.status.nominated_node_name:
            nominated.add(pod.status.nominated_node_name)
        if pod.spec.node_name:
            bound_to = pod.spec.node_name
            w.stop()
    assert bound_to == node
    assert nominated == {node}

    survivors = [n for n in ("low-1", "low-2") if node_of(core, namespace, n)]
    assert len(survivors) == 1  # one victim was deleted through the API, the other stays
    assert requested_cpu_milli(core, namespace, node) == 2000


# --- health endpoint -----------------------------------------------------------------------------


def test_health_endpoints(kube, make_node, start_scheduler):
    make_node("health", NODE)
    ks = start_scheduler(health_port=0)
    host, port = ks.health_address
    for path in ("/healthz", "/readyz"):
        with urllib.request.urlopen(f"http://{host}:{port}{path}", timeout=10) as resp:
            assert resp.status == 200
    with urllib.request.urlopen(f"http://{host}:{port}/metrics", timeout=10) as resp:
        assert resp.status == 200
        body = resp.read().decode()
    assert body.strip()
    json.dumps(ks.metrics())  # the metrics dict is plain data


# --- command line --------------------------------------------------------------------------------


def test_cli_run_with_a_kubeconfig_binds_and_stops_on_sigterm(kube, namespace, make_node, core, tmp_path):
    node = make_node("cli", NODE)
    cfg = tmp_path / "config.json"
    cfg.write_text(json.dumps(config()))
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    import schedframe

    env = dict(os.environ)
    src = str(pathlib.Path(schedframe.__file__).resolve().parent.parent)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (src, env.get("PYTHONPATH")) if p)
    log = tmp_path / "run.log"
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "schedframe", "run", "--kubeconfig", str(kube.kubeconfig),
             "--config", str(cfg), "--health-port", str(port), "--health-host", "127.0.0.1"],
            stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=env,
        )
    try:
        create_pod(core, namespace, "via-cli", requests={"cpu": "500m"})

        def bound() -> str | None:
            if proc.poll() is not None:
                pytest.fail(f"schedframe run exited with {proc.returncode}:\n{log.read_text()[-3000:]}")
            return node_of(core, namespace, "via-cli")

        assert wait_for(bound, timeout=TIMEOUT, what="the CLI to bind the pod") == node
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=10) as resp:
            assert resp.status == 200
        proc.send_signal(signal.SIGTERM)
        assert proc.wait(timeout=60) == 0, log.read_text()[-3000:]
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=30)


# --- a watch drop ----------------------------------------------------------------------------------


def _proxied_client(kube: Any) -> tuple[Any, Any]:
    """A TcpProxy in front of the API server, and a client that talks through it."""
    from urllib.parse import urlsplit

    from ._cluster import TcpProxy

    url = urlsplit(kube.server)
    proxy = TcpProxy((url.hostname, url.port))
    # built by hand: a kubeconfig-loaded client resets its host from the file on each request
    cfg = k.Configuration()
    cfg.host = f"https://127.0.0.1:{proxy.port}"
    cfg.ssl_ca_cert = str(kube.ca_file)
    cfg.api_key = {"authorization": f"Bearer {kube.token}"}
    return proxy, k.ApiClient(cfg)


def _stop_for_good(ks: Any, timeout: float = 15.0) -> None:
    """Stop *ks* and wait for its informer threads to end, so that no watch connection outlives
    the test (a thread ending later drops its socket unclosed, a ResourceWarning in another
    test)."""
    ks.stop(timeout=timeout)
    for inf in ks.informers:
        inf.stop(timeout=timeout)


def _informer(ks: Any, plural: str) -> Any:
    return next(i for i in ks.informers if i.resource.plural == plural and i.resource.api_version == "v1")


def test_watches_cut_mid_stream_resume_and_later_pods_are_bound(kube, namespace, make_node, start_scheduler,
                                                                core):
    """Every connection of the scheduler (its watches included) is dropped between it and the
    API server; the informers reconnect, and a pod created after the drop is still bound."""
    proxy, client = _proxied_client(kube)
    try:
        make_node("drop", NODE)
        ks = start_scheduler(api_client=client, resync_backoff=(0.1, 1.0))
        create_pod(core, namespace, "before", requests={"cpu": "100m"})
        wait_bound(core, namespace, "before")
        accepted = proxy.accepted
        assert proxy.cut() >= 2  # at least the node and pod watches were open
        create_pod(core, namespace, "after", requests={"cpu": "100m"})
        wait_bound(core, namespace, "after")
        assert node_of(core, namespace, "before")  # nothing unbound or lost
        assert proxy.accepted > accepted  # it came back through new connections
        wait_for(lambda: ks.metrics()["pods_scheduled"] == 2, timeout=TIMEOUT,
                 what="the scheduler to count both bindings")
        wait_for(lambda: events_for(core, namespace, "after", "Scheduled"), timeout=TIMEOUT,
                 what="the Scheduled event of the pod created after the drop")
    finally:
        proxy.close()
        client.close()


def test_an_api_server_restart_answers_old_watches_410_and_the_informers_list_again(
        kube, namespace, make_node, start_scheduler, core):
    """The scheduler is cut off from the API server; meanwhile a bigger node and a pod that fits
    only there are created, and the API server restarts. Its new watch cache begins after the
    versions the informers resume from, so their watches are answered 410 Gone: they list again,
    see what they missed, and the pod is bound to the new node."""
    proxy, client = _proxied_client(kube)
    ks = None
    try:
        make_node("restart", NODE)
        ks = start_scheduler(api_client=client, resync_backoff=(0.1, 1.0))
        create_pod(core, namespace, "before", requests={"cpu": "100m"})
        wait_bound(core, namespace, "before")
        nodes, pods = _informer(ks, "nodes"), _informer(ks, "pods")
        assert (nodes.expired, pods.expired) == (0, 0)
        assert proxy.hold() >= 2
        big = make_node("big", {"cpu": "64", "memory": "64Gi", "pods": "110"})
        create_pod(core, namespace, "after", requests={"cpu": "32"})  # more than NODE has
        kube.restart_apiserver()
        proxy.release()
        assert wait_bound(core, namespace, "after") == big
        assert (nodes.expired >= 1, pods.expired >= 1) == (True, True)
        assert (nodes.relists >= 1, pods.relists >= 1) == (True, True)
        assert node_of(core, namespace, "before")  # nothing unbound or lost
        wait_for(lambda: ks.metrics()["pods_scheduled"] == 2, timeout=TIMEOUT,
                 what="the scheduler to count both bindings")
        assert ks.metrics()["watches"]["pods"]["expired"] == pods.expired
    finally:
        proxy.close()  # the watches end with their connections
        if ks is not None:
            _stop_for_good(ks)
        client.close()


def test_bookmarks_carry_watches_past_their_timeout_without_a_list(kube, namespace, make_node,
                                                                  start_scheduler, core):
    """The pods' watch leaves finished pods out (its field selector), so a finished pod's changes
    move the API server's watch cache on without an event for it. Each watch asks for a 5 s
    timeout, and shortly before the end the server sends a bookmark at the newer version: the
    informer resumes from there, never lists again nor sees the finished pod, and a pod created
    later is still bound."""
    node = make_node("bookmark", NODE)
    create_pod(core, namespace, "done", scheduler_name="someone-else", node_name=node)
    core.patch_namespaced_pod_status("done", namespace, {"status": {"phase": "Succeeded"}})
    ks = start_scheduler(watch_timeout=5)
    try:
        _bookmarks_carry_watches(ks, core, namespace, node)
    finally:
        _stop_for_good(ks)


def _bookmarks_carry_watches(ks: Any, core: Any, namespace: str, node: str) -> None:
    pods = _informer(ks, "pods")
    assert f"{namespace}/done" not in pods.store
    deadline = time.monotonic() + 60.0
    i = 0
    while pods.bookmarks < 1 or pods.watch_restarts < 2:
        assert time.monotonic() < deadline, f"no bookmark in 60 s: {ks.metrics()['watches']['pods']}"
        i += 1
        core.patch_namespaced_pod("done", namespace, {"metadata": {"labels": {"touched": str(i)}}})
        time.sleep(0.5)
    counters = ks.metrics()["watches"]
    troubled = {name: c for name, c in counters.items() if c["relists"] or c["expired"] or c["errors"]}
    assert troubled == {}
    assert f"{namespace}/done" not in pods.store
    assert ks.scheduler.get_pod(f"{namespace}/done") is None
    create_pod(core, namespace, "later", requests={"cpu": "100m"})
    assert wait_bound(core, namespace, "later") == node
