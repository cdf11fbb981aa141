"""Label and annotation keys that route workloads to queues and gangs.

Shared by the workload views, the rules and the mutator so a key is spelled once.
Sources: Kueue ``pkg/controller/constants``, Volcano ``apis/scheduling/v1beta1``,
scheduler-plugins ``apis/scheduling/v1alpha1`` (see /work/shared/research).
"""

QUEUE_LABEL = "kueue.x-k8s.io/queue-name"
KUEUE_PREFIX = "kueue.x-k8s.io/"
KUEUE_POD_GROUP = "kueue.x-k8s.io/pod-group-name"  # label (or annotation since Kueue 0.18)
KUEUE_POD_GROUP_TOTAL = "kueue.x-k8s.io/pod-group-total-count"  # annotation
KUEUE_POD_FINALIZER = "kueue.x-k8s.io/managed"  # finalizer on a pod Kueue manages (pkg/controller/jobs/pod/constants)

VOLCANO_SCHEDULER = "volcano"
VOLCANO_QUEUE = "scheduling.volcano.sh/queue-name"  # annotation or label
VOLCANO_GROUP = "scheduling.k8s.io/group-name"  # annotation set on pods of a Volcano PodGroup
VOLCANO_GROUP_ALT = "scheduling.volcano.sh/group-name"

COSCHEDULING_GROUP = "scheduling.x-k8s.io/pod-group"  # label (scheduler-plugins)

DEFAULT_SCHEDULER = "default-scheduler"
ELASTIC = "gpufleet.dev/elastic"
WAIVER_PREFIX = "waive.gpufleet.dev/"
RAY_GANG = "ray.io/gang-scheduling-enabled"  # label on a RayCluster/RayJob (KubeRay v1.7.0 utils/constant.go)
KUEUE_PRIORITY_CLASS = "kueue.x-k8s.io/priority-class"  # label naming a Kueue WorkloadPriorityClass
KUEUE_REQUIRED_TOPOLOGY = "kueue.x-k8s.io/podset-required-topology"  # pod template annotation (Kueue TAS)
KUEUE_PREFERRED_TOPOLOGY = "kueue.x-k8s.io/podset-preferred-topology"  # pod template annotation (Kueue TAS)
