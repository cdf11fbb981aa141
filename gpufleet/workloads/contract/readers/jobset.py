"""The JobSet controller's contract (``sigs.k8s.io/jobset v0.12.0``), and the JobSet reading the Trainer reuses.

Registered for ``jobset.x-k8s.io/JobSet``; :func:`lower` is also called by ``readers/trainer.py`` for the
JobSet a TrainJob's runtime stamps out (one owner of JobSet semantics). Each fact follows, at v0.12.0:

- pod sets: one per ``replicatedJobs[i]``, ``replicas`` child Jobs (default 1) × min(``parallelism``,
  ``completions``) pods each (``api/jobset/v1alpha2/jobset_types.go`` ``ReplicatedJob``; the count
  Kueue reads, kueue v0.19.2 ``jobs/jobset/jobset_controller.go`` ``podsCount``); a replicatedJob
  others wait on to ``Complete`` is an initializer, one whose Jobs run more completions than
  parallelism a sweep (:mod:`gpufleet.workloads.stages`);
- stages: ``dependsOn`` (``pkg/controllers/depends_on.go`` ``dependencyReachedStatus``: every named
  replicatedJob ``Ready`` or ``Complete``), ``startupPolicy.startupPolicyOrder: InOrder``
  (``startup_policy.go`` ``allReplicasStarted``: each after the previous one is Ready), and the
  exclusive-topology annotation (``pkg/webhooks/pod_webhook.go`` ``ValidateCreate``: a follower pod,
  completion index ≠ 0, is refused until its Job's leader pod has a node);
- no gang group of its own (no PodGroup in ``pkg/``): the unit is Kueue's Workload when the JobSet
  carries a queue label, a PodGroup the user names in the templates, else each pod alone;
- failure path: the pod ``restartPolicy`` (``pkg/webhooks/jobset_webhook.go`` ``Default``: ``OnFailure``
  when unset, so the kubelet restarts the container in place), the child Job's ``backoffLimit``
  (API default 6: the Job controller replaces the pod alone), then ``failurePolicy``
  (``pkg/controllers/failure_policy.go`` ``executeFailurePolicy``: no policy fails the JobSet on the
  first failed child Job; the first matching rule's action, else ``defaultFailurePolicyRuleAction``
  ``RestartJobSet``; ``RestartJob`` needs the ``RestartJob`` gate, ``InPlaceRestart`` the gate of that name);
- terminal: a finished JobSet deletes its active child Jobs (``jobset_controller.go`` ``deleteJobs``);
- success: ``successPolicy`` (webhook default ``{operator: All}``), ``All`` or ``Any`` of its targets.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads import stages
from gpufleet.workloads.contract import podsets
from gpufleet.workloads.contract.podsets import count, identity, pod_set, user_groups
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    After,
    Condition,
    Contract,
    FailureStep,
    Placement,
    PodSet,
    Provenance,
    RankFailure,
    Role,
    Scope,
    Success,
    Terminal,
)
from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.stages import IN_PLACE_RESTART
from gpufleet.workloads.types import SPEC, PodTemplate, WorkloadView, as_int, as_list, as_map, is_map

TAG = "jobset v0.12.0"
SOURCE = f"{TAG} pkg/controllers/jobset_controller.go"
EXCLUSIVE = "alpha.jobset.sigs.k8s.io/exclusive-topology"
JOB_BACKOFF_DEFAULT = 6  # batch/v1 Job's API default (kubernetes pkg/apis/batch/v1/defaults.go)
_WEBHOOK = f"{TAG} pkg/webhooks/jobset_webhook.go Default"
_FAILURE = f"{TAG} pkg/controllers/failure_policy.go executeFailurePolicy"
_RANK_FAILURE_REASONS = frozenset({"BackoffLimitExceeded", "PodFailurePolicy", "MaxFailedIndexesExceeded"})


@dataclass(frozen=True)
class Lowered:
    """What a JobSet spec makes of its pods, whoever owns it (a JobSet, a TrainJob's runtime)."""

    pod_sets: tuple[PodSet, ...]
    members: tuple[tuple[str, PodTemplate], ...]
    rank_failures: tuple[RankFailure, ...]
    terminal: Terminal
    success: Success
    placement: Placement
    notes: tuple[str, ...]


def lower(
    spec: Mapping[str, Any],
    base: FieldPath,
    templates: tuple[PodTemplate, ...],
    run: Run,
    *,
    owner: WorkloadView | None,
    annotations: Mapping[str, Any] | None = None,
    counts: Mapping[str, tuple[int, Provenance]] | None = None,
    roles: Mapping[str, Role] | None = None,
) -> Lowered:
    """The JobSet reading of ``spec`` (a JobSet's spec at ``base``), with the views' ``templates``.

    ``owner`` is the view of the object holding ``spec`` (the JobSet, the runtime): its initializers and
    sweeps are :mod:`gpufleet.workloads.stages`' (``initializer_roles``, ``sweep_roles``).

    ``counts`` replaces a replicatedJob's pod count by name (the Trainer's ``numNodes``); ``roles`` its role.
    """
    jobs_path = base.child("replicatedJobs")
    by_path = {t.path: t for t in templates}
    rjobs = [(i, r) for i, r in enumerate(as_list(spec.get("replicatedJobs"))) if is_map(r)]
    initializers = stages.initializer_roles(owner) if owner else frozenset()
    sweeps = stages.sweep_roles(owner) if owner else frozenset()
    exclusive_default = (annotations or {}).get(EXCLUSIVE)
    in_order = as_map(spec.get("startupPolicy")).get("startupPolicyOrder") == "InOrder"
    pod_sets: list[PodSet] = []
    members: list[tuple[str, PodTemplate]] = []
    failures: list[RankFailure] = []
    notes: list[str] = []
    exclusive_keys: list[str] = []
    previous: str | None = None
    for i, rjob in rjobs:
        at = jobs_path.index(i)
        template = by_path.get(at.child("template", "spec", "template"))
        if template is None:
            continue
        name = str(rjob.get("name") or "")
        job_spec = as_map(as_map(rjob.get("template")).get("spec"))
        role: Role = "initializer" if name in initializers else "sweep" if name in sweeps else "rank"
        role = (roles or {}).get(name, role)
        replicas = count(rjob.get("replicas"), 1)
        parallelism = count(job_spec.get("parallelism"), 1)
        completions = as_int(job_spec.get("completions"))
        per_job = min(parallelism, completions) if completions is not None and completions >= 0 else parallelism
        how, origin = (
            (replicas * per_job),
            Provenance(
                at.child("replicas"), derived="replicas × min(parallelism, completions) (jobset_types.go ReplicatedJob)"
            ),
        )
        if counts and name in counts:
            how, origin = counts[name]
            per_job = how // replicas if replicas else 0
        after = _stages(rjob, at, previous if in_order else None, base)
        job_annotations = as_map(as_map(as_map(rjob.get("template")).get("metadata")).get("annotations"))
        exclusive = job_annotations.get(EXCLUSIVE) or exclusive_default
        failure = _failure(name, job_spec, template, at, spec, base, run)
        if exclusive:
            exclusive_keys.append(str(exclusive))
        if exclusive and per_job > 1:
            leaders = replicas
            pod_sets.append(pod_set(template, name, role, leaders, origin, run.fleet, after))
            scheduled = After(
                (name,), "Scheduled", Provenance(derived=f"{TAG} pkg/webhooks/pod_webhook.go ValidateCreate")
            )
            followers = f"{name}.followers"
            pod_sets.append(pod_set(template, followers, role, how - leaders, origin, run.fleet, (*after, scheduled)))
            members.append((followers, template))
            failures.append(RankFailure(followers, failure))
        else:
            pod_sets.append(pod_set(template, name, role, how, origin, run.fleet, after))
        members.append((name, template))
        failures.append(RankFailure(name, failure))
        previous = name
    fp = as_map(spec.get("failurePolicy"))
    if any(r.get("action") in ("RestartJob", "RestartJobAndIgnoreMaxRestarts") for r in _rules(fp)):
        if "RestartJob" not in run.operators.get("jobset").feature_gates:
            notes.append("failurePolicy uses RestartJob: JobSet's webhook refuses it unless the RestartJob gate is on")
    if (
        fp.get("restartStrategy") == IN_PLACE_RESTART
        and IN_PLACE_RESTART not in run.operators.get("jobset").feature_gates
    ):
        notes.append("restartStrategy InPlaceRestart needs JobSet's InPlaceRestart gate (alpha, off by default)")
    return Lowered(
        tuple(pod_sets),
        tuple(members),
        tuple(failures),
        Terminal(
            True, Provenance(derived=f"{SOURCE} deleteJobs", note="a finished JobSet deletes its active child Jobs")
        ),
        _success(spec, base, [n for n, _ in members if not n.endswith(".followers")]),
        Placement(
            tuple(
                (n, t.spec.get("schedulerName") if isinstance(t.spec.get("schedulerName"), str) else None)
                for n, t in members
            ),
            exclusive_topology=exclusive_keys[0] if exclusive_keys else None,
            origin=Provenance(derived=f"{TAG} pkg/webhooks/pod_webhook.go patchPod")
            if exclusive_keys
            else Provenance(),
        ),
        tuple(notes),
    )


def _stages(rjob: Mapping[str, Any], at: FieldPath, previous: str | None, base: FieldPath) -> tuple[After, ...]:
    out: list[After] = []
    by_status: dict[str, list[str]] = {}
    for dep in as_list(rjob.get("dependsOn")):
        dep = as_map(dep)
        if dep.get("name") and dep.get("status") in ("Ready", "Complete"):
            by_status.setdefault(str(dep["status"]), []).append(str(dep["name"]))
    for status, names in by_status.items():
        condition: Condition = "Complete" if status == "Complete" else "Ready"
        origin = Provenance(
            at.child("dependsOn"), derived=f"{TAG} pkg/controllers/depends_on.go dependencyReachedStatus"
        )
        out.append(After(tuple(names), condition, origin))
    if previous is not None:
        origin = Provenance(
            base.child("startupPolicy", "startupPolicyOrder"),
            derived=f"{TAG} pkg/controllers/startup_policy.go allReplicasStarted",
        )
        out.append(After((previous,), "Ready", origin))
    return tuple(out)


def _rules(fp: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    return [as_map(r) for r in as_list(fp.get("rules")) if is_map(r)]


def _failure(
    name: str,
    job_spec: Mapping[str, Any],
    template: PodTemplate,
    at: FieldPath,
    spec: Mapping[str, Any],
    base: FieldPath,
    run: Run,
) -> tuple[FailureStep, ...]:
    """The layers that act on one failed pod of replicatedJob ``name``, in order."""
    steps: list[FailureStep] = []
    job_path = at.child("template", "spec")
    fp = as_map(spec.get("failurePolicy"))
    backoff = as_int(job_spec.get("backoffLimit"), JOB_BACKOFF_DEFAULT)
    backoff_origin = (
        Provenance(job_path.child("backoffLimit"))
        if "backoffLimit" in job_spec
        else Provenance(
            derived="kubernetes v1.37.2 pkg/apis/batch/v1/defaults.go SetDefaults_Job", note="backoffLimit 6"
        )
    )
    if fp.get("restartStrategy") == IN_PLACE_RESTART:
        restarts = as_int(fp.get("maxRestarts"), 0)
        origin = Provenance(
            base.child("failurePolicy", "restartStrategy"), derived=f"{TAG} pkg/controllers/in_place_restart.go"
        )
        return (FailureStep("operator", "whole", restarts, origin),)
    policy = template.spec.get("restartPolicy")
    if policy is None:
        policy, origin = "OnFailure", Provenance(derived=_WEBHOOK, note="pod restartPolicy OnFailure when unset")
    else:
        origin = Provenance(template.spec_path.child("restartPolicy"))
    if policy in ("OnFailure", "Always"):
        steps.append(FailureStep("kubelet", "inPlace", max(backoff or 0, 1), origin))
    if "backoffLimitPerIndex" in job_spec:
        per_index = as_int(job_spec.get("backoffLimitPerIndex"), 0) or 0
        if per_index > 0:
            steps.append(
                FailureStep("podController", "pod", per_index, Provenance(job_path.child("backoffLimitPerIndex")))
            )
    elif backoff is not None and backoff > 0:  # a Failed pod (Never; evicted under OnFailure) is replaced alone
        steps.append(FailureStep("podController", "pod", backoff, backoff_origin))
    steps.append(_operator_step(name, job_spec, fp, base))
    return tuple(steps)


def _operator_step(name: str, job_spec: Mapping[str, Any], fp: Mapping[str, Any], base: FieldPath) -> FailureStep:
    """What ``failurePolicy`` does once a child Job of ``name`` fails (``executeFailurePolicy``)."""
    fp_path = base.child("failurePolicy")
    if not fp:
        return FailureStep(
            "operator",
            "stop",
            None,
            Provenance(derived=_FAILURE, note="no failurePolicy: the first failed child Job fails the JobSet"),
        )
    max_restarts = as_int(fp.get("maxRestarts"), 0) or 0
    for j, rule in enumerate(_rules(fp)):
        targets = [str(t) for t in as_list(rule.get("targetReplicatedJobs"))]
        reasons = {str(r) for r in as_list(rule.get("onJobFailureReasons"))}
        if targets and name not in targets or reasons and not reasons & _RANK_FAILURE_REASONS:
            continue
        if as_list(rule.get("onJobFailureMessagePatterns")):
            continue  # a message pattern matches only some failures: the next rule (or the default) decides the rest
        return _action(
            str(rule.get("action") or ""),
            max_restarts,
            Provenance(fp_path.child("rules").index(j).child("action"), derived=_FAILURE),
        )
    origin = Provenance(
        fp_path,
        derived=f"{TAG} pkg/controllers/failure_policy.go defaultFailurePolicyRuleAction",
        note="no rule matches: RestartJobSet",
    )
    return _action("RestartJobSet", max_restarts, origin)


def _action(action: str, max_restarts: int, origin: Provenance) -> FailureStep:
    scope: Scope
    bound: int | None
    if action == "FailJobSet":
        scope, bound = "stop", None
    elif action == "RestartJobSetAndIgnoreMaxRestarts":
        scope, bound = "whole", None
    elif action == "RestartJob":
        scope, bound = "childJob", max_restarts
    elif action == "RestartJobAndIgnoreMaxRestarts":
        scope, bound = "childJob", None
    else:  # RestartJobSet
        scope, bound = ("whole", max_restarts) if max_restarts > 0 else ("stop", None)
    return FailureStep("operator", scope, bound, origin)


def _success(spec: Mapping[str, Any], base: FieldPath, names: list[str]) -> Success:
    policy = as_map(spec.get("successPolicy"))
    operator = policy.get("operator") or "All"
    targets = tuple(str(t) for t in as_list(policy.get("targetReplicatedJobs"))) or tuple(names)
    origin = (
        Provenance(base.child("successPolicy"))
        if policy
        else Provenance(derived=_WEBHOOK, note="successPolicy {operator: All}")
    )
    criterion = (
        "any child Job of the targets succeeds" if operator == "Any" else "every child Job of the targets succeeds"
    )
    return Success(criterion, targets, None, origin)


@reader("jobset.x-k8s.io", "JobSet", source=SOURCE)
def read_jobset(obj: Mapping[str, Any], run: Run) -> Contract:
    """The contract of a JobSet: its lowering, admitted whole by Kueue when queue-labelled."""
    view = build_view(obj)
    meta = as_map(obj.get("metadata"))
    lowered = lower(
        as_map(obj.get("spec")),
        SPEC,
        view.templates if view else (),
        run,
        owner=view,
        annotations=as_map(meta.get("annotations")),
    )
    groups = user_groups(
        lowered.members, run.objects, meta.get("namespace") if isinstance(meta.get("namespace"), str) else None
    )
    total = sum(p.count for p in lowered.pod_sets)
    admission = podsets.admission(
        obj,
        groups,
        total,
        "kueue v0.19.2 pkg/controller/jobs/jobset/jobset_controller.go PodSets",
        "JobSet creates no gang group of its own",
    )
    return Contract(
        **identity(obj),
        reader=SOURCE,
        pod_sets=lowered.pod_sets,
        groups=groups,
        admission=admission,
        rank_failures=lowered.rank_failures,
        terminal=lowered.terminal,
        success=lowered.success,
        placement=lowered.placement,
        notes=lowered.notes,
    )
