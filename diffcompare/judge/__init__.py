"""The judge stage: the exact reference (SymPy + mpmath), the accuracy each method can be
expected to reach, and the verdicts (the pipeline that runs the methods is
:mod:`diffcompare.pipeline`). Verdicts are data; the renderers turn them into sentences."""
