"""Where to differentiate: one point, or many — random in a box, or on a grid — as one
array of shape (points, n) over the problem's flat inputs.

>>> parse_box("x=-2:2, y=0.1:3")
{'x': (-2.0, 2.0), 'y': (0.1, 3.0)}
>>> from diffcompare.problem.problem import make_problem
>>> p = make_problem("x*y", box_centre({"x": (-2, 2), "y": (0.1, 3)}, {}))
>>> pts = random_points(p, {"x": (-2, 2), "y": (0.1, 3)}, 1000, seed=1)
>>> pts.flat.shape, bool((pts.flat[:, 1] >= 0.1).all())
((1000, 2), True)
>>> grid_points(p, {"x": (-2, 2), "y": (0.1, 3)}, 9).flat[:3].tolist()
[[-2.0, 0.1], [-2.0, 1.55], [-2.0, 3.0]]
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from diffcompare.problem.errors import InputError
from diffcompare.problem.problem import Problem
from diffcompare.problem.values import parse_number, whole_number
from diffcompare.problem.vocabulary import example, given, option

MAX_POINTS = 2_000_000       # memory grows with the points (about 0.3 KB each with every method)


@dataclass
class Points:
    """Points as rows of ``flat`` (one column per scalar input) and how they were made."""
    flat: np.ndarray
    how: str

    def __len__(self):
        return self.flat.shape[0]


def single(problem: Problem) -> Points:
    return Points(problem.flat_point()[None, :], "at the point")


def parse_box(text) -> dict:
    """``"x=-2:2,y=0.1:3"`` (or a mapping name -> (low, high)) -> {name: (low, high)}."""
    if isinstance(text, dict):
        items = [(str(k), v) for k, v in text.items()]
    else:
        items = []
        for part in str(text).split(","):
            if not part.strip():
                continue
            name, sep, bounds = part.partition("=")
            low, colon, high = bounds.partition(":")
            if not sep or not colon:
                raise InputError(f"{given('box', part.strip())}: write NAME=LOW:HIGH, e.g. x=-2:2")
            items.append((name.strip(), (low, high)))
    box = {}
    for name, bounds in items:
        if not name.isidentifier():
            raise InputError(f"{option('box')}: {name!r} is not a variable name")
        try:
            low, high = bounds
        except (TypeError, ValueError):
            raise InputError(f"{option('box')} {name}: give two bounds, low and high") from None
        low, high = parse_number(name, low), parse_number(name, high)
        if not low < high:
            raise InputError(f"{option('box')} {name}={low:g}:{high:g}: the low bound must be below the high one")
        if not math.isfinite(high - low):
            raise InputError(f"{option('box')} {name}={low:g}:{high:g}: the box is wider than binary64 can hold "
                             f"(high - low overflows); narrow it, e.g. {name}=-1e300:1e300")
        box[name] = (low, high)
    if not box:
        raise InputError(f"{option('box')} needs at least one variable's bounds, e.g. {example('box', 'x=-2:2', repr({'x': (-2, 2)}))}")
    return box


def box_centre(box: dict, at: dict) -> dict:
    """The nominal point: ``at``'s values, and the box's centre for variables it lacks
    (their shape is a number; a vector variable's shape comes from ``at``)."""
    return {**{name: (low + high) / 2 for name, (low, high) in box.items()}, **at}


def _check(problem: Problem, box: dict, count):
    unknown = [name for name in box if name not in problem.variables]
    if unknown:
        raise InputError(f"{option('box')} gives {unknown[0]!r}, which is not a variable of f "
                         f"(its variables: {', '.join(problem.variables)})")
    whole_number(count, "the number of points", 1, MAX_POINTS)


def _columns(problem: Problem):
    """For each variable, its slice of the flat inputs."""
    out, offset = {}, 0
    for name in problem.variables:
        size = int(np.prod(problem.shapes[name])) if problem.shapes[name] else 1
        out[name] = slice(offset, offset + size)
        offset += size
    return out


def random_points(problem: Problem, box: dict, count: int, seed: int = 0) -> Points:
    """``count`` points uniform in the box (every element of a vector variable drawn in its
    bounds); variables outside the box keep their value."""
    _check(problem, box, count)
    rng = np.random.default_rng(seed)
    flat = np.repeat(problem.flat_point()[None, :], count, axis=0)
    for name, columns in _columns(problem).items():
        if name in box:
            low, high = box[name]
            flat[:, columns] = rng.uniform(low, high, size=(count, columns.stop - columns.start))
    fixed = [n for n in problem.variables if n not in box]
    rest = f"; {', '.join(fixed)} fixed" if fixed else ""
    return Points(flat, f"at {count:,} random points in the box (seed {seed}){rest}")


def grid_points(problem: Problem, box: dict, count: int) -> Points:
    """A regular grid over the box with about ``count`` points (the same number per axis,
    ends included); scalar variables only."""
    _check(problem, box, count)
    arrays = [n for n in box if problem.shapes[n]]
    if arrays:
        raise InputError(f"--grid spans scalar variables; {arrays[0]} is a vector: use random points ({option('points')} without {option('grid')}) instead")
    names = [n for n in problem.variables if n in box]
    per_axis = max(2, int(math.floor(count ** (1 / len(names)) + 1e-9))) if count > 1 else 1
    axes = [np.linspace(*box[n], per_axis) for n in names]
    mesh = np.meshgrid(*axes, indexing="ij")
    flat = np.repeat(problem.flat_point()[None, :], per_axis ** len(names), axis=0)
    columns = _columns(problem)
    for name, values in zip(names, mesh):
        flat[:, columns[name].start] = values.ravel()
    shape = " × ".join([str(per_axis)] * len(names))
    return Points(flat, f"on a {shape} grid over the box ({len(flat):,} points)")
