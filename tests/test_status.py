"""Tests for Code and Status."""

from __future__ import annotations

import pytest

from schedframe import Code, Status
from schedframe.framework.status import is_success


def test_codes_have_upstream_values():
    """Code values match kube-scheduler's iota order."""
    assert [c.name for c in Code] == [
        "SUCCESS", "ERROR", "UNSCHEDULABLE", "UNSCHEDULABLE_AND_UNRESOLVABLE", "WAIT", "SKIP", "PENDING",
    ]
    assert [int(c) for c in Code] == list(range(7))
    assert str(Code.UNSCHEDULABLE_AND_UNRESOLVABLE) == "UnschedulableAndUnresolvable"


def test_default_status_is_success():
    """Status() and Status.OK are success with no reasons."""
    assert Status().is_success()
    assert Status.OK.is_success()
    assert Status.OK.reasons == []
    assert Status.OK.message == ""


def test_reasons_are_a_list_and_message_joins_them():
    """reasons is a list; message joins with ', ' as upstream Message()."""
    st = Status(Code.UNSCHEDULABLE, ["a", "b"])
    assert st.reasons == ["a", "b"]
    assert st.message == "a, b"
    assert Status(Code.UNSCHEDULABLE, "single").reasons == ["single"]


@pytest.mark.parametrize(
    ("status", "rejected"),
    [
        pytest.param(Status.unschedulable("x"), True, id="unschedulable"),
        pytest.param(Status.unresolvable("x"), True, id="unresolvable"),
        pytest.param(Status(Code.PENDING), True, id="pending"),
        pytest.param(Status(Code.ERROR), False, id="error"),
        pytest.param(Status.skip(), False, id="skip"),
        pytest.param(Status.wait(), False, id="wait"),
        pytest.param(Status.OK, False, id="success"),
    ],
)
def test_is_rejected(status, rejected):
    """is_rejected covers exactly Unschedulable, UnschedulableAndUnresolvable and Pending."""
    assert status.is_rejected() is rejected


def test_with_plugin_and_code_keep_reasons():
    """with_plugin / with_code derive new statuses keeping the reasons."""
    st = Status.unschedulable("r").with_plugin("P")
    assert st.plugin == "P"
    assert st.reasons == ["r"]
    assert st.with_plugin("P") is st
    assert st.with_code(Code.ERROR).code is Code.ERROR


def test_from_error_wraps_exception():
    """from_error gives ERROR with the exception message and keeps the exception."""
    exc = ValueError("boom")
    st = Status.from_error(exc, plugin="Foo")
    assert st.code is Code.ERROR
    assert st.reasons == ["boom"]
    assert st.error is exc
    assert st.plugin == "Foo"
    assert Status.from_error(RuntimeError()).reasons == ["RuntimeError"]


def test_is_success_helper_accepts_none():
    """None is a plugin's shorthand for success."""
    assert is_success(None)
    assert is_success(Status())
    assert not is_success(Status.skip())


def test_equality_ignores_error_object():
    """Statuses compare by code, reasons and plugin."""
    assert Status(Code.ERROR, ["x"], error=ValueError()) == Status(Code.ERROR, ["x"])
    assert Status.unschedulable("a") != Status.unschedulable("b")


def test_repr_is_readable():
    """repr names the code and reasons."""
    assert repr(Status.unschedulable("r").with_plugin("P")) == (
        "Status(Code.UNSCHEDULABLE, reasons=['r'], plugin='P')"
    )
