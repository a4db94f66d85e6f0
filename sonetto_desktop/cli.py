"""``sonetto memory …``: the memories from a terminal, through the same services as the app (as the
actor ``cli``). No Qt, no LLM: it opens exactly the store the app opens (same settings, data dir and
backend, migrating after a backend switch), or the file given with ``--store`` (or that server's address:
``cli_store``).

Every command is an operation value (``ops.py``) run by ``AppServices.run``, as the window's are: a
failure is worded by ``presentation/errors.py``, the same words the window shows, with the failure's own
text where they leave it out (the id, the file). What is printed for people is in the person's language,
chosen as ``sonetto history`` chooses it (``cli_words``: the app's setting and the terminal's locale);
``--json`` and the lines for scripts (the new id alone on stdout) are the same in both.

Output is for people and for pipes: memory text is printed with control characters shown as
``\\x1b``-style escapes (a memory can never drive the terminal), errors are one line on stderr with a
non-zero exit code, and a closed pipe (``| head``) ends quietly.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import sys
from pathlib import Path
from typing import Any, Awaitable, Callable

from . import ops
from .history_import.ledger import note_undo
from .memory.changes import CLI, Turn
from .memory.errors import MemoryError_
from .memory.reasons import reason_text
from .memory.stores.validation import said_in
from .memory.undo import Touched, UndoConflict
from .memory.transfer import (FORMATS, ImportFormatError, export_text, export_yaml_text, format_for, marks_beside,
                              read_import, trash_beside)
from .cli_store import StoreRefused, named_store
from .cli_words import (Words, error_line, lock_wait_words, no_such_store, parsing, terminal_words, withdrawn_line,
                        words_of)
from .presentation.errors import pins_left_out, trash_left_out
from .presentation.reasons import render_reason
from .presentation.store_notices import notice_text
from .presentation.undo_words import DIRECTION_CONTROLS
from .presentation.server_words import refusal_reason
from .presentation.undo_words import effects_text, kept_headline, kept_line, rest_line
from .services import AppServices

# What a terminal obeys (ANSI escapes, line and paragraph separators) and the direction controls ("网址\u202e见下"
# turned the rest of a listing's line around): shown as visible escapes
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029" + DIRECTION_CONTROLS + "]")


def printable(text: object) -> str:
    """``text`` with control characters (ANSI escapes included) shown as visible escapes."""
    return _CONTROL.sub(lambda m: m.group().encode("unicode_escape").decode("ascii"), str(text))


def one_line(text: object) -> str:
    """:func:`printable` on one line: a line break or a tab in a memory shown as ``\\n`` / ``\\t`` (a
    listing prints one memory a line; a memory's second line read as another memory)."""
    return printable(text).replace("\n", "\\n").replace("\t", "\\t")


def _parser(say: Words) -> argparse.ArgumentParser:
    """The parser of ``sonetto memory``, its help in ``say``'s language (built inside ``parsing(say)``)."""
    parser = argparse.ArgumentParser(prog="sonetto memory",
                                     description=say("管理 Sonetto 的长期记忆。", "Manage Sonetto's long-term memories."))
    store_options(parser, say)
    sub = parser.add_subparsers(dest="command", required=True, metavar=None if say.en else "命令",
                                help=say("要做的事（各有自己的 --help）", "what to do (each has its own --help)"))
    lst = sub.add_parser("list", help=say("按主题列出记忆", "list memories by theme"))
    lst.add_argument("--theme", help=say("只列这个主题", "only this theme"))
    add = sub.add_parser("add", help=say("添加一条记忆，输出它的 id", "add a memory; prints its id"))
    add.add_argument("description", help=say("记忆的内容", "the memory's text"))
    add.add_argument("--theme", help=say("默认：按内容选一个（没有更合适的就是 身份），在 stderr 上说明",
                                         "default: one chosen from the words (身份 when nothing points elsewhere), "
                                         "said on stderr"))
    add.add_argument("--json", action="store_true", help=say("输出 id、主题（以及是不是按内容选的）和撤销 id",
                                                             "print the id, the theme (and whether it was chosen) "
                                                             "and the undo id"))
    upd = sub.add_parser("update", help=say("修改一条记忆的内容和/或主题", "change a memory's text and/or theme"))
    upd.add_argument("id", help=say("记忆的 id（sonetto memory list 里有）", "the memory's id (see sonetto memory list)"))
    upd.add_argument("description", nargs="?", help=say("新的内容", "the new text"))
    upd.add_argument("--theme", help=say("新的主题", "the new theme"))
    upd.add_argument("--reason", default=reason_text("cli.update"), help=say("记在历史里的原因", "the reason kept in its history"))
    dele = sub.add_parser("delete", help=say("把一条记忆移到回收站", "move a memory to the trash"))
    dele.add_argument("id", help=say("记忆的 id", "the memory's id"))
    dele.add_argument("--reason", default=reason_text("cli.delete"), help=say("记在历史里的原因", "the reason kept in its history"))
    res = sub.add_parser("restore", help=say("从回收站找回一条记忆", "bring a memory back from the trash"))
    res.add_argument("id", help=say("记忆的 id（sonetto memory trash 里有）", "the memory's id (see sonetto memory trash)"))
    sub.add_parser("trash", help=say("列出回收站", "list the trash"))
    und = sub.add_parser("undo", help=say("撤销一轮对话或一次操作（它的 turn id）的全部改动，作为一步可撤销的操作",
                                          "take back every change of one turn or action (its turn id), as one "
                                          "undoable step"))
    und.add_argument("turn_id", help=say("要撤销的 turn id（命令输出的“撤销：”那行里有）",
                                         "the turn id to take back (printed after “to undo:” by a command)"))
    und.add_argument("--rest", action="store_true",
                     help=say("保留之后改过的记忆（会列出来），撤销其余的",
                              "keep the memories changed since (they are listed) and take back the rest"))
    und.add_argument("--dry-run", action="store_true",
                     help=say("只说撤销会做什么（保留哪些记忆、对其余的做什么），什么也不改",
                              "say what the undo would do (the memories it keeps, what it does to the rest); "
                              "change nothing"))
    exp = sub.add_parser("export", help=say("导出全部记忆", "export all memories"))
    exp.add_argument("--format", choices=FORMATS, help=say("默认：按输出文件的扩展名，否则 yaml",
                                                          "default: from the output file's extension, else yaml"))
    exp.add_argument("-o", "--output", help=say("写到这个文件（默认：标准输出）", "file to write (default: standard output)"))
    imp = sub.add_parser("import", help=say("导入 .yaml / .json / .md 导出文件（按 id 合并，跳过重复的）",
                                            "import a .yaml / .json / .md export (merges by id, skips duplicates)"))
    imp.add_argument("file", help=say("要导入的文件", "the file to import"))
    sub.add_parser("check", help=say("自检记忆库（能安全修复的会修复）", "self-check the store (repairs what is safe to repair)"))
    return parser


def store_options(parser: argparse.ArgumentParser, say: Words) -> None:
    """``--store`` and ``--create``, which ``sonetto memory`` and ``sonetto history`` share."""
    parser.add_argument("--store", help=say("用这个记忆库文件（.yaml 或 .db）代替应用的数据文件夹，或设置里用的记忆服务器的地址"
                                            "（postgresql://…）",
                                            "a memory store file (.yaml or .db) instead of the app's data dir, or the "
                                            "address of the memory server the settings use (postgresql://…)"))
    parser.add_argument("--create", action="store_true", help=say("和 --store 一起用：文件不存在就新建",
                                                                  "with --store: create the file if it does not exist"))


def main(argv: list[str] | None = None) -> int:
    if not logging.getLogger().handlers:  # errors are printed once, as one line: no log lines besides
        logging.getLogger("sonetto_desktop").addHandler(logging.NullHandler())
    say = terminal_words()
    with parsing(say):  # argparse's words too (usage, its refusals, -h)
        args = _parser(say).parse_args(argv)
    say_lock_waits(lock_wait_words(say))
    try:
        with say.speaking():  # what this command prints is in the person's language, failures too
            return _main_sync(args, say)
    finally:
        forget_lock_waits()


def _main_sync(args: argparse.Namespace, say: Words) -> int:
    try:
        return asyncio.run(_main(args, say))
    except BrokenPipeError:  # `sonetto memory list | head`: the reader left; nothing is wrong
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 0
    except KeyboardInterrupt:
        return 130
    except MemoryError:  # the interpreter's, not ours: say so in one line too
        return _fail(say("内存不足", "out of memory"), say)
    except Exception as exc:  # noqa: BLE001 - a command line prints one line, never a traceback
        return _fail(words_of(exc, say), say)


#: Commands that only read: on a data dir without a store they say so instead of creating one.
READ_ONLY = frozenset({"list", "trash", "export", "check"})


async def _no_store_yet(args: argparse.Namespace) -> Path | None:
    """The app's data dir when it has no memory store yet (and the command only reads): nothing
    is opened, so nothing is created there. None when there is a store (or it is on a server)."""
    if args.store or args.command not in READ_ONLY:
        return None
    from .aio import run_blocking
    from .config.settings import load_settings
    from .memory.stores.backends import store_files
    from .memory.stores.migration_files import MARKER, STAGING

    settings = await run_blocking(load_settings)
    if settings.store_backend not in store_files():  # a store on a server (PostgreSQL): the server has it
        return None
    folder = settings.resolved_data_dir()
    if folder.exists() and not folder.is_dir():  # not a folder: opening says why it cannot be used
        return None
    # (a memory.yaml gone beside its log or backup is a store to restore, not "no memories")
    present = [folder / name for name in (*store_files().values(), MARKER, STAGING, "memory.yaml.log", "memory.yaml.bak")]
    return None if any(path.exists() for path in present) else folder


async def _main(args: argparse.Namespace, say: Words) -> int:
    ctrl_c_stops_lock_waits()
    try:
        store, settings = await named_store(args.store, say)
    except StoreRefused as exc:
        return _fail(str(exc), say)
    if args.command == "import":  # read (and refuse) the file before the store is even opened
        try:
            args.incoming = read_import(args.file)
        except ImportFormatError as exc:
            return _fail(words_of(exc, say), say)
    if store is not None and not store.exists() and not args.create and not any(
            store.with_name(store.name + suffix).exists() for suffix in (".log", ".bak")):  # (gone: restored)
        return _fail(no_such_store(store, say), say)
    empty = await _no_store_yet(args)
    if empty is not None:
        message = say(f"还没有记忆：{empty} 里还没有记忆库（应用或 `sonetto memory add` 会建一个）",
                      f"no memories yet: {empty} has no memory store (the app or `sonetto memory add` makes one)")
        print(message, file=sys.stderr if args.command == "export" else sys.stdout)
        if args.command == "export" and args.output:  # the export of no memories, not an older file left there
            await _export_nothing(Path(args.output), args.format or format_for(args.output))
        return 0
    try:
        services = await AppServices.open(store_path=store, settings=settings, actor=CLI, watch=False)
    except (MemoryError_, OSError, ValueError) as exc:
        return _fail(words_of(exc, say), say)
    problem = services.migration_problem
    if problem is not None:
        _warn(say(problem.zh, problem.en), say)
    for notice in services.store_notices:  # e.g. memory.yaml restored while opening, or unreadable
        _warn(_notice_line(notice), say)
    try:
        away = _server_away(args, services, say)
        if away is not None:
            return _fail(away, say)
        code = await _run(args, services, say)
        sys.stdout.flush()  # a closed pipe shows here, inside the handler below
        return code
    except BrokenPipeError:
        raise
    except Refused as refused:
        return _fail(refused.failed.exact, say)
    finally:
        await services.close()


def _server_away(args: argparse.Namespace, services: AppServices, say: Words) -> str | None:
    """A memory server out of reach: said on stderr (what is shown is this computer's copy, changes are
    refused); with no copy yet, why a command that only reads cannot run (it would say "no memories",
    or write an empty export over a file); ``check`` does not run (it said WARN with exit 0, having checked
    nothing of the server's store)."""
    status = services.store_status
    if status is None or status.online:
        return None
    reason = refusal_reason(status.detail)
    if reason is not None:  # waiting will not mend it
        return _server_refuses(args, services, status, reason, say)
    where = say(f"连不上记忆服务器 {services.store.path}（{status.detail}）",
                f"the memory server {services.store.path} cannot be reached ({status.detail})")
    if args.command == "check":  # the store is the server's: this computer's copy is not what is checked
        return say(f"{where}：记忆库没有检查，等它恢复后再试", f"{where}: the store was not checked; try again once it is back")
    if status.copy_time is None:
        if args.command in READ_ONLY:
            return say(f"{where}，这台电脑上也还没有记忆的副本：等它恢复后再试",
                       f"{where}, and this computer has no copy of the memories yet: try again once it is back")
        return None
    _warn(say(f"{where}：显示的是这台电脑上 {status.copy_time} 的副本；恢复之前，修改会被拒绝",
              f"{where}: shown is this computer's copy of {status.copy_time}; changes are refused until it is back"),
          say)
    return None


def _server_refuses(args: argparse.Namespace, services: AppServices, status: Any, reason: str,
                    say: Words) -> str | None:
    """A memory server that answers and refuses this computer (a wrong password, a user or database it does
    not have): why, as the window says it, and where to mend it. A change is refused before it is tried."""
    where = say(f"记忆服务器 {services.store.path} 拒绝了这台电脑的连接：{reason}（{status.detail}）",
                f"the memory server {services.store.path} refuses this computer: {reason} ({status.detail})")
    mend = say("请在 设置 → 多设备 里改正", "correct it in Settings → Devices")
    if args.command not in READ_ONLY:
        return say(f"{where}。没有做任何修改：{mend}后再试", f"{where}. Nothing was changed: {mend}, then try again")
    if args.command == "check":  # the store is the server's: this computer's copy is not what is checked
        return say(f"{where}。记忆库没有检查：{mend}后再试", f"{where}. The store was not checked: {mend}, then try again")
    if status.copy_time is None:
        return say(f"{where}。这台电脑上也还没有记忆的副本：{mend}后再试",
                   f"{where}. This computer has no copy of the memories yet: {mend}, then try again")
    _warn(say(f"{where}。显示的是这台电脑上 {status.copy_time} 的副本；{mend}之前，修改会被拒绝",
              f"{where}. Shown is this computer's copy of {status.copy_time}; changes are refused until then ({mend})"),
          say)
    return None


def _notice_line(notice: Any) -> str:
    """A store's notice in the window's words (what it means, what still works), with the store's own
    detail where they leave it out (the copy it was restored from)."""
    text = notice_text(notice)
    return text if not notice.detail or notice.detail in text else f"{text} ({notice.detail})"


class Refused(Exception):
    """An operation failed (nothing changed): ``failed`` says why."""

    def __init__(self, failed: ops.Failed) -> None:
        super().__init__(failed.message)
        self.failed = failed


async def _do(services: AppServices, op: ops.Op[ops.R]) -> ops.R:
    """``op``'s result, run by the services as the actor ``cli``; ``Refused`` when it failed."""
    outcome = await services.run(op)
    if isinstance(outcome, ops.Failed):
        raise Refused(outcome)
    return outcome.value


def print_kept(kept: list[Touched], lang: str, *, ids: bool = False, done: bool = False) -> None:
    """The memories an undo kept (``done``) or would keep, one a line, by their text and why (``ids``:
    the id first)."""
    if not kept:
        return
    print(kept_headline(len(kept), lang, done=done))
    for touched in sorted(kept, key=lambda t: (t.description, t.memory_id)):
        line = printable(kept_line(touched, lang))
        print(f"  {touched.memory_id}  {line}" if ids else f"  {line}")


def print_undo_preview(preview: Any, say: Words) -> None:
    """An undo's dry run (``preview_undo``): the cards it would keep because they were changed since, and
    what it would do to the rest, changing nothing."""
    lang = say.lang
    print_kept(preview.kept, lang)
    if preview.kept and not preview.rest:
        print(say("撤销会被拒绝：它写下的记忆之后都被改过了", "the undo would be refused: every memory it wrote was changed afterwards"))
    elif preview.kept:
        print(rest_line(preview.effects, lang, "can"))
        print(say("（不加 --rest 时撤销会被拒绝，什么都不改）", "(without --rest the undo is refused and changes nothing)"))
    else:
        print(say(f"撤销会：{effects_text(preview.effects, lang) or '没有可撤销的改动'}",
                  f"the undo would: {effects_text(preview.effects, lang) or 'find nothing to undo'}"))
    print(say("（试运行：什么都没改）", "(dry run: nothing was changed)"))


_lock_wait_line: list[Callable[[], None]] = []  # the command line's one listener (a command run again in-process)


def say_lock_waits(words: Callable[[str], str]) -> None:
    """Print one line on stderr when a command waits long for another process's store lock
    (``memory/stores/lock_wait.py``: it gives up after a minute)."""
    from .memory.stores.lock_wait import on_wait

    forget_lock_waits()
    _lock_wait_line.append(on_wait(lambda path: print(words(path.name), file=sys.stderr, flush=True)))


def forget_lock_waits() -> None:
    """The command is over: its line is no longer printed (a command run in-process, ``main``)."""
    while _lock_wait_line:
        _lock_wait_line.pop()()


def ctrl_c_stops_lock_waits() -> None:
    """From here on (called on the main thread, in the running loop), Ctrl+C also ends a wait for another
    process's store lock (``lock_wait.stop_waiting``: the write is refused, nothing changed) before
    asyncio's own handling of it: the wait runs in a worker thread, which the interpreter waits for on
    its way out, so the command went on for up to a minute after the Ctrl+C its line asks for."""
    import signal
    import threading

    from .memory.stores.lock_wait import stop_waiting

    previous = signal.getsignal(signal.SIGINT)
    if threading.current_thread() is not threading.main_thread() or not callable(previous):
        return

    def on_ctrl_c(signum: int, frame: Any) -> None:
        stop_waiting()
        previous(signum, frame)

    signal.signal(signal.SIGINT, on_ctrl_c)  # (asyncio.run puts back its own when it ends)


def _fail(message: str, say: Words) -> int:
    """The command was refused: one line on stderr (``错误：`` / ``error:``), exit code 2."""
    print(error_line(printable(message), say), file=sys.stderr)
    return 2


def _warn(message: str, say: Words) -> None:
    """Something the person should know (the command went on): one line on stderr."""
    print(f"{say('警告：', 'warning: ')}{printable(message)}", file=sys.stderr)


def _note(message: str, say: Words) -> None:
    """A remark on what the command did (or left out): one line on stderr."""
    print(f"{say('注意：', 'note: ')}{printable(message)}", file=sys.stderr)


async def _list(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    groups = await _do(services, ops.Grouped())
    if args.theme:
        groups = {t: c for t, c in groups.items() if t == args.theme}
    if not groups:
        where, theme = services.store.path, printable(args.theme or "")
        print(say(f"主题「{theme}」里没有记忆（{where}）", f"no memories in theme {theme} ({where})") if theme else
              say(f"还没有记忆（{where}）", f"no memories ({where})"))
        return 0
    for theme in sorted(groups):
        print(f"## {one_line(theme)} ({len(groups[theme])})")
        for card in groups[theme]:
            when = str(card["latest_update_time"])[:10]
            used = say(f"[命中 {card['hit']} 次，{when}]", f"[hit {card['hit']}, {when}]")
            print(f"  {card['id']}  {one_line(card['description'])}  {used}")
    return 0


def _undo_hint(turn: Turn, say: Words, **print_to: Any) -> None:
    """How to take back what a command just did (its action's turn id): every write is one action."""
    print(say(f"撤销：sonetto memory undo {turn.turn_id}", f"to undo: sonetto memory undo {turn.turn_id}"), **print_to)


async def _add(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    """Without ``--theme`` the memory is filed under a theme chosen from its words among the house's
    and the bank's, as ChatGPT's saved memories are (``guess_theme``), and the command says which."""
    guessed = not (args.theme or "").strip()
    theme = args.theme
    if guessed:
        from .aio import run_blocking
        from .history_import.saved_import import bank_themes
        from .memory.theme_guess import guess_theme

        theme = await run_blocking(lambda: guess_theme(args.description, bank_themes(services.memory)))
    turn = ops.action_turn()
    memory_id = await _do(services, ops.AddMemory(args.description, theme, reason=reason_text("cli.add"), as_turn=turn))
    if args.json:
        print(json.dumps({"id": memory_id, "theme": theme, "theme_guessed": guessed, "undo_id": turn.turn_id},
                         ensure_ascii=False))
        return 0
    print(memory_id)
    if guessed:
        said = one_line(theme)
        print(say(f"主题：{said}（按内容选的；要换一个，用 --theme）",
                  f"theme: {said} (chosen from the words; give --theme to choose another)"), file=sys.stderr)
    _undo_hint(turn, say, file=sys.stderr)  # (stdout is the new id alone, for scripts)
    return 0


async def _update(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    if args.description is None and args.theme is None:
        return _fail(say("请给出新的内容和/或 --theme", "give a new description and/or --theme"), say)
    turn = ops.action_turn()
    changed = await _do(services, ops.EditMemory(args.id, args.description, args.theme, reason=args.reason,
                                                 as_turn=turn))
    print(say(f"已修改 {args.id}", f"updated {args.id}") if changed else say("没有变化", "unchanged"))
    if changed:
        _undo_hint(turn, say)
    return 0


async def _delete(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    turn = ops.action_turn()
    await _do(services, ops.DeleteMemory(args.id, reason=args.reason, as_turn=turn))
    print(say(f"已把 {args.id} 移到回收站", f"moved {args.id} to the trash"))
    _undo_hint(turn, say)
    return 0


async def _restore(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    turn = ops.action_turn()
    await _do(services, ops.RestoreMemory(args.id, as_turn=turn))
    print(say(f"已从回收站恢复 {args.id}", f"restored {args.id}"))
    _undo_hint(turn, say)
    return 0


async def _undo(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    if args.dry_run:
        print_undo_preview(await _do(services, ops.Call.of(services.memory.preview_undo, args.turn_id)), say)
        return 0
    undo = ops.UndoTurn(args.turn_id, reason=reason_text("undo.turn", args.turn_id), keep_touched=args.rest)
    try:
        result = await _do(services, undo)
    except Refused as refused:
        exc = refused.failed.error
        if not isinstance(exc, UndoConflict):
            raise
        # Nothing changed: which memories, by their text, what --rest would do, and which changes (the
        # window's sentence would send the person to the history, which this command line has not).
        turn_id = printable(args.turn_id)
        print_kept(exc.touched, say.lang, ids=True)
        if exc.rest:
            print(rest_line(exc.preview.effects, say.lang, "can")
                  + say(f"要这样做并保留上面这些：sonetto memory undo {turn_id} --rest",
                        f" To do that and keep these: sonetto memory undo {turn_id} --rest"))
        touched = sorted(exc.conflicts)
        return _fail(say(f"没有撤销 {turn_id}：之后的改动碰到了其中 {len(touched)} 条记忆（{', '.join(touched)}）",
                         str(exc)), say)
    await _do(services, ops.Call.of(note_undo, services.store, args.turn_id, result.turn_id,
                                    kept=len(result.kept)))  # an import can come again
    undone, redo = printable(args.turn_id), f"sonetto memory undo {result.turn_id}"
    print(say(f"撤销了 {undone} 的 {len(result.changes):,} 处改动；要重做：{redo}",
              f"undid {len(result.changes):,} changes of {undone}; to redo them: {redo}"))
    if result.withdrawn:
        print(withdrawn_line(len(result.withdrawn), say))
    if result.returned:
        print(say(f"{len(result.returned):,} 项改动又回到了审核箱里等你确认",
                  f"{len(result.returned):,} changes wait in the review inbox again"))
    print_kept(result.kept, say.lang, ids=True, done=True)
    return 0


async def _trash(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    rows = await _do(services, ops.Trash())
    if not rows:
        print(say(f"回收站是空的（{services.store.path}）", f"the trash is empty ({services.store.path})"))
    for row in rows:
        print(f"  {row['id']}  {one_line(row['description'])}  [{str(row['deleted_at'])[:16]}, "
              f"{one_line(row['actor'])}: {one_line(render_reason(str(row['reason'] or ''), say.language))}]")
    return 0


async def _export_nothing(path: Path, fmt: str) -> None:
    """Write the export of no memories to ``path`` (what an empty store's export is)."""
    from .aio import run_blocking
    from .memory.transfer import write_empty_export

    await run_blocking(write_empty_export, path, fmt)


def _is_store_file(target: Path, services: AppServices) -> bool:
    """Whether ``target`` is the open store's own file or one beside it that belongs to it (its log,
    backup, journal, SQLite's -wal / -shm): exporting there would replace the store."""
    own = getattr(services.store, "path", None)
    if not isinstance(own, (str, os.PathLike)):  # no file (a memory server's address)
        return False
    own = Path(own).resolve()
    target = target.expanduser().resolve()
    return target == own or (target.parent == own.parent and target.name.startswith(own.name))


async def _export(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    fmt = args.format or (format_for(args.output) if args.output else "yaml")
    if args.output and _is_store_file(Path(args.output), services):
        return _fail(say(f"{args.output} 就是记忆库本身（或它的文件之一）：请导出到别的文件",
                         f"{args.output} is the memory store itself (or one of its files): export to another file"), say)
    if args.output:  # temp file + fsync + replace: a failure keeps the previous export whole
        count = await _do(services, ops.ExportTo(Path(args.output), fmt))
        side = await _do(services, ops.Call.of(marks_beside, Path(args.output), fmt))  # (YAML: the pins beside it)
        trashed = getattr(count, "trashed", 0)
        bin_ = await _do(services, ops.Call.of(trash_beside, Path(args.output), fmt)) if trashed else None
        kept = _beside(side, trashed, bin_, say)
        print(say(f"已导出 {int(count)} 条记忆到 {args.output}{kept}",
                  f"exported {int(count)} memories to {args.output}{kept}"), file=sys.stderr)
    elif fmt == "yaml":  # the pins go beside a file (NAME.flags.yaml): standard output has no beside
        text, marked = await _do(services, ops.Call.of(export_yaml_text, services.store))
        sys.stdout.write(text)
        if marked:
            _note(say(f"标准输出上的 YAML 不含哪些记忆被置顶了（置顶的记忆：{marked} 条）；要保留置顶，用 -o FILE.yaml"
                      "（置顶标记写进 FILE.flags.yaml）或 --format json",
                      f"YAML on standard output leaves out which memories are pinned (pinned memories: {marked}); "
                      "to keep the pins, use -o FILE.yaml (they go to FILE.flags.yaml) or --format json"), say)
        left = await _do(services, ops.Call.of(_trash_size, services.store))
        if left:
            _note(say(f"标准输出上的 YAML 不含回收站（{left} 条删除了的记忆）；要保留它，用 -o FILE.yaml"
                      "（它写进 FILE.trash.yaml）或 --format json",
                      f"YAML on standard output leaves out the trash ({left} deleted "
                      f"{'memory' if left == 1 else 'memories'}); to keep it, use -o FILE.yaml (it goes to "
                      "FILE.trash.yaml) or --format json"), say)
    else:
        sys.stdout.write(await _do(services, ops.Call.of(export_text, services.store, fmt)))
    return 0


def _beside(side: Path | None, trashed: int, bin_: Path | None, say: Words) -> str:
    """What an export to a file says it wrote besides the memories: the file the pins are in (YAML), and
    the trash, in that file or beside it."""
    kept = (say(f"（置顶标记在 {side}：请和它一起带走）", f" (the pins are in {side}: take it along with it)")
            if side is not None else "")
    if bin_ is not None:
        kept += (say(f"；回收站里的 1 条在 {bin_}（请一起带走：导入时它会回到回收站）",
                     f"; the one in the trash is in {bin_} (take it along: an import puts it back in the trash)")
                 if trashed == 1 else
                 say(f"；回收站里的 {trashed} 条在 {bin_}（请一起带走：导入时它们会回到回收站）",
                     f"; the {trashed} in the trash are in {bin_} (take it along: an import puts them back in "
                     "the trash)"))
    elif trashed:
        kept += (say("，还有回收站里的 1 条（导入时它会回到回收站）",
                     ", and the one in the trash (an import puts it back in the trash)") if trashed == 1 else
                 say(f"，还有回收站里的 {trashed} 条（导入时它们会回到回收站）",
                     f", and the {trashed} in the trash (an import puts them back in the trash)"))
    return kept


def _trash_size(store: Any) -> int:
    return len(store.trash_entries())


async def _import(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    reason = reason_text("import.file", Path(args.file).name)
    for new, old in getattr(args.incoming, "renamed", {}).items():  # a repeated id: both entries kept, one re-id'd
        _note(say(f"文件里不止一条记忆的编号是 {old!r}：后面那条以 {new!r} 导入",
                  f"the file gives id {old!r} to more than one memory: the later one is imported as {new!r}"), say)
    for problem, said in ((getattr(args.incoming, "trash_problem", None), trash_left_out),
                          (getattr(args.incoming, "flags_problem", None), pins_left_out)):
        if problem is not None:  # a damaged NAME.trash.yaml / NAME.flags.yaml: the memories come in without it
            _note(said(problem), say)
    turn = ops.action_turn()
    added, skipped, trashed = await _do(services, ops.ImportItems(args.incoming, reason, as_turn=turn))
    print(say(f"导入了 {len(added):,} 条记忆，跳过 {len(skipped):,} 条重复的",
              f"imported {len(added):,} memories, skipped {len(skipped):,} duplicates") + _trash_back(trashed, added, say))
    if added:
        _undo_hint(turn, say)
    return 0


def _trash_back(trashed: list[Any], added: list[Any], say: Words) -> str:
    """What an import says of the deleted memories it put back in the trash (an export carries the trash)."""
    if not trashed:
        return ""
    n, one = len(trashed), len(trashed) == 1
    it = "it" if one else "them"
    if added:  # (an undo deletes nothing for good)
        return say(f"；{n:,} 条删除了的记忆放回了回收站（撤销这次导入时{'它' if one else '它们'}留在那里）",
                   f"; {n:,} deleted {'memory' if one else 'memories'} put back in the trash (undoing this import "
                   f"leaves {it} there)")
    return say(f"；{n:,} 条删除了的记忆放回了回收站（没有新增记忆：没有可撤销的；可以在应用的回收站里把"
               f"{'它' if one else '它们'}彻底删除）",
               f"; {n:,} deleted {'memory' if one else 'memories'} put back in the trash (no memory added: nothing "
               f"to undo; the app's trash can delete {it} for good)")


#: ``SelfCheckReport.status`` said in Chinese (the exit code tells a script: 0, or 1 for FAIL).
_STATUS_ZH = {"OK": "正常", "WARN": "有问题", "FAIL": "无法使用"}


async def _check(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    report = services.store_report or services.store.self_check()  # the check run when the store opened
    where = services.store.path
    status = _STATUS_ZH.get(report.status, report.status)
    print(say(f"{status}：{where} 里有 {report.item_count} 条记忆",
              f"{report.status}: {report.item_count} memories in {where}"))
    issue, repaired = say("  问题：", "  issue: "), say("  已修复：", "  repaired: ")
    problem = services.migration_problem
    if problem is not None:
        print(f"{issue}{printable(say(problem.zh, problem.en))}")
    for line in report.repaired:  # (each store's findings carry their Chinese: ``validation.Finding``)
        print(f"{repaired}{printable(said_in(line, say.language))}")
    for line in report.issues:
        print(f"{issue}{printable(said_in(line, say.language))}")
    return 1 if report.status == "FAIL" else 0


#: ``sonetto memory <command>``: each command's function is named after it.
_COMMANDS: dict[str, Callable[[argparse.Namespace, AppServices, Words], Awaitable[int]]] = {
    fn.__name__.lstrip("_"): fn for fn in (_list, _add, _update, _delete, _restore, _undo, _trash, _export, _import,
                                           _check)
}


async def _run(args: argparse.Namespace, services: AppServices, say: Words) -> int:
    command = _COMMANDS.get(args.command)
    return await command(args, services, say) if command is not None else 2
