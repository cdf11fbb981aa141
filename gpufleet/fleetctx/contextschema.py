"""The fleet context JSON as one typed definition (pydantic): what the renderer writes and a reader accepts.

:func:`gpufleet.render.context.render_context` builds the context of a validated fleet
model through :func:`write` (so every key it writes is declared, typed and ordered here);
:func:`validate` checks a context read back from a file against the same classes, with
the model's own name rules, before :meth:`gpufleet.fleetctx.context.FleetContext.from_dict`
(the lenient, pydantic-free reader the rules run on) builds it; ``tests/fleetctx`` checks
that reader reads every key declared here. Called by the admission webhook's reloader
(an invalid file is refused and the previous context kept): ``{}`` (no teams: every gang
denied) and ``"namespaces": "alpha"`` (five one-letter namespaces) are refused here with
the path of the bad field. (``gpufleet lint --fleet-context`` stays lenient on purpose: a
partial context that only sets what one rule reads is a documented way to lint.)
``docs/fleet-context.schema.json`` is generated from these classes
(``python -m gpufleet.fleetctx.contextschema > docs/fleet-context.schema.json``).

Unknown keys are ignored, not refused: a context written by a newer gpufleet (more
fields) must still load in an older controller during a rolling upgrade. Optional keys
an older digest lacks are described on each field (what a reader assumes without it).
"""

from __future__ import annotations

import json
import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from gpufleet.fleetctx.context import CONTEXT_VERSION
from gpufleet.kubetypes.durations import COLD_START_FLOOR_SECONDS
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import DNS_LABEL, KUEUE_NAMESPACE, NVIDIA_GPU, QUEUE_LABEL, VOLCANO_NAMESPACE
from gpufleet.model.base import Quantity
from gpufleet.model.schema import drop_property_titles
from gpufleet.yamlin.errors import Issue

Label = Field(min_length=1, max_length=63, pattern=DNS_LABEL)
SCHEMA_ID = "https://gpufleet.dev/schemas/v1/fleet-context.schema.json"


class _Doc(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True, use_attribute_docstrings=True)


class TeamQuotaDoc(_Doc):
    """The most of one resource a team's admitting system will ever grant it on one pool (its quota ceiling)."""

    pool: StrictStr = Label
    resource: StrictStr = NVIDIA_GPU
    system: Literal["kueue", "volcano"]
    nominal: Any
    """The team's nominal quota on the pool (a Kubernetes quantity)."""
    borrowingLimit: Any = None
    """The team's borrowing limit on the pool; absent = none set (may borrow what its cohort can lend)."""
    ceiling: Any
    """The most the engine will ever admit for the team on the pool, in use at once: Kueue's
    ``potentialAvailable`` (the "maximum capacity" a podset is compared against), Volcano's queue capability."""
    ceilingFrom: Literal["nominal", "borrowingLimit", "cohort", "capability", "ancestorCapability", "pools"]
    """What sets the ceiling: the nominal quota alone (no cohort), nominal + borrowing limit, what the cohort
    tree can lend, the team's Volcano queue capability, an ancestor queue's, or the Volcano pools' total."""
    scope: Literal["flavor", "queue"] = "flavor"
    """``flavor``: the ceiling is this pool's alone (Kueue); ``queue``: one ceiling shared by all the team's
    pools of this system (a Volcano queue's capability covers every Volcano pool)."""


class TeamDoc(_Doc):
    """A team: its namespaces, its queue in each engine, the pools it holds quota on."""

    name: StrictStr = Label
    namespaces: list[StrictStr] = Field(min_length=1)
    localQueue: StrictStr | None = None
    """The Kueue LocalQueue in each of the team's namespaces (null: the team has no Kueue quota)."""
    volcanoQueue: StrictStr | None = None
    """The team's Volcano leaf queue (null: no Volcano quota)."""
    volcanoNamespaces: list[StrictStr] = []
    """The team's namespaces owned by Volcano (docs/architecture.md, "Who owns a namespace")."""
    pools: list[StrictStr] = []
    """The pools the team holds quota on, in model order."""
    quota: list[TeamQuotaDoc] | None = None
    """The team's quota ceiling on each Kueue and Volcano pool it holds quota on; absent (an older digest) =
    unknown, and the rules that compare a gang against it (GANG406) say nothing."""


class PoolDoc(_Doc):
    """A pool of identical nodes and the engine that admits gangs to it."""

    name: StrictStr = Label
    system: Literal["kueue", "volcano", "coscheduling", "native"]
    nodeCount: StrictInt = Field(ge=0, le=1_000_000)
    gpuResource: StrictStr = NVIDIA_GPU
    allocatable: dict[StrictStr, Any] = {}
    """One node's allocatable resources as Kubernetes quantities ({"nvidia.com/gpu": "8", "memory": "1800Gi"})."""
    nodeLabels: dict[StrictStr, StrictStr] = {}
    topologyLevels: list[StrictStr] = []
    """Written only for a pool with topology levels: node labels every node carries, widest domain first."""
    placement: Literal["per-pod", "native"] = "per-pod"
    """Written only for a Kueue pool whose admitted gangs kube-scheduler places whole (``native``)."""
    dedicatedTo: StrictStr | None = Field(None, min_length=1, max_length=63, pattern=DNS_LABEL)
    """Written only for a statically partitioned pool: the one team it runs."""
    coldStartBudgetSeconds: StrictInt | None = Field(None, ge=0, le=10**9)
    """Written only for a pool with a cold-start budget (GANG502's floor; a coscheduling PodGroup's timeout)."""


class OperatorDoc(_Doc):
    """One workload operator as the cluster runs it (the model's ``workloadOperators.<name>``)."""

    installed: bool = True
    version: StrictStr | None = None
    """The operator's tag (the model's, else the tag gpufleet's reader follows)."""
    gangScheduler: Literal["volcano", "scheduler-plugins"] | None = None
    """The engine it writes PodGroups for; absent = none (upstream's default)."""
    featureGates: list[StrictStr] = []


class WorkloadOperatorsDoc(_Doc):
    """The operators the model declares; one left out is unknown (the readers take upstream's defaults)."""

    jobset: OperatorDoc | None = None
    leaderworkerset: OperatorDoc | None = None
    mpiOperator: OperatorDoc | None = None
    trainer: OperatorDoc | None = None
    trainingOperator: OperatorDoc | None = None
    kuberay: OperatorDoc | None = None


class QuantityDoc(BaseModel):
    value: Quantity


class PriorityClassDoc(_Doc):
    name: StrictStr
    value: StrictInt = Field(ge=-2_147_483_648, le=1_000_000_000)
    preemptionPolicy: Literal["Never", "PreemptLowerPriority"] = "Never"


class FleetContextDoc(_Doc):
    """What the rule engine and the admission controller know of a fleet: a digest of its validated model."""

    version: Literal[1]
    fleet: StrictStr = Field(min_length=1)
    coldStartFloorSeconds: StrictInt = Field(COLD_START_FLOOR_SECONDS, ge=0, le=10**9)
    waitForPodsReadyTimeoutSeconds: StrictInt | None = Field(None, ge=0, le=10**9)
    """Kueue's rendered ``waitForPodsReady.timeout`` (informative: the rules read the floor and the budgets)."""
    kueueNamespace: StrictStr = KUEUE_NAMESPACE
    volcanoNamespace: StrictStr = VOLCANO_NAMESPACE
    queueLabel: StrictStr = QUEUE_LABEL
    gangLabel: StrictStr | None = None
    """The label the admission controller stamps on gang pod templates; written only when observability is on."""
    kubernetesVersion: StrictStr | None = Field(None, pattern=r"^1\.[0-9]+$")
    """The cluster's minor (``1.37``). Without it no Job counts as gang-scheduled by Kubernetes itself."""
    workloadGates: list[StrictStr] | None = None
    """The workload-scheduling feature gates on (GenericWorkload, WorkloadWithJob)."""
    teams: list[TeamDoc] = Field(min_length=1)
    pools: list[PoolDoc] = Field(min_length=1)
    priorityClasses: list[PriorityClassDoc] = []
    coschedulingScheduler: StrictStr | None = None
    """The scheduler-plugins scheduler's name; written only with a coscheduling pool."""
    manageJobsWithoutQueueName: bool | None = None
    """Kueue's rendered setting. Without it (an older digest) the rules say what happens under either setting."""
    kueueManagedNamespaces: list[StrictStr] | None = None
    """The namespaces Kueue's ``managedJobsNamespaceSelector`` selects (unknown without it)."""
    kueueFrameworks: list[StrictStr] | None = None
    """Kueue's enabled ``integrations.frameworks`` as rendered (unknown without it)."""
    partitionExemptNamespaces: list[StrictStr] | None = None
    """Namespaces static partitioning exempts (VAP and GANG807); without it, ``kube-system`` alone."""
    workloadOperators: WorkloadOperatorsDoc | None = None
    """The workload operators' settings that change what they do with a job (an older digest: upstream defaults)."""


def write(fields: dict[str, Any]) -> dict[str, Any]:
    """The context JSON of ``fields``: checked against :class:`FleetContextDoc`, keys in its order, unset keys left out.

    Raises pydantic's ``ValidationError`` when the renderer builds a shape this definition
    does not declare (a defect of the renderer, never of the user's model).
    """
    doc = FleetContextDoc.model_validate({"version": CONTEXT_VERSION, **fields})
    return doc.model_dump(mode="json", exclude_unset=True)


def json_schema() -> dict[str, Any]:
    """The JSON Schema (draft 2020-12) of the fleet context, as docs/fleet-context.schema.json holds it."""
    body: dict[str, Any] = drop_property_titles(FleetContextDoc.model_json_schema(mode="validation"))
    body.pop("title", None)
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        "title": "gpufleet fleet context",
    } | body


def validate(data: Any) -> list[Issue]:
    """Every problem of a fleet context document, each at its path; empty when it is usable."""
    if not isinstance(data, dict):
        return [
            Issue(
                "(document)",
                f"the fleet context must be a JSON object, not {type(data).__name__}",
                "write it with gpufleet.render.context.render_context (the stack mounts it)",
            )
        ]
    if data.get("version", CONTEXT_VERSION) != CONTEXT_VERSION:
        return [
            Issue(
                FieldPath.of("version"),
                f"fleet context version {data.get('version')!r} is not supported (expected {CONTEXT_VERSION})",
                "render the context with this gpufleet version",
            )
        ]
    try:
        doc = FleetContextDoc.model_validate(data)
    except ValidationError as exc:
        return [
            Issue(FieldPath.of(*e["loc"]) or "(document)", e["msg"], "render the context again from the fleet model")
            for e in exc.errors(include_url=False)[:50]
        ]
    issues = []
    for i, pool in enumerate(doc.pools):
        for resource, amount in pool.allocatable.items():
            try:
                QuantityDoc(value=amount)
            except ValidationError as exc:
                issues.append(
                    Issue(
                        FieldPath.of("pools", i, "allocatable", resource),
                        exc.errors()[0]["msg"],
                        "use a Kubernetes quantity (8, 1800Gi)",
                    )
                )
    for t, team in enumerate(doc.teams):
        for q, entry in enumerate(team.quota or ()):
            for key in ("nominal", "borrowingLimit", "ceiling"):
                amount = getattr(entry, key)
                if amount is None:
                    continue
                try:
                    QuantityDoc(value=amount)
                except ValidationError as exc:
                    issues.append(
                        Issue(
                            FieldPath.of("teams", t, "quota", q, key),
                            exc.errors()[0]["msg"],
                            "use a Kubernetes quantity (8, 1800Gi)",
                        )
                    )
        for n, ns in enumerate(team.namespaces):
            if not ns or len(ns) > 63 or not re.fullmatch(DNS_LABEL, ns):
                issues.append(
                    Issue(
                        FieldPath.of("teams", t, "namespaces", n),
                        f"{ns[:70]!r} is not a namespace name",
                        "use a DNS label",
                    )
                )
        for n, ns in enumerate(team.volcanoNamespaces):
            if ns not in team.namespaces:
                issues.append(
                    Issue(
                        FieldPath.of("teams", t, "volcanoNamespaces", n),
                        f"{ns[:70]!r} is not one of the team's namespaces",
                        "render the context again from the fleet model",
                    )
                )
    return issues


if __name__ == "__main__":  # python -m gpufleet.fleetctx.contextschema > docs/fleet-context.schema.json
    print(json.dumps(json_schema(), indent=2, ensure_ascii=False))
