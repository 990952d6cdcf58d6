"""Writing a finished report to a file: whole or not at all.

- a regular file is replaced whole: the report goes into a new file beside it, flushed to
  disk, then renamed over it, so that a write cut short (a full disk, a kill) leaves the old
  contents (and, keeping its mode, the file a reader expects);
- a symbolic link is followed: its target is replaced (the link stays a link);
- a FIFO, a device or a pipe (``/dev/stdout``, ``>(jq .)``) is written directly; a FIFO
  that nobody reads is an error after a short wait, not a hang;
- a file in a folder the user cannot write (no new file can go beside it) is updated in
  place when the file itself is writable.

>>> import os, tempfile
>>> folder = tempfile.mkdtemp()
>>> path = os.path.join(folder, "r.json")
>>> write_whole(path, "{}")
>>> os.symlink(path, os.path.join(folder, "latest.json"))
>>> write_whole(os.path.join(folder, "latest.json"), "[]")
>>> open(path).read(), os.path.islink(os.path.join(folder, "latest.json"))
('[]', True)
"""

from __future__ import annotations

import errno
import os
import stat
import tempfile
import time

READER_WAIT = 10.0          # seconds a FIFO may take to find a reader


def write_whole(path, content) -> None:
    """Write ``content`` (text or bytes) to ``path`` as the module says. Raises OSError (a
    folder, no permission, no space, a FIFO nobody reads) with nothing left behind."""
    data = content if isinstance(content, bytes) else content.encode("utf-8")
    if os.path.isdir(path):
        raise IsADirectoryError(errno.EISDIR, "it is a folder: give a file name", path)
    if os.path.exists(path) and not stat.S_ISREG(os.stat(path).st_mode):
        _write_directly(path, data)
        return
    target = os.path.realpath(path)         # a symbolic link (or a chain of them): the file it names
    directory = os.path.dirname(target)
    try:
        handle = tempfile.NamedTemporaryFile(dir=directory, prefix=".diffcompare-", delete=False)
    except PermissionError:
        if os.path.isfile(target) and os.access(target, os.W_OK):
            _write_in_place(target, data)   # the folder is closed to new files, the file is not
            return
        raise PermissionError(errno.EACCES, f"no permission to create a file in {directory}", path) from None
    try:
        with handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        if os.path.exists(target):
            mode = stat.S_IMODE(os.stat(target).st_mode)
        else:
            umask = os.umask(0)
            os.umask(umask)
            mode = 0o666 & ~umask
        os.chmod(handle.name, mode)
        os.replace(handle.name, target)
    except BaseException:
        os.unlink(handle.name)
        raise


def _write_in_place(target, data):
    with open(target, "r+b") as handle:
        handle.write(data)
        handle.truncate()
        handle.flush()
        os.fsync(handle.fileno())


def _write_directly(path, data):
    """A FIFO, a device, a pipe: opened without waiting for a reader forever."""
    if not stat.S_ISFIFO(os.stat(path).st_mode):
        with open(path, "wb") as handle:
            handle.write(data)
        return
    give_up = time.monotonic() + READER_WAIT
    while True:
        try:
            descriptor = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
            break
        except OSError as error:
            if error.errno != errno.ENXIO:
                raise
            if time.monotonic() >= give_up:
                raise OSError(errno.ENXIO, f"nothing reads this FIFO (waited {READER_WAIT:g} s): start its reader "
                                           f"first, e.g. cat {path} &", path) from None
            time.sleep(0.05)
    os.set_blocking(descriptor, True)       # a slow reader is waited for, as any pipe's
    with os.fdopen(descriptor, "wb") as handle:
        handle.write(data)
