"""``sonetto memory list|add|export|import|check``: the memory store from a terminal. No Qt, no LLM."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .base import BaseMemoryManager
from .errors import MemoryError_
from .migrate import make_store, store_path
from .transfer import FORMATS, ImportFormatError, export_text, format_for, import_file


def default_store_path() -> Path:
    """The app's store: ``memory.yaml`` (or ``memory.db`` with the SQLite backend) in the data dir."""
    try:
        from sonetto_desktop.config.settings import load_settings

        settings = load_settings(with_secret=False)
        return store_path(settings.resolved_data_dir(), settings.store_backend)
    except ImportError:  # settings not available: fall back to the environment
        from platformdirs import user_data_dir

        data_dir = Path(os.environ.get("SONETTO_DATA_DIR") or user_data_dir("sonetto-desktop"))
        return data_dir / "memory.yaml"


def open_store(path: str | Path) -> BaseMemoryManager:
    """``.db`` / ``.sqlite`` files open as SQLite, anything else as the seed's YAML."""
    path = Path(path)
    return make_store("sqlite" if path.suffix.lower() in (".db", ".sqlite", ".sqlite3") else "yaml", path)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sonetto memory", description="Manage Sonetto's long-term memories.")
    parser.add_argument("--store", help="memory store file (.yaml or .db); default: the app's data dir")
    sub = parser.add_subparsers(dest="command", required=True)
    lst = sub.add_parser("list", help="list memories by theme")
    lst.add_argument("--theme", help="only this theme")
    add = sub.add_parser("add", help="add a memory")
    add.add_argument("description")
    add.add_argument("--theme", required=True)
    exp = sub.add_parser("export", help="export all memories")
    exp.add_argument("--format", choices=FORMATS, help="default: from the output file's extension, else yaml")
    exp.add_argument("-o", "--output", help="file to write (default: standard output)")
    imp = sub.add_parser("import", help="import a .yaml / .json / .md export (merges by id, skips duplicates)")
    imp.add_argument("file")
    sub.add_parser("check", help="self-check the store (repairs what is safe to repair)")
    return parser


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    path = Path(args.store) if args.store else default_store_path()
    try:
        mm = open_store(path)
    except (MemoryError_, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    try:
        return _run(args, mm, path)
    except (MemoryError_, ImportFormatError, ValueError, OSError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    finally:
        mm.close()


def _run(args: argparse.Namespace, mm: BaseMemoryManager, path: Path) -> int:
    if args.command == "list":
        groups = mm.get_memories_grouped()
        for theme in sorted(groups):
            if args.theme and theme != args.theme:
                continue
            print(f"## {theme} ({len(groups[theme])})")
            for card in groups[theme]:
                print(f"  {card['id']}  {card['description']}  [hit {card['hit']}, {str(card['latest_update_time'])[:10]}]")
        return 0
    if args.command == "add":
        print(mm.add(args.description, args.theme))
        return 0
    if args.command == "export":
        fmt = args.format or (format_for(args.output) if args.output else "yaml")
        text = export_text(mm, fmt)
        if args.output:
            Path(args.output).write_text(text, encoding="utf-8")
            print(f"exported {mm.count()} memories to {args.output}", file=sys.stderr)
        else:
            sys.stdout.write(text)
        return 0
    if args.command == "import":
        added, skipped = import_file(mm, args.file)
        print(f"imported {len(added)} memories, skipped {len(skipped)} duplicates")
        return 0
    if args.command == "check":
        report = mm.self_check()
        print(f"{report.status}: {report.item_count} memories in {path}")
        for line in report.repaired:
            print(f"  repaired: {line}")
        for line in report.issues:
            print(f"  issue: {line}")
        return 1 if report.status == "FAIL" else 0
    return 2
