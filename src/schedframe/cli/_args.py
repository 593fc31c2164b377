"""Argument types the commands share: durations written as numbers of seconds or as Kubernetes
(Go) durations, read by the scenario format's own reader
(:func:`schedframe.sim.scenario.parse_seconds`), so a flag takes what a scenario file takes."""

from __future__ import annotations

import argparse
from typing import Final

__all__ = ["MAX_PORT", "duration", "port"]

#: The highest TCP port.
MAX_PORT: Final = 65535


def duration(text: str) -> float:
    """The seconds of a duration flag's *text*: ``300``, ``90s``, ``5m``, ``1h30m``, ``1.5h``;
    anything else is a usage error (exit 2) naming the flag and the value."""
    from ..errors import ScenarioError
    from ..sim.scenario import parse_seconds

    try:
        return parse_seconds(text, "duration")
    except ScenarioError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("duration: ")) from None


def port(text: str) -> int:
    """A TCP port flag: an integer from 0 (any free port) to ``MAX_PORT``; anything else is
    a usage error (exit 2) naming the value, never an ``OverflowError`` from the socket."""
    from ..errors import bounded_repr

    value = text.strip()
    if not (value.isascii() and value.isdigit() and len(value) <= 5 and int(value) <= MAX_PORT):
        raise argparse.ArgumentTypeError(f"want a port from 0 to {MAX_PORT}, got {bounded_repr(text)}")
    return int(value)
