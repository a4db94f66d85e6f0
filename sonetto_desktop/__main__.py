"""``sonetto``: the desktop app; ``sonetto memory ...``: the memory command line."""

from __future__ import annotations

import sys


def main(argv: list[str] | None = None) -> int:
    args = list(sys.argv[1:] if argv is None else argv)
    if args and args[0] == "memory":
        from .cli import main as memory_main

        return memory_main(args[1:])
    from .ui.app import main as app_main

    return app_main(args)


if __name__ == "__main__":
    sys.exit(main())
