"""``torch.special`` as ``ag.special``: the special functions under their SciPy-style names, each
taking PyTorch's ``out=`` (but ``softmax`` and ``log_softmax``, as in PyTorch). The functions
themselves are the ops' (:mod:`.ops.gamma_functions`, :mod:`.ops.special_functions`,
:mod:`.ops.orthogonal_polynomials` and the elementwise families); this module names them.

>>> from diffcompare import autograd as ag
>>> ag.special.expit(ag.tensor([0.0])), ag.special.logit(ag.tensor([0.5]))
(tensor([0.5000]), tensor([0.]))
>>> x = ag.tensor([0.5, 1.5], requires_grad=True)
>>> ag.special.i0e(x).grad_fn.name(), ag.special.ndtri(ag.tensor([0.5]))
('SpecialI0EBackward0', tensor([0.]))
>>> out = ag.zeros(2)
>>> ag.special.bessel_j0(x, out=out) is out, ag.special.bessel_j0(x).requires_grad
(True, False)
"""

from __future__ import annotations

from . import ops as _ops

# name in torch.special -> (the op, the name PyTorch's errors give it: ATen's, where torch.special's is an alias)
_FUNCTIONS = {
    "airy_ai": (_ops.airy_ai, "special_airy_ai"),
    "bessel_j0": (_ops.bessel_j0, "special_bessel_j0"),
    "bessel_j1": (_ops.bessel_j1, "special_bessel_j1"),
    "bessel_y0": (_ops.bessel_y0, "special_bessel_y0"),
    "bessel_y1": (_ops.bessel_y1, "special_bessel_y1"),
    "digamma": (_ops.digamma, "digamma"),
    "entr": (_ops.entr, "special_entr"),
    "erf": (_ops.erf, "erf"),
    "erfc": (_ops.erfc, "erfc"),
    "erfcx": (_ops.erfcx, "special_erfcx"),
    "erfinv": (_ops.erfinv, "erfinv"),
    "exp2": (_ops.exp2, "exp2"),
    "expit": (_ops.sigmoid, "sigmoid"),
    "expm1": (_ops.expm1, "expm1"),
    "gammainc": (_ops.gammainc, "igamma"),
    "gammaincc": (_ops.gammaincc, "igammac"),
    "gammaln": (_ops.lgamma, "lgamma"),
    "i0": (_ops.i0, "i0"),
    "i0e": (_ops.i0e, "special_i0e"),
    "i1": (_ops.i1, "special_i1"),
    "i1e": (_ops.i1e, "special_i1e"),
    "log1p": (_ops.log1p, "log1p"),
    "log_ndtr": (_ops.log_ndtr, "special_log_ndtr"),
    "logit": (_ops.logit, "logit"),
    "logsumexp": (_ops.logsumexp, "logsumexp"),
    "modified_bessel_i0": (_ops.modified_bessel_i0, "special_modified_bessel_i0"),
    "modified_bessel_i1": (_ops.modified_bessel_i1, "special_modified_bessel_i1"),
    "modified_bessel_k0": (_ops.modified_bessel_k0, "special_modified_bessel_k0"),
    "modified_bessel_k1": (_ops.modified_bessel_k1, "special_modified_bessel_k1"),
    "multigammaln": (_ops.mvlgamma, "mvlgamma"),
    "ndtr": (_ops.ndtr, "special_ndtr"),
    "ndtri": (_ops.ndtri, "special_ndtri"),
    "polygamma": (_ops.polygamma, "polygamma"),
    "psi": (_ops.digamma, "digamma"),
    "scaled_modified_bessel_k0": (_ops.scaled_modified_bessel_k0, "special_scaled_modified_bessel_k0"),
    "scaled_modified_bessel_k1": (_ops.scaled_modified_bessel_k1, "special_scaled_modified_bessel_k1"),
    "sinc": (_ops.sinc, "sinc"),
    "spherical_bessel_j0": (_ops.spherical_bessel_j0, "special_spherical_bessel_j0"),
    "xlog1py": (_ops.xlog1py, "special_xlog1py"),
    "xlogy": (_ops.xlogy, "xlogy"),
    "zeta": (_ops.zeta, "special_zeta"),
    **{name: (getattr(_ops, name), f"special_{name}") for name in _ops.POLYNOMIALS},
}


def _with_out(name, op, aten):
    """``op`` taking ``out=`` (its result written there, as :func:`._ops.write_out` does)."""
    def function(*args, out=None, **kwargs):
        return _ops.write_out(op(*args, **kwargs), out, aten)
    function.__name__ = function.__qualname__ = name
    function.__wrapped__ = op
    function.takes_out = True       # (the keyword wrapper reads the signature of op, which has no out=)
    summary = (op.__doc__ or "").strip().split("\n\n")[0]
    function.__doc__ = f"``torch.special.{name}`` (and ``out=``): :func:`{op.__module__}.{op.__name__}`, {summary}"
    return function


globals().update({name: _with_out(name, op, aten) for name, (op, aten) in _FUNCTIONS.items()})


def round(input, *, decimals=0, out=None):  # noqa: A001 - PyTorch's name
    """``torch.special.round``: to ``decimals`` decimal places, halves to even; recorded as
    RoundBackward1 even at 0 decimals (PyTorch calls ``round.decimals``), its gradient zero.

    >>> from diffcompare import autograd as ag
    >>> round(ag.tensor([0.5, 1.26], requires_grad=True), decimals=1)
    tensor([0.5000, 1.3000], grad_fn=<RoundBackward1>)
    """
    return _ops.write_out(_ops.apply(_ops.RoundBackward1, (input,), {"decimals": decimals}), out, "round")


log_softmax = _ops.log_softmax
softmax = _ops.softmax

__all__ = sorted([*_FUNCTIONS, "round", "log_softmax", "softmax"])
