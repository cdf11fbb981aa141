"""The gpufleet policy pack: gang-safety rules of ``gpufleet.rules`` as Pulumi policies.

Run by the Pulumi CLI (``pulumi preview --policy-pack policies``) through
``python -m pulumi.policy``; see docs/policy-pack.md. Every policy is derived from the
rule registry by ``gpufleet_policy.build``. Nothing here may print to stdout: the
CLI reads the gRPC port from the first stdout line.
"""

import importlib.util
import sys
from pathlib import Path

PACK_DIR = Path(__file__).resolve().parent
sys.path.insert(0, str(PACK_DIR))
if importlib.util.find_spec("gpufleet") is None:  # the pack runs from a checkout: use the repository's gpufleet
    sys.path.append(str(PACK_DIR.parent))

from pulumi_policy import EnforcementLevel, PolicyPack  # noqa: E402

from gpufleet_policy.build import PACK_NAME, description, policies  # noqa: E402

PolicyPack(
    name=PACK_NAME,
    policies=policies(),
    enforcement_level=EnforcementLevel.ADVISORY,
    description=description(),
    display_name="gpufleet gang safety",
    readme=(PACK_DIR / "README.md").read_text() if (PACK_DIR / "README.md").exists() else None,
    provider="kubernetes",
    tags=["kubernetes", "kueue", "volcano", "gpu", "gang-scheduling"],
)
