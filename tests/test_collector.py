"""Python's full collections at quiet moments (``sonetto_desktop/collector.py``, issue 37): the policy's
thresholds, when a pass is due, that a due pass frees old cycles, and — in a clean child process, where
the heap is only what the child made — that an import-sized burst of new objects starts no full pass
under the policy while Python's default starts some."""

from __future__ import annotations

import gc
import json
import subprocess
import sys
import weakref

import pytest

from sonetto_desktop import collector
from sonetto_desktop.collector import DUE_AFTER, FULL_PASS_EVERY, QuietPasses

pytestmark = pytest.mark.skipif(not collector._supported(), reason="the policy is CPython < 3.14 only")


@pytest.fixture
def passes():
    made: list[QuietPasses] = []

    def make() -> QuietPasses:
        made.append(QuietPasses())
        return made[-1]

    yield make
    for p in made:
        p.uninstall()


def test_the_policy_spaces_automatic_full_passes_and_gives_pythons_thresholds_back(passes):
    before = gc.get_threshold()
    first, second = passes(), passes()
    assert first.install() and second.install()
    assert gc.get_threshold() == (before[0], before[1], FULL_PASS_EVERY)
    first.uninstall()
    assert gc.get_threshold()[2] == FULL_PASS_EVERY  # another app of the process still has it
    second.uninstall()
    assert gc.get_threshold() == before


def test_thresholds_someone_else_set_are_left_alone(passes):
    before = gc.get_threshold()
    gc.set_threshold(before[0], 20, 5)
    try:
        p = passes()
        assert not p.install() and not p.due()
        assert gc.get_threshold() == (before[0], 20, 5)
    finally:
        gc.set_threshold(*before)


def test_a_pass_is_due_after_as_many_young_collections_as_python_waits_for(passes):
    p = passes()
    assert not p.due()  # not installed
    p.install()
    gc.collect()
    assert not p.due()
    for _ in range(DUE_AFTER - 1):
        gc.collect(1)
    assert gc.get_count()[2] == DUE_AFTER - 1 and not p.due()
    gc.collect(1)
    assert p.due()
    p.run()
    assert not p.due() and p.passes == 1 and p.last_ms > 0


class _Node:
    def __init__(self) -> None:
        self.other: _Node | None = None


def test_a_due_pass_frees_a_cycle_the_young_collections_cannot(passes):
    p = passes()
    p.install()
    a, b = _Node(), _Node()
    a.other, b.other = b, a
    gc.collect(1)
    gc.collect(1)  # both survived twice: in the oldest generation now
    gone = weakref.ref(a)
    del a, b
    gc.collect(0)
    gc.collect(1)
    assert gone() is not None  # garbage, but only a full pass walks where it is
    p.run()
    assert gone() is None


_BURST = """
import gc, json, sys
sys.path[:0] = {path!r}
from sonetto_desktop.collector import QuietPasses
if {policy}:
    assert QuietPasses().install()
full = []
gc.callbacks.append(lambda phase, info: full.append(1) if phase == "stop" and info["generation"] == 2 else None)
kept = []
for i in range(150_000):  # as the LLM stack's import leaves: ~139,000 new long-lived containers
    kept.append({{"n": i}})
    if i % 3 == 0:
        kept.append([i, str(i)])
print(json.dumps({{"full": len(full), "count": gc.get_count()}}))
"""


def _burst(policy: bool) -> dict:
    code = _BURST.format(path=sys.path, policy=policy)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, check=True)
    return json.loads(out.stdout)


def test_an_import_sized_burst_starts_no_full_pass_under_the_policy():
    default, quiet = _burst(False), _burst(True)
    assert default["full"] >= 1, default  # what made the first chat turn wait: passes in the burst
    assert quiet["full"] == 0, quiet
    assert quiet["count"][2] >= DUE_AFTER  # the pass is due, for the window's next quiet moment


def test_quiet_passes_take_at_most_a_twentieth_of_the_time(passes):
    """Without Python's own rule (a quarter of the heap new) a worker that allocates while the window is
    idle — an import — would get a whole-heap pass every second: after a pass of d ms the next one is due
    no sooner than d / DUTY ms later, however many young collections came meanwhile."""
    now = [1000.0]
    p = QuietPasses(clock=lambda: now[0])
    assert p.install()
    try:
        for _ in range(DUE_AFTER):
            gc.collect(1)
        assert p.due()
        took = p.run() / 1000
        for _ in range(DUE_AFTER):
            gc.collect(1)
        assert not p.due()  # due by the count, too soon by the time
        now[0] += took / collector.DUTY * 0.9
        assert not p.due()
        now[0] += took / collector.DUTY * 0.2
        assert p.due()
    finally:
        p.uninstall()
