"""Kueue's admission webhooks' UPDATE rules for the objects gpufleet renders, as pure functions.

Emulates, at kubernetes-sigs/kueue **v0.19.2**:

- ``pkg/webhooks/clusterqueue_webhook.go`` ``ValidateClusterQueueUpdate``: the whole
  ``validateClusterQueueSpec`` again (``validateFlavorQuotas``: nominal, borrowing and
  lending limits not negative; ``validateLimit``: limits only with a ``cohortName``;
  ``validateLendingLimit``: lending limit ≤ nominal; ``validatePreemption``:
  ``reclaimWithinCohort: Never`` forbids a ``borrowWithinCohort`` policy other than
  Never; ``validateTotalFlavors`` ≤ 256) and ``concurrentAdmissionPolicy`` immutable;
- ``pkg/webhooks/cohort_webhook.go`` ``validateCohort`` (the same quota rules, limits
  only with a ``parentName``, but a lending limit may exceed nominal:
  ``enforceNominalGreaterThanLending: false``), on create and update alike.

ResourceFlavor and Topology updates are judged by their CRDs' CEL rules
(:meth:`gpufleet.crdschema.CrdSet.validate_update`).
"""

from __future__ import annotations

from typing import Any, Mapping

from gpufleet.kubetypes import quantity
from gpufleet.kubetypes.fieldpath import FieldPath

NEGATIVE = "must be greater than or equal to 0"
RESOURCE_GROUPS = FieldPath.of("spec", "resourceGroups")


def _quota_errors(
    groups: list, has_parent: bool, parent_word: str, path: FieldPath, lending_within_nominal: bool = True
) -> list[str]:
    errors: list[str] = []
    total = 0
    for i, group in enumerate(groups or ()):
        for j, flavor in enumerate(group.get("flavors") or ()):
            total += 1
            for k, res in enumerate(flavor.get("resources") or ()):
                where = path.index(i).child("flavors").index(j).child("resources").index(k)
                nominal = quantity.parse(res.get("nominalQuota", "0"))
                if nominal < 0:
                    errors.append(f"{where.child('nominalQuota')}: Invalid value: {res['nominalQuota']}: {NEGATIVE}")
                for limit in ("borrowingLimit", "lendingLimit"):
                    if limit not in res:
                        continue
                    value = quantity.parse(res[limit])
                    if value < 0:
                        errors.append(f"{where.child(limit)}: Invalid value: {res[limit]}: {NEGATIVE}")
                    if not has_parent:
                        errors.append(
                            f"{where.child(limit)}: Invalid value: {res[limit]}: must be nil when {parent_word} is empty"
                        )
                    if limit == "lendingLimit" and lending_within_nominal and value > nominal:
                        errors.append(
                            f"{where.child('lendingLimit')}: Invalid value: {res[limit]}: must be less than or equal to the nominalQuota"
                        )
    if total > 256:
        errors.append(
            f"{path}: Invalid value: {total}: total number of flavors across all resourceGroups must be ≤ 256, got {total}"
        )
    return errors


def cluster_queue_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """``ValidateClusterQueueUpdate``'s errors ([] = allowed)."""
    spec = new.get("spec") or {}
    errors = _quota_errors(spec.get("resourceGroups") or [], bool(spec.get("cohortName")), "cohort", RESOURCE_GROUPS)
    preemption = spec.get("preemption") or {}
    borrow = (preemption.get("borrowWithinCohort") or {}).get("policy", "Never")
    if preemption.get("reclaimWithinCohort") == "Never" and borrow != "Never":
        errors.append("spec.preemption: Invalid value: reclaimWithinCohort=Never and borrowWithinCohort.Policy!=Never")
    if (old.get("spec") or {}).get("concurrentAdmissionPolicy") != spec.get("concurrentAdmissionPolicy"):
        errors.append("spec.concurrentAdmissionPolicy: Invalid value: field is immutable")
    return errors


def cohort_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """``validateCohort``'s errors ([] = allowed)."""
    spec = new.get("spec") or {}
    return _quota_errors(
        spec.get("resourceGroups") or [],
        bool(spec.get("parentName")),
        "parent",
        RESOURCE_GROUPS,
        lending_within_nominal=False,
    )


def priority_class_update(old: Mapping[str, Any], new: Mapping[str, Any]) -> list[str]:
    """Built-in ``ValidatePriorityClassUpdate`` (kubernetes ``pkg/apis/scheduling/validation/validation.go``):
    ``value`` and ``preemptionPolicy`` may not change."""
    errors = []
    if old.get("value") != new.get("value"):
        errors.append("value: Forbidden: may not be changed in an update.")
    if old.get("preemptionPolicy", "PreemptLowerPriority") != new.get("preemptionPolicy", "PreemptLowerPriority"):
        errors.append("preemptionPolicy: Invalid value: field is immutable")
    return errors
