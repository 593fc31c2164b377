"""The differential oracle: schedframe judged by the real kube-scheduler of each release.

The Go program in ``oracle/`` runs the real scheduler in-process on a case file and prints every
decision (:mod:`schedframe_oracle.binary` builds and runs it); :mod:`schedframe_oracle.diff`
replays the same case through schedframe in lock-step and lists every difference;
:mod:`schedframe_oracle.cases` generates cases. ``scripts/oracle`` is the command line. This
package is test tooling, not part of the schedframe distribution (docs/fidelity.rst).
"""

from __future__ import annotations

from .binary import RELEASES, OracleError, OracleUnavailable, build, oracle_binary, run_oracle
from .diff import CaseReport, Difference, diff_case

__all__ = [
    "RELEASES",
    "CaseReport",
    "Difference",
    "OracleError",
    "OracleUnavailable",
    "build",
    "diff_case",
    "oracle_binary",
    "run_oracle",
]
