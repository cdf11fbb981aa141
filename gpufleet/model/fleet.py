"""The fleet model: one YAML file per environment (``stacks/<env>.fleet.yaml``).

The root of the typed model. ``gpufleet.model.loader`` parses a file into a
:class:`Fleet`; ``gpufleet.model.checks`` checks everything pydantic cannot see field by
field (references, sums, cycles, engine rules); the renderers and the Pulumi
components read the result.
"""

from __future__ import annotations

import re
from functools import cached_property
from typing import Literal, Sequence

from pydantic import Field, field_validator

from gpufleet.kubetypes.vocab import (
    ADMISSION_OPT_OUT_LABEL,
    DNS_LABEL_RE,
    KUEUE_NAMESPACE,
    PARTITION_ALWAYS_EXEMPT,
    VOLCANO_NAMESPACE,
)
from gpufleet.model.admission import Admission
from gpufleet.model.base import Base, Name
from gpufleet.model.cluster import Kubernetes
from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.model.observability import Observability
from gpufleet.model.operators import WorkloadOperators
from gpufleet.model.pools import Pool
from gpufleet.model.priority import PriorityClass
from gpufleet.model.teams import Cohort, Team
from gpufleet.model.volcano import VolcanoScheduler

API_VERSION = "gpufleet.dev/v1alpha1"


class KueueEngine(Base):
    chart_version: str = "0.19.2"
    """Kueue Helm chart version (oci://registry.k8s.io/kueue/charts/kueue); gpufleet renders for 0.19.x."""
    namespace: Name = KUEUE_NAMESPACE
    """Namespace of the Kueue controller (kept out of team namespaces)."""
    release_name: Name = "kueue"
    """Helm release name; the manager ConfigMap is <releaseName>-manager-config."""


class VolcanoEngine(Base):
    enabled: bool = True
    """Install Volcano; required when any pool has system: volcano."""
    chart_version: str = "1.15.1"
    """Volcano Helm chart version (https://volcano-sh.github.io/helm-charts); gpufleet renders for 1.15.x."""
    namespace: Name = VOLCANO_NAMESPACE
    """Namespace of the Volcano components (kept out of team namespaces)."""
    release_name: Name = "volcano"
    """Helm release name; the scheduler ConfigMap is <releaseName>-scheduler-configmap."""


class Engines(Base):
    kueue: KueueEngine = Field(default_factory=KueueEngine)
    """The Kueue installation (always installed)."""
    volcano: VolcanoEngine = Field(default_factory=VolcanoEngine)
    """The Volcano installation."""
    coscheduling: CoschedulingEngine = Field(default_factory=CoschedulingEngine)
    """scheduler-plugins as a second scheduler (installed only when a pool has system: coscheduling)."""


SERVICE_ACCOUNT = rf"^{DNS_LABEL_RE}/[a-z0-9]([-a-z0-9.]*[a-z0-9])?$"


class NamespaceGuard(Base):
    """Who may change the labels that put a team namespace in the webhooks' (and Kueue's) scope.

    Rendered as a ValidatingAdmissionPolicy (``gpufleet.render.namespace_guard``). The
    stack's own identity (the credentials ``pulumi up`` applies with) must be named here,
    or the stack cannot move a namespace to another team or engine; creating team
    namespaces with the labels the model gives them needs no name.
    """

    enabled: bool = True
    """Render the policy that refuses relabelling team namespaces to anyone not named below."""
    users: list[str] = Field(default_factory=list)
    """User names (``request.userInfo.username``) allowed to change the labels, e.g. your CI's."""
    groups: list[str] = Field(default_factory=lambda: ["system:masters"])
    """Groups allowed to change the labels (default ``system:masters``, the cluster-admin certificate group)."""
    service_accounts: list[str] = Field(default_factory=list)
    """Service accounts allowed to change the labels, as ``<namespace>/<name>`` (e.g. a Pulumi operator's)."""

    @field_validator("service_accounts")
    @classmethod
    def _namespace_slash_name(cls, value: list[str]) -> list[str]:
        bad = [v for v in value if not re.match(SERVICE_ACCOUNT, v)]
        if bad:
            raise ValueError(f"{bad} are not <namespace>/<name> service accounts, e.g. pulumi-system/pulumi-operator")
        return value


class Controller(Base):
    enabled: bool = True
    """Deploy the gang-admission controller (admission webhook)."""
    namespace: Name = "gpufleet-system"
    """Namespace of the controller (kept out of team namespaces)."""
    opt_out_label: str = ADMISSION_OPT_OUT_LABEL
    """Namespaces labelled ``<optOutLabel>: disabled`` are skipped by the webhook."""
    replicas: int = Field(default=3, ge=1)
    """Webhook replicas (the webhook fails closed, so keep at least 2 in production; one gets no PodDisruptionBudget)."""
    enforcement: Literal["webhook", "apiServer", "both"] = "webhook"
    """Where the gang-safety rules are enforced on admission: ``webhook`` (the controller's validating webhook runs
    every rule), ``apiServer`` (the rules with a CEL form run as ValidatingAdmissionPolicies inside the API server,
    no validating webhook: the others are left to the linter and the policy pack), or ``both`` (docs/webhook.md)."""
    mutations: Literal["webhook", "apiServer", "both"] = "webhook"
    """Where the admission defaulting (queue label, Volcano queue, scheduler, ``minAvailable``, restart policies, gang
    label) is done: ``webhook`` (the controller's ``/mutate``), ``apiServer`` (MutatingAdmissionPolicies inside the
    API server, Kubernetes 1.36+, no mutating webhook) or ``both`` (docs/webhook.md)."""
    namespace_guard: NamespaceGuard = Field(default_factory=NamespaceGuard)
    """Who may change the scope labels of team namespaces (``<optOutLabel>``, ``gpufleet.dev/team``, ...)."""


class Fleet(Base):
    api_version: Literal["gpufleet.dev/v1alpha1"] = Field(alias="apiVersion")
    """Model format version: gpufleet.dev/v1alpha1."""
    kind: Literal["Fleet"]
    """Always Fleet."""
    name: Name
    """Environment name (dev, prod)."""
    kubernetes: Kubernetes = Field(default_factory=Kubernetes)
    """The cluster: its Kubernetes version and workload-scheduling feature gates (native gang scheduling)."""
    engines: Engines = Field(default_factory=Engines)
    """Kueue and Volcano installations (chart versions, namespaces)."""
    pools: list[Pool] = Field(min_length=1)
    """Node pools: the physical GPU capacity, each held by Kueue or Volcano."""
    cohorts: list[Cohort] = Field(default_factory=list)
    """Cohorts: groups of teams that borrow from and lend to each other."""
    teams: list[Team] = Field(default_factory=list)
    """Teams: quota per pool, namespaces, preemption."""
    priority_classes: list[PriorityClass] = Field(default_factory=list)
    """Priority classes for gang workloads (PriorityClass + Kueue WorkloadPriorityClass)."""
    admission: Admission = Field(default_factory=Admission)
    """Kueue manager configuration: gang admission, frameworks, fair sharing."""
    volcano: VolcanoScheduler = Field(default_factory=VolcanoScheduler)
    """Volcano scheduler configuration."""
    controller: Controller = Field(default_factory=Controller)
    """The gpufleet gang-admission controller (webhook)."""
    observability: Observability = Field(default_factory=Observability)
    """Gang alerts: startup budgets, stall window, requeue-storm threshold (PodMonitor, PrometheusRule)."""
    workload_operators: WorkloadOperators = Field(default_factory=WorkloadOperators)
    """The workload operators the cluster runs (JobSet, LeaderWorkerSet, mpi-operator, Trainer, training-operator,
    KubeRay) and the settings that change what they do with a job; unset ones are unknown (upstream defaults)."""
    partition_exempt_namespaces: list[Name] = Field(default_factory=list)
    """Namespaces of node agents (e.g. the GPU operator's) exempt from static partitioning, besides kube-system."""

    @property
    def partition_exempt(self) -> list[str]:
        """Every namespace exempt from static partitioning: kube-system, then the model's list (the VAP and GANG807 read it)."""
        return list(dict.fromkeys([*PARTITION_ALWAYS_EXEMPT, *self.partition_exempt_namespaces]))

    def pool(self, name: str) -> Pool | None:
        return next((p for p in self.pools if p.name == name), None)

    def cohort(self, name: str) -> Cohort | None:
        return next((c for c in self.cohorts if c.name == name), None)

    def startup_budget(self, pool: Pool) -> int:
        """Seconds a gang on ``pool`` may run before its first step (``gpufleet.model.observability``'s docstring)."""
        if pool.startup_budget is not None:
            return int(pool.startup_budget)
        cold = pool.cold_start_budget if pool.cold_start_budget is not None else self.admission.cold_start_floor
        return int(cold) + int(self.observability.rendezvous_allowance)

    @property
    def quota_owners(self) -> tuple[Team | Cohort, ...]:
        """Every holder of quota: the teams, then the cohorts."""
        return (*self.teams, *self.cohorts)

    def sections(self) -> tuple[tuple[str, Sequence[Team | Cohort]], ...]:
        """``("teams", teams)`` and ``("cohorts", cohorts)``: the model's quota holders with the key each is listed under."""
        return (("teams", self.teams), ("cohorts", self.cohorts))

    def pools_of(self, system: str) -> list[Pool]:
        return [p for p in self.pools if p.system == system]

    @cached_property
    def pool_names_by_system(self) -> dict[str, tuple[str, ...]]:
        """``{system: pool names}`` in model order, built once per fleet object (the model is frozen)."""
        systems: dict[str, list[str]] = {}
        for pool in self.pools:
            systems.setdefault(pool.system, []).append(pool.name)
        return {system: tuple(names) for system, names in systems.items()}
