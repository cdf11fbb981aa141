"""What the three engine components share: a namespace and a pinned Helm chart in it.

:class:`ChartEngine` is the base of :mod:`gpufleet.pulumi.kueue`, :mod:`gpufleet.pulumi.volcano` and
:mod:`gpufleet.pulumi.coscheduling`: each names its token, chart and repository, and may create what
its chart mounts before the chart (:meth:`ChartEngine.prepare`) and add outputs. Chart v4 renders the
chart in the provider; await stays on (no ``skip_await``), so the engine's webhooks
serve before any object that depends on the chart is created.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Generic, Mapping, Protocol, Sequence, TypeVar

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.model.fleet import KueueEngine, VolcanoEngine

Engine = KueueEngine | VolcanoEngine | CoschedulingEngine
E = TypeVar("E", KueueEngine, VolcanoEngine, CoschedulingEngine)
Prepare = Callable[[k8s.core.v1.Namespace], Sequence[pulumi.Resource]]


class EngineArgs(Protocol):
    """What :class:`ChartEngine` reads of a component's arguments."""

    @property
    def engine(self) -> Engine: ...

    @property
    def values(self) -> Mapping[str, Any]: ...

    @property
    def chart_path(self) -> str | None: ...


@dataclass(frozen=True)
class ChartArgs(Generic[E]):
    """The arguments of an engine installed from its chart alone (Kueue, coscheduling)."""

    engine: E
    """The model's ``engines.<engine>`` (chart version, namespace, release name)."""
    values: Mapping[str, Any]
    """Helm values rendered by ``gpufleet.render`` (``Rendered.<engine>_values``)."""
    chart_path: str | None = None
    """A local chart to install from (stack config ``gpufleet:<engine>ChartPath``); None = the pinned remote chart."""


def install_chart(
    owner: pulumi.ComponentResource,
    name: str,
    engine: Engine,
    chart: str,
    values: Mapping[str, Any],
    repository: str | None = None,
    prepare: Prepare | None = None,
    path: str | None = None,
) -> tuple[k8s.core.v1.Namespace, k8s.helm.v4.Chart]:
    """Create the engine's namespace and its chart (children of ``owner``); return both.

    ``path`` (stack config ``gpufleet:<engine>ChartPath``) installs from a local chart
    folder or archive instead of the pinned remote one: nothing is downloaded.

    ``prepare(namespace)`` creates what the chart's workloads mount but the chart only
    makes in a Helm hook (Chart v4 runs none); the chart depends on what it returns.
    """
    namespace = k8s.core.v1.Namespace(
        f"{name}-namespace",
        metadata={"name": engine.namespace},
        opts=pulumi.ResourceOptions(parent=owner),
    )
    before = list(prepare(namespace)) if prepare else []
    release = k8s.helm.v4.Chart(
        name,
        chart=path or chart,
        version=None if path else engine.chart_version,
        name=engine.release_name,
        namespace=engine.namespace,
        repository_opts=k8s.helm.v4.RepositoryOptsArgs(repo=repository) if repository and not path else None,
        values=dict(values),
        opts=pulumi.ResourceOptions(parent=owner, depends_on=[namespace, *before]),
    )
    return namespace, release


class ChartEngine(pulumi.ComponentResource):
    """An engine installed from its pinned chart into its own namespace; subclasses name token, chart and repository."""

    TOKEN: ClassVar[str]
    CHART: ClassVar[str]
    REPO: ClassVar[str | None] = None

    namespace: k8s.core.v1.Namespace
    chart: k8s.helm.v4.Chart

    def __init__(self, name: str, args: EngineArgs, opts: pulumi.ResourceOptions | None = None) -> None:
        super().__init__(self.TOKEN, name, None, opts)
        engine = args.engine
        self.namespace, self.chart = install_chart(
            self, name, engine, self.CHART, args.values, self.REPO, self.prepare(name, args), path=args.chart_path
        )
        self.register_outputs(
            {"chartVersion": engine.chart_version, "namespace": engine.namespace, **self.outputs(args)}
        )

    def prepare(self, name: str, args: Any) -> Prepare | None:
        """What to create before the chart (given the namespace), or None: nothing."""
        return None

    def outputs(self, args: Any) -> dict[str, Any]:
        """Outputs beyond the chart version and namespace."""
        return {}
