"""Reading YAML that a memory store or an import hands us, without surprises.

``load_yaml`` is ``yaml.safe_load`` (the C loader when available) plus four guards:

- **No anchors or aliases** (``&name`` / ``*name``): memory files never need them, and a few hundred
  bytes of nested aliases ("billion laughs") expand to gigabytes in anything that walks the data.
  They are refused before anything is built, quickly, with :class:`YamlRefused`.
- **A size limit** (:data:`~.item.MAX_DOCUMENT_BYTES`): a larger document is refused unread.
- **Text stays text**: a plain scalar under a text key (``description``, ``theme``, ``reason`` …)
  keeps its characters — ``description: 12:30`` is ``"12:30"``, not YAML 1.1's sexagesimal 750;
  ``2026-12-01``, ``yes`` and ``1e3`` likewise stay as written.
- **Duplicate top-level keys are kept**: ``load_pairs`` returns every ``(key, value)`` pair of the
  top-level mapping in file order, so a store with the same id twice (or ``1`` and ``'1'``) loses
  neither entry (the caller re-ids one).
"""

from __future__ import annotations

import re
from typing import Any

import yaml
from yaml.nodes import MappingNode, ScalarNode

from ...item import MAX_DOCUMENT_BYTES

_Base = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
_STR = "tag:yaml.org,2002:str"
_NULLS = frozenset({"", "~", "null", "Null", "NULL"})

#: Keys whose plain scalar values are always read as the text written.
TEXT_KEYS = frozenset({
    "description", "theme", "reason", "excerpt", "old_description", "new_description", "old_theme",
    "new_theme", "merged_description", "merged_theme", "device",
})

# Where a YAML node may start with an anchor (&) or an alias (*): line start, after a blank or a
# flow indicator. A match is only a hint (it may sit inside quoted text); the event scan decides.
_MAYBE_ANCHOR = re.compile(r"(?:^|[\s\[\{,])[&*][^\s\[\]{},]", re.MULTILINE)


class YamlRefused(ValueError):
    """The document is one we do not read (aliases / anchors, too large). The message says why, in
    English; ``words`` says the same as a kind and its values (``ImportFormatError.words``'s kinds:
    ``("aliases", source, line)``, ``("too_big", source, megabytes, limit)``), for a front end that
    says it in the person's language."""

    def __init__(self, message: str, *words: str) -> None:
        super().__init__(message)
        self.words = words


class _Loader(_Base):  # type: ignore[misc, valid-type]
    def construct_mapping(self, node: MappingNode, deep: bool = False) -> Any:
        for key_node, value_node in node.value:
            if (isinstance(key_node, ScalarNode) and key_node.value in TEXT_KEYS
                    and isinstance(value_node, ScalarNode) and not value_node.style  # plain ("" from the C loader)
                    and value_node.tag != _STR and value_node.value not in _NULLS):
                value_node.tag = _STR
        return super().construct_mapping(node, deep=deep)


def _check(text: str, source: str) -> None:
    size = len(text.encode("utf-8")) if len(text) * 4 > MAX_DOCUMENT_BYTES else len(text)
    if size > MAX_DOCUMENT_BYTES:
        raise _too_big(source, size)
    if not _MAYBE_ANCHOR.search(text):
        return
    for event in yaml.parse(text, Loader=_Base):
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            mark = event.start_mark
            raise YamlRefused(f"{source} uses YAML anchors or aliases (&name / *name, line {mark.line + 1}); "
                              "memory files never need them, so it is not read", "aliases", source, str(mark.line + 1))


def _too_big(source: str, size: int) -> YamlRefused:
    mb, limit = f"{size / 1e6:.0f}", str(MAX_DOCUMENT_BYTES // 1_000_000)
    return YamlRefused(f"{source} is {mb} MB; memory files larger than {limit} MB are not read", "too_big", source, mb,
                       limit)


#: The UTF-8 byte order mark an editor may put before the text ("UTF-8 with BOM"): not part of it.
BOM = b"\xef\xbb\xbf"


def _decode(data: str | bytes, source: str) -> str:
    if isinstance(data, str):
        return data[1:] if data.startswith("\ufeff") else data
    if len(data) > MAX_DOCUMENT_BYTES:
        raise _too_big(source, len(data))
    # (not "utf-8-sig": that codec is imported on first use, which fails in a process that can no
    # longer read the standard library's files, e.g. the CLI run as another user)
    return (data[len(BOM):] if data.startswith(BOM) else data).decode("utf-8")


def load_yaml(data: str | bytes, source: str = "the document") -> Any:
    """The document's data (see the module docstring). Raises :class:`YamlRefused`,
    ``yaml.YAMLError`` or ``UnicodeDecodeError``."""
    text = _decode(data, source)
    _check(text, source)
    loader = _Loader(text)
    try:
        return loader.get_single_data()
    finally:
        loader.dispose()


def load_pairs(data: str | bytes, source: str = "the document") -> list[tuple[Any, Any]]:
    """Like :func:`load_yaml` for a document that is one mapping: its ``(key, value)`` pairs in
    file order, duplicates included (an empty document: no pairs). ``TypeError`` when the top
    level is something else."""
    text = _decode(data, source)
    _check(text, source)
    loader = _Loader(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return []
        if not isinstance(node, MappingNode):
            kind = type(loader.construct_document(node)).__name__
            raise TypeError(f"top level is a {kind}, expected a mapping of id -> memory")
        loader.flatten_mapping(node)
        return [(loader.construct_object(k, deep=True), loader.construct_object(v, deep=True))
                for k, v in node.value]
    finally:
        loader.dispose()
