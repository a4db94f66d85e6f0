"""Issue 39's placement target for a memory field: a new field is one ``Field`` in
``memory/record.py`` and nothing else has to change for it to be stored, read, merged, exported and
carried to the views.

Checked for real: the package is copied, one field is appended to ``FIELDS`` in the copy's
``record.py`` (and only there), and the field suite (``test_memory_fields.py``: every field's
sample through every backend's round trip, a reopen, an older table gaining the column, export and
import, merges, ``set_field``, the card state) runs against the copy in a child process."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

NEW_FIELD = '''    # (added by tests/test_field_placement.py) how the person felt about it
    Field("mood", "TEXT NOT NULL DEFAULT ''", default=str, read=as_text, card=True, optional=True,
          set_by=PERSON_ACTORS, sample="开心"),
)
'''


def test_a_new_field_is_one_entry_in_record_py(tmp_path):
    copy = tmp_path / "pkg"  # the package and its tests (tests/conftest.py puts its own root first on the path)
    for part in ("sonetto_desktop", "tests"):
        shutil.copytree(ROOT / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    shutil.copy(ROOT / "pyproject.toml", copy)
    record = copy / "sonetto_desktop" / "memory" / "record.py"
    text = record.read_text(encoding="utf-8")
    pinned_end = text.index("sample=True),\n)\n", text.index('Field("pinned"')) + len("sample=True),\n")
    record.write_text(text[:pinned_end] + NEW_FIELD + text[pinned_end + len(")\n"):], encoding="utf-8")

    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(copy), str(copy / "tests")])}
    probe = subprocess.run([sys.executable, "-c", "import sonetto_desktop.memory.record as r; "
                            "print(r.__file__); print(','.join(r.NAMES))"],
                           cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert probe.returncode == 0, probe.stderr
    where, names = probe.stdout.split()
    assert Path(where).is_relative_to(copy) and names.endswith(",pinned,mood")

    (copy / "tests" / "test_zz_which_record.py").write_text(  # the suite's own process reads the copy
        "import sonetto_desktop.memory.record as r\n\n\ndef test_the_copy_is_read():\n"
        "    assert 'mood' in r.NAMES, r.__file__\n", encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-n", "0", "-p", "no:cacheprovider",
                           "tests/test_memory_fields.py", "tests/test_zz_which_record.py"],
                          cwd=copy, env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and " failed" not in done.stdout
