"""Issue 14: a YAML store past the threshold is offered the SQLite store once the wall is up; the
offer's button migrates without loss (the real migration), and the offer does not nag."""

from __future__ import annotations

from PySide6.QtCore import QSettings

from shell_fixtures import app_settings, running_app
from sonetto_desktop import ops
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory import MemoryItem, SqliteMemoryManager, YamlMemoryManager
from sonetto_desktop.ui.dialogs import sqlite_offer
from sonetto_desktop.ui.dialogs.sqlite_offer import SqliteOffer
from sonetto_desktop.ui.notices.toasts import ToastOverlay


def fill_yaml(data_dir, count: int) -> None:
    data_dir.mkdir(parents=True, exist_ok=True)
    store = YamlMemoryManager(data_dir / "memory.yaml")
    store.import_items({f"m{i:05d}": MemoryItem(f"用户说过的第 {i} 件事", "瞬间") for i in range(count)})
    store.close()


def offer_toasts(app) -> list:
    return [t for t in app.toasts.toasts() if t.key == "sqlite-offer"]


async def test_a_large_yaml_store_is_offered_sqlite_and_the_button_migrates(qapp, tmp_path, monkeypatch, wait):
    monkeypatch.setattr(sqlite_offer, "THRESHOLD", 20)
    data = tmp_path / "data"
    fill_yaml(data, 25)
    async with running_app(qapp, app_settings(data)) as app:
        await wait(lambda: offer_toasts(app), message="no SQLite offer for a 25-memory store (threshold 20)")
        [toast] = offer_toasts(app)
        assert "25" in toast.text and "SQLite" in toast.text
        before = {k: v.to_dict() for k, v in app.store.all_items().items()}
        app.sqlite_offer._accept()  # what the toast's button calls
        await app.sqlite_offer.switching
        assert isinstance(app.store, SqliteMemoryManager)
        assert {k: v.to_dict() for k, v in app.store.all_items().items()} == before
        assert app.settings.store_backend == "sqlite"
        assert Settings.load().store_backend == "sqlite"  # saved, so the next start opens SQLite


async def test_a_small_store_or_a_sqlite_store_is_not_offered(qapp, tmp_path, monkeypatch, wait):
    monkeypatch.setattr(sqlite_offer, "THRESHOLD", 20)
    data = tmp_path / "data"
    fill_yaml(data, 20)
    async with running_app(qapp, app_settings(data)) as app:
        await app.wall_loaded
        assert await app.sqlite_offer.check() is False and offer_toasts(app) == []
    sqlite_data = tmp_path / "sqlite"
    async with running_app(qapp, app_settings(sqlite_data, store_backend="sqlite")) as app:
        for i in range(25):
            await app.service.submit(ops.AddMemory(f"第 {i} 件事", "瞬间"))
        assert await app.sqlite_offer.check() is False


async def test_not_now_means_quiet_until_the_store_doubles(qapp, tmp_path, wait):
    data = tmp_path / "data"
    fill_yaml(data, 12)
    state = QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat)
    applied: list[Settings] = []

    async def apply(new: Settings) -> None:
        applied.append(new)

    async with running_app(qapp, app_settings(data)) as app:
        overlay = ToastOverlay(app.window)
        offer = SqliteOffer(overlay, app.services, apply, state, lambda coro: coro, threshold=10)
        assert await offer.check() is True
        for toast in overlay.toasts():
            toast.close()
        assert await offer.check() is False  # closed = not now
        for i in range(12):
            await app.service.submit(ops.AddMemory(f"新的第 {i} 件事", "瞬间"))
        assert await offer.check() is True  # 24 >= 2 x 12: offered again
        assert applied == []  # offering never switches by itself


async def test_the_offer_writes_the_count_as_the_wall_does(qapp, tmp_path):
    """"记忆已有 10000 条" beside the wall's "10,000 条": the offer groups the digits as the wall does."""
    data = tmp_path / "data"
    fill_yaml(data, 1005)
    state = QSettings(str(tmp_path / "ui-state.ini"), QSettings.Format.IniFormat)

    async def apply(new: Settings) -> None:
        raise AssertionError("offering never switches by itself")

    async with running_app(qapp, app_settings(data)) as app:
        overlay = ToastOverlay(app.window)
        offer = SqliteOffer(overlay, app.services, apply, state, lambda coro: coro, threshold=1000)
        assert await offer.check() is True
        [toast] = [t for t in overlay.toasts() if t.key == "sqlite-offer"]
        assert "1,005" in toast.text, toast.text
        assert app.wall.count_label.text() == "1,005 条"
