"""Packaging checks that fit CI: the spec, the trimming rules, resources, desktop integration.

Icons, bundle tools and the smoke runner: tests/test_packaging_bundle.py. The full build + bundled
``--self-test`` is ``packaging/ci_smoke.sh`` (minutes, not seconds).
"""

from __future__ import annotations

import ast
import configparser
import os
import re
import shutil
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
sys.path.insert(0, str(PACKAGING))

import trim  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _spec_constants() -> dict[str, object]:
    tree = ast.parse((PACKAGING / "sonetto.spec").read_text(encoding="utf-8"))
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            try:
                found[node.targets[0].id] = ast.literal_eval(node.value)
            except ValueError:
                pass
    return found


# ------------------------------------------------------------------------------------ spec --

def test_spec_parses_and_lists_tiktoken_hidden_imports():
    constants = _spec_constants()
    hidden = constants["HIDDEN_IMPORTS"]
    assert "tiktoken_ext" in hidden
    assert "tiktoken_ext.openai_public" in hidden
    assert "sonetto_desktop.resources" in hidden


def test_spec_excludes_unused_packages():
    excludes = set(_spec_constants()["EXCLUDES"])
    for name in ("tkinter", "matplotlib", "IPython", "pytest", "hypothesis", "PyInstaller", "PyQt5", "PyQt6",
                 "PySide2", "botocore", "zstandard"):
        assert name in excludes, name
    # never exclude what the app or its LLM stack needs at run time
    for needed in ("PySide6", "qasync", "langchain", "langgraph", "openai", "jieba", "yaml", "sqlite3", "keyring",
                   "tiktoken", "websockets", "httpx"):
        assert needed not in excludes, needed
    # numpy's parts left out are ones the app's own code never imports
    numpy_parts = {name for name in excludes if name.startswith("numpy.")}
    assert {"numpy.random", "numpy.fft"} <= numpy_parts
    imported = set(trim.imported_modules(ROOT / "sonetto_desktop"))
    assert not {name for name in imported for part in numpy_parts if name == part or name.startswith(part + ".")}
    # ... nor reaches as an attribute (np.random.default_rng would import it lazily, and fail frozen)
    attribute = re.compile(r"\b(?:np|numpy)\.(" + "|".join(p.split(".")[1] for p in numpy_parts) + r")\b")
    used = {(path.name, m.group(0)) for path in (ROOT / "sonetto_desktop").rglob("*.py")
            for m in attribute.finditer(path.read_text(encoding="utf-8"))}
    assert not used, used


def test_spec_builds_onedir_named_sonetto():
    source = (PACKAGING / "sonetto.spec").read_text(encoding="utf-8")
    tree = ast.parse(source)
    calls = {node.func.id for node in ast.walk(tree) if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)}
    assert {"Analysis", "PYZ", "EXE", "COLLECT"} <= calls
    names = {kw.value.value for node in ast.walk(tree) if isinstance(node, ast.Call)
             for kw in node.keywords if kw.arg == "name" and isinstance(kw.value, ast.Constant)}
    assert "sonetto" in names
    assert (PACKAGING / "sonetto_entry.py").is_file()


def test_entry_script_runs_the_package_main(tmp_path):
    """The frozen entry script, run as a plain script, reaches the real CLI (memory list on a new store)."""
    store = tmp_path / "memory.yaml"
    done = subprocess.run([sys.executable, str(PACKAGING / "sonetto_entry.py"), "memory", "--store", str(store), "--create", "list"],
                          capture_output=True, text=True, cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr


# ------------------------------------------------------------------------------ trim rules --

def test_qt_modules_used_reads_every_import_form(tmp_path):
    (tmp_path / "a.py").write_text(textwrap.dedent("""
        import PySide6.QtNetwork
        from PySide6 import QtCore, QtSvg
        from PySide6.QtWidgets import QWidget
        import os
        from . import sibling
    """), encoding="utf-8")
    (tmp_path / "broken.py").write_text("def (:\n", encoding="utf-8")
    assert trim.qt_modules_used(tmp_path) == {"QtNetwork", "QtCore", "QtSvg", "QtWidgets"}


def test_qt_excludes_keep_what_the_app_imports():
    import PySide6

    available = trim.qt_modules_available(Path(PySide6.__file__).parent)
    assert {"QtCore", "QtGui", "QtWidgets"} <= available
    used = trim.qt_modules_used(ROOT / "sonetto_desktop")
    excluded = set(trim.qt_excludes(used, available))
    for name in used | trim.QT_ALWAYS:
        assert f"PySide6.{name}" not in excluded
    for unused in ("QtQml", "QtQuick", "QtOpenGL", "QtPdf", "QtWebEngineCore", "Qt3DCore", "QtMultimedia"):
        if unused in available and unused not in used:
            assert f"PySide6.{unused}" in excluded, unused
    assert excluded, "PySide6-Essentials ships modules the app does not use"


def test_optional_packages_follow_the_app_imports(tmp_path):
    (tmp_path / "plain.py").write_text("import math\n", encoding="utf-8")
    assert trim.optional_excludes(tmp_path) == list(trim.OPTIONAL_PACKAGES)
    (tmp_path / "uses_numpy.py").write_text("from numpy import array\n", encoding="utf-8")
    assert "numpy" not in trim.optional_excludes(tmp_path)


def test_translations_keep_zh_cn_and_english_only():
    assert trim.keep_entry("PySide6/Qt/translations/qtbase_zh_CN.qm", set())
    assert trim.keep_entry("PySide6/Qt/translations/qtbase_en.qm", set())
    assert trim.keep_entry("PySide6/Qt/translations/qt_zh_CN.qm", set())
    assert not trim.keep_entry("PySide6/Qt/translations/qtbase_de.qm", set())
    assert not trim.keep_entry("PySide6/Qt/translations/qtbase_zh_TW.qm", set())
    # the app's own translations are not Qt's: never filtered
    assert trim.keep_entry("sonetto_desktop/resources/translations/sonetto_en.qm", set())


def test_plugins_keep_desktop_platforms_and_svg():
    keep = lambda path: trim.keep_entry(path, set())  # noqa: E731
    assert keep("PySide6/Qt/plugins/platforms/libqxcb.so")
    assert keep("PySide6/Qt/plugins/platforms/libqwayland.so")
    assert keep("PySide6/Qt/plugins/platforms/libqoffscreen.so")
    assert keep("PySide6\\Qt\\plugins\\platforms\\qwindows.dll")
    assert keep("PySide6/Qt/plugins/platforms/libqcocoa.dylib")
    assert keep("PySide6/Qt/plugins/imageformats/libqsvg.so")
    assert keep("PySide6/Qt/plugins/iconengines/libqsvgicon.so")
    assert keep("PySide6/Qt/plugins/platforminputcontexts/libibusplatforminputcontextplugin.so")
    assert keep("PySide6/Qt/plugins/wayland-shell-integration/libxdg-shell.so")
    assert not keep("PySide6/Qt/plugins/platforms/libqeglfs.so")
    assert not keep("PySide6/Qt/plugins/platforms/libqvnc.so")
    assert not keep("PySide6/Qt/plugins/imageformats/libqtiff.so")
    assert not keep("PySide6/Qt/plugins/generic/libqtuiotouchplugin.so")
    assert not keep("PySide6/Qt/plugins/platformthemes/libqgtk3.so")
    assert not keep("PySide6/Qt/plugins/wayland-shell-integration/libivi-shell.so")
    # QtNetwork serves one local socket (one window per profile): no TLS backend, no reachability plugin
    assert not keep("PySide6/Qt/plugins/tls/libqopensslbackend.so")
    assert not keep("PySide6/Qt/plugins/networkinformation/libqnetworkmanager.so")


def test_jieba_data_follows_the_module_graph():
    assert trim.keep_entry("jieba/dict.txt", set())
    assert trim.keep_entry("jieba/finalseg/prob_emit.p", set())
    assert not trim.keep_entry("jieba/posseg/prob_emit.p", set())
    assert trim.keep_entry("jieba/posseg/prob_emit.p", {"jieba.posseg"})
    assert not trim.keep_entry("jieba/analyse/idf.txt", {"jieba"})
    assert trim.keep_entry("jieba/analyse/idf.txt", {"jieba.analyse"})
    assert not trim.keep_entry("jieba/lac_small/model_baseline/word_emb", {"jieba.lac_small"})


def test_system_libraries_are_left_to_the_desktop_on_linux_only():
    assert not trim.keep_entry("libfontconfig.so.1", set(), linux=True)
    assert not trim.keep_entry("libX11.so.6", set(), linux=True)
    assert not trim.keep_entry("libglib-2.0.so.0", set(), linux=True)
    assert trim.keep_entry("libfontconfig.so.1", set(), linux=False)
    assert trim.keep_entry("libxcb-cursor.so.0", set(), linux=True)  # Qt >= 6.5 needs it; often missing
    assert trim.keep_entry("libX11-foo.so.1", set(), linux=True)  # prefix match stops at the name


def test_prune_orphans_drops_only_what_dropped_entries_needed():
    graph = {
        "/src/plugin_kept.so": ["libQt6Gui.so.6"],
        "/src/plugin_dropped.so": ["libQt6Network.so.6", "libQt6Gui.so.6"],
        "/src/libQt6Network.so.6": ["libkrb5.so.3"],
        "/src/libkrb5.so.3": [],
        "/src/libQt6Gui.so.6": [],
    }
    kept = [("plugins/kept.so", "/src/plugin_kept.so", "BINARY"),
            ("libQt6Network.so.6", "/src/libQt6Network.so.6", "BINARY"),
            ("libkrb5.so.3", "/src/libkrb5.so.3", "BINARY"),
            ("libQt6Gui.so.6", "/src/libQt6Gui.so.6", "BINARY")]
    dropped = [("plugins/dropped.so", "/src/plugin_dropped.so", "BINARY")]
    result = trim.prune_orphans(kept, dropped, lambda src: graph[src])
    assert [entry[0] for entry in result] == ["plugins/kept.so", "libQt6Gui.so.6"]
    # a library that something kept still needs survives
    graph["/src/plugin_kept.so"] = ["libQt6Gui.so.6", "libQt6Network.so.6"]
    result = trim.prune_orphans(kept, dropped, lambda src: graph[src])
    assert [entry[0] for entry in result] == [entry[0] for entry in kept]


def test_dangling_symlinks_are_dropped():
    datas = [("libQt6Gui.so.6", "PySide6/Qt/lib/libQt6Gui.so.6", "SYMLINK"),
             ("libQt6Network.so.6", "PySide6/Qt/lib/libQt6Network.so.6", "SYMLINK"),
             ("jieba/dict.txt", "/src/dict.txt", "DATA")]
    binaries = [("PySide6/Qt/lib/libQt6Gui.so.6", "/src/libQt6Gui.so.6", "BINARY")]
    assert [entry[0] for entry in trim.drop_dangling_symlinks(datas, binaries)] == ["libQt6Gui.so.6", "jieba/dict.txt"]


# ---------------------------------------------------------------------------- resources --

def test_resources_are_reachable_through_importlib_resources(tmp_path):
    """A clean interpreter (not this test process, not the repo as cwd) finds the bundled resources."""
    code = textwrap.dedent("""
        from importlib.resources import files
        root = files("sonetto_desktop.resources")
        svg = root.joinpath("icons").joinpath("app.svg").read_bytes()
        assert b"<svg" in svg, "app.svg is not an SVG"
        names = sorted(p.name for p in root.joinpath("qss").iterdir())
        assert any(n.endswith(".tmpl") for n in names), names
        print("ok", len(svg))
    """)
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, "-I", "-c", code], capture_output=True, text=True, cwd=tmp_path, env=env,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("ok ")


def test_spec_ships_notice_md_with_the_data():
    """The bundle carries NOTICE.md (the licences of CC-CEDICT and WordNet data it ships)."""
    source = (PACKAGING / "sonetto.spec").read_text(encoding="utf-8")
    assert '(str(REPO / "NOTICE.md"), ".")' in source
    assert 'shutil.copy2(REPO / "NOTICE.md", bundle / "NOTICE.md")' in (PACKAGING / "build.py").read_text(encoding="utf-8")


def test_wheel_and_sdist_carry_notice_and_the_lexicon_data(tmp_path):
    """The wheel and the sdist hold NOTICE.md and every data table the offline recall reads."""
    import tarfile
    import zipfile

    src = tmp_path / "src"
    for name in ("pyproject.toml", "README.md", "NOTICE.md"):
        (src / name).parent.mkdir(parents=True, exist_ok=True)
        (src / name).write_bytes((ROOT / name).read_bytes())
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc")
    shutil.copytree(ROOT / "sonetto_desktop", src / "sonetto_desktop", ignore=ignore)
    shutil.copytree(ROOT / "resources", src / "resources", ignore=ignore)
    out = tmp_path / "out"
    out.mkdir()
    code = ("import sys; from setuptools import build_meta as b; out = sys.argv[1]; "  # build_meta rewrites argv
            "print(b.build_wheel(out)); print(b.build_sdist(out))")
    done = subprocess.run([sys.executable, "-c", code, str(out)], cwd=src, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    data = [f"sonetto_desktop/memory/retrieval/{p.name}"
            for p in sorted((ROOT / "sonetto_desktop" / "memory" / "retrieval").glob("*")) if p.suffix in (".tsv", ".yaml")]
    assert "sonetto_desktop/memory/retrieval/english_zh.tsv" in data
    [wheel] = out.glob("*.whl")
    with zipfile.ZipFile(wheel) as zf:
        names = set(zf.namelist())
        notices = [n for n in names if n.endswith("NOTICE.md") and ".dist-info/" in n]
        assert notices, sorted(names)[:20]
        assert "CC-CEDICT" in zf.read(notices[0]).decode("utf-8")
    assert set(data) <= names, sorted(set(data) - names)
    sdists = sorted(out.glob("*.tar.gz"))
    assert len(sdists) == 1, (sorted(p.name for p in out.iterdir()), done.stdout[-800:])
    sdist = sdists[0]
    with tarfile.open(sdist) as tf:
        members = {m.name.split("/", 1)[1] for m in tf.getmembers() if "/" in m.name}
    assert "NOTICE.md" in members
    assert set(data) <= members, sorted(set(data) - members)


# ------------------------------------------------------------------- desktop integration --

def _desktop_entry(path: Path) -> configparser.SectionProxy:
    parser = configparser.ConfigParser(interpolation=None, strict=True)
    parser.optionxform = str  # keys are case-sensitive
    parser.read(path, encoding="utf-8")
    return parser["Desktop Entry"]


def test_desktop_file_has_required_keys():
    entry = _desktop_entry(PACKAGING / "linux" / "sonetto.desktop")
    assert entry["Type"] == "Application"
    assert entry["Name"] and entry["Name[zh_CN]"]
    assert entry["Exec"].split()[0] == "sonetto"
    assert entry["Icon"] == "sonetto"
    assert entry["Terminal"] == "false"
    assert entry["Categories"].endswith(";")
    assert entry["Keywords"].endswith(";")


def _fake_bundle(root: Path) -> Path:
    bundle = root / "dist dir" / "sonetto"
    (bundle / "icons").mkdir(parents=True)
    exe = bundle / "sonetto"
    exe.write_text("#!/bin/sh\nexit 0\n", encoding="utf-8")
    exe.chmod(exe.stat().st_mode | stat.S_IXUSR)
    (bundle / "icons" / "sonetto.svg").write_bytes((ROOT / "resources/icons/app.svg").read_bytes())
    (bundle / "icons" / "sonetto-256.png").write_bytes(PNG_SIGNATURE + b"fake")
    return bundle


def test_install_script_installs_and_uninstalls_for_a_bundle(tmp_path):
    bundle = _fake_bundle(tmp_path)
    data_home = tmp_path / "share"
    env = {**os.environ, "XDG_DATA_HOME": str(data_home), "HOME": str(tmp_path)}
    script = PACKAGING / "linux" / "install.sh"
    done = subprocess.run(["sh", str(script), str(bundle)], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    installed = data_home / "applications" / "sonetto.desktop"
    entry = _desktop_entry(installed)
    assert entry["Exec"] == f'"{bundle / "sonetto"}"'
    assert entry["TryExec"] == str(bundle / "sonetto")
    assert entry["Icon"] == "sonetto"
    assert (data_home / "icons/hicolor/scalable/apps/sonetto.svg").is_file()
    assert (data_home / "icons/hicolor/256x256/apps/sonetto.png").is_file()

    done = subprocess.run(["sh", str(script), "--uninstall"], capture_output=True, text=True, env=env, timeout=60)
    assert done.returncode == 0, done.stderr
    assert not installed.exists()
    assert not (data_home / "icons/hicolor/scalable/apps/sonetto.svg").exists()


def test_install_script_refuses_a_folder_without_the_executable(tmp_path):
    env = {**os.environ, "XDG_DATA_HOME": str(tmp_path / "share"), "HOME": str(tmp_path)}
    done = subprocess.run(["sh", str(PACKAGING / "linux" / "install.sh"), str(tmp_path)], capture_output=True,
                          text=True, env=env, timeout=60)
    assert done.returncode == 1
    assert "no executable 'sonetto'" in done.stderr
    assert not (tmp_path / "share" / "applications").exists()



# ---------------------------------------------------------------------------- build.py --

def test_build_script_help_lists_its_options():
    done = subprocess.run([sys.executable, str(PACKAGING / "build.py"), "--help"], capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0
    for flag in ("--onefile", "--clean", "--smoke", "--runs", "--stock-numpy", "--max-mb"):
        assert flag in done.stdout


# ------------------------------------------------------------------ numpy without BLAS --

FAKE_PIP = textwrap.dedent("""\
    import sys, zipfile
    from pathlib import Path
    args = sys.argv[1:]
    assert args[:3] == ["-m", "pip", "wheel"], args
    assert "-Csetup-args=-Dblas=none" in args and "--no-binary" in args
    out = Path(args[args.index("-w") + 1])
    mode = Path(__file__).with_name("mode").read_text()
    if mode == "fail":
        print("ERROR: meson setup failed: no C compiler"); sys.exit(1)
    with zipfile.ZipFile(out / "numpy-9.9.9-cp311-cp311-linux_x86_64.whl", "w") as wheel:
        wheel.writestr("numpy/__init__.py", "__version__ = '9.9.9'\\n")
        wheel.writestr("numpy-9.9.9.dist-info/METADATA", "Name: numpy\\nVersion: 9.9.9\\n")
        if mode == "blas":
            wheel.writestr("numpy.libs/libscipy_openblas64_-abc.so", "elf")
    """)


def _fake_pip(tmp_path: Path, mode: str) -> str:
    """A stand-in for ``python -m pip wheel`` (building numpy takes minutes): writes a tiny wheel."""
    script = tmp_path / "fake_python.py"
    script.write_text(FAKE_PIP, encoding="utf-8")
    (tmp_path / "mode").write_text(mode)
    launcher = tmp_path / "fake_python"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {script} \"$@\"\n")
    launcher.chmod(0o755)
    return str(launcher)


def test_blas_free_numpy_is_built_once_unpacked_and_reused(tmp_path):
    import blas_free_numpy

    root = tmp_path / "cache"
    folder = blas_free_numpy.prepare("9.9.9", root=root, python=_fake_pip(tmp_path, "ok"))
    assert folder == blas_free_numpy.folder_for("9.9.9", root)
    assert (folder / "numpy" / "__init__.py").read_text() == "__version__ = '9.9.9'\n"
    assert blas_free_numpy.is_ready(folder) and blas_free_numpy.links_blas(folder) == []
    # a second build asks nothing of pip: a pip that would fail is not run
    assert blas_free_numpy.prepare("9.9.9", root=root, python=_fake_pip(tmp_path, "fail")) == folder
    assert [p.name for p in root.iterdir()] == [folder.name]  # no scratch folders left


def test_a_failed_or_blas_carrying_numpy_build_says_why_and_caches_nothing(tmp_path):
    import blas_free_numpy

    root = tmp_path / "cache"
    with pytest.raises(RuntimeError, match="no C compiler"):
        blas_free_numpy.prepare("9.9.9", root=root, python=_fake_pip(tmp_path, "fail"))
    with pytest.raises(RuntimeError, match="still carries a BLAS library"):
        blas_free_numpy.prepare("9.9.9", root=root, python=_fake_pip(tmp_path, "blas"))
    assert list(root.iterdir()) == []


def test_links_blas_names_blas_and_fortran_runtimes_only(tmp_path):
    import blas_free_numpy

    for name in ("numpy.libs/libscipy_openblas64_-32a4.so", "numpy.libs/libgfortran-0400.so.5",
                 "numpy/_core/_multiarray_umath.cpython-311-x86_64-linux-gnu.so", "libQt6Core.so.6"):
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_bytes(b"x")
    assert blas_free_numpy.links_blas(tmp_path) == ["numpy.libs/libgfortran-0400.so.5",
                                                    "numpy.libs/libscipy_openblas64_-32a4.so"]


def test_the_bundle_carries_the_postgresql_store():
    # A bundle's user cannot pip install the PostgreSQL store afterwards: the packaging extra pulls
    # it in, and the contents check fails a bundle built without it.
    import tomllib

    import bundle_check

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert "sonetto-desktop[postgres]" in extras["package"]
    assert {"psycopg", "psycopg_pool", "langgraph.checkpoint.postgres.aio"} <= set(bundle_check.REQUIRED_MODULES)
    lazily_imported = set(trim.imported_modules(ROOT / "sonetto_desktop"))
    assert {"psycopg", "psycopg_pool", "langgraph.checkpoint.postgres.aio"} <= lazily_imported
