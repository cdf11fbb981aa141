"""``GpuFleet`` as a component package: the same fleet, from Pulumi YAML, TypeScript, Go or any language.

Run inside the component provider process: the folder ``gpufleet pulumi-package DIR`` writes
(``PulumiPlugin.yaml``, runtime python, and a ``__main__.py`` calling :func:`serve`) is what a
program names in its ``packages`` (``pulumi package add DIR``). The SDK's ``ComponentProvider``
(as :class:`GpuFleetProvider`, which hands a bad input's ``RunError`` on without stack frames)
infers the schema from the annotations below: the resource
``gpufleet:index:GpuFleet``, whose inputs are the stack configuration keys of the Python
program (``Pulumi.yaml``'s ``gpufleet:*``: ``model``, ``controllerImage``, ...) and whose
outputs are that program's exports. The component reads the settings as
:mod:`gpufleet.pulumi.stack_config` does (paths against the working directory, which the
language host sets to the program's) and runs what the Python program runs,
:func:`gpufleet.pulumi.program.build_gpufleet` (the model loaded, its
:class:`gpufleet.pulumi.fleet.GpuFleet` the one child, the same errors and warnings, the same
outputs): no decision of its own.

No ``from __future__ import annotations`` here: the SDK's analyzer reads the annotations as types.
"""

import sys
from pathlib import Path
from typing import Any, NotRequired, Optional, TypedDict

import pulumi
from pulumi.provider import main
from pulumi.provider.experimental.component import ComponentProvider
from pulumi.provider.server import ComponentInitError

from gpufleet import __version__
from gpufleet.pulumi.program import build_gpufleet
from gpufleet.pulumi.stack_config import Source, settings
from gpufleet.util.camel import camel

PACKAGE = "gpufleet"
"""The package name: resource tokens are ``gpufleet:index:<Component>``."""
INPUTS = Source("GpuFleet input ", "remove the input {key}")


class GpuFleetInputs(TypedDict):
    """The inputs of ``gpufleet:index:GpuFleet``: the Python program's stack configuration keys."""

    model: str
    """The fleet model file (e.g. stacks/dev.fleet.yaml), relative to the project's directory or absolute."""
    controller_image: NotRequired[str]
    """Container image (repository:tag) of the gang-admission controller; unset or empty = gpufleet's default."""
    controller_image_digest: NotRequired[str]
    """sha256 digest pinning controllerImage (sha256:...); unset or empty = pinned by tag only."""
    prometheus_operator: NotRequired[bool]
    """Create prometheus-operator objects (needs its CRDs) - the controller's ServiceMonitor and the gang alerts' PodMonitors and PrometheusRules."""
    cert_manager: NotRequired[bool]
    """Issue the controller's webhook certificate with cert-manager instead of a generated self-signed one (needs cert-manager)."""
    engines_installed: NotRequired[bool]
    """Kueue, Volcano and scheduler-plugins are installed already (by someone else, or gpufleet sandbox) - install no chart and none of their install-time objects; their namespaces and configuration are taken as given."""
    kueue_chart_path: NotRequired[str]
    """Install Kueue from this local chart (a folder or .tgz) instead of downloading the pinned chart."""
    volcano_chart_path: NotRequired[str]
    """Install Volcano from this local chart (a folder or .tgz) instead of downloading the pinned chart."""
    coscheduling_chart_path: NotRequired[str]
    """Install scheduler-plugins from this local chart (a folder or .tgz) instead of downloading the pinned chart."""
    controller_url: NotRequired[str]
    """Register the controller's webhooks at this https://host:port (a backend outside the cluster) instead of at its Service; unset or empty = the Service."""
    controller_tls_dir: NotRequired[str]
    """A folder holding tls.crt, tls.key and ca.crt the controller serves with (an organisation's PKI), instead of pulumi-tls material; unset or empty = pulumi-tls."""


def stack_config(inputs: dict[str, Any], workdir: Path):
    """The :class:`gpufleet.pulumi.stack_config.StackConfig` the inputs (keyed by Python name) say."""
    values = {camel(name): value for name, value in inputs.items()}
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
        outputs = build_gpufleet(stack_config(dict(args), Path.cwd()), INPUTS, pulumi.ResourceOptions(parent=self))
        for prop in GpuFleet.__annotations__:  # the output properties, by their Python names
            setattr(self, prop, pulumi.Output.from_input(outputs[camel(prop)]))
        self.register_outputs(outputs)


class GpuFleetProvider(ComponentProvider):
    """The SDK's component provider, except that bad input reaches the program's user as its one clear error.

    The SDK wraps whatever a component raises in ``ComponentInitError``, and its gRPC ``Construct``
    appends that error's stack frames to the message; a ``pulumi.RunError`` it passes on as is
    (pulumi/provider/server.py, ``Construct``). So the ``RunError`` of a bad model or input leaves unwrapped.
    """

    def construct(self, name, resource_type, inputs, options=None):
        try:
            return super().construct(name, resource_type, inputs, options)
        except ComponentInitError as exc:
            if isinstance(exc.inner, pulumi.RunError):
                raise exc.inner from None
            raise


def provider() -> GpuFleetProvider:
    return GpuFleetProvider([GpuFleet], PACKAGE, None, __version__)


def serve() -> None:
    """Run the component provider (the package folder's ``__main__.py``); the CLI passes the engine address in argv."""
    main(provider(), sys.argv[1:])
