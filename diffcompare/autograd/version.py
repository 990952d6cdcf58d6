"""``torch.version``: the build's description, as PyTorch's module gives it. The engine follows
PyTorch 2.13.0 (``__version__``, as ``torch.__version__``) and is built for the CPU only: no
CUDA, ROCm or XPU version, no debug build, and no PyTorch source revision (``git_version``).

>>> from diffcompare.autograd import version
>>> version.__version__, version.cuda, version.debug
('2.13.0+diffcompare', None, False)
"""

from __future__ import annotations

from .torch_version import __version__

debug = False
cuda = None
hip = None
rocm = None
xpu = None
git_version = None

__all__ = ["__version__", "debug", "cuda", "git_version", "hip", "rocm", "xpu"]
