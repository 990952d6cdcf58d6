"""Entry point of the ``diffcompare`` command.

Imports of the library stay inside the commands so that ``diffcompare --help`` is quick.
"""

from __future__ import annotations

import argparse
import sys

DESCRIPTION = """\
Differentiate a function three ways side by side -- reverse-mode automatic
differentiation (diffcompare's own PyTorch-like engine), symbolic differentiation
(SymPy) and finite differences -- and see each method's value, its error against an
exact high-precision reference, whether the methods agree, and what each cost.
"""

EPILOG = """\
The engine is usable from Python today:

  from diffcompare import autograd as ag
  x = ag.tensor([2.0, 3.0, 4.0], requires_grad=True)
  y = x ** 2
  y.backward(ag.tensor([1.0, 0.1, 0.01]))   # the vector-Jacobian product v^T J
  print(x.grad)                              # tensor([4.0000, 0.6000, 0.0800])

Runnable examples live in examples/ (python examples/backward_basics.py).
"""


def build_parser() -> argparse.ArgumentParser:
    from diffcompare import __version__

    parser = argparse.ArgumentParser(
        prog="diffcompare",
        description=DESCRIPTION,
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"diffcompare {__version__}")
    return parser


def main(argv=None) -> int:
    parser = build_parser()
    parser.parse_args(argv)
    parser.print_help()
    return 0


if __name__ == "__main__":
    sys.exit(main())
