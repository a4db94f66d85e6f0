"""Embeddings through an OpenAI-compatible endpoint (the scripted server's /v1/embeddings), the
vectors kept with the store (a sidecar SQLite file, a PostgreSQL table), the background sync and the
fused shortlist."""

from __future__ import annotations

import threading
import time
from datetime import datetime

import numpy as np
import pytest

from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval import MechanicalRetriever, MemoryRecall
from sonetto_desktop.memory.retrieval.embeddings import PRESETS, EmbeddingsClient, EmbeddingsConfig, EmbeddingsError
from sonetto_desktop.memory.retrieval.vector_sync import VectorSync
from sonetto_desktop.memory.retrieval.vectors import (
    PgVectors,
    SqliteVectors,
    dequantize,
    open_vectors,
    quantize,
    sidecar_path,
    text_fingerprint,
)
from sonetto_desktop.memory.stores.sqlite import SqliteMemoryManager
from sonetto_desktop.memory.stores.yaml.store import YamlMemoryManager

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


def config(server, **kw) -> EmbeddingsConfig:
    values = {"base_url": server.base_url, "model": "scripted-embed", "api_key": KEY, "batch": 16}
    return EmbeddingsConfig(**(values | kw))


@pytest.fixture(params=["yaml", "sqlite"])
def store(request, tmp_path):
    mm = YamlMemoryManager(tmp_path / "memory.yaml") if request.param == "yaml" else SqliteMemoryManager(
        tmp_path / "memory.db")
    mm.import_items({mid: item.copy() for mid, item in BANK.items()})
    yield mm
    mm.close()


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
        assert sorted(llm_server.embedded_inputs()) == sorted(item.description for item in BANK.values())
        assert [len(r["input_list"]) for r in llm_server.embedding_requests] == [2, 2]

        new = store.add("小林周末去爬了梧桐山。", "瞬间")
        store.update("peanut", "更准确", "小林对花生和芒果过敏。")
        store.delete("godot", "不做了")
        store.hit("coffee")
        assert wait_for(lambda: sync.status.done == 4 and sync.status.total == 4 and
                        "小林对花生和芒果过敏。" in llm_server.embedded_inputs())
        table = open_vectors(store, sync.config.key)
        try:
            assert set(table.fingerprints()) == {"cat", "peanut", "coffee", new}  # the deleted one's vector went
        finally:
            table.close()
        assert len(llm_server.embedded_inputs()) == 6  # a hit re-embeds nothing
    finally:
        sync.stop()


def test_a_restart_resumes_where_the_vectors_are(store, llm_server):
    first = VectorSync(store, config(llm_server, batch=1, rpm=20)).start()  # one request every 3 s
    assert wait_for(lambda: first.status.done >= 1)
    first.stop()
    table = open_vectors(store, first.config.key)
    try:
        kept = table.count()
    finally:
        table.close()
    asked = len(llm_server.embedded_inputs())
    assert 1 <= kept < 4 and asked <= kept + 1  # stopped between two paced requests
    second = VectorSync(store, config(llm_server, batch=1)).start()
    try:
        assert second.wait_idle(10) and second.status.done == 4
        assert len(llm_server.embedded_inputs()) == asked + 4 - kept  # only what was missing
        assert sorted(set(llm_server.embedded_inputs())) == sorted(i.description for i in BANK.values())
    finally:
        second.stop()


def test_rate_limits_and_server_errors_wait_then_go_on(store, llm_server):
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
    assert time.monotonic() - started >= 0.4 + 3 * 0.1  # the waits asked for, and 600 a minute at most
    stamps = [r["_at"] for r in llm_server.embedding_requests if "_at" in r]
    assert stamps == [] or all(b - a >= 0.09 for a, b in zip(stamps, stamps[1:], strict=False))


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
    monkeypatch.setattr(vectors, "PREFILTER_FROM", 1000)
    monkeypatch.setattr(vectors, "PREFILTER_MIN", 200)
    narrowed = table.search(query, 20)
    assert narrowed[0] == exact[0] == "m42" and len(set(narrowed) & set(exact)) >= 16
    table.drop(["m42"])
    assert "m42" not in table.search(query, 20) and len(table.search(query, 20)) == 20
