"""The vocabulary: every label, annotation, taint and queue key, and the Kubernetes name patterns, spelled once.

The lowest layer (standard library only, bottom of the ``layers`` contract), so the
model, the fleet context, the renderers, the workload views, the rules, the mutator
and the adapters all import their keys from here; no module defines a key of its own
and no renderer takes one from a validation module. Sources: Kueue
``pkg/controller/constants``, Volcano ``apis/scheduling/v1beta1``, scheduler-plugins
``apis/scheduling/v1alpha1`` (see /work/shared/research), Kubernetes
``k8s.io/apimachinery/pkg/util/validation`` and the well-known labels.
"""

import re

# gpufleet's own keys (the fleet's labels, the admission controller's stamps, the model's taint).
GPUFLEET_GROUP = "gpufleet.dev/"  # the fleet model's apiVersion group (gpufleet.dev/v1alpha1)
FLEET_LABEL = "gpufleet.dev/fleet"  # on every rendered object and team namespace
TEAM_LABEL = "gpufleet.dev/team"  # on a team's namespace and objects
QUOTA_SYSTEM_LABEL = "gpufleet.dev/quota-system"  # on a team namespace: kueue|volcano|coscheduling|native
POOL_LABEL = "gpufleet.dev/pool"  # the usual node label of a pool (kube-state-metrics' preferred pool label)
COHORT_LABEL = "gpufleet.dev/cohort"  # on a Volcano Queue: its cohort
GANG_LABEL = "gpufleet.dev/gang"  # gang identity the admission controller stamps on pod templates
DEDICATED_KEY = "gpufleet.dev/dedicated"  # NoExecute taint (and node label) of a pool dedicated to one team
ADMISSION_OPT_OUT_LABEL = "gpufleet.dev/admission"  # namespace label opting out of the admission controller
ELASTIC = "gpufleet.dev/elastic"  # workload annotation: the gang may run below its full size
WAIVER_PREFIX = "waive.gpufleet.dev/"  # waive.gpufleet.dev/<CODE>: "<reason>"
WHATIF_JOB_LABEL = "whatif.gpufleet.dev/job"  # on every replayed job and its pods: the trace job's name
PARTITION_ALWAYS_EXEMPT = ("kube-system",)
"""Namespaces every fleet exempts from static partitioning (node agents); a model adds ``partitionExemptNamespaces``."""

# The engines' own namespaces, as their charts install them (the model's defaults).
KUEUE_NAMESPACE = "kueue-system"
VOLCANO_NAMESPACE = "volcano-system"

# Kinds several rules list together.
KUBEFLOW_JOBS: tuple[tuple[str, str], ...] = tuple(
    ("kubeflow.org", kind) for kind in ("PyTorchJob", "MPIJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob")
)
"""The Kubeflow training operator's v1 job kinds (group, kind), in the order the rules list them."""

# Kueue.
QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_PREFIX = "kueue.x-k8s.io/"
KUEUE_POD_GROUP = "kueue.x-k8s.io/pod-group-name"  # label (or annotation since Kueue 0.18)
KUEUE_POD_GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count"  # annotation
KUEUE_JOB_MIN_PARALLELISM = "kueue.x-k8s.io/job-min-parallelism"  # batch Job annotation: Kueue partial admission
KUEUE_POD_FINALIZER = "kueue.x-k8s.io/managed"  # finalizer on a pod Kueue manages (pkg/controller/jobs/pod/constants)
KUEUE_SUSPENDED_BY_PARENT = "kueue.x-k8s.io/pod-suspending-parent"  # pod annotation: the parent gates it
KUEUE_PRIORITY_CLASS = "kueue.x-k8s.io/priority-class"  # label naming a Kueue WorkloadPriorityClass
KUEUE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"  # pod template annotation (Kueue TAS)
KUEUE_PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"  # pod template annotation (Kueue TAS)

# Volcano.
VOLCANO_SCHEDULER = "volcano"
VOLCANO_QUEUE = "scheduling.volcano.sh/queue-name"  # annotation or label
VOLCANO_GROUP = "scheduling.k8s.io/group-name"  # annotation set on pods of a Volcano PodGroup
VOLCANO_GROUP_ALT = "scheduling.volcano.sh/group-name"
VOLCANO_NODEGROUP_LABEL = "volcano.sh/nodegroup-name"  # node label a Queue's nodegroup affinity selects
VOLCANO_JOB_LABEL = "volcano.sh/job-name"  # set by Volcano's job controller on its pods

# scheduler-plugins coscheduling, KubeRay, kube-scheduler.
COSCHEDULING_GROUP = "scheduling.x-k8s.io/pod-group"  # label (scheduler-plugins)
RAY_GANG = "ray.io/gang-scheduling-enabled"  # label on a RayCluster/RayJob (KubeRay v1.7.0 utils/constant.go)
DEFAULT_SCHEDULER = "default-scheduler"

# The sandbox (KWOK nodes).
KWOK_NODE_ANNOTATION = "kwok.x-k8s.io/node"  # "fake" hands a node to KWOK
SANDBOX_POOL_LABEL = "gpufleet.dev/sandbox-pool"  # the pool a sandbox node stands for
KWOK_COMPLETE_AFTER = "pod-complete.stage.kwok.x-k8s.io/delay"  # the sandbox's pod-complete stage: a pod's run time
KWOK_READY_AFTER = "pod-ready.stage.kwok.x-k8s.io/delay"  # the sandbox's delayed pod-ready stage: a pod's start time
KWOK_RETRIED = "gpufleet.dev/kwok-retry"  # when the fault tier touched a rank whose finish KWOK dropped (kwokretry)

# Kubernetes well-known labels and resources.
HOSTNAME_LABEL = "kubernetes.io/hostname"
KUBELET_NODE_LABELS = frozenset({HOSTNAME_LABEL, "kubernetes.io/os", "kubernetes.io/arch"})
"""Labels the kubelet sets on every node it registers (kubernetes ``pkg/kubelet/kubelet_node_status.go`` ``initialNode``)."""
ZONE_LABEL = "topology.kubernetes.io/zone"
NAMESPACE_NAME_LABEL = "kubernetes.io/metadata.name"  # set by the API server on every namespace
APP_NAME_LABEL = "app.kubernetes.io/name"
APP_PART_OF_LABEL = "app.kubernetes.io/part-of"
MANAGED_BY_LABEL = "app.kubernetes.io/managed-by"
JOB_NAME_LABEL = "batch.kubernetes.io/job-name"  # set by the Job controller on its pods
NVIDIA_GPU = "nvidia.com/gpu"  # the default GPU resource name
AMD_GPU = "amd.com/gpu"
MIG_PREFIX = "nvidia.com/mig-"  # NVIDIA MIG slice resources (nvidia.com/mig-1g.10gb, ...)
KNOWN_GPUS = (NVIDIA_GPU, AMD_GPU)  # GPU resources every fleet knows; a fleet adds its pools' gpuResource

# Name patterns (k8s.io/apimachinery/pkg/util/validation).
DNS_LABEL_MAX = 63
DNS_SUBDOMAIN_MAX = 253
DNS_LABEL_RE = r"[a-z0-9]([-a-z0-9]*[a-z0-9])?"  # one DNS label, unanchored (RFC 1123)
DNS_LABEL = rf"^{DNS_LABEL_RE}$"  # anchored, for pydantic ``pattern=`` (JSON Schema ``pattern``)
DNS_SUBDOMAIN_RE = rf"{DNS_LABEL_RE}(\.{DNS_LABEL_RE})*"
NAME_PART_RE = r"([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"  # a qualified name's name part, a label value

_DNS_LABEL = re.compile(DNS_LABEL_RE)
_DNS_SUBDOMAIN = re.compile(DNS_SUBDOMAIN_RE)
_NAME_PART = re.compile(NAME_PART_RE)


def is_dns_label(text: str) -> bool:
    """A namespace, a pool or team name: lowercase letters, digits and '-', at most 63, alphanumeric at both ends."""
    return len(text) <= DNS_LABEL_MAX and _DNS_LABEL.fullmatch(text) is not None


def is_dns_subdomain(text: str) -> bool:
    """An object name, a key prefix: DNS labels joined by '.', at most 253 characters."""
    return len(text) <= DNS_SUBDOMAIN_MAX and _DNS_SUBDOMAIN.fullmatch(text) is not None


def is_qualified_name(key: str) -> bool:
    """A label or annotation key: ``[prefix/]name``, the prefix a DNS subdomain, the name at most 63 name characters."""
    prefix, _, name = key.rpartition("/")
    if "/" in key and not (prefix and is_dns_subdomain(prefix)):
        return False
    return len(name) <= DNS_LABEL_MAX and _NAME_PART.fullmatch(name) is not None


def is_label_value(value: object) -> bool:
    """A label value: empty, or at most 63 letters, digits, '-', '_' and '.', alphanumeric at both ends."""
    return isinstance(value, str) and (
        value == "" or (len(value) <= DNS_LABEL_MAX and _NAME_PART.fullmatch(value) is not None)
    )
