"""Does Kueue manage (suspend or gate) this object? A pure emulation of Kueue v0.19.2's admission defaulting.

Used by the tests that prove the ownership rule (docs/architecture.md, "Who owns a
namespace"): Volcano-bound objects are never suspended or gated, Kueue-bound ones
are. Written from the source at tag v0.19.2 (github.com/kubernetes-sigs/kueue):

1. Integration: only the kinds of enabled ``integrations.frameworks`` get a real
   webhook; a disabled integration gets a no-op one
   (``pkg/controller/jobframework/setup.go``, ``WithNoopWebhook(true)``). A Volcano
   Job is no Kueue integration at all.
2. Namespace selector on the webhook: the chart copies
   ``managedJobsNamespaceSelector`` into every job and pod webhook's
   ``namespaceSelector`` (``charts/kueue/templates/webhook/manifests.yaml``), so in a
   namespace it does not select the API server never calls Kueue.
3. Pods (``pkg/controller/jobs/pod/pod_webhook.go``, ``PodWebhook.Default``): the
   ``kueue.x-k8s.io/pod-suspending-parent`` annotation gates at once; otherwise the
   namespace must match ``managedJobsNamespaceSelector`` (nil = all) and the legacy
   ``podOptions`` selectors; a pod with a Kueue-managed ancestor is left alone
   (``jobframework.FindAncestorJobManagedByKueue``, ``pkg/controller/jobframework/reconciler.go``);
   the ``default`` LocalQueue is filled in when it exists; the pod is gated when it
   has a queue name or ``manageJobsWithoutQueueName`` is on.
4. Jobs (``pkg/controller/jobframework/base_webhook.go``, ``BaseWebhook.Default``):
   the ``default`` LocalQueue is filled in when the namespace matches
   (``defaults.go``, ``ApplyDefaultLocalQueueWithManagedJobsNamespaceSelector``); then
   ``WorkloadShouldBeSuspended`` (``utils.go``): not with a managed ancestor; yes with
   a queue name; with ``manageJobsWithoutQueueName``, yes when the namespace matches.
5. Ancestors (``FindAncestorJobManagedByKueue``): walk controller owners while they
   are known integration kinds; an owner counts when its integration is enabled and
   it has a queue name or ``manageJobsWithoutQueueName`` is on.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from gpufleet.kubetypes.vocab import KUEUE_SUSPENDED_BY_PARENT, QUEUE_LABEL
from gpufleet.workloads.selectors import matches

DEFAULT_QUEUE = "default"

# (apiVersion group, kind) -> Kueue integration name (pkg/controller/jobs/*, v0.19.2).
INTEGRATIONS: dict[tuple[str, str], str] = {
    ("batch", "Job"): "batch/job",
    ("jobset.x-k8s.io", "JobSet"): "jobset.x-k8s.io/jobset",
    ("kubeflow.org", "PyTorchJob"): "kubeflow.org/pytorchjob",
    ("kubeflow.org", "MPIJob"): "kubeflow.org/mpijob",
    ("kubeflow.org", "TFJob"): "kubeflow.org/tfjob",
    ("kubeflow.org", "XGBoostJob"): "kubeflow.org/xgboostjob",
    ("kubeflow.org", "PaddleJob"): "kubeflow.org/paddlejob",
    ("kubeflow.org", "JAXJob"): "kubeflow.org/jaxjob",
    ("trainer.kubeflow.org", "TrainJob"): "trainer.kubeflow.org/trainjob",
    ("ray.io", "RayJob"): "ray.io/rayjob",
    ("ray.io", "RayCluster"): "ray.io/raycluster",
    ("", "Pod"): "pod",
    ("apps", "Deployment"): "deployment",
    ("apps", "StatefulSet"): "statefulset",
    ("leaderworkerset.x-k8s.io", "LeaderWorkerSet"): "leaderworkerset.x-k8s.io/leaderworkerset",
}


@dataclass(frozen=True)
class KueueConfig:
    """The parts of Kueue's manager Configuration this decision reads."""

    frameworks: frozenset[str]
    manage_jobs_without_queue_name: bool = False
    managed_jobs_namespace_selector: Mapping[str, Any] | None = None
    """None = nil in Kueue (no filtering)."""
    pod_namespace_selector: Mapping[str, Any] | None = None
    """Legacy ``integrations.podOptions.namespaceSelector``."""
    pod_selector: Mapping[str, Any] | None = None
    """Legacy ``integrations.podOptions.podSelector``."""

    @classmethod
    def from_manager_config(cls, config: Mapping[str, Any]) -> KueueConfig:
        integrations = config.get("integrations") or {}
        pod_options = integrations.get("podOptions") or {}
        return cls(
            frozenset(integrations.get("frameworks") or ()),
            bool(config.get("manageJobsWithoutQueueName")),
            config.get("managedJobsNamespaceSelector"),
            pod_options.get("namespaceSelector"),
            pod_options.get("podSelector"),
        )


@dataclass(frozen=True)
class Decision:
    managed: bool
    """Kueue suspends the job or gates the pod."""
    queue: str | None = None
    """The queue name after Kueue's defaulting."""
    reason: str = field(default="", compare=False)


def integration(obj: Mapping[str, Any]) -> str | None:
    group = str(obj.get("apiVersion", "")).rpartition("/")[0]
    return INTEGRATIONS.get((group, str(obj.get("kind", ""))))


def _meta(obj: Mapping[str, Any], key: str) -> Mapping[str, str]:
    return (obj.get("metadata") or {}).get(key) or {}


def _queue(obj: Mapping[str, Any]) -> str | None:
    return _meta(obj, "labels").get(QUEUE_LABEL) or None


def _ns_matches(selector: Mapping[str, Any] | None, ns_labels: Mapping[str, str]) -> bool:
    return selector is None or matches(selector, ns_labels)


def managed_ancestor(ancestors: Sequence[Mapping[str, Any]], config: KueueConfig) -> bool:
    """FindAncestorJobManagedByKueue: ``ancestors`` are the controller owners, nearest first."""
    for owner in ancestors:
        name = integration(owner)
        if name is None:
            return False  # not a known owner: stop walking up
        if name in config.frameworks and (config.manage_jobs_without_queue_name or _queue(owner)):
            return True
    return False


def decide(
    obj: Mapping[str, Any],
    ns_labels: Mapping[str, str],
    config: KueueConfig,
    ancestors: Sequence[Mapping[str, Any]] = (),
    default_queue_exists: bool = False,
) -> Decision:
    """Whether Kueue's webhooks suspend/gate ``obj`` in a namespace labelled ``ns_labels``."""
    queue = _queue(obj)
    name = integration(obj)
    if name is None or name not in config.frameworks:
        return Decision(False, queue, "no enabled Kueue integration (no-op webhook)")
    if not _ns_matches(config.managed_jobs_namespace_selector, ns_labels):
        return Decision(False, queue, "namespace outside managedJobsNamespaceSelector: webhook not called")
    if name == "pod":
        return _pod(obj, ns_labels, config, ancestors, default_queue_exists, queue)
    if managed_ancestor(ancestors, config):
        return Decision(False, queue, "a Kueue-managed ancestor")
    if queue is None and default_queue_exists:
        queue = DEFAULT_QUEUE
    if queue:
        return Decision(True, queue, "queue name")
    return Decision(config.manage_jobs_without_queue_name, queue, "manageJobsWithoutQueueName")


def _pod(
    obj: Mapping[str, Any],
    ns_labels: Mapping[str, str],
    config: KueueConfig,
    ancestors: Sequence[Mapping[str, Any]],
    default_queue_exists: bool,
    queue: str | None,
) -> Decision:
    if KUEUE_SUSPENDED_BY_PARENT in _meta(obj, "annotations"):
        return Decision(True, queue, "suspended by parent")
    if config.pod_selector is not None and not matches(config.pod_selector, _meta(obj, "labels")):
        return Decision(False, queue, "podOptions.podSelector")
    if config.pod_namespace_selector is not None and not matches(config.pod_namespace_selector, ns_labels):
        return Decision(False, queue, "podOptions.namespaceSelector")
    if managed_ancestor(ancestors, config):
        return Decision(False, queue, "a Kueue-managed ancestor")
    if queue is None and default_queue_exists:
        queue = DEFAULT_QUEUE
    return Decision(
        bool(queue) or config.manage_jobs_without_queue_name, queue, "queue name or manageJobsWithoutQueueName"
    )
