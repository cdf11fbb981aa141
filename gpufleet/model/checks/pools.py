"""Pool syntax as the engines check it: labels, taints, tolerations, resources.

A Kueue pool becomes a ResourceFlavor, whose webhook and CEL rules reject invalid
label keys and values, invalid taint keys, two taints with one key and effect, more
than 8 labels, taints or tolerations, and tolerations that break the CEL rules (no
key needs ``Exists``; ``tolerationSeconds`` needs ``NoExecute``; ``Exists`` takes no
value). Every pool needs its quota resource in ``allocatable``, otherwise its quota
covers nothing. Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterable, Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.checks.k8s import LABEL_VALUE_FIX, QUALIFIED_NAME_FIX, label_value_problems, qualified_name_problems
from gpufleet.model.fleet import Fleet
from gpufleet.model.pools import Pool
from gpufleet.yamlin.errors import Issue

KUEUE_FLAVOR_MAX = 8


def _labels(base: FieldPath, pool: Pool) -> Iterator[Issue]:
    for key, value in pool.node_labels.items():
        path = base + FieldPath.of("nodeLabels", key)
        for problem in qualified_name_problems(key):
            yield Issue(path, f"invalid label key: {problem}", QUALIFIED_NAME_FIX)
        for problem in label_value_problems(value):
            yield Issue(path, f"label {problem}", LABEL_VALUE_FIX)


def _taints(base: FieldPath, pool: Pool) -> Iterator[Issue]:
    seen: dict[tuple[str, str], int] = {}
    for i, taint in enumerate(pool.taints):
        path = base.child("taints").index(i)
        for problem in qualified_name_problems(taint.key):
            yield Issue(path.child("key"), f"invalid taint key: {problem}", QUALIFIED_NAME_FIX)
        for problem in label_value_problems(taint.value or ""):
            yield Issue(path.child("value"), f"taint {problem}", LABEL_VALUE_FIX)
        if (taint.key, taint.effect) in seen:
            yield Issue(
                path.child("effect"),
                f"taints[{seen[taint.key, taint.effect]}] already has key {taint.key!r} and effect {taint.effect}",
                "keep one taint per key and effect",
            )
        seen.setdefault((taint.key, taint.effect), i)


def _tolerations(base: FieldPath, pool: Pool) -> Iterator[Issue]:
    for i, tol in enumerate(pool.tolerations):
        path = base.child("tolerations").index(i)
        if tol.key:
            for problem in qualified_name_problems(tol.key):
                yield Issue(path.child("key"), f"invalid toleration key: {problem}", QUALIFIED_NAME_FIX)
        elif tol.operator != "Exists":
            yield Issue(
                path.child("operator"),
                "a toleration without a key must use operator Exists (it tolerates every taint)",
                "set operator: Exists, or give the toleration a key",
            )
        if tol.operator == "Exists" and tol.value:
            yield Issue(path.child("value"), "operator Exists takes no value", "remove value, or use operator: Equal")
        elif tol.value:
            for problem in label_value_problems(tol.value):
                yield Issue(path.child("value"), f"toleration {problem}", LABEL_VALUE_FIX)
        if tol.toleration_seconds is not None and tol.effect != "NoExecute":
            yield Issue(
                path.child("tolerationSeconds"),
                "tolerationSeconds applies only to effect NoExecute",
                "set effect: NoExecute or remove tolerationSeconds",
            )


def _counts(base: FieldPath, pool: Pool) -> Iterator[Issue]:
    for field, items in (("nodeLabels", pool.node_labels), ("taints", pool.taints), ("tolerations", pool.tolerations)):
        if len(items) > KUEUE_FLAVOR_MAX:
            yield Issue(
                base.child(field),
                f"{len(items)} {field}: a Kueue ResourceFlavor allows at most {KUEUE_FLAVOR_MAX}",
                f"keep at most {KUEUE_FLAVOR_MAX} {field}",
            )


def _resources(base: FieldPath, pool: Pool) -> Iterator[Issue]:
    for res, amount in pool.allocatable.items():
        path = base + FieldPath.of("allocatable", res)
        for problem in qualified_name_problems(res):
            yield Issue(
                path, f"invalid resource name: {problem}", "use a resource name such as cpu, memory or nvidia.com/gpu"
            )
        if amount < 0:
            yield Issue(
                path, f"allocatable {res} is negative ({amount})", "use the node's allocatable amount (zero or more)"
            )
    if pool.gpu_resource not in pool.allocatable:
        yield Issue(
            base.child("gpuResource"),
            f"{pool.gpu_resource!r} is not in allocatable ({', '.join(pool.allocatable)}): quota on this pool would count nothing",
            f"add {pool.gpu_resource}: <per-node amount> to allocatable, or set gpuResource to one of its resources",
        )
    elif pool.gpus_per_node == 0:
        yield Issue(
            base + FieldPath.of("allocatable", pool.gpu_resource),
            f"{pool.gpu_resource} is 0 per node: quota and the node shape need it above zero",
            "set the per-node amount of the quota resource",
        )


def check(fleet: Fleet) -> Iterable[Issue]:
    for i, pool in enumerate(fleet.pools):
        base = FieldPath.of("pools", i)
        yield from _labels(base, pool)
        yield from _taints(base, pool)
        yield from _tolerations(base, pool)
        yield from _resources(base, pool)
        if pool.system == "kueue":
            yield from _counts(base, pool)
