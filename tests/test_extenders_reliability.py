"""Extenders are not trusted too far (issue #30, R4): only http(s) URLs without credentials, a
bounded httpTimeout enforced as a wall-clock deadline, bounded answers and bounded messages."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Iterator, Mapping
from typing import Any

import pytest

from schedframe import ConfigurationError, ExtenderConfig, Scheduler, SchedulerConfiguration
from schedframe.cache.nodeinfo import NodeInfo
from schedframe.errors import ExtenderError
from schedframe.framework import extender as extender_module
from schedframe.framework.extender import HTTPExtender, urllib_transport
from schedframe.testing import make_node, make_pod

SECRET = "s3cr3t-pw"


def config_errors(ext: Any) -> list[str]:
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict({"extenders": [ext]})
    return info.value.errors


def nodes(*names: str) -> list[NodeInfo]:
    return [NodeInfo(make_node(n).capacity(cpu="4", memory="8Gi", pods=110).obj()) for n in names]


def pod() -> Any:
    return make_pod("p").req(cpu="100m").obj()


def scheduler(ext: dict[str, Any], transport: Any, *names: str) -> Scheduler:
    s = Scheduler({"extenders": [ext]}, load_entry_points=False, extender_transport=transport)
    for ni in nodes(*names):
        assert ni.node is not None
        s.add_node(ni.node)
    return s


# --------------------------------------------------------------------------------------------
# urlPrefix: http and https only


@pytest.mark.parametrize("url", ["file:///tmp/fifo", "data:,{}", "ftp://host/x", "gopher://h", "/x",
                                 "host:80"])
def test_url_prefix_must_be_http_or_https(url: str) -> None:
    (error,) = config_errors({"urlPrefix": url, "filterVerb": "filter"})
    assert error.startswith("extenders[0].urlPrefix: Invalid value")
    with pytest.raises(ExtenderError):
        HTTPExtender(url, filter_verb="filter")


def test_url_prefix_is_required() -> None:
    (error,) = config_errors({"filterVerb": "filter"})
    assert error.startswith("extenders[0].urlPrefix: Required value")


def test_an_extender_config_object_is_validated_too() -> None:
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict({"extenders": [ExtenderConfig(url_prefix="file:///etc/passwd")]})
    assert info.value.errors[0].startswith("extenders[0].urlPrefix")


def test_the_transport_never_opens_a_local_fifo(tmp_path: Any) -> None:
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    outcome: list[BaseException | None] = []

    def call() -> None:
        try:
            urllib_transport()(f"file://{fifo}", {}, 1.0)
            outcome.append(None)
        except BaseException as exc:
            outcome.append(exc)

    thread = threading.Thread(target=call, daemon=True)
    thread.start()
    thread.join(5)
    if thread.is_alive():  # the old transport blocks in open(): release it, then fail
        try:
            fd = os.open(fifo, os.O_WRONLY | os.O_NONBLOCK)
            os.close(fd)
        except OSError:
            pass
        thread.join(5)
        pytest.fail("the transport blocked on a FIFO")
    assert len(outcome) == 1
    assert isinstance(outcome[0], ExtenderError)


# --------------------------------------------------------------------------------------------
# credentials in the URL


def test_credentials_in_url_prefix_are_refused_without_being_echoed() -> None:
    (error,) = config_errors({"urlPrefix": f"http://admin:{SECRET}@extender:8888/s", "filterVerb": "f"})
    assert error.startswith("extenders[0].urlPrefix: Invalid value")
    assert "credentials" in error
    assert SECRET not in error
    assert "admin" not in error
    with pytest.raises(ExtenderError) as info:
        HTTPExtender(f"http://admin:{SECRET}@extender:8888/s", filter_verb="f")
    assert SECRET not in str(info.value)


def test_no_transport_message_carries_credentials() -> None:
    # the transport is called with such a URL only by a caller that bypassed the checks above
    with pytest.raises(ExtenderError) as info:
        urllib_transport()(f"http://admin:{SECRET}@127.0.0.1:9/s/filter", {}, 1.0)
    assert SECRET not in str(info.value)
    assert extender_module.shown_url(f"https://u:{SECRET}@h:1/p?q=1") == "https://h:1/p?q=1"
    assert extender_module.shown_url(f"http://u:{SECRET}@h") == "http://h"


# --------------------------------------------------------------------------------------------
# httpTimeout


@pytest.mark.parametrize("timeout", ["9999999999h", 1e308, "25h", 10**400])
def test_http_timeout_is_bounded(timeout: Any) -> None:
    (error,) = config_errors({"urlPrefix": "http://x", "filterVerb": "f", "httpTimeout": timeout})
    assert error.startswith("extenders[0].httpTimeout: Invalid value")


def test_http_timeout_of_24h_is_accepted() -> None:
    config = SchedulerConfiguration.from_dict(
        {"extenders": [{"urlPrefix": "http://x", "httpTimeout": "24h"}]})
    assert config.extenders[0].http_timeout == 24 * 3600


@pytest.mark.parametrize("timeout", [float("inf"), float("nan"), 1e308, -1.0])
def test_out_of_range_timeouts_are_refused_before_any_call(timeout: float) -> None:
    with pytest.raises(ExtenderError):
        HTTPExtender("http://127.0.0.1:9/s", filter_verb="f", http_timeout=timeout)
    with pytest.raises(ConfigurationError) as info:
        SchedulerConfiguration.from_dict(
            {"extenders": [ExtenderConfig(url_prefix="http://x", http_timeout=timeout)]})
    assert info.value.errors[0].startswith("extenders[0].httpTimeout")


# --------------------------------------------------------------------------------------------
# a trickling extender: the timeout bounds the whole call


def read_request(conn: socket.socket) -> None:
    """Read one whole HTTP request (headers and Content-Length body), so that closing the
    connection afterwards does not reset it."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = conn.recv(65536)
        if not chunk:
            return
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = 0
    for line in head.split(b"\r\n")[1:]:
        name, _, value = line.partition(b":")
        if name.strip().lower() == b"content-length":
            length = int(value)
    while len(body) < length:
        chunk = conn.recv(65536)
        if not chunk:
            return
        body += chunk


class Trickler:
    """A raw HTTP server on 127.0.0.1 answering one call by trickling a byte every 50 ms (the
    headers too when ``headers`` is set), for at most 4 seconds; it stops by itself."""

    def __init__(self, *, headers: bool) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(6)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/scheduler"
        self.headers = headers
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(5)
            try:
                read_request(conn)
                head = b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n"
                data = head + b" " * 100 if self.headers else b" " * 100
                if not self.headers:
                    conn.sendall(head)
                deadline = time.monotonic() + 4
                for i in range(len(data)):
                    if time.monotonic() > deadline:
                        break
                    conn.sendall(data[i:i + 1])
                    time.sleep(0.05)
            except OSError:
                pass

    def close(self) -> None:
        self.sock.close()
        self.thread.join(10)


@pytest.fixture(params=[False, True], ids=["body", "headers"])
def trickler(request: pytest.FixtureRequest) -> Iterator[Trickler]:
    server = Trickler(headers=request.param)
    try:
        yield server
    finally:
        server.close()


def test_a_trickling_extender_is_cut_off_at_its_timeout(trickler: Trickler) -> None:
    e = HTTPExtender(trickler.url, filter_verb="filter", http_timeout=0.3)
    start = time.monotonic()
    with pytest.raises(ExtenderError, match="deadline exceeded"):
        e.filter(pod(), nodes("n1"))
    assert time.monotonic() - start < 2.0


def test_a_trickling_extender_does_not_stall_the_scheduler(trickler: Trickler) -> None:
    s = Scheduler(
        {"extenders": [{"urlPrefix": trickler.url, "filterVerb": "filter", "httpTimeout": "300ms"}]},
        load_entry_points=False)
    for ni in nodes("n1"):
        assert ni.node is not None
        s.add_node(ni.node)
    p = s.add_pod(pod())
    start = time.monotonic()
    s.run_until_idle(max_cycles=1)
    assert time.monotonic() - start < 2.0
    assert s.node_of(p) is None
    assert "deadline exceeded" in s.pending()[0].message


# --------------------------------------------------------------------------------------------
# bounded answers


class BigAnswer:
    """An HTTP server on 127.0.0.1 answering every call with *size* bytes of valid JSON."""

    def __init__(self, size: int) -> None:
        self.body = b"[" + b"0," * ((size - 2) // 2) + b"0]"
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(1)
        self.sock.settimeout(10)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}/scheduler"
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return
        with conn:
            conn.settimeout(10)
            try:
                read_request(conn)
                conn.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: %d\r\n\r\n" % len(self.body) + self.body)
            except OSError:
                pass

    def close(self) -> None:
        self.sock.close()
        self.thread.join(10)


def test_the_answer_size_is_capped() -> None:
    cap = getattr(extender_module, "DEFAULT_MAX_RESPONSE_BYTES", 64 * 1024 * 1024)
    assert cap <= 16 * 1024 * 1024
    server = BigAnswer(cap + 1024 * 1024)
    try:
        with pytest.raises(ExtenderError, match="larger than"):
            urllib_transport()(server.url + "/prioritize", {"pod": {}}, 10.0)
    finally:
        server.close()


def test_the_answer_cap_can_be_raised() -> None:
    server = BigAnswer(2 * 1024 * 1024)
    try:
        answer = urllib_transport(max_response_bytes=4 * 1024 * 1024)(server.url + "/prioritize", {}, 10.0)
        assert isinstance(answer, list)
        assert len(answer) > 1000
    finally:
        server.close()
    with pytest.raises(ExtenderError):
        urllib_transport(max_response_bytes=0)


def fixed(answer: Any) -> Any:
    def transport(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        return answer
    return transport


def test_a_filter_answer_listing_more_nodes_than_sent_is_refused() -> None:
    e = HTTPExtender("http://x", filter_verb="f", node_cache_capable=True,
                     transport=fixed({"nodenames": ["n1"] * 1000}))
    with pytest.raises(ExtenderError, match="was sent 2"):
        e.filter(pod(), nodes("n1", "n2"))
    e = HTTPExtender("http://x", filter_verb="f",
                     transport=fixed({"nodes": {"items": [{"metadata": {"name": "n1"}}] * 3}}))
    with pytest.raises(ExtenderError):
        e.filter(pod(), nodes("n1", "n2"))


def test_failed_node_maps_and_priorities_are_bounded_by_the_nodes_sent() -> None:
    many = {f"node-{i}": "no" for i in range(1000)}
    for key in ("failedNodes", "failedAndUnresolvableNodes"):
        e = HTTPExtender("http://x", filter_verb="f", transport=fixed({key: many}))
        with pytest.raises(ExtenderError):
            e.filter(pod(), nodes("n1", "n2"))
    e = HTTPExtender("http://x", prioritize_verb="p", weight=1,
                     transport=fixed([{"host": "n1", "score": 1}] * 1000))
    with pytest.raises(ExtenderError):
        e.prioritize(pod(), nodes("n1", "n2"))


# --------------------------------------------------------------------------------------------
# bounded messages

BIG = "E" * 10_000_000
LIMIT = 1024 + 200  # schedframe.framework.extender.MAX_EXTENDER_MESSAGE and some wording


def test_an_extenders_huge_error_becomes_a_bounded_pending_message() -> None:
    s = scheduler({"urlPrefix": "http://x", "filterVerb": "filter"}, fixed({"error": BIG}), "n1")
    s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    message = s.pending()[0].message
    assert len(message) < LIMIT
    assert "10000000 characters" in message


def test_huge_failed_node_reasons_become_a_bounded_pending_message() -> None:
    s = scheduler({"urlPrefix": "http://x", "filterVerb": "filter"},
                  fixed({"nodes": {"items": []}, "failedNodes": {"n1": BIG}}), "n1")
    s.add_pod(pod())
    s.run_until_idle(max_cycles=1)
    message = s.pending()[0].message
    assert len(message) < LIMIT


def test_huge_bind_errors_and_transport_failures_are_bounded() -> None:
    e = HTTPExtender("http://x", bind_verb="b", transport=fixed({"error": BIG}))
    with pytest.raises(ExtenderError) as info:
        e.bind(pod(), "n1")
    assert len(str(info.value)) < LIMIT

    def raising(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        raise ValueError(BIG)

    e = HTTPExtender("http://x", filter_verb="f", transport=raising)
    with pytest.raises(ExtenderError) as info:
        e.filter(pod(), nodes("n1"))
    assert len(str(info.value)) < LIMIT

    def raising_extender_error(url: str, payload: Mapping[str, Any], timeout: float) -> Any:
        raise ExtenderError(BIG)

    e = HTTPExtender("http://x", filter_verb="f", transport=raising_extender_error)
    with pytest.raises(ExtenderError) as info:
        e.filter(pod(), nodes("n1"))
    assert len(str(info.value)) < LIMIT


def test_json_answers_still_decode() -> None:
    # the wire format is unchanged for a well-behaved extender
    answer = {"nodenames": ["n1"], "failedNodes": {"n2": "busy"}}
    e = HTTPExtender("http://x", filter_verb="f", node_cache_capable=True,
                     transport=fixed(json.loads(json.dumps(answer))))
    passed, failed, unresolvable = e.filter(pod(), nodes("n1", "n2"))
    assert [ni.name for ni in passed] == ["n1"]
    assert failed == {"n2": "busy"}
    assert unresolvable == {}


def test_the_limits_are_public() -> None:
    assert extender_module.MAX_EXTENDER_MESSAGE == 1024
    assert extender_module.DEFAULT_MAX_RESPONSE_BYTES == 8 * 1024 * 1024
    assert extender_module.MAX_EXTENDER_TIMEOUT == 24 * 3600
