"""The judge stage: the exact reference (SymPy + mpmath), the accuracy each method can be
expected to reach, and the verdicts; the comparisons behind ``compare``. Verdicts are data;
the renderers turn them into sentences."""
