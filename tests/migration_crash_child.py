"""Child process for the migration crash tests: opens a data dir with a backend (switching it), and
stops dead at one step of the switch so the parent can kill -9 it there.

usage: python migration_crash_child.py FOLDER BACKEND STOP_AT [MAX_FILE_BYTES]
(STOP_AT "" = run to the end). Prints every step as it starts; at STOP_AT prints "stopped" and sleeps
until killed. MAX_FILE_BYTES: no file may grow past this (a full disk, as the system reports it).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from sonetto_desktop.memory.stores.migrate import open_store


def main() -> None:
    folder, backend, stop_at = Path(sys.argv[1]), sys.argv[2], sys.argv[3]
    if len(sys.argv) > 4:
        import resource
        import signal

        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails (EFBIG) instead
        limit = int(sys.argv[4])
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))

    def progress(step: str) -> None:
        print(step, flush=True)
        if step == stop_at:
            print("stopped", flush=True)
            while True:
                time.sleep(60)

    store, report = open_store(folder, backend, progress=progress)
    print(f"finished {store.count()} {report.problem if report else None}", flush=True)
    store.close()


if __name__ == "__main__":
    main()
