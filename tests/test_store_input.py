"""Issue 11 items 2, 15, 16, 17, 18: bad store files and bad input give a clear error or a safe
repair — never a crash, a hang, or a silently dropped memory."""

from __future__ import annotations

import json
import time

import pytest
import yaml

from memory_stores import BACKENDS, open_store, use_backend
from sonetto_desktop.cli import main as cli_main
from sonetto_desktop.memory import MemoryItem, StoreCorrupt, YamlMemoryManager
from sonetto_desktop.memory.item import MAX_DESCRIPTION_CHARS, MAX_HIT, MAX_REASON_CHARS, TooLong
from sonetto_desktop.memory.transfer import ImportFormatError, read_import

# The command line's words asserted here are its English ones (a test that wants Chinese asks for it).
pytestmark = pytest.mark.usefixtures("english_terminal")

ENTRY = "  theme: 瞬间\n  history: []\n  latest_update_time: '2026-11-01T10:00:00'\n  hit: 0\n"

# 719 bytes of nested aliases: each level refers to the previous one nine times.
LAUGHS = "a: &a [\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\",\"lol\"]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))


# ── item 2: duplicate ids ─────────────────────────────────────────────


@pytest.mark.parametrize("keys", [("ab12cd34", "ab12cd34"), ("1", "'1'")], ids=["same", "int-and-str"])
def test_duplicate_ids_keep_both_memories_and_are_reported(tmp_path, keys, capsys):
    path = tmp_path / "memory.yaml"
    first, second = keys
    path.write_text(f"{first}:\n  description: 第一条\n{ENTRY}{second}:\n  description: 第二条\n{ENTRY}",
                    encoding="utf-8")
    mm = YamlMemoryManager(path)
    assert sorted(r["description"] for r in mm.show()) == ["第一条", "第二条"]
    report = mm.self_check()
    assert report.status == "WARN" and any("duplicate id" in issue for issue in report.issues)
    for n in range(3):  # "two writes later it was gone from every file": not any more
        mm.add(f"新的{n}", "瞬间")
    mm.close()
    texts = [v["description"] for v in yaml.safe_load(path.read_text(encoding="utf-8")).values()]
    assert "第一条" in texts and "第二条" in texts
    backup = (tmp_path / "memory.yaml.bak").read_text(encoding="utf-8")  # the file as it was: both entries
    assert "第一条" in backup and "第二条" in backup
    path.write_text(f"{first}:\n  description: 甲\n{ENTRY}{second}:\n  description: 乙\n{ENTRY}", encoding="utf-8")
    assert cli_main(["--store", str(path), "check"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("WARN") and "duplicate id" in out


# ── item 15: aliases (billion laughs) and oversize documents ─────────


def test_billion_laughs_store_is_refused_quickly(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text(LAUGHS, encoding="utf-8")
    assert len(LAUGHS.encode()) < 800
    started = time.perf_counter()
    mm = YamlMemoryManager(path)
    report = mm.self_check()
    assert report.status == "FAIL" and "anchors or aliases" in report.issues[0]
    with pytest.raises(StoreCorrupt, match="aliases"):
        mm.show()
    assert time.perf_counter() - started < 10  # (a correctness bound, not a benchmark: it used to hang)
    assert path.read_text(encoding="utf-8") == LAUGHS


def test_billion_laughs_import_is_one_clear_line(tmp_path, capsys):
    bomb = tmp_path / "bomb.yaml"
    bomb.write_text(LAUGHS, encoding="utf-8")
    with pytest.raises(ImportFormatError, match="aliases"):
        read_import(bomb)
    assert cli_main(["--store", str(tmp_path / "s.yaml"), "--create", "import", str(bomb)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "aliases" in err and "Traceback" not in err


def test_aliases_inside_quoted_text_are_not_aliases(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text("ab12cd34:\n  description: '比分 *2 & 3, 见 &附录'\n" + ENTRY, encoding="utf-8")
    assert YamlMemoryManager(path).get("ab12cd34").description == "比分 *2 & 3, 见 &附录"


def test_oversize_import_is_refused_unread(tmp_path, monkeypatch):
    import sonetto_desktop.memory.transfer as transfer

    big = tmp_path / "big.json"
    big.write_text(json.dumps({"a": {"description": "x" * 5000, "theme": "t"}}), encoding="utf-8")
    monkeypatch.setattr(transfer, "MAX_DOCUMENT_BYTES", 4096)
    with pytest.raises(ImportFormatError, match="not read"):
        read_import(big)


# ── item 16: numbers that do not fit ─────────────────────────────────


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("hit", ["1e400", "-1e400", "99999999999999999999999999"])
def test_json_import_of_absurd_hits_is_clamped_not_a_crash(tmp_path, backend, hit, capsys):
    path = tmp_path / "in.json"
    path.write_text('{"a1": {"description": "小林喜欢猫", "theme": "品味", "hit": %s}}' % hit, encoding="utf-8")
    store = tmp_path / ("s.db" if backend == "sqlite" else "s.yaml")
    assert cli_main(["--store", str(store), "--create", "import", str(path)]) == 0, capsys.readouterr().err
    assert cli_main(["--store", str(store), "list"]) == 0
    out = capsys.readouterr().out
    assert "小林喜欢猫" in out and ("hit 0" in out or f"hit {MAX_HIT}" in out)


@pytest.mark.parametrize("value", [".inf", "-.inf", ".nan", "99999999999999999999999"])
def test_yaml_store_with_absurd_hit_opens_and_migrates(tmp_path, value):
    (tmp_path / "memory.yaml").write_text(f"ab12cd34:\n  description: 小林\n  theme: 瞬间\n  hit: {value}\n",
                                          encoding="utf-8")
    mm = YamlMemoryManager(tmp_path / "memory.yaml")
    report = mm.self_check()
    assert report.ok and any("impossible hit count" in r for r in report.repaired)
    assert 0 <= mm.get("ab12cd34").hit <= MAX_HIT
    mm.hit("ab12cd34")
    mm.close()
    from sonetto_desktop.memory.stores.migrate import open_store as open_data_dir

    db, migrated = open_data_dir(tmp_path, "sqlite")  # a hit > 2**63 made this fail before
    assert migrated is not None and migrated.ok and db.count() == 1
    db.close()


def test_sqlite_write_of_a_huge_hit_is_clamped(tmp_path):
    mm = open_store("sqlite", tmp_path)
    mm.import_items({"a1": MemoryItem("小林", "瞬间", hit=10**30)})
    assert mm.get("a1").hit == MAX_HIT
    mm.hit("a1")
    assert mm.get("a1").hit == MAX_HIT
    mm.close()


# ── item 17: descriptions that are not text ──────────────────────────


def test_yaml_scalars_under_text_keys_stay_the_text_written(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text(
        "t1:\n  description: 12:30\n" + ENTRY + "t2:\n  description: 2026-12-01\n" + ENTRY
        + "t3:\n  description: yes\n" + ENTRY + "t4:\n  description: 1e3\n  theme: 12:30\n  hit: 0\n",
        encoding="utf-8")
    mm = YamlMemoryManager(path)
    got = {mid: mm.get(mid).description for mid in ("t1", "t2", "t3", "t4")}
    assert got == {"t1": "12:30", "t2": "2026-12-01", "t3": "yes", "t4": "1e3"}
    assert mm.get("t4").theme == "12:30"
    assert mm.get("t2").latest_update_time == "2026-11-01T10:00:00"  # times elsewhere still parse


def test_yaml_import_keeps_a_time_description_as_written(tmp_path):
    path = tmp_path / "in.yaml"
    path.write_text("a1:\n  description: 12:30\n  theme: 作息\n", encoding="utf-8")
    assert read_import(path)["a1"].description == "12:30"  # was imported as 750


@pytest.mark.asyncio
async def test_a_list_or_mapping_description_is_kept_as_text_and_recall_works(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text("l1:\n  description: [喜欢猫, 喜欢狗]\n" + ENTRY + "m1:\n  description: {爱好: 爬山}\n" + ENTRY
                    + "b1:\n  description: true\n" + ENTRY, encoding="utf-8")
    mm = YamlMemoryManager(path)
    report = mm.self_check()
    assert report.ok and any("was a list" in r for r in report.repaired)
    assert mm.get("l1").description == "喜欢猫；喜欢狗" and "爬山" in mm.get("m1").description
    assert all(isinstance(r["description"], str) for r in mm.show())
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    found = MechanicalRetriever(mm).retrieve("我喜欢的猫")  # raised TypeError on every recall before
    assert isinstance(found, list)
    mm.close()


@pytest.mark.parametrize("name, text", [
    ("in.json", '{"a1": {"description": "喜欢猫", "theme": "品味"}}'),
    ("in.md", "## 品味\n- 喜欢猫\n"),
    ("in.yaml", "a1:\n  description: 喜欢猫\n  theme: 品味\n"),
])
def test_import_reads_a_file_saved_with_a_byte_order_mark(tmp_path, name, text):
    """Windows Notepad's "UTF-8 with BOM": the file imports as it would without (a .json was
    "cannot be parsed: Unexpected UTF-8 BOM", a .md said its first memory came before any heading)."""
    path = tmp_path / name
    path.write_text("\ufeff" + text, encoding="utf-8")
    items = read_import(path)
    assert [(i.description, i.theme) for i in items.values()] == [("喜欢猫", "品味")]


def test_import_rejects_a_description_that_is_a_list(tmp_path):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"a1": {"description": ["甲", "乙"], "theme": "t"}}), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="not text"):
        read_import(path)


# ── item 18: size limits ─────────────────────────────────────────────


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_5_mb_memory_or_reason_is_refused_and_nothing_grows(backend, tmp_path, request):
    mm = open_store(use_backend(request, backend), tmp_path)  # the server started first, in any order
    a = mm.add("小林喜欢猫", "品味")
    huge = "很" * 5_000_000
    with pytest.raises(TooLong, match="limit"):
        mm.add(huge, "品味")
    with pytest.raises(TooLong):
        mm.update(a, "r", new_description=huge)
    with pytest.raises(TooLong):
        mm.update(a, huge, new_description="小林很喜欢猫")
    with pytest.raises(TooLong):
        mm.delete(a, huge)
    with pytest.raises(TooLong):
        mm.add("x", "主" * 500)
    mm.update(a, "r" * MAX_REASON_CHARS, new_description="猫" * MAX_DESCRIPTION_CHARS)  # the limits themselves fit
    assert mm.count() == 1 and mm.list_trash() == []
    mm.close()
    total = sum(p.stat().st_size for p in tmp_path.iterdir() if p.is_file())
    assert total < 1_000_000  # a 5 MB reason grew the store to 31 MB before


def test_cli_and_import_refuse_oversize_text(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "长" * (MAX_DESCRIPTION_CHARS + 1), "--theme", "t"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "limit" in err
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"a1": {"description": "长" * 100_000, "theme": "t"}}), encoding="utf-8")
    assert cli_main(["--store", str(store), "import", str(path)]) == 2
    assert "limit" in capsys.readouterr().err


def test_self_check_warns_about_an_oversize_stored_memory(tmp_path):
    path = tmp_path / "memory.yaml"
    path.write_text("a1:\n  description: " + "长" * (MAX_DESCRIPTION_CHARS + 10) + "\n" + ENTRY, encoding="utf-8")
    report = YamlMemoryManager(path).self_check()
    assert report.status == "WARN" and "limit" in report.issues[0]
    assert YamlMemoryManager(path).count() == 1  # kept, never cut


def test_a_date_written_without_a_time_keeps_that_date_in_an_import_and_in_the_store(tmp_path):
    """``latest_update_time: 2024-05-01`` (a date, as a person writes one in memory.yaml) is a YAML date,
    not text: it was taken for a missing time and set to now."""
    text = "a1:\n  description: 喜欢猫\n  theme: 品味\n  latest_update_time: 2024-05-01\n  hit: 2\n"
    incoming = tmp_path / "in.yaml"
    incoming.write_text(text, encoding="utf-8")
    assert read_import(incoming)["a1"].latest_update_time == "2024-05-01T00:00:00"
    path = tmp_path / "memory.yaml"
    path.write_text(text, encoding="utf-8")
    mm = YamlMemoryManager(path)
    assert mm.get("a1").latest_update_time == "2024-05-01T00:00:00"
    mm.close()
