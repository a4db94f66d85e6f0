"""What an emoji shows, in words: the English words of its Unicode name ("🐱" CAT FACE -> "cat",
"🏸" BADMINTON RACQUET AND SHUTTLECOCK -> "badminton racquet shuttlecock").

People write 🐱 for their cat and 🦷 for the dentist; memories are written in words. The offline
recall reads these names as it reads an English question (``lexicon.english_words`` turns them into
Chinese words through the packaged English-Chinese table). Words every emoji name shares ("face",
"sign") and the marks that only shape an emoji (skin tones, the zero-width joiner, variation
selectors, gender signs in a sequence) say nothing of what it shows and are left out, and so do the
plain expressions of the Emoticons block (😂, 😭: a feeling, not a topic).
"""

from __future__ import annotations

import re
import unicodedata

__all__ = ["emoji_names"]

#: Words of emoji names that describe the picture's form, not what it stands for.
_FILLER = frozenset("""
face sign symbol with and of the a an black white heavy light medium dark small large big button squared
circled negative enclosed ideograph emoji mark skin tone modifier type fitzpatrick variation selector
male female man woman person dingbat
""".split())
#: Marks inside an emoji sequence: skin tones, the joiner, variation selectors, tags, keycap.
_SHAPING = frozenset(range(0x1F3FB, 0x1F400)) | {0x200D, 0xFE0E, 0xFE0F, 0x20E3, 0x2640, 0x2642}
MAX_EMOJI = 16  # a message of a hundred emoji is read for its first sixteen
#: The only code points ``_is_emoji`` may accept: a text is searched for these, not read a character at a time.
_MAYBE = re.compile("[\u2600-\u27bf\u2b00-\u2bff\U0001f000-\U0010ffff]")


def _is_emoji(ch: str) -> bool:
    cp = ord(ch)
    if cp in _SHAPING or 0x1F1E6 <= cp <= 0x1F1FF or 0xE0000 <= cp <= 0xE007F:  # flags' letters, tags
        return False
    if 0x1F600 <= cp <= 0x1F64F:  # the Emoticons block: 😂 😭 🙏 are how a message feels, not what it is about
        return False
    return unicodedata.category(ch) == "So" and (0x2600 <= cp <= 0x27BF or 0x2B00 <= cp <= 0x2BFF or cp >= 0x1F000)


def emoji_names(text: str) -> list[str]:
    """The words of each distinct emoji's name in ``text``, in order (one string per emoji)."""
    out: list[str] = []
    seen: set[str] = set()
    for match in _MAYBE.finditer(text):
        ch = match.group()
        if ch in seen or not _is_emoji(ch):
            continue
        seen.add(ch)
        words = [w for w in unicodedata.name(ch, "").lower().replace("-", " ").split() if w not in _FILLER]
        if words:
            out.append(" ".join(words))
            if len(out) >= MAX_EMOJI:
                break
    return out
