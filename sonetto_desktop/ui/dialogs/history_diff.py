"""Before/after diffs of memory texts as small HTML, the pane that shows them (no resources, no
links), and who made a change in words (``actor_label``)."""

from __future__ import annotations

import difflib
from html import escape
from typing import Any

from PySide6.QtCore import QCoreApplication, QUrl

from sonetto_desktop.history_import.model import import_source
from PySide6.QtWidgets import QTextBrowser, QWidget

from ..wall.theme_colors import wall_tokens


def diff_html(old: str, new: str) -> str:
    """``old`` -> ``new`` as inline HTML: removed text in ``<span class="del">``, added text in
    ``<span class="ins">``, the rest plain. Character level (Chinese has no spaces to split on)."""
    old, new = old or "", new or ""
    out: list[str] = []
    for op, a1, a2, b1, b2 in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if op == "equal":
            out.append(escape(old[a1:a2]))
            continue
        if op in ("delete", "replace"):
            out.append(f'<span class="del">{escape(old[a1:a2])}</span>')
        if op in ("insert", "replace"):
            out.append(f'<span class="ins">{escape(new[b1:b2])}</span>')
    return "".join(out)


def diff_stylesheet(mode: str = "light") -> str:
    """The document stylesheet for ``diff_html`` output, from the wall's tokens."""
    t = wall_tokens(mode)
    return (
        f".del {{ background-color: {t['diff_del_bg']}; color: {t['diff_del_fg']}; text-decoration: line-through; }}"
        f".ins {{ background-color: {t['diff_ins_bg']}; color: {t['diff_ins_fg']}; }}"
        f".muted {{ color: {t['card_muted']}; }}"
    )


class SafeTextBrowser(QTextBrowser):
    """A read-only rich-text pane for markup we built from escaped memory text: it never loads an
    image or stylesheet (local or remote) and never follows a link."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setOpenLinks(False)
        self.setOpenExternalLinks(False)

    def loadResource(self, kind: int, name: QUrl) -> Any:
        return None


def actor_label(actor: Any) -> str:
    """Who made a change, for a person: 你, Sonetto, 命令行, 你（手动编辑 memory.yaml）, <name>（其他应用） (MCP, by the name the
    app gave), 其他程序, …"""
    name = str(actor or "").strip()
    if name in ("", "user"):
        return QCoreApplication.translate("HistoryDialog", "你")
    if name == "agent":
        return "Sonetto"  # the name the card, the toasts and the chat use
    if name == "cli":
        return QCoreApplication.translate("HistoryDialog", "命令行")
    if name == "file":
        return QCoreApplication.translate("HistoryDialog", "你（手动编辑 memory.yaml）")
    if name.startswith("mcp:"):
        client = name[4:].strip() or "MCP"
        return QCoreApplication.translate("HistoryDialog", "%1（其他应用）").replace("%1", client)
    if name == "external":
        return QCoreApplication.translate("HistoryDialog", "其他程序")
    if name == "imported":
        return QCoreApplication.translate("HistoryDialog", "导入")
    source = import_source(name)
    if source is not None:
        return QCoreApplication.translate("HistoryDialog", "从 {0} 的聊天记录导入").format(source)
    return QCoreApplication.translate("HistoryDialog", "其他程序（{0}）").format(name)
