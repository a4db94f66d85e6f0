"""Entry script of the frozen bundle: ``sonetto`` with the same arguments as the installed command.

PyInstaller runs its entry script as ``__main__`` outside any package, so the package's own
``__main__`` (which uses relative imports) cannot be the entry script itself.
"""

import multiprocessing
import sys

if __name__ == "__main__":
    multiprocessing.freeze_support()  # no-op unless a library starts worker processes
    from sonetto_desktop.__main__ import main

    sys.exit(main())
