"""``schedframe config``: validate, convert or print KubeSchedulerConfiguration files."""

from __future__ import annotations

import argparse
from typing import Any

from .._textio import dump_yaml, yaml_available
from ._common import (
    EXIT_OK,
    CliInputError,
    add_release_options,
    dump_json,
    load_config,
    output,
    release_option,
)

__all__ = ["add_parser", "run"]


def add_parser(subparsers: Any) -> argparse.ArgumentParser:
    """Add ``schedframe config`` and its actions."""
    p: argparse.ArgumentParser = subparsers.add_parser(
        "config", help="validate, convert or print KubeSchedulerConfiguration files"
    )
    csub = p.add_subparsers(dest="action", metavar="ACTION", required=True)
    for action, text in (
        ("validate", "check a configuration file (all errors, with field paths)"),
        ("convert", "print a configuration as the effective v1 document"),
        ("default", "print upstream's default configuration (v1)"),
    ):
        a = csub.add_parser(action, help=text)
        a.add_argument("file", nargs="?" if action == "default" else None, metavar="FILE")
        a.add_argument("--json", action="store_true", help="print JSON instead of YAML")
        add_release_options(a)
    return p


def run(args: argparse.Namespace) -> int:
    """Run ``schedframe config ACTION``."""
    out = output(args)
    from ..config.configuration import SchedulerConfiguration

    release = release_option(args)
    if args.action == "validate":
        cfg = load_config(args.file, release)
        profiles = [p.scheduler_name for p in cfg.profiles]
        if args.json:
            dump_json({"file": args.file, "valid": True, "profiles": profiles}, out.stream)
        else:
            out.line(f"{args.file}: valid ({len(profiles)} profile(s): {', '.join(profiles)})")
        return EXIT_OK
    if args.action == "default" and args.file is None:
        cfg = SchedulerConfiguration.default(kubernetes_version=release)
    else:
        cfg = load_config(args.file, release)
    doc = cfg.to_dict()
    if args.json:
        dump_json(doc, out.stream)
        return EXIT_OK
    if not yaml_available():  # pragma: no cover - PyYAML is in the cli extra
        dump_json(doc, out.stream)
        return EXIT_OK
    out.stream.write(dump_yaml(doc, error=CliInputError))
    return EXIT_OK


