"""Shortcuts of the scheduling cycle checked against the computation they replace."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import CycleState, NodeInfo
from schedframe.plugins.node_resources_fit import (
    _TOO_MANY_PODS,
    ERR_REASON_TOO_MANY_PODS,
    NodeResourcesFit,
    NodeResourcesFitArgs,
    _fits_request,
    _pod_request,
    _status,
)
from schedframe.testing import FakeScore, PluginHarness, make_framework, make_node, make_pod

_CPU = st.sampled_from([None, "0", "100m", "1", "3", "5"])
_MEM = st.sampled_from([None, "0", "1Gi", "3Gi", "9Gi"])
_EPH = st.sampled_from([None, "1Gi", "20Gi"])


def _eph(amount: str | None) -> dict[str, str]:
    return {} if amount is None else {"ephemeral_storage": amount}


@settings(max_examples=300, deadline=None)
@given(cpu=st.sampled_from(["1", "2", "4"]), mem=st.sampled_from(["2Gi", "8Gi"]), max_pods=st.integers(1, 4),
       existing=st.lists(st.tuples(_CPU, _MEM, _EPH), max_size=5), want=st.tuples(_CPU, _MEM, _EPH))
def test_rejections_from_the_row_are_the_full_computation(cpu: str, mem: str, max_pods: int,
                                                          existing: list[tuple[str | None, ...]],
                                                          want: tuple[str | None, ...]) -> None:
    """NodeResourcesFit's Filter answers from the node's row for pods, CPU and memory shortfalls
    (overcommitted nodes included): the same code and reasons as listing the insufficient
    resources one by one."""
    node = make_node("n").capacity(cpu=cpu, memory=mem, pods=max_pods, ephemeral_storage="10Gi").obj()
    ni = NodeInfo(node)
    for i, (c, m, e) in enumerate(existing):  # bound pods are not filtered: a node may be overcommitted
        ni.add_pod(make_pod(f"e{i}").req(c, m, **_eph(e)).node("n").obj())
    pod = make_pod("p").req(want[0], want[1], **_eph(want[2])).obj()
    h = PluginHarness("NodeResourcesFit", NodeResourcesFitArgs(), [node], [])
    plugin = h.plugin
    assert isinstance(plugin, NodeResourcesFit)
    state = CycleState()
    plugin.pre_filter(state, pod, [ni])
    insufficient = _fits_request(_pod_request(pod), ni)
    if not insufficient:
        expected = None
    elif len(insufficient) == 1 and insufficient[0].reason == ERR_REASON_TOO_MANY_PODS:
        expected = _TOO_MANY_PODS
    else:
        expected = _status(insufficient)
    assert plugin.filter(state, pod, ni) == expected
    assert plugin.filter_nodes(state, pod, [ni]) == ([] if expected is None else [(0, expected)])


@settings(max_examples=200, deadline=None)
@given(plugins=st.lists(st.tuples(st.lists(st.integers(0, 100), min_size=3, max_size=3), st.integers(1, 5),
                                  st.booleans()), max_size=5))
def test_score_totals_with_plugins_giving_every_node_the_same_score(
        plugins: list[tuple[list[int], int, bool]]) -> None:
    """run_score_plugins_totals adds the score of a plugin that gave every node the same score
    once at the end: the totals are still those of run_score_plugins."""
    names = ["n1", "n2", "n3"]
    score = [(FakeScore(dict(zip(names, [raw[0]] * 3 if same else raw)), f"S{i}"), w)
             for i, (raw, w, same) in enumerate(plugins)]
    fw = make_framework(score=score)
    infos = [NodeInfo(make_node(n).obj()) for n in names]
    pod = make_pod("p").obj()
    full, status = fw.run_score_plugins(CycleState(), pod, infos)
    totals, status2 = fw.run_score_plugins_totals(CycleState(), pod, infos)
    assert status.is_success()
    assert status2.is_success()
    assert totals == [s.total_score for s in full]
