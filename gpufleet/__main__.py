"""``python -m gpufleet``: the command-line interface (see gpufleet.cli)."""

from gpufleet.cli.app import entry

if __name__ == "__main__":
    entry()
