"""Issue #43 ("your own cluster, round 2"), the simulator's bookkeeping: finished pods hold
nothing, DaemonSets run as their controller does, the wait CDF counts never-bound pods, sweep
specs resolve paths from the spec, a dump incomplete for what it holds is said at load time, and
four hostile inputs fail clearly."""

from __future__ import annotations

import io
import json
import warnings
from pathlib import Path
from typing import Any

import pytest
import yaml

from schedframe import SchedframeWarning, Scheduler
from schedframe.cache.cache import Cache
from schedframe.cache.snapshot import Snapshot
from schedframe.cli import EXIT_OK, main
from schedframe.errors import CacheError
from schedframe.sim import (
    DELETED,
    EVICTED,
    FAILED,
    PENDING,
    RUNNING,
    SUCCEEDED,
    NodeEvent,
    Scenario,
    Workload,
    simulate,
)
from schedframe.testing import make_node, make_pod


def run(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    code = main(list(argv), stdout=out)
    return code, out.getvalue()


def node(name: str, zone: str = "a", cpu: str = "4") -> Any:
    return (make_node(name).capacity(cpu=cpu, memory="16Gi", pods=110)
            .label("kubernetes.io/hostname", name).label("topology.kubernetes.io/zone", zone).obj())


def _node_manifest(name: str, zone: str, kubelet: str = "") -> dict[str, Any]:
    alloc = {"cpu": "4", "memory": "16Gi", "pods": "110"}
    status: dict[str, Any] = {"allocatable": alloc, "capacity": alloc}
    if kubelet:
        status["nodeInfo"] = {"kubeletVersion": kubelet}
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name,
                                                  "topology.kubernetes.io/zone": zone}},
            "status": status}


def _pod_manifest(name: str, cpu: str, node: str = "", phase: str = "", owner: str = "",
                  **spec: Any) -> dict[str, Any]:
    meta: dict[str, Any] = {"name": name, "namespace": "default"}
    if owner:
        kind, owner_name = owner.split("/")
        meta["ownerReferences"] = [{"apiVersion": "batch/v1" if kind == "Job" else "apps/v1", "kind": kind,
                                    "name": owner_name, "uid": f"{owner_name}-uid", "controller": True}]
    body: dict[str, Any] = {"containers": [{"name": "c", "image": "x",
                                            "resources": {"requests": {"cpu": cpu}}}], **spec}
    if node:
        body["nodeName"] = node
    out: dict[str, Any] = {"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": body}
    if phase:
        out["status"] = {"phase": phase}
    return out


def _write(tmp_path: Path, items: list[dict[str, Any]], name: str = "dump.yaml") -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump({"apiVersion": "v1", "kind": "List", "items": items}))
    return path


# -- 1. finished pods ----------------------------------------------------------------------------


def _finished_dump(tmp_path: Path) -> Path:
    """One 4-CPU node holding a running 1-CPU pod, a Succeeded Job pod of 3 CPUs and a Failed pod
    of 3 CPUs, and a pending pod of 3 CPUs."""
    return _write(tmp_path, [
        _node_manifest("n1", "a"),
        _pod_manifest("web", "1", node="n1", phase="Running"),
        _pod_manifest("job-abcde", "3", node="n1", phase="Succeeded", owner="Job/job"),
        _pod_manifest("crashed", "3", node="n1", phase="Failed"),
        _pod_manifest("late", "3"),
    ])


def test_finished_pods_are_listed_in_their_phase_and_hold_nothing(tmp_path: Path) -> None:
    """A Succeeded and a Failed pod of a dump used to show as Running, count in RUNNING and add
    6 CPUs to a 4-CPU node; they are now listed as Succeeded / Failed, hold nothing, and the
    pending pod fits beside the running one."""
    r = simulate(Scenario("own").with_cluster(_finished_dump(tmp_path)))
    states = {p.key: (p.state, p.node) for p in r.pods}
    assert states == {
        "default/web": (RUNNING, "n1"),
        "default/job-abcde": (SUCCEEDED, "n1"),
        "default/crashed": (FAILED, "n1"),
        "default/late": (RUNNING, "n1"),
    }
    assert r.metrics.running == 2
    assert r.metrics.pods == 1  # only the pending pod is created during the run
    (series,) = r.nodes
    assert max(series.requested["cpu"]) == 4000  # 1 + 3 CPUs, never the finished pods' 6 more
    assert r.metrics.utilisation_peak["cpu"] == pytest.approx(1.0)
    assert all(s.running <= 2 for s in r.samples)
    finished = [p for p in r.pods if p.state in (SUCCEEDED, FAILED)]
    assert all(p.initial and p.bound_at is None and p.wait is None for p in finished)


def test_cli_pods_lists_finished_pods_and_the_header_counts_them(tmp_path: Path) -> None:
    """``simulate --cluster --pods`` lists the finished pods as Succeeded / Failed, the header says
    they are finished, not bound, and RUNNING counts only the running ones."""
    path = _finished_dump(tmp_path)
    code, text = run("simulate", "--cluster", str(path), "--json")
    assert code == EXIT_OK
    doc = json.loads(text)
    assert "(1 bound, 1 pending, 2 finished" in doc["description"]
    (res,) = doc["results"]
    assert {p["key"]: p["state"] for p in res["pods"]}["default/job-abcde"] == "Succeeded"
    assert res["metrics"]["running"] == 2
    code, text = run("simulate", "--cluster", str(path), "--pods", "--plain")
    assert code == EXIT_OK
    rows = {line.split()[0]: line.split()[1] for line in text.splitlines() if line.startswith("default/")}
    assert rows == {"default/web": "Running", "default/job-abcde": "Succeeded", "default/crashed": "Failed",
                    "default/late": "Running"}


def test_a_finished_pod_never_enters_a_node_info() -> None:
    """kube-scheduler's informers never hand a finished pod to the cache: the Scheduler only
    remembers it, a Snapshot built from objects leaves it out, and the Cache refuses it."""
    n1 = node("n1")
    done = make_pod("done").req(cpu="3").node("n1").phase("Succeeded").obj()
    failed = make_pod("failed").req(cpu="3").node("n1").phase("Failed").obj()
    sched = Scheduler()
    sched.add_node(n1)
    sched.add_pod(done)
    sched.add_pod(failed)
    snap = Snapshot()
    sched.cache.update_snapshot(snap)
    info = snap.get("n1")
    assert info is not None
    assert (info.pods, info.requested.milli_cpu) == ([], 0)
    built = Snapshot.from_objects([n1], [done, failed]).get("n1")
    assert built is not None
    assert built.pods == []
    cache = Cache()
    cache.add_node(n1)
    with pytest.raises(CacheError, match="is in phase Succeeded, so it cannot be added"):
        cache.add_pod(done)
    with pytest.raises(CacheError, match="is in phase Failed, so it cannot be assumed"):
        cache.assume_pod(failed)


def test_finished_pods_stay_finished_when_their_node_goes(tmp_path: Path) -> None:
    """Removing or draining the node of a finished pod neither evicts nor recreates it."""
    s = Scenario("own").with_cluster(_finished_dump(tmp_path))
    s = Scenario("own", nodes=(*s.nodes, node("n2", "b")), pods=s.pods, objects=s.objects,
                 events=[NodeEvent(5, "drain", ("n1",)), NodeEvent(10, "remove", ("n1",))], until=20)
    r = simulate(s)
    assert r.pod("default/job-abcde").state == SUCCEEDED
    assert r.pod("default/crashed").state == FAILED
    assert r.metrics.recreated == 0  # web and late are bare pods: nobody recreates them
    assert r.pod("default/web").state == EVICTED


# -- 2. DaemonSets -------------------------------------------------------------------------------


def _daemon_set(name: str = "agent") -> dict[str, Any]:
    return {"apiVersion": "apps/v1", "kind": "DaemonSet",
            "metadata": {"name": name, "namespace": "default", "uid": f"{name}-uid"},
            "spec": {"selector": {"matchLabels": {"app": name}},
                     "template": {"metadata": {"labels": {"app": name}},
                                  "spec": {"containers": [{"name": "c", "image": "x",
                                                           "resources": {"requests": {"cpu": "100m"}}}]}}}}


def _daemon_pod(name: str, node: str, ds: str = "agent") -> dict[str, Any]:
    affinity = {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
        {"matchFields": [{"key": "metadata.name", "operator": "In", "values": [node]}]}]}}}
    pod = _pod_manifest(name, "100m", node=node, phase="Running", owner=f"DaemonSet/{ds}", affinity=affinity)
    pod["metadata"]["labels"] = {"app": ds}
    return pod


def _daemon_dump(tmp_path: Path) -> Path:
    return _write(tmp_path, [
        _node_manifest("n1", "a"), _node_manifest("n2", "b"), _daemon_set(),
        _daemon_pod("agent-aaaaa", "n1"), _daemon_pod("agent-bbbbb", "n2"),
        _pod_manifest("web-1", "1", node="n2", phase="Running", owner="ReplicaSet/web"),
    ])


def test_a_daemon_set_pod_goes_with_its_removed_node(tmp_path: Path) -> None:
    """A removed node's DaemonSet pod used to be recreated pinned to the gone node and stay
    Pending (``didn't satisfy plugin(s) [NodeAffinity]``); it now goes with the node, while the
    ReplicaSet's pod is recreated elsewhere, and nothing stays pending."""
    events = [NodeEvent(10, "remove", ("n2",))]
    s = Scenario("rm", events=events, until=60).with_cluster(_daemon_dump(tmp_path))
    r = simulate(s)
    assert r.pod("default/agent-bbbbb").state == EVICTED
    assert r.pod("default/agent-bbbbb").replaced_by == ""
    assert r.pod("default/agent-aaaaa").state == RUNNING
    web = r.pod("default/web-1")
    assert web.replaced_by
    assert r.pod(web.replaced_by).state == RUNNING
    assert (r.metrics.pending, r.metrics.recreated) == (0, 1)
    scenario = tmp_path / "rm.yaml"
    scenario.write_text(yaml.safe_dump({"name": "rm", "until": 60,
                                        "events": [{"at": 10, "action": "remove", "nodes": ["n2"]}]}))
    code, _ = run("simulate", str(scenario), "--cluster", str(tmp_path / "dump.yaml"),
                  "--fail-on-pending", "--plain")
    assert code == EXIT_OK


def test_drain_leaves_daemon_set_pods(tmp_path: Path) -> None:
    """A drain evicts the node's other pods but, as ``kubectl drain --ignore-daemonsets``, leaves
    its DaemonSet pod running there."""
    s = Scenario("d", events=[NodeEvent(10, "drain", ("n2",))], until=60).with_cluster(_daemon_dump(tmp_path))
    r = simulate(s)
    assert (r.pod("default/agent-bbbbb").state, r.pod("default/agent-bbbbb").node) == (RUNNING, "n2")
    assert r.pod("default/web-1").state == EVICTED
    assert r.metrics.pending == 0


def test_a_daemon_set_runs_a_pod_on_an_added_node(tmp_path: Path) -> None:
    """A node added by an event gets the DaemonSet's pod (bound there), as the controller creates
    one for every eligible node; a tainted node the pod does not tolerate gets none."""
    added = node("n3", "c")
    tainted = make_node("n4").capacity(cpu="4", memory="16Gi", pods=110).taint("dedicated", "gpu").obj()
    s = Scenario("add", events=[NodeEvent(5, "add", node=added), NodeEvent(6, "add", node=tainted)],
                 until=30).with_cluster(_daemon_dump(tmp_path))
    r = simulate(s)
    mine = [p for p in r.pods if p.key.startswith("default/agent-") and p.arrival == 5]
    assert [(p.state, p.node) for p in mine] == [(RUNNING, "n3")]
    assert not [p for p in r.pods if p.arrival == 6]
    assert r.metrics.pending == 0
    log = io.StringIO()
    assert simulate(s, log=log) == r  # the same run again: the same names
    from schedframe.sim import replay

    assert replay(log.getvalue().splitlines()) == r


def test_a_pending_daemon_set_pod_goes_when_its_node_goes(tmp_path: Path) -> None:
    """A DaemonSet pod not bound yet (its full node has no room) is deleted by its controller when
    the node goes, instead of waiting for ever; a node added later with the name of one gone gets a
    pod of a fresh name."""
    path = _write(tmp_path, [
        _node_manifest("n1", "a"), _node_manifest("n2", "b"), _daemon_set(),
        _daemon_pod("agent-bbbbb", "n2"),
        _pod_manifest("hog", "4", node="n1", phase="Running"),
    ])
    back = node("n1")
    s = Scenario("rm", events=[NodeEvent(10, "remove", ("n1",)), NodeEvent(12, "remove", ("n2",)),
                               NodeEvent(20, "add", node=back)], until=40).with_cluster(path)
    (waiting,) = [p for p in s.pods if p.key.startswith("default/agent-") and not p.node_name]
    r = simulate(s)
    assert r.pod(waiting.key).state == DELETED
    assert r.pod(waiting.key).ended_at == 10
    assert r.metrics.pending == 0
    (again,) = [p for p in r.pods if p.arrival == 20]
    assert (again.state, again.node) == (RUNNING, "n1")
    assert again.key not in (waiting.key, "default/agent-bbbbb")


# -- 3. the wait CDF -----------------------------------------------------------------------------


def test_the_wait_cdf_counts_never_bound_pods_as_censored() -> None:
    """The plotted CDF left out pods that never bind, so it reached 1 as if every pod had been
    placed; it now counts them in the total (the curve stops at the bound share) and its label
    says how many never bound. The starting cluster's bound pods are not in it."""
    from schedframe.cli._plot import latency_cdf

    s = Scenario("cdf", nodes=[node("n1", cpu="2")],
                 pods=[make_pod("old").req(cpu="1").node("n1").obj()],
                 workloads=[Workload("w", make_pod("t").req(cpu="1").obj(), replicas=3)], until=10)
    r = simulate(s)
    curve = latency_cdf(r)
    assert (curve.total, curve.censored) == (3, 2)
    assert curve.fractions == pytest.approx((1 / 3,))
    assert curve.waits == (0.0,)
    assert curve.label("default") == "default (2 of 3 never bound)"
    full = latency_cdf(simulate(Scenario("ok", nodes=[node("n1")], workloads=[
        Workload("w", make_pod("t").req(cpu="1").obj(), replicas=2)])))
    assert (full.censored, full.fractions[-1], full.label("x")) == (0, 1.0, "x")


def test_pending_state_is_kept_for_never_bound_pods() -> None:
    """The pods the CDF censors are the run's pending ones (the same set the wait metrics count)."""
    s = Scenario("cdf", nodes=[node("n1", cpu="1")],
                 workloads=[Workload("w", make_pod("t").req(cpu="1").obj(), replicas=2)], until=5)
    r = simulate(s)
    assert [p.state for p in r.pods] == [RUNNING, PENDING]
    assert r.metrics.wait_censored == 1


# -- 4. sweep specs resolve paths from the spec file ---------------------------------------------


def test_sweep_spec_paths_resolve_from_the_spec_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A spec's relative ``scenario`` and ``config`` used to resolve from the current directory
    (a spec run from elsewhere failed or, worse, read another file); they now resolve from the
    spec's directory, as a scenario file's paths do. Built-in names stay names."""
    from schedframe.sweep import load_sweep_spec, sweep

    specs = tmp_path / "specs"
    (specs / "conf").mkdir(parents=True)
    (specs / "conf" / "packing.yaml").write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n")
    (specs / "tiny.yaml").write_text(yaml.safe_dump({
        "name": "tiny", "configs": [{"name": "default"}],
        "nodes": [{"count": 1, "template": {"status": {"capacity": {"cpu": "2", "memory": "4Gi",
                                                                     "pods": "10"}}}}],
        "workloads": [{"name": "w", "replicas": 1, "template": {"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}]}))
    spec = specs / "sweep.yaml"
    spec.write_text(yaml.safe_dump({"task": "simulate", "grid": {"config": ["conf/packing.yaml", "default"]},
                                    "fixed": {"scenario": "tiny.yaml", "seed": 1},
                                    "runs": [{"scenario": "three-zones", "until": 1}]}))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    loaded = load_sweep_spec("../specs/sweep.yaml")
    params = [r.params for r in loaded.runs]
    assert params[0] == {"scenario": str(specs / "tiny.yaml"), "seed": 1,
                         "config": str(specs / "conf" / "packing.yaml")}
    assert params[1]["config"] == "default"  # one of the scenario's configurations
    assert params[2]["scenario"] == "three-zones"  # a built-in
    result = sweep(loaded.runs[:2], workers=1, progress=False)
    assert not result.failed, result.failed[0].error if result.failed else ""
    assert [o.metrics["placed"] for o in result.outcomes] == [1, 1]


# -- 5. a dump incomplete for what it holds ------------------------------------------------------


def _incomplete_dump(tmp_path: Path) -> Path:
    claim = {"persistentVolumeClaim": {"claimName": "data-db-0"}}
    db = _pod_manifest("db-0", "500m", owner="StatefulSet/db", volumes=[{"name": "data", **claim}])
    urgent = _pod_manifest("urgent", "500m", priorityClassName="critical-batch")
    return _write(tmp_path, [
        _node_manifest("n1", "a", kubelet="v1.34.2"), _node_manifest("n2", "b", kubelet="v1.34.2"),
        db, urgent, _pod_manifest("old", "1", node="n1", phase="Succeeded",
                                  volumes=[{"name": "gone", "persistentVolumeClaim": {"claimName": "gone"}}]),
    ])


def _messages(caught: list[warnings.WarningMessage]) -> list[str]:
    return [str(w.message) for w in caught if issubclass(w.category, SchedframeWarning)]


def test_an_incomplete_dump_is_said_at_load_time_one_line_each(tmp_path: Path) -> None:
    """A pod's PVC absent from the dump, a priorityClassName absent, and nodes of kubelet 1.34
    under the default release (1.37) used to pass without a word; each is now one warning line
    that says what to pass. A finished pod's claim is not asked for."""
    s = Scenario("own").with_cluster(_incomplete_dump(tmp_path))
    assert s.kubelet_versions == {"1.34": 2}
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        simulate(s)
    lines = _messages(caught)
    claims = [m for m in lines if "PersistentVolumeClaim" in m]
    assert claims == [
        "1 PersistentVolumeClaim(s) that pods use are not in the input: default/data-db-0 (default/db-0); "
        "1 pending pod(s) among them cannot be placed (persistentvolumeclaim not found); add them to "
        "the dump (kubectl get pvc,pv,storageclass -A -o yaml, or schedframe import)"]
    assert any(m.startswith("PriorityClass 'critical-batch' is not in the input") for m in lines)
    release = [m for m in lines if "kubelet" in m]
    assert release == [
        "the dump's nodes run kubelet v1.34 (2 node(s)) but kube-scheduler 1.37 is emulated (placements "
        "can differ between releases); pass --kubernetes-version 1.34 (kubernetes_version='1.34' from "
        "Python) to emulate that release"]
    assert all("\n" not in m for m in lines)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        simulate(s, kubernetes_version="1.34")
    assert not [m for m in _messages(caught) if "kubelet" in m]


def test_the_cli_says_what_the_dump_lacks(tmp_path: Path) -> None:
    """``schedframe simulate --cluster`` prints the same lines as warnings on stderr."""
    path = _incomplete_dump(tmp_path)
    with pytest.warns(SchedframeWarning) as caught:
        code, _ = run("simulate", "--cluster", str(path), "--plain")
    assert code == EXIT_OK
    lines = _messages(list(caught))
    assert any("pass --kubernetes-version 1.34" in m for m in lines)
    assert any("default/data-db-0" in m for m in lines)
    with warnings.catch_warnings(record=True) as caught2:
        warnings.simplefilter("always")
        run("simulate", "--cluster", str(path), "--plain", "--kubernetes-version", "1.34")
    assert not [m for m in _messages(caught2) if "kubelet" in m]


def test_topology_matching_without_topologies_is_said(tmp_path: Path) -> None:
    """A profile enabling NodeResourceTopologyMatch on a dump without NodeResourceTopology objects
    filters and ranks nothing; the run says so and how to get them."""
    from schedframe import SchedulerConfiguration

    config = SchedulerConfiguration.from_dict({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {
            "filter": {"enabled": [{"name": "NodeResourceTopologyMatch"}]},
            "score": {"enabled": [{"name": "NodeResourceTopologyMatch"}]}}}]})
    s = Scenario("nrt", nodes=[node("n1")], workloads=[Workload("w", make_pod("t").req(cpu="1").obj())])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        simulate(s, config)
    (line,) = [m for m in _messages(caught) if "NodeResourceTopology" in m]
    assert line.startswith("profile(s) 'default-scheduler' enable NodeResourceTopologyMatch but the input "
                           "has no NodeResourceTopology")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        simulate(s)
    assert not [m for m in _messages(caught) if "NodeResourceTopology" in m]


# -- 6. four reliability findings ----------------------------------------------------------------


@pytest.mark.parametrize("profiles", [
    pytest.param([{"schedulerName": "default-scheduler",
                   "plugins": {"queueSort": {"enabled": [{"name": "FIFO"}], "disabled": [{"name": "*"}]}}}],
                 id="an unknown queue sort"),
    pytest.param([{"schedulerName": "default-scheduler"},
                  {"schedulerName": "other",
                   "plugins": {"queueSort": {"enabled": [{"name": "QOSSort"}],
                                             "disabled": [{"name": "*"}]}}}],
                 id="queue sorts differing between profiles"),
])
def test_a_bad_configuration_is_a_configuration_error_as_documented(profiles: list[Any]) -> None:
    """``simulate(config=...)`` with a configuration kube-scheduler refuses raises
    ConfigurationError (a SchedframeError and ValueError) with the field path, as the simulator's
    docs now say (a ScenarioError is about the scenario)."""
    from schedframe import ConfigurationError, ScenarioError, SchedframeError

    cfg = {"apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
           "profiles": profiles}
    with pytest.raises(ConfigurationError, match=r"profiles\[\d\]\.plugins\.queueSort") as info:
        simulate(Scenario("q", nodes=[node("n1")]), cfg)
    assert isinstance(info.value, SchedframeError)
    assert isinstance(info.value, ValueError)
    assert not isinstance(info.value, ScenarioError)
    doc = (Path(__file__).parent.parent / "docs" / "simulator.rst").read_text()
    assert ":class:`~schedframe.ConfigurationError`" in doc


def test_a_node_removed_twice_in_one_event_is_an_error_naming_the_event() -> None:
    """``remove`` naming the same node twice in one event used to do nothing the second time,
    without a word; it is now a ScenarioError naming the event, the index and the time."""
    from schedframe import ScenarioError

    s = Scenario("twice", nodes=[node("n1"), node("n2")], events=[NodeEvent(7, "remove", ("n1", "n2", "n1"))])
    with pytest.raises(ScenarioError, match=r"events\[0\]\.nodes\[2\]: remove at 7s: node 'n1' is named "
                                            r"twice in this event \(first at events\[0\]\.nodes\[0\]\)"):
        simulate(s)
    again = Scenario("again", nodes=[node("n1")], events=[NodeEvent(1, "remove", ("n1",)),
                                                          NodeEvent(2, "remove", ("n1",))])
    with pytest.raises(ScenarioError, match=r"events\[1\]\.node: remove at 2s: node 'n1' was removed at 1s"):
        simulate(again)


def test_gpu_counts_are_bounded_where_they_are_read(tmp_path: Path) -> None:
    """A task or pod asking for 10**8 GPUs used to be accepted; no node of the model has more
    than MAX_NODE_GPUS (8), so it is now a GpuShareError naming the file, line and column (or the
    pod and annotation)."""
    from schedframe.errors import GpuShareError
    from schedframe.gpushare import read_tasks
    from schedframe.gpushare._model import (
        ANNOTATION_GPU_COUNT,
        ANNOTATION_GPU_MILLI,
        MAX_NODE_GPUS,
        gpu_request,
    )

    tasks = tmp_path / "tasks.csv"
    tasks.write_text("name,cpu_milli,memory_mib,num_gpu,gpu_milli\nok,1000,1024,8,1000\n"
                     "huge,1000,1024,100000000,1000\n")
    with pytest.raises(GpuShareError, match=r"tasks.csv:3: num_gpu.*must be in \[0, 8\], got 100000000"):
        read_tasks(tasks)
    pod = (make_pod("p").annotation(ANNOTATION_GPU_COUNT, str(10**8)).annotation(ANNOTATION_GPU_MILLI, "1000")
           .obj())
    with pytest.raises(GpuShareError, match=rf"default/p: metadata.annotations\['{ANNOTATION_GPU_COUNT}'\].*"
                                            rf"at most {MAX_NODE_GPUS}"):
        gpu_request(pod)
    assert gpu_request(pod.evolve(annotations={ANNOTATION_GPU_COUNT: "8", ANNOTATION_GPU_MILLI: "1000"})
                       ).gpu_count == 8
    assert [t.num_gpu for t in read_tasks(tasks, limit=1)] == [8]
