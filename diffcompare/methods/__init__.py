"""The methods stage: the estimate every method returns, the registry of method names, and
the methods themselves: reverse-mode AD by the engine, SymPy's derivative, finite
differences; their timing and time budgets."""
