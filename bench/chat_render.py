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
    stream = MessageBubble("assistant", max_width=700)
    steps = []
    for end in range(0, len(text), 40):  # one render per 40 characters streamed
        stream._text = text[:end]
        steps.append(_ms(stream.flush))
    steps.sort()
    print(f"stream 20k chars: {len(steps)} renders, median {steps[len(steps) // 2]:.1f} ms,"
          f" p99 {steps[int(len(steps) * 0.99)]:.1f} ms, worst {steps[-1]:.1f} ms, total {sum(steps):.0f} ms")
    app.quit()


if __name__ == "__main__":
    main()
