"""Tests for cluster events."""

from __future__ import annotations

import pytest

from schedframe import ActionType, ClusterEvent, EventResource

R = EventResource
A = ActionType


@pytest.mark.parametrize(
    ("registered", "incoming", "want"),
    [
        pytest.param(ClusterEvent(R.NODE, A.ADD), ClusterEvent(R.NODE, A.ADD), True, id="same"),
        pytest.param(ClusterEvent(R.NODE, A.ADD | A.UPDATE_NODE_LABEL),
                     ClusterEvent(R.NODE, A.UPDATE_NODE_LABEL), True, id="flag subset"),
        pytest.param(ClusterEvent(R.NODE, A.ADD), ClusterEvent(R.NODE, A.UPDATE_NODE_TAINT), False,
                     id="other action"),
        pytest.param(ClusterEvent(R.NODE, A.ALL), ClusterEvent(R.POD, A.ADD), False, id="other resource"),
        pytest.param(ClusterEvent(R.WILDCARD, A.ALL), ClusterEvent(R.POD, A.DELETE), True, id="wildcard"),
        pytest.param(ClusterEvent(R.WILDCARD, A.DELETE), ClusterEvent(R.NODE, A.ADD), False,
                     id="wildcard resource, other action"),
        pytest.param(ClusterEvent(R.POD, A.DELETE), ClusterEvent(R.ASSIGNED_POD, A.DELETE), True,
                     id="pod covers assigned pod"),
        pytest.param(ClusterEvent(R.ASSIGNED_POD, A.DELETE), ClusterEvent(R.UNSCHEDULED_POD, A.DELETE),
                     False, id="assigned is not unscheduled"),
    ],
)
def test_matches(registered, incoming, want):
    """A registered event covers an incoming one when resource and action flags overlap."""
    assert registered.matches(incoming) is want


def test_update_covers_every_update_flag():
    """UPDATE is the union of every update flag, ALL adds add and delete."""
    assert A.UPDATE & A.UPDATE_POD_LABEL
    assert A.UPDATE & A.UPDATE_NODE_ALLOCATABLE
    assert not A.UPDATE & A.ADD
    assert A.ALL == A.ADD | A.DELETE | A.UPDATE
