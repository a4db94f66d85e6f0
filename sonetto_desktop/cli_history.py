"""``sonetto history …``: bring chats from other apps into the memories from a terminal (issue 31).

    sonetto history import PATH [--format F] [--since DATE] [--until DATE] [--conversation ID …]
                                [--dry-run] [--json] [--store FILE]
    sonetto history status [--json]

``--dry-run`` reads and plans only (nothing is written, no folder is made) and prints the counts and
the estimated tokens and cost; ``--json`` makes the output one JSON object on stdout. Progress goes
to stderr (a terminal only). Running the same import again resumes an unfinished one; Ctrl+C pauses
it after the batch being written. Words follow the app's language setting.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import sys
from datetime import date
from pathlib import Path
from typing import Any

from .aio import run_blocking
from .cli import _describe, _fail, printable
from .history_import.dont_import import FILE_NAME as DONT_IMPORT_FILE
from .history_import.dont_import import DontImportList
from .history_import.ledger import ImportLedger, imports_dir
from .history_import.model import FORMATS, History, HistoryFormatError
from .history_import.plan import Plan, Price, make_plan
from .history_import.saved_memories import from_text
from .history_import.sources import read_history
from .memory.changes import CLI
from .memory.errors import MemoryError_
from .services import AppServices


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="sonetto history",
                                     description="Import chats from other apps (ChatGPT, DeepSeek, Cherry Studio, "
                                                 "JSON Lines, Sonetto exports) into the memories.")
    parser.add_argument("--store", help="a memory store file (.yaml or .db) instead of the app's data dir")
    parser.add_argument("--create", action="store_true", help="with --store: create the file if it does not exist")
    sub = parser.add_subparsers(dest="command", required=True)
    imp = sub.add_parser("import", help="import a chat export (zip, folder or file); '-' reads saved memories from stdin")
    imp.add_argument("path")
    imp.add_argument("--format", choices=FORMATS, help="default: detected from the file")
    imp.add_argument("--since", type=date.fromisoformat, metavar="YYYY-MM-DD", help="first day to import (inclusive)")
    imp.add_argument("--until", type=date.fromisoformat, metavar="YYYY-MM-DD", help="last day to import (inclusive)")
    imp.add_argument("--conversation", action="append", metavar="ID", help="only this conversation (repeatable)")
    imp.add_argument("--dry-run", action="store_true", help="count and estimate only; write nothing")
    imp.add_argument("--json", action="store_true", help="print one JSON object")
    imp.add_argument("--price-in", type=float, metavar="N", help="price per million input tokens (overrides settings)")
    imp.add_argument("--price-out", type=float, metavar="N", help="price per million output tokens")
    imp.add_argument("--currency", help="currency of the prices (default: settings, else ¥)")
    status = sub.add_parser("status", help="imports made into this store, with their undo ids")
    status.add_argument("--json", action="store_true", help="print one JSON object")
    return parser


class Words:
    """The app's language for what is printed for people."""

    def __init__(self, language: str) -> None:
        self.en = language == "en"

    def __call__(self, zh: str, en: str) -> str:
        return en if self.en else zh


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    if not logging.getLogger().handlers:
        logging.getLogger("sonetto_desktop").addHandler(logging.NullHandler())
    try:
        return asyncio.run(_main(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a command line prints one line, never a traceback
        return _fail(f"{type(exc).__name__}: {exc}")


async def _main(args: argparse.Namespace) -> int:
    store = Path(args.store).expanduser() if args.store else None
    if store is not None and not store.exists() and not args.create:
        return _fail(f"{store} does not exist (add --create to start a new store there)")
    try:
        services = await AppServices.open(store_path=store, actor=CLI, watch=False)
    except (MemoryError_, OSError, ValueError) as exc:
        return _fail(str(exc))
    say = Words(services.settings.language)
    try:
        if args.command == "status":
            return await _status(args, services, say)
        return await _import(args, services, say)
    except HistoryFormatError as exc:
        return _fail(exc.say(services.settings.language))
    except (MemoryError_, ValueError, OSError) as exc:
        return _fail(_describe(exc))
    finally:
        await services.close()


def _price(args: argparse.Namespace, services: AppServices) -> Price | None:
    settings = services.settings
    p_in = args.price_in if args.price_in is not None else settings.price_input_per_mtok
    p_out = args.price_out if args.price_out is not None else settings.price_output_per_mtok
    if not p_in and not p_out:
        return None
    return Price(float(p_in or 0.0), float(p_out or 0.0), args.currency or settings.price_currency or "¥")


async def _read(args: argparse.Namespace) -> History:
    if args.path == "-":
        text = await run_blocking(sys.stdin.read)
        return from_text(text)
    return await run_blocking(read_history, Path(args.path), args.format)


async def _import(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    history = await _read(args)
    assert services.store is not None
    ledger = ImportLedger(imports_dir(services.store))
    dont_import = DontImportList(services.data_dir / DONT_IMPORT_FILE)
    imported = await run_blocking(ledger.imported_keys)
    memories = await run_blocking(services.store.count)
    plan = make_plan(history, since=args.since, until=args.until, selected=args.conversation, imported=imported,
                     dont_import=dont_import, memories=memories, price=_price(args, services))
    if args.dry_run:
        _print_plan(plan, history, args, services, say)
        return 0
    return _fail(say("导入尚未实现", "import is not implemented yet"))


def _print_plan(plan: Plan, history: History, args: argparse.Namespace, services: AppServices, say: Words) -> None:
    model = services.settings.model.strip()
    if args.json:
        out: dict[str, Any] = plan.to_json(model)
        out["skipped_messages"] = dict(plan.skipped_messages)
        out["saved_memories"] = len(history.saved_memories)
        out["best_effort"] = history.best_effort
        print(json.dumps(out, ensure_ascii=False))
        return
    print(f"{history.label} · {printable(Path(args.path).name)}")
    for zh, en in history.notes:
        print(f"  {say(zh, en)}")
    cost = plan.estimated_cost
    priced = (say(f"约 {plan.price.currency}{cost:.2f}", f"about {plan.price.currency}{cost:.2f}")
              if cost is not None and plan.price is not None else say("费用：未设置单价", "cost: no price set"))
    model_note = f"（{model}）" if model and not say.en else f" ({model})" if model else ""
    print(say(f"{plan.conversations} 个对话 · {plan.turns} 轮 · {plan.characters} 字 · {len(plan.batches)} 批 · "
              f"约 {plan.estimated_tokens} tokens · {priced}{model_note}",
              f"{plan.conversations} conversations · {plan.turns} turns · {plan.characters} characters · "
              f"{len(plan.batches)} batches · about {plan.estimated_tokens} tokens · {priced}{model_note}"))
    print(say(f"跳过：已导入 {plan.skipped_already_imported} 轮，不导入列表里的 {plan.skipped_dont_import} 个对话，"
              f"日期范围外 {plan.skipped_out_of_range} 轮",
              f"skipped: {plan.skipped_already_imported} turns imported before, {plan.skipped_dont_import} "
              f"conversations on the don't-import list, {plan.skipped_out_of_range} turns outside the dates"))
    if history.saved_memories:
        print(say(f"另有 {len(history.saved_memories)} 条已保存的记忆", f"and {len(history.saved_memories)} saved memories"))
    for row in plan.rows:
        span = f"{row.first_day}…{row.last_day}" if row.first_day != row.last_day else f"{row.first_day}"
        print(f"  [{row.state}] {printable(row.title)}  {span}  {row.to_import}/{row.exchanges}  {printable(row.id)}")


async def _status(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    assert services.store is not None
    ledger = ImportLedger(imports_dir(services.store))
    states = await run_blocking(ledger.imports)
    if args.json:
        from dataclasses import asdict

        print(json.dumps({"imports": [asdict(s) for s in states]}, ensure_ascii=False))
        return 0
    if not states:
        print(say("这个记忆库还没有导入过聊天记录", "no chats were imported into this store"))
    for s in states:
        print(f"{s.id}  {s.status}  {s.label} · {printable(s.file_name)}  {s.turns_written}/{s.turns}  "
              f"+{s.memories_created} ~{s.memories_updated} -{s.memories_deleted}  {s.created_at}")
    return 0
