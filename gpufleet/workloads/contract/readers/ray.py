"""KubeRay's contract for RayCluster and RayJob (``github.com/ray-project/kuberay/ray-operator v1.5.0``).

Registered for ``ray.io/RayCluster`` and ``ray.io/RayJob`` (RayService is not read by the workload views,
so it has no reader yet: it is reported as unknown). Each fact follows, at v1.5.0:

- pod sets: the head (1) and each ``workerGroupSpecs[i]``: clamp(``replicas``, ``minReplicas``,
  ``maxReplicas``) × ``numOfHosts``, 0 when the group is ``suspend``-ed, ``minReplicas`` when
  ``replicas`` is absent (``controllers/ray/utils/util.go`` ``GetWorkerGroupDesiredReplicas``; CRD
  defaults min 0, max 2147483647, hosts 1, ``apis/ray/v1/raycluster_types.go``); a RayJob's cluster
  is ``spec.rayClusterSpec`` (none with ``clusterSelector``), its submitter a Job made in
  ``K8sJobMode`` (the default) once the cluster is ready (``controllers/ray/rayjob_controller.go``);
- gang group: only under the operator's ``batchScheduler``. ``volcano``: PodGroup ``ray-<name>-pg``,
  ``minMember`` = 1 + the desired workers, or 1 + Σ ``minReplicas`` × ``numOfHosts`` with
  ``enableInTreeAutoscaling``; a RayJob's PodGroup leaves the submitter out "to avoid a startup deadlock"
  (``batchscheduler/volcano/volcano_scheduler.go`` ``calculatePodGroupParams``, ``handleRayJob``), queue
  from the ``volcano.sh/queue-name`` label. ``scheduler-plugins``: a PodGroup named after the cluster only
  when it carries the ``ray.io/gang-scheduling-enabled`` label, ``minMember`` = 1 + the desired workers
  even under autoscaling (``batchscheduler/scheduler-plugins/scheduler_plugins.go`` ``createPodGroup``,
  ``isGangSchedulingEnabled``); either way the operator sets every pod's ``schedulerName``
  (``AddMetadataToPod``);
- failure: the kubelet first (pod ``restartPolicy``, API default ``Always``), then a Failed pod, head or
  worker, is deleted and recreated alone (``raycluster_controller.go`` ``shouldDeletePod``); with
  ``numOfHosts`` > 1 and the ``RayMultiHostIndexing`` gate, the whole multi-host replica
  (``reconcileMultiHostWorkerGroup``); the submitter Job's ``backoffLimit`` defaults to 2;
- terminal: a RayJob keeps its cluster after the job ends unless ``shutdownAfterJobFinishes``;
- success: a RayCluster runs until deleted; a RayJob ends with its Ray job's status (the head's dashboard).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes import vocab
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.workloads.contract import podsets
from gpufleet.workloads.contract.podsets import count, gpus_per_pod, identity, pod_set
from gpufleet.workloads.contract.registry import Run, reader
from gpufleet.workloads.contract.types import (
    Admission,
    After,
    Contract,
    FailureStep,
    GangGroup,
    Placement,
    PodSet,
    Provenance,
    RankFailure,
    Success,
    Terminal,
)
from gpufleet.workloads.kinds import build_view
from gpufleet.workloads.types import SPEC, as_int, as_list, as_map, is_map, label_path

TAG = "kuberay v1.5.0"
SOURCE = f"{TAG} ray-operator/controllers/ray/raycluster_controller.go"
MAX_REPLICAS = 2147483647
QUEUE_LABEL = "volcano.sh/queue-name"  # volcano_scheduler.go QueueNameLabelKey
PLUGINS_SCHEDULER = "scheduler-plugins-scheduler"  # scheduler_plugins.go schedulerInstanceName
_DESIRED = f"{TAG} ray-operator/controllers/ray/utils/util.go GetWorkerGroupDesiredReplicas"
_VOLCANO = f"{TAG} ray-operator/controllers/ray/batchscheduler/volcano/volcano_scheduler.go calculatePodGroupParams"
_PLUGINS = f"{TAG} ray-operator/controllers/ray/batchscheduler/scheduler-plugins/scheduler_plugins.go"


def desired(worker: Mapping[str, Any]) -> int:
    """Pods of one worker group (``GetWorkerGroupDesiredReplicas``)."""
    if worker.get("suspend") is True:
        return 0
    low, high = count(worker.get("minReplicas"), 0), count(worker.get("maxReplicas"), MAX_REPLICAS)
    replicas = as_int(worker.get("replicas"))
    if low > high:
        pods = high
    elif replicas is None or replicas < low:
        pods = low
    else:
        pods = min(replicas, high)
    return pods * max(count(worker.get("numOfHosts"), 1), 1)


def _cluster(
    obj: Mapping[str, Any], spec: Mapping[str, Any], at: FieldPath, run: Run
) -> tuple[list[PodSet], list[RankFailure], int]:
    """The cluster's pod sets, their failure paths, and the autoscaling PodGroup minimum's workers."""
    view = build_view(obj)
    templates = {t.path: t for t in (view.templates if view else ())}
    multi_host = "RayMultiHostIndexing" in run.operators.get("kuberay").feature_gates
    pod_sets, failures, minimum = [], [], 0
    head = templates.get(at.child("headGroupSpec", "template"))
    if head is not None:
        pod_sets.append(pod_set(head, "head", "rank", 1, Provenance(derived=f"{TAG} one head pod"), run.fleet))
        failures.append(RankFailure("head", _steps(head.spec, head.spec_path, False)))
    for i, worker in enumerate(as_list(spec.get("workerGroupSpecs"))):
        template = templates.get(at.child("workerGroupSpecs").index(i).child("template"))
        if not is_map(worker) or template is None:
            continue
        name = str(worker.get("groupName") or f"workers-{i}")
        origin = Provenance(at.child("workerGroupSpecs").index(i).child("replicas"), derived=_DESIRED)
        pod_sets.append(pod_set(template, name, "rank", desired(worker), origin, run.fleet))
        hosts = max(count(worker.get("numOfHosts"), 1), 1)
        minimum += count(worker.get("minReplicas"), 0) * hosts if worker.get("suspend") is not True else 0
        failures.append(RankFailure(name, _steps(template.spec, template.spec_path, multi_host and hosts > 1)))
    return pod_sets, failures, minimum


def _steps(spec: Mapping[str, Any], spec_path: FieldPath, whole_replica: bool) -> tuple[FailureStep, ...]:
    steps = []
    policy = spec.get("restartPolicy") or "Always"
    if policy in ("Always", "OnFailure"):
        origin = (
            Provenance(spec_path.child("restartPolicy"))
            if "restartPolicy" in spec
            else Provenance(
                derived="kubernetes v1.37.2 pkg/apis/core/v1/defaults.go SetDefaults_PodSpec",
                note="restartPolicy Always",
            )
        )
        steps.append(FailureStep("kubelet", "inPlace", None, origin))
    if whole_replica:
        steps.append(
            FailureStep("operator", "group", None, Provenance(derived=f"{SOURCE} reconcileMultiHostWorkerGroup"))
        )
    else:
        steps.append(FailureStep("operator", "pod", None, Provenance(derived=f"{SOURCE} shouldDeletePod")))
    return tuple(steps)


def _read(obj: Mapping[str, Any], run: Run) -> Contract:
    spec, meta = as_map(obj.get("spec")), as_map(obj.get("metadata"))
    labels = as_map(meta.get("labels"))
    job = obj.get("kind") == "RayJob"
    cluster, at = (as_map(spec.get("rayClusterSpec")), SPEC.child("rayClusterSpec")) if job else (spec, SPEC)
    notes: list[str] = []
    if job and spec.get("clusterSelector"):
        cluster = {}
        notes.append("clusterSelector: the job runs on an existing RayCluster, whose contract is its own")
    pod_sets, failures, min_workers = _cluster(obj, cluster, at, run)
    workers = sum(p.count for p in pod_sets if p.name != "head")
    autoscaling = cluster.get("enableInTreeAutoscaling") is True
    if job and (spec.get("submissionMode") or "K8sJobMode") == "K8sJobMode" and pod_sets:
        pod_sets.append(_submitter(spec, run))
        failures.append(
            RankFailure(
                "submitter",
                (
                    FailureStep(
                        "podController",
                        "pod",
                        _submitter_backoff(spec),
                        Provenance(
                            derived=f"{TAG} ray-operator/controllers/ray/rayjob_controller.go",
                            note="submitter Job backoffLimit 2",
                        ),
                    ),
                ),
            )
        )
    groups, scheduler = _groups(obj, labels, workers, min_workers, autoscaling, run, bool(pod_sets))
    total = sum(p.count for p in pod_sets)
    if groups and groups[0].backend == "volcano" and autoscaling and not labels.get(vocab.QUEUE_LABEL):
        admission = Admission("elastic", groups[0].backend, groups[0].minimum, None, groups[0].minimum_from)
    else:
        admission = podsets.admission(
            obj,
            groups,
            total,
            "kueue v0.19.2 pkg/controller/jobs/raycluster, rayjob PodSets",
            "no batchScheduler: KubeRay makes no PodGroup",
        )
    if job:
        keep = spec.get("shutdownAfterJobFinishes") is not True
        terminal = Terminal(
            not keep,
            Provenance(
                SPEC.child("shutdownAfterJobFinishes"),
                derived=f"{TAG} rayjob_controller.go",
                note="the cluster outlives the job unless shutdownAfterJobFinishes",
            ),
            SPEC.child("shutdownAfterJobFinishes") if keep else None,
            True if keep else None,
        )
        success = Success(
            "the Ray job succeeds (status read from the head's dashboard)",
            ("head",),
            origin=Provenance(derived=f"{TAG} rayjob_controller.go"),
        )
    else:
        terminal = Terminal(
            True, Provenance(derived=SOURCE, note="a RayCluster never fails as a whole: failed pods are replaced")
        )
        success = Success("none: a RayCluster runs until it is deleted", origin=Provenance(derived=SOURCE))
    schedulers = tuple((p.name, scheduler) for p in pod_sets)
    return Contract(
        **identity(obj),
        reader=SOURCE,
        pod_sets=tuple(pod_sets),
        groups=groups,
        admission=admission,
        rank_failures=tuple(failures),
        terminal=terminal,
        success=success,
        placement=Placement(
            schedulers,
            origin=Provenance(derived=f"{TAG} batchscheduler AddMetadataToChildResource")
            if scheduler
            else Provenance(),
        ),
        notes=tuple(notes),
    )


def _submitter(spec: Mapping[str, Any], run: Run) -> PodSet:
    template = as_map(spec.get("submitterPodTemplate"))
    path = SPEC.child("submitterPodTemplate") if template else None
    gpus, names = gpus_per_pod(as_map(template.get("spec")), run.fleet)
    after = After(
        ("head",),
        "ClusterReady",
        Provenance(
            derived=f"{TAG} ray-operator/controllers/ray/rayjob_controller.go",
            note="K8sJobMode submitter once the cluster is ready",
        ),
    )
    origin = Provenance(
        SPEC.child("submissionMode"), derived=f"{TAG} rayjob_controller.go", note="one submitter Job (K8sJobMode)"
    )
    return PodSet("submitter", "submitter", 1, origin, path, gpus, names, (after,))


def _submitter_backoff(spec: Mapping[str, Any]) -> int:
    return count(as_map(as_map(spec.get("submitterConfig"))).get("backoffLimit"), 2)


def _groups(
    obj: Mapping[str, Any],
    labels: Mapping[str, Any],
    workers: int,
    min_workers: int,
    autoscaling: bool,
    run: Run,
    any_pods: bool,
) -> tuple[tuple[GangGroup, ...], str | None]:
    scheduler = run.operators.get("kuberay").gang_scheduler
    if not scheduler or not any_pods:
        return (), None
    members = ("head",) + tuple(n for n in _worker_names(obj))
    name = identity(obj)["name"]
    if scheduler == "volcano":
        minimum = 1 + (min_workers if autoscaling else workers)
        note = "1 + Σ minReplicas × numOfHosts (enableInTreeAutoscaling)" if autoscaling else "1 + desired workers"
        if obj.get("kind") == "RayJob":
            note += "; the submitter is left out of minMember (handleRayJob)"
        queue = labels.get(QUEUE_LABEL)
        group = GangGroup(
            f"ray-{name}-pg",
            "volcano",
            "operator",
            "workload",
            members,
            minimum,
            Provenance(derived=_VOLCANO, note=note),
            str(queue) if queue else None,
            Provenance(label_path(QUEUE_LABEL)) if queue else Provenance(),
        )
        return (group,), "volcano"
    if scheduler == "scheduler-plugins":
        if vocab.RAY_GANG not in labels:
            return (), PLUGINS_SCHEDULER
        origin = Provenance(
            label_path(vocab.RAY_GANG),
            derived=f"{_PLUGINS} createPodGroup",
            note="1 + desired workers, autoscaling or not",
        )
        group = GangGroup(name, "coscheduling", "operator", "workload", members, 1 + workers, origin)
        return (group,), PLUGINS_SCHEDULER
    return (), scheduler


def _worker_names(obj: Mapping[str, Any]) -> list[str]:
    spec = as_map(obj.get("spec"))
    cluster = as_map(spec.get("rayClusterSpec")) if obj.get("kind") == "RayJob" else spec
    return [
        str(as_map(w).get("groupName") or f"workers-{i}")
        for i, w in enumerate(as_list(cluster.get("workerGroupSpecs")))
        if is_map(w)
    ]


@reader("ray.io", "RayCluster", "RayJob", source=SOURCE)
def read_ray(obj: Mapping[str, Any], run: Run) -> Contract:
    """The contract of a RayCluster or RayJob (see the module docstring)."""
    return _read(obj, run)
