"""``gpufleet predict``'s work: each object's gang contract and the invariants it holds, from the files lint reads.

Called by the CLI (:mod:`gpufleet.cli.predict_cmds`) and tests. The files are read exactly as
``gpufleet lint`` reads them (:mod:`gpufleet.lint.firstpass`: directories, ``-``, multi-document
YAML, ``List`` items, GANG000 for what is not an object). Each object's contract is read by its
kind's reader (:func:`gpufleet.workloads.contract.registry.read`) with the file set's objects, the
fleet context and its operator profile; every manifest an Argo Workflow embeds is read too, with
its paths under the Workflow's. The rule engine runs on the same objects (its public
``check_object``, as lint does) and each finding is put under the invariant its code checks
(:mod:`gpufleet.rules.invariants`). :mod:`gpufleet.lint.predictout` writes the text and JSON forms.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from gpufleet.fleetctx.operators import NO_PROFILE
from gpufleet.kubetypes.fieldpath import ROOT, FieldPath
from gpufleet.lint import firstpass
from gpufleet.lint.firstpass import Loads
from gpufleet.lint.located import Located
from gpufleet.lint.namespaces import DEFAULT_NAMESPACE
from gpufleet.lint.sources import stream
from gpufleet.rules import engine
from gpufleet.rules.api import CheckContext, Finding
from gpufleet.rules.invariants import INVARIANTS, Invariant, invariant_of
from gpufleet.workloads.contract.readers.argo import embedded_contracts
from gpufleet.workloads.contract.registry import Run, read
from gpufleet.workloads.contract.types import Contract


@dataclass(frozen=True)
class Verdict:
    """One invariant on one object: whether it holds, the codes that say it does not, and their messages."""

    invariant: Invariant
    codes: tuple[str, ...]
    why: tuple[str, ...]

    @property
    def holds(self) -> bool:
        return not self.why


@dataclass(frozen=True)
class Prediction:
    """One object's contract at its file and line (``at``: its path inside a List or a Workflow), with its findings."""

    file: str
    line: int
    at: FieldPath
    contract: Contract
    findings: tuple[Finding, ...]

    @property
    def verdicts(self) -> tuple[Verdict, ...]:
        return tuple(_verdict(inv, self.findings) for inv in INVARIANTS)

    @property
    def other_findings(self) -> tuple[Finding, ...]:
        """Findings of codes that check no gang invariant (schema, probes, queue names, platform settings)."""
        return tuple(f for f in self.findings if invariant_of(f.code) is None)


@dataclass
class PredictReport:
    files: int = 0
    predictions: list[Prediction] = field(default_factory=list)
    problems: list[Located] = field(default_factory=list)  # GANG000: what could not be read as objects
    unreadable: list[tuple[str, str]] = field(default_factory=list)  # (file, why): could not be read at all

    @property
    def exit_code(self) -> int:
        """1 when some input could not be read as objects (as lint's GANG000), else 0."""
        return 1 if self.problems else 0


def _verdict(invariant: Invariant, findings: Sequence[Finding]) -> Verdict:
    mine = [f for f in findings if f.code in invariant.codes]
    why = tuple(f"{f.code} {f.path}: {f.message}" for f in mine if not f.waived)
    return Verdict(invariant, tuple(sorted({f.code for f in mine if not f.waived})), why)


def _under(finding: Finding, at: FieldPath) -> bool:
    return bool(at) and finding.path.relative_to(at) is not None


def _predictions(obj: Any, file: str, line: int, prefix: FieldPath, run: Run, found: list[Finding]) -> list[Prediction]:
    embedded = embedded_contracts(obj, run)
    own = [f for f in found if not any(_under(f, at) for at, _ in embedded)]
    out = [Prediction(file, line, prefix, read(obj, run), tuple(own))]
    for at, contract in embedded:
        mine = [f for f in found if _under(f, at) and (f.kind, f.object_name) == (contract.kind, contract.name)]
        out.append(Prediction(file, line, prefix + at, contract, tuple(mine)))
    return out


def predict(
    paths: Sequence[str],
    ctx: CheckContext | None = None,
    stdin_text: str | None = None,
    namespace: str = DEFAULT_NAMESPACE,
) -> PredictReport:
    """The contracts of every object in ``paths`` (``-`` reads ``stdin_text``), judged with ``ctx``'s fleet."""
    loads = Loads()
    for source in stream(paths, stdin_text):
        firstpass.add(loads, source, True, namespace)
    ctx = replace(ctx or CheckContext(), objects=tuple(item.obj for item in loads.objects))
    fleet = ctx.fleet
    run = Run(ctx.objects, fleet, getattr(fleet, "operators", NO_PROFILE))  # the context's profile, once it has one
    report = PredictReport(loads.files, [], list(loads.problems), list(loads.unreadable))
    for item in loads.objects:
        found = engine.check_object(item.obj, ctx)
        report.predictions.extend(_predictions(item.obj, item.file, item.line, item.prefix or ROOT, run, found))
    return report
