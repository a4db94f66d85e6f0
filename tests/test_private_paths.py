"""Every path that creates the data dir, the writer's journal or a store makes them owner-only
(issue 26 item 6): folders 0700 and files 0600 whatever the umask — a new data dir (and the folders
above it that it creates), an existing 0755 one, a PostgreSQL-mode data dir — and ``self-test.log``
never follows a link out of the data dir."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from sonetto_desktop.agent.sessions import SessionStore
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.writer.journal import TurnJournal
from sonetto_desktop.services import AppServices

pytestmark = pytest.mark.skipif(os.name != "posix", reason="file modes are POSIX")


@pytest.fixture
def loose_umask():
    old = os.umask(0o022)  # what most desktops run with
    yield
    os.umask(old)


def loose_paths(root: Path) -> list[str]:
    found = []
    for folder, dirs, files in os.walk(root):
        for name in dirs:
            if stat.S_IMODE(os.stat(os.path.join(folder, name)).st_mode) != 0o700:
                found.append(os.path.join(folder, name))
        for name in files:
            path = os.path.join(folder, name)
            if not os.path.islink(path) and stat.S_IMODE(os.stat(path).st_mode) & 0o077:
                found.append(path)
    return found


async def _use(settings: Settings, data: Path) -> None:
    services = await AppServices.open(settings=settings, watch=False)
    try:
        mid = services.memory.add("小林喜欢猫", "品味").ids[0]
        services.memory.delete(mid)
        journal = TurnJournal(data / "memory.journal")
        assert journal.claim()  # what the writer does first at its start
        journal.release()
        sessions = SessionStore(data / "sessions.db")
        await sessions.open()
        await sessions.close()
    finally:
        await services.close()


@pytest.mark.parametrize("backend", ["yaml", "sqlite"])
async def test_a_new_data_dir_and_everything_in_it_are_owner_only(tmp_path, loose_umask, backend):
    data = tmp_path / "home" / "share" / "sonetto"  # none of it exists yet
    await _use(Settings(data_dir=str(data), store_backend=backend), data)
    assert loose_paths(tmp_path / "home") == []
    assert stat.S_IMODE((tmp_path / "home").stat().st_mode) == 0o700  # created by us on the way


@pytest.mark.parametrize("backend", ["yaml", "sqlite"])
async def test_an_existing_open_data_dir_is_tightened(tmp_path, loose_umask, backend):
    data = tmp_path / "data"
    data.mkdir(mode=0o755)
    (data / "memory.journal").mkdir(mode=0o755)
    await _use(Settings(data_dir=str(data), store_backend=backend), data)
    assert loose_paths(data) == [] and stat.S_IMODE(data.stat().st_mode) == 0o700


async def test_a_postgresql_mode_data_dir_is_owner_only(tmp_path, loose_umask, pg_url, pg_schema):
    data = tmp_path / "pg" / "data"
    settings = Settings(data_dir=str(data), store_backend="postgres", postgres_url=pg_url, postgres_schema=pg_schema,
                        device_name="desk", retrieval_mode="mechanical")
    await _use(settings, data)
    assert loose_paths(tmp_path / "pg") == []


def test_the_self_test_log_never_follows_a_link_out_of_the_data_dir(tmp_path, loose_umask):
    import subprocess
    import sys

    root = Path(__file__).resolve().parent.parent
    data = tmp_path / "data"
    data.mkdir()
    outside = tmp_path / "outside.txt"
    outside.write_text("keep", encoding="utf-8")
    (data / "self-test.log").symlink_to(outside)
    code = ("import sys; sys.stdout = None; sys.__stderr__ = None\n"  # a windowed executable has neither
            "from sonetto_desktop.__main__ import main\n"
            "sys.argv = ['sonetto', '--self-test']\n"
            "try:\n    main()\nexcept SystemExit as exc:\n    raise SystemExit(exc.code)\n")
    env = dict(os.environ, SONETTO_DATA_DIR=str(data), SONETTO_CONFIG_DIR=str(tmp_path / "config"),
               QT_QPA_PLATFORM="offscreen", PYTHON_KEYRING_BACKEND="keyring.backends.fail.Keyring",
               PYTHONPATH=str(root))
    subprocess.run([sys.executable, "-c", code], cwd=root, env=env, capture_output=True, text=True, timeout=120)
    assert outside.read_text(encoding="utf-8") == "keep"
    log = data / "self-test.log"
    assert not log.is_symlink() and log.is_file()
    assert stat.S_IMODE(log.stat().st_mode) == 0o600
    assert "sonetto self-test" in log.read_text(encoding="utf-8")
