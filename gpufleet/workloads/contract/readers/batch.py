"""Reader of the batch/v1 Job and CronJob: the Kubernetes Job and CronJob controllers at v1.37.2.

Follows ``kubernetes v1.37.2``:

- ``pkg/apis/batch/v1/defaults.go`` ``SetDefaults_Job``: ``parallelism`` and ``completions`` 1 when
  both are unset, ``backoffLimit`` 6 (MaxInt32 with ``backoffLimitPerIndex``);
- ``pkg/controller/job/job_controller.go`` ``manageJob`` (min(parallelism, remaining completions)
  pods at once: completions above parallelism is a sweep, each index retried alone),
  ``deleteActivePods`` (a failed Job deletes its running pods), ``pastBackoffLimitOnFailure``
  (container restarts under ``OnFailure`` count toward ``backoffLimit``);
- ``pkg/controller/job/pod_failure_policy.go`` ``matchPodFailurePolicy`` (rules in order; ``FailJob``
  ends the Job at the first matching failure) and ``success_policy.go`` ``matchSuccessPolicy``;
- ``pkg/controller/job/job_scheduling_manager.go`` ``getManagementMode``, ``syncGangMinCount`` (the
  1.37 ``spec.scheduling`` gang, read by :func:`gpufleet.workloads.native.job_gang`);
- ``pkg/controller/cronjob/utils.go`` ``getJobFromTemplate2`` (a CronJob's Job is its
  ``jobTemplate``, read here as a Job with its paths under ``spec.jobTemplate``).

Kueue (``kueue v0.19.2 pkg/controller/jobs/job/job_controller.go`` ``PodSets``, ``minPodsCount``)
admits a Job with a queue label whole, or partially down to ``kueue.x-k8s.io/job-min-parallelism``.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads import build_view, created_job
from gpufleet.workloads.contract import common
from gpufleet.workloads.contract.gpus import pod_gpus
from gpufleet.workloads.contract.membership import template_group, volcano_owner_group
from gpufleet.workloads.contract.paths import moved
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    Admission,
    Contract,
    FailureStep,
    GangGroup,
    PodSet,
    Provenance,
    RankFailure,
    Role,
    Success,
    Terminal,
)
from gpufleet.workloads.native import job_gang
from gpufleet.workloads.pods import effective_scheduler
from gpufleet.workloads.stages import is_sweep_job
from gpufleet.workloads.types import SPEC, WorkloadView, annotation_path, as_int, as_list, as_map, is_map

TAG = "kubernetes v1.37.2"
SOURCE = f"{TAG} pkg/controller/job/job_controller.go"
DEFAULTS = f"{TAG} pkg/apis/batch/v1/defaults.go SetDefaults_Job"
POD_FAILURE = f"{TAG} pkg/controller/job/pod_failure_policy.go matchPodFailurePolicy"
GANG_MIN = f"{TAG} pkg/controller/job/job_scheduling_manager.go syncGangMinCount"
MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"
ELASTIC_JOB = "kueue.x-k8s.io/elastic-job"
KUEUE_PARTIAL = "kueue v0.19.2 pkg/controller/jobs/job/job_controller.go minPodsCount"
MAX_INT32 = 2147483647
MAIN = "main"


def _count(spec: Mapping[str, Any]) -> tuple[int, Provenance]:
    parallelism, completions = as_int(spec.get("parallelism")), as_int(spec.get("completions"))
    if parallelism is None:
        parallelism = 1
        origin = Provenance(derived=DEFAULTS, note="parallelism defaults to 1")
    else:
        origin = Provenance(SPEC.child("parallelism"))
    if completions is not None and 0 <= completions < parallelism:
        return completions, Provenance(SPEC.child("completions"))
    return max(parallelism, 0), origin


def _backoff(spec: Mapping[str, Any]) -> tuple[int, Provenance]:
    written = as_int(spec.get("backoffLimit"))
    if written is not None:
        return written, Provenance(SPEC.child("backoffLimit"))
    if "backoffLimitPerIndex" in spec:
        return MAX_INT32, Provenance(
            derived=DEFAULTS, note="backoffLimit defaults to MaxInt32 with backoffLimitPerIndex"
        )
    return 6, Provenance(derived=DEFAULTS, note="backoffLimit defaults to 6")


def _fails_job_at_once(spec: Mapping[str, Any]) -> FieldPath | None:
    """The path of a first podFailurePolicy rule that fails the Job on every non-zero exit, or None."""
    rules = [r for r in as_list(as_map(spec.get("podFailurePolicy")).get("rules")) if is_map(r)]
    if not rules or rules[0].get("action") != "FailJob":
        return None
    codes = as_map(rules[0].get("onExitCodes"))
    values = [as_int(v) for v in as_list(codes.get("values"))]
    if codes.get("operator") == "NotIn" and set(values) <= {0} and not codes.get("containerName"):
        return SPEC.child("podFailurePolicy", "rules").index(0)
    return None


def _failure(spec: Mapping[str, Any], pod_spec: Mapping[str, Any], spec_path: FieldPath) -> tuple[FailureStep, ...]:
    policy, policy_from = common.restart_policy(pod_spec, spec_path, "Never", common.POD_DEFAULTS)
    backoff, backoff_from = _backoff(spec)
    stop = FailureStep("podController", "stop", 0, backoff_from)
    steps: list[FailureStep] = []
    kubelet = common.kubelet_step(policy, policy_from, backoff)
    if kubelet is not None:
        steps.append(kubelet)
    fail_job = _fails_job_at_once(spec)
    if fail_job is not None:
        return (*steps, FailureStep("podController", "stop", 0, Provenance(fail_job, POD_FAILURE)))
    per_index = as_int(spec.get("backoffLimitPerIndex"))
    if per_index is not None:
        origin = Provenance(SPEC.child("backoffLimitPerIndex"))
        steps.append(FailureStep("podController", "pod", per_index, origin))
        steps.append(
            FailureStep(
                "podController",
                "notReplaced",
                None,
                Provenance(SPEC.child("maxFailedIndexes"), note="the index fails, the others run on"),
            )
        )
        return tuple(steps)
    if backoff > 0:
        steps.append(FailureStep("podController", "pod", backoff, backoff_from))
    steps.append(stop)
    return tuple(steps)


def _success(spec: Mapping[str, Any], count: int) -> Success:
    rules = as_list(as_map(spec.get("successPolicy")).get("rules"))
    if rules:
        return Success("successPolicy: the first matching rule", (MAIN,), None, Provenance(SPEC.child("successPolicy")))
    completions = as_int(spec.get("completions"))
    if completions is None and "parallelism" in spec:
        return Success("any pod succeeds and every pod ends", (MAIN,), 1, Provenance(derived=SOURCE))
    origin = (
        Provenance(SPEC.child("completions"))
        if completions is not None
        else Provenance(derived=DEFAULTS, note="completions defaults to 1")
    )
    if spec.get("completionMode") == "Indexed":
        return Success("every index succeeds", (MAIN,), completions or 1, origin)
    return Success("completions pods succeed", (MAIN,), completions or 1, origin)


def _groups(
    view: WorkloadView, run: Run, pod_spec: Mapping[str, Any], count_name: str
) -> tuple[list[GangGroup], list[str]]:
    groups, notes = [], []
    template = view.templates[0]
    own = template_group(
        template.labels,
        template.annotations,
        pod_spec,
        template.metadata_path,
        (count_name,),
        run.objects,
        view.namespace,
    )
    if own is not None:
        groups.append(own)
    minor = run.fleet.kubernetes_minor if run.fleet is not None else None
    gang = job_gang(view.obj, minor or 37)
    if gang is not None:
        origin = Provenance(gang.path) if gang.path != SPEC.child("parallelism") else Provenance(gang.path, GANG_MIN)
        if run.fleet is not None and run.fleet.native_jobs:
            groups.append(
                GangGroup(view.name, "native", "jobController", "workload", (count_name,), gang.min_count, origin)
            )
        elif "scheduling" in as_map(view.obj.get("spec")):
            notes.append(
                "spec.scheduling asks for a gang: only a cluster whose Job controller runs WorkloadWithJob "
                "(and GenericWorkload) makes one; say so in the fleet model"
            )
    if not groups:
        volcano = volcano_owner_group(effective_scheduler(view, template), (count_name,), None)
        if volcano is not None:
            groups.append(volcano)
    return groups, notes


def _admission(view: WorkloadView, run: Run, count: int, groups: list[GangGroup]) -> Admission:
    route = common.kueue_route(view, run)
    partial = None
    written = as_int(view.annotations.get(MIN_PARALLELISM))
    if route is not None and written is not None:
        partial = (written, Provenance(annotation_path(MIN_PARALLELISM), KUEUE_PARTIAL))
    if route is not None and str(view.annotations.get(ELASTIC_JOB, "")).lower() == "true":
        return Admission("elastic", "kueue", None, count, Provenance(annotation_path(ELASTIC_JOB)))
    return common.admission(view, count, groups, route, partial)


def read_job(obj: Mapping[str, Any], run: Run) -> Contract:
    view = build_view(obj)
    assert view is not None
    spec = as_map(obj.get("spec"))
    template = view.templates[0]
    count, count_from = _count(spec)
    role: Role = "sweep" if is_sweep_job(spec) else "rank"
    gpus, names, gpu_notes = pod_gpus(template.spec, run.objects, run.fleet, view.namespace)
    pod_set = PodSet(MAIN, role, count, count_from, template.path, gpus, names)
    groups, notes = _groups(view, run, template.spec, MAIN)
    if role == "sweep":
        notes.append("completions above parallelism: a sweep, its indexes run a few at a time and retry alone")
    return common.header(
        obj,
        SOURCE,
        pod_sets=(pod_set,),
        groups=tuple(groups),
        admission=_admission(view, run, count, groups),
        rank_failures=(RankFailure(MAIN, _failure(spec, template.spec, template.spec_path)),),
        terminal=Terminal(True, Provenance(derived=f"{SOURCE} deleteActivePods")),
        success=_success(spec, count),
        placement=common.placement([(MAIN, effective_scheduler(view, template))], [template.template]),
        notes=(*notes, *gpu_notes),
    )


@reader("batch", "Job", source=SOURCE)
def job(obj: Mapping[str, Any], run: Run) -> Contract:
    return read_job(obj, run)


_JOB_TEMPLATE = SPEC.child("jobTemplate")


def _under_job_template(path: FieldPath) -> FieldPath:
    """A path of the Job (``spec.x``, ``metadata.x``) as the CronJob spells it (``spec.jobTemplate.spec.x``)."""
    return _JOB_TEMPLATE + path if path.segments[:1] in (("spec",), ("metadata",)) else path


@reader("batch", "CronJob", source=f"{TAG} pkg/controller/cronjob/utils.go getJobFromTemplate2")
def cron_job(obj: Mapping[str, Any], run: Run) -> Contract:
    inner = moved(read_job(created_job(obj), run), _under_job_template)
    outer = common.header(obj, f"{TAG} pkg/controller/cronjob/utils.go getJobFromTemplate2, then {SOURCE}")
    name = outer.name or "unnamed"
    return replace(
        inner,
        api_version=outer.api_version,
        kind=outer.kind,
        name=outer.name,
        namespace=outer.namespace,
        reader=outer.reader,
        notes=(f"each run of the schedule creates one Job from spec.jobTemplate ({name}-<time>)", *inner.notes),
    )


__all__ = ["cron_job", "job", "read_job"]
