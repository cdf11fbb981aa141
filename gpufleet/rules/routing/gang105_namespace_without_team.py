"""GANG105 namespace-without-team: a gang in a namespace the fleet model gives to no team.

Called by the rule engine (linter, policy pack, admission controller) through the
registry; only with a fleet context.

What it checks

A gang workload (Volcano Job, PodGroup, Kubeflow job, JobSet, TrainJob, parallel batch
Job, pod-group pod) whose `metadata.namespace` belongs to no team of the fleet model.
Objects without a namespace are not checked: their namespace is decided at apply time.

Why it is unsafe

Every quota, queue and priority guarantee of the fleet is per team. A gang in a
namespace no team owns has no LocalQueue to be admitted through and no Volcano queue
of its own: it either never starts or, worse, runs outside every quota (Kueue ignores
it; Volcano puts it in `default`), competing one pod at a time with the admitted gangs.

Example

```yaml
apiVersion: batch.volcano.sh/v1alpha1
kind: Job
metadata:
  name: train
  namespace: scratch      # no team owns it
```

Preferred form

```yaml
metadata:
  name: train
  namespace: research     # listed under a team's namespaces in the fleet model
```
"""

from __future__ import annotations

from typing import Any, Iterator, Mapping

from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.rules import gangs
from gpufleet.rules.api import CheckContext, Rule, Severity, Violation
from gpufleet.rules.celform import JOB_KINDS, LWS_AND_RAY, POD_GROUPS, CelCheck, CelForm, fact, resources, without
from gpufleet.rules.gangs import GANG_KINDS
from gpufleet.rules.routing._helpers import POD_GROUP_KINDS
from gpufleet.workloads import outcomes as O


def check(obj: Mapping[str, Any], ctx: CheckContext) -> Iterator[Violation]:
    view = ctx.run.view(obj)
    if view is None or not gangs.is_gang(view, ctx) or not view.namespace or ctx.fleet is None:
        return
    if ctx.fleet.team_for_namespace(view.namespace) is None:
        yield Violation(
            FieldPath.of("metadata", "namespace"),
            f"namespace {view.namespace!r} belongs to no team of fleet {ctx.fleet.fleet!r}: the gang has "
            "no queue and no quota",
            "run the gang in a team's namespace, or add the namespace to a team in the fleet model",
        )


CEL = CelForm(
    resources=without(resources(*JOB_KINDS, *POD_GROUPS), ("batch", "jobs"), *LWS_AND_RAY),  # all but the note's kinds
    facts=("teamNamespace",),
    checks=(
        CelCheck(
            fact("teamNamespace", "request.namespace"),
            "'metadata.namespace'",
            "'namespace ' + request.namespace + ' belongs to no team of the fleet: the gang has no queue and no quota'",
            "'run the gang in a team\\'s namespace, or add the namespace to a team in the fleet model'",
        ),
    ),
    note="batch Jobs (a gang only when it asks for GPUs, a fact of the GPU rules), LeaderWorkerSets and Ray kinds "
    "(gangs by their size)",
)


RULE = Rule(
    code="GANG105",
    name="namespace-without-team",
    family="routing",
    severity=Severity.ERROR,
    summary="A gang runs in a namespace that no team of the fleet model owns.",
    fix="move the gang to a team's namespace or give the namespace to a team",
    kinds=(*GANG_KINDS, *POD_GROUP_KINDS),
    check=check,
    needs_fleet=True,
    doc=__doc__ or "",
    cel=CEL,
    predicts=O.NOT_JUDGED,  # no team, no quota: a hazard under contention, which a trial alone does not create
)
