"""Stack settings -> validated fleet model -> :class:`gpufleet.pulumi.fleet.GpuFleet`, and its outputs.

The one body of both ways to run gpufleet on Pulumi: the Python program (``__main__.py``, settings from
the stack configuration) exports what :func:`build_gpufleet` returns, and the component package's
``gpufleet:index:GpuFleet`` (:mod:`gpufleet.pulumi.package`, settings from its inputs) registers it as
its outputs. A broken model is one ``pulumi.RunError`` naming the file, the setting (as ``source`` names
it) and every issue; a model the renderer cannot map to unique resources is one too; an image not
pinned by digest is a warning.
"""

from __future__ import annotations

import pulumi

from gpufleet.model import load_model
from gpufleet.pulumi import fleet
from gpufleet.pulumi.stack_config import STACK, Source, StackConfig, model_error
from gpufleet.yamlin.errors import ModelError

OUTPUTS = ("fleet", "clusterQueues", "volcanoQueues", "chartVersions")
"""The outputs, in order: the Python program's exports and the component's output properties."""


def build_gpufleet(
    config: StackConfig, source: Source = STACK, opts: pulumi.ResourceOptions | None = None
) -> dict[str, pulumi.Input]:
    """Load the model ``config`` names and build its ``GpuFleet`` (``opts``: e.g. a parent); output name -> value."""
    try:
        model = load_model(config.model)
    except ModelError as exc:
        raise model_error(exc, source) from None
    if model.controller.enabled and not config.controller.digest:
        pulumi.log.warn(
            f"the gang-admission controller image is not pinned by digest: set {source.named('controllerImageDigest')} "
            "to its sha256:... digest"
        )
    try:
        inner = fleet.GpuFleet(model.name, fleet.GpuFleetArgs(model, config.controller, config.chart_paths), opts)
    except ValueError as exc:  # a model the renderer cannot map to unique resources
        raise pulumi.RunError(f"{config.model}: {exc}") from None
    values = (model.name, inner.cluster_queues, inner.volcano_queues, inner.chart_versions)
    return dict(zip(OUTPUTS, values, strict=True))
