"""A real kube-apiserver (with etcd) for the integration tests, started once per session.

The binaries come from ``scripts/kube-test-binaries.sh`` (kube-apiserver, kube-scheduler,
kube-controller-manager and etcd of one release, built from the Go modules); the directory
holding them is ``$SCHEDFRAME_KUBE_BIN`` or ``~/.cache/schedframe/kube-bin/<release>`` (the
script's default release). Without them, or without the ``kubernetes`` Python client, every test
that asks for the cluster is skipped, unless ``SCHEDFRAME_KUBE_REQUIRED=1`` (CI) makes that a
failure.

Only the API server runs for most tests: no controller manager, no kubelet. So nothing removes a
node's ``not-ready`` taint, finalizes a namespace or garbage-collects pods; the fixtures here do
what the tests need of that by hand (a node is created with a Ready status, a namespace's pods are
deleted at once with a zero grace period and the namespace is finalized through the API). The
side-by-side test starts the real kube-scheduler and a controller manager of its own.
"""

from __future__ import annotations

import contextlib
import json
import os
import pathlib
import re
import shutil
import signal
import socket
import ssl
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest

from ._cluster import node_body

SCRIPT = "scripts/kube-test-binaries.sh"
BIN_ENV = "SCHEDFRAME_KUBE_BIN"
VERSION_ENV = "SCHEDFRAME_KUBE_VERSION"
REQUIRED_ENV = "SCHEDFRAME_KUBE_REQUIRED"
#: the user of the scheduler's ServiceAccount (kube-system/schedframe) in docs/examples/kube/rbac.yaml
SA_USER = "system:serviceaccount:kube-system:schedframe"
START_TIMEOUT = float(os.environ.get("SCHEDFRAME_KUBE_START_TIMEOUT", "180"))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers",
        "integration: needs a real kube-apiserver and etcd (scripts/kube-test-binaries.sh); skipped without",
    )


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    # An HTTPS connection of the official client's pool to the API server, dropped without close
    # when the server restarts or a watch ends, can be garbage-collected during any later test
    # (seen once under heavy load): its ResourceWarning says nothing about the test it lands in,
    # so it is not made that test's error. Every other warning stays an error.
    here = pathlib.Path(__file__).parent
    for item in items:
        if here in item.path.parents:
            item.add_marker(pytest.mark.integration)
            item.add_marker(pytest.mark.filterwarnings(
                "ignore:Exception ignored in. <ssl.SSLSocket:pytest.PytestUnraisableExceptionWarning"))
            item.add_marker(pytest.mark.filterwarnings("ignore:unclosed <ssl.SSLSocket:ResourceWarning"))


def default_release() -> str:
    """The release scripts/kube-test-binaries.sh builds: ``$SCHEDFRAME_KUBE_VERSION``, else the
    default written in the script."""
    given = os.environ.get(VERSION_ENV)
    if given:
        return given if given.startswith("v") else "v" + given
    script = pathlib.Path(__file__).resolve().parents[2] / SCRIPT
    match = re.search(r'^K8S_VERSION="\$\{SCHEDFRAME_KUBE_VERSION:-(v[0-9.]+)\}"', script.read_text(), re.M)
    assert match, f"{SCRIPT} names no default release"
    return match.group(1)


def binary_dir() -> pathlib.Path:
    """Where scripts/kube-test-binaries.sh puts (or would put) the binaries."""
    env = os.environ.get(BIN_ENV)
    if env:
        return pathlib.Path(env)
    return pathlib.Path.home() / ".cache" / "schedframe" / "kube-bin" / default_release()


def skip_or_fail(reason: str) -> None:
    """Skip the test for *reason*; with ``SCHEDFRAME_KUBE_REQUIRED=1`` (CI builds the binaries),
    fail it instead."""
    if os.environ.get(REQUIRED_ENV) == "1":
        pytest.fail(f"{reason} ({REQUIRED_ENV}=1)")
    pytest.skip(reason)


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _tail(path: pathlib.Path, lines: int = 40) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def _run(args: list[str]) -> None:
    subprocess.run(args, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)


def _make_pki(d: pathlib.Path) -> None:
    """A CA, a serving certificate for 127.0.0.1/localhost signed by it, and a service-account key."""
    ossl = shutil.which("openssl")
    if ossl is None:
        pytest.skip("the openssl command is needed to make the API server's certificates")
    _run([ossl, "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2",
          "-subj", "/CN=schedframe-test-ca", "-keyout", str(d / "ca.key"), "-out", str(d / "ca.crt")])
    _run([ossl, "req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=kube-apiserver",
          "-keyout", str(d / "apiserver.key"), "-out", str(d / "apiserver.csr")])
    (d / "ext.cnf").write_text(
        "subjectAltName=IP:127.0.0.1,DNS:localhost\n"
        "extendedKeyUsage=serverAuth\nkeyUsage=digitalSignature,keyEncipherment\n"
    )
    _run([ossl, "x509", "-req", "-in", str(d / "apiserver.csr"), "-CA", str(d / "ca.crt"),
          "-CAkey", str(d / "ca.key"), "-CAcreateserial", "-days", "2",
          "-extfile", str(d / "ext.cnf"), "-out", str(d / "apiserver.crt")])
    _run([ossl, "genrsa", "-out", str(d / "sa.key"), "2048"])
    _run([ossl, "rsa", "-in", str(d / "sa.key"), "-pubout", "-out", str(d / "sa.pub")])


@dataclass
class _Proc:
    name: str
    popen: subprocess.Popen[bytes]
    log: pathlib.Path

    def check_alive(self) -> None:
        if self.popen.poll() is not None:
            raise RuntimeError(
                f"{self.name} exited with {self.popen.returncode}; "
                f"last lines of {self.log}:\n{_tail(self.log)}"
            )

    def stop(self) -> None:
        if self.popen.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.popen.pid, signal.SIGTERM)
        try:
            self.popen.wait(timeout=15)
        except subprocess.TimeoutExpired:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.popen.pid, signal.SIGKILL)
            self.popen.wait(timeout=15)


def _workload_api_flags(bindir: pathlib.Path) -> list[str]:
    """kube-apiserver flags serving the scheduling.k8s.io workload kinds, for a 1.37 server."""
    release = bindir.name.lstrip("v")
    if not release.startswith("1.37"):
        return []
    return ["--runtime-config=scheduling.k8s.io/v1beta1=true,scheduling.k8s.io/v1alpha3=true",
            "--feature-gates=GenericWorkload=true,TopologyAwareWorkloadScheduling=true,CompositePodGroup=true"]


def _start(name: str, args: list[str], workdir: pathlib.Path, *, append: bool = False) -> _Proc:
    log = workdir / f"{name}.log"
    with open(log, "ab" if append else "wb") as out:
        popen = subprocess.Popen(
            args, stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            cwd=workdir, start_new_session=True,
        )
    return _Proc(name, popen, log)


@dataclass
class KubeCluster:
    """A running etcd + kube-apiserver pair and a way to talk to it."""

    server: str
    token: str
    sa_token: str
    ca_file: pathlib.Path
    kubeconfig: pathlib.Path
    workdir: pathlib.Path
    api_client: Any  # kubernetes.client.ApiClient
    version: str
    bindir: pathlib.Path
    _clients: list[Any] = field(default_factory=list, repr=False)
    _procs: list[_Proc] = field(default_factory=list, repr=False)  # etcd, then kube-apiserver
    _apiserver_args: list[str] = field(default_factory=list, repr=False)
    _ctx: ssl.SSLContext | None = field(default=None, repr=False)

    def restart_apiserver(self) -> None:
        """Stop kube-apiserver and start it again on the same port, certificates and etcd (as a
        rolling upgrade or a crash does); returns once it is ready. Its watch cache starts afresh
        from etcd, so a watch resumed from a resourceVersion older than that start is answered
        410 Gone."""
        assert self._ctx is not None
        assert len(self._procs) == 2
        self._procs[-1].stop()
        self._procs[-1] = _start("kube-apiserver", self._apiserver_args, self.workdir, append=True)
        _wait_ready(self.server, self.token, self._ctx, self._procs)

    def new_client(self) -> Any:
        """A fresh kubernetes.client.ApiClient for this cluster (closed at the end of the session)."""
        from kubernetes import config as kconfig

        client = kconfig.new_client_from_config(config_file=str(self.kubeconfig))
        self._clients.append(client)
        return client

    def service_account_client(self) -> Any:
        """A kubernetes.client.ApiClient authenticated as the scheduler's ServiceAccount
        (``SA_USER``): it may do only what RBAC grants it."""
        from kubernetes import client as k

        cfg = k.Configuration()
        cfg.host = self.server
        cfg.ssl_ca_cert = str(self.ca_file)
        cfg.api_key = {"authorization": self.sa_token}
        cfg.api_key_prefix = {"authorization": "Bearer"}
        client = k.ApiClient(cfg)
        self._clients.append(client)
        return client

    def log_tail(self, name: str = "kube-apiserver", lines: int = 40) -> str:
        return _tail(self.workdir / f"{name}.log", lines)


def _get(url: str, token: str, ctx: ssl.SSLContext) -> tuple[int, str]:
    req = urllib.request.Request(url, headers={"Authorization": f"Bearer {token}"})
    try:
        with urllib.request.urlopen(req, context=ctx, timeout=5) as resp:
            return resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        body = e.read().decode(errors="replace")
        e.close()
        return e.code, body


def _wait_ready(server: str, token: str, ctx: ssl.SSLContext, procs: list[_Proc]) -> None:
    """Wait for the API server's /readyz (failing early when a process of *procs* exits)."""
    deadline = time.monotonic() + START_TIMEOUT
    last = ""
    while True:
        for p in procs:
            p.check_alive()
        try:
            status, body = _get(f"{server}/readyz", token, ctx)
            if status == 200:
                return
            last = f"HTTP {status}: {body[-500:]}"
        except (OSError, ssl.SSLError) as e:
            last = repr(e)
        if time.monotonic() > deadline:
            raise RuntimeError(
                f"kube-apiserver not ready after {START_TIMEOUT}s ({last}); last log lines:\n"
                f"{_tail(procs[-1].log)}"
            )
        time.sleep(0.5)


@pytest.fixture(scope="session")
def kube_cluster() -> Iterator[KubeCluster]:
    """etcd and kube-apiserver on free loopback ports; torn down (process groups, temp dir) at the end."""
    pytest.importorskip("kubernetes", reason="the kubernetes Python client is not installed")
    bindir = binary_dir()
    apiserver, etcd = bindir / "kube-apiserver", bindir / "etcd"
    missing = [str(p) for p in (apiserver, etcd) if not os.access(p, os.X_OK)]
    if missing:
        skip_or_fail(
            f"no kube-apiserver/etcd binaries ({', '.join(missing)} missing): run {SCRIPT} "
            f"or set {BIN_ENV} to a directory holding them"
        )

    workdir = pathlib.Path(tempfile.mkdtemp(prefix="schedframe-kube-"))
    procs: list[_Proc] = []
    cluster: KubeCluster | None = None
    try:
        pki = workdir / "pki"
        pki.mkdir()
        _make_pki(pki)
        token, sa_token = uuid.uuid4().hex, uuid.uuid4().hex
        # the admin (system:masters passes every RBAC check), and the scheduler's ServiceAccount
        # of docs/examples/kube/rbac.yaml, which has only what that ClusterRole grants
        (workdir / "tokens.csv").write_text(
            f'{token},schedframe-test,schedframe-test,"system:masters"\n'
            f'{sa_token},{SA_USER},schedframe-sa,'
            '"system:serviceaccounts,system:serviceaccounts:kube-system,system:authenticated"\n')

        client_port, peer_port, secure_port = _free_port(), _free_port(), _free_port()
        etcd_url = f"http://127.0.0.1:{client_port}"
        peer_url = f"http://127.0.0.1:{peer_port}"
        procs.append(_start("etcd", [
            str(etcd), "--name=default", f"--data-dir={workdir / 'etcd'}",
            f"--listen-client-urls={etcd_url}", f"--advertise-client-urls={etcd_url}",
            f"--listen-peer-urls={peer_url}", f"--initial-advertise-peer-urls={peer_url}",
            f"--initial-cluster=default={peer_url}", "--log-level=warn",
        ], workdir))

        apiserver_args = [
            str(apiserver),
            f"--etcd-servers={etcd_url}",
            "--bind-address=127.0.0.1", "--advertise-address=127.0.0.1", f"--secure-port={secure_port}",
            f"--cert-dir={workdir / 'certs'}",
            f"--tls-cert-file={pki / 'apiserver.crt'}", f"--tls-private-key-file={pki / 'apiserver.key'}",
            f"--token-auth-file={workdir / 'tokens.csv'}",
            "--authorization-mode=RBAC",
            "--service-account-issuer=https://kubernetes.default.svc.cluster.local",
            f"--service-account-key-file={pki / 'sa.pub'}",
            f"--service-account-signing-key-file={pki / 'sa.key'}",
            # no controllers run: pods need no service-account token, new nodes no not-ready taint
            "--disable-admission-plugins=ServiceAccount,TaintNodesByCondition",
            "--service-cluster-ip-range=10.0.0.0/24",
            "--endpoint-reconciler-type=none",
            "--enable-priority-and-fairness=false",
            # the workload API of 1.37 (beta and alpha, off by default): served, so that import
            # and the watches read it (the schedulers' own gates stay at their defaults)
            *_workload_api_flags(bindir),
            "--v=1",
        ]
        procs.append(_start("kube-apiserver", apiserver_args, workdir))

        server = f"https://127.0.0.1:{secure_port}"
        ctx = ssl.create_default_context(cafile=str(pki / "ca.crt"))
        _wait_ready(server, token, ctx, procs)
        _, version_body = _get(f"{server}/version", token, ctx)
        version = str(json.loads(version_body).get("gitVersion", "?"))

        kubeconfig = workdir / "kubeconfig"
        kubeconfig.write_text(json.dumps({
            "apiVersion": "v1",
            "kind": "Config",
            "clusters": [{"name": "test", "cluster": {
                "server": server, "certificate-authority": str(pki / "ca.crt")}}],
            "users": [{"name": "test", "user": {"token": token}}],
            "contexts": [{"name": "test", "context": {"cluster": "test", "user": "test"}}],
            "current-context": "test",
        }))
        cluster = KubeCluster(
            server=server, token=token, sa_token=sa_token, ca_file=pki / "ca.crt", kubeconfig=kubeconfig,
            workdir=workdir, api_client=None, version=version, bindir=bindir,
            _procs=procs, _apiserver_args=apiserver_args, _ctx=ctx,
        )
        cluster.api_client = cluster.new_client()
        yield cluster
    finally:
        if cluster is not None:
            for c in cluster._clients:
                with contextlib.suppress(Exception):
                    c.close()
        for p in reversed(procs):
            p.stop()
        shutil.rmtree(workdir, ignore_errors=True)


@pytest.fixture
def start_component(kube_cluster: KubeCluster) -> Iterator[Callable[[str, list[str]], _Proc]]:
    """start_component(binary, args) -> a running kube-scheduler, kube-controller-manager, ...
    of the session's binary directory, its log in the session's directory (``name.log``);
    stopped (its process group) after the test."""
    procs: list[_Proc] = []

    def start(binary: str, args: list[str]) -> _Proc:
        path = kube_cluster.bindir / binary
        if not os.access(path, os.X_OK):
            skip_or_fail(f"no {binary} in {kube_cluster.bindir}: run {SCRIPT}")
        proc = _start(binary, [str(path), *args], kube_cluster.workdir)
        procs.append(proc)
        return proc

    try:
        yield start
    finally:
        for p in reversed(procs):
            p.stop()


@pytest.fixture
def kube(kube_cluster: KubeCluster) -> KubeCluster:
    """The session's cluster (a shorter name for tests)."""
    return kube_cluster


def _delete_namespace(api: Any, name: str) -> None:
    from kubernetes.client import V1DeleteOptions
    from kubernetes.client.rest import ApiException

    with contextlib.suppress(ApiException):
        # no kubelet: bound pods would wait for it forever unless deleted with a zero grace period
        api.delete_collection_namespaced_pod(name, grace_period_seconds=0)
    try:
        api.delete_namespace(name, body=V1DeleteOptions(grace_period_seconds=0))
    except ApiException as e:
        if e.status == 404:
            return
        raise
    # no namespace controller: drop the "kubernetes" finalizer so the namespace goes away
    with contextlib.suppress(ApiException):
        ns = api.read_namespace(name)
        ns.spec.finalizers = []
        api.replace_namespace_finalize(name, ns)


@pytest.fixture
def make_namespace(kube_cluster: KubeCluster) -> Iterator[Callable[[], str]]:
    """make_namespace() -> the name of a fresh namespace; its pods and the namespace itself are
    deleted after the test."""
    from kubernetes import client as k

    api = k.CoreV1Api(kube_cluster.api_client)
    made: list[str] = []

    def make() -> str:
        name = f"it-{uuid.uuid4().hex[:10]}"
        api.create_namespace(k.V1Namespace(metadata=k.V1ObjectMeta(name=name)))
        made.append(name)
        return name

    try:
        yield make
    finally:
        for name in made:
            _delete_namespace(api, name)


@pytest.fixture
def namespace(make_namespace: Callable[[], str]) -> str:
    """A fresh namespace for one test; its pods and the namespace itself are deleted afterwards."""
    return make_namespace()


@pytest.fixture
def make_node(kube_cluster: KubeCluster) -> Iterator[Callable[..., str]]:
    """make_node(prefix, allocatable, labels=None) -> a unique node name; the nodes are deleted afterwards.

    The node is created, then its status (capacity, allocatable, Ready condition) is written
    through the status subresource, as a kubelet would.
    """
    from kubernetes import client as k
    from kubernetes.client.rest import ApiException

    api = k.CoreV1Api(kube_cluster.api_client)
    created: list[str] = []

    def make(prefix: str, allocatable: Mapping[str, str], labels: Mapping[str, str] | None = None) -> str:
        name = f"{prefix}-{uuid.uuid4().hex[:8]}"
        body, status = node_body(name, allocatable, labels=labels)
        api.create_node(body)
        created.append(name)
        api.patch_node_status(name, status)
        return name

    try:
        yield make
    finally:
        for name in created:
            with contextlib.suppress(ApiException):
                api.delete_node(name)

