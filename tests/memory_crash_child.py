"""Child process for the crash tests: writes to a store and acknowledges each committed write on stdout.

usage: python memory_crash_child.py BACKEND FOLDER COUNT   (COUNT 0 = until killed)
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from memory_stores import open_store


def main() -> None:
    backend, folder, count = sys.argv[1], Path(sys.argv[2]), int(sys.argv[3])
    mm = open_store(backend, folder)
    n = 0
    while count == 0 or n < count:
        mid = mm.add(f"进程写入的第{n}条记忆", "瞬间")
        if n % 3 == 2:
            mm.update(mid, "改写", new_description=f"改写后的第{n}条记忆")
        print(mid, flush=True)
        n += 1
    mm.close()


if __name__ == "__main__":
    main()
