"""Freed memory kept for reuse, for the command line's process.

With glibc's defaults a freed block larger than a few hundred kilobytes goes back to the
system at once, so a computation that makes and drops large temporaries (a gradient at a
million points: a dozen arrays of 8 MB per call) page-faults fresh memory on every call,
which can cost more than the arithmetic. The command line raises glibc's trim and mmap
thresholds at start-up, so such blocks stay in the process and are reused. A library
leaves the allocator of the program that imports it alone: only the CLI does this.

>>> keep_freed_memory() in (True, False)
True
"""

from __future__ import annotations

import ctypes
import ctypes.util

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
TRIM_THRESHOLD = 1 << 30        # keep up to 1 GiB of freed memory at the top of the heap
MMAP_THRESHOLD = 32 << 20       # blocks up to 32 MiB come from the heap (glibc's largest allowed value)


def keep_freed_memory() -> bool:
    """Raise glibc's thresholds; False where the C library is not glibc (nothing changes)."""
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)) and bool(mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
