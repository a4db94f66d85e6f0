"""The recall index's first build (a first start after an import) shows its progress in the status
indicator, through the services' feed, and the indicator goes back to the writer's state after it
(issue 29 item 2)."""

from __future__ import annotations

from datetime import datetime

from shell_fixtures import app_settings, running_app
from sonetto_desktop.memory import MemoryItem, YamlMemoryManager
from sonetto_desktop.memory.retrieval import index_lifecycle, mechanical
from sonetto_desktop.ui.notices.status_indicator import StatusIndicator


async def test_the_first_index_build_shows_its_progress(qapp, tmp_path, wait, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    mm = YamlMemoryManager(data / "memory.yaml")
    stamp = datetime(2026, 11, 1, 10, 0).isoformat()
    mm.import_items({f"m{i}": MemoryItem(f"第{i}条导入的记忆：周末去了一家新开的书店。", "瞬间", latest_update_time=stamp)
                     for i in range(400)})
    mm.close()
    monkeypatch.setattr(mechanical, "REPORT_FROM", 100)
    monkeypatch.setattr(index_lifecycle, "BATCH", 50)
    shown: list[str] = []
    real = StatusIndicator.refresh

    def watching(self: StatusIndicator) -> None:
        real(self)
        shown.append(self.label.text())

    monkeypatch.setattr(StatusIndicator, "refresh", watching)
    async with running_app(qapp, app_settings(data)) as app:
        indicator = app.window.status_indicator
        await wait(lambda: any("400 / 400" in text for text in shown), message="the last batch was shown")
        building = [text for text in shown if text.startswith("正在建立回忆索引")]
        assert building[0] == "正在建立回忆索引… 0 / 400" and len(set(building)) >= 3
        await wait(lambda: not indicator.label.text().startswith("正在建立回忆索引"), message="back to the writer")
        assert app.writer_control.index_progress is None
        assert (data / "memory.recall-index.npz").exists()
