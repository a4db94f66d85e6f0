"""What an idle app with an empty store holds (issue 37: ≤ 150 MB): numpy (~12 MB, the vector table's
and the recall index's) waits for the first memory, httpx (~9 MB with httpcore, anyio and the CLI
extras it imports) for the first model built. Checked in a fresh process, since this test run has
imported both long ago."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent


def test_an_idle_empty_store_loads_numpy_at_its_first_memory_and_httpx_at_its_first_model(llm_server, tmp_path):
    """Before: the agents' start imported httpx and made its pool, and the embeddings sync's module
    imported numpy (with the vector table's), for a store with nothing to embed or recall and nobody
    chatting: 152 MB idle."""
    llm_server.responder = lambda body: "好的"  # the chat's reply and the writer's (nothing to write)
    done = subprocess.run([sys.executable, str(HERE / "empty_store_child.py"), llm_server.base_url,
                           str(tmp_path / "data")], capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["builtin"] and out["vectors_idle"] and out["recalled_empty"] == []
    assert out["idle_loaded"] == []
    # the first memory: its vector computed with numpy, loaded in the sync's thread, not on the loop's
    assert out["vector_computed"] and len(out["ranked"]) == 1
    assert out["first_memory_loaded"] == ["numpy"]
    assert out["first_memory_loop_imports"] == []
    # the first message builds the model over the agents' pool, made then (in a worker: see test_lazy_llm)
    assert out["reply"] == "好的" and out["after_send_loaded"] == ["httpx", "numpy"]
