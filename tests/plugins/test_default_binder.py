"""DefaultBinder: cases ported from upstream ``defaultbinder/default_binder_test.go``."""

from __future__ import annotations

from typing import cast

import pytest

from schedframe import Code, CycleState, Pod
from schedframe.framework.handle import Handle
from schedframe.plugins import default_binder
from schedframe.plugins.default_binder import DefaultBinder


class RecordingClient:
    """A client recording bindings, or failing with *error*."""

    def __init__(self, error: Exception | None = None) -> None:
        self.error = error
        self.bindings: list[tuple[str, str]] = []

    def bind(self, pod: Pod, node_name: str) -> None:
        if self.error is not None:
            raise self.error
        self.bindings.append((pod.key, node_name))

    def delete_pod(self, pod: Pod) -> None:  # pragma: no cover - not used by the binder
        raise NotImplementedError

    def set_nominated_node_name(self, pod: Pod, node_name: str) -> None:  # pragma: no cover
        raise NotImplementedError


class FakeHandle:
    def __init__(self, client: RecordingClient) -> None:
        self.client = client


def binder(client: RecordingClient) -> DefaultBinder:
    return default_binder.new(None, cast(Handle, FakeHandle(client)))


@pytest.mark.parametrize(
    ("error", "want_code", "want_bindings"),
    [
        pytest.param(None, None, [("ns/foo", "foohost.kubernetes.mydomain.com")], id="successful"),
        pytest.param(RuntimeError("binding error"), Code.ERROR, [], id="binding error"),
    ],
)
def test_bind(error: Exception | None, want_code: Code | None, want_bindings: list[tuple[str, str]]) -> None:
    """Bind calls the client; its exceptions become ERROR statuses carrying the message."""
    client = RecordingClient(error)
    status = binder(client).bind(CycleState(), Pod("foo", namespace="ns"), "foohost.kubernetes.mydomain.com")
    if want_code is None:
        assert status is None
    else:
        assert status is not None
        assert status.code is want_code
        assert status.message == "binding error"
        assert status.error is error
    assert client.bindings == want_bindings


def test_bind_through_framework() -> None:
    """The framework's bind point reaches the client given to it."""
    from schedframe.plugins import in_tree_registry
    from schedframe.testing import make_framework

    client = RecordingClient()
    fw = make_framework(
        registry=in_tree_registry(), bind=["DefaultBinder"], framework_kwargs={"client": client}
    )
    status = fw.run_bind_plugins(CycleState(), Pod("p"), "n1")
    assert status.is_success()
    assert client.bindings == [("default/p", "n1")]


def test_factory() -> None:
    """The plugin is named DefaultBinder and takes no args."""
    assert binder(RecordingClient()).name == "DefaultBinder"
    assert default_binder.ARGS_TYPE is None
