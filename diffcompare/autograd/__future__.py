"""``torch.__future__``: the switches of behaviour PyTorch will change by default, here the
two for a module's conversions (``module.to(...)``, ``module.double()``). The engine converts a
module's parameters in place whatever they say — the ``Parameter`` objects stay the same
objects, which is what swapping gives in PyTorch — so the switches are kept and read back.

>>> set_swap_module_params_on_conversion(True)
>>> get_swap_module_params_on_conversion()
True
>>> set_swap_module_params_on_conversion(False)
"""

from __future__ import annotations

__all__ = ["get_overwrite_module_params_on_conversion", "get_swap_module_params_on_conversion",
           "set_overwrite_module_params_on_conversion", "set_swap_module_params_on_conversion"]

_SWITCHES = {"overwrite": False, "swap": False}


def set_overwrite_module_params_on_conversion(value: bool) -> None:
    _SWITCHES["overwrite"] = bool(value)


def get_overwrite_module_params_on_conversion() -> bool:
    return _SWITCHES["overwrite"]


def set_swap_module_params_on_conversion(value: bool) -> None:
    _SWITCHES["swap"] = bool(value)


def get_swap_module_params_on_conversion() -> bool:
    return _SWITCHES["swap"]
