"""ThemeColors: the wall's colour for each theme — distinct, stable and readable in both modes.

Each theme gets a palette slot once: its preferred slot (crc32 of the name) unless another theme
holds it, then the next free slot ``PROBE_STEP`` further on. Slots are remembered (the wall saves
them in its UI state), so a theme keeps its colour when others come and go — and a slot stays
reserved for a theme while it is away (deleted, filtered out, not loaded yet), so it cannot come
back to find its colour given to another. Only when every main slot is held is one of an absent
theme reused. The first 12 themes present always hold main slots, which are pairwise distinct (but for
a theme being renamed and its old name while the cards move, which share one: ``rename``; once they
have moved, the old name gives its slot up, so a theme made later under it gets a colour of its own,
and an undo of the rename gives it back: ``moved_back``). A person may pick their own colour for a
theme; it is shown as picked where it is readable and lightened or darkened just enough (3:1 against
the card surface) where it is not. Pure Python.
"""

from __future__ import annotations

import re
from typing import Iterable

from .theme_colors import MAIN_SLOTS, PROBE_STEP, THEME_PALETTE, WALL_TOKENS, preferred_slot

MIN_CONTRAST = 3.0
_HEX = re.compile(r"^#[0-9a-fA-F]{6}$")


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


def _hex(rgb: tuple[float, float, float]) -> str:
    return "#" + "".join(f"{max(0, min(255, round(v))):02x}" for v in rgb)


def luminance(color: str) -> float:
    def linear(v: int) -> float:
        c = v / 255
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(v) for v in _rgb(color))
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(a: str, b: str) -> float:
    """WCAG contrast ratio of two ``#rrggbb`` colours (1 … 21)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def readable(color: str, background: str, minimum: float = MIN_CONTRAST) -> str:
    """``color`` itself when it stands out from ``background``; else mixed towards black (on a light
    surface) or white (on a dark one) in small steps until it does."""
    if contrast(color, background) >= minimum:
        return color.lower()
    target = (0, 0, 0) if luminance(background) > 0.18 else (255, 255, 255)
    rgb = _rgb(color)
    for step in range(1, 21):
        t = step / 20
        mixed = _hex(tuple(c + (e - c) * t for c, e in zip(rgb, target, strict=True)))
        if contrast(mixed, background) >= minimum:
            return mixed
    return _hex(target)


def valid_color(color: str) -> bool:
    return bool(_HEX.match(color or ""))


class ThemeColors:
    """Slots and picked colours of the wall's themes (``slots``/``custom`` come from UI state)."""

    def __init__(self, slots: dict[str, int] | None = None, custom: dict[str, str] | None = None) -> None:
        size = len(THEME_PALETTE["light"])
        self.slots: dict[str, int] = {t: s % size for t, s in (slots or {}).items()
                                      if isinstance(s, int) and not isinstance(s, bool)}
        self.custom: dict[str, str] = {t: c.lower() for t, c in (custom or {}).items() if valid_color(c)}
        self._moving: set[tuple[str, str]] = set()  # (from, to): a rename (or its undo) whose cards move
        self._left: dict[str, tuple[str, int | None, str | None]] = {}  # a name a rename emptied: (the name
        # its cards went to, the slot and picked colour it gave up), for an undo of that rename (this run)
        self.settled: list[tuple[str, str]] = []  # (from, to): the renames whose cards all moved in the last ``assign``

    def assign(self, themes: Iterable[str]) -> bool:
        """Give the themes on the wall (``themes``) slots of their own (module docstring); True if
        any slot was given or changed. Deterministic: the same themes get the same slots anywhere."""
        themes = sorted(set(themes))
        present = set(themes)
        size = len(THEME_PALETTE["light"])
        changed = self._settle(present)
        holder: dict[int, str] = {}
        for theme in themes:  # two themes on the wall with one slot (saved by an older version): one moves
            slot = self.slots.get(theme)
            if slot is None:
                continue
            if slot in holder and ((holder[slot], theme) in self._moving or (theme, holder[slot]) in self._moving):
                continue  # a rename (or its undo) under way: its cards are under both names a moment
            if slot in holder:
                del self.slots[theme]
                changed = True
            else:
                holder[slot] = theme
        newcomers = [t for t in themes if t not in self.slots]
        # a theme of the wall on a spare slot takes a main one that nobody holds
        spare = [t for t in themes if t in self.slots and self.slots[t] >= MAIN_SLOTS]
        for theme in spare:
            slot = self._free(theme, range(MAIN_SLOTS), present, reuse=False)
            if slot is not None:
                self.slots[theme] = slot
                changed = True
        for theme in newcomers:
            slot = self._free(theme, range(MAIN_SLOTS), present, reuse=False)
            if slot is None:  # every main slot is remembered: one held only by an absent theme
                slot = self._free(theme, range(MAIN_SLOTS), present, reuse=True)
            if slot is None:  # more than 12 themes on the wall
                slot = self._free(theme, range(MAIN_SLOTS, size), present, reuse=False)
            if slot is None:
                slot = self._free(theme, range(MAIN_SLOTS, size), present, reuse=True)
            self.slots[theme] = slot if slot is not None else preferred_slot(theme)  # share, last resort
            changed = True
        return changed

    def _free(self, theme: str, slots: range, present: set[str], *, reuse: bool) -> int | None:
        """The first slot of ``slots`` (from the theme's preferred one, ``PROBE_STEP`` apart) that no
        theme holds; ``reuse``: that no theme on the wall holds (an absent theme gives it up)."""
        holders: dict[int, list[str]] = {}
        for other, slot in self.slots.items():
            if other != theme:
                holders.setdefault(slot, []).append(other)
        start = preferred_slot(theme) % len(slots) if len(slots) else 0
        for step in range(len(slots)):
            slot = slots[(start + step * PROBE_STEP) % len(slots)]
            owners = holders.get(slot, [])
            if not owners:
                return slot
            if reuse and not any(o in present for o in owners):
                for owner in owners:
                    del self.slots[owner]  # it was away; it gets a new colour if it comes back
                return slot
        return None

    def _settle(self, present: set[str]) -> bool:
        """A rename whose cards have all moved (``from`` gone from the wall, ``to`` on it): ``from``
        gives up the slot and picked colour it shared with ``to`` (kept aside for an undo), so a theme
        made later under that name is a new theme with a colour of its own. True if any was given up."""
        done = [(old, new) for old, new in self._moving if old not in present and new in present]
        self.settled = done
        for old, new in done:
            self._moving.discard((old, new))
            self._left[old] = (new, self.slots.pop(old, None), self.custom.pop(old, None))
        return bool(done)

    def rename(self, old: str, new: str) -> None:
        """``new`` is ``old`` renamed: it takes ``old``'s slot and picked colour (or none). The two
        share them while both are on the wall (the cards move one change at a time; ``assign`` moves
        neither off the slot); once ``old`` has no card left it gives them up (``_settle``)."""
        self._left.pop(new, None)
        if old in self.slots:
            self.slots[new] = self.slots[old]
            self._moving.add((old, new))
        self.set_custom(new, self.custom.get(old))

    def moved_back(self, source: str, theme: str, present: Iterable[str]) -> bool:
        """An undo moves a card from ``source`` to ``theme``: when a rename of ``theme`` to ``source``
        emptied ``theme`` (and no theme of that name came since), ``theme`` takes back the slot and
        picked colour it had, sharing them with ``source`` while the cards move. True if it did."""
        left = self._left.get(theme)
        if left is None or left[0] != source or theme in set(present):
            return False
        del self._left[theme]
        _, slot, picked = left
        if slot is not None:
            self.slots[theme] = slot
        self._moving.add((source, theme))
        self.set_custom(theme, picked)
        return True

    def slot(self, theme: str) -> int:
        return self.slots.get(theme, preferred_slot(theme))

    def color(self, theme: str, mode: str = "light") -> str:
        """The stripe colour of ``theme`` in ``mode`` ("light" / "dark")."""
        palette = THEME_PALETTE[mode]
        picked = self.custom.get(theme)
        if picked:
            return readable(picked, WALL_TOKENS[mode]["card_bg"])
        return palette[self.slot(theme)]

    def set_custom(self, theme: str, color: str | None) -> None:
        """Use ``color`` (``#rrggbb``) for ``theme``; ``None`` goes back to its palette colour."""
        if color is None:
            self.custom.pop(theme, None)
            return
        if not valid_color(color):
            raise ValueError(f"a colour is #rrggbb, not {color!r}")
        self.custom[theme] = color.lower()
