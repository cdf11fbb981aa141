"""The gpufleet Pulumi program: stack config -> validated fleet model -> GpuFleet.

Run by the Pulumi CLI (``pulumi preview -s dev``). Thin on purpose: everything it
creates comes from ``gpufleet.pulumi.fleet.GpuFleet``. A broken model stops the run
with a ``pulumi.RunError`` listing every issue (file, path, message, fix); the
CLI prints a RunError's message without a traceback.
"""

from pathlib import Path

import pulumi

from gpufleet.pulumi.fleet import GpuFleet, GpuFleetArgs
from gpufleet.pulumi.stack_config import model_error, read_stack_config
from gpufleet.yamlin.errors import ModelError
from gpufleet.model import load_model

PROJECT_DIR = Path(__file__).resolve().parent


def main() -> None:
    config = read_stack_config(PROJECT_DIR)
    try:
        fleet = load_model(config.model)
    except ModelError as exc:
        raise model_error(exc) from None
    try:
        controller = config.controller
        if fleet.controller.enabled and not controller.digest:
            pulumi.log.warn("the gang-admission controller image is not pinned by digest: "
                            "set gpufleet:controllerImageDigest (pulumi config set gpufleet:controllerImageDigest sha256:...)")
        gpu_fleet = GpuFleet(fleet.name, GpuFleetArgs(fleet, controller, config.chart_paths))
    except ValueError as exc:  # a model the renderer cannot map to unique resources
        raise pulumi.RunError(f"{config.model}: {exc}") from None
    pulumi.export("fleet", fleet.name)
    pulumi.export("clusterQueues", gpu_fleet.cluster_queues)
    pulumi.export("volcanoQueues", gpu_fleet.volcano_queues)
    pulumi.export("chartVersions", gpu_fleet.chart_versions)


main()
