"""The PostgreSQL backend's settings (password in secret storage), the connection test, and moving
a data dir's memories onto the server and back with the lossless migration."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from sonetto_desktop.config.paths import config_dir
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory import SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.memory.stores.postgres.location import PgLocation
from sonetto_desktop.memory.stores.postgres.migrate import CACHE_FILE, copy_back, open_postgres_store
from sonetto_desktop.postgres_setup import check_connection
from sonetto_desktop.services import AppServices

PASSWORD = "pg-Secret-9f8e7d"


def test_postgres_settings_round_trip_and_the_password_stays_out_of_the_file():
    settings = Settings(store_backend="postgres", postgres_url="postgresql://me@db.example:5432/mem",
                        postgres_password=PASSWORD, postgres_tls="require", postgres_schema="xiaolin",
                        postgres_sessions=True, device_name="书房台式机")
    settings.save()
    raw = (config_dir() / "settings.json").read_text(encoding="utf-8")
    assert PASSWORD not in raw and PASSWORD not in repr(settings)
    assert json.loads(raw)["postgres_sessions"] is True
    key_file = config_dir() / "postgres_password"
    assert key_file.read_text(encoding="utf-8") == PASSWORD and (key_file.stat().st_mode & 0o077) == 0
    loaded = Settings.load()
    assert loaded == settings and loaded.postgres_password == PASSWORD
    assert Settings.load(with_secret=False).postgres_password == ""


def test_postgres_settings_are_validated():
    assert [p.field for p in Settings(store_backend="postgres").validate()] == ["postgres_url"]
    bad = Settings(store_backend="postgres", postgres_url="http://db.example/mem").validate()
    assert [p.field for p in bad] == ["postgres_url"] and "postgresql://" in bad[0].en
    assert Settings(store_backend="postgres", postgres_url="postgresql://db.example/mem").validate() == []
    assert [p.field for p in Settings(postgres_tls="maybe").validate()] == ["postgres_tls"]
    config_dir().mkdir(parents=True, exist_ok=True)
    (config_dir() / "settings.json").write_text(json.dumps({"postgres_sessions": "yes", "postgres_tls": "x"}))
    loaded = Settings.load()
    assert loaded.postgres_sessions is False and loaded.postgres_tls == "prefer"  # bad values: defaults


def test_check_connection_reports_the_server_or_the_reason(pg_url, pg_schema):
    ok = check_connection(Settings(store_backend="postgres", postgres_url=pg_url, postgres_schema=pg_schema))
    assert ok.ok and ok.server_version and ok.memories is None and "连接成功" in ok.zh
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    url = f"postgresql://me:{PASSWORD}@127.0.0.1:{dead}/x"
    failed = check_connection(Settings(store_backend="postgres", postgres_url=url))
    assert not failed.ok and "连接失败" in failed.zh and PASSWORD not in failed.zh + failed.en
    assert not check_connection(Settings(store_backend="postgres", postgres_url="mysql://x")).ok


def _fill(mm) -> dict:
    a = mm.add("用户喜欢猫", "偏好", reason="聊天里说的")
    b = mm.add("用户住在杭州", "身份")
    mm.update(a, "更具体", new_description="用户喜欢橘猫")
    mm.hit(b)
    c = mm.add("用户下周去上海出差", "计划")
    mm.delete(c, "计划取消了")
    return {k: v.to_dict() for k, v in mm.all_items().items()}


@pytest.mark.parametrize("local", ["sqlite", "yaml"])
def test_a_local_store_moves_onto_an_empty_server_and_back(local, pg_url, pg_schema, tmp_path):
    desk_dir = tmp_path / "desk"
    desk_dir.mkdir()
    src = (SqliteMemoryManager(desk_dir / "memory.db") if local == "sqlite"
           else YamlMemoryManager(desk_dir / "memory.yaml"))
    before = _fill(src)
    trash_before = {t["id"] for t in src.list_trash()}
    src.close()
    location = PgLocation(pg_url, pg_schema)
    server, report = open_postgres_store(desk_dir, location, device="desk")
    try:
        assert (report.items, report.trash) == (2, 1)
        assert {k: v.to_dict() for k, v in server.all_items().items()} == before  # histories, hits, times
        assert {t["id"] for t in server.list_trash()} == trash_before
        assert not (desk_dir / f"memory.{'db' if local == 'sqlite' else 'yaml'}").exists()
        assert [p.name for p in desk_dir.iterdir() if ".migrated-" in p.name]  # kept, renamed
        # a second device with memories of its own joins: nothing is mixed in
        laptop_dir = tmp_path / "laptop"
        laptop_dir.mkdir()
        own = SqliteMemoryManager(laptop_dir / "memory.db")
        own.add("笔记本上的旧记忆", "瞬间")
        own.close()
        joined, joined_report = open_postgres_store(laptop_dir, location, device="laptop")
        joined.close()
        assert joined_report is None and server.count() == 2 and (laptop_dir / "memory.db").exists()
        # and back: a third data dir leaving the server takes the memories along
        back = copy_back(server, tmp_path / "back", "yaml")
        assert (back.items, back.trash) == (2, 1)
        local_again = YamlMemoryManager(tmp_path / "back" / "memory.yaml")
        assert {k: v.to_dict() for k, v in local_again.all_items().items()} == before
        local_again.close()
        assert server.count() == 2  # the server keeps its copy for the other devices
    finally:
        server.close()


def test_a_memory_with_a_nul_moves_onto_the_server_and_a_cut_off_move_leaves_nothing(pg_url, pg_schema, tmp_path,
                                                                                        monkeypatch):
    """SQLite and YAML keep a NUL in a text, PostgreSQL refuses it: the move failed, and it had
    committed the trash before the memories, so the server held a trash, was no longer empty, and the
    move was never tried again (the server's store stayed without memories). A NUL becomes U+FFFD on the
    server; memories and trash move in one transaction."""
    from sonetto_desktop.memory.stores.postgres.transaction import PgTransaction

    desk = tmp_path / "desk"
    desk.mkdir()
    src = SqliteMemoryManager(desk / "memory.db")
    cat = src.add("用户喜欢猫", "品味")
    odd = src.add("备注\x00二进制", "品味", reason="带\x00的理由")
    gone = src.add("下周出差", "时效待办")
    src.delete(gone, "取消了")
    src.close()
    location = PgLocation(pg_url, pg_schema)

    def cut_off(self, items):  # the connection drops while the memories are written
        raise OSError("server closed the connection unexpectedly")

    with monkeypatch.context() as patch:
        patch.setattr(PgTransaction, "put_new", cut_off)
        server, report = open_postgres_store(desk, location, device="desk")
        assert report is None and server.count() == 0 and server.list_trash() == []  # nothing half moved
        server.close()
    assert (desk / "memory.db").exists()
    server, report = open_postgres_store(desk, location, device="desk")  # the next start moves them
    try:
        assert report is not None and (report.items, report.trash) == (2, 1)
        assert server.get(cat).description == "用户喜欢猫"
        assert server.get(odd).description == "备注\ufffd二进制"
        assert [t["id"] for t in server.list_trash()] == [gone]
        server.update(odd, "改\x00一下", new_description="备注\x00又改了")  # a later write with a NUL too
        assert server.get(odd).description == "备注\ufffd又改了"
    finally:
        server.close()


async def test_switching_the_backend_in_the_settings_moves_the_memories(pg_url, pg_schema, tmp_path):
    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend="sqlite")
    services = await AppServices.open(settings=settings, watch=False)
    try:
        memory_id = services.memory.add("用户喜欢爵士乐", "音乐").ids[0]
        to_server = Settings(**{**settings.to_dict(), "store_backend": "postgres", "postgres_url": pg_url,
                                "postgres_schema": pg_schema, "device_name": "desk"})
        await services.apply_settings(to_server)
        assert services.migration is not None and services.migration.items == 1
        assert type(services.store).__name__ == "PostgresMemoryManager" and services.store_status.online
        assert services.memory.get(memory_id).description == "用户喜欢爵士乐"
        services.memory.add("在服务器上写的", "瞬间")
        await services.apply_settings(Settings(**{**to_server.to_dict(), "store_backend": "sqlite"}))
        assert (Path(settings.data_dir) / CACHE_FILE).exists()  # the device's copy, saved at the latest on close
        assert type(services.store).__name__ == "SqliteMemoryManager" and services.memory.count() == 2
    finally:
        await services.close()
    assert os.path.exists(Path(settings.data_dir) / "memory.db")


async def test_a_switch_whose_move_fails_keeps_this_computers_store(pg_url, pg_schema, tmp_path, monkeypatch):
    """The move onto the server failed (the connection dropped while the memories were written): the
    switch opened the server's empty store, the memories seemed gone, and once the server was
    written to they were never moved (a server with memories is not migrated into). The switch is
    refused; the SQLite store stays in use with its memories."""
    from sonetto_desktop.memory.stores.postgres.transaction import PgTransaction
    from sonetto_desktop.postgres_setup import SwitchRefused

    def cut_off(self, items):
        raise OSError("server closed the connection unexpectedly")

    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend="sqlite")
    services = await AppServices.open(settings=settings, watch=False)
    try:
        memory_id = services.memory.add("用户喜欢爵士乐", "音乐").ids[0]
        to_server = Settings(**{**settings.to_dict(), "store_backend": "postgres", "postgres_url": pg_url,
                                "postgres_schema": pg_schema})
        monkeypatch.setattr(PgTransaction, "put_new", cut_off)
        with pytest.raises(SwitchRefused) as refused:
            await services.apply_settings(to_server)
        assert pg_schema in refused.value.where and "memory.db" in refused.value.detail
        assert services.settings.store_backend == "sqlite"
        assert type(services.store).__name__ == "SqliteMemoryManager"
        assert services.memory.get(memory_id).description == "用户喜欢爵士乐"
    finally:
        await services.close()


# ── a password written into the server address, in any form libpq reads (issue 26, item 14) ──

SECRET = "pw-Query-7c6b5a"


def _address(form: str, host: str = "db.example", port: int = 5432, db: str = "mem", user: str = "me") -> str:
    return {"userinfo": f"postgresql://{user}:{SECRET}@{host}:{port}/{db}?sslmode=disable",
            "query": f"postgresql://{user}@{host}:{port}/{db}?password={SECRET}&sslmode=disable",
            "keyword": f"host={host} port={port} user={user} password='{SECRET}' dbname={db} sslmode=disable"}[form]


FORMS = ("userinfo", "query", "keyword")


@pytest.mark.parametrize("form", FORMS)
def test_every_form_of_a_password_is_taken_out_of_the_address(form):
    from sonetto_desktop.memory.stores.postgres.location import split_password
    from sonetto_desktop.redaction import scrub

    address = _address(form)
    bare, password = split_password(address)
    assert password == SECRET and SECRET not in bare
    assert "sslmode=disable" in bare and "db.example" in bare  # the rest is kept as written
    location = PgLocation(address, "sonetto")
    assert location.password == SECRET and location.connect_kwargs()["password"] == SECRET
    assert SECRET not in location.url + location.display() + str(location) + repr(location)
    assert SECRET not in scrub(f"could not open {address}: refused")
    assert Settings(store_backend="postgres", postgres_url=address).validate() == []


#: Passwords as people type them into the address, not percent-encoded: libpq reads ? and # there.
TYPED = ("pw?Query#7c/6b", "pw/Query-7c6b", "pw#Query-7c6b", "pw?Query-7c6b")


@pytest.mark.parametrize("password", TYPED)
def test_a_typed_password_holding_a_slash_a_question_mark_or_a_hash_is_taken_out_too(password, pg_server, pg_schema,
                                                                                   tmp_path, caplog):
    """It stayed in the address: shown on the settings page, in the window's banner, the command line's
    words and the store's errors (and libpq read its start as the port, its error quoting it), and kept
    in the settings file instead of the keyring."""
    from sonetto_desktop.memory.stores.postgres.location import split_password
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager
    from sonetto_desktop.postgres_setup import keep_password_out_of_settings

    address = f"postgresql://sonetto:{password}@127.0.0.1:{pg_server.port}/sonetto_test?sslmode=disable"
    assert split_password(address) == (f"postgresql://sonetto@127.0.0.1:{pg_server.port}/sonetto_test?sslmode=disable",
                                       password)
    store = PostgresMemoryManager(address, schema=pg_schema, device="desk", cache_path=tmp_path / "copy.db")
    try:
        assert store.online and store.location.password == password  # the server is reached with it
        assert password not in store.location.display() + store.location.url + str(store.self_check().issues)
    finally:
        store.close()
    Settings(store_backend="postgres", postgres_url=address).save(with_secret=False)
    assert keep_password_out_of_settings() and Settings.load().postgres_password == password
    assert password not in (config_dir() / "settings.json").read_text(encoding="utf-8") + caplog.text


@pytest.mark.parametrize("address", [
    "postgresql://db.example:5432/mem?application_name=me@home",  # an @ after the path, a port before it
    "postgresql://[::1]:5432/mem?application_name=me@home",
    "postgresql://me@db.example/mem?application_name=a:b@c",
])
def test_an_address_without_a_password_is_kept_as_written(address):
    from sonetto_desktop.memory.stores.postgres.location import split_password

    assert split_password(address) == (address, "")


def test_a_password_saved_in_the_address_moves_to_the_keyring_at_start():
    from sonetto_desktop.postgres_setup import keep_password_out_of_settings

    Settings(store_backend="postgres", postgres_url=_address("query")).save(with_secret=False)  # as an older version did
    assert keep_password_out_of_settings()
    raw = (config_dir() / "settings.json").read_text(encoding="utf-8")
    assert SECRET not in raw and json.loads(raw)["postgres_url"] == "postgresql://me@db.example:5432/mem?sslmode=disable"
    assert Settings.load().postgres_password == SECRET
    assert not keep_password_out_of_settings()  # nothing left to move


@pytest.mark.parametrize("form", FORMS)
def test_a_password_in_the_address_reaches_the_server_and_no_text(form, pg_server, pg_schema, tmp_path, caplog):
    from sonetto_desktop.memory.errors import StoreOffline
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

    import psycopg

    address = _address(form, "127.0.0.1", pg_server.port, "sonetto_test", "sonetto")
    online = PostgresMemoryManager(address, schema=pg_schema, device="desk", cache_path=tmp_path / "copy.db")
    try:
        assert online.online and online.location.password == SECRET
        online.add("用户喜欢猫", "品味")
        with psycopg.connect(online.location.url, **online.location.connect_kwargs()) as conn:
            assert conn.info.password == SECRET  # what the server is sent (this test server trusts anyone)
    finally:
        online.close()
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    offline = PostgresMemoryManager(_address(form, "127.0.0.1", dead, "sonetto_test", "sonetto"), schema=pg_schema,
                                    device="desk", cache_path=tmp_path / "copy.db", write_wait=0.1)
    try:
        assert not offline.online and len(offline.all_items()) == 1  # the local copy
        with pytest.raises(StoreOffline) as refused:
            offline.add("离线写不进去", "瞬间")
        shown = [str(refused.value), refused.value.zh, offline.status.detail, *offline.self_check().issues,
                 caplog.text]
        assert "127.0.0.1" in str(refused.value) and not [text for text in shown if SECRET in text]
    finally:
        offline.close()


async def test_a_memory_server_away_at_start_is_not_waited_for(tmp_path, caplog):
    # The trash's purge at start waited write_wait (5 s) for a server that was not there: the MCP server
    # answered nothing for as long. It is left for a start that finds the server.
    caplog.set_level("INFO", logger="sonetto_desktop.store_lifecycle")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    settings = Settings(data_dir=str(tmp_path / "data"), retrieval_mode="mechanical", store_backend="postgres",
                        postgres_url=f"postgresql://sonetto@127.0.0.1:{dead}/sonetto_test", trash_retention_days=30)
    services = await AppServices.open(settings=settings, watch=False)
    try:
        await services.checked()
        assert not services.store_status.online
        assert "the trash is not purged now" in caplog.text and "could not purge" not in caplog.text
    finally:
        await services.close()


async def test_an_mcp_tool_error_does_not_show_the_password(_isolated_user_dirs):
    from mcp_helpers import error_text, save_settings, stdio_session

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        dead = sock.getsockname()[1]
    save_settings(store_backend="postgres", postgres_url=_address("query", "127.0.0.1", dead, "x"))
    async with stdio_session() as mcp:
        text = error_text(await mcp.call_tool("add_memory", {"description": "小林养了一只猫", "theme": "身份"}))
    assert "127.0.0.1" in text and SECRET not in text
