"""import_off_loop: required modules must import; optional ones (libraries' private modules, imported
ahead because a first request would import them on the loop) are skipped when they do not exist."""

from __future__ import annotations

import sys

import pytest

from sonetto_desktop.aio import import_off_loop


async def test_optional_modules_that_do_not_exist_are_skipped_required_ones_are_not():
    sys.modules.pop("colorsys", None)
    await import_off_loop(("json",), optional=("sonetto_no_such_module", "colorsys"))
    assert "colorsys" in sys.modules  # the ones after a missing one are still imported
    with pytest.raises(ModuleNotFoundError):
        await import_off_loop(("sonetto_no_such_module",))


def _child(code: str) -> str:
    import subprocess

    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                          env={**__import__("os").environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_an_import_leaves_no_module_source_in_the_line_cache():
    """Before: with PySide6 loaded, every module imported after it stayed in ``linecache`` as its whole
    source (PySide6's feature switch reads each new module's source): 24 MB at the app's start-up."""
    out = _child(
        "import linecache, PySide6.QtCore\n"
        "from sonetto_desktop.aio import import_now\n"
        "before = set(linecache.cache)\n"
        "import_now(('xml.dom.minidom', 'difflib', 'email.mime.text'))\n"
        "print(sorted(f.rsplit('/', 1)[-1] for f in set(linecache.cache) - before))\n")
    assert out == "[]"


def test_jieba_is_loaded_without_pkg_resources():
    """Before: ``import jieba`` imported ``pkg_resources`` (~12 MB, ~0.2 s) to open its own files."""
    out = _child(
        "import sys\n"
        "from sonetto_desktop.memory.retrieval.tokenize import warm_up, word_freq\n"
        "warm_up()\n"
        "import jieba\n"
        "print('pkg_resources' in sys.modules, word_freq('北京') > 0, jieba.lcut('我去北京天安门', HMM=False))\n")
    assert out == "False True ['我', '去', '北京', '天安门']"
