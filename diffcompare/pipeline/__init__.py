"""The pipeline: a problem through the methods to the judge, for every command that compares
methods (``compare`` and the Python function behind it)."""
