"""The process's C heap: every thread allocates from one glibc arena (issue 37).

glibc gives threads that allocate at the same time arenas of their own (up to eight per core) and never
gives an arena's free space back while a live block sits above it. The app's worker threads (the store's
writes, the journal, the import's ledger) each filled an arena with the import's short-lived blocks and
kept the holes: RSS after 1,000-turn history imports climbed to +8 MB over the baseline before it
levelled off (the Python objects they left were ~0.3 MB of it). With one arena the holes of one import
are filled by the next: +2.4 MB after the first import, +0.1-0.7 MB per import after it, flat from the
fourth (``python -m bench.history_import --overhead --rounds 6``). The threads that allocate at the same time are few and
mostly hold the GIL while they do, so they do not wait on the arena's lock.

``share_one_arena`` is called first thing by the entry point (``__main__.main``), before any thread
starts; ``MALLOC_ARENA_MAX`` in the environment (glibc's own setting) wins over it. Elsewhere (macOS,
Windows, musl) it does nothing: their allocators keep no per-thread arenas of this kind.
"""

from __future__ import annotations

import os
import sys

M_ARENA_MAX = -8  # mallopt's parameter (malloc.h)


def share_one_arena() -> bool:
    """Limit glibc's malloc to one arena; whether it was done (False off glibc or when the environment
    sets ``MALLOC_ARENA_MAX``)."""
    if not sys.platform.startswith("linux") or "MALLOC_ARENA_MAX" in os.environ:
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None)
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    if not hasattr(libc, "gnu_get_libc_version"):  # glibc only (musl has a mallopt that does nothing)
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt(M_ARENA_MAX, 1) == 1
