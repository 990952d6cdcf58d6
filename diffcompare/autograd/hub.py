"""``torch.hub``'s checkpoint cache, as training scripts read pretrained weights through it
(``torch.hub.load_state_dict_from_url``, ``torch.utils.model_zoo.load_url``): a file already
in the cache (``$TORCH_HOME/hub/checkpoints``, ``~/.cache/torch`` by default, or ``set_dir``)
is loaded with :func:`load`, as PyTorch does; a file not there would be downloaded, which
this engine does not do: it says so, and where to put the file.

>>> import os, tempfile
>>> from diffcompare import autograd as ag
>>> folder = tempfile.mkdtemp()
>>> set_dir(folder)
>>> os.makedirs(os.path.join(folder, "checkpoints"))
>>> ag.save({"w": ag.ones(2)}, os.path.join(folder, "checkpoints", "tiny.pth"))
>>> load_state_dict_from_url("https://example.org/weights/tiny.pth")
{'w': tensor([1., 1.])}
>>> set_dir(None)
"""

from __future__ import annotations

import os
from urllib.parse import urlparse

from .serialization import load

_DIR = [None]       # set_dir's folder (None: PyTorch's default)


def get_dir() -> str:
    """The hub's folder: ``set_dir``'s, else ``$TORCH_HOME/hub`` (``$XDG_CACHE_HOME/torch`` or
    ``~/.cache/torch`` when TORCH_HOME is not set), as PyTorch's."""
    if _DIR[0] is not None:
        return _DIR[0]
    home = os.environ.get("TORCH_HOME") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache"), "torch")
    return os.path.join(os.path.expanduser(home), "hub")


def set_dir(d) -> None:
    """Make ``d`` the hub's folder (None: the default again)."""
    _DIR[0] = None if d is None else os.path.expanduser(os.fspath(d))


def load_state_dict_from_url(url, model_dir=None, map_location=None, progress=True, check_hash=False,
                             file_name=None, weights_only=False):
    """The object saved at ``url``, read from the hub's cache (``model_dir``, else
    ``get_dir()/checkpoints``) under ``file_name`` or the URL's last path component."""
    folder = model_dir if model_dir is not None else os.path.join(get_dir(), "checkpoints")
    path = os.path.join(folder, file_name or os.path.basename(urlparse(url).path))
    if not os.path.exists(path):
        raise RuntimeError(f"{path} is not in the hub's cache, and this engine does not download ({url}): download "
                           f"the file there yourself, or load it with torch.load")
    return load(path, map_location=map_location, weights_only=weights_only)


__all__ = ["get_dir", "load_state_dict_from_url", "set_dir"]
