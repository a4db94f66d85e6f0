"""Child process for test_writer_toolbox: a writer tool that is one module (``argv[1]``: its folder,
put on the toolbox package's path before the writer's registry is first imported) is offered to the
agent and held, planned again and refused by the same rules as the six CRUD tools. Prints JSON."""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path[:0] = [str(HERE.parent), str(HERE)]

_ids = itertools.count()


def call(made, name, **args):
    by_name = {t.name: t for t in made}
    return by_name[name].invoke({"type": "tool_call", "id": f"call_{next(_ids)}", "name": name, "args": args})


def main(folder: str, data: str) -> None:
    from sonetto_desktop.memory.writer import toolbox

    toolbox.__path__.append(folder)  # the module's folder, as if it were the package's own

    from memory_stores import open_store
    from sonetto_desktop.memory.operations import MemoryOperations
    from sonetto_desktop.memory.review import ReviewInbox
    from sonetto_desktop.memory.writer.memory_tools import MEMORY_TOOLS
    from sonetto_desktop.memory.writer.text_calls import calls_written_as_text
    from sonetto_desktop.memory.writer.tools import TOOL_NAMES, ToolContext, make_memory_tools

    out: dict = {"names": list(TOOL_NAMES), "as_text": calls_written_as_text('add_note(id="a", note="b")'),
                 "landed": MEMORY_TOOLS["add_note"].landed is not None}
    store = open_store("yaml", Path(data))
    inbox = ReviewInbox(Path(data) / "review_inbox.json", enabled=True)
    cat = store.add("用户喜欢猫", "品味")
    context = ToolContext(turn_id="t1", session_id="s1", excerpt="我家猫叫汤圆")
    made = make_memory_tools(MemoryOperations(store, review=inbox), context)
    out["offered"] = "add_note" in {t.name for t in made}
    held = call(made, "add_note", id=cat, note="猫叫汤圆")
    out["held"] = [held.status, held.artifact["kind"], store.get(cat).description]
    (proposal,) = inbox.pending()
    out["proposal"] = [proposal.tool, proposal.kind, proposal.description]
    store.update(cat, "手动编辑", "用户喜欢橘猫")  # the person edits it meanwhile
    later = ReviewInbox(inbox.path, enabled=True)  # another process: no tools handed to it
    change = later.approve(proposal.id, MemoryOperations(store, review=later))
    out["approved"] = [change.kind, change.actor, store.get(cat).description]
    store.set_locked(cat, True, actor="user")
    refused = call(make_memory_tools(MemoryOperations(store), context), "add_note", id=cat, note="爱吃鱼")
    out["locked"] = [refused.status, store.get(cat).description]
    store.close()
    print(json.dumps(out, ensure_ascii=False))


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
