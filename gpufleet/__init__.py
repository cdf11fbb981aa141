"""gpufleet: gang-safe GPU fleet scheduling for Kubernetes.

The pure core (model, validate, render, workloads, rules, mutate, lint, crdschema)
never imports Pulumi, the policy SDK or the web stack; the adapters (cli, webhook,
the Pulumi components ``gpufleet.pulumi`` and the policy pack's ``gpufleet.policypack``) sit on top of it.
See docs/architecture.md.
"""

__version__ = "0.1.0"

# The project's identity, one owner each (tests/test_identity.py checks the README, docs,
# stacks and controller/Dockerfile name exactly these).
PROJECT_URL = "https://github.com/gpufleet/gpufleet"
"""Where gpufleet lives: the install URLs (README), the pre-commit hook's ``repo``, the docs links."""
DOCS_URL = f"{PROJECT_URL}/blob/main/docs"
"""Published ``docs/``: rule docs in SARIF (``gpufleet.lint.sarif``), alert runbooks (``observability.runbookBaseUrl``)."""
CONTROLLER_IMAGE = f"ghcr.io/gpufleet/gang-admission-controller:{__version__}"
"""The gang-admission controller image (``controller/Dockerfile``), the stack default of ``gpufleet:controllerImage``."""
