"""Child process for the file tests: runs ``sonetto memory ARGS...`` with limits a test needs.

usage: python store_files_child.py MAX_FILE_BYTES|- UID|- ARGS...
MAX_FILE_BYTES: no file may grow past it (writes fail with EFBIG, as on a full disk).
UID: run as this user (only when started as root): a folder it may not write is read-only to it.
"""

from __future__ import annotations

import os
import resource
import signal
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))


def main() -> int:
    limit, uid, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    if limit != "-":
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (int(limit), int(limit)))
    from sonetto_desktop.cli import main as cli_main

    if uid != "-":  # everything the command imports later must be imported while we may read it
        import asyncio
        import importlib

        for name in ("platformdirs", "sonetto_desktop.memory.stores.sqlite", "sonetto_desktop.memory.stores.yaml.store",
                     "sonetto_desktop.memory.stores.migrate", "sonetto_desktop.config.secrets", "encodings.idna", "concurrent.futures.thread"):
            importlib.import_module(name)
        asyncio.run(asyncio.sleep(0))
        from sonetto_desktop.presentation.i18n import english

        english()  # (the English words are read once: the resources may be out of the other user's reach)
        os.setgid(int(uid))
        os.setuid(int(uid))

    return cli_main(args)


if __name__ == "__main__":
    sys.exit(main())
