"""``--store`` given a memory server's address (``sonetto memory``, ``sonetto history``): read as a file
path it was mangled into ``postgresql:/me:PASSWORD@host/db``, said "does not exist" with the password in
it, and ``--create`` made a folder ``postgresql:`` holding a YAML store in the current folder. The address
of the server the settings use opens it (the password it carries is the one used); any other is refused
in words that name it with its password hidden, and nothing is created or logged with the password."""

from __future__ import annotations

import json
import logging
import socket

import pytest

from sonetto_desktop.cli import main as memory_main
from sonetto_desktop.cli_history import main as history_main
from sonetto_desktop.config.settings import Settings

pytestmark = pytest.mark.usefixtures("english_terminal")

SECRET = "s3cret-pw"


def _dead_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _with_password(url: str, scheme: str = "postgresql") -> str:
    """``url`` (``postgresql://user@host…``) with ``SECRET`` as its password (the test servers trust any)."""
    rest = url.split("://", 1)[1]
    user, _, host = rest.partition("@")
    return f"{scheme}://{user}:{SECRET}@{host}"


def _use_memory_server(url: str, schema: str = "sonetto") -> None:
    settings = Settings.load(with_secret=False)
    settings.store_backend, settings.postgres_url, settings.postgres_schema = "postgres", url, schema
    settings.retrieval_mode = "mechanical"
    settings.save(with_secret=False)


def _files(folder) -> list[str]:
    return sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))


@pytest.mark.parametrize("scheme", ["postgresql", "postgres"])
@pytest.mark.parametrize("command", [
    ("memory", "list"), ("memory", "check"), ("memory", "--create", "add", "小林喜欢猫", "--theme", "品味"),
    ("memory", "--create", "list"), ("history", "status", "--json"), ("history", "--create", "status"),
])
def test_an_address_the_settings_do_not_use_is_refused_with_its_password_hidden(tmp_path, monkeypatch, capsys,
                                                                                 caplog, scheme, command):
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    caplog.set_level(logging.DEBUG)
    dead = _dead_port()
    address = f"{scheme}://me:{SECRET}@127.0.0.1:{dead}/memories"
    main = memory_main if command[0] == "memory" else history_main
    assert main(["--store", address, *command[1:]]) == 2
    out, err = capsys.readouterr()
    assert SECRET not in out + err + caplog.text
    said = json.loads(out)["error"] if "--json" in command else err
    assert f"{scheme}://me:***@127.0.0.1:{dead}/memories" in said, said
    assert "memory server" in said and ".yaml or .db" in said, said
    assert _files(work) == []  # no folder "postgresql:" with a store in it


def test_an_address_that_names_no_store_at_all_is_refused_not_read_as_a_file(tmp_path, monkeypatch, capsys):
    monkeypatch.chdir(tmp_path)
    assert memory_main(["--store", f"mysql://me:{SECRET}@127.0.0.1/memories", "--create", "list"]) == 2
    err = capsys.readouterr().err
    assert "mysql://me:***@127.0.0.1/memories" in err and SECRET not in err, err
    assert not (tmp_path / "mysql:").exists()


def test_a_chinese_terminal_is_told_in_chinese(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    assert memory_main(["--store", f"postgresql://me:{SECRET}@127.0.0.1:1/memories", "list"]) == 2
    err = capsys.readouterr().err
    assert "记忆服务器" in err and "postgresql://me:***@127.0.0.1:1/memories" in err and SECRET not in err, err


def test_the_address_of_the_settings_memory_server_opens_it(pg_server, pg_schema, tmp_path, monkeypatch, capsys,
                                                           caplog):
    """Given as the settings' 多设备 page takes it (either scheme, a password in it): the same store as
    without ``--store``, and no output or log line shows the password."""
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    _use_memory_server(pg_server.url, pg_schema)
    address = _with_password(pg_server.url)
    assert memory_main(["--store", address, "add", "小林喜欢猫", "--theme", "品味", "--json"]) == 0
    added = json.loads(capsys.readouterr().out)
    assert memory_main(["--store", _with_password(pg_server.url, "postgres"), "list"]) == 0
    assert "小林喜欢猫" in capsys.readouterr().out
    assert memory_main(["list"]) == 0  # the settings' store: the same memories
    assert f"{added['id']}" in capsys.readouterr().out
    assert memory_main(["--store", address, "check"]) == 0
    checked = capsys.readouterr()
    assert checked.out.startswith("OK: 1 memor"), checked
    assert history_main(["--store", address, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"imports": []}
    assert SECRET not in checked.out + checked.err + caplog.text
    assert _files(tmp_path) == []


def test_the_settings_memory_server_out_of_reach_is_said_with_its_password_hidden(tmp_path, monkeypatch, capsys,
                                                                                   caplog):
    monkeypatch.chdir(tmp_path)
    caplog.set_level(logging.DEBUG)
    dead = _dead_port()
    _use_memory_server(f"postgresql://sonetto@127.0.0.1:{dead}/memories")
    address = f"postgresql://sonetto:{SECRET}@127.0.0.1:{dead}/memories"
    assert memory_main(["--store", address, "list"]) == 2
    out, err = capsys.readouterr()
    assert "cannot be reached" in err and f"postgresql://sonetto@127.0.0.1:{dead}/memories" in err, err
    assert memory_main(["--store", address, "check"]) == 2  # (nothing of the server's store checked)
    checked = capsys.readouterr()
    assert f"postgresql://sonetto@127.0.0.1:{dead}/memories" in checked.err and "not checked" in checked.err, checked
    history_main(["--store", address, "status", "--json"])  # (the imports' ledger is on this computer)
    status = capsys.readouterr()
    assert "imports" in json.loads(status.out), status
    assert SECRET not in out + err + checked.out + checked.err + status.out + status.err + caplog.text
    assert _files(tmp_path) == []
