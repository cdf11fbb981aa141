"""Pulumi components of gpufleet: the adapter between the rendered fleet and a stack.

Installed with the ``[pulumi]`` extra (``pip install "gpufleet[pulumi]"``): importing it
needs pulumi, pulumi-kubernetes and pulumi-tls; the core never imports it (import-linter).
A Pulumi program builds one :class:`GpuFleet` from a validated fleet model (the
repository's ``__main__.py`` does, from the stack config; docs/pulumi.md shows a program
of your own). Each component only calls ``gpufleet.render`` and creates resources; every
decision about *what* to create lives in the pure core.

Modules: ``fleet`` (the top component), ``kueue``, ``volcano`` and ``coscheduling`` (the
engine charts, through ``engine``), ``quota`` (the rendered quota objects),
``manifest`` (a custom resource keeping every top-level field), ``stack_config`` (the
typed stack configuration), ``program`` (settings -> model -> ``GpuFleet`` and its outputs, for
``__main__.py`` and the package), ``controller``/``typed`` (the gang-admission controller) and
``observability`` (the gang alerts), and ``package`` (``GpuFleet`` as the component package
``gpufleet:index:GpuFleet`` for programs in other languages; ``gpufleet pulumi-package DIR``
writes its folder).
"""

from gpufleet.pulumi.fleet import GpuFleet, GpuFleetArgs
from gpufleet.pulumi.stack_config import StackConfig, read_stack_config
from gpufleet.render.controller.common import ControllerSettings

__all__ = ["ControllerSettings", "GpuFleet", "GpuFleetArgs", "StackConfig", "read_stack_config"]
