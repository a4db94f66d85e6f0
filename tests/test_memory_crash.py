"""Crash safety and multi-process writes, with real processes and real files."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from memory_stores import BACKENDS, open_store, use_backend

CHILD = Path(__file__).parent / "memory_crash_child.py"


def _spawn(backend: str, folder: Path, count: int) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, str(CHILD), backend, str(folder), str(count)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )


@pytest.mark.parametrize("backend", BACKENDS)
def test_kill_9_mid_stream_loses_no_acknowledged_write(backend, tmp_path, request):
    use_backend(request, backend)
    rng = random.Random(7)
    for round_no in range(5):
        folder = tmp_path / f"round{round_no}"
        child = _spawn(backend, folder, 0)
        acked = []
        target = rng.randint(3, 40)
        while len(acked) < target:
            line = child.stdout.readline()
            assert line, f"child died early: {child.stderr.read()}"
            acked.append(line.strip())
        os.kill(child.pid, signal.SIGKILL)  # mid-stream: it is writing the next item right now
        child.wait()
        child.stdout.close()
        child.stderr.close()
        mm = open_store(backend, folder)
        assert mm.self_check().status != "FAIL"
        stored = {r["id"] for r in mm.show()}
        missing = [mid for mid in acked if mid not in stored]
        assert missing == [], f"round {round_no}: lost acknowledged writes {missing}"
        mm.add("崩溃后还能继续写", "瞬间")  # and the store stays writable
        mm.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_four_processes_times_25_adds(backend, tmp_path, request):
    use_backend(request, backend)
    open_store(backend, tmp_path).close()  # create the store before the race
    children = [_spawn(backend, tmp_path, 25) for _ in range(4)]
    acked = []
    for child in children:
        out, err = child.communicate(timeout=120)
        assert child.returncode == 0, err
        acked += out.split()
    assert len(acked) == 100 and len(set(acked)) == 100
    mm = open_store(backend, tmp_path)
    assert mm.count() == 100
    assert {r["id"] for r in mm.show()} == set(acked)
    mm.close()
