"""The gpufleet policy pack (docs/policy-pack.md), written by ``gpufleet policy-pack``.

Run by the Pulumi CLI (``pulumi preview --policy-pack DIR``) through ``python -m pulumi.policy``.
Every policy comes from the installed gpufleet (``gpufleet.policypack``). Nothing here may print to
stdout: the CLI reads the gRPC port from the first stdout line.
"""

import importlib.util
import sys
from pathlib import Path

PACK_DIR = Path(__file__).resolve().parent
if importlib.util.find_spec("gpufleet") is None:  # a pack folder inside a checkout: the checkout's gpufleet
    sys.path.append(str(PACK_DIR.parent))

from gpufleet.policypack.pack import serve  # noqa: E402

serve(PACK_DIR)
