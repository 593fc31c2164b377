"""The package root re-exports a stable, importable public API."""

from __future__ import annotations

import importlib
import importlib.metadata
import pickle

import pytest

import schedframe


def test_all_names_import():
    """Every name in __all__ exists on the package."""
    for name in schedframe.__all__:
        assert hasattr(schedframe, name), name


def test_all_is_sorted_and_unique():
    """__all__ is explicit, sorted and without duplicates."""
    assert list(schedframe.__all__) == sorted(set(schedframe.__all__))


def test_star_import():
    """`from schedframe import *` works."""
    ns: dict[str, object] = {}
    exec("from schedframe import *", ns)
    assert "Pod" in ns
    assert "Status" in ns


def test_version_matches_metadata():
    """__version__ comes from the installed distribution."""
    assert schedframe.__version__ == importlib.metadata.version("schedframe")


def test_classes_report_package_module():
    """Re-exported classes show as schedframe.X in docs and tracebacks."""
    for name in ("Pod", "Node", "Status", "Code", "CycleState", "Registry", "NodeInfo"):
        assert getattr(schedframe, name).__module__ == "schedframe", name


def test_errors_derive_from_base_and_builtins():
    """Every error derives from SchedframeError and the builtin users would catch."""
    assert issubclass(schedframe.ManifestError, (schedframe.SchedframeError, ValueError))
    assert issubclass(schedframe.ConfigurationError, ValueError)
    assert issubclass(schedframe.UnknownPluginError, KeyError)
    assert issubclass(schedframe.errors.DuplicatePluginError, ValueError)
    assert issubclass(schedframe.errors.StateNotFoundError, KeyError)
    for name in schedframe.__all__:
        obj = getattr(schedframe, name)
        if isinstance(obj, type) and issubclass(obj, Warning):
            assert issubclass(obj, (schedframe.SchedframeWarning, UserWarning)), name
        elif isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, schedframe.SchedframeError), name


def test_the_root_is_small():
    """The root keeps what a plugin author and an embedding tool need, at most 80 names."""
    assert len(schedframe.__all__) <= 80
    assert {"Scheduler", "SchedulerConfiguration", "Registry", "Status", "CycleState", "Pod",
            "load_manifests", "explain", "SchedframeError", "plugin_args"} <= set(schedframe.__all__)
    assert not set(schedframe.__all__) & set(schedframe._MOVED)


@pytest.mark.parametrize("name", sorted(schedframe._MOVED))
def test_a_moved_name_resolves_with_a_warning_naming_its_home(name):
    home = schedframe._MOVED[name]
    with pytest.warns(DeprecationWarning, match=f"schedframe.{name} has moved: import it from {home}"):
        obj = getattr(schedframe, name)
    assert obj is getattr(importlib.import_module(home), name)
    if isinstance(obj, type):
        # pickling (Dask sweeps) finds the class where it lives, without the warning
        assert obj.__module__ != "schedframe"
        assert pickle.loads(pickle.dumps(obj)) is obj


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="no attribute 'Nonsense'"):
        schedframe.Nonsense


@pytest.mark.parametrize("name", ["sweep", "SweepSpec", "Run", "grid", "dask_executor", "read_table"])
def test_the_sweep_names_of_sim_resolve_with_a_warning(name):
    import schedframe.sim
    import schedframe.sweep

    moved = f"schedframe.sim.{name} has moved: import it from schedframe.sweep"
    with pytest.warns(DeprecationWarning, match=moved):
        obj = getattr(schedframe.sim, name)
    assert obj is getattr(schedframe.sweep, name)
    with pytest.raises(AttributeError, match="no attribute 'sweeps'"):
        schedframe.sim.sweeps
