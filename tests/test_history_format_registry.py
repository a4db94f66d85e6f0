"""A history format registered from outside the package (history_import/formats.py): the importer
detects its files (alone, sharing a suffix with the built-in JSON formats, and in a zip), reads them,
names the source, lists it in the error texts and in the command line's choices; then it goes again."""

from __future__ import annotations

import json
import zipfile
from datetime import datetime

import pytest

from sonetto_desktop.cli_history import _parser
from sonetto_desktop.cli_words import Words
from sonetto_desktop.history_import import formats
from sonetto_desktop.history_import.model import Conversation, History, HistoryFormatError, Message, import_source
from sonetto_desktop.history_import.plan import make_plan
from sonetto_desktop.history_import.source_files import Source, text_of
from sonetto_desktop.history_import.sources import read_history


def _read_notebook(source: Source) -> History:
    """A made-up app's export: {"notebook": [{"q": ..., "a": ..., "at": ISO time}, ...]}."""
    name = next(n for n in source.names if n.endswith((".json", ".nbk")))
    data = json.loads(text_of(source, name))
    messages = []
    for row in data["notebook"]:
        when = datetime.fromisoformat(row["at"])
        messages += [Message("user", row["q"], when), Message("assistant", row["a"], when)]
    history = History("notebook")
    history.conversations.append(Conversation("nb-1", "Notebook", messages))
    return history


def _is_notebook(source: Source, name: str) -> bool:
    return text_of(source, name, hashed=False).lstrip().startswith('{"notebook"')


NOTEBOOK = formats.HistoryFormat(
    "notebook", "Notebook AI", ("Notebook AI 的 notebook.json", "Notebook AI's notebook.json"), _read_notebook,
    (".json", ".nbk"), sniff=_is_notebook, in_archive=lambda source: source.find("notebook.json") is not None,
    archive_files=("notebook.json",))
EXPORT = {"notebook": [{"q": "我下个月搬去成都", "a": "好的，祝顺利！", "at": "2025-03-02T20:00:00"}]}


@pytest.fixture
def notebook():
    formats.register(NOTEBOOK)
    yield NOTEBOOK
    formats.unregister("notebook")


def test_a_registered_format_is_detected_read_and_named(notebook, tmp_path):
    plain = tmp_path / "export.json"  # a suffix the built-in formats share: its content decides
    plain.write_text(json.dumps(EXPORT, ensure_ascii=False), encoding="utf-8")
    own = tmp_path / "export.nbk"  # a suffix of its own
    own.write_text(json.dumps(EXPORT, ensure_ascii=False), encoding="utf-8")
    packed = tmp_path / "notebook-export.zip"
    with zipfile.ZipFile(packed, "w") as zf:
        zf.writestr("export/notebook.json", json.dumps(EXPORT, ensure_ascii=False))
    for path in (plain, own, packed):
        history = read_history(path)
        assert history.source == "notebook" and history.label == "Notebook AI" and not history.best_effort
        assert [m.text for c in history.conversations for m in c.messages] == ["我下个月搬去成都", "好的，祝顺利！"]
    assert make_plan(read_history(plain)).turns == 1
    assert import_source("import:notebook") == "Notebook AI"
    assert "notebook" in _parser(Words("en")).parse_args(["import", str(own), "--format", "notebook"]).format


def test_the_error_texts_list_a_registered_format(notebook, tmp_path):
    odd = tmp_path / "conversations.json"
    odd.write_text('{"a": 1}', encoding="utf-8")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(odd)
    assert "Notebook AI 的 notebook.json" in caught.value.zh and "Notebook AI's notebook.json" in caught.value.en
    assert "ChatGPT 的 conversations.json" in caught.value.zh  # the built-in ones still listed
    empty = tmp_path / "photos.zip"
    with zipfile.ZipFile(empty, "w") as zf:
        zf.writestr("a.jpg", b"\xff\xd8")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(empty)
    assert "notebook.json" in caught.value.zh and "data.json" in caught.value.en
    odd = tmp_path / "odd.docx"
    odd.write_bytes(b"PK")
    with pytest.raises(HistoryFormatError) as caught:
        read_history(odd)
    assert ".nbk" in caught.value.zh and ".jsonl" in caught.value.en


def test_unregistered_it_is_unknown_again(tmp_path):
    formats.register(NOTEBOOK)
    with pytest.raises(ValueError, match="registered already"):
        formats.register(NOTEBOOK)
    formats.unregister("notebook")
    path = tmp_path / "export.nbk"
    path.write_text(json.dumps(EXPORT), encoding="utf-8")
    with pytest.raises(HistoryFormatError, match="不认识"):
        read_history(path)
    with pytest.raises(HistoryFormatError, match="不认识的格式"):
        read_history(path, "notebook")
    with pytest.raises(ValueError, match="built-in"):
        formats.unregister("chatgpt")
    with pytest.raises(ValueError, match="neither"):
        formats.register(formats.HistoryFormat("bare", "Bare", ("?", "?"), _read_notebook))
