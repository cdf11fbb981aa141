"""What the Kueue and Volcano components share: a namespace and a pinned Helm chart in it.

Used by :mod:`gpufleet.pulumi.kueue`, :mod:`gpufleet.pulumi.volcano` and :mod:`gpufleet.pulumi.coscheduling`. Chart v4 renders the
chart in the provider; await stays on (no ``skip_await``), so the engine's webhooks
serve before any object that depends on the chart is created.
"""

from __future__ import annotations

from typing import Any, Callable, Mapping, Sequence

import pulumi
import pulumi_kubernetes as k8s

from gpufleet.model.coscheduling import CoschedulingEngine
from gpufleet.model.fleet import KueueEngine, VolcanoEngine


def install_chart(
    owner: pulumi.ComponentResource,
    name: str,
    engine: KueueEngine | VolcanoEngine | CoschedulingEngine,
    chart: str,
    values: Mapping[str, Any],
    repository: str | None = None,
    prepare: Callable[[k8s.core.v1.Namespace], Sequence[pulumi.Resource]] | None = None,
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
