"""Bundle post-processing and reporting: strip debug info, size breakdown.

No PyInstaller import: these work on a finished ``dist/`` folder and are unit-tested on small files.
"""

from __future__ import annotations

import shutil
import struct
import subprocess
from dataclasses import dataclass
from pathlib import Path


# ---------------------------------------------------------------- debug info (Linux) --

def _elf_sections(path: str | Path):
    """``[(name, type, offset, size, link)]`` of an ELF file's sections, or ``None`` if not ELF."""
    with open(path, "rb") as handle:
        ident = handle.read(16)
        if len(ident) < 16 or ident[:4] != b"\x7fELF":
            return None
        is64, endian = ident[4] == 2, "<" if ident[5] == 1 else ">"
        header = handle.read(48 if is64 else 36)
        if is64:
            shoff, = struct.unpack_from(endian + "Q", header, 24)
            shentsize, shnum, shstrndx = struct.unpack_from(endian + "HHH", header, 42)
        else:
            shoff, = struct.unpack_from(endian + "I", header, 16)
            shentsize, shnum, shstrndx = struct.unpack_from(endian + "HHH", header, 30)
        if shoff == 0 or shnum == 0 or shstrndx >= shnum:
            return []
        handle.seek(shoff)
        table = handle.read(shentsize * shnum)
        if len(table) < shentsize * shnum:
            return None
        raw = []
        for index in range(shnum):
            base = index * shentsize
            name, kind = struct.unpack_from(endian + "II", table, base)
            if is64:
                offset, size = struct.unpack_from(endian + "QQ", table, base + 24)
                link, = struct.unpack_from(endian + "I", table, base + 40)
            else:
                offset, size, link = struct.unpack_from(endian + "III", table, base + 16)
            raw.append((name, kind, offset, size, link))
        handle.seek(raw[shstrndx][2])
        strings = handle.read(raw[shstrndx][3])
        sections = []
        for name, kind, offset, size, link in raw:
            end = strings.find(b"\0", name)
            label = strings[name:end if end >= 0 else None].decode("ascii", "replace")
            sections.append((label, kind, offset, size, link))
        return sections, is64, endian


def elf_section_names(path: str | Path) -> list[str] | None:
    """Section names of an ELF file (32/64-bit, either endianness), or ``None`` if it is not ELF."""
    parsed = _elf_sections(path)
    if parsed is None:
        return None
    if parsed == []:
        return []
    return [section[0] for section in parsed[0]]


def elf_needed(path: str | Path) -> list[str]:
    """The direct ``DT_NEEDED`` libraries of an ELF file (``[]`` for non-ELF). Unlike ``ldd`` this is
    not transitive, which is what pruning libraries that only a dropped plugin needed requires."""
    parsed = _elf_sections(path)
    if not parsed:
        return []
    sections, is64, endian = parsed
    dynamic = next((s for s in sections if s[1] == 6), None)  # SHT_DYNAMIC
    if dynamic is None or dynamic[4] >= len(sections):
        return []
    strtab = sections[dynamic[4]]
    entry = struct.Struct(endian + ("qQ" if is64 else "iI"))
    with open(path, "rb") as handle:
        handle.seek(dynamic[2])
        table = handle.read(dynamic[3])
        handle.seek(strtab[2])
        strings = handle.read(strtab[3])
    needed = []
    for offset in range(0, len(table) - entry.size + 1, entry.size):
        tag, value = entry.unpack_from(table, offset)
        if tag == 0:  # DT_NULL
            break
        if tag == 1:  # DT_NEEDED
            end = strings.find(b"\0", value)
            needed.append(strings[value:end if end >= 0 else None].decode("utf-8", "replace"))
    return needed


def has_debug_info(path: str | Path) -> bool:
    names = elf_section_names(path)
    return bool(names) and any(name.startswith(".debug_") for name in names)


def strip_debug_copies(binaries, cache_dir: str | Path, strip_tool: str | None = None):
    """TOC entries ``(dest, src, kind)`` with every ELF carrying DWARF debug sections replaced by a
    copy under ``cache_dir`` run through ``strip --strip-debug``.

    Only debug sections go (symbols and everything the loader reads stay). Binaries without debug
    info (most wheels' libraries, some of them patchelf-edited) are never touched. Without a
    ``strip`` tool (Windows, macOS) the TOC comes back unchanged. Returns (toc, bytes saved).
    """
    tool = strip_tool or shutil.which("strip")
    if not tool:
        return list(binaries), 0
    cache = Path(cache_dir)
    result, saved = [], 0
    for entry in binaries:
        dest, src, kind = entry[0], entry[1], entry[2]
        source = Path(src)
        if kind == "SYMLINK" or not source.is_file() or not has_debug_info(source):
            result.append(entry)
            continue
        target = cache / dest
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(source, target)
        subprocess.run([tool, "--strip-debug", str(target)], check=True, capture_output=True)
        saved += source.stat().st_size - target.stat().st_size
        result.append((dest, str(target), kind))
    return result, saved


# ---------------------------------------------------------------------- size report --

@dataclass(frozen=True)
class Part:
    name: str
    size: int  # bytes


def tree_size(path: Path) -> int:
    if path.is_symlink():
        return 0
    if path.is_file():
        return path.stat().st_size
    return sum(p.stat().st_size for p in path.rglob("*") if p.is_file() and not p.is_symlink())


# Groups for the report: a bundle entry whose name starts with a prefix is counted in that group.
GROUPS = (
    ("Qt (PySide6, ICU, Qt libraries and plugins)", ("PySide6", "libQt6", "libpyside6", "libshiboken6", "shiboken6", "libicu")),
    ("sonetto executable (bootloader + all Python bytecode) and app resources", ("sonetto",)),
    ("numpy (its OpenBLAS too with --stock-numpy)", ("numpy",)),
    ("Python runtime", ("libpython", "python3", "base_library.zip", "lib-dynload")),
    ("cryptography (keyring's Secret Service)", ("cryptography", "_cffi_backend")),
    ("OpenSSL (HTTPS)", ("libssl", "libcrypto")),
    ("jieba dictionary", ("jieba",)),
    ("tiktoken + regex", ("tiktoken", "regex")),
    ("pydantic-core", ("pydantic_core",)),
)


def parts(bundle: str | Path) -> list[Part]:
    """Size of each top-level entry of the bundle's ``_internal`` folder (or the bundle itself)."""
    root = Path(bundle)
    inner = root / "_internal"
    base = inner if inner.is_dir() else root
    entries = [Part(p.name, tree_size(p)) for p in base.iterdir()]
    if base is inner:
        entries += [Part(p.name, tree_size(p)) for p in root.iterdir() if p.name != "_internal"]
    return sorted(entries, key=lambda part: part.size, reverse=True)


def grouped(entries: list[Part]) -> list[Part]:
    """The entries summed into GROUPS, the rest as 'other'; biggest first."""
    totals: dict[str, int] = {}
    for entry in entries:
        group = next((label for label, prefixes in GROUPS if entry.name.startswith(prefixes)), "other libraries and packages")
        totals[group] = totals.get(group, 0) + entry.size
    return sorted((Part(name, size) for name, size in totals.items()), key=lambda part: part.size, reverse=True)


def mb(size: int) -> str:
    return f"{size / 1_000_000:.1f} MB"


def size_report(bundle: str | Path, top: int = 15) -> str:
    entries = parts(bundle)
    total = sum(entry.size for entry in entries)
    lines = [f"bundle {bundle}: {mb(total)}", "", "by group:"]
    lines += [f"  {mb(part.size):>10}  {part.name}" for part in grouped(entries)]
    lines += ["", f"biggest {top} entries:"]
    lines += [f"  {mb(part.size):>10}  {part.name}" for part in entries[:top]]
    return "\n".join(lines)
