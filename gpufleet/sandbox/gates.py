"""The feature gates and API versions the sandbox's control plane runs with: Kubernetes' own gang scheduling, switchable.

Read at ``k8s.io/kubernetes`` v1.37.2 (``pkg/features/kube_features.go``; issue 38):

- ``GenericWorkload`` (alpha 1.35, **beta 1.37, off by default**) serves the ``Workload`` and ``PodGroup`` APIs and
  the Pod field ``spec.schedulingGroup``, and puts the ``GangScheduling`` plugin in kube-scheduler's default
  profile (``pkg/scheduler/apis/config/v1/default_plugins.go``, ``applyGangScheduling``): there is no gate or
  plugin configuration of its own to set;
- ``WorkloadWithJob`` (KEP-5547, alpha 1.36, **still alpha at 1.37**, off) lets the Job controller create a
  ``Workload`` and a ``PodGroup`` for every new root Job (``pkg/controller/job/job_scheduling_manager.go``);
  the group's policy is ``basic`` unless the Job sets ``spec.scheduling.schedulingPolicy.gang``
  (``pkg/api/job/util.go``; 1.36.0 instead made a gang of an Indexed Job with parallelism = completions > 1);
- ``scheduling.k8s.io/v1beta1`` (``Workload``, ``PodGroup``, new in 1.37) is what kube-scheduler and the Job
  controller read; a beta API is served only when ``--runtime-config`` turns it on.

Feature gates go to the API server, the controller manager and the scheduler alike (each reads the same gate);
``--runtime-config`` to the API server only. Pure. Called by ``gpufleet.sandbox.controlplane`` (flags) and
``gpufleet.sandbox.up`` (``Options``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Mapping

NATIVE_GANG_GATES = {"GenericWorkload": True, "WorkloadWithJob": True}
NATIVE_GANG_APIS = {"scheduling.k8s.io/v1beta1": True}

_GATE = re.compile(r"^[A-Z][A-Za-z0-9]*$")
_API = re.compile(r"^([a-z0-9.-]+/)?v[0-9]+((alpha|beta)[0-9]+)?$|^api/all$")


@dataclass(frozen=True)
class Gates:
    feature_gates: Mapping[str, bool] = field(default_factory=dict)
    runtime_config: Mapping[str, bool] = field(default_factory=dict)

    def component_flags(self) -> list[str]:
        """``--feature-gates`` for any component, or nothing when no gate is set."""
        if not self.feature_gates:
            return []
        return ["--feature-gates=" + ",".join(f"{k}={_bool(v)}" for k, v in sorted(self.feature_gates.items()))]

    def apiserver_flags(self) -> list[str]:
        """The feature gates and ``--runtime-config`` (API versions served) for the API server."""
        runtime = [f"--runtime-config={','.join(f'{k}={_bool(v)}' for k, v in sorted(self.runtime_config.items()))}"]
        return self.component_flags() + (runtime if self.runtime_config else [])


def gates(
    native_gang: bool = False,
    feature_gates: Mapping[str, bool] | None = None,
    runtime_config: Mapping[str, bool] | None = None,
) -> Gates:
    """The control plane's gates: Kubernetes' gang scheduling on (``native_gang``) or the defaults, then the explicit
    ``feature_gates`` and ``runtime_config`` on top. A malformed name is a ``ValueError`` naming it and the form."""
    for name in feature_gates or {}:
        if not _GATE.match(name):
            raise ValueError(f"feature gate {name!r}: not a gate name (CamelCase, such as GenericWorkload)")
    for name in runtime_config or {}:
        if not _API.match(name):
            raise ValueError(
                f"runtime config {name!r}: not an API version (group/version, such as scheduling.k8s.io/v1beta1)"
            )
    base_gates = dict(NATIVE_GANG_GATES) if native_gang else {}
    base_apis = dict(NATIVE_GANG_APIS) if native_gang else {}
    return Gates({**base_gates, **(feature_gates or {})}, {**base_apis, **(runtime_config or {})})


def _bool(value: bool) -> str:
    return "true" if value else "false"
