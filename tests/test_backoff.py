"""The one retry schedule (memory/backoff.py) and the three loops that wait by it."""

from __future__ import annotations

import pytest

from sonetto_desktop.memory.backoff import Backoff
from sonetto_desktop.memory.retrieval import vector_sync
from sonetto_desktop.memory.stores.postgres import listener


def test_the_last_step_repeats_and_jitter_stays_within_its_share():
    plain = Backoff((1.0, 2.0, 5.0))
    assert [plain.delay(n) for n in range(5)] == [1.0, 2.0, 5.0, 5.0, 5.0]
    assert plain.delay(-1) == 1.0
    shaky = Backoff((10.0,), jitter=0.2)
    assert shaky.delay(0, uniform=lambda lo, hi: lo) == pytest.approx(8.0)
    assert shaky.delay(3, uniform=lambda lo, hi: hi) == pytest.approx(12.0)
    assert all(8.0 <= shaky.delay(0) <= 12.0 for _ in range(200))


def test_doubling_caps_at_its_most():
    assert Backoff.doubling(2.0, 300.0).steps == (2.0, 4.0, 8.0, 16.0, 32.0, 64.0, 128.0, 256.0, 300.0)
    assert Backoff.doubling(1.0, 1.0).steps == (1.0, 1.0)


@pytest.mark.parametrize("steps, jitter", [((), 0.0), ((1.0, -1.0), 0.0), ((1.0,), 1.0)])
def test_a_schedule_that_cannot_wait_is_refused(steps, jitter):
    with pytest.raises(ValueError, match="backoff"):
        Backoff(steps, jitter)


def test_the_retrying_loops_share_the_schedule():
    assert isinstance(listener.BACKOFF, Backoff) and listener.BACKOFF.jitter == 0.2
    assert vector_sync.BACKOFF == Backoff.doubling(2.0, 300.0)
    # a listener given plain seconds (tests, settings) still jitters like the default
    assert listener.PgListener(None, on_connect=print, on_wake=print, on_lost=print, backoff=(0.05,)).backoff \
        == Backoff((0.05,), 0.2)
