"""The differential tier, long: every rule fixture, every upstream example and seeded shapes, linted and tried.

Starts ``gpufleet.sandbox.up`` for the dev stack without the gang-admission controller
(or reuses the one in ``--dir``), then runs each case through
:class:`gpufleet.sandbox.difftrial.Runner`: ``gpufleet lint --fleet``'s rules on the case,
``gpufleet try --no-controller``'s trial (rank 0 failed once every rank runs), the
judgement. Prints a line per case (its id reproduces it: ``gen:SEED:N``), every
disagreement (known ones marked), then agreement per rule, cases per minute and the
seeds; ``--write`` saves the record (docs/difftier-agreement.json, which
``scripts/gen_rules_doc.py`` puts beside each rule in docs/rules.md). Needs the engines built.

    GPUFLEET_SHARED=/work/shared .venv/bin/python bench/difftier_bench.py [--seeds 1 2] [--generated 40]
        [--minutes 30] [--per-file 2] [--dir DIR] [--no-fixtures] [--no-examples] [--write docs/difftier-agreement.json]
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from gpufleet.difftier import cases as source  # noqa: E402
from gpufleet.difftier import generate
from gpufleet.difftier.tally import line  # noqa: E402
from gpufleet.model import load_model  # noqa: E402
from gpufleet.sandbox.difftrial import Runner, lint_context, skip_reason  # noqa: E402
from gpufleet.sandbox.kube import Kube  # noqa: E402
from gpufleet.sandbox.state import down, load  # noqa: E402
from gpufleet.sandbox.up import Options, up  # noqa: E402

DEV = ROOT / "stacks" / "dev.fleet.yaml"


def shared_dir() -> Path:
    return Path(os.environ.get("GPUFLEET_SHARED", ROOT.parent / "shared"))


def per_file(cases: list, limit: int) -> list:
    """At most ``limit`` runnable cases of each file (a fixture's documents are variations of one shape)."""
    seen: dict[str, int] = {}
    out = []
    for case in cases:
        if skip_reason(case) is not None:
            continue
        key = case.id.split("#")[0]
        if seen.get(key, 0) < limit:
            seen[key] = seen.get(key, 0) + 1
            out.append(case)
    return out


def groups(args: argparse.Namespace, fleet) -> list[tuple[str, list]]:
    out = []
    if args.fixtures:
        out.append(("fixtures", per_file(source.fixtures(ROOT / "tests" / "rules" / "fixtures"), args.per_file)))
    shared = shared_dir() / "examples" / "upstream"
    if args.examples and shared.exists():
        out.append(("examples", per_file(source.examples(shared), args.per_file)))
    elif args.examples:
        print(f"no upstream examples at {shared} (set GPUFLEET_SHARED): left out", flush=True)
    out += [(f"seed {s}", generate.shapes(fleet, s, args.generated)) for s in args.seeds]
    return out


def interleaved(groups: list[tuple[str, list]]) -> list[tuple[str, object]]:
    """Round robin over the groups, so that a run cut short by ``--minutes`` still samples each of them."""
    queues = [[(name, c) for c in cases] for name, cases in groups]
    out = []
    while any(queues):
        for q in queues:
            if q:
                out.append(q.pop(0))
    return out


def report(out, found: list, known: list, unknown: list) -> None:
    """A line for the case, and one for each disagreement (``known``: listed in gpufleet.difftier.known)."""
    case, seen = out.case, out.observation
    print(
        f"{case.id}: {seen.start}{' -> ' + seen.failure if seen.failure else ''}; fired {','.join(out.fired) or '-'}"
        f" ({out.seconds:.1f} s)",
        flush=True,
    )
    why = out.trial.verdict.reasons if out.trial.verdict else (out.trial.message or "",)
    for d, k in found:
        (known if k else unknown).append((case.id, d))
        silent = f" (silent: {','.join(d.candidates)})" if d.candidates else ""
        print(
            f"   {'known' if k else 'DISAGREES'}: {d.kind} {d.rule or '-'} {d.outcome}{silent} | {'; '.join(case.notes)}"
            f" | why: {'; '.join(why[:2])}",
            flush=True,
        )


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, nargs="*", default=[1])
    p.add_argument("--generated", type=int, default=40, help="generated shapes per seed")
    p.add_argument("--minutes", type=float, default=30.0, help="stop starting cases after this long")
    p.add_argument("--per-file", type=int, default=2, help="runnable cases per fixture or example file")
    p.add_argument("--dir", type=Path, help="reuse the sandbox running there (started without the controller)")
    p.add_argument("--no-fixtures", dest="fixtures", action="store_false")
    p.add_argument("--no-examples", dest="examples", action="store_false")
    p.add_argument("--write", type=Path, help="write the agreement record (JSON) here")
    args = p.parse_args()
    fleet = load_model(DEV)
    state = load(args.dir) if args.dir else None
    started = state is None
    if started:
        state = up(
            fleet, str(DEV), Path(tempfile.mkdtemp(prefix="gpufleet-difftier-")) / "sandbox", Options(controller=False)
        )
    runner = Runner(Kube(Path(state.kubeconfig)), lint_context(DEV, shared_dir() / "crds"))
    unknown, known, skipped, tried = [], [], 0, 0
    begin = time.monotonic()
    try:
        for group, case in interleaved(groups(args, fleet)):
            if time.monotonic() - begin > args.minutes * 60:
                break
            out = runner.run(case, group)
            if out.skipped:
                skipped += 1
                continue
            tried += 1
            report(out, runner.disagreements(out), known, unknown)
    finally:
        if started:
            down(state)
    minutes = (time.monotonic() - begin) / 60
    record = runner.tally.record(
        command="bench/difftier_bench.py " + " ".join(sys.argv[1:]),
        date=datetime.now(UTC).strftime("%Y-%m-%d"),
        seeds=args.seeds,
        generatedPerSeed=args.generated,
        casesPerMinute=round(tried / minutes, 2) if minutes else None,
        skipped=skipped,
        disagreements=len(known) + len(unknown),
        unknownDisagreements=len(unknown),
    )
    for code, entry in record["rules"].items():
        print(f"{code}: {line(entry)}")
    print(
        f"{tried} cases tried ({skipped} skipped: no controller for their kind, or a rule that cannot judge them here) in {minutes:.1f} min: "
        f"{record['casesPerMinute']} cases/minute; seeds {args.seeds}; {len(unknown)} unknown and {len(known)} known disagreements"
    )
    if args.write:
        args.write.write_text(json.dumps(record, indent=2) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in record.items() if k != "rules"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
