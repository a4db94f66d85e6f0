"""Issue 39, item 4 (placement target): a new writer tool is one file, and the rules hold for it.

``tests/fixtures/writer_toolbox/add_note.py`` is a tool written the way
``sonetto_desktop/memory/writer/toolbox`` says, with a kind nobody declared; a child process puts its
folder on the toolbox package's path (as if the file were in it) and edits nothing else. The agent is
offered the tool, a call of it written as text is recognised, review mode holds its call, an inbox
that was handed no tools plans it again on approval against the memory as it is then, and a locked
memory refuses it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from sonetto_desktop.memory.writer.memory_tools import MEMORY_TOOLS

HERE = Path(__file__).resolve().parent
SIX = ["create_memory", "read_memories", "update_memory", "delete_memory", "merge_memories", "hit_memory"]


def test_a_tool_in_one_module_of_the_toolbox_is_a_writer_tool_under_every_rule(tmp_path):
    done = subprocess.run([sys.executable, str(HERE / "writer_toolbox_child.py"),
                           str(HERE / "fixtures" / "writer_toolbox"), str(tmp_path)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["names"] == [*SIX, "add_note"]  # found, after the six
    assert out["offered"] and out["as_text"] and out["landed"]
    assert out["held"] == ["success", "propose", "用户喜欢猫"]  # review mode: held, nothing written
    assert out["proposal"] == ["add_note", "annotate", "用户喜欢猫（猫叫汤圆）"]
    assert out["approved"] == ["update", "agent", "用户喜欢橘猫（猫叫汤圆）"]  # planned again on approval
    assert out["locked"] == ["error", "用户喜欢橘猫（猫叫汤圆）"]  # a locked memory refuses it


def test_the_app_s_writer_tools_are_the_six_and_the_toolbox_s():
    from sonetto_desktop.memory.writer import toolbox

    own = sorted(p.stem for p in Path(toolbox.__file__).parent.glob("*.py") if p.stem != "__init__")
    assert list(MEMORY_TOOLS.names) == [*SIX, *own]
