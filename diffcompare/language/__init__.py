"""The language stage: the function table (every function's facts, in every world), the
worlds' names, the expression parser and evaluator, and the table's functions for ordinary
Python code."""
