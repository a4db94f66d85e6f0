"""What to tell a person about a store's notice (``memory.stores.notices.StoreNotice``): one line,
and whether it is a warning or news. No Qt: the window shows it as a toast, the command line prints it."""

from __future__ import annotations

from pathlib import Path

from ..memory.stores.notices import CONDITIONS, StoreNotice
from .i18n import translate

PREVIEW_CHARS = 30


def _preview(text: str) -> str:
    text = " ".join((text or "").split())
    return text if len(text) <= PREVIEW_CHARS else text[: PREVIEW_CHARS - 1] + "…"


def notice_text(notice: StoreNotice) -> str:
    """The notice in the front end's language."""
    name = Path(notice.path).name
    kind = notice.kind
    if kind == "file_missing":
        return translate("StoreNotices", "{0} 不见了（被删除或移走）：记忆都还在，已按现在的内容重新写出这个文件").format(name)
    if kind == "file_link":
        return translate("StoreNotices", "{0} 被换成了指向别处的链接：没有读取链接的内容，已按现在的记忆重新写出这个文件").format(name)
    if kind == "file_unreadable":
        return translate("StoreNotices", "{0} 现在读不了：{1}。记忆照常显示，但修改会被拒绝，文件不会被覆盖；修好后自动恢复").format(
            name, notice.detail)
    if kind == "file_readable":
        return translate("StoreNotices", "{0} 又能读取了，记忆可以照常修改").format(name)
    if kind == "file_unsaved":
        why = {"full": translate("StoreNotices", "磁盘已满"),
               "read_only": translate("StoreNotices", "所在文件夹是只读的"),
               "permission": translate("StoreNotices", "没有写入权限")}.get(notice.reason, notice.detail)
        return translate("StoreNotices", "{0} 现在保存不了（{1}）：新的记忆和修改都已安全记在更改日志 {2} 里，不会丢失；"
                         "{0} 暂时还是旧的内容，能写入后会自动保存").format(name, why, name + ".log")
    if kind == "file_saved":
        return translate("StoreNotices", "{0} 又能保存了：这段时间的记忆和修改都已写入").format(name)
    if kind == "file_recovered":
        if notice.exact:
            return translate("StoreNotices", "{0} 不见了：已从备份和更改日志完整恢复").format(name)
        return translate("StoreNotices", "{0} 不见了：已从较早的备份恢复，最近的一些修改可能不在其中").format(name)
    if kind == "edit_stale":
        return translate("StoreNotices", "{0} 是从较早的副本保存的：Sonetto 之后写的 {1} 处修改已保留").format(
            name, notice.count or len(notice.ids))
    if kind == "edit_deleted":
        first = _preview(notice.texts[0]) if notice.texts else ""
        if (notice.count or len(notice.ids)) == 1:
            return translate("StoreNotices", "在 {0} 里删除的「{1}」已移到回收站，可以恢复").format(name, first)
        return translate("StoreNotices", "在 {0} 里删除的 {1} 条记忆已移到回收站，可以恢复").format(
            name, notice.count or len(notice.ids))
    if kind == "edit_conflict":
        mine = _preview(notice.texts[0]) if notice.texts else ""
        if len(notice.ids) > 1 and len(notice.texts) > 1:
            return translate("StoreNotices", "你在 {0} 里改的「{1}」和另一处修改冲突：用了你的版本，另一个版本另存为「{2}」").format(
                name, mine, _preview(notice.texts[1]))
        return translate("StoreNotices", "你在 {0} 里改的「{1}」和另一处修改冲突：用了你的版本").format(name, mine)
    return notice.detail or kind


def notice_level(notice: StoreNotice) -> str:
    """"error" (something the person must fix) or "info" (repaired or merged: worth knowing)."""
    return "error" if notice.kind in CONDITIONS else "info"


def lock_wait_text(store_path: str | Path) -> str:
    """A write (or a look at the files) has waited a while for another process that holds the store
    (``memory/stores/lock_wait.py``): what it means and how long it will wait."""
    return translate("StoreNotices", "另一个程序（另一个 Sonetto 或 sonetto mcp）正占着 {0}：正在等它写完，最多等 1 分钟").format(
        Path(store_path).name)
