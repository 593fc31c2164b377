"""Building and running the oracle program of each release.

Each emulated Kubernetes minor has one module file in ``oracle/`` (``go.mod`` for the newest,
``mod/<minor>.mod`` for the others, each with its ``.sum``): it requires ``k8s.io/kubernetes`` at
that release's patch and maps every staging module to the matching ``v0.x.y``. A build tag
selects the few lines of the program that follow the scheduler's API of that release. Binaries
are cached under ``~/.cache/schedframe/oracle`` (``SCHEDFRAME_ORACLE_CACHE``), keyed by the
release and a hash of the program's sources, so a change to the program rebuilds it.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import time
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path
from typing import Any, Final

__all__ = [
    "ORACLE_DIR",
    "RELEASES",
    "OracleError",
    "OracleUnavailable",
    "build",
    "cache_dir",
    "go_available",
    "oracle_binary",
    "run_oracle",
]

#: the Go module of the oracle
ORACLE_DIR: Final = Path(__file__).resolve().parent.parent

#: emulated minor -> the k8s.io/kubernetes patch release the oracle builds (the newest the Go
#: module proxy serves)
RELEASES: Final[Mapping[str, str]] = {
    "1.32": "1.32.13",
    "1.33": "1.33.13",
    "1.34": "1.34.4",
    "1.35": "1.35.4",
    "1.36": "1.36.3",
    "1.37": "1.37.2",
}
_NEWEST: Final = "1.37"


class OracleError(RuntimeError):
    """The oracle program failed (a build error, a crash, output that is not its record)."""


class OracleUnavailable(OracleError):
    """No oracle can be built or found here (no Go toolchain); tests skip with this reason."""


def cache_dir() -> Path:
    base = os.environ.get("SCHEDFRAME_ORACLE_CACHE")
    if base:
        return Path(base)
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "schedframe" / "oracle"


def go_available() -> bool:
    return shutil.which("go") is not None


def _modfile(minor: str) -> Path:
    return ORACLE_DIR / ("go.mod" if minor == _NEWEST else f"mod/{minor}.mod")


def _tags(minor: str) -> list[str]:
    return [] if minor == _NEWEST else ["-tags", "k8s" + minor.replace(".", "")]


def _source_hash(minor: str) -> str:
    h = hashlib.sha256()
    mod = _modfile(minor)
    for path in [*sorted(ORACLE_DIR.glob("*.go")), mod, mod.with_suffix(".sum")]:
        h.update(path.name.encode())
        h.update(path.read_bytes() if path.exists() else b"")
    return h.hexdigest()[:16]


def _minor(release: str) -> str:
    parts = release.lstrip("v").split(".")
    minor = ".".join(parts[:2])
    if minor not in RELEASES:
        raise OracleError(f"no oracle for Kubernetes {release}: the oracle emulates {', '.join(RELEASES)}")
    return minor


def oracle_binary(release: str) -> Path:
    """The cached oracle of *release* (``"1.37"``), or :class:`OracleUnavailable` when it has
    not been built (``SCHEDFRAME_ORACLE_BIN_<minor>``, e.g. ``SCHEDFRAME_ORACLE_BIN_1_37``, names
    a binary built elsewhere)."""
    minor = _minor(release)
    given = os.environ.get("SCHEDFRAME_ORACLE_BIN_" + minor.replace(".", "_"))
    if given:
        return Path(given)
    path = cache_dir() / f"{RELEASES[minor]}-{_source_hash(minor)}" / "oracle"
    if not path.exists():
        raise OracleUnavailable(
            f"the oracle of Kubernetes {minor} is not built "
            f"(scripts/oracle build --release {minor}; needs Go)"
        )
    return path


def build(release: str, *, log: Any = None) -> tuple[Path, float]:
    """Build (or find in the cache) the oracle of *release*; ``(binary, seconds spent)``.

    Raises:
        OracleUnavailable: no ``go`` command.
        OracleError: the build failed (its output in the message).
    """
    minor = _minor(release)
    try:
        return oracle_binary(minor), 0.0
    except OracleUnavailable:
        pass
    if not go_available():
        raise OracleUnavailable(
            "no Go toolchain (the go command) on this machine: the oracle cannot be built"
        )
    out = cache_dir() / f"{RELEASES[minor]}-{_source_hash(minor)}"
    out.mkdir(parents=True, exist_ok=True)
    target = out / "oracle"
    cmd = [
        "go",
        "build",
        "-trimpath",
        f"-modfile={_modfile(minor)}",
        *_tags(minor),
        "-o",
        str(target) + ".tmp",
        ".",
    ]
    if log is not None:
        log(f"building the oracle of Kubernetes {RELEASES[minor]}: {' '.join(cmd)}")
    started = time.monotonic()
    env = {**os.environ, "GOFLAGS": os.environ.get("GOFLAGS", "") + " -mod=readonly"}
    proc = subprocess.run(cmd, cwd=ORACLE_DIR, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise OracleError(
            f"building the oracle of Kubernetes {RELEASES[minor]} failed:\n{proc.stdout}{proc.stderr}"
        )
    os.replace(str(target) + ".tmp", target)
    for stale in cache_dir().glob(f"{RELEASES[minor]}-*"):
        if stale != out and stale.is_dir():
            shutil.rmtree(stale, ignore_errors=True)  # built from older sources
    return target, time.monotonic() - started


def vet(release: str) -> str:
    """``go vet`` of the oracle's sources as *release* builds them (its module file and build
    tags); the output, empty when clean.

    Raises:
        OracleUnavailable: no ``go`` command.
        OracleError: vet found something, or failed (its output in the message).
    """
    minor = _minor(release)
    if not go_available():
        raise OracleUnavailable("no Go toolchain (the go command) on this machine")
    cmd = ["go", "vet", f"-modfile={_modfile(minor)}", *_tags(minor), "."]
    env = {**os.environ, "GOFLAGS": os.environ.get("GOFLAGS", "") + " -mod=readonly"}
    proc = subprocess.run(cmd, cwd=ORACLE_DIR, capture_output=True, text=True, env=env, check=False)
    if proc.returncode != 0:
        raise OracleError(f"go vet of the oracle of Kubernetes {minor}:\n{proc.stdout}{proc.stderr}")
    return proc.stdout + proc.stderr


def run_oracle(
    release: str,
    cases: Sequence[os.PathLike[str] | str],
    *,
    feature_gates: Mapping[str, bool] | None = None,
    timeout: float = 600.0,
    binary: Path | None = None,
) -> list[dict[str, Any]]:
    """Run the oracle of *release* on *cases* (one process for all of them); its record of
    each case, in order.

    Raises:
        OracleUnavailable: the oracle is not built.
        OracleError: it crashed or printed something else than its records.
    """
    exe = binary or oracle_binary(release)
    cmd = [str(exe), "run"]
    if feature_gates:
        cmd += ["--feature-gates", ",".join(f"{k}={str(v).lower()}" for k, v in feature_gates.items())]
    cmd += [os.fspath(c) for c in cases]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=False)
    if proc.returncode != 0:
        raise OracleError(
            f"the oracle of Kubernetes {release} exited with {proc.returncode}: {proc.stderr.strip()[-4000:]}"
        )
    records = [json.loads(line) for line in proc.stdout.splitlines() if line.strip()]
    if len(records) != len(cases):
        raise OracleError(f"the oracle printed {len(records)} records for {len(cases)} cases")
    return records


def facts(release: str, *, feature_gates: Mapping[str, bool] | None = None) -> dict[str, Any]:
    """The release's feature gates and defaulted configuration, as the oracle reads them."""
    cmd = [str(oracle_binary(release)), "facts"]
    if feature_gates:
        cmd += ["--feature-gates", ",".join(f"{k}={str(v).lower()}" for k, v in feature_gates.items())]
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=120, check=False)
    if proc.returncode != 0:
        raise OracleError(
            f"the oracle of Kubernetes {release} exited with {proc.returncode}: {proc.stderr.strip()[-4000:]}"
        )
    result: dict[str, Any] = json.loads(proc.stdout)
    return result


def releases(names: Iterable[str] | None) -> list[str]:
    """The minors named (``"all"``, ``"newest"``, ``"oldest"`` or ``"1.3x"``), in order."""
    out: list[str] = []
    for name in names or ["newest"]:
        if name == "all":
            out.extend(RELEASES)
        elif name == "newest":
            out.append(_NEWEST)
        elif name == "oldest":
            out.append(next(iter(RELEASES)))
        else:
            out.append(_minor(name))
    return list(dict.fromkeys(out))
