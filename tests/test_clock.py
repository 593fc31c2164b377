"""FakeClock: finite numbers only, never backwards; misuse raises ClockError (a ValueError)
and leaves the time as it was."""

from __future__ import annotations

import math
import threading
from typing import Any

import pytest

from schedframe import FakeClock, SchedframeError
from schedframe.errors import ClockError

T0 = 1_700_000_000.0


@pytest.mark.parametrize("start", [math.inf, -math.inf, math.nan, "0", None, True, 10**400])
def test_start_must_be_a_finite_number(start: Any) -> None:
    """FakeClock(inf/nan/str/None/bool/huge int) is refused at once, naming the argument."""
    with pytest.raises(ClockError, match="FakeClock: start must be a") as info:
        FakeClock(start)
    assert isinstance(info.value, ValueError)
    assert isinstance(info.value, SchedframeError)


@pytest.mark.parametrize(("call", "value", "match"), [
    pytest.param("step", math.inf, "step: seconds must be a finite number", id="step inf"),
    pytest.param("step", math.nan, "step: seconds must be a finite number", id="step nan"),
    pytest.param("step", -1.0, "step: seconds must be >= 0, got -1.0", id="step negative"),
    pytest.param("step", "1s", "step: seconds must be a number of seconds, got str", id="step str"),
    pytest.param("step", 1.7e308, "overflows", id="step overflow"),
    pytest.param("set", math.nan, "set: t must be a finite number", id="set nan"),
    pytest.param("set", math.inf, "set: t must be a finite number", id="set inf"),
    pytest.param("set", T0 - 1, "cannot go back", id="set backwards"),
    pytest.param("set", None, "set: t must be a number of seconds, got NoneType", id="set None"),
    pytest.param("advance_to", math.inf, "advance_to: t must be a finite number", id="advance_to inf"),
    pytest.param("sleep", math.nan, "sleep: seconds must be a finite number", id="sleep nan"),
])
def test_bad_moves_raise_and_change_nothing(call: str, value: Any, match: str) -> None:
    """Every bad move raises ClockError naming the method and argument; the time is unchanged."""
    clock = FakeClock(T0 if call != "step" or value != 1.7e308 else 1.7e308)
    before = clock.now()
    with pytest.raises(ClockError, match=match):
        getattr(clock, call)(value)
    assert clock.now() == before
    assert math.isfinite(clock.now())


def test_good_moves() -> None:
    """step, set, sleep and advance_to move forward; advance_to never goes back."""
    clock = FakeClock(0)
    assert clock.step(1.5) == 1.5
    clock.set(10)
    clock.sleep(-3)  # a negative sleep counts as 0
    assert clock.now() == 10.0
    assert clock.advance_to(5) == 10.0
    assert clock.advance_to(12) == 12.0


def test_concurrent_advance_never_goes_back() -> None:
    """Threads advancing to different times concurrently: the clock ends at the latest, and no
    thread fails because another moved it further first."""
    clock = FakeClock(0)
    errors: list[BaseException] = []

    def run(offset: int) -> None:
        try:
            for i in range(400):
                clock.advance_to(float(i * 4 + offset))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=run, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert errors == []
    assert clock.now() == 399 * 4 + 3
