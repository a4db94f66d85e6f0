"""The one wording of a failed operation, for a person: whatever the front end ran (an edit, a move, an
undo, approving a proposal, "别记住这个", a chat turn, saving the settings), the same failure reads the
same. Nothing was changed when one of these is shown: the memory operations are all-or-nothing.

``describe_error(exc)`` is a whole sentence (what ``ops.Failed.message`` carries); ``error_detail(exc)``
is what went wrong for a sentence the caller already began ("读不了 {file}：{detail}"). Neither ever shows
an exception's type name: a person cannot act on "RuntimeError"; the log has the traceback.
``describe_error_exactly(exc)`` is the same sentence followed by the failure's own words where the sentence
leaves them out (which memory, which file): what the command line prints. ``describe_error_for_app(exc)``
is what an MCP tool answers: the same, never with the person's private words (a don't-remember entry).
"""

from __future__ import annotations

import errno
import sys

from ..memory.errors import (ChangedMeanwhile, DontRememberRefused, ImportFormatError, MemoryError_, MemoryNotFound,
                             ProposalNotApplicable, ProposalOutdated, SecretRefused, StoreBusy, StoreCorrupt,
                             StoreOffline, StoreReadOnly, StoreReopening, StoreWriteFailed, without_private)
from ..memory.item import EmptyText, TooLong
from ..memory.review import ProposalWithdrawn
from ..memory.undo import NothingToUndo, UndoConflict
from ..redaction import scrub
from .i18n import counted, language, translate
from .undo_words import card_names

NAMES_SHOWN = 3  # an undo refused because of later changes names this many memories
DETAIL_CHARS = 300  # an exception's own text is cut here (a server may answer with a page of HTML)


def describe_error(exc: BaseException) -> str:
    """A message for a person about ``exc``, raised by an operation that changed nothing."""
    said = _sentence(exc)
    if said is not None:
        return said
    if isinstance(exc, ValueError):
        return translate("OperationErrors", "输入无效：{0}").format(error_detail(exc))
    if isinstance(exc, MemoryError_):
        return translate("OperationErrors", "记忆库出错：{0}").format(error_detail(exc))
    if isinstance(exc, OSError):
        return translate("OperationErrors", "读写文件或连接失败：{0}").format(error_detail(exc))
    return translate("OperationErrors", "操作失败：{0}").format(error_detail(exc))


def describe_error_exactly(exc: BaseException) -> str:
    """``describe_error(exc)``, then the failure's own text in brackets when it has a sentence of its own
    that leaves it out ("找不到这条记忆，…。 (no memory with id 'x1' in the memory store)"): for a reader that acts on
    the names in it, a script reading the command line or another app's model reading an MCP tool error."""
    said = describe_error(exc)
    if _sentence(exc) is None:  # the general wordings end with the failure's own words already
        return said
    if isinstance(exc, (DontRememberRefused, SecretRefused)):  # (their sentence says all their text does)
        return said
    own = _own_words(exc)
    return said if not own or own in said else f"{said} ({own})"


def describe_error_for_app(exc: BaseException) -> str:
    """``describe_error_exactly(exc)`` for another app (an MCP tool error): never the person's private words
    (a don't-remember refusal says that the person asked, not which entry matched; ``without_private``).
    A refusal (don't remember, a secret) is said in both languages, "中文 / English", as the server's own
    refusals are (its tools and their errors are read by any app's model, and shown to its person)."""
    private = without_private(exc)
    if private is not None:
        return private
    if isinstance(exc, SecretRefused):  # (in both languages, as the server's own refusals: its own text)
        return str(exc)
    return describe_error_exactly(exc)


def _own_words(exc: BaseException) -> str:
    """The failure's own words where its sentence leaves them out (which memory, which file), in the front
    end's language: the exception's own text in English, our Chinese for our failures in Chinese (an
    exception this does not know keeps its text)."""
    if isinstance(exc, (StoreWriteFailed, StoreReadOnly)):  # (its sentence says all its text does, in either language)
        return ""
    if language() == "en":
        return _own_text(exc)
    if isinstance(exc, MemoryNotFound):
        where = (translate("OperationErrors", "回收站") if exc.where == "trash"
                 else translate("OperationErrors", "记忆库"))
        return translate("OperationErrors", "{0}里没有 id 为 {1} 的记忆").format(where, repr(exc.memory_id))
    if isinstance(exc, NothingToUndo):
        return translate("OperationErrors", "轮次 {0} 没有留下可撤销的变化").format(repr(exc.turn_id))
    if isinstance(exc, StoreCorrupt):
        said = translate("OperationErrors", "文件：{0}").format(exc.path)
        if exc.backup:
            said += translate("OperationErrors", "；上一个完好的版本在 {0}").format(exc.backup)
        return _cut(said)
    if isinstance(exc, StoreBusy):
        return _cut(translate("OperationErrors", "记忆库：{0}").format(exc.path))
    if isinstance(exc, ChangedMeanwhile):
        return translate("OperationErrors", "改过的记忆：{0}").format("、".join(exc.ids))
    if isinstance(exc, StoreReopening):  # (its sentence says all its text does)
        return ""
    return _own_text(exc)


def _store_file_words(kind: str, *values: str) -> str | None:
    """Why a file of a YAML store is not read (``StoreCorrupt.words``), in the person's language; None for
    a kind this does not know (an import's kinds: ``_import_words``)."""
    if kind == "not_regular":
        return translate("OperationErrors", "{0} 不是普通文件").format(*values)
    if kind == "link":
        return translate("OperationErrors", "{0} 是指向 {1} 的链接：链接不会被跟随").format(*values)
    if kind == "too_large":
        return translate("OperationErrors", "{0} 有 {1} MB，超过了 YAML 记忆库能读的 {2} MB（这么大的记忆库请改用 SQLite：设置里的存储方式）"
                         ).format(*values)
    return None


def _own_text(exc: BaseException) -> str:
    """The exception's own text on one line, secrets scrubbed, cut at ``DETAIL_CHARS``."""
    return _cut(" ".join(str(exc).split()))


def _cut(text: str) -> str:
    text = scrub(text, ())
    return text if len(text) <= DETAIL_CHARS else text[: DETAIL_CHARS - 1] + "…"


def _sentence(exc: BaseException) -> str | None:
    """The failures that have a sentence of their own (also as a detail: they say more than their text)."""
    if isinstance(exc, UndoConflict):  # the cards by their text, not their ids
        names = card_names(exc.touched, NAMES_SHOWN)
        return translate("OperationErrors", "没有撤销：之后又有改动碰到了其中 {0} 条记忆（{1}）。可以在历史里逐条还原。").format(
            len(exc.conflicts), names)
    if isinstance(exc, NothingToUndo):
        return translate("OperationErrors", "已经没有可撤销的变化了。")
    if isinstance(exc, MemoryNotFound):
        return translate("OperationErrors", "找不到这条记忆，它可能已被删除或移动。")
    if isinstance(exc, ChangedMeanwhile):  # the dialog asks about it; elsewhere (another front end) this says it
        return translate("OperationErrors", "记忆刚被改过，没有保存：请看过它现在的内容再改。")  # (an edit or a merge)
    if isinstance(exc, StoreBusy):
        return translate("OperationErrors", "另一个程序（另一个 Sonetto 或 sonetto mcp）占着记忆库超过 {0} 秒，没有做任何修改："
                                            "请稍后再试；一直这样的话，关掉卡住的那个程序。").format(round(exc.seconds))
    if isinstance(exc, StoreReopening):  # (a move to another data folder copying meanwhile: the wall stays usable)
        return translate("OperationErrors", "记忆库正在切换（换了数据文件夹或存储方式），这次的改动没有保存：切换完成后再试一次。")
    if isinstance(exc, StoreWriteFailed):  # (a full disk: was the store's English inside "记忆库出错：")
        return translate("OperationErrors", "没有保存，什么都没有改动：{0}（{1}）").format(_store_cause(exc.detail), exc.path)
    if isinstance(exc, StoreOffline):  # (its address and libpq's words: the log, the banner's tooltip, the CLI's brackets)
        return translate("OperationErrors", "没有保存，什么都没有改动：记忆服务器暂时连不上，现在只能查看。它回来后会自动重新连上，到时再试一次。")
    if isinstance(exc, StoreReadOnly) and exc.folder:  # (never the lock file it tripped on: the folder is the cause)
        return translate("OperationErrors", "数据文件夹 {0} 是只读的，写不进去，没有做任何修改：记忆可以查看和导出，"
                                            "让这个文件夹能写入后才能修改").format(exc.folder)
    if isinstance(exc, StoreReadOnly):
        return translate("OperationErrors", "记忆库是只读的，没有做任何修改：记忆可以查看和导出，不能修改（{0}）").format(exc.path)
    if isinstance(exc, StoreCorrupt):  # (the detail in the person's language where it is our own wording)
        detail = (_store_file_words(*exc.words) or _import_words(*exc.words)) if exc.words else None
        return translate("OperationErrors", "记忆库文件无法读取，没有做任何修改：{0}").format(detail or exc.detail)
    if isinstance(exc, ProposalWithdrawn):  # its conversation (an import, a chat turn) was undone
        return translate("OperationErrors", "这条提议已撤回：它来自的对话（{0}）已经撤销，不能再批准。").format(
            exc.origin or exc.turn)
    if isinstance(exc, ProposalOutdated) and exc.reworded:  # another's newer words are not written over either
        now = " ".join(exc.clashes[0][1].split())
        return translate("OperationErrors", "没有批准：你看过之后，这条记忆又被改过（现在是“{0}”），你改写的内容会盖掉新的内容。"
                                            "它仍留在列表里，已列出现在的内容：可以拒绝，或对照着再改写后批准。").format(
            now if len(now) <= 60 else now[:59] + "…")
    if isinstance(exc, ProposalOutdated):  # the person's newer words are not written over
        now = " ".join(exc.clashes[0][1].split())
        return translate("OperationErrors", "没有批准：提议之后，这条记忆又被改过（现在是“{0}”），照原样批准会盖掉新的内容。"
                                            "它仍留在列表里：可以拒绝，或改写后批准。").format(
            now if len(now) <= 60 else now[:59] + "…")
    if isinstance(exc, ProposalNotApplicable):  # never the model's wording: it was meant for the model
        if exc.unknown:
            return translate("OperationErrors", "无法批准：这个版本不知道怎样完成这条提议（{0}）。可以拒绝它，它不会被写入。").format(
                exc.tool)
        return translate("OperationErrors", "这条提议已无法照原样完成（相关的记忆可能已经变了），没有写入，仍留在列表里。")
    runner = sys.modules.get("sonetto_desktop.history_import.runner")  # (loaded with an import: not for this)
    if runner is not None and isinstance(exc, runner.ImportElsewhere):
        return translate("OperationErrors", "这次导入正在另一个 Sonetto（窗口或命令行）里进行，没有撤销：请先在那里停止它。")
    if isinstance(exc, DontRememberRefused):  # the person's own view: the entry may be named
        entry = " ".join(exc.entry.split())
        return translate("OperationErrors", "没有写入：你要求过不要记住“{0}”这类内容（在“不要记住”列表里）。").format(
            entry if len(entry) <= 60 else entry[:59] + "…")
    if isinstance(exc, SecretRefused):
        return translate("OperationErrors", "没有写入：内容疑似包含{0}，秘密信息不会写进记忆。去掉具体的值再试。").format(
            _secret_word(exc.kind))
    if isinstance(exc, KeyError):  # a proposal or an entry another window already took care of
        return translate("OperationErrors", "这一项已经被处理过了（可能在另一个窗口里）。")
    return None


def error_detail(exc: BaseException) -> str:
    """What went wrong, in a few words, to end a sentence the caller began: the exception's own text
    (secrets scrubbed, cut at ``DETAIL_CHARS``), or the sentence a known failure has; never its type name."""
    said = _sentence(exc)
    if said is not None:
        return said
    if isinstance(exc, OSError) and (exc.strerror or _os_cause(exc)):
        cause = _os_cause(exc) or exc.strerror
        if not exc.filename:
            return _cut(cause)
        return _cut(translate("OperationErrors", "{0}（{1}）").format(cause, exc.filename))
    if isinstance(exc, ImportFormatError) and exc.words:
        said = _import_words(*exc.words)
        if said is not None:
            return _cut(said)
    if isinstance(exc, EmptyText):
        return translate("OperationErrors", "{0}不能是空的").format(_field_word(exc.field))
    if isinstance(exc, TooLong):
        return translate("OperationErrors", "{0}有 {1} 个字，超过了上限 {2} 字").format(
            _field_word(exc.field), counted(exc.length), counted(exc.limit))
    return _own_text(exc) or translate("OperationErrors", "出了意外的问题，详情已写入日志。")


def trash_left_out(exc: BaseException) -> str:
    """What an import says when the trash file beside a YAML export could not be read (the memories are
    imported without it): which file, and what is wrong where (``error_detail``)."""
    return translate("ImportErrors", "旁边的回收站文件读不了，里面删除了的记忆没有导入：{0}").format(error_detail(exc))


def pins_left_out(exc: BaseException) -> str:
    """What an import says when the pins file beside a YAML export could not be read (the memories are
    imported without their pins): which file, and what is wrong where (``error_detail``)."""
    return translate("ImportErrors", "旁边的置顶标记文件读不了，记忆导入了，但没有置顶：{0}").format(error_detail(exc))


def left_out(items: object) -> str:
    """What an import of ``items`` (``transfer.Incoming``) says it left out of a YAML export: its damaged
    trash file, its damaged pins file (``trash_left_out``, ``pins_left_out``), one sentence each; "" for none."""
    trash, flags = getattr(items, "trash_problem", None), getattr(items, "flags_problem", None)
    said = trash_left_out(trash) if trash is not None else ""
    if flags is not None:
        said = translate("ImportErrors", "{0}。{1}").format(said, pins_left_out(flags)) if said else pins_left_out(flags)
    return said


def _import_words(kind: str, *values: str) -> str | None:
    """Why a file cannot be imported (``ImportFormatError.words``), in the person's language: what is wrong
    and where (the memory, the line and column), never the parser's own English; None for a kind this
    does not know (its English text is said)."""
    if kind == "type":
        return translate("ImportErrors", "无法识别的文件类型 {0}：请用 .yaml、.json 或 .md 文件").format(*values)
    if kind == "not_memory":
        return translate("ImportErrors", "{0}：条目 {1} 不是一条记忆（应有 description、theme 等）").format(*values)
    if kind == "not_text":
        source, mid, name, found = values
        return translate("ImportErrors", "{0}：记忆 {1} 的{2}不是文字（而是{3}）").format(
            source, mid, _field_word(name), _kind_word(found))
    if kind == "no_description":
        return translate("ImportErrors", "{0}：记忆 {1} 没有内容（description）").format(*values)
    if kind == "too_long":
        source, mid, name, length, limit = values
        return translate("ImportErrors", "{0}：记忆 {1} 的{2}有 {3} 个字，超过了上限 {4} 字").format(
            source, mid, _field_word(name), length, limit)
    if kind == "md_heading":
        return translate("ImportErrors", "第 {0} 行：这条记忆前面没有“## 主题”标题").format(*values)
    if kind == "md_too_long":
        line, name, length, limit = values
        return translate("ImportErrors", "第 {0} 行：这条记忆的{1}有 {2} 个字，超过了上限 {3} 字").format(
            line, _field_word(name), length, limit)
    if kind == "unreadable":
        name, code = values
        cause = _os_cause(OSError(int(code) if code.isdigit() else 0, ""))
        if cause is None:
            cause = translate("ImportErrors", "系统不让读取（错误代码 {0}）").format(code or "?")
        return translate("ImportErrors", "{0} 无法读取：{1}").format(name, cause)
    if kind == "too_big":
        return translate("ImportErrors", "{0} 有 {1} MB，超过 {2} MB 的导入文件不会被读取").format(*values)
    if kind == "not_utf8":
        return translate("ImportErrors", "{0} 不是 UTF-8 编码的文本（第 {1} 行起）：请把它另存为 UTF-8 再导入").format(*values)
    if kind == "aliases":
        return translate("ImportErrors", "{0} 用了 YAML 的锚点或别名（&名字 / *名字，第 {1} 行）：记忆文件用不到它们，"
                                         "所以没有读取").format(*values)
    if kind == "not_mapping":
        name, found = values
        return translate("ImportErrors", "{0} 不是记忆导出文件：它应是从编号到记忆的对应表，这里是{1}").format(
            name, _kind_word(found))
    if kind == "unparsable":
        return translate("ImportErrors", "{0} 无法解析：第 {1} 行第 {2} 列不合格式。它可能不是记忆导出文件，或已损坏").format(
            *values)
    if kind == "unparsable_somewhere":
        return translate("ImportErrors", "{0} 无法解析，它可能不是记忆导出文件，或已损坏").format(*values)
    if kind == "bad_trash":
        return translate("ImportErrors", "{0}：回收站里的 {1} 不是一条删除了的记忆").format(*values)
    if kind == "bad_trash_all":
        return translate("ImportErrors", "{0}：回收站那一部分读不了（应是从编号到删除了的记忆的对应表）").format(*values)
    if kind == "too_deep":
        return translate("ImportErrors", "{0} 无法解析：嵌套层数太多，不像是记忆导出文件").format(*values)
    if kind == "bad_flags_all":
        return translate("ImportErrors", "{0} 不是从编号到置顶标记的对应表").format(*values)
    return None


def _field_word(name: str) -> str:
    """A memory's field named in an import failure (``description`` …), in the person's language."""
    if name == "description":
        return translate("ImportErrors", "内容")
    if name == "theme":
        return translate("ImportErrors", "主题")
    if name == "reason":
        return translate("ImportErrors", "历史里的一条原因")
    return name


def _kind_word(kind: str) -> str:
    """What a file holds where it should hold something else (Python's type name), for a person."""
    if kind in ("list", "tuple"):
        return translate("ImportErrors", "列表")
    if kind == "dict":
        return translate("ImportErrors", "对应表")
    if kind == "str":
        return translate("ImportErrors", "一段文字")
    if kind in ("int", "float"):
        return translate("ImportErrors", "数字")
    if kind == "bool":
        return translate("ImportErrors", "是/否")
    if kind == "NoneType":
        return translate("ImportErrors", "空值")
    return translate("ImportErrors", "别的内容")


def _secret_word(kind: str) -> str:
    """A kind of secret (``secret_filter``'s names, Chinese) in the person's language."""
    if kind == "密码":
        return translate("OperationErrors", "密码")
    if kind == "验证码":
        return translate("OperationErrors", "验证码")
    if kind == "密钥":
        return translate("OperationErrors", "密钥")
    if kind == "私钥":
        return translate("OperationErrors", "私钥")
    if kind == "身份证号":
        return translate("OperationErrors", "身份证号")
    if kind == "证件号":
        return translate("OperationErrors", "证件号")
    if kind == "银行卡号":
        return translate("OperationErrors", "银行卡号")
    if kind == "银行账号":
        return translate("OperationErrors", "银行账号")
    return translate("OperationErrors", "秘密信息")


#: The words ``memory.errors.describe_os_error`` gives a store's failure (``StoreWriteFailed.detail``), by
#: the error they stand for.
_STORE_CAUSES = {
    "the disk is full": errno.ENOSPC,
    "the file is larger than the system allows (file size limit)": errno.EFBIG,
    "the disk or folder is read-only": errno.EROFS,
    "permission denied": errno.EACCES,
    "a file is in the way where a folder should be": errno.ENOTDIR,
}


def _store_cause(detail: str) -> str:
    """Why a store could not save, in the person's language (a cause we do not word keeps its own text)."""
    code = _STORE_CAUSES.get(detail)
    return (_os_cause(OSError(code, detail)) if code is not None else None) or _cut(detail)


def _os_cause(exc: OSError) -> str | None:
    """The cause of a file failure a person can act on (the disk is full, …); None for another."""
    code = getattr(exc, "errno", None)
    if code == errno.ENOSPC:
        return translate("OperationErrors", "磁盘已满")
    if code == errno.EFBIG:
        return translate("OperationErrors", "文件超过了系统允许的大小（文件大小限制）")
    if code == errno.EROFS:
        return translate("OperationErrors", "磁盘或文件夹是只读的")
    if code in (errno.EACCES, errno.EPERM):
        return translate("OperationErrors", "没有权限")
    if code == errno.ENOENT:
        return translate("OperationErrors", "找不到这个文件")
    if code == errno.EISDIR:
        return translate("OperationErrors", "这是一个文件夹，不是文件")
    if code == errno.ENOTDIR:
        return translate("OperationErrors", "路径里应是文件夹的地方是一个文件")
    return None
