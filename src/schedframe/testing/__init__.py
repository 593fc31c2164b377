"""Helpers for testing plugins: builders, fakes and :class:`PluginHarness`."""

from .._clock import FakeClock
from ._builders import NodeBuilder, PodBuilder, make_node, make_pod, selector

__all__ = ["FakeClock", "NodeBuilder", "PodBuilder", "make_node", "make_pod", "selector"]
