"""``torch.autograd.anomaly_mode``: where ``detect_anomaly`` and ``set_detect_anomaly`` are
defined in PyTorch, for code that imports them from there."""

from ..grad_mode import detect_anomaly, set_detect_anomaly

__all__ = ["detect_anomaly", "set_detect_anomaly"]
