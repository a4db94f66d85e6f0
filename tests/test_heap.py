"""The C heap's one arena (``sonetto_desktop/heap.py``, issue 37): threads that allocate at the same time
share glibc's main arena once ``share_one_arena`` has run, as the entry point runs it first thing, so the
holes one history import leaves in a worker's arena are not kept beside the next one's."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import pytest

pytestmark = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc's arenas are Linux's")

# Four threads allocate blocks too big for Python's own allocator at the same time; glibc's malloc_info
# then lists one <heap> per arena in use.
CHILD = textwrap.dedent("""
    import ctypes, sys, tempfile, threading
    if sys.argv[1] == "entry":
        from sonetto_desktop.__main__ import main
        try:
            main(["memory", "--help"])
        except SystemExit:
            pass
    libc = ctypes.CDLL(None)
    start = threading.Barrier(4)
    def churn():
        start.wait()
        kept = []
        for i in range(20000):
            kept.append(bytearray(4096))
            if len(kept) > 50:
                kept.pop(0)
    threads = [threading.Thread(target=churn) for _ in range(4)]
    for t in threads: t.start()
    for t in threads: t.join()
    libc.fopen.restype = ctypes.c_void_p
    out = tempfile.mktemp()
    fp = libc.fopen(out.encode(), b"w")
    libc.malloc_info(0, ctypes.c_void_p(fp))
    libc.fclose(ctypes.c_void_p(fp))
    print(open(out).read().count("<heap nr="))
""")


def _heaps(mode: str) -> int:
    env = {k: v for k, v in os.environ.items() if k != "MALLOC_ARENA_MAX"}
    done = subprocess.run([sys.executable, "-c", CHILD, mode], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr
    return int(done.stdout.strip().splitlines()[-1])


def test_the_entry_point_gives_every_thread_the_one_arena():
    assert _heaps("bare") > 1  # (what glibc does by itself: an arena per thread that met a busy one)
    assert _heaps("entry") == 1


def test_the_environments_setting_wins(monkeypatch):
    from sonetto_desktop.heap import share_one_arena

    monkeypatch.setenv("MALLOC_ARENA_MAX", "4")
    assert share_one_arena() is False
