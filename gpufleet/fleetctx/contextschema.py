"""The schema of the fleet context JSON, as a pydantic model: what a reader accepts.

:func:`gpufleet.render.context.render_context` writes the context from a validated
fleet model; :func:`validate` checks a context read back from a file against the
same shape, with the model's own name rules (``gpufleet.model.base``), before
:meth:`gpufleet.fleetctx.context.FleetContext.from_dict` builds it. Called by the admission
webhook's reloader (an invalid file is refused and the previous context kept):
``{}`` (no teams: every gang denied) and ``"namespaces": "alpha"`` (five one-letter
namespaces) are refused here with the path of the bad field. (``gpufleet lint
--fleet-context`` stays lenient on purpose: a partial context that only sets what one
rule reads is a documented way to lint.)

Unknown keys are ignored, not refused: a context written by a newer gpufleet (more
fields) must still load in an older controller during a rolling upgrade.
"""

from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from gpufleet.fleetctx.context import CONTEXT_VERSION
from gpufleet.kubetypes.durations import COLD_START_FLOOR_SECONDS
from gpufleet.kubetypes.fieldpath import FieldPath
from gpufleet.kubetypes.vocab import DNS_LABEL, NVIDIA_GPU, QUEUE_LABEL
from gpufleet.model.base import Quantity
from gpufleet.yamlin.errors import Issue

Label = Field(min_length=1, max_length=63, pattern=DNS_LABEL)


class _Doc(BaseModel):
    model_config = ConfigDict(extra="ignore", strict=True)


class TeamDoc(_Doc):
    name: StrictStr = Label
    namespaces: list[StrictStr] = Field(min_length=1)
    localQueue: StrictStr | None = None
    volcanoQueue: StrictStr | None = None
    volcanoNamespaces: list[StrictStr] = []
    pools: list[StrictStr] = []


class PoolDoc(_Doc):
    name: StrictStr = Label
    system: Literal["kueue", "volcano", "coscheduling", "native"]
    placement: Literal["per-pod", "native"] = "per-pod"
    nodeCount: StrictInt = Field(ge=0, le=1_000_000)
    gpuResource: StrictStr = NVIDIA_GPU
    allocatable: dict[StrictStr, Any] = {}
    nodeLabels: dict[StrictStr, StrictStr] = {}
    dedicatedTo: StrictStr | None = Field(None, min_length=1, max_length=63, pattern=DNS_LABEL)
    coldStartBudgetSeconds: StrictInt | None = Field(None, ge=0, le=10**9)


class QuantityDoc(BaseModel):
    value: Quantity


class PriorityClassDoc(_Doc):
    name: StrictStr
    value: StrictInt = Field(ge=-2_147_483_648, le=1_000_000_000)
    preemptionPolicy: Literal["Never", "PreemptLowerPriority"] = "Never"


class FleetContextDoc(_Doc):
    version: Literal[1]
    fleet: StrictStr = Field(min_length=1)
    coldStartFloorSeconds: StrictInt = Field(COLD_START_FLOOR_SECONDS, ge=0, le=10**9)
    waitForPodsReadyTimeoutSeconds: StrictInt | None = Field(None, ge=0, le=10**9)
    kueueNamespace: StrictStr = "kueue-system"
    volcanoNamespace: StrictStr = "volcano-system"
    queueLabel: StrictStr = QUEUE_LABEL
    gangLabel: StrictStr | None = None
    manageJobsWithoutQueueName: bool | None = None
    kueueManagedNamespaces: list[StrictStr] | None = None
    kueueFrameworks: list[StrictStr] | None = None
    partitionExemptNamespaces: list[StrictStr] | None = None
    coschedulingScheduler: StrictStr | None = None
    kubernetesVersion: StrictStr | None = Field(None, pattern=r"^1\.[0-9]+$")
    workloadGates: list[StrictStr] | None = None
    teams: list[TeamDoc] = Field(min_length=1)
    pools: list[PoolDoc] = Field(min_length=1)
    priorityClasses: list[PriorityClassDoc] = []


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
