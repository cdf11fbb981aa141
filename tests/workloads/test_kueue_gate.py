"""The Kueue manage/gate emulation agrees with Kueue's own test tables at v0.19.2, case by case.

Each case is one entry of an upstream table, translated: the same configuration,
namespace, object and owners, and the same outcome (gated/suspended or not, and the
queue name after defaulting). Pod cases come from ``TestDefault`` in
``pkg/controller/jobs/pod/pod_webhook_test.go``, which calls ``PodWebhook.Default``
directly with the pod integration on (so ``pod`` is always enabled here, plus the
case's ``enableIntegrations``). Job cases come from ``TestBaseWebhookDefault`` in
``pkg/controller/jobframework/base_webhook_test.go``; their jobs start suspended
(``utiljob.MakeJob`` sets ``suspend: true``), so those cases pin only the queue
defaulting, not the suspend decision.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest

from gpufleet.workloads.kueue_gate import KueueConfig, decide

POD_TEST = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobs/pod/pod_webhook_test.go"
JOB_TEST = "https://github.com/kubernetes-sigs/kueue/blob/v0.19.2/pkg/controller/jobframework/base_webhook_test.go"

NOT_KUBE_SYSTEM = {
    "matchExpressions": [{"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["kube-system"]}]
}
TEST_NS = {"kubernetes.io/metadata.name": "test-ns"}
KUBE_SYSTEM = {"kubernetes.io/metadata.name": "kube-system"}


def pod(queue: str | None = None, labels: dict | None = None, annotations: dict | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {
        "name": "test-pod",
        "labels": {**(labels or {}), **({"kueue.x-k8s.io/queue-name": queue} if queue else {})},
    }
    if annotations:
        meta["annotations"] = annotations
    return {"apiVersion": "v1", "kind": "Pod", "metadata": meta}


def owner(api_version: str, kind: str, queue: str | None = "test-queue") -> dict[str, Any]:
    return {
        "apiVersion": api_version,
        "kind": kind,
        "metadata": {"name": "parent", "labels": {"kueue.x-k8s.io/queue-name": queue} if queue else {}},
    }


def job(namespace_queue: str | None = None) -> dict[str, Any]:
    labels = {"kueue.x-k8s.io/queue-name": namespace_queue} if namespace_queue else {}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "job", "labels": labels}}


@dataclass
class Upstream:
    name: str
    link: str
    obj: dict[str, Any]
    want_managed: bool | None
    """None: the upstream case does not pin it."""
    want_queue: str | None
    ns_labels: dict[str, str] = field(default_factory=lambda: dict(TEST_NS))
    frameworks: tuple[str, ...] = ("pod",)
    manage_without_queue: bool = False
    managed_selector: dict | None = None
    pod_ns_selector: dict | None = None
    pod_selector: dict | None = None
    ancestors: tuple[dict, ...] = ()
    default_lq: bool = False


def owned_pod(line: int, api_version: str, kind: str, framework: str) -> Upstream:
    """TestDefault's case of a queued pod whose owner's integration is on: left to the owner, queue kept."""
    return Upstream(
        f"pod with owner managed by kueue ({kind})",
        f"{POD_TEST}#L{line}",
        pod("test-queue"),
        False,
        "test-queue",
        pod_ns_selector=NOT_KUBE_SYSTEM,
        pod_selector={},
        ancestors=(owner(api_version, kind),),
        frameworks=("pod", framework),
    )


CASES = [
    Upstream(
        "pod with suspend by parent annotation should skip finalizer",
        f"{POD_TEST}#L100",
        pod("test-queue", annotations={"kueue.x-k8s.io/pod-suspending-parent": "test"}),
        True,
        "test-queue",
    ),
    Upstream("pod with queue nil ns selector", f"{POD_TEST}#L116", pod("test-queue"), True, "test-queue"),
    Upstream(
        "pod with queue matching ns selector",
        f"{POD_TEST}#L130",
        pod("test-queue"),
        True,
        "test-queue",
        pod_ns_selector=NOT_KUBE_SYSTEM,
        pod_selector={},
    ),
    Upstream(
        "pod without queue matching ns selector manage jobs without queue name",
        f"{POD_TEST}#L146",
        pod(),
        True,
        None,
        manage_without_queue=True,
        pod_ns_selector=NOT_KUBE_SYSTEM,
        pod_selector={},
    ),
    Upstream(
        "pod with owner managed by kueue (Job) while not enabled",
        f"{POD_TEST}#L161",
        pod("test-queue"),
        True,
        "test-queue",
        pod_ns_selector=NOT_KUBE_SYSTEM,
        pod_selector={},
        ancestors=(owner("batch/v1", "Job"),),
    ),
    owned_pod(182, "batch/v1", "Job", "batch/job"),
    owned_pod(211, "ray.io/v1", "RayCluster", "ray.io/raycluster"),
    owned_pod(238, "kubeflow.org/v2beta1", "MPIJob", "kubeflow.org/mpijob"),
    owned_pod(262, "kubeflow.org/v1", "PyTorchJob", "kubeflow.org/pytorchjob"),
    Upstream(
        "default queue is created, pod has no queue label",
        f"{POD_TEST}#L437",
        pod(),
        True,
        "default",
        pod_ns_selector=NOT_KUBE_SYSTEM,
        pod_selector={},
        default_lq=True,
    ),
    Upstream(
        "default queue isn't created, pod has no queue label",
        f"{POD_TEST}#L453",
        pod(),
        False,
        None,
        pod_ns_selector=NOT_KUBE_SYSTEM,
        pod_selector={},
    ),
    Upstream(
        "default queue is created, pod has queue label",
        f"{POD_TEST}#L464",
        pod("queue"),
        True,
        "queue",
        pod_ns_selector=NOT_KUBE_SYSTEM,
        pod_selector={},
        default_lq=True,
    ),
    Upstream(
        "the namespace matches the selector",
        f"{POD_TEST}#L481",
        pod("queue"),
        True,
        "queue",
        managed_selector=NOT_KUBE_SYSTEM,
    ),
    Upstream(
        "doesn't match the managedJobsNamespaceSelector",
        f"{POD_TEST}#L496",
        pod("queue"),
        False,
        "queue",
        ns_labels=KUBE_SYSTEM,
        managed_selector=NOT_KUBE_SYSTEM,
    ),
    Upstream(
        "the namespace matches the namespace selector",
        f"{POD_TEST}#L509",
        pod("queue"),
        True,
        "queue",
        pod_ns_selector=NOT_KUBE_SYSTEM,
    ),
    Upstream(
        "the namespace doesn't match the namespace selector",
        f"{POD_TEST}#L524",
        pod("queue"),
        False,
        "queue",
        ns_labels=KUBE_SYSTEM,
        pod_ns_selector=NOT_KUBE_SYSTEM,
    ),
    Upstream(
        "the pod matches the pod selector",
        f"{POD_TEST}#L537",
        pod("queue", labels={"kubernetes.io/metadata.name": "test-pod"}),
        True,
        "queue",
        pod_selector=NOT_KUBE_SYSTEM,
    ),
    Upstream(
        "the pod doesn't match the pod selector",
        f"{POD_TEST}#L554",
        pod("queue", labels={"kubernetes.io/metadata.name": "kube-system"}),
        False,
        "queue",
        pod_selector=NOT_KUBE_SYSTEM,
    ),
    Upstream(
        "update the suspend field with 'manageJobsWithoutQueueName=false'",
        f"{JOB_TEST}#L57",
        job("queue"),
        True,
        "queue",
        ns_labels={"kubernetes.io/metadata.name": "default"},
        frameworks=("batch/job",),
    ),
    Upstream(
        "update the suspend field 'manageJobsWithoutQueueName=true'",
        f"{JOB_TEST}#L61",
        job("queue"),
        True,
        "queue",
        ns_labels={"kubernetes.io/metadata.name": "default"},
        frameworks=("batch/job",),
        manage_without_queue=True,
    ),
    Upstream(
        "default lq is created, job doesn't have queue label",
        f"{JOB_TEST}#L66",
        job(),
        None,
        "default",
        ns_labels={"kubernetes.io/metadata.name": "default"},
        frameworks=("batch/job",),
        default_lq=True,
    ),
    Upstream(
        "default lq is created, job has queue label",
        f"{JOB_TEST}#L73",
        job("queue"),
        None,
        "queue",
        ns_labels={"kubernetes.io/metadata.name": "default"},
        frameworks=("batch/job",),
        default_lq=True,
    ),
    Upstream(
        "default lq isn't created, job doesn't have queue label",
        f"{JOB_TEST}#L78",
        job(),
        None,
        None,
        ns_labels={"kubernetes.io/metadata.name": "default"},
        frameworks=("batch/job",),
    ),
    Upstream(
        "job in unmanaged namespace with default lq should not get queue label or be suspended",
        f"{JOB_TEST}#L111",
        job(),
        False,
        None,
        ns_labels={"kubernetes.io/metadata.name": "unmanaged-ns"},
        frameworks=("batch/job",),
        default_lq=True,
        managed_selector={
            "matchExpressions": [
                {"key": "kubernetes.io/metadata.name", "operator": "NotIn", "values": ["unmanaged-ns"]}
            ]
        },
    ),
]


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_the_emulation_decides_as_kueues_own_test_table(case: Upstream) -> None:
    config = KueueConfig(
        frozenset(case.frameworks),
        case.manage_without_queue,
        case.managed_selector,
        case.pod_ns_selector,
        case.pod_selector,
    )
    got = decide(case.obj, case.ns_labels, config, case.ancestors, case.default_lq)
    assert got.queue == case.want_queue, case.link
    if case.want_managed is not None:
        assert got.managed == case.want_managed, case.link


def test_a_disabled_integration_gets_kueues_noop_webhook() -> None:
    config = KueueConfig(frozenset({"pod"}), manage_jobs_without_queue_name=True)
    assert not decide(job("queue"), TEST_NS, config).managed


def test_a_volcano_job_is_no_kueue_integration() -> None:
    vcjob = {"apiVersion": "batch.volcano.sh/v1alpha1", "kind": "Job", "metadata": {"name": "v", "labels": {}}}
    assert not decide(vcjob, TEST_NS, KueueConfig(frozenset({"batch/job", "pod"}), True)).managed
