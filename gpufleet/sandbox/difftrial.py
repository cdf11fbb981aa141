"""The differential tier's trials: lint a case against the fleet, try it on the shared sandbox, judge the two.

Called by tests/e2e/test_difftier_e2e.py and bench/difftier_bench.py with one running
sandbox of the fleet (started without the gang-admission controller, so the engines
alone are judged). Each case is linted with the rule engine as ``gpufleet lint --fleet``
does (every rule, the model's fleet context) and tried with
:func:`gpufleet.sandbox.trial.try_manifests` (rank 0 failed once every rank runs), then
judged by :func:`gpufleet.difftier.compare.judge`. A case whose workload the sandbox
runs no controller for (JobSet, Kubeflow, Ray...) is skipped with that reason; so is a case
a rule cannot judge in the lint context (:func:`blind_reason`: a schema rule without its
kind's CRD schema): a fixture written for that rule, or a miss only such a rule foretells. Manifests
without a namespace go to ``scratch`` (no team owns it); namespaces a case names that the
sandbox lacks are created once and left for the next cases (each trial deletes its own
objects and waits for their pods to go, so every case starts on free nodes).
"""

from __future__ import annotations

import copy
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from gpufleet.difftier.cases import Case
from gpufleet.difftier.compare import Disagreement, Judgement, Observation, judge
from gpufleet.difftier.generate import UNOWNED
from gpufleet.difftier.known import Known, explain
from gpufleet.difftier.tally import Tally
from gpufleet.rules import engine, gangs, registry
from gpufleet.rules.api import CheckContext
from gpufleet.sandbox.kube import Kube
from gpufleet.sandbox.trial import TrialOptions, TrialResult, try_manifests
from gpufleet.settings import load_settings
from gpufleet.workloads import outcomes as O

RUNNABLE = frozenset(
    {
        ("batch/v1", "Job"),
        ("v1", "Pod"),
        ("batch.volcano.sh/v1alpha1", "Job"),
        ("scheduling.volcano.sh/v1beta1", "PodGroup"),
        ("v1", "ConfigMap"),
        ("v1", "Service"),
        ("v1", "Secret"),
    }
)
"""What the sandbox runs a controller for (or needs none): the rest would sit unreconciled and look like a hang."""
OPTIONS = TrialOptions(timeout=60, settle=6, failure_settle=13, fail_rank=0, namespace=UNOWNED)
"""Six quiet seconds end a start that hangs (the schedulers retry every second or so); thirteen after the failed
rank, past the Job controller's first 10 s backoff before it replaces a pod."""


@dataclass
class Outcome:
    case: Case
    docs: tuple[Mapping[str, Any], ...] = ()
    """The case's manifests as submitted (:func:`placed`)."""
    fired: tuple[str, ...] = ()
    applicable: tuple[str, ...] = ()
    trial: TrialResult | None = None
    judgement: Judgement | None = None
    skipped: str | None = None
    seconds: float = 0.0
    notes: list[str] = field(default_factory=list)

    gang: bool = True

    @property
    def observation(self) -> Observation | None:
        if self.trial is None:
            return None
        if self.trial.failed_pod is not None:  # a rank is failed only once every rank ran
            return Observation(O.RAN_WHOLE, self.trial.outcome, self.gang)
        return Observation(self.trial.outcome, gang=self.gang)


def skip_reason(case: Case) -> str | None:
    for doc in case.docs:
        if (doc.get("apiVersion"), doc.get("kind")) not in RUNNABLE:
            return f"no {doc.get('kind')} ({doc.get('apiVersion')}) controller in the sandbox"
    return None


def placed(case: Case) -> tuple[dict[str, Any], ...]:
    """The case's manifests as submitted: each in its namespace, ``scratch`` when it names none."""
    out = []
    for doc in case.docs:
        body = copy.deepcopy(dict(doc))
        meta = body.setdefault("metadata", {})
        meta.setdefault("namespace", UNOWNED)
        out.append(body)
    return tuple(out)


def lint(docs: tuple[Mapping[str, Any], ...], ctx: CheckContext) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(codes with an unwaived finding, codes of the rules that read one of the documents and can judge it)."""
    findings = engine.check_objects(list(docs), ctx)
    fired = tuple(sorted({f.code for f in findings if not f.waived}))
    applicable = tuple(
        r.code for r in registry.all_rules() if any(r.applies_to(d) and r.can_judge(d, ctx) for d in docs)
    )
    return fired, applicable


def blind(docs: Iterable[Mapping[str, Any]], ctx: CheckContext) -> dict[str, str]:
    """Each rule that predicts an engine outcome, reads one of ``docs`` and cannot judge it in ``ctx``, with
    what it lacks (its kind's CRD schema, the fleet context): its silence there is no verdict."""
    out: dict[str, str] = {}
    for rule in registry.all_rules():
        for doc in docs:
            if rule.predicts and rule.applies_to(doc) and not rule.can_judge(doc, ctx):
                lacks = "the fleet context" if rule.needs_fleet and ctx.fleet is None else "its CRD schema"
                out.setdefault(rule.code, f"{doc.get('kind')} ({doc.get('apiVersion')}) without {lacks}")
    return out


def target(case: Case) -> str | None:
    """The rule a fixture case was written for (``fixture:GANG601/disallowed.yaml#0``: GANG601), else None."""
    if not case.id.startswith("fixture:"):
        return None
    return case.id.split(":", 1)[1].split("/", 1)[0]


SCHEMA_HINT = (
    "the schema rules run only with the engines' CRD schemas (gpufleet lint --crds DIR; the tests use ../shared/crds)"
)


def blind_reason(case: Case, ctx: CheckContext, judgement: Judgement | None = None) -> str | None:
    """Why ``case`` cannot be judged in ``ctx``, else None: before its trial, the fixture's own rule cannot judge
    it; after (``judgement``), every miss is an outcome only rules that cannot judge it foretell."""
    lacking = blind(case.docs, ctx)
    if not lacking:
        return None
    if judgement is None:
        code = target(case)
        if code not in lacking:
            return None
        return f"{code} cannot judge this case here: {lacking[code]}; {SCHEMA_HINT}"
    predicts = predictions()
    misses = [d for d in judgement.disagreements if d.rule is None]
    if not misses or len(misses) != len(judgement.disagreements):
        return None
    if not all(any(d.outcome in predicts[c] for c in lacking) for d in misses):
        return None
    named = ", ".join(f"{c} ({why})" for c, why in sorted(lacking.items()))
    return f"the engines' {misses[0].outcome} is foretold only by rules that cannot judge this case here: {named}; {SCHEMA_HINT}"


def is_gang(docs: tuple[Mapping[str, Any], ...], ctx: CheckContext) -> bool:
    """Whether the case's workload (its last document) is a gang, as the rules define one."""
    run = replace(ctx, objects=tuple(docs))
    return gangs.is_gang(run.run.view(docs[-1]), run)


def lint_context(model: Path, crds: Path | None) -> CheckContext:
    """``gpufleet lint --fleet MODEL [--crds CRDS]``'s context: the schema rules check the CRD schemas
    gpufleet carries, with ``CRDS`` (``../shared/crds``, when present) on top."""
    return load_settings(model=str(model), crds=str(crds) if crds is not None and crds.is_dir() else None).context()


def predictions() -> dict[str, frozenset[str]]:
    return {r.code: r.predicts or frozenset() for r in registry.all_rules()}


class Runner:
    """Cases through one sandbox (``kube``) with one lint context (``ctx``, from the same model)."""

    def __init__(self, kube: Kube, ctx: CheckContext, options: TrialOptions = OPTIONS) -> None:
        self.kube, self.ctx, self.options = kube, ctx, options
        self.spaces: set[str] = set()
        self.predicts = predictions()
        self.tally = Tally()
        """Every judged case's verdicts, by group (``run``'s ``group``)."""
        self.seconds = 0.0
        """Time spent in judged cases (lint, trial, clean-up), for cases per minute."""

    def _namespaces(self, docs: tuple[Mapping[str, Any], ...]) -> None:
        for ns in {d["metadata"]["namespace"] for d in docs} - self.spaces:
            if self.kube.get("v1", "Namespace", ns) is None:
                self.kube.create({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
            self.spaces.add(ns)

    def run(self, case: Case, group: str | None = None) -> Outcome:
        """Lint, try and judge ``case``; its verdicts go to :attr:`tally` under ``group`` (default: its seed's,
        or ``cases``)."""
        start = time.monotonic()
        out = Outcome(case)
        out.skipped = skip_reason(case) or blind_reason(case, self.ctx)
        if out.skipped:
            return out
        docs = out.docs = placed(case)
        out.fired, out.applicable = lint(docs, self.ctx)
        out.gang = is_gang(docs, self.ctx)
        self._namespaces(docs)
        out.trial = try_manifests(self.kube, list(docs), replace(self.options))
        seen = out.observation
        if seen is None:
            raise AssertionError(f"{case}: a trial ran and left no observation")
        out.judgement = judge(out.fired, out.applicable, self.predicts, seen)
        out.seconds = time.monotonic() - start
        out.skipped = blind_reason(case, self.ctx, out.judgement)
        if out.skipped:
            return out
        self.tally.add(group or (f"seed {case.seed}" if case.seed is not None else "cases"), out.judgement)
        self.seconds += out.seconds
        return out

    def disagreements(self, out: Outcome) -> list[tuple[Disagreement, Known | None]]:
        """Each disagreement of the case with the known-disagreements entry that lists it (None: not listed)."""
        return (
            [(d, explain(out.case.id, d, out.docs, self.ctx.fleet)) for d in out.judgement.disagreements]
            if out.judgement
            else []
        )
