"""Gang identity on pods: the ``gpufleet.dev/gang`` label on every pod template of a gang.

Called by :func:`gpufleet.mutate.core.mutate` for every object in a team's namespace.
Only when the fleet context names the label (``gangLabel``: the model's
observability is enabled). The gang alerts (``gpufleet.render.alerts``) group pods by this label, which
kube-state-metrics exposes as ``kube_pod_labels{label_gpufleet_dev_gang}`` when told to
(``--metric-labels-allowlist=pods=[gpufleet.dev/gang]``), and the PodMonitor copies
to the ``gang`` label of the step metrics. Pods of one gang must carry the same value
and no other gang in the namespace may share it:

- a Pod in a pod group (Kueue ``pod-group-name``, Volcano ``group-name``,
  scheduler-plugins ``pod-group``) gets the group's name;
- any other gang workload (Volcano Job, JobSet, Kubeflow job, parallel batch Job, ...)
  gets its own ``metadata.name`` on each of its pod templates;
- nothing is stamped where a label is already set (never overwritten), on objects
  that are not gangs, on objects a controller owns (a JobSet's Jobs: the JobSet's
  templates carry its identity), or on objects with only ``generateName`` (the name
  does not exist yet at admission; GANG701 warns about those).

A name longer than a label value (63 characters) is cut and suffixed with a hash of
the full name, so it stays unique and valid.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Mapping

from gpufleet.context import GANG_LABEL
from gpufleet.mutate.patch import PatchBuilder, is_map
from gpufleet.workloads import WorkloadView, as_map, build_view

_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def label_value(name: str) -> str:
    """``name`` as a valid label value (at most 63 characters, alphanumeric at both ends)."""
    if len(name) <= 63:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{name[:52].rstrip('-.')}-{digest}"


def gang_identity(view: WorkloadView) -> str | None:
    """The value the pods of this gang carry, or None when it cannot be known at admission."""
    if view.kind == "Pod":
        return label_value(view.pod_group) if view.pod_group else None
    name = view.metadata.get("name")
    return label_value(name) if isinstance(name, str) and name else None


def has_controller(obj: Mapping[str, Any]) -> bool:
    owners = as_map(obj.get("metadata")).get("ownerReferences")
    return isinstance(owners, list) and any(is_map(o) and o.get("controller") is True for o in owners)


def keys_of(path: str) -> tuple[str | int, ...]:
    """``spec.tasks[1].template`` -> ``("spec", "tasks", 1, "template")`` (template paths have no dotted keys)."""
    return tuple(int(i) if i else k for k, i in _PATH_PART.findall(path))


def unlabelled_templates(view: WorkloadView, label: str = GANG_LABEL) -> list[str]:
    """Paths of the gang's pod templates that carry no gang identity label."""
    return [t.path for t in view.templates if not t.labels.get(label)]


def mutate_gang_identity(obj: Mapping[str, Any], label: str | None, patch: PatchBuilder) -> None:
    if not label:
        return
    view = build_view(obj)
    if view is None or not view.is_gang or (view.kind != "Pod" and has_controller(obj)):
        return
    identity = gang_identity(view)
    if identity is None:
        return
    for path in unlabelled_templates(view, label):
        patch.set_default((*keys_of(path), "metadata", "labels", label), identity)
