"""The package root re-exports a stable, importable public API."""

from __future__ import annotations

import importlib.metadata

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
    assert issubclass(schedframe.DuplicatePluginError, ValueError)
    assert issubclass(schedframe.StateNotFoundError, KeyError)
    for name in schedframe.__all__:
        obj = getattr(schedframe, name)
        if isinstance(obj, type) and issubclass(obj, Warning):
            assert issubclass(obj, (schedframe.SchedframeWarning, UserWarning)), name
        elif isinstance(obj, type) and issubclass(obj, Exception):
            assert issubclass(obj, schedframe.SchedframeError), name
