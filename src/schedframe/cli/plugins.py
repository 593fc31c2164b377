"""``schedframe plugins``: the registered plugins and their extension points."""

from __future__ import annotations

import argparse
from typing import Any

from ._common import EXIT_OK, dump_json, output

__all__ = ["add_parser", "plugin_table", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe plugins``."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "plugins", help="list the registered plugins and their extension points"
    )
    p.add_argument("--json", action="store_true", help="print as JSON")
    return p


def plugin_table() -> list[dict[str, Any]]:
    """Every registered plugin with its extension points and origin: ``in-tree`` (kube-scheduler's),
    ``scheduler-plugins`` (kubernetes-sigs/scheduler-plugins, registered by default) or ``entry
    point`` (an installed distribution)."""
    from ..config.configuration import EXTENSION_POINTS
    from ..framework.plugin_manager import load_plugins
    from ..framework.registry import Registry
    from ..plugins import in_tree_registry
    from ..plugins.sigs import SCHEDULER_PLUGINS
    from ..testing import PluginHarness

    in_tree = in_tree_registry()
    registry = Registry()
    registry.merge(in_tree)
    load_plugins(registry)
    rows = []
    for name in sorted(registry):
        try:
            fwk = PluginHarness(name, registry=registry).framework
            points = [p for p in EXTENSION_POINTS if name in fwk.plugins_at(p)]
            error = ""
        except Exception as exc:  # a plugin that cannot be built with default args
            points, error = [], f"{type(exc).__name__}: {exc}"
        row: dict[str, Any] = {
            "name": name,
            "origin": ("scheduler-plugins" if name in SCHEDULER_PLUGINS
                       else "in-tree" if name in in_tree else "entry point"),
            "extension_points": points,
        }
        if error:
            row["error"] = error
        rows.append(row)
    return rows


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe plugins``."""
    out = output(args)
    rows = plugin_table()
    if args.json:
        dump_json(rows, out.stream)
        return EXIT_OK
    out.table(
        "Plugins",
        ["NAME", "ORIGIN", "EXTENSION POINTS"],
        [[r["name"], r["origin"], ", ".join(r["extension_points"]) or r.get("error", "")] for r in rows],
    )
    return EXIT_OK


