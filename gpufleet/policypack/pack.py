"""The gpufleet ``PolicyPack``: every policy of :mod:`gpufleet.policypack.build`, served to the Pulumi CLI.

Called by the pack folder's ``__main__.py`` (the repository's ``policies/`` or the folder
``gpufleet policy-pack DIR`` writes), which Pulumi runs through ``python -m pulumi.policy``.
Nothing here may print to stdout: the CLI reads the gRPC port from the first stdout line.
"""

from __future__ import annotations

from pathlib import Path

from pulumi_policy import EnforcementLevel, PolicyPack

from gpufleet.policypack.build import PACK_NAME, description, policies


def serve(pack_dir: Path) -> PolicyPack:
    """Build the pack (and, as pulumi_policy does on construction, serve it); ``pack_dir`` holds its README."""
    readme = pack_dir / "README.md"
    return PolicyPack(
        name=PACK_NAME,
        policies=policies(),
        enforcement_level=EnforcementLevel.ADVISORY,
        description=description(),
        display_name="gpufleet gang safety",
        readme=readme.read_text() if readme.exists() else None,
        provider="kubernetes",
        tags=["kubernetes", "kueue", "volcano", "gpu", "gang-scheduling"],
    )
