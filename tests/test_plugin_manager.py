"""Loading out-of-tree plugins through pluggy entry points, and the observer hookspecs."""

from __future__ import annotations

import importlib.metadata
import types
from typing import Any

import pluggy
import pytest

from schedframe import Registry, Status
from schedframe.errors import PluginLoadError
from schedframe.framework.hookspecs import PROJECT_NAME, hookimpl
from schedframe.framework.plugin_manager import load_plugins, make_plugin_manager
from schedframe.testing import TrueFilter, make_pod


class FakeEntryPoint:
    """An entry point whose load() returns a prepared object (or raises)."""

    group = "schedframe"

    def __init__(self, name: str, obj: Any = None, *, error: BaseException | None = None) -> None:
        self.name = name
        self.value = f"{name}_module"
        self._obj = obj
        self._error = error

    def load(self) -> Any:
        if self._error is not None:
            raise self._error
        return self._obj


class FakeDistribution:
    """A distribution with entry points (as in pluggy's own tests)."""

    def __init__(self, name: str, *entry_points: Any, version: str = "1.0") -> None:
        self.metadata = {"name": name}
        self.version = version
        self.entry_points = entry_points


def _plugin_module(name: str, *plugin_names: str) -> types.SimpleNamespace:
    def factory(pn: str) -> Any:
        return lambda args, handle: TrueFilter(pn)

    def schedframe_register_plugins(registry: Registry) -> None:
        for pn in plugin_names:
            registry.register(pn, factory(pn))

    return types.SimpleNamespace(schedframe_register_plugins=hookimpl(schedframe_register_plugins),
                                 __name__=name)


@pytest.fixture
def dists(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """The installed distributions seen by importlib.metadata (initially none)."""
    installed: list[Any] = []
    monkeypatch.setattr(importlib.metadata, "distributions", lambda: list(installed))
    return installed


def test_load_registers_plugins(dists: list[Any]) -> None:
    """Entry points in group 'schedframe' are loaded and their plugins registered."""
    mod = _plugin_module("acme", "AcmeFilter", "AcmeScore")
    dists.append(FakeDistribution("acme-plugins", FakeEntryPoint("acme", mod),
                                  types.SimpleNamespace(group="other", name="x", load=lambda: 1 / 0)))
    registry = Registry()
    pm = load_plugins(registry)
    assert sorted(registry) == ["AcmeFilter", "AcmeScore"]
    assert pm.get_plugin("acme") is mod
    assert pm.project_name == PROJECT_NAME
    assert [d.project_name for _, d in pm.list_plugin_distinfo()] == ["acme-plugins"]


def test_blocked_entry_point_is_not_loaded(dists: list[Any]) -> None:
    """Blocked names are skipped (pm.set_blocked)."""
    dists.append(FakeDistribution("acme-plugins", FakeEntryPoint("acme", _plugin_module("acme", "A"))))
    registry = Registry()
    pm = load_plugins(registry, blocked=["acme"])
    assert list(registry) == []
    assert pm.is_blocked("acme")


def test_import_error_names_distribution_and_entry_point(dists: list[Any]) -> None:
    """An entry point failing to import raises PluginLoadError naming both."""
    dists.append(FakeDistribution("broken-dist", FakeEntryPoint("broken", error=ImportError("no module x")),
                                  version="2.3"))
    with pytest.raises(PluginLoadError,
                       match=r"loading entry point 'broken' \(broken_module\) of distribution "
                             r"broken-dist 2\.3 failed: ImportError: no module x"):
        load_plugins(Registry())


def test_duplicate_entry_point_names(dists: list[Any]) -> None:
    """Two distributions providing the same entry-point name is an error."""
    dists.append(FakeDistribution("one", FakeEntryPoint("same", _plugin_module("a", "A"))))
    dists.append(FakeDistribution("two", FakeEntryPoint("same", _plugin_module("b", "B"))))
    with pytest.raises(PluginLoadError, match=r"'same' .* provided by both distribution one 1\.0 and "
                                              r"distribution two 1\.0"):
        load_plugins(Registry())


def test_duplicate_plugin_name_names_distribution(dists: list[Any]) -> None:
    """Registering an existing plugin name fails with the distribution and entry point named."""
    dists.append(FakeDistribution("acme-plugins", FakeEntryPoint("acme", _plugin_module("acme", "NodeName"))))
    registry = Registry()
    registry.register("NodeName", lambda a, h: TrueFilter("NodeName"))
    with pytest.raises(PluginLoadError, match=r"distribution acme-plugins 1\.0, entry point 'acme': "
                                              r"schedframe_register_plugins failed: DuplicatePluginError: "
                                              r"a plugin named 'NodeName' already exists"):
        load_plugins(registry)


def test_directly_registered_plugin_takes_part(dists: list[Any]) -> None:
    """Plugins registered on the manager directly also register their plugins."""
    pm = make_plugin_manager()
    pm.register(_plugin_module("local", "Local"), name="local")
    registry = Registry()
    assert load_plugins(registry, pm=pm) is pm
    assert list(registry) == ["Local"]


def test_directly_registered_plugin_failure(dists: list[Any]) -> None:
    """A failing directly registered plugin is named in the error."""

    class Bad:
        @hookimpl
        def schedframe_register_plugins(self, registry: Registry) -> None:
            raise RuntimeError("nope")

    pm = make_plugin_manager()
    pm.register(Bad(), name="bad")
    match = r"plugin 'bad': schedframe_register_plugins failed: RuntimeError: nope"
    with pytest.raises(PluginLoadError, match=match):
        load_plugins(Registry(), pm=pm)


def test_foreign_plugin_manager_rejected() -> None:
    """A plugin manager for another project is refused."""
    with pytest.raises(PluginLoadError, match=r"plugin manager is for project 'other'"):
        load_plugins(Registry(), pm=pluggy.PluginManager("other"))


def test_bare_plugin_manager_gets_hookspecs(dists: list[Any]) -> None:
    """A bare 'schedframe' plugin manager is given the hookspecs."""
    pm = pluggy.PluginManager("schedframe")
    load_plugins(Registry(), pm=pm)
    assert pm.hook.schedframe_pod_bound.spec is not None


def test_load_twice_skips_already_loaded(dists: list[Any]) -> None:
    """Loading again with the same manager does not reload an entry point."""
    mod = _plugin_module("acme", "A")
    dists.append(FakeDistribution("acme-plugins", FakeEntryPoint("acme", mod)))
    pm = load_plugins(Registry())
    registry = Registry()
    load_plugins(registry, pm=pm)
    assert list(registry) == ["A"]
    assert len(pm.list_plugin_distinfo()) == 1


def test_observer_hooks_accept_argument_subsets() -> None:
    """Observer hook implementations may take any subset of the arguments."""
    seen: list[Any] = []

    class Observer:
        @hookimpl
        def schedframe_pod_scheduled(self, pod: Any, node_name: str) -> None:
            seen.append(("scheduled", pod.name, node_name))

        @hookimpl
        def schedframe_pod_failed(self, status: Status) -> None:
            seen.append(("failed", status.message))

        @hookimpl
        def schedframe_pod_bound(self, node_name: str, profile: str) -> None:
            seen.append(("bound", node_name, profile))

        @hookimpl
        def schedframe_pod_preempted(self, victim: Any, preemptor: Any) -> None:
            seen.append(("preempted", victim.name, preemptor.name))

        @hookimpl
        def schedframe_cycle_finished(self, duration: float) -> None:
            seen.append(("cycle", duration))

    pm = make_plugin_manager()
    pm.register(Observer())
    pod = make_pod("p").obj()
    pm.hook.schedframe_pod_scheduled(pod=pod, node_name="n1", profile="default-scheduler")
    pm.hook.schedframe_pod_failed(pod=pod, status=Status.unschedulable("x"), profile="default-scheduler")
    pm.hook.schedframe_pod_bound(pod=pod, node_name="n1", profile="default-scheduler")
    pm.hook.schedframe_pod_preempted(victim=pod, preemptor=make_pod("q").obj(), node_name="n1",
                                     profile="default-scheduler")
    pm.hook.schedframe_cycle_finished(pod=pod, status=Status.OK, node_name="n1", profile="default-scheduler",
                                      duration=0.5)
    assert seen == [("scheduled", "p", "n1"), ("failed", "x"), ("bound", "n1", "default-scheduler"),
                    ("preempted", "p", "q"), ("cycle", 0.5)]


def test_unknown_hook_argument_rejected() -> None:
    """An implementation asking for an argument the spec lacks is refused by pluggy."""

    class Wrong:
        @hookimpl
        def schedframe_pod_bound(self, nodename: str) -> None:
            pass

    pm = make_plugin_manager()
    with pytest.raises(pluggy.PluginValidationError, match=r"nodename"):
        pm.register(Wrong())


# --- discovery by the Scheduler ------------------------------------------------------------


def _sched_config(*names: str) -> dict[str, Any]:
    return {"profiles": [{"plugins": {"filter": {"enabled": [{"name": n} for n in names]}}}]}


def test_scheduler_discovers_entry_point_plugins_by_default(dists: list[Any]) -> None:
    """Scheduler() loads the installed entry points: a config can name their plugins, and their
    observer hooks are called."""
    from schedframe import Scheduler
    from schedframe.testing import make_node

    seen: list[str] = []

    def schedframe_pod_scheduled(pod: Any, node_name: str) -> None:
        seen.append(node_name)

    mod = _plugin_module("acme", "AcmeFilter")
    mod.schedframe_pod_scheduled = hookimpl(schedframe_pod_scheduled)
    dists.append(FakeDistribution("acme-plugins", FakeEntryPoint("acme", mod)))
    sched = Scheduler(_sched_config("AcmeFilter"))
    assert "AcmeFilter" in sched.registry
    assert "AcmeFilter" in [r.name for r in sched.config.profiles[0].plugins_at("filter")]
    sched.add_node(make_node().name("n1").capacity(cpu="1", memory="1Gi", pods="10").obj())
    sched.add_pod(make_pod().name("p").obj())
    sched.run_until_idle()
    assert seen == ["n1"]


def test_scheduler_entry_points_opt_out(dists: list[Any]) -> None:
    """load_entry_points=False keeps to the in-tree plugins (so the config naming one fails)."""
    from schedframe import ConfigurationError, Scheduler

    mod = _plugin_module("acme", "AcmeFilter")
    dists.append(FakeDistribution("acme-plugins", FakeEntryPoint("acme", mod)))
    assert "AcmeFilter" not in Scheduler(load_entry_points=False).registry
    with pytest.raises(ConfigurationError, match="no plugin named 'AcmeFilter'"):
        Scheduler(_sched_config("AcmeFilter"), load_entry_points=False)


def test_scheduler_with_a_registry_does_not_discover(dists: list[Any]) -> None:
    """A registry given explicitly is used as it is."""
    from schedframe import Scheduler
    from schedframe.plugins import in_tree_registry

    mod = _plugin_module("acme", "AcmeFilter")
    dists.append(FakeDistribution("acme-plugins", FakeEntryPoint("acme", mod)))
    registry = in_tree_registry()
    assert "AcmeFilter" not in Scheduler(registry=registry).registry
    assert "AcmeFilter" not in registry


def test_scheduler_broken_distribution_is_named(dists: list[Any]) -> None:
    """A distribution whose entry point fails to import stops the Scheduler with a PluginLoadError
    naming the distribution and the entry point."""
    from schedframe import Scheduler

    broken = FakeEntryPoint("broken", error=ImportError("no module x"))
    dists.append(FakeDistribution("broken-plugins", broken, version="0.3"))
    with pytest.raises(PluginLoadError, match=r"entry point 'broken' .* of distribution broken-plugins 0\.3 "
                                              r"failed: ImportError: no module x"):
        Scheduler()


def test_entry_point_scan_is_cached_until_the_path_changes(tmp_path: Any,
                                                           monkeypatch: pytest.MonkeyPatch) -> None:
    """The installed distributions are scanned once, again when a directory on sys.path changes."""
    import os
    import sys

    from schedframe.framework import plugin_manager

    calls: list[int] = []
    monkeypatch.setattr(plugin_manager, "_scan", lambda: calls.append(1) or ())
    monkeypatch.setattr(plugin_manager, "_SCAN_CACHE", {})
    monkeypatch.setattr(sys, "path", [str(tmp_path), *sys.path])
    assert plugin_manager._entry_points() == ()
    assert plugin_manager._entry_points() == ()
    assert len(calls) == 1
    (tmp_path / "new-1.0.dist-info").mkdir()  # a distribution installed
    os.utime(tmp_path, ns=(1, 1))  # a coarse clock may not see the mkdir
    plugin_manager._entry_points()
    assert len(calls) == 2


def test_discover_without_entry_points_keeps_the_plugin_manager(dists: list[Any]) -> None:
    """With nothing installed, no plugin manager is created and a given one is left untouched."""
    from schedframe.framework.plugin_manager import discover_plugins

    assert discover_plugins(Registry()) is None
    pm = pluggy.PluginManager("other")
    assert discover_plugins(Registry(), pm) is pm
