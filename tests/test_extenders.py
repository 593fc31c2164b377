"""Scheduler extenders: the configuration section, the wire format against a real HTTP extender on
a loopback port, and the scheduling cycle (upstream extender.go, schedule_one.go)."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable, Iterator, Mapping
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from schedframe import Code, ConfigurationError, ExtenderConfig, Scheduler, SchedulerConfiguration, explain
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.config import ConfigurationDeprecationWarning, ExtenderManagedResource, ExtenderTLSConfig
from schedframe.config.extenders import DEFAULT_EXTENDER_TIMEOUT, format_duration, parse_duration
from schedframe.errors import ExtenderError
from schedframe.framework import InMemoryBinder
from schedframe.framework.extender import Extender, HTTPExtender
from schedframe.testing import make_node, make_pod

# --------------------------------------------------------------------------------------------
# a tiny extender service on 127.0.0.1


Verb = Callable[[dict[str, Any]], Any]


class ExtenderServer:
    """An HTTP extender: ``verbs[name](request body) -> answer`` (JSON); an ``int`` answer is sent
    as that HTTP status; ``slow`` verbs wait until the server stops (at most 10 s)."""

    def __init__(self) -> None:
        self.verbs: dict[str, Verb] = {}
        self.calls: list[tuple[str, dict[str, Any]]] = []
        self.slow: set[str] = set()
        self._release = threading.Event()
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                verb = self.path.rstrip("/").rsplit("/", 1)[-1]
                length = int(self.headers.get("Content-Length", "0"))
                body = json.loads(self.rfile.read(length))
                assert self.headers.get("Content-Type") == "application/json"
                server.calls.append((verb, body))
                if verb in server.slow:
                    server._release.wait(10)
                handler = server.verbs.get(verb)
                answer = handler(body) if handler is not None else 404
                if isinstance(answer, int):
                    self.send_response(answer)
                    self.end_headers()
                    return
                data = json.dumps(answer).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, format: str, *args: Any) -> None:
                return None

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/scheduler"
        self._thread = threading.Thread(target=self.httpd.serve_forever, kwargs={"poll_interval": 0.05},
                                        daemon=True)
        self._thread.start()

    def stop(self) -> None:
        self._release.set()
        self.httpd.shutdown()
        self.httpd.server_close()
        self._thread.join(10)

    def verbs_called(self) -> list[str]:
        return [verb for verb, _ in self.calls]


@pytest.fixture
def ext() -> Iterator[ExtenderServer]:
    server = ExtenderServer()
    try:
        yield server
    finally:
        server.stop()


def node_names(body: Mapping[str, Any]) -> list[str]:
    if body.get("nodenames") is not None:
        return list(body["nodenames"])
    return [item["metadata"]["name"] for item in body["nodes"]["items"]]


def nodes_answer(names: list[str]) -> dict[str, Any]:
    return {"items": [{"metadata": {"name": n}} for n in names]}


def scheduler(extenders: list[dict[str, Any]], *nodes: str, cpu: str = "4", **kwargs: Any) -> Scheduler:
    s = Scheduler({"extenders": extenders}, load_entry_points=False, **kwargs)
    for name in nodes:
        s.add_node(make_node(name).capacity(cpu=cpu, memory="8Gi", pods=110).obj())
    return s


def pod(name: str = "p", **extra: Any) -> Any:
    return make_pod(name).req(cpu="100m", **extra).obj()


# --------------------------------------------------------------------------------------------
# configuration


def test_config_reads_every_field_and_round_trips() -> None:
    doc = {"extenders": [
        {"urlPrefix": "https://ext.example.com:8443/sched", "filterVerb": "filter", "preemptVerb": "preempt",
         "prioritizeVerb": "prioritize", "weight": 3, "bindVerb": "bind", "enableHTTPS": True,
         "tlsConfig": {"insecure": True, "caFile": "/etc/ca.pem", "caData": "aGVsbG8="},
         "httpTimeout": "1m30s", "nodeCacheCapable": True,
         "managedResources": [{"name": "example.com/foo", "ignoredByScheduler": True}], "ignorable": True},
        {"urlPrefix": "http://127.0.0.1:1/x", "filterVerb": "f"},
    ]}
    config = SchedulerConfiguration.from_dict(doc)
    first, second = config.extenders
    assert first == ExtenderConfig(
        url_prefix="https://ext.example.com:8443/sched", filter_verb="filter", preempt_verb="preempt",
        prioritize_verb="prioritize", weight=3, bind_verb="bind", enable_https=True,
        tls_config=ExtenderTLSConfig(insecure=True, ca_file="/etc/ca.pem", ca_data=b"hello"),
        http_timeout=90.0, node_cache_capable=True,
        managed_resources=(ExtenderManagedResource(name="example.com/foo", ignored_by_scheduler=True),),
        ignorable=True)
    assert second.http_timeout == DEFAULT_EXTENDER_TIMEOUT == 5.0  # upstream DefaultExtenderTimeout
    out = config.to_dict()
    assert out["extenders"][0]["httpTimeout"] == "1m30s"
    assert out["extenders"][0]["tlsConfig"]["caData"] == "aGVsbG8="
    assert SchedulerConfiguration.from_dict(out) == config
    assert "extenders" not in SchedulerConfiguration.default().to_dict()


@pytest.mark.parametrize(("extenders", "expected"), [
    pytest.param([{"urlPrefix": "http://u", "prioritizeVerb": "p"}],
                 ['extenders[0].weight: Invalid value: 0: must have a positive weight applied to it'],
                 id="prioritize without weight"),
    pytest.param([{"urlPrefix": "http://u", "prioritizeVerb": "p", "weight": -2}],
                 ['extenders[0].weight: Invalid value: -2: must have a positive weight applied to it'],
                 id="negative weight"),
    pytest.param([{"urlPrefix": "http://a", "bindVerb": "bind"},
                  {"urlPrefix": "http://b", "bindVerb": "bind"}],
                 ['extenders: Invalid value: "found 2 extenders implementing bind": '
                  'only one extender can implement bind'], id="two binders"),
    pytest.param([{"urlPrefix": "http://a", "managedResources": [{"name": "example.com/foo"}]},
                  {"urlPrefix": "http://b", "managedResources": [{"name": "example.com/foo"}]}],
                 ['extenders[1].managedResources[0].name: Invalid value: "example.com/foo": '
                  'duplicate extender managed resource name'], id="duplicate managed resource"),
    pytest.param([{"urlPrefix": "http://a",
                   "managedResources": [{"name": "kubernetes.io/foo"}, {"name": "cpu"}]}],
                 ['extenders[0].managedResources[0].name: Invalid value: "kubernetes.io/foo": '
                  'is an invalid extended resource name',
                  'extenders[0].managedResources[1].name: Invalid value: "cpu": '
                  'is an invalid extended resource name'], id="not extended resources"),
    pytest.param([{"urlPrefix": "http://a", "managedResources": [{"name": "example.com/-bad-"}]}],
                 ['extenders[0].managedResources[0].name: Invalid value: "example.com/-bad-": '
                  "name part must consist of alphanumeric characters, '-', '_' or '.', and must start "
                  "and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', "
                  "regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"],
                 id="not a qualified name"),
    pytest.param([{"urlPrefix": "http://a", "httpTimeout": "5 seconds"}],
                 ['extenders[0].httpTimeout: Invalid value: "5 seconds"'], id="bad duration"),
    pytest.param([{"urlPrefix": "http://a", "httpTimeout": "-1s"}],
                 ['extenders[0].httpTimeout: Invalid value: "-1s": must be a non-negative'],
                 id="negative timeout"),
    pytest.param([{"urlPrefix": "http://a", "filterVerbs": "f"}],
                 ["extenders[0].filterVerbs: unknown field; did you mean 'filterVerb'?"], id="unknown field"),
    pytest.param([{"urlPrefix": "http://a", "tlsConfig": {"caData": "%%%"}}],
                 ["extenders[0].tlsConfig.caData: Invalid value: must be base64-encoded data"],
                 id="bad base64"),
    pytest.param([{"urlPrefix": "http://a", "ignorable": "yes"}],
                 ['extenders[0].ignorable: Invalid value: "yes": must be a boolean, got string'],
                 id="bad bool"),
    pytest.param({"urlPrefix": "http://a"}, ["extenders: Invalid value"], id="not a list"),
])
def test_config_validation_errors_name_their_paths(extenders: Any, expected: list[str]) -> None:
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict({"extenders": extenders})
    assert len(info.value.errors) == len(expected)
    for error, prefix in zip(info.value.errors, expected):
        assert error.startswith(prefix), error


def test_config_file_with_extenders_loads(tmp_path: Any) -> None:
    path = tmp_path / "scheduler.yaml"
    path.write_text(
        "apiVersion: kubescheduler.config.k8s.io/v1\n"
        "kind: KubeSchedulerConfiguration\n"
        "extenders:\n"
        "- urlPrefix: http://127.0.0.1:12346/scheduler\n"
        "  filterVerb: filter\n"
        "  bindVerb: bind\n"
        "  httpTimeout: 30s\n"
        "  managedResources:\n"
        "  - name: example.com/foo\n"
        "    ignoredByScheduler: true\n"
        "  ignorable: true\n")
    (ext,) = SchedulerConfiguration.from_file(path).extenders
    assert (ext.filter_verb, ext.bind_verb, ext.http_timeout, ext.ignorable) == ("filter", "bind", 30.0, True)


def test_older_api_versions_keep_their_extenders() -> None:
    with pytest.warns(ConfigurationDeprecationWarning, match="v1beta3"):
        config = SchedulerConfiguration.from_dict({
            "apiVersion": "kubescheduler.config.k8s.io/v1beta3", "kind": "KubeSchedulerConfiguration",
            "extenders": [{"urlPrefix": "http://x", "prioritizeVerb": "p", "weight": 2}]})
    assert config.extenders[0].weight == 2


def test_config_accepts_a_weight_without_prioritize_and_one_binder() -> None:
    config = SchedulerConfiguration.from_dict({"extenders": [
        {"urlPrefix": "http://a", "filterVerb": "f", "bindVerb": "b"},
        {"urlPrefix": "http://b", "weight": 0}]})
    assert [e.bind_verb for e in config.extenders] == ["b", ""]


@pytest.mark.parametrize(("text", "seconds"), [
    ("0", 0.0), ("30s", 30.0), ("1m30s", 90.0), ("500ms", 0.5), ("1h", 3600.0), ("1.5s", 1.5),
    ("2us", 2e-6), ("-3s", -3.0), ("1h2m3s", 3723.0),
])
def test_parse_duration(text: str, seconds: float) -> None:
    assert parse_duration(text) == pytest.approx(seconds)


@pytest.mark.parametrize("text", ["", "5", "s", "1x", "1.s5", "--1s", "1s "])
def test_parse_duration_rejects(text: str) -> None:
    assert parse_duration(text) is None


@pytest.mark.parametrize("seconds", [5.0, 90.0, 0.25, 3723.5, 7200.0])
def test_format_duration_round_trips(seconds: float) -> None:
    assert parse_duration(format_duration(seconds)) == pytest.approx(seconds)


# --------------------------------------------------------------------------------------------
# filter


def test_filter_keeps_the_nodes_the_extender_passes(ext: ExtenderServer) -> None:
    def filter_(body: dict[str, Any]) -> Any:
        return {"nodes": nodes_answer(["n2"]), "failedNodes": {"n1": "ext says no"},
                "failedAndUnresolvableNodes": {"n3": "never"}}

    ext.verbs["filter"] = filter_
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "filter"}], "n1", "n2", "n3")
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) == "n2"
    verb, body = ext.calls[0]
    assert verb == "filter"
    assert body["pod"]["metadata"]["name"] == "p"
    assert body["pod"]["spec"]["containers"][0]["resources"]["requests"]["cpu"] == "100m"
    assert sorted(node_names(body)) == ["n1", "n2", "n3"]
    assert "nodenames" not in body
    assert body["nodes"]["items"][0]["kind"] == "Node"


def test_filter_rejecting_every_node_reports_the_extenders_reasons(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: {
        "nodes": {"items": []}, "failedNodes": {"n1": "ext says no", "n2": "busy"},
        "failedAndUnresolvableNodes": {"n2": "gone", "n3": "gone"}}
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "filter"}], "n1", "n2", "n3")
    s.add_pod(pod())
    s.run_until_idle()
    (pending,) = s.pending()
    # failedAndUnresolvableNodes wins over failedNodes for n2
    assert pending.message.startswith(
        "0/3 nodes are available: 1 ext says no, 2 gone. preemption: ")
    # preemption tries only the node that failed resolvably
    assert pending.message.endswith("2 Preemption is not helpful for scheduling.")
    assert "Extender" in pending.plugins


def test_filter_with_node_cache_sends_and_reads_node_names(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: {"nodenames": [n for n in body["nodenames"] if n != "n1"]}
    s = scheduler([{"urlPrefix": ext.url + "/", "filterVerb": "filter", "nodeCacheCapable": True}],
                  "n1", "n2")
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) == "n2"
    body = ext.calls[0][1]
    assert sorted(body["nodenames"]) == ["n1", "n2"]
    assert "nodes" not in body


def test_filter_claiming_an_unknown_node_fails_the_cycle(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: {"nodenames": ["elsewhere"]}
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "filter", "nodeCacheCapable": True}], "n1", "n2")
    s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    (pending,) = s.pending()
    assert "claims a filtered node 'elsewhere' which is not found in the input node list" in pending.message


def test_filter_error_field_fails_the_cycle(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: {"error": "cannot decide"}
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "filter"}], "n1", "n2")
    p = s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    assert s.node_of(p) is None
    assert s.pending()[0].message == "cannot decide"


def test_non_ignorable_failure_fails_the_cycle_with_upstreams_message(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: 500
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "filter"}], "n1", "n2")
    p = s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    assert s.node_of(p) is None
    assert s.pending()[0].message == f"failed filter with extender at URL {ext.url}/filter, code 500"
    events = [e for e in s.events if e.reason == "FailedScheduling"]
    assert events
    assert "code 500" in events[-1].message


def test_ignorable_failure_is_skipped(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: 503
    ext.verbs["bind"] = lambda body: 503
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "filter", "bindVerb": "bind", "ignorable": True}],
                  "n1", "n2")
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) in ("n1", "n2")
    assert ext.verbs_called() == ["filter", "bind"]  # both failed and were skipped; DefaultBinder bound


def test_unreachable_ignorable_extender_is_skipped_and_non_ignorable_fails() -> None:
    server = ExtenderServer()
    url = server.url
    server.stop()  # nothing listens there any more
    s = scheduler([{"urlPrefix": url, "filterVerb": "filter", "ignorable": True}], "n1")
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    s = scheduler([{"urlPrefix": url, "filterVerb": "filter"}], "n1")
    p = s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    assert s.node_of(p) is None
    assert s.pending()[0].message.startswith(f'Post "{url}/filter": ')


def test_timeout_is_honoured(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: {"nodes": body["nodes"]}
    ext.slow.add("filter")
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "filter", "httpTimeout": "200ms"}], "n1", "n2")
    p = s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    assert s.node_of(p) is None
    assert "context deadline exceeded" in s.pending()[0].message


def test_ignorable_extenders_are_called_last(ext: ExtenderServer) -> None:
    order: list[str] = []
    ext.verbs["first"] = lambda body: order.append("ignorable") or {"nodes": body["nodes"]}
    ext.verbs["second"] = lambda body: order.append("required") or {"nodes": body["nodes"]}
    s = scheduler([{"urlPrefix": ext.url, "filterVerb": "first", "ignorable": True},
                   {"urlPrefix": ext.url, "filterVerb": "second"}], "n1", "n2")
    assert [e.is_ignorable() for e in s.extenders] == [False, True]
    s.add_pod(pod())
    s.run_until_idle()
    assert order == ["required", "ignorable"]


# --------------------------------------------------------------------------------------------
# managed resources


def test_extender_only_sees_pods_using_its_managed_resources(ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: {"nodes": nodes_answer(["n2"])}
    s = Scheduler({"extenders": [{"urlPrefix": ext.url, "filterVerb": "filter",
                                  "managedResources": [{"name": "example.com/foo"}]}]},
                  load_entry_points=False)
    for name in ("n1", "n2"):
        s.add_node(make_node(name).capacity(cpu="4", memory="8Gi", pods=110, **{"example.com/foo": 4}).obj())
    plain = s.add_pod(make_pod("plain").req(cpu="100m").obj())
    by_init = s.add_pod(make_pod("init").req(cpu="100m").init_req(**{"example.com/foo": 1}).obj())
    by_limit = s.add_pod(make_pod("limit").container(cpu="100m", limits={"example.com/foo": 1}).obj())
    s.run_until_idle()
    assert [body["pod"]["metadata"]["name"] for _, body in ext.calls] == ["init", "limit"]
    assert s.node_of(by_init) == s.node_of(by_limit) == "n2"
    assert s.node_of(plain) in ("n1", "n2")


def test_is_interested_reads_requests_and_limits_of_all_containers() -> None:
    e = HTTPExtender("http://x", managed_resources=["example.com/foo"], transport=lambda u, p, t: None)
    assert not e.is_interested(make_pod().req(cpu="1").obj())
    assert e.is_interested(make_pod().req(**{"example.com/foo": 1}).obj())
    assert e.is_interested(make_pod().init_req(**{"example.com/foo": 1}).obj())
    assert e.is_interested(make_pod().container(limits={"example.com/foo": 1}).obj())
    assert HTTPExtender("http://x", transport=lambda u, p, t: None).is_interested(make_pod().obj())


# --------------------------------------------------------------------------------------------
# prioritize


def test_prioritize_scores_decide_between_equal_nodes(ext: ExtenderServer) -> None:
    ext.verbs["prioritize"] = lambda body: [
        {"host": n, "score": 10 if n == "n3" else 0} for n in node_names(body)]
    for seed in range(5):
        s = scheduler([{"urlPrefix": ext.url, "prioritizeVerb": "prioritize", "weight": 1}],
                      "n1", "n2", "n3", seed=seed)
        p = s.add_pod(pod())
        s.run_until_idle()
        assert s.node_of(p) == "n3"


def test_prioritize_overrides_plugin_scores_when_weighted(ext: ExtenderServer) -> None:
    # "small" has less free cpu, so the default Score plugins prefer "big"; the extender's
    # weighted score (10 * weight 5 * 10 = 500) outweighs them.
    ext.verbs["prioritize"] = lambda body: [{"host": "small", "score": 10}, {"host": "big", "score": 0}]
    s = Scheduler({"extenders": [{"urlPrefix": ext.url, "prioritizeVerb": "prioritize", "weight": 5}]},
                  load_entry_points=False)
    s.add_node(make_node("small").capacity(cpu="1", memory="8Gi", pods=110).obj())
    s.add_node(make_node("big").capacity(cpu="16", memory="8Gi", pods=110).obj())
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) == "small"


def test_prioritize_scores_are_weighted_and_scaled() -> None:
    def transport(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        return [{"host": "n1", "score": 3}, {"host": "n2", "score": 10}, {"host": "unknown", "score": 10}]

    s = scheduler([{"urlPrefix": "http://in-process", "prioritizeVerb": "p", "weight": 2}], "n1", "n2",
                  extender_transport=transport)
    nodes = [NodeInfo(make_node("n1").obj()), NodeInfo(make_node("n2").obj())]
    # score * weight * (MaxNodeScore 100 / MaxExtenderPriority 10), added to the plugin totals
    assert s._add_extender_scores(pod(), nodes, [7, 0]) == [7 + 3 * 2 * 10, 10 * 2 * 10]


def test_prioritize_failure_is_ignored_even_when_not_ignorable(ext: ExtenderServer) -> None:
    ext.verbs["prioritize"] = lambda body: 500
    s = scheduler([{"urlPrefix": ext.url, "prioritizeVerb": "prioritize", "weight": 1}], "n1", "n2")
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) in ("n1", "n2")
    assert ext.verbs_called() == ["prioritize"]


# --------------------------------------------------------------------------------------------
# bind


def test_extender_binds_instead_of_the_bind_plugins(ext: ExtenderServer) -> None:
    ext.verbs["bind"] = lambda body: {}
    binder = InMemoryBinder()
    s = scheduler([{"urlPrefix": ext.url, "bindVerb": "bind"}], "n1", binder=binder)
    p = s.add_pod(make_pod("web", "shop").req(cpu="100m").uid("uid-1").obj())
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    assert ext.calls == [
        ("bind", {"podName": "web", "podNamespace": "shop", "podUID": "uid-1", "node": "n1"})]
    assert binder.bindings == {}  # DefaultBinder did not run
    assert any(e.reason == "Scheduled" for e in s.events)


def test_extender_refusing_to_bind_fails_the_binding_cycle(ext: ExtenderServer) -> None:
    ext.verbs["bind"] = lambda body: {"error": "no capacity left"}
    s = scheduler([{"urlPrefix": ext.url, "bindVerb": "bind"}], "n1")
    p = s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    assert s.node_of(p) is None
    assert s.pending()[0].message == "no capacity left"


def test_binder_extender_not_interested_leaves_binding_to_plugins(ext: ExtenderServer) -> None:
    ext.verbs["bind"] = lambda body: 500
    binder = InMemoryBinder()
    s = scheduler([{"urlPrefix": ext.url, "bindVerb": "bind",
                    "managedResources": [{"name": "example.com/foo"}]}], "n1", binder=binder)
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    assert ext.calls == []
    assert binder.bindings == {p.key: "n1"}


# --------------------------------------------------------------------------------------------
# transport, handle, TLS


def test_in_process_transport_gets_url_payload_and_timeout() -> None:
    seen: list[tuple[str, float]] = []

    def transport(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        seen.append((url, timeout))
        return {"nodenames": [payload["nodenames"][0]]}

    s = scheduler([{"urlPrefix": "http://nowhere/ext", "filterVerb": "filter", "nodeCacheCapable": True,
                    "httpTimeout": "2s"}], "n1", "n2", extender_transport=transport)
    p = s.add_pod(pod())
    s.run_until_idle()
    assert s.node_of(p) in ("n1", "n2")
    assert seen == [("http://nowhere/ext/filter", 2.0)]


def test_in_process_transport_exceptions_become_extender_errors() -> None:
    def transport(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        raise ConnectionResetError("peer went away")

    e = HTTPExtender("http://x", filter_verb="filter", transport=transport)
    with pytest.raises(ExtenderError, match="peer went away"):
        e.filter(pod(), [NodeInfo(make_node("n1").obj())])


def test_bad_answers_are_extender_errors() -> None:
    e = HTTPExtender("http://x", filter_verb="f", prioritize_verb="p", bind_verb="b",
                     transport=lambda u, p, t: ["not", "a", "mapping"])
    nodes = [NodeInfo(make_node("n1").obj())]
    with pytest.raises(ExtenderError):
        e.filter(pod(), nodes)
    with pytest.raises(ExtenderError):
        e.bind(pod(), "n1")
    e = HTTPExtender("http://x", prioritize_verb="p",
                     transport=lambda u, p, t: [{"host": "n1", "score": "high"}])
    with pytest.raises(ExtenderError):
        e.prioritize(pod(), nodes)


def test_frameworks_hand_the_extenders_to_plugins() -> None:
    s = scheduler([{"urlPrefix": "http://a", "filterVerb": "f"}], extender_transport=lambda u, p, t: {})
    fwk = s.frameworks["default-scheduler"]
    (extender,) = fwk.extenders()
    assert isinstance(extender, Extender)
    assert extender.name == "http://a"
    assert scheduler([]).frameworks["default-scheduler"].extenders() == ()


def test_unsupported_tls_settings_are_refused_clearly() -> None:
    config = {"extenders": [{"urlPrefix": "https://x", "filterVerb": "f", "enableHTTPS": True,
                             "tlsConfig": {"serverName": "other"}}]}
    with pytest.raises(ExtenderError, match="serverName"):
        Scheduler(config, load_entry_points=False)
    # a transport of one's own takes any TLS settings
    Scheduler(config, load_entry_points=False, extender_transport=lambda u, p, t: {})


def test_https_without_a_ca_does_not_verify_the_server() -> None:
    from schedframe.framework.extender import _ssl_context

    ctx = _ssl_context(True, None)
    assert ctx is not None
    assert ctx.check_hostname is False
    assert _ssl_context(False, None) is None
    strict = _ssl_context(False, ExtenderTLSConfig())
    assert strict is not None
    assert strict.check_hostname is True


def test_managed_resources_ignored_by_scheduler_are_not_checked_by_node_resources_fit(
        ext: ExtenderServer) -> None:
    ext.verbs["filter"] = lambda body: {"nodes": body["nodes"]}
    extender = {"urlPrefix": ext.url, "filterVerb": "filter",
                "managedResources": [{"name": "example.com/foo", "ignoredByScheduler": True}]}
    # the node has none of the resource: only the extender judges it
    s = scheduler([extender], "n1")
    p = s.add_pod(pod(**{"example.com/foo": 2}))
    s.run_until_idle()
    assert s.node_of(p) == "n1"
    args = s.frameworks["default-scheduler"].profile.plugin_args["NodeResourcesFit"]
    assert args.ignored_resources == ("example.com/foo",)
    # without ignoredByScheduler NodeResourcesFit rejects the pod
    s = scheduler([{**extender, "managedResources": [{"name": "example.com/foo"}]}], "n1")
    p = s.add_pod(pod(**{"example.com/foo": 2}))
    s.run_until_idle(max_cycles=1)
    assert s.node_of(p) is None
    assert "Insufficient example.com/foo" in s.pending()[0].message


# --------------------------------------------------------------------------------------------
# preemption (upstream preemption.Evaluator.callExtenders)


def preemption_cluster(extenders: list[dict[str, Any]], **kwargs: Any) -> tuple[Scheduler, Any, Any]:
    s = scheduler(extenders, "n1", "n2", cpu="1", **kwargs)
    victims = [s.add_pod(make_pod(f"low-{n}").req(cpu="1").priority(0).node(n).uid(f"uid-{n}").obj())
               for n in ("n1", "n2")]
    preemptor = s.add_pod(make_pod("high").req(cpu="1").priority(100).obj())
    return s, victims, preemptor


def test_preempt_extender_chooses_the_victims(ext: ExtenderServer) -> None:
    ext.verbs["preempt"] = lambda body: {"nodeNameToMetaVictims": {
        "n2": {"pods": [{"uid": "uid-n2"}], "numPDBViolations": 0}}}
    s, (low1, low2), high = preemption_cluster([{"urlPrefix": ext.url, "preemptVerb": "preempt"}])
    s.run_until_idle()
    assert s.node_of(high) == "n2"
    assert s.get_pod(low2) is None
    assert s.node_of(low1) == "n1"
    verb, body = ext.calls[0]
    assert verb == "preempt"
    assert body["pod"]["metadata"]["name"] == "high"
    victims = body["nodeNameToVictims"]
    assert sorted(victims) == ["n1", "n2"]
    assert victims["n1"]["pods"][0]["metadata"]["name"] == "low-n1"
    assert victims["n1"]["numPDBViolations"] == 0


def test_preempt_extender_with_node_cache_gets_pod_uids(ext: ExtenderServer) -> None:
    ext.verbs["preempt"] = lambda body: {
        "nodeNameToMetaVictims": {"n1": body["nodeNameToMetaVictims"]["n1"]}}
    s, (low1, low2), high = preemption_cluster(
        [{"urlPrefix": ext.url, "preemptVerb": "preempt", "nodeCacheCapable": True}])
    s.run_until_idle()
    assert s.node_of(high) == "n1"
    assert s.get_pod(low1) is None
    assert s.node_of(low2) == "n2"
    sent = ext.calls[0][1]["nodeNameToMetaVictims"]
    assert sent["n2"] == {"pods": [{"uid": "uid-n2"}], "numPDBViolations": 0}


def test_preempt_extender_refusing_every_node_stops_preemption(ext: ExtenderServer) -> None:
    ext.verbs["preempt"] = lambda body: {"nodeNameToMetaVictims": {}}
    s, (low1, low2), high = preemption_cluster([{"urlPrefix": ext.url, "preemptVerb": "preempt"}])
    s.run_until_idle(max_cycles=1)
    assert s.node_of(high) is None
    assert s.node_of(low1) == "n1"
    assert s.node_of(low2) == "n2"
    assert s.pending()[0].message.endswith("no candidate node for preemption")


@pytest.mark.parametrize(("answer", "ignorable", "evicted", "message"), [
    pytest.param(500, False, False, "preemption: failed preempt with extender at URL ",
                 id="error fails preemption"),
    pytest.param(500, True, True, "", id="ignorable error skipped"),
    pytest.param({"nodeNameToMetaVictims": {"n1": {"pods": [{"uid": "nobody"}]}}}, False, False,
                 "on node: n1, but the pod is not found on that node", id="unknown victim"),
    pytest.param({"nodeNameToMetaVictims": {"n1": {"pods": []}}}, False, False,
                 'expected at least one victim pod on node "n1"', id="no victims"),
])
def test_preempt_extender_failures(ext: ExtenderServer, answer: Any, ignorable: bool, evicted: bool,
                                   message: str) -> None:
    ext.verbs["preempt"] = lambda body: answer
    s, victims, high = preemption_cluster(
        [{"urlPrefix": ext.url, "preemptVerb": "preempt", "ignorable": ignorable}])
    s.run_until_idle(max_cycles=1)
    remaining = [v for v in victims if s.get_pod(v) is not None]
    assert len(remaining) == (1 if evicted else 2)
    assert s.node_of(high) is None  # nominated at best, bound in a later cycle
    assert message in s.pending()[0].message


# --------------------------------------------------------------------------------------------
# explain and the simulator show the extenders' verdicts beside the plugins'


def _filter_and_prioritize(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
    if url.endswith("/filter"):
        return {"nodes": nodes_answer(["n1", "n2"]), "failedNodes": {"n3": "no licence here"},
                "failedAndUnresolvableNodes": {}}
    return [{"host": "n1", "score": 2}, {"host": "n2", "score": 9}]


def test_explain_shows_extender_filter_and_scores() -> None:
    config = {"extenders": [{"urlPrefix": "http://in-process", "filterVerb": "filter",
                             "prioritizeVerb": "prioritize", "weight": 3}]}
    nodes = [make_node(n).capacity(cpu="4", memory="8Gi", pods=110).obj() for n in ("n1", "n2", "n3")]
    e = explain(pod(), nodes=nodes, config=config, extender_transport=_filter_and_prioritize)
    label = "Extender http://in-process"
    by_node = {v.node: v for v in e.nodes}
    assert by_node["n3"].verdict.plugin == label
    assert by_node["n3"].verdict.code is Code.UNSCHEDULABLE
    assert by_node["n3"].verdict.reasons == ("no licence here",)
    assert by_node["n3"].stopped_at == label
    assert by_node["n1"].feasible
    assert by_node["n1"].check(label) is not None
    assert by_node["n1"].check(label).code is Code.SUCCESS  # type: ignore[union-attr]
    scores = {s.node: s for s in e.scores}
    assert set(scores) == {"n1", "n2"}
    ext_score = scores["n2"].score(label)
    assert ext_score is not None
    assert (ext_score.raw, ext_score.weight, ext_score.weighted) == (9, 30, 270)
    assert scores["n2"].total == sum(s.weighted for s in scores["n2"].scores)
    assert e.selected_node == "n2"
    assert label in e.to_json()


def test_explain_reports_a_failing_non_ignorable_extender() -> None:
    def broken(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        raise ExtenderError("failed filter with extender at URL http://in-process/filter, code 500")

    config = {"extenders": [{"urlPrefix": "http://in-process", "filterVerb": "filter"}]}
    nodes = [make_node(n).capacity(cpu="4", memory="8Gi", pods=110).obj() for n in ("n1", "n2")]
    e = explain(pod(), nodes=nodes, config=config, extender_transport=broken)
    assert e.code is Code.ERROR
    assert e.selected_node is None
    assert "code 500" in e.message
    ignorable = {"extenders": [{**config["extenders"][0], "ignorable": True}]}
    e = explain(pod(), nodes=nodes, config=ignorable, extender_transport=broken)
    assert e.selected_node in {"n1", "n2"}
    assert any("ignorable" in note for note in e.notes)



def test_simulator_explanations_include_the_extenders_verdicts(ext: ExtenderServer) -> None:
    """A simulated run with an HTTP extender in its configuration places pods only where the
    extender allows and its per-attempt explanations carry the extender's verdict."""
    from schedframe.sim import Scenario, simulate

    ext.verbs["filter"] = lambda body: {
        "nodes": nodes_answer([n for n in node_names(body) if n != "n0"]),
        "failedNodes": {"n0": "extender says no"},
    }
    scenario = Scenario.from_dict({
        "name": "with-extender",
        "nodes": [{"count": 2, "name": "n{i}",
                   "template": {"status": {"allocatable": {"cpu": "4", "memory": "8Gi", "pods": "10"}}}}],
        "workloads": [{"name": "w", "replicas": 3, "template": {"spec": {"containers": [
            {"name": "c", "resources": {"requests": {"cpu": "1"}}}]}}}],
        "configs": [{"name": "ext", "config": {
            "apiVersion": "kubescheduler.config.k8s.io/v1", "kind": "KubeSchedulerConfiguration",
            "extenders": [{"urlPrefix": ext.url, "filterVerb": "filter"}]}}],
    })
    result = simulate(scenario, explain=["default/w-0"])
    assert {p.node for p in result.pods} == {"n1"}
    (attempt,) = result.explanations["default/w-0"]
    by_node = {v.node: v for v in attempt.nodes}
    label = f"Extender {ext.url}"
    assert by_node["n0"].stopped_at == label
    assert by_node["n0"].verdict.reasons == ("extender says no",)
    assert by_node["n1"].feasible
    assert attempt.selected_node == "n1"
    assert "filter" in ext.verbs_called()
