"""The fleet model: one YAML file per environment (``stacks/<env>.fleet.yaml``).

The root of the typed model. ``gpufleet.model.loader`` parses a file into a
:class:`Fleet`; ``gpufleet.validate`` checks everything pydantic cannot see field by
field (references, sums, cycles, engine rules); the renderers and the Pulumi
components read the result.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from gpufleet.model.admission import Admission
from gpufleet.model.base import Base, Name
from gpufleet.model.pools import Pool
from gpufleet.model.priority import PriorityClass
from gpufleet.model.teams import Cohort, Team
from gpufleet.model.volcano import VolcanoScheduler

API_VERSION = "gpufleet.dev/v1alpha1"


class KueueEngine(Base):
    chart_version: str = "0.19.2"
    """Kueue Helm chart version (oci://registry.k8s.io/kueue/charts/kueue); gpufleet renders for 0.19.x."""
    namespace: Name = "kueue-system"
    release_name: Name = "kueue"


class VolcanoEngine(Base):
    enabled: bool = True
    """Install Volcano; required when any pool has system: volcano."""
    chart_version: str = "1.15.1"
    """Volcano Helm chart version (https://volcano-sh.github.io/helm-charts); gpufleet renders for 1.15.x."""
    namespace: Name = "volcano-system"
    release_name: Name = "volcano"


class Engines(Base):
    kueue: KueueEngine = Field(default_factory=KueueEngine)
    volcano: VolcanoEngine = Field(default_factory=VolcanoEngine)


class Controller(Base):
    enabled: bool = True
    """Deploy the gang-admission controller (admission webhook)."""
    namespace: Name = "gpufleet-system"
    opt_out_label: str = "gpufleet.dev/admission"
    """Namespaces labelled ``<optOutLabel>: disabled`` are skipped by the webhook."""
    replicas: int = Field(default=3, ge=1)


class Fleet(Base):
    api_version: Literal["gpufleet.dev/v1alpha1"] = Field(alias="apiVersion")
    kind: Literal["Fleet"]
    name: Name
    """Environment name (dev, prod)."""
    engines: Engines = Field(default_factory=Engines)
    pools: list[Pool] = Field(min_length=1)
    cohorts: list[Cohort] = Field(default_factory=list)
    teams: list[Team] = Field(default_factory=list)
    priority_classes: list[PriorityClass] = Field(default_factory=list)
    admission: Admission = Field(default_factory=Admission)
    volcano: VolcanoScheduler = Field(default_factory=VolcanoScheduler)
    controller: Controller = Field(default_factory=Controller)

    def pool(self, name: str) -> Pool | None:
        return next((p for p in self.pools if p.name == name), None)

    def cohort(self, name: str) -> Cohort | None:
        return next((c for c in self.cohorts if c.name == name), None)

    def pools_of(self, system: str) -> list[Pool]:
        return [p for p in self.pools if p.system == system]
