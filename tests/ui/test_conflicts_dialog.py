"""Contradictions the tidy-up flagged reach the person (issue 13, item 6): a 矛盾 N badge, a dialog
listing each pair with its note; keep both (dismissed, remembered) or merge them (the merge dialog)."""

from __future__ import annotations

import json

import pytest

from shell_fixtures import OFFSCREEN_SIZE_HINTS, app_settings, running_app
from sonetto_desktop.memory import YamlMemoryManager
from sonetto_desktop.memory.writer.hygiene import STATE_FILE
from sonetto_desktop.ui.dialogs.merge import MergeDialog


def seed(data_dir) -> tuple[str, str, str]:
    data_dir.mkdir(parents=True, exist_ok=True)
    store = YamlMemoryManager(data_dir / "memory.yaml")
    a = store.add("用户在上海工作", "身份")
    b = store.add("用户在杭州工作", "身份")
    c = store.add("用户喜欢猫", "品味")
    store.close()
    flagged = [{"ids": [a, b], "note": "一条说在上海工作，一条说在杭州", "found_at": "2026-12-03T03:00:00",
                "turn_id": "tidy-20261203-abc"},
               {"ids": [c, "gone0000"], "note": "已经不在的一对", "found_at": "2026-12-03T03:00:00", "turn_id": "t"}]
    (data_dir / STATE_FILE).write_text(json.dumps({"conflicts": flagged}, ensure_ascii=False), encoding="utf-8")
    return a, b, c


@pytest.mark.qt_log_ignore(OFFSCREEN_SIZE_HINTS)
async def test_flagged_contradictions_are_shown_and_settled(qapp, tmp_path, llm_server, wait):
    data = tmp_path / "data"
    a, b, _c = seed(data)
    async with running_app(qapp, app_settings(data, llm_server)) as app:
        app.writer_control.refresh()
        badge = app.window.status_indicator.conflicts_button
        assert badge.isVisibleTo(app.window) and badge.text() == "矛盾 2"
        badge.click()
        dialog = app.conflicts_dialog
        await dialog.loading
        assert dialog.list.count() == 1  # the pair whose memory is gone is no longer a question
        text = dialog.list.item(0).text()
        assert "一条说在上海工作" in text and "· 用户在上海工作" in text and "· 用户在杭州工作" in text

        dialog.merge_button.click()
        merge = app.wall.actions.active_dialog
        assert isinstance(merge, MergeDialog)
        merge.reject()

        await dialog.keep_current()
        assert dialog.list.count() == 0 and "没有待确认" in dialog.summary.text()
        assert all(set(c.ids) != {a, b} for c in app.services.hygiene.conflicts())
        saved = json.loads((data / STATE_FILE).read_text(encoding="utf-8"))
        assert all(set(c["ids"]) != {a, b} for c in saved["conflicts"])  # remembered across restarts
        dialog.close()
