"""What every workload's ``make_data`` returns, and the conversion of its constants."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np


@dataclass
class Data:
    """``params``: the arrays the gradient is taken with respect to (float64), in the order
    the objective takes them; ``consts``: the objective's other keyword arguments — arrays
    (converted to each library's tensors once, outside the timing) and plain Python values."""
    params: list
    consts: dict = field(default_factory=dict)

    def consts_for(self, convert):
        """The constants with every NumPy array passed through ``convert``."""
        return {k: convert(v) if isinstance(v, np.ndarray) else v for k, v in self.consts.items()}
