"""The wall's cards read from columns (issue 37: ``sonetto --self-test`` at 100,000 memories).

A card shows three values derived from a memory's history (``locked``, ``last_actor``, ``author``:
``record.DERIVED_CARD``), so the wall's read built every item and parsed every history (~1.4 s of
Python at 100,000 memories, ~2.9 s with real histories). The SQLite and PostgreSQL tables now keep
them as columns (``record.DERIVED_COLUMNS``), written with every row. Here:

- random sequences of every kind of write (add, update, merge, delete, restore, revert, lock and
  unlock, hit, pin, import, undoing a turn, purge, the self-check's repairs, a migration) leave the
  columns equal to what the history says, on SQLite and on PostgreSQL, and the wall's read
  (``fields_of_all``, ``read_cards``) equal to a read of each item;
- the wall's read of an SQLite store does not read the ``history`` column at all;
- a file or a server store made by the previous release gains the columns (their values derived on
  read until the self-check fills them in), and rows written later without them — an older
  release, a hand edit, another device's older app — read as not known, never as stale.
"""

from __future__ import annotations

import json
import os
import sqlite3
import tempfile
import uuid
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, Turn, YamlMemoryManager
from sonetto_desktop.memory.errors import MemoryError_
from sonetto_desktop.memory.record import CARD, DERIVED_CARD, card_state
from sonetto_desktop.memory.stores.migrate import migrate_store
from sonetto_desktop.presentation.cards import card_from_item, read_cards

ACTORS = ("user", "agent", "mcp:cursor", "cli", "mcp:notes")
text = st.text(alphabet="猫狗上海火锅ab ", min_size=1, max_size=5).filter(str.strip)
pick = st.integers(0, 9)
actor = st.sampled_from(ACTORS)
op = st.one_of(
    st.tuples(st.just("add"), text, st.sampled_from(["品味", "工作"]), actor),
    st.tuples(st.just("update"), pick, text, actor),
    st.tuples(st.just("move"), pick, st.sampled_from(["品味", "工作", "家人"]), actor),
    st.tuples(st.just("merge"), pick, pick, actor),
    st.tuples(st.just("delete"), pick, actor),
    st.tuples(st.just("restore"), pick, actor),
    st.tuples(st.just("revert"), pick, st.integers(0, 3), actor),
    st.tuples(st.just("lock"), pick, st.booleans(), actor),
    st.tuples(st.just("hit"), pick, actor),
    st.tuples(st.just("pin"), pick, st.booleans()),
    st.tuples(st.just("import"), st.integers(0, 3), actor),
    st.tuples(st.just("turn"), st.lists(st.tuples(pick, text), min_size=1, max_size=3), actor),
    st.tuples(st.just("undo"), st.integers(0, 3)),
    st.tuples(st.just("purge"), pick),
)


def _imported(n: int, who: str) -> dict[str, MemoryItem]:
    """Items as an import brings them: their own histories (an app's, a lock, an absorbed entry)."""
    items = {}
    for i in range(n):
        item = MemoryItem(f"导入的第{i}条{uuid.uuid4().hex[:4]}", "导入")
        item.record_creation(who, "导入")
        if i % 2:
            item.update("改写", new_description=item.description + "。", actor="mcp:notes")
        if i % 3 == 2:
            item.set_locked(True, actor="user")
        item.history.append({"time": "2026-01-01T00:00:00", "action": "update", "actor": "agent", "from": "zz"})
        items[uuid.uuid4().hex[:8]] = item
    return items


def _apply(mm, state: dict, action: tuple) -> None:
    """One write; refusals (a missing id, a locked memory, nothing to undo...) are part of the game."""
    ids = [r["id"] for r in mm.show()]
    trash = [t["id"] for t in mm.list_trash()]
    at = (lambda i: ids[i % len(ids)]) if ids else (lambda i: "none0000")
    kind = action[0]
    try:
        if kind == "add":
            mm.add(action[1], action[2], actor=action[3], reason="加")
        elif kind == "update":
            mm.update(at(action[1]), "改", new_description=action[2], actor=action[3])
        elif kind == "move":
            mm.update(at(action[1]), "挪", new_theme=action[2], actor=action[3])
        elif kind == "merge":
            mm.merge(at(action[1]), at(action[2]), "合起来", "品味", "重复", actor=action[3])
        elif kind == "delete":
            mm.delete(at(action[1]), "删", actor=action[2])
        elif kind == "restore":
            mm.restore(trash[action[1] % len(trash)] if trash else "none0000", actor=action[2])
        elif kind == "revert":
            mm.revert(at(action[1]), action[2], "回到从前", actor=action[3])
        elif kind == "lock":
            mm.set_locked(at(action[1]), action[2], actor=action[3])
        elif kind == "hit":
            mm.hit(at(action[1]), actor=action[2])
        elif kind == "pin":
            mm.set_field(at(action[1]), "pinned", action[2], actor="user")
        elif kind == "import":
            mm.import_items(_imported(action[1], action[2]), actor=action[2], reason="导入")
        elif kind == "turn":
            turn = Turn(f"turn-{uuid.uuid4().hex[:6]}", "s1", "原话")
            with mm.group():
                for i, desc in action[1]:
                    mm.update(at(i), "对话里说的", new_description=desc, actor=action[2], turn=turn)
            state.setdefault("turns", []).append(turn.turn_id)
        elif kind == "undo":
            turns = state.get("turns") or ["none"]
            mm.undo_turn(turns[action[1] % len(turns)], keep_touched=True)
        elif kind == "purge":
            mm.purge(trash[action[1] % len(trash)] if trash else "none0000")
    except (MemoryError_, ValueError):
        pass


def stored_derived(mm) -> dict[str, tuple]:
    """The derived columns as the table holds them (read past the store, as another program would)."""
    if isinstance(mm, SqliteMemoryManager):
        conn = sqlite3.connect(mm.path)
        try:
            rows = conn.execute(f"SELECT id, {', '.join(DERIVED_CARD)} FROM memories").fetchall()
        finally:
            conn.close()
        return {mid: (None if locked is None else bool(locked), *rest) for mid, locked, *rest in rows}
    import psycopg

    with psycopg.connect(mm.location.url, autocommit=True) as conn:
        rows = conn.execute(f'SELECT id, {", ".join(DERIVED_CARD)} FROM "{mm.location.schema}".memories').fetchall()
    return {mid: tuple(rest) for mid, *rest in rows}


def assert_cards_right(mm, *, filled: bool = True) -> None:
    """The wall's read gives what a read of each item gives; with ``filled``, the columns hold it too."""
    items = {mid: mm.get(mid) for mid in (r["id"] for r in mm.show())}
    derived = {mid: tuple(getattr(item, name) for name in DERIVED_CARD) for mid, item in items.items()}
    if filled:
        assert stored_derived(mm) == derived
    assert mm.fields_of_all(CARD) == {mid: tuple(card_state(item)[name] for name in CARD)
                                     for mid, item in items.items()}
    assert sorted(read_cards(mm)) == sorted(card_from_item(mid, item) for mid, item in items.items())


def _open(backend: str, folder: Path, url: str | None):
    if backend == "sqlite":
        return SqliteMemoryManager(folder / "memory.db")
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

    return PostgresMemoryManager(url, schema=f"t_cards_{uuid.uuid4().hex[:12]}", device="test", listen=False)


def _drop(mm) -> None:
    if isinstance(mm, SqliteMemoryManager):
        return
    from pg_fixtures import drop_schema

    drop_schema(mm.location.url, mm.location.schema)


@pytest.mark.parametrize("backend", ["sqlite", "postgres"])
def test_every_write_keeps_the_card_columns_right(backend, request):
    url = request.getfixturevalue("pg_server").url if backend == "postgres" else None

    @settings(max_examples=25 if backend == "sqlite" else 12, deadline=None,
              suppress_health_check=[HealthCheck.too_slow])
    @given(ops=st.lists(op, min_size=1, max_size=20))
    def run(ops):
        with tempfile.TemporaryDirectory() as folder:
            mm = _open(backend, Path(folder), url)
            try:
                state: dict = {}
                for action in ops:
                    _apply(mm, state, action)
                assert_cards_right(mm)
                report = mm.self_check()  # nothing to fill in: every write kept them
                assert report.ok and stored_derived(mm) == {
                    mid: tuple(getattr(mm.get(mid), n) for n in DERIVED_CARD) for mid in stored_derived(mm)}
            finally:
                mm.close()
                _drop(mm)

    run()


def test_a_migration_and_the_self_checks_repairs_write_the_card_columns(tmp_path, pg_server):
    source = YamlMemoryManager(tmp_path / "memory.yaml")
    source.import_items(_imported(6, "user"))
    kept = source.add("小林喜欢猫", "品味", actor="agent")
    source.set_locked(kept, True, actor="user")
    sqlite = SqliteMemoryManager(tmp_path / "memory.db")
    server = _open("postgres", tmp_path, pg_server.url)
    try:
        migrate_store(source, sqlite)
        migrate_store(sqlite, server)
        for store in (sqlite, server):
            assert_cards_right(store)
            assert store.fields_of_all(("locked",))[kept] == (True,)
        conn = sqlite3.connect(sqlite.path)  # a row the self-check repairs (written whole again)
        conn.execute("UPDATE memories SET theme = '  工作  ', hit = -3 WHERE id = ?", (kept,))
        conn.commit()
        conn.close()
        report = sqlite.self_check()
        assert report.repaired and sqlite.get(kept).theme == "工作"
        assert_cards_right(sqlite)
    finally:
        for store in (source, sqlite, server):
            store.close()
        _drop(server)


class _Reads:
    """Which columns of ``memories`` a connection's statements read (SQLite's authorizer)."""

    def __init__(self) -> None:
        self.columns: set[str] = set()

    def __call__(self, action, table, column, *_):
        if action == sqlite3.SQLITE_READ and table == "memories":
            self.columns.add(column)
        return sqlite3.SQLITE_OK


def test_the_walls_read_of_an_sqlite_store_leaves_every_history_unread(tmp_path):
    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        mm.import_items(_imported(5, "agent"))
        mid = mm.add("小林喜欢猫", "品味", actor="mcp:cursor")
        mm.set_locked(mid, True, actor="user")
        reads = _Reads()
        mm._conn().set_authorizer(reads)  # this thread's connection: the one the read below uses
        cards = read_cards(mm)
        mm._conn().set_authorizer(None)
        assert "history" not in reads.columns and {"description", "locked", "author"} <= reads.columns
        [card] = [c for c in cards if c[0] == mid]
        assert card == card_from_item(mid, mm.get(mid)) and card[6] is True and card[9] == "mcp:cursor"
    finally:
        mm.close()


def test_recalls_reads_of_every_memory_leave_every_history_unread(tmp_path):
    """Issue 37: the recall index's build and check and the recall listing's first fill built every
    memory (at 100,000: ~6 s and ~87 MB); they read five columns (``retrieval.card_fields``), with
    the values an item gives, an app's memory and a locked one included."""
    from sonetto_desktop.memory.retrieval.card_fields import CardFields, card_fields
    from sonetto_desktop.memory.retrieval.listing import RecallListing
    from sonetto_desktop.memory.retrieval.mechanical import MechanicalRetriever

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        mm.import_items(_imported(6, "agent"))
        mine = mm.add("小林喜欢猫，尤其是橘猫", "品味", actor="user")
        app = mm.add("小林在用 Cursor 写代码", "工作", actor="mcp:cursor")
        mm.hit(mine)
        reads = _Reads()
        mm._conn().set_authorizer(reads)  # this thread's connection: the reads below run on it
        fields = card_fields(mm)
        retriever = MechanicalRetriever(mm, index_path=False)
        found = retriever.retrieve("橘猫")
        listing = RecallListing(mm)
        snapshot = listing.snapshot()
        mm._conn().set_authorizer(None)
        assert "history" not in reads.columns and {"description", "author"} <= reads.columns
        items = mm.all_items()
        assert fields == {mid: CardFields(i.description, i.theme, i.latest_update_time, i.hit, i.author)
                          for mid, i in items.items()}
        assert fields[app].author == "mcp:cursor" and fields[mine].hit == 1
        assert found and found[0]["id"] == mine
        assert set(snapshot.by_id) == set(items)  # every memory listed
        retriever.close()
        listing.close()
    finally:
        mm.close()


# ── stores made by the previous release ─────────────────────────────────────

#: The ``memories`` table as the release before the derived columns made it (the rest as today).
PREVIOUS_SQLITE = """
CREATE TABLE memories (id TEXT PRIMARY KEY, description TEXT NOT NULL, theme TEXT NOT NULL,
    history TEXT NOT NULL DEFAULT '[]', latest_update_time TEXT NOT NULL, hit INTEGER NOT NULL DEFAULT 0,
    pinned BOOLEAN NOT NULL DEFAULT FALSE, extra TEXT NOT NULL DEFAULT '{}');
CREATE TABLE trash (id TEXT PRIMARY KEY, entry TEXT NOT NULL, deleted_at TEXT);
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);
INSERT INTO meta VALUES ('schema_version', '1');
CREATE TABLE changes (seq INTEGER PRIMARY KEY AUTOINCREMENT, time TEXT NOT NULL, origin TEXT NOT NULL,
    kind TEXT NOT NULL, turn_id TEXT, record TEXT NOT NULL);
CREATE INDEX changes_by_turn ON changes (turn_id);
"""
PREVIOUS_COLUMNS = "id, description, theme, history, latest_update_time, hit, pinned, extra"


def _history(*entries: tuple[str, str]) -> str:
    return json.dumps([{"time": f"2026-01-0{i + 1}T00:00:00", "action": action, "actor": who, "reason": "r"}
                       for i, (action, who) in enumerate(entries)], ensure_ascii=False)


#: Rows as the previous release wrote them: an app's memory, the person's locked one, an app's edit
#: of the person's memory, one without any history.
PREVIOUS_ROWS = [
    ("app00001", "应用记下的", "工作", _history(("create", "mcp:cursor")), "2026-01-01T00:00:00", 1, 0, "{}"),
    ("lock0001", "锁住的", "身份", _history(("create", "agent"), ("lock", "user")), "2026-01-01T00:00:00", 0, 1, "{}"),
    ("mine0001", "我的", "品味", _history(("create", "user"), ("update", "mcp:notes")), "2026-01-02T00:00:00", 0, 0,
     '{"note": "手写"}'),
    ("bare0001", "没有历史", "品味", "[]", "2026-01-03T00:00:00", 0, 0, "{}"),
]
EXPECTED = {"app00001": (False, "mcp:cursor", "mcp:cursor"), "lock0001": (True, "agent", "agent"),
            "mine0001": (False, "mcp:notes", "user"), "bare0001": (False, "imported", "imported")}


def _previous_release_write(conn, table: str, row: tuple, mark: str) -> None:
    """What the previous release's whole-row write does (it knows none of the derived columns)."""
    conn.execute(f"INSERT OR REPLACE INTO {table} ({PREVIOUS_COLUMNS}) VALUES ({mark})", row)


def test_a_file_of_the_previous_release_reads_right_and_is_filled_in(tmp_path):
    path = tmp_path / "memory.db"
    conn = sqlite3.connect(path)
    conn.executescript(PREVIOUS_SQLITE)
    conn.executemany(f"INSERT INTO memories VALUES ({', '.join('?' * 8)})", PREVIOUS_ROWS)
    conn.commit()
    conn.close()
    mm = SqliteMemoryManager(path)
    try:
        assert stored_derived(mm) == {mid: (None, None, None) for mid in EXPECTED}  # not known yet
        assert {mid: v[-3:] for mid, v in mm.fields_of_all(CARD).items()} == EXPECTED  # derived on read
        assert_cards_right(mm, filled=False)
        report = mm.self_check()
        assert report.status == "OK" and not report.repaired  # filling them in is no repair of a memory
        assert stored_derived(mm) == EXPECTED
        assert mm.get("mine0001").extra == {"note": "手写"}
        # the previous release, still installed, writes a row whole: the derived values are not known
        conn = sqlite3.connect(path)
        _previous_release_write(conn, "memories", ("app00001", "应用改过", "工作",
                                                   _history(("create", "mcp:cursor"), ("update", "user")),
                                                   "2026-02-01T00:00:00", 1, 0, "{}"), ", ".join("?" * 8))
        conn.execute("UPDATE memories SET history = ? WHERE id = 'lock0001'",  # a hand edit: unlocked
                     (_history(("create", "agent"), ("lock", "user"), ("unlock", "user")),))
        conn.execute("UPDATE memories SET hit = 5 WHERE id = 'mine0001'")  # not the history: still known
        conn.commit()
        conn.close()
        assert stored_derived(mm)["app00001"] == (None, None, None)
        assert stored_derived(mm)["lock0001"] == (None, None, None)
        assert stored_derived(mm)["mine0001"] == EXPECTED["mine0001"]
        assert mm.fields_of_all(("locked", "author"))["app00001"] == (False, "user")
        assert mm.fields_of_all(("locked",))["lock0001"] == (False,)
        assert_cards_right(mm, filled=False)
        mm.self_check()
        assert_cards_right(mm)
    finally:
        mm.close()
    again = SqliteMemoryManager(path)  # opened again: nothing to upgrade, nothing lost
    try:
        assert_cards_right(again)
    finally:
        again.close()


_READ_ONLY_CHILD = """
import json, os, sys
from sonetto_desktop.memory import SqliteMemoryManager
from sonetto_desktop.memory.record import CARD
if sys.argv[2] != "-":  # root may write anything: read as nobody (everything imported while we may)
    os.setgid(int(sys.argv[2]))
    os.setuid(int(sys.argv[2]))
mm = SqliteMemoryManager(sys.argv[1])
print(json.dumps({"read_only": mm.read_only, "cards": {k: v[-3:] for k, v in mm.fields_of_all(CARD).items()}}))
mm.close()
"""


@pytest.mark.skipif(os.name != "posix", reason="permissions are POSIX")
def test_a_read_only_file_of_the_previous_release_derives_its_cards():
    import shutil
    import subprocess
    import sys

    folder = Path(tempfile.mkdtemp(prefix="sonetto-ro-"))  # reachable by another user (tmp_path is not)
    path = folder / "memory.db"
    try:
        conn = sqlite3.connect(path)
        conn.executescript(PREVIOUS_SQLITE)
        conn.executemany(f"INSERT INTO memories VALUES ({', '.join('?' * 8)})", PREVIOUS_ROWS)
        conn.commit()
        conn.close()
        path.chmod(0o444)
        folder.chmod(0o555)
        uid = "65534" if os.geteuid() == 0 else "-"
        done = subprocess.run([sys.executable, "-c", _READ_ONLY_CHILD, str(path), uid], capture_output=True,
                              text=True, timeout=60, cwd=Path(__file__).resolve().parent.parent)
        assert done.returncode == 0, done.stderr
        read = json.loads(done.stdout)
        assert read["read_only"] is True  # (the columns could not be added: it is read as it is)
        assert {mid: tuple(v) for mid, v in read["cards"].items()} == EXPECTED
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder, ignore_errors=True)


def test_a_server_store_of_the_previous_release_and_its_older_devices(tmp_path, pg_server):
    import psycopg

    from sonetto_desktop.memory.stores.postgres.schema import SCHEMA_VERSION

    url = pg_server.url
    schema = f"t_cards_{uuid.uuid4().hex[:12]}"
    previous = PREVIOUS_SQLITE.replace("INTEGER PRIMARY KEY AUTOINCREMENT",
                                       "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY")
    with psycopg.connect(url, autocommit=True) as conn:  # as the previous release (version 2) left it
        conn.execute(f'CREATE SCHEMA "{schema}"')
        conn.execute(f'SET search_path TO "{schema}"')
        for statement in previous.split(";"):
            if statement.strip():
                conn.execute(statement)
        conn.execute("ALTER TABLE trash ADD COLUMN deleted_server TIMESTAMPTZ NOT NULL DEFAULT now()")
        conn.execute("ALTER TABLE changes ADD COLUMN device TEXT NOT NULL DEFAULT ''")
        conn.execute("ALTER TABLE changes ALTER COLUMN time SET DEFAULT now()::text")
        conn.execute("UPDATE meta SET value = '2' WHERE key = 'schema_version'")
        conn.execute("INSERT INTO meta VALUES ('pruned_through', '0')")
        with conn.cursor() as cur:
            cur.executemany(f"INSERT INTO memories VALUES ({', '.join(['%s'] * 8)})",
                            [(*row[:6], bool(row[6]), row[7]) for row in PREVIOUS_ROWS])
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

    mm = PostgresMemoryManager(url, schema=schema, device="desk", listen=False)
    try:
        with psycopg.connect(url, autocommit=True) as conn:
            assert conn.execute(f"SELECT value FROM \"{schema}\".meta WHERE key = 'schema_version'").fetchone() == (
                SCHEMA_VERSION,)
        assert stored_derived(mm) == {mid: (None, None, None) for mid in EXPECTED}
        assert {mid: v[-3:] for mid, v in mm.fields_of_all(CARD).items()} == EXPECTED
        report = mm.self_check()
        assert report.status == "OK" and not report.repaired
        assert stored_derived(mm) == EXPECTED
        mm.update("lock0001", "改", new_theme="工作", actor="user")  # this release's write keeps them
        assert stored_derived(mm)["lock0001"] == (True, "user", "user")
        # a device still running the previous release edits a memory it can see (its whole-row upsert)
        with psycopg.connect(url, autocommit=True) as old_device:
            old_device.execute(
                f'INSERT INTO "{schema}".memories ({PREVIOUS_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) '
                "ON CONFLICT (id) DO UPDATE SET description = EXCLUDED.description, history = EXCLUDED.history,"
                " latest_update_time = EXCLUDED.latest_update_time",
                ("app00001", "应用改过", "工作", _history(("create", "mcp:cursor"), ("update", "user")),
                 "2026-02-01T00:00:00", 1, False, "{}"))
            old_device.execute(
                f'INSERT INTO "{schema}".memories ({PREVIOUS_COLUMNS}) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)',
                ("new00001", "旧设备新记的", "工作", _history(("create", "mcp:cursor")), "2026-02-02T00:00:00", 0,
                 False, "{}"))
        assert stored_derived(mm)["app00001"] == (None, None, None)  # cleared, never stale
        assert stored_derived(mm)["new00001"] == (None, None, None)
        assert mm.fields_of_all(("author",))["app00001"] == ("user",)
        assert_cards_right(mm, filled=False)
        mm.self_check()
        assert_cards_right(mm)
    finally:
        mm.close()
        _drop(mm)


def test_cards_of_odd_memories_are_made_as_make_card_makes_them(tmp_path):
    """A store whose items hold values of other types (a YAML entry without a description, a hand-written
    time) gives the same cards as one made from each item (``read_cards`` takes them one by one then)."""
    path = tmp_path / "memory.yaml"
    path.write_text("aa000001:\n  theme: 品味\n  history: []\n  latest_update_time: 上周三\n  hit: 2\n"
                    "aa000002:\n  description: 喜欢猫\n  theme: 品味\n  latest_update_time: '2026-01-02T03:04:05'\n"
                    "  hit: 1\n", encoding="utf-8")
    mm = YamlMemoryManager(path)
    try:
        items = mm.all_items()
        assert items["aa000001"].description is None  # (what the wall shows as an empty card)
        cards = read_cards(mm)
        assert sorted(cards) == sorted(card_from_item(mid, item) for mid, item in items.items())
        assert [c for c in cards if c[0] == "aa000001"][0][1:3] == ("", "品味")
    finally:
        mm.close()


def test_a_dropped_trigger_is_put_back_and_what_was_written_meanwhile_is_not_trusted(tmp_path, pg_server):
    import psycopg

    sqlite = SqliteMemoryManager(tmp_path / "memory.db")
    server = _open("postgres", tmp_path, pg_server.url)
    try:
        for store in (sqlite, server):
            mid = store.add("锁过又解开", "身份", actor="agent")
            store.set_locked(mid, True, actor="user")
            store.close()
            unlocked = _history(("create", "agent"), ("lock", "user"), ("unlock", "user"))
            if store is sqlite:  # a hand edit with the trigger gone: the history changes, the columns stay
                conn = sqlite3.connect(store.path)
                conn.execute("DROP TRIGGER memories_derived_unknown")
                conn.execute("UPDATE memories SET history = ? WHERE id = ?", (unlocked, mid))
                conn.commit()
                conn.close()
                again = SqliteMemoryManager(store.path)
            else:
                schema = store.location.schema
                with psycopg.connect(pg_server.url, autocommit=True) as admin:
                    admin.execute(f'DROP TRIGGER memories_derived_unknown ON "{schema}".memories')
                    admin.execute(f'UPDATE "{schema}".memories SET history = %s WHERE id = %s', (unlocked, mid))
                again = type(store)(pg_server.url, schema=schema, device="test", listen=False)
            try:
                assert again.get(mid).locked is False
                assert again.fields_of_all(("locked",))[mid] == (False,)  # not the stale True
                assert_cards_right(again, filled=False)
                again.self_check()
                assert_cards_right(again)
            finally:
                again.close()
    finally:
        _drop(server)


def test_cards_made_a_chunk_at_a_time_keep_the_listings_order(tmp_path, monkeypatch):
    """``read_cards`` makes the cards ``CHUNK`` rows per call into C (so a worker lets the window have the
    GIL between chunks): across chunk boundaries the cards and their order are those of one pass."""
    from sonetto_desktop.presentation import cards as card_module

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        mm.import_items(_imported(5, "agent"))
        for i in range(6):
            mm.add(f"小林第{i}次提到猫", "品味" if i % 2 else "身份", actor="agent")
        whole = read_cards(mm)
        monkeypatch.setattr(card_module, "CHUNK", 2)
        chunked = read_cards(mm)
        assert chunked == whole and len(whole) == 11
        assert sorted(chunked) == sorted(card_from_item(r["id"], mm.get(r["id"])) for r in mm.show())
        assert [c[2] for c in chunked] == sorted((c[2] for c in chunked), key=[c[2] for c in chunked].index)
    finally:
        mm.close()


def test_the_wall_following_many_changed_memories_reads_those_rows_only(tmp_path):
    """Issue 37: the wall's refresh of 33 or more memories a change named (``ops.Fetch``: another
    process's import, a bulk action seen through the watcher) read every memory of the store (at
    100,000: ~6 s and ~87 MB); it reads those rows. Same items, a small part of the memory."""
    import tracemalloc

    from sonetto_desktop import ops
    from sonetto_desktop.memory.item import MemoryItem
    from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager
    from sonetto_desktop.memory import MemoryOperations
    from sonetto_desktop.ops import OpTarget

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        mm.import_items({f"m{i:05d}": MemoryItem(f"第{i}条：小林记下了一件关于第{i % 17}个朋友的小事。" * 3, "瞬间")
                         for i in range(4000)})
        asked = tuple(f"m{i:05d}" for i in range(0, 4000, 40)) + ("gone0000",)
        target = OpTarget(MemoryOperations(mm))
        tracemalloc.start()
        try:
            fetched = ops.Fetch(asked).apply(target)
            _now, peak = tracemalloc.get_traced_memory()
            tracemalloc.reset_peak()
            everything = mm.all_items()
            _now, whole = tracemalloc.get_traced_memory()
        finally:
            tracemalloc.stop()
        assert list(fetched) == list(asked) and fetched["gone0000"] is None
        assert all(fetched[mid].to_dict() == everything[mid].to_dict() for mid in asked[:-1])
        assert peak * 10 < whole, f"{peak / 1024:.0f} KB for {len(asked)} memories against {whole / 1024:.0f} KB for all"
    finally:
        mm.close()


def test_an_import_preview_reads_the_stored_texts_and_themes_not_every_history(tmp_path):
    """``sonetto memory import --dry-run`` / the import dialog's preview compared the file with every
    stored memory built whole; it reads the two columns the import compares, with the same outcome."""
    from sonetto_desktop.memory.import_preview import NEW, NEW_ID, SKIPPED, preview_import

    mm = SqliteMemoryManager(tmp_path / "memory.db")
    try:
        mm.import_items(_imported(5, "agent"))
        kept = mm.add("小林讨厌香菜", "品味", actor="user")
        stored = mm.get(kept)
        reads = _Reads()
        mm._conn().set_authorizer(reads)
        preview = preview_import(mm, {"fresh001": MemoryItem("小林喜欢爵士", "音乐"),
                                      kept: MemoryItem("小林换了新工作", "工作"),
                                      "dup00001": MemoryItem(stored.description, stored.theme)})
        mm._conn().set_authorizer(None)
        assert "history" not in reads.columns and {"description", "theme"} <= reads.columns
        assert {row.memory_id: row.outcome for row in preview.rows} == {
            "fresh001": NEW, kept: NEW_ID, "dup00001": SKIPPED}
    finally:
        mm.close()
