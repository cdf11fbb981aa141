"""Pulumi components of gpufleet: the adapter between the rendered fleet and a stack.

``__main__.py`` builds one :class:`gpufleet.pulumi.fleet.GpuFleet` from the stack's
validated fleet model. Each component only calls ``gpufleet.render`` and creates
resources; every decision about *what* to create lives in the pure core.

Modules: ``fleet`` (the top component), ``kueue`` and ``volcano`` (the engine
charts), ``quota`` (the rendered quota objects), ``gpufleet.render.ordering`` (which rendered
object must exist before which), ``manifest`` (a custom resource keeping every
top-level field), ``stack_config`` (the typed stack configuration), and
``controller``/``typed`` (the gang-admission controller).
"""
