"""``repr`` of a tensor in PyTorch's style: ``tensor([1., 2.], requires_grad=True)``.

Floats print with 4 decimals, as integers with a trailing dot when all are integral, and in
scientific notation when their magnitudes span more than three decades.
"""

from __future__ import annotations

import numpy as np

from .dtypes import default_complex, default_dtype

PROFILES = {"default": dict(precision=4, threshold=1000, edgeitems=3, linewidth=80),
            "short": dict(precision=2, threshold=1000, edgeitems=2, linewidth=80),
            "full": dict(precision=4, threshold=float("inf"), edgeitems=3, linewidth=80)}
# PyTorch's print options (set_printoptions): digits after the point, elements past which a
# tensor is summarised with "...", elements shown at each end then, characters a line, and
# scientific notation always (True), never (False) or where the values ask for it (None)
OPTIONS = dict(PROFILES["default"], sci_mode=None)


def set_printoptions(precision=None, threshold=None, edgeitems=None, linewidth=None, profile=None, sci_mode=None):
    """How tensors print, as ``torch.set_printoptions``: a ``profile`` ("default", "short",
    "full") first, then each option given; ``sci_mode`` None lets the values decide.

    >>> from diffcompare import autograd as ag
    >>> ag.set_printoptions(precision=2)
    >>> ag.tensor([1.2345, 2.0])
    tensor([1.23, 2.00])
    >>> ag.set_printoptions(profile="default")
    """
    if profile is not None:
        if profile not in PROFILES:
            raise ValueError(f"Invalid profile: {profile}. the profile must be one of {list(PROFILES)}")
        OPTIONS.update(PROFILES[profile])
    for name, value in (("precision", precision), ("threshold", threshold), ("edgeitems", edgeitems),
                        ("linewidth", linewidth)):
        if value is not None:
            OPTIONS[name] = value
    OPTIONS["sci_mode"] = sci_mode


def get_printoptions():
    """The print options in force (``torch.get_printoptions``)."""
    return dict(OPTIONS)


def _float_formatter(values: np.ndarray):
    digits, sci = OPTIONS["precision"], OPTIONS["sci_mode"]
    finite = values[np.isfinite(values)]
    nonzero = np.abs(finite[finite != 0])
    integral = finite.size == 0 or bool(np.all(finite == np.ceil(finite)))
    if sci is True:
        return lambda v: _special(v) or f"{v:.{digits}e}"
    if integral:
        if sci is None and nonzero.size and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8):
            return lambda v: _special(v) or f"{v:.{digits}e}"
        return lambda v: _special(v) or f"{v:.0f}."
    if sci is None and nonzero.size and (nonzero.max() / nonzero.min() > 1000 or nonzero.max() > 1e8 or
                                         nonzero.min() < 1e-4):
        return lambda v: _special(v) or f"{v:.{digits}e}"
    return lambda v: _special(v) or f"{v:.{digits}f}"


def _special(v):
    if np.isnan(v):
        return "nan"
    if np.isinf(v):
        return "inf" if v > 0 else "-inf"
    return None


def _formatter(array: np.ndarray):
    kind = array.dtype.kind
    if kind == "f":
        sample = _summary_values(array).astype(np.float64)
        fmt = _float_formatter(sample)
        return lambda v: fmt(float(v))
    if kind == "b":
        return lambda v: "True" if v else "False"
    if kind == "c":
        return _complex_formatter(_summary_values(array))
    return lambda v: str(int(v))


def _complex_formatter(sample):
    """PyTorch's complex format: the real parts and the imaginary parts each formatted as
    real values of their own (integral, fixed or scientific), each padded to its widest,
    joined by the imaginary part's sign."""
    parts = []
    for values in (sample.real.astype(np.float64), sample.imag.astype(np.float64)):
        fmt = _float_formatter(values)
        finite = values[np.isfinite(values)] if np.isfinite(values).any() else values
        parts.append((fmt, max((len(fmt(float(v))) for v in finite), default=0)))
    (real_fmt, real_width), (imag_fmt, imag_width) = parts

    def fmt(v):
        imag = (imag_fmt(float(v.imag)).rjust(imag_width) + "j").lstrip()
        return real_fmt(float(v.real)).rjust(real_width) + ("" if imag[0] in "+-" else "+") + imag
    return fmt


def _summary_values(array):
    if array.size <= OPTIONS["threshold"] or array.ndim == 0:
        return array.ravel()
    parts = []
    _collect_edges(array, parts)
    return np.concatenate(parts) if parts else array.ravel()[:0]


def _collect_edges(array, parts):
    if array.ndim == 1:
        edge = OPTIONS["edgeitems"]
        parts.append(array[:edge] if array.shape[0] <= 2 * edge else np.concatenate([array[:edge], array[-edge:]]))
        return
    rows = range(array.shape[0])
    edge = OPTIONS["edgeitems"]
    if array.shape[0] > 2 * edge:
        rows = list(range(edge)) + list(range(array.shape[0] - edge, array.shape[0]))
    for i in rows:
        _collect_edges(array[i], parts)


def _format(array, fmt, width, indent, summarise):
    if array.ndim == 0:
        return fmt(array[()]).rjust(width)
    n = array.shape[0]
    edge = OPTIONS["edgeitems"]
    cut = summarise and n > 2 * edge
    idx = list(range(edge)) + [None] + list(range(n - edge, n)) if cut else list(range(n))
    if array.ndim == 1:
        items = [" ..." if i is None else fmt(array[i]).rjust(width) for i in idx]   # (PyTorch's " ...")
        lines = []
        per_line = max(1, (OPTIONS["linewidth"] - indent) // (width + 2))
        for k in range(0, len(items), per_line):
            lines.append(", ".join(items[k:k + per_line]))
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    sep = "," + "\n" * (array.ndim - 1) + " " * (indent + 1)
    rows = ["..." if i is None else _format(array[i], fmt, width, indent + 1, summarise) for i in idx]
    return "[" + sep.join(rows) + "]"


def format_array(array: np.ndarray, indent: int = 7) -> str:
    """The bracketed body of a tensor's repr."""
    if array.size == 0:
        return "[]"
    fmt = _formatter(array)
    summarise = array.size > OPTIONS["threshold"]
    values = _summary_values(array)
    if array.dtype.kind == "f" and np.isfinite(values).any():
        values = values[np.isfinite(values)]   # PyTorch sizes columns by the finite values only
    width = max(len(fmt(v)) for v in values) if array.ndim else 0
    return _format(array, fmt, width, indent, summarise)


def tensor_repr(t) -> str:
    array = t._data
    suffix = []
    if type(array).__name__ == "MetaArray":     # a shape-only placeholder: no values to show
        body = "..."
        suffix += ["device='meta'", f"size={tuple(array.shape)}"]
    else:
        body = format_array(array)
    if array.size == 0 and array.shape != (0,) and body != "...":
        suffix.append(f"size={tuple(array.shape)}")
    kind = array.dtype.kind
    if body == "...":     # PyTorch names a meta tensor's dtype unless it is the default floating one
        if array.dtype != default_dtype():
            suffix.append(f"dtype={array.dtype}")
    elif (kind == "f" and array.dtype != default_dtype()) or (kind == "c" and array.dtype != default_complex()) \
            or (kind in "iu" and array.dtype != np.int64):
        suffix.append(f"dtype={array.dtype}")
    try:
        grad_fn = t.grad_fn
        name = None if grad_fn is None else type(grad_fn).__name__
    except RuntimeError:        # a view PyTorch refuses a new history (made in no_grad mode, ...)
        name = "Invalid"
    if name is not None:
        suffix.append(f"grad_fn=<{name}>")
    elif t.requires_grad:
        suffix.append("requires_grad=True")
    text = "tensor(" + body
    last = len(text.rsplit("\n", 1)[-1]) + 2     # PyTorch's count (len - rfind("\n") + 1)
    for s in suffix:        # as PyTorch: a suffix that would pass 80 columns starts a new line
        width = len(s) + (6 if s.startswith("dtype=") else 0)   # counted as PyTorch's "dtype=torch.…"
        if last + width + 2 > 80:
            text += ",\n       " + s
            last = 7 + width
        else:
            text += ", " + s
            last += width + 2
    return text + ")"
