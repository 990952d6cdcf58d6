"""diffcompare: differentiate a function three ways (reverse-mode AD, SymPy, finite
differences) and compare each against an exact high-precision reference."""

__version__ = "0.1.0"
