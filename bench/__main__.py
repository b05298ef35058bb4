"""``python -m bench``: the same as ``throneroom bench``."""

import sys

from bench.cli import main

if __name__ == "__main__":
    sys.exit(main())
