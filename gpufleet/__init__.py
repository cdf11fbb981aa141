"""gpufleet: gang-safe GPU fleet scheduling for Kubernetes.

The pure core (model, validate, render, workloads, rules, mutate, lint, crdschema)
never imports Pulumi, the policy SDK or the web stack; the adapters (cli, webhook,
and the top-level ``gpufleet/pulumi/`` and ``policies/`` folders) sit on top of it.
See docs/architecture.md.
"""

__version__ = "0.1.0"
