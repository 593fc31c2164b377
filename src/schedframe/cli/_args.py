"""Argument types the commands share: durations written as numbers of seconds or as Kubernetes
(Go) durations, read by the scenario format's own reader
(:func:`schedframe.sim.scenario.parse_seconds`), so a flag takes what a scenario file takes."""

from __future__ import annotations

import argparse

__all__ = ["duration"]


def duration(text: str) -> float:
    """The seconds of a duration flag's *text*: ``300``, ``90s``, ``5m``, ``1h30m``, ``1.5h``;
    anything else is a usage error (exit 2) naming the flag and the value."""
    from ..errors import ScenarioError
    from ..sim.scenario import parse_seconds

    try:
        return parse_seconds(text, "duration")
    except ScenarioError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("duration: ")) from None
