"""``schedframe run``: schedule a live cluster's pods (a secondary scheduler; the ``kube`` extra)."""

from __future__ import annotations

import argparse
import logging
from typing import Any

from ._args import duration, port
from ._common import add_release_options
from ._inputs import add_config_option, read_inputs
from ._kube import KubeSetupError, api_client, cluster_options

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe run``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "run", help="schedule a live cluster's pods (a secondary scheduler; needs the kube extra)",
        description="Run schedframe as a scheduler of a live cluster: informers, the scheduling "
        "queue and the configured profiles; pods whose spec.schedulerName is one of the profiles' "
        "are bound through the API. Stops gracefully on SIGINT or SIGTERM.")
    cluster_options(p)
    add_config_option(p, help="a KubeSchedulerConfiguration file (YAML or JSON); default: upstream's "
                      "default configuration (profile default-scheduler)")
    p.add_argument("--leader-elect", action="store_true",
                   help="hold a coordination.k8s.io/v1 Lease before scheduling (more than one replica)")
    p.add_argument("--lease-namespace", default="kube-system", metavar="NS")
    p.add_argument("--lease-name", default="schedframe", metavar="NAME")
    p.add_argument("--health-port", type=port, metavar="PORT",
                   help="serve /healthz, /readyz and /metrics on this port (0 to 65535; 0: any "
                        "free port)")
    p.add_argument("--health-host", default="0.0.0.0", metavar="HOST",
                   help="the health server's address (default 0.0.0.0)")
    p.add_argument("--max-event-bytes", type=int, default=16 * 1024 * 1024, metavar="N",
                   help="the longest watch event line; a longer one ends the watch and its informer "
                   "lists again (default 16 MiB)")
    p.add_argument("--event-deadline", type=duration, default=30.0, metavar="SECONDS",
                   help="restart a watch whose event takes longer than this to arrive once its first "
                   "byte came: seconds or a duration such as 30s, 1m (default 30)")
    p.add_argument("-v", "--verbose", action="store_true", help="debug log output")
    add_release_options(p)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe run`` until SIGINT or SIGTERM."""
    level = logging.DEBUG if args.verbose else logging.INFO
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    if args.max_event_bytes < 1:
        raise KubeSetupError(f"--max-event-bytes must be at least 1, got {args.max_event_bytes}")
    if not args.event_deadline > 0 or args.event_deadline == float("inf"):
        raise KubeSetupError(f"--event-deadline must be a positive number of seconds, "
                             f"got {args.event_deadline}")
    cfg = read_inputs(args).config
    client = api_client(args.kubeconfig, args.context)
    from ..kube import KubeScheduler

    ks = KubeScheduler(client, cfg, leader_election=args.leader_elect, lease_name=args.lease_name,
                       lease_namespace=args.lease_namespace, health_port=args.health_port,
                       health_host=args.health_host, max_event_bytes=args.max_event_bytes,
                       event_deadline=args.event_deadline)
    logging.getLogger("schedframe.kube").info("scheduling for profiles %s", ", ".join(ks.profiles))
    ks.run()
    return 0
