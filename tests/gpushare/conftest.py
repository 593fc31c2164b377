"""Fixtures for the gpushare tests: the openb trace, read from a path (never copied here)."""

from __future__ import annotations

import os
import pathlib

import pytest

REPO = pathlib.Path(__file__).resolve().parents[2]


def openb_dir() -> pathlib.Path:
    """``$SCHEDFRAME_OPENB`` or ``<repo>/../shared/openb``."""
    env = os.environ.get("SCHEDFRAME_OPENB")
    return pathlib.Path(env) if env else REPO.parent / "shared" / "openb"


@pytest.fixture
def openb() -> pathlib.Path:
    """The openb trace directory; skips when its CSVs are absent."""
    path = openb_dir()
    if not (path / "openb_node_list_gpu_node.csv").is_file():
        pytest.skip(f"openb trace not found at {path} (set SCHEDFRAME_OPENB to its directory)")
    return path
