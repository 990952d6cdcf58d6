"""``torch.utils.model_zoo``: ``load_url``, PyTorch's older name of
:func:`~diffcompare.autograd.hub.load_state_dict_from_url`."""

from ..hub import load_state_dict_from_url as load_url

__all__ = ["load_url"]
