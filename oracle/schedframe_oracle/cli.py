"""``scripts/oracle``: build the oracle, run cases through it and schedframe, generate cases.

Commands:

* ``build [--release R ...]`` builds (or finds cached) the oracle of each release (``all``,
  ``newest``, ``oldest`` or ``1.3x``);
* ``vet [--release R ...]`` runs ``go vet`` on the oracle as each release builds it;
* ``diff --release R [--feature-gates G] [--json] [-v] CASE...`` runs each case (a file, or a
  directory of ``.yaml``/``.json`` files) through the oracle and schedframe in lock-step: one
  line per differing case (its first difference; ``-v`` for all), then ``oracle R: N cases,
  D differ``; exit status 1 when a case differs;
* ``suite --release R [--count N] [--seed S] [--family F]`` does the same on generated cases
  (``--keep DIR`` writes them out);
* ``sources --release R [--keep DIR]`` does the same on the cases made from schedframe's
  benchmark workloads (scaled down) and built-in simulator scenarios
  (:mod:`schedframe_oracle.sources`);
* ``gen --seed S [--count N] [--family F] [--release R] --out DIR`` writes generated cases;
* ``matrix [--count N] [--write]`` runs every release (building what is missing) on generated,
  hand-written, benchmark and scenario cases and prints the per-release table of
  docs/fidelity.rst; ``--write`` stores it in ``docs/data/oracle-matrix.json``, which the
  documentation renders;
* ``facts [--release R ...] [--write]`` prints the facts schedframe's release table is made of
  (feature gates, default plugins, plugin args; :mod:`schedframe_oracle.facts`), or writes them
  to ``src/schedframe/framework/_release_facts.json``.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from . import binary
from .cases import FAMILIES, families, generate, rotation
from .diff import RELEASES_ANNOTATION, CaseReport, case_applies, diff_case

__all__ = ["main"]


def _gates(text: str | None) -> dict[str, bool]:
    out: dict[str, bool] = {}
    for part in (text or "").split(","):
        if part.strip():
            name, _, value = part.partition("=")
            out[name.strip()] = value.strip().lower() in ("true", "1", "t")
    return out


def _case_files(paths: Sequence[str]) -> list[Path]:
    out: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            out.extend(sorted(q for q in p.iterdir() if q.suffix in (".yaml", ".yml", ".json")))
        else:
            out.append(p)
    return out


def run_cases(
    release: str, cases: Sequence[Path], gates: dict[str, bool], *, batch: int = 50
) -> list[CaseReport]:
    """Each case through the oracle (in batches, one process each) and schedframe. A case whose
    List is annotated for other releases (``oracle.schedframe.io/releases: ">=1.34"``) is left
    out, saying so on stderr."""
    reports: list[CaseReport] = []
    kept = []
    for c in cases:
        try:
            applies = case_applies(c, release)
        except Exception as exc:  # not a List, not text, not there: a failed case
            reason = exc if isinstance(exc, ValueError) else f"{type(exc).__name__}: {exc}"
            reports.append(CaseReport(str(c), release, 0, (), error=f"cannot read the case: {reason}"))
            continue
        if applies:
            kept.append(c)
        else:
            print(f"{c}: not for {release} (its {RELEASES_ANNOTATION} annotation)", file=sys.stderr)
    cases = kept
    for i in range(0, len(cases), batch):
        chunk = cases[i : i + batch]
        records = binary.run_oracle(release, chunk, feature_gates=gates or None)
        for case, record in zip(chunk, records):
            try:
                reports.append(diff_case(case, record, release=release, feature_gates=gates or None))
            except Exception as exc:  # a crash on schedframe's side is a difference too
                reports.append(CaseReport(str(case), release, 0, (), error=f"{type(exc).__name__}: {exc}"))
    return reports


def _report(
    release: str, reports: list[CaseReport], *, as_json: bool, verbose: bool, out: Any = sys.stdout
) -> int:
    bad = [r for r in reports if not r.ok]
    if as_json:
        json.dump(
            {
                "release": release,
                "cases": len(reports),
                "differ": len(bad),
                "reports": [r.to_dict() for r in reports],
            },
            out,
            indent=1,
        )
        out.write("\n")
    else:
        for r in bad:
            if r.error:
                print(f"{r.case}: error: {r.error}", file=out)
                continue
            shown = r.differences if verbose else r.differences[:1]
            for d in shown:
                more = "" if verbose or len(r.differences) == 1 else f" (+{len(r.differences) - 1} more)"
                print(d.line() + more, file=out)
        if verbose:
            for r in reports:
                for w in r.warnings:
                    print(f"warning: {w}", file=out)
        cycles = sum(r.cycles for r in reports)
        deviations = sorted({k for r in reports for k, _ in r.deviations})
        note = f"; documented deviations met: {', '.join(deviations)}" if deviations else ""
        print(
            f"oracle {release}: {len(reports)} cases, {len(bad)} differ ({cycles} scheduling cycles{note})",
            file=out,
        )
    return 1 if bad else 0


MATRIX_FILE = binary.ORACLE_DIR.parent / "docs" / "data" / "oracle-matrix.json"
HAND_WRITTEN = binary.ORACLE_DIR.parent / "tests" / "oracle" / "cases"


def _generated(release: str, count: int, where: Path, seed: int = 10_000) -> list[Path]:
    cases = []
    turns = rotation(release)
    for k in range(count):
        family = turns[k % len(turns)]
        path = where / f"{family}-{k:05d}.json"
        path.write_text(json.dumps(generate(seed + k, release=release, family=family)))
        cases.append(path)
    return cases


def source_cases(where: Path) -> list[Path]:
    """The benchmark and scenario cases, written to *where*."""
    from .sources import BENCH_WORKLOADS, SCENARIOS, bench_case, scenario_cases

    out: list[Path] = []
    for name in BENCH_WORKLOADS:
        out.append(where / f"bench-{name.replace('/', '_')}.json")
        out[-1].write_text(json.dumps(bench_case(name)))
    for scenario in SCENARIOS:
        for config, case in scenario_cases(scenario):
            out.append(where / f"scenario-{scenario}-{config}.json")
            out[-1].write_text(json.dumps(case))
    return out


def _matrix(releases: list[str], count: int, write: bool) -> int:
    rows: list[dict[str, Any]] = []
    for release in releases:
        _path, built = binary.build(release, log=lambda m: print(m, file=sys.stderr))
        started = time.monotonic()
        with tempfile.TemporaryDirectory(prefix="oracle-matrix-") as tmp:
            generated = run_cases(release, _generated(release, count, Path(tmp)), {})
            sources = run_cases(release, source_cases(Path(tmp)), {})
        # composite-*.yaml: for the oracle alone until schedframe schedules CompositePodGroups
        hand_cases = [p for p in _case_files([str(HAND_WRITTEN)]) if not p.name.startswith("composite-")]
        hand = run_cases(release, hand_cases, {})
        reports = generated + hand + sources
        for r in reports:
            if r.error:
                print(f"{r.case}: error: {r.error}")
            elif r.differences:
                more = f" (+{len(r.differences) - 1} more)" if len(r.differences) > 1 else ""
                print(r.differences[0].line() + more)
        deviations: dict[str, int] = {}
        for r in reports:
            for key in {k for k, _d in r.deviations}:
                deviations[key] = deviations.get(key, 0) + 1  # cases that met it
        row = {
            "release": release,
            "patch": binary.RELEASES[release],
            "generated": len(generated),
            "handWritten": len(hand),
            "sources": len(sources),
            "cycles": sum(r.cycles for r in reports),
            "differ": sum(1 for r in reports if not r.ok),
            "deviations": deviations,
            "seconds": round(time.monotonic() - started, 1),
            "buildSeconds": round(built, 1),
        }
        rows.append(row)
        print(
            f"oracle {release} ({row['patch']}): {row['generated']} generated + {row['handWritten']} "
            f"hand-written + {row['sources']} benchmark and scenario cases, {row['cycles']} cycles, "
            f"{row['differ']} differ"
            + (f", deviations met: {', '.join(sorted(deviations))}" if deviations else "")
            + f" ({row['seconds']} s)"
        )
    if write:
        MATRIX_FILE.write_text(json.dumps(rows, indent=1) + "\n")
        print(MATRIX_FILE)
    return 1 if any(r["differ"] for r in rows) else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/oracle", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="build the oracle of each release (cached)")
    p_build.add_argument("--release", action="append", help="all, newest, oldest or 1.3x (repeatable)")
    for name in ("diff", "suite"):
        p = sub.add_parser(
            name,
            help="compare schedframe with the oracle" if name == "diff" else "compare on generated cases",
        )
        p.add_argument("--release", default="newest")
        p.add_argument("--feature-gates", default="")
        p.add_argument("--json", action="store_true")
        p.add_argument("-v", "--verbose", action="store_true")
        if name == "diff":
            p.add_argument("cases", nargs="+")
        else:
            p.add_argument("--count", type=int, default=200)
            p.add_argument("--seed", type=int, default=0)
            p.add_argument("--family", choices=FAMILIES, action="append")
            p.add_argument("--keep", type=Path, help="write the generated cases here")
    p_src = sub.add_parser("sources", help="compare on the benchmark and scenario cases")
    p_src.add_argument("--release", default="newest")
    p_src.add_argument("--feature-gates", default="")
    p_src.add_argument("--json", action="store_true")
    p_src.add_argument("-v", "--verbose", action="store_true")
    p_src.add_argument("--keep", type=Path, help="write the cases here")
    p_gen = sub.add_parser("gen", help="write generated cases")
    p_gen.add_argument("--seed", type=int, default=0)
    p_gen.add_argument("--count", type=int, default=1)
    p_gen.add_argument("--family", choices=FAMILIES, default="mixed")
    p_gen.add_argument("--release", default="newest")
    p_gen.add_argument("--out", type=Path, required=True)
    p_vet = sub.add_parser("vet", help="go vet the oracle as each release builds it")
    p_vet.add_argument("--release", action="append", help="all, newest, oldest or 1.3x (repeatable)")
    p_matrix = sub.add_parser("matrix", help="every release on generated and hand-written cases")
    p_matrix.add_argument("--release", action="append", help="all (default), newest, oldest or 1.3x")
    p_matrix.add_argument("--count", type=int, default=300, help="generated cases per release")
    p_matrix.add_argument("--write", action="store_true", help="write docs/data/oracle-matrix.json")
    p_facts = sub.add_parser("facts", help="the release's gates and defaulted configuration")
    p_facts.add_argument("--release", action="append", help="all, newest, oldest or 1.3x (repeatable)")
    p_facts.add_argument(
        "--write",
        action="store_true",
        help="regenerate src/schedframe/framework/_release_facts.json for these releases",
    )
    args = parser.parse_args(argv)

    try:
        if args.command == "build":
            for release in binary.releases(args.release):
                path, seconds = binary.build(release, log=lambda m: print(m, file=sys.stderr))
                print(
                    f"oracle {release}: {path}" + (f" (built in {seconds:.0f} s)" if seconds else " (cached)")
                )
            return 0
        if args.command == "vet":
            for release in binary.releases(args.release):
                binary.vet(release)
                print(f"oracle {release}: go vet clean")
            return 0
        if args.command == "matrix":
            return _matrix(binary.releases(args.release or ["all"]), args.count, args.write)
        if args.command == "facts":
            from . import facts

            chosen = binary.releases(args.release)
            if args.write:
                print(facts.write(chosen))
                return 0
            json.dump({r: facts.collect(r) for r in chosen}, sys.stdout, indent=1)
            sys.stdout.write("\n")
            return 0
        if args.command == "gen":
            release = binary.releases([args.release])[0]
            if args.family not in families(release):
                print(f"oracle: the {args.family} family has no cases for {release}", file=sys.stderr)
                return 2
            args.out.mkdir(parents=True, exist_ok=True)
            for seed in range(args.seed, args.seed + args.count):
                path = args.out / f"{args.family}-{seed:06d}.json"
                path.write_text(json.dumps(generate(seed, release=release, family=args.family), indent=1))
                print(path)
            return 0
        release = binary.releases([args.release])[0]
        gates = _gates(args.feature_gates)
        if args.command == "sources":
            with tempfile.TemporaryDirectory(prefix="oracle-sources-") as tmp:
                where = args.keep or Path(tmp)
                where.mkdir(parents=True, exist_ok=True)
                started = time.monotonic()
                reports = run_cases(release, source_cases(where), gates)
            code = _report(release, reports, as_json=args.json, verbose=args.verbose)
            if not args.json:
                print(f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
            return code
        if args.command == "diff":
            started = time.monotonic()
            reports = run_cases(release, _case_files(args.cases), gates)
            code = _report(release, reports, as_json=args.json, verbose=args.verbose)
            if not args.json:
                print(f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
            return code
        chosen = args.family or ["mixed"]
        if not set(chosen) <= set(families(release)):
            missing = ", ".join(sorted(set(chosen) - set(families(release))))
            print(f"oracle: no cases of {missing} for {release}", file=sys.stderr)
            return 2
        with tempfile.TemporaryDirectory(prefix="oracle-cases-") as tmp:
            where = args.keep or Path(tmp)
            where.mkdir(parents=True, exist_ok=True)
            cases = []
            for k in range(args.count):
                family = chosen[k % len(chosen)]
                seed = args.seed + k
                path = where / f"{family}-{seed:06d}.json"
                path.write_text(json.dumps(generate(seed, release=release, family=family)))
                cases.append(path)
            started = time.monotonic()
            reports = run_cases(release, cases, gates)
            code = _report(release, reports, as_json=args.json, verbose=args.verbose)
            if not args.json:
                print(f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
            return code
    except binary.OracleError as exc:
        print(f"oracle: {exc}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        return 141
    except KeyboardInterrupt:
        print("oracle: interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
