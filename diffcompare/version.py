"""The version of diffcompare, in one place (the package, the CLI and every report read it)."""

__version__ = "0.1.0"
