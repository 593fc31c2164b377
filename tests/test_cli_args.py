"""Duration flags take what a scenario file takes: seconds or Kubernetes (Go) durations."""

from __future__ import annotations

import io
import json

import pytest

from schedframe.cli import _common
from schedframe.cli.main import build_parser, main
from schedframe.sim.scenario import parse_seconds


@pytest.mark.parametrize(("text", "seconds"), [
    pytest.param("300", 300.0, id="seconds"),
    pytest.param("90s", 90.0, id="90s"),
    pytest.param("5m", 300.0, id="5m"),
    pytest.param("1h30m", 5400.0, id="1h30m"),
    pytest.param("1.5h", 5400.0, id="1.5h"),
])
@pytest.mark.parametrize("argv", [
    pytest.param(["simulate", "--until"], id="simulate --until"),
    pytest.param(["run", "--event-deadline"], id="run --event-deadline"),
])
def test_duration_flags_take_go_durations(argv: list[str], text: str, seconds: float) -> None:
    """``--until 5m`` is 300 seconds, as ``5m`` is in a scenario (it was refused)."""
    args = build_parser().parse_args([*argv, text])
    value = args.until if argv[0] == "simulate" else args.event_deadline
    assert value == seconds == parse_seconds(text, "x")


def test_simulate_until_5m_stops_at_300_seconds() -> None:
    """The run given ``--until 5m`` ends at simulated second 300."""
    out = io.StringIO()
    assert main(["simulate", "--until", "5m", "--json"], stdout=out) == _common.EXIT_OK
    data = json.loads(out.getvalue())
    assert {r["metrics"]["end"] for r in data["results"]} == {300.0}


@pytest.mark.parametrize("text", ["5x", "-5s", "m", "inf", ""])
def test_a_bad_duration_is_a_usage_error_naming_the_flag(
    text: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """A value that is no duration is exit 2 with one line naming ``--until`` and the value."""
    assert main(["simulate", f"--until={text}"]) == _common.EXIT_USAGE
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert err.startswith("schedframe simulate: error: ")
    assert "--until" in err
    assert repr(text) in err
