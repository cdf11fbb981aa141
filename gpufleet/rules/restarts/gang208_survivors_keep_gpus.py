"""GANG208 survivors-keep-gpus: when the gang fails for good, its surviving ranks keep running and hold their GPUs.

Called by the rule engine (linter, policy pack, admission controller) through the registry;
runs with and without a fleet context. An invariant over the gang contract
(:mod:`gpufleet.workloads.contract`, invariant 6, "survivors stop"): it reads only the contract's
``terminal`` record, which each kind's reader fills from its operator's source, and names no kind.

What it checks

A gang (two or more synchronous ranks) whose contract says the surviving pods are not stopped when
the workload fails for good, and whose reader knows the setting that would stop them: a Kubeflow
job's or an MPIJob's `runPolicy.cleanPodPolicy`, which training-operator v1.9.4 and mpi-operator
v0.8.0 both default to `None` (their `DeletePodsAndServices` and `setDefaultsRunPolicy`); a RayJob's
`shutdownAfterJobFinishes`, without which KubeRay v1.5.0 keeps the cluster after the job ends.

Why it is unsafe

A failed job is finished for its users, but with `cleanPodPolicy: None` its ranks that did not
fail keep running: they hold their GPUs (and, under Kueue, the job's quota stays released while
the pods still occupy the nodes) until someone deletes the job. A gang of 64 ranks where one rank
crashed leaves 63 GPUs idle but taken, often for days.

Example

```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
spec:
  runPolicy: {}          # cleanPodPolicy defaults to None
  pytorchReplicaSpecs: ...
```

Preferred form

```yaml
spec:
  runPolicy:
    cleanPodPolicy: Running   # the running pods are deleted when the job ends
```
"""

from __future__ import annotations

import json
from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import set_value
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.workloads import WORKLOAD_KINDS
from gpufleet.workloads.contract.types import Terminal


def _kept(obj: Mapping[str, Any], ctx: CheckContext) -> Terminal | None:
    """The contract's terminal record when a gang's survivors keep running and a setting would stop them."""
    contract = ctx.run.contract(obj)
    terminal = contract.terminal
    if not contract.is_gang or terminal.survivors_stop or terminal.fix_path is None:
        return None
    return terminal


def _yaml(value: object) -> str:
    """``value`` as YAML writes it (``Running``, ``true``)."""
    return value if isinstance(value, str) else json.dumps(value)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    terminal = _kept(obj, ctx)
    if terminal is None or terminal.fix_path is None:
        return
    why = terminal.origin.note or str(terminal.origin)
    yield Violation(
        terminal.fix_path,
        f"when the gang fails for good its surviving ranks keep running and hold their GPUs ({why}; {terminal.origin})",
        f"set {terminal.fix_path} to {_yaml(terminal.fix_value)} so they are stopped when it ends",
    )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    terminal = _kept(obj, ctx)
    if terminal is not None and terminal.fix_path is not None:
        set_value(obj, terminal.fix_path, terminal.fix_value)
    return obj


RULE = Rule(
    code="GANG208",
    name="survivors-keep-gpus",
    family="restarts",
    severity=Severity.WARNING,
    summary="When the gang fails for good, its surviving ranks keep running and hold their GPUs.",
    fix="set the workload's clean-up setting (runPolicy.cleanPodPolicy: Running; a RayJob's shutdownAfterJobFinishes)",
    kinds=tuple(sorted(WORKLOAD_KINDS)),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    predicts=frozenset(),  # after the gang has failed for good: no trial outcome shows it
)
