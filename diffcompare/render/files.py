"""Writing a finished report to a file: whole or not at all.

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "r.json")
>>> write_whole(path, "{}")
>>> open(path).read()
'{}'
"""

from __future__ import annotations

import os
import stat
import tempfile


def write_whole(path, content) -> None:
    """Write ``content`` (text or bytes) to exactly ``path``: into a new file beside it,
    flushed to disk, then renamed over it, so that a write cut short (a full disk) leaves
    the old contents. A device or pipe (/dev/stdout) is written directly. Raises OSError
    (a directory, no permission, no space) with nothing left behind."""
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    if os.path.isdir(path):
        raise IsADirectoryError(21, "it is a folder: give a file name", path)
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        with open(path, "wb") as handle:
            handle.write(data)
        return
    directory = os.path.dirname(os.path.abspath(path))
    handle = tempfile.NamedTemporaryFile(dir=directory, prefix=".diffcompare-", delete=False)
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(path):
            mode = stat.S_IMODE(os.stat(path).st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(handle.name, mode)
        os.replace(handle.name, path)
    except BaseException:
        os.unlink(handle.name)
        raise
