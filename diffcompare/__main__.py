"""``python -m diffcompare`` runs the command line, as the ``diffcompare`` script does."""

import sys

from diffcompare.cli.main import main

if __name__ == "__main__":
    sys.exit(main())
