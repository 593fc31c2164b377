"""``schedframe run`` and ``schedframe import``: schedule the pods of a live cluster, or write a
snapshot of it for the simulator (the ``kube`` extra)."""

from __future__ import annotations

import argparse
import importlib.util
import logging
import os
import sys
from typing import Any

from ..errors import SchedframeError

__all__ = ["add_import", "add_run"]


class _KubeSetupError(SchedframeError, RuntimeError):
    """The kube extra is missing or the cluster's configuration cannot be loaded."""


def _cluster_options(p: argparse.ArgumentParser) -> None:
    """--kubeconfig and --context, as :func:`api_client` reads them."""
    p.add_argument("--kubeconfig", metavar="FILE",
                   help="kubeconfig file (default: in-cluster configuration, else $KUBECONFIG or "
                   "~/.kube/config)")
    p.add_argument("--context", metavar="NAME", help="kubeconfig context (default: the current one)")


def add_run(sub: Any, load_config: Any) -> None:
    """Register ``schedframe run`` on the subparsers *sub*; *load_config(path)* reads a
    KubeSchedulerConfiguration file."""
    p = sub.add_parser(
        "run", help="schedule a live cluster's pods (a secondary scheduler; needs the kube extra)",
        description="Run schedframe as a scheduler of a live cluster: informers, the scheduling "
        "queue and the configured profiles; pods whose spec.schedulerName is one of the profiles' "
        "are bound through the API. Stops gracefully on SIGINT or SIGTERM.")
    _cluster_options(p)
    p.add_argument("--config", metavar="FILE", help="KubeSchedulerConfiguration (YAML or JSON); default: "
                   "upstream's default configuration (profile default-scheduler)")
    p.add_argument("--leader-elect", action="store_true",
                   help="hold a coordination.k8s.io/v1 Lease before scheduling (more than one replica)")
    p.add_argument("--lease-namespace", default="kube-system", metavar="NS")
    p.add_argument("--lease-name", default="schedframe", metavar="NAME")
    p.add_argument("--health-port", type=int, metavar="PORT",
                   help="serve /healthz, /readyz and /metrics on this port (0: any free port)")
    p.add_argument("--health-host", default="0.0.0.0", metavar="HOST",
                   help="the health server's address (default 0.0.0.0)")
    p.add_argument("-v", "--verbose", action="store_true", help="debug log output")
    p.set_defaults(run=lambda args, out: _run(args, load_config))


def add_import(sub: Any) -> None:
    """Register ``schedframe import`` on the subparsers *sub*."""
    p = sub.add_parser(
        "import", help="write a snapshot of a live cluster for the simulator (needs the kube extra)",
        description="List a live cluster's nodes, pods, workloads and the other objects the plugins "
        "read, and write them as one List document (YAML, or JSON with --json) that "
        "'schedframe simulate --cluster' and 'schedframe explain --cluster' read. Objects schedframe "
        "cannot read, and APIs the server does not serve, are reported on stderr.")
    _cluster_options(p)
    p.add_argument("--json", action="store_true", help="write JSON instead of YAML")
    p.add_argument("--no-terminal-pods", action="store_true",
                   help="leave out pods in phase Succeeded or Failed")
    p.add_argument("--page-size", type=int, default=500, metavar="N",
                   help="objects per list request (default 500, as kubectl)")
    p.set_defaults(run=_import)


def api_client(kubeconfig: str | None, context: str | None) -> Any:
    """A ``kubernetes.client.ApiClient``: *kubeconfig* (and *context*) when given, else the
    in-cluster configuration when running in a pod, else ``$KUBECONFIG`` / ``~/.kube/config``."""
    if importlib.util.find_spec("kubernetes") is None:
        raise _KubeSetupError('this command needs the kubernetes client: pip install "schedframe[kube]"')
    from kubernetes import client, config

    try:
        if kubeconfig is None and os.environ.get("KUBERNETES_SERVICE_HOST"):
            config.load_incluster_config()  # type: ignore[no-untyped-call,unused-ignore]
            return client.ApiClient()
        if kubeconfig is not None and not os.path.isfile(kubeconfig):
            raise _KubeSetupError(f"--kubeconfig {kubeconfig}: no such file")
        return config.new_client_from_config(  # type: ignore[no-untyped-call,unused-ignore]
            config_file=kubeconfig, context=context)
    except config.ConfigException as exc:
        where = kubeconfig or os.environ.get("KUBECONFIG") or "~/.kube/config"
        raise _KubeSetupError(f"cannot load the cluster configuration from {where}: {exc}") from None


def _import(args: argparse.Namespace, out: Any) -> int:
    if args.page_size < 1:
        raise _KubeSetupError(f"--page-size must be at least 1, got {args.page_size}")
    if not args.json and importlib.util.find_spec("yaml") is None:  # say so before listing
        raise _KubeSetupError("writing YAML needs PyYAML: pip install 'schedframe[yaml]' (or use --json)")
    client = api_client(args.kubeconfig, args.context)
    from ..kube import import_cluster

    err = sys.stderr
    status: Any = None
    if out.rich and err.isatty():
        from rich.console import Console

        status = Console(stderr=True).status("listing")
        status.start()

    def progress(plural: str, n: int) -> None:
        if status is not None:
            status.update(f"listing {plural}: {n:,}")

    try:
        snap = import_cluster(client, terminal_pods=not args.no_terminal_pods, page_size=args.page_size,
                              progress=progress)
    finally:
        if status is not None:
            status.stop()
        client.close()
    text = snap.dump("json" if args.json else "yaml")
    out.stream.write(text)
    out.stream.flush()
    for line in snap.unavailable:
        print(f"schedframe import: not listed: {line}", file=err)
    for line in snap.skipped:
        print(f"schedframe import: skipped {line}", file=err)
    summary = ", ".join(f"{n:,} {kind}" for kind, n in snap.counts.items()) or "nothing"
    skipped = f"; skipped {len(snap.skipped):,} (listed above)" if snap.skipped else ""
    print(f"schedframe import: wrote {summary}{skipped}", file=err)
    return 0


def _run(args: argparse.Namespace, load_config: Any) -> int:
    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    cfg = load_config(args.config) if args.config else None
    client = api_client(args.kubeconfig, args.context)
    from ..kube import KubeScheduler

    ks = KubeScheduler(client, cfg, leader_election=args.leader_elect, lease_name=args.lease_name,
                       lease_namespace=args.lease_namespace, health_port=args.health_port,
                       health_host=args.health_host)
    logging.getLogger("schedframe.kube").info("scheduling for profiles %s", ", ".join(ks.profiles))
    ks.run()
    return 0
