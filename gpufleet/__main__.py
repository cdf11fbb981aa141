"""``python -m gpufleet``: the command-line interface (see gpufleet.cli)."""

from gpufleet.cli.app import main

if __name__ == "__main__":
    main()
