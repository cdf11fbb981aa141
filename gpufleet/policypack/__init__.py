"""The gpufleet policy pack's adapter code (imported by ``policies/__main__.py``).

The pack is a thin adapter over the gang-safety rule engine (``gpufleet.rules``):
``props`` turns what Pulumi hands a policy into plain manifests, ``settings`` turns a
policy's configuration into a ``CheckContext``, ``report`` turns findings into
violation messages, ``charts`` and ``stack`` handle the stack-wide checks, and
``build`` derives every policy from the rule registry. Only this package imports
``pulumi_policy``; the core never imports it.
"""
