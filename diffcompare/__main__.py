"""``python -m diffcompare`` runs the command line, as the ``diffcompare`` script does."""

import os
import sys

if __name__ == "__main__" and sys.path and sys.path[0] in ("", os.getcwd()):
    # ``-m`` put the current folder first on the path: a json.py or multiprocessing.py there would
    # replace the standard library's for the tool itself. The script does not; neither does this.
    # (Functions named module:function are still imported from the current folder, by path.)
    del sys.path[0]

from diffcompare.cli.main import main  # noqa: E402

if __name__ == "__main__":
    sys.exit(main())
