"""Jupyter notebooks written as nbformat 4 JSON by the standard library alone (outputs
empty: the notebook runs where it is opened).

>>> import json
>>> nb = json.loads(notebook_json([markdown_cell("# Title"), code_cell("1 + 1")]))
>>> nb["nbformat"], [c["cell_type"] for c in nb["cells"]], nb["cells"][1]["source"]
(4, ['markdown', 'code'], ['1 + 1'])
"""

from __future__ import annotations

import json


def _lines(text: str) -> list:
    return text.splitlines(keepends=True)


def markdown_cell(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": _lines(text)}


def code_cell(text: str) -> dict:
    return {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [], "source": _lines(text)}


def notebook_json(cells: list, prefix: str = "cell") -> str:
    """The notebook as JSON text, its cells' ids (nbformat 4.5 asks for them) ``prefix`` and
    their number, so that writing the same cells again changes nothing."""
    numbered = [{"id": f"{prefix}-{k:02d}", **cell} for k, cell in enumerate(cells)]
    document = {"cells": numbered, "metadata": {
        "kernelspec": {"display_name": "Python 3", "language": "python", "name": "python3"},
        "language_info": {"name": "python"}}, "nbformat": 4, "nbformat_minor": 5}
    return json.dumps(document, indent=1, ensure_ascii=False) + "\n"
