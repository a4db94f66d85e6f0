"""`sonetto memory ...`: a real subprocess round trip, and the transfer formats."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
import yaml

from memory_stores import LOCAL_BACKENDS as BACKENDS, open_store
from sonetto_desktop.cli import main as cli_main
from sonetto_desktop.memory import transfer
from sonetto_desktop.memory.transfer import ImportFormatError, export_markdown, import_file, parse_markdown

# The command line's words asserted here are its English ones (a test that wants Chinese asks for it).
pytestmark = pytest.mark.usefixtures("english_terminal")


def _run(*args):
    return subprocess.run(
        [sys.executable, "-m", "sonetto_desktop", "memory", *args], capture_output=True, text=True, timeout=60
    )


def test_cli_round_trip_export_import(tmp_path):
    store = tmp_path / "a" / "memory.yaml"
    for desc, theme in [("小林喜欢猫", "品味"), ("小林住在上海", "身份"), ("小林会弹钢琴", "音乐")]:
        result = _run("--store", str(store), "--create", "add", desc, "--theme", theme)
        assert result.returncode == 0, result.stderr
    listing = _run("--store", str(store), "list")
    assert "## 品味 (1)" in listing.stdout and "小林住在上海" in listing.stdout
    for fmt in ("yaml", "json", "md"):
        out = tmp_path / f"export.{fmt}"
        assert _run("--store", str(store), "export", "-o", str(out)).returncode == 0
        target = tmp_path / f"b-{fmt}" / "memory.db"
        first = _run("--store", str(target), "--create", "import", str(out))
        assert first.returncode == 0 and "imported 3" in first.stdout, first.stderr
        second = _run("--store", str(target), "import", str(out))
        assert "imported 0" in second.stdout and "skipped 3" in second.stdout
        src, dst = open_store("yaml", store.parent), open_store("sqlite", target.parent)
        assert {(r["id"], r["description"], r["theme"]) for r in src.show()} == {
            (r["id"], r["description"], r["theme"]) for r in dst.show()
        }
        src.close()
        dst.close()
    check = _run("--store", str(store), "check")
    assert check.returncode == 0 and check.stdout.startswith("OK: 3 memories")


def test_cli_errors_are_clear(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert cli_main(["--store", str(store), "--create", "import", str(bad)]) == 2
    assert "cannot be parsed" in capsys.readouterr().err
    assert cli_main(["--store", str(store), "import", str(tmp_path / "x.txt")]) == 2
    assert "unknown file type" in capsys.readouterr().err
    assert not store.exists()  # a refused import creates nothing
    assert cli_main(["--store", str(store), "--create", "add", " ", "--theme", "t"]) == 2
    assert "non-empty" in capsys.readouterr().err
    store.write_text("[corrupt", encoding="utf-8")
    assert cli_main(["--store", str(store), "check"]) == 1
    assert "FAIL" in capsys.readouterr().out
    assert store.read_text(encoding="utf-8") == "[corrupt"


@pytest.mark.parametrize("backend", BACKENDS)
def test_markdown_export_is_readable_and_reimportable(backend, tmp_path):
    mm = open_store(backend, tmp_path)
    a = mm.add("小林喜欢猫", "品味")
    mm.hit(a)
    mm.add("小林\n住在上海", "身份")
    text = export_markdown(mm)
    assert text.startswith("# MEMORY") and "## 品味" in text and "- 小林喜欢猫" in text
    items = parse_markdown(text)
    assert items[a].description == "小林喜欢猫" and items[a].hit == 1 and items[a].theme == "品味"
    assert any(it.description == "小林\n住在上海" for it in items.values())  # line breaks kept (escaped)
    assert "- 小林\\n住在上海 <!--" in text  # one memory a line
    mm.close()


def test_import_rejects_entries_without_text(tmp_path):
    path = tmp_path / "in.yaml"
    path.write_text(yaml.safe_dump({"x1": {"description": "", "theme": "t"}}), encoding="utf-8")
    mm = open_store("yaml", tmp_path / "s")
    with pytest.raises(ImportFormatError, match="x1"):
        import_file(mm, path)
    assert mm.count() == 0
    path2 = tmp_path / "in.json"
    path2.write_text(json.dumps([1, 2]), encoding="utf-8")
    with pytest.raises(ImportFormatError, match="mapping"):
        import_file(mm, path2)


@pytest.mark.parametrize("backend", BACKENDS)
def test_import_rejects_a_theme_that_is_not_text_and_stores_nothing(backend, tmp_path, capsys):
    path = tmp_path / "in.json"
    path.write_text(json.dumps({"a1": {"description": "小林喜欢猫", "theme": ["品味"]}}), encoding="utf-8")
    store = tmp_path / ("s.db" if backend == "sqlite" else "s.yaml")
    assert cli_main(["--store", str(store), "--create", "import", str(path)]) == 2
    assert "a1" in capsys.readouterr().err
    assert not store.exists()  # refused before anything was opened or created


def test_markdown_import_tolerates_a_bad_hit_comment():
    items = parse_markdown("## 品味\n- 小林喜欢猫 <!-- id:ab12 hit:lots -->\n")
    assert items["ab12"].description == "小林喜欢猫" and items["ab12"].hit == 0


def test_import_refuses_a_json_file_that_is_not_a_memory_export(tmp_path):
    path = tmp_path / "settings.json"
    path.write_text(json.dumps({"model": "gpt-4o", "theme": "dark"}), encoding="utf-8")
    mm = open_store("yaml", tmp_path / "s")
    with pytest.raises(ImportFormatError, match="not a memory"):
        import_file(mm, path)
    assert mm.count() == 0


def test_a_mistyped_store_is_refused_not_created(tmp_path, capsys):
    typo = tmp_path / "memroy.yaml"
    assert cli_main(["--store", str(typo), "list"]) == 2
    assert "does not exist" in capsys.readouterr().err and not typo.exists()
    assert cli_main(["--store", str(typo), "--create", "list"]) == 0
    assert "no memories" in capsys.readouterr().out and typo.exists()  # an empty store says so


def test_update_delete_restore_are_written_as_the_cli(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林住在成都", "--theme", "身份"]) == 0
    mid = capsys.readouterr().out.strip()
    assert cli_main(["--store", str(store), "update", mid, "小林搬到了上海", "--reason", "搬家"]) == 0
    assert cli_main(["--store", str(store), "update", mid, "小林搬到了上海"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == f"updated {mid}" and lines[1].startswith("to undo: sonetto memory undo ui-")
    assert lines[2:] == ["unchanged"]  # (nothing changed: nothing to undo)
    assert cli_main(["--store", str(store), "delete", mid]) == 0
    assert cli_main(["--store", str(store), "trash"]) == 0
    assert mid in capsys.readouterr().out
    assert cli_main(["--store", str(store), "restore", mid]) == 0
    mm = open_store("yaml", tmp_path)
    history = mm.get(mid).history
    assert [(e["action"], e["actor"]) for e in history] == [("create", "cli"), ("update", "cli"), ("restore", "cli")]
    assert history[1]["reason"] == "搬家" and mm.get(mid).description == "小林搬到了上海"
    mm.close()


def test_terminal_escapes_in_memory_text_are_shown_not_obeyed(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "红色\x1b[31m警告\x1b]0;title\x07", "--theme", "测试"]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(store), "list"]) == 0
    out = capsys.readouterr().out
    assert "\x1b" not in out and "\x07" not in out
    assert "\\x1b[31m" in out  # visible, harmless


def test_a_direction_control_in_a_memory_does_not_turn_the_listing_around(tmp_path, capsys):
    """"网址\u202e见下" listed raw: a terminal drew "网址" then the rest of the line reversed, the hit count
    and date too. Shown as a visible escape, as other controls are; the memory keeps what was written."""
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "网址\u202e见下", "--theme", "资料\u2067右"]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(store), "list"]) == 0
    out = capsys.readouterr().out
    assert not set(out) & set("\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"), out
    assert "网址\\u202e见下" in out and "资料\\u2067右" in out
    assert [it.description for it in open_store("yaml", tmp_path).all_items().values()] == ["网址\u202e见下"]


def test_a_closed_pipe_ends_quietly(tmp_path):
    store = tmp_path / "memory.yaml"
    mm = open_store("yaml", tmp_path)
    from sonetto_desktop.memory import MemoryItem
    mm.import_items({f"m{i:04d}": MemoryItem(f"记忆{i}" * 20, f"主题{i % 7}") for i in range(3000)})
    mm.close()
    pipeline = subprocess.run(
        f"{sys.executable} -m sonetto_desktop memory --store {store} list | head -n 1", shell=True,
        capture_output=True, text=True, timeout=120)
    assert pipeline.stdout.startswith("## ") and "Broken pipe" not in pipeline.stderr
    assert "Traceback" not in pipeline.stderr


def test_the_top_level_help_lists_every_command(capsys):
    from sonetto_desktop.__main__ import main as sonetto_main

    with pytest.raises(SystemExit) as exit_info:
        sonetto_main(["--help"])
    assert exit_info.value.code == 0
    out = capsys.readouterr().out
    for command in ("sonetto memory", "sonetto mcp", "sonetto history", "sonetto mcp token"):
        assert command in out


@pytest.mark.parametrize("command", [["list"], ["trash"], ["check"], ["export"], ["list", "--theme", "品味"]])
def test_reading_a_new_data_dir_creates_nothing(tmp_path, monkeypatch, capsys, command):
    data = tmp_path / "new-data"
    data.mkdir()
    monkeypatch.setenv("SONETTO_DATA_DIR", str(data))
    assert cli_main(command) == 0
    said = capsys.readouterr()
    assert "no memories yet" in said.out + said.err and str(data) in said.out + said.err
    assert list(data.iterdir()) == []  # no store, lock or log file was made
    assert cli_main(["add", "用户喜欢猫", "--theme", "品味"]) == 0  # a write does make the store
    capsys.readouterr()
    assert cli_main(["list"]) == 0 and "用户喜欢猫" in capsys.readouterr().out


def test_mcp_token_prints_the_token_the_settings_show(tmp_path, capsys):
    from sonetto_desktop.config.secrets import mcp_token
    from sonetto_desktop.mcp_server.entry import main as mcp_main

    assert mcp_main(["token"]) == 0
    said = capsys.readouterr()
    token = said.out.strip()
    assert len(token) >= 40 and token == mcp_token(create=False)  # made on first use, the same one
    assert "mcp_token" in said.err  # where it is kept (a file here: the tests have no keyring)
    assert mcp_main(["token"]) == 0 and capsys.readouterr().out.strip() == token  # stable
    assert mcp_main(["token", "--new"]) == 0
    new = capsys.readouterr().out.strip()
    assert new != token and new == mcp_token(create=False)


LAUGHS = "a: &a [\"lol\",\"lol\",\"lol\"]\n" + "".join(
    f"{chr(98 + i)}: &{chr(98 + i)} [{','.join(['*' + chr(97 + i)] * 9)}]\n" for i in range(8))


@pytest.mark.parametrize("bad", ["bomb.yaml", "long.json", "broken.yaml"])
def test_a_refused_import_leaves_every_file_as_it_was(tmp_path, capsys, bad):
    """Issue 26 item 5: the store (in a layout of its own: no history, keys in another order) and
    its folder are byte-identical after a refused import, and no file appears."""
    data = tmp_path / "data"
    data.mkdir()
    (data / "memory.yaml").write_text("ab12cd34:\n  theme: 品味\n  description: 喜欢夏天和猫\n"
                                      "  latest_update_time: 2026-11-01 10:00:00\n", encoding="utf-8")
    (tmp_path / "bomb.yaml").write_text(LAUGHS, encoding="utf-8")
    (tmp_path / "long.json").write_text(json.dumps({"x": {"description": "长" * 6000, "theme": "t"}}),
                                        encoding="utf-8")
    (tmp_path / "broken.yaml").write_text("x: [unclosed\n", encoding="utf-8")
    before = {p.name: p.read_bytes() for p in data.iterdir()}
    assert cli_main(["--store", str(data / "memory.yaml"), "import", str(tmp_path / bad)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and ("anchors or aliases" in err or "limit" in err or "parsed" in err)
    assert {p.name: p.read_bytes() for p in data.iterdir()} == before


def test_cli_failures_say_what_the_window_says_in_english(tmp_path, capsys):
    """A failed command is an operation that failed: it prints presentation.errors' sentence (English,
    the app's own table), with the failure's own words (the id) where the sentence leaves them out;
    the app's Chinese wording is back once the command is done."""
    from sonetto_desktop.memory.errors import MemoryNotFound
    from sonetto_desktop.presentation.errors import describe_error

    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林喜欢猫", "--theme", "品味"]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(store), "delete", "nope1234"]) == 2
    assert capsys.readouterr().err == ("error: This memory can't be found; it may have been deleted or moved. "
                                       "(no memory with id 'nope1234' in the memory store)\n")
    assert cli_main(["--store", str(store), "undo", "ui-nothing"]) == 2
    assert capsys.readouterr().err == "error: Nothing is left to undo. (turn 'ui-nothing' left no change to undo)\n"
    assert cli_main(["--store", str(store), "add", "", "--theme", "品味"]) == 2
    assert capsys.readouterr().err.startswith("error: Invalid input: ")
    assert describe_error(MemoryNotFound("x")) == "找不到这条记忆，它可能已被删除或移动。"  # the translator was put back


@pytest.mark.parametrize("backend", ["sqlite", "yaml"])
def test_export_onto_the_store_itself_is_refused_and_the_store_stays(backend, tmp_path, capsys):
    """`export -o` naming the store's own file replaced the database with the export (and the trash
    and the change log with it), and said it exported."""
    store = tmp_path / ("memory.db" if backend == "sqlite" else "memory.yaml")
    assert cli_main(["--store", str(store), "--create", "add", "小林喜欢猫", "--theme", "品味"]) == 0
    for target in (store, store.with_name(store.name + ".log"), tmp_path / "." / store.name):
        assert cli_main(["--store", str(store), "export", "--format", "json", "-o", str(target)]) != 0
    assert "is the memory store itself" in capsys.readouterr().err
    assert cli_main(["--store", str(store), "list"]) == 0
    assert "小林喜欢猫" in capsys.readouterr().out
    assert cli_main(["--store", str(store), "export", "-o", str(tmp_path / "elsewhere.json")]) == 0


def test_listing_a_named_store_files_trash_deletes_none_of_it(tmp_path, capsys, monkeypatch):
    """The app's trash retention is its own store's housekeeping: a command naming another store
    file (a backup) deleted that file's trash older than 30 days for good, then said it was empty."""
    from sonetto_desktop.memory import YamlMemoryManager
    from sonetto_desktop.memory.stores import crud

    store = tmp_path / "backup" / "memory.yaml"
    mm = YamlMemoryManager(store, flush_delay=None)
    old = mm.add("两个月前删掉的", "身份", actor="cli")
    monkeypatch.setattr(crud, "now_iso", lambda: "2026-01-01T10:00:00")  # deleted long ago
    mm.delete(old, "不要了")
    monkeypatch.undo()
    mm.close()
    for command in (["trash"], ["list"], ["check"], ["add", "新的一条", "--theme", "身份"]):
        assert cli_main(["--store", str(store), *command]) == 0
    assert old in capsys.readouterr().out
    again = YamlMemoryManager(store, flush_delay=None)
    assert [t["id"] for t in again.list_trash()] == [old]
    again.close()


def _exported_memories(store, capsys) -> dict:
    capsys.readouterr()
    assert cli_main(["--store", str(store), "export", "--format", "json"]) == 0
    return json.loads(capsys.readouterr().out)["memories"]


def test_an_import_file_that_repeats_an_id_keeps_both_entries_and_says_so(tmp_path, capsys):
    """A repeated key (YAML ``1`` and ``'1'``, JSON's same key twice) or a Markdown line copied with
    its ``id:`` comment: both entries are imported, the later under ``<id>-2``, and counted."""
    files = {
        "dup.yaml": "1:\n  description: 喜欢猫\n  theme: 品味\n'1':\n  description: 住在成都\n  theme: 身份\n",
        "dup.json": '{"a1": {"description": "喜欢猫", "theme": "品味"}, "a1": {"description": "住在成都", "theme": "身份"}}',
        "dup.md": "## 品味\n\n- 喜欢猫 <!-- id:aa11bb22 updated:2026-01-01 hit:3 -->\n"
                  "- 也喜欢狗 <!-- id:aa11bb22 updated:2026-01-01 hit:3 -->\n",  # a copied line, edited
    }
    for name, text in files.items():
        src = tmp_path / name
        src.write_text(text, encoding="utf-8")
        store = tmp_path / name.replace(".", "_") / "memory.db"
        capsys.readouterr()
        assert cli_main(["--store", str(store), "--create", "import", str(src)]) == 0
        out, err = capsys.readouterr()
        assert "imported 2 memories, skipped 0" in out, (name, out)
        assert "more than one memory" in err and "-2'" in err, (name, err)
        got = _exported_memories(store, capsys)
        assert len(got) == 2, (name, got)
        first_id = "1" if name == "dup.yaml" else "a1" if name == "dup.json" else "aa11bb22"
        assert sorted(got) == [first_id, f"{first_id}-2"], (name, sorted(got))


def _undo_id(out: str) -> str:
    [line] = [line for line in out.splitlines() if line.startswith("to undo: sonetto memory undo ")]
    return line.rsplit(" ", 1)[1]


def test_a_cli_import_is_one_action_its_output_names_and_undo_takes_back(tmp_path, capsys):
    """The import is recorded under its own turn (before: turn_id null, so nothing could undo it)."""
    store = tmp_path / "memory.db"
    src = tmp_path / "two.json"
    src.write_text('{"zz": {"description": "导入的", "theme": "品味"}, "zy": {"description": "也是导入的", "theme": "品味"}}',
                   encoding="utf-8")
    assert cli_main(["--store", str(store), "--create", "import", str(src)]) == 0
    turn = _undo_id(capsys.readouterr().out)
    assert len(_exported_memories(store, capsys)) == 2
    assert cli_main(["--store", str(store), "undo", turn]) == 0
    assert "undid 2 changes" in capsys.readouterr().out
    assert _exported_memories(store, capsys) == {}
    assert cli_main(["--store", str(store), "import", str(src)]) == 0  # the same file imports again
    assert "imported 2 memories" in capsys.readouterr().out


def test_add_update_and_delete_name_their_undo(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林住在成都", "--theme", "身份"]) == 0
    out, err = capsys.readouterr()
    mid, add_turn = out.strip(), _undo_id(err)  # stdout stays the id alone
    assert cli_main(["--store", str(store), "update", mid, "小林搬到了上海"]) == 0
    update_turn = _undo_id(capsys.readouterr().out)
    assert cli_main(["--store", str(store), "delete", mid]) == 0
    delete_turn = _undo_id(capsys.readouterr().out)
    assert len({add_turn, update_turn, delete_turn}) == 3
    assert cli_main(["--store", str(store), "undo", delete_turn]) == 0  # back from the trash
    assert _exported_memories(store, capsys)[mid]["description"] == "小林搬到了上海"
    assert cli_main(["--store", str(store), "add", "小林喜欢猫", "--theme", "品味"]) == 0
    out, err = capsys.readouterr()
    assert cli_main(["--store", str(store), "update", out.strip(), "小林喜欢狗"]) == 0
    assert cli_main(["--store", str(store), "undo", _undo_id(capsys.readouterr().out)]) == 0
    assert _exported_memories(store, capsys)[out.strip()]["description"] == "小林喜欢猫"
    assert cli_main(["--store", str(store), "add", "小林喜欢鱼", "--theme", "品味"]) == 0
    out, err = capsys.readouterr()
    assert cli_main(["--store", str(store), "undo", _undo_id(err)]) == 0
    assert out.strip() not in _exported_memories(store, capsys)


def test_a_markdown_export_reimported_into_its_store_adds_nothing_and_keeps_text_exactly(tmp_path, capsys):
    """Line breaks, a ``<!-- … -->`` in the text, backslashes and spaces at the ends come back as
    they were, so importing one's own export skips every memory (before: 'imported 2 memories',
    the text squeezed to one line or cut at the first comment)."""
    store = tmp_path / "memory.yaml"
    texts = {"第一行\n第二行": "品味", "网页里写 <!-- TODO --> 的习惯": "编程", r"路径 C:\new\table \n": "电脑",
             "行尾\u2028分隔 -->": "杂 项"}
    assert cli_main(["--store", str(store), "--create", "list"]) == 0
    mm = open_store("yaml", tmp_path)
    for text, theme in texts.items():
        mm.add(text, theme)
    mm.close()
    md = tmp_path / "export.md"
    assert cli_main(["--store", str(store), "export", "-o", str(md)]) == 0
    assert sorted((i.description, i.theme) for i in parse_markdown(md.read_text(encoding="utf-8")).values()) == \
        sorted(texts.items())
    capsys.readouterr()
    assert cli_main(["--store", str(store), "import", str(md)]) == 0
    assert "imported 0 memories, skipped 4" in capsys.readouterr().out


def test_markdown_written_by_hand_is_read_as_written():
    """Without the export's format line, backslashes are text (a Windows path stays one)."""
    items = parse_markdown("## 电脑\n- 文件在 C:\\new\\table <!-- id:ab12 -->\n")
    assert items["ab12"].description == "文件在 C:\\new\\table"


def test_a_memory_of_several_lines_is_listed_on_one_line(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "第一行\n  b0000001  看起来像另一条\t记忆",
                     "--theme", "品味"]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(store), "list"]) == 0
    rows = [line for line in capsys.readouterr().out.splitlines() if line.startswith("  ")]
    assert len(rows) == 1 and "第一行\\n  b0000001  看起来像另一条\\t记忆" in rows[0]


def test_exporting_a_data_dir_with_no_store_writes_an_empty_export_not_leaves_an_old_file(tmp_path, monkeypatch,
                                                                                         capsys):
    data = tmp_path / "new-data"
    data.mkdir()
    monkeypatch.setenv("SONETTO_DATA_DIR", str(data))
    out = tmp_path / "out.json"
    out.write_text('{"old": "a stale export"}', encoding="utf-8")
    assert cli_main(["export", "-o", str(out)]) == 0
    assert "stale" not in out.read_text(encoding="utf-8")
    assert cli_main(["--store", str(tmp_path / "b" / "memory.db"), "--create", "import", str(out)]) == 0
    assert "imported 0" in capsys.readouterr().out
    assert list(data.iterdir()) == []  # still nothing made in the data folder


@pytest.mark.parametrize("fmt", ["yaml", "json", "md"])
def test_the_export_of_no_memories_is_an_empty_stores_export_written_without_a_store(tmp_path, monkeypatch, capsys,
                                                                                       fmt):
    """A data folder with no store: `export -o` writes what an empty store's export is, byte for byte
    (but the time it says it was made), which imports as nothing. Before, a throwaway store was opened in
    a temporary folder to write it (its lock, log and backup files made and removed)."""
    import re
    import tempfile

    from sonetto_desktop.memory.transfer import flags_path, read_import, write_export

    data = tmp_path / "new-data"
    data.mkdir()
    monkeypatch.setenv("SONETTO_DATA_DIR", str(data))
    folders = []
    real_mkdtemp = tempfile.mkdtemp
    monkeypatch.setattr(tempfile, "mkdtemp", lambda *a, **kw: folders.append(real_mkdtemp(*a, **kw)) or folders[-1])
    out = tmp_path / f"none.{fmt}"
    flags_path(out).write_text("old: {pinned: true}\n", encoding="utf-8")  # an earlier export's pins: emptied
    assert cli_main(["export", "-o", str(out)]) == 0
    assert folders == []  # no store anywhere, not even a throwaway one
    monkeypatch.undo()

    empty = open_store("yaml", tmp_path / "empty")  # what the export of a store with no memories is
    try:
        reference = tmp_path / f"reference.{fmt}"
        flags_path(reference).write_text("old: {pinned: true}\n", encoding="utf-8")
        assert write_export(empty, reference, fmt) == 0
    finally:
        empty.close()
    stamp = re.compile(rb"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d")
    assert stamp.sub(b"T", out.read_bytes()) == stamp.sub(b"T", reference.read_bytes())
    assert out.stat().st_mode & 0o777 == reference.stat().st_mode & 0o777 == 0o600
    assert flags_path(out).read_bytes() == flags_path(reference).read_bytes()  # .yaml: emptied ({}), else left
    assert read_import(out) == {}
    capsys.readouterr()
    assert cli_main(["--store", str(tmp_path / "b" / "memory.db"), "--create", "import", str(out)]) == 0
    assert "imported 0" in capsys.readouterr().out
    assert list(data.iterdir()) == []


def test_a_damaged_store_is_said_in_words_with_its_file_and_what_still_works(tmp_path, capsys):
    """A memory.yaml that cannot be read is listed from its last good state: the warning says which
    file, that the memories shown are still there and that changes are refused (the store's notice in
    the window's words), not only the parser's "'utf-8' codec can't decode byte 0xff"."""
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林喜欢猫", "--theme", "品味"]) == 0
    store.write_bytes(b"items: [::: {{{ garbage\n\xff")
    capsys.readouterr()
    assert cli_main(["--store", str(store), "list"]) == 0
    out, err = capsys.readouterr()
    assert "小林喜欢猫" in out
    [warning] = [line for line in err.splitlines() if line.startswith("warning:")]
    assert "memory.yaml cannot be read now" in warning and "changes are refused" in warning, warning
    assert "can't decode" in warning  # why, as the store says it


def _use_memory_server(url: str, schema: str = "sonetto") -> None:
    from sonetto_desktop.config.settings import Settings

    settings = Settings.load(with_secret=False)
    settings.store_backend, settings.postgres_url, settings.postgres_schema = "postgres", url, schema
    settings.retrieval_mode = "mechanical"
    settings.save(with_secret=False)


def test_exporting_memories_kept_on_a_memory_server_to_a_file(pg_server, pg_schema, tmp_path, capsys):
    """With the memories on a PostgreSQL server, 'export -o FILE' said 'The operation failed: expected
    str, bytes or os.PathLike object, not PgLocation' (the check that the file is not the store's own
    took the server's address for a path). Out of reach, this computer's copy is listed, said to be one."""
    from tcp_proxy import TcpProxy, proxied_url

    proxy = TcpProxy(pg_server.port)
    _use_memory_server(proxied_url(pg_server, proxy), pg_schema)
    assert cli_main(["add", "小林喜欢猫", "--theme", "品味"]) == 0
    out = tmp_path / "backup.json"
    assert cli_main(["export", "-o", str(out)]) == 0, capsys.readouterr().err
    memories = json.loads(out.read_text(encoding="utf-8"))["memories"]
    assert [m["description"] for m in memories.values()] == ["小林喜欢猫"]
    proxy.cut()
    capsys.readouterr()
    assert cli_main(["list"]) == 0
    out, err = capsys.readouterr()
    assert "小林喜欢猫" in out and "cannot be reached" in err and "this computer's copy" in err, err
    assert cli_main(["check"]) == 2  # the server's store is what a check checks, not this computer's copy
    out, err = capsys.readouterr()
    assert out == "" and "cannot be reached" in err and "not checked" in err, err


def test_a_memory_server_out_of_reach_is_said_not_shown_as_no_memories(tmp_path, capsys):
    """With the memory server out of reach and no copy on this computer yet, 'list' said 'no memories'
    (exit 0) and 'trash' that the trash is empty, as if the memories were gone: it says the server
    cannot be reached, exits 2, and an export writes nothing over the file it was given."""
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    _use_memory_server(f"postgresql://sonetto@127.0.0.1:{dead}/memories")
    backup = tmp_path / "backup.json"
    backup.write_text('{"memories": [{"id": "a1", "description": "上周的备份"}]}', encoding="utf-8")
    for command in (["list"], ["trash"], ["export", "--format", "json"], ["export", "-o", str(backup)], ["check"]):
        assert cli_main(command) == 2, command
        out, err = capsys.readouterr()
        assert "no memories" not in out and "empty" not in out and out == "", (command, out)
        assert "cannot be reached" in err and f"127.0.0.1:{dead}" in err, (command, err)
    assert cli_main(["check"]) == 2  # (it said "WARN: … read-only, no copy on this computer yet", exit 0)
    assert "not checked" in capsys.readouterr().err
    assert "上周的备份" in backup.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", ["yaml", "json", "md"])
def test_an_export_imported_elsewhere_keeps_whose_memories_they_are(tmp_path, capsys, fmt):
    """Moving the memories to another store (a new computer) keeps who wrote each: Sonetto's stay
    Sonetto's, another app's stay that app's (其他应用写的, recall's share of apps), not all the person's."""
    src = open_store("yaml", tmp_path / "a")
    mine = src.add("小林喜欢猫", "品味", actor="user")
    sonetto = src.add("小林下周去杭州出差", "计划", actor="agent")
    app = src.add("小林在用 Rust 重写调度服务", "工作", actor="mcp:chatgpt")
    src.close()
    out = tmp_path / f"export.{fmt}"
    assert cli_main(["--store", str(tmp_path / "a" / "memory.yaml"), "export", "-o", str(out)]) == 0
    target = tmp_path / "b" / "memory.db"
    assert cli_main(["--store", str(target), "--create", "import", str(out)]) == 0
    dst = open_store("sqlite", tmp_path / "b")
    items = dst.all_items()
    assert {mid: (items[mid].author, items[mid].last_actor) for mid in (mine, sonetto, app)} == {
        mine: ("user", "user"), sonetto: ("agent", "agent"), app: ("mcp:chatgpt", "mcp:chatgpt")}
    assert items[app].history[-1]["actor"] == "cli"  # who imported it is still said in its history
    dst.close()


def test_a_hand_written_markdown_file_is_the_importers_and_an_odd_author_reads_back(tmp_path, capsys):
    """A .md written by hand names no author: what it holds is the importer's, as before. One our export
    wrote names each memory's, an app's name with a space in it too."""
    notes = tmp_path / "notes.md"
    notes.write_text("## 品味\n\n- 小林喜欢猫\n", encoding="utf-8")
    store = tmp_path / "b" / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "import", str(notes)]) == 0
    [item] = open_store("yaml", tmp_path / "b").all_items().values()
    assert (item.author, item.last_actor) == ("cli", "cli")
    src = open_store("yaml", tmp_path / "a")
    mid = src.add("小林在写一本书", "计划", actor="mcp:Claude Desktop")
    src.close()
    out = tmp_path / "export.md"
    assert cli_main(["--store", str(tmp_path / "a" / "memory.yaml"), "export", "-o", str(out)]) == 0
    assert transfer.read_import(out)[mid].author == "mcp:Claude Desktop"


def test_the_trash_says_the_apps_reasons_in_english_and_the_persons_as_written(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林住在成都", "--theme", "身份"]) == 0
    assert cli_main(["--store", str(store), "add", "小林养了一只猫", "--theme", "生活"]) == 0
    first, second = capsys.readouterr().out.split()
    assert cli_main(["--store", str(store), "delete", first]) == 0
    assert cli_main(["--store", str(store), "delete", second, "--reason", "猫送人了"]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(store), "trash"]) == 0
    rows = {line.split()[0]: line for line in capsys.readouterr().out.splitlines()}
    assert rows[first].endswith("cli: Deleted from the command line]"), rows[first]
    assert rows[second].endswith("cli: 猫送人了]"), rows[second]


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_markdown_export_imported_elsewhere_keeps_pins_locks_and_the_time(backend, tmp_path, capsys):
    """The Markdown export "imports back as it was" (README): a pinned memory stays pinned, a locked
    one locked (Sonetto may not change it), and its update time keeps the time of day."""
    src = open_store(backend, tmp_path / "a")
    pinned = src.add("小林喜欢猫", "品味")
    src.set_field(pinned, "pinned", True)
    locked = src.add("小林的生日是三月五日", "身份")
    src.set_locked(locked, True)
    plain = src.add("小林在学吉他", "音乐")
    before = {mid: (item.pinned, item.locked, item.latest_update_time) for mid, item in src.all_items().items()}
    md = tmp_path / "export.md"
    md.write_text(export_markdown(src), encoding="utf-8")
    src.close()
    target = tmp_path / "b" / "memory.db"
    assert cli_main(["--store", str(target), "--create", "import", str(md)]) == 0
    dst = open_store("sqlite", tmp_path / "b")
    after = {mid: (item.pinned, item.locked, item.latest_update_time) for mid, item in dst.all_items().items()}
    assert after == before and after[pinned][0] and after[locked][1] and after[plain][:2] == (False, False)
    dst.close()
    capsys.readouterr()
    assert cli_main(["--store", str(target), "import", str(md)]) == 0  # and again: nothing new
    assert "imported 0 memories, skipped 3" in capsys.readouterr().out


@pytest.mark.parametrize("where", ["no-such-folder/out.json", "a-folder.json"])
def test_an_export_that_cannot_be_written_names_the_file_asked_for(tmp_path, capsys, where):
    """Not the hidden temp file the export is written through first (".out.json.1234.5678.tmp"),
    which the person never named: the file they gave."""
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林喜欢猫", "--theme", "品味"]) == 0
    (tmp_path / "a-folder.json").mkdir()
    capsys.readouterr()
    assert cli_main(["--store", str(store), "export", "-o", str(tmp_path / where)]) == 2
    err = capsys.readouterr().err
    assert str(tmp_path / where) in err and ".tmp" not in err, err


def test_yaml_on_standard_output_says_the_pins_it_leaves_out(tmp_path, capsys):
    """`sonetto memory export > backup.yaml`: YAML keeps pins beside its file (NAME.flags.yaml), which
    standard output has not; the person is told, not left to find them gone after an import."""
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林喜欢猫", "--theme", "品味"]) == 0
    mm = open_store("yaml", tmp_path)
    mm.set_field(capsys.readouterr().out.strip(), "pinned", True)
    mm.close()
    assert cli_main(["--store", str(store), "export"]) == 0
    out, err = capsys.readouterr()
    assert "小林喜欢猫" in out and "pinned" not in out
    assert "pinned memories: 1" in err and "-o FILE.yaml" in err, err
    assert cli_main(["--store", str(store), "export", "--format", "json"]) == 0
    assert capsys.readouterr().err == ""  # (JSON keeps them)


def test_a_yaml_export_to_a_file_names_the_file_its_pins_are_in(tmp_path, capsys):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林喜欢猫", "--theme", "品味"]) == 0
    out = tmp_path / "backup.yaml"
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    assert "flags" not in capsys.readouterr().err  # nothing pinned: one file
    mm = open_store("yaml", tmp_path)
    mm.set_field(next(iter(mm.all_items())), "pinned", True)
    mm.close()
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "exported 1 memories" in err and str(tmp_path / "backup.flags.yaml") in err, err


@pytest.mark.parametrize("fmt", ["yaml", "json", "md"])
@pytest.mark.parametrize("backend", BACKENDS)
def test_a_full_export_brings_the_trash_back_into_the_trash(backend, tmp_path, capsys, fmt):
    """导出全部记忆 is a backup: what was in the trash is in the export (marked as deleted), and importing
    it elsewhere puts it back into the trash, restorable there, never on the wall; importing the
    same backup again adds nothing twice."""
    from memory_stores import store_path

    src = open_store(backend, tmp_path / "a")
    kept = src.add("小林喜欢猫", "品味")
    gone = src.add("小林以前住在成都\n后来搬走了", "身份", actor="agent")
    other = src.add("小林在写一个 Rust 项目", "工作", actor="mcp:Claude Desktop")
    src.delete(gone, "搬家了，不准了")
    src.delete(other, "", actor="agent")
    before = {row["id"]: row for row in src.list_trash()}
    src.close()
    out = tmp_path / f"backup.{fmt}"
    assert cli_main(["--store", str(store_path(backend, tmp_path / "a")), "export", "-o", str(out)]) == 0
    assert "2 in the trash" in capsys.readouterr().err
    target = store_path(backend, tmp_path / "b")
    assert cli_main(["--store", str(target), "--create", "import", str(out)]) == 0
    assert "2 deleted memories put back in the trash" in capsys.readouterr().out
    dst = open_store(backend, tmp_path / "b")
    try:
        assert [item.description for item in dst.all_items().values()] == ["小林喜欢猫"]  # not on the wall
        after = {row["id"]: row for row in dst.list_trash()}
        fields = ("description", "theme", "deleted_at", "reason", "actor")
        assert {mid: tuple(row[f] for f in fields) for mid, row in after.items()} == {
            mid: tuple(row[f] for f in fields) for mid, row in before.items()}
        dst.restore(gone)
        assert dst.get(gone).description == "小林以前住在成都\n后来搬走了" and dst.get(gone).author == "agent"
    finally:
        dst.close()
    assert cli_main(["--store", str(target), "import", str(out)]) == 0  # the same backup again
    assert "put back" not in capsys.readouterr().out
    dst = open_store(backend, tmp_path / "b")
    try:
        assert [row["id"] for row in dst.list_trash()] == [other] and kept in dst.all_items()
    finally:
        dst.close()


@pytest.mark.parametrize("backend", BACKENDS)
def test_an_import_says_its_undo_leaves_the_trash_it_brought_and_the_undo_does(backend, tmp_path, capsys):
    """A backup brings memories and deleted ones (into the trash). Undoing the import takes back the
    memories; the deleted ones stay in the trash. The import's line said only "put back in the trash", so
    a person who undid it found the backup's deleted memories still there, unannounced. Now it says they
    stay, and the undo does what it said."""
    from memory_stores import store_path

    src = open_store(backend, tmp_path / "a")
    src.add("小林喜欢猫", "品味")
    gone = src.add("小林以前住在成都", "身份")
    src.delete(gone, "搬家了")
    src.close()
    out = tmp_path / "backup.json"
    assert cli_main(["--store", str(store_path(backend, tmp_path / "a")), "export", "-o", str(out)]) == 0
    capsys.readouterr()
    target = store_path(backend, tmp_path / "b")
    assert cli_main(["--store", str(target), "--create", "import", str(out)]) == 0
    said = capsys.readouterr().out
    assert "1 deleted memory put back in the trash (undoing this import leaves it there)" in said, said
    turn = said.split("sonetto memory undo ")[1].split()[0]
    assert cli_main(["--store", str(target), "undo", turn]) == 0
    dst = open_store(backend, tmp_path / "b")
    try:
        assert dst.all_items() == {}
        assert sorted(row["description"] for row in dst.list_trash()) == ["小林以前住在成都", "小林喜欢猫"]
    finally:
        dst.close()


def test_an_import_that_only_brings_back_the_trash_does_not_promise_an_undo(tmp_path, capsys):
    """A backup whose memories are all here already still puts its deleted ones back into the trash.
    Undoing an import takes back the memories it added and leaves the trash it brought (an undo never
    deletes for good: the trash is where it puts what it takes back), so such an import has nothing to
    undo and gives no undo command. Its line said "(undoing this import leaves them there)", pointing
    to an undo that does not exist; it now says there is nothing to undo and where they can go."""
    from memory_stores import store_path

    src = open_store("yaml", tmp_path / "a")
    src.add("小林喜欢猫", "品味")
    for text in ("小林以前住在成都", "小林以前养过狗"):
        src.delete(src.add(text, "身份"), "不准了")
    src.close()
    out = tmp_path / "backup.json"
    assert cli_main(["--store", str(store_path("yaml", tmp_path / "a")), "export", "-o", str(out)]) == 0
    target = store_path("yaml", tmp_path / "b")
    dst = open_store("yaml", tmp_path / "b")
    dst.add("小林喜欢猫", "品味")
    dst.close()
    capsys.readouterr()
    assert cli_main(["--store", str(target), "import", str(out)]) == 0
    said = capsys.readouterr().out
    assert "imported 0 memories, skipped 1 duplicates; 2 deleted memories put back in the trash" in said, said
    assert "undoing this import" not in said and "to undo:" not in said, said
    assert "nothing to undo" in said and "delete them for good" in said, said
    dst = open_store("yaml", tmp_path / "b")
    try:
        assert sorted(row["description"] for row in dst.list_trash()) == sorted(["小林以前住在成都", "小林以前养过狗"])
    finally:
        dst.close()


def test_a_damaged_trash_file_beside_a_yaml_backup_leaves_out_the_trash_not_the_memories(tmp_path, capsys):
    """A YAML backup keeps the trash in NAME.trash.yaml beside it. One that got damaged (cut off, edited
    by hand) refused the whole import, the memories too. Now the memories come in and the command says,
    on its error stream, that the trash file could not be read and was left out: which file, which line."""
    from memory_stores import store_path

    src = open_store("yaml", tmp_path / "a")
    src.add("小林喜欢猫", "品味")
    src.delete(src.add("小林以前住在成都", "身份"), "搬家了")
    src.close()
    out = tmp_path / "backup.yaml"
    assert cli_main(["--store", str(store_path("yaml", tmp_path / "a")), "export", "-o", str(out)]) == 0
    side = transfer.trash_path(out)
    side.write_text(side.read_text(encoding="utf-8") + "  oops: [not closed\n", encoding="utf-8")
    capsys.readouterr()
    target = store_path("yaml", tmp_path / "b")
    assert cli_main(["--store", str(target), "--create", "import", str(out)]) == 0
    printed = capsys.readouterr()
    assert "imported 1 memories" in printed.out, printed
    line = len(side.read_text(encoding="utf-8").splitlines())
    assert "backup.trash.yaml" in printed.err and f"line {line}" in printed.err, printed.err
    assert "left out" in printed.err, printed.err
    dst = open_store("yaml", tmp_path / "b")
    try:
        assert [item.description for item in dst.all_items().values()] == ["小林喜欢猫"]
        assert dst.list_trash() == []
    finally:
        dst.close()


@pytest.mark.parametrize("damage", ["  oops: [not closed\n", "- a list, not the pins\n"])
def test_a_damaged_pins_file_beside_a_yaml_backup_is_said_not_dropped_without_a_word(tmp_path, capsys, damage):
    """A YAML backup keeps the pins in NAME.flags.yaml beside it. One that got damaged (cut off, edited by
    hand) was left out without a word: the memories came in unpinned. They still come in (the pins are
    the file's only loss), and the command says, on its error stream, which file was left out and why."""
    from memory_stores import store_path

    src = open_store("yaml", tmp_path / "a")
    src.set_field(src.add("小林喜欢猫", "品味"), "pinned", True)
    src.add("小林住在杭州", "身份")
    src.close()
    out = tmp_path / "backup.yaml"
    assert cli_main(["--store", str(store_path("yaml", tmp_path / "a")), "export", "-o", str(out)]) == 0
    side = transfer.flags_path(out)
    side.write_text(damage if damage.startswith("-") else side.read_text(encoding="utf-8") + damage, encoding="utf-8")
    capsys.readouterr()
    target = store_path("yaml", tmp_path / "b")
    assert cli_main(["--store", str(target), "--create", "import", str(out)]) == 0
    printed = capsys.readouterr()
    assert "imported 2 memories" in printed.out, printed
    assert "backup.flags.yaml" in printed.err and "pins" in printed.err and "left out" in printed.err, printed.err
    if not damage.startswith("-"):
        assert f"line {len(side.read_text(encoding='utf-8').splitlines())}" in printed.err, printed.err
    dst = open_store("yaml", tmp_path / "b")
    try:
        assert sorted(item.description for item in dst.all_items().values()) == ["小林住在杭州", "小林喜欢猫"]
    finally:
        dst.close()


def _merged_backup(tmp_path, fmt: str):
    """A store with one memory merged into another, exported as ``fmt``: (kept id, merged-away id, file)."""
    src = open_store("yaml", tmp_path / "a")
    keep = src.add("小林喜欢猫", "品味")
    gone = src.add("小林很喜欢猫咪", "品味")
    src.merge(keep, gone, "小林喜欢猫，尤其是橘猫", "品味", "两条说的是一件事")
    out = tmp_path / f"backup.{fmt}"
    transfer.write_export(src, out, fmt)
    src.close()
    return keep, gone, out


@pytest.mark.parametrize("fmt", ["yaml", "json", "md"])
def test_a_merged_away_memory_comes_back_from_a_backup_as_merged(tmp_path, fmt):
    """The trash shows a memory merged into another as 合并进了「…」 (its ``merged_into``): a Markdown backup
    left that out, so after importing it the trash said the merge's bare reason with the kept memory's id
    in it ("合并到 3f2a…：…") and an undo of the merge no longer knew where the text went."""
    keep, gone, out = _merged_backup(tmp_path, fmt)
    dst = open_store("yaml", tmp_path / "b")
    try:
        import_file(dst, out)
        [row] = dst.list_trash()
        assert row["id"] == gone and row["merged_into"] == keep and keep in dst.all_items()
    finally:
        dst.close()


@pytest.mark.parametrize("fmt", ["md", "json", "yaml"])
@pytest.mark.parametrize("how", ["import_file", "cli"])
def test_a_merged_away_memory_follows_its_kept_memory_to_a_new_id(tmp_path, capsys, fmt, how):
    """A backup's merged-away memory says which memory it went into (``into:`` / ``merged_into``). When
    the store already uses the kept memory's id for another memory, the import gives the kept one a new
    id: the trash entry still named the old id, so the trash showed the merge as going into the store's
    other memory (or into nothing) and an undo of the merge looked in the wrong place. It follows now."""
    from memory_stores import store_path
    from sonetto_desktop.memory.item import MemoryItem

    keep, gone, out = _merged_backup(tmp_path, fmt)
    dst = open_store("yaml", tmp_path / "b")
    dst.import_items({keep: MemoryItem("小林在写一个 Rust 项目", "工作")})  # the same id, another memory
    if how == "import_file":
        added, _ = import_file(dst, out)
    else:
        dst.close()
        assert cli_main(["--store", str(store_path("yaml", tmp_path / "b")), "import", str(out)]) == 0
        dst = open_store("yaml", tmp_path / "b")
    try:
        [kept_id] = [mid for mid, item in dst.all_items().items() if item.description == "小林喜欢猫，尤其是橘猫"]
        assert kept_id != keep and dst.get(keep).description == "小林在写一个 Rust 项目"
        [row] = dst.list_trash()
        assert row["id"] == gone and row["merged_into"] == kept_id, row
    finally:
        dst.close()


def test_a_merged_away_memory_follows_its_kept_memory_to_the_stores_copy(tmp_path):
    """The kept memory is here already under another id (skipped as a duplicate): the merged-away one
    says it went into the store's copy, not into an id the store gives to something else."""
    from sonetto_desktop.memory.item import MemoryItem

    keep, gone, out = _merged_backup(tmp_path, "md")
    dst = open_store("yaml", tmp_path / "b")
    try:
        dst.import_items({keep: MemoryItem("小林在写一个 Rust 项目", "工作"),
                          "copy1": MemoryItem("小林喜欢猫，尤其是橘猫", "品味")})
        added, skipped = import_file(dst, out)
        assert added == [] and skipped == [keep]
        [row] = dst.list_trash()
        assert row["id"] == gone and row["merged_into"] == "copy1", row
    finally:
        dst.close()


def test_one_memory_in_the_trash_is_counted_as_one(tmp_path, capsys):
    """"the 1 in the trash are in …" and "1 deleted memories put back in the trash"."""
    store, out = tmp_path / "memory.yaml", tmp_path / "backup.yaml"
    mm = open_store("yaml", tmp_path)
    mm.delete(mm.add("小林住在成都", "身份"), "搬家了")
    mm.close()
    assert cli_main(["--store", str(store), "export", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "the one in the trash is in" in err and "puts it back" in err, err
    assert cli_main(["--store", str(tmp_path / "b" / "memory.yaml"), "--create", "import", str(out)]) == 0
    said = capsys.readouterr().out
    assert "1 deleted memory put back in the trash" in said, said


@pytest.mark.parametrize("fmt", ["yaml", "json", "md"])
@pytest.mark.parametrize("meanwhile", ["restored", "deleted"])
def test_a_memory_deleted_or_restored_while_a_backup_reads_is_in_it_once(tmp_path, fmt, meanwhile):
    """The memories and the trash are two reads: a memory restored between them (Sonetto's writer, the
    window's undo) was in neither, and the backup had lost it; one deleted between them was in both.
    Here the write lands right after the memories were read (as another thread's would)."""
    src = open_store("yaml", tmp_path / "a")
    keep = src.add("小林喜欢猫", "品味")
    moving = src.add("小林以前住在成都", "身份")
    if meanwhile == "restored":
        src.delete(moving, "搬家了")
    reading = "get_memories_grouped" if fmt == "md" else "all_items"
    read = getattr(src, reading)

    def read_then_write():
        got = read()
        src.restore(moving) if meanwhile == "restored" else src.delete(moving, "搬家了")
        return got

    setattr(src, reading, read_then_write)
    out = tmp_path / f"backup.{fmt}"
    transfer.write_export(src, out, fmt)
    delattr(src, reading)
    src.close()
    dst = open_store("yaml", tmp_path / "b")
    try:
        import_file(dst, out)
        live, trashed = set(dst.all_items()), {row["id"] for row in dst.list_trash()}
        assert keep in live and moving in live | trashed, "the backup lost a memory"
        assert not live & trashed
    finally:
        dst.close()


def test_add_without_a_theme_files_it_under_one_chosen_from_its_words_and_says_which(tmp_path):
    """`sonetto memory add "我妹妹在深圳当护士"` failed with argparse's "the following arguments are
    required: --theme". The theme is chosen from the words as for ChatGPT's saved memories (身份 when
    nothing points elsewhere), said on stderr (stdout stays the id alone) and in --json."""
    store = tmp_path / "memory.yaml"
    added = _run("--store", str(store), "--create", "add", "我妹妹在深圳当护士")
    assert added.returncode == 0, added.stderr
    mid = added.stdout.strip()
    assert mid and "\n" not in mid
    assert "theme: 身份" in added.stderr and "--theme" in added.stderr, added.stderr
    as_json = _run("--store", str(store), "add", "小林最爱的歌是《晴天》", "--json")
    assert as_json.returncode == 0, as_json.stderr
    said = json.loads(as_json.stdout)
    assert said["theme"] == "音乐" and said["theme_guessed"] is True and said["undo_id"], said
    given = json.loads(_run("--store", str(store), "add", "小林养了一只猫", "--theme", "宠物", "--json").stdout)
    assert given["theme"] == "宠物" and given["theme_guessed"] is False
    given_plain = _run("--store", str(store), "add", "小林在学日语", "--theme", "学习")
    assert given_plain.returncode == 0 and "theme:" not in given_plain.stderr, given_plain.stderr
    listing = _run("--store", str(store), "list").stdout
    assert "## 身份 (1)" in listing and mid in listing and "## 音乐 (1)" in listing and "## 宠物 (1)" in listing


def test_add_without_a_theme_guesses_among_the_banks_themes_and_dates(tmp_path):
    """`sonetto memory add "小林又养了一只狗"` in a bank with a 宠物 theme was filed under 身份, as was
    "下周三要去医院复查牙齿" (the guess knew four themes; see tests/test_theme_guess.py)."""
    store = str(tmp_path / "memory.yaml")
    first = _run("--store", store, "--create", "add", "小林养了一只猫", "--theme", "宠物", "--json")
    assert first.returncode == 0, first.stderr
    for text, theme in [("小林又养了一只狗", "宠物"), ("下周三要去医院复查牙齿", "时效待办"), ("小林在杭州做产品经理", "身份")]:
        added = _run("--store", store, "add", text, "--json")
        assert added.returncode == 0, added.stderr
        said = json.loads(added.stdout)
        assert (said["theme"], said["theme_guessed"]) == (theme, True), text


def test_a_chosen_theme_is_not_taken_from_part_of_another_word(tmp_path):
    """`sonetto memory add "My husband works night shifts at a hospital"` was filed under 音乐 ("band"
    inside "husband"; ChatGPT's saved memories often begin "User's husband…"), and "大家在公司都叫我小林"
    under 地点与路径 ("家在" inside "大家在")."""
    store = tmp_path / "memory.yaml"
    for text, theme in [("My husband works night shifts at a hospital", "身份"), ("大家在公司都叫我小林", "身份"),
                        ("Uses broadband at home, no phone data", "身份"), ("Likes the band Radiohead", "音乐"),
                        ("我家在成都", "地点与路径")]:
        added = _run("--store", str(store), "--create", "add", text, "--json")
        assert added.returncode == 0, added.stderr
        assert json.loads(added.stdout)["theme"] == theme, text


# ── a Chinese terminal: the words in Chinese, as `sonetto history` says them ──

_UNDO_HINT = re.compile(r"^撤销：sonetto memory undo (\S+)$", re.M)


def test_a_chinese_terminal_is_answered_in_chinese(tmp_path, capsys, chinese_terminal):
    """In a zh_CN terminal `sonetto history` spoke Chinese and `sonetto memory` English ("no memories",
    "moved … to the trash", "error: Nothing is left to undo."): it chooses its language as history does."""
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "list"]) == 2
    assert capsys.readouterr().err == f"错误：{store} 不存在（加 --create 在那里新建一个记忆库）\n"
    assert cli_main(["--store", str(store), "--create", "list"]) == 0
    assert capsys.readouterr().out == f"还没有记忆（{store}）\n"
    assert cli_main(["--store", str(store), "list", "--theme", "品味"]) == 0
    assert capsys.readouterr().out == f"主题「品味」里没有记忆（{store}）\n"
    assert cli_main(["--store", str(store), "trash"]) == 0
    assert capsys.readouterr().out == f"回收站是空的（{store}）\n"

    assert cli_main(["--store", str(store), "add", "我妹妹在深圳当护士"]) == 0
    out, err = capsys.readouterr()
    mid = out.strip()  # stdout: the new id alone, for scripts
    assert out == f"{mid}\n" and mid
    assert err.splitlines()[0] == "主题：身份（按内容选的；要换一个，用 --theme）"
    assert _UNDO_HINT.search(err), err
    assert cli_main(["--store", str(store), "list"]) == 0
    assert f"  {mid}  我妹妹在深圳当护士  [命中 0 次，" in capsys.readouterr().out

    assert cli_main(["--store", str(store), "update", mid, "我妹妹在杭州当护士"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"已修改 {mid}" and _UNDO_HINT.search(out), out
    assert cli_main(["--store", str(store), "update", mid, "我妹妹在杭州当护士"]) == 0
    assert capsys.readouterr().out == "没有变化\n"
    assert cli_main(["--store", str(store), "update", mid]) == 2
    assert capsys.readouterr().err == "错误：请给出新的内容和/或 --theme\n"

    assert cli_main(["--store", str(store), "delete", mid]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == f"已把 {mid} 移到回收站" and _UNDO_HINT.search(out), out
    deleted = _UNDO_HINT.search(out).group(1)
    assert cli_main(["--store", str(store), "trash"]) == 0
    assert "cli: 命令行删除]" in capsys.readouterr().out  # the app's reason in Chinese
    assert cli_main(["--store", str(store), "undo", deleted]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"撤销了 {deleted} 的 1 处改动；要重做：sonetto memory undo undo-"), out
    assert cli_main(["--store", str(store), "undo", "ui-nothing"]) == 2
    assert capsys.readouterr().err.startswith("错误：已经没有可撤销的变化了。")
    assert cli_main(["--store", str(store), "delete", "nope1234"]) == 2
    assert capsys.readouterr().err.startswith("错误：找不到这条记忆，它可能已被删除或移动。")
    assert cli_main(["--store", str(store), "add", " ", "--theme", "品味"]) == 2
    assert capsys.readouterr().err.startswith("错误：输入无效：")

    backup = tmp_path / "backup.json"
    assert cli_main(["--store", str(store), "export", "-o", str(backup)]) == 0
    assert capsys.readouterr().err == f"已导出 1 条记忆到 {backup}\n"
    other = tmp_path / "other.db"
    assert cli_main(["--store", str(other), "--create", "import", str(backup)]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "导入了 1 条记忆，跳过 0 条重复的" and _UNDO_HINT.search(out), out
    assert cli_main(["--store", str(other), "check"]) == 0
    assert capsys.readouterr().out.startswith(f"正常：{other} 里有 1 条记忆")


def test_a_chinese_terminal_is_told_our_own_details_in_chinese_too(tmp_path, capsys, chinese_terminal):
    """In a zh_CN terminal a failure's sentence was Chinese and its detail, where it is our own wording,
    English: "找不到这条记忆，…。 (no memory with id 'nope1234' in the memory store)", "输入无效：description must be
    a non-empty string", "… (memory store memory.yaml cannot be read: …)", "d.yaml is not a regular file". The
    details are said in Chinese (a library's own text, the YAML parser's, stays as it gives it)."""
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林喜欢猫", "--theme", "品味"]) == 0
    capsys.readouterr()

    def error(*args: str) -> str:
        assert cli_main(["--store", str(store), *args]) == 2
        return capsys.readouterr().err

    assert error("delete", "nope1234") == "错误：找不到这条记忆，它可能已被删除或移动。 (记忆库里没有 id 为 'nope1234' 的记忆)\n"
    assert error("restore", "nope1234") == "错误：找不到这条记忆，它可能已被删除或移动。 (回收站里没有 id 为 'nope1234' 的记忆)\n"
    assert error("undo", "ui-nothing") == "错误：已经没有可撤销的变化了。 (轮次 'ui-nothing' 没有留下可撤销的变化)\n"
    assert error("add", " ", "--theme", "品味") == "错误：输入无效：内容不能是空的\n"
    assert error("add", "长" * 6000, "--theme", "品味") == "错误：输入无效：内容有 6,000 个字，超过了上限 5,000 字\n"

    broken = tmp_path / "broken" / "memory.yaml"
    broken.parent.mkdir()
    broken.write_text("x: [unclosed\n", encoding="utf-8")
    assert cli_main(["--store", str(broken), "list"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("错误：记忆库文件无法读取，没有做任何修改：") and f"(文件：{broken})" in err, err
    assert "cannot be read" not in err, err
    folder = tmp_path / "folder.yaml"
    folder.mkdir()
    assert cli_main(["--store", str(folder), "list"]) == 2
    assert capsys.readouterr().err == f"错误：记忆库文件无法读取，没有做任何修改：{folder} 不是普通文件 (文件：{folder})\n"
    # a store held by another process past the wait (a minute: worded here, not waited for)
    from sonetto_desktop.cli_words import Words, words_of
    from sonetto_desktop.memory.errors import StoreBusy

    busy = words_of(StoreBusy("memory.db", 60), Words("zh_CN"))
    assert busy.startswith("另一个程序（另一个 Sonetto 或 sonetto mcp）占着记忆库超过 60 秒") and busy.endswith(
        " (记忆库：memory.db)"), busy
    assert words_of(StoreBusy("memory.db", 60), Words("en")).endswith(
        "(memory store memory.db was held by another process for over 60 s; nothing was changed)")


def _damaged_store(path):
    """A memory.yaml written by hand: blanks around a text, an empty theme, a hit count below 0, a text
    over the limit (what ``check`` repairs, and what it can only report)."""
    stamp = "2024-01-01T00:00:00"
    path.parent.mkdir()
    path.write_text(yaml.safe_dump({
        "a1": {"description": "  喜欢猫  ", "theme": "", "latest_update_time": stamp, "history": [], "hit": 0},
        "a2": {"description": "长" * 6000, "theme": "品味", "latest_update_time": stamp, "history": [], "hit": -3},
    }, allow_unicode=True), encoding="utf-8")
    return path


def test_check_speaks_the_terminals_language(tmp_path, capsys, chinese_terminal):
    """`sonetto memory check` in a zh_CN terminal printed "WARN：… 里有 2 条记忆" and then its findings in
    English ("已修复：a1: stripped blanks around description", "问题：a2: description is 6,000 characters long
    (limit 5,000)"): every line is Chinese now, and English in an English terminal."""
    store = _damaged_store(tmp_path / "zh" / "memory.yaml")
    assert cli_main(["--store", str(store), "check"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"有问题：{store} 里有 2 条记忆",
        "  已修复：a1：去掉了内容前后的空白",
        "  已修复：a1：主题是空的，已设为“未分类”",
        "  已修复：1 条记忆的命中次数不可能（无穷大、负数、不是数字或超过 2,147,483,647）：已读作 0 到 2,147,483,647 之间的次数",
        "  问题：a2：内容有 6,000 个字（上限 5,000）",
    ]
    assert cli_main(["--store", str(store), "check"]) == 0  # repaired: what is left
    assert capsys.readouterr().out.splitlines() == [f"有问题：{store} 里有 2 条记忆", "  问题：a2：内容有 6,000 个字（上限 5,000）"]


def test_check_speaks_english_in_an_english_terminal(tmp_path, capsys, english_terminal):
    store = _damaged_store(tmp_path / "en" / "memory.yaml")
    assert cli_main(["--store", str(store), "check"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        f"WARN: 2 memories in {store}",
        "  repaired: a1: stripped blanks around description",
        "  repaired: a1: empty theme set to 未分类",
        "  repaired: 1 memory had an impossible hit count (infinite, negative, not a number or above 2,147,483,647): "
        "read as a count from 0 to 2,147,483,647",
        "  issue: a2: description is 6,000 characters long (limit 5,000)",
    ]


def test_a_chinese_terminal_is_answered_in_chinese_by_a_real_process_and_json_stays_as_it_is(tmp_path,
                                                                                           chinese_terminal):
    store = tmp_path / "memory.yaml"
    added = _run("--store", str(store), "--create", "add", "小林最爱的歌是《晴天》")
    assert added.returncode == 0, added.stderr
    assert added.stdout.strip() and "\n" not in added.stdout.strip()
    assert added.stderr.startswith("主题：音乐（按内容选的；要换一个，用 --theme）\n撤销：sonetto memory undo "), added.stderr
    as_json = _run("--store", str(store), "add", "小林养了一只猫", "--json")
    said = json.loads(as_json.stdout)
    assert set(said) == {"id", "theme", "theme_guessed", "undo_id"} and as_json.stderr == ""
    missing = _run("--store", str(tmp_path / "nope.yaml"), "list")
    assert missing.returncode == 2 and "不存在（加 --create 在那里新建一个记忆库）" in missing.stderr


def test_a_data_folder_without_a_store_is_said_in_chinese(tmp_path, monkeypatch, capsys, chinese_terminal):
    data = tmp_path / "new-data"
    data.mkdir()
    monkeypatch.setenv("SONETTO_DATA_DIR", str(data))
    assert cli_main(["list"]) == 0
    assert capsys.readouterr().out == f"还没有记忆：{data} 里还没有记忆库（应用或 `sonetto memory add` 会建一个）\n"


def test_the_app_set_to_english_speaks_english_in_a_chinese_terminal(tmp_path, capsys, chinese_terminal):
    """As `sonetto history`: the app's language setting English wins over the terminal's Chinese."""
    from sonetto_desktop.config.settings import Settings

    Settings(language="en").save(with_secret=False)
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "list"]) == 0
    assert capsys.readouterr().out == f"no memories ({store})\n"
    assert cli_main(["--store", str(store), "undo", "ui-nothing"]) == 2
    assert capsys.readouterr().err.startswith("error: Nothing is left to undo.")


def test_a_chinese_terminal_hears_warnings_notes_and_a_refused_undo_in_chinese(tmp_path, capsys, chinese_terminal):
    store = tmp_path / "memory.yaml"
    assert cli_main(["--store", str(store), "--create", "add", "小林住在成都", "--theme", "身份"]) == 0
    mid = capsys.readouterr().out.strip()
    assert cli_main(["--store", str(store), "add", "小林喜欢猫", "--theme", "品味"]) == 0
    assert cli_main(["--store", str(store), "update", mid, "小林搬到了上海"]) == 0
    edited = _UNDO_HINT.search(capsys.readouterr().out).group(1)
    assert cli_main(["--store", str(store), "undo", edited]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(store), "undo", edited]) == 2  # its undo changed that memory since
    out, err = capsys.readouterr()
    assert "有 1 张卡片之后又被改过，会原样保留：" in out, out
    assert err == f"错误：没有撤销 {edited}：之后的改动碰到了其中 1 条记忆（{mid}）\n"
    assert cli_main(["--store", str(store), "delete", mid]) == 0
    capsys.readouterr()
    assert cli_main(["--store", str(store), "export"]) == 0  # YAML on stdout leaves the trash out: said
    assert capsys.readouterr().err == ("注意：标准输出上的 YAML 不含回收站（1 条删除了的记忆）；要保留它，用 -o FILE.yaml"
                                       "（它写进 FILE.trash.yaml）或 --format json\n")
    backup = tmp_path / "backup.json"
    assert cli_main(["--store", str(store), "export", "-o", str(backup)]) == 0
    assert capsys.readouterr().err == f"已导出 1 条记忆到 {backup}，还有回收站里的 1 条（导入时它会回到回收站）\n"
    store.write_bytes(b"items: [::: {{{ garbage\n\xff")
    assert cli_main(["--store", str(store), "list"]) == 0
    [warning] = [line for line in capsys.readouterr().err.splitlines() if line.startswith("警告：")]
    assert "memory.yaml 现在读不了" in warning and "修改会被拒绝" in warning, warning


def test_undo_dry_run_says_what_the_undo_would_do_and_changes_nothing(tmp_path):
    """`sonetto memory undo ID --dry-run` (the window asks before an undo; `sonetto history undo` had a dry
    run; this command had none: the only way to learn what an undo would do was to do it)."""
    store = tmp_path / "memory.yaml"
    added = json.loads(_run("--store", str(store), "--create", "add", "Likes green tea", "--theme", "品味",
                            "--json").stdout)
    before = store.read_bytes()
    dry = _run("--store", str(store), "undo", added["undo_id"], "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "the undo would: 1 goes to the trash" in dry.stdout and "nothing was changed" in dry.stdout
    assert store.read_bytes() == before
    assert _run("--store", str(store), "update", added["id"], "Likes green tea and oolong").returncode == 0
    dry = _run("--store", str(store), "undo", added["undo_id"], "--dry-run")
    assert dry.returncode == 0, dry.stderr
    assert "Likes green tea and oolong" in dry.stdout and "would be refused" in dry.stdout
    assert "Likes green tea and oolong" in _run("--store", str(store), "list").stdout  # still there, as edited


@pytest.mark.parametrize("terminal", ["english", "chinese"])
def test_counts_in_the_thousands_are_grouped_as_the_window_groups_them(tmp_path, capsys, terminal, request):
    """The window says 3,303; the command line said 导入了 3303 条记忆 (and 撤销了 … 的 3303 处改动)."""
    request.getfixturevalue(f"{terminal}_terminal")
    store = tmp_path / "memory.db"
    src = tmp_path / "many.json"
    src.write_text(json.dumps({f"m{i:04d}": {"description": f"第{i}件小事", "theme": "瞬间"} for i in range(1234)},
                              ensure_ascii=False), encoding="utf-8")
    assert cli_main(["--store", str(store), "--create", "import", str(src)]) == 0
    out = capsys.readouterr().out
    assert ("imported 1,234 memories" if terminal == "english" else "导入了 1,234 条记忆") in out
    turn = re.search(r"sonetto memory undo (\S+)", out).group(1)
    assert cli_main(["--store", str(store), "undo", turn]) == 0
    assert ("undid 1,234 changes" if terminal == "english" else "的 1,234 处改动") in capsys.readouterr().out


@pytest.fixture(scope="module")
def password_server():
    """A server of its own whose role ``mit_passwort`` must give its password."""
    import tempfile
    from pathlib import Path

    from pg_fixtures import _unavailable
    from pg_server import PgServer, bin_dir

    pytest.importorskip("psycopg")
    if bin_dir() is None:
        _unavailable("no PostgreSQL server binaries (apt-get install postgresql)")
    server = PgServer.start(Path(tempfile.mkdtemp(prefix="sonetto-pg-pw-")))
    try:
        server.ask_password({"mit_passwort": "Richtig-Pw-3f2"})
        yield server
    finally:
        server.stop()


def _settings_with_a_wrong_password(password_server, locale, monkeypatch) -> None:
    """The app's settings name the server that asks for a password, with a wrong one; the terminal in ``locale``."""
    from sonetto_desktop.config.settings import Settings

    monkeypatch.setenv("LANG", locale)
    settings = Settings.load(with_secret=False)
    settings.store_backend, settings.retrieval_mode = "postgres", "mechanical"
    settings.postgres_url = f"postgresql://mit_passwort@127.0.0.1:{password_server.port}/sonetto_test"
    settings.postgres_password, settings.postgres_tls = "falsch", "disable"
    settings.save()


@pytest.mark.parametrize("locale", ["zh_CN.UTF-8", "en_US.UTF-8"])
@pytest.mark.parametrize("command", [["list"], ["add", "小林喜欢猫"]])
def test_a_memory_server_that_refuses_the_password_is_said_so_not_to_be_waited_for(
        password_server, command, locale, monkeypatch, capsys):
    """A wrong password ended with "…等它恢复后再试" (try again once it is back): the server was up and would never
    take that password. The refusal is worded by its kind, as the window words it, with where to mend it."""
    _settings_with_a_wrong_password(password_server, locale, monkeypatch)
    assert cli_main(command) == 2, command
    out, err = capsys.readouterr()
    assert out == "" and "password authentication failed" in err, err  # (the server's own words, in brackets)
    if locale.startswith("zh"):
        assert "密码" in err and "设置 → 多设备" in err and "恢复" not in err and "连不上" not in err, err
    else:
        assert "password" in err.replace("password authentication", "") and "Settings → Devices" in err, err
        assert "once it is back" not in err and "cannot be reached" not in err, err


@pytest.mark.parametrize("locale", ["zh_CN.UTF-8", "en_US.UTF-8"])
def test_check_against_a_server_that_refuses_the_password_says_why_and_where_to_correct_it(
        password_server, locale, monkeypatch, capsys):
    """``sonetto memory check`` said "WARN: … 连不上（…）：只读" (cannot be reached, read-only) and exited 0 when the
    server was up and refused the password: it says the refusal's reason, as the other commands do, and where to
    correct it, and fails."""
    _settings_with_a_wrong_password(password_server, locale, monkeypatch)
    code = cli_main(["check"])
    out, err = capsys.readouterr()
    said = out + err
    assert code != 0, said
    assert "password authentication failed" in said, said  # (the server's own words, in brackets)
    if locale.startswith("zh"):
        assert "密码" in said and "设置 → 多设备" in said and "连不上" not in said and "恢复" not in said, said
    else:
        assert "Settings → Devices" in said and "unreachable" not in said and "cannot be reached" not in said, said
        assert "password" in said.replace("password authentication", ""), said
