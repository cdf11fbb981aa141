"""Gang identity: the ``gpufleet.dev/gang`` value a gang's pods carry, shared by the mutator and GANG701.

:func:`gang_identity` says what the admission controller (``gpufleet.mutate.gang``)
stamps on a gang's pod templates; :func:`unlabelled_templates` which templates lack
the label; :func:`stampable` whether the controller would stamp this object at all.
GANG701 (``gpufleet.rules.observability.gang701_gang_without_identity``) warns where no identity
will exist. Pods of one gang must carry the same value and no other gang in the
namespace may share it:

- a Pod in a pod group (Kueue ``pod-group-name``, Volcano ``group-name``,
  scheduler-plugins ``pod-group``): the group's name;
- any other gang workload (Volcano Job, JobSet, Kubeflow job, parallel batch Job, ...):
  its own ``metadata.name``; none with only ``generateName`` (the name does not exist
  yet when the mutating webhook sees the object);
- objects a controller owns (a JobSet's Jobs) are not stamped: the owner's templates
  carry its identity down;
- initializers are not ranks and are not stamped: a replicatedJob of a JobSet or a
  Kubeflow Trainer runtime that another replicatedJob ``dependsOn`` with ``status:
  Complete`` (JobSet ``api/jobset/v1alpha2`` DependsOn; the Trainer's ``dataset-initializer``
  and ``model-initializer``) runs to completion before the ranks start, and a Running
  initializer must not look like a gang that runs without stepping. A ``Ready``
  dependency (an MPI launcher waiting for its workers) is a rank.

A name longer than a label value (63 characters) is cut and suffixed with a hash of
the full name, so it stays unique and valid.
"""

from __future__ import annotations

import hashlib
from typing import Any, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import GANG_LABEL
from gpufleet.workloads.stages import initializer_roles
from gpufleet.workloads.types import WorkloadView, as_map, is_map


def label_value(name: str) -> str:
    """``name`` as a valid label value (at most 63 characters, alphanumeric at both ends)."""
    if len(name) <= 63:
        return name
    digest = hashlib.sha256(name.encode()).hexdigest()[:10]
    return f"{name[:52].rstrip('-._')}-{digest}"


def gang_identity(view: WorkloadView) -> str | None:
    """The value the pods of this gang carry, or None when it cannot be known at admission."""
    if view.kind == "Pod":
        return label_value(view.pod_group) if view.pod_group else None
    name = view.metadata.get("name")
    return label_value(name) if isinstance(name, str) and name else None


def has_controller(obj: Mapping[str, Any]) -> bool:
    owners = as_map(obj.get("metadata")).get("ownerReferences")
    return isinstance(owners, list) and any(is_map(o) and o.get("controller") is True for o in owners)


def stampable(view: WorkloadView) -> bool:
    """A gang whose templates the mutator labels itself (not one a controller owns, except pod-group Pods)."""
    return view.is_gang and (view.kind == "Pod" or not has_controller(view.obj))


def unlabelled_templates(view: WorkloadView, label: str = GANG_LABEL) -> list[FieldPath]:
    """Paths of the gang's rank pod templates that carry no gang identity label (initializers left out)."""
    initializers = initializer_roles(view)
    return [t.path for t in view.templates if not t.labels.get(label) and t.role not in initializers]
