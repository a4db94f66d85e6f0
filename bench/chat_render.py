"""Chat reply rendering cost on the GUI thread (offscreen Qt): Markdown -> HTML and the bubble's
fit (layout at its width), for hostile and ordinary replies, and the worst single re-render while
a long reply streams in.

    python -m bench.chat_render [--reps 5]

Not a test: the numbers go to docs/benchmarks.md. The goal (issue 11 item 19) is no single step
over 50 ms and cost linear in the text.
"""

from __future__ import annotations

import argparse
import os
import statistics
import time

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

from PySide6.QtWidgets import QApplication

from sonetto_desktop.ui.chat import markdown_render
from sonetto_desktop.ui.chat.message_bubble import MessageBubble

NORMAL = "这是一段**正常**的回复，带有[链接](https://example.com)和`代码`。\n\n- 一项\n- 两项\n\n"
CASES = {
    "10k [": "[" * 10_000,
    "6k [": "[" * 6_000,
    "500-deep >": ">" * 500 + " x",
    "500-deep list": "".join("  " * i + "- a\n" for i in range(500)),
    "500-deep [](": "[" * 500 + "x" + "](y)" * 500,
    "backticks 10k": "`" * 10_000,
    "normal 5k": NORMAL * (5_000 // len(NORMAL)),
    "normal 50k": NORMAL * (50_000 // len(NORMAL)),
    "one 100k line": "word " * 20_000,
}


def _ms(fn) -> float:
    start = time.perf_counter()
    fn()
    return (time.perf_counter() - start) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    app = QApplication.instance() or QApplication([])
    print(f"{'case':16s} {'chars':>7s} {'markdown ms':>12s} {'bubble ms':>10s}")
    for name, text in CASES.items():
        md, full = [], []
        for _ in range(args.reps):
            markdown_render._cache.clear()
            md.append(_ms(lambda text=text: markdown_render.render_markdown(text)))
            markdown_render._cache.clear()
            bubble = MessageBubble("assistant", max_width=700)
            full.append(_ms(lambda text=text, bubble=bubble: bubble.set_text(text)))
            bubble.deleteLater()
        print(f"{name:16s} {len(text):7d} {statistics.median(md):12.1f} {statistics.median(full):10.1f}")

    markdown_render._cache.clear()
    text = NORMAL * (20_000 // len(NORMAL))
    _stream("stream 20k chars", text, shown=False)
    # shown on screen: each render also lays the bubble out again and paints it, as in the chat
    _stream("stream 20k shown", text, shown=True)
    _stream("stream 20k URLs shown", LONG_WORDS * (20_000 // len(LONG_WORDS)), shown=True)
    _piece("one piece re-rendered, Markdown", NORMAL)
    _piece("one piece re-rendered, URLs", LONG_WORDS)
    app.quit()


LONG_WORDS = "看这个链接 https://example.com/" + "abcdef0123456789" * 8 + " 和哈希 " + "9f86d081884c7d65" * 6 + "。\n\n"


def _piece(name: str, source: str) -> None:
    """The last piece of a streaming reply re-rendered (its text set, fitted, painted) 200 times: the
    GUI thread's CPU per render, median of 5 runs (steadier than wall time on a shared machine)."""
    from PySide6.QtCore import Qt

    from sonetto_desktop.ui.chat.bubble_text import BubbleText

    html = markdown_render.render_chunk(markdown_render.chunks(source * (20_000 // len(source)))[0], markdown=True)
    piece = BubbleText(limit=676)
    piece.setTextFormat(Qt.TextFormat.RichText)
    piece.show()
    runs = []
    for _ in range(5):
        cpu = time.thread_time()
        for i in range(200):
            piece.setText(html + ("x" if i % 2 else "y"))
            piece.repaint()
        runs.append((time.thread_time() - cpu) / 200 * 1000)
    print(f"{name}: [cpu {statistics.median(runs):.2f} ms per render]")
    piece.deleteLater()


def _stream(name: str, text: str, *, shown: bool) -> None:
    """One render per 40 characters streamed; [cpu]: the GUI thread's CPU time over all renders."""
    markdown_render._cache.clear()
    stream = MessageBubble("assistant", max_width=700)
    if shown:
        stream.show()
        QApplication.processEvents()

    def step(end: int) -> None:
        stream._text = text[:end]
        stream.flush()
        if shown:
            QApplication.processEvents()  # the layout and the paint

    steps = []
    cpu = time.thread_time()
    for end in range(0, len(text), 40):
        steps.append(_ms(lambda end=end: step(end)))
    cpu = (time.thread_time() - cpu) * 1000
    steps.sort()
    print(f"{name}: {len(steps)} renders, median {steps[len(steps) // 2]:.1f} ms,"
          f" p99 {steps[int(len(steps) * 0.99)]:.1f} ms, worst {steps[-1]:.1f} ms, total {sum(steps):.0f} ms"
          f" [cpu {cpu:.0f} ms]")
    stream.deleteLater()


if __name__ == "__main__":
    main()
