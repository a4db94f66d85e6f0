"""Errors of the memory domain."""

from __future__ import annotations

from typing import Any, Iterator

from ..redaction import redact, scrub  # noqa: F401 - re-exported for the domain


class MemoryError_(Exception):
    """Base class of memory-store errors (named with a trailing underscore: ``MemoryError`` is a builtin)."""


class MemoryNotFound(MemoryError_, KeyError):
    """No memory (or trash entry) with this id."""

    def __init__(self, memory_id: str, where: str = "memory store") -> None:
        self.memory_id = memory_id
        self.where = where  # "memory store" or "trash"
        super().__init__(f"no memory with id {memory_id!r} in the {where}")

    def __str__(self) -> str:  # KeyError would repr() the message
        return self.args[0]


class StoreCorrupt(MemoryError_):
    """The store cannot be parsed. Nothing is written over it until the user repairs or restores it.
    ``words``: ``detail`` as a kind and its values, when it is our own wording (``ImportFormatError.words``'s
    kinds, and ``not_regular`` / ``link`` / ``too_large`` of a store file), for a front end that says it in
    the person's language; empty when the detail is another's (the YAML parser's, SQLite's)."""

    def __init__(self, path: str, detail: str, backup: str | None = None, words: tuple[str, ...] = ()) -> None:
        self.path = path
        self.detail = detail
        self.backup = backup
        self.words = tuple(words)
        hint = f"; the last good version is in {backup}" if backup else ""
        super().__init__(f"memory store {path} cannot be read: {detail}{hint}")


class StoreReadOnly(MemoryError_):
    """The store can be read but not written (a read-only folder, file or mount). ``folder``: the data
    folder that cannot be written, when that is why (it turned read-only while the store was open)."""

    def __init__(self, path: str, detail: str = "", folder: str = "") -> None:
        self.path = path
        self.folder = folder
        where = f"the folder {folder} cannot be written" if folder else ""
        detail = "; ".join(part for part in (where, detail) if part)
        super().__init__(f"memory store {path} is read-only{': ' + detail if detail else ''}; "
                         "memories can be listed and exported, not changed")


class StoreBusy(MemoryError_, TimeoutError):
    """Another process held the store's lock longer than a waiter waits (``stores/lock_wait.py``):
    nothing was changed. An ``OSError`` (``TimeoutError``): a background rewrite tries again later."""

    def __init__(self, path: str, seconds: float) -> None:
        self.path = path
        self.seconds = seconds
        super().__init__(f"memory store {path} was held by another process for over {seconds:.0f} s; "
                         "nothing was changed")


class StoreWriteFailed(MemoryError_):
    """A write could not be saved (disk full, I/O error). Nothing of it was kept; the store is intact."""

    def __init__(self, path: str, detail: str) -> None:
        self.path = path
        self.detail = detail
        super().__init__(f"could not save to memory store {path}: {detail}; nothing was changed")


class StoreUnavailable(MemoryError_):
    """The data folder (or store file) cannot be used at all: the message says why and where.
    ``zh`` is the same for a Chinese UI."""

    def __init__(self, path: str, detail: str, zh: str = "") -> None:
        self.path = path
        self.detail = detail
        self.zh = zh or f"无法使用数据文件夹 {path}：{detail}"
        super().__init__(f"cannot use the data folder {path}: {detail}")


def describe_os_error(exc: BaseException) -> str:
    """A short reason for a failed file operation, for a person."""
    import errno

    code = getattr(exc, "errno", None)
    if code == errno.ENOSPC or "disk is full" in str(exc) or "database or disk is full" in str(exc):
        return "the disk is full"
    if code == errno.EFBIG:
        return "the file is larger than the system allows (file size limit)"
    if code == errno.EROFS or "readonly database" in str(exc) or "read-only" in str(exc):
        return "the disk or folder is read-only"
    if code in (errno.EACCES, errno.EPERM):
        return "permission denied"
    if code == errno.ENOTDIR or code == errno.EEXIST:
        return "a file is in the way where a folder should be"
    reason = getattr(exc, "strerror", None) or str(exc) or type(exc).__name__
    return str(reason)


def api_key_of(llm: Any) -> str:
    """The API key a chat model sends ("" when it has none we can see), so error texts can scrub it."""
    key = getattr(llm, "openai_api_key", None)
    if hasattr(key, "get_secret_value"):
        key = key.get_secret_value()
    return str(key or "")




class MemoryLocked(MemoryError_):
    """The person locked this memory: only they may change or delete it (the agent and other apps may not)."""

    def __init__(self, memory_id: str, actor: str) -> None:
        self.memory_id = memory_id
        self.actor = actor
        super().__init__(f"memory {memory_id!r} is locked by the user; {actor!r} may not change or delete it")


class FieldNotSettable(MemoryError_, PermissionError):
    """``actor`` may not change this field of a memory (its schema says who may: ``Field.set_by``)."""

    def __init__(self, memory_id: str, name: str, actor: str) -> None:
        self.memory_id = memory_id
        self.field = name
        self.actor = actor
        super().__init__(f"{actor!r} may not change {name!r} of memory {memory_id!r}; only the user may")


class StoreReopening(MemoryError_):
    """The memory store is being closed or opened again (another data folder or storage chosen in the
    settings; a copy into a new folder may take a while): nothing was done, it can be made again once
    the store is open."""

    def __init__(self) -> None:
        super().__init__("the memory store is being closed or opened again; nothing was changed, try again")


class StoreOffline(MemoryError_):
    """The memory server cannot be reached: the store is read-only (its local copy) until it is back.
    Nothing was written; the change can be made again once the server answers."""

    def __init__(self, where: str, detail: str) -> None:
        self.where = where
        self.detail = detail
        self.zh = f"记忆服务器暂时连不上，现在只能查看、不能修改（{where}：{detail}）"
        super().__init__(f"记忆服务器暂时连不上，只能查看 / the memory server {where} cannot be reached ({detail});"
                         " read-only until it is back")


class DontRememberRefused(MemoryError_):
    """The text matches an entry of the person's "don't remember" list: an app may not store it.
    Its text names the entry, for the person's own views (the window, the command line); what reaches
    another app or a log says only ``PUBLIC`` (``without_private``): the entry is the person's."""

    #: What may be said outside the person's own views: never the entry's words.
    PUBLIC = ("用户要求不要记住这类内容，没有写入 / the person asked not to remember things like this: "
              "nothing was stored (do not store it in other words)")

    def __init__(self, entry: str) -> None:
        self.entry = entry
        super().__init__(f"the user asked not to remember this ({entry!r})")


def without_private(exc: BaseException) -> str | None:
    """What to say of ``exc`` outside the person's own views (another app, a log) when its text holds
    something private: ``DontRememberRefused.PUBLIC`` if it or a cause is a don't-remember refusal; None
    when its text may be said as it is."""
    for cause in causes(exc):
        if isinstance(cause, DontRememberRefused):
            return DontRememberRefused.PUBLIC
    return None


class SecretRefused(MemoryError_):
    """The text holds a secret value (a password, a code, a key, an ID or card number: ``secret_filter``):
    an app may not store it."""

    #: ``secret_filter``'s kinds in the English half of the message (both halves are what another app reads).
    ENGLISH = {"密码": "a password", "验证码": "a verification code", "密钥": "a key", "私钥": "a private key",
               "身份证号": "an ID number", "证件号": "a document number", "银行卡号": "a bank card number",
               "银行账号": "a bank account number"}

    def __init__(self, kind: str) -> None:
        self.kind = kind
        super().__init__(f"疑似包含{kind}，秘密信息不会写进记忆 / this looks like {self.ENGLISH.get(kind, 'a secret')}; "
                         "secrets are never stored: leave the value out")


def causes(exc: BaseException) -> Iterator[BaseException]:
    """``exc`` and the exceptions it was raised from or while handling, each once."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


class ProposalNotApplicable(MemoryError_, ValueError):
    """A held call in the review inbox cannot be carried out; nothing was written and it stays waiting.
    ``tool``: its tool when this version does not know it (``unknown``), else the call was planned
    again and refused (``why``: the refusal, worded for the model; the memories changed meanwhile)."""

    def __init__(self, proposal_id: str, tool: str, why: str = "", *, unknown: bool = False) -> None:
        self.proposal_id = proposal_id
        self.tool = tool
        self.why = why
        self.unknown = unknown
        detail = f"{tool!r} is not a tool this version knows" if unknown else f"{tool} refused it: {why}"
        super().__init__(f"proposal {proposal_id} cannot be applied: {detail}")


class ProposalOutdated(ProposalNotApplicable):
    """A held change of memories the person (or anything else) changed after it was proposed: carried
    out as it is, it would write over their newer words. ``clashes``: (memory id, its text now, its text
    when proposed) for each that changed; nothing was written and it stays waiting (rewording it, the
    person's own words, is written over what they were shown). ``reworded``: it was the person's
    rewording, and the memory changed after they were shown it (the third text of each clash)."""

    def __init__(self, proposal_id: str, tool: str, clashes: "list[tuple[str, str, str]]", *,
                 reworded: bool = False) -> None:
        self.clashes = tuple(tuple(clash) for clash in clashes)
        self.reworded = reworded
        super().__init__(proposal_id, tool, "the memories it concerns changed after they were shown" if reworded
                         else "the memories it concerns changed after it was proposed")


class ChangedMeanwhile(MemoryError_):
    """A write that said what it expected a memory to hold (the texts the person saw in a dialog) found
    something else there: it was changed meanwhile (Sonetto's writer, the command line, another app),
    and nothing was written. ``clashes``: each field that differs, as (memory id, field, the value now,
    the value expected); ``memory_id``, ``field``, ``now`` and ``expected`` are the first one's."""

    def __init__(self, clashes: "list[tuple[str, str, str, str]] | tuple[tuple[str, str, str, str], ...]") -> None:
        if not clashes:
            raise ValueError("ChangedMeanwhile needs at least one clash")
        self.clashes = tuple(tuple(clash) for clash in clashes)
        self.memory_id, self.field, self.now, self.expected = self.clashes[0]
        named = ", ".join(f"the {field} of memory {memory_id!r}" for memory_id, field, _, _ in self.clashes)
        super().__init__(f"{named} changed meanwhile (not what was expected); nothing was written")

    def now_of(self, memory_id: str, field: str) -> str | None:
        """The value ``field`` of ``memory_id`` has now, when it is one of the clashes; else None."""
        for mid, name, now, _ in self.clashes:
            if mid == memory_id and name == field:
                return now
        return None

    @property
    def ids(self) -> tuple[str, ...]:
        """The memories that changed, each once, in order."""
        return tuple(dict.fromkeys(mid for mid, _, _, _ in self.clashes))


class ImportFormatError(ValueError):
    """The file is not a memory export we can read (``memory/transfer.py``). The message says why, in
    English (the command line's words); ``words`` is the same as a kind and its values, for a front
    end that says it in the person's language (``presentation.errors``: the window's Chinese)."""

    def __init__(self, message: str, *words: str) -> None:
        super().__init__(message)
        self.words = words
