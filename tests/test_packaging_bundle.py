"""Packaging tools: icon generation (.ico / .icns / PNG), ELF helpers and debug stripping, the size
report, the bundle contents check and the smoke runner that times start to window."""

from __future__ import annotations

import os
import stat
import struct
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGING = ROOT / "packaging"
sys.path.insert(0, str(PACKAGING))

import bundle_tools  # noqa: E402
import smoke  # noqa: E402

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == PNG_SIGNATURE, "not a PNG"
    assert data[12:16] == b"IHDR"
    return struct.unpack(">II", data[16:24])


# -------------------------------------------------------------------------------- icons --

@pytest.fixture(scope="module")
def generated_icons(tmp_path_factory):
    out = tmp_path_factory.mktemp("icons")
    done = subprocess.run([sys.executable, str(PACKAGING / "icons.py"), "--svg", str(ROOT / "resources/icons/app.svg"),
                           "--out", str(out)], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    return out


def test_ico_has_every_size_as_png(generated_icons):
    import icons

    data = (generated_icons / "sonetto.ico").read_bytes()
    reserved, kind, count = struct.unpack_from("<HHH", data, 0)
    assert (reserved, kind) == (0, 1)
    assert count == len(icons.ICO_SIZES)
    sizes = []
    for index in range(count):
        width, height, _colors, _res, planes, bits, length, offset = struct.unpack_from("<BBBBHHII", data, 6 + 16 * index)
        width, height = width or 256, height or 256
        assert (planes, bits) == (1, 32)
        assert offset + length <= len(data)
        assert _png_size(data[offset:offset + length]) == (width, height)
        sizes.append(width)
    assert sizes == sorted(icons.ICO_SIZES)


def test_icns_has_png_entries_ic07_to_ic10(generated_icons):
    data = (generated_icons / "sonetto.icns").read_bytes()
    assert data[:4] == b"icns"
    assert struct.unpack(">I", data[4:8])[0] == len(data)
    entries, offset = {}, 8
    while offset < len(data):
        kind, length = data[offset:offset + 4], struct.unpack(">I", data[offset + 4:offset + 8])[0]
        assert length > 8 and offset + length <= len(data)
        entries[kind] = _png_size(data[offset + 8:offset + length])
        offset += length
    assert entries == {b"ic07": (128, 128), b"ic08": (256, 256), b"ic09": (512, 512), b"ic10": (1024, 1024)}


def test_png_sizes_and_svg_copy(generated_icons):
    import icons

    for size in icons.PNG_SIZES:
        png = (generated_icons / f"sonetto-{size}.png").read_bytes()
        assert _png_size(png) == (size, size)
    assert (generated_icons / "sonetto.svg").read_bytes() == (ROOT / "resources/icons/app.svg").read_bytes()


def test_icon_rendering_is_not_blank(generated_icons):
    """The 256 px PNG has opaque pixels (the SVG really rendered), checked through Qt in a subprocess."""
    code = textwrap.dedent(f"""
        from PySide6.QtGui import QImage
        image = QImage({str(generated_icons / "sonetto-256.png")!r})
        opaque = sum(1 for y in range(0, 256, 8) for x in range(0, 256, 8) if image.pixelColor(x, y).alpha() > 0)
        print(opaque)
    """)
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
    assert done.returncode == 0, done.stderr
    assert int(done.stdout.strip()) > 100  # of 1024 sampled pixels


def test_icon_errors_are_clear(tmp_path):
    bad = tmp_path / "bad.svg"
    bad.write_text("this is not svg", encoding="utf-8")
    for svg, message in ((tmp_path / "missing.svg", "not found"), (bad, "not a valid SVG")):
        done = subprocess.run([sys.executable, str(PACKAGING / "icons.py"), "--svg", str(svg), "--out", str(tmp_path / "o")],
                              capture_output=True, text=True, timeout=60,
                              env={**os.environ, "QT_QPA_PLATFORM": "offscreen"})
        assert done.returncode == 1
        assert message in done.stderr
    assert not (tmp_path / "o" / "sonetto.ico").exists()


def test_ico_rejects_sizes_over_256():
    import icons

    with pytest.raises(ValueError):
        icons.build_ico({512: PNG_SIGNATURE})


# ---------------------------------------------------------------------- bundle tools --

def test_elf_reader_on_a_real_extension_module():
    import PySide6.QtCore

    module = Path(PySide6.QtCore.__file__)
    assert ".dynsym" in bundle_tools.elf_section_names(module)
    needed = bundle_tools.elf_needed(module)
    assert any(name.startswith("libQt6Core.so") for name in needed)
    assert bundle_tools.elf_section_names(ROOT / "pyproject.toml") is None
    assert bundle_tools.elf_needed(ROOT / "pyproject.toml") == []


def test_strip_debug_copies_strips_only_debug_binaries(tmp_path):
    import PySide6.QtSvg

    plain = Path(PySide6.QtSvg.__file__)
    debug = tmp_path / "with_debug.so"
    (tmp_path / "dwarf.bin").write_bytes(os.urandom(200_000))
    subprocess.run(["objcopy", "--add-section", f".debug_info={tmp_path / 'dwarf.bin'}", str(plain), str(debug)],
                   check=True)
    assert bundle_tools.has_debug_info(debug)
    assert not bundle_tools.has_debug_info(plain)
    toc = [("PySide6/QtSvg.so", str(plain), "EXTENSION"), ("lib/with_debug.so", str(debug), "BINARY")]
    result, saved = bundle_tools.strip_debug_copies(toc, tmp_path / "cache")
    assert result[0] == toc[0]  # untouched: no debug info
    dest, src, kind = result[1]
    assert (dest, kind) == ("lib/with_debug.so", "BINARY")
    assert Path(src) == tmp_path / "cache" / "lib" / "with_debug.so"
    assert not bundle_tools.has_debug_info(src)
    assert saved >= 200_000
    assert bundle_tools.has_debug_info(debug)  # the source is never modified
    assert bundle_tools.elf_needed(src) == bundle_tools.elf_needed(plain)


def test_size_report_groups_and_orders(tmp_path):
    bundle = tmp_path / "sonetto"
    (bundle / "_internal" / "PySide6").mkdir(parents=True)
    (bundle / "_internal" / "PySide6" / "QtCore.so").write_bytes(b"x" * 3_000_000)
    (bundle / "_internal" / "libicudata.so.73").write_bytes(b"x" * 1_000_000)
    (bundle / "_internal" / "jieba").mkdir()
    (bundle / "_internal" / "jieba" / "dict.txt").write_bytes(b"x" * 2_000_000)
    (bundle / "sonetto").write_bytes(b"x" * 500_000)
    parts = bundle_tools.parts(bundle)
    assert [p.name for p in parts] == ["PySide6", "jieba", "libicudata.so.73", "sonetto"]
    groups = {p.name: p.size for p in bundle_tools.grouped(parts)}
    assert groups[next(label for label in groups if label.startswith("Qt"))] == 4_000_000
    report = bundle_tools.size_report(bundle)
    assert "6.5 MB" in report.splitlines()[0]


# ------------------------------------------------------------------------------ smoke --

def _fake_self_test(tmp_path: Path, body: str) -> Path:
    script = tmp_path / "fake_sonetto"
    script.write_text(f"#!{sys.executable}\n" + textwrap.dedent(body), encoding="utf-8")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    return script


def test_smoke_times_start_to_window_from_outside(tmp_path):
    script = _fake_self_test(tmp_path, """
        import os, sys, time
        assert sys.argv[1:] == ["--self-test"]
        assert os.environ["QT_QPA_PLATFORM"] == "offscreen"
        data_dir = os.environ["SONETTO_DATA_DIR"]
        assert not os.path.exists(data_dir) or not os.listdir(data_dir), "the data dir must be fresh"
        time.sleep(0.3)
        print("sonetto self-test: data dir", os.environ["SONETTO_DATA_DIR"])
        time.sleep(0.5)
        print("  window_shown              200 ms")
        print("  shutdown                   20 ms")
        print("SELF-TEST OK")
    """)
    result = smoke.run_self_test(script)
    assert result.ok
    assert result.timings == {"window_shown": 200.0, "shutdown": 20.0}
    assert result.start_to_window_ms is not None
    first_line = result.start_to_window_ms - 200.0
    assert 300.0 <= first_line < result.launch_to_exit_ms - 400.0  # the first line arrived before the rest


def test_smoke_reads_the_timings_of_a_self_test_in_a_chinese_terminal():
    """A Chinese terminal's self-test says what each timing is before its name (ui/self_test.py)."""
    said = ("sonetto self-test: 自检，数据文件夹 x（yaml）\n  记忆条数             0\n"
            "  内置嵌入模型         multilingual-e5-small (4-bit)：384 维，1925 ms\n"
            "  窗口已显示   window_shown              200 ms\n  退出         shutdown                   20 ms\n"
            "自检通过（SELF-TEST OK）\n")
    assert smoke.parse_timings(said) == {"window_shown": 200.0, "shutdown": 20.0}
    assert smoke.parse_timings("  window_shown              200 ms\n") == {"window_shown": 200.0}


def test_smoke_reports_a_failing_self_test(tmp_path):
    script = _fake_self_test(tmp_path, """
        print("sonetto self-test: data dir x")
        print("SELF-TEST FAILED: main window did not show")
        raise SystemExit(1)
    """)
    result = smoke.run_self_test(script)
    assert not result.ok
    assert result.code == 1
    assert "main window did not show" in result.output
    with pytest.raises(FileNotFoundError):
        smoke.run_self_test(tmp_path / "missing")


def test_smoke_runs_a_command_from_source_too(tmp_path):
    script = _fake_self_test(tmp_path, """
        print("sonetto self-test: data dir x")
        print("  window_shown               90 ms")
        print("SELF-TEST OK")
    """)
    result = smoke.run_self_test([sys.executable, str(script)])
    assert result.ok
    assert result.start_to_window_ms is not None and result.start_to_window_ms >= 90.0
    assert "start to window: median" in smoke.summary([result])


# ------------------------------------------------------------------------ bundle check --

def _fake_onedir(root: Path, with_resources: bool) -> Path:
    import bundle_check

    bundle = root / "sonetto"
    inner = bundle / "_internal"
    (inner / "jieba").mkdir(parents=True)
    (inner / "jieba" / "dict.txt").write_text("的 1 uj\n", encoding="utf-8")
    if with_resources:
        for relative in bundle_check.expected_resources(ROOT / "resources"):
            target = inner / "sonetto_desktop" / "resources" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b"x")
        for relative in bundle_check.expected_package_data(ROOT / "sonetto_desktop"):
            target = inner / "sonetto_desktop" / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(b"x")
        (inner / "NOTICE.md").write_text("notice", encoding="utf-8")
        (bundle / "NOTICE.md").write_text("notice", encoding="utf-8")
    for plugin in ("platforms/libqoffscreen.so", "platforms/libqxcb.so", "platforms/libqwayland.so",
                   "imageformats/libqsvg.so", "iconengines/libqsvgicon.so"):
        target = inner / "PySide6" / "Qt" / "plugins" / plugin
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(b"x")
    return bundle


def test_bundle_check_passes_a_complete_bundle(tmp_path):
    import bundle_check

    bundle = _fake_onedir(tmp_path, with_resources=True)
    modules = bundle_check.source_modules(ROOT / "sonetto_desktop") | set(bundle_check.REQUIRED_MODULES)
    assert "sonetto_desktop.ui.self_test" in modules and "sonetto_desktop" in modules
    assert bundle_check.check_bundle(bundle, modules=modules, platform="linux") == []


def test_bundle_check_names_what_is_missing(tmp_path):
    import bundle_check

    bundle = _fake_onedir(tmp_path, with_resources=False)
    (bundle / "_internal" / "jieba" / "dict.txt").unlink()
    (bundle / "_internal" / "libQt6Network.so.6").symlink_to("PySide6/Qt/lib/libQt6Network.so.6")
    modules = bundle_check.source_modules(ROOT / "sonetto_desktop") - {"sonetto_desktop.ui.app"}
    problems = bundle_check.check_bundle(bundle, modules=modules, platform="linux")
    assert "resource missing: sonetto_desktop/resources/icons/app.svg" in problems
    assert "package data missing: sonetto_desktop/memory/retrieval/english_zh.tsv" in problems
    assert "package data missing: sonetto_desktop/memory/retrieval/categories.yaml" in problems
    assert "the third-party data licences are missing: _internal/NOTICE.md" in problems
    assert "the third-party data licences are missing: NOTICE.md" in problems
    assert "jieba's dictionary (jieba/dict.txt) is missing" in problems
    assert "dangling link: _internal/libQt6Network.so.6" in problems
    assert "module missing: tiktoken_ext.openai_public" in problems
    assert "app module missing: sonetto_desktop.ui.app" in problems
    assert bundle_check.check_bundle(tmp_path / "nothing") == [f"{tmp_path / 'nothing'} is not a one-folder bundle (no _internal/)"]


# ------------------------------------------------------------------------------ mcp smoke --

def test_mcp_smoke_passes_the_server_from_source():
    import mcp_smoke

    assert mcp_smoke.check_mcp([sys.executable, "-m", "sonetto_desktop"]) == []


def test_mcp_smoke_names_a_command_that_is_no_mcp_server(tmp_path):
    import mcp_smoke

    script = tmp_path / "not_sonetto.py"
    script.write_text("import sys\nprint('hello')\nsys.exit(3)\n", encoding="utf-8")
    problems = mcp_smoke.check_mcp([sys.executable, str(script)], timeout=30)
    assert any("--help" in p for p in problems) and any("stdio" in p for p in problems)
