"""import_off_loop: required modules must import; optional ones (libraries' private modules, imported
ahead because a first request would import them on the loop) are skipped when they do not exist."""

from __future__ import annotations

import sys

import pytest

from sonetto_desktop.aio import import_off_loop


async def test_optional_modules_that_do_not_exist_are_skipped_required_ones_are_not():
    sys.modules.pop("colorsys", None)
    await import_off_loop(("json",), optional=("sonetto_no_such_module", "colorsys"))
    assert "colorsys" in sys.modules  # the ones after a missing one are still imported
    with pytest.raises(ModuleNotFoundError):
        await import_off_loop(("sonetto_no_such_module",))
