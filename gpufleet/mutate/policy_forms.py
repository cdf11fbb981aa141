"""The mutator's defaulting as CEL: the mutations of each MutatingAdmissionPolicy :mod:`gpufleet.mutate.policies` renders.

Pure string builders, one per concern of :func:`gpufleet.mutate.core.mutate`, each reading
the same facts as its Python module (one owner per fact: the keys of
:mod:`gpufleet.kubetypes.vocab`, the elastic opt-in of :mod:`gpufleet.workloads.cel`):

- :func:`volcano_mutations`: :mod:`gpufleet.mutate.volcano` (queue, scheduler, gang minimum,
  job-level restart policies, the pods' ``restartPolicy``);
- :func:`queue_label_mutation`: :mod:`gpufleet.mutate.kueue` with
  :func:`gpufleet.workloads.kueue_label.controller_queue`'s decision (an ``ApplyConfiguration``:
  one label merged into ``metadata.labels``);
- :func:`gang_label_mutation`: :mod:`gpufleet.mutate.gang` with :mod:`gpufleet.workloads.identity`
  (rank templates only, never a template a controller owns). CEL has no hash: a name longer
  than a label value (63 characters), which the webhook shortens with a digest, gets no label.

The team's queues reach them as ``variables.localQueue`` and ``variables.volcanoQueue``,
read from the params (:func:`gpufleet.mutate.policies.params_data`).
"""

from __future__ import annotations

from gpufleet.kubetypes import vocab
from gpufleet.mutate.cel import chain, each, read, set_default, string, text_or
from gpufleet.mutate.volcano import RESTART_EVENTS
from gpufleet.workloads.cel import annotation_map, elastic
from gpufleet.workloads.kueue_label import PARENT_GROUPS

KIND = "request.resource.group + '/' + request.resource.resource"
"""``<group>/<plural>`` of the request (``batch/jobs``, ``/pods``): which shape the object has."""
KUBEFLOW_SPECS = {"kubeflow.org/pytorchjobs": "pytorchReplicaSpecs", "kubeflow.org/mpijobs": "mpiReplicaSpecs"}


def _tasks_pointer(index: str) -> str:
    return f"'/spec/tasks/' + string({index})"


# --- Volcano Jobs -------------------------------------------------------------------------------

VOLCANO_VARIABLES: tuple[tuple[str, str], ...] = (
    ("tasks", "has(object.spec.tasks) ? object.spec.tasks : []"),
    (
        "counts",
        "variables.tasks.filter(t, !(has(t.dependsOn) && has(t.dependsOn.name) && "
        "t.dependsOn.name.exists(n, n != ''))).map(t, has(t.replicas) ? t.replicas : 0)",
    ),
    ("starting", "variables.counts.exists(c, c < 0) ? 0 : variables.counts.sum()"),
)


def _covers(policies: str, event: str) -> str:
    """CEL: a policy of ``policies`` names ``event`` or ``*`` (:func:`gpufleet.mutate.volcano._covers`)."""
    return (
        f"{policies}.exists(p, (has(p.event) && p.event in [{event}, '*']) || "
        f"(has(p.events) && p.events.exists(x, x == {event} || x == '*')))"
    )


VOLCANO_VARIABLES += (
    (
        "restartEvents",
        f"[{', '.join(string(e) for e in RESTART_EVENTS)}].filter(ev, "
        f"!(has(object.spec.policies) && {_covers('object.spec.policies', 'ev')}) && "
        f"!(size(variables.tasks) > 0 && variables.tasks.all(t, has(t.policies) && {_covers('t.policies', 'ev')})))",
    ),
)


def volcano_mutations() -> list[str]:
    """JSON Patch expressions, applied in order: each writes under maps the ones before it may have created."""
    task_default = lambda field, value: each(  # noqa: E731
        "variables.tasks",
        "i",
        "t",
        set_default("t", _tasks_pointer("i"), ["template", "spec", field], value),
        where="has(t.template)",
    )
    item = "{'event': ev, 'action': 'RestartJob'}"
    policies = (
        "size(variables.restartEvents) == 0 ? [] : !has(object.spec.policies) ? "
        f"[JSONPatch{{op: 'add', path: '/spec/policies', value: variables.restartEvents.map(ev, {item})}}] : "
        f"variables.restartEvents.map(ev, JSONPatch{{op: 'add', path: '/spec/policies/-', value: {item}}})"
    )
    return [
        "variables.volcanoQueue == '' ? [] : "
        + set_default("object", "''", ["spec", "queue"], "variables.volcanoQueue", unset="in ['', 'default']"),
        set_default("object", "''", ["spec", "schedulerName"], string(vocab.VOLCANO_SCHEDULER)),
        task_default("schedulerName", string(vocab.VOLCANO_SCHEDULER)),
        task_default("restartPolicy", "'Never'"),
        f"variables.starting > 0 && !{elastic()} ? "
        + set_default("object", "''", ["spec", "minAvailable"], "variables.starting", unset="")
        + " : []",
        policies,
    ]


# --- the Kueue queue label ----------------------------------------------------------------------


def _templates() -> str:
    """The pod templates of the object, per kind (as :mod:`gpufleet.workloads.kinds` lists them)."""
    jobset = (
        "(has(object.spec.replicatedJobs) ? object.spec.replicatedJobs.filter(r, "
        f"{chain('r', ['template', 'spec', 'template'])}).map(r, r.template.spec.template) : [])"
    )
    out = (
        f"{KIND} == 'batch/jobs' ? (has(object.spec.template) ? [object.spec.template] : []) : "
        f"{KIND} == 'jobset.x-k8s.io/jobsets' ? {jobset} : {KIND} == '/pods' ? [object] : "
    )
    for kind, field in KUBEFLOW_SPECS.items():
        out += (
            f"{KIND} == '{kind}' ? (has(object.spec.{field}) ? "
            f"object.spec.{field}.transformList(k, r, has(r.template), r.template) : []) : "
        )
    return out + "[]"


def _routed_to_volcano() -> str:
    notes = annotation_map()
    labels = "(has(object.metadata.labels) ? object.metadata.labels : {})"
    queue = text_or("object", ["spec", "runPolicy", "schedulingPolicy", "queue"])
    by_key = " || ".join(
        f"({string(k)} in {m} && {m}[{string(k)}] != '')"
        for m, k in (
            (notes, vocab.VOLCANO_QUEUE),
            (labels, vocab.VOLCANO_QUEUE),
            (notes, vocab.VOLCANO_GROUP),
            (notes, vocab.VOLCANO_GROUP_ALT),
        )
    )
    scheduler = (
        f"({_templates()}).exists(t, has(t.spec) && has(t.spec.schedulerName) && "
        f"t.spec.schedulerName == {string(vocab.VOLCANO_SCHEDULER)})"
    )
    return f"(({KIND}).startsWith('kubeflow.org/') && {queue} != '') || {by_key} || {scheduler}"


def _owned_by_managed_parent() -> str:
    groups = ", ".join(string(g) for g in sorted(PARENT_GROUPS))
    return (
        "has(object.metadata.ownerReferences) && object.metadata.ownerReferences.exists(o, "
        "has(o.controller) && o.controller && o.apiVersion.contains('/') && "
        f"o.apiVersion.substring(0, o.apiVersion.lastIndexOf('/')) in [{groups}] && o.kind != 'CronJob')"
    )


def queue_label_mutation(label: str) -> str:
    """An ApplyConfiguration adding ``label: <the namespace's LocalQueue>`` where the webhook would."""
    labels = "(has(object.metadata.labels) ? object.metadata.labels : {})"
    group = (
        f"({string(vocab.KUEUE_POD_GROUP)} in {labels} && {labels}[{string(vocab.KUEUE_POD_GROUP)}] != '') || "
        f"({string(vocab.KUEUE_POD_GROUP)} in {annotation_map()} && {annotation_map()}[{string(vocab.KUEUE_POD_GROUP)}] != '')"
    )
    wanted = (
        f"variables.localQueue != '' && !({string(label)} in {labels} && {labels}[{string(label)}] != '') && "
        f"({KIND} != '/pods' || {group}) && !({_routed_to_volcano()}) && !({_owned_by_managed_parent()})"
    )
    return (
        f"{wanted} ? Object{{metadata: Object.metadata{{labels: {{{string(label)}: variables.localQueue}}}}}} "
        ": Object{}"
    )


# --- the gang identity label --------------------------------------------------------------------


def _pod_group() -> str:
    """The pod's group (:func:`gpufleet.workloads.pods.pod_group_name`, then its ``schedulingGroup``), or ''."""
    labels = "(has(object.metadata.labels) ? object.metadata.labels : {})"
    sources = [
        (labels, vocab.KUEUE_POD_GROUP),
        (annotation_map(), vocab.KUEUE_POD_GROUP),
        (annotation_map(), vocab.VOLCANO_GROUP),
        (annotation_map(), vocab.VOLCANO_GROUP_ALT),
        (labels, vocab.COSCHEDULING_GROUP),
    ]
    out = "''"
    for spec_keys in (["spec", "workloadRef", "name"], ["spec", "schedulingGroup", "podGroupName"]):
        out = f"({text_or('object', spec_keys)} != '' ? {read('object', spec_keys)} : {out})"
    for source, key in reversed(sources):
        out = f"({string(key)} in {source} && {source}[{string(key)}] != '' ? {source}[{string(key)}] : {out})"
    return out


GANG_VARIABLES = (
    ("identity", f"{KIND} == '/pods' ? {_pod_group()} : (has(object.metadata.name) ? object.metadata.name : '')"),
    ("gang", f"{KIND} == 'batch/jobs' ? (has(object.spec.parallelism) ? object.spec.parallelism : 1) > 1 : true"),
    (
        "owned",
        "has(object.metadata.ownerReferences) && "
        "object.metadata.ownerReferences.exists(o, has(o.controller) && o.controller)",
    ),
    (
        "initializers",
        "has(object.spec.replicatedJobs) ? object.spec.replicatedJobs.filter(r, has(r.dependsOn))"
        ".map(r, r.dependsOn.filter(d, has(d.status) && d.status == 'Complete').map(d, d.name)).flatten() "
        ": []",
    ),
)


def gang_label_mutation(label: str) -> str:
    """JSON Patch stamping ``label: variables.identity`` on every rank template that carries none."""
    stamp = lambda root, pointer, path: set_default(
        root,
        pointer,
        [*path, "metadata", "labels", label],  # noqa: E731
        "variables.identity",
    )
    volcano = f"(has(object.spec.tasks) ? {each('object.spec.tasks', 'i', 't', stamp('t', _tasks_pointer('i'), ['template']))} : [])"
    jobset = (
        "(has(object.spec.replicatedJobs) ? "
        + each(
            "object.spec.replicatedJobs",
            "i",
            "r",
            stamp("r", "'/spec/replicatedJobs/' + string(i)", ["template", "spec", "template"]),
            where="!((has(r.name) ? r.name : '') in variables.initializers)",
        )
        + " : [])"
    )
    body = (
        f"{KIND} == 'batch.volcano.sh/jobs' ? {volcano} : "
        f"{KIND} == 'batch/jobs' ? {stamp('object', repr(''), ['spec', 'template'])} : "
        f"{KIND} == 'jobset.x-k8s.io/jobsets' ? {jobset} : "
        f"{KIND} == '/pods' ? {stamp('object', repr(''), [])} : "
    )
    for kind, field in KUBEFLOW_SPECS.items():
        body += (
            f"{KIND} == '{kind}' ? (has(object.spec.{field}) ? "
            + each(
                f"object.spec.{field}", "k", "r", stamp("r", f"'/spec/{field}/' + jsonpatch.escapeKey(k)", ["template"])
            )
            + " : []) : "
        )
    body += "[]"
    return (
        f"variables.identity == '' || size(variables.identity) > 63 || !variables.gang || "
        f"({KIND} != '/pods' && variables.owned) ? [] : {body}"
    )
