"""Reading and planning a big export holds little and lets the app's main thread run (issue 37).

The export is ``bench.chatgpt_export``'s: ChatGPT-shaped, Chinese and English, branches, tool calls,
hidden messages, a year or two of dates. Properties, not timings: how much Python memory the read and
the plan take (tracemalloc), how many objects they leave for every garbage collection to walk, and
that the main loop runs while a plan is made even when the interpreter never forces a thread switch.
"""

from __future__ import annotations

import asyncio
import gc
import sys
import time
import tracemalloc

import pytest

from bench.chatgpt_export import write_export
from sonetto_desktop.history_import.plan import Batch, make_plan
from sonetto_desktop.history_import.sources import read_history


@pytest.fixture(scope="module")
def export(tmp_path_factory):
    path = tmp_path_factory.mktemp("footprint") / "conversations.json"
    made = write_export(path, 24, seed=11)
    return path, made


def test_reading_and_planning_an_export_holds_a_small_part_of_it(export):
    """Read + plan of 24 MB: the peak and what stays held (the preview is open) are a small part of
    the file (the old reader and plan held every message: a peak of about the text's size)."""
    path, made = export
    size = made["bytes"]
    warm = path.parent / "warm-up" / "conversations.json"  # what is paid once, whatever the size
    warm.parent.mkdir(exist_ok=True)  # (modules imported on first use, cached tables) is paid here
    write_export(warm, 1, seed=3)
    make_plan(read_history(warm))
    tracemalloc.start()
    try:
        history = read_history(path)
        plan = make_plan(history)
        held, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(history.conversations) > 900 and plan.turns > 5000 and plan.characters > 3_000_000
    assert peak < size / 8, f"peak {peak / 1024 ** 2:.1f} MB reading and planning {size / 1024 ** 2:.1f} MB"
    assert held < size / 12, f"{held / 1024 ** 2:.1f} MB held after planning {size / 1024 ** 2:.1f} MB"


def test_the_plan_reads_back_exactly_what_was_in_the_file(export):
    """Nothing is lost by not holding the text: a planned batch reads its exchanges back from disk,
    in order, with the keys and the estimate the figures said."""
    path, _made = export
    history = read_history(path)
    plan = make_plan(history)
    sample = plan.batches[:: max(1, len(plan.batches) // 40)]
    for batch in sample:
        full = batch.loaded()
        assert len(full.exchanges) == batch.turns and full.now == batch.now
        conversation = next(c for c in history.conversations if c.id == batch.conversation_id)
        texts = {m.text for m in conversation.messages}
        assert all(m.text in texts for e in full.exchanges for m in e.messages)
        held = Batch(0, batch.conversation_id, batch.title, full.exchanges)  # the same batch made in hand
        assert round(held.tokens) == round(batch.tokens) and held.hidden == batch.hidden
    again = make_plan(history, selected=[plan.rows[0].id])  # a second plan reads only the kept figures
    assert again.conversations == 1 and again.turns == plan.rows[0].to_import


def test_a_plan_leaves_few_objects_for_the_garbage_collector(export):
    """Every full collection walks every live container; the old plan kept ~29 per conversation
    (each message, exchange, tuple), so the app's collections grew with the export."""
    path, _made = export
    gc.collect()
    before = len(gc.get_objects())
    history = read_history(path)
    plan = make_plan(history)
    gc.collect()
    kept = len(gc.get_objects()) - before
    per_conversation = kept / len(history.conversations)
    assert plan.batches and per_conversation < 5, f"{per_conversation:.1f} objects kept per conversation"


def test_the_main_loop_runs_while_an_export_is_planned(export):
    """With forced thread switches turned off (a 30 s switch interval), the loop on the main thread
    still runs many times while a worker plans: planning lets go of the GIL between conversations. The
    old plan, pure Python from start to end, let the loop run about once."""
    path, _made = export
    history = read_history(path)
    previous = sys.getswitchinterval()

    async def run() -> tuple[int, object]:
        wakes = 0
        done = False

        async def probe() -> None:
            nonlocal wakes
            while not done:
                await asyncio.sleep(0.001)
                wakes += 1

        task = asyncio.create_task(probe())
        await asyncio.sleep(0)
        start = wakes
        plan = await asyncio.to_thread(make_plan, history)
        done = True
        await task
        return wakes - start, plan

    sys.setswitchinterval(30)
    try:
        began = time.perf_counter()
        wakes, plan = asyncio.run(run())
        took = time.perf_counter() - began
    finally:
        sys.setswitchinterval(previous)
    assert plan.batches
    assert wakes >= 50, f"the loop ran {wakes} times in {took:.1f} s of planning"


def test_a_2_5_gb_export_is_not_refused_for_its_size(tmp_path):
    """Reading holds about one conversation whatever the file's size, so a big export is read, not
    refused (before: anything over 1 GB was "not a chat export"). A sparse file: no disk is used."""
    from sonetto_desktop.history_import.source_files import open_source

    path = tmp_path / "conversations.json"
    with open(path, "wb") as fh:
        fh.truncate(int(2.5 * 1024 ** 3))
    source = open_source(path)
    assert source.check(path.name).size == int(2.5 * 1024 ** 3)
