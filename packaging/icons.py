"""App icons for the bundle, generated from the SVG master ``resources/icons/app.svg``.

Renders PNGs with Qt's ``QSvgRenderer`` (offscreen, no display needed) and assembles the Windows
``.ico`` and macOS ``.icns`` containers by hand (both accept PNG payloads), into
``packaging/generated/``:

    python packaging/icons.py [--svg resources/icons/app.svg] [--out packaging/generated]
"""

from __future__ import annotations

import argparse
import os
import struct
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DEFAULT_SVG = REPO / "resources" / "icons" / "app.svg"
DEFAULT_OUT = Path(__file__).resolve().parent / "generated"

PNG_SIZES = (16, 24, 32, 48, 64, 128, 256, 512, 1024)
ICO_SIZES = (16, 24, 32, 48, 64, 128, 256)  # Windows: 256 is the largest an .ico entry can declare
# PNG-based .icns entries: type -> pixel size (ic10 is the 512pt@2x image).
ICNS_TYPES = {b"ic07": 128, b"ic08": 256, b"ic09": 512, b"ic10": 1024}


@dataclass(frozen=True)
class IconSet:
    ico: Path
    icns: Path
    pngs: dict[int, Path]
    svg: Path


def render_pngs(svg_data: bytes, sizes=PNG_SIZES) -> dict[int, bytes]:
    """PNG bytes of the SVG at each square size (transparent background, aspect ratio kept)."""
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QRectF, Qt
    from PySide6.QtGui import QGuiApplication, QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    app = QGuiApplication.instance() or QGuiApplication([sys.argv[0]])  # fonts for SVG <text>
    renderer = QSvgRenderer(QByteArray(svg_data))
    if not renderer.isValid():
        raise ValueError("the icon master is not a valid SVG")
    view = renderer.viewBoxF()
    aspect = view.width() / view.height() if view.height() > 0 else 1.0
    result: dict[int, bytes] = {}
    for size in sizes:
        image = QImage(size, size, QImage.Format.Format_ARGB32_Premultiplied)
        image.fill(Qt.GlobalColor.transparent)
        width, height = (size, size / aspect) if aspect >= 1 else (size * aspect, size)
        target = QRectF((size - width) / 2, (size - height) / 2, width, height)
        painter = QPainter(image)
        painter.setRenderHint(QPainter.RenderHint.Antialiasing)
        painter.setRenderHint(QPainter.RenderHint.SmoothPixmapTransform)
        renderer.render(painter, target)
        painter.end()
        buffer = QBuffer()
        buffer.open(QIODevice.OpenModeFlag.WriteOnly)
        if not image.save(buffer, "PNG"):
            raise RuntimeError(f"could not encode the {size}px icon as PNG")
        result[size] = bytes(buffer.data())
    app.processEvents()
    return result


def build_ico(pngs: dict[int, bytes]) -> bytes:
    """A Windows .ico holding one PNG-compressed 32-bit image per size (ICONDIR + ICONDIRENTRYs)."""
    sizes = sorted(pngs)
    if not sizes or sizes[-1] > 256:
        raise ValueError("an .ico holds sizes from 1 to 256 pixels")
    header = struct.pack("<HHH", 0, 1, len(sizes))
    offset = len(header) + 16 * len(sizes)
    entries, payload = b"", b""
    for size in sizes:
        data = pngs[size]
        dim = 0 if size == 256 else size  # 0 means 256 in the one-byte width/height fields
        entries += struct.pack("<BBBBHHII", dim, dim, 0, 0, 1, 32, len(data), offset)
        offset += len(data)
        payload += data
    return header + entries + payload


def build_icns(pngs_by_type: dict[bytes, bytes]) -> bytes:
    """A macOS .icns: ``icns`` + total length, then (type, length incl. 8-byte header, PNG) entries."""
    body = b""
    for kind, data in pngs_by_type.items():
        if len(kind) != 4:
            raise ValueError(f"icns entry types are 4 bytes, got {kind!r}")
        body += kind + struct.pack(">I", len(data) + 8) + data
    return b"icns" + struct.pack(">I", len(body) + 8) + body


def generate(svg: str | Path = DEFAULT_SVG, out: str | Path = DEFAULT_OUT) -> IconSet:
    """Write ``sonetto-<size>.png``, ``sonetto.ico``, ``sonetto.icns`` and ``sonetto.svg`` into ``out``."""
    svg, out = Path(svg), Path(out)
    if not svg.is_file():
        raise FileNotFoundError(f"icon master not found: {svg}")
    data = svg.read_bytes()
    pngs = render_pngs(data)
    out.mkdir(parents=True, exist_ok=True)
    paths = {}
    for size, png in pngs.items():
        paths[size] = out / f"sonetto-{size}.png"
        paths[size].write_bytes(png)
    ico = out / "sonetto.ico"
    ico.write_bytes(build_ico({size: pngs[size] for size in ICO_SIZES}))
    icns = out / "sonetto.icns"
    icns.write_bytes(build_icns({kind: pngs[size] for kind, size in ICNS_TYPES.items()}))
    svg_copy = out / "sonetto.svg"
    svg_copy.write_bytes(data)
    return IconSet(ico=ico, icns=icns, pngs=paths, svg=svg_copy)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Generate .ico / .icns / PNG app icons from the SVG master.")
    parser.add_argument("--svg", default=str(DEFAULT_SVG), help="SVG master (default: resources/icons/app.svg)")
    parser.add_argument("--out", default=str(DEFAULT_OUT), help="output folder (default: packaging/generated)")
    args = parser.parse_args(argv)
    try:
        icons = generate(args.svg, args.out)
    except (FileNotFoundError, ValueError, RuntimeError) as exc:
        print(f"icons: {exc}", file=sys.stderr)
        return 1
    print(f"icons: {icons.ico.name}, {icons.icns.name} and {len(icons.pngs)} PNGs in {icons.ico.parent}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
