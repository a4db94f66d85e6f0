"""``sonetto``: the desktop app; ``sonetto memory ...``: the memory command line; ``sonetto history ...``:
chats from other apps into the memories (``cli_history``); ``sonetto mcp``: the memories for other AI
apps (``mcp_server``)."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    from .heap import share_one_arena

    share_one_arena()  # before any thread starts (issue 37: RSS after an import)
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "memory":
        from .cli import main as memory_main

        return memory_main(args[1:])
    if args and args[0] == "history":
        from .cli_history import main as history_main

        return history_main(args[1:])
    if args and args[0] == "embeddings-check":  # the built-in embeddings model, tried in a child process
        from .memory.retrieval.builtin_model import check_child

        return check_child(args[1:])
    if args and args[0] == "mcp":
        from .mcp_server.entry import main as mcp_main

        return mcp_main(args[1:])
    from .ui.app import main as app_main

    return app_main(args)


if __name__ == "__main__":
    sys.exit(main())
