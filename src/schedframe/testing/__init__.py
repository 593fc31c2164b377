"""Helpers for testing plugins: builders, fakes and :class:`PluginHarness`.

Sits above the scheduler: may import it and every layer below (plugins, config, framework,
cache, api); the core never imports ``testing``."""

from ..framework.clock import FakeClock
from ._builders import NodeBuilder, PodBuilder, make_node, make_pod, selector
from ._fakes import (
    FAKE_REASON,
    FakeBind,
    FakeFilter,
    FakePermit,
    FakePostBind,
    FakePostFilter,
    FakePreBind,
    FakePreEnqueue,
    FakePreFilter,
    FakePreScore,
    FakeProfile,
    FakeQueueSort,
    FakeReserve,
    FakeScore,
    FalseFilter,
    TrueFilter,
    fake_factory,
    fake_registry,
    make_framework,
    register_fake,
)
from ._harness import PluginHarness

__all__ = [
    "FAKE_REASON",
    "FakeBind",
    "FakeClock",
    "FakeFilter",
    "FakePermit",
    "FakePostBind",
    "FakePostFilter",
    "FakePreBind",
    "FakePreEnqueue",
    "FakePreFilter",
    "FakePreScore",
    "FakeProfile",
    "FakeQueueSort",
    "FakeReserve",
    "FakeScore",
    "FalseFilter",
    "NodeBuilder",
    "PluginHarness",
    "PodBuilder",
    "TrueFilter",
    "fake_factory",
    "fake_registry",
    "make_framework",
    "make_node",
    "make_pod",
    "register_fake",
    "selector",
]
