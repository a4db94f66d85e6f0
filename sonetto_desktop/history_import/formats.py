"""The history formats the importer reads, described once (the way ``memory/record.py`` describes a
memory's fields).

Everything that knows the formats derives from the registry: telling a picked file's format
(``sources.detect``: a plain file by its suffix and, where a suffix is shared, by its content; a zip
or folder by the files in it), reading it (``sources.read_history``), the command line's
``--format`` choices, the window's format box, how the source is named (``History.label``, the
``import:<name>`` actor's app) and the error texts that list what the app can read.

A new format is one module with a ``read(source) -> History`` (and, when its files share a suffix
with another format, a function telling its files apart), plus one :class:`HistoryFormat` in
:data:`BUILT_IN` — or :func:`register` for one defined elsewhere (a plug-in, a test). Readers and
sniffers are named as ``"module:function"`` and imported when first used, so this module imports
none of them (the model can read labels from here without a cycle).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import Any, Callable

__all__ = ["BUILT_IN", "HistoryFormat", "all_formats", "format_named", "label_of", "names", "register",
           "unregister"]

@dataclass(frozen=True)
class HistoryFormat:
    """One format. ``name``: ``--format``'s value and ``History.source``; ``label``: how people name
    the source (the app the chats came from); ``what``: the file it reads, (zh, en), for the error
    texts that list what the app knows; ``reader``: ``read(source) -> History``.

    Detection: a single file is this format when its suffix is in ``suffixes`` and ``sniff(source,
    name)`` says so (no ``sniff``: the suffix is enough); a zip or folder when ``in_archive(source)``
    says so (``archive_files``: the names it looks for there, for the error text). ``hint``: said
    (``{0}``: the file's name) when a file with one of its suffixes is not recognised. ``picker``: its
    name in the window's format box, (zh, en) (default: ``label``). ``best_effort``: read from public
    third-party descriptions only (the preview says so)."""

    name: str
    label: str
    what: tuple[str, str]
    reader: Any  # "module:function" or the function
    suffixes: tuple[str, ...] = ()
    sniff: Any = None
    in_archive: Any = None
    archive_files: tuple[str, ...] = ()
    hint: tuple[str, str] | None = None
    refusal: Any = None  # (source) -> (zh, en) | None: an archive of this app that cannot be read, and why
    picker: tuple[str, str] | None = None
    best_effort: bool = False

    def read(self, source: Any) -> Any:
        return _resolve(self.reader)(source)

    def claims_file(self, source: Any, name: str) -> bool:
        return self.sniff is None or bool(_resolve(self.sniff)(source, name))

    def claims_archive(self, source: Any) -> bool:
        return self.in_archive is not None and bool(_resolve(self.in_archive)(source))

    def refuses(self, source: Any) -> tuple[str, str] | None:
        return _resolve(self.refusal)(source) if self.refusal is not None else None

    @property
    def choice(self) -> tuple[str, str]:
        return self.picker or (self.label, self.label)


def _resolve(ref: Any) -> Callable[..., Any]:
    if callable(ref):
        return ref
    module, _, attr = str(ref).partition(":")
    return getattr(importlib.import_module(module), attr)


_HERE = __name__.rpartition(".")[0]

#: The formats the app ships, in the order detection asks them and the format box lists them.
BUILT_IN: tuple[HistoryFormat, ...] = (
    HistoryFormat("chatgpt", "ChatGPT", ("ChatGPT 的 conversations.json", "ChatGPT's conversations.json"),
                  f"{_HERE}.chatgpt:read", (".json",), sniff=f"{_HERE}.sniff:is_chatgpt",
                  in_archive=f"{_HERE}.sniff:archive_is_chatgpt",
                  archive_files=("conversations.json", "conversations-000.json")),
    HistoryFormat("claude", "Claude", ("Claude 的 conversations.json", "Claude's conversations.json"),
                  f"{_HERE}.claude:read", (".json",), sniff=f"{_HERE}.sniff:is_claude",
                  in_archive=f"{_HERE}.sniff:archive_is_claude", picker=("Claude（尽力而为）", "Claude (best effort)"),
                  best_effort=True),
    HistoryFormat("deepseek", "DeepSeek", ("DeepSeek 的 conversations.json 或从 DeepSeek 网页保存的对话",
                                           "DeepSeek's conversations.json or a chat saved from DeepSeek's web page"),
                  f"{_HERE}.deepseek:read", (".json",), sniff=f"{_HERE}.sniff:is_deepseek",
                  in_archive=f"{_HERE}.sniff:archive_is_deepseek",
                  picker=("DeepSeek（尽力而为）", "DeepSeek (best effort)"), best_effort=True),
    HistoryFormat("cherry", "Cherry Studio", ("Cherry Studio 的 data.json", "Cherry Studio's data.json"),
                  f"{_HERE}.cherry:read", (".json",), sniff=f"{_HERE}.sniff:is_cherry",
                  in_archive=f"{_HERE}.sniff:archive_is_cherry", archive_files=("data.json",),
                  refusal=f"{_HERE}.sniff:cherry_folder_backup"),
    HistoryFormat("openwebui", "Open WebUI", ("Open WebUI 导出的对话（chat-export-….json）",
                                              "Open WebUI's chat export (chat-export-….json)"),
                  f"{_HERE}.openwebui:read", (".json", ".jsonl", ".ndjson"), sniff=f"{_HERE}.sniff:is_openwebui",
                  in_archive=f"{_HERE}.sniff:archive_is_openwebui", archive_files=("chat-export-….json",),
                  picker=("Open WebUI（尽力而为）", "Open WebUI (best effort)"), best_effort=True),
    HistoryFormat("lobechat", "LobeChat", ("LobeChat 导出的数据（.json）", "LobeChat's data export (.json)"),
                  f"{_HERE}.lobechat:read", (".json",), sniff=f"{_HERE}.sniff:is_lobechat",
                  in_archive=f"{_HERE}.sniff:archive_is_lobechat",
                  picker=("LobeChat（尽力而为）", "LobeChat (best effort)"), best_effort=True),
    HistoryFormat("chatbox", "Chatbox", ("Chatbox 导出的数据（chatbox-exported-data-….json）",
                                         "Chatbox's data export (chatbox-exported-data-….json)"),
                  f"{_HERE}.chatbox:read", (".json",), sniff=f"{_HERE}.sniff:is_chatbox",
                  in_archive=f"{_HERE}.sniff:archive_is_chatbox", archive_files=("chatbox-exported-data-….json",),
                  picker=("Chatbox（尽力而为）", "Chatbox (best effort)"), best_effort=True),
    HistoryFormat("lmstudio", "LM Studio", ("LM Studio 的对话文件（….conversation.json）或它的 conversations 文件夹",
                                            "LM Studio's chat files (….conversation.json) or its conversations folder"),
                  f"{_HERE}.lmstudio:read", (".json",), sniff=f"{_HERE}.sniff:is_lmstudio",
                  in_archive=f"{_HERE}.sniff:archive_is_lmstudio", archive_files=("….conversation.json",),
                  picker=("LM Studio（尽力而为）", "LM Studio (best effort)"), best_effort=True),
    HistoryFormat("jsonl", "JSON Lines", ("JSON Lines（.jsonl）", "JSON Lines (.jsonl)"), f"{_HERE}.jsonl:read",
                  (".jsonl", ".ndjson")),
    HistoryFormat("sonetto", "Sonetto", ("Sonetto 导出的对话（.md）", "a chat exported by Sonetto (.md)"),
                  f"{_HERE}.sonetto_md:read", (".md", ".markdown"), picker=("Sonetto 导出的对话", "Chat exported from Sonetto")),
    HistoryFormat("chatgpt-memories", "ChatGPT", ("ChatGPT 已保存的记忆（.txt）", "ChatGPT's saved memories (.txt)"),
                  f"{_HERE}.saved_memories:read", (".txt",), sniff=f"{_HERE}.sniff:is_saved_memories",
                  hint=("不认识 {0} 的内容：如果它是从 ChatGPT“管理记忆”复制的已保存记忆，请在格式里选"
                        "“ChatGPT 已保存的记忆（文本）”（命令行：--format chatgpt-memories）；聊天记录请选导出的 zip 或 .json",
                        "the content of {0} is not recognised: if it is ChatGPT's saved memories copied from "
                        "“Manage memories”, pick the format “ChatGPT saved memories (text)” (command line: --format "
                        "chatgpt-memories); for chats pick the export's zip or .json"),
                  picker=("ChatGPT 已保存的记忆（文本）", "ChatGPT saved memories (text)")),
)

_REGISTRY: dict[str, HistoryFormat] = {f.name: f for f in BUILT_IN}


def register(fmt: HistoryFormat) -> HistoryFormat:
    """Add a format (after the built-in ones); ``ValueError`` when its name is taken."""
    if fmt.name in _REGISTRY:
        raise ValueError(f"a history format named {fmt.name!r} is registered already")
    if not fmt.suffixes and fmt.in_archive is None:
        raise ValueError(f"history format {fmt.name!r} says neither its file suffixes nor how to tell its archives")
    _REGISTRY[fmt.name] = fmt
    return fmt


def unregister(name: str) -> None:
    """Take a registered format away again (a plug-in unloaded, a test done); built-in ones stay."""
    if any(f.name == name for f in BUILT_IN):
        raise ValueError(f"{name!r} is a built-in history format")
    _REGISTRY.pop(name, None)


def all_formats() -> tuple[HistoryFormat, ...]:
    return tuple(_REGISTRY.values())


def names() -> tuple[str, ...]:
    return tuple(_REGISTRY)


def format_named(name: str) -> HistoryFormat | None:
    return _REGISTRY.get(name)


def label_of(name: str) -> str:
    """How people name the source of format ``name`` (the name itself for one not registered)."""
    fmt = _REGISTRY.get(name)
    return fmt.label if fmt is not None else name
