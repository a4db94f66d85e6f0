"""memory.yaml stays the seed's format (issue 38 item 13): the app's own fields (``pinned``) are kept
in ``memory.flags.yaml`` beside it, so the seed's own loader (``MemoryItem(**data[id])`` over every
top-level key, with the seed's five arguments) still loads the file after the person pins a memory;
keys a person adds by hand (``note:``) stay in their entry; a file written before (``pinned: true``
in the entry) keeps its pins and is moved to the new layout. Real files, real stores."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

import yaml

from sonetto_desktop.memory import YamlMemoryManager
from waiting import wait_for


@dataclass
class SeedMemoryItem:
    """The seed's ``MemoryItem`` arguments, exactly (gulf-stream-design: ``__init__``)."""

    description: str
    theme: str
    history: list = field(default_factory=list)
    latest_update_time: str | None = None
    hit: int = 0


def seed_load_all(path: Path) -> dict[str, SeedMemoryItem]:
    """The seed's ``YamlMemoryManager._load_all``, as its write-up has it."""
    with path.open(encoding="utf-8") as f:
        data = yaml.safe_load(f) or {}
    return {id: SeedMemoryItem(**data[id]) for id in data}


def test_the_seeds_loader_reads_memory_yaml_after_a_pin(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    try:
        a = mm.add("喜欢夏天和猫", "品味")
        b = mm.add("住在成都", "身份")
        mm.set_field(a, "pinned", True)
        mm.hit(b)
        wait_for(lambda: (yaml.safe_load(mm.path.read_text(encoding="utf-8")) or {}).get(b, {}).get("hit") == 1,
                 what="memory.yaml holds the pin and the hit")
        loaded = seed_load_all(mm.path)  # while the app runs
        assert loaded[a].description == "喜欢夏天和猫" and loaded[b].hit == 1
    finally:
        mm.close()
    assert set(seed_load_all(mm.path)) == {a, b}  # and after it closed
    again = YamlMemoryManager(mm.path, flush_delay=None)
    try:
        assert again.get(a).pinned is True and again.get(b).pinned is False
        again.set_field(a, "pinned", False)
    finally:
        again.close()
    third = YamlMemoryManager(mm.path, flush_delay=None)
    try:
        assert third.get(a).pinned is False  # an unpin is kept too
    finally:
        third.close()


def test_a_hand_edit_keeps_the_pin(tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    try:
        a = mm.add("喜欢夏天和猫", "品味")
        mm.set_field(a, "pinned", True)
        wait_for(lambda: a in (yaml.safe_load(mm.path.read_text(encoding="utf-8")) or {}), what="written")
        mm.close()
        mm = YamlMemoryManager(mm.path)
        text = mm.path.read_text(encoding="utf-8")
        mm.path.write_text(text.replace("喜欢夏天和猫", "喜欢夏天、猫和西瓜"), encoding="utf-8")
        wait_for(lambda: mm.poll_external() or mm.get(a).description == "喜欢夏天、猫和西瓜",
                 what="the hand edit taken in")
        item = mm.get(a)
        assert item.description == "喜欢夏天、猫和西瓜" and item.pinned is True
    finally:
        mm.close()
    assert YamlMemoryManager(mm.path, flush_delay=None).get(a).pinned is True


def test_a_file_with_pinned_in_its_entries_keeps_the_pins_and_moves_them_out(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text("ab12cd34:\n  description: 喜欢夏天和猫\n  theme: 品味\n  history: []\n"
                    "  latest_update_time: '2026-11-01T10:00:00'\n  hit: 0\n  pinned: true\n"
                    "cd56ef78:\n  description: 住在成都\n  theme: 身份\n  history: []\n"
                    "  latest_update_time: '2026-11-01T10:00:00'\n  hit: 2\n  note: 别忘了\n",
                    encoding="utf-8")
    mm = YamlMemoryManager(path)
    try:
        assert mm.get("ab12cd34").pinned is True
    finally:
        mm.close()
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    assert "pinned" not in data["ab12cd34"]  # moved to memory.flags.yaml
    assert data["cd56ef78"]["note"] == "别忘了"  # the person's own key stays theirs
    del data["cd56ef78"]["note"]  # (the seed's loader would trip on it: the person's choice)
    assert {id: SeedMemoryItem(**data[id]) for id in data}["ab12cd34"].theme == "品味"
    again = YamlMemoryManager(path, flush_delay=None)
    try:
        assert again.get("ab12cd34").pinned is True and again.get("cd56ef78").extra == {"note": "别忘了"}
    finally:
        again.close()


def test_a_yaml_export_loads_with_the_seeds_loader_and_keeps_its_pins_beside_it(tmp_path, capsys):
    """``sonetto memory export -o x.yaml`` ("seed format") after a pin: the seed's loader reads it
    (before: TypeError, ``pinned`` in the entry) and the pin is in ``x.flags.yaml``, so importing the
    export into this app pins the memory again; a later export without pins empties that file."""
    from sonetto_desktop.cli import main as cli_main
    from sonetto_desktop.memory.transfer import flags_path, read_import

    store = tmp_path / "memory.yaml"
    mm = YamlMemoryManager(store, flush_delay=None)
    a = mm.add("喜欢夏天和猫", "品味")
    b = mm.add("住在成都", "身份")
    mm.set_field(a, "pinned", True)
    mm.close()
    out = tmp_path / "export.yaml"
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    loaded = seed_load_all(out)
    assert set(loaded) == {a, b} and loaded[a].description == "喜欢夏天和猫"
    assert yaml.safe_load(flags_path(out).read_text(encoding="utf-8")) == {a: {"pinned": True}}
    assert read_import(out)[a].pinned is True and read_import(out)[b].pinned is False
    other = tmp_path / "other" / "memory.db"
    assert cli_main(["--store", str(other), "--create", "import", str(out)]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(other), "export", "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out)["memories"][a]["pinned"] is True

    mm = YamlMemoryManager(store, flush_delay=None)
    mm.set_field(a, "pinned", False)
    mm.close()
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    assert not yaml.safe_load(flags_path(out).read_text(encoding="utf-8"))  # no stale pin left beside it
    assert read_import(out)[a].pinned is False
