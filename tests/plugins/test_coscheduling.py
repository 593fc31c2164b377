"""Coscheduling: cases after kubernetes-sigs/scheduler-plugins ``pkg/coscheduling`` (coscheduling.go,
core/core.go and their tests), plus gang scheduling end to end in both scheduler modes."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from typing import Any, cast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from schedframe import Code, CycleState, ManifestError, PluginArgsError, Pod, Status
from schedframe.cache.nodeinfo import NodeInfo, PodInfo
from schedframe.config.configuration import SchedulerConfiguration
from schedframe.framework import NodeToStatus
from schedframe.framework.args import decode_args, encode_args, validate_args
from schedframe.framework.events import ActionType, ClusterEvent, EventResource
from schedframe.framework.handle import Handle
from schedframe.framework.interfaces import QueuedPodInfo
from schedframe.framework.waiting_pods import WaitingPodEntry
from schedframe.plugins import coscheduling, in_tree_registry
from schedframe.plugins.coscheduling import (
    ERR_CANNOT_FIND_POD_GROUP,
    ERR_FAILED_RECENTLY,
    ERR_NOT_ENOUGH_PODS,
    ERR_POD_GROUP_NOT_FOUND,
    ERR_RESOURCE_GAP,
    MSG_GROUP_REJECTED,
    MSG_OPTIMISTIC_REJECTION,
    MSG_REJECTION_IN_UNRESERVE,
    POD_GROUP_LABEL,
    Coscheduling,
    CoschedulingArgs,
    PodGroup,
)
from schedframe.scheduler.scheduler import Scheduler
from schedframe.testing import FakeClock, PluginHarness, make_node, make_pod

T0 = 1_700_000_000.0


def member(name: str, group: str = "g", *, cpu: str = "1", ns: str = "default", node: str = "",
           priority: int | None = None) -> Pod:
    b = make_pod(name).namespace(ns).label(POD_GROUP_LABEL, group).req(cpu=cpu)
    if node:
        b = b.node(node)
    if priority is not None:
        b = b.priority(priority)
    return b.obj()


def node(name: str, cpu: str = "1", pods: int = 110) -> Any:
    return make_node(name).capacity(cpu=cpu, memory="8Gi", pods=pods).obj()


def harness(*groups: PodGroup, nodes: Sequence[Any] = (), pods: Sequence[Pod] = (),
            pending: Sequence[Pod] = (), args: Any = None, clock: FakeClock | None = None) -> PluginHarness:
    """A harness whose plugin has seen *pending* at PreEnqueue."""
    h = PluginHarness("Coscheduling", args, nodes=nodes, pods=pods, objects=groups,
                      clock=clock if clock is not None else FakeClock(T0))
    for p in pending:
        assert h.framework.run_pre_enqueue_plugins(p).is_success()
    return h


def plugin_of(h: PluginHarness) -> Coscheduling:
    assert isinstance(h.plugin, Coscheduling)
    return h.plugin


def config(args: dict[str, Any] | None = None) -> SchedulerConfiguration:
    """A profile with Coscheduling at every point it implements, PrioritySort disabled."""
    profile: dict[str, Any] = {
        "schedulerName": "default-scheduler",
        "plugins": {"multiPoint": {"enabled": [{"name": "Coscheduling"}]},
                    "queueSort": {"disabled": [{"name": "PrioritySort"}]}},
    }
    if args is not None:
        profile["pluginConfig"] = [{"name": "Coscheduling", "args": args}]
    return SchedulerConfiguration.from_dict({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [profile]})


def cluster(n_nodes: int, groups: Sequence[PodGroup], pods: Sequence[Pod], *,
            args: dict[str, Any] | None = None, cpu: str = "1", threaded: bool = False) -> Scheduler:
    s = Scheduler(config(args), clock=None if threaded else FakeClock(T0), threaded=threaded, workers=4)
    for i in range(n_nodes):
        s.add_node(node(f"n{i}", cpu=cpu))
    for g in groups:
        s.add_object(g)
    for p in pods:
        s.add_pod(p)
    return s


def gang(n: int, group: str = "g", **kw: Any) -> list[Pod]:
    return [member(f"{group}-{i}", group, **kw) for i in range(n)]


def assert_released(s: Scheduler) -> None:
    """Nothing waits at Permit and nothing stays assumed."""
    assert len(s.waiting_pods) == 0
    assert s.cache.dump().assumed_pods == frozenset()


# --------------------------------------------------------------------------------------------
# PodGroup


@pytest.mark.parametrize(
    ("manifest", "want"),
    [
        pytest.param(
            {"apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
             "metadata": {"name": "nginx", "namespace": "ns1", "creationTimestamp": "2024-05-01T12:00:00Z"},
             "spec": {"minMember": 3, "scheduleTimeoutSeconds": 10,
                      "minResources": {"cpu": "3", "memory": "1Gi"}},
             "status": {"phase": "Running", "running": 3}},
            PodGroup("nginx", "ns1", 3, 10, {"cpu": "3", "memory": "1Gi"}, 1714564800.0),
            id="full",
        ),
        pytest.param({"kind": "PodGroup", "metadata": {"name": "g"}}, PodGroup("g"), id="minimal"),
    ],
)
def test_pod_group_from_manifest(manifest: dict[str, Any], want: PodGroup) -> None:
    """PodGroup manifests decode; to_manifest reads back equal."""
    pg = PodGroup.from_manifest(manifest)
    assert pg == want
    assert PodGroup.from_manifest(pg.to_manifest()) == pg
    assert pg.full_name == f"{want.namespace}/{want.name}"


def test_pod_group_to_manifest() -> None:
    """to_manifest writes the v1alpha1 shape, omitting unset fields."""
    assert PodGroup("g", min_member=2).to_manifest() == {
        "apiVersion": "scheduling.x-k8s.io/v1alpha1", "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "default"}, "spec": {"minMember": 2}}


@pytest.mark.parametrize(
    ("manifest", "match"),
    [
        pytest.param({"kind": "Pod", "metadata": {"name": "g"}}, "kind: expected 'PodGroup'", id="kind"),
        pytest.param({"apiVersion": "v1", "kind": "PodGroup", "metadata": {"name": "g"}},
                     "apiVersion: expected 'scheduling.x-k8s.io/v1alpha1'", id="apiVersion"),
        pytest.param({"kind": "PodGroup", "metadata": {}}, r"metadata\.name: required", id="no name"),
        pytest.param({"kind": "PodGroup", "metadata": {"name": "g"}, "spec": {"minMember": "3"}},
                     r"spec\.minMember: expected an integer", id="minMember type"),
        pytest.param({"kind": "PodGroup", "metadata": {"name": "g"}, "spec": {"minMember": -1}},
                     r"spec\.minMember: must be greater than or equal to 0, got -1", id="minMember negative"),
        pytest.param({"kind": "PodGroup", "metadata": {"name": "g"}, "spec": {"scheduleTimeoutSeconds": -5}},
                     r"spec\.scheduleTimeoutSeconds: must be greater than or equal to 0",
                     id="timeout negative"),
        pytest.param({"kind": "PodGroup", "metadata": {"name": "g"}, "spec": {"minResources": {"cpu": "x"}}},
                     r"spec\.minResources\.cpu: 'x' is not a quantity", id="minResources"),
    ],
)
def test_pod_group_manifest_errors(manifest: dict[str, Any], match: str) -> None:
    """Malformed PodGroup manifests raise ManifestError naming the field."""
    with pytest.raises(ManifestError, match=match):
        PodGroup.from_manifest(manifest)


# --------------------------------------------------------------------------------------------
# args


def test_args_defaults() -> None:
    """Defaults are upstream's: permitWaitingTimeSeconds 60, podGroupBackoffSeconds 0,
    podGroupRejectPercentage 10."""
    assert CoschedulingArgs() == decode_args(CoschedulingArgs, {})
    assert encode_args(CoschedulingArgs()) == {"permitWaitingTimeSeconds": 60, "podGroupBackoffSeconds": 0,
                                            "podGroupRejectPercentage": 10}
    assert coscheduling.ARGS_TYPE is CoschedulingArgs
    args = decode_args(CoschedulingArgs, {"permitWaitingTimeSeconds": 5, "podGroupBackoffSeconds": 2,
                                       "kind": "CoschedulingArgs"})
    assert args == CoschedulingArgs(permit_waiting_time_seconds=5, pod_group_backoff_seconds=2)
    assert decode_args(CoschedulingArgs, encode_args(args)) == args


@pytest.mark.parametrize(
    ("data", "match"),
    [
        pytest.param({"permitWaitingTime": 5}, "permitWaitingTime: unknown field", id="unknown key"),
        pytest.param({"permitWaitingTimeSeconds": "60"}, "permitWaitingTimeSeconds: must be an integer",
                     id="string"),
        pytest.param({"podGroupBackoffSeconds": True}, "podGroupBackoffSeconds: must be an integer",
                     id="bool"),
        pytest.param([], "must be a mapping", id="not a mapping"),
    ],
)
def test_args_decode_errors(data: Any, match: str) -> None:
    """Malformed args mappings raise PluginArgsError naming the field."""
    with pytest.raises(PluginArgsError, match=match):
        decode_args(CoschedulingArgs, data)


@pytest.mark.parametrize(
    ("args", "match"),
    [
        pytest.param(CoschedulingArgs(pod_group_backoff_seconds=-1),
                     "podGroupBackoffSeconds: Invalid value: -1: must be greater than 0",
                     id="negative backoff"),
        pytest.param(CoschedulingArgs(permit_waiting_time_seconds=-3),
                     "permitWaitingTimeSeconds: Invalid value: -3: must be greater than 0",
                     id="negative permit wait"),
        pytest.param(CoschedulingArgs(permit_waiting_time_seconds=1.5),  # type: ignore[arg-type]
                     "permitWaitingTimeSeconds: must be an integer, got 1.5", id="not an integer"),
    ],
)
def test_args_validation(args: CoschedulingArgs, match: str) -> None:
    """Invalid args are refused by new() with field paths."""
    with pytest.raises(PluginArgsError, match=match):
        coscheduling.new(args, PluginHarness("Coscheduling").framework)


def test_args_validation_collects_all_errors() -> None:
    """Every invalid field is reported at once."""
    with pytest.raises(PluginArgsError) as info:
        validate_args(CoschedulingArgs(permit_waiting_time_seconds=-1, pod_group_backoff_seconds=-1))
    assert len(info.value.errors) == 2


def test_new_args_types() -> None:
    """new() takes None, an args object or a mapping; anything else is refused."""
    fw = PluginHarness("Coscheduling").framework
    assert coscheduling.new(None, fw).args == CoschedulingArgs()
    assert coscheduling.new({"permitWaitingTimeSeconds": 3}, fw).args.permit_waiting_time_seconds == 3
    with pytest.raises(PluginArgsError, match="want args of type CoschedulingArgs, got int"):
        coscheduling.new(3, fw)


def test_registered_but_not_default() -> None:
    """Coscheduling is in the in-tree registry, not in the default profile."""
    assert "Coscheduling" in in_tree_registry()
    default = SchedulerConfiguration.default().profiles[0]
    assert all(ref.name != "Coscheduling" for refs in default.plugins.values() for ref in refs)
    plugins = config().profiles[0].plugins
    for point in ("preEnqueue", "queueSort", "preFilter", "postFilter", "reserve", "permit", "postBind"):
        assert "Coscheduling" in [ref.name for ref in plugins[point]], point


# --------------------------------------------------------------------------------------------
# QueueSort


def qpi(pod: Pod, ts: float, initial: float | None = None) -> QueuedPodInfo:
    return QueuedPodInfo(PodInfo.of(pod), timestamp=ts, initial_attempt_timestamp=initial)


GROUPS = (PodGroup("early", min_member=2, creation_timestamp=T0 - 100),
          PodGroup("late", min_member=2, creation_timestamp=T0 - 10),
          PodGroup("same-a", min_member=1, creation_timestamp=T0 - 50),
          PodGroup("same-b", min_member=1, creation_timestamp=T0 - 50))


@pytest.mark.parametrize(
    ("a", "b", "want"),
    [
        pytest.param(qpi(make_pod("a").priority(10).obj(), T0), qpi(make_pod("b").priority(5).obj(), T0 - 9),
                     True, id="higher priority first"),
        pytest.param(qpi(member("a", "late", priority=1), T0), qpi(member("b", "early"), T0), True,
                     id="priority before group time"),
        pytest.param(qpi(member("z", "early"), T0), qpi(member("a", "late"), T0 - 99), True,
                     id="earlier group creation first"),
        pytest.param(qpi(make_pod("p").obj(), T0, initial=T0 - 200), qpi(member("a", "early"), T0), True,
                     id="pod without group uses its first queueing time"),
        pytest.param(qpi(make_pod("p").obj(), T0 - 1), qpi(member("a", "early"), T0), False,
                     id="pod without group queued after group creation"),
        pytest.param(qpi(member("x", "same-a"), T0), qpi(member("b", "same-b"), T0), False,
                     id="same creation time: pod key, not group name"),
        pytest.param(qpi(member("b", "early"), T0 - 5), qpi(member("a", "early"), T0), False,
                     id="same group: pod key"),
        pytest.param(qpi(member("a", "early"), T0), qpi(member("a", "early"), T0), False, id="equal"),
        pytest.param(qpi(member("a", "missing"), T0 - 1), qpi(make_pod("b").obj(), T0), True,
                     id="missing group: pod's own time"),
    ],
)
def test_less(a: QueuedPodInfo, b: QueuedPodInfo, want: bool) -> None:
    """QueueSort: priority, then group creation (or queueing) time, then pod key."""
    h = harness(*GROUPS)
    assert plugin_of(h).less(a, b) is want
    assert h.framework.queue_sort_less()(a, b) is want


def test_less_group_without_creation_time_uses_first_sight() -> None:
    """A PodGroup without creationTimestamp sorts as created when the plugin first saw it."""
    clock = FakeClock(T0)
    h = harness(PodGroup("g1", min_member=1), PodGroup("g2", min_member=1), clock=clock)
    pl = plugin_of(h)
    g1, g2 = qpi(member("z", "g1"), T0 + 50), qpi(member("a", "g2"), T0)
    assert pl.less(g1, g1) is False  # first sight of g1 at T0
    clock.step(10)
    assert pl.less(g1, g2) is True
    assert pl.less(g2, g1) is False


# --------------------------------------------------------------------------------------------
# PreFilter


def test_pre_filter_without_group() -> None:
    """Pods without the label, or naming a missing group, pass PreFilter (Permit rejects the latter)."""
    h = harness(PodGroup("g", min_member=3))
    assert h.pre_filter(make_pod("p").obj()) == (None, Status.OK)
    assert h.pre_filter(member("p", "missing")) == (None, Status.OK)


@pytest.mark.parametrize(
    ("pending", "bound", "min_member", "want"),
    [
        pytest.param(gang(3), [], 3, Status.OK, id="enough pending pods"),
        pytest.param(gang(2), [member("b", node="n0")], 3, Status.OK, id="pending and bound pods"),
        pytest.param(gang(2), [], 3,
                     Status.unresolvable(ERR_NOT_ENOUGH_PODS.format("g-0", 2, 3)), id="too few pods"),
        pytest.param([*gang(2), member("o", ns="other")], [member("b", node="n0", ns="other")], 3,
                     Status.unresolvable(ERR_NOT_ENOUGH_PODS.format("g-0", 2, 3)), id="other namespace"),
        pytest.param(gang(1), [], 0, Status.OK, id="minMember 0"),
    ],
)
def test_pre_filter_min_member(pending: list[Pod], bound: list[Pod], min_member: int, want: Status) -> None:
    """PreFilter counts the group's pods (pending, assumed, bound) against minMember."""
    h = harness(PodGroup("g", min_member=min_member), nodes=[node("n0", cpu="8")], pods=bound,
                pending=pending)
    assert h.pre_filter(pending[0]) == (None, want)


def test_pre_filter_skips_count_without_pod_source() -> None:
    """Not enabled at PreEnqueue and no pod lister: the minMember count is skipped."""
    h = harness(PodGroup("g", min_member=3))
    assert h.pre_filter(member("g-0")) == (None, Status.OK)


@pytest.mark.parametrize(
    ("min_resources", "existing", "want"),
    [
        pytest.param({"cpu": "3"}, [], "", id="fits"),
        pytest.param({"cpu": "5"}, [], "map[cpu:1]", id="cpu gap"),
        pytest.param({"cpu": "3500m", "memory": "1Gi"}, [make_pod("x").req(cpu="1").node("n0").obj()],
                     "map[cpu:500m]", id="other pods use resources"),
        pytest.param({"cpu": "4"}, [member("own", node="n0")], "", id="the group's own pods do not count"),
        pytest.param({"example.com/gpu": "1"}, [], "map[example.com/gpu:1]", id="scalar resource"),
    ],
)
def test_pre_filter_min_resources(min_resources: dict[str, str], existing: list[Pod], want: str) -> None:
    """PreFilter checks that the cluster can hold minResources plus minMember pods."""
    pg = PodGroup("g", min_member=2, min_resources=min_resources)
    pods = gang(2)
    h = harness(pg, nodes=[node("n0", cpu="2"), node("n1", cpu="2")], pods=existing, pending=pods)
    want_status = Status.unresolvable(ERR_RESOURCE_GAP.format(want)) if want else Status.OK
    assert h.pre_filter(pods[0]) == (None, want_status)


def test_pre_filter_pod_slots() -> None:
    """minMember pods must fit the nodes' pod slots."""
    pods = gang(3)
    h = harness(PodGroup("g", min_member=3, min_resources={"cpu": "1"}),
                nodes=[node("n0", cpu="8", pods=2)], pods=[make_pod("x").node("n0").obj()], pending=pods)
    assert h.pre_filter(pods[0]) == (None, Status.unresolvable(ERR_RESOURCE_GAP.format("map[pods:2]")))


def test_pre_filter_min_resources_checked_once_per_timeout() -> None:
    """A group that passed the minResources check is not checked again for permitWaitingTimeSeconds."""
    clock = FakeClock(T0)
    pods = gang(2)
    big = [node("n0", cpu="4")]
    h = harness(PodGroup("g", min_member=2, min_resources={"cpu": "3"}), nodes=big, pending=pods,
                args={"permitWaitingTimeSeconds": 30}, clock=clock)
    assert h.pre_filter(pods[0]) == (None, Status.OK)
    h.snapshot.node_infos().get("n0").add_pod(PodInfo.of(make_pod("hog").req(cpu="4").node("n0").obj()))  # type: ignore[union-attr]
    assert h.pre_filter(pods[1]) == (None, Status.OK)  # permitted, not re-checked
    clock.step(30)
    assert h.pre_filter(pods[1])[1].code is Code.UNSCHEDULABLE_AND_UNRESOLVABLE


def test_pre_filter_ignores_nodeinfos_without_node() -> None:
    """NodeInfos whose node is gone hold no resources for the group."""
    pg = PodGroup("g", min_member=1, min_resources={"cpu": "1"})
    h = harness(pg, nodes=[node("n0")])
    orphan = NodeInfo(None, [make_pod("x").node("gone").obj()])
    assert plugin_of(h).pre_filter(CycleState(), member("g-0"), [orphan]) == (
        None, Status.unresolvable(ERR_RESOURCE_GAP.format("map[cpu:1 pods:1]")))


def test_assigned_count_follows_snapshots() -> None:
    """The member count tracks the snapshot: nodes that change or disappear are re-read."""
    from schedframe.cache.snapshot import Snapshot

    h = harness(PodGroup("g", min_member=3), nodes=[node("n0"), node("n1")],
                pods=[member("g-0", node="n0"), member("g-1", node="n1")])
    pl = plugin_of(h)
    assert pl.assigned_count("default/g") == 2
    h.framework.set_snapshot(Snapshot.from_objects([node("n0")], [member("g-0", node="n0")]))
    assert pl.assigned_count("default/g") == 1
    h.framework.set_snapshot(Snapshot.from_objects([node("n0")], []))
    assert pl.assigned_count("default/g") == 0
    pl.post_bind(CycleState(), member("never-seen"), "n0")  # not pending: nothing to forget
    pl.post_bind(CycleState(), make_pod("solo").obj(), "n0")


# --------------------------------------------------------------------------------------------
# Permit, Unreserve, PostFilter


def park(h: PluginHarness, pod: Pod, node_name: str = "n0", timeout: float = 60) -> WaitingPodEntry:
    """Put *pod* in the framework's waiting pods, waiting for Coscheduling."""
    wp = WaitingPodEntry(pod, node_name, {"Coscheduling": timeout}, h.clock)
    h.framework.waiting_pods.add(wp)
    return wp


def test_permit_without_group() -> None:
    """A pod without the label is allowed; one naming a missing group is rejected."""
    pl = plugin_of(harness())
    assert pl.permit(CycleState(), make_pod("p").obj(), "n0") == (None, 0.0)
    assert pl.permit(CycleState(), member("p", "missing"), "n0") == (
        Status.unschedulable(ERR_POD_GROUP_NOT_FOUND), 0.0)


@pytest.mark.parametrize(
    ("pg", "args", "want_timeout"),
    [
        pytest.param(PodGroup("g", min_member=3), None, 60.0, id="default permitWaitingTimeSeconds"),
        pytest.param(PodGroup("g", min_member=3), {"permitWaitingTimeSeconds": 7}, 7.0, id="args"),
        pytest.param(PodGroup("g", min_member=3, schedule_timeout_seconds=12),
                     {"permitWaitingTimeSeconds": 7}, 12.0, id="group's scheduleTimeoutSeconds"),
        pytest.param(PodGroup("g", min_member=3, schedule_timeout_seconds=0), None, 60.0,
                     id="scheduleTimeoutSeconds 0 falls back"),
        pytest.param(PodGroup("g", min_member=3), {"permitWaitingTimeSeconds": 0}, 60.0,
                     id="permitWaitingTimeSeconds 0 falls back to the default"),
    ],
)
def test_permit_waits(pg: PodGroup, args: Any, want_timeout: float) -> None:
    """Below the quorum Permit returns WAIT with the group's (or the args') timeout."""
    pods = gang(3)
    h = harness(pg, nodes=[node("n0", cpu="8")], pending=pods, args=args)
    state = CycleState()
    status, timeout = plugin_of(h).permit(state, pods[0], "n0")
    assert status is not None
    assert status.code is Code.WAIT
    assert timeout == want_timeout
    assert sorted(state.pods_to_activate) == ["default/g-1", "default/g-2"]  # first member activates siblings


def test_permit_quorum_allows_waiting_members() -> None:
    """The member reaching minMember allows the waiting members of its group, only them."""
    pods = gang(3)
    other = member("o-0", "o")
    h = harness(PodGroup("g", min_member=3), PodGroup("o", min_member=2),
                nodes=[node("n0", cpu="8")], pods=[member("g-0", node="n0"), member("g-1", node="n0")],
                pending=pods)
    waiting = [park(h, member("g-0", node="n0")), park(h, member("g-1", node="n0")), park(h, other)]
    state = CycleState()
    assert plugin_of(h).permit(state, pods[2], "n0") == (None, 0.0)
    assert [wp.decision for wp in waiting] == [Status.OK, Status.OK, None]
    assert state.pods_to_activate == {}


def test_permit_second_member_does_not_activate() -> None:
    """Only the first member to wait activates its siblings."""
    pods = gang(3)
    h = harness(PodGroup("g", min_member=3), nodes=[node("n0", cpu="8")],
                pods=[member("g-0", node="n0")], pending=pods)
    state = CycleState()
    status, _ = plugin_of(h).permit(state, pods[1], "n0")
    assert status is not None
    assert status.is_wait()
    assert state.pods_to_activate == {}


def test_unreserve_rejects_waiting_members() -> None:
    """Unreserve rejects every waiting member of the pod's group (same namespace), nobody else."""
    h = harness(PodGroup("g", min_member=3), PodGroup("g", "other", min_member=3))
    mine = [park(h, member("g-0")), park(h, member("g-1"))]
    others = [park(h, member("x", "g", ns="other")), park(h, make_pod("solo").obj())]
    pl = plugin_of(h)
    pl.unreserve(CycleState(), member("g-2"), "n0")
    rejected = Status(Code.UNSCHEDULABLE, (MSG_REJECTION_IN_UNRESERVE,), "Coscheduling")
    assert [wp.decision for wp in mine] == [rejected, rejected]
    assert [wp.decision for wp in others] == [None, None]
    pl.unreserve(CycleState(), member("m", "missing"), "n0")  # no group: nothing happens
    assert pl.reserve(CycleState(), member("g-2"), "n0") is None


@pytest.mark.parametrize(
    ("pg", "bound", "want", "rejected"),
    [
        pytest.param(None, 0, Status.unschedulable(ERR_CANNOT_FIND_POD_GROUP), False, id="no group"),
        pytest.param(PodGroup("g", min_member=2), 2, Status(Code.UNSCHEDULABLE), False,
                     id="enough members placed"),
        pytest.param(PodGroup("g", min_member=10), 9, Status(Code.UNSCHEDULABLE), False,
                     id="gap of 10 percent"),
        pytest.param(PodGroup("g", min_member=3), 1,
                     Status.unschedulable(MSG_GROUP_REJECTED.format("default/g", "g-9")), True,
                     id="group rejected"),
    ],
)
def test_post_filter(pg: PodGroup | None, bound: int, want: Status, rejected: bool) -> None:
    """PostFilter rejects the gang's waiting members unless it is (almost) complete."""
    placed = [member(f"g-{i}", node="n0") for i in range(bound)]
    h = harness(*([pg] if pg is not None else []), nodes=[node("n0", cpu="16")], pods=placed)
    waiting = park(h, member("w", node="n0"))
    result, status = plugin_of(h).post_filter(CycleState(), member("g-9"), NodeToStatus())
    assert result is not None
    assert result.nominating_info is None
    assert status == want
    assert waiting.decision == (
        Status(Code.UNSCHEDULABLE, (MSG_OPTIMISTIC_REJECTION,), "Coscheduling") if rejected else None)


def test_post_filter_backs_group_off() -> None:
    """With podGroupBackoffSeconds, a rejected group is refused at PreFilter until it expires."""
    clock = FakeClock(T0)
    pods = gang(3)
    h = harness(PodGroup("g", min_member=3), nodes=[node("n0")], pending=pods,
                args={"podGroupBackoffSeconds": 20}, clock=clock)
    pl = plugin_of(h)
    pl.post_filter(CycleState(), pods[2], NodeToStatus())
    assert h.pre_filter(pods[0]) == (None, Status.unresolvable(ERR_FAILED_RECENTLY.format("default/g")))
    pl.post_filter(CycleState(), pods[2], NodeToStatus())  # does not extend the backoff
    clock.step(20)
    assert h.pre_filter(pods[0]) == (None, Status.OK)


def test_post_filter_no_backoff_for_incomplete_group() -> None:
    """A group with fewer pods than minMember is not backed off (it fails PreFilter anyway)."""
    pods = gang(2)
    h = harness(PodGroup("g", min_member=3), pending=pods, args={"podGroupBackoffSeconds": 20})
    plugin_of(h).post_filter(CycleState(), pods[1], NodeToStatus())
    assert h.pre_filter(pods[0])[1].reasons == [ERR_NOT_ENOUGH_PODS.format("g-0", 2, 3)]


def test_events_to_register() -> None:
    """Pod adds and PodGroup adds/updates may complete a gang (no hint functions)."""
    events = [e.event for e in plugin_of(harness()).events_to_register()]
    assert events == [ClusterEvent(EventResource.POD, ActionType.ADD),
                      ClusterEvent(EventResource.POD_GROUP, ActionType.ADD | ActionType.UPDATE)]


def test_pre_enqueue_never_gates() -> None:
    """PreEnqueue only records members."""
    pl = plugin_of(harness())
    assert pl.pre_enqueue(member("g-0")) is None
    assert pl.pre_enqueue(make_pod("p").obj()) is None


# --------------------------------------------------------------------------------------------
# a handle that lists pods (upstream's pod informer)


class ListOnly:
    """An ObjectLister that can only list."""

    def __init__(self, objects: Sequence[Any]) -> None:
        self._objects = list(objects)

    def namespace(self, name: str) -> None:
        return None

    def list(self, kind: type, namespace: str | None = None) -> list[Any]:
        return [o for o in self._objects
                if isinstance(o, kind) and (namespace is None or getattr(o, "namespace", "") == namespace)]


class ListingHandle:
    """The harness framework plus ``list_pods``, with a list-only object lister."""

    def __init__(self, h: PluginHarness, pods: Sequence[Pod]) -> None:
        self._fw = h.framework
        self._pods = list(pods)
        self.objects = ListOnly(h.objects.list(PodGroup))

    def list_pods(self, namespace: str | None = None) -> list[Pod]:
        return [p for p in self._pods if namespace is None or p.namespace == namespace]

    def __getattr__(self, name: str) -> Any:
        return getattr(self._fw, name)


@pytest.mark.parametrize(
    ("pods", "want"),
    [
        pytest.param(gang(3), Status.OK, id="enough"),
        pytest.param([*gang(2), member("done").evolve(phase="Succeeded")],
                     Status.unresolvable(ERR_NOT_ENOUGH_PODS.format("g-0", 2, 3)),
                     id="terminal pods do not count"),
    ],
)
def test_pod_lister_handle(pods: list[Pod], want: Status) -> None:
    """With a handle offering list_pods, the group's pods come from it (upstream's informer)."""
    h = harness(PodGroup("g", min_member=3), nodes=[node("n0", cpu="8")])
    pl = coscheduling.new(None, cast(Handle, ListingHandle(h, pods)))
    _, status = pl.pre_filter(CycleState(), pods[0], [])
    assert (status or Status.OK) == want
    state = CycleState()
    pl.permit(state, pods[0], "n0")
    assert sorted(state.pods_to_activate) == sorted(p.key for p in pods[1:] if p.phase == "Pending")


# --------------------------------------------------------------------------------------------
# end to end: deterministic scheduler


def test_gangs_that_fit_bind() -> None:
    """Gangs that fit bind entirely, alongside pods without group."""
    pods = gang(3, "a", cpu="500m") + gang(2, "b", cpu="500m") + [make_pod("solo").req(cpu="500m").obj()]
    s = cluster(3, [PodGroup("a", min_member=3), PodGroup("b", min_member=2)], pods)
    summary = s.run_until_idle()
    assert summary.scheduled == 6
    assert s.pending() == []
    assert_released(s)


def test_gang_larger_than_min_member() -> None:
    """Members beyond minMember are allowed at once; one that does not fit stays pending alone."""
    s = cluster(4, [PodGroup("g", min_member=3)], gang(5))
    s.run_until_idle()
    assert len(s.bindings()) == 4
    [left] = s.pending()
    assert left.pod.name == "g-4"
    assert_released(s)


def test_gang_that_does_not_fit_binds_nothing() -> None:
    """A gang larger than the cluster: no member binds or stays reserved; the group backs off."""
    s = cluster(2, [PodGroup("g", min_member=3)], gang(3), args={"podGroupBackoffSeconds": 60})
    s.run_until_idle()
    assert s.bindings() == {}
    assert_released(s)
    by_name = {p.pod.name: p for p in s.pending()}
    assert set(by_name) == {"g-0", "g-1", "g-2"}
    assert by_name["g-0"].message == f"0/1 nodes are available: 1 {MSG_OPTIMISTIC_REJECTION}."
    assert ERR_FAILED_RECENTLY.format("default/g") in by_name["g-2"].message
    assert MSG_GROUP_REJECTED.format("default/g", "g-2") in by_name["g-2"].message


def test_gang_that_does_not_fit_is_retried_without_backoff() -> None:
    """Without podGroupBackoffSeconds the gang keeps retrying (as upstream) and never binds partially."""
    s = cluster(2, [PodGroup("g", min_member=3)], gang(3))
    summary = s.run_until_idle(max_cycles=60)
    assert summary.cycles == 60
    assert s.bindings() == {}


def test_competing_gangs_follow_group_creation() -> None:
    """With room for one gang, the gang created first gets it; the other binds nothing."""
    groups = [PodGroup("late", min_member=2, creation_timestamp=T0 - 10),
              PodGroup("early", min_member=2, creation_timestamp=T0 - 20)]
    s = cluster(2, groups, gang(2, "late") + gang(2, "early"), args={"podGroupBackoffSeconds": 60})
    s.run_until_idle()
    assert sorted(s.bindings()) == ["default/early-0", "default/early-1"]
    assert_released(s)


def test_too_few_pods_rejected_at_pre_filter() -> None:
    """A group with fewer pods than minMember is rejected at PreFilter; nothing is reserved."""
    s = cluster(3, [PodGroup("g", min_member=3)], gang(2))
    s.run_until_idle()
    assert s.bindings() == {}
    assert_released(s)
    msgs = sorted(p.message for p in s.pending())
    for i, msg in enumerate(msgs):  # PostFilter runs after a PreFilter rejection too, as upstream
        assert msg.startswith(f"0/3 nodes are available: {ERR_NOT_ENOUGH_PODS.format(f'g-{i}', 2, 3)}. ")
        assert msg.endswith(MSG_GROUP_REJECTED.format("default/g", f"g-{i}"))
    s.add_pod(member("g-2"))  # the third member arrives: the gang completes
    s.run_until_idle()
    assert len(s.bindings()) == 3


def test_missing_group_rejected_at_permit() -> None:
    """A pod naming a missing group is rejected at Permit; adding the group makes it schedulable."""
    s = cluster(1, [], [member("p", "late")])
    s.run_until_idle()
    [p] = s.pending()
    assert p.message == f"0/1 nodes are available: 1 {ERR_POD_GROUP_NOT_FOUND}."
    assert_released(s)
    s.add_object(PodGroup("late", min_member=1))
    s.run_until_idle()
    assert s.node_of("default/p") == "n0"


def test_deleted_members_stop_counting() -> None:
    """Bound members that are deleted no longer count towards minMember (PostBind bookkeeping)."""
    s = cluster(3, [PodGroup("g", min_member=3)], gang(3))
    s.run_until_idle()
    assert len(s.bindings()) == 3
    for i in range(3):
        s.remove_pod(f"default/g-{i}")
    s.add_pod(member("g-3"))
    s.add_pod(member("g-4"))
    s.run_until_idle()
    assert s.bindings() == {}
    assert all(ERR_NOT_ENOUGH_PODS.format(p.pod.name, 2, 3) in p.message for p in s.pending())


def test_gang_times_out() -> None:
    """A member deleted while the others wait: the wait times out and the whole gang is released."""
    pods = gang(3)
    s = cluster(3, [PodGroup("g", min_member=3, schedule_timeout_seconds=30)], pods)
    assert s.schedule_one()
    assert s.schedule_one()
    assert len(s.waiting_pods) == 2
    s.remove_pod(pods[2])
    summary = s.run_until_idle()
    assert summary.clock_advanced == 30
    assert s.bindings() == {}
    assert_released(s)
    by_name = {p.pod.name: p.message for p in s.pending()}
    assert by_name == {
        "g-0": "0/1 nodes are available: 1 rejected due to timeout after waiting 30s at plugin Coscheduling.",
        "g-1": f"0/1 nodes are available: 1 {MSG_REJECTION_IN_UNRESERVE}.",
    }


def test_zero_permit_waiting_time_means_the_default() -> None:
    """permitWaitingTimeSeconds 0 is upstream's default wait (60 s), not a zero wait: the gang
    binds together and the pods outside it are not starved by members timing out at once."""
    pods = gang(3)
    solo = make_pod("solo").req(cpu="1").obj()
    s = cluster(4, [PodGroup("g", min_member=3)], [*pods, solo], args={"permitWaitingTimeSeconds": 0})
    summary = s.run_until_idle(max_cycles=200)
    assert not summary.stalled
    assert summary.cycles < 20
    assert len(s.bindings()) == 4
    assert s.node_of(solo) is not None
    assert_released(s)


def test_gang_recovers_after_timeout() -> None:
    """Members released by a timeout are scheduled again with the rest of the gang."""
    pods = gang(3)
    s = cluster(3, [PodGroup("g", min_member=3)], pods)
    assert s.schedule_one()
    assert s.schedule_one()
    assert isinstance(s.clock, FakeClock)
    s.clock.step(60)
    s.schedule_one()  # resumes the timed-out members, then schedules g-2 (which activates them)
    assert s.bindings() == {}
    s.run_until_idle()
    assert len(s.bindings()) == 3
    assert_released(s)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    sizes=st.lists(st.tuples(st.integers(1, 5), st.integers(0, 3)), min_size=1, max_size=3),
    n_nodes=st.integers(1, 6),
    solo=st.integers(0, 2),
)
def test_gang_invariant(sizes: list[tuple[int, int]], n_nodes: int, solo: int) -> None:
    """Every group ends with none or at least minMember members bound, nothing reserved."""
    groups = [PodGroup(f"g{i}", min_member=m, creation_timestamp=T0 - i)
              for i, (m, _extra) in enumerate(sizes)]
    pods = [p for i, (m, extra) in enumerate(sizes) for p in gang(m + extra, f"g{i}")]
    pods += [make_pod(f"solo{i}").req(cpu="1").obj() for i in range(solo)]
    s = cluster(n_nodes, groups, pods, args={"podGroupBackoffSeconds": 3600})
    s.run_until_idle(max_cycles=500)
    assert_released(s)
    bound = s.bindings()
    for i, (m, _extra) in enumerate(sizes):
        n = sum(1 for key in bound if key.startswith(f"default/g{i}-"))
        assert n == 0 or n >= m, (i, n, m)
    assert len(bound) <= n_nodes


# --------------------------------------------------------------------------------------------
# end to end: threaded scheduler


def wait_for(cond: Callable[[], bool], seconds: float = 4.0) -> None:
    deadline = time.monotonic() + seconds
    while not cond():
        assert time.monotonic() < deadline, "condition not reached in time"
        time.sleep(0.01)


def test_threaded_gang_binds_and_times_out() -> None:
    """Threaded mode: a gang waits in real time, times out (1 s) and is released, then completes."""
    pods = gang(3)
    with cluster(3, [PodGroup("g", min_member=3, schedule_timeout_seconds=1)], pods, threaded=True) as s:
        assert s.schedule_one()
        assert s.schedule_one()
        wait_for(lambda: len([p for p in s.pending() if p.message]) == 2)
        assert s.bindings() == {}
        assert_released(s)
        messages = [p.message for p in s.pending() if p.message]
        assert any("rejected due to timeout after waiting 1s at plugin Coscheduling" in m for m in messages)
        s.run_until_idle()
        assert len(s.bindings()) == 3
        assert_released(s)


def test_run_until_idle_returns_on_a_gang_that_can_never_fit() -> None:
    """A gang cycling without progress (no backoff) stops run_until_idle as stalled, nothing reserved."""
    from schedframe import Scheduler, SchedulerConfiguration
    from schedframe.api import PodGroup as Group
    from schedframe.testing import make_node as node
    from schedframe.testing import make_pod as pod

    config = SchedulerConfiguration.from_dict({
        "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
        "profiles": [{"schedulerName": "default-scheduler", "plugins": {
            "multiPoint": {"enabled": [{"name": "Coscheduling"}]},
            "queueSort": {"enabled": [{"name": "Coscheduling"}], "disabled": [{"name": "*"}]}}}]})
    sched = Scheduler(config)
    for i in range(3):
        sched.add_node(node(f"n{i}").capacity(cpu="1", memory="4Gi", pods=110).obj())
    sched.add_object(Group("g", min_member=12))
    for i in range(12):
        sched.add_pod(pod(f"p{i}").label("scheduling.x-k8s.io/pod-group", "g").req(cpu="500m").obj())
    summary = sched.run_until_idle()
    assert summary.stalled
    assert summary.scheduled == 0
    assert summary.waiting == 0
    assert len(sched.pending()) == 12
    assert all(sched.node_of(f"default/p{i}") is None for i in range(12))


# --------------------------------------------------------------------------------------------
# scheduler-plugins v0.34.7: rows of core/core_test.go and coscheduling_test.go for what changed,
# and the behaviour upstream's issues #713 and #930 were about


def gated(name: str, group: str = "pg1") -> Pod:
    return make_pod(name).namespace("ns").label(POD_GROUP_LABEL, group).scheduling_gates("example-gate").obj()


def ns_member(name: str, group: str = "pg1") -> Pod:
    return make_pod(name).namespace("ns").label(POD_GROUP_LABEL, group).obj()


@pytest.mark.parametrize(
    ("pending", "min_member", "ok"),
    [
        # upstream TestPreFilter; the pod under test is p1a, listed with its siblings
        pytest.param([ns_member("p1b"), ns_member("p1c")], 2, True, id="pod count more than minMember"),
        pytest.param([ns_member("p1b")], 2, True, id="pod count equal minMember"),
        pytest.param([ns_member("p1b"), gated("p1c")], 2, True,
                     id="gated pods but still meeting quorum (minMember < replicas)"),
        pytest.param([gated("p1b"), ns_member("p1c")], 3, False, id="gated pods push group below quorum"),
        pytest.param([gated("p1b"), gated("p1c")], 2, False, id="all sibling pods are gated"),
    ],
)
def test_pre_filter_gated_members_count_against_the_quorum(pending: list[Pod], min_member: int,
                                                           ok: bool) -> None:
    """Members still behind scheduling gates count against minMember at PreFilter."""
    from schedframe.plugins.coscheduling import ERR_GATED_PODS

    pod = ns_member("p1a")
    h = harness(PodGroup("pg1", "ns", min_member=min_member), nodes=[node("n0", cpu="8")],
                pending=[pod, *pending])
    want = Status.OK if ok else Status.unresolvable(ERR_GATED_PODS.format("p1a"))
    assert h.pre_filter(pod) == (None, want)


def test_gated_member_holds_the_gang_back_until_its_gates_are_removed() -> None:
    """In a scheduler: a gang of 3 with one gated member binds nothing (PreFilter names the gated
    pods); once the gate is removed the whole gang binds."""
    from schedframe.plugins.coscheduling import ERR_GATED_PODS

    pods = [member("g-0"), member("g-1"),
            make_pod("g-2").label(POD_GROUP_LABEL, "g").req(cpu="1").scheduling_gates("example-gate").obj()]
    s = cluster(3, [PodGroup("g", min_member=3)], pods)
    s.run_until_idle(max_cycles=20)
    assert s.bindings() == {}
    assert_released(s)
    msgs = {p.pod.name: p.message for p in s.pending()}
    assert set(msgs) == {"g-0", "g-1", "g-2"}
    assert all(ERR_GATED_PODS.format(name) in msgs[name] for name in ("g-0", "g-1"))
    s.update_pod(member("g-2"))
    s.run_until_idle()
    assert len(s.bindings()) == 3
    assert_released(s)


@pytest.mark.parametrize(
    ("percentage", "assigned", "rejected"),
    [
        # upstream TestPostFilterRejectThreshold: minMember 10
        pytest.param(10, 9, False, id="default 10%: 9/10 assigned (10% gap) no rejection"),
        pytest.param(10, 8, True, id="default 10%: 8/10 assigned (20% gap) rejection"),
        pytest.param(0, 9, True, id="0%: 9/10 assigned (10% gap) rejection (always reject)"),
        pytest.param(100, 0, False, id="100%: 0/10 assigned (100% gap) no rejection (never reject)"),
        pytest.param(50, 6, False, id="50%: 6/10 assigned (40% gap) no rejection"),
        pytest.param(50, 4, True, id="50%: 4/10 assigned (60% gap) rejection"),
    ],
)
def test_post_filter_reject_percentage(percentage: int, assigned: int, rejected: bool) -> None:
    """PostFilter rejects the group only when more than podGroupRejectPercentage of minMember is
    still unplaced."""
    placed = [make_pod(f"assigned-{i}").namespace("ns").label(POD_GROUP_LABEL, "pg1").node("node").obj()
              for i in range(assigned)]
    h = harness(PodGroup("pg1", "ns", min_member=10), nodes=[node("node", cpu="4", pods=20)], pods=placed,
                args={"podGroupRejectPercentage": percentage})
    _, status = plugin_of(h).post_filter(CycleState(), ns_member("p"), NodeToStatus())
    want = (Status.unschedulable(MSG_GROUP_REJECTED.format("ns/pg1", "p")) if rejected
            else Status(Code.UNSCHEDULABLE))
    assert status == want


@pytest.mark.parametrize(("percentage", "released_at_once"), [(10, False), (0, True)])
def test_reject_percentage_in_a_scheduler(percentage: int, released_at_once: bool) -> None:
    """A gang of 10 on 9 nodes: with the default 10% its 9 placed members keep waiting for the
    10th until the Permit timeout (300 s); with 0% the 10th's failure releases them at once."""
    s = cluster(9, [PodGroup("g", min_member=10)], gang(10),
                args={"podGroupRejectPercentage": percentage, "permitWaitingTimeSeconds": 300,
                      "podGroupBackoffSeconds": 600})
    summary = s.run_until_idle(max_cycles=100)
    assert s.bindings() == {}
    if released_at_once:
        assert summary.clock_advanced == 0
        assert_released(s)
        assert any(MSG_OPTIMISTIC_REJECTION in p.message for p in s.pending())
    else:
        assert summary.clock_advanced >= 300
        assert any(MSG_REJECTION_IN_UNRESERVE in p.message for p in s.pending())


def test_less_after_schedule_failure() -> None:
    """Upstream TestLessAfterScheduleFailure: a rejected group sorts by its rejection time (after
    a younger group) until a member passes Permit with the quorum; an unreserved one too."""
    clock = FakeClock(T0)
    h = harness(PodGroup("pg1", "ns", min_member=1, creation_timestamp=T0 - 10),
                PodGroup("pg2", "ns", min_member=3, creation_timestamp=T0 - 5),
                nodes=[node("n0", cpu="8")], clock=clock)
    pl = plugin_of(h)
    p1 = qpi(make_pod("p1").namespace("ns").priority(100).label(POD_GROUP_LABEL, "pg1").obj(), T0, T0)
    p2 = qpi(make_pod("p2").namespace("ns").priority(100).label(POD_GROUP_LABEL, "pg2").obj(), T0, T0)
    assert pl.less(p1, p2) is True
    pl.post_filter(CycleState(), p1.pod_info.pod, NodeToStatus())  # pg1 rejected at T0
    assert pl.less(p1, p2) is False
    assert pl.less(p2, p1) is True
    # a member of pg1 passes Permit (minMember 1): pg1 sorts by its creation again
    assert pl.permit(CycleState(), p1.pod_info.pod, "n0") == (None, 0.0)
    assert pl.less(p1, p2) is True
    # Unreserve marks the failure as PostFilter does
    clock.step(1)
    pl.unreserve(CycleState(), p1.pod_info.pod, "n0")
    assert pl.less(p1, p2) is False
    # pg2 waiting at Permit (1 of 3) does not clear its own failure
    pl.post_filter(CycleState(), p2.pod_info.pod, NodeToStatus())
    status, _ = pl.permit(CycleState(), p2.pod_info.pod, "n0")
    assert status is not None
    assert status.is_wait()
    assert pl.less(p1, p2) is True  # pg1 failed at T0+1, pg2 at T0+1 too: pod key decides


def test_failing_gang_does_not_block_the_head_of_the_queue() -> None:
    """An old gang that cannot fit does not starve a younger one that can: once rejected it
    sorts by its rejection time, so the younger gang gets the nodes."""
    groups = [PodGroup("old", min_member=3, creation_timestamp=T0 - 100),
              PodGroup("young", min_member=2, creation_timestamp=T0 - 10)]
    s = cluster(2, groups, gang(3, "old") + gang(2, "young"))
    s.run_until_idle(max_cycles=30)
    assert sorted(s.bindings()) == ["default/young-0", "default/young-1"]


def test_issue_713_a_gang_that_cannot_complete_does_not_hold_resources() -> None:
    """scheduler-plugins #713: members assumed while the last one cannot fit must not keep the
    nodes: PostFilter rejects them at once (not at the 300 s Permit timeout), and a pod outside
    the gang, arriving after it failed, gets a node in the same instant."""
    s = cluster(3, [PodGroup("g", min_member=4)], gang(4),
                args={"permitWaitingTimeSeconds": 300, "podGroupBackoffSeconds": 600})
    for _ in range(4):
        assert s.schedule_one()
    assert s.bindings() == {}
    s.add_pod(make_pod("solo").req(cpu="1").obj())
    summary = s.run_until_idle(max_cycles=30)
    assert summary.clock_advanced == 0
    assert s.node_of("default/solo") is not None
    assert all(s.node_of(f"default/g-{i}") is None for i in range(4))
    assert_released(s)


def test_issue_930_no_partial_gang_when_one_node_is_free() -> None:
    """scheduler-plugins #930: two nodes, one taken; a gang of two must stay pending whole --
    a member that waited and was rejected does not count towards the quorum of a later attempt
    -- and binds whole once the node is freed."""
    blocker = make_pod("blocker").req(cpu="1").node("n0").obj()
    s = cluster(2, [PodGroup("g", min_member=2)], [blocker, *gang(2)])
    for _ in range(40):  # the gang retries without backoff: never one member bound
        s.run_until_idle(max_cycles=1)
        assert s.bindings() == {"default/blocker": "n0"}
    s.remove_pod(blocker)
    s.run_until_idle(max_cycles=40)
    assert sorted(s.bindings()) == ["default/g-0", "default/g-1"]
    assert_released(s)
