"""The functions the expression language knows (``diffcompare functions``): one table from
the function table's rows, as text (fitted to the width) or JSON (``"report": "functions"``,
schema_version 1, diffcompare/schemas/functions.schema.json)."""

from __future__ import annotations

import json

from diffcompare.language.table import CALLABLE, CONSTANTS
from diffcompare.render.common import envelope

SCHEMA_VERSION = 1
HEADERS = ["name", "arity", "meaning", "domain", "complex step"]


def _rows():
    return list(CALLABLE.values()) + list(CONSTANTS.values())


def text_rows() -> list:
    """The table's rows under :data:`HEADERS`."""
    return [[row.name, str(row.arity), row.doc, row.domain, "yes" if row.complex is not None
             else f"no: {row.not_complex_safe}"] for row in _rows()]


def as_dict() -> dict:
    """Every function and constant as plain data: its name, arity (0 for a constant), what
    it means, its domain and whether the complex step may differentiate through it (and why not)."""
    return envelope("functions", SCHEMA_VERSION, {}, 0, {"functions": [{
        "name": row.name, "arity": row.arity, "constant": row.name in CONSTANTS, "meaning": row.doc,
        "domain": row.domain, "complex_step": row.complex is not None,
        "not_complex_safe": None if row.complex is not None else (row.not_complex_safe or None),
    } for row in _rows()]})


def json_text() -> str:
    return json.dumps(as_dict(), indent=2, ensure_ascii=False) + "\n"
