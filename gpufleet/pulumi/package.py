"""``GpuFleet`` as a component package: the same fleet, from Pulumi YAML, TypeScript, Go or any language.

Run inside the component provider process: the folder ``gpufleet pulumi-package DIR`` writes
(``PulumiPlugin.yaml``, runtime python, and a ``__main__.py`` calling :func:`serve`) is what a
program names in its ``packages`` (``pulumi package add DIR``). The SDK's
``component_provider_host`` infers the schema from the annotations below: the resource
``gpufleet:index:GpuFleet``, whose inputs are the stack configuration keys of the Python
program (``Pulumi.yaml``'s ``gpufleet:*``: ``model``, ``controllerImage``, ...) and whose
outputs are that program's exports. The component reads the settings as
:mod:`gpufleet.pulumi.stack_config` does (paths against the working directory, which the
language host sets to the program's), loads the model and builds the Python program's
:class:`gpufleet.pulumi.fleet.GpuFleet` as its one child: no decision of its own.

No ``from __future__ import annotations`` here: the SDK's analyzer reads the annotations as types.
"""

import re
from pathlib import Path
from typing import Any, NotRequired, Optional, TypedDict

import pulumi
from pulumi.provider.experimental import component_provider_host

from gpufleet import __version__
from gpufleet.model import load_model
from gpufleet.pulumi import fleet
from gpufleet.pulumi.stack_config import Source, model_error, settings
from gpufleet.yamlin.errors import ModelError

PACKAGE = "gpufleet"
"""The package name: resource tokens are ``gpufleet:index:<Component>``."""
INPUTS = Source("GpuFleet input ", "remove the input {key}")


class GpuFleetInputs(TypedDict):
    """The inputs of ``gpufleet:index:GpuFleet``: the Python program's stack configuration keys."""

    model: str
    """The fleet model file (stacks/dev.fleet.yaml), relative to the program's directory or absolute."""
    controller_image: NotRequired[str]
    """Container image (repository:tag) of the gang-admission controller; unset: gpufleet's default."""
    controller_image_digest: NotRequired[str]
    """sha256 digest pinning controllerImage (sha256:...); unset: pinned by tag only."""
    prometheus_operator: NotRequired[bool]
    """Create prometheus-operator objects (the controller's ServiceMonitor, the gang alerts); needs its CRDs."""
    cert_manager: NotRequired[bool]
    """Issue the controller's webhook certificate with cert-manager instead of a generated one."""
    engines_installed: NotRequired[bool]
    """Kueue, Volcano and scheduler-plugins are installed already: install no chart."""
    kueue_chart_path: NotRequired[str]
    """Install Kueue from this local chart (a folder or .tgz) instead of the pinned chart."""
    volcano_chart_path: NotRequired[str]
    """Install Volcano from this local chart (a folder or .tgz) instead of the pinned chart."""
    coscheduling_chart_path: NotRequired[str]
    """Install scheduler-plugins from this local chart (a folder or .tgz) instead of the pinned chart."""
    controller_url: NotRequired[str]
    """Register the controller's webhooks at this https://host:port instead of at its Service."""
    controller_tls_dir: NotRequired[str]
    """A folder holding tls.crt, tls.key and ca.crt the controller serves with, instead of pulumi-tls material."""


def config_key(name: str) -> str:
    """The stack configuration key of an input's Python name (``kueue_chart_path`` -> ``kueueChartPath``)."""
    return re.sub(r"_([a-z])", lambda m: m.group(1).upper(), name)


def stack_config(inputs: dict[str, Any], workdir: Path):
    """The :class:`gpufleet.pulumi.stack_config.StackConfig` the inputs (keyed by Python name) say."""
    values = {config_key(name): value for name, value in inputs.items()}
    return settings(workdir, values.get, INPUTS)


class GpuFleet(pulumi.ComponentResource):
    """Kueue, Volcano, scheduler-plugins, every quota object and the gang-admission controller of one fleet model."""

    fleet: pulumi.Output[str]
    """The fleet's name (the model's ``name``)."""
    cluster_queues: pulumi.Output[list[str]]
    """The Kueue ClusterQueues, one per team."""
    volcano_queues: pulumi.Output[list[str]]
    """The Volcano Queues."""
    chart_versions: pulumi.Output[dict[str, str]]
    """Engine -> the chart version installed (empty with enginesInstalled)."""

    def __init__(self, name: str, args: GpuFleetInputs, opts: Optional[pulumi.ResourceOptions] = None) -> None:
        super().__init__(f"{PACKAGE}:index:GpuFleet", name, {}, opts)
        config = stack_config(dict(args), Path.cwd())
        try:
            model = load_model(config.model)
        except ModelError as exc:
            raise model_error(exc, INPUTS) from None
        try:
            inner = fleet.GpuFleet(model.name, fleet.GpuFleetArgs(model, config.controller, config.chart_paths),
                                   pulumi.ResourceOptions(parent=self))
        except ValueError as exc:  # a model the renderer cannot map to unique resources
            raise pulumi.RunError(f"{config.model}: {exc}") from None
        self.fleet = pulumi.Output.from_input(model.name)
        self.cluster_queues, self.volcano_queues = inner.cluster_queues, inner.volcano_queues
        self.chart_versions = inner.chart_versions
        self.register_outputs({"fleet": self.fleet, "clusterQueues": self.cluster_queues,
                               "volcanoQueues": self.volcano_queues, "chartVersions": self.chart_versions})


def serve() -> None:
    """Run the component provider (the package folder's ``__main__.py``); the CLI passes the engine address in argv."""
    component_provider_host([GpuFleet], name=PACKAGE, version=__version__)
