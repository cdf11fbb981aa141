"""Where the admission defaulting runs: ``controller.mutations`` against the cluster's version and the fleet's needs.

``webhook`` always works. ``apiServer`` and ``both`` render MutatingAdmissionPolicies in
``admissionregistration.k8s.io/v1`` (:mod:`gpufleet.mutate.policies`), which Kubernetes serves from
1.36 on (``MutatingAdmissionPolicy`` GA and on by default, ``pkg/features/kube_features.go`` at
v1.37.2; 1.34 and 1.35 have only ``v1beta1`` behind the gate, off by default). ``apiServer`` drops
the mutating webhook, so it is refused where the fleet needs a defaulting the policies do not
render: a dedicated pool's toleration and node selector, a coscheduling pool's routing, a native
pool's gang field and node selector, and the queue label of Kueue's LeaderWorkerSet and Ray
integrations. Registered in ``CHECKS``.
"""

from __future__ import annotations

from typing import Iterator

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.model.fleet import Fleet
from gpufleet.yamlin.errors import Issue

FIRST_MINOR = 36
"""The first Kubernetes minor serving MutatingAdmissionPolicy in ``admissionregistration.k8s.io/v1``."""
WEBHOOK_ONLY_FRAMEWORKS = ("leaderworkerset.x-k8s.io/leaderworkerset", "ray.io/rayjob", "ray.io/raycluster")
_PATH = FieldPath.of("controller", "mutations")


def _webhook_needs(fleet: Fleet) -> list[str]:
    needs = [
        f"pool {p.name!r} is dedicated to team {p.dedicated_to!r} (toleration and node selector)"
        for p in fleet.pools
        if p.dedicated_to
    ]
    needs += [
        f"pool {p.name!r} is held by coscheduling (scheduler name and pod-group label)"
        for p in fleet.pools_of("coscheduling")
    ]
    needs += [
        f"pool {p.name!r} relies on Kubernetes' own gang scheduling (the Job's gang field, node selector)"
        for p in fleet.pools
        if p.system == "native" or p.placement == "native"
    ]
    needs += [
        f"Kueue's {f} integration is on (its queue label)"
        for f in fleet.admission.frameworks
        if f in WEBHOOK_ONLY_FRAMEWORKS
    ]
    return needs


def check(fleet: Fleet) -> Iterator[Issue]:
    where = fleet.controller.mutations
    if where == "webhook" or not fleet.controller.enabled:
        return
    if fleet.kubernetes.minor < FIRST_MINOR:
        yield Issue(
            _PATH,
            f"controller.mutations {where!r} renders MutatingAdmissionPolicies, which Kubernetes "
            f"{fleet.kubernetes.version} does not serve in admissionregistration.k8s.io/v1 (1.{FIRST_MINOR}+)",
            f"set kubernetes.version to 1.{FIRST_MINOR} or later, or keep controller.mutations: webhook",
        )
        return
    if where == "apiServer":
        for need in _webhook_needs(fleet):
            yield Issue(
                _PATH,
                f"controller.mutations 'apiServer' drops the mutating webhook, but {need}, a defaulting "
                "the MutatingAdmissionPolicies do not render",
                "set controller.mutations: both (or webhook)",
            )
