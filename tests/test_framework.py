"""Runtime semantics of :class:`schedframe.Framework` (upstream runtime/framework_test.go)."""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from schedframe import (
    ClusterEventWithHint,
    Code,
    ConfigurationError,
    CycleState,
    FakeClock,
    Node,
    NodeInfo,
    NodeScore,
    NominatingInfo,
    Pod,
    PodInfo,
    PostFilterResult,
    PreFilterResult,
    Registry,
    SchedulerError,
    Status,
)
from schedframe.cache.snapshot import Snapshot
from schedframe.framework import NodeToStatus
from schedframe.framework.events import NODE_ADD, ActionType, EventResource
from schedframe.framework.interfaces import MAX_PERMIT_TIMEOUT, NominatingMode
from schedframe.framework.runtime import Framework, InMemoryEventRecorder, RecordedEvent
from schedframe.framework.waiting_pods import WaitingPods
from schedframe.testing import (
    FAKE_REASON,
    FakeBind,
    FakeFilter,
    FakePermit,
    FakePostBind,
    FakePostFilter,
    FakePreBind,
    FakePreEnqueue,
    FakePreFilter,
    FakePreScore,
    FakeProfile,
    FakeQueueSort,
    FakeReserve,
    FakeScore,
    FalseFilter,
    TrueFilter,
    fake_registry,
    make_framework,
    make_node,
    make_pod,
    register_fake,
)
from schedframe.testing._fakes import _Ref

POD = make_pod("p").uid("uid-p").obj()


def _snap(*names: str) -> Snapshot:
    return Snapshot.from_objects([make_node(n).obj() for n in names])


def _infos(*names: str) -> list[NodeInfo]:
    return [NodeInfo(make_node(n).obj()) for n in names]


def _profile(**points: Sequence[str | tuple[str, int]]) -> FakeProfile:
    plugins: dict[str, tuple[_Ref, ...]] = {}
    for point, refs in points.items():
        plugins[point] = tuple(_Ref(r) if isinstance(r, str) else _Ref(*r) for r in refs)
    return FakeProfile(plugins)


# -- construction ---------------------------------------------------------------------------------

class NoMethods:
    """A plugin implementing nothing."""

    name = "NoMethods"


class FilterScore:
    """A filter + score plugin, for multiPoint expansion."""

    def __init__(self, name: str = "FilterScore") -> None:
        self.name = name

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        return None

    def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, Status | None]:
        return 1, None

    def score_extensions(self) -> None:
        return None


def _base_registry(*plugins: Any) -> Registry:
    return fake_registry(FakeQueueSort(), FakeBind(), *plugins)


@pytest.mark.parametrize(
    ("points", "match"),
    [
        pytest.param({"filter": ["NoMethods"]},
                     r"plugin 'NoMethods' is enabled at Filter but has no filter\(\) method", id="no filter"),
        pytest.param({"score": ["NoMethods"]},
                     r"plugin 'NoMethods' is enabled at Score but has no score\(\) method", id="no score"),
        pytest.param({"reserve": ["NoMethods"]},
                     r"plugin 'NoMethods' is enabled at Reserve but has no reserve\(\) method",
                     id="no reserve"),
        pytest.param({"filter": ["FilterScore", "FilterScore"]},
                     r"plugin 'FilterScore' is enabled twice at Filter", id="duplicate at point"),
        pytest.param({"filter": ["Nope"]}, r"no plugin named 'Nope' in the registry", id="unknown plugin"),
        pytest.param({"filters": ["FilterScore"]}, r"unknown extension point\(s\) \['filters'\]",
                     id="unknown point"),
    ],
)
def test_construction_errors(points: dict[str, list[str]], match: str) -> None:
    """Misconfigured profiles raise ConfigurationError with a precise message."""
    registry = _base_registry(NoMethods(), FilterScore())
    profile = _profile(queueSort=["FakeQueueSort"], bind=["FakeBind"], **points)
    with pytest.raises(ConfigurationError, match=match):
        Framework(registry, profile)


@pytest.mark.parametrize(
    ("points", "match"),
    [
        pytest.param({"bind": ["FakeBind"]}, r"exactly one QueueSort plugin is required, got 0",
                     id="no sort"),
        pytest.param({"queueSort": ["FakeQueueSort", "Q2"], "bind": ["FakeBind"]},
                     r"exactly one QueueSort plugin is required, got 2 \(FakeQueueSort, Q2\)",
                     id="two sorts"),
        pytest.param({"queueSort": ["FakeQueueSort"]}, r"at least one Bind plugin is required", id="no bind"),
    ],
)
def test_queue_sort_and_bind_required(points: dict[str, list[str]], match: str) -> None:
    """A profile needs exactly one QueueSort and at least one Bind plugin."""
    registry = _base_registry(FakeQueueSort("Q2"))
    with pytest.raises(ConfigurationError, match=match):
        Framework(registry, _profile(**points))


def test_factory_exception_names_plugin() -> None:
    """A factory raising becomes a ConfigurationError naming the plugin."""
    registry = _base_registry()

    def boom(args: Any, handle: Any) -> Any:
        raise ValueError("bad things")

    registry.register("Boom", boom)
    with pytest.raises(ConfigurationError, match=r"initializing plugin 'Boom': ValueError: bad things"):
        Framework(registry, _profile(queueSort=["FakeQueueSort"], bind=["FakeBind"], filter=["Boom"]))


def test_plugin_name_must_match_registry_name() -> None:
    """A plugin reporting another name than its registry name is rejected."""
    registry = _base_registry()
    registry.register("Alias", lambda args, handle: TrueFilter("Real"))
    with pytest.raises(ConfigurationError, match=r"registered as 'Alias' reports name 'Real'"):
        Framework(registry, _profile(queueSort=["FakeQueueSort"], bind=["FakeBind"], filter=["Alias"]))


@attrs.frozen
class EchoArgs:
    """Args decoded from a mapping."""

    value: int = 1

    @classmethod
    def from_dict(cls, data: Any) -> EchoArgs:
        return cls(value=int(data["value"]))


def test_args_decoded_through_args_type() -> None:
    """Mapping args are decoded with the registry's args_type before the factory sees them."""
    seen: list[Any] = []

    def new(args: Any, handle: Any) -> Any:
        seen.append(args)
        return TrueFilter("Echo")

    registry = _base_registry()
    registry.register("Echo", new, args_type=EchoArgs)
    profile = attrs.evolve(_profile(queueSort=["FakeQueueSort"], bind=["FakeBind"], filter=["Echo"]),
                           plugin_args={"Echo": {"value": "7"}})
    Framework(registry, profile)
    assert seen == [EchoArgs(7)]


def test_args_decoding_error_is_configuration_error() -> None:
    """Bad args surface as ConfigurationError naming the plugin."""
    registry = _base_registry()
    registry.register("Echo", lambda a, h: TrueFilter("Echo"), args_type=EchoArgs)
    profile = attrs.evolve(_profile(queueSort=["FakeQueueSort"], bind=["FakeBind"], filter=["Echo"]),
                           plugin_args={"Echo": {}})
    with pytest.raises(ConfigurationError, match=r"initializing plugin 'Echo': KeyError"):
        Framework(registry, profile)


@pytest.mark.parametrize(
    ("weight", "want"),
    [pytest.param(0, 1, id="unset weight is 1"), pytest.param(3, 3, id="explicit weight")],
)
def test_score_weights(weight: int, want: int) -> None:
    """Score weights default to 1 and multiply the scores."""
    fw = make_framework(score=[(FakeScore({"n1": 10}), weight)])
    assert fw.score_weight("FakeScore") == want
    scores, status = fw.run_score_plugins(CycleState(), POD, _infos("n1"))
    assert status == Status.OK
    assert scores[0].total_score == 10 * want


def test_negative_weight_rejected() -> None:
    """A negative weight is a configuration error."""
    with pytest.raises(ConfigurationError, match=r"negative weight -1"):
        make_framework(score=[(FakeScore(), -1)])


def test_multi_point_expansion_and_override_order() -> None:
    """multiPoint plugins go to every point they implement; explicit entries override order."""
    registry = _base_registry(FilterScore("A"), FilterScore("B"), TrueFilter("C"))
    profile = _profile(multiPoint=["A", "B", ("FakeQueueSort", 0), "FakeBind"],
                       filter=["C", "B"], score=[("A", 5)])
    fw = Framework(registry, profile)
    # part 1: overridden multiPoint plugins in explicit order; part 2: other multiPoint; part 3: rest
    assert fw.plugins_at("filter") == ["B", "A", "C"]
    assert fw.plugins_at("score") == ["A", "B"]
    assert fw.score_weight("A") == 5
    assert fw.score_weight("B") == 1
    assert fw.plugins_at("queueSort") == ["FakeQueueSort"]
    assert fw.list_plugins()["bind"] == ["FakeBind"]


def test_multi_point_duplicate_rejected() -> None:
    """The same plugin twice in multiPoint is an error."""
    registry = _base_registry(FilterScore("A"))
    with pytest.raises(ConfigurationError, match=r"'A' is enabled twice at multiPoint"):
        Framework(registry, _profile(multiPoint=["A", "A", "FakeQueueSort", "FakeBind"]))


def test_introspection() -> None:
    """has_* / plugins_at / get_plugin reflect the profile."""
    fw = make_framework(filter=[TrueFilter()])
    assert fw.has_filter_plugins()
    assert not fw.has_score_plugins()
    assert not fw.has_post_filter_plugins()
    assert isinstance(fw.get_plugin("TrueFilter"), TrueFilter)
    assert fw.get_plugin("Nope") is None
    assert fw.plugins_at("permit") == []
    with pytest.raises(ConfigurationError, match=r"unknown extension point 'permits'"):
        fw.plugins_at("permits")
    assert fw.profile_name == "default-scheduler"
    assert "TrueFilter" in repr(fw)


# -- PreEnqueue / QueueSort -----------------------------------------------------------------------

@pytest.mark.parametrize(
    ("statuses", "want"),
    [
        pytest.param([None, None], Status.OK, id="all pass"),
        pytest.param([None, Status(Code.PENDING, "gated")], Status(Code.PENDING, "gated", "P1"), id="gated"),
        pytest.param([Status.unschedulable("no"), None], Status(Code.UNSCHEDULABLE, "no", "P0"), id="first"),
    ],
)
def test_pre_enqueue(statuses: list[Status | None], want: Status) -> None:
    """The first PreEnqueue plugin not returning success gates the pod."""
    plugins = [FakePreEnqueue(s, f"P{i}") for i, s in enumerate(statuses)]
    fw = make_framework(pre_enqueue=plugins)
    assert fw.run_pre_enqueue_plugins(POD) == want
    assert fw.pre_enqueue_plugin_names() == ["P0", "P1"]


def test_queue_sort_less() -> None:
    """queue_sort_less is the QueueSort plugin's less."""
    fw = make_framework()
    from schedframe import QueuedPodInfo

    hi = QueuedPodInfo(PodInfo(make_pod("a").priority(10).obj()), timestamp=2.0)
    lo = QueuedPodInfo(PodInfo(make_pod("b").obj()), timestamp=1.0)
    less = fw.queue_sort_less()
    assert less(hi, lo)
    assert not less(lo, hi)


# -- PreFilter ------------------------------------------------------------------------------------

def _pf(name: str, result: Sequence[str] | None = None, status: Status | None = None,
        raises: BaseException | None = None) -> FakePreFilter:
    return FakePreFilter(PreFilterResult(result) if result is not None else None, status, name,
                         raises=raises)


@pytest.mark.parametrize(
    ("plugins", "want_result", "want_status", "want_rejectors", "want_calls"),
    [
        pytest.param([_pf("A"), _pf("B")], None, Status.OK, set(), 2, id="all success"),
        pytest.param([_pf("A", status=Status.unresolvable("nope")), _pf("B")], None,
                     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "nope", "A"), {"A"}, 1,
                     id="unresolvable stops at once"),
        pytest.param([_pf("A", status=Status.unschedulable("a")), _pf("B", status=Status.unschedulable("b")),
                      _pf("C")], None, Status(Code.UNSCHEDULABLE, "b", "B"), {"B"}, 3,
                     id="unschedulable runs the rest, last one reported"),
        pytest.param([_pf("A", status=Status(Code.ERROR, "disk on fire")), _pf("B")], None,
                     Status(Code.ERROR, 'running PreFilter plugin "A": disk on fire', "A"), set(), 1,
                     id="error stops"),
        pytest.param([_pf("A", status=Status.wait()), _pf("B")], None,
                     Status(Code.ERROR, 'running PreFilter plugin "A": Wait', "A"), set(), 1,
                     id="wait is an error"),
        pytest.param([_pf("A", raises=ValueError("boom")), _pf("B")], None,
                     Status(Code.ERROR, 'running PreFilter plugin "A": ValueError: boom', "A"), set(), 1,
                     id="exception becomes error"),
        pytest.param([_pf("A", ["n1", "n2"]), _pf("B", ["n2", "n3"]), _pf("C")], PreFilterResult(["n2"]),
                     Status.OK, {"A", "B"}, 3, id="results intersect"),
        pytest.param([_pf("A", []), _pf("B")], PreFilterResult([]),
                     Status.unresolvable("node(s) didn't satisfy plugin A"), {"A"}, 1,
                     id="empty result, one plugin"),
        pytest.param([_pf("B", ["n1"]), _pf("A", ["n2"]), _pf("C")], PreFilterResult([]),
                     Status.unresolvable("node(s) didn't satisfy plugin(s) [A B] simultaneously"),
                     {"A", "B"}, 2,
                     id="empty intersection, two plugins"),
        pytest.param([_pf("A", ["n1"]), _pf("B", status=Status.unschedulable("b"))], PreFilterResult(["n1"]),
                     Status(Code.UNSCHEDULABLE, "b", "B"), {"A", "B"}, 2,
                     id="result and unschedulable"),
    ],
)
def test_run_pre_filter_plugins(plugins: list[FakePreFilter], want_result: PreFilterResult | None,
                                want_status: Status, want_rejectors: set[str], want_calls: int) -> None:
    """PreFilter: skip/unresolvable/unschedulable/error handling and result intersection."""
    fw = make_framework(pre_filter=plugins)
    fw.set_snapshot(_snap("n1", "n2", "n3"))
    result, status, rejectors = fw.run_pre_filter_plugins(CycleState(), POD)
    assert (result, status, rejectors) == (want_result, want_status, want_rejectors)
    assert sum(len(p.calls) for p in plugins) == want_calls


def test_pre_filter_receives_snapshot_nodes() -> None:
    """PreFilter plugins get every node of the snapshot."""
    pf = _pf("A")
    fw = make_framework(pre_filter=[pf])
    fw.set_snapshot(_snap("n1", "n2"))
    fw.run_pre_filter_plugins(CycleState(), POD)
    assert pf.calls == [("pre_filter", "p", 2)]


def test_pre_filter_skip_fills_skip_set_and_skips_filter() -> None:
    """A PreFilter SKIP puts the plugin in skip_filter_plugins; its Filter is not called."""

    class SkipFilter:
        name = "SkipFilter"

        def __init__(self) -> None:
            self.filtered = 0

        def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[None, Status]:
            return None, Status.skip()

        def pre_filter_extensions(self) -> None:
            return None

        def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status:
            self.filtered += 1
            return Status.unschedulable("never")

    plugin = SkipFilter()
    other = FalseFilter()
    fw = make_framework(pre_filter=[plugin], filter=[plugin, other])
    state = CycleState()
    _, status, _ = fw.run_pre_filter_plugins(state, POD)
    assert status == Status.OK
    assert state.skip_filter_plugins == {"SkipFilter"}
    got = fw.run_filter_plugins(state, POD, _infos("n1")[0])
    assert got == Status(Code.UNSCHEDULABLE, FAKE_REASON, "FalseFilter")
    assert plugin.filtered == 0
    # a new cycle without the skip runs the filter again
    fresh = CycleState()
    assert fw.run_filter_plugins(fresh, POD, _infos("n1")[0]).plugin == "SkipFilter"
    assert plugin.filtered == 1


def test_pre_filter_skip_set_even_on_early_return() -> None:
    """The skip set is written even when a later PreFilter plugin stops the cycle."""
    fw = make_framework(pre_filter=[_pf("A", status=Status.skip()),
                                    _pf("B", status=Status.unresolvable("x"))])
    state = CycleState()
    fw.run_pre_filter_plugins(state, POD)
    assert state.skip_filter_plugins == {"A"}


# -- Filter ---------------------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("filters", "want", "want_calls"),
    [
        pytest.param([TrueFilter("A"), TrueFilter("B")], Status.OK, [1, 1], id="all pass"),
        pytest.param([FalseFilter("A"), TrueFilter("B")], Status(Code.UNSCHEDULABLE, FAKE_REASON, "A"),
                     [1, 0],
                     id="first failure stops"),
        pytest.param([TrueFilter("A"), FalseFilter("B", Code.UNSCHEDULABLE_AND_UNRESOLVABLE)],
                     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, FAKE_REASON, "B"), [1, 1],
                     id="unresolvable"),
        pytest.param([FalseFilter("A", Code.PENDING)], Status(Code.PENDING, FAKE_REASON, "A"), [1],
                     id="pending is a rejection"),
        pytest.param([FalseFilter("A", Code.ERROR)],
                     Status(Code.ERROR, f'running Filter plugin "A": {FAKE_REASON}', "A"), [1], id="error"),
        pytest.param([FalseFilter("A", Code.WAIT)],
                     Status(Code.ERROR, f'running Filter plugin "A": {FAKE_REASON}', "A"), [1],
                     id="non-rejection becomes error"),
        pytest.param([FakeFilter(name="A", raises={"n1": ValueError("boom")})],
                     Status(Code.ERROR, 'running Filter plugin "A": ValueError: boom', "A"), [1],
                     id="exception becomes error"),
    ],
)
def test_run_filter_plugins(filters: list[Any], want: Status, want_calls: list[int]) -> None:
    """Filter: stop at the first non-success; rejections keep their code, anything else is ERROR."""
    fw = make_framework(filter=filters)
    got = fw.run_filter_plugins(CycleState(), POD, _infos("n1")[0])
    assert got == want
    assert [len(f.calls) for f in filters] == want_calls


def test_filter_success_returns_shared_ok() -> None:
    """The success path returns the shared Status.OK (no allocation)."""
    fw = make_framework(filter=[TrueFilter()])
    assert fw.run_filter_plugins(CycleState(), POD, _infos("n1")[0]) is Status.OK


def test_filter_exception_error_keeps_exception() -> None:
    """The ERROR status carries the exception."""
    exc = KeyError("k")
    fw = make_framework(filter=[FakeFilter(raises={"n1": exc})])
    got = fw.run_filter_plugins(CycleState(), POD, _infos("n1")[0])
    assert got.error is exc
    assert got.message == 'running Filter plugin "FakeFilter": KeyError: \'k\''


def test_filter_skip_cache_follows_skip_set_changes() -> None:
    """Filter plugin lists are cached per skip set, and a new skip set is honoured."""
    a, b = FalseFilter("A"), FalseFilter("B")
    fw = make_framework(filter=[a, b])
    node = _infos("n1")[0]
    s1, s2, s3 = CycleState(), CycleState(), CycleState()
    s1.skip_filter_plugins = frozenset({"A"})
    s2.skip_filter_plugins = {"A", "B"}
    assert fw.run_filter_plugins(s1, POD, node).plugin == "B"
    assert fw.run_filter_plugins(s2, POD, node) is Status.OK
    assert fw.run_filter_plugins(s3, POD, node).plugin == "A"
    assert fw.run_filter_plugins(s1, POD, node).plugin == "B"


# -- Filter with nominated pods -------------------------------------------------------------------

class MaxPods:
    """Filter rejecting nodes holding *limit* pods or more; PreFilter extension counts add_pod."""

    def __init__(self, limit: int, *, min_pods: int = 0, fail_add: bool = False) -> None:
        self.name = "MaxPods"
        self.limit = limit
        self.min_pods = min_pods
        self.fail_add = fail_add
        self.added: list[str] = []

    def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[None, None]:
        return None, None

    def pre_filter_extensions(self) -> MaxPods:
        return self

    def add_pod(self, state: CycleState, pod: Pod, pod_info: PodInfo, node_info: NodeInfo) -> Status | None:
        self.added.append(pod_info.pod.name)
        return Status(Code.ERROR, "cannot add") if self.fail_add else None

    def remove_pod(self, state: CycleState, pod: Pod, pod_info: PodInfo,
                   node_info: NodeInfo) -> Status | None:
        return None

    def filter(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> Status | None:
        n = len(node_info.pods)
        if n >= self.limit:
            return Status.unschedulable("too many pods")
        if n < self.min_pods:
            return Status.unschedulable("too few pods")
        return None


class ListNominator:
    """Nominator with a fixed list of pods for every node."""

    def __init__(self, *pods: Pod) -> None:
        self.pods = [PodInfo.of(p) for p in pods]

    def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
        return list(self.pods)


@pytest.mark.parametrize(
    ("plugin", "nominated", "want", "want_added"),
    [
        pytest.param(MaxPods(1), (), Status.OK, [], id="no nominated pods"),
        pytest.param(MaxPods(1), (make_pod("hi").priority(10).obj(),),
                     Status(Code.UNSCHEDULABLE, "too many pods", "MaxPods"), ["hi"],
                     id="higher priority nominated pod counted"),
        pytest.param(MaxPods(1), (make_pod("eq").obj(),),
                     Status(Code.UNSCHEDULABLE, "too many pods", "MaxPods"), ["eq"],
                     id="equal priority nominated pod counted"),
        pytest.param(MaxPods(1), (make_pod("lo").priority(-1).obj(),), Status.OK, [],
                     id="lower priority nominated pod ignored"),
        pytest.param(MaxPods(1), (POD,), Status.OK, [], id="the pod itself is ignored"),
        pytest.param(MaxPods(5, min_pods=1), (make_pod("hi").priority(10).obj(),),
                     Status(Code.UNSCHEDULABLE, "too few pods", "MaxPods"), ["hi"],
                     id="second pass without nominated pods"),
        pytest.param(MaxPods(5, fail_add=True), (make_pod("hi").priority(10).obj(),),
                     Status(Code.ERROR, 'running AddPod on PreFilter plugin "MaxPods": cannot add',
                            "MaxPods"),
                     ["hi"], id="add_pod failure is an error"),
    ],
)
def test_run_filter_plugins_with_nominated_pods(plugin: MaxPods, nominated: tuple[Pod, ...], want: Status,
                                                want_added: list[str]) -> None:
    """Nominated pods of >= priority are added to a cloned state/NodeInfo; two passes."""
    fw = make_framework(pre_filter=[plugin], filter=[plugin],
                        framework_kwargs={"nominator": ListNominator(*nominated)})
    state = CycleState()
    info = _infos("n1")[0]
    assert fw.run_filter_plugins_with_nominated_pods(state, POD, info) == want
    assert plugin.added == want_added
    assert info.pods == []  # the caller's NodeInfo is untouched


def test_pre_filter_extensions_respect_skip_set() -> None:
    """add_pod/remove_pod are not run for plugins whose PreFilter said SKIP."""
    plugin = MaxPods(5)
    fw = make_framework(pre_filter=[plugin])
    state = CycleState()
    info = _infos("n1")[0]
    pi = PodInfo.of(make_pod("x").obj())
    assert fw.run_pre_filter_extension_add_pod(state, POD, pi, info) == Status.OK
    assert fw.run_pre_filter_extension_remove_pod(state, POD, pi, info) == Status.OK
    assert plugin.added == ["x"]
    state.skip_filter_plugins = frozenset({"MaxPods"})
    fw.run_pre_filter_extension_add_pod(state, POD, pi, info)
    assert plugin.added == ["x"]


def test_pre_filter_extension_exception() -> None:
    """An exception in remove_pod becomes an ERROR naming the operation and plugin."""

    class Bad(MaxPods):
        def remove_pod(self, *args: Any) -> Status | None:
            raise RuntimeError("nope")

    fw = make_framework(pre_filter=[Bad(1)])
    got = fw.run_pre_filter_extension_remove_pod(CycleState(), POD, PodInfo.of(POD), _infos("n1")[0])
    assert got.code is Code.ERROR
    assert got.message == 'running RemovePod on PreFilter plugin "MaxPods": RuntimeError: nope'


# -- PostFilter -----------------------------------------------------------------------------------

NOMINATE = PostFilterResult(NominatingInfo("n1"))
NOOP = PostFilterResult(NominatingInfo("", NominatingMode.NOOP))


@pytest.mark.parametrize(
    ("plugins", "want_result", "want_status", "want_calls"),
    [
        pytest.param([], None, Status(Code.UNSCHEDULABLE), [], id="no plugins"),
        pytest.param([FakePostFilter(NOMINATE, None, "A"), FakePostFilter(name="B")], NOMINATE, Status.OK,
                     [1, 0], id="first success wins"),
        pytest.param([FakePostFilter(None, Status.unresolvable("u"), "A"), FakePostFilter(name="B")], None,
                     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "u", "A"), [1, 0], id="unresolvable stops"),
        pytest.param([FakePostFilter(None, Status(Code.ERROR, "e"), "A"), FakePostFilter(name="B")], None,
                     Status(Code.ERROR, "e", "A"), [1, 0], id="error stops"),
        pytest.param([FakePostFilter(None, None, "A", raises=ValueError("x"))], None,
                     Status(Code.ERROR, 'running PostFilter plugin "A": ValueError: x', "A"), [1],
                     id="exception"),
        pytest.param([FakePostFilter(NOMINATE, Status.unschedulable("a"), "A"),
                      FakePostFilter(NOOP, Status.unschedulable("b1", "b2"), "B")],
                     NOMINATE, Status(Code.UNSCHEDULABLE, ("a", "b1", "b2"), "A"), [1, 1],
                     id="reasons merged, first rejector, last nominating result"),
    ],
)
def test_run_post_filter_plugins(plugins: list[FakePostFilter], want_result: PostFilterResult | None,
                                 want_status: Status, want_calls: list[int]) -> None:
    """PostFilter runs until success, UNSCHEDULABLE_AND_UNRESOLVABLE or ERROR."""
    fw = make_framework(post_filter=plugins)
    result, status = fw.run_post_filter_plugins(CycleState(), POD, NodeToStatus())
    assert (result, status) == (want_result, want_status)
    assert [len(p.calls) for p in plugins] == want_calls


# -- PreScore / Score -----------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("statuses", "want", "want_skip"),
    [
        pytest.param([None, Status.skip()], Status.OK, {"P1"}, id="skip"),
        pytest.param([Status.unschedulable("u"), None],
                     Status(Code.ERROR, 'running PreScore plugin "P0": u', "P0"),
                     set(), id="rejection is an error"),
        pytest.param([Status.skip(), Status(Code.ERROR, "e")],
                     Status(Code.ERROR, 'running PreScore plugin "P1": e', "P1"),
                     {"P0"}, id="skip set written on error"),
    ],
)
def test_run_pre_score_plugins(statuses: list[Status | None], want: Status, want_skip: set[str]) -> None:
    """PreScore: SKIP fills skip_score_plugins; any other non-success is ERROR."""
    fw = make_framework(pre_score=[FakePreScore(s, f"P{i}") for i, s in enumerate(statuses)])
    state = CycleState()
    assert fw.run_pre_score_plugins(state, POD, _infos("n1")) == want
    assert state.skip_score_plugins == want_skip


def test_pre_score_exception() -> None:
    """A PreScore exception becomes ERROR."""
    fw = make_framework(pre_score=[FakePreScore(raises=ZeroDivisionError("z"))])
    got = fw.run_pre_score_plugins(CycleState(), POD, _infos("n1"))
    assert got.message == 'running PreScore plugin "FakePreScore": ZeroDivisionError: z'


NORM = 'running Normalize on Score plugins: plugin "A" failed with: '
RANGE = ('applying score defaultWeights on Score plugins: plugin "A" returns an invalid score {}, '
         "it should in the range of [0, 100] after normalizing")


def _double(scores: list[NodeScore]) -> None:
    for i, s in enumerate(scores):
        scores[i] = NodeScore(s.name, s.score * 2)


def _to_range(scores: list[NodeScore]) -> None:
    top = max(s.score for s in scores) or 1
    for i, s in enumerate(scores):
        scores[i] = NodeScore(s.name, s.score * 100 // top)


def test_run_score_plugins_weights_normalize_totals() -> None:
    """Scores are normalized, range-checked, weighted and totalled per node, in node order."""
    a = FakeScore({"n1": 10, "n2": 40}, "A", normalize=_double)
    b = FakeScore({"n1": 300, "n2": 600}, "B", normalize=_to_range)
    fw = make_framework(score=[(a, 2), b])
    scores, status = fw.run_score_plugins(CycleState(), POD, _infos("n1", "n2"))
    assert status == Status.OK
    from schedframe.framework import NodePluginScores, PluginScore

    assert scores == [
        NodePluginScores("n1", (PluginScore("A", 40), PluginScore("B", 50)), 90),
        NodePluginScores("n2", (PluginScore("A", 160), PluginScore("B", 100)), 260),
    ]


@pytest.mark.parametrize(
    "plugins",
    [
        pytest.param([], id="no plugins"),
        pytest.param([(FakeScore({"n1": 10, "n2": 40}, "A"), 3)], id="one weighted plugin"),
        pytest.param([(FakeScore({"n1": 10, "n2": 40}, "A", normalize=_double), 2),
                      (FakeScore({"n1": 7}, "B"), 1)], id="two plugins"),
        pytest.param([(FakeScore({"n1": 5, "n2": 5, "n3": 5}, "A"), 3),
                      (FakeScore({"n1": 9, "n3": 2}, "B"), 1)], id="one constant plugin"),
        pytest.param([(FakeScore({"n1": 5, "n2": 5, "n3": 5}, "A"), 2),
                      (FakeScore({"n1": 1, "n2": 1, "n3": 1}, "B"), 4)], id="only constant plugins"),
        pytest.param([(FakeScore({"n1": 5, "n2": 6, "n3": 5}, "A"), 2), (FakeScore({"n2": 3}, "B"), 1),
                      (FakeScore({"n1": 8, "n2": 8, "n3": 8}, "C"), 1), (FakeScore({"n3": 70}, "D"), 5)],
                     id="three varying plugins and a constant one"),
    ],
)
def test_score_totals_match_full_scores(plugins: list[tuple[FakeScore, int]]) -> None:
    """run_score_plugins_totals gives the totals of run_score_plugins, in node order; the
    scheduler's variant gives them apart from what every node got alike."""
    fw = make_framework(score=plugins)
    infos = _infos("n1", "n2", "n3")
    full, status = fw.run_score_plugins(CycleState(), POD, infos)
    totals, status2 = fw.run_score_plugins_totals(CycleState(), POD, infos)
    rest, same, status3 = fw._score_totals_apart(CycleState(), POD, infos)
    assert status.is_success()
    assert status2.is_success()
    assert status3.is_success()
    assert totals == [s.total_score for s in full]
    assert [r + same for r in rest] == totals


def test_score_totals_error() -> None:
    """run_score_plugins_totals reports errors like run_score_plugins."""
    fw = make_framework(score=[FakeScore({"n1": 101}, "A")])
    assert fw.run_score_plugins_totals(CycleState(), POD, _infos("n1")) == (
        [], Status(Code.ERROR, (RANGE.format(101),), "A"))


class _DeclaresRange(FakeScore):
    """A Score plugin declaring, as the built-in ones do, that its scores need no range check."""

    _schedframe_scores_in_range = True


def test_declared_score_ranges_skip_the_check_only_when_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A plugin declaring its scores in range skips the per-cycle check (the built-in plugins'
    declaration, verified by this suite, which turns trust off); undeclared plugins are always
    checked, and every built-in Score plugin of the default profile declares it."""
    from schedframe.framework import _scoring

    infos = _infos("n1")
    monkeypatch.setattr(_scoring, "TRUST_DECLARED_RANGES", True)
    fw = make_framework(score=[_DeclaresRange({"n1": 101}, "A")])
    assert fw.run_score_plugins_totals(CycleState(), POD, infos) == ([101], Status.OK)
    fw = make_framework(score=[_DeclaresRange({"n1": 101}, "A"), FakeScore({"n1": 150}, "B")])
    assert fw.run_score_plugins_totals(CycleState(), POD, infos)[1].message == RANGE.format(150).replace(
        '"A"', '"B"')
    monkeypatch.setattr(_scoring, "TRUST_DECLARED_RANGES", False)  # the suite's setting
    fw = make_framework(score=[_DeclaresRange({"n1": 101}, "A")])
    assert fw.run_score_plugins_totals(CycleState(), POD, infos) == (
        [], Status(Code.ERROR, (RANGE.format(101),), "A"))
    from schedframe.plugins.image_locality import ImageLocality
    from schedframe.plugins.inter_pod_affinity import InterPodAffinity
    from schedframe.plugins.node_affinity import NodeAffinity
    from schedframe.plugins.node_resources_balanced_allocation import NodeResourcesBalancedAllocation
    from schedframe.plugins.node_resources_fit import NodeResourcesFit
    from schedframe.plugins.pod_topology_spread import PodTopologySpread
    from schedframe.plugins.taint_toleration import TaintToleration

    for cls in (TaintToleration, NodeAffinity, NodeResourcesFit, PodTopologySpread, InterPodAffinity,
                NodeResourcesBalancedAllocation, ImageLocality):
        assert _scoring.scores_in_range(cls.__new__(cls)) is False  # trust off here
        assert cls._schedframe_scores_in_range is True, cls


def test_score_errors_before_normalize_errors() -> None:
    """A Score failure of a later plugin wins over a NormalizeScore failure of an earlier one."""
    a = FakeScore(name="A", normalize=lambda s: Status(Code.ERROR, "norm"))
    b = FakeScore(name="B", status=Status(Code.ERROR, "bad"))
    fw = make_framework(score=[a, b])
    _, status = fw.run_score_plugins(CycleState(), POD, _infos("n1"))
    assert status.message == 'running Score plugins: plugin "B" failed with: bad'


def test_score_range_error_reports_first_node_then_plugin() -> None:
    """The range error names the first offending score in node order, then plugin order."""
    fw = make_framework(score=[FakeScore({"n2": 200}, "A"), FakeScore({"n1": 150}, "B")])
    _, status = fw.run_score_plugins(CycleState(), POD, _infos("n1", "n2"))
    assert (status.plugin, status.message) == ("B", RANGE.format(150).replace('"A"', '"B"'))


def test_score_skip_set() -> None:
    """Plugins in skip_score_plugins are not scored and do not appear in the results."""
    a, b = FakeScore({"n1": 5}, "A"), FakeScore({"n1": 7}, "B")
    fw = make_framework(score=[a, b])
    state = CycleState()
    state.skip_score_plugins = frozenset({"A"})
    scores, _ = fw.run_score_plugins(state, POD, _infos("n1"))
    assert [s.name for s in scores[0].scores] == ["B"]
    assert a.calls == []


@pytest.mark.parametrize(
    ("plugin", "want_message"),
    [
        pytest.param(FakeScore({"n1": 101}, "A"),
                     RANGE.format(101), id="above range"),
        pytest.param(FakeScore({"n1": -1}, "A"),
                     RANGE.format(-1), id="below range"),
        pytest.param(FakeScore({"n1": 60}, "A", normalize=_double),
                     RANGE.format(120), id="out of range after normalize"),
        pytest.param(FakeScore(name="A", status=Status(Code.ERROR, "bad")),
                     'running Score plugins: plugin "A" failed with: bad', id="score status"),
        pytest.param(FakeScore(name="A", raises=ValueError("v")),
                     'running Score plugins: plugin "A" failed with: ValueError: v', id="score exception"),
        pytest.param(FakeScore(name="A", normalize=lambda s: Status(Code.ERROR, "norm")),
                     NORM + "norm", id="normalize status"),
        pytest.param(FakeScore(name="A", normalize=lambda s: [][0]),
                     NORM + "IndexError: list index out of range",
                     id="normalize exception"),
        pytest.param(FakeScore(name="A", normalize=lambda s: s.clear()),
                     NORM + "returned 0 scores for 1 nodes",
                     id="normalize drops scores"),
    ],
)
def test_score_errors(plugin: FakeScore, want_message: str) -> None:
    """Score failures and out-of-range scores give ERROR with upstream's wording."""
    fw = make_framework(score=[plugin])
    scores, status = fw.run_score_plugins(CycleState(), POD, _infos("n1"))
    assert scores == []
    assert status.code is Code.ERROR
    assert status.plugin == "A"
    assert status.message == want_message


@given(raw=st.lists(st.integers(-1000, 1000), min_size=1, max_size=8),
       shift=st.integers(-200, 200), scale=st.integers(0, 3))
def test_normalized_scores_in_range_or_error(raw: list[int], shift: int, scale: int) -> None:
    """After NormalizeScore every score is in [0, 100], or the framework reports ERROR."""
    names = [f"n{i}" for i in range(len(raw))]

    def normalize(scores: list[NodeScore]) -> None:
        for i, s in enumerate(scores):
            scores[i] = NodeScore(s.name, s.score * scale + shift)

    fw = make_framework(score=[FakeScore(dict(zip(names, raw)), "A", normalize=normalize)])
    scores, status = fw.run_score_plugins(CycleState(), POD, _infos(*names))
    totals, status2 = fw.run_score_plugins_totals(CycleState(), POD, _infos(*names))
    normalized = [r * scale + shift for r in raw]
    if all(0 <= v <= 100 for v in normalized):
        assert status.is_success()
        assert [s.total_score for s in scores] == normalized == totals
    else:
        assert status.code is Code.ERROR
        assert "after normalizing" in status.message
        assert status2 == status


# -- Reserve / Unreserve --------------------------------------------------------------------------

@pytest.mark.parametrize(
    ("statuses", "want", "want_calls"),
    [
        pytest.param([None, None], Status.OK, [1, 1], id="all reserve"),
        pytest.param([Status.unschedulable("full"), None], Status(Code.UNSCHEDULABLE, "full", "R0"), [1, 0],
                     id="rejection stops"),
        pytest.param([None, Status(Code.ERROR, "e")],
                     Status(Code.ERROR, 'running Reserve plugin "R1": e', "R1"),
                     [1, 1], id="error"),
        pytest.param([Status.skip()], Status(Code.ERROR, 'running Reserve plugin "R0": Skip', "R0"), [1],
                     id="skip is an error"),
    ],
)
def test_run_reserve_plugins_reserve(statuses: list[Status | None], want: Status,
                                     want_calls: list[int]) -> None:
    """Reserve stops at the first failure."""
    plugins = [FakeReserve(s, f"R{i}") for i, s in enumerate(statuses)]
    fw = make_framework(reserve=plugins)
    assert fw.run_reserve_plugins_reserve(CycleState(), POD, "n1") == want
    assert [len(p.calls) for p in plugins] == want_calls


def test_reserve_exception() -> None:
    """A Reserve exception becomes ERROR."""
    fw = make_framework(reserve=[FakeReserve(raises=OSError("io"))])
    got = fw.run_reserve_plugins_reserve(CycleState(), POD, "n1")
    assert got.message == 'running Reserve plugin "FakeReserve": OSError: io'


def test_unreserve_reverse_order_and_swallows_exceptions(caplog: pytest.LogCaptureFixture) -> None:
    """Unreserve runs on every reserve plugin in reverse order; exceptions are logged."""
    order: list[str] = []
    plugins = [FakeReserve(name="R0"), FakeReserve(name="R1", unreserve_raises=RuntimeError("oops")),
               FakeReserve(name="R2")]
    fw = make_framework(reserve=plugins)
    with caplog.at_level(logging.WARNING, logger="schedframe"):
        fw.run_reserve_plugins_unreserve(CycleState(), POD, "n1")
    for p in reversed(plugins):
        order.extend(c[0] + ":" + p.name for c in p.calls)
    assert order == ["unreserve:R2", "unreserve:R1", "unreserve:R0"]
    assert "Unreserve of plugin 'R1' raised" in caplog.text


# -- Permit ---------------------------------------------------------------------------------------

def test_the_permit_wait_is_worded_per_release(clock: FakeClock) -> None:
    """1.36 on, the waiting plugin's status with a reason appended (its message is a failed
    PodGroup member's); 1.35 named the pod in a status of its own."""
    import attrs

    from schedframe.framework.releases import release_profile

    fw = make_framework(permit=[FakePermit(Status.wait("gang short"), 10, "A")],
                        framework_kwargs={"clock": clock})
    assert fw.run_permit_plugins(CycleState(), POD, "n1", park=False) == Status.wait(
        "gang short", "one or more plugins asked to wait and no plugin rejected pod")
    assert fw.get_waiting_pod(POD.uid) is None  # not parked
    fw.profile = attrs.evolve(fw.profile, release=release_profile("1.35"))
    assert fw.run_permit_plugins(CycleState(), POD, "n1") == Status.wait(
        'one or more plugins asked to wait and no plugin rejected pod "p"')


@pytest.mark.parametrize(
    ("plugins", "want", "want_waiting"),
    [
        pytest.param([FakePermit(None, name="A")], Status.OK, None, id="allow"),
        pytest.param([FakePermit(Status.unschedulable("no"), name="A"), FakePermit(name="B")],
                     Status(Code.UNSCHEDULABLE, "no", "A"), None, id="rejection"),
        pytest.param([FakePermit(Status.wait(), 10, "A"), FakePermit(Status.unresolvable("no"), name="B")],
                     Status(Code.UNSCHEDULABLE_AND_UNRESOLVABLE, "no", "B"), None, id="rejection after wait"),
        pytest.param([FakePermit(Status(Code.ERROR, "e"), name="A")],
                     Status(Code.ERROR, 'running Permit plugin "A": e', "A"), None, id="error"),
        pytest.param([FakePermit(name="A", raises=ValueError("v"))],
                     Status(Code.ERROR, 'running Permit plugin "A": ValueError: v', "A"), None,
                     id="exception"),
        pytest.param([FakePermit(Status.wait(), 10, "A"), FakePermit(Status.wait(), 3600, "B")],
                     Status.wait("one or more plugins asked to wait and no plugin rejected pod"),
                     {"A": 10.0, "B": MAX_PERMIT_TIMEOUT}, id="wait, timeout capped"),
    ],
)
def test_run_permit_plugins(plugins: list[FakePermit], want: Status,
                            want_waiting: dict[str, float] | None, clock: FakeClock) -> None:
    """Permit: rejection stops; WAIT parks the pod with per-plugin capped timeouts."""
    fw = make_framework(permit=plugins, framework_kwargs={"clock": clock})
    assert fw.run_permit_plugins(CycleState(), POD, "n1") == want
    wp = fw.get_waiting_pod(POD.uid)
    if want_waiting is None:
        assert wp is None
        assert not fw.will_wait_on_permit(POD)
    else:
        assert wp is not None
        assert wp.pending_plugins() == list(want_waiting)
        assert wp.node_name == "n1"
        assert fw.waiting_pods.next_deadline() == clock.now() + min(want_waiting.values())


def _parked(clock: FakeClock, *timeouts: float) -> Framework:
    plugins = [FakePermit(Status.wait(), t, f"P{i}") for i, t in enumerate(timeouts)]
    fw = make_framework(permit=plugins, framework_kwargs={"clock": clock})
    assert fw.run_permit_plugins(CycleState(), POD, "n1").is_wait()
    return fw


def test_wait_on_permit_not_waiting(clock: FakeClock) -> None:
    """A pod that is not waiting is allowed."""
    fw = make_framework(framework_kwargs={"clock": clock})
    assert fw.wait_on_permit(POD, block=False) is Status.OK


def test_wait_on_permit_allowed_by_all(clock: FakeClock) -> None:
    """The decision is success only once every waiting plugin allowed."""
    fw = _parked(clock, 10, 20)
    wp = fw.get_waiting_pod(POD.uid)
    assert wp is not None
    wp.allow("P0")
    assert fw.wait_on_permit(POD, block=False) is None
    assert wp.pending_plugins() == ["P1"]
    wp.allow("P1")
    assert fw.wait_on_permit(POD, block=False) is Status.OK
    assert fw.get_waiting_pod(POD.uid) is None


def test_wait_on_permit_rejected(clock: FakeClock) -> None:
    """A rejection while waiting comes back as UNSCHEDULABLE from that plugin."""
    fw = _parked(clock, 10)
    wp = fw.get_waiting_pod(POD.uid)
    assert wp is not None
    wp.reject("P0", "gang failed")
    assert fw.wait_on_permit(POD, block=False) == Status(Code.UNSCHEDULABLE, "gang failed", "P0")


@pytest.mark.parametrize(
    ("timeouts", "step", "want"),
    [
        pytest.param((10,), 9.5, None, id="before deadline"),
        pytest.param((10,), 10,
                     Status(Code.UNSCHEDULABLE, "rejected due to timeout after waiting 10s at plugin P0",
                            "P0"),
                     id="at deadline"),
        pytest.param((90, 30), 60, Status(Code.UNSCHEDULABLE,
                                          "rejected due to timeout after waiting 30s at plugin P1", "P1"),
                     id="earliest expired plugin"),
        pytest.param((3600,), 900, Status(Code.UNSCHEDULABLE,
                                          "rejected due to timeout after waiting 15m0s at plugin P0", "P0"),
                     id="capped at 15 minutes"),
    ],
)
def test_wait_on_permit_timeout(timeouts: tuple[float, ...], step: float, want: Status | None,
                                clock: FakeClock) -> None:
    """Deterministic mode judges deadlines by the clock, with upstream's timeout message."""
    fw = _parked(clock, *timeouts)
    clock.step(step)
    assert fw.wait_on_permit(POD, block=False) == want


def test_wait_on_permit_blocking_threaded() -> None:
    """block=True waits in real time until another thread allows the pod."""
    from schedframe.framework import RealClock

    fw = make_framework(permit=[FakePermit(Status.wait(), 30)], framework_kwargs={"clock": RealClock()})
    fw.run_permit_plugins(CycleState(), POD, "n1")

    def allow() -> None:
        fw.iterate_over_waiting_pods(lambda wp: wp.allow("FakePermit"))

    timer = threading.Timer(0.05, allow)
    timer.start()
    try:
        assert fw.wait_on_permit(POD, block=True) is Status.OK
    finally:
        timer.cancel()


def test_wait_on_permit_blocking_timeout_with_fake_clock(clock: FakeClock) -> None:
    """block=True notices a fake clock moved past the deadline."""
    fw = _parked(clock, 5)
    clock.step(6)
    got = fw.wait_on_permit(POD, block=True)
    assert got == Status(Code.UNSCHEDULABLE, "rejected due to timeout after waiting 5s at plugin P0", "P0")


def test_reject_waiting_pod(clock: FakeClock) -> None:
    """Handle.reject_waiting_pod rejects with "removed"; unknown uids return False."""
    fw = _parked(clock, 10)
    assert fw.reject_waiting_pod(POD.uid)
    assert not fw.reject_waiting_pod("nope")
    assert fw.wait_on_permit(POD, block=False) == Status(Code.UNSCHEDULABLE, "removed")


def test_waiting_pods_shared_between_frameworks(clock: FakeClock) -> None:
    """Frameworks given the same WaitingPods see each other's waiting pods."""
    shared = WaitingPods()
    fw1 = make_framework(permit=[FakePermit(Status.wait(), 10)],
                         framework_kwargs={"clock": clock, "waiting_pods": shared})
    fw2 = make_framework(framework_kwargs={"clock": clock, "waiting_pods": shared})
    fw1.run_permit_plugins(CycleState(), POD, "n1")
    assert fw2.get_waiting_pod(POD.uid) is not None


# -- PreBind / Bind / PostBind --------------------------------------------------------------------

@pytest.mark.parametrize(
    ("statuses", "want", "want_calls"),
    [
        pytest.param([None, Status.skip(), None], Status.OK, [1, 1, 1], id="success, skip is nothing to do"),
        pytest.param([Status.unschedulable("u"), None], Status(Code.UNSCHEDULABLE, "u", "B0"), [1, 0],
                     id="rejection stops"),
        pytest.param([Status(Code.ERROR, "e")], Status(Code.ERROR, 'running PreBind plugin "B0": e', "B0"),
                     [1],
                     id="error"),
    ],
)
def test_run_pre_bind_plugins(statuses: list[Status | None], want: Status, want_calls: list[int]) -> None:
    """PreBind stops at the first failure."""
    plugins = [FakePreBind(s, f"B{i}") for i, s in enumerate(statuses)]
    fw = make_framework(pre_bind=plugins)
    assert fw.run_pre_bind_plugins(CycleState(), POD, "n1") == want
    assert [len(p.calls) for p in plugins] == want_calls


def test_pre_bind_skip_set_and_exception() -> None:
    """Plugins in skip_pre_bind_plugins are not run; exceptions become ERROR."""
    a, b = FakePreBind(name="A", raises=ValueError("x")), FakePreBind(name="B", raises=ValueError("y"))
    fw = make_framework(pre_bind=[a, b])
    state = CycleState()
    state.skip_pre_bind_plugins = frozenset({"A"})
    assert fw.run_pre_bind_plugins(state, POD, "n1").message == 'running PreBind plugin "B": ValueError: y'
    assert a.calls == []


@pytest.mark.parametrize(
    ("statuses", "want", "want_binds"),
    [
        pytest.param([Status.skip(), None], Status.OK, [[], [("default/p", "n1")]], id="skip then bind"),
        pytest.param([None, None], Status.OK, [[("default/p", "n1")], []], id="first binder wins"),
        pytest.param([Status.skip(), Status.skip()],
                     Status(Code.ERROR, "all bind plugins skipped binding pod 'default/p' to node 'n1'"),
                     [[], []], id="all skip is an error"),
        pytest.param([Status.unschedulable("u")], Status(Code.UNSCHEDULABLE, "u", "B0"), [[]],
                     id="rejection"),
        pytest.param([Status(Code.ERROR, "e"), None], Status(Code.ERROR, 'running Bind plugin "B0": e', "B0"),
                     [[], []], id="error stops"),
    ],
)
def test_run_bind_plugins(statuses: list[Status | None], want: Status, want_binds: list[list[Any]]) -> None:
    """Bind runs until one plugin does not SKIP."""
    plugins = [FakeBind(s, f"B{i}") for i, s in enumerate(statuses)]
    fw = make_framework(bind=plugins)
    assert fw.run_bind_plugins(CycleState(), POD, "n1") == want
    assert [p.binds for p in plugins] == want_binds


def test_bind_exception() -> None:
    """A Bind exception becomes ERROR."""
    fw = make_framework(bind=[FakeBind(raises=ConnectionError("down"))])
    got = fw.run_bind_plugins(CycleState(), POD, "n1")
    assert got.message == 'running Bind plugin "FakeBind": ConnectionError: down'


def test_post_bind_runs_all_and_logs(caplog: pytest.LogCaptureFixture) -> None:
    """PostBind runs every plugin; exceptions are logged, never raised."""
    a, b = FakePostBind("A", raises=RuntimeError("r")), FakePostBind("B")
    fw = make_framework(post_bind=[a, b])
    with caplog.at_level(logging.WARNING, logger="schedframe"):
        fw.run_post_bind_plugins(CycleState(), POD, "n1")
    assert len(a.calls) == len(b.calls) == 1
    assert "PostBind plugin 'A' raised" in caplog.text


# -- Handle ---------------------------------------------------------------------------------------

def test_handle_defaults() -> None:
    """Default collaborators: empty snapshot and objects, in-memory events, no nominated pods."""
    fw = make_framework()
    assert list(fw.snapshot_shared_lister().node_infos().list()) == []
    assert fw.snapshot_shared_lister().node_infos().get("n1") is None
    assert fw.objects.list(Node) == []
    assert fw.nominator.nominated_pods_for_node("n1") == []
    fw.event_recorder.event(POD, "Normal", "Scheduled", "ok")
    assert isinstance(fw.event_recorder, InMemoryEventRecorder)
    assert fw.event_recorder.events == [RecordedEvent(POD, "Normal", "Scheduled", "ok")]
    fw.event_recorder.clear()
    assert fw.event_recorder.events == []
    fw.activate([POD])  # no activator: no-op


@pytest.mark.parametrize(
    ("call", "match"),
    [
        pytest.param(lambda c: c.bind(POD, "n1"),
                     r"no client configured to bind pod 'default/p' to node 'n1'",
                     id="bind"),
        pytest.param(lambda c: c.delete_pod(POD), r"no client configured to delete pod", id="delete"),
        pytest.param(lambda c: c.set_nominated_node_name(POD, "n1"), r"no client configured to nominate",
                     id="nominate"),
    ],
)
def test_default_client_raises(call: Any, match: str) -> None:
    """Without a client, API side effects raise SchedulerError."""
    fw = make_framework()
    with pytest.raises(SchedulerError, match=match):
        call(fw.client)


def test_activate_and_setters() -> None:
    """activate() forwards to the pod activator; nominator and activator can be replaced."""
    got: list[Sequence[Pod]] = []
    fw = make_framework(framework_kwargs={"pod_activator": got.append})
    fw.activate([POD])
    fw.activate([])
    assert got == [[POD]]
    fw.set_pod_activator(None)
    fw.activate([POD])
    assert len(got) == 1
    nominator = ListNominator(POD)
    fw.set_nominator(nominator)
    assert fw.nominator is nominator


def test_enqueue_extensions() -> None:
    """Filter-like plugins register their events; those without events_to_register get all."""

    class WithEvents:
        def __init__(self, name: str) -> None:
            self.name = name

        def filter(self, *args: Any) -> None:
            return None

        def events_to_register(self) -> list[ClusterEventWithHint]:
            return [ClusterEventWithHint(NODE_ADD)]

    registry = Registry()
    register_fake(registry, WithEvents("W"))
    fw = make_framework(registry=registry, filter=["W", TrueFilter()], score=[FakeScore()])
    ext = fw.enqueue_extensions()
    assert set(ext) == {"W", "TrueFilter"}
    assert list(ext["W"]) == [ClusterEventWithHint(NODE_ADD)]
    (only,) = ext["TrueFilter"]
    assert only.event.resource is EventResource.WILDCARD
    assert only.event.action == ActionType.ALL


def test_enqueue_extensions_error() -> None:
    """events_to_register raising is a ConfigurationError naming the plugin."""

    class Bad:
        def __init__(self, name: str) -> None:
            self.name = name

        def filter(self, *args: Any) -> None:
            return None

        def events_to_register(self) -> list[ClusterEventWithHint]:
            raise ValueError("x")

    registry = Registry()
    register_fake(registry, Bad("Bad"))
    fw = make_framework(registry=registry, filter=["Bad"])
    match = r"plugin 'Bad': events_to_register\(\) raised ValueError: x"
    with pytest.raises(ConfigurationError, match=match):
        fw.enqueue_extensions()


def test_framework_satisfies_handle() -> None:
    """A Framework is a Handle, and plugins receive it in their factory."""
    from schedframe import Handle

    seen: list[Any] = []

    def new(args: Any, handle: Handle) -> Any:
        seen.append(handle)
        return TrueFilter("H")

    registry = Registry()
    registry.register("H", new)
    fw = make_framework(registry=registry, filter=["H"])
    assert seen == [fw]
    assert isinstance(fw, Handle)


def test_snapshot_given_at_construction_is_visible_to_factories() -> None:
    """A snapshot passed to the constructor is what factories see."""
    snap = _snap("n1")
    seen: list[int] = []

    def new(args: Any, handle: Any) -> Any:
        seen.append(len(handle.snapshot_shared_lister().node_infos().list()))
        return TrueFilter("S")

    registry = Registry()
    registry.register("S", new)
    make_framework(registry=registry, filter=["S"], framework_kwargs={"snapshot": snap})
    assert seen == [1]


def test_scheduler_name_and_percentage() -> None:
    """Profile name and percentage of nodes to score come from the profile."""
    fw = make_framework(scheduler_name="other", percentage_of_nodes_to_score=30)
    assert (fw.profile_name, fw.percentage_of_nodes_to_score) == ("other", 30)


# -- with real configuration objects --------------------------------------------------------------

def test_with_config_profile() -> None:
    """A schedframe Profile drives the framework (plain names become PluginRefs)."""
    from schedframe.config.configuration import PluginRef, Profile

    registry = fake_registry(FakeQueueSort(), FakeBind(), TrueFilter(), FakeScore())
    profile = Profile(plugins={"queueSort": ["FakeQueueSort"], "bind": ["FakeBind"], "filter": ["TrueFilter"],
                               "score": [PluginRef("FakeScore", 4)]})
    fw = Framework(registry, profile)
    assert fw.plugins_at("filter") == ["TrueFilter"]
    assert fw.score_weight("FakeScore") == 4


def test_default_configuration_with_in_tree_plugins() -> None:
    """The upstream default profile builds with the in-tree registry and its weights."""
    from schedframe.config.configuration import SchedulerConfiguration
    from schedframe.plugins import in_tree_registry

    registry = in_tree_registry()
    profile = SchedulerConfiguration.default(registry=registry).profiles[0]
    fw = Framework(registry, profile)
    assert fw.plugins_at("queueSort") == ["PrioritySort"]
    assert fw.plugins_at("bind") == ["DefaultBinder"]
    assert fw.has_filter_plugins()
    if "TaintToleration" in fw.plugins_at("score"):
        assert fw.score_weight("TaintToleration") == 3


# -- edge cases -----------------------------------------------------------------------------------

def test_empty_snapshot_lists() -> None:
    """The default empty snapshot has no affinity lists either."""
    lister = make_framework().snapshot_shared_lister().node_infos()
    assert list(lister.have_pods_with_affinity_list()) == []
    assert list(lister.have_pods_with_required_anti_affinity_list()) == []


def test_plugin_without_extension_methods() -> None:
    """PreFilter/Score plugins may omit pre_filter_extensions/score_extensions."""

    class Bare:
        name = "Bare"

        def pre_filter(self, state: CycleState, pod: Pod, nodes: Any) -> tuple[None, None]:
            return None, None

        def score(self, state: CycleState, pod: Pod, node_info: NodeInfo) -> tuple[int, None]:
            return 3, None

    registry = Registry()
    register_fake(registry, Bare())
    fw = make_framework(registry=registry, pre_filter=["Bare"], score=["Bare"])
    info = _infos("n1")[0]
    assert fw.run_pre_filter_extension_add_pod(CycleState(), POD, PodInfo.of(POD), info).is_success()
    assert fw.run_score_plugins_totals(CycleState(), POD, _infos("n1")) == ([3], Status.OK)


def test_extensions_raising_is_configuration_error() -> None:
    """pre_filter_extensions() raising at construction names the plugin."""

    class Bad(FilterScore):
        def score_extensions(self) -> None:
            raise RuntimeError("x")

    with pytest.raises(ConfigurationError, match=r"plugin 'B': score_extensions\(\) raised RuntimeError: x"):
        make_framework(score=[Bad("B")])


def test_enqueue_extensions_listed_once_per_plugin() -> None:
    """A plugin at several enqueue-relevant points appears once."""
    plugin = MaxPods(1)
    fw = make_framework(pre_filter=[plugin], filter=[plugin])
    assert list(fw.enqueue_extensions()) == ["MaxPods"]


def test_pre_enqueue_exception() -> None:
    """A PreEnqueue exception becomes ERROR."""

    class Bad:
        name = "Bad"

        def pre_enqueue(self, pod: Pod) -> Status | None:
            raise ValueError("v")

    registry = Registry()
    register_fake(registry, Bad())
    fw = make_framework(registry=registry, pre_enqueue=["Bad"])
    assert fw.run_pre_enqueue_plugins(POD).message == 'running PreEnqueue plugin "Bad": ValueError: v'


def test_filter_cache_bounded() -> None:
    """The per-skip-set cache of filter lists stays bounded and correct."""
    fw = make_framework(filter=[FalseFilter("A")])
    node = _infos("n1")[0]
    for i in range(300):
        state = CycleState()
        state.skip_filter_plugins = frozenset({f"X{i}"})
        assert fw.run_filter_plugins(state, POD, node).plugin == "A"
    assert len(fw._filter_by_skip) <= 257


def test_nominated_pods_filter_error_stops() -> None:
    """An ERROR in the first (with nominated pods) pass is returned at once."""
    plugin = MaxPods(5)
    err = FalseFilter("E", Code.ERROR)
    fw = make_framework(pre_filter=[plugin], filter=[plugin, err],
                        framework_kwargs={"nominator": ListNominator(make_pod("hi").priority(9).obj())})
    got = fw.run_filter_plugins_with_nominated_pods(CycleState(), POD, _infos("n1")[0])
    assert got.code is Code.ERROR
    assert got.plugin == "E"


def test_nominator_exception() -> None:
    """A failing nominator becomes an ERROR status."""

    class Broken:
        def nominated_pods_for_node(self, node_name: str) -> list[PodInfo]:
            raise RuntimeError("gone")

    fw = make_framework(filter=[TrueFilter()], framework_kwargs={"nominator": Broken()})
    got = fw.run_filter_plugins_with_nominated_pods(CycleState(), POD, _infos("n1")[0])
    assert got == Status(Code.ERROR, "listing nominated pods: RuntimeError: gone")
