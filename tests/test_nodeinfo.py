"""Tests for NodeInfo, PodInfo and HostPortInfo (upstream framework/types_test.go, cache_test.go)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from schedframe import NodeInfo, Pod, PodInfo
from schedframe.api import ContainerPort, LabelSelector, LabelSelectorRequirement, PodAffinityTerm, Resources
from schedframe.api.objects import DEFAULT_MEMORY_REQUEST, DEFAULT_MILLI_CPU_REQUEST
from schedframe.cache import HostPortInfo
from schedframe.cache.nodeinfo import AffinityTerm, next_generation
from schedframe.testing import make_node, make_pod, selector


def _port(port: int, ip: str = "127.0.0.1", protocol: str = "TCP") -> ContainerPort:
    return ContainerPort(container_port=port, host_port=port, host_ip=ip, protocol=protocol)


def _pod(name: str, cpu: str | None = None, memory: str | None = None, *ports: ContainerPort,
         **extra: Any) -> Pod:
    return make_pod(name).uid(name).node("node").container("pause", cpu=cpu, memory=memory,
                                                             ports=ports, **extra).obj()


def _state(info: NodeInfo) -> tuple[Any, ...]:
    """Everything a NodeInfo aggregates, comparable with ==."""
    return (
        info.node,
        [p.pod for p in info.pods],
        [p.pod.uid for p in info.pods_with_affinity],
        [p.pod.uid for p in info.pods_with_required_anti_affinity],
        info.requested,
        info.non_zero_requested,
        info.allocatable,
        info.used_ports.as_dict(),
        dict(info.image_states),
    )


P80 = _port(80)
P8080 = _port(8080)


@pytest.mark.parametrize(
    ("pods", "want_requested", "want_non_zero", "want_ports"),
    [
        pytest.param([_pod("p0", "100m", "500", P80)], Resources(100, 500), Resources(100, 500),
                     {"127.0.0.1": {("TCP", 80)}}, id="one pod with requests and a host port"),
        pytest.param([_pod("p1", "100m", "500", P80), _pod("p2", "200m", "1Ki", P8080)],
                     Resources(300, 1524), Resources(300, 1524),
                     {"127.0.0.1": {("TCP", 80), ("TCP", 8080)}}, id="requests and ports add up"),
        pytest.param([_pod("p3", None, None, P80)], Resources(),
                     Resources(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST),
                     {"127.0.0.1": {("TCP", 80)}}, id="no requests: non-zero defaults for scoring"),
        pytest.param([_pod("p4", "100m", "500", P80, **{"example.com/foo": "3"})],
                     Resources(100, 500, scalar={"example.com/foo": 3}), Resources(100, 500),
                     {"127.0.0.1": {("TCP", 80)}}, id="extended resource"),
        pytest.param([_pod("p4", "100m", "500", P80, **{"example.com/foo": "3"}),
                      _pod("p5", "200m", "1Ki", P8080, **{"example.com/foo": "5"})],
                     Resources(300, 1524, scalar={"example.com/foo": 8}), Resources(300, 1524),
                     {"127.0.0.1": {("TCP", 80), ("TCP", 8080)}}, id="extended resources add up"),
        pytest.param([_pod("p6", "100m", "500", ContainerPort(container_port=0))],
                     Resources(100, 500), Resources(100, 500), {}, id="port without host port"),
        pytest.param([_pod("p7", ephemeral_storage="500")], Resources(ephemeral_storage=500),
                     Resources(DEFAULT_MILLI_CPU_REQUEST, DEFAULT_MEMORY_REQUEST), {},
                     id="ephemeral storage"),
    ],
)
def test_add_pods_aggregates(pods, want_requested, want_non_zero, want_ports):
    """Adding pods sums their requests, non-zero requests and host ports."""
    info = NodeInfo(make_node("node").obj())
    for p in pods:
        info.add_pod(p)
    assert [p.pod for p in info.pods] == pods
    assert info.requested == want_requested
    assert info.non_zero_requested == want_non_zero
    assert info.used_ports.as_dict() == want_ports


def test_new_node_info_with_pods():
    """NodeInfo(node, pods) equals a NodeInfo built by set_node then add_pod."""
    node = make_node("node").capacity(cpu="4", memory="8Gi", pods=110).obj()
    pods = [_pod("a", "100m", "500", P80), _pod("b", "200m", "1Ki", P8080)]
    built = NodeInfo()
    built.set_node(node)
    for p in pods:
        built.add_pod(p)
    info = NodeInfo(node, pods)
    assert _state(info) == _state(built)
    assert info.name == "node"
    assert info.allocatable == Resources(4000, 8 * 1024**3, pods=110)
    assert info.requested == Resources(300, 1524)


def test_add_pod_accepts_pod_info():
    """add_pod takes a precomputed PodInfo and keeps that very object."""
    pi = PodInfo.of(_pod("a", "1"))
    info = NodeInfo()
    info.add_pod(pi)
    assert info.pods[0] is pi


def test_remove_pod_subtracts_and_reports_unknown():
    """remove_pod undoes add_pod; an unknown pod returns False and changes nothing."""
    a, b = _pod("a", "100m", "500", P80), _pod("b", "200m", "1Ki", P8080)
    info = NodeInfo(make_node("node").obj(), [a, b])
    gen = info.generation
    assert info.remove_pod(_pod("zzz")) is False
    assert info.generation == gen
    assert info.remove_pod(a) is True
    assert [p.pod for p in info.pods] == [b]
    assert info.requested == Resources(200, 1024)
    assert info.non_zero_requested == Resources(200, 1024)
    assert info.used_ports.as_dict() == {"127.0.0.1": {("TCP", 8080)}}
    assert info.generation > gen


def test_remove_pod_matches_by_uid():
    """Removal finds the pod by uid, not by equality (an updated pod object removes the old)."""
    a = _pod("a", "100m")
    info = NodeInfo(None, [a])
    assert info.remove_pod(a.evolve(labels={"changed": "yes"}))
    assert info.pods == []
    assert info.requested == Resources()


def test_generation_increases_on_every_change():
    """set_node, add_pod, remove_pod and remove_node each take a fresh, larger generation."""
    info = NodeInfo()
    assert info.generation == 0
    seen = []
    info.set_node(make_node("n").obj())
    seen.append(info.generation)
    p = _pod("p", "1")
    info.add_pod(p)
    seen.append(info.generation)
    info.remove_pod(p)
    seen.append(info.generation)
    info.remove_node()
    seen.append(info.generation)
    assert seen == sorted(set(seen))
    assert next_generation() > seen[-1]


def test_remove_node_keeps_pods():
    """remove_node drops the node object and allocatable but keeps the pods (a ghost node)."""
    p = _pod("p", "1", "1Gi")
    info = NodeInfo(make_node("n").capacity(cpu="2").obj(), [p])
    info.remove_node()
    assert info.node is None
    assert info.name == ""
    assert info.allocatable == Resources()
    assert [x.pod for x in info.pods] == [p]
    assert info.requested == Resources(1000, 1024**3)


AFF = make_pod("aff").uid("aff").pod_affinity_exists("foo", "zone").obj()
ANTI = make_pod("anti").uid("anti").pod_affinity_exists("foo", "zone", anti=True).obj()
PREF_ANTI = make_pod("pref").uid("pref").pod_affinity_exists("foo", "zone", anti=True, weight=5).obj()
PLAIN = make_pod("plain").uid("plain").obj()


@pytest.mark.parametrize(
    ("pod", "want_affinity", "want_anti"),
    [
        pytest.param(PLAIN, False, False, id="no affinity"),
        pytest.param(AFF, True, False, id="required pod affinity"),
        pytest.param(ANTI, True, True, id="required anti-affinity"),
        pytest.param(PREF_ANTI, True, False, id="preferred anti-affinity only"),
    ],
)
def test_affinity_lists(pod, want_affinity, want_anti):
    """Pods with (anti-)affinity are tracked in the affinity lists and dropped on removal."""
    info = NodeInfo(make_node("n").obj(), [PLAIN.evolve(uid="other"), pod])
    assert (pod.uid in [p.pod.uid for p in info.pods_with_affinity]) is want_affinity
    assert (pod.uid in [p.pod.uid for p in info.pods_with_required_anti_affinity]) is want_anti
    info.remove_pod(pod)
    assert info.pods_with_affinity == []
    assert info.pods_with_required_anti_affinity == []


def test_clone_is_independent():
    """A clone shares pods and node but changing one NodeInfo never changes the other."""
    info = NodeInfo(make_node("n").obj(), [_pod("a", "1", None, P80), AFF])
    clone = info.clone()
    assert _state(clone) == _state(info)
    assert clone.generation == info.generation
    before = _state(clone)
    info.add_pod(_pod("b", "2", None, P8080))
    info.remove_pod(AFF)
    assert _state(clone) == before
    clone.remove_pod(_pod("a"))
    assert [p.pod.name for p in info.pods] == ["a", "b"]


def test_sidecar_host_ports_are_used_and_plain_init_ports_are_not():
    """Host ports of sidecar init containers count; those of run-to-completion ones do not."""
    port_container = make_pod().host_port(9090).obj().containers[0]
    pod = make_pod("p").uid("p").obj()
    plain = pod.evolve(init_containers=(port_container,))
    assert len(NodeInfo(None, [plain]).used_ports) == 0
    sidecar = pod.evolve(init_containers=(port_container.__class__(
        port_container.name, ports=port_container.ports, restart_policy="Always"),))
    info = NodeInfo(None, [sidecar])
    assert info.used_ports.as_dict() == {"0.0.0.0": {("TCP", 9090)}}
    info.remove_pod(sidecar)
    assert len(info.used_ports) == 0


def test_repr_names_node_and_pod_count():
    """repr shows the node name and how many pods it has."""
    info = NodeInfo(make_node("n1").obj(), [_pod("a")])
    assert repr(info).startswith("NodeInfo(node='n1', pods=1")


# -- PodInfo ------------------------------------------------------------------------------------


def test_pod_info_resolves_terms():
    """Terms without namespaces apply to the pod's namespace; listed namespaces are kept."""
    pod = (make_pod("p", "ns").label("app", "web")
           .pod_affinity("zone", selector({"a": "b"}))
           .pod_anti_affinity("host", selector({"c": "d"}), namespaces=["x", "y"])
           .pod_affinity("zone", selector({"e": "f"}), weight=7)
           .pod_anti_affinity("zone", None, namespace_selector=LabelSelector(), weight=3).obj())
    info = PodInfo.of(pod)
    assert info.has_affinity
    assert info.required_affinity_terms == (
        AffinityTerm(frozenset({"ns"}), selector({"a": "b"}), "zone", None),)
    assert info.required_anti_affinity_terms == (
        AffinityTerm(frozenset({"x", "y"}), selector({"c": "d"}), "host", None),)
    assert info.preferred_affinity_terms[0].weight == 7
    assert info.preferred_affinity_terms[0].term.namespaces == frozenset({"ns"})
    anti = info.preferred_anti_affinity_terms[0].term
    assert anti.namespaces == frozenset()
    assert anti.namespace_selector == LabelSelector()
    assert anti.selector is None


def test_pod_info_without_affinity():
    """A pod without pod (anti-)affinity has no terms."""
    info = PodInfo.of(make_pod("p").node_affinity_in("zone", ["a"]).obj())
    assert not info.has_affinity
    assert info == PodInfo(info.pod)


def test_match_label_keys_already_in_the_selector_are_not_repeated():
    """A requirement the selector already has (as the API server wrote it) is not added twice."""
    req = LabelSelectorRequirement("tier", "In", ("front",))
    term = PodAffinityTerm("zone", LabelSelector({}, (req,)), match_label_keys=("tier",))
    pod = make_pod("p").label("tier", "front").obj()
    assert AffinityTerm.of(pod, term).selector == LabelSelector({}, (req,))


def test_match_label_keys_are_merged_into_the_selector():
    """matchLabelKeys / mismatchLabelKeys become In / NotIn requirements on the pod's values."""
    term = PodAffinityTerm("zone", selector({"app": "web"}), match_label_keys=("tier", "absent"),
                           mismatch_label_keys=("team",))
    pod = make_pod("p").labels({"tier": "front", "team": "a"}).obj()
    resolved = AffinityTerm.of(pod, term)
    assert resolved.selector == LabelSelector(
        {"app": "web"},
        (LabelSelectorRequirement("tier", "In", ("front",)),
         LabelSelectorRequirement("team", "NotIn", ("a",))))


@pytest.mark.parametrize(
    ("pod_ns", "ns_labels", "want"),
    [
        pytest.param("ns", None, True, id="own namespace"),
        pytest.param("other", None, False, id="other namespace"),
        pytest.param("other", {"env": "prod"}, True, id="namespace selector matches"),
        pytest.param("other", {"env": "dev"}, False, id="namespace selector does not match"),
    ],
)
def test_affinity_term_matches(pod_ns, ns_labels, want):
    """A term matches pods in its namespaces or in namespaces its selector picks."""
    term = AffinityTerm(frozenset({"ns"}), selector({"app": "web"}), "zone", selector({"env": "prod"}))
    target = make_pod("t", pod_ns).label("app", "web").obj()
    assert term.matches(target, ns_labels) is want


# -- HostPortInfo -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("added", "removed", "want_len"),
    [
        pytest.param([("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "127.0.0.1", 81),
                      ("TCP", "127.0.0.1", 82), ("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80),
                      ("TCP", "0.0.0.0", 81), ("TCP", "0.0.0.0", 82), ("TCP", "0.0.0.0", 0),
                      ("TCP", "0.0.0.0", -1)], [], 8, id="normal add"),
        pytest.param([("", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("", "127.0.0.1", 81),
                      ("", "127.0.0.1", 82), ("", "", 79), ("UDP", "", 80), ("", "", 81), ("", "", 82),
                      ("", "", 0), ("", "", -1)], [], 8, id="empty ip and protocol add"),
        pytest.param([("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "0.0.0.0", 79),
                      ("UDP", "0.0.0.0", 80)],
                     [("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "0.0.0.0", 79),
                      ("UDP", "0.0.0.0", 80)], 0, id="normal remove"),
        pytest.param([("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("TCP", "0.0.0.0", 79),
                      ("UDP", "0.0.0.0", 80)],
                     [("", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80), ("", "", 79), ("UDP", "", 80)],
                     0, id="empty ip and protocol remove"),
        pytest.param([("TCP", "1.2.3.4", 80)], [("TCP", "5.6.7.8", 80), ("UDP", "1.2.3.4", 80)], 1,
                     id="removing what is not there is a no-op"),
        pytest.param([("TCP", "1.2.3.4", 80), ("TCP", "1.2.3.4", 80)], [("TCP", "1.2.3.4", 80)], 1,
                     id="uses are counted: one removal of two uses keeps the port"),
    ],
)
def test_host_port_info_add_remove(added, removed, want_len):
    """Add/remove normalise empty IP to 0.0.0.0 and protocol to TCP and ignore ports <= 0."""
    hp = HostPortInfo()
    for proto, ip, port in added:
        hp.add(ip, proto, port)
    for proto, ip, port in removed:
        hp.remove(ip, proto, port)
    assert len(hp) == want_len


@pytest.mark.parametrize(
    ("added", "check", "want"),
    [
        pytest.param([("TCP", "127.0.0.1", 80)], ("", "", 81), False,
                     id="empty check means 0.0.0.0 and TCP"),
        pytest.param([("TCP", "127.0.0.1", 80)], ("", "", 80), True,
                     id="empty check means 0.0.0.0 and TCP (conflict)"),
        pytest.param([("TCP", "127.0.0.1", 80)], ("", "", 0), False, id="port 0 never conflicts"),
        pytest.param([("TCP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), True,
                     id="0.0.0.0 checks every registered IP"),
        pytest.param([("UDP", "127.0.0.1", 80)], ("TCP", "0.0.0.0", 80), False,
                     id="0.0.0.0 with another protocol is allowed"),
        pytest.param([("TCP", "127.0.0.1", 79), ("TCP", "127.0.0.1", 81)], ("TCP", "0.0.0.0", 80), False,
                     id="0.0.0.0 with another port is allowed"),
        pytest.param([("TCP", "0.0.0.0", 80)], ("TCP", "127.0.0.1", 80), True,
                     id="a specific IP conflicts with 0.0.0.0"),
        pytest.param([("TCP", "0.0.0.0", 79), ("UDP", "0.0.0.0", 80), ("TCP", "0.0.0.0", 81)],
                     ("TCP", "127.0.0.1", 80), False,
                     id="a specific IP with another port or protocol than 0.0.0.0 is allowed"),
        pytest.param([("TCP", "127.0.0.1", 79), ("UDP", "127.0.0.1", 80)], ("TCP", "127.0.0.1", 80), False,
                     id="same IP, other port or protocol is allowed"),
        pytest.param([("TCP", "10.0.0.1", 80)], ("TCP", "10.0.0.2", 80), False,
                     id="two specific IPs do not conflict"),
    ],
)
def test_host_port_info_check_conflict(added, check, want):
    """check_conflict follows Kubernetes' 0.0.0.0 wildcard rules."""
    hp = HostPortInfo()
    for proto, ip, port in added:
        hp.add(ip, proto, port)
    proto, ip, port = check
    assert hp.check_conflict(ip, proto, port) is want


def test_host_port_info_clone_and_equality():
    """clone() copies deeply; equality compares contents; it is unhashable like a dict."""
    hp = HostPortInfo()
    hp.add("", "", 80)
    clone = hp.clone()
    assert clone == hp
    clone.add("", "", 81)
    assert clone != hp
    assert hp != {"0.0.0.0": {("TCP", 80)}}
    with pytest.raises(TypeError, match="unhashable"):
        hash(hp)


# -- properties ---------------------------------------------------------------------------------

_IPS = ["", "0.0.0.0", "10.0.0.1", "10.0.0.2"]
_PROTOCOLS = ["", "TCP", "UDP"]
_PORT_NUMBERS = [-1, 0, 80, 81]

port_st = st.builds(lambda ip, proto, port: (ip, proto, port),
                    st.sampled_from(_IPS), st.sampled_from(_PROTOCOLS), st.sampled_from(_PORT_NUMBERS))


@st.composite
def pods_st(draw: st.DrawFn, prefix: str = "p") -> list[Any]:
    """A list of pods with unique uids, random requests, host ports and affinity."""
    n = draw(st.integers(0, 6))
    pods = []
    for i in range(n):
        b = make_pod(f"{prefix}{i}").uid(f"{prefix}{i}").node("node")
        cpu = draw(st.sampled_from([None, "100m", "1", "250m"]))
        mem = draw(st.sampled_from([None, "1Mi", "1Gi"]))
        extra: dict[str, Any] = draw(
            st.sampled_from([{}, {"example.com/gpu": "1"}, {"ephemeral_storage": "1Gi"}]))
        ports = [ContainerPort(container_port=p, host_port=p, host_ip=ip or "", protocol=proto or "TCP")
                 for ip, proto, p in draw(st.lists(port_st, max_size=2))]
        b.container("img", cpu=cpu, memory=mem, ports=ports, **extra)
        if draw(st.booleans()):
            b.init_req(cpu=draw(st.sampled_from(["50m", "2"])), sidecar=draw(st.booleans()))
        kind = draw(st.sampled_from(["none", "aff", "anti", "pref"]))
        if kind == "aff":
            b.pod_affinity_exists("app", "zone")
        elif kind == "anti":
            b.pod_affinity_exists("app", "zone", anti=True)
        elif kind == "pref":
            b.pod_affinity_exists("app", "zone", weight=3)
        pods.append(b.obj())
    return pods


@settings(max_examples=60, deadline=None)
@given(base=pods_st(prefix="base"), extra=pods_st(prefix="extra"))
def test_add_then_remove_restores(base, extra):
    """Adding pods then removing them restores requested, non-zero, ports and the pod lists."""
    info = NodeInfo(make_node("node").capacity(cpu="8").obj(), base)
    before = _state(info)
    for p in extra:
        info.add_pod(p)
    for p in reversed(extra):
        assert info.remove_pod(p)
    assert _state(info) == before


@settings(max_examples=60, deadline=None)
@given(pods=pods_st(), data=st.data())
def test_requested_is_the_sum_of_present_pods(pods, data):
    """After any add/remove sequence, requested and non-zero requested sum the pods present."""
    info = NodeInfo(make_node("node").obj())
    present: dict[str, Any] = {}
    for _ in range(data.draw(st.integers(0, 15))):
        p = data.draw(st.sampled_from(pods)) if pods else None
        if p is None:
            break
        if p.uid in present:
            info.remove_pod(p)
            del present[p.uid]
        else:
            info.add_pod(p)
            present[p.uid] = p
    want = Resources()
    for p in present.values():
        want = want + p.requests
    assert info.requested.milli_cpu == want.milli_cpu
    assert info.requested.memory == want.memory
    assert info.requested.ephemeral_storage == want.ephemeral_storage
    got_scalar = {k: v for k, v in info.requested.scalar.items() if v}
    assert got_scalar == {k: v for k, v in want.scalar.items() if v}
    assert info.non_zero_requested == Resources(sum(p.non_zero_milli_cpu for p in present.values()),
                                                sum(p.non_zero_memory for p in present.values()))
    assert sorted(p.pod.uid for p in info.pods) == sorted(present)


def _conflicts(model: list[tuple[str, str, int]], ip: str, proto: str, port: int) -> bool:
    """Reference rule: same protocol and port, and either side binds 0.0.0.0 or the IPs match."""
    if port <= 0:
        return False
    ip, proto = ip or "0.0.0.0", proto or "TCP"
    for mip, mproto, mport in model:
        if mproto == proto and mport == port and (mip == ip or "0.0.0.0" in (ip, mip)):
            return True
    return False


@settings(max_examples=100, deadline=None)
@given(added=st.lists(port_st, max_size=8), removed=st.lists(port_st, max_size=4), check=port_st)
def test_host_port_conflicts_follow_the_wildcard_rule(added, removed, check):
    """check_conflict agrees with a reference model of counted port uses and the 0.0.0.0 rule."""
    hp = HostPortInfo()
    model: list[tuple[str, str, int]] = []
    for ip, proto, port in added:
        hp.add(ip, proto, port)
        if port > 0:
            model.append((ip or "0.0.0.0", proto or "TCP", port))
    for ip, proto, port in removed:
        hp.remove(ip, proto, port)
        key = (ip or "0.0.0.0", proto or "TCP", port)
        if key in model:
            model.remove(key)
    assert hp.check_conflict(*check) is _conflicts(model, *check)
    assert len(hp) == len(set(model))
