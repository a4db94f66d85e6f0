"""``sonetto history …``: bring chats from other apps into the memories from a terminal (issue 31).

    sonetto history import PATH [--format F] [--since DATE] [--until DATE] [--conversation ID …]
                                [--dry-run] [--json] [--store FILE]
    sonetto history status [--json]
    sonetto history resume IMPORT_ID [--json]
    sonetto history undo IMPORT_ID [--conversation ID] [--rest] [--dry-run] [--json]
    sonetto history redo IMPORT_ID [--rest] [--json]

``--dry-run`` reads and plans only (nothing is written, no folder is made) and prints the counts and
the estimated tokens and cost; ``--json`` makes the output one JSON object on stdout. Progress goes
to stderr (a terminal only). Running the same import again resumes an unfinished one; Ctrl+C pauses
it after the batch being written; ``resume`` goes on with an unfinished import by its id, without its
file (another copy of the export says which one its chats are left to). ``undo`` takes an import
back; when the person changed some of its cards since, it lists them (by their text, with why) and
changes nothing unless ``--rest`` asks to keep them and undo the rest; ``undo --dry-run`` says what it
would do (the cards it would keep, what it does to the rest) and changes nothing. Words are English when the app's language is English or the terminal's
locale (``LC_ALL``, ``LC_MESSAGES``, ``LANG``) names a language other than Chinese, else Chinese.

Exit codes: 0 done (some batches may have failed: said, and in ``--json``), 1 the import ran but not
one of its batches could be written (the reason on stderr, and ``error`` in ``--json``), 2 nothing
was done (the file, the store or the arguments: one line on stderr and, with ``--json``, the object
``{"error": …, "exit_code": 2}`` on stdout), 130 paused by Ctrl+C.
"""

from __future__ import annotations

import argparse
import dataclasses
import asyncio
import contextlib
import json
import logging
import signal
import sys
from datetime import date
from pathlib import Path
from typing import Any

from .aio import root_scope, run_blocking
from .cli import (_fail, ctrl_c_stops_lock_waits, forget_lock_waits, print_kept, print_undo_preview, printable,
                  say_lock_waits, store_options)
from .cli_store import StoreRefused, named_store
from .cli_words import (Words, cli_language, lock_wait_words, no_such_store, parsing, terminal_words,
                        withdrawn_line, words_of)
from .history_import.ledger import DONE, UNDONE, ImportLedger, imports_dir
from .history_import.formats import all_formats
from .history_import.formats import names as format_names
from .history_import.model import History, HistoryFormatError
from .history_import.plan import MAX_MESSAGE_CHARS, Plan, Price
from .history_import.runner import ImportElsewhere, ImportProgress, ImportResult
from .history_import.service import HistoryImports
from .memory.changes import CLI
from .memory.errors import MemoryError_
from .memory.undo import NothingToUndo, UndoConflict
from .presentation.undo_words import effects_text, rest_line
from .services import AppServices


def _parser(say: Words) -> argparse.ArgumentParser:
    """The parser of ``sonetto history``, its help in ``say``'s language (built inside ``parsing(say)``)."""
    known = all_formats()
    guessed = [f.label for f in known if f.best_effort]
    read = say("；", "; ").join(say(*f.what) for f in known)
    parser = _Parser(prog="sonetto history", description=say(
        "把其他应用的聊天记录导入成记忆：" + read + (f"。{'、'.join(guessed)} 没有公开格式：尽力读取。" if guessed else "。"),
        "Import chats from other apps into the memories: " + read
        + (f". {' and '.join(guessed)} publish no format: read best effort." if guessed else ".")))
    store_options(parser, say)
    sub = parser.add_subparsers(dest="command", required=True, metavar=None if say.en else "命令",
                                help=say("要做的事（各有自己的 --help）", "what to do (each has its own --help)"))
    json_help = say("输出一个 JSON 对象", "print one JSON object")
    id_help = say("导入的 id（sonetto history status 里有）", "the import's id (see sonetto history status)")
    imp = sub.add_parser("import", help=say("导入聊天记录的导出（zip、文件夹或文件）；'-' 从标准输入读取已保存的记忆",
                                            "import a chat export (zip, folder or file); '-' reads saved memories "
                                            "from stdin"))
    imp.add_argument("path", help=say("导出的 zip、文件夹或文件", "the export's zip, folder or file"))
    imp.add_argument("--format", choices=format_names(), help=say("默认：从文件判断", "default: detected from the file"))
    imp.add_argument("--since", type=_day, metavar="YYYY-MM-DD", help=say("从这天开始导入（含这天）",
                                                                           "first day to import (inclusive)"))
    imp.add_argument("--until", type=_day, metavar="YYYY-MM-DD", help=say("导入到这天为止（含这天）",
                                                                           "last day to import (inclusive)"))
    imp.add_argument("--conversation", action="append", metavar="ID", help=say("只导入这个对话（可以给多次）",
                                                                                "only this conversation (repeatable)"))
    imp.add_argument("--dry-run", action="store_true", help=say("只统计和估算，什么也不写", "count and estimate only; write nothing"))
    imp.add_argument("--saved-memories", action="store_true",
                     help=say("导入 ChatGPT 导出里带的记忆列表（ChatGPT 已保存的记忆），而不是它的对话；原样写入，不需要模型",
                              "import the memory list a ChatGPT export carries (ChatGPT's saved memories) instead of "
                              "its conversations; written as they are, no model needed"))
    imp.add_argument("--json", action="store_true", help=json_help)
    imp.add_argument("--price-in", type=float, metavar="N", help=say("每百万输入 token 的价格（代替设置里的）",
                                                                     "price per million input tokens (overrides settings)"))
    imp.add_argument("--price-out", type=float, metavar="N", help=say("每百万输出 token 的价格",
                                                                      "price per million output tokens"))
    imp.add_argument("--currency", help=say("价格的货币（默认：设置里的，否则 ¥）", "currency of the prices (default: settings, else ¥)"))
    resume = sub.add_parser("resume", help=say("按 id 继续一次没有完成（暂停了）的导入（见 status）",
                                               "go on with an unfinished (paused) import by its id (see status)"))
    resume.add_argument("import_id", help=id_help)
    resume.add_argument("--json", action="store_true", help=json_help)
    status = sub.add_parser("status", help=say("导入到这个记忆库的记录，以及撤销用的 id",
                                               "imports made into this store, with their undo ids"))
    status.add_argument("--json", action="store_true", help=json_help)
    undo = sub.add_parser("undo", help=say("撤销一次导入（它的 id：见 status）；之后改过的卡片会列出来",
                                           "take an import back (its id: see status); cards changed since are named"))
    undo.add_argument("import_id", help=id_help)
    undo.add_argument("--rest", action="store_true",
                      help=say("保留导入之后改过的卡片（会列出来），撤销其余的",
                               "keep the cards changed since the import (they are listed) and undo the rest"))
    undo.add_argument("--conversation", metavar="ID",
                      help=say("只撤销这次导入里这个对话写下的（它的 id：见 import --dry-run）",
                               "undo only what this conversation of the import wrote (its id: see import --dry-run)"))
    undo.add_argument("--dry-run", action="store_true",
                      help=say("只说撤销会做什么（保留哪些卡片、对其余的做什么），什么也不改",
                               "say what the undo would do (the cards it would keep, the rest) and change nothing"))
    undo.add_argument("--json", action="store_true", help=json_help)
    redo = sub.add_parser("redo", help=say("取消对一次导入的撤销（导入的记忆回来）",
                                           "take back the undo of an import (the import's memories come back)"))
    redo.add_argument("import_id", help=id_help)
    redo.add_argument("--rest", action="store_true", help=say("保留撤销之后改过的卡片，重做其余的",
                                                              "keep the cards changed since the undo and redo the rest"))
    redo.add_argument("--json", action="store_true", help=json_help)
    return parser


def _refuse(args: argparse.Namespace, message: str, say: Words, code: int = 2) -> int:
    """Nothing was done: one line on stderr and, with ``--json``, one JSON object on stdout."""
    if getattr(args, "json", False):
        print(json.dumps({"error": message, "exit_code": code}, ensure_ascii=False))
    _fail(message, say)
    return code


def _day(text: str) -> date:
    """``--since`` / ``--until``: a day, or why not in the terminal's language (argparse's would name
    ``fromisoformat``)."""
    try:
        return date.fromisoformat(text)
    except ValueError:
        say = terminal_words()
        raise argparse.ArgumentTypeError(say(f"不是日期（应写成 YYYY-MM-DD，比如 2024-03-01）：{text!r}",
                                             f"not a date (write it as YYYY-MM-DD, e.g. 2024-03-01): {text!r}")) from None


class _Parser(argparse.ArgumentParser):
    """Wrong arguments are refused as every other error is: with ``--json``, a JSON object too."""

    argv: list[str] = []

    def error(self, message: str) -> Any:  # (argparse's words in the terminal's language: ``parsing``)
        if "--json" in self.argv:
            print(json.dumps({"error": f"{self.prog}: {message}", "exit_code": 2}, ensure_ascii=False))
        super().error(message)


def main(argv: list[str] | None = None) -> int:
    _Parser.argv = list(sys.argv[1:] if argv is None else argv)
    if not logging.getLogger().handlers:
        logging.getLogger("sonetto_desktop").addHandler(logging.NullHandler())
    say = terminal_words()
    with parsing(say):  # argparse's words too (usage, its refusals, -h)
        args = _parser(say).parse_args(argv)
    try:
        return asyncio.run(_main(args))
    except KeyboardInterrupt:
        return 130
    except Exception as exc:  # noqa: BLE001 - a command line prints one line, never a traceback
        return _refuse(args, words_of(exc, say), say)
    finally:
        forget_lock_waits()


async def _main(args: argparse.Namespace) -> int:
    ctrl_c_stops_lock_waits()
    say = await run_blocking(terminal_words)
    say_lock_waits(lock_wait_words(say))
    try:
        store, settings = await named_store(args.store, say)
    except StoreRefused as exc:
        return _refuse(args, str(exc), say)
    if store is not None and not store.exists() and not args.create:
        return _refuse(args, no_such_store(store, say), say)
    try:
        services = await AppServices.open(store_path=store, settings=settings, actor=CLI, watch=False)
    except (MemoryError_, OSError, ValueError) as exc:
        return _refuse(args, words_of(exc, say), say)
    say = Words(cli_language(services.settings.language))
    try:
        if say.en and services.settings.language != "en":  # an English terminal: the writer's reasons in English too
            await services.apply_settings(dataclasses.replace(services.settings, language="en"))  # (not saved)
        if args.command == "status":
            return await _status(args, services, say)
        if args.command in ("undo", "redo"):
            return await _undo(args, services, say)
        if args.command == "resume":
            return await _resume(args, services.imports, say)
        return await _import(args, services.imports, say)  # a running import stops when the services close
    except HistoryFormatError as exc:
        return _refuse(args, exc.say(say.language), say)
    except (MemoryError_, ValueError, OSError) as exc:
        return _refuse(args, words_of(exc, say), say)
    finally:
        await services.close()


def _price(args: argparse.Namespace, services: AppServices) -> Price | None:
    settings = services.settings
    p_in = args.price_in if args.price_in is not None else settings.price_input_per_mtok
    p_out = args.price_out if args.price_out is not None else settings.price_output_per_mtok
    if not p_in and not p_out:
        return None
    return Price(float(p_in or 0.0), float(p_out or 0.0), args.currency or settings.price_currency or "¥")


async def _read(args: argparse.Namespace, imports: HistoryImports) -> History:
    if args.path == "-":
        return await imports.read_pasted(await run_blocking(sys.stdin.read))
    return await imports.read(Path(args.path), args.format)


async def _import(args: argparse.Namespace, imports: HistoryImports, say: Words) -> int:
    services = imports.services
    history = await _read(args, imports)
    if args.saved_memories and not history.saved_memories:
        name = Path(args.path).name
        return _refuse(args, say(f"{name} 里没有 ChatGPT 已保存的记忆", f"{name} holds no saved memories"), say)
    if history.source == "chatgpt-memories" or args.saved_memories:
        return await _import_saved(args, history, imports, say)
    plan = await imports.plan(history, since=args.since, until=args.until, selected=args.conversation)
    if args.price_in is not None or args.price_out is not None:
        plan.price = _price(args, services)
    if args.dry_run:
        _print_plan(plan, history, args, services, say)
        return 0
    if not args.json:  # what the dry run (and the window's preview) says before anything is imported
        for zh, en in history.notes:
            print(say(zh, en), file=sys.stderr)
        for line in _bad_lines(history, say):
            print(line, file=sys.stderr)
    unfinished = await imports.unfinished(history.digest) if history.digest else []
    if not unfinished and not plan.batches:
        left_to = [s.id for s in await imports.unfinished()] if plan.skipped_waiting else []
        if left_to:  # another copy of the export of an unfinished import: its chats wait there
            _print_left_to(args, plan.skipped_waiting, left_to, say)
            return 0
        _print_result(args, ImportResult("", 0, 0, 0, 0, 0, 0), say, history)
        return 0
    if not imports.configured:
        return _refuse(args, say(*_NO_MODEL), say)
    return await _run(args, imports, plan, history, unfinished, say)


_NO_MODEL = ("没有配置模型：导入要由模型来读（在应用的设置里填写，或设置 SONETTO_BASE_URL 和 SONETTO_MODEL）",
             "no model is configured: a model reads the import (set it in the app's settings, or "
             "SONETTO_BASE_URL and SONETTO_MODEL)")


def _print_left_to(args: argparse.Namespace, turns: int, imports: list[str], say: Words) -> None:
    """Nothing new: ``turns`` of the file are left to the unfinished ``imports`` (``history resume``)."""
    if args.json:
        print(json.dumps({**ImportResult("", 0, 0, 0, 0, 0, 0).to_json(), "skipped_waiting": turns,
                          "unfinished_imports": imports}, ensure_ascii=False))
        return
    print(say(f"这个文件里的 {turns} 轮留给了未完成的导入，接着导入：",
              f"{turns} turns of this file are left to an unfinished import; to go on with it:"))
    for import_id in imports:
        print(f"  sonetto history resume {import_id}")


async def _resume(args: argparse.Namespace, imports: HistoryImports, say: Words) -> int:
    """``sonetto history resume IMPORT_ID``: an unfinished import goes on (its file is not needed)."""
    state = await run_blocking(imports.ledger.get, args.import_id)
    if state is None or not state.unfinished:
        return _refuse(args, say(f"{args.import_id} 不是未完成的导入（sonetto history status 列出所有导入）",
                                 f"{args.import_id} is not an unfinished import (sonetto history status lists them)"), say)
    if not imports.configured:
        return _refuse(args, say(*_NO_MODEL), say)
    return await _run(args, imports, None, None, [state], say)


async def _run(args: argparse.Namespace, imports: HistoryImports, plan: Plan | None, history: History | None,
               unfinished: list[Any], say: Words) -> int:
    """Go on with the last of ``unfinished``, else begin ``plan`` (of ``history``)."""
    runner = imports.runner
    show = not args.json and sys.stderr.isatty()
    if show:
        runner.progress.subscribe(lambda p: _progress(p, say))
    try:
        if unfinished:
            state = await imports.resume(unfinished[-1].id)
            print(say(f"继续未完成的导入 {state.id}", f"continuing the unfinished import {state.id}"), file=sys.stderr)
        else:
            assert plan is not None and history is not None
            state = await imports.start(plan, history, file_name=Path(args.path).name, since=args.since,
                                        until=args.until, selected=args.conversation)
    except ImportElsewhere:
        return _refuse(args, say("这个导入正在另一个 Sonetto 里进行", "this import is running in another Sonetto"), say)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    with contextlib.suppress(NotImplementedError, RuntimeError):  # Windows: Ctrl+C raises instead
        loop.add_signal_handler(signal.SIGINT, stop.set)
        loop.add_signal_handler(signal.SIGTERM, stop.set)
    async with root_scope().child("cli-import") as tasks:  # whichever is still waiting ends with the block
        waiting = tasks.spawn(imports.wait(), name="import-wait", awaited=True)
        stopping = tasks.spawn(stop.wait(), name="import-interrupt")
        try:
            await asyncio.wait([waiting, stopping], return_when=asyncio.FIRST_COMPLETED)
        finally:
            for sig in (signal.SIGINT, signal.SIGTERM):
                with contextlib.suppress(NotImplementedError, RuntimeError):
                    loop.remove_signal_handler(sig)
        interrupted = not waiting.done()
    if interrupted:
        print(say("\n正在写完当前这一批…", "\nfinishing the batch being written…"), file=sys.stderr)
        stopped = await runner.stop(pause=True)
        done = stopped is not None and stopped.status == DONE
        if not done:
            print(say(f"导入已暂停（{state.id}）：再运行同一条命令会接着导入",
                      f"import paused ({state.id}): run the same command again to go on"), file=sys.stderr)
            return 130
        result = ImportResult(stopped.id, stopped.turns_written, stopped.memories_created, stopped.memories_updated,
                              stopped.memories_deleted, stopped.proposals, 0)
    else:
        result = waiting.result()
    if show:
        print(file=sys.stderr)
    _print_result(args, result, say, history)
    if result.failed:  # nothing could be written: a failure, whatever --json prints
        why = result.error_in(say.language) or say("原因不明", "no reason given")
        print(say(f"错误：导入失败：{result.failed_batches} 批都没能写入（{why}）。什么也没有写入；"
                  "解决后再运行同一条命令会重新导入",
                  f"error: the import failed: none of its {result.failed_batches} batches could be written "
                  f"({why}). Nothing was written; once that is fixed, run the same command again"),
              file=sys.stderr)
        return 1
    return 0


def _progress(p: ImportProgress, say: Words) -> None:
    if p.proposals and not p.created and not p.updated:  # review mode: everything is proposed
        made = say(f"提议 {p.proposals}", f"{p.proposals} proposals")
    else:
        made = say(f"新记忆 {p.created} · 更新 {p.updated}", f"{p.created} new · {p.updated} updated")
        if p.proposals:
            made += say(f" · 待你确认 {p.proposals}", f" · {p.proposals} waiting for you")
    left = p.seconds_left
    eta = ("" if left is None else say(f" · 剩余约 {max(1, round(left / 60))} 分钟", f" · about {max(1, round(left / 60))} min left"))
    if p.retrying and not p.held:  # a batch failed and is tried again: said, with why (its first line), not a time
        why, n = p.why_retrying(say.language).splitlines()[0], p.failed_tries
        eta = say(f" · 出错了，稍后自动重试（已失败 {n} 次）：{why}", f" · failed (try {n}), trying again shortly: {why}")
    held = say(" · 已暂停", " · paused") if p.held else ""
    line = say(f"已写入 {p.turns_done}/{p.turns} 轮 · {made}{eta}{held}",
               f"{p.turns_done}/{p.turns} turns written · {made}{eta}{held}")
    print(f"\r{line}\x1b[K", end="", file=sys.stderr, flush=True)


def _print_result(args: argparse.Namespace, result: ImportResult, say: Words, history: History | None = None) -> None:
    if args.json:
        out = result.to_json(say.language)
        if history is not None:
            out["skipped_conversations"] = [bad.to_json() for bad in history.bad]
            out["left_unread"] = history.left_unread
        print(json.dumps(out, ensure_ascii=False))
        return
    if result.failed:
        return  # said on stderr (``_run``)
    if not result.undo_id:
        print(say("没有要导入的内容（都导入过了，或不在所选范围内）", "nothing to import (all imported before, or outside the choice)"))
        return
    print(say(f"写入 {result.turns_written} 轮：新记忆 {result.memories_created} 条，更新 {result.memories_updated} 条，"
              f"删除 {result.memories_deleted} 条，提议 {result.proposals} 条",
              f"{result.turns_written} turns read: {result.memories_created} new memories, {result.memories_updated} "
              f"updated, {result.memories_deleted} deleted, {result.proposals} proposals"))
    if result.proposals:
        print(say(f"{result.proposals} 项改动在审核箱里等你确认：打开 Sonetto，点状态栏的“待审核”",
                  f"{result.proposals} changes wait in the review inbox for you: open Sonetto and click “To review” "
                  "in the status bar"))
    if result.failed_turns:
        why = result.error_in(say.language)
        print(say(f"{result.failed_turns} 轮没能写入{f'（{why}）' if why else ''}：sonetto history status 查看",
                  f"{result.failed_turns} turns could not be written{f' ({why})' if why else ''}: "
                  "see sonetto history status"))
    print(say(f"整体撤销：sonetto memory undo {result.undo_id}", f"to undo it all: sonetto memory undo {result.undo_id}"))


async def _import_saved(args: argparse.Namespace, history: History, imports: HistoryImports, say: Words) -> int:
    entries = history.saved_memories
    if args.dry_run:
        from .history_import.saved_memories import too_long

        out = {"memories": len(entries), "too_long": sum(1 for e in entries if too_long(e)), "conversations": 0,
               "turns": 0, "estimated_tokens": 0}
        print(json.dumps(out, ensure_ascii=False) if args.json else
              say(f"{out['memories']} 条已保存的记忆（{out['too_long']} 条太长）",
                  f"{out['memories']} saved memories ({out['too_long']} too long)"))
        return 0
    result = await imports.import_saved(entries, {})
    if args.json:
        print(json.dumps({"turns_written": 0, "memories_updated": 0, **result.to_json()}, ensure_ascii=False))
    else:
        print(say(f"新记忆 {len(result.created):,} 条，提议 {result.proposals:,} 条，跳过 {len(result.skipped):,} 条",
                  f"{len(result.created):,} new memories, {result.proposals:,} proposals, {len(result.skipped):,} skipped"))
        for text, (zh, en) in result.skipped.items():
            print(say(f"  - {printable(text)}：{zh}", f"  - {printable(text)}: {en}"))
        if result.undo_id:
            print(say(f"整体撤销：sonetto memory undo {result.undo_id}", f"to undo it all: sonetto memory undo {result.undo_id}"))
    return 0


#: Conversations that could not be read, named one per line (the rest counted).
BAD_LISTED = 10


def _bad_lines(history: History, say: Words) -> list[str]:
    """Which conversations were left out because they could not be read, and why."""
    if not history.bad:
        return []
    language = say.lang
    lines = [say(f"跳过 {len(history.bad):,} 个读不了的对话：", f"left out {len(history.bad):,} conversations that cannot "
                 "be read:")]
    lines += [f"  - {printable(bad.say(language))}" for bad in history.bad[:BAD_LISTED]]
    more = len(history.bad) - BAD_LISTED
    if more > 0:
        lines.append(say(f"  …另有 {more} 个", f"  … and {more} more"))
    return lines


def _print_plan(plan: Plan, history: History, args: argparse.Namespace, services: AppServices, say: Words) -> None:
    model = services.settings.model.strip()
    if args.json:
        out: dict[str, Any] = plan.to_json(model)
        out["skipped_messages"] = dict(plan.skipped_messages)
        out["skipped_conversations"] = [bad.to_json() for bad in history.bad]
        out["left_unread"] = history.left_unread  # another app's files in the zip or folder: --format NAME reads them
        out["saved_memories"] = len(history.saved_memories)
        out["best_effort"] = history.best_effort
        print(json.dumps(out, ensure_ascii=False))
        return
    print(f"{history.label} · {printable(Path(args.path).name)}")
    for zh, en in history.notes:
        print(f"  {say(zh, en)}")
    for line in _bad_lines(history, say):
        print(line)
    cost = plan.estimated_cost
    priced = (say(f"约 {plan.price.currency}{cost:.2f}", f"about {plan.price.currency}{cost:.2f}")
              if cost is not None and plan.price is not None else say("费用：未设置单价", "cost: no price set"))
    model_note = f"（{model}）" if model and not say.en else f" ({model})" if model else ""
    print(say(f"{plan.conversations:,} 个对话 · {plan.turns:,} 轮 · {plan.characters:,} 字 · {len(plan.batches):,} 批 · "
              f"约 {plan.estimated_tokens:,} tokens · {priced}{model_note}",
              f"{plan.conversations:,} conversations · {plan.turns:,} turns · {plan.characters:,} characters · "
              f"{len(plan.batches):,} batches · about {plan.estimated_tokens:,} tokens · {priced}{model_note}"))
    print(say(f"跳过：已导入 {plan.skipped_already_imported} 轮，不导入列表里的 {plan.skipped_dont_import} 个对话，"
              f"日期范围外 {plan.skipped_out_of_range} 轮",
              f"skipped: {plan.skipped_already_imported} turns imported before, {plan.skipped_dont_import} "
              f"conversations on the don't-import list, {plan.skipped_out_of_range} turns outside the dates"))
    left_out = sum(plan.skipped_messages.values())
    if left_out:  # (a conversation whose every message is one of these is not listed at all)
        kinds = "、".join(f"{k} {n}" for k, n in sorted(plan.skipped_messages.items()) if n)
        print(say(f"不读的消息 {left_out} 条（系统提示、工具调用、改写前的分支、空白等：{kinds}）",
                  f"{left_out} messages not read (system prompts, tool calls, earlier branches, blank, …: "
                  f"{kinds.replace('、', ', ')})"))
    for count, zh, en in (
            (plan.skipped_waiting, f"未完成的导入里还要写的 {plan.skipped_waiting} 轮留给那次导入（继续它即可）",
             f"{plan.skipped_waiting} turns an unfinished import has still to write are left to it (resume it)"),
            (plan.skipped_duplicates, f"文件里重复出现的 {plan.skipped_duplicates} 轮只算一次",
             f"{plan.skipped_duplicates} turns the file holds more than once are counted once"),
            (plan.secrets_hidden, f"{plan.secrets_hidden} 处疑似密码、密钥或证件号会在发送给模型前隐去",
             f"{plan.secrets_hidden} likely passwords, keys or ID numbers are hidden before the model sees them"),
            (plan.long_messages, f"{plan.long_messages} 条很长的消息只读开头和结尾（每条约 {MAX_MESSAGE_CHARS} 字）",
             f"{plan.long_messages} very long messages are read only at their start and end "
             f"(about {MAX_MESSAGE_CHARS} characters each)")):
        if count:
            print(say(zh, en))
    if history.saved_memories:
        print(say(f"另有 {len(history.saved_memories):,} 条已保存的记忆（用 --saved-memories 导入它们）",
                  f"and {len(history.saved_memories):,} saved memories (import them with --saved-memories)"))
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
        status = s.status + (say(f"（保留 {s.kept} 张改过的卡片）", f" (kept {s.kept} changed cards)") if s.kept else "")
        failed = say(f"  {s.failed_batches} 批失败", f"  {s.failed_batches} batches failed") if s.failed_batches else ""
        print(f"{s.id}  {status}  {s.label} · {printable(s.file_name)}  {s.turns_written}/{s.turns}  "
              f"+{s.memories_created} ~{s.memories_updated} -{s.memories_deleted}{failed}  {s.created_at}")
    return 0


async def _undo(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    """``sonetto history undo``: the import taken back, or (cards changed since) what would be kept."""
    if args.command == "redo":
        return await _redo_import(args, services.imports, say)
    return await _undo_import(args, services.imports, say)


async def _redo_import(args: argparse.Namespace, imports: HistoryImports, say: Words) -> int:
    """``sonetto history redo``: the undo of an import taken back."""
    lang = say.lang
    try:
        result = await imports.redo(args.import_id, rest=args.rest)
    except LookupError:
        return _refuse(args, say(f"导入 {args.import_id} 没有被撤销（sonetto history status 列出所有导入）",
                                 f"import {args.import_id} is not undone (sonetto history status lists them)"), say)
    except UndoConflict as exc:
        if args.json:
            print(json.dumps({"import": args.import_id, "redone": False, **exc.preview.to_json()}, ensure_ascii=False))
        else:
            print_kept(exc.touched, lang)
        return _fail(say(f"没有重做：要保留上面这些卡片、重做其余的，运行 sonetto history redo {args.import_id} --rest",
                         f"nothing was redone: to keep the cards above and redo the rest, run "
                         f"sonetto history redo {args.import_id} --rest"), say)
    if args.json:
        print(json.dumps({"import": args.import_id, "redone": True, "redo_turn_id": result.turn_id,
                          "effects": result.effects, "kept": [t.to_json() for t in result.kept]}, ensure_ascii=False))
        return 0
    print(say(f"已重做导入 {args.import_id}：{effects_text(result.effects, lang)}",
              f"import {args.import_id} redone: {effects_text(result.effects, lang)}"))
    print_kept(result.kept, lang, done=True)
    return 0


async def _undo_import(args: argparse.Namespace, imports: HistoryImports, say: Words) -> int:
    lang = say.lang
    import_id = args.import_id
    state = await run_blocking(imports.ledger.get, import_id)
    if state is None:
        return _refuse(args, say(f"这个记忆库里没有导入 {import_id}（sonetto history status 列出所有导入）",
                         f"this store has no import {import_id} (sonetto history status lists them)"), say)
    if state.status == UNDONE:
        redo = f"sonetto history redo {import_id}" if state.undone_by else ""
        also = f"sonetto memory undo {state.undone_by}"
        return _refuse(args, say(f"导入 {import_id} 已经撤销过了" + (f"（要重做：{redo}，或 {also}）" if redo else ""),
                         f"import {import_id} is undone already" + (f" (to redo it: {redo}, or {also})" if redo else "")), say)
    if args.dry_run:
        return await _preview_undo(args, imports, say)
    if args.conversation:
        return await _undo_conversation(args, imports, say)
    try:
        result = await imports.undo(import_id, rest=args.rest)
    except ImportElsewhere:
        return _refuse(args, say(f"没有撤销：导入 {import_id} 正在另一个 Sonetto（窗口或命令行）里进行，请先在那里停止它",
                                 f"nothing was undone: import {import_id} is being written by another Sonetto "
                                 "(the window or a command line): stop it there first"), say)
    except UndoConflict as exc:  # nothing changed
        if args.json:
            print(json.dumps({"import": import_id, "undone": False, **exc.preview.to_json()}, ensure_ascii=False))
        else:
            print_kept(exc.touched, lang)
            print(rest_line(exc.preview.effects, lang, "can"))
        if not exc.rest:
            return _fail(say("没有撤销：导入写下的记忆之后都被改过了",
                             "nothing was undone: every memory of the import was changed afterwards"), say)
        return _fail(say(f"没有撤销：要保留上面这些卡片、撤销其余的，运行 sonetto history undo {import_id} --rest",
                         f"nothing was undone: to keep the cards above and undo the rest, run "
                         f"sonetto history undo {import_id} --rest"), say)
    except NothingToUndo as exc:
        withdrawn = len(exc.withdrawn)
        print(json.dumps({"import": import_id, "undone": True, "undo_turn_id": None, "effects": {}, "kept": [],
                          "withdrawn": withdrawn})
              if args.json else say("这次导入没有留下可撤销的改动", "the import left nothing to undo"))
        if withdrawn and not args.json:
            print(withdrawn_line(withdrawn, say))
        return 0
    if args.json:
        print(json.dumps({"import": import_id, "undone": True, "undo_turn_id": result.turn_id,
                          "effects": result.effects, "kept": [t.to_json() for t in result.kept],
                          "withdrawn": len(result.withdrawn)}, ensure_ascii=False))
        return 0
    effects = effects_text(result.effects, lang)
    print(say(f"已撤销导入 {import_id}：{effects}", f"import {import_id} undone: {effects}"))
    if result.withdrawn:
        print(withdrawn_line(len(result.withdrawn), say))
    print_kept(result.kept, lang, done=True)
    print(say(f"改变主意了？sonetto memory undo {result.turn_id}", f"changed your mind? sonetto memory undo {result.turn_id}"))
    return 0


async def _preview_undo(args: argparse.Namespace, imports: HistoryImports, say: Words) -> int:
    """``sonetto history undo … --dry-run``: what the undo (of the import, or of one conversation) would do
    now — the cards it keeps because they were changed since, and the rest — changing nothing."""
    import_id, conversation = args.import_id, args.conversation
    try:
        preview = await imports.preview_undo(import_id, conversation or None)
    except LookupError:
        return _refuse(args, say(f"导入 {import_id} 里没有记下对话 {conversation}（更早的导入没有记下每批来自哪个对话）",
                                 f"import {import_id} has no conversation {conversation} on record (older imports "
                                 "did not record which conversation each batch came from)"), say)
    if args.json:
        print(json.dumps({"import": import_id, "conversation": conversation, "undone": False, "dry_run": True,
                          **preview.to_json()}, ensure_ascii=False))
        return 0
    print_undo_preview(preview, say)
    return 0


async def _undo_conversation(args: argparse.Namespace, imports: HistoryImports, say: Words) -> int:
    """``sonetto history undo IMPORT --conversation ID``: what one conversation of the import wrote."""
    lang = say.lang
    import_id, conversation = args.import_id, args.conversation
    try:
        result = await imports.undo_conversation(import_id, conversation, rest=args.rest)
    except ImportElsewhere:
        return _refuse(args, say(f"没有撤销：导入 {import_id} 正在另一个 Sonetto（窗口或命令行）里进行，请先在那里停止它",
                                 f"nothing was undone: import {import_id} is being written by another Sonetto "
                                 "(the window or a command line): stop it there first"), say)
    except LookupError:
        return _refuse(args, say(f"导入 {import_id} 里没有记下对话 {conversation}（更早的导入没有记下每批来自哪个对话）",
                                 f"import {import_id} has no conversation {conversation} on record (older imports "
                                 "did not record which conversation each batch came from)"), say)
    except NothingToUndo:
        return _refuse(args, say(f"对话 {conversation} 没有留下可撤销的改动", f"conversation {conversation} left nothing to undo"), say)
    except UndoConflict as exc:
        if args.json:
            print(json.dumps({"import": import_id, "conversation": conversation, "undone": False,
                              **exc.preview.to_json()}, ensure_ascii=False))
        else:
            print_kept(exc.touched, lang)
        return _fail(say("没有撤销：要保留上面这些卡片、撤销其余的，加 --rest",
                         "nothing was undone: to keep the cards above and undo the rest, add --rest"), say)
    if args.json:
        print(json.dumps({"import": import_id, "conversation": conversation, "undone": True,
                          "undo_turn_id": result.turn_id, "effects": result.effects,
                          "kept": [t.to_json() for t in result.kept]}, ensure_ascii=False))
        return 0
    effects = effects_text(result.effects, lang)
    print(say(f"已撤销导入 {import_id} 的对话 {conversation}：{effects}",
              f"conversation {conversation} of import {import_id} undone: {effects}"))
    print_kept(result.kept, lang, done=True)
    print(say(f"改变主意了？sonetto memory undo {result.turn_id}", f"changed your mind? sonetto memory undo {result.turn_id}"))
    return 0
