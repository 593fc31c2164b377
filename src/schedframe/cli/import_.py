"""``schedframe import``: write a snapshot of a live cluster for the simulator (the ``kube``
extra). The module is ``import_`` because ``import`` is a Python keyword."""

from __future__ import annotations

import argparse
import importlib.util
import sys
from typing import Any

from ._common import CliInputError, output
from ._kube import KubeSetupError, api_client, cluster_options

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe import``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "import", help="write a snapshot of a live cluster for the simulator (needs the kube extra)",
        description="List a live cluster's nodes, pods, workloads and the other objects the plugins "
        "read, and write them as one List document (YAML, or JSON with -o json: the format "
        "to use for large clusters, as it loads faster) that "
        "'schedframe simulate --cluster' and 'schedframe explain --cluster' read. Objects schedframe "
        "cannot read, and APIs the server does not serve, are reported on stderr.")
    cluster_options(p)
    p.add_argument("-o", "--output", choices=("yaml", "json"), default=None,
                   help="the format written (default yaml); json is the one for large clusters: it "
                   "loads several times faster than YAML without the fastyaml extra")
    p.add_argument("--json", action="store_true", help="the same as --output json")
    p.add_argument("--no-terminal-pods", action="store_true",
                   help="leave out pods in phase Succeeded or Failed")
    p.add_argument("--page-size", type=int, default=500, metavar="N",
                   help="objects per list request (default 500, as kubectl)")
    p.add_argument("--max-items-per-kind", type=int, default=300_000, metavar="N",
                   help="fail when a kind has more objects than this (default 300,000)")
    p.add_argument("--max-items", type=int, default=1_000_000, metavar="N",
                   help="fail when the cluster has more objects than this in all (default 1,000,000)")
    p.add_argument("--max-pages", type=int, default=10_000, metavar="N",
                   help="fail when a kind needs more list requests than this (default 10,000)")
    return p


#: the command-line flag of each of import_cluster's limits
_FLAGS = {"max_items_per_kind": "raise it with --max-items-per-kind",
          "max_items": "raise it with --max-items", "max_pages": "raise it with --max-pages",
          "max_page_bytes": "a smaller --page-size makes smaller answers"}


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe import``."""
    out = output(args)
    if args.json and args.output == "yaml":
        raise CliInputError("--json and --output yaml contradict each other")
    as_json = args.json or args.output == "json"
    for flag in ("page_size", "max_items_per_kind", "max_items", "max_pages"):
        if getattr(args, flag) < 1:
            raise KubeSetupError(f"--{flag.replace('_', '-')} must be at least 1, got {getattr(args, flag)}")
    if not as_json and importlib.util.find_spec("yaml") is None:  # say so before listing
        raise KubeSetupError("writing YAML needs PyYAML: pip install 'schedframe[yaml]' (or use -o json)")
    client = api_client(args.kubeconfig, args.context)
    from ..kube import KubeLimitError, import_cluster

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
                              progress=progress, max_items_per_kind=args.max_items_per_kind,
                              max_items=args.max_items, max_pages=args.max_pages)
    except KubeLimitError as exc:
        raise CliInputError(f"{exc.subject}: {exc.problem} (the limit is {exc.limit:,}; "
                            f"{_FLAGS.get(exc.option, exc.option)})") from None
    except MemoryError:
        raise CliInputError("out of memory while listing the cluster; lower --max-items-per-kind "
                            "and --max-items to fail early, or import on a larger machine") from None
    finally:
        if status is not None:
            status.stop()
        client.close()
    text = snap.dump("json" if as_json else "yaml")
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
