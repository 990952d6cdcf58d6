"""The version of diffcompare, in one place (the package, the CLI and every report read it),
and how to install each optional feature.

>>> install_hint("plot")
'pip install "matplotlib>=3.6" (or, in the diffcompare checkout, pip install -e ".[plot]")'
"""

__version__ = "0.1.0"

# each optional extra of pyproject.toml -> what it installs (a test keeps the two equal)
EXTRAS = {"plot": "matplotlib>=3.6", "graph": "graphviz>=0.20", "torch": "torch>=2.13", "jax": "jax>=0.4.30",
          "dask": "dask[distributed]>=2024.1", "symengine": "symengine>=0.11", "benchmarks": "numdifftools>=0.9"}


def install_hint(extra: str) -> str:
    """The command that installs an optional feature: its package by name (works anywhere),
    or the extra from the checkout."""
    return f'pip install "{EXTRAS[extra]}" (or, in the diffcompare checkout, pip install -e ".[{extra}]")'
