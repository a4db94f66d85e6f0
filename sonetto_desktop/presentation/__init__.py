"""What the app says to a person, without Qt: toast texts for memory changes and writer events
(``toasts.py``), one toast per writer turn (``turn_summary.py``), the one wording of a failed
operation (``errors.py``) and relative times (``relative_time.py``).

Texts are written in Chinese (the source language) and go through :func:`i18n.translate`, a
translator the front end installs (the desktop app installs Qt's, so the compiled ``.qm`` files
translate them; the command line and a test keep the Chinese). A web or terminal front end can use
these as they are.
"""
