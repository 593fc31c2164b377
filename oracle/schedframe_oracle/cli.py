"""``scripts/oracle``: build the oracle, run cases through it and schedframe, generate cases.

Commands:

* ``build [--release R ...]`` builds (or finds cached) the oracle of each release (``all``,
  ``newest``, ``oldest`` or ``1.3x``);
* ``diff --release R [--feature-gates G] [--json] [-v] CASE...`` runs each case (a file, or a
  directory of ``.yaml``/``.json`` files) through the oracle and schedframe in lock-step: one
  line per differing case (its first difference; ``-v`` for all), then ``oracle R: N cases,
  D differ``; exit status 1 when a case differs;
* ``suite --release R [--count N] [--seed S] [--family F]`` does the same on generated cases
  (``--keep DIR`` writes them out);
* ``gen --seed S [--count N] [--family F] [--release R] --out DIR`` writes generated cases;
* ``facts [--release R ...] [--write]`` prints the facts schedframe's release table is made of
  (feature gates, default plugins, plugin args; :mod:`schedframe_oracle.facts`), or writes them
  to ``src/schedframe/config/_release_facts.json``.
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
from .cases import FAMILIES, generate
from .diff import CaseReport, diff_case

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


def run_cases(release: str, cases: Sequence[Path], gates: dict[str, bool], *, batch: int = 50
              ) -> list[CaseReport]:
    """Each case through the oracle (in batches, one process each) and schedframe."""
    reports: list[CaseReport] = []
    for i in range(0, len(cases), batch):
        chunk = cases[i:i + batch]
        records = binary.run_oracle(release, chunk, feature_gates=gates or None)
        for case, record in zip(chunk, records):
            try:
                reports.append(diff_case(case, record, release=release, feature_gates=gates or None))
            except Exception as exc:  # a crash on schedframe's side is a difference too
                reports.append(CaseReport(str(case), release, 0, (), error=f"{type(exc).__name__}: {exc}"))
    return reports


def _report(release: str, reports: list[CaseReport], *, as_json: bool, verbose: bool,
            out: Any = sys.stdout) -> int:
    bad = [r for r in reports if not r.ok]
    if as_json:
        json.dump({"release": release, "cases": len(reports), "differ": len(bad),
                   "reports": [r.to_dict() for r in reports]}, out, indent=1)
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
        print(f"oracle {release}: {len(reports)} cases, {len(bad)} differ ({cycles} scheduling cycles)", file=out)
    return 1 if bad else 0


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/oracle", description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    p_build = sub.add_parser("build", help="build the oracle of each release (cached)")
    p_build.add_argument("--release", action="append", help="all, newest, oldest or 1.3x (repeatable)")
    for name in ("diff", "suite"):
        p = sub.add_parser(name, help="compare schedframe with the oracle" if name == "diff" else
                           "compare on generated cases")
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
    p_gen = sub.add_parser("gen", help="write generated cases")
    p_gen.add_argument("--seed", type=int, default=0)
    p_gen.add_argument("--count", type=int, default=1)
    p_gen.add_argument("--family", choices=FAMILIES, default="mixed")
    p_gen.add_argument("--release", default="newest")
    p_gen.add_argument("--out", type=Path, required=True)
    p_facts = sub.add_parser("facts", help="the release's gates and defaulted configuration")
    p_facts.add_argument("--release", action="append", help="all, newest, oldest or 1.3x (repeatable)")
    p_facts.add_argument("--write", action="store_true",
                         help="regenerate src/schedframe/config/_release_facts.json for these releases")
    args = parser.parse_args(argv)

    try:
        if args.command == "build":
            for release in binary.releases(args.release):
                path, seconds = binary.build(release, log=lambda m: print(m, file=sys.stderr))
                print(f"oracle {release}: {path}" + (f" (built in {seconds:.0f} s)" if seconds else " (cached)"))
            return 0
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
            args.out.mkdir(parents=True, exist_ok=True)
            for seed in range(args.seed, args.seed + args.count):
                path = args.out / f"{args.family}-{seed:06d}.json"
                path.write_text(json.dumps(generate(seed, release=release, family=args.family), indent=1))
                print(path)
            return 0
        release = binary.releases([args.release])[0]
        gates = _gates(args.feature_gates)
        if args.command == "diff":
            started = time.monotonic()
            reports = run_cases(release, _case_files(args.cases), gates)
            code = _report(release, reports, as_json=args.json, verbose=args.verbose)
            if not args.json:
                print(f"({time.monotonic() - started:.1f} s)", file=sys.stderr)
            return code
        families = args.family or ["mixed"]
        with tempfile.TemporaryDirectory(prefix="oracle-cases-") as tmp:
            where = args.keep or Path(tmp)
            where.mkdir(parents=True, exist_ok=True)
            cases = []
            for k in range(args.count):
                family = families[k % len(families)]
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


if __name__ == "__main__":
    sys.exit(main())
