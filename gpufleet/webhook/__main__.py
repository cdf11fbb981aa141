"""Entry point of the controller image: ``python -m gpufleet.webhook --help``."""

import sys

from gpufleet.webhook.server import main

if __name__ == "__main__":
    sys.exit(main())
