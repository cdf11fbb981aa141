"""GANG205 replica-level-restart: a Kubeflow job that restarts single ranks.

Called by the rule engine (linter, policy pack, admission controller) through the registry.

What it checks

A Kubeflow job (PyTorchJob, MPIJob, TFJob, ...) whose `spec.<kind>ReplicaSpecs.<role>.restartPolicy`
is `OnFailure`, `Always` or `ExitCode`. Not flagged: an unset value, an MPIJob
`Launcher` (a relaunched `mpirun` starts every rank again), and elastic jobs
(`gpufleet.dev/elastic: "true"` or a PyTorch `elasticPolicy`), whose agents are built
to re-admit ranks. The training operator accepts all of these.

Why it is unsafe

The operator applies the policy per pod: `OnFailure`/`Always` restart a crashed
container in place, and `ExitCode` deletes and recreates the one pod that exited with
a retryable code. Either way a single rank comes back into a job whose other ranks are
blocked in a collective with the old one: the restarted rank hangs in rendezvous, the
others hang until the NCCL timeout, and the gang holds its GPUs doing nothing. Restart
the whole job instead (`Never` plus `runPolicy.backoffLimit`, or a gang scheduler
policy).

Example

```yaml
apiVersion: kubeflow.org/v1
kind: PyTorchJob
spec:
  pytorchReplicaSpecs:
    Worker:
      replicas: 8
      restartPolicy: OnFailure
```

Preferred form

```yaml
    Worker:
      replicas: 8
      restartPolicy: Never
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import CelCheck, CelForm, resources
from gpufleet.rules.gangs import is_elastic
from gpufleet.rules.remedy import set_all
from gpufleet.workloads import as_map
from gpufleet.workloads import outcomes as O
from gpufleet.workloads.cel import elastic

PARTIAL = {"OnFailure", "Always", "ExitCode"}


def _partial(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[tuple[FieldPath, str, str]]:
    """(path, role, policy) for each replica type that restarts single ranks."""
    view = ctx.run.view(obj)
    if view is None or is_elastic(view):
        return
    for field, specs in as_map(obj.get("spec")).items():
        if not (isinstance(field, str) and field.endswith("ReplicaSpecs")) or not isinstance(specs, Mapping):
            continue
        for role, rspec in specs.items():
            policy = as_map(rspec).get("restartPolicy")
            if policy in PARTIAL and not (obj.get("kind") == "MPIJob" and role == "Launcher"):
                yield FieldPath.of("spec", field, str(role), "restartPolicy"), str(role), str(policy)


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    for path, role, policy in _partial(obj, ctx):
        yield Violation(
            path,
            f"restartPolicy {policy} restarts single {role} pods: the restarted rank and the rest of "
            "the gang hang waiting for each other",
            f"set {path} to Never",
        )


def remediate(obj: dict[str, Any], ctx: CheckContext) -> dict[str, Any]:
    return set_all(obj, ((path, "Never") for path, _, _ in _partial(obj, ctx)))


def _bad(field: str, launcher: bool) -> str:
    """CEL: role ``r`` of ``object.spec.<field>`` restarts single pods (an MPIJob's Launcher excepted when ``launcher``)."""
    specs = f"object.spec.{field}"
    skip = "r != 'Launcher' && " if launcher else ""
    return f"({skip}has({specs}[r].restartPolicy) && {specs}[r].restartPolicy in {sorted(PARTIAL)})"


def _replicas(field: str, launcher: bool = False) -> CelCheck:
    """No role of ``spec.<field>`` restarts single pods, unless the job is elastic."""
    bad, specs = _bad(field, launcher), f"object.spec.{field}"
    role = f"{specs}.filter(r, {bad})[0]"
    return CelCheck(
        f"variables.elastic || !has({specs}) || !{specs}.exists(r, {bad})",
        f"'spec.{field}.' + {role} + '.restartPolicy'",
        f"'restartPolicy ' + {specs}[{role}].restartPolicy + ' restarts single ' + {role} + "
        "' pods: the restarted rank and the rest of the gang hang waiting for each other'",
        f"'set spec.{field}.' + {role} + '.restartPolicy to Never'",
    )


CEL = CelForm(
    resources=resources(("kubeflow.org", "pytorchjobs"), ("kubeflow.org", "mpijobs")),
    variables=(("elastic", f"{elastic()} || has(object.spec.elasticPolicy)"),),
    checks=(_replicas("pytorchReplicaSpecs"), _replicas("mpiReplicaSpecs", launcher=True)),
    note="none; TFJob, XGBoostJob, PaddleJob and JAXJob are not sent to the webhook either (lint and policy pack only)",
)


RULE = Rule(
    code="GANG205",
    name="replica-level-restart",
    family="restarts",
    severity=Severity.ERROR,
    summary="A Kubeflow replica type restarts single pods (OnFailure/Always/ExitCode) inside a synchronous gang.",
    fix="set replicaSpecs[*].restartPolicy to Never and restart the job as a whole",
    kinds=tuple(("kubeflow.org", k) for k in ("PyTorchJob", "MPIJob", "TFJob", "XGBoostJob", "PaddleJob", "JAXJob")),
    check=check,
    remediate=remediate,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.BROKEN_GANG_RUNS_ON,  # the replica type restarts single pods
)
