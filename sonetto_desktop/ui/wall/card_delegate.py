"""CardDelegate: paints one memory card (no widget per card, so thousands stay cheap).

A compact card has no footer: the count ("3 次") sits at the end of its first line. A card is
sized to its text: as wide as its text on one line (between the density's minimum and
maximum width), wrapped to at most a few lines beyond that; the view then stretches the cards of
a full row to fill it (``ThemeCardView.layout_size``). It has a rounded surface with the
theme's colour stripe on the left, the text (search matches highlighted), and a footer saying how
often Sonetto used the memory, who changed it last (:mod:`wall_filters`) and when, with a lock
sign when it is locked (:mod:`card_lock`; compact cards show the sign beside their count), and a
folded corner when it is pinned (:mod:`card_pin`). A new or changed card glows for a moment
(``CardRole.Flash`` fades from 1 to 0). While a single card is dragged over another, the target
shows its merge zone (``merge_zone``; the whole card for a card of the dragged card's own theme) and,
with the cursor in it, a preview of the merge; while a card is dragged, every other card shows its
zone faintly. Colours
come from the view's ``card*`` properties (set by the shared QSS through ``qproperty-…``) and its
``theme_colors``, never from literals here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Sequence

from PySide6.QtCore import QCoreApplication, QModelIndex, QPersistentModelIndex, QPointF, QRect, QRectF, QSize, Qt
from PySide6.QtGui import (
    QColor,
    QFont,
    QFontMetricsF,
    QPainter,
    QPainterPath,
    QPen,
    QStaticText,
    QTextLayout,
    QTextOption,
)
from PySide6.QtWidgets import QStyle, QStyledItemDelegate, QStyleOptionViewItem, QWidget

from sonetto_desktop.presentation.cards import ACTOR, DESCRIPTION, HIT, ID, LOCKED, PINNED, THEME, Card
from .memory_model import CardRole, uses_template, uses_text
from .search_text import Span, collapse
from .theme_colors import theme_color, wall_tokens
from .card_lock import lock_width, paint_lock
from .card_pin import paint_pin
from .card_rows import text_lines
from sonetto_desktop.presentation.authors import author_label
from sonetto_desktop.presentation.relative_time import every_form
from ..i18n import ui_language
from sonetto_desktop.memory.changes import PERSON_ACTORS
from ..widgets.direction_marks import marked
from ..widgets.owner import Owner

PERSON = sorted(PERSON_ACTORS)[0]  # any of the person's actors: their label says "你" in the UI's language

STRIPE = 4
RADIUS = 8
FOOTER_GAP = 4
FOOTER_SPACE = 16  # between a footer's count and its "who · when"


@dataclass(frozen=True)
class Density:
    margin: int
    padding: int
    min_width: int
    max_width: int
    max_lines: int
    footer: bool  # a footer line ("用到 N 次", time); compact cards show the count beside the text


DENSITIES = {
    "comfortable": Density(margin=5, padding=10, min_width=150, max_width=320, max_lines=4, footer=True),
    "compact": Density(margin=3, padding=5, min_width=96, max_width=280, max_lines=2, footer=False),
}
BADGE_GAP = 6
AUTHOR_SEP = " · "


def count_template() -> str:
    return QCoreApplication.translate("CardDelegate", "{0} 次")


def count_text(hits: int) -> str:
    """Compact cards' short form of "用到 N 次" (the tooltip says it in full)."""
    return count_template().format(hits)

_DEFAULTS = {
    "cardBackground": "card_bg",
    "cardBorder": "card_border",
    "cardText": "card_text",
    "cardMuted": "card_muted",
    "cardSelected": "card_selected",
    "cardFlash": "card_flash",
}


def card_colors(widget: QWidget | None) -> dict[str, QColor]:
    """The view's card colours (its ``card*`` properties), falling back to the light tokens."""
    tokens = wall_tokens("light")
    colors: dict[str, QColor] = {}
    for prop, token in _DEFAULTS.items():
        value = widget.property(prop) if widget is not None else None
        colors[prop] = value if isinstance(value, QColor) and value.isValid() else QColor(tokens[token])
    return colors


def shown_text(description: str) -> str:
    """A memory's text as its card shows it: on one line (``collapse``: a search's matches are places in it),
    a direction control (U+202E…) as the mark the editor shows, so that it turns nothing on the card around."""
    return marked(collapse(description))


def wrap_lines(text: str, font: QFont, width: float, max_lines: int) -> list[tuple[int, str]]:
    """``text`` (collapsed) wrapped to ``width``: at most ``max_lines`` lines as (start, text), the
    last elided with "…" when more would follow."""
    metrics = QFontMetricsF(font)
    layout = QTextLayout(text, font)
    option = QTextOption()
    option.setWrapMode(QTextOption.WrapMode.WrapAtWordBoundaryOrAnywhere)
    layout.setTextOption(option)
    lines: list[tuple[int, str]] = []
    layout.beginLayout()
    while True:
        line = layout.createLine()
        if not line.isValid():
            break
        line.setLineWidth(max(1.0, width))
        start, length = line.textStart(), line.textLength()
        if len(lines) == max_lines - 1:
            lines.append((start, metrics.elidedText(text[start:], Qt.TextElideMode.ElideRight, width)))
            break
        lines.append((start, text[start : start + length].rstrip()))
    layout.endLayout()
    return lines or [(0, "")]


def merge_zone(card_rect: QRect | QRectF, density: str = "comfortable") -> QRectF:
    """The part of a card (its item rect) that merges a dropped card into it: a strip on its right
    side, a third of the card at most. The rest of the card, like the rest of the section, moves."""
    d = DENSITIES.get(density, DENSITIES["comfortable"])
    rect = QRectF(card_rect).adjusted(d.margin, d.margin, -d.margin, -d.margin)
    width = max(44.0, min(rect.width() / 3, 96.0))
    return QRectF(rect.right() - width, rect.top(), width, rect.height())


def merge_whole(card_rect: QRect | QRectF, density: str = "comfortable") -> QRectF:
    """The whole card as a merge zone (a card of the dragged card's own theme)."""
    d = DENSITIES.get(density, DENSITIES["comfortable"])
    return QRectF(card_rect).adjusted(d.margin, d.margin, -d.margin, -d.margin)


def _small(font: QFont) -> QFont:
    small = QFont(font)
    small.setPointSizeF(max(7.0, small.pointSizeF() * 0.85))
    return small


#: A text's words for wrapping: a CJK character (or fullwidth form) alone, or a run of other non-spaces; each
#: with the spaces after it.
_CJK = "\u2e80-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef"
_WORDS = re.compile(f"([{_CJK}]|[^\\s{_CJK}]+)(\\s*)")
_CJK_CHAR = re.compile(f"[{_CJK}]")


class _Widths(dict):
    """Widths by key, each computed by ``width_of`` the first time it is asked for."""

    def __init__(self, width_of) -> None:
        super().__init__()
        self._width_of = width_of

    def __missing__(self, key) -> float:
        width = self[key] = self._width_of(key)
        return width


class CardMetrics:
    """Card sizes in one density and font (see :mod:`card_rows`): a card is measured once — its text's
    width on one line, summed from per-character advances (each measured once per font: close to
    the shaped width, no kerning, and no text layout, so measuring thousands of cards stays cheap),
    and what the footer or badge needs — and its height at any width follows from that. Painting
    wraps for real, and elides what a card has no room for."""

    def __init__(self, density: str, font: QFont) -> None:
        d = DENSITIES[density]
        self.density = d
        self.setting = (density, font.key())
        metrics, small = QFontMetricsF(font), QFontMetricsF(_small(font))
        self.min_width, self.max_width, self.max_lines = d.min_width, d.max_width, d.max_lines
        self.chrome = 2 * d.margin + STRIPE + 2 * d.padding
        self.line_spacing = metrics.lineSpacing()
        self.small_height = small.height()
        self.base = 2 * d.margin + 2 * d.padding + (FOOTER_GAP + self.small_height if d.footer else 0)
        self._text = _Widths(metrics.horizontalAdvance)  # each character's advance, measured once
        self._small = _Widths(small.horizontalAdvance)
        self._small_texts: dict[str, float] = {}
        self._labels_of: tuple[str, str, str] | None = None
        self._label_widths: tuple[dict[int, float], dict[str, float], float] = ({}, {}, 0.0)
        self._lock = lock_width(self.small_height)

    def text_width(self, text: str) -> float:
        return sum(map(self._text.__getitem__, text))

    def small_width(self, text: str) -> float:
        width = self._small_texts.get(text)
        if width is None:
            if len(self._small_texts) > 4096:
                self._small_texts.clear()
            width = self._small_texts[text] = sum(map(self._small.__getitem__, text))
        return width

    def measure(self, cards: Sequence[Card | None]
                ) -> tuple[list[int], list[float], list[float], list[str | None]]:
        """Per card: its natural width (its text on one line, or its footer, whichever is wider; not
        yet kept within the density's minimum and maximum), its text's width, the badge beside its
        text (compact), and its text when it has spaces (words wrap whole: ``words`` measures them when
        the card is narrower than its text, once), else None."""
        nat: list[int] = []
        texts: list[float] = []
        badges: list[float] = []
        spaced: list[str | None] = []
        footer = self.density.footer
        counts, authors, when = self._labels((uses_template() if footer else count_template(), author_label(PERSON),
                                              ui_language()))
        advance = self._text.__getitem__
        chrome = self.chrome + 2
        lock_w, when = self._lock, when + FOOTER_SPACE
        for card in cards:
            if card is None:
                nat.append(self.min_width)
                texts.append(0.0)
                badges.append(0.0)
                spaced.append(None)
                continue
            text = shown_text(card[DESCRIPTION])
            width = sum(map(advance, text))
            lock = lock_w if card[LOCKED] else 0.0
            if footer:
                badge = 0.0
                needs = max(width, counts[card[HIT]] + when + authors[card[ACTOR]] + lock)
            else:
                badge = counts[card[HIT]] + BADGE_GAP + lock
                needs = width + badge
            nat.append(int(needs + chrome))
            texts.append(width)
            badges.append(badge)
            spaced.append(text if " " in text else None)
        return nat, texts, badges, spaced

    def _labels(self, language: tuple[str, str, str]) -> tuple[dict[int, float], dict[str, float], float]:
        """The widths of the count ("用到 N 次" or "N 次") per hit count, of the author label per
        actor and of the widest relative time ("59分钟前", "11 months ago"), in the UI's language
        (``language``: the count's template and the person's label, as translated now, and the
        language's code; the widths are kept while they stay the same)."""
        if self._labels_of != language:
            advance, template = self._small.__getitem__, language[0]  # (not self's method: no cycle through self)

            def small(text: str) -> float:
                return sum(map(advance, text))

            self._labels_of = language
            self._label_widths = (_Widths(lambda hits: small(template.format(hits))),
                                  _Widths(lambda actor: small(author_label(actor) + AUTHOR_SEP)),
                                  max(map(small, every_form(language[2]))))
        return self._label_widths

    def words(self, text: str) -> tuple[float, ...]:
        """``text``'s words' widths, each followed by the width of the spaces after it (a CJK character is
        a word of its own: a line may break before any)."""
        advance = self._text.__getitem__
        space = advance(" ")
        widths: list[float] = []
        for word in text.split(" "):  # (collapsed: one space between words)
            if _CJK_CHAR.search(word):
                for part, gap in _WORDS.findall(word):
                    widths += (sum(map(advance, part)), sum(map(advance, gap)))
                widths[-1] = space
            else:
                widths += (sum(map(advance, word)), space)
        return tuple(widths)

    def height(self, text_width: float, badge: float, words: str | Sequence[float] | None, width: int) -> int:
        """How tall a card with these measurements is at ``width`` (``words``: ``measure``'s, or ``words``'s)."""
        if text_width + badge + self.chrome + 2 <= width:
            lines = 1
        else:
            words = self.words(words) if isinstance(words, str) else words
            lines = text_lines(text_width, words, max(1.0, width - self.chrome - badge), self.max_lines)
        return int(self.base + lines * self.line_spacing + 0.999)

    def natural_size(self, card: Card, max_width: int | None = None) -> QSize:
        """``card``'s size on its own: its natural width within the density's minimum and maximum
        (or ``max_width``), as tall as that width needs."""
        nat, texts, badges, words = self.measure([card])
        width = max(self.min_width, min(self.max_width if max_width is None else max_width, nat[0]))
        return QSize(width, self.height(texts[0], badges[0], words[0], width))


class CardDelegate(QStyledItemDelegate):
    """Paints cards of a :class:`MemoryCardModel` (or a per-theme list of it); sizes come from the
    view's flow (``ThemeCardView``, measured with :class:`CardMetrics`).

    Wrapped lines are cached by (text, width, font, lines): text layout is the costly part of a paint.
    """

    CACHE_LIMIT = 4000  # wrapped texts kept (a few screens of cards)
    _placed = Owner()  # the view's layout_size, held weakly, so the owner and this part form no reference cycle (widgets/owner.py)

    def __init__(self, parent=None) -> None:
        super().__init__(parent)
        # the view's placed sizes, looked up without going through option.widget
        self._placed = getattr(parent, "layout_size", None)
        self._lines: dict[tuple, list[tuple[int, str]]] = {}
        self._statics: dict[tuple[str, str], QStaticText] = {}
        self._paint_fonts: tuple | None = None
        self._named: dict[str, QColor] = {}
        self._metrics: CardMetrics | None = None

    def clear_cache(self) -> None:
        self._lines.clear()
        self._statics.clear()
        self._metrics = None

    @staticmethod
    def _density(widget: QWidget | None) -> tuple[str, Density]:
        name = getattr(widget, "density", "comfortable")
        name = name if isinstance(name, str) and name in DENSITIES else "comfortable"
        return name, DENSITIES[name]

    @staticmethod
    def _available(widget: QWidget | None, d: Density) -> int:
        viewport = getattr(widget, "viewport", None)
        width = viewport().width() - 1 if callable(viewport) else d.max_width
        return max(d.min_width, min(d.max_width, width))

    def metrics(self, widget: QWidget | None, font: QFont | None = None) -> CardMetrics:
        """The card metrics for ``widget``'s density and ``font`` (its font by default), kept while
        they stay the same."""
        name, _ = self._density(widget)
        font = font if font is not None else (widget.font() if widget is not None else QFont())
        metrics = self._metrics
        if metrics is None or metrics.setting != (name, font.key()):
            metrics = self._metrics = CardMetrics(name, font)
        return metrics

    def _wrapped(self, text: str, font: QFont, font_key: str, width: float, max_lines: int) -> list[tuple[int, str]]:
        key = (text, round(width, 1), font_key, max_lines)
        lines = self._lines.get(key)
        if lines is None:
            if len(self._lines) >= self.CACHE_LIMIT:
                self._lines.clear()
            lines = self._lines[key] = wrap_lines(text, font, width, max_lines)
        return lines

    def card_size(self, card: Card, font: QFont, widget: QWidget | None) -> QSize:
        """One card's natural size (see :class:`CardMetrics`)."""
        _, d = self._density(widget)
        return self.metrics(widget, font).natural_size(card, self._available(widget, d))

    def sizeHint(self, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex) -> QSize:
        placed = self._placed
        if placed is None:
            placed = getattr(option.widget, "layout_size", None)
        size = placed(index.row()) if callable(placed) else None
        if size is not None:
            return size  # Qt copies it
        card: Card | None = index.data(CardRole.Card)
        if card is None:
            return QSize(DENSITIES["comfortable"].min_width, 40)
        return self.card_size(card, option.font, option.widget)

    # ── painting ──────────────────────────────────────────────────────

    def _fonts(self, font: QFont) -> tuple[str, QFontMetricsF, QFont, QFontMetricsF]:
        """(key, metrics, small font, small metrics) of ``font``, kept while the font stays the same
        (``QFont.key()`` builds a string: not once per card)."""
        fonts = self._paint_fonts
        if fonts is None or fonts[0] != font:
            small = _small(font)
            fonts = self._paint_fonts = (QFont(font), font.key(), QFontMetricsF(font), small, QFontMetricsF(small),
                                         small.key())
        return fonts[1:5]

    def _static(self, text: str, font: QFont, key: str) -> QStaticText:
        """``text`` laid out once in ``font`` (whose key is ``key``): a footer's words repeat on many cards."""
        key = (text, key)
        static = self._statics.get(key)
        if static is None:
            if len(self._statics) >= self.CACHE_LIMIT:
                self._statics.clear()
            static = self._statics[key] = QStaticText(text)
            static.setTextFormat(Qt.TextFormat.PlainText)
            static.prepare(font=font)
        return static

    def _color(self, name: str) -> QColor:
        color = self._named.get(name)
        if color is None:
            color = self._named[name] = QColor(name)
        return color

    def paint(self, painter: QPainter, option: QStyleOptionViewItem, index: QModelIndex | QPersistentModelIndex):
        card: Card | None = index.data(CardRole.Card)
        if card is None:
            return
        widget = option.widget
        cached = getattr(widget, "card_colors", None)
        colors = cached() if callable(cached) else card_colors(widget)
        dark = colors["cardBackground"].lightness() < 128
        density_name, d = self._density(widget)
        rect = QRectF(option.rect).adjusted(d.margin, d.margin, -d.margin, -d.margin)
        selected = bool(option.state & QStyle.StateFlag.State_Selected)
        hovered = bool(option.state & QStyle.StateFlag.State_MouseOver)
        palette = getattr(widget, "theme_colors", None)
        mode = "dark" if dark else "light"
        theme = card[THEME]
        stripe_color = self._color(palette.color(theme, mode) if palette is not None else theme_color(theme, mode))

        painter.save()
        self._paint_frame(painter, rect, card, index, colors, d, selected=selected, hovered=hovered,
                          stripe_color=stripe_color)
        font = option.font
        font_key, metrics, small, small_metrics = self._fonts(font)
        small_key = self._paint_fonts[5]
        badge = "" if d.footer else count_text(card[HIT])
        lock = lock_width(small_metrics.height()) if card[LOCKED] else 0.0
        badge_width = small_metrics.horizontalAdvance(badge) + BADGE_GAP + lock if badge else 0.0
        text_left = rect.left() + STRIPE + d.padding
        text_width = rect.right() - d.padding - text_left - badge_width
        painter.setFont(font)
        painter.setPen(colors["cardText"])
        self._paint_lines(painter, rect, card, index, colors, d, font, font_key, metrics, small_metrics,
                          text_left, text_width)
        painter.setFont(small)
        painter.setPen(colors["cardMuted"])
        if d.footer:
            self._paint_footer(painter, rect, card, index, colors, d, small, small_key, small_metrics, text_left, lock)
        else:  # compact: the count (and the lock) at the end of the first line
            baseline = rect.top() + d.padding + metrics.ascent()
            painter.drawText(QPointF(rect.right() - d.padding - badge_width + BADGE_GAP + lock, baseline), badge)
            if card[LOCKED]:
                paint_lock(painter, rect.right() - d.padding - badge_width + BADGE_GAP, baseline,
                           small_metrics.height(), colors["cardMuted"])

        hint = getattr(widget, "drop_hint", None)
        if hint is not None and hint.target == card[ID]:
            self._paint_merge_zone(painter, option.rect, density_name, colors, hint, small)
        else:
            dragging = getattr(widget, "dragging", None)
            if dragging is not None and dragging[0] != card[ID]:  # every card a drop could merge into
                self._paint_merge_zone(painter, option.rect, density_name, colors, None, small, whole=dragging[1])
        painter.restore()

    def _paint_frame(self, painter: QPainter, rect: QRectF, card: Card, index: Any, colors: dict[str, QColor],
                     d: Density, *, selected: bool, hovered: bool, stripe_color: QColor) -> None:
        """The card's rounded shape: background, a flash after a change, border, stripe, pin."""
        painter.setRenderHint(QPainter.RenderHint.Antialiasing, True)
        path = QPainterPath()
        path.addRoundedRect(rect, RADIUS, RADIUS)
        painter.fillPath(path, colors["cardBackground"])

        flash = float(index.data(CardRole.Flash) or 0.0)
        if flash > 0:
            glow = QColor(colors["cardFlash"])
            glow.setAlphaF(0.45 * flash)
            painter.fillPath(path, glow)

        border = colors["cardSelected"] if selected else colors["cardBorder"]
        if hovered and not selected:
            border = colors["cardMuted"]
        painter.setPen(QPen(border, 2.0 if selected else 1.0))
        painter.drawPath(path)

        # the stripe: the card's rounded left edge (a rectangular clip is far cheaper than the path's)
        painter.setClipRect(QRectF(rect.left(), rect.top(), STRIPE, rect.height()))
        painter.fillPath(path, stripe_color)
        if card[PINNED]:  # the folded corner, within the card's rounded shape
            painter.setClipPath(path)
            paint_pin(painter, rect, d.padding + STRIPE + 2, stripe_color)
        painter.setClipping(False)

    def _paint_lines(self, painter: QPainter, rect: QRectF, card: Card, index: Any, colors: dict[str, QColor],
                     d: Density, font: QFont, font_key: Any, metrics: Any, small_metrics: Any,
                     text_left: float, text_width: float) -> None:
        """The description, wrapped to the lines that fit, with a search's matches marked."""
        spans: list[Span] = index.data(CardRole.Highlights) or []
        y = rect.top() + d.padding
        spacing = metrics.lineSpacing()
        room = rect.height() - 2 * d.padding - (FOOTER_GAP + small_metrics.height() if d.footer else 0)
        fit = max(1, min(d.max_lines, int((room + 1) // spacing)))
        for start, line in self._wrapped(shown_text(card[DESCRIPTION]), font, font_key, text_width, fit):
            if spans:
                mark = QColor(colors["cardFlash"])
                mark.setAlphaF(0.55)
                for span_start, length in spans:
                    a, b = max(span_start, start) - start, min(span_start + length, start + len(line)) - start
                    if a < b:
                        x0 = text_left + metrics.horizontalAdvance(line[:a])
                        x1 = text_left + min(metrics.horizontalAdvance(line[:b]), text_width)
                        painter.fillRect(QRectF(x0, y, x1 - x0, spacing), mark)
            painter.drawText(QPointF(text_left, y + metrics.ascent()), line)
            y += spacing

    def _paint_footer(self, painter: QPainter, rect: QRectF, card: Card, index: Any, colors: dict[str, QColor],
                      d: Density, small: QFont, small_key: Any, small_metrics: Any, text_left: float,
                      lock: float) -> None:
        """The footer row: how often it was used on the left; who changed it last, and when, on the right."""
        baseline = rect.bottom() - d.padding - small_metrics.descent() + 1
        top = baseline - small_metrics.ascent()
        painter.drawStaticText(QPointF(text_left, top), self._static(uses_text(card[HIT]), small, small_key))
        when = str(index.data(CardRole.RelativeTime) or "")  # the model's words, through any proxy
        # who changed it last, and when
        right = self._static(author_label(card[ACTOR]) + AUTHOR_SEP + when, small, small_key)
        x = rect.right() - d.padding - right.size().width()
        painter.drawStaticText(QPointF(x, top), right)
        if card[LOCKED]:
            paint_lock(painter, x - lock, baseline - small_metrics.descent(), small_metrics.height(),
                       colors["cardMuted"])

    def _paint_merge_zone(self, painter: QPainter, item_rect: QRect, density: str, colors: dict[str, QColor],
                          hint, small: QFont, *, whole: bool = False) -> None:
        """The zone a drop merges in: strong under the cursor (``hint.merge``), faint on the card
        under the cursor outside it, fainter on every other card while a card is dragged (``hint``
        None). ``whole``: the whole card (the dragged card's own theme)."""
        whole = whole or (hint is not None and hint.whole)
        zone = merge_whole(item_rect, density) if whole else merge_zone(item_rect, density)
        accent = QColor(colors["cardSelected"])
        fill = QColor(accent)
        merging = hint is not None and hint.merge
        fill.setAlphaF(0.28 if merging else 0.08 if hint is not None else 0.05)
        if hint is None:  # only a dashed outline on the other cards, no label: the text stays readable
            path = QPainterPath()
            path.addRoundedRect(zone.adjusted(2, 2, -2, -2), RADIUS - 2, RADIUS - 2)
            painter.fillPath(path, fill)
            painter.setPen(QPen(accent, 1.0, Qt.PenStyle.DashLine))
            painter.drawPath(path)
            return
        if whole:  # the card itself is the zone: its label sits at its right end
            label = QRectF(zone.right() - 60, zone.top(), 56, zone.height())
        else:
            label = zone
        path = QPainterPath()
        path.addRoundedRect(zone.adjusted(2, 2, -2, -2), RADIUS - 2, RADIUS - 2)
        painter.fillPath(path, fill)
        pen = QPen(accent, 1.5, Qt.PenStyle.SolidLine if hint.merge else Qt.PenStyle.DashLine)
        painter.setPen(pen)
        painter.drawPath(path)
        painter.setFont(small)
        painter.setPen(colors["cardText"] if hint.merge else accent)
        painter.drawText(label, Qt.AlignmentFlag.AlignCenter, QCoreApplication.translate("CardDelegate", "合并"))
        if hint.merge and hint.preview:  # what the merge adds, under the card
            card_rect = QRectF(item_rect).adjusted(2, 2, -2, -2)
            band = QRectF(card_rect.left() + STRIPE + 4, card_rect.bottom() - 20, label.left() - card_rect.left() - 10, 18)
            veil = QColor(colors["cardBackground"])
            painter.fillRect(band, veil)
            text = "＋ " + shown_text(hint.preview)
            painter.setPen(accent)
            painter.drawText(band, Qt.AlignmentFlag.AlignVCenter | Qt.AlignmentFlag.AlignLeft,
                             QFontMetricsF(small).elidedText(text, Qt.TextElideMode.ElideRight, band.width()))
